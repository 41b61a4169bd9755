/* The MPI Forum draft's notified communication (MPI-5.1 draft, section
 * 12.6), as a program written to the draft calls it, beside the paper's
 * calls of the same names on the same window.  Each process's target is
 * the next rank; process r attaches 2 + r counters, so that a count is the
 * target's, not the origin's.
 *   - MPI_Win_get_num_notify: 0 before any set, then each process's count;
 *     counters start at 0;
 *   - all eight notified calls in the draft's spelling (..., idx, win),
 *     and the _c forms of two, move their data as MPI_Put ... do and add
 *     one to the target's counter each (gets too: the counter is the
 *     target's); a paper MPI_Put_notify (..., win, tag) on the same window
 *     completes the target's matching request and counts nowhere; ordinary
 *     puts and accumulates to the same bytes after a flush see the data;
 *     MPIX_Win_notify_request completes when a draft counter reaches its
 *     threshold;
 *   - MPI_Win_reset_notify_value returns what it zeroed, also while
 *     notifications arrive: the values returned add up to what was sent;
 *   - the counters grow and shrink (every value back to 0);
 *   - errors: an index below 0 or at the target's count, a call that fits
 *     neither spelling, a bad tag in the paper's, a set inside an epoch
 *     (and the group fails together when one process refuses), a bad
 *     count, a bad rank; MPI_PROC_NULL does nothing;
 *   - the bounds: MPI_WIN_NOTIFY_NUMSB, _NUMUB, _VALUE_UB, and
 *     mpi_assert_max_num_notify at creation, in MPI_Win_get_info, held by
 *     MPI_Win_set_num_notify and MPIX_Win_create_notify;
 *   - beyond the draft, which allows passive-target epochs only: a draft
 *     put in a fence epoch counts as MPIX_Put_notify does.
 * Argument: N, notified puts in the reset race (default 2000). */
#include <limits.h>
#include "na_test.h"

#define TAG 5

static void expect_class(int rc, int want, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
}

/* wait until counter idx holds at least want, with the counter calls alone */
static MPI_Count wait_counter(MPI_Win win, int idx, MPI_Count want)
{
    MPI_Count v = -1;
    do
        MPI_OK(MPI_Win_get_notify_value(win, idx, &v));
    while (v < want);
    return v;
}

/* the counter bounds, on a window created with mpi_assert_max_num_notify
 * 3 at every process but process 0, whose value is no count: ignored there
 * (a hint not understood), without failing the collective creation */
static void bounds(int rank, int size)
{
    int64_t *base;
    MPI_Win win;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpi_assert_max_num_notify", rank == 0 ? "many" : "3"));
    MPI_OK(MPI_Win_allocate(8 * sizeof(int64_t), sizeof(int64_t), info, MPI_COMM_WORLD, &base,
                            &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int ub = rank == 0 ? 1 << 24 : 3, flag = 0, *num;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFY_NUMUB, &num, &flag));
    CHECK(flag && *num == ub, "MPI_WIN_NOTIFY_NUMUB %d (flag %d), expected %d", *num, flag, ub);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFY_NUMSB, &num, &flag));
    CHECK(flag && *num == ub, "MPI_WIN_NOTIFY_NUMSB %d (flag %d), expected %d", *num, flag, ub);

    /* MPI_Win_get_info says what is in effect; MPI_Win_set_info makes no
     * promise after creation */
    char val[MPI_MAX_INFO_VAL + 1];
    for (int pass = 0; pass < 2; pass++) {
        MPI_Info used;
        int len = sizeof(val);
        MPI_OK(MPI_Win_get_info(win, &used));
        MPI_OK(MPI_Info_get_string(used, "mpi_assert_max_num_notify", &len, val, &flag));
        MPI_Info_free(&used);
        CHECK(flag && strcmp(val, rank == 0 ? "0" : "3") == 0,
              "pass %d: mpi_assert_max_num_notify reads \"%s\" (flag %d)", pass, val, flag);
        MPI_OK(MPI_Info_set(info, "mpi_assert_max_num_notify", "1"));
        MPI_OK(MPI_Win_set_info(win, info));
    }
    MPI_Info_free(&info);

    /* the promise is held: 3 counters, not 4 (a refusal at some processes
     * fails the call everywhere); MPIX_Win_create_notify holds to it too */
    MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 3));
    int rc = MPI_Win_set_num_notify(win, MPI_INFO_NULL, 4);
    expect_class(rc, rank == 0 ? MPI_ERR_OTHER : MPI_ERR_ARG, "4 counters, 3 asserted");
    rc = MPIX_Win_create_notify(win, 4);
    expect_class(rc, rank == 0 ? MPI_ERR_OTHER : MPI_ERR_COUNT, "MPIX: 4 counters, 3 asserted");
    /* a negative count at one process: every process fails, none waits */
    rc = MPIX_Win_create_notify(win, rank == 0 ? -1 : 2);
    expect_class(rc, rank == 0 ? MPI_ERR_ARG : MPI_ERR_OTHER, "MPIX: -1 counters at process 0");
    MPI_OK(MPI_Win_get_num_notify(win, rank, &flag));
    CHECK(flag == 3, "count after the refusals: %d", flag);
    rc = MPI_Win_set_attr(win, MPI_WIN_NOTIFY_NUMUB, &flag);
    expect_class(rc, MPI_ERR_KEYVAL, "MPI_Win_set_attr(MPI_WIN_NOTIFY_NUMUB)");

    /* beyond the draft (passive target only): a fence epoch, as for
     * MPIX_Put_notify; the counter is the target's last */
    int64_t mine = 500 + rank;
    base[0] = -1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put_notify(&mine, 1, MPI_INT64_T, (rank + 1) % size, 0, 1, MPI_INT64_T, 2, win));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_Count v = wait_counter(win, 2, 1);
    int prev = (rank + size - 1) % size;
    CHECK(v == 1 && base[0] == 500 + prev, "fence epoch: counter %lld, data %lld",
          (long long) v, (long long) base[0]);
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int64_t *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(16 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 16; i++)
        base[i] = 0;

    /* counter management: the bounds without an assertion, the counts */
    int *bound, flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFY_NUMUB, &bound, &flag));
    CHECK(flag && *bound == 1 << 24, "MPI_WIN_NOTIFY_NUMUB %d (flag %d)", *bound, flag);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFY_NUMSB, &bound, &flag));
    CHECK(flag && *bound == 1 << 24, "MPI_WIN_NOTIFY_NUMSB %d (flag %d)", *bound, flag);
    MPI_Count *value_ub;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_NOTIFY_VALUE_UB, &value_ub, &flag));
    CHECK(flag && *value_ub == INT64_MAX, "MPI_WIN_NOTIFY_VALUE_UB %lld (flag %d)",
          (long long) *value_ub, flag);
    int num = -1;
    MPI_OK(MPI_Win_get_num_notify(win, next, &num));
    CHECK(num == 0, "counters before any MPI_Win_set_num_notify: %d", num);
    MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 2 + rank));
    for (int r = 0; r < size; r++) {
        MPI_OK(MPI_Win_get_num_notify(win, r, &num));
        CHECK(num == 2 + r, "MPI_Win_get_num_notify(%d): %d, set %d", r, num, 2 + r);
    }
    MPI_Count v = -1;
    for (int i = 0; i < 2 + rank; i++) {
        MPI_OK(MPI_Win_get_notify_value(win, i, &v));
        CHECK(v == 0, "counter %d starts at %lld", i, (long long) v);
    }

    /* the paper's request on the same window */
    MPI_Request nreq;
    MPI_OK(MPI_Notify_init(win, prev, TAG, 1, &nreq));
    MPI_OK(MPI_Start(&nreq));
    /* and a request for counter 1's threshold, as continuations use */
    MPI_Request creq;
    MPI_OK(MPIX_Win_notify_request(win, 1, 7, &creq));
    MPI_Barrier(MPI_COMM_WORLD);

    /* the draft's eight calls, counted on the target's counters 0 (puts)
     * and 1 (everything that reads or combines) */
    MPI_OK(MPI_Win_lock_all(0, win));
    int64_t one = 100 + rank, two = 7, got = -1, fetched = -1, rgot = -1, rfetched = -1;
    int64_t big = 200 + rank, tagged = 300 + rank;
    MPI_Request r[4];
    MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, 0, win));
    MPI_OK(MPI_Put_notify_c(&big, 1, MPI_INT64_T, next, 1, 1, MPI_INT64_T, 0, win));
    MPI_OK(MPI_Rput_notify(&one, 1, MPI_INT64_T, next, 2, 1, MPI_INT64_T, 0, win, &r[0]));
    MPI_OK(MPI_Win_flush(next, win));
    MPI_OK(MPI_Get_notify(&got, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, 1, win));
    MPI_OK(MPI_Rget_notify(&rgot, 1, MPI_INT64_T, next, 1, 1, MPI_INT64_T, 1, win, &r[1]));
    MPI_OK(MPI_Accumulate_notify(&two, 1, MPI_INT64_T, next, 3, 1, MPI_INT64_T, MPI_SUM, 1,
                                 win));
    MPI_OK(MPI_Get_accumulate_notify(&two, 1, MPI_INT64_T, &fetched, 1, MPI_INT64_T, next, 4,
                                     1, MPI_INT64_T, MPI_SUM, 1, win));
    MPI_OK(MPI_Raccumulate_notify(&two, 1, MPI_INT64_T, next, 5, 1, MPI_INT64_T, MPI_SUM, 1,
                                  win, &r[2]));
    MPI_OK(MPI_Rget_accumulate_notify(&two, 1, MPI_INT64_T, &rfetched, 1, MPI_INT64_T, next,
                                      6, 1, MPI_INT64_T, MPI_SUM, 1, win, &r[3]));
    MPI_OK(MPI_Get_notify_c(&got, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, 1, win));
    /* the paper's spelling on the same window: matched, not counted */
    MPI_OK(MPI_Put_notify(&tagged, 1, MPI_INT64_T, next, 7, 1, MPI_INT64_T, win, TAG));
    /* MPI_PROC_NULL: nothing, in both spellings */
    MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, 0, win));
    MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, win, TAG));
    MPI_Status sts[4];
    MPI_OK(MPI_Waitall(4, r, sts));
    MPI_OK(MPI_Win_flush(next, win));
    CHECK(got == 100 + rank, "MPI_Get_notify read %lld", (long long) got);
    CHECK(rgot == 200 + rank, "MPI_Rget_notify read %lld", (long long) rgot);
    CHECK(fetched == 0 && rfetched == 0, "get-accumulates fetched %lld, %lld",
          (long long) fetched, (long long) rfetched);

    /* at the target: 3 puts on counter 0, 7 on counter 1, the paper's put
     * matched and counted on neither */
    MPI_Count c0 = wait_counter(win, 0, 3), c1;
    MPI_Status st;
    MPI_OK(MPI_Wait(&creq, &st));
    CHECK(st.MPI_TAG == 1, "counter 1's request: tag %d", st.MPI_TAG);
    MPI_OK(MPI_Wait(&nreq, &st));
    MPI_Barrier(MPI_COMM_WORLD);        /* every origin's accesses are counted */
    MPI_OK(MPI_Win_get_notify_value(win, 0, &c0));
    MPI_OK(MPI_Win_get_notify_value(win, 1, &c1));
    CHECK(c0 == 3 && c1 == 7, "counters 0, 1: %lld, %lld (expected 3, 7)", (long long) c0,
          (long long) c1);
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == TAG, "paper's notification from %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    int64_t want[8] = { 100 + prev, 200 + prev, 100 + prev, 7, 7, 7, 7, 300 + prev };
    for (int i = 0; i < 8; i++)
        CHECK(base[i] == want[i], "slot %d holds %lld, expected %lld", i, (long long) base[i],
              (long long) want[i]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* ordinary RMA on the same bytes after the flush */
    int64_t plain = 400 + rank, seen = -1;
    MPI_OK(MPI_Put(&plain, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, win));
    MPI_OK(MPI_Accumulate(&two, 1, MPI_INT64_T, next, 3, 1, MPI_INT64_T, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(next, win));
    MPI_OK(MPI_Get(&seen, 1, MPI_INT64_T, next, 3, 1, MPI_INT64_T, win));
    MPI_OK(MPI_Win_flush(next, win));
    CHECK(seen == 14, "MPI_Accumulate after MPI_Accumulate_notify: %lld", (long long) seen);

    /* errors: the target (next) has 2 + next counters */
    int cnt_next = 2 + next, rc;
    MPI_Request rq = MPI_REQUEST_NULL;
    rc = MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, -1, win);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "index -1");
    rc = MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, cnt_next, win);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "index at the target's count");
    rc = MPI_Rget_notify(&got, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, cnt_next, win, &rq);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "MPI_Rget_notify, index at the target's count");
    rc = MPI_Accumulate_notify(&two, 1, MPI_INT64_T, next, 3, 1, MPI_INT64_T, MPI_SUM, -1, win);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "MPI_Accumulate_notify, index -1");
    /* the last counter of a target with more than this process has */
    MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, cnt_next - 1, win));
    /* no window to report to: MPI_COMM_WORLD's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, 5, 7);
    expect_class(rc, MPI_ERR_WIN, "neither spelling");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    rc = MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, win, -5);
    expect_class(rc, MPI_ERR_TAG, "the paper's spelling, tag -5");
    rc = MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, win, win);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "a window handle in both places");
    rc = MPI_Win_get_notify_value(win, 2 + rank, &v);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "MPI_Win_get_notify_value past the count");
    rc = MPI_Win_get_num_notify(win, size, &num);
    expect_class(rc, MPI_ERR_RANK, "MPI_Win_get_num_notify of rank size");
    /* erroneous while an access epoch is open here: every process fails */
    rc = MPI_Win_set_num_notify(win, MPI_INFO_NULL, 4);
    expect_class(rc, MPI_ERR_RMA_SYNC, "MPI_Win_set_num_notify inside lock_all");
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    /* what the last accesses counted is still there: the refused set
     * changed nothing */
    MPI_OK(MPI_Win_get_num_notify(win, rank, &num));
    CHECK(num == 2 + rank, "counters after a refused set: %d", num);
    MPI_Count last_want = rank == 0 ? 7 + 1 : 1;  /* rank 0's last is counter 1 */
    MPI_Count last = wait_counter(win, 2 + rank - 1, last_want);
    CHECK(last == last_want, "last counter %lld, expected %lld", (long long) last,
          (long long) last_want);
    /* one process refuses a count: the collective fails at every process */
    rc = MPI_Win_set_num_notify(win, MPI_INFO_NULL, rank == size - 1 ? -1 : 4);
    expect_class(rc, rank == size - 1 ? MPI_ERR_ARG : MPI_ERR_OTHER, "one process's count -1");
    rc = MPI_Win_set_num_notify(win, MPI_INFO_NULL, (1 << 24) + 1);
    expect_class(rc, MPI_ERR_ARG, "2^24 + 1 counters");
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_ERR_RMA_NOTIFICATION, s, &len);
    CHECK(strstr(s, "notification") != NULL, "MPI_ERR_RMA_NOTIFICATION reads \"%s\"", s);

    /* reset racing with arrivals: the previous rank puts n counted values,
     * this process resets counter 0 until what the resets returned adds
     * up to n; none lost, none counted twice */
    MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 3));
    MPI_OK(MPI_Win_lock_all(0, win));
    int64_t *vals = malloc(n * sizeof(int64_t));
    for (int i = 0; i < n; i++) {
        vals[i] = i;
        MPI_OK(MPI_Put_notify(&vals[i], 1, MPI_INT64_T, next, 8 + i % 8, 1, MPI_INT64_T, 0,
                              win));
    }
    MPI_Count sum = 0, resets = 0;
    while (sum < n) {
        MPI_OK(MPI_Win_reset_notify_value(win, 0, &v));
        CHECK(v >= 0 && v <= n, "reset returned %lld", (long long) v);
        sum += v;
        resets++;
    }
    MPI_OK(MPI_Win_flush(next, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_reset_notify_value(win, 0, &v));
    CHECK(sum == n && v == 0, "resets returned %lld in all, then %lld (sent %d)",
          (long long) sum, (long long) v, n);
    free(vals);

    /* grow, then shrink: every counter back to 0, the count as set */
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, 2, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    wait_counter(win, 2, 1);
    MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 8));
    MPI_OK(MPI_Win_get_notify_value(win, 2, &v));
    CHECK(v == 0, "counter 2 after growing: %lld", (long long) v);
    MPI_OK(MPI_Win_get_num_notify(win, next, &num));
    CHECK(num == 8, "grown count %d", num);
    MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 1));
    rc = MPI_Win_get_notify_value(win, 1, &v);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "counter 1 after shrinking to 1");
    MPI_OK(MPI_Win_set_num_notify(win, MPI_INFO_NULL, 0));
    MPI_OK(MPI_Win_get_num_notify(win, next, &num));
    CHECK(num == 0, "count after shrinking to 0: %d", num);
    MPI_OK(MPI_Win_lock_all(0, win));
    rc = MPI_Put_notify(&one, 1, MPI_INT64_T, next, 0, 1, MPI_INT64_T, 0, win);
    expect_class(rc, MPI_ERR_RMA_NOTIFICATION, "a counted put with no counters attached");
    MPI_OK(MPI_Win_unlock_all(win));

    MPI_OK(MPI_Request_free(&nreq));
    MPI_OK(MPI_Win_free(&win));
    bounds(rank, size);
    return na_finish();
}

/* The counter dialect (MPIX_Win_create_notify, MPIX_Put_notify,
 * MPIX_Get_notify, MPIX_Win_get_notify / set / free).  Rank 0 is the target:
 *   - every other rank puts N values into its own slot, each counted on
 *     counter 0 (hammered by all origins: the total must be exact), and
 *     rank 0 waits with MPIX_Win_get_notify alone (it must make progress);
 *     when the count is reached, the last value of every origin is there
 *     (a counter never runs ahead of its data);
 *   - notified gets count on counter 1 after they have read;
 *   - a tagged MPI_Put_notify on the same window meanwhile completes its
 *     matching request (both dialects at once) and is not counted;
 *   - ordinary MPI_Put / MPI_Get / MPI_Accumulate on the same bytes after a
 *     flush see the counted data;
 *   - MPI_PROC_NULL does nothing; set/get; bad index, no counters and
 *     detached counters give MPIX_ERR_INVALID_NOTIFICATION.
 * Argument: N (default 2000). */
#include <limits.h>
#include "na_test.h"

#define NCOUNTERS 4

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(2 * size * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 2 * size; i++)
        base[i] = -1;
    MPI_OK(MPIX_Win_create_notify(win, NCOUNTERS));

    MPI_Count v = -1;
    MPI_OK(MPIX_Win_get_notify(win, 0, &v));
    CHECK(v == 0, "a new counter reads %lld", (long long) v);

    MPI_Request req;
    if (rank == 0) {
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 7, size - 1, &req));
        MPI_OK(MPI_Start(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank != 0) {
        /* origin buffers stay untouched until the flush, as for MPI_Put */
        int64_t *vals = malloc(n * sizeof(int64_t));
        for (int64_t i = 1; i <= n; i++) {
            vals[i - 1] = (int64_t) rank << 32 | i;
            MPI_OK(MPIX_Put_notify(&vals[i - 1], 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, 0,
                                   win));
        }
        int64_t got = -1;
        MPI_OK(MPIX_Get_notify(&got, 1, MPI_INT64_T, 0, size + rank, 1, MPI_INT64_T, 1, win));
        int64_t tagged = 1000 + rank;
        MPI_OK(MPI_Put_notify(&tagged, 1, MPI_INT64_T, 0, size + rank, 1, MPI_INT64_T, win, 7));
        MPI_OK(MPIX_Put_notify(&tagged, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, 0,
                               win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(got == -1, "notified get read %lld before the tagged put", (long long) got);
        free(vals);
    } else {
        MPI_Count want = (MPI_Count) n * (size - 1);
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &v));
        while (v < want);
        CHECK(v == want, "counter 0: %lld, expected %lld", (long long) v, (long long) want);
        for (int r = 1; r < size; r++)
            CHECK(base[r] == ((int64_t) r << 32 | n), "slot %d holds %llx when counted", r,
                  (unsigned long long) base[r]);
        do
            MPI_OK(MPIX_Win_get_notify(win, 1, &v));
        while (v < size - 1);
        CHECK(v == size - 1, "counter 1 (gets): %lld", (long long) v);
        MPI_Status st;
        MPI_OK(MPI_Wait(&req, &st));
        MPI_OK(MPIX_Win_get_notify(win, 2, &v));
        CHECK(v == 0, "counter 2 untouched: %lld", (long long) v);
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPIX_Win_get_notify(win, 0, &v));
    CHECK(rank != 0 || v == (MPI_Count) n * (size - 1), "counter 0 after all: %lld",
          (long long) v);

    /* ordinary RMA on the counted bytes */
    if (rank == 1) {
        int64_t x = -5, y = 0, one = 1;
        MPI_OK(MPI_Put(&x, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(&y, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(y == -4, "put + accumulate after counted puts: %lld", (long long) y);
    }
    MPI_OK(MPI_Win_unlock_all(win));

    /* set, get, errors */
    MPI_OK(MPIX_Win_set_notify(win, 3, 42));
    MPI_OK(MPIX_Win_get_notify(win, 3, &v));
    CHECK(v == 42, "set 42, read %lld", (long long) v);
    int cls, rc = MPIX_Win_get_notify(win, NCOUNTERS, &v);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "index %d: class %d", NCOUNTERS, cls);
    rc = MPIX_Win_set_notify(win, -1, 0);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "index -1: class %d", cls);
    MPI_OK(MPI_Win_lock_all(0, win));
    int64_t z = 0;
    rc = MPIX_Put_notify(&z, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, NCOUNTERS, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "put to index %d: class %d", NCOUNTERS, cls);
    rc = MPIX_Put_notify(&z, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, -1, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "put to index -1: class %d", cls);
    rc = MPIX_Get_notify(&z, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, INT_MAX, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "get from index INT_MAX: class %d", cls);
    /* a tag of the matching dialect is a tag: one that looks like a counter
     * notification is out of range, and counts nothing */
    rc = MPI_Put_notify(&z, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win, (1 << 30) | 3);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TAG, "MPI_Put_notify tag 2^30+3: class %d", cls);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPIX_Win_get_notify(win, 3, &v));
    CHECK(v == 42, "counter 3 after refused accesses: %lld", (long long) v);
    MPI_OK(MPIX_Win_free_notify(win));
    rc = MPIX_Win_get_notify(win, 0, &v);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "detached: class %d", cls);
    /* the draft's spelling: attach, set, read */
    MPI_OK(MPIX_Win_notify_set_num(win, MPI_INFO_NULL, 2));
    MPI_OK(MPIX_Win_notify_set_value(win, 1, 7));
    MPI_OK(MPIX_Win_notify_get_value(win, 1, &v));
    CHECK(v == 7, "set_value 7, get_value %lld", (long long) v);
    MPI_OK(MPIX_Win_notify_set_num(win, MPI_INFO_NULL, 0));
    rc = MPIX_Win_notify_get_value(win, 0, &v);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "set_num 0 detaches: class %d", cls);
    /* counters attached again, then freed with the window */
    MPI_OK(MPIX_Win_create_notify(win, 1));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

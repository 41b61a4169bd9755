/*
 * The accumulate family of notified accesses (MPI_Accumulate_notify,
 * MPI_Get_accumulate_notify, MPI_Fetch_and_op_notify,
 * MPI_Compare_and_swap_notify, MPIX_Accumulate_notify,
 * MPIX_Get_accumulate_notify): rank 0 is the target, every other rank an
 * origin.
 *
 *   A. sum: origins mix notified and plain accumulates and fetch-and-ops
 *      (MPI_SUM, +1) on one location; when the target has each origin's
 *      last notification, the location holds the exact total (applied
 *      before notified, ordered after the origin's earlier accumulates),
 *      and every fetched value is distinct (atomic with each other);
 *   B. replace: each origin replaces its own slot with increasing values;
 *      at each notification the slot already holds at least that value;
 *      all origins also replace one shared slot, which ends holding one of
 *      the values written;
 *   C. compare-and-swap increments from every origin: exact total, one
 *      notification per attempt, none left over;
 *   D. one origin mixes every notified kind (put, accumulate,
 *      get-accumulate, fetch-and-op, compare-and-swap, get, zero-size
 *      accumulate): the target sees them in issue order with the target
 *      byte count of each, and the fetched values are right;
 *   E. counters: MPIX_Accumulate_notify / MPIX_Get_accumulate_notify, the
 *      data is there when the counter shows it;
 *   G. a large strided accumulate (MPICH's pipelined active-message
 *      accumulate where there is no native one): every element is updated
 *      when its notification arrives;
 *   H. accumulate ordering without a flush: every rank, to itself and to
 *      the next rank, a notified fetch-and-op, a plain accumulate, a
 *      notified accumulate and a plain fetch-and-op of one location in one
 *      epoch; each fetch sees exactly the accumulates issued before it
 *      (on shared memory the notified ones once went as active messages
 *      and a plain one overtook them);
 *   F. refused calls (tag, result buffer size, counter index, op) return
 *      their error class and leave no gap; a target MPI_PROC_NULL does
 *      nothing; ordinary put / get after notified accumulates.
 *
 *   mpiexec -n N acc_notify [K]     (K operations per origin and phase)
 */
#include "na_test.h"
#include <stdint.h>

enum {
    S_SUM = 0, S_SHARED = 1, S_CAS = 2, S_MIX = 3,      /* S_MIX .. S_MIX+7 */
    S_OWN = 16,                 /* S_OWN + origin */
    S_CNT0 = 40, S_CNT1 = 41, S_LAST = 48, S_ORD = 56,  /* S_ORD + origin */
    S_BIG = 64,
    BIG = 16384,                /* doubles, every other one of 2 * BIG */
    NSLOTS = S_BIG + 2 * BIG
};
enum { T_SUM = 10, T_SUM_LAST = 11, T_REPL = 20, T_CAS = 30, T_MIX = 40, T_LAST = 50,
    T_BIG = 60, T_ORD = 70
};

static int rank, size, norigins;
static MPI_Win win;
static volatile int64_t *slot;

static void wait_notifications(int src, int tag, int n, MPI_Status * st)
{
    MPI_Request r;
    MPI_OK(MPI_Notify_init(win, src, tag, n, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, st));
    MPI_OK(MPI_Request_free(&r));
}

static int64_t read_slot(int i)
{
    return slot[i];
}

/* A: notified and plain accumulates and fetch-and-ops on one location */
static void phase_sum(int k)
{
    int64_t one = 1, *fetched = calloc(k, sizeof(int64_t)), *all = NULL;
    int nfetched = 0;

    for (int i = 0; i < k; i++)
        fetched[i] = -1;        /* not fetched */

    if (rank > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < k; i++) {
            switch (i % 4) {
                case 0:
                    MPI_OK(MPI_Accumulate_notify(&one, 1, MPI_INT64_T, 0, S_SUM, 1, MPI_INT64_T,
                                                 MPI_SUM, win, T_SUM));
                    break;
                case 1:
                    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, S_SUM, 1, MPI_INT64_T,
                                          MPI_SUM, win));
                    break;
                case 2:
                    MPI_OK(MPI_Fetch_and_op_notify(&one, &fetched[nfetched++], MPI_INT64_T, 0,
                                                   S_SUM, MPI_SUM, win, T_SUM));
                    break;
                case 3:
                    MPI_OK(MPI_Fetch_and_op(&one, &fetched[nfetched++], MPI_INT64_T, 0, S_SUM,
                                            MPI_SUM, win));
                    break;
            }
        }
        /* the last one: after it is applied, all of this origin's are */
        MPI_OK(MPI_Accumulate_notify(&one, 1, MPI_INT64_T, 0, S_SUM, 1, MPI_INT64_T, MPI_SUM,
                                     win, T_SUM_LAST));
        MPI_OK(MPI_Win_unlock_all(win));
    } else {
        MPI_Request last;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, T_SUM_LAST, norigins, &last));
        MPI_OK(MPI_Start(&last));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Wait(&last, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&last));
        int64_t want = (int64_t) norigins * (k + 1);
        CHECK(read_slot(S_SUM) == want, "A: sum %lld at the last notifications, expected %lld",
              (long long) read_slot(S_SUM), (long long) want);
        /* every notified one of them arrived too */
        int notified = (k + 3) / 4 + (k + 1) / 4;
        wait_notifications(MPI_ANY_SOURCE, T_SUM, norigins * notified, MPI_STATUS_IGNORE);
        all = malloc((size_t) size * k * sizeof(int64_t));
    }
    MPI_Gather(fetched, k, MPI_INT64_T, all, k, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        /* fetched values: distinct, each below the total */
        int64_t total = (int64_t) norigins * (k + 1);
        char *seen = calloc(total, 1);
        for (int i = 0; i < size * k; i++) {
            if (all[i] < 0)
                continue;
            CHECK(all[i] < total && !seen[all[i]], "A: fetched %lld twice or out of range",
                  (long long) all[i]);
            if (all[i] < total)
                seen[all[i]] = 1;
        }
        free(seen);
        free(all);
        slot[S_SUM] = 0;
    }
    free(fetched);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* B: replace, own slot (notified after applied) and a shared one */
static void phase_replace(int k)
{
    if (rank > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Win_lock_all(0, win));
        int64_t *v = malloc(k * sizeof(int64_t));
        for (int i = 0; i < k; i++) {
            v[i] = (int64_t) rank *1000000 + i + 1;
            MPI_OK(MPI_Accumulate_notify(&v[i], 1, MPI_INT64_T, 0, S_OWN + rank, 1, MPI_INT64_T,
                                         MPI_REPLACE, win, T_REPL));
            if (i % 2)
                MPI_OK(MPI_Accumulate_notify(&v[i], 1, MPI_INT64_T, 0, S_SHARED, 1, MPI_INT64_T,
                                             MPI_REPLACE, win, T_REPL + 1));
            else
                MPI_OK(MPI_Accumulate(&v[i], 1, MPI_INT64_T, 0, S_SHARED, 1, MPI_INT64_T,
                                      MPI_REPLACE, win));
        }
        MPI_OK(MPI_Win_unlock_all(win));
        free(v);
    } else {
        int *seen = calloc(size, sizeof(int));
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, T_REPL, 1, &r));
        MPI_Barrier(MPI_COMM_WORLD);
        for (int n = 0; n < norigins * k; n++) {
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            int s = st.MPI_SOURCE;
            int64_t at_least = (int64_t) s *1000000 + (++seen[s]);
            CHECK(read_slot(S_OWN + s) >= at_least && read_slot(S_OWN + s) < (s + 1) * 1000000,
                  "B: origin %d's slot holds %lld at its notification %d", s,
                  (long long) read_slot(S_OWN + s), seen[s]);
        }
        MPI_OK(MPI_Request_free(&r));
        wait_notifications(MPI_ANY_SOURCE, T_REPL + 1, norigins * (k / 2), MPI_STATUS_IGNORE);
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int64_t x = read_slot(S_SHARED), who = x / 1000000, i = x % 1000000;
        CHECK(who >= 1 && who < size && i >= 1 && i <= k,
              "B: shared slot holds %lld, written by nobody", (long long) x);
    }
}

/* C: compare-and-swap increments */
static void phase_cas(int k)
{
    long attempts = 0, total = 0;
    if (rank > 0) {
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int done = 0; done < k;) {
            int64_t v, nv, old;
            MPI_OK(MPI_Fetch_and_op(NULL, &v, MPI_INT64_T, 0, S_CAS, MPI_NO_OP, win));
            MPI_OK(MPI_Win_flush(0, win));
            nv = v + 1;
            MPI_OK(MPI_Compare_and_swap_notify(&nv, &v, &old, MPI_INT64_T, 0, S_CAS, win, T_CAS));
            MPI_OK(MPI_Win_flush(0, win));
            attempts++;
            done += old == v;
        }
        MPI_OK(MPI_Win_unlock_all(win));
    }
    MPI_Reduce(&attempts, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        wait_notifications(MPI_ANY_SOURCE, T_CAS, (int) total, MPI_STATUS_IGNORE);
        CHECK(read_slot(S_CAS) == (int64_t) norigins * k, "C: %lld after %d x %d increments",
              (long long) read_slot(S_CAS), norigins, k);
        int flag = 1;
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, T_CAS, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "C: more compare-and-swap notifications than attempts (%ld)", total);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* D: every kind from one origin, in issue order, with its byte count */
enum { NKINDS = 7 };
static const int kind_bytes[NKINDS] = { 16, 24, 8, 4, 8, 40, 0 };

static void phase_mix(int rounds)
{
    if (rank == 1) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int r = 0; r < rounds; r++) {
            int64_t pv[2] = { r, r }, g[5], fetched = -1, old = -1, cmp = 1000 + r, swp = r;
            double d[3] = { 1, 1, 1 };
            int32_t one32 = 1, f32 = -1;
            int64_t two = 2;
            MPI_OK(MPI_Put_notify(pv, 2, MPI_INT64_T, 0, S_MIX, 2, MPI_INT64_T, win, T_MIX));
            MPI_OK(MPI_Accumulate_notify(d, 3, MPI_DOUBLE, 0, S_MIX + 2, 3, MPI_DOUBLE, MPI_SUM,
                                         win, T_MIX + 1));
            MPI_OK(MPI_Get_accumulate_notify(&two, 1, MPI_INT64_T, &fetched, 1, MPI_INT64_T, 0,
                                             S_MIX + 5, 1, MPI_INT64_T, MPI_SUM, win,
                                             T_MIX + 2));
            MPI_OK(MPI_Fetch_and_op_notify(&one32, &f32, MPI_INT32_T, 0, S_MIX + 6, MPI_SUM, win,
                                           T_MIX + 3));
            MPI_OK(MPI_Compare_and_swap_notify(&swp, &cmp, &old, MPI_INT64_T, 0, S_MIX + 7, win,
                                               T_MIX + 4));
            MPI_OK(MPI_Get_notify(g, 5, MPI_INT64_T, 0, S_MIX, 5, MPI_INT64_T, win, T_MIX + 5));
            MPI_OK(MPI_Accumulate_notify(d, 0, MPI_DOUBLE, 0, S_MIX + 2, 0, MPI_DOUBLE, MPI_SUM,
                                         win, T_MIX + 6));
            MPI_OK(MPI_Win_flush(0, win));
            CHECK(fetched == 2 * r, "D: get-accumulate fetched %lld in round %d",
                  (long long) fetched, r);
            CHECK(f32 == r, "D: fetch-and-op fetched %d in round %d", (int) f32, r);
            CHECK(old == (r ? 1000 + r : 0), "D: compare-and-swap found %lld in round %d",
                  (long long) old, r);
            CHECK(g[0] == r && g[1] == r, "D: get read %lld %lld after the put of %d",
                  (long long) g[0], (long long) g[1], r);
            /* the next round's compare value is there: swap in 1001 + r */
            int64_t next = 1000 + r + 1;
            MPI_OK(MPI_Put(&next, 1, MPI_INT64_T, 0, S_MIX + 7, 1, MPI_INT64_T, win));
            MPI_OK(MPI_Win_flush(0, win));
        }
        MPI_OK(MPI_Win_unlock(0, win));
    } else if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 1, MPI_ANY_TAG, 1, &r));
        for (int n = 0; n < rounds * NKINDS; n++) {
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            int bytes = -1;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            CHECK(st.MPI_TAG == T_MIX + n % NKINDS && bytes == kind_bytes[n % NKINDS],
                  "D: notification %d: tag %d, %d bytes; expected tag %d, %d bytes", n,
                  st.MPI_TAG, bytes, T_MIX + n % NKINDS, kind_bytes[n % NKINDS]);
        }
        MPI_OK(MPI_Request_free(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double *d = (double *) &slot[S_MIX + 2];
        CHECK(d[0] == rounds && d[2] == rounds, "D: accumulated doubles %g %g, expected %d", d[0],
              d[2], rounds);
        CHECK(read_slot(S_MIX + 5) == 2 * rounds, "D: get-accumulate target %lld",
              (long long) read_slot(S_MIX + 5));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* E: the counter dialect */
static void phase_counters(int k)
{
    MPI_OK(MPIX_Win_create_notify(win, 2));
    if (rank > 0) {
        int64_t one = 1, f;
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < k; i++) {
            MPI_OK(MPIX_Accumulate_notify(&one, 1, MPI_INT64_T, 0, S_CNT0, 1, MPI_INT64_T,
                                          MPI_SUM, 0, win));
            MPI_OK(MPIX_Get_accumulate_notify(&one, 1, MPI_INT64_T, &f, 1, MPI_INT64_T, 0, S_CNT1,
                                              1, MPI_INT64_T, MPI_SUM, 1, win));
            MPI_OK(MPI_Win_flush(0, win));
        }
        MPI_OK(MPI_Win_unlock_all(win));
    } else {
        MPI_Count c = 0, want = (MPI_Count) norigins * k;
        for (int idx = 0; idx < 2; idx++) {
            while (c < want)
                MPI_OK(MPIX_Win_get_notify(win, idx, &c));
            CHECK(c == want && read_slot(S_CNT0 + idx) == want,
                  "E: counter %d is %lld, its location %lld, expected %lld", idx, (long long) c,
                  (long long) read_slot(S_CNT0 + idx), (long long) want);
            c = 0;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    for (int i = 0; i < *len; i++)
        ((int64_t *) inout)[i] += ((int64_t *) in)[i];
}

/* G: a large strided accumulate: all of it applied at its notification */
static void phase_big(int rounds)
{
    MPI_Datatype every_other;
    MPI_Type_vector(BIG, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    if (rank == 1) {
        double *ones = malloc(BIG * sizeof(double));
        for (int i = 0; i < BIG; i++)
            ones[i] = 1.0;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int r = 0; r < rounds; r++) {
            MPI_OK(MPI_Accumulate_notify(ones, BIG, MPI_DOUBLE, 0, S_BIG, 1, every_other, MPI_SUM,
                                         win, T_BIG));
            MPI_OK(MPI_Win_flush_local(0, win));
        }
        MPI_OK(MPI_Win_unlock(0, win));
        free(ones);
    } else if (rank == 0) {
        volatile double *d = (volatile double *) &slot[S_BIG];
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 1, T_BIG, 1, &req));
        for (int r = 0; r < rounds; r++) {
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st));
            int bytes, bad = 0;
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            /* this round is applied (later ones may be too) */
            for (int i = 0; i < 2 * BIG; i++)
                bad += i % 2 ? d[i] != 0.0 : d[i] < r + 1.0;
            CHECK(!bad && bytes == BIG * (int) sizeof(double),
                  "G: round %d: %d of %d elements not updated at its notification, %d bytes",
                  r, bad, 2 * BIG, bytes);
        }
        MPI_OK(MPI_Request_free(&req));
        CHECK(d[0] == rounds && d[2 * BIG - 2] == rounds && d[2 * BIG - 1] == 0.0,
              "G: after %d rounds: %g %g %g", rounds, d[0], d[2 * BIG - 2], d[2 * BIG - 1]);
    }
    MPI_Type_free(&every_other);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* H: notified and plain accumulates of one origin and location, no flush
 * between them, are applied in issue order */
static void phase_order(int iters)
{
    int targets[2] = { rank, (rank + 1) % size };
    MPI_Request req;
    /* two per iteration from myself and two from the previous rank */
    MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, T_ORD, 4 * iters, &req));
    MPI_OK(MPI_Start(&req));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < 2; k++) {
            int t = targets[k];
            int64_t one = 1, hundred = 100, a = -1, b = -1, want = 101 * (int64_t) i;
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
            MPI_OK(MPI_Fetch_and_op_notify(&one, &a, MPI_INT64_T, t, S_ORD + rank, MPI_NO_OP, win,
                                           T_ORD));
            MPI_OK(MPI_Accumulate(&hundred, 1, MPI_INT64_T, t, S_ORD + rank, 1, MPI_INT64_T,
                                  MPI_SUM, win));
            MPI_OK(MPI_Accumulate_notify(&one, 1, MPI_INT64_T, t, S_ORD + rank, 1, MPI_INT64_T,
                                         MPI_SUM, win, T_ORD));
            MPI_OK(MPI_Fetch_and_op(&one, &b, MPI_INT64_T, t, S_ORD + rank, MPI_NO_OP, win));
            MPI_OK(MPI_Win_unlock(t, win));
            CHECK(a == want && b == want + 101,
                  "H: to %s, iteration %d: fetched %lld before and %lld after, expected %lld "
                  "and %lld", t == rank ? "itself" : "the next rank", i, (long long) a,
                  (long long) b, (long long) want, (long long) want + 101);
        }
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&req));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* F: refusals leave nothing behind; ordinary RMA after notified accumulates */
static void phase_errors(void)
{
    if (rank == 1) {
        int64_t one = 1, res[2];
        MPI_Op myop;
        MPI_OK(MPI_Op_create(user_sum, 1, &myop));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        int rc, cls;
        rc = MPI_Accumulate_notify(&one, 1, MPI_INT64_T, 0, S_LAST, 1, MPI_INT64_T, MPI_SUM, win,
                                   -1);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TAG, "F: bad tag gave class %d", cls);
        rc = MPI_Get_accumulate_notify(&one, 1, MPI_INT64_T, res, 1, MPI_INT32_T, 0, S_LAST, 1,
                                       MPI_INT64_T, MPI_SUM, win, T_LAST);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "F: small result buffer gave class %d", cls);
        rc = MPI_Get_accumulate_notify(&one, 1, MPI_INT64_T, res, 2, MPI_INT64_T, 0, S_LAST, 1,
                                       MPI_INT64_T, MPI_SUM, win, T_LAST);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_COUNT, "F: large result buffer gave class %d", cls);
        rc = MPIX_Accumulate_notify(&one, 1, MPI_INT64_T, 0, S_LAST, 1, MPI_INT64_T, MPI_SUM, 5,
                                    win);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "F: counter index 5 gave class %d", cls);
        rc = MPI_Accumulate_notify(&one, 1, MPI_INT64_T, 0, S_LAST, 1, MPI_INT64_T, myop, win,
                                   T_LAST);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "F: a user-defined op gave class %d", cls);
        MPI_OK(MPI_Op_free(&myop));
        rc = MPI_Accumulate_notify(&one, 1, MPI_INT64_T, MPI_PROC_NULL, S_LAST, 1, MPI_INT64_T,
                                   MPI_SUM, win, T_LAST);
        CHECK(rc == MPI_SUCCESS, "F: MPI_PROC_NULL target gave %d", rc);
        MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
        /* ordinary put, then a notified accumulate, then an ordinary get */
        int64_t five = 5, three = 3, got = -1;
        MPI_OK(MPI_Put(&five, 1, MPI_INT64_T, 0, S_LAST, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Accumulate_notify(&three, 1, MPI_INT64_T, 0, S_LAST, 1, MPI_INT64_T, MPI_SUM,
                                     win, T_LAST));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(&got, 1, MPI_INT64_T, 0, S_LAST, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_unlock(0, win));
        CHECK(got == 8, "F: get after put 5 and notified +3 read %lld", (long long) got);
    } else if (rank == 0) {
        MPI_Status st;
        wait_notifications(1, MPI_ANY_TAG, 1, &st);
        CHECK(st.MPI_TAG == T_LAST && read_slot(S_LAST) == 8,
              "F: first notification after the refusals: tag %d, slot %lld", st.MPI_TAG,
              (long long) read_slot(S_LAST));
        int flag = 1;
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, MPI_ANY_TAG, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "F: a refused or PROC_NULL access notified");
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    norigins = size - 1;
    int k = argc > 1 ? atoi(argv[1]) : 400;
    int64_t *base;
    MPI_OK(MPI_Win_allocate(NSLOTS * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    slot = base;
    for (int i = 0; i < NSLOTS; i++)
        base[i] = 0;
    na_expect_path(win);
    MPI_Barrier(MPI_COMM_WORLD);

    phase_sum(k);
    phase_replace(k);
    phase_cas(k / 10 + 1);
    phase_mix(k / 10 + 2);
    phase_counters(k / 4 + 1);
    phase_big(k / 40 + 2);
    phase_order(k / 8 + 2);
    phase_errors();

    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

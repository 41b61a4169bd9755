/*
 * Request-based notified accesses (MPI_Rput_notify, MPI_Rget_notify,
 * MPI_Raccumulate_notify, MPI_Rget_accumulate_notify and their MPIX_
 * counter twins), rank 1 the origin, rank 0 the target:
 *
 *   1. the origin's request completes as MPI_Rput's / MPI_Rget's does: after
 *      MPI_Wait the origin buffer is overwritten at once (put, accumulate)
 *      or read (get, get-accumulate), with no flush; the target still sees
 *      the data of each access at its notification (every size from 8 B to
 *      1 MiB, contiguous and strided);
 *   2. the notification does not wait for the origin's request: the target
 *      gets it while the origin, not having waited yet, blocks in MPI_Recv
 *      for the target's answer;
 *   3. request and plain notified calls from one origin keep issue order;
 *      the requests complete in MPI_Waitall / MPI_Testall beside others;
 *   4. the counter twins count, MPI_PROC_NULL gives a completed request;
 *   5. a notified get with a dense non-contiguous origin (two 32 KiB
 *      blocks) completes and reads the right data.
 */
#include "na_test.h"
#include <stdint.h>

enum { MAXB = 1 << 20, SUMSLOT = MAXB / 8, CNTSLOT = SUMSLOT + 1, NSLOTS = SUMSLOT + 8 };
enum { T_DATA = 1, T_SEQ = 10 };

static int rank;
static MPI_Win win;
static int64_t *base;

static void fill(int64_t * b, int n, int64_t v)
{
    for (int i = 0; i < n; i++)
        b[i] = v + i;
}

static void wait_one(int tag, MPI_Status * st)
{
    MPI_Request r;
    MPI_OK(MPI_Notify_init(win, 1, tag, 1, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, st));
    MPI_OK(MPI_Request_free(&r));
}

/* 1: buffers reusable / filled at request completion; each size and shape */
static void reuse(void)
{
    MPI_Datatype strided;
    for (int n = 1, round = 0; n <= MAXB / 8; n *= 4, round++) {
        int str = n <= MAXB / 16;       /* strided target while it fits */
        MPI_Type_vector(n, 1, 2, MPI_INT64_T, &strided);
        MPI_Type_commit(&strided);
        MPI_Datatype tt = str ? strided : MPI_INT64_T;
        int tc = str ? 1 : n;
        int64_t v = (int64_t) round << 32;
        if (rank == 1) {
            int64_t *b = malloc(n * sizeof(int64_t)), *g = malloc(n * sizeof(int64_t)), res;
            MPI_Request r;
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            /* put: overwrite the buffer as soon as the request says so */
            fill(b, n, v);
            MPI_OK(MPI_Rput_notify(b, n, MPI_INT64_T, 0, 0, tc, tt, win, T_DATA, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            fill(b, n, -1);
            /* accumulate +1 from a buffer overwritten at completion */
            int64_t one = 1;
            MPI_OK(MPI_Raccumulate_notify(&one, 1, MPI_INT64_T, 0, SUMSLOT, 1, MPI_INT64_T,
                                          MPI_SUM, win, T_DATA, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            one = 1000;
            MPI_Barrier(MPI_COMM_WORLD);        /* target checked, then changed its data */
            /* get: the buffer holds the target's data at completion */
            fill(g, n, -7);
            MPI_OK(MPI_Rget_notify(g, n, MPI_INT64_T, 0, 0, tc, tt, win, T_DATA, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            int bad = 0;
            for (int i = 0; i < n; i++)
                bad += g[i] != v + 100 + i;
            CHECK(!bad, "1: %d B: %d of %d got elements wrong at request completion", n * 8, bad,
                  n);
            /* get-accumulate: the result is there at completion */
            res = -1;
            MPI_OK(MPI_Rget_accumulate_notify(&one, 1, MPI_INT64_T, &res, 1, MPI_INT64_T, 0,
                                              SUMSLOT, 1, MPI_INT64_T, MPI_SUM, win, T_DATA, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK(res == round + 1, "1: round %d: fetched %lld at request completion", round,
                  (long long) res);
            MPI_OK(MPI_Win_unlock(0, win));
            free(b);
            free(g);
        } else if (rank == 0) {
            MPI_Status st;
            int bytes, bad = 0;
            wait_one(T_DATA, &st);
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            for (int i = 0; i < n; i++)
                bad += base[str ? 2 * i : i] != v + i;
            CHECK(!bad && bytes == n * 8, "1: %d B put: %d elements wrong at its notification, "
                  "%d bytes", n * 8, bad, bytes);
            wait_one(T_DATA, &st);
            CHECK(base[SUMSLOT] == round + 1, "1: accumulate gave %lld, expected %d",
                  (long long) base[SUMSLOT], round + 1);
            /* the data the get must see */
            for (int i = 0; i < n; i++)
                base[str ? 2 * i : i] = v + 100 + i;
            MPI_Barrier(MPI_COMM_WORLD);
            wait_one(T_DATA, &st);      /* the get has read it */
            for (int i = 0; i < n; i++)
                base[str ? 2 * i : i] = -3;     /* free to reuse */
            wait_one(T_DATA, &st);
            CHECK(base[SUMSLOT] == round + 1001, "1: get-accumulate left %lld",
                  (long long) base[SUMSLOT]);
            base[SUMSLOT] = round + 1;
        }
        if (rank > 1)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Type_free(&strided);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* 5: a dense non-contiguous origin (two 32 KiB blocks: MPICH's iovec
 * path on libfabric, whose request never completed in 4.0.2 and hung the
 * flush of a notified get) */
static void dense(void)
{
    enum { NB = 4096, ST = 5000 };
    MPI_Datatype two;
    MPI_Type_vector(2, NB, ST, MPI_INT64_T, &two);
    MPI_Type_commit(&two);
    if (rank == 0)
        for (int i = 0; i < 2 * NB; i++)
            base[i] = 1000000 + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int64_t *b = malloc((ST + NB) * sizeof(int64_t));
        for (int k = 0; k < 2; k++) {
            MPI_Request r = MPI_REQUEST_NULL;
            memset(b, 0, (ST + NB) * sizeof(int64_t));
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            if (k == 0)
                MPI_OK(MPI_Get_notify(b, 1, two, 0, 0, 2 * NB, MPI_INT64_T, win, T_DATA));
            else
                MPI_OK(MPI_Rget_notify(b, 1, two, 0, 0, 2 * NB, MPI_INT64_T, win, T_DATA, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Win_unlock(0, win));
            int bad = 0;
            for (int i = 0; i < 2 * NB; i++)
                bad += b[(i / NB) * ST + i % NB] != 1000000 + i;
            CHECK(!bad, "5: %s: %d of %d elements wrong", k ? "rget_notify" : "get_notify", bad,
                  2 * NB);
        }
        free(b);
    } else if (rank == 0) {
        wait_one(T_DATA, MPI_STATUS_IGNORE);
        wait_one(T_DATA, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&two);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* 2: the notification reaches the target before the origin waits */
static void independent(void)
{
    if (rank == 1) {
        int64_t v[4] = { 5, 6, 7, 8 };
        MPI_Request r;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Rput_notify(v, 4, MPI_INT64_T, 0, 0, 4, MPI_INT64_T, win, T_DATA, &r));
        int ack;
        MPI_OK(MPI_Recv(&ack, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Win_unlock(0, win));
    } else if (rank == 0) {
        wait_one(T_DATA, MPI_STATUS_IGNORE);
        CHECK(base[0] == 5 && base[3] == 8, "2: data %lld..%lld", (long long) base[0],
              (long long) base[3]);
        int ack = 1;
        MPI_OK(MPI_Send(&ack, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* 3: issue order across request and plain calls; Waitall / Testall */
static void order(int rounds)
{
    if (rank == 0)
        base[SUMSLOT] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int64_t v = 1, g[2], res, one = 1;
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < rounds; i++) {
            MPI_Request r[5];
            MPI_Status sts[5];  /* not MPI_STATUSES_IGNORE: gcc 12 warns on it */
            int sbuf = i, rbuf;
            MPI_OK(MPI_Rput_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win, T_SEQ, &r[0]));
            MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win, T_SEQ + 1));
            MPI_OK(MPI_Raccumulate_notify(&one, 1, MPI_INT64_T, 0, SUMSLOT, 1, MPI_INT64_T,
                                          MPI_SUM, win, T_SEQ + 2, &r[1]));
            MPI_OK(MPI_Rget_notify(g, 2, MPI_INT64_T, 0, 0, 2, MPI_INT64_T, win, T_SEQ + 3,
                                   &r[2]));
            MPI_OK(MPI_Rget_accumulate_notify(NULL, 0, MPI_INT64_T, &res, 1, MPI_INT64_T, 0,
                                              SUMSLOT, 1, MPI_INT64_T, MPI_NO_OP, win, T_SEQ + 4,
                                              &r[3]));
            MPI_OK(MPI_Irecv(&rbuf, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &r[4]));
            MPI_OK(MPI_Send(&sbuf, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
            if (i % 2) {
                MPI_OK(MPI_Waitall(5, r, sts));
            } else {
                int done = 0;
                while (!done)
                    MPI_OK(MPI_Testall(5, r, &done, sts));
            }
            CHECK(rbuf == i && res == i + 1, "3: round %d: received %d, fetched %lld", i, rbuf,
                  (long long) res);
        }
        MPI_OK(MPI_Win_unlock_all(win));
    } else if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 1, MPI_ANY_TAG, 1, &r));
        for (int i = 0; i < rounds; i++) {
            int x;
            MPI_OK(MPI_Recv(&x, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
            for (int k = 0; k < 5; k++) {
                MPI_OK(MPI_Start(&r));
                MPI_OK(MPI_Wait(&r, &st));
                CHECK(st.MPI_TAG == T_SEQ + k, "3: round %d: notification %d has tag %d", i, k,
                      st.MPI_TAG);
            }
        }
        MPI_OK(MPI_Request_free(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* 4: the counter twins; MPI_PROC_NULL */
static void counters(int n)
{
    MPI_OK(MPIX_Win_create_notify(win, 1));
    if (rank == 1) {
        int64_t v = 3, g, res, one = 1;
        MPI_Request r[4];
        MPI_Status sts[4];
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int i = 0; i < n; i++) {
            MPI_OK(MPIX_Rput_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, 0, win, &r[0]));
            MPI_OK(MPIX_Rget_notify(&g, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, 0, win, &r[1]));
            MPI_OK(MPIX_Raccumulate_notify(&one, 1, MPI_INT64_T, 0, CNTSLOT, 1, MPI_INT64_T,
                                           MPI_SUM, 0, win, &r[2]));
            MPI_OK(MPIX_Rget_accumulate_notify(&one, 1, MPI_INT64_T, &res, 1, MPI_INT64_T, 0,
                                               CNTSLOT, 1, MPI_INT64_T, MPI_SUM, 0, win, &r[3]));
            MPI_OK(MPI_Waitall(4, r, sts));
            CHECK(g == 3 && res == 2 * i + 1, "4: got %lld, fetched %lld in round %d",
                  (long long) g, (long long) res, i);
        }
        MPI_OK(MPI_Rput_notify(&v, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, win, 1,
                               &r[0]));
        int done = 0;
        MPI_OK(MPI_Test(&r[0], &done, MPI_STATUS_IGNORE));
        CHECK(done && r[0] == MPI_REQUEST_NULL, "4: MPI_PROC_NULL request not complete");
        MPI_OK(MPI_Win_unlock(0, win));
    } else if (rank == 0) {
        MPI_Count c = 0;
        while (c < 4 * n)
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        CHECK(c == 4 * n && base[CNTSLOT] == 2 * n, "4: counter %lld, slot %lld",
              (long long) c, (long long) base[CNTSLOT]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPIX_Win_free_notify(win));
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(NSLOTS * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    memset(base, 0, NSLOTS * sizeof(int64_t));
    na_expect_path(win);
    MPI_Barrier(MPI_COMM_WORLD);
    reuse();
    independent();
    order(20);
    counters(20);
    dense();
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

/*
 * The MPI_T statistics of a window (src/mpi/notify/notify_stats.c) change by
 * exactly what happens, read through MPI_T at rank 0 (the target; rank 1
 * is the origin, other ranks only take part in the collectives):
 *
 *   1. N notified puts nobody waits for, among an ordinary put and an
 *      accumulate to the same places: notify_arrived_<path> += N on the
 *      path test/harness/transports names for the configuration (the others stay;
 *      the libfabric path's own counters are cq_data and its eager ones),
 *      notify_queued = N, notify_queued_max = N;
 *   2. a request started for them: notify_from_queue = N, queued 0, max N;
 *   3. M notified puts to a started request and K counted puts:
 *      arrived += M + K, notify_counted = K, queue untouched.
 *
 * With MPIR_CVAR_NOTIFY_STATS=1 the testlist also checks the line each
 * process prints when the window is freed.
 */
#include "na_test.h"

enum { N = 5, M = 4, K = 3 };

static const char *names[] = {
    "notify_arrived_generic", "notify_arrived_ring", "notify_arrived_cq_data",
    "notify_arrived_eager_am", "notify_arrived_eager_tagged", "notify_arrived_eager_write",
    "notify_arrived_ucx_am",
    "notify_counted", "notify_from_queue", "notify_queued", "notify_queued_max"
};
enum { GENERIC, RING, CQ_DATA, EAGER_AM, EAGER_TAGGED, EAGER_WRITE, UCX_AM, COUNTED, FROM_QUEUE,
    QUEUED, QUEUED_MAX, NVARS
};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle[NVARS];

static unsigned long long get(int v)
{
    unsigned long long x = ~0ull;
    MPI_T_pvar_read(session, handle[v], &x);
    return x;
}

/* v counts arrivals of the window's path to rank 1: the libfabric path's
 * 8-byte puts come as remote CQ data or, where its eager messages lead at
 * every size (sockets), as eager messages (active, then tagged), or as eager
 * writes where those are forced at every size */
static int on_path(int v, int path_var)
{
    return v == path_var || (path_var == CQ_DATA &&
                             (v == EAGER_AM || v == EAGER_TAGGED || v == EAGER_WRITE));
}

/* arrived: want on the window's path to rank 1, 0 on the others */
static void expect_arrived(int path_var, unsigned long long want, const char *when)
{
    unsigned long long on = 0;
    for (int v = GENERIC; v <= UCX_AM; v++) {
        if (on_path(v, path_var))
            on += get(v);
        else
            CHECK(get(v) == 0, "%s: %s = %llu, expected 0", when, names[v], get(v));
    }
    CHECK(on == want, "%s: %llu arrived on the path to rank 1 (%s), expected %llu", when, on,
          names[path_var], want);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(64 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    MPI_OK(MPIX_Win_create_notify(win, 1));
    for (int i = 0; i < 64; i++)
        base[i] = 0;

    int path_var = GENERIC;
    if (rank == 0) {
        char path[64], why[64];
        na_path(win, 1, path, why, sizeof(path));
        path_var = !strcmp(path, "ring") ? RING : !strcmp(path, "cq-data") ? CQ_DATA :
            !strcmp(path, "ucx-am") ? UCX_AM : GENERIC;
        MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
        MPI_OK(MPI_T_pvar_session_create(&session));
        for (int v = 0; v < NVARS; v++) {
            int idx, count = -1;
            MPI_OK(MPI_T_pvar_get_index(names[v], v >= QUEUED ? MPI_T_PVAR_CLASS_LEVEL :
                                        MPI_T_PVAR_CLASS_COUNTER, &idx));
            MPI_OK(MPI_T_pvar_handle_alloc(session, idx, &win, &handle[v], &count));
            CHECK(count == 1, "%s: count %d", names[v], count);
        }
        for (int v = 0; v < NVARS; v++)
            CHECK(get(v) == 0, "%s before anything: %llu", names[v], get(v));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. N notified puts nobody waits for, mixed with ordinary RMA */
    if (rank == 1) {
        int64_t v[N], one = 1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int i = 0; i < N; i++) {
            v[i] = 100 + i;
            MPI_OK(MPI_Put_notify(&v[i], 1, MPI_INT64_T, 0, i, 1, MPI_INT64_T, win, 3));
        }
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, win));
        MPI_OK(MPI_Put(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        /* the unlock completed them at the target; the probe makes the
         * progress that takes in a completion-queue entry still unread */
        for (long spin = 0; get(QUEUED) < N && spin < 10000000; spin++) {
            int flag;
            MPI_OK(MPIX_Notify_iprobe(win, 1, 99, &flag, MPI_STATUS_IGNORE));
        }
        expect_arrived(path_var, N, "N unexpected");
        CHECK(get(QUEUED) == N && get(QUEUED_MAX) == N && get(FROM_QUEUE) == 0 &&
              get(COUNTED) == 0, "N unexpected: queued %llu max %llu from_queue %llu counted "
              "%llu", get(QUEUED), get(QUEUED_MAX), get(FROM_QUEUE), get(COUNTED));
        CHECK(base[0] == 101 && base[1] == 1, "data: %lld %lld", (long long) base[0],
              (long long) base[1]);

        /* 2. a request takes them from the queue */
        MPI_Request req;
        MPI_OK(MPI_Notify_init(win, 1, 3, N, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
        CHECK(get(FROM_QUEUE) == N && get(QUEUED) == 0 && get(QUEUED_MAX) == N,
              "taken: from_queue %llu queued %llu max %llu", get(FROM_QUEUE), get(QUEUED),
              get(QUEUED_MAX));
        expect_arrived(path_var, N, "taken");

        /* 3. M to a started request, K counted */
        MPI_OK(MPI_Notify_init(win, 1, 4, M, &req));
        MPI_OK(MPI_Start(&req));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
        MPI_Count c = 0;
        while (c < K)
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        expect_arrived(path_var, N + M + K, "posted and counted");
        CHECK(get(COUNTED) == K && get(FROM_QUEUE) == N && get(QUEUED) == 0 &&
              get(QUEUED_MAX) == N, "posted and counted: counted %llu from_queue %llu queued "
              "%llu max %llu", get(COUNTED), get(FROM_QUEUE), get(QUEUED), get(QUEUED_MAX));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int64_t v = 7;
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            for (int i = 0; i < M; i++)
                MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, 0, 10 + i, 1, MPI_INT64_T, win, 4));
            for (int i = 0; i < K; i++)
                MPI_OK(MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, 20 + i, 1, MPI_INT64_T, 0, win));
            MPI_OK(MPI_Win_unlock(0, win));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int v = 0; v < NVARS; v++)
            MPI_OK(MPI_T_pvar_handle_free(session, &handle[v]));
        MPI_OK(MPI_T_pvar_session_free(&session));
        MPI_OK(MPI_T_finalize());
    }
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

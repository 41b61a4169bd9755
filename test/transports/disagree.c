/* Window creation when members see the fast path differently (2 ranks).
 * Rank 1 alone forces the generic path through MPI_T
 * (MPIR_CVAR_NOTIFY_FORCE_GENERIC), so at window creation it has a reason
 * not to use the libfabric path that rank 0 does not have.  Every member
 * must still join the window's agreement (one that skipped it would leave
 * the others waiting) and all must choose the same path.  Both ranks then
 * notify each other, mixed with ordinary puts and gets on the same bytes
 * (on the node and over UCX, where an origin's path needs nothing from its
 * target, rank 0 keeps its own path);
 * then rank 1 switches back and a second window must work as well. */
#include "na_test.h"

static void set_force_generic(int on)
{
    int idx, count;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index("MPIR_CVAR_NOTIFY_FORCE_GENERIC", &idx) != MPI_SUCCESS) {
        fprintf(stderr, "no MPIR_CVAR_NOTIFY_FORCE_GENERIC\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    MPI_OK(MPI_T_cvar_write(h, &on));
    MPI_OK(MPI_T_cvar_handle_free(&h));
}

static void round_trip(int rank, int round)
{
    int peer = 1 - rank, *buf, v = 100 * round + rank, got = -1;
    MPI_Win win;
    MPI_Request req;
    MPI_Status st;

    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    if (round == 2) {
        na_expect_path(win);
    } else {
        /* what each member sees through MPI_T: across the netmod all agreed
         * on the generic path; on the node rank 1's own choice stands */
        char path[64], why[64];
        const char *want = getenv("NA_EXPECT_PATH");
        na_path(win, peer, path, why, sizeof(path));
        if (want && strncmp(want, "ring", 4) == 0 && rank == 0)
            CHECK(!strcmp(path, "ring"), "rank 0's own path to rank 1: %s/%s", path, why);
        else if (want && strncmp(want, "ucx-am", 6) == 0 && rank == 0)
            /* UCX: each origin picks its own path, nothing to agree on */
            CHECK(!strcmp(path, "ucx-am"), "rank 0's own path to rank 1: %s/%s", path, why);
        else if (want && strncmp(want, "generic", 7) == 0)     /* no fast path to force off */
            CHECK(!strcmp(path, "generic"), "rank %d: %s/%s", rank, path, why);
        else
            CHECK(!strcmp(path, "generic") && !strcmp(why, "forced"),
                  "rank %d forced or outvoted: %s/%s", rank, path, why);
    }
    buf[0] = buf[1] = -1;
    MPI_OK(MPI_Notify_init(win, peer, round, 1, &req));
    MPI_OK(MPI_Start(&req));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, round));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Wait(&req, &st));
    CHECK(buf[0] == 100 * round + peer && st.MPI_SOURCE == peer && st.MPI_TAG == round,
          "round %d: value %d source %d tag %d", round, buf[0], st.MPI_SOURCE, st.MPI_TAG);
    MPI_Barrier(MPI_COMM_WORLD);
    /* ordinary RMA on the notified bytes after the flush */
    int w = -v;
    MPI_OK(MPI_Put(&w, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(peer, win));
    CHECK(got == w, "round %d: get after put read %d, expected %d", round, got, w);
    /* a notified get of the same bytes */
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Get_notify(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win, round));
    MPI_OK(MPI_Win_flush(peer, win));
    CHECK(got == w, "round %d: notified get read %d, expected %d", round, got, w);
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 1)
        set_force_generic(1);
    round_trip(rank, 1);
    if (rank == 1)
        set_force_generic(0);
    round_trip(rank, 2);
    MPI_T_finalize();
    return na_finish();
}

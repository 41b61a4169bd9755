/*
 * MPI_T opened and closed while MPI is initialized (a tool or library that
 * uses MPI_T around its own work), twice: MPI goes on working, its control
 * variables intact (patches/fixes/0030; before it MPI_Comm_dup crashed on
 * ch4:ofi).  Then communicators, a window and a notified access, which
 * read control variables of their own.
 */
#include "na_test.h"

static int cvars(void)
{
    int provided, n = -1;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_cvar_get_num(&n));
    MPI_OK(MPI_T_finalize());
    return n;
}

int main(int argc, char **argv)
{
    int rank, size, n1, n2;
    MPI_Comm dup;
    MPI_Win win;
    int *base, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n1 = cvars();
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Barrier(dup));
    n2 = cvars();
    CHECK(n1 > 0 && n1 == n2, "control variables: %d, then %d", n1, n2);

    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &base, &win));
    *base = 0;
    MPI_OK(MPI_Barrier(dup));
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request req;
    MPI_OK(MPI_Notify_init(win, from, 1, 1, &req));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Win_lock_all(0, win));
    v = rank + 1;
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, 1));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_sync(win));
    CHECK(*base == from + 1, "notified put: %d, want %d", *base, from + 1);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&dup));
    return na_finish();
}

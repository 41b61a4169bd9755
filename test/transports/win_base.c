/*
 * Plain RMA, no notified call: MPI_Put and MPI_Get between two ranks land at
 * the window's base, on a window of MPI_Win_allocate and one of
 * MPI_Win_create (8 bytes each).  On ch4:ucx with UCX 1.13 and MPICH 4.0.2
 * unpatched, the window's base was replaced by the start of UCX's
 * registration-cache region: every put between local ranks was lost
 * (fix 0003).  ROUNDS rounds, each checked by the target after a flush
 * and a message, and read back by the origin with MPI_Get.
 */
#include "na_test.h"

#define ROUNDS 50

static void rounds(MPI_Win win, int *base, int rank, const char *kind)
{
    int lost = 0, stale = 0;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int r = 1; r <= ROUNDS; r++) {
        if (rank == 0) {
            int back = -1;
            MPI_OK(MPI_Put(&r, 1, MPI_INT, 1, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Get(&back, 1, MPI_INT, 1, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
            if (back != r)
                stale++;
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (rank == 1) {
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Win_sync(win));
            if (base[1] != r)
                lost++;
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD));
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    CHECK(lost == 0 && stale == 0, "%s: %d of %d puts not at the target's base, %d gets stale",
          kind, lost, ROUNDS, stale);
}

int main(int argc, char **argv)
{
    int rank, *base, mem[2] = { 0, 0 };
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    base[0] = base[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    rounds(win, base, rank, "MPI_Win_allocate");
    MPI_OK(MPI_Win_free(&win));

    MPI_OK(MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Barrier(MPI_COMM_WORLD);
    rounds(win, mem, rank, "MPI_Win_create");
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

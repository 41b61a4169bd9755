/* Notified gets under contention (3-4 ranks): every rank but 0 reads rank 0's
 * buffer with MPI_Get_notify, several rounds.  Rank 0 counts one notification
 * per reader, then overwrites the buffer for the next round; every reader
 * must always see the value of its own round, never the next one. */
#include "na_test.h"

#define N 4096
#define ROUNDS 50

int main(int argc, char **argv)
{
    int rank, size, *buf;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    for (int i = 0; i < N; i++)
        buf[i] = 0;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    int *mine = malloc(N * sizeof(int)), bad = 0;
    if (rank == 0) {
        MPI_Request req;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 3, size - 1, &req));
        for (int round = 0; round < ROUNDS; round++) {
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            /* every reader is done with round: the buffer is ours */
            for (int i = 0; i < N; i++)
                buf[i] = round + 1;
            MPI_OK(MPI_Win_sync(win));
            /* let the readers start the next round */
            for (int r = 1; r < size; r++)
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, r, 0, MPI_COMM_WORLD));
        }
        MPI_OK(MPI_Request_free(&req));
    } else {
        for (int round = 0; round < ROUNDS; round++) {
            MPI_OK(MPI_Get_notify(mine, N, MPI_INT, 0, 0, N, MPI_INT, win, 3));
            MPI_OK(MPI_Win_flush(0, win));
            for (int i = 0; i < N; i++)
                if (mine[i] != round)
                    bad++;
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        CHECK(bad == 0, "%d elements read after the target reused its buffer", bad);
    }
    free(mine);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

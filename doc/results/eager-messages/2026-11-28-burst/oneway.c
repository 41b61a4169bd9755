/* One direction: put_notify(S) + flush, N times; the target only waits. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, S = atoi(argv[1]), N = 5000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *wbuf, *lbuf = calloc(1, S);
    MPI_Win win;
    MPI_Win_allocate(S, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    MPI_Request nreq;
    MPI_Notify_init(win, 0, 1, 1, &nreq);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < N; i++) {
        if (rank == 0) {
            MPI_Put_notify(lbuf, S, MPI_BYTE, 1, 0, S, MPI_BYTE, win, 1);
            MPI_Win_flush(1, win);
        } else {
            MPI_Start(&nreq);
            MPI_Wait(&nreq, MPI_STATUS_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("oneway S=%d: %.3f us per put + flush\n", S, t / N * 1e6);
    MPI_Win_unlock_all(win);
    MPI_Request_free(&nreq);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}

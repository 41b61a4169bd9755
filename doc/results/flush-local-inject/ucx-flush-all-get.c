#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define BIG (1 << 20)
int main(int argc, char **argv)
{
    int rank, bad = 0;
    char *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_allocate(BIG + 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, BIG);
    memset(base + BIG, 99, 64);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char *big = calloc(1, BIG), got[64];
        for (int r = 0; r < 20; r++) {
            memset(got, 0, 64);
            MPI_Accumulate(big, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, MPI_REPLACE, win);
            MPI_Get(got, 64, MPI_BYTE, 1, BIG, 64, MPI_BYTE, win);
            MPI_Win_flush_all(win);
            for (int i = 0; i < 64; i++)
                if (got[i] != 99) { bad++; break; }
        }
        printf("%d of 20 rounds: get data missing after MPI_Win_flush_all\n", bad);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}

/* The counter dialect: every rank but 0 writes its block into rank 0's window
 * with one counted put (MPIX_Put_notify, counter 0) and adds 1 to a shared
 * word with an ordinary MPI_Accumulate.  Rank 0 only reads its counter: once it
 * reaches nranks - 1, every block is in its memory.  The accumulates are
 * checked after the epoch, as MPI's usual rules say.
 *
 *   mpicc -o counter_notify counter_notify.c && mpiexec -n 2 ./counter_notify [doubles]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;    /* doubles per block */
    int rank, nranks, errors = 0;
    double *base;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    /* nranks blocks of n doubles, then one counter word for the accumulates */
    MPI_Aint size = ((MPI_Aint) nranks * n + 1) * sizeof(double);
    MPI_Win_allocate(size, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (MPI_Aint i = 0; i < (MPI_Aint) nranks * n + 1; i++)
        base[i] = 0.0;
    MPIX_Win_create_notify(win, 1);    /* collective: one counter everywhere */
    MPI_Barrier(MPI_COMM_WORLD);    /* everyone's memory is initialised */

    MPI_Win_lock_all(0, win);
    if (rank != 0) {
        double *block = malloc(n * sizeof(double)), one = 1.0;
        for (int i = 0; i < n; i++)
            block[i] = rank * 1000.0 + i;
        MPIX_Put_notify(block, n, MPI_DOUBLE, 0, (MPI_Aint) rank * n, n, MPI_DOUBLE, 0, win);
        MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, (MPI_Aint) nranks * n, 1, MPI_DOUBLE, MPI_SUM,
                       win);
        MPI_Win_flush(0, win);    /* the origin buffer may be reused after this */
        free(block);
    } else {
        MPI_Count arrived;
        do    /* each read also makes progress */
            MPIX_Win_get_notify(win, 0, &arrived);
        while (arrived < nranks - 1);
        for (int r = 1; r < nranks; r++)
            for (int i = 0; i < n; i++)
                if (base[(MPI_Aint) r * n + i] != r * 1000.0 + i)
                    errors++;
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);    /* every accumulate is complete */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);    /* a local epoch to read the word */
        if (base[(MPI_Aint) nranks * n] != nranks - 1.0)
            errors++;
        MPI_Win_unlock(0, win);
        if (errors)
            printf("%d errors\n", errors);
        else
            printf("No Errors\n");
    }
    MPIX_Win_free_notify(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return errors != 0;
}

/* The cost of a job itself, for test/realprogs/run.sh's table: MPI_Init, a
 * barrier and MPI_Finalize, nothing else.  Built with Debian's mpicc like
 * the other programs there, run on both libraries.  Prints "No Errors". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d processes\n%s\n", sum, sum == size ? "No Errors" : "Found 1 errors");
    MPI_Finalize();
    return sum != size;
}

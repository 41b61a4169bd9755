/*
 * Two programs natrace cannot trace, for its test (test/tools/natrace.sh): each
 * must make natrace say so, in one line on standard error, and write no
 * trace.  Any number of ranks.
 *
 *   natrace_unseen pmpi        MPI started by PMPI_Init and ended by
 *                              PMPI_Finalize: no wrapper of natrace sees it
 *   natrace_unseen nofinalize  MPI_Init, then exit without MPI_Finalize
 *
 * Prints "No Errors" from rank 0 before it ends.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    if (argc != 2 || (strcmp(argv[1], "pmpi") && strcmp(argv[1], "nofinalize"))) {
        fprintf(stderr, "usage: natrace_unseen pmpi|nofinalize\n");
        return 2;
    }
    bool pmpi = strcmp(argv[1], "pmpi") == 0;
    if (pmpi)
        PMPI_Init(&argc, &argv);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("No Errors\n");
        fflush(stdout);
    }
    if (pmpi)
        PMPI_Finalize();
    else
        exit(0);
    return 0;
}

/* MPI-IO hello world (ROMIO in the default build): every rank writes one
 * fixed-size line at its own offset of FILE with MPI_File_write_at_all,
 * then rank 0 reads the file back with MPI_File_read_at and checks every
 * line.  Prints "No Errors".
 *
 *   mpi_io_hello FILE */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define LINE 32

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    char line[LINE + 1], back[LINE + 1];
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_io_hello FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* LINE bytes: the greeting, blanks, a newline (no terminator in the file) */
    int n = snprintf(line, sizeof(line), "hello from rank %d of %d", rank, size);
    memset(line + n, ' ', LINE - n);
    line[LINE - 1] = '\n';
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                  &fh);
    MPI_File_write_at_all(fh, (MPI_Offset) rank * LINE, line, LINE, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    if (rank == 0) {
        MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_Offset fsize;
        MPI_File_get_size(fh, &fsize);
        errs += fsize != (MPI_Offset) size * LINE;
        for (int r = 0; r < size; r++) {
            char want[LINE + 1];
            MPI_File_read_at(fh, (MPI_Offset) r * LINE, back, LINE, MPI_CHAR, MPI_STATUS_IGNORE);
            back[LINE] = '\0';
            snprintf(want, sizeof(want), "hello from rank %d of %d", r, size);
            errs += strncmp(back, want, strlen(want)) != 0 || back[LINE - 1] != '\n';
        }
        MPI_File_close(&fh);
        MPI_File_delete(argv[1], MPI_INFO_NULL);
        printf(errs ? " Found %d errors\n" : " No Errors\n", errs);
    }
    MPI_Finalize();
    return 0;
}

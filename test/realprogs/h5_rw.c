/* Parallel HDF5 through ROMIO, as a Debian user's program does it: built
 * with Debian's h5pcc (libhdf5-mpich-dev) against Debian's MPICH headers,
 * run unchanged on Debian's libmpich.so.12 and on ours (test/realprogs/run.sh).
 *
 * Every rank writes its slab of ROWS rows of a 2-D dataset of doubles with a
 * collective transfer (H5FD_MPIO_COLLECTIVE), the file is closed, reopened,
 * and every rank reads back its own slab and its right neighbour's (data
 * another process wrote), collectively again, and checks every value.
 * Rank 0 prints the MPI library's version line and how many of its control
 * variables (MPI_T) are Notified Access ones, so that the harness can tell
 * which library really ran, then the dataset's checksum and "No Errors".
 *
 *   h5_rw FILE [ROWS [COLS]] */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

/* control variables whose name says NOTIFY: none in stock MPICH.  MPI_T
 * stays initialized until after MPI_Finalize: in stock MPICH 4.0.2 an
 * MPI_T_finalize between MPI_Init and MPI_Finalize frees the string control
 * variables MPI itself still reads (ch4:ofi's shared-memory collectives then
 * crash in the next MPI_Comm_dup; patches/fixes/0014 fixes ours). */
static int notify_cvars(void)
{
    int provided, n = 0, k = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return -1;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof(name), verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_T_cvar_get_info(i, name, &len, &verb, &dt, &en, NULL, NULL, &bind,
                                &scope) == MPI_SUCCESS && strstr(name, "NOTIFY"))
            k++;
    }
    return k;
}

#define H5_OK(call)                                                             \
    do {                                                                        \
        if ((call) < 0) {                                                       \
            fprintf(stderr, "h5_rw: %s:%d: %s failed\n", __FILE__, __LINE__,     \
                    #call);                                                     \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

/* the value at (row, col): exact in a double, different for every element */
static double value(hsize_t row, hsize_t col, hsize_t cols)
{
    return (double) (row * cols + col) + 0.25;
}

/* read ROWS rows starting at FIRST collectively and check them all */
static void read_check(hid_t dset, hsize_t first, hsize_t rows, hsize_t cols, double *buf)
{
    hsize_t start[2] = { first, 0 }, count[2] = { rows, cols };
    hid_t fspace = H5Dget_space(dset);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);

    H5_OK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
    H5_OK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    memset(buf, 0, rows * cols * sizeof(double));
    H5_OK(H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, buf));
    for (hsize_t r = 0; r < rows; r++)
        for (hsize_t c = 0; c < cols; c++)
            if (buf[r * cols + c] != value(first + r, c, cols)) {
                if (errs < 5)
                    fprintf(stderr, "h5_rw: element (%llu,%llu) is %g, not %g\n",
                            (unsigned long long) (first + r), (unsigned long long) c,
                            buf[r * cols + c], value(first + r, c, cols));
                errs++;
            }
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Sclose(fspace);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: h5_rw FILE [ROWS [COLS]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    hsize_t rows = argc > 2 ? strtoull(argv[2], NULL, 10) : 64;
    hsize_t cols = argc > 3 ? strtoull(argv[3], NULL, 10) : 1024;
    double *buf = malloc(rows * cols * sizeof(double));
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);

    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        printf("library: %.*s; notify cvars: %d\n", (int) strcspn(ver, "\n"), ver,
               notify_cvars());
    }

    /* write: each rank its slab, one collective H5Dwrite */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5_OK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5_OK(file);
    hsize_t dims[2] = { rows * size, cols };
    hid_t fspace = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "slabs", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT);
    H5_OK(dset);
    hsize_t start[2] = { rows * rank, 0 }, count[2] = { rows, cols };
    hid_t mspace = H5Screate_simple(2, count, NULL);
    H5_OK(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
    for (hsize_t r = 0; r < rows; r++)
        for (hsize_t c = 0; c < cols; c++)
            buf[r * cols + c] = value(rows * rank + r, c, cols);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5_OK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    H5_OK(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, buf));
    /* HDF5 may quietly fall back to independent I/O: the transfer must
     * really have been collective */
    H5D_mpio_actual_io_mode_t mode;
    H5_OK(H5Pget_mpio_actual_io_mode(dxpl, &mode));
    if (mode == H5D_MPIO_NO_COLLECTIVE) {
        fprintf(stderr, "h5_rw: rank %d: the write was not collective\n", rank);
        errs++;
    }
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
    H5Fclose(file);

    /* reopen read-only and read back our slab and our neighbour's */
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5_OK(file);
    dset = H5Dopen2(file, "slabs", H5P_DEFAULT);
    H5_OK(dset);
    fspace = H5Dget_space(dset);
    hsize_t got[2];
    H5_OK(H5Sget_simple_extent_dims(fspace, got, NULL));
    H5Sclose(fspace);
    if (got[0] != dims[0] || got[1] != dims[1]) {
        fprintf(stderr, "h5_rw: dataset is %llux%llu, not %llux%llu\n",
                (unsigned long long) got[0], (unsigned long long) got[1],
                (unsigned long long) dims[0], (unsigned long long) dims[1]);
        errs++;
    } else {
        read_check(dset, rows * rank, rows, cols, buf);
        read_check(dset, rows * ((rank + 1) % size), rows, cols, buf);
    }
    /* a checksum of what this rank read last, summed over the ranks: the
     * same on every library (the values are exact in a double) */
    double sum = 0, total = 0;
    for (hsize_t i = 0; i < rows * cols; i++)
        sum += buf[i];
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(fapl);

    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("dataset %llux%llu, checksum %.17g\n", (unsigned long long) dims[0],
               (unsigned long long) dims[1], total);
        if (all == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", all);
    }
    free(buf);
    MPI_Finalize();
    if (rank == 0)
        MPI_T_finalize();
    return all != 0;
}

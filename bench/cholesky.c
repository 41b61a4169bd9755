/* Tiled left-looking Cholesky factorisation (paper section VI-C), three ways
 * of moving finished tiles:
 *   na   MPI_Put_notify of the tile into every rank's copy, the tile index as
 *        the tag; each rank waits with ONE any-source/any-tag request
 *   mp   MPI_Isend with the index as tag; receivers MPI_Probe + MPI_Recv
 *   os   MPI_Put of the tile, flush, MPI_Fetch_and_op on the receiver's ring
 *        counter, MPI_Put of the index into that ring slot, flush; the
 *        receiver polls its ring
 * Tiles are broadcast along a binary tree rooted at their producer, as they
 * are produced.  Tile column j belongs to rank j % P.  Kernels: DPOTRF, DTRSM,
 * DSYRK, DGEMM from the system LAPACK/BLAS.  Every run is verified at rank 0:
 * ||A - L L^T||_F / ||A||_F < 1e-10, or the program fails.  The matrix, the
 * tile layout, the tree and the check are bench/cholesky_common.h's, shared
 * with bench/cholesky_tasks.c.
 *
 *   cholesky [-nt TILES] [-b TILE_SIZE] [-reps R] [-modes na,mp,os] [-csv FILE]
 *
 * Rep r runs every mode once before rep r + 1 starts, and each mode reports
 * its median over the R reps (default 3) and its worst residual: interleaved,
 * a machine that slows down mid-run slows every mode alike, not just one.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "cholesky_common.h"

enum { NA, MP, OS, NMODES };
static const char *const mode_names[NMODES] = { "na", "mp", "os" };

static int rank, np, nt, b, ntiles, mode;
static double *tiles;           /* window: every lower tile, column-major b x b */
static MPI_Win win, ringwin;
static int *ring;               /* os: [0] counter, [1 + k] tile indices, -1 = empty */
static int ring_head;
static char *have;
static MPI_Request notify_req, *sends;
static int nsends;

static double *tile(int t)
{
    return tiles + (size_t) t * b * b;
}

static int owner_of_column(int j)
{
    return j % np;
}

/* send tile t to my children in the binary tree rooted at its producer */
static void forward(int t, int root)
{
    int ch[2], nc = ch_tree_children(rank, np, root, ch);
    for (int c = 0; c < nc; c++) {
        int dst = ch[c];
        switch (mode) {
            case NA:
                MPI_Put_notify(tile(t), b * b, MPI_DOUBLE, dst, (MPI_Aint) t * b * b, b * b,
                               MPI_DOUBLE, win, t);
                break;
            case MP:
                MPI_Isend(tile(t), b * b, MPI_DOUBLE, dst, t, MPI_COMM_WORLD, &sends[nsends++]);
                break;
            case OS:{
                    int one = 1, slot;
                    MPI_Put(tile(t), b * b, MPI_DOUBLE, dst, (MPI_Aint) t * b * b, b * b,
                            MPI_DOUBLE, win);
                    MPI_Win_flush(dst, win);
                    MPI_Fetch_and_op(&one, &slot, MPI_INT, dst, 0, MPI_SUM, ringwin);
                    MPI_Win_flush(dst, ringwin);
                    MPI_Put(&t, 1, MPI_INT, dst, 1 + slot, 1, MPI_INT, ringwin);
                    MPI_Win_flush(dst, ringwin);
                    break;
                }
        }
    }
}

static void receive_one(void)
{
    int t;
    switch (mode) {
        case NA:{
                MPI_Status st;
                MPI_Start(&notify_req);
                MPI_Wait(&notify_req, &st);
                t = st.MPI_TAG;
                break;
            }
        case MP:{
                MPI_Status st;
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                t = st.MPI_TAG;
                MPI_Recv(tile(t), b * b, MPI_DOUBLE, st.MPI_SOURCE, t, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                break;
            }
        default:{
                volatile int *slot = &ring[1 + ring_head];
                int flag;
                /* MPI_Win_sync before each look, the first included, so the
                 * spin is one a tracer sees (sim/natitrace.c) */
                for (MPI_Win_sync(ringwin); *slot < 0; MPI_Win_sync(ringwin))
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                               MPI_STATUS_IGNORE);
                MPI_Win_sync(win);      /* the tile was flushed before the index */
                t = *slot;
                *slot = -1;
                ring_head++;
                break;
            }
    }
    have[t] = 1;
    forward(t, owner_of_column(ch_column_of(t)));
}

static void need(int t)
{
    while (!have[t])
        receive_one();
}

static void publish(int t)
{
    have[t] = 1;
    forward(t, rank);
}

static void factorize(void)
{
    const double one = 1.0, minus_one = -1.0;
    int info;
    for (int j = 0; j < nt; j++) {
        if (owner_of_column(j) != rank)
            continue;
        int jj = ch_tile_index(j, j);
        for (int k = 0; k < j; k++) {
            need(ch_tile_index(j, k));
            dsyrk_("L", "N", &b, &b, &minus_one, tile(ch_tile_index(j, k)), &b, &one, tile(jj),
                   &b);
        }
        dpotrf_("L", &b, tile(jj), &b, &info);
        if (info != 0) {
            fprintf(stderr, "dpotrf failed on tile %d: info %d\n", j, info);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        publish(jj);
        for (int i = j + 1; i < nt; i++) {
            int ij = ch_tile_index(i, j);
            for (int k = 0; k < j; k++) {
                need(ch_tile_index(i, k));
                dgemm_("N", "T", &b, &b, &b, &minus_one, tile(ch_tile_index(i, k)), &b,
                       tile(ch_tile_index(j, k)), &b, &one, tile(ij), &b);
            }
            dtrsm_("R", "L", "T", "N", &b, &b, &one, tile(jj), &b, tile(ij), &b);
            publish(ij);
        }
    }
    /* everything produced elsewhere passes through here too (tree forwarding) */
    for (int t = 0; t < ntiles; t++)
        need(t);
}

/* one factorisation in the current mode from a fresh A; returns the slowest
 * rank's time, and at rank 0 the residual in *res */
static double run_once(double *res)
{
    /* every rank starts from A in its own columns; the rest arrives */
    memset(have, 0, ntiles);
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++)
            if (owner_of_column(j) == rank)
                ch_fill_tile(tile(ch_tile_index(i, j)), i, j, b, nt);
    for (int k = 0; k <= ntiles; k++)
        ring[k] = k ? -1 : 0;
    ring_head = 0;
    nsends = 0;
    MPI_Win_lock_all(0, win);
    MPI_Win_lock_all(0, ringwin);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);    /* the timed region, for a tracer (sim/natitrace.c) */
    double t0 = MPI_Wtime();
    factorize();
    for (int k = 0; k < nsends; k++)    /* mp: our sends */
        MPI_Wait(&sends[k], MPI_STATUS_IGNORE);
    MPI_Win_flush_all(win);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Pcontrol(0);
    MPI_Win_unlock_all(ringwin);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *res = rank == 0 ? ch_residual("cholesky", tiles, nt, b) : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int use[NMODES], reps = 3;
    const char *csv = NULL, *modes = NULL;
    nt = 32;
    b = 64;
    const bu_opt_t opts[] = {
        {"-nt", BU_INT, &nt, "tiles per row and column (32)"},
        {"-b", BU_INT, &b, "tile size (64)"},
        {"-reps", BU_INT, &reps, "interleaved runs per mode, the median is reported (3)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of na,mp,os (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "cholesky [-nt TILES] [-b TILE_SIZE] [-reps R] [-modes na,mp,os] [-csv FILE]",
                     &rank, &np);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    if (!rc)
        rc = ch_check_size("cholesky", nt, b, reps);
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    ntiles = ch_tile_index(nt, 0);
    MPI_Win_allocate((MPI_Aint) ntiles * b * b * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &tiles, &win);
    MPI_Win_allocate((MPI_Aint) (ntiles + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &ring, &ringwin);
    /* its puts are flags that receivers spin on (sim/trace-format.md) */
    MPI_Win_set_name(ringwin, "flags");
    MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &notify_req);
    have = malloc(ntiles);
    sends = malloc(2 * (size_t) ntiles * sizeof(MPI_Request));
    double n = (double) nt * b, flops = n * n * n / 3.0;
    double *times = malloc((size_t) NMODES * reps * sizeof(double)), worst[NMODES] = { 0 };
    FILE *out = NULL;
    if (rank == 0) {
        printf("# cholesky: %d ranks, %d x %d tiles of %d x %d (n = %.0f), median of %d "
               "interleaved runs\n", np, nt, nt, b, b, n, reps);
        printf("%-4s %10s %10s %8s %12s\n", "mode", "time_s", "Gflop/s", "vs_na", "residual");
        fflush(stdout);
        out = bu_csv_open(csv, "mode,ranks,tiles,tile_size,time_s,gflops,ratio_to_na,residual");
    }
    for (int r = 0; r < reps; r++) {
        for (mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            double res;
            times[mode * reps + r] = run_once(&res);
            ch_keep_worst(&worst[mode], res);
        }
    }
    int failed = 0;
    if (rank == 0) {
        double med[NMODES];
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            med[m] = bu_lower_median(times + m * reps, reps);
        }
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            int ok = worst[m] < 1e-10;
            double ratio = use[NA] ? med[m] / med[NA] : 0;
            failed |= !ok;
            printf("%-4s %10.4f %10.2f %8.2f %12.2e%s\n", mode_names[m], med[m],
                   flops / med[m] * 1e-9, ratio, worst[m], ok ? "" : "  WRONG");
            if (out)
                fprintf(out, "%s,%d,%d,%d,%.6f,%.3f,%.3f,%.3e\n", mode_names[m], np, nt, b,
                        med[m], flops / med[m] * 1e-9, ratio, worst[m]);
        }
        fflush(stdout);
    }
    if (out)
        fclose(out);
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Request_free(&notify_req);
    MPI_Win_free(&ringwin);
    MPI_Win_free(&win);
    free(have);
    free(sends);
    free(times);
    if (rank == 0)
        printf(failed ? "Found errors: residual too large\n" : "No Errors\n");
    MPI_Finalize();
    return failed;
}

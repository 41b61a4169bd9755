/* Pipelined 3-point stencil (the Sync_p2p kernel of the Parallel Research
 * Kernels, as in section VI-A of the Notified Access paper), six ways:
 *   na     the row's halo value travels with MPI_Put_notify; the right
 *          neighbour waits on a persistent notification request
 *   mp     MPI_Send / MPI_Recv of the halo value
 *   pscw   MPI_Win_post/start/complete/wait around each MPI_Put
 *   fence  one MPI_Win_fence per pipeline step
 *   psendrecv  persistent send/recv (MPI_Send_init / MPI_Recv_init once per
 *          run), MPI_Start + MPI_Wait per halo value
 *   partitioned  MPI-4 partitioned communication, one partition per row:
 *          MPI_Psend_init / MPI_Precv_init once per run, MPI_Start and
 *          MPI_Wait once per sweep; the sender marks each row's value with
 *          MPI_Pready, the receiver polls MPI_Parrived
 * Each rank owns WIDTH columns of an M-row grid (weak scaling, paper: 1280 x
 * 1280).  A(i,j) = A(i-1,j) + A(i,j-1) - A(i-1,j-1); after every sweep the
 * top-right corner is fed back (negated) into A(0,0) with MPI_Send/MPI_Recv,
 * the same for every variant.  The result is checked against the kernel's
 * analytic corner value, sweeps * (M + N - 2); a wrong value fails the run.
 *
 *   stencil [-m ROWS] [-w WIDTH] [-iters SWEEPS] [-reps R] [-modes na,mp,pscw,fence,...]
 *           [-csv FILE]
 *
 * Rep r runs every mode once (fresh grid, SWEEPS sweeps, corner checked)
 * before rep r + 1 starts, and each mode reports its median over the R reps
 * (default 3): interleaved, a machine that slows down mid-run slows every mode
 * alike, not just one.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { NA, MP, PSCW, FENCE, PSR, PART, NMODES };
static const char *const mode_names[NMODES] = { "na", "mp", "pscw", "fence", "psendrecv",
    "partitioned"
};

static int rank, np, m, w, left, right;
static double *A;               /* m rows x (w + 1) columns; column 0 is the halo */
static double *halo;            /* window: halo[i] receives the left neighbour's A(i, w) */
static MPI_Win win;
static MPI_Group left_group, right_group;
static MPI_Request nreq;        /* notification from the left neighbour, any tag */
static MPI_Request psend = MPI_REQUEST_NULL, precv = MPI_REQUEST_NULL;  /* psendrecv, partitioned */
static double *pout, *pin;      /* their buffers: one value, or one per row (partitioned) */

#define AT(i, j) A[(size_t) (i) * (w + 1) + (j)]

static void init_grid(void)
{
    memset(A, 0, sizeof(double) * m * (w + 1));
    for (int j = 0; j <= w; j++)
        AT(0, j) = (double) (rank * w + j);     /* global column index */
    if (rank == 0)
        for (int i = 0; i < m; i++)
            AT(i, 0) = (double) i;
}

static void row(int i)
{
    for (int j = 1; j <= w; j++)
        AT(i, j) = AT(i - 1, j) + AT(i, j - 1) - AT(i - 1, j - 1);
}

static void sweep(int mode)
{
    if (mode == FENCE) {
        /* step s: rank r computes row s - r + 1 once its halo has arrived */
        for (int s = 0; s < m - 1 + np - 1; s++) {
            int i = s - rank + 1;
            if (i >= 1 && i < m) {
                if (rank > 0)
                    AT(i, 0) = halo[i];
                row(i);
                if (right != MPI_PROC_NULL)
                    MPI_Put(&AT(i, w), 1, MPI_DOUBLE, right, i, 1, MPI_DOUBLE, win);
            }
            MPI_Win_fence(0, win);
        }
        return;
    }
    if (mode == PART) {
        if (left != MPI_PROC_NULL)
            MPI_Start(&precv);
        if (right != MPI_PROC_NULL)
            MPI_Start(&psend);
    }
    for (int i = 1; i < m; i++) {
        if (left != MPI_PROC_NULL) {
            switch (mode) {
                case NA:{
                        MPI_Status st;
                        MPI_Start(&nreq);
                        MPI_Wait(&nreq, &st);
                        AT(i, 0) = halo[i];
                        break;
                    }
                case MP:
                    MPI_Recv(&AT(i, 0), 1, MPI_DOUBLE, left, i, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    break;
                case PSCW:
                    MPI_Win_post(left_group, 0, win);
                    MPI_Win_wait(win);
                    AT(i, 0) = halo[i];
                    break;
                case PSR:
                    MPI_Start(&precv);
                    MPI_Wait(&precv, MPI_STATUS_IGNORE);
                    AT(i, 0) = pin[0];
                    break;
                case PART:{
                        int arrived = 0;
                        while (!arrived)
                            MPI_Parrived(precv, i - 1, &arrived);
                        AT(i, 0) = pin[i - 1];
                        break;
                    }
            }
        }
        row(i);
        if (right != MPI_PROC_NULL) {
            switch (mode) {
                case NA:
                    MPI_Put_notify(&AT(i, w), 1, MPI_DOUBLE, right, i, 1, MPI_DOUBLE, win, i);
                    break;
                case MP:
                    MPI_Send(&AT(i, w), 1, MPI_DOUBLE, right, i, MPI_COMM_WORLD);
                    break;
                case PSCW:
                    MPI_Win_start(right_group, 0, win);
                    MPI_Put(&AT(i, w), 1, MPI_DOUBLE, right, i, 1, MPI_DOUBLE, win);
                    MPI_Win_complete(win);
                    break;
                case PSR:
                    pout[0] = AT(i, w);
                    MPI_Start(&psend);
                    MPI_Wait(&psend, MPI_STATUS_IGNORE);
                    break;
                case PART:
                    pout[i - 1] = AT(i, w);
                    MPI_Pready(i - 1, psend);
                    break;
            }
        }
    }
    if (mode == PART) {
        if (left != MPI_PROC_NULL)
            MPI_Wait(&precv, MPI_STATUS_IGNORE);
        if (right != MPI_PROC_NULL)
            MPI_Wait(&psend, MPI_STATUS_IGNORE);
    }
    if (mode == NA && right != MPI_PROC_NULL)
        MPI_Win_flush(right, win);      /* the sources are rewritten next sweep */
}

/* SWEEPS sweeps in one mode from a fresh grid; returns the slowest rank's
 * time and sets *ok on every rank to whether the corner came out right */
static double run_once(int mode, int iters, double expect, int *ok)
{
    init_grid();
    /* the persistent requests of a run, made outside the timed sweeps */
    if (mode == PSR) {
        if (right != MPI_PROC_NULL)
            MPI_Send_init(pout, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &psend);
        if (left != MPI_PROC_NULL)
            MPI_Recv_init(pin, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &precv);
    } else if (mode == PART) {
        if (right != MPI_PROC_NULL)
            MPI_Psend_init(pout, m - 1, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &psend);
        if (left != MPI_PROC_NULL)
            MPI_Precv_init(pin, m - 1, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &precv);
    }
    if (mode == NA)
        MPI_Win_lock_all(0, win);
    else if (mode == FENCE)
        MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);    /* the timed region, for a tracer (sim/natitrace.c) */
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        sweep(mode);
        /* feed the corner back into A(0,0) */
        if (np == 1)
            AT(0, 0) = -AT(m - 1, w);
        else if (rank == np - 1)
            MPI_Send(&AT(m - 1, w), 1, MPI_DOUBLE, 0, 999999, MPI_COMM_WORLD);
        else if (rank == 0) {
            double c;
            MPI_Recv(&c, 1, MPI_DOUBLE, np - 1, 999999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            AT(0, 0) = -c;
        }
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Pcontrol(0);
    if (psend != MPI_REQUEST_NULL)
        MPI_Request_free(&psend);
    if (precv != MPI_REQUEST_NULL)
        MPI_Request_free(&precv);
    if (mode == NA)
        MPI_Win_unlock_all(win);
    else if (mode == FENCE)
        MPI_Win_fence(0, win);
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* check the corner on the last rank */
    *ok = 1;
    if (rank == np - 1)
        *ok = fabs(AT(m - 1, w) - expect) <= 1e-8 * fabs(expect);
    MPI_Bcast(ok, 1, MPI_INT, np - 1, MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int iters = 10, reps = 3, use[NMODES];
    const char *csv = NULL, *modes = NULL;
    m = 1280;
    w = 1280;
    const bu_opt_t opts[] = {
        {"-m", BU_INT, &m, "grid rows (1280)"},
        {"-w", BU_INT, &w, "columns per rank (1280)"},
        {"-iters", BU_INT, &iters, "sweeps per run (10)"},
        {"-reps", BU_INT, &reps, "interleaved runs per mode, the median is reported (3)"},
        {"-modes", BU_STRING, &modes,
         "comma-separated subset of na,mp,pscw,fence,psendrecv,partitioned (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "stencil [-m ROWS] [-w WIDTH] "
                     "[-iters SWEEPS] [-reps R] [-modes na,mp,...] [-csv FILE]", &rank, &np);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    /* row indices are (notification) tags; the corner's tag 999999 travels
     * the other way, so it cannot be mistaken for a row */
    int *tag_ub, flag, max_rows = MPI_NOTIFY_TAG_UB;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    if (flag && *tag_ub < max_rows)
        max_rows = *tag_ub;
    if (!rc && (m < 2 || m - 1 > max_rows || w < 1 || iters < 1 || reps < 1)) {
        if (rank == 0)
            fprintf(stderr, "stencil: need 2 <= ROWS <= %d, WIDTH >= 1, SWEEPS >= 1, "
                    "reps >= 1\n", max_rows + 1);
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < np - 1 ? rank + 1 : MPI_PROC_NULL;
    A = malloc(sizeof(double) * m * (w + 1));
    pout = malloc(sizeof(double) * m);
    pin = malloc(sizeof(double) * m);
    MPI_Win_allocate(sizeof(double) * m, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &halo,
                     &win);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, left != MPI_PROC_NULL, &left, &left_group);
    MPI_Group_incl(world, right != MPI_PROC_NULL, &right, &right_group);
    if (left != MPI_PROC_NULL)
        MPI_Notify_init(win, left, MPI_ANY_TAG, 1, &nreq);
    long n_global = (long) np * w + 1;
    double expect = (double) iters * (m + n_global - 2);
    FILE *out = NULL;
    if (rank == 0) {
        printf("# stencil: %d ranks, %d x %ld grid (%d columns per rank), %d sweeps, median of "
               "%d interleaved runs\n", np, m, n_global, w, iters, reps);
        printf("%-11s %10s %12s %10s\n", "mode", "time_s", "MFlop/s", "vs_na");
        fflush(stdout);
        out = bu_csv_open(csv, "mode,ranks,rows,cols_per_rank,sweeps,time_s,mflops,ratio_to_na");
    }
    double *times = malloc((size_t) NMODES * reps * sizeof(double));
    int ok[NMODES], failed = 0;
    for (int mode = 0; mode < NMODES; mode++)
        ok[mode] = 1;
    for (int r = 0; r < reps; r++) {
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            int rep_ok;
            times[mode * reps + r] = run_once(mode, iters, expect, &rep_ok);
            ok[mode] &= rep_ok;
        }
    }
    double med[NMODES];
    for (int mode = 0; mode < NMODES; mode++) {
        if (!use[mode])
            continue;
        bu_sort(times + mode * reps, reps);
        /* the lower middle value: of an even number of reps, the faster */
        med[mode] = times[mode * reps + (reps - 1) / 2];
        failed |= !ok[mode];
    }
    for (int mode = 0; mode < NMODES && rank == 0; mode++) {
        if (!use[mode])
            continue;
        double mflops = 2.0 * (m - 1) * (n_global - 1) * iters / med[mode] * 1e-6;
        double ratio = use[NA] ? med[mode] / med[NA] : 0;
        printf("%-11s %10.4f %12.1f %10.2f%s\n", mode_names[mode], med[mode], mflops, ratio,
               ok[mode] ? "" : "  WRONG RESULT");
        if (out)
            fprintf(out, "%s,%d,%d,%d,%d,%.6f,%.1f,%.3f\n", mode_names[mode], np, m, w, iters,
                    med[mode], mflops, ratio);
    }
    fflush(stdout);
    if (out)
        fclose(out);
    if (left != MPI_PROC_NULL)
        MPI_Request_free(&nreq);
    MPI_Group_free(&left_group);
    MPI_Group_free(&right_group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(A);
    free(pout);
    free(pin);
    free(times);
    if (rank == 0)
        printf(failed ? "Found errors: a variant computed a wrong corner value\n" : "No Errors\n");
    MPI_Finalize();
    return failed;
}

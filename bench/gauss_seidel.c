/* 2-D heat equation by Gauss-Seidel sweeps (in-place 5-point update) as a
 * wavefront of OpenMP tasks across ranks, three ways of moving the halos:
 *   na   notified access + tasks: a finished boundary block's row goes to the
 *        neighbour's halo row with MPI_Rput_notify (tag: the block column);
 *        the sending task completes on local completion (NA_Task_iwait); the
 *        receiving task starts a persistent notification request of that
 *        block column and neighbour (NA_Task_istart) and completes, releasing
 *        the block that reads the halo, once the data is there
 *   sr   send/recv + tasks (TAMPI style): MPI_Isend / MPI_Irecv inside tasks,
 *        bound to the task's completion with NA_Task_iwait
 *   fj   fork-join without tasks: per sweep a blocking MPI_Recv of the whole
 *        upper (and lower) halo row, a "#pragma omp parallel for" per block
 *        anti-diagonal of the band, then blocking MPI_Send of the band's
 *        bottom and top rows; the ranks take turns sweep by sweep
 *
 * Grid: N x N interior points plus a fixed boundary (top 1.0, other sides
 * 0.0); the interior starts from a deterministic pseudo-random field.  Rows are
 * split in contiguous bands over the ranks; each band is cut in BS x BS
 * blocks (the last row/column of blocks may be narrower).  One sweep updates
 * every point in lexicographic order, u(i,j) = (u(i-1,j) + u(i+1,j) +
 * u(i,j-1) + u(i,j+1)) / 4 with the new upper/left and the old lower/right
 * values.  In the task modes block (bi,bj) of sweep t is a task with
 *   depend(inout: (bi,bj))  depend(in: (bi-1,bj), (bi,bj-1))  this sweep
 *                           depend(in: (bi+1,bj), (bi,bj+1))  previous sweep
 * (task creation order makes the first two the new values and the last two
 * the old ones), the halo row of the band standing for the missing (bi-1,bj)
 * / (bi+1,bj) at the band's edges: the top row of a band, per block column,
 * goes to the rank above after every sweep but the last (its lower halo for
 * the next sweep), the bottom row to the rank below (its upper halo for this
 * sweep).  Flow control needs no double buffering: a halo block may be
 * overwritten only by the neighbour's next sweep of that block column, which
 * needs our answer that is sent after the block that reads the halo has run
 * (the receive task of the next sweep also depends on that block: WAR).
 *
 * Every run is verified bit for bit against a sequential Gauss-Seidel of the
 * whole grid in the same order, computed once on rank 0 and scattered by
 * bands: a Jacobi-like or misordered update, a lost or early halo changes
 * bits.  Any difference fails the program (exit status 1).
 *
 *   gauss_seidel [-n N] [-bs BS] [-t SWEEPS] [-reps R] [-modes na,sr,fj] [-csv FILE]
 *
 * Rep r runs every mode once before rep r + 1 starts; each mode reports the
 * rep with the median time (the lower middle of an even count), its
 * throughput and the share of core time spent outside the update kernel,
 * blocked = 1 - (sum over ranks and threads of time in the kernel) /
 * (ranks x threads x wall time), wall time being the slowest rank's.
 *
 * libgomp (GCC 12) pitfalls the task modes avoid:
 *  - it runs a new task at once (undeferred) when more than 64 x threads
 *    tasks are ready, running or detached; a detached receive run that way
 *    keeps the creating thread until its data comes, which with one thread
 *    can wait for a send task that thread was to run.  At most one task per
 *    block and two per block column and neighbour are counted, so a
 *    configuration above 64 x threads is refused (use a larger -bs);
 *  - "taskwait depend" lets dependants of a detached task run before its
 *    event is fulfilled (data read before it came), and the implicit barrier
 *    of a parallel region is not ended when the last task is a detached one
 *    fulfilled by another thread: creation is drained with a plain
 *    "#pragma omp taskwait" every 32 sweeps and at the end instead.
 *
 * With fewer cores than ranks x threads, run with OMP_WAIT_POLICY=passive:
 * libgomp's spinning idle threads otherwise take the cores the work needs,
 * and a run takes many times as long.
 */
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <na_tasks.h>
#include "bench_util.h"
#include "task_util.h"

enum { NA, SR, FJ, NMODES };
static const char *const mode_names[NMODES] = { "na", "sr", "fj" };

#define DRAIN_SWEEPS 32         /* task modes: a taskwait every so many sweeps */

static int rank, np, n, bs, sweeps, nthreads;
static int row0, nloc, nloc_up, up, down, nbr, nbc;
static size_t ld;               /* n + 2 */
static double *u;               /* window: (nloc + 2) x ld, rows 0 and nloc + 1 are halos */
static MPI_Win win;
static MPI_Comm comm;
static MPI_Request *nreq_up, *nreq_low; /* na: per block column, from up / down */
static MPI_Status *st_up, *st_low;
/* dependence tokens */
static char *dep_blk, *dep_hup, *dep_hlow, dep_none[2];
static double *busy;            /* seconds in the kernel per thread (task_util.h) */
static int bad_status;

#define U(i, j) u[(size_t) (i) * ld + (j)]

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* first global interior row of rank r's band (rows are 1..n) */
static int band_start(int r)
{
    return 1 + (int) ((long) r * n / np);
}

static double init_value(int gi, int gj)
{
    if (gi == 0)
        return 1.0;
    if (gi == n + 1 || gj == 0 || gj == n + 1)
        return 0.0;
    return (bu_hash2((uint32_t) gi, (uint32_t) gj) % 1000) / 1000.0;
}

/* rows i0..i1 x columns j0..j1 (inclusive) in place, row by row: the one
 * update of both the blocks and the sequential reference */
static void gs_rect(double *g, size_t ldg, int i0, int i1, int j0, int j1)
{
    for (int i = i0; i <= i1; i++) {
        double *c = g + (size_t) i * ldg;
        const double *a = c - ldg, *b = c + ldg;
        for (int j = j0; j <= j1; j++)
            c[j] = 0.25 * (a[j] + b[j] + c[j - 1] + c[j + 1]);
    }
}

static void block_cols(int bj, int *j0, int *w)
{
    *j0 = 1 + bj * bs;
    *w = imin(n, *j0 + bs - 1) - *j0 + 1;
}

static void kernel(int bi, int bj)
{
    int i0 = 1 + bi * bs, i1 = imin(nloc, i0 + bs - 1), j0, w;
    block_cols(bj, &j0, &w);
    double t0 = omp_get_wtime();
    gs_rect(u, ld, i0, i1, j0, j0 + w - 1);
    tu_busy_add(busy, t0);
}

/* ------------------------------------------------------------ task modes */

/* upper halo of block column bj: the bottom row of rank up, this sweep */
static void recv_up(omp_event_handle_t ev, int mode, int bj)
{
    if (mode == NA) {
        NA_Task_istart(ev, &nreq_up[bj], &st_up[bj]);
    } else {
        int j0, w;
        MPI_Request r;
        block_cols(bj, &j0, &w);
        MPI_Irecv(&U(0, j0), w, MPI_DOUBLE, up, bj, comm, &r);
        NA_Task_iwait(ev, &r, &st_up[bj]);
    }
}

/* lower halo of block column bj: the top row of rank down, previous sweep */
static void recv_low(omp_event_handle_t ev, int mode, int bj)
{
    if (mode == NA) {
        NA_Task_istart(ev, &nreq_low[bj], &st_low[bj]);
    } else {
        int j0, w;
        MPI_Request r;
        block_cols(bj, &j0, &w);
        MPI_Irecv(&U(nloc + 1, j0), w, MPI_DOUBLE, down, bj, comm, &r);
        NA_Task_iwait(ev, &r, &st_low[bj]);
    }
}

/* our bottom row of block column bj into row 0 of rank down */
static void send_down(omp_event_handle_t ev, int mode, int bj)
{
    int j0, w;
    MPI_Request r;
    block_cols(bj, &j0, &w);
    if (mode == NA)
        MPI_Rput_notify(&U(nloc, j0), w, MPI_DOUBLE, down, (MPI_Aint) j0, w, MPI_DOUBLE, win, bj,
                        &r);
    else
        MPI_Isend(&U(nloc, j0), w, MPI_DOUBLE, down, bj, comm, &r);
    NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE);
}

/* our top row of block column bj into the lower halo row of rank up */
static void send_up(omp_event_handle_t ev, int mode, int bj)
{
    int j0, w;
    MPI_Request r;
    block_cols(bj, &j0, &w);
    if (mode == NA)
        MPI_Rput_notify(&U(1, j0), w, MPI_DOUBLE, up, (MPI_Aint) (nloc_up + 1) * ld + j0, w,
                        MPI_DOUBLE, win, bj, &r);
    else
        MPI_Isend(&U(1, j0), w, MPI_DOUBLE, up, bj, comm, &r);
    NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE);
}

/* the halo a boundary block reads came from the right rank and column */
static void check_status(int bi, int bj, int t)
{
    int bad = 0;
    if (bi == 0 && up != MPI_PROC_NULL)
        bad |= st_up[bj].MPI_SOURCE != up || st_up[bj].MPI_TAG != bj;
    if (bi == nbr - 1 && down != MPI_PROC_NULL && t > 0)
        bad |= st_low[bj].MPI_SOURCE != down || st_low[bj].MPI_TAG != bj;
    if (bad) {
#pragma omp atomic
        bad_status++;
    }
}

static void create_tasks(int mode)
{
    for (int t = 0; t < sweeps; t++) {
        if (t > 0 && t % DRAIN_SWEEPS == 0) {
#pragma omp taskwait
        }
        for (int bj = 0; bj < nbc; bj++) {
            omp_event_handle_t ev;
            if (up != MPI_PROC_NULL) {
#pragma omp task firstprivate(bj) depend(out: dep_hup[bj]) detach(ev)
                recv_up(ev, mode, bj);
            }
            if (down != MPI_PROC_NULL && t > 0) {
#pragma omp task firstprivate(bj) depend(out: dep_hlow[bj]) detach(ev)
                recv_low(ev, mode, bj);
            }
        }
        for (int bi = 0; bi < nbr; bi++) {
            for (int bj = 0; bj < nbc; bj++) {
                omp_event_handle_t ev;
                char *self = &dep_blk[bi * nbc + bj];
                /* at the band's edges the halo (never written without a
                 * neighbour: no dependence) */
                char *above = bi > 0 ? self - nbc : &dep_hup[bj];
                char *below = bi < nbr - 1 ? self + nbc : &dep_hlow[bj];
                char *left = bj > 0 ? self - 1 : &dep_none[0];
                char *right = bj < nbc - 1 ? self + 1 : &dep_none[1];
                (void) above, (void) below, (void) left, (void) right;  /* GCC 12 does
                                                                         * not count depend */
#pragma omp task firstprivate(bi, bj, t) depend(inout: self[0]) \
                depend(in: above[0], below[0], left[0], right[0])
                {
                    check_status(bi, bj, t);
                    kernel(bi, bj);
                }
                if (bi == 0 && up != MPI_PROC_NULL && t < sweeps - 1) {
#pragma omp task firstprivate(bj) depend(in: self[0]) detach(ev)
                    send_up(ev, mode, bj);
                }
                if (bi == nbr - 1 && down != MPI_PROC_NULL) {
#pragma omp task firstprivate(bj) depend(in: self[0]) detach(ev)
                    send_down(ev, mode, bj);
                }
            }
        }
    }
}

/* ------------------------------------------------------------ fork-join */

static void run_fj(void)
{
    for (int t = 0; t < sweeps; t++) {
        if (up != MPI_PROC_NULL)
            MPI_Recv(&U(0, 1), n, MPI_DOUBLE, up, 0, comm, MPI_STATUS_IGNORE);
        if (down != MPI_PROC_NULL && t > 0)
            MPI_Recv(&U(nloc + 1, 1), n, MPI_DOUBLE, down, 1, comm, MPI_STATUS_IGNORE);
        /* blocks of one anti-diagonal are independent; the previous one is
         * this sweep's upper/left, the next one still the old lower/right */
        for (int d = 0; d < nbr + nbc - 1; d++) {
            int lo = imax(0, d - nbc + 1), hi = imin(d, nbr - 1);
#pragma omp parallel for schedule(dynamic, 1)
            for (int bi = lo; bi <= hi; bi++)
                kernel(bi, d - bi);
        }
        if (down != MPI_PROC_NULL)
            MPI_Send(&U(nloc, 1), n, MPI_DOUBLE, down, 0, comm);
        if (up != MPI_PROC_NULL && t < sweeps - 1)
            MPI_Send(&U(1, 1), n, MPI_DOUBLE, up, 1, comm);
    }
}

/* ------------------------------------------------------------ driver */

static void init_band(void)
{
    for (int i = 0; i <= nloc + 1; i++)
        for (int j = 0; j <= n + 1; j++)
            U(i, j) = init_value(row0 - 1 + i, j);
}

/* one run of a mode from the initial grid: the slowest rank's time; *blocked
 * the share of core time outside the kernel, *wrong the number of points
 * (and halo statuses) differing from the reference, both over all ranks */
static double run_once(int mode, const double *ref, double *blocked, long *wrong)
{
    init_band();
    tu_busy_reset(busy, nthreads);
    bad_status = 0;
    if (mode == NA)
        MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (mode == FJ)
        run_fj();
    else
        tu_run_tasks(create_tasks, mode);
    double t = MPI_Wtime() - t0, tmax;
    if (mode == NA)
        MPI_Win_unlock_all(win);
    *blocked = tu_blocked(t, tu_busy_sum(busy, nthreads), nthreads, &tmax);
    long diff = bad_status;
    for (int i = 1; i <= nloc; i++)
        for (size_t j = 0; j < ld; j++)
            diff += memcmp(&U(i, j), &ref[(size_t) (i - 1) * ld + j], sizeof(double)) != 0;
    MPI_Allreduce(&diff, wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return tmax;
}

/* the whole grid swept sequentially on rank 0, scattered by bands into ref */
static void reference(double *ref)
{
    double *g = NULL;
    int *counts = NULL, *displs = NULL;
    if (rank == 0) {
        g = malloc((size_t) (n + 2) * ld * sizeof(double));
        counts = malloc(np * sizeof(int));
        displs = malloc(np * sizeof(int));
        if (!g || !counts || !displs) {
            fprintf(stderr, "gauss_seidel: no memory for the %d x %d reference grid\n", n + 2,
                    n + 2);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i <= n + 1; i++)
            for (int j = 0; j <= n + 1; j++)
                g[(size_t) i * ld + j] = init_value(i, j);
        for (int t = 0; t < sweeps; t++)
            gs_rect(g, ld, 1, n, 1, n);
        for (int r = 0; r < np; r++) {
            counts[r] = (band_start(r + 1) - band_start(r)) * (int) ld;
            displs[r] = band_start(r) * (int) ld;
        }
    }
    MPI_Scatterv(g, counts, displs, MPI_DOUBLE, ref, nloc * (int) ld, MPI_DOUBLE, 0,
                 MPI_COMM_WORLD);
    free(g);
    free(counts);
    free(displs);
}

/* whether the tasks libgomp counts (ready, running, detached) stay within
 * 64 x threads: per block at most one (the sweeps of a block are chained),
 * per block column and neighbour at most one receive and one send task */
static int tasks_fit(void)
{
    int comm_tasks = 2 * nbc * ((up != MPI_PROC_NULL) + (down != MPI_PROC_NULL));
    return comm_tasks + (long) nbr * nbc <= 64L * nthreads;
}

int main(int argc, char **argv)
{
    int reps = 3, use[NMODES], provided;
    const char *csv = NULL, *modes = NULL;
    n = 512;
    bs = 64;
    sweeps = 20;
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &n, "interior grid points per side (512)"},
        {"-bs", BU_INT, &bs, "block size, BS x BS points per task (64)"},
        {"-t", BU_INT, &sweeps, "Gauss-Seidel sweeps (timesteps) per run (20)"},
        {"-reps", BU_INT, &reps, "interleaved runs per mode, the median is reported (3)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of na,sr,fj (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    const char *usage = "gauss_seidel [-n N] [-bs BS] [-t SWEEPS] [-reps R] [-modes na,sr,fj] "
        "[-csv FILE]";
    int rc = bu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided, opts,
                            BU_NELEMS(opts), usage, &rank, &np);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    /* block columns are tags (notification and message) */
    int max_tag = bu_max_tag();
    if (!rc && (n < np || n > 46000 || bs < 1 || (n + bs - 1) / bs - 1 > max_tag || sweeps < 1
                || reps < 1)) {
        if (rank == 0)
            fprintf(stderr, "gauss_seidel: need RANKS <= N <= 46000, BS >= 1 with at most %d "
                    "block columns, SWEEPS >= 1, reps >= 1\n", max_tag + 1);
        rc = 1;
    }
    if (!rc)
        rc = tu_check_thread_level("gauss_seidel", provided, use[NA] || use[SR]);
    nthreads = omp_get_max_threads();
    row0 = band_start(rank);
    nloc = band_start(rank + 1) - row0;
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < np - 1 ? rank + 1 : MPI_PROC_NULL;
    nloc_up = rank > 0 ? row0 - band_start(rank - 1) : 0;
    ld = (size_t) n + 2;
    if (!rc) {
        nbr = (nloc + bs - 1) / bs;
        nbc = (n + bs - 1) / bs;
        int bad = (use[NA] || use[SR]) && !tasks_fit(), anybad;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (anybad) {
            if (rank == 0)
                fprintf(stderr, "gauss_seidel: %d x %d blocks per rank and their halo "
                        "tasks exceed libgomp's limit of 64 x %d queued tasks (a task run "
                        "undeferred may wait for data forever); use a larger -bs, more "
                        "threads or -modes fj\n", nbr, nbc, nthreads);
            rc = 1;
        }
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Win_allocate((MPI_Aint) (nloc + 2) * ld * sizeof(double), sizeof(double),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &u, &win);
    nreq_up = malloc(nbc * sizeof(MPI_Request));
    nreq_low = malloc(nbc * sizeof(MPI_Request));
    st_up = calloc(nbc, sizeof(MPI_Status));
    st_low = calloc(nbc, sizeof(MPI_Status));
    for (int bj = 0; bj < nbc; bj++) {
        nreq_up[bj] = nreq_low[bj] = MPI_REQUEST_NULL;
        if (up != MPI_PROC_NULL)
            MPI_Notify_init(win, up, bj, 1, &nreq_up[bj]);
        if (down != MPI_PROC_NULL)
            MPI_Notify_init(win, down, bj, 1, &nreq_low[bj]);
    }
    dep_blk = calloc((size_t) nbr * nbc, 1);
    dep_hup = calloc(nbc, 1);
    dep_hlow = calloc(nbc, 1);
    busy = tu_busy_alloc(nthreads);
    double *ref = malloc((size_t) nloc * ld * sizeof(double));
    reference(ref);

    double mcells = (double) n * n * sweeps * 1e-6;
    long blocks = 0;            /* block updates over all ranks per run */
    for (int r = 0; r < np; r++)
        blocks += (long) ((band_start(r + 1) - band_start(r) + bs - 1) / bs) * nbc * sweeps;
    FILE *out = NULL;
    if (rank == 0) {
        printf("# gauss_seidel: %d ranks x %d threads, %d x %d grid, %d x %d blocks (%d x %d "
               "on rank 0), %d sweeps, median of %d interleaved runs\n", np, nthreads, n, n,
               bs, bs, nbr, nbc, sweeps, reps);
        printf("%-4s %5s %7s %6s %5s %6s %9s %9s %10s %7s  %s\n", "mode", "ranks", "threads",
               "n", "bs", "sweeps", "time_s", "Mcell/s", "blocks/s", "blocked", "result");
        fflush(stdout);
        out = bu_csv_open(csv, "mode,ranks,threads,n,bs,sweeps,time_s,mcells_per_s,"
                          "blocks_per_s,blocked,verified");
    }
    double *times = malloc((size_t) NMODES * reps * sizeof(double));
    double *blk = malloc((size_t) NMODES * reps * sizeof(double));
    long wrong[NMODES] = { 0 };
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            long w;
            times[m * reps + r] = run_once(m, ref, &blk[m * reps + r], &w);
            wrong[m] += w;
        }
    int failed = 0;
    for (int m = 0; m < NMODES; m++) {
        if (!use[m])
            continue;
        /* the rep of the median time (lower middle), with its blocked share */
        int med = bu_median_rep(times + m * reps, reps);
        double t = times[m * reps + med], bl = blk[m * reps + med];
        failed |= wrong[m] != 0;
        if (rank == 0) {
            printf("%-4s %5d %7d %6d %5d %6d %9.4f %9.1f %10.0f %7.3f  %s", mode_names[m], np,
                   nthreads, n, bs, sweeps, t, mcells / t, blocks / t, bl,
                   wrong[m] ? "WRONG" : "verified");
            if (wrong[m])
                printf(" (%ld values differ from sequential Gauss-Seidel over %d runs)",
                       wrong[m], reps);
            printf("\n");
            if (out)
                fprintf(out, "%s,%d,%d,%d,%d,%d,%.6f,%.3f,%.1f,%.4f,%d\n", mode_names[m], np,
                        nthreads, n, bs, sweeps, t, mcells / t, blocks / t, bl, !wrong[m]);
        }
    }
    if (rank == 0) {
        printf(failed ? "Found errors: a mode's grid differs from sequential Gauss-Seidel\n" :
               "No Errors\n");
        fflush(stdout);
    }
    if (out)
        fclose(out);
    for (int bj = 0; bj < nbc; bj++) {
        if (nreq_up[bj] != MPI_REQUEST_NULL)
            MPI_Request_free(&nreq_up[bj]);
        if (nreq_low[bj] != MPI_REQUEST_NULL)
            MPI_Request_free(&nreq_low[bj]);
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    free(nreq_up);
    free(nreq_low);
    free(st_up);
    free(st_low);
    free(dep_blk);
    free(dep_hup);
    free(dep_hlow);
    free(busy);
    free(ref);
    free(times);
    free(blk);
    MPI_Finalize();
    return failed;
}

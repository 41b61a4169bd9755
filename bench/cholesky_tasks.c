/* Tiled right-looking Cholesky factorisation as OpenMP tasks: notified tiles
 * release the kernel tasks that need them.  Three ways of running it:
 *   na   every kernel (DPOTRF, DTRSM, DSYRK, DGEMM) is a task with depend
 *        clauses on the tiles it reads and writes.  A tile produced on another
 *        rank is a detached "receive" task, depend(out: tile), bound with
 *        NA_Task_istart to a persistent notification request (MPI_Notify_init:
 *        the forwarding parent, the tile index as the tag, count 1): the
 *        arrival of the notified put fulfills its event and releases the
 *        kernels.  A finished tile is sent by a detached task,
 *        depend(in: tile): MPI_Rput_notify to each child, NA_Task_iwaitall.
 *   sr   the same task graph, with MPI_Irecv / MPI_Isend inside the detached
 *        tasks (NA_Task_iwait / NA_Task_iwaitall, TAMPI style)
 *   fj   fork-join, no tasks: per panel step k the owner factors the panel
 *        (DPOTRF, then an omp parallel for of DTRSM), one MPI_Bcast of the
 *        panel column (an hindexed datatype of its tiles), then an omp
 *        parallel for over the trailing update tiles
 * Tile column j belongs to rank j % P.  In na and sr, tiles are broadcast
 * along a binary tree rooted at their producer (as bench/cholesky.c), to every
 * rank: with column-cyclic ownership tile (i,k) is needed by the owners of
 * columns k+1..i, which is nearly every rank for P small, and rank 0 needs
 * them all for the check.  A forwarding rank's send task depends on its
 * receive task, so forwarding costs no thread either.
 *
 * Right-looking: at step k the panel (k,k), (i,k) is factored, then every
 * trailing tile (i,j), k < j <= i, is updated with (i,k) and (j,k).  The task
 * graph is the same as left-looking's (the updates of one tile are chained by
 * its inout dependence either way); right-looking creation order lets tasks
 * be created step by step, which the bound below needs.
 *
 * Every run is verified at rank 0: ||A - L L^T||_F / ||A||_F < 1e-10, or the
 * program fails (exit 1).  Tiles a rank does not own are set to NaN before
 * each run, so a tile used before it arrived spoils the residual.  The
 * matrix, the tile layout, the tree and the check are those of
 * bench/cholesky.c (bench/cholesky_common.h).
 *
 *   cholesky_tasks [-nt TILES] [-b TILE_SIZE] [-reps R] [-modes na,sr,fj] [-csv FILE]
 *
 * Rep r runs every mode once before rep r + 1 starts; each mode reports its
 * median time over the R reps, Gflop/s (n^3/3 flops), and "blocked": the
 * share of the cores' time not spent in LAPACK/BLAS kernels,
 * 1 - (sum over ranks and threads of kernel time) / (threads x wall), kernel
 * time measured with omp_get_wtime around each call (the median over reps).
 * libnatasks' progress thread is not counted among the threads.
 *
 * Task creation is bounded (libgomp, GCC 12): when more than 64 x threads
 * tasks are queued, running or detached, GOMP_task runs a new task
 * undeferred: a detached task then blocks its creating thread until its
 * event is fulfilled (which can deadlock: the single thread waits for a tile
 * whose producer waits for ours), and a task depending on a detached one
 * runs as soon as that one's body has returned, before the event is
 * fulfilled.  So the creating thread keeps an upper bound of the live tasks
 * (created - kernels finished - detached waits released, from
 * NA_Tasks_pending) below 64 x threads minus a slack: it creates the tasks
 * in batches, each in a parallel region of its own that ends when the bound
 * would be passed (the region's barrier runs the ready tasks and handles
 * detached ones).  Ranks create their tasks in the same step order and every
 * batch's tasks depend only on earlier tasks, so every such wait is for
 * tasks that can complete.  Not a taskwait nor a taskgroup: they run the
 * newest task first, so with NA_TASKS_POLLING=task the polling task that
 * respawns itself keeps one thread forever (and a taskwait does not run it
 * at all: it is not a child of the waiting task); the barrier takes tasks
 * in FIFO order.  Each batch ends with a "sink" task that depends on every
 * tile: libgomp 12 leaves a parallel region's barrier asleep when its last
 * task is a detached one without dependent tasks, fulfilled from another
 * thread (libnatasks' progress thread) after its body returned.
 *
 * CHOLESKY_TASKS_VERBOSE=1 in the environment prints each rank's time,
 * kernel time and number of task batches per run.
 */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "cholesky_common.h"
#include "task_util.h"
#include "na_tasks.h"

enum { NA, SR, FJ, NMODES };
static const char *const mode_names[NMODES] = { "na", "sr", "fj" };

static int rank, np, nt, b, ntiles, mode;
static double *tiles;           /* window: every lower tile, column-major b x b */
static MPI_Win win;
static MPI_Comm comm;           /* sr messages and fj broadcasts */
static MPI_Request *nreq;       /* na: persistent notification request per tile */
static MPI_Datatype *panel_type;        /* fj: tiles (k..nt-1, k) */
static int *upd;                /* fj: my trailing tiles at one step, as pairs */
static char *dep;               /* dependence token per tile */
static MPI_Status *send_status; /* [2 * tile]: statuses of a send task's requests */

static double *ktime;            /* kernel time per thread (task_util.h) */
static int max_threads, team_threads;

/* the bound on live tasks (see the top) */
static long created, task_limit;
static atomic_long kernels_done, waits_registered;
static int batches;

static const double one = 1.0, minus_one = -1.0;

static double *tile(int t)
{
    return tiles + (size_t) t * b * b;
}

static int owner_of_column(int j)
{
    return j % np;
}

static void check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed (error %d)\n", rank, what, err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* ------------------------------------------------------------ kernels */

static void k_potrf(int k)
{
    double t0 = omp_get_wtime();
    int info;
    dpotrf_("L", &b, tile(ch_tile_index(k, k)), &b, &info);
    tu_busy_add(ktime, t0);
    if (info != 0) {
        fprintf(stderr, "dpotrf failed on tile %d: info %d\n", k, info);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void k_trsm(int i, int k)
{
    double t0 = omp_get_wtime();
    dtrsm_("R", "L", "T", "N", &b, &b, &one, tile(ch_tile_index(k, k)), &b,
           tile(ch_tile_index(i, k)), &b);
    tu_busy_add(ktime, t0);
}

static void k_syrk(int j, int k)
{
    double t0 = omp_get_wtime();
    dsyrk_("L", "N", &b, &b, &minus_one, tile(ch_tile_index(j, k)), &b, &one,
           tile(ch_tile_index(j, j)), &b);
    tu_busy_add(ktime, t0);
}

static void k_gemm(int i, int j, int k)
{
    double t0 = omp_get_wtime();
    dgemm_("N", "T", &b, &b, &b, &minus_one, tile(ch_tile_index(i, k)), &b,
           tile(ch_tile_index(j, k)), &b, &one, tile(ch_tile_index(i, j)), &b);
    tu_busy_add(ktime, t0);
}

/* ------------------------------------------------------------ na, sr: tasks */

/* The tasks of one rank in creation order, the same for every run and mode:
 * per step k the panel (potrf, trsm, or the receive of each tile), the send
 * of each tile to my children in its tree, then my trailing updates. */
enum { T_POTRF, T_TRSM, T_SYRK, T_GEMM, T_RECV, T_SEND };
typedef struct {
    int kind, i, j, k;
} tdesc_t;
static tdesc_t *plan;
static long nplan;

static void plan_add(int kind, int i, int j, int k)
{
    if (plan)
        plan[nplan] = (tdesc_t) { kind, i, j, k };
    nplan++;
}

/* a tile of column k is final here: computed (mine) or to be received */
static void plan_panel_tile(int i, int k)
{
    int root = owner_of_column(k), ch[2];
    if (root != rank)
        plan_add(T_RECV, i, k, k);
    if (ch_tree_children(rank, np, root, ch) > 0)
        plan_add(T_SEND, i, k, k);
}

/* plan == NULL: count only */
static void make_plan(void)
{
    nplan = 0;
    for (int k = 0; k < nt; k++) {
        if (owner_of_column(k) == rank)
            plan_add(T_POTRF, k, k, k);
        plan_panel_tile(k, k);
        for (int i = k + 1; i < nt; i++) {
            if (owner_of_column(k) == rank)
                plan_add(T_TRSM, i, k, k);
            plan_panel_tile(i, k);
        }
        /* trailing update of my columns, the next panel column first */
        for (int j = k + 1; j < nt; j++) {
            if (owner_of_column(j) != rank)
                continue;
            plan_add(T_SYRK, j, j, k);
            for (int i = j + 1; i < nt; i++)
                plan_add(T_GEMM, i, j, k);
        }
    }
}

/* the bound on live tasks (see the top): may one more be created? */
static int below_bound(void)
{
    long reg = atomic_load(&waits_registered);
    long released = reg - NA_Tasks_pending();
    return created - atomic_load(&kernels_done) - released < task_limit;
}

/* detached: complete once tile t has arrived from its tree parent */
static void receive_task(int t, int parent)
{
    omp_event_handle_t ev;
#pragma omp task depend(out: dep[t]) detach(ev)
    {
        if (mode == NA) {
            check(NA_Task_istart(ev, &nreq[t], MPI_STATUS_IGNORE), "NA_Task_istart");
        } else {
            MPI_Request r;
            check(MPI_Irecv(tile(t), b * b, MPI_DOUBLE, parent, t, comm, &r), "MPI_Irecv");
            check(NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE), "NA_Task_iwait");
        }
        atomic_fetch_add(&waits_registered, 1);
    }
}

/* detached: send the finished tile t to my children in its tree */
static void send_task(int t, int root)
{
    int ch[2], nc = ch_tree_children(rank, np, root, ch);
    omp_event_handle_t ev;
#pragma omp task depend(in: dep[t]) detach(ev) firstprivate(ch, nc)
    {
        MPI_Request r[2];
        for (int c = 0; c < nc; c++) {
            if (mode == NA)
                check(MPI_Rput_notify(tile(t), b * b, MPI_DOUBLE, ch[c], (MPI_Aint) t * b * b,
                                      b * b, MPI_DOUBLE, win, t, &r[c]), "MPI_Rput_notify");
            else
                check(MPI_Isend(tile(t), b * b, MPI_DOUBLE, ch[c], t, comm, &r[c]), "MPI_Isend");
        }
        /* statuses of their own (written when the sends complete): passing
         * MPI_STATUSES_IGNORE to the array parameter draws GCC 12's
         * -Wstringop-overflow */
        check(NA_Task_iwaitall(ev, nc, r, &send_status[2 * t]), "NA_Task_iwaitall");
        atomic_fetch_add(&waits_registered, 1);
    }
}

static void spawn(const tdesc_t * d)
{
    int i = d->i, j = d->j, k = d->k;
    int ik = ch_tile_index(i, k), jk = ch_tile_index(j, k), ij = ch_tile_index(i, j);
    created++;
    switch (d->kind) {
        case T_POTRF:
#pragma omp task depend(inout: dep[ik])
            {
                k_potrf(k);
                atomic_fetch_add(&kernels_done, 1);
            }
            break;
        case T_TRSM:{
                int kk = ch_tile_index(k, k);
#pragma omp task depend(in: dep[kk]) depend(inout: dep[ik])
                {
                    k_trsm(i, k);
                    atomic_fetch_add(&kernels_done, 1);
                }
                break;
            }
        case T_SYRK:           /* (j,j) -= (j,k) (j,k)^T */
#pragma omp task depend(in: dep[jk]) depend(inout: dep[ij])
            {
                k_syrk(j, k);
                atomic_fetch_add(&kernels_done, 1);
            }
            break;
        case T_GEMM:           /* (i,j) -= (i,k) (j,k)^T */
#pragma omp task depend(in: dep[ik], dep[jk]) depend(inout: dep[ij])
            {
                k_gemm(i, j, k);
                atomic_fetch_add(&kernels_done, 1);
            }
            break;
        case T_RECV:
            receive_task(ik, ch_tree_parent(rank, np, owner_of_column(k)));
            break;
        case T_SEND:
            send_task(ik, owner_of_column(k));
            break;
    }
}

static void factorize_tasks(void)
{
    long pos = 0;
    /* batches, each a parallel region: its barrier runs the ready tasks
     * until all of the batch have completed (not a taskwait nor a
     * taskgroup, see the top) */
    while (pos < nplan) {
#pragma omp parallel
        {
#pragma omp single
            {
                team_threads = omp_get_num_threads();
                /* slack: completions counted just before libgomp sees them
                 * (a kernel's end, a released wait not yet fulfilled: one per
                 * thread and the progress thread) and libnatasks' polling task */
                task_limit = 64L * team_threads - 2L * team_threads - 8;
                if (task_limit < 1)
                    task_limit = 1;
                do
                    spawn(&plan[pos++]);
                while (pos < nplan && below_bound());
                /* the sink: depends on every task of the batch, so the last
                 * one to complete has a dependent task (see the top) */
#pragma omp task depend(iterator(it = 0:ntiles), inout: dep[it])
                {
                }
            }
        }
        batches++;
    }
}

/* ------------------------------------------------------------ fj */

static void factorize_fj(void)
{
    team_threads = max_threads;
    for (int k = 0; k < nt; k++) {
        int root = owner_of_column(k);
        if (root == rank) {
            k_potrf(k);
#pragma omp parallel for schedule(dynamic)
            for (int i = k + 1; i < nt; i++)
                k_trsm(i, k);
        }
        check(MPI_Bcast(tiles, 1, panel_type[k], root, comm), "MPI_Bcast");
        int nu = 0;
        for (int j = k + 1; j < nt; j++)
            if (owner_of_column(j) == rank)
                for (int i = j; i < nt; i++) {
                    upd[2 * nu] = i;
                    upd[2 * nu + 1] = j;
                    nu++;
                }
#pragma omp parallel for schedule(dynamic)
        for (int u = 0; u < nu; u++) {
            int i = upd[2 * u], j = upd[2 * u + 1];
            if (i == j)
                k_syrk(j, k);
            else
                k_gemm(i, j, k);
        }
    }
}

/* ------------------------------------------------------------ check, run */

/* one factorisation in the current mode from a fresh A; returns the slowest
 * rank's time, the blocked share in *blocked and at rank 0 the residual in *res */
static double run_once(double *res, double *blocked)
{
    /* every rank starts from A in its own columns; the rest arrives */
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) {
            if (owner_of_column(j) == rank)
                ch_fill_tile(tile(ch_tile_index(i, j)), i, j, b, nt);
            else
                memset(tile(ch_tile_index(i, j)), 0xff, (size_t) b * b * sizeof(double));  /* NaN */
        }
    tu_busy_reset(ktime, max_threads);
    batches = 0;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (mode == FJ)
        factorize_fj();
    else
        factorize_tasks();
    if (mode == NA)
        MPI_Win_flush_all(win);
    double t = MPI_Wtime() - t0, tmax, ksum = tu_busy_sum(ktime, max_threads);
    MPI_Win_sync(win);
    *blocked = tu_blocked(t, ksum, team_threads, &tmax);
    if (getenv("CHOLESKY_TASKS_VERBOSE"))
        printf("rank %d %s: %.4f s, kernels %.4f s, %d task batches\n", rank,
               mode_names[mode], t, ksum, batches);
    *res = rank == 0 ? ch_residual("cholesky_tasks", tiles, nt, b) : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    return tmax;
}

int main(int argc, char **argv)
{
    int use[NMODES], reps = 3, provided;
    const char *csv = NULL, *modes = NULL;
    const char *usage = "cholesky_tasks [-nt TILES] [-b TILE_SIZE] [-reps R] [-modes na,sr,fj] "
        "[-csv FILE]";
    nt = 16;
    b = 64;
    const bu_opt_t opts[] = {
        {"-nt", BU_INT, &nt, "tiles per row and column (16)"},
        {"-b", BU_INT, &b, "tile size (64)"},
        {"-reps", BU_INT, &reps, "interleaved runs per mode, the median is reported (3)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of na,sr,fj (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    /* the tasks call MPI from several threads */
    int rc = bu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided, opts,
                            BU_NELEMS(opts), usage, &rank, &np);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    if (!rc && provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "cholesky_tasks: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        rc = 1;
    }
    if (!rc)
        rc = ch_check_size("cholesky_tasks", nt, b, reps);
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    max_threads = omp_get_max_threads();
    ntiles = ch_tile_index(nt, 0);
    MPI_Win_allocate((MPI_Aint) ntiles * b * b * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &tiles, &win);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    /* one passive epoch for the whole program */
    MPI_Win_lock_all(0, win);
    nreq = malloc((size_t) ntiles * sizeof(MPI_Request));
    for (int t = 0; t < ntiles; t++) {
        nreq[t] = MPI_REQUEST_NULL;
        int root = owner_of_column(ch_column_of(t));
        if (use[NA] && root != rank)
            MPI_Notify_init(win, ch_tree_parent(rank, np, root), t, 1, &nreq[t]);
    }
    panel_type = malloc((size_t) nt * sizeof(MPI_Datatype));
    MPI_Aint *displs = malloc((size_t) nt * sizeof(MPI_Aint));
    for (int k = 0; k < nt; k++) {
        for (int i = k; i < nt; i++)
            displs[i - k] = (MPI_Aint) ch_tile_index(i, k) * b * b * sizeof(double);
        MPI_Type_create_hindexed_block(nt - k, b * b, displs, MPI_DOUBLE, &panel_type[k]);
        MPI_Type_commit(&panel_type[k]);
    }
    free(displs);
    upd = malloc((size_t) 2 * ntiles * sizeof(int));
    make_plan();                /* count, then fill */
    plan = malloc((size_t) nplan * sizeof(tdesc_t) + 1);
    make_plan();
    dep = malloc(ntiles);
    send_status = malloc((size_t) 2 * ntiles * sizeof(MPI_Status));
    ktime = tu_busy_alloc(max_threads);
    double n = (double) nt * b, flops = n * n * n / 3.0;
    double *times = malloc((size_t) NMODES * reps * sizeof(double));
    double *blocks = malloc((size_t) NMODES * reps * sizeof(double)), worst[NMODES] = { 0 };
    FILE *out = NULL;
    if (rank == 0) {
        printf("# cholesky_tasks: %d ranks x %d threads, %d x %d tiles of %d x %d (n = %.0f), "
               "median of %d interleaved runs\n", np, max_threads, nt, nt, b, b, n, reps);
        printf("%-4s %10s %10s %8s %8s %12s\n", "mode", "time_s", "Gflop/s", "vs_na", "blocked",
               "residual");
        fflush(stdout);
        out = bu_csv_open(csv, "mode,ranks,threads,tiles,tile_size,time_s,gflops,ratio_to_na,"
                          "blocked,residual");
    }
    for (int r = 0; r < reps; r++) {
        for (mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            double res;
            times[mode * reps + r] = run_once(&res, &blocks[mode * reps + r]);
            ch_keep_worst(&worst[mode], res);
        }
    }
    int failed = 0;
    if (rank == 0) {
        double med[NMODES], medb[NMODES];
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            /* each the lower middle value: of an even number of reps, the faster */
            med[m] = bu_lower_median(times + m * reps, reps);
            medb[m] = bu_lower_median(blocks + m * reps, reps);
        }
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            int ok = worst[m] < 1e-10;
            double ratio = use[NA] ? med[m] / med[NA] : 0;
            failed |= !ok;
            printf("%-4s %10.4f %10.2f %8.2f %8.3f %12.2e%s\n", mode_names[m], med[m],
                   flops / med[m] * 1e-9, ratio, medb[m], worst[m], ok ? "" : "  WRONG");
            if (out)
                fprintf(out, "%s,%d,%d,%d,%d,%.6f,%.3f,%.3f,%.4f,%.3e\n", mode_names[m], np,
                        max_threads, nt, b, med[m], flops / med[m] * 1e-9, ratio, medb[m],
                        worst[m]);
        }
        fflush(stdout);
    }
    if (out)
        fclose(out);
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int t = 0; t < ntiles; t++)
        if (nreq[t] != MPI_REQUEST_NULL)
            MPI_Request_free(&nreq[t]);
    for (int k = 0; k < nt; k++)
        MPI_Type_free(&panel_type[k]);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    free(nreq);
    free(panel_type);
    free(upd);
    free(plan);
    free(dep);
    free(send_status);
    free(ktime);
    free(times);
    free(blocks);
    if (rank == 0)
        printf(failed ? "Found errors: residual too large\n" : "No Errors\n");
    MPI_Finalize();
    return failed;
}

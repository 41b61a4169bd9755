/* Pipelined streaming of blocks through a chain of ranks: rank 0 produces
 * block k, every next rank transforms it and forwards it, the last rank
 * consumes it (a checksum per block).  Each rank holds S receive slots (block
 * k goes to slot k % S) and S send buffers; a sender must not overwrite a
 * slot the receiver has not consumed yet.  Three ways:
 *   na   notified access + tasks: the block goes into the receiver's slot
 *        (a window) with MPI_Rput_notify, tag = slot, the sending task
 *        completes on local completion (NA_Task_iwait); the receiving task
 *        starts the slot's persistent notification request (NA_Task_istart)
 *        and its completion releases the block's processing task.  Once the
 *        block is consumed the receiver returns a credit for the slot, a
 *        zero-size MPI_Rput_notify with tag S + slot, which the sender's
 *        task for block k + S waits for (NA_Task_istart) before it puts
 *   sr   send/recv + tasks (TAMPI style): MPI_Irecv / MPI_Isend inside tasks
 *        bound with NA_Task_iwait, tag = slot; the receive of block k + S is
 *        posted once block k is consumed (MPI's matching is the flow
 *        control, unexpected messages are buffered by MPI)
 *   fj   fork-join without tasks: batches of S blocks, blocking MPI_Recv of
 *        the batch, "#pragma omp parallel for" over its blocks, blocking
 *        MPI_Send of the results
 * Processing a block: every element x goes through WORK iterations of a
 * logistic map x = a x (1 - x), a depending on the rank (stage), so that any
 * lost, stale, reordered or doubly delivered block changes its checksum.  The
 * last rank's checksums are compared bit for bit with the values of a local
 * replay of all stages (computed once before the runs); a difference, or a
 * notification/message status from the wrong source or slot, fails the
 * program (exit status 1).
 *
 *   streaming [-blocks K] [-bs DOUBLES] [-work ITERS] [-slots S] [-reps R]
 *             [-modes na,sr,fj] [-csv FILE]
 *
 * Rep r runs every mode once before rep r + 1 starts; each mode reports the
 * rep with the median time (the lower middle of an even count), blocks/s,
 * MB/s per link and the share of core time spent outside the processing
 * kernel, blocked = 1 - (sum over ranks and threads of time in the kernel) /
 * (ranks x threads x wall time), wall time being the slowest rank's.
 *
 * libgomp (GCC 12) pitfalls the task modes avoid:
 *  - it runs a new task at once (undeferred) when more than 64 x threads
 *    tasks are ready, running or detached, and a detached task run that way
 *    keeps its thread until the event is fulfilled.  Per slot at most two
 *    block tasks are counted at a time (receive -> process -> credit, and
 *    credit wait -> send are chained through the slot), so -slots is limited
 *    to 32 x threads - 2;
 *  - "taskwait depend" lets dependants of a detached task run before its
 *    event is fulfilled, and the implicit barrier of a parallel region is not
 *    ended when the last task is a detached one fulfilled by another thread:
 *    creation is drained with a plain "#pragma omp taskwait" every 1024
 *    blocks and at the end instead.
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

#define DRAIN_BLOCKS 1024       /* task modes: a taskwait every so many blocks */

static int rank, np, nblocks, bs, work, slots, nthreads, prev, next, last;
static double *inslot;          /* window: slots x bs, block k arrives in slot k % slots */
static double *outbuf;          /* slots x bs, block k leaves from slot k % slots */
static double *chk, *expect;    /* last rank: checksum per block, its expected value */
static MPI_Win win;
static MPI_Comm comm;
static MPI_Request *dreq, *creq;        /* na: data per slot from prev, credits from next */
static MPI_Status *dst, *cst;
static char *dep_in, *dep_out, *dep_cred;       /* dependence tokens */
static double *busy;            /* seconds in the kernel per thread (task_util.h) */
static int bad_status;
static double zero_origin;      /* origin of the zero-size credits */

static double init_value(int k, int j)
{
    return 0.05 + 0.9 * (bu_hash2((uint32_t) k, (uint32_t) j) % 100000) / 100000.0;
}

/* the work of stage s on one element */
static double stage_fn(double x, int s)
{
    double a = 3.9 - 0.01 * (s % 8);
    for (int i = 0; i < work; i++)
        x = a * x * (1.0 - x);
    return x;
}

/* stage `rank` on block k in slot s: produce (rank 0), transform, forward
 * (to outbuf) or consume (checksum) */
static void process(int k, int s)
{
    const double *in = inslot + (size_t) s * bs;
    double *out = outbuf + (size_t) s * bs, sum = 0;
    double t0 = omp_get_wtime();
    for (int j = 0; j < bs; j++) {
        double x = stage_fn(rank == 0 ? init_value(k, j) : in[j], rank);
        if (last)
            sum += x;
        else
            out[j] = x;
    }
    if (last)
        chk[k] = sum;
    tu_busy_add(busy, t0);
}

/* ------------------------------------------------------------ task modes */

static void recv_block(omp_event_handle_t ev, int mode, int s)
{
    if (mode == NA) {
        NA_Task_istart(ev, &dreq[s], &dst[s]);
    } else {
        MPI_Request r;
        MPI_Irecv(inslot + (size_t) s * bs, bs, MPI_DOUBLE, prev, s, comm, &r);
        NA_Task_iwait(ev, &r, &dst[s]);
    }
}

static void check_status(int s)
{
    if (dst[s].MPI_SOURCE != prev || dst[s].MPI_TAG != s) {
#pragma omp atomic
        bad_status++;
    }
}

/* na: slot s is free again on this rank: tell prev */
static void send_credit(omp_event_handle_t ev, int s)
{
    MPI_Request r;
    MPI_Rput_notify(&zero_origin, 0, MPI_DOUBLE, prev, 0, 0, MPI_DOUBLE, win, slots + s, &r);
    NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE);
}

/* na: wait until next has consumed the block in its slot s */
static void wait_credit(omp_event_handle_t ev, int s)
{
    NA_Task_istart(ev, &creq[s], &cst[s]);
}

static void send_block(omp_event_handle_t ev, int mode, int s, int credited)
{
    MPI_Request r;
    if (credited && (cst[s].MPI_SOURCE != next || cst[s].MPI_TAG != slots + s)) {
#pragma omp atomic
        bad_status++;
    }
    if (mode == NA)
        MPI_Rput_notify(outbuf + (size_t) s * bs, bs, MPI_DOUBLE, next, (MPI_Aint) s * bs, bs,
                        MPI_DOUBLE, win, s, &r);
    else
        MPI_Isend(outbuf + (size_t) s * bs, bs, MPI_DOUBLE, next, s, comm, &r);
    NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE);
}

static void create_tasks(int mode)
{
    for (int k = 0; k < nblocks; k++) {
        int s = k % slots;
        omp_event_handle_t ev;
        if (k > 0 && k % DRAIN_BLOCKS == 0) {
#pragma omp taskwait
        }
        if (prev != MPI_PROC_NULL) {
#pragma omp task firstprivate(s) depend(out: dep_in[s]) detach(ev)
            recv_block(ev, mode, s);
        }
#pragma omp task firstprivate(k, s) depend(in: dep_in[s]) depend(inout: dep_out[s])
        {
            if (prev != MPI_PROC_NULL)
                check_status(s);
            process(k, s);
        }
        if (prev != MPI_PROC_NULL && mode == NA && k + slots < nblocks) {
#pragma omp task firstprivate(s) depend(inout: dep_in[s]) detach(ev)
            send_credit(ev, s);
        }
        if (next != MPI_PROC_NULL) {
            int credited = mode == NA && k >= slots;
            if (credited) {
#pragma omp task firstprivate(s) depend(out: dep_cred[s]) detach(ev)
                wait_credit(ev, s);
            }
#pragma omp task firstprivate(s, credited) depend(in: dep_out[s], dep_cred[s]) detach(ev)
            send_block(ev, mode, s, credited);
        }
    }
}

/* ------------------------------------------------------------ fork-join */

static void run_fj(void)
{
    for (int k0 = 0; k0 < nblocks; k0 += slots) {
        int nb = nblocks - k0 < slots ? nblocks - k0 : slots;
        if (prev != MPI_PROC_NULL)
            for (int s = 0; s < nb; s++) {
                MPI_Recv(inslot + (size_t) s * bs, bs, MPI_DOUBLE, prev, s, comm, &dst[s]);
                check_status(s);
            }
#pragma omp parallel for schedule(dynamic, 1)
        for (int s = 0; s < nb; s++)
            process(k0 + s, s);
        if (next != MPI_PROC_NULL)
            for (int s = 0; s < nb; s++)
                MPI_Send(outbuf + (size_t) s * bs, bs, MPI_DOUBLE, next, s, comm);
    }
}

/* ------------------------------------------------------------ driver */

/* one run: the slowest rank's time; *blocked the share of core time outside
 * the kernel, *wrong the number of wrong checksums and statuses, both over
 * all ranks */
static double run_once(int mode, double *blocked, long *wrong)
{
    tu_busy_reset(busy, nthreads);
    bad_status = 0;
    if (last)
        for (int k = 0; k < nblocks; k++)
            chk[k] = -1.0;
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
    if (last)
        for (int k = 0; k < nblocks; k++)
            diff += memcmp(&chk[k], &expect[k], sizeof(double)) != 0;
    MPI_Allreduce(&diff, wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return tmax;
}

/* the last rank's checksums replayed through all stages locally */
static void expected(void)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int k = 0; k < nblocks; k++) {
        double sum = 0;
        for (int j = 0; j < bs; j++) {
            double x = init_value(k, j);
            for (int s = 0; s < np; s++)
                x = stage_fn(x, s);
            sum += x;
        }
        expect[k] = sum;
    }
}

int main(int argc, char **argv)
{
    int reps = 3, use[NMODES], provided;
    const char *csv = NULL, *modes = NULL;
    nblocks = 2000;
    bs = 4096;
    work = 20;
    slots = 4;
    const bu_opt_t opts[] = {
        {"-blocks", BU_INT, &nblocks, "blocks streamed per run (2000)"},
        {"-bs", BU_INT, &bs, "block size in doubles (4096 = 32 KiB)"},
        {"-work", BU_INT, &work, "logistic-map iterations per element and stage (20)"},
        {"-slots", BU_INT, &slots, "receive slots (and send buffers) per rank (4)"},
        {"-reps", BU_INT, &reps, "interleaved runs per mode, the median is reported (3)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of na,sr,fj (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    const char *usage = "streaming [-blocks K] [-bs DOUBLES] [-work ITERS] [-slots S] "
        "[-reps R] [-modes na,sr,fj] [-csv FILE]";
    int rc = bu_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided, opts,
                            BU_NELEMS(opts), usage, &rank, &np);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    nthreads = omp_get_max_threads();
    /* tags: data s < slots, credits slots + s */
    int max_tag = bu_max_tag(), max_slots = 32 * nthreads - 2;
    if (max_slots > max_tag / 2)
        max_slots = max_tag / 2;
    if (!rc && (nblocks < 1 || bs < 1 || (long) bs * max_slots > 1L << 40 || work < 0
                || slots < 1 || slots > max_slots || reps < 1)) {
        if (rank == 0)
            fprintf(stderr, "streaming: need BLOCKS >= 1, DOUBLES >= 1, ITERS >= 0, reps >= 1 "
                    "and 1 <= S <= %d (libgomp's 64 x %d queued tasks, see the header)\n",
                    max_slots, nthreads);
        rc = 1;
    }
    if (!rc)
        rc = tu_check_thread_level("streaming", provided, use[NA] || use[SR]);
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    next = rank < np - 1 ? rank + 1 : MPI_PROC_NULL;
    last = next == MPI_PROC_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Win_allocate((MPI_Aint) slots * bs * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &inslot, &win);
    outbuf = malloc((size_t) slots * bs * sizeof(double));
    dreq = malloc(slots * sizeof(MPI_Request));
    creq = malloc(slots * sizeof(MPI_Request));
    dst = calloc(slots, sizeof(MPI_Status));
    cst = calloc(slots, sizeof(MPI_Status));
    for (int s = 0; s < slots; s++) {
        dreq[s] = creq[s] = MPI_REQUEST_NULL;
        if (prev != MPI_PROC_NULL)
            MPI_Notify_init(win, prev, s, 1, &dreq[s]);
        if (next != MPI_PROC_NULL)
            MPI_Notify_init(win, next, slots + s, 1, &creq[s]);
    }
    dep_in = calloc(slots, 1);
    dep_out = calloc(slots, 1);
    dep_cred = calloc(slots, 1);
    busy = tu_busy_alloc(nthreads);
    if (last) {
        chk = malloc(nblocks * sizeof(double));
        expect = malloc(nblocks * sizeof(double));
        expected();
    }
    double mbytes = (double) nblocks * bs * sizeof(double) * 1e-6;
    FILE *out = NULL;
    if (rank == 0) {
        printf("# streaming: %d ranks x %d threads, %d blocks of %d doubles (%.1f KiB), %d "
               "iterations per element and stage, %d slots, median of %d interleaved runs\n",
               np, nthreads, nblocks, bs, bs * sizeof(double) / 1024.0, work, slots, reps);
        printf("%-4s %5s %7s %7s %7s %5s %5s %9s %10s %9s %7s  %s\n", "mode", "ranks",
               "threads", "blocks", "bs", "work", "slots", "time_s", "blocks/s", "MB/s",
               "blocked", "result");
        fflush(stdout);
        out = bu_csv_open(csv, "mode,ranks,threads,blocks,bs,work,slots,time_s,blocks_per_s,"
                          "mb_per_s,blocked,verified");
    }
    double *times = malloc((size_t) NMODES * reps * sizeof(double));
    double *blk = malloc((size_t) NMODES * reps * sizeof(double));
    long wrong[NMODES] = { 0 };
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < NMODES; m++) {
            if (!use[m])
                continue;
            long w;
            times[m * reps + r] = run_once(m, &blk[m * reps + r], &w);
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
            printf("%-4s %5d %7d %7d %7d %5d %5d %9.4f %10.0f %9.1f %7.3f  %s", mode_names[m],
                   np, nthreads, nblocks, bs, work, slots, t, nblocks / t, mbytes / t, bl,
                   wrong[m] ? "WRONG" : "verified");
            if (wrong[m])
                printf(" (%ld wrong block checksums or statuses over %d runs)", wrong[m], reps);
            printf("\n");
            if (out)
                fprintf(out, "%s,%d,%d,%d,%d,%d,%d,%.6f,%.1f,%.3f,%.4f,%d\n", mode_names[m], np,
                        nthreads, nblocks, bs, work, slots, t, nblocks / t, mbytes / t, bl,
                        !wrong[m]);
        }
    }
    if (rank == 0) {
        printf(failed ? "Found errors: a mode delivered wrong blocks\n" : "No Errors\n");
        fflush(stdout);
    }
    if (out)
        fclose(out);
    for (int s = 0; s < slots; s++) {
        if (dreq[s] != MPI_REQUEST_NULL)
            MPI_Request_free(&dreq[s]);
        if (creq[s] != MPI_REQUEST_NULL)
            MPI_Request_free(&creq[s]);
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&comm);
    free(outbuf);
    free(dreq);
    free(creq);
    free(dst);
    free(cst);
    free(dep_in);
    free(dep_out);
    free(dep_cred);
    free(busy);
    free(chk);
    free(expect);
    free(times);
    free(blk);
    MPI_Finalize();
    return failed;
}

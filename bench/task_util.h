/* Helpers shared by the OpenMP task benchmarks (bench/gauss_seidel.c,
 * bench/streaming.c, bench/cholesky_tasks.c): per-thread kernel time and the
 * "blocked" share computed from it, the check of the thread level, and the
 * one parallel region the task modes create their tasks in.  Header-only
 * (static inline), as bench/bench_util.h, so each program still builds from
 * its one .c file with a plain mpicc line (add -fopenmp -lnatasks).
 */
#ifndef TASK_UTIL_H
#define TASK_UTIL_H

#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"

/* ------------------------------------------------------------ kernel time */

/* Seconds each thread spends in the kernel, one counter per thread of
 * omp_get_max_threads(), TU_PAD doubles (a cache line) apart so that the
 * threads do not share a line they all write. */
#define TU_PAD 8

static inline double *tu_busy_alloc(int nthreads)
{
    return calloc((size_t) nthreads * TU_PAD, sizeof(double));
}

static inline void tu_busy_reset(double *busy, int nthreads)
{
    for (int k = 0; k < nthreads; k++)
        busy[k * TU_PAD] = 0;
}

/* in a kernel that started at omp_get_wtime() == t0: count it to this thread */
static inline void tu_busy_add(double *busy, double t0)
{
    busy[omp_get_thread_num() * TU_PAD] += omp_get_wtime() - t0;
}

static inline double tu_busy_sum(const double *busy, int nthreads)
{
    double s = 0;
    for (int k = 0; k < nthreads; k++)
        s += busy[k * TU_PAD];
    return s;
}

/* Collective over MPI_COMM_WORLD, after a run that took t seconds here with
 * `threads` threads of which busy seconds were in the kernel: the slowest
 * rank's time in *tmax, and the blocked share of the cores' time,
 * 1 - (sum over ranks and threads of kernel time) / (threads over all ranks
 * x the slowest rank's time). */
static inline double tu_blocked(double t, double busy, int threads, double *tmax)
{
    double in[2] = { busy, threads }, sum[2];
    MPI_Allreduce(&t, tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(in, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return 1.0 - sum[0] / (sum[1] * *tmax);
}

/* ------------------------------------------------------------ thread level */

/* The task modes call MPI from several threads (libnatasks refuses to run
 * without MPI_THREAD_MULTIPLE): 0 if they are not used or the level was
 * provided, else 1 after a message (rank 0); prog is the program's name. */
static inline int tu_check_thread_level(const char *prog, int provided, int task_modes_used)
{
    if (provided < MPI_THREAD_MULTIPLE && task_modes_used) {
        if (bu_is_reporter())
            fprintf(stderr, "%s: the task modes need MPI_THREAD_MULTIPLE\n", prog);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ task creation */

/* One thread creates the tasks of a run, create(mode), in one parallel
 * region whose team runs them. */
static inline void tu_run_tasks(void (*create)(int mode), int mode)
{
#pragma omp parallel
#pragma omp single
    {
        create(mode);
        /* not left to the region's barrier: libgomp (GCC 12) does not end
         * the barrier when the last task is a detached one fulfilled by
         * another thread (the progress thread); a taskwait is woken */
#pragma omp taskwait
    }
}

#endif /* TASK_UTIL_H */

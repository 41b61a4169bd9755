/* Experiment (doc/benchmarks.md, 2026-11-28, third session): where a shm
 * notified put's half round trip goes, by the TSC.  Build MPICH with
 * experiment-tsc.diff (exports the ring's consumer state and three TSC
 * stamps), then: mpicc -O2 -o lat experiment-lat.c; mpiexec -n 2 ./lat MODE
 *   0: MPI_Put + flush, target spins on the last byte with MPI_Win_sync (bound)
 *   1: MPI_Put_notify + flush, target MPI_Start + MPI_Wait
 *   2: as 1, the target spinning on its ring's head cell in user code
 *      before MPI_Wait (is the wait's poll slow to see the cell?)
 * Round trips are taken on one process's clock only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include <unistd.h>
#include <stdint.h>
#include <stdatomic.h>
typedef struct { _Atomic uint32_t turn; char rest[60]; } cell_t;
typedef struct { _Atomic uint32_t tail; char pad[60]; _Atomic uint32_t released; char pad2[60]; cell_t cells[]; } ring_t;
typedef struct { int windows; uint32_t head, mask; ring_t *mine; } cons_t;
extern cons_t MPIDI_Notify_ring __attribute__((weak));
extern unsigned long long NA_t_seen __attribute__((weak)), NA_t_pub __attribute__((weak)), NA_t_claimed __attribute__((weak));
static int cmp(const void *a, const void *b) { long x = *(long *) a, y = *(long *) b; return (x > y) - (x < y); }
static long med(long *v, int n) { qsort(v, n, sizeof(long), cmp); return v[n / 2]; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = 4000, mode = atoi(argv[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = !rank;
    char *base;
    MPI_Win win;
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    MPI_Request req;
    MPI_Notify_init(win, peer, 1, 1, &req);
    long *t0 = calloc(n, sizeof(long)), *tr = calloc(n, sizeof(long)), *t1 = calloc(n, sizeof(long)),
        *ts = calloc(n, sizeof(long));
    long *pc = calloc(n, sizeof(long)), *pp = calloc(n, sizeof(long)), *sn = calloc(n, sizeof(long));
    char buf[8];
    volatile char *last = base + 7;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        char mark = (char) (i % 100 + 1);
        if (i % 2 == rank) {
            buf[7] = mark;
            t0[i] = __rdtsc();
            if (mode == 0)
                MPI_Put(buf, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win);
            else
                MPI_Put_notify(buf, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win, 1);
            MPI_Win_flush(peer, win);
            tr[i] = __rdtsc();
            /* with experiment-tsc.diff: when the origin's cell was claimed
             * and published, after the call began */
            pc[i] = mode && &NA_t_claimed ? (long) (NA_t_claimed - t0[i]) : 0;
            pp[i] = mode && &NA_t_pub ? (long) (NA_t_pub - t0[i]) : 0;
        } else {
            if (mode == 0) {
                ts[i] = __rdtsc();
                while (*last != mark)
                    MPI_Win_sync(win);
            } else {
                static uint32_t h0;
                MPI_Start(&req);
                ts[i] = __rdtsc();
                sn[i] = -1;
                if (mode == 2 && MPIDI_Notify_ring.head == h0) {
                    cons_t *c = &MPIDI_Notify_ring;
                    cell_t *cl = &c->mine->cells[c->head & c->mask];
                    while (atomic_load_explicit(&cl->turn, memory_order_acquire) != c->head + 1);
                    sn[i] = __rdtsc();
                }
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                if (mode == 2) h0 = MPIDI_Notify_ring.head;
            }
            t1[i] = __rdtsc();
            /* mode 2: the user's spin saw the cell; mode 1 with
             * experiment-tsc.diff: the drain saw it */
            if (sn[i] > 0)
                sn[i] = t1[i] - sn[i];
            else if (mode == 1 && &NA_t_seen)
                sn[i] = (long) (t1[i] - NA_t_seen);
        }
    }
    /* rank 0 collects: t0/tr from the sender, t1/ts from the receiver of each i */
    long *o0 = calloc(n, sizeof(long)), *or_ = calloc(n, sizeof(long)), *o1 = calloc(n, sizeof(long)), *os = calloc(n, sizeof(long));
    MPI_Reduce(t0, o0, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(tr, or_, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(t1, o1, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(ts, os, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    {
        long *q = calloc(n, sizeof(long)), *qq = calloc(n, sizeof(long)), *qs = calloc(n, sizeof(long)); int k = 0;
        for (int i = 200; i < n; i++) if (i % 2 == rank) { q[k] = pc[i]; qq[k] = pp[i]; k++; }
        int k2 = 0; for (int i = 200; i < n; i++) if (i % 2 != rank) qs[k2++] = sn[i];
        printf("rank %d: claimed %ld cyc, published %ld cyc after the call; wait returns %ld cyc after the cell is seen\n", rank, med(q, k), med(qq, k), med(qs, k2));
    }
    if (rank == 0) {
        double w = MPI_Wtime(); long c = __rdtsc(); usleep(200000); double ghz = (__rdtsc() - c) / (MPI_Wtime() - w) / 1e9;
        int m = n - 200;
        long *a = malloc(m * sizeof(long)), *b = malloc(m * sizeof(long)), *d = malloc(m * sizeof(long)), *e = malloc(m * sizeof(long));
        for (int i = 200; i < n; i++) {
            a[i - 200] = (i + 1 < n) ? o1[i + 1] - o0[i] : 0;   /* round trip, one rank's clock */
            b[i - 200] = or_[i] - o0[i];        /* origin's put+flush */
            d[i - 200] = (i + 1 < n) ? o0[i + 1] - o1[i] : 0;  /* receiver: wait return to its own send */
            e[i - 200] = o1[i] - os[i];         /* receiver: in wait/spin */
        }
        printf("mode %d (ns @%.2f GHz): RT/2 %.0f  origin put+flush %.0f  turnaround %.0f  in-wait %.0f  halfRT %.0f\n",
               mode, ghz, med(a, m) / ghz / 2, med(b, m) / ghz, med(d, m) / ghz, med(e, m) / ghz,
               (double) (o0[n - 1] - o0[200]) / (n - 201) / ghz);
    }
    MPI_Request_free(&req);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}

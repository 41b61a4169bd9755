/* Per-call software costs of MPICH's notified, two-sided and one-sided
 * protocols: the time one call takes inside MPI, not the wire, for
 * sim/replay.cpp to charge as per-message overheads (sim/costs.sh runs it
 * and writes sim/platforms/costs-*.cfg).  2 ranks: rank 0 the origin,
 * rank 1 the target; 8-byte messages.
 *
 *   costs [-iters N] [-delay US]
 *
 * Each quantity is N samples (after N / 10 discarded warm-up samples), each
 * the wall time (CLOCK_MONOTONIC) around ONE call minus the median cost of
 * a pair of clock readings; the median is printed in seconds.  Origin and
 * target go in lock step through zero-byte messages on a duplicated
 * communicator, outside the timed calls, so each sample is one call on its
 * own:
 *
 *   notify  target: MPI_Start (notify_start) and MPI_Test (notify_miss, the
 *           origin has sent nothing yet) of a count-1 MPI_Notify_init
 *           request, then "ready" to the origin; origin: MPI_Put_notify
 *           (notify_origin) in a lock_all epoch, MPI_Win_flush (untimed);
 *           target: MPI_Test until it succeeds, the successful call is
 *           notify_hit; "done" to the origin.
 *   p2p     target: MPI_Irecv (recv_post), MPI_Test (recv_miss), "ready";
 *           origin: MPI_Isend (send_origin); target: MPI_Test until it
 *           succeeds (recv_hit), "done"; origin: MPI_Wait on the isend,
 *           complete by then (send_wait).
 *   rma     target: "ready"; origin: MPI_Put (put_origin), MPI_Win_flush
 *           (untimed), a second MPI_Win_flush with nothing outstanding
 *           (flush_idle), MPI_Win_sync (sync), "done"; target: waits for
 *           "done" (its progress serves the flush where it must).
 *
 * Between "ready" and its polling loop (or its wait for "done") the target
 * makes no MPI call, only spins for -delay microseconds (default 50, a few
 * one-way trips of the tcp netmod), so the origin's calls meet the same
 * idle target in every protocol and the arrival waits, untouched, for the
 * target's next call: with the netmods' manual progress, any MPI call there
 * (a handshake receive, say) would take in the arrival and match it, and
 * the successful MPI_Test would only find a complete request.  So the
 * successful MPI_Test is the call that took in the arrival (and, on paths
 * where a flush needs the target's answer, sent it), and notify_match =
 * notify_hit - notify_miss is what taking in and matching one notification
 * costs over an empty poll.  Also derived: notify_complete = notify_start +
 * notify_miss (arming and polling), and likewise recv_match = recv_hit -
 * recv_miss, recv_complete = recv_post + recv_miss.  Wall time includes the
 * kernel: on the tcp netmod, the socket calls inside MPI.
 *
 * Output on rank 0: '#' comment lines (path from MPIR_CVAR_NOLOCAL and
 * FI_PROVIDER, iterations, diagnostics), then key=value lines. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../bench/bench_util.h"

enum { NOTIFY_ORIGIN, NOTIFY_START, NOTIFY_MISS, NOTIFY_HIT, SEND_ORIGIN, SEND_WAIT, RECV_POST,
    RECV_MISS, RECV_HIT, PUT_ORIGIN, FLUSH_IDLE, SYNC, NQ
};
static const char *const qname[NQ] = { "notify_origin", "notify_start", "notify_miss",
    "notify_hit", "send_origin", "send_wait", "recv_post", "recv_miss", "recv_hit", "put_origin",
    "flush_idle", "sync"
};

/* the rank that measures each quantity */
static const int qrank[NQ] = {[NOTIFY_START] = 1,[NOTIFY_MISS] = 1,[NOTIFY_HIT] = 1,
    [RECV_POST] = 1,[RECV_MISS] = 1,[RECV_HIT] = 1
};

enum { READY = 1, DONE = 2, DATA = 3, NTAG = 4 };

static int rank;

static void check(int rc, const char *call, int line)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "costs: rank %d, line %d: %s failed: %s\n", rank, line, call, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CK(call) check((call), #call, __LINE__)

static double elapsed_ns(const struct timespec *a, const struct timespec *b)
{
    return (double) (b->tv_sec - a->tv_sec) * 1e9 + (double) (b->tv_nsec - a->tv_nsec);
}

/* dst = ns of wall time around the one call (the clock pair's own cost is
 * taken off the median at the end); the return code is checked after */
#define TIMED(dst, call)                                         \
    do {                                                         \
        struct timespec a_, b_;                                  \
        clock_gettime(CLOCK_MONOTONIC, &a_);                     \
        int rc_ = (call);                                        \
        clock_gettime(CLOCK_MONOTONIC, &b_);                     \
        check(rc_, #call, __LINE__);                             \
        (dst) = elapsed_ns(&a_, &b_);                            \
    } while (0)

/* busy-wait ns without any MPI call */
static void spin(double ns)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while (elapsed_ns(&a, &b) < ns);
}

/* the median of t[0..n) (sorted in place) */
static double median(double *t, int n)
{
    bu_stats(t, n, NULL, NULL, NULL);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int iters = 2000, nranks;
    double delay_us = 50;
    const bu_opt_t opts[] = {
        {"-iters", BU_INT, &iters, "samples per quantity (2000)"},
        {"-delay", BU_DOUBLE, &delay_us, "us the target spins without MPI before polling (50)"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts), "costs [-iters N] [-delay US]", &rank,
                     &nranks);
    if (!rc && nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "costs: run with exactly 2 processes (origin and target), not %d\n",
                    nranks);
        rc = 1;
    }
    if (!rc && (iters < 1 || delay_us < 0)) {
        if (rank == 0)
            fprintf(stderr, "costs: need -iters >= 1 and -delay >= 0\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm hs;                /* handshakes, apart from the measured messages */
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &hs));
    const int origin = 0, target = 1, warm = iters / 10;
    const double delay = delay_us * 1e3;
    int64_t *wbuf;              /* [0] the notified puts, [1] the plain puts */
    MPI_Win win;
    CK(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                        &wbuf, &win));
    CK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    wbuf[0] = wbuf[1] = 0;
    MPI_Request nreq = MPI_REQUEST_NULL;
    if (rank == target)
        CK(MPI_Notify_init(win, origin, NTAG, 1, &nreq));
    double *t[NQ];
    for (int q = 0; q < NQ; q++)
        if (!(t[q] = malloc(iters * sizeof(double)))) {
            fprintf(stderr, "costs: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }

    /* the cost of a clock reading pair, each rank its own */
    double *pair = malloc(iters * sizeof(double)), clock_ns;
    for (int i = 0; i < iters; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        pair[i] = elapsed_ns(&a, &b);
    }
    clock_ns = median(pair, iters);
    free(pair);

    int errors = 0, flag;
    double *polls[2];           /* target: unsuccessful MPI_Test before each hit */
    for (int k = 0; k < 2; k++)
        if (!(polls[k] = calloc(iters, sizeof(double)))) {
            fprintf(stderr, "costs: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    double x;                   /* a sample not kept (warm-up) */
    CK(MPI_Win_lock_all(0, win));
    CK(MPI_Barrier(MPI_COMM_WORLD));

    /* notified access */
    for (int i = -warm; i < iters; i++) {
        const int64_t val = i + warm + 1;
#define KEEP(q) *(i >= 0 ? &t[q][i] : &x)
        if (rank == origin) {
            CK(MPI_Recv(NULL, 0, MPI_BYTE, target, READY, hs, MPI_STATUS_IGNORE));
            TIMED(KEEP(NOTIFY_ORIGIN), MPI_Put_notify(&val, 1, MPI_INT64_T, target, 0, 1,
                                                      MPI_INT64_T, win, NTAG));
            CK(MPI_Win_flush(target, win));
            CK(MPI_Recv(NULL, 0, MPI_BYTE, target, DONE, hs, MPI_STATUS_IGNORE));
        } else {
            double hit;
            TIMED(KEEP(NOTIFY_START), MPI_Start(&nreq));
            TIMED(KEEP(NOTIFY_MISS), MPI_Test(&nreq, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                fprintf(stderr, "costs: a notification matched before it was sent\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            CK(MPI_Send(NULL, 0, MPI_BYTE, origin, READY, hs));
            spin(delay);
            for (int n = 0;; n++) {
                TIMED(hit, MPI_Test(&nreq, &flag, MPI_STATUS_IGNORE));
                if (flag) {
                    KEEP(NOTIFY_HIT) = hit;
                    if (i >= 0)
                        polls[0][i] = n;
                    break;
                }
            }
            /* the data is visible once its notification matched */
            errors += *(volatile int64_t *) &wbuf[0] != val;
            CK(MPI_Send(NULL, 0, MPI_BYTE, origin, DONE, hs));
        }
    }

    /* two-sided */
    for (int i = -warm; i < iters; i++) {
        const int64_t val = i + warm + 1;
        int64_t in = 0;
        MPI_Request req;
        if (rank == origin) {
            CK(MPI_Recv(NULL, 0, MPI_BYTE, target, READY, hs, MPI_STATUS_IGNORE));
            TIMED(KEEP(SEND_ORIGIN), MPI_Isend(&val, 1, MPI_INT64_T, target, DATA,
                                               MPI_COMM_WORLD, &req));
            CK(MPI_Recv(NULL, 0, MPI_BYTE, target, DONE, hs, MPI_STATUS_IGNORE));
            TIMED(KEEP(SEND_WAIT), MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            double hit;
            TIMED(KEEP(RECV_POST), MPI_Irecv(&in, 1, MPI_INT64_T, origin, DATA, MPI_COMM_WORLD,
                                             &req));
            TIMED(KEEP(RECV_MISS), MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
            if (flag) {
                fprintf(stderr, "costs: a receive matched before its message was sent\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            CK(MPI_Send(NULL, 0, MPI_BYTE, origin, READY, hs));
            spin(delay);
            for (int n = 0;; n++) {
                TIMED(hit, MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                if (flag) {
                    KEEP(RECV_HIT) = hit;
                    if (i >= 0)
                        polls[1][i] = n;
                    break;
                }
            }
            errors += in != val;
            CK(MPI_Send(NULL, 0, MPI_BYTE, origin, DONE, hs));
        }
    }

    /* one-sided */
    for (int i = -warm; i < iters; i++) {
        const int64_t val = i + warm + 1;
        if (rank == origin) {
            CK(MPI_Recv(NULL, 0, MPI_BYTE, target, READY, hs, MPI_STATUS_IGNORE));
            TIMED(KEEP(PUT_ORIGIN), MPI_Put(&val, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, win));
            CK(MPI_Win_flush(target, win));
            TIMED(KEEP(FLUSH_IDLE), MPI_Win_flush(target, win));
            TIMED(KEEP(SYNC), MPI_Win_sync(win));
            CK(MPI_Send(NULL, 0, MPI_BYTE, target, DONE, hs));
        } else {
            /* as in the loops above: no MPI call while the origin puts */
            CK(MPI_Send(NULL, 0, MPI_BYTE, origin, READY, hs));
            spin(delay);
            CK(MPI_Recv(NULL, 0, MPI_BYTE, origin, DONE, hs, MPI_STATUS_IGNORE));
            CK(MPI_Win_sync(win));
            errors += *(volatile int64_t *) &wbuf[1] != val;
        }
    }
#undef KEEP
    CK(MPI_Win_unlock_all(win));

    /* medians in s; each rank fills the quantities it measured */
    double med[NQ], all[2 * NQ];
    for (int q = 0; q < NQ; q++)
        med[q] = qrank[q] == rank ? (median(t[q], iters) - clock_ns) * 1e-9 : 0;
    CK(MPI_Gather(med, NQ, MPI_DOUBLE, all, NQ, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    double clocks[2], med_polls[2] = { median(polls[0], iters), median(polls[1], iters) };
    CK(MPI_Gather(&clock_ns, 1, MPI_DOUBLE, clocks, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (rank == target)
        CK(MPI_Send(med_polls, 2, MPI_DOUBLE, origin, DONE, hs));
    else
        CK(MPI_Recv(med_polls, 2, MPI_DOUBLE, target, DONE, hs, MPI_STATUS_IGNORE));
    int all_errors = 0;
    CK(MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        const char *nolocal = getenv("MPIR_CVAR_NOLOCAL"), *prov = getenv("FI_PROVIDER");
        double v[NQ];
        for (int q = 0; q < NQ; q++)
            v[q] = all[qrank[q] * NQ + q];
        printf("# costs: path MPIR_CVAR_NOLOCAL=%s FI_PROVIDER=%s; 8-byte messages; median of "
               "%d iterations (%d warm-up) per call, s\n", nolocal ? nolocal : "(unset)",
               prov ? prov : "(unset)", iters, warm);
        printf("# clock pair %.0f ns (origin), %.0f ns (target), taken off each sample; target "
               "spins %g us before polling, then MPI_Test misses before the hit (median): "
               "notify %g, recv %g\n", clocks[0], clocks[1], delay_us, med_polls[0], med_polls[1]);
        for (int q = 0; q < NQ; q++) {
            printf("%s=%.4g\n", qname[q], v[q]);
            if (q == NOTIFY_HIT) {
                printf("notify_match=%.4g\n", v[NOTIFY_HIT] - v[NOTIFY_MISS]);
                printf("notify_complete=%.4g\n", v[NOTIFY_START] + v[NOTIFY_MISS]);
            } else if (q == RECV_HIT) {
                printf("recv_match=%.4g\n", v[RECV_HIT] - v[RECV_MISS]);
                printf("recv_complete=%.4g\n", v[RECV_POST] + v[RECV_MISS]);
            }
        }
        if (all_errors)
            fprintf(stderr, "costs: %d messages had the wrong data\n", all_errors);
    }
    if (nreq != MPI_REQUEST_NULL)
        CK(MPI_Request_free(&nreq));
    CK(MPI_Win_free(&win));
    CK(MPI_Comm_free(&hs));
    for (int q = 0; q < NQ; q++)
        free(t[q]);
    free(polls[0]);
    free(polls[1]);
    MPI_Finalize();
    return all_errors != 0 && rank == 0;
}

/* What idle windows cost a program (issue 32): 8-byte MPI_Send/MPI_Recv
 * (and, where the library has it, MPI_Put_notify) ping-pong latency with
 * 0, 10, 100, 1,000 and 2,000 ordinary windows allocated and never used
 * (MPICH 4.0.2 allows 2,045: each window takes a context id), and
 * the time per window of MPI_Win_allocate, MPI_Win_create and MPI_Win_free.
 * Builds against stock MPICH too (no notified mode there), so
 * bench/idle-bench.sh runs the same program on both in one run.
 *
 *   idle_windows [-counts 0,10,100,1000,2000] [-iters 2000] [-create 300]
 *                [-reps 5] [-modes sendrecv,put_notify|none] [-csv FILE]
 *
 * Latency: the modes chosen alternate in rounds of 100 round trips, each
 * timed on its own (compare one mode of two builds with -modes MODE: the
 * other mode's rounds in between change what the caches hold); the median half round trip (µs) over all of them, with the
 * 10th and 90th percentiles.  Windows: -create windows of 64 bytes
 * allocated (then freed, then created over user memory and freed) back to
 * back after a barrier; the time per window, the median of -reps runs, as
 * rank 0 sees it.  Any number of ranks; the ping-pong is between ranks 0
 * and 1, the others idle in the windows' collectives.
 */
#include "bench_util.h"

#ifdef MPI_NOTIFY_TAG_UB
#define HAVE_NOTIFY 1
#else
#define HAVE_NOTIFY 0
#endif

enum { SENDRECV, PUT_NOTIFY, NMODES };
static const char *const mode_names[NMODES] = { "sendrecv", "put_notify" };

#define ROUND 100
#define WIN_BYTES 64

static int rank, nprocs, peer;

/* one round trip of mode between ranks 0 and 1 */
static void round_trip(int mode, char *buf, MPI_Win win, MPI_Request * nreq)
{
    for (int half = 0; half < 2; half++) {
        int sending = (half == 0) == (rank == 0);
        if (mode == SENDRECV) {
            if (sending)
                MPI_Send(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            else
                MPI_Recv(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
#if HAVE_NOTIFY
        else if (sending) {
            MPI_Put_notify(buf, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win, 1);
            MPI_Win_flush(peer, win);
        } else {
            MPI_Start(nreq);
            MPI_Wait(nreq, MPI_STATUS_IGNORE);
        }
#else
        (void) win;
        (void) nreq;
#endif
    }
}

static int use[NMODES];

static void latency(int idle, long iters, char *buf, MPI_Win win, MPI_Request * nreq, FILE * csv)
{
    int nmodes = HAVE_NOTIFY ? NMODES : 1;
    long rounds = (iters + ROUND - 1) / ROUND, n = rounds * ROUND;
    double *t[NMODES];
    for (int m = 0; m < nmodes; m++)
        t[m] = malloc(n * sizeof(double));

    if (rank < 2) {
        for (int m = 0; m < nmodes; m++)        /* warm-up */
            for (int i = 0; use[m] && i < ROUND; i++)
                round_trip(m, buf, win, nreq);
        for (long r = 0; r < rounds; r++)
            for (int m = 0; m < nmodes; m++)
                for (int i = 0; use[m] && i < ROUND; i++) {
                    double t0 = MPI_Wtime();
                    round_trip(m, buf, win, nreq);
                    t[m][r * ROUND + i] = (MPI_Wtime() - t0) / 2 * 1e6;
                }
    }
    for (int m = 0; m < nmodes; m++) {
        if (rank == 0 && use[m]) {
            double med, p10, p90;
            bu_stats(t[m], (int) n, &med, &p10, &p90);
            printf("latency  idle=%-6d %-11s median %8.3f us  p10 %8.3f  p90 %8.3f  (n=%ld)\n",
                   idle, mode_names[m], med, p10, p90, n);
            if (csv)
                fprintf(csv, "latency,%d,%d,%s,%.4f,%.4f,%.4f\n", nprocs, idle, mode_names[m],
                        med, p10, p90);
        }
        free(t[m]);
    }
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* time per window of allocate, free, create, free: medians of reps runs */
static int churn(int count, int reps, FILE * csv)
{
    enum { ALLOC, FREE_ALLOC, CREATE, FREE_CREATE, NPH };
    static const char *const ph[NPH] = { "MPI_Win_allocate", "MPI_Win_free(allocated)",
        "MPI_Win_create", "MPI_Win_free(created)"
    };
    MPI_Win *w = malloc(count * sizeof(MPI_Win));
    char *mem = calloc((size_t) count, WIN_BYTES);
    double *t[NPH];
    if (!w || !mem)
        return 1;
    for (int p = 0; p < NPH; p++)
        t[p] = malloc(reps * sizeof(double));
    for (int r = 0; r < reps; r++) {
        double t0;
        void *base;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < count; i++)
            MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w[i]);
        t[ALLOC][r] = (MPI_Wtime() - t0) / count * 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < count; i++)
            MPI_Win_free(&w[i]);
        t[FREE_ALLOC][r] = (MPI_Wtime() - t0) / count * 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < count; i++)
            MPI_Win_create(mem + (size_t) i * WIN_BYTES, WIN_BYTES, 1, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &w[i]);
        t[CREATE][r] = (MPI_Wtime() - t0) / count * 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < count; i++)
            MPI_Win_free(&w[i]);
        t[FREE_CREATE][r] = (MPI_Wtime() - t0) / count * 1e6;
    }
    for (int p = 0; p < NPH; p++) {
        double med, p10, p90;
        bu_stats(t[p], reps, &med, &p10, &p90);
        if (rank == 0) {
            printf("windows  ranks=%d %-24s %8.2f us per window (median of %d runs of %d)\n",
                   nprocs, ph[p], med, reps, count);
            if (csv)
                fprintf(csv, "window,%d,%d,%s,%.4f,%.4f,%.4f\n", nprocs, count, ph[p], med,
                        p10, p90);
        }
        free(t[p]);
    }
    fflush(stdout);
    free(w);
    free(mem);
    return 0;
}

int main(int argc, char **argv)
{
    const char *counts_arg = "0,10,100,1000,2000", *csv_path = NULL, *modes = NULL;
    long iters = 2000;
    int create = 300, reps = 5;
    bu_opt_t opts[] = {
        {"-counts", BU_STRING, &counts_arg, "idle windows to measure with, ascending"},
        {"-iters", BU_LONG, &iters, "timed round trips per mode and count (>= 1000 for claims)"},
        {"-create", BU_INT, &create, "windows per creation/free run (0: skip)"},
        {"-reps", BU_INT, &reps, "creation/free runs"},
        {"-modes", BU_STRING, &modes, "sendrecv, put_notify (both), or none"},
        {"-csv", BU_STRING, &csv_path, "also write CSV rows to FILE"},
    };
    int counts[16], ncounts;

    if (bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                "idle_windows [-counts LIST] [-iters N] [-create N] [-reps N] [-modes LIST] "
                "[-csv FILE]", &rank, &nprocs)) {
        MPI_Finalize();
        return 1;
    }
    for (int m = 0; m < NMODES; m++)
        use[m] = m == SENDRECV || HAVE_NOTIFY;
    if (modes && strcmp(modes, "none") == 0)
        memset(use, 0, sizeof(use));
    else if (modes && bu_parse_modes(modes, mode_names, HAVE_NOTIFY ? NMODES : 1, use)) {
        MPI_Finalize();
        return 1;
    }
    peer = rank == 0 ? 1 : 0;
    ncounts = bu_parse_int_list(counts_arg, counts, BU_NELEMS(counts), 0, "-counts");
    if (nprocs < 2 || ncounts <= 0 || iters < 1 || create < 0 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "idle_windows: needs 2+ ranks, ascending -counts, positive -iters "
                    "and -reps\n");
        MPI_Finalize();
        return 1;
    }
    for (int i = 1; i < ncounts; i++)
        if (counts[i] < counts[i - 1]) {
            if (rank == 0)
                fprintf(stderr, "idle_windows: -counts must ascend\n");
            MPI_Finalize();
            return 1;
        }
    FILE *csv = rank == 0 && csv_path ?
        bu_csv_open(csv_path, "what,ranks,count,mode,median,p10,p90") : NULL;

    if (rank == 0)
        printf("# idle_windows: %d ranks, %s, 8-byte ping-pong between ranks 0 and 1\n",
               nprocs, HAVE_NOTIFY ? "Notified Access build" : "no notified access (stock)");

    /* the window the notified mode uses, created before the idle ones */
    char *buf = calloc(1, 8), *wbase;
    MPI_Win win;
    MPI_Request nreq = MPI_REQUEST_NULL;
    MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
    MPI_Win_lock_all(0, win);
#if HAVE_NOTIFY
    if (rank < 2)
        MPI_Notify_init(win, peer, 1, 1, &nreq);
#endif

    MPI_Win *idle = NULL;
    int nidle = 0;
    for (int c = 0; c < ncounts; c++) {
        MPI_Win *grown = realloc(idle, (counts[c] + 1) * sizeof(MPI_Win));
        if (!grown)
            MPI_Abort(MPI_COMM_WORLD, 2);
        idle = grown;
        for (; nidle < counts[c]; nidle++) {
            void *base;
            MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &idle[nidle]);
        }
        latency(nidle, iters, buf, win, &nreq, csv);
    }
    while (nidle > 0)
        MPI_Win_free(&idle[--nidle]);
    free(idle);

#if HAVE_NOTIFY
    if (nreq != MPI_REQUEST_NULL)
        MPI_Request_free(&nreq);
#endif
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    if (create > 0 && churn(create, reps, csv))
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (csv)
        fclose(csv);
    free(buf);
    MPI_Finalize();
    return 0;
}

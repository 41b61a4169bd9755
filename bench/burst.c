/* Bursts before a flush (2 ranks): each half round trip, the sender sends K
 * messages of BYTES to the receiver, which replies the same way once it has
 * all K.  Modes take turns round by round, so ratios come from one run.
 *
 *   isend        K MPI_Isend + MPI_Waitall | K pre-posted MPI_Irecv + MPI_Waitall
 *   put_notify   K MPI_Put_notify (one slot each) + MPI_Win_flush | one request
 *                counting K notifications: MPI_Start + MPI_Wait
 *
 * A burst's flush needs the target's answer for its last put; on the eager
 * path that answer should ride on the reply, as it does for one put
 * (doc/benchmarks.md).  Reported: median half
 * round trip in microseconds per mode, and put_notify's ratio to isend.
 *
 *   burst [-k K] [-size BYTES] [-n ITERS] [-rounds R] [-csv FILE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { ISEND, PUT_NOTIFY, NMODES };
static const char *const mode_names[NMODES] = { "isend", "put_notify" };

int main(int argc, char **argv)
{
    int k = 2, size = 1024, iters = 1000, rounds = 10, warmup = 100, rank, nranks;
    const char *csv = NULL;
    const bu_opt_t opts[] = {
        {"-k", BU_INT, &k, "messages per burst (2, at most 64)"},
        {"-size", BU_INT, &size, "bytes per message (1024)"},
        {"-n", BU_INT, &iters, "timed round trips per mode (1000)"},
        {"-rounds", BU_INT, &rounds, "rounds the modes take turns in (10, at most ITERS)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "burst [-k K] [-size BYTES] [-n ITERS] [-rounds R] [-csv FILE]",
                     &rank, &nranks);
    if (!rc && (k < 1 || k > 64 || size < 1 || iters < 1 || rounds < 1 || rounds > iters ||
                nranks != 2)) {
        if (rank == 0)
            fprintf(stderr, "burst: need 2 processes, 1 <= K <= 64, BYTES >= 1 and "
                    "1 <= R <= ITERS\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    int peer = 1 - rank, errors = 0;
    size_t bytes = (size_t) k * size;
    char *wbuf, *sbuf = malloc(bytes), *rbuf = malloc(bytes);
    double *t[NMODES];
    MPI_Win win;
    MPI_Request nreq, reqs[64];
    MPI_Status sts[64];         /* not MPI_STATUSES_IGNORE: gcc 12 warns on it */
    MPI_Win_allocate((MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    memset(wbuf, 0, bytes);
    MPI_Notify_init(win, peer, 1, k, &nreq);
    for (int m = 0; m < NMODES; m++)
        t[m] = malloc(iters * sizeof(double));
    MPI_Win_lock_all(0, win);

    int per_round = iters / rounds, done[NMODES] = { 0 };
    for (int r = 0; r < rounds; r++) {
        for (int mode = 0; mode < NMODES; mode++) {
            int n = r == rounds - 1 ? iters - done[mode] : per_round;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = -(r == 0 ? warmup : 0); i < n; i++) {
                char mark = (char) (i + 3 * r + mode);
                double t0 = MPI_Wtime();
                for (int half = 0; half < 2; half++) {
                    if ((half == 0) == (rank == 0)) {
                        memset(sbuf, mark, bytes);
                        for (int j = 0; j < k; j++) {
                            if (mode == ISEND)
                                MPI_Isend(sbuf + (size_t) j * size, size, MPI_BYTE, peer, j,
                                          MPI_COMM_WORLD, &reqs[j]);
                            else
                                MPI_Put_notify(sbuf + (size_t) j * size, size, MPI_BYTE, peer,
                                               (MPI_Aint) j * size, size, MPI_BYTE, win, 1);
                        }
                        if (mode == ISEND)
                            MPI_Waitall(k, reqs, sts);
                        else
                            MPI_Win_flush(peer, win);
                    } else {
                        char *in = mode == ISEND ? rbuf : wbuf;
                        if (mode == ISEND) {
                            for (int j = 0; j < k; j++)
                                MPI_Irecv(rbuf + (size_t) j * size, size, MPI_BYTE, peer, j,
                                          MPI_COMM_WORLD, &reqs[j]);
                            MPI_Waitall(k, reqs, sts);
                        } else {
                            MPI_Start(&nreq);
                            MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                        }
                        /* every message of the burst is in place */
                        if (in[0] != mark || in[bytes - 1] != mark)
                            errors++;
                    }
                }
                if (i >= 0)
                    t[mode][done[mode] + i] = (MPI_Wtime() - t0) / 2 * 1e6;
            }
            done[mode] += n;
        }
    }
    MPI_Win_unlock_all(win);

    int all_errors;
    MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double med[NMODES], p10[NMODES], p90[NMODES];
        FILE *out = bu_csv_open(csv, "mode,k,bytes,median_us,p10_us,p90_us,ratio_to_isend");
        printf("# burst: %d messages of %d bytes per half round trip, %d round trips per mode "
               "in %d rounds\n", k, size, iters, rounds);
        printf("%-12s %4s %8s %10s %10s %10s %9s\n", "mode", "k", "bytes", "median_us",
               "p10_us", "p90_us", "vs_isend");
        for (int mode = 0; mode < NMODES; mode++)
            bu_stats(t[mode], iters, &med[mode], &p10[mode], &p90[mode]);
        for (int mode = 0; mode < NMODES; mode++) {
            printf("%-12s %4d %8d %10.3f %10.3f %10.3f %9.2f\n", mode_names[mode], k, size,
                   med[mode], p10[mode], p90[mode], med[mode] / med[ISEND]);
            if (out)
                fprintf(out, "%s,%d,%d,%.3f,%.3f,%.3f,%.4f\n", mode_names[mode], k, size,
                        med[mode], p10[mode], p90[mode], med[mode] / med[ISEND]);
        }
        if (out)
            fclose(out);
        printf(all_errors ? "Found %d errors\n" : "No Errors\n", all_errors);
    }
    MPI_Request_free(&nreq);
    MPI_Win_free(&win);
    for (int m = 0; m < NMODES; m++)
        free(t[m]);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}

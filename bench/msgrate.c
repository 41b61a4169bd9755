/* Notification rate and matching cost (2 ranks; rank 0 origin, rank 1 target).
 *
 *   msgrate [-n NOTIFICATIONS] [-reps R] [-posted P1,P2,...] [-csv FILE]
 *
 * For each P, the target first starts P exact-match requests for tags the
 * origin never uses (1..P), then one counting request for tag 0 expecting N
 * notifications; the origin issues N 8-byte notified puts with tag 0.  The
 * target times from the barrier that releases the origin to the completion of
 * the counting request.  With the per-(source, tag) buckets the cost per
 * notification should not depend on P.  Reported: median over R repetitions
 * of ns per notification and notifications per second.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"

int main(int argc, char **argv)
{
    int n = 100000, reps = 5, rank, size, posted[128], nposted;
    const char *posted_list = "1,100,10000", *csv = NULL;
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &n, "notifications per repetition (100000)"},
        {"-reps", BU_INT, &reps, "repetitions, the median is reported (5)"},
        {"-posted", BU_STRING, &posted_list, "comma-separated numbers of requests posted "
         "for other tags (1,100,10000)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "msgrate [-n NOTIFICATIONS] [-reps R] [-posted P1,P2,...] [-csv FILE]",
                     &rank, &size);
    if (!rc && (nposted = bu_parse_int_list(posted_list, posted, BU_NELEMS(posted), 0,
                                            "-posted")) < 0)
        rc = 1;
    if (!rc && (n < 1 || reps < 1)) {
        if (rank == 0)
            fprintf(stderr, "msgrate: need NOTIFICATIONS >= 1 and R >= 1\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "msgrate: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *buf;
    MPI_Win win;
    MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    MPI_Win_lock_all(0, win);
    double *t = malloc(reps * sizeof(double));
    FILE *out = NULL;
    if (rank == 1)
        out = bu_csv_open(csv, "posted,ns_per_notification,notifications_per_s");
    if (rank == 1)
        printf("# msgrate: %d notifications of 8 B per repetition, median of %d\n"
               "%10s %14s %16s\n", n, reps, "posted", "ns_per_notif", "notif_per_sec");

    for (int k = 0; k < nposted; k++) {
        int p = posted[k];
        MPI_Request *others = NULL, counting;
        if (rank == 1) {
            others = malloc((p > 0 ? p : 1) * sizeof(MPI_Request));
            for (int i = 0; i < p; i++)
                MPI_Notify_init(win, 0, i + 1, 1, &others[i]);
            if (p > 0)
                MPI_Startall(p, others);
            MPI_Notify_init(win, 0, 0, n, &counting);
        }
        for (int r = 0; r < reps; r++) {
            if (rank == 1)
                MPI_Start(&counting);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                double v = 1.0;
                for (int i = 0; i < n; i++) {
                    MPI_Put_notify(&v, 1, MPI_DOUBLE, 1, i % 8, 1, MPI_DOUBLE, win, 0);
                    if (i % 4096 == 4095)       /* bound outstanding operations */
                        MPI_Win_flush(1, win);
                }
                MPI_Win_flush(1, win);
            } else {
                MPI_Wait(&counting, MPI_STATUS_IGNORE);
                t[r] = MPI_Wtime() - t0;
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (rank == 1) {
            double med;
            bu_stats(t, reps, &med, NULL, NULL);
            printf("%10d %14.1f %16.0f\n", p, med / n * 1e9, n / med);
            if (out)
                fprintf(out, "%d,%.1f,%.0f\n", p, med / n * 1e9, n / med);
            fflush(stdout);
            for (int i = 0; i < p; i++) {
                MPI_Cancel(&others[i]);
                MPI_Wait(&others[i], MPI_STATUS_IGNORE);
                MPI_Request_free(&others[i]);
            }
            MPI_Request_free(&counting);
            free(others);
        }
    }
    if (out)
        fclose(out);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(t);
    MPI_Finalize();
    return 0;
}

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
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = 100000, reps = 5, rank, size;
    char posted_list[256] = "1,100,10000";
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-posted") && i + 1 < argc)
            snprintf(posted_list, sizeof(posted_list), "%s", argv[++i]);
        else if (!strcmp(argv[i], "-csv") && i + 1 < argc)
            csv = argv[++i];
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
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
    if (rank == 1 && csv && (out = fopen(csv, "w")))
        fprintf(out, "posted,ns_per_notification,notifications_per_s\n");
    if (rank == 1)
        printf("# msgrate: %d notifications of 8 B per repetition, median of %d\n"
               "%10s %14s %16s\n", n, reps, "posted", "ns_per_notif", "notif_per_sec");

    char *save, *tok = strtok_r(posted_list, ",", &save);
    for (; tok; tok = strtok_r(NULL, ",", &save)) {
        int p = atoi(tok);
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
            qsort(t, reps, sizeof(double), cmp_double);
            double med = t[reps / 2];
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

/* Many unmatched notifications, then matched: none lost, memory bounded.
 * Ranks 1..P-1 each send N/(P-1) zero-byte notified puts to rank 0 with
 * tags cycling over NTAGS before rank 0 starts any request; then rank 0
 * matches them with one exact request per (origin, tag), and a wildcard
 * request must find nothing left.  Rank 0 reports the resident memory the
 * queue cost per notification.   args: [N] (default 1,000,000) */
#include "na_test.h"

#define NTAGS 16

static long rss_kib(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * 4;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int norigins = size - 1;
    long per = n / norigins;
    na_win_t w;
    na_win_create(MPI_WIN_FLAVOR_ALLOCATE, 8, MPI_COMM_WORLD, &w);
    long before = rss_kib();

    MPI_OK(MPI_Win_lock_all(0, w.win));
    if (rank > 0) {
        for (long i = 0; i < per; i++) {
            MPI_OK(MPI_Put_notify(NULL, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, w.win, (int) (i % NTAGS)));
            if (i % 4096 == 4095)
                MPI_OK(MPI_Win_flush(0, w.win));
        }
        MPI_OK(MPI_Win_flush(0, w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        /* everything flushed is complete at the target: one progress pass
         * (inside MPI_Start) takes in what is still in flight on a ring */
        long queued_kib = rss_kib() - before;
        MPI_Request *reqs = malloc(sizeof(MPI_Request) * norigins * NTAGS);
        MPI_Status *sts = malloc(sizeof(MPI_Status) * norigins * NTAGS);
        for (int o = 0; o < norigins; o++)
            for (int t = 0; t < NTAGS; t++) {
                long cnt = per / NTAGS + (t < per % NTAGS);
                MPI_OK(MPI_Notify_init(w.win, o + 1, t, (int) cnt, &reqs[o * NTAGS + t]));
            }
        MPI_OK(MPI_Startall(norigins * NTAGS, reqs));
        /* no deadline, which a busy machine (or a sanitized build) could
         * pass: one lost notification hangs, and the suite's timeout fails
         * the test */
        int done = 0, said = 0;
        double t0 = MPI_Wtime();
        while (!done) {
            MPI_OK(MPI_Testall(norigins * NTAGS, reqs, &done, sts));
            if (!done && !said && MPI_Wtime() - t0 > 30) {
                fprintf(stderr, "[0] not every notification matched after 30 s; waiting on\n");
                said = 1;
            }
        }
        for (int i = 0; i < norigins * NTAGS; i++)
            MPI_Request_free(&reqs[i]);
        MPI_Request any;
        int flag = 1;
        MPI_OK(MPI_Notify_init(w.win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &any));
        MPI_OK(MPI_Start(&any));
        MPI_OK(MPI_Test(&any, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a notification more than was sent");
        MPI_OK(MPI_Cancel(&any));
        MPI_OK(MPI_Wait(&any, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&any));
        printf("unexpected_flood: %ld notifications from %d origins queued and matched; "
               "resident memory grew %ld KiB while queued (%.1f bytes per notification)\n",
               per * norigins, norigins, queued_kib,
               queued_kib * 1024.0 / (double) (per * norigins));
        free(reqs);
        free(sts);
    }
    MPI_OK(MPI_Win_unlock_all(w.win));
    na_win_free(&w);
    return na_finish();
}

/* A flood of unexpected notifications (2 ranks): rank 0 sends NFLOOD
 * notified puts with tags 0..NTAGS-1 before rank 1 posts anything; then
 * rank 1 matches them with one counting request per tag.  None may be lost,
 * none counted twice; the memory the queue took is reported per entry. */
#include "na_test.h"

#define NFLOOD 100000
#define NTAGS 1000

static long rss_kib(void)
{
    long kib = -1;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    int rank, *buf;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Win_allocate(NTAGS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));
    long before = rss_kib();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        static int vals[1024];  /* a slot is reused only after the flush below */
        for (int i = 0; i < NFLOOD; i++) {
            vals[i % 1024] = i;
            MPI_OK(MPI_Put_notify(&vals[i % 1024], 1, MPI_INT, 1, i % NTAGS, 1, MPI_INT, win,
                                  i % NTAGS));
            if (i % 1024 == 1023)       /* bound the origin's outstanding operations */
                MPI_OK(MPI_Win_flush(1, win));
        }
        MPI_OK(MPI_Win_flush(1, win));
    }
    /* the flush at the origin ends after every notification was delivered */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        long after = rss_kib();
        printf("flood: %d queued notifications, RSS grew %ld KiB (%.1f bytes per entry)\n",
               NFLOOD, after - before, (after - before) * 1024.0 / NFLOOD);
        MPI_Request *reqs = malloc(NTAGS * sizeof(MPI_Request));
        MPI_Status *sts = malloc(NTAGS * sizeof(MPI_Status));
        for (int t = 0; t < NTAGS; t++) {
            MPI_OK(MPI_Notify_init(win, 0, t, NFLOOD / NTAGS, &reqs[t]));
        }
        MPI_OK(MPI_Startall(NTAGS, reqs));
        int flag = 0;
        MPI_OK(MPI_Testall(NTAGS, reqs, &flag, sts));
        CHECK(flag, "not all %d notifications were queued", NFLOOD);
        if (!flag)
            MPI_OK(MPI_Waitall(NTAGS, reqs, sts));
        for (int t = 0; t < NTAGS; t++)
            CHECK(sts[t].MPI_TAG == t, "request %d matched tag %d", t, sts[t].MPI_TAG);
        /* nothing left over */
        MPI_Request any;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &any));
        MPI_OK(MPI_Start(&any));
        MPI_OK(MPI_Test(&any, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a notification was counted twice");
        MPI_OK(MPI_Cancel(&any));
        MPI_OK(MPI_Wait(&any, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&any));
        for (int t = 0; t < NTAGS; t++)
            MPI_OK(MPI_Request_free(&reqs[t]));
        free(reqs);
        free(sts);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

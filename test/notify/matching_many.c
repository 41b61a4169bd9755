/* Many posted exact-match requests (2 ranks): rank 1 starts NREQ requests
 * for distinct tags; rank 0 notifies them in reverse start order, with a
 * wildcard request started last in between.  Each request must get exactly
 * its own tag; the wildcard only what no exact request wanted.  (The cost
 * per notification at 1..10,000 posted requests is measured in bench/.) */
#include "na_test.h"

#define NREQ 10000

int main(int argc, char **argv)
{
    int rank, *buf;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank == 1) {
        MPI_Request *reqs = malloc((NREQ + 1) * sizeof(MPI_Request));
        MPI_Status *sts = malloc((NREQ + 1) * sizeof(MPI_Status));
        for (int i = 0; i < NREQ; i++)
            MPI_OK(MPI_Notify_init(win, 0, i, 1, &reqs[i]));
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 3, &reqs[NREQ]));
        MPI_OK(MPI_Startall(NREQ + 1, reqs));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Waitall(NREQ + 1, reqs, sts));
        int bad = 0;
        for (int i = 0; i < NREQ; i++)
            if (sts[i].MPI_TAG != i || sts[i].MPI_SOURCE != 0)
                bad++;
        CHECK(bad == 0, "%d requests matched the wrong notification", bad);
        CHECK(sts[NREQ].MPI_TAG == NREQ + 2, "wildcard's last match has tag %d", sts[NREQ].MPI_TAG);
        for (int i = 0; i <= NREQ; i++)
            MPI_OK(MPI_Request_free(&reqs[i]));
        free(reqs);
        free(sts);
    } else {
        int v = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = NREQ - 1; i >= 0; i--) {
            MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, i));
            if (i == NREQ / 2)  /* no exact request wants these: the wildcard takes them */
                for (int k = NREQ; k < NREQ + 3; k++)
                    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, k));
            if (i % 1024 == 0)
                MPI_OK(MPI_Win_flush(1, win));
        }
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

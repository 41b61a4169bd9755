/* Many producers, one consumer, a tiny ring (run with
 * MPIR_CVAR_NOTIFY_SHM_RING_SIZE=4 and up to 9 ranks on one node): every
 * rank but 0 sends NPER notified puts to rank 0 with its own sequence number
 * as tag; rank 0 must see each producer's notifications complete and in
 * order.  Then every pair fills each other's rings at once: a producer that
 * finds a full ring must drive progress, or this deadlocks. */
#include "na_test.h"

#define NPER 300

/* origin buffers: never written while a put from them may be in flight */
static int seqs[NPER];

int main(int argc, char **argv)
{
    int rank, size, *buf;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < NPER; i++)
        seqs[i] = i;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));
    double t0 = MPI_Wtime();

    /* 1. flood of one consumer */
    if (rank == 0) {
        MPI_Request *reqs = malloc(size * sizeof(MPI_Request));
        int *next = calloc(size, sizeof(int)), left = (size - 1) * NPER, bad = 0;
        for (int r = 1; r < size; r++) {
            MPI_OK(MPI_Notify_init(win, r, MPI_ANY_TAG, 1, &reqs[r - 1]));
            MPI_OK(MPI_Start(&reqs[r - 1]));
        }
        while (left > 0) {
            int idx;
            MPI_Status st;
            MPI_OK(MPI_Waitany(size - 1, reqs, &idx, &st));
            int r = idx + 1;
            if (st.MPI_TAG != next[r] && bad++ < 5)
                CHECK(0, "producer %d: got seq %d, want %d", r, st.MPI_TAG, next[r]);
            next[r]++;
            left--;
            if (next[r] < NPER)
                MPI_OK(MPI_Start(&reqs[idx]));
        }
        for (int r = 1; r < size; r++)
            MPI_OK(MPI_Request_free(&reqs[r - 1]));
        free(reqs);
        free(next);
    } else {
        for (int i = 0; i < NPER; i++)
            MPI_OK(MPI_Put_notify(&seqs[i], 1, MPI_INT, 0, rank, 1, MPI_INT, win, i));
        MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. everybody floods its neighbour while being flooded */
    {
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, from, 7, NPER, &req));
        MPI_OK(MPI_Start(&req));
        for (int i = 0; i < NPER; i++)
            MPI_OK(MPI_Put_notify(&seqs[i], 1, MPI_INT, to, rank, 1, MPI_INT, win, 7));
        MPI_OK(MPI_Wait(&req, &st));
        CHECK(st.MPI_SOURCE == from, "ring exchange: source %d", st.MPI_SOURCE);
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring_flood: %d producers x %d notifications in %.2f s\n", size - 1, NPER,
               MPI_Wtime() - t0);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

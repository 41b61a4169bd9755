/* Counting requests (expected_count > 1), several origins (run with 3-4
 * ranks): rank 0 is the target.
 *  - a request for (ANY_SOURCE, tag, K*(size-1)) completes only when every
 *    origin's K puts are there, and all their data is visible;
 *  - status holds source, tag and byte count of the last matched one. */
#include "na_test.h"

#define K 50

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(size * K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &buf, &win));
    na_expect_path(win);
    for (int i = 0; i < size * K; i++)
        buf[i] = -1;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. many origins, one counting request */
    if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 42, K * (size - 1), &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, &st));
        int bad = 0;
        for (int r = 1; r < size; r++)
            for (int i = 0; i < K; i++)
                if (buf[r * K + i] != r * 1000 + i)
                    bad++;
        CHECK(bad == 0, "%d elements missing when the counting request completed", bad);
        CHECK(st.MPI_TAG == 42 && st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size,
              "status tag %d source %d", st.MPI_TAG, st.MPI_SOURCE);
        MPI_OK(MPI_Request_free(&req));
    } else {
        /* one origin buffer per put: none may change before the flush */
        int vals[K];
        for (int i = 0; i < K; i++) {
            vals[i] = rank * 1000 + i;
            MPI_OK(MPI_Put_notify(&vals[i], 1, MPI_INT, 0, rank * K + i, 1, MPI_INT, win, 42));
        }
        MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. status of the last match: origin 1 sends K puts of 1..K ints,
     * the exact request for origin 1 reports the last one */
    if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        int bytes;
        MPI_OK(MPI_Notify_init(win, 1, 43, K, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, &st));
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 43 && bytes == K * (int) sizeof(int),
              "last match status src %d tag %d bytes %d", st.MPI_SOURCE, st.MPI_TAG, bytes);
        MPI_Get_count(&st, MPI_INT, &bytes);
        CHECK(bytes == K, "MPI_Get_count(MPI_INT) = %d", bytes);
        MPI_OK(MPI_Request_free(&req));
    } else if (rank == 1) {
        int src[K];
        for (int i = 0; i < K; i++)
            src[i] = i;
        for (int n = 1; n <= K; n++)
            MPI_OK(MPI_Put_notify(src, n, MPI_INT, 0, 0, n, MPI_INT, win, 43));
        MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. per-origin exact requests, restarted: each sees only its origin */
    if (rank == 0) {
        MPI_Request *reqs = malloc((size - 1) * sizeof(MPI_Request));
        for (int r = 1; r < size; r++)
            MPI_OK(MPI_Notify_init(win, r, 45, 5, &reqs[r - 1]));
        for (int round = 0; round < 3; round++) {
            MPI_OK(MPI_Startall(size - 1, reqs));
            MPI_Status *sts = malloc((size - 1) * sizeof(MPI_Status));
            MPI_OK(MPI_Waitall(size - 1, reqs, sts));
            for (int r = 1; r < size; r++)
                CHECK(sts[r - 1].MPI_SOURCE == r, "round %d: request for %d matched %d", round, r,
                      sts[r - 1].MPI_SOURCE);
            free(sts);
        }
        for (int r = 1; r < size; r++)
            MPI_OK(MPI_Request_free(&reqs[r - 1]));
        free(reqs);
    } else {
        int vals[15];
        for (int i = 0; i < 15; i++) {
            vals[i] = i;
            MPI_OK(MPI_Put_notify(&vals[i], 1, MPI_INT, 0, rank * K, 1, MPI_INT, win, 45));
        }
        MPI_OK(MPI_Win_flush(0, win));
    }

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

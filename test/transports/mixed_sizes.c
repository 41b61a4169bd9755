/* Sizes around the shared-memory rings' thresholds (16 B: copied without a
 * string instruction; 1 KiB: copied after the cell is claimed, longer ones
 * before), interleaved from one origin, contiguous and strided, keep issue
 * order and deliver their data (2 ranks; every size is its own slot so
 * data can be checked). */
#include "na_test.h"

static const int sizes[] = { 0, 1, 7, 8, 15, 16, 17, 24, 31, 32, 33, 40, 64, 100, 1023, 1024,
    1025, 4096, 65536, 3
};
#define NS (int) (sizeof(sizes) / sizeof(sizes[0]))
#define ROUNDS 40
#define SLOT 65536

int main(int argc, char **argv)
{
    int rank;
    char *buf;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Aint bytes = (MPI_Aint) ROUNDS * NS * SLOT;
    MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Datatype strided;       /* 8 bytes every 16 */
    MPI_Type_vector(4, 8, 16, MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    if (rank == 1) {
        MPI_Request req;
        MPI_Status st;
        int bad = 0;
        MPI_OK(MPI_Notify_init(win, 0, MPI_ANY_TAG, 1, &req));
        for (int k = 0; k < ROUNDS * NS; k++) {
            int n = sizes[k % NS];
            char *slot = buf + (MPI_Aint) k * SLOT;
            int strided_k = (k % 5 == 4);
            int want_bytes = strided_k ? 32 : n;
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st));
            int got;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (st.MPI_TAG != k || got != want_bytes)
                bad++;
            else if (strided_k) {
                for (int b = 0; b < 4; b++)
                    for (int j = 0; j < 8; j++)
                        if (slot[16 * b + j] != (char) (k + b * 8 + j))
                            bad++;
            } else if (n > 0 && (slot[0] != (char) k || slot[n - 1] != (char) (k + n - 1)))
                bad++;
            if (bad && bad < 3)
                CHECK(0, "notification %d: tag %d bytes %d (want %d)", k, st.MPI_TAG, got,
                      want_bytes);
        }
        CHECK(bad == 0, "%d notifications out of order or with wrong data", bad);
        MPI_OK(MPI_Request_free(&req));
    } else if (rank == 0) {
        char *src = malloc(SLOT);
        for (int k = 0; k < ROUNDS * NS; k++) {
            int n = sizes[k % NS];
            for (int j = 0; j < SLOT && j < 65536; j++)
                src[j] = (char) (k + j);
            if (k % 5 == 4)     /* 32 bytes, strided at the target */
                MPI_OK(MPI_Put_notify(src, 32, MPI_BYTE, 1, (MPI_Aint) k * SLOT, 1, strided, win,
                                      k));
            else
                MPI_OK(MPI_Put_notify(src, n, MPI_BYTE, 1, (MPI_Aint) k * SLOT, n, MPI_BYTE, win,
                                      k));
            MPI_OK(MPI_Win_flush_local(1, win));
        }
        MPI_OK(MPI_Win_flush(1, win));
        free(src);
    }
    MPI_Type_free(&strided);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

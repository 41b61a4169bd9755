/* Non-overtaking: notifications from one origin to one target through one
 * window arrive in issue order.  Every rank but 0 sends NPUTS notified puts
 * with increasing tags to rank 0; every 97th one is large (256 KiB), so its
 * data takes a different (pipelined) path than the small ones around it.
 * Rank 0 matches them one at a time per origin and checks tag, size and data. */
#include "na_test.h"

#define NPUTS 10000
#define BIG (32 * 1024)         /* ints: beyond every eager limit */

static int size_of(int i)
{
    return (i % 97 == 5) ? BIG : 1 + i % 4;
}

/* every put has its own target slot, so the target can check the data of
 * put i whatever the origin has issued since */
static MPI_Aint slot_of(int i, int nputs)
{
    return (i % 97 == 5) ? (MPI_Aint) nputs * 4 + (MPI_Aint) (i / 97) * BIG : (MPI_Aint) i * 4;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nputs = NPUTS / (size - 1);     /* keep 3-4 rank runs short */
    int *buf;
    MPI_Win win;
    MPI_Aint per_origin = (MPI_Aint) nputs * 4 + (MPI_Aint) (nputs / 97 + 1) * BIG;
    MPI_OK(MPI_Win_allocate((MPI_Aint) size * per_origin * sizeof(int), sizeof(int),
                            MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_Request *reqs = malloc(size * sizeof(MPI_Request));
        int *next = calloc(size, sizeof(int));
        for (int r = 1; r < size; r++) {
            MPI_OK(MPI_Notify_init(win, r, MPI_ANY_TAG, 1, &reqs[r - 1]));
            MPI_OK(MPI_Start(&reqs[r - 1]));
        }
        int remaining = (size - 1) * nputs, errs = 0;
        while (remaining > 0) {
            int idx;
            MPI_Status st;
            MPI_OK(MPI_Waitany(size - 1, reqs, &idx, &st));
            int r = idx + 1, i = next[r]++, bytes;
            int *slot = buf + r * per_origin + slot_of(i, nputs);
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            if (st.MPI_TAG != i || bytes != size_of(i) * (int) sizeof(int) ||
                slot[0] != i || slot[size_of(i) - 1] != i) {
                if (errs++ < 5)
                    CHECK(0, "origin %d put %d: got tag %d, %d bytes, data %d..%d", r, i,
                          st.MPI_TAG, bytes, slot[0], slot[size_of(i) - 1]);
            }
            remaining--;
            if (next[r] < nputs)
                MPI_OK(MPI_Start(&reqs[idx]));
        }
        CHECK(errs == 0, "%d notifications out of order or with wrong data", errs);
        for (int r = 1; r < size; r++)
            MPI_OK(MPI_Request_free(&reqs[r - 1]));
        free(reqs);
        free(next);
    } else {
        /* a source slot per put, so nothing waits for local completion and
         * large and small transfers overlap (the case that reorders) */
        int *src = malloc(per_origin * sizeof(int));
        for (int i = 0; i < nputs; i++) {
            int n = size_of(i);
            int *s = src + slot_of(i, nputs);
            s[0] = s[n - 1] = i;
            MPI_OK(MPI_Put_notify(s, n, MPI_INT, 0, rank * per_origin + slot_of(i, nputs), n,
                                  MPI_INT, win, i));
            if (i % 1024 == 1023)       /* bound the outstanding operations */
                MPI_OK(MPI_Win_flush(0, win));
        }
        MPI_OK(MPI_Win_flush(0, win));
        free(src);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

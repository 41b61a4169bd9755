/* Completion semantics at the target, for every window flavour:
 *  - put: the data is in target memory when the notify request completes;
 *  - get: the target may overwrite its buffer once the notify request
 *    completes, and the origin still reads the old value.
 * Rank 0 is the origin, every other rank a target.  Sizes cover the inline,
 * eager and pipelined/rendezvous cases of the transports. */
#include "na_test.h"

static const int counts[] = { 1, 1000, 262144 };

static void run(int flavor, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int maxc = 262144;
    na_win_t w;
    na_win_create(flavor, maxc * sizeof(int), comm, &w);
    int *buf = (int *) w.base;
    int *local = malloc(maxc * sizeof(int));
    MPI_OK(MPI_Win_lock_all(0, w.win));

    for (int ci = 0; ci < 3; ci++) {
        int n = counts[ci];
        /* ---- put ---- */
        for (int i = 0; i < n; i++)
            buf[i] = -1;
        MPI_OK(MPI_Win_sync(w.win));
        MPI_Barrier(comm);
        if (rank == 0) {
            for (int t = 1; t < size; t++) {
                for (int i = 0; i < n; i++)
                    local[i] = t * 1000003 + i + ci;
                MPI_OK(MPI_Put_notify(local, n, MPI_INT, t, w.disp_of[t], n, MPI_INT, w.win,
                                      100 + ci));
                MPI_OK(MPI_Win_flush(t, w.win));
            }
        } else {
            MPI_Request req;
            MPI_Status st;
            int bytes;
            MPI_OK(MPI_Notify_init(w.win, 0, 100 + ci, 1, &req));
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st));
            /* no synchronisation besides the notification */
            int bad = 0;
            for (int i = 0; i < n; i++)
                if (buf[i] != rank * 1000003 + i + ci)
                    bad++;
            CHECK(bad == 0, "%s put n=%d: %d elements not yet visible", na_flavor_name(flavor), n,
                  bad);
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 100 + ci && bytes == n * (int) sizeof(int),
                  "%s put status src=%d tag=%d bytes=%d", na_flavor_name(flavor), st.MPI_SOURCE,
                  st.MPI_TAG, bytes);
            MPI_OK(MPI_Request_free(&req));
        }
        MPI_Barrier(comm);

        /* ---- get ---- */
        for (int i = 0; i < n; i++)
            buf[i] = 7 * i + rank;      /* old value */
        MPI_OK(MPI_Win_sync(w.win));
        MPI_Barrier(comm);
        if (rank == 0) {
            for (int t = 1; t < size; t++) {
                memset(local, 0, n * sizeof(int));
                MPI_OK(MPI_Get_notify(local, n, MPI_INT, t, w.disp_of[t], n, MPI_INT, w.win,
                                      200 + ci));
                /* let the target overwrite first, then complete the get */
                MPI_Barrier(comm);
                MPI_OK(MPI_Win_flush(t, w.win));
                int bad = 0;
                for (int i = 0; i < n; i++)
                    if (local[i] != 7 * i + t)
                        bad++;
                CHECK(bad == 0, "%s get n=%d from %d: %d elements not the old value",
                      na_flavor_name(flavor), n, t, bad);
            }
        } else {
            MPI_Request req;
            MPI_Status st;
            int bytes;
            MPI_OK(MPI_Notify_init(w.win, 0, 200 + ci, 1, &req));
            MPI_OK(MPI_Start(&req));
            for (int t = 1; t < size; t++) {
                if (t == rank) {
                    MPI_OK(MPI_Wait(&req, &st));
                    for (int i = 0; i < n; i++)
                        buf[i] = -7;    /* the buffer is ours again */
                    MPI_Get_count(&st, MPI_BYTE, &bytes);
                    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 200 + ci &&
                          bytes == n * (int) sizeof(int), "%s get status src=%d tag=%d bytes=%d",
                          na_flavor_name(flavor), st.MPI_SOURCE, st.MPI_TAG, bytes);
                }
                MPI_Barrier(comm);
            }
            MPI_OK(MPI_Request_free(&req));
        }
        MPI_Barrier(comm);
    }
    MPI_OK(MPI_Win_unlock_all(w.win));
    free(local);
    na_win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int shared_ok = na_shared_ok(MPI_COMM_WORLD);
    for (int f = 0; f < NA_NFLAVORS; f++) {
        if (na_flavors[f] == MPI_WIN_FLAVOR_SHARED && !shared_ok)
            continue;
        run(na_flavors[f], MPI_COMM_WORLD);
    }
    return na_finish();
}

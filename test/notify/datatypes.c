/* Derived datatypes on both sides, every window flavour (2 ranks):
 * origin vector -> target indexed for put, target vector -> origin indexed
 * for get.  Completion semantics as for contiguous data. */
#include "na_test.h"

#define N 64

static void run(int flavor)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    na_win_t w;
    na_win_create(flavor, 4 * N * sizeof(int), MPI_COMM_WORLD, &w);
    int *buf = (int *) w.base;
    MPI_Datatype vec, idx;
    int blens[N / 2], displs[N / 2];
    for (int i = 0; i < N / 2; i++) {
        blens[i] = 2;
        displs[i] = 5 * i;      /* 2 ints every 5 */
    }
    MPI_Type_vector(N, 1, 3, MPI_INT, &vec);    /* N ints, stride 3 */
    MPI_Type_commit(&vec);
    MPI_Type_indexed(N / 2, blens, displs, MPI_INT, &idx);      /* N ints in pairs */
    MPI_Type_commit(&idx);
    int src[3 * N], dst[5 * N / 2 + 2];
    MPI_OK(MPI_Win_lock_all(0, w.win));

    /* put: vector at the origin, indexed at the target */
    for (int i = 0; i < 4 * N; i++)
        buf[i] = -1;
    MPI_OK(MPI_Win_sync(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 3 * N; i++)
            src[i] = (i % 3 == 0) ? 1000 + i / 3 : -5;
        MPI_OK(MPI_Put_notify(src, 1, vec, 1, w.disp_of[1], 1, idx, w.win, 8));
        MPI_OK(MPI_Win_flush(1, w.win));
    } else if (rank == 1) {
        MPI_Request req;
        MPI_Status st;
        int bytes, bad = 0;
        MPI_OK(MPI_Notify_init(w.win, 0, 8, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, &st));
        for (int k = 0; k < N; k++) {
            int pos = 5 * (k / 2) + k % 2;
            if (buf[pos] != 1000 + k)
                bad++;
        }
        for (int i = 0; i < 5 * N / 2; i++)
            if (i % 5 >= 2 && buf[i] != -1)
                bad++;          /* the gaps stay untouched */
        CHECK(bad == 0, "%s: put vector->indexed: %d wrong elements", na_flavor_name(flavor), bad);
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(bytes == N * (int) sizeof(int), "%s: put bytes %d", na_flavor_name(flavor), bytes);
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* get: vector at the target, indexed at the origin; target overwrites
     * once notified, origin must see the old values */
    for (int i = 0; i < 4 * N; i++)
        buf[i] = 2000 + i;
    MPI_OK(MPI_Win_sync(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 5 * N / 2 + 2; i++)
            dst[i] = -9;
        MPI_OK(MPI_Get_notify(dst, 1, idx, 1, w.disp_of[1], 1, vec, w.win, 9));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Win_flush(1, w.win));
        int bad = 0;
        for (int k = 0; k < N; k++) {
            int pos = 5 * (k / 2) + k % 2;
            if (dst[pos] != 2000 + 3 * k)
                bad++;
        }
        CHECK(bad == 0, "%s: get vector->indexed: %d wrong elements", na_flavor_name(flavor), bad);
    } else if (rank == 1) {
        MPI_Request req;
        MPI_OK(MPI_Notify_init(w.win, 0, 9, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 4 * N; i++)
            buf[i] = -3;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Request_free(&req));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    na_win_free(&w);
}

/* Pieces of 512 B and more on both sides (the ring path copies them pair by
 * pair, without a pack), more of them than one batch of the datatype
 * engine, boundaries that do not line up: the notified put and get must
 * move what MPI_Put and MPI_Get with the same datatypes move, and an
 * accumulate through the same layout after the flush sees the notified
 * put's data. */
#define LP_N 16384              /* ints per access */
#define LP_TBLK 128             /* target: indexed blocks of 128 ints (512 B) */
#define LP_TSPAN 20480          /* ints a target layout spans */
static void large_pieces(int flavor)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    na_win_t w;
    na_win_create(flavor, 2 * LP_TSPAN * sizeof(int), MPI_COMM_WORLD, &w);
    int *buf = (int *) w.base;
    MPI_Datatype vec, idx;
    static int blens[LP_N / LP_TBLK], displs[LP_N / LP_TBLK], pos[LP_N];
    for (int i = 0; i < LP_N / LP_TBLK; i++) {
        blens[i] = LP_TBLK;
        displs[i] = 160 * i + i % 3;
        for (int e = 0; e < LP_TBLK; e++)
            pos[i * LP_TBLK + e] = displs[i] + e;
    }
    MPI_Type_vector(LP_N / 256, 256, 320, MPI_INT, &vec);      /* 1 KiB blocks */
    MPI_Type_commit(&vec);
    MPI_Type_indexed(LP_N / LP_TBLK, blens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    int *src = malloc(320 * (LP_N / 256) * sizeof(int));
    int *got = malloc(2 * LP_TSPAN * sizeof(int));
    MPI_Aint a = w.disp_of[1], b = w.disp_of[1] + LP_TSPAN * (MPI_Aint) sizeof(int);
    MPI_OK(MPI_Win_lock_all(0, w.win));

    /* put: notified into region a, MPI_Put into region b */
    for (int i = 0; i < 2 * LP_TSPAN; i++)
        buf[i] = -1;
    MPI_OK(MPI_Win_sync(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < 320 * (LP_N / 256); i++)
            src[i] = i % 320 < 256 ? 7 * i + 1 : -5;
        MPI_OK(MPI_Put(src, 1, vec, 1, b, 1, idx, w.win));
        MPI_OK(MPI_Put_notify(src, 1, vec, 1, a, 1, idx, w.win, 10));
        MPI_OK(MPI_Win_flush(1, w.win));
        /* then an ordinary accumulate through the same layout */
        for (int i = 0; i < 320 * (LP_N / 256); i++)
            src[i] = 1;
        MPI_OK(MPI_Accumulate(src, 1, vec, 1, a, 1, idx, MPI_SUM, w.win));
        MPI_OK(MPI_Win_flush(1, w.win));
    } else if (rank == 1) {
        MPI_Request req;
        MPI_OK(MPI_Notify_init(w.win, 0, 10, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_OK(MPI_Win_sync(w.win));
        int bad = 0, gaps = 0;
        for (int k = 0; k < LP_N; k++) {
            int want = 7 * ((k / 256) * 320 + k % 256) + 1;
            bad += buf[pos[k]] != want + 1 || buf[LP_TSPAN + pos[k]] != want;
        }
        for (int i = 0; i < LP_TSPAN; i++)
            gaps += (i % 160 < i / 160 % 3 || i % 160 >= i / 160 % 3 + LP_TBLK) &&
                (buf[i] != -1 || buf[LP_TSPAN + i] != -1);
        CHECK(bad == 0 && gaps == 0, "%s: large-piece put vector->indexed: %d wrong elements, "
              "%d gap elements written", na_flavor_name(flavor), bad, gaps);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* get: indexed at the target into a vector at the origin, notified and
     * by MPI_Get */
    for (int i = 0; i < 2 * LP_TSPAN; i++)
        buf[i] = 3 * i + 2;
    MPI_OK(MPI_Win_sync(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int *mine = got, *theirs = got + LP_TSPAN;
        for (int i = 0; i < 2 * LP_TSPAN; i++)
            got[i] = -9;
        MPI_OK(MPI_Get_notify(mine, 1, vec, 1, a, 1, idx, w.win, 11));
        MPI_OK(MPI_Get(theirs, 1, vec, 1, a, 1, idx, w.win));
        MPI_OK(MPI_Win_flush(1, w.win));
        int bad = 0;
        for (int i = 0; i < 320 * (LP_N / 256); i++) {
            int want = i % 320 < 256 ? 3 * pos[(i / 320) * 256 + i % 320] + 2 : -9;
            bad += mine[i] != want || theirs[i] != want;
        }
        CHECK(bad == 0, "%s: large-piece get indexed->vector: %d wrong elements",
              na_flavor_name(flavor), bad);
    } else if (rank == 1) {
        MPI_Request req;
        MPI_OK(MPI_Notify_init(w.win, 0, 11, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    free(src);
    free(got);
    na_win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int shared_ok = na_shared_ok(MPI_COMM_WORLD);
    for (int f = 0; f < NA_NFLAVORS; f++) {
        if (na_flavors[f] == MPI_WIN_FLAVOR_SHARED && !shared_ok)
            continue;
        run(na_flavors[f]);
        large_pieces(na_flavors[f]);
    }
    return na_finish();
}

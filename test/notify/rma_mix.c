/* A notified put or get is an MPI RMA access first: after flush / unlock /
 * fence / complete its data is in target memory exactly as for MPI_Put, so
 * ordinary RMA to the same location afterwards sees it and is not undone by
 * it.  Each case below is a correct MPI program that would give the same
 * result with MPI_Put in place of MPI_Put_notify.  Sizes 1..64 bytes cover
 * the small contiguous puts a transport might be tempted to defer; 200 and
 * 1024 bytes the libfabric path's eager messages, answered late.
 *
 * Rank 0 is the origin, rank 1 the target, rank 2 (if any) a third-party
 * reader; every window flavour. */
#include "na_test.h"

#define TAG 7

static int nsizes = 7;
static const int sizes[] = { 1, 2, 8, 32, 64, 200, 1024 };   /* bytes */
#define MAXN 1024               /* the largest size, and the stride of the 4 locations */

static void fill(char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        p[i] = (char) (seed + 3 * i + 1);
}

static int same(const char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (p[i] != (char) (seed + 3 * i + 1))
            return 0;
    return 1;
}

/* the target consumes the notifications, so no request is left behind */
static void drain(na_win_t * w, int n)
{
    MPI_Request req;
    MPI_OK(MPI_Notify_init(w->win, 0, TAG, n, &req));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&req));
}

static void run(int flavor, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const char *fl = na_flavor_name(flavor);
    na_win_t w;
    na_win_create(flavor, 4 * MAXN, comm, &w);
    MPI_Aint t1 = w.disp_of[1];
    static char a[MAXN], b[MAXN], got[MAXN];

    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si];
        int nnotify = 0;

        memset(w.base, 0, 4 * MAXN);
        MPI_OK(MPI_Win_fence(0, w.win));

        /* 1. put_notify; flush; get from the origin reads the new value */
        MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
        MPI_OK(MPI_Win_lock_all(0, w.win));
        if (rank == 0) {
            fill(a, n, 10 + si);
            memset(got, 0, sizeof got);
            MPI_OK(MPI_Put_notify(a, n, MPI_BYTE, 1, t1, n, MPI_BYTE, w.win, TAG));
            MPI_OK(MPI_Win_flush(1, w.win));
            MPI_OK(MPI_Get(got, n, MPI_BYTE, 1, t1, n, MPI_BYTE, w.win));
            MPI_OK(MPI_Win_flush(1, w.win));
            CHECK(same(got, n, 10 + si), "%s n=%d: get after put_notify+flush read old data",
                  fl, n);
        }
        nnotify++;

        /* 2. put_notify(x=a); flush; put(x=b); flush: x == b */
        if (rank == 0) {
            fill(a, n, 20 + si);
            fill(b, n, 30 + si);
            MPI_OK(MPI_Put_notify(a, n, MPI_BYTE, 1, t1 + MAXN, n, MPI_BYTE, w.win, TAG));
            MPI_OK(MPI_Win_flush(1, w.win));
            MPI_OK(MPI_Put(b, n, MPI_BYTE, 1, t1 + MAXN, n, MPI_BYTE, w.win));
            MPI_OK(MPI_Win_flush(1, w.win));
        }
        nnotify++;

        /* 3. put_notify of ints; flush; accumulate(SUM) on the same ints */
        int ni = (n + 3) / 4;
        static int ia[MAXN / 4], one[MAXN / 4];
        if (rank == 0) {
            for (int i = 0; i < ni; i++) {
                ia[i] = 1000 * (si + 1) + i;
                one[i] = 1;
            }
            MPI_OK(MPI_Put_notify(ia, ni, MPI_INT, 1, t1 + 2 * MAXN, ni, MPI_INT, w.win, TAG));
            MPI_OK(MPI_Win_flush(1, w.win));
            MPI_OK(MPI_Accumulate(one, ni, MPI_INT, 1, t1 + 2 * MAXN, ni, MPI_INT, MPI_SUM, w.win));
            MPI_OK(MPI_Win_flush(1, w.win));
        }
        nnotify++;
        MPI_OK(MPI_Win_unlock_all(w.win));
        MPI_Barrier(comm);

        /* a third party (or the origin) reads everything after the barrier */
        int reader = size > 2 ? 2 : 0;
        if (rank == reader) {
            static char x[MAXN];
            static int xi[MAXN / 4];
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
            MPI_OK(MPI_Get(x, n, MPI_BYTE, 1, t1 + MAXN, n, MPI_BYTE, w.win));
            MPI_OK(MPI_Get(xi, ni, MPI_INT, 1, t1 + 2 * MAXN, ni, MPI_INT, w.win));
            MPI_OK(MPI_Win_unlock(1, w.win));
            CHECK(same(x, n, 30 + si), "%s n=%d: later put undone by the notified put", fl, n);
            int bad = 0;
            for (int i = 0; i < ni; i++)
                bad += xi[i] != 1000 * (si + 1) + i + 1;
            CHECK(bad == 0, "%s n=%d: accumulate after put_notify+flush: %d wrong", fl, n, bad);
        }
        MPI_Barrier(comm);

        /* 4. exclusive lock: put_notify; unlock; next exclusive epoch reads it */
        if (rank == 0) {
            fill(a, n, 40 + si);
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
            MPI_OK(MPI_Put_notify(a, n, MPI_BYTE, 1, t1 + 3 * MAXN, n, MPI_BYTE, w.win, TAG));
            MPI_OK(MPI_Win_unlock(1, w.win));
        }
        nnotify++;
        MPI_Barrier(comm);
        if (rank == reader) {
            memset(got, 0, sizeof got);
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
            MPI_OK(MPI_Get(got, n, MPI_BYTE, 1, t1 + 3 * MAXN, n, MPI_BYTE, w.win));
            MPI_OK(MPI_Win_unlock(1, w.win));
            CHECK(same(got, n, 40 + si), "%s n=%d: exclusive epoch after unlock read old data",
                  fl, n);
        }
        MPI_Barrier(comm);

        /* 5. fence: put_notify, fence, and the target's own loads see it
         * without waiting for the notification */
        MPI_OK(MPI_Win_fence(0, w.win));
        if (rank == 0) {
            fill(a, n, 50 + si);
            MPI_OK(MPI_Put_notify(a, n, MPI_BYTE, 1, t1, n, MPI_BYTE, w.win, TAG));
        }
        nnotify++;
        MPI_OK(MPI_Win_fence(0, w.win));
        if (rank == 1)
            CHECK(same(w.base, n, 50 + si), "%s n=%d: target load after fence read old data "
                  "(%d %d, want %d)", fl, n, w.base[0], w.base[n - 1], (char) (51 + si));
        /* and a put in the next epoch (after the target's local loads) is
         * not undone */
        MPI_OK(MPI_Win_fence(0, w.win));
        if (rank == 0) {
            fill(b, n, 60 + si);
            MPI_OK(MPI_Put(b, n, MPI_BYTE, 1, t1, n, MPI_BYTE, w.win));
        }
        MPI_OK(MPI_Win_fence(0, w.win));
        if (rank == 1) {
            drain(&w, nnotify);
            CHECK(same(w.base, n, 60 + si), "%s n=%d: put after fence undone", fl, n);
        }
        MPI_OK(MPI_Win_fence(0, w.win));

        /* 6. PSCW: put_notify in an access epoch; after complete/wait the
         * target sees it, and a get_notify of the same bytes reads it */
        MPI_Group wg, g;
        MPI_Win_get_group(w.win, &wg);
        int r0 = 0, r1 = 1;
        if (rank == 1) {
            MPI_Group_incl(wg, 1, &r0, &g);
            MPI_OK(MPI_Win_post(g, 0, w.win));
            MPI_OK(MPI_Win_wait(w.win));
            CHECK(same(w.base + MAXN, n, 70 + si), "%s n=%d: PSCW wait: old data", fl, n);
            MPI_Group_free(&g);
        } else if (rank == 0) {
            MPI_Group_incl(wg, 1, &r1, &g);
            fill(a, n, 70 + si);
            MPI_OK(MPI_Win_start(g, 0, w.win));
            MPI_OK(MPI_Put_notify(a, n, MPI_BYTE, 1, t1 + MAXN, n, MPI_BYTE, w.win, TAG));
            MPI_OK(MPI_Win_complete(w.win));
            MPI_OK(MPI_Win_start(g, 0, w.win));
            memset(got, 0, sizeof got);
            MPI_OK(MPI_Get_notify(got, n, MPI_BYTE, 1, t1 + MAXN, n, MPI_BYTE, w.win, TAG));
            MPI_OK(MPI_Win_complete(w.win));
            CHECK(same(got, n, 70 + si), "%s n=%d: get_notify after PSCW put_notify", fl, n);
            MPI_Group_free(&g);
        }
        if (rank == 1) {
            MPI_Group_incl(wg, 1, &r0, &g);
            MPI_OK(MPI_Win_post(g, 0, w.win));
            MPI_OK(MPI_Win_wait(w.win));
            MPI_Group_free(&g);
            drain(&w, 2);
        }
        MPI_Group_free(&wg);
        MPI_Barrier(comm);
    }
    na_win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int shared = na_shared_ok(MPI_COMM_WORLD);
    for (int f = 0; f < NA_NFLAVORS; f++) {
        if (na_flavors[f] == MPI_WIN_FLAVOR_SHARED && !shared)
            continue;
        run(na_flavors[f], MPI_COMM_WORLD);
    }
    return na_finish();
}

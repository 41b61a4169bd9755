/* Starts of every kind against a long unexpected queue (2 ranks).
 * Rank 1 sends N notified puts to rank 0, notification i with tag i % 3 and
 * i % 50 bytes (so a status names i modulo 50), then a sentinel; once rank 0
 * has the sentinel, per-origin order says all N are queued.  Each kind of
 * start must take the earliest queued notifications it matches, from the
 * middle of the queue: MPI_ANY_TAG, MPI_ANY_SOURCE, exact, both wildcards.
 * A request freed while it holds counted notifications gives them back in
 * their places.  Then one MPI_ANY_SOURCE start per queued tag-2 entry walks
 * past N/3 tag-0 and tag-1 entries each time if a start scans the queue;
 * its time is printed (not checked: timings are for bench/), and every
 * notification must be matched exactly once.  Ordinary puts into the same
 * bytes after the notified ones, then a fence, must win.   args: [N] */
#include "na_test.h"

#define NTAGS 3
#define SENTINEL 1000

static int get_bytes(MPI_Status * st)
{
    int n;
    MPI_Get_count(st, MPI_BYTE, &n);
    return n;
}

/* start a request, wait, and check the status of its last match */
static int take(MPI_Win win, int src, int tag, int count, int want_tag, int want_i, const char *what)
{
    MPI_Request r;
    MPI_Status st;
    MPI_OK(MPI_Notify_init(win, src, tag, count, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Request_free(&r));
    if (st.MPI_SOURCE != 1 || st.MPI_TAG != want_tag || get_bytes(&st) != want_i % 50) {
        printf("%s: last match source %d tag %d bytes %d, expected source 1 tag %d bytes %d\n",
               what, st.MPI_SOURCE, st.MPI_TAG, get_bytes(&st), want_tag, want_i % 50);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    int n = argc > 1 ? atoi(argv[1]) : 60000;
    unsigned char *base, src[64];
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || n < 300 || n % NTAGS) {
        if (rank == 0)
            printf("needs 2 ranks and N >= 300, a multiple of %d\n", NTAGS);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    memset(base, 0, 64);
    memset(src, 7, sizeof(src));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));

    if (rank == 1) {
        for (int i = 0; i < n; i++)
            MPI_OK(MPI_Put_notify(src, i % 50, MPI_BYTE, 0, 0, i % 50, MPI_BYTE, win, i % NTAGS));
        MPI_OK(MPI_Put_notify(src, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, win, SENTINEL));
        MPI_OK(MPI_Win_flush(0, win));
    } else {
        errs += take(win, 1, SENTINEL, 1, SENTINEL, 0, "sentinel");
        /* queue: i = 0, 1, 2, ... with tag i % 3 */
        errs += take(win, 1, MPI_ANY_TAG, 5, 1, 4, "(1, ANY_TAG) x5");      /* 0..4 */
        errs += take(win, MPI_ANY_SOURCE, 2, 3, 2, 11, "(ANY_SOURCE, 2) x3");       /* 5 8 11 */
        errs += take(win, 1, 0, 2, 0, 9, "(1, 0) x2");  /* 6 9 */
        errs += take(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, 1, 7, "(ANY, ANY) x1");   /* 7 */

        /* a request that counts everything left, freed while active: each
         * notification goes back to its place */
        MPI_Request greedy;
        MPI_OK(MPI_Notify_init(win, 1, MPI_ANY_TAG, n, &greedy));
        MPI_OK(MPI_Start(&greedy));
        int flag;
        MPI_OK(MPI_Test(&greedy, &flag, MPI_STATUS_IGNORE));
        if (flag) {
            printf("greedy request completed with only %d notifications queued\n", n - 8);
            errs++;
        }
        MPI_OK(MPI_Request_free(&greedy));
        errs += take(win, MPI_ANY_SOURCE, 1, 1, 1, 10, "(ANY_SOURCE, 1) after give-back");  /* 10 */
        errs += take(win, 1, MPI_ANY_TAG, 1, 0, 12, "(1, ANY_TAG) after give-back");      /* 12 */

        /* the rest of tag 2, one wildcard start each, behind the others */
        int left2 = n / NTAGS - 4;      /* 2 5 8 11 taken */
        double t0 = MPI_Wtime();
        for (int k = 0; k < left2; k++) {
            MPI_Request r;
            MPI_Status st;
            MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 2, 1, &r));
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            MPI_OK(MPI_Request_free(&r));
            int want = 3 * (k + 4) + 2;
            if (st.MPI_TAG != 2 || get_bytes(&st) != want % 50) {
                if (errs++ < 5)
                    printf("tag-2 start %d: tag %d bytes %d, expected bytes %d\n", k, st.MPI_TAG,
                           get_bytes(&st), want % 50);
            }
        }
        double per = (MPI_Wtime() - t0) / left2;
        /* what is left: tag 0 from 15 on, tag 1 from 13 on, nothing else */
        int left0 = n / NTAGS - 5, left1 = n / NTAGS - 4;       /* 0 3 6 9 12 / 1 4 7 10 */
        errs += take(win, 1, 0, left0, 0, n - 3, "(1, 0) rest");
        errs += take(win, MPI_ANY_SOURCE, MPI_ANY_TAG, left1, 1, n - 2, "(ANY, ANY) rest");
        MPI_Request none;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &none));
        MPI_OK(MPI_Start(&none));
        int flag2;
        MPI_OK(MPI_Test(&none, &flag2, MPI_STATUS_IGNORE));
        if (flag2) {
            printf("a notification was left over (or matched twice)\n");
            errs++;
        }
        MPI_OK(MPI_Cancel(&none));
        MPI_OK(MPI_Wait(&none, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&none));
        printf("%d queued notifications; MPI_ANY_SOURCE start behind %d others: %.2f us each\n",
               n, 2 * n / NTAGS, per * 1e6);
    }
    MPI_OK(MPI_Win_unlock_all(win));

    /* ordinary puts into the notified bytes, after the epoch, win */
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 1) {
        unsigned char v[64];
        memset(v, 42, sizeof(v));
        MPI_OK(MPI_Put(v, 64, MPI_BYTE, 0, 0, 64, MPI_BYTE, win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 0)
        for (int i = 0; i < 64; i++)
            if (base[i] != 42 && errs++ < 5)
                printf("byte %d after put + fence: %d, expected 42\n", i, base[i]);
    MPI_OK(MPI_Win_free(&win));
    na_errs += errs;
    return na_finish();
}

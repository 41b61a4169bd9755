/* Matching rules (2 ranks: rank 0 origin, rank 1 target):
 *  - unexpected notifications are queued in arrival order and MPI_Start takes
 *    them in that order, exact and wildcard (source, tag, both);
 *  - a delivered notification goes to the earliest-started matching request;
 *  - each notification counts toward exactly one request. */
#include "na_test.h"

static MPI_Win win;
static int rank;
static int *wbuf;

/* origin: notified puts of 1-int payloads with the given tags, flushed, so
 * they are delivered at the target before the second barrier ends.  The first
 * barrier keeps them from arriving while the target still checks the
 * previous step. */
static void send_tags(const int *tags, int n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < n; i++)     /* tags[] outlives the flush: a valid origin buffer */
            MPI_OK(MPI_Put_notify(&tags[i], 1, MPI_INT, 1, i % 16, 1, MPI_INT, win, tags[i]));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void expect_done(MPI_Request * req, int tag, const char *what)
{
    int flag = 0;
    MPI_Status st;
    MPI_OK(MPI_Test(req, &flag, &st));
    CHECK(flag, "%s: request not complete", what);
    if (flag)
        CHECK(st.MPI_TAG == tag && st.MPI_SOURCE == 0, "%s: got tag %d src %d, want tag %d",
              what, st.MPI_TAG, st.MPI_SOURCE, tag);
}

static void expect_pending(MPI_Request * req, const char *what)
{
    int flag = 1;
    MPI_OK(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "%s: request completed but should not have", what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf,
                            &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));

    /* 1. arrival order, consumed by a wildcard-both request */
    {
        int tags[] = { 5, 6, 7, 6, 5 };
        send_tags(tags, 5);
        if (rank == 1) {
            MPI_Request any;
            MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &any));
            for (int i = 0; i < 5; i++) {
                MPI_OK(MPI_Start(&any));
                expect_done(&any, tags[i], "arrival order (any/any)");
            }
            MPI_OK(MPI_Request_free(&any));
        }
    }
    /* 2. exact and wildcard-tag / wildcard-source starts take the right entries */
    {
        int tags[] = { 11, 12, 11, 13, 12 };
        send_tags(tags, 5);
        if (rank == 1) {
            MPI_Request r11, rsrc, rtag;
            MPI_Status st;
            MPI_OK(MPI_Notify_init(win, 0, 11, 2, &r11));      /* both 11s */
            MPI_OK(MPI_Start(&r11));
            expect_done(&r11, 11, "exact takes queued");
            MPI_OK(MPI_Notify_init(win, 0, MPI_ANY_TAG, 1, &rtag));     /* next: 12 */
            MPI_OK(MPI_Start(&rtag));
            expect_done(&rtag, 12, "any-tag takes oldest");
            MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 12, 1, &rsrc)); /* the second 12 */
            MPI_OK(MPI_Start(&rsrc));
            MPI_OK(MPI_Wait(&rsrc, &st));
            CHECK(st.MPI_TAG == 12, "any-source tag 12 got %d", st.MPI_TAG);
            MPI_OK(MPI_Start(&rtag));   /* the remaining 13 */
            expect_done(&rtag, 13, "any-tag takes the rest");
            MPI_OK(MPI_Start(&rtag));
            expect_pending(&rtag, "queue drained");
            MPI_OK(MPI_Cancel(&rtag));
            MPI_OK(MPI_Wait(&rtag, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Request_free(&r11));
            MPI_OK(MPI_Request_free(&rtag));
            MPI_OK(MPI_Request_free(&rsrc));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* 3. earliest-started matching request wins, wildcard or exact */
    {
        MPI_Request r[3];
        if (rank == 1) {
            MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 9, 1, &r[0]));
            MPI_OK(MPI_Notify_init(win, 0, MPI_ANY_TAG, 1, &r[1]));
            MPI_OK(MPI_Notify_init(win, 0, 9, 1, &r[2]));
            MPI_OK(MPI_Startall(3, r));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int t9[] = { 9 };
        for (int k = 0; k < 3; k++) {
            send_tags(t9, 1);
            if (rank == 1) {
                for (int j = 0; j < 3; j++) {
                    if (j == k)
                        expect_done(&r[j], 9, "earliest started wins");
                    else if (j > k)
                        expect_pending(&r[j], "later started waits");
                }
            }
        }
        /* exact started before wildcard: the exact one wins */
        if (rank == 1) {
            MPI_OK(MPI_Start(&r[2]));
            MPI_OK(MPI_Start(&r[1]));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        send_tags(t9, 1);
        if (rank == 1) {
            expect_done(&r[2], 9, "earlier exact beats later wildcard");
            expect_pending(&r[1], "later wildcard");
        }
        int t10[] = { 10 };
        send_tags(t10, 1);
        if (rank == 1) {
            expect_done(&r[1], 10, "wildcard gets the next");
            for (int j = 0; j < 3; j++)
                MPI_OK(MPI_Request_free(&r[j]));
        }
    }
    /* 4. one notification counts toward exactly one request */
    {
        MPI_Request a, b, c;
        if (rank == 1) {
            MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 44, 3, &a));
            MPI_OK(MPI_Notify_init(win, 0, 44, 3, &b));
            MPI_OK(MPI_Start(&a));
            MPI_OK(MPI_Start(&b));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int t44[] = { 44, 44, 44, 44, 44, 44, 44 };
        send_tags(t44, 7);
        if (rank == 1) {
            expect_done(&a, 44, "first three");
            expect_done(&b, 44, "next three");
            MPI_OK(MPI_Notify_init(win, 0, 44, 1, &c));
            MPI_OK(MPI_Start(&c));
            expect_done(&c, 44, "seventh stays queued for the next request");
            MPI_OK(MPI_Start(&c));
            expect_pending(&c, "no eighth");
            MPI_OK(MPI_Cancel(&c));
            MPI_OK(MPI_Wait(&c, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Request_free(&a));
            MPI_OK(MPI_Request_free(&b));
            MPI_OK(MPI_Request_free(&c));
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

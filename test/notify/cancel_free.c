/* MPI_Cancel and MPI_Request_free of notification requests (2 ranks, rank 1
 * is the target).  No notification is ever lost: one that would have
 * matched a cancelled or freed request stays available to the next. */
#include "na_test.h"

static MPI_Win win;
static int rank;

static void send_tag(int tag, int nints)
{
    static int src[16];
    MPI_Barrier(MPI_COMM_WORLD);        /* the target has finished its step */
    if (rank == 0) {
        MPI_OK(MPI_Put_notify(src, nints, MPI_INT, 1, 0, nints, MPI_INT, win, tag));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Request r, r2;
    MPI_Status st;
    int flag, bytes, *buf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));

    /* 1. cancel before any match succeeds; the later notification is queued */
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, 0, 5, 1, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "cancel of an unmatched request did not succeed");
    }
    send_tag(5, 1);
    if (rank == 1) {
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Test(&r, &flag, &st));
        CHECK(flag && st.MPI_TAG == 5, "notification after cancel lost (flag %d)", flag);
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "restarted request reports cancelled");
        MPI_OK(MPI_Request_free(&r));
    }

    /* 2. cancel after a partial match fails: the request completes normally */
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, 0, 6, 2, &r));
        MPI_OK(MPI_Start(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    send_tag(6, 1);
    if (rank == 1)
        MPI_OK(MPI_Cancel(&r));
    send_tag(6, 3);
    if (rank == 1) {
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(!flag, "partially matched request was cancelled");
        CHECK(st.MPI_TAG == 6 && bytes == 3 * (int) sizeof(int), "status tag %d bytes %d",
              st.MPI_TAG, bytes);
        MPI_OK(MPI_Request_free(&r));
    }

    /* 3. free of an active, partially matched request gives its
     * notifications back: the next request finds both, in order */
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, 0, 7, 3, &r));
        MPI_OK(MPI_Start(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    send_tag(7, 1);
    send_tag(7, 2);
    if (rank == 1) {
        MPI_OK(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL, "free did not reset the handle");
        MPI_OK(MPI_Notify_init(win, 0, 7, 1, &r2));
        MPI_OK(MPI_Start(&r2));
        MPI_OK(MPI_Test(&r2, &flag, &st));
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(flag && bytes == sizeof(int), "first given-back notification: flag %d bytes %d",
              flag, bytes);
        MPI_OK(MPI_Start(&r2));
        MPI_OK(MPI_Test(&r2, &flag, &st));
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(flag && bytes == 2 * (int) sizeof(int),
              "second given-back notification: flag %d bytes %d", flag, bytes);
        MPI_OK(MPI_Start(&r2));
        MPI_OK(MPI_Test(&r2, &flag, &st));
        CHECK(!flag, "a notification appeared twice");
        MPI_OK(MPI_Cancel(&r2));
        MPI_OK(MPI_Wait(&r2, &st));
        MPI_OK(MPI_Request_free(&r2));
    }

    /* 4. free of an active unmatched request: the notification is queued */
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, 0, 8, 1, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Request_free(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    send_tag(8, 1);
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Test(&r, &flag, &st));
        CHECK(flag && st.MPI_TAG == 8, "notification for a freed request lost");
        MPI_OK(MPI_Request_free(&r));
    }

    /* 5. free of a completed but not yet waited request */
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, 0, 9, 1, &r));
        MPI_OK(MPI_Start(&r));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    send_tag(9, 1);
    if (rank == 1)
        MPI_OK(MPI_Request_free(&r));

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

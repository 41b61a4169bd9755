/* Every error row of the contract, with MPI_ERRORS_RETURN: the right error
 * class, a message naming the argument, and the run goes on (2 ranks). */
#include "na_test.h"

static int rank, size;

static void expect(int rc, int cls, const char *word, const char *what)
{
    int got = MPI_SUCCESS, len;
    char msg[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &got);
        MPI_Error_string(rc, msg, &len);
    }
    CHECK(got == cls, "%s: error class %d, want %d (%s)", what, got, cls, msg);
    if (word)
        CHECK(strstr(msg, word) != NULL, "%s: message does not name '%s': %s", what, word, msg);
}

static int win_errs, comm_errs;
static void win_handler(MPI_Win *w, int *code, ...)
{
    (void) w;
    (void) code;
    win_errs++;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void) c;
    (void) code;
    comm_errs++;
}

int main(int argc, char **argv)
{
    int *buf, v = 1, rc;
    MPI_Win win;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int peer = (rank + 1) % size;

    /* outside an epoch: like MPI_Put / MPI_Get */
    rc = MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, 1);
    expect(rc, MPI_ERR_RMA_SYNC, NULL, "put_notify outside an epoch");
    rc = MPI_Get_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, 1);
    expect(rc, MPI_ERR_RMA_SYNC, NULL, "get_notify outside an epoch");

    MPI_OK(MPI_Win_lock_all(0, win));
    /* tags */
    rc = MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, -1);
    expect(rc, MPI_ERR_TAG, "tag", "put_notify tag -1 (MPI_ANY_TAG)");
    rc = MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, MPI_NOTIFY_TAG_UB + 1);
    expect(rc, MPI_ERR_TAG, "tag", "put_notify tag > MPI_NOTIFY_TAG_UB");
    rc = MPI_Get_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, -7);
    expect(rc, MPI_ERR_TAG, "tag", "get_notify tag -7");
    rc = MPI_Notify_init(win, 0, MPI_NOTIFY_TAG_UB + 1, 1, &req);
    expect(rc, MPI_ERR_TAG, "tag", "notify_init tag > UB");
    rc = MPI_Notify_init(win, 0, -5, 1, &req);
    expect(rc, MPI_ERR_TAG, "tag", "notify_init tag -5");
    /* the bound itself is valid, on every transport */
    CHECK(MPI_NOTIFY_TAG_UB >= (1 << 24) - 1, "MPI_NOTIFY_TAG_UB %d", MPI_NOTIFY_TAG_UB);
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, MPI_NOTIFY_TAG_UB));
    MPI_OK(MPI_Win_flush(peer, win));
    /* counts */
    rc = MPI_Notify_init(win, 0, 1, 0, &req);
    expect(rc, MPI_ERR_COUNT, "expected_count", "notify_init expected_count 0");
    rc = MPI_Notify_init(win, 0, 1, -3, &req);
    expect(rc, MPI_ERR_COUNT, "expected_count", "notify_init expected_count -3");
    rc = MPI_Put_notify(&v, -1, MPI_INT, peer, 0, 1, MPI_INT, win, 1);
    expect(rc, MPI_ERR_COUNT, NULL, "put_notify origin_count -1");
    /* ranks */
    rc = MPI_Notify_init(win, size, 1, 1, &req);
    expect(rc, MPI_ERR_RANK, "src_rank", "notify_init src_rank = size");
    rc = MPI_Notify_init(win, -9, 1, 1, &req);
    expect(rc, MPI_ERR_RANK, "src_rank", "notify_init src_rank -9");
    rc = MPI_Put_notify(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win, 1);
    expect(rc, MPI_ERR_RANK, NULL, "put_notify target_rank = size");
    rc = MPI_Get_notify(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, 1, MPI_INT, win, 1);
    expect(rc, MPI_ERR_RANK, NULL, "get_notify target_rank MPI_ANY_SOURCE");
    /* window */
    rc = MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_WIN_NULL, 1);
    expect(rc, MPI_ERR_WIN, NULL, "put_notify MPI_WIN_NULL");
    rc = MPI_Notify_init(MPI_WIN_NULL, 0, 1, 1, &req);
    expect(rc, MPI_ERR_WIN, NULL, "notify_init MPI_WIN_NULL");
    /* request pointer */
    rc = MPI_Notify_init(win, 0, 1, 1, NULL);
    expect(rc, MPI_ERR_ARG, "request", "notify_init NULL request");
    /* displacement: whatever MPI_Put says for the same arguments */
    {
        int rc_put = MPI_Put(&v, 1, MPI_INT, peer, -4, 1, MPI_INT, win), cls_put;
        MPI_Error_class(rc_put, &cls_put);
        rc = MPI_Put_notify(&v, 1, MPI_INT, peer, -4, 1, MPI_INT, win, 1);
        expect(rc, cls_put, NULL, "put_notify negative displacement (as MPI_Put)");
        CHECK(cls_put != MPI_SUCCESS, "MPI_Put accepted a negative displacement");
    }
    /* a target range past the window, where the origin knows its size (its
     * own window; every path): MPI_ERR_RMA_RANGE, nothing written */
    {
        int big[4] = { 5, 5, 5, 5 };
        MPI_Aint last = 15;
        rc = MPI_Put_notify(big, 2, MPI_INT, rank, last, 2, MPI_INT, win, 1);
        expect(rc, MPI_ERR_RMA_RANGE, "window", "put_notify past the end of its own window");
        rc = MPI_Get_notify(big, 1, MPI_INT, rank, 16, 1, MPI_INT, win, 1);
        expect(rc, MPI_ERR_RMA_RANGE, NULL, "get_notify past the end of its own window");
        rc = MPI_Accumulate_notify(big, 4, MPI_INT, rank, 13, 4, MPI_INT, MPI_SUM, win, 1);
        expect(rc, MPI_ERR_RMA_RANGE, NULL, "accumulate_notify past the end of its own window");
        /* the last word itself is in range */
        MPI_OK(MPI_Put_notify(big, 1, MPI_INT, rank, last, 1, MPI_INT, win, 1));
        MPI_OK(MPI_Win_flush(rank, win));
        MPI_Request r;
        MPI_OK(MPI_Notify_init(win, rank, 1, 1, &r));
        MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&r));
        int flag = 1;
        MPI_OK(MPIX_Notify_iprobe(win, rank, 1, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a refused out-of-range access notified");
    }
    /* the same towards a node-local target on the ring path, whose segment
     * the origin writes itself: the ring path checks the range, with
     * predefined and derived datatypes; an access just in range notifies
     * once, the refused ones not at all */
    {
        char path[32] = "", why[64] = "";
        na_path(win, peer, path, why, sizeof(path));
        if (strcmp(path, "ring") == 0) {
            int big[4] = { 5, 5, 5, 5 };
            MPI_Datatype vec;   /* two ints 8 apart: spans 9 */
            MPI_OK(MPI_Type_vector(2, 1, 8, MPI_INT, &vec));
            MPI_OK(MPI_Type_commit(&vec));
            rc = MPI_Put_notify(big, 2, MPI_INT, peer, 15, 2, MPI_INT, win, 1);
            expect(rc, MPI_ERR_RMA_RANGE, NULL, "put_notify past the end of a ring target's window");
            rc = MPI_Get_notify(big, 1, MPI_INT, peer, 16, 1, MPI_INT, win, 1);
            expect(rc, MPI_ERR_RMA_RANGE, NULL, "get_notify past the end of a ring target's window");
            rc = MPI_Put_notify(big, 2, MPI_INT, peer, 8, 1, vec, win, 1);
            expect(rc, MPI_ERR_RMA_RANGE, NULL, "put_notify of a vector past a ring target's end");
            MPI_OK(MPI_Put_notify(big, 2, MPI_INT, peer, 7, 1, vec, win, 1));
            MPI_OK(MPI_Win_flush(peer, win));
            MPI_OK(MPI_Type_free(&vec));
            MPI_Request r;
            MPI_OK(MPI_Notify_init(win, peer, 1, 1, &r));
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Request_free(&r));
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            int flag = 1;
            MPI_OK(MPIX_Notify_iprobe(win, peer, 1, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "a refused out-of-range access to a ring target notified");
            CHECK(buf[7] == 5 && buf[15] == 5, "the in-range vector put did not land");
        }
    }
    /* request state; its errors go to the window's handler, not
     * MPI_COMM_WORLD's (hook 0013) */
    MPI_Errhandler weh, ceh;
    MPI_OK(MPI_Win_create_errhandler(win_handler, &weh));
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    MPI_OK(MPI_Win_set_errhandler(win, weh));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ceh));
    MPI_OK(MPI_Notify_init(win, peer, 3, 1, &req));
    rc = MPI_Cancel(&req);
    expect(rc, MPI_ERR_REQUEST, NULL, "cancel of an inactive request");
    MPI_OK(MPI_Start(&req));
    rc = MPI_Start(&req);
    expect(rc, MPI_ERR_REQUEST, NULL, "start of an active request");
    CHECK(win_errs == 2 && comm_errs == 0,
          "errors of MPI_Cancel and MPI_Start on a notification request: %d to the window's "
          "handler, %d to MPI_COMM_WORLD's; want 2 and 0", win_errs, comm_errs);
    /* the array forms: the window's handler when the array holds only
     * notification requests of that window, MPI_COMM_WORLD's otherwise */
    rc = MPI_Startall(1, &req);
    expect(rc, MPI_ERR_REQUEST, NULL, "MPI_Startall of an active request");
    CHECK(win_errs == 3 && comm_errs == 0, "MPI_Startall of an active notification request: "
          "%d errors to the window's handler, %d to MPI_COMM_WORLD's; want 3 and 0",
          win_errs, comm_errs);
    MPI_Request mixed[2];
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &mixed[0]));
    mixed[1] = req;
    rc = MPI_Startall(2, mixed);
    expect(rc, MPI_ERR_REQUEST, NULL, "MPI_Startall of a receive and an active request");
    CHECK(win_errs == 3 && comm_errs == 1, "MPI_Startall of a receive and an active "
          "notification request: %d errors to the window's handler, %d to MPI_COMM_WORLD's; "
          "want 3 and 1", win_errs, comm_errs);
    MPI_OK(MPI_Wait(&mixed[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&mixed[0]));
    /* a window whose handler was never set defers to MPI_COMM_WORLD's, as
     * every window error does in MPICH */
    MPI_Win win2;
    int *base2;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base2,
                            &win2));
    MPI_Request req2;
    MPI_OK(MPI_Notify_init(win2, peer, 3, 1, &req2));
    rc = MPI_Cancel(&req2);
    expect(rc, MPI_ERR_REQUEST, NULL, "cancel of an inactive request, no window handler set");
    CHECK(win_errs == 3 && comm_errs == 2, "MPI_Cancel on a request of a window without a "
          "handler: %d errors to the window's handler, %d to MPI_COMM_WORLD's; want 3 and 2",
          win_errs, comm_errs);
    MPI_OK(MPI_Request_free(&req2));
    MPI_OK(MPI_Win_free(&win2));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&weh));
    MPI_OK(MPI_Errhandler_free(&ceh));
    MPI_OK(MPI_Win_unlock_all(win));

    /* freeing the window while notification requests exist */
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_Win_free(&win);
    expect(rc, MPI_ERR_WIN, "notification request", "win_free with a notify request");
    CHECK(win != MPI_WIN_NULL, "window handle reset by a failed free");
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPI_Win_free(&win));

    /* a freed window */
    rc = MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, 1);
    expect(rc, MPI_ERR_WIN, NULL, "put_notify on a freed window (MPI_WIN_NULL)");
    return na_finish();
}

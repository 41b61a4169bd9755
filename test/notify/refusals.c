/* Refused calls leave everything as it was, on every transport:
 *  - MPI_Win_free while one process holds a notification request: every
 *    process refuses (none hangs in the device's barrier), the window's
 *    attributes and error handler are untouched, the window still works;
 *  - a notified access whose data does not fit its target (MPI_ERR_TRUNCATE)
 *    or whose tag is out of range (MPI_ERR_TAG, also with
 *    MPIR_CVAR_ERROR_CHECKING=0) does not cost its origin a sequence
 *    number: later notifications from it are still delivered;
 *  - the same request twice in one MPI_Startall is an error, not a request
 *    posted twice.
 * Rank 0 is the origin, rank 1 the target; more ranks just take part in
 * the collectives. */
#include "na_test.h"

static int handler_calls, last_class;
static int attr_deletes;

static void win_handler(MPI_Win * win, int *code, ...)
{
    (void) win;
    handler_calls++;
    MPI_Error_class(*code, &last_class);
}

static int attr_delete(MPI_Win win, int keyval, void *val, void *extra)
{
    (void) win;
    (void) keyval;
    (void) val;
    (void) extra;
    attr_deletes++;
    return MPI_SUCCESS;
}

/* rank 1 expects n notifications from rank 0 with tag, and they arrive */
static void expect_delivery(MPI_Win win, int tag, int n, const char *what)
{
    MPI_Request req;
    int flag = 0;
    MPI_OK(MPI_Notify_init(win, 0, tag, n, &req));
    MPI_OK(MPI_Start(&req));
    /* no deadline, which a busy machine could pass: a notification that
     * never comes hangs, and the suite's timeout fails the test */
    double t0 = MPI_Wtime();
    int said = 0;
    while (!flag) {
        MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        if (!flag && !said && MPI_Wtime() - t0 > 10) {
            fprintf(stderr, "[1] %s: no notification after 10 s; waiting on\n", what);
            said = 1;
        }
    }
    MPI_OK(MPI_Request_free(&req));
}

static void win_free_refused(MPI_Comm comm, int rank)
{
    MPI_Win win;
    char *base;
    MPI_Errhandler eh;
    int key;

    MPI_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_create_errhandler(win_handler, &eh));
    MPI_OK(MPI_Win_set_errhandler(win, eh));
    /* the window holds the only reference the user does not */
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, attr_delete, &key, NULL));
    MPI_OK(MPI_Win_set_attr(win, key, &key));

    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 1)
        MPI_OK(MPI_Notify_init(win, 0, 5, 1, &req));

    /* refused everywhere, twice: nothing torn down the first time */
    for (int round = 0; round < 2; round++) {
        handler_calls = 0;
        MPI_Win w = win;
        int rc = MPI_Win_free(&w);
        int cls = -1;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_WIN, "round %d: MPI_Win_free returned class %d, want MPI_ERR_WIN",
              round, cls);
        CHECK(w == win, "round %d: refused MPI_Win_free changed the handle", round);
        CHECK(handler_calls == 1 && last_class == MPI_ERR_WIN,
              "round %d: the window's error handler ran %d times (class %d)", round,
              handler_calls, last_class);
        CHECK(attr_deletes == 0, "round %d: attribute deleted by a refused MPI_Win_free", round);
        void *val;
        int found = 0;
        MPI_OK(MPI_Win_get_attr(win, key, &val, &found));
        CHECK(found && val == &key, "round %d: attribute gone", round);
    }

    /* still a working window */
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        char x = 42;
        MPI_OK(MPI_Put_notify(&x, 1, MPI_BYTE, 1, 0, 1, MPI_BYTE, win, 5));
        MPI_OK(MPI_Win_flush(1, win));
    } else if (rank == 1) {
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Win_sync(win));
        CHECK(base[0] == 42, "put after refused MPI_Win_free: got %d", base[0]);
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_OK(MPI_Win_unlock_all(win));

    handler_calls = 0;
    MPI_OK(MPI_Win_free(&win));
    CHECK(handler_calls == 0, "error handler ran on a successful MPI_Win_free");
    CHECK(attr_deletes == 1, "attribute deleted %d times", attr_deletes);
    MPI_OK(MPI_Win_free_keyval(&key));
}

static int class_of(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static void bad_access_keeps_order(int flavor, MPI_Comm comm, int rank)
{
    const char *fl = na_flavor_name(flavor);
    na_win_t w;
    na_win_create(flavor, 256, comm, &w);
    MPI_Aint t1 = w.disp_of[1];
    MPI_Datatype four;
    MPI_Type_contiguous(8, MPI_INT, &four);     /* 32 bytes */
    MPI_Type_commit(&four);

    MPI_OK(MPI_Win_lock_all(0, w.win));
    if (rank == 0) {
        int src[16] = { 0 }, dst[16];
        /* 64 bytes into 32: refused, before anything is numbered */
        int c = class_of(MPI_Put_notify(src, 16, MPI_INT, 1, t1, 1, four, w.win, 9));
        CHECK(c == MPI_ERR_TRUNCATE, "%s: oversized put_notify: class %d", fl, c);
        c = class_of(MPI_Get_notify(dst, 1, four, 1, t1, 16, MPI_INT, w.win, 9));
        CHECK(c == MPI_ERR_TRUNCATE, "%s: oversized get_notify: class %d", fl, c);
        c = class_of(MPI_Put_notify(src, 1, MPI_INT, 1, t1, 1, MPI_INT, w.win, 1 << 24));
        CHECK(c == MPI_ERR_TAG, "%s: tag 2^24: class %d", fl, c);
        c = class_of(MPI_Put_notify(src, 1, MPI_INT, 1, t1, 1, MPI_INT, w.win, -1));
        CHECK(c == MPI_ERR_TAG, "%s: tag -1: class %d", fl, c);
        c = class_of(MPI_Get_notify(dst, 1, MPI_INT, 1, t1, 1, MPI_INT, w.win, -7));
        CHECK(c == MPI_ERR_TAG, "%s: get tag -7: class %d", fl, c);
        /* what follows is still delivered, in order */
        for (int i = 0; i < 16; i++)
            src[i] = 100 + i;
        MPI_OK(MPI_Put_notify(src, 8, MPI_INT, 1, t1, 1, four, w.win, 9));
        MPI_OK(MPI_Get_notify(dst, 16, MPI_INT, 1, t1 + 64, 16, MPI_INT, w.win, 9));
        MPI_OK(MPI_Win_flush(1, w.win));
    } else if (rank == 1) {
        expect_delivery(w.win, 9, 2, fl);
        MPI_OK(MPI_Win_sync(w.win));
        int *v = (int *) w.base;
        CHECK(v[0] == 100 && v[7] == 107, "%s: put after refused ones: %d %d", fl, v[0], v[7]);
    }
    /* nothing else arrived: no notification of a refused access */
    if (rank == 1) {
        MPI_Request req;
        int flag = 1;
        MPI_OK(MPI_Notify_init(w.win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%s: a refused access was notified", fl);
        MPI_OK(MPI_Cancel(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_OK(MPI_Win_unlock_all(w.win));
    MPI_Type_free(&four);
    na_win_free(&w);
}

static void startall_twice(MPI_Comm comm, int rank)
{
    na_win_t w;
    na_win_create(MPI_WIN_FLAVOR_ALLOCATE, 8, comm, &w);
    MPI_OK(MPI_Win_lock_all(0, w.win));
    if (rank == 1) {
        MPI_Request req, two[2];
        MPI_OK(MPI_Notify_init(w.win, 0, 3, 1, &req));
        two[0] = two[1] = req;
        int c = class_of(MPI_Startall(2, two));
        CHECK(c == MPI_ERR_REQUEST, "same request twice in MPI_Startall: class %d", c);
        MPI_Barrier(comm);
        /* it was started once: one notification completes it */
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
    } else {
        MPI_Barrier(comm);
        if (rank == 0) {
            MPI_OK(MPI_Put_notify(NULL, 0, MPI_BYTE, 1, 0, 0, MPI_BYTE, w.win, 3));
            MPI_OK(MPI_Win_flush(1, w.win));
        }
    }
    MPI_OK(MPI_Win_unlock_all(w.win));
    na_win_free(&w);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int shared = na_shared_ok(MPI_COMM_WORLD);

    win_free_refused(MPI_COMM_WORLD, rank);
    for (int f = 0; f < NA_NFLAVORS; f++) {
        if (na_flavors[f] == MPI_WIN_FLAVOR_SHARED && !shared)
            continue;
        bad_access_keeps_order(na_flavors[f], MPI_COMM_WORLD, rank);
    }
    startall_twice(MPI_COMM_WORLD, rank);
    return na_finish();
}

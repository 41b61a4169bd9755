/* The edges issue 33 reproduced, each fixed:
 *  1. MPI_Fetch_and_op_notify rejects what MPI_Fetch_and_op rejects (NULL
 *     result, NULL origin with an op that reads it, a derived datatype),
 *     with the same error class, and nothing is sent;
 *  2. attaching counters anew (MPIX_Win_create_notify again) drops the
 *     watches of the old ones, due or not: none runs on the new counters;
 *  3. a watch's function gets the value that reached its threshold;
 *  4. a cancelled notification request runs its completion function once,
 *     with a status that says it was cancelled;
 *  5. MPIX_Request_on_complete refuses a request that was freed, or handed
 *     over already, with MPI_ERR_REQUEST (not MPICH's shared builtin
 *     requests of operations complete at once).
 * Each step is followed by plain MPI_Put / MPI_Accumulate on the same
 * window, whose result is checked at the end.  2 processes.
 */
#include "na_test.h"

static int watch_calls;
static MPI_Count watch_value = -1;
static void on_update(MPI_Win win, int idx, MPI_Count value, void *arg)
{
    (void) win;
    (void) idx;
    (void) arg;
    watch_calls++;
    watch_value = value;
}

static int done_calls, done_cancelled = -1;
static void on_done(MPI_Status *status, void *arg)
{
    (void) arg;
    done_calls++;
    MPI_Test_cancelled(status, &done_cancelled);
}

static int class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* rounds of progress, without testing any request that has a function (an
 * MPI_Iprobe on MPI_COMM_SELF makes none) */
static void progress(int rounds)
{
    int flag;
    for (int i = 0; i < rounds; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static void plain_rma(MPI_Win win, int peer)
{
    int one = 1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    MPI_OK(MPI_Put(&one, 1, MPI_INT, peer, 4, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, peer, 4, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(peer, win));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size;
    int *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    memset(base, 0, 8 * sizeof(int));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* 1. MPI_Fetch_and_op_notify's arguments, against MPI_Fetch_and_op's */
    {
        int x = 1, r = 0;
        MPI_Datatype vec;
        MPI_OK(MPI_Type_contiguous(1, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
        struct {
            const char *what;
            const void *o;
            void *res;
            MPI_Datatype t;
            MPI_Op op;
        } bad[] = {
            {"NULL result_addr", &x, NULL, MPI_INT, MPI_SUM},
            {"NULL origin_addr with MPI_SUM", NULL, &r, MPI_INT, MPI_SUM},
            {"derived datatype", &x, &r, vec, MPI_SUM},
            {"user op", &x, &r, MPI_INT, MPI_OP_NULL},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            int plain = MPI_Fetch_and_op(bad[i].o, bad[i].res, bad[i].t, peer, 0, bad[i].op, win);
            int notified = MPI_Fetch_and_op_notify(bad[i].o, bad[i].res, bad[i].t, peer, 0,
                                                   bad[i].op, win, 3);
            CHECK(plain != MPI_SUCCESS, "MPI_Fetch_and_op took a %s", bad[i].what);
            CHECK(class_of(notified) == class_of(plain),
                  "%s: MPI_Fetch_and_op_notify class %d, MPI_Fetch_and_op class %d", bad[i].what,
                  class_of(notified), class_of(plain));
        }
        /* MPI_NO_OP reads nothing from the origin: NULL is fine for both */
        MPI_OK(MPI_Fetch_and_op(NULL, &r, MPI_INT, peer, 0, MPI_NO_OP, win));
        MPI_OK(MPI_Fetch_and_op_notify(NULL, &r, MPI_INT, peer, 0, MPI_NO_OP, win, 3));
        MPI_OK(MPI_Win_unlock(peer, win));
        MPI_OK(MPI_Type_free(&vec));
        /* exactly one notification came of it: the MPI_NO_OP one */
        MPI_Request req;
        MPI_Status st;
        int flag = 0, extra = 0;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Notify_init(win, (rank + size - 1) % size, 3, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, &st));
        MPI_OK(MPI_Start(&req));
        for (int i = 0; i < 100 && !flag; i++)
            MPI_OK(MPI_Test(&req, &flag, &st));
        extra = flag;
        if (!flag) {
            MPI_OK(MPI_Cancel(&req));
            MPI_OK(MPI_Wait(&req, &st));
        }
        CHECK(!extra, "a refused MPI_Fetch_and_op_notify still notified");
        MPI_OK(MPI_Request_free(&req));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    plain_rma(win, peer);

    /* 2. attaching counters anew drops the old counters' watches */
    {
        MPI_Count c;
        MPI_OK(MPIX_Win_create_notify(win, 1000));
        MPI_OK(MPIX_Win_set_notify(win, 999, 5));
        MPI_OK(MPIX_Win_notify_on_update(win, 999, 1, on_update, NULL));   /* due at once */
        MPI_OK(MPIX_Win_notify_on_update(win, 0, 1, on_update, NULL));     /* not reached */
        MPI_OK(MPIX_Win_create_notify(win, 1));        /* before any progress ran the due one */
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
        int one = 1;
        MPI_OK(MPIX_Put_notify(&one, 1, MPI_INT, peer, 6, 1, MPI_INT, 0, win));
        MPI_OK(MPI_Win_unlock(peer, win));
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        while (c < 1);
        progress(100);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        progress(100);
        CHECK(watch_calls == 0, "%d watch functions of detached counters ran (value %lld)",
              watch_calls, (long long) watch_value);
    }
    plain_rma(win, peer);

    /* 3. a watch gets the value that reached its threshold */
    {
        MPI_Count c = 0;
        MPI_OK(MPIX_Win_create_notify(win, 1));
        MPI_OK(MPIX_Win_notify_on_update(win, 0, 1, on_update, NULL));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int one = 1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
        for (int i = 0; i < 3; i++)
            MPI_OK(MPIX_Put_notify(&one, 1, MPI_INT, peer, 6, 1, MPI_INT, 0, win));
        MPI_OK(MPI_Win_unlock(peer, win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        while (c < 3);
        for (int i = 0; i < 10000 && watch_calls == 0; i++)
            progress(1);
        CHECK(watch_calls == 1 && watch_value == 1,
              "watch: %d calls, value %lld; want 1 call with the value 1 that reached the "
              "threshold (the counter is %lld)", watch_calls, (long long) watch_value,
              (long long) c);
        MPI_OK(MPIX_Win_free_notify(win));
    }
    plain_rma(win, peer);

    /* 4. a cancelled activation runs the completion function */
    {
        MPI_Request req;
        MPI_OK(MPI_Notify_init(win, peer, 77, 1, &req));
        MPI_OK(MPIX_Request_on_complete(req, on_done, NULL));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Cancel(&req));
        for (int i = 0; i < 10000 && done_calls == 0; i++)
            progress(1);
        CHECK(done_calls == 1 && done_cancelled == 1,
              "cancelled activation: %d calls, cancelled %d; want 1 call, cancelled 1",
              done_calls, done_cancelled);
        MPI_OK(MPI_Request_free(&req));
    }
    plain_rma(win, peer);

    /* 5. freed or handed-over requests are refused */
    {
        MPI_Request req, copy;
        int rc, x = rank, y = -1;
        /* a receive posted before its message: a request of its own
         * (not one of the builtin ones), freed by MPI_Wait */
        MPI_OK(MPI_Irecv(&y, 1, MPI_INT, 0, 8, MPI_COMM_SELF, &req));
        copy = req;
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 8, MPI_COMM_SELF));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        rc = MPIX_Request_on_complete(copy, on_done, NULL);
        CHECK(class_of(rc) == MPI_ERR_REQUEST, "on a freed request: class %d, want %d",
              class_of(rc), MPI_ERR_REQUEST);

        done_calls = 0;
        MPI_OK(MPI_Irecv(&y, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &req));
        copy = req;
        MPI_OK(MPIX_Request_on_complete(req, on_done, NULL));
        rc = MPIX_Request_on_complete(copy, on_done, NULL);
        CHECK(class_of(rc) == MPI_ERR_REQUEST, "handed over twice: class %d, want %d",
              class_of(rc), MPI_ERR_REQUEST);
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
        for (int i = 0; i < 10000 && done_calls == 0; i++)
            progress(1);
        progress(10);
        CHECK(done_calls == 1 && y == rank, "handed-over receive: %d calls, got %d", done_calls,
              y);

        /* operations complete at once share MPICH's builtin requests: each
         * hand-over of one is a hand-over of its own */
        MPI_Request n1, n2;
        done_calls = 0;
        MPI_OK(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &n1));
        MPI_OK(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &n2));
        MPI_OK(MPIX_Request_on_complete(n1, on_done, NULL));
        MPI_OK(MPIX_Request_on_complete(n2, on_done, NULL));
        for (int i = 0; i < 10000 && done_calls < 2; i++)
            progress(1);
        CHECK(done_calls == 2, "two MPI_PROC_NULL sends handed over: %d calls, want 2", done_calls);
    }
    plain_rma(win, peer);

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    /* five rounds of put 1, then accumulate 1 */
    CHECK(base[4] == 2, "plain RMA word %d, want 2", base[4]);
    MPI_OK(MPI_Win_unlock(rank, win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

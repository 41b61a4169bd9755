/*
 * MPIX_Request_on_complete: a notification request hands each completion to
 * a function that the progress engine calls.
 *
 *   1. chain: rank 1's function runs once per notified put from rank 0
 *      (ROUNDS of them, each after an MPI_Put and an MPI_Accumulate to the
 *      same word made complete by a flush), sees the put's data in its
 *      window and the status (source 0, tag, bytes), and starts the next
 *      activation itself; rank 1 only drives progress (MPI_Test on a receive
 *      that never matches) meanwhile.  Exactly ROUNDS calls, in order.
 *   2. queued: notifications that arrived before the function was set and
 *      before MPI_Start are handed over too, one call per activation, also
 *      when MPI_Start completes the request at once.
 *   3. free: a request whose activation completed but whose function has
 *      not run yet is freed: the function never runs.
 *   4. MPI_PROC_NULL source: the function runs with source MPI_PROC_NULL.
 *   5. errors: a persistent send request gives MPI_ERR_REQUEST, a receive
 *      with no function MPI_ERR_ARG (and stays the caller's); the function
 *      NULL removes a notification request's.
 *   6. MPIX_Win_notify_on_update: a counter's function runs once, when
 *      counted puts (among plain puts) raise it to the threshold, with the
 *      counter's value and the window; one set when the counter is there
 *      already runs at the next round of progress; a window without
 *      counters gives MPIX_ERR_INVALID_NOTIFICATION.
 *   Every function runs in the thread whose MPI call made progress (the
 *   main thread here; in test/completion/natasks.c libnatasks's progress thread), with
 *   MPI_THREAD_MULTIPLE: outside MPICH's lock, so MPI_Start from one works.
 *   7. handed over: a receive (its data in place and its status when the
 *      function runs), a send, a nonblocking barrier, MPI_Rput_notify's and
 *      MPI_Rget's requests, and a receive complete before the call: each
 *      function runs exactly once, MPICH frees the requests.
 */
#include "na_test.h"
#include <pthread.h>

#define ROUNDS 200
#define TAG 5

static MPI_Win win;
static int *base;
static int calls, last_value, bad_status, out_of_order;
static MPI_Request chain_req;

static void on_put(MPI_Status * st, void *arg)
{
    int *expected_tag = arg;
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != 0 || st->MPI_TAG != *expected_tag || count != (int) sizeof(int) ||
        st->MPI_ERROR != MPI_SUCCESS)
        bad_status++;
    /* the put's value: the round number, after the round's plain accesses */
    if (base[0] != calls + 1)
        out_of_order++;
    last_value = base[0];
    calls++;
    if (calls < ROUNDS)
        MPI_OK(MPI_Start(&chain_req));  /* the next activation, from the function */
}

static int simple_calls, other_thread;
static MPI_Status simple_status;
static pthread_t main_thread;
static void count_call(MPI_Status * st, void *arg)
{
    (void) arg;
    simple_status = *st;
    simple_calls++;
    /* run by the thread whose MPI call made progress: here the only one */
    if (!pthread_equal(pthread_self(), main_thread))
        other_thread++;
}

/* one handed-over request: what its function saw */
struct handed {
    int calls, source, tag, count, err;
    const int *data;            /* checked against want when the function runs */
    int want, data_ok;
};
static void on_handed(MPI_Status * st, void *arg)
{
    struct handed *h = arg;
    h->calls++;
    h->source = st->MPI_SOURCE;
    h->tag = st->MPI_TAG;
    h->err = st->MPI_ERROR;
    MPI_Get_count(st, MPI_INT, &h->count);
    h->data_ok = !h->data || *h->data == h->want;
}

static int handed_calls(struct handed *h, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += h[i].calls;
    return sum;
}

static int counter_calls, counter_idx;
static MPI_Count counter_value;
static MPI_Win counter_win;
static void on_counter(MPI_Win w, int idx, MPI_Count value, void *arg)
{
    (void) arg;
    counter_win = w;
    counter_idx = idx;
    counter_value = value;
    counter_calls++;
}

/* drive progress until *counter reaches want, for at most seconds */
static void progress_until(int *counter, int want, double seconds)
{
    MPI_Request never;
    int flag, dummy;
    MPI_OK(MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &never));
    double t0 = MPI_Wtime();
    while (*counter < want && MPI_Wtime() - t0 < seconds)
        MPI_OK(MPI_Test(&never, &flag, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Cancel(&never));
    MPI_OK(MPI_Wait(&never, MPI_STATUS_IGNORE));
}

/* until a notification from rank 0 with this tag is in the window's queue */
static void await_queued(int tag)
{
    int flag = 0;
    MPI_Status st;
    while (!flag)
        MPI_OK(MPIX_Notify_iprobe(win, 0, tag, &flag, &st));
}

int main(int argc, char **argv)
{
    int rank, size, tag = TAG, provided;
    /* threaded: the functions run outside MPICH's global critical section,
     * so that the ones calling MPI (MPI_Start) do not enter it twice */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    main_thread = pthread_self();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    na_expect_path(win);
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));

    /* 1. chain */
    if (rank == 1) {
        MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &chain_req));
        MPI_OK(MPIX_Request_on_complete(chain_req, on_put, &tag));
        MPI_OK(MPI_Start(&chain_req));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int junk = -7, one = 1, round;
        for (round = 1; round <= ROUNDS; round++) {
            /* plain RMA to the same word first, complete before the put */
            MPI_OK(MPI_Put(&junk, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Put_notify(&round, 1, MPI_INT, 1, 0, 1, MPI_INT, win, TAG));
            MPI_OK(MPI_Win_flush(1, win));
            /* the next round only once rank 1's function has taken this one */
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else if (rank == 1) {
        for (int round = 1; round <= ROUNDS; round++) {
            progress_until(&calls, round, 60);
            CHECK(calls == round, "round %d: %d calls", round, calls);
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
        }
        progress_until(&calls, ROUNDS + 1, 0.2);        /* no extra call comes */
        CHECK(calls == ROUNDS && bad_status == 0 && out_of_order == 0 && last_value == ROUNDS,
              "calls %d, bad statuses %d, out of order %d, last value %d", calls, bad_status,
              out_of_order, last_value);
        MPI_OK(MPI_Request_free(&chain_req));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. queued before the function and before the start */
    if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Put_notify(&i, 1, MPI_INT, 1, 1, 1, MPI_INT, win, TAG + 1));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Request req;
        /* all three have arrived (flushed before the barrier): take them in */
        await_queued(TAG + 1);
        MPI_OK(MPI_Notify_init(win, 0, TAG + 1, 1, &req));
        MPI_OK(MPIX_Request_on_complete(req, count_call, NULL));
        for (int i = 1; i <= 3; i++) {
            MPI_OK(MPI_Start(&req));        /* completes at once from the queue */
            progress_until(&simple_calls, i, 60);
            CHECK(simple_calls == i && simple_status.MPI_SOURCE == 0 &&
                  simple_status.MPI_TAG == TAG + 1, "queued %d: %d calls, source %d tag %d", i,
                  simple_calls, simple_status.MPI_SOURCE, simple_status.MPI_TAG);
        }
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. freed with its function pending */
    if (rank == 0) {
        int v = 42;
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win, TAG + 2));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Request req;
        await_queued(TAG + 2);
        simple_calls = 0;
        MPI_OK(MPI_Notify_init(win, 0, TAG + 2, 1, &req));
        MPI_OK(MPIX_Request_on_complete(req, count_call, NULL));
        MPI_OK(MPI_Start(&req));            /* complete, its function due */
        /* MPI_Request_free makes progress first (MPICH's MPID_Progress_poke),
         * which may run the function; none runs after it returns */
        MPI_OK(MPI_Request_free(&req));
        int at_free = simple_calls;
        progress_until(&simple_calls, at_free + 1, 0.2);
        CHECK(at_free <= 1 && simple_calls == at_free, "freed request: %d calls, %d at the free",
              simple_calls, at_free);
        CHECK(base[2] == 42, "freed request's put: %d", base[2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 4. MPI_PROC_NULL source */
    {
        MPI_Request req;
        simple_calls = 0;
        MPI_OK(MPI_Notify_init(win, MPI_PROC_NULL, 0, 1, &req));
        MPI_OK(MPIX_Request_on_complete(req, count_call, NULL));
        MPI_OK(MPI_Start(&req));
        progress_until(&simple_calls, 1, 60);
        CHECK(simple_calls == 1 && simple_status.MPI_SOURCE == MPI_PROC_NULL,
              "MPI_PROC_NULL: %d calls, source %d", simple_calls, simple_status.MPI_SOURCE);
        MPI_OK(MPI_Request_free(&req));
    }

    /* 5. errors, and removing the function */
    {
        MPI_Request rreq, req;
        int dummy, rc, cls;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_OK(MPI_Send_init(&dummy, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &req));
        rc = MPIX_Request_on_complete(req, count_call, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_REQUEST, "a persistent send request: class %d", cls);
        MPI_OK(MPI_Request_free(&req));
        MPI_OK(MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &rreq));
        rc = MPIX_Request_on_complete(rreq, NULL, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "a receive without function: class %d", cls);
        MPI_OK(MPI_Cancel(&rreq));
        MPI_OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

        simple_calls = 0;
        MPI_OK(MPI_Notify_init(win, MPI_PROC_NULL, 0, 1, &req));
        MPI_OK(MPIX_Request_on_complete(req, count_call, NULL));
        MPI_OK(MPIX_Request_on_complete(req, NULL, NULL));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));      /* no function: waited as usual */
        progress_until(&simple_calls, 1, 0.2);
        CHECK(simple_calls == 0, "removed function ran %d times", simple_calls);
        MPI_OK(MPI_Request_free(&req));
    }

    /* 6. counters */
    {
        int rc, cls;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        rc = MPIX_Win_notify_on_update(win, 0, 1, on_counter, NULL);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "no counters: class %d", cls);
        MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    }
    MPI_OK(MPIX_Win_create_notify(win, 2));
    if (rank == 1)
        MPI_OK(MPIX_Win_notify_on_update(win, 1, 3, on_counter, &tag));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int junk = -1;
        for (int i = 0; i < 3; i++) {
            MPI_OK(MPI_Put(&junk, 1, MPI_INT, 1, 3, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPIX_Put_notify(&i, 1, MPI_INT, 1, 3, 1, MPI_INT, 1, win));
            MPI_OK(MPI_Win_flush(1, win));
        }
    } else if (rank == 1) {
        progress_until(&counter_calls, 1, 60);
        progress_until(&counter_calls, 2, 0.2);
        CHECK(counter_calls == 1 && counter_value == 3 && counter_win == win &&
              counter_idx == 1 && base[3] == 2, "counter: %d calls, value %lld, idx %d, data %d",
              counter_calls, (long long) counter_value, counter_idx, base[3]);
        /* reached already */
        MPI_OK(MPIX_Win_notify_on_update(win, 1, 2, on_counter, &tag));
        progress_until(&counter_calls, 2, 60);
        CHECK(counter_calls == 2, "reached counter: %d calls", counter_calls);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPIX_Win_free_notify(win));
    CHECK(other_thread == 0, "%d functions ran in another thread", other_thread);

    /* 7. nonpersistent requests handed over (0 and 1; others only barrier) */
    if (rank < 2) {
        enum { RECV, SEND, BARRIER, RPUT, RGET, EARLY, N };
        struct handed h[N] = { 0 };
        int peer = 1 - rank, rbuf = -1, sbuf = 100 + rank, early = -1, gbuf = -1;
        MPI_Request req;

        base[1] = 500 + rank;   /* what the peer's MPI_Rget reads */
        MPI_OK(MPI_Win_sync(win));
        if (rank == 0)  /* the message rank 1 receives after it arrived */
            MPI_OK(MPI_Send(&sbuf, 1, MPI_INT, 1, 30, MPI_COMM_WORLD));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

        h[RECV].data = &rbuf;
        h[RECV].want = 100 + peer;
        MPI_OK(MPI_Irecv(&rbuf, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &req));
        MPI_OK(MPIX_Request_on_complete(req, on_handed, &h[RECV]));
        MPI_OK(MPI_Isend(&sbuf, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &req));
        MPI_OK(MPIX_Request_on_complete(req, on_handed, &h[SEND]));
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        MPI_OK(MPIX_Request_on_complete(req, on_handed, &h[BARRIER]));
        MPI_OK(MPI_Rput_notify(&sbuf, 1, MPI_INT, peer, 2, 1, MPI_INT, win, 32, &req));
        MPI_OK(MPIX_Request_on_complete(req, on_handed, &h[RPUT]));
        h[RGET].data = &gbuf;
        h[RGET].want = 500 + peer;
        MPI_OK(MPI_Rget(&gbuf, 1, MPI_INT, peer, 1, 1, MPI_INT, win, &req));
        MPI_OK(MPIX_Request_on_complete(req, on_handed, &h[RGET]));
        if (rank == 1) {
            h[EARLY].data = &early;
            h[EARLY].want = 100;
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            /* arrived before the barrier: complete before the function is set */
            MPI_OK(MPI_Irecv(&early, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &req));
            MPI_OK(MPIX_Request_on_complete(req, on_handed, &h[EARLY]));
        } else {
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 33, MPI_COMM_WORLD));
            h[EARLY].calls = h[EARLY].data_ok = 1;
        }
        req = MPI_REQUEST_NULL; /* MPICH's now */

        double t0 = MPI_Wtime();
        while (handed_calls(h, N) < N && MPI_Wtime() - t0 < 60)
            progress_until(&h[0].calls, 2, 0.01);
        progress_until(&h[0].calls, 2, 0.2);    /* no second call comes */
        for (int i = 0; i < N; i++)
            CHECK(h[i].calls == 1 && h[i].data_ok && h[i].err == MPI_SUCCESS,
                  "handed-over request %d: %d calls, data %s, error %d", i, h[i].calls,
                  h[i].data_ok ? "ok" : "wrong", h[i].err);
        CHECK(h[RECV].source == peer && h[RECV].tag == 31 && h[RECV].count == 1,
              "receive status: source %d tag %d count %d", h[RECV].source, h[RECV].tag,
              h[RECV].count);
        CHECK(rank == 0 || (h[EARLY].source == 0 && h[EARLY].tag == 30),
              "early receive status: source %d tag %d", h[EARLY].source, h[EARLY].tag);
        /* the peer's notified put, taken as usual */
        MPI_OK(MPI_Notify_init(win, peer, 32, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&req));
        CHECK(base[2] == 100 + peer, "Rput_notify's data: %d", base[2]);
    } else {
        MPI_Request req;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

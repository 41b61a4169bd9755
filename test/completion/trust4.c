/*
 * Issue 63's reproduced edges of continuations and request freeing.  2 ranks,
 * MPI_THREAD_MULTIPLE.  Each part fails (wrong count, wrong class, a crash or
 * the watchdog's "hang") without its fix; none depends on timing: the sleeps
 * only make the bad interleaving likely, the counts hold in every one.
 *
 *   1. a generalized request watched by a continuation, whose query_fn
 *      sleeps (MPICH runs it outside the global lock) while another thread
 *      makes progress: query_fn, free_fn and the callback run once each;
 *      single-threaded, a query_fn that calls MPI (re-entering the progress
 *      hook) likewise.
 *   2. MPI_Waitall on a poll-only continuation request while another thread
 *      must enter MPI (MPI_Grequest_complete) to complete its operation;
 *      MPI_Testall polls such a request as MPI_Test does.
 *   3. MPIX_Request_on_complete on a notification request that an
 *      MPIX_Continue continuation holds: MPI_ERR_REQUEST, with a function
 *      and with NULL; the continuation still runs once, with the
 *      notification's status, after a plain put and an accumulate to the
 *      same word.
 *   4. MPI_Cancel on a continuation request: MPI_ERR_REQUEST.  MPI_Request_free
 *      on active requests of MPI_Rput, MPI_Rput_notify, MPIX_Win_notify_request
 *      and MPI_Ibarrier: MPI_SUCCESS, and the operations still complete.
 *   6. MPIX_Continue_init(MPIX_CONT_POLL_ONLY, MPI_UNDEFINED): no limit, one
 *      MPI_Test runs every ready callback; a negative max_poll: MPI_ERR_ARG.
 *   7. after a generalized request whose query_fn failed, later errors keep
 *      their own class once MPICH's ring of error messages has wrapped
 *      (patches/fixes/0015).
 */
#include "na_test.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

/* GCC >= 11 takes MPI_STATUSES_IGNORE ((MPI_Status *) 1) passed to an array
 * parameter for a zero-size array (MPI_Waitall of MPICH's own mpi.h too) */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define TAG 5

static atomic_int queries, frees, cbs, stop_probing, in_wait;
static int query_sleep_us, query_reenters, depth;

static void watchdog(int sig)
{
    (void) sig;
    static const char msg[] = "trust4: hang (watchdog): a wait never returned\n";
    (void) !write(2, msg, sizeof(msg) - 1);
    _exit(3);
}

static int q_fn(void *extra, MPI_Status * st)
{
    (void) extra;
    queries++;
    if (query_sleep_us)
        usleep(query_sleep_us);
    if (query_reenters && depth++ == 0) {
        int flag;
        /* re-enters progress, and with it the continuations' hook */
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    depth = 0;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = 42;
    return MPI_SUCCESS;
}

static int f_fn(void *extra)
{
    (void) extra;
    frees++;
    return MPI_SUCCESS;
}

static int c_fn(void *extra, int complete)
{
    (void) extra;
    (void) complete;
    return MPI_SUCCESS;
}

static int cb(int err, void *data)
{
    int *e = data;
    if (e)
        *e = err;
    cbs++;
    return MPI_SUCCESS;
}

static void *prober(void *arg)
{
    (void) arg;
    int flag;
    while (!stop_probing)
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    return NULL;
}

static void progress_until(atomic_int * v, int want)
{
    int flag;
    while (*v < want)
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
}

static void reset(void)
{
    queries = frees = cbs = 0;
}

/* 1: two threads' progress, a query_fn outside the lock */
static void part1(void)
{
    for (int round = 0; round < 20; round++) {
        MPI_Request g;
        MPI_Status st;
        pthread_t t;
        reset();
        query_sleep_us = 2000;
        MPI_OK(MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &g));
        MPI_Request h = g;      /* MPIX_Continue nulls g; completing is still ours */
        MPI_OK(MPIX_Continue(&h, cb, NULL, 0, &st, MPI_REQUEST_NULL));
        stop_probing = 0;
        pthread_create(&t, NULL, prober, NULL);
        MPI_OK(MPI_Grequest_complete(g));
        progress_until(&cbs, 1);
        stop_probing = 1;
        pthread_join(t, NULL);
        CHECK(queries == 1 && frees == 1 && cbs == 1,
              "threads, round %d: query_fn %d, free_fn %d, callback %d times (want 1 each)",
              round, (int) queries, (int) frees, (int) cbs);
        CHECK(st.MPI_TAG == 42, "status tag %d, want query_fn's 42", st.MPI_TAG);
    }
    query_sleep_us = 0;

    /* a query_fn that calls MPI, one thread */
    MPI_Request g;
    reset();
    query_reenters = 1;
    MPI_OK(MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &g));
    MPI_Request h = g;
    MPI_OK(MPIX_Continue(&h, cb, NULL, 0, MPI_STATUS_IGNORE, MPI_REQUEST_NULL));
    MPI_OK(MPI_Grequest_complete(g));
    progress_until(&cbs, 1);
    query_reenters = 0;
    CHECK(queries == 1 && frees == 1 && cbs == 1,
          "re-entering query_fn: query_fn %d, free_fn %d, callback %d times (want 1 each)",
          (int) queries, (int) frees, (int) cbs);
}

static void *completer(void *arg)
{
    MPI_Request *g = arg;
    while (!in_wait)
        usleep(100);
    usleep(5000);       /* likely inside MPI_Waitall by now; correct either way */
    MPI_OK(MPI_Grequest_complete(*g));
    return NULL;
}

/* 2: MPI_Waitall on a poll-only continuation request yields the lock */
static void part2(void)
{
    MPI_Request g, cr, g_handle;
    pthread_t t;
    int err = -1;
    reset();
    MPI_OK(MPIX_Continue_init(MPIX_CONT_POLL_ONLY, 0, MPI_INFO_NULL, &cr));
    MPI_OK(MPI_Start(&cr));
    MPI_OK(MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &g));
    g_handle = g;
    MPI_OK(MPIX_Continue(&g, cb, &err, 0, MPI_STATUS_IGNORE, cr));
    in_wait = 0;
    pthread_create(&t, NULL, completer, &g_handle);
    in_wait = 1;
    MPI_OK(MPI_Waitall(1, &cr, MPI_STATUSES_IGNORE));
    pthread_join(t, NULL);
    CHECK(cbs == 1 && err == MPI_SUCCESS, "MPI_Waitall on a poll-only request: callback %d "
          "times, error %d", (int) cbs, err);

    /* MPI_Testall polls it too (found by test/fuzz/completion_fuzz) */
    int flag = 0;
    reset();
    MPI_OK(MPI_Start(&cr));
    MPI_OK(MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &g));
    g_handle = g;
    MPI_OK(MPIX_Continue(&g, cb, &err, 0, MPI_STATUS_IGNORE, cr));
    MPI_OK(MPI_Grequest_complete(g_handle));
    while (!flag)
        MPI_OK(MPI_Testall(1, &cr, &flag, MPI_STATUSES_IGNORE));
    CHECK(cbs == 1, "MPI_Testall on a poll-only request: callback %d times", (int) cbs);
    MPI_OK(MPI_Request_free(&cr));
}

static void on_complete_fn(MPI_Status * st, void *arg)
{
    (void) st;
    (*(int *) arg)++;
}

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* 3: on_complete does not take over an MPIX_Continue continuation */
static void part3(int rank, MPI_Win win, int64_t * base)
{
    int64_t v;
    if (rank == 1) {
        MPI_Request n, held;
        MPI_Status st;
        int fn_calls = 0, err = -1, rc;
        reset();
        MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &n));
        MPI_OK(MPI_Start(&n));
        held = n;
        MPI_OK(MPIX_Continue(&held, cb, &err, 0, &st, MPI_REQUEST_NULL));
        rc = MPIX_Request_on_complete(n, on_complete_fn, &fn_calls);
        CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_REQUEST,
              "on_complete over a continuation: class %d, want MPI_ERR_REQUEST", err_class(rc));
        rc = MPIX_Request_on_complete(n, NULL, NULL);
        CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_REQUEST,
              "on_complete(NULL) over a continuation: class %d, want MPI_ERR_REQUEST",
              err_class(rc));
        CHECK(cbs == 0, "the continuation ran before any notification (%d)", (int) cbs);
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
        progress_until(&cbs, 1);
        CHECK(cbs == 1 && err == MPI_SUCCESS, "continuation ran %d times, error %d", (int) cbs,
              err);
        int cancelled = 1;
        MPI_OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG && !cancelled,
              "status source %d tag %d cancelled %d", st.MPI_SOURCE, st.MPI_TAG, cancelled);
        MPI_OK(MPI_Win_sync(win));
        CHECK(base[0] == 3 + 10 && base[1] == 7, "after a put, an accumulate and a notified "
              "put: %lld %lld", (long long) base[0], (long long) base[1]);
        CHECK(fn_calls == 0, "the refused completion function ran %d times", fn_calls);
        MPI_OK(MPI_Request_free(&n));
    } else {
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v = 3;
        MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(1, win));
        v = 10;
        MPI_OK(MPI_Accumulate(&v, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(1, win));
        v = 7;
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, 1, 1, 1, MPI_INT64_T, win, TAG));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* 4: cancel of a continuation request; freeing active RMA and COLL requests */
static void part4(int rank, MPI_Win win, int64_t * base)
{
    MPI_Request cr, r;
    int rc;
    int64_t v[2] = { 21, 22 };

    MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
    rc = MPI_Cancel(&cr);
    CHECK(err_class(rc) == MPI_ERR_REQUEST, "MPI_Cancel on a continuation request: class %d, "
          "want MPI_ERR_REQUEST", err_class(rc));
    MPI_OK(MPI_Request_free(&cr));

    if (rank == 0) {
        MPI_OK(MPI_Rput(&v[0], 1, MPI_INT64_T, 1, 2, 1, MPI_INT64_T, win, &r));
        rc = MPI_Request_free(&r);
        CHECK(rc == MPI_SUCCESS && r == MPI_REQUEST_NULL, "MPI_Request_free of MPI_Rput's "
              "request: class %d", err_class(rc));
        MPI_OK(MPI_Rput_notify(&v[1], 1, MPI_INT64_T, 1, 3, 1, MPI_INT64_T, win, TAG, &r));
        rc = MPI_Request_free(&r);
        CHECK(rc == MPI_SUCCESS, "MPI_Request_free of MPI_Rput_notify's request: class %d",
              err_class(rc));
        MPI_OK(MPI_Win_flush(1, win));
        MPI_OK(MPIX_Put_notify(&v[0], 1, MPI_INT64_T, 1, 4, 1, MPI_INT64_T, 0, win));
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        MPI_Request n, w;
        MPI_Status st;
        MPI_Count c = 0;
        /* the counter's request, freed before the counted put arrives */
        MPI_OK(MPIX_Win_notify_request(win, 0, 1, &w));
        rc = MPI_Request_free(&w);
        CHECK(rc == MPI_SUCCESS, "MPI_Request_free of MPIX_Win_notify_request's request: "
              "class %d", err_class(rc));
        MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &n));
        MPI_OK(MPI_Start(&n));
        MPI_OK(MPI_Wait(&n, &st));
        MPI_OK(MPI_Request_free(&n));
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        while (c < 1);
        MPI_OK(MPI_Win_sync(win));
        CHECK(base[2] == 21 && base[3] == 22 && base[4] == 21,
              "after freed MPI_Rput / MPI_Rput_notify requests: %lld %lld %lld",
              (long long) base[2], (long long) base[3], (long long) base[4]);
    }
    MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    rc = MPI_Request_free(&r);
    CHECK(rc == MPI_SUCCESS, "MPI_Request_free of MPI_Ibarrier's request: class %d",
          err_class(rc));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* 6: max_poll MPI_UNDEFINED */
static void part6(void)
{
    MPI_Request cr, g[3];
    int flag = 0, rc;
    reset();
    MPI_OK(MPIX_Continue_init(MPIX_CONT_POLL_ONLY, MPI_UNDEFINED, MPI_INFO_NULL, &cr));
    MPI_OK(MPI_Start(&cr));
    for (int i = 0; i < 3; i++) {
        MPI_Request h;
        MPI_OK(MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, &g[i]));
        h = g[i];
        MPI_OK(MPIX_Continue(&h, cb, NULL, 0, MPI_STATUS_IGNORE, cr));
    }
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Grequest_complete(g[i]));
    /* the operations are complete: the first test finds them, runs every
     * callback (no limit) and so completes */
    MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && cbs == 3, "max_poll MPI_UNDEFINED: one MPI_Test ran %d callbacks, flag %d",
          (int) cbs, flag);
    if (!flag)
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&cr));

    rc = MPIX_Continue_init(MPIX_CONT_POLL_ONLY, -5, MPI_INFO_NULL, &cr);
    CHECK(err_class(rc) == MPI_ERR_ARG, "max_poll -5: class %d, want MPI_ERR_ARG",
          err_class(rc));
}

static int q_fail(void *extra, MPI_Status * st)
{
    q_fn(extra, st);
    return MPI_ERR_OTHER;
}

/* 7: the error ring's slots forget a user code */
static void part7(int size)
{
    MPI_Request g;
    int v = 0, rc, wrong = 0, first = -1;
    MPI_OK(MPI_Grequest_start(q_fail, f_fn, c_fn, NULL, &g));
    MPI_OK(MPI_Grequest_complete(g));
    rc = MPI_Wait(&g, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_OTHER, "the failing query_fn's error: class %d",
          err_class(rc));
    /* each refused send takes ring slots; 300 go round the 128 slots */
    for (int i = 0; i < 300; i++) {
        rc = MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        if (err_class(rc) != MPI_ERR_RANK && wrong++ == 0)
            first = i;
    }
    CHECK(wrong == 0, "%d of 300 sends to a rank that does not exist returned another class "
          "than MPI_ERR_RANK, the first at call %d", wrong, first);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    int64_t *base;
    MPI_Win win;

    signal(SIGALRM, watchdog);
    alarm(90);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "trust4: needs 2 processes and MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Win_allocate(8 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    memset(base, 0, 8 * sizeof(int64_t));
    MPI_OK(MPIX_Win_create_notify(win, 1));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));

    part1();
    part2();
    part3(rank, win, base);
    part4(rank, win, base);
    part6();
    part7(size);

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

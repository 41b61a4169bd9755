/*
 * Continuations: MPIX_Continue_init, MPIX_Continue, MPIX_Continueall, as
 * upstream MPICH declares them (the declarations below are upstream's,
 * repeated: a mismatch with mpi.h fails to compile).  2 ranks, started with
 * MPI_THREAD_MULTIPLE.
 *
 *   1. one receive, no continuation request: the status is in place and
 *      the handle MPI_REQUEST_NULL; the callback runs once, with the data.
 *   2. continuation request: registered while inactive, the callbacks wait
 *      for MPI_Start although the operations completed; it completes when
 *      all ran, MPI_Test on it inactive returns at once; restarted; freed.
 *   3. MPIX_Continueall: statuses of each, an MPI_REQUEST_NULL entry, the
 *      array nulled; with MPIX_CONT_REQBUF_VOLATILE left as it was.
 *   4. MPIX_CONT_POLL_ONLY, max_poll 1: other progress runs none, each
 *      MPI_Test on the request runs one, MPI_Wait the rest.
 *   5. an operation complete already: the callback runs inside the call;
 *      with MPIX_CONT_DEFER_COMPLETE not, at the next progress; an inactive
 *      persistent request counts as complete; MPIX_CONT_IMMEDIATE and
 *      MPIX_CONT_PERSISTENT accepted (no effect here, none upstream);
 *      MPIX_CONT_FORGET registers with no request.
 *   6. a cancelled receive: the callback runs, the status says cancelled.
 *   7. a failed operation (a generalized request whose query fails): with
 *      MPIX_CONT_INVOKE_FAILED the callback gets the error; without, it does
 *      not run and MPI_Wait on the continuation request returns it, once.
 *   8. notification requests: a continuation per started MPI_Notify_init
 *      activation runs once each, sees the notified put's data (after a
 *      plain put and an accumulate to the same word, flushed) and status;
 *      MPI_Rput_notify's request and a persistent send too; a notification
 *      request freed while its continuation waits (complete, cancelled);
 *      two requests complete in the call (one shared builtin request).
 *   9. a continuation request as an operation of another continuation.
 *  10. MPI_Request_free on a continuation request with callbacks pending:
 *      they still run.
 *  11. MPI_THREAD_MULTIPLE: another thread blocked in MPI_Wait on a receive
 *      while this one registers continuations and waits for them.
 *  12. errors: unknown flags, a cont_request that is not one, an operation
 *      given twice, MPI_Start on an active continuation request.
 *  13. a counter threshold (MPIX_Win_notify_request): its continuation runs
 *      once counted puts (among plain puts to the same word) reached it,
 *      status tag = counter index, count = value; MPI_Wait on one reached
 *      already; one whose counters are detached first completes cancelled.
 */
#include "na_test.h"
#include <pthread.h>

/* GCC >= 11 takes MPI_STATUSES_IGNORE ((MPI_Status *) 1) passed to an array
 * parameter for a zero-size array (MPI_Waitall of MPICH's own mpi.h too) */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

/* upstream MPICH's declarations (pmodels/mpich: mpi.h.in and the prototypes
 * generated from src/binding/c/continue_api.txt) */
typedef int (MPIX_Continue_cb_function)(int error_code, void *user_data);
int MPIX_Continue_init(int flags, int max_poll, MPI_Info info, MPI_Request * cont_req);
int MPIX_Continue(MPI_Request * op_request, MPIX_Continue_cb_function * cb, void *cb_data,
                  int flags, MPI_Status * status, MPI_Request cont_request);
int MPIX_Continueall(int count, MPI_Request array_of_op_requests[],
                     MPIX_Continue_cb_function * cb, void *cb_data, int flags,
                     MPI_Status array_of_statuses[], MPI_Request cont_request);
_Static_assert(MPIX_CONT_REQBUF_VOLATILE == 1 && MPIX_CONT_PERSISTENT == 2 &&
               MPIX_CONT_POLL_ONLY == 4 && MPIX_CONT_DEFER_COMPLETE == 8 &&
               MPIX_CONT_INVOKE_FAILED == 16 && MPIX_CONT_IMMEDIATE == 32 &&
               MPIX_CONT_FORGET == 64, "upstream's flag values");

#define N 8
#define TAG 7

struct seen {
    int calls, err, data_ok;
    const int *data;
    int want;
};

static int cb_record(int error_code, void *user_data)
{
    struct seen *s = user_data;
    s->calls++;
    s->err = error_code;
    s->data_ok = !s->data || *s->data == s->want;
    return MPI_SUCCESS;
}

static int counted;
static int cb_count(int error_code, void *user_data)
{
    (void) error_code;
    (void) user_data;
    counted++;
    return MPI_SUCCESS;
}

/* make progress for a while, on nothing in particular */
static void spin(double seconds)
{
    int flag;
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds)
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
}

static void spin_until(const int *counter, int want, double seconds)
{
    int flag;
    double t0 = MPI_Wtime();
    while (*counter < want && MPI_Wtime() - t0 < seconds)
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
}

/* rank 1 sends n ints, values base..base+n-1, tag TAG, each a message */
static void send_n(int n, int base)
{
    for (int i = 0; i < n; i++) {
        int v = base + i;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD));
    }
}

/* a generalized request, completed by MPI_Grequest_complete */
static int greq_query(void *extra, MPI_Status * st)
{
    (void) extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_query_fail(void *extra, MPI_Status * st)
{
    greq_query(extra, st);
    return MPI_ERR_OTHER;
}

static int greq_free(void *extra)
{
    (void) extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void) extra;
    (void) complete;
    return MPI_SUCCESS;
}

static int greq(MPI_Request * r)
{
    return MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, r);
}

static void sync_pair(void)
{
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void *blocked_waiter(void *arg)
{
    int *v = arg;
    MPI_Request r;
    MPI_OK(MPI_Irecv(v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);

    /* 1. one receive, no continuation request */
    if (rank == 0) {
        int v = -1;
        struct seen s = { 0, -1, 0, &v, 41 };
        MPI_Status st;
        MPI_Request r;
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r));
        MPI_OK(MPIX_Continue(&r, cb_record, &s, 0, &st, MPI_REQUEST_NULL));
        CHECK(r == MPI_REQUEST_NULL, "1: handle not nulled");
        sync_pair();
        spin_until(&s.calls, 1, 30);
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(s.calls == 1 && s.err == MPI_SUCCESS && s.data_ok, "1: calls %d err %d data %d",
              s.calls, s.err, v);
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == TAG && count == 1,
              "1: status source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        spin(0.05);
        CHECK(s.calls == 1, "1: %d calls", s.calls);
    } else {
        sync_pair();
        send_n(1, 41);
    }
    sync_pair();

    /* 2. continuation request: held while inactive, then started */
    if (rank == 0) {
        MPI_Request cr, r[N];
        int v[N], flag = 0;
        counted = 0;
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "2: an inactive continuation request tests complete");
        for (int i = 0; i < N; i++) {
            MPI_OK(MPI_Irecv(&v[i], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r[i]));
            MPI_OK(MPIX_Continue(&r[i], cb_count, NULL, 0, MPI_STATUS_IGNORE, cr));
        }
        sync_pair();
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));    /* rank 1 has sent all */
        spin(0.1);
        CHECK(counted == 0, "2: %d callbacks ran before MPI_Start", counted);
        MPI_OK(MPI_Start(&cr));
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(counted == N, "2: %d callbacks after MPI_Wait", counted);
        for (int i = 0; i < N; i++)
            CHECK(v[i] == 100 + i, "2: v[%d] = %d", i, v[i]);
        /* inactive again: reused */
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "2: inactive after wait");
        MPI_OK(MPI_Start(&cr));
        MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPIX_Continue(&r[0], cb_count, NULL, 0, MPI_STATUS_IGNORE, cr));
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag || counted == N + 1, "2: complete before its callback ran");
        sync_pair();
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(counted == N + 1 && v[0] == 200, "2: restarted: %d callbacks, v %d", counted, v[0]);
        /* started with nothing registered: complete at once */
        MPI_OK(MPI_Start(&cr));
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "2: empty continuation request not complete");
        MPI_OK(MPI_Request_free(&cr));
        CHECK(cr == MPI_REQUEST_NULL, "2: freed handle");
    } else {
        sync_pair();
        send_n(N, 100);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        sync_pair();
        send_n(1, 200);
    }
    sync_pair();

    /* 3. MPIX_Continueall */
    if (rank == 0) {
        MPI_Request cr, r[3], keep[3];
        MPI_Status st[3];
        int v[2] = { -1, -1 };
        struct seen s = { 0 };
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
        MPI_OK(MPI_Start(&cr));
        MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r[0]));
        r[1] = MPI_REQUEST_NULL;
        MPI_OK(MPI_Irecv(&v[1], 1, MPI_INT, 1, TAG + 1, MPI_COMM_WORLD, &r[2]));
        MPI_OK(MPIX_Continueall(3, r, cb_record, &s, 0, st, cr));
        CHECK(r[0] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL, "3: array not nulled");
        sync_pair();
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(s.calls == 1 && s.err == MPI_SUCCESS, "3: calls %d", s.calls);
        CHECK(v[0] == 300 && v[1] == 301, "3: data %d %d", v[0], v[1]);
        CHECK(st[0].MPI_TAG == TAG && st[2].MPI_TAG == TAG + 1 && st[0].MPI_SOURCE == 1 &&
              st[1].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_ERROR == MPI_SUCCESS,
              "3: statuses tag %d %d source %d %d", st[0].MPI_TAG, st[2].MPI_TAG,
              st[0].MPI_SOURCE, st[1].MPI_SOURCE);
        /* volatile: the array is left alone */
        MPI_OK(MPI_Start(&cr));
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Irecv(&v[i % 2], 1, MPI_INT, 1, TAG + 2 + i, MPI_COMM_WORLD, &r[i]));
        memcpy(keep, r, sizeof(r));
        s.calls = 0;
        MPI_OK(MPIX_Continueall(3, r, cb_record, &s, MPIX_CONT_REQBUF_VOLATILE,
                                MPI_STATUSES_IGNORE, cr));
        CHECK(memcmp(keep, r, sizeof(r)) == 0, "3: volatile array changed");
        sync_pair();
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(s.calls == 1, "3: volatile: calls %d", s.calls);
        MPI_OK(MPI_Request_free(&cr));
    } else {
        sync_pair();
        int a = 300, b = 301;
        MPI_OK(MPI_Send(&a, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&b, 1, MPI_INT, 0, TAG + 1, MPI_COMM_WORLD));
        sync_pair();
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Send(&i, 1, MPI_INT, 0, TAG + 2 + i, MPI_COMM_WORLD));
    }
    sync_pair();

    /* 4. poll-only, max_poll 1 */
    if (rank == 0) {
        MPI_Request cr, r;
        int v[3], flag = 0;
        counted = 0;
        MPI_OK(MPIX_Continue_init(MPIX_CONT_POLL_ONLY, 1, MPI_INFO_NULL, &cr));
        MPI_OK(MPI_Start(&cr));
        for (int i = 0; i < 3; i++) {
            MPI_OK(MPI_Irecv(&v[i], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r));
            MPI_OK(MPIX_Continue(&r, cb_count, NULL, 0, MPI_STATUS_IGNORE, cr));
        }
        sync_pair();
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        spin(0.1);
        CHECK(counted == 0, "4: %d callbacks ran outside test/wait", counted);
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(counted == 1 && !flag, "4: first test ran %d, flag %d", counted, flag);
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(counted == 2 && !flag, "4: second test ran %d, flag %d", counted, flag);
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(counted == 3, "4: wait: %d", counted);
        /* MPI_Waitall and MPI_Testall poll it too */
        MPI_OK(MPI_Start(&cr));
        MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r));
        MPI_OK(MPIX_Continue(&r, cb_count, NULL, 0, MPI_STATUS_IGNORE, cr));
        sync_pair();
        MPI_Request both[2] = { cr, MPI_REQUEST_NULL };
        MPI_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        CHECK(counted == 4 && both[0] == cr, "4: waitall: %d", counted);
        MPI_OK(MPI_Request_free(&cr));
    } else {
        sync_pair();
        send_n(3, 0);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        sync_pair();
        send_n(1, 0);
    }
    sync_pair();

    /* 5. complete already; DEFER_COMPLETE, IMMEDIATE, FORGET */
    {
        MPI_Request g, p, cr;
        int dummy, flag;
        counted = 0;
        MPI_OK(greq(&g));
        MPI_OK(MPI_Grequest_complete(g));
        MPI_OK(MPIX_Continue(&g, cb_count, NULL, 0, MPI_STATUS_IGNORE, MPI_REQUEST_NULL));
        CHECK(counted == 1, "5: complete: %d calls inside the call", counted);
        MPI_OK(greq(&g));
        MPI_OK(MPI_Grequest_complete(g));
        MPI_OK(MPIX_Continue(&g, cb_count, NULL, MPIX_CONT_DEFER_COMPLETE, MPI_STATUS_IGNORE,
                             MPI_REQUEST_NULL));
        CHECK(counted == 1, "5: deferred ran inside the call");
        spin_until(&counted, 2, 30);
        CHECK(counted == 2, "5: deferred: %d", counted);
        /* MPIX_CONT_PERSISTENT: accepted, changes nothing (as upstream) */
        MPI_OK(greq(&g));
        MPI_OK(MPI_Grequest_complete(g));
        MPI_OK(MPIX_Continue(&g, cb_count, NULL, MPIX_CONT_PERSISTENT, MPI_STATUS_IGNORE,
                             MPI_REQUEST_NULL));
        CHECK(counted == 3 && g == MPI_REQUEST_NULL, "5: persistent flag: %d", counted);
        counted = 2;
        /* an inactive persistent request, with IMMEDIATE */
        MPI_OK(MPI_Recv_init(&dummy, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &p));
        MPI_Request copy = p;
        MPI_Status st;
        MPI_OK(MPIX_Continue(&copy, cb_count, NULL, MPIX_CONT_IMMEDIATE, &st, MPI_REQUEST_NULL));
        CHECK(counted == 3 && st.MPI_SOURCE == MPI_ANY_SOURCE, "5: inactive: %d", counted);
        MPI_OK(MPI_Request_free(&p));
        /* FORGET: the continuation request does not wait for it */
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
        MPI_OK(MPI_Start(&cr));
        MPI_OK(greq(&g));
        MPI_Request gcopy = g;
        MPI_OK(MPIX_Continue(&gcopy, cb_count, NULL, MPIX_CONT_FORGET, MPI_STATUS_IGNORE, cr));
        MPI_OK(MPI_Test(&cr, &flag, MPI_STATUS_IGNORE));
        CHECK(flag && counted == 3, "5: forget: flag %d calls %d", flag, counted);
        MPI_OK(MPI_Grequest_complete(g));
        spin_until(&counted, 4, 30);
        CHECK(counted == 4, "5: forget: %d", counted);
        MPI_OK(MPI_Request_free(&cr));
    }
    sync_pair();

    /* 6. a cancelled receive */
    if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        int v, cancelled = 0;
        struct seen s = { 0 };
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 4242, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPIX_Continue(&r, cb_record, &s, 0, &st, MPI_REQUEST_NULL));
        spin_until(&s.calls, 1, 30);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(s.calls == 1 && s.err == MPI_SUCCESS && cancelled, "6: calls %d cancelled %d",
              s.calls, cancelled);
    }
    sync_pair();

    /* 7. a failed operation: a generalized request whose query function
     * fails (MPI_ERR_OTHER).  Not a truncated receive: after one, MPICH
     * 4.0.2's next collective hangs over tcp;ofi_rxm, stock MPICH too. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    {
        MPI_Request r, copy, cr;
        MPI_Status st;
        int cls = -1;
        struct seen s = { 0 };
        MPI_OK(MPI_Grequest_start(greq_query_fail, greq_free, greq_cancel, NULL, &r));
        copy = r;
        MPI_OK(MPIX_Continue(&copy, cb_record, &s, MPIX_CONT_INVOKE_FAILED, &st,
                             MPI_REQUEST_NULL));
        MPI_OK(MPI_Grequest_complete(r));
        spin_until(&s.calls, 1, 30);
        MPI_Error_class(s.err, &cls);
        CHECK(s.calls == 1 && cls == MPI_ERR_OTHER, "7: invoke failed: calls %d class %d",
              s.calls, cls);
        MPI_Error_class(st.MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_OTHER, "7: status error class %d", cls);
        /* without the flag: not invoked; the continuation request says it */
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
        MPI_OK(MPI_Start(&cr));
        s.calls = 0;
        MPI_OK(MPI_Grequest_start(greq_query_fail, greq_free, greq_cancel, NULL, &r));
        copy = r;
        MPI_OK(MPIX_Continue(&copy, cb_record, &s, 0, MPI_STATUS_IGNORE, cr));
        MPI_OK(MPI_Grequest_complete(r));
        int rc = MPI_Wait(&cr, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        CHECK(s.calls == 0 && cls == MPI_ERR_OTHER, "7: not invoked: calls %d, wait class %d",
              s.calls, cls);
        /* the error is reported once */
        MPI_OK(MPI_Start(&cr));
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&cr));
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    sync_pair();

    /* 8. notification requests, MPI_Rput_notify, a persistent send */
    {
        MPI_Win win;
        int *base;
        MPI_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &base, &win));
        base[0] = base[1] = 0;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock_all(0, win));
        if (rank == 1) {
            MPI_Request nreq, cr;
            MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &nreq));
            MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
            for (int round = 1; round <= N; round++) {
                struct seen s = { 0, -1, 0, &base[0], round };
                MPI_Status st;
                MPI_Request copy = nreq;
                MPI_OK(MPI_Start(&nreq));
                MPI_OK(MPI_Start(&cr));
                MPI_OK(MPIX_Continue(&copy, cb_record, &s, 0, &st, cr));
                CHECK(copy == MPI_REQUEST_NULL, "8: handle not nulled");
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD));     /* go */
                MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
                int count = -1;
                MPI_Get_count(&st, MPI_INT, &count);
                CHECK(s.calls == 1 && s.data_ok && st.MPI_SOURCE == 0 && st.MPI_TAG == TAG &&
                      count == 1, "8: round %d: calls %d data %d source %d tag %d count %d",
                      round, s.calls, base[0], st.MPI_SOURCE, st.MPI_TAG, count);
            }
            MPI_OK(MPI_Request_free(&nreq));
            MPI_OK(MPI_Request_free(&cr));
        } else {
            int junk = -5, one = 1;
            for (int round = 1; round <= N; round++) {
                MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Put(&junk, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
                MPI_OK(MPI_Win_flush(1, win));
                MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win));
                MPI_OK(MPI_Win_flush(1, win));
                MPI_OK(MPI_Put_notify(&round, 1, MPI_INT, 1, 0, 1, MPI_INT, win, TAG));
                MPI_OK(MPI_Win_flush(1, win));
            }
            /* request-based notified put: its continuation runs at local completion */
            MPI_Request r;
            struct seen s = { 0 };
            int val = 77;
            MPI_OK(MPI_Rput_notify(&val, 1, MPI_INT, 1, 1, 1, MPI_INT, win, TAG + 1, &r));
            MPI_OK(MPIX_Continue(&r, cb_record, &s, 0, MPI_STATUS_IGNORE, MPI_REQUEST_NULL));
            spin_until(&s.calls, 1, 30);
            CHECK(s.calls == 1, "8: rput_notify: %d", s.calls);
            MPI_OK(MPI_Win_flush(1, win));
        }
        if (rank == 1) {
            /* freed while its continuation waits: counts as complete,
             * cancelled; the continuation request still completes */
            MPI_Request nreq, copy, cr;
            MPI_Status st;
            struct seen s = { 0 };
            int cancelled = 0;
            MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
            MPI_OK(MPI_Start(&cr));
            MPI_OK(MPI_Notify_init(win, 0, TAG + 2, 1, &nreq));
            MPI_OK(MPI_Start(&nreq));
            copy = nreq;
            MPI_OK(MPIX_Continue(&copy, cb_record, &s, 0, &st, cr));
            MPI_OK(MPI_Request_free(&nreq));
            MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
            MPI_Test_cancelled(&st, &cancelled);
            CHECK(s.calls == 1 && cancelled, "8: freed: calls %d cancelled %d", s.calls,
                  cancelled);
            MPI_OK(MPI_Request_free(&cr));
        } else {
            /* operations complete in the call share one builtin request
             * (MPI_PROC_NULL's here): both in one continuation */
            MPI_Request r[2];
            struct seen s = { 0 };
            int val = 1;
            for (int i = 0; i < 2; i++)
                MPI_OK(MPI_Rput_notify(&val, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win,
                                       TAG, &r[i]));
            MPI_OK(MPIX_Continueall(2, r, cb_record, &s, 0, MPI_STATUSES_IGNORE,
                                    MPI_REQUEST_NULL));
            CHECK(s.calls == 1 && s.err == MPI_SUCCESS, "8: builtin requests: calls %d",
                  s.calls);
        }
        if (rank == 1) {
            MPI_Request nreq;
            MPI_OK(MPI_Notify_init(win, 0, TAG + 1, 1, &nreq));
            MPI_OK(MPI_Start(&nreq));
            MPI_OK(MPI_Wait(&nreq, MPI_STATUS_IGNORE));
            CHECK(base[1] == 77, "8: rput_notify data %d", base[1]);
            MPI_OK(MPI_Request_free(&nreq));
        }
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Win_free(&win));
        /* a persistent send: runs per activation, the request stays */
        if (rank == 0) {
            MPI_Request ps, copy;
            int v = 0;
            counted = 0;
            MPI_OK(MPI_Send_init(&v, 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &ps));
            for (int i = 0; i < 3; i++) {
                v = 500 + i;
                MPI_OK(MPI_Start(&ps));
                copy = ps;
                MPI_OK(MPIX_Continue(&copy, cb_count, NULL, 0, MPI_STATUS_IGNORE,
                                     MPI_REQUEST_NULL));
                spin_until(&counted, i + 1, 30);
            }
            CHECK(counted == 3, "8: persistent send: %d", counted);
            MPI_OK(MPI_Request_free(&ps));
        } else {
            for (int i = 0; i < 3; i++) {
                int v;
                MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(v == 500 + i, "8: persistent send data %d", v);
            }
        }
    }
    sync_pair();

    /* 9. a continuation request as an operation */
    if (rank == 0) {
        MPI_Request inner, outer, copy, r;
        int v;
        struct seen s = { 0 };
        counted = 0;
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &inner));
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &outer));
        MPI_OK(MPI_Start(&inner));
        MPI_OK(MPI_Start(&outer));
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r));
        MPI_OK(MPIX_Continue(&r, cb_count, NULL, 0, MPI_STATUS_IGNORE, inner));
        copy = inner;
        MPI_OK(MPIX_Continue(&copy, cb_record, &s, 0, MPI_STATUS_IGNORE, outer));
        sync_pair();
        MPI_OK(MPI_Wait(&outer, MPI_STATUS_IGNORE));
        CHECK(counted == 1 && s.calls == 1, "9: inner %d outer %d", counted, s.calls);
        MPI_OK(MPI_Request_free(&inner));
        MPI_OK(MPI_Request_free(&outer));
    } else {
        sync_pair();
        send_n(1, 0);
    }
    sync_pair();

    /* 10. freed with callbacks pending */
    if (rank == 0) {
        MPI_Request cr, r;
        int v[2];
        counted = 0;
        MPI_OK(MPIX_Continue_init(MPIX_CONT_POLL_ONLY, 0, MPI_INFO_NULL, &cr));
        for (int i = 0; i < 2; i++) {
            MPI_OK(MPI_Irecv(&v[i], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r));
            MPI_OK(MPIX_Continue(&r, cb_count, NULL, 0, MPI_STATUS_IGNORE, cr));
        }
        MPI_OK(MPI_Request_free(&cr));  /* inactive, poll-only: they run all the same */
        sync_pair();
        spin_until(&counted, 2, 30);
        CHECK(counted == 2, "10: %d after free", counted);
    } else {
        sync_pair();
        send_n(2, 0);
    }
    sync_pair();

    /* 11. another thread blocked in MPI_Wait meanwhile */
    if (rank == 0) {
        pthread_t t;
        int tv = 0;
        MPI_Request cr, r[N];
        int v[N];
        counted = 0;
        pthread_create(&t, NULL, blocked_waiter, &tv);
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
        MPI_OK(MPI_Start(&cr));
        for (int i = 0; i < N; i++)
            MPI_OK(MPI_Irecv(&v[i], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &r[i]));
        MPI_OK(MPIX_Continueall(N / 2, r, cb_count, NULL, 0, MPI_STATUSES_IGNORE, cr));
        for (int i = N / 2; i < N; i++)
            MPI_OK(MPIX_Continue(&r[i], cb_count, NULL, 0, MPI_STATUS_IGNORE, cr));
        sync_pair();
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(counted == 1 + N / 2, "11: %d callbacks", counted);
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 98, MPI_COMM_WORLD));     /* release */
        pthread_join(t, NULL);
        CHECK(tv == 4711, "11: blocked thread got %d", tv);
        MPI_OK(MPI_Request_free(&cr));
    } else {
        int x = 4711;
        sync_pair();
        send_n(N, 0);
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
    }
    sync_pair();

    /* 13. a counter threshold */
    {
        MPI_Win win;
        int *base;
        MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                &win));
        *base = 0;
        MPI_OK(MPIX_Win_create_notify(win, 2));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock_all(0, win));
        if (rank == 1) {
            MPI_Request r, later;
            MPI_Status st;
            struct seen s = { 0, -1, 0, base, 3 };
            int count = -1, cancelled = 0;
            MPI_OK(MPIX_Win_notify_request(win, 1, 3, &r));
            MPI_OK(MPIX_Continue(&r, cb_record, &s, 0, &st, MPI_REQUEST_NULL));
            sync_pair();
            spin_until(&s.calls, 1, 30);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(s.calls == 1 && s.data_ok && st.MPI_TAG == 1 && count == 3,
                  "13: calls %d data %d tag %d value %d", s.calls, *base, st.MPI_TAG, count);
            /* reached already: completes at the next round */
            MPI_OK(MPIX_Win_notify_request(win, 1, 2, &r));
            MPI_OK(MPI_Wait(&r, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == 3, "13: reached already: value %d", count);
            /* the counters go first: cancelled */
            MPI_OK(MPIX_Win_notify_request(win, 0, 100, &later));
            MPI_OK(MPIX_Win_free_notify(win));
            MPI_OK(MPI_Wait(&later, &st));
            MPI_Test_cancelled(&st, &cancelled);
            CHECK(cancelled, "13: not cancelled with its counters");
        } else {
            int junk = -1;
            sync_pair();
            for (int i = 1; i <= 3; i++) {
                MPI_OK(MPI_Put(&junk, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
                MPI_OK(MPI_Win_flush(1, win));
                MPI_OK(MPIX_Put_notify(&i, 1, MPI_INT, 1, 0, 1, MPI_INT, 1, win));
                MPI_OK(MPI_Win_flush(1, win));
            }
            MPI_OK(MPIX_Win_free_notify(win));
        }
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Win_free(&win));
    }
    sync_pair();

    /* 12. errors */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    {
        MPI_Request cr, g, g2, keep;
        int cls, rc;
        rc = MPIX_Continue_init(1 << 9, 0, MPI_INFO_NULL, &cr);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "12: unknown flag: class %d", cls);
        MPI_OK(MPIX_Continue_init(0, 0, MPI_INFO_NULL, &cr));
        MPI_OK(greq(&g));
        MPI_OK(greq(&g2));
        keep = g;
        rc = MPIX_Continue(&keep, cb_count, NULL, 0, MPI_STATUS_IGNORE, g2);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_REQUEST && keep == g, "12: not a continuation request: class %d",
              cls);
        rc = MPIX_Continue(&keep, cb_count, NULL, 1 << 12, MPI_STATUS_IGNORE, cr);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "12: unknown flag: class %d", cls);
        MPI_Request twice[2] = { g, g };
        rc = MPIX_Continueall(2, twice, cb_count, NULL, 0, MPI_STATUSES_IGNORE, cr);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_REQUEST, "12: the same request twice: class %d", cls);
        counted = 0;
        MPI_OK(MPIX_Continue(&keep, cb_count, NULL, MPIX_CONT_REQBUF_VOLATILE,
                             MPI_STATUS_IGNORE, cr));
        rc = MPIX_Continue(&g, cb_count, NULL, 0, MPI_STATUS_IGNORE, cr);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_REQUEST, "12: continuation on a request that has one: class %d",
              cls);
        MPI_OK(MPI_Start(&cr));
        rc = MPI_Start(&cr);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_REQUEST, "12: start of an active request: class %d", cls);
        MPI_OK(MPI_Grequest_complete(g));
        MPI_OK(MPI_Wait(&cr, MPI_STATUS_IGNORE));
        CHECK(counted == 1, "12: %d", counted);
        MPI_OK(MPI_Grequest_complete(g2));
        MPI_OK(MPI_Wait(&g2, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Request_free(&cr));
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    return na_finish();
}

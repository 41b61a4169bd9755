/*
 * libnatasks (natasks/na_tasks.h) with MPICH and GCC's OpenMP: tasks bound
 * to requests complete in data-flow order.  Ranks 0 and 1, OMP_NUM_THREADS
 * threads each (the suite runs 1 and 2).
 *
 *   1. flow: rank 0 sends NMSG messages in reverse order from tasks
 *      (MPI_Isend + NA_Task_iwait); rank 1's receive tasks (MPI_Irecv +
 *      NA_Task_iwait) each release a task that finds its message and status
 *      there, chained in order.
 *   2. iwaitall: four receives and an MPI_REQUEST_NULL in one wait; the
 *      dependent task finds all data and statuses.
 *   3. notified: ROUNDS notified puts (MPI_Put_notify, after an MPI_Put and
 *      an MPI_Accumulate to the same word), each taken by a task started with
 *      NA_Task_istart on one persistent notification request; the dependent
 *      task sees the data and acknowledges it; afterwards the request is
 *      inactive and waited as usual (no function left on it).
 *   4. wake-ups: ITERS ping-pongs between tasks, each half a detached task
 *      whose wait is the only one outstanding: the polling service sleeps and
 *      is woken ITERS times per rank; a lost wake-up hangs the chain (and
 *      the suite's timeout fails the test).
 *   5. MPI_REQUEST_NULL: the task completes, its dependent runs.
 *
 *   natasks [ITERS]          (default 10000)
 *   natasks -single          MPI_Init without MPI_THREAD_MULTIPLE: the call
 *                            fails with an error class of the library whose
 *                            string says why, the task still completes
 */
#include "na_test.h"
#include <na_tasks.h>

/* Ends every block that creates tasks: GCC 12's libgomp does not always end
 * a parallel region whose last task is detached and fulfilled by another
 * thread (the progress thread) after its body returned; a taskwait does. */
#define END_TASKS _Pragma("omp taskwait")
/* libgomp runs tasks undeferred beyond 64 x threads live ones (a detached
 * one then holds its thread, its dependents may run early): the loops wait
 * for their tasks every BATCH iterations */
#define BATCH 10

#define NMSG 24
#define ROUNDS 50

static MPI_Win win;
static int *base;

static void flow(int rank)
{
    int data[NMSG], order[NMSG], seq = 0;
    MPI_Status st[NMSG];
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < NMSG; i++) {
            int k = rank == 0 ? NMSG - 1 - i : i;
            omp_event_handle_t ev;
            if (rank == 0) {
                data[k] = 10 * k;
#pragma omp task firstprivate(k) depend(in: data[k]) detach(ev)
                {
                    MPI_Request r;
                    MPI_OK(MPI_Isend(&data[k], 1, MPI_INT, 1, k, MPI_COMM_WORLD, &r));
                    MPI_OK(NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE));
                    CHECK(r == MPI_REQUEST_NULL, "the request is not handed over");
                }
            } else {
                data[k] = -1;
#pragma omp task firstprivate(k) depend(out: data[k]) detach(ev)
                {
                    MPI_Request r;
                    MPI_OK(MPI_Irecv(&data[k], 1, MPI_INT, 0, k, MPI_COMM_WORLD, &r));
                    MPI_OK(NA_Task_iwait(ev, &r, &st[k]));
                }
#pragma omp task firstprivate(k) depend(in: data[k]) depend(inout: seq)
                {
                    int count;
                    MPI_Get_count(&st[k], MPI_INT, &count);
                    CHECK(data[k] == 10 * k && st[k].MPI_SOURCE == 0 && st[k].MPI_TAG == k &&
                          count == 1, "message %d: data %d, source %d, tag %d, count %d", k,
                          data[k], st[k].MPI_SOURCE, st[k].MPI_TAG, count);
                    order[seq++] = k;
                }
            }
        }
        END_TASKS;
    }
    if (rank == 1) {
        CHECK(seq == NMSG, "%d of %d dependent tasks ran", seq, NMSG);
        for (int i = 0; i < seq; i++)
            CHECK(order[i] == i, "dependent task %d ran as %d", order[i], i);
    }
}

static void iwaitall(int rank)
{
    int data[4] = { -1, -1, -1, -1 }, ok = 0;
    MPI_Status st[5];
    if (rank == 0) {
        for (int i = 0; i < 4; i++) {
            int v = 100 + i;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 100 + i, MPI_COMM_WORLD));
        }
        return;
    }
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task depend(out: data) detach(ev)
        {
            MPI_Request r[5];
            for (int i = 0; i < 4; i++)
                MPI_OK(MPI_Irecv(&data[3 - i], 1, MPI_INT, 0, 103 - i, MPI_COMM_WORLD, &r[i]));
            r[4] = MPI_REQUEST_NULL;
            MPI_OK(NA_Task_iwaitall(ev, 5, r, st));
            for (int i = 0; i < 5; i++)
                CHECK(r[i] == MPI_REQUEST_NULL, "request %d not handed over", i);
        }
#pragma omp task depend(in: data)
        {
            ok = 1;
            for (int i = 0; i < 4; i++)
                if (data[3 - i] != 103 - i || st[i].MPI_TAG != 103 - i || st[i].MPI_SOURCE != 0)
                    ok = 0;
            /* MPI_REQUEST_NULL: an empty status */
            if (st[4].MPI_SOURCE != MPI_ANY_SOURCE || st[4].MPI_TAG != MPI_ANY_TAG)
                ok = 0;
        }
        END_TASKS;
    }
    CHECK(ok, "iwaitall: data %d %d %d %d", data[0], data[1], data[2], data[3]);
}

static void notified(int rank)
{
    if (rank == 0) {
        int junk = -5, one = 1;
        for (int r = 1; r <= ROUNDS; r++) {
            MPI_OK(MPI_Put(&junk, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Put_notify(&r, 1, MPI_INT, 1, 0, 1, MPI_INT, win, 7));
            MPI_OK(MPI_Win_flush(1, win));
            /* the task that took round r acknowledges it */
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        int last = -1;
        MPI_OK(MPI_Put_notify(&last, 1, MPI_INT, 1, 1, 1, MPI_INT, win, 7));
        MPI_OK(MPI_Win_flush(1, win));
        return;
    }
    MPI_Request nreq;
    MPI_Status st;
    int bad = 0, taken = 0;
    MPI_OK(MPI_Notify_init(win, 0, 7, 1, &nreq));
#pragma omp parallel
#pragma omp single
    {
    for (int r = 1; r <= ROUNDS; r++) {
        omp_event_handle_t ev, ev2;
#pragma omp task depend(inout: nreq) detach(ev)
        MPI_OK(NA_Task_istart(ev, &nreq, &st));
#pragma omp task firstprivate(r) depend(inout: nreq) detach(ev2)
        {
            if (base[0] != r || st.MPI_TAG != 7 || st.MPI_SOURCE != 0)
                bad++;
            taken++;
            MPI_Request ack;
            MPI_OK(MPI_Isend(NULL, 0, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &ack));
            MPI_OK(NA_Task_iwait(ev2, &ack, MPI_STATUS_IGNORE));
        }
        if (r % BATCH == 0) {
            END_TASKS;
        }
    }
    END_TASKS;
    }
    CHECK(taken == ROUNDS && bad == 0, "notified: %d rounds taken, %d wrong", taken, bad);
    /* inactive, still ours, no function left: an ordinary activation */
    CHECK(nreq != MPI_REQUEST_NULL, "the persistent request was taken");
    MPI_OK(MPI_Start(&nreq));
    MPI_OK(MPI_Wait(&nreq, &st));
    CHECK(base[1] == -1 && st.MPI_TAG == 7, "after the tasks: data %d tag %d", base[1],
          st.MPI_TAG);
    MPI_OK(MPI_Request_free(&nreq));
}

static void wakeups(int rank, int iters)
{
    int peer = 1 - rank, token = 0, bad = 0;
    (void) token;               /* only a dependence */
    int out = 0, in = -1;
#pragma omp parallel
#pragma omp single
    {
    for (int i = 0; i < iters; i++) {
        omp_event_handle_t ev1, ev2;
        /* rank 0 sends first, rank 1 receives first */
        for (int half = 0; half < 2; half++) {
            if ((half == 0) == (rank == 0)) {
#pragma omp task firstprivate(i) depend(inout: token) detach(ev1)
                {
                    MPI_Request r;
                    out = i;
                    MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r));
                    MPI_OK(NA_Task_iwait(ev1, &r, MPI_STATUS_IGNORE));
                }
            } else {
#pragma omp task depend(inout: token) detach(ev2)
                {
                    MPI_Request r;
                    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r));
                    MPI_OK(NA_Task_iwait(ev2, &r, MPI_STATUS_IGNORE));
                }
#pragma omp task firstprivate(i) depend(inout: token)
                if (in != i)
                    bad++;
            }
        }
        if (i % BATCH == BATCH - 1) {
            END_TASKS;
        }
    }
    END_TASKS;
    }
    CHECK(bad == 0, "wake-ups: %d of %d messages wrong", bad, iters);
    CHECK(NA_Tasks_pending() == 0, "%d waits still pending", NA_Tasks_pending());
}

static void null_request(void)
{
    int ran = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_event_handle_t ev;
        MPI_Request r = MPI_REQUEST_NULL;
#pragma omp task depend(out: ran) detach(ev)
        MPI_OK(NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE));
#pragma omp task depend(inout: ran)
        ran++;
        END_TASKS;
    }
    CHECK(ran == 1, "MPI_REQUEST_NULL: dependent ran %d times", ran);
}

static int single_level(void)
{
    int rc = MPI_SUCCESS, cls = MPI_SUCCESS, len = 0, ran = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Init(NULL, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#pragma omp parallel num_threads(1)
#pragma omp single
    {
        omp_event_handle_t ev;
        MPI_Request r = MPI_REQUEST_NULL;
#pragma omp task depend(out: ran) detach(ev)
        rc = NA_Task_iwait(ev, &r, MPI_STATUS_IGNORE);
#pragma omp task depend(inout: ran)
        ran = 1;
        END_TASKS;
    }
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls != MPI_SUCCESS && strstr(msg, "MPI_THREAD_MULTIPLE") && ran == 1,
          "single: class %d, message \"%s\", dependent ran %d", cls, msg, ran);
    return na_finish();
}

int main(int argc, char **argv)
{
    int rank, size, provided, iters = 10000;
    if (argc > 1 && strcmp(argv[1], "-single") == 0)
        return single_level();
    if (argc > 1)
        iters = atoi(argv[1]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    base[0] = base[1] = 0;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < 2) {
        flow(rank);
        iwaitall(rank);
        notified(rank);
        MPI_Barrier(MPI_COMM_WORLD);
        wakeups(rank, iters);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    null_request();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

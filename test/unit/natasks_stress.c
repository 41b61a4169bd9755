/* The task layer natasks/na_tasks.c without MPI and without OpenMP, for
 * ThreadSanitizer: na_tasks.c is compiled into this file against a stand-in
 * mpi.h (test/unit/natasks_mock/mpi.h), and the MPI calls it makes are
 * defined here as a model of MPICH:
 *
 *   - one global lock taken by every MPI call, not recursive: a thread that
 *     enters an MPI call again while inside one aborts (MPICH asserts under
 *     MPI_THREAD_MULTIPLE);
 *   - requests whose completion a "network" thread marks at random times,
 *     under that lock (as MPICH's progress marks completion); now and then
 *     it fails a nonpersistent one (MOCK_ERR_FAILED);
 *   - continuations, modelled on src/mpi/request/continue.c: MPIX_Continueall
 *     and MPIX_Continue check every request before touching any (an error
 *     changes nothing), then watch each active one; MPI_REQUEST_NULL and
 *     inactive persistent requests count as complete with an empty status;
 *     a request complete already is completed at once.  Completing a
 *     request is what MPI_Test does: its status (MPI_ERROR its error) into
 *     the caller's slot, a nonpersistent request freed, a persistent one
 *     made inactive and no longer watched (still usable: the caller's other
 *     copy of the handle).  The callback runs once, after the last request
 *     of its continuation, with the first error; a failed request without
 *     MPIX_CONT_INVOKE_FAILED is fatal (MPICH raises it on MPI_COMM_WORLD's
 *     error handler and the callback never runs).  The handles are set to
 *     MPI_REQUEST_NULL (MPIX_Continue's always, MPIX_Continueall's unless
 *     MPIX_CONT_REQBUF_VOLATILE); continuation requests are not modelled
 *     (na_tasks.c registers with MPI_REQUEST_NULL);
 *   - MPI_Test of the layer's probe receive (MPI_Irecv on its duplicate of
 *     MPI_COMM_SELF, which nothing matches: flag stays 0) = one round of
 *     progress, modelled on MPIR_Continue_progress: under the lock, each
 *     watched request found complete is completed and taken off the list;
 *     the continuations whose last request it was, and those deferred
 *     (MPIX_CONT_DEFER_COMPLETE) since the last round, run one by one: the
 *     lock is released, the callback called, the lock taken again.  A
 *     continuation complete at registration runs inside MPIX_Continue(all)
 *     the same way, outside the lock.  Callbacks thus run in any thread that
 *     makes progress, and another thread may run a round meanwhile: in the
 *     stress phase the workers now and then drive a round themselves (an
 *     MPI call of the application);
 *   - MPI_Start activates a persistent request (an "immediate" one
 *     completes inside MPI_Start, as an MPI_PROC_NULL notification request);
 *   - MPI_Cancel + MPI_Wait of the probe receive, MPI_Comm_free of its
 *     communicator; attributes on MPI_COMM_SELF (one keyval); MPI_Finalize
 *     first calls their delete callbacks, outside the lock (MPICH with
 *     fix 0005), then, taking no lock, as MPICH's, marks MPI finalized:
 *     an MPI call still running in the progress thread is a data race for
 *     ThreadSanitizer, one after it an error.
 *
 * omp.h of GCC gives only omp_event_handle_t (no -fopenmp: the polling task
 * of NA_TASKS_POLLING=task is compiled out, so the progress thread, the
 * default, is what is tested); omp_fulfill_event is defined here: the event
 * handle points to a struct of the test that a worker thread blocks on.
 * Fulfilling aborts if the event was fulfilled already, if a request of the
 * wait has not been completed by its continuation (status written, freed or
 * made inactive, no longer watched), if no callback covering it has run or
 * more than one has, or if a status is wrong (source, tag, activation and
 * error of its request; an empty one for MPI_REQUEST_NULL).
 *
 *   natasks_stress [threads] [iterations] [maxreqs] [period_us]
 *
 * Without period_us it runs itself twice, with NA_TASKS_PERIOD_US=0 and =50,
 * and prints "No Errors" when both passed.  Each run: THREADS workers each
 * make ITERATIONS waits (NA_Task_iwait, NA_Task_iwaitall of 0..MAXREQS
 * requests with MPI_REQUEST_NULL entries and/or MPI_STATUSES_IGNORE, some
 * of them failing, NA_Task_istart of a persistent request of the worker)
 * in blocks of phases: requests completing at random times; requests
 * complete before the wait is registered (the callback runs inside the
 * call); random pauses between waits; and waits taken one at a time after
 * the progress thread went to sleep (or while it is going to), which count
 * its sleep/wake cycles.  A wait not fulfilled within 30 s is a lost
 * wake-up.  At the end the test calls MPI_Finalize: the delete callback of
 * na_tasks.c's MPI_COMM_SELF attribute must stop and join the progress
 * thread, cancel and wait its probe receive and free the communicator
 * before MPI is torn down, once.
 *
 * Build (test/run-suite.sh style):
 *   cc -std=gnu11 -O1 -g -Wall -fsanitize=thread -pthread \
 *      -Itest/unit/natasks_mock -Inatasks -o natasks_stress test/unit/natasks_stress.c
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOST_WAKEUP_S 30
#define SENTINEL (-999)

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "natasks_stress: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    _exit(1);
}

/* ---------------------------------------------------------------- hooks
 * na_tasks.c's own thread calls, seen by the test: the progress thread's
 * sleeps (pthread_cond_wait: the only one in na_tasks.c), its start and end,
 * and the join at finalize. */
static atomic_long poller_sleeps;       /* entries into the condition wait */
static atomic_long poller_wakes;        /* returns with waits pending */
static atomic_int poller_asleep;        /* inside the condition wait */
static atomic_int poller_started, poller_exited, poller_joined;
static pthread_t poller_id;

static int hook_cond_wait(pthread_cond_t * c, pthread_mutex_t * m);
static int hook_create(pthread_t * t, const pthread_attr_t * a, void *(*fn)(void *), void *arg);
static int hook_join(pthread_t t, void **ret);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"     /* omp task: no -fopenmp */
#define pthread_cond_wait hook_cond_wait
#define pthread_create hook_create
#define pthread_join hook_join
#include "../../natasks/na_tasks.c"
#undef pthread_cond_wait
#undef pthread_create
#undef pthread_join
#pragma GCC diagnostic pop

static int hook_cond_wait(pthread_cond_t * c, pthread_mutex_t * m)
{
    atomic_fetch_add(&poller_sleeps, 1);
    atomic_store(&poller_asleep, 1);
    int r = pthread_cond_wait(c, m);
    atomic_store(&poller_asleep, 0);
    if (atomic_load(&pending) > 0)
        atomic_fetch_add(&poller_wakes, 1);
    return r;
}

static void *(*poller_fn)(void *);
static void *poller_trampoline(void *arg)
{
    atomic_store(&poller_started, 1);
    void *r = poller_fn(arg);
    atomic_store(&poller_exited, 1);
    return r;
}

static int hook_create(pthread_t * t, const pthread_attr_t * a, void *(*fn)(void *), void *arg)
{
    if (poller_fn)
        die("na_tasks.c starts a second progress thread");
    poller_fn = fn;
    int r = pthread_create(t, a, poller_trampoline, arg);
    if (r == 0)
        poller_id = *t;
    return r;
}

static int hook_join(pthread_t t, void **ret)
{
    if (!pthread_equal(t, poller_id))
        die("na_tasks.c joins a thread that is not its progress thread");
    int r = pthread_join(t, ret);
    if (r == 0)
        atomic_store(&poller_joined, 1);
    return r;
}

/* ------------------------------------------------------------ mock MPICH */
/* the error of a request the network fails (MPICH's MPI_ERR_TRUNCATE) */
#define MOCK_ERR_FAILED 14
#define CONT_PUBLIC_FLAGS (MPIX_CONT_REQBUF_VOLATILE | MPIX_CONT_PERSISTENT |   \
                           MPIX_CONT_POLL_ONLY | MPIX_CONT_DEFER_COMPLETE |     \
                           MPIX_CONT_INVOKE_FAILED | MPIX_CONT_IMMEDIATE |      \
                           MPIX_CONT_FORGET)

struct mock_cont;

struct mock_request {
    int persistent, immediate;  /* immediate: MPI_Start completes it (MPI_PROC_NULL) */
    int source, tag;
    int active, complete;       /* complete: set by the network thread */
    int err;                    /* the network failed it: its error */
    int freed;                  /* nonpersistent: freed by its continuation */
    struct mock_cont *cont;     /* the continuation watching it */
    MPI_Status *status;         /* where its status goes, or MPI_STATUS_IGNORE */
    int done;                   /* this activation completed by its continuation */
    int cbs;                    /* callbacks run that cover this activation */
    int activation;
    int listed;                 /* on the watched list */
    struct mock_request *next, *prev;
    int inflight;               /* index in the network's list, or -1 */
    int never, cancelled;       /* the layer's probe receive (MPI_Irecv) */
};

/* a registered continuation (struct MPIR_Continuation of continue.c) */
struct mock_cont {
    MPIX_Continue_cb_function *cb;
    void *cb_data;
    int flags;
    int remaining;              /* requests not complete yet */
    int err;                    /* first error among them */
    struct mock_cont *next;     /* on runnable or a round's list */
    int count;
    struct mock_request *ops[]; /* the watched ones; NULL: complete at registration */
};

static uint64_t base_seed;      /* NATASKS_STRESS_SEED, else from the clock */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;     /* MPICH's global lock */
static __thread int in_mpi;     /* this thread holds g_lock */
static pthread_cond_t net_cond = PTHREAD_COND_INITIALIZER;
static struct mock_request *watched;    /* requests of continuations, not complete */
static struct mock_cont *runnable, **runnable_tail = &runnable;  /* deferred */
static struct mock_request **inflight;  /* active, not complete */
static int ninflight, inflight_cap, net_stop;
static long progress_rounds, app_rounds, cb_calls, cb_in_call, cb_failed, ops_failed;
static long max_in_round;
static int in_round;            /* threads inside a round of progress */

/* MPICH under MPI_THREAD_MULTIPLE asserts when a thread enters its global
 * critical section again: a callback runs outside it */
static void lock_g(void)
{
    if (in_mpi)
        die("an MPI call entered recursively by the same thread (MPICH asserts)");
    pthread_mutex_lock(&g_lock);
    in_mpi = 1;
}

static void unlock_g(void)
{
    in_mpi = 0;
    pthread_mutex_unlock(&g_lock);
}

#define LOCK() lock_g()
#define UNLOCK() unlock_g()

static MPI_Comm dup_comm = MPI_COMM_NULL;       /* the one MPI_Comm_dup made */
static int comm_freed;
static struct mock_request *never_req;  /* the probe receive, until MPI_Wait */
static int never_posted, never_waited, never_testing;
static int mpi_finalized;       /* written by MPI_Finalize WITHOUT the lock */
static atomic_int pmpi_finalize_calls;

/* every MPI call (under g_lock) reads it: a call racing with MPI_Finalize
 * is a data race for ThreadSanitizer, a call after it an error */
static void check_live(const char *call)
{
    if (mpi_finalized)
        die("%s after MPI_Finalize", call);
}

static void list_add(struct mock_request **head, struct mock_request *r)
{
    if (r->listed)
        die("request %d/%d put on a list twice", r->source, r->tag);
    r->listed = 1;
    r->prev = NULL;
    r->next = *head;
    if (*head)
        (*head)->prev = r;
    *head = r;
}

static void list_del(struct mock_request **head, struct mock_request *r)
{
    if (!r->listed)
        return;
    r->listed = 0;
    if (r->prev)
        r->prev->next = r->next;
    else
        *head = r->next;
    if (r->next)
        r->next->prev = r->prev;
}

static void net_post(struct mock_request *r)       /* under g_lock */
{
    if (ninflight == inflight_cap) {
        inflight_cap = inflight_cap ? 2 * inflight_cap : 64;
        inflight = realloc(inflight, inflight_cap * sizeof(*inflight));
    }
    r->inflight = ninflight;
    inflight[ninflight++] = r;
    pthread_cond_signal(&net_cond);
}

static uint64_t rnd(uint64_t * s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void net_complete(int k, uint64_t * seed)    /* under g_lock */
{
    struct mock_request *r = inflight[k];
    inflight[k] = inflight[--ninflight];
    inflight[k]->inflight = k;
    r->inflight = -1;
    r->complete = 1;
    /* now and then a receive fails (truncated): its wait completes all the
     * same, the error in its status */
    if (!r->persistent && rnd(seed) % 32 == 0) {
        r->err = MOCK_ERR_FAILED;
        ops_failed++;
    }
}

static void *network(void *arg)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull ^ base_seed ^ (uintptr_t) arg;
    LOCK();
    for (;;) {
        while (!net_stop && ninflight == 0)
            pthread_cond_wait(&net_cond, &g_lock);
        if (net_stop)
            break;
        int burst = 1 + (int) (rnd(&seed) % 3);
        for (int b = 0; b < burst && ninflight > 0; b++)
            net_complete((int) (rnd(&seed) % (unsigned) ninflight), &seed);
        UNLOCK();
        unsigned d = rnd(&seed) % 16;
        if (d >= 14)
            usleep(5 + d * 4);
        else if (d >= 8)
            sched_yield();
        LOCK();
    }
    UNLOCK();
    return NULL;
}

static struct mock_request *mock_irecv(int source, int tag)
{
    struct mock_request *r = calloc(1, sizeof(*r));
    r->source = source;
    r->tag = tag;
    r->active = 1;
    r->activation = 1;
    LOCK();
    net_post(r);
    UNLOCK();
    return r;
}

static struct mock_request *mock_notify_init(int source, int tag, int immediate)
{
    struct mock_request *r = calloc(1, sizeof(*r));
    r->persistent = 1;
    r->immediate = immediate;
    r->source = source;
    r->tag = tag;
    r->inflight = -1;
    return r;
}

/* until the network completed r (the "already complete" phase) */
static void mock_until_complete(struct mock_request *r)
{
    time_t t0 = time(NULL);
    for (;;) {
        LOCK();
        int c = r->complete;
        UNLOCK();
        if (c)
            return;
        if (time(NULL) - t0 > LOST_WAKEUP_S)
            die("the network never completed a request");
        sched_yield();
    }
}

static void set_status(MPI_Status * st, struct mock_request *r)
{
    st->MPI_SOURCE = r->source;
    st->MPI_TAG = r->tag;
    st->MPI_ERROR = r->err;
    st->count = r->activation;
}

/* MPIR_Status_set_empty: MPI_ERROR is left alone */
static void set_empty(MPI_Status * st)
{
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->count = 0;
}

/* op_complete of continue.c, what MPI_Test does to a completed request:
 * its status, then a nonpersistent request is freed, a persistent one made
 * inactive; either way no longer watched (under g_lock) */
static void op_complete(struct mock_request *r)
{
    struct mock_cont *c = r->cont;
    if (r->status != MPI_STATUS_IGNORE)
        set_status(r->status, r);
    if (r->err != MPI_SUCCESS && c->err == MPI_SUCCESS)
        c->err = r->err;
    list_del(&watched, r);
    r->cont = NULL;
    r->status = NULL;
    r->active = 0;
    if (!r->persistent)
        r->freed = 1;
    r->done = 1;
    c->remaining--;
}

static void runnable_add(struct mock_cont *c)
{
    c->next = NULL;
    *runnable_tail = c;
    runnable_tail = &c->next;
}

/* run() of continue.c, under g_lock: the callback runs outside it
 * (MPIR_CALL_USER), so another thread may run a round meanwhile; c is freed
 * first and its requests not touched after the call (the wait may be
 * fulfilled and its requests freed by the worker) */
static void cont_run(struct mock_cont *c)
{
    if (c->err != MPI_SUCCESS && !(c->flags & MPIX_CONT_INVOKE_FAILED))
        die("a failed request's continuation without MPIX_CONT_INVOKE_FAILED: its callback "
            "never runs (MPICH calls MPI_COMM_WORLD's error handler, fatal), the task would "
            "hang");
    for (int i = 0; i < c->count; i++) {
        struct mock_request *r = c->ops[i];
        if (r && ++r->cbs != 1)
            die("request %d/%d: a second callback for one activation", r->source, r->tag);
    }
    MPIX_Continue_cb_function *cb = c->cb;
    void *cb_data = c->cb_data;
    int err = c->err;
    cb_calls++;
    if (err != MPI_SUCCESS)
        cb_failed++;
    free(c);
    UNLOCK();
    (void) cb(err, cb_data);    /* its return value carries nothing */
    LOCK();
    check_live("a continuation's callback");
}

/* a round of progress (MPIR_Continue_progress), under g_lock: requests found
 * complete are completed and leave the watched list under the lock; the
 * continuations they made ready, then the deferred ones, run one by one */
static void progress_round(void)
{
    progress_rounds++;
    if (++in_round > max_in_round)
        max_in_round = in_round;
    struct mock_cont *now = NULL, **tail = &now, *c;
    struct mock_request *r, *nx;
    for (r = watched; r; r = nx) {
        nx = r->next;
        if (!r->complete || !r->active)
            continue;
        c = r->cont;
        op_complete(r);
        if (c->remaining == 0) {
            c->next = NULL;
            *tail = c;
            tail = &c->next;
        }
    }
    *tail = runnable;
    runnable = NULL;
    runnable_tail = &runnable;
    while (now) {
        c = now;
        now = c->next;
        cont_run(c);
    }
    in_round--;
}

/* an MPI call of the application (MPI_Test of a request of its own ...):
 * MPICH runs the hook in whichever thread drives progress */
static void mock_app_progress(void)
{
    LOCK();
    check_live("MPI_Test (application)");
    app_rounds++;
    progress_round();
    UNLOCK();
}

int MPI_Query_thread(int *provided)
{
    LOCK();
    check_live("MPI_Query_thread");
    *provided = MPI_THREAD_MULTIPLE;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm * newcomm)
{
    LOCK();
    check_live("MPI_Comm_dup");
    if (comm != MPI_COMM_SELF || dup_comm != MPI_COMM_NULL)
        die("MPI_Comm_dup: unexpected (comm %d, dup'd before: %d)", comm, dup_comm);
    *newcomm = dup_comm = 100;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm * comm)
{
    LOCK();
    check_live("MPI_Comm_free");
    if (*comm != dup_comm || comm_freed)
        die("MPI_Comm_free of comm %d", *comm);
    if (never_posted && !never_waited)
        die("MPI_Comm_free of the probe communicator with its receive still pending");
    comm_freed = 1;
    *comm = MPI_COMM_NULL;
    UNLOCK();
    return MPI_SUCCESS;
}

/* the layer's probe receive: nothing ever matches it */
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request * request)
{
    LOCK();
    check_live("MPI_Irecv");
    if (comm == MPI_COMM_NULL || comm != dup_comm || comm_freed)
        die("MPI_Irecv on comm %d (freed %d)", comm, comm_freed);
    if (never_posted)
        die("MPI_Irecv: a second probe receive");
    if (count != 0 || datatype != MPI_BYTE || source != 0 || tag != 0)
        die("MPI_Irecv(%p, %d, %d, %d, %d): not the probe receive", buf, count, datatype,
            source, tag);
    struct mock_request *r = calloc(1, sizeof(*r));
    r->never = 1;
    r->active = 1;
    r->inflight = -1;
    never_req = r;
    never_posted = 1;
    *request = r;
    UNLOCK();
    return MPI_SUCCESS;
}

/* one round of progress; the probe receive never completes */
int MPI_Test(MPI_Request * request, int *flag, MPI_Status * status)
{
    (void) status;
    LOCK();
    check_live("MPI_Test");
    struct mock_request *r = *request;
    if (!r || r != never_req || !r->never)
        die("MPI_Test of a request other than the probe receive");
    if (r->cancelled)
        die("MPI_Test of the probe receive after MPI_Cancel");
    if (comm_freed)
        die("MPI_Test of the probe receive after its communicator was freed");
    if (never_testing++)
        die("MPI_Test of the probe receive in two threads at once (erroneous)");
    progress_round();
    never_testing--;
    *flag = 0;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request * request)
{
    LOCK();
    check_live("MPI_Cancel");
    struct mock_request *r = *request;
    if (!r || r != never_req || r->cancelled)
        die("MPI_Cancel of a request other than the probe receive (or twice)");
    if (atomic_load(&poller_started) && !atomic_load(&poller_joined))
        die("MPI_Cancel of the probe receive while the progress thread may still test it");
    r->cancelled = 1;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request * request, MPI_Status * status)
{
    (void) status;
    LOCK();
    check_live("MPI_Wait");
    struct mock_request *r = *request;
    if (!r || r != never_req)
        die("MPI_Wait of a request other than the probe receive");
    if (!r->cancelled)
        die("MPI_Wait of the probe receive not cancelled: it would never return");
    if (never_testing)
        die("MPI_Wait of the probe receive while a thread tests it");
    free(r);
    never_req = NULL;
    never_waited = 1;
    *request = MPI_REQUEST_NULL;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Add_error_class(int *errorclass)
{
    (void) errorclass;
    die("MPI_Add_error_class: na_tasks.c reported an error");
    return MPI_ERR_OTHER;
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
    die("MPI_Add_error_code(%d): na_tasks.c reported an error", errorclass);
    (void) errorcode;
}

int MPI_Add_error_string(int errorcode, const char *string)
{
    die("MPI_Add_error_string(%d, %s)", errorcode, string);
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    die("MPI_Comm_call_errhandler(%d, %d): na_tasks.c reported an error", comm, errorcode);
}

int MPI_Start(MPI_Request * request)
{
    LOCK();
    check_live("MPI_Start");
    struct mock_request *r = *request;
    if (!r || !r->persistent)
        die("MPI_Start of a nonpersistent request");
    if (r->active) {            /* MPICH: **notifyreqdup */
        UNLOCK();
        return MPI_ERR_REQUEST;
    }
    if (r->cont)
        die("MPI_Start of request %d/%d: inactive but still watched", r->source, r->tag);
    r->active = 1;
    r->complete = 0;
    r->done = 0;
    r->cbs = 0;
    r->activation++;
    if (r->immediate)
        r->complete = 1;        /* MPI_PROC_NULL: complete at once */
    else
        net_post(r);
    UNLOCK();
    return MPI_SUCCESS;
}

/* MPIR_Continueall_impl and attach of continue.c, under g_lock: every
 * request is checked before any is touched (an error changes nothing) */
static int continueall(int count, MPI_Request reqs[], MPIX_Continue_cb_function * cb,
                       void *cb_data, int flags, MPI_Status statuses[],
                       MPI_Request cont_request)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!cb || (flags & ~CONT_PUBLIC_FLAGS))
        return MPI_ERR_ARG;
    if (flags & MPIX_CONT_FORGET)
        cont_request = MPI_REQUEST_NULL;
    if (cont_request != MPI_REQUEST_NULL)
        die("a continuation request: not modelled (na_tasks.c registers without one)");
    for (int i = 0; i < count; i++) {
        struct mock_request *r = reqs[i];
        if (!r)
            continue;
        if (r->freed)
            die("MPIX_Continue of request %d/%d, freed already", r->source, r->tag);
        if (r->never || r->cont)        /* **contoptwice */
            return MPI_ERR_REQUEST;
        for (int j = 0; j < i; j++)
            if (reqs[j] == r)
                return MPI_ERR_REQUEST;
    }
    struct mock_cont *c = calloc(1, sizeof(*c) + (size_t) count * sizeof(c->ops[0]));
    c->cb = cb;
    c->cb_data = cb_data;
    c->flags = flags;
    c->count = count;
    c->remaining = count;
    for (int i = 0; i < count; i++) {
        struct mock_request *r = reqs[i];
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (!r || !r->active) {
            /* MPI_REQUEST_NULL, an inactive persistent request: complete,
             * an empty status (as MPI_Test of them) */
            if (st != MPI_STATUS_IGNORE)
                set_empty(st);
            c->remaining--;
            continue;
        }
        c->ops[i] = r;
        r->cont = c;
        r->status = st;
        list_add(&watched, r);
        if (r->complete)
            op_complete(r);
    }
    if (c->remaining == 0) {
        if (flags & MPIX_CONT_DEFER_COMPLETE) {
            runnable_add(c);    /* at the next round */
        } else {
            cb_in_call++;
            cont_run(c);        /* inside this call, outside the lock */
        }
    }
    return MPI_SUCCESS;
}

int MPIX_Continueall(int count, MPI_Request array_of_op_requests[],
                     MPIX_Continue_cb_function * cb, void *cb_data, int flags,
                     MPI_Status array_of_statuses[], MPI_Request cont_request)
{
    LOCK();
    check_live("MPIX_Continueall");
    int err = continueall(count, array_of_op_requests, cb, cb_data, flags, array_of_statuses,
                          cont_request);
    /* the binding, after the callback may have run */
    if (err == MPI_SUCCESS && !(flags & MPIX_CONT_REQBUF_VOLATILE))
        for (int i = 0; i < count; i++)
            array_of_op_requests[i] = MPI_REQUEST_NULL;
    UNLOCK();
    return err;
}

/* MPIX_Continue: also a persistent request's handle becomes MPI_REQUEST_NULL
 * (the request stays, through another copy of the handle) */
int MPIX_Continue(MPI_Request * op_request, MPIX_Continue_cb_function * cb, void *cb_data,
                  int flags, MPI_Status * status, MPI_Request cont_request)
{
    LOCK();
    check_live("MPIX_Continue");
    int err = continueall(1, op_request, cb, cb_data, flags, status, cont_request);
    if (err == MPI_SUCCESS)
        *op_request = MPI_REQUEST_NULL;
    UNLOCK();
    return err;
}

/* attributes: one keyval, on MPI_COMM_SELF only (what na_tasks.c uses) */
static MPI_Comm_delete_attr_function *self_delete;
static int keyval_live, keyval_freed, self_attr_set;

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function * copy_fn,
                           MPI_Comm_delete_attr_function * delete_fn, int *keyval,
                           void *extra_state)
{
    (void) copy_fn;
    (void) extra_state;
    LOCK();
    check_live("MPI_Comm_create_keyval");
    if (keyval_live)
        die("MPI_Comm_create_keyval: a second keyval");
    keyval_live = 1;
    self_delete = delete_fn;
    *keyval = 7;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *keyval)
{
    LOCK();
    check_live("MPI_Comm_free_keyval");
    if (*keyval != 7 || keyval_freed)
        die("MPI_Comm_free_keyval: keyval %d, freed before: %d", *keyval, keyval_freed);
    keyval_freed = 1;
    *keyval = -1;
    UNLOCK();
    return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
    (void) value;
    LOCK();
    check_live("MPI_Comm_set_attr");
    if (comm != MPI_COMM_SELF || keyval != 7 || self_attr_set)
        die("MPI_Comm_set_attr: comm %d, keyval %d, set before: %d", comm, keyval,
            self_attr_set);
    self_attr_set = 1;
    UNLOCK();
    return MPI_SUCCESS;
}

/* MPICH calls the delete callback with its lock released */
static void delete_self_attr(void)
{
    LOCK();
    int set = self_attr_set;
    self_attr_set = 0;
    UNLOCK();
    if (set && self_delete)
        self_delete(MPI_COMM_SELF, 7, NULL, NULL);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    LOCK();
    check_live("MPI_Comm_delete_attr");
    if (comm != MPI_COMM_SELF || keyval != 7)
        die("MPI_Comm_delete_attr: comm %d, keyval %d", comm, keyval);
    UNLOCK();
    delete_self_attr();
    return MPI_SUCCESS;
}

/* MPICH's MPI_Finalize: MPI_COMM_SELF's attributes first, while MPI is
 * whole (fix 0005), then teardown without the global lock (the binding
 * skips it); by then the layer's progress thread must have been joined and
 * its probe receive and communicator released */
int MPI_Finalize(void)
{
    if (atomic_fetch_add(&pmpi_finalize_calls, 1))
        die("MPI_Finalize called twice");
    delete_self_attr();
    if (atomic_load(&poller_started) &&
        !(atomic_load(&poller_joined) && atomic_load(&poller_exited)))
        die("MPI_Finalize: the progress thread not stopped and joined by the attribute's "
            "delete callback");
    LOCK();
    int bad = never_posted && (!never_waited || !comm_freed);
    UNLOCK();
    if (bad)
        die("MPI_Finalize: the probe receive or its communicator not released");
    mpi_finalized = 1;          /* MPICH tears down: no lock */
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- events */
struct mock_event {
    pthread_mutex_t m;
    pthread_cond_t c;
    int armed, fulfilled;
    int kind, n;
    MPI_Request *reqs;          /* the handles given (a copy) */
    MPI_Status *statuses;       /* NULL: ignored */
};

static atomic_long fulfills;

static const char *check_wait(struct mock_event *e)
{
    static char msg[200];
    for (int i = 0; i < e->n; i++) {
        struct mock_request *r = e->reqs[i];
        int err = MPI_SUCCESS, act = 0;
        if (r) {
            LOCK();
            /* completed as by MPI_Test, by a continuation whose callback has
             * run, once: freed, or inactive, and no longer watched */
            const char *bad = !r->done ? "not completed by its continuation"
                : r->cbs != 1 ? "not exactly one callback ran for it"
                : r->cont || r->listed ? "still watched"
                : r->active ? "still active"
                : !r->persistent && !r->freed ? "not freed" : NULL;
            int cbs = r->cbs;
            err = r->err;
            act = r->activation;
            UNLOCK();
            if (bad) {
                snprintf(msg, sizeof msg, "request %d of %d (%s): %s (%d callbacks)", i, e->n,
                         r->persistent ? "persistent" : "nonpersistent", bad, cbs);
                return msg;
            }
        }
        if (!e->statuses)
            continue;
        MPI_Status *s = &e->statuses[i];
        if (s->MPI_SOURCE == SENTINEL || (r && s->MPI_ERROR == SENTINEL)) {
            snprintf(msg, sizeof msg, "status %d of %d not written", i, e->n);
            return msg;
        }
        /* MPI_REQUEST_NULL: an empty status, whose MPI_ERROR MPI leaves alone */
        int src = r ? r->source : MPI_ANY_SOURCE, tag = r ? r->tag : MPI_ANY_TAG;
        if (s->MPI_SOURCE != src || s->MPI_TAG != tag || s->count != act
            || (r && s->MPI_ERROR != err)) {
            snprintf(msg, sizeof msg, "status %d of %d: source %d tag %d activation %d "
                     "error %d, want %d %d %d %d", i, e->n, s->MPI_SOURCE, s->MPI_TAG,
                     s->count, s->MPI_ERROR, src, tag, act, err);
            return msg;
        }
    }
    return NULL;
}

void omp_fulfill_event(omp_event_handle_t event)
{
    struct mock_event *e = (struct mock_event *) (uintptr_t) event;
    const char *bad = check_wait(e);
    pthread_mutex_lock(&e->m);
    if (e->fulfilled)
        die("event fulfilled twice");
    if (!e->armed)
        die("event fulfilled without a wait");
    if (bad)
        die("event fulfilled too early: %s", bad);
    e->fulfilled = 1;
    pthread_cond_signal(&e->c);
    pthread_mutex_unlock(&e->m);
    /* a runtime does more here (dependent tasks become ready): now and then
     * let the woken worker run before the caller goes on */
    unsigned n = (unsigned) atomic_fetch_add(&fulfills, 1) * 2654435761u >> 28;
    if (n < 4)
        sched_yield();
    else if (n == 4)
        usleep(20);
}

static void event_block(struct mock_event *e, int worker, int it)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += LOST_WAKEUP_S;
    pthread_mutex_lock(&e->m);
    while (!e->fulfilled) {
        if (pthread_cond_timedwait(&e->c, &e->m, &dl) == ETIMEDOUT) {
            fprintf(stderr, "natasks_stress: lost wake-up: worker %d wait %d not fulfilled "
                    "after %d s (pending %d, progress thread %s)\n", worker, it,
                    LOST_WAKEUP_S, NA_Tasks_pending(),
                    atomic_load(&poller_asleep) ? "asleep" : "awake");
            fflush(stderr);
            _exit(1);
        }
    }
    pthread_mutex_unlock(&e->m);
}

/* ---------------------------------------------------------------- workers */
enum { PH_STRESS, PH_SLEEP, PH_EARLY, PH_SLEEP2, PH_PAUSE, PH_SLEEP3, NPHASES };
enum { K_IWAIT, K_WAITALL, K_ISTART };
#define BLOCK 40

static int nthreads, iterations, maxreqs;
static pthread_barrier_t barrier;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static atomic_long waits_by_kind[3], null_entries, ignored, early_regs, lockstep_sleeps;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void until_asleep(int worker, int it)
{
    time_t t0 = time(NULL);
    while (!atomic_load(&poller_asleep)) {
        if (time(NULL) - t0 > LOST_WAKEUP_S)
            die("worker %d wait %d: the progress thread never sleeps (pending %d)", worker,
                it, NA_Tasks_pending());
        sched_yield();
    }
}

static void *worker(void *arg)
{
    int id = (int) (intptr_t) arg;
    uint64_t seed = (0x2545f4914f6cdd1dull ^ base_seed) * (uint64_t) (2 * id + 1);
    int tagseq = 0;
    struct mock_request *pers = mock_notify_init(id, 1000000, 0);
    struct mock_request *pers_now = mock_notify_init(id, 1000001, 1);
    size_t one = sizeof(struct mock_event) + (size_t) maxreqs * (sizeof(MPI_Request) +
                                                                  sizeof(MPI_Status));
    char *evmem = calloc((size_t) iterations, one);     /* never reused: a late fulfill is caught */
    MPI_Request *reqs = malloc((size_t) maxreqs * sizeof(MPI_Request));

    for (int it = 0; it < iterations; it++) {
        int phase = (it / BLOCK) % NPHASES;
        if (it % BLOCK == 0) {
            pthread_barrier_wait(&barrier);
            /* every wait of the block before has been fulfilled: released */
            if (NA_Tasks_pending() != 0)
                die("worker %d block %d: %d waits pending after all were fulfilled", id,
                    it / BLOCK, NA_Tasks_pending());
            pthread_barrier_wait(&barrier);
        }
        struct mock_event *e = (struct mock_event *) (evmem + (size_t) it * one);
        e->reqs = (MPI_Request *) (e + 1);
        e->statuses = (MPI_Status *) (e->reqs + maxreqs);
        pthread_mutex_init(&e->m, NULL);
        pthread_cond_init(&e->c, NULL);

        uint64_t r = rnd(&seed);
        int kind = r % 8 < 3 ? K_IWAIT : r % 8 < 6 ? K_WAITALL : K_ISTART;
        int ignore = (r >> 8) % 4 == 0;
        int n = kind == K_WAITALL ? (int) ((r >> 12) % (unsigned) (maxreqs + 1)) : 1;
        if (kind == K_WAITALL && n == 0 && (r >> 20) % 4)
            n = 1;              /* count 0 now and then */
        int lockstep = phase == PH_SLEEP || phase == PH_SLEEP2 || phase == PH_SLEEP3;
        int early = phase == PH_EARLY || (lockstep && (r >> 24) % 2);
        MPI_Request persistent_req = MPI_REQUEST_NULL;
        e->kind = kind;
        e->n = n;
        for (int i = 0; i < n; i++) {
            if (kind == K_ISTART) {
                persistent_req = (early || (r >> 28) % 4 == 0) ? pers_now : pers;
                reqs[i] = persistent_req;
            } else if ((rnd(&seed) % 5) == 0) {
                reqs[i] = MPI_REQUEST_NULL;
                atomic_fetch_add(&null_entries, 1);
            } else {
                reqs[i] = mock_irecv(id, id * 1000000 + tagseq++ % 999999);
                /* early: complete before the wait is registered (all of them,
                 * or in the stress phase now and then some) */
                if (early || (phase == PH_STRESS && rnd(&seed) % 8 == 0))
                    mock_until_complete(reqs[i]);
            }
            e->reqs[i] = reqs[i];
            e->statuses[i].MPI_SOURCE = e->statuses[i].MPI_TAG = SENTINEL;
            e->statuses[i].MPI_ERROR = SENTINEL;
        }
        if (early)
            atomic_fetch_add(&early_regs, 1);
        if (ignore) {
            e->statuses = NULL;
            atomic_fetch_add(&ignored, 1);
        }
        atomic_fetch_add(&waits_by_kind[kind], 1);

        int waited_sleep = 0;
        if (lockstep) {
            /* one wait at a time: the progress thread goes to sleep between
             * them; mostly the next registers once it sleeps, otherwise
             * while it is deciding to */
            pthread_mutex_lock(&turn);
            time_t t0 = time(NULL);
            while (NA_Tasks_pending() != 0) {
                if (time(NULL) - t0 > LOST_WAKEUP_S)
                    die("pending %d never drops to 0", NA_Tasks_pending());
                sched_yield();
            }
            if (rnd(&seed) % 4) {
                until_asleep(id, it);
                waited_sleep = 1;
            } else {
                /* 0 .. 2 periods + 20 us: around the progress thread's last
                 * round, its pause and its check of pending */
                double until = now() + (rnd(&seed) % (unsigned) (2 * period_us + 21)) * 1e-6;
                while (now() < until)
                    sched_yield();
            }
        }

        long sleeps_before = atomic_load(&poller_sleeps);
        pthread_mutex_lock(&e->m);
        e->armed = 1;
        pthread_mutex_unlock(&e->m);
        omp_event_handle_t ev = (omp_event_handle_t) (uintptr_t) e;
        MPI_Status *st = e->statuses ? e->statuses : MPI_STATUSES_IGNORE;
        int err;
        if (kind == K_IWAIT)
            err = NA_Task_iwait(ev, &reqs[0], e->statuses ? &e->statuses[0] : MPI_STATUS_IGNORE);
        else if (kind == K_WAITALL)
            err = NA_Task_iwaitall(ev, n, reqs, st);
        else
            err = NA_Task_istart(ev, &reqs[0], e->statuses ? &e->statuses[0] :
                                 MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            die("worker %d wait %d: error %d", id, it, err);
        /* the handles: taken over (nonpersistent) or the caller's (persistent) */
        for (int i = 0; i < n; i++)
            if (reqs[i] != (kind == K_ISTART ? persistent_req : MPI_REQUEST_NULL))
                die("worker %d wait %d: handle %d not %s", id, it, i,
                    kind == K_ISTART ? "kept" : "MPI_REQUEST_NULL");

        /* stress phase: now and then the worker drives progress too (an MPI
         * call of the application), so that callbacks run in two threads at
         * once, the progress thread's round and this one */
        if (phase == PH_STRESS && rnd(&seed) % 4 == 0)
            mock_app_progress();
        event_block(e, id, it);
        if (waited_sleep) {
            /* it slept before this registration: it must have been woken */
            if (atomic_load(&poller_sleeps) < sleeps_before)
                die("sleep count went backwards");
            atomic_fetch_add(&lockstep_sleeps, 1);
        }
        if (lockstep) {
            /* the only wait of the process: released before it was fulfilled */
            if (NA_Tasks_pending() != 0)
                die("worker %d wait %d: fulfilled, but still counted pending (%d)", id, it,
                    NA_Tasks_pending());
            pthread_mutex_unlock(&turn);
        }

        const char *bad = check_wait(e);
        if (bad)
            die("worker %d wait %d (kind %d, %d requests): %s", id, it, kind, n, bad);
        for (int i = 0; i < n; i++)
            if (e->reqs[i] && !((struct mock_request *) e->reqs[i])->persistent)
                free(e->reqs[i]);
        pthread_cond_destroy(&e->c);
        pthread_mutex_destroy(&e->m);

        if (phase == PH_PAUSE) {
            unsigned p = rnd(&seed) % 8;
            if (p < 3)
                usleep(1 + (rnd(&seed) % 200));
            else if (p < 6)
                sched_yield();
        }
    }
    pthread_barrier_wait(&barrier);
    free(reqs);
    free(evmem);
    free(pers);
    free(pers_now);
    return NULL;
}

/* finalize must return (the progress thread stops) */
static atomic_int finalized;
static void *watchdog(void *arg)
{
    (void) arg;
    for (int i = 0; i < LOST_WAKEUP_S * 100 && !atomic_load(&finalized); i++)
        usleep(10000);
    if (!atomic_load(&finalized))
        die("MPI_Finalize (na_tasks.c's wrapper) did not return: the progress thread does not "
            "stop");
    return NULL;
}

static int run(const char *period)
{
    setenv("NA_TASKS_PERIOD_US", period, 1);
    unsetenv("NA_TASKS_POLLING");

    double t0 = now();
    pthread_t net, *th = malloc((size_t) nthreads * sizeof(pthread_t));
    pthread_barrier_init(&barrier, NULL, (unsigned) nthreads);
    pthread_create(&net, NULL, network, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, (void *) (intptr_t) i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);

    if (NA_Tasks_pending() != 0)
        die("%d waits pending at the end", NA_Tasks_pending());
    if (period_us != atol(period))
        die("NA_TASKS_PERIOD_US=%s read as %ld", period, period_us);
    if (!atomic_load(&poller_started))
        die("no progress thread");

    pthread_t wd;
    pthread_create(&wd, NULL, watchdog, NULL);
    long sleeps = atomic_load(&poller_sleeps), wakes = atomic_load(&poller_wakes);
    if (MPI_Finalize() != MPI_SUCCESS)
        die("MPI_Finalize failed");
    atomic_store(&finalized, 1);
    pthread_join(wd, NULL);
    if (!atomic_load(&poller_joined) || !atomic_load(&poller_exited))
        die("the progress thread was not stopped and joined at finalize");
    if (atomic_load(&pmpi_finalize_calls) != 1)
        die("MPI_Finalize ran %d times", atomic_load(&pmpi_finalize_calls));
    LOCK();
    int freed = comm_freed && never_waited;
    long rounds = progress_rounds, calls = cb_calls, arounds = app_rounds, maxr = max_in_round;
    long in_call = cb_in_call, failed_cbs = cb_failed, failed = ops_failed;
    int left = watched != NULL || runnable != NULL;
    net_stop = 1;
    pthread_cond_signal(&net_cond);
    UNLOCK();
    if (!freed)
        die("the probe receive and communicator were not released at finalize");
    pthread_join(net, NULL);

    long total = (long) nthreads * iterations;
    if (atomic_load(&fulfills) != total)
        die("%ld events fulfilled for %ld waits", atomic_load(&fulfills), total);
    /* one continuation per wait, and none left behind */
    if (calls != total || left)
        die("%ld callbacks for %ld waits%s", calls, total,
            left ? ", continuations still registered" : "");
    printf("natasks_stress: NA_TASKS_PERIOD_US=%s: %d threads x %d waits (iwait %ld, "
           "iwaitall %ld, istart %ld; %ld registered complete, %ld NULL entries, %ld "
           "statuses ignored, %ld requests failed) in %.1f s; %ld rounds of progress (%ld by "
           "workers, up to %ld at once), %ld callbacks (%ld inside the call, %ld with an "
           "error); progress thread slept %ld times, woken for waits %ld (%ld in "
           "lock-step)\n", period,
           nthreads, iterations, atomic_load(&waits_by_kind[K_IWAIT]),
           atomic_load(&waits_by_kind[K_WAITALL]), atomic_load(&waits_by_kind[K_ISTART]),
           atomic_load(&early_regs), atomic_load(&null_entries), atomic_load(&ignored),
           failed, now() - t0, rounds, arounds, maxr, calls, in_call, failed_cbs, sleeps,
           wakes, atomic_load(&lockstep_sleeps));
    fflush(stdout);
    free(th);
    free(inflight);
    return 0;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    iterations = argc > 2 ? atoi(argv[2]) : 6000;
    maxreqs = argc > 3 ? atoi(argv[3]) : 4;
    if (nthreads < 1 || iterations < 1 || maxreqs < 1) {
        fprintf(stderr, "usage: natasks_stress [threads] [iterations] [maxreqs] [period_us]\n");
        return 2;
    }
    const char *seed = getenv("NATASKS_STRESS_SEED");
    base_seed = seed ? strtoull(seed, NULL, 0) : (uint64_t) time(NULL) ^ (uint64_t) getpid() << 20;
    if (argc > 4) {
        printf("natasks_stress: NATASKS_STRESS_SEED=%llu\n", (unsigned long long) base_seed);
        run(argv[4]);
        if (!getenv("NATASKS_STRESS_CHILD"))
            printf("No Errors\n");
        return 0;
    }
    /* both periods, each in a process of its own (na_tasks.c reads the
     * variable once) */
    const char *periods[] = { "0", "50" };
    for (int p = 0; p < 2; p++) {
        char a1[16], a2[16], a3[16];
        snprintf(a1, sizeof a1, "%d", nthreads);
        snprintf(a2, sizeof a2, "%d", iterations);
        snprintf(a3, sizeof a3, "%d", maxreqs);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            char sd[32];
            snprintf(sd, sizeof sd, "%llu", (unsigned long long) base_seed);
            setenv("NATASKS_STRESS_SEED", sd, 1);
            setenv("NATASKS_STRESS_CHILD", "1", 1);
            execl("/proc/self/exe", argv[0], a1, a2, a3, periods[p], (char *) NULL);
            perror("execl");
            _exit(127);
        }
        int ws;
        if (pid < 0 || waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws)) {
            fprintf(stderr, "natasks_stress: the run with NA_TASKS_PERIOD_US=%s failed\n",
                    periods[p]);
            return 1;
        }
    }
    printf("No Errors\n");
    return 0;
}

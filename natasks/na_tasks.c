/*
 * libnatasks: the completion of an OpenMP task bound to MPI requests.
 *
 * Where it happens:
 *   NA_Task_iwait*, NA_Task_istart  register a wait: one MPICH completion
 *                                   function per request (on_request_done)
 *   MPICH's progress engine         calls on_request_done once a request has
 *                                   completed, in whichever thread drives
 *                                   progress, outside MPICH's lock (two
 *                                   requests of one wait: maybe at once)
 *   on_request_done -> wait_release the last request of a wait fulfills the
 *                                   task's detach event: its dependent tasks
 *                                   become ready
 *   poll_thread / poll_task         drive progress while waits are
 *                                   outstanding: MPI_Test of a receive that
 *                                   never matches is a full round of
 *                                   progress (an MPI_Iprobe on a
 *                                   communicator of one process makes none)
 *   at_finalize                     stops the progress thread first: the
 *                                   delete callback of an attribute on
 *                                   MPI_COMM_SELF, which MPI_Finalize runs
 *                                   before anything else (MPI 4.0, 11.2.4),
 *                                   so no PMPI wrapper stands in the way of
 *                                   profilers and other tools
 *
 * No request is tested from here: completion is pushed by MPICH.
 */
#define _GNU_SOURCE
#include "na_tasks.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Pause of the progress thread between polls, in microseconds (0: yield
 * only).  make bench-tasks, 2 ranks x 2 threads on 2 cores: 0 gave the
 * shortest times of 0, 10, 50 and 200 for both Gauss-Seidel and streaming
 * (doc/benchmarks.md, "tasks (issue 19)"); a pause only delays completions. */
#define NA_DEFAULT_PERIOD_US 0

enum polling { POLL_THREAD, POLL_TASK };

struct wait_slot {
    struct na_wait *w;
    int i;
};

struct na_wait {
    omp_event_handle_t event;
    atomic_int remaining;       /* requests not complete + 1 while registering */
    MPI_Status *statuses;       /* [count], or NULL for MPI_STATUS(ES)_IGNORE */
    MPI_Request persistent;     /* NA_Task_istart: the request to detach from */
    struct wait_slot slot[];
};

static pthread_mutex_t init_mutex = PTHREAD_MUTEX_INITIALIZER;
static int initialized;         /* 1: ready, -1: refused (thread level) */
static enum polling polling = POLL_THREAD;
static long period_us = NA_DEFAULT_PERIOD_US;
static MPI_Comm probe_comm = MPI_COMM_NULL;     /* MPI_COMM_SELF's duplicate */
static MPI_Request never;       /* a receive on it that nothing matches */
static atomic_int pending;      /* waits registered and not released */

/* progress thread */
static pthread_t poller;
static pthread_mutex_t poll_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t poll_cond = PTHREAD_COND_INITIALIZER;
static int poll_stop;
/* polling task */
static atomic_int poller_active;

static void poll_once(void)
{
    int flag;
    MPI_Test(&never, &flag, MPI_STATUS_IGNORE);
}

static void pause_period(void)
{
    if (period_us > 0) {
        struct timespec ts = { period_us / 1000000, (period_us % 1000000) * 1000 };
        nanosleep(&ts, NULL);
    } else {
        sched_yield();
    }
}

static void *poll_thread(void *arg)
{
    (void) arg;
    pthread_mutex_lock(&poll_mutex);
    for (;;) {
        /* asleep while nothing waits: a wait registers (pending 0 -> 1)
         * before it signals under poll_mutex, so no wake-up is lost */
        while (!poll_stop && atomic_load(&pending) == 0)
            pthread_cond_wait(&poll_cond, &poll_mutex);
        if (poll_stop)
            break;
        pthread_mutex_unlock(&poll_mutex);
        poll_once();
        pause_period();
        pthread_mutex_lock(&poll_mutex);
    }
    pthread_mutex_unlock(&poll_mutex);
    return NULL;
}

static void spawn_poll_task(void);

/* One round of progress, then again as a new task while waits are out.  A
 * child of the task that registered the wait: threads idle at a barrier run
 * it, a taskwait elsewhere does not (na_tasks(3), libgomp's limits). */
static void poll_task(void)
{
    poll_once();
    if (atomic_load(&pending) > 0) {
        spawn_poll_task();
        return;
    }
    atomic_store(&poller_active, 0);
    /* a wait registered between the load and the store saw the poller
     * active and spawned none */
    if (atomic_load(&pending) > 0 && !atomic_exchange(&poller_active, 1))
        spawn_poll_task();
}

static void spawn_poll_task(void)
{
#pragma omp task untied
    poll_task();
}

static void poller_wake(void)
{
    if (polling == POLL_TASK) {
        if (!atomic_exchange(&poller_active, 1))
            spawn_poll_task();
    } else {
        pthread_mutex_lock(&poll_mutex);
        pthread_cond_signal(&poll_cond);
        pthread_mutex_unlock(&poll_mutex);
    }
}

/* Tasks must have completed before MPI_Finalize; a progress thread may still
 * be inside MPICH (the last completion function runs there), so it stops and
 * is joined before MPICH tears down: MPI_Finalize deletes MPI_COMM_SELF's
 * attributes first (patch 0018 makes MPICH 4.0.2 do it while its locks are
 * still on), and this is the delete callback of one. */
static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void) comm;
    (void) value;
    (void) extra;
    pthread_mutex_lock(&init_mutex);
    if (initialized > 0) {
        if (polling == POLL_THREAD) {
            pthread_mutex_lock(&poll_mutex);
            poll_stop = 1;
            pthread_cond_signal(&poll_cond);
            pthread_mutex_unlock(&poll_mutex);
            pthread_join(poller, NULL);
        }
        MPI_Cancel(&never);
        MPI_Wait(&never, MPI_STATUS_IGNORE);
        MPI_Comm_free(&probe_comm);
        initialized = 0;
    }
    pthread_mutex_unlock(&init_mutex);
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* An error of this layer, given to MPI_COMM_WORLD's error handler.  A
 * message gets an error class of its own (MPI_Add_error_class): MPICH 4.0.2
 * returns a garbled string for a code added to a predefined class. */
static int na_error(int errclass, const char *msg)
{
    int code = errclass;
    if (msg && MPI_Add_error_class(&code) == MPI_SUCCESS)
        MPI_Add_error_string(code, msg);
    else
        code = errclass;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

static int init_once(void)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&init_mutex);
    if (initialized) {
        err = initialized > 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
        goto out;
    }
    int level;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE) {
        initialized = -1;
        err = na_error(MPI_ERR_OTHER, "libnatasks needs MPI_THREAD_MULTIPLE: the polling "
                       "service calls MPI beside the tasks (use MPI_Init_thread)");
        goto out;
    }
    const char *mode = getenv("NA_TASKS_POLLING");
    if (mode && strcmp(mode, "task") == 0)
        polling = POLL_TASK;
    else if (mode && strcmp(mode, "thread") != 0 && *mode)
        fprintf(stderr, "libnatasks: NA_TASKS_POLLING=%s unknown (thread or task); "
                "using thread\n", mode);
    const char *period = getenv("NA_TASKS_PERIOD_US");
    if (period && *period) {
        char *end;
        long v = strtol(period, &end, 10);
        if (*end || v < 0)
            fprintf(stderr, "libnatasks: NA_TASKS_PERIOD_US=%s is not a number of "
                    "microseconds; using %ld\n", period, period_us);
        else
            period_us = v;
    }
    if ((err = MPI_Comm_dup(MPI_COMM_SELF, &probe_comm)) != MPI_SUCCESS)
        goto out;
    if ((err = MPI_Irecv(NULL, 0, MPI_BYTE, 0, 0, probe_comm, &never)) != MPI_SUCCESS) {
        MPI_Comm_free(&probe_comm);
        goto out;
    }
    int keyval;
    if ((err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, NULL)) ||
        (err = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL))) {
        MPI_Cancel(&never);
        MPI_Wait(&never, MPI_STATUS_IGNORE);
        MPI_Comm_free(&probe_comm);
        goto out;
    }
    if (polling == POLL_THREAD && pthread_create(&poller, NULL, poll_thread, NULL) != 0) {
        MPI_Comm_delete_attr(MPI_COMM_SELF, keyval);    /* runs at_finalize: initialized is 0 */
        MPI_Comm_free_keyval(&keyval);
        MPI_Cancel(&never);
        MPI_Wait(&never, MPI_STATUS_IGNORE);
        MPI_Comm_free(&probe_comm);
        err = na_error(MPI_ERR_OTHER, "libnatasks: cannot start its progress thread");
        goto out;
    }
    initialized = 1;
  out:
    pthread_mutex_unlock(&init_mutex);
    return err;
}

static void wait_release(struct na_wait *w)
{
    if (atomic_fetch_sub(&w->remaining, 1) != 1)
        return;
    omp_event_handle_t event = w->event;
    if (w->persistent != MPI_REQUEST_NULL)      /* MPI_Wait leaves it with no function */
        MPIX_Request_on_complete(w->persistent, NULL, NULL);
    free(w);
    atomic_fetch_sub(&pending, 1);
    omp_fulfill_event(event);
}

/* MPICH's completion function, one call per request */
static void on_request_done(MPI_Status * status, void *arg)
{
    struct wait_slot *s = arg;
    if (s->w->statuses)
        s->w->statuses[s->i] = *status;
    wait_release(s->w);
}

static struct na_wait *wait_new(omp_event_handle_t event, int count, MPI_Status * statuses)
{
    struct na_wait *w = malloc(sizeof(*w) + (size_t) count * sizeof(w->slot[0]));
    if (!w)
        return NULL;
    w->event = event;
    atomic_init(&w->remaining, count + 1);
    w->statuses = statuses;
    w->persistent = MPI_REQUEST_NULL;
    for (int i = 0; i < count; i++) {
        w->slot[i].w = w;
        w->slot[i].i = i;
    }
    if (atomic_fetch_add(&pending, 1) == 0 || polling == POLL_TASK)
        poller_wake();
    return w;
}

int NA_Task_iwaitall(omp_event_handle_t event, int count, MPI_Request * requests,
                     MPI_Status * statuses)
{
    int err = init_once();
    if (err == MPI_SUCCESS && (count < 0 || (count > 0 && !requests)))
        err = na_error(count < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG, NULL);
    struct na_wait *w = NULL;
    if (err == MPI_SUCCESS && !(w = wait_new(event, count, statuses == MPI_STATUSES_IGNORE ?
                                              NULL : statuses)))
        err = na_error(MPI_ERR_NO_MEM, NULL);
    if (err != MPI_SUCCESS) {
        omp_fulfill_event(event);       /* the task must not hang */
        return err;
    }
    for (int i = 0; i < count; i++) {
        if (requests[i] == MPI_REQUEST_NULL) {
            if (w->statuses)    /* as MPI_Waitall: an empty status */
                MPI_Request_get_status(MPI_REQUEST_NULL, &(int) { 0 }, &w->statuses[i]);
            atomic_fetch_sub(&w->remaining, 1);
            continue;
        }
        err = MPIX_Request_on_complete(requests[i], on_request_done, &w->slot[i]);
        if (err != MPI_SUCCESS) {
            /* those handed over already complete the wait; this and the
             * rest stay the caller's */
            atomic_fetch_sub(&w->remaining, count - i);
            break;
        }
        requests[i] = MPI_REQUEST_NULL;
    }
    wait_release(w);    /* the registration's own count */
    return err;
}

int NA_Task_iwait(omp_event_handle_t event, MPI_Request * request, MPI_Status * status)
{
    return NA_Task_iwaitall(event, 1, request, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE :
                            status);
}

int NA_Task_istart(omp_event_handle_t event, MPI_Request * request, MPI_Status * status)
{
    int err = init_once();
    if (err == MPI_SUCCESS && (!request || *request == MPI_REQUEST_NULL))
        err = na_error(MPI_ERR_REQUEST, NULL);
    struct na_wait *w = NULL;
    if (err == MPI_SUCCESS && !(w = wait_new(event, 1, status == MPI_STATUS_IGNORE ? NULL : status)))
        err = na_error(MPI_ERR_NO_MEM, NULL);
    if (err != MPI_SUCCESS) {
        omp_fulfill_event(event);
        return err;
    }
    w->persistent = *request;
    /* started first: a function set on an active request would also be
     * given an activation that completed earlier; one that completes
     * before the function is set is handed to it at the next round */
    err = MPI_Start(request);
    if (err == MPI_SUCCESS)
        err = MPIX_Request_on_complete(*request, on_request_done, &w->slot[0]);
    if (err != MPI_SUCCESS) {
        w->persistent = MPI_REQUEST_NULL;
        atomic_fetch_sub(&w->remaining, 1);
    }
    wait_release(w);
    return err;
}

int NA_Tasks_pending(void)
{
    return atomic_load(&pending);
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * libnatasks: the completion of an OpenMP task bound to MPI requests.
 *
 * Where it happens:
 *   NA_Task_iwait*, NA_Task_istart  register a wait: one continuation
 *                                   (MPIX_Continueall, MPIX_Continue) for all
 *                                   its requests, with the caller's status
 *                                   array and the task's event as its data
 *   MPICH's progress engine         completes each request as MPI_Test would
 *                                   (status written, a nonpersistent request
 *                                   freed) and, once all have, calls
 *                                   on_wait_done once, in whichever thread
 *                                   drives progress, outside MPICH's lock
 *                                   (or inside the registering call if all
 *                                   were complete already)
 *   on_wait_done                    fulfills the task's detach event: its
 *                                   dependent tasks become ready
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
 * No request is tested from here: completion is pushed by MPICH, and a wait
 * needs no memory of its own (the event is the continuation's data).
 */
#define _GNU_SOURCE
#include "na_tasks.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Pause of the progress thread between polls, in microseconds (0: yield
 * only).  No pause gave the shortest times in make bench-tasks
 * (doc/benchmarks.md); a pause only delays completions. */
#define NA_DEFAULT_PERIOD_US 0

enum polling { POLL_THREAD, POLL_TASK };

/* The event travels as the continuation's void *: an enum of uintptr_t's
 * range in GCC's and LLVM's omp.h (checked here for any other) */
_Static_assert(sizeof(omp_event_handle_t) <= sizeof(uintptr_t),
               "omp_event_handle_t does not fit in a pointer");

/* Continuation flags of every wait.  MPIX_CONT_INVOKE_FAILED: without it a
 * failed request's callback would never run and its task would hang; with
 * it the task completes, each status holding its request's error.  No
 * MPIX_CONT_DEFER_COMPLETE: a wait whose requests are all complete already
 * (or MPI_REQUEST_NULL, or none) is fulfilled inside the registering call,
 * as the layer always did, without waiting for a round of progress;
 * omp_fulfill_event from the task's own body is allowed (the task completes
 * when its body has returned too), takes only the runtime's own lock and
 * runs no task, so locks the caller holds do not matter. */
#define NA_CONT_FLAGS MPIX_CONT_INVOKE_FAILED

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
 * be inside MPICH (the last callback runs there), so it stops and is joined
 * before MPICH tears down: MPI_Finalize deletes MPI_COMM_SELF's attributes
 * first (fix 0005 makes MPICH 4.0.2 do it while its locks are still on),
 * and this is the delete callback of one. */
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

/* A wait is outstanding: the polling service must run.  pending goes up
 * before the continuation is registered, so that the poller sees it before
 * the callback can take it down again. */
static void wait_begin(void)
{
    if (atomic_fetch_add(&pending, 1) == 0 || polling == POLL_TASK)
        poller_wake();
}

/* The wait is over (pending is down before the event is fulfilled: once
 * the task has completed, NA_Tasks_pending no longer counts it). */
static void wait_end(omp_event_handle_t event)
{
    atomic_fetch_sub(&pending, 1);
    omp_fulfill_event(event);
}

/* MPICH's continuation callback: every request of the wait has completed
 * (or failed: the statuses say which); its return value is ignored */
static int on_wait_done(int error_code, void *cb_data)
{
    (void) error_code;
    wait_end((omp_event_handle_t) (uintptr_t) cb_data);
    return MPI_SUCCESS;
}

int NA_Task_iwaitall(omp_event_handle_t event, int count, MPI_Request * requests,
                     MPI_Status * statuses)
{
    int err = init_once();
    if (err == MPI_SUCCESS && (count < 0 || (count > 0 && !requests)))
        err = na_error(count < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG, NULL);
    if (err != MPI_SUCCESS) {
        omp_fulfill_event(event);       /* the task must not hang */
        return err;
    }
    wait_begin();
    /* MPI_REQUEST_NULL entries complete at once with an empty status (as in
     * MPI_Waitall); the handles become MPI_REQUEST_NULL; on an error
     * nothing was registered and every request is still the caller's */
    err = MPIX_Continueall(count, requests, on_wait_done, (void *) (uintptr_t) event,
                           NA_CONT_FLAGS, statuses, MPI_REQUEST_NULL);
    if (err != MPI_SUCCESS)
        wait_end(event);
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
    if (err == MPI_SUCCESS)
        err = MPI_Start(request);
    if (err != MPI_SUCCESS) {
        omp_fulfill_event(event);
        return err;
    }
    wait_begin();
    /* MPIX_Continue sets the handle it is given to MPI_REQUEST_NULL but
     * neither frees nor keeps a persistent request: the caller's handle
     * stays valid, the request inactive once the callback has run (as after
     * MPI_Wait), with nothing left on it */
    MPI_Request op = *request;
    err = MPIX_Continue(&op, on_wait_done, (void *) (uintptr_t) event, NA_CONT_FLAGS, status,
                        MPI_REQUEST_NULL);
    if (err != MPI_SUCCESS)
        wait_end(event);        /* the request is active: the caller's to wait */
    return err;
}

int NA_Tasks_pending(void)
{
    return atomic_load(&pending);
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, counter dialect (MPIX_Win_create_notify, MPIX_Put_notify,
 * MPIX_Get_notify, MPIX_Win_get_notify ...; src/binding/c/notify_api.txt).
 *
 * A counter notification is an ordinary notification whose tag is
 * MPIR_NOTIFY_COUNTER | index: every transport carries it in one message
 * exactly as a tagged one (in the same cell, word or header),
 * ordered by notify_order.c and delivered by notify_queue.c, where it adds
 * one to the window's counter instead of being matched.
 */

#include "notify_impl.h"
#include <errno.h>

/* mpi.h spells the draft's class as a literal, for the Fortran constants */
_Static_assert(MPI_ERR_RMA_NOTIFICATION == MPIX_ERR_INVALID_NOTIFICATION,
               "MPI_ERR_RMA_NOTIFICATION is MPIX_ERR_INVALID_NOTIFICATION");

/* The counters live in the window's notify state (notify_impl.h); the MPI
 * calls around them (collectives, progress) follow. */
int MPIR_Notify_counters_attach(MPIR_Win * win, int n)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    MPI_Count *c = MPL_calloc(n > 0 ? 2 * (size_t) n : 1, sizeof(MPI_Count), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!c, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notification counters");
    /* watches belong to the counters they watched */
    MPIR_Notify_watches_drop(nw);
    MPL_free(nw->counters);
    nw->counters = c;
    nw->counters_read = c + n;
    nw->ncounters = n;
  fn_fail:
    return mpi_errno;
}

void MPIR_Notify_counters_detach(MPIR_Win * win)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (nw) {
        MPIR_Notify_watches_drop(nw);
        MPL_free(nw->counters);
        nw->counters = nw->counters_read = NULL;
        nw->ncounters = 0;
    }
}

/* the counters target_rank attached: each process learns every other's
 * count when they are attached (counters_set) */
static int counters_of(MPIR_Win * win, int target_rank)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (!nw)
        return 0;
    return nw->peer_ncounters ? nw->peer_ncounters[target_rank] : nw->ncounters;
}

int MPIR_Notify_counter_check(MPIR_Win * win, int index)
{
    return MPIR_Notify_counter_check_at(win, win->comm_ptr->rank, index);
}

int MPIR_Notify_counter_check_at(MPIR_Win * win, int target_rank, int index)
{
    int mpi_errno = MPI_SUCCESS;
    int n = counters_of(win, target_rank);
    if (n == 0)
        MPIR_ERR_SETANDJUMP(mpi_errno, MPIX_ERR_INVALID_NOTIFICATION, "**notifynocounters");
    if (index < 0 || index >= n)
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPIX_ERR_INVALID_NOTIFICATION, "**notifyindex",
                             "**notifyindex %d %d", index, n);
  fn_fail:
    return mpi_errno;
}

MPI_Count *MPIR_Notify_counter(MPIR_Win * win, int index)
{
    return &win->notify->counters[index];
}

/* Attach n counters (0: none) at every process of the window's group,
 * collective.  The old counters' watches go first, before the collective's
 * progress could run a due one (they go with their counters, even if a
 * peer then refuses).  Every process agrees next (a collective fails
 * together); what reached this process before the call then goes to the
 * counters it replaces, as every origin's epoch is closed; last each
 * process learns every other's count, which also keeps any origin from
 * notifying a counter its target has not attached yet. */
static int counters_set(MPIR_Win * win, int n, int local_errno)
{
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);

    if (local_errno == MPI_SUCCESS)
        MPIR_Notify_watches_drop(nw);
    int failed = local_errno != MPI_SUCCESS;
    mpi_errno = MPIR_Allreduce_impl(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, win->comm_ptr,
                                    &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (local_errno != MPI_SUCCESS)
        return local_errno;
    MPIR_ERR_CHKANDJUMP(failed, mpi_errno, MPI_ERR_OTHER, "**notifycounterspeer");

    mpi_errno = MPID_Notify_poll(win);
    MPIR_ERR_CHECK(mpi_errno);
    if (n > 0)
        mpi_errno = MPIR_Notify_counters_attach(win, n);
    else
        MPIR_Notify_counters_detach(win);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw->peer_ncounters) {
        nw->peer_ncounters = MPL_malloc(win->comm_ptr->local_size * sizeof(int), MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(!nw->peer_ncounters, mpi_errno, MPI_ERR_NO_MEM, "**nomem",
                             "**nomem %s", "notification counter counts");
    }
    mpi_errno = MPIR_Allgather_impl(&n, 1, MPI_INT, nw->peer_ncounters, 1, MPI_INT,
                                    win->comm_ptr, &errflag);
  fn_fail:
    return mpi_errno;
}

/* MPI_WIN_NOTIFY_NUMUB: the most counters this process may attach.  An
 * index travels in the 24 bits of a tag; mpi_assert_max_num_notify lowers
 * the bound to what the user promised. */
static int counters_ub(MPIR_Win * win)
{
    struct MPIR_Notify_win *nw = win->notify;
    return nw && nw->assert_max > 0 ? nw->assert_max : MPIR_NOTIFY_TAG_MAX + 1;
}

/* MPI_SUCCESS, or an error if n counters cannot be attached: MPI_ERR_ARG
 * for n < 0, else of class errclass.  Checked here, not by the binding, so
 * that one process's bad count fails the collective everywhere instead of
 * leaving the others in it. */
static int counters_fit(MPIR_Win * win, int n, int errclass)
{
    int ub = counters_ub(win);
    if (n >= 0 && n <= ub)
        return MPI_SUCCESS;
    if (n < 0)
        errclass = MPI_ERR_ARG;
    if (n > 0 && ub < MPIR_NOTIFY_TAG_MAX + 1)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    errclass, "**notifyassertmax", "**notifyassertmax %d %d", n,
                                    ub);
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__, errclass,
                                "**notifycounters", "**notifycounters %d %d", n, ub);
}

int MPIR_Win_create_notify_impl(MPIR_Win * win, int notification_num)
{
    return counters_set(win, notification_num, counters_fit(win, notification_num, MPI_ERR_COUNT));
}

int MPIR_Win_free_notify_impl(MPIR_Win * win)
{
    return counters_set(win, 0, MPI_SUCCESS);
}

/* MPI_Win_set_num_notify: as MPIX_Win_create_notify (0 detaches), but
 * erroneous while this process has an access epoch open on the window */
int MPIR_Win_set_num_notify_impl(MPIR_Win * win, MPIR_Info * info, int num_notifications)
{
    int mpi_errno = counters_fit(win, num_notifications, MPI_ERR_ARG);
    if (mpi_errno == MPI_SUCCESS && MPID_Notify_epoch_open(win))
        mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                         MPI_ERR_RMA_SYNC, "**notifysetnumepoch", 0);
    return counters_set(win, num_notifications, mpi_errno);
}

/* The user's promise, kept at window creation (hook 0017).  0 is the
 * draft's "no limit"; a value that is no count is ignored, as MPICH ignores
 * its own hints' unknown values, so that no process fails alone in a
 * collective creation. */
int MPIR_Notify_win_assert_max(MPIR_Win * win, const char *value)
{
    struct MPIR_Notify_win *nw;
    char *end;
    errno = 0;
    long n = strtol(value, &end, 10);
    if (end == value || *end || errno || n <= 0)
        return MPI_SUCCESS;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    if (mpi_errno == MPI_SUCCESS)
        nw->assert_max = (int) MPL_MIN(n, MPIR_NOTIFY_TAG_MAX + 1);
    return mpi_errno;
}

int MPIR_Notify_win_get_info(MPIR_Win * win, MPIR_Info * info)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", win->notify ? win->notify->assert_max : 0);
    return MPIR_Info_set_impl(info, "mpi_assert_max_num_notify", buf);
}

/* Every count up to NUMUB is served alike (16 bytes of the process's memory
 * per counter), so the soft bound NUMSB is NUMUB.  A counter is an
 * MPI_Count. */
#define COUNTER_VALUE_UB ((MPI_Count) (((unsigned long long) 1 << (8 * sizeof(MPI_Count) - 1)) - 1))

int MPIR_Notify_win_get_attr(MPIR_Win * win, int keyval, void *attribute_val)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    /* C gets the address of a copy, Fortran the value */
    switch (keyval) {
        case MPI_WIN_NOTIFY_NUMSB:
        case MPI_WIN_NOTIFY_NUMUB:{
                int *copy = &nw->attr_num[keyval == MPI_WIN_NOTIFY_NUMUB];
                *copy = counters_ub(win);
                *(void **) attribute_val = copy;
                break;
            }
        case MPI_WIN_NOTIFY_VALUE_UB:
            nw->attr_value_ub = COUNTER_VALUE_UB;
            *(void **) attribute_val = &nw->attr_value_ub;
            break;
#ifdef HAVE_FORTRAN_BINDING
        case MPII_ATTR_C_TO_FORTRAN(MPI_WIN_NOTIFY_NUMSB):
        case MPII_ATTR_C_TO_FORTRAN(MPI_WIN_NOTIFY_NUMUB):
            *(intptr_t *) attribute_val = counters_ub(win);
            break;
        case MPII_ATTR_C_TO_FORTRAN(MPI_WIN_NOTIFY_VALUE_UB):
            *(intptr_t *) attribute_val = (intptr_t) MPL_MIN(COUNTER_VALUE_UB, INTPTR_MAX);
            break;
#endif
        default:
            MPIR_Assert(FALSE);
            break;
    }
  fn_fail:
    return mpi_errno;
}

int MPIR_Win_get_num_notify_impl(MPIR_Win * win, int target_rank, int *num_notifications)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_ERR_CHKANDJUMP2(target_rank < 0 || target_rank >= win->comm_ptr->local_size, mpi_errno,
                         MPI_ERR_RANK, "**notifytarget", "**notifytarget %d %d", target_rank,
                         win->comm_ptr->local_size);
    *num_notifications = counters_of(win, target_rank);
  fn_fail:
    return mpi_errno;
}

/* MPI_Win_get_notify_value, then the zero, under the lock every delivery
 * takes: an arrival is counted before the read (in *value) or after the
 * zero, never between */
int MPIR_Win_reset_notify_value_impl(MPIR_Win * win, int notification_idx, MPI_Count * value)
{
    int mpi_errno = MPIR_Win_get_notify_impl(win, notification_idx, value);
    if (mpi_errno == MPI_SUCCESS)
        win->notify->counters[notification_idx] = win->notify->counters_read[notification_idx] = 0;
    return mpi_errno;
}

int MPIR_Win_get_notify_impl(MPIR_Win * win, int notification_idx, MPI_Count * value)
{
    int mpi_errno = MPIR_Notify_counter_check(win, notification_idx);
    MPIR_ERR_CHECK(mpi_errno);
    /* What a poll of the device finds for the window (a few loads on a
     * polled path); if the counter still holds what this call returned
     * last time, a round of progress (everything else pending), on a window
     * with polled paths only when one is due (MPIR_Notify_progress_due), so
     * that a polling loop spends its time on the cheap poll and still drives
     * everything else.  A value the caller has not seen yet (raised by
     * progress in another call, as a flush's that took in the reply of a
     * ping-pong) is news enough: a round there costs the netmods system
     * calls, and the next read makes it. */
    struct MPIR_Notify_win *nw = win->notify;
    MPI_Count *c = &nw->counters[notification_idx], before = *c;
    mpi_errno = MPID_Notify_poll(win);
    MPIR_ERR_CHECK(mpi_errno);
    if (*c == before && before == nw->counters_read[notification_idx] &&
        MPIR_Notify_progress_due(win, NULL)) {
        mpi_errno = MPIR_Notify_progress_round(win, NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *value = nw->counters_read[notification_idx] = *c;
  fn_fail:
    return mpi_errno;
}

int MPIR_Win_set_notify_impl(MPIR_Win * win, int notification_idx, MPI_Count value)
{
    int mpi_errno = MPIR_Notify_counter_check(win, notification_idx);
    if (mpi_errno == MPI_SUCCESS)
        *MPIR_Notify_counter(win, notification_idx) = value;
    return mpi_errno;
}

/* ---------------------------------------------------- counter watches */

/* MPIX_Win_notify_on_update: a one-shot function, on the window's list
 * from its registration until it has run.  Once deliver() in
 * notify_queue.c raises the counter to the threshold (or at once, if it is
 * there already) it is a deferred call (request_callback.c): it runs at the
 * next round of progress, outside the matching code and the lock.
 * MPIX_Win_notify_request's watch completes a request instead, which any
 * request call, and a continuation (MPIX_Continue), can then wait for. */
typedef struct MPIR_Notify_watch {
    MPIR_Deferred_call_t call;  /* first: the watch is the call */
    MPIR_Win *win;
    int idx;
    MPI_Count threshold;
    MPI_Count value;            /* the counter when it reached threshold: fn's argument */
    MPIX_Win_notify_function *fn;
    void *arg;
    MPIR_Request *req;          /* MPIX_Win_notify_request's, instead of fn */
    struct MPIR_Notify_watch *next, *prev;      /* the window's list */
} watch_t;

/* the threshold request's status: the counter index as its tag, the value
 * that reached the threshold as its count; cancelled if the counters went
 * first */
static void complete_request(watch_t * w, MPI_Count value, bool dropped)
{
    MPIR_Request *req = w->req;
    MPIR_Status_set_empty(&req->status);
    req->status.MPI_TAG = w->idx;
    MPIR_STATUS_SET_COUNT(req->status, dropped ? 0 : value);
    MPIR_STATUS_SET_CANCEL_BIT(req->status, dropped);
    req->status.MPI_ERROR = MPI_SUCCESS;
    MPID_Request_complete(req);
}

static void run_watch(MPIR_Deferred_call_t * call)
{
    watch_t *w = (watch_t *) call;
    MPI_Win handle = w->win->handle;
    DL_DELETE(w->win->notify->watches, w);
    if (w->req)
        complete_request(w, w->value, false);
    else
        MPIR_CALL_USER(w->fn(handle, w->idx, w->value, w->arg));
    MPL_free(w);
}

static void watch_due(watch_t * w, MPI_Count value)
{
    w->value = value;
    MPIR_Deferred_call_add(&w->call);
}

void MPIR_Notify_watches_check(struct MPIR_Notify_win *nw, int idx, MPI_Count value)
{
    watch_t *w;
    DL_FOREACH(nw->watches, w) {
        if (w->idx == idx && value >= w->threshold && !w->call.queued)
            watch_due(w, value);
    }
}

void MPIR_Notify_watches_drop(struct MPIR_Notify_win *nw)
{
    watch_t *w, *tmp;
    DL_FOREACH_SAFE(nw->watches, w, tmp) {
        DL_DELETE(nw->watches, w);
        MPIR_Deferred_call_cancel(&w->call);
        if (w->req)
            complete_request(w, 0, true);
        MPL_free(w);
    }
}

static int watch_add(MPIR_Win * win, int idx, MPI_Count threshold, MPIX_Win_notify_function * fn,
                     void *arg, MPIR_Request * req)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_counter_check(win, idx);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Deferred_call_init();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);

    watch_t *w = MPL_calloc(1, sizeof(*w), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!w, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "counter watch");
    w->call.run = run_watch;
    w->win = win;
    w->idx = idx;
    w->threshold = threshold;
    w->fn = fn;
    w->arg = arg;
    w->req = req;
    DL_APPEND(nw->watches, w);
    MPI_Count now = *MPIR_Notify_counter(win, idx);
    if (now >= threshold)
        watch_due(w, now);      /* reached already: at the next round of progress */
  fn_fail:
    return mpi_errno;
}

int MPIR_Win_notify_on_update_impl(MPIR_Win * win, int idx, MPI_Count threshold,
                                   MPIX_Win_notify_function * fn, void *arg)
{
    int mpi_errno = MPIR_Notify_counter_check(win, idx);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP1(!fn, mpi_errno, MPI_ERR_ARG, "**nullptr", "**nullptr %s", "fn");
    mpi_errno = watch_add(win, idx, threshold, fn, arg, NULL);
  fn_fail:
    return mpi_errno;
}

int MPIR_Win_notify_request_impl(MPIR_Win * win, int idx, MPI_Count threshold,
                                 MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = MPIR_Request_create(MPIR_REQUEST_KIND__RMA);
    MPIR_ERR_CHKANDJUMP(req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    /* the caller's reference and the watch's, which completion drops */
    MPIR_Object_set_ref(req, 2);
    mpi_errno = watch_add(win, idx, threshold, NULL, NULL, req);
    if (mpi_errno) {
        MPIR_Object_set_ref(req, 1);
        MPIR_Request_free(req);
        goto fn_fail;
    }
    *request = req;
  fn_fail:
    return mpi_errno;
}

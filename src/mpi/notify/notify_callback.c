/*
 * Completion functions of notification requests (MPIX_Request_on_complete)
 * and of counters (MPIX_Win_notify_on_update): completion pushed to the
 * user instead of polled with MPI_Test or MPIX_Win_get_notify.
 *
 * When an activation of a request with a function completes (count_toward
 * in notify.c, or MPI_Start of an MPI_PROC_NULL request), the request joins
 * the list of requests due; the function does not run there, inside the
 * matching code and a transport's handler, but from an MPICH progress hook,
 * at the start of the next round of progress of whichever thread drives it:
 * the hook makes the request inactive as MPI_Test would and calls the
 * function with the status.  The function may start the request again
 * (MPI_Start may complete it at once from the unexpected queue: it is then
 * due again and runs in the same round), or free it.
 *
 * A counter's watch (one-shot) joins the list of watches due when
 * deliver() in notify.c raises the counter to its threshold, or at once if
 * the counter is there already; the same hook calls it.
 *
 * All of it runs under the lock that protects progress, as notify.c does.
 */

#include "mpiimpl.h"
#include "utlist.h"

static MPIR_Notify_req_t *due_head;     /* completed, function not yet run */
static MPIR_Notify_watch_t *watches_due;        /* counter reached, function not yet run */
static int hook_id = -1;

static int run_due(int *made_progress)
{
    while (watches_due) {
        MPIR_Notify_watch_t *w = watches_due;
        DL_DELETE(watches_due, w);
        MPI_Count *c = MPIR_Notify_counter(w->win, w->idx);
        *made_progress = 1;
        w->fn(w->win->handle, w->idx, c ? *c : w->threshold, w->arg);
        MPL_free(w);
    }
    while (due_head) {
        MPIR_Notify_req_t *r = due_head;
        MPI_Status status;
        DL_DELETE_NP(due_head, r, due_next, due_prev);
        r->due = false;
        if (!r->active)
            continue;   /* completed by MPI_Test or MPI_Wait after all (erroneous) */
        int err = MPIR_Notify_completion_processing(r->req, &status);
        status.MPI_ERROR = err;
        *made_progress = 1;
        r->on_complete(&status, r->on_complete_arg);
    }
    /* a function may have made more due: they run at the next round */
    if (!watches_due)
        MPIR_Progress_hook_deactivate(hook_id);
    return MPI_SUCCESS;
}

static int register_hook(void)
{
    int mpi_errno = MPI_SUCCESS;
    if (hook_id < 0) {
        mpi_errno = MPIR_Progress_hook_register(run_due, &hook_id);
        MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**notifycbhook");
    }
  fn_fail:
    return mpi_errno;
}

void MPIR_Notify_callback_due(MPIR_Notify_req_t * r)
{
    if (r->due)
        return;
    r->due = true;
    DL_APPEND_NP(due_head, r, due_next, due_prev);
    MPIR_Progress_hook_activate(hook_id);
}

void MPIR_Notify_callback_forget(MPIR_Notify_req_t * r)
{
    if (r->due) {
        DL_DELETE_NP(due_head, r, due_next, due_prev);
        r->due = false;
    }
    r->on_complete = NULL;
}

int MPIR_Notify_on_complete_impl(MPIR_Request * req, MPIX_Request_complete_function * fn,
                                 void *arg)
{
    int mpi_errno = MPI_SUCCESS;

    /* checked also without error checking: u.notify is read below */
    MPIR_ERR_CHKANDJUMP(req->kind != MPIR_REQUEST_KIND__NOTIFY, mpi_errno, MPI_ERR_REQUEST,
                        "**notifycbreq");
    mpi_errno = register_hook();
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_Notify_req_t *r = req->u.notify;
    if (!fn) {
        MPIR_Notify_callback_forget(r);
        goto fn_exit;
    }
    r->on_complete = fn;
    r->on_complete_arg = arg;
    /* an activation that completed before the function was set */
    if (r->active && MPIR_Request_is_complete(req))
        MPIR_Notify_callback_due(r);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ------------------------------------------------------------ counters */

static void watch_due(MPIR_Notify_watch_t * w)
{
    DL_APPEND(watches_due, w);
    MPIR_Progress_hook_activate(hook_id);
}

void MPIR_Notify_watches_check(MPIR_Notify_watch_t ** watches, int idx, MPI_Count value)
{
    MPIR_Notify_watch_t *w, *tmp;
    DL_FOREACH_SAFE(*watches, w, tmp) {
        if (w->idx == idx && value >= w->threshold) {
            DL_DELETE(*watches, w);
            watch_due(w);
        }
    }
}

void MPIR_Notify_watches_drop(MPIR_Win * win, MPIR_Notify_watch_t ** watches)
{
    MPIR_Notify_watch_t *w, *tmp;
    DL_FOREACH_SAFE(*watches, w, tmp) {
        DL_DELETE(*watches, w);
        MPL_free(w);
    }
    DL_FOREACH_SAFE(watches_due, w, tmp) {
        if (w->win == win) {
            DL_DELETE(watches_due, w);
            MPL_free(w);
        }
    }
}

int MPIR_Win_notify_on_update_impl(MPIR_Win * win, int idx, MPI_Count threshold,
                                   MPIX_Win_notify_function * fn, void *arg)
{
    MPIR_Notify_watch_t **watches;
    int mpi_errno = MPIR_Notify_counter_check(win, idx);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP1(!fn, mpi_errno, MPI_ERR_ARG, "**nullptr", "**nullptr %s", "fn");
    mpi_errno = register_hook();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Notify_watches_of(win, &watches);
    MPIR_ERR_CHECK(mpi_errno);

    MPIR_Notify_watch_t *w = MPL_malloc(sizeof(*w), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!w, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "counter watch");
    w->win = win;
    w->idx = idx;
    w->threshold = threshold;
    w->fn = fn;
    w->arg = arg;
    if (*MPIR_Notify_counter(win, idx) >= threshold)
        watch_due(w);   /* reached already: at the next round of progress */
    else
        DL_APPEND(*watches, w);
  fn_fail:
    return mpi_errno;
}

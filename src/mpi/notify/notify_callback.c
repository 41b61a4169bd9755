/*
 * Completion functions of requests (MPIX_Request_on_complete) and of
 * counters (MPIX_Win_notify_on_update): completion pushed to the
 * user instead of polled with MPI_Test or MPIX_Win_get_notify.
 *
 * When an activation of a request with a function completes (count_toward
 * in notify_queue.c, or MPI_Start of an MPI_PROC_NULL request), the request joins
 * the list of requests due; the function does not run there, inside the
 * matching code and a transport's handler, but from an MPICH progress hook,
 * at the start of the next round of progress of whichever thread drives it:
 * the hook makes the request inactive as MPI_Test would and calls the
 * function with the status.  The function may start the request again
 * (MPI_Start may complete it at once from the unexpected queue: it is then
 * due again and runs in the same round), or free it.
 *
 * Any other nonpersistent request (receive, send, MPI_Rput_notify's, a
 * nonblocking collective's) is handed over: MPICH owns it from then on.
 * Its completion has no hook in MPICH's many completion paths (netmod
 * callbacks, MPIDI_Request_complete_fast ...), so the same progress hook
 * looks at the completion counter of each handed-over request, one load per
 * request and round, does what MPI_Test would (status, free) and calls the
 * function.  A task runtime waiting for a few dozen requests at a time pays
 * that instead of an MPI_Test per request from outside.
 *
 * A counter's watch (one-shot) joins the list of watches due when
 * deliver() in notify_queue.c raises the counter to its threshold, or at once if
 * the counter is there already; the same hook calls it.
 *
 * The lists change under the lock that protects progress, as the matching
 * code's do; the functions themselves run outside it (CALL_USER).
 */

#include "mpiimpl.h"
#include "utlist.h"

static MPIR_Notify_req_t *due_head;     /* completed, function not yet run */
static MPIR_Notify_watch_t *watches_due;        /* counter reached, function not yet run */
static int hook_id = -1;

typedef struct handed {
    MPIR_Request *req;
    MPIX_Request_complete_function *fn;
    void *arg;
    MPI_Status status;          /* once complete */
    struct handed *next, *prev;
} handed_t;
static handed_t *handed_over;   /* nonpersistent requests, not complete yet */

/* A user function may call MPI (MPI_Start, omp_fulfill_event whose tasks
 * call MPI ...): it runs outside the global critical section, as MPICH's
 * generalized-request callbacks do.  Another thread may then run this hook
 * too; each item is taken off its list under the lock before its call. */
#define CALL_USER(call) do {                                            \
        MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);  \
        call;                                                           \
        MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX); \
    } while (0)

static int run_due(int *made_progress)
{
    handed_t *h, *tmp, *done = NULL;
    DL_FOREACH_SAFE(handed_over, h, tmp) {
        if (!MPIR_Request_is_complete(h->req))
            continue;
        /* what MPI_Test does: status, then the request is freed */
        DL_DELETE(handed_over, h);
        MPIR_Status_set_empty(&h->status);
        h->status.MPI_ERROR = MPIR_Request_completion_processing(h->req, &h->status);
        MPIR_Request_free(h->req);
        DL_APPEND(done, h);
    }
    while (done) {
        h = done;
        DL_DELETE(done, h);
        *made_progress = 1;
        CALL_USER(h->fn(&h->status, h->arg));
        MPL_free(h);
    }
    while (watches_due) {
        MPIR_Notify_watch_t *w = watches_due;
        DL_DELETE(watches_due, w);
        *made_progress = 1;
        CALL_USER(w->fn(w->win->handle, w->idx, w->value, w->arg));
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
        MPIX_Request_complete_function *fn = r->on_complete;
        void *arg = r->on_complete_arg;
        *made_progress = 1;
        CALL_USER(fn(&status, arg));
    }
    /* a function may have made more due: they run at the next round */
    if (!watches_due && !handed_over && !due_head)
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

/* a nonpersistent request: MPICH takes the user's reference */
static bool handed_over_already(MPIR_Request * req)
{
    handed_t *h;
    DL_FOREACH(handed_over, h) {
        if (h->req == req)
            return true;
    }
    return false;
}

static int hand_over(MPIR_Request * req, MPIX_Request_complete_function * fn, void *arg)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_ERR_CHKANDJUMP1(!fn, mpi_errno, MPI_ERR_ARG, "**nullptr", "**nullptr %s", "fn");
    handed_t *h = MPL_malloc(sizeof(*h), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP1(!h, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "completion function");
    h->req = req;
    h->fn = fn;
    h->arg = arg;
    DL_APPEND(handed_over, h);
    /* also when complete already: the function runs at the next round */
    MPIR_Progress_hook_activate(hook_id);
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_on_complete_impl(MPIR_Request * req, MPIX_Request_complete_function * fn,
                                 void *arg)
{
    int mpi_errno = MPI_SUCCESS;

    /* A handle already freed names an object back in MPICH's pool, whose
     * reference count is zero until it is handed out again; one handed over
     * before is MPICH's to free.  Either would be freed twice.  (Not the
     * builtin requests of operations complete at once, MPI_PROC_NULL's:
     * shared by all of them and never freed.) */
    MPIR_ERR_CHKANDJUMP(!HANDLE_IS_BUILTIN(req->handle) &&
                        (MPIR_Object_get_ref(req) <= 0 || handed_over_already(req)), mpi_errno,
                        MPI_ERR_REQUEST, "**notifycbfreed");
    /* checked also without error checking: the kind decides what req is */
    MPIR_ERR_CHKANDJUMP(req->kind != MPIR_REQUEST_KIND__NOTIFY &&
                        (MPIR_Request_is_persistent(req) || MPIR_Request_is_partitioned(req) ||
                         req->kind == MPIR_REQUEST_KIND__MPROBE), mpi_errno, MPI_ERR_REQUEST,
                        "**notifycbreq");
    mpi_errno = register_hook();
    MPIR_ERR_CHECK(mpi_errno);
    if (req->kind != MPIR_REQUEST_KIND__NOTIFY) {
        mpi_errno = hand_over(req, fn, arg);
        goto fn_exit;
    }

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

static void watch_due(MPIR_Notify_watch_t * w, MPI_Count value)
{
    w->value = value;
    DL_APPEND(watches_due, w);
    MPIR_Progress_hook_activate(hook_id);
}

void MPIR_Notify_watches_check(MPIR_Notify_watch_t ** watches, int idx, MPI_Count value)
{
    MPIR_Notify_watch_t *w, *tmp;
    DL_FOREACH_SAFE(*watches, w, tmp) {
        if (w->idx == idx && value >= w->threshold) {
            DL_DELETE(*watches, w);
            watch_due(w, value);
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
    MPI_Count now = *MPIR_Notify_counter(win, idx);
    if (now >= threshold)
        watch_due(w, now);      /* reached already: at the next round of progress */
    else
        DL_APPEND(*watches, w);
  fn_fail:
    return mpi_errno;
}

/*
 * Completion functions of requests (MPIX_Request_on_complete) and the
 * deferred calls that carry them (include/mpir_request_callback.h).
 *
 * A deferred call waits on one list for the next round of progress, where
 * an MPICH progress hook takes it off and runs it.  Completion functions
 * are deferred calls; so are other user functions that must not run inside
 * the code that found them due (a transport's handler, the matching code),
 * for example the counter watches of Notified Access (notify_counter.c).
 *
 * A persistent request whose kind keeps a completion function (slot_of:
 * the notification requests of MPI_Notify_init) says when an activation
 * completes (MPIR_Request_callback_due); the hook then does what MPI_Test
 * would (status, request inactive) and calls the function, which may start
 * the request again or free it.
 *
 * Any other nonpersistent request (receive, send, MPI_Rput_notify's, a
 * nonblocking collective's) is handed over: MPICH owns it from then on.
 * Its completion has no hook in MPICH's many completion paths (the
 * devices' callbacks, MPIDI_Request_complete_fast ...), so the same
 * progress hook looks at the completion counter of each handed-over
 * request, one load per request and round, does what MPI_Test would
 * (status, free) and calls the function.
 *
 * The lists change under the lock that protects progress; the functions
 * themselves run outside it (MPIR_CALL_USER).
 */

#include "mpiimpl.h"
#include "utlist.h"

static MPIR_Deferred_call_t *due;       /* not yet run, in the order they became due */
static int hook_id = -1;

typedef struct handed {
    MPIR_Request *req;
    MPIX_Request_complete_function *fn;
    void *arg;
    MPI_Status status;          /* once complete */
    struct handed *next, *prev;
} handed_t;
static handed_t *handed_over;   /* nonpersistent requests, not complete yet */

struct MPIR_Request_callback {
    MPIR_Deferred_call_t call;  /* first: the call is the callback */
    MPIR_Request *req;
    MPIX_Request_complete_function *fn;
    void *arg;
};

static int progress_hook(int *made_progress)
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
        MPIR_CALL_USER(h->fn(&h->status, h->arg));
        MPL_free(h);
    }
    /* a call may make more due (a function that starts its request again,
     * which the unexpected queue completes at once): they run in this round */
    while (due) {
        MPIR_Deferred_call_t *c = due;
        DL_DELETE(due, c);
        c->queued = false;
        *made_progress = 1;
        c->run(c);
    }
    if (!due && !handed_over)
        MPIR_Progress_hook_deactivate(hook_id);
    return MPI_SUCCESS;
}

int MPIR_Deferred_call_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    if (hook_id < 0) {
        mpi_errno = MPIR_Progress_hook_register(progress_hook, &hook_id);
        MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**reqcbhook");
    }
  fn_fail:
    return mpi_errno;
}

void MPIR_Deferred_call_add(MPIR_Deferred_call_t * call)
{
    if (call->queued)
        return;
    call->queued = true;
    DL_APPEND(due, call);
    MPIR_Progress_hook_activate(hook_id);
}

void MPIR_Deferred_call_cancel(MPIR_Deferred_call_t * call)
{
    if (call->queued) {
        DL_DELETE(due, call);
        call->queued = false;
    }
}

/* ---------------------------------------------------------- persistent */

/* the kinds that keep a completion function per request */
static struct MPIR_Request_callback **slot_of(MPIR_Request * req)
{
    switch (req->kind) {
        case MPIR_REQUEST_KIND__NOTIFY:
            return &req->u.notify->on_complete;
        default:
            return NULL;
    }
}

static void run_persistent(MPIR_Deferred_call_t * call)
{
    struct MPIR_Request_callback *cb = (struct MPIR_Request_callback *) call;
    MPI_Status status;

    /* returned by MPI_Test or MPI_Wait after all (erroneous) */
    if (!MPIR_Request_is_active(cb->req))
        return;
    status.MPI_ERROR = MPIR_Request_completion_processing(cb->req, &status);
    /* the function may free the request, and cb with it */
    MPIX_Request_complete_function *fn = cb->fn;
    void *arg = cb->arg;
    MPIR_CALL_USER(fn(&status, arg));
}

void MPIR_Request_callback_due(struct MPIR_Request_callback *cb)
{
    MPIR_Deferred_call_add(&cb->call);
}

void MPIR_Request_callback_free(struct MPIR_Request_callback **cb)
{
    if (*cb) {
        MPIR_Deferred_call_cancel(&(*cb)->call);
        MPL_free(*cb);
        *cb = NULL;
    }
}

static int set_persistent(MPIR_Request * req, struct MPIR_Request_callback **slot,
                          MPIX_Request_complete_function * fn, void *arg)
{
    int mpi_errno = MPI_SUCCESS;
    if (!fn) {
        MPIR_Request_callback_free(slot);
        goto fn_exit;
    }
    if (!*slot) {
        *slot = MPL_calloc(1, sizeof(**slot), MPL_MEM_OTHER);
        MPIR_ERR_CHKANDJUMP1(!*slot, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "completion function");
        (*slot)->call.run = run_persistent;
        (*slot)->req = req;
    }
    (*slot)->fn = fn;
    (*slot)->arg = arg;
    /* an activation that completed before the function was set */
    if (MPIR_Request_is_active(req) && MPIR_Request_is_complete(req))
        MPIR_Request_callback_due(*slot);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ------------------------------------------------------- nonpersistent */

static bool handed_over_already(MPIR_Request * req)
{
    handed_t *h;
    DL_FOREACH(handed_over, h) {
        if (h->req == req)
            return true;
    }
    return false;
}

/* MPICH takes the user's reference */
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

int MPIR_Request_on_complete_impl(MPIR_Request * req, MPIX_Request_complete_function * fn,
                                  void *arg)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIR_Request_callback **slot = slot_of(req);

    /* A handle already freed names an object back in MPICH's pool, whose
     * reference count is zero until it is handed out again; one handed over
     * before is MPICH's to free.  Either would be freed twice.  (Not the
     * builtin requests of operations complete at once, MPI_PROC_NULL's:
     * shared by all of them and never freed.) */
    MPIR_ERR_CHKANDJUMP(!HANDLE_IS_BUILTIN(req->handle) &&
                        (MPIR_Object_get_ref(req) <= 0 || handed_over_already(req)), mpi_errno,
                        MPI_ERR_REQUEST, "**reqcbfreed");
    /* checked also without error checking: the kind decides what req is */
    MPIR_ERR_CHKANDJUMP(!slot && (MPIR_Request_is_persistent(req) ||
                                  MPIR_Request_is_partitioned(req) ||
                                  req->kind == MPIR_REQUEST_KIND__MPROBE), mpi_errno,
                        MPI_ERR_REQUEST, "**reqcbkind");
    mpi_errno = MPIR_Deferred_call_init();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = slot ? set_persistent(req, slot, fn, arg) : hand_over(req, fn, arg);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

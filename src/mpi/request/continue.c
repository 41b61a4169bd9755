/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Continuations: MPIX_Continue_init, MPIX_Continue, MPIX_Continueall, with
 * upstream MPICH's names, flags and callback type (include/mpir_continue.h),
 * and MPIX_Request_on_complete as a layer over them.
 *
 * A continuation watches its operation requests: each is in one hash table
 * (watched, keyed by the request), and the progress hook of the deferred
 * calls (request_callback.c) reads the completion counter of each, one load
 * per request and round, as MPI_Test would.  An operation found complete is
 * completed as MPI_Test would do it (its status into the user's slot, a
 * nonpersistent request freed); the continuation whose last operation that
 * was becomes ready, and then, depending on its continuation request:
 *   - none, or an active one: its callback runs in this round;
 *   - an active poll-only one: it waits on that request's ready list for
 *     MPI_Test or MPI_Wait on it (MPIR_Continue_poll);
 *   - an inactive one: it waits on that request's held list for MPI_Start.
 * A continuation whose operations are all complete when it is registered
 * runs inside MPIX_Continue, or at the next round with
 * MPIX_CONT_DEFER_COMPLETE.  Callbacks run outside the global critical
 * section (MPIR_CALL_USER); every continuation is off its list before.
 *
 * Completing an operation may release the global lock too: a generalized
 * request's query_fn and free_fn run outside it, and may call MPI.  So a
 * round first claims every operation it found complete (one that another
 * round, in another thread or re-entered from such a function, then
 * skips), and only then completes them, one by one.  A continuation counts
 * its operations not yet completed, plus one while its registration runs:
 * whoever completes the last makes it ready, once.
 */

#include "mpiimpl.h"
#include "utlist.h"
#include "uthash.h"
#include "continue_impl.h"

static op_t *watched;           /* operations not complete yet */
static cont_t *runnable;        /* ready, run at the next round */

/* ---------------------------------------------------- running callbacks */

/* the continuation request of c has one callback fewer to wait for */
static void cont_req_done(MPIR_Request * cr)
{
    MPIR_Cont_request_t *st = cr->u.cont;
    if (st->active) {
        int incomplete;
        MPIR_cc_decr(&cr->cc, &incomplete);
    }
    if (--st->pending == 0) {
        /* the reference taken when the first one was registered */
        if (st->freed) {
            MPL_free(st);
            cr->u.cont = NULL;
        }
        MPIR_Request_free(cr);
    }
}

/* c is off every list: run its callback, or report its operations' error */
void MPIR_Continue_run(cont_t * c)
{
    MPIR_Request *cr = c->cr;
    int err = c->err;

    if (c->gone) {
        /* MPIX_Request_on_complete's request was freed after it was due */
        MPL_free(c);
        return;
    }
    c->running = true;
    if (c->complete_fn) {
        MPIR_CALL_USER(c->complete_fn(&c->status, c->cb_data));
    } else if (err == MPI_SUCCESS || (c->flags & MPIX_CONT_INVOKE_FAILED)) {
        /* the callback's return value carries nothing (as upstream) */
        MPIR_CALL_USER((void) c->cb(err, c->cb_data));
    } else if (cr) {
        /* not invoked: the continuation request's completion reports it */
        if (cr->u.cont->err == MPI_SUCCESS)
            cr->u.cont->err = err;
    } else {
        /* nothing to report it on but MPI_COMM_WORLD's error handler */
        (void) MPIR_Err_return_comm(NULL, "MPIX_Continue", err);
    }
    c->running = false;

    if ((c->flags & MPIR_CONT_REARM) && !c->gone) {
        /* its operation stays watched: the next activation runs it again */
        c->remaining = 1;
        c->err = MPI_SUCCESS;
        c->ops[0].claimed = false;
        return;
    }
    if (cr)
        cont_req_done(cr);
    MPL_free(c);
}

/* every operation of c is complete */
void MPIR_Continue_ready(cont_t * c, bool at_registration)
{
    MPIR_Cont_request_t *st = c->cr ? c->cr->u.cont : NULL;

    if (st && !st->active) {
        DL_APPEND(st->held, c);
    } else if (st && st->poll_only) {
        DL_APPEND(st->ready, c);
    } else if (at_registration && !(c->flags & MPIX_CONT_DEFER_COMPLETE)) {
        MPIR_Continue_run(c);
    } else {
        DL_APPEND(runnable, c);
        MPIR_Deferred_hook_activate();
    }
}

/* the status and error MPI_Test gives a completed operation */
static void complete_status(op_t * op)
{
    int rc;

    if (op->status != MPI_STATUS_IGNORE)
        MPIR_Status_set_empty(op->status);
    rc = MPIR_Request_completion_processing(op->req, op->status);
    if (op->status != MPI_STATUS_IGNORE)
        op->status->MPI_ERROR = rc;
    if (rc != MPI_SUCCESS && op->cont->err == MPI_SUCCESS)
        op->cont->err = rc;
}

/* one operation of c fewer to complete; the last makes it ready */
static void op_done(cont_t * c, bool at_registration)
{
    if (--c->remaining == 0)
        MPIR_Continue_ready(c, at_registration);
}

/* what MPI_Test does to a completed operation, for its continuation.  op
 * was claimed; this may release the global lock (a generalized request's
 * query_fn and free_fn), and c may be gone once op_done returns. */
static void op_complete(op_t * op, bool at_registration)
{
    MPIR_Request *req = op->req;
    cont_t *c = op->cont;

    if (!op->dropped)
        complete_status(op);
    if (!(c->flags & MPIR_CONT_REARM)) {
        HASH_DEL(watched, op);
        if (!op->dropped && !MPIR_Request_is_persistent(req) && !MPIR_Request_is_partitioned(req))
            MPIR_Request_free(req);
    }
    op_done(c, at_registration);
}

/* called by the deferred calls' progress hook on each round */
int MPIR_Continue_progress(int *made_progress)
{
    op_t *op, *tmp, *claimed = NULL, **tail = &claimed;
    cont_t *now, *c;

    /* claim first, under the lock, in the order they were registered */
    HASH_ITER(hh, watched, op, tmp) {
        if (op->claimed)
            continue;   /* another round completes it, or REARM's callback is due */
        if (!MPIR_Request_is_complete(op->req) || !MPIR_Request_is_active(op->req))
            continue;
        op->claimed = true;
        op->next_claimed = NULL;
        *tail = op;
        tail = &op->next_claimed;
    }
    while (claimed) {
        op = claimed;
        claimed = op->next_claimed;
        op_complete(op, false);
    }
    now = runnable;
    runnable = NULL;
    while (now) {
        c = now;
        DL_DELETE(now, c);
        *made_progress = 1;
        MPIR_Continue_run(c);
    }
    return MPI_SUCCESS;
}

bool MPIR_Continue_idle(void)
{
    return watched == NULL && runnable == NULL;
}

/* ------------------------------------------------------- registration */

/* MPICH's builtin requests: complete at creation and shared by every
 * operation that completed at once (MPIR_Request_create_complete: an RMA
 * access done in the call, MPI_PROC_NULL's), never freed */
static bool shared_complete(MPIR_Request * req)
{
    return HANDLE_IS_BUILTIN(req->handle);
}

static int check_op(MPIR_Request * req, int i)
{
    int mpi_errno = MPI_SUCCESS;
    op_t *op;

    if (shared_complete(req))
        goto fn_fail;
    /* a handle freed already names an object back in MPICH's pool */
    MPIR_ERR_CHKANDJUMP1(MPIR_Object_get_ref(req) <= 0,
                         mpi_errno, MPI_ERR_REQUEST, "**contopfreed", "**contopfreed %d", i);
    MPIR_ERR_CHKANDJUMP1(req->kind == MPIR_REQUEST_KIND__MPROBE, mpi_errno, MPI_ERR_REQUEST,
                         "**contopkind", "**contopkind %d", i);
    HASH_FIND_PTR(watched, &req, op);
    MPIR_ERR_CHKANDJUMP1(op != NULL, mpi_errno, MPI_ERR_REQUEST, "**contoptwice",
                         "**contoptwice %d", i);
  fn_fail:
    return mpi_errno;
}

/* registers c (ops[] filled); it may run before this returns */
static int attach(cont_t * c)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *cr = c->cr;

    /* check all before touching any: an error leaves every request as it was */
    for (int i = 0; i < c->count; i++) {
        if (c->ops[i].req) {
            mpi_errno = check_op(c->ops[i].req, i);
            MPIR_ERR_CHECK(mpi_errno);
            for (int j = 0; j < i && !shared_complete(c->ops[i].req); j++)
                MPIR_ERR_CHKANDJUMP1(c->ops[j].req == c->ops[i].req, mpi_errno,
                                     MPI_ERR_REQUEST, "**contoptwice", "**contoptwice %d", i);
        }
    }
    mpi_errno = MPIR_Deferred_call_init();
    MPIR_ERR_CHECK(mpi_errno);

    if (cr) {
        MPIR_Cont_request_t *st = cr->u.cont;
        if (st->pending++ == 0)
            MPIR_Request_add_ref(cr);
        if (st->active)
            MPIR_cc_inc(&cr->cc);
    }
    /* one more while attaching: an operation that completes meanwhile (in
     * another thread's round, while op_complete released the lock) cannot
     * make c ready before every operation is watched */
    c->remaining = c->count + 1;
    for (int i = 0; i < c->count; i++) {
        op_t *op = &c->ops[i];
        op->cont = c;
        if (!op->req) {
            /* MPI_REQUEST_NULL: complete, with an empty status */
            if (op->status != MPI_STATUS_IGNORE)
                MPIR_Status_set_empty(op->status);
            c->remaining--;
        } else if (shared_complete(op->req)) {
            /* as MPI_Test returns it (never freed), never watched */
            complete_status(op);
            c->remaining--;
        } else if (!MPIR_Request_is_active(op->req)) {
            /* an inactive persistent request: as MPI_Test returns it */
            if (op->status != MPI_STATUS_IGNORE)
                MPIR_Status_set_empty(op->status);
            if (c->flags & MPIR_CONT_REARM)
                HASH_ADD_PTR(watched, req, op, MPL_MEM_OTHER);
            else
                c->remaining--;
        } else {
            HASH_ADD_PTR(watched, req, op, MPL_MEM_OTHER);
            if (MPIR_Request_is_complete(op->req)) {
                op->claimed = true;
                op_complete(op, true);
            }
        }
    }
    if (c->remaining > 1)
        MPIR_Deferred_hook_activate();
    op_done(c, true);
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(c);
    goto fn_exit;
}

static cont_t *cont_create(int count)
{
    return MPL_calloc(1, sizeof(cont_t) + count * sizeof(op_t), MPL_MEM_OTHER);
}

int MPIR_Continueall_impl(int count, MPIR_Request * ops[], MPIX_Continue_cb_function * cb,
                          void *cb_data, int flags, MPI_Status statuses[], MPIR_Request * cr)
{
    int mpi_errno = MPI_SUCCESS;
    cont_t *c;

    MPIR_ERR_CHKANDJUMP1(flags & ~CONT_PUBLIC_FLAGS, mpi_errno, MPI_ERR_ARG, "**contflags",
                         "**contflags %d", flags);
    if (flags & MPIX_CONT_FORGET)
        cr = NULL;
    MPIR_ERR_CHKANDJUMP(cr && cr->kind != MPIR_REQUEST_KIND__CONTINUE, mpi_errno,
                        MPI_ERR_REQUEST, "**contreq");
    c = cont_create(count);
    MPIR_ERR_CHKANDJUMP1(!c, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "continuation");
    c->cb = cb;
    c->cb_data = cb_data;
    c->flags = flags;
    c->cr = cr;
    c->count = count;
    for (int i = 0; i < count; i++) {
        c->ops[i].req = ops[i];
        c->ops[i].status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    }
    mpi_errno = attach(c);
  fn_fail:
    return mpi_errno;
}

/* ---------------------------------------------- MPIX_Request_on_complete */

/* MPI_Request_free of a persistent operation (the caller kept a copy of
 * its handle) while a continuation watches it.  A continuation of
 * MPIX_Continue counts it as complete, cancelled (its callback still runs,
 * once, and its continuation request still completes); on_complete's stays
 * silent from now on. */
void MPIR_Continue_op_freed(MPIR_Request * req)
{
    op_t *op;
    if (!watched)
        return;
    HASH_FIND_PTR(watched, &req, op);
    if (!op)
        return;
    cont_t *c = op->cont;
    if (!(c->flags & MPIR_CONT_REARM)) {
        if (op->status != MPI_STATUS_IGNORE) {
            MPIR_Status_set_empty(op->status);
            MPIR_STATUS_SET_CANCEL_BIT(*op->status, TRUE);
        }
        if (op->claimed) {
            /* a round found it complete: that round completes it, cancelled */
            op->dropped = true;
            return;
        }
        HASH_DEL(watched, op);
        op_done(c, false);
        return;
    }
    HASH_DEL(watched, op);
    if (c->running || op->claimed) {
        /* running, being completed or due on a list: MPIR_Continue_run frees it and
         * never calls the function again */
        op->dropped = true;
        c->gone = true;
    } else {
        MPL_free(c);
    }
}

/* a notification request keeps its function: it runs after each completed
 * activation (MPIR_CONT_REARM) until the function is removed or the request
 * freed; any other request is a one-time continuation without a
 * continuation request */
int MPIR_Request_on_complete_impl(MPIR_Request * req, MPIX_Request_complete_function * fn,
                                  void *arg)
{
    int mpi_errno = MPI_SUCCESS;
    bool keeps = req->kind == MPIR_REQUEST_KIND__NOTIFY;
    op_t *op;
    cont_t *c;

    /* checked also without error checking: the kind decides what req is */
    MPIR_ERR_CHKANDJUMP(!keeps && (MPIR_Request_is_persistent(req) ||
                                   MPIR_Request_is_partitioned(req) ||
                                   req->kind == MPIR_REQUEST_KIND__MPROBE ||
                                   req->kind == MPIR_REQUEST_KIND__CONTINUE), mpi_errno,
                        MPI_ERR_REQUEST, "**reqcbkind");
    HASH_FIND_PTR(watched, &req, op);
    /* a continuation of MPIX_Continue holds the request for this activation */
    MPIR_ERR_CHKANDJUMP(op && !(op->cont->flags & MPIR_CONT_REARM), mpi_errno,
                        MPI_ERR_REQUEST, "**reqcbtaken");
    if (keeps && op) {
        /* replace or remove the function set before */
        if (!fn) {
            MPIR_Continue_op_freed(req);
        } else {
            op->cont->complete_fn = fn;
            op->cont->cb_data = arg;
        }
        goto fn_exit;
    }
    MPIR_ERR_CHKANDJUMP1(!fn, mpi_errno, MPI_ERR_ARG, "**nullptr", "**nullptr %s", "fn");
    c = cont_create(1);
    MPIR_ERR_CHKANDJUMP1(!c, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "completion function");
    c->complete_fn = fn;
    c->cb_data = arg;
    /* the function runs at a round of progress, never inside this call */
    c->flags = MPIX_CONT_DEFER_COMPLETE | (keeps ? MPIR_CONT_REARM : 0);
    c->count = 1;
    c->ops[0].req = req;
    c->ops[0].status = &c->status;
    mpi_errno = attach(c);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

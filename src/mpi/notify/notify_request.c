/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: persistent notification requests (MPI_Notify_init,
 * MPIR_REQUEST_KIND__NOTIFY): start, wait and test (with their paced
 * rounds of progress), cancel, free and status.  Matching is in
 * notify_queue.c.
 */

#include "notify_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL
      category    : NOTIFY
      type        : int
      default     : 16
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        A process waiting for notifications that a polled path carries
        (shared memory on ch4: MPI_Wait or MPI_Test on a notification
        request whose source is reached through it, MPIX_Win_get_notify on
        a window with such paths) polls the device for the window's
        notifications, and on every N-th poll reads the clock:
        it runs a full round of MPI progress, so that other requests and
        MPI's progress rule are still served, once 15 times the duration
        of the window's last round has passed since that round (at most
        1/16 of the waiting time goes to full rounds).  1 runs full
        progress on every poll.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

int MPIR_Notify_init_impl(MPIR_Win * win, int src, int tag, int expected_count, MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIR_Notify_win *nw;
    MPIR_Notify_req_t *r;

    mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);

    r = MPL_calloc(1, sizeof(*r), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!r, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify request");
    r->req = req;
    r->win = win;
    r->src = src;
    r->tag = tag;
    r->expected = expected_count;
    /* the path table is fixed at window creation, so this is too */
    r->lean = src == MPI_ANY_SOURCE ? nw->has_polled :
        src != MPI_PROC_NULL && MPIR_Notify_path_polled(MPIR_Notify_path_of(nw, src));
    if (src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG && src != MPI_PROC_NULL) {
        r->bucket = MPIR_Notify_bucket_ref(nw, src, tag);
        if (!r->bucket) {
            MPL_free(r);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                                 "notify bucket");
        }
        r->bucket->nbound++;
    }
    req->u.notify = r;

    /* inactive: test/wait return at once with an empty status */
    MPIR_cc_set(&req->cc, 0);
    req->cc_ptr = &req->cc;
    MPIR_Status_set_empty(&req->status);
    req->comm = win->comm_ptr;
    MPIR_Comm_add_ref(win->comm_ptr);
    nw->nreqs++;
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_start(MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_req_t *r = req->u.notify;
    struct MPIR_Notify_win *nw = r->win->notify;

    /* MPI_Startall's checks see every request inactive, so the same request
     * twice in one call gets here active: it must not be posted twice */
    MPIR_ERR_CHKANDJUMP(r->active, mpi_errno, MPI_ERR_REQUEST, "**notifyreqdup");

    r->active = true;
    r->matched = 0;
    req->status.MPI_ERROR = MPI_SUCCESS;
    MPIR_STATUS_SET_CANCEL_BIT(req->status, FALSE);
    req->cc_ptr = &req->cc;

    if (r->src == MPI_PROC_NULL) {
        MPIR_Status_set_procnull(&req->status);
        MPIR_cc_set(&req->cc, 0);
        goto fn_exit;
    }

    MPIR_Status_set_empty(&req->status);
    /* the matching code holds a reference while the request is posted */
    MPIR_cc_set(&req->cc, 1);
    MPIR_Request_add_ref(req);
    r->start_seq = ++nw->start_counter;

    /* queued notifications first, in arrival order (no posted request can
     * match a queued entry, so they are all older than any competitor) */
    int k;
    MPIR_Notify_entry_t *e = MPIR_Notify_queue_head(nw, r->src, r->tag, r->bucket, &k);
    while (e && r->matched < r->expected) {
        /* the next entry keeps the list's buckets alive when e is dropped */
        MPIR_Notify_entry_t *next = e->idx[k].next;
        MPIR_Notify_unx_unlink(nw, e);
        nw->head.stats.from_queue++;
        mpi_errno = MPIR_Notify_count_toward(nw, r, e->bucket, e->src, e->tag, e->bytes,
                                             e->order, e);
        MPIR_ERR_CHECK(mpi_errno);
        e = next;
    }

    if (r->matched < r->expected) {
        MPIR_Notify_post(nw, r);
        /* then take in what the window's transports have completed so far
         * (what a poll finds), so a start sees every access complete at this
         * point; arriving after the queue was read and r posted, they go to
         * the earliest-started matching request without being queued */
        mpi_errno = MPID_Notify_poll(r->win);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A waiter on notifications that a polled path carries polls the device,
 * and runs a full round of progress (every queue of every transport; a
 * system call on some) only when one is due: every
 * MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL-th poll it reads the clock, and a round
 * is due once PACE times the window's last round has passed since that
 * round ended.  Paced by a count of polls alone, waiters would spend much
 * of their time in rounds where a round is slow, and see cells late by part
 * of one; paced by time, the share stays at most 1/(PACE + 1) whatever a
 * round costs on this machine, and rounds still come often. */
#define PACE 15

static double now_s(void)
{
    MPL_time_t t;
    double s;
    MPL_wtime(&t);
    MPL_wtime_todouble(&t, &s);
    return s;
}

static bool paced(struct MPIR_Notify_win *nw)
{
    return nw && nw->has_polled && MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL > 1;
}

bool MPIR_Notify_progress_due(MPIR_Win * win, unsigned *polls)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (!paced(nw))
        return true;
    if (!polls)
        polls = &nw->counter_polls;
    /* a compare, not a modulo: a division by a variable would be the
     * dearest instruction of a poll */
    if (++*polls < (unsigned) MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL)
        return false;
    *polls = 0;
    return now_s() >= nw->next_round;
}

int MPIR_Notify_progress_round(MPIR_Win * win, void *state)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (!paced(nw))
        return MPID_Progress_test(state);
    double start = now_s();
    int mpi_errno = MPID_Progress_test(state);
    double end = now_s();
    nw->next_round = end + PACE * (end - start);
    return mpi_errno;
}

/* After a lean poll that completed nothing: a full round if one is due.
 * Out of line, so that the poll and the test of the request that a waiter
 * repeats need no frame of their own.  yield: let other threads in after
 * the round (MPI_Wait's loop). */
static int ATTRIBUTE((noinline)) round_if_due(MPIR_Notify_req_t * r, void *state, bool yield)
{
    if (!MPIR_Notify_progress_due(r->win, &r->polls))
        return MPI_SUCCESS;
    /* one round, not MPID_Progress_wait's rounds until something
     * completes: the device is polled between them */
    int mpi_errno = MPIR_Notify_progress_round(r->win, state);
#if MPICH_THREAD_GRANULARITY == MPICH_THREAD_GRANULARITY__GLOBAL
    if (yield)
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
#endif
    return mpi_errno;
}

/* One lean poll, then the pacing's bookkeeping only if the poll completed
 * nothing: what a poll finds is not delayed by it. */
ATTRIBUTE((always_inline))
static inline int lean_poll(MPIR_Request * req, MPIR_Notify_req_t * r, void *state, bool yield)
{
    int mpi_errno = MPID_Notify_poll(r->win);
    if (likely(mpi_errno == MPI_SUCCESS) && !MPIR_Request_is_complete(req))
        mpi_errno = round_if_due(r, state, yield);
    return mpi_errno;
}

int MPIR_Notify_lean_poll(MPIR_Request * req, bool *polled)
{
    MPIR_Notify_req_t *r = req->u.notify;

    *polled = r->lean && r->active;
    if (!*polled)
        return MPI_SUCCESS;
    return lean_poll(req, r, NULL, false);
}

/* A request whose notifications come on no polled path: MPICH's own wait */
static int ATTRIBUTE((noinline)) progress_wait(MPIR_Request * req, void *state)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state own;
    if (!state) {
        MPID_Progress_start(&own);
        state = &own;
    }
    do {
        mpi_errno = MPID_Progress_wait(state);
        MPIR_ERR_CHECK(mpi_errno);
    } while (!MPIR_Request_is_complete(req));
  fn_fail:
    if (state == &own)
        MPID_Progress_end(&own);
    return mpi_errno;
}

/* The wait proper, out of line: a request found complete (what a wait on
 * the node mostly finds once its drain has run) pays no frame for it */
static int ATTRIBUTE((noinline)) wait_loop(MPIR_Request * req, void *state)
{
    int mpi_errno;
    MPIR_Notify_req_t *r = req->u.notify;
    if (!(r->lean && r->active))
        return progress_wait(req, state);
    do {
        mpi_errno = lean_poll(req, r, state, true);
    } while (mpi_errno == MPI_SUCCESS && !MPIR_Request_is_complete(req));
    return mpi_errno;
}

/* MPI_Wait (state NULL: MPIR_Wait hands a notification request that is
 * not complete here, and MPIR_Notify_completion_processing completes it)
 * and MPIR_Wait_state (the waits on several requests) */
int MPIR_Notify_wait(MPIR_Request * req, void *state)
{
    return MPIR_Request_is_complete(req) ? MPI_SUCCESS : wait_loop(req, state);
}

int MPIR_Notify_cancel(MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_req_t *r = req->u.notify;

    MPIR_ERR_CHKANDJUMP(!r->active, mpi_errno, MPI_ERR_REQUEST, "**notifycancelinactive");
    /* what is already complete at this process counts before the cancel */
    mpi_errno = MPID_Notify_poll(r->win);
    MPIR_ERR_CHECK(mpi_errno);
    /* only an untouched request can be cancelled; otherwise it completes
     * normally and keeps what it matched */
    if (r->posted && r->matched == 0) {
        MPIR_Notify_unpost(r->win->notify, r);
        MPIR_STATUS_SET_CANCEL_BIT(req->status, TRUE);
        MPIR_STATUS_SET_COUNT(req->status, 0);
        /* a cancelled activation is a completed one: a continuation on it
         * runs, and the status says it was cancelled */
        mpi_errno = MPID_Request_complete(req);
    }
  fn_fail:
    return mpi_errno;
}

void MPIR_Notify_request_free(MPIR_Request * req)
{
    MPIR_Notify_req_t *r = req->u.notify;
    struct MPIR_Notify_win *nw = r->win->notify;


    if (r->posted) {
        /* give counted notifications back, in arrival order, to whichever
         * request or queue they would have gone to without r */
        MPIR_Notify_entry_t *e = r->taken_head;
        r->taken_head = r->taken_tail = NULL;
        MPIR_Notify_unpost(nw, r);
        while (e) {
            MPIR_Notify_entry_t *next = e->next;
            /* e is live and holds its buckets: nothing is allocated, so
             * this cannot fail */
            int err = MPIR_Notify_deliver(nw, e->src, e->tag, e->bytes, e->order, e);
            MPIR_Assert(err == MPI_SUCCESS);
            e = next;
        }
        MPID_Request_complete(req);
    }
    if (r->bucket) {
        r->bucket->nbound--;
        MPIR_Notify_bucket_unref(nw, r->bucket);
    }
    nw->nreqs--;
    req->u.notify = NULL;
    MPL_free(r);
}

int MPIR_Notify_completion_processing(MPIR_Request * req, MPI_Status * status)
{
    MPIR_Notify_req_t *r = req->u.notify;

    if (!r->active) {
        MPIR_Status_set_empty(status);
        return MPI_SUCCESS;
    }
    r->active = false;
    MPIR_Request_extract_status(req, status);
    return req->status.MPI_ERROR;
}

void MPIR_Notify_get_status(MPIR_Request * req, MPI_Status * status)
{
    if (req->u.notify->active) {
        MPIR_Request_extract_status(req, status);
    } else {
        MPIR_Status_set_empty(status);
    }
}

/* MPI_Rput_notify and the other request-based calls to MPI_PROC_NULL: a
 * completed request, as MPI_Rput gives (MPICH's binding generator makes
 * that early return only for calls named like MPI's own). */
int MPIR_Notify_null_request(MPI_Request * request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
    MPIR_ERR_CHKANDJUMP(req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    *request = req->handle;
  fn_fail:
    return mpi_errno;
}

/* The handle's request if it names a live one, else NULL; never asserts or
 * reads outside MPICH's request pools (an invalid handle may be why the
 * call failed) */
static MPIR_Request *request_if_valid(MPI_Request h)
{
    MPIR_Request *r = NULL;
    int pool = (h & REQUEST_POOL_MASK) >> REQUEST_POOL_SHIFT;
    int blk = (h & REQUEST_BLOCK_MASK) >> REQUEST_BLOCK_SHIFT;
    int idx = (h & REQUEST_OBJECT_MASK) >> REQUEST_OBJECT_SHIFT;

    if (HANDLE_GET_MPI_KIND(h) != MPIR_REQUEST)
        return NULL;
    if (HANDLE_GET_KIND(h) == HANDLE_KIND_DIRECT) {
        if (pool == 0 && HANDLE_INDEX(h) < MPIR_REQUEST_PREALLOC)
            r = MPIR_Request_direct + HANDLE_INDEX(h);
    } else if (HANDLE_GET_KIND(h) == HANDLE_KIND_INDIRECT) {
        if (blk < MPIR_Request_mem[pool].indirect_size && idx < REQUEST_NUM_INDICES &&
            MPIR_Request_mem[pool].indirect && MPIR_Request_mem[pool].indirect[blk])
            r = ((MPIR_Request *) MPIR_Request_mem[pool].indirect[blk]) + idx;
    }
    if (r && (r->handle != h || MPIR_Object_get_ref(r) <= 0))
        r = NULL;
    return r;
}

/* The error path of MPI_Waitall and the other array forms (hook 0013):
 * the window whose error handler their error goes to, if every request
 * left in the array is a notification request of that one window; NULL
 * (MPI_COMM_WORLD's handler, as for any other request) otherwise */
MPIR_Win *MPIR_Notify_requests_win(int count, const MPI_Request reqs[])
{
    MPIR_Win *win = NULL;

    if (count <= 0 || reqs == NULL)
        return NULL;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        MPIR_Request *r = request_if_valid(reqs[i]);
        if (!r || r->kind != MPIR_REQUEST_KIND__NOTIFY || (win && r->u.notify->win != win))
            return NULL;
        win = r->u.notify->win;
    }
    return win;
}

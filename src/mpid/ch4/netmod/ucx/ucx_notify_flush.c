/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over UCX: remote completion.  The FLUSH/ACK protocol,
 * the answers a put asks for, and their deferral until a message to the
 * origin can carry them (ucx_notify.c describes the protocol; the
 * messages are in ucx_notify_msg.c).
 */

#include "mpidimpl.h"
#include "ucx_notify_impl.h"
#include "ch4_notify.h"
#include "utlist.h"

/* answers sent at once after a deferral found no message to ride on */
#define DEFER_SKIP 64
/* "At once" is the end of the netmod progress call that received the put
 * (MPIDI_UCX_notify_tick), so that puts arriving in one call share an
 * answer; not later, or a target computing after the notification would
 * hold the origin's flush until its next MPI call (as on the libfabric
 * path, ch4_notify_eager_recv.c).  Answers deferred for other origins keep
 * their count.  A FLUSH is answered from its handler. */
static bool at_once_due;
/* Rounds of progress a deferred answer waits for a message to ride on,
 * counted again from each later put of the same origin while it is the
 * only one owed.  One is too few: MPI_Win_flush ends with a poll of its own
 * (MPIDIG's, for incoming RMA), so an answer deferred by the progress that
 * ended a flush's wait went alone from that poll, just before the
 * process's next put could carry it (in a put + flush ping-pong, many of
 * the answers, each followed by DEFER_SKIP more sent at once).  Two are too
 * few for a burst of puts before a flush: the answer goes alone before the
 * burst's next put arrives (over tcp a send is a system call;
 * doc/benchmarks.md). */
#define DEFER_ROUNDS 16
/* netmod progress calls left before the deferred answers go alone (0:
 * none owed).  Counted in the netmod's progress (ucx_progress.h), not by an
 * MPICH progress hook: MPIDIG's synchronisation calls (MPI_Win_wait, say)
 * wait with the netmod's progress alone, and an origin's flush or complete
 * may wait for an answer its put asked for (rma_fuzz hung so). */
int MPIDI_UCX_notify_owed_rounds;
static MPIDI_UCX_notify_win_t *owing;   /* windows with deferred answers (nowed > 0) */

/* send s->hdr (and bytes at buf) to rank of win, with a deferred answer
 * riding along; s is freed when done.  A window-counted send (s->win) holds
 * the window until UCX completes it. */
int MPIDI_UCX_notify_send(MPIR_Win * win, int rank, send_t * s, const void *buf, size_t bytes)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    if (nw->at_once[rank] && s->hdr.kind != MSG_GET_RESP && s->hdr.kind != MSG_FLUSH_ACK) {
        /* a message that could have carried the answer sent at once: the
         * pattern is request/response after all, defer again */
        nw->at_once[rank] = false;
        nw->defer_skip[rank] = 0;
    }
    if (nw->owed[rank] && s->hdr.kind != MSG_GET_RESP) {
        /* the deferred answer rides along (FLUSH_ACK carries it in count) */
        s->hdr.ack = nw->done[rank];
        nw->owed[rank] = false;
        if (--nw->nowed == 0)
            DL_DELETE(owing, nw);
    }
    if (s->win) {
        s->nw = nw;
        nw->inflight++;
    }
    return MPIDI_UCX_notify_post(win, rank, s, buf, bytes);
}

/* the answer to origin now: FLUSH_ACK{done} (clears a deferred one) */
int MPIDI_UCX_notify_send_ack(MPIR_Win * win, int origin)
{
    int mpi_errno = MPI_SUCCESS;
    send_t *s = MPIDI_UCX_notify_new_send(win, MSG_FLUSH_ACK, win->comm_ptr->rank);
    MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    s->hdr.count = MPIDI_UCX_WIN(win).notify->done[origin];
    mpi_errno = MPIDI_UCX_notify_send(win, origin, s, NULL, 0);
    if (!mpi_errno)
        ((MPIR_Notify_win_head_t *) win->notify)->stats.answers_sent++;
  fn_fail:
    return mpi_errno;
}

/* the answer a put asked for: deferred, unless deferring to origin is off */
int MPIDI_UCX_notify_answer(MPIR_Win * win, int origin)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    if (nw->flush_wait[origin]) {
        nw->flush_wait[origin] = false;
        return MPIDI_UCX_notify_send_ack(win, origin);
    }
    bool at_once = nw->defer_skip[origin] > 0;
    if (at_once) {
        /* puts that arrive in the same progress call share one answer */
        if (!nw->owed[origin])
            nw->defer_skip[origin]--;
    } else if (nw->owed[origin] && owing == nw && !nw->next && nw->nowed == 1) {
        /* the origin is still putting: count its rounds from this put,
         * unless that would delay an answer owed to another */
        MPIDI_UCX_notify_owed_rounds = DEFER_ROUNDS;
    }
    /* MPIDI_UCX_notify_send_owed tells the two kinds apart by at_once */
    nw->at_once[origin] = at_once;
    if (!nw->owed[origin]) {
        nw->owed[origin] = true;
        if (nw->nowed++ == 0) {
            if (!owing)
                MPIDI_UCX_notify_owed_rounds = DEFER_ROUNDS;
            DL_APPEND(owing, nw);
        }
    }
    if (at_once)
        at_once_due = true;
    return MPI_SUCCESS;
}

int MPIDI_UCX_notify_flush_request(MPIR_Win * win, const hdr_t * h)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    if (nw->done[h->src] < h->count) {
        /* answered by put_done, at once: the origin is waiting */
        nw->want[h->src] = MPL_MAX(nw->want[h->src], h->count);
        nw->flush_wait[h->src] = true;
        return MPI_SUCCESS;
    }
    return MPIDI_UCX_notify_send_ack(win, h->src);
}

/* the answer owed to r now; alone: a deferral found no message to ride on */
static int send_one_owed(MPIDI_UCX_notify_win_t * nw, int r, bool alone)
{
    if (alone && !nw->at_once[r])
        nw->defer_skip[r] = DEFER_SKIP;
    int e = MPIDI_UCX_notify_send_ack(nw->win, r);      /* clears owed[r] */
    if (e && nw->owed[r]) {     /* not sent: give up on it, as on any failed send */
        nw->owed[r] = false;
        if (--nw->nowed == 0)
            DL_DELETE(owing, nw);
    }
    return e;
}

/* send the window's deferred answers; alone: none found a message to ride */
int MPIDI_UCX_notify_send_owed(MPIDI_UCX_notify_win_t * nw, bool alone)
{
    int mpi_errno = MPI_SUCCESS;
    for (int r = 0; nw->nowed > 0 && r < nw->win->comm_ptr->local_size; r++) {
        if (!nw->owed[r])
            continue;
        int e = send_one_owed(nw, r, alone);
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

/* an answer due at once, or NULL */
static MPIDI_UCX_notify_win_t *next_due(int *origin)
{
    for (MPIDI_UCX_notify_win_t * nw = owing; nw; nw = nw->next)
        for (int r = 0; r < nw->win->comm_ptr->local_size; r++)
            if (nw->owed[r] && nw->at_once[r]) {
                *origin = r;
                return nw;
            }
    return NULL;
}

/* the answers due at once, each looked up again after a send, whose
 * progress may have changed the list */
static int send_due_at_once(void)
{
    int mpi_errno = MPI_SUCCESS, r;
    MPIDI_UCX_notify_win_t *nw;
    while ((nw = next_due(&r))) {
        int e = send_one_owed(nw, r, false);
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

/* every deferred answer of the process */
static int send_all_owed(bool alone)
{
    int mpi_errno = MPI_SUCCESS;
    while (owing) {
        int e = MPIDI_UCX_notify_send_owed(owing, alone);
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

/* From the netmod's progress while answers are deferred: the answers due
 * at once, and on the DEFER_ROUNDS-th call after the one that deferred the
 * first of them all the rest */
int MPIDI_UCX_notify_tick(void)
{
    int mpi_errno = MPI_SUCCESS;
    if (at_once_due) {
        at_once_due = false;
        mpi_errno = send_due_at_once();
    }
    if (owing && --MPIDI_UCX_notify_owed_rounds > 0)
        return mpi_errno;
    MPIDI_UCX_notify_owed_rounds = 0;
    int e = send_all_owed(true);
    return mpi_errno ? mpi_errno : e;
}

/* whether target (or every target, -1) still has what the completion waits for */
static bool pending(MPIR_Win * win, MPIDI_UCX_notify_win_t * nw, int target, bool local,
                    const uint64_t * want)
{
    if (nw->inflight)
        return true;
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->comm_ptr->local_size : target + 1;
    for (int r = lo; r < hi; r++)
        if (nw->gets[r] || (!local && nw->acked[r] < want[r - lo]))
            return true;
    return false;
}

/* MPI_Win_flush(_local)(_all), unlock(_all), fence, complete: from ucx_win.h's
 * completion hooks; target -1 for every target */
int MPIDI_UCX_notify_cmpl(MPIR_Win * win, int target, bool local)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    uint64_t one, *want = &one;

    if (!nw)
        return MPIDI_UCX_notify_take_deferred();
    if (target >= 0 && !nw->inflight && !nw->gets[target] && !nw->nowed &&
        nw->acked[target] >= nw->issued[target]) {
        /* nothing to wait for (every access to a target on the ring path) */
        if (!local)
            MPIDI_Notify_predict_ask(nw->issued[target], &nw->at_flush[target], &nw->ask[target]);
        return MPIDI_UCX_notify_take_deferred();
    }
    int vni = MPIDI_UCX_get_win_vni(win);
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->comm_ptr->local_size : target + 1;
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
    /* a snapshot of what to wait for (threads flushing the same window at
     * once share the buffer: a later snapshot only waits for more) */
    if (hi - lo > 1)
        want = nw->want_buf;
    for (int r = lo; r < hi; r++) {
        want[r - lo] = nw->issued[r];
        if (local)
            continue;
        MPIDI_Notify_predict_ask(nw->issued[r], &nw->at_flush[r], &nw->ask[r]);
        if (nw->acked[r] >= nw->issued[r] || nw->asked[r] == nw->issued[r])
            continue;   /* confirmed, or the answer is on its way */
        send_t *s = MPIDI_UCX_notify_new_send(win, MSG_FLUSH, win->comm_ptr->rank);
        MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
        s->hdr.count = nw->issued[r];
        mpi_errno = MPIDI_UCX_notify_send(win, r, s, NULL, 0);
        MPIR_ERR_CHECK(mpi_errno);
        ((MPIR_Notify_win_head_t *) win->notify)->stats.answers_asked++;
    }
    /* while this process waits, nothing it sends can carry its deferred
     * answers, and the peer it waits for may wait for one of them; an
     * answer deferred by the progress that ends the wait stays deferred
     * (the caller's next message may carry it).  Waiting polls the netmod:
     * the flush's own poll afterwards (MPIDIG's) need not. */
    while (pending(win, nw, target, local, want)) {
        MPIDIG_rma_netmod_waited();
        mpi_errno = send_all_owed(false);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIDI_progress_test_vci(vni);
        MPIR_ERR_CHECK(mpi_errno);
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    }
    mpi_errno = MPIDI_UCX_notify_take_deferred();
  fn_fail:
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
    return mpi_errno;
}

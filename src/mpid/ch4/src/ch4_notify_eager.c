/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: the eager-message path (see ch4_notify_eager.h).
 *
 * Produced: MPIDI_Notify_eager_put, one message of header and data.
 * Carried: an eager active message (MPIDI_NM_am_isend, the netmod's
 * receive buffers), or the netmod's own carrier once the target has said
 * it receives on it (MPIDI_Notify_eager_set_carrier), or, where the netmod's
 * carrier writes (libfabric on tcp), one write into the window whose word
 * holds the header.  Matched: arrived() copies the data into the window
 * (a write put it there already) and hands the notification to
 * MPIR_Notify_arrive with its sequence number (a write's: the next one).  Completed: the answer
 * (EAGER_ACK, or the ack field of the target's next put to the origin),
 * which a put or the origin's flush asked for, advances acked, which
 * MPI_Win_flush and unlock wait for (MPIDI_Notify_eager_ask), and in
 * fence and start epochs lowers MPIDIG's completion counters.
 *
 * This file: the window's state, the origin's puts and its waits for the
 * answers, the carrier, init and free.  ch4_notify_eager_recv.c: what
 * arrives (puts, FLUSHes, answers) and the answers this process owes;
 * ch4_notify_eager_impl.h: what the two share.
 */

#include "ch4_notify_eager_impl.h"

/* shared with ch4_notify_eager_recv.c, described in ch4_notify_eager_impl.h */
int MPIDI_Notify_eager_handler_id = -1;
const MPIDI_Notify_eager_carrier_t *MPIDI_Notify_eager_carrier;

/* beside a header */
static MPI_Aint beside_max(void)
{
    return MPIDI_Notify_eager_handler_id < 0 ? 0 :
        MPIDI_NM_am_eager_limit() - (MPI_Aint) sizeof(eager_hdr_t);
}

MPI_Aint MPIDI_Notify_eager_max(void)
{
    const MPIDI_Notify_eager_carrier_t *carrier = MPIDI_Notify_eager_carrier;
    MPI_Aint m = beside_max();
    return carrier && carrier->fits && m > 0 ? MPL_MAX(m, carrier->compact_max) : m;
}

MPI_Aint MPIDI_Notify_eager_msg_max(void)
{
    return MPIDI_Notify_eager_handler_id < 0 ? 0 : MPIDI_NM_am_eager_limit();
}

static void state_free(MPIDI_Notify_eager_win_t * e)
{
    if (e) {
        MPL_free(e->issued);
        MPL_free(e->owed);
        MPL_free(e->skip);
        MPL_free(e);
    }
}

/* state_of (ch4_notify_eager_impl.h) for a window that has none yet */
MPIDI_Notify_eager_win_t *MPIDI_Notify_eager_state_new(MPIR_Win * win)
{
    MPIR_Notify_win_head_t *h = head_of(win);
    int n = win->comm_ptr->local_size;
    MPIDI_Notify_eager_win_t *e = MPL_calloc(1, sizeof(*e), MPL_MEM_RMA);
    if (!e)
        return NULL;
    /* the eight counters in one allocation, the five flags in another */
    e->issued = MPL_calloc(8 * n, sizeof(uint64_t), MPL_MEM_RMA);
    e->owed = MPL_calloc(5 * n, sizeof(bool), MPL_MEM_RMA);
    e->skip = MPL_calloc(n, sizeof(int), MPL_MEM_RMA);
    if (!e->issued || !e->owed || !e->skip) {
        state_free(e);
        return NULL;
    }
    e->acked = e->issued + n;
    e->done = e->acked + n;
    e->told_compact = e->done + n;
    e->heard_compact = e->told_compact + n;
    e->asked = e->heard_compact + n;
    e->at_flush = e->asked + n;
    e->want = e->at_flush + n;
    e->at_once = e->owed + n;
    e->ready = e->at_once + n;
    e->told_ready = e->ready + n;
    e->ask = e->told_ready + n;
    e->win = win;
    h->dev = e;
    return e;
}

/* origin's answer rides on hdr: it is no longer owed */
static void carry_answer(MPIDI_Notify_eager_win_t * e, int to, eager_hdr_t * hdr)
{
    if (e->at_once[to]) {
        /* a message that could have carried the answer: defer again */
        e->at_once[to] = false;
        e->skip[to] = 0;
    }
    if (e->owed[to]) {
        hdr->ack = e->done[to];
        MPIDI_Notify_eager_settled(e, to);
        e->rode++;
    }
}

static int take_deferred(void)
{
    int e = MPIDI_Notify_eager_deferred_errno;
    MPIDI_Notify_eager_deferred_errno = MPI_SUCCESS;
    return e;
}

/* The header of a message on the netmod's carrier lives in the request's
 * active-message state until the send completes (MPID_Request_complete
 * returns that state to its pool), as the provider may read it until then. */
_Static_assert(sizeof(eager_hdr_t) <= sizeof(MPIDIG_acc_req_t), "eager header in the request");

void MPIDI_Notify_eager_set_carrier(const MPIDI_Notify_eager_carrier_t * c)
{
    MPIDI_Notify_eager_carrier = c;
    /* only a carrier that has to be armed misses puts (one that writes
     * leaves nothing to the netmod's own path that it could carry) */
    if (c->fits && c->arm && c->compact_max > beside_max())
        MPIDI_Notify_eager_compact_from = beside_max() + 1;
}

/* the local half of a put: its send is complete (an active message's
 * origin callback, or the carrier's) */
int MPIDI_Notify_eager_sent(MPIR_Request * sreq)
{
    MPID_Request_complete(sreq);
    return MPI_SUCCESS;
}

int MPIDI_Notify_eager_init(void)
{
    /* every process registers in the same order, so ids agree; none left:
     * the netmods keep their own paths at every size */
    MPIDI_Notify_eager_handler_id =
        MPIDIG_am_reg_cb_dynamic(MPIDI_Notify_eager_sent, MPIDI_Notify_eager_msg_cb);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- origin */

int MPIDI_Notify_eager_put(const void *buf, MPI_Aint bytes, int target, MPI_Aint disp,
                           MPI_Aint t_lb, MPIR_Win * win, int tag, MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    int vci = MPIDI_WIN(win, am_vci);
    MPIR_Request *sreq = NULL;
    const MPIDI_Notify_eager_carrier_t *carrier = MPIDI_Notify_eager_carrier;

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = take_deferred();
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_Notify_eager_win_t *e = state_of(win);
    MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");

    eager_hdr_t hdr = header(win, EAGER_PUT);
    hdr.disp = disp;
    hdr.lb = t_lb;
    hdr.tag = tag;
    /* compact where the carrier takes it, with the answer carry_answer
     * would add as an increment over the last compact one (which
     * carry_answer then sets again, absolute) */
    bool compact = false, carry = true;
    uint64_t ack = e->owed[target] ? e->done[target] : 0;
    if (carrier && carrier->fits && (carrier->writes || e->ready[target])) {
        hdr.ack = ack ? ack - e->told_compact[target] : 0;
        compact = carrier->fits(win, target, &hdr, bytes);
        if (!compact && hdr.ack && carrier->writes) {
            /* an answer the word cannot hold goes another way (owed) */
            hdr.ack = 0;
            ack = 0;
            carry = false;
            compact = carrier->fits(win, target, &hdr, bytes);
        }
    }
    if (unlikely(!compact && (bytes > beside_max() || (carrier && carrier->writes)))) {
        mpi_errno = MPIDI_NOTIFY_EAGER_DECLINED;
        goto fn_exit;
    }
    /* A compact message the carrier injects is done with buf when the
     * send returns, and a write's local completion is counted by the
     * netmod, whose flush_local hook waits for it: no request, no
     * completion to wait for (sockets: 8 B to its inject size; writes: any
     * size).  Otherwise the send's request, with a second reference for
     * the user's. */
    bool injected = compact && !ureq && bytes <= carrier->inject_max;
    if (!injected) {
        sreq = MPIDIG_request_create(MPIR_REQUEST_KIND__RMA, ureq ? 2 : 1, vci, vci);
        MPIR_ERR_CHKANDJUMP(!sreq, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
        sreq->u.rma.win = win;
    }

    hdr.seq = MPIR_Notify_take_seq(win->notify, target);
    if (carry)
        carry_answer(e, target, &hdr);
    if (compact && hdr.ack)
        hdr.ack -= e->told_compact[target];
    /* MPIDIG's counters: the send's completion lowers the local one
     * (buffer free); outside lock epochs the answer lowers both
     * (counted_by_mpidig) */
    MPIR_cc_t *local = NULL;
    bool in_mpidig = counted_by_mpidig(win);
    if (in_mpidig)
        MPIDIG_win_cmpl_cnts_incr(win, target, &local); /* both, for the answer */
    else if (sreq)
        local = &MPIDIG_win_target_get(win, target)->local_cmpl_cnts;
    if (sreq) {
        MPIR_cc_inc(local);     /* for the send */
        sreq->completion_notification = local;
    }
    e->issued[target]++;
    uint64_t asked = e->asked[target];
    if (in_mpidig || MPIDI_Notify_put_asks(e->ask[target], e->issued[target], e->at_flush[target])) {
        hdr.kind |= EAGER_ASK;
        e->asked[target] = e->issued[target];
    }
    if (compact) {
        mpi_errno = carrier->send(win, target, &hdr, true, buf, bytes, sreq);
        if (!mpi_errno && ack)
            e->told_compact[target] = ack;
    } else if (carrier && e->ready[target]) {
        void *slot = &MPIDIG_REQUEST(sreq, req)->areq;
        memcpy(slot, &hdr, sizeof(hdr));
        mpi_errno = carrier->send(win, target, slot, false, buf, bytes, sreq);
    } else {
        mpi_errno = MPIDI_NM_am_isend(target, win->comm_ptr, MPIDI_Notify_eager_handler_id,
                                      &hdr, sizeof(hdr), buf, bytes, MPI_BYTE, vci, vci, sreq);
    }
    if (mpi_errno) {
        /* nothing left: undo what a send would have completed */
        e->issued[target]--;
        e->asked[target] = asked;
        MPIR_Notify_unnumber(win, target, hdr.seq);
        if (in_mpidig) {
            MPIDIG_win_remote_cmpl_cnt_decr(win, target);
            MPIR_cc_dec(local);
        }
        if (ureq)
            MPIR_Request_free(sreq);
        if (sreq)
            MPID_Request_complete(sreq);
        if (hdr.ack)    /* the answer did not go either: owed again */
            (void) MPIDI_Notify_eager_answer(e, target);
        goto fn_fail;
    }
    if (ureq)
        *ureq = sreq;
  fn_exit:
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* origin: ask target for the answer to every put sent to it (FLUSH), unless
 * a put or FLUSH since the last answer already did */
static int ask_for(MPIDI_Notify_eager_win_t * e, int target)
{
    if (e->acked[target] == e->issued[target] || e->asked[target] == e->issued[target])
        return MPI_SUCCESS;
    MPIR_Win *win = e->win;
    int vci = MPIDI_WIN(win, am_vci);
    eager_hdr_t hdr = header(win, EAGER_FLUSH);
    hdr.disp = (MPI_Aint) e->issued[target];
    carry_answer(e, target, &hdr);
    int mpi_errno = MPIDI_NM_am_send_hdr(target, win->comm_ptr, MPIDI_Notify_eager_handler_id,
                                         &hdr, sizeof(hdr), vci, vci);
    if (mpi_errno) {
        if (hdr.ack)    /* the answer did not go either: owed again */
            (void) MPIDI_Notify_eager_answer(e, target);
        return mpi_errno;
    }
    e->asked[target] = e->issued[target];
    head_of(win)->stats.answers_asked++;
    return MPI_SUCCESS;
}

/* origin: progress until target has answered its puts up to upto (settle:
 * every put, asking again for those issued meanwhile) */
static int await_answers(MPIR_Win * win, int target, uint64_t upto, bool settle)
{
    int mpi_errno = MPI_SUCCESS;
    int vci = MPIDI_WIN(win, am_vci);
    MPIDI_Notify_eager_win_t *e = head_of(win)->dev;
    for (;;) {
        MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
        if (settle) {
            upto = e->issued[target];
            mpi_errno = ask_for(e, target);
        }
        bool done = e->acked[target] >= upto;
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
        MPIR_ERR_CHECK(mpi_errno);
        if (done)
            break;
        /* the answer comes within DEFER_ROUNDS rounds of the target's
         * progress, or at once to a FLUSH */
        MPIDIG_rma_netmod_waited();
        mpi_errno = MPIDI_progress_test_vci(vci);
        MPIR_ERR_CHECK(mpi_errno);
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    }
    mpi_errno = take_deferred();
  fn_fail:
    return mpi_errno;
}

int MPIDI_Notify_eager_ask(MPIR_Win * win, int target)
{
    int mpi_errno = MPI_SUCCESS;
    int vci = MPIDI_WIN(win, am_vci);
    MPIDI_Notify_eager_win_t *e = head_of(win)->dev;
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->comm_ptr->local_size : target + 1;

    /* fence and start epochs: MPIDIG's counters wait for the answers */
    if (counted_by_mpidig(win))
        return MPI_SUCCESS;
    /* ask every target first, then wait for each: at_flush keeps what
     * this call waits for (a later flush only waits for more) */
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    for (int r = lo; r < hi && !mpi_errno; r++) {
        MPIDI_Notify_predict_ask(e->issued[r], &e->at_flush[r], &e->ask[r]);
        mpi_errno = ask_for(e, r);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    for (int r = lo; r < hi && !mpi_errno; r++)
        mpi_errno = await_answers(win, r, e->at_flush[r], false);
    return mpi_errno;
}

int MPIDI_Notify_eager_settle(MPIR_Win * win, int target)
{
    return await_answers(win, target, 0, true);
}

void MPIDI_Notify_eager_win_free(MPIR_Win * win)
{
    MPIDI_Notify_window_forget(&MPIDI_Notify_eager_last_window, win);
    MPIR_Notify_win_head_t *h = head_of(win);
    MPIDI_Notify_eager_win_t *e = h ? h->dev : NULL;
    if (!e)
        return;
    if (MPIR_CVAR_NOTIFY_VERBOSE)
        fprintf(stderr, "notify: window %x: eager answers: %lu rode on puts, %lu went alone "
                "after a deferral, %lu at once\n", win->handle, e->rode, e->alone, e->at_once_sent);
    /* epochs are closed, so every origin has its answers; what is still
     * marked owed only repeats them */
    for (int r = 0; e->nowed > 0; r++)
        MPIDI_Notify_eager_settled(e, r);
    h->dev = NULL;
    state_free(e);
}

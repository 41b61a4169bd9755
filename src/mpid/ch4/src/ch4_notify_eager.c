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
 */

#include "mpidimpl.h"
#include "mpidch4r.h"
#include "ch4_notify_eager.h"
#include "ch4_notify.h"
#include "utlist.h"

enum { EAGER_PUT, EAGER_ACK, EAGER_FLUSH };
#define EAGER_KIND 0xffu
#define EAGER_CARRIER_READY MPIDI_NOTIFY_EAGER_READY
#define EAGER_ACK_DELTA MPIDI_NOTIFY_EAGER_ACK_DELTA
#define EAGER_ASK MPIDI_NOTIFY_EAGER_ASK
#define EAGER_PLACED MPIDI_NOTIFY_EAGER_PLACED

typedef MPIDI_Notify_eager_hdr_t eager_hdr_t;

/* Netmod progress calls an answer waits for a message to ride on,
 * counting the one that received the put, and counted again from each
 * later put of the same origin while it is the only one owed: an origin
 * that is still putting needs an answer for its last put, so a burst of
 * puts before a flush is answered once, on the target's reply (with too
 * few rounds the answer goes alone before the burst's next put arrives,
 * and the burst costs more than as many MPI_Isend: doc/benchmarks.md).
 * Sixteen outlast the gap between two puts of a burst there (a send is a
 * system call), and MPI_Win_flush's own final poll (which, with too few,
 * sends the answer just before the process's next put could carry it; the
 * same holds on the UCX path, ucx_notify.c).  Counted in
 * the netmod's progress, not by an MPICH progress hook: MPIDIG's
 * synchronisation calls wait with the netmod's progress alone, and two
 * processes flushing towards each other each owe the other its answer. */
#define DEFER_ROUNDS 16
/* answers sent at once after one found no message to ride on: the pattern
 * is not request/response (a message to the origin resets it) */
#define DEFER_SKIP 64
/* "At once" is the end of the netmod progress call that received the put
 * (its MPIDI_Notify_eager_tick), so that puts arriving in one call share
 * an answer: a stream of puts before a flush then costs one answer per
 * call, not one per put.  Not later: a target that computes after the
 * notification would hold the origin's flush until its next MPI call, and
 * a pipeline (the origin computes the next item while the target works on
 * this one) would run its two halves in turn (doc/benchmarks.md).  Answers
 * deferred for other origins keep their count. */
static bool at_once_due;

static int handler_id = -1;
static int owed_rounds;         /* netmod progress calls left before the answers go */
static MPIDI_Notify_eager_win_t *owing; /* windows with answers owed */
/* the netmod's count of reasons to call MPIDI_Notify_eager_tick from its
 * progress; +1 while answers are owed (NULL: none deferred) */
static int *waker;
static unsigned long dropped;   /* messages that named no window here */
/* the netmod's own carrier (NULL: active messages only), and whether this
 * process receives on it: armed at the first eager put that arrives, so a
 * process that never receives one posts nothing */
static const MPIDI_Notify_eager_carrier_t *carrier;
static enum { ARM_NOT_TRIED, ARMED, ARM_FAILED } arm_state;
/* The netmod drops what an AM handler returns (ofi's short messages); an
 * error there (no memory for the unexpected queue) is returned by the next
 * eager put or settle instead. */
static int deferred_errno = MPI_SUCCESS;

/* beside a header */
static MPI_Aint beside_max(void)
{
    return handler_id < 0 ? 0 : MPIDI_NM_am_eager_limit() - (MPI_Aint) sizeof(eager_hdr_t);
}

MPI_Aint MPIDI_Notify_eager_max(void)
{
    MPI_Aint m = beside_max();
    return carrier && carrier->fits && m > 0 ? MPL_MAX(m, carrier->compact_max) : m;
}

MPI_Aint MPIDI_Notify_eager_msg_max(void)
{
    return handler_id < 0 ? 0 : MPIDI_NM_am_eager_limit();
}

static MPIR_Notify_win_head_t *head_of(MPIR_Win * win)
{
    return (MPIR_Notify_win_head_t *) win->notify;
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

/* the window's state, created with its first message; NULL: no memory */
static MPIDI_Notify_eager_win_t *state_of(MPIR_Win * win)
{
    MPIR_Notify_win_head_t *h = head_of(win);
    if (likely(h->dev))
        return h->dev;

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

/* e owes origin its answer / no longer does */
static void owe(MPIDI_Notify_eager_win_t * e, int origin)
{
    if (e->owed[origin])
        return;
    e->owed[origin] = true;
    if (e->nowed++ > 0)
        return;
    if (!owing) {
        owed_rounds = DEFER_ROUNDS;
        (*waker)++;
    }
    DL_APPEND(owing, e);
}

static void settled(MPIDI_Notify_eager_win_t * e, int origin)
{
    if (!e->owed[origin])
        return;
    e->owed[origin] = false;
    if (--e->nowed > 0)
        return;
    DL_DELETE(owing, e);
    if (!owing)
        (*waker)--;
}

static eager_hdr_t header(MPIR_Win * win, int kind)
{
    eager_hdr_t hdr = {
        .win_id = MPIDIG_WIN(win, win_id),
        .src = win->comm_ptr->rank,
        .kind = kind | (arm_state == ARMED ? EAGER_CARRIER_READY : 0),
    };
    return hdr;
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
        settled(e, to);
        e->rode++;
    }
}

/* ------------------------------------------------------------- target */

/* the answer to origin now, alone */
static int send_ack(MPIDI_Notify_eager_win_t * e, int origin)
{
    MPIR_Win *win = e->win;
    int vci = MPIDI_WIN(win, am_vci);
    eager_hdr_t hdr = header(win, EAGER_ACK);
    hdr.ack = e->done[origin];
    settled(e, origin);
    head_of(win)->stats.answers_sent++;
    return MPIDI_NM_am_send_hdr(origin, win->comm_ptr, handler_id, &hdr, sizeof(hdr), vci, vci);
}

/* an answer owed (only one due at once if at_once_only), or NULL */
static MPIDI_Notify_eager_win_t *next_owed(bool at_once_only, int *origin)
{
    for (MPIDI_Notify_eager_win_t * e = owing; e; e = e->next)
        for (int r = 0; r < e->win->comm_ptr->local_size; r++)
            if (e->owed[r] && (!at_once_only || e->at_once[r])) {
                *origin = r;
                return e;
            }
    return NULL;
}

/* the answers owed, or only those due at once; each looked up again after
 * a send, whose progress may have changed the list */
static int send_owed(bool at_once_only)
{
    int mpi_errno = MPI_SUCCESS, r;
    MPIDI_Notify_eager_win_t *e;
    while ((e = next_owed(at_once_only, &r))) {
        if (e->at_once[r]) {
            e->at_once_sent++;
        } else {        /* a deferral found no message to ride on */
            e->skip[r] = DEFER_SKIP;
            e->alone++;
        }
        int err = send_ack(e, r);       /* clears owed[r], even if the send failed */
        if (!mpi_errno)
            mpi_errno = err;
    }
    return mpi_errno;
}

int MPIDI_Notify_eager_tick(void)
{
    int mpi_errno = MPI_SUCCESS;
    if (at_once_due) {
        at_once_due = false;
        mpi_errno = send_owed(true);
    }
    if (!owing || --owed_rounds > 0)
        return mpi_errno;
    int err = send_owed(false);
    return mpi_errno ? mpi_errno : err;
}

void MPIDI_Notify_eager_set_waker(int *w)
{
    waker = w;
}

/* origin's puts up to done[origin] are in window memory: tell it, later */
static int answer(MPIDI_Notify_eager_win_t * e, int origin)
{
    if (!waker)
        return send_ack(e, origin);
    if (e->skip[origin] > 0) {
        /* puts that arrive in the same progress call share one answer */
        if (!e->owed[origin])
            e->skip[origin]--;
        e->at_once[origin] = true;
        owe(e, origin);
        at_once_due = true;
        return MPI_SUCCESS;
    }
    /* deferred (send_owed tells the two apart by at_once); the origin
     * is still putting: count its rounds from this put, unless that would
     * delay an answer owed to another */
    e->at_once[origin] = false;
    if (e->owed[origin] && owing == e && !e->next && e->nowed == 1)
        owed_rounds = DEFER_ROUNDS;
    owe(e, origin);
    return MPI_SUCCESS;
}

/* Whether a put counts in MPIDIG's completion counters until its answer
 * comes, as an MPIDIG put does until its acknowledgement: in fence and
 * start epochs, whose closing calls (MPI_Win_fence, MPI_Win_complete) wait
 * for MPIDIG's local counters, and whose puts all ask for their answers.
 * Not in lock epochs: there MPIDIG counts only the send (MPI_Win_flush_local,
 * passive target only, then completes with it, without the target's
 * progress: a producer that computes while the consumer does,
 * bench/pipeline), and MPI_Win_flush and unlock wait for the answers
 * themselves, in MPIDI_Notify_eager_ask, for the puts issued before them:
 * a put that progress issues while they wait (a request's completion
 * function, another thread) is not theirs to wait for, and had it counted
 * in MPIDIG's remote counter, unasked, the flush would never end.  The
 * epoch is the same when the answer comes, since every call that ends one
 * waits for it. */
static bool counted_by_mpidig(MPIR_Win * win)
{
    int epoch = MPIDIG_WIN(win, sync).access_epoch_type;
    return epoch != MPIDIG_EPOTYPE_LOCK && epoch != MPIDIG_EPOTYPE_LOCK_ALL;
}

/* origin: the target says its puts up to ack are done.  Outside lock
 * epochs each put counted in the completion counters
 * MPIDIG_win_cmpl_cnts_incr chose, per target or (in a fence epoch) per
 * window: one lookup of the target for the answer, however many puts it
 * covers. */
static void take_answer(MPIR_Win * win, MPIDI_Notify_eager_win_t * e, int target, uint64_t ack)
{
    MPIR_cc_t *local, *remote;

    /* answers are cumulative and may pass each other */
    if (e->acked[target] >= ack)
        return;
    if (!counted_by_mpidig(win)) {
        e->acked[target] = ack;
        return;
    }
    if (MPIDIG_WIN(win, sync).access_epoch_type == MPIDIG_EPOTYPE_START) {
        MPIDIG_win_target_t *t = MPIDIG_win_target_find(win, target);
        MPIR_Assert(t);
        local = &t->local_cmpl_cnts;
        remote = &t->remote_cmpl_cnts;
    } else {
        local = &MPIDIG_WIN(win, local_cmpl_cnts);
        remote = &MPIDIG_WIN(win, remote_cmpl_cnts);
    }
    for (; e->acked[target] < ack; e->acked[target]++) {
        MPIR_cc_dec(remote);
        MPIR_cc_dec(local);
    }
}

static int drop(const eager_hdr_t * h)
{
    dropped++;
    if (MPIR_CVAR_NOTIFY_VERBOSE && (dropped & (dropped - 1)) == 0)
        fprintf(stderr, "notify: dropped an eager message (window id %#llx, origin %d, kind "
                "%u: no such window here); %lu dropped so far\n",
                (unsigned long long) h->win_id, (int) h->src, (unsigned) h->kind, dropped);
    return MPI_SUCCESS;
}

static MPIDI_Notify_win_cache_t last_window;   /* of the last eager message */

/* Receive on the carrier from now on; one that cannot leaves its origins
 * on active messages. */
static void arm(void)
{
    if (carrier && carrier->arm && arm_state == ARM_NOT_TRIED) {
        arm_state = carrier->arm() == MPI_SUCCESS ? ARMED : ARM_FAILED;
        if (arm_state == ARM_FAILED && MPIR_CVAR_NOTIFY_VERBOSE)
            fprintf(stderr, "notify: the netmod's carrier of eager messages did not "
                    "start; they stay on active messages\n");
    }
}

MPI_Aint MPIDI_Notify_eager_compact_from = MPIR_AINT_MAX;

/* Puts that only the compact form carries went on the netmod's own path
 * while the origin did not know this process receives on the carrier,
 * which it learns from an eager message of ours: with no smaller puts, it
 * never would.  So arm, and tell it once per window. */
int MPIDI_Notify_eager_missed(MPIR_Win * win, int origin)
{
    MPIDI_Notify_eager_win_t *e = state_of(win);
    if (!e)
        return MPI_SUCCESS;     /* it stays on the netmod's path */
    arm();
    if (arm_state != ARMED || e->told_ready[origin])
        return MPI_SUCCESS;
    e->told_ready[origin] = true;
    return send_ack(e, origin);
}

/* every eager message arrives here, from the netmod's progress, on path
 * (active messages, or the netmod's carrier) */
static int arrived(const eager_hdr_t * hdr, const void *data, MPI_Aint data_sz,
                   MPIR_Notify_path_t path)
{
    int mpi_errno = MPI_SUCCESS;
    eager_hdr_t h = *hdr;

    /* A window exists at every member from its creation to its free, and
     * no message of it is in flight outside that span (epochs close before
     * the free): a message naming no window here is corrupt or late. */
    MPIR_Win *win = MPIDI_Notify_window_of(&last_window, h.win_id);
    unsigned kind = h.kind & EAGER_KIND;
    if (unlikely(!win || !win->notify || h.src < 0 ||
                 h.src >= win->comm_ptr->local_size || kind > EAGER_FLUSH ||
                 (h.kind & ~(EAGER_KIND | EAGER_CARRIER_READY | EAGER_ACK_DELTA | EAGER_ASK |
                             EAGER_PLACED))))
        return drop(&h);
    MPIDI_Notify_eager_win_t *e = state_of(win);
    MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");

    if ((h.kind & EAGER_ACK_DELTA) && h.ack)
        h.ack = e->heard_compact[h.src] += h.ack;

    if (h.kind & EAGER_CARRIER_READY)
        e->ready[h.src] = true;
    if (h.ack)
        take_answer(win, e, h.src, h.ack);
    if (kind == EAGER_PUT) {
        /* before the answer, which says so */
        arm();
        if (data_sz > 0 && !(h.kind & EAGER_PLACED))
            MPIR_Memcpy((char *) win->base + h.disp * win->disp_unit + h.lb, data, data_sz);
        e->done[h.src]++;
        mpi_errno = (h.kind & EAGER_PLACED) ?
            MPIR_Notify_arrive_in_order(win, path, h.src, h.tag, data_sz) :
            MPIR_Notify_arrive(win, path, h.src, h.tag, data_sz, h.seq);
        int err = MPI_SUCCESS;
        if (unlikely(e->want[h.src]) && e->done[h.src] >= e->want[h.src]) {
            /* the last put a FLUSH waits for (which may pass puts): at once */
            e->want[h.src] = 0;
            err = send_ack(e, h.src);
        } else if (h.kind & EAGER_ASK) {
            err = answer(e, h.src);
        }
        if (!mpi_errno)
            mpi_errno = err;
    } else if (kind == EAGER_FLUSH) {
        if (e->done[h.src] >= (uint64_t) h.disp)
            mpi_errno = send_ack(e, h.src);
        else
            e->want[h.src] = MPL_MAX(e->want[h.src], (uint64_t) h.disp);
    }
  fn_fail:
    if (mpi_errno && !deferred_errno)
        deferred_errno = mpi_errno;
    return mpi_errno;
}

static int eager_msg_cb(void *am_hdr, void *data, MPI_Aint data_sz, uint32_t attr,
                        MPIR_Request ** req)
{
    if (req)
        *req = NULL;
    /* sent only at eager sizes, so the data is here */
    MPIR_Assert(!(attr & MPIDIG_AM_ATTR__IS_ASYNC));
    eager_hdr_t h;
    memcpy(&h, am_hdr, sizeof(h));
    h.kind &= ~EAGER_ACK_DELTA; /* compact answers travel only compact */
    return arrived(&h, data, data_sz, MPIR_NOTIFY_PATH_EAGER_AM);
}

static int take_deferred(void)
{
    int e = deferred_errno;
    deferred_errno = MPI_SUCCESS;
    return e;
}

/* The header of a message on the netmod's carrier lives in the request's
 * active-message state until the send completes (MPID_Request_complete
 * returns that state to its pool), as the provider may read it until then. */
_Static_assert(sizeof(eager_hdr_t) <= sizeof(MPIDIG_acc_req_t), "eager header in the request");

void MPIDI_Notify_eager_set_carrier(const MPIDI_Notify_eager_carrier_t * c)
{
    carrier = c;
    /* only a carrier that has to be armed misses puts (one that writes
     * leaves nothing to the netmod's own path that it could carry) */
    if (c->fits && c->arm && c->compact_max > beside_max())
        MPIDI_Notify_eager_compact_from = beside_max() + 1;
}

int MPIDI_Notify_eager_deliver(const void *msg, MPI_Aint len, MPIR_Notify_path_t path)
{
    if (unlikely(len < (MPI_Aint) sizeof(eager_hdr_t))) {
        eager_hdr_t none = {.src = -1 };
        return drop(&none);
    }
    eager_hdr_t h;
    memcpy(&h, msg, sizeof(h));
    h.kind &= ~EAGER_ACK_DELTA;
    return arrived(&h, (const char *) msg + sizeof(eager_hdr_t),
                   len - (MPI_Aint) sizeof(eager_hdr_t), path);
}

int MPIDI_Notify_eager_deliver_compact(const eager_hdr_t * hdr, const void *data, MPI_Aint len,
                                       MPIR_Notify_path_t path)
{
    return arrived(hdr, data, len, path);
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
    handler_id = MPIDIG_am_reg_cb_dynamic(MPIDI_Notify_eager_sent, eager_msg_cb);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- origin */

int MPIDI_Notify_eager_put(const void *buf, MPI_Aint bytes, int target, MPI_Aint disp,
                           MPI_Aint t_lb, MPIR_Win * win, int tag, MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    int vci = MPIDI_WIN(win, am_vci);
    MPIR_Request *sreq = NULL;

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
        MPIDIG_win_cmpl_cnts_incr(win, target, &local);        /* both, for the answer */
    else if (sreq)
        local = &MPIDIG_win_target_get(win, target)->local_cmpl_cnts;
    if (sreq) {
        MPIR_cc_inc(local);     /* for the send */
        sreq->completion_notification = local;
    }
    e->issued[target]++;
    uint64_t asked = e->asked[target];
    if (in_mpidig ||
        MPIDI_Notify_put_asks(e->ask[target], e->issued[target], e->at_flush[target])) {
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
        mpi_errno = MPIDI_NM_am_isend(target, win->comm_ptr, handler_id, &hdr, sizeof(hdr),
                                      buf, bytes, MPI_BYTE, vci, vci, sreq);
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
        if (hdr.ack)            /* the answer did not go either: owed again */
            (void) answer(e, target);
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
    int mpi_errno = MPIDI_NM_am_send_hdr(target, win->comm_ptr, handler_id, &hdr, sizeof(hdr),
                                         vci, vci);
    if (mpi_errno) {
        if (hdr.ack)    /* the answer did not go either: owed again */
            (void) answer(e, target);
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
    MPIDI_Notify_window_forget(&last_window, win);
    MPIR_Notify_win_head_t *h = head_of(win);
    MPIDI_Notify_eager_win_t *e = h ? h->dev : NULL;
    if (!e)
        return;
    if (MPIR_CVAR_NOTIFY_VERBOSE)
        fprintf(stderr, "notify: window %x: eager answers: %lu rode on puts, %lu went alone "
                "after a deferral, %lu at once\n", win->handle, e->rode, e->alone,
                e->at_once_sent);
    /* epochs are closed, so every origin has its answers; what is still
     * marked owed only repeats them */
    for (int r = 0; e->nowed > 0; r++)
        settled(e, r);
    h->dev = NULL;
    state_free(e);
}

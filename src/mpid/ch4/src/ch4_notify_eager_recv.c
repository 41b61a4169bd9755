/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: the eager-message path's arrivals (see
 * ch4_notify_eager.c): every eager message (a put, a FLUSH, an answer
 * alone) arrives in arrived(), from the netmod's progress, and the answers
 * this process owes its origins ride on its next message to them or go
 * alone (send_owed).
 */

#include "ch4_notify_eager_impl.h"
#include "utlist.h"

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

static int owed_rounds;         /* netmod progress calls left before the answers go */
static MPIDI_Notify_eager_win_t *owing; /* windows with answers owed */
/* the netmod's count of reasons to call MPIDI_Notify_eager_tick from its
 * progress; +1 while answers are owed (NULL: none deferred) */
static int *waker;
static unsigned long dropped;   /* messages that named no window here */
/* shared with ch4_notify_eager.c, described in ch4_notify_eager_impl.h */
enum MPIDI_Notify_eager_arm MPIDI_Notify_eager_arm_state;
int MPIDI_Notify_eager_deferred_errno = MPI_SUCCESS;

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

void MPIDI_Notify_eager_settled(MPIDI_Notify_eager_win_t * e, int origin)
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

/* ------------------------------------------------------------- target */

/* the answer to origin now, alone */
static int send_ack(MPIDI_Notify_eager_win_t * e, int origin)
{
    MPIR_Win *win = e->win;
    int vci = MPIDI_WIN(win, am_vci);
    eager_hdr_t hdr = header(win, EAGER_ACK);
    hdr.ack = e->done[origin];
    MPIDI_Notify_eager_settled(e, origin);
    head_of(win)->stats.answers_sent++;
    return MPIDI_NM_am_send_hdr(origin, win->comm_ptr, MPIDI_Notify_eager_handler_id, &hdr,
                                sizeof(hdr), vci, vci);
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
int MPIDI_Notify_eager_answer(MPIDI_Notify_eager_win_t * e, int origin)
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

MPIDI_Notify_win_cache_t MPIDI_Notify_eager_last_window;        /* of the last eager message */

/* Receive on the carrier from now on; one that cannot leaves its origins
 * on active messages. */
static void arm(void)
{
    const MPIDI_Notify_eager_carrier_t *carrier = MPIDI_Notify_eager_carrier;
    if (carrier && carrier->arm && MPIDI_Notify_eager_arm_state == ARM_NOT_TRIED) {
        MPIDI_Notify_eager_arm_state = carrier->arm() == MPI_SUCCESS ? ARMED : ARM_FAILED;
        if (MPIDI_Notify_eager_arm_state == ARM_FAILED && MPIR_CVAR_NOTIFY_VERBOSE)
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
    if (MPIDI_Notify_eager_arm_state != ARMED || e->told_ready[origin])
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
    MPIR_Win *win = MPIDI_Notify_window_of(&MPIDI_Notify_eager_last_window, h.win_id);
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
            err = MPIDI_Notify_eager_answer(e, h.src);
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
    if (mpi_errno && !MPIDI_Notify_eager_deferred_errno)
        MPIDI_Notify_eager_deferred_errno = mpi_errno;
    return mpi_errno;
}

int MPIDI_Notify_eager_msg_cb(void *am_hdr, void *data, MPI_Aint data_sz, uint32_t attr,
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

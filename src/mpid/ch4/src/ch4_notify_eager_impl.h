/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: what the eager-message path's two halves share,
 * ch4_notify_eager.c (the window's state, the origin: puts, asking for and
 * awaiting answers; the carrier, init, free) and ch4_notify_eager_recv.c
 * (what arrives, and the answers this process owes).  Included by those
 * two files only; the path's interface is ch4_notify_eager.h.
 */
#ifndef CH4_NOTIFY_EAGER_IMPL_H_INCLUDED
#define CH4_NOTIFY_EAGER_IMPL_H_INCLUDED

#include "mpidimpl.h"
#include "mpidch4r.h"
#include "ch4_notify_eager.h"
#include "ch4_notify.h"

enum { EAGER_PUT, EAGER_ACK, EAGER_FLUSH };
#define EAGER_KIND 0xffu
#define EAGER_CARRIER_READY MPIDI_NOTIFY_EAGER_READY
#define EAGER_ACK_DELTA MPIDI_NOTIFY_EAGER_ACK_DELTA
#define EAGER_ASK MPIDI_NOTIFY_EAGER_ASK
#define EAGER_PLACED MPIDI_NOTIFY_EAGER_PLACED

typedef MPIDI_Notify_eager_hdr_t eager_hdr_t;

/* The shared state, each defined in the file that sets it.
 * ch4_notify_eager.c: the active-message handler (-1: none, before
 * MPIDI_Notify_eager_init) and the carrier; ch4_notify_eager_recv.c: the
 * rest. */
extern int MPIDI_Notify_eager_handler_id;
/* the netmod's own carrier (NULL: active messages only), and whether this
 * process receives on it: armed at the first eager put that arrives, so a
 * process that never receives one posts nothing */
extern const MPIDI_Notify_eager_carrier_t *MPIDI_Notify_eager_carrier;
enum MPIDI_Notify_eager_arm { ARM_NOT_TRIED, ARMED, ARM_FAILED };
extern enum MPIDI_Notify_eager_arm MPIDI_Notify_eager_arm_state;
/* The netmod drops what an AM handler returns (ofi's short messages); an
 * error there (no memory for the unexpected queue) is returned by the next
 * eager put or settle instead. */
extern int MPIDI_Notify_eager_deferred_errno;
/* of the last eager message */
extern MPIDI_Notify_win_cache_t MPIDI_Notify_eager_last_window;

/* ch4_notify_eager.c: state_of for a window that has none yet */
MPIDI_Notify_eager_win_t *MPIDI_Notify_eager_state_new(MPIR_Win * win);
/* ch4_notify_eager_recv.c */
void MPIDI_Notify_eager_settled(MPIDI_Notify_eager_win_t * e, int origin);
int MPIDI_Notify_eager_answer(MPIDI_Notify_eager_win_t * e, int origin);
int MPIDI_Notify_eager_msg_cb(void *am_hdr, void *data, MPI_Aint data_sz, uint32_t attr,
                              MPIR_Request ** req);

MPL_STATIC_INLINE_PREFIX MPIR_Notify_win_head_t *head_of(MPIR_Win * win)
{
    return (MPIR_Notify_win_head_t *) win->notify;
}

/* the window's state, created with its first message; NULL: no memory */
MPL_STATIC_INLINE_PREFIX MPIDI_Notify_eager_win_t *state_of(MPIR_Win * win)
{
    MPIR_Notify_win_head_t *h = head_of(win);
    if (likely(h->dev))
        return h->dev;
    return MPIDI_Notify_eager_state_new(win);
}

MPL_STATIC_INLINE_PREFIX eager_hdr_t header(MPIR_Win * win, int kind)
{
    eager_hdr_t hdr = {
        .win_id = MPIDIG_WIN(win, win_id),
        .src = win->comm_ptr->rank,
        .kind = kind | (MPIDI_Notify_eager_arm_state == ARMED ? EAGER_CARRIER_READY : 0),
    };
    return hdr;
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
MPL_STATIC_INLINE_PREFIX bool counted_by_mpidig(MPIR_Win * win)
{
    int epoch = MPIDIG_WIN(win, sync).access_epoch_type;
    return epoch != MPIDIG_EPOTYPE_LOCK && epoch != MPIDIG_EPOTYPE_LOCK_ALL;
}

#endif /* CH4_NOTIFY_EAGER_IMPL_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: the eager-message path (ch4_notify_eager.c: the origin;
 * ch4_notify_eager_recv.c: what arrives, and the answers owed).
 *
 * A notified put is one MPICH active message (MPIDI_NM_am_isend, eager
 * sizes only), or one message of the netmod's own carrier where the target
 * receives on it, that carries the data and the notification; the target copies
 * the data into its window and notifies.  Or, where the netmod's carrier
 * writes (libfabric on tcp), one write of the data whose word carries the
 * rest.  The answer that MPI_Win_flush
 * waits for (a count of the origin's puts that are done) rides on the
 * target's next message to the origin, or goes alone after a few rounds of
 * the target's progress.  A netmod uses it for the sizes where its own
 * one-message way costs more: over libfabric, writes above the provider's
 * inject size, which the tcp provider acknowledges before it reports the
 * target's completion (ofi_notify.c).
 *
 * Completion: each put counts in MPIDIG's local completion counter, which
 * the send's completion lowers, so MPI_Win_flush_local(_all) waits for it
 * unchanged.  In fence and start epochs it also counts in MPIDIG's remote
 * counter and once more in the local one, as an MPIDIG put does until its
 * acknowledgement, and the answer lowers both: fence and complete wait for
 * it unchanged.  In lock epochs MPI_Win_flush(_all) and unlock(_all) wait
 * for the answers themselves (MPIDI_Notify_eager_ask).  Order: every put carries the window's
 * per-(origin, target) sequence number, so the target restores issue order
 * against the netmod's own path, whose notifications are numbered but
 * carried unnumbered (in order): the netmod sends none of those while a
 * put of this path to that target is unanswered (MPIDI_Notify_eager_settle).
 */
#ifndef CH4_NOTIFY_EAGER_H_INCLUDED
#define CH4_NOTIFY_EAGER_H_INCLUDED

/* per window, created with its first eager message sent or received */
typedef struct MPIDI_Notify_eager_win {
    uint64_t *issued;           /* origin [target]: puts sent */
    uint64_t *acked;            /* origin [target]: puts the target said are done */
    uint64_t *done;             /* target [origin]: puts whose data is here */
    uint64_t *told_compact;     /* target [origin]: done as the last compact answer said */
    uint64_t *heard_compact;    /* origin [target]: acked as the last compact answer said */
    uint64_t *asked;            /* origin [target]: issued when a put or a FLUSH last asked */
    uint64_t *at_flush;         /* origin [target]: issued at the last flush */
    uint64_t *want;             /* target [origin]: a FLUSH waits for done to reach it (0: none) */
    bool *owed;                 /* target [origin]: done not yet told to origin */
    int *skip;                  /* target [origin]: answers to send at once before deferring again */
    bool *at_once;              /* target [origin]: the owed (else the last) answer is at once */
    bool *ready;                /* origin [target]: the target receives on the netmod's carrier */
    bool *told_ready;           /* target [origin]: told it so (MPIDI_Notify_eager_missed) */
    bool *ask;                  /* origin [target]: puts of lock epochs ask for their answer */
    int nowed;                  /* target: origins with owed set */
    unsigned long rode, alone, at_once_sent;    /* answers: on a put, deferred then alone, at once */
    struct MPIR_Win *win;
    struct MPIDI_Notify_eager_win *next, *prev; /* windows owing answers */
} MPIDI_Notify_eager_win_t;

/* MPI_Init (every process, same order): the active-message handler */
int MPIDI_Notify_eager_init(void);

/* A netmod that uses the path counts in *waker the reasons its progress
 * has to call MPIDI_Notify_eager_tick (the path adds one while answers are
 * owed), and calls it then: the answers that found no message to ride on
 * go a few calls later.  Without a waker every answer goes at once. */
void MPIDI_Notify_eager_set_waker(int *waker);
int MPIDI_Notify_eager_tick(void);

/* An eager message's header.  Beside the data it travels as it is; a
 * carrier's compact form (MPIDI_NOTIFY_EAGER_ACK_DELTA in kind) carries
 * in ack how many more of the receiver's puts are done than the previous
 * compact answer to it said, since compact messages pass no others. */
typedef struct {
    uint64_t win_id;
    MPI_Aint disp;              /* PUT: in the target's displacement units; FLUSH: the
                                 * count of the sender's puts to answer for */
    MPI_Aint lb;                /* PUT: then this many bytes */
    uint64_t ack;               /* the sender's done count of the receiver's puts (0: none) */
    int32_t src;                /* the sender's rank in the window */
    int32_t tag;
    uint32_t seq;
    uint32_t kind;
} MPIDI_Notify_eager_hdr_t;
/* in kind: the sender receives on the netmod's carrier (every message of
 * a process that does says so, answers included) */
#define MPIDI_NOTIFY_EAGER_READY 0x100u
#define MPIDI_NOTIFY_EAGER_ACK_DELTA 0x200u
/* a put that asks for its answer (see MPIDI_Notify_eager_ask) */
#define MPIDI_NOTIFY_EAGER_ASK 0x400u
/* a put of a carrier that writes (below): its data is in the window, and it
 * is the next of its origin's notified accesses in issue order */
#define MPIDI_NOTIFY_EAGER_PLACED 0x800u

/* A netmod's own carrier of the path's messages, cheaper than its active
 * messages (ofi_notify_tagged.c).  arm: make this process receive on it
 * (called once, at the first eager put that arrives; what arrives goes to
 * MPIDI_Notify_eager_deliver, with the carrier's path for the
 * statistics).  send: one message of hdr and then bytes at data to target;
 * compact (fits said yes): hdr travels in the message's metadata, the data
 * alone in its payload, so that a message holds up to compact_max bytes;
 * otherwise hdr travels first, as it is, and stays valid until sreq
 * completes.  The carrier calls MPIDI_Notify_eager_sent(sreq) when the
 * send is done.  A compact message of at most inject_max bytes may go
 * with sreq NULL: the carrier injects it, done with data on return, and
 * reports no completion.  An origin uses it towards a target once a message from
 * that target said it is armed; until then, and to targets that never arm,
 * active messages carry the puts. */
typedef struct {
    int (*arm)(void);
    int (*send)(struct MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                bool compact, const void *data, MPI_Aint bytes, struct MPIR_Request * sreq);
    bool (*fits)(struct MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                 MPI_Aint bytes);
    MPI_Aint compact_max;
    MPI_Aint inject_max;
    /* A carrier that writes each put's data into the target's window itself
     * (ofi_notify_wire.c), in issue order with the netmod's own writes: no
     * arming (arm NULL), no copy at the target, no sequence number on the
     * wire (its puts arrive with MPIDI_NOTIFY_EAGER_PLACED).  So that
     * nothing overtakes them, a put it cannot carry compact is declined,
     * never sent as an active message. */
    bool writes;
} MPIDI_Notify_eager_carrier_t;
void MPIDI_Notify_eager_set_carrier(const MPIDI_Notify_eager_carrier_t * c);
int MPIDI_Notify_eager_deliver(const void *msg, MPI_Aint len, MPIR_Notify_path_t path);
/* a compact message's header, rebuilt by the carrier (win_id 0: its window
 * is not here); data NULL with MPIDI_NOTIFY_EAGER_PLACED: len bytes are in
 * place */
int MPIDI_Notify_eager_deliver_compact(const MPIDI_Notify_eager_hdr_t * hdr, const void *data,
                                       MPI_Aint len, MPIR_Notify_path_t path);
int MPIDI_Notify_eager_sent(struct MPIR_Request *sreq);

/* the largest put the path carries (0 before MPIDI_Notify_eager_init):
 * as an active message or beside its header (msg_max: the two together),
 * or, where the carrier's compact form takes it, up to its compact_max */
MPI_Aint MPIDI_Notify_eager_max(void);
MPI_Aint MPIDI_Notify_eager_msg_max(void);

/* origin: a contiguous put of bytes at buf to (target, disp, t_lb) of win,
 * notified with tag; the window's state (win->notify) must exist.  ureq
 * (MPI_Rput_notify): the request, complete when the send is (as MPI_Rput's).
 * MPIDI_NOTIFY_EAGER_DECLINED, with nothing done: a put above the active
 * messages' size that the carrier cannot take compact */
#define MPIDI_NOTIFY_EAGER_DECLINED (-1)
int MPIDI_Notify_eager_put(const void *buf, MPI_Aint bytes, int target, MPI_Aint disp,
                           MPI_Aint t_lb, struct MPIR_Win *win, int tag,
                           struct MPIR_Request **ureq);

/* target: a put of bytes from origin came on the netmod's own path.  From
 * MPIDI_Notify_eager_compact_from bytes only the carrier's compact form
 * takes a put, and only once the origin knows this process receives on
 * it: MPIDI_Notify_eager_missed makes that so.  (A get's notification of
 * that size counts too; it costs one message per window and origin.) */
extern MPI_Aint MPIDI_Notify_eager_compact_from;
int MPIDI_Notify_eager_missed(struct MPIR_Win *win, int origin);
static inline int MPIDI_Notify_eager_netmod_put(struct MPIR_Win *win, int origin, MPI_Aint bytes)
{
    if (likely(bytes < MPIDI_Notify_eager_compact_from) || bytes > MPIDI_Notify_eager_max())
        return MPI_SUCCESS;
    return MPIDI_Notify_eager_missed(win, origin);
}

/* origin: whether a put of this path to target is still unanswered */
static inline bool MPIDI_Notify_eager_unacked(struct MPIR_Win *win, int target)
{
    const MPIR_Notify_win_head_t *h = (const MPIR_Notify_win_head_t *) win->notify;
    const MPIDI_Notify_eager_win_t *e = h ? h->dev : NULL;
    return e && e->acked[target] != e->issued[target];
}

/* origin: wait until every put of this path to target is answered */
int MPIDI_Notify_eager_settle(struct MPIR_Win *win, int target);

/* Answers on demand.  A put of a lock epoch asks for its answer only when
 * the origin's recent flushes say one will wait for it (at most a few puts
 * between them: a put + flush exchange, whose answer rides on the reply);
 * otherwise MPI_Win_flush or unlock asks, with one FLUSH message for the
 * puts since, and waits for the answers to the puts issued before it.  A
 * stream of puts completed by MPI_Win_flush_local (a pipeline, a tree)
 * then costs the target no answers at all.  Puts of fence and start
 * epochs always ask, and MPIDIG's counters wait for them.  From the
 * netmod's remote-completion hooks (ofi_win.h), before MPIDIG's own
 * waits: target, or -1 for every target (flush_all, unlock_all, and
 * fence and complete, where it does nothing). */
int MPIDI_Notify_eager_ask(struct MPIR_Win *win, int target);
static inline int MPIDI_Notify_eager_cmpl_hook(struct MPIR_Win *win, int target)
{
    const MPIR_Notify_win_head_t *h = (const MPIR_Notify_win_head_t *) win->notify;
    if (likely(!h || !h->dev))
        return MPI_SUCCESS;
    return MPIDI_Notify_eager_ask(win, target);
}

/* window free (collective, epochs closed): the state goes */
void MPIDI_Notify_eager_win_free(struct MPIR_Win *win);

#endif /* CH4_NOTIFY_EAGER_H_INCLUDED */

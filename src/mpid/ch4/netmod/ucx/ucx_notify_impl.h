/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over UCX: what ucx_notify.c (the origin's accesses),
 * ucx_notify_msg.c (messages and their handlers), ucx_notify_flush.c (the
 * FLUSH/ACK protocol and its deferred answers) and ucx_notify_win.c (window
 * set-up) share.  The protocol is described in ucx_notify.c.
 */
#ifndef UCX_NOTIFY_IMPL_H_INCLUDED
#define UCX_NOTIFY_IMPL_H_INCLUDED

#include "ucx_impl.h"
#include "ucx_notify.h"

#define AM_ID MPIDI_UCX_NOTIFY_AM_ID

enum { MSG_PUT, MSG_GET, MSG_GET_RESP, MSG_FLUSH, MSG_FLUSH_ACK };

/* the header of every notify message */
typedef struct {
    uint64_t win_id;
    MPI_Aint disp;              /* PUT, GET: in the target's displacement units */
    MPI_Aint lb;                /* PUT, GET: then this many bytes */
    uint64_t count;             /* FLUSH, PUT if not 0: answer once this many puts
                                 * are done; FLUSH_ACK: puts done; GET: bytes */
    uint64_t cookie;            /* GET, GET_RESP: the origin's get_t */
    uint64_t ack;               /* PUT, GET, FLUSH: the sender's done count for
                                 * the receiver's puts (0: none) */
    int32_t src;                /* the sender's rank in the window */
    int32_t tag;
    uint32_t seq;
    uint32_t kind;
} hdr_t;

/* a send whose header must live until UCX completes it */
typedef struct {
    hdr_t hdr;
    MPIR_Win *win;              /* counted in the window's inflight; NULL if not */
    MPIDI_UCX_notify_win_t *nw; /* that window's state (MPIDI_UCX_notify_send), which
                                 * may outlive the window (MPIDI_UCX_notify_win_free) */
    bool notify;                /* GET_RESP: deliver the target's notification then */
    MPI_Aint bytes;
} send_t;

/* an origin's get awaiting its answer */
typedef struct {
    MPIR_Win *win;
    int target;
    void *buf;
} get_t;

/* a rendezvous receive in progress: put data into the window, or a get's
 * answer into the origin buffer */
typedef struct {
    hdr_t hdr;
    MPIR_Win *win;
    MPI_Aint bytes;
    get_t *get;
} recv_t;

/* ucx_notify_msg.c: sends and their headers */
send_t *MPIDI_UCX_notify_new_send(MPIR_Win * win, int kind, int src);
void MPIDI_UCX_notify_free_send(send_t * s);
/* hand s->hdr (and bytes at buf) to UCX, as it is */
int MPIDI_UCX_notify_post(MPIR_Win * win, int rank, send_t * s, const void *buf, size_t bytes);
int MPIDI_UCX_notify_maybe_stray(MPIR_Win * win, int target);
/* an error inside a UCX callback, returned by the next flush or access */
void MPIDI_UCX_notify_defer_error(int mpi_errno);
int MPIDI_UCX_notify_take_deferred(void);
/* the window is being freed: its id may come back with another window */
void MPIDI_UCX_notify_forget_window(MPIR_Win * win);

/* ucx_notify_flush.c */
/* send, with a deferred answer to rank riding along */
int MPIDI_UCX_notify_send(MPIR_Win * win, int rank, send_t * s, const void *buf, size_t bytes);
int MPIDI_UCX_notify_send_ack(MPIR_Win * win, int origin);
int MPIDI_UCX_notify_answer(MPIR_Win * win, int origin);
int MPIDI_UCX_notify_flush_request(MPIR_Win * win, const hdr_t * h);
int MPIDI_UCX_notify_send_owed(MPIDI_UCX_notify_win_t * nw, bool alone);

/* ucx_notify_win.c */
/* the window's UCX state, created with its first message, sent or
 * received; NULL if out of memory */
MPIDI_UCX_notify_win_t *MPIDI_UCX_notify_state_of(MPIR_Win * win);
/* the last in-flight send of a freed window's state (nw->win NULL) completed */
void MPIDI_UCX_notify_state_orphan_done(MPIDI_UCX_notify_win_t * nw);

#endif /* UCX_NOTIFY_IMPL_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over UCX: the window state and the functions the UCX
 * netmod's own files call (ucx_init.c, ucx_win.c, ucx_win.h); included by
 * ucx_pre.h.  The protocol is in ucx_notify.c.
 */
#ifndef UCX_NOTIFY_TYPES_H_INCLUDED
#define UCX_NOTIFY_TYPES_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>
#include <ucp/api/ucp.h>

/* the active-message id of every notify message (MPICH's own are id 0) */
#define MPIDI_UCX_NOTIFY_AM_ID 1

struct MPIR_Win;
struct MPIR_Request;

/* per window with ucx-am targets (MPIDI_UCX_win_t.notify) */
typedef struct MPIDI_UCX_notify_win {
    uint64_t *issued;           /* origin [target]: puts sent */
    uint64_t *acked;            /* origin [target]: puts the target said are done */
    uint64_t *done;             /* target [origin]: puts whose data is here */
    uint64_t *want;             /* target [origin]: a FLUSH waits for done to reach it (0: none) */
    uint64_t *want_buf;         /* origin: a flush_all's snapshot of issued */
    uint64_t *asked;            /* origin [target]: the last put that asked for an ack: issued then */
    uint64_t *at_flush;         /* origin [target]: issued at the last flush */
    bool *ask;                  /* origin [target]: the next put after a flush asks for an ack */
    int *gets;                  /* origin [target]: gets awaiting their data */
    bool *owed;                 /* target [origin]: an answer deferred (see ucx_notify.c) */
    bool *flush_wait;           /* target [origin]: want came from a FLUSH: answer at once */
    int *defer_skip;            /* target [origin]: answers to send at once before deferring again */
    bool *at_once;              /* target [origin]: the owed (else the last) answer is at once */
    int nowed;                  /* target: origins with owed set */
    struct MPIR_Win *win;       /* back pointer, for the list of windows owing answers */
    struct MPIDI_UCX_notify_win *next, *prev;   /* that list, while nowed > 0 */
    int inflight;               /* sends of the window UCX has not completed */
} MPIDI_UCX_notify_win_t;

int MPIDI_UCX_notify_init_worker(ucp_worker_h worker);
int MPIDI_UCX_notify_win_init(struct MPIR_Win *win);
int MPIDI_UCX_notify_win_free(struct MPIR_Win *win);
/* remote (local: local) completion of the window's notified accesses to
 * target, or to every target if target is -1 */
int MPIDI_UCX_notify_cmpl(struct MPIR_Win *win, int target, bool local);
int MPIDI_UCX_notify_access(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, struct MPIR_Win *win, int tag,
                            bool is_put, struct MPIR_Request **req);

#endif /* UCX_NOTIFY_TYPES_H_INCLUDED */

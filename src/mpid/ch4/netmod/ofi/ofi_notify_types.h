/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric: state shared by ofi_notify.c (accesses,
 * ordering, CQ data) and ofi_notify_win.c (window set-up).  The global part
 * lives in MPIDI_OFI_global.notify.
 */
#ifndef OFI_NOTIFY_TYPES_H_INCLUDED
#define OFI_NOTIFY_TYPES_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>
#include "ofi_notify_word.h"

struct MPIR_Win;
struct MPIR_Request;

/* A notification that must wait for an earlier one to the same target, or
 * (completion ordering) for its own data or previous word to be delivered. */
typedef struct MPIDI_OFI_notify_pending {
    struct MPIDI_OFI_notify_pending *next, *prev;       /* (window, target) queue, issue order */
    struct MPIDI_OFI_notify_pending *wnext, *wprev;     /* waiting list, all windows */
    struct MPIR_Win *win;
    int target;
    struct MPIR_Request *req;   /* write or read in flight; NULL: ready */
    bool sending;               /* send_ready is emitting its words */
    int nwords, sent;
    uint64_t words[3];
} MPIDI_OFI_notify_pending_t;

/* Per window, where the path table has cq-data targets (ofi_pre.h:
 * MPIDI_OFI_win_t.notify). */
typedef struct MPIDI_OFI_notify_win {
    int slot;                   /* the window's number in the CQ data word */
    bool waw_ordered;           /* provider ordering; else completion ordering */
    bool war_ordered;           /* zero-byte write may follow a read at once */
    uint64_t *len_in;           /* [origin] length words received */
    MPIDI_OFI_notify_pending_t **qhead, **qtail;        /* [target] */
    unsigned since_wait;        /* accesses issued since the last bound() */
    MPI_Aint eager_lo, eager_hi;        /* contiguous puts of these sizes: eager messages */
} MPIDI_OFI_notify_win_t;

typedef struct MPIDI_OFI_notify_global {
    /* entries waiting on a request, +1 while the eager-message path owes
     * answers (ch4_notify_eager.h), +1 while tagged-carrier receives wait
     * to be posted again (ofi_notify_tagged.c): MPIDI_NM_progress calls
     * MPIDI_OFI_notify_progress only while this is above 0 */
    int nwaiting;
    MPIDI_OFI_notify_pending_t *waiting;
    bool in_progress;
    unsigned long dropped;      /* CQ data words that named no window here */
    unsigned long nput;         /* for MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS */
    unsigned long nword;        /* for MPIR_CVAR_NOTIFY_OFI_FULL_EVERY */
    struct MPIR_Win *slots[MPIDI_OFI_NW_SLOTS];
    /* a window creation is exchanging the free slots it offered */
    bool offering;
} MPIDI_OFI_notify_global_t;

#endif /* OFI_NOTIFY_TYPES_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, node-local fast path: notification rings in a segment
 * shared by the processes of a node (ch4_notify_ring.c).
 *
 * Every process owns one bounded multi-producer / single-consumer ring of
 * 64-byte cells (notify_ring.h), shared by all its windows: the segment is
 * mapped once, at MPI_Init, for the processes of MPI_COMM_WORLD on the node,
 * and a cell names its window by MPICH's window id.  So a window costs no
 * segment of its own and progress reads one ring however many windows exist.
 * For windows whose memory is in a node-shared segment (MPI_Win_allocate,
 * MPI_Win_allocate_shared), a node-local origin of a notified access
 *   - put: copies straight into target memory, then publishes the cell with
 *     a release store (the data is in place by the origin's flush, as for
 *     MPI_Put);
 *   - get: reads target memory directly, then publishes the cell (the
 *     target learns its buffer is free).
 * The owner drains its ring from its transport's progress, while it has
 * windows whose peers may publish, and hands every cell to
 * MPIR_Notify_arrive, like every other path.
 *
 * Transport-neutral: the posix shm module uses it on ch4:ofi (window hooks
 * in posix_win.c, drained by MPIDI_POSIX_progress), the ucx netmod on
 * ch4:ucx, which has no shm module (ucx_win.c, MPIDI_NM_progress).  Each
 * calls MPIDI_Notify_rings_win_init/free from its window hooks.
 */
#ifndef CH4_NOTIFY_RING_H_INCLUDED
#define CH4_NOTIFY_RING_H_INCLUDED

#include "notify_ring.h"

/* The consumer's side of this process's ring.  Progress reads only next
 * and expect: the turn of the cell at head while windows (the count of this
 * process's windows that node-local peers may notify through the ring) is
 * above 0, else NULL, so that a process without such windows pays one load
 * and a branch, and one with them one more load and a compare. */
typedef struct {
    const _Atomic uint32_t *next;       /* &mine->cells[head & mask].turn, or NULL */
    uint32_t expect;            /* head + 1: the turn of a published cell at head */
    int windows;
    uint32_t head, mask;        /* only the owner moves head, under MPICH's lock */
    MPIDI_Notify_ring_t *mine;  /* NULL: no ring (alone on the node) */
} MPIDI_Notify_ring_consumer_t;
extern MPIDI_Notify_ring_consumer_t MPIDI_Notify_ring;

/* MPI_Init / MPI_Finalize (ch4, with MPICH's init-time shared memory):
 * collective over the processes of MPI_COMM_WORLD on the node */
int MPIDI_Notify_rings_init(void);
int MPIDI_Notify_rings_finalize(void);

/* Window hooks of a window whose memory the processes of its node share
 * (no communication).  init counts the window if another process of the
 * node maps its memory (*counted: free undoes it); free first delivers the
 * cells already published for the window (its peers published them before
 * the barrier that starts MPI_Win_free). */
void MPIDI_Notify_rings_win_init(MPIR_Win * win, bool *counted);
int MPIDI_Notify_rings_win_free(MPIR_Win * win, bool *counted);
/* whether target_rank is another process that maps the window memory and
 * has a ring */
bool MPIDI_Notify_ring_reaches(MPIR_Win * win, int target_rank);
/* every other process that maps the window memory: the ring path where it
 * reaches, if why is SHARED_MEMORY; else generic, with why */
int MPIDI_Notify_rings_claim_node(MPIR_Win * win, MPIR_Notify_why_t why);

/* deliver the cells published to this process */
int MPIDI_Notify_rings_drain(void);

/* each transport's progress: the cell at the ring's head, while a window
 * needs the ring; the ring is drained by the first stream's progress.
 * Relaxed: the drain reads the cell again with acquire. */
MPL_STATIC_INLINE_PREFIX int MPIDI_Notify_rings_progress(int vci)
{
    const _Atomic uint32_t *next = MPIDI_Notify_ring.next;
    if (unlikely(next != NULL) && vci == 0 &&
        atomic_load_explicit(next, memory_order_relaxed) == MPIDI_Notify_ring.expect)
        return MPIDI_Notify_rings_drain();
    return MPI_SUCCESS;
}

/* A notified put or get to target_rank, whose path is ring: the copy, then
 * the numbered cell.  With req (MPI_Rput_notify ...) a request complete at
 * once. */
int MPIDI_Notify_ring_access(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                             int target_rank, MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                             MPIR_Request ** req);
/* A cell alone, for an access already complete in target memory (the
 * accumulate family, applied by the origin) */
int MPIDI_Notify_ring_publish(MPIR_Win * win, int target_rank, int tag, MPI_Aint bytes);
/* with req, a request complete at once (as posix makes MPI_Rput's) */
int MPIDI_Notify_complete_request(MPIR_Request ** req);

#endif /* CH4_NOTIFY_RING_H_INCLUDED */

/*
 * Notified Access, node-local fast path: notification rings in a segment
 * shared by the processes of a node (ch4_notify_ring.c).
 *
 * For windows whose memory is in a node-shared segment (MPI_Win_allocate,
 * MPI_Win_allocate_shared), every process owns one bounded multi-producer /
 * single-consumer ring of 64-byte cells (notify_ring.h) in a second shared
 * segment of the window.  A node-local origin of a notified access
 *   - put: copies straight into target memory, then publishes the cell with
 *     a release store (the data is in place by the origin's flush, as for
 *     MPI_Put);
 *   - get: reads target memory directly, then publishes the cell (the
 *     target learns its buffer is free).
 * The owner drains its rings from its transport's progress and hands every
 * cell to MPIR_Notify_arrive, like every other path.
 *
 * Transport-neutral: the posix shm module uses it on ch4:ofi (window hooks
 * in posix_win.c, drained by MPIDI_POSIX_progress), the ucx netmod on
 * ch4:ucx, which has no shm module (ucx_win.c, MPIDI_NM_progress).  Each
 * keeps the window's rings in its own window state and sets the path table.
 */
#ifndef CH4_NOTIFY_RING_H_INCLUDED
#define CH4_NOTIFY_RING_H_INCLUDED

struct MPIDI_Notify_rings;

/* windows that own a ring, polled by MPIDI_Notify_rings_progress */
extern struct MPIDI_Notify_rings *MPIDI_Notify_rings_active;

/* Collective over node_comm (the processes that map the window memory):
 * the window's ring segment, *rings NULL if none could be mapped (then no
 * target may take the ring path).  Called by every process of the node, also
 * where this one forces another path: the others may not. */
int MPIDI_Notify_rings_create(MPIR_Win * win, MPIR_Comm * node_comm,
                              struct MPIDI_Notify_rings **rings);
int MPIDI_Notify_rings_free(struct MPIDI_Notify_rings **rings);

/* Every other process of the node that window memory is shared with: the
 * path table says ring unless why says otherwise (then generic) */
int MPIDI_Notify_rings_claim_node(MPIR_Win * win, MPIR_Notify_why_t why);

/* drain the rings of the windows served by progress stream vci (each
 * transport's progress, only while MPIDI_Notify_rings_active is set) */
int MPIDI_Notify_rings_progress(int vci);
/* deliver the cells already published to this process (NULL: none) */
int MPIDI_Notify_rings_poll(struct MPIDI_Notify_rings *rings);

/* A notified put or get to target_rank, whose path is ring: the copy, then
 * the numbered cell.  With req (MPI_Rput_notify ...) a request complete at
 * once. */
int MPIDI_Notify_ring_access(struct MPIDI_Notify_rings *rings, void *origin_addr,
                             int origin_count, MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                             MPIR_Request ** req);
/* A cell alone, for an access already complete in target memory (the
 * accumulate family, applied by the origin) */
int MPIDI_Notify_ring_publish(struct MPIDI_Notify_rings *rings, MPIR_Win * win, int target_rank,
                              int tag, MPI_Aint bytes);
/* with req, a request complete at once (as posix makes MPI_Rput's) */
int MPIDI_Notify_complete_request(MPIR_Request ** req);

#endif /* CH4_NOTIFY_RING_H_INCLUDED */

/*
 * Notified Access over libfabric (ch4:ofi): a notified put is one RMA write
 * that carries 64 bits of remote CQ data; the target finds it in its
 * completion queue (no op_context) and hands it to the matching code.
 * Implementation and wire format: ofi_notify.c.
 */
#ifndef OFI_NOTIFY_H_INCLUDED
#define OFI_NOTIFY_H_INCLUDED

#include <stdbool.h>
#include <rdma/fabric.h>

struct MPIR_Win;

/* Notifications waiting for a write or read in flight (gets; puts of
 * small-piece datatypes; every step under completion ordering), over all
 * windows: MPIDI_NM_progress calls MPIDI_OFI_notify_progress only while this
 * is non-zero. */
extern int MPIDI_OFI_notify_waiting;
/* remote CQ data words that named no window here (dropped, counted) */
extern unsigned long MPIDI_OFI_notify_dropped;

/* window life cycle, from the OFI window hooks (collective) */
int MPIDI_OFI_notify_win_init(struct MPIR_Win *win);
int MPIDI_OFI_notify_win_free(struct MPIR_Win *win);

/* origin: over remote CQ data where the window's path serves the target,
 * else the generic path */
int MPIDI_OFI_notify_put(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, struct MPIR_Win *win,
                         int tag);
int MPIDI_OFI_notify_get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, struct MPIR_Win *win, int tag);

/* target: a completion with remote CQ data for a remote write */
int MPIDI_OFI_notify_cq_data(uint64_t data);
/* origin: send the notifications of accesses whose data has completed */
int MPIDI_OFI_notify_progress(void);

/* MPICH's own tagged receives also carry remote CQ data, and they have an
 * op_context; only a remote *write* with CQ data is a notification. */
static inline bool MPIDI_OFI_is_notify_cqe(uint64_t flags)
{
    return (flags & (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE)) ==
        (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE);
}

/* ch4's netmod API (ch4_api.txt) */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_put_notify(const void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype,
                                                     struct MPIR_Win *win,
                                                     MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr, int tag)
{
    return MPIDI_OFI_notify_put(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, tag);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_get_notify(void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype,
                                                     struct MPIR_Win *win,
                                                     MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr, int tag)
{
    return MPIDI_OFI_notify_get(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, tag);
}

/* CQ entries are taken in by progress only (a poll here would cost every
 * MPI_Start a completion-queue read) */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_notify_poll(struct MPIR_Win *win)
{
    return MPI_SUCCESS;
}

#endif /* OFI_NOTIFY_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric (ch4:ofi): a notified put is one RMA write
 * that carries 64 bits of remote CQ data; the target finds it in its
 * completion queue (no op_context) and hands it to the matching code.
 * Accesses: ofi_notify.c; the words, sent and received: ofi_notify_wire.c;
 * issue order: ofi_notify_order.c; window set-up: ofi_notify_win.c; the
 * eager path's tagged carrier: ofi_notify_tagged.c; wire
 * format: ofi_notify_word.h; state: ofi_notify_types.h; what the .c files
 * share: ofi_notify_impl.h.
 */
#ifndef OFI_NOTIFY_H_INCLUDED
#define OFI_NOTIFY_H_INCLUDED

#include <stdbool.h>
#include <rdma/fabric.h>

struct MPIR_Win;

/* window life cycle, from the OFI window hooks (collective) */
/* ofi_win.c's window-information allgather, carrying the agreement too */
int MPIDI_OFI_notify_allgather(struct MPIR_Win *win, void *winfo, size_t winfo_size,
                               MPIR_Errflag_t * errflag);
int MPIDI_OFI_notify_win_init(struct MPIR_Win *win);
int MPIDI_OFI_notify_win_free(struct MPIR_Win *win);

/* origin: over remote CQ data where the window's path serves the target,
 * else the generic path */
int MPIDI_OFI_notify_access(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, struct MPIR_Win *win, int tag,
                            bool is_put, MPIR_Request ** req);

/* origin: the accumulate family; MPICH's own accumulate (native atomic or
 * active message, as for the plain call), its notification after it */
int MPIDI_OFI_notify_accumulate(const MPIR_Notify_acc_t * acc, struct MPIR_Win *win,
                                MPIDI_av_entry_t * av, MPIDI_winattr_t winattr, int tag);

/* target: a completion with remote CQ data for a remote write */
int MPIDI_OFI_notify_cq_data(uint64_t data);
/* origin: send the notifications of accesses whose data has completed
 * (gets; puts of small-piece datatypes; every step under completion
 * ordering); called by progress while MPIDI_OFI_global.notify.nwaiting */
int MPIDI_OFI_notify_progress(void);

/* the tagged carrier of the eager path's messages (ofi_notify_tagged.c):
 * set up at the first window of the path unless the write carrier is
 * (ofi_notify_wire.c); its sends' and receives' completions, and those of
 * the write carrier's tracked writes, from ofi_events.c's dispatch
 * (MPIDI_OFI_EVENT_NOTIFY) */
void MPIDI_OFI_notify_tagged_init(void);
struct fi_cq_tagged_entry;
int MPIDI_OFI_notify_tagged_event(int vni, struct fi_cq_tagged_entry *wc, struct MPIR_Request *req);

/* MPICH's own tagged receives also carry remote CQ data, and they have an
 * op_context; only a remote *write* with CQ data is a notification. */
static inline bool MPIDI_OFI_is_notify_cqe(uint64_t flags)
{
    return (flags & (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE)) == (FI_REMOTE_CQ_DATA | FI_REMOTE_WRITE);
}

/* ch4's netmod API (ch4_api.txt) */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_put_notify(const void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype,
                                                     struct MPIR_Win *win,
                                                     MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr, int tag,
                                                     MPIR_Request ** req)
{
    return MPIDI_OFI_notify_access((void *) origin_addr, origin_count, origin_datatype,
                                   target_rank, target_disp, target_count, target_datatype, win,
                                   tag, true, req);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_get_notify(void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype,
                                                     struct MPIR_Win *win,
                                                     MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr, int tag,
                                                     MPIR_Request ** req)
{
    return MPIDI_OFI_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                   target_disp, target_count, target_datatype, win, tag, false,
                                   req);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_accumulate_notify(const MPIR_Notify_acc_t * acc,
                                                            struct MPIR_Win *win,
                                                            MPIDI_av_entry_t * addr,
                                                            MPIDI_winattr_t winattr, int tag)
{
    return MPIDI_OFI_notify_accumulate(acc, win, addr, winattr, tag);
}

void MPIDI_OFI_notify_win_describe(struct MPIR_Win *win, char *text, size_t text_sz);
MPL_STATIC_INLINE_PREFIX void MPIDI_NM_notify_win_describe(struct MPIR_Win *win, char *text,
                                                           size_t text_sz)
{
    MPIDI_OFI_notify_win_describe(win, text, text_sz);
}

/* CQ entries are taken in by progress only (a poll here would cost every
 * MPI_Start a completion-queue read) */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_notify_poll(struct MPIR_Win *win)
{
    return MPI_SUCCESS;
}

#endif /* OFI_NOTIFY_H_INCLUDED */

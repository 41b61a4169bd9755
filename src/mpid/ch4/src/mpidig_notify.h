/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, the generic path: MPICH's active-message RMA protocol
 * (mpidig_rma.h) with a notification (MPIR_Notify_hdr_t: tag and sequence
 * number) in the put, get, accumulate and compare-and-swap headers.  It works for every transport, window
 * flavour and datatype; each transport's MPIDI_NM_/MPIDI_SHM_ put_notify /
 * get_notify falls back to it for the (window, target) pairs its own path
 * does not serve.  Target side: mpidig_notify.c.
 */
#ifndef MPIDIG_NOTIFY_H_INCLUDED
#define MPIDIG_NOTIFY_H_INCLUDED

#include "mpidig_rma.h"

/* Origin: number the access (per window and target, for the target's
 * ordering), then issue it; a failed issue takes the number back, so that
 * the target does not wait for it.  req: NULL, or MPI_Rput_notify's /
 * MPI_Rget_notify's request (MPICH's, as for MPI_Rput / MPI_Rget). */
MPL_STATIC_INLINE_PREFIX int MPIDIG_notify_access(void *origin_addr, int origin_count,
                                                  MPI_Datatype origin_datatype, int target_rank,
                                                  MPI_Aint target_disp, int target_count,
                                                  MPI_Datatype target_datatype, MPIR_Win * win,
                                                  int tag, bool is_put, MPIR_Request ** req)
{
    int mpi_errno, vci = MPIDI_WIN(win, am_vci);
    MPIR_Notify_hdr_t notify = { tag, 0, -1 };

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIR_Notify_next_seq(win, target_rank, &notify.seq);
    if (mpi_errno == MPI_SUCCESS) {
        mpi_errno = is_put ?
            MPIDIG_do_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win, vci, req,
                                 &notify) :
            MPIDIG_do_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win, vci, req,
                                 &notify);
        if (mpi_errno)
            MPIR_Notify_unnumber(win, target_rank, notify.seq);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
}

/* (origin..., target..., win, tag, req) */
#define MPIDIG_mpi_put_notify(origin_addr, o_count, o_type, t_rank, t_disp, t_count, t_type, \
                              win, tag, req)                                               \
    MPIDIG_notify_access((void *) (origin_addr), o_count, o_type, t_rank, t_disp, t_count,    \
                         t_type, win, tag, true, req)
#define MPIDIG_mpi_get_notify(origin_addr, o_count, o_type, t_rank, t_disp, t_count, t_type, \
                              win, tag, req)                                               \
    MPIDIG_notify_access(origin_addr, o_count, o_type, t_rank, t_disp, t_count, t_type, win, \
                         tag, false, req)

/* The accumulate family on the generic path: numbered like a put, then
 * MPICH's active-message accumulate, get-accumulate or compare-and-swap
 * with the notification in its header; the target delivers it once the
 * op is applied (mpidig_rma_callbacks.c), under the same shm lock that
 * orders it with every other accumulate of the window. */
MPL_STATIC_INLINE_PREFIX int MPIDIG_notify_accumulate(const MPIR_Notify_acc_t * a,
                                                      MPIR_Win * win, int tag)
{
    int mpi_errno, vci = MPIDI_WIN(win, am_vci);
    MPIR_Notify_hdr_t notify = { tag, 0, -1 };

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIR_Notify_next_seq(win, a->target_rank, &notify.seq);
    if (mpi_errno == MPI_SUCCESS) {
        switch (a->kind) {
            case MPIR_NOTIFY_ACC:
                mpi_errno = MPIDIG_do_accumulate_notify(a->origin_addr, a->origin_count,
                                                        a->origin_datatype, a->target_rank,
                                                        a->target_disp, a->target_count,
                                                        a->target_datatype, a->op, win, vci,
                                                        a->request, &notify);
                break;
            case MPIR_NOTIFY_GET_ACC:
                mpi_errno = MPIDIG_do_get_accumulate_notify(a->origin_addr, a->origin_count,
                                                            a->origin_datatype, a->result_addr,
                                                            a->result_count,
                                                            a->result_datatype, a->target_rank,
                                                            a->target_disp, a->target_count,
                                                            a->target_datatype, a->op, win, vci,
                                                            a->request, &notify);
                break;
            case MPIR_NOTIFY_CAS:
                /* takes the VCI lock itself: the default global granularity
                 * makes that a no-op (doc/design.md, thread safety) */
                mpi_errno = MPIDIG_mpi_compare_and_swap_notify(a->origin_addr, a->compare_addr,
                                                               a->result_addr,
                                                               a->origin_datatype,
                                                               a->target_rank, a->target_disp,
                                                               win, &notify);
                break;
        }
        if (mpi_errno)
            MPIR_Notify_unnumber(win, a->target_rank, notify.seq);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
}

/* A notification alone, after an access the origin has already applied
 * in target memory (a shared-memory accumulate, where the plain call is
 * applied at once too and an active message would let a later plain
 * accumulate overtake it): a zero-byte put whose status reports bytes.
 * To the origin itself it is delivered at once. */
MPL_STATIC_INLINE_PREFIX int MPIDIG_notify_only(MPIR_Win * win, int target_rank, int tag,
                                                MPI_Aint bytes)
{
    int mpi_errno, vci = MPIDI_WIN(win, am_vci);
    MPIR_Notify_hdr_t notify = { tag, 0, bytes };

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIR_Notify_next_seq(win, target_rank, &notify.seq);
    if (mpi_errno == MPI_SUCCESS) {
        mpi_errno = MPIDIG_do_put_notify(NULL, 0, MPI_BYTE, target_rank, 0, 0, MPI_BYTE, win, vci,
                                         NULL, &notify);
        if (mpi_errno)
            MPIR_Notify_unnumber(win, target_rank, notify.seq);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
}

/* Target (mpidig_rma_callbacks.c): a put's data is in place. */
int MPIDIG_notify_put_done(MPIR_Request * rreq);
/* Target: a get is about to send its data back; a notified get reads it
 * into a copy now and notifies at once. */
int MPIDIG_notify_get_read(MPIR_Request * rreq, MPI_Aint bytes);
/* Target: an accumulate, get-accumulate or compare-and-swap of bytes
 * target bytes has been applied. */
int MPIDIG_notify_acc_done(MPIR_Request * rreq, MPI_Aint bytes);

#endif /* MPIDIG_NOTIFY_H_INCLUDED */

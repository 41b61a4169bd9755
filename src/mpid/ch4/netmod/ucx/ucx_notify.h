/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over ch4:ucx, ch4's netmod API (ch4_api.txt): puts and
 * gets over UCX active messages where the window's path table says ucx-am
 * (ucx_notify.c), over the shared-memory rings where it says ring
 * (ch4_notify_ring.c), else the generic path.
 */
#ifndef UCX_NOTIFY_H_INCLUDED
#define UCX_NOTIFY_H_INCLUDED

#include "mpidig_notify.h"
#include "ch4_notify_ring.h"

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_put_notify(const void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype, MPIR_Win * win,
                                                     MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr, int tag,
                                                     MPIR_Request ** req)
{
    return MPIDI_UCX_notify_access((void *) origin_addr, origin_count, origin_datatype,
                                   target_rank, target_disp, target_count, target_datatype, win,
                                   tag, true, req);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_get_notify(void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype, MPIR_Win * win,
                                                     MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr, int tag,
                                                     MPIR_Request ** req)
{
    return MPIDI_UCX_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                   target_disp, target_count, target_datatype, win, tag, false,
                                   req);
}

/* as MPICH 4.0.2's ucx netmod does every accumulate: MPICH's active
 * messages, which also order it with the plain accumulates of the window */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_accumulate_notify(const MPIR_Notify_acc_t * acc,
                                                            MPIR_Win * win,
                                                            MPIDI_av_entry_t * addr,
                                                            MPIDI_winattr_t winattr, int tag)
{
    return MPIDIG_notify_accumulate(acc, win, tag);
}

/* the verbose report's words on the ucx-am path (MPIDI_Notify_win_report;
 * ucx_notify_msg.c) */
void MPIDI_UCX_notify_win_describe(MPIR_Win * win, char *text, size_t text_sz);
MPL_STATIC_INLINE_PREFIX void MPIDI_NM_notify_win_describe(MPIR_Win * win, char *text,
                                                           size_t text_sz)
{
    MPIDI_UCX_notify_win_describe(win, text, text_sz);
}

/* the ring cells already published to this process (UCX active messages
 * are handled by progress) */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_notify_poll(MPIR_Win * win)
{
    return MPIDI_UCX_WIN(win).notify_ring ? MPIDI_Notify_rings_drain() : MPI_SUCCESS;
}

/* netmod progress (ucx_progress.h): while answers are deferred
 * (MPIDI_UCX_notify_owed_rounds > 0) each call counts one round down and the
 * last sends them (ucx_notify_flush.c) */
extern int MPIDI_UCX_notify_owed_rounds;
int MPIDI_UCX_notify_tick(void);

#endif /* UCX_NOTIFY_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access for node-local targets (ch4 shm): the posix rings where
 * the window has them (posix_notify.c), else the generic path.
 */
#ifndef SHM_NOTIFY_H_INCLUDED
#define SHM_NOTIFY_H_INCLUDED

#include "mpidig_notify.h"
#ifndef MPIDI_ENABLE_AM_ONLY
#include "../posix/posix_notify.h"
#endif

MPL_STATIC_INLINE_PREFIX int MPIDI_SHM_mpi_put_notify(const void *origin_addr, int origin_count,
                                                      MPI_Datatype origin_datatype,
                                                      int target_rank, MPI_Aint target_disp,
                                                      int target_count,
                                                      MPI_Datatype target_datatype,
                                                      MPIR_Win * win, MPIDI_winattr_t winattr,
                                                      int tag, MPIR_Request ** req)
{
#ifdef MPIDI_ENABLE_AM_ONLY
    return MPIDIG_mpi_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win, tag, req);
#else
    return MPIDI_POSIX_mpi_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                      target_disp, target_count, target_datatype, win, tag, req);
#endif
}

MPL_STATIC_INLINE_PREFIX int MPIDI_SHM_mpi_get_notify(void *origin_addr, int origin_count,
                                                      MPI_Datatype origin_datatype,
                                                      int target_rank, MPI_Aint target_disp,
                                                      int target_count,
                                                      MPI_Datatype target_datatype,
                                                      MPIR_Win * win, MPIDI_winattr_t winattr,
                                                      int tag, MPIR_Request ** req)
{
#ifdef MPIDI_ENABLE_AM_ONLY
    return MPIDIG_mpi_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win, tag, req);
#else
    return MPIDI_POSIX_mpi_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                      target_disp, target_count, target_datatype, win, tag, req);
#endif
}

MPL_STATIC_INLINE_PREFIX int MPIDI_SHM_mpi_accumulate_notify(const MPIR_Notify_acc_t * acc,
                                                             MPIR_Win * win,
                                                             MPIDI_winattr_t winattr, int tag)
{
#ifdef MPIDI_ENABLE_AM_ONLY
    return MPIDIG_notify_accumulate(acc, win, tag);
#else
    return MPIDI_POSIX_mpi_accumulate_notify(acc, win, winattr, tag);
#endif
}

/* deliver the ring cells already published to this process */
MPL_STATIC_INLINE_PREFIX int MPIDI_SHM_notify_poll(MPIR_Win * win)
{
#ifdef MPIDI_ENABLE_AM_ONLY
    return MPI_SUCCESS;
#else
    return MPIDI_POSIX_notify_poll_win(win);
#endif
}

#endif /* SHM_NOTIFY_H_INCLUDED */

/*
 * Notified Access, the generic path: MPICH's active-message RMA protocol
 * (mpidig_rma.h) with the notification tag in the put/get header.  It works
 * for every transport, window flavour and datatype; each transport's
 * MPIDI_NM_/MPIDI_SHM_ put_notify / get_notify falls back to it for the
 * (window, target) pairs its own path does not serve.
 */
#ifndef MPIDIG_NOTIFY_H_INCLUDED
#define MPIDIG_NOTIFY_H_INCLUDED

#include "mpidig_rma.h"

MPL_STATIC_INLINE_PREFIX int MPIDIG_mpi_put_notify(const void *origin_addr, int origin_count,
                                                   MPI_Datatype origin_datatype, int target_rank,
                                                   MPI_Aint target_disp, int target_count,
                                                   MPI_Datatype target_datatype, MPIR_Win * win,
                                                   int tag)
{
    int mpi_errno, vci = MPIDI_WIN(win, am_vci);
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIDIG_do_put(origin_addr, origin_count, origin_datatype, target_rank,
                              target_disp, target_count, target_datatype, win, tag, vci, NULL);
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
}

MPL_STATIC_INLINE_PREFIX int MPIDIG_mpi_get_notify(void *origin_addr, int origin_count,
                                                   MPI_Datatype origin_datatype, int target_rank,
                                                   MPI_Aint target_disp, int target_count,
                                                   MPI_Datatype target_datatype, MPIR_Win * win,
                                                   int tag)
{
    int mpi_errno, vci = MPIDI_WIN(win, am_vci);
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIDIG_do_get(origin_addr, origin_count, origin_datatype, target_rank,
                              target_disp, target_count, target_datatype, win, tag, vci, NULL);
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
}

#endif /* MPIDIG_NOTIFY_H_INCLUDED */

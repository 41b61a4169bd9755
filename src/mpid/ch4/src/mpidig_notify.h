/*
 * Notified Access, the generic path: MPICH's active-message RMA protocol
 * (mpidig_rma.h) with a notification (MPIR_Notify_hdr_t: tag and sequence
 * number) in the put/get header.  It works for every transport, window
 * flavour and datatype; each transport's MPIDI_NM_/MPIDI_SHM_ put_notify /
 * get_notify falls back to it for the (window, target) pairs its own path
 * does not serve.  Target side: mpidig_notify.c.
 */
#ifndef MPIDIG_NOTIFY_H_INCLUDED
#define MPIDIG_NOTIFY_H_INCLUDED

#include "mpidig_rma.h"

/* Origin: number the access (per window and target, for the target's
 * ordering), then issue it; a failed issue takes the number back, so that
 * the target does not wait for it. */
MPL_STATIC_INLINE_PREFIX int MPIDIG_notify_access(void *origin_addr, int origin_count,
                                                  MPI_Datatype origin_datatype, int target_rank,
                                                  MPI_Aint target_disp, int target_count,
                                                  MPI_Datatype target_datatype, MPIR_Win * win,
                                                  int tag, bool is_put)
{
    int mpi_errno, vci = MPIDI_WIN(win, am_vci);
    MPIR_Notify_hdr_t notify = { tag, 0 };

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIR_Notify_next_seq(win, target_rank, &notify.seq);
    if (mpi_errno == MPI_SUCCESS) {
        mpi_errno = is_put ?
            MPIDIG_do_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win, vci, NULL,
                                 &notify) :
            MPIDIG_do_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                 target_disp, target_count, target_datatype, win, vci, NULL,
                                 &notify);
        if (mpi_errno)
            MPIR_Notify_unnumber(win, target_rank, notify.seq);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    return mpi_errno;
}

#define MPIDIG_mpi_put_notify(origin_addr, ...) \
    MPIDIG_notify_access((void *) (origin_addr), __VA_ARGS__, true)
#define MPIDIG_mpi_get_notify(...) MPIDIG_notify_access(__VA_ARGS__, false)

/* Target (mpidig_rma_callbacks.c): a put's data is in place. */
int MPIDIG_notify_put_done(MPIR_Request * rreq);
/* Target: a get is about to send its data back; a notified get reads it
 * into a copy now and notifies at once. */
int MPIDIG_notify_get_read(MPIR_Request * rreq, MPI_Aint bytes);

#endif /* MPIDIG_NOTIFY_H_INCLUDED */

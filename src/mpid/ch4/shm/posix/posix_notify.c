/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, shared-memory fast path of the posix module: the
 * window's notification rings (ch4_notify_ring.c) and the accumulate family.
 * See posix_notify.h and doc/design.md.
 */

#include "mpidimpl.h"
#include "posix_notify.h"
#include "mpidig_notify.h"
#include "ch4_notify_ring.h"

/* No communication: the rings were mapped at MPI_Init */
int MPIDI_POSIX_notify_win_init(MPIR_Win * win)
{
    int mpi_errno = MPIDI_Notify_rings_claim_node(win, MPIR_CVAR_NOTIFY_FORCE_GENERIC ?
                                                  MPIR_NOTIFY_WHY_FORCED :
                                                  MPIR_NOTIFY_WHY_SHARED_MEMORY);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_Notify_rings_win_init(win, &win->dev.shm.posix.notify_ring);
  fn_fail:
    return mpi_errno;
}

int MPIDI_POSIX_notify_win_free(MPIR_Win * win)
{
    return MPIDI_Notify_rings_win_free(win, &win->dev.shm.posix.notify_ring);
}

int MPIDI_POSIX_notify_poll_win(MPIR_Win * win)
{
    return win->dev.shm.posix.notify_ring ? MPIDI_Notify_rings_drain() : MPI_SUCCESS;
}

/* ch4's dispatch (ch4_notify.c) takes the ring and generic paths itself;
 * posix claims no other, so only a target whose path is neither could get
 * here, and the generic path serves every target */
int MPIDI_POSIX_mpi_put_notify(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                               MPIR_Request ** req)
{
    return MPIDIG_notify_access((void *) origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, tag, true, req);
}

int MPIDI_POSIX_mpi_get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                               MPIR_Request ** req)
{
    return MPIDIG_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, tag, false, req);
}

/* The accumulate family: MPICH's own shared-memory accumulate,
 * get-accumulate or compare-and-swap (posix_rma.h), applied now under the
 * window's shm mutex exactly as the plain call is, then the notification:
 * a ring cell, or (no ring to this target: itself, or the generic path
 * forced) a notification alone over the generic path, which keeps the
 * origin's order.  Sending the op itself as an active message would let a
 * later plain accumulate, applied at once, overtake it.  Targets whose
 * plain accumulates are active messages too (no shared segment) take the
 * generic path's notified accumulate. */
int MPIDI_POSIX_mpi_accumulate_notify(const MPIR_Notify_acc_t * a, MPIR_Win * win,
                                      MPIDI_winattr_t winattr, int tag)
{
    int mpi_errno = MPI_SUCCESS;
    bool ring = MPIR_Notify_path(win, a->target_rank) == MPIR_NOTIFY_PATH_RING;

    if (!ring && !(winattr & MPIDI_WINATTR_SHM_ALLOCATED) &&
        a->target_rank != MPIDIU_win_comm_rank(win, winattr))
        return MPIDIG_notify_accumulate(a, win, tag);

    switch (a->kind) {
        case MPIR_NOTIFY_ACC:
            mpi_errno = MPIDI_POSIX_do_accumulate(a->origin_addr, a->origin_count,
                                                  a->origin_datatype, a->target_rank,
                                                  a->target_disp, a->target_count,
                                                  a->target_datatype, a->op, win, winattr);
            break;
        case MPIR_NOTIFY_GET_ACC:
            mpi_errno = MPIDI_POSIX_do_get_accumulate(a->origin_addr, a->origin_count,
                                                      a->origin_datatype, a->result_addr,
                                                      a->result_count, a->result_datatype,
                                                      a->target_rank, a->target_disp,
                                                      a->target_count, a->target_datatype,
                                                      a->op, win, winattr);
            break;
        case MPIR_NOTIFY_CAS:
            mpi_errno = MPIDI_POSIX_mpi_compare_and_swap(a->origin_addr, a->compare_addr,
                                                         a->result_addr, a->origin_datatype,
                                                         a->target_rank, a->target_disp, win,
                                                         winattr);
            break;
    }
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_Notify_complete_request(a->request);
    MPIR_ERR_CHECK(mpi_errno);
    if (ring)
        mpi_errno = MPIDI_Notify_ring_publish(win, a->target_rank, tag, a->bytes);
    else
        mpi_errno = MPIDIG_notify_only(win, a->target_rank, tag, a->bytes);
  fn_fail:
    return mpi_errno;
}

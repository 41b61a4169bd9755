/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, the generic path at the target: the points of MPICH's
 * active-message put, get and accumulates where the access is complete there
 * (called from mpidig_rma_callbacks.c; the origin side is mpidig_notify.h).
 */

#include "mpidimpl.h"
#include "mpidig_notify.h"

int MPIDIG_notify_put_done(MPIR_Request * rreq)
{
    MPIR_Notify_target_t *nt = &MPIDIG_REQUEST(rreq, u.target.notify);
    return MPIR_Notify_done(rreq->u.rma.win, MPIDIG_REQUEST(rreq, u.target.origin_rank),
                            &nt->hdr, nt->bytes);
}

/* The reply then goes from the copy (MPI_BYTE), freed once sent
 * (MPIDIG_get_ack_origin_cb).  Notifying when the reply completes instead
 * could deadlock behind a large send of the origin (doc/design.md). */
int MPIDIG_notify_get_read(MPIR_Request * rreq, MPI_Aint bytes)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_target_t *nt = &MPIDIG_REQUEST(rreq, u.target.notify);
    MPI_Aint packed;

    if (nt->hdr.tag == MPIR_NOTIFY_NONE)
        return MPI_SUCCESS;
    nt->copy = MPL_malloc(MPL_MAX(bytes, 1), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!nt->copy, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notified get copy");
    if (bytes > 0) {
        mpi_errno = MPIR_Typerep_pack(MPIDIG_REQUEST(rreq, buffer), MPIDIG_REQUEST(rreq, count),
                                      MPIDIG_REQUEST(rreq, datatype), 0, nt->copy, bytes, &packed);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPIR_Datatype_release_if_not_builtin(MPIDIG_REQUEST(rreq, datatype));
    MPIDIG_REQUEST(rreq, buffer) = nt->copy;
    MPIDIG_REQUEST(rreq, count) = bytes;
    MPIDIG_REQUEST(rreq, datatype) = MPI_BYTE;
    mpi_errno = MPIR_Notify_done(rreq->u.rma.win, MPIDIG_REQUEST(rreq, u.target.origin_rank),
                                 &nt->hdr, bytes);
  fn_fail:
    return mpi_errno;
}

int MPIDIG_notify_acc_done(MPIR_Request * rreq, MPI_Aint bytes)
{
    return MPIR_Notify_done(rreq->u.rma.win, MPIDIG_REQUEST(rreq, u.target.origin_rank),
                            &MPIDIG_REQUEST(rreq, u.target.notify).hdr, bytes);
}

/* Plain RMA headers keep stock MPICH 4.0.2's sizes (LP64): the
 * notification's tag and sequence number fill what was padding there
 * (ch4_types.h, hook 0003; mpir_notify.h, MPIR_Notify_wire). */
#if SIZEOF_VOID_P == 8
_Static_assert(sizeof(MPIDIG_put_msg_t) == 72, "MPIDIG_put_msg_t grew");
_Static_assert(sizeof(MPIDIG_get_msg_t) == 64, "MPIDIG_get_msg_t grew");
_Static_assert(sizeof(MPIDIG_cswap_req_msg_t) == 40, "MPIDIG_cswap_req_msg_t grew");
_Static_assert(sizeof(MPIDIG_acc_req_msg_t) == 72, "MPIDIG_acc_req_msg_t grew");
#endif

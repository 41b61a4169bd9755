/*
 * Notified Access in ch4: MPID entry points.
 *
 * Produced here (origin), carried by the MPIDIG active-message RMA protocol
 * (mpidig_rma.h: notify_tag and notify_seq in the put/get headers), delivered
 * at the target by the MPIDIG completion callbacks (put: data written; get:
 * data read) through MPIR_Notify_arrive(), matched in src/mpi/notify/notify.c.
 */

#include "mpidimpl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories :
    - name        : NOTIFY
      description : Notified Access (MPI_Put_notify, MPI_Get_notify, MPI_Notify_init)

cvars:
    - name        : MPIR_CVAR_NOTIFY_FORCE_GENERIC
      category    : NOTIFY
      type        : boolean
      default     : false
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Carry every notified access over the generic active-message path
        (MPIDIG), even where a transport-specific fast path exists.  The
        generic path works for every transport and window flavour.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

static int check_counts(MPI_Aint origin_count, MPI_Aint target_count)
{
    int mpi_errno = MPI_SUCCESS;
    /* the MPIDIG RMA path takes int counts */
    if (origin_count > INT_MAX)
        MPIR_ERR_SET1(mpi_errno, MPI_ERR_COUNT, "**too_big_for_input",
                      "**too_big_for_input %s", "origin_count");
    else if (target_count > INT_MAX)
        MPIR_ERR_SET1(mpi_errno, MPI_ERR_COUNT, "**too_big_for_input",
                      "**too_big_for_input %s", "target_count");
    return mpi_errno;
}

int MPID_Put_notify(const void *origin_addr, MPI_Aint origin_count,
                    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                    MPI_Aint target_count, MPI_Datatype target_datatype, MPIR_Win * win, int tag)
{
    int mpi_errno = check_counts(origin_count, target_count);
    MPIR_ERR_CHECK(mpi_errno);

    int vci = MPIDI_WIN(win, am_vci);
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIDIG_do_put(origin_addr, (int) origin_count, origin_datatype, target_rank,
                              target_disp, (int) target_count, target_datatype, win, tag, vci,
                              NULL);
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    MPIR_ERR_CHECK(mpi_errno);
  fn_fail:
    return mpi_errno;
}

int MPID_Get_notify(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                    MPI_Datatype target_datatype, MPIR_Win * win, int tag)
{
    int mpi_errno = check_counts(origin_count, target_count);
    MPIR_ERR_CHECK(mpi_errno);

    int vci = MPIDI_WIN(win, am_vci);
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    mpi_errno = MPIDIG_do_get(origin_addr, (int) origin_count, origin_datatype, target_rank,
                              target_disp, (int) target_count, target_datatype, win, tag, vci,
                              NULL);
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    MPIR_ERR_CHECK(mpi_errno);
  fn_fail:
    return mpi_errno;
}

int MPID_Notify_init(MPIR_Win * win, int src_rank, int tag, int expected_count,
                     MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req;
    /* on the window's VCI: MPI_Wait polls the VCI of the request */
    int vci = MPIDI_WIN(win, am_vci);

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    MPIDI_CH4_REQUEST_CREATE(req, MPIR_REQUEST_KIND__NOTIFY, vci, 1);
    if (req) {
        mpi_errno = MPIR_Notify_init_impl(win, src_rank, tag, expected_count, req);
        if (mpi_errno)
            MPIR_Request_free(req);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    MPIR_ERR_CHKANDJUMP(req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    MPIR_ERR_CHECK(mpi_errno);
    *request = req;
  fn_fail:
    return mpi_errno;
}

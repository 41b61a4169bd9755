/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: MPIX_Notify_iprobe and MPIX_Notify_probe
 * (src/binding/c/notify_api.txt).  They look at the window's unexpected
 * queue (MPIR_Notify_peek in notify_queue.c) after taking in what has arrived,
 * and take nothing from it.
 */

#include "mpiimpl.h"

/* Made here, also with error checking off (the rank indexes per-origin
 * lists), rather than in the bindings: MPI_PROC_NULL has returned before. */
static int check_args(MPIR_Win * win, int source, int tag)
{
    int mpi_errno = MPI_SUCCESS;
    if (source != MPI_ANY_SOURCE && (unsigned) source >= (unsigned) win->comm_ptr->local_size)
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_RANK, "**notifyrank", "**notifyrank %d %d",
                             source, win->comm_ptr->local_size);
    if (tag != MPI_ANY_TAG && (unsigned) tag > MPIR_NOTIFY_TAG_MAX)
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_TAG, "**notifytag", "**notifytag %d %d",
                             tag, MPIR_NOTIFY_TAG_MAX);
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_iprobe_impl(MPIR_Win * win, int source, int tag, int *flag, MPI_Status * status)
{
    int mpi_errno = check_args(win, source, tag);
    MPIR_ERR_CHECK(mpi_errno);
    /* what a poll of the device finds, then, if that matched nothing, a round of
     * progress (as MPI_Iprobe does), so that polling with this call alone
     * sees every arrival */
    mpi_errno = MPID_Notify_poll(win);
    MPIR_ERR_CHECK(mpi_errno);
    *flag = MPIR_Notify_peek(win, source, tag, status);
    if (!*flag) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
        *flag = MPIR_Notify_peek(win, source, tag, status);
    }
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_probe_impl(MPIR_Win * win, int source, int tag, MPI_Status * status)
{
    int mpi_errno = check_args(win, source, tag);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPID_Notify_poll(win);
    MPIR_ERR_CHECK(mpi_errno);
    /* progress (which polls the device too) until it is queued, as
     * MPID_Probe does.  Not MPID_Progress_wait: that returns only once a
     * request completes, and a queued notification completes none. */
    while (!MPIR_Notify_peek(win, source, tag, status)) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    }
  fn_fail:
    return mpi_errno;
}

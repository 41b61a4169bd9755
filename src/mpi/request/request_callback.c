/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Deferred calls (include/mpir_request_callback.h): user functions that
 * must not run inside the code that found them due (a transport's handler,
 * the matching code, a request's completion) wait on one list for the next
 * round of progress, where one MPICH progress hook takes them off and runs
 * them: the counter watches of Notified Access (notify_counter.c).  The
 * same hook gives continuations (continue.c, MPIX_Continue and
 * MPIX_Request_on_complete) their round: it looks for completed operations
 * first, so that a callback that made more calls due sees them run in the
 * same round.
 *
 * The lists change under the lock that protects progress; the functions
 * themselves run outside it (MPIR_CALL_USER).
 */

#include "mpiimpl.h"
#include "utlist.h"

static MPIR_Deferred_call_t *due;       /* not yet run, in the order they became due */
static int hook_id = -1;

static int progress_hook(int *made_progress)
{
    int mpi_errno = MPIR_Continue_progress(made_progress);
    if (mpi_errno)
        return mpi_errno;
    /* a call may make more due (a function that starts its request again,
     * which the unexpected queue completes at once): they run in this round */
    while (due) {
        MPIR_Deferred_call_t *c = due;
        DL_DELETE(due, c);
        c->queued = false;
        *made_progress = 1;
        c->run(c);
    }
    if (!due && MPIR_Continue_idle())
        MPIR_Progress_hook_deactivate(hook_id);
    return MPI_SUCCESS;
}

int MPIR_Deferred_call_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    if (hook_id < 0) {
        mpi_errno = MPIR_Progress_hook_register(progress_hook, &hook_id);
        MPIR_ERR_CHKANDJUMP(mpi_errno, mpi_errno, MPI_ERR_OTHER, "**reqcbhook");
    }
  fn_fail:
    return mpi_errno;
}

void MPIR_Deferred_call_add(MPIR_Deferred_call_t * call)
{
    if (call->queued)
        return;
    call->queued = true;
    DL_APPEND(due, call);
    MPIR_Progress_hook_activate(hook_id);
}

void MPIR_Deferred_call_cancel(MPIR_Deferred_call_t * call)
{
    if (call->queued) {
        DL_DELETE(due, call);
        call->queued = false;
    }
}

void MPIR_Deferred_hook_activate(void)
{
    MPIR_Progress_hook_activate(hook_id);
}

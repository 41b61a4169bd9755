/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */


/* The continuation request (MPIX_Continue_init): started, tested, waited
 * for and freed as a persistent request; the callbacks registered with it
 * are held while it is inactive, and a poll-only one runs them from
 * MPI_Test and MPI_Wait. */

#include "mpiimpl.h"
#include "utlist.h"
#include "continue_impl.h"

int MPIR_Continue_init_impl(int flags, int max_poll, MPIR_Info * info, MPIR_Request ** cont_req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = NULL;
    MPIR_Cont_request_t *st;
    (void) info;        /* no hints are defined */

    MPIR_ERR_CHKANDJUMP1(flags & ~CONT_PUBLIC_FLAGS, mpi_errno, MPI_ERR_ARG, "**contflags",
                         "**contflags %d", flags);
    /* MPI_UNDEFINED is no limit, as in Open MPI's continuations */
    MPIR_ERR_CHKANDJUMP1(max_poll < 0 && max_poll != MPI_UNDEFINED, mpi_errno, MPI_ERR_ARG,
                         "**contmaxpoll", "**contmaxpoll %d", max_poll);
    st = MPL_calloc(1, sizeof(*st), MPL_MEM_OTHER);
    MPIR_ERR_CHKANDJUMP1(!st, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "continuation request");
    req = MPIR_Request_create(MPIR_REQUEST_KIND__CONTINUE);
    if (!req) {
        MPL_free(st);
        MPIR_ERR_SETANDJUMP(mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    }
    st->poll_only = (flags & MPIX_CONT_POLL_ONLY) != 0;
    st->max_poll = max_poll == MPI_UNDEFINED ? 0 : max_poll;
    req->u.cont = st;
    /* created inactive, as a persistent request is */
    MPIR_cc_set(&req->cc, 0);
    req->cc_ptr = &req->cc;
    MPIR_Status_set_empty(&req->status);
    *cont_req = req;
    mpi_errno = MPIR_Deferred_call_init();
  fn_fail:
    return mpi_errno;
}

int MPIR_Continue_start(MPIR_Request * cr)
{
    MPIR_Cont_request_t *st = cr->u.cont;
    cont_t *c, *tmp;

    st->active = true;
    st->err = MPI_SUCCESS;
    /* complete once every registered callback has run: at once if none */
    MPIR_cc_set(&cr->cc, st->pending);
    /* ready while inactive: they run at the next round (or next test/wait) */
    DL_FOREACH_SAFE(st->held, c, tmp) {
        DL_DELETE(st->held, c);
        MPIR_Continue_ready(c, false);
    }
    return MPI_SUCCESS;
}

/* runs the callbacks ready on a poll-only continuation request, at most
 * max_poll; the number run */
static int poll_ready(MPIR_Cont_request_t * st)
{
    int n = 0;
    /* cr->u.cont stays: the user holds cr while testing it */
    while (st->ready && (st->max_poll == 0 || n < st->max_poll)) {
        cont_t *c = st->ready;
        DL_DELETE(st->ready, c);
        MPIR_Continue_run(c);
        n++;
    }
    return n;
}

/* one round of progress unless callbacks are ready, then those callbacks;
 * *ran: how many ran */
static int poll_once(MPIR_Request * cr, int *ran)
{
    MPIR_Cont_request_t *st = cr->u.cont;
    int mpi_errno = MPI_SUCCESS;

    *ran = 0;
    if (!st->ready) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *ran = poll_ready(st);
  fn_fail:
    return mpi_errno;
}

/* MPI_Test and the other test calls on a poll-only continuation request
 * (its "poll function", as an extended generalized request's) */
int MPIR_Continue_poll(MPIR_Request * cr)
{
    int ran;
    return poll_once(cr, &ran);
}

/* MPI_Waitall and the other wait calls that loop on a request's "wait
 * function" until it completes: one poll, then, if no callback ran, the
 * global lock is yielded, as MPI_Wait's loop does, so that a thread that
 * must enter MPI to complete an operation (MPI_Grequest_complete) can */
int MPIR_Continue_wait(MPIR_Request * cr)
{
    int ran, mpi_errno = poll_once(cr, &ran);
    if (mpi_errno == MPI_SUCCESS && ran == 0)
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
}

int MPIR_Continue_completion_processing(MPIR_Request * cr, MPI_Status * status)
{
    MPIR_Cont_request_t *st = cr->u.cont;
    int err = st->err;

    /* what an inactive persistent request returns */
    st->active = false;
    st->err = MPI_SUCCESS;
    if (status != MPI_STATUS_IGNORE)
        MPIR_Status_set_empty(status);
    return err;
}

/* MPI_Request_free: callbacks still registered run all the same (those held
 * run as after MPI_Start, poll-only ones at the next round), then the
 * request goes */
void MPIR_Continue_request_free(MPIR_Request * cr)
{
    MPIR_Cont_request_t *st = cr->u.cont;
    cont_t *c, *tmp;

    if (st->pending == 0) {
        MPL_free(st);
        cr->u.cont = NULL;
        return;
    }
    st->freed = true;
    st->poll_only = false;
    if (!st->active)
        MPIR_Continue_start(cr);
    DL_FOREACH_SAFE(st->ready, c, tmp) {
        DL_DELETE(st->ready, c);
        MPIR_Continue_ready(c, false);
    }
}

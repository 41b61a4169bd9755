/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric: notifications in issue order.  Where a
 * notification cannot ride on its own data write (gets, non-contiguous
 * puts, everything under completion ordering), its words wait in a queue
 * per (window, target) and go out when the data they follow and every
 * earlier notification to that target allow (ofi_notify.c says which
 * ordering a window uses).  MPIDI_OFI_notify_progress, called from the
 * netmod's progress while something waits, moves the queue on.
 */

#include "mpidimpl.h"
#include "ofi_rma.h"
#include "ofi_notify_impl.h"
#include "ch4_notify_eager.h"
#include "utlist.h"

/* e waits for req (a write or read in flight) before its next step. */
static void wait_on(pending_t * e, MPIR_Request * req)
{
    e->req = req;
    DL_PREPEND_NP(MPIDI_OFI_global.notify.waiting, e, wnext, wprev);
    MPIDI_OFI_global.notify.nwaiting++;
}

/* Send what the head of the (win, target) queue allows: every ready entry's
 * words under provider ordering; under completion ordering one word at a
 * time, each after the previous one is delivered.
 * emit_word may meet a full provider, and MPICH's retry then runs a round of
 * progress, which may come back here for the same target (an entry whose
 * read completed, a completion function's access): the entry being sent
 * stays at the head, marked, until all its words are out, so that no other
 * word goes between them, and the nested call leaves it to this one. */
static int send_ready(MPIR_Win * win, int target)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    pending_t *e;

    while ((e = nw->qhead[target]) && e->req == NULL && !e->sending) {
        if (e->sent < e->nwords && !nw->waw_ordered) {
            MPIR_Request *req = NULL;
            e->sending = true;
            mpi_errno = MPIDI_OFI_notify_emit_word(win, target, e->words[e->sent++], &req);
            e->sending = false;
            MPIR_ERR_CHECK(mpi_errno);
            wait_on(e, req);
            break;
        }
        e->sending = true;
        while (e->sent < e->nwords && mpi_errno == MPI_SUCCESS)
            mpi_errno = MPIDI_OFI_notify_emit_word(win, target, e->words[e->sent++], NULL);
        DL_DELETE(nw->qhead[target], e);
        MPL_free(e);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* Notify after req (the access's data in flight; NULL: complete) and after
 * every earlier notification to the same target.  nwords == 0: nothing to
 * send, only later notifications wait for req (completion ordering). */
int MPIDI_OFI_notify_after(MPIR_Win * win, int target, const uint64_t * words, int nwords,
                           MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;

    MPIDI_OFI_notify_count_issued(win, nwords);
    /* nothing to send and nothing for later ones to wait for (the word
     * rode on its write): no entry, as for most puts of the path */
    if (nwords == 0 && !req)
        return MPI_SUCCESS;
    /* one word cannot be split: at once if nothing waits before it (two go
     * through the queue, whose head send_ready keeps while they go out).  An
     * access that a completion function makes during this word's retry may
     * land before it: the two calls overlap, so neither is earlier. */
    if (!req && !nw->qhead[target] && nw->waw_ordered && nwords == 1)
        return MPIDI_OFI_notify_emit_word(win, target, words[0], NULL);

    pending_t *e = MPL_malloc(sizeof(*e), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notification queue entry");
    e->win = win;
    e->target = target;
    e->req = NULL;
    e->nwords = nwords;
    e->sent = 0;
    e->sending = false;
    memcpy(e->words, words, nwords * sizeof(uint64_t));
    DL_APPEND(nw->qhead[target], e);
    if (req)
        wait_on(e, req);
    else
        mpi_errno = send_ready(win, target);
  fn_fail:
    return mpi_errno;
}

int MPIDI_OFI_notify_progress(void)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_global_t *g = &MPIDI_OFI_global.notify;
    pending_t *e, *next;

    if (g->in_progress)
        return MPI_SUCCESS;
    g->in_progress = true;
    mpi_errno = MPIDI_Notify_eager_tick();
    if (!mpi_errno)
        mpi_errno = MPIDI_OFI_notify_tagged_repost();
    for (e = g->waiting; e && !mpi_errno; e = next) {
        next = e->wnext;
        if (!MPIR_Request_is_complete(e->req))
            continue;
        MPIR_Request_free(e->req);
        e->req = NULL;
        DL_DELETE_NP(g->waiting, e, wnext, wprev);
        g->nwaiting--;
        /* send_ready frees only entries that wait for nothing, never one
         * still on this list; one it makes wait again goes to the front */
        mpi_errno = send_ready(e->win, e->target);
        if (mpi_errno)
            break;
    }
    g->in_progress = false;
    return mpi_errno;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over UCX (ch4:ucx): a notified put is one UCX active
 * message, a notified get a request message answered with the data.
 *
 * UCX's host API has no write with immediate data, but its active messages
 * carry a header and a payload, and a large payload can be received by
 * rendezvous straight into a given buffer (ucp_am_recv_data_nbx).  So:
 *
 *   put:  origin --PUT{window, offset, tag, seq} + data-->  target
 *         The handler copies an eager payload into window memory, or starts
 *         the rendezvous receive into window memory; once the data is there
 *         the notification goes to MPIR_Notify_arrive (produced by
 *         MPIDI_UCX_notify_put, carried by the message, matched in src/mpi/notify/).
 *   get:  origin --GET{window, offset, tag, seq, cookie}-->  target
 *         target --GET_RESP{cookie} + data from window memory--> origin
 *         The target's notification follows its send's local completion
 *         (the data has been read); the origin's get completes when the
 *         answer is in its buffer (eager copy or rendezvous receive).
 *
 * Node-shared window memory.  MPICH allocates the memory of MPI_Win_allocate
 * and MPI_Win_allocate_shared windows in a segment every process of the
 * node maps (MPIDIG_WIN(win, shared_table)), also on ch4:ucx, which has no
 * shm module.  Such windows get the notification rings of ch4_notify_ring.c,
 * as posix windows do on ch4:ofi: the origin copies the data itself and
 * publishes a ring cell, no UCX call is made, and the owner drains its rings
 * from MPIDI_NM_progress (path ring, reason shared-memory).  The access is
 * complete when the call returns, so a flush has nothing to wait for.
 *
 * Ordering.  UCX does not order active messages (rendezvous ones complete
 * when their data has moved), so every access carries the origin's
 * sequence number for its target and MPIR_Notify_arrive restores issue
 * order, as on the generic path.
 *
 * Remote completion (MPI_Win_flush, unlock, fence, complete).  A put's send
 * completing at the origin says nothing about the target, so the origin
 * counts puts issued per target and the target counts puts done per origin.
 * A flush that finds puts unconfirmed sends one FLUSH{issued} and waits for
 * FLUSH_ACK{done} (the target answers once done reaches issued): one round
 * trip per flush that has work, none per access, none for a flush with
 * nothing outstanding.  In the put, flush, put, flush pattern, or with a
 * short burst of puts before each flush (a flush that found at most
 * MPIDI_NOTIFY_ASK_BURST puts since the previous one), the next puts
 * (as many again) ask for the answer themselves (PUT{count = issued}), so
 * the flush sends nothing and waits for one message instead of two; a
 * longer stream of puts keeps one FLUSH per flush (an answer per put would
 * halve its message rate when answers go at once), and a stream that
 * MPI_Win_flush_local completes costs no answers.  Gets need no FLUSH:
 * their answer is the completion.
 *
 * Piggy-backed answers.  The answer a put asked for is deferred: it rides
 * on this process's next message to the origin (every message carries
 * `ack`, the puts done from its receiver), or, if there is none within
 * DEFER_ROUNDS rounds of this process's progress from then, or from the
 * origin's last put while it is the only one owed (a burst ends with the
 * put that matters), it goes alone from the netmod's progress.
 * In a request/response pattern (a ping-pong, a halo exchange) the answer
 * then costs no message of its own.  A deferral that ended alone makes the
 * next DEFER_SKIP answers to that origin go at once, so that a target that
 * computes after a notification does not hold the origin's flush for long
 * more than once, unless a message this process sends to the origin after
 * such an answer shows that it could have carried it (a request/response
 * pattern after all, as at the end of each phase of a ping-pong).  An
 * explicit FLUSH is answered at once.
 * Local completion (flush_local) waits for the sends UCX has not completed.
 *
 * Files: the origin's accesses here; the messages and their handlers in
 * ucx_notify_msg.c; the FLUSH/ACK protocol and the deferred answers in
 * ucx_notify_flush.c; window set-up and the path table in ucx_notify_win.c;
 * what they share in ucx_notify_impl.h.
 *
 * Which targets: every other process of a window whose flavour is not
 * dynamic, unless MPIR_CVAR_NOTIFY_UCX_PATH or MPIR_CVAR_NOTIFY_FORCE_GENERIC
 * say generic (path table: ucx-am).  Contiguous accesses without a request
 * go this way; request-based and non-contiguous ones, the accumulate family
 * and the calling process take the generic path, which uses the same
 * sequence numbers, so they mix in order.
 */

#include "mpidimpl.h"
#include "ucx_notify_impl.h"
#include "ch4_notify.h"

/* the window's UCX state if the path table says ucx-am for target (NULL
 * also if it cannot be had: then the generic path) */
static MPIDI_UCX_notify_win_t *path_state(MPIR_Win * win, int target)
{
    return MPIR_Notify_path(win, target) == MPIR_NOTIFY_PATH_UCX_AM ?
        MPIDI_UCX_notify_state_of(win) : NULL;
}

int MPIDI_UCX_notify_access(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                            MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;
    int o_contig, t_contig;
    MPI_Aint o_bytes, t_bytes, o_lb, t_lb;
    MPIDI_UCX_notify_win_t *nw = req ? NULL : path_state(win, target_rank);

    MPIR_FUNC_ENTER;
    /* ring and generic targets do not come here (ch4_notify.c) */
    if (nw) {
        MPIDI_Datatype_check_contig_size_lb(origin_datatype, origin_count, o_contig, o_bytes, o_lb);
        MPIDI_Datatype_check_contig_size_lb(target_datatype, target_count, t_contig, t_bytes, t_lb);
        if (!o_contig || !t_contig)
            nw = NULL;
    }
    if (!nw) {
        mpi_errno = MPIDIG_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                         target_disp, target_count, target_datatype, win, tag,
                                         is_put, req);
        goto fn_exit;
    }
    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    mpi_errno = MPIDI_UCX_notify_take_deferred();
    MPIR_ERR_CHECK(mpi_errno);

    int vni = MPIDI_UCX_get_win_vni(win);
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
    if (unlikely(MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS > 0) &&
        (mpi_errno = MPIDI_UCX_notify_maybe_stray(win, target_rank)) != MPI_SUCCESS) {
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
        goto fn_fail;
    }
    send_t *s = MPIDI_UCX_notify_new_send(win, is_put ? MSG_PUT : MSG_GET, win->comm_ptr->rank);
    get_t *g = is_put ? NULL : MPL_malloc(sizeof(*g), MPL_MEM_RMA);
    if (!s || (!is_put && !g)) {
        MPIDI_UCX_notify_free_send(s);
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    }
    s->hdr.disp = target_disp;
    s->hdr.lb = t_lb;
    s->hdr.tag = tag;
    /* kept here: a failed send has freed s by the time it is unnumbered */
    uint32_t seq = s->hdr.seq = MPIR_Notify_take_seq(win->notify, target_rank);
    s->win = win;
    if (is_put) {
        nw->issued[target_rank]++;
        if (MPIDI_Notify_put_asks(nw->ask[target_rank], nw->issued[target_rank],
                                  nw->at_flush[target_rank]))
            s->hdr.count = nw->asked[target_rank] = nw->issued[target_rank];
        mpi_errno = MPIDI_UCX_notify_send(win, target_rank, s, (char *) origin_addr + o_lb,
                                          o_bytes);
        if (mpi_errno)
            nw->issued[target_rank]--;
    } else {
        g->win = win;
        g->target = target_rank;
        g->buf = (char *) origin_addr + o_lb;
        s->hdr.count = t_bytes;
        s->hdr.cookie = (uint64_t) (uintptr_t) g;
        nw->gets[target_rank]++;
        mpi_errno = MPIDI_UCX_notify_send(win, target_rank, s, NULL, 0);
        if (mpi_errno) {
            nw->gets[target_rank]--;
            MPL_free(g);
        }
    }
    if (mpi_errno)
        MPIR_Notify_unnumber(win, target_rank, seq);
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

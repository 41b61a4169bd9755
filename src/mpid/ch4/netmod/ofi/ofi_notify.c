/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric (ch4:ofi): the origin's accesses
 * (MPIDI_OFI_notify_access, from ch4_notify.c).  A contiguous put is one
 * RMA write whose remote CQ data carries the notification
 * (ofi_notify_wire.c, ofi_notify_word.h): the target finds it in its
 * completion queue, with no message of its own.  Gets, non-contiguous puts
 * and accumulates are followed by a separate word, kept in issue order
 * (ofi_notify_order.c) by the ordering chosen at window creation
 * (ofi_notify_win.c).  Puts above the inject size, whose writes tcp
 * acknowledges before the target sees them, go as eager messages
 * (ch4_notify_eager.h).  The protocol and its reasons: doc/design.md.
 */

#include "mpidimpl.h"
#include "ofi_rma.h"
#include "ofi_notify_impl.h"
#include "mpidig_notify.h"
#include "ch4_notify_eager.h"
#include "notify_iov_walk.h"

/* A non-contiguous put as plain writes, one per pair of pieces. */
static int put_pieces(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_count, MPI_Datatype target_datatype, MPI_Aint bytes,
                      MPIDI_OFI_target_mr_t mr, MPIR_Win * win, int target)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    MPIDI_Notify_iov_walk_t o = MPIDI_NOTIFY_IOV_WALK(origin_addr, origin_count,
                                                      origin_datatype, bytes);
    MPIDI_Notify_iov_walk_t t = MPIDI_NOTIFY_IOV_WALK((const void *) (uintptr_t) mr.addr,
                                                      target_count, target_datatype, bytes);

    for (MPI_Aint done = 0; done < bytes;) {
        struct iovec *a = MPIDI_Notify_iov_next(&o), *b = MPIDI_Notify_iov_next(&t);
        MPIR_ERR_CHKANDJUMP1(!a || !b, mpi_errno, MPI_ERR_INTERN, "**intern", "**intern %s",
                             "notified put: datatype shorter than its size");
        size_t len = MPL_MIN(a->iov_len, b->iov_len);
        uint64_t raddr = (uintptr_t) b->iov_base;

        if (len <= MPIDI_OFI_global.max_buffered_write) {
            fi_addr_t dest = MPIDI_OFI_notify_dest(win, target);
            MPIDI_OFI_win_cntr_incr_inject(win);
            MPIDI_OFI_CALL_RETRY(fi_inject_write(MPIDI_OFI_WIN(win).ep, a->iov_base, len, dest,
                                                 raddr, mr.mr_key), vni, rdma_inject_write, FALSE);
        } else {
            MPIDI_OFI_win_cntr_incr(win);
            mpi_errno = MPIDI_OFI_notify_write(win, target, a->iov_base, len, raddr, mr.mr_key, 0,
                                               FI_DELIVERY_COMPLETE, NULL);
            MPIR_ERR_CHECK(mpi_errno);
        }
        MPIDI_Notify_iov_advance(a, len);
        MPIDI_Notify_iov_advance(b, len);
        done += len;
    }
  fn_fail:
    return mpi_errno;
}

/* The window's libfabric state if its path table says cq-data for target,
 * NULL for the generic path; refused (MPIR_CVAR_NOTIFY_OFI_PATH=native on a
 * window the path cannot serve) is an error naming the reason. */
static int path_state(MPIR_Win * win, int target, MPIDI_OFI_notify_win_t ** out)
{
    int mpi_errno = MPI_SUCCESS;

    *out = NULL;
    switch (MPIR_Notify_path(win, target)) {
        case MPIR_NOTIFY_PATH_CQ_DATA:
            *out = MPIDI_OFI_WIN(win).notify;
            break;
        case MPIR_NOTIFY_PATH_REFUSED:
            MPIR_ERR_SET1(mpi_errno, MPI_ERR_OTHER, "**notifyofinative", "**notifyofinative %s",
                          MPIR_Notify_why_text(MPIR_Notify_path_why(win, target)));
            break;
        default:
            break;
    }
    return mpi_errno;
}

/* At most BOUND_EVERY notified accesses of a window in flight, then the
 * origin waits for the window's writes and reads to complete, as a flush
 * would (a provider crashed with thousands outstanding: doc/design.md). */
#define BOUND_EVERY 1024
static int bound(MPIR_Win * win, MPIDI_OFI_notify_win_t * nw)
{
    if (++nw->since_wait < BOUND_EVERY)
        return MPI_SUCCESS;
    nw->since_wait = 0;
    return MPIDI_OFI_win_do_progress(win, MPIDI_OFI_WIN(win).vni);
}

/* A put's data, carrying its notification where it can: *nwords is left
 * with what notify_after must still send, *req with what it waits for.
 * ureq (MPI_Rput_notify): a write that nothing else tracks is tracked into
 * *ureq; pieces nothing tracks are waited for. */
static int put_data(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPIR_Win * win, MPIDI_OFI_notify_win_t * nw,
                    int tag, uint64_t * words, int *nwords_out, MPIR_Request ** req,
                    MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    int origin_contig, target_contig;
    MPI_Aint origin_bytes, target_bytes, target_extent, origin_true_lb, target_true_lb;

    if (unlikely(MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS > 0)) {
        mpi_errno = MPIDI_OFI_notify_maybe_stray(win, nw, target_rank);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPIDI_Datatype_check_contig_size_lb(origin_datatype, origin_count, origin_contig,
                                        origin_bytes, origin_true_lb);
    MPIDI_Datatype_check_contig_size_extent_lb(target_datatype, target_count, target_contig,
                                               target_bytes, target_extent, target_true_lb);
    /* what is written: the origin's bytes (check_access made sure they fit) */
    MPI_Aint bytes = origin_bytes;
    (void) target_bytes;
    int nwords = MPIDI_OFI_nw_encode(nw->slot, MPIDI_OFI_notify_rank_bits(win),
                                     win->comm_ptr->rank, tag, (uint64_t) bytes, words);

    MPIDI_OFI_target_mr_t mr;
    MPIDI_OFI_prepare_target_mr(target_rank, target_disp, target_extent, target_true_lb,
                                win, MPIDI_WIN(win, winattr), &mr);
    int vni = MPIDI_OFI_WIN(win).vni;
    fi_addr_t dest = MPIDI_OFI_notify_dest(win, target_rank);
    const void *buf = MPIR_get_contig_ptr(origin_addr, origin_true_lb);
    uint64_t raddr = mr.addr + target_true_lb;
    bool contig = origin_contig && target_contig;
    bool waw = nw->waw_ordered;
    /* The notification rides on the data write unless it must wait: behind
     * earlier ones to this target, or (completion ordering) for a length
     * word to be delivered first. */
    bool carry = contig && !nw->qhead[target_rank] && (waw || nwords == 1);

    if (carry && waw) {
        MPIDI_OFI_notify_count_issued(win, nwords - 1);
        for (int i = 0; i < nwords - 1; i++) {
            mpi_errno = MPIDI_OFI_notify_emit_word(win, target_rank, words[i], NULL);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    if (contig && (bytes > 0 || carry)) {
        uint64_t data = carry ? words[nwords - 1] : 0;
        uint64_t flags = carry ? FI_REMOTE_CQ_DATA : 0;
        bool inject = waw && bytes <= MPIDI_OFI_global.max_buffered_write;

        /* an injected write is locally complete on return (flush_local) */
        if (inject)
            MPIDI_OFI_win_cntr_incr_inject(win);
        else
            MPIDI_OFI_win_cntr_incr(win);
        if (!waw) {
            /* later notifications to this target wait for this write */
            mpi_errno = MPIDI_OFI_notify_write(win, target_rank, buf, bytes, raddr, mr.mr_key, data,
                                               flags, req);
        } else if (inject) {
            if (carry)
                MPIDI_OFI_CALL_RETRY(fi_inject_writedata(MPIDI_OFI_WIN(win).ep, buf,
                                                         bytes, data, dest, raddr,
                                                         mr.mr_key), vni, rdma_inject_write, FALSE);
            else
                MPIDI_OFI_CALL_RETRY(fi_inject_write(MPIDI_OFI_WIN(win).ep, buf, bytes,
                                                     dest, raddr, mr.mr_key),
                                     vni, rdma_inject_write, FALSE);
        } else {
            mpi_errno = MPIDI_OFI_notify_write(win, target_rank, buf, bytes, raddr, mr.mr_key, data,
                                               FI_DELIVERY_COMPLETE | flags, ureq);
        }
        MPIR_ERR_CHECK(mpi_errno);
    } else if (!contig && bytes > 0) {
        MPI_Aint origin_density, target_density;
        MPIR_Datatype_get_density(origin_datatype, origin_density);
        MPIR_Datatype_get_density(target_datatype, target_density);
        if (waw && origin_density >= MPIR_CVAR_CH4_IOV_DENSITY_MIN &&
            target_density >= MPIR_CVAR_CH4_IOV_DENSITY_MIN) {
            /* large pieces: a plain write each; the notification follows */
            mpi_errno = put_pieces(origin_addr, origin_count, origin_datatype, target_count,
                                   target_datatype, bytes, mr, win, target_rank);
            if (mpi_errno == MPI_SUCCESS && ureq)       /* untracked pieces: wait for them */
                mpi_errno = MPIDI_OFI_win_do_progress(win, vni);
        } else {
            /* small pieces (a write each would be slow, and the sockets
             * provider crashes under tens of thousands of them), or pieces
             * the provider does not order: MPICH's active-message put, whose
             * request completes when the target has the data; the
             * notification is sent after that, in order */
            mpi_errno = MPIDIG_mpi_rput(origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype, win, req);
        }
        MPIR_ERR_CHECK(mpi_errno);
    }
    *nwords_out = carry ? 0 : nwords;
  fn_fail:
    return mpi_errno;
}

/* A get's read; its notification is always a separate word (*nwords),
 * after *req where the read is not ordered before it. */
static int get_data(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPIR_Win * win, MPIDI_OFI_notify_win_t * nw,
                    int tag, uint64_t * words, int *nwords, MPIR_Request ** req, bool tracked)
{
    int mpi_errno = MPI_SUCCESS;
    int origin_contig, target_contig;
    MPI_Aint origin_true_lb, target_bytes, target_extent, target_true_lb;

    MPIDI_Datatype_check_contig_lb(origin_datatype, origin_contig, origin_true_lb);
    MPIDI_Datatype_check_contig_size_extent_lb(target_datatype, target_count, target_contig,
                                               target_bytes, target_extent, target_true_lb);
    (void) origin_true_lb;
    (void) target_extent;
    (void) target_true_lb;
    *nwords = MPIDI_OFI_nw_encode(nw->slot, MPIDI_OFI_notify_rank_bits(win),
                                  win->comm_ptr->rank, tag, (uint64_t) target_bytes, words);
    MPIDI_av_entry_t *av = MPIDIU_comm_rank_to_av(win->comm_ptr, target_rank);

    if (target_bytes > 0) {
        /* MPIDI_OFI_do_get reads contiguous data with one fi_readmsg, which
         * FI_ORDER_WAR keeps ahead of the notification; anything else is
         * notified once its request says the data is here. */
        bool ordered = !tracked && nw->waw_ordered && nw->war_ordered && origin_contig &&
            target_contig &&
            !nw->qhead[target_rank] &&
            (size_t) target_bytes <= MPIDI_OFI_global.prov_use[0]->ep_attr->max_order_war_size;
        if (!(origin_contig && target_contig)) {
            /* MPIDI_OFI_do_get cannot give a request that completes for
             * these in MPICH 4.0.2: sparse pieces are packed (no request is
             * created, and the pieces are issued later from progress with a
             * pointer to ours), dense ones go to MPIDI_OFI_nopack_putget,
             * whose request never completes (the flush then hung in
             * rma_fuzz's non-contiguous gets).  MPICH's active-message get
             * has one. */
            mpi_errno = MPIDIG_mpi_rget(origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype, win, req);
        } else {
            mpi_errno = MPIDI_OFI_do_get(origin_addr, origin_count, origin_datatype,
                                         target_rank, target_disp, target_count,
                                         target_datatype, win, av, MPIDI_WIN(win, winattr),
                                         ordered ? NULL : req);
        }
    }
    return mpi_errno;
}

/* Whether an eager put to target is unanswered that a write's notification
 * could overtake.  Not those of the write carrier: they are writes too. */
static bool eager_unsettled(MPIR_Win * win, int target)
{
    return !MPIDI_OFI_notify_writes_on() && MPIDI_Notify_eager_unacked(win, target);
}

/* Not an error class: maybe_eager (or the eager path itself) left the put
 * to the write path. */
#define NOT_EAGER MPIDI_NOTIFY_EAGER_DECLINED

/* A contiguous put of the window's eager sizes goes as one eager message
 * (ch4_notify_eager.h); so does every smaller one while a message to that
 * target is unanswered, so that its notification needs no settling.
 * Otherwise NOT_EAGER. */
static int maybe_eager(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPIR_Win * win,
                       MPIDI_OFI_notify_win_t * nw, int tag, MPIR_Request ** ureq)
{
    int o_contig, t_contig;
    MPI_Aint o_bytes, t_bytes, o_lb, t_lb;

    MPIDI_Datatype_check_contig_size_lb(origin_datatype, origin_count, o_contig, o_bytes, o_lb);
    if (o_bytes > nw->eager_hi || !o_contig ||
        (o_bytes < nw->eager_lo && !eager_unsettled(win, target_rank)))
        return NOT_EAGER;
    MPIDI_Datatype_check_contig_size_lb(target_datatype, target_count, t_contig, t_bytes, t_lb);
    (void) t_bytes;
    if (!t_contig)
        return NOT_EAGER;
    return MPIDI_Notify_eager_put(MPIR_get_contig_ptr(origin_addr, o_lb), o_bytes, target_rank,
                                  target_disp, t_lb, win, tag, ureq);
}

/* The request of MPI_Rput_notify / MPI_Rget_notify (ureq): the data's own
 * request where the access has one (shared with the notification queue,
 * which drops its reference when done), else one that is complete at once
 * (an injected write: the provider has copied the data). */
static int user_request(MPIR_Request ** ureq, MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    if (!ureq || *ureq)
        return MPI_SUCCESS;
    if (req) {
        MPIR_Request_add_ref(req);
        *ureq = req;
    } else {
        *ureq = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
        MPIR_ERR_CHKANDJUMP(*ureq == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    }
  fn_fail:
    return mpi_errno;
}

int MPIDI_OFI_notify_access(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            int target_rank, MPI_Aint target_disp, int target_count,
                            MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                            MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw;
    uint64_t words[3];
    int nwords;
    MPIR_Request *req = NULL;

    MPIR_FUNC_ENTER;
    mpi_errno = path_state(win, target_rank, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw) {
        mpi_errno = MPIDIG_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                         target_disp, target_count, target_datatype, win, tag,
                                         is_put, ureq);
        goto fn_exit;
    }

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    if (ureq)
        *ureq = NULL;
    if (is_put) {
        mpi_errno = maybe_eager(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, nw, tag, ureq);
        if (mpi_errno != NOT_EAGER)
            goto fn_exit;
        mpi_errno = MPI_SUCCESS;
    }
    if (unlikely(eager_unsettled(win, target_rank))) {
        mpi_errno = MPIDI_Notify_eager_settle(win, target_rank);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (is_put)
        mpi_errno = put_data(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                             target_count, target_datatype, win, nw, tag, words, &nwords, &req,
                             ureq);
    else
        mpi_errno = get_data(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                             target_count, target_datatype, win, nw, tag, words, &nwords, &req,
                             ureq != NULL);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = user_request(ureq, req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDI_OFI_notify_after(win, target_rank, words, nwords, req);
    MPIR_ERR_CHECK(mpi_errno);
    (void) MPIR_Notify_take_seq(win->notify, target_rank);
    mpi_errno = bound(win, nw);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ------------------------------------------------------- accumulates */

/* The accumulate family.  The op is MPICH's own, chosen as for the plain
 * call (a native libfabric atomic where ofi_rma.h would use one, else
 * MPICH's active-message accumulate), so plain and notified accumulates of
 * a location stay atomic with each other.  On the remote-CQ-data path its
 * notification is a separate word that follows the op's completion, queued
 * like a get's: the request of an accumulate or get-accumulate completes
 * when the op has been applied at the target (FI_DELIVERY_COMPLETE, or the
 * active message's acknowledgement).  A compare-and-swap has no request
 * form in MPICH, so the call waits for it to complete before queueing the
 * word.  On the generic path, MPICH's active-message accumulate carries the
 * notification itself, after this process's native atomics to the window
 * have completed (as MPICH's own fallback from native to active-message
 * accumulates does). */
int MPIDI_OFI_notify_accumulate(const MPIR_Notify_acc_t * a, MPIR_Win * win, MPIDI_av_entry_t * av,
                                MPIDI_winattr_t winattr, int tag)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    MPIDI_OFI_notify_win_t *nw;
    uint64_t words[3];
    int nwords;
    MPIR_Request *req = NULL;

    MPIR_FUNC_ENTER;
    mpi_errno = path_state(win, a->target_rank, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw) {
        /* only a window whose plain accumulates may be native atomics
         * (ofi_rma.h's test) has any to drain */
        if (MPIDI_OFI_ENABLE_RMA && MPIDI_OFI_ENABLE_ATOMICS &&
            (winattr & MPIDI_WINATTR_ACCU_NO_SHM)) {
            MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
            mpi_errno = MPIDI_OFI_win_do_progress(win, vni);
            MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
            MPIR_ERR_CHECK(mpi_errno);
        }
        mpi_errno = MPIDIG_notify_accumulate(a, win, tag);
        goto fn_exit;
    }

    MPIDIG_RMA_OP_CHECK_SYNC(a->target_rank, win);
    if (unlikely(eager_unsettled(win, a->target_rank))) {
        mpi_errno = MPIDI_Notify_eager_settle(win, a->target_rank);
        MPIR_ERR_CHECK(mpi_errno);
    }
    switch (a->kind) {
        case MPIR_NOTIFY_ACC:
            mpi_errno = MPIDI_NM_mpi_raccumulate(a->origin_addr, a->origin_count,
                                                 a->origin_datatype, a->target_rank,
                                                 a->target_disp, a->target_count,
                                                 a->target_datatype, a->op, win, av, winattr, &req);
            break;
        case MPIR_NOTIFY_GET_ACC:
            mpi_errno = MPIDI_NM_mpi_rget_accumulate(a->origin_addr, a->origin_count,
                                                     a->origin_datatype, a->result_addr,
                                                     a->result_count, a->result_datatype,
                                                     a->target_rank, a->target_disp,
                                                     a->target_count, a->target_datatype, a->op,
                                                     win, av, winattr, &req);
            break;
        case MPIR_NOTIFY_CAS:
            mpi_errno = MPIDI_NM_mpi_compare_and_swap(a->origin_addr, a->compare_addr,
                                                      a->result_addr, a->origin_datatype,
                                                      a->target_rank, a->target_disp, win, av,
                                                      winattr);
            MPIR_ERR_CHECK(mpi_errno);
            /* native: counted by the window's counter; else MPICH's
             * active-message compare-and-swap, counted per target */
            MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
            mpi_errno = MPIDI_OFI_win_do_progress(win, vni);
            MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
            if (mpi_errno == MPI_SUCCESS)
                mpi_errno = MPIDIG_wait_am_acc(win, a->target_rank);
            break;
    }
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = user_request(a->request, req);  /* MPI_Raccumulate_notify ...: shared */
    MPIR_ERR_CHECK(mpi_errno);
    nwords = MPIDI_OFI_nw_encode(nw->slot, MPIDI_OFI_notify_rank_bits(win),
                                 win->comm_ptr->rank, tag, (uint64_t) a->bytes, words);
    mpi_errno = MPIDI_OFI_notify_after(win, a->target_rank, words, nwords, req);
    MPIR_ERR_CHECK(mpi_errno);
    (void) MPIR_Notify_take_seq(win->notify, a->target_rank);
    mpi_errno = bound(win, nw);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

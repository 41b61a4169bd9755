/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric: the remote CQ data words on the wire.
 * Sent: a write into the target's window that carries one word
 * (MPIDI_OFI_notify_write, MPIDI_OFI_notify_emit_word).  Received:
 * MPIDI_OFI_notify_cq_data, called by the CQ handler (ofi_progress.h) for
 * remote-write completions with CQ data; it decodes the word
 * (ofi_notify_word.h) and hands the notification to
 * MPIR_Notify_arrive_in_order (src/mpi/notify/notify_order.c).
 *
 * Also the eager path's write carrier (ch4_notify_eager.h): where the
 * provider acknowledges every write asked for transmit or delivery
 * completion (tcp), an eager put is one write asked for inject completion
 * only, which is not acknowledged (but for large ones, which go faster
 * acknowledged), whose word carries the eager path's answer as well; the
 * flush waits for that answer, as for the other carriers.  The data lands
 * in the window (no copy at the target, no receive to post again), in
 * order with the window's other writes (FI_ORDER_WAW).  Sent: write_send;
 * received: write_arrived, which hands it to
 * MPIDI_Notify_eager_deliver_compact.
 */

#include "mpidimpl.h"
#include "ofi_rma.h"
#include "ofi_notify_impl.h"
#include "ch4_notify_eager.h"
#include <netinet/in.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS
      category    : NOTIFY
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_MPIDEV_DETAIL
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        For testing: N > 0 sends, before every N-th notified put on the
        libfabric path, a stray remote-CQ-data word that names no process
        of the window, as a corrupt or late word would.  Targets must count
        and drop it and handle the rest of its completion batch.

    - name        : MPIR_CVAR_NOTIFY_OFI_FULL_EVERY
      category    : NOTIFY
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_MPIDEV_DETAIL
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        For testing: N > 0 makes every N-th notification word on the
        libfabric path meet a full provider once (-FI_EAGAIN): the send
        then runs a round of progress, as MPICH's retry does, before it
        goes out.  Notifications must still arrive whole and in order.

    - name        : MPIR_CVAR_NOTIFY_OFI_RANK_BITS
      category    : NOTIFY
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_MPIDEV_DETAIL
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        For testing: N in 1..19 widens the origin-rank field of every
        window's remote-CQ-data words to N bits where the window needs fewer
        (0: the fewest that hold the window's size), so that notified puts
        from 2^(30 - N) - 1 bytes up send their length in length words.  The
        same at every process.

    - name        : MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES
      category    : NOTIFY
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        How the libfabric path's eager puts travel: 1 as writes that the
        provider does not acknowledge, the flush waiting for the eager
        path's own answer (needs FI_ORDER_WAW); 0 as tagged messages
        (MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS) or active messages; -1 writes on
        tcp, where the tagged message costs a copy at the target
        (doc/benchmarks.md), else 0 (sockets acknowledges every write).

    - name        : MPIR_CVAR_NOTIFY_OFI_EAGER_WRITE_ACK_MIN
      category    : NOTIFY
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        The smallest eager put sent as a write (MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES)
        that asks the provider for transmit completion, which tcp
        acknowledges; smaller ones ask for inject completion only.  -1: 640
        KiB to a target on this host (the same IP address: the loopback
        device), none to other hosts: over loopback tcp moves large
        writes faster acknowledged, across two hosts unacknowledged
        (doc/benchmarks.md).  0 or more: that size and more, to every
        target (a size above the largest eager write: none).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

_Static_assert(MPIR_NOTIFY_TAG_BITS == MPIDI_OFI_NW_TAG_BITS, "tag field of the CQ data word");
_Static_assert(MPIR_NOTIFY_COUNTER == MPIDI_OFI_NW_COUNTER, "counter mark of the CQ data word");

/* the write carrier's word for hdr to target, if it fits and may go now */
static bool write_word(MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                       MPI_Aint bytes, uint64_t * word)
{
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    MPIDI_OFI_ew_t h = {
        .ask = (hdr->kind & MPIDI_NOTIFY_EAGER_ASK) != 0,
        .slot = nw ? nw->slot : -1,
        .rank = hdr->src,
        .tag = hdr->tag,
        .bytes = (uint64_t) bytes,
        .ack = hdr->ack,
    };
    /* The word omits the issue order, so the write must keep it: only
     * writes the provider orders, and none while notifications to target
     * wait in its queue (ofi_notify_order.c: a get's, an accumulate's), as
     * put_data's carry */
    return nw && nw->waw_ordered && !nw->qhead[target] &&
        MPIDI_OFI_ew_encode(MPIDI_OFI_notify_rank_bits(win), &h, word);
}

static bool write_fits(MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                       MPI_Aint bytes)
{
    uint64_t word;
    return write_word(win, target, hdr, bytes, &word);
}

/* One RMA write of len bytes (len may be 0) into the target's window with
 * data as its remote CQ data where flags ask for it; context NULL: no
 * completion entry (FI_COMPLETION in flags asks for one).  The caller has
 * counted the write in the window's issued counter. */
static int write_msg(MPIR_Win * win, int target, const void *buf, size_t len, uint64_t raddr,
                     uint64_t key, uint64_t data, uint64_t flags, void *context)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    struct iovec iov = {.iov_base = (void *) buf,.iov_len = len };
    struct fi_rma_iov riov = {.addr = raddr,.len = len,.key = key };
    struct fi_msg_rma msg = {.msg_iov = &iov,.iov_count = 1,
        .addr = MPIDI_OFI_notify_dest(win, target),
        .rma_iov = &riov,.rma_iov_count = 1,.data = data,.context = context
    };
    MPIDI_OFI_CALL_RETRY(fi_writemsg(MPIDI_OFI_WIN(win).ep, &msg, flags), vni, rdma_write, FALSE);
  fn_fail:
    return mpi_errno;
}

/* Whether target has this process's IP address: it is on this host, and
 * tcp reaches it through the loopback device, whose 64 KiB segments make a
 * large write outgrow tcp's congestion window.  Asked only for writes that
 * would be acknowledged there, which cost far more than the lookup: no
 * cache. */
static bool target_on_host(MPIR_Win * win, int target)
{
    struct sockaddr_storage me, it;
    size_t len = sizeof(it);

    memset(&me, 0, sizeof(me));
    memcpy(&me, MPIDI_OFI_global.addrname[0], MPL_MIN(sizeof(me), MPIDI_OFI_global.addrnamelen));
    if (fi_av_lookup(MPIDI_OFI_global.ctx[0].av, MPIDI_OFI_notify_dest(win, target), &it, &len)
        || me.ss_family != it.ss_family)
        return false;
    if (me.ss_family == AF_INET)
        return ((struct sockaddr_in *) &me)->sin_addr.s_addr ==
            ((struct sockaddr_in *) &it)->sin_addr.s_addr;
    if (me.ss_family == AF_INET6)
        return !memcmp(&((struct sockaddr_in6 *) &me)->sin6_addr,
                       &((struct sockaddr_in6 *) &it)->sin6_addr, sizeof(struct in6_addr));
    return false;
}

/* whether an eager write of bytes to target asks for the provider's
 * acknowledgement (MPIR_CVAR_NOTIFY_OFI_EAGER_WRITE_ACK_MIN) */
static bool write_acked(MPIR_Win * win, int target, MPI_Aint bytes)
{
    int min = MPIR_CVAR_NOTIFY_OFI_EAGER_WRITE_ACK_MIN;
    if (min >= 0)
        return bytes >= min;
    return bytes >= 655360 && target_on_host(win, target);
}

static int write_send(MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                      bool compact, const void *data, MPI_Aint bytes, MPIR_Request * sreq)
{
    uint64_t word = 0;
    bool fits = compact && write_word(win, target, hdr, bytes, &word);  /* as write_fits said */
    MPIR_Assert(fits);
    (void) fits;

    MPIDI_OFI_target_mr_t mr;
    MPIDI_OFI_prepare_target_mr(target, hdr->disp, bytes, hdr->lb, win, MPIDI_WIN(win, winattr),
                                &mr);
    /* Inject completion only: asked for more, tcp acknowledges the write
     * before the target reports it, on the reply's path; the eager path's
     * answer says the put is done at the target.  But a large write to a
     * target on this host goes faster acknowledged: over loopback, without
     * the acknowledgements, tcp's congestion window stays below such a
     * write, and each write waits a round trip for the rest (write_acked).
     * Without sreq (no MPI_Rput_notify) the write reports no completion
     * (MPICH binds its CQ with FI_SELECTIVE_COMPLETION): the window's
     * counter, which counts it either way, is what flush_local waits for. */
    uint64_t flags = FI_REMOTE_CQ_DATA | (sreq ? FI_COMPLETION : 0) |
        (write_acked(win, target, bytes) ? FI_TRANSMIT_COMPLETE : FI_INJECT_COMPLETE);
    if ((size_t) bytes <= MPIDI_OFI_global.max_buffered_write)
        flags |= FI_INJECT;
    if (sreq)
        MPIDI_OFI_REQUEST(sreq, event_id) = MPIDI_OFI_EVENT_NOTIFY;
    if (flags & FI_INJECT)      /* locally complete on return (flush_local) */
        MPIDI_OFI_win_cntr_incr_inject(win);
    else
        MPIDI_OFI_win_cntr_incr(win);
    return write_msg(win, target, data, (size_t) bytes, mr.addr + hdr->lb, mr.mr_key, word, flags,
                     sreq ? &MPIDI_OFI_REQUEST(sreq, context) : NULL);
}

static MPIDI_Notify_eager_carrier_t write_carrier = {
    .send = write_send,
    .fits = write_fits,
    /* the word's byte count at rank width 1; write_fits refuses what a
     * window's width leaves no room for */
    .compact_max = (1 << (MPIDI_OFI_EW_LOW_BITS - MPIDI_OFI_EW_ACK_BITS - 1)) - 1,
    .inject_max = MPIR_AINT_MAX,        /* no request: the counter (write_send) */
    .writes = true,
};

static bool writes_on;

bool MPIDI_OFI_notify_writes_on(void)
{
    return writes_on;
}

/* once, at the first window of the path: whether eager puts are writes */
bool MPIDI_OFI_notify_writes_init(void)
{
    static bool done;
    if (done)
        return writes_on;
    done = true;

    const char *prov = MPIDI_OFI_global.prov_use[0]->fabric_attr->prov_name;
    int want = MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES;
    if (want < 0)
        want = strncmp(prov, "tcp", 3) == 0;
    /* the word omits the issue order: only writes the provider orders */
    writes_on = want > 0 && MPIDI_Notify_eager_msg_max() > 0 &&
        MPIR_CVAR_NOTIFY_OFI_ORDERING != MPIR_CVAR_NOTIFY_OFI_ORDERING_completion &&
        (MPIDI_OFI_global.prov_use[0]->tx_attr->msg_order & FI_ORDER_WAW);
    if (writes_on)
        MPIDI_Notify_eager_set_carrier(&write_carrier);
    return writes_on;
}

/* a write carrier's put: the data is in place, the word says the rest */
static int write_arrived(MPIR_Win * win, const MPIDI_OFI_ew_t * h)
{
    MPIDI_Notify_eager_hdr_t hdr = {
        .win_id = MPIDIG_WIN(win, win_id),
        .src = h->rank,
        .tag = h->tag,
        .ack = h->ack,
        .kind = MPIDI_NOTIFY_EAGER_PLACED | MPIDI_NOTIFY_EAGER_ACK_DELTA |
            (h->ask ? MPIDI_NOTIFY_EAGER_ASK : 0),
    };
    return MPIDI_Notify_eager_deliver_compact(&hdr, NULL, (MPI_Aint) h->bytes,
                                              MPIR_NOTIFY_PATH_EAGER_WRITE);
}

int MPIDI_OFI_notify_cq_data(uint64_t data)
{
    int mpi_errno = MPI_SUCCESS;
    int slot = MPIDI_OFI_nw_slot(data);
    MPIDI_OFI_notify_global_t *g = &MPIDI_OFI_global.notify;
    MPIR_Win *win = g->slots[slot];
    int r = win ? MPIDI_OFI_notify_rank_bits(win) : MPIDI_OFI_NW_RANK_BITS;
    MPIDI_OFI_ew_t ew;
    bool is_ew = MPIDI_OFI_ew_is(data);
    if (is_ew)
        MPIDI_OFI_ew_decode(r, data, &ew);
    int src = is_ew ? ew.rank : MPIDI_OFI_nw_rank(data, r);

    if (unlikely(win == NULL || src >= win->comm_ptr->local_size)) {
        /* A word for no window of ours (corrupt, or late for a freed
         * window): dropped and counted, so that the rest of the completion
         * batch, MPICH's own entries among them, is still handled. */
        g->dropped++;
        /* the 1st, 2nd, 4th, 8th ... */
        if (MPIR_CVAR_NOTIFY_VERBOSE && (g->dropped & (g->dropped - 1)) == 0)
            fprintf(stderr, "notify: dropped remote CQ data %#llx (window slot %d, "
                    "origin %d: no such window here); %lu dropped so far\n",
                    (unsigned long long) data, slot, src, g->dropped);
        goto fn_exit;
    }
    if (is_ew)
        return write_arrived(win, &ew);
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;

    if (MPIDI_OFI_nw_is_len(data)) {
        MPIDI_OFI_nw_add_len(data, &nw->len_in[src]);
        goto fn_exit;
    }
    MPI_Aint bytes = (MPI_Aint) MPIDI_OFI_nw_bytes(data, r, &nw->len_in[src]);
    mpi_errno = MPIR_Notify_arrive_in_order(win, MPIR_NOTIFY_PATH_CQ_DATA, src,
                                            MPIDI_OFI_nw_tag(data), bytes);
    if (!mpi_errno)
        mpi_errno = MPIDI_Notify_eager_netmod_put(win, src, bytes);

  fn_exit:
    return mpi_errno;
}

fi_addr_t MPIDI_OFI_notify_dest(MPIR_Win * win, int target)
{
    int vni = MPIDI_OFI_WIN(win).vni;
    return MPIDI_OFI_av_to_phys(MPIDIU_comm_rank_to_av(win->comm_ptr, target), 0, vni, vni);
}

/* One RMA write of len bytes (len may be 0) into the target's window, with
 * remote CQ data if flags has FI_REMOTE_CQ_DATA.  With track, *track becomes
 * a request that completes when the write is delivery-complete.  The caller
 * has counted the write in the window's issued counter (flush waits for it). */
int MPIDI_OFI_notify_write(MPIR_Win * win, int target, const void *buf, size_t len, uint64_t raddr,
                           uint64_t key, uint64_t data, uint64_t flags, MPIR_Request ** track)
{
    int mpi_errno = MPI_SUCCESS;
    void *context = NULL;

    if (track) {
        /* MPICH's chunk event completes the request (ofi_events.c); not
         * MPIDI_OFI_INIT_CHUNK_CONTEXT, which would count the write again */
        MPIDI_OFI_chunk_request *creq = MPL_malloc(sizeof(*creq), MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(!creq, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify write context");
        MPIDI_OFI_REQUEST_CREATE(*track, MPIR_REQUEST_KIND__RMA, MPIDI_OFI_WIN(win).vni);
        MPIR_cc_inc((*track)->cc_ptr);
        creq->event_id = MPIDI_OFI_EVENT_CHUNK_DONE;
        creq->parent = *track;
        context = &creq->context;
        flags |= FI_COMPLETION | FI_DELIVERY_COMPLETE;
    }
    mpi_errno = write_msg(win, target, buf, len, raddr, key, data, flags, context);
    MPIR_ERR_CHECK(mpi_errno);
    if (track)
        MPIDI_OFI_sigreq_complete(track);
  fn_fail:
    return mpi_errno;
}

/* MPIR_CVAR_NOTIFY_OFI_FULL_EVERY: what MPIDI_OFI_CALL_RETRY does when the
 * provider answers -FI_EAGAIN */
static int pretend_full(int vni)
{
    int mpi_errno = MPI_SUCCESS;
    if (++MPIDI_OFI_global.notify.nword % MPIR_CVAR_NOTIFY_OFI_FULL_EVERY == 0) {
        MPIDI_OFI_THREAD_CS_EXIT_VCI_OPTIONAL(vni);
        mpi_errno = MPIDI_OFI_retry_progress();
        MPIDI_OFI_THREAD_CS_ENTER_VCI_OPTIONAL(vni);
    }
    return mpi_errno;
}

/* A zero-byte write carrying one word; tracked under completion ordering. */
int MPIDI_OFI_notify_emit_word(MPIR_Win * win, int target, uint64_t word, MPIR_Request ** track)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    MPIDI_OFI_target_mr_t mr;

    if (unlikely(MPIR_CVAR_NOTIFY_OFI_FULL_EVERY > 0)) {
        mpi_errno = pretend_full(vni);
        MPIR_ERR_CHECK(mpi_errno);
    }

    MPIDI_OFI_prepare_target_mr(target, 0, 0, 0, win, MPIDI_WIN(win, winattr), &mr);
    if (track)
        return MPIDI_OFI_notify_write(win, target, NULL, 0, mr.addr, mr.mr_key, word,
                                      FI_REMOTE_CQ_DATA, track);
    fi_addr_t dest = MPIDI_OFI_notify_dest(win, target);
    MPIDI_OFI_CALL_RETRY(fi_inject_writedata(MPIDI_OFI_WIN(win).ep, NULL, 0, word, dest, mr.addr,
                                             mr.mr_key), vni, rdma_inject_write, FALSE);
  fn_fail:
    return mpi_errno;
}

/* MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS: a word from the all-ones origin of the
 * window's rank field, which names no process of it, so the target's
 * lookup fails */
int MPIDI_OFI_notify_maybe_stray(MPIR_Win * win, MPIDI_OFI_notify_win_t * nw, int target)
{
    uint64_t word[3];
    int r = MPIDI_OFI_notify_rank_bits(win);
    if (++MPIDI_OFI_global.notify.nput % MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS)
        return MPI_SUCCESS;
    MPIDI_OFI_nw_encode(nw->slot, r, (1 << r) - 1, 0, 0, word);
    MPIDI_OFI_notify_count_issued(win, 1);
    return MPIDI_OFI_notify_emit_word(win, target, word[0], NULL);
}

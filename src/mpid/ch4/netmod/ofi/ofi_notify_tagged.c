/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric: the tagged carrier of eager messages
 * (ch4_notify_eager.h).  The eager path's active messages cost more than a
 * tagged message of the same size on tcp;ofi_rxm (MPICH's pack copy, its
 * multi-receive buffers: doc/benchmarks.md); this carrier
 * sends header and data as one tagged message from where they lie (two
 * iovecs), into receives this process keeps posted.
 *
 * Sent: carrier_send, fi_tsendmsg with one tag bit above MPICH's protocol
 * bits, which no receive of MPICH's ignores or sets: no MPI receive matches
 * these messages, and these receives (which ignore every bit below it)
 * match nothing else.  Where the header fits the bits below that bit and
 * the remote CQ data (ofi_notify_word.h's compact header), the message is
 * the data alone, as an MPI_Send's is, so that a put of MPICH's whole
 * short-send size is still one eager message of the provider's (16 KiB on
 * tcp;ofi_rxm, whose rendezvous is much slower); otherwise the
 * header goes first in the payload.  Compact messages carry their answer
 * as an increment, which holds because tagged messages between two
 * processes keep their order (MPI's own matching needs that of the
 * provider).  Received: MPIDI_OFI_notify_tagged_event (ofi_events.c's dispatch,
 * MPIDI_OFI_EVENT_NOTIFY) hands the message to MPIDI_Notify_eager_deliver;
 * the buffer is posted again one round of progress later (repost), unless
 * fewer than half the receives would stay posted.  The receives are posted
 * (arm) when the first eager put arrives, so a process that never receives
 * one posts nothing; until a target says it is armed, origins use active
 * messages.
 */

#include "mpidimpl.h"
#include "ofi_notify_impl.h"
#include "ch4_notify_eager.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS
      category    : NOTIFY
      type        : int
      default     : 8
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        The receives a process keeps posted for the tagged carrier of the
        libfabric path's eager messages (each holds the largest eager put);
        0 keeps eager messages on MPICH's active messages.  More messages
        than receives wait in the provider's unexpected queue, which is
        correct but costs a copy.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

typedef struct {
    char pad[MPIDI_REQUEST_HDR_SIZE];
    struct fi_context context[MPIDI_OFI_CONTEXT_STRUCTS];       /* as MPICH's requests: */
    int event_id;               /* where ofi_events.c's dispatch looks */
    char *buf;
} rx_t;

static rx_t *rx;
static size_t rx_size;
/* Receives whose message has been delivered, not yet posted again.  Posting
 * (fi_trecv) at once would put its cost between the arrival of a
 * notification and the receiver's next call, typically its reply
 * (doc/benchmarks.md); a round of progress later the process is waiting
 * anyway.  Order needs no care: the provider keeps messages it has no
 * receive for in arrival order. */
static rx_t **idle;             /* the older first */
static int nidle, nfresh, nposted;      /* nfresh: the last nidle, added since
                                         * the last repost */
static uint64_t tag_bit;
static int tag_bits;            /* the bits below tag_bit: the compact header's */
static bool compact_on;         /* the provider carries remote CQ data on sends */

static int ctx_index(void)
{
    return MPIDI_OFI_get_ctx_index(NULL, 0, 0);
}

static int post(rx_t * r)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_CALL_RETRY(fi_trecv(MPIDI_OFI_global.ctx[ctx_index()].rx, r->buf, rx_size, NULL,
                                  FI_ADDR_UNSPEC, tag_bit, tag_bit - 1, r->context), 0, trecv,
                         FALSE);
  fn_fail:
    return mpi_errno;
}

static int carrier_arm(void)
{
    int mpi_errno = MPI_SUCCESS;
    int n = MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS;

    /* Never freed: the receives stay posted until the endpoint closes in
     * MPI_Finalize, after which nothing writes into them. */
    rx = MPL_calloc(n, sizeof(*rx), MPL_MEM_BUFFER);
    idle = MPL_malloc(n * sizeof(*idle), MPL_MEM_BUFFER);
    char *bufs = MPL_malloc(n * rx_size, MPL_MEM_BUFFER);
    if (!rx || !idle || !bufs) {
        MPL_free(rx);
        MPL_free(idle);
        MPL_free(bufs);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify tagged receives");
    }
    for (int i = 0; i < n; i++) {
        rx[i].event_id = MPIDI_OFI_EVENT_NOTIFY;
        rx[i].buf = bufs + i * rx_size;
        mpi_errno = post(&rx[i]);
        MPIR_ERR_CHECK(mpi_errno);
        nposted++;
    }
  fn_fail:
    return mpi_errno;
}

/* From MPIDI_OFI_notify_progress, at the end of each round of progress
 * while receives are idle: post again those left by an earlier round (the
 * caller of this one may be about to answer what it delivered) */
int MPIDI_OFI_notify_tagged_repost(void)
{
    int mpi_errno = MPI_SUCCESS;
    int old = nidle - nfresh, done = 0;
    if (nidle == 0)
        return MPI_SUCCESS;
    while (done < old && (mpi_errno = post(idle[done])) == MPI_SUCCESS)
        done++;
    nposted += done;
    nidle -= done;
    memmove(idle, idle + done, nidle * sizeof(*idle));
    nfresh = 0;
    if (nidle == 0)
        MPIDI_OFI_global.notify.nwaiting--;
    return mpi_errno;
}

/* the compact header of hdr towards a window member; false: it does not fit.
 * Inline, so that carrier_fits, which only asks, computes no words. */
ATTRIBUTE((always_inline))
static inline bool compact_words(MPIR_Win * win,
                                 const MPIDI_Notify_eager_hdr_t * hdr,
                                 uint64_t * tag, uint64_t * data)
{
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    MPIDI_OFI_cw_t h = {
        .ready = (hdr->kind & MPIDI_NOTIFY_EAGER_READY) != 0,
        .ask = (hdr->kind & MPIDI_NOTIFY_EAGER_ASK) != 0,
        .slot = nw ? nw->slot : -1,
        .rank = hdr->src,
        .tag = hdr->tag,
        .ack = hdr->ack,
        .seq = hdr->seq,
        .disp = (uint32_t) hdr->disp,
    };
    return nw && hdr->lb == 0 && hdr->disp >= 0 && (uint64_t) hdr->disp <= UINT32_MAX &&
        MPIDI_OFI_cw_encode(tag_bits, MPIDI_OFI_notify_rank_bits(win), &h, tag, data);
}

static bool carrier_fits(MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                         MPI_Aint bytes)
{
    uint64_t tag, data;
    (void) target;
    /* a zero-byte message would be an iovec of none */
    return compact_on && bytes > 0 && (size_t) bytes <= rx_size &&
        compact_words(win, hdr, &tag, &data);
}

static int carrier_send(MPIR_Win * win, int target, const MPIDI_Notify_eager_hdr_t * hdr,
                        bool compact, const void *data, MPI_Aint bytes, MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    struct iovec iov[2] = {
        {.iov_base = (void *) hdr,.iov_len = sizeof(*hdr)},
        {.iov_base = (void *) data,.iov_len = (size_t) bytes}
    };
    struct fi_msg_tagged msg = {
        .msg_iov = iov,
        .iov_count = bytes > 0 ? 2 : 1,
        .addr = MPIDI_OFI_notify_dest(win, target),
        .tag = tag_bit,
        .context = sreq ? &MPIDI_OFI_REQUEST(sreq, context) : NULL,
    };
    /* The answer, not the provider, says the put is done at the target:
     * completion when the buffers may be reused is all a send needs.  Asked
     * for more, sockets answers every send with a message of its own, on the
     * target's critical path (doc/benchmarks.md).  Without sreq, an injected
     * message asks for none at all (MPICH binds its CQ with
     * FI_SELECTIVE_COMPLETION), as MPI_Send's fi_tinjectdata. */
    uint64_t flags = (sreq ? FI_COMPLETION : 0) | FI_INJECT_COMPLETE;

    if (compact) {
        uint64_t low = 0;
        bool fits = compact_words(win, hdr, &low, &msg.data);   /* as carrier_fits said */
        MPIR_Assert(fits);
        (void) fits;
        msg.tag |= low;
        msg.msg_iov = &iov[1];
        msg.iov_count = 1;
        flags |= FI_REMOTE_CQ_DATA;
    }
    size_t len = iov[1].iov_len + (compact ? 0 : iov[0].iov_len);
    if (len <= MPIDI_OFI_global.max_buffered_send)
        flags |= FI_INJECT;
    MPIR_Assert(sreq || (compact && (flags & FI_INJECT)));
    if (sreq)
        MPIDI_OFI_REQUEST(sreq, event_id) = MPIDI_OFI_EVENT_NOTIFY;
    MPIDI_OFI_CALL_RETRY(fi_tsendmsg(MPIDI_OFI_global.ctx[ctx_index()].tx, &msg, flags),
                         vni, tsendmsg, FALSE);
  fn_fail:
    return mpi_errno;
}

/* a compact message: its header from the tag and the CQ data */
static int compact_arrived(const struct fi_cq_tagged_entry *wc, const void *buf)
{
    int slot = MPIDI_OFI_cw_slot(tag_bits, wc->tag);
    MPIR_Win *win = MPIDI_OFI_global.notify.slots[slot];
    MPIDI_Notify_eager_hdr_t hdr = {.src = -1 };

    /* a window of ours that has the path: else dropped (win_id 0) */
    if (win && MPIDI_OFI_WIN(win).notify && (wc->flags & FI_REMOTE_CQ_DATA)) {
        MPIDI_OFI_cw_t h;
        MPIDI_OFI_cw_decode(tag_bits, MPIDI_OFI_notify_rank_bits(win), wc->tag, wc->data, &h);
        hdr.win_id = MPIDIG_WIN(win, win_id);
        hdr.disp = h.disp;
        hdr.ack = h.ack;
        hdr.src = h.rank;
        hdr.tag = h.tag;
        hdr.seq = h.seq;
        hdr.kind = MPIDI_NOTIFY_EAGER_ACK_DELTA | (h.ready ? MPIDI_NOTIFY_EAGER_READY : 0) |
            (h.ask ? MPIDI_NOTIFY_EAGER_ASK : 0);
    }
    return MPIDI_Notify_eager_deliver_compact(&hdr, buf, (MPI_Aint) wc->len,
                                              MPIR_NOTIFY_PATH_EAGER_TAGGED);
}

/* also the completions of the write carrier's writes (ofi_notify_wire.c) */
int MPIDI_OFI_notify_tagged_event(int vni, struct fi_cq_tagged_entry *wc, MPIR_Request * req)
{
    if (!(wc->flags & FI_RECV))
        return MPIDI_Notify_eager_sent(req);
    rx_t *r = (rx_t *) req;
    int mpi_errno = MPIDI_OFI_cw_is_compact(tag_bits, wc->tag) ?
        compact_arrived(wc, r->buf) :
        MPIDI_Notify_eager_deliver(r->buf, (MPI_Aint) wc->len, MPIR_NOTIFY_PATH_EAGER_TAGGED);
    int err = MPI_SUCCESS;
    if (--nposted >= MPL_MAX(MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS / 2, 1)) {
        if (nidle == 0)
            MPIDI_OFI_global.notify.nwaiting++;
        idle[nidle++] = r;
        nfresh++;
    } else if ((err = post(r)) == MPI_SUCCESS)
        nposted++;
    return mpi_errno ? mpi_errno : err;
}

static MPIDI_Notify_eager_carrier_t carrier = {
    .arm = carrier_arm,
    .send = carrier_send,
    .fits = carrier_fits,
    .compact_max = MPIDI_OFI_DEFAULT_SHORT_SEND_SIZE,
};

bool MPIDI_OFI_notify_tagged_on(void)
{
    return tag_bit != 0;
}

/* once, at the first window of the path (MPICH and the eager path are up) */
void MPIDI_OFI_notify_tagged_init(void)
{
    static bool done;
    if (done)
        return;
    done = true;

    struct fi_info *prov = MPIDI_OFI_global.prov_use[0];
    int bit = MPIDI_OFI_CONTEXT_BITS + MPIDI_OFI_SOURCE_BITS + MPIDI_OFI_TAG_BITS +
        MPIDI_OFI_PROTOCOL_BITS + 1;

    /* one endpoint (the receives are posted on vci 0's), MPICH's tagged
     * messages, two iovecs, a free tag bit */
    if (MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS <= 0 || !MPIDI_OFI_ENABLE_TAGGED ||
        MPIDI_OFI_global.num_vnis > 1 || MPIDI_OFI_global.num_nics > 1 ||
        prov->tx_attr->iov_limit < 2 || bit >= 64 || MPIDI_Notify_eager_msg_max() <= 0)
        return;
    tag_bit = 1ULL << bit;
    tag_bits = bit;
    /* the path's windows have remote CQ data (ofi_notify_win.c) */
    compact_on = prov->domain_attr->cq_data_size >= sizeof(uint64_t) &&
        tag_bits > MPIDI_OFI_CW_FIXED_BITS;
    rx_size = (size_t) MPL_MAX(MPIDI_Notify_eager_msg_max(), compact_on ? carrier.compact_max : 0);
    carrier.inject_max = compact_on ? (MPI_Aint) MPIDI_OFI_global.max_buffered_send : 0;
    MPIDI_Notify_eager_set_carrier(&carrier);
}

/*
 * Notified Access over libfabric: the tagged carrier of eager messages
 * (ch4_notify_eager.h).  The eager path's active messages cost more than a
 * tagged message of the same size on tcp;ofi_rxm (MPICH's pack copy, its
 * multi-receive buffers: doc/benchmarks.md, 2026-11-27); this carrier
 * sends header and data as one tagged message from where they lie (two
 * iovecs), into receives this process keeps posted.
 *
 * Sent: MPIDI_OFI_notify_tagged_send, fi_tsendmsg with one tag bit above
 * MPICH's protocol bits, which no receive of MPICH's ignores or sets: no
 * MPI receive matches these messages, and these receives match nothing
 * else.  Received: MPIDI_OFI_notify_tagged_event (ofi_events.c's dispatch,
 * MPIDI_OFI_EVENT_NOTIFY) hands the message to MPIDI_Notify_eager_deliver
 * and posts the buffer again.  The receives are posted (arm) when the
 * first eager put arrives, so a process that never receives one posts
 * nothing; until a target says it is armed, origins use active messages.
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
static uint64_t tag_bit;

static int ctx_index(void)
{
    return MPIDI_OFI_get_ctx_index(NULL, 0, 0);
}

static int post(rx_t * r)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_CALL_RETRY(fi_trecv(MPIDI_OFI_global.ctx[ctx_index()].rx, r->buf, rx_size, NULL,
                                  FI_ADDR_UNSPEC, tag_bit, 0, r->context), 0, trecv, FALSE);
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
    char *bufs = MPL_malloc(n * rx_size, MPL_MEM_BUFFER);
    if (!rx || !bufs) {
        MPL_free(rx);
        MPL_free(bufs);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify tagged receives");
    }
    for (int i = 0; i < n; i++) {
        rx[i].event_id = MPIDI_OFI_EVENT_NOTIFY;
        rx[i].buf = bufs + i * rx_size;
        mpi_errno = post(&rx[i]);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

static int carrier_send(MPIR_Win * win, int target, const void *hdr, size_t hdr_sz,
                        const void *data, MPI_Aint bytes, MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    struct iovec iov[2] = {
        {.iov_base = (void *) hdr,.iov_len = hdr_sz},
        {.iov_base = (void *) data,.iov_len = (size_t) bytes}
    };
    struct fi_msg_tagged msg = {
        .msg_iov = iov,
        .iov_count = bytes > 0 ? 2 : 1,
        .addr = MPIDI_OFI_notify_dest(win, target),
        .tag = tag_bit,
        .context = &MPIDI_OFI_REQUEST(sreq, context),
    };

    /* The answer, not the provider, says the put is done at the target:
     * completion when the buffers may be reused is all a send needs.  Asked
     * for more, sockets answers every send with a message of its own, on the
     * target's critical path (doc/benchmarks.md, 2026-11-28, fourth
     * session). */
    uint64_t flags = FI_COMPLETION | FI_INJECT_COMPLETE;
    if (hdr_sz + (size_t) bytes <= MPIDI_OFI_global.max_buffered_send)
        flags |= FI_INJECT;
    MPIDI_OFI_REQUEST(sreq, event_id) = MPIDI_OFI_EVENT_NOTIFY;
    MPIDI_OFI_CALL_RETRY(fi_tsendmsg(MPIDI_OFI_global.ctx[ctx_index()].tx, &msg, flags),
                         vni, tsendmsg, FALSE);
  fn_fail:
    return mpi_errno;
}

int MPIDI_OFI_notify_tagged_event(int vni, struct fi_cq_tagged_entry *wc, MPIR_Request * req)
{
    if (!(wc->flags & FI_RECV))
        return MPIDI_Notify_eager_sent(req);
    rx_t *r = (rx_t *) req;
    int mpi_errno = MPIDI_Notify_eager_deliver(r->buf, (MPI_Aint) wc->len,
                                               MPIR_NOTIFY_PATH_EAGER_TAGGED);
    int err = post(r);
    return mpi_errno ? mpi_errno : err;
}

static const MPIDI_Notify_eager_carrier_t carrier = {.arm = carrier_arm,.send = carrier_send };

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
    rx_size = (size_t) MPIDI_Notify_eager_msg_max();
    MPIDI_Notify_eager_set_carrier(&carrier);
}

/*
 * Notified Access over libfabric (ch4:ofi).
 *
 * Produced: MPIDI_OFI_notify_put/get (called from ch4_notify.c for targets
 * reached through the netmod).  Carried: 64 bits of remote CQ data on an RMA
 * write into the target's window (fi_inject_writedata, or fi_writemsg with
 * FI_REMOTE_CQ_DATA).  Decoded: MPIDI_OFI_notify_cq_data, called by the CQ
 * handler (ofi_progress.h) for remote-write completions with CQ data, then
 * matched by MPIR_Notify_arrive_in_order (src/mpi/notify/notify.c).
 *
 * Wire format of the CQ data word: ofi_notify_word.h (window slot, origin
 * rank, tag, bytes; length words for large counts).  The slot is a per-window number agreed at window creation, so the target
 * finds the window without a lookup table keyed by 64-bit window ids.
 *
 * Order (non-overtaking per origin, target and window) is chosen at window
 * creation.  Where the provider executes RMA writes in order (FI_ORDER_WAW),
 * a write's target completion is reported after every earlier write from the
 * same origin is in place ("provider" ordering).  Hence
 *   - a contiguous put is one write that carries its notification;
 *   - a non-contiguous put writes its pieces, then a zero-byte write carries
 *     the notification: it lands after every piece (datatypes of small
 *     pieces go as MPICH's AM put, notified when its request completes);
 *   - a get reads, then a zero-byte write notifies.  With FI_ORDER_WAR the
 *     write may follow the read at once; otherwise it is sent when the read
 *     has completed at the origin.  Meanwhile later notifications to the same
 *     target wait behind it in a per-target queue (their data goes at once).
 * Where it does not (the shm provider, or MPIR_CVAR_NOTIFY_OFI_ORDERING=
 * completion), "completion" ordering: every access whose notification is not
 * on its own data write is issued with FI_DELIVERY_COMPLETE and a request,
 * and a notification-carrying write goes out only when its own data and the
 * previous notification-carrying write to that target are delivery-complete,
 * one at a time per (window, target).  The target's completion queue then
 * sees them in issue order.
 * A (window, target) pair uses one path for the window's lifetime, so the
 * libfabric and generic paths never race each other.
 */

#include "mpidimpl.h"
#include "ofi_impl.h"
#include "ofi_rma.h"
#include "ofi_notify.h"
#include "ofi_notify_word.h"
#include "mpidig_notify.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_OFI_PATH
      category    : NOTIFY
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        How notified accesses reach targets through the OFI netmod.
        auto    - one RMA write with remote CQ data when the provider offers
                  RMA and 8 bytes of CQ data; otherwise the generic
                  active-message path
        native  - the remote CQ data path; where a window cannot use it,
                  notified accesses to its remote targets fail with an
                  error naming the missing capability
        generic - always the generic active-message path

    - name        : MPIR_CVAR_NOTIFY_OFI_ORDERING
      category    : NOTIFY
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        How the libfabric path keeps notifications from one origin to one
        target in issue order.
        auto       - the provider's write ordering (FI_ORDER_WAW) when it
                     has it, otherwise completion
        completion - a notification is written only after its data and the
                     previous notification to that target are delivery-
                     complete (one in flight per target)

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

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define NSLOTS       MPIDI_OFI_NW_SLOTS
#define RANK_BITS    MPIDI_OFI_NW_RANK_BITS

_Static_assert(MPIR_NOTIFY_TAG_BITS == MPIDI_OFI_NW_TAG_BITS, "tag field of the CQ data word");

/* A notification that must wait for an earlier one to the same target, or
 * (completion ordering) for its own data or previous word to be delivered. */
typedef struct pending {
    struct pending *next;       /* (window, target) queue, issue order */
    struct pending *gnext, *gprev;      /* waiting on req, all windows */
    MPIR_Win *win;
    int target;
    MPIR_Request *req;          /* write or read in flight; NULL: ready */
    int nwords, sent;
    uint64_t words[3];
} pending_t;

typedef struct MPIDI_OFI_notify_win {
    int slot;                   /* -1: path off, with the reason in gap */
    const char *gap;
    bool waw_ordered;           /* provider ordering; else completion ordering */
    bool war_ordered;           /* zero-byte write may follow a read at once */
    uint8_t *native;            /* [target] carried by this path */
    uint64_t *len_in;           /* [origin] length words received */
    pending_t **qhead, **qtail; /* [target] */
    unsigned since_wait;        /* accesses issued since the last bound() */
} MPIDI_OFI_notify_win_t;

int MPIDI_OFI_notify_waiting;
unsigned long MPIDI_OFI_notify_dropped;
static MPIR_Win *slots[NSLOTS];
/* slots chosen by a window creation that has not yet confirmed them */
static bool reserved[NSLOTS];
static pending_t *waiting_head;
static bool in_progress;

int MPIDI_OFI_notify_cq_data(uint64_t data)
{
    int mpi_errno = MPI_SUCCESS;
    int slot = MPIDI_OFI_nw_slot(data);
    int src = MPIDI_OFI_nw_rank(data);
    MPIR_Win *win = slots[slot];

    if (unlikely(win == NULL || src >= win->comm_ptr->local_size)) {
        /* A word for no window of ours (corrupt, or late for a freed
         * window): dropped and counted, so that the rest of the completion
         * batch, MPICH's own entries among them, is still handled. */
        MPIDI_OFI_notify_dropped++;
        /* the 1st, 2nd, 4th, 8th ... */
        if (MPIR_CVAR_NOTIFY_VERBOSE &&
            (MPIDI_OFI_notify_dropped & (MPIDI_OFI_notify_dropped - 1)) == 0)
            fprintf(stderr, "notify: dropped remote CQ data %#llx (window slot %d, "
                    "origin %d: no such window here); %lu dropped so far\n",
                    (unsigned long long) data, slot, src,
                    MPIDI_OFI_notify_dropped);
        goto fn_exit;
    }
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;

    if (MPIDI_OFI_nw_is_len(data)) {
        MPIDI_OFI_nw_add_len(data, &nw->len_in[src]);
        goto fn_exit;
    }
    MPI_Aint bytes = (MPI_Aint) MPIDI_OFI_nw_bytes(data, &nw->len_in[src]);
    mpi_errno = MPIR_Notify_arrive_in_order(win, src, MPIDI_OFI_nw_tag(data), bytes);

  fn_exit:
    return mpi_errno;
}

/* ------------------------------------------------------------- sending */

static fi_addr_t dest_of(MPIR_Win * win, int target)
{
    int vni = MPIDI_OFI_WIN(win).vni;
    return MPIDI_OFI_av_to_phys(MPIDIU_comm_rank_to_av(win->comm_ptr, target), 0, vni, vni);
}

/* One RMA write of len bytes (len may be 0) into the target's window, with
 * remote CQ data if flags has FI_REMOTE_CQ_DATA.  With track, *track becomes
 * a request that completes when the write is delivery-complete.  The caller
 * has counted the write in the window's issued counter (flush waits for it). */
static int write_rma(MPIR_Win * win, int target, const void *buf, size_t len, uint64_t raddr,
                     uint64_t key, uint64_t data, uint64_t flags, MPIR_Request ** track)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    struct iovec iov = {.iov_base = (void *) buf,.iov_len = len };
    struct fi_rma_iov riov = {.addr = raddr,.len = len,.key = key };
    struct fi_msg_rma msg = {.msg_iov = &iov,.iov_count = 1,.addr = dest_of(win, target),
        .rma_iov = &riov,.rma_iov_count = 1,.data = data
    };

    if (track) {
        /* MPICH's chunk event completes the request (ofi_events.c); not
         * MPIDI_OFI_INIT_CHUNK_CONTEXT, which would count the write again */
        MPIDI_OFI_chunk_request *creq = MPL_malloc(sizeof(*creq), MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(!creq, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify write context");
        MPIDI_OFI_REQUEST_CREATE(*track, MPIR_REQUEST_KIND__RMA, vni);
        MPIR_cc_inc((*track)->cc_ptr);
        creq->event_id = MPIDI_OFI_EVENT_CHUNK_DONE;
        creq->parent = *track;
        msg.context = &creq->context;
        flags |= FI_COMPLETION | FI_DELIVERY_COMPLETE;
    }
    MPIDI_OFI_CALL_RETRY(fi_writemsg(MPIDI_OFI_WIN(win).ep, &msg, flags), vni, rdma_write, FALSE);
    if (track)
        MPIDI_OFI_sigreq_complete(track);
  fn_fail:
    return mpi_errno;
}

/* A zero-byte write carrying one word; tracked under completion ordering. */
static int emit_word(MPIR_Win * win, int target, uint64_t word, MPIR_Request ** track)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    MPIDI_OFI_target_mr_t mr;

    MPIDI_OFI_prepare_target_mr(target, 0, 0, 0, win, MPIDI_WIN(win, winattr), &mr);
    if (track)
        return write_rma(win, target, NULL, 0, mr.addr, mr.mr_key, word, FI_REMOTE_CQ_DATA,
                         track);
    MPIDI_OFI_CALL_RETRY(fi_inject_writedata(MPIDI_OFI_WIN(win).ep, NULL, 0, word,
                                             dest_of(win, target), mr.addr, mr.mr_key),
                         vni, rdma_inject_write, FALSE);
  fn_fail:
    return mpi_errno;
}

static void count_issued(MPIR_Win * win, int n)
{
    while (n-- > 0)
        MPIDI_OFI_win_cntr_incr(win);
}

/* e waits for req (a write or read in flight) before its next step. */
static void wait_on(pending_t * e, MPIR_Request * req)
{
    e->req = req;
    e->gprev = NULL;
    e->gnext = waiting_head;
    if (waiting_head)
        waiting_head->gprev = e;
    waiting_head = e;
    MPIDI_OFI_notify_waiting++;
}

/* Send what the head of the (win, target) queue allows: every ready entry's
 * words under provider ordering; under completion ordering one word at a
 * time, each after the previous one is delivered. */
static int drain(MPIR_Win * win, int target)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    pending_t *e;

    while ((e = nw->qhead[target]) && e->req == NULL) {
        if (e->sent < e->nwords && !nw->waw_ordered) {
            MPIR_Request *req = NULL;
            mpi_errno = emit_word(win, target, e->words[e->sent++], &req);
            MPIR_ERR_CHECK(mpi_errno);
            wait_on(e, req);
            break;
        }
        /* unlink first: emit_word may re-enter progress on EAGAIN */
        nw->qhead[target] = e->next;
        if (!e->next)
            nw->qtail[target] = NULL;
        while (e->sent < e->nwords && mpi_errno == MPI_SUCCESS)
            mpi_errno = emit_word(win, target, e->words[e->sent++], NULL);
        MPL_free(e);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* Notify after req (the access's data in flight; NULL: complete) and after
 * every earlier notification to the same target.  nwords == 0: nothing to
 * send, only later notifications wait for req (completion ordering). */
static int notify_after(MPIR_Win * win, int target, const uint64_t * words, int nwords,
                        MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;

    count_issued(win, nwords);
    if (!req && !nw->qhead[target] && nw->waw_ordered) {
        for (int i = 0; i < nwords && mpi_errno == MPI_SUCCESS; i++)
            mpi_errno = emit_word(win, target, words[i], NULL);
        return mpi_errno;
    }

    pending_t *e = MPL_malloc(sizeof(*e), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notification queue entry");
    e->next = NULL;
    e->win = win;
    e->target = target;
    e->req = NULL;
    e->nwords = nwords;
    e->sent = 0;
    memcpy(e->words, words, nwords * sizeof(uint64_t));
    if (nw->qtail[target])
        nw->qtail[target]->next = e;
    else
        nw->qhead[target] = e;
    nw->qtail[target] = e;
    if (req)
        wait_on(e, req);
    else
        mpi_errno = drain(win, target);
  fn_fail:
    return mpi_errno;
}

int MPIDI_OFI_notify_progress(void)
{
    int mpi_errno = MPI_SUCCESS;
    pending_t *e, *next;

    if (in_progress)
        return MPI_SUCCESS;
    in_progress = true;
    for (e = waiting_head; e; e = next) {
        next = e->gnext;
        if (!MPIR_Request_is_complete(e->req))
            continue;
        MPIR_Request_free(e->req);
        e->req = NULL;
        if (e->gprev)
            e->gprev->gnext = e->gnext;
        else
            waiting_head = e->gnext;
        if (e->gnext)
            e->gnext->gprev = e->gprev;
        MPIDI_OFI_notify_waiting--;
        /* drain frees only entries that wait for nothing, never one still on
         * this list; an entry it makes wait again goes before next */
        mpi_errno = drain(e->win, e->target);
        if (mpi_errno)
            break;
    }
    in_progress = false;
    return mpi_errno;
}

/* The contiguous pieces of (buf, count, datatype), a few at a time.  By byte
 * offset: MPIR_Typerep_to_iov_offset (and so MPIDI_OFI_nopack_putget) loops
 * for ever in 4.0.2 once a datatype has more pieces than one batch. */
#define WALK_BATCH 64
typedef struct {
    const void *buf;
    MPI_Aint count, off, total;
    MPI_Datatype dt;
    struct iovec iov[WALK_BATCH];
    int n, i;
} iov_walk_t;

/* the next non-empty piece; NULL if the datatype has no more (check_access
 * keeps both sides at least as long as the access, so only a datatype
 * engine failure gets there) */
static struct iovec *walk_next(iov_walk_t * w)
{
    while (w->i == w->n || w->iov[w->i].iov_len == 0) {
        if (w->i < w->n) {
            w->i++;
            continue;
        }
        MPI_Aint n, bytes;
        MPIR_Typerep_to_iov(w->buf, w->count, w->dt, w->off, w->iov, WALK_BATCH,
                            w->total - w->off, &n, &bytes);
        if (n <= 0 || bytes <= 0)
            return NULL;
        w->off += bytes;
        w->n = (int) n;
        w->i = 0;
    }
    return &w->iov[w->i];
}

/* A non-contiguous put as plain writes, one per pair of pieces. */
static int put_pieces(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_count, MPI_Datatype target_datatype, MPI_Aint bytes,
                      MPIDI_OFI_target_mr_t mr, MPIR_Win * win, int target)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_OFI_WIN(win).vni;
    iov_walk_t o = {.buf = origin_addr,.count = origin_count,.dt = origin_datatype,
        .total = bytes
    };
    iov_walk_t t = {.buf = (const void *) (uintptr_t) mr.addr,.count = target_count,
        .dt = target_datatype,.total = bytes
    };

    for (MPI_Aint done = 0; done < bytes;) {
        struct iovec *a = walk_next(&o), *b = walk_next(&t);
        MPIR_ERR_CHKANDJUMP1(!a || !b, mpi_errno, MPI_ERR_INTERN, "**intern", "**intern %s",
                             "notified put: datatype shorter than its size");
        size_t len = MPL_MIN(a->iov_len, b->iov_len);
        uint64_t raddr = (uintptr_t) b->iov_base;

        MPIDI_OFI_win_cntr_incr(win);
        if (len <= MPIDI_OFI_global.max_buffered_write) {
            MPIDI_OFI_CALL_RETRY(fi_inject_write(MPIDI_OFI_WIN(win).ep, a->iov_base, len,
                                                 dest_of(win, target), raddr, mr.mr_key),
                                 vni, rdma_inject_write, FALSE);
        } else {
            mpi_errno = write_rma(win, target, a->iov_base, len, raddr, mr.mr_key, 0,
                                  FI_DELIVERY_COMPLETE, NULL);
            MPIR_ERR_CHECK(mpi_errno);
        }
        a->iov_base = (char *) a->iov_base + len;
        a->iov_len -= len;
        b->iov_base = (char *) b->iov_base + len;
        b->iov_len -= len;
        done += len;
    }
  fn_fail:
    return mpi_errno;
}

/* This window's state if the access to target goes this way, else NULL.  With
 * the path forced on a window that cannot use it (nw->gap), an access that
 * would otherwise cross the netmod generically is an error. */
static int native_state(MPIR_Win * win, int target, MPIDI_OFI_notify_win_t ** out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;

    *out = NULL;
    if (!nw || target < 0 || target >= win->comm_ptr->local_size)
        return MPI_SUCCESS;
    if (nw->gap) {
        bool remote = (target != win->comm_ptr->rank);
#ifndef MPIDI_CH4_DIRECT_NETMOD
        remote = remote && !MPIDI_rank_is_local(target, win->comm_ptr);
#endif
        if (remote)
            MPIR_ERR_SET1(mpi_errno, MPI_ERR_OTHER, "**notifyofinative", "**notifyofinative %s",
                          nw->gap);
        return mpi_errno;
    }
    if (nw->native[target])
        *out = nw;
    return MPI_SUCCESS;
}

/* At most BOUND_EVERY notified accesses of a window in flight, then the
 * origin waits for the window's writes and reads to complete, as a flush
 * would.  libfabric 1.17's sockets provider crashed (SIGSEGV at the origin)
 * with a few thousand small writes with remote CQ data outstanding; MPI_Put
 * floods of the same sizes were fine.  One wait per 1024 costs a flood about
 * one round trip in 1024. */
#define BOUND_EVERY 1024
static int bound(MPIR_Win * win, MPIDI_OFI_notify_win_t * nw)
{
    if (++nw->since_wait < BOUND_EVERY)
        return MPI_SUCCESS;
    nw->since_wait = 0;
    return MPIDI_OFI_win_do_progress(win, MPIDI_OFI_WIN(win).vni);
}

/* MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS: a word from origin 2^20 - 1, which no
 * window of fewer processes has, so the target's lookup fails */
static int maybe_stray(MPIR_Win * win, MPIDI_OFI_notify_win_t * nw, int target)
{
    static unsigned long nput;
    if (++nput % MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS ||
        win->comm_ptr->local_size >= (1 << RANK_BITS))
        return MPI_SUCCESS;
    count_issued(win, 1);
    return emit_word(win, target, MPIDI_OFI_nw_head(nw->slot, (1 << RANK_BITS) - 1), NULL);
}

int MPIDI_OFI_notify_put(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPIR_Win * win,
                         int tag)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw;
    int origin_contig, target_contig;
    MPI_Aint origin_bytes, target_bytes, target_extent, origin_true_lb, target_true_lb;
    uint64_t words[3];
    MPIR_Request *req = NULL;

    mpi_errno = native_state(win, target_rank, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw)
        return MPIDIG_mpi_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                     target_disp, target_count, target_datatype, win, tag);

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    if (unlikely(MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS > 0)) {
        mpi_errno = maybe_stray(win, nw, target_rank);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPIDI_Datatype_check_contig_size_lb(origin_datatype, origin_count, origin_contig,
                                        origin_bytes, origin_true_lb);
    MPIDI_Datatype_check_contig_size_extent_lb(target_datatype, target_count, target_contig,
                                               target_bytes, target_extent, target_true_lb);
    /* what is written: the origin's bytes (check_access made sure they fit) */
    MPI_Aint bytes = origin_bytes;
    (void) target_bytes;
    int nwords = MPIDI_OFI_nw_encode(nw->slot, win->comm_ptr->rank, tag, (uint64_t) bytes, words);

    MPIDI_OFI_target_mr_t mr;
    MPIDI_OFI_prepare_target_mr(target_rank, target_disp, target_extent, target_true_lb,
                                win, MPIDI_WIN(win, winattr), &mr);
    int vni = MPIDI_OFI_WIN(win).vni;
    fi_addr_t dest = dest_of(win, target_rank);
    const void *buf = MPIR_get_contig_ptr(origin_addr, origin_true_lb);
    uint64_t raddr = mr.addr + target_true_lb;
    bool contig = origin_contig && target_contig;
    bool waw = nw->waw_ordered;
    /* The notification rides on the data write unless it must wait: behind
     * earlier ones to this target, or (completion ordering) for a length
     * word to be delivered first. */
    bool carry = contig && !nw->qhead[target_rank] && (waw || nwords == 1);

    if (carry && waw) {
        count_issued(win, nwords - 1);
        for (int i = 0; i < nwords - 1; i++) {
            mpi_errno = emit_word(win, target_rank, words[i], NULL);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    if (contig && (bytes > 0 || carry)) {
        uint64_t data = carry ? words[nwords - 1] : 0;
        uint64_t flags = carry ? FI_REMOTE_CQ_DATA : 0;

        MPIDI_OFI_win_cntr_incr(win);
        if (!waw) {
            /* later notifications to this target wait for this write */
            mpi_errno = write_rma(win, target_rank, buf, bytes, raddr, mr.mr_key, data,
                                  flags, &req);
        } else if (bytes <= MPIDI_OFI_global.max_buffered_write) {
            if (carry)
                MPIDI_OFI_CALL_RETRY(fi_inject_writedata(MPIDI_OFI_WIN(win).ep, buf,
                                                         bytes, data, dest, raddr,
                                                         mr.mr_key),
                                     vni, rdma_inject_write, FALSE);
            else
                MPIDI_OFI_CALL_RETRY(fi_inject_write(MPIDI_OFI_WIN(win).ep, buf, bytes,
                                                     dest, raddr, mr.mr_key),
                                     vni, rdma_inject_write, FALSE);
        } else {
            mpi_errno = write_rma(win, target_rank, buf, bytes, raddr, mr.mr_key, data,
                                  FI_DELIVERY_COMPLETE | flags, NULL);
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
        } else {
            /* small pieces (a write each would be slow, and the sockets
             * provider crashes under tens of thousands of them), or pieces
             * the provider does not order: MPICH's active-message put, whose
             * request completes when the target has the data; the
             * notification is sent after that, in order */
            mpi_errno = MPIDIG_mpi_rput(origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype, win, &req);
        }
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = notify_after(win, target_rank, words, carry ? 0 : nwords, req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = bound(win, nw);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_OFI_notify_get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPIR_Win * win, int tag)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw;
    int origin_contig, target_contig;
    MPI_Aint origin_true_lb, target_bytes, target_extent, target_true_lb;
    uint64_t words[3];
    MPIR_Request *req = NULL;

    mpi_errno = native_state(win, target_rank, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw)
        return MPIDIG_mpi_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                     target_disp, target_count, target_datatype, win, tag);

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    MPIDI_Datatype_check_contig_lb(origin_datatype, origin_contig, origin_true_lb);
    MPIDI_Datatype_check_contig_size_extent_lb(target_datatype, target_count, target_contig,
                                               target_bytes, target_extent, target_true_lb);
    (void) origin_true_lb;
    (void) target_extent;
    (void) target_true_lb;
    int nwords = MPIDI_OFI_nw_encode(nw->slot, win->comm_ptr->rank, tag, (uint64_t) target_bytes,
                                     words);
    MPIDI_av_entry_t *av = MPIDIU_comm_rank_to_av(win->comm_ptr, target_rank);

    if (target_bytes > 0) {
        /* MPIDI_OFI_do_get reads contiguous data with one fi_readmsg, which
         * FI_ORDER_WAR keeps ahead of the notification; anything else is
         * notified once its request says the data is here. */
        bool ordered = nw->waw_ordered && nw->war_ordered && origin_contig && target_contig &&
            !nw->qhead[target_rank] &&
            (size_t) target_bytes <= MPIDI_OFI_global.prov_use[0]->ep_attr->max_order_war_size;
        MPI_Aint origin_density, target_density;
        MPIR_Datatype_get_density(origin_datatype, origin_density);
        MPIR_Datatype_get_density(target_datatype, target_density);
        if (!(origin_contig && target_contig) &&
            (origin_density < MPIR_CVAR_CH4_IOV_DENSITY_MIN ||
             target_density < MPIR_CVAR_CH4_IOV_DENSITY_MIN)) {
            /* MPIDI_OFI_do_get would pack these (MPICH 4.0.2 then neither
             * creates the request nor may keep a pointer to ours: the
             * pieces are issued later from progress), or fall back to the
             * active-message get anyway: take that get directly. */
            mpi_errno = MPIDIG_mpi_rget(origin_addr, origin_count, origin_datatype, target_rank,
                                        target_disp, target_count, target_datatype, win, &req);
        } else {
            mpi_errno = MPIDI_OFI_do_get(origin_addr, origin_count, origin_datatype,
                                         target_rank, target_disp, target_count,
                                         target_datatype, win, av, MPIDI_WIN(win, winattr),
                                         ordered ? NULL : &req);
        }
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = notify_after(win, target_rank, words, nwords, req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = bound(win, nw);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ------------------------------------------------------------- windows */

/* Why a member cannot use the path.  Members exchange the code, so every
 * member decides the same, whatever it sees locally. */
enum gap {
    GAP_NONE, GAP_FORCED, GAP_NO_RMA, GAP_DYNAMIC, GAP_UNREGISTERED, GAP_OWN_EP, GAP_TOO_MANY,
    GAP_PROV_RMA, GAP_PROV_CQ_DATA, GAP_PROV_RX_CQ_DATA, GAP_PROV_SHM, GAP_NO_SLOT
};

static const char *const gap_text[] = {
    [GAP_NONE] = NULL,
    [GAP_FORCED] = "generic path forced",
    [GAP_NO_RMA] = "RMA is disabled in the OFI netmod",
    [GAP_DYNAMIC] = "dynamic window (memory registered per attach)",
    [GAP_UNREGISTERED] = "window memory is not registered with the provider",
    [GAP_OWN_EP] = "the window has its own endpoint, opened without write ordering",
    [GAP_TOO_MANY] = "more than 2^20 processes",
    [GAP_PROV_RMA] = "the provider has no FI_RMA",
    [GAP_PROV_CQ_DATA] = "the provider's cq_data_size is below 8 bytes",
    [GAP_PROV_RX_CQ_DATA] = "remote CQ data would consume posted receive buffers (FI_RX_CQ_DATA)",
    /* Seen with libfabric 1.17: shm answers -FI_EAGAIN to every operation
     * to a peer while a large send to it waits for its receive, so a
     * notification sent after its access completes (gets, small-piece puts)
     * can wait for a receive that waits for it.  No attribute says so. */
    [GAP_PROV_SHM] = "the shm provider holds every write to a peer behind an unmatched large send",
    [GAP_NO_SLOT] = "all 256 window slots are in use",
};

static enum gap provider_gap(void)
{
    struct fi_info *prov = MPIDI_OFI_global.prov_use[0];
    if (!(prov->caps & FI_RMA))
        return GAP_PROV_RMA;
    if (prov->domain_attr->cq_data_size < sizeof(uint64_t))
        return GAP_PROV_CQ_DATA;
    if (prov->mode & FI_RX_CQ_DATA)
        return GAP_PROV_RX_CQ_DATA;
    if (strcmp(prov->fabric_attr->prov_name, "shm") == 0)
        return GAP_PROV_SHM;
    return GAP_NONE;
}

/* Provider ordering needs FI_ORDER_WAW at every member; see the top. */
static bool provider_orders_writes(void)
{
    return MPIR_CVAR_NOTIFY_OFI_ORDERING != MPIR_CVAR_NOTIFY_OFI_ORDERING_completion &&
        (MPIDI_OFI_global.prov_use[0]->tx_attr->msg_order & FI_ORDER_WAW);
}

/* What this member sees of the window and its provider. */
static enum gap local_gap(MPIR_Win * win)
{
    int ctx_idx = MPIDI_OFI_get_ctx_index(NULL, MPIDI_OFI_WIN(win).vni, 0);
    if (MPIR_CVAR_NOTIFY_FORCE_GENERIC || MPIR_CVAR_NOTIFY_OFI_PATH ==
        MPIR_CVAR_NOTIFY_OFI_PATH_generic)
        return GAP_FORCED;
    if (!MPIDI_OFI_ENABLE_RMA)
        return GAP_NO_RMA;
    if (win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return GAP_DYNAMIC;
    if (!(MPIDI_WIN(win, winattr) & MPIDI_WINATTR_NM_REACHABLE))
        return GAP_UNREGISTERED;
    if (MPIDI_OFI_WIN(win).ep != MPIDI_OFI_global.ctx[ctx_idx].tx)
        return GAP_OWN_EP;
    if (win->comm_ptr->local_size > (1 << RANK_BITS))
        return GAP_TOO_MANY;
    return provider_gap();
}

/* What each member contributes at window creation. */
typedef struct {
    uint64_t free_slots[NSLOTS / 64];
    int gap;
    int has_memory;
    int waw_ordered;
} member_info_t;

/* Every member joins the same collectives whatever it sees locally (a member
 * that skipped them would hang the others).  The slot is reserved here before
 * the members confirm it: the collectives release the global lock, so a
 * window created meanwhile by another thread must not pick it too. */
static int agree(MPIR_Win * win, member_info_t * all, enum gap *gap_out, int *slot_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    MPIR_Comm *comm = win->comm_ptr;
    int n = comm->local_size;
    member_info_t mine;

    for (;;) {
        memset(&mine, 0, sizeof(mine));
        mine.gap = local_gap(win);
        for (int s = 0; s < NSLOTS; s++)
            if (!slots[s] && !reserved[s])
                mine.free_slots[s / 64] |= 1ULL << (s % 64);
        mine.has_memory = (MPIDI_OFI_WIN(win).mr != NULL);
        mine.waw_ordered = provider_orders_writes();
        mpi_errno = MPIR_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE,
                                   comm, &errflag);
        MPIR_ERR_CHECK(mpi_errno);

        enum gap gap = GAP_NONE;
        uint64_t common[NSLOTS / 64];
        memset(common, 0xff, sizeof(common));
        for (int r = 0; r < n; r++) {
            if (gap == GAP_NONE)
                gap = (enum gap) all[r].gap;
            for (int i = 0; i < NSLOTS / 64; i++)
                common[i] &= all[r].free_slots[i];
        }
        int slot = -1;
        for (int s = 0; s < NSLOTS && slot < 0; s++)
            if (common[s / 64] & (1ULL << (s % 64)))
                slot = s;
        if (gap == GAP_NONE && slot < 0)
            gap = GAP_NO_SLOT;
        *gap_out = gap;
        *slot_out = slot;
        if (gap != GAP_NONE)
            return MPI_SUCCESS;

        /* reserve, then confirm at every member */
        int mine_ok = !slots[slot] && !reserved[slot], all_ok = 0;
        if (mine_ok)
            reserved[slot] = true;
        mpi_errno = MPIR_Allreduce(&mine_ok, &all_ok, 1, MPI_INT, MPI_LAND, comm, &errflag);
        if (mine_ok)
            reserved[slot] = false;
        MPIR_ERR_CHECK(mpi_errno);
        if (all_ok) {
            slots[slot] = win;  /* recorded under the same lock hold as the check */
            return MPI_SUCCESS;
        }
        /* taken meanwhile somewhere: every member tries again */
    }
  fn_fail:
    return mpi_errno;
}

int MPIDI_OFI_notify_win_init(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm = win->comm_ptr;
    int n = comm->local_size;
    member_info_t *all = NULL;
    enum gap gap = GAP_NONE;
    int slot = -1, nnative = 0;

    MPIDI_OFI_WIN(win).notify = NULL;
    all = MPL_malloc(n * sizeof(*all), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!all, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notify window info");
    mpi_errno = agree(win, all, &gap, &slot);
    MPIR_ERR_CHECK(mpi_errno);
    if (gap != GAP_NONE)
        goto report;

    bool waw = true;
    for (int r = 0; r < n; r++)
        waw = waw && all[r].waw_ordered;
    MPIDI_OFI_notify_win_t *nw = MPL_calloc(1, sizeof(*nw), MPL_MEM_RMA);
    if (!nw)
        slots[slot] = NULL;
    MPIR_ERR_CHKANDJUMP1(!nw, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notify window");
    nw->slot = slot;
    MPIDI_OFI_WIN(win).notify = nw;
    nw->native = MPL_calloc(n, 1, MPL_MEM_RMA);
    nw->len_in = MPL_calloc(n, sizeof(uint64_t), MPL_MEM_RMA);
    nw->qhead = MPL_calloc(n, sizeof(pending_t *), MPL_MEM_RMA);
    nw->qtail = MPL_calloc(n, sizeof(pending_t *), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!nw->native || !nw->len_in || !nw->qhead || !nw->qtail, mpi_errno,
                         MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify window");
    nw->waw_ordered = waw;
    nw->war_ordered = (MPIDI_OFI_global.prov_use[0]->tx_attr->msg_order & FI_ORDER_WAR) != 0;
    for (int r = 0; r < n; r++) {
        /* self and node-local targets keep their own paths; a target without
         * registered memory can only receive zero-byte accesses: generic */
        bool local = (r == comm->rank);
#ifndef MPIDI_CH4_DIRECT_NETMOD
        local = local || MPIDI_rank_is_local(r, comm);
#endif
        nw->native[r] = all[r].has_memory && !local;
        nnative += nw->native[r];
    }

  report:
    if (MPIR_CVAR_NOTIFY_VERBOSE && comm->rank == 0) {
        if (gap != GAP_NONE)
            fprintf(stderr, "notify: window %x: libfabric path off (%s): generic path for "
                    "remote targets\n", win->handle, gap_text[gap]);
        else
            fprintf(stderr, "notify: window %x: libfabric remote CQ data via %s for %d of %d "
                    "targets, slot %d, inject up to %zu bytes, ordered by %s, get notified "
                    "%s\n", win->handle, MPIDI_OFI_global.prov_use[0]->fabric_attr->prov_name,
                    nnative, n, slot, (size_t) MPIDI_OFI_global.max_buffered_write,
                    MPIDI_OFI_WIN(win).notify->waw_ordered ? "the provider (FI_ORDER_WAW)" :
                    "completion (one notification in flight per target)",
                    MPIDI_OFI_WIN(win).notify->waw_ordered &&
                    MPIDI_OFI_WIN(win).notify->war_ordered ?
                    "right after the read (FI_ORDER_WAR)" : "when the read completes");
    }
    /* Forced on a window that cannot use it: the window is still created
     * (MPICH does not unwind a failed window hook), but notified accesses
     * that would cross the netmod fail with the reason. */
    if (gap != GAP_NONE && MPIR_CVAR_NOTIFY_OFI_PATH == MPIR_CVAR_NOTIFY_OFI_PATH_native &&
        !MPIR_CVAR_NOTIFY_FORCE_GENERIC) {
        MPIDI_OFI_notify_win_t *off = MPL_calloc(1, sizeof(*off), MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(!off, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify window");
        off->slot = -1;
        off->gap = gap_text[gap];
        MPIDI_OFI_WIN(win).notify = off;
    }

  fn_exit:
    MPL_free(all);
    return mpi_errno;
  fn_fail:
    if (MPIDI_OFI_WIN(win).notify)
        MPIDI_OFI_notify_win_free(win);
    goto fn_exit;
}

int MPIDI_OFI_notify_win_free(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    if (!nw)
        return MPI_SUCCESS;

    /* Synchronisation completed every get, but their notifications may still
     * be queued if no progress ran since: send them before the slot goes. */
    for (int r = 0; nw->qhead && r < win->comm_ptr->local_size; r++)
        while (nw->qhead[r] && mpi_errno == MPI_SUCCESS)
            mpi_errno = MPID_Progress_test(NULL);
    if (nw->slot >= 0 && slots[nw->slot] == win)
        slots[nw->slot] = NULL;
    MPL_free(nw->native);
    MPL_free(nw->len_in);
    MPL_free(nw->qhead);
    MPL_free(nw->qtail);
    MPL_free(nw);
    MPIDI_OFI_WIN(win).notify = NULL;
    return mpi_errno;
}

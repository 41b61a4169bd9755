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
 *         MPIDI_UCX_notify_put, carried by the message, matched in notify.c).
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
 * nothing outstanding.  In the put, flush, put, flush pattern (a flush that
 * found one put since the previous one) the next put asks for the answer
 * itself (PUT{count = issued}), so the flush sends nothing and waits for one
 * message instead of two; a stream of puts keeps one FLUSH per flush (an
 * answer per put would halve its message rate).  Gets need no FLUSH: their
 * answer is the completion.
 *
 * Piggy-backed answers.  The answer a put asked for is deferred: it rides
 * on this process's next message to the origin (every message carries
 * `ack`, the puts done from its receiver), or, if there is none before this
 * process's second round of progress from then (DEFER_ROUNDS), it goes
 * alone from a progress hook.
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
 * Which targets: every other process of a window whose flavour is not
 * dynamic, unless MPIR_CVAR_NOTIFY_UCX_PATH or MPIR_CVAR_NOTIFY_FORCE_GENERIC
 * say generic (path table: ucx-am).  Contiguous accesses without a request
 * go this way; request-based and non-contiguous ones, the accumulate family
 * and the calling process take the generic path, which uses the same
 * sequence numbers, so they mix in order.
 */

#include "mpidimpl.h"
#include "ucx_impl.h"
#include "ucx_notify.h"
#include "ch4_notify_ring.h"
#include "utlist.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_UCX_PATH
      category    : NOTIFY
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        How notified accesses reach other processes through the UCX netmod.
        auto     - one UCX active message per put (a request answered with
                   the data per get), for windows that are not dynamic; to
                   a process whose window memory is mapped here (allocated
                   windows, same node) the data is copied directly and a
                   shared-memory ring cell notifies (no UCX call)
        messages - UCX active messages with the data in them also where
                   the rings could serve (node-shared window memory)
        generic  - always the generic active-message path

    - name        : MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS
      category    : NOTIFY
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_MPIDEV_DETAIL
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        For testing: N > 0 sends, before every N-th notified access on the
        ucx-am path, a stray message that names no window, as a corrupt or
        late one would.  Targets must count and drop it.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define AM_ID MPIDI_UCX_NOTIFY_AM_ID

enum { MSG_PUT, MSG_GET, MSG_GET_RESP, MSG_FLUSH, MSG_FLUSH_ACK };

/* the header of every notify message */
typedef struct {
    uint64_t win_id;
    MPI_Aint disp;              /* PUT, GET: in the target's displacement units */
    MPI_Aint lb;                /* PUT, GET: then this many bytes */
    uint64_t count;             /* FLUSH, PUT if not 0: answer once this many puts
                                 * are done; FLUSH_ACK: puts done; GET: bytes */
    uint64_t cookie;            /* GET, GET_RESP: the origin's get_t */
    uint64_t ack;               /* PUT, GET, FLUSH: the sender's done count for
                                 * the receiver's puts (0: none) */
    int32_t src;                /* the sender's rank in the window */
    int32_t tag;
    uint32_t seq;
    uint32_t kind;
} hdr_t;

/* a send whose header must live until UCX completes it */
typedef struct {
    hdr_t hdr;
    MPIR_Win *win;              /* counted in the window's inflight; NULL if not */
    bool notify;                /* GET_RESP: deliver the target's notification then */
    MPI_Aint bytes;
} send_t;

/* an origin's get awaiting its answer */
typedef struct {
    MPIR_Win *win;
    int target;
    void *buf;
} get_t;

/* a rendezvous receive in progress: put data into the window, or a get's
 * answer into the origin buffer */
typedef struct {
    hdr_t hdr;
    MPIR_Win *win;
    MPI_Aint bytes;
    get_t *get;
} recv_t;

/* answers sent at once after a deferral found no message to ride on */
#define DEFER_SKIP 64
/* Rounds of progress a deferred answer waits for a message to ride on.  One
 * is too few: MPI_Win_flush ends with a poll of its own (MPIDIG's, for
 * incoming RMA), so an answer deferred by the progress that ended a flush's
 * wait went alone from that poll, just before the process's next put could
 * carry it (in a put + flush ping-pong a third to all of the answers, each
 * followed by DEFER_SKIP more sent at once). */
#define DEFER_ROUNDS 2
static int hook_id = -1;
static int owed_rounds;         /* rounds of progress left before the hook sends */
static MPIDI_UCX_notify_win_t *owing;   /* windows with deferred answers (nowed > 0) */

/* MPIR_Notify_arrive failing inside a UCX callback (out of memory) cannot
 * be returned there; the next flush or access returns it */
static int deferred_errno = MPI_SUCCESS;

static int take_deferred(void)
{
    int e = deferred_errno;
    deferred_errno = MPI_SUCCESS;
    return e;
}

static ucp_worker_h worker_of(MPIR_Win * win)
{
    return MPIDI_UCX_global.ctx[MPIDI_UCX_get_win_vni(win)].worker;
}

/* ------------------------------------------------------------ sending */

/* Sends' headers live until UCX completes them: kept on a free list (most
 * complete at once, so one or two are reused; malloc and free were a tenth
 * of an 8-byte put's instructions).  Under the progress lock, as all here. */
static send_t *free_sends;
static int nfree_sends;

static void free_send(send_t * s)
{
    if (nfree_sends >= 256) {
        MPL_free(s);
        return;
    }
    *(send_t **) s = free_sends;
    free_sends = s;
    nfree_sends++;
}

static void send_done(void *request, ucs_status_t status, void *user_data);

static void finish_send(send_t * s)
{
    if (s->win) {
        MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(s->win).notify;
        nw->inflight--;
        if (s->notify) {
            int e = MPIR_Notify_arrive(s->win, MPIR_NOTIFY_PATH_UCX_AM, s->hdr.src, s->hdr.tag,
                                       s->bytes, s->hdr.seq);
            if (e && !deferred_errno)
                deferred_errno = e;
        }
    }
    free_send(s);
}

static void send_done(void *request, ucs_status_t status, void *user_data)
{
    if (status != UCS_OK && !deferred_errno)
        MPIR_ERR_SET1(deferred_errno, MPI_ERR_OTHER, "**notifyucx", "**notifyucx %s",
                      ucs_status_string(status));
    finish_send(user_data);
    ucp_request_free(request);
}

/* hand s->hdr (and bytes at buf) to UCX for rank of win; s is freed when
 * done */
static int post_msg(MPIR_Win * win, int rank, send_t * s, const void *buf, size_t bytes)
{
    int mpi_errno = MPI_SUCCESS;
    int vni = MPIDI_UCX_get_win_vni(win);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
            UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.send = send_done,
        .user_data = s,
        .datatype = ucp_dt_make_contig(1),
    };
    ucs_status_ptr_t r = ucp_am_send_nbx(MPIDI_UCX_WIN_TO_EP(win, rank, vni), AM_ID, &s->hdr,
                                         sizeof(s->hdr), buf, bytes, &param);
    if (r == NULL) {
        finish_send(s);
    } else if (UCS_PTR_IS_ERR(r)) {
        if (s->win)
            MPIDI_UCX_WIN(win).notify->inflight--;
        free_send(s);
        MPIDI_UCX_CHK_STATUS(UCS_PTR_STATUS(r));
    }
  fn_fail:
    return mpi_errno;
}

/* send s->hdr (and bytes at buf) to rank of win, with a deferred answer
 * riding along; s is freed when done.  A window-counted send (s->win) holds
 * the window until UCX completes it. */
static int send_msg(MPIR_Win * win, int rank, send_t * s, const void *buf, size_t bytes)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    if (nw->at_once[rank] && s->hdr.kind != MSG_GET_RESP && s->hdr.kind != MSG_FLUSH_ACK) {
        /* a message that could have carried the answer sent at once: the
         * pattern is request/response after all, defer again */
        nw->at_once[rank] = false;
        nw->defer_skip[rank] = 0;
    }
    if (nw->owed[rank] && s->hdr.kind != MSG_GET_RESP) {
        /* the deferred answer rides along (FLUSH_ACK carries it in count) */
        s->hdr.ack = nw->done[rank];
        nw->owed[rank] = false;
        if (--nw->nowed == 0)
            DL_DELETE(owing, nw);
    }
    if (s->win)
        nw->inflight++;
    return post_msg(win, rank, s, buf, bytes);
}


static send_t *new_send(MPIR_Win * win, int kind, int src)
{
    send_t *s = free_sends;
    if (s) {
        free_sends = *(send_t **) s;
        nfree_sends--;
    } else
        s = MPL_malloc(sizeof(*s), MPL_MEM_RMA);
    if (s) {
        memset(s, 0, sizeof(*s));
        s->hdr.win_id = MPIDIG_WIN(win, win_id);
        s->hdr.kind = kind;
        s->hdr.src = src;
    }
    return s;
}

/* MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS: a header-only message naming no window
 * (MPIDIG window ids are never all ones) */
static int maybe_stray(MPIR_Win * win, int target)
{
    static unsigned long naccess;
    int mpi_errno = MPI_SUCCESS;
    if (++naccess % MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS)
        goto fn_exit;
    send_t *s = new_send(win, MSG_FLUSH_ACK, win->comm_ptr->rank);
    MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    s->hdr.win_id = UINT64_MAX;
    mpi_errno = post_msg(win, target, s, NULL, 0);
  fn_exit:
  fn_fail:
    return mpi_errno;
}

static void state_free(MPIDI_UCX_notify_win_t * nw)
{
    MPL_free(nw->issued);
    MPL_free(nw->gets);
    MPL_free(nw->ask);
    MPL_free(nw->owed);
    MPL_free(nw->defer_skip);
    MPL_free(nw);
}

/* The window's UCX state, created with its first message, sent or
 * received; NULL if out of memory */
static MPIDI_UCX_notify_win_t *state_of(MPIR_Win * win)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    int n = win->comm_ptr->local_size;

    if (likely(nw != NULL))
        return nw;
    nw = MPL_calloc(1, sizeof(*nw), MPL_MEM_RMA);
    if (!nw)
        return NULL;
    /* one allocation per type: issued, acked, done, want, want_buf, asked,
     * at_flush; gets; ask; owed, flush_wait, at_once; defer_skip */
    nw->issued = MPL_calloc(7 * n, sizeof(uint64_t), MPL_MEM_RMA);
    nw->gets = MPL_calloc(n, sizeof(int), MPL_MEM_RMA);
    nw->ask = MPL_calloc(n, sizeof(bool), MPL_MEM_RMA);
    nw->owed = MPL_calloc(3 * n, sizeof(bool), MPL_MEM_RMA);
    nw->defer_skip = MPL_calloc(n, sizeof(int), MPL_MEM_RMA);
    if (!nw->issued || !nw->gets || !nw->ask || !nw->owed || !nw->defer_skip) {
        state_free(nw);
        return NULL;
    }
    nw->win = win;
    nw->acked = nw->issued + n;
    nw->done = nw->issued + 2 * n;
    nw->want = nw->issued + 3 * n;
    nw->want_buf = nw->issued + 4 * n;
    nw->asked = nw->issued + 5 * n;
    nw->at_flush = nw->issued + 6 * n;
    nw->flush_wait = nw->owed + n;
    nw->at_once = nw->owed + 2 * n;
    MPIDI_UCX_WIN(win).notify = nw;
    return nw;
}

/* ------------------------------------------------------------- target */

/* as the generic path computes it: the target's own displacement unit */
static void *target_addr(MPIR_Win * win, const hdr_t * h)
{
    return (char *) win->base + h->disp * win->disp_unit + h->lb;
}

/* the answer to origin now: FLUSH_ACK{done} (clears a deferred one) */
static int send_ack(MPIR_Win * win, int origin)
{
    int mpi_errno = MPI_SUCCESS;
    send_t *s = new_send(win, MSG_FLUSH_ACK, win->comm_ptr->rank);
    MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    s->hdr.count = MPIDI_UCX_WIN(win).notify->done[origin];
    mpi_errno = send_msg(win, origin, s, NULL, 0);
  fn_fail:
    return mpi_errno;
}

/* the answer a put asked for: deferred, unless deferring to origin is off */
static int answer(MPIR_Win * win, int origin)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    if (nw->flush_wait[origin] || nw->defer_skip[origin] > 0) {
        nw->flush_wait[origin] = false;
        if (nw->defer_skip[origin] > 0) {
            nw->defer_skip[origin]--;
            nw->at_once[origin] = true;
        }
        return send_ack(win, origin);
    }
    if (!nw->owed[origin]) {
        nw->owed[origin] = true;
        if (nw->nowed++ == 0) {
            if (!owing) {
                owed_rounds = DEFER_ROUNDS;
                MPIR_Progress_hook_activate(hook_id);
            }
            DL_APPEND(owing, nw);
        }
    }
    return MPI_SUCCESS;
}

/* a put's data is in window memory: deliver, count, answer if asked */
static int put_done(MPIR_Win * win, const hdr_t * h, MPI_Aint bytes)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    int mpi_errno = MPIR_Notify_arrive(win, MPIR_NOTIFY_PATH_UCX_AM, h->src, h->tag, bytes,
                                       h->seq);
    nw->done[h->src]++;
    if (nw->want[h->src] && nw->done[h->src] >= nw->want[h->src]) {
        nw->want[h->src] = 0;
        int e = answer(win, h->src);
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

static int flush_request(MPIR_Win * win, const hdr_t * h)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    if (nw->done[h->src] < h->count) {
        /* answered by put_done, at once: the origin is waiting */
        nw->want[h->src] = MPL_MAX(nw->want[h->src], h->count);
        nw->flush_wait[h->src] = true;
        return MPI_SUCCESS;
    }
    return send_ack(win, h->src);
}

/* send the window's deferred answers; alone: none found a message to ride */
static int send_owed(MPIDI_UCX_notify_win_t * nw, bool alone)
{
    int mpi_errno = MPI_SUCCESS;
    for (int r = 0; nw->nowed > 0 && r < nw->win->comm_ptr->local_size; r++) {
        if (!nw->owed[r])
            continue;
        if (alone)
            nw->defer_skip[r] = DEFER_SKIP;
        int e = send_ack(nw->win, r);   /* clears owed[r] */
        if (e && nw->owed[r]) {         /* not sent: give up on it, as on any failed send */
            nw->owed[r] = false;
            if (--nw->nowed == 0)
                DL_DELETE(owing, nw);
        }
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

/* every deferred answer of the process */
static int send_all_owed(bool alone)
{
    int mpi_errno = MPI_SUCCESS;
    while (owing) {
        int e = send_owed(owing, alone);
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

/* MPICH progress hook, active while answers are deferred: the
 * DEFER_ROUNDS-th round of progress after the one that deferred the first
 * of them sends them all */
static int owed_hook(int *made_progress)
{
    if (owing && --owed_rounds > 0)
        return MPI_SUCCESS;
    if (owing)
        *made_progress = 1;
    int mpi_errno = send_all_owed(true);
    MPIR_Progress_hook_deactivate(hook_id);
    return mpi_errno;
}

/* answer a get with window memory; the notification once it has been read */
static int get_request(MPIR_Win * win, const hdr_t * h, MPI_Aint bytes)
{
    int mpi_errno = MPI_SUCCESS;
    send_t *s = new_send(win, MSG_GET_RESP, h->src);
    MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    s->hdr.cookie = h->cookie;
    s->hdr.tag = h->tag;
    s->hdr.seq = h->seq;
    s->win = win;
    s->notify = true;
    s->bytes = bytes;
    mpi_errno = send_msg(win, h->src, s, target_addr(win, h), bytes);
  fn_fail:
    return mpi_errno;
}

/* origin: a get's data is in its buffer */
static void get_done(get_t * g)
{
    MPIDI_UCX_WIN(g->win).notify->gets[g->target]--;
    MPL_free(g);
}

static void rndv_done(void *request, ucs_status_t status, size_t length, void *user_data)
{
    recv_t *rx = user_data;
    int e = MPI_SUCCESS;

    if (status != UCS_OK)
        MPIR_ERR_SET1(e, MPI_ERR_OTHER, "**notifyucx", "**notifyucx %s",
                      ucs_status_string(status));
    else if (rx->get)
        get_done(rx->get);
    else
        e = put_done(rx->win, &rx->hdr, rx->bytes);
    if (e && !deferred_errno)
        deferred_errno = e;
    MPL_free(rx);
    if (request)
        ucp_request_free(request);
}

/* take a payload into dest: copy an eager one, receive a rendezvous one
 * (complete: rndv_done then, or now if UCX finishes at once) */
static ucs_status_t take_payload(MPIR_Win * win, const hdr_t * h, void *data, size_t length,
                                 const ucp_am_recv_param_t * param, void *dest, get_t * get)
{
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        if (length)
            MPIR_Memcpy(dest, data, length);
        int e = get ? (get_done(get), MPI_SUCCESS) : put_done(win, h, length);
        if (e && !deferred_errno)
            deferred_errno = e;
        return UCS_OK;
    }
    recv_t *rx = MPL_malloc(sizeof(*rx), MPL_MEM_RMA);
    if (!rx)
        return UCS_ERR_NO_MEMORY;
    rx->hdr = *h;
    rx->win = win;
    rx->bytes = length;
    rx->get = get;
    ucp_request_param_t rp = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
            UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.recv_am = rndv_done,
        .user_data = rx,
        .datatype = ucp_dt_make_contig(1),
    };
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_of(win), data, dest, length, &rp);
    if (r == NULL)
        rndv_done(NULL, UCS_OK, length, rx);
    else if (UCS_PTR_IS_ERR(r))
        rndv_done(NULL, UCS_PTR_STATUS(r), 0, rx);
    return UCS_INPROGRESS;
}

static unsigned long dropped;   /* messages that named no window here */

static ucs_status_t drop(const hdr_t * h, size_t header_length)
{
    dropped++;
    /* the 1st, 2nd, 4th, 8th ... */
    if (MPIR_CVAR_NOTIFY_VERBOSE && (dropped & (dropped - 1)) == 0)
        fprintf(stderr, "notify: dropped UCX message (%zu-byte header, window id %#llx, "
                "origin %d, kind %u: no such window here); %lu dropped so far\n", header_length,
                h ? (unsigned long long) h->win_id : 0ULL, h ? h->src : -1, h ? h->kind : 0U,
                dropped);
    /* UCX releases the data, also a rendezvous's, when UCS_OK is returned */
    return UCS_OK;
}

/* every notify message arrives here (ucp_worker_progress, under the lock
 * that protects progress) */
static ucs_status_t am_recv(void *arg, const void *header, size_t header_length, void *data,
                            size_t length, const ucp_am_recv_param_t * param)
{
    hdr_t h;
    int e = MPI_SUCCESS;

    if (unlikely(header_length != sizeof(h)))
        return drop(NULL, header_length);
    memcpy(&h, header, sizeof(h));      /* no alignment promised */
    if (h.kind == MSG_GET_RESP) {
        get_t *g = (get_t *) (uintptr_t) h.cookie;
        return take_payload(g->win, &h, data, length, param, g->buf, g);
    }
    /* A window exists at every member from its creation until its free, and
     * no message of it is in flight outside that span (flush before free):
     * a message for no window here is corrupt or late, dropped and counted
     * as the libfabric path drops such CQ words. */
    MPIR_Win *win = MPIDIU_map_lookup(MPIDI_global.win_map, h.win_id);
    if (unlikely(win == MPIDIU_MAP_NOT_FOUND || h.src < 0 ||
                 h.src >= win->comm_ptr->local_size || h.kind > MSG_FLUSH_ACK))
        return drop(&h, header_length);
    MPIDI_UCX_notify_win_t *nw = state_of(win);
    if (!nw) {
        if (!deferred_errno)
            MPIR_ERR_SET1(deferred_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
        return UCS_OK;
    }
    if (h.ack)
        nw->acked[h.src] = MPL_MAX(nw->acked[h.src], h.ack);
    switch (h.kind) {
        case MSG_PUT:
            if (h.count)        /* an answer wanted, as for a FLUSH */
                nw->want[h.src] = MPL_MAX(nw->want[h.src], h.count);
            return take_payload(win, &h, data, length, param, target_addr(win, &h), NULL);
        case MSG_GET:
            e = get_request(win, &h, (MPI_Aint) h.count);
            break;
        case MSG_FLUSH:
            e = flush_request(win, &h);
            break;
        case MSG_FLUSH_ACK:
            nw->acked[h.src] = MPL_MAX(nw->acked[h.src], h.count);
            break;
    }
    if (e && !deferred_errno)
        deferred_errno = e;
    return UCS_OK;
}

int MPIDI_UCX_notify_init_worker(ucp_worker_h worker)
{
    int mpi_errno = MPI_SUCCESS;
    ucp_am_handler_param_t p = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
            UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = AM_ID,
        .cb = am_recv,
        .arg = NULL,
    };
    MPIDI_UCX_CHK_STATUS(ucp_worker_set_am_recv_handler(worker, &p));
    if (hook_id < 0) {
        mpi_errno = MPIR_Progress_hook_register(owed_hook, &hook_id);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* ------------------------------------------------------------- origin */

/* the window's UCX state if the path table says ucx-am for target (NULL
 * also if it cannot be had: then the generic path) */
static MPIDI_UCX_notify_win_t *path_state(MPIR_Win * win, int target)
{
    return MPIR_Notify_path(win, target) == MPIR_NOTIFY_PATH_UCX_AM ? state_of(win) : NULL;
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
    if (MPIR_Notify_path(win, target_rank) == MPIR_NOTIFY_PATH_RING) {
        mpi_errno = MPIDI_Notify_ring_access(origin_addr, origin_count, origin_datatype,
                                             target_rank, target_disp, target_count,
                                             target_datatype, win, tag, is_put, req);
        goto fn_exit;
    }
    if (nw) {
        MPIDI_Datatype_check_contig_size_lb(origin_datatype, origin_count, o_contig, o_bytes,
                                            o_lb);
        MPIDI_Datatype_check_contig_size_lb(target_datatype, target_count, t_contig, t_bytes,
                                            t_lb);
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
    mpi_errno = take_deferred();
    MPIR_ERR_CHECK(mpi_errno);

    int vni = MPIDI_UCX_get_win_vni(win);
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
    if (unlikely(MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS > 0) &&
        (mpi_errno = maybe_stray(win, target_rank)) != MPI_SUCCESS) {
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
        goto fn_fail;
    }
    send_t *s = new_send(win, is_put ? MSG_PUT : MSG_GET, win->comm_ptr->rank);
    get_t *g = is_put ? NULL : MPL_malloc(sizeof(*g), MPL_MEM_RMA);
    if (!s || (!is_put && !g)) {
        free_send(s);
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    }
    s->hdr.disp = target_disp;
    s->hdr.lb = t_lb;
    s->hdr.tag = tag;
    s->hdr.seq = MPIR_Notify_take_seq(win->notify, target_rank);
    s->win = win;
    if (is_put) {
        if (++nw->issued[target_rank] == nw->at_flush[target_rank] + 1 && nw->ask[target_rank])
            s->hdr.count = nw->asked[target_rank] = nw->issued[target_rank];
        mpi_errno = send_msg(win, target_rank, s, (char *) origin_addr + o_lb, o_bytes);
        if (mpi_errno)
            nw->issued[target_rank]--;
    } else {
        g->win = win;
        g->target = target_rank;
        g->buf = (char *) origin_addr + o_lb;
        s->hdr.count = t_bytes;
        s->hdr.cookie = (uint64_t) (uintptr_t) g;
        nw->gets[target_rank]++;
        mpi_errno = send_msg(win, target_rank, s, NULL, 0);
        if (mpi_errno) {
            nw->gets[target_rank]--;
            MPL_free(g);
        }
    }
    if (mpi_errno)
        MPIR_Notify_unnumber(win, target_rank, s->hdr.seq);
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* At a flush: the next put to target asks for its answer itself if this
 * flush found exactly one put since the previous one; a flush that found
 * none (after gets, say) leaves the prediction as it was. */
static void predict(MPIDI_UCX_notify_win_t * nw, int target)
{
    uint64_t since = nw->issued[target] - nw->at_flush[target];
    if (since > 0)
        nw->ask[target] = since == 1;
    nw->at_flush[target] = nw->issued[target];
}

/* whether target (or every target, -1) still has what the completion waits for */
static bool pending(MPIR_Win * win, MPIDI_UCX_notify_win_t * nw, int target, bool local,
                    const uint64_t * want)
{
    if (nw->inflight)
        return true;
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->comm_ptr->local_size : target + 1;
    for (int r = lo; r < hi; r++)
        if (nw->gets[r] || (!local && nw->acked[r] < want[r - lo]))
            return true;
    return false;
}

/* MPI_Win_flush(_local)(_all), unlock(_all), fence, complete: from ucx_win.h's
 * completion hooks; target -1 for every target */
int MPIDI_UCX_notify_cmpl(MPIR_Win * win, int target, bool local)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    uint64_t one, *want = &one;

    if (!nw)
        return take_deferred();
    if (target >= 0 && !nw->inflight && !nw->gets[target] && !nw->nowed &&
        nw->acked[target] >= nw->issued[target]) {
        /* nothing to wait for (every access to a target on the ring path) */
        if (!local)
            predict(nw, target);
        return take_deferred();
    }
    int vni = MPIDI_UCX_get_win_vni(win);
    int lo = target < 0 ? 0 : target, hi = target < 0 ? win->comm_ptr->local_size : target + 1;
    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
    /* a snapshot of what to wait for (threads flushing the same window at
     * once share the buffer: a later snapshot only waits for more) */
    if (hi - lo > 1)
        want = nw->want_buf;
    for (int r = lo; r < hi; r++) {
        want[r - lo] = nw->issued[r];
        if (local)
            continue;
        predict(nw, r);
        if (nw->acked[r] >= nw->issued[r] || nw->asked[r] == nw->issued[r])
            continue;   /* confirmed, or the answer is on its way */
        send_t *s = new_send(win, MSG_FLUSH, win->comm_ptr->rank);
        MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
        s->hdr.count = nw->issued[r];
        mpi_errno = send_msg(win, r, s, NULL, 0);
        MPIR_ERR_CHECK(mpi_errno);
    }
    /* while this process waits, nothing it sends can carry its deferred
     * answers, and the peer it waits for may wait for one of them; an
     * answer deferred by the progress that ends the wait stays deferred
     * (the caller's next message may carry it) */
    while (pending(win, nw, target, local, want)) {
        mpi_errno = send_all_owed(false);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIDI_progress_test_vci(vni);
        MPIR_ERR_CHECK(mpi_errno);
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    }
    mpi_errno = take_deferred();
  fn_fail:
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
    return mpi_errno;
}

/* ------------------------------------------------------ window set-up */

/* The processes of the node that map the window memory (MPIDIG's
 * node-shared segment of an allocated window) may publish to this
 * process's ring, whatever this process's choice of path (theirs may
 * differ) */
static bool node_shared(MPIR_Win * win)
{
    return win->comm_ptr->node_comm && MPIDIG_WIN(win, shared_table) &&
        MPIDIG_WIN(win, mmap_addr);
}

int MPIDI_UCX_notify_win_init(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    int n = win->comm_ptr->local_size, me = win->comm_ptr->rank;
    bool on = !MPIR_CVAR_NOTIFY_FORCE_GENERIC &&
        MPIR_CVAR_NOTIFY_UCX_PATH != MPIR_CVAR_NOTIFY_UCX_PATH_generic &&
        win->create_flavor != MPI_WIN_FLAVOR_DYNAMIC;

    /* the per-target state comes with the window's first message
     * (state_of): a window that never notifies allocates none */
    MPIDI_UCX_WIN(win).notify = NULL;
    MPIDI_UCX_WIN(win).notify_ring = false;
    if (n > 1 && node_shared(win))
        MPIDI_Notify_rings_win_init(win, &MPIDI_UCX_WIN(win).notify_ring);
    bool rings = MPIDI_UCX_WIN(win).notify_ring &&
        MPIR_CVAR_NOTIFY_UCX_PATH == MPIR_CVAR_NOTIFY_UCX_PATH_auto;
    for (int r = 0; r < n; r++) {
        if (r == me)
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC,
                                             MPIR_NOTIFY_WHY_SELF);
        else if (on && rings && MPIDI_Notify_ring_reaches(win, r))
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_RING,
                                             MPIR_NOTIFY_WHY_SHARED_MEMORY);
        else if (on)
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_UCX_AM,
                                             MPIR_NOTIFY_WHY_UCX_AM);
        else
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC,
                                             win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC &&
                                             !MPIR_CVAR_NOTIFY_FORCE_GENERIC &&
                                             MPIR_CVAR_NOTIFY_UCX_PATH !=
                                             MPIR_CVAR_NOTIFY_UCX_PATH_generic ?
                                             MPIR_NOTIFY_WHY_DYNAMIC : MPIR_NOTIFY_WHY_FORCED);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (MPIR_CVAR_NOTIFY_VERBOSE && me == 0)
        fprintf(stderr, "notify: window %x: UCX active messages to %d and shared-memory "
                "rings to %d of %d processes\n", win->handle,
                MPIR_Notify_path_count(win, MPIR_NOTIFY_PATH_UCX_AM),
                MPIR_Notify_path_count(win, MPIR_NOTIFY_PATH_RING), n);
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPIDI_UCX_notify_win_free(win);
    goto fn_exit;
}

/* collective, after the window's epochs closed: only local sends (a get's
 * answer, an acknowledgement) can still be in flight */
int MPIDI_UCX_notify_win_free(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;

    if (nw) {
        int vni = MPIDI_UCX_get_win_vni(win);
        MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
        if (nw->nowed)  /* none should be left once every epoch is closed */
            mpi_errno = send_owed(nw, false);
        while (nw->inflight && mpi_errno == MPI_SUCCESS)
            mpi_errno = MPIDI_progress_test_vci(vni);
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
        state_free(nw);
        MPIDI_UCX_WIN(win).notify = NULL;
    }
    int e = MPIDI_Notify_rings_win_free(win, &MPIDI_UCX_WIN(win).notify_ring);
    return mpi_errno ? mpi_errno : e;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over UCX: the messages (ucx_notify_impl.h) and their
 * handlers.  Every notify message arrives in am_recv, under the lock that
 * protects progress: a put's payload goes into window memory (copied, or
 * received by rendezvous) and then to MPIR_Notify_arrive; a get is answered
 * from window memory; FLUSH and FLUSH_ACK go to ucx_notify_flush.c.
 */

#include "mpidimpl.h"
#include "ucx_notify_impl.h"
#include "ch4_notify.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_UCX_EAGER_MAX
      category    : NOTIFY
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        The largest payload (a put's data, a get's answer) that the UCX
        path sends to a process of another node as one eager active
        message (UCP_AM_SEND_FLAG_EAGER) whatever UCX's rendezvous
        threshold; larger payloads, and all to processes of the node, go
        as UCX chooses.  -1: 131072 where tcp is the only network
        transport of the UCX context and UCX_RNDV_THRESH is not set, else 0
        (UCX's choice for every payload).  Over tcp, on one host and
        across hosts, UCX's rendezvous costs more than an eager message up
        to about that size (doc/benchmarks.md).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* MPIR_Notify_arrive failing inside a UCX callback (out of memory) cannot
 * be returned there; the next flush or access returns it */
static int deferred_errno = MPI_SUCCESS;

int MPIDI_UCX_notify_take_deferred(void)
{
    int e = deferred_errno;
    deferred_errno = MPI_SUCCESS;
    return e;
}

void MPIDI_UCX_notify_defer_error(int mpi_errno)
{
    if (mpi_errno && !deferred_errno)
        deferred_errno = mpi_errno;
}

static ucp_worker_h worker_of(MPIR_Win * win)
{
    return MPIDI_UCX_global.ctx[MPIDI_UCX_get_win_vni(win)].worker;
}

/* ------------------------------------------------------------ sending */

/* Sends' headers live until UCX completes them: kept on a free list (most
 * complete at once, so one or two are reused; malloc and free would be a
 * visible part of a small put's cost, doc/benchmarks.md).  Under the
 * progress lock, as all here. */
static send_t *free_sends;
static int nfree_sends;

void MPIDI_UCX_notify_free_send(send_t * s)
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
    MPIDI_UCX_notify_win_t *nw = s->nw;
    if (nw) {
        nw->inflight--;
        if (unlikely(nw->win == NULL)) {
            /* the window was freed with this send in flight (its progress
             * failed, MPIDI_UCX_notify_win_free): s->win is gone, no one
             * waits for the notification, the last send frees the state */
            if (nw->inflight == 0)
                MPIDI_UCX_notify_state_orphan_done(nw);
        } else if (s->notify) {
            int e = MPIR_Notify_arrive(s->win, MPIR_NOTIFY_PATH_UCX_AM, s->hdr.src, s->hdr.tag,
                                       s->bytes, s->hdr.seq);
            if (e && !deferred_errno)
                deferred_errno = e;
        }
    }
    MPIDI_UCX_notify_free_send(s);
}

static void send_done(void *request, ucs_status_t status, void *user_data)
{
    if (status != UCS_OK && !deferred_errno)
        MPIR_ERR_SET1(deferred_errno, MPI_ERR_OTHER, "**notifyucx", "**notifyucx %s",
                      ucs_status_string(status));
    finish_send(user_data);
    ucp_request_free(request);
}

/* MPIR_CVAR_NOTIFY_UCX_EAGER_MAX as it applies (set by init_worker) */
static size_t eager_max;

/* Whether tcp is the only network transport of the UCX context: every
 * resource ucp_context_print_info lists ("... flags -- tcp/lo") is tcp or
 * a transport within the node.  UCX 1.13 has no query for an endpoint's
 * transports; anything unknown (or no list) says no. */
static bool tcp_only(ucp_context_h context)
{
    static const char *const node_tls[] = { "self", "sysv", "posix", "cma", "knem", "xpmem" };
    char *text = NULL, *next;
    size_t len = 0;
    bool tcp = false, other = false;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return false;
    ucp_context_print_info(context, f);
    fclose(f);
    for (char *line = text; line; line = next) {
        if ((next = strchr(line, '\n')))
            *next++ = '\0';
        const char *tl = strstr(line, "flags -- ");
        if (!tl)
            continue;
        tl += strlen("flags -- ");
        size_t n = strcspn(tl, "/");
        bool node = false;
        for (size_t i = 0; i < sizeof(node_tls) / sizeof(node_tls[0]); i++)
            node = node || (strlen(node_tls[i]) == n && !strncmp(tl, node_tls[i], n));
        if (n == 3 && !strncmp(tl, "tcp", 3))
            tcp = true;
        else if (!node)
            other = true;
    }
    free(text);
    return tcp && !other;
}

static void set_eager_max(void)
{
    if (MPIR_CVAR_NOTIFY_UCX_EAGER_MAX >= 0)
        eager_max = (size_t) MPIR_CVAR_NOTIFY_UCX_EAGER_MAX;
    else
        eager_max = !getenv("UCX_RNDV_THRESH") && tcp_only(MPIDI_UCX_global.context) ? 131072 : 0;
}

/* UCX's rendezvous waits for the receiver to answer; over tcp it cost more
 * than the eager message's copies up to eager_max (to other nodes: on the
 * node UCX's shared-memory transports are another matter) */
static bool force_eager(MPIR_Win * win, int rank, size_t bytes)
{
    const int *local = win->comm_ptr->intranode_table;
    return bytes > 0 && bytes <= eager_max && !(local && local[rank] >= 0);
}

void MPIDI_UCX_notify_win_describe(MPIR_Win * win, char *text, size_t text_sz)
{
    for (int r = 0; r < win->comm_ptr->local_size; r++) {
        if (MPIR_Notify_path(win, r) != MPIR_NOTIFY_PATH_UCX_AM)
            continue;
        if (eager_max)
            snprintf(text, text_sz, "UCX active messages, eager to other nodes up to %zu bytes",
                     eager_max);
        else
            snprintf(text, text_sz, "UCX active messages, eager or rendezvous as UCX chooses");
        return;
    }
}

/* hand s->hdr (and bytes at buf) to UCX for rank of win; s is freed when
 * done */
int MPIDI_UCX_notify_post(MPIR_Win * win, int rank, send_t * s, const void *buf, size_t bytes)
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
    if (force_eager(win, rank, bytes)) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        param.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    ucs_status_ptr_t r = ucp_am_send_nbx(MPIDI_UCX_WIN_TO_EP(win, rank, vni), AM_ID, &s->hdr,
                                         sizeof(s->hdr), buf, bytes, &param);
    if (r == NULL) {
        finish_send(s);
    } else if (UCS_PTR_IS_ERR(r)) {
        if (s->nw)
            s->nw->inflight--;
        MPIDI_UCX_notify_free_send(s);
        MPIDI_UCX_CHK_STATUS(UCS_PTR_STATUS(r));
    }
  fn_fail:
    return mpi_errno;
}

send_t *MPIDI_UCX_notify_new_send(MPIR_Win * win, int kind, int src)
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
int MPIDI_UCX_notify_maybe_stray(MPIR_Win * win, int target)
{
    static unsigned long naccess;
    int mpi_errno = MPI_SUCCESS;
    if (++naccess % MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS)
        goto fn_exit;
    send_t *s = MPIDI_UCX_notify_new_send(win, MSG_FLUSH_ACK, win->comm_ptr->rank);
    MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    s->hdr.win_id = UINT64_MAX;
    mpi_errno = MPIDI_UCX_notify_post(win, target, s, NULL, 0);
  fn_exit:
  fn_fail:
    return mpi_errno;
}

/* ------------------------------------------------------------- target */

/* as the generic path computes it: the target's own displacement unit */
static void *target_addr(MPIR_Win * win, const hdr_t * h)
{
    return (char *) win->base + h->disp * win->disp_unit + h->lb;
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
        int e = MPIDI_UCX_notify_answer(win, h->src);
        if (!mpi_errno)
            mpi_errno = e;
    }
    return mpi_errno;
}

/* answer a get with window memory; the notification once it has been read */
static int get_request(MPIR_Win * win, const hdr_t * h, MPI_Aint bytes)
{
    int mpi_errno = MPI_SUCCESS;
    send_t *s = MPIDI_UCX_notify_new_send(win, MSG_GET_RESP, h->src);
    MPIR_ERR_CHKANDJUMP1(!s, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify");
    s->hdr.cookie = h->cookie;
    s->hdr.tag = h->tag;
    s->hdr.seq = h->seq;
    s->win = win;
    s->notify = true;
    s->bytes = bytes;
    mpi_errno = MPIDI_UCX_notify_send(win, h->src, s, target_addr(win, h), bytes);
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
        MPIR_ERR_SET1(e, MPI_ERR_OTHER, "**notifyucx", "**notifyucx %s", ucs_status_string(status));
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

/* the window of the last message (a stream of messages mostly repeats
 * it; MPICH's window map is a hash) */
static MPIDI_Notify_win_cache_t last_window;

void MPIDI_UCX_notify_forget_window(MPIR_Win * win)
{
    MPIDI_Notify_window_forget(&last_window, win);
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
    MPIR_Win *win = MPIDI_Notify_window_of(&last_window, h.win_id);
    if (unlikely(win == NULL || h.src < 0 ||
                 h.src >= win->comm_ptr->local_size || h.kind > MSG_FLUSH_ACK))
        return drop(&h, header_length);
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_notify_state_of(win);
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
            e = MPIDI_UCX_notify_flush_request(win, &h);
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
    set_eager_max();
    ucp_am_handler_param_t p = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
            UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = AM_ID,
        .cb = am_recv,
        .arg = NULL,
    };
    MPIDI_UCX_CHK_STATUS(ucp_worker_set_am_recv_handler(worker, &p));
  fn_fail:
    return mpi_errno;
}

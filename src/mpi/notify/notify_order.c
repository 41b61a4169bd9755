/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: issue order per (window, origin).  Origins stamp each
 * notified access with a per-(window, target) sequence number
 * (MPIR_Notify_next_seq, or MPIR_Notify_take_seq inline); arrivals ahead of
 * their turn wait in a short pending list, so transports whose completions
 * can reorder (large or asynchronous transfers, two paths to one target)
 * still deliver in issue order.  Every path hands its arrivals to
 * MPIR_Notify_arrive.
 */

#include "notify_impl.h"

int MPIR_Notify_next_seq(MPIR_Win * win, int target, uint32_t * seq)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    if (mpi_errno == MPI_SUCCESS)
        *seq = nw->head.send_seq[target]++;
    return mpi_errno;
}

/* Take back the number of an access that failed before it was handed to
 * its transport.  Only the latest number can be; every caller takes it back
 * before it could number another access to the same target. */
void MPIR_Notify_unnumber(MPIR_Win * win, int target, uint32_t seq)
{
    struct MPIR_Notify_win *nw = win->notify;
    MPIR_Assert(nw && nw->head.send_seq[target] == seq + 1);
    nw->head.send_seq[target] = seq;
    MPIR_NOTIFY_EVENT(refused, win, target);
}

static int arrive(MPIR_Win * win, MPIR_Notify_path_t via, int src, int tag, MPI_Aint bytes,
                  uint32_t seq)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    nw->head.stats.arrived[via]++;

    if (seq != nw->recv_seq[src]) {
        /* ahead of an earlier access from the same origin: park it in its
         * origin's list, sorted by sequence number (arrivals are mostly in
         * order, so the walk from the head is short) */
        MPIR_Notify_entry_t *e = MPIR_Notify_entry_make(nw, NULL, src, tag, bytes, seq), **pp =
            &nw->pending[src];
        MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify entry");
        while (*pp && (int32_t) ((uint32_t) (*pp)->order - seq) < 0)
            pp = &(*pp)->next;
        e->next = *pp;
        *pp = e;
        goto fn_exit;
    }

    mpi_errno = MPIR_Notify_deliver(nw, src, tag, bytes, ++nw->arrival_counter, NULL);
    MPIR_ERR_CHECK(mpi_errno);
    nw->recv_seq[src]++;

    /* release this origin's parked successors, in order: O(1) each */
    MPIR_Notify_entry_t *e;
    while ((e = nw->pending[src]) && (uint32_t) e->order == nw->recv_seq[src]) {
        nw->pending[src] = e->next;
        e->order = ++nw->arrival_counter;
        mpi_errno = MPIR_Notify_deliver(nw, e->src, e->tag, e->bytes, e->order, e);
        MPIR_ERR_CHECK(mpi_errno);
        nw->recv_seq[src]++;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* With a tool listening, every step is an event: the general path */
static int ATTRIBUTE((noinline)) arrive_traced(MPIR_Win * win, MPIR_Notify_path_t via, int src,
                                               int tag, MPI_Aint bytes, uint32_t seq)
{
    MPIR_Notify_event_arrival(win, src, tag, bytes, via);
    return arrive(win, via, src, tag, bytes, seq);
}

/* A tag's arrival in order with a bucket for it (the rest of
 * MPIR_Notify_arrive's inline cases): counted toward a request that needs
 * more, completing one that has taken notifications before, or, with none
 * posted, the newest unexpected entry.  Out of line, so that the common
 * case below calls nothing and keeps no frame. */
static int ATTRIBUTE((noinline)) arrive_tag(MPIR_Win * win, MPIR_Notify_path_t via, int src,
                                            int tag, MPI_Aint bytes, uint32_t seq)
{
    struct MPIR_Notify_win *nw = win->notify;
    MPIR_Notify_bucket_t *b;
    MPIR_Notify_req_t *r;
    int mpi_errno;

    if (unlikely(nw->wild_head || !(b = MPIR_Notify_bucket_find(nw, src, tag))))
        return arrive(win, via, src, tag, bytes, seq);
    if ((r = b->req_head)) {
        if (r->matched + 1 != r->expected) {
            /* one of several the request counts (its entry kept) */
            mpi_errno = MPIR_Notify_count_toward(nw, r, b, src, tag, bytes,
                                                 nw->arrival_counter + 1, NULL);
        } else {
            r->matched++;
            r->req->status.MPI_SOURCE = src;
            r->req->status.MPI_TAG = tag;
            MPIR_STATUS_SET_COUNT(r->req->status, bytes);
            mpi_errno = MPIR_Notify_finish(nw, r);
        }
        if (unlikely(mpi_errno))
            return mpi_errno;
    } else {
        /* no request posted for it: the newest unexpected entry */
        MPIR_Notify_entry_t *e = MPIR_Notify_entry_make(nw, b, src, tag, bytes,
                                                        nw->arrival_counter + 1);
        if (unlikely(!e))
            return arrive(win, via, src, tag, bytes, seq);
        MPIR_Notify_unx_append(nw, e);
    }
    nw->head.stats.arrived[via]++;
    nw->arrival_counter++;
    nw->recv_seq[src]++;
    return MPI_SUCCESS;
}

/* Every path hands its arrivals here.  Inline, the common cases: in its
 * origin's order with nothing parked behind it, a counter update, or the
 * notification that completes the one request posted for its (src, tag)
 * (the last bucket found, no wildcard request posted), which calls nothing.
 * arrive_tag takes the other arrivals of a tag that has a bucket, arrive()
 * everything else (parking, wildcard matching, an ordered insert). */
int MPIR_Notify_arrive(MPIR_Win * win, MPIR_Notify_path_t via, int src, int tag,
                       MPI_Aint bytes, uint32_t seq)
{
    struct MPIR_Notify_win *nw = win->notify;

    if (MPIR_NOTIFY_EVENTS_ON())
        return arrive_traced(win, via, src, tag, bytes, seq);
    if (unlikely(!nw || seq != nw->recv_seq[src] || nw->pending[src]))
        return arrive(win, via, src, tag, bytes, seq);
    if (tag & MPIR_NOTIFY_COUNTER) {
        int idx = tag & MPIR_NOTIFY_TAG_MAX;
        if (unlikely(idx >= nw->ncounters || nw->watches))
            return arrive(win, via, src, tag, bytes, seq);
        nw->counters[idx]++;
        nw->head.stats.counted++;
    } else {
        MPIR_Notify_bucket_t *b = nw->last_bucket;
        MPIR_Notify_req_t *r;
        if (!b || b->key != MPIR_Notify_bucket_key(src, tag) || nw->wild_head ||
            !(r = b->req_head) || r->matched + 1 != r->expected || r->taken_head)
            return arrive_tag(win, via, src, tag, bytes, seq);
        /* r completes with this one (MPIR_Notify_finish of a posted
         * request that took nothing before) */
        r->matched++;
        r->req->status.MPI_SOURCE = src;
        r->req->status.MPI_TAG = tag;
        MPIR_STATUS_SET_COUNT(r->req->status, bytes);
        MPIR_Notify_unpost_from(&b->req_head, r);
        MPIR_Notify_req_complete(r->req);
    }
    nw->head.stats.arrived[via]++;
    nw->arrival_counter++;
    nw->recv_seq[src]++;
    return MPI_SUCCESS;
}

int MPIR_Notify_done(MPIR_Win * win, int src, const MPIR_Notify_hdr_t * notify, MPI_Aint bytes)
{
    if (!notify || notify->tag == MPIR_NOTIFY_NONE)
        return MPI_SUCCESS;
    return MPIR_Notify_arrive(win, MPIR_NOTIFY_PATH_GENERIC, src, notify->tag,
                              notify->bytes >= 0 ? notify->bytes : bytes, notify->seq);
}

/* For transports that keep each origin's order themselves (ordered
 * writes): the arrival is always the next one expected. */
int MPIR_Notify_arrive_in_order(MPIR_Win * win, MPIR_Notify_path_t via, int src, int tag,
                                MPI_Aint bytes)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = MPIR_Notify_arrive(win, via, src, tag, bytes, nw->recv_seq[src]);
    return mpi_errno;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: matching notifications to requests (notify_impl.h).
 *
 * Per window:
 *   - posted requests: exact (src, tag) requests live in a hash bucket per
 *     (src, tag), in start order; wildcard requests in one list in start
 *     order.  A lookup reads one bucket head and the wildcard list up to the
 *     first request started later than that head, so its cost does not grow
 *     with the number of posted exact requests.
 *   - unexpected notifications: four lists in arrival order (all, by
 *     (src, tag), by tag, by src), so a start of any kind takes each match
 *     in O(1).  An entry costs sizeof(MPIR_Notify_entry_t) bytes, plus a
 *     bucket per distinct (src, tag) and per distinct tag queued; idle
 *     entries are freed down to the number in use (entry_release).
 * A notification reaches deliver() in its origin's issue order
 * (notify_order.c).
 */

#include "notify_impl.h"

MPIR_Notify_bucket_t *MPIR_Notify_bucket_lookup(struct MPIR_Notify_win *nw, uint64_t key)
{
    MPIR_Notify_bucket_t *b;
    HASH_FIND(hh, nw->buckets, &key, sizeof(key), b);
    if (b)
        nw->last_bucket = b;
    return b;
}

static MPIR_Notify_bucket_t *bucket_new(struct MPIR_Notify_win *nw, int src, int tag)
{
    MPIR_Notify_bucket_t *b = MPL_calloc(1, sizeof(*b), MPL_MEM_RMA);
    if (b) {
        b->key = MPIR_Notify_bucket_key(src, tag);
        HASH_ADD(hh, nw->buckets, key, sizeof(b->key), b, MPL_MEM_RMA);
    }
    return b;
}

static void bucket_free(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b)
{
    if (nw->last_bucket == b)
        nw->last_bucket = NULL;
    HASH_DELETE(hh, nw->buckets, b);
    MPL_free(b);
}

/* The (src, tag) bucket, created with a reference to its tag's bucket. */
MPIR_Notify_bucket_t *MPIR_Notify_bucket_ref(struct MPIR_Notify_win *nw, int src, int tag)
{
    MPIR_Notify_bucket_t *b = MPIR_Notify_bucket_find(nw, src, tag), *tb;
    if (b)
        return b;
    tb = MPIR_Notify_bucket_find(nw, MPI_ANY_SOURCE, tag);
    if (!tb && !(tb = bucket_new(nw, MPI_ANY_SOURCE, tag)))
        return NULL;
    b = bucket_new(nw, src, tag);
    if (!b) {
        if (tb->nheld == 0)
            bucket_free(nw, tb);
        return NULL;
    }
    b->tag_bucket = tb;
    tb->nheld++;
    return b;
}

/* A (src, tag) bucket lives while an exact request is bound to it (so
 * start/complete cycles of persistent requests never allocate) or while it
 * has live entries; a tag bucket while (src, tag) buckets of its tag live.
 * Memory follows the load. */
void MPIR_Notify_bucket_unref(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b)
{
    if (b->req_head || b->nbound > 0 || b->nheld > 0)
        return;
    MPIR_Notify_bucket_t *tb = b->tag_bucket;
    bucket_free(nw, b);
    if (--tb->nheld == 0)
        bucket_free(nw, tb);
}

/* The free list keeps at most as many entries as are in use (and a few), so
 * a burst of unexpected notifications does not pin its memory until
 * MPI_Win_free. */
#define FREE_KEEP_MIN 64
static void entry_release(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    nw->nlive--;
    if (nw->nfree >= FREE_KEEP_MIN && nw->nfree >= nw->nlive) {
        MPL_free(e);
        return;
    }
    e->next = nw->free_entries;
    nw->free_entries = e;
    nw->nfree++;
}

/* A live entry for one notification, holding its (src, tag) bucket b (NULL:
 * looked up or created here); NULL when out of memory. */
MPIR_Notify_entry_t *MPIR_Notify_entry_make(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b,
                                            int src, int tag, MPI_Aint bytes, uint64_t order)
{
    MPIR_Notify_entry_t *e;

    if (!b && !(b = MPIR_Notify_bucket_ref(nw, src, tag)))
        return NULL;
    e = nw->free_entries;
    if (e) {
        nw->free_entries = e->next;
        nw->nfree--;
    } else if (!(e = MPL_malloc(sizeof(*e), MPL_MEM_RMA))) {
        MPIR_Notify_bucket_unref(nw, b);
        return NULL;
    }
    nw->nlive++;
    e->src = src;
    e->tag = tag;
    e->bytes = bytes;
    e->order = order;
    e->next = NULL;
    e->bucket = b;
    b->nheld++;
    return e;
}

/* e is in no list any more */
void MPIR_Notify_entry_drop(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    MPIR_Notify_bucket_t *b = e->bucket;
    b->nheld--;
    MPIR_Notify_bucket_unref(nw, b);
    entry_release(nw, e);
}

void MPIR_Notify_entry_list_free(MPIR_Notify_entry_t * e)
{
    while (e) {
        MPIR_Notify_entry_t *next = e->next;
        MPL_free(e);
        e = next;
    }
}

static inline bool req_matches(const MPIR_Notify_req_t * r, int src, int tag)
{
    return (r->src == MPI_ANY_SOURCE || r->src == src) && (r->tag == MPI_ANY_TAG || r->tag == tag);
}

/* b: the (src, tag) bucket, NULL if there is none */
static MPIR_Notify_req_t *find_posted(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b,
                                      int src, int tag)
{
    MPIR_Notify_req_t *best = b ? b->req_head : NULL;

    /* the wildcard list is in start order: stop at the first request that
     * started after the exact candidate */
    for (MPIR_Notify_req_t * r = nw->wild_head; r; r = r->next) {
        if (best && r->start_seq > best->start_seq)
            break;
        if (req_matches(r, src, tag))
            return r;
    }
    return best;
}

void MPIR_Notify_post(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    DL_APPEND(*MPIR_Notify_posted_list(nw, r), r);
    r->posted = true;
}

/* The lists are utlist doubly-linked lists through e->idx[k]. */
static MPIR_Notify_entry_t **list_of(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e, int k)
{
    switch (k) {
        case IDX_ALL:
            return &nw->unx;
        case IDX_EXACT:
            return &e->bucket->unx;
        case IDX_TAG:
            return &e->bucket->tag_bucket->unx;
        default:
            return &nw->by_src[e->src];
    }
}

void MPIR_Notify_unx_unlink(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    nw->head.stats.queued--;
    DL_DELETE_NP(nw->unx, e, idx[IDX_ALL].next, idx[IDX_ALL].prev);
    DL_DELETE_NP(e->bucket->unx, e, idx[IDX_EXACT].next, idx[IDX_EXACT].prev);
    DL_DELETE_NP(e->bucket->tag_bucket->unx, e, idx[IDX_TAG].next, idx[IDX_TAG].prev);
    DL_DELETE_NP(nw->by_src[e->src], e, idx[IDX_SRC].next, idx[IDX_SRC].prev);
}

static void unx_count(struct MPIR_Notify_win *nw)
{
    struct MPIR_Notify_stats *st = &nw->head.stats;
    if (++st->queued > st->queued_max)
        st->queued_max = st->queued;
}

/* The newest arrival (the largest arrival number): at the four tails. */
void MPIR_Notify_unx_append(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    unx_count(nw);
    DL_APPEND_NP(nw->unx, e, idx[IDX_ALL].next, idx[IDX_ALL].prev);
    DL_APPEND_NP(e->bucket->unx, e, idx[IDX_EXACT].next, idx[IDX_EXACT].prev);
    DL_APPEND_NP(e->bucket->tag_bucket->unx, e, idx[IDX_TAG].next, idx[IDX_TAG].prev);
    DL_APPEND_NP(nw->by_src[e->src], e, idx[IDX_SRC].next, idx[IDX_SRC].prev);
}

/* Insert by arrival number.  New arrivals go to the tails at once; only
 * entries given back by a freed request walk backwards from the tail (the
 * head's prev).  Allocates nothing. */
static void unx_insert(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    unx_count(nw);
    for (int k = 0; k < NIDX; k++) {
        MPIR_Notify_entry_t **l = list_of(nw, e, k);
        MPIR_Notify_entry_t *after = *l ? (*l)->idx[k].prev : NULL;
        while (after && after->order > e->order)
            after = after == *l ? NULL : after->idx[k].prev;
        if (!after) {
            DL_PREPEND_NP(*l, e, idx[k].next, idx[k].prev);
        } else if (!after->idx[k].next) {
            DL_APPEND_NP(*l, e, idx[k].next, idx[k].prev);
        } else {
            /* between two entries (utlist has no insert-after) */
            e->idx[k].prev = after;
            e->idx[k].next = after->idx[k].next;
            after->idx[k].next->idx[k].prev = e;
            after->idx[k].next = e;
        }
    }
}

/* The first queued entry that a request (src, tag) takes, and in *k the
 * list through which it takes the rest: exactly the entries it matches, so
 * O(1) per match.  exact: the (src, tag) bucket if the caller holds it. */
MPIR_Notify_entry_t *MPIR_Notify_queue_head(struct MPIR_Notify_win *nw, int src, int tag,
                                            MPIR_Notify_bucket_t * exact, int *k)
{
    MPIR_Notify_bucket_t *b;
    if (src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG) {
        b = exact ? exact : MPIR_Notify_bucket_find(nw, src, tag);
        *k = IDX_EXACT;
    } else if (tag != MPI_ANY_TAG) {
        b = MPIR_Notify_bucket_find(nw, MPI_ANY_SOURCE, tag);
        *k = IDX_TAG;
    } else {
        *k = src == MPI_ANY_SOURCE ? IDX_ALL : IDX_SRC;
        return src == MPI_ANY_SOURCE ? nw->unx : nw->by_src[src];
    }
    return b ? b->unx : NULL;
}

bool MPIR_Notify_peek(MPIR_Win * win, int src, int tag, MPI_Status * status)
{
    int k;
    MPIR_Notify_entry_t *e =
        win->notify ? MPIR_Notify_queue_head(win->notify, src, tag, NULL, &k) : NULL;
    if (e && status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = e->src;
        status->MPI_TAG = e->tag;
        MPIR_STATUS_SET_COUNT(*status, e->bytes);
        MPIR_STATUS_SET_CANCEL_BIT(*status, FALSE);
    }
    return e != NULL;
}

void MPIR_Notify_release_taken(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    MPIR_Notify_entry_t *e = r->taken_head;
    r->taken_head = r->taken_tail = NULL;
    while (e) {
        MPIR_Notify_entry_t *next = e->next;
        MPIR_Notify_entry_drop(nw, e);
        e = next;
    }
}

/* Count one notification toward r.  e (may be NULL) is the notification's
 * live entry, kept so that it can be given back if r is freed half-way; b
 * its (src, tag) bucket or NULL. */
int MPIR_Notify_count_toward(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r,
                             MPIR_Notify_bucket_t * b, int src, int tag, MPI_Aint bytes,
                             uint64_t order, MPIR_Notify_entry_t * e)
{
    MPIR_Request *req = r->req;

    if (r->matched + 1 < r->expected && !e) {
        e = MPIR_Notify_entry_make(nw, b, src, tag, bytes, order);
        if (!e)
            return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                        MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify entry");
    }
    r->matched++;
    req->status.MPI_SOURCE = src;
    req->status.MPI_TAG = tag;
    MPIR_STATUS_SET_COUNT(req->status, bytes);
    MPIR_NOTIFY_EVENT(match, nw->win, req, src, tag, bytes);

    if (r->matched == r->expected) {
        if (e)
            MPIR_Notify_entry_drop(nw, e);
        return MPIR_Notify_finish(nw, r);
    }

    e->next = NULL;
    if (r->taken_tail)
        r->taken_tail->next = e;
    else
        r->taken_head = e;
    r->taken_tail = e;
    return MPI_SUCCESS;
}

/* A notification in its turn: to the earliest-started matching request, or
 * to the unexpected queue.  With a live entry e this cannot fail. */
int MPIR_Notify_deliver(struct MPIR_Notify_win *nw, int src, int tag, MPI_Aint bytes,
                        uint64_t order, MPIR_Notify_entry_t * e)
{
    int mpi_errno = MPI_SUCCESS;

    if (tag & MPIR_NOTIFY_COUNTER) {
        /* in issue order and after its data, like a tagged notification */
        int idx = tag & MPIR_NOTIFY_TAG_MAX;
        nw->head.stats.counted++;
        if (idx < nw->ncounters) {
            nw->counters[idx]++;
            MPIR_NOTIFY_EVENT(counter, nw->win, idx, nw->counters[idx]);
            if (nw->watches)
                MPIR_Notify_watches_check(nw, idx, nw->counters[idx]);
        } else {        /* counters detached while it was on the way */
            nw->counters_lost++;
            MPIR_NOTIFY_EVENT(dropped, nw->win, src, idx);
        }
        if (e)
            MPIR_Notify_entry_drop(nw, e);
        return MPI_SUCCESS;
    }

    MPIR_Notify_bucket_t *b = e ? e->bucket : MPIR_Notify_bucket_find(nw, src, tag);
    MPIR_Notify_req_t *r = find_posted(nw, b, src, tag);

    if (r)
        return MPIR_Notify_count_toward(nw, r, b, src, tag, bytes, order, e);

    if (!e) {
        e = MPIR_Notify_entry_make(nw, b, src, tag, bytes, order);
        MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify entry");
    }
    unx_insert(nw, e);
  fn_fail:
    return mpi_errno;
}

/*
 * Notified Access: matching of notifications to persistent requests.
 *
 * Per window (MPIR_Win.notify, created on first use):
 *   - posted requests: exact (src, tag) requests live in a hash bucket per
 *     (src, tag), in start order; wildcard requests in one list in start
 *     order.  A lookup reads one bucket head and the wildcard list up to the
 *     first request started later than that head, so its cost does not grow
 *     with the number of posted exact requests.
 *   - unexpected notifications: four lists in arrival order (all, by
 *     (src, tag), by tag, by src), so a start of any kind takes each match
 *     in O(1).  An entry costs sizeof(MPIR_Notify_entry_t) bytes (104 on
 *     x86-64), plus a bucket per distinct (src, tag) and per distinct tag
 *     queued; idle entries are freed down to the number in use
 *     (entry_release).
 *   - ordering: origins stamp each notified access with a per-(window,
 *     target) sequence number; arrivals ahead of their turn wait in a short
 *     pending list, so transports whose data completions can reorder (large
 *     or asynchronous transfers) still deliver in issue order.
 *
 * Locking: everything runs under the lock held by MPI calls and by the
 * progress engine on the window's VCI (the global critical section in the
 * default build).
 */

#include "mpiimpl.h"
#include "uthash.h"
#include "utlist.h"

/* forced: MPL_STATIC_INLINE_PREFIX only forces inlining in builds configured
 * with --enable-fast=alwaysinline, and these make up a notification's path */
#define NOTIFY_INLINE ATTRIBUTE((always_inline)) static inline

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL
      category    : NOTIFY
      type        : int
      default     : 16
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        A process waiting for notifications that shared-memory rings carry
        (MPI_Wait or MPI_Test on a notification request whose source is
        reached through them, MPIX_Win_get_notify on a window with rings)
        polls the window's rings, and on every N-th poll reads the clock:
        it runs a full round of MPI progress, so that other requests and
        MPI's progress rule are still served, once 15 times the duration
        of the window's last round has passed since that round (at most
        1/16 of the waiting time goes to full rounds).  1 runs full
        progress on every poll.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* The unexpected queue is threaded through four lists, all in arrival
 * order, so that a start of any kind takes its matches from the head of
 * one: every entry (both wildcards), the entry's (src, tag) bucket (exact
 * requests), its tag's bucket (MPI_ANY_SOURCE; key (MPI_ANY_SOURCE, tag),
 * referenced by each (src, tag) bucket of that tag) and its origin's list
 * (MPI_ANY_TAG; an array indexed by rank). */
enum { IDX_ALL, IDX_EXACT, IDX_TAG, IDX_SRC, NIDX };

/* A live entry (unexpected, parked or counted by a request) holds its
 * (src, tag) bucket, which holds its tag's bucket, so moving the entry
 * between those states never allocates: giving notifications back from a
 * freed request cannot fail. */
typedef struct MPIR_Notify_entry {
    int src, tag;
    MPI_Aint bytes;
    uint64_t order;             /* arrival number, or sequence number while pending */
    struct MPIR_Notify_entry *next;     /* taken / pending / free list */
    struct {
        struct MPIR_Notify_entry *next, *prev;
    } idx[NIDX];                /* the four lists, while unexpected */
    struct MPIR_Notify_bucket *bucket;  /* its (src, tag) bucket */
} MPIR_Notify_entry_t;

typedef struct MPIR_Notify_bucket {
    uint64_t key;
    int nbound;                 /* exact requests created for this (src, tag) */
    size_t nheld;               /* live entries; of a tag bucket: (src, tag) buckets */
    struct MPIR_Notify_bucket *tag_bucket;      /* (src, tag) bucket: its tag's bucket */
    MPIR_Notify_req_t *req_head;        /* posted exact requests, start order */
    struct MPIR_Notify_entry *unx;      /* unexpected entries of this (src, tag) or tag */
    UT_hash_handle hh;
} MPIR_Notify_bucket_t;

struct MPIR_Notify_win {
    MPIR_Notify_win_head_t head;        /* first: read inline (mpir_notify.h) */
    uint64_t start_counter;
    uint64_t arrival_counter;
    MPIR_Notify_bucket_t *buckets;
    MPIR_Notify_bucket_t *last_bucket;  /* the last one found: a stream of notifications
                                         * mostly repeats its (src, tag) */
    MPIR_Notify_req_t *wild_head;       /* posted wildcard requests, start order */
    MPIR_Notify_entry_t *unx;   /* every unexpected entry */
    MPIR_Notify_entry_t **by_src;       /* [origin] its unexpected entries */
    MPIR_Notify_entry_t **pending;      /* [origin] parked arrivals, ascending sequence */
    MPIR_Notify_entry_t *free_entries;
    size_t nfree, nlive;        /* entries on the free list / in use */
    int nreqs;                  /* notify requests bound to the window */
    int nranks;
    bool has_rings;             /* some target's path is RING */
    uint32_t *recv_seq;         /* [origin] next sequence number to deliver (after
                                 * head.send_seq, in the same allocation) */
    MPI_Count *counters;        /* [index] MPIX_Win_create_notify's counters */
    int ncounters;
    unsigned counter_polls;     /* MPIX_Win_get_notify's, for MPIR_Notify_progress_due */
    double next_round;          /* MPL_wtime seconds: a waiter's next full round is due
                                 * (MPIR_Notify_progress_round) */
    MPIR_Notify_watch_t *watches;       /* MPIX_Win_notify_on_update (notify_callback.c) */
    unsigned long counters_lost;        /* arrived for no attached counter */
};


/* ------------------------------------------------------------------ state */

/* the window's state, created on first use (out of line: once per window) */
static int state_create(MPIR_Win * win, struct MPIR_Notify_win **out)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIR_Notify_win *nw = MPL_calloc(1, sizeof(*nw), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!nw, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify state");
    nw->nranks = win->comm_ptr->local_size;
    nw->head.send_seq = MPL_calloc(2 * nw->nranks, sizeof(uint32_t), MPL_MEM_RMA);
    nw->pending = MPL_calloc(nw->nranks, sizeof(MPIR_Notify_entry_t *), MPL_MEM_RMA);
    nw->by_src = MPL_calloc(nw->nranks, sizeof(MPIR_Notify_entry_t *), MPL_MEM_RMA);
    if (!nw->head.send_seq || !nw->pending || !nw->by_src) {
        MPL_free(nw->head.send_seq);
        MPL_free(nw->pending);
        MPL_free(nw->by_src);
        MPL_free(nw);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify state");
    }
    nw->recv_seq = nw->head.send_seq + nw->nranks;
    win->notify = nw;
    *out = nw;
  fn_fail:
    return mpi_errno;
}

static inline int get_state(MPIR_Win * win, struct MPIR_Notify_win **out)
{
    if (likely(win->notify)) {
        *out = win->notify;
        return MPI_SUCCESS;
    }
    return state_create(win, out);
}

/* ------------------------------------------------------------- path table */

int MPIR_Notify_path_set(MPIR_Win * win, int target, MPIR_Notify_path_t path,
                         MPIR_Notify_why_t why)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw->head.path) {
        nw->head.path = MPL_malloc(2 * nw->nranks, MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(!nw->head.path, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify path table");
        nw->head.why = nw->head.path + nw->nranks;
        for (int r = 0; r < nw->nranks; r++) {
            nw->head.path[r] = MPIR_NOTIFY_PATH_GENERIC;
            nw->head.why[r] = r == win->comm_ptr->rank ? MPIR_NOTIFY_WHY_SELF :
                MPIR_NOTIFY_WHY_NO_FAST_PATH;
        }
    }
    nw->head.path[target] = path;
    nw->head.why[target] = why;
    nw->has_rings |= path == MPIR_NOTIFY_PATH_RING;
  fn_fail:
    return mpi_errno;
}

MPIR_Notify_why_t MPIR_Notify_path_why(MPIR_Win * win, int target)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (nw && nw->head.path)
        return nw->head.why[target];
    return target == win->comm_ptr->rank ? MPIR_NOTIFY_WHY_SELF : MPIR_NOTIFY_WHY_NO_FAST_PATH;
}

/* ------------------------------------------------------------- counters */

/* The counters live in the window's notify state; the MPI calls around
 * them (collectives, progress) are in notify_counter.c. */
int MPIR_Notify_counters_attach(MPIR_Win * win, int n)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    MPI_Count *c = MPL_calloc(n > 0 ? n : 1, sizeof(MPI_Count), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!c, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "notification counters");
    /* watches belong to the counters they watched */
    MPIR_Notify_watches_drop(win, &nw->watches);
    MPL_free(nw->counters);
    nw->counters = c;
    nw->ncounters = n;
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_watches_of(MPIR_Win * win, MPIR_Notify_watch_t *** watches)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = get_state(win, &nw);
    if (mpi_errno == MPI_SUCCESS)
        *watches = &nw->watches;
    return mpi_errno;
}

void MPIR_Notify_counters_detach(MPIR_Win * win)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (nw) {
        MPIR_Notify_watches_drop(win, &nw->watches);
        MPL_free(nw->counters);
        nw->counters = NULL;
        nw->ncounters = 0;
    }
}

int MPIR_Notify_counter_check(MPIR_Win * win, int index)
{
    int mpi_errno = MPI_SUCCESS;
    int n = win->notify ? win->notify->ncounters : 0;
    if (n == 0)
        MPIR_ERR_SETANDJUMP(mpi_errno, MPIX_ERR_INVALID_NOTIFICATION, "**notifynocounters");
    if (index < 0 || index >= n)
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPIX_ERR_INVALID_NOTIFICATION, "**notifyindex",
                             "**notifyindex %d %d", index, n);
  fn_fail:
    return mpi_errno;
}

MPI_Count *MPIR_Notify_counter(MPIR_Win * win, int index)
{
    return &win->notify->counters[index];
}

/* ------------------------------------------------------- buckets and entries */

static inline uint64_t bucket_key(int src, int tag)
{
    return ((uint64_t) (uint32_t) src << 32) | (uint32_t) tag;
}

static MPIR_Notify_bucket_t *bucket_lookup(struct MPIR_Notify_win *nw, uint64_t key)
{
    MPIR_Notify_bucket_t *b;
    HASH_FIND(hh, nw->buckets, &key, sizeof(key), b);
    if (b)
        nw->last_bucket = b;
    return b;
}

NOTIFY_INLINE MPIR_Notify_bucket_t *bucket_find(struct MPIR_Notify_win *nw, int src, int tag)
{
    MPIR_Notify_bucket_t *b = nw->last_bucket;
    uint64_t key = bucket_key(src, tag);
    if (likely(b && b->key == key))
        return b;
    return bucket_lookup(nw, key);
}

static MPIR_Notify_bucket_t *bucket_new(struct MPIR_Notify_win *nw, int src, int tag)
{
    MPIR_Notify_bucket_t *b = MPL_calloc(1, sizeof(*b), MPL_MEM_RMA);
    if (b) {
        b->key = bucket_key(src, tag);
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
static MPIR_Notify_bucket_t *bucket_ref(struct MPIR_Notify_win *nw, int src, int tag)
{
    MPIR_Notify_bucket_t *b = bucket_find(nw, src, tag), *tb;
    if (b)
        return b;
    tb = bucket_find(nw, MPI_ANY_SOURCE, tag);
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
static void bucket_unref(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b)
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
static MPIR_Notify_entry_t *entry_make(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b,
                                       int src, int tag, MPI_Aint bytes, uint64_t order)
{
    MPIR_Notify_entry_t *e;

    if (!b && !(b = bucket_ref(nw, src, tag)))
        return NULL;
    e = nw->free_entries;
    if (e) {
        nw->free_entries = e->next;
        nw->nfree--;
    } else if (!(e = MPL_malloc(sizeof(*e), MPL_MEM_RMA))) {
        bucket_unref(nw, b);
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
static void entry_drop(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    MPIR_Notify_bucket_t *b = e->bucket;
    b->nheld--;
    bucket_unref(nw, b);
    entry_release(nw, e);
}

static void entry_list_free(MPIR_Notify_entry_t * e)
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

/* ------------------------------------------------------------- posted list */

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

/* r's posted list: its bucket (exact) or the wildcard list, in start order */
NOTIFY_INLINE MPIR_Notify_req_t **posted_list(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    return r->bucket ? &r->bucket->req_head : &nw->wild_head;
}

static void post(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    DL_APPEND(*posted_list(nw, r), r);
    r->posted = true;
}

NOTIFY_INLINE void unpost(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    DL_DELETE(*posted_list(nw, r), r);
    r->next = r->prev = NULL;
    r->posted = false;
}

/* ---------------------------------------------------------- unexpected queue */

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

static void unx_unlink(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    nw->head.stats.queued--;
    for (int k = 0; k < NIDX; k++)
        DL_DELETE_NP(*list_of(nw, e, k), e, idx[k].next, idx[k].prev);
}

/* Insert by arrival number.  New arrivals go to the tails at once; only
 * entries given back by a freed request walk backwards from the tail (the
 * head's prev).  Allocates nothing. */
static void unx_insert(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e)
{
    struct MPIR_Notify_stats *st = &nw->head.stats;
    if (++st->queued > st->queued_max)
        st->queued_max = st->queued;
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
static MPIR_Notify_entry_t *queue_head(struct MPIR_Notify_win *nw, int src, int tag,
                                       MPIR_Notify_bucket_t * exact, int *k)
{
    MPIR_Notify_bucket_t *b;
    if (src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG) {
        b = exact ? exact : bucket_find(nw, src, tag);
        *k = IDX_EXACT;
    } else if (tag != MPI_ANY_TAG) {
        b = bucket_find(nw, MPI_ANY_SOURCE, tag);
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
    MPIR_Notify_entry_t *e = win->notify ? queue_head(win->notify, src, tag, NULL, &k) : NULL;
    if (e && status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = e->src;
        status->MPI_TAG = e->tag;
        MPIR_STATUS_SET_COUNT(*status, e->bytes);
        MPIR_STATUS_SET_CANCEL_BIT(*status, FALSE);
    }
    return e != NULL;
}

/* ------------------------------------------------------------------ matching */

static void release_taken(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    MPIR_Notify_entry_t *e = r->taken_head;
    r->taken_head = r->taken_tail = NULL;
    while (e) {
        MPIR_Notify_entry_t *next = e->next;
        entry_drop(nw, e);
        e = next;
    }
}

/* r has all its notifications: out of the matching structures, complete */
NOTIFY_INLINE int finish(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    if (r->taken_head)
        release_taken(nw, r);
    if (r->posted)
        unpost(nw, r);
    if (r->on_complete)
        MPIR_Notify_callback_due(r);
    /* drops the reference taken at start and bumps the VCI's progress
     * count, so a blocked MPI_Wait notices */
    return MPID_Request_complete(r->req);
}

/* Count one notification toward r.  e (may be NULL) is the notification's
 * live entry, kept so that it can be given back if r is freed half-way; b
 * its (src, tag) bucket or NULL. */
static int count_toward(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r,
                        MPIR_Notify_bucket_t * b, int src, int tag, MPI_Aint bytes,
                        uint64_t order, MPIR_Notify_entry_t * e)
{
    MPIR_Request *req = r->req;

    if (r->matched + 1 < r->expected && !e) {
        e = entry_make(nw, b, src, tag, bytes, order);
        if (!e)
            return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                        MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify entry");
    }
    r->matched++;
    req->status.MPI_SOURCE = src;
    req->status.MPI_TAG = tag;
    MPIR_STATUS_SET_COUNT(req->status, bytes);

    if (r->matched == r->expected) {
        if (e)
            entry_drop(nw, e);
        return finish(nw, r);
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
static int deliver(struct MPIR_Notify_win *nw, int src, int tag, MPI_Aint bytes, uint64_t order,
                   MPIR_Notify_entry_t * e)
{
    int mpi_errno = MPI_SUCCESS;

    if (tag & MPIR_NOTIFY_COUNTER) {
        /* in issue order and after its data, like a tagged notification */
        int idx = tag & MPIR_NOTIFY_TAG_MAX;
        nw->head.stats.counted++;
        if (idx < nw->ncounters) {
            nw->counters[idx]++;
            if (nw->watches)
                MPIR_Notify_watches_check(&nw->watches, idx, nw->counters[idx]);
        }
        else    /* counters detached while it was on the way */
            nw->counters_lost++;
        if (e)
            entry_drop(nw, e);
        return MPI_SUCCESS;
    }

    MPIR_Notify_bucket_t *b = e ? e->bucket : bucket_find(nw, src, tag);
    MPIR_Notify_req_t *r = find_posted(nw, b, src, tag);

    if (r)
        return count_toward(nw, r, b, src, tag, bytes, order, e);

    if (!e) {
        e = entry_make(nw, b, src, tag, bytes, order);
        MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify entry");
    }
    unx_insert(nw, e);
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_next_seq(MPIR_Win * win, int target, uint32_t * seq)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = get_state(win, &nw);
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
}

static int arrive(MPIR_Win * win, MPIR_Notify_path_t via, int src, int tag, MPI_Aint bytes,
                  uint32_t seq)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    nw->head.stats.arrived[via]++;

    if (seq != nw->recv_seq[src]) {
        /* ahead of an earlier access from the same origin: park it in its
         * origin's list, sorted by sequence number (arrivals are mostly in
         * order, so the walk from the head is short) */
        MPIR_Notify_entry_t *e = entry_make(nw, NULL, src, tag, bytes, seq), **pp =
            &nw->pending[src];
        MPIR_ERR_CHKANDJUMP1(!e, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify entry");
        while (*pp && (int32_t) ((uint32_t) (*pp)->order - seq) < 0)
            pp = &(*pp)->next;
        e->next = *pp;
        *pp = e;
        goto fn_exit;
    }

    mpi_errno = deliver(nw, src, tag, bytes, ++nw->arrival_counter, NULL);
    MPIR_ERR_CHECK(mpi_errno);
    nw->recv_seq[src]++;

    /* release this origin's parked successors, in order: O(1) each */
    MPIR_Notify_entry_t *e;
    while ((e = nw->pending[src]) && (uint32_t) e->order == nw->recv_seq[src]) {
        nw->pending[src] = e->next;
        e->order = ++nw->arrival_counter;
        mpi_errno = deliver(nw, e->src, e->tag, e->bytes, e->order, e);
        MPIR_ERR_CHECK(mpi_errno);
        nw->recv_seq[src]++;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Every path hands its arrivals here.  Inline, the common cases: in its
 * origin's order with nothing parked behind it, a counter update, or the
 * notification that completes the one request posted for its (src, tag)
 * (no wildcard request posted).  They do what arrive() and deliver() do,
 * without an entry or a queue; everything else takes arrive(). */
int MPIR_Notify_arrive(MPIR_Win * win, MPIR_Notify_path_t via, int src, int tag,
                       MPI_Aint bytes, uint32_t seq)
{
    struct MPIR_Notify_win *nw = win->notify;

    if (unlikely(!nw || seq != nw->recv_seq[src] || nw->pending[src]))
        return arrive(win, via, src, tag, bytes, seq);
    if (tag & MPIR_NOTIFY_COUNTER) {
        int idx = tag & MPIR_NOTIFY_TAG_MAX;
        if (unlikely(idx >= nw->ncounters || nw->watches))
            return arrive(win, via, src, tag, bytes, seq);
        nw->counters[idx]++;
        nw->head.stats.counted++;
    } else {
        MPIR_Notify_bucket_t *b;
        MPIR_Notify_req_t *r;
        if (unlikely(nw->wild_head || !(b = bucket_find(nw, src, tag)) || !(r = b->req_head) ||
                     r->matched + 1 != r->expected))
            return arrive(win, via, src, tag, bytes, seq);
        r->matched++;
        r->req->status.MPI_SOURCE = src;
        r->req->status.MPI_TAG = tag;
        MPIR_STATUS_SET_COUNT(r->req->status, bytes);
        int mpi_errno = finish(nw, r);
        if (unlikely(mpi_errno))
            return mpi_errno;
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

/* For transports that keep each origin's order themselves (libfabric with
 * ordered writes): the arrival is always the next one expected. */
int MPIR_Notify_arrive_in_order(MPIR_Win * win, MPIR_Notify_path_t via, int src, int tag,
                                MPI_Aint bytes)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = get_state(win, &nw);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = MPIR_Notify_arrive(win, via, src, tag, bytes, nw->recv_seq[src]);
    return mpi_errno;
}

/* ------------------------------------------------------------------ requests */

int MPIR_Notify_init_impl(MPIR_Win * win, int src, int tag, int expected_count, MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIR_Notify_win *nw;
    MPIR_Notify_req_t *r;

    mpi_errno = get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);

    r = MPL_calloc(1, sizeof(*r), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!r, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify request");
    r->req = req;
    r->win = win;
    r->src = src;
    r->tag = tag;
    r->expected = expected_count;
    /* the path table is fixed at window creation, so this is too */
    r->lean = src == MPI_ANY_SOURCE ? nw->has_rings :
        src != MPI_PROC_NULL && MPIR_Notify_path_of(nw, src) == MPIR_NOTIFY_PATH_RING;
    if (src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG && src != MPI_PROC_NULL) {
        r->bucket = bucket_ref(nw, src, tag);
        if (!r->bucket) {
            MPL_free(r);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                                 "notify bucket");
        }
        r->bucket->nbound++;
    }
    req->u.notify = r;

    /* inactive: test/wait return at once with an empty status */
    MPIR_cc_set(&req->cc, 0);
    req->cc_ptr = &req->cc;
    MPIR_Status_set_empty(&req->status);
    req->comm = win->comm_ptr;
    MPIR_Comm_add_ref(win->comm_ptr);
    nw->nreqs++;
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_start(MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_req_t *r = req->u.notify;
    struct MPIR_Notify_win *nw = r->win->notify;

    /* MPI_Startall's checks see every request inactive, so the same request
     * twice in one call gets here active: it must not be posted twice */
    MPIR_ERR_CHKANDJUMP(r->active, mpi_errno, MPI_ERR_REQUEST, "**notifyreqdup");

    r->active = true;
    r->matched = 0;
    req->status.MPI_ERROR = MPI_SUCCESS;
    MPIR_STATUS_SET_CANCEL_BIT(req->status, FALSE);
    req->cc_ptr = &req->cc;

    if (r->src == MPI_PROC_NULL) {
        MPIR_Status_set_procnull(&req->status);
        MPIR_cc_set(&req->cc, 0);
        if (r->on_complete)
            MPIR_Notify_callback_due(r);
        goto fn_exit;
    }

    MPIR_Status_set_empty(&req->status);
    /* the matching code holds a reference while the request is posted */
    MPIR_cc_set(&req->cc, 1);
    MPIR_Request_add_ref(req);
    r->start_seq = ++nw->start_counter;

    /* queued notifications first, in arrival order (no posted request can
     * match a queued entry, so they are all older than any competitor) */
    int k;
    MPIR_Notify_entry_t *e = queue_head(nw, r->src, r->tag, r->bucket, &k);
    while (e && r->matched < r->expected) {
        /* the next entry keeps the list's buckets alive when e is dropped */
        MPIR_Notify_entry_t *next = e->idx[k].next;
        unx_unlink(nw, e);
        nw->head.stats.from_queue++;
        mpi_errno = count_toward(nw, r, e->bucket, e->src, e->tag, e->bytes, e->order, e);
        MPIR_ERR_CHECK(mpi_errno);
        e = next;
    }

    if (r->matched < r->expected) {
        post(nw, r);
        /* then take in what the window's transports have completed so far
         * (e.g. ring cells), so a start sees every access complete at this
         * point; arriving after the queue was read and r posted, they go to
         * the earliest-started matching request without being queued */
        mpi_errno = MPID_Notify_poll(r->win);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A waiter on ring-carried notifications polls the rings, and runs a full
 * round of progress (every shm and netmod queue; on the libfabric tcp
 * provider an epoll_wait) only when one is due: every
 * MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL-th poll it reads the clock, and a round
 * is due once PACE times the window's last round has passed since that
 * round ended.  A count of polls alone made waiters spend half their time
 * in rounds where a round is slow, and see cells late by part of one;
 * paced by time, the share stays at most 1/(PACE + 1) whatever a round
 * costs on this machine, and a round still comes every few microseconds. */
#define PACE 15

static double now_s(void)
{
    MPL_time_t t;
    double s;
    MPL_wtime(&t);
    MPL_wtime_todouble(&t, &s);
    return s;
}

static bool paced(struct MPIR_Notify_win *nw)
{
    return nw && nw->has_rings && MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL > 1;
}

bool MPIR_Notify_progress_due(MPIR_Win * win, unsigned *polls)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (!paced(nw))
        return true;
    if (!polls)
        polls = &nw->counter_polls;
    return ++*polls % (unsigned) MPIR_CVAR_NOTIFY_PROGRESS_INTERVAL == 0 &&
        now_s() >= nw->next_round;
}

int MPIR_Notify_progress_round(MPIR_Win * win, void *state)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (!paced(nw))
        return MPID_Progress_test(state);
    double start = now_s();
    int mpi_errno = MPID_Progress_test(state);
    double end = now_s();
    nw->next_round = end + PACE * (end - start);
    return mpi_errno;
}

int MPIR_Notify_lean_poll(MPIR_Request * req, bool * polled)
{
    MPIR_Notify_req_t *r = req->u.notify;

    *polled = r->lean && r->active;
    if (!*polled)
        return MPI_SUCCESS;
    return MPIR_Notify_progress_due(r->win, &r->polls) ?
        MPIR_Notify_progress_round(r->win, NULL) : MPID_Notify_poll(r->win);
}

int MPIR_Notify_wait(MPIR_Request * req, void *state)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_req_t *r = req->u.notify;
    while (!MPIR_Request_is_complete(req)) {
        if (!(r->lean && r->active)) {
            mpi_errno = MPID_Progress_wait(state);
        } else if (!MPIR_Notify_progress_due(r->win, &r->polls)) {
            mpi_errno = MPID_Notify_poll(r->win);
        } else {
            /* one round, not MPID_Progress_wait's rounds until something
             * completes: the rings are polled between them */
            mpi_errno = MPIR_Notify_progress_round(r->win, state);
#if MPICH_THREAD_GRANULARITY == MPICH_THREAD_GRANULARITY__GLOBAL
            MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
#endif
        }
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_cancel(MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_req_t *r = req->u.notify;

    MPIR_ERR_CHKANDJUMP(!r->active, mpi_errno, MPI_ERR_REQUEST, "**notifycancelinactive");
    /* what is already complete at this process counts before the cancel */
    mpi_errno = MPID_Notify_poll(r->win);
    MPIR_ERR_CHECK(mpi_errno);
    /* only an untouched request can be cancelled; otherwise it completes
     * normally and keeps what it matched */
    if (r->posted && r->matched == 0) {
        unpost(r->win->notify, r);
        MPIR_STATUS_SET_CANCEL_BIT(req->status, TRUE);
        MPIR_STATUS_SET_COUNT(req->status, 0);
        mpi_errno = MPID_Request_complete(req);
        /* a cancelled activation is a completed one: its function runs,
         * and the status says it was cancelled */
        if (r->on_complete)
            MPIR_Notify_callback_due(r);
    }
  fn_fail:
    return mpi_errno;
}

void MPIR_Notify_request_free(MPIR_Request * req)
{
    MPIR_Notify_req_t *r = req->u.notify;
    struct MPIR_Notify_win *nw = r->win->notify;

    MPIR_Notify_callback_forget(r);

    if (r->posted) {
        /* give counted notifications back, in arrival order, to whichever
         * request or queue they would have gone to without r */
        MPIR_Notify_entry_t *e = r->taken_head;
        r->taken_head = r->taken_tail = NULL;
        unpost(nw, r);
        while (e) {
            MPIR_Notify_entry_t *next = e->next;
            /* e is live and holds its buckets: nothing is allocated, so
             * this cannot fail */
            int err = deliver(nw, e->src, e->tag, e->bytes, e->order, e);
            MPIR_Assert(err == MPI_SUCCESS);
            e = next;
        }
        MPID_Request_complete(req);
    }
    if (r->bucket) {
        r->bucket->nbound--;
        bucket_unref(nw, r->bucket);
    }
    nw->nreqs--;
    req->u.notify = NULL;
    MPL_free(r);
}

int MPIR_Notify_completion_processing(MPIR_Request * req, MPI_Status * status)
{
    MPIR_Notify_req_t *r = req->u.notify;

    if (!r->active) {
        MPIR_Status_set_empty(status);
        return MPI_SUCCESS;
    }
    r->active = false;
    MPIR_Request_extract_status(req, status);
    return req->status.MPI_ERROR;
}

void MPIR_Notify_get_status(MPIR_Request * req, MPI_Status * status)
{
    if (req->u.notify->active) {
        MPIR_Request_extract_status(req, status);
    } else {
        MPIR_Status_set_empty(status);
    }
}

/* ------------------------------------------------------------------ window */

/* Called by MPI_Win_free before anything is torn down (attributes, error
 * handler, device state), and collective, so that every process refuses if
 * any still has notification requests of the window: none enters the
 * device's barrier alone, and the window stays fully valid. */
/* MPI_Win_free's barrier (patch 0008 drops ch4's own): a reduction that
 * also tells every process whether any holds notification requests of the
 * window, so that all refuse together, before anything is torn down, at
 * the cost of the barrier alone */
int MPIR_Notify_win_free_check(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    int mine = win->notify ? win->notify->nreqs : 0;
    int holders = 0, has = mine > 0;

    mpi_errno = MPIR_Allreduce(&has, &holders, 1, MPI_INT, MPI_SUM, win->comm_ptr, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (mine > 0)
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_WIN, "**notifywinfree", "**notifywinfree %d",
                             mine);
    if (holders > 0)
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_WIN, "**notifywinfreeany",
                             "**notifywinfreeany %d", holders);
  fn_fail:
    return mpi_errno;
}

void MPIR_Notify_win_destroy(MPIR_Win * win)
{
    struct MPIR_Notify_win *nw = win->notify;
    MPIR_Notify_bucket_t *b, *tmp;

    if (!nw)
        return;
    MPIR_Assert(nw->nreqs == 0);
    if (MPIR_CVAR_NOTIFY_STATS)
        MPIR_Notify_stats_report(win);
    MPIR_Notify_watches_drop(win, &nw->watches);
    /* notifications nobody asked for die with the window */
    for (MPIR_Notify_entry_t * e = nw->unx, *next; e; e = next) {
        next = e->idx[IDX_ALL].next;
        MPL_free(e);
    }
    for (int r = 0; r < nw->nranks; r++)
        entry_list_free(nw->pending[r]);
    entry_list_free(nw->free_entries);
    HASH_ITER(hh, nw->buckets, b, tmp) {
        HASH_DELETE(hh, nw->buckets, b);
        MPL_free(b);
    }
    MPL_free(nw->head.send_seq);
    MPL_free(nw->pending);
    MPL_free(nw->by_src);
    MPL_free(nw->head.path);
    MPL_free(nw->counters);
    MPL_free(nw);
    win->notify = NULL;
}

/* mpi.h promises one bound on every transport */
_Static_assert(MPI_NOTIFY_TAG_UB == MPIR_NOTIFY_TAG_MAX, "MPI_NOTIFY_TAG_UB != MPIR_NOTIFY_TAG_MAX");

/* MPI_Rput_notify and the other request-based calls to MPI_PROC_NULL: a
 * completed request, as MPI_Rput gives (MPICH's binding generator makes
 * that early return only for calls named like MPI's own). */
int MPIR_Notify_null_request(MPI_Request * request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
    MPIR_ERR_CHKANDJUMP(req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    *request = req->handle;
  fn_fail:
    return mpi_errno;
}

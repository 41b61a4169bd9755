/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, device-independent side: what the files of
 * src/mpi/notify/ share and no one else sees.  The per-window state
 * (struct MPIR_Notify_win, created on first use and hung on
 * MPIR_Win.notify), the unexpected queue's entries and buckets, and the
 * inline steps of a notification's way from MPIR_Notify_arrive to a
 * completed request.
 *
 *   notify_win.c      the window's state, its path table, its end
 *   notify_queue.c    buckets, posted requests, the unexpected queue,
 *                     matching (deliver, count_toward)
 *   notify_order.c    per-origin issue order: sequence numbers, arrivals
 *                     ahead of their turn, MPIR_Notify_arrive
 *   notify_request.c  MPI_Notify_init requests: start, wait, test, cancel,
 *                     free, status
 *   notify_counter.c  the counter dialect's counters and their watches
 *   notify_path.c, notify_stats.c  MPI_T's view of the path table and of
 *                     what arrived
 *   notify_probe.c    MPIX_Notify_iprobe, MPIX_Notify_probe
 *
 * Locking: everything runs under the lock held by MPI calls and by the
 * progress engine on the window's VCI (the global critical section in the
 * default build).
 */
#ifndef NOTIFY_IMPL_H_INCLUDED
#define NOTIFY_IMPL_H_INCLUDED

#include "mpiimpl.h"
#include "uthash.h"
#include "utlist.h"

/* forced: MPL_STATIC_INLINE_PREFIX only forces inlining in builds configured
 * with --enable-fast=alwaysinline, and these make up a notification's path */
#define NOTIFY_INLINE ATTRIBUTE((always_inline)) static inline

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
    bool has_polled;            /* some target's path is polled (MPIR_Notify_path_polled) */
    uint32_t *recv_seq;         /* [origin] next sequence number to deliver (after
                                 * head.send_seq, in the same allocation) */
    MPI_Count *counters;        /* [index] MPIX_Win_create_notify's counters */
    MPI_Count *counters_read;   /* [index] the value MPIX_Win_get_notify last returned
                                 * (after the counters, in their allocation) */
    int ncounters;
    int assert_max;             /* mpi_assert_max_num_notify, 0: none */
    int attr_num[2];            /* MPI_Win_get_attr's copies: NUMSB, NUMUB */
    MPI_Count attr_value_ub;    /* and VALUE_UB */
    int *peer_ncounters;        /* [rank] the counters each process attached, once any were */
    unsigned counter_polls;     /* MPIX_Win_get_notify's, for MPIR_Notify_progress_due */
    double next_round;          /* MPL_wtime seconds: a waiter's next full round is due
                                 * (MPIR_Notify_progress_round) */
    struct MPIR_Notify_watch *watches;  /* MPIX_Win_notify_on_update (notify_counter.c) */
    unsigned long counters_lost;        /* arrived for no attached counter */
    MPIR_Win *win;              /* the window, for the MPI_T events' data */
};

/* notify_events.c: MPI_T events (source "notify").  MPIR_NOTIFY_EVENT costs
 * one load while no tool has an event registration (hook 0016). */
enum {
    MPIR_NOTIFY_EVENT_ARRIVAL, MPIR_NOTIFY_EVENT_MATCH, MPIR_NOTIFY_EVENT_COUNTER,
    MPIR_NOTIFY_EVENT_DROPPED, MPIR_NOTIFY_EVENT_REFUSED, MPIR_NOTIFY_EVENT_COUNT
};
typedef struct {
    int win, source, tag, counter, path;
    MPI_Aint bytes;
} MPIR_Notify_event_arrival_t;
typedef struct {
    int win, request, source, tag;
    MPI_Aint bytes;
} MPIR_Notify_event_match_t;
typedef struct {
    int win, counter;
    MPI_Count value;
} MPIR_Notify_event_counter_t;
typedef struct {
    int win, source, counter;
} MPIR_Notify_event_dropped_t;
typedef struct {
    int win, target;
} MPIR_Notify_event_refused_t;
void MPIR_Notify_event_arrival(MPIR_Win * win, int src, int tag, MPI_Aint bytes, int path);
void MPIR_Notify_event_match(MPIR_Win * win, MPIR_Request * req, int src, int tag, MPI_Aint bytes);
void MPIR_Notify_event_counter(MPIR_Win * win, int idx, MPI_Count value);
void MPIR_Notify_event_dropped(MPIR_Win * win, int src, int idx);
void MPIR_Notify_event_refused(MPIR_Win * win, int target);
#ifdef HAVE_MPIT_EVENTS
#define MPIR_NOTIFY_EVENTS_ON() unlikely(MPIR_T_event_registrations)
#define MPIR_NOTIFY_EVENT(which_, ...) do {                     \
        if (MPIR_NOTIFY_EVENTS_ON())                            \
            MPIR_Notify_event_##which_(__VA_ARGS__);            \
    } while (0)
#else
#define MPIR_NOTIFY_EVENTS_ON() 0
#define MPIR_NOTIFY_EVENT(which_, ...) do { } while (0)
#endif

/* notify_win.c */
int MPIR_Notify_state_create(MPIR_Win * win, struct MPIR_Notify_win **out);

/* notify_counter.c: counter idx went up to value (deliver) */
void MPIR_Notify_watches_check(struct MPIR_Notify_win *nw, int idx, MPI_Count value);
/* the counters are detached or the window freed: its watches go */
void MPIR_Notify_watches_drop(struct MPIR_Notify_win *nw);

/* notify_queue.c */
MPIR_Notify_bucket_t *MPIR_Notify_bucket_lookup(struct MPIR_Notify_win *nw, uint64_t key);
MPIR_Notify_bucket_t *MPIR_Notify_bucket_ref(struct MPIR_Notify_win *nw, int src, int tag);
void MPIR_Notify_bucket_unref(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b);
MPIR_Notify_entry_t *MPIR_Notify_entry_make(struct MPIR_Notify_win *nw, MPIR_Notify_bucket_t * b,
                                            int src, int tag, MPI_Aint bytes, uint64_t order);
void MPIR_Notify_entry_drop(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e);
void MPIR_Notify_entry_list_free(MPIR_Notify_entry_t * e);
void MPIR_Notify_post(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r);
void MPIR_Notify_unx_unlink(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e);
void MPIR_Notify_unx_append(struct MPIR_Notify_win *nw, MPIR_Notify_entry_t * e);
MPIR_Notify_entry_t *MPIR_Notify_queue_head(struct MPIR_Notify_win *nw, int src, int tag,
                                            MPIR_Notify_bucket_t * exact, int *k);
void MPIR_Notify_release_taken(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r);
int MPIR_Notify_count_toward(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r,
                             MPIR_Notify_bucket_t * b, int src, int tag, MPI_Aint bytes,
                             uint64_t order, MPIR_Notify_entry_t * e);
int MPIR_Notify_deliver(struct MPIR_Notify_win *nw, int src, int tag, MPI_Aint bytes,
                        uint64_t order, MPIR_Notify_entry_t * e);

NOTIFY_INLINE int MPIR_Notify_get_state(MPIR_Win * win, struct MPIR_Notify_win **out)
{
    if (likely(win->notify)) {
        *out = win->notify;
        return MPI_SUCCESS;
    }
    return MPIR_Notify_state_create(win, out);
}

NOTIFY_INLINE uint64_t MPIR_Notify_bucket_key(int src, int tag)
{
    return ((uint64_t) (uint32_t) src << 32) | (uint32_t) tag;
}

NOTIFY_INLINE MPIR_Notify_bucket_t *MPIR_Notify_bucket_find(struct MPIR_Notify_win *nw, int src,
                                                            int tag)
{
    MPIR_Notify_bucket_t *b = nw->last_bucket;
    uint64_t key = MPIR_Notify_bucket_key(src, tag);
    if (likely(b && b->key == key))
        return b;
    return MPIR_Notify_bucket_lookup(nw, key);
}

/* r's posted list: its bucket (exact) or the wildcard list, in start order */
NOTIFY_INLINE MPIR_Notify_req_t **MPIR_Notify_posted_list(struct MPIR_Notify_win *nw,
                                                          MPIR_Notify_req_t * r)
{
    return r->bucket ? &r->bucket->req_head : &nw->wild_head;
}

/* r out of its posted list, which the caller may know already */
NOTIFY_INLINE void MPIR_Notify_unpost_from(MPIR_Notify_req_t ** list, MPIR_Notify_req_t * r)
{
    DL_DELETE(*list, r);
    r->next = r->prev = NULL;
    r->posted = false;
}

NOTIFY_INLINE void MPIR_Notify_unpost(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    MPIR_Notify_unpost_from(MPIR_Notify_posted_list(nw, r), r);
}

/* req, out of the matching structures, complete.  What MPID_Request_complete
 * does, less what a notification request never has (the device's
 * active-message state, a completion counter) and a free that cannot
 * happen here: the user's reference outlives the matching's, since a
 * request freed while posted is unposted first (MPIR_Notify_request_free).
 * The device's free hook bumps the VCI's progress count, so a blocked
 * MPI_Wait notices. */
NOTIFY_INLINE void MPIR_Notify_req_complete(MPIR_Request * req)
{
    int incomplete, inuse;
    MPIR_cc_decr(req->cc_ptr, &incomplete);
    MPIR_Assert(!incomplete);
    MPIR_Request_release_ref(req, &inuse);
    MPIR_Assert(inuse);
    MPID_Request_free_hook(req);
}

/* r has all its notifications: out of the matching structures, complete */
NOTIFY_INLINE int MPIR_Notify_finish(struct MPIR_Notify_win *nw, MPIR_Notify_req_t * r)
{
    if (r->taken_head)
        MPIR_Notify_release_taken(nw, r);
    if (r->posted)
        MPIR_Notify_unpost(nw, r);
    MPIR_Notify_req_complete(r->req);
    return MPI_SUCCESS;
}

#endif /* NOTIFY_IMPL_H_INCLUDED */

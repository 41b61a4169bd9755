/*
 * Notified Access: device-independent part (requests, matching, ordering).
 *
 * A notification is produced by MPI_Put_notify / MPI_Get_notify at the origin,
 * carried by a transport (ch4 MPIDIG active messages for now), and handed to
 * MPIR_Notify_arrive() at the target once the access is complete there.  The
 * code in src/mpi/notify/ then restores issue order per origin, matches it to
 * the earliest-started persistent request of the window (or queues it as
 * unexpected) and completes requests whose count is reached.
 *
 * All functions here run under the lock that protects the window's progress
 * (the global critical section in MPICH's default thread granularity).
 */
#ifndef MPIR_NOTIFY_H_INCLUDED
#define MPIR_NOTIFY_H_INCLUDED

#include <stdint.h>
#include <stdbool.h>

/* Notification tags are 24 bits on every transport: the libfabric path packs
 * (window, origin, tag) into 64 bits of remote CQ data. */
#define MPIR_NOTIFY_TAG_BITS 24
#define MPIR_NOTIFY_TAG_MAX  ((1 << MPIR_NOTIFY_TAG_BITS) - 1)

/* notify_tag of an ordinary (non-notified) put or get */
#define MPIR_NOTIFY_NONE (-1)

struct MPIR_Request;
struct MPIR_Win;
struct MPIR_Notify_win;
struct MPIR_Notify_entry;

/* Per-request state of a MPIR_REQUEST_KIND__NOTIFY request (req->u.notify). */
typedef struct MPIR_Notify_req {
    struct MPIR_Request *req;   /* back pointer */
    struct MPIR_Win *win;
    int src, tag, expected;
    int matched;
    bool active;                /* started and not yet returned by test/wait */
    bool posted;                /* in the window's matching structures */
    uint64_t start_seq;         /* start order: earliest-started wins */
    struct MPIR_Notify_req *next, *prev;        /* posted list (bucket or wildcard) */
    struct MPIR_Notify_bucket *bucket;  /* exact requests: their (src, tag) bucket, for life */
    /* notifications counted so far; given back to the queue if the request is
     * freed while active, so that none is lost */
    struct MPIR_Notify_entry *taken_head, *taken_tail;
} MPIR_Notify_req_t;

/* request kind helpers used by MPICH's generic request code */
static inline int MPIR_Notify_request_is_active(const MPIR_Notify_req_t * nreq)
{
    return nreq->active;
}

/* --- called from bindings / ch4 --- */
int MPIR_Notify_init_impl(struct MPIR_Win *win, int src, int tag, int expected_count,
                          struct MPIR_Request *req);
int MPIR_Notify_start(struct MPIR_Request *req);
int MPIR_Notify_cancel(struct MPIR_Request *req);
void MPIR_Notify_request_free(struct MPIR_Request *req);
int MPIR_Notify_completion_processing(struct MPIR_Request *req, MPI_Status * status);
void MPIR_Notify_get_status(struct MPIR_Request *req, MPI_Status * status);

/* --- window life cycle --- */
void MPIR_Notify_win_destroy(struct MPIR_Win *win);
int MPIR_Notify_win_free_check(struct MPIR_Win *win);

/* --- transports --- */
/* Origin: next sequence number for a notified access to target (per window). */
int MPIR_Notify_next_seq(struct MPIR_Win *win, int target, uint32_t * seq);
void MPIR_Notify_unnumber(struct MPIR_Win *win, int target, uint32_t seq);
/* Target: the access (src, tag, bytes, seq) is complete in target memory. */
int MPIR_Notify_arrive(struct MPIR_Win *win, int src, int tag, MPI_Aint bytes, uint32_t seq);
/* Target: same, from a transport that delivers each origin's accesses in order. */
int MPIR_Notify_arrive_in_order(struct MPIR_Win *win, int src, int tag, MPI_Aint bytes);

#endif /* MPIR_NOTIFY_H_INCLUDED */

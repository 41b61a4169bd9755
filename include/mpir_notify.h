/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: device-independent part (requests, matching, ordering).
 *
 * A notification is produced by MPI_Put_notify / MPI_Get_notify at the origin,
 * carried by one of the device's transports, and handed to
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
#include "mpir_request_callback.h"

/* Notification tags are 24 bits on every transport, so that the narrowest
 * carrier (a 64-bit word of window, origin and tag) fits one. */
#define MPIR_NOTIFY_TAG_BITS 24
#define MPIR_NOTIFY_TAG_MAX  ((1 << MPIR_NOTIFY_TAG_BITS) - 1)

/* notify_tag of an ordinary (non-notified) put or get */
#define MPIR_NOTIFY_NONE (-1)

/* A counter notification (MPIX_Put_notify, MPIX_Get_notify) travels on
 * every transport where a tag does, as MPIR_NOTIFY_COUNTER | index: after
 * its data and in issue order like any notification, it adds one to the
 * target's counter instead of being matched. */
#define MPIR_NOTIFY_COUNTER (1 << 30)

/* The matching dialect's tag check, made also where error checking is
 * compiled out: a counter access reaches the device as MPIR_NOTIFY_COUNTER |
 * index, and a user's tag must never pass for one. */
#define MPIR_NOTIFY_ERRTEST_TAG(tag_, err_)                                   \
    do {                                                                      \
        if (unlikely((unsigned) (tag_) > MPIR_NOTIFY_TAG_MAX))                \
            MPIR_ERR_SETANDJUMP2(err_, MPI_ERR_TAG, "**notifytag",            \
                                 "**notifytag %d %d", (tag_), MPIR_NOTIFY_TAG_MAX); \
    } while (0)

/* MPI_Put_notify and its kin take the paper's (..., win, tag) and the MPI
 * Forum draft's (..., notification_idx, win) alike.  A window handle, even
 * MPI_WIN_NULL, carries MPICH's window kind in its MPI-kind bits, which no
 * tag or counter index (both below 2^24) has: the draft's form is the call
 * whose last argument is a window handle.  Everything else is the paper's,
 * and its checks report what is wrong. */
#define MPIR_NOTIFY_IS_WIN_HANDLE(h_) (HANDLE_GET_MPI_KIND(h_) == MPIR_WIN)
#define MPIR_NOTIFY_DRAFT_FORM(last_) unlikely(MPIR_NOTIFY_IS_WIN_HANDLE(last_))
/* the draft's window and index, where the paper's window and tag go */
#define MPIR_NOTIFY_DRAFT_SWAP(win_, tag_)                                    \
    do {                                                                      \
        int idx_ = (int) (win_);                                              \
        (win_) = (MPI_Win) (tag_);                                            \
        (tag_) = idx_;                                                        \
    } while (0)
/* The first step of the calls both spellings share: the paper's tag
 * checked, or the draft's counter index checked against the target's
 * counters and made a counter notification, as MPIX_Put_notify's */
#define MPIR_NOTIFY_ERRTEST_TAG_OR_INDEX(draft_, win_ptr_, target_rank_, tag_, err_) \
    do {                                                                      \
        if (likely(!(draft_))) {                                              \
            MPIR_NOTIFY_ERRTEST_TAG(tag_, err_);                              \
        } else if ((target_rank_) != MPI_PROC_NULL) {                         \
            err_ = MPIR_Notify_counter_check_at(win_ptr_, target_rank_, tag_); \
            MPIR_ERR_CHECK(err_);                                             \
            (tag_) |= MPIR_NOTIFY_COUNTER;                                    \
        }                                                                     \
    } while (0)

struct MPIR_Request;
struct MPIR_Win;
struct MPIR_Notify_win;
struct MPIR_Notify_entry;

/* The window of a notification request, NULL for any other request: errors
 * of MPI_Start, MPI_Cancel, MPI_Wait and MPI_Test on it go to the window's
 * error handler (the bindings' generator, hook 0013) */
#define MPIR_NOTIFY_REQUEST_WIN(req_) \
    ((req_) && (req_)->kind == MPIR_REQUEST_KIND__NOTIFY ? (req_)->u.notify->win : NULL)
/* and of MPI_Waitall and the other array forms, on their error path only */
struct MPIR_Win *MPIR_Notify_requests_win(int count, const MPI_Request reqs[]);

/* Per-request state of a MPIR_REQUEST_KIND__NOTIFY request (req->u.notify). */
typedef struct MPIR_Notify_req {
    struct MPIR_Request *req;   /* back pointer */
    struct MPIR_Win *win;
    int src, tag, expected;
    int matched;
    bool active;                /* started and not yet returned by test/wait */
    bool posted;                /* in the window's matching structures */
    bool lean;                  /* its notifications may come on a polled path:
                                 * wait and test poll it (MPIR_Notify_lean_poll) */
    unsigned polls;             /* lean polls made, for the progress interval */
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

/* The generic path's notification at the origin (carried in MPICH's
 * active-message RMA headers: MPIR_Notify_wire below); tag
 * MPIR_NOTIFY_NONE for an ordinary put or get. */
typedef struct MPIR_Notify_hdr {
    int tag;
    uint32_t seq;
    /* -1: the status reports the access's own byte count; >= 0: this one
     * (a notification sent after an access the origin already applied,
     * MPIDIG_notify_only) */
    MPI_Aint bytes;
} MPIR_Notify_hdr_t;

/* ... and at the target until the access is complete there (MPIDIG_req_t) */
typedef struct MPIR_Notify_target {
    MPIR_Notify_hdr_t hdr;
    MPI_Aint bytes;
    void *copy;                 /* notified get: the data read, until sent */
} MPIR_Notify_target_t;

static inline MPIR_Notify_target_t MPIR_Notify_target(MPIR_Notify_hdr_t hdr, MPI_Aint bytes)
{
    MPIR_Notify_target_t t = { hdr, bytes, NULL };
    return t;
}

/* On the wire (MPIDIG_put_msg_t and the other RMA headers, ch4_types.h) a
 * notification is two 4-byte fields, notify_tag and notify_seq, in what
 * was padding: a plain MPI_Put's header keeps stock MPICH's size.  The one
 * notification with a byte count of its own (MPIDIG_notify_only) is a
 * zero-byte put, whose target_disp addresses nothing: the count travels
 * there, flagged in the tag. */
#define MPIR_NOTIFY_BYTES_IN_DISP (1 << 29)
static inline void MPIR_Notify_wire(int *tag, uint32_t * seq, const MPIR_Notify_hdr_t * notify)
{
    *tag = notify ? notify->tag : MPIR_NOTIFY_NONE;
    *seq = notify ? notify->seq : 0;
}

/* a put's: returns the target_disp to send */
static inline MPI_Aint MPIR_Notify_wire_put(int *tag, uint32_t * seq,
                                            const MPIR_Notify_hdr_t * notify, MPI_Aint disp)
{
    MPIR_Notify_wire(tag, seq, notify);
    if (!notify || notify->bytes < 0)
        return disp;
    *tag |= MPIR_NOTIFY_BYTES_IN_DISP;
    return notify->bytes;
}

/* at the target: what the header carried, for an access of bytes */
static inline MPIR_Notify_target_t MPIR_Notify_target_wire(int tag, uint32_t seq, MPI_Aint bytes)
{
    MPIR_Notify_hdr_t hdr = { tag, seq, -1 };
    return MPIR_Notify_target(hdr, bytes);
}

static inline MPIR_Notify_target_t MPIR_Notify_target_put(int tag, uint32_t seq, MPI_Aint disp,
                                                          MPI_Aint bytes)
{
    MPIR_Notify_hdr_t hdr = { tag, seq, -1 };
    if (tag != MPIR_NOTIFY_NONE && (tag & MPIR_NOTIFY_BYTES_IN_DISP)) {
        hdr.tag = tag & ~MPIR_NOTIFY_BYTES_IN_DISP;
        hdr.bytes = disp;
    }
    return MPIR_Notify_target(hdr, bytes);
}

/* The accumulate family of notified accesses (MPI_Accumulate_notify,
 * MPI_Get_accumulate_notify, MPI_Fetch_and_op_notify,
 * MPI_Compare_and_swap_notify and the counter dialect's), as ch4 hands it to
 * a transport (mpi_accumulate_notify in ch4_api.txt): one description for
 * every kind, so each transport has one entry point for all of them. */
typedef enum MPIR_Notify_acc_kind {
    MPIR_NOTIFY_ACC,            /* accumulate */
    MPIR_NOTIFY_GET_ACC,        /* get-accumulate; fetch-and-op is one with count 1 */
    MPIR_NOTIFY_CAS             /* compare-and-swap of one origin_datatype element */
} MPIR_Notify_acc_kind_t;

typedef struct MPIR_Notify_acc {
    MPIR_Notify_acc_kind_t kind;
    const void *origin_addr;
    MPI_Aint origin_count;      /* counts: as the binding got them (ch4 checks they fit an int) */
    MPI_Datatype origin_datatype;
    void *result_addr;          /* GET_ACC, CAS */
    MPI_Aint result_count;
    MPI_Datatype result_datatype;
    const void *compare_addr;   /* CAS */
    int target_rank;
    MPI_Aint target_disp;
    MPI_Aint target_count;
    MPI_Datatype target_datatype;
    MPI_Op op;                  /* ACC, GET_ACC */
    MPI_Aint bytes;             /* at the target (> 0): the byte count the status reports */
    struct MPIR_Request **request;      /* MPI_Raccumulate_notify ...: the origin's request */
} MPIR_Notify_acc_t;

/* --- the path table ---
 * How a window's notified accesses reach each target, chosen once by the
 * transports' window hooks at window creation and kept for the window's
 * life.  Producers switch on it; the verbose report and MPI_T (performance
 * variables notify_path and notify_path_reason, bound to a window:
 * src/mpi/notify/notify_path.c) read it.  Targets no hook claims take the
 * generic path.  The device names its own paths and reasons in
 * mpid_notify_paths.h (MPID_NOTIFY_PATHS, MPID_NOTIFY_REASONS), so that a
 * transport's words stay in the device.
 *
 * X(ID, pvar suffix, MPI_T name, polled, how a notification arrives on it) */
#include "mpid_notify_paths.h"
#define MPIR_NOTIFY_PATHS(X)                                                    \
    X(GENERIC, generic, "generic", false,                                       \
      "over the generic path (MPICH's active-message RMA)")                     \
    MPID_NOTIFY_PATHS(X)

#define MPIR_NOTIFY_PATH_ID(id_, var_, name_, polled_, how_) MPIR_NOTIFY_PATH_##id_,
/* *INDENT-OFF* */
typedef enum MPIR_Notify_path {
    MPIR_NOTIFY_PATHS(MPIR_NOTIFY_PATH_ID)
    MPIR_NOTIFY_PATH_REFUSED    /* a path that was forced is missing: accesses fail */
} MPIR_Notify_path_t;
/* *INDENT-ON* */
#undef MPIR_NOTIFY_PATH_ID
#define MPIR_NOTIFY_PATH_COUNT MPIR_NOTIFY_PATH_REFUSED /* paths that carry */

/* Why a target has its path: X(ID, MPI_T enum name, text) */
#define MPIR_NOTIFY_REASONS(X) \
    X(NO_FAST_PATH, "no-fast-path", "no transport offers a fast path to this target") \
    X(SELF, "self", "the target is the calling process") \
    X(FORCED, "forced", "generic path forced") \
    MPID_NOTIFY_REASONS(X)

#define MPIR_NOTIFY_WHY_ID(id_, name_, text_) MPIR_NOTIFY_WHY_##id_,
typedef enum MPIR_Notify_why {
    MPIR_NOTIFY_REASONS(MPIR_NOTIFY_WHY_ID) MPIR_NOTIFY_WHY_COUNT
} MPIR_Notify_why_t;
#undef MPIR_NOTIFY_WHY_ID

/* window hooks: claim target for a path (collective calls of window creation) */
int MPIR_Notify_path_set(struct MPIR_Win *win, int target, MPIR_Notify_path_t path,
                         MPIR_Notify_why_t why);
/* The head of a window's notify state (win->notify; the rest is private to
 * src/mpi/notify/, notify_impl.h): what a producer reads on every access, so that the lookup below
 * inlines into the put and get paths. */
typedef struct MPIR_Notify_win_head {
    uint8_t *path, *why;        /* [target] the path table, or NULL */
    uint32_t *send_seq;         /* [target] the next sequence number to stamp */
    void *dev;                  /* the device's own per-window state for its producers, or NULL */
    struct MPIR_Notify_stats {  /* at this process, for MPI_T (notify_stats.c) */
        unsigned long long arrived[MPIR_NOTIFY_PATH_COUNT];     /* by the path that carried it */
        unsigned long long counted;     /* counter updates */
        unsigned long long from_queue;  /* taken from the unexpected queue by MPI_Start */
        unsigned long long queued, queued_max;  /* unexpected queue length, its high-water mark */
        /* where a flush waits for the target's word (the libfabric eager
         * path, UCX): answers sent as messages of their own, and FLUSH
         * messages that asked a target for them */
        unsigned long long answers_sent, answers_asked;
    } stats;
} MPIR_Notify_win_head_t;

static inline MPIR_Notify_path_t MPIR_Notify_path_of(const struct MPIR_Notify_win *nw, int target)
{
    const MPIR_Notify_win_head_t *h = (const MPIR_Notify_win_head_t *) nw;
    return h && h->path ? (MPIR_Notify_path_t) h->path[target] : MPIR_NOTIFY_PATH_GENERIC;
}

/* producers: the path to target (GENERIC unless a hook claimed it) */
#define MPIR_Notify_path(win, target) MPIR_Notify_path_of((win)->notify, target)
MPIR_Notify_why_t MPIR_Notify_path_why(struct MPIR_Win *win, int target);
const char *MPIR_Notify_why_text(MPIR_Notify_why_t why);
/* the table in words, e.g. "generic to 2 (self 1, forced 1)",
 * for the device's verbose report */
void MPIR_Notify_path_describe(struct MPIR_Win *win, char *buf, size_t len);
/* whether MPID_Notify_poll finds what path carries (MPIR_NOTIFY_PATHS) */
/* *INDENT-OFF* */
static inline bool MPIR_Notify_path_polled(MPIR_Notify_path_t path)
{
#define MPIR_NOTIFY_PATH_POLLED(id_, var_, name_, polled_, how_) \
    if (path == MPIR_NOTIFY_PATH_##id_) return polled_;
    MPIR_NOTIFY_PATHS(MPIR_NOTIFY_PATH_POLLED)
#undef MPIR_NOTIFY_PATH_POLLED
    return false;
}
/* *INDENT-ON* */
/* MPI_T performance variables, registered at MPI initialisation (this
 * registers those of notify_stats.c too) */
void MPIR_Notify_path_pvars_init(void);
void MPIR_Notify_stats_pvars_init(void);
/* the MPI_T events (notify_events.c), registered with the pvars */
void MPIR_Notify_events_init(void);
/* the window an MPI_T handle was allocated for; NULL for anything else */
struct MPIR_Win *MPIR_Notify_pvar_win(void *obj_handle);
/* MPIR_CVAR_NOTIFY_STATS: the window's statistics to stderr (at its free) */
void MPIR_Notify_stats_report(struct MPIR_Win *win);

/* --- called from bindings / the device --- */
int MPIR_Notify_init_impl(struct MPIR_Win *win, int src, int tag, int expected_count,
                          struct MPIR_Request *req);
int MPIR_Notify_start(struct MPIR_Request *req);
int MPIR_Notify_cancel(struct MPIR_Request *req);
/* MPI_Test on req (MPIR_Test_state): poll its window's polled paths instead of a
 * full round of progress, except when one is due (MPIR_Notify_progress_due);
 * *polled: this did either, and the caller need not */
int MPIR_Notify_lean_poll(struct MPIR_Request *req, bool *polled);
/* MPI_Wait on req (MPIR_Wait_state): the same, until req completes.
 * state is an MPID_Progress_state *, not yet declared where this header is
 * included (mpir_request.h) */
int MPIR_Notify_wait(struct MPIR_Request *req, void *state);
/* whether a poller of win's notifications (*polls: its count of polls;
 * NULL: the window's counter readers') is due a full round of progress:
 * always on a window without polled paths, else paced by time (notify_request.c) */
bool MPIR_Notify_progress_due(struct MPIR_Win *win, unsigned *polls);
/* the round progress_due asked for (state: an MPID_Progress_state *, or
 * NULL), timed to pace the next */
int MPIR_Notify_progress_round(struct MPIR_Win *win, void *state);
void MPIR_Notify_request_free(struct MPIR_Request *req);
int MPIR_Notify_completion_processing(struct MPIR_Request *req, MPI_Status * status);
void MPIR_Notify_get_status(struct MPIR_Request *req, MPI_Status * status);
/* Whether a notification (src, tag) is queued; if so its status: the one a
 * request (src, tag) started now would take first (MPIX_Notify_iprobe,
 * src/mpi/notify/notify_probe.c).  src is a rank or MPI_ANY_SOURCE. */
bool MPIR_Notify_peek(struct MPIR_Win *win, int src, int tag, MPI_Status * status);
/* MPIX_Notify_iprobe / MPIX_Notify_probe (notify_probe.c) */
int MPIR_Notify_iprobe_impl(struct MPIR_Win *win, int source, int tag, int *flag,
                            MPI_Status * status);
int MPIR_Notify_probe_impl(struct MPIR_Win *win, int source, int tag, MPI_Status * status);

/* a completed request for a request-based notified call to MPI_PROC_NULL */
int MPIR_Notify_null_request(MPI_Request * request);

/* --- counters (MPIX_Win_create_notify ...; src/mpi/notify/notify_counter.c) --- */
/* MPIX_Win_notify_on_update: a one-shot function watching a counter */
int MPIR_Win_notify_on_update_impl(struct MPIR_Win *win, int idx, MPI_Count threshold,
                                   MPIX_Win_notify_function * fn, void *arg);
int MPIR_Win_notify_request_impl(struct MPIR_Win *win, int idx, MPI_Count threshold,
                                 struct MPIR_Request **request);
/* MPI_SUCCESS if index names a counter this process attached to the
 * window, else MPIX_ERR_INVALID_NOTIFICATION (MPI_ERR_RMA_NOTIFICATION) */
int MPIR_Notify_counter_check(struct MPIR_Win *win, int index);
/* the same for a counter of target_rank (a rank of the window's group) */
int MPIR_Notify_counter_check_at(struct MPIR_Win *win, int target_rank, int index);
/* the counters in the window's notify state */
int MPIR_Notify_counters_attach(struct MPIR_Win *win, int n);
void MPIR_Notify_counters_detach(struct MPIR_Win *win);
MPI_Count *MPIR_Notify_counter(struct MPIR_Win *win, int index);

/* --- window life cycle --- */
/* mpi_assert_max_num_notify at window creation (a value not understood is
 * ignored, as MPICH's other hints), and in MPI_Win_get_info */
int MPIR_Notify_win_assert_max(struct MPIR_Win *win, const char *value);
int MPIR_Notify_win_get_info(struct MPIR_Win *win, struct MPIR_Info *info);
/* MPI_Win_get_attr of MPI_WIN_NOTIFY_NUMSB, _NUMUB, _VALUE_UB (C and Fortran) */
int MPIR_Notify_win_get_attr(struct MPIR_Win *win, int keyval, void *attribute_val);
void MPIR_Notify_win_destroy(struct MPIR_Win *win);
/* MPI_Win_free's only collective: refuses while notification requests exist */
int MPIR_Notify_win_free_check(struct MPIR_Win *win);

/* --- transports --- */
/* Origin: next sequence number for a notified access to target (per window). */
int MPIR_Notify_next_seq(struct MPIR_Win *win, int target, uint32_t * seq);
/* the same for a window whose state exists (a target on a fast path) */
static inline uint32_t MPIR_Notify_take_seq(struct MPIR_Notify_win *nw, int target)
{
    return ((MPIR_Notify_win_head_t *) nw)->send_seq[target]++;
}

void MPIR_Notify_unnumber(struct MPIR_Win *win, int target, uint32_t seq);
/* Target: the access (src, tag, bytes, seq), carried by path via, is
 * complete in target memory. */
int MPIR_Notify_arrive(struct MPIR_Win *win, MPIR_Notify_path_t via, int src, int tag,
                       MPI_Aint bytes, uint32_t seq);
/* Target: the generic path's access is complete (nothing if notify is NULL or
 * MPIR_NOTIFY_NONE). */
int MPIR_Notify_done(struct MPIR_Win *win, int src, const MPIR_Notify_hdr_t * notify,
                     MPI_Aint bytes);
/* Target: same, from a transport that delivers each origin's accesses in order. */
int MPIR_Notify_arrive_in_order(struct MPIR_Win *win, MPIR_Notify_path_t via, int src, int tag,
                                MPI_Aint bytes);

#endif /* MPIR_NOTIFY_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Continuations (MPIX_Continue_init, MPIX_Continue, MPIX_Continueall), as
 * upstream MPICH spells them (pmodels/mpich PR #7164): a callback that runs
 * once a set of operation requests has completed, registered with a
 * persistent continuation request that completes when every callback
 * registered with it has run.  src/mpi/request/continue.c; hooks in
 * patches/hooks/0015-request-continuations-MPIX_Continue_init-and-MPIX_Co.patch.
 */
#ifndef MPIR_CONTINUE_H_INCLUDED
#define MPIR_CONTINUE_H_INCLUDED

#include <stdbool.h>

struct MPIR_Request;
struct MPIR_Info;
struct MPIR_Continuation;

/* u.cont of a request of kind MPIR_REQUEST_KIND__CONTINUE.  Its cc counts
 * the callbacks registered while it is active that have not run yet. */
typedef struct MPIR_Cont_request {
    bool active;                /* started, not yet returned by test/wait */
    bool poll_only;             /* MPIX_CONT_POLL_ONLY */
    bool freed;                 /* MPI_Request_free'd while callbacks pend */
    int max_poll;               /* poll-only: callbacks per test/wait, 0 all
                                 * (MPI_UNDEFINED is stored as 0) */
    int pending;                /* registered, not yet run (active or not) */
    int err;                    /* first error of an operation whose callback did
                                 * not run; the next completion returns it */
    struct MPIR_Continuation *held;     /* ready while the request was inactive */
    struct MPIR_Continuation *ready;    /* poll-only: ready, run by test/wait */
} MPIR_Cont_request_t;

/* Flags this library keeps to itself, above upstream's bits: the
 * continuation stays on its one persistent operation and runs after each
 * completed activation (MPIX_Request_on_complete on a notification
 * request), until MPIR_Continue_op_freed. */
#define MPIR_CONT_REARM (1 << 30)

/* the hooks in MPICH's request code */
static inline int MPIR_Cont_request_is_active(const MPIR_Cont_request_t * cr)
{
    return cr->active;
}

int MPIR_Continue_start(struct MPIR_Request *cont_req);
int MPIR_Continue_poll(struct MPIR_Request *cont_req);
int MPIR_Continue_wait(struct MPIR_Request *cont_req);
int MPIR_Continue_completion_processing(struct MPIR_Request *cont_req, MPI_Status * status);
void MPIR_Continue_request_free(struct MPIR_Request *cont_req);
/* MPI_Request_free of a persistent operation: a continuation on it lets go */
void MPIR_Continue_op_freed(struct MPIR_Request *op);

/* from the deferred calls' progress hook (request_callback.c) */
int MPIR_Continue_progress(int *made_progress);
bool MPIR_Continue_idle(void);

/* the calls */
int MPIR_Continue_init_impl(int flags, int max_poll, struct MPIR_Info *info,
                            struct MPIR_Request **cont_req);
int MPIR_Continueall_impl(int count, struct MPIR_Request *ops[], MPIX_Continue_cb_function * cb,
                          void *cb_data, int flags, MPI_Status statuses[],
                          struct MPIR_Request *cont_req);
/* MPIX_Request_on_complete, a layer over the same machinery */
int MPIR_Request_on_complete_impl(struct MPIR_Request *req, MPIX_Request_complete_function * fn,
                                  void *arg);

#endif /* MPIR_CONTINUE_H_INCLUDED */

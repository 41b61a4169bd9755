/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */


/* What continue.c (watching operations, running callbacks) and
 * continue_request.c (the continuation request) share. */

#ifndef CONTINUE_IMPL_H_INCLUDED
#define CONTINUE_IMPL_H_INCLUDED

typedef struct MPIR_Continuation cont_t;

typedef struct op_watch {
    MPIR_Request *req;
    MPI_Status *status;         /* the user's slot, or MPI_STATUS_IGNORE */
    cont_t *cont;
    bool claimed;               /* found complete by a round: no other takes it */
    bool dropped;               /* freed by the user once claimed: complete as cancelled */
    struct op_watch *next_claimed;      /* on the claiming round's list */
    UT_hash_handle hh;          /* in watched until completed */
} op_t;

struct MPIR_Continuation {
    MPIX_Continue_cb_function *cb;
    MPIX_Request_complete_function *complete_fn;        /* on_complete's, instead of cb */
    void *cb_data;
    int flags;
    MPIR_Request *cr;           /* continuation request, or NULL */
    int remaining;              /* operations not completed yet (+1 while attaching) */
    int err;                    /* first error among the operations */
    bool running, gone;         /* REARM: the operation was freed while cb ran */
    MPI_Status status;          /* on_complete's status */
    cont_t *next, *prev;        /* on a held, ready or runnable list */
    int count;
    op_t ops[];
};

#define CONT_PUBLIC_FLAGS (MPIX_CONT_REQBUF_VOLATILE | MPIX_CONT_PERSISTENT |   \
                           MPIX_CONT_POLL_ONLY | MPIX_CONT_DEFER_COMPLETE |     \
                           MPIX_CONT_INVOKE_FAILED | MPIX_CONT_IMMEDIATE |      \
                           MPIX_CONT_FORGET)

/* every operation of c is complete: run it, or queue it where its
 * continuation request says */
void MPIR_Continue_ready(cont_t * c, bool at_registration);
/* c is off every list: run its callback, or report its operations' error */
void MPIR_Continue_run(cont_t * c);

#endif /* CONTINUE_IMPL_H_INCLUDED */

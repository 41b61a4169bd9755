/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Deferred calls (src/mpi/request/request_callback.c): user functions that
 * MPICH's progress engine calls at its next round, outside the global
 * critical section.  Continuations (include/mpir_continue.h) run from the
 * same progress hook.
 */
#ifndef MPIR_REQUEST_CALLBACK_H_INCLUDED
#define MPIR_REQUEST_CALLBACK_H_INCLUDED

#include <stdbool.h>

struct MPIR_Request;

/* A call the progress engine makes at its next round.  run is called once,
 * after the call left the list, under the lock that protects progress; it
 * calls user code through MPIR_CALL_USER and may free the call. */
typedef struct MPIR_Deferred_call {
    void (*run)(struct MPIR_Deferred_call * call);
    bool queued;
    struct MPIR_Deferred_call *next, *prev;
} MPIR_Deferred_call_t;

/* before the first MPIR_Deferred_call_add: claims the progress hook */
int MPIR_Deferred_call_init(void);
void MPIR_Deferred_call_add(MPIR_Deferred_call_t * call);
/* take the call back if it has not run */
void MPIR_Deferred_call_cancel(MPIR_Deferred_call_t * call);

/* User code from a deferred call runs outside the global critical section,
 * as MPICH's generalized-request callbacks do: it may call MPI.  Another
 * thread may run the progress hook meanwhile; every call is off its list
 * before it runs. */
#define MPIR_CALL_USER(call_) do {                                      \
        MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);  \
        call_;                                                          \
        MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX); \
    } while (0)

/* continuations have work: the hook runs at the next round */
void MPIR_Deferred_hook_activate(void);

#endif /* MPIR_REQUEST_CALLBACK_H_INCLUDED */

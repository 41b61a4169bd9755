/*
 * Completion functions of requests (MPIX_Request_on_complete), and the
 * deferred calls they are made of (src/mpi/request/request_callback.c):
 * user functions that MPICH's progress engine calls at its next round,
 * outside the global critical section, so that completion is pushed to the
 * user instead of polled with MPI_Test.
 */
#ifndef MPIR_REQUEST_CALLBACK_H_INCLUDED
#define MPIR_REQUEST_CALLBACK_H_INCLUDED

#include <stdbool.h>

struct MPIR_Request;

/* A call the progress engine makes at its next round.  run is called once,
 * after the call left the list, under the lock that protects progress; it
 * calls user code through MPIR_CALL_USER and may free the call. */
typedef struct MPIR_Deferred_call {
    void (*run) (struct MPIR_Deferred_call * call);
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

/* MPIX_Request_on_complete */
int MPIR_Request_on_complete_impl(struct MPIR_Request *req, MPIX_Request_complete_function * fn,
                                  void *arg);

/* A persistent request kind that takes completion functions keeps a
 * pointer to one of these (NULL until a function is set), and says when an
 * activation completes and when the request is freed. */
struct MPIR_Request_callback;
/* an activation of the request completed: its function runs at the next
 * round of progress, as MPI_Test would return it */
void MPIR_Request_callback_due(struct MPIR_Request_callback *cb);
/* the request is freed: its function never runs */
void MPIR_Request_callback_free(struct MPIR_Request_callback **cb);

#endif /* MPIR_REQUEST_CALLBACK_H_INCLUDED */

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * libnatasks: OpenMP tasks that wait for MPI requests without blocking a core.
 *
 *   omp_event_handle_t ev;
 *   #pragma omp task depend(out: halo) detach(ev)
 *   {
 *       MPI_Request req;
 *       MPI_Irecv(halo, n, MPI_DOUBLE, left, 0, comm, &req);
 *       NA_Task_iwait(ev, &req, MPI_STATUS_IGNORE);    // returns at once
 *   }
 *   #pragma omp task depend(in: halo)                  // runs once it arrived
 *   use(halo);
 *
 * The task's body returns at once; the task completes, and its dependent
 * tasks become ready, when the requests have completed: MPICH calls the
 * layer's continuation (MPIX_Continueall) from its progress engine once all
 * of them have, which fulfills the task's detach event.  A polling service
 * drives that progress while tasks wait: a progress thread
 * (NA_TASKS_POLLING=thread, the default) or a polling task
 * (NA_TASKS_POLLING=task).  See na_tasks(3) / doc/man/NA_Task_iwait.md.
 *
 * OpenMP of GCC (libgomp) has no call that finds the running task's detach
 * event, so the event is an argument (TAMPI's TAMPI_Iwait finds it through
 * its runtimes' own interfaces).  Requires MPI_THREAD_MULTIPLE.
 *
 * Build: mpicc -fopenmp app.c -lnatasks
 */
#ifndef NA_TASKS_H_INCLUDED
#define NA_TASKS_H_INCLUDED

#include <mpi.h>
#include <omp.h>

#ifdef __cplusplus
/* *INDENT-OFF* */
extern "C" {
/* *INDENT-ON* */
#endif

/* Bind the completion of the calling task (created with detach(event)) to
 * a nonpersistent request (a receive, a send, MPI_Rput_notify's ...).  The
 * request is taken over: *request becomes MPI_REQUEST_NULL at once, and
 * *status (unless MPI_STATUS_IGNORE) is written before the task completes,
 * so it must stay valid until then.  A failed request completes the task
 * too, its error in the status.  An MPI_REQUEST_NULL request completes the
 * task at the end of its body. */
int NA_Task_iwait(omp_event_handle_t event, MPI_Request * request, MPI_Status * status);

/* The same for count requests: the task completes when all have. */
int NA_Task_iwaitall(omp_event_handle_t event, int count, MPI_Request * requests,
                     MPI_Status * statuses);

/* Start a persistent notification request (MPI_Notify_init) and bind the
 * task's completion to that activation.  The request stays the caller's,
 * inactive once the task has completed, as after MPI_Wait. */
int NA_Task_istart(omp_event_handle_t event, MPI_Request * request, MPI_Status * status);

/* Errors go to MPI_COMM_WORLD's error handler and are returned; no request
 * has been handed over then (all are still the caller's; NA_Task_istart's
 * may be active) and the task completes at the end of its body, so that it
 * never hangs. */

/* Waits outstanding in this process (for tests and statistics). */
int NA_Tasks_pending(void);

#ifdef __cplusplus
/* *INDENT-OFF* */
}
/* *INDENT-ON* */
#endif
#endif /* NA_TASKS_H_INCLUDED */

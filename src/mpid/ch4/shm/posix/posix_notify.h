/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, shared-memory fast path (ch4 posix).
 *
 * Windows whose memory is in a node-shared segment (MPI_Win_allocate,
 * MPI_Win_allocate_shared) notify node-local targets through their process's
 * ring (ch4_notify_ring.h: the origin copies the data, then publishes a
 * cell); posix_win.c's hooks claim those targets, MPIDI_POSIX_progress
 * drains the ring.  The accumulate family is
 * applied as MPI_Accumulate is on such a window (under the window's shm
 * mutex, posix_rma.h), then a cell is published.
 */
#ifndef POSIX_NOTIFY_H_INCLUDED
#define POSIX_NOTIFY_H_INCLUDED

#include "ch4_notify_ring.h"

int MPIDI_POSIX_notify_win_init(MPIR_Win * win);
int MPIDI_POSIX_notify_win_free(MPIR_Win * win);
int MPIDI_POSIX_notify_poll_win(MPIR_Win * win);

/* MPIDI_SHM_mpi_put_notify / get_notify: over the target's ring if the
 * window memory is shared with it, else the generic path. */
int MPIDI_POSIX_mpi_put_notify(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                               MPIR_Request ** req);
int MPIDI_POSIX_mpi_get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                               MPIR_Request ** req);

/* MPIDI_SHM_mpi_accumulate_notify: where the plain accumulate is applied
 * at once (shared segment, or the origin itself), the same, then a ring
 * cell or a generic notification alone; else the generic path */
int MPIDI_POSIX_mpi_accumulate_notify(const MPIR_Notify_acc_t * acc, MPIR_Win * win,
                                      MPIDI_winattr_t winattr, int tag);

#endif /* POSIX_NOTIFY_H_INCLUDED */

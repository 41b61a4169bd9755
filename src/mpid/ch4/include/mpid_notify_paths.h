/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: the paths and reasons ch4 adds to the path table
 * (include/mpir_notify.h, which includes this file: every device supplies
 * one).  ch4's own paths are here; each transport lists its words in its
 * own directory, and all are listed whichever transports are built, so
 * that MPI_T names the same variables and enumerations in every build.
 *
 * MPID_NOTIFY_PATHS(X): X(ID, pvar suffix, MPI_T name, polled, how it arrives)
 *   polled: MPID_Notify_poll finds what the path carries without a full
 *   round of progress, so waiters on it poll (notify_request.c).
 * MPID_NOTIFY_REASONS(X): X(ID, MPI_T name, text)
 */
#ifndef MPID_NOTIFY_PATHS_H_INCLUDED
#define MPID_NOTIFY_PATHS_H_INCLUDED

#include "../netmod/ofi/ofi_notify_paths.h"
#include "../netmod/ucx/ucx_notify_paths.h"

#define MPIDI_CH4_NOTIFY_PATHS(X)                                               \
    X(RING, ring, "ring", true, "in shared-memory ring cells")                  \
    X(EAGER_AM, eager_am, "eager-am", false,                                    \
      "in MPICH active messages with their data (the libfabric path's choice for some sizes)")

#define MPIDI_CH4_NOTIFY_REASONS(X) \
    X(SHARED_MEMORY, "shared-memory", "window memory in a node-shared segment") \
    X(NO_SEGMENT, "no-segment", "the target has no notification ring (not of this MPI_COMM_WORLD)") \
    X(DYNAMIC, "dynamic", "dynamic window (memory registered per attach)")

#define MPID_NOTIFY_PATHS(X) \
    MPIDI_CH4_NOTIFY_PATHS(X) MPIDI_OFI_NOTIFY_PATHS(X) MPIDI_UCX_NOTIFY_PATHS(X)
#define MPID_NOTIFY_REASONS(X) \
    MPIDI_CH4_NOTIFY_REASONS(X) MPIDI_OFI_NOTIFY_REASONS(X) MPIDI_UCX_NOTIFY_REASONS(X)

#endif /* MPID_NOTIFY_PATHS_H_INCLUDED */

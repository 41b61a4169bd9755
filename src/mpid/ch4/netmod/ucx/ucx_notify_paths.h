/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, UCX netmod: its path and the reason a window's target
 * has it, for the path table (ch4's mpid_notify_paths.h).
 */
#ifndef UCX_NOTIFY_PATHS_H_INCLUDED
#define UCX_NOTIFY_PATHS_H_INCLUDED

#define MPIDI_UCX_NOTIFY_PATHS(X) \
    X(UCX_AM, ucx_am, "ucx-am", false, "in UCX active messages")

#define MPIDI_UCX_NOTIFY_REASONS(X) \
    X(UCX_AM, "ucx-active-message", "one UCX active message per access")

#endif /* UCX_NOTIFY_PATHS_H_INCLUDED */

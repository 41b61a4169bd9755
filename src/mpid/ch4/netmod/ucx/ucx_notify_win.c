/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over UCX: window set-up.  Which path serves each target
 * (the path table: rings to the processes of the node that map the window
 * memory, UCX active messages to the others, else generic), and the
 * window's UCX state, created with its first message.
 */

#include "mpidimpl.h"
#include "ucx_notify_impl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_UCX_PATH
      category    : NOTIFY
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        How notified accesses reach other processes through the UCX netmod.
        auto     - one UCX active message per put (a request answered with
                   the data per get), for windows that are not dynamic; to
                   a process whose window memory is mapped here (allocated
                   windows, same node) the data is copied directly and a
                   shared-memory ring cell notifies (no UCX call)
        messages - UCX active messages with the data in them also where
                   the rings could serve (node-shared window memory)
        generic  - always the generic active-message path

    - name        : MPIR_CVAR_NOTIFY_UCX_STRAY_MSGS
      category    : NOTIFY
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_MPIDEV_DETAIL
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        For testing: N > 0 sends, before every N-th notified access on the
        ucx-am path, a stray message that names no window, as a corrupt or
        late one would.  Targets must count and drop it.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

static void state_free(MPIDI_UCX_notify_win_t * nw)
{
    MPL_free(nw->issued);
    MPL_free(nw->gets);
    MPL_free(nw->ask);
    MPL_free(nw->owed);
    MPL_free(nw->defer_skip);
    MPL_free(nw);
}

void MPIDI_UCX_notify_state_orphan_done(MPIDI_UCX_notify_win_t * nw)
{
    MPIR_Assert(nw->win == NULL && nw->inflight == 0 && nw->nowed == 0);
    state_free(nw);
}

/* The window's UCX state, created with its first message, sent or
 * received; NULL if out of memory */
MPIDI_UCX_notify_win_t *MPIDI_UCX_notify_state_of(MPIR_Win * win)
{
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;
    int n = win->comm_ptr->local_size;

    if (likely(nw != NULL))
        return nw;
    nw = MPL_calloc(1, sizeof(*nw), MPL_MEM_RMA);
    if (!nw)
        return NULL;
    /* one allocation per type: issued, acked, done, want, want_buf, asked,
     * at_flush; gets; ask; owed, flush_wait, at_once; defer_skip */
    nw->issued = MPL_calloc(7 * n, sizeof(uint64_t), MPL_MEM_RMA);
    nw->gets = MPL_calloc(n, sizeof(int), MPL_MEM_RMA);
    nw->ask = MPL_calloc(n, sizeof(bool), MPL_MEM_RMA);
    nw->owed = MPL_calloc(3 * n, sizeof(bool), MPL_MEM_RMA);
    nw->defer_skip = MPL_calloc(n, sizeof(int), MPL_MEM_RMA);
    if (!nw->issued || !nw->gets || !nw->ask || !nw->owed || !nw->defer_skip) {
        state_free(nw);
        return NULL;
    }
    nw->win = win;
    nw->acked = nw->issued + n;
    nw->done = nw->issued + 2 * n;
    nw->want = nw->issued + 3 * n;
    nw->want_buf = nw->issued + 4 * n;
    nw->asked = nw->issued + 5 * n;
    nw->at_flush = nw->issued + 6 * n;
    nw->flush_wait = nw->owed + n;
    nw->at_once = nw->owed + 2 * n;
    MPIDI_UCX_WIN(win).notify = nw;
    return nw;
}

/* The processes of the node that map the window memory (MPIDIG's
 * node-shared segment of an allocated window) may publish to this
 * process's ring, whatever this process's choice of path (theirs may
 * differ) */
static bool node_shared(MPIR_Win * win)
{
    return win->comm_ptr->node_comm && MPIDIG_WIN(win, shared_table) && MPIDIG_WIN(win, mmap_addr);
}

int MPIDI_UCX_notify_win_init(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    int n = win->comm_ptr->local_size, me = win->comm_ptr->rank;
    bool on = !MPIR_CVAR_NOTIFY_FORCE_GENERIC &&
        MPIR_CVAR_NOTIFY_UCX_PATH != MPIR_CVAR_NOTIFY_UCX_PATH_generic &&
        win->create_flavor != MPI_WIN_FLAVOR_DYNAMIC;

    /* the per-target state comes with the window's first message
     * (state_of): a window that never notifies allocates none */
    MPIDI_UCX_WIN(win).notify = NULL;
    MPIDI_UCX_WIN(win).notify_ring = false;
    if (n > 1 && node_shared(win))
        MPIDI_Notify_rings_win_init(win, &MPIDI_UCX_WIN(win).notify_ring);
    bool rings = MPIDI_UCX_WIN(win).notify_ring &&
        MPIR_CVAR_NOTIFY_UCX_PATH == MPIR_CVAR_NOTIFY_UCX_PATH_auto;
    for (int r = 0; r < n; r++) {
        if (r == me)
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC,
                                             MPIR_NOTIFY_WHY_SELF);
        else if (on && rings && MPIDI_Notify_ring_reaches(win, r))
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_RING,
                                             MPIR_NOTIFY_WHY_SHARED_MEMORY);
        else if (on)
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_UCX_AM,
                                             MPIR_NOTIFY_WHY_UCX_AM);
        else
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC,
                                             win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC &&
                                             !MPIR_CVAR_NOTIFY_FORCE_GENERIC &&
                                             MPIR_CVAR_NOTIFY_UCX_PATH !=
                                             MPIR_CVAR_NOTIFY_UCX_PATH_generic ?
                                             MPIR_NOTIFY_WHY_DYNAMIC : MPIR_NOTIFY_WHY_FORCED);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPIDI_UCX_notify_win_free(win);
    goto fn_exit;
}

/* collective, after the window's epochs closed: only local sends (a get's
 * answer, an acknowledgement) can still be in flight.  Their completion
 * (finish_send) reads the state, so it goes once they are done: here after
 * waiting for them, or, if progress fails with some in flight, with the
 * last of them. */
int MPIDI_UCX_notify_win_free(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_UCX_notify_win_t *nw = MPIDI_UCX_WIN(win).notify;

    if (nw) {
        int vni = MPIDI_UCX_get_win_vni(win);
        int progress_errno = MPI_SUCCESS;
        MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vni).lock);
        for (;;) {
            /* none should be owed once every epoch is closed; sent or given
             * up on, none is left (nor the state on the list of owing
             * windows), also if the progress below failed */
            if (nw->nowed) {
                int e2 = MPIDI_UCX_notify_send_owed(nw, false);
                if (!mpi_errno)
                    mpi_errno = e2;
            }
            if (!nw->inflight || progress_errno)
                break;
            progress_errno = MPIDI_progress_test_vci(vni);
        }
        if (!mpi_errno)
            mpi_errno = progress_errno;
        MPIDI_UCX_WIN(win).notify = NULL;
        if (nw->inflight)
            nw->win = NULL;     /* orphaned: MPIDI_UCX_notify_state_orphan_done */
        else
            state_free(nw);
        MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vni).lock);
    }
    int e = MPIDI_Notify_rings_win_free(win, &MPIDI_UCX_WIN(win).notify_ring);
    /* last: the progress above may have cached the window again, and no
     * progress runs between here and its removal from MPICH's window map */
    MPIDI_UCX_notify_forget_window(win);
    return mpi_errno ? mpi_errno : e;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: a window's notify state (notify_impl.h), its path table
 * (which transport path carries the notified accesses to each target, read
 * through MPI_T in notify_path.c) and its end at MPI_Win_free.
 */

#include "notify_impl.h"

/* the window's state, created on first use (out of line: once per window) */
int MPIR_Notify_state_create(MPIR_Win * win, struct MPIR_Notify_win **out)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIR_Notify_win *nw = MPL_calloc(1, sizeof(*nw), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!nw, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify state");
    nw->nranks = win->comm_ptr->local_size;
    nw->win = win;
    nw->head.send_seq = MPL_calloc(2 * nw->nranks, sizeof(uint32_t), MPL_MEM_RMA);
    nw->pending = MPL_calloc(nw->nranks, sizeof(MPIR_Notify_entry_t *), MPL_MEM_RMA);
    nw->by_src = MPL_calloc(nw->nranks, sizeof(MPIR_Notify_entry_t *), MPL_MEM_RMA);
    if (!nw->head.send_seq || !nw->pending || !nw->by_src) {
        MPL_free(nw->head.send_seq);
        MPL_free(nw->pending);
        MPL_free(nw->by_src);
        MPL_free(nw);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify state");
    }
    nw->recv_seq = nw->head.send_seq + nw->nranks;
    win->notify = nw;
    *out = nw;
  fn_fail:
    return mpi_errno;
}

int MPIR_Notify_path_set(MPIR_Win * win, int target, MPIR_Notify_path_t path, MPIR_Notify_why_t why)
{
    struct MPIR_Notify_win *nw;
    int mpi_errno = MPIR_Notify_get_state(win, &nw);
    MPIR_ERR_CHECK(mpi_errno);
    if (!nw->head.path) {
        nw->head.path = MPL_malloc(2 * nw->nranks, MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(!nw->head.path, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                             "notify path table");
        nw->head.why = nw->head.path + nw->nranks;
        for (int r = 0; r < nw->nranks; r++) {
            nw->head.path[r] = MPIR_NOTIFY_PATH_GENERIC;
            nw->head.why[r] = r == win->comm_ptr->rank ? MPIR_NOTIFY_WHY_SELF :
                MPIR_NOTIFY_WHY_NO_FAST_PATH;
        }
    }
    nw->head.path[target] = path;
    nw->head.why[target] = why;
    nw->has_polled |= MPIR_Notify_path_polled(path);
  fn_fail:
    return mpi_errno;
}

/* the window an MPI_T handle was allocated for (notify_path.c,
 * notify_stats.c); NULL for anything but a window */
MPIR_Win *MPIR_Notify_pvar_win(void *obj_handle)
{
    MPIR_Win *win = NULL;
    if (obj_handle && HANDLE_GET_MPI_KIND(*(MPI_Win *) obj_handle) == MPIR_WIN &&
        HANDLE_GET_KIND(*(MPI_Win *) obj_handle) != HANDLE_KIND_INVALID)
        MPIR_Win_get_ptr(*(MPI_Win *) obj_handle, win);
    return win;
}

MPIR_Notify_why_t MPIR_Notify_path_why(MPIR_Win * win, int target)
{
    struct MPIR_Notify_win *nw = win->notify;
    if (nw && nw->head.path)
        return nw->head.why[target];
    return target == win->comm_ptr->rank ? MPIR_NOTIFY_WHY_SELF : MPIR_NOTIFY_WHY_NO_FAST_PATH;
}

/* Called by MPI_Win_free before anything is torn down (attributes, error
 * handler, device state), and collective, so that every process refuses if
 * any still has notification requests of the window: none enters the
 * device's barrier alone, and the window stays fully valid. */
/* MPI_Win_free's barrier (hook 0008 drops ch4's own): a reduction that
 * also tells every process whether any holds notification requests of the
 * window, so that all refuse together, before anything is torn down, at
 * the cost of the barrier alone */
int MPIR_Notify_win_free_check(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    int mine = win->notify ? win->notify->nreqs : 0;
    int holders = 0, has = mine > 0;

    mpi_errno = MPIR_Allreduce(&has, &holders, 1, MPI_INT, MPI_SUM, win->comm_ptr, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (mine > 0)
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_WIN, "**notifywinfree", "**notifywinfree %d", mine);
    if (holders > 0)
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_WIN, "**notifywinfreeany",
                             "**notifywinfreeany %d", holders);
  fn_fail:
    return mpi_errno;
}

void MPIR_Notify_win_destroy(MPIR_Win * win)
{
    struct MPIR_Notify_win *nw = win->notify;
    MPIR_Notify_bucket_t *b, *tmp;

    if (!nw)
        return;
    MPIR_Assert(nw->nreqs == 0);
    if (MPIR_CVAR_NOTIFY_STATS)
        MPIR_Notify_stats_report(win);
    MPIR_Notify_watches_drop(nw);
    /* notifications nobody asked for die with the window */
    for (MPIR_Notify_entry_t * e = nw->unx, *next; e; e = next) {
        next = e->idx[IDX_ALL].next;
        MPL_free(e);
    }
    for (int r = 0; r < nw->nranks; r++)
        MPIR_Notify_entry_list_free(nw->pending[r]);
    MPIR_Notify_entry_list_free(nw->free_entries);
    HASH_ITER(hh, nw->buckets, b, tmp) {
        HASH_DELETE(hh, nw->buckets, b);
        MPL_free(b);
    }
    MPL_free(nw->head.send_seq);
    MPL_free(nw->pending);
    MPL_free(nw->by_src);
    MPL_free(nw->head.path);
    MPL_free(nw->counters);
    MPL_free(nw->peer_ncounters);
    MPL_free(nw);
    win->notify = NULL;
}

/* mpi.h promises one bound on every transport */
_Static_assert(MPI_NOTIFY_TAG_UB == MPIR_NOTIFY_TAG_MAX,
               "MPI_NOTIFY_TAG_UB != MPIR_NOTIFY_TAG_MAX");

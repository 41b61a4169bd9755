/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* natitrace: windows, one-sided and notified accesses, their synchronisation */
#define _GNU_SOURCE

#include "natitrace.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* windows */
int MPI_Win_create(void *base, MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_create(base, size, du, info, comm, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_allocate(MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, void *base, MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_allocate(size, du, info, comm, base, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_allocate_shared(MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, void *base,
                            MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_allocate_shared(size, du, info, comm, base, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_create_dynamic(info, comm, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_free(MPI_Win * win)
{
    MPI_Win w = *win;
    int rc = CALL(false, PMPI_Win_free(win));
    if (rc == MPI_SUCCESS)
        win_gone(w);
    return rc;
}

int MPI_Win_set_name(MPI_Win win, const char *name)
{
    struct win *x = win_of(win);
    if (x)
        x->flags = strcmp(name, "flags") == 0;
    return PMPI_Win_set_name(win, name);
}

/* one-sided accesses */
#define RMA(op_, target, size, expr) ({ \
    enter(false); \
    if (in_region) \
        act(is_flags(win) && (op_) == O_PUT ? O_FLAG : (op_), wnum(win), wtarget(win, target), \
            0, size); \
    int rc_ = (expr); \
    leave(); \
    rc_; })

int MPI_Put(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
            MPI_Datatype tt, MPI_Win win)
{
    return RMA(O_PUT, tr, bytes(oc, ot), PMPI_Put(o, oc, ot, tr, td, tc, tt, win));
}

int MPI_Rput(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
             MPI_Datatype tt, MPI_Win win, MPI_Request * req)
{
    return RMA(O_PUT, tr, bytes(oc, ot), PMPI_Rput(o, oc, ot, tr, td, tc, tt, win, req));
}

int MPI_Get(void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
            MPI_Datatype tt, MPI_Win win)
{
    return RMA(O_GET, tr, bytes(oc, ot), PMPI_Get(o, oc, ot, tr, td, tc, tt, win));
}

int MPI_Rget(void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
             MPI_Datatype tt, MPI_Win win, MPI_Request * req)
{
    return RMA(O_GET, tr, bytes(oc, ot), PMPI_Rget(o, oc, ot, tr, td, tc, tt, win, req));
}

int MPI_Accumulate(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
    return RMA(O_ACC, tr, bytes(oc, ot), PMPI_Accumulate(o, oc, ot, tr, td, tc, tt, op, win));
}

int MPI_Fetch_and_op(const void *o, void *res, MPI_Datatype t, int tr, MPI_Aint td,
                     MPI_Op op, MPI_Win win)
{
    return RMA(O_FOP, tr, bytes(1, t), PMPI_Fetch_and_op(o, res, t, tr, td, op, win));
}

int MPI_Compare_and_swap(const void *o, const void *c, void *res, MPI_Datatype t, int tr,
                         MPI_Aint td, MPI_Win win)
{
    return RMA(O_FOP, tr, bytes(1, t), PMPI_Compare_and_swap(o, c, res, t, tr, td, win));
}

int MPI_Get_accumulate(const void *o, int oc, MPI_Datatype ot, void *res, int rcount,
                       MPI_Datatype rt,
                       int tr, MPI_Aint td, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
    return RMA(O_FOP, tr, bytes(oc, ot),
               PMPI_Get_accumulate(o, oc, ot, res, rcount, rt, tr, td, tc, tt, op, win));
}

/* notified accesses */
int MPI_Put_notify(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Win win, int tag)
{
    enter(false);
    if (in_region)
        act(O_PUT_NOTIFY, wnum(win), wtarget(win, tr), tag, bytes(oc, ot));
    int rc = PMPI_Put_notify(o, oc, ot, tr, td, tc, tt, win, tag);
    leave();
    return rc;
}

int MPI_Get_notify(void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Win win, int tag)
{
    enter(false);
    if (in_region)
        act(O_GET_NOTIFY, wnum(win), wtarget(win, tr), tag, bytes(oc, ot));
    int rc = PMPI_Get_notify(o, oc, ot, tr, td, tc, tt, win, tag);
    leave();
    return rc;
}

/* synchronisation */
#define SYNC(op_, a_, expr) ({ \
    enter(false); \
    if (in_region) \
        act(op_, wnum(win), a_, 0, 0); \
    int rc_ = (expr); \
    leave(); \
    rc_; })

int MPI_Win_flush(int r, MPI_Win win)
{
    return SYNC(O_FLUSH, wtarget(win, r), PMPI_Win_flush(r, win));
}

int MPI_Win_flush_local(int r, MPI_Win win)
{
    return SYNC(O_FLUSH, wtarget(win, r), PMPI_Win_flush_local(r, win));
}

int MPI_Win_flush_all(MPI_Win win)
{
    return SYNC(O_FLUSH_ALL, 0, PMPI_Win_flush_all(win));
}

int MPI_Win_flush_local_all(MPI_Win win)
{
    return SYNC(O_FLUSH_ALL, 0, PMPI_Win_flush_local_all(win));
}

int MPI_Win_lock(int type, int r, int assert, MPI_Win win)
{
    enter(false);
    if (in_region)
        act(O_LOCK, wnum(win), wtarget(win, r), type == MPI_LOCK_EXCLUSIVE, 0);
    int rc = PMPI_Win_lock(type, r, assert, win);
    leave();
    return rc;
}

int MPI_Win_unlock(int r, MPI_Win win)
{
    return SYNC(O_UNLOCK, wtarget(win, r), PMPI_Win_unlock(r, win));
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    return SYNC(O_LOCK_ALL, 0, PMPI_Win_lock_all(assert, win));
}

int MPI_Win_unlock_all(MPI_Win win)
{
    return SYNC(O_UNLOCK_ALL, 0, PMPI_Win_unlock_all(win));
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    return SYNC(O_FENCE, 0, PMPI_Win_fence(assert, win));
}

int MPI_Win_complete(MPI_Win win)
{
    return SYNC(O_COMPLETE, 0, PMPI_Win_complete(win));
}

int MPI_Win_wait(MPI_Win win)
{
    return SYNC(O_WINWAIT, 0, PMPI_Win_wait(win));
}

int MPI_Win_post(MPI_Group g, int assert, MPI_Win win)
{
    enter(false);
    if (in_region)
        act(O_POST, wnum(win), 0, 0, group_index(g));
    int rc = PMPI_Win_post(g, assert, win);
    leave();
    return rc;
}

int MPI_Win_start(MPI_Group g, int assert, MPI_Win win)
{
    enter(false);
    if (in_region)
        act(O_START, wnum(win), 0, 0, group_index(g));
    int rc = PMPI_Win_start(g, assert, win);
    leave();
    return rc;
}

/* MPI_Win_sync on a flags window is the spin of a flag protocol: the
 * calls until another one are one wait for the next flag */
int MPI_Win_sync(MPI_Win win)
{
    bool flag = is_flags(win);
    if (flag && spin_win >= 0 && spin_win != wnum(win))
        end_spin();
    enter(flag);
    int rc = PMPI_Win_sync(win);
    if (flag && in_region) {
        spin_win = wnum(win);
        spinning = true;
    }
    leave();
    return rc;
}

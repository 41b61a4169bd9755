/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * natitrace's shared state: the records of the trace (natitrace.c), the
 * windows and requests it follows (natitrace_state.c), for the wrappers of
 * two-sided calls (natitrace_p2p.c) and one-sided ones (natitrace_rma.c).
 * Hidden: none of it is seen by the program the library is preloaded into.
 */
#ifndef NATITRACE_H_INCLUDED
#define NATITRACE_H_INCLUDED

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

enum op {
    O_INIT, O_FINALIZE, O_COMPUTE, O_SEND, O_RECV, O_BARRIER, O_BCAST, O_REDUCE, O_ALLREDUCE,
    O_ISEND, O_IRECV, O_WAIT,
    O_WIN, O_PUT, O_GET, O_ACC, O_FOP, O_FLUSH, O_FLUSH_ALL, O_LOCK, O_UNLOCK, O_LOCK_ALL,
    O_UNLOCK_ALL, O_FENCE, O_POST, O_START, O_COMPLETE, O_WINWAIT,
    O_PUT_NOTIFY, O_GET_NOTIFY, O_NOTIFIED, O_FLAG, O_FLAGWAIT,
    NOPS
};

struct rec {
    int op;
    int a, b, c;                /* ranks, tags, window numbers, ids */
    long long d;                /* bytes, nanoseconds; for post/start the group's index */
};

struct win {
    MPI_Win win;
    int num;
    bool flags;                 /* named "flags": puts to it are flags polled by the target */
    int *world;                 /* world rank of each rank of the window's group */
};

enum rkind { R_SEND, R_RECV, R_NOTIFY };
struct req {
    MPI_Request h;
    enum rkind kind;
    bool persistent;
    int peer, tag;              /* world rank; for a receive what it asked for */
    long long size;
    int id;                     /* of the current activation (0: inactive) */
    size_t line;                /* a receive's na_irecv, completed at its end */
    /* a notification request: what it matched since its start */
    int nmatched, capmatched, (*matched)[2];
};

/* natitrace.c: recording */
extern struct rec *recs;
extern int rank, wsize;
extern bool in_region, spinning;
extern bool yielding;           /* NATI_YIELD=1: blocking waits yield the core */
extern int spin_win;
extern long long nunmodelled;
void enter(bool poll);
size_t act(int op, int a, int b, int c, long long d);
void leave(void);
void end_spin(void);

/* natitrace_state.c: ranks, windows, requests */
extern struct win *wins;
extern int nwins, next_win_num;
extern int **groups;
extern struct req *reqs;
extern int nreqs, next_id;
int comm_world_rank(MPI_Comm comm, int r);
long long bytes(int count, MPI_Datatype t);
struct win *win_of(MPI_Win w);
void win_new(MPI_Win w);
void win_gone(MPI_Win w);
int wnum(MPI_Win w);
int wtarget(MPI_Win w, int r);
bool is_flags(MPI_Win w);
long long group_index(MPI_Group g);
struct req *req_of(MPI_Request h);
struct req *req_new(MPI_Request h, enum rkind kind, bool persistent, int peer, int tag,
                    long long size);
void req_gone(struct req *r);
void req_start(struct req *r);
void req_done(struct req *r, const MPI_Status * st);
void done_one(MPI_Request before, MPI_Request after, const MPI_Status * st);

/* CALL(poll, expr): the call between enter and leave */
#define CALL(poll, expr) ({ enter(poll); int rc_ = (expr); leave(); rc_; })

#pragma GCC visibility pop

#endif /* NATITRACE_H_INCLUDED */

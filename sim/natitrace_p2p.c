/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* natitrace: two-sided calls, completion and collectives (sim/trace-format.md) */
#define _GNU_SOURCE

#include "natitrace.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sched.h>
#include <time.h>



/* NATI_YIELD (more processes than cores): ch4 spins in its waits without
 * yielding, so each blocking wait here tests and yields the core instead,
 * and a handoff between processes costs a context switch, not a time slice.
 * Inside the wrappers: not counted as computation. */
static int wait_yield(MPI_Request * req, MPI_Status * st)
{
    int flag = 0, rc;
    while ((rc = PMPI_Test(req, &flag, st)) == MPI_SUCCESS && !flag)
        sched_yield();
    return rc;
}

#define YIELDING(start, blocking) ({ \
    MPI_Request r_; \
    int rc_ = yielding ? (start) : (blocking); \
    if (yielding && rc_ == MPI_SUCCESS) \
        rc_ = wait_yield(&r_, MPI_STATUS_IGNORE); \
    rc_; })

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    enter(false);
    if (in_region)
        act(O_SEND, comm_world_rank(comm, dest), tag, 0, bytes(count, t));
    int rc = YIELDING(PMPI_Isend(buf, count, t, dest, tag, comm, &r_),
                      PMPI_Send(buf, count, t, dest, tag, comm));
    leave();
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
             MPI_Status * status)
{
    MPI_Status st;
    enter(false);
    MPI_Request r;
    int rc = yielding ? PMPI_Irecv(buf, count, t, source, tag, comm, &r) :
        PMPI_Recv(buf, count, t, source, tag, comm, &st);
    if (yielding && rc == MPI_SUCCESS)
        rc = wait_yield(&r, &st);
    if (in_region && rc == MPI_SUCCESS) {
        int n = 0;
        PMPI_Get_count(&st, MPI_BYTE, &n);
        act(O_RECV, comm_world_rank(comm, st.MPI_SOURCE), st.MPI_TAG, 0, n);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype st_, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rt, int source, int rtag, MPI_Comm comm,
                 MPI_Status * status)
{
    MPI_Status st;
    enter(false);
    int rc = PMPI_Sendrecv(sbuf, scount, st_, dest, stag, rbuf, rcount, rt, source, rtag, comm,
                           &st);
    if (in_region && rc == MPI_SUCCESS) {
        int n = 0, id = next_id++;
        PMPI_Get_count(&st, MPI_BYTE, &n);
        act(O_ISEND, comm_world_rank(comm, dest), stag, id, bytes(scount, st_));
        act(O_RECV, comm_world_rank(comm, st.MPI_SOURCE), st.MPI_TAG, 0, n);
        act(O_WAIT, id, 0, 0, 0);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
              MPI_Request * req)
{
    enter(false);
    int rc = PMPI_Isend(buf, count, t, dest, tag, comm, req);
    if (rc == MPI_SUCCESS)
        req_start(req_new(*req, R_SEND, false, comm_world_rank(comm, dest), tag, bytes(count, t)));
    leave();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
              MPI_Request * req)
{
    enter(false);
    int rc = PMPI_Irecv(buf, count, t, source, tag, comm, req);
    if (rc == MPI_SUCCESS)
        req_start(req_new(*req, R_RECV, false, comm_world_rank(comm, source), tag,
                          bytes(count, t)));
    leave();
    return rc;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
                  MPI_Request * req)
{
    int rc = CALL(false, PMPI_Send_init(buf, count, t, dest, tag, comm, req));
    if (rc == MPI_SUCCESS)
        req_new(*req, R_SEND, true, comm_world_rank(comm, dest), tag, bytes(count, t));
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
                  MPI_Request * req)
{
    int rc = CALL(false, PMPI_Recv_init(buf, count, t, source, tag, comm, req));
    if (rc == MPI_SUCCESS)
        req_new(*req, R_RECV, true, comm_world_rank(comm, source), tag, bytes(count, t));
    return rc;
}

int MPI_Notify_init(MPI_Win win, int src, int tag, int count, MPI_Request * req)
{
    int rc = CALL(false, PMPI_Notify_init(win, src, tag, count, req));
    if (rc == MPI_SUCCESS)
        req_new(*req, R_NOTIFY, true, wtarget(win, src), tag, 0);
    return rc;
}

int MPI_Start(MPI_Request * req)
{
    struct req *r = req_of(*req);
    enter(false);
    if (r)
        r->nmatched = 0;
    int rc = PMPI_Start(req);
    if (r && rc == MPI_SUCCESS)
        req_start(r);
    leave();
    return rc;
}

int MPI_Startall(int n, MPI_Request reqv[])
{
    enter(false);
    for (int i = 0; i < n; i++) {
        struct req *r = req_of(reqv[i]);
        if (r)
            r->nmatched = 0;
    }
    int rc = PMPI_Startall(n, reqv);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        struct req *r = req_of(reqv[i]);
        if (r)
            req_start(r);
    }
    leave();
    return rc;
}

int MPI_Request_free(MPI_Request * req)
{
    struct req *r = req_of(*req);
    int rc = PMPI_Request_free(req);
    if (r && rc == MPI_SUCCESS)
        req_gone(r);
    return rc;
}

int MPI_Wait(MPI_Request * req, MPI_Status * status)
{
    MPI_Request before = *req;
    MPI_Status st;
    enter(false);
    int rc = yielding ? wait_yield(req, &st) : PMPI_Wait(req, &st);
    struct req *r = before != MPI_REQUEST_NULL ? req_of(before) : NULL;
    if (r && rc == MPI_SUCCESS)
        req_done(r, &st);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

int MPI_Test(MPI_Request * req, int *flag, MPI_Status * status)
{
    MPI_Request before = *req;
    MPI_Status st;
    enter(true);
    int rc = PMPI_Test(req, flag, &st);
    if (rc == MPI_SUCCESS && *flag) {
        struct req *r = before != MPI_REQUEST_NULL ? req_of(before) : NULL;
        spinning = false;
        if (r)
            req_done(r, &st);
    } else
        spinning = true;
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

/* the request sets: our own statuses where the caller ignores them */
enum set_kind { WAITALL, WAITANY, WAITSOME, TESTALL, TESTANY, TESTSOME };

static int set_call(enum set_kind kind, int n, MPI_Request reqv[], int *flag, int *index,
                    int *outcount, int indices[], MPI_Status * statuses)
{
    MPI_Request *before = malloc((n > 0 ? n : 1) * sizeof(*before));
    MPI_Status *st = malloc((n > 0 ? n : 1) * sizeof(*st));
    int rc, nst = 0;            /* statuses the caller gets */
    memcpy(before, reqv, n * sizeof(*before));
    enter(kind >= TESTALL);
    switch (kind) {
        case WAITALL:
        case TESTALL:
            if (kind == WAITALL && yielding) {
                int f = 0;
                while ((rc = PMPI_Testall(n, reqv, &f, st)) == MPI_SUCCESS && !f)
                    sched_yield();
            } else
                rc = kind == WAITALL ? PMPI_Waitall(n, reqv, st) : PMPI_Testall(n, reqv, flag, st);
            if (rc == MPI_SUCCESS && (kind == WAITALL || *flag)) {
                for (int i = 0; i < n; i++)
                    done_one(before[i], reqv[i], &st[i]);
                nst = n;
            }
            break;
        case WAITANY:
        case TESTANY:
            if (kind == WAITANY && yielding) {
                int f = 0;
                while ((rc = PMPI_Testany(n, reqv, index, &f, st)) == MPI_SUCCESS && !f)
                    sched_yield();
            } else
                rc = kind == WAITANY ? PMPI_Waitany(n, reqv, index, st) :
                    PMPI_Testany(n, reqv, index, flag, st);
            if (rc == MPI_SUCCESS && (kind == WAITANY || *flag)) {
                if (*index != MPI_UNDEFINED)
                    done_one(before[*index], reqv[*index], &st[0]);
                nst = 1;
            }
            break;
        default:       /* WAITSOME, TESTSOME */
            if (kind == WAITSOME && yielding) {
                while ((rc = PMPI_Testsome(n, reqv, outcount, indices, st)) == MPI_SUCCESS &&
                       *outcount == 0)
                    sched_yield();
            } else
                rc = kind == WAITSOME ? PMPI_Waitsome(n, reqv, outcount, indices, st) :
                    PMPI_Testsome(n, reqv, outcount, indices, st);
            if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
                for (int k = 0; k < *outcount; k++)
                    done_one(before[indices[k]], reqv[indices[k]], &st[k]);
                nst = *outcount;
            }
            break;
    }
    if (kind >= TESTALL)
        spinning = rc == MPI_SUCCESS && !(flag ? *flag : *outcount > 0);
    if (statuses != MPI_STATUSES_IGNORE && statuses != MPI_STATUS_IGNORE)
        memcpy(statuses, st, nst * sizeof(*st));
    free(before);
    free(st);
    leave();
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqv[], MPI_Status st[])
{
    return set_call(WAITALL, n, reqv, NULL, NULL, NULL, NULL, st);
}

int MPI_Waitany(int n, MPI_Request reqv[], int *index, MPI_Status * st)
{
    return set_call(WAITANY, n, reqv, NULL, index, NULL, NULL, st);
}

int MPI_Waitsome(int n, MPI_Request reqv[], int *outcount, int indices[], MPI_Status st[])
{
    return set_call(WAITSOME, n, reqv, NULL, NULL, outcount, indices, st);
}

int MPI_Testall(int n, MPI_Request reqv[], int *flag, MPI_Status st[])
{
    return set_call(TESTALL, n, reqv, flag, NULL, NULL, NULL, st);
}

int MPI_Testany(int n, MPI_Request reqv[], int *index, int *flag, MPI_Status * st)
{
    return set_call(TESTANY, n, reqv, flag, index, NULL, NULL, st);
}

int MPI_Testsome(int n, MPI_Request reqv[], int *outcount, int indices[], MPI_Status st[])
{
    return set_call(TESTSOME, n, reqv, NULL, NULL, outcount, indices, st);
}

/* a probe leaves no line: the receive after it has the matched source */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status * status)
{
    int flag = 0, rc;
    enter(false);
    if (yielding)
        while ((rc = PMPI_Iprobe(source, tag, comm, &flag, status)) == MPI_SUCCESS && !flag)
            sched_yield();
    else
        rc = PMPI_Probe(source, tag, comm, status);
    leave();
    return rc;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status * status)
{
    enter(true);
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    spinning = !(rc == MPI_SUCCESS && *flag);
    leave();
    return rc;
}

/* collectives (of MPI_COMM_WORLD; on another communicator not modelled) */
static void coll(MPI_Comm comm, int op, int a, long long d)
{
    if (!in_region)
        return;
    if (comm == MPI_COMM_WORLD)
        act(op, a, 0, 0, d);
    else
        nunmodelled++;
}

int MPI_Barrier(MPI_Comm comm)
{
    enter(false);
    coll(comm, O_BARRIER, 0, 0);
    int rc = YIELDING(PMPI_Ibarrier(comm, &r_), PMPI_Barrier(comm));
    leave();
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    enter(false);
    coll(comm, O_BCAST, root, bytes(count, t));
    int rc = YIELDING(PMPI_Ibcast(buf, count, t, root, comm, &r_),
                      PMPI_Bcast(buf, count, t, root, comm));
    leave();
    return rc;
}

int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm comm)
{
    enter(false);
    coll(comm, O_REDUCE, root, bytes(count, t));
    int rc = YIELDING(PMPI_Ireduce(s, r, count, t, op, root, comm, &r_),
                      PMPI_Reduce(s, r, count, t, op, root, comm));
    leave();
    return rc;
}

int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    enter(false);
    coll(comm, O_ALLREDUCE, 0, bytes(count, t));
    int rc = YIELDING(PMPI_Iallreduce(s, r, count, t, op, comm, &r_),
                      PMPI_Allreduce(s, r, count, t, op, comm));
    leave();
    return rc;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* natitrace: the ranks, windows and requests the wrappers follow */
#define _GNU_SOURCE

#include "natitrace.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ------------------------------------------------------------ ranks */

static int world_rank(MPI_Group g, int r)
{
    if (r < 0)  /* MPI_PROC_NULL, MPI_ANY_SOURCE */
        return r;
    MPI_Group world;
    int out = r;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, 1, &r, world, &out);
    PMPI_Group_free(&world);
    return out;
}

int comm_world_rank(MPI_Comm comm, int r)
{
    if (comm == MPI_COMM_WORLD || r < 0)
        return r;
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    int w = world_rank(g, r);
    PMPI_Group_free(&g);
    return w;
}

long long bytes(int count, MPI_Datatype t)
{
    int s = 0;
    PMPI_Type_size(t, &s);
    return (long long) count *s;
}

/* ------------------------------------------------------------ windows */

int **groups;                   /* world ranks of each post/start group, -1 terminated */
static size_t ngroups;

struct win *wins;
int nwins, next_win_num;
static int capwins;

struct win *win_of(MPI_Win w)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i].win == w)
            return &wins[i];
    return NULL;
}

void win_new(MPI_Win w)
{
    if (nwins == capwins) {
        capwins = capwins ? 2 * capwins : 8;
        wins = realloc(wins, capwins * sizeof(*wins));
    }
    struct win *x = &wins[nwins++];
    MPI_Group g;
    int n;
    *x = (struct win) {
        .win = w,.num = next_win_num++
    };
    PMPI_Win_get_group(w, &g);
    PMPI_Group_size(g, &n);
    x->world = malloc(n * sizeof(int));
    for (int r = 0; r < n; r++)
        x->world[r] = world_rank(g, r);
    PMPI_Group_free(&g);
    if (in_region)
        act(O_WIN, x->num, 0, 0, 0);
}

void win_gone(MPI_Win w)
{
    struct win *x = win_of(w);
    if (!x)
        return;
    free(x->world);
    *x = wins[--nwins];
}

int wnum(MPI_Win w)
{
    struct win *x = win_of(w);
    return x ? x->num : -1;
}

int wtarget(MPI_Win w, int r)
{
    struct win *x = win_of(w);
    return x && r >= 0 ? x->world[r] : r;
}

bool is_flags(MPI_Win w)
{
    struct win *x = win_of(w);
    return x && x->flags;
}

/* a group of a window's PSCW epoch, as world ranks */
long long group_index(MPI_Group g)
{
    int n;
    MPI_Group world;
    PMPI_Group_size(g, &n);
    int *in = malloc(n * sizeof(int)), *out = malloc((n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, n, in, world, out);
    PMPI_Group_free(&world);
    free(in);
    out[n] = -1;
    groups = realloc(groups, (ngroups + 1) * sizeof(*groups));
    groups[ngroups] = out;
    return (long long) ngroups++;
}

/* ------------------------------------------------------------ requests */

struct req *reqs;
int nreqs, next_id = 1;
static int capreqs;

struct req *req_of(MPI_Request h)
{
    for (int i = nreqs - 1; i >= 0; i--)
        if (reqs[i].h == h)
            return &reqs[i];
    return NULL;
}

struct req *req_new(MPI_Request h, enum rkind kind, bool persistent, int peer, int tag,
                    long long size)
{
    if (nreqs == capreqs) {
        capreqs = capreqs ? 2 * capreqs : 64;
        reqs = realloc(reqs, capreqs * sizeof(*reqs));
    }
    struct req *r = &reqs[nreqs++];
    *r = (struct req) {
        .h = h,.kind = kind,.persistent = persistent,.peer = peer,.tag = tag,.size = size
    };
    return r;
}

void req_gone(struct req *r)
{
    free(r->matched);
    *r = reqs[--nreqs];
}

/* an activation: the isend / irecv line (a notification request's
 * matches are counted from before its MPI_Start: it may match there) */
void req_start(struct req *r)
{
    if (!in_region || r->kind == R_NOTIFY) {
        r->id = 0;
        return;
    }
    r->id = next_id++;
    r->line = act(r->kind == R_SEND ? O_ISEND : O_IRECV, r->peer, r->tag, r->id, r->size);
}

/* the request completed with status st (of its activation) */
void req_done(struct req *r, const MPI_Status * st)
{
    if (in_region) {
        if (r->kind == R_NOTIFY) {
            for (int i = 0; i < r->nmatched; i++)
                act(O_NOTIFIED, r->matched[i][0], r->matched[i][1], 0, 0);
        } else if (r->id) {
            if (r->kind == R_RECV && st) {
                int n = 0;
                PMPI_Get_count(st, MPI_BYTE, &n);
                recs[r->line].a = st->MPI_SOURCE;
                recs[r->line].b = st->MPI_TAG;
                recs[r->line].d = n;
            }
            act(O_WAIT, r->id, 0, 0, 0);
        }
    }
    r->id = 0;
    r->nmatched = 0;
    if (!r->persistent)
        req_gone(r);
}

/* Completion in a set: the handle before the call and after it */
void done_one(MPI_Request before, MPI_Request after, const MPI_Status * st)
{
    struct req *r = before != MPI_REQUEST_NULL ? req_of(before) : NULL;
    /* a persistent request stays; the others became MPI_REQUEST_NULL */
    if (r && (after == MPI_REQUEST_NULL || r->persistent))
        req_done(r, st);
}

/*
 * completion_fuzz: a seeded, randomized checker for request completion:
 * notification requests, plain and generalized requests, counter
 * thresholds, continuations and completion functions, under
 * MPI_THREAD_MULTIPLE with 1-4 threads per rank.
 *
 *   completion_fuzz [-seed S] [-n N] [-start I] [-v] [-max-ops K]
 *                   [-max-threads T] [-watchdog SEC] [-no FEATURE,...] [-dry]
 *
 *   -seed S, -n N     programs S:0 .. S:N-1 (default seed 1, N 200);
 *                     -start I begins at program I
 *   -v                list every program before running it
 *   -max-ops K        at most K completion units per rank and phase (default 10)
 *   -max-threads T    at most T threads per rank (1-4, default 4)
 *   -watchdog SEC     a program that takes longer is reported as a hang (20)
 *   -dry              generate and count only (the summary), run nothing
 *   -no F,...         leave situations out (test/fuzz/README lists them):
 *                     mt-greq, dup, cancel-cr, free-rma, undef-poll, poll-greq,
 *                     poll-testall
 *
 * Every rank derives the same random program from (seed, program index):
 * one to three phases, in each of which every rank and thread
 *   1. creates operations: MPI_Irecv, MPI_Notify_init + MPI_Start (exact
 *      source, MPI_ANY_SOURCE, MPI_PROC_NULL; counts > 1), MPIX_Win_notify_request
 *      (counter thresholds: reached at the end of the phase, earlier, or
 *      already), MPI_Grequest_start (query_fn / free_fn / cancel_fn count
 *      their calls; a query_fn may sleep, i.e. run outside MPICH's lock for
 *      a while, or fail), inactive notification requests, MPI_REQUEST_NULL;
 *      continuation requests (MPIX_Continue_init: poll-only or not, max_poll
 *      0, 1, 2 or MPI_UNDEFINED), started now or later;
 *   2. cancels some (unmatched receives and notification requests,
 *      generalized requests), completes some generalized requests, and
 *      registers continuations (MPIX_Continue, MPIX_Continueall with every
 *      flag: MPIX_CONT_REQBUF_VOLATILE, PERSISTENT, DEFER_COMPLETE,
 *      INVOKE_FAILED, IMMEDIATE, FORGET; with a continuation request or none)
 *      and completion functions (MPIX_Request_on_complete; on a
 *      notification request one per activation, restarted by the function
 *      or by the thread); tries what MPI refuses (MPIX_Request_on_complete on
 *      a notification request a continuation watches, MPI_Cancel on a
 *      continuation request);
 *   3. after a barrier, produces what completes them: MPI_Send, MPI_Isend
 *      (also freed at once), MPI_Put_notify, MPI_Get_notify, MPI_Rput_notify,
 *      MPIX_Put_notify, MPI_Rput (request-based ones completed like the others,
 *      or freed with MPI_Request_free), MPI_Grequest_complete (also from
 *      another thread after a delay, or from a callback); registers more
 *      continuations; frees continuation requests with callbacks pending;
 *   4. completes: MPI_Wait / MPI_Test loop / MPI_Waitall / MPI_Testall loop /
 *      MPI_Waitany / MPI_Testany / MPI_Waitsome / MPI_Testsome loops over
 *      operations and continuation requests mixed, continuations registered
 *      once their operations are known complete, a continuation request as
 *      the operation of another continuation; waits for completion functions
 *      and continuations without a request.
 * The model (section 4) says, for every callback, how many times it must
 * run (a continuation exactly once, or never if an operation failed and
 * MPIX_CONT_INVOKE_FAILED is not set; a completion function once per
 * activation; query_fn and free_fn once each, cancel_fn once per MPI_Cancel),
 * with which error and which status (source, tag, count, cancelled, the
 * data a receive or a notified put delivered), where it may run (inside
 * MPIX_Continue when the operations are complete already, never before
 * MPI_Start of its continuation request, only inside test and wait on a
 * poll-only one, at most max_poll per MPI_Test*), and when a continuation
 * request completes (only once all its callbacks have run; with the error
 * of one that was not invoked) and with which error.  What the executor
 * (section 5) sees is compared; a mismatch names the seed, program, phase
 * and the program step (listed with -v, and after a failure).  A hang
 * (watchdog) or a crash names the step every thread was in.
 *
 * Programs are correct and their outcome does not depend on timing: every
 * notification tag and message tag is used once per phase, a cancelled
 * request is one nothing can match, a counter threshold's value is bounded
 * by the counts before and after the phase, and no wait depends on a
 * callback that cannot run before it (section 3).
 *
 * With CF_SLOW=1 in the environment each rank names its slowest step at
 * the end.
 *
 * Sections: 1 PRNG, 2 program, 3 generator, 4 model and listing, 5 executor,
 * 6 main.
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MPIX_CONT_POLL_ONLY
#error "completion_fuzz needs the Notified Access MPICH (MPIX_Continue in mpi.h)"
#endif

/* GCC >= 11 takes MPI_STATUSES_IGNORE for a zero-size array (as in test/continue.c) */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

/* ================================================================ 1. PRNG */
#include "fuzz_common.h"

/* index drawn with the given weights */
static int rpick(rng_t * r, const int *w, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i];
    int x = rbelow(r, sum);
    for (int i = 0; i < n; i++) {
        if (x < w[i])
            return i;
        x -= w[i];
    }
    return n - 1;
}

/* ============================================================ 2. program */
#define MAXP 8          /* ranks */
#define MAXT 4          /* threads per rank */
#define MAXPH 3         /* phases */
#define MAXCRT 3        /* continuation requests per thread */
#define MAXG 4          /* operations per continuation */
#define MAXI 4          /* entries per completion call */
#define MAXCOMP 8       /* generalized requests one callback completes */
#define NCTR 4          /* counters of the window */
#define NSLOTS 8192     /* ints per window */
#define MAXN 4          /* ints per message / access */
#define MAXOPS 2048
#define MAXACC 2048
#define MAXGRP 1024
#define MAXITEM 1024
#define MAXSTEP 8192
#define MAXCR (MAXP * MAXT * MAXCRT)
#define SPIN_TAG 32000  /* a tag nothing sends: MPI_Iprobe on it drives progress */

/* operations */
enum { OK_IRECV, OK_ISEND, OK_RPUT, OK_RPUTN, OK_NOTIFY, OK_CTR, OK_GREQ, OK_NULL, OK_INACT,
    OK_CR, NOK
};
static const char *okname[NOK] = { "irecv", "isend", "rput", "rput_notify", "notify", "counter",
    "grequest", "null", "inactive", "contreq"
};

/* how an operation is completed */
enum { C_DIRECT, C_CONT, C_ONCOMP, C_FREE, NCOMP };
static const char *compname[NCOMP] = { "completion call", "continuation", "on_complete",
    "MPI_Request_free"
};

/* who completes a generalized request */
enum { GC_PRE, GC_S2, GC_S3, GC_CB, GC_LATE, NGC };
static const char *gcname[NGC] = { "its thread before registration",
    "a thread in the produce stage", "a thread first in the completion stage", "a callback",
    "its thread after the completion calls"
};

/* when a continuation is registered: setup stage, end of the produce stage,
 * completion stage once its operations are known complete */
enum { R_EARLY, R_LATE, R_DONE };
static const char *whenname[] = { "setup", "after produce", "once complete" };

/* continuation requests: start and fate in a phase */
enum { CS_NONE, CS_EARLY, CS_LATE };
enum { CF_NONE, CF_ITEM, CF_FREE, CF_INNER };

/* completion calls */
enum { H_WAIT, H_TEST, H_WAITALL, H_TESTALL, H_WAITANY, H_TESTANY, H_WAITSOME, H_TESTSOME, NH };
static const char *hname[NH] = { "MPI_Wait each", "MPI_Test loop each", "MPI_Waitall",
    "MPI_Testall loop", "MPI_Waitany loop", "MPI_Testany loop", "MPI_Waitsome loop",
    "MPI_Testsome loop"
};

/* stages of a phase */
enum { ST_CREATE, ST_SETUP, ST_PRODUCE, ST_COMPLETE, NST };
static const char *stname[NST] = { "create", "setup", "produce", "complete" };

/* accesses to the window */
enum { AC_PUTN, AC_GETN, AC_CTRPUT, AC_RPUT, AC_RPUTN };
static const char *acname[] = { "MPI_Put_notify", "MPI_Get_notify", "MPIX_Put_notify", "MPI_Rput",
    "MPI_Rput_notify"
};

/* senders of a message */
enum { SH_NONE, SH_OP, SH_SEND, SH_ISEND_FREE };

/* situations that -no can leave out */
enum { F_MT_GREQ, F_DUP, F_CANCEL_CR, F_FREE_RMA, F_UNDEF_POLL, F_POLL_GREQ, F_POLL_TESTALL, NFEAT };
static const char *featname[NFEAT] = { "mt-greq", "dup", "cancel-cr", "free-rma", "undef-poll",
    "poll-greq", "poll-testall"
};
static int feat_off[NFEAT];

typedef struct {
    int id, phase, kind, rank, thread;
    int comp, grp;              /* C_CONT / C_ONCOMP: its group */
    int item;                   /* C_DIRECT: its completion call */
    int peer, tag, nints;       /* IRECV: sender (-1 none); ISEND: receiver; NOTIFY: src */
    int mate;                   /* ISEND: its IRECV; IRECV: its ISEND (SH_OP) */
    int sendhow, sthread;       /* IRECV: how the sender sends, from which thread */
    int acc;                    /* RPUT / RPUTN: the access */
    uint32_t val;
    int orphan;                 /* nothing completes it but a cancel or a free */
    int cancel;                 /* 1 before registration, 2 after (on_complete) */
    int nfree;                  /* notification request freed after registration */
    int free_stage;             /* C_FREE: stage of the MPI_Request_free */
    int ncount, acts, restart_fn, anysrc;
    unsigned srcmask;           /* NOTIFY: origins of its notifications */
    int idx;                    /* CTR */
    long long thr, lo, hi;      /* CTR: threshold; the value its status may show */
    int thrmode;                /* 0 reached at the end, 1 during, 2 already */
    int completer, cthread, cdelay, cgrp, cancel_first;  /* GREQ */
    int qsleep, fail;
    int cr;                     /* CR: the inner continuation request */
    int step;                   /* the step that creates or issues it */
    /* runtime */
    MPI_Request h, keep;
    int buf[MAXN];
    atomic_int queries, frees, cancels, gdone, dupcalls;
    volatile int gcancelled;
} op_t;

typedef struct {
    int id, phase, kind, origin, othread, target, slot, nints, tag, idx, nop, op;
    uint32_t val;
    int step;
    int obuf[MAXN];
} acc_t;

typedef struct {
    int id, phase, kind, rank, thread;  /* kind: C_CONT or C_ONCOMP */
    int nops, ops[MAXG];
    int single, flags, cr, when, use_st, after_start;
    int inline_exp, defer_zero, fails;
    int expect_calls, expect_err;
    int ncomp, comps[MAXCOMP], nocompleter;
    int dup, spin;
    int step;
    /* runtime */
    atomic_int calls, rets;
    MPI_Status st[MAXG];
    MPI_Request arr[MAXG], copy[MAXG];
} grp_t;

typedef struct {
    int start, fate, keep, free_stage, cancel, outer, item, ngroups, err, exists;
} crph_t;

typedef struct {
    int id, rank, thread, poll_only, max_poll;  /* max_poll -1: MPI_UNDEFINED */
    crph_t ph[MAXPH];
    /* runtime */
    MPI_Request h;
    volatile int active, polling, freed;
    atomic_int polled;
    pthread_t owner;
} cr_t;

typedef struct {
    int id, phase, rank, thread, how, n;
    int isop[MAXI], ref[MAXI];
    int step;
    volatile int entered;       /* runtime: its thread is in the call */
} item_t;

enum { S_CREATE, S_CR_CREATE, S_CR_START, S_CANCEL, S_GCOMPLETE, S_REGISTER, S_DUP, S_FREE,
    S_NFREE, S_CANCEL_CR, S_ISSUE, S_SEND, S_ISEND_FREE, S_ACCESS, S_CR_FREE, S_ITEM, S_SPIN,
    S_CLEANUP, S_END_FREE_OP, S_END_FREE_CR
};

typedef struct {
    int id, kind, phase, rank, thread, stage, a, delay;
    int after_item;             /* S_GCOMPLETE: first let this completion call begin */
    char desc[160];
} step_t;

typedef struct {
    uint64_t seed;
    long index;
    int P, nph, T[MAXP];
    int nops, nacc, ngrp, nitem, nstep, ncr;
    op_t *ops;
    acc_t *acc;
    grp_t *grp;
    item_t *item;
    step_t *step;
    cr_t cr[MAXCR];
    int ncrt[MAXP][MAXT], crt[MAXP][MAXT][MAXCRT];
    long long ctot[MAXPH + 1][MAXP][NCTR];      /* counter totals before each phase */
} prog_t;

/* ========================================================== 3. generator */
static op_t *new_op(prog_t * p, int phi, int kind, int rank, int thread)
{
    if (p->nops >= MAXOPS) {
        fprintf(stderr, "completion_fuzz: too many operations\n");
        abort();
    }
    op_t *o = &p->ops[p->nops];
    memset(o, 0, sizeof *o);
    o->id = p->nops++;
    o->phase = phi;
    o->kind = kind;
    o->rank = rank;
    o->thread = thread;
    o->grp = o->mate = o->acc = o->cgrp = o->cr = o->step = o->item = -1;
    o->peer = -1;
    o->val = (uint32_t) (hash4(p->seed, p->index, o->id, 17) & 0x3fffffff) + 1;
    return o;
}

/* window slots: each access of a phase gets its own */
static int slot_alloc(int *next, int n)
{
    int s = *next;
    if (s + n > NSLOTS) {
        fprintf(stderr, "completion_fuzz: window too small\n");
        abort();
    }
    *next += n;
    return s;
}

static acc_t *new_acc(prog_t * p, rng_t * r, int phi, int kind, int origin, int target,
                      int *slotn, int nints)
{
    if (p->nacc >= MAXACC) {
        fprintf(stderr, "completion_fuzz: too many accesses\n");
        abort();
    }
    acc_t *a = &p->acc[p->nacc];
    memset(a, 0, sizeof *a);
    a->id = p->nacc++;
    a->phase = phi;
    a->kind = kind;
    a->origin = origin;
    a->othread = rbelow(r, p->T[origin]);
    a->target = target;
    a->nints = nints ? nints : 1 + rbelow(r, MAXN);
    a->slot = slot_alloc(&slotn[target], a->nints);
    a->nop = a->op = a->step = -1;
    a->val = (uint32_t) (hash4(p->seed, p->index, a->id, 29) & 0x3fffffff) + 1;
    return a;
}

/* the generator's weights */
static const int w_send[3] = { 5, 3, 2 };       /* SH_OP, SH_SEND, SH_ISEND_FREE */
static const int notify_kinds[5] = { AC_PUTN, AC_PUTN, AC_GETN, AC_RPUTN, AC_RPUTN };
static const int w_thrmode[3] = { 55, 25, 20 }; /* threshold reached at the end, during, already */
static const int w_grpsize[4] = { 40, 30, 20, 10 };     /* operations per continuation */
static const int w_when[3] = { 50, 25, 25 };    /* R_EARLY, R_LATE, R_DONE */
static const int w_fate[4] = { 0, 75, 12, 13 }; /* CF_*, of a request with continuations */
static const int w_threads[4] = { 20, 35, 25, 20 };     /* 1-4 threads per rank */
static const int w_ncr[4] = { 15, 35, 30, 20 }; /* 0-3 continuation requests per thread */
static const int max_polls[4] = { 0, 0, 1, 2 };

static int unique_tag(int phi, int id)
{
    return (phi + 1) * 4096 + id;
}

static int comp_pick(rng_t * r, int kind)
{
    static const int w[NOK][NCOMP] = {
        [OK_IRECV] = {35, 45, 20, 0},
        [OK_ISEND] = {30, 40, 15, 15},
        [OK_RPUT] = {30, 40, 15, 15},
        [OK_RPUTN] = {30, 40, 15, 15},
        [OK_NOTIFY] = {30, 45, 25, 0},
        [OK_CTR] = {30, 45, 15, 10},
        [OK_GREQ] = {25, 60, 15, 0},
        [OK_NULL] = {0, 1, 0, 0},
        [OK_INACT] = {0, 1, 0, 0},
    };
    int c = rpick(r, w[kind], NCOMP);
    if (c == C_FREE && feat_off[F_FREE_RMA] && kind != OK_ISEND)
        c = C_CONT;
    return c;
}

/* issued in the produce stage (their requests exist only from then on) */
static int issued_late(int kind)
{
    return kind == OK_ISEND || kind == OK_RPUT || kind == OK_RPUTN;
}

static grp_t *new_grp(prog_t * p, int phi, int kind, int rank, int thread)
{
    if (p->ngrp >= MAXGRP) {
        fprintf(stderr, "completion_fuzz: too many groups\n");
        abort();
    }
    grp_t *g = &p->grp[p->ngrp];
    memset(g, 0, sizeof *g);
    g->id = p->ngrp++;
    g->phase = phi;
    g->kind = kind;
    g->rank = rank;
    g->thread = thread;
    g->cr = -1;
    g->step = -1;
    return g;
}

/* the continuation request a group counts toward (FORGET: none) */
static int gcr(const grp_t * g)
{
    return (g->flags & MPIX_CONT_FORGET) ? -1 : g->cr;
}

/* its callback may run from any thread's progress once its operations are
 * complete (not held by an inactive or poll-only continuation request) */
static int free_running(const prog_t * p, const grp_t * g)
{
    int c = gcr(g);
    if (g->kind == C_ONCOMP || c < 0)
        return 1;
    const cr_t *cr = &p->cr[c];
    return !cr->poll_only && cr->ph[g->phase].start == CS_EARLY;
}

static int cr_err(prog_t * p, int c, int phi);

/* an operation of g fails (a generalized request whose query fails, an
 * inner continuation request that returns an error) */
static int grp_fails(prog_t * p, grp_t * g)
{
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &p->ops[g->ops[i]];
        if (o->kind == OK_GREQ && o->fail)
            return 1;
        if (o->kind == OK_CR && cr_err(p, o->cr, g->phase))
            return 1;
    }
    return 0;
}

/* the error the completion of continuation request c returns in phase phi:
 * a continuation registered with it was not invoked because an operation
 * failed */
static int cr_err(prog_t * p, int c, int phi)
{
    for (int i = 0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        if (g->phase == phi && g->kind == C_CONT && gcr(g) == c && grp_fails(p, g) &&
            !(g->flags & MPIX_CONT_INVOKE_FAILED))
            return 1;
    }
    return 0;
}

/* a generalized request of a continuation on poll-only request c is
 * completed by another thread while c's thread waits (bug 2's site) */
static int cross_greq(const prog_t * p, int c, int phi)
{
    if (!p->cr[c].poll_only)
        return 0;
    for (int i = 0; i < p->nops; i++) {
        const op_t *o = &p->ops[i];
        if (o->phase == phi && o->kind == OK_GREQ && o->grp >= 0 &&
            p->grp[o->grp].kind == C_CONT && gcr(&p->grp[o->grp]) == c &&
            o->completer == GC_S3 && o->cthread != o->thread)
            return 1;
    }
    return 0;
}

/* the callback of g runs only after that of h (through its operations:
 * generalized requests completed by callbacks, continuation requests) */
static int depends(const prog_t * p, const grp_t * g, const grp_t * h)
{
    if (g == h)
        return 1;
    for (int i = 0; i < g->nops; i++) {
        const op_t *o = &p->ops[g->ops[i]];
        if (o->kind == OK_GREQ && o->completer == GC_CB && depends(p, &p->grp[o->cgrp], h))
            return 1;
        if (o->kind == OK_CR)
            for (int j = 0; j < p->ngrp; j++) {
                const grp_t *x = &p->grp[j];
                if (x->phase == g->phase && x->kind == C_CONT && gcr(x) == o->cr &&
                    depends(p, x, h))
                    return 1;
            }
    }
    return 0;
}

static step_t *new_step(prog_t * p, int phi, int rank, int thread, int stage, int kind, int a)
{
    if (p->nstep >= MAXSTEP) {
        fprintf(stderr, "completion_fuzz: too many steps\n");
        abort();
    }
    step_t *s = &p->step[p->nstep];
    memset(s, 0, sizeof *s);
    s->id = p->nstep++;
    s->kind = kind;
    s->phase = phi;
    s->rank = rank;
    s->thread = thread;
    s->stage = stage;
    s->a = a;
    s->after_item = -1;
    return s;
}

static void shuffle(rng_t * r, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rbelow(r, i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void describe_step(const prog_t * p, step_t * s);

/* registration of g, and what follows it at once */
static void reg_steps(prog_t * p, grp_t * g, int stage)
{
    step_t *s = new_step(p, g->phase, g->rank, g->thread, stage, S_REGISTER, g->id);
    g->step = s->id;
    if (g->dup)
        new_step(p, g->phase, g->rank, g->thread, stage, S_DUP, g->id);
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &p->ops[g->ops[i]];
        if (o->nfree)
            new_step(p, g->phase, g->rank, g->thread, stage, S_NFREE, o->id);
        if (o->cancel == 2)
            new_step(p, g->phase, g->rank, g->thread, stage, S_CANCEL, o->id);
    }
}

static void gen_phase(prog_t * p, rng_t * r, int phi, int max_units)
{
    int P = p->P, slotn[MAXP] = { 0 };
    int op0 = p->nops, acc0 = p->nacc, g0 = p->ngrp, it0 = p->nitem;
    long long (*before)[NCTR] = p->ctot[phi], (*after)[NCTR] = p->ctot[phi + 1];
    memcpy(after, before, sizeof(long long) * MAXP * NCTR);

    /* ---- units: an operation to complete and what completes it */
    for (int rk = 0; rk < P; rk++) {
        int nu = 1 + rbelow(r, max_units);
        for (int u = 0; u < nu; u++) {
            static const int uw[] = { 20, 3, 22, 3, 12, 8, 25, 4, 4 };
            int t = rbelow(r, p->T[rk]), type = rpick(r, uw, 9);
            op_t *o;
            switch (type) {
                case 0:        /* a message */
                case 1:        /* a receive nothing matches: cancelled */
                    o = new_op(p, phi, OK_IRECV, rk, t);
                    o->tag = unique_tag(phi, o->id);
                    o->nints = 1 + rbelow(r, MAXN);
                    o->comp = comp_pick(r, OK_IRECV);
                    if (type == 1) {
                        o->orphan = 1;
                        o->cancel = 1;
                        break;
                    }
                    o->peer = P > 1 && rpct(r, 90) ? (rk + 1 + rbelow(r, P - 1)) % P : rk;
                    o->sendhow = 1 + rpick(r, w_send, 3);
                    if (o->sendhow == SH_SEND && o->peer == rk)
                        o->sendhow = SH_OP;     /* no blocking send to oneself */
                    o->sthread = rbelow(r, p->T[o->peer]);
                    if (o->sendhow == SH_OP) {
                        int oid = o->id;
                        op_t *s = new_op(p, phi, OK_ISEND, o->peer, o->sthread);
                        o = &p->ops[oid];
                        s->peer = rk;
                        s->tag = o->tag;
                        s->nints = o->nints;
                        s->val = o->val;
                        s->mate = o->id;
                        o->mate = s->id;
                        s->comp = comp_pick(r, OK_ISEND);
                    }
                    break;
                case 2:        /* a notification request */
                case 3:        /* ... that nothing matches */
                    {
                        o = new_op(p, phi, OK_NOTIFY, rk, t);
                        int oid = o->id;
                        o->tag = unique_tag(phi, o->id);
                        o->nints = 1 + rbelow(r, MAXN);
                        o->ncount = 1 + rbelow(r, 3);
                        o->comp = comp_pick(r, OK_NOTIFY);
                        o->acts = 1;
                        if (type == 3) {
                            o->orphan = 1;
                            o->ncount = 1;
                            o->peer = rbelow(r, P);
                            /* cancelled (before a continuation, after a function), or freed
                             * while watched */
                            o->cancel = o->comp == C_ONCOMP ? 2 : 1;
                            if (o->comp != C_DIRECT && rpct(r, 50)) {
                                o->cancel = 0;
                                o->nfree = 1;
                            }
                            break;
                        }
                        int m = rbelow(r, 100);
                        if (m < 15) {
                            o->peer = MPI_PROC_NULL;
                            o->ncount = 1;
                        } else if (m < 40) {
                            o->peer = MPI_ANY_SOURCE;
                            o->anysrc = 1;
                        } else
                            o->peer = rpct(r, 15) ? rk : (P > 1 ? (rk + 1 + rbelow(r, P - 1)) % P : rk);
                        if (o->comp == C_ONCOMP) {
                            o->acts = 1 + rbelow(r, 3);
                            o->restart_fn = rpct(r, 50);
                        }
                        if (o->peer == MPI_PROC_NULL)
                            break;
                        int nn = o->ncount * o->acts, nints = o->nints;
                        for (int k = 0; k < nn; k++) {
                            o = &p->ops[oid];
                            int org = o->anysrc ? rbelow(r, P) : o->peer;
                            o->srcmask |= 1u << org;
                            int kind = notify_kinds[rbelow(r, 5)];
                            /* one size for all: the status's count */
                            acc_t *a = new_acc(p, r, phi, kind, org, rk, slotn, nints);
                            a->tag = o->tag;
                            a->nop = oid;
                            if (kind == AC_RPUTN) {
                                int aid = a->id;
                                op_t *q = new_op(p, phi, OK_RPUTN, org, a->othread);
                                q->acc = aid;
                                q->comp = comp_pick(r, OK_RPUTN);
                                p->acc[aid].op = q->id;
                            }
                        }
                    }
                    break;
                case 4:        /* a counter threshold */
                    {
                        o = new_op(p, phi, OK_CTR, rk, t);
                        int oid = o->id;
                        o->idx = rbelow(r, NCTR);
                        o->comp = comp_pick(r, OK_CTR);
                        o->thrmode = rpick(r, w_thrmode, 3);
                        int k = rbelow(r, 4);
                        for (int i = 0; i < k; i++) {
                            acc_t *a = new_acc(p, r, phi, AC_CTRPUT, rbelow(r, P), rk, slotn, 0);
                            a->idx = p->ops[oid].idx;
                            after[rk][a->idx]++;
                        }
                    }
                    break;
                case 5:        /* MPI_Rput */
                    {
                        int tgt = rbelow(r, P);
                        acc_t *a = new_acc(p, r, phi, AC_RPUT, rk, tgt, slotn, 0);
                        a->othread = t;
                        int aid = a->id;
                        o = new_op(p, phi, OK_RPUT, rk, t);
                        o->acc = aid;
                        o->comp = comp_pick(r, OK_RPUT);
                        p->acc[aid].op = o->id;
                    }
                    break;
                case 6:        /* a generalized request */
                    o = new_op(p, phi, OK_GREQ, rk, t);
                    o->comp = comp_pick(r, OK_GREQ);
                    /* bug 1's site: a continuation watches it and another thread's
                     * progress may find it complete while its query_fn runs
                     * outside MPICH's lock (sleeping, to widen the window) */
                    if (feat_off[F_MT_GREQ] && p->T[rk] > 1)
                        o->comp = C_DIRECT;
                    else if (rpct(r, 35))
                        o->qsleep = 200 + rbelow(r, 1800);
                    o->fail = o->comp == C_CONT && rpct(r, 15);
                    o->cancel = rpct(r, 15);
                    o->cancel_first = rpct(r, 50);
                    break;
                case 7:
                    o = new_op(p, phi, OK_NULL, rk, t);
                    o->comp = C_CONT;
                    break;
                case 8:
                    o = new_op(p, phi, OK_INACT, rk, t);
                    o->tag = unique_tag(phi, o->id);
                    o->comp = C_CONT;
                    break;
            }
        }
    }
    /* RPUTN ops were made for their origins' threads: C_FREE stages etc. */
    for (int i = op0; i < p->nops; i++) {
        op_t *o = &p->ops[i];
        if (o->comp == C_FREE)
            o->free_stage = (o->kind == OK_CTR && rpct(r, 50)) ? ST_SETUP : ST_PRODUCE;
        if (o->kind == OK_CTR) {
            long long b = before[o->rank][o->idx], a = after[o->rank][o->idx];
            if (o->thrmode == 1 && a <= b)
                o->thrmode = 0;
            if (o->thrmode == 0) {
                o->thr = a;
                o->lo = o->hi = a;
            } else if (o->thrmode == 1) {
                o->thr = b + 1 + rbelow(r, (int) (a - b));
                o->lo = o->thr;
                o->hi = a;
            } else {
                o->thr = rbelow(r, (int) b + 1);
                o->lo = b;
                o->hi = a;
            }
        }
    }

    /* ---- continuations and completion functions */
    for (int rk = 0; rk < P; rk++)
        for (int t = 0; t < p->T[rk]; t++) {
            int list[MAXOPS], n = 0;
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->rank != rk || o->thread != t)
                    continue;
                if (o->comp == C_CONT)
                    list[n++] = i;
                else if (o->comp == C_ONCOMP) {
                    grp_t *g = new_grp(p, phi, C_ONCOMP, rk, t);
                    g->nops = 1;
                    g->ops[0] = i;
                    o->grp = g->id;
                    g->when = issued_late(o->kind) ? R_LATE : R_EARLY;
                }
            }
            shuffle(r, list, n);
            int extra_empty = rpct(r, 5);
            for (int k = 0; k < n || extra_empty; extra_empty = 0) {
                int sz = k < n ? 1 + rpick(r, w_grpsize, 4) : 0;
                if (k + sz > n)
                    sz = n - k;
                grp_t *g = new_grp(p, phi, C_CONT, rk, t);
                int late = 0;
                for (int j = 0; j < sz; j++) {
                    g->ops[g->nops++] = list[k + j];
                    p->ops[list[k + j]].grp = g->id;
                    late |= issued_late(p->ops[list[k + j]].kind);
                }
                k += sz;
                /* MPIX_Continue takes no MPI_REQUEST_NULL (MPIX_Continueall entries may be) */
                g->single = sz == 1 && rpct(r, 70) && p->ops[g->ops[0]].kind != OK_NULL;
                if (rpct(r, 20))
                    g->flags |= MPIX_CONT_REQBUF_VOLATILE;
                if (rpct(r, 12))
                    g->flags |= MPIX_CONT_PERSISTENT;
                if (rpct(r, 30))
                    g->flags |= MPIX_CONT_DEFER_COMPLETE;
                if (rpct(r, 30))
                    g->flags |= MPIX_CONT_INVOKE_FAILED;
                if (rpct(r, 20))
                    g->flags |= MPIX_CONT_IMMEDIATE;
                if (p->ncrt[rk][t] > 0 && rpct(r, 65)) {
                    g->cr = p->crt[rk][t][rbelow(r, p->ncrt[rk][t])];
                    if (rpct(r, 15))
                        g->flags |= MPIX_CONT_FORGET;
                } else if (rpct(r, 10))
                    g->flags |= MPIX_CONT_FORGET;
                g->use_st = rpct(r, 70);
                if (late)
                    g->when = rpct(r, 60) ? R_LATE : R_DONE;
                else
                    g->when = rpick(r, w_when, 3);
                if (sz == 0)
                    break;
            }
        }
    /* orphans: cancel before registration where the continuation would
     * otherwise wait for them forever */
    for (int i = g0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        for (int j = 0; j < g->nops; j++) {
            op_t *o = &p->ops[g->ops[j]];
            if (o->orphan && o->kind == OK_NOTIFY && g->when == R_DONE && o->nfree) {
                o->nfree = 0;
                o->cancel = 1;
            }
        }
    }

    /* ---- continuation requests' plans */
    for (int c = 0; c < p->ncr; c++) {
        cr_t *cr = &p->cr[c];
        crph_t *ph = &cr->ph[phi];
        ph->exists = phi > 0 && cr->ph[phi - 1].fate != CF_FREE && cr->ph[phi - 1].keep;
        ph->outer = ph->item = -1;
        int ng = 0, late = 0;
        for (int i = g0; i < p->ngrp; i++)
            if (p->grp[i].kind == C_CONT && gcr(&p->grp[i]) == c) {
                ng++;
                for (int j = 0; j < p->grp[i].nops; j++)
                    late |= issued_late(p->ops[p->grp[i].ops[j]].kind);
            }
        ph->ngroups = ng;
        if (ng > 0) {
            ph->fate = rpick(r, w_fate, 4);
            if (ph->fate == CF_INNER) {
                /* an outer continuation of the same thread, registered after
                 * every one of this request (section 3) */
                int cand[MAXGRP], nc = 0;
                for (int i = g0; i < p->ngrp; i++) {
                    grp_t *g = &p->grp[i];
                    if (g->kind != C_CONT || g->rank != cr->rank || g->thread != cr->thread ||
                        g->nops >= MAXG || g->when == R_DONE || g->dup)
                        continue;
                    if (gcr(g) == c || (gcr(g) >= 0 && gcr(g) < c))
                        continue;
                    cand[nc++] = i;
                }
                if (cr->poll_only || late || nc == 0)
                    ph->fate = CF_ITEM;
                else {
                    grp_t *g = &p->grp[cand[rbelow(r, nc)]];
                    op_t *o = new_op(p, phi, OK_CR, cr->rank, cr->thread);
                    o->cr = c;
                    o->comp = C_CONT;
                    o->grp = g->id;
                    g->ops[g->nops++] = o->id;
                    g->single = 0;
                    ph->outer = g->id;
                }
            }
            if (ph->fate == CF_ITEM)
                ph->start = rpct(r, 55) ? CS_EARLY : CS_LATE;
            else if (ph->fate == CF_FREE)
                ph->start = rpct(r, 50) ? CS_EARLY : CS_NONE;
            else
                ph->start = CS_EARLY;
        } else {
            ph->fate = rpct(r, 30) ? CF_ITEM : CF_NONE;
            ph->start = ph->fate == CF_ITEM ? CS_EARLY : CS_NONE;
        }
        ph->free_stage = rpct(r, 50) ? ST_PRODUCE : ST_COMPLETE;
        ph->keep = phi + 1 < p->nph && ph->fate != CF_FREE && rpct(r, 50);
        ph->cancel = !feat_off[F_CANCEL_CR] && rpct(r, 20);
    }
    for (int i = g0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        if (g->kind != C_CONT)
            continue;
        if (g->cr >= 0 && (g->flags & MPIX_CONT_FORGET) && p->cr[g->cr].ph[phi].fate == CF_FREE)
            g->cr = -1;         /* its handle would be gone by then */
        int c = gcr(g);
        if (c >= 0) {
            int fate = p->cr[c].ph[phi].fate;
            if (fate == CF_INNER)
                g->when = R_EARLY;      /* before the outer one (section 3) */
            else if (g->when == R_DONE && fate != CF_ITEM)
                g->when = R_LATE;
            if (g->when == R_DONE && p->cr[c].ph[phi].start == CS_LATE)
                g->after_start = rpct(r, 50);
        }
        if (g->cr >= 0 && (g->flags & MPIX_CONT_FORGET) && g->when == R_DONE)
            g->when = R_LATE;   /* keep the handle's lifetime simple */
    }
    /* bug 3's site: a notification request a continuation watches */
    for (int i = g0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        if (g->kind == C_CONT && g->nops == 1 && g->when == R_EARLY && !feat_off[F_DUP]) {
            op_t *o = &p->ops[g->ops[0]];
            if (o->kind == OK_NOTIFY && o->peer != MPI_PROC_NULL && o->cancel != 1 && rpct(r, 35))
                g->dup = 1;
        }
    }

    /* ---- expectations */
    for (int pass = 0; pass < 2; pass++)
    for (int i = g0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        if (g->kind != C_CONT)
            continue;
        g->fails = grp_fails(p, g);
        int c = gcr(g);
        /* an error with nowhere to go (no continuation request, or one freed
         * first) would reach MPI_COMM_WORLD's handler: let the callback see it */
        if (g->fails && (c < 0 || p->cr[c].ph[phi].fate == CF_FREE))
            g->flags |= MPIX_CONT_INVOKE_FAILED;
    }
    for (int i = g0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        if (g->kind == C_CONT) {
            g->fails = grp_fails(p, g);
            g->expect_calls = g->fails && !(g->flags & MPIX_CONT_INVOKE_FAILED) ? 0 : 1;
            g->expect_err = g->fails && (g->flags & MPIX_CONT_INVOKE_FAILED);
        } else {
            op_t *o = &p->ops[g->ops[0]];
            g->expect_calls = o->nfree ? 0 : o->acts ? o->acts : 1;
        }
    }
    for (int c = 0; c < p->ncr; c++)
        p->cr[c].ph[phi].err = cr_err(p, c, phi);

    /* ---- who completes each generalized request */
    for (int i = op0; i < p->nops; i++) {
        op_t *o = &p->ops[i];
        if (o->kind != OK_GREQ)
            continue;
        grp_t *h = o->grp >= 0 ? &p->grp[o->grp] : NULL;
        int T = p->T[o->rank];
        int w[NGC] = { 20, 20, 35, 15, 10 };
        int cand[MAXGRP], nc = 0;
        if (!h || h->when != R_DONE)
            for (int j = g0; j < p->ngrp; j++) {
                grp_t *g = &p->grp[j];
                if (g->kind == C_CONT && g->rank == o->rank && free_running(p, g) &&
                    g->when != R_DONE && g->expect_calls == 1 && !g->dup && !g->nocompleter &&
                    g->ncomp < MAXCOMP && (!h || !depends(p, g, h)))
                    cand[nc++] = j;
            }
        if (nc == 0)
            w[GC_CB] = 0;
        if (!h || h->when == R_DONE || h->ncomp > 0 || !free_running(p, h) ||
            (h->kind == C_CONT && gcr(h) >= 0))
            w[GC_LATE] = 0;
        o->completer = rpick(r, w, NGC);
        o->cthread = rbelow(r, T);
        int pollcr = h && h->kind == C_CONT && gcr(h) >= 0 && p->cr[gcr(h)].poll_only;
        if (pollcr && !feat_off[F_POLL_GREQ] && T > 1 && rpct(r, 85)) {
            /* bug 2's site: another thread completes it while this one
             * waits for the poll-only continuation request */
            o->completer = GC_S3;
            o->cthread = (o->thread + 1 + rbelow(r, T - 1)) % T;
        }
        if (pollcr && feat_off[F_POLL_GREQ] && o->completer == GC_S3 && o->cthread != o->thread)
            o->completer = GC_S2;
        if (o->completer == GC_S3)
            o->cdelay = rpct(r, 30) && !pollcr ? 0 : 100 + rbelow(r, 1900);
        if (o->completer == GC_CB) {
            grp_t *g = &p->grp[cand[rbelow(r, nc)]];
            g->comps[g->ncomp++] = o->id;
            o->cgrp = g->id;
        }
        if (o->completer == GC_LATE) {
            o->cthread = o->thread;
            h->nocompleter = 1;
        }
        if (o->completer == GC_PRE)
            o->cthread = o->thread;
        if (o->completer == GC_CB)
            o->cancel = 0;      /* a callback may complete it at any time */
        if (o->cancel && o->completer != GC_PRE)
            o->cancel_first = 1;
    }

    /* ---- what holds right after registration */
    for (int i = g0; i < p->ngrp; i++) {
        grp_t *g = &p->grp[i];
        if (g->kind == C_ONCOMP) {
            g->defer_zero = p->T[g->rank] == 1;
            continue;
        }
        int all = 1;
        for (int j = 0; j < g->nops; j++) {
            op_t *o = &p->ops[g->ops[j]];
            int trivial = o->kind == OK_NULL || o->kind == OK_INACT ||
                (o->kind == OK_NOTIFY && o->peer == MPI_PROC_NULL) ||
                (o->kind == OK_GREQ && o->completer == GC_PRE);
            if (!trivial)
                all = 0;
        }
        if (g->when == R_DONE)
            all = 1;
        int c = gcr(g), crok = 1;
        if (c >= 0) {
            const crph_t *ph = &p->cr[c].ph[phi];
            crok = !p->cr[c].poll_only && (ph->start == CS_EARLY ||
                                           (ph->start == CS_LATE && g->when == R_DONE &&
                                            g->after_start));
        }
        g->inline_exp = all && crok && !(g->flags & MPIX_CONT_DEFER_COMPLETE) &&
            g->expect_calls == 1;
        g->defer_zero = (g->flags & MPIX_CONT_DEFER_COMPLETE) && p->T[g->rank] == 1;
        g->spin = g->expect_calls > 0 && (c < 0 || p->cr[c].ph[phi].fate == CF_FREE);
    }
    for (int i = g0; i < p->ngrp; i++)
        if (p->grp[i].kind == C_ONCOMP)
            p->grp[i].spin = p->grp[i].expect_calls > 0;

    /* ---- completion calls */
    for (int rk = 0; rk < P; rk++)
        for (int t = 0; t < p->T[rk]; t++) {
            int el[MAXOPS + MAXCR], isop[MAXOPS + MAXCR], n = 0;
            for (int i = op0; i < p->nops; i++)
                if (p->ops[i].rank == rk && p->ops[i].thread == t && p->ops[i].comp == C_DIRECT) {
                    el[n] = i;
                    isop[n++] = 1;
                }
            for (int k = 0; k < p->ncrt[rk][t]; k++) {
                int c = p->crt[rk][t][k];
                if (p->cr[c].ph[phi].fate == CF_ITEM) {
                    el[n] = c;
                    isop[n++] = 0;
                }
            }
            int perm[MAXOPS + MAXCR];
            for (int i = 0; i < n; i++)
                perm[i] = i;
            shuffle(r, perm, n);
            for (int k = 0; k < n;) {
                int sz = 1 + rbelow(r, MAXI);
                if (k + sz > n)
                    sz = n - k;
                if (p->nitem >= MAXITEM)
                    abort();
                item_t *it = &p->item[p->nitem];
                memset(it, 0, sizeof *it);
                it->id = p->nitem++;
                it->phase = phi;
                it->rank = rk;
                it->thread = t;
                it->how = rbelow(r, NH);
                for (int j = 0; j < sz; j++) {
                    it->isop[it->n] = isop[perm[k + j]];
                    it->ref[it->n++] = el[perm[k + j]];
                    if (isop[perm[k + j]])
                        p->ops[el[perm[k + j]]].item = it->id;
                    else {
                        int c = el[perm[k + j]];
                        p->cr[c].ph[phi].item = it->id;
                        if (cross_greq(p, c, phi) && rpct(r, 85))
                            it->how = H_WAITALL;
                        if (p->cr[el[perm[k + j]]].poll_only && it->how == H_TESTALL &&
                            feat_off[F_POLL_TESTALL])
                            it->how = H_TESTANY;
                    }
                }
                k += sz;
            }
        }

    /* ---- steps, per rank and thread */
    for (int rk = 0; rk < P; rk++)
        for (int t = 0; t < p->T[rk]; t++) {
            int v[MAXSTEP], n;
            /* create */
            for (int k = 0; k < p->ncrt[rk][t]; k++) {
                int c = p->crt[rk][t][k];
                if (!p->cr[c].ph[phi].exists)
                    new_step(p, phi, rk, t, ST_CREATE, S_CR_CREATE, c);
                if (p->cr[c].ph[phi].start == CS_EARLY)
                    new_step(p, phi, rk, t, ST_CREATE, S_CR_START, c);
            }
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->rank == rk && o->thread == t && !issued_late(o->kind) && o->kind != OK_CR)
                    o->step = new_step(p, phi, rk, t, ST_CREATE, S_CREATE, i)->id;
            }
            /* setup */
            for (int k = 0; k < p->ncrt[rk][t]; k++) {
                int c = p->crt[rk][t][k];
                if (p->cr[c].ph[phi].cancel)
                    new_step(p, phi, rk, t, ST_SETUP, S_CANCEL_CR, c);
            }
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->rank != rk || o->thread != t)
                    continue;
                if (o->kind == OK_GREQ) {
                    int pre = o->completer == GC_PRE;
                    if (o->cancel && o->cancel_first)
                        new_step(p, phi, rk, t, ST_SETUP, S_CANCEL, i);
                    if (pre)
                        new_step(p, phi, rk, t, ST_SETUP, S_GCOMPLETE, i);
                    if (o->cancel && !o->cancel_first)
                        new_step(p, phi, rk, t, ST_SETUP, S_CANCEL, i);
                } else if (o->cancel == 1)
                    new_step(p, phi, rk, t, ST_SETUP, S_CANCEL, i);
                if (o->comp == C_FREE && o->free_stage == ST_SETUP)
                    new_step(p, phi, rk, t, ST_SETUP, S_FREE, i);
            }
            /* setup registrations: those of an inner continuation request
             * before its outer continuation (ascending request ids) */
            n = 0;
            for (int i = g0; i < p->ngrp; i++)
                if (p->grp[i].rank == rk && p->grp[i].thread == t && p->grp[i].when == R_EARLY)
                    v[n++] = i;
            shuffle(r, v, n);
            for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++) {
                    int ca = gcr(&p->grp[v[a]]), cb = gcr(&p->grp[v[b]]);
                    int ka = ca >= 0 && p->cr[ca].ph[phi].fate == CF_INNER ? ca : MAXCR;
                    int kb = cb >= 0 && p->cr[cb].ph[phi].fate == CF_INNER ? cb : MAXCR;
                    if (kb < ka) {
                        int tmp = v[a];
                        v[a] = v[b];
                        v[b] = tmp;
                    }
                }
            for (int a = 0; a < n; a++)
                reg_steps(p, &p->grp[v[a]], ST_SETUP);
            /* produce */
            n = 0;
            int frees[MAXOPS], nf = 0;
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->kind == OK_IRECV && !o->orphan && o->peer == rk && o->sthread == t &&
                    o->sendhow != SH_OP)
                    v[n++] = -(i + 1);  /* a send step for the receive i */
                if (o->rank != rk || o->thread != t)
                    continue;
                if (issued_late(o->kind))
                    v[n++] = i;
                if (o->comp == C_FREE && o->free_stage == ST_PRODUCE)
                    frees[nf++] = i;
            }
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->kind == OK_GREQ && o->rank == rk && o->completer == GC_S2 && o->cthread == t)
                    v[n++] = MAXOPS + i;        /* its MPI_Grequest_complete */
            }
            for (int i = acc0; i < p->nacc; i++) {
                acc_t *a = &p->acc[i];
                if (a->origin == rk && a->othread == t && a->op < 0)
                    v[n++] = 2 * MAXOPS + i;
            }
            shuffle(r, v, n);
            for (int k = 0; k < n; k++) {
                int e = v[k];
                if (e < 0) {
                    op_t *o = &p->ops[-e - 1];
                    new_step(p, phi, rk, t, ST_PRODUCE, o->sendhow == SH_SEND ? S_SEND :
                             S_ISEND_FREE, o->id);
                } else if (e < MAXOPS) {
                    p->ops[e].step = new_step(p, phi, rk, t, ST_PRODUCE, S_ISSUE, e)->id;
                    if (p->ops[e].kind != OK_ISEND)
                        p->acc[p->ops[e].acc].step = p->ops[e].step;
                    if (p->ops[e].comp == C_FREE && rpct(r, 50)) {
                        new_step(p, phi, rk, t, ST_PRODUCE, S_FREE, e);
                        for (int f = 0; f < nf; f++)
                            if (frees[f] == e)
                                frees[f] = frees[--nf];
                    }
                } else if (e < 2 * MAXOPS)
                    new_step(p, phi, rk, t, ST_PRODUCE, S_GCOMPLETE, e - MAXOPS);
                else
                    p->acc[e - 2 * MAXOPS].step =
                        new_step(p, phi, rk, t, ST_PRODUCE, S_ACCESS, e - 2 * MAXOPS)->id;
            }
            for (int f = 0; f < nf; f++)
                new_step(p, phi, rk, t, ST_PRODUCE, S_FREE, frees[f]);
            for (int i = g0; i < p->ngrp; i++)
                if (p->grp[i].rank == rk && p->grp[i].thread == t && p->grp[i].when == R_LATE)
                    reg_steps(p, &p->grp[i], ST_PRODUCE);
            for (int k = 0; k < p->ncrt[rk][t]; k++) {
                int c = p->crt[rk][t][k];
                if (p->cr[c].ph[phi].fate == CF_FREE && p->cr[c].ph[phi].free_stage == ST_PRODUCE)
                    new_step(p, phi, rk, t, ST_PRODUCE, S_CR_FREE, c);
            }
            /* complete: generalized requests first, then (shuffled) the
             * completion calls with what must precede them, registrations
             * once complete, frees of continuation requests; then the late
             * completions, the waits for callbacks, the frees */
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->kind == OK_GREQ && o->rank == rk && o->completer == GC_S3 && o->cthread == t) {
                    step_t *s = new_step(p, phi, rk, t, ST_COMPLETE, S_GCOMPLETE, i);
                    s->delay = o->cdelay;
                    /* bug 2's site: while the other thread waits for the poll-only
                     * continuation request */
                    int c = o->grp >= 0 && p->grp[o->grp].kind == C_CONT ? gcr(&p->grp[o->grp]) : -1;
                    if (c >= 0 && p->cr[c].poll_only && o->cthread != o->thread &&
                        p->cr[c].ph[phi].item >= 0)
                        s->after_item = p->cr[c].ph[phi].item;
                }
            }
            n = 0;
            for (int i = it0; i < p->nitem; i++)
                if (p->item[i].rank == rk && p->item[i].thread == t)
                    v[n++] = i;
            for (int i = g0; i < p->ngrp; i++)
                if (p->grp[i].rank == rk && p->grp[i].thread == t && p->grp[i].when == R_DONE &&
                    gcr(&p->grp[i]) < 0)
                    v[n++] = MAXITEM + i;
            for (int k = 0; k < p->ncrt[rk][t]; k++) {
                int c = p->crt[rk][t][k];
                if (p->cr[c].ph[phi].fate == CF_FREE && p->cr[c].ph[phi].free_stage == ST_COMPLETE)
                    v[n++] = MAXITEM + MAXGRP + c;
            }
            shuffle(r, v, n);
            for (int k = 0; k < n; k++) {
                int e = v[k];
                if (e < MAXITEM) {
                    item_t *it = &p->item[e];
                    for (int j = 0; j < it->n; j++) {
                        if (it->isop[j])
                            continue;
                        int c = it->ref[j];
                        for (int pass = 0; pass < 2; pass++) {
                            for (int i = g0; i < p->ngrp; i++) {
                                grp_t *g = &p->grp[i];
                                if (g->when == R_DONE && gcr(g) == c && g->after_start == pass)
                                    reg_steps(p, g, ST_COMPLETE);
                            }
                            if (pass == 0 && p->cr[c].ph[phi].start == CS_LATE)
                                new_step(p, phi, rk, t, ST_COMPLETE, S_CR_START, c);
                        }
                    }
                    it->step = new_step(p, phi, rk, t, ST_COMPLETE, S_ITEM, e)->id;
                } else if (e < MAXITEM + MAXGRP)
                    reg_steps(p, &p->grp[e - MAXITEM], ST_COMPLETE);
                else
                    new_step(p, phi, rk, t, ST_COMPLETE, S_CR_FREE, e - MAXITEM - MAXGRP);
            }
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->kind == OK_GREQ && o->rank == rk && o->thread == t && o->completer == GC_LATE)
                    new_step(p, phi, rk, t, ST_COMPLETE, S_GCOMPLETE, i);
            }
            new_step(p, phi, rk, t, ST_COMPLETE, S_CLEANUP, 0);
            for (int i = g0; i < p->ngrp; i++)
                if (p->grp[i].rank == rk && p->grp[i].thread == t && p->grp[i].spin)
                    new_step(p, phi, rk, t, ST_COMPLETE, S_SPIN, i);
            for (int i = op0; i < p->nops; i++) {
                op_t *o = &p->ops[i];
                if (o->rank == rk && o->thread == t && (o->kind == OK_NOTIFY || o->kind == OK_INACT)
                    && !o->nfree)
                    new_step(p, phi, rk, t, ST_COMPLETE, S_END_FREE_OP, i);
            }
            for (int k = 0; k < p->ncrt[rk][t]; k++) {
                int c = p->crt[rk][t][k];
                const crph_t *ph = &p->cr[c].ph[phi];
                if (ph->fate != CF_FREE && !ph->keep)
                    new_step(p, phi, rk, t, ST_COMPLETE, S_END_FREE_CR, c);
            }
        }
}

static void gen_program(prog_t * p, uint64_t seed, long index, int P, int max_units, int max_t)
{
    rng_t r = { hash4(seed, (uint64_t) index, (uint64_t) P, 0xC0F1) };
    op_t *ops = p->ops;
    acc_t *acc = p->acc;
    grp_t *grp = p->grp;
    item_t *item = p->item;
    step_t *step = p->step;
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->acc = acc;
    p->grp = grp;
    p->item = item;
    p->step = step;
    p->seed = seed;
    p->index = index;
    p->P = P;
    p->nph = 1 + rbelow(&r, MAXPH);
    for (int rk = 0; rk < P; rk++) {
        int t = 1 + rpick(&r, w_threads, 4);
        p->T[rk] = t > max_t ? max_t : t;
    }
    for (int rk = 0; rk < P; rk++)
        for (int t = 0; t < p->T[rk]; t++) {
            int n = rpick(&r, w_ncr, 4);
            for (int k = 0; k < n; k++) {
                cr_t *c = &p->cr[p->ncr];
                c->id = p->ncr++;
                c->rank = rk;
                c->thread = t;
                c->poll_only = rpct(&r, 35);
                c->max_poll = c->poll_only ? max_polls[rbelow(&r, 4)] : 0;
                if (c->poll_only && !feat_off[F_UNDEF_POLL] && rpct(&r, 25))
                    c->max_poll = -1;   /* MPI_UNDEFINED: no limit (bug 6's site) */
                p->crt[rk][t][p->ncrt[rk][t]++] = c->id;
            }
        }
    for (int phi = 0; phi < p->nph; phi++)
        gen_phase(p, &r, phi, max_units);
    for (int i = 0; i < p->nstep; i++)
        describe_step(p, &p->step[i]);
}

/* ================================================ 4. model and listing */
static const char *flagstr(int f, char *b, size_t n)
{
    static const char *nm[] = { "REQBUF_VOLATILE", "PERSISTENT", "POLL_ONLY", "DEFER_COMPLETE",
        "INVOKE_FAILED", "IMMEDIATE", "FORGET"
    };
    b[0] = 0;
    for (int i = 0; i < 7; i++)
        if (f & (1 << i))
            snprintf(b + strlen(b), n - strlen(b), "%s%s", b[0] ? "|" : "", nm[i]);
    if (!b[0])
        snprintf(b, n, "0");
    return b;
}

static const char *rankstr(int r, char *b, size_t n)
{
    if (r == MPI_ANY_SOURCE)
        snprintf(b, n, "ANY_SOURCE");
    else if (r == MPI_PROC_NULL)
        snprintf(b, n, "PROC_NULL");
    else
        snprintf(b, n, "r%d", r);
    return b;
}

static void op_str(const prog_t * p, const op_t * o, char *b, size_t n)
{
    char s[32];
    switch (o->kind) {
        case OK_IRECV:
            if (o->orphan)
                snprintf(b, n, "o%d MPI_Irecv(ANY_SOURCE, tag %d) that nothing matches, cancelled",
                         o->id, o->tag);
            else
                snprintf(b, n, "o%d MPI_Irecv(from r%d, tag %d, %d ints; sent by %s)", o->id,
                         o->peer, o->tag, o->nints, o->sendhow == SH_OP ? "MPI_Isend op" :
                         o->sendhow == SH_SEND ? "MPI_Send" : "MPI_Isend + MPI_Request_free");
            break;
        case OK_ISEND:
            snprintf(b, n, "o%d MPI_Isend(to r%d, tag %d, %d ints)", o->id, o->peer, o->tag,
                     o->nints);
            break;
        case OK_RPUT:
        case OK_RPUTN:
            {
                const acc_t *a = &p->acc[o->acc];
                int k = snprintf(b, n, "o%d %s(to r%d slot %d, %d ints", o->id,
                                 acname[a->kind], a->target, a->slot, a->nints);
                if (a->kind == AC_RPUTN)
                    k += snprintf(b + k, n - k, ", tag %d", a->tag);
                snprintf(b + k, n - k, ")");
            }
            break;
        case OK_NOTIFY:
            snprintf(b, n, "o%d MPI_Notify_init(src %s, tag %d, count %d) + MPI_Start%s%s", o->id,
                     rankstr(o->peer, s, sizeof s), o->tag, o->ncount,
                     o->orphan ? ", nothing matches it" : "",
                     o->acts > 1 ? (o->restart_fn ? ", restarted by its function" :
                                    ", restarted by its thread") : "");
            if (o->acts > 1)
                snprintf(b + strlen(b), n - strlen(b), ", %d activations", o->acts);
            break;
        case OK_CTR:
            snprintf(b, n, "o%d MPIX_Win_notify_request(counter %d, threshold %lld) -> value "
                     "%lld..%lld", o->id, o->idx, o->thr, o->lo, o->hi);
            break;
        case OK_GREQ:
            snprintf(b, n, "o%d MPI_Grequest_start%s%s%s, completed by %s", o->id,
                     o->qsleep ? " (query_fn sleeps)" : "", o->fail ? " (query_fn fails)" : "",
                     o->cancel ? (o->cancel_first ? " cancelled first" :
                                  " cancelled after completion") : "", gcname[o->completer]);
            if (o->completer == GC_CB)
                snprintf(b + strlen(b), n - strlen(b), " of g%d", o->cgrp);
            else if (o->completer == GC_S2 || o->completer == GC_S3)
                snprintf(b + strlen(b), n - strlen(b), " (t%d, delay %d us)", o->cthread,
                         o->cdelay);
            break;
        case OK_NULL:
            snprintf(b, n, "o%d MPI_REQUEST_NULL", o->id);
            break;
        case OK_INACT:
            snprintf(b, n, "o%d MPI_Notify_init never started (inactive)", o->id);
            break;
        case OK_CR:
            snprintf(b, n, "o%d continuation request c%d", o->id, o->cr);
            break;
    }
}

static void describe_step(const prog_t * p, step_t * s)
{
    char b[256], f[96];
    const op_t *o = &p->ops[s->a];
    const grp_t *g = &p->grp[s->a];
    const cr_t *c = &p->cr[s->a];
    switch (s->kind) {
        case S_CREATE:
        case S_ISSUE:
            op_str(p, o, b, sizeof b);
            break;
        case S_CR_CREATE:
            if (c->max_poll < 0)
                snprintf(b, sizeof b, "MPIX_Continue_init(POLL_ONLY, MPI_UNDEFINED) -> c%d",
                         c->id);
            else
                snprintf(b, sizeof b, "MPIX_Continue_init(%s, %d) -> c%d",
                         c->poll_only ? "POLL_ONLY" : "0", c->max_poll, c->id);
            break;
        case S_CR_START:
            snprintf(b, sizeof b, "MPI_Start(c%d)", c->id);
            break;
        case S_CANCEL:
            snprintf(b, sizeof b, "MPI_Cancel(o%d %s)", o->id, okname[o->kind]);
            break;
        case S_GCOMPLETE:
            snprintf(b, sizeof b, "MPI_Grequest_complete(o%d)%s", o->id, s->delay ?
                     " after a delay" : "");
            if (s->delay)
                snprintf(b + strlen(b), sizeof b - strlen(b), " of %d us", s->delay);
            if (s->after_item >= 0)
                snprintf(b + strlen(b), sizeof b - strlen(b), ", once #%d (t%d) has begun",
                         p->item[s->after_item].step, p->item[s->after_item].thread);
            break;
        case S_REGISTER:
            if (g->kind == C_ONCOMP)
                snprintf(b, sizeof b, "g%d MPIX_Request_on_complete(o%d %s)", g->id, g->ops[0],
                         okname[p->ops[g->ops[0]].kind]);
            else {
                int k = snprintf(b, sizeof b, "g%d %s(", g->id, g->single ? "MPIX_Continue" :
                                 "MPIX_Continueall");
                for (int i = 0; i < g->nops && k < (int) sizeof b; i++)
                    k += snprintf(b + k, sizeof b - k, "%so%d", i ? " " : "", g->ops[i]);
                if (k < (int) sizeof b && g->cr >= 0)
                    snprintf(b + k, sizeof b - k, ") flags %s, c%d",
                             flagstr(g->flags, f, sizeof f), g->cr);
                else if (k < (int) sizeof b)
                    snprintf(b + k, sizeof b - k, ") flags %s, MPI_REQUEST_NULL",
                             flagstr(g->flags, f, sizeof f));
            }
            break;
        case S_DUP:
            snprintf(b, sizeof b, "MPIX_Request_on_complete(o%d) watched by g%d: MPI_ERR_REQUEST",
                     g->ops[0], g->id);
            break;
        case S_FREE:
            snprintf(b, sizeof b, "MPI_Request_free(o%d %s)", o->id, okname[o->kind]);
            break;
        case S_NFREE:
            snprintf(b, sizeof b, "MPI_Request_free(o%d notify) while watched", o->id);
            break;
        case S_CANCEL_CR:
            snprintf(b, sizeof b, "MPI_Cancel(c%d): MPI_ERR_REQUEST", c->id);
            break;
        case S_SEND:
        case S_ISEND_FREE:
            snprintf(b, sizeof b, "%s(to r%d, tag %d, %d ints) for o%d", s->kind == S_SEND ?
                     "MPI_Send" : "MPI_Isend + MPI_Request_free", o->rank, o->tag, o->nints,
                     o->id);
            break;
        case S_ACCESS:
            {
                const acc_t *a = &p->acc[s->a];
                snprintf(b, sizeof b, "%s(to r%d slot %d, %d ints, %s %d) + MPI_Win_flush",
                         acname[a->kind], a->target, a->slot, a->nints,
                         a->kind == AC_CTRPUT ? "counter" : "tag",
                         a->kind == AC_CTRPUT ? a->idx : a->tag);
            }
            break;
        case S_CR_FREE:
            snprintf(b, sizeof b, "MPI_Request_free(c%d) with callbacks pending", c->id);
            break;
        case S_ITEM:
            {
                const item_t *it = &p->item[s->a];
                int k = snprintf(b, sizeof b, "%s(", hname[it->how]);
                for (int i = 0; i < it->n && k < (int) sizeof b; i++)
                    k += snprintf(b + k, sizeof b - k, "%s%c%d", i ? " " : "",
                                  it->isop[i] ? 'o' : 'c', it->ref[i]);
                if (k < (int) sizeof b)
                    snprintf(b + k, sizeof b - k, ")");
            }
            break;
        case S_SPIN:
            snprintf(b, sizeof b, "wait for g%d's %d call%s", g->id, g->expect_calls,
                     g->expect_calls == 1 ? "" : "s");
            break;
        case S_CLEANUP:
            snprintf(b, sizeof b, "MPI_Wait for requests a refused free left");
            break;
        case S_END_FREE_OP:
            snprintf(b, sizeof b, "MPI_Request_free(o%d)", o->id);
            break;
        case S_END_FREE_CR:
            snprintf(b, sizeof b, "MPI_Request_free(c%d)", c->id);
            break;
        default:
            snprintf(b, sizeof b, "?");
    }
    snprintf(s->desc, sizeof s->desc, "%s", b);
}

static void print_program(FILE * f, const prog_t * p)
{
    char b[320], fl[96];
    fprintf(f, "program: seed %llu index %ld, %d ranks, threads", (unsigned long long) p->seed,
            p->index, p->P);
    for (int r = 0; r < p->P; r++)
        fprintf(f, " r%d:%d", r, p->T[r]);
    fprintf(f, ", %d phase%s; window MPI_Win_allocate %d ints, %d counters\n", p->nph,
            p->nph == 1 ? "" : "s", NSLOTS, NCTR);
    for (int c = 0; c < p->ncr; c++) {
        const cr_t *cr = &p->cr[c];
        fprintf(f, "  c%d r%dt%d: %s", c, cr->rank, cr->thread, cr->poll_only ? "poll-only" :
                "progress-driven");
        if (cr->poll_only)
            fprintf(f, ", max_poll %s%d", cr->max_poll < 0 ? "MPI_UNDEFINED" : "",
                    cr->max_poll < 0 ? 0 : cr->max_poll);
        fprintf(f, "\n");
    }
    for (int phi = 0; phi < p->nph; phi++) {
        fprintf(f, " phase %d\n", phi);
        for (int i = 0; i < p->nops; i++) {
            const op_t *o = &p->ops[i];
            if (o->phase != phi)
                continue;
            op_str(p, o, b, sizeof b);
            fprintf(f, "   r%dt%d %s -> %s", o->rank, o->thread, b, compname[o->comp]);
            if (o->grp >= 0)
                fprintf(f, " g%d", o->grp);
            fprintf(f, "\n");
        }
        for (int i = 0; i < p->ngrp; i++) {
            const grp_t *g = &p->grp[i];
            if (g->phase != phi)
                continue;
            fprintf(f, "   g%d r%dt%d %s", g->id, g->rank, g->thread, g->kind == C_ONCOMP ?
                    "MPIX_Request_on_complete" : g->single ? "MPIX_Continue" : "MPIX_Continueall");
            if (g->kind == C_CONT) {
                fprintf(f, " flags %s, ", flagstr(g->flags, fl, sizeof fl));
                if (g->cr >= 0)
                    fprintf(f, "c%d", g->cr);
                else
                    fprintf(f, "no continuation request");
                fprintf(f, "%s", g->use_st ? "" : ", statuses ignored");
            }
            fprintf(f, "; registered %s; expects %d call%s%s%s%s", whenname[g->when],
                    g->expect_calls, g->expect_calls == 1 ? "" : "s",
                    g->expect_err ? " with MPI_ERR_OTHER" : "",
                    g->inline_exp ? ", inside the call" : "",
                    g->defer_zero ? ", not inside the call" : "");
            if (g->ncomp) {
                fprintf(f, "; completes");
                for (int k = 0; k < g->ncomp; k++)
                    fprintf(f, " o%d", g->comps[k]);
            }
            fprintf(f, "\n");
        }
        for (int c = 0; c < p->ncr; c++) {
            const crph_t *ph = &p->cr[c].ph[phi];
            static const char *st[] = { "not started", "started at creation", "started late" };
            static const char *fa[] = { "idle", "completed by a completion call",
                "freed with callbacks pending", "the operation of a continuation"
            };
            fprintf(f, "   c%d: %s, %s", c, st[ph->start], fa[ph->fate]);
            if (ph->fate == CF_INNER)
                fprintf(f, " (g%d)", ph->outer);
            fprintf(f, "; %d continuation%s; completion returns %s%s%s\n", ph->ngroups,
                    ph->ngroups == 1 ? "" : "s", ph->err ? "MPI_ERR_OTHER" : "MPI_SUCCESS",
                    ph->cancel ? "; MPI_Cancel refused" : "", ph->keep ? "; kept" : "");
        }
        for (int r = 0; r < p->P; r++)
            for (int t = 0; t < p->T[r]; t++)
                for (int st = 0; st < NST; st++) {
                    int any = 0;
                    for (int i = 0; i < p->nstep; i++) {
                        const step_t *s = &p->step[i];
                        if (s->phase != phi || s->rank != r || s->thread != t || s->stage != st)
                            continue;
                        if (!any)
                            fprintf(f, "   r%d t%d %s:\n", r, t, stname[st]);
                        any = 1;
                        fprintf(f, "      #%d %s\n", s->id, s->desc);
                    }
                }
    }
    fflush(f);
}

/* =========================================================== 5. executor */
static prog_t *G;               /* the program being run */
static int ME, NP;
static MPI_Comm COMM;
static MPI_Win WIN;
static int *WBASE;
static int cur_phase;
static _Thread_local int my_t;
static pthread_barrier_t tbar;
static atomic_int n_errs;
static int shown;
static pthread_mutex_t rep_mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int cur_step[MAXT];
static int wd_seconds = 20;
static int quiet;

/* Stock MPICH 4.0.2 (src/mpi/errhan/errutil.c): an error made from a failing
 * query_fn's code ("**user") marks its slot of the 128-entry error ring as
 * carrying a user code, and nothing clears the mark when the slot is reused;
 * so, once the ring wraps, every error that lands on that slot and reaches an
 * error handler (MPIR_Err_return_comm) comes back as the stale user code.
 * Ours is MPI_ERR_OTHER, bare (no ring index): an expected error that comes
 * back as exactly that, after a query_fn failed, is counted, not compared
 * (test/fuzz/README, "Stock MPICH"). */
static atomic_int query_failed, ring_stale;

static int stale_user_code(int rc)
{
    if (rc == MPI_ERR_OTHER && atomic_load(&query_failed)) {
        atomic_fetch_add(&ring_stale, 1);
        return 1;
    }
    return 0;
}

/* requests whose MPI_Request_free was refused, per thread: waited for later */
static MPI_Request cleanup[MAXT][64];
static int ncleanup[MAXT];

static void report(int step, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    atomic_fetch_add(&n_errs, 1);
    pthread_mutex_lock(&rep_mu);
    if (!quiet && shown < 16) {
        shown++;
        if (step >= 0)
            fprintf(stderr, "[rank %d] seed %llu program %ld phase %d step #%d (r%d t%d %s: %s): "
                    "%s\n", ME, (unsigned long long) G->seed, G->index, G->step[step].phase, step,
                    G->step[step].rank, G->step[step].thread, stname[G->step[step].stage],
                    G->step[step].desc, buf);
        else
            fprintf(stderr, "[rank %d] seed %llu program %ld phase %d: %s\n", ME,
                    (unsigned long long) G->seed, G->index, cur_phase, buf);
        fflush(stderr);
    }
    pthread_mutex_unlock(&rep_mu);
}

static const char *errstr(int rc)
{
    static _Thread_local char s[MPI_MAX_ERROR_STRING];
    int l;
    if (MPI_Error_string(rc, s, &l) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    return s;
}

static int errclass(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

/* an MPI call that must succeed */
#define CALL(step_, call_) do {                                                 \
        int rc_ = (call_);                                                      \
        if (rc_ != MPI_SUCCESS)                                                 \
            report((step_), "%s failed: %s", #call_, errstr(rc_));              \
    } while (0)

/* make progress */
static void poke(void)
{
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, SPIN_TAG, COMM, &flag, MPI_STATUS_IGNORE);
    /* more threads than cores: let the one with work run */
    sched_yield();
}

/* until *v >= want; after a mismatch (the program is wrong already, and the
 * wait may be its consequence) for at most 2 s, so that the program is still
 * listed */
static void spin_until(atomic_int * v, int want, int step, const char *what)
{
    double t0 = -1;
    while (atomic_load(v) < want) {
        poke();
        if (atomic_load(&n_errs) > 0) {
            if (t0 < 0)
                t0 = MPI_Wtime();
            else if (MPI_Wtime() - t0 > 2) {
                report(step, "gave up waiting for %s (after an earlier mismatch)", what);
                return;
            }
        }
    }
}

/* ---- watchdog and crash handler: write(2) only */
static char sig_ctx[256];

static void sig_handler(int sig)
{
    sig_write(sig_ctx);
    sig_write(" phase ");
    sig_int(cur_phase);
    if (sig == SIGALRM) {
        sig_write(": no progress for ");
        sig_int(wd_seconds);
        sig_write(" s (hang?)");
        if (atomic_load(&n_errs)) {
            sig_write(", after ");
            sig_int(atomic_load(&n_errs));
            sig_write(" mismatches (above)");
        }
    } else {
        sig_write(": crashed with signal ");
        sig_int(sig);
    }
    sig_write("\n");
    if (G)
        for (int t = 0; t < G->T[ME]; t++) {
            int s = cur_step[t];
            sig_write("    thread ");
            sig_int(t);
            if (s >= 0 && s < G->nstep) {
                sig_write(" in step #");
                sig_int(s);
                sig_write(" (");
                sig_write(stname[G->step[s].stage]);
                sig_write(": ");
                sig_write(G->step[s].desc);
                sig_write(")\n");
            } else
                sig_write(" between steps\n");
        }
    if (sig == SIGALRM)
        _exit(3);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- what a completed operation must show */
static int data_ok(const op_t * o, char *msg, size_t n)
{
    const prog_t *p = G;
    if (o->kind == OK_IRECV && !o->orphan) {
        for (int i = 0; i < o->nints; i++)
            if (o->buf[i] != (int) (o->val + i)) {
                snprintf(msg, n, "receive buffer element %d: %d, expected %d", i, o->buf[i],
                         (int) (o->val + i));
                return 0;
            }
    }
    if (o->kind == OK_NOTIFY && !o->orphan && o->acts == 1 && o->peer != MPI_PROC_NULL) {
        /* every notified put it matched has its data in the window */
        for (int a = 0; a < p->nacc; a++) {
            const acc_t *x = &p->acc[a];
            if (x->nop != o->id || (x->kind != AC_PUTN && x->kind != AC_RPUTN))
                continue;
            for (int i = 0; i < x->nints; i++)
                if (WBASE[x->slot + i] != (int) (x->val + i)) {
                    snprintf(msg, n, "window slot %d (by %s from r%d, step #%d): %d, expected %d",
                             x->slot + i, acname[x->kind], x->origin, x->step, WBASE[x->slot + i],
                             (int) (x->val + i));
                    return 0;
                }
        }
    }
    if (o->kind == OK_CTR && o->thrmode == 0) {
        for (int a = 0; a < p->nacc; a++) {
            const acc_t *x = &p->acc[a];
            if (x->phase != o->phase || x->kind != AC_CTRPUT || x->target != o->rank ||
                x->idx != o->idx)
                continue;
            for (int i = 0; i < x->nints; i++)
                if (WBASE[x->slot + i] != (int) (x->val + i)) {
                    snprintf(msg, n, "window slot %d (counted put from r%d, step #%d): %d, "
                             "expected %d", x->slot + i, x->origin, x->step, WBASE[x->slot + i],
                             (int) (x->val + i));
                    return 0;
                }
        }
    }
    return 1;
}

/* the status of a completed operation; also its MPI_ERROR if witherr */
static int status_ok(const op_t * o, const MPI_Status * st, int witherr, char *msg, size_t n)
{
    int cancelled = 0, cnt = -1;
    MPI_Test_cancelled(st, &cancelled);
    switch (o->kind) {
        case OK_IRECV:
            if (o->orphan) {
                if (!cancelled) {
                    snprintf(msg, n, "cancelled receive: status not cancelled");
                    return 0;
                }
                return 1;
            }
            MPI_Get_count(st, MPI_INT, &cnt);
            if (cancelled || st->MPI_SOURCE != o->peer || st->MPI_TAG != o->tag || cnt != o->nints) {
                snprintf(msg, n, "status source %d tag %d count %d cancelled %d, expected %d %d %d 0",
                         st->MPI_SOURCE, st->MPI_TAG, cnt, cancelled, o->peer, o->tag, o->nints);
                return 0;
            }
            break;
        case OK_NOTIFY:
            if (o->orphan) {
                if (!cancelled) {
                    snprintf(msg, n, "%s notification request: status not cancelled",
                             o->nfree ? "freed" : "cancelled");
                    return 0;
                }
                return 1;
            }
            MPI_Get_count(st, MPI_BYTE, &cnt);
            if (o->peer == MPI_PROC_NULL) {
                if (st->MPI_SOURCE != MPI_PROC_NULL || st->MPI_TAG != MPI_ANY_TAG || cnt != 0 ||
                    cancelled) {
                    snprintf(msg, n, "MPI_PROC_NULL notification request: status source %d tag %d "
                             "count %d cancelled %d", st->MPI_SOURCE, st->MPI_TAG, cnt, cancelled);
                    return 0;
                }
                break;
            }
            if (cancelled || st->MPI_TAG != o->tag || cnt != 4 * o->nints ||
                st->MPI_SOURCE < 0 || st->MPI_SOURCE >= NP ||
                !(o->srcmask & (1u << st->MPI_SOURCE))) {
                snprintf(msg, n, "status source %d tag %d bytes %d cancelled %d, expected source "
                         "in mask 0x%x, tag %d, bytes %d", st->MPI_SOURCE, st->MPI_TAG, cnt,
                         cancelled, o->srcmask, o->tag, 4 * o->nints);
                return 0;
            }
            break;
        case OK_CTR:
            MPI_Get_count(st, MPI_BYTE, &cnt);
            if (cancelled || st->MPI_TAG != o->idx || cnt < o->lo || cnt > o->hi) {
                snprintf(msg, n, "counter threshold status tag %d value %d cancelled %d, expected "
                         "tag %d, value %lld..%lld", st->MPI_TAG, cnt, cancelled, o->idx, o->lo,
                         o->hi);
                return 0;
            }
            break;
        case OK_GREQ:
            {
                MPI_Get_count(st, MPI_BYTE, &cnt);
                int wantc = o->cancel && o->cancel_first;
                if (st->MPI_SOURCE != 1000 + o->id || st->MPI_TAG != 2000 + o->id ||
                    cnt != o->id % 61 || cancelled != wantc) {
                    snprintf(msg, n, "generalized request status source %d tag %d count %d "
                             "cancelled %d, expected %d %d %d %d (query_fn's)", st->MPI_SOURCE,
                             st->MPI_TAG, cnt, cancelled, 1000 + o->id, 2000 + o->id, o->id % 61,
                             wantc);
                    return 0;
                }
            }
            break;
        case OK_NULL:
        case OK_INACT:
            if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG) {
                snprintf(msg, n, "%s: status not empty (source %d tag %d)", okname[o->kind],
                         st->MPI_SOURCE, st->MPI_TAG);
                return 0;
            }
            return 1;
        default:
            break;
    }
    if (witherr) {
        int want = (o->kind == OK_GREQ && o->fail) ||
            (o->kind == OK_CR && G->cr[o->cr].ph[o->phase].err) ? MPI_ERR_OTHER : MPI_SUCCESS;
        if (errclass(st->MPI_ERROR) != want) {
            snprintf(msg, n, "status MPI_ERROR class %d, expected %d", errclass(st->MPI_ERROR),
                     want);
            return 0;
        }
    }
    return 1;
}

/* the callbacks of continuation request c in phase phi have all run as
 * expected (when it completes) */
static void check_cr_groups(int step, int c, int phi, const char *when)
{
    for (int i = 0; i < G->ngrp; i++) {
        grp_t *g = &G->grp[i];
        if (g->phase != phi || g->kind != C_CONT || gcr(g) != c)
            continue;
        int calls = atomic_load(&g->calls);
        if (calls != g->expect_calls)
            report(step, "%s c%d completed: g%d's callback ran %d times, expected %d", when, c,
                   g->id, calls, g->expect_calls);
    }
}

static void pre_poll(int c)
{
    cr_t *cr = &G->cr[c];
    atomic_store(&cr->polled, 0);
    cr->polling = 1;
}

/* ---- callbacks */
static int cont_cb(int err, void *data)
{
    grp_t *g = data;
    char msg[512];
    int n = atomic_fetch_add(&g->calls, 1) + 1;
    if (n > 1) {
        report(g->step, "callback of g%d ran %d times", g->id, n);
        return MPI_SUCCESS;
    }
    if (g->expect_calls == 0)
        report(g->step, "callback of g%d ran although an operation failed and "
               "MPIX_CONT_INVOKE_FAILED is not set", g->id);
    int c = gcr(g);
    if (c >= 0) {
        cr_t *cr = &G->cr[c];
        if (!cr->active)
            report(g->step, "callback of g%d ran while its continuation request c%d was "
                   "inactive (not yet started)", g->id, c);
        if (cr->poll_only && !cr->freed) {
            if (!cr->polling || !pthread_equal(cr->owner, pthread_self()))
                report(g->step, "callback of g%d (poll-only c%d) ran outside a test or wait on "
                       "c%d", g->id, c, c);
            else
                atomic_fetch_add(&cr->polled, 1);
        }
    }
    int want = g->expect_err ? MPI_ERR_OTHER : MPI_SUCCESS;
    if (errclass(err) != want)
        report(g->step, "callback of g%d: error_code class %d (%s), expected %d", g->id,
               errclass(err), err ? errstr(err) : "MPI_SUCCESS", want);
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &G->ops[g->ops[i]];
        if (g->use_st && !status_ok(o, &g->st[i], 1, msg, sizeof msg))
            report(g->step, "callback of g%d, o%d %s: %s", g->id, o->id, okname[o->kind], msg);
        if (!data_ok(o, msg, sizeof msg))
            report(g->step, "callback of g%d, o%d %s: %s", g->id, o->id, okname[o->kind], msg);
        if (o->kind == OK_CR) {
            check_cr_groups(g->step, o->cr, g->phase, "callback on");
            G->cr[o->cr].active = 0;
        }
    }
    for (int k = 0; k < g->ncomp; k++) {
        op_t *o = &G->ops[g->comps[k]];
        CALL(g->step, MPI_Grequest_complete(o->keep));
        atomic_store(&o->gdone, 1);
    }
    return MPI_SUCCESS;
}

static void oncomp_fn(MPI_Status * st, void *arg)
{
    grp_t *g = arg;
    op_t *o = &G->ops[g->ops[0]];
    char msg[512];
    int n = atomic_fetch_add(&g->calls, 1) + 1;
    if (n > g->expect_calls) {
        report(g->step, "completion function of g%d ran %d times, expected %d", g->id, n,
               g->expect_calls);
        return;
    }
    if (!status_ok(o, st, 0, msg, sizeof msg))
        report(g->step, "completion function of g%d (call %d), o%d %s: %s", g->id, n, o->id,
               okname[o->kind], msg);
    if (!data_ok(o, msg, sizeof msg))
        report(g->step, "completion function of g%d, o%d %s: %s", g->id, o->id, okname[o->kind],
               msg);
    if (o->kind == OK_NOTIFY && o->restart_fn && n < o->acts)
        CALL(g->step, MPI_Start(&o->keep));
    atomic_fetch_add(&g->rets, 1);
}

static void dup_fn(MPI_Status * st, void *arg)
{
    op_t *o = arg;
    (void) st;
    atomic_fetch_add(&o->dupcalls, 1);
    report(G->grp[o->grp].step, "the function of the refused MPIX_Request_on_complete on o%d ran "
           "(it took the request over from g%d's continuation)", o->id, o->grp);
}

static int gq_query(void *extra, MPI_Status * st)
{
    op_t *o = extra;
    atomic_fetch_add(&o->queries, 1);
    if (o->qsleep)
        usleep(o->qsleep);      /* outside MPICH's lock: other threads progress */
    MPI_Status_set_elements(st, MPI_BYTE, o->id % 61);
    MPI_Status_set_cancelled(st, o->gcancelled);
    st->MPI_SOURCE = 1000 + o->id;
    st->MPI_TAG = 2000 + o->id;
    if (o->fail)
        atomic_store(&query_failed, 1);
    return o->fail ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int gq_free(void *extra)
{
    op_t *o = extra;
    atomic_fetch_add(&o->frees, 1);
    return MPI_SUCCESS;
}

static int gq_cancel(void *extra, int complete)
{
    op_t *o = extra;
    atomic_fetch_add(&o->cancels, 1);
    if (!complete)
        o->gcancelled = 1;
    return MPI_SUCCESS;
}

/* ---- steps */
static MPI_Request op_handle(op_t * o)
{
    switch (o->kind) {
        case OK_NULL:
            return MPI_REQUEST_NULL;
        case OK_CR:
            return G->cr[o->cr].h;
        default:
            return o->h;
    }
}

/* until every operation of g is complete (known from MPI, or from the
 * generalized request's completer) */
static void wait_known_complete(int step, grp_t * g)
{
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &G->ops[g->ops[i]];
        if (o->kind == OK_NULL || o->kind == OK_INACT || o->kind == OK_CR)
            continue;
        if (o->kind == OK_GREQ) {
            spin_until(&o->gdone, 1, step, "MPI_Grequest_complete");
            continue;
        }
        int flag = 0;
        while (!flag) {
            int rc = MPI_Request_get_status(o->h, &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                report(step, "MPI_Request_get_status(o%d) failed: %s", o->id, errstr(rc));
                break;
            }
        }
    }
}

static void do_register(int sid, grp_t * g)
{
    if (g->when == R_DONE)
        wait_known_complete(sid, g);
    if (g->kind == C_ONCOMP) {
        op_t *o = &G->ops[g->ops[0]];
        int persistent = o->kind == OK_NOTIFY;
        CALL(sid, MPIX_Request_on_complete(persistent ? o->keep : o->h, oncomp_fn, g));
        if (!persistent)
            o->h = MPI_REQUEST_NULL;    /* handed over */
        if (g->defer_zero && atomic_load(&g->calls) != 0)
            report(sid, "completion function ran inside MPIX_Request_on_complete");
        return;
    }
    MPI_Request crh = g->cr >= 0 ? G->cr[g->cr].h : MPI_REQUEST_NULL;
    for (int i = 0; i < g->nops; i++) {
        g->arr[i] = op_handle(&G->ops[g->ops[i]]);
        g->copy[i] = g->arr[i];
        /* filled by MPI before the callback; garbage shows */
        memset(&g->st[i], 0x5a, sizeof g->st[i]);
    }
    int rc;
    if (g->single) {
        rc = MPIX_Continue(&g->arr[0], cont_cb, g, g->flags, g->use_st ? &g->st[0] :
                           MPI_STATUS_IGNORE, crh);
        if (rc == MPI_SUCCESS && g->arr[0] != MPI_REQUEST_NULL)
            report(sid, "MPIX_Continue left *op_request not MPI_REQUEST_NULL");
    } else {
        rc = MPIX_Continueall(g->nops, g->arr, cont_cb, g, g->flags, g->use_st ? g->st :
                              MPI_STATUSES_IGNORE, crh);
        if (rc == MPI_SUCCESS)
            for (int i = 0; i < g->nops; i++) {
                if ((g->flags & MPIX_CONT_REQBUF_VOLATILE) && g->arr[i] != g->copy[i])
                    report(sid, "MPIX_Continueall with MPIX_CONT_REQBUF_VOLATILE changed entry %d",
                           i);
                if (!(g->flags & MPIX_CONT_REQBUF_VOLATILE) && g->arr[i] != MPI_REQUEST_NULL)
                    report(sid, "MPIX_Continueall left entry %d not MPI_REQUEST_NULL", i);
            }
    }
    if (rc != MPI_SUCCESS) {
        report(sid, "%s failed: %s", g->single ? "MPIX_Continue" : "MPIX_Continueall",
               errstr(rc));
        return;
    }
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &G->ops[g->ops[i]];
        if (o->kind != OK_CR)
            o->h = MPI_REQUEST_NULL;    /* MPI's now (persistent: keep) */
    }
    int calls = atomic_load(&g->calls);
    if (g->inline_exp && calls != 1)
        report(sid, "operations complete, continuation request %s: the callback should have "
               "run inside the call (ran %d times)", g->cr >= 0 ? "active" : "none", calls);
    if (g->defer_zero && calls != 0)
        report(sid, "MPIX_CONT_DEFER_COMPLETE: the callback ran inside the call");
}

/* one completed entry of a completion call */
static void item_done(int sid, item_t * it, int e, int err, MPI_Status * st, int *done,
                      MPI_Request * hs)
{
    char msg[512];
    if (done[e]++) {
        report(sid, "entry %d completed twice", e);
        return;
    }
    if (it->isop[e]) {
        op_t *o = &G->ops[it->ref[e]];
        o->h = hs[e];
        if (err != MPI_SUCCESS)
            report(sid, "o%d %s completed with error %s", o->id, okname[o->kind], errstr(err));
        if (st && !status_ok(o, st, 0, msg, sizeof msg))
            report(sid, "o%d %s: %s", o->id, okname[o->kind], msg);
        if (!data_ok(o, msg, sizeof msg))
            report(sid, "o%d %s: %s", o->id, okname[o->kind], msg);
    } else {
        int c = it->ref[e];
        cr_t *cr = &G->cr[c];
        int want = cr->ph[it->phase].err ? MPI_ERR_OTHER : MPI_SUCCESS;
        if (errclass(err) != want)
            report(sid, "continuation request c%d completed with %s, expected class %d", c,
                   err ? errstr(err) : "MPI_SUCCESS", want);
        check_cr_groups(sid, c, it->phase, "completion call:");
        cr->active = 0;
    }
}

static void do_item(int sid, item_t * it)
{
    MPI_Request hs[MAXI];
    MPI_Status sts[MAXI];
    int done[MAXI] = { 0 }, n = it->n, ndone = 0, flag, idx, rc, outc, idxs[MAXI];
    int poll[MAXI] = { 0 }, testcall = it->how == H_TEST || it->how == H_TESTALL ||
        it->how == H_TESTANY || it->how == H_TESTSOME;
    it->entered = 1;
    for (int e = 0; e < n; e++) {
        if (it->isop[e])
            hs[e] = G->ops[it->ref[e]].h;
        else {
            hs[e] = G->cr[it->ref[e]].h;
            poll[e] = G->cr[it->ref[e]].poll_only;
        }
    }
    /* poll-only requests of this call: their callbacks may run now */
#define POLL_BEGIN(k) do { for (int k_ = 0; k_ < n; k_++)                          \
            if (poll[k_] && ((k) < 0 || (k) == k_)) pre_poll(it->ref[k_]); } while (0)
#define POLL_END(k) do { for (int k_ = 0; k_ < n; k_++)                        \
            if (poll[k_] && ((k) < 0 || (k) == k_)) {                           \
                cr_t *c_ = &G->cr[it->ref[k_]];                                 \
                c_->polling = 0;                                                \
                int m_ = c_->max_poll, r_ = atomic_load(&c_->polled);            \
                if (testcall && m_ > 0 && r_ > m_)                               \
                    report(sid, "one call ran %d callbacks of c%d (max_poll %d)", r_, \
                           it->ref[k_], m_);                                    \
            } } while (0)
    switch (it->how) {
        case H_WAIT:
            for (int e = 0; e < n; e++) {
                POLL_BEGIN(e);
                rc = MPI_Wait(&hs[e], &sts[e]);
                POLL_END(e);
                item_done(sid, it, e, rc, &sts[e], done, hs);
            }
            break;
        case H_TEST:
            for (int e = 0; e < n; e++) {
                do {
                    POLL_BEGIN(e);
                    rc = MPI_Test(&hs[e], &flag, &sts[e]);
                    POLL_END(e);
                } while (rc == MPI_SUCCESS && !flag);
                item_done(sid, it, e, rc, &sts[e], done, hs);
            }
            break;
        case H_WAITALL:
        case H_TESTALL:
            /* with MPI_ERR_IN_STATUS the entries not complete say MPI_ERR_PENDING:
             * call again for those (the others MPI_REQUEST_NULL) */
            while (ndone < n) {
                flag = 1;
                POLL_BEGIN(-1);
                if (it->how == H_WAITALL)
                    rc = MPI_Waitall(n, hs, sts);
                else
                    rc = MPI_Testall(n, hs, &flag, sts);
                POLL_END(-1);
                if (rc == MPI_SUCCESS && !flag)
                    continue;
                if (rc != MPI_SUCCESS && errclass(rc) != MPI_ERR_IN_STATUS) {
                    report(sid, "%s failed: %s", hname[it->how], errstr(rc));
                    break;
                }
                int progress = 0;
                for (int e = 0; e < n; e++) {
                    if (done[e])
                        continue;
                    int err = rc == MPI_SUCCESS ? MPI_SUCCESS : sts[e].MPI_ERROR;
                    if (err == MPI_ERR_PENDING)
                        continue;
                    item_done(sid, it, e, err, &sts[e], done, hs);
                    hs[e] = MPI_REQUEST_NULL;
                    ndone++;
                    progress = 1;
                }
                if (!progress) {
                    report(sid, "%s returned %s and completed nothing", hname[it->how],
                           errstr(rc));
                    break;
                }
            }
            break;
        case H_WAITANY:
        case H_TESTANY:
            while (ndone < n) {
                MPI_Status st;
                flag = 1;
                POLL_BEGIN(-1);
                if (it->how == H_WAITANY)
                    rc = MPI_Waitany(n, hs, &idx, &st);
                else
                    rc = MPI_Testany(n, hs, &idx, &flag, &st);
                POLL_END(-1);
                if (!flag)
                    continue;
                if (idx == MPI_UNDEFINED) {
                    report(sid, "%s returned MPI_UNDEFINED with %d entries not completed (%s)",
                           hname[it->how], n - ndone, rc ? errstr(rc) : "MPI_SUCCESS");
                    break;
                }
                if (idx < 0 || idx >= n) {
                    report(sid, "%s returned index %d", hname[it->how], idx);
                    break;
                }
                item_done(sid, it, idx, rc, &st, done, hs);
                ndone++;
            }
            break;
        case H_WAITSOME:
        case H_TESTSOME:
            while (ndone < n) {
                POLL_BEGIN(-1);
                if (it->how == H_WAITSOME)
                    rc = MPI_Waitsome(n, hs, &outc, idxs, sts);
                else
                    rc = MPI_Testsome(n, hs, &outc, idxs, sts);
                POLL_END(-1);
                if (outc == MPI_UNDEFINED) {
                    report(sid, "%s returned MPI_UNDEFINED with %d entries not completed (%s)",
                           hname[it->how], n - ndone, rc ? errstr(rc) : "MPI_SUCCESS");
                    break;
                }
                if (rc != MPI_SUCCESS && errclass(rc) != MPI_ERR_IN_STATUS) {
                    report(sid, "%s failed: %s", hname[it->how], errstr(rc));
                    break;
                }
                for (int k = 0; k < outc; k++) {
                    if (idxs[k] < 0 || idxs[k] >= n) {
                        report(sid, "%s returned index %d", hname[it->how], idxs[k]);
                        continue;
                    }
                    item_done(sid, it, idxs[k], rc == MPI_SUCCESS ? MPI_SUCCESS :
                              sts[k].MPI_ERROR, &sts[k], done, hs);
                    ndone++;
                }
            }
            break;
    }
#undef POLL_BEGIN
#undef POLL_END
}

static void do_spin(int sid, grp_t * g)
{
    op_t *o = &G->ops[g->ops[0]];
    if (g->kind == C_ONCOMP && o->kind == OK_NOTIFY && !o->restart_fn)
        for (int i = 1; i < o->acts; i++) {
            /* once the function of activation i has returned */
            spin_until(&g->rets, i, sid, "the completion function");
            CALL(sid, MPI_Start(&o->keep));
        }
    spin_until(&g->calls, g->expect_calls, sid, "the callback");
}

static void exec_step(step_t * s)
{
    int sid = s->id, rc;
    op_t *o = &G->ops[s->a];
    cr_t *cr = &G->cr[s->a];
    cur_step[my_t] = sid;
    switch (s->kind) {
        case S_CREATE:
            switch (o->kind) {
                case OK_IRECV:
                    for (int i = 0; i < MAXN; i++)
                        o->buf[i] = -1;
                    CALL(sid, MPI_Irecv(o->buf, o->nints, MPI_INT, o->orphan ? MPI_ANY_SOURCE :
                                        o->peer, o->tag, COMM, &o->h));
                    break;
                case OK_NOTIFY:
                    CALL(sid, MPI_Notify_init(WIN, o->peer, o->tag,
                                              o->ncount, &o->h));
                    o->keep = o->h;
                    CALL(sid, MPI_Start(&o->h));
                    break;
                case OK_INACT:
                    CALL(sid, MPI_Notify_init(WIN, 0, o->tag, 1, &o->h));
                    o->keep = o->h;
                    break;
                case OK_CTR:
                    CALL(sid, MPIX_Win_notify_request(WIN, o->idx, o->thr, &o->h));
                    break;
                case OK_GREQ:
                    CALL(sid, MPI_Grequest_start(gq_query, gq_free, gq_cancel, o, &o->h));
                    o->keep = o->h;
                    break;
                case OK_NULL:
                    o->h = MPI_REQUEST_NULL;
                    break;
            }
            break;
        case S_CR_CREATE:
            {
                int fl = cr->poll_only ? MPIX_CONT_POLL_ONLY : 0;
                rc = MPIX_Continue_init(fl, cr->max_poll < 0 ? MPI_UNDEFINED : cr->max_poll,
                                        MPI_INFO_NULL, &cr->h);
                if (rc != MPI_SUCCESS) {
                    report(sid, "MPIX_Continue_init failed: %s", errstr(rc));
                    CALL(sid, MPIX_Continue_init(fl, 0, MPI_INFO_NULL, &cr->h));
                }
                cr->active = 0;
                cr->freed = 0;
                cr->owner = pthread_self();
            }
            break;
        case S_CR_START:
            for (int i = 0; i < G->ngrp; i++) {
                grp_t *g = &G->grp[i];
                if (g->phase == s->phase && g->kind == C_CONT && gcr(g) == cr->id &&
                    atomic_load(&g->calls) != 0)
                    report(sid, "callback of g%d ran before MPI_Start of its continuation "
                           "request c%d", g->id, cr->id);
            }
            cr->owner = pthread_self();
            cr->active = 1;
            CALL(sid, MPI_Start(&cr->h));
            break;
        case S_CANCEL:
            CALL(sid, MPI_Cancel(o->kind == OK_NOTIFY ? &o->keep : &o->h));
            break;
        case S_GCOMPLETE:
            if (s->after_item >= 0) {
                /* outside MPI, bounded: a wait here could only ever delay */
                for (int i = 0; i < 1000 && !G->item[s->after_item].entered; i++)
                    usleep(50);
            }
            if (s->delay)
                usleep(s->delay);
            CALL(sid, MPI_Grequest_complete(o->keep));
            atomic_store(&o->gdone, 1);
            break;
        case S_REGISTER:
            do_register(sid, &G->grp[s->a]);
            break;
        case S_DUP:
            {
                grp_t *g = &G->grp[s->a];
                op_t *n = &G->ops[g->ops[0]];
                rc = MPIX_Request_on_complete(n->keep, dup_fn, n);
                if (errclass(rc) != MPI_ERR_REQUEST && !stale_user_code(rc))
                    report(sid, "MPIX_Request_on_complete on a notification request that a "
                           "continuation watches returned %s (code %#x), expected "
                           "MPI_ERR_REQUEST", rc ? errstr(rc) : "MPI_SUCCESS", rc);
            }
            break;
        case S_FREE:
            rc = MPI_Request_free(&o->h);
            if (rc != MPI_SUCCESS) {
                report(sid, "MPI_Request_free(%s) failed: %s", okname[o->kind], errstr(rc));
                if (o->h != MPI_REQUEST_NULL && ncleanup[my_t] < 64)
                    cleanup[my_t][ncleanup[my_t]++] = o->h;
                o->h = MPI_REQUEST_NULL;
            } else if (o->h != MPI_REQUEST_NULL)
                report(sid, "MPI_Request_free left the handle set");
            break;
        case S_NFREE:
            CALL(sid, MPI_Request_free(&o->keep));
            break;
        case S_CANCEL_CR:
            rc = MPI_Cancel(&cr->h);
            if (errclass(rc) != MPI_ERR_REQUEST && !stale_user_code(rc))
                report(sid, "MPI_Cancel on continuation request c%d returned %s (code %#x), "
                       "expected MPI_ERR_REQUEST", cr->id, rc ? errstr(rc) : "MPI_SUCCESS", rc);
            break;
        case S_ISSUE:
            if (o->kind == OK_ISEND) {
                for (int i = 0; i < o->nints; i++)
                    o->buf[i] = (int) (o->val + i);
                CALL(sid, MPI_Isend(o->buf, o->nints, MPI_INT, o->peer, o->tag, COMM, &o->h));
            } else {
                acc_t *a = &G->acc[o->acc];
                for (int i = 0; i < a->nints; i++)
                    a->obuf[i] = (int) (a->val + i);
                if (o->kind == OK_RPUT)
                    CALL(sid, MPI_Rput(a->obuf, a->nints, MPI_INT, a->target, a->slot, a->nints,
                                       MPI_INT, WIN, &o->h));
                else
                    CALL(sid, MPI_Rput_notify(a->obuf, a->nints, MPI_INT, a->target, a->slot,
                                              a->nints, MPI_INT, WIN, a->tag, &o->h));
            }
            break;
        case S_SEND:
        case S_ISEND_FREE:
            for (int i = 0; i < o->nints; i++)
                o->buf[i] = (int) (o->val + i);
            if (s->kind == S_SEND)
                CALL(sid, MPI_Send(o->buf, o->nints, MPI_INT, o->rank, o->tag, COMM));
            else {
                MPI_Request q;
                CALL(sid, MPI_Isend(o->buf, o->nints, MPI_INT, o->rank, o->tag, COMM, &q));
                CALL(sid, MPI_Request_free(&q));
            }
            break;
        case S_ACCESS:
            {
                acc_t *a = &G->acc[s->a];
                for (int i = 0; i < a->nints; i++)
                    a->obuf[i] = (int) (a->val + i);
                if (a->kind == AC_PUTN)
                    CALL(sid, MPI_Put_notify(a->obuf, a->nints, MPI_INT, a->target, a->slot,
                                             a->nints, MPI_INT, WIN, a->tag));
                else if (a->kind == AC_GETN)
                    CALL(sid, MPI_Get_notify(a->obuf, a->nints, MPI_INT, a->target, a->slot,
                                             a->nints, MPI_INT, WIN, a->tag));
                else
                    CALL(sid, MPIX_Put_notify(a->obuf, a->nints, MPI_INT, a->target, a->slot,
                                              a->nints, MPI_INT, a->idx, WIN));
                CALL(sid, MPI_Win_flush(a->target, WIN));
            }
            break;
        case S_CR_FREE:
            cr->freed = 1;
            cr->active = 1;     /* its held callbacks run as if started */
            CALL(sid, MPI_Request_free(&cr->h));
            break;
        case S_ITEM:
            do_item(sid, &G->item[s->a]);
            break;
        case S_SPIN:
            do_spin(sid, &G->grp[s->a]);
            break;
        case S_CLEANUP:
            for (int i = 0; i < ncleanup[my_t]; i++)
                CALL(sid, MPI_Wait(&cleanup[my_t][i], MPI_STATUS_IGNORE));
            ncleanup[my_t] = 0;
            break;
        case S_END_FREE_OP:
            CALL(sid, MPI_Request_free(&o->keep));
            break;
        case S_END_FREE_CR:
            CALL(sid, MPI_Request_free(&cr->h));
            break;
    }
    cur_step[my_t] = -1;
}

static double slow_step_t;
static char slow_step[256];

static void run_stage(int phi, int t, int stage)
{
    for (int i = 0; i < G->nstep; i++) {
        step_t *s = &G->step[i];
        if (s->phase == phi && s->rank == ME && s->thread == t && s->stage == stage) {
            double t0 = MPI_Wtime();
            exec_step(s);
            t0 = MPI_Wtime() - t0;
            if (t0 > slow_step_t) {
                pthread_mutex_lock(&rep_mu);
                slow_step_t = t0;
                snprintf(slow_step, sizeof slow_step, "program %ld step #%d (%s), %.3f s",
                         G->index, s->id, s->desc, t0);
                pthread_mutex_unlock(&rep_mu);
            }
        }
    }
}

/* every callback ran as often as expected; the generalized requests'
 * functions once each; the window and the counters hold what the phase
 * wrote (after a flush and a barrier) */
static void final_checks(int phi, const char *when)
{
    for (int i = 0; i < G->ngrp; i++) {
        grp_t *g = &G->grp[i];
        if (g->phase != phi || g->rank != ME)
            continue;
        int calls = atomic_load(&g->calls);
        if (calls != g->expect_calls)
            report(g->step, "%s: %s of g%d ran %d times, expected %d", when,
                   g->kind == C_CONT ? "callback" : "completion function", g->id, calls,
                   g->expect_calls);
    }
    for (int i = 0; i < G->nops; i++) {
        op_t *o = &G->ops[i];
        if (o->phase != phi || o->rank != ME)
            continue;
        if (o->kind == OK_GREQ) {
            int q = atomic_load(&o->queries), f = atomic_load(&o->frees);
            int c = atomic_load(&o->cancels);
            /* MPICH 4.0.2's MPI_Testall asks query_fn for the error of every complete
             * generalized request on each call (MPIR_Request_get_error), then
             * again to complete it: stock behaviour, not checked */
            int testall = o->comp == C_DIRECT && G->item[o->item].how == H_TESTALL;
            if ((testall ? q < 1 : q != 1) || f != 1 || c != o->cancel)
                report(o->step, "%s: o%d's query_fn ran %d times, free_fn %d, cancel_fn %d; "
                       "expected %s1, 1, %d", when, o->id, q, f, c, testall ? ">= " : "",
                       o->cancel);
        }
        if (atomic_load(&o->dupcalls))
            report(o->step, "%s: the refused completion function of o%d ran %d times", when,
                   o->id, atomic_load(&o->dupcalls));
    }
}

static void phase_end(int phi)
{
    CALL(-1, MPI_Win_flush_all(WIN));
    CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
    final_checks(phi, "end of phase");
    for (int a = 0; a < G->nacc; a++) {
        acc_t *x = &G->acc[a];
        if (x->phase != phi || x->target != ME || x->kind == AC_GETN)
            continue;
        for (int i = 0; i < x->nints; i++)
            if (WBASE[x->slot + i] != (int) (x->val + i)) {
                report(x->step, "end of phase: window slot %d: %d, expected %d (%s from r%d)",
                       x->slot + i, WBASE[x->slot + i], (int) (x->val + i), acname[x->kind],
                       x->origin);
                break;
            }
    }
    for (int i = 0; i < NCTR; i++) {
        MPI_Count v = -1;
        CALL(-1, MPIX_Win_get_notify(WIN, i, &v));
        if (v != G->ctot[phi + 1][ME][i])
            report(-1, "end of phase: counter %d is %lld, expected %lld", i, (long long) v,
                   G->ctot[phi + 1][ME][i]);
    }
    CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
}

static void *thread_main(void *arg)
{
    int t = (int) (intptr_t) arg;
    my_t = t;
    for (int phi = 0; phi < G->nph; phi++) {
        if (t == 0) {
            cur_phase = phi;
            CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
        }
        pthread_barrier_wait(&tbar);
        run_stage(phi, t, ST_CREATE);
        pthread_barrier_wait(&tbar);
        run_stage(phi, t, ST_SETUP);
        pthread_barrier_wait(&tbar);
        if (t == 0)
            CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
        pthread_barrier_wait(&tbar);
        run_stage(phi, t, ST_PRODUCE);
        pthread_barrier_wait(&tbar);
        run_stage(phi, t, ST_COMPLETE);
        pthread_barrier_wait(&tbar);
        if (t == 0)
            phase_end(phi);
        pthread_barrier_wait(&tbar);
    }
    return NULL;
}

static int run_program(prog_t * p)
{
    G = p;
    atomic_store(&n_errs, 0);
    shown = 0;
    for (int t = 0; t < MAXT; t++) {
        cur_step[t] = -1;
        ncleanup[t] = 0;
    }
    snprintf(sig_ctx, sizeof sig_ctx, "[rank %d] seed %llu program %ld (rerun: completion_fuzz "
             "-seed %llu -start %ld -n 1 -v)", ME, (unsigned long long) p->seed, p->index,
             (unsigned long long) p->seed, p->index);
    cur_phase = -1;
    alarm(wd_seconds);
    /* one window for the whole run (creating one costs more than most
     * programs): every notification of the last program was matched, its
     * accesses flushed; slots and counters start at 0 */
    memset(WBASE, 0, NSLOTS * sizeof(int));
    for (int i = 0; i < NCTR; i++)
        CALL(-1, MPIX_Win_set_notify(WIN, i, 0));
    CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
    CALL(-1, MPI_Win_lock_all(MPI_MODE_NOCHECK, WIN));
    int T = p->T[ME];
    pthread_t th[MAXT];
    pthread_barrier_init(&tbar, NULL, T);
    for (int t = 1; t < T; t++)
        pthread_create(&th[t], NULL, thread_main, (void *) (intptr_t) t);
    thread_main((void *) 0);
    for (int t = 1; t < T; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&tbar);
    /* a callback that runs twice may do so late: let progress find it */
    for (int i = 0; i < 200; i++)
        poke();
    CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 200; i++)
        poke();
    for (int phi = 0; phi < p->nph; phi++)
        final_checks(phi, "end of program");
    CALL(-1, MPI_Win_unlock_all(WIN));
    CALL(-1, MPI_Barrier(MPI_COMM_WORLD));
    alarm(0);
    int mine = atomic_load(&n_errs), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* ================================================================ 6. main */
typedef struct {
    long ops[NOK], comp[NCOMP], gc[NGC], hows[NH], flags[7];
    long groups, singles, crs, poll_only, undef_poll, inner, crfree, late_start, dups, cancel_cr,
        cancels, frees_rma, sleepy, failing, cross_poll, threads[MAXT + 1], inline_exp, r_done,
        acts, site1, site2, testall_poll;
} stats_t;

static void add_stats(stats_t * s, const prog_t * p)
{
    for (int r = 0; r < p->P; r++)
        s->threads[p->T[r]]++;
    for (int i = 0; i < p->nops; i++) {
        const op_t *o = &p->ops[i];
        s->ops[o->kind]++;
        s->comp[o->comp]++;
        if (o->comp == C_FREE && o->kind != OK_ISEND)
            s->frees_rma++;
        if (o->cancel)
            s->cancels++;
        if (o->kind == OK_GREQ) {
            s->gc[o->completer]++;
            s->sleepy += o->qsleep > 0;
            s->failing += o->fail;
            if (o->grp >= 0 && p->grp[o->grp].kind == C_CONT && gcr(&p->grp[o->grp]) >= 0 &&
                p->cr[gcr(&p->grp[o->grp])].poll_only && o->completer == GC_S3 &&
                o->cthread != o->thread)
                s->cross_poll++;
        }
        s->acts += o->acts > 1;
        /* bug 1's site: a sleeping query_fn of a watched generalized request,
         * more than one thread on the rank */
        if (o->kind == OK_GREQ && o->qsleep && o->comp == C_CONT && p->T[o->rank] > 1)
            s->site1++;
    }
    for (int i = 0; i < p->ngrp; i++) {
        const grp_t *g = &p->grp[i];
        if (g->kind != C_CONT)
            continue;
        s->groups++;
        s->singles += g->single;
        s->dups += g->dup;
        s->inline_exp += g->inline_exp;
        s->r_done += g->when == R_DONE;
        for (int f = 0; f < 7; f++)
            s->flags[f] += (g->flags >> f) & 1;
    }
    for (int i = 0; i < p->nitem; i++) {
        const item_t *it = &p->item[i];
        s->hows[it->how]++;
        for (int e = 0; e < it->n; e++)
            if (!it->isop[e] && p->cr[it->ref[e]].poll_only) {
                s->site2 += it->how == H_WAITALL && cross_greq(p, it->ref[e], it->phase);
                s->testall_poll += it->how == H_TESTALL;
            }
    }
    for (int c = 0; c < p->ncr; c++) {
        s->crs++;
        s->poll_only += p->cr[c].poll_only;
        s->undef_poll += p->cr[c].max_poll < 0;
        for (int phi = 0; phi < p->nph; phi++) {
            s->inner += p->cr[c].ph[phi].fate == CF_INNER;
            s->crfree += p->cr[c].ph[phi].fate == CF_FREE;
            s->late_start += p->cr[c].ph[phi].start == CS_LATE;
            s->cancel_cr += p->cr[c].ph[phi].cancel;
        }
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: completion_fuzz [-seed S] [-n N] [-start I] [-v] [-max-ops K]\n"
            "                       [-max-threads T] [-watchdog SEC] [-no FEATURE,...] [-dry]\n"
            "  features: mt-greq, dup, cancel-cr, free-rma, undef-poll, poll-greq, poll-testall\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    long n = 200, start = 0;
    int max_ops = 10, max_t = MAXT, verbose = 0, bad = 0, provided, dry = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &ME);
    MPI_Comm_size(MPI_COMM_WORLD, &NP);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-v")) {
            verbose = 1;
            continue;
        }
        if (!strcmp(a, "-dry")) {
            dry = 1;
            continue;
        }
        if (!v) {
            bad = 1;
            break;
        }
        if (fuzz_value_opt(a, v, &seed, &n, &start, &max_ops, &wd_seconds)) {
            /* -seed, -n, -start, -max-ops, -watchdog */
        } else if (!strcmp(a, "-max-threads"))
            max_t = atoi(v);
        else if (!strcmp(a, "-no")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int k;
                for (k = 0; k < NFEAT && strcmp(tok, featname[k]); k++);
                if (k == NFEAT)
                    bad = 1;
                else
                    feat_off[k] = 1;
            }
        } else
            bad = 1;
        i++;
    }
    if (bad || n < 0 || max_ops < 1 || max_ops > 16 || max_t < 1 || max_t > MAXT ||
        wd_seconds < 1 || NP > MAXP) {
        if (ME == 0) {
            usage();
            if (NP > MAXP)
                fprintf(stderr, "completion_fuzz: at most %d ranks\n", MAXP);
        }
        MPI_Finalize();
        return 2;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (ME == 0)
            fprintf(stderr, "completion_fuzz: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &COMM);
    /* every error comes back to the checker, which compares it with the model */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(COMM, MPI_ERRORS_RETURN);
    MPI_Win_allocate(NSLOTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &WBASE,
                     &WIN);
    MPI_Win_set_errhandler(WIN, MPI_ERRORS_RETURN);
    MPIX_Win_create_notify(WIN, NCTR);
    fuzz_catch_signals(sig_handler);

    prog_t *p = calloc(1, sizeof *p);
    p->ops = calloc(MAXOPS, sizeof(op_t));
    p->acc = calloc(MAXACC, sizeof(acc_t));
    p->grp = calloc(MAXGRP, sizeof(grp_t));
    p->item = calloc(MAXITEM, sizeof(item_t));
    p->step = calloc(MAXSTEP, sizeof(step_t));
    stats_t stats;
    memset(&stats, 0, sizeof stats);
    int nfail = 0;
    long failed[8];
    double t0 = MPI_Wtime(), slowest = 0;
    long slowest_idx = -1;
    for (long idx = start; idx < start + n; idx++) {
        gen_program(p, seed, idx, NP, max_ops, max_t);
        if (verbose && ME == 0)
            print_program(stdout, p);
        if (ME == 0)
            add_stats(&stats, p);
        if (dry)
            continue;
        MPI_Barrier(MPI_COMM_WORLD);
        double tp = MPI_Wtime();
        int errs = run_program(p);
        tp = MPI_Wtime() - tp;
        if (tp > slowest) {
            slowest = tp;
            slowest_idx = idx;
        }
        if (errs) {
            if (nfail < 8)
                failed[nfail] = idx;
            nfail++;
            MPI_Barrier(MPI_COMM_WORLD);
            if (ME == 0) {
                fuzz_print_mismatch("completion_fuzz", seed, idx, errs);
                if (nfail <= 2 && !verbose)
                    print_program(stdout, p);
                fflush(stdout);
            }
        }
    }
    double el = MPI_Wtime() - t0;
    int stale = atomic_load(&ring_stale), stale_all = 0;
    MPI_Reduce(&stale, &stale_all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ME == 0) {
        stats_t *s = &stats;
        printf("completion_fuzz: seed %llu, programs %ld..%ld on %d ranks, %.1f s; threads per "
               "rank 1/2/3/4: %ld/%ld/%ld/%ld; operations: %ld irecv, %ld isend, %ld rput, %ld "
               "rput_notify, %ld notify (%ld with several activations), %ld counter, %ld "
               "grequest (%ld sleeping, %ld failing), %ld null, %ld inactive, %ld contreq; "
               "completed by: %ld completion calls, %ld continuations, %ld on_complete, %ld "
               "MPI_Request_free (%ld of RMA requests); %ld cancelled; grequests completed "
               "before registration %ld, in produce %ld, first in complete %ld, by a callback "
               "%ld, after the completion calls %ld (%ld from another thread for a poll-only "
               "request); continuations: %ld (%ld MPIX_Continue, %ld expected inside the call, "
               "%ld registered once complete), flags VOLATILE %ld PERSISTENT %ld DEFER %ld "
               "INVOKE_FAILED %ld IMMEDIATE %ld FORGET %ld; continuation requests: %ld (%ld "
               "poll-only, %ld with max_poll MPI_UNDEFINED), %ld started late, %ld freed with "
               "callbacks pending, %ld as operations, %ld MPI_Cancel refused; %ld "
               "MPIX_Request_on_complete refused; completion calls: Wait %ld Test %ld Waitall "
               "%ld Testall %ld Waitany %ld Testany %ld Waitsome %ld Testsome %ld\n",
               (unsigned long long) seed, start, start + n - 1, NP, el, s->threads[1],
               s->threads[2], s->threads[3], s->threads[4], s->ops[OK_IRECV], s->ops[OK_ISEND],
               s->ops[OK_RPUT], s->ops[OK_RPUTN], s->ops[OK_NOTIFY], s->acts, s->ops[OK_CTR],
               s->ops[OK_GREQ], s->sleepy, s->failing, s->ops[OK_NULL], s->ops[OK_INACT],
               s->ops[OK_CR], s->comp[C_DIRECT], s->comp[C_CONT], s->comp[C_ONCOMP],
               s->comp[C_FREE], s->frees_rma, s->cancels, s->gc[GC_PRE], s->gc[GC_S2],
               s->gc[GC_S3], s->gc[GC_CB], s->gc[GC_LATE], s->cross_poll, s->groups, s->singles,
               s->inline_exp, s->r_done, s->flags[0], s->flags[1], s->flags[3], s->flags[4],
               s->flags[5], s->flags[6], s->crs, s->poll_only, s->undef_poll, s->late_start,
               s->crfree, s->inner, s->cancel_cr, s->dups, s->hows[H_WAIT], s->hows[H_TEST],
               s->hows[H_WAITALL], s->hows[H_TESTALL], s->hows[H_WAITANY], s->hows[H_TESTANY],
               s->hows[H_WAITSOME], s->hows[H_TESTSOME]);
        printf("completion_fuzz: situations: %ld sleeping query_fn of a watched generalized "
               "request with threads, %ld MPI_Waitall on a poll-only continuation request "
               "whose generalized request another thread completes, %ld MPI_Testall on a "
               "poll-only one, %ld refused MPIX_Request_on_complete, %ld refused MPI_Cancel of "
               "a continuation request, %ld MPI_Request_free of RMA requests, %ld max_poll "
               "MPI_UNDEFINED\n", s->site1, s->site2, s->testall_poll, s->dups, s->cancel_cr,
               s->frees_rma, s->undef_poll);
        printf("completion_fuzz: slowest program %ld, %.2f s\n", slowest_idx, slowest);
        if (stale_all)
            printf("completion_fuzz: %d refused call%s returned MPI_ERR_OTHER, the code of an "
                   "earlier failing query_fn (stock MPICH 4.0.2's error ring: test/fuzz/README); "
                   "not counted as mismatches\n", stale_all, stale_all == 1 ? "" : "s");
        fuzz_print_result("completion_fuzz", nfail, n, failed);
    }
    if (getenv("CF_SLOW"))
        fprintf(stderr, "[rank %d] slowest step: %s\n", ME, slow_step);
    int rc = MPI_Win_free(&WIN);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] MPI_Win_free failed (a request of the window left?): %s\n",
                ME, errstr(rc));
        nfail++;
    }
    MPI_Comm_free(&COMM);
    MPI_Finalize();
    return nfail != 0;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

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
 * 6 main, in these files of test/fuzz/completion_fuzz/ (one program: its .c
 * files together):
 *   completion_fuzz.h  this: the program (2), what crosses files
 *   gen.c              the generator (3)
 *   model.c            the model: what each callback and request must do,
 *                      and the listing (4)
 *   run.c              the runner: executor (5): its state, reports,
 *                      watchdog, callbacks, steps
 *   check.c            the runner's checks of completed operations, and the
 *                      completion calls (5)
 *   main.c             the driver: what the runs covered, options (6)
 * and ../fuzz_common.h (1, and what completion_fuzz shares with rma_fuzz).
 */
#ifndef COMPLETION_FUZZ_H
#define COMPLETION_FUZZ_H

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

/* GCC >= 11 takes MPI_STATUSES_IGNORE for a zero-size array (as in test/completion/continue.c) */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

/* ================================================================ 1. PRNG */
#include "../fuzz_common.h"

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
static const char *const okname[NOK] = { "irecv", "isend", "rput", "rput_notify", "notify", "counter",
    "grequest", "null", "inactive", "contreq"
};

/* how an operation is completed */
enum { C_DIRECT, C_CONT, C_ONCOMP, C_FREE, NCOMP };
static const char *const compname[NCOMP] = { "completion call", "continuation", "on_complete",
    "MPI_Request_free"
};

/* who completes a generalized request */
enum { GC_PRE, GC_S2, GC_S3, GC_CB, GC_LATE, NGC };
static const char *const gcname[NGC] = { "its thread before registration",
    "a thread in the produce stage", "a thread first in the completion stage", "a callback",
    "its thread after the completion calls"
};

/* when a continuation is registered: setup stage, end of the produce stage,
 * completion stage once its operations are known complete */
enum { R_EARLY, R_LATE, R_DONE };
static const char *const whenname[] = { "setup", "after produce", "once complete" };

/* continuation requests: start and fate in a phase */
enum { CS_NONE, CS_EARLY, CS_LATE };
enum { CF_NONE, CF_ITEM, CF_FREE, CF_INNER };

/* completion calls */
enum { H_WAIT, H_TEST, H_WAITALL, H_TESTALL, H_WAITANY, H_TESTANY, H_WAITSOME, H_TESTSOME, NH };
static const char *const hname[NH] = { "MPI_Wait each", "MPI_Test loop each", "MPI_Waitall",
    "MPI_Testall loop", "MPI_Waitany loop", "MPI_Testany loop", "MPI_Waitsome loop",
    "MPI_Testsome loop"
};

/* stages of a phase */
enum { ST_CREATE, ST_SETUP, ST_PRODUCE, ST_COMPLETE, NST };
static const char *const stname[NST] = { "create", "setup", "produce", "complete" };

/* accesses to the window */
enum { AC_PUTN, AC_GETN, AC_CTRPUT, AC_RPUT, AC_RPUTN };
static const char *const acname[] = { "MPI_Put_notify", "MPI_Get_notify", "MPIX_Put_notify", "MPI_Rput",
    "MPI_Rput_notify"
};

/* senders of a message */
enum { SH_NONE, SH_OP, SH_SEND, SH_ISEND_FREE };

/* situations that -no can leave out */
enum { F_MT_GREQ, F_DUP, F_CANCEL_CR, F_FREE_RMA, F_UNDEF_POLL, F_POLL_GREQ, F_POLL_TESTALL, NFEAT };
static const char *const featname[NFEAT] = { "mt-greq", "dup", "cancel-cr", "free-rma", "undef-poll",
    "poll-greq", "poll-testall"
};
extern int feat_off[NFEAT];   /* (gen.c) */

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

/* the continuation request a group counts toward (FORGET: none) */
static inline int gcr(const grp_t * g)
{
    return (g->flags & MPIX_CONT_FORGET) ? -1 : g->cr;
}

/* ============================================ what crosses files */
/* gen.c */
void cf_gen_program(prog_t * p, uint64_t seed, long index, int P, int max_units, int max_t);

/* model.c */
int cf_free_running(const prog_t * p, const grp_t * g);
int cf_cross_greq(const prog_t * p, int c, int phi);
int cf_depends(const prog_t * p, const grp_t * g, const grp_t * h);
void cf_model_expect(prog_t * p, int phi, int g0);
void cf_model_registered(prog_t * p, int phi, int g0);
void cf_describe_step(const prog_t * p, step_t * s);
void cf_print_program(FILE * f, const prog_t * p);

/* run.c: the executor's state */
extern prog_t *G;               /* the program being run */
extern int ME, NP;
extern MPI_Comm COMM;
extern MPI_Win WIN;
extern int *WBASE;
extern int wd_seconds;          /* -watchdog */
extern atomic_int ring_stale;   /* stale user codes of MPICH's error ring (run.c) */
extern char slow_step[256];     /* CF_SLOW=1 */
void cf_report(int step, const char *fmt, ...);
const char *cf_errstr(int rc);
int cf_errclass(int rc);
void cf_sig_handler(int sig);
int cf_run_program(prog_t * p);

/* an MPI call that must succeed */
#define CALL(step_, call_) do {                                                 \
        int rc_ = (call_);                                                      \
        if (rc_ != MPI_SUCCESS)                                                 \
            cf_report((step_), "%s failed: %s", #call_, cf_errstr(rc_));        \
    } while (0)

/* check.c */
int cf_data_ok(const op_t * o, char *msg, size_t n);
int cf_status_ok(const op_t * o, const MPI_Status * st, int witherr, char *msg, size_t n);
void cf_check_cr_groups(int step, int c, int phi, const char *when);
void cf_do_item(int sid, item_t * it);

#endif /* COMPLETION_FUZZ_H */

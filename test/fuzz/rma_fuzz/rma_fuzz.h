/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * rma_fuzz: a seeded, randomized differential checker for MPI RMA and
 * Notified Access.
 *
 *   rma_fuzz [-seed S] [-n N] [-max-ops K] [-start I] [-v] [-ops ID,...]
 *            [-shrink-time SEC] [-max-shrink F] [-shrink-tries R] [-watchdog SEC]
 *            [-stock-rput-bug]
 *
 *   -seed S, -n N     programs S:0 .. S:N-1 (default seed 1, N 200);
 *                     -start I begins at program I instead of 0
 *   -max-ops K        at most K accesses per program (default 24)
 *   -v                list every program before running it
 *   -ops ID,...       keep only these accesses of each program (by hand, as
 *                     the shrinker does; for a crash, which cannot be shrunk)
 *   -shrink-time SEC  bound of one shrink (default 30 s); -max-shrink F:
 *                     shrink the first F failing programs (default 1)
 *   -shrink-tries R   runs per shrink candidate (default 2P+1, see jitter)
 *   -watchdog SEC     a program that takes longer is reported as a hang
 *   -stock-rput-bug   also generate MPI_Rput / MPI_Rget with a sparse origin and a
 *                     dense target datatype, which crash MPICH 4.0.2 on libfabric
 *                     (test/fuzz/README, failure 4; left out by default)
 *   -contig-plain-r   MPI_Rput / MPI_Rget only with contiguous datatypes: MPICH
 *                     4.0.2's ch4:ucx completes their request at once for other
 *                     ones (test/fuzz/README, failure 6; the suite sets it there)
 *
 * Every rank derives the same random program from (seed, program index):
 * a few phases of MPI_Put / MPI_Get / MPI_Accumulate / MPI_Get_accumulate /
 * MPI_Fetch_and_op / MPI_Compare_and_swap, each also notified: tagged
 * (MPI_Put_notify, MPI_Get_notify, MPI_Accumulate_notify,
 * MPI_Get_accumulate_notify, MPI_Fetch_and_op_notify,
 * MPI_Compare_and_swap_notify) or counted (MPIX_Put_notify, MPIX_Get_notify,
 * MPIX_Accumulate_notify, MPIX_Get_accumulate_notify: the window gets
 * counters with MPIX_Win_create_notify), on one window, each phase
 * synchronised by fences, per-target lock/unlock, lock_all/unlock_all with
 * flushes, or post/start/complete/wait.  In the passive-target phases the
 * puts, gets and (get-)accumulates are also request-based, in every dialect:
 * MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate, MPI_Rput_notify,
 * ..., MPIX_Rput_notify, ...; their requests are completed (MPI_Wait, MPI_Test,
 * MPI_Waitall, MPI_Testall, MPI_Waitany, MPI_Waitsome; at once or a few
 * accesses later, or after the epoch), and as each completes, what it
 * fetched is checked and its origin buffer reused, before any flush.
 * Programs are correct MPI by construction (section 3), so their outcome is
 * determined: a sequential model (section 5), computed identically on every
 * rank, gives the window contents after every synchronisation point, every
 * get/fetch result (checked where a flush or its request completes it), what
 * every notification request must match and every counter's value (also
 * after MPIX_Win_set_notify and re-attaching).  The executor (section 6)
 * runs the program on the real library and compares.  A failing program is
 * listed, then shrunk by removing operations while it still fails (section
 * 8), and the smallest failing program is listed.
 *
 * Sections: 1 PRNG, 2 program representation, 3 conflict rules, 4 generator,
 * 5 model and plan, 6 executor and checker, 7 listing, 8 shrinker, 9 main,
 * in these files of test/fuzz/rma_fuzz/ (one program: its .c files together):
 *   rma_fuzz.h  this: the program representation (2), the model's plan,
 *               what crosses files
 *   gen.c       the generator: conflict rules (3), generator (4)
 *   model.c     the model: model and plan (5), listing (7)
 *   run.c       the runner: executor and checker (6)
 *   main.c      the driver: what the runs covered, shrinker (8), main (9)
 * and ../fuzz_common.h (1, and what rma_fuzz shares with completion_fuzz).
 */
#ifndef RMA_FUZZ_H
#define RMA_FUZZ_H

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MPI_NOTIFY_TAG_UB
#error "rma_fuzz needs the Notified Access MPICH (MPI_NOTIFY_TAG_UB in mpi.h)"
#endif

/* ================================================================ 1. PRNG */
#include "../fuzz_common.h"

/* ============================================ 2. program representation */
#define MAXP 8          /* ranks */
#define MAXPH 4         /* phases per program */
#define MAXEP 3         /* fence epochs per phase */
#define MAXSLOTS 512    /* window size limit, in 4-byte slots */
#define MAXN 96         /* basic elements per access (int; long: half) */
#define MAXBLK 6        /* blocks of an indexed type */
#define GUARD 8         /* bytes checked after each result buffer */
#define SENT 0xA5       /* result-buffer bytes nothing may write */
#define USED 0xEE       /* origin buffers once locally complete: a late read shows */

enum { B_INT, B_LONG };
static const int bsz[2] = { 4, 8 };
static const char *const bname[2] = { "int", "long" };

static inline MPI_Datatype bmpi(int b)
{
    return b == B_INT ? MPI_INT : MPI_LONG;
}

/* A datatype as a shape; the MPI type is built from it by the executor.
 * contig: `count` basic elements; vector/indexed: `count` instances of
 * MPI_Type_vector(nblk, blen, stride) / MPI_Type_indexed(nblk, blens, displs)
 * (displs increasing, blocks disjoint). */
enum { SH_CONTIG, SH_VECTOR, SH_INDEXED };
typedef struct {
    int shape, count, nblk, blen, stride;
    int blens[MAXBLK], displs[MAXBLK];
} tdesc_t;

static inline int td_per(const tdesc_t * t)
{
    int s = 0;
    switch (t->shape) {
        case SH_CONTIG:
            return 1;
        case SH_VECTOR:
            return t->nblk * t->blen;
    }
    for (int i = 0; i < t->nblk; i++)
        s += t->blens[i];
    return s;
}

static inline int td_n(const tdesc_t * t)
{
    return t->count * td_per(t);
}

static inline int td_extent(const tdesc_t * t)
{
    switch (t->shape) {
        case SH_CONTIG:
            return 1;
        case SH_VECTOR:
            return (t->nblk - 1) * t->stride + t->blen;
    }
    return t->displs[t->nblk - 1] + t->blens[t->nblk - 1] - t->displs[0];
}

/* Offsets (in basic elements from the buffer start) of the elements in
 * type-signature order.  Instance j starts at j * extent (MPI's rule); the
 * offsets come out increasing. */
static inline int td_offsets(const tdesc_t * t, int *off)
{
    int k = 0, ext = td_extent(t);
    for (int j = 0; j < t->count; j++) {
        int base = j * ext;
        if (t->shape == SH_CONTIG)
            off[k++] = base;
        else if (t->shape == SH_VECTOR) {
            for (int b = 0; b < t->nblk; b++)
                for (int e = 0; e < t->blen; e++)
                    off[k++] = base + b * t->stride + e;
        } else {
            for (int b = 0; b < t->nblk; b++)
                for (int e = 0; e < t->blens[b]; e++)
                    off[k++] = base + t->displs[b] + e;
        }
    }
    return k;
}

/* elements a buffer of this type spans (last offset + 1) */
static inline int td_span(const tdesc_t * t)
{
    int off[2 * MAXN + 64], n = td_offsets(t, off);
    return n ? off[n - 1] + 1 : 0;
}

/* certainly not contiguous as an MPI datatype (gaps between its blocks) */
static inline int td_sparse(const tdesc_t * t)
{
    if (t->shape == SH_VECTOR)
        return t->nblk > 1 && t->stride > t->blen;
    if (t->shape == SH_INDEXED)
        for (int b = 1; b < t->nblk; b++)
            if (t->displs[b] > t->displs[b - 1] + t->blens[b - 1])
                return 1;
    return 0;
}

static inline void td_contig(tdesc_t * t, int n)
{
    memset(t, 0, sizeof *t);
    t->shape = SH_CONTIG;
    t->count = n;
}

/* An access is a kind and a notification: NT_NONE (the plain MPI call),
 * NT_TAG (MPI_Put_notify, ..., MPI_Compare_and_swap_notify: a tag, matched by
 * an MPI_Notify_init request) or NT_CTR (MPIX_Put_notify, MPIX_Get_notify,
 * MPIX_Accumulate_notify, MPIX_Get_accumulate_notify: a counter index, the
 * target's counter grows by one).  The notification changes nothing else. */
enum { K_PUT, K_GET, K_ACC, K_GACC, K_FOP, K_CAS, NKINDS };
enum { NT_NONE, NT_TAG, NT_CTR, NNT };
static const char *const kname[NKINDS][NNT] = {
    {"put", "put_notify", "put_counter"},
    {"get", "get_notify", "get_counter"},
    {"accumulate", "accumulate_notify", "accumulate_counter"},
    {"get_accumulate", "get_accumulate_notify", "get_accumulate_counter"},
    {"fetch_and_op", "fetch_and_op_notify", NULL},      /* no MPIX_ dialect */
    {"compare_and_swap", "compare_and_swap_notify", NULL}
};

/* The request-based forms (MPI_Rput, ..., MPI_Rput_notify, ...,
 * MPIX_Rput_notify, ...: o->req) of the kinds that have one, listed by these
 * names; only in passive-target phases (lock, lock_all), where REQ_PCT of the
 * accesses of those kinds take them. */
static const char *const rkname[K_GACC + 1][NNT] = {
    {"rput", "rput_notify", "rput_counter"},
    {"rget", "rget_notify", "rget_counter"},
    {"raccumulate", "raccumulate_notify", "raccumulate_counter"},
    {"rget_accumulate", "rget_accumulate_notify", "rget_accumulate_counter"}
};

#define REQ_PCT 35

/* MPICH 4.0.2's own MPI_Rput / MPI_Rget crash on libfabric (ch4/ofi pack
 * path: MPIDI_OFI_pack_put / pack_get never create the request,
 * pmodels/mpich#7890, fixed upstream by #7893) when the origin datatype is
 * sparse and the target's dense; test/fuzz/README, failure 4.  Not
 * generated unless -stock-rput-bug (the notified twins are). */
extern int stock_rput_bug;     /* (gen.c) */
extern int contig_plain_r;     /* -contig-plain-r (gen.c) */

/* has a request-based form (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate and their notified twins) */
static inline int k_hasreq(int k)
{
    return k == K_PUT || k == K_GET || k == K_ACC || k == K_GACC;
}

/* notified accesses are the point: they get the largest share (both
 * dialects together about 60%: puts and gets about 43%, accumulates 20%);
 * plain puts and gets about 17%, plain accumulates 20% */
static const int kweight[NKINDS][NNT] = {
    {12, 22, 14}, {12, 14, 9}, {9, 6, 5}, {7, 5, 4}, {6, 4, 0}, {5, 4, 0}
};

#define MAXCTR 4        /* counters per window (MPIX_Win_create_notify) */

enum { OP_SUM, OP_REPLACE, OP_NOOP, OP_CAS };
static const char *const opname[] = { "SUM", "REPLACE", "NO_OP", "CAS" };

static inline MPI_Op mpiop(int op)
{
    return op == OP_SUM ? MPI_SUM : op == OP_REPLACE ? MPI_REPLACE : MPI_NO_OP;
}

/* MPI_Put-like / MPI_Get-like (notified or not) */
static inline int k_putlike(int k)
{
    return k == K_PUT;
}

static inline int k_getlike(int k)
{
    return k == K_GET;
}

static inline int k_acc(int k)
{
    return k == K_ACC || k == K_GACC || k == K_FOP || k == K_CAS;
}

/* writes a result into an origin buffer */
static inline int k_fetches(int k)
{
    return k_getlike(k) || k == K_GACC || k == K_FOP || k == K_CAS;
}

/* reads an origin buffer */
static inline int k_sends(int k)
{
    return !k_getlike(k);
}

typedef struct {
    int id, phase, epoch, origin, target, kind, op, basic, n;
    long disp;                  /* target_disp, in disp units */
    tdesc_t tt, ot, rt;         /* target, origin, result (get_accumulate) */
    uint64_t dseed;             /* the origin data */
    uint64_t cmp;               /* compare_and_swap */
    uint32_t nr;                /* random bits for the notification plan */
    int nt;                     /* NT_*: how it notifies */
    int cidx;                   /* NT_CTR: the target's counter */
    int req;                    /* the request-based form (MPI_Rput ...): completed by an
                                 * I_RWAIT item of its origin, or by a flush before that */
} op_t;

/* tagged notification (matched by requests) */
static inline int is_tagged(const op_t * o)
{
    return o->nt == NT_TAG;
}

/* counted notification (adds one to a counter) */
static inline int is_counted(const op_t * o)
{
    return o->nt == NT_CTR;
}

/* the name of the call, as listed: "put_counter", "fetch_and_op_notify" */
static inline const char *oname(const op_t * o)
{
    return o->req ? rkname[o->kind][o->nt] : kname[o->kind][o->nt];
}

/* One entry of a rank's stream in a phase. */
enum { I_OP, I_FLUSH, I_FLUSH_LOCAL, I_FLUSH_ALL, I_FLUSH_LOCAL_ALL, I_LOCK, I_UNLOCK,
    I_LOCK_ALL, I_UNLOCK_ALL, I_FENCE, I_POST, I_START, I_COMPLETE, I_WAIT, I_NSTART, I_NWAIT,
    I_DELAY, I_RWAIT
};
/* I_RWAIT: complete the requests of the request-based accesses rops[0..nrops)
 * (those kept) with one of these; then check what they fetched and reuse
 * (overwrite) their origin buffers at once, before any flush */
enum { RW_WAIT, RW_TEST, RW_WAITALL, RW_TESTALL, RW_WAITANY, RW_WAITSOME, NRW };
static const char *const rwname[NRW] = { "MPI_Wait", "MPI_Test loop", "MPI_Waitall",
    "MPI_Testall loop", "MPI_Waitany loop", "MPI_Waitsome loop"
};

#define MAXRW 4         /* requests per I_RWAIT item */
typedef struct {
    int kind;
    int target;                 /* flush, lock, unlock */
    int arg;                    /* lock: MPI_LOCK_*; fence: epoch it closes, -1 opening;
                                 * delay: microseconds; rwait: RW_* */
    int op;                     /* I_OP */
    int rid;                    /* flush or delay the shrinker may remove: its index, else -1 */
    int nrops, rops[MAXRW];     /* I_RWAIT: the accesses whose requests it completes */
} item_t;

enum { PH_FENCE, PH_LOCK, PH_LOCKALL, PH_PSCW };
static const char *const phname[] = { "fence", "lock/unlock", "lock_all/unlock_all", "post/start/complete/wait" };

typedef struct {
    int kind, nep;              /* nep: fence epochs (1 for the others) */
    item_t *it[MAXP];
    int nit[MAXP], capit[MAXP];
    uint8_t start_pre[MAXP];    /* start notify requests before the opening barrier */
    uint8_t start_all[MAXP];    /* MPI_Startall rather than MPI_Start each */
    uint8_t wait_how[MAXP];     /* 0 Waitall, 1 Wait each, 2 Testall loop, 3 Test each */
    uint8_t pscw_extra[MAXP];   /* PSCW: targets in the access group without operations */
    uint8_t cfirst[MAXP];       /* wait for the counters before the notify requests */
    uint8_t reattach;           /* before the opening barrier, all ranks: 1 MPIX_Win_create_notify
                                 * again (counters replaced, all 0), 2 MPIX_Win_free_notify first */
    long long cset[MAXP][MAXCTR];       /* then MPIX_Win_set_notify(idx, value) if >= 0 */
    int op0, op1;               /* its operations: ids [op0, op1) */
} phase_t;

typedef struct {
    uint64_t seed;
    long index;
    int P, flavor, du, nslots;  /* window: MPI_WIN_FLAVOR_*, disp_unit, 4-byte slots */
    int nctr, cfree;            /* counters attached after creation; cfree: MPIX_Win_free_notify
                                 * before MPI_Win_free (else MPI_Win_free frees them) */
    int nph;
    phase_t ph[MAXPH];
    int nops, capops;
    op_t *ops;
    int nrem;                   /* removable flush items */
} prog_t;

static inline uint64_t op_value(const op_t * o, int i)
{
    /* small positive values: sums of a few hundred of them cannot overflow */
    uint64_t v = mix64(o->dseed + (uint64_t) i);
    return o->basic == B_INT ? (v & 0xFFFFF) : (v & 0xFFFFFFFFFFull);
}

static inline uint64_t ld(const unsigned char *p, int b)
{
    if (b == B_INT) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline void st(unsigned char *p, int b, uint64_t v)
{
    if (b == B_INT) {
        uint32_t w = (uint32_t) v;
        memcpy(p, &w, 4);
    } else
        memcpy(p, &v, 8);
}

static inline uint64_t binop(int op, int b, uint64_t old, uint64_t v)
{
    uint64_t r = op == OP_SUM ? old + v : op == OP_REPLACE ? v : old;
    return b == B_INT ? (r & 0xFFFFFFFFu) : r;
}

static inline void prog_free(prog_t * p)
{
    for (int i = 0; i < p->nph; i++)
        for (int r = 0; r < p->P; r++)
            free(p->ph[i].it[r]);
    free(p->ops);
    memset(p, 0, sizeof *p);
}

/* ============================ the conflict rules' classes (section 3, gen.c) */
/* what kind of access a slot sees, across origins */
enum { XM_NONE, XM_READ, XM_SUMI, XM_SUML, XM_OTHER };

static inline int xclass(const op_t * o)
{
    switch (o->kind) {
        case K_GET:
            return XM_READ;
        case K_ACC:
            return o->op == OP_SUM ? (o->basic == B_INT ? XM_SUMI : XM_SUML) : XM_OTHER;
        case K_GACC:
        case K_FOP:
            return o->op == OP_NOOP ? XM_READ : XM_OTHER;
    }
    return XM_OTHER;
}

/* the window slots an access touches, in signature order */
static inline int op_slots(const prog_t * p, const op_t * o, int *slots)
{
    int off[2 * MAXN + 64], n = td_offsets(&o->tt, off), k = 0, per = bsz[o->basic] / 4;
    long base = o->disp * p->du;
    for (int i = 0; i < n; i++) {
        long b = base + (long) off[i] * bsz[o->basic];
        for (int j = 0; j < per; j++)
            slots[k++] = (int) (b / 4) + j;
    }
    return k;
}

/* =============================================== 5. model and plan (model.c) */
/*
 * The plan of one run of a program (with the shrinker's keep mask): notification
 * tags and requests, expected windows at every check point, expected result
 * buffers, expected counter values, the data checks after notification waits.
 * Built on every rank from the program alone; `me` only selects what this rank
 * keeps (counters: every rank's, for the listing).
 */
typedef struct {
    int src, tag, count;        /* MPI_Notify_init arguments (wildcards allowed) */
    int esrc, etag, ebytes;     /* expected status */
    uint8_t csrc, ctag, cbytes; /* ... and which of its fields are order-independent */
} nreq_t;

typedef struct {
    uint32_t off;               /* byte offset in the window */
    int basic, op;
    uint64_t val;
} wchk_t;

#define PUSH(arr, n, cap, val)                                                  \
    do {                                                                        \
        if ((n) == (cap)) {                                                     \
            (cap) = (cap) ? 2 * (cap) : 8;                                      \
            (arr) = realloc((arr), (cap) * sizeof(*(arr)));                     \
        }                                                                       \
        (arr)[(n)++] = (val);                                                   \
    } while (0)

typedef struct {
    int me;
    int *tag;                   /* [op] notification tag */
    size_t *obuf, *rbuf, *cbuf; /* [op] offsets in its origin's arena */
    size_t arena_bytes;         /* mine */
    unsigned char *init_arena, *exp_arena;      /* mine: initial, expected after all */
    unsigned char *init_win;    /* mine */
    unsigned char *snap[MAXPH][MAXEP];  /* my window after each epoch / at phase end */
    int *snap_lw[MAXPH][MAXEP]; /* ... and the op that last wrote each slot (-1 initial, -2 overwritten locally) */
    int live[MAXPH];            /* kept operations in the phase */
    nreq_t *req[MAXPH][MAXP];
    int nreq[MAXPH][MAXP], capreq[MAXPH][MAXP];
    wchk_t *pchk[MAXPH][MAXP], *scr[MAXPH][MAXP];       /* after the wait: check / overwrite */
    int npchk[MAXPH][MAXP], cappchk[MAXPH][MAXP], nscr[MAXPH][MAXP], capscr[MAXPH][MAXP];
    uint8_t access[MAXPH][MAXP], expose[MAXPH][MAXP];   /* PSCW groups, as rank bitmasks */
    long nnotify;               /* notified accesses (tagged) */
    /* counters, [phase]...[rank][idx]: the values after the resets before the
     * phase, after each fence epoch (the last: at the end of the phase, also
     * what the target waits for), a lower bound once the rank's notify
     * requests completed (counted accesses issued before an origin's last
     * tagged one have counted: one origin's notifications arrive in issue
     * order), and how many counted accesses of the phase hit the counter */
    long long cbase[MAXPH][MAXP][MAXCTR], cexp[MAXPH][MAXEP][MAXP][MAXCTR];
    long long clb[MAXPH][MAXP][MAXCTR];
    int cops[MAXPH][MAXP][MAXCTR];
    long ncounted;              /* counted accesses */
} plan_t;

/* what the runs covered, for the summary line */
typedef struct {
    long ops, notified, acc_notified, acc_counted, phases[4], req[4], pchk, scr;
    long counted, cchecks, cwaits, clb, csets, creattach, cpchk, cscr;
    long rops[NNT], rcalls[NRW], rfetch, rreuse;        /* request-based accesses */
} stats_t;

/* ============================================ what crosses files */
/* gen.c */
void rma_gen_program(prog_t * p, uint64_t seed, long index, int P, int max_ops);
int rma_program_valid(const prog_t * p, const uint8_t * keep);

/* model.c */
void rma_win_init_image(const prog_t * p, int r, unsigned char *w);
void rma_model_apply(const prog_t * p, const op_t * o, unsigned char *tw,
                     unsigned char *arena, size_t obuf, size_t rbuf);
void rma_plan_build(const prog_t * p, const uint8_t * keep, int me, plan_t * pl);
void rma_plan_free(plan_t * pl);
void rma_print_program(FILE * f, const prog_t * p, const uint8_t * keep);

/* run.c */
extern int wd_seconds;          /* -watchdog */
extern int jitter;              /* the shrinker's re-runs: -1 none, else see run.c */
void rma_sig_handler(int sig);
void rma_jitter_str(int j, int P, char *buf, size_t len);
int rma_run_program(const prog_t * p, const uint8_t * keep, int quiet, stats_t * stats);

/* main.c */
void rma_add_stats(stats_t * st, const prog_t * p, const uint8_t * keep, const plan_t * pl);

#endif /* RMA_FUZZ_H */

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
 * 5 model and plan, 6 executor and checker, 7 listing, 8 shrinker, 9 main.
 */
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
#include "fuzz_common.h"

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
static const char *bname[2] = { "int", "long" };

static MPI_Datatype bmpi(int b)
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

static int td_per(const tdesc_t * t)
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

static int td_n(const tdesc_t * t)
{
    return t->count * td_per(t);
}

static int td_extent(const tdesc_t * t)
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
static int td_offsets(const tdesc_t * t, int *off)
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
static int td_span(const tdesc_t * t)
{
    int off[2 * MAXN + 64], n = td_offsets(t, off);
    return n ? off[n - 1] + 1 : 0;
}

/* certainly not contiguous as an MPI datatype (gaps between its blocks) */
static int td_sparse(const tdesc_t * t)
{
    if (t->shape == SH_VECTOR)
        return t->nblk > 1 && t->stride > t->blen;
    if (t->shape == SH_INDEXED)
        for (int b = 1; b < t->nblk; b++)
            if (t->displs[b] > t->displs[b - 1] + t->blens[b - 1])
                return 1;
    return 0;
}

static void td_contig(tdesc_t * t, int n)
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
static const char *kname[NKINDS][NNT] = {
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
static const char *rkname[K_GACC + 1][NNT] = {
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
static int stock_rput_bug = 0;
static int contig_plain_r = 0;  /* -contig-plain-r */

/* has a request-based form (MPI_Rput, MPI_Rget, MPI_Raccumulate,
 * MPI_Rget_accumulate and their notified twins) */
static int k_hasreq(int k)
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
static const char *opname[] = { "SUM", "REPLACE", "NO_OP", "CAS" };

static MPI_Op mpiop(int op)
{
    return op == OP_SUM ? MPI_SUM : op == OP_REPLACE ? MPI_REPLACE : MPI_NO_OP;
}

/* MPI_Put-like / MPI_Get-like (notified or not) */
static int k_putlike(int k)
{
    return k == K_PUT;
}

static int k_getlike(int k)
{
    return k == K_GET;
}

static int k_acc(int k)
{
    return k == K_ACC || k == K_GACC || k == K_FOP || k == K_CAS;
}

/* writes a result into an origin buffer */
static int k_fetches(int k)
{
    return k_getlike(k) || k == K_GACC || k == K_FOP || k == K_CAS;
}

/* reads an origin buffer */
static int k_sends(int k)
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
static int is_tagged(const op_t * o)
{
    return o->nt == NT_TAG;
}

/* counted notification (adds one to a counter) */
static int is_counted(const op_t * o)
{
    return o->nt == NT_CTR;
}

/* the name of the call, as listed: "put_counter", "fetch_and_op_notify" */
static const char *oname(const op_t * o)
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
static const char *rwname[NRW] = { "MPI_Wait", "MPI_Test loop", "MPI_Waitall",
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
static const char *phname[] = { "fence", "lock/unlock", "lock_all/unlock_all", "post/start/complete/wait" };

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

static uint64_t op_value(const op_t * o, int i)
{
    /* small positive values: sums of a few hundred of them cannot overflow */
    uint64_t v = mix64(o->dseed + (uint64_t) i);
    return o->basic == B_INT ? (v & 0xFFFFF) : (v & 0xFFFFFFFFFFull);
}

static uint64_t ld(const unsigned char *p, int b)
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

static void st(unsigned char *p, int b, uint64_t v)
{
    if (b == B_INT) {
        uint32_t w = (uint32_t) v;
        memcpy(p, &w, 4);
    } else
        memcpy(p, &v, 8);
}

static uint64_t binop(int op, int b, uint64_t old, uint64_t v)
{
    uint64_t r = op == OP_SUM ? old + v : op == OP_REPLACE ? v : old;
    return b == B_INT ? (r & 0xFFFFFFFFu) : r;
}

static void prog_free(prog_t * p)
{
    for (int i = 0; i < p->nph; i++)
        for (int r = 0; r < p->P; r++)
            free(p->ph[i].it[r]);
    free(p->ops);
    memset(p, 0, sizeof *p);
}

/* ==================================================== 3. conflict rules */
/*
 * What makes a program correct MPI *and* deterministic, at 4-byte-slot
 * granularity (every access is aligned to its basic type):
 *
 *  - Across origins, within one concurrency interval (a fence epoch, or a
 *    whole lock / lock_all / PSCW phase: nothing orders two origins there,
 *    exclusive locks included - their order is not known), a slot may be
 *    touched by several origins only if all of them only read it (get,
 *    get_notify, NO_OP fetches), or all of them do non-fetching MPI_SUM
 *    accumulates of the same basic type (commutative: every order gives the
 *    same sum).  Anything else is a conflict, or a race whose outcome the
 *    model cannot predict.
 *  - Within one origin, two accesses to a slot of the same target need a
 *    flush (MPI_Win_flush / flush_all / unlock) in between, except two reads,
 *    or two accumulate-class calls (accumulate, get_accumulate, fetch_and_op,
 *    compare_and_swap) with the same basic type and the same op or MPI_NO_OP,
 *    which MPI orders by default (accumulate_ordering=rar,raw,war,waw) and
 *    which keep to the default accumulate_ops=same_op_no_op.  flush_local
 *    does not count: it completes the access at the origin only.
 * The generator only emits accesses these rules allow (inserting flushes in
 * passive-target phases), and the shrinker re-checks them before removing a
 * flush.  Notified accesses of either dialect (put_notify / put_counter,
 * get_notify / get_counter, accumulate_notify / accumulate_counter, ...) are
 * puts, gets and accumulates here: the notification changes nothing in the
 * rules (a notified and a plain accumulate are ordered and atomic as two
 * plain ones, doc/notified-access.md).  The request-based forms (MPI_Rput,
 * MPI_Rput_notify, MPIX_Rput_notify, ...) are the same accesses: their
 * request's completion is local completion only (as flush_local), so it
 * never counts as a flush here.  Counters need no rule: increments
 * commute, and they are only read (exactly) once the phase's counted
 * accesses are complete, or waited for until they reach the phase's total.
 */
enum { XM_NONE, XM_READ, XM_SUMI, XM_SUML, XM_OTHER };

typedef struct {
    uint8_t mode, mask;         /* cross-origin: summary of the interval's accesses, who */
} xslot_t;

typedef struct {
    uint8_t rd, wr, acc, acct, accop;   /* one origin's accesses since its last flush */
} pslot_t;

typedef struct {
    xslot_t x[MAXP][MAXSLOTS];          /* [target][slot] */
    pslot_t pend[MAXP][MAXP][MAXSLOTS]; /* [origin][target][slot] */
} cstate_t;

static int xclass(const op_t * o)
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
static int op_slots(const prog_t * p, const op_t * o, int *slots)
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

static void cs_new_interval(cstate_t * c)
{
    memset(c, 0, sizeof *c);
}

static void cs_flush(cstate_t * c, int o, int t)
{
    if (t < 0)
        memset(c->pend[o], 0, sizeof c->pend[o]);
    else
        memset(c->pend[o][t], 0, sizeof c->pend[o][t]);
}

static int pend_conflict(const pslot_t * s, const op_t * o)
{
    int k = o->kind;
    if (k_putlike(k))
        return s->rd || s->wr || s->acc;
    if (k_getlike(k))
        return s->wr || s->accop;
    int opk = k == K_CAS ? OP_CAS : o->op;
    if (s->wr || (s->rd && opk != OP_NOOP))
        return 1;
    if (s->acc && s->acct != o->basic + 1)
        return 1;
    if (opk != OP_NOOP && s->accop && s->accop != opk + 1)
        return 1;
    return 0;
}

/* 0: allowed; 1: allowed after a flush of the target; 2: not in this interval */
static int cs_check(const cstate_t * c, const prog_t * p, const op_t * o)
{
    int slots[2 * MAXN], ns = op_slots(p, o, slots), cls = xclass(o), need_flush = 0;
    for (int i = 0; i < ns; i++) {
        const xslot_t *x = &c->x[o->target][slots[i]];
        int nm = x->mode == XM_NONE || x->mode == cls ? cls : XM_OTHER;
        if ((x->mask & ~(1u << o->origin)) && nm != XM_READ && nm != XM_SUMI && nm != XM_SUML)
            return 2;
        if (pend_conflict(&c->pend[o->origin][o->target][slots[i]], o))
            need_flush = 1;
    }
    return need_flush;
}

static void cs_commit(cstate_t * c, const prog_t * p, const op_t * o)
{
    int slots[2 * MAXN], ns = op_slots(p, o, slots), cls = xclass(o);
    for (int i = 0; i < ns; i++) {
        xslot_t *x = &c->x[o->target][slots[i]];
        x->mode = x->mode == XM_NONE || x->mode == cls ? cls : XM_OTHER;
        x->mask |= 1u << o->origin;
        pslot_t *s = &c->pend[o->origin][o->target][slots[i]];
        if (k_putlike(o->kind))
            s->wr = 1;
        else if (k_getlike(o->kind))
            s->rd = 1;
        else {
            int opk = o->kind == K_CAS ? OP_CAS : o->op;
            s->acc = 1;
            s->acct = o->basic + 1;
            if (opk != OP_NOOP)
                s->accop = opk + 1;
        }
    }
}

/* ========================================================= 4. generator */
typedef struct {
    prog_t *p;
    rng_t r;
    cstate_t *cs;
    unsigned char *scratch[MAXP];       /* windows as generated so far (CAS compare values) */
    int phase, epoch;
    int *rpend[MAXP], nrpend[MAXP];     /* request-based accesses not yet given an I_RWAIT */
} gen_t;

static void model_apply(const prog_t * p, const op_t * o, unsigned char *tw,
                        unsigned char *arena, size_t obuf, size_t rbuf);
static void win_init_image(const prog_t * p, int r, unsigned char *w);

static item_t *emit(prog_t * p, phase_t * ph, int r, int kind, int target, int arg, int op,
                    int removable)
{
    if (ph->nit[r] == ph->capit[r]) {
        ph->capit[r] = ph->capit[r] ? 2 * ph->capit[r] : 16;
        ph->it[r] = realloc(ph->it[r], ph->capit[r] * sizeof(item_t));
    }
    item_t *it = &ph->it[r][ph->nit[r]++];
    it->kind = kind;
    it->target = target;
    it->arg = arg;
    it->op = op;
    it->rid = removable ? p->nrem++ : -1;
    it->nrops = 0;
    return it;
}

static void insert_item(phase_t * ph, int r, int pos, item_t it)
{
    if (ph->nit[r] == ph->capit[r]) {
        ph->capit[r] = ph->capit[r] ? 2 * ph->capit[r] : 16;
        ph->it[r] = realloc(ph->it[r], ph->capit[r] * sizeof(item_t));
    }
    memmove(&ph->it[r][pos + 1], &ph->it[r][pos], (ph->nit[r] - pos) * sizeof(item_t));
    ph->it[r][pos] = it;
    ph->nit[r]++;
}

static void gen_tdesc(rng_t * r, tdesc_t * t, int n, int maxspan)
{
    td_contig(t, n);
    if (n <= 1 || rpct(r, 50))
        return;
    tdesc_t c;
    memset(&c, 0, sizeof c);
    c.count = (n % 2 == 0 && rbelow(r, 3) == 0) ? 2 : 1;
    int per = n / c.count;
    if (rpct(r, 50)) {
        int divs[MAXN], nd = 0;
        for (int d = 1; d <= per && d <= 8; d++)
            if (per % d == 0)
                divs[nd++] = d;
        c.shape = SH_VECTOR;
        c.nblk = divs[rbelow(r, nd)];
        c.blen = per / c.nblk;
        c.stride = c.blen + rbelow(r, 4);       /* stride == blen: a vector that is contiguous */
    } else {
        c.shape = SH_INDEXED;
        c.nblk = 1 + rbelow(r, per < MAXBLK ? per : MAXBLK);
        for (int b = 0; b < c.nblk; b++)
            c.blens[b] = 1;
        for (int left = per - c.nblk; left > 0; left--)
            c.blens[rbelow(r, c.nblk)]++;
        int d = rbelow(r, 3);
        for (int b = 0; b < c.nblk; b++) {
            c.displs[b] = d;
            d += c.blens[b] + rbelow(r, 3);
        }
    }
    if (td_span(&c) <= maxspan)
        *t = c;
}

/* a kind and its notification (*nt) */
static int pick_kind(rng_t * r, int *nt)
{
    int tot = 0, k, j;
    for (k = 0; k < NKINDS; k++)
        for (j = 0; j < NNT; j++)
            tot += kweight[k][j];
    int x = rbelow(r, tot);
    for (k = 0; k < NKINDS; k++)
        for (j = 0; j < NNT; j++) {
            if (x < kweight[k][j]) {
                *nt = j;
                return k;
            }
            x -= kweight[k][j];
        }
    abort();
}

static int pick_n(rng_t * r, int kind, int nt, int basic, int maxn)
{
    int x = rbelow(r, 100), n;
    if (nt != NT_NONE && x < 5)
        return 0;               /* carries only the notification */
    if (kind == K_PUT && nt != NT_NONE && x < 60)
        n = 1 + rbelow(r, 32 / bsz[basic]);     /* small enough to travel inline in a ring cell */
    else if (x < 50)
        n = 1 + rbelow(r, 4);
    else if (x < 80)
        n = 5 + rbelow(r, 12);
    else if (x < 95)
        n = 17 + rbelow(r, 32);
    else
        n = 49 + rbelow(r, 48);
    return n < maxn ? n : maxn;
}

/* an earlier access of this origin to this target, to access again: the
 * "access x; flush; access x again" patterns come from here */
static const op_t *revisit_candidate(gen_t * g, int o, int t)
{
    const op_t *found[3];
    int nf = 0;
    for (int i = g->p->nops - 1; i >= 0 && nf < 3; i--) {
        const op_t *q = &g->p->ops[i];
        if (q->origin == o && q->target == t && q->n > 0)
            found[nf++] = q;
    }
    if (!nf)
        return NULL;
    /* the latest one most of the time: it is the one still pending */
    return found[rpct(&g->r, 60) ? 0 : rbelow(&g->r, nf)];
}

enum { GM_NOFLUSH, GM_LOCK, GM_LOCKALL };

/* the sync items the generator may add where the rules need a flush */
static void gen_flush(gen_t * g, phase_t * ph, int o, int t, int mode, int locktype)
{
    prog_t *p = g->p;
    int x = rbelow(&g->r, 100);
    if (mode == GM_LOCK && x < 25) {
        /* end the epoch and start another on the same target */
        emit(p, ph, o, I_UNLOCK, t, 0, -1, 0);
        emit(p, ph, o, I_LOCK, t, locktype, -1, 0);
        cs_flush(g->cs, o, t);
    } else if (mode == GM_LOCKALL && x < 35) {
        emit(p, ph, o, I_FLUSH_ALL, -1, 0, -1, 1);
        cs_flush(g->cs, o, -1);
    } else {
        emit(p, ph, o, I_FLUSH, t, 0, -1, 1);
        cs_flush(g->cs, o, t);
    }
}

static int gen_op(gen_t * g, phase_t * ph, int o, int t, int mode, int locktype)
{
    prog_t *p = g->p;
    int winb = p->nslots * 4;
    for (int attempt = 0; attempt < 8; attempt++) {
        op_t c;
        memset(&c, 0, sizeof c);
        c.phase = g->phase;
        c.epoch = g->epoch;
        c.origin = o;
        c.target = t;
        c.kind = pick_kind(&g->r, &c.nt);
        /* request-based RMA is only legal in passive-target epochs */
        c.req = mode != GM_NOFLUSH && k_hasreq(c.kind) && rpct(&g->r, REQ_PCT);
        c.basic = rpct(&g->r, 30) ? B_LONG : B_INT;
        int x = rbelow(&g->r, 5);
        switch (c.kind) {
            case K_ACC:
                c.op = x < 3 ? OP_SUM : OP_REPLACE;
                break;
            case K_GACC:
            case K_FOP:
                c.op = x < 2 ? OP_SUM : x < 4 ? OP_REPLACE : OP_NOOP;
                break;
            case K_CAS:
                c.op = OP_CAS;
                break;
            default:
                c.op = OP_REPLACE;
        }
        int single = c.kind == K_FOP || c.kind == K_CAS;
        const op_t *q = revisit_candidate(g, o, t);
        if (q && rpct(&g->r, q->nt != NT_NONE && !k_getlike(q->kind) ? 70 : 40)) {
            c.basic = q->basic;
            if (single) {
                int off[2 * MAXN + 64];
                td_offsets(&q->tt, off);
                long byte = q->disp * p->du + (long) off[rbelow(&g->r, q->n)] * bsz[q->basic];
                c.disp = byte / p->du;
                c.n = 1;
                td_contig(&c.tt, 1);
            } else {
                c.n = q->n;
                c.tt = q->tt;
                c.disp = q->disp;
            }
        } else {
            int s = bsz[c.basic], maxn = winb / s;
            if (maxn > MAXN * 4 / s)
                maxn = MAXN * 4 / s;
            c.n = single ? 1 : pick_n(&g->r, c.kind, c.nt, c.basic, maxn);
            gen_tdesc(&g->r, &c.tt, c.n, winb / s);
            int span = td_span(&c.tt) * s;
            int al = s > p->du ? s : p->du;     /* aligned for the basic type */
            long byte = (long) rbelow(&g->r, (winb - span) / al + 1) * al;
            c.disp = byte / p->du;
        }
        if (single) {
            td_contig(&c.ot, 1);
            td_contig(&c.rt, 1);
        } else {
            gen_tdesc(&g->r, &c.ot, c.n, 4 * c.n + 8);
            if (c.kind == K_GACC)
                gen_tdesc(&g->r, &c.rt, c.n, 4 * c.n + 8);
        }
        if (c.req && c.nt == NT_NONE && (k_putlike(c.kind) || k_getlike(c.kind)) &&
            !stock_rput_bug && c.ot.shape != SH_CONTIG && !td_sparse(&c.tt))
            td_contig(&c.ot, c.n);      /* see stock_rput_bug */
        if (c.req && c.nt == NT_NONE && (k_putlike(c.kind) || k_getlike(c.kind)) &&
            contig_plain_r) {
            td_contig(&c.ot, c.n);      /* see contig_plain_r; a contiguous */
            td_contig(&c.tt, c.n);      /* target spans no more than before */
        }
        c.dseed = rnext(&g->r);
        c.nr = (uint32_t) rnext(&g->r);
        if (is_counted(&c))
            c.cidx = rbelow(&g->r, p->nctr);
        if (td_n(&c.tt) != c.n || td_n(&c.ot) != c.n || (c.kind == K_GACC && td_n(&c.rt) != c.n)) {
            fprintf(stderr, "rma_fuzz: generator bug: type signatures do not match\n");
            abort();
        }

        int why = cs_check(g->cs, p, &c);
        if (why == 2 || (why == 1 && mode == GM_NOFLUSH))
            continue;
        if (why == 1)
            gen_flush(g, ph, o, t, mode, locktype);
        if (c.kind == K_CAS) {
            /* often the current value, so that the swap happens */
            uint64_t cur = ld(g->scratch[t] + c.disp * p->du, c.basic);
            c.cmp = rpct(&g->r, 60) ? cur : op_value(&c, 1);
        }
        cs_commit(g->cs, p, &c);
        if (p->nops == p->capops) {
            p->capops = p->capops ? 2 * p->capops : 32;
            p->ops = realloc(p->ops, p->capops * sizeof(op_t));
        }
        c.id = p->nops++;
        p->ops[c.id] = c;
        model_apply(p, &c, g->scratch[t], NULL, 0, 0);
        emit(p, ph, o, I_OP, t, 0, c.id, 0);
        if (c.req)
            g->rpend[o][g->nrpend[o]++] = c.id;
        return c.id;
    }
    return -1;
}

/* Complete request-based accesses of origin o that have none yet: all of
 * them, or a random few (at least the latest), each item (up to MAXRW
 * requests) with a random call. */
static void gen_rwait(gen_t * g, phase_t * ph, int o, int all)
{
    int *pend = g->rpend[o], n = g->nrpend[o], take[1024], nt = 0, m = 0;
    if (!n)
        return;
    for (int i = 0; i < n; i++) {
        if (all || (nt < MAXRW && (rpct(&g->r, 60) || (i == n - 1 && !nt))))
            take[nt++] = pend[i];
        else
            pend[m++] = pend[i];
    }
    g->nrpend[o] = m;
    for (int i = 0; i < nt; i += MAXRW) {
        item_t *it = emit(g->p, ph, o, I_RWAIT, -1, rbelow(&g->r, NRW), -1, 0);
        for (int j = i; j < nt && j < i + MAXRW; j++)
            it->rops[it->nrops++] = take[j];
    }
}

/* after an access in a passive-target phase: often complete some pending
 * requests at once (before any flush), else leave them for later */
static void gen_rwait_some(gen_t * g, phase_t * ph, int o)
{
    if (g->nrpend[o] && rpct(&g->r, 60))
        gen_rwait(g, ph, o, 0);
}

/* A busy wait outside MPI.  It changes nothing in the outcome, but a rank
 * that makes no MPI calls for a while does not drive progress: what the
 * library left for the target's progress engine to finish stays unfinished
 * while the other ranks go on.  Makes such bugs show up reliably. */
static void gen_delay(gen_t * g, phase_t * ph, int o, int pct)
{
    if (rpct(&g->r, pct))
        emit(g->p, ph, o, I_DELAY, -1, 50 + rbelow(&g->r, 400), -1, 1);
}

/* after an access: random extra completion calls (completions the rules do
 * not need) and delays */
static void gen_extra_sync(gen_t * g, phase_t * ph, int o, int t, int mode)
{
    prog_t *p = g->p;
    gen_delay(g, ph, o, 8);
    if (mode == GM_NOFLUSH || !rpct(&g->r, 15))
        return;
    int x = rbelow(&g->r, 100);
    if (x < 40)
        emit(p, ph, o, I_FLUSH_LOCAL, t, 0, -1, 1);
    else if (x < 80) {
        emit(p, ph, o, I_FLUSH, t, 0, -1, 1);
        cs_flush(g->cs, o, t);
    } else if (x < 90) {
        emit(p, ph, o, I_FLUSH_ALL, -1, 0, -1, 1);
        cs_flush(g->cs, o, -1);
    } else
        emit(p, ph, o, I_FLUSH_LOCAL_ALL, -1, 0, -1, 1);
}

static void gen_phase(gen_t * g, int phi, int nops)
{
    prog_t *p = g->p;
    phase_t *ph = &p->ph[phi];
    rng_t *r = &g->r;
    int P = p->P, cnt[MAXEP][MAXP];
    int x = rbelow(r, 100);
    ph->kind = x < 25 ? PH_FENCE : x < 50 ? PH_LOCK : x < 80 ? PH_LOCKALL : PH_PSCW;
    ph->nep = ph->kind == PH_FENCE ? 1 + rbelow(r, MAXEP) : 1;
    ph->op0 = p->nops;
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < nops; i++)
        cnt[rbelow(r, ph->nep)][rbelow(r, P)]++;
    for (int o = 0; o < P; o++) {
        ph->start_pre[o] = rpct(r, 30);
        ph->start_all[o] = rpct(r, 50);
        ph->wait_how[o] = rbelow(r, 4);
        for (int t = 0; t < P; t++)
            if (rpct(r, 15))
                ph->pscw_extra[o] |= 1u << t;
    }
    /* counters: which wait comes first; resets before the phase (no counted
     * access is in flight then), planned from the seed, followed by the model */
    ph->reattach = rpct(r, 6) ? 1 + rbelow(r, 2) : 0;
    for (int o = 0; o < P; o++) {
        ph->cfirst[o] = rpct(r, 50);
        for (int i = 0; i < MAXCTR; i++)
            ph->cset[o][i] = i < p->nctr && rpct(r, 12) ?
                (rpct(r, 75) ? 0 : 1000 + rbelow(r, 100000)) : -1;
    }
    g->phase = phi;

    /* opening synchronisation */
    for (int o = 0; o < P; o++) {
        gen_delay(g, ph, o, 15);
        if (ph->kind == PH_FENCE)
            emit(p, ph, o, I_FENCE, -1, -1, -1, 0);
        else if (ph->kind == PH_LOCKALL)
            emit(p, ph, o, I_LOCK_ALL, -1, 0, -1, 0);
        else if (ph->kind == PH_PSCW) {
            emit(p, ph, o, I_POST, -1, 0, -1, 0);
            emit(p, ph, o, I_START, -1, 0, -1, 0);
        }
    }
    /* Operations, epoch by epoch and origin by origin: the same order in which
     * the model applies them (any order gives the same result, by the rules). */
    for (int k = 0; k < ph->nep; k++) {
        g->epoch = k;
        cs_new_interval(g->cs);
        for (int o = 0; o < P; o++) {
            int left = cnt[k][o], t = rbelow(r, P);
            if (ph->kind == PH_LOCK) {
                while (left > 0) {
                    int lt = rpct(r, 35) ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
                    int m = 1 + rbelow(r, left < 5 ? left : 5);
                    t = rbelow(r, P);
                    emit(p, ph, o, I_LOCK, t, lt, -1, 0);
                    for (int i = 0; i < m; i++)
                        if (gen_op(g, ph, o, t, GM_LOCK, lt) >= 0) {
                            gen_rwait_some(g, ph, o);
                            gen_extra_sync(g, ph, o, t, GM_LOCK);
                        }
                    /* the rest before the unlock, or later (after it) */
                    if (rpct(r, 30))
                        gen_rwait(g, ph, o, 1);
                    emit(p, ph, o, I_UNLOCK, t, 0, -1, 0);
                    cs_flush(g->cs, o, t);
                    left -= m;
                }
            } else {
                int mode = ph->kind == PH_LOCKALL ? GM_LOCKALL : GM_NOFLUSH;
                for (int i = 0; i < left; i++) {
                    if (rpct(r, 50))    /* same target again half of the time */
                        t = rbelow(r, P);
                    if (gen_op(g, ph, o, t, mode, 0) >= 0) {
                        gen_rwait_some(g, ph, o);
                        gen_extra_sync(g, ph, o, t, mode);
                    }
                }
            }
        }
        if (ph->kind == PH_FENCE)
            for (int o = 0; o < P; o++)
                emit(p, ph, o, I_FENCE, -1, k, -1, 0);
    }
    /* Closing synchronisation and the wait for notifications.  A rank waits
     * only once all its own accesses are issued and flushed (or its epoch is
     * closed), and never while holding a lock another rank may need: the
     * waits cannot form a cycle.  Fence and PSCW wait after the epoch, since
     * MPI may delay the transfers until then. */
    for (int o = 0; o < P; o++) {
        int cstart = ph->nit[o];
        gen_delay(g, ph, o, 25);
        switch (ph->kind) {
            case PH_LOCKALL:
                if (rpct(r, 60)) {
                    emit(p, ph, o, I_FLUSH_ALL, -1, 0, -1, 0);
                    emit(p, ph, o, I_NWAIT, -1, 0, -1, 0);
                    emit(p, ph, o, I_UNLOCK_ALL, -1, 0, -1, 0);
                } else {
                    emit(p, ph, o, I_UNLOCK_ALL, -1, 0, -1, 0);
                    emit(p, ph, o, I_NWAIT, -1, 0, -1, 0);
                }
                break;
            case PH_PSCW:
                emit(p, ph, o, I_COMPLETE, -1, 0, -1, 0);
                emit(p, ph, o, I_WAIT, -1, 0, -1, 0);
                emit(p, ph, o, I_NWAIT, -1, 0, -1, 0);
                break;
            default:
                emit(p, ph, o, I_NWAIT, -1, 0, -1, 0);
        }
        /* the requests of request-based accesses still pending: completed
         * somewhere in the closing sequence (in or after the epoch) */
        if (g->nrpend[o]) {
            int n0 = ph->nit[o], pos = cstart + rbelow(r, n0 - cstart + 1);
            gen_rwait(g, ph, o, 1);
            /* move the new items (at the end) to pos */
            int nn = ph->nit[o] - n0;
            item_t tmp[1024 / MAXRW + 1];
            memcpy(tmp, &ph->it[o][n0], nn * sizeof(item_t));
            memmove(&ph->it[o][pos + nn], &ph->it[o][pos], (n0 - pos) * sizeof(item_t));
            memcpy(&ph->it[o][pos], tmp, nn * sizeof(item_t));
        }
        /* start the requests somewhere before the wait */
        int wpos = 0;
        while (ph->it[o][wpos].kind != I_NWAIT)
            wpos++;
        item_t s = { I_NSTART, -1, 0, -1, -1 };
        insert_item(ph, o, rbelow(r, wpos + 1), s);
    }
    ph->op1 = p->nops;
}

static void gen_program(prog_t * p, uint64_t seed, long index, int P, int max_ops)
{
    memset(p, 0, sizeof *p);
    p->seed = seed;
    p->index = index;
    p->P = P;
    gen_t g;
    memset(&g, 0, sizeof g);
    g.p = p;
    g.r.s = hash4(seed, (uint64_t) index, 0x6e6f74696679ull, 0);
    g.cs = malloc(sizeof(cstate_t));
    p->flavor = rpct(&g.r, 80) ? MPI_WIN_FLAVOR_ALLOCATE : MPI_WIN_FLAVOR_CREATE;
    p->du = rpct(&g.r, 50) ? 1 : 4;
    static const int sizes[] = { 32, 64, 64, 128, 128, 512 };
    p->nslots = sizes[rbelow(&g.r, 6)];
    static const int nctrs[] = { 1, 2, 4, 4 };
    p->nctr = nctrs[rbelow(&g.r, 4)];
    p->cfree = rpct(&g.r, 50);
    for (int r = 0; r < P; r++) {
        g.scratch[r] = malloc(p->nslots * 4);
        win_init_image(p, r, g.scratch[r]);
        g.rpend[r] = malloc(sizeof(int) * (max_ops + 1));
    }
    int total = 1 + rbelow(&g.r, max_ops);
    p->nph = 1 + rbelow(&g.r, MAXPH);
    if (p->nph > total)
        p->nph = total;
    int share[MAXPH] = { 0 };
    for (int i = 0; i < total; i++)
        share[i < p->nph ? i : rbelow(&g.r, p->nph)]++;     /* every phase gets one */
    for (int i = 0; i < p->nph; i++)
        gen_phase(&g, i, share[i]);
    for (int r = 0; r < P; r++) {
        free(g.scratch[r]);
        free(g.rpend[r]);
    }
    free(g.cs);
}

/* ================================================== 5. model and plan */
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

static void win_init_image(const prog_t * p, int r, unsigned char *w)
{
    uint64_t h = hash4(p->seed, (uint64_t) p->index, (uint64_t) r, 0x1717);
    for (int s = 0; s < p->nslots; s++) {
        uint32_t v = (uint32_t) (mix64(h + (uint64_t) s) & 0xFFFFF);
        memcpy(w + 4 * s, &v, 4);
    }
}

static uint64_t scribble_value(const op_t * o, int i)
{
    return 0x7000000u + (uint64_t) o->id * 128 + (uint64_t) i;
}

/* Apply one access to target window image tw; arena (the origin's expected
 * arena, or NULL) receives what it fetches. */
static void model_apply(const prog_t * p, const op_t * o, unsigned char *tw,
                        unsigned char *arena, size_t obuf, size_t rbuf)
{
    int toff[2 * MAXN + 64], ooff[2 * MAXN + 64], roff[2 * MAXN + 64];
    int n = td_offsets(&o->tt, toff), b = o->basic, s = bsz[b];
    td_offsets(&o->ot, ooff);
    td_offsets(&o->rt, roff);
    long base = o->disp * p->du;
    for (int i = 0; i < n; i++) {
        unsigned char *w = tw + base + (long) toff[i] * s;
        uint64_t old = ld(w, b), v = op_value(o, i);
        switch (o->kind) {
            case K_PUT:
                st(w, b, v);
                break;
            case K_GET:
                if (arena)
                    st(arena + obuf + (size_t) ooff[i] * s, b, old);
                break;
            case K_ACC:
                st(w, b, binop(o->op, b, old, v));
                break;
            case K_GACC:
            case K_FOP:
                if (arena)
                    st(arena + rbuf + (size_t) roff[i] * s, b, old);
                st(w, b, binop(o->op, b, old, v));
                break;
            case K_CAS:
                if (arena)
                    st(arena + rbuf, b, old);
                if (old == o->cmp)
                    st(w, b, v);
                break;
        }
    }
}

/* arena: every origin buffer of a rank's accesses, each used once */
static void plan_arena(const prog_t * p, plan_t * pl)
{
    size_t cur[MAXP] = { 0 };
    for (int i = 0; i < p->nops; i++) {
        const op_t *o = &p->ops[i];
        size_t s = bsz[o->basic], *c = &cur[o->origin];
        pl->obuf[i] = *c;
        *c += (td_span(&o->ot) * s + GUARD + 7) & ~(size_t) 7;
        pl->rbuf[i] = pl->cbuf[i] = 0;
        if (o->kind == K_GACC || o->kind == K_FOP || o->kind == K_CAS) {
            pl->rbuf[i] = *c;
            *c += (td_span(&o->rt) * s + GUARD + 7) & ~(size_t) 7;
        }
        if (o->kind == K_CAS) {
            pl->cbuf[i] = *c;
            *c += 8 + GUARD;
        }
    }
    pl->arena_bytes = cur[pl->me] + 8;
    pl->init_arena = malloc(pl->arena_bytes);
    memset(pl->init_arena, SENT, pl->arena_bytes);
    for (int i = 0; i < p->nops; i++) {
        const op_t *o = &p->ops[i];
        if (o->origin != pl->me || !k_sends(o->kind))
            continue;
        int off[2 * MAXN + 64], n = td_offsets(&o->ot, off), s = bsz[o->basic];
        for (int e = 0; e < n; e++)
            st(pl->init_arena + pl->obuf[i] + (size_t) off[e] * s, o->basic, op_value(o, e));
        if (o->kind == K_CAS)
            st(pl->init_arena + pl->cbuf[i], o->basic, o->cmp);
    }
    pl->exp_arena = malloc(pl->arena_bytes);
    memcpy(pl->exp_arena, pl->init_arena, pl->arena_bytes);
}

static const int tag_pool[] = { 0, 1, 7, 4096, MPI_NOTIFY_TAG_UB };
#define NTAGPOOL 5
/* wildcard-source group tags: never in tag_pool, so no other request matches them */
static const int group_tag[2] = { 100, MPI_NOTIFY_TAG_UB - 1 };

static int notif_bytes(const op_t * o)
{
    return o->n * bsz[o->basic];
}

/* A request that takes the notifications ids[0..n) (several origins, each in
 * issue order).  The last one matched sets the status: with one origin that
 * is ids[n-1]; with several it is the last of one of them, depending on
 * arrival order, so only the fields those candidates agree on are checked. */
static void add_request(plan_t * pl, int phi, int t, const prog_t * p, int src, int tag,
                        const int *ids, int n)
{
    nreq_t q;
    memset(&q, 0, sizeof q);
    q.src = src;
    q.tag = tag;
    q.count = n;
    q.csrc = q.ctag = q.cbytes = 1;
    int first = 1;
    for (int i = 0; i < n; i++) {
        const op_t *o = &p->ops[ids[i]];
        int last_of_origin = i == n - 1 || p->ops[ids[i + 1]].origin != o->origin;
        if (!last_of_origin)
            continue;
        if (first) {
            q.esrc = o->origin;
            q.etag = pl->tag[o->id];
            q.ebytes = notif_bytes(o);
            first = 0;
        } else {
            q.csrc &= q.esrc == o->origin;
            q.ctag &= q.etag == pl->tag[o->id];
            q.cbytes &= q.ebytes == notif_bytes(o);
        }
    }
    PUSH(pl->req[phi][t], pl->nreq[phi][t], pl->capreq[phi][t], q);
}

/* Requests at target t whose notification sets are disjoint, so matching is
 * deterministic whatever the arrival order across origins (section 3 of
 * doc/notified-access.md: earliest-started matching request wins, one origin's
 * notifications arrive in issue order).  Each origin's notifications go
 * either to exact (src, tag) requests, to (src, MPI_ANY_TAG) requests, or to
 * an (MPI_ANY_SOURCE, group tag) request; or all of t's to one
 * (MPI_ANY_SOURCE, MPI_ANY_TAG) request.  A run of one class is split into
 * several requests (counts > 1) at chunk bits; requests of a class start in
 * order, so each takes the next run.  The choices depend on hashes and on
 * bits drawn with each access, so removing accesses keeps the others'. */
static void plan_notify(const prog_t * p, const uint8_t * keep, plan_t * pl, int phi)
{
    const phase_t *ph = &p->ph[phi];
    int *L = malloc(sizeof(int) * (ph->op1 - ph->op0 + 1));
    int *sub = malloc(sizeof(int) * (ph->op1 - ph->op0 + 1));
    for (int t = 0; t < p->P; t++) {
        int nl = 0;
        for (int i = ph->op0; i < ph->op1; i++)
            if (keep[i] && is_tagged(&p->ops[i]) && p->ops[i].target == t)
                L[nl++] = i;
        /* by origin, then issue order (ids follow each origin's stream) */
        for (int a = 1; a < nl; a++)
            for (int b = a; b > 0 && p->ops[L[b - 1]].origin > p->ops[L[b]].origin; b--) {
                int tmp = L[b];
                L[b] = L[b - 1];
                L[b - 1] = tmp;
            }
        if (!nl)
            continue;
        pl->nnotify += nl;
        uint64_t h = hash4(p->seed, (uint64_t) p->index, (uint64_t) (phi * 64 + t), 0x707);
        if (h % 6 == 0) {
            for (int i = 0; i < nl; i++)
                pl->tag[L[i]] = tag_pool[p->ops[L[i]].nr % NTAGPOOL];
            add_request(pl, phi, t, p, MPI_ANY_SOURCE, MPI_ANY_TAG, L, nl);
            continue;
        }
        int mode[MAXP];
        for (int o = 0; o < p->P; o++)
            mode[o] = (int) (hash4(p->seed, (uint64_t) p->index, (uint64_t) (phi * 64 + t),
                                   0x808 + (uint64_t) o) % 4);
        for (int i = 0; i < nl; i++) {
            const op_t *o = &p->ops[L[i]];
            switch (mode[o->origin]) {
                case 0:
                case 1:        /* exact: a small pool, so tags repeat */
                    pl->tag[o->id] = tag_pool[o->nr % 3 == 2 ? NTAGPOOL - 1 : o->nr % 3];
                    break;
                case 2:
                    pl->tag[o->id] = tag_pool[o->nr % NTAGPOOL];
                    break;
                case 3:
                    pl->tag[o->id] = group_tag[(o->nr >> 9) & 1];
                    break;
            }
        }
        for (int o = 0; o < p->P; o++) {
            if (mode[o] == 3)
                continue;
            /* exact: one class per tag, in order of first use; any-tag: one class */
            int done[MAXP * 64], ndone = 0;
            for (int i = 0; i < nl; i++) {
                const op_t *a = &p->ops[L[i]];
                if (a->origin != o)
                    continue;
                int tg = mode[o] == 2 ? MPI_ANY_TAG : pl->tag[a->id], seen = 0;
                for (int d = 0; d < ndone; d++)
                    seen |= done[d] == tg;
                if (seen)
                    continue;
                done[ndone++] = tg;
                int ns = 0;
                for (int j = i; j < nl; j++) {
                    const op_t *b = &p->ops[L[j]];
                    if (b->origin == o && (tg == MPI_ANY_TAG || pl->tag[b->id] == tg))
                        sub[ns++] = b->id;
                }
                for (int j = 0, c0 = 0; j < ns; j++)
                    if (j == ns - 1 || ((p->ops[sub[j]].nr >> 8) & 1)) {
                        add_request(pl, phi, t, p, o, tg, sub + c0, j + 1 - c0);
                        c0 = j + 1;
                    }
            }
        }
        for (int gi = 0; gi < 2; gi++) {
            int ns = 0;
            for (int i = 0; i < nl; i++)
                if (mode[p->ops[L[i]].origin] == 3 && pl->tag[L[i]] == group_tag[gi])
                    sub[ns++] = L[i];
            if (ns)
                add_request(pl, phi, t, p, MPI_ANY_SOURCE, group_tag[gi], sub, ns);
        }
    }
    free(L);
    free(sub);
}

static void plan_free(plan_t * pl)
{
    free(pl->tag);
    free(pl->obuf);
    free(pl->rbuf);
    free(pl->cbuf);
    free(pl->init_arena);
    free(pl->exp_arena);
    free(pl->init_win);
    for (int i = 0; i < MAXPH; i++) {
        for (int k = 0; k < MAXEP; k++) {
            free(pl->snap[i][k]);
            free(pl->snap_lw[i][k]);
        }
        for (int r = 0; r < MAXP; r++) {
            free(pl->req[i][r]);
            free(pl->pchk[i][r]);
            free(pl->scr[i][r]);
        }
    }
    memset(pl, 0, sizeof *pl);
}

/* Another origin's sum to this slot in o's interval (the only access another
 * origin may make concurrently with a sum, section 3): the slot's value when
 * o is notified is not known. */
static int concurrent_sum(const prog_t * p, const uint8_t * keep, const op_t * o, int slot)
{
    const phase_t *ph = &p->ph[o->phase];
    for (int i = ph->op0; i < ph->op1; i++) {
        const op_t *q = &p->ops[i];
        if (!keep[i] || q->origin == o->origin || q->target != o->target ||
            q->epoch != o->epoch || xclass(q) != xclass(o))
            continue;
        int slots[2 * MAXN], ns = op_slots(p, q, slots);
        for (int j = 0; j < ns; j++)
            if (slots[j] == slot)
                return 1;
    }
    return 0;
}

/* The sequential model: ops in id order (= epoch, origin, issue order),
 * which the conflict rules make equivalent to any real interleaving. */
static void plan_build(const prog_t * p, const uint8_t * keep, int me, plan_t * pl)
{
    int P = p->P, nb = p->nslots * 4;
    memset(pl, 0, sizeof *pl);
    pl->me = me;
    pl->tag = calloc(p->nops + 1, sizeof(int));
    pl->obuf = calloc(p->nops + 1, sizeof(size_t));
    pl->rbuf = calloc(p->nops + 1, sizeof(size_t));
    pl->cbuf = calloc(p->nops + 1, sizeof(size_t));
    plan_arena(p, pl);
    unsigned char *win[MAXP] = { 0 };
    int *lw_all[MAXP] = { 0 }, *lw[MAXP] = { 0 }, *touch[MAXP] = { 0 };
    for (int r = 0; r < P; r++) {
        win[r] = malloc(nb);
        win_init_image(p, r, win[r]);
        lw_all[r] = malloc(p->nslots * sizeof(int));
        lw[r] = malloc(p->nslots * sizeof(int));
        touch[r] = malloc(p->nslots * sizeof(int));
        for (int s = 0; s < p->nslots; s++)
            lw_all[r][s] = -1;
    }
    pl->init_win = malloc(nb);
    memcpy(pl->init_win, win[me], nb);
    long long ctr[MAXP][MAXCTR];
    memset(ctr, 0, sizeof ctr);

    for (int phi = 0; phi < p->nph; phi++) {
        const phase_t *ph = &p->ph[phi];
        for (int i = ph->op0; i < ph->op1; i++)
            pl->live[phi] += keep[i];
        if (!pl->live[phi])
            continue;           /* not executed at all (nor its resets) */
        if (ph->reattach)
            memset(ctr, 0, sizeof ctr);
        for (int r = 0; r < P; r++)
            for (int c = 0; c < p->nctr; c++)
                if (ph->cset[r][c] >= 0)
                    ctr[r][c] = ph->cset[r][c];
        memcpy(pl->cbase[phi], ctr, sizeof ctr);
        for (int r = 0; r < P; r++)
            for (int s = 0; s < p->nslots; s++) {
                lw[r][s] = -1;
                touch[r][s] = 0;
            }
        for (int k = 0; k < ph->nep; k++) {
            for (int i = ph->op0; i < ph->op1; i++) {
                const op_t *o = &p->ops[i];
                if (!keep[i] || o->epoch != k)
                    continue;
                model_apply(p, o, win[o->target], o->origin == me ? pl->exp_arena : NULL,
                            pl->obuf[i], pl->rbuf[i]);
                if (is_counted(o)) {
                    ctr[o->target][o->cidx]++;
                    pl->cops[phi][o->target][o->cidx]++;
                    pl->ncounted++;
                }
                int slots[2 * MAXN], ns = op_slots(p, o, slots);
                int writes = !k_getlike(o->kind) &&
                    !((o->kind == K_GACC || o->kind == K_FOP) && o->op == OP_NOOP);
                for (int j = 0; j < ns; j++) {
                    touch[o->target][slots[j]]++;
                    if (writes)
                        lw[o->target][slots[j]] = lw_all[o->target][slots[j]] = i;
                }
                if (ph->kind == PH_PSCW) {
                    pl->access[phi][o->origin] |= 1u << o->target;
                    pl->expose[phi][o->target] |= 1u << o->origin;
                }
            }
            memcpy(pl->cexp[phi][k], ctr, sizeof ctr);
            if (k < ph->nep - 1) {
                pl->snap[phi][k] = malloc(nb);
                memcpy(pl->snap[phi][k], win[me], nb);
                pl->snap_lw[phi][k] = malloc(p->nslots * sizeof(int));
                memcpy(pl->snap_lw[phi][k], lw_all[me], p->nslots * sizeof(int));
            }
        }
        if (ph->kind == PH_PSCW)
            for (int o = 0; o < P; o++)
                for (int t = 0; t < P; t++)
                    if (ph->pscw_extra[o] & (1u << t)) {
                        pl->access[phi][o] |= 1u << t;
                        pl->expose[phi][t] |= 1u << o;
                    }
        plan_notify(p, keep, pl, phi);
        for (int t = 0; t < P; t++) {
            int last[MAXP];
            for (int o = 0; o < P; o++)
                last[o] = -1;
            for (int i = ph->op0; i < ph->op1; i++)
                if (keep[i] && is_tagged(&p->ops[i]) && p->ops[i].target == t)
                    last[p->ops[i].origin] = i;
            memcpy(pl->clb[phi][t], pl->cbase[phi][t], sizeof pl->clb[phi][t]);
            for (int i = ph->op0; i < ph->op1; i++) {
                const op_t *o = &p->ops[i];
                if (keep[i] && is_counted(o) && o->target == t && i < last[o->origin])
                    pl->clb[phi][t][o->cidx]++;
            }
        }
        /* After its notification (request completed, or counter reached the
         * phase's total), what a put or accumulate wrote must be in the
         * target: checked there for the elements no later access overwrites
         * (and, for a sum, no other origin's sum may still add to: the only
         * access another origin may make concurrently).  What a get or a
         * fetching accumulate read may be overwritten by the target once it
         * is notified: done for those whose elements nothing else touches in
         * the phase. */
        for (int i = ph->op0; i < ph->op1; i++) {
            const op_t *o = &p->ops[i];
            if (!keep[i] || o->nt == NT_NONE || o->n == 0)
                continue;
            int slots[2 * MAXN], per = bsz[o->basic] / 4;
            int off[2 * MAXN + 64];
            op_slots(p, o, slots);
            td_offsets(&o->tt, off);
            int sole = 1, sum = xclass(o) == XM_SUMI || xclass(o) == XM_SUML;
            for (int e = 0; e < o->n; e++) {
                int last = 1;
                for (int j = 0; j < per; j++) {
                    last &= lw[o->target][slots[e * per + j]] == i;
                    last &= !sum || !concurrent_sum(p, keep, o, slots[e * per + j]);
                    sole &= touch[o->target][slots[e * per + j]] == 1;
                }
                uint32_t b = (uint32_t) (o->disp * p->du + (long) off[e] * bsz[o->basic]);
                wchk_t w = { b, o->basic, i, ld(win[o->target] + b, o->basic) };
                if (last)
                    PUSH(pl->pchk[phi][o->target], pl->npchk[phi][o->target],
                         pl->cappchk[phi][o->target], w);
            }
            if (k_fetches(o->kind) && sole)
                for (int e = 0; e < o->n; e++) {
                    wchk_t w = { (uint32_t) (o->disp * p->du + (long) off[e] * bsz[o->basic]),
                        o->basic, i, scribble_value(o, e)
                    };
                    st(win[o->target] + w.off, w.basic, w.val);
                    for (int j = 0; j < per; j++)
                        lw_all[o->target][w.off / 4 + j] = -2;
                    PUSH(pl->scr[phi][o->target], pl->nscr[phi][o->target],
                         pl->capscr[phi][o->target], w);
                }
        }
        pl->snap[phi][ph->nep - 1] = malloc(nb);
        memcpy(pl->snap[phi][ph->nep - 1], win[me], nb);
        pl->snap_lw[phi][ph->nep - 1] = malloc(p->nslots * sizeof(int));
        memcpy(pl->snap_lw[phi][ph->nep - 1], lw_all[me], p->nslots * sizeof(int));
    }
    for (int r = 0; r < P; r++) {
        free(win[r]);
        free(lw_all[r]);
        free(lw[r]);
        free(touch[r]);
    }
}

/* ============================================ 6. executor and checker */
typedef struct {
    const prog_t *p;
    const uint8_t *keep;
    const plan_t *pl;
    int me, quiet, errs, shown;
    int phase;
    MPI_Win win;
    unsigned char *base, *arena;
    MPI_Datatype *tt, *ot, *rt;
    int *out[MAXP], nout[MAXP], capout[MAXP];   /* issued, not yet complete, per target */
    MPI_Request *rq;            /* [op] request-based accesses: their request until completed */
    MPI_Group wgroup;
} exec_t;

/* A hang (a notification that never comes, a flush that never returns) or
 * a crash is a failure too: say which program it was before leaving.  The
 * handlers only write(2) a message prepared beforehand and the current
 * access id. */
static char sig_ctx[256];       /* "[rank R] seed S program I phase P" */
static volatile int sig_op = -1;        /* access being issued */
static volatile int sig_ctr = -1;       /* counter being waited for */
static int wd_seconds = 60;

static void sig_handler(int sig)
{
    sig_write(sig_ctx);
    if (sig == SIGALRM) {
        sig_write(": no progress for ");
        sig_int(wd_seconds);
        sig_write(" s (hang?)");
    } else {
        sig_write(": crashed with signal ");
        sig_int(sig);
    }
    if (sig_op >= 0) {
        sig_write(" in access #");
        sig_int(sig_op);
    }
    if (sig_ctr >= 0) {
        sig_write(" while waiting for counter ");
        sig_int(sig_ctr);
    }
    sig_write("\n");
    if (sig == SIGALRM)
        _exit(3);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void set_sig_ctx(const prog_t * p, int me, int phi)
{
    snprintf(sig_ctx, sizeof sig_ctx, "[rank %d] seed %llu program %ld phase %d (rerun: rma_fuzz "
             "-seed %llu -start %ld -n 1 -v)", me, (unsigned long long) p->seed, p->index, phi,
             (unsigned long long) p->seed, p->index);
}

static void report(exec_t * x, const char *fmt, ...)
{
    x->errs++;
    if (x->quiet || x->shown >= 10)
        return;
    x->shown++;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[rank %d] seed %llu program %ld phase %d: %s\n", x->me,
            (unsigned long long) x->p->seed, x->p->index, x->phase, buf);
    fflush(stderr);
}

/* an MPI error means an incorrect program (a checker bug) or a library bug:
 * either way nothing after it can be trusted */
#define CALL(x, call)                                                           \
    do {                                                                        \
        int rc_ = (call);                                                       \
        if (rc_ != MPI_SUCCESS)                                                 \
            mpi_fail((x), #call, rc_, __LINE__);                                \
    } while (0)

static void mpi_fail(exec_t * x, const char *what, int rc, int line)
{
    char s[MPI_MAX_ERROR_STRING];
    int l;
    MPI_Error_string(rc, s, &l);
    fprintf(stderr, "[rank %d] seed %llu program %ld phase %d: line %d: %s failed: %s\n"
            "  (rerun: rma_fuzz -seed %llu -start %ld -n 1 -v)\n", x->me,
            (unsigned long long) x->p->seed, x->p->index, x->phase, line, what, s,
            (unsigned long long) x->p->seed, x->p->index);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* which kept access (or the initial contents) put this 32-bit value into a
 * slot: tells a stale value from garbage in a mismatch report */
static void who_wrote(const exec_t * x, int slot, uint32_t got, char *buf, size_t len)
{
    const prog_t *p = x->p;
    uint32_t init;
    memcpy(&init, x->pl->init_win + 4 * slot, 4);
    snprintf(buf, len, "%s", got == init ? " (= the initial value)" :
             got == USED * 0x01010101u ? " (= the bytes an origin buffer is overwritten with once "
             "complete: read after its flush or request completion)" : "");
    for (int i = p->nops - 1; i >= 0; i--) {
        const op_t *o = &p->ops[i];
        if (!x->keep[i] || o->target != x->me || !k_sends(o->kind) || o->kind == K_ACC)
            continue;
        int slots[2 * MAXN], ns = op_slots(p, o, slots), per = bsz[o->basic] / 4;
        for (int j = 0; j < ns; j++) {
            if (slots[j] != slot)
                continue;
            uint64_t v = op_value(o, j / per);
            uint32_t part = (uint32_t) (v >> (32 * (j % per)));
            if (part == got) {
                snprintf(buf, len, " (= the value written by #%d %s)", i, oname(o));
                return;
            }
        }
    }
}

static void check_window(exec_t * x, const unsigned char *exp, const int *lw, const char *when)
{
    int nbad = 0;
    for (int s = 0; s < x->p->nslots; s++) {
        if (!memcmp(x->base + 4 * s, exp + 4 * s, 4))
            continue;
        uint32_t e, g;
        memcpy(&e, exp + 4 * s, 4);
        memcpy(&g, x->base + 4 * s, 4);
        char from[80], who[160];
        if (lw[s] >= 0)
            snprintf(from, sizeof from, "last written by #%d %s", lw[s], oname(&x->p->ops[lw[s]]));
        else
            snprintf(from, sizeof from, "%s", lw[s] == -1 ? "initial value" : "overwritten by the target after a notified access read it");
        who_wrote(x, s, g, who, sizeof who);
        if (nbad++ < 4)
            report(x, "window of rank %d %s: byte %d: expected %u (%s), got %u%s", x->me, when,
                   4 * s, e, from, g, who);
        else
            x->errs++;
    }
}

static void complete_op(exec_t * x, int id)
{
    const op_t *o = &x->p->ops[id];
    const plan_t *pl = x->pl;
    int s = bsz[o->basic];
    if (k_fetches(o->kind)) {
        int res_is_origin = k_getlike(o->kind);
        const tdesc_t *t = res_is_origin ? &o->ot : &o->rt;
        size_t off = res_is_origin ? pl->obuf[id] : pl->rbuf[id];
        size_t len = (size_t) td_span(t) * s + GUARD;
        if (memcmp(x->arena + off, pl->exp_arena + off, len)) {
            int eo[2 * MAXN + 64], n = td_offsets(t, eo), shown = 0;
            for (int e = 0; e < n; e++) {
                uint64_t want = ld(pl->exp_arena + off + (size_t) eo[e] * s, o->basic);
                uint64_t got = ld(x->arena + off + (size_t) eo[e] * s, o->basic);
                if (want != got && shown++ < 3)
                    report(x, "#%d %s r%d->r%d disp %ld: result element %d of %d: expected %llu, got %llu",
                           id, oname(o), o->origin, o->target, o->disp, e, n,
                           (unsigned long long) want, (unsigned long long) got);
            }
            if (!shown)
                report(x, "#%d %s: bytes of the result buffer outside the datatype were written",
                       id, oname(o));
        }
    }
    if (k_sends(o->kind)) {
        /* the buffer may be reused once locally complete: reuse it, so a
         * transfer that still reads it delivers garbage */
        memset(x->arena + pl->obuf[id], USED, (size_t) td_span(&o->ot) * s);
        if (o->kind == K_CAS)
            memset(x->arena + pl->cbuf[id], USED, 8);
    }
}

/* A request-based access whose request has just completed: what it fetched
 * must be in its result buffer now, and its origin buffer may be reused at
 * once (complete_op overwrites it: the target must still get the data).
 * It leaves the list a flush would complete. */
static void request_done(exec_t * x, int id)
{
    int t = x->p->ops[id].target, m = 0;
    x->rq[id] = MPI_REQUEST_NULL;
    complete_op(x, id);
    for (int k = 0; k < x->nout[t]; k++)
        if (x->out[t][k] != id)
            x->out[t][m++] = x->out[t][k];
    x->nout[t] = m;
}

/* The requests of the kept accesses of an I_RWAIT item, completed with the
 * item's call; each is checked as soon as that call says it is complete
 * (request_done), before any flush.  An access a flush completed earlier is
 * checked again: nothing may have changed since. */
static void complete_requests(exec_t * x, const item_t * it)
{
    int ids[MAXRW], n = 0, flag, left;
    MPI_Request r[MAXRW];
    MPI_Status sts[MAXRW];      /* (gcc warns of MPI_STATUSES_IGNORE's size) */
    for (int i = 0; i < it->nrops; i++)
        if (x->keep[it->rops[i]]) {
            ids[n] = it->rops[i];
            r[n++] = x->rq[it->rops[i]];
        }
    if (!n)
        return;
    sig_op = ids[0];
    switch (it->arg) {
        case RW_WAIT:
        case RW_TEST:
            for (int i = 0; i < n; i++) {
                sig_op = ids[i];
                if (it->arg == RW_WAIT)
                    CALL(x, MPI_Wait(&r[i], MPI_STATUS_IGNORE));
                else
                    do
                        CALL(x, MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE));
                    while (!flag);
                request_done(x, ids[i]);
            }
            break;
        case RW_WAITALL:
        case RW_TESTALL:
            if (it->arg == RW_WAITALL)
                CALL(x, MPI_Waitall(n, r, sts));
            else
                do
                    CALL(x, MPI_Testall(n, r, &flag, sts));
                while (!flag);
            for (int i = 0; i < n; i++)
                request_done(x, ids[i]);
            break;
        default:               /* RW_WAITANY, RW_WAITSOME */
            for (left = n; left > 0;) {
                int outc = 0, got[MAXRW], idx;
                if (it->arg == RW_WAITANY) {
                    CALL(x, MPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE));
                    if (idx != MPI_UNDEFINED)
                        got[outc++] = idx;
                } else {
                    CALL(x, MPI_Waitsome(n, r, &outc, got, sts));
                    if (outc == MPI_UNDEFINED)
                        outc = 0;
                }
                if (outc <= 0) {
                    report(x, "%s returned no request while %d of %d were pending",
                           rwname[it->arg], left, n);
                    break;
                }
                for (int j = 0; j < outc; j++)
                    request_done(x, ids[got[j]]);
                left -= outc;
            }
    }
    sig_op = -1;
    for (int i = 0; i < n; i++)
        if (r[i] != MPI_REQUEST_NULL)
            report(x, "#%d %s: the request is not MPI_REQUEST_NULL after %s", ids[i],
                   oname(&x->p->ops[ids[i]]), rwname[it->arg]);
}

static void complete_target(exec_t * x, int t)
{
    for (int i = 0; i < x->nout[t]; i++)
        complete_op(x, x->out[t][i]);
    x->nout[t] = 0;
}

static void complete_all(exec_t * x)
{
    for (int t = 0; t < x->p->P; t++)
        complete_target(x, t);
}

static void issue(exec_t * x, int id)
{
    const op_t *o = &x->p->ops[id];
    const plan_t *pl = x->pl;
    unsigned char *ob = x->arena + pl->obuf[id], *rb = x->arena + pl->rbuf[id];
    int t = o->target, tc = o->tt.count, oc = o->ot.count, rc = o->rt.count;
    MPI_Datatype tt = x->tt[id], ot = x->ot[id], rt = x->rt[id];
    MPI_Datatype bt = bmpi(o->basic);
    MPI_Op op = mpiop(o->op);
    void *cb = x->arena + pl->cbuf[id];
    int tag = pl->tag[id], idx = o->cidx;
    sig_op = id;
#define KN(k, nt) ((k) * NNT + (nt))
    if (o->req) {
        MPI_Request *rq = &x->rq[id];
        switch (KN(o->kind, o->nt)) {
            case KN(K_PUT, NT_NONE):
                CALL(x, MPI_Rput(ob, oc, ot, t, o->disp, tc, tt, x->win, rq));
                break;
            case KN(K_GET, NT_NONE):
                CALL(x, MPI_Rget(ob, oc, ot, t, o->disp, tc, tt, x->win, rq));
                break;
            case KN(K_ACC, NT_NONE):
                CALL(x, MPI_Raccumulate(ob, oc, ot, t, o->disp, tc, tt, op, x->win, rq));
                break;
            case KN(K_GACC, NT_NONE):
                CALL(x, MPI_Rget_accumulate(ob, oc, ot, rb, rc, rt, t, o->disp, tc, tt, op,
                                            x->win, rq));
                break;
            case KN(K_PUT, NT_TAG):
                CALL(x, MPI_Rput_notify(ob, oc, ot, t, o->disp, tc, tt, x->win, tag, rq));
                break;
            case KN(K_GET, NT_TAG):
                CALL(x, MPI_Rget_notify(ob, oc, ot, t, o->disp, tc, tt, x->win, tag, rq));
                break;
            case KN(K_ACC, NT_TAG):
                CALL(x, MPI_Raccumulate_notify(ob, oc, ot, t, o->disp, tc, tt, op, x->win, tag,
                                               rq));
                break;
            case KN(K_GACC, NT_TAG):
                CALL(x, MPI_Rget_accumulate_notify(ob, oc, ot, rb, rc, rt, t, o->disp, tc, tt,
                                                   op, x->win, tag, rq));
                break;
            case KN(K_PUT, NT_CTR):
                CALL(x, MPIX_Rput_notify(ob, oc, ot, t, o->disp, tc, tt, idx, x->win, rq));
                break;
            case KN(K_GET, NT_CTR):
                CALL(x, MPIX_Rget_notify(ob, oc, ot, t, o->disp, tc, tt, idx, x->win, rq));
                break;
            case KN(K_ACC, NT_CTR):
                CALL(x, MPIX_Raccumulate_notify(ob, oc, ot, t, o->disp, tc, tt, op, idx, x->win,
                                                rq));
                break;
            case KN(K_GACC, NT_CTR):
                CALL(x, MPIX_Rget_accumulate_notify(ob, oc, ot, rb, rc, rt, t, o->disp, tc, tt,
                                                    op, idx, x->win, rq));
                break;
            default:
                fprintf(stderr, "rma_fuzz: no request-based call for %s with notification %d\n",
                        kname[o->kind][0], o->nt);
                abort();
        }
        if (*rq == MPI_REQUEST_NULL)
            report(x, "#%d %s returned MPI_REQUEST_NULL", id, oname(o));
        sig_op = -1;
        PUSH(x->out[t], x->nout[t], x->capout[t], id);
        return;
    }
    switch (KN(o->kind, o->nt)) {
        case KN(K_PUT, NT_NONE):
            CALL(x, MPI_Put(ob, oc, ot, t, o->disp, tc, tt, x->win));
            break;
        case KN(K_GET, NT_NONE):
            CALL(x, MPI_Get(ob, oc, ot, t, o->disp, tc, tt, x->win));
            break;
        case KN(K_ACC, NT_NONE):
            CALL(x, MPI_Accumulate(ob, oc, ot, t, o->disp, tc, tt, op, x->win));
            break;
        case KN(K_GACC, NT_NONE):
            CALL(x, MPI_Get_accumulate(ob, oc, ot, rb, rc, rt, t, o->disp, tc, tt, op, x->win));
            break;
        case KN(K_FOP, NT_NONE):
            CALL(x, MPI_Fetch_and_op(ob, rb, bt, t, o->disp, op, x->win));
            break;
        case KN(K_CAS, NT_NONE):
            CALL(x, MPI_Compare_and_swap(ob, cb, rb, bt, t, o->disp, x->win));
            break;
        case KN(K_PUT, NT_TAG):
            CALL(x, MPI_Put_notify(ob, oc, ot, t, o->disp, tc, tt, x->win, tag));
            break;
        case KN(K_GET, NT_TAG):
            CALL(x, MPI_Get_notify(ob, oc, ot, t, o->disp, tc, tt, x->win, tag));
            break;
        case KN(K_ACC, NT_TAG):
            CALL(x, MPI_Accumulate_notify(ob, oc, ot, t, o->disp, tc, tt, op, x->win, tag));
            break;
        case KN(K_GACC, NT_TAG):
            CALL(x, MPI_Get_accumulate_notify(ob, oc, ot, rb, rc, rt, t, o->disp, tc, tt, op,
                                              x->win, tag));
            break;
        case KN(K_FOP, NT_TAG):
            CALL(x, MPI_Fetch_and_op_notify(ob, rb, bt, t, o->disp, op, x->win, tag));
            break;
        case KN(K_CAS, NT_TAG):
            CALL(x, MPI_Compare_and_swap_notify(ob, cb, rb, bt, t, o->disp, x->win, tag));
            break;
        case KN(K_PUT, NT_CTR):
            CALL(x, MPIX_Put_notify(ob, oc, ot, t, o->disp, tc, tt, idx, x->win));
            break;
        case KN(K_GET, NT_CTR):
            CALL(x, MPIX_Get_notify(ob, oc, ot, t, o->disp, tc, tt, idx, x->win));
            break;
        case KN(K_ACC, NT_CTR):
            CALL(x, MPIX_Accumulate_notify(ob, oc, ot, t, o->disp, tc, tt, op, idx, x->win));
            break;
        case KN(K_GACC, NT_CTR):
            CALL(x, MPIX_Get_accumulate_notify(ob, oc, ot, rb, rc, rt, t, o->disp, tc, tt, op,
                                               idx, x->win));
            break;
        default:
            fprintf(stderr, "rma_fuzz: no call for %s with notification %d\n", kname[o->kind][0],
                    o->nt);
            abort();
    }
#undef KN
    sig_op = -1;
    PUSH(x->out[t], x->nout[t], x->capout[t], id);
}

static MPI_Datatype make_type(const tdesc_t * t, int basic)
{
    MPI_Datatype d;
    if (t->shape == SH_CONTIG)
        return bmpi(basic);
    if (t->shape == SH_VECTOR)
        MPI_Type_vector(t->nblk, t->blen, t->stride, bmpi(basic), &d);
    else
        MPI_Type_indexed(t->nblk, t->blens, t->displs, bmpi(basic), &d);
    MPI_Type_commit(&d);
    return d;
}

static void free_type(MPI_Datatype * d)
{
    if (*d != MPI_INT && *d != MPI_LONG && *d != MPI_DATATYPE_NULL)
        MPI_Type_free(d);
}

static MPI_Group group_of(exec_t * x, unsigned mask)
{
    int ranks[MAXP], n = 0;
    MPI_Group g;
    for (int r = 0; r < x->p->P; r++)
        if (mask & (1u << r))
            ranks[n++] = r;
    MPI_Group_incl(x->wgroup, n, ranks, &g);
    return g;
}

static void start_requests(exec_t * x, int all, MPI_Request * reqs, int n)
{
    if (!n)
        return;
    if (all)
        CALL(x, MPI_Startall(n, reqs));
    else
        for (int i = 0; i < n; i++)
            CALL(x, MPI_Start(&reqs[i]));
}

/* What a notification promises the target (counted: the counters reached the
 * phase's totals; tagged: the requests completed).  The contract: a notified
 * put's data is visible to the target's loads once notified, with no other
 * synchronisation; a notified get has read its data, so the target may
 * overwrite it (the origin must still get the old value). */
static void after_notification(exec_t * x, int phi, int counted)
{
    const plan_t *pl = x->pl;
    const wchk_t *c = pl->pchk[phi][x->me];
    for (int i = 0; i < pl->npchk[phi][x->me]; i++) {
        const op_t *o = &x->p->ops[c[i].op];
        if (is_counted(o) != counted)
            continue;
        uint64_t got = ld(x->base + c[i].off, c[i].basic);
        if (got != c[i].val) {
            char why[64];
            if (counted)
                snprintf(why, sizeof why, "counter %d reached %lld", o->cidx,
                         pl->cexp[phi][x->p->ph[phi].nep - 1][x->me][o->cidx]);
            else
                snprintf(why, sizeof why, "its notification");
            report(x, "after %s, #%d %s's data is not in the window: byte %u expected %llu, "
                   "got %llu", why, c[i].op, oname(o), c[i].off,
                   (unsigned long long) c[i].val, (unsigned long long) got);
        }
    }
    const wchk_t *w = pl->scr[phi][x->me];
    for (int i = 0; i < pl->nscr[phi][x->me]; i++)
        if (is_counted(&x->p->ops[w[i].op]) == counted)
            st(x->base + w[i].off, w[i].basic, w[i].val);
}

/* every counter of this rank where all counted accesses so far are complete */
static void check_counters(exec_t * x, int phi, int k, const char *when)
{
    const plan_t *pl = x->pl;
    const prog_t *p = x->p;
    for (int c = 0; c < p->nctr; c++) {
        MPI_Count v = -1;
        long long want = pl->cexp[phi][k][x->me][c];
        CALL(x, MPIX_Win_get_notify(x->win, c, &v));
        if (v == want)
            continue;
        char ids[160] = "";
        int len = 0, n = 0;
        for (int i = p->ph[phi].op0; i < p->ph[phi].op1; i++) {
            const op_t *o = &p->ops[i];
            if (x->keep[i] && is_counted(o) && o->target == x->me && o->cidx == c &&
                o->epoch <= k && n++ < 8 && len < (int) sizeof ids - 16)
                len += snprintf(ids + len, sizeof ids - len, " #%d", i);
        }
        report(x, "counter %d of rank %d %s: expected %lld (%lld before the phase + %d counted "
               "access(es)%s%s%s), got %lld", c, x->me, when, want, pl->cbase[phi][x->me][c],
               n, n ? ":" : "", ids, n > 8 ? " ..." : "", (long long) v);
    }
}

/* wait for this phase's notification requests at this rank, then check what
 * a completed request promises */
static void wait_requests(exec_t * x, int phi, MPI_Request * reqs, int n)
{
    const plan_t *pl = x->pl;
    const nreq_t *rq = pl->req[phi][x->me];
    MPI_Status *sts = calloc(n ? n : 1, sizeof(MPI_Status));
    int flag;
    if (n) {
        switch (x->p->ph[phi].wait_how[x->me]) {
            case 0:
                CALL(x, MPI_Waitall(n, reqs, sts));
                break;
            case 1:
                for (int i = 0; i < n; i++)
                    CALL(x, MPI_Wait(&reqs[i], &sts[i]));
                break;
            case 2:
                do
                    CALL(x, MPI_Testall(n, reqs, &flag, sts));
                while (!flag);
                break;
            default:
                for (int i = 0; i < n; i++)
                    do
                        CALL(x, MPI_Test(&reqs[i], &flag, &sts[i]));
                    while (!flag);
        }
    }
    for (int i = 0; i < n; i++) {
        int bytes = -1;
        MPI_Get_count(&sts[i], MPI_BYTE, &bytes);
        if ((rq[i].csrc && sts[i].MPI_SOURCE != rq[i].esrc) ||
            (rq[i].ctag && sts[i].MPI_TAG != rq[i].etag) || (rq[i].cbytes && bytes != rq[i].ebytes))
            report(x, "notify request %d (src %d, tag %d, count %d): status source %d tag %d "
                   "bytes %d, expected source %d%s tag %d%s bytes %d%s", i, rq[i].src, rq[i].tag,
                   rq[i].count, sts[i].MPI_SOURCE, sts[i].MPI_TAG, bytes, rq[i].esrc,
                   rq[i].csrc ? "" : "(any)", rq[i].etag, rq[i].ctag ? "" : "(any)",
                   rq[i].ebytes, rq[i].cbytes ? "" : "(any)");
    }
    free(sts);
    after_notification(x, phi, 0);
    /* one origin's notifications arrive in issue order, counted or tagged:
     * its counted accesses issued before its last tagged one have counted */
    for (int c = 0; c < x->p->nctr; c++) {
        MPI_Count v = -1;
        if (pl->clb[phi][x->me][c] == pl->cbase[phi][x->me][c])
            continue;
        CALL(x, MPIX_Win_get_notify(x->win, c, &v));
        if (v < pl->clb[phi][x->me][c])
            report(x, "notify requests complete, but counter %d is %lld: the %lld counted "
                   "access(es) issued before their origin's last notified one must have counted "
                   "(expected >= %lld)", c, (long long) v,
                   pl->clb[phi][x->me][c] - pl->cbase[phi][x->me][c], pl->clb[phi][x->me][c]);
    }
}

/* wait for this phase's counted accesses at this rank: MPIX_Win_get_notify
 * alone, until each counter they hit reaches the phase's total */
static void wait_counters(exec_t * x, int phi)
{
    const plan_t *pl = x->pl;
    const int me = x->me, last = x->p->ph[phi].nep - 1;
    for (int c = 0; c < x->p->nctr; c++) {
        if (!pl->cops[phi][me][c])
            continue;
        MPI_Count v = -1, want = pl->cexp[phi][last][me][c];
        sig_ctr = c;
        do
            CALL(x, MPIX_Win_get_notify(x->win, c, &v));
        while (v < want);
        sig_ctr = -1;
    }
    after_notification(x, phi, 1);
}

static void spin_us(int us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* The shrinker's re-runs hold one rank outside MPI for a while, in turn,
 * either after each phase's opening barrier or before its notification
 * wait: a race the original run lost by chance is then lost every time (see
 * gen_delay).  jitter: -1 none, else rank jitter % P, place jitter / P. */
static int jitter = -1;
#define JITTER_US 1000

static void jitter_str(int j, int P, char *buf, size_t len)
{
    snprintf(buf, len, "rank %d busy outside MPI for %d us %s", j % P, JITTER_US,
             j / P ? "before each notification wait" : "after each phase's opening barrier");
}

static void exec_phase(exec_t * x, int phi)
{
    const prog_t *p = x->p;
    const phase_t *ph = &p->ph[phi];
    const plan_t *pl = x->pl;
    int me = x->me, n = pl->nreq[phi][me], started = 0;
    MPI_Request *reqs = calloc(n ? n : 1, sizeof(MPI_Request));
    MPI_Group acc = MPI_GROUP_NULL, exp = MPI_GROUP_NULL;
    char when[64];

    x->phase = phi;
    set_sig_ctx(p, me, phi);
    for (int i = 0; i < n; i++)
        CALL(x, MPI_Notify_init(x->win, pl->req[phi][me][i].src, pl->req[phi][me][i].tag,
                                pl->req[phi][me][i].count, &reqs[i]));
    if (ph->start_pre[me]) {
        start_requests(x, ph->start_all[me], reqs, n);
        started = 1;
    }
    /* counter resets: the last phase's counted accesses are complete and
     * checked, this phase's start after the barrier */
    if (ph->reattach == 2)
        CALL(x, MPIX_Win_free_notify(x->win));
    if (ph->reattach)
        CALL(x, MPIX_Win_create_notify(x->win, p->nctr));
    for (int c = 0; c < p->nctr; c++)
        if (ph->cset[me][c] >= 0)
            CALL(x, MPIX_Win_set_notify(x->win, c, ph->cset[me][c]));
    MPI_Barrier(MPI_COMM_WORLD);
    if (jitter >= 0 && jitter / p->P == 0 && jitter % p->P == me)
        spin_us(JITTER_US);
    if (ph->kind == PH_PSCW) {
        if (pl->access[phi][me])
            acc = group_of(x, pl->access[phi][me]);
        if (pl->expose[phi][me])
            exp = group_of(x, pl->expose[phi][me]);
    }
    for (int k = 0; k < ph->nit[me]; k++) {
        const item_t *it = &ph->it[me][k];
        if (it->rid >= 0 && !x->keep[p->nops + it->rid])
            continue;
        switch (it->kind) {
            case I_OP:
                if (x->keep[it->op])
                    issue(x, it->op);
                break;
            case I_FLUSH:
                CALL(x, MPI_Win_flush(it->target, x->win));
                complete_target(x, it->target);
                break;
            case I_FLUSH_LOCAL:
                CALL(x, MPI_Win_flush_local(it->target, x->win));
                complete_target(x, it->target);
                break;
            case I_FLUSH_ALL:
                CALL(x, MPI_Win_flush_all(x->win));
                complete_all(x);
                break;
            case I_FLUSH_LOCAL_ALL:
                CALL(x, MPI_Win_flush_local_all(x->win));
                complete_all(x);
                break;
            case I_LOCK:
                CALL(x, MPI_Win_lock(it->arg, it->target, 0, x->win));
                break;
            case I_UNLOCK:
                CALL(x, MPI_Win_unlock(it->target, x->win));
                complete_target(x, it->target);
                break;
            case I_LOCK_ALL:
                CALL(x, MPI_Win_lock_all(0, x->win));
                break;
            case I_UNLOCK_ALL:
                CALL(x, MPI_Win_unlock_all(x->win));
                complete_all(x);
                break;
            case I_FENCE:{
                    int last = it->arg == ph->nep - 1;
                    int a = it->arg < 0 ? MPI_MODE_NOPRECEDE : last ? MPI_MODE_NOSUCCEED : 0;
                    CALL(x, MPI_Win_fence(a, x->win));
                    complete_all(x);
                    if (it->arg >= 0 && !last) {
                        /* between epochs: everything of the last epoch is in
                         * place; the barrier keeps the next epoch's accesses
                         * away until every rank has looked */
                        snprintf(when, sizeof when, "after the fence closing epoch %d", it->arg);
                        check_window(x, pl->snap[phi][it->arg], pl->snap_lw[phi][it->arg], when);
                        check_counters(x, phi, it->arg, when);
                        MPI_Barrier(MPI_COMM_WORLD);
                    }
                    break;
                }
            case I_POST:
                if (exp != MPI_GROUP_NULL)
                    CALL(x, MPI_Win_post(exp, 0, x->win));
                break;
            case I_START:
                if (acc != MPI_GROUP_NULL)
                    CALL(x, MPI_Win_start(acc, 0, x->win));
                break;
            case I_COMPLETE:
                if (acc != MPI_GROUP_NULL)
                    CALL(x, MPI_Win_complete(x->win));
                complete_all(x);
                break;
            case I_WAIT:
                if (exp != MPI_GROUP_NULL)
                    CALL(x, MPI_Win_wait(x->win));
                break;
            case I_NSTART:
                if (!started)
                    start_requests(x, ph->start_all[me], reqs, n);
                started = 1;
                break;
            case I_NWAIT:
                if (jitter >= 0 && jitter / p->P == 1 && jitter % p->P == me)
                    spin_us(JITTER_US);
                if (ph->cfirst[me])
                    wait_counters(x, phi);
                wait_requests(x, phi, reqs, n);
                if (!ph->cfirst[me])
                    wait_counters(x, phi);
                break;
            case I_DELAY:
                spin_us(it->arg);
                break;
            case I_RWAIT:
                complete_requests(x, it);
                break;
        }
    }
    /* the generator completes every request in the phase */
    for (int i = ph->op0; i < ph->op1; i++)
        if (x->keep[i] && x->rq[i] != MPI_REQUEST_NULL) {
            report(x, "#%d %s: request still pending at the end of the phase (rma_fuzz bug?)",
                   i, oname(&p->ops[i]));
            CALL(x, MPI_Wait(&x->rq[i], MPI_STATUS_IGNORE));
        }
    if (acc != MPI_GROUP_NULL)
        MPI_Group_free(&acc);
    if (exp != MPI_GROUP_NULL)
        MPI_Group_free(&exp);
    /* every access of the phase is complete everywhere after the barrier; the
     * shared lock on ourselves makes MPI_Win_sync legal, which orders our
     * loads after the remote writes (and our own stores before the next
     * phase's remote reads) in the unified memory model */
    MPI_Barrier(MPI_COMM_WORLD);
    CALL(x, MPI_Win_lock(MPI_LOCK_SHARED, me, 0, x->win));
    CALL(x, MPI_Win_sync(x->win));
    check_window(x, pl->snap[phi][ph->nep - 1], pl->snap_lw[phi][ph->nep - 1], "at the end of the phase");
    check_counters(x, phi, ph->nep - 1, "at the end of the phase");
    CALL(x, MPI_Win_unlock(me, x->win));
    for (int i = 0; i < n; i++)
        CALL(x, MPI_Request_free(&reqs[i]));
    free(reqs);
}

/* Run one program (keep: which operations and removable flushes are in);
 * returns the number of mismatches over all ranks. */
/* what the runs covered, for the summary line */
typedef struct {
    long ops, notified, acc_notified, acc_counted, phases[4], req[4], pchk, scr;
    long counted, cchecks, cwaits, clb, csets, creattach, cpchk, cscr;
    long rops[NNT], rcalls[NRW], rfetch, rreuse;        /* request-based accesses */
} stats_t;

static void add_stats(stats_t * st, const prog_t * p, const uint8_t * keep, const plan_t * pl)
{
    /* request completions, and which come before any flush, unlock (or
     * flush_local) that completes the access anyway */
    uint8_t *flushed = calloc(p->nops + 1, 1);
    for (int phi = 0; phi < p->nph; phi++)
        for (int r = 0; r < p->P && pl->live[phi]; r++)
            for (int k = 0; k < p->ph[phi].nit[r]; k++) {
                const item_t *it = &p->ph[phi].it[r][k];
                if (it->rid >= 0 && !keep[p->nops + it->rid])
                    continue;
                int all = it->kind == I_FLUSH_ALL || it->kind == I_FLUSH_LOCAL_ALL ||
                    it->kind == I_UNLOCK_ALL;
                if (all || it->kind == I_FLUSH || it->kind == I_FLUSH_LOCAL || it->kind == I_UNLOCK)
                    for (int i = p->ph[phi].op0; i < p->ph[phi].op1; i++)
                        if (p->ops[i].origin == r && (all || p->ops[i].target == it->target))
                            flushed[i] = 1;
                if (it->kind != I_RWAIT)
                    continue;
                int n = 0;
                for (int j = 0; j < it->nrops; j++) {
                    int id = it->rops[j];
                    if (!keep[id])
                        continue;
                    n++;
                    if (!flushed[id]) {
                        st->rfetch += k_fetches(p->ops[id].kind);
                        st->rreuse += k_sends(p->ops[id].kind);
                    }
                }
                st->rcalls[it->arg] += n > 0;
            }
    free(flushed);
    for (int i = 0; i < p->nops; i++) {
        st->rops[p->ops[i].nt] += keep[i] && p->ops[i].req;
        st->ops += keep[i];
        st->acc_notified += keep[i] && k_acc(p->ops[i].kind) && is_tagged(&p->ops[i]);
        st->acc_counted += keep[i] && k_acc(p->ops[i].kind) && is_counted(&p->ops[i]);
    }
    st->notified += pl->nnotify;
    st->counted += pl->ncounted;
    for (int phi = 0; phi < p->nph; phi++) {
        const phase_t *ph = &p->ph[phi];
        if (!pl->live[phi])
            continue;
        st->phases[ph->kind]++;
        st->creattach += ph->reattach != 0;
        st->cchecks += (long) p->P * p->nctr * ph->nep;
        for (int r = 0; r < p->P; r++) {
            for (int i = 0; i < pl->nreq[phi][r]; i++) {
                const nreq_t *q = &pl->req[phi][r][i];
                st->req[(q->src == MPI_ANY_SOURCE) * 2 + (q->tag == MPI_ANY_TAG)]++;
            }
            for (int i = 0; i < pl->npchk[phi][r]; i++)
                if (is_counted(&p->ops[pl->pchk[phi][r][i].op]))
                    st->cpchk++;
                else
                    st->pchk++;
            for (int i = 0; i < pl->nscr[phi][r]; i++)
                if (is_counted(&p->ops[pl->scr[phi][r][i].op]))
                    st->cscr++;
                else
                    st->scr++;
            for (int c = 0; c < p->nctr; c++) {
                st->cwaits += pl->cops[phi][r][c] > 0;
                st->clb += pl->clb[phi][r][c] > pl->cbase[phi][r][c];
                st->csets += ph->cset[r][c] >= 0;
            }
        }
    }
}

static int run_program(const prog_t * p, const uint8_t * keep, int quiet, stats_t * stats)
{
    exec_t x;
    plan_t pl;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    plan_build(p, keep, me, &pl);
    if (stats && me == 0)
        add_stats(stats, p, keep, &pl);
    memset(&x, 0, sizeof x);
    x.p = p;
    x.keep = keep;
    x.pl = &pl;
    x.me = me;
    x.quiet = quiet;
    x.phase = -1;
    set_sig_ctx(p, me, -1);
    alarm(wd_seconds);

    MPI_Aint bytes = (MPI_Aint) p->nslots * 4;
    void *mem = NULL;
    if (p->flavor == MPI_WIN_FLAVOR_ALLOCATE)
        CALL(&x, MPI_Win_allocate(bytes, p->du, MPI_INFO_NULL, MPI_COMM_WORLD, &x.base, &x.win));
    else {
        mem = malloc(bytes);
        x.base = mem;
        CALL(&x, MPI_Win_create(mem, bytes, p->du, MPI_INFO_NULL, MPI_COMM_WORLD, &x.win));
    }
    MPI_Win_set_errhandler(x.win, MPI_ERRORS_RETURN);
    CALL(&x, MPIX_Win_create_notify(x.win, p->nctr));
    MPI_Win_get_group(x.win, &x.wgroup);
    CALL(&x, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, x.win));
    memcpy(x.base, pl.init_win, bytes);
    CALL(&x, MPI_Win_unlock(me, x.win));

    x.tt = calloc(p->nops + 1, sizeof(MPI_Datatype));
    x.ot = calloc(p->nops + 1, sizeof(MPI_Datatype));
    x.rt = calloc(p->nops + 1, sizeof(MPI_Datatype));
    for (int i = 0; i < p->nops; i++) {
        const op_t *o = &p->ops[i];
        x.tt[i] = x.ot[i] = x.rt[i] = MPI_DATATYPE_NULL;
        if (!keep[i] || o->origin != me)
            continue;
        x.tt[i] = make_type(&o->tt, o->basic);
        x.ot[i] = make_type(&o->ot, o->basic);
        x.rt[i] = o->kind == K_GACC ? make_type(&o->rt, o->basic) : MPI_DATATYPE_NULL;
    }
    x.arena = malloc(pl.arena_bytes);
    memcpy(x.arena, pl.init_arena, pl.arena_bytes);
    x.rq = malloc((p->nops + 1) * sizeof(MPI_Request));
    for (int i = 0; i <= p->nops; i++)
        x.rq[i] = MPI_REQUEST_NULL;
    MPI_Barrier(MPI_COMM_WORLD);

    for (int phi = 0; phi < p->nph; phi++)
        if (pl.live[phi])
            exec_phase(&x, phi);

    if (p->cfree)
        CALL(&x, MPIX_Win_free_notify(x.win));
    CALL(&x, MPI_Win_free(&x.win));     /* else it frees the counters */
    MPI_Group_free(&x.wgroup);
    free(mem);
    for (int i = 0; i < p->nops; i++) {
        free_type(&x.tt[i]);
        free_type(&x.ot[i]);
        free_type(&x.rt[i]);
    }
    free(x.tt);
    free(x.ot);
    free(x.rt);
    free(x.arena);
    free(x.rq);
    for (int t = 0; t < MAXP; t++)
        free(x.out[t]);
    plan_free(&pl);
    alarm(0);
    int all = 0;
    MPI_Allreduce(&x.errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* ========================================================== 7. listing */
static void td_str(const tdesc_t * t, int basic, char *buf, size_t len)
{
    int k = 0;
    if (t->shape == SH_CONTIG) {
        snprintf(buf, len, "%s x%d", bname[basic], t->count);
        return;
    }
    if (t->shape == SH_VECTOR) {
        snprintf(buf, len, "vector(%d blocks of %d, stride %d; %s) x%d", t->nblk, t->blen,
                 t->stride, bname[basic], t->count);
        return;
    }
    k += snprintf(buf + k, len - k, "indexed(");
    for (int b = 0; b < t->nblk && k < (int) len; b++)
        k += snprintf(buf + k, len - k, "%s%d@%d", b ? " " : "", t->blens[b], t->displs[b]);
    if (k < (int) len)
        snprintf(buf + k, len - k, "; %s) x%d", bname[basic], t->count);
}

static void op_str(const prog_t * p, const plan_t * pl, const op_t * o, char *buf, size_t len)
{
    char tt[160], ot[160], rt[160], vals[96] = "", kind[48];
    td_str(&o->tt, o->basic, tt, sizeof tt);
    td_str(&o->ot, o->basic, ot, sizeof ot);
    td_str(&o->rt, o->basic, rt, sizeof rt);
    if (k_acc(o->kind) && o->kind != K_CAS)
        snprintf(kind, sizeof kind, "%s(%s)", oname(o), opname[o->op]);
    else
        snprintf(kind, sizeof kind, "%s", oname(o));
    if (k_sends(o->kind) && !(o->kind == K_GACC && o->op == OP_NOOP) &&
        !(o->kind == K_FOP && o->op == OP_NOOP)) {
        int k = snprintf(vals, sizeof vals, " values {");
        for (int i = 0; i < o->n && i < 4; i++)
            k += snprintf(vals + k, sizeof vals - k, "%s%llu", i ? "," : "",
                          (unsigned long long) op_value(o, i));
        snprintf(vals + k, sizeof vals - k, "%s}", o->n > 4 ? ",..." : "");
    }
    int k = snprintf(buf, len, "#%d %s r%d->r%d disp %ld (byte %ld), %d B: target %s, origin %s",
                     o->id, kind, o->origin, o->target, o->disp, o->disp * p->du,
                     o->n * bsz[o->basic], tt, ot);
    if (o->kind == K_GACC)
        k += snprintf(buf + k, len - k, ", result %s", rt);
    if (o->kind == K_CAS)
        k += snprintf(buf + k, len - k, ", compare %llu", (unsigned long long) o->cmp);
    if (is_tagged(o) && pl)
        k += snprintf(buf + k, len - k, ", tag %d", pl->tag[o->id]);
    if (is_counted(o))
        k += snprintf(buf + k, len - k, ", idx %d", o->cidx);
    snprintf(buf + k, len - k, "%s", vals);
}

static void fmt_rank(int r, char *buf, size_t len, const char *any)
{
    if (r == MPI_ANY_SOURCE || r == MPI_ANY_TAG)
        snprintf(buf, len, "%s", any);
    else
        snprintf(buf, len, "%d", r);
}

/* checks after notification of one dialect */
static int count_chk(const prog_t * p, const wchk_t * w, int n, int counted)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += is_counted(&p->ops[w[i].op]) == counted;
    return k;
}

/* "{3, 0, 1, 0}", or "(all 0)"; returns whether any is not 0 */
static int ctr_str(const prog_t * p, const long long *v, char *buf, size_t len)
{
    int k = snprintf(buf, len, "{"), nz = 0;
    for (int c = 0; c < p->nctr && k < (int) len; c++) {
        k += snprintf(buf + k, len - k, "%s%lld", c ? ", " : "", v[c]);
        nz |= v[c] != 0;
    }
    if (!nz)
        snprintf(buf, len, "(all 0)");
    else if (k < (int) len)
        snprintf(buf + k, len - k, "}");
    return nz;
}

static void print_program(FILE * f, const prog_t * p, const uint8_t * keep)
{
    plan_t pl;
    char buf[1024];
    int kept = 0;
    plan_build(p, keep, 0, &pl);
    for (int i = 0; i < p->nops; i++)
        kept += keep[i];
    fprintf(f, "program: seed %llu index %ld, %d ranks, %d of %d accesses; window %s, %d bytes per "
            "rank, disp_unit %d; MPIX_Win_create_notify(%d) after it, freed by %s\n",
            (unsigned long long) p->seed, p->index, p->P, kept, p->nops,
            p->flavor == MPI_WIN_FLAVOR_ALLOCATE ? "MPI_Win_allocate" : "MPI_Win_create (malloc)",
            p->nslots * 4, p->du, p->nctr,
            p->cfree ? "MPIX_Win_free_notify, then MPI_Win_free" : "MPI_Win_free");
    for (int phi = 0; phi < p->nph; phi++) {
        const phase_t *ph = &p->ph[phi];
        if (!pl.live[phi])
            continue;
        fprintf(f, " phase %d: %s", phi, phname[ph->kind]);
        if (ph->kind == PH_FENCE)
            fprintf(f, ", %d epoch%s", ph->nep, ph->nep > 1 ? "s" : "");
        fprintf(f, "  (barrier first; every rank checks its window and counters at the end)\n");
        if (ph->reattach)
            fprintf(f, "   all %sMPIX_Win_create_notify(%d) again before the barrier: counters "
                    "replaced, all 0\n", ph->reattach == 2 ? "MPIX_Win_free_notify, then " : "",
                    p->nctr);
        for (int r = 0; r < p->P; r++)
            for (int c = 0; c < p->nctr; c++)
                if (ph->cset[r][c] >= 0)
                    fprintf(f, "   r%d  MPIX_Win_set_notify(idx %d, %lld) before the barrier\n", r,
                            c, ph->cset[r][c]);
        for (int r = 0; r < p->P; r++) {
            int n = pl.nreq[phi][r];
            char cs[96];
            for (int k = 0; k < ph->nit[r]; k++) {
                const item_t *it = &ph->it[r][k];
                if (it->rid >= 0 && !keep[p->nops + it->rid])
                    continue;
                switch (it->kind) {
                    case I_OP:
                        if (!keep[it->op])
                            continue;
                        op_str(p, &pl, &p->ops[it->op], buf, sizeof buf);
                        break;
                    case I_FLUSH:
                        snprintf(buf, sizeof buf, "MPI_Win_flush(%d)", it->target);
                        break;
                    case I_FLUSH_LOCAL:
                        snprintf(buf, sizeof buf, "MPI_Win_flush_local(%d)", it->target);
                        break;
                    case I_FLUSH_ALL:
                        snprintf(buf, sizeof buf, "MPI_Win_flush_all");
                        break;
                    case I_FLUSH_LOCAL_ALL:
                        snprintf(buf, sizeof buf, "MPI_Win_flush_local_all");
                        break;
                    case I_LOCK:
                        snprintf(buf, sizeof buf, "MPI_Win_lock(%s, %d)",
                                 it->arg == MPI_LOCK_EXCLUSIVE ? "EXCLUSIVE" : "SHARED", it->target);
                        break;
                    case I_UNLOCK:
                        snprintf(buf, sizeof buf, "MPI_Win_unlock(%d)", it->target);
                        break;
                    case I_LOCK_ALL:
                        snprintf(buf, sizeof buf, "MPI_Win_lock_all");
                        break;
                    case I_UNLOCK_ALL:
                        snprintf(buf, sizeof buf, "MPI_Win_unlock_all");
                        break;
                    case I_FENCE:
                        cs[0] = 0;
                        if (it->arg >= 0 && it->arg < ph->nep - 1)
                            ctr_str(p, pl.cexp[phi][it->arg][r], cs, sizeof cs);
                        snprintf(buf, sizeof buf, "MPI_Win_fence(%s)%s%s%s",
                                 it->arg < 0 ? "NOPRECEDE" : it->arg == ph->nep - 1 ? "NOSUCCEED" : "0",
                                 cs[0] ? "; check window and counters " : "", cs,
                                 cs[0] ? "; barrier" : "");
                        break;
                    case I_POST:
                    case I_START:{
                            unsigned m = it->kind == I_POST ? pl.expose[phi][r] : pl.access[phi][r];
                            int kk = snprintf(buf, sizeof buf, "MPI_Win_%s({",
                                              it->kind == I_POST ? "post" : "start");
                            for (int t = 0; t < p->P; t++)
                                if (m & (1u << t))
                                    kk += snprintf(buf + kk, sizeof buf - kk, "%s%d",
                                                   (m & ((1u << t) - 1)) ? "," : "", t);
                            snprintf(buf + kk, sizeof buf - kk, "})%s", m ? "" : " skipped: empty group");
                            break;
                        }
                    case I_COMPLETE:
                        snprintf(buf, sizeof buf, "MPI_Win_complete%s", pl.access[phi][r] ? "" : " (skipped)");
                        break;
                    case I_WAIT:
                        snprintf(buf, sizeof buf, "MPI_Win_wait%s", pl.expose[phi][r] ? "" : " (skipped)");
                        break;
                    case I_NSTART:
                        if (!n || ph->start_pre[r])
                            continue;
                        snprintf(buf, sizeof buf, "start the notify requests (%s)",
                                 ph->start_all[r] ? "MPI_Startall" : "MPI_Start each");
                        break;
                    case I_DELAY:
                        snprintf(buf, sizeof buf, "busy-wait %d us outside MPI", it->arg);
                        break;
                    case I_RWAIT:{
                            /* "MPI_Waitall(requests of #3 rput_notify, #5 rget); as each
                             * completes: check what it fetched, reuse (overwrite) its
                             * origin buffer" */
                            int nk = 0, nf = 0, ns = 0;
                            for (int i = 0; i < it->nrops; i++)
                                if (keep[it->rops[i]]) {
                                    nk++;
                                    nf += k_fetches(p->ops[it->rops[i]].kind);
                                    ns += k_sends(p->ops[it->rops[i]].kind);
                                }
                            if (!nk)
                                continue;
                            int kk = snprintf(buf, sizeof buf, "%s%s(request%s of ", rwname[it->arg],
                                              nk > 1 && it->arg <= RW_TEST ? " each" : "",
                                              nk > 1 ? "s" : "");
                            for (int i = 0, j = 0; i < it->nrops; i++)
                                if (keep[it->rops[i]]) {
                                    const op_t *o = &p->ops[it->rops[i]];
                                    kk += snprintf(buf + kk, sizeof buf - kk, "%s#%d %s",
                                                   j++ ? ", " : "", o->id, oname(o));
                                }
                            snprintf(buf + kk, sizeof buf - kk, "); as each completes:%s%s%s",
                                     nf ? " check what it fetched" : "", nf && ns ? "," : "",
                                     ns ? " reuse (overwrite) its origin buffer" : "");
                            break;
                        }
                    case I_NWAIT:{
                            static const char *how[] = { "MPI_Waitall", "MPI_Wait each",
                                "MPI_Testall loop", "MPI_Test each"
                            };
                            char rq[320] = "", ct[320] = "";
                            int kr = 0, kc = 0;
                            if (n) {
                                kr = snprintf(rq, sizeof rq, "wait for the notify requests (%s); "
                                              "check statuses, %d element(s) written by notified "
                                              "accesses; overwrite %d element(s) they read",
                                              how[ph->wait_how[r]],
                                              count_chk(p, pl.pchk[phi][r], pl.npchk[phi][r], 0),
                                              count_chk(p, pl.scr[phi][r], pl.nscr[phi][r], 0));
                                for (int c = 0; c < p->nctr; c++)
                                    if (pl.clb[phi][r][c] > pl.cbase[phi][r][c] && kr < (int) sizeof rq)
                                        kr += snprintf(rq + kr, sizeof rq - kr, "; counter %d >= %lld",
                                                       c, pl.clb[phi][r][c]);
                            }
                            for (int c = 0; c < p->nctr; c++)
                                if (pl.cops[phi][r][c] && kc < (int) sizeof ct)
                                    kc += snprintf(ct + kc, sizeof ct - kc, "%s%d until %lld",
                                                   kc ? ", " : "spin MPIX_Win_get_notify: counter ",
                                                   c, pl.cexp[phi][ph->nep - 1][r][c]);
                            if (kc && kc < (int) sizeof ct)
                                snprintf(ct + kc, sizeof ct - kc, "; check %d element(s) written by "
                                         "counted accesses; overwrite %d element(s) they read",
                                         count_chk(p, pl.pchk[phi][r], pl.npchk[phi][r], 1),
                                         count_chk(p, pl.scr[phi][r], pl.nscr[phi][r], 1));
                            if (!kr && !kc)
                                continue;
                            snprintf(buf, sizeof buf, "%s%s%s", ph->cfirst[r] ? ct : rq,
                                     kr && kc ? "; then " : "", ph->cfirst[r] ? rq : ct);
                            break;
                        }
                }
                fprintf(f, "   r%d  %s\n", r, buf);
            }
            for (int i = 0; i < n; i++) {
                const nreq_t *q = &pl.req[phi][r][i];
                char s[16], t[16];
                fmt_rank(q->src, s, sizeof s, "ANY_SOURCE");
                fmt_rank(q->tag, t, sizeof t, "ANY_TAG");
                fprintf(f, "   r%d  request %d: MPI_Notify_init(src %s, tag %s, count %d)%s -> "
                        "status source %d%s tag %d%s bytes %d%s\n", r, i, s, t, q->count,
                        ph->start_pre[r] ? ", started before the opening barrier" : "",
                        q->esrc, q->csrc ? "" : "?", q->etag, q->ctag ? "" : "?", q->ebytes,
                        q->cbytes ? "" : "?");
            }
            int counted = 0;
            for (int c = 0; c < p->nctr; c++)
                counted |= pl.cops[phi][r][c];
            if (ctr_str(p, pl.cexp[phi][ph->nep - 1][r], cs, sizeof cs) || counted)
                fprintf(f, "   r%d  counters at the end of the phase: %s\n", r, cs);
        }
    }
    fflush(f);
    plan_free(&pl);
}

/* ========================================================= 8. shrinker */
/* Is the program with this keep mask still correct (only needed when flushes
 * are removed: removing accesses never breaks the rules)? */
static int program_valid(const prog_t * p, const uint8_t * keep)
{
    cstate_t *cs = malloc(sizeof *cs);
    int ok = 1;
    for (int phi = 0; phi < p->nph && ok; phi++) {
        const phase_t *ph = &p->ph[phi];
        for (int k = 0; k < ph->nep && ok; k++) {
            cs_new_interval(cs);
            for (int o = 0; o < p->P && ok; o++) {
                int ep = 0;
                for (int j = 0; j < ph->nit[o] && ok; j++) {
                    const item_t *it = &ph->it[o][j];
                    if (it->kind == I_FENCE) {
                        ep = it->arg + 1;
                        continue;
                    }
                    if (ep != k || (it->rid >= 0 && !keep[p->nops + it->rid]))
                        continue;
                    if (it->kind == I_OP && keep[it->op]) {
                        if (cs_check(cs, p, &p->ops[it->op]))
                            ok = 0;
                        else
                            cs_commit(cs, p, &p->ops[it->op]);
                    } else if (it->kind == I_FLUSH || it->kind == I_UNLOCK)
                        cs_flush(cs, o, it->target);
                    else if (it->kind == I_FLUSH_ALL)
                        cs_flush(cs, o, -1);
                }
            }
        }
    }
    free(cs);
    return ok;
}

/* Rank 0 proposes a keep mask, every rank runs it: 1 failed, 0 passed, -1
 * stop.  Try i > 0 uses jitter i - 1; *how gets the jitter of the failing try. */
static int shrink_step(const prog_t * p, uint8_t * keep, int nk, int go, int tries, int *how)
{
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(keep, nk, MPI_UINT8_T, 0, MPI_COMM_WORLD);
    if (!go)
        return -1;
    for (int i = 0; i < tries; i++) {
        jitter = i == 0 ? -1 : (i - 1) % (2 * p->P);
        int errs = run_program(p, keep, 1, NULL);
        if (errs > 0) {
            *how = jitter;
            jitter = -1;
            return 1;
        }
    }
    jitter = -1;
    return 0;
}

/* Delta debugging over the accesses (chunks of the kept ones, halving), then
 * one flush or delay at a time; bounded by time and by the number of runs.
 * Timing-dependent failures get `tries` runs per candidate (see jitter). */
static void shrink(const prog_t * p, double seconds, int tries)
{
    int me, nk = p->nops + p->nrem;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    uint8_t *keep = malloc(nk), *cand = malloc(nk);
    memset(keep, 1, nk);
    double t0 = MPI_Wtime();
    int runs = 0, how = -1, accepted = 0;
    if (me == 0) {
        int *cur = malloc(sizeof(int) * (p->nops + 1)), ncur = p->nops, gran = 2;
        for (int i = 0; i < p->nops; i++)
            cur[i] = i;
        while (ncur >= 2 && MPI_Wtime() - t0 < seconds && runs < 600) {
            int chunk = (ncur + gran - 1) / gran, reduced = 0;
            for (int c0 = 0; c0 < ncur && MPI_Wtime() - t0 < seconds; c0 += chunk) {
                memcpy(cand, keep, nk);
                for (int j = c0; j < c0 + chunk && j < ncur; j++)
                    cand[cur[j]] = 0;
                runs++;
                if (shrink_step(p, cand, nk, 1, tries, &how) == 1) {
                    memcpy(keep, cand, nk);
                    accepted++;
                    int m = 0;
                    for (int j = 0; j < ncur; j++)
                        if (keep[cur[j]])
                            cur[m++] = cur[j];
                    ncur = m;
                    gran = gran > 2 ? gran - 1 : 2;
                    reduced = 1;
                    break;
                }
            }
            if (!reduced) {
                if (gran >= ncur)
                    break;
                gran = 2 * gran < ncur ? 2 * gran : ncur;
            }
        }
        /* flushes and delays: those of phases left without accesses go
         * (such phases are not run); the others one at a time */
        for (int phi = 0; phi < p->nph; phi++) {
            int live = 0;
            for (int i = p->ph[phi].op0; i < p->ph[phi].op1; i++)
                live |= keep[i];
            for (int r = 0; r < p->P; r++)
                for (int k = 0; k < p->ph[phi].nit[r]; k++) {
                    int rid = p->ph[phi].it[r][k].rid;
                    if (rid < 0)
                        continue;
                    memcpy(cand, keep, nk);
                    cand[p->nops + rid] = 0;
                    if (!live)
                        memcpy(keep, cand, nk);
                    else if (MPI_Wtime() - t0 < seconds && runs < 600 && program_valid(p, cand)) {
                        runs++;
                        if (shrink_step(p, cand, nk, 1, tries, &how) == 1) {
                            memcpy(keep, cand, nk);
                            accepted++;
                        }
                    }
                }
        }
        free(cur);
        shrink_step(p, keep, nk, 0, tries, &how);       /* stop; everyone gets the result */
    } else
        while (shrink_step(p, keep, nk, 1, tries, &how) >= 0);
    MPI_Bcast(&how, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&accepted, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!accepted) {
        if (me == 0) {
            printf("---- shrink: no smaller program failed (%d candidates, %.1f s): the failure "
                   "is timing-dependent, or needs every access\n", runs, MPI_Wtime() - t0);
            fflush(stdout);
        }
        free(keep);
        free(cand);
        return;
    }

    int kept = 0;
    for (int i = 0; i < p->nops; i++)
        kept += keep[i];
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        printf("---- shrunk: %d of %d accesses still fail (%d candidates tried, %.1f s); the "
               "smallest failing program:\n", kept, p->nops, runs, MPI_Wtime() - t0);
        print_program(stdout, p, keep);
        if (how >= 0) {
            char j[128];
            jitter_str(how, p->P, j, sizeof j);
            printf("     (failed with %s)\n", j);
        }
        printf("---- its mismatches on this run:\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* re-run it with its mismatches shown: with the jitter it last failed
     * with first, then the others, until it fails */
    int errs = 0, i;
    for (i = 0; i < tries && !errs; i++) {
        jitter = i == 0 ? how : (how + 1 + i) % (2 * p->P + 1) - 1;
        errs = run_program(p, keep, 0, NULL);
    }
    jitter = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        printf("---- end of shrunk program (%d mismatch%s on re-run %d of %d%s)\n", errs,
               errs == 1 ? "" : "es", i, tries, errs ? "" : ": timing-dependent");
        fflush(stdout);
    }
    free(keep);
    free(cand);
}

/* ============================================================= 9. main */
static void usage(void)
{
    fprintf(stderr, "usage: rma_fuzz [-seed S] [-n N] [-max-ops K] [-start I] [-v]\n"
            "                [-shrink-time SEC] [-max-shrink F] [-shrink-tries R] [-watchdog SEC]\n"
            "                [-ops ID,ID,...]   (only these accesses of each program)\n"
            "                [-stock-rput-bug]  (also MPI_Rput/MPI_Rget with a sparse origin and\n"
            "                                    a dense target: crash MPICH 4.0.2 on libfabric)\n"
            "                [-contig-plain-r]  (MPI_Rput/MPI_Rget only with contiguous types)\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    long n = 200, start = 0;
    int max_ops = 24, verbose = 0, max_shrink = 1, tries = 0, bad_args = 0;
    const char *only_ops = NULL;
    double shrink_time = 30;
    int me, P;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-v")) {
            verbose = 1;
            continue;
        }
        if (!strcmp(a, "-stock-rput-bug")) {
            stock_rput_bug = 1;
            continue;
        }
        if (!strcmp(a, "-contig-plain-r")) {
            contig_plain_r = 1;
            continue;
        }
        if (!v) {
            bad_args = 1;
            break;
        }
        if (fuzz_value_opt(a, v, &seed, &n, &start, &max_ops, &wd_seconds)) {
            /* -seed, -n, -start, -max-ops, -watchdog */
        } else if (!strcmp(a, "-shrink-time"))
            shrink_time = atof(v);
        else if (!strcmp(a, "-max-shrink"))
            max_shrink = atoi(v);
        else if (!strcmp(a, "-shrink-tries"))
            tries = atoi(v);
        else if (!strcmp(a, "-ops"))
            only_ops = v;
        else {
            bad_args = 1;
            break;
        }
        i++;
    }
    if (!tries)
        tries = 2 * P + 1;      /* as is, then each rank held back at each place */
    if (bad_args || n < 0 || max_ops < 1 || max_ops > 1000 || tries < 1 || wd_seconds < 1 ||
        P > MAXP || sizeof(long) != 8) {
        if (me == 0) {
            usage();
            if (P > MAXP)
                fprintf(stderr, "rma_fuzz: at most %d ranks\n", MAXP);
        }
        MPI_Finalize();
        return 2;
    }
    fuzz_catch_signals(sig_handler);

    int nfail = 0;
    long failed[8];
    stats_t stats;
    memset(&stats, 0, sizeof stats);
    double t0 = MPI_Wtime();
    for (long idx = start; idx < start + n; idx++) {
        prog_t p;
        gen_program(&p, seed, idx, P, max_ops);
        uint8_t *keep = malloc(p.nops + p.nrem + 1);
        memset(keep, 1, p.nops + p.nrem + 1);
        if (only_ops) {
            /* by hand: only these accesses (comma-separated ids), as the shrinker would */
            memset(keep, 0, p.nops);
            for (const char *c = only_ops; *c; c++)
                if (c == only_ops || c[-1] == ',') {
                    int id = atoi(c);
                    if (id >= 0 && id < p.nops)
                        keep[id] = 1;
                }
        }
        if (verbose && me == 0)
            print_program(stdout, &p, keep);
        int errs = run_program(&p, keep, 0, &stats);
        if (errs) {
            if (nfail < 8)
                failed[nfail] = idx;
            nfail++;
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) {
                fuzz_print_mismatch("rma_fuzz", seed, idx, errs);
                if (nfail <= 3)
                    print_program(stdout, &p, keep);
                fflush(stdout);
            }
            if (nfail <= max_shrink)
                shrink(&p, shrink_time, tries);
        }
        free(keep);
        prog_free(&p);
    }
    double el = MPI_Wtime() - t0;
    if (me == 0) {
        printf("rma_fuzz: seed %llu, programs %ld..%ld on %d ranks, %.1f s: %ld accesses (%ld "
               "notified, %ld counted; accumulates among them: %ld notified, %ld counted); "
               "phases: %ld fence, %ld lock, %ld lock_all, %ld pscw; "
               "notify requests: %ld exact, %ld any-tag, %ld any-source, %ld any-any; checked "
               "after notification: %ld written elements; overwritten after notification: %ld "
               "read elements; counters: %ld values checked, %ld waits, %ld order bounds, %ld set, "
               "%ld re-attached; checked after a counter: %ld written elements; overwritten after "
               "a counter: %ld read elements; request-based: %ld plain, %ld notified, %ld counted, "
               "completed by %ld MPI_Wait, %ld MPI_Test, %ld MPI_Waitall, %ld MPI_Testall, "
               "%ld MPI_Waitany, %ld MPI_Waitsome calls; at completion, before any flush: %ld "
               "results checked, %ld origin buffers reused\n",
               (unsigned long long) seed, start, start + n - 1, P, el, stats.ops, stats.notified,
               stats.counted, stats.acc_notified, stats.acc_counted, stats.phases[PH_FENCE], stats.phases[PH_LOCK],
               stats.phases[PH_LOCKALL], stats.phases[PH_PSCW], stats.req[0], stats.req[1],
               stats.req[2], stats.req[3], stats.pchk, stats.scr, stats.cchecks, stats.cwaits,
               stats.clb, stats.csets, stats.creattach, stats.cpchk, stats.cscr, stats.rops[NT_NONE],
               stats.rops[NT_TAG], stats.rops[NT_CTR], stats.rcalls[RW_WAIT], stats.rcalls[RW_TEST],
               stats.rcalls[RW_WAITALL], stats.rcalls[RW_TESTALL], stats.rcalls[RW_WAITANY],
               stats.rcalls[RW_WAITSOME], stats.rfetch, stats.rreuse);
        fuzz_print_result("rma_fuzz", nfail, n, failed);
    }
    MPI_Finalize();
    return nfail != 0;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* rma_fuzz's generator: a random correct program from (seed, program index),
 * and the conflict rules that make it correct and deterministic. */
#include "rma_fuzz.h"

int stock_rput_bug = 0;        /* -stock-rput-bug (rma_fuzz.h) */
int contig_plain_r = 0;        /* -contig-plain-r */

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
/* (the classes XM_* of an access, xclass, and the slots it touches, op_slots:
 * rma_fuzz.h) */

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

/* Is the program with this keep mask still correct (only needed when flushes
 * are removed: removing accesses never breaks the rules)?  For the shrinker
 * (section 8). */
int rma_program_valid(const prog_t * p, const uint8_t * keep)
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

/* ========================================================= 4. generator */
typedef struct {
    prog_t *p;
    rng_t r;
    cstate_t *cs;
    unsigned char *scratch[MAXP];       /* windows as generated so far (CAS compare values) */
    int phase, epoch;
    int *rpend[MAXP], nrpend[MAXP];     /* request-based accesses not yet given an I_RWAIT */
} gen_t;

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
        rma_model_apply(p, &c, g->scratch[t], NULL, 0, 0);
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

void rma_gen_program(prog_t * p, uint64_t seed, long index, int P, int max_ops)
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
        rma_win_init_image(p, r, g.scratch[r]);
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

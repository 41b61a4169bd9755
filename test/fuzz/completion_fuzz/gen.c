/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* completion_fuzz's generator: a random program from (seed, program index),
 * correct and with an outcome that does not depend on timing. */
#include "completion_fuzz.h"

int feat_off[NFEAT];           /* -no (completion_fuzz.h) */

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

    /* ---- expectations (model.c) */
    cf_model_expect(p, phi, g0);

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
                if (g->kind == C_CONT && g->rank == o->rank && cf_free_running(p, g) &&
                    g->when != R_DONE && g->expect_calls == 1 && !g->dup && !g->nocompleter &&
                    g->ncomp < MAXCOMP && (!h || !cf_depends(p, g, h)))
                    cand[nc++] = j;
            }
        if (nc == 0)
            w[GC_CB] = 0;
        if (!h || h->when == R_DONE || h->ncomp > 0 || !cf_free_running(p, h) ||
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

    /* ---- what holds right after registration (model.c) */
    cf_model_registered(p, phi, g0);

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
                        if (cf_cross_greq(p, c, phi) && rpct(r, 85))
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

void cf_gen_program(prog_t * p, uint64_t seed, long index, int P, int max_units, int max_t)
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
        cf_describe_step(p, &p->step[i]);
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* rma_fuzz's model: what a program must do, computed sequentially on every
 * rank (the plan of one run); and the listing of a program with it. */
#include "rma_fuzz.h"

/* ================================================== 5. model and plan */
/* (the plan's types: rma_fuzz.h) */
void rma_win_init_image(const prog_t * p, int r, unsigned char *w)
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
void rma_model_apply(const prog_t * p, const op_t * o, unsigned char *tw,
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

void rma_plan_free(plan_t * pl)
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
void rma_plan_build(const prog_t * p, const uint8_t * keep, int me, plan_t * pl)
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
        rma_win_init_image(p, r, win[r]);
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
                rma_model_apply(p, o, win[o->target], o->origin == me ? pl->exp_arena : NULL,
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

void rma_print_program(FILE * f, const prog_t * p, const uint8_t * keep)
{
    plan_t pl;
    char buf[1024];
    int kept = 0;
    rma_plan_build(p, keep, 0, &pl);
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
    rma_plan_free(&pl);
}

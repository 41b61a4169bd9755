/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* completion_fuzz's model: how often each callback must run, with which
 * error and status, where, and what each continuation request's completion
 * returns (computed while the program is generated); and the listing. */
#include "completion_fuzz.h"

/* ================================================ 4. model and listing */
/* its callback may run from any thread's progress once its operations are
 * complete (not held by an inactive or poll-only continuation request) */
int cf_free_running(const prog_t * p, const grp_t * g)
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
int cf_cross_greq(const prog_t * p, int c, int phi)
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
int cf_depends(const prog_t * p, const grp_t * g, const grp_t * h)
{
    if (g == h)
        return 1;
    for (int i = 0; i < g->nops; i++) {
        const op_t *o = &p->ops[g->ops[i]];
        if (o->kind == OK_GREQ && o->completer == GC_CB && cf_depends(p, &p->grp[o->cgrp], h))
            return 1;
        if (o->kind == OK_CR)
            for (int j = 0; j < p->ngrp; j++) {
                const grp_t *x = &p->grp[j];
                if (x->phase == g->phase && x->kind == C_CONT && gcr(x) == o->cr &&
                    cf_depends(p, x, h))
                    return 1;
            }
    }
    return 0;
}

/* ---- expectations of the continuations and completion functions of phase
 * phi (groups g0 ..): how often each callback runs and with which error,
 * what each continuation request's completion returns (gen_phase, once they
 * and the continuation requests' fates are chosen) */
void cf_model_expect(prog_t * p, int phi, int g0)
{
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
}

/* ---- what holds right after registration: the callback runs inside the
 * call, or not; whose callbacks a thread waits for (gen_phase, once the
 * generalized requests' completers are chosen) */
void cf_model_registered(prog_t * p, int phi, int g0)
{
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
}

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

void cf_describe_step(const prog_t * p, step_t * s)
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

void cf_print_program(FILE * f, const prog_t * p)
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

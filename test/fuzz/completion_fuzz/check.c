/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* completion_fuzz's runner, its checks: what a completed operation must
 * show, and the completion calls, which check each entry as it completes. */
#include "completion_fuzz.h"

/* ---- what a completed operation must show */
int cf_data_ok(const op_t * o, char *msg, size_t n)
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
int cf_status_ok(const op_t * o, const MPI_Status * st, int witherr, char *msg, size_t n)
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
        if (cf_errclass(st->MPI_ERROR) != want) {
            snprintf(msg, n, "status MPI_ERROR class %d, expected %d", cf_errclass(st->MPI_ERROR),
                     want);
            return 0;
        }
    }
    return 1;
}

/* the callbacks of continuation request c in phase phi have all run as
 * expected (when it completes) */
void cf_check_cr_groups(int step, int c, int phi, const char *when)
{
    for (int i = 0; i < G->ngrp; i++) {
        grp_t *g = &G->grp[i];
        if (g->phase != phi || g->kind != C_CONT || gcr(g) != c)
            continue;
        int calls = atomic_load(&g->calls);
        if (calls != g->expect_calls)
            cf_report(step, "%s c%d completed: g%d's callback ran %d times, expected %d", when, c,
                      g->id, calls, g->expect_calls);
    }
}

static void pre_poll(int c)
{
    cr_t *cr = &G->cr[c];
    atomic_store(&cr->polled, 0);
    cr->polling = 1;
}

/* ---- completion calls */
/* one completed entry of a completion call */
static void item_done(int sid, item_t * it, int e, int err, MPI_Status * st, int *done,
                      MPI_Request * hs)
{
    char msg[512];
    if (done[e]++) {
        cf_report(sid, "entry %d completed twice", e);
        return;
    }
    if (it->isop[e]) {
        op_t *o = &G->ops[it->ref[e]];
        o->h = hs[e];
        if (err != MPI_SUCCESS)
            cf_report(sid, "o%d %s completed with error %s", o->id, okname[o->kind],
                      cf_errstr(err));
        if (st && !cf_status_ok(o, st, 0, msg, sizeof msg))
            cf_report(sid, "o%d %s: %s", o->id, okname[o->kind], msg);
        if (!cf_data_ok(o, msg, sizeof msg))
            cf_report(sid, "o%d %s: %s", o->id, okname[o->kind], msg);
    } else {
        int c = it->ref[e];
        cr_t *cr = &G->cr[c];
        int want = cr->ph[it->phase].err ? MPI_ERR_OTHER : MPI_SUCCESS;
        if (cf_errclass(err) != want)
            cf_report(sid, "continuation request c%d completed with %s, expected class %d", c,
                      err ? cf_errstr(err) : "MPI_SUCCESS", want);
        cf_check_cr_groups(sid, c, it->phase, "completion call:");
        cr->active = 0;
    }
}

void cf_do_item(int sid, item_t * it)
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
                    cf_report(sid, "one call ran %d callbacks of c%d (max_poll %d)", \
                              r_, it->ref[k_], m_);                             \
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
                if (rc != MPI_SUCCESS && cf_errclass(rc) != MPI_ERR_IN_STATUS) {
                    cf_report(sid, "%s failed: %s", hname[it->how], cf_errstr(rc));
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
                    cf_report(sid, "%s returned %s and completed nothing", hname[it->how],
                              cf_errstr(rc));
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
                    cf_report(sid, "%s returned MPI_UNDEFINED with %d entries not completed (%s)",
                              hname[it->how], n - ndone, rc ? cf_errstr(rc) : "MPI_SUCCESS");
                    break;
                }
                if (idx < 0 || idx >= n) {
                    cf_report(sid, "%s returned index %d", hname[it->how], idx);
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
                    cf_report(sid, "%s returned MPI_UNDEFINED with %d entries not completed (%s)",
                              hname[it->how], n - ndone, rc ? cf_errstr(rc) : "MPI_SUCCESS");
                    break;
                }
                if (rc != MPI_SUCCESS && cf_errclass(rc) != MPI_ERR_IN_STATUS) {
                    cf_report(sid, "%s failed: %s", hname[it->how], cf_errstr(rc));
                    break;
                }
                for (int k = 0; k < outc; k++) {
                    if (idxs[k] < 0 || idxs[k] >= n) {
                        cf_report(sid, "%s returned index %d", hname[it->how], idxs[k]);
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

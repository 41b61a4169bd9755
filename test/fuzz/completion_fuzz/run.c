/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* completion_fuzz's runner: executes one program with MPI, every rank's
 * threads each its steps, and compares with the model (check.c). */
#include "completion_fuzz.h"

/* =========================================================== 5. executor */
prog_t *G;                      /* the program being run */
int ME, NP;
MPI_Comm COMM;
MPI_Win WIN;
int *WBASE;
static int cur_phase;
static _Thread_local int my_t;
static pthread_barrier_t tbar;
static atomic_int n_errs;
static int shown;
static pthread_mutex_t rep_mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int cur_step[MAXT];
int wd_seconds = 20;
static int quiet;

/* Stock MPICH 4.0.2 (src/mpi/errhan/errutil.c): an error made from a failing
 * query_fn's code ("**user") marks its slot of the 128-entry error ring as
 * carrying a user code, and nothing clears the mark when the slot is reused;
 * so, once the ring wraps, every error that lands on that slot and reaches an
 * error handler (MPIR_Err_return_comm) comes back as the stale user code.
 * Ours is MPI_ERR_OTHER, bare (no ring index): an expected error that comes
 * back as exactly that, after a query_fn failed, is counted, not compared
 * (test/fuzz/README, "Stock MPICH"). */
static atomic_int query_failed;
atomic_int ring_stale;

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

void cf_report(int step, const char *fmt, ...)
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

const char *cf_errstr(int rc)
{
    static _Thread_local char s[MPI_MAX_ERROR_STRING];
    int l;
    if (MPI_Error_string(rc, s, &l) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    return s;
}

int cf_errclass(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

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
                cf_report(step, "gave up waiting for %s (after an earlier mismatch)", what);
                return;
            }
        }
    }
}

/* ---- watchdog and crash handler: write(2) only */
static char sig_ctx[256];

void cf_sig_handler(int sig)
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

/* ---- callbacks */
static int cont_cb(int err, void *data)
{
    grp_t *g = data;
    char msg[512];
    int n = atomic_fetch_add(&g->calls, 1) + 1;
    if (n > 1) {
        cf_report(g->step, "callback of g%d ran %d times", g->id, n);
        return MPI_SUCCESS;
    }
    if (g->expect_calls == 0)
        cf_report(g->step, "callback of g%d ran although an operation failed and "
                  "MPIX_CONT_INVOKE_FAILED is not set", g->id);
    int c = gcr(g);
    if (c >= 0) {
        cr_t *cr = &G->cr[c];
        if (!cr->active)
            cf_report(g->step, "callback of g%d ran while its continuation request c%d was "
                      "inactive (not yet started)", g->id, c);
        if (cr->poll_only && !cr->freed) {
            if (!cr->polling || !pthread_equal(cr->owner, pthread_self()))
                cf_report(g->step, "callback of g%d (poll-only c%d) ran outside a test or wait on "
                          "c%d", g->id, c, c);
            else
                atomic_fetch_add(&cr->polled, 1);
        }
    }
    int want = g->expect_err ? MPI_ERR_OTHER : MPI_SUCCESS;
    if (cf_errclass(err) != want)
        cf_report(g->step, "callback of g%d: error_code class %d (%s), expected %d", g->id,
                  cf_errclass(err), err ? cf_errstr(err) : "MPI_SUCCESS", want);
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &G->ops[g->ops[i]];
        if (g->use_st && !cf_status_ok(o, &g->st[i], 1, msg, sizeof msg))
            cf_report(g->step, "callback of g%d, o%d %s: %s", g->id, o->id, okname[o->kind], msg);
        if (!cf_data_ok(o, msg, sizeof msg))
            cf_report(g->step, "callback of g%d, o%d %s: %s", g->id, o->id, okname[o->kind], msg);
        if (o->kind == OK_CR) {
            cf_check_cr_groups(g->step, o->cr, g->phase, "callback on");
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
        cf_report(g->step, "completion function of g%d ran %d times, expected %d", g->id, n,
                  g->expect_calls);
        return;
    }
    if (!cf_status_ok(o, st, 0, msg, sizeof msg))
        cf_report(g->step, "completion function of g%d (call %d), o%d %s: %s", g->id, n, o->id,
                  okname[o->kind], msg);
    if (!cf_data_ok(o, msg, sizeof msg))
        cf_report(g->step, "completion function of g%d, o%d %s: %s", g->id, o->id, okname[o->kind],
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
    cf_report(G->grp[o->grp].step, "the function of the refused MPIX_Request_on_complete on o%d "
              "ran (it took the request over from g%d's continuation)", o->id, o->grp);
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
                cf_report(step, "MPI_Request_get_status(o%d) failed: %s", o->id, cf_errstr(rc));
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
            cf_report(sid, "completion function ran inside MPIX_Request_on_complete");
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
            cf_report(sid, "MPIX_Continue left *op_request not MPI_REQUEST_NULL");
    } else {
        rc = MPIX_Continueall(g->nops, g->arr, cont_cb, g, g->flags, g->use_st ? g->st :
                              MPI_STATUSES_IGNORE, crh);
        if (rc == MPI_SUCCESS)
            for (int i = 0; i < g->nops; i++) {
                if ((g->flags & MPIX_CONT_REQBUF_VOLATILE) && g->arr[i] != g->copy[i])
                    cf_report(sid, "MPIX_Continueall with MPIX_CONT_REQBUF_VOLATILE changed "
                              "entry %d", i);
                if (!(g->flags & MPIX_CONT_REQBUF_VOLATILE) && g->arr[i] != MPI_REQUEST_NULL)
                    cf_report(sid, "MPIX_Continueall left entry %d not MPI_REQUEST_NULL", i);
            }
    }
    if (rc != MPI_SUCCESS) {
        cf_report(sid, "%s failed: %s", g->single ? "MPIX_Continue" : "MPIX_Continueall",
                  cf_errstr(rc));
        return;
    }
    for (int i = 0; i < g->nops; i++) {
        op_t *o = &G->ops[g->ops[i]];
        if (o->kind != OK_CR)
            o->h = MPI_REQUEST_NULL;    /* MPI's now (persistent: keep) */
    }
    int calls = atomic_load(&g->calls);
    if (g->inline_exp && calls != 1)
        cf_report(sid, "operations complete, continuation request %s: the callback should have "
                  "run inside the call (ran %d times)", g->cr >= 0 ? "active" : "none", calls);
    if (g->defer_zero && calls != 0)
        cf_report(sid, "MPIX_CONT_DEFER_COMPLETE: the callback ran inside the call");
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
                    cf_report(sid, "MPIX_Continue_init failed: %s", cf_errstr(rc));
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
                    cf_report(sid, "callback of g%d ran before MPI_Start of its continuation "
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
                if (cf_errclass(rc) != MPI_ERR_REQUEST && !stale_user_code(rc))
                    cf_report(sid, "MPIX_Request_on_complete on a notification request that a "
                              "continuation watches returned %s (code %#x), expected "
                              "MPI_ERR_REQUEST", rc ? cf_errstr(rc) : "MPI_SUCCESS", rc);
            }
            break;
        case S_FREE:
            rc = MPI_Request_free(&o->h);
            if (rc != MPI_SUCCESS) {
                cf_report(sid, "MPI_Request_free(%s) failed: %s", okname[o->kind], cf_errstr(rc));
                if (o->h != MPI_REQUEST_NULL && ncleanup[my_t] < 64)
                    cleanup[my_t][ncleanup[my_t]++] = o->h;
                o->h = MPI_REQUEST_NULL;
            } else if (o->h != MPI_REQUEST_NULL)
                cf_report(sid, "MPI_Request_free left the handle set");
            break;
        case S_NFREE:
            CALL(sid, MPI_Request_free(&o->keep));
            break;
        case S_CANCEL_CR:
            rc = MPI_Cancel(&cr->h);
            if (cf_errclass(rc) != MPI_ERR_REQUEST && !stale_user_code(rc))
                cf_report(sid, "MPI_Cancel on continuation request c%d returned %s (code %#x), "
                          "expected MPI_ERR_REQUEST", cr->id, rc ? cf_errstr(rc) : "MPI_SUCCESS",
                          rc);
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
            cf_do_item(sid, &G->item[s->a]);
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
char slow_step[256];

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
            cf_report(g->step, "%s: %s of g%d ran %d times, expected %d", when,
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
                cf_report(o->step, "%s: o%d's query_fn ran %d times, free_fn %d, cancel_fn %d; "
                          "expected %s1, 1, %d", when, o->id, q, f, c, testall ? ">= " : "",
                          o->cancel);
        }
        if (atomic_load(&o->dupcalls))
            cf_report(o->step, "%s: the refused completion function of o%d ran %d times", when,
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
                cf_report(x->step, "end of phase: window slot %d: %d, expected %d (%s from r%d)",
                          x->slot + i, WBASE[x->slot + i], (int) (x->val + i), acname[x->kind],
                          x->origin);
                break;
            }
    }
    for (int i = 0; i < NCTR; i++) {
        MPI_Count v = -1;
        CALL(-1, MPIX_Win_get_notify(WIN, i, &v));
        if (v != G->ctot[phi + 1][ME][i])
            cf_report(-1, "end of phase: counter %d is %lld, expected %lld", i, (long long) v,
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

int cf_run_program(prog_t * p)
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

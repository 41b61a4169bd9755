/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* rma_fuzz's runner: executes one program with MPI and compares with the
 * model's plan. */
#include "rma_fuzz.h"

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
int wd_seconds = 60;

void rma_sig_handler(int sig)
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
int jitter = -1;
#define JITTER_US 1000

void rma_jitter_str(int j, int P, char *buf, size_t len)
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
int rma_run_program(const prog_t * p, const uint8_t * keep, int quiet, stats_t * stats)
{
    exec_t x;
    plan_t pl;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    rma_plan_build(p, keep, me, &pl);
    if (stats && me == 0)
        rma_add_stats(stats, p, keep, &pl);
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
    rma_plan_free(&pl);
    alarm(0);
    int all = 0;
    MPI_Allreduce(&x.errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

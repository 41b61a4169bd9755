/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* completion_fuzz's driver: options, the programs of a run, the summary. */
#include "completion_fuzz.h"

/* ================================================================ 6. main */
typedef struct {
    long ops[NOK], comp[NCOMP], gc[NGC], hows[NH], flags[7];
    long groups, singles, crs, poll_only, undef_poll, inner, crfree, late_start, dups, cancel_cr,
        cancels, frees_rma, sleepy, failing, cross_poll, threads[MAXT + 1], inline_exp, r_done,
        acts, site1, site2, testall_poll;
} stats_t;

static void add_stats(stats_t * s, const prog_t * p)
{
    for (int r = 0; r < p->P; r++)
        s->threads[p->T[r]]++;
    for (int i = 0; i < p->nops; i++) {
        const op_t *o = &p->ops[i];
        s->ops[o->kind]++;
        s->comp[o->comp]++;
        if (o->comp == C_FREE && o->kind != OK_ISEND)
            s->frees_rma++;
        if (o->cancel)
            s->cancels++;
        if (o->kind == OK_GREQ) {
            s->gc[o->completer]++;
            s->sleepy += o->qsleep > 0;
            s->failing += o->fail;
            if (o->grp >= 0 && p->grp[o->grp].kind == C_CONT && gcr(&p->grp[o->grp]) >= 0 &&
                p->cr[gcr(&p->grp[o->grp])].poll_only && o->completer == GC_S3 &&
                o->cthread != o->thread)
                s->cross_poll++;
        }
        s->acts += o->acts > 1;
        /* bug 1's site: a sleeping query_fn of a watched generalized request,
         * more than one thread on the rank */
        if (o->kind == OK_GREQ && o->qsleep && o->comp == C_CONT && p->T[o->rank] > 1)
            s->site1++;
    }
    for (int i = 0; i < p->ngrp; i++) {
        const grp_t *g = &p->grp[i];
        if (g->kind != C_CONT)
            continue;
        s->groups++;
        s->singles += g->single;
        s->dups += g->dup;
        s->inline_exp += g->inline_exp;
        s->r_done += g->when == R_DONE;
        for (int f = 0; f < 7; f++)
            s->flags[f] += (g->flags >> f) & 1;
    }
    for (int i = 0; i < p->nitem; i++) {
        const item_t *it = &p->item[i];
        s->hows[it->how]++;
        for (int e = 0; e < it->n; e++)
            if (!it->isop[e] && p->cr[it->ref[e]].poll_only) {
                s->site2 += it->how == H_WAITALL && cf_cross_greq(p, it->ref[e], it->phase);
                s->testall_poll += it->how == H_TESTALL;
            }
    }
    for (int c = 0; c < p->ncr; c++) {
        s->crs++;
        s->poll_only += p->cr[c].poll_only;
        s->undef_poll += p->cr[c].max_poll < 0;
        for (int phi = 0; phi < p->nph; phi++) {
            s->inner += p->cr[c].ph[phi].fate == CF_INNER;
            s->crfree += p->cr[c].ph[phi].fate == CF_FREE;
            s->late_start += p->cr[c].ph[phi].start == CS_LATE;
            s->cancel_cr += p->cr[c].ph[phi].cancel;
        }
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: completion_fuzz [-seed S] [-n N] [-start I] [-v] [-max-ops K]\n"
            "                       [-max-threads T] [-watchdog SEC] [-no FEATURE,...] [-dry]\n"
            "  features: mt-greq, dup, cancel-cr, free-rma, undef-poll, poll-greq, poll-testall\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    long n = 200, start = 0;
    int max_ops = 10, max_t = MAXT, verbose = 0, bad = 0, provided, dry = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &ME);
    MPI_Comm_size(MPI_COMM_WORLD, &NP);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-v")) {
            verbose = 1;
            continue;
        }
        if (!strcmp(a, "-dry")) {
            dry = 1;
            continue;
        }
        if (!v) {
            bad = 1;
            break;
        }
        if (fuzz_value_opt(a, v, &seed, &n, &start, &max_ops, &wd_seconds)) {
            /* -seed, -n, -start, -max-ops, -watchdog */
        } else if (!strcmp(a, "-max-threads"))
            max_t = atoi(v);
        else if (!strcmp(a, "-no")) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int k;
                for (k = 0; k < NFEAT && strcmp(tok, featname[k]); k++);
                if (k == NFEAT)
                    bad = 1;
                else
                    feat_off[k] = 1;
            }
        } else
            bad = 1;
        i++;
    }
    if (bad || n < 0 || max_ops < 1 || max_ops > 16 || max_t < 1 || max_t > MAXT ||
        wd_seconds < 1 || NP > MAXP) {
        if (ME == 0) {
            usage();
            if (NP > MAXP)
                fprintf(stderr, "completion_fuzz: at most %d ranks\n", MAXP);
        }
        MPI_Finalize();
        return 2;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (ME == 0)
            fprintf(stderr, "completion_fuzz: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &COMM);
    /* every error comes back to the checker, which compares it with the model */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(COMM, MPI_ERRORS_RETURN);
    MPI_Win_allocate(NSLOTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &WBASE,
                     &WIN);
    MPI_Win_set_errhandler(WIN, MPI_ERRORS_RETURN);
    MPIX_Win_create_notify(WIN, NCTR);
    fuzz_catch_signals(cf_sig_handler);

    prog_t *p = calloc(1, sizeof *p);
    p->ops = calloc(MAXOPS, sizeof(op_t));
    p->acc = calloc(MAXACC, sizeof(acc_t));
    p->grp = calloc(MAXGRP, sizeof(grp_t));
    p->item = calloc(MAXITEM, sizeof(item_t));
    p->step = calloc(MAXSTEP, sizeof(step_t));
    stats_t stats;
    memset(&stats, 0, sizeof stats);
    int nfail = 0;
    long failed[8];
    double t0 = MPI_Wtime(), slowest = 0;
    long slowest_idx = -1;
    for (long idx = start; idx < start + n; idx++) {
        cf_gen_program(p, seed, idx, NP, max_ops, max_t);
        if (verbose && ME == 0)
            cf_print_program(stdout, p);
        if (ME == 0)
            add_stats(&stats, p);
        if (dry)
            continue;
        MPI_Barrier(MPI_COMM_WORLD);
        double tp = MPI_Wtime();
        int errs = cf_run_program(p);
        tp = MPI_Wtime() - tp;
        if (tp > slowest) {
            slowest = tp;
            slowest_idx = idx;
        }
        if (errs) {
            if (nfail < 8)
                failed[nfail] = idx;
            nfail++;
            MPI_Barrier(MPI_COMM_WORLD);
            if (ME == 0) {
                fuzz_print_mismatch("completion_fuzz", seed, idx, errs);
                if (nfail <= 2 && !verbose)
                    cf_print_program(stdout, p);
                fflush(stdout);
            }
        }
    }
    double el = MPI_Wtime() - t0;
    int stale = atomic_load(&ring_stale), stale_all = 0;
    MPI_Reduce(&stale, &stale_all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ME == 0) {
        stats_t *s = &stats;
        printf("completion_fuzz: seed %llu, programs %ld..%ld on %d ranks, %.1f s; threads per "
               "rank 1/2/3/4: %ld/%ld/%ld/%ld; operations: %ld irecv, %ld isend, %ld rput, %ld "
               "rput_notify, %ld notify (%ld with several activations), %ld counter, %ld "
               "grequest (%ld sleeping, %ld failing), %ld null, %ld inactive, %ld contreq; "
               "completed by: %ld completion calls, %ld continuations, %ld on_complete, %ld "
               "MPI_Request_free (%ld of RMA requests); %ld cancelled; grequests completed "
               "before registration %ld, in produce %ld, first in complete %ld, by a callback "
               "%ld, after the completion calls %ld (%ld from another thread for a poll-only "
               "request); continuations: %ld (%ld MPIX_Continue, %ld expected inside the call, "
               "%ld registered once complete), flags VOLATILE %ld PERSISTENT %ld DEFER %ld "
               "INVOKE_FAILED %ld IMMEDIATE %ld FORGET %ld; continuation requests: %ld (%ld "
               "poll-only, %ld with max_poll MPI_UNDEFINED), %ld started late, %ld freed with "
               "callbacks pending, %ld as operations, %ld MPI_Cancel refused; %ld "
               "MPIX_Request_on_complete refused; completion calls: Wait %ld Test %ld Waitall "
               "%ld Testall %ld Waitany %ld Testany %ld Waitsome %ld Testsome %ld\n",
               (unsigned long long) seed, start, start + n - 1, NP, el, s->threads[1],
               s->threads[2], s->threads[3], s->threads[4], s->ops[OK_IRECV], s->ops[OK_ISEND],
               s->ops[OK_RPUT], s->ops[OK_RPUTN], s->ops[OK_NOTIFY], s->acts, s->ops[OK_CTR],
               s->ops[OK_GREQ], s->sleepy, s->failing, s->ops[OK_NULL], s->ops[OK_INACT],
               s->ops[OK_CR], s->comp[C_DIRECT], s->comp[C_CONT], s->comp[C_ONCOMP],
               s->comp[C_FREE], s->frees_rma, s->cancels, s->gc[GC_PRE], s->gc[GC_S2],
               s->gc[GC_S3], s->gc[GC_CB], s->gc[GC_LATE], s->cross_poll, s->groups, s->singles,
               s->inline_exp, s->r_done, s->flags[0], s->flags[1], s->flags[3], s->flags[4],
               s->flags[5], s->flags[6], s->crs, s->poll_only, s->undef_poll, s->late_start,
               s->crfree, s->inner, s->cancel_cr, s->dups, s->hows[H_WAIT], s->hows[H_TEST],
               s->hows[H_WAITALL], s->hows[H_TESTALL], s->hows[H_WAITANY], s->hows[H_TESTANY],
               s->hows[H_WAITSOME], s->hows[H_TESTSOME]);
        printf("completion_fuzz: situations: %ld sleeping query_fn of a watched generalized "
               "request with threads, %ld MPI_Waitall on a poll-only continuation request "
               "whose generalized request another thread completes, %ld MPI_Testall on a "
               "poll-only one, %ld refused MPIX_Request_on_complete, %ld refused MPI_Cancel of "
               "a continuation request, %ld MPI_Request_free of RMA requests, %ld max_poll "
               "MPI_UNDEFINED\n", s->site1, s->site2, s->testall_poll, s->dups, s->cancel_cr,
               s->frees_rma, s->undef_poll);
        printf("completion_fuzz: slowest program %ld, %.2f s\n", slowest_idx, slowest);
        if (stale_all)
            printf("completion_fuzz: %d refused call%s returned MPI_ERR_OTHER, the code of an "
                   "earlier failing query_fn (stock MPICH 4.0.2's error ring: test/fuzz/README); "
                   "not counted as mismatches\n", stale_all, stale_all == 1 ? "" : "s");
        fuzz_print_result("completion_fuzz", nfail, n, failed);
    }
    if (getenv("CF_SLOW"))
        fprintf(stderr, "[rank %d] slowest step: %s\n", ME, slow_step);
    int rc = MPI_Win_free(&WIN);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] MPI_Win_free failed (a request of the window left?): %s\n",
                ME, cf_errstr(rc));
        nfail++;
    }
    MPI_Comm_free(&COMM);
    MPI_Finalize();
    return nfail != 0;
}

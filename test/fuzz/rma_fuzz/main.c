/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* rma_fuzz's driver: options, the programs of a run, the shrinker, the
 * summary. */
#include "rma_fuzz.h"

/* what the runs covered, for the summary line: rma_run_program adds each
 * program's on rank 0 */
void rma_add_stats(stats_t * st, const prog_t * p, const uint8_t * keep, const plan_t * pl)
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

/* ========================================================= 8. shrinker */
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
        int errs = rma_run_program(p, keep, 1, NULL);
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
                    else if (MPI_Wtime() - t0 < seconds && runs < 600 && rma_program_valid(p, cand)) {
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
        rma_print_program(stdout, p, keep);
        if (how >= 0) {
            char j[128];
            rma_jitter_str(how, p->P, j, sizeof j);
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
        errs = rma_run_program(p, keep, 0, NULL);
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
    fuzz_catch_signals(rma_sig_handler);

    int nfail = 0;
    long failed[8];
    stats_t stats;
    memset(&stats, 0, sizeof stats);
    double t0 = MPI_Wtime();
    for (long idx = start; idx < start + n; idx++) {
        prog_t p;
        rma_gen_program(&p, seed, idx, P, max_ops);
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
            rma_print_program(stdout, &p, keep);
        int errs = rma_run_program(&p, keep, 0, &stats);
        if (errs) {
            if (nfail < 8)
                failed[nfail] = idx;
            nfail++;
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) {
                fuzz_print_mismatch("rma_fuzz", seed, idx, errs);
                if (nfail <= 3)
                    rma_print_program(stdout, &p, keep);
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

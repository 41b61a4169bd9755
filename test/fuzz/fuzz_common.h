/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/* What the randomized checkers (rma_fuzz, completion_fuzz) share: their
 * random numbers, the output of their watchdog and crash handlers, the
 * options both take and their closing lines.  Header-only (static inline),
 * so that each checker is the C files of its directory. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the generator's random numbers: splitmix64, tiny, good enough, and
 * identical everywhere (no rand()), so that every rank derives the same
 * program from (seed, index). */
#define GOLDEN 0x9e3779b97f4a7c15ull

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* a value that depends only on its arguments: for choices that must not
 * move when other choices change (rma_fuzz's shrinker removes operations) */
static inline uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix64(a + GOLDEN * mix64(b + GOLDEN * mix64(c + GOLDEN * mix64(d + GOLDEN))));
}

typedef struct {
    uint64_t s;
} rng_t;

static inline uint64_t rnext(rng_t * r)
{
    return mix64(r->s += GOLDEN);
}

static inline int rbelow(rng_t * r, int n)
{
    return n > 0 ? (int) (rnext(r) % (uint64_t) n) : 0;
}

static inline int rpct(rng_t * r, int pct)
{
    return rbelow(r, 100) < pct;
}

/* ---- watchdog and crash handlers: write(2) only */
static inline void sig_write(const char *s)
{
    ssize_t rc = write(2, s, strlen(s));
    (void) rc;
}

static inline void sig_int(long v)
{
    char b[24];
    int k = sizeof b - 1;
    b[k] = 0;
    if (v < 0) {
        sig_write("-");
        v = -v;
    }
    do
        b[--k] = (char) ('0' + v % 10);
    while ((v /= 10) && k > 0);
    sig_write(b + k);
}

/* the watchdog (SIGALRM) and the crashes; after MPI_Init: ours replace
 * MPICH's backtrace handlers */
static inline void fuzz_catch_signals(void (*handler)(int))
{
    signal(SIGALRM, handler);
    signal(SIGSEGV, handler);
    signal(SIGBUS, handler);
    signal(SIGFPE, handler);
    signal(SIGABRT, handler);
}

/* ---- options with a value that both take: -seed S, -n N, -start I,
 * -max-ops K, -watchdog SEC (v, never NULL); 0 if a is none of them */
static inline int fuzz_value_opt(const char *a, const char *v, uint64_t * seed, long *n,
                                 long *start, int *max_ops, int *wd_seconds)
{
    if (!strcmp(a, "-seed"))
        *seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "-n"))
        *n = atol(v);
    else if (!strcmp(a, "-start"))
        *start = atol(v);
    else if (!strcmp(a, "-max-ops"))
        *max_ops = atoi(v);
    else if (!strcmp(a, "-watchdog"))
        *wd_seconds = atoi(v);
    else
        return 0;
    return 1;
}

/* ---- what rank 0 prints: a failing program, and the last lines */
static inline void fuzz_print_mismatch(const char *name, uint64_t seed, long idx, int errs)
{
    printf("==== MISMATCH: seed %llu program %ld: %d mismatch%s (rerun: %s -seed %llu -start "
           "%ld -n 1 -v)\n", (unsigned long long) seed, idx, errs, errs == 1 ? "" : "es", name,
           (unsigned long long) seed, idx);
}

/* "No Errors" is what test/run-suite.sh looks for */
static inline void fuzz_print_result(const char *name, int nfail, long n, const long *failed)
{
    printf("%s: %d of %ld programs failed", name, nfail, n);
    for (int i = 0; i < nfail && i < 8; i++)
        printf("%s%ld", i ? ", " : " (programs ", failed[i]);
    printf("%s\n", nfail > 8 ? ", ...)" : nfail ? ")" : "");
    if (nfail == 0)
        printf("No Errors\n");
    else
        printf("Found %d errors\n", nfail);
    fflush(stdout);
}

#endif /* FUZZ_COMMON_H */

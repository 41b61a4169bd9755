/* The randomized checkers' generator (rma_fuzz.c, completion_fuzz.c):
 * splitmix64, tiny, good enough, and identical everywhere (no rand()), so
 * that every rank derives the same program from (seed, index). */
#ifndef FUZZ_RNG_H
#define FUZZ_RNG_H

#include <stdint.h>

#define GOLDEN 0x9e3779b97f4a7c15ull

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* a value that depends only on its arguments: for choices that must not
 * move when other choices change (rma_fuzz's shrinker removes operations) */
static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix64(a + GOLDEN * mix64(b + GOLDEN * mix64(c + GOLDEN * mix64(d + GOLDEN))));
}

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rnext(rng_t * r)
{
    return mix64(r->s += GOLDEN);
}

static int rbelow(rng_t * r, int n)
{
    return n > 0 ? (int) (rnext(r) % (uint64_t) n) : 0;
}

static int rpct(rng_t * r, int pct)
{
    return rbelow(r, 100) < pct;
}

#endif /* FUZZ_RNG_H */

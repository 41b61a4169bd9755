/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Bounded multi-producer / single-consumer ring of 64-byte cells.  Plain
 * C11: the shared-memory notification path (ch4_notify_ring.c) keeps one per
 * process, for all its windows, in a segment shared by the processes of a
 * node, and test/unit/ring_stress.c runs it with threads under
 * ThreadSanitizer.
 *
 * Producers claim positions with a CAS on `tail` (a plain store where only
 * one can be running); the producer of position p fills cell p mod size and
 * publishes it by storing turn = p + 1, which the consumer waits for.  The
 * consumer gives cells back by advancing `released` (every position below
 * it is consumed), on a line of its own.
 * A producer keeps the bound released + size it last read and reads
 * `released` again only when its position reaches that bound, so a notified
 * access touches no line the consumer wrote: the producer stores into the
 * cell it publishes, the consumer reads it, and neither waits for the
 * other's copy of a line that only one of them needs (a turn written back
 * by the consumer, as in D. Vyukov's bounded queue, which this one follows
 * otherwise, cost a cache-line transfer on each side's critical path).
 * Positions are 32-bit and compared by signed difference, so they wrap.
 */
#ifndef NOTIFY_RING_H_INCLUDED
#define NOTIFY_RING_H_INCLUDED

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define NOTIFY_RING_LINE 64

typedef struct {
    _Atomic uint32_t turn;      /* p + 1 once position p is published here */
    uint32_t nseq;              /* issue order, for MPIR_Notify_arrive */
    int32_t src;                /* origin rank in the window's group */
    int32_t tag;
    uint64_t bytes;             /* bytes accessed */
    uint64_t win_id;            /* the window (MPICH's id): one ring serves all of them */
    /* A whole line per cell, so producers of neighbouring cells do not share
     * one.  No payload travels here: a put's data goes straight to target
     * memory before the cell is published, as MPI_Put's must be there by the
     * origin's flush, whatever the target does meanwhile. */
    char pad[32];
} MPIDI_Notify_cell_t;

_Static_assert(sizeof(MPIDI_Notify_cell_t) == NOTIFY_RING_LINE,
               "a notification cell is one cache line");

typedef struct {
    _Atomic uint32_t tail;      /* next position to claim (producers only) */
    char pad[NOTIFY_RING_LINE - sizeof(uint32_t)];
    _Atomic uint32_t released;  /* positions below it are consumed (consumer only) */
    char pad2[NOTIFY_RING_LINE - sizeof(uint32_t)];
    MPIDI_Notify_cell_t cells[];
} MPIDI_Notify_ring_t;

static inline size_t MPIDI_Notify_ring_bytes(uint32_t size)
{
    return sizeof(MPIDI_Notify_ring_t) + (size_t) size *sizeof(MPIDI_Notify_cell_t);
}

/* The owner initialises its ring before any producer can see it: every
 * cell as published one lap before position 0. */
static inline void MPIDI_Notify_ring_init(MPIDI_Notify_ring_t * ring, uint32_t size)
{
    atomic_init(&ring->tail, 0);
    atomic_init(&ring->released, 0);
    for (uint32_t i = 0; i < size; i++)
        atomic_init(&ring->cells[i].turn, i + 1 - size);
}

/* Producer: whether position pos is free.  *limit is this producer's bound
 * on the positions known free (0 before its first claim on this ring). */
static inline bool MPIDI_Notify_ring_cell_free(MPIDI_Notify_ring_t * ring, uint32_t mask,
                                               uint32_t * limit, uint32_t pos)
{
    /* free: pos in [limit - size, limit), tested so that a bound read long
     * ago (positions wrap) is read again, never trusted */
    if ((uint32_t) (*limit - pos) - 1u <= mask)
        return true;
    /* acquire: pairs with MPIDI_Notify_ring_release, so the consumer's
     * reads of the cell's previous contents are done before this producer
     * writes it */
    *limit = atomic_load_explicit(&ring->released, memory_order_acquire) + mask + 1;
    return (uint32_t) (*limit - pos) - 1u <= mask;
}

/* Producer: claim the next cell.  Returns NULL when the ring is full (the
 * caller makes progress and retries; nothing is ever overwritten). */
static inline MPIDI_Notify_cell_t *MPIDI_Notify_ring_claim_cell(MPIDI_Notify_ring_t * ring,
                                                                uint32_t mask, uint32_t * limit,
                                                                uint32_t * pos_out)
{
    uint32_t pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    for (;;) {
        if (!MPIDI_Notify_ring_cell_free(ring, mask, limit, pos))
            return NULL;        /* the consumer has not freed this cell yet */
        /* relaxed is enough: the cell is handed over through turn */
        if (atomic_compare_exchange_weak_explicit(&ring->tail, &pos, pos + 1,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            *pos_out = pos;
            return &ring->cells[pos & mask];
        }
        /* pos now holds the current tail: retry there */
    }
}

/* The same for a ring whose producers never run at once (one process,
 * whose calls hold a lock): a plain load and store of tail, without the
 * compare-and-swap, whose lock also waits for every store before it (a
 * put's copy) to leave the core.  The cell still goes to the consumer
 * through turn alone. */
static inline MPIDI_Notify_cell_t *MPIDI_Notify_ring_claim_cell_serial(MPIDI_Notify_ring_t * ring,
                                                                       uint32_t mask,
                                                                       uint32_t * limit,
                                                                       uint32_t * pos_out)
{
    uint32_t pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    if (!MPIDI_Notify_ring_cell_free(ring, mask, limit, pos))
        return NULL;
    atomic_store_explicit(&ring->tail, pos + 1, memory_order_relaxed);
    *pos_out = pos;
    return &ring->cells[pos & mask];
}

/* Producer: hand the filled cell to the consumer.  Release: every write the
 * producer made before (the cell's fields, and for a put its copy into
 * target memory; for a get, its reads of target memory)
 * happens before the consumer's acquire load of turn. */
static inline void MPIDI_Notify_ring_publish_cell(MPIDI_Notify_cell_t * c, uint32_t pos)
{
    atomic_store_explicit(&c->turn, pos + 1, memory_order_release);
}

/* Consumer: the cell of position head, and whether it is published.
 * Acquire: pairs with MPIDI_Notify_ring_publish_cell, so the cell and the
 * data published with it are visible. */
static inline MPIDI_Notify_cell_t *MPIDI_Notify_ring_cell_at(MPIDI_Notify_ring_t * ring,
                                                             uint32_t mask, uint32_t head)
{
    return &ring->cells[head & mask];
}

static inline bool MPIDI_Notify_ring_cell_full(MPIDI_Notify_cell_t * c, uint32_t head)
{
    return atomic_load_explicit(&c->turn, memory_order_acquire) == head + 1;
}

/* Consumer: the cell at position head if it is full, else NULL */
static inline MPIDI_Notify_cell_t *MPIDI_Notify_ring_peek_cell(MPIDI_Notify_ring_t * ring,
                                                               uint32_t mask, uint32_t head)
{
    MPIDI_Notify_cell_t *c = MPIDI_Notify_ring_cell_at(ring, mask, head);
    return MPIDI_Notify_ring_cell_full(c, head) ? c : NULL;
}

/* Consumer: give every position below head back to the producers.
 * Release: our reads of those cells happen before a producer that sees
 * this may overwrite them. */
static inline void MPIDI_Notify_ring_release(MPIDI_Notify_ring_t * ring, uint32_t head)
{
    atomic_store_explicit(&ring->released, head, memory_order_release);
}

#endif /* NOTIFY_RING_H_INCLUDED */

/*
 * Bounded multi-producer / single-consumer ring of 64-byte cells, after
 * D. Vyukov's bounded MPMC queue.  Plain C11: the shared-memory notification
 * path (ch4_notify_ring.c) keeps one per process, for all its windows, in a
 * segment shared by the processes of a node, and test/unit/ring_stress.c
 * runs it with threads under ThreadSanitizer.
 *
 * Every cell has a `turn`: the producer that claimed position p may write the
 * cell once turn == p; the consumer may read it once turn == p + 1, and hands
 * it to the producer of position p + size by storing turn = p + size.
 * Producers claim positions with a CAS on `tail`.  Positions are 32-bit and
 * compared by signed difference, so they wrap around.
 */
#ifndef NOTIFY_RING_H_INCLUDED
#define NOTIFY_RING_H_INCLUDED

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define NOTIFY_RING_LINE 64

typedef struct {
    _Atomic uint32_t turn;
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
} notify_cell_t;

_Static_assert(sizeof(notify_cell_t) == NOTIFY_RING_LINE, "a notification cell is one cache line");

typedef struct {
    _Atomic uint32_t tail;      /* next position to claim (producers only) */
    char pad[NOTIFY_RING_LINE - sizeof(uint32_t)];
    notify_cell_t cells[];
} notify_ring_t;

static inline size_t notify_ring_bytes(uint32_t size)
{
    return sizeof(notify_ring_t) + (size_t) size * sizeof(notify_cell_t);
}

/* The owner initialises its ring before any producer can see it. */
static inline void notify_ring_init(notify_ring_t * ring, uint32_t size)
{
    atomic_init(&ring->tail, 0);
    for (uint32_t i = 0; i < size; i++)
        atomic_init(&ring->cells[i].turn, i);
}

/* Producer: claim the next cell.  Returns NULL when the ring is full (the
 * caller makes progress and retries; nothing is ever overwritten). */
static inline notify_cell_t *notify_ring_claim(notify_ring_t * ring, uint32_t mask,
                                               uint32_t * pos_out)
{
    uint32_t pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    for (;;) {
        notify_cell_t *c = &ring->cells[pos & mask];
        /* acquire: pairs with the consumer's release in notify_ring_release,
         * so its reads of the cell's previous contents are done */
        uint32_t turn = atomic_load_explicit(&c->turn, memory_order_acquire);
        int32_t diff = (int32_t) (turn - pos);
        if (diff == 0) {
            /* relaxed is enough: the cell is handed over through turn */
            if (atomic_compare_exchange_weak_explicit(&ring->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *pos_out = pos;
                return c;
            }
            /* pos now holds the current tail: retry there */
        } else if (diff < 0) {
            return NULL;        /* the consumer has not freed this cell yet */
        } else {
            pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        }
    }
}

/* Producer: hand the filled cell to the consumer.  Release: every write the
 * producer made before (the cell's fields, and for a put its copy into
 * target memory; for a get, its reads of target memory)
 * happens before the consumer's acquire load of turn. */
static inline void notify_ring_publish(notify_cell_t * c, uint32_t pos)
{
    atomic_store_explicit(&c->turn, pos + 1, memory_order_release);
}

/* Consumer: the cell at position head if it is full, else NULL.  Acquire:
 * pairs with notify_ring_publish, so the cell and the data published with it
 * are visible. */
static inline notify_cell_t *notify_ring_peek(notify_ring_t * ring, uint32_t mask, uint32_t head)
{
    notify_cell_t *c = &ring->cells[head & mask];
    if (atomic_load_explicit(&c->turn, memory_order_acquire) != head + 1)
        return NULL;
    return c;
}

/* Consumer: give the cell at position head back to the producers.  Release:
 * our reads of the cell happen before a producer of position head + size may
 * overwrite it. */
static inline void notify_ring_release(notify_cell_t * c, uint32_t head, uint32_t size)
{
    atomic_store_explicit(&c->turn, head + size, memory_order_release);
}

#endif /* NOTIFY_RING_H_INCLUDED */

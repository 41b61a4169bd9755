/* The notification ring (src/mpid/ch4/src/notify_ring.h) without MPI:
 * NPROD producer threads push NPER cells each through a ring of RING cells to
 * one consumer thread, which checks that every producer's cells arrive
 * complete and in order (one producer claims without compare-and-swap).  As in MPICH, one ring serves many windows: each
 * producer spreads its cells over NWIN window ids, and the consumer checks
 * the order per (producer, window) as MPIR_Notify_arrive's sequence numbers
 * would, and that no cell names a window that does not exist.  Built with
 * -fsanitize=thread by test/run-suite.sh, so ThreadSanitizer checks the
 * memory ordering of claim/publish/peek/release (the MPI runs cannot: their
 * producers are other processes).
 *
 *   ring_stress [producers] [per_producer] [ring_cells] [windows]
 */
#include "notify_ring.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MPIDI_Notify_ring_t *ring;
static uint32_t size, mask;
static int nprod, nper, nwin;
static _Atomic int full_seen;

static void *producer(void *arg)
{
    int id = (int) (long) arg;
    uint32_t limit = 0;         /* this producer's bound on the free positions */
    for (int i = 0; i < nper; i++) {
        uint32_t pos;
        MPIDI_Notify_cell_t *c;
        /* one producer claims as a process alone with its target does */
        while (!(c = nprod == 1 ? MPIDI_Notify_ring_claim_cell_serial(ring, mask, &limit, &pos) :
                 MPIDI_Notify_ring_claim_cell(ring, mask, &limit, &pos))) {
            atomic_fetch_add_explicit(&full_seen, 1, memory_order_relaxed);
            sched_yield();      /* the MPI code drives progress here */
        }
        c->src = id;
        c->win_id = (uint64_t) (i % nwin) + 1;  /* 0 is no window */
        c->nseq = (uint32_t) (i / nwin);        /* per (producer, window) */
        c->bytes = 8;
        /* the tag: the sequence number again, to catch torn cells */
        c->tag = i;
        MPIDI_Notify_ring_publish_cell(c, pos);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nprod = argc > 1 ? atoi(argv[1]) : 8;
    nper = argc > 2 ? atoi(argv[2]) : 20000;
    size = argc > 3 ? (uint32_t) atoi(argv[3]) : 4;
    nwin = argc > 4 ? atoi(argv[4]) : 3;
    mask = size - 1;
    if (size < 2 || (size & mask) || nwin < 1) {
        fprintf(stderr, "ring size must be a power of two >= 2, windows >= 1\n");
        return 2;
    }
    ring = aligned_alloc(NOTIFY_RING_LINE, MPIDI_Notify_ring_bytes(size));
    MPIDI_Notify_ring_init(ring, size);
    pthread_t *th = malloc(nprod * sizeof(pthread_t));
    int *next = calloc((size_t) nprod * nwin, sizeof(int));    /* [producer][window] */
    for (long p = 0; p < nprod; p++)
        pthread_create(&th[p], NULL, producer, (void *) p);

    long total = (long) nprod * nper, errors = 0;
    uint32_t head = 0;
    for (long got = 0; got < total;) {
        MPIDI_Notify_cell_t *c = MPIDI_Notify_ring_peek_cell(ring, mask, head);
        if (!c) {
            sched_yield();
            continue;
        }
        int src = c->src, seq = (int) c->nseq, pay = c->tag;
        long w = (long) c->win_id - 1;
        head++;
        /* as the MPI consumer does when a drain ends: every few cells */
        if (head % 3 == 0 || !MPIDI_Notify_ring_peek_cell(ring, mask, head))
            MPIDI_Notify_ring_release(ring, head);
        got++;
        int *want = src >= 0 && src < nprod && w >= 0 && w < nwin ? &next[src * nwin + w] : NULL;
        if (!want || seq != *want || pay != (int) (seq * nwin + w)) {
            if (errors++ < 5)
                fprintf(stderr, "cell %ld: producer %d window %ld seq %d tag %d (want seq %d)\n",
                        got, src, w, seq, pay, want ? *want : -1);
        } else
            (*want)++;
    }
    for (int p = 0; p < nprod; p++)
        pthread_join(th[p], NULL);
    printf("ring_stress: %d producers x %d cells over %d windows through %u cells, ring full %d "
           "times\n", nprod, nper, nwin, size, atomic_load(&full_seen));
    if (errors == 0)
        printf("No Errors\n");
    else
        printf("Found %ld errors\n", errors);
    free(ring);
    free(th);
    free(next);
    return errors != 0;
}

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: the contiguous pieces of (buf, count, datatype), a few
 * at a time, for accesses that move non-contiguous data piece by piece
 * without packing it (the libfabric path's writes, the rings' copies).
 *
 * By byte offset: MPIR_Typerep_to_iov_offset (and so MPIDI_OFI_nopack_putget)
 * loops for ever in 4.0.2's dataloop once a datatype has more pieces than
 * one batch (a fix to MPICH worked around here, not patched: patches/series,
 * part 2).
 */
#ifndef NOTIFY_IOV_WALK_H_INCLUDED
#define NOTIFY_IOV_WALK_H_INCLUDED

#define MPIDI_NOTIFY_WALK_BATCH 64

typedef struct {
    const void *buf;
    MPI_Aint count, off, total;
    MPI_Datatype dt;
    struct iovec iov[MPIDI_NOTIFY_WALK_BATCH];
    int n, i;
} MPIDI_Notify_iov_walk_t;

#define MPIDI_NOTIFY_IOV_WALK(b, c, d, t) \
    {.buf = (b),.count = (c),.dt = (d),.total = (t)}

/* the next non-empty piece; NULL if the datatype has no more (the range
 * checks keep both sides at least as long as the access, so only a
 * datatype engine failure gets there) */
static inline struct iovec *MPIDI_Notify_iov_next(MPIDI_Notify_iov_walk_t * w)
{
    while (w->i == w->n || w->iov[w->i].iov_len == 0) {
        if (w->i < w->n) {
            w->i++;
            continue;
        }
        MPI_Aint n, bytes;
        MPIR_Typerep_to_iov(w->buf, w->count, w->dt, w->off, w->iov, MPIDI_NOTIFY_WALK_BATCH,
                            w->total - w->off, &n, &bytes);
        if (n <= 0 || bytes <= 0)
            return NULL;
        w->off += bytes;
        w->n = (int) n;
        w->i = 0;
    }
    return &w->iov[w->i];
}

/* take len bytes off the front of a piece */
static inline void MPIDI_Notify_iov_advance(struct iovec *v, size_t len)
{
    v->iov_base = (char *) v->iov_base + len;
    v->iov_len -= len;
}

#endif /* NOTIFY_IOV_WALK_H_INCLUDED */

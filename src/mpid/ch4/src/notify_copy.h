/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: copying between private memory and a node-shared
 * segment (the rings' puts and gets, on ch4:ofi and ch4:ucx).
 *
 * The bytes move with glibc's memcpy, the routine MPI_Put and MPI_Get on
 * the node use, so that a notified access costs their copy plus the
 * notification on every machine (bench/shm_copy.c measures the routines
 * in the cache state of a ping-pong; where `rep movsb` is slow across a
 * shared mapping, glibc's tunables change both, doc/guide.md).  Only a
 * few bytes go without it: there a call and its size dispatch cost more
 * than the copy.
 */
#ifndef NOTIFY_COPY_H_INCLUDED
#define NOTIFY_COPY_H_INCLUDED

#include <stdint.h>
#include <string.h>

static inline void MPIDI_Notify_copy_shared(char *dst, const char *src, size_t n)
{
    if (n > 16) {
        memcpy(dst, src, n);
    } else if (n >= 8) {
        /* two overlapping words */
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
}

#endif /* NOTIFY_COPY_H_INCLUDED */

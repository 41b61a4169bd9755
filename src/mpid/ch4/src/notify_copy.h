/*
 * Notified Access: copying between private memory and a node-shared
 * segment (the posix rings' gets, the ch4:ucx direct copies).
 *
 * glibc's memcpy switches to `rep movsb` from 2 KiB to a few hundred KiB,
 * which is several times slower across a MAP_SHARED mapping here (a get's
 * copy out of the segment on ch4:ofi; on ch4:ucx a put's copy into it;
 * doc/benchmarks.md).  In that range copy in pieces that keep memcpy on its
 * vector loop.
 */
#ifndef NOTIFY_COPY_H_INCLUDED
#define NOTIFY_COPY_H_INCLUDED

#include <stdint.h>
#include <string.h>

static inline void MPIDI_Notify_copy_shared(char *dst, const char *src, size_t n)
{
    const size_t piece = 2048, plain_from = 512 * 1024;
    if (n <= 16) {
        /* a few bytes: two overlapping words or one, no string instruction */
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, src, 8);
            memcpy(&b, src + n - 8, 8);
            memcpy(dst, &a, 8);
            memcpy(dst + n - 8, &b, 8);
        } else {
            for (size_t i = 0; i < n; i++)
                dst[i] = src[i];
        }
        return;
    }
    if (n >= plain_from) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t off = 0; off < n; off += piece)
        memcpy(dst + off, src + off, n - off < piece ? n - off : piece);
}

#endif /* NOTIFY_COPY_H_INCLUDED */

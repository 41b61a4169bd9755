/* How fast a copy into and out of a node-shared mapping is, by routine, in
 * the cache state of a shared-memory ping-pong (no MPI).
 *
 *   shm_copy [-n ITERS] [-min BYTES] [-max BYTES] [-offset BYTES]
 *
 * Two processes on one MAP_SHARED segment, one data region each ("window")
 * and one flag line each.  Per half round trip the sender copies SIZE bytes
 * from its private buffer into the peer's region (put) or from the peer's
 * region into its private buffer (get), then stores a token in the peer's
 * flag line; the peer spins on it.  That is what a notified put or get on
 * the node does (the copy of MPIDI_Notify_copy_shared, then a ring cell),
 * without MPICH's calls around it, so that the routines' differences are all
 * that differs.  Routines, interleaved round by round:
 *   memcpy   glibc's memcpy (what MPI_Put and MPI_Get on the node use)
 *   pieces   memcpy in 2 KiB pieces (keeps glibc on its vector loop)
 *   movsb    rep movsb (what glibc's memcpy picks in its middle range on
 *            x86-64; elsewhere memcpy again)
 *   cas      memcpy, then a compare-and-swap on a line of the sender's own
 *            before the flag: what a ring claim after the copy costs
 *            (its lock waits for the copy's stores)
 *   lastbyte puts only: memcpy, no flag; the peer spins on the last byte of
 *            its region, as pingpong's `bound` does.  Not a correct
 *            protocol (the stores of one copy may become visible in any
 *            order): how much sooner a byte can arrive than a flag stored
 *            after the copy, which every correct notification waits for.
 * -offset moves the private buffer that many bytes off its page (0): some
 * cores' `rep movsb` is slow when source and destination share their
 * offset in a page.
 * Output: median half round trip (us) per routine and size. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { R_MEMCPY, R_PIECES, R_MOVSB, R_CAS, R_LASTBYTE, NROUTINES };
static const char *routine_name[] = { "memcpy", "pieces", "movsb", "cas", "lastbyte" };

static void copy_pieces(char *dst, const char *src, size_t n)
{
    for (size_t off = 0; off < n; off += 2048)
        memcpy(dst + off, src + off, n - off < 2048 ? n - off : 2048);
}

static void copy_movsb(char *dst, const char *src, size_t n)
{
#if defined(__x86_64__)
    __asm__ volatile ("rep movsb":"+D" (dst), "+S"(src), "+c"(n)::"memory");
#else
    memcpy(dst, src, n);
#endif
}

static void do_copy(int r, char *dst, const char *src, size_t n)
{
    switch (r) {
        case R_MEMCPY:
        case R_CAS:
        case R_LASTBYTE:
            memcpy(dst, src, n);
            break;
        case R_PIECES:
            copy_pieces(dst, src, n);
            break;
        case R_MOVSB:
            copy_movsb(dst, src, n);
            break;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

struct shared {
    _Alignas(64) _Atomic long flag[2][8];       /* [rank] its own line */
    _Alignas(64) _Atomic long tail[2][8];       /* [rank] the line it claims on (cas) */
};

int main(int argc, char **argv)
{
    int iters = 2000;
    size_t min = 8, max = 4 << 20, offset = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-min"))
            min = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-max"))
            max = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-offset"))
            offset = strtoul(argv[i + 1], NULL, 0) % 4096;
    }
    size_t seg_bytes = 4096 + 2 * max;
    char *seg = mmap(NULL, seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (seg == MAP_FAILED)
        return perror("mmap"), 1;
    memset(seg, 0, seg_bytes);
    struct shared *sh = (struct shared *) seg;
    char *region[2] = { seg + 4096, seg + 4096 + max };
    pid_t child = fork();
    int rank = child == 0;
    int peer = !rank;
    char *priv = (char *) aligned_alloc(4096, max + 4096) + offset;
    memset(priv, rank + 1, max);
    long token = 0;
    const int rounds = 10;

    if (rank == 0)
        printf("# shm_copy: median half round trip (us), %d iterations, private buffer at "
               "page offset %zu\n# %10s %8s", iters, offset, "bytes", "dir");
    if (rank == 0) {
        for (int r = 0; r < NROUTINES; r++)
            printf(" %10s", routine_name[r]);
        printf("\n");
    }
    for (size_t size = min; size <= max; size *= 2) {
        for (int is_get = 0; is_get < 2; is_get++) {
            double med[NROUTINES];
            static double *all[NROUTINES];
            for (int r = 0; r < NROUTINES; r++)
                all[r] = realloc(all[r], sizeof(double) * iters);
            int per = iters / rounds;
            for (int round = 0; round < rounds; round++) {
                for (int r = 0; r < NROUTINES; r++) {
                    if (r == R_LASTBYTE && is_get)
                        continue;
                    for (int i = 0; i < per; i++) {
                        double t0 = now();
                        for (int half = 0; half < 2; half++) {
                            int sending = (half == 0) == (rank == 0);
                            token++;
                            char mark = (char) (token % 250 + 1);
                            volatile char *last = region[rank] + size - 1;
                            if (sending && r == R_LASTBYTE) {
                                priv[size - 1] = mark;
                                do_copy(r, region[peer], priv, size);
                            } else if (r == R_LASTBYTE) {
                                while (*last != mark);
                            } else if (sending) {
                                if (is_get)     /* read the peer's window */
                                    do_copy(r, priv, region[peer], size);
                                else    /* write the peer's window */
                                    do_copy(r, region[peer], priv, size);
                                if (r == R_CAS) {
                                    long t = atomic_load_explicit(&sh->tail[rank][0],
                                                                  memory_order_relaxed);
                                    atomic_compare_exchange_strong_explicit(&sh->tail[rank][0],
                                                                            &t, t + 1,
                                                                            memory_order_relaxed,
                                                                            memory_order_relaxed);
                                }
                                atomic_store_explicit(&sh->flag[peer][0], token,
                                                      memory_order_release);
                            } else {
                                while (atomic_load_explicit(&sh->flag[rank][0],
                                                            memory_order_acquire) != token);
                            }
                        }
                        all[r][round * per + i] = (now() - t0) / 2;
                    }
                }
            }
            for (int r = 0; r < NROUTINES; r++) {
                qsort(all[r], per * rounds, sizeof(double), cmp_double);
                med[r] = r == R_LASTBYTE && is_get ? -1 : all[r][per * rounds / 2];
            }
            if (rank == 0) {
                printf("  %10zu %8s", size, is_get ? "get" : "put");
                for (int r = 0; r < NROUTINES; r++)
                    if (med[r] < 0)
                        printf(" %10s", "-");
                    else
                        printf(" %10.3f", med[r] * 1e6);
                printf("\n");
                fflush(stdout);
            }
        }
    }
    if (child)
        waitpid(child, NULL, 0);
    return 0;
}

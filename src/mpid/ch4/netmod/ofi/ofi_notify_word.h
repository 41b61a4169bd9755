/*
 * The 64-bit remote-CQ-data word of the libfabric notification path
 * (ofi_notify.c): encoded at the origin, decoded at the target.
 *
 *   bit 63 = 0  notification: [62:55] window slot, [54] counter,
 *               [53:30] tag (counter: the counter's index), then the origin
 *               rank in the top R of bits [29:0] and the byte count in the
 *               other 30 - R (all ones: see the length words)
 *   bit 63 = 1  length word:  [62:55] slot, [54] 0, [53:35] origin rank,
 *               [34:0] the next 35 bits of the byte count of the origin's
 *               next notification, most significant part first
 * R is the window's rank width, MPIDI_OFI_nw_rank_bits of its size: both
 * ends know it, and a small window leaves the byte count most of the 30
 * bits, so that a notified put of up to 2^(30 - R) - 2 bytes is one write
 * (2 processes: 256 MiB; the widest field, MPIDI_OFI_NW_RANK_BITS = 19 for
 * up to 2^19 - 1 processes, would cost a second, zero-byte write from 2047
 * bytes up).  A counter notification (MPIX_Put_notify) is marked by bit 54,
 * so a decoder never takes its index for a tag: the int tag carries it as
 * MPIDI_OFI_NW_COUNTER (= MPIR_NOTIFY_COUNTER) | index.
 *
 * Self-contained (stdint only): test/unit/cq_word.c checks it without MPICH.
 */
#ifndef OFI_NOTIFY_WORD_H_INCLUDED
#define OFI_NOTIFY_WORD_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#define MPIDI_OFI_NW_SLOT_BITS  8
#define MPIDI_OFI_NW_RANK_BITS  19      /* the widest rank field: 2^19 - 1 processes */
#define MPIDI_OFI_NW_TAG_BITS   24
#define MPIDI_OFI_NW_LOW_BITS   30      /* rank and byte count share them */
#define MPIDI_OFI_NW_LEN_BITS   35
#define MPIDI_OFI_NW_SLOTS      (1 << MPIDI_OFI_NW_SLOT_BITS)

#define MPIDI_OFI_NW_SLOT_SHIFT 55
#define MPIDI_OFI_NW_TAG_SHIFT  30
#define MPIDI_OFI_NW_LEN_RANK_SHIFT 35
#define MPIDI_OFI_NW_LEN_WORD   (1ULL << 63)
#define MPIDI_OFI_NW_COUNTER_BIT (1ULL << 54)
#define MPIDI_OFI_NW_COUNTER    (1 << 30)       /* in the int tag */
#define MPIDI_OFI_NW_MASK(bits) ((1ULL << (bits)) - 1)

/* The rank width of a window of nprocs processes (1 <= nprocs < 2^19):
 * room for 0 .. nprocs, so that the all-ones rank names nobody (what
 * MPIR_CVAR_NOTIFY_OFI_STRAY_WORDS sends). */
static inline int MPIDI_OFI_nw_rank_bits(int nprocs)
{
    return 32 - __builtin_clz((unsigned) nprocs);
}

/* the byte count's escape value in a window of rank width r */
static inline uint64_t MPIDI_OFI_nw_bytes_esc(int r)
{
    return MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_LOW_BITS - r);
}

/* The words of one notification (length words first); returns how many.
 * bytes < 2^63, slot, rank (< 2^r) and tag within their fields. */
static inline int MPIDI_OFI_nw_encode(int slot, int r, int rank, int tag, uint64_t bytes,
                                      uint64_t words[3])
{
    int n = 0;
    uint64_t esc = MPIDI_OFI_nw_bytes_esc(r);
    uint64_t slot_bits = (uint64_t) slot << MPIDI_OFI_NW_SLOT_SHIFT;
    if (bytes >= esc) {
        uint64_t head = MPIDI_OFI_NW_LEN_WORD | slot_bits |
            ((uint64_t) rank << MPIDI_OFI_NW_LEN_RANK_SHIFT);
        if (bytes >> MPIDI_OFI_NW_LEN_BITS)
            words[n++] = head | (bytes >> MPIDI_OFI_NW_LEN_BITS);
        words[n++] = head | (bytes & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_LEN_BITS));
        bytes = esc;
    }
    words[n++] = slot_bits | ((tag & MPIDI_OFI_NW_COUNTER) ? MPIDI_OFI_NW_COUNTER_BIT : 0) |
        ((uint64_t) (tag & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS)) << MPIDI_OFI_NW_TAG_SHIFT) |
        ((uint64_t) rank << (MPIDI_OFI_NW_LOW_BITS - r)) | bytes;
    return n;
}

static inline int MPIDI_OFI_nw_slot(uint64_t w)
{
    return (int) ((w >> MPIDI_OFI_NW_SLOT_SHIFT) & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_SLOT_BITS));
}

static inline bool MPIDI_OFI_nw_is_len(uint64_t w)
{
    return (w & MPIDI_OFI_NW_LEN_WORD) != 0;
}

/* the origin rank of either kind of word, in a window of rank width r */
static inline int MPIDI_OFI_nw_rank(uint64_t w, int r)
{
    if (MPIDI_OFI_nw_is_len(w))
        return (int) ((w >> MPIDI_OFI_NW_LEN_RANK_SHIFT) &
                      MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_RANK_BITS));
    return (int) ((w >> (MPIDI_OFI_NW_LOW_BITS - r)) & MPIDI_OFI_NW_MASK(r));
}

/* the tag, or MPIDI_OFI_NW_COUNTER | the counter's index */
static inline int MPIDI_OFI_nw_tag(uint64_t w)
{
    return (int) ((w >> MPIDI_OFI_NW_TAG_SHIFT) & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS)) |
        ((w & MPIDI_OFI_NW_COUNTER_BIT) ? MPIDI_OFI_NW_COUNTER : 0);
}

/* Receiver: *len collects an origin's length words; a notification word
 * gives its byte count (from *len if escaped, which is then reset). */
static inline void MPIDI_OFI_nw_add_len(uint64_t w, uint64_t * len)
{
    *len = (*len << MPIDI_OFI_NW_LEN_BITS) | (w & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_LEN_BITS));
}

static inline uint64_t MPIDI_OFI_nw_bytes(uint64_t w, int r, uint64_t * len)
{
    uint64_t b = w & MPIDI_OFI_nw_bytes_esc(r);
    if (b == MPIDI_OFI_nw_bytes_esc(r)) {
        b = *len;
        *len = 0;
    }
    return b;
}

#endif /* OFI_NOTIFY_WORD_H_INCLUDED */

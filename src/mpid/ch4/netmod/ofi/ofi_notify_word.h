/*
 * The 64-bit remote-CQ-data word of the libfabric notification path
 * (ofi_notify.c): encoded at the origin, decoded at the target.
 *
 *   bit 63 = 0  notification: [62:55] window slot, [54] counter,
 *               [53:35] origin rank, [34:11] tag (counter: the counter's
 *               index), [10:0] bytes (2047: see the length words)
 *   bit 63 = 1  length word:  [62:55] slot, [54] 0, [53:35] origin rank,
 *               [34:0] the next 35 bits of the byte count of the origin's
 *               next notification, most significant part first
 * A counter notification (MPIX_Put_notify) is marked by bit 54, so a
 * decoder never takes its index for a tag: the int tag carries it as
 * MPIDI_OFI_NW_COUNTER (= MPIR_NOTIFY_COUNTER) | index.
 *
 * Self-contained (stdint only): test/unit/cq_word.c checks it without MPICH.
 */
#ifndef OFI_NOTIFY_WORD_H_INCLUDED
#define OFI_NOTIFY_WORD_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#define MPIDI_OFI_NW_SLOT_BITS  8
#define MPIDI_OFI_NW_RANK_BITS  19
#define MPIDI_OFI_NW_TAG_BITS   24
#define MPIDI_OFI_NW_BYTES_BITS 11
#define MPIDI_OFI_NW_LEN_BITS   35
#define MPIDI_OFI_NW_SLOTS      (1 << MPIDI_OFI_NW_SLOT_BITS)
#define MPIDI_OFI_NW_BYTES_ESC  ((1u << MPIDI_OFI_NW_BYTES_BITS) - 1)

#define MPIDI_OFI_NW_SLOT_SHIFT 55
#define MPIDI_OFI_NW_RANK_SHIFT 35
#define MPIDI_OFI_NW_TAG_SHIFT  11
#define MPIDI_OFI_NW_LEN_WORD   (1ULL << 63)
#define MPIDI_OFI_NW_COUNTER_BIT (1ULL << 54)
#define MPIDI_OFI_NW_COUNTER    (1 << 30)       /* in the int tag */
#define MPIDI_OFI_NW_MASK(bits) ((1ULL << (bits)) - 1)

static inline uint64_t MPIDI_OFI_nw_head(int slot, int rank)
{
    return ((uint64_t) slot << MPIDI_OFI_NW_SLOT_SHIFT) |
        ((uint64_t) rank << MPIDI_OFI_NW_RANK_SHIFT);
}

/* The words of one notification (length words first); returns how many.
 * bytes < 2^63, slot, rank and tag within their fields. */
static inline int MPIDI_OFI_nw_encode(int slot, int rank, int tag, uint64_t bytes,
                                      uint64_t words[3])
{
    int n = 0;
    uint64_t head = MPIDI_OFI_nw_head(slot, rank);
    if (bytes >= MPIDI_OFI_NW_BYTES_ESC) {
        if (bytes >> MPIDI_OFI_NW_LEN_BITS)
            words[n++] = MPIDI_OFI_NW_LEN_WORD | head | (bytes >> MPIDI_OFI_NW_LEN_BITS);
        words[n++] = MPIDI_OFI_NW_LEN_WORD | head |
            (bytes & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_LEN_BITS));
        bytes = MPIDI_OFI_NW_BYTES_ESC;
    }
    words[n++] = head | ((tag & MPIDI_OFI_NW_COUNTER) ? MPIDI_OFI_NW_COUNTER_BIT : 0) |
        ((uint64_t) (tag & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS)) << MPIDI_OFI_NW_TAG_SHIFT) |
        bytes;
    return n;
}

static inline int MPIDI_OFI_nw_slot(uint64_t w)
{
    return (int) ((w >> MPIDI_OFI_NW_SLOT_SHIFT) & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_SLOT_BITS));
}

static inline int MPIDI_OFI_nw_rank(uint64_t w)
{
    return (int) ((w >> MPIDI_OFI_NW_RANK_SHIFT) & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_RANK_BITS));
}

static inline bool MPIDI_OFI_nw_is_len(uint64_t w)
{
    return (w & MPIDI_OFI_NW_LEN_WORD) != 0;
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

static inline uint64_t MPIDI_OFI_nw_bytes(uint64_t w, uint64_t * len)
{
    uint64_t b = w & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_BYTES_BITS);
    if (b == MPIDI_OFI_NW_BYTES_ESC) {
        b = *len;
        *len = 0;
    }
    return b;
}

#endif /* OFI_NOTIFY_WORD_H_INCLUDED */

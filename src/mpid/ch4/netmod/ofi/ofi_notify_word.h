/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

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
 *               next notification, most significant part first;
 *               with [54] 1, an eager write's word (below)
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

/*
 * The tagged carrier's compact header (ofi_notify_tagged.c).  An eager put
 * whose header fits sends its data alone, so that a put of the provider's
 * whole eager size is one eager message (a 48-byte header beside 16 KiB
 * took tcp;ofi_rxm's rendezvous); the header is in the message's tag, in
 * the b bits below the carrier's own bit, and in its remote CQ data:
 *
 *   tag   [b-1] compact, [b-2] the sender receives on the carrier,
 *         [b-3] the put asks for its answer, [b-4] counter, [b-5 : b-12]
 *         window slot, [b-13 : b-36] tag (counter: its index), then the
 *         origin rank in the top r of the b - 36 bits left and the answer
 *         in the rest: how many more of
 *         the receiver's puts are done than the sender's last compact
 *         answer said (0: no answer)
 *   data  [63:32] the put's sequence number, [31:0] its displacement (in
 *         the target's units, no lower bound)
 *
 * r is the window's rank width (MPIDI_OFI_nw_rank_bits).  Self-contained,
 * as above: test/unit/cq_word.c checks it.
 */
#define MPIDI_OFI_CW_FIXED_BITS 36      /* flags, slot and tag */

typedef struct {
    bool ready, ask;
    int slot, rank, tag;        /* tag: MPIDI_OFI_NW_COUNTER | index for a counter */
    uint64_t ack;               /* the answer's increment */
    uint32_t seq, disp;
} MPIDI_OFI_cw_t;

/* the answer's width with b tag bits and rank width r (< 1: no compact) */
static inline int MPIDI_OFI_cw_ack_bits(int b, int r)
{
    return b - MPIDI_OFI_CW_FIXED_BITS - r;
}

/* whether h fits the compact header at rank width r; then *tag (below bit
 * b) and *data */
static inline bool MPIDI_OFI_cw_encode(int b, int r, const MPIDI_OFI_cw_t * h, uint64_t * tag,
                                       uint64_t * data)
{
    int ab = MPIDI_OFI_cw_ack_bits(b, r);
    int t = h->tag & ~MPIDI_OFI_NW_COUNTER;
    if (ab < 1 || t < 0 || t > (int) MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS) ||
        h->ack > MPIDI_OFI_NW_MASK(ab) || h->rank < 0 || (uint64_t) h->rank > MPIDI_OFI_NW_MASK(r)
        || h->slot < 0 || h->slot >= MPIDI_OFI_NW_SLOTS)
        return false;
    *tag = (1ULL << (b - 1)) | ((uint64_t) h->ready << (b - 2)) | ((uint64_t) h->ask << (b - 3)) |
        ((uint64_t) ((h->tag & MPIDI_OFI_NW_COUNTER) != 0) << (b - 4)) |
        ((uint64_t) h->slot << (b - 4 - MPIDI_OFI_NW_SLOT_BITS)) |
        ((uint64_t) t << (b - MPIDI_OFI_CW_FIXED_BITS)) | ((uint64_t) h->rank << ab) | h->ack;
    *data = ((uint64_t) h->seq << 32) | h->disp;
    return true;
}

static inline bool MPIDI_OFI_cw_is_compact(int b, uint64_t tag)
{
    return (tag >> (b - 1)) & 1;
}

static inline int MPIDI_OFI_cw_slot(int b, uint64_t tag)
{
    return (int) ((tag >> (b - 4 - MPIDI_OFI_NW_SLOT_BITS)) &
                  MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_SLOT_BITS));
}

/* the rest, once the slot named the window and so r */
static inline void MPIDI_OFI_cw_decode(int b, int r, uint64_t tag, uint64_t data,
                                       MPIDI_OFI_cw_t * h)
{
    int ab = MPIDI_OFI_cw_ack_bits(b, r);
    h->ready = (tag >> (b - 2)) & 1;
    h->ask = (tag >> (b - 3)) & 1;
    h->slot = MPIDI_OFI_cw_slot(b, tag);
    h->tag = (int) ((tag >> (b - MPIDI_OFI_CW_FIXED_BITS)) &
                    MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS)) |
        (((tag >> (b - 4)) & 1) ? MPIDI_OFI_NW_COUNTER : 0);
    h->rank = (int) ((tag >> ab) & MPIDI_OFI_NW_MASK(r));
    h->ack = tag & MPIDI_OFI_NW_MASK(ab);
    h->seq = (uint32_t) (data >> 32);
    h->disp = (uint32_t) data;
}

/*
 * The eager path's write carrier (ofi_notify_wire.c): an eager put as one
 * write that the provider is not asked to acknowledge, its notification
 * and the eager path's answer in one word:
 *
 *   [63] 1, [54] 1, [62:55] slot, [53] counter, [52:29] tag (counter: its
 *   index), [28] the put asks for its answer, then in [27:0] the origin rank
 *   in the top r bits, the answer in the low MPIDI_OFI_EW_ACK_BITS (how many
 *   more of the receiver's puts are done than the sender's last such answer
 *   said; 0: none) and the byte count in the 23 - r bits between (2
 *   processes: up to 2 MiB - 1, so 1 MiB puts are one write).
 */
#define MPIDI_OFI_EW_MARK       (MPIDI_OFI_NW_LEN_WORD | MPIDI_OFI_NW_COUNTER_BIT)
#define MPIDI_OFI_EW_COUNTER_BIT (1ULL << 53)
#define MPIDI_OFI_EW_TAG_SHIFT  29
#define MPIDI_OFI_EW_ASK_BIT    (1ULL << 28)
#define MPIDI_OFI_EW_LOW_BITS   28
#define MPIDI_OFI_EW_ACK_BITS   5

typedef struct {
    bool ask;
    int slot, rank, tag;        /* tag: MPIDI_OFI_NW_COUNTER | index for a counter */
    uint64_t bytes, ack;
} MPIDI_OFI_ew_t;

/* the byte count's width at rank width r (< 1: no such word) */
static inline int MPIDI_OFI_ew_bytes_bits(int r)
{
    return MPIDI_OFI_EW_LOW_BITS - MPIDI_OFI_EW_ACK_BITS - r;
}

/* whether h fits the word at rank width r; then *w */
static inline bool MPIDI_OFI_ew_encode(int r, const MPIDI_OFI_ew_t * h, uint64_t * w)
{
    int bb = MPIDI_OFI_ew_bytes_bits(r);
    int t = h->tag & ~MPIDI_OFI_NW_COUNTER;
    if (bb < 1 || t < 0 || t > (int) MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS) ||
        h->bytes > MPIDI_OFI_NW_MASK(bb) || h->ack > MPIDI_OFI_NW_MASK(MPIDI_OFI_EW_ACK_BITS) ||
        h->rank < 0 || (uint64_t) h->rank > MPIDI_OFI_NW_MASK(r) || h->slot < 0 ||
        h->slot >= MPIDI_OFI_NW_SLOTS)
        return false;
    *w = MPIDI_OFI_EW_MARK | ((uint64_t) h->slot << MPIDI_OFI_NW_SLOT_SHIFT) |
        ((h->tag & MPIDI_OFI_NW_COUNTER) ? MPIDI_OFI_EW_COUNTER_BIT : 0) |
        ((uint64_t) t << MPIDI_OFI_EW_TAG_SHIFT) | (h->ask ? MPIDI_OFI_EW_ASK_BIT : 0) |
        ((uint64_t) h->rank << (MPIDI_OFI_EW_LOW_BITS - r)) |
        (h->bytes << MPIDI_OFI_EW_ACK_BITS) | h->ack;
    return true;
}

static inline bool MPIDI_OFI_ew_is(uint64_t w)
{
    return (w & MPIDI_OFI_EW_MARK) == MPIDI_OFI_EW_MARK;
}

/* the rest, once the slot (MPIDI_OFI_nw_slot) named the window and so r */
static inline void MPIDI_OFI_ew_decode(int r, uint64_t w, MPIDI_OFI_ew_t * h)
{
    h->slot = MPIDI_OFI_nw_slot(w);
    h->tag = (int) ((w >> MPIDI_OFI_EW_TAG_SHIFT) & MPIDI_OFI_NW_MASK(MPIDI_OFI_NW_TAG_BITS)) |
        ((w & MPIDI_OFI_EW_COUNTER_BIT) ? MPIDI_OFI_NW_COUNTER : 0);
    h->ask = (w & MPIDI_OFI_EW_ASK_BIT) != 0;
    h->rank = (int) ((w >> (MPIDI_OFI_EW_LOW_BITS - r)) & MPIDI_OFI_NW_MASK(r));
    h->bytes = (w >> MPIDI_OFI_EW_ACK_BITS) & MPIDI_OFI_NW_MASK(MPIDI_OFI_ew_bytes_bits(r));
    h->ack = w & MPIDI_OFI_NW_MASK(MPIDI_OFI_EW_ACK_BITS);
}

#endif /* OFI_NOTIFY_WORD_H_INCLUDED */

/* The libfabric path's CQ data word (ofi_notify_word.h), without MPICH:
 * every field round-trips at its limits for every rank width, byte counts
 * at and around each width's escape value and the length-word boundaries
 * (0, escape - 1, escape, 2^35 - 1, 2^35, 2^62, 2^63 - 1) decode to
 * themselves, the fields never overlap, a small window's puts of a few
 * MiB are one word, and words of different origins do not mix their
 * length words.  The tagged carrier's compact header (MPIDI_OFI_cw_*):
 * every field round-trips at its limits, below the carrier's bit for the
 * widths MPICH's tag layouts leave (55 bits, and fewer), an all-ones
 * header fills exactly the b bits, and what does not fit is refused.  The
 * write carrier's word (MPIDI_OFI_ew_*): every field round-trips at its
 * limits for every rank width that leaves it a byte count, all ones fill
 * the word, what does not fit is refused, and no notification or length
 * word is taken for one. */
#include <stdio.h>
#include "ofi_notify_word.h"

static int errs;
#define EXPECT(c, ...) do { if (!(c)) { errs++; printf(__VA_ARGS__); printf("\n"); } } while (0)

/* decode what encode produced, as the target would */
static void round_trip(int slot, int r, int rank, int tag, uint64_t bytes)
{
    uint64_t w[3], len = 0;
    int n = MPIDI_OFI_nw_encode(slot, r, rank, tag, bytes, w);
    EXPECT(n >= 1 && n <= 3, "bytes %llu: %d words", (unsigned long long) bytes, n);
    EXPECT(n == 1 || bytes >= MPIDI_OFI_nw_bytes_esc(r), "r %d bytes %llu: %d words", r,
           (unsigned long long) bytes, n);
    for (int i = 0; i < n; i++) {
        EXPECT(MPIDI_OFI_nw_slot(w[i]) == slot && MPIDI_OFI_nw_rank(w[i], r) == rank,
               "word %d of (%d, r %d, %d, %d, %llu): slot %d rank %d", i, slot, r, rank, tag,
               (unsigned long long) bytes, MPIDI_OFI_nw_slot(w[i]), MPIDI_OFI_nw_rank(w[i], r));
        EXPECT(MPIDI_OFI_nw_is_len(w[i]) == (i < n - 1), "word %d: length flag", i);
        if (MPIDI_OFI_nw_is_len(w[i]))
            MPIDI_OFI_nw_add_len(w[i], &len);
    }
    EXPECT(MPIDI_OFI_nw_tag(w[n - 1]) == tag, "tag %d decoded as %d", tag,
           MPIDI_OFI_nw_tag(w[n - 1]));
    uint64_t got = MPIDI_OFI_nw_bytes(w[n - 1], r, &len);
    EXPECT(got == bytes && len == 0, "r %d: bytes %llu decoded as %llu (len left %llu)", r,
           (unsigned long long) bytes, (unsigned long long) got, (unsigned long long) len);
}

/* the compact header: encode, then decode as the target does (slot first) */
static void cw_round_trip(int b, int r, const MPIDI_OFI_cw_t * h)
{
    uint64_t tag, data;
    MPIDI_OFI_cw_t got;
    if (!MPIDI_OFI_cw_encode(b, r, h, &tag, &data)) {
        EXPECT(0, "b %d r %d: a header that fits was refused (rank %d tag %#x ack %llu)", b, r,
               h->rank, h->tag, (unsigned long long) h->ack);
        return;
    }
    EXPECT(tag >> b == 0, "b %d r %d: tag %#llx above bit %d", b, r, (unsigned long long) tag, b);
    EXPECT(MPIDI_OFI_cw_is_compact(b, tag), "b %d: the compact bit", b);
    EXPECT(MPIDI_OFI_cw_slot(b, tag) == h->slot, "b %d: slot", b);
    MPIDI_OFI_cw_decode(b, r, tag, data, &got);
    EXPECT(got.ready == h->ready && got.ask == h->ask && got.slot == h->slot &&
           got.rank == h->rank && got.tag == h->tag && got.ack == h->ack && got.seq == h->seq &&
           got.disp == h->disp,
           "b %d r %d: (%d %d %d %d %#x %llu %u %u) decoded as (%d %d %d %d %#x %llu %u %u)", b,
           r, h->ready, h->ask, h->slot, h->rank, h->tag, (unsigned long long) h->ack, h->seq,
           h->disp, got.ready, got.ask, got.slot, got.rank, got.tag,
           (unsigned long long) got.ack, got.seq, got.disp);
}

static void compact_header(void)
{
    const int widths[] = { 55, 48, 40 };
    for (unsigned w = 0; w < sizeof(widths) / sizeof(*widths); w++) {
        int b = widths[w];
        for (int r = 1; MPIDI_OFI_cw_ack_bits(b, r) >= 1 && r <= MPIDI_OFI_NW_RANK_BITS; r++) {
            int ab = MPIDI_OFI_cw_ack_bits(b, r);
            uint64_t amax = MPIDI_OFI_NW_MASK(ab);
            const int tags[] = { 0, 1, 0xffffff, MPIDI_OFI_NW_COUNTER,
                MPIDI_OFI_NW_COUNTER | 0xffffff
            };
            const uint64_t acks[] = { 0, 1, amax };
            for (unsigned t = 0; t < sizeof(tags) / sizeof(*tags); t++)
                for (unsigned a = 0; a < sizeof(acks) / sizeof(*acks); a++)
                    for (int rd = 0; rd < 4; rd++) {
                        MPIDI_OFI_cw_t h = {.ready = rd & 1,.ask = rd >> 1,.slot = (t * 37 + a) % 256,
                            .rank = (int) ((a * 3 + t) % (1u << r)),.tag = tags[t],
                            .ack = acks[a],.seq = 0xfedcba98u - t,.disp = a ? 0xffffffffu : 0
                        };
                        cw_round_trip(b, r, &h);
                    }
            /* all ones fill exactly bits 0 .. b-1 */
            MPIDI_OFI_cw_t ones = {.ready = 1,.ask = 1,.slot = MPIDI_OFI_NW_SLOTS - 1,
                .rank = (1 << r) - 1,.tag = MPIDI_OFI_NW_COUNTER | 0xffffff,.ack = amax,
                .seq = 0xffffffffu,.disp = 0xffffffffu
            };
            uint64_t tag, data;
            EXPECT(MPIDI_OFI_cw_encode(b, r, &ones, &tag, &data) &&
                   tag == MPIDI_OFI_NW_MASK(b) && data == ~0ULL, "b %d r %d all ones: %#llx",
                   b, r, (unsigned long long) tag);
            /* refused: an answer, rank or tag too wide */
            MPIDI_OFI_cw_t h = ones;
            h.ack = amax + 1;
            EXPECT(!MPIDI_OFI_cw_encode(b, r, &h, &tag, &data), "b %d r %d: ack too wide", b, r);
            h = ones;
            h.rank = 1 << r;
            EXPECT(!MPIDI_OFI_cw_encode(b, r, &h, &tag, &data), "b %d r %d: rank too wide", b, r);
            h = ones;
            h.tag = 1 << MPIDI_OFI_NW_TAG_BITS;
            EXPECT(!MPIDI_OFI_cw_encode(b, r, &h, &tag, &data), "b %d r %d: tag too wide", b, r);
        }
        /* no room for an answer: no compact header */
        int r = b - MPIDI_OFI_CW_FIXED_BITS;
        MPIDI_OFI_cw_t h = {.rank = 0 };
        uint64_t tag, data;
        EXPECT(r > MPIDI_OFI_NW_RANK_BITS || !MPIDI_OFI_cw_encode(b, r, &h, &tag, &data),
               "b %d r %d: no answer bits, yet encoded", b, r);
    }
}

static void ew_round_trip(int r, const MPIDI_OFI_ew_t * h)
{
    uint64_t w;
    MPIDI_OFI_ew_t got;
    if (!MPIDI_OFI_ew_encode(r, h, &w)) {
        EXPECT(0, "r %d: a write word that fits was refused (bytes %llu ack %llu)", r,
               (unsigned long long) h->bytes, (unsigned long long) h->ack);
        return;
    }
    EXPECT(MPIDI_OFI_ew_is(w) && MPIDI_OFI_nw_slot(w) == h->slot, "r %d: mark or slot", r);
    MPIDI_OFI_ew_decode(r, w, &got);
    EXPECT(got.ask == h->ask && got.slot == h->slot && got.rank == h->rank &&
           got.tag == h->tag && got.bytes == h->bytes && got.ack == h->ack,
           "r %d: (%d %d %d %#x %llu %llu) decoded as (%d %d %d %#x %llu %llu)", r, h->ask,
           h->slot, h->rank, h->tag, (unsigned long long) h->bytes, (unsigned long long) h->ack,
           got.ask, got.slot, got.rank, got.tag, (unsigned long long) got.bytes,
           (unsigned long long) got.ack);
}

static void write_word(void)
{
    uint64_t amax = MPIDI_OFI_NW_MASK(MPIDI_OFI_EW_ACK_BITS), w = 0;
    int r;
    for (r = 1; MPIDI_OFI_ew_bytes_bits(r) >= 1; r++) {
        uint64_t bmax = MPIDI_OFI_NW_MASK(MPIDI_OFI_ew_bytes_bits(r));
        const int tags[] = { 0, 1, 0xffffff, MPIDI_OFI_NW_COUNTER, MPIDI_OFI_NW_COUNTER | 0xffffff };
        const uint64_t bytes[] = { 0, 1, bmax / 2, bmax };
        const uint64_t acks[] = { 0, 1, amax };
        for (unsigned t = 0; t < sizeof(tags) / sizeof(*tags); t++)
            for (unsigned b = 0; b < sizeof(bytes) / sizeof(*bytes); b++)
                for (unsigned a = 0; a < sizeof(acks) / sizeof(*acks); a++) {
                    MPIDI_OFI_ew_t h = {.ask = (t + a) & 1,.slot = (t * 37 + b) % 256,
                        .rank = (int) ((a * 3 + b) % (1u << r)),.tag = tags[t],
                        .bytes = bytes[b],.ack = acks[a]
                    };
                    ew_round_trip(r, &h);
                }
        /* all ones fill the word */
        MPIDI_OFI_ew_t ones = {.ask = 1,.slot = MPIDI_OFI_NW_SLOTS - 1,.rank = (1 << r) - 1,
            .tag = MPIDI_OFI_NW_COUNTER | 0xffffff,.bytes = bmax,.ack = amax
        };
        EXPECT(MPIDI_OFI_ew_encode(r, &ones, &w) && w == ~0ULL, "r %d all ones: %#llx", r,
               (unsigned long long) w);
        /* refused: too many bytes, an answer, rank or tag too wide */
        MPIDI_OFI_ew_t h = ones;
        h.bytes = bmax + 1;
        EXPECT(!MPIDI_OFI_ew_encode(r, &h, &w), "r %d: bytes too many", r);
        h = ones;
        h.ack = amax + 1;
        EXPECT(!MPIDI_OFI_ew_encode(r, &h, &w), "r %d: ack too wide", r);
        h = ones;
        h.rank = 1 << r;
        EXPECT(!MPIDI_OFI_ew_encode(r, &h, &w), "r %d: rank too wide", r);
        h = ones;
        h.tag = 1 << MPIDI_OFI_NW_TAG_BITS;
        EXPECT(!MPIDI_OFI_ew_encode(r, &h, &w), "r %d: tag too wide", r);
    }
    /* no room for a byte count: no word */
    MPIDI_OFI_ew_t h = {.rank = 0 };
    EXPECT(!MPIDI_OFI_ew_encode(r, &h, &w), "r %d: no byte bits, yet encoded", r);
    /* 2 processes: a put of up to 2 MiB - 1 */
    EXPECT(MPIDI_OFI_ew_bytes_bits(MPIDI_OFI_nw_rank_bits(2)) == 21, "2 processes: 21 bits");
    /* notification and length words are not write words */
    uint64_t nw[3];
    int n = MPIDI_OFI_nw_encode(MPIDI_OFI_NW_SLOTS - 1, 2, 3, MPIDI_OFI_NW_COUNTER | 0xffffff,
                                1ULL << 40, nw);
    for (int i = 0; i < n; i++)
        EXPECT(!MPIDI_OFI_ew_is(nw[i]), "word %d of a notification taken for a write word", i);
}

int main(void)
{
    const int slots[] = { 0, 1, 128, MPIDI_OFI_NW_SLOTS - 1 };
    /* tags, and counter indices (MPIX_Put_notify) at the same limits */
    const int tags[] = { 0, 1, 0x5a5a5a, (1 << MPIDI_OFI_NW_TAG_BITS) - 1,
        MPIDI_OFI_NW_COUNTER, MPIDI_OFI_NW_COUNTER | 1, MPIDI_OFI_NW_COUNTER | 0x5a5a5a,
        MPIDI_OFI_NW_COUNTER | ((1 << MPIDI_OFI_NW_TAG_BITS) - 1)
    };
    /* window sizes: 1, 2, 3, 1000, the largest */
    const int nprocs[] = { 1, 2, 3, 1000, (1 << MPIDI_OFI_NW_RANK_BITS) - 1 };
    for (unsigned p = 0; p < sizeof(nprocs) / sizeof(*nprocs); p++) {
        int r = MPIDI_OFI_nw_rank_bits(nprocs[p]);
        EXPECT(r >= 1 && r <= MPIDI_OFI_NW_RANK_BITS && (1 << r) - 1 >= nprocs[p],
               "%d processes: rank width %d", nprocs[p], r);
        uint64_t esc = MPIDI_OFI_nw_bytes_esc(r);
        const int ranks[] = { 0, nprocs[p] - 1, nprocs[p] / 2, (1 << r) - 1 };
        const uint64_t bytes[] = {
            0, 1, 2046, 2047, 2048, esc - 2, esc - 1, esc, esc + 1, (1ULL << 35) - 1,
            1ULL << 35, (1ULL << 35) + 1, 1ULL << 62, (1ULL << 63) - 1
        };
        for (unsigned s = 0; s < sizeof(slots) / sizeof(*slots); s++)
            for (unsigned k = 0; k < sizeof(ranks) / sizeof(*ranks); k++)
                for (unsigned t = 0; t < sizeof(tags) / sizeof(*tags); t++)
                    for (unsigned b = 0; b < sizeof(bytes) / sizeof(*bytes); b++)
                        round_trip(slots[s], r, ranks[k], tags[t], bytes[b]);
    }

    /* word counts: inline below the escape, one length word below 2^35,
     * two above; the widest window escapes at 2047 bytes, a window of 2
     * processes at 2^28 - 1 */
    uint64_t w[3];
    int r19 = MPIDI_OFI_NW_RANK_BITS, r2 = MPIDI_OFI_nw_rank_bits(2);
    EXPECT(MPIDI_OFI_nw_encode(0, r19, 0, 0, 2046, w) == 1, "2046 B, rank width 19: one word");
    EXPECT(MPIDI_OFI_nw_encode(0, r19, 0, 0, 2047, w) == 2, "2047 B, rank width 19: two words");
    EXPECT(r2 == 2, "2 processes: rank width %d", r2);
    EXPECT(MPIDI_OFI_nw_encode(0, r2, 1, 0, 1 << 20, w) == 1, "1 MiB, 2 processes: one word");
    EXPECT(MPIDI_OFI_nw_encode(0, r2, 1, 0, (1 << 28) - 2, w) == 1, "2^28-2 B: one word");
    EXPECT(MPIDI_OFI_nw_encode(0, r2, 1, 0, (1 << 28) - 1, w) == 2, "2^28-1 B: two words");
    EXPECT(MPIDI_OFI_nw_encode(0, r19, 0, 0, (1ULL << 35) - 1, w) == 2, "2^35-1 B: two words");
    EXPECT(MPIDI_OFI_nw_encode(0, r19, 0, 0, 1ULL << 35, w) == 3, "2^35 B: three words");

    /* all fields at their maximum fill exactly bits 0..62 of a counter
     * notification, whatever the rank width; a tagged one leaves the
     * counter bit (54) clear */
    for (int r = 1; r <= MPIDI_OFI_NW_RANK_BITS; r++) {
        int n = MPIDI_OFI_nw_encode(MPIDI_OFI_NW_SLOTS - 1, r, (1 << r) - 1,
                                    MPIDI_OFI_NW_COUNTER | ((1 << MPIDI_OFI_NW_TAG_BITS) - 1),
                                    MPIDI_OFI_nw_bytes_esc(r) - 1, w);
        EXPECT(n == 1 && w[0] == ((1ULL << 63) - 1 - 1), "r %d all-ones word: %#llx", r,
               (unsigned long long) w[0]);
        n = MPIDI_OFI_nw_encode(MPIDI_OFI_NW_SLOTS - 1, r, (1 << r) - 1,
                                (1 << MPIDI_OFI_NW_TAG_BITS) - 1, MPIDI_OFI_nw_bytes_esc(r) - 1,
                                w);
        EXPECT(n == 1 && w[0] == ((1ULL << 63) - 1 - 1 - (1ULL << 54)), "r %d tagged word: %#llx",
               r, (unsigned long long) w[0]);
        EXPECT(MPIDI_OFI_nw_tag(w[0]) == (1 << MPIDI_OFI_NW_TAG_BITS) - 1, "tag, not a counter");
    }

    /* two origins' length words interleaved at the target keep apart
     * (the target keeps one accumulator per origin) */
    uint64_t a[3], b[3], la = 0, lb = 0;
    int na = MPIDI_OFI_nw_encode(3, r19, 1, 7, (1ULL << 40) + 5, a);
    int nb = MPIDI_OFI_nw_encode(3, r19, 2, 8, 4096, b);
    MPIDI_OFI_nw_add_len(a[0], &la);
    MPIDI_OFI_nw_add_len(b[0], &lb);
    MPIDI_OFI_nw_add_len(a[1], &la);
    EXPECT(na == 3 && nb == 2, "word counts %d %d", na, nb);
    EXPECT(MPIDI_OFI_nw_rank(b[0], r19) == 2 && MPIDI_OFI_nw_rank(a[1], r19) == 1,
           "length words' origins");
    EXPECT(MPIDI_OFI_nw_bytes(b[1], r19, &lb) == 4096, "origin 2 bytes");
    EXPECT(MPIDI_OFI_nw_bytes(a[2], r19, &la) == (1ULL << 40) + 5, "origin 1 bytes");

    compact_header();
    write_word();

    if (errs == 0)
        printf("No Errors\n");
    else
        printf("Found %d errors\n", errs);
    return errs != 0;
}

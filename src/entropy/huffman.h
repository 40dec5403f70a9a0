/*
 * huffman.h -- canonical, length-limited Huffman coding of 8- and 16-bit
 * symbols with a gap array for parallel decoding (docs/FORMAT.md section 8.1
 * to 8.4). Shared by the `huffman` codec and the `lossy` codec; the CUDA
 * implementation must follow the same constants and layout.
 *
 * A "Huffman stream" (HS) is self-contained:
 *   u32 K | u32 count | u64 total_bits | u32 cb_bytes | codebook |
 *   gap nibbles | segment first-symbol table | bitstream words
 * The bitstream is cut into units of SCZ_HUFF_UNIT_BITS bits; the gap of a
 * unit is the bit offset of the first codeword that starts in it, so that
 * one thread per unit can start decoding at a codeword boundary. Units are
 * grouped into segments of SCZ_HUFF_SEG_UNITS; the index of the first symbol
 * of each segment is stored, so that a thread decoding whole segments knows
 * where its output goes without a counting pass.
 */
#ifndef SCZ_HUFFMAN_H
#define SCZ_HUFFMAN_H

#include "../internal.h"

#define SCZ_HUFF_MAX_LEN 16u        /* longest codeword, bits */
#define SCZ_HUFF_MAX_K 65536u       /* largest alphabet */
#define SCZ_HUFF_UNIT_BITS 1024u    /* bits per unit (one gap each) */
#define SCZ_HUFF_SEG_UNITS 32u      /* units per segment (one first-symbol index each) */
#define SCZ_HUFF_HDR_BYTES 20u      /* K, count, total_bits, cb_bytes */
#define SCZ_HUFF_TABLE_BITS 11u     /* primary decoding table (CPU only, not in the format) */

/* Encoder codebook: entry[s] = code << 5 | length (0 = unused symbol). */
typedef struct scz_huff_enc {
    uint32_t K;
    uint32_t used;                  /* symbols with a codeword */
    uint8_t len[SCZ_HUFF_MAX_K];
    uint32_t entry[SCZ_HUFF_MAX_K];
} scz_huff_enc;

/* Decoder tables built from a codebook. */
typedef struct scz_huff_dec {
    uint32_t K;
    uint32_t table[1u << SCZ_HUFF_TABLE_BITS]; /* symbol | length << 16; length 0 = longer/invalid */
    uint32_t first[SCZ_HUFF_MAX_LEN + 2];      /* first canonical code of each length */
    uint32_t count[SCZ_HUFF_MAX_LEN + 2];      /* codewords of each length */
    uint32_t offset[SCZ_HUFF_MAX_LEN + 2];     /* index into sorted[] of the first of each length */
    uint16_t sorted[SCZ_HUFF_MAX_K];           /* symbols by (length, symbol) */
    uint8_t len[SCZ_HUFF_MAX_K];               /* code lengths as read */
} scz_huff_dec;

/* Work memory of scz__huff_build (bytes), for an alphabet of K symbols. */
size_t scz__huff_work_size(uint32_t K);

/* Builds the canonical length-limited codebook of a histogram (FORMAT.md
 * 8.2). hist[s] are counts for s < K (their sum must be < 2^63). */
void scz__huff_build(const uint64_t *hist, uint32_t K, scz_huff_enc *book, void *work);

/* Sizes of a Huffman stream of `count` symbols with histogram hist. */
typedef struct scz_hs_info {
    uint32_t K;
    uint64_t count;
    uint64_t total_bits;
    uint32_t cb_bytes;
    uint64_t n_units, n_segs, n_words;
    uint64_t size;                  /* bytes of the whole stream */
} scz_hs_info;

/* The size scz__huff_build + scz__hs_plan give a stream of `count` symbols
 * of an alphabet of K whose used symbols are among sym[0..m) (ascending),
 * hist[j] the count of sym[j], in O(m) (book and work as scratch). */
uint64_t scz__hs_size_sparse(const uint32_t *sym, const uint64_t *hist, uint32_t m, uint32_t K, uint64_t count,
                             scz_huff_enc *book, void *work);

/* scz__huff_build + scz__hs_plan for such a sparse histogram, in O(m + K/8):
 * the same lengths and codes; book->entry is set for the listed symbols
 * with a codeword only (those a stream of this histogram can hold). */
void scz__huff_build_sparse(const uint32_t *sym, const uint64_t *hist, uint32_t m, uint32_t K, uint64_t count,
                            scz_huff_enc *book, void *work, scz_hs_info *info);

/* Fills info from a built codebook and the histogram it came from. */
void scz__hs_plan(const scz_huff_enc *book, const uint64_t *hist, uint64_t count, scz_hs_info *info);

/* Writes a Huffman stream of syms[0..count) (width 1: uint8_t, 2: uint16_t)
 * to out[0..info->size). The symbols are encoded in `nranges` parallel
 * ranges [range_start[r], range_start[r+1]); range_bits[r] (optional, may be
 * NULL) is the number of bits of range r. gap_tmp must hold info->n_units
 * bytes. The output does not depend on the ranges. */
void scz__hs_write(const scz_hs_info *info, const scz_huff_enc *book, const void *syms, int width,
                   int nranges, const uint64_t *range_start, const uint64_t *range_bits,
                   uint8_t *out, uint8_t *gap_tmp);

/* Reads a Huffman stream at src[0..avail) that must hold exactly `count`
 * symbols of an alphabet of exactly K, into out (width 1 or 2). Validates
 * every field; *used = bytes of the stream. */
scz_status scz__hs_read(scz_ctx *ctx, const uint8_t *src, uint64_t avail, uint32_t K,
                        uint64_t count, scz_huff_dec *dec, void *out, int width, int threads,
                        uint64_t *used);

/* Per-range histograms: hist[r*K + s] counts symbol s in range r of
 * syms[0..n), ranges [n*r/R, n*(r+1)/R). range_start gets R+1 entries.
 * Symbols >= K are not counted (callers guarantee there are none). */
void scz__hist_ranges(const void *syms, int width, uint64_t n, int R, uint32_t K, uint32_t *hist,
                      uint64_t *range_start);

/* Sums per-range histograms into total[K], and fills range_bits[R] with the
 * encoded size of each range under book (book may be NULL). */
void scz__hist_reduce(const uint32_t *hist, int R, uint32_t K, uint64_t *total,
                      const scz_huff_enc *book, uint64_t *range_bits);

/* LEB128 varints (used by codebooks and the lossy outlier list). */
static inline uint8_t *scz__put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}
static inline unsigned scz__varint_len(uint64_t v) {
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
/* Reads a varint from p[0..end); returns the new position or NULL if it is
 * truncated, above 2^64-1 or not in its shortest form. */
static inline const uint8_t *scz__get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    uint64_t r = 0;
    for (unsigned sh = 0; sh < 64; sh += 7) {
        if (p >= end) return NULL;
        uint8_t b = *p++;
        if ((sh == 63 && b > 1) || (sh && b == 0)) return NULL; /* too large / overlong */
        r |= (uint64_t)(b & 0x7F) << sh;
        if (!(b & 0x80)) {
            *v = r;
            return p;
        }
    }
    return NULL;
}

#endif

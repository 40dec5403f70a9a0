/*
 * huffman_cuda.h -- decoding a Huffman stream (docs/FORMAT.md 8.1-8.4) on
 * the GPU, as inline device code for any codec's kernels (the `huffman`
 * codec in huffman.cu; the lossy codec's quantization codes next). CUDA
 * C++, .cu files only.
 *
 * A stream is decoded in three steps:
 *   1. hs_parse (one thread): header, codebook run structure, Kraft sum,
 *      padding, gap 0 and segment entry 0; fills a Stream.
 *   2. hs_build (one block): the primary table of SCZ_HUFF_TABLE_BITS bits
 *      (symbol | length << 16, 0 = longer or invalid, as on the CPU) and the
 *      list of symbols with longer codes, ordered by (length, symbol).
 *      hs_parse_build does 1 and 2 with the whole block, with the same
 *      results.
 *   3. hs_decode_segment (one warp per segment of 32 units): the segment's
 *      bitstream is staged in shared memory, lane L decodes unit 32 g + L
 *      from its gap to the next unit's start, counting symbols; a warp scan
 *      of the counts plus the segment table entry gives each lane's output
 *      index; the lane then decodes again and writes, 16 bytes at a time.
 * Validation equals the CPU decoder's: every unit must end exactly where
 * the next one starts (its gap) or at total_bits, every segment's count
 * must match the segment table, every codeword must be valid. Nothing is
 * read outside [stream, end) nor written outside out[0 .. count).
 */
#ifndef SCZ_HUFFMAN_CUDA_H
#define SCZ_HUFFMAN_CUDA_H

#include "../cuda/cuda_rt.h"
#include "../cuda/kutil.h"

extern "C" {
#include "huffman.h"
}

namespace scz_hd {

constexpr uint32_t U = SCZ_HUFF_UNIT_BITS;
constexpr uint32_t G = SCZ_HUFF_SEG_UNITS;
constexpr uint32_t LMAX = SCZ_HUFF_MAX_LEN;
constexpr uint32_t TB = SCZ_HUFF_TABLE_BITS;
constexpr uint32_t TABLE = 1u << TB;
constexpr uint32_t SEG_WORDS = U * G / 32;                            /* bitstream words per segment */
constexpr uint32_t STAGE_WORDS = SEG_WORDS + 2;                       /* + the lookahead of the last unit */
constexpr uint32_t STAGE_SLOTS = STAGE_WORDS + (STAGE_WORDS + 31) / 32; /* one pad word per 32: lanes 1024 bits apart hit different banks */
constexpr unsigned FULL = 0xffffffffu;

/* Result codes of hs_parse (a codec maps them to its error codes). */
enum { HS_OK = 0, HS_ERR_STREAM, HS_ERR_CODEBOOK, HS_ERR_PADDING, HS_ERR_BITSTREAM, HS_ERR_LONG };

/* Little-endian loads at any byte address (src/cuda/kutil.h). */
using scz_ku::ld32u;
using scz_ku::ldb32;
using scz_ku::ldb64;

/* LEB128 varint from p[0..end), FORMAT.md 7.6 (the CPU's scz__get_varint). */
__device__ __forceinline__ const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    uint64_t r = 0;
    for (unsigned sh = 0; sh < 64; sh += 7) {
        if (p >= end) return nullptr;
        const uint8_t b = *p++;
        if ((sh == 63 && b > 1) || (sh && b == 0)) return nullptr;
        r |= (uint64_t)(b & 0x7F) << sh;
        if (!(b & 0x80)) {
            *v = r;
            return p;
        }
    }
    return nullptr;
}

/* One codebook run at p (8.3): length *l, run *r; s symbols already
 * covered of K. 1 = a run, 0 = end of the codebook, -1 = malformed. */
__device__ __forceinline__ int cb_next(const uint8_t *&p, const uint8_t *end, uint32_t K, uint32_t s, uint32_t *l,
                                       uint32_t *r) {
    if (p >= end) return 0;
    const uint8_t b = *p++;
    *l = b & 31u;
    uint64_t run = (b >> 5) + 1u;
    if (*l > LMAX) return -1;
    if (run == 8) {
        uint64_t x;
        if (!(p = get_varint(p, end, &x))) return -1;
        if (x > K) return -1;
        run = 8 + x;
    }
    if (run > K - s) return -1;
    *r = (uint32_t)run;
    return 1;
}

/* A parsed Huffman stream. */
struct Stream {
    const uint8_t *cb, *gaps, *segf, *words, *end; /* end: the stream may not be read at or past it */
    uint64_t total_bits, bytes;                   /* bytes: size of the stream */
    uint32_t K, count, cb_bytes, n_units, n_segs, n_words;
    uint32_t n_long;                              /* symbols with codes longer than TB */
    uint32_t first[LMAX + 2], lcount[LMAX + 2], loff[LMAX + 2]; /* canonical first code, codes, long-list index per length */
};

/* The size of the stream at src[0..avail) that must hold exactly `count`
 * symbols of an alphabet of K, from its header alone (hs_parse's first
 * checks; hs_parse of src[0..*bytes) later checks the rest): HS_OK, *bytes
 * and *n_segs, or HS_ERR_STREAM. For a caller that locates several streams
 * with one thread and parses them in parallel. */
inline __device__ int hs_size(const uint8_t *src, uint64_t avail, uint32_t K, uint64_t count, uint64_t *bytes,
                              uint32_t *n_segs) {
    if (avail < SCZ_HUFF_HDR_BYTES) return HS_ERR_STREAM;
    const uint32_t k = ldb32(src), cnt = ldb32(src + 4), cbn = ldb32(src + 16);
    const uint64_t bits = ldb64(src + 8);
    if (k != K || cnt != count) return HS_ERR_STREAM;
    *bytes = SCZ_HUFF_HDR_BYTES;
    *n_segs = 0;
    if (count == 0) return bits || cbn ? HS_ERR_STREAM : HS_OK;
    if (bits < count || bits > count * LMAX) return HS_ERR_STREAM;
    const uint64_t n_units = (bits + U - 1) / U, ns = (n_units + G - 1) / G, n_words = (bits + 31) / 32;
    const uint64_t need = (uint64_t)SCZ_HUFF_HDR_BYTES + cbn + (n_units + 1) / 2 + 4 * ns + 4 * n_words;
    if (need > avail) return HS_ERR_STREAM;
    *bytes = need;
    *n_segs = (uint32_t)ns;
    return HS_OK;
}

/* hs_parse in three steps, so that a block can walk the codebook in
 * parallel (hs_parse_build): the header (fields of S; HS_OK with
 * S->count == 0 is a complete empty stream), the codebook's code lengths
 * per length lc[0 .. LMAX] (the caller's walk), then the rest. */
inline __device__ int hs_parse_head(const uint8_t *src, uint64_t avail, uint32_t K, uint64_t count, Stream *S) {
    if (avail < SCZ_HUFF_HDR_BYTES) return HS_ERR_STREAM;
    const uint32_t k = ldb32(src), cnt = ldb32(src + 4), cbn = ldb32(src + 16);
    const uint64_t bits = ldb64(src + 8);
    if (k != K || cnt != count) return HS_ERR_STREAM;
    S->K = K;
    S->count = (uint32_t)count;
    S->end = src + avail;
    S->cb = src + SCZ_HUFF_HDR_BYTES;
    S->cb_bytes = cbn;
    S->total_bits = bits;
    S->n_long = 0;
    if (count == 0) {
        if (bits || cbn) return HS_ERR_STREAM;
        S->n_units = S->n_segs = S->n_words = 0;
        S->bytes = SCZ_HUFF_HDR_BYTES;
        S->gaps = S->segf = S->words = S->cb;
        return HS_OK;
    }
    if (bits < count || bits > count * LMAX) return HS_ERR_STREAM;
    const uint64_t n_units = (bits + U - 1) / U, n_segs = (n_units + G - 1) / G, n_words = (bits + 31) / 32;
    const uint64_t need = (uint64_t)SCZ_HUFF_HDR_BYTES + cbn + (n_units + 1) / 2 + 4 * n_segs + 4 * n_words;
    if (need > avail) return HS_ERR_STREAM;
    S->n_units = (uint32_t)n_units;
    S->n_segs = (uint32_t)n_segs;
    S->n_words = (uint32_t)n_words;
    S->bytes = need;
    return HS_OK;
}

inline __device__ int hs_parse_tail(const uint32_t *lc, uint32_t long_cap, Stream *S) {
    uint64_t kraft = 0;
    uint32_t used = 0, l;
    for (l = 1; l <= LMAX; l++) {
        kraft += (uint64_t)lc[l] << (LMAX - l);
        used += lc[l];
    }
    if (kraft > ((uint64_t)1 << LMAX) || used == 0) return HS_ERR_CODEBOOK;
    uint32_t code = 0, lo = 0;
    S->first[0] = 0;
    S->lcount[0] = 0;
    S->loff[0] = 0;
    for (l = 1; l <= LMAX; l++) {
        code = (code + (l > 1 ? lc[l - 1] : 0)) << 1;
        S->first[l] = code;
        S->lcount[l] = lc[l];
        S->loff[l] = lo;
        if (l > TB) lo += lc[l];
    }
    S->first[LMAX + 1] = S->lcount[LMAX + 1] = S->loff[LMAX + 1] = 0;
    S->n_long = lo;
    if (lo > long_cap) return HS_ERR_LONG;
    const uint64_t bits = S->total_bits, n_units = S->n_units, n_words = S->n_words;
    S->gaps = S->cb + S->cb_bytes;
    S->segf = S->gaps + (n_units + 1) / 2;
    S->words = S->segf + 4 * (uint64_t)S->n_segs;
    /* padding after the last codeword, unused high gap nibble */
    if ((bits & 31) && (ld32u(S->words + 4 * (n_words - 1), S->end) & (0xFFFFFFFFu >> (bits & 31))))
        return HS_ERR_PADDING;
    if ((n_units & 1) && (S->gaps[n_units / 2] >> 4)) return HS_ERR_PADDING;
    /* decoding starts at bit 0 with symbol 0 */
    if ((S->gaps[0] & 15) || ld32u(S->segf, S->end)) return HS_ERR_BITSTREAM;
    return HS_OK;
}

/* Parses the stream at src[0..avail) (end = src + avail) that must hold
 * exactly `count` symbols of an alphabet of exactly K (<= 65536), with at
 * most long_cap symbols of codes longer than TB (the size of the caller's
 * long list; >= min(K, count) never rejects a stream a writer made). One
 * thread. cbcopy, if not NULL, holds a copy of the cb_bytes codebook
 * bytes (in shared memory, say) to parse instead. Returns HS_OK or an
 * HS_ERR_* code. */
inline __device__ __noinline__ int hs_parse(const uint8_t *src, uint64_t avail, uint32_t K, uint64_t count,
                                     uint32_t long_cap, Stream *S, const uint8_t *cbcopy = nullptr) {
    int r = hs_parse_head(src, avail, K, count, S);
    if (r || count == 0) return r;
    /* codebook: runs, lengths per code length, Kraft sum */
    uint32_t lc[LMAX + 2];
    for (uint32_t l = 0; l <= LMAX + 1; l++) lc[l] = 0;
    const uint8_t *p = cbcopy ? cbcopy : S->cb, *cend = p + S->cb_bytes;
    uint32_t s = 0, l, rr;
    int st;
    while ((st = cb_next(p, cend, K, s, &l, &rr)) > 0) {
        lc[l] += rr;
        s += rr;
    }
    if (st < 0 || s != K) return HS_ERR_CODEBOOK;
    return hs_parse_tail(lc, long_cap, S);
}

/* A codebook run for hs_build: symbols s .. s + r - 1 of length l, the
 * first of rank `base` among the codes of length l. */
struct Run {
    uint32_t s, r, l, base;
};

/* One used run's entries, by a warp: its codes' slots in the primary table
 * (length <= TB: every TB-bit extension), else its symbols in the long
 * list. The run's symbols s .. s + r - 1 have codes first[l] + base ... */
__device__ __forceinline__ void hs_fill_run(const Stream &S, uint32_t *table, uint16_t *longs, uint32_t s,
                                            uint32_t r, uint32_t l, uint32_t base, uint32_t lane) {
    if (l <= TB) {
        const uint32_t sh_ = TB - l, cnt = r << sh_;
        for (uint32_t e = lane; e < cnt; e += 32) {
            const uint32_t j = e >> sh_;
            const uint32_t code = S.first[l] + base + j;
            table[(code << sh_) + (e & ((1u << sh_) - 1))] = (s + j) | l << 16;
        }
    } else {
        for (uint32_t j = lane; j < r; j += 32) longs[S.loff[l] + base + j] = (uint16_t)(s + j);
    }
}

/* Decoding tables of a parsed stream, built by the NT threads of a block
 * from the codebook bytes at cb (S.cb or a copy of them):
 * table[TABLE] (symbol | length << 16; 0 = longer or invalid) and
 * longs[n_long] (symbols of codes longer than TB by (length, symbol)).
 * runs[NT] and sh[LMAX + 5] are the block's shared scratch. Every thread
 * of the block must call it. */
template <int NT>
__device__ void hs_build(const Stream &S, const uint8_t *cb, uint32_t *table, uint16_t *longs, Run *runs,
                         uint32_t *sh) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (uint32_t i = tid; i < TABLE; i += NT) table[i] = 0;
    uint32_t *rank = sh, *state = sh + LMAX + 1; /* state: cb offset, symbol, runs */
    if (tid == 0) {
        for (uint32_t l = 0; l <= LMAX; l++) rank[l] = 0;
        state[0] = state[1] = state[2] = 0;
    }
    __syncthreads();
    for (;;) {
        if (tid == 0) {
            const uint8_t *p = cb + state[0], *cend = cb + S.cb_bytes;
            uint32_t s = state[1], n = 0, l, r;
            while (n < (uint32_t)NT && cb_next(p, cend, S.K, s, &l, &r) > 0) { /* validated by hs_parse */
                if (l) {
                    runs[n++] = Run{s, r, l, rank[l]};
                    rank[l] += r;
                }
                s += r;
            }
            state[0] = (uint32_t)(p - cb);
            state[1] = s;
            state[2] = n;
        }
        __syncthreads();
        const uint32_t n = state[2];
        if (n == 0) break;
        for (uint32_t k = warp; k < n; k += NT / 32) {
            const Run R = runs[k];
            hs_fill_run(S, table, longs, R.s, R.r, R.l, R.base, lane);
        }
        __syncthreads();
    }
}

/* hs_parse + hs_build by a block of NT threads (whole warps, 64 to 448)
 * for any stream: the same checks, return codes, Stream fields and tables
 * (table and longs). Every thread calls it and gets the same result; S is
 * the block's shared copy (valid when HS_OK). Ends with a barrier. Nothing
 * is read outside src[0 .. avail).
 *
 * A codebook that fits the shared scratch (HSP_CB bytes, an alphabet of at
 * most HSP_RUNS symbols) is staged in shared memory; warp 0 walks the runs
 * 32 byte positions at a time (each lane decodes the run that would start
 * at its byte, the run heads follow from position 0 by shuffles), so the
 * walk costs a few warp steps per 32 bytes instead of a dependent chain
 * per run; each used run's rank among the codes of its length comes from
 * one warp scan per length. Other codebooks take hs_pb_any (below): the
 * whole block walks them from global memory, NT byte positions a step. */
constexpr uint32_t HSP_CB = 4096, HSP_RUNS = 2048;
struct HsParseShared {
    union {
        uint8_t cb[HSP_CB];      /* small codebooks: the bytes */
        uint32_t cw[HSP_CB / 4]; /* others: hs_pb_any's scratch */
    };
    uint32_t rs[HSP_RUNS], rr[HSP_RUNS], rb[HSP_RUNS]; /* used runs: first symbol, length, rank base (hs_pb_any: head bitmap, long-run buffer) */
    uint8_t rl[HSP_RUNS];                             /* their code length */
    uint32_t lc[LMAX + 2];
    uint32_t nr;
    int head, walk, tail; /* each step's result, in its own word: no thread rereads a word another rewrites */
};

/* The run that would start at byte q of the codebook cb[0 .. n): code
 * length *l, run *r, next run at *nx; false if malformed (cb_next's rules,
 * with K <= 65536: a valid run's varint has at most 3 bytes). */
__device__ __forceinline__ bool hsp_run_at(const uint8_t *cb, uint32_t n, uint32_t q, uint32_t K, uint32_t *l,
                                           uint32_t *r, uint32_t *nx) {
    const uint32_t b = cb[q];
    *l = b & 31u;
    *r = (b >> 5) + 1u;
    *nx = q + 1;
    if (*l > LMAX) return false;
    if (*r != 8) return true;
    uint32_t x = 0;
    for (uint32_t k = 0; k < 3; k++) {
        if (q + 1 + k >= n) return false;
        const uint32_t c = cb[q + 1 + k];
        if (k && c == 0) return false;
        x |= (c & 0x7Fu) << (7 * k);
        if (!(c & 0x80u)) {
            if (x > K) return false;
            *r = 8 + x;
            *nx = q + 2 + k;
            return true;
        }
    }
    return false; /* 4 bytes or more: above K, or not a valid varint */
}

/* hsp_run_at from the bytes c[0 .. 3] at q .. q + 3, of which the first
 * m >= 1 lie inside the codebook (the others are never used): code length
 * *l, run *r, the run's bytes *len (1 if malformed). */
__device__ __forceinline__ bool hsp_run_bytes(const uint32_t *c, uint32_t m, uint32_t K, uint32_t *l, uint32_t *r,
                                              uint32_t *len) {
    *l = c[0] & 31u;
    *r = (c[0] >> 5) + 1u;
    *len = 1;
    if (*l > LMAX) return false;
    if (*r != 8) return true;
    if (m < 2) return false;
    uint32_t x = c[1] & 0x7Fu, nb = 2;
    if (c[1] & 0x80u) {
        if (m < 3 || c[2] == 0) return false;
        x |= (c[2] & 0x7Fu) << 7;
        nb = 3;
        if (c[2] & 0x80u) {
            if (m < 4 || c[3] == 0 || (c[3] & 0x80u)) return false;
            x |= (c[3] & 0x7Fu) << 14;
            nb = 4;
        }
    }
    if (x > K) return false;
    *r = 8 + x;
    *len = nb;
    return true;
}

/* Maps of hs_pb_any's walk. The state of a byte position is its distance
 * (0 .. 3) to the first run head at or after it (0: a head); a byte takes
 * the state before it to the state after it: 0 -> its run's bytes - 1,
 * d -> d - 1. A map keeps the image of state x in byte x, so that maps
 * compose by a byte permutation. */
constexpr uint32_t HSM_ID = 0x03020100u;
__device__ __forceinline__ uint32_t hsm_byte(uint32_t len) { return 0x02010000u | (len - 1u); } /* len 1 .. 4 */
/* g after f */
__device__ __forceinline__ uint32_t hsm_then(uint32_t f, uint32_t g) {
    const uint32_t y = f | f >> 4; /* f's bytes as a selector: nibble x = byte x */
    return __byte_perm(g, 0u, (y & 0xFFu) | (y >> 8 & 0xFF00u));
}
__device__ __forceinline__ uint32_t hsm_at(uint32_t m, uint32_t d) { return m >> (8 * d) & 3u; }

/* Entries (table slots or long-list symbols) that hs_pb_any's threads
 * write for a run themselves; longer runs go to warps (hs_fill_run). */
constexpr uint32_t HSP_DIRECT = 16;

/* hs_parse_build of the streams whose codebook does not fit the small
 * path, from the codebook in global memory (S from hs_parse_head, w.lc
 * zeroed, w.nr = 0; every thread calls it after a barrier). A valid
 * codebook has at most K bytes (a run of b bytes covers at least b
 * symbols), so a longer one is rejected at once and a walk covers at most
 * 65536 bytes.
 * Walk 1: the thread of byte q decodes the run that would start at q
 * (hsp_run_bytes); the heads follow from state 0 at byte 0 through the
 * composed maps of the bytes before (a warp scan of maps, the warps' maps
 * after a barrier, the state carried across steps). A malformed head,
 * symbols beyond K or a total other than K is HS_ERR_CODEBOOK (cb_next's
 * walk fails exactly then: it decodes the same heads); the heads' code
 * lengths are counted (w.lc) and the heads kept as a bitmap (w.rs); then
 * hs_parse_tail.
 * Walk 2: the heads from the bitmap; each used run's first symbol (a scan
 * of the heads' runs) and its rank among the codes of its length: within
 * a warp, the lanes sorted by length (five ballots, stable) and a
 * segmented scan; across warps, each warp's totals per length; across
 * steps, a carry per length. A step's runs are written during the next
 * step, after its one barrier: by their thread where at most HSP_DIRECT
 * entries, else by warps from a buffer (w.rr, w.rb, w.rl) when it fills
 * and at the end. Scratch: w.cw. */
template <int NT>
__device__ int hs_pb_any(uint32_t K, uint32_t long_cap, Stream &S, uint32_t *table, uint16_t *longs,
                         HsParseShared &w) {
    constexpr uint32_t NW = NT / 32, LW = LMAX + 1;
    static_assert(4 * NW + 2 * NW * LW + 2 * LW + 32 * NW <= HSP_CB / 4, "hs_pb_any: scratch in w.cw");
    static_assert(HSP_RUNS >= 2 * NT && (HSP_RUNS & (HSP_RUNS - 1)) == 0, "hs_pb_any: the long-run buffer");
    const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint8_t *const cb = S.cb;
    const uint32_t n = S.cb_bytes;
    if (n > K || n > 32 * HSP_RUNS) return HS_ERR_CODEBOOK;
    /* scratch: warp maps and warp symbol totals [2][NW], warp totals per
     * length [2][NW][LW], carries per length [2][LW] (by step parity: one
     * barrier a step), the warps' sort buffers [NW][32] */
    uint32_t *const maps = w.cw, *const tot = maps + 2 * NW, *const wt = tot + 2 * NW, *const rk = wt + 2 * NW * LW;
    uint32_t *const sb = rk + 2 * LW + 32 * warp;
    uint32_t *const bm = w.rs; /* bit j of word i: byte 32 i + j is a head */
    for (uint32_t i = tid; i < TABLE; i += NT) table[i] = 0;
    if (tid < LW) rk[tid] = 0;
#ifdef __CUDA_ARCH__
    for (uint32_t i = 128 * tid; i < n; i += 128 * NT) asm volatile("prefetch.L2 [%0];" ::"l"(cb + i));
#endif
    /* the bytes at q .. q + 3 that lie inside the codebook (the others 0),
     * loaded a step before they are used */
    uint32_t c[4], cn[4];
    auto fetch = [&](uint32_t *o, uint32_t q) {
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) o[k] = q + k < n ? (uint32_t)cb[q + k] : 0u;
    };
    auto advance = [&]() {
#pragma unroll
        for (uint32_t k = 0; k < 4; k++) c[k] = cn[k];
    };
    const uint32_t steps = (n + NT - 1) / NT;

    /* walk 1. walk(q, par): the run that would start at byte q, the warp's
     * map to maps[par]; returns the map of the lane's bytes before q */
    bool ok;
    uint32_t l, r;
    auto walk = [&](uint32_t q, uint32_t par) {
        uint32_t len = 1;
        l = r = 0;
        ok = q < n && hsp_run_bytes(c, n - q, K, &l, &r, &len);
        uint32_t m = hsm_byte(len);
#pragma unroll
        for (uint32_t d = 1; d < 32; d <<= 1) {
            const uint32_t y = __shfl_up_sync(FULL, m, d);
            if (lane >= d) m = hsm_then(y, m);
        }
        if (lane == 31) maps[par * NW + warp] = m;
        const uint32_t e = __shfl_up_sync(FULL, m, 1);
        return lane ? e : HSM_ID;
    };
    fetch(c, tid);
    uint32_t ex = walk(tid, 0);
    fetch(c, tid + NT);
    bool bad = false;
    uint32_t s = 0, d0 = 0; /* the symbols of the steps summed so far; the state at step t's first byte */
    int res = HS_OK;
    for (uint32_t t = 0;; t++) {
        const uint32_t q = t * NT + tid;
        const bool stop = __syncthreads_or(bad);
        if (t) {
            const uint32_t *tp = tot + ((t - 1) & 1) * NW;
#pragma unroll
            for (uint32_t v = 0; v < NW; v++) s += tp[v];
        }
        if (stop || s > K) { /* a malformed head, or runs beyond K symbols */
            res = HS_ERR_CODEBOOK;
            break;
        }
        if (t == steps) {
            if (s != K) res = HS_ERR_CODEBOOK;
            break;
        }
        fetch(cn, q + 2 * NT);
        const uint32_t *mp = maps + (t & 1) * NW;
        uint32_t dd = d0, dw = 0;
#pragma unroll
        for (uint32_t v = 0; v < NW; v++) {
            if (v == warp) dw = dd;
            dd = hsm_at(mp[v], dd);
        }
        d0 = dd;
        const bool head = q < n && hsm_at(ex, dw) == 0;
        bad |= head && !ok;
        if (head && ok && l) atomicAdd(&w.lc[l], r);
        const uint32_t hb = __ballot_sync(FULL, head);
        if (lane == 0 && q < n) bm[q >> 5] = hb;
        const uint32_t x = __reduce_add_sync(FULL, head ? r : 0u); /* r <= 8 + K: no overflow */
        if (lane == 0) tot[(t & 1) * NW + warp] = x;
        ex = walk(q + NT, (t + 1) & 1); /* c: the bytes of step t + 1 */
        advance();
    }
    if (tid == 0) w.tail = res ? res : hs_parse_tail(w.lc, long_cap, &S);
    __syncthreads();
    const int st = w.tail;
    if (st) return st;

    /* walk 2 */
    uint32_t fb = 0; /* buffered runs already written */
    auto emit = [&](uint32_t s0, uint32_t rr, uint32_t ll, uint32_t base) {
        if (ll <= TB) {
            const uint32_t sh_ = TB - ll, e = rr << sh_;
            if (e <= HSP_DIRECT) {
                uint32_t *o = table + ((S.first[ll] + base) << sh_);
                for (uint32_t k = 0; k < e; k++) o[k] = (s0 + (k >> sh_)) | ll << 16;
                return false;
            }
        } else if (rr <= HSP_DIRECT) {
            uint16_t *o = longs + S.loff[ll] + base;
            for (uint32_t k = 0; k < rr; k++) o[k] = (uint16_t)(s0 + k);
            return false;
        }
        const uint32_t k = atomicAdd(&w.nr, 1u), i = k & (HSP_RUNS - 1);
        w.rr[i] = rr;
        w.rb[i] = s0 | base << 16; /* both < K <= 65536 */
        w.rl[i] = (uint8_t)ll;
        return k + 1 - fb > HSP_RUNS - NT; /* a step adds at most NT */
    };
    auto flush = [&]() { /* after a barrier */
        const uint32_t e = w.nr;
        for (uint32_t k = fb + warp; k < e; k += NW) {
            const uint32_t i = k & (HSP_RUNS - 1), sb_ = w.rb[i];
            hs_fill_run(S, table, longs, sb_ & 0xFFFFu, w.rr[i], w.rl[i], sb_ >> 16, lane);
        }
        fb = e;
        __syncthreads();
    };
    /* the thread's run of the previous step: used (pv), the symbols of its
     * warp's runs before it (pw), run, length, rank among the codes of its
     * length in its warp (pk) */
    bool pv = false, full = false;
    uint32_t pw = 0, pr = 0, pl = 0, pk = 0;
    uint32_t s2 = 0; /* symbols before the previous step */
    fetch(c, tid);
    for (uint32_t t = 0; t <= steps; t++) {
        const uint32_t q = t * NT + tid;
        if (t + 1 < steps) fetch(cn, q + NT);
        if (t) { /* step t - 1's runs */
            const uint32_t par = (t - 1) & 1;
            const uint32_t *tp = tot + par * NW, *wp = wt + par * NW * LW, *rp = rk + par * LW;
            uint32_t off = 0, all = 0;
#pragma unroll
            for (uint32_t v = 0; v < NW; v++) {
                const uint32_t y = tp[v];
                off += v < warp ? y : 0u;
                all += y;
            }
            if (pv) {
                uint32_t base = rp[pl] + pk;
                for (uint32_t v = 0; v < warp; v++) base += wp[v * LW + pl];
                full = emit(s2 + off + pw, pr, pl, base);
            }
            if (tid >= 1 && tid <= LMAX) {
                uint32_t a = rp[tid];
#pragma unroll
                for (uint32_t v = 0; v < NW; v++) a += wp[v * LW + tid];
                rk[(t & 1) * LW + tid] = a;
            }
            s2 += all;
        }
        if (t < steps) { /* step t: its heads, their symbols and ranks in the warp */
            uint32_t ll = 0, rr = 0, len;
            const bool head = q < n && (bm[q >> 5] >> lane & 1u);
            if (head) hsp_run_bytes(c, n - q, K, &ll, &rr, &len); /* valid: walk 1 */
            const bool used = head && ll;
            const uint32_t x = head ? rr : 0u;
            uint32_t inc = x;
#pragma unroll
            for (uint32_t d = 1; d < 32; d <<= 1) {
                const uint32_t y = __shfl_up_sync(FULL, inc, d);
                if (lane >= d) inc += y;
            }
            if (lane == 31) tot[(t & 1) * NW + warp] = inc;
            pw = inc - x;
            /* rank among the used runs of the same length: the lanes
             * sorted by (length, lane), a scan within each length */
            const uint32_t key = used ? ll : 0u;
            uint32_t *const wr = wt + (t & 1) * NW * LW + warp * LW;
            if (lane < LW) wr[lane] = 0;
            uint32_t eq = FULL, less = 0;
#pragma unroll
            for (int b = 4; b >= 0; b--) {
                const bool bit = key >> b & 1u;
                const uint32_t bal = __ballot_sync(FULL, bit);
                if (bit) less += __popc(eq & ~bal);
                eq &= bit ? bal : ~bal;
            }
            const uint32_t pos = less + __popc(eq & ((1u << lane) - 1u));
            sb[pos] = key << 24 | (used ? rr : 0u);
            __syncwarp();
            const uint32_t kv = sb[lane], k2 = kv >> 24, v0 = kv & 0xFFFFFFu;
            uint32_t v = v0;
#pragma unroll
            for (uint32_t d = 1; d < 32; d <<= 1) {
                const uint32_t y = __shfl_up_sync(FULL, v, d), ky = __shfl_up_sync(FULL, k2, d);
                if (lane >= d && ky == k2) v += y;
            }
            const uint32_t kn = __shfl_down_sync(FULL, k2, 1);
            sb[lane] = v - v0;
            if (k2 && (lane == 31 || kn != k2)) wr[k2] = v;
            __syncwarp();
            pk = sb[pos];
            pv = used;
            pr = rr;
            pl = ll;
            advance();
        }
        full = __syncthreads_or(full);
        if (full) {
            flush();
            full = false;
        }
    }
    if (w.nr != fb) flush();
    return HS_OK;
}

template <int NT>
__device__ int hs_parse_build(const uint8_t *src, uint64_t avail, uint32_t K, uint64_t count, uint32_t long_cap,
                              Stream &S, uint32_t *table, uint16_t *longs, HsParseShared &w) {
    static_assert(NT % 32 == 0 && NT >= 64, "hs_parse_build: whole warps");
    const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    if (tid == 0) {
        int r = hs_parse_head(src, avail, K, count, &S);
        /* -1: the small path; -2: hs_pb_any */
        if (!r && count) r = S.cb_bytes <= HSP_CB && K <= HSP_RUNS ? -1 : -2;
        w.head = r;
        w.nr = 0;
    }
    if (tid <= LMAX + 1) w.lc[tid] = 0;
    __syncthreads();
    const int hd = w.head;
    if (hd >= 0) return hd; /* an error, or an empty stream */
    if (hd == -2) return hs_pb_any<NT>(K, long_cap, S, table, longs, w);
    const uint32_t n = S.cb_bytes;
    for (uint32_t i = tid; i < n; i += NT) w.cb[i] = S.cb[i];
    for (uint32_t i = tid; i < TABLE; i += NT) table[i] = 0;
    __syncthreads();
    if (warp == 0) {
        uint64_t s = 0;
        uint32_t pos = 0, nr = 0;
        bool bad = false;
        while (pos < n) {
            const uint32_t q = pos + lane;
            uint32_t l = 0, r = 0, nx = q + 1;
            const bool ok = q < n && hsp_run_at(w.cb, n, q, K, &l, &r, &nx);
            /* the heads: from lane 0 along the next-run positions */
            const uint32_t rel = nx - pos; /* >= lane + 1 */
            uint32_t heads = 0, cur = 0;
            while (cur < 32) {
                heads |= 1u << cur;
                cur = __shfl_sync(0xffffffffu, rel, cur);
            }
            const bool head = (heads >> lane) & 1u && q < n;
            bad |= __any_sync(0xffffffffu, head && !ok);
            /* symbols before each head's run, in this window */
            uint32_t x = head ? r : 0u, inc = x;
#pragma unroll
            for (uint32_t d = 1; d < 32; d <<= 1) {
                const uint32_t y = __shfl_up_sync(0xffffffffu, inc, d);
                if (lane >= d) inc += y;
            }
            const uint64_t before = s + (inc - x);
            const bool used = head && ok && l != 0;
            const uint32_t um = __ballot_sync(0xffffffffu, used);
            if (head && ok) {
                atomicAdd(&w.lc[l], r);
                if (before + r > K) bad = true; /* lane-local; folded in below */
            }
            if (used) {
                const uint32_t k = nr + (uint32_t)__popc(um & ((1u << lane) - 1u));
                if (k < HSP_RUNS) {
                    w.rs[k] = (uint32_t)before;
                    w.rr[k] = r;
                    w.rl[k] = (uint8_t)l;
                }
            }
            bad = __any_sync(0xffffffffu, bad);
            nr += (uint32_t)__popc(um);
            s += __shfl_sync(0xffffffffu, inc, 31);
            pos += cur;
            if (bad || nr > HSP_RUNS) break; /* nr <= K <= HSP_RUNS for a valid codebook */
        }
        if (lane == 0) {
            w.nr = nr;
            w.walk = bad || nr > HSP_RUNS || s != K ? HS_ERR_CODEBOOK : 0;
        }
    }
    __syncthreads();
    if (tid == 0) w.tail = w.walk ? w.walk : hs_parse_tail(w.lc, long_cap, &S);
    __syncthreads();
    const int st = w.tail;
    if (st) return st;
    /* each used run's rank among the codes of its length: warp k scans
     * the runs of lengths k + 1, k + 1 + NT / 32, ... */
    const uint32_t nr = w.nr;
    for (uint32_t l = warp + 1; l <= LMAX; l += NT / 32) {
        uint32_t carry = 0;
        for (uint32_t i0 = 0; i0 < nr; i0 += 32) {
            const uint32_t i = i0 + lane;
            const uint32_t x = i < nr && w.rl[i] == l ? w.rr[i] : 0u;
            uint32_t inc = x;
#pragma unroll
            for (uint32_t d = 1; d < 32; d <<= 1) {
                const uint32_t y = __shfl_up_sync(0xffffffffu, inc, d);
                if (lane >= d) inc += y;
            }
            if (x) w.rb[i] = carry + inc - x;
            carry += __shfl_sync(0xffffffffu, inc, 31);
        }
    }
    __syncthreads();
    for (uint32_t k = warp; k < nr; k += NT / 32) {
        const uint32_t l = w.rl[k], r = w.rr[k], s0 = w.rs[k], base = w.rb[k];
        hs_fill_run(S, table, longs, s0, r, l, base, lane);
    }
    __syncthreads();
    return HS_OK;
}

/* Per-length arrays for codes longer than TB, as the decoding loop reads
 * them (shared memory of the block). */
/* Codes longer than TB, canonical: the codes of length l are the l-bit
 * values [first[l], first[l] + lcount[l]), and first[l + 1] = (first[l] +
 * lcount[l]) << 1 (hs_parse), so with the next LMAX bits c, the length is
 * the least l with c < lim[l] = (first[l] + lcount[l]) << (LMAX - l) (none:
 * an invalid codeword), found by comparisons without a loop, and the
 * symbol is longs[base[l] + (c >> (LMAX - l))], base[l] = loff[l] - first[l]. */
struct LongTab {
    uint32_t lim[LMAX + 2];
    int32_t base[LMAX + 2];
};

/* Entry l of L from the parsed stream S (one thread per l < LMAX + 2). */
__device__ __forceinline__ void longtab_set(LongTab &L, const Stream &S, uint32_t l) {
    L.lim[l] = l >= 1 && l <= LMAX ? (S.first[l] + S.lcount[l]) << (LMAX - l) : 0u;
    L.base[l] = (int32_t)S.loff[l] - (int32_t)S.first[l];
}

/* The symbol whose code is at the top of hi (the next 32 bits of the
 * stream); *len = its length, 0 = invalid codeword. */
__device__ __forceinline__ uint32_t dec_sym(uint32_t hi, const uint32_t *table, const LongTab &L,
                                            const uint16_t *longs, unsigned *len) {
    const uint32_t e = table[hi >> (32 - TB)];
    *len = e >> 16;
    if (e >> 16) return e & 0xFFFFu;
    const uint32_t c = hi >> (32 - LMAX);
    unsigned l = TB + 1;
#pragma unroll
    for (unsigned k = TB + 1; k <= LMAX; k++) l += c >= L.lim[k];
    if (l > LMAX) {
        *len = 0;
        return 0;
    }
    *len = l;
    return longs[L.base[l] + (int32_t)(c >> (LMAX - l))];
}

/* Count table for the counting pass: ctab[b] = n << 4 | bits, where the
 * TB bits b start with n >= 1 complete codewords of `bits` bits in all
 * (codes that end inside b: their decoding does not depend on the bits
 * after b); 0 when the first codeword is longer than TB or invalid. Built
 * from `table` by the block's nthreads threads (the caller synchronizes). */
__device__ __forceinline__ void hs_build_ctab(const uint32_t *table, uint8_t *ctab, uint32_t tid, uint32_t nthreads) {
    for (uint32_t b = tid; b < TABLE; b += nthreads) {
        uint32_t used = 0, n = 0;
        for (;;) {
            const uint32_t l = table[(b << used) & (TABLE - 1)] >> 16;
            if (!l || used + l > TB) break;
            used += l;
            n++;
        }
        ctab[b] = (uint8_t)(n ? n << 4 | used : 0);
    }
}
static_assert(TB <= 15, "count table entries: 4-bit counts and lengths");
static_assert(2 * TB <= 32, "two count-table lookups per refill");

/* Decoding blocks (the huffman codec's k_decode, the lossy codec's
 * k_huff): HS_WARPS warps each, taking items of HS_WARPS segments of one
 * stream from a counter (hs_counter_items), so that the SMs stay busy to
 * the end and a block's warps wait less for each other when an item needs
 * other tables. H100, wmag REL 1e-3 lossy decompression: 8 warps 375 GB/s;
 * 2, 3, 4 warps 392, 389, 392 in grid-stride order and 411, 408, 391 from
 * the counter; 3 warps gave the best mpas / pressure figures. A stream's
 * symbols of codes longer than TB bits go to shared memory where there are
 * at most HS_LONGS (the global array otherwise): at REL 1e-3 about one warp
 * step in four has a long code, whose global load held the whole warp
 * (407 -> 422 GB/s). */
constexpr uint32_t HS_WARPS = 3;
constexpr uint32_t HS_LONGS = 1024;

/* f(it) for the items it < total as a counter (zeroed before the launch)
 * hands them out to the blocks of a persistent grid; the slot goes by
 * parity, since a warp may still read this item's slot when thread 0
 * writes the next. Every thread of the block calls it; f may synchronize
 * the block. (Taking the next item while the block works on this one,
 * to hide the atomic's round trip, was slower: at the end a block holds an
 * item it cannot start while others idle; H100, wmag REL 1e-3 Huffman
 * phase 0.72 -> 0.78 ms.) */
template <typename F>
__device__ __forceinline__ void hs_counter_items(unsigned long long *ctr, uint64_t total, F &&f) {
    __shared__ unsigned long long next[2];
    for (uint32_t par = 0;; par ^= 1) {
        if (threadIdx.x == 0) next[par] = atomicAdd(ctr, 1ull);
        __syncthreads();
        const uint64_t it = next[par];
        if (it >= total) break;
        f(it);
    }
}

/* A stream's long-code symbols (global gl[0 .. S.n_long)) into shared
 * sl[HS_LONGS] where they fit, by the block's nt threads; returns the
 * array to decode with (the caller synchronizes the block before use). */
__device__ __forceinline__ const uint16_t *hs_stage_longs(const Stream &S, const uint16_t *gl, uint16_t *sl,
                                                          uint32_t nt) {
    const uint32_t n = S.n_long;
    if (n > HS_LONGS) return gl;
    for (uint32_t i = threadIdx.x; i < n; i += nt) sl[i] = gl[i];
    return sl;
}

/* Staged word k of a segment (zeros past the staged range). */
__device__ __forceinline__ uint32_t stw(const uint32_t *st, uint32_t k, unsigned sh8) {
    if (k >= STAGE_WORDS) return 0u;
    const uint32_t lo = st[k + (k >> 5)];
    return sh8 ? __funnelshift_r(lo, st[k + 1 + ((k + 1) >> 5)], sh8) : lo;
}

/* Bit reader over the staged words, in two 32-bit halves: hi:lo holds the
 * next nb bits of the stream at its top, zeros below them; refill() keeps
 * nb >= 32 (a code is at most 16 bits), so that hi always holds the next 32
 * bits. Shifts are funnel shifts of at most 31 bits. */
struct Reader {
    uint32_t hi, lo;
    unsigned nb;
    uint32_t wi;
    unsigned sh8; /* the staged words are the stream's aligned words: word k = bits 8 sh8 .. of words k, k + 1 */
    __device__ __forceinline__ void start(const uint32_t *st, uint32_t rp, unsigned sh8_) {
        sh8 = sh8_;
        wi = rp >> 5;
        const unsigned sh = rp & 31;
        const uint32_t a = stw(st, wi, sh8), b = stw(st, wi + 1, sh8);
        hi = __funnelshift_l(b, a, sh);
        lo = b << sh;
        nb = 64 - sh;
        wi += 2;
    }
    /* nb < 32 means the valid bits are all in hi and lo is 0; any nb in
     * [0, 32) is refilled (the write pass refills once per two codes). */
    __device__ __forceinline__ void refill(const uint32_t *st) {
        if (nb < 32) {
            const uint32_t w = stw(st, wi++, sh8);
            hi |= w >> nb;
            lo = __funnelshift_lc(0u, w, 32 - nb); /* w << (32 - nb), 0 for nb = 0 */
            nb += 32;
        }
    }
    __device__ __forceinline__ void skip(unsigned l) { /* 1 <= l <= 16 */
        hi = __funnelshift_l(lo, hi, l);
        lo <<= l;
        nb -= l;
    }
};

/* Decodes segment g of stream S with one warp (all 32 lanes call it with
 * the same g): symbols go to out[segment's first index ...] (T = uint8_t or
 * uint16_t; out holds S.count symbols). stage: this warp's STAGE_SLOTS
 * words of shared memory; table / L / longs from hs_build. With ESC,
 * *esc_out (lane 0) gets the number of symbols equal to esc_sym in the
 * segment. With CT, ctab (hs_build_ctab; not with ESC) lets the counting
 * pass take several short codes per lookup. Sink: sink.test(symbol) says whether
 * sink(i, symbol) must see a written symbol (i its index in out): a cheap
 * test per symbol, the call only for the symbols it selects. With
 * Sink::WIDE and T = uint8_t, a symbol of 256 or more (a table built so)
 * is written as 255 and given to sink.wide(i, symbol) too.
 * Returns true (all lanes) if the segment is consistent and
 * was written, false if not (nothing written). */
struct NoSink {
    static constexpr bool WIDE = false;
    __device__ __forceinline__ bool test(uint32_t) const { return false; }
    __device__ __forceinline__ void operator()(uint64_t, uint32_t) const {}
    __device__ __forceinline__ void wide(uint64_t, uint32_t) const {}
};
template <typename T, bool ESC, bool CT = false, typename Sink = NoSink>
__device__ bool hs_decode_segment(const Stream &S, uint32_t g, const uint32_t *table, const LongTab &L,
                                  const uint16_t *longs, uint32_t *stage, T *out, uint32_t esc_sym,
                                  uint32_t *esc_out, const uint8_t *ctab = nullptr, const Sink &sink = Sink()) {
    const uint32_t lane = threadIdx.x & 31;
    constexpr bool WB = sizeof(T) == 1 && Sink::WIDE; /* symbols >= 256: 255 written, sink.wide */
    __syncwarp(); /* the warp's previous segment is no longer read */
    /* stage the segment's words (and the lookahead), zeros past the stream */
    const uint64_t w0 = (uint64_t)g * SEG_WORDS;
    unsigned sh8 = 0;
    if (w0 + STAGE_WORDS < S.n_words) {
        /* every staged word has a successor in the stream: the aligned
         * words under them (one more), all in flight at once; the reader
         * shifts them into place */
        const uint8_t *a = S.words + 4 * w0;
        const unsigned sh = (unsigned)(reinterpret_cast<uintptr_t>(a) & 3);
        const uint32_t *A = reinterpret_cast<const uint32_t *>(a - sh);
        static_assert(STAGE_WORDS + (STAGE_WORDS >> 5) < STAGE_SLOTS, "a slot for the extra word");
        for (uint32_t k = lane; k <= STAGE_WORDS; k += 32) scz_ku::cp_async4(&stage[k + (k >> 5)], A + k);
        scz_ku::cp_async_wait_all();
        sh8 = 8 * sh;
    } else {
        for (uint32_t k = lane; k < STAGE_WORDS; k += 32) {
            const uint64_t w = w0 + k;
            stage[k + (k >> 5)] = w < S.n_words ? ld32u(S.words + 4 * w, S.end) : 0u;
        }
    }
    __syncwarp();
    const uint64_t u = (uint64_t)g * G + lane;
    const bool active = u < S.n_units;
    const uint64_t seg_bit = (uint64_t)g * G * U;
    uint32_t rp = 0, lim = 0, cnt = 0, nesc = 0;
    bool ok = true;
    if (active) {
        rp = lane * U + ((S.gaps[u >> 1] >> ((u & 1) * 4)) & 15);
        lim = u + 1 == S.n_units ? (uint32_t)(S.total_bits - seg_bit) : (lane + 1) * U;
        Reader R;
        R.start(stage, rp, sh8);
        uint32_t p = rp;
        while (p < lim) {
            R.refill(stage);
            if (!ESC && CT) {
                /* whole codes inside the next TB bits, all starting before
                 * lim; twice per refill (nb >= 32 - TB >= TB after the
                 * first) */
                uint32_t e = ctab[R.hi >> (32 - TB)], eb = e & 15u;
                if (e && p + eb <= lim) {
                    R.skip(eb);
                    p += eb;
                    cnt += e >> 4;
                    e = ctab[R.hi >> (32 - TB)];
                    eb = e & 15u;
                    if (e && p + eb <= lim) {
                        R.skip(eb);
                        p += eb;
                        cnt += e >> 4;
                    }
                    continue;
                }
            }
            unsigned l;
            const uint32_t s = dec_sym(R.hi, table, L, longs, &l);
            if (!l) {
                ok = false;
                break;
            }
            R.skip(l);
            p += l;
            cnt++;
            if (ESC) nesc += s == esc_sym;
        }
        if (ok) {
            if (u + 1 < S.n_units) {
                const uint64_t v = u + 1;
                ok = p == (lane + 1) * U + ((S.gaps[v >> 1] >> ((v & 1) * 4)) & 15);
            } else {
                ok = p == lim;
            }
        }
    }
    uint32_t incl = cnt, etot = nesc;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const uint32_t y = __shfl_up_sync(FULL, incl, d);
        const uint32_t z = __shfl_xor_sync(FULL, etot, d);
        if ((int)lane >= d) incl += y;
        etot += z;
    }
    const uint32_t tot = __shfl_sync(FULL, incl, 31);
    const uint32_t base = ld32u(S.segf + 4 * (uint64_t)g, S.end);
    const uint32_t seg_end = g + 1 < S.n_segs ? ld32u(S.segf + 4 * (uint64_t)(g + 1), S.end) : S.count;
    if (__any_sync(FULL, !ok) || base > seg_end || seg_end > S.count || seg_end - base != tot) return false;
    if (ESC && lane == 0) *esc_out = etot;
    if (active && cnt) {
        /* the lane's cnt symbols: one by one up to 16-byte alignment, then
         * 16 bytes at a time from registers (the bit reader refilled once
         * per two codes: 2 x 16 bits at most between refills), then the
         * rest one by one */
        constexpr uint32_t PER = 16 / sizeof(T);
        const uint64_t o0 = base + (incl - cnt);
        T *o = out + o0;
        uint32_t head = (uint32_t)(((16u - (reinterpret_cast<uintptr_t>(o) & 15u)) & 15u) / sizeof(T));
        if (head > cnt) head = cnt;
        Reader R;
        R.start(stage, rp, sh8);
        uint32_t i = 0;
        for (; i < head; i++) {
            R.refill(stage);
            unsigned l;
            const uint32_t s = dec_sym(R.hi, table, L, longs, &l);
            R.skip(l); /* l >= 1: the counting pass decoded the same bits */
            o[i] = (T)(WB ? min(s, 255u) : s);
            if (WB && s > 255) sink.wide(o0 + i, s);
            if (sink.test(s)) sink(o0 + i, s);
        }
        for (; i + PER <= cnt; i += PER) {
            uint32_t w[4] = {0u, 0u, 0u, 0u};
            bool hit = false;
#pragma unroll
            for (uint32_t k = 0; k < PER; k++) {
                if ((k & 1) == 0) R.refill(stage);
                unsigned l;
                const uint32_t s = dec_sym(R.hi, table, L, longs, &l);
                R.skip(l);
                w[k * sizeof(T) / 4] |= (WB ? min(s, 255u) : s) << (8 * ((k * sizeof(T)) & 3));
                if (WB && s > 255) sink.wide(o0 + i + k, s);
                hit |= sink.test(s);
            }
            *reinterpret_cast<uint4 *>(o + i) = make_uint4(w[0], w[1], w[2], w[3]);
            if (hit) {
#pragma unroll
                for (uint32_t k = 0; k < PER; k++) {
                    const uint32_t s = (w[k * sizeof(T) / 4] >> (8 * ((k * sizeof(T)) & 3))) & ((1u << (8 * sizeof(T))) - 1u);
                    if (sink.test(s)) sink(o0 + i + k, s);
                }
            }
        }
        for (; i < cnt; i++) {
            R.refill(stage);
            unsigned l;
            const uint32_t s = dec_sym(R.hi, table, L, longs, &l);
            R.skip(l);
            o[i] = (T)(WB ? min(s, 255u) : s);
            if (WB && s > 255) sink.wide(o0 + i, s);
            if (sink.test(s)) sink(o0 + i, s);
        }
    }
    return true;
}

} // namespace scz_hd

#endif

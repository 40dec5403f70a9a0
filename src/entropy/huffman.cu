/*
 * huffman.cu -- the lossless `huffman` codec (id 3; u8, u16, u32) on the
 * GPU: writes exactly the bytes of the CPU codec (huffman_codec.c, FORMAT.md
 * 8.5, normative) and decodes them. The decoding of a Huffman stream itself
 * is huffman_cuda.h, shared with other codecs.
 *
 * Decoding, one launch per step over all chunks of a batch:
 *   k_dprep    one block per chunk: chunk header, dictionary (u32: strictly
 *              ascending), stream header and codebook, decoding tables into
 *              scratch (hs_parse_build, by the block); work items of the chunk
 *              (3 segments, or 24 KiB of a stored chunk, per item);
 *   k_ditems   one block: item offsets of the chunks (a scan);
 *   k_decode   persistent blocks of 3 warps taking the items from a
 *              counter: stored pieces are copied,
 *              coded items load the chunk's table into shared memory and
 *              decode one segment per warp (hs_decode_segment); u8 / u16
 *              symbols go straight to the output, u32 symbols to scratch;
 *   k_desc     (u32) per chunk: escape ranks per segment (a scan), checked
 *              against the escape count;
 *   k_dmap     (u32) a warp per segment maps symbols through the dictionary
 *              and splices the escaped values (a ballot per 32 elements).
 *
 * Encoding, per group of chunks (up to 64 Mi symbols, 4 Mi for u32: the
 * scratch is sized for one group), all on the device:
 *   (u32: sort (chunk, value) keys, run-length encode, dictionary = all
 *   distinct values, or the 65535 most frequent by (count desc, value asc)
 *   through a segmented sort of (~count, value) and a sort of those values;
 *   symbols by binary search, escapes counted);
 *   k_ehist16  histogram per chunk, 65536 symbols: 16-bit counters in 128 KiB
 *              of shared memory per block (k_ehist: 256 symbols, or small
 *              chunks with warp-aggregated global atomics; k_ehistK:
 *              alphabets up to 8192 in shared memory, equal symbols of a
 *              warp merged; k_ehist8: bytes, a histogram per warp);
 *   k_eleaves  used symbols as (count << 16 | symbol) keys, then a
 *              segmented radix sort (CUB) per chunk;
 *   k_ebook    one block per chunk: the two-queue Huffman construction of
 *              FORMAT.md 8.2 by rounds (huff_rounds.h; its arrays in
 *              shared memory where they fit, else in the stream's global
 *              ones), the length limit (huff_limit.h's batched moves),
 *              lengths by (count desc, symbol
 *              asc), canonical codes and the serialised codebook (block
 *              scans), the stream and payload sizes, stored or coded;
 *   k_eoff     one block: payload offsets of the chunks (a scan);
 *   k_eenc<true> (u8 / u16: one pass) per tile of 4096 symbols, in
 *              ticket order (a stream set's write hands out only the
 *              tickets its written streams use, k_hse_place, to a grid of
 *              resident blocks that loop over them): a block scan
 *              of the code lengths gives each
 *              symbol's bit offset in the tile, a decoupled look-back over
 *              the tiles' bit counts the tile's offset in the stream;
 *              codewords are assembled in shared memory (atomicOr), then
 *              stored straight into the payload at its byte alignment
 *              (wdst: each byte by the tile its first bit belongs to,
 *              whole words where a tile owns all four bytes); the symbol
 *              whose codeword reaches a unit boundary writes its gap (and
 *              the segment entry);
 *   k_etbits / k_etscan / k_eenc<false> (u32: with escapes) the same in
 *              two passes: bits and escapes per tile, a scan per chunk,
 *              then the tiles at their offsets; escapes go to their rank;
 *   k_easm     the rest of the payloads, byte-exact from the parts.
 * Nothing depends on the order of atomic operations: the streams are
 * deterministic and equal the CPU's.
 */
#include <atomic>
#include "huffman_cuda.h"
#include "huffman_enc_cuda.h"
#include "huff_limit.h"
#include "huff_rounds.h"

#include <cub/cub.cuh>

using namespace scz_hd;

namespace {

/* The codec's codes in the device error word (error_text below). */
enum {
    HUF_ERR_HEADER = SCZ_CUDA_ERR_CODEC,
    HUF_ERR_STORED,
    HUF_ERR_DICT,
    HUF_ERR_STREAM,
    HUF_ERR_CODEBOOK,
    HUF_ERR_PADDING,
    HUF_ERR_BITS,
    HUF_ERR_TAIL,
    HUF_ERR_ESC,
    HUF_ERR_LONG,
};

constexpr uint32_t HDR = 16;          /* chunk payload header */
constexpr uint32_t DICT_MAX = 65535;  /* dictionary entries with escapes */
constexpr uint32_t NT = 256;          /* threads per block */
/* Decoding blocks: HW warps, each with its own segment, taking items of HW
 * segments (or PIECE bytes of a stored chunk) from a counter; small
 * blocks keep the SMs busy to the end and wait less for each other when
 * the next item's table is loaded (the lossy decoder's k_huff measured
 * it: lossy_dec.cu). */
constexpr uint32_t DW = NT / 32;      /* warps per block of NT threads */
constexpr uint32_t HW = HS_WARPS;     /* warps of a decoding block = segments per item (huffman_cuda.h) */
constexpr uint32_t NTD = 32 * HW;
constexpr uint64_t PIECE = 8192 * HW; /* bytes of a stored chunk per decoding item */
constexpr uint32_t ETILE = 4096;      /* symbols per encoding tile */
constexpr uint32_t EPT = ETILE / NT;  /* symbols per thread */
constexpr uint32_t ASM_BYTES = 4096; /* payload bytes per assembling block and round */

using scz_ku::Bump;
using scz_ku::copy_bytes;
using scz_ku::rup;

__device__ __forceinline__ uint32_t chunk_count(uint32_t c, uint32_t n, uint64_t full, uint64_t last) {
    return (uint32_t)(c + 1 == n ? last : full);
}

/* ================================================================== */
/* Decoding                                                            */
/* ================================================================== */

struct DMeta {
    Stream S;
    const uint8_t *pay, *dict, *esc; /* payload, dictionary, escape list */
    uint64_t size;                   /* payload bytes */
    uint32_t mode;                   /* 0 stored, 1 coded, 2 nothing to do (error reported, or empty) */
    uint32_t m, nesc, items;
};

struct DParams {
    const uint8_t *pay;
    const uint64_t *choff, *chsize, *chinfo;
    uint8_t *dst;
    unsigned long long *err;
    DMeta *meta;
    uint32_t *item_base; /* n + 1 */
    uint32_t *tables;    /* n x TABLE */
    uint16_t *longs;     /* n x long_cap */
    uint16_t *sym16;     /* u32: n x count_full */
    uint32_t *segesc;    /* u32: n x segs_cap */
    unsigned long long *next; /* k_decode's next item (zeroed before it) */
    uint64_t count_full, count_last, raw_full;
    uint32_t n, c0, es, long_cap, segs_cap;
};

struct DLayout {
    size_t meta, items, tables, longs, sym16, segesc, next, total;
    uint32_t long_cap, segs_cap;
};

uint32_t segs_for(uint64_t count) { /* segments of a stream of count symbols, at most */
    const uint64_t units = (count * LMAX + U - 1) / U;
    return (uint32_t)((units + G - 1) / G);
}

DLayout dlayout(const scz_cuda_batch *b) {
    DLayout L;
    const uint64_t n = b->n, cf = b->full.count;
    const uint32_t K = b->full.esize == 1 ? 256u : 65536u;
    L.long_cap = (uint32_t)(cf < K ? cf : K);
    L.segs_cap = segs_for(cf) + 1;
    Bump B{nullptr, 0};
    L.meta = B.o, B.take<DMeta>(n);
    L.items = B.o, B.take<uint32_t>(n + 1);
    L.tables = B.o, B.take<uint32_t>(n * TABLE);
    L.longs = B.o, B.take<uint16_t>(n * L.long_cap + 1);
    L.sym16 = B.o, B.take<uint16_t>(b->full.esize == 4 ? n * cf : 0);
    L.segesc = B.o, B.take<uint32_t>(b->full.esize == 4 ? n * L.segs_cap : 0);
    L.next = B.o, B.take<unsigned long long>(1);
    L.total = B.o;
    return L;
}

/* Chunk header, dictionary, stream header, codebook, tables; items. The
 * stream is parsed and its tables built by the block (hs_parse_build). */
__global__ void __launch_bounds__(NT) k_dprep(DParams p) {
    __shared__ DMeta M;
    __shared__ int bad;
    __shared__ HsParseShared w;
    __shared__ uint32_t st_e, st_K;
    __shared__ uint64_t st_pos;
    const uint32_t c = blockIdx.x, tid = threadIdx.x;
    const uint32_t n = chunk_count(c, p.n, p.count_full, p.count_last), es = p.es;
    if (tid == 0) { /* chunk header; where the stream is */
        int e = 0;
        const uint64_t off = p.choff[c], size = p.chsize[c];
        const uint32_t info = (uint32_t)p.chinfo[c];
        const uint8_t *P = p.pay + off;
        M.pay = P;
        M.size = size;
        M.mode = 2;
        M.items = 0;
        M.m = M.nesc = 0;
        M.dict = M.esc = P;
        uint32_t K = 0;
        uint64_t pos = 0;
        if (size < HDR) e = HUF_ERR_HEADER;
        const uint32_t mode = e ? 0 : P[0];
        const uint32_t m = e ? 0 : ldb32(P + 4), nesc = e ? 0 : ldb32(P + 8);
        if (!e && (mode != info || mode > 1 || P[1] != es || P[2] || P[3] || ldb32(P + 12))) e = HUF_ERR_HEADER;
        if (!e && mode == 0) {
            if (m || nesc || size != HDR + (uint64_t)n * es) e = HUF_ERR_STORED;
            else {
                M.mode = 0;
                M.items = (uint32_t)(((uint64_t)n * es + PIECE - 1) / PIECE);
            }
        } else if (!e) {
            if (es != 4) {
                if (m || nesc) e = HUF_ERR_DICT;
                K = es == 1 ? 256u : 65536u;
            } else {
                if (m == 0 || m > SCZ_HUFF_MAX_K || (nesc && m != DICT_MAX) || nesc > n) e = HUF_ERR_DICT;
                K = nesc ? SCZ_HUFF_MAX_K : m;
            }
            pos = HDR + 4 * (uint64_t)(es == 4 ? m : 0);
            if (!e && pos > size) e = HUF_ERR_DICT;
            if (!e) {
                M.mode = 1; /* so far */
                M.m = m;
                M.nesc = nesc;
            }
        }
        st_e = (uint32_t)e;
        st_K = K;
        st_pos = pos;
        bad = 0;
    }
    __syncthreads();
    /* stream header, codebook, padding, tail; tables */
    const bool coded = M.mode == 1; /* then st_e = 0 */
    int hr = HS_OK;
    if (coded)
        hr = hs_parse_build<NT>(M.pay + st_pos, M.size - st_pos, st_K, n, p.long_cap, M.S,
                                p.tables + (size_t)c * TABLE, p.longs + (size_t)c * p.long_cap, w);
    __syncthreads(); /* M.mode read by all */
    if (tid == 0) {
        uint32_t e = st_e;
        if (coded) {
            if (hr == HS_ERR_STREAM) e = HUF_ERR_STREAM;
            else if (hr == HS_ERR_CODEBOOK) e = HUF_ERR_CODEBOOK;
            else if (hr == HS_ERR_PADDING) e = HUF_ERR_PADDING;
            else if (hr == HS_ERR_BITSTREAM) e = HUF_ERR_BITS;
            else if (hr == HS_ERR_LONG) e = HUF_ERR_LONG;
            if (!e) {
                const uint64_t size = M.size, pos = st_pos + M.S.bytes;
                if (es != 4 && pos != size) e = HUF_ERR_TAIL;
                if (es == 4 && size - pos != 4 * (uint64_t)M.nesc) e = HUF_ERR_TAIL;
                if (!e) {
                    M.dict = M.pay + HDR;
                    M.esc = M.pay + pos;
                    M.items = (M.S.n_segs + HW - 1) / HW;
                }
            }
        }
        if (e) {
            scz_cuda_report(p.err, p.c0 + c, e);
            M.mode = 2;
            M.items = 0;
        }
    }
    __syncthreads();
    if (M.mode == 1 && es == 4) { /* dictionary strictly ascending */
        const uint8_t *end = M.pay + M.size;
        int b = 0;
        for (uint32_t i = tid + 1; i < M.m; i += NT)
            if (ld32u(M.dict + 4 * (uint64_t)(i - 1), end) >= ld32u(M.dict + 4 * (uint64_t)i, end)) b = 1;
        if (b) atomicOr(&bad, 1);
        __syncthreads();
        if (bad) {
            if (tid == 0) {
                scz_cuda_report(p.err, p.c0 + c, HUF_ERR_DICT);
                M.mode = 2;
                M.items = 0;
            }
            __syncthreads();
        }
    }
    /* the whole struct, by all threads */
    const uint32_t *s32 = reinterpret_cast<const uint32_t *>(&M);
    uint32_t *d32 = reinterpret_cast<uint32_t *>(p.meta + c);
    for (uint32_t i = tid; i < sizeof(DMeta) / 4; i += NT) d32[i] = s32[i];
}

/* Item offsets: item_base[c] = items of chunks before c; [n] = total. */
__global__ void __launch_bounds__(NT) k_ditems(DParams p) {
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    uint32_t carry = 0;
    for (uint32_t c0 = 0; c0 < p.n; c0 += NT) {
        const uint32_t c = c0 + threadIdx.x;
        const uint32_t x = c < p.n ? p.meta[c].items : 0;
        uint32_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (c < p.n) p.item_base[c] = carry + ex;
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0) p.item_base[p.n] = carry;
}

/* Chunk of item it (binary search over item_base). */
__device__ __forceinline__ uint32_t item_chunk(const uint32_t *ib, uint32_t n, uint32_t it) {
    uint32_t lo = 0, hi = n; /* last c with ib[c] <= it */
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (ib[mid] <= it) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Copies n bytes from s to d with the NTH threads of index tid: words to
 * 4-byte aligned destinations (sources through ld32u, never past s + n). */

struct DShared {
    uint32_t table[TABLE];
    uint32_t stage[HW][STAGE_SLOTS];
    LongTab L;
    uint16_t longs[HS_LONGS]; /* the long-code symbols, where at most HS_LONGS */
};

template <int ES> __global__ void __launch_bounds__(NTD, 1280 / NTD) k_decode(DParams p) {
    __shared__ __align__(16) DShared sm;
    const uint32_t warp = threadIdx.x >> 5;
    uint32_t loaded = 0xffffffffu;
    const uint16_t *longs = nullptr;
    hs_counter_items(p.next, p.item_base[p.n], [&](uint64_t it64) {
        const uint32_t it = (uint32_t)it64;
        const uint32_t c = item_chunk(p.item_base, p.n, it), j = it - p.item_base[c];
        const DMeta &M = p.meta[c];
        const uint32_t mode = M.mode;
        uint8_t *out = p.dst + (uint64_t)c * p.raw_full;
        if (mode == 0) {
            const uint64_t raw = (uint64_t)chunk_count(c, p.n, p.count_full, p.count_last) * ES;
            const uint64_t o = (uint64_t)j * PIECE, len = raw - o < PIECE ? raw - o : PIECE;
            copy_bytes<NTD>(out + o, M.pay + HDR + o, len, threadIdx.x);
            return;
        }
        if (c != loaded) { /* block-uniform */
            __syncthreads();
            const uint4 *t = reinterpret_cast<const uint4 *>(p.tables + (size_t)c * TABLE);
            for (uint32_t i = threadIdx.x; i < TABLE / 4; i += NTD) reinterpret_cast<uint4 *>(sm.table)[i] = t[i];
            if (threadIdx.x < LMAX + 2) longtab_set(sm.L, M.S, threadIdx.x);
            longs = hs_stage_longs(M.S, p.longs + (size_t)c * p.long_cap, sm.longs, NTD);
            __syncthreads();
            loaded = c;
        }
        const uint32_t g = j * HW + warp;
        if (g >= M.S.n_segs) return;
        const Stream &S = M.S;
        bool ok;
        if (ES == 1)
            ok = hs_decode_segment<uint8_t, false>(S, g, sm.table, sm.L, longs, sm.stage[warp], out, 0, nullptr);
        else if (ES == 2)
            ok = hs_decode_segment<uint16_t, false>(S, g, sm.table, sm.L, longs, sm.stage[warp],
                                                    reinterpret_cast<uint16_t *>(out), 0, nullptr);
        else
            ok = hs_decode_segment<uint16_t, true>(S, g, sm.table, sm.L, longs, sm.stage[warp],
                                                   p.sym16 + (size_t)c * p.count_full,
                                                   M.nesc ? DICT_MAX : 0xffffffffu,
                                                   p.segesc + (size_t)c * p.segs_cap + g);
        if (!ok && (threadIdx.x & 31) == 0) scz_cuda_report(p.err, p.c0 + c, HUF_ERR_BITS);
    });
}

/* u32: escape ranks per segment (exclusive scan, in place) and their total
 * against the chunk's escape count. */
__global__ void __launch_bounds__(NT) k_desc(DParams p) {
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint32_t c = blockIdx.x;
    DMeta *M = p.meta + c;
    if (M->mode != 1 || M->nesc == 0) return;
    const uint32_t ns = M->S.n_segs;
    uint32_t *e = p.segesc + (size_t)c * p.segs_cap;
    uint64_t carry = 0;
    for (uint32_t g0 = 0; g0 < ns; g0 += NT) {
        const uint32_t g = g0 + threadIdx.x;
        const uint32_t x = g < ns ? e[g] : 0;
        uint32_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (g < ns) e[g] = (uint32_t)(carry + ex);
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0 && carry != M->nesc) {
        scz_cuda_report(p.err, p.c0 + c, HUF_ERR_ESC);
        M->mode = 2;
    }
}

/* u32: symbols -> values (dictionary), escapes spliced in element order
 * (k_decode's items: blocks of NTD threads). */
__global__ void __launch_bounds__(NTD) k_dmap(DParams p) {
    const uint32_t total = p.item_base[p.n];
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (uint32_t it = blockIdx.x; it < total; it += gridDim.x) {
        const uint32_t c = item_chunk(p.item_base, p.n, it), j = it - p.item_base[c];
        const DMeta &M = p.meta[c];
        if (M.mode != 1) continue;
        const uint32_t g = j * HW + warp;
        if (g >= M.S.n_segs) continue;
        const uint8_t *end = M.pay + M.size;
        const uint32_t sa = ld32u(M.S.segf + 4 * (uint64_t)g, M.S.end);
        const uint32_t sb = g + 1 < M.S.n_segs ? ld32u(M.S.segf + 4 * (uint64_t)(g + 1), M.S.end) : M.S.count;
        if (sa > sb || sb > M.S.count) continue; /* reported by k_decode */
        const uint16_t *sym = p.sym16 + (size_t)c * p.count_full;
        uint32_t *out = reinterpret_cast<uint32_t *>(p.dst + (uint64_t)c * p.raw_full);
        const uint32_t m = M.m, nesc = M.nesc;
        uint32_t rank = nesc ? p.segesc[(size_t)c * p.segs_cap + g] : 0;
        for (uint32_t i0 = sa; i0 < sb; i0 += 32) {
            const uint32_t i = i0 + lane;
            const uint32_t s = i < sb ? sym[i] : 0;
            const bool esc = nesc && i < sb && s == DICT_MAX;
            const unsigned em = __ballot_sync(FULL, esc);
            if (i < sb) {
                uint32_t v = 0;
                if (esc) {
                    const uint32_t r = rank + __popc(em & ((1u << lane) - 1));
                    if (r < nesc) v = ld32u(M.esc + 4 * (uint64_t)r, end);
                } else if (s < m) {
                    v = ld32u(M.dict + 4 * (uint64_t)s, end);
                }
                out[i] = v;
            }
            rank += __popc(em);
        }
    }
}


DParams dparams(const scz_cuda_batch *b, void *scratch, const DLayout &L) {
    DParams p;
    memset(&p, 0, sizeof p);
    uint8_t *s = static_cast<uint8_t *>(scratch);
    p.meta = reinterpret_cast<DMeta *>(s + L.meta);
    p.item_base = reinterpret_cast<uint32_t *>(s + L.items);
    p.tables = reinterpret_cast<uint32_t *>(s + L.tables);
    p.longs = reinterpret_cast<uint16_t *>(s + L.longs);
    p.sym16 = reinterpret_cast<uint16_t *>(s + L.sym16);
    p.segesc = reinterpret_cast<uint32_t *>(s + L.segesc);
    p.next = reinterpret_cast<unsigned long long *>(s + L.next);
    p.count_full = b->full.count;
    p.count_last = b->last.count;
    p.raw_full = b->raw_full;
    p.n = b->n;
    p.c0 = b->c0;
    p.es = b->full.esize;
    p.long_cap = L.long_cap;
    p.segs_cap = L.segs_cap;
    return p;
}

/* ================================================================== */
/* Encoding                                                            */
/* ================================================================== */

struct EMeta {
    uint64_t count, total_bits, size, off;
    uint32_t K, dm, nesc, used, mode, cb_bytes, n_units, n_segs, n_words, d;
    /* payload regions (offsets in the payload) */
    uint64_t r_hs, r_cb, r_gap, r_seg, r_words, r_esc;
};

struct EParams {
    const uint8_t *src; /* the group's first raw chunk */
    uint64_t *choff, *chsize, *chinfo;
    uint8_t *pay;
    EMeta *meta;
    uint32_t *hist;          /* ng x Kcap */
    uint64_t *keysA, *keysB; /* ng x Kc */
    int *segb, *sege;        /* ng */
    uint32_t *parent;        /* ng x Kc */
    uint8_t *nlf;            /* ng x Kc */
    uint8_t *len;            /* ng x Kcap */
    uint32_t *entry;         /* ng x Kcap */
    uint8_t *cb;             /* ng x Kcap */
    uint32_t *runs;          /* ng x Kcap */
    uint64_t *tbits;         /* ng x tiles: bit offsets (k_etscan), or look-back states (k_eenc<true>) */
    uint32_t *tesc;          /* ng x tiles */
    uint32_t *ticket;        /* k_eenc<true>: the tiles' ticket counter, then the tickets a set's write uses */
    const uint32_t *tlim;    /* a set's write: &ticket[1] (no ticket at or above it is a tile), else NULL */
    uint8_t *gapb;           /* ng x units_cap */
    uint32_t *segf;          /* ng x segs_cap */
    /* u32 */
    uint64_t *ekeys, *ekeys2, *uniq, *topk, *topk2;
    uint32_t *cnts, *run0, *dictA, *dict, *escbuf, *nescc;
    int *nruns, *sb1, *se1, *sb2, *se2;
    uint16_t *sym16;
    uint64_t count_full, count_last, raw_full, units_cap, segs_cap;
    uint32_t ng, gc0, es, Kcap, Kc, tiles;
    uint64_t dynbytes; /* k_ebook's dynamic shared memory */
    /* stream sets (scz__hse_*, huffman_enc_cuda.h): bare Huffman streams
     * (no codec header, never stored) of K symbols, counts per stream */
    const uint32_t *cnt; /* per-stream counts, NULL: count_full / count_last */
    const uint64_t *woff; /* where each stream goes in pay, ~0: not written */
    uint32_t hist_ready;  /* the histogram was counted by the set's producer */
    const uint32_t *Kv;   /* stream sets: each stream's alphabet (device), or NULL (K) */
    const uint64_t *soff; /* stream sets: each stream's first symbol (device), or NULL (cl * stride) */
    uint32_t hdr, K;     /* codec header bytes (16, 0 for bare streams); K (0: the codec's) */
    uint32_t Kb;         /* stream sets: every stream's alphabet is at most Kb (with Kv: picks the paths) */
    uint32_t bsort;      /* stream sets: each stream's used symbols sorted by its block (k_esort), any alphabet */
};

struct ELayout {
    uint32_t GC, Kcap, Kc, tiles, es;
    uint64_t count_full, units_cap, segs_cap;
    size_t cub_bytes, state, work, total;
};

/* The work area of a group's writing (pointers when base != NULL): gap
 * nibbles and segment entries (the bitstream words go straight into the
 * payloads); apart from the rest, so that stream sets written one after the
 * other share it. */
size_t elayout_work(const ELayout &L, uint8_t *base, EParams *p) {
    Bump W{base, 0};
    const size_t g = L.GC;
    p->gapb = W.take<uint8_t>(g * L.units_cap);
    p->segf = W.take<uint32_t>(g * L.segs_cap);
    return W.o;
}

/* Scratch layout of a group of GC chunks (pointers when base != NULL),
 * without the work area. */
size_t elayout_take(const ELayout &L, uint8_t *base, EParams *p, void **cubtmp) {
    Bump B{base, 0};
    const size_t g = L.GC, N = (size_t)L.GC * L.count_full;
    const bool u32 = L.es == 4;
    p->meta = B.take<EMeta>(g);
    p->hist = B.take<uint32_t>(g * L.Kcap);
    p->keysA = B.take<uint64_t>(g * L.Kc);
    p->keysB = B.take<uint64_t>(g * L.Kc);
    p->segb = B.take<int>(g);
    p->sege = B.take<int>(g);
    p->parent = B.take<uint32_t>(g * L.Kc);
    p->nlf = B.take<uint8_t>(g * L.Kc);
    p->len = B.take<uint8_t>(g * L.Kcap);
    p->entry = B.take<uint32_t>(g * L.Kcap);
    p->cb = B.take<uint8_t>(g * L.Kcap);
    p->runs = B.take<uint32_t>(g * L.Kcap);
    p->tbits = B.take<uint64_t>(g * L.tiles);
    p->tesc = B.take<uint32_t>(g * L.tiles);
    p->ticket = B.take<uint32_t>(2);
    p->ekeys = B.take<uint64_t>(u32 ? N : 0);
    p->ekeys2 = B.take<uint64_t>(u32 ? N : 0);
    p->uniq = B.take<uint64_t>(u32 ? N : 0);
    p->topk = B.take<uint64_t>(u32 ? N : 0);
    p->topk2 = B.take<uint64_t>(u32 ? N : 0);
    p->cnts = B.take<uint32_t>(u32 ? N : 0);
    p->run0 = B.take<uint32_t>(u32 ? g + 1 : 0);
    p->dictA = B.take<uint32_t>(u32 ? g * 65536 : 0);
    p->dict = B.take<uint32_t>(u32 ? g * 65536 : 0);
    p->escbuf = B.take<uint32_t>(u32 ? N : 0);
    p->nescc = B.take<uint32_t>(u32 ? g : 0);
    p->nruns = B.take<int>(u32 ? 1 : 0);
    p->sb1 = B.take<int>(u32 ? g : 0);
    p->se1 = B.take<int>(u32 ? g : 0);
    p->sb2 = B.take<int>(u32 ? g : 0);
    p->se2 = B.take<int>(u32 ? g : 0);
    p->sym16 = B.take<uint16_t>(u32 ? N : 0);
    *cubtmp = B.take<uint8_t>(L.cub_bytes);
    return B.o;
}

/* CUB temporary storage of the sorts and scans of a group. */
size_t cub_bytes(const ELayout &L) {
    size_t need = 0, x = 0;
    const int ng = (int)L.GC;
    cub::DeviceSegmentedRadixSort::SortKeys(nullptr, x, (const uint64_t *)nullptr, (uint64_t *)nullptr,
                                            (int)(L.GC * L.Kc), ng, (const int *)nullptr, (const int *)nullptr, 0,
                                            48);
    need = x > need ? x : need;
    if (L.es == 4) {
        const int N = (int)(L.GC * L.count_full);
        x = 0;
        cub::DeviceRadixSort::SortKeys(nullptr, x, (const uint64_t *)nullptr, (uint64_t *)nullptr, N, 0, 64);
        need = x > need ? x : need;
        x = 0;
        cub::DeviceRunLengthEncode::Encode(nullptr, x, (const uint64_t *)nullptr, (uint64_t *)nullptr,
                                           (uint32_t *)nullptr, (int *)nullptr, N);
        need = x > need ? x : need;
        x = 0;
        cub::DeviceSegmentedRadixSort::SortKeys(nullptr, x, (const uint64_t *)nullptr, (uint64_t *)nullptr, N, ng,
                                                (const int *)nullptr, (const int *)nullptr, 0, 64);
        need = x > need ? x : need;
        x = 0;
        cub::DeviceSegmentedRadixSort::SortKeys(nullptr, x, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                                ng * 65536, ng, (const int *)nullptr, (const int *)nullptr, 0, 32);
        need = x > need ? x : need;
    }
    return need + 256;
}

/* Geometry of a group of streams of at most cf symbols of es bytes; the
 * group size L.GC is set by the caller, then elayout_sizes. */
ELayout elayout_geom(uint64_t cf, uint32_t es, uint32_t kmax = 65536) {
    ELayout L;
    L.es = es;
    L.count_full = cf;
    L.Kcap = es == 1 ? 256u : es == 2 && kmax ? kmax : 65536u; /* the per-stream tables' alphabet */
    L.Kc = (uint32_t)(cf < L.Kcap ? cf : L.Kcap);
    if (L.Kc < 1) L.Kc = 1;
    L.tiles = (uint32_t)((cf + ETILE - 1) / ETILE);
    L.units_cap = (cf * LMAX + U - 1) / U + 1;
    L.segs_cap = (L.units_cap + G - 1) / G + 1;
    L.GC = 1;
    return L;
}

void elayout_sizes(ELayout &L) {
    L.cub_bytes = cub_bytes(L);
    EParams tmp;
    void *ct;
    L.state = elayout_take(L, nullptr, &tmp, &ct);
    L.work = elayout_work(L, nullptr, &tmp);
    L.total = L.state + L.work;
}

ELayout elayout(const scz_cuda_batch *b) {
    const uint64_t cf = b->full.count;
    const uint32_t es = b->full.esize;
    ELayout L = elayout_geom(cf, es);
    /* group size: about 64 Mi symbols (4 Mi for u32) and 256 MiB of
     * per-chunk tables, at least one chunk */
    const uint64_t elems = es == 4 ? (4ull << 20) : (64ull << 20);
    const uint64_t fixed = (uint64_t)L.Kcap * 14 + (uint64_t)L.Kc * 21 + (es == 4 ? 8 * 65536 : 0) + 1024;
    uint64_t gc = elems / (cf ? cf : 1);
    const uint64_t gc2 = (256ull << 20) / fixed;
    if (gc > gc2) gc = gc2;
    if (gc > 65535) gc = 65535;
    if (gc > b->n) gc = b->n;
    if (gc < 1) gc = 1;
    L.GC = (uint32_t)gc;
    elayout_sizes(L);
    return L;
}

__device__ __forceinline__ uint64_t ecount(const EParams &p, uint32_t cl) {
    return p.cnt ? p.cnt[cl] : chunk_count(cl, p.ng, p.count_full, p.count_last);
}

__device__ __forceinline__ uint32_t esym(const EParams &p, uint32_t cl, uint64_t i) {
    if (p.es == 1) return p.src[(uint64_t)cl * p.raw_full + i];
    if (p.es == 2) {
        if (p.soff) return reinterpret_cast<const uint16_t *>(p.src)[p.soff[cl] + i];
        return reinterpret_cast<const uint16_t *>(p.src + (uint64_t)cl * p.raw_full)[i];
    }
    return p.sym16[(uint64_t)cl * p.count_full + i];
}

/* ---- u32 dictionary ---- */

__global__ void k_udkeys(EParams p, uint64_t N) {
    const uint64_t i = (uint64_t)blockIdx.x * NT + threadIdx.x;
    if (i >= N) return;
    const uint64_t cl = i / p.count_full;
    p.ekeys[i] = cl << 32 | reinterpret_cast<const uint32_t *>(p.src)[i];
}

__global__ void k_udrun0(EParams p, uint64_t N) {
    const uint64_t r = (uint64_t)blockIdx.x * NT + threadIdx.x;
    const uint64_t R = (uint64_t)*p.nruns;
    if (r == 0) p.run0[p.ng] = (uint32_t)R;
    if (r >= R) return;
    const uint32_t cl = (uint32_t)(p.uniq[r] >> 32);
    if (r == 0 || (uint32_t)(p.uniq[r - 1] >> 32) != cl) p.run0[cl] = (uint32_t)r;
}

/* Per chunk: all distinct values, or the keys to choose 65535 of them. */
__global__ void __launch_bounds__(NT) k_udsel(EParams p) {
    const uint32_t cl = blockIdx.x;
    const uint32_t r0 = p.run0[cl], r1 = p.run0[cl + 1], d = r1 - r0;
    if (d <= SCZ_HUFF_MAX_K) {
        for (uint32_t k = threadIdx.x; k < d; k += NT) p.dict[(size_t)cl * 65536 + k] = (uint32_t)p.uniq[r0 + k];
        if (threadIdx.x == 0) p.sb1[cl] = p.se1[cl] = (int)r0;
    } else {
        for (uint32_t r = r0 + threadIdx.x; r < r1; r += NT)
            p.topk[r] = (uint64_t)(~p.cnts[r]) << 32 | (uint32_t)p.uniq[r];
        if (threadIdx.x == 0) {
            p.sb1[cl] = (int)r0;
            p.se1[cl] = (int)r1;
        }
    }
    if (threadIdx.x == 0) {
        p.meta[cl].d = d;
        p.meta[cl].dm = d <= SCZ_HUFF_MAX_K ? d : DICT_MAX;
        p.meta[cl].K = d <= SCZ_HUFF_MAX_K ? d : SCZ_HUFF_MAX_K;
        p.nescc[cl] = 0;
    }
}

/* Chunks with more than 65536 values: the 65535 most frequent (count desc,
 * value asc), to be sorted by value. */
__global__ void __launch_bounds__(NT) k_udtop(EParams p) {
    const uint32_t cl = blockIdx.x;
    const uint32_t r0 = p.run0[cl], d = p.run0[cl + 1] - r0;
    const int base = (int)(cl * 65536u);
    if (d > SCZ_HUFF_MAX_K) {
        for (uint32_t k = threadIdx.x; k < DICT_MAX; k += NT) p.dictA[(size_t)base + k] = (uint32_t)p.topk2[r0 + k];
        if (threadIdx.x == 0) {
            p.sb2[cl] = base;
            p.se2[cl] = base + (int)DICT_MAX;
        }
    } else if (threadIdx.x == 0) {
        p.sb2[cl] = p.se2[cl] = base;
    }
}

/* Symbols: rank in the dictionary, or the escape; escapes counted. */
__global__ void k_udsym(EParams p, uint64_t N) {
    const uint64_t i = (uint64_t)blockIdx.x * NT + threadIdx.x;
    const bool valid = i < N;
    const uint32_t cl = valid ? (uint32_t)(i / p.count_full) : 0;
    bool esc = false;
    if (valid) {
        const uint32_t v = reinterpret_cast<const uint32_t *>(p.src)[i];
        const uint32_t m = p.meta[cl].dm;
        const uint32_t *d = p.dict + (size_t)cl * 65536;
        uint32_t lo = 0, hi = m;
        while (lo < hi) {
            const uint32_t mid = (lo + hi) / 2;
            if (d[mid] < v) lo = mid + 1;
            else hi = mid;
        }
        esc = !(lo < m && d[lo] == v);
        p.sym16[i] = (uint16_t)(esc ? DICT_MAX : lo);
    }
    const unsigned em = __ballot_sync(FULL, esc);
    if (esc) {
        const unsigned peers = __match_any_sync(em, cl);
        if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) atomicAdd(&p.nescc[cl], (uint32_t)__popc(peers));
    }
}

/* ---- histogram, codebook ---- */

__global__ void __launch_bounds__(NT) k_ehist(EParams p) {
    __shared__ uint32_t h[256];
    const uint32_t cl = blockIdx.y;
    const uint64_t n = ecount(p, cl);
    const uint64_t i0 = (uint64_t)blockIdx.x * ETILE;
    if (i0 >= n) return;
    const uint64_t i1 = i0 + ETILE < n ? i0 + ETILE : n;
    uint32_t *H = p.hist + (size_t)cl * p.Kcap;
    if (p.Kcap == 256) {
        h[threadIdx.x] = 0;
        __syncthreads();
        for (uint64_t i = i0 + threadIdx.x; i < i1; i += NT) atomicAdd(&h[esym(p, cl, i)], 1u);
        __syncthreads();
        if (h[threadIdx.x]) atomicAdd(&H[threadIdx.x], h[threadIdx.x]);
    } else {
        for (uint64_t b = i0; b < i1; b += NT) { /* whole warps: match_any */
            const uint64_t i = b + threadIdx.x;
            const uint32_t s = i < i1 ? esym(p, cl, i) : 0xffffffffu;
            const unsigned peers = __match_any_sync(FULL, s);
            if (s != 0xffffffffu && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1))
                atomicAdd(&H[s], (uint32_t)__popc(peers));
        }
    }
}

/* Histogram of 65536 symbols in shared memory: two 16-bit counters per
 * word (a block counts at most HTILE16 < 65536 symbols, so a counter never
 * carries into its neighbour), eight loads in flight per thread, the
 * symbols of a warp merged (match_any) before the shared atomics; then the
 * non-zero counters are added to the chunk's histogram. Dynamic shared
 * memory: 128 KiB. */
constexpr uint32_t HUNROLL = 8;
constexpr uint32_t HTILE16 = 31 * HUNROLL * NT; /* 63488 symbols per block */
__global__ void __launch_bounds__(NT) k_ehist16(EParams p) {
    extern __shared__ uint32_t hw[];
    const uint32_t cl = blockIdx.y, tid = threadIdx.x, lane = tid & 31;
    const uint64_t n = ecount(p, cl);
    const uint64_t i0 = (uint64_t)blockIdx.x * HTILE16;
    if (i0 >= n) return;
    const uint64_t i1 = i0 + HTILE16 < n ? i0 + HTILE16 : n;
    for (uint32_t k = tid; k < 32768; k += NT) hw[k] = 0;
    __syncthreads();
    for (uint64_t b = i0; b < i1; b += HUNROLL * NT) {
        uint32_t sy[HUNROLL];
#pragma unroll
        for (uint32_t j = 0; j < HUNROLL; j++) {
            const uint64_t i = b + j * NT + tid;
            sy[j] = i < i1 ? esym(p, cl, i) : 0xffffffffu;
        }
#pragma unroll
        for (uint32_t j = 0; j < HUNROLL; j++) {
            const uint32_t s = sy[j];
            const unsigned peers = __match_any_sync(FULL, s);
            if (s != 0xffffffffu && lane == (unsigned)(__ffs(peers) - 1))
                atomicAdd(&hw[s >> 1], (uint32_t)__popc(peers) << (16 * (s & 1)));
        }
    }
    __syncthreads();
    uint32_t *H = p.hist + (size_t)cl * p.Kcap;
    for (uint32_t k = tid; k < 32768; k += NT) {
        const uint32_t w = hw[k];
        if (w & 0xffff) atomicAdd(&H[2 * k], w & 0xffff);
        if (w >> 16) atomicAdd(&H[2 * k + 1], w >> 16);
    }
}

/* Histogram of a small alphabet (a stream set's K <= KSMALL) in shared
 * memory: HTILEK symbols per block, a warp's equal symbols merged
 * (match_any) before the shared atomics. */
constexpr uint32_t KSMALL = 8192;
constexpr uint32_t HTILEK = 16384;
__global__ void __launch_bounds__(NT) k_ehistK(EParams p) {
    __shared__ uint32_t h[KSMALL];
    const uint32_t cl = blockIdx.y, tid = threadIdx.x, lane = tid & 31;
    const uint64_t n = ecount(p, cl);
    const uint64_t i0 = (uint64_t)blockIdx.x * HTILEK;
    if (i0 >= n) return;
    const uint64_t i1 = i0 + HTILEK < n ? i0 + HTILEK : n;
    const uint32_t K = p.K ? p.K : p.Kb; /* per-stream alphabets (Kv): their bound */
    for (uint32_t k = tid; k < K; k += NT) h[k] = 0;
    __syncthreads();
    for (uint64_t b = i0; b < i1; b += NT) { /* whole warps: match_any */
        const uint64_t i = b + tid;
        const uint32_t s = i < i1 ? esym(p, cl, i) : 0xffffffffu;
        const unsigned peers = __match_any_sync(FULL, s);
        if (s < K && lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&h[s], (uint32_t)__popc(peers));
    }
    __syncthreads();
    uint32_t *H = p.hist + (size_t)cl * p.Kcap;
    for (uint32_t k = tid; k < K; k += NT)
        if (h[k]) atomicAdd(&H[k], h[k]);
}

/* Histogram of bytes (u8 symbols, K = 256): HTILE8 bytes per block, 16 a
 * thread per load where the stream is 16-byte aligned, counted in a
 * histogram per warp in shared memory; a word of four equal bytes adds 4
 * at once (the skewed bytes of lossy bodies: most words are one byte
 * repeated, whose lanes would otherwise queue on one counter 4 times). */
constexpr uint32_t HTILE8 = 65536;
__global__ void __launch_bounds__(NT) k_ehist8(EParams p) {
    __shared__ uint32_t h[NT / 32][256];
    const uint32_t cl = blockIdx.y, tid = threadIdx.x;
    const uint64_t n = ecount(p, cl);
    const uint64_t i0 = (uint64_t)blockIdx.x * HTILE8;
    if (i0 >= n) return;
    const uint64_t i1 = i0 + HTILE8 < n ? i0 + HTILE8 : n;
    for (uint32_t k = tid; k < NT / 32 * 256; k += NT) (&h[0][0])[k] = 0;
    __syncthreads();
    uint32_t *hw = h[tid >> 5];
    const uint8_t *b = p.src + (uint64_t)cl * p.raw_full;
    uint64_t i = i0;
    if (((uintptr_t)(b + i0) & 15) == 0) {
        const uint64_t nv = (i1 - i0) / 16;
        const uint4 *v = reinterpret_cast<const uint4 *>(b + i0);
        for (uint64_t k = tid; k < nv; k += NT) {
            const uint4 q = __ldg(v + k);
            const uint32_t wd[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint32_t w = wd[j];
                if (((w ^ (w >> 8)) & 0xffffffu) == 0) {
                    atomicAdd(&hw[w & 255u], 4u);
                } else {
#pragma unroll
                    for (int s = 0; s < 32; s += 8) atomicAdd(&hw[(w >> s) & 255u], 1u);
                }
            }
        }
        i = i0 + nv * 16;
    }
    for (i += tid; i < i1; i += NT) atomicAdd(&hw[b[i]], 1u);
    __syncthreads();
    uint32_t *H = p.hist + (size_t)cl * p.Kcap;
    for (uint32_t k = tid; k < 256; k += NT) {
        uint32_t s = 0;
#pragma unroll
        for (uint32_t w = 0; w < NT / 32; w++) s += h[w][k];
        if (s) atomicAdd(&H[k], s);
    }
}

/* The used symbols' keys of a chunk sorted ascending in one block, for
 * alphabets of at most KSORT symbols and for sets marked few (any
 * alphabet; esort_big above KSORT used symbols); keys are unique: any sort
 * gives the cub segmented sort's order. Other large alphabets go to cub. */
constexpr uint32_t KSORT_IPT = 16;
constexpr uint32_t KSORT = NT * KSORT_IPT;
template <uint32_t IPT, typename Sort>
__device__ __forceinline__ void esort_keys(const EParams &p, int b, uint32_t m, typename Sort::TempStorage &ts,
                                           unsigned long long *orv) {
    uint64_t k[IPT], o = 0;
#pragma unroll
    for (uint32_t j = 0; j < IPT; j++) {
        const uint32_t i = threadIdx.x * IPT + j;
        k[j] = i < m ? p.keysA[b + i] : ~0ull; /* above every key (< 2^48) */
        if (i < m) o |= k[j];
    }
    atomicOr(orv, (unsigned long long)o);
    __syncthreads();
    /* the keys' significant bits only (they are unique: any bit range that
     * holds them all gives the same order); a filler has every bit of the
     * range set, and where a key has too, the sort's stability keeps the
     * key (first in the input) before it */
    const int end = 64 - __clzll((long long)(*orv | 1));
    Sort(ts).Sort(k, 0, end);
#pragma unroll
    for (uint32_t j = 0; j < IPT; j++) {
        const uint32_t i = threadIdx.x * IPT + j;
        if (i < m) p.keysB[b + i] = k[j];
    }
}

/* More than KSORT used symbols (a set sorted in its blocks, p.bsort):
 * tiles of KSORT keys sorted by the block, then merged pairwise in global
 * memory: a key's place in the merged pair is its index in its own run
 * plus the other run's keys below it (keys are unique: no ties). keysA
 * stays as it is (k_ebook reads the keys by symbol there); the merges go
 * between keysB and a key split over the stream's parent (high words) and
 * runs (low words) arrays, which k_ebook fills only later; the tiles go
 * where the last merge ends in keysB. */
template <typename Sort>
__device__ void esort_big(const EParams &p, uint32_t cl, int b, uint32_t m, typename Sort::TempStorage &ts,
                          unsigned long long *orv) {
    const uint64_t *X = p.keysA + b;
    uint64_t *Y = p.keysB + b;
    uint32_t *PH = p.parent + (size_t)cl * p.Kc, *PL = p.runs + (size_t)cl * p.Kcap;
    auto ld = [&](bool y, uint32_t i) -> uint64_t { return y ? Y[i] : (uint64_t)PH[i] << 32 | PL[i]; };
    auto st = [&](bool y, uint32_t i, uint64_t v) {
        if (y) Y[i] = v;
        else PH[i] = (uint32_t)(v >> 32), PL[i] = (uint32_t)v;
    };
    const uint32_t tw = p.bsort == 2 ? 64u : KSORT; /* keys a tile (64: SCZ_HSE_BIGSORT=1, the tests' merges) */
    const uint32_t nt = (m + tw - 1) / tw;
    uint32_t passes = 0;
    for (uint32_t w = 1; w < nt; w <<= 1) passes++;
    uint64_t o = 0;
    for (uint32_t i = threadIdx.x; i < m; i += NT) o |= X[i];
    atomicOr(orv, (unsigned long long)o);
    __syncthreads();
    const int end = 64 - __clzll((long long)(*orv | 1));
    bool sy = (passes & 1) == 0; /* the sorted tiles in keysB (else the split pair) */
    for (uint32_t t = 0; t < nt; t++) {
        uint64_t k[KSORT_IPT];
#pragma unroll
        for (uint32_t j = 0; j < KSORT_IPT; j++) {
            const uint32_t l = threadIdx.x * KSORT_IPT + j, i = t * tw + l;
            k[j] = l < tw && i < m ? X[i] : ~0ull;
        }
        Sort(ts).Sort(k, 0, end);
#pragma unroll
        for (uint32_t j = 0; j < KSORT_IPT; j++) {
            const uint32_t l = threadIdx.x * KSORT_IPT + j, i = t * tw + l;
            if (l < tw && i < m) st(sy, i, k[j]); /* the tile's keys sort before its fillers */
        }
        __syncthreads(); /* ts again */
    }
    for (uint32_t w = tw; w < m; w *= 2) {
        for (uint32_t i = threadIdx.x; i < m; i += NT) {
            const uint64_t x = ld(sy, i);
            const uint32_t r0 = i / w * w, left = (i / w & 1) == 0;
            const uint32_t ob = left ? r0 + w : r0 - w, oe = left ? (r0 + 2 * w < m ? r0 + 2 * w : m) : r0;
            const uint32_t base = ob < m ? ob : m;
            uint32_t lo = base, hi = ob < m ? oe : m; /* the other run's keys below x */
            while (lo < hi) {
                const uint32_t mid = (lo + hi) >> 1;
                if (ld(sy, mid) < x) lo = mid + 1;
                else hi = mid;
            }
            st(!sy, (left ? r0 : r0 - w) + (i - r0) + (lo - base), x);
        }
        __syncthreads();
        sy = !sy;
    }
}

__global__ void __launch_bounds__(NT) k_esort(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    /* most alphabets in use are small (lossy REL 1e-3: ~1000 symbols):
     * 4 keys per thread then, a quarter of the work of 16 */
    typedef cub::BlockRadixSort<uint64_t, NT, KSORT_IPT> Sort;
    typedef cub::BlockRadixSort<uint64_t, NT, 4> Sort4;
    __shared__ union {
        typename Sort::TempStorage a;
        typename Sort4::TempStorage b;
    } ts;
    __shared__ unsigned long long orv;
    const uint32_t cl = blockIdx.x;
    const int b = p.segb[cl], e = p.sege[cl];
    const uint32_t m = (uint32_t)(e - b);
    if (m == 0) return; /* block-uniform */
    if (threadIdx.x == 0) orv = 0;
    __syncthreads();
    if (p.bsort == 2) esort_big<Sort>(p, cl, b, m, ts.a, &orv); /* SCZ_HSE_BIGSORT=1 */
    else if (m <= NT * 4) esort_keys<4, Sort4>(p, b, m, ts.b, &orv);
    else if (m <= KSORT) esort_keys<KSORT_IPT, Sort>(p, b, m, ts.a, &orv);
    else esort_big<Sort>(p, cl, b, m, ts.a, &orv); /* p.bsort only */
}

/* Used symbols of stream cl as sortable keys (count << 16 | symbol) in
 * symbol order, compacted into keys; returns how many. Every thread of the
 * block calls it (block scans in ts). */
__device__ uint32_t eleaves_block(const EParams &p, uint32_t cl, uint64_t *keys,
                                  typename cub::BlockScan<uint32_t, NT>::TempStorage &ts) {
    constexpr uint32_t LI = 16;
    typedef cub::BlockScan<uint32_t, NT> Scan;
    const uint32_t *H = p.hist + (size_t)cl * p.Kcap;
    uint32_t carry = 0;
    /* symbols >= K (a set's stream: Kv) never occur */
    const uint32_t Ks = p.K ? p.K : p.Kv ? p.Kv[cl] : p.Kcap;
    for (uint32_t s0 = 0; s0 < Ks; s0 += NT * LI) {
        uint32_t c[LI], f[LI], o[LI];
#pragma unroll
        for (uint32_t j = 0; j < LI; j++) {
            const uint32_t s = s0 + threadIdx.x * LI + j;
            c[j] = s < Ks ? H[s] : 0;
            f[j] = c[j] ? 1u : 0u;
        }
        uint32_t tot;
        Scan(ts).ExclusiveSum(f, o, tot);
#pragma unroll
        for (uint32_t j = 0; j < LI; j++)
            if (c[j]) keys[carry + o[j]] = (uint64_t)c[j] << 16 | (s0 + threadIdx.x * LI + j);
        carry += tot;
        __syncthreads();
    }
    return carry;
}

/* Used symbols as sortable keys (count << 16 | symbol), compacted. */
__global__ void __launch_bounds__(NT) k_eleaves(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ typename cub::BlockScan<uint32_t, NT>::TempStorage ts;
    const uint32_t cl = blockIdx.x;
    if (ecount(p, cl) == 0) {
        if (threadIdx.x == 0) {
            p.meta[cl].used = 0;
            p.segb[cl] = p.sege[cl] = (int)((size_t)cl * p.Kc);
        }
        return;
    }
    const uint32_t carry = eleaves_block(p, cl, p.keysA + (size_t)cl * p.Kc, ts);
    if (threadIdx.x == 0) {
        p.meta[cl].used = carry;
        p.segb[cl] = (int)((size_t)cl * p.Kc);
        p.sege[cl] = (int)((size_t)cl * p.Kc + carry);
    }
}

__device__ __forceinline__ unsigned varint_len(uint32_t v) {
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* One block per chunk: code lengths (8.2), canonical codes, codebook
 * bytes (8.3), sizes. The two-queue construction by rounds
 * (huff_rounds.h) over the leaf counts, parents, internal counts, a
 * round's order and the leaf-children counts (17 bytes a used symbol): in
 * dynamic shared memory where they fit, else in the stream's global
 * arrays (parents and leaf children in parent / nlf, internal counts in
 * entry, leaf counts and the order in keysA, which is compacted again from
 * the histogram afterwards: entry and keysA are not read before that).
 * One thread merging the queues took a dependent global load a step: at
 * REL 1e-6 (alphabets of ~65536 symbols, H100) 9-19 ms a plan. */
__global__ void __launch_bounds__(NT) k_ebook(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> Scan;
    typedef cub::BlockReduce<uint64_t, NT> Red;
    __shared__ union {
        typename Scan::TempStorage scan;
        typename Red::TempStorage red;
    } ts;
    __shared__ uint32_t Bl[130], cum[LMAX + 2], nxt[LMAX + 2], wcnt[DW][LMAX + 2], carry_l[LMAX + 2];
    __shared__ uint64_t total_bits;
    constexpr uint32_t LEVMAX = 128; /* depths: counts < 2^32 bound them by ~46 */
    __shared__ uint32_t lev[LEVMAX], nint, nlev;
    __shared__ scz_hr_state hst;
    extern __shared__ uint32_t dyn[];
    const uint32_t cl = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    EMeta *M = p.meta + cl;
    /* the tiles' look-back states and the ticket counter of e_write's
     * k_eenc<true> (one writing follows each planning) */
    for (uint32_t t = tid; t < p.tiles; t += NT) p.tbits[(size_t)cl * p.tiles + t] = 0;
    if (cl == 0 && tid == 0) p.ticket[0] = p.ticket[1] = 0;
    const uint32_t m = M->used;
    const uint64_t n = ecount(p, cl);
    const uint32_t K = p.K ? p.K : p.Kv ? p.Kv[cl] : p.es == 1 ? 256u : p.es == 2 ? 65536u : M->K;
    const uint64_t *keys = p.keysB + (size_t)cl * p.Kc; /* by (count, symbol) */
    const uint64_t *ukeys = p.keysA + (size_t)cl * p.Kc; /* by symbol (the sort's input, unchanged) */
    uint8_t *len = p.len + (size_t)cl * p.Kcap;          /* only used symbols are ever read */
    /* The construction by rounds in shared memory where its arrays fit
     * (17 bytes a leaf), else in global memory; the depths in the block. */
    const bool fast = m >= 2 && 17ull * m + 64 <= p.dynbytes;
    uint32_t *leafc, *parent, *inner, *ord;
    uint8_t *nl;
    if (fast) { /* the leaf counts, parents, internal counts, round order, leaf children */
        leafc = dyn;
        parent = dyn + m;
        inner = dyn + 2 * (size_t)m;
        ord = dyn + 3 * (size_t)m;
        nl = reinterpret_cast<uint8_t *>(dyn + 4 * (size_t)m);
    } else {
        leafc = reinterpret_cast<uint32_t *>(p.keysA + (size_t)cl * p.Kc); /* m words, then ord's m */
        ord = leafc + m;
        inner = p.entry + (size_t)cl * p.Kcap;
        parent = p.parent + (size_t)cl * p.Kc;
        nl = p.nlf + (size_t)cl * p.Kc;
    }
    if (m >= 2) { /* block-uniform; keys (keysB) and leafc never overlap */
        for (uint32_t i = tid; i < m; i += NT) leafc[i] = (uint32_t)(keys[i] >> 16);
        __syncthreads();
    }
    if (tid == 0) {
        for (int l = 0; l < 130; l++) Bl[l] = 0;
        if (m == 1) Bl[1] = 1;
    }
    if (m >= 2) { /* block-uniform: the whole block, round by round (huff_rounds.h) */
        const uint32_t kn = scz_huff_rounds(leafc, m, inner, parent, nl, ord, &hst, tid, NT);
        if (tid == 0) nint = kn;
        if (!fast) { /* the used symbols by symbol again (ukeys, read below) */
            __syncthreads();
            (void)eleaves_block(p, cl, p.keysA + (size_t)cl * p.Kc, ts.scan);
        }
    }
    __syncthreads();
    /* Depths: internal nodes are consumed in creation order, so parent[] is
     * non-decreasing and the depth non-increasing along the node index: the
     * nodes of depth d are the range [lev[d], lev[d - 1]), lev[0] = the
     * root's index, lev[d + 1] = the first node whose parent is >= lev[d]
     * (a block-wide search a level, scz_hr_block_bound); leaves are one deeper than their
     * parent. */
    if (m >= 2) { /* block-uniform */
        uint32_t cur = nint - 1, dl = 0; /* the same in every thread */
        if (tid == 0) lev[0] = cur;
        while (cur > 0 && dl + 1 < LEVMAX) {
            cur = scz_hr_block_bound(parent, 0, 0, cur, cur, 0, tid, NT);
            dl++;
            if (tid == 0) lev[dl] = cur;
        }
        if (tid == 0) nlev = dl + 1;
        __syncthreads();
        /* leaves per depth: a thread's nodes are consecutive, their depths
         * a few runs (one shared atomic per run) */
        const uint32_t kn = nint, L = nlev, per = (kn + NT - 1) / NT;
        const uint32_t x0 = tid * per, x1 = x0 + per < kn ? x0 + per : kn;
        uint32_t d = 0, acc = 0;
        if (x0 < x1)
            while (d + 1 < L && lev[d] > x0) d++; /* the depth of x0: the first d with lev[d] <= x0 */
        for (uint32_t x = x0; x < x1; x++) {
            uint32_t e = d;
            while (e > 0 && x >= lev[e - 1]) e--;
            if (e != d) {
                if (acc) atomicAdd(&Bl[d + 1], acc);
                acc = 0;
                d = e;
            }
            acc += nl[x];
        }
        if (x0 < x1 && acc) atomicAdd(&Bl[d + 1], acc);
        __syncthreads();
    }
    if (warp == 0 && m >= 2) {
        /* length limit (8.2, JPEG Annex K.3), as the CPU: huff_limit.h's
         * batched moves, O(depth) steps a level instead of one a pair
         * (a move was a few dependent shuffles and ballots of this warp:
         * up to ~100k cycles a chunk at wmag REL 1e-3, H200); warp 0
         * finds the deepest level */
        const uint32_t b0 = Bl[lane], b1 = Bl[lane + 32];
        const unsigned m4 = __ballot_sync(FULL, lane < 2 && Bl[lane + 128]),
                       m3 = __ballot_sync(FULL, Bl[lane + 96] != 0), m2 = __ballot_sync(FULL, Bl[lane + 64] != 0),
                       m1 = __ballot_sync(FULL, b1 != 0), m0 = __ballot_sync(FULL, b0 != 0);
        const unsigned maxd = m4 ? 159 - __clz(m4) : m3 ? 127 - __clz(m3) : m2 ? 95 - __clz(m2)
                            : m1 ? 63 - __clz(m1) : m0 ? 31 - __clz(m0) : 0;
        if (lane == 0) (void)scz_huff_limit(Bl, maxd, LMAX);
        __syncwarp();
    }
    if (tid == 0) {
        cum[0] = 0;
        for (unsigned l = 1; l <= LMAX; l++) cum[l] = cum[l - 1] + Bl[l];
        uint32_t code = 0;
        nxt[0] = 0;
        for (unsigned l = 1; l <= LMAX; l++) {
            code = (code + (l > 1 ? Bl[l - 1] : 0)) << 1;
            nxt[l] = code;
        }
    }
    __syncthreads();
    /* lengths to symbols by (count desc, symbol asc): in the ascending
     * order, a group of equal counts [gs, ge) takes positions from m - ge.
     * Three passes over the keys, NT consecutive ones at a time (coalesced,
     * the loads of a pass independent): gs of each key by a max-scan of
     * the groups' starts (into entry, not written before the codes below),
     * each group's end at its start (into runs, not written before the
     * codebook below), then the positions. (One thread's consecutive keys,
     * or two searches a key, were chains of dependent loads: most of this
     * block's time with 65536 used symbols in global memory.) */
    uint64_t bits = 0;
    if (m >= 1) { /* block-uniform */
        uint32_t *gsa = p.entry + (size_t)cl * p.Kcap, *gea = p.runs + (size_t)cl * p.Kcap;
        uint32_t carry = 0;
        for (uint32_t j0 = 0; j0 < m; j0 += NT) {
            const uint32_t i = j0 + tid;
            const bool st = i < m && (i == 0 || (keys[i] >> 16) != (keys[i - 1] >> 16));
            uint32_t x, agg;
            Scan(ts.scan).InclusiveScan(st ? i : 0u, x, scz_ku::MaxOp(), agg);
            if (i < m) gsa[i] = x > carry ? x : carry;
            carry = agg > carry ? agg : carry;
            __syncthreads(); /* ts again */
        }
        for (uint32_t i = tid; i < m; i += NT) /* the last key of its group */
            if (i + 1 == m || (keys[i + 1] >> 16) != (keys[i] >> 16)) gea[gsa[i]] = i + 1;
        __syncthreads();
        for (uint32_t i = tid; i < m; i += NT) {
            const uint64_t key = keys[i], c = key >> 16;
            const uint32_t gs = gsa[i], ge = gea[gs], pos = (m - ge) + (i - gs);
            unsigned lo = 1, hi = LMAX; /* the least l with cum[l] > pos, at most LMAX */
            while (lo < hi) {
                const unsigned mid = (lo + hi) / 2;
                if (cum[mid] <= pos) lo = mid + 1;
                else hi = mid;
            }
            len[key & 0xFFFF] = (uint8_t)lo;
            bits += c * lo;
        }
    }
    const uint64_t tb = Red(ts.red).Sum(bits);
    if (tid == 0) total_bits = tb;
    __syncthreads();
    /* canonical codes: symbols of one length get consecutive codes in
     * symbol order (rank = earlier used symbols of the same length); the
     * used symbols in symbol order are the leaves before sorting */
    uint32_t *entry = p.entry + (size_t)cl * p.Kcap;
    if (tid <= LMAX) carry_l[tid] = 0;
    for (uint32_t j0 = 0; j0 < m; j0 += NT) {
        const uint32_t j = j0 + tid;
        const uint32_t s = j < m ? (uint32_t)(ukeys[j] & 0xFFFF) : 0;
        const uint32_t l = j < m ? len[s] : 0;
        if (tid < DW * (LMAX + 2)) (&wcnt[0][0])[tid] = 0;
        __syncthreads();
        const unsigned peers = __match_any_sync(FULL, l);
        const uint32_t below = (uint32_t)__popc(peers & ((1u << lane) - 1));
        if (lane == 31u - (unsigned)__clz(peers)) wcnt[warp][l] = (uint32_t)__popc(peers);
        __syncthreads();
        uint32_t before = carry_l[l];
        for (uint32_t w = 0; w < warp; w++) before += wcnt[w][l];
        if (j < m) entry[s] = (nxt[l] + before + below) << 5 | l;
        __syncthreads();
        if (tid <= LMAX) {
            uint32_t t = 0;
            for (uint32_t w = 0; w < DW; w++) t += wcnt[w][tid];
            carry_l[tid] += t;
        }
        __syncthreads();
    }
    /* codebook: maximal runs of equal lengths over 0..K-1, from the used
     * symbols: a run of zeros before a used symbol after a gap, a new run
     * at a used symbol after a gap or a change of length, zeros after the
     * last one; runs[] = start | length << 16 */
    uint32_t *runs = p.runs + (size_t)cl * p.Kcap;
    uint8_t *cbo = p.cb + (size_t)cl * p.Kcap;
    uint32_t nruns = 0, cbb = 0;
    if (n) {
        for (uint32_t j0 = 0; j0 < m; j0 += NT) {
            const uint32_t j = j0 + tid;
            uint32_t sj = 0, lj = 0, pend = 0, gap = 0, nr = 0;
            if (j < m) {
                sj = (uint32_t)(ukeys[j] & 0xFFFF);
                lj = len[sj];
                uint32_t lp = 0;
                if (j) {
                    const uint32_t sp = (uint32_t)(ukeys[j - 1] & 0xFFFF);
                    pend = sp + 1;
                    lp = len[sp];
                }
                gap = sj > pend;
                nr = gap || j == 0 || lj != lp;
            }
            uint32_t ex, tot;
            Scan(ts.scan).ExclusiveSum(gap + nr, ex, tot);
            if (gap) runs[nruns + ex] = pend;
            if (nr) runs[nruns + ex + gap] = sj | lj << 16;
            nruns += tot;
            __syncthreads();
        }
        if (tid == 0) {
            const uint32_t last = (uint32_t)(ukeys[m - 1] & 0xFFFF);
            if (last + 1 < K) runs[nruns] = last + 1;
        }
        const uint32_t last = (uint32_t)(ukeys[m - 1] & 0xFFFF);
        nruns += last + 1 < K;
        __syncthreads();
        for (uint32_t r0 = 0; r0 < nruns; r0 += NT) {
            const uint32_t r = r0 + tid;
            uint32_t st = 0, rl = 0, bytes = 0, l = 0;
            if (r < nruns) {
                st = runs[r] & 0xFFFF;
                l = runs[r] >> 16;
                rl = (r + 1 < nruns ? (runs[r + 1] & 0xFFFF) : K) - st;
                bytes = rl <= 7 ? 1 : 1 + varint_len(rl - 8);
            }
            uint32_t ex, tot;
            Scan(ts.scan).ExclusiveSum(bytes, ex, tot);
            if (r < nruns) {
                uint8_t *o = cbo + cbb + ex;
                if (rl <= 7) o[0] = (uint8_t)((rl - 1) << 5 | l);
                else {
                    o[0] = (uint8_t)(7u << 5 | l);
                    uint32_t v = rl - 8, k = 1;
                    while (v >= 0x80) {
                        o[k++] = (uint8_t)(v | 0x80);
                        v >>= 7;
                    }
                    o[k] = (uint8_t)v;
                }
            }
            cbb += tot;
            __syncthreads();
        }
    }
    if (tid == 0) {
        const uint64_t tbits = total_bits;
        const uint64_t nu = (tbits + U - 1) / U, nsg = (nu + G - 1) / G, nw = (tbits + 31) / 32;
        const uint64_t hs = n ? SCZ_HUFF_HDR_BYTES + cbb + (nu + 1) / 2 + 4 * nsg + 4 * nw : SCZ_HUFF_HDR_BYTES;
        const uint32_t dm = p.es == 4 ? M->dm : 0;
        const uint32_t nesc = p.es == 4 ? p.nescc[cl] : 0;
        const uint64_t size = p.hdr + 4 * (uint64_t)dm + hs + 4 * (uint64_t)nesc;
        M->count = n;
        M->K = K;
        M->dm = dm;
        M->nesc = nesc;
        M->total_bits = tbits;
        M->cb_bytes = cbb;
        M->n_units = (uint32_t)nu;
        M->n_segs = (uint32_t)nsg;
        M->n_words = (uint32_t)nw;
        if (p.hdr && size >= p.hdr + n * p.es) {
            M->mode = 0;
            M->size = p.hdr + n * p.es;
        } else {
            M->mode = 1;
            M->size = size;
            M->r_hs = p.hdr + 4 * (uint64_t)dm;
            M->r_cb = M->r_hs + SCZ_HUFF_HDR_BYTES;
            M->r_gap = M->r_cb + cbb;
            M->r_seg = M->r_gap + (nu + 1) / 2;
            M->r_words = M->r_seg + 4 * nsg;
            M->r_esc = M->r_words + 4 * nw;
        }
    }
}

/* Payload offsets of the group's chunks, after the chunks before it. */
__global__ void __launch_bounds__(NT) k_eoff(EParams p) {
    typedef cub::BlockScan<uint64_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    uint64_t carry = p.gc0 ? p.choff[p.gc0 - 1] + p.chsize[p.gc0 - 1] : 0;
    for (uint32_t c0 = 0; c0 < p.ng; c0 += NT) {
        const uint32_t cl = c0 + threadIdx.x;
        const uint64_t x = cl < p.ng ? p.meta[cl].size : 0;
        uint64_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (cl < p.ng) {
            p.meta[cl].off = carry + ex;
            p.choff[p.gc0 + cl] = carry + ex;
            p.chsize[p.gc0 + cl] = x;
            p.chinfo[p.gc0 + cl] = p.meta[cl].mode;
        }
        carry += tot;
        __syncthreads();
    }
}

/* A whole tile of u16 symbols by 16-byte loads: thread t's symbols t *
 * EPT .. t * EPT + EPT - 1 of the tile. Where the chunk's symbols are
 * 16-byte aligned, two loads a thread; a set's stream (soff: it starts at
 * any symbol of the codes) takes the three aligned 16-byte words around
 * the thread's 32 bytes: up to 7 symbols before the stream (inside the
 * symbol array, whose start is 16-byte aligned) and up to 8 after the
 * tile, so the tile needs 8 more symbols of its stream after it (a
 * stream's last full tile takes the one-by-one path). The symbols' global
 * loads one by one were most of the level-1 writes (H100, wmag REL 1e-3). */
__device__ __forceinline__ bool etile_vec(const EParams &p, uint32_t cl, uint64_t i0, uint64_t n) {
    if (p.es != 2 || i0 + ETILE > n || (reinterpret_cast<uintptr_t>(p.src) & 15)) return false;
    return p.soff ? i0 + ETILE + 8 <= n : (p.raw_full & 15) == 0;
}
__device__ __forceinline__ void etile_load(const EParams &p, uint32_t cl, uint64_t i0, uint32_t *sym) {
    static_assert(EPT == 16, "two 16-byte loads per thread");
    if (!p.soff) {
        const uint4 *v = reinterpret_cast<const uint4 *>(p.src + (uint64_t)cl * p.raw_full + 2 * i0);
#pragma unroll
        for (uint32_t h = 0; h < 2; h++) {
            const uint4 q = v[threadIdx.x * 2 + h];
            const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (uint32_t k = 0; k < 8; k++) sym[h * 8 + k] = (w[k / 2] >> (16 * (k & 1))) & 0xffffu;
        }
        return;
    }
    /* the thread's 32 bytes start at byte al (even, the same for every
     * thread of the tile) of the aligned words w */
    const uint8_t *a = p.src + 2 * (p.soff[cl] + i0 + (uint64_t)threadIdx.x * EPT);
    const uint32_t al = (uint32_t)(reinterpret_cast<uintptr_t>(a) & 15u), q = al >> 2, sh = 8 * (al & 3);
    const uint4 *v = reinterpret_cast<const uint4 *>(a - al);
    uint32_t w[12];
#pragma unroll
    for (uint32_t h = 0; h < 3; h++) {
        const uint4 x = v[h];
        w[4 * h] = x.x, w[4 * h + 1] = x.y, w[4 * h + 2] = x.z, w[4 * h + 3] = x.w;
    }
    uint32_t u[9]; /* u[j] = w[q + j] */
#pragma unroll
    for (uint32_t j = 0; j < 9; j++) u[j] = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
#pragma unroll
    for (uint32_t j = 0; j < 8; j++) {
        const uint32_t x = __funnelshift_r(u[j], u[j + 1], sh);
        sym[2 * j] = x & 0xffffu;
        sym[2 * j + 1] = x >> 16;
    }
}
constexpr uint32_t TABK = 4096; /* alphabets up to TABK: code tables in shared memory */

/* Bits and escapes of each tile of a coded chunk (u32 symbols: the
 * two-pass writing, e_write). */
__global__ void __launch_bounds__(NT) k_etbits(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockReduce<uint32_t, NT> Red;
    __shared__ typename Red::TempStorage ts;
    const uint32_t cl = blockIdx.y;
    const EMeta &M = p.meta[cl];
    const uint64_t n = M.count, i0 = (uint64_t)blockIdx.x * ETILE;
    if (M.mode != 1 || i0 >= n) return;
    const uint8_t *len = p.len + (size_t)cl * p.Kcap;
    const bool esc = M.nesc;
    uint32_t b = 0, e = 0;
    for (uint64_t i = i0 + threadIdx.x; i < i0 + ETILE && i < n; i += NT) {
        const uint32_t s = esym(p, cl, i);
        b += len[s];
        e += esc && s == DICT_MAX;
    }
    const uint32_t tb = Red(ts).Sum(b);
    __syncthreads();
    const uint32_t te = Red(ts).Sum(e);
    if (threadIdx.x == 0) {
        p.tbits[(size_t)cl * p.tiles + blockIdx.x] = tb;
        p.tesc[(size_t)cl * p.tiles + blockIdx.x] = te;
    }
}

/* The bitstream words of a coded stream go straight into its payload, at
 * whatever byte alignment its words region has there: destination word m
 * (aligned, at the returned base + 4 m) holds the region's bytes 4 m - sh ..
 * 4 m - sh + 3, sh = the region's address mod 4. Stream word w (its first
 * bit the top one) is region bytes 4 w .. 4 w + 3, little-endian, so the
 * stream's byte b (bits 8 b .. 8 b + 7) is region byte b ^ 3. A tile of
 * k_eenc owns the stream bytes whose first bit is its own, [ceil(tb0 / 8),
 * ceil(end / 8)) for its bits [tb0, end) (the chunk's last tile up to the
 * region's end: the padding); the bits of the next tile in its last byte
 * it reads from that tile's first codes (ehead). Every region byte has one
 * writer, which stores it whole: no clearing, no atomics, no order
 * between the tiles. */
__device__ __forceinline__ uint32_t *wdst(const EParams &p, const EMeta &M, unsigned *sh) {
    uint8_t *A = p.pay + M.off + M.r_words;
    *sh = (unsigned)(reinterpret_cast<uintptr_t>(A) & 3u);
    return reinterpret_cast<uint32_t *>(A - *sh);
}
/* The first 8 bits of a stream from the codes of its next 8 symbols, x
 * (entries; 0 past the chunk's end): each code has 1 bit or more. */
__device__ __forceinline__ uint32_t ehead(const uint32_t (&x)[8]) {
    uint64_t acc = 0;
    uint32_t nb = 0;
#pragma unroll
    for (uint32_t k = 0; k < 8; k++) {
        const uint32_t l = nb < 8 ? x[k] & 31 : 0u;
        acc = l ? acc << l | (x[k] >> 5) : acc;
        nb += l;
    }
    return (uint32_t)(nb >= 8 ? acc >> (nb - 8) : acc << (8 - nb)) & 255u;
}

/* Tile bit offsets and escape ranks: exclusive scans per chunk, ETS
 * consecutive tiles per thread (a 32 MiB chunk's 2048 tiles in one round:
 * H100, 256 per round took ~16 us a call). */
constexpr uint32_t ETS = 8;
__global__ void __launch_bounds__(NT) k_etscan(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint64_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint32_t cl = blockIdx.x;
    const EMeta &M = p.meta[cl];
    if (M.mode != 1) return;
    const uint32_t T = (uint32_t)((M.count + ETILE - 1) / ETILE);
    uint64_t cb = 0, ce = 0;
    uint64_t *tb = p.tbits + (size_t)cl * p.tiles;
    uint32_t *te = p.tesc + (size_t)cl * p.tiles;
    for (uint32_t t0 = 0; t0 < T; t0 += NT * ETS) {
        const uint32_t tf = t0 + threadIdx.x * ETS;
        uint64_t x[ETS];
        uint32_t y[ETS];
        uint64_t sx = 0, sy = 0;
#pragma unroll
        for (uint32_t k = 0; k < ETS; k++) {
            const uint32_t t = tf + k;
            x[k] = t < T ? tb[t] : 0;
            y[k] = t < T ? te[t] : 0;
            sx += x[k];
            sy += y[k];
        }
        uint64_t ex, tot, ey, toty;
        Scan(ts).ExclusiveSum(sx, ex, tot);
        __syncthreads();
        Scan(ts).ExclusiveSum(sy, ey, toty);
        uint64_t o = cb + ex, oe = ce + ey;
#pragma unroll
        for (uint32_t k = 0; k < ETS; k++) {
            const uint32_t t = tf + k;
            if (t < T) {
                tb[t] = o;
                te[t] = (uint32_t)oe;
            }
            o += x[k];
            oe += y[k];
        }
        cb += tot;
        ce += toty;
        __syncthreads();
    }
}

/* Codewords, gaps, segment entries and escapes of the tiles. 6 blocks per
 * SM (40 registers).
 * LB = false: one tile, (blockIdx.x, blockIdx.y), at the bit offset
 * k_etscan found (after k_etbits), with the escape ranks (u32 symbols).
 * LB = true (u8 / u16 streams, without escapes): one pass. The blocks take
 * their tiles by ticket, the streams' tiles interleaved: tile x of every
 * stream, then tile x + 1, so that a tile's predecessor took its ticket ng
 * tickets earlier. A tile's bit
 * offset comes from a decoupled look-back over the tiles' bit counts
 * (scz_ku::lookback; states in p.tbits and the ticket zeroed by k_ebook):
 * the tile publishes its bit count as soon as it has it, assembles its
 * codewords in shared memory at its own bit 0, then looks back (its
 * predecessors have mostly published their inclusive sums by then), and
 * shifts the words into place as it stores them. H100, wmag REL 1e-3:
 * with the tiles chunk by chunk the look-backs walked far back over tiles
 * still in flight and the one pass took 0.13 ms more than the two. */
template <bool LB> __device__ __forceinline__ void eenc_tile(const EParams &p, uint32_t cl, uint32_t bx) {
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    __shared__ uint32_t sw[ETILE * LMAX / 32 + 2];
    __shared__ uint32_t sent[TABK];
    __shared__ uint32_t s_head, s_hsym[8];
    __shared__ uint64_t s_tb0;
    const uint32_t tid = threadIdx.x;
    const EMeta &M = p.meta[cl];
    const uint64_t n = M.count, i0 = (uint64_t)bx * ETILE;
    if (M.mode != 1 || i0 >= n) return;
    const uint32_t tn = (uint32_t)(n - i0 < ETILE ? n - i0 : ETILE);
    const bool last = i0 + tn >= n; /* the stream's last tile */
    const uint32_t *entry = p.entry + (size_t)cl * p.Kcap;
    const bool escm = !LB && p.es == 4 && M.nesc;
    /* the next tile's first 8 symbols (threads NT - 8 .. NT - 1; ~0 past the
     * stream's end), in shared memory before the first barrier */
    const uint32_t hj = tid - (NT - 8);
    uint32_t hsym = ~0u;
    if (hj < 8 && !last && i0 + ETILE + hj < n) hsym = esym(p, cl, i0 + ETILE + hj);
    uint32_t e[EPT];
    uint32_t mybits = 0, myesc = 0;
    const uint32_t Kt = p.K ? p.K : p.Kv ? p.Kv[cl] : 0; /* the stream's alphabet */
    if (Kt && Kt <= TABK && etile_vec(p, cl, i0, n)) {
        uint32_t sym[EPT];
        etile_load(p, cl, i0, sym); /* in flight while the table is copied */
        for (uint32_t k = tid; k < Kt; k += NT) sent[k] = entry[k];
        __syncthreads();
#pragma unroll
        for (uint32_t k = 0; k < EPT; k++) {
            e[k] = sent[sym[k]];
            mybits += e[k] & 31;
        }
    } else {
#pragma unroll
        for (uint32_t k = 0; k < EPT; k++) {
            const uint32_t li = tid * EPT + k;
            uint32_t x = 0;
            if (li < tn) {
                const uint32_t s = esym(p, cl, i0 + li);
                x = entry[s];
                myesc += escm && s == DICT_MAX;
            }
            e[k] = x;
            mybits += x & 31;
        }
    }
    if (hj < 8) s_hsym[hj] = hsym;
    uint32_t off, tbits;
    Scan(ts).ExclusiveSum(mybits, off, tbits);
    unsigned long long *lbs = reinterpret_cast<unsigned long long *>(p.tbits) + (size_t)cl * p.tiles;
    if (LB && tid == 0) /* the tile's bit count, for the look-backs of the tiles after it */
        *(volatile unsigned long long *)(lbs + bx) = (bx ? scz_ku::LB_AGG : scz_ku::LB_INC) | tbits;
    uint32_t eoff = 0;
    if (escm) { /* block-uniform */
        __syncthreads();
        Scan(ts).ExclusiveSum(myesc, eoff);
    }
    /* the code lengths less 1, a nibble each, for the unit boundaries */
    uint32_t ln[EPT / 8] = {};
#pragma unroll
    for (uint32_t k = 0; k < EPT; k++) ln[k / 8] |= ((e[k] - 1) & 15) << (4 * (k & 7));
    /* the tile's words at its own bit 0, cleared (one more for the next
     * tile's bits) */
    for (uint32_t k = tid; k < (tbits + 31) / 32 + 1; k += NT) sw[k] = 0;
    __syncthreads();
    /* the thread's bits gathered in acc (from its top): the words it alone
     * covers are stored as they fill; its first word (shared with the
     * threads before it) and its last, partial one (shared with those
     * after it) are or-ed in once all stores are done */
    const uint32_t wa0 = off >> 5;
    uint32_t wa = wa0, nacc = off & 31, fw = 0;
    uint64_t acc = 0;
    /* two codes at a time (at most 32 bits together) */
#pragma unroll
    for (uint32_t k = 0; k < EPT; k += 2) {
        const uint32_t l0 = e[k] & 31, l1 = e[k + 1] & 31, l = l0 + l1; /* l = 0: past the tile, code 0 */
        const uint32_t code = (e[k] >> 5 << l1) | (e[k + 1] >> 5);
        acc |= (uint64_t)code << ((64 - nacc - l) & 63);
        nacc += l;
        const bool full = nacc >= 32;
        const uint32_t w = (uint32_t)(acc >> 32);
        if (full && wa != wa0) sw[wa] = w;
        if (full && wa == wa0) fw = w;
        wa += full;
        acc = full ? acc << 32 : acc;
        nacc -= full ? 32u : 0u;
    }
    if (escm) { /* block-uniform */
        const uint32_t ebase = p.tesc[(size_t)cl * p.tiles + bx] + eoff;
        uint32_t *escb = p.escbuf + (size_t)cl * p.count_full;
        uint32_t ek = 0;
        for (uint32_t k = 0; k < EPT; k++) {
            const uint32_t li = tid * EPT + k;
            if (li < tn && esym(p, cl, i0 + li) == DICT_MAX) {
                escb[ebase + ek] = reinterpret_cast<const uint32_t *>(p.src + (uint64_t)cl * p.raw_full)[i0 + li];
                ek++;
            }
        }
    }
    if (tid >= NT - 32) { /* the next tile's first 8 bits (while the first warp looks back) */
        const uint32_t j = tid & 31, y = j < 8 ? s_hsym[j] : ~0u, x = y != ~0u ? entry[y] : 0u;
        uint32_t xs[8];
#pragma unroll
        for (uint32_t k = 0; k < 8; k++) xs[k] = __shfl_sync(0xffffffffu, x, k);
        if (j == 0) s_head = ehead(xs);
    }
    if (LB) {
        if (tid < 32) {
            const uint64_t x = scz_ku::lookback(lbs, bx, tbits, true);
            if (tid == 0) s_tb0 = x;
        }
    } else if (tid == 0) {
        s_tb0 = p.tbits[(size_t)cl * p.tiles + bx];
    }
    __syncthreads(); /* every plain store is done: the shared words are or-ed */
    const uint64_t tb0 = s_tb0, end = tb0 + tbits;
    if (wa != wa0) atomicOr(&sw[wa0], fw);
    if (nacc) atomicOr(&sw[wa], (uint32_t)(acc >> 32));
    if (tid == NT - 1 && !last && (end & 7)) { /* the next tile's bits in its last byte, at tile bit tbits */
        const uint32_t need = 8 - (uint32_t)(end & 7), h = s_head >> (8 - need), q = tbits & 31, w = tbits >> 5;
        if (q + need <= 32) atomicOr(&sw[w], h << (32 - q - need));
        else {
            atomicOr(&sw[w], h >> (q + need - 32));
            atomicOr(&sw[w + 1], h << (64 - q - need));
        }
    }
    /* gaps and segment entries: the code that reaches a unit boundary
     * (a thread's at most 16 LMAX < U bits reach one at most) */
    {
        uint32_t oo = (uint32_t)(tb0 & (U - 1)) + off; /* from unit tb0 / U */
        if ((oo & (U - 1)) + mybits >= U) {
            const uint64_t nunits = M.n_units, ubase = tb0 / U;
            uint8_t *gapb = p.gapb + (size_t)cl * p.units_cap;
            uint32_t *segf = p.segf + (size_t)cl * p.segs_cap;
            for (uint32_t k = 0; k < EPT; k++) {
                const uint32_t l = ((ln[k / 8] >> (4 * (k & 7))) & 15) + 1;
                if ((oo & (U - 1)) + l >= U) {
                    const uint64_t u = ubase + (oo + l) / U;
                    if (u < nunits) {
                        gapb[u] = (uint8_t)((oo + l) & (U - 1));
                        if ((u & (G - 1)) == 0) segf[u / G] = (uint32_t)(i0 + tid * EPT + k + 1);
                    }
                    break;
                }
                oo += l;
            }
        }
    }
    if (bx == 0 && tid == 0 && M.n_units) {
        p.gapb[(size_t)cl * p.units_cap] = 0;
        p.segf[(size_t)cl * p.segs_cap] = 0;
    }
    __syncthreads();
    /* the tile's region bytes into the payload (wdst): stream word W0 + k
     * is the tile's bits [32 k - s, 32 k - s + 32), s = tb0 mod 32; whole
     * destination words where the tile owns all four bytes, else its bytes
     * one by one */
    unsigned sh;
    uint32_t *D = wdst(p, M, &sh);
    const uint64_t W0 = tb0 >> 5;
    const uint32_t s5 = (uint32_t)(tb0 & 31), nwt = (uint32_t)(((end - 1) >> 5) - W0 + 1);
    const int64_t ob0 = (int64_t)((tb0 + 7) >> 3), ob1 = (int64_t)(last ? 4 * (uint64_t)M.n_words : (end + 7) >> 3);
    const int64_t xs = 4 * ((ob0 + 3) >> 2), xe = 4 * (ob1 >> 2); /* region bytes of wholly owned stream words */
    const uint32_t nd = nwt + (sh ? 1u : 0u);
    for (uint32_t k = tid; k < nd; k += NT) {
        /* stream words W0 + k - 1 and W0 + k */
        const uint32_t a2 = k >= 2 ? sw[k - 2] : 0u, a1 = k >= 1 ? sw[k - 1] : 0u, a0 = k < nwt ? sw[k] : 0u;
        const uint32_t hi = k < nwt ? __funnelshift_r(a0, a1, s5) : 0u, lo = k >= 1 ? __funnelshift_r(a1, a2, s5) : 0u;
        const uint32_t v = sh ? __funnelshift_r(lo, hi, 8 * (4 - sh)) : hi;
        const uint64_t m = W0 + k;
        const int64_t b = 4 * (int64_t)m - (int64_t)sh;
        if (b >= xs && b + 4 <= xe) D[m] = v;
        else {
            uint8_t *db = reinterpret_cast<uint8_t *>(D + m);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int64_t sb = (b + j) ^ 3; /* the stream byte (negative before the region) */
                if (sb >= ob0 && sb < ob1) db[j] = (uint8_t)(v >> (8 * j));
            }
        }
    }
}

/* LB: tile (ticket / ng, ticket mod ng); a set's write (p.tlim, sparse:
 * its streams written are often few of its slots, and k_hse_place limits
 * the tickets to those their tiles take) runs a grid of resident blocks
 * that take tickets until the limit (a grid of every slot's tiles spent
 * most of its time starting blocks that found no ticket: H200, the level-1
 * back end, 262160 blocks, 163 us); else a block per tile. !LB: tile
 * (blockIdx.x, blockIdx.y). */
template <bool LB>
__global__ void __launch_bounds__(NT, 6) k_eenc(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ uint32_t s_tk;
    if (!LB) {
        eenc_tile<false>(p, blockIdx.y, blockIdx.x);
        return;
    }
    const uint32_t lim = p.tlim ? *p.tlim : ~0u;
    for (;;) {
        if (threadIdx.x == 0) s_tk = atomicAdd(p.ticket, 1u);
        __syncthreads();
        const uint32_t tk = s_tk;
        __syncthreads(); /* s_tk read; the previous tile's shared reads done */
        if (tk >= lim) return;
        const uint32_t bx = tk / p.ng;
        eenc_tile<true>(p, tk - bx * p.ng, bx);
        if (!p.tlim) return; /* a block per tile */
    }
}

/* Blocks of k_eenc<true> for a set's write: all resident at once. */
uint32_t eenc_grid(uint64_t tiles) {
    const uint64_t g = (uint64_t)scz_ku::persistent_grid((const void *)k_eenc<true>, NT);
    return (uint32_t)(tiles < g ? tiles : g);
}

/* Byte q of chunk cl's payload. */
__device__ __forceinline__ uint32_t pay_byte(const EParams &p, uint32_t cl, const EMeta &M, uint64_t q) {
    if (q < p.hdr) {
        if (q == 0) return M.mode;
        if (q == 1) return p.es;
        if (M.mode == 0) return 0;
        if (q >= 4 && q < 8) return (M.dm >> (8 * (q - 4))) & 255;
        if (q >= 8 && q < 12) return (M.nesc >> (8 * (q - 8))) & 255;
        return 0;
    }
    if (M.mode == 0) return p.src[(uint64_t)cl * p.raw_full + (q - p.hdr)];
    if (q < M.r_hs) {
        const uint64_t k = q - p.hdr;
        return (p.dict[(size_t)cl * 65536 + k / 4] >> (8 * (k & 3))) & 255;
    }
    if (q < M.r_cb) {
        const uint64_t k = q - M.r_hs;
        uint64_t v;
        if (k < 4) v = M.K >> (8 * k);
        else if (k < 8) v = M.count >> (8 * (k - 4));
        else if (k < 16) v = M.total_bits >> (8 * (k - 8));
        else v = M.cb_bytes >> (8 * (k - 16));
        return (uint32_t)v & 255;
    }
    if (q < M.r_gap) return p.cb[(size_t)cl * p.Kcap + (q - M.r_cb)];
    if (q < M.r_seg) {
        const uint64_t k = q - M.r_gap, u = 2 * k;
        const uint8_t *g = p.gapb + (size_t)cl * p.units_cap;
        return (uint32_t)(g[u] | (u + 1 < M.n_units ? g[u + 1] << 4 : 0));
    }
    if (q < M.r_words) {
        const uint64_t k = q - M.r_seg;
        return (p.segf[(size_t)cl * p.segs_cap + k / 4] >> (8 * (k & 3))) & 255;
    }
    if (q < M.r_esc) return 0; /* bitstream words: k_eenc writes them */
    const uint64_t k = q - M.r_esc;
    return (p.escbuf[(size_t)cl * p.count_full + k / 4] >> (8 * (k & 3))) & 255;
}

/* The payloads: each thread writes aligned 4-byte words of the output
 * (bytes at the payload's two ends). */
__global__ void __launch_bounds__(NT) k_easm(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t cl = blockIdx.y;
    /* the stream's fields in shared memory: from global memory, every
     * store below made the compiler load them again (a chain of loads per
     * word: 27 us for wmag's 16 streams) */
    __shared__ EMeta M;
    static_assert(sizeof(EMeta) % 8 == 0, "EMeta copy");
    if (threadIdx.x < sizeof(EMeta) / 8)
        reinterpret_cast<uint64_t *>(&M)[threadIdx.x] = reinterpret_cast<const uint64_t *>(p.meta + cl)[threadIdx.x];
    __syncthreads();
    if (M.mode > 1) return; /* mode 3: a stream set's stream not written */
    uint8_t *P = p.pay + M.off;
    /* a coded stream's bitstream words [rw, re) are k_eenc's */
    const int64_t rw = M.mode == 1 ? (int64_t)M.r_words : 0, re = M.mode == 1 ? (int64_t)M.r_esc : 0;
    for (uint64_t q0 = (uint64_t)blockIdx.x * ASM_BYTES; q0 < M.size; q0 += (uint64_t)gridDim.x * ASM_BYTES) {
    const uint64_t q1 = q0 + ASM_BYTES < M.size ? q0 + ASM_BYTES : M.size;
    if (q0 >= (uint64_t)rw && q1 <= (uint64_t)re) continue;
    /* aligned words overlapping [q0, q1) of the payload */
    const uintptr_t a0 = (reinterpret_cast<uintptr_t>(P) + q0) & ~(uintptr_t)3;
    const uintptr_t a1 = reinterpret_cast<uintptr_t>(P) + q1;
    for (uintptr_t a = a0 + 4 * (uintptr_t)threadIdx.x; a < a1; a += 4 * NT) {
        const int64_t q = (int64_t)(a - reinterpret_cast<uintptr_t>(P));
        if (q >= rw && q + 4 <= re) continue;
        if (q >= (int64_t)q0 && q + 4 <= (int64_t)q1 && (q + 4 <= rw || q >= re)) {
            uint32_t w = 0;
            const uint64_t uq = (uint64_t)q;
            if (M.mode == 0 && uq >= HDR) { /* raw bytes of a stored chunk */
                const uint8_t *raw = p.src + (uint64_t)cl * p.raw_full;
                w = ld32u(raw + (uq - HDR), raw + (M.size - HDR));
            } else {
#pragma unroll
                for (int k = 0; k < 4; k++) w |= pay_byte(p, cl, M, uq + k) << (8 * k);
            }
            *reinterpret_cast<uint32_t *>(a) = w;
        } else {
            for (int k = 0; k < 4; k++) {
                const int64_t qq = q + k;
                if (qq >= (int64_t)q0 && qq < (int64_t)q1 && (qq < rw || qq >= re))
                    reinterpret_cast<uint8_t *>(a)[k] = (uint8_t)pay_byte(p, cl, M, (uint64_t)qq);
            }
        }
    }
    }
}

/* Shared memory of k_ebook beyond its static part: room for the
 * construction by rounds in shared memory (17 bytes a used symbol,
 * huff_rounds.h) for the set's whole alphabet where that fits in `cap`,
 * else none: every block then runs the rounds in global memory, with the
 * L1 cache free for them and several blocks an SM (a block of ~220 KiB
 * of shared memory left one an SM and ~30 KiB of L1). */
size_t ebook_dyn(uint32_t Kc, size_t cap) {
    const size_t fast = 17 * (size_t)Kc + 64;
    return fast <= cap ? fast : 0;
}

/* The dynamic shared memory k_ebook may take on the current device (its
 * opt-in maximum less the kernel's static part), and the launch attribute
 * set to it: one value a device, so that callers on several host threads
 * set the same value (an attribute set to each call's own size could be
 * lowered by another thread between its set and its launch). */
size_t ebook_cap() {
    static std::atomic<size_t> cache[16]; /* per device (0: not yet asked) */
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev)) return 44 * 1024;
    if (dev >= 0 && dev < 16 && cache[dev].load(std::memory_order_relaxed)) return cache[dev].load(std::memory_order_relaxed);
    cudaFuncAttributes a;
    size_t cap = 44 * 1024; /* what a launch gets without opting in */
    if (!cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) &&
        !cudaFuncGetAttributes(&a, k_ebook) && (size_t)optin > a.sharedSizeBytes + 1024 + cap)
        cap = (size_t)optin - a.sharedSizeBytes - 1024; /* 1 KiB: the runtime's reserve */
    if (dev >= 0 && dev < 16) cache[dev].store(cap, std::memory_order_relaxed);
    return cap;
}

/* The attribute for a launch of dyn bytes: the device's cap (one value,
 * at least ebook_dyn's). */
cudaError_t ebook_attr(size_t dyn) {
    const size_t cap = ebook_cap();
    return cudaFuncSetAttribute(k_ebook, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(dyn > cap ? dyn : cap));
}

/* Histograms, codebooks and sizes of the p.ng streams of a group (their
 * symbols in p.src / esym). */
cudaError_t e_plan(EParams &p, const ELayout &L, void *cubtmp, cudaStream_t s) {
    const uint32_t ng = p.ng;
    cudaError_t e;
    const dim3 tiles(L.tiles, ng);
    const uint32_t kb = p.K ? p.K : p.Kb; /* the alphabet, or its bound (per-stream alphabets): picks the paths */
    if (p.hist_ready) {
        /* counted by the producer of the symbols */
    } else if ((e = cudaMemsetAsync(p.hist, 0, (size_t)ng * L.Kcap * 4, s))) {
        return e;
    } else if (p.es == 1 && kb == 256) {
        k_ehist8<<<dim3((unsigned)((p.count_full + HTILE8 - 1) / HTILE8), ng), NT, 0, s>>>(p);
    } else if (kb && kb <= KSMALL)
        k_ehistK<<<dim3((unsigned)((p.count_full + HTILEK - 1) / HTILEK), ng), NT, 0, s>>>(p);
    else if (L.Kcap == 65536 && p.count_full >= HTILE16 / 2)
        k_ehist16<<<dim3((unsigned)((p.count_full + HTILE16 - 1) / HTILE16), ng), NT, 131072, s>>>(p);
    else
        k_ehist<<<tiles, NT, 0, s>>>(p);
    if ((e = scz_ku::launch_pdl(k_eleaves, ng, NT, 0, s, p))) return e;
    size_t tb = L.cub_bytes;
    if ((kb && kb <= KSORT) || p.bsort) { /* the used symbols sorted by one block a stream (small alphabets, sets marked few) */
        if ((e = scz_ku::launch_pdl(k_esort, ng, NT, 0, s, p))) return e;
    }
    else if ((e = cub::DeviceSegmentedRadixSort::SortKeys(cubtmp, tb, (const uint64_t *)p.keysA, p.keysB,
                                                           (int)(ng * L.Kc), (int)ng, (const int *)p.segb,
                                                           (const int *)p.sege, 0, 48, s)))
        return e;
    if ((e = scz_ku::launch_pdl(k_ebook, ng, NT, (size_t)p.dynbytes, s, p))) return e;
    return cudaGetLastError();
}

/* Bitstreams of the group's coded streams (meta mode 1), then their bytes
 * at p.pay + meta.off (maxpay: the most bytes of one). */
cudaError_t e_write(EParams &p, const ELayout &L, uint64_t maxpay, cudaStream_t s) {
    const uint32_t ng = p.ng;
    const dim3 tiles(L.tiles, ng);
    cudaError_t e;
    if (L.es == 4) { /* escapes: their ranks too, by two passes */
        if ((e = scz_ku::launch_pdl(k_etbits, tiles, NT, 0, s, p)) || (e = scz_ku::launch_pdl(k_etscan, ng, NT, 0, s, p)) ||
            (e = scz_ku::launch_pdl(k_eenc<false>, tiles, NT, 0, s, p)))
            return e;
    } else {
        const uint64_t nt = (uint64_t)L.tiles * ng;
        if ((e = scz_ku::launch_pdl(k_eenc<true>, p.tlim ? eenc_grid(nt) : (uint32_t)nt, NT, 0, s, p))) return e;
    }
    /* a few blocks per stream walk its pieces (most of a coded stream is k_eenc's) */
    const uint64_t pieces = (maxpay + ASM_BYTES - 1) / ASM_BYTES;
    if ((e = scz_ku::launch_pdl(k_easm, dim3((unsigned)(pieces < 64 ? pieces : 64), ng), NT, 0, s, p))) return e;
    return cudaGetLastError();
}

/* ---- stream sets (huffman_enc_cuda.h) ---- */

ELayout hse_layout(uint32_t n, uint64_t cap, uint32_t K) {
    ELayout L = elayout_geom(cap ? cap : 1, 2, K);
    L.GC = n ? n : 1;
    elayout_sizes(L);
    return L;
}

/* SCZ_HSE_BIGSORT=1: a `few` set's used symbols always by esort_big, in
 * tiles of 64 keys (its merges tested on any data). */
int bigsort_env() {
    return scz_ku::env_once("SCZ_HSE_BIGSORT", [](const char *v) { return v && *v && atoi(v) == 1 ? 1 : 0; });
}

void hse_params(const scz_hse *h, void *state, void *work, const ELayout &L, EParams *p, void **cubtmp) {
    memset(p, 0, sizeof *p);
    elayout_take(L, static_cast<uint8_t *>(state), p, cubtmp);
    elayout_work(L, static_cast<uint8_t *>(work), p);
    /* u8 symbols: the u8 huffman codec's paths; the layout of K <= 256 is
     * that of u16 symbols (elayout_geom: the same Kcap, Kc and tiles) */
    p->src = h->sym8 ? h->sym8 : reinterpret_cast<const uint8_t *>(h->sym);
    p->es = h->sym8 ? 1 : 2;
    p->raw_full = h->stride * p->es;
    p->count_full = p->count_last = L.count_full;
    p->cnt = h->count;
    p->ng = h->n;
    p->K = h->Kv ? 0 : h->K; /* per-stream alphabets: no K-sized tables */
    p->Kb = h->K;
    p->Kv = h->Kv;
    p->soff = h->soff;
    p->hdr = 0;
    p->units_cap = L.units_cap;
    p->segs_cap = L.segs_cap;
    p->Kcap = L.Kcap;
    p->Kc = L.Kc;
    p->tiles = L.tiles;
    p->dynbytes = ebook_dyn(L.Kc, ebook_cap());
    p->hist_ready = h->hist_ready;
    p->bsort = h->few ? (bigsort_env() ? 2u : 1u) : 0u;
}


__global__ void k_hse_size(EParams p, uint64_t *size, uint64_t *bits) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.ng) return;
    if (size) size[i] = p.meta[i].size;
    if (bits) bits[i] = p.meta[i].total_bits;
}

__global__ void k_hse_place(EParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.ng) return;
    const uint64_t o = p.woff[i];
    if (o == ~0ull) p.meta[i].mode = 3; /* not written */
    else {
        p.meta[i].mode = 1;
        p.meta[i].off = o;
        /* k_eenc<true> hands stream i's tile x ticket x ng + i: the tickets
         * below ng x (the most tiles of a written stream) */
        const uint64_t t = (p.meta[i].count + ETILE - 1) / ETILE;
        if (t) atomicMax(p.ticket + 1, (uint32_t)(t * p.ng));
    }
}

} // namespace

/* ---- interface to the runtime (scz_cuda_codec_ops, cuda_rt.h) ---- */

static scz_status huf_cuda_check(scz_ctx *ctx, const scz_cuda_batch *b) {
    if (b->n == 0) return scz__fail(ctx, SCZ_ERR_INTERNAL, "huffman (CUDA): empty batch");
    const uint32_t es = b->full.esize;
    if (es != 1 && es != 2 && es != 4)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "huffman (CUDA): element size %u", es);
    if (b->full.count > UINT32_MAX - 1 || (es == 4 && b->full.count > 0x7fffffffull))
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED,
                         "huffman (CUDA): chunks of more than %s elements; use a smaller chunk size",
                         es == 4 ? "2^31-1" : "2^32-2");
    if ((uint64_t)b->n * ((b->full.count + ETILE - 1) / ETILE) > 0x7fffffffull)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "huffman (CUDA): batch too large");
    return SCZ_OK;
}

static size_t huf_cuda_scratch(const scz_cuda_batch *b, int dir) {
    if (b->n == 0) return 0;
    if (dir == SCZ_CUDA_DECODE) return dlayout(b).total;
    return elayout(b).total;
}

static cudaError_t huf_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                   uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                   void *scratch, cudaStream_t s) {
    if (ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    const ELayout L = elayout(b);
    EParams p;
    memset(&p, 0, sizeof p);
    void *cubtmp;
    elayout_take(L, static_cast<uint8_t *>(scratch), &p, &cubtmp);
    elayout_work(L, static_cast<uint8_t *>(scratch) + L.state, &p);
    p.hdr = HDR;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.pay = d_pay;
    p.count_full = b->full.count;
    p.raw_full = b->raw_full;
    p.units_cap = L.units_cap;
    p.segs_cap = L.segs_cap;
    p.es = b->full.esize;
    p.Kcap = L.Kcap;
    p.Kc = L.Kc;
    p.tiles = L.tiles;
    const size_t dyn = ebook_dyn(L.Kc, ebook_cap());
    p.dynbytes = dyn;
    cudaError_t e;
    if ((e = ebook_attr(dyn))) return e;
    if ((e = cudaFuncSetAttribute(k_ehist16, cudaFuncAttributeMaxDynamicSharedMemorySize, 131072))) return e;
    for (uint32_t g0 = ca; g0 < cb; g0 += L.GC) {
        const uint32_t ng = cb - g0 < L.GC ? cb - g0 : L.GC;
        p.ng = ng;
        p.gc0 = g0;
        p.src = static_cast<const uint8_t *>(d_src) + (uint64_t)g0 * b->raw_full;
        p.count_last = g0 + ng == b->n ? b->last.count : b->full.count;
        const uint64_t N = (uint64_t)(ng - 1) * p.count_full + p.count_last;
        const unsigned nb = (unsigned)((N + NT - 1) / NT);
        if (p.es == 4) {
            size_t tb = L.cub_bytes;
            k_udkeys<<<nb, NT, 0, s>>>(p, N);
            int endbit = 32;
            while ((1ull << (endbit - 32)) < ng) endbit++;
            if ((e = cub::DeviceRadixSort::SortKeys(cubtmp, tb, (const uint64_t *)p.ekeys, p.ekeys2, (int)N, 0,
                                                     endbit, s)))
                return e;
            tb = L.cub_bytes;
            if ((e = cub::DeviceRunLengthEncode::Encode(cubtmp, tb, (const uint64_t *)p.ekeys2, p.uniq, p.cnts,
                                                         p.nruns, (int)N, s)))
                return e;
            k_udrun0<<<nb, NT, 0, s>>>(p, N);
            k_udsel<<<ng, NT, 0, s>>>(p);
            tb = L.cub_bytes;
            if ((e = cub::DeviceSegmentedRadixSort::SortKeys(cubtmp, tb, (const uint64_t *)p.topk, p.topk2, (int)N,
                                                              (int)ng, (const int *)p.sb1, (const int *)p.se1, 0, 64,
                                                              s)))
                return e;
            k_udtop<<<ng, NT, 0, s>>>(p);
            tb = L.cub_bytes;
            if ((e = cub::DeviceSegmentedRadixSort::SortKeys(cubtmp, tb, (const uint32_t *)p.dictA, p.dict,
                                                              (int)(ng * 65536), (int)ng, (const int *)p.sb2,
                                                              (const int *)p.se2, 0, 32, s)))
                return e;
            k_udsym<<<nb, NT, 0, s>>>(p, N);
        }
        if ((e = e_plan(p, L, cubtmp, s))) return e;
        k_eoff<<<1, NT, 0, s>>>(p);
        if ((e = e_write(p, L, HDR + p.count_full * p.es, s))) return e;
    }
    return cudaSuccess;
}

static cudaError_t huf_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                   const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                   unsigned long long *err, void *scratch, cudaStream_t s) {
    const DLayout L = dlayout(b);
    DParams p = dparams(b, scratch, L);
    p.pay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.err = err;
    k_dprep<<<b->n, NT, 0, s>>>(p);
    k_ditems<<<1, NT, 0, s>>>(p);
    cudaError_t e;
    if ((e = cudaGetLastError())) return e;
    /* the most shared memory per SM */
    if (p.es == 1) e = cudaFuncSetAttribute(k_decode<1>, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    else if (p.es == 2) e = cudaFuncSetAttribute(k_decode<2>, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    else e = cudaFuncSetAttribute(k_decode<4>, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    if (e || (e = cudaMemsetAsync(p.next, 0, sizeof(unsigned long long), s))) return e;
    if (p.es == 1) k_decode<1><<<scz_ku::persistent_grid((const void *)k_decode<1>, NTD), NTD, 0, s>>>(p);
    else if (p.es == 2) k_decode<2><<<scz_ku::persistent_grid((const void *)k_decode<2>, NTD), NTD, 0, s>>>(p);
    else {
        k_decode<4><<<scz_ku::persistent_grid((const void *)k_decode<4>, NTD), NTD, 0, s>>>(p);
        k_desc<<<b->n, NT, 0, s>>>(p);
        k_dmap<<<scz_ku::persistent_grid((const void *)k_dmap, NTD), NTD, 0, s>>>(p);
    }
    return cudaGetLastError();
}

static cudaError_t huf_cuda_probe(void) {
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k_decode<2>);
    if (!e) e = cudaFuncGetAttributes(&a, k_ebook);
    return e;
}

static const char *huf_cuda_error_text(unsigned code) {
    switch (code) {
    case HUF_ERR_HEADER: return "huffman chunk header is invalid (mode, element size, reserved bytes or codec_info)";
    case HUF_ERR_STORED: return "stored huffman chunk has the wrong size";
    case HUF_ERR_DICT: return "huffman chunk: bad dictionary or escape count, or dictionary not strictly ascending";
    case HUF_ERR_STREAM: return "Huffman stream header is inconsistent (alphabet, count, bits or size)";
    case HUF_ERR_CODEBOOK: return "Huffman codebook is malformed or not a prefix code";
    case HUF_ERR_PADDING: return "Huffman stream: non-zero padding";
    case HUF_ERR_BITS: return "Huffman bitstream is corrupt (gap, segment entry or codeword)";
    case HUF_ERR_TAIL: return "huffman chunk: trailing bytes or escape list size mismatch";
    case HUF_ERR_ESC: return "huffman chunk: escape symbols and escape list disagree";
    case HUF_ERR_LONG:
        return "Huffman codebook with more codes longer than 11 bits than the chunk has elements (no writer "
               "produces this; not decoded on the GPU)";
    }
    return NULL;
}

/* Listed in src/cuda/codecs_cuda.cu. */
extern const scz_cuda_codec_ops scz__huffman_cuda_ops = {
    SCZ_CODEC_HUFFMAN, huf_cuda_check, huf_cuda_scratch, huf_cuda_encode,
    huf_cuda_decode,   huf_cuda_probe, huf_cuda_error_text, nullptr, nullptr,
    0, /* checksums before the decoder */
    nullptr, 0,
};

/* ---- stream sets: bare Huffman streams for other codecs (huffman_enc_cuda.h) ---- */

size_t scz__hse_scratch(uint32_t n, uint64_t cap, uint32_t K) { return hse_layout(n, cap, K).state; }
size_t scz__hse_work(uint32_t n, uint64_t cap) { return hse_layout(n, cap, 1).work; }

uint64_t scz__hse_bound(uint64_t cap, uint32_t K) {
    const uint64_t bits = cap * LMAX, units = (bits + U - 1) / U, segs = (units + G - 1) / G;
    return SCZ_HUFF_HDR_BYTES + 4ull * K + 8 + (units + 1) / 2 + 4 * segs + 4 * ((bits + 31) / 32);
}

uint32_t *scz__hse_hist(const scz_hse *h, void *state, uint32_t *stride) {
    const ELayout L = hse_layout(h->n, h->cap, h->K);
    EParams p;
    void *cubtmp;
    hse_params(h, state, nullptr, L, &p, &cubtmp);
    *stride = L.Kcap;
    return p.hist;
}

cudaError_t scz__hse_plan(const scz_hse *h, void *state, void *work, uint64_t *d_size, uint64_t *d_bits,
                          cudaStream_t s) {
    const ELayout L = hse_layout(h->n, h->cap, h->K);
    EParams p;
    void *cubtmp;
    hse_params(h, state, work, L, &p, &cubtmp);
    cudaError_t e;
    if ((e = ebook_attr(p.dynbytes))) return e;
    if ((e = cudaFuncSetAttribute(k_ehist16, cudaFuncAttributeMaxDynamicSharedMemorySize, 131072))) return e;
    if ((e = e_plan(p, L, cubtmp, s))) return e;
    return scz_ku::launch_pdl(k_hse_size, (h->n + NT - 1) / NT, NT, 0, s, p, d_size, d_bits);
}

cudaError_t scz__hse_write(const scz_hse *h, void *state, void *work, const uint64_t *d_off, uint8_t *out,
                           cudaStream_t s) {
    const ELayout L = hse_layout(h->n, h->cap, h->K);
    EParams p;
    void *cubtmp;
    hse_params(h, state, work, L, &p, &cubtmp);
    p.woff = d_off;
    p.pay = out;
    if (L.es != 4) p.tlim = p.ticket + 1; /* k_eenc<true> (e_write) */
    cudaError_t e;
    if ((e = scz_ku::launch_pdl(k_hse_place, (h->n + NT - 1) / NT, NT, 0, s, p))) return e;
    return e_write(p, L, scz__hse_bound(L.count_full, h->K ? h->K : 65536), s);
}

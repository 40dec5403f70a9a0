/*
 * lossy_dec.cu -- decompression of the lossy codec (FORMAT.md 7.5-7.8) on
 * the GPU: byte-identical to the CPU decoder (lossy.c lz_decompress), and
 * every payload the CPU rejects is reported (scz_cuda_report), never read
 * or written out of bounds.
 *
 * One launch per step over all chunks of a batch:
 *   k_prep   one block per chunk: payload header (workflow, reserved bytes,
 *            coding rank, block shape, counts, section sizes), the Huffman
 *            stream(s) located (hs_size); item counts of the later steps;
 *   k_books  one block per stream: parsed and its decoding tables built
 *            (hs_parse_build); a level-0 Huffman stream whose codes lie
 *            in a window of 252 around r but for few escapes gets tables
 *            of bytes (narrow_tables); the chunk's tile counts and done
 *            bits zeroed, a slice a block (no memsets between these
 *            programmatic launches);
 *   k_items  one block: item offsets per chunk for each step (scans);
 *   k_huff   persistent blocks of 3 warps taking items of 3 segments from
 *            a counter, two launches (wide, narrow): stored chunks are
 *            copied; Huffman segments are decoded one per warp
 *            (hs_decode_segment): the codes into scratch (u16, or a byte
 *            each for narrow chunks, escapes also as u16), or,
 *            run-length, the run codes and lengths into the chunk's output
 *            bytes (4 bytes per run <= raw bytes);
 *   k_rsum / k_rscan / k_rexp   run-length: sums of the lengths per tile of
 *            4096 runs (and the rule on equal neighbours), their scan per
 *            chunk (total = N), then the runs expanded into the codes
 *            (with k_rlong and k_ctile, launched only where the chunk
 *            table has a run-length chunk: scz_cuda_batch.infos);
 *   k_ctile / k_cscan   per tile of 4096 codes: outliers (code 0), new
 *            verbatim values (code 2r), last outlier position (counted by
 *            k_huff as it writes the codes of Huffman chunks, by k_ctile
 *            for run-length chunks); scans per chunk, totals against
 *            n_out / n_verb;
 *   k_btile / k_bscan / k_bckpt   outlier list: varint terminators per
 *            tile of 4096 bytes (and the varint rules: shortest form, at
 *            most 10 bytes), their scan (total = 2 n_out), then the byte
 *            offset of every 32nd pair (checkpoints);
 *   k_rfast  persistent blocks: whole blocks of the writer's shapes with
 *            no outlier or verbatim code (recon_fast, int32 partial sums);
 *   k_recon  persistent blocks, one lossy block at a time in shared memory:
 *            outlier / verbatim ordinals (block scan from the tile
 *            prefixes), the block's outlier pairs parsed from the nearest
 *            checkpoint and checked against the code-0 positions, partial
 *            sums along x, y, z (mod 2^64), x' = T(double(Q) * h), verbatim
 *            values, written in array order.
 * A chunk found inconsistent by a step is flagged (bad[]) and skipped by
 * the later steps.
 *
 * Level 1 (FORMAT.md 7.9; normative with lossy.c lz_decompress and
 * lossy_interp.h interp_decode): k_head1 reads the 32-byte headers, builds
 * the sweep table of interpolated chunks (lossy_interp_hd.h, shared with
 * the CPU) and locates the back end's byte stream, which k_bhuff decodes
 * into body scratch; k_prep and k_books then take the body as above (up to
 * g + 1 sweep streams per chunk), Lorenzo chunks go through k_recon with
 * their own radius, and interpolated chunks through k_ires (outlier and
 * verbatim ordinals over traversal positions; tiles without either
 * skipped), the leading small sweeps in one launch (k_coarse), one k_sweep
 * launch per further sweep index, and for chunks of rank 3 the finest level
 * by rows (k_rows for class 0, walks along the class axis for classes 1
 * and 2, k_rwalk; three launches), the level of stride 2 the same way
 * before it where e0 is divisible by 4 (docs/GPU.md "Level 1").
 */
#include "../util/ieee.h" /* first: the host side of lossy_interp_hd.h seals its operations */

#include "lossy_cuda.h"
#include "lossy_interp_hd.h"
#include "lossy_sweep_cuda.h"
#include "../cuda/prof.h"

#include "../entropy/huffman_cuda.h"

#include <cub/cub.cuh>

#include <type_traits>

using namespace scz_hd;

/* Level-0 Huffman chunks decoded with wide [0] and narrow [1] tables
 * since the program started, for the tests (lossy_debug.h). */
__device__ unsigned long long g_huff_chunks[2];

namespace {

enum {
    LZE_HEADER = SCZ_CUDA_ERR_CODEC,
    LZE_STORED,
    LZE_SHAPE,
    LZE_COUNTS,
    LZE_STREAM,
    LZE_CODEBOOK,
    LZE_PADDING,
    LZE_BITS,
    LZE_LONG,
    LZE_RUNS,
    LZE_SECTIONS,
    LZE_OLIST,
    LZE_OUTLIER,
    LZE_VERB,
    LZE_L1HEAD,
    LZE_BACKEND,
    LZE_LIMIT,
};

constexpr uint32_t NT = 256;          /* threads per block */
constexpr uint32_t DW = NT / 32;      /* segments per decoding item (k_bhuff) */
/* k_huff: blocks of HW warps taking items of HW segments (or 8 KiB x HW of
 * a stored chunk) from a counter (huffman_cuda.h, HS_WARPS), each block with
 * its own decoding tables and a stream's long-code symbols in shared memory
 * where there are at most HS_LONGS. */
constexpr uint32_t HW = HS_WARPS;
constexpr uint32_t NTH = 32 * HW;
constexpr uint64_t HPIECE = 8192 * HW; /* bytes of a stored chunk per k_huff item */
/* k_huff's blocks per SM: 12 (56 registers) spill nothing; 13 (48) spilled
 * 24-40 bytes a thread, and the narrow decoder's spills were in its loops
 * (H100, wmag REL 1e-3 decompression 490 -> 524 GB/s at 12). */
constexpr uint32_t KH_BLOCKS = 12;
constexpr uint32_t CT = 4096;         /* codes per code tile */
constexpr uint32_t RT = 4096;         /* runs per run tile */
constexpr uint32_t LONG_RUN = 64;     /* runs this long are expanded by k_rlong, not by their tile's block */
constexpr uint32_t BT = 4096;         /* outlier-list bytes per byte tile */
constexpr uint32_t PER = 16;          /* items per thread in these tiles */
constexpr uint32_t KI_BLOCKS = 4;    /* k_ires: blocks per SM (64 registers; 78 without a bound) */
constexpr uint32_t CK = 32;           /* outlier pairs per checkpoint */
constexpr uint32_t MAXB = 4096;       /* elements of a lossy block, at most */
constexpr uint64_t MAX_PAIR = 20;     /* bytes of an outlier pair, at most */
static_assert(CT == NT * PER && RT == NT * PER && BT == NT * PER && MAXB == NT * PER, "tiles");
/* Huffman streams per chunk: level 0 one (codes) or two (run codes and
 * lengths); level 1 up to LZ1_GMAX + 1 (sweep streams) and, in slot SB,
 * the back end's stream of the body's bytes. */
constexpr uint32_t NS = LZ1_GMAX + 2;
constexpr uint32_t SB = NS - 1;
constexpr uint32_t M_PENDING = 4; /* level 1: header read, body not parsed yet */

using scz_ku::Bump;
using scz_ku::copy_bytes;
using scz_ku::rup;

/* Per chunk. */
struct LMeta {
    Stream S[NS];               /* codes (Huffman; level 1: one per sweep stream) or run codes, run lengths; SB: back end */
    const uint8_t *pay, *olist, *vvals;
    const uint8_t *body;        /* what follows the payload header (level 1: maybe the back end's output) */
    uint64_t size, obytes, nblocks, blen;
    uint64_t items[5];          /* k_huff items, run tiles, byte tiles, blocks, back-end items */
    uint32_t soff[NS];          /* code index of the first symbol of code stream s */
    uint32_t mode;              /* 0 stored, 1 Huffman, 2 run-length, 3 nothing (error), 4 pending (level 1) */
    uint32_t N, n_out, n_verb, nruns;
    uint32_t e[3], lb[3], nb[3];
    uint32_t r;                 /* radius (level 1: the chunk's) */
    uint32_t wf, pred, order, tight, gs, be, nstr, nsw;
    /* narrow codes (level 0, Huffman workflow; k_books, narrow_tables): the
     * chunk's codes go to scratch as bytes (codes8) */
    uint32_t narrow, lo;
};

enum { IT_HUFF = 0, IT_RUN, IT_BYTE, IT_BLOCK, IT_BE, IT_KINDS };

using scz_l1::Sweep;

struct Params {
    const uint8_t *pay;
    const uint64_t *choff, *chsize, *chinfo;
    uint8_t *dst;
    unsigned long long *err;
    LMeta *meta;
    uint32_t *bad;              /* n */
    uint64_t *ib;               /* 4 x (n + 1) item offsets */
    uint32_t *tables;           /* n x nsl x TABLE */
    uint8_t *ctabs;             /* n x nsl x TABLE: their count tables (hs_build_ctab) */
    uint16_t *longs;            /* n x nsl x long_cap */
    uint16_t *codes;            /* n x count_full (a narrow chunk: its escaped codes only) */
    uint8_t *codes8;            /* level 0: n x count_full, the codes of narrow chunks (narrow_tables) */
    uint32_t *ct0, *ctv, *ctl;  /* n x tpc: outliers, new verbatim, last outlier + 1 (then scanned) */
    uint32_t *cvr;              /* level 1: n x tpc, nonzero where the tile has a repeat-verbatim code (k_ires) */
    uint64_t *rsum;             /* n x tpc: run tile sums, then exclusive prefixes */
    uint64_t *bsum;             /* n x btpc: terminators per byte tile, then prefixes */
    uint64_t *ckpt;             /* n x ckpc: byte offset of pair k * CK */
    uint32_t *done;             /* n x dpc: bit b of a chunk's words = block b written by k_rfast */
    uint8_t *bodies;            /* level 1: n x bodycap, the back end's output */
    double *Rv;                 /* level 1: n x count_full: an outlier's error (bits), a verbatim element's R */
    uint32_t *vbits;            /* level 1: n x vbw words: the verbatim elements (bit i: element i) */
    Sweep *sw;                  /* level 1: n x swn */
    scz_chunk_geom gfull, glast;
    uint64_t count_full, count_last, raw_full, bodycap;
    double h;                   /* 2 eb_abs */
    uint32_t n, c0, es, r, long_cap, tpc, btpc, ckpc, dpc;
    uint32_t level, nsl, swn;   /* knobs[2]; stream slots per chunk; sweep entries per chunk */
    uint32_t vbw;               /* words of vbits per chunk */
    unsigned long long *hctr;   /* k_huff<false>'s and k_huff<true>'s next items, then the long runs' count (zeroed before them) */
    uint4 *lrun;                /* the long runs (k_rexp): chunk, first position, length, code */
    uint64_t lcap;              /* entries of lrun */
};

struct Layout {
    size_t meta, bad, ib, tables, ctabs, longs, codes, codes8, ct0, ctv, ctl, cvr, rsum, bsum, ckpt, done, hctr, lrun, bodies, Rv, vbits, sw, total;
    uint64_t lcap;
    uint32_t long_cap, tpc, btpc, ckpc, dpc, nsl, swn, vbw;
    uint64_t bodycap;
};

/* Coding extents of a chunk (lossy.c geo_extents): dims of extent 1 dropped. */
__host__ __device__ inline uint32_t coding_extents(const scz_chunk_geom &g, uint64_t *ex) {
    uint32_t rank = 0;
    ex[0] = ex[1] = ex[2] = 1;
    for (uint32_t d = 0; d < g.rank && d < 3; d++)
        if (g.dims[d] != 1) ex[rank++] = g.dims[d];
    return rank ? rank : 1;
}

/* Sweep entries of a level-1 chunk of geometry g: element 0 and Sw sweeps. */
uint32_t sweep_entries(const scz_chunk_geom &g) {
    uint64_t ex[3];
    const uint32_t rank = coding_extents(g, ex);
    return lz1_nsweeps(rank, ex) + 1;
}

Layout layout(const scz_cuda_batch *b) {
    Layout L;
    const uint64_t n = b->n, cf = b->full.count;
    const bool l1 = b->h->knobs[2] != 0;
    L.long_cap = (uint32_t)(cf < 65536 ? cf : 65536);
    if (l1 && L.long_cap < 256) L.long_cap = 256; /* the back end's K */
    L.tpc = (uint32_t)((cf + CT - 1) / CT);
    L.btpc = (uint32_t)((cf * MAX_PAIR + BT - 1) / BT);
    L.ckpc = (uint32_t)(cf / CK + 2);
    L.dpc = (uint32_t)((cf + 31) / 32); /* a block holds at least one element */
    L.nsl = l1 ? NS : 2;
    /* a level-1 body: at most 2 bytes of codes and 13 of an outlier pair
     * (or 4 of a run) per element, its verbatim value, the streams'
     * tables and codebooks: within 4.5 x raw + 1 MiB for every writer */
    L.bodycap = l1 ? rup(b->raw_full * 9 / 2 + (1u << 20), 256) : 0;
    if (l1) {
        const uint32_t a = sweep_entries(b->full), z = sweep_entries(b->last);
        L.swn = a > z ? a : z;
    } else {
        L.swn = 0;
    }
    Bump B{nullptr, 0};
    L.meta = B.o, B.take<LMeta>(n);
    L.bad = B.o, B.take<uint32_t>(n);
    L.ib = B.o, B.take<uint64_t>(IT_KINDS * (n + 1));
    L.tables = B.o, B.take<uint32_t>(n * L.nsl * TABLE);
    L.ctabs = B.o, B.take<uint8_t>(n * L.nsl * TABLE);
    L.longs = B.o, B.take<uint16_t>(n * L.nsl * L.long_cap + 1);
    L.codes = B.o, B.take<uint16_t>(n * cf + 8);
    L.codes8 = B.o, B.take<uint8_t>(l1 ? 0 : n * cf + 16);
    L.ct0 = B.o, B.take<uint32_t>(n * L.tpc);
    L.ctv = B.o, B.take<uint32_t>(n * L.tpc);
    L.ctl = B.o, B.take<uint32_t>(n * L.tpc);
    L.cvr = B.o, B.take<uint32_t>(l1 ? n * L.tpc : 0);
    L.rsum = B.o, B.take<uint64_t>(n * L.tpc);
    L.bsum = B.o, B.take<uint64_t>(n * (uint64_t)L.btpc);
    L.ckpt = B.o, B.take<uint64_t>(n * (uint64_t)L.ckpc);
    L.done = B.o, B.take<uint32_t>(n * (uint64_t)L.dpc);
    L.hctr = B.o, B.take<unsigned long long>(3);
    L.lcap = n * (cf / LONG_RUN + 1); /* a chunk has at most count / LONG_RUN runs of LONG_RUN or more */
    L.lrun = B.o, B.take<uint4>(L.lcap);
    L.bodies = B.o, B.take<uint8_t>(n * L.bodycap);
    L.vbw = (uint32_t)((cf + 31) / 32);
    L.Rv = B.o, B.take<double>(l1 ? n * cf : 0);
    L.vbits = B.o, B.take<uint32_t>(l1 ? n * L.vbw : 0);
    L.sw = B.o, B.take<Sweep>(n * (uint64_t)L.swn);
    L.total = B.o;
    return L;
}

__device__ __forceinline__ uint32_t chunk_count(const Params &p, uint32_t c) {
    return (uint32_t)(c + 1 == p.n ? p.count_last : p.count_full);
}

__device__ __forceinline__ void fail(const Params &p, uint32_t c, unsigned code) {
    scz_cuda_report(p.err, p.c0 + c, code);
    p.bad[c] = 1;
}

/* Chunk of item it of kind k (last c with ib[c] <= it). */
__device__ __forceinline__ uint32_t item_chunk(const uint64_t *ib, uint32_t n, uint64_t it) {
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (ib[mid] <= it) lo = mid;
        else hi = mid;
    }
    return lo;
}

__device__ unsigned map_hs(int r) {
    switch (r) {
    case HS_ERR_STREAM: return LZE_STREAM;
    case HS_ERR_CODEBOOK: return LZE_CODEBOOK;
    case HS_ERR_PADDING: return LZE_PADDING;
    case HS_ERR_BITSTREAM: return LZE_BITS;
    case HS_ERR_LONG: return LZE_LONG;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* k_prep                                                              */
/* ------------------------------------------------------------------ */

/* Empty metadata of chunk c: nothing to do until a step fills it in. */
__device__ void meta_init(const Params &p, uint32_t c, LMeta &M) {
    const uint8_t *P = p.pay + p.choff[c];
    M.pay = P;
    M.size = p.chsize[c];
    M.mode = 3;
    M.N = chunk_count(p, c);
    M.n_out = M.n_verb = M.nruns = 0;
    M.obytes = M.nblocks = M.blen = 0;
    M.olist = M.vvals = M.body = P;
    for (int k = 0; k < IT_KINDS; k++) M.items[k] = 0;
    for (int k = 0; k < 3; k++) M.e[k] = 1, M.lb[k] = 0, M.nb[k] = 1;
    for (uint32_t s = 0; s < NS; s++) M.S[s].n_segs = 0, M.S[s].count = 0, M.soff[s] = 0;
    M.r = p.r;
    M.wf = M.pred = M.order = M.tight = M.gs = M.be = M.nstr = M.nsw = 0;
    M.narrow = 0, M.lo = 1;
}

/* Header of a stored chunk (7.5, both levels): 24 bytes, all 0 but the
 * workflow, then the raw bytes. */
__device__ unsigned stored_head(const Params &p, LMeta &M) {
    const uint8_t *P = M.pay;
    if (P[1] || P[2] || P[3] || P[4] || P[5] || P[6] || P[7] || ldb32(P + 8) || ldb32(P + 12) || ldb64(P + 16) ||
        M.size != LZ_HDR + (uint64_t)M.N * p.es)
        return LZE_STORED;
    M.mode = 0;
    M.items[IT_HUFF] = ((uint64_t)M.N * p.es + HPIECE - 1) / HPIECE;
    return 0;
}

/* Coding rank and extents, block shape (lossy.c geo_extents, geo_blocks;
 * 7.7 for Lorenzo, all 0 for interpolation). */
__device__ unsigned shape_head(const Params &p, uint32_t c, LMeta &M, bool interp) {
    const scz_chunk_geom &g = c + 1 == p.n ? p.glast : p.gfull;
    uint64_t ex[3];
    const uint32_t rank = coding_extents(g, ex);
    const uint8_t *P = M.pay;
    if (P[1] != rank) return LZE_SHAPE;
    uint32_t lsum = 0;
    for (uint32_t d = 0; d < 3; d++) {
        const uint32_t lb = P[2 + d];
        if (interp ? lb != 0 : d < rank ? (lb < 1 || lb > LZ_MAX_BLOCK_LOG2) : lb != 0) return LZE_SHAPE;
        lsum += lb;
    }
    if (lsum > LZ_MAX_BLOCK_LOG2) return LZE_SHAPE;
    uint64_t nbl = 1;
    for (int d = 0; d < 3; d++) {
        M.e[d] = (uint32_t)ex[d];
        M.lb[d] = P[2 + d];
        M.nb[d] = (uint32_t)((ex[d] + (1u << M.lb[d]) - 1) >> M.lb[d]);
        nbl *= M.nb[d];
    }
    M.nblocks = M.N ? nbl : 0;
    M.nsw = rank; /* the rank, until the sweeps are counted */
    return 0;
}

/* Stream s of a body at P[0..avail) holding count symbols of K: located
 * from its header (hs_size); k_books parses it (hs_parse_build) and builds
 * its tables. Here S.cb is the stream's start and S.bytes its size. */
__device__ int locate_stream(LMeta &M, uint32_t s, const uint8_t *P, uint64_t avail, uint32_t K, uint64_t count) {
    Stream &S = M.S[s];
    const int hr = hs_size(P, avail, K, count, &S.bytes, &S.n_segs);
    S.cb = P;
    S.K = K;
    S.count = (uint32_t)count;
    return hr;
}

/* The body (7.7 from byte 24; 7.9 for level 1) of a chunk whose header
 * M holds: counts, the workflow's Huffman streams (one; the sweep streams;
 * or the run count and the two run streams) located, section sizes. */
__device__ unsigned body_parse(const Params &p, uint32_t c, LMeta &M) {
    const uint8_t *P = M.body;
    const uint64_t size = M.blen, N = M.N;
    const uint32_t K = 2 * M.r + 2;
    if (M.n_out > N || M.n_verb > N || M.obytes > size || (uint64_t)M.n_out * 2 > M.obytes) return LZE_COUNTS;
    uint64_t pos = 0;
    int hr = 0;
    if (M.wf == LZ_WF_HUFFMAN) {
        /* sweep streams (7.9): codes [0, p_(Sw-g)), then each of the last g sweeps */
        const uint32_t ns = M.gs + 1;
        const Sweep *W = p.sw + (size_t)c * p.swn;
        uint32_t a = 0;
        for (uint32_t s = 0; s < ns && !hr; s++) {
            const uint32_t b = M.gs == 0 || s == M.gs ? (uint32_t)N : W[M.nsw - M.gs + s + 1].p0;
            hr = locate_stream(M, s, P + pos, size - pos, K, b - a);
            if (!hr) pos += M.S[s].bytes;
            M.soff[s] = a;
            a = b;
        }
        M.nstr = ns;
    } else {
        if (size - pos < 4) return LZE_RUNS;
        const uint32_t nruns = ldb32(P + pos);
        if (nruns < 1 || nruns > N) return LZE_RUNS;
        pos += 4;
        M.nruns = nruns;
        hr = locate_stream(M, 0, P + pos, size - pos, K, nruns);
        if (!hr) pos += M.S[0].bytes;
        if (!hr) hr = locate_stream(M, 1, P + pos, size - pos, 65536, nruns);
        if (!hr) pos += M.S[1].bytes;
        M.nstr = 2;
    }
    if (hr) return map_hs(hr);
    if (M.obytes > size - pos || size - pos - M.obytes != (uint64_t)M.n_verb * p.es) return LZE_SECTIONS;
    /* n_out pairs of at most 20 bytes: a longer list has trailing bytes */
    if (M.obytes > MAX_PAIR * M.n_out) return LZE_OLIST;
    M.mode = M.wf;
    M.olist = P + pos;
    M.vvals = P + pos + M.obytes;
    uint64_t hi = 0;
    for (uint32_t s = 0; s < M.nstr; s++) hi += (M.S[s].n_segs + HW - 1) / HW;
    M.items[IT_HUFF] = hi;
    M.items[IT_RUN] = M.wf == LZ_WF_RLE ? (M.nruns + RT - 1) / RT : 0;
    M.items[IT_BYTE] = (M.obytes + BT - 1) / BT;
    M.items[IT_BLOCK] = M.pred == LZ_PRED_LORENZO ? M.nblocks : 0;
    return 0;
}

/* Level 1 (7.9): the 32-byte header, the sweeps of an interpolated chunk,
 * and the back end's Huffman stream (its tables; k_bhuff decodes it into
 * the chunk's body scratch). One block per chunk. */
__global__ void __launch_bounds__(NT) k_head1(Params p) {
    __shared__ LMeta M;
    __shared__ Run runs[NT];
    __shared__ uint32_t sh[LMAX + 8];
    __shared__ uint32_t srank;
    const uint32_t c = blockIdx.x, tid = threadIdx.x;
    if (tid == 0) {
        meta_init(p, c, M);
        const uint8_t *P = M.pay;
        const uint64_t size = M.size;
        const uint32_t info = (uint32_t)p.chinfo[c];
        unsigned e = 0;
        if (size < LZ_HDR) e = LZE_HEADER;
        const uint32_t wf = e ? 0 : P[0];
        if (!e && (wf != info || wf > LZ_WF_RLE)) e = LZE_HEADER;
        if (!e && wf == LZ_WF_STORED) {
            e = stored_head(p, M);
        } else if (!e) {
            if (size < LZ1_HDR) e = LZE_HEADER;
            if (!e) {
                M.wf = wf;
                M.pred = P[5];
                M.be = P[6];
                M.order = P[7];
                M.r = ldb32(P + 24);
                M.gs = P[28];
                M.tight = P[29];
                M.n_out = ldb32(P + 8);
                M.n_verb = ldb32(P + 12);
                M.obytes = ldb64(P + 16);
                const bool ip = M.pred != LZ_PRED_LORENZO;
                if (M.pred > LZ_PRED_CUBIC || M.be > LZ_BE_HUFF || M.order >= (ip ? LZ1_MAX_ORDERS : 1) ||
                    M.tight > (ip ? 1u : 0u) || P[30] || P[31] || (M.gs && (!ip || wf != LZ_WF_HUFFMAN)))
                    e = LZE_L1HEAD;
                if (!e && (M.r < 1 || M.r > p.r)) e = LZE_L1HEAD;
                if (!e) e = shape_head(p, c, M, ip);
                const uint32_t rank = M.nsw;
                M.nsw = 0;
                if (!e && M.order >= lz1_norders(rank)) e = LZE_L1HEAD;
                if (!e && ip) {
                    /* the number of sweeps; their table by warp 0 below */
                    const uint64_t ex[3] = {M.e[0], M.e[1], M.e[2]};
                    const uint32_t S = lz1_nsweeps(rank, ex);
                    srank = rank;
                    if (S + 1 > p.swn) e = LZE_LIMIT; /* cannot happen: the host counted them alike */
                    M.nsw = S;
                    if (!e && M.gs > S) e = LZE_L1HEAD;
                    if (!e && M.gs > LZ1_GMAX) e = LZE_LIMIT; /* no writer makes more (7.10) */
                }
                const uint64_t blen = size - LZ1_HDR;
                if (!e && M.be == LZ_BE_HUFF) {
                    /* the body's bytes as a Huffman stream (K = 256), at most 8 symbols per byte */
                    if (blen < SCZ_HUFF_HDR_BYTES) e = LZE_BACKEND;
                    const uint64_t B = e ? 0 : ldb32(P + LZ1_HDR + 4);
                    if (!e && (B < 1 || B > 8 * blen)) e = LZE_BACKEND;
                    if (!e && B > p.bodycap) e = LZE_LIMIT;
                    if (!e) {
                        const int hr = hs_parse(P + LZ1_HDR, blen, 256, B, p.long_cap, &M.S[SB]);
                        if (hr) e = map_hs(hr);
                        else if (M.S[SB].bytes != blen) e = LZE_BACKEND;
                    }
                    M.body = p.bodies + (uint64_t)c * p.bodycap;
                    M.blen = B;
                    M.items[IT_BE] = (M.S[SB].n_segs + DW - 1) / DW;
                } else {
                    M.body = P + LZ1_HDR;
                    M.blen = blen;
                }
                if (!e) M.mode = M_PENDING;
            }
        }
        if (e) {
            scz_cuda_report(p.err, p.c0 + c, e);
            M.mode = 3;
            for (int k = 0; k < IT_KINDS; k++) M.items[k] = 0;
        }
        p.bad[c] = e ? 1u : 0u;
        p.ckpt[(uint64_t)c * p.ckpc] = 0;
    }
    __syncthreads();
    if (M.mode == M_PENDING && M.pred != LZ_PRED_LORENZO && tid < 32) {
        /* the sweeps (lossy_sweep_cuda.h, as lossy.c lz_sweep_starts), read by later launches */
        const uint64_t ex[3] = {M.e[0], M.e[1], M.e[2]};
        scz_l1::sweep_table_warp(p.sw + (size_t)c * p.swn, p.swn, srank, ex, M.order, (int)M.tight, p.h);
    }
    if (M.mode == M_PENDING && M.be == LZ_BE_HUFF) {
        const size_t key = (size_t)c * p.nsl + SB;
        hs_build<NT>(M.S[SB], M.S[SB].cb, p.tables + key * TABLE, p.longs + key * p.long_cap, runs, sh);
        hs_build_ctab(p.tables + key * TABLE, p.ctabs + key * TABLE, tid, NT); /* hs_build ends with a barrier */
    }
    const uint32_t *s32 = reinterpret_cast<const uint32_t *>(&M);
    uint32_t *d32 = reinterpret_cast<uint32_t *>(p.meta + c);
    for (uint32_t i = tid; i < sizeof(LMeta) / 4; i += NT) d32[i] = s32[i];
}

/* Payload header (level 0; level 1: what k_head1 left) and body of each
 * chunk, its Huffman streams located (k_books parses them). One block per
 * chunk. */
__global__ void __launch_bounds__(NT) k_prep(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ LMeta M;
    const uint32_t c = blockIdx.x, tid = threadIdx.x;
    if (p.level) { /* k_head1's meta (kB: by the block, not one thread's loads) */
        const uint32_t *s32 = reinterpret_cast<const uint32_t *>(p.meta + c);
        uint32_t *d32 = reinterpret_cast<uint32_t *>(&M);
        for (uint32_t i = tid; i < sizeof(LMeta) / 4; i += NT) d32[i] = s32[i];
        __syncthreads();
    }
    if (tid == 0) {
        unsigned e = 0;
        bool body = false;
        if (p.level) {
            if (M.mode == M_PENDING) {
                if (p.bad[c]) { /* the back end's stream (k_bhuff reported it) */
                    M.mode = 3;
                    for (int k = 0; k < IT_KINDS; k++) M.items[k] = 0;
                } else {
                    body = true;
                }
            }
        } else {
            meta_init(p, c, M);
            const uint8_t *P = M.pay;
            const uint32_t info = (uint32_t)p.chinfo[c];
            if (M.size < LZ_HDR) e = LZE_HEADER;
            const uint32_t wf = e ? 0 : P[0];
            if (!e && (wf != info || wf > LZ_WF_RLE || P[5] || P[6] || P[7])) e = LZE_HEADER;
            if (!e && wf == LZ_WF_STORED) {
                e = stored_head(p, M);
            } else if (!e) {
                e = shape_head(p, c, M, false);
                M.nsw = 0;
                M.wf = wf;
                M.n_out = ldb32(P + 8);
                M.n_verb = ldb32(P + 12);
                M.obytes = ldb64(P + 16);
                M.body = P + LZ_HDR;
                M.blen = M.size - LZ_HDR;
                body = !e;
            }
        }
        if (body) e = body_parse(p, c, M);
        if (e) {
            scz_cuda_report(p.err, p.c0 + c, e);
            M.mode = 3;
            for (int k = 0; k < IT_KINDS; k++) M.items[k] = 0;
            p.bad[c] = 1u;
        } else if (!p.level) {
            p.bad[c] = 0u;
        }
        if (!p.level) p.ckpt[(uint64_t)c * p.ckpc] = 0;
    }
    __syncthreads();
    const uint32_t *s32 = reinterpret_cast<const uint32_t *>(&M);
    uint32_t *d32 = reinterpret_cast<uint32_t *>(p.meta + c);
    for (uint32_t i = tid; i < sizeof(LMeta) / 4; i += NT) d32[i] = s32[i];
}

/* Narrow codes (LMeta.narrow). A chunk's codes are written to codes8 as
 * bytes: v = code - lo + 1 for the codes lo .. lo + NW - 1 (v = 1 .. NW),
 * 0 for code 0 (an outlier), NV_NEW / NV_REP for the verbatim codes 2r /
 * 2r + 1, and NV_ESC for any other code (an escape), whose value k_huff
 * writes to the wide array (codes) at the same index. Half the scratch
 * traffic of the wide codes in k_huff's writes and k_rfast's reads. */
constexpr uint32_t NW = 252, NV_NEW = 253, NV_REP = 254, NV_ESC = 255;

__device__ __forceinline__ uint32_t wide_code(uint32_t v, uint32_t lo, uint32_t vnew) {
    return v == 0 ? 0u : v <= NW ? v + lo - 1u : vnew + (v - NV_NEW);
}

/* The codes of a chunk in scratch, wide or narrow: the code at index i. */
struct CodeView {
    const uint16_t *w;
    const uint8_t *n; /* narrow: non-null */
    uint32_t lo, vnew;
    __device__ __forceinline__ uint32_t operator[](uint64_t i) const {
        if (!n) return w[i];
        const uint32_t v = n[i];
        return v == NV_ESC ? (uint32_t)w[i] : wide_code(v, lo, vnew);
    }
};
__device__ __forceinline__ CodeView chunk_codes(const Params &p, const LMeta &M, uint32_t c) {
    return CodeView{p.codes + (size_t)c * p.count_full, M.narrow ? p.codes8 + (size_t)c * p.count_full : nullptr,
                    M.lo, 2 * M.r};
}

/* Makes a level-0 Huffman stream narrow where it pays: its codes other
 * than 0, 2r and 2r + 1 outside the window lo .. lo + NW - 1 (lo = r -
 * 125: the prediction's centre; the corners of the blocks, predicted from
 * 0, and the like are escapes) take at most 1/256 of the code space (the
 * sum of 2^-length; about their share of the codes: each costs k_huff a
 * divergent store and k_rfast a load). The stream's
 * primary table and long-code symbols (global, written by this block)
 * then hold the byte v for each symbol, and code + 256 for an escape
 * (hs_decode_segment writes 255 and gives it to CntSink::wide); M.narrow
 * and M.lo say so. Every thread calls it, after a barrier; sh: two words
 * of shared memory. */
__device__ void narrow_tables(const Params &p, LMeta &M, const Stream &S, size_t key, uint32_t *sh) {
    static_assert(TABLE % (4 * NT) == 0, "the table by uint4, whole rounds");
    constexpr uint32_t TR = TABLE / (4 * NT); /* uint4 of the table per thread */
    const uint32_t tid = threadIdx.x, r = M.r, vnew = 2 * r, nl = S.n_long;
    const uint32_t lo = r > 125 ? r - 125 : 1u;
    if (vnew + 2 + 256 > 65536) return; /* escapes must fit 16 bits (block-uniform) */
    uint4 *tab = reinterpret_cast<uint4 *>(p.tables + key * TABLE);
    uint16_t *lg = p.longs + key * p.long_cap;
    auto esc = [&](uint32_t x) { return x != 0 && x < vnew && (x < lo || x - lo >= NW); };
    /* the table's entries in registers (all loads in flight at once) */
    uint4 t[TR];
#pragma unroll
    for (uint32_t k = 0; k < TR; k++) t[k] = tab[k * NT + tid];
    __syncthreads(); /* sh free */
    if (tid == 0) sh[0] = 0;
    __syncthreads();
    /* the escapes' share of the code space, in units of 2^-LMAX */
    uint32_t wt = 0;
#pragma unroll
    for (uint32_t k = 0; k < TR; k++) {
        const uint32_t e[4] = {t[k].x, t[k].y, t[k].z, t[k].w};
#pragma unroll
        for (uint32_t q = 0; q < 4; q++)
            if ((e[q] >> 16) && esc(e[q] & 0xFFFFu)) wt += 1u << (LMAX - TB);
    }
    for (uint32_t j = tid; j < nl; j += NT) {
        if (!esc(lg[j])) continue;
        uint32_t l = TB + 1; /* the long list is ordered by length */
        while (l < LMAX && j >= S.loff[l] + S.lcount[l]) l++;
        wt += 1u << (LMAX - l);
    }
    if (wt) atomicAdd(&sh[0], wt);
    __syncthreads();
    if (sh[0] > (1u << LMAX) / 256) return; /* block-uniform */
    auto nv = [&](uint32_t x) { return x == 0 ? 0u : x >= vnew ? NV_NEW + (x - vnew) : esc(x) ? x + 256 : x - lo + 1u; };
#pragma unroll
    for (uint32_t k = 0; k < TR; k++) {
        uint32_t e[4] = {t[k].x, t[k].y, t[k].z, t[k].w};
#pragma unroll
        for (uint32_t q = 0; q < 4; q++)
            if (e[q] >> 16) e[q] = (e[q] & 0xFFFF0000u) | nv(e[q] & 0xFFFFu);
        tab[k * NT + tid] = make_uint4(e[0], e[1], e[2], e[3]);
    }
    for (uint32_t j = tid; j < nl; j += NT) lg[j] = (uint16_t)nv(lg[j]);
    if (tid == 0) M.narrow = 1, M.lo = lo;
    __syncthreads();
}

/* Huffman stream s of chunk c (block c * nsl + s): parsed where k_prep
 * located it and its decoding tables built, by the block (hs_parse_build). A stream found malformed
 * takes its chunk out of the later steps. */
__global__ void __launch_bounds__(NT) k_books(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ Stream S;
    __shared__ uint32_t sh[LMAX + 8];
    __shared__ HsParseShared w;
    const uint32_t c = blockIdx.x / p.nsl, s = blockIdx.x % p.nsl, tid = threadIdx.x;
    LMeta &M = p.meta[c];
    { /* the chunk's tile counts (k_huff's sink, k_ctile) and its Lorenzo
       * blocks' done bits (k_rfast: a bit for each block it takes), a
       * slice a block, zeroed here (not by memsets, which would break the
       * chain of programmatic launches; nor by k_prep's one block a chunk) */
        const size_t k0 = (size_t)c * p.tpc;
        for (uint32_t i = s * NT + tid; i < p.tpc; i += p.nsl * NT) {
            p.ct0[k0 + i] = 0, p.ctv[k0 + i] = 0, p.ctl[k0 + i] = 0;
            if (p.cvr) p.cvr[k0 + i] = 0;
        }
        const uint64_t nbw = (M.items[IT_BLOCK] + 31) / 32, ndw = nbw < p.dpc ? nbw : p.dpc;
        for (uint32_t i = s * NT + tid; i < ndw; i += p.nsl * NT) p.done[(size_t)c * p.dpc + i] = 0;
        if (blockIdx.x == 0 && tid < 3) p.hctr[tid] = 0; /* k_huff's item counters, the long runs' count */
    }
    if ((M.mode != 1 && M.mode != 2) || s >= M.nstr) return; /* block-uniform */
    const Stream &Z = M.S[s];
    const size_t key = (size_t)c * p.nsl + s;
    const int hr = hs_parse_build<NT>(Z.cb, Z.bytes, Z.K, Z.count, p.long_cap, S, p.tables + key * TABLE,
                                      p.longs + key * p.long_cap, w);
    if (hr) {
        if (tid == 0) {
            scz_cuda_report(p.err, p.c0 + c, map_hs(hr));
            p.bad[c] = 1u;
            M.mode = 3;
            for (int k = 0; k < IT_KINDS; k++) M.items[k] = 0;
        }
        return;
    }
    if (!p.level && M.mode == 1 && S.count) {
        narrow_tables(p, M, S, key, sh); /* after a barrier */
        if (tid == 0) atomicAdd(&g_huff_chunks[M.narrow], 1ull);
    }
    if (S.count) hs_build_ctab(p.tables + key * TABLE, p.ctabs + key * TABLE, tid, NT); /* after a barrier */
    const uint32_t *s32 = reinterpret_cast<const uint32_t *>(&S);
    uint32_t *d32 = reinterpret_cast<uint32_t *>(&M.S[s]);
    for (uint32_t i = tid; i < sizeof(Stream) / 4; i += NT) d32[i] = s32[i];
}

/* Item offsets of each kind: ib[k * (n + 1) + c]. */
__global__ void __launch_bounds__(NT) k_items(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<unsigned long long, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    unsigned long long carry[IT_KINDS];
    for (uint32_t k = 0; k < IT_KINDS; k++) carry[k] = 0;
    for (uint32_t c0 = 0; c0 < p.n; c0 += NT) {
        const uint32_t c = c0 + threadIdx.x;
        unsigned long long x[IT_KINDS]; /* every kind's count loaded before the first scan */
#pragma unroll
        for (uint32_t k = 0; k < IT_KINDS; k++) x[k] = c < p.n ? p.meta[c].items[k] : 0;
#pragma unroll
        for (uint32_t k = 0; k < IT_KINDS; k++) {
            unsigned long long ex, tot;
            Scan(ts).ExclusiveSum(x[k], ex, tot);
            if (c < p.n) p.ib[(size_t)k * (p.n + 1) + c] = carry[k] + ex;
            carry[k] += tot;
            __syncthreads();
        }
    }
    if (threadIdx.x == 0)
        for (uint32_t k = 0; k < IT_KINDS; k++) p.ib[(size_t)k * (p.n + 1) + p.n] = carry[k];
}

/* ------------------------------------------------------------------ */
/* k_huff: stored copies and Huffman segments                          */
/* ------------------------------------------------------------------ */


template <uint32_t W, uint32_t LS = 0> struct HSharedT {
    uint32_t table[TABLE];
    uint32_t stage[W][STAGE_SLOTS];
    LongTab L;
    __align__(16) uint8_t ctab[TABLE];
    uint16_t longs[LS ? LS : 1]; /* the long-code symbols, where at most LS */
};
using HShared = HSharedT<DW>;

/* Stream key's decoding tables (primary table, count table, both built
 * once by k_books / k_head1, and the long-code arrays) into the block's
 * shared memory; every thread calls it, the block's warps having finished
 * with the previous ones. Returns the long-code symbols to decode with
 * (shared memory with LS = HS_LONGS where they fit, else global). */
template <uint32_t NTT, uint32_t W, uint32_t LS>
__device__ __forceinline__ const uint16_t *load_tables(HSharedT<W, LS> &sm, const Params &p, size_t key,
                                                       const Stream &S) {
    static_assert(TABLE % 16 == 0 && LMAX + 2 <= NTT, "16-byte copies of the tables");
    static_assert(LS == 0 || LS == HS_LONGS, "hs_stage_longs");
    __syncthreads();
    const uint4 *t = reinterpret_cast<const uint4 *>(p.tables + key * TABLE);
    const uint4 *ct = reinterpret_cast<const uint4 *>(p.ctabs + key * TABLE);
    uint4 *dt = reinterpret_cast<uint4 *>(sm.table);
#pragma unroll
    for (uint32_t i = threadIdx.x; i < TABLE / 4; i += NTT) dt[i] = t[i];
#pragma unroll
    for (uint32_t i = threadIdx.x; i < TABLE / 16; i += NTT) reinterpret_cast<uint4 *>(sm.ctab)[i] = ct[i];
    if (threadIdx.x < LMAX + 2) longtab_set(sm.L, S, threadIdx.x);
    const uint16_t *gl = p.longs + key * p.long_cap;
    const uint16_t *lg = LS ? hs_stage_longs(S, gl, sm.longs, NTT) : gl;
    __syncthreads();
    return lg;
}

/* Counts of k_ctile for the codes of a Huffman chunk, as k_huff writes
 * them (outliers and verbatim codes are rare: a few atomics). GE (wide
 * codes, whose largest symbol is 2r + 1): both verbatim codes are seen,
 * and a repeat (2r + 1) marks its tile in cvr where the batch has it
 * (level 1: k_ires skips the tiles without outliers or verbatim codes);
 * narrow codes: vnew only. */
template <bool GE> struct CntSink {
    static constexpr bool WIDE = true; /* narrow streams' escapes (narrow_tables) */
    uint32_t *ct0, *ctv, *ctl; /* the chunk's tiles; NULL: nothing counted */
    uint32_t vnew;             /* narrow: NV_NEW */
    uint32_t off;              /* code index of the stream's first symbol */
    uint16_t *e16;             /* narrow: the chunk's wide codes, where escapes go */
    uint32_t *cvr;             /* GE: the chunk's tiles' repeat marks, or NULL */
    __device__ __forceinline__ void wide(uint64_t i, uint32_t s) const { e16[i + off] = (uint16_t)(s - 256); }
    __device__ __forceinline__ bool test(uint32_t s) const {
        return ct0 != nullptr && ((s == 0) | (GE ? s >= vnew : s == vnew));
    }
    __device__ __forceinline__ void operator()(uint64_t i, uint32_t s) const {
        const uint32_t t = (uint32_t)((i + off) / CT);
        if (s == 0) {
            atomicAdd(&ct0[t], 1u);
            atomicMax(&ctl[t], (uint32_t)(i + off) + 1);
        } else if (!GE || s == vnew) {
            atomicAdd(&ctv[t], 1u);
        } else if (cvr) {
            cvr[t] = 1u; /* every writer stores the same value */
        }
    }
};

/* Two launches over the same items, each taking its own from its counter
 * (hctr[NAR]): NAR, the segments of narrow chunks (bytes to codes8,
 * escapes to codes through CntSink::wide); else the others (stored chunks,
 * wide codes, run-length streams). One kernel with both decoders spilled
 * more registers than either (wide chunks' decoding 5-8% slower). */
template <bool NAR> __global__ void __launch_bounds__(NTH, KH_BLOCKS) k_huff(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ __align__(16) HSharedT<HW, HS_LONGS> sm;
    const uint64_t *ib = p.ib + IT_HUFF * (p.n + 1);
    const uint32_t warp = threadIdx.x >> 5;
    uint32_t loaded = 0xffffffffu;
    const uint16_t *lg = nullptr;
    hs_counter_items(p.hctr + NAR, ib[p.n], [&](uint64_t it) {
        const uint32_t c = item_chunk(ib, p.n, it);
        uint64_t j = it - ib[c];
        const LMeta &M = p.meta[c];
        if ((M.mode == 1 && M.narrow) != NAR) return; /* block-uniform: the other launch's */
        uint8_t *out = p.dst + (uint64_t)c * p.raw_full;
        if (M.mode == 0) {
            const uint64_t raw = (uint64_t)M.N * p.es;
            const uint64_t o = j * HPIECE, len = raw - o < HPIECE ? raw - o : HPIECE;
            copy_bytes<NTH>(out + o, M.pay + LZ_HDR + o, len, threadIdx.x);
            return;
        }
        uint32_t s = 0; /* the stream of the item */
        for (uint64_t is; s + 1 < M.nstr && j >= (is = (M.S[s].n_segs + HW - 1) / HW); s++) j -= is;
        const uint32_t key = p.nsl * c + s;
        if (key != loaded) { /* block-uniform */
            lg = load_tables<NTH>(sm, p, key, M.S[s]);
            loaded = key;
        }
        const uint32_t g = (uint32_t)(j * HW + warp);
        if (g >= M.S[s].n_segs) return;
        uint16_t *o16;
        if (M.mode == 1) o16 = p.codes + (size_t)c * p.count_full + M.soff[s];
        else o16 = reinterpret_cast<uint16_t *>(out) + (s ? M.nruns : 0);
        /* narrow: the table holds the codes' bytes (narrow_tables); one stream, soff[0] = 0 */
        CntSink<!NAR> sk{nullptr, nullptr, nullptr, NAR ? NV_NEW : 2 * M.r, M.soff[s], p.codes + (size_t)c * p.count_full,
                         nullptr};
        if (M.mode == 1) {
            const size_t k0 = (size_t)c * p.tpc;
            sk.ct0 = p.ct0 + k0;
            sk.ctv = p.ctv + k0;
            sk.ctl = p.ctl + k0;
            sk.cvr = p.cvr ? p.cvr + k0 : nullptr;
        }
        bool ok;
        if (NAR)
            ok = hs_decode_segment<uint8_t, false, true>(M.S[s], g, sm.table, sm.L, lg, sm.stage[warp],
                                                         p.codes8 + (size_t)c * p.count_full, 0, nullptr, sm.ctab,
                                                         sk);
        else
            ok = hs_decode_segment<uint16_t, false, true>(M.S[s], g, sm.table, sm.L, lg, sm.stage[warp], o16, 0,
                                                          nullptr, sm.ctab, sk);
        if (!ok && (threadIdx.x & 31) == 0) fail(p, c, LZE_BITS);
    });
}

/* ------------------------------------------------------------------ */
/* Run-length: sums, scan, expansion                                   */
/* ------------------------------------------------------------------ */

__global__ void __launch_bounds__(NT) k_rsum(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockReduce<unsigned long long, NT> Red;
    __shared__ typename Red::TempStorage ts;
    __shared__ int bad;
    __shared__ uint32_t skip;
    const uint64_t *ib = p.ib + IT_RUN * (p.n + 1);
    const uint64_t total = ib[p.n];
    for (uint64_t it = blockIdx.x; it < total; it += gridDim.x) {
        const uint32_t c = item_chunk(ib, p.n, it), t = (uint32_t)(it - ib[c]);
        const LMeta &M = p.meta[c];
        if (threadIdx.x == 0) skip = p.bad[c], bad = 0;
        __syncthreads();
        if (skip) { /* block-uniform */
            __syncthreads();
            continue;
        }
        const uint16_t *vals = reinterpret_cast<const uint16_t *>(p.dst + (uint64_t)c * p.raw_full);
        const uint16_t *lens = vals + M.nruns;
        unsigned long long sum = 0;
        int b = 0;
        const uint32_t k0 = t * RT + threadIdx.x * PER;
        for (uint32_t q = 0; q < PER; q++) {
            const uint32_t k = k0 + q;
            if (k >= M.nruns) break;
            sum += (uint32_t)lens[k] + 1;
            if (k && vals[k] == vals[k - 1] && lens[k - 1] != LZ_MAX_RUN - 1) b = 1;
        }
        if (b) bad = 1;
        const unsigned long long tot = Red(ts).Sum(sum);
        __syncthreads();
        if (threadIdx.x == 0) {
            p.rsum[(size_t)c * p.tpc + t] = tot;
            if (bad) fail(p, c, LZE_RUNS);
        }
    }
}

__global__ void __launch_bounds__(NT) k_rscan(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<unsigned long long, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint32_t c = blockIdx.x;
    const LMeta &M = p.meta[c];
    if (M.mode != 2 || p.bad[c]) return;
    const uint32_t nt = (M.nruns + RT - 1) / RT;
    uint64_t *s = p.rsum + (size_t)c * p.tpc;
    unsigned long long carry = 0;
    for (uint32_t t0 = 0; t0 < nt; t0 += NT) {
        const uint32_t t = t0 + threadIdx.x;
        const unsigned long long x = t < nt ? s[t] : 0;
        unsigned long long ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (t < nt) s[t] = carry + ex;
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0 && carry != M.N) fail(p, c, LZE_RUNS);
}

/* A run tile's codes: the block finds each run's first position (a scan
 * of the lengths from the tile's prefix) and writes the codes of its short
 * runs, one position a thread by a search of the short runs' prefix; runs
 * of LONG_RUN or more go to a list that k_rlong expands (a tile of long
 * runs, up to 4096 x 65536 codes, was one block's work: the likely cause
 * of pressure REL 1e-2, ratio 129, decompressing at 79 GB/s, H100). */
__global__ void __launch_bounds__(NT) k_rexp(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    __shared__ uint32_t st[RT + 1], ss[RT + 1];
    __shared__ uint16_t sv[RT];
    __shared__ unsigned long long lbase;
    const uint64_t *ib = p.ib + IT_RUN * (p.n + 1);
    const uint64_t total = ib[p.n];
    for (uint64_t it = blockIdx.x; it < total; it += gridDim.x) {
        const uint32_t c = item_chunk(ib, p.n, it), t = (uint32_t)(it - ib[c]);
        const LMeta &M = p.meta[c];
        if (p.bad[c]) continue;
        const uint16_t *vals = reinterpret_cast<const uint16_t *>(p.dst + (uint64_t)c * p.raw_full);
        const uint16_t *lens = vals + M.nruns;
        const uint32_t k0 = t * RT, nk = M.nruns - k0 < RT ? M.nruns - k0 : RT;
        uint32_t l[PER], sl[PER];
        for (uint32_t q = 0; q < PER; q++) {
            const uint32_t k = threadIdx.x * PER + q;
            l[q] = k < nk ? (uint32_t)lens[k0 + k] + 1 : 0;
            sl[q] = l[q] < LONG_RUN ? l[q] : 0;
            if (k < nk) sv[k] = vals[k0 + k];
        }
        uint32_t tot, tots;
        Scan(ts).ExclusiveSum(l, l, tot);
        __syncthreads();
        Scan(ts).ExclusiveSum(sl, sl, tots);
        const uint32_t base = (uint32_t)p.rsum[(size_t)c * p.tpc + t];
        for (uint32_t q = 0; q < PER; q++) {
            const uint32_t k = threadIdx.x * PER + q;
            if (k >= nk) continue;
            st[k] = base + l[q];
            ss[k] = sl[q];
        }
        if (threadIdx.x == 0) st[nk] = base + tot, ss[nk] = tots;
        __syncthreads();
        /* the long runs to the list: a thread's PER consecutive runs, the
         * tile's places from one atomic */
        uint32_t nl = 0;
        for (uint32_t q = 0; q < PER; q++) {
            const uint32_t k = threadIdx.x * PER + q;
            nl += k < nk && st[k + 1] - st[k] >= LONG_RUN;
        }
        uint32_t lo0, ltot;
        Scan(ts).ExclusiveSum(nl, lo0, ltot);
        if (threadIdx.x == 0) lbase = ltot ? atomicAdd(p.hctr + 2, (unsigned long long)ltot) : 0;
        __syncthreads();
        for (uint32_t q = 0, w = 0; q < PER; q++) {
            const uint32_t k = threadIdx.x * PER + q;
            if (k >= nk || st[k + 1] - st[k] < LONG_RUN) continue;
            const unsigned long long e = lbase + lo0 + w++;
            /* always below lcap: a chunk's lengths sum to its count (k_rsum,
             * k_rscan); else the call fails (reported, not p.bad: other
             * blocks of this kernel read it) */
            if (e < p.lcap) p.lrun[e] = make_uint4(c, st[k], st[k + 1] - st[k], sv[k]);
            else scz_cuda_report(p.err, p.c0 + c, LZE_RUNS);
        }
        uint16_t *codes = p.codes + (size_t)c * p.count_full;
        for (uint32_t j = threadIdx.x; j < tots; j += NT) {
            uint32_t lo = 0, hi = nk; /* last run k with ss[k] <= j (short runs: ss grows at each) */
            while (hi - lo > 1) {
                const uint32_t mid = (lo + hi) / 2;
                if (ss[mid] <= j) lo = mid;
                else hi = mid;
            }
            /* runs of ss[k] == ss[k + 1] (long ones) are passed over: the
             * search's k is the last with ss[k] <= j, a short run */
            codes[st[lo] + (j - ss[lo])] = sv[lo];
        }
        __syncthreads();
    }
}

/* The long runs k_rexp listed: a warp a run. */
__global__ void __launch_bounds__(NT) k_rlong(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const unsigned long long nl = p.hctr[2] < p.lcap ? p.hctr[2] : p.lcap;
    const uint32_t lane = threadIdx.x & 31;
    for (unsigned long long e = (blockIdx.x * (uint64_t)NT + threadIdx.x) >> 5; e < nl;
         e += (gridDim.x * (uint64_t)NT) >> 5) {
        const uint4 r = p.lrun[e];
        uint16_t *codes = p.codes + (size_t)r.x * p.count_full + r.y;
        const uint16_t v = (uint16_t)r.w;
        for (uint32_t i = lane; i < r.z; i += 32) codes[i] = v;
    }
}

/* ------------------------------------------------------------------ */
/* Code tiles                                                          */
/* ------------------------------------------------------------------ */

struct Cnt3 {
    uint32_t o, v, l;
};
struct Cnt3Op {
    __device__ __forceinline__ Cnt3 operator()(const Cnt3 &a, const Cnt3 &b) const {
        return Cnt3{a.o + b.o, a.v + b.v, a.l > b.l ? a.l : b.l};
    }
};

__device__ __forceinline__ void ctile_one(const Params &p, uint32_t c, uint32_t t) {
    typedef cub::BlockReduce<Cnt3, NT> Red;
    __shared__ typename Red::TempStorage ts;
    const LMeta &M = p.meta[c];
    const uint32_t N = M.N;
    if ((uint64_t)t * CT >= N) return;
    const uint16_t *codes = p.codes + (size_t)c * p.count_full;
    const uint32_t vnew = 2 * M.r;
    Cnt3 a{0, 0, 0};
    int rep = 0; /* a repeat-verbatim code (2r + 1) */
    if ((p.count_full & 7) == 0 && (uint64_t)(t + 1) * CT <= N) {
        /* a whole tile, 16-byte aligned: 8 codes per load */
        const uint4 *v = reinterpret_cast<const uint4 *>(codes + (size_t)t * CT);
#pragma unroll
        for (uint32_t h = 0; h < CT / (8 * NT); h++) {
            const uint32_t w = h * NT + threadIdx.x;
            const uint4 q = v[w];
            const uint32_t wd[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (uint32_t k = 0; k < 8; k++) {
                const uint32_t x = (wd[k / 2] >> (16 * (k & 1))) & 0xffffu;
                if (x == 0) a.o++, a.l = t * CT + w * 8 + k + 1;
                a.v += x == vnew;
                rep |= x == vnew + 1;
            }
        }
    } else {
        for (uint32_t i = t * CT + threadIdx.x; i < N && i < (t + 1) * CT; i += NT) {
            const uint32_t x = codes[i];
            if (x == 0) a.o++, a.l = i + 1;
            a.v += x == vnew;
            rep |= x == vnew + 1;
        }
    }
    const Cnt3 r = Red(ts).Reduce(a, Cnt3Op());
    rep = __syncthreads_or(rep);
    if (threadIdx.x == 0) {
        const size_t k = (size_t)c * p.tpc + t;
        p.ct0[k] = r.o;
        p.ctv[k] = r.v;
        p.ctl[k] = r.l;
        if (p.cvr) p.cvr[k] = (uint32_t)rep;
    }
}

/* A persistent grid over the tiles of the run-length chunks (Huffman
 * chunks are counted by k_huff): the block's threads look up NT chunks'
 * modes at once, and only chunks to count are walked (most batches have
 * none; a walk over every (chunk, tile) to skip them took 17 us for 512
 * MiB). */
__global__ void __launch_bounds__(NT) k_ctile(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ uint8_t run[NT];
    for (uint32_t c0 = 0; c0 < p.n; c0 += NT) {
        const uint32_t c = c0 + threadIdx.x;
        const int r = c < p.n && p.meta[c].mode == 2 && !p.bad[c];
        run[threadIdx.x] = (uint8_t)r;
        if (!__syncthreads_or(r)) continue;
        for (uint32_t k = 0; k < NT && c0 + k < p.n; k++) {
            if (!run[k]) continue; /* block-uniform */
            for (uint32_t t = blockIdx.x; t < p.tpc; t += gridDim.x) {
                ctile_one(p, c0 + k, t);
                __syncthreads(); /* ts is reused */
            }
        }
        __syncthreads(); /* run[] is rewritten */
    }
}

__global__ void __launch_bounds__(NT) k_cscan(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<Cnt3, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint32_t c = blockIdx.x;
    const LMeta &M = p.meta[c];
    if ((M.mode != 1 && M.mode != 2) || p.bad[c]) return;
    const uint32_t nt = (M.N + CT - 1) / CT;
    const size_t k0 = (size_t)c * p.tpc;
    /* CSI consecutive tiles per thread: a 32 MiB chunk's 2048 tiles in one
     * block scan (one tile per thread and round took 8 rounds, 10.7 us) */
    constexpr uint32_t CSI = 8;
    Cnt3 carry{0, 0, 0};
    for (uint32_t t0 = 0; t0 < nt; t0 += NT * CSI) {
        const uint32_t tb = t0 + threadIdx.x * CSI;
        Cnt3 x[CSI], a{0, 0, 0};
#pragma unroll
        for (uint32_t q = 0; q < CSI; q++) {
            x[q] = Cnt3{0, 0, 0};
            if (tb + q < nt) x[q] = Cnt3{p.ct0[k0 + tb + q], p.ctv[k0 + tb + q], p.ctl[k0 + tb + q]};
            a = Cnt3Op()(a, x[q]);
        }
        Cnt3 ex, tot;
        Scan(ts).ExclusiveScan(a, ex, Cnt3{0, 0, 0}, Cnt3Op(), tot);
        Cnt3 y = Cnt3Op()(carry, ex);
#pragma unroll
        for (uint32_t q = 0; q < CSI; q++) {
            if (tb + q < nt) {
                p.ct0[k0 + tb + q] = y.o;
                p.ctv[k0 + tb + q] = y.v;
                p.ctl[k0 + tb + q] = y.l;
            }
            y = Cnt3Op()(y, x[q]);
        }
        carry = Cnt3Op()(carry, tot);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        if (carry.o != M.n_out) fail(p, c, LZE_OUTLIER);
        else if (carry.v != M.n_verb) fail(p, c, LZE_VERB);
    }
}

/* ------------------------------------------------------------------ */
/* Outlier list: varint structure, checkpoints                         */
/* ------------------------------------------------------------------ */

/* Whether byte j of the list (b = its value) breaks the varint rules of
 * FORMAT.md 7.6 as the CPU's sequential parse would see them. */
__device__ __forceinline__ bool byte_bad(const uint8_t *L, uint64_t nbytes, uint64_t j, uint8_t b) {
    uint32_t run = 0; /* continuation bytes right before j, up to 10 */
    while (run < 10 && run < j && L[j - 1 - run] >= 0x80) run++;
    if (b >= 0x80) return run >= 9 || j + 1 == nbytes; /* an 11th byte / 10th byte > 1, or truncated */
    if (run >= 10) return true;
    if (run && b == 0) return true;  /* not the shortest form */
    if (run == 9 && b > 1) return true;
    return false;
}

__global__ void __launch_bounds__(NT) k_btile(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockReduce<unsigned long long, NT> Red;
    __shared__ typename Red::TempStorage ts;
    __shared__ int bad;
    const uint64_t *ib = p.ib + IT_BYTE * (p.n + 1);
    const uint64_t total = ib[p.n];
    for (uint64_t it = blockIdx.x; it < total; it += gridDim.x) {
        const uint32_t c = item_chunk(ib, p.n, it), t = (uint32_t)(it - ib[c]);
        const LMeta &M = p.meta[c];
        if (threadIdx.x == 0) bad = 0;
        __syncthreads();
        const uint8_t *L = M.olist;
        unsigned long long cnt = 0;
        int b = 0;
        const uint64_t j0 = (uint64_t)t * BT + threadIdx.x * PER;
        for (uint32_t q = 0; q < PER; q++) {
            const uint64_t j = j0 + q;
            if (j >= M.obytes) break;
            const uint8_t x = L[j];
            cnt += x < 0x80;
            b |= byte_bad(L, M.obytes, j, x);
        }
        if (b) bad = 1;
        const unsigned long long tot = Red(ts).Sum(cnt);
        __syncthreads();
        if (threadIdx.x == 0) {
            p.bsum[(size_t)c * p.btpc + t] = tot;
            if (bad) fail(p, c, LZE_OLIST);
        }
    }
}

__global__ void __launch_bounds__(NT) k_bscan(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<unsigned long long, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint32_t c = blockIdx.x;
    const LMeta &M = p.meta[c];
    if ((M.mode != 1 && M.mode != 2) || p.bad[c]) return;
    const uint32_t nt = (uint32_t)((M.obytes + BT - 1) / BT);
    uint64_t *s = p.bsum + (size_t)c * p.btpc;
    unsigned long long carry = 0;
    for (uint32_t t0 = 0; t0 < nt; t0 += NT) {
        const uint32_t t = t0 + threadIdx.x;
        const unsigned long long x = t < nt ? s[t] : 0;
        unsigned long long ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (t < nt) s[t] = carry + ex;
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0 && carry != 2 * (uint64_t)M.n_out) fail(p, c, LZE_OLIST);
}

__global__ void __launch_bounds__(NT) k_bckpt(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint64_t *ib = p.ib + IT_BYTE * (p.n + 1);
    const uint64_t total = ib[p.n];
    for (uint64_t it = blockIdx.x; it < total; it += gridDim.x) {
        const uint32_t c = item_chunk(ib, p.n, it), t = (uint32_t)(it - ib[c]);
        const LMeta &M = p.meta[c];
        if (p.bad[c]) continue;
        const uint8_t *L = M.olist;
        const uint64_t j0 = (uint64_t)t * BT + threadIdx.x * PER;
        uint32_t f[PER];
        for (uint32_t q = 0; q < PER; q++) f[q] = j0 + q < M.obytes && L[j0 + q] < 0x80;
        uint32_t ex[PER];
        Scan(ts).ExclusiveSum(f, ex);
        const uint64_t base = p.bsum[(size_t)c * p.btpc + t];
        for (uint32_t q = 0; q < PER; q++) {
            if (!f[q]) continue;
            const uint64_t tt = base + ex[q]; /* ordinal of this terminator */
            if (!(tt & 1)) continue;
            const uint64_t k = (tt + 1) / 2; /* the pair starting after it */
            if (k % CK == 0 && k < M.n_out) p.ckpt[(uint64_t)c * p.ckpc + k / CK] = j0 + q + 1;
        }
        __syncthreads();
    }
}

/* ------------------------------------------------------------------ */
/* Reconstruction                                                      */
/* ------------------------------------------------------------------ */

/* double(Q) * h rounded to T, as the CPU computes it (lossy.c): the bits of
 * MAGIC + Q read as a double, minus MAGIC, times h. NaN and infinity (only
 * from corrupt but well-formed streams) follow x86 SSE: a NaN operand is
 * returned quieted, infinity times 0 is the default NaN. */
__device__ __forceinline__ uint64_t recon_bits(uint64_t q, double h, bool f32) {
    const uint64_t mb = 0x4338000000000000ull; /* bits of 1.5 * 2^52 */
    const uint64_t u = q + mb;
    double prod;
    if ((u & 0x7FF0000000000000ull) == 0x7FF0000000000000ull) {
        if (u & 0x000FFFFFFFFFFFFFull) { /* NaN */
            const uint64_t nan = u | 0x0008000000000000ull;
            if (!f32) return nan;
            return (uint32_t)((nan >> 32) & 0x80000000u) | 0x7FC00000u | (uint32_t)((nan >> 29) & 0x003FFFFFu);
        }
        if (h == 0.0) return f32 ? 0xFFC00000ull : 0xFFF8000000000000ull;
        prod = __longlong_as_double((long long)u); /* infinity - MAGIC = infinity, times h > 0 */
    } else {
        const double qd = __dsub_rn(__longlong_as_double((long long)u), LZ_MAGIC);
        prod = __dmul_rn(qd, h);
    }
    if (f32) return (uint32_t)__float_as_uint(__double2float_rn(prod));
    return (uint64_t)__double_as_longlong(prod);
}

/* Inclusive scan along lines of D (mod 2^64): nl lines of len elements,
 * element k of line l at D[start(l) + k * stride]. */
template <typename Start>
__device__ __forceinline__ void scan_lines(unsigned long long *D, uint32_t nl, uint32_t len, uint32_t stride,
                                           Start start) {
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (stride > 1) { /* columns: one thread per line, neighbouring threads on neighbouring words */
        for (uint32_t l = threadIdx.x; l < nl; l += NT) {
            unsigned long long *d = D + start(l), acc = 0;
            for (uint32_t k = 0; k < len; k++) {
                acc += d[(size_t)k * stride];
                d[(size_t)k * stride] = acc;
            }
        }
        return;
    }
    if (len <= 16) { /* rows of at most 16 (16^3 blocks): two rows per warp step, segmented shuffles */
        const uint32_t half = lane >> 4, k = lane & 15;
        for (uint32_t l0 = 2 * warp; l0 < nl; l0 += 2 * DW) {
            const uint32_t l = l0 + half;
            const bool in = l < nl && k < len;
            const uint32_t s0 = l < nl ? start(l) : 0;
            unsigned long long v = in ? D[s0 + k] : 0;
#pragma unroll
            for (int d = 1; d < 16; d *= 2) {
                const unsigned long long y = __shfl_up_sync(FULL, v, d, 16);
                if ((int)k >= d) v += y;
            }
            if (in) D[s0 + k] = v;
        }
        return;
    }
    for (uint32_t l = warp; l < nl; l += DW) {
        const uint32_t s0 = start(l);
        unsigned long long carry = 0;
        for (uint32_t k0 = 0; k0 < len; k0 += 32) {
            const uint32_t k = k0 + lane;
            unsigned long long v = k < len ? D[s0 + k * stride] : 0;
#pragma unroll
            for (int d = 1; d < 32; d *= 2) {
                const unsigned long long y = __shfl_up_sync(FULL, v, d);
                if ((int)lane >= d) v += y;
            }
            v += carry;
            if (k < len) D[s0 + k * stride] = v;
            carry = __shfl_sync(FULL, v, 31);
        }
    }
}

/* The outlier pairs of the n0 codes 0 at code indices co + pos[k] (pos
 * increasing), the first of them the chunk's outlier pre_o, the one before
 * it ending at code index pre_l - 1 (0: none): one thread per group of CK
 * pairs parses from the group's checkpoint, checks each pair against its
 * code's position (gap) and the radius, and gives put(pos[k], d). Returns
 * true where this thread found a mismatch. */
template <typename Put>
__device__ __forceinline__ bool match_pairs(const Params &p, const LMeta &M, uint32_t c, uint64_t co,
                                            const uint16_t *pos, uint32_t n0, uint64_t pre_o, uint64_t pre_l,
                                            uint32_t r, Put put) {
    if (!n0) return false;
    const uint64_t o0 = pre_o, o1 = o0 + n0;
    const uint64_t g0 = o0 / CK, g1 = (o1 - 1) / CK;
    const uint64_t g = g0 + threadIdx.x;
    if (g > g1) return false;
    const uint8_t *q = M.olist + p.ckpt[(uint64_t)c * p.ckpc + g], *qe = M.olist + M.obytes;
    const uint64_t ka = g * CK > o0 ? g * CK : o0, kb = (g + 1) * CK < o1 ? (g + 1) * CK : o1;
    for (uint64_t k = g * CK; k < kb; k++) {
        uint64_t gap, z;
        if (!(q = get_varint(q, qe, &gap)) || !(q = get_varint(q, qe, &z))) return true;
        if (k < ka) continue;
        const uint32_t li = (uint32_t)(k - o0), i = pos[li];
        const uint64_t prev = li ? co + pos[li - 1] + 1 : pre_l;
        if (gap != co + i - prev) return true;
        const int64_t dl = (int64_t)((z >> 1) ^ (0 - (z & 1)));
        if (dl > -(int64_t)r && dl < (int64_t)r) return true;
        put(i, dl);
    }
    return false;
}

struct RShared {
    unsigned long long D[MAXB];
    uint16_t pos[MAXB]; /* local index of the block's k-th outlier */
};

/* Fast path of k_recon: a whole block of one of the writer's shapes (4096,
 * 64 x 64, 16^3) with no outlier and no verbatim element. Its codes are in
 * [1, 2r - 1], |code - r| < r <= 32767, so every partial sum over at most
 * 4096 of them fits in int32 and equals the generic path's sum modulo
 * 2^64; double(Q) is exact and x' = T(Q * h) rounded once, as in
 * recon_bits. The scans go axis by axis in registers and in shared memory
 * (S, padded against bank conflicts), the output in array order. */
enum { FS_NONE = 0, FS_1D, FS_2D, FS_3D };
constexpr uint32_t S3Z = 272, S3Y = 17; /* 16^3: element (x, y, z) at z * S3Z + y * S3Y + x */

template <bool F32> __device__ __forceinline__ void put_q(uint8_t *dst, uint64_t a, int32_t q, double h) {
    const double v = __dmul_rn(__int2double_rn(q), h);
    if (F32) reinterpret_cast<float *>(dst)[a] = __double2float_rn(v);
    else reinterpret_cast<double *>(dst)[a] = v;
}

__device__ __forceinline__ int32_t warp_incl(int32_t v, uint32_t lane) {
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const int32_t y = __shfl_up_sync(FULL, v, d);
        if ((int)lane >= d) v += y;
    }
    return v;
}

/* The fast path's view of a block's staged codes: sp(c) for an outlier or
 * verbatim code, d(c, k) = D of code c at index k of the block. */
struct FastWide { /* codes, D = c - r */
    typedef uint16_t C;
    uint32_t vnew;
    int32_t r;
    __device__ __forceinline__ bool sp(uint32_t c) const { return (c == 0) | (c >= vnew); }
    __device__ __forceinline__ int32_t d(uint32_t c, uint32_t) const { return (int32_t)c - r; }
};
struct FastNarrow { /* narrow codes (narrow_tables); an escape's code from the wide array */
    typedef uint8_t C;
    int32_t ri, r;          /* ri = r - lo + 1 */
    const uint16_t *esc;    /* the block's codes in the wide array */
    __device__ __forceinline__ bool sp(uint32_t c) const { return (c == 0) | (c - NV_NEW <= NV_REP - NV_NEW); }
    __device__ __forceinline__ int32_t d(uint32_t c, uint32_t k) const {
        return c == NV_ESC ? (int32_t)esc[k] - r : (int32_t)c - ri;
    }
};

/* Returns true when the block was written; false (block-uniform) when it
 * has outliers or verbatim values: the generic path takes it. */
template <bool F32, typename FC>
__device__ __forceinline__ bool recon_fast(int shape, const typename FC::C *cb, const FC &f, uint8_t *dst,
                                           uint64_t base, uint32_t e0, uint32_t e1, double h, int32_t *S) {
    const uint32_t tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int sp = 0;
    if (shape == FS_3D) {
        /* z in registers: thread (x, y) = (tid & 15, tid >> 4) */
        const uint32_t x = tid & 15, y = tid >> 4;
        int32_t v[16], a = 0;
#pragma unroll
        for (uint32_t z = 0; z < 16; z++) {
            const uint32_t c = cb[z * 256 + tid];
            sp |= f.sp(c);
            a += f.d(c, z * 256 + tid);
            v[z] = a;
        }
        if (__syncthreads_or(sp)) return false;
#pragma unroll
        for (uint32_t z = 0; z < 16; z++) S[z * S3Z + y * S3Y + x] = v[z];
        __syncthreads();
        { /* x: thread (y, z) */
            int32_t *L = S + (tid >> 4) * S3Z + (tid & 15) * S3Y;
            int32_t b = 0;
#pragma unroll
            for (uint32_t k = 0; k < 16; k++) L[k] = b += L[k];
        }
        __syncthreads();
        { /* y, and the output: thread (x, z) */
            const uint32_t xx = tid & 15, z = tid >> 4;
            const int32_t *L = S + z * S3Z + xx;
            int32_t b = 0;
#pragma unroll
            for (uint32_t k = 0; k < 16; k++) {
                b += L[k * S3Y];
                put_q<F32>(dst, base + ((uint64_t)z * e1 + k) * e0 + xx, b, h);
            }
        }
        return true;
    }
    if (shape == FS_2D) {
        /* x: a warp per row, lane holds x = 2 lane, 2 lane + 1 */
        for (uint32_t y = warp; y < 64; y += NT / 32) {
            const uint32_t c0 = cb[y * 64 + 2 * lane], c1 = cb[y * 64 + 2 * lane + 1];
            sp |= f.sp(c0) | f.sp(c1);
            const int32_t d0 = f.d(c0, y * 64 + 2 * lane), d1 = f.d(c1, y * 64 + 2 * lane + 1);
            const int32_t in = warp_incl(d0 + d1, lane);
            reinterpret_cast<int2 *>(S)[y * 32 + lane] = make_int2(in - d1, in);
        }
        if (__syncthreads_or(sp)) return false;
        /* y: thread (x, g) scans rows 16 g .. 16 g + 15 of column x */
        const uint32_t x = tid & 63, g = tid >> 6;
        int32_t v[16], a = 0;
#pragma unroll
        for (uint32_t k = 0; k < 16; k++) v[k] = a += S[(16 * g + k) * 64 + x];
        S[4096 + g * 64 + x] = a;
        __syncthreads();
        int32_t carry = 0;
        for (uint32_t gg = 0; gg < g; gg++) carry += S[4096 + gg * 64 + x];
#pragma unroll
        for (uint32_t k = 0; k < 16; k++) put_q<F32>(dst, base + (uint64_t)(16 * g + k) * e0 + x, v[k] + carry, h);
        return true;
    }
    /* FS_1D: coalesced loads into S (element j at j + j / 16), then thread
     * t scans elements 16 t .. 16 t + 15 */
#pragma unroll
    for (uint32_t q = 0; q < 16; q++) {
        const uint32_t j = tid + q * NT, c = cb[j];
        sp |= f.sp(c);
        S[j + (j >> 4)] = f.d(c, j);
    }
    if (__syncthreads_or(sp)) return false;
    int32_t v[16], a = 0;
#pragma unroll
    for (uint32_t k = 0; k < 16; k++) v[k] = a += S[17 * tid + k];
    const int32_t in = warp_incl(a, lane);
    if (lane == 31) S[4352 + warp] = in;
    __syncthreads();
    int32_t carry = in - a;
    for (uint32_t w = 0; w < warp; w++) carry += S[4352 + w];
#pragma unroll
    for (uint32_t k = 0; k < 16; k++) S[17 * tid + k] = v[k] + carry;
    __syncthreads();
#pragma unroll
    for (uint32_t q = 0; q < 16; q++) {
        const uint32_t j = tid + q * NT;
        put_q<F32>(dst, base + j, S[j + (j >> 4)], h);
    }
    return true;
}

/* A chunk's block grid: blocks per row and plane, extents, log2 of the
 * block shape (kept in registers by the kernels that walk blocks). */
struct BDims {
    uint32_t nb0, nb1, e0, e1, e2, lb0, lb1, lb2;
};
__device__ __forceinline__ BDims block_dims(const LMeta &M) {
    return BDims{M.nb[0], M.nb[1], M.e[0], M.e[1], M.e[2], M.lb[0], M.lb[1], M.lb[2]};
}

/* Block b of a chunk (lossy.c lz_block): origin, extents, the first
 * element in array order (base) and in code order (co). A chunk has fewer
 * than 2^32 blocks (at most 2^32 elements): 32-bit divisions. */
struct BGeo {
    uint32_t e0, e1, e2, sx, sy, sz, ex, ey, ez;
    uint64_t base, co;
};
__device__ __forceinline__ BGeo block_geo(const BDims &D, uint32_t b) {
    BGeo G;
    const uint32_t tq = b / D.nb0, bx = b - tq * D.nb0;
    const uint32_t bz = tq / D.nb1, by = tq - bz * D.nb1;
    G.e0 = D.e0, G.e1 = D.e1, G.e2 = D.e2;
    const uint32_t x0 = bx << D.lb0, y0 = by << D.lb1, z0 = bz << D.lb2;
    G.sx = 1u << D.lb0, G.sy = 1u << D.lb1, G.sz = 1u << D.lb2;
    G.ex = G.e0 - x0 < G.sx ? G.e0 - x0 : G.sx;
    G.ey = G.e1 - y0 < G.sy ? G.e1 - y0 : G.sy;
    G.ez = G.e2 - z0 < G.sz ? G.e2 - z0 : G.sz;
    G.base = ((uint64_t)z0 * G.e1 + y0) * G.e0 + x0;
    G.co = (uint64_t)z0 * G.e1 * G.e0 + (uint64_t)G.ez * y0 * G.e0 + (uint64_t)G.ez * G.ey * x0;
    return G;
}

/* k_rfast: the blocks of the fast path (recon_fast), each marked in done[];
 * a lean kernel (no generic path's registers). A block's 4096 codes are
 * staged in shared memory by asynchronous copies issued while the block
 * before it is reconstructed (two buffers), so the loads' latency and the
 * item's metadata lookups overlap the work. k_recon takes the others. */
constexpr uint32_t RIBS = 512; /* k_rfast: item offsets of at most RIBS - 1 chunks in shared memory */
struct RItem {
    uint64_t base;
    uint32_t b, co, c, e0, e1, vn; /* vn: 2r, or r | RNARROW where the chunk is narrow */
    int32_t ri;                    /* r, or r - lo + 1 where narrow */
    int shape;
};
constexpr uint32_t RNARROW = 1u << 31;
template <bool F32> __global__ void __launch_bounds__(NT, 4) k_rfast(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ __align__(16) int32_t S[4360];
    __shared__ __align__(16) uint16_t cbuf[2][MAXB]; /* narrow: the first MAXB bytes */
    __shared__ uint64_t sib[RIBS];
    const uint32_t tid = threadIdx.x;
    /* the item offsets in shared memory where they fit: an item's chunk is
     * then found without a chain of global loads (a block's next item is in
     * another chunk every few items) */
    const uint64_t *ib = p.ib + IT_BLOCK * (p.n + 1);
    if (p.n < RIBS) {
        for (uint32_t i = tid; i <= p.n; i += NT) sib[i] = ib[i];
        __syncthreads();
        ib = sib;
    }
    const uint64_t total = ib[p.n];
    /* the chunk of the last item prepared, its fields in registers: a
     * block's next item is mostly in the same chunk (no search over ib, no
     * metadata loads on the way to the copy) */
    struct CC {
        uint64_t ib0, ib1;
        uint32_t c, bad, vn; /* bad: also where the radius is above LZ_MAX_RADIUS */
        int32_t ri;
        BDims D;
    } K{1, 0, 0, 1, 0, 0, BDims{1, 1, 0, 0, 0, 0, 0, 0}};
    /* item it: its fast shape (FS_NONE: nothing to do) and its codes'
     * copy into buf issued (block-uniform) */
    auto prep = [&](uint64_t it, RItem &I, uint16_t *buf) {
        I.shape = FS_NONE;
        if (it >= total) return;
        if (it < K.ib0 || it >= K.ib1) {
            K.c = item_chunk(ib, p.n, it);
            K.ib0 = ib[K.c];
            K.ib1 = ib[K.c + 1];
            K.bad = p.bad[K.c];
            const LMeta &M = p.meta[K.c];
            if (M.r > LZ_MAX_RADIUS) K.bad = 1;
            K.vn = M.narrow ? M.r | RNARROW : 2 * M.r;
            K.ri = M.narrow ? (int32_t)M.r - (int32_t)M.lo + 1 : (int32_t)M.r;
            K.D = block_dims(M);
        }
        if (K.bad) return;
        I.c = K.c;
        I.b = (uint32_t)(it - K.ib0);
        I.vn = K.vn;
        I.ri = K.ri;
        /* whole blocks of the fast shapes only */
        const BGeo G = block_geo(K.D, I.b);
        if (G.ex < G.sx || G.ey < G.sy || G.ez < G.sz) return;
        if (K.D.lb0 == 12 && K.D.lb1 == 0 && K.D.lb2 == 0) I.shape = FS_1D;
        else if (K.D.lb0 == 6 && K.D.lb1 == 6 && K.D.lb2 == 0) I.shape = FS_2D;
        else if (K.D.lb0 == 4 && K.D.lb1 == 4 && K.D.lb2 == 4) I.shape = FS_3D;
        else return;
        I.base = G.base;
        I.e0 = G.e0;
        I.e1 = G.e1;
        const uint64_t co = G.co;
        I.co = (uint32_t)co;
        const uint16_t *src = p.codes + (size_t)I.c * p.count_full + co;
        if (I.vn & RNARROW) {
            const uint8_t *s8 = p.codes8 + (size_t)I.c * p.count_full + co;
            uint8_t *b8 = reinterpret_cast<uint8_t *>(buf);
            if ((reinterpret_cast<uintptr_t>(s8) & 15) == 0) {
                for (uint32_t k = tid; k < MAXB / 16; k += NT) scz_ku::cp_async16(b8 + 16 * k, s8 + 16 * k);
            } else {
                for (uint32_t k = tid; k < MAXB; k += NT) b8[k] = s8[k];
            }
        } else if ((reinterpret_cast<uintptr_t>(src) & 15) == 0) {
            for (uint32_t k = tid; k < MAXB / 8; k += NT) scz_ku::cp_async16(buf + 8 * k, src + 8 * k);
        } else {
            for (uint32_t k = tid; k < MAXB; k += NT) buf[k] = src[k];
        }
    };
    RItem cur, nxt;
    uint32_t bi = 0;
    prep(blockIdx.x, cur, cbuf[0]);
    scz_ku::cp_async_commit();
    for (uint64_t it = blockIdx.x; it < total; it += gridDim.x) {
        prep(it + gridDim.x, nxt, cbuf[bi ^ 1]);
        scz_ku::cp_async_commit();
        scz_ku::cp_async_wait_group<1>(); /* this item's copies have landed */
        __syncthreads();
        if (cur.shape != FS_NONE) {
            uint8_t *dst = p.dst + (uint64_t)cur.c * p.raw_full;
            const bool w =
                cur.vn & RNARROW
                    ? recon_fast<F32>(cur.shape, reinterpret_cast<const uint8_t *>(cbuf[bi]),
                                      FastNarrow{cur.ri, (int32_t)(cur.vn & ~RNARROW),
                                                 p.codes + (size_t)cur.c * p.count_full + cur.co},
                                      dst, cur.base, cur.e0, cur.e1, p.h, S)
                    : recon_fast<F32>(cur.shape, cbuf[bi], FastWide{cur.vn, cur.ri}, dst, cur.base, cur.e0, cur.e1,
                                      p.h, S);
            if (w && tid == 0) atomicOr(&p.done[(size_t)cur.c * p.dpc + cur.b / 32], 1u << (cur.b % 32));
        }
        __syncthreads(); /* buffer bi and S are free for the next items */
        cur = nxt;
        bi ^= 1;
    }
    scz_ku::cp_async_wait_all();
}

template <bool F32> __global__ void __launch_bounds__(NT, 4) k_recon(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> ScanU;
    typedef cub::BlockScan<unsigned long long, NT> ScanL;
    typedef cub::BlockReduce<Cnt3, NT> Red;
    __shared__ union {
        typename ScanU::TempStorage su;
        typename ScanL::TempStorage sl;
        typename Red::TempStorage rd;
    } ts;
    __shared__ __align__(16) RShared sm;
    __shared__ Cnt3 pre;
    __shared__ int bad;
    __shared__ uint32_t smask;
    const uint64_t *ib = p.ib + IT_BLOCK * (p.n + 1);
    const uint64_t total = ib[p.n];
    const uint32_t es = F32 ? 4 : 8;
    const uint32_t tid = threadIdx.x;
    /* the block's items (grid-stride) 32 at a time: the first warp finds
     * those left to do (not of a bad chunk, not written by k_rfast), the
     * block takes them one by one */
    const uint64_t gs = gridDim.x;
    for (uint64_t w0 = blockIdx.x; w0 < total; w0 += 32 * gs) {
        if (tid < 32) {
            const uint64_t it = w0 + tid * gs;
            bool need = false;
            if (it < total) {
                const uint32_t c = item_chunk(ib, p.n, it);
                const uint64_t b = it - ib[c];
                need = !p.bad[c] && !(p.done[(size_t)c * p.dpc + b / 32] >> (b % 32) & 1u);
            }
            const uint32_t mk = __ballot_sync(FULL, need);
            if (tid == 0) smask = mk;
        }
        __syncthreads();
        uint32_t mask = smask;
        __syncthreads(); /* smask is read before the next window writes it */
        while (mask) {
            const uint64_t it = w0 + (uint64_t)(__ffs(mask) - 1) * gs;
            mask &= mask - 1;
            const uint32_t c = item_chunk(ib, p.n, it);
            const uint64_t b = it - ib[c];
            const LMeta &M = p.meta[c];
            const uint32_t r = M.r, vnew = 2 * r, vrep = 2 * r + 1;
            const BGeo G = block_geo(block_dims(M), (uint32_t)b);
            const uint32_t e0 = G.e0, e1 = G.e1, sx = G.sx, sy = G.sy, sz = G.sz, ex = G.ex, ey = G.ey, ez = G.ez;
            const uint64_t base = G.base, co = G.co;
            const uint32_t m = ex * ey * ez, exy = ex * ey;
            const CodeView codes = chunk_codes(p, M, c);
            /* counts before the block: the tile's prefix plus the tile's codes before co */
            const uint32_t t0 = (uint32_t)(co / CT);
            {
                Cnt3 a{0, 0, 0};
                for (uint32_t i = t0 * CT + tid; i < co; i += NT) {
                    const uint32_t x = codes[i];
                    if (x == 0) a.o++, a.l = i + 1;
                    a.v += x == vnew;
                }
                const Cnt3 s = Red(ts.rd).Reduce(a, Cnt3Op());
                if (tid == 0) {
                    const size_t k = (size_t)c * p.tpc + t0;
                    pre = Cnt3Op()(Cnt3{p.ct0[k], p.ctv[k], p.ctl[k]}, s);
                    bad = 0;
                }
                __syncthreads();
            }
            /* codes of the block, blocked: thread tid has elements tid * PER + q */
            uint32_t cd[PER], f0[PER], fv[PER];
            for (uint32_t q = 0; q < PER; q++) {
                const uint32_t i = tid * PER + q;
                cd[q] = i < m ? codes[co + i] : 1u;
                f0[q] = cd[q] == 0;
                fv[q] = cd[q] == vnew;
            }
            for (uint32_t i = tid; i < m; i += NT) { /* D = code - r; 0 for verbatim (outliers below) */
                const uint32_t x = codes[co + i];
                sm.D[i] = x >= vnew ? 0ull : (unsigned long long)((int64_t)x - (int64_t)r);
            }
            uint32_t n0;
            ScanU(ts.su).ExclusiveSum(f0, f0, n0);
            __syncthreads();
            ScanU(ts.su).ExclusiveSum(fv, fv);
            int b_ = 0;
            for (uint32_t q = 0; q < PER; q++) {
                const uint32_t i = tid * PER + q;
                if (i >= m) break;
                if (cd[q] == 0) sm.pos[f0[q]] = (uint16_t)i;
                if (cd[q] == vrep && pre.v + fv[q] == 0) b_ = 1;
            }
            if (b_) bad = 1;
            __syncthreads();
            /* the block's outlier pairs: one thread per checkpoint group */
            if (match_pairs(p, M, c, co, sm.pos, n0, pre.o, pre.l, r,
                            [&](uint32_t i, int64_t dl) { sm.D[i] = (unsigned long long)dl; }))
                bad = 1;
            __syncthreads();
            if (bad) {
                if (tid == 0) fail(p, c, LZE_OUTLIER);
                __syncthreads();
                continue;
            }
            /* partial sums along x, then y, then z */
            if (exy * ez == ex) {
                unsigned long long v[PER];
                for (uint32_t q = 0; q < PER; q++) v[q] = sm.D[tid * PER + q];
                ScanL(ts.sl).InclusiveSum(v, v);
                for (uint32_t q = 0; q < PER; q++) sm.D[tid * PER + q] = v[q];
            } else {
                scan_lines(sm.D, ey * ez, ex, 1, [ex](uint32_t l) { return l * ex; });
            }
            __syncthreads();
            if (ey > 1) {
                scan_lines(sm.D, ez * ex, ey, ex, [ex, exy](uint32_t l) { return (l / ex) * exy + l % ex; });
                __syncthreads();
            }
            if (ez > 1) {
                scan_lines(sm.D, exy, ez, exy, [](uint32_t l) { return l; });
                __syncthreads();
            }
            /* element i of the block: its coordinates (shifts for a whole block) */
            const bool fb = ex == sx && ey == sy && ez == sz;
            const uint32_t l0 = M.lb[0], l01 = M.lb[0] + M.lb[1];
            auto xyz = [&](uint32_t i, uint32_t &x, uint32_t &y, uint32_t &z) {
                if (fb) {
                    x = i & (sx - 1);
                    y = (i >> l0) & (sy - 1);
                    z = i >> l01;
                } else {
                    x = i % ex;
                    y = (i / ex) % ey;
                    z = i / exy;
                }
            };
            /* output in array order; verbatim elements take their value (the
             * k-th code 2r the k-th value, 2r+1 the most recent one) */
            uint8_t *dst = p.dst + (uint64_t)c * p.raw_full;
            for (uint32_t i = tid; i < m; i += NT) {
                uint32_t x, y, z;
                xyz(i, x, y, z);
                const uint64_t a = base + ((uint64_t)z * e1 + y) * e0 + x;
                if (codes[co + i] >= vnew) continue;
                const uint64_t bits = recon_bits(sm.D[i], p.h, F32);
                if (F32) reinterpret_cast<uint32_t *>(dst)[a] = (uint32_t)bits;
                else reinterpret_cast<uint64_t *>(dst)[a] = bits;
            }
            for (uint32_t q = 0; q < PER; q++) {
                const uint32_t i = tid * PER + q;
                if (i >= m || cd[q] < vnew) continue;
                const uint64_t vi = (uint64_t)pre.v + fv[q] - (cd[q] == vnew ? 0u : 1u);
                const uint8_t *src = M.vvals + vi * es;
                uint32_t x, y, z;
                xyz(i, x, y, z);
                const uint64_t a = base + ((uint64_t)z * e1 + y) * e0 + x;
                if (F32) reinterpret_cast<uint32_t *>(dst)[a] = ldb32(src);
                else reinterpret_cast<uint64_t *>(dst)[a] = ldb64(src);
            }
            __syncthreads();
        }
    }
}

/* ------------------------------------------------------------------ */
/* Level 1: back end, interpolation                                    */
/* ------------------------------------------------------------------ */

/* The back end (7.9, back end 1): the body's Huffman stream of bytes
 * decoded into the chunk's body scratch, one warp per segment. */
__global__ void __launch_bounds__(NT, 5) k_bhuff(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ __align__(16) HShared sm;
    const uint64_t *ib = p.ib + IT_BE * (p.n + 1);
    const uint64_t total = ib[p.n];
    const uint32_t warp = threadIdx.x >> 5;
    uint32_t loaded = 0xffffffffu;
    const uint16_t *lg = nullptr;
    for (uint64_t it = blockIdx.x; it < total; it += gridDim.x) {
        const uint32_t c = item_chunk(ib, p.n, it);
        const LMeta &M = p.meta[c];
        if (c != loaded) { /* block-uniform */
            lg = load_tables<NT>(sm, p, (size_t)c * p.nsl + SB, M.S[SB]);
            loaded = c;
        }
        const uint32_t g = (uint32_t)((it - ib[c]) * DW + warp);
        if (g >= M.S[SB].n_segs) continue;
        const bool ok = hs_decode_segment<uint8_t, false, true>(M.S[SB], g, sm.table, sm.L, lg, sm.stage[warp],
                                                                p.bodies + (uint64_t)c * p.bodycap, 0, nullptr,
                                                                sm.ctab);
        if (!ok && (threadIdx.x & 31) == 0) fail(p, c, LZE_BITS);
    }
}

/* Coordinates of element k of sweep W. */
__device__ __forceinline__ void sweep_xyz(const Sweep &W, uint32_t k, uint32_t &x, uint32_t &y, uint32_t &z) {
    const uint32_t kx = k % W.c0, q = k / W.c0, ky = q % W.c1, kz = q / W.c1;
    x = W.b[0] + kx * W.d[0];
    y = W.b[1] + ky * W.d[1];
    z = W.b[2] + kz * W.d[2];
}

/* The x86 default NaN: every NaN an interpolation computes on the CPU (from
 * overflows of corrupt or extreme streams) has these bits. */
constexpr unsigned long long DNAN_BITS = 0xFFF8000000000000ull;

/* Interpolated chunks, per tile of CT traversal positions: outliers (the
 * k-th code 0 takes the k-th pair of the list, checked as k_recon checks
 * them) leave their error's bits in Rv at their element, verbatim elements
 * (code 2r: the next value, 2r + 1: the most recent one) get their value in
 * the output and their bit in vbits. The sweeps read an element's R from
 * the output (T(x') converted to binary64 is R) or, for a verbatim one,
 * from Rv (R = P there). */
template <bool F32> __global__ void __launch_bounds__(NT, KI_BLOCKS) k_ires(Params p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> ScanU;
    __shared__ typename ScanU::TempStorage ts;
    __shared__ uint16_t pos[CT];
    __shared__ uint32_t sp0[LZ1_MAX_SWEEPS + 1]; /* the chunk's sweeps' first traversal positions */
    __shared__ int bad;
    const uint32_t c = blockIdx.x / p.tpc, t = blockIdx.x % p.tpc, tid = threadIdx.x;
    const LMeta &M = p.meta[c];
    if ((M.mode != 1 && M.mode != 2) || M.pred == LZ_PRED_LORENZO || p.bad[c]) return;
    const uint32_t N = M.N;
    if ((uint64_t)t * CT >= N) return;
    const size_t k0 = (size_t)c * p.tpc + t;
    { /* a tile without outliers, new or repeated verbatim codes has nothing
       * to do (k_cscan's prefixes, the chunk's totals after the last tile;
       * cvr from k_huff or k_ctile): its codes are not read */
        const bool lt = (uint64_t)(t + 1) * CT >= N;
        const uint32_t on = lt ? M.n_out : p.ct0[k0 + 1], vn = lt ? M.n_verb : p.ctv[k0 + 1];
        if (on == p.ct0[k0] && vn == p.ctv[k0] && !p.cvr[k0]) return;
    }
    const uint32_t r = M.r, vnew = 2 * r, vrep = 2 * r + 1;
    const uint64_t co = (uint64_t)t * CT;
    const uint16_t *codes = p.codes + (size_t)c * p.count_full;
    uint32_t cd[PER], f0[PER], fv[PER];
    bool any = false;
    if ((p.count_full & 7) == 0 && co + CT <= N) { /* a whole tile, 16-byte aligned: 8 codes per load */
        const uint4 *v = reinterpret_cast<const uint4 *>(codes + co + tid * PER);
#pragma unroll
        for (uint32_t h = 0; h < PER / 8; h++) {
            const uint4 w = __ldg(v + h);
            const uint32_t wd[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (uint32_t k = 0; k < 8; k++) cd[h * 8 + k] = (wd[k / 2] >> (16 * (k & 1))) & 0xffffu;
        }
    } else {
#pragma unroll
        for (uint32_t q = 0; q < PER; q++) {
            const uint64_t i = co + tid * PER + q;
            cd[q] = i < N ? codes[i] : 1u;
        }
    }
#pragma unroll
    for (uint32_t q = 0; q < PER; q++) {
        f0[q] = cd[q] == 0;
        fv[q] = cd[q] == vnew;
        any |= cd[q] == 0 || cd[q] >= vnew;
    }
    if (!__syncthreads_or(any)) return;
    if (tid == 0) bad = 0;
    const Sweep *W = p.sw + (size_t)c * p.swn;
    const uint32_t nsw = M.nsw;
    const bool shw = nsw <= LZ1_MAX_SWEEPS; /* always (k_head1 counted them); else the search reads W */
    if (shw)
        for (uint32_t j = tid; j <= nsw; j += NT) sp0[j] = W[j].p0; /* read after the scans' barriers */
    uint32_t n0;
    ScanU(ts).ExclusiveSum(f0, f0, n0);
    __syncthreads();
    ScanU(ts).ExclusiveSum(fv, fv);
    const uint32_t pre_o = p.ct0[k0], pre_v = p.ctv[k0], pre_l = p.ctl[k0];
    const uint32_t e0 = M.e[0], e1 = M.e[1];
    /* array index of the element at traversal position ci: its sweep by
     * binary search over the chunk's sweeps (in shared memory) */
    auto elem = [&](uint64_t ci) -> uint32_t {
        uint32_t lo = 0, hi = nsw + 1;
        while (hi - lo > 1) {
            const uint32_t mid = (lo + hi) / 2;
            if ((shw ? sp0[mid] : W[mid].p0) <= ci) lo = mid;
            else hi = mid;
        }
        uint32_t x, y, z;
        sweep_xyz(W[lo], (uint32_t)(ci - W[lo].p0), x, y, z);
        return (z * e1 + y) * e0 + x;
    };
    int b_ = 0;
    uint8_t *dst = p.dst + (uint64_t)c * p.raw_full;
    for (uint32_t q = 0; q < PER; q++) {
        const uint32_t li = tid * PER + q;
        if (co + li >= N) break;
        if (cd[q] == 0) pos[f0[q]] = (uint16_t)li;
        if (cd[q] == vrep && pre_v + fv[q] == 0) b_ = 1;
    }
    if (b_) bad = 1;
    __syncthreads();
    double *Rv = p.Rv + (size_t)c * p.count_full;
    uint32_t *vb = p.vbits + (size_t)c * p.vbw;
    if (match_pairs(p, M, c, co, pos, n0, pre_o, pre_l, r, [&](uint32_t li, int64_t dl) {
            Rv[elem(co + li)] = __longlong_as_double((long long)dl);
        }))
        bad = 1;
    __syncthreads();
    if (bad) {
        if (tid == 0) fail(p, c, LZE_OUTLIER);
        return;
    }
    for (uint32_t q = 0; q < PER; q++) {
        const uint32_t li = tid * PER + q;
        if (co + li >= N) break;
        if (cd[q] < vnew) continue;
        const uint64_t vi = (uint64_t)pre_v + fv[q] - (cd[q] == vnew ? 0u : 1u);
        const uint8_t *src = M.vvals + vi * (F32 ? 4 : 8);
        const uint32_t i = elem(co + li);
        if (F32) reinterpret_cast<uint32_t *>(dst)[i] = ldb32(src);
        else reinterpret_cast<uint64_t *>(dst)[i] = ldb64(src);
        atomicOr(&vb[i >> 5], 1u << (i & 31));
    }
}

/* What a sweep needs of its chunk (k_sweep keeps it in shared memory). */
struct SwCtx {
    const uint16_t *codes;
    double *Rv;
    const uint32_t *vb;
    uint8_t *out;
    double h;
    lz1_div q0, q1;
    uint32_t n, p0, c0, c1, b0, b1, b2, d0, d1, d2;
    uint32_t a, s, e0, e1, ea, o, cubic, r;
    uint32_t hasv;              /* the chunk has verbatim elements (else no bitmap reads) */
};

__device__ __forceinline__ void sw_ctx(const Params &p, uint32_t j, uint32_t c, SwCtx &X) {
    const LMeta &M = p.meta[c];
    const Sweep &W = p.sw[(size_t)c * p.swn + j];
    X.codes = p.codes + (size_t)c * p.count_full;
    X.Rv = p.Rv + (size_t)c * p.count_full;
    X.vb = p.vbits + (size_t)c * p.vbw;
    X.out = p.dst + (uint64_t)c * p.raw_full;
    X.h = W.h, X.q0 = W.q0, X.q1 = W.q1;
    X.n = W.n, X.p0 = W.p0, X.c0 = W.c0, X.c1 = W.c1;
    X.b0 = W.b[0], X.b1 = W.b[1], X.b2 = W.b[2], X.d0 = W.d[0], X.d1 = W.d[1], X.d2 = W.d[2];
    X.a = W.a, X.s = W.s, X.e0 = M.e[0], X.e1 = M.e[1], X.ea = W.a < 3 ? M.e[W.a] : 1;
    X.o = W.a == 0 ? W.s : W.a == 1 ? W.s * M.e[0] : W.s * M.e[0] * M.e[1];
    X.cubic = M.pred == LZ_PRED_CUBIC;
    X.r = M.r;
    X.hasv = M.n_verb != 0;
}

/* One element of a sweep in two steps, so that a thread has several in
 * flight: load (its code, its error if an outlier, its neighbours' T(x')
 * and verbatim bits) and finish (P, x'). COH: the neighbours' T(x') by
 * plain loads, not the read-only path (k_coarse reads what its own block
 * wrote before a barrier of the same launch; k_sweep's neighbours come
 * from earlier launches). */
template <bool F32, bool COH = false> struct SwElem {
    typedef typename std::conditional<F32, float, double>::type T;
    uint32_t i, code, fl; /* fl: bits 0-2 which of B, A3, B3 exist; bits 4-7 which of A, B, A3, B3 are verbatim */
    T v[4];               /* T(x') of A, B, A3, B3 */
    long long D;          /* an outlier's error */
    __device__ __forceinline__ uint32_t nbr(const SwCtx &X, int q) const {
        return q == 0 ? i - X.o : q == 1 ? i + X.o : q == 2 ? i - 3 * X.o : i + 3 * X.o;
    }
    __device__ __forceinline__ void load(const SwCtx &X, uint32_t k) {
        const uint32_t q1 = lz1_div_q(k, X.q0), kx = k - q1 * X.c0;
        const uint32_t kz = lz1_div_q(q1, X.q1), ky = q1 - kz * X.c1;
        const uint32_t x = X.b0 + kx * X.d0, y = X.b1 + ky * X.d1, z = X.b2 + kz * X.d2;
        i = (z * X.e1 + y) * X.e0 + x;
        code = __ldg(X.codes + X.p0 + k);
        D = code == 0 ? __double_as_longlong(__ldg(X.Rv + i)) : 0;
        fl = 0;
        if (X.a < 3) {
            const uint32_t ca = X.a == 0 ? x : X.a == 1 ? y : z, s = X.s;
            const bool hb = ca + s < X.ea;
            fl = (hb ? 1u : 0u) | (X.cubic && hb && ca >= 3 * s ? 2u : 0u) | (X.cubic && hb && ca + 3 * s < X.ea ? 4u : 0u);
            const T *out = reinterpret_cast<const T *>(X.out);
#pragma unroll
            for (int q = 0; q < 4; q++) {
                v[q] = 0;
                if (q == 0 || (fl >> (q - 1) & 1)) {
                    const uint32_t m = nbr(X, q);
                    if (X.hasv) fl |= (__ldg(X.vb + (m >> 5)) >> (m & 31) & 1u) << (4 + q);
                    v[q] = COH ? out[m] : __ldg(out + m);
                }
            }
        }
    }
    __device__ __forceinline__ void finish(const SwCtx &X) const {
        double P = 0.0;
        if (X.a < 3) {
            double w[4];
#pragma unroll
            for (int q = 0; q < 4; q++) /* a verbatim neighbour: R = its P, in Rv */
                w[q] = fl >> (4 + q) & 1u ? X.Rv[nbr(X, q)] : (double)v[q];
            P = lz_finterp((int)X.cubic, w[0], fl & 1, w[1], fl >> 1 & 1, w[2], fl >> 2 & 1, w[3]);
            if (P != P) P = __longlong_as_double((long long)DNAN_BITS);
        }
        if (code >= 2 * X.r) {
            X.Rv[i] = P;
            return;
        }
        const int64_t Dq = code ? (int64_t)code - (int64_t)X.r : (int64_t)D;
        const double xr = lz_rrecon(P, Dq, X.h, F32);
        if (F32)
            reinterpret_cast<uint32_t *>(X.out)[i] = xr != xr ? 0xFFC00000u : __float_as_uint(__double2float_rn(xr));
        else
            reinterpret_cast<unsigned long long *>(X.out)[i] =
                xr != xr ? DNAN_BITS : (unsigned long long)__double_as_longlong(xr);
    }
};


/* The finest level (s = 1) of an interpolated chunk by rows along axis 0
 * (rows_takes: rank 3, every axis of extent 2 or more, an even number of
 * elements a row), where k_sweep stores every second element of a row in
 * most sweeps (partial sectors, read and written back whole). Rank 2 stays
 * with k_sweep: measured slower by rows (H100, tiled_pressure REL 1e-3 /
 * 1e-4 decompression 282 / 206 -> 266 / 197 GB/s; wmag, rank 3, 204 / 162
 * -> 216 / 167). At this
 * level the elements of a row (y, z) are: at even x, those of the sweep of
 * the latest axis of the order among 1, 2 with an odd coordinate (R; none
 * where y and z are even: known), and at odd x those of the sweep along
 * axis 0 if it comes after R's, else R's too. So a row is computed whole:
 * - class 0 (y, z even): the even elements read, the odd ones from them;
 * - class 1 (the first of axes 1, 2 in the order odd, the other even) and
 *   class 2 (the second odd): the even elements from the rows at +-1, +-3
 *   along R's axis (computed by earlier classes), then the odd ones from
 *   them if axis 0 is swept after R, else from those rows too.
 * One launch per class, after the coarser levels (k_sweep). A warp takes
 * 29 pairs (2 j, 2 j + 1) of a row and the pairs on each side its odd
 * elements read (one before, two after), computes the even element of each
 * (R of the halo pairs as well), passes the R values by shuffles, and
 * stores its pairs whole. Arithmetic as k_sweep (SwElem). */
using scz_l1::RowGeo;

struct RowCtx {
    const uint16_t *codes;
    double *Rv;
    const uint32_t *vb;
    uint8_t *out;
    double h;
    uint32_t cubic, r, hasv;
    uint32_t er0, er1; /* the chunk's extents along axes 0, 1 (g.e: those of the level's grid) */
    RowGeo g; /* lossy_sweep_cuda.h: the classes, rows and sweeps, as the writer's k_erows */
};

using scz_l1::rows_ext;
__device__ __forceinline__ bool rows_takes(const LMeta &M) { return rows_ext(M.e, 1); }
__device__ __forceinline__ bool rows_takes2(const LMeta &M) { return rows_ext(M.e, 2); }

/* Whether k_rows / k_rwalk code sweep entry j (stride ws) of chunk M:
 * rows bit 0, the finest level (rows_takes); bit 1, the level of stride 2
 * too (rows_takes2). k_sweep and k_coarse leave those sweeps alone. */
__device__ __forceinline__ bool rows_sweep_d(const LMeta &M, uint32_t j, uint32_t ws, uint32_t rows) {
    if (j == 0 || !rows_takes(M)) return false;
    return ((rows & 1) && ws == 1) || ((rows & 2) && ws == 2 && rows_takes2(M));
}

using scz_l1::pair_ld;
using scz_l1::pair_st;
/* the verbatim bits of the pair at i (bit 0: i, bit 1: i + S; i % 4 == 0 for S = 2) */
template <uint32_t S> __device__ __forceinline__ uint32_t vb_pair(const uint32_t *vb, uint32_t i) {
    const uint32_t w = __ldg(vb + (i >> 5)) >> (i & 31);
    return S == 1 ? w & 3u : (w & 1u) | (w >> (S - 1) & 2u);
}

/* Element idx of a rows kernel's level with code `code` and prediction
 * P: its T(x') bits into *v (a verbatim element keeps its value, written
 * by k_ires, and R = P goes to Rv); its R returned. */
template <bool F32, typename U>
__device__ __forceinline__ double row_fin(const RowCtx &X, uint32_t idx, uint32_t code, double P, U *v) {
    if (P != P) P = __longlong_as_double((long long)DNAN_BITS);
    if (code >= 2 * X.r) {
        X.Rv[idx] = P;
        return P;
    }
    const int64_t Dq = code ? (int64_t)code - (int64_t)X.r : (int64_t)__double_as_longlong(__ldg(X.Rv + idx));
    const double xr = lz_rrecon(P, Dq, X.h, F32);
    if (F32) *v = xr != xr ? 0xFFC00000u : __float_as_uint(__double2float_rn(xr));
    else *v = xr != xr ? DNAN_BITS : (unsigned long long)__double_as_longlong(xr);
    return F32 ? (double)__uint_as_float((uint32_t)*v) : __longlong_as_double((long long)*v);
}

/* k_rows' loop over the warp items of its block, for one chunk: the
 * chunk's predictor (CUBIC), whether it has verbatim elements (HASV: else
 * no bitmap reads) and the class's xafter as template arguments (a
 * block-uniform dispatch in k_rows), the neighbours' R from earlier
 * launches (read-only loads); the level of stride S (1: the finest; 2: the
 * one before it, on the grid of even coordinates). */
template <bool F32, uint32_t S, bool CUBIC, bool HASV, bool XAFTER>
__device__ __forceinline__ void rows_loop(const RowCtx &X) {
    typedef typename std::conditional<F32, uint32_t, unsigned long long>::type U;
    typedef typename std::conditional<F32, uint2, ulonglong2>::type U2;
    const RowGeo &G = X.g;
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t e0 = G.e[0]; /* the level's grid (S = 1: the chunk's) */
#define RW_OUT reinterpret_cast<const U *>(X.out)
    /* R of the point at index idx whose T(x') bits are u */
    auto Rof = [&](uint32_t idx, U u) -> double {
        if (HASV && (__ldg(X.vb + (idx >> 5)) >> (idx & 31) & 1u)) return __ldg(X.Rv + idx);
        return F32 ? (double)__uint_as_float((uint32_t)u) : __longlong_as_double((long long)u);
    };
    auto fin = [&](uint32_t idx, uint32_t code, double P, U *v) -> double { return row_fin<F32>(X, idx, code, P, v); };
    /* the element at (x, y, z) of the sweep along axis a (1 or 2): P from the rows at +-1, +-3 */
    auto along = [&](uint32_t a, uint32_t x, uint32_t y, uint32_t z, uint32_t idx, U *v) -> double {
        const uint32_t ca = a == 1 ? y : z, ea = G.e[a], ga = S * (a == 1 ? X.er0 : X.er0 * X.er1);
        const bool hb = ca + 1 < ea, ha3 = CUBIC && hb && ca >= 3, hb3 = CUBIC && hb && ca + 3 < ea;
        const uint32_t code = __ldg(X.codes + scz_l1::row_code(G, a, x, y, z));
        const U ua = __ldg(RW_OUT + idx - ga);
        const U ub = hb ? __ldg(RW_OUT + idx + ga) : (U)0;
        const U ua3 = ha3 ? __ldg(RW_OUT + idx - 3 * ga) : (U)0;
        const U ub3 = hb3 ? __ldg(RW_OUT + idx + 3 * ga) : (U)0;
        const double A = Rof(idx - ga, ua);
        const double B = hb ? Rof(idx + ga, ub) : 0.0;
        const double A3 = ha3 ? Rof(idx - 3 * ga, ua3) : 0.0;
        const double B3 = hb3 ? Rof(idx + 3 * ga, ub3) : 0.0;
        const double P = lz_finterp((int)CUBIC, A, hb, B, ha3, A3, hb3, B3);
        return fin(idx, code, P, v);
    };
    const uint32_t nw = G.nrows * G.nseg, R = G.ax;
    for (uint32_t w = (blockIdx.x * NT + threadIdx.x) >> 5; w < nw; w += (gridDim.x * NT) >> 5) {
        const scz_l1::RowAt at = scz_l1::row_at(G, w, lane);
        const uint32_t y = at.y, z = at.z;
        const int32_t jp = at.jp;
        const bool valid = at.valid, own = at.own;
        const uint32_t x0 = 2 * (uint32_t)max(jp, 0), i0 = ((z * S) * X.er1 + y * S) * X.er0 + x0 * S;
        U2 pr;
        pr.x = 0, pr.y = 0;
        if (valid) pr = pair_ld<S, U, U2>(RW_OUT, i0);
        double Re = 0.0;
        if (valid && R == 3) Re = Rof(i0, pr.x);
        else if (valid) Re = along(R, x0, y, z, i0, &pr.x);
        if (XAFTER) { /* the odd element from the even ones of the row */
            const scz_l1::RowNb nb = scz_l1::row_nb(Re);
            if (own) {
                const uint32_t xo = x0 + 1;
                const double P = scz_l1::row_odd<CUBIC>(nb, Re, xo, e0);
                fin(i0 + S, __ldg(X.codes + scz_l1::row_code(G, 0, xo, y, z)), P, &pr.y);
            }
        } else if (own) {
            along(R, x0 + 1, y, z, i0 + S, &pr.y);
        }
        if (own) pair_st<S, U, U2>(reinterpret_cast<U *>(X.out), i0, pr);
    }
#undef RW_OUT
}

/* Classes 1 and 2 by walks along the class axis R (k_rwalk): a warp takes
 * a row segment (lanes as k_rows') and RW_STEPS consecutive rows of the
 * class along R (R coordinate 1, 3, 5, ...: the rows at +-1 and +-3 are
 * at even R coordinates, of earlier classes), keeping the four neighbour
 * rows' pairs in registers, so that a step loads one new neighbour row
 * instead of four (eight where the odd elements go along R too). */
constexpr uint32_t RW_STEPS = 8;

template <bool F32, uint32_t S, bool CUBIC, bool HASV, bool XAFTER>
__device__ __forceinline__ void walk_loop(const RowCtx &X) {
    typedef typename std::conditional<F32, uint32_t, unsigned long long>::type U;
    typedef typename std::conditional<F32, uint2, ulonglong2>::type U2;
    const RowGeo &G = X.g;
    const uint32_t lane = threadIdx.x & 31;
    const scz_l1::Walk Wk = scz_l1::walk_geo(G, RW_STEPS);
    const uint32_t e0 = G.e[0], Ra = Wk.Ra; /* Ra: 1 or 2; G.e: the level's grid */
    const uint32_t ea = G.e[Ra], ga = S * (Ra == 1 ? X.er0 : X.er0 * X.er1);
    auto R_of = [&](U u, bool verb, uint32_t idx) -> double {
        if (HASV && verb) return __ldg(X.Rv + idx);
        return F32 ? (double)__uint_as_float((uint32_t)u) : __longlong_as_double((long long)u);
    };
    auto fin = [&](uint32_t idx, uint32_t code, double P, U *v) -> double { return row_fin<F32>(X, idx, code, P, v); };
    const U *out = reinterpret_cast<const U *>(X.out);
    for (uint32_t w = (blockIdx.x * NT + threadIdx.x) >> 5; w < Wk.nw; w += (gridDim.x * NT) >> 5) {
        const scz_l1::WalkAt at = scz_l1::walk_at(G, Wk, RW_STEPS, w, lane);
        const bool valid = at.valid, own = at.own;
        const uint32_t x0 = at.x0, k0 = at.k0, k1 = at.k1, y0 = at.y0, z0 = at.z0, ca0 = at.ca0; /* ca0 odd */
        uint32_t i0 = ((z0 * S) * X.er1 + y0 * S) * X.er0 + x0 * S; /* the lane's even element in row k */
        /* the pair's code positions (row_code), advanced a row (2 along R) a step */
        const uint32_t ao = XAFTER ? 0 : Ra;
        uint32_t pe = scz_l1::row_code(G, Ra, x0, y0, z0), po = scz_l1::row_code(G, ao, x0 + 1, y0, z0);
        const uint32_t de = scz_l1::walk_dstep(G, Ra, Ra), dod = scz_l1::walk_dstep(G, Ra, ao);
        /* the pair at idx of a neighbour row; its verbatim bits (1: x0, 2: x0 + 1) */
        auto ldp = [&](uint32_t idx) -> U2 { return pair_ld<S, U, U2>(out, idx); };
        auto ldb = [&](uint32_t idx) -> uint32_t { return HASV ? vb_pair<S>(X.vb, idx) : 0u; };
        U2 w0, w1, w2, w3; /* rows ca - 3, ca - 1, ca + 1, ca + 3 */
        w0.x = w0.y = w1.x = w1.y = w2.x = w2.y = w3.x = w3.y = 0;
        uint32_t wb = 0; /* their verbatim bits: w_q's at bits 2 q, 2 q + 1 */
        if (valid) {
            if (CUBIC && ca0 >= 3) w0 = ldp(i0 - 3 * ga), wb = ldb(i0 - 3 * ga);
            w1 = ldp(i0 - ga), wb |= ldb(i0 - ga) << 2;
            if (ca0 + 1 < ea) w2 = ldp(i0 + ga), wb |= ldb(i0 + ga) << 4;
        }
        for (uint32_t k = k0; k < k1; k++) {
            const uint32_t ca = ca0 + 2 * (k - k0);
            const bool hb = ca + 1 < ea, ha3 = CUBIC && hb && ca >= 3, hb3 = CUBIC && hb && ca + 3 < ea;
            U2 pr;
            pr.x = 0, pr.y = 0;
            uint32_t ce = 0, co = 0;
            if (valid) {
                /* row ca + 3: this step's B3 (cubic), the next step's B */
                if (ca + 3 < ea) w3 = ldp(i0 + 3 * ga), wb = (wb & 63u) | ldb(i0 + 3 * ga) << 6;
                /* the pair's own values only where verbatim (k_ires wrote them); the rest is computed */
                if (HASV && ldb(i0)) pr = ldp(i0);
                ce = __ldg(X.codes + pe);
                if (own) co = __ldg(X.codes + po);
            }
            double Re = 0.0;
            if (valid) {
                const double A = R_of(w1.x, wb >> 2 & 1, i0 - ga);
                const double B = hb ? R_of(w2.x, wb >> 4 & 1, i0 + ga) : 0.0;
                const double A3 = ha3 ? R_of(w0.x, wb & 1, i0 - 3 * ga) : 0.0;
                const double B3 = hb3 ? R_of(w3.x, wb >> 6 & 1, i0 + 3 * ga) : 0.0;
                double P = lz_finterp((int)CUBIC, A, hb, B, ha3, A3, hb3, B3);
                fin(i0, ce, P, &pr.x);
                if (P != P) P = __longlong_as_double((long long)DNAN_BITS);
                /* R: P where verbatim, else T(x') (what row_fin returns; taking
                 * its return value instead compiles to other SASS, untested) */
                Re = ce >= 2 * X.r ? P : F32 ? (double)__uint_as_float((uint32_t)pr.x) : __longlong_as_double((long long)pr.x);
            }
            if (XAFTER) { /* the odd element from the even ones of the row */
                const scz_l1::RowNb nb = scz_l1::row_nb(Re);
                if (own) {
                    const double P = scz_l1::row_odd<CUBIC>(nb, Re, x0 + 1, e0);
                    fin(i0 + S, co, P, &pr.y);
                }
            } else if (own) {
                const double A = R_of(w1.y, wb >> 3 & 1, i0 + S - ga);
                const double B = hb ? R_of(w2.y, wb >> 5 & 1, i0 + S + ga) : 0.0;
                const double A3 = ha3 ? R_of(w0.y, wb >> 1 & 1, i0 + S - 3 * ga) : 0.0;
                const double B3 = hb3 ? R_of(w3.y, wb >> 7 & 1, i0 + S + 3 * ga) : 0.0;
                fin(i0 + S, co, lz_finterp((int)CUBIC, A, hb, B, ha3, A3, hb3, B3), &pr.y);
            }
            if (own) pair_st<S, U, U2>(reinterpret_cast<U *>(X.out), i0, pr);
            /* the next row: its neighbours at -3, -1, +1 are this one's -1, +1, +3 */
            w0 = w1, w1 = w2, w2 = w3;
            wb >>= 2;
            i0 += 2 * ga;
            pe += de, po += dod;
        }
    }
}

/* f(cubic, hasv, xafter) with the chunk's three flags as compile-time
 * constants (std::integral_constant): the rows kernels' block-uniform
 * choice of a specialised loop. */
template <typename F> __device__ __forceinline__ void row_dispatch(const RowCtx &X, F &&f) {
    typedef std::false_type N;
    typedef std::true_type Y;
    switch (X.cubic * 4 + X.hasv * 2 + X.g.xafter) {
    case 0: f(N(), N(), N()); break;
    case 1: f(N(), N(), Y()); break;
    case 2: f(N(), Y(), N()); break;
    case 3: f(N(), Y(), Y()); break;
    case 4: f(Y(), N(), N()); break;
    case 5: f(Y(), N(), Y()); break;
    case 6: f(Y(), Y(), N()); break;
    default: f(Y(), Y(), Y()); break;
    }
}

/* The context of class cls of chunk c at the level of stride S (1: the
 * last three sweeps; 2: the three before them), by thread 0; false where
 * the chunk's level is not coded by rows. */
template <uint32_t S> __device__ __forceinline__ bool row_setup(const Params &p, uint32_t c, uint32_t cls, RowCtx &X) {
    const LMeta &M = p.meta[c];
    if ((M.mode != 1 && M.mode != 2) || M.pred == LZ_PRED_LORENZO || p.bad[c] || !rows_takes(M) ||
        (S == 2 && !rows_takes2(M)) || M.nsw < 3 * S)
        return false;
    const Sweep *W = p.sw + (size_t)c * p.swn;
    for (uint32_t j = M.nsw + 1 - 3 * S; j <= M.nsw; j++) /* the last levels: 2 (S = 2) then 1 */
        if (W[j].s != (S == 2 && j + 3 <= M.nsw ? 2u : 1u)) return false;
    if (M.nsw > 3 * S && W[M.nsw - 3 * S].s <= S) return false; /* exactly three sweeps at each */
    const Sweep *Wl = W + M.nsw + 1 - 3 * S; /* the level's three sweeps */
    const uint32_t e[3] = {(M.e[0] + S - 1) / S, (M.e[1] + S - 1) / S, (M.e[2] + S - 1) / S};
    X.h = Wl[0].h; /* one level: one step */
    X.codes = p.codes + (size_t)c * p.count_full;
    X.Rv = p.Rv + (size_t)c * p.count_full;
    X.vb = p.vbits + (size_t)c * p.vbw;
    X.out = p.dst + (uint64_t)c * p.raw_full;
    X.cubic = M.pred == LZ_PRED_CUBIC, X.r = M.r, X.hasv = M.n_verb != 0;
    X.er0 = M.e[0], X.er1 = M.e[1];
    return scz_l1::row_geo(X.g, Wl, e, cls);
}

template <bool F32, uint32_t S> __global__ void __launch_bounds__(NT, 5) k_rwalk(Params p, uint32_t cls, uint32_t cbase) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ RowCtx X;
    __shared__ int ok;
    const uint32_t c = cbase + blockIdx.y;
    if (threadIdx.x == 0) ok = row_setup<S>(p, c, cls, X) && X.g.ax != 3;
    __syncthreads();
    if (!ok) return;
    row_dispatch(X, [&](auto cu, auto hv, auto xa) { /* block-uniform */
        walk_loop<F32, S, decltype(cu)::value, decltype(hv)::value, decltype(xa)::value>(X);
    });
}


template <bool F32, uint32_t S> __global__ void __launch_bounds__(NT, 8) k_rows(Params p, uint32_t cls, uint32_t cbase) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ RowCtx X;
    __shared__ int ok;
    const uint32_t c = cbase + blockIdx.y;
    if (threadIdx.x == 0) ok = row_setup<S>(p, c, cls, X);
    __syncthreads();
    if (!ok) return;
    row_dispatch(X, [&](auto cu, auto hv, auto xa) { /* block-uniform */
        rows_loop<F32, S, decltype(cu)::value, decltype(hv)::value, decltype(xa)::value>(X);
    });
}

/* The small sweeps of the coarsest levels (entries 0 .. nj - 1, each with
 * at most NTF * 4 elements in every chunk of the batch): one launch, a
 * block per chunk going through them in order, a barrier between sweeps
 * (their neighbours are earlier sweeps' elements, written by the same
 * block), four elements a thread loaded before any is finished. Was one
 * k_sweep launch per sweep, each a few microseconds of latency (H100, wmag
 * 512^3: twelve launches of 6-7 us under Nsight Compute). */
constexpr uint32_t NTF = 512;
constexpr uint32_t CO_MAX = 4 * NTF; /* elements of a sweep k_coarse takes */
template <bool F32>
__global__ void __launch_bounds__(NTF) k_coarse(Params p, uint32_t nj, uint32_t cbase, uint32_t rows) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ SwCtx X;
    const uint32_t c = cbase + blockIdx.y;
    const LMeta &M = p.meta[c];
    if ((M.mode != 1 && M.mode != 2) || M.pred == LZ_PRED_LORENZO || p.bad[c]) return;
    const uint32_t jn = nj < M.nsw + 1 ? nj : M.nsw + 1;
    for (uint32_t j = 0; j < jn; j++) {
        if (rows_sweep_d(M, j, p.sw[(size_t)c * p.swn + j].s, rows)) break; /* k_rows' (the last sweeps) */
        if (threadIdx.x == 0) sw_ctx(p, j, c, X);
        __syncthreads();
        const uint32_t n = X.n;
        SwElem<F32, true> E[4];
#pragma unroll
        for (uint32_t q = 0; q < 4; q++)
            if (threadIdx.x + q * NTF < n) E[q].load(X, threadIdx.x + q * NTF);
#pragma unroll
        for (uint32_t q = 0; q < 4; q++)
            if (threadIdx.x + q * NTF < n) E[q].finish(X);
        __syncthreads(); /* this sweep's outputs (and X) before the next */
    }
}

/* Sweep index j of every interpolated chunk (entry 0: element 0), chunk
 * cbase + blockIdx.y, its elements over the blocks blockIdx.x, SV per thread and
 * step; the neighbours of an element belong to earlier sweeps (earlier
 * launches). P (as lossy_interp_hd.h lz_ipred, from the neighbours' R:
 * T(x') read back from the output, which binary64 holds exactly, or Rv
 * for a verbatim neighbour), then x' = T(P + double(D) h_lv) into the
 * output; a verbatim element (its value written by k_ires) keeps R = P in
 * Rv. */
template <bool F32, uint32_t SV>
__global__ void __launch_bounds__(NT) k_sweep(Params p, uint32_t j, uint32_t cbase, uint32_t rows) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ SwCtx X;
    const uint32_t c = cbase + blockIdx.y;
    {
        const LMeta &M = p.meta[c];
        if ((M.mode != 1 && M.mode != 2) || M.pred == LZ_PRED_LORENZO || j > M.nsw || p.bad[c]) return;
        if (rows_sweep_d(M, j, p.sw[(size_t)c * p.swn + j].s, rows)) return; /* k_rows' / k_rwalk's */
    }
    if (threadIdx.x == 0) sw_ctx(p, j, c, X);
    __syncthreads();
    const uint32_t n = X.n;
    for (uint32_t k0 = blockIdx.x * NT * SV + threadIdx.x; k0 < n; k0 += gridDim.x * NT * SV) {
        SwElem<F32> E[SV];
#pragma unroll
        for (uint32_t q = 0; q < SV; q++)
            if (k0 + q * NT < n) E[q].load(X, k0 + q * NT);
#pragma unroll
        for (uint32_t q = 0; q < SV; q++)
            if (k0 + q * NT < n) E[q].finish(X);
    }
}

int persistent_grid(const void *fn, int smem = 0) { return scz_ku::persistent_grid(fn, NT, smem); }

} // namespace

extern "C" int scz__lossy_cuda_huff_chunks(unsigned long long *wide, unsigned long long *narrow) {
    unsigned long long v[2];
    const cudaError_t e = cudaMemcpyFromSymbol(v, g_huff_chunks, sizeof v);
    if (e) return (int)e;
    *wide = v[0];
    *narrow = v[1];
    return 0;
}

size_t scz__lossy_cuda_dec_scratch(const scz_cuda_batch *b) { return layout(b).total; }

cudaError_t scz__lossy_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                   const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                   unsigned long long *err, void *scratch, cudaStream_t s) {
    const Layout L = layout(b);
    uint8_t *sc = static_cast<uint8_t *>(scratch);
    Params p;
    memset(&p, 0, sizeof p);
    p.pay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.err = err;
    p.meta = reinterpret_cast<LMeta *>(sc + L.meta);
    p.bad = reinterpret_cast<uint32_t *>(sc + L.bad);
    p.ib = reinterpret_cast<uint64_t *>(sc + L.ib);
    p.tables = reinterpret_cast<uint32_t *>(sc + L.tables);
    p.ctabs = sc + L.ctabs;
    p.longs = reinterpret_cast<uint16_t *>(sc + L.longs);
    p.codes = reinterpret_cast<uint16_t *>(sc + L.codes);
    p.codes8 = sc + L.codes8;
    p.ct0 = reinterpret_cast<uint32_t *>(sc + L.ct0);
    p.ctv = reinterpret_cast<uint32_t *>(sc + L.ctv);
    p.ctl = reinterpret_cast<uint32_t *>(sc + L.ctl);
    p.cvr = b->h->knobs[2] ? reinterpret_cast<uint32_t *>(sc + L.cvr) : nullptr;
    p.rsum = reinterpret_cast<uint64_t *>(sc + L.rsum);
    p.bsum = reinterpret_cast<uint64_t *>(sc + L.bsum);
    p.ckpt = reinterpret_cast<uint64_t *>(sc + L.ckpt);
    p.done = reinterpret_cast<uint32_t *>(sc + L.done);
    p.hctr = reinterpret_cast<unsigned long long *>(sc + L.hctr);
    p.lrun = reinterpret_cast<uint4 *>(sc + L.lrun);
    p.lcap = L.lcap;
    p.bodies = sc + L.bodies;
    p.Rv = reinterpret_cast<double *>(sc + L.Rv);
    p.vbits = reinterpret_cast<uint32_t *>(sc + L.vbits);
    p.vbw = L.vbw;
    p.sw = reinterpret_cast<Sweep *>(sc + L.sw);
    p.bodycap = L.bodycap;
    p.level = b->h->knobs[2];
    p.nsl = L.nsl;
    p.swn = L.swn;
    p.gfull = b->full;
    p.glast = b->last;
    p.count_full = b->full.count;
    p.count_last = b->last.count;
    p.raw_full = b->raw_full;
    p.h = 2.0 * b->h->eb_abs;
    p.n = b->n;
    p.c0 = b->c0;
    p.es = b->full.esize;
    p.r = b->h->knobs[0];
    p.long_cap = L.long_cap;
    p.tpc = L.tpc;
    p.btpc = L.btpc;
    p.ckpc = L.ckpc;
    p.dpc = L.dpc;
    cudaError_t e;
    ScProf pf("lossy decode", s);
    /* the verbatim bitmaps (k_ires sets their bits) zeroed first: a memset
     * between the programmatic launches below would break their chain */
    if (p.level && (e = cudaMemsetAsync(p.vbits, 0, (size_t)b->n * L.vbw * sizeof(uint32_t), s))) return e;
    if (p.level) { /* headers, then the back end's streams into the bodies' scratch */
        k_head1<<<b->n, NT, 0, s>>>(p);
        if ((e = cudaFuncSetAttribute(k_bhuff, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) ||
            (e = scz_ku::launch_pdl(k_items, 1, NT, 0, s, p)) ||
            (e = scz_ku::launch_pdl(k_bhuff, persistent_grid((const void *)k_bhuff), NT, 0, s, p)))
            return e;
        pf.mark("back end");
    }
    /* (k_books zeroes the tile counts k_huff makes for Huffman chunks, its
     * item counters and k_rfast's blocks done: no memset between the
     * programmatic launches of the chain below) */
    if ((e = cudaFuncSetAttribute(k_huff<false>, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) ||
        (e = cudaFuncSetAttribute(k_huff<true>, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) ||
        (e = cudaFuncSetAttribute(k_recon<true>, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) ||
        (e = cudaFuncSetAttribute(k_recon<false>, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) ||
        (e = cudaFuncSetAttribute(k_rfast<true>, cudaFuncAttributePreferredSharedMemoryCarveout, 100)) ||
        (e = cudaFuncSetAttribute(k_rfast<false>, cudaFuncAttributePreferredSharedMemoryCarveout, 100)))
        return e;
    using scz_ku::launch_pdl;
    if ((e = launch_pdl(k_prep, b->n, NT, 0, s, p))) return e;
    if ((e = launch_pdl(k_books, b->n * L.nsl, NT, 0, s, p)) || (e = launch_pdl(k_items, 1, NT, 0, s, p))) return e;
    pf.mark("prep");
    if ((e = launch_pdl(k_huff<false>, scz_ku::persistent_grid((const void *)k_huff<false>, NTH, 0), NTH, 0, s, p)) ||
        (!p.level &&
         (e = launch_pdl(k_huff<true>, scz_ku::persistent_grid((const void *)k_huff<true>, NTH, 0), NTH, 0, s, p))))
        return e;
    pf.mark("huff");
    /* the run-length workflow's kernels only where the chunk table has a
     * chunk of that form (codec_info = workflow, which k_prep checks) */
    const bool rle = b->infos >> LZ_WF_RLE & 1u;
    const int g = persistent_grid((const void *)k_rsum);
    if (rle && ((e = launch_pdl(k_rsum, g, NT, 0, s, p)) || (e = launch_pdl(k_rscan, b->n, NT, 0, s, p)) ||
                (e = launch_pdl(k_rexp, persistent_grid((const void *)k_rexp), NT, 0, s, p)) ||
                (e = launch_pdl(k_rlong, persistent_grid((const void *)k_rlong), NT, 0, s, p))))
        return e;
    pf.mark("runs");
    if (rle) {
        const uint64_t nct = (uint64_t)b->n * L.tpc;
        const int pg = persistent_grid((const void *)k_ctile);
        if ((e = launch_pdl(k_ctile, (unsigned)(nct < (uint64_t)pg ? nct : (uint64_t)pg), NT, 0, s, p))) return e;
    }
    if ((e = launch_pdl(k_cscan, b->n, NT, 0, s, p)) || (e = launch_pdl(k_btile, g, NT, 0, s, p)) ||
        (e = launch_pdl(k_bscan, b->n, NT, 0, s, p)))
        return e;
    pf.mark("counts");
    if ((e = launch_pdl(k_bckpt, persistent_grid((const void *)k_bckpt), NT, 0, s, p))) return e;
    pf.mark("outliers");
    if (p.es == 4) e = launch_pdl(k_rfast<true>, persistent_grid((const void *)k_rfast<true>), NT, 0, s, p);
    else e = launch_pdl(k_rfast<false>, persistent_grid((const void *)k_rfast<false>), NT, 0, s, p);
    if (e) return e;
    pf.mark("rfast");
    if (p.es == 4) e = launch_pdl(k_recon<true>, persistent_grid((const void *)k_recon<true>), NT, 0, s, p);
    else e = launch_pdl(k_recon<false>, persistent_grid((const void *)k_recon<false>), NT, 0, s, p);
    if (e) return e;
    pf.mark("recon");
    if (p.level) { /* interpolated chunks: outliers and verbatim values, then sweep by sweep */
        if (p.es == 4) e = scz_ku::launch_pdl(k_ires<true>, b->n * L.tpc, NT, 0, s, p);
        else e = scz_ku::launch_pdl(k_ires<false>, b->n * L.tpc, NT, 0, s, p);
        if (e) return e;
        pf.mark("interp lists");
        /* blocks per chunk: a persistent grid over the batch */
        /* elements per thread and step: SCZ_LZ1_SV (1, 2, 4), default 1 (H100,
         * wmag REL 1e-3: 184 / 170 / 161 GB/s for the whole decode) */
        const int sv =
            scz_ku::env_once("SCZ_LZ1_SV", [](const char *ev) { return ev && (atoi(ev) == 2 || atoi(ev) == 4) ? atoi(ev) : 1; });
        const void *kf = p.es == 4 ? (sv == 1   ? (const void *)k_sweep<true, 1>
                                      : sv == 2 ? (const void *)k_sweep<true, 2>
                                                : (const void *)k_sweep<true, 4>)
                                   : (sv == 1   ? (const void *)k_sweep<false, 1>
                                      : sv == 2 ? (const void *)k_sweep<false, 2>
                                                : (const void *)k_sweep<false, 4>);
        /* the finest level by rows (k_rows) where the output is 16-byte
         * aligned; SCZ_LZ1_ROWS=0: by k_sweep, as the other levels */
        const int rows_env = scz_ku::env_once("SCZ_LZ1_ROWS", [](const char *ev) { return ev && atoi(ev) == 0 ? 0 : 1; });
        /* classes 1 and 2 by walks (k_rwalk), and the level of stride 2 by
         * rows and walks too; SCZ_LZ1_WALK=0: the finest level by k_rows,
         * the level of stride 2 by k_sweep */
        const int walk = scz_ku::env_once("SCZ_LZ1_WALK", [](const char *ev) { return ev && atoi(ev) == 0 ? 0 : 1; });
        const uint32_t rows = rows_env && ((uintptr_t)d_dst & 15) == 0 ? 1u | (walk ? 2u : 0u) : 0u;
        const int pg = persistent_grid(kf);
        uint64_t exf[3], exl[3];
        const uint32_t rkf = coding_extents(b->full, exf), rkl = coding_extents(b->last, exl);
        /* the leading sweeps with at most CO_MAX elements by k_coarse */
        uint32_t j0 = 0;
        while (j0 < p.swn && lz1_sweep_bound(rkf, exf, j0) <= CO_MAX && lz1_sweep_bound(rkl, exl, j0) <= CO_MAX) j0++;
        if (j0 && sv == 1)
            for (uint32_t cb = 0; cb < b->n; cb += 65535) {
                const dim3 gs(1, b->n - cb < 65535 ? b->n - cb : 65535);
                if (p.es == 4) e = scz_ku::launch_pdl(k_coarse<true>, gs, NTF, 0, s, p, j0, cb, rows);
                else e = scz_ku::launch_pdl(k_coarse<false>, gs, NTF, 0, s, p, j0, cb, rows);
                if (e) return e;
            }
        else
            j0 = 0; /* SCZ_LZ1_SV 2 or 4: every sweep by k_sweep */
        /* the sweeps of the levels by rows (the last three, or six with the
         * level of stride 2; rows_sweep_d) need no k_sweep launch when every
         * chunk's geometry has them */
        const uint32_t nsf = lz1_nsweeps(rkf, exf), nsl = lz1_nsweeps(rkl, exl);
        auto rows_j = [&](uint32_t rk, const uint64_t *ex, uint32_t ns, uint32_t j) {
            if (j > ns) return true; /* no such sweep */
            if (!rows || rk != 3 || !rows_ext(ex, 1)) return false;
            if (j + 2 >= ns) return true;
            return (rows & 2) && rows_ext(ex, 2) && j + 5 >= ns; /* (S = 1 holds) */
        };
        const uint32_t gp = (uint32_t)pg / b->n > 0 ? (uint32_t)pg / b->n : 1;
        for (uint32_t j = j0; j < p.swn; j++) {
            if (rows_j(rkf, exf, nsf, j) && rows_j(rkl, exl, nsl, j)) continue; /* by rows in every chunk */
            /* no more blocks than the sweep's elements need (the coarse
             * levels' sweeps are small; empty blocks cost launch time) */
            const uint64_t mf = lz1_sweep_bound(rkf, exf, j), ml = lz1_sweep_bound(rkl, exl, j);
            const uint64_t need = ((mf > ml ? mf : ml) + (uint64_t)NT * sv - 1) / ((uint64_t)NT * sv);
            const uint32_t gx = need < gp ? (uint32_t)(need ? need : 1) : gp;
            for (uint32_t cb = 0; cb < b->n; cb += 65535) { /* grid y: at most 65535 chunks a launch */
                /* programmatic dependent launches: a sweep's blocks start
                 * while the one before drains */
                const dim3 gs(gx, b->n - cb < 65535 ? b->n - cb : 65535);
                if (p.es == 4 && sv == 1) e = scz_ku::launch_pdl(k_sweep<true, 1>, gs, NT, 0, s, p, j, cb, rows);
                else if (p.es == 4 && sv == 2) e = scz_ku::launch_pdl(k_sweep<true, 2>, gs, NT, 0, s, p, j, cb, rows);
                else if (p.es == 4) e = scz_ku::launch_pdl(k_sweep<true, 4>, gs, NT, 0, s, p, j, cb, rows);
                else if (sv == 1) e = scz_ku::launch_pdl(k_sweep<false, 1>, gs, NT, 0, s, p, j, cb, rows);
                else if (sv == 2) e = scz_ku::launch_pdl(k_sweep<false, 2>, gs, NT, 0, s, p, j, cb, rows);
                else e = scz_ku::launch_pdl(k_sweep<false, 4>, gs, NT, 0, s, p, j, cb, rows);
                if (e) return e;
            }
        }
        pf.mark("sweeps");
        /* the level of stride 2 (rows bit 1), then the finest, three classes
         * each: class 0 by k_rows, classes 1 and 2 by k_rwalk (k_rows with
         * SCZ_LZ1_WALK=0), each on a persistent grid of its own residency */
        for (uint32_t lv = 2; lv-- > 0;) {
            if (!(rows >> lv & 1)) continue;
            for (uint32_t cls = 0; cls < 3; cls++)
                for (uint32_t cb = 0; cb < b->n; cb += 65535) {
                    const bool wk = cls && walk;
                    void (*kr)(Params, uint32_t, uint32_t) =
                        p.es == 4 ? (wk ? (lv ? k_rwalk<true, 2> : k_rwalk<true, 1>) : (lv ? k_rows<true, 2> : k_rows<true, 1>))
                                  : (wk ? (lv ? k_rwalk<false, 2> : k_rwalk<false, 1>) : (lv ? k_rows<false, 2> : k_rows<false, 1>));
                    const int rg = persistent_grid((const void *)kr);
                    const uint32_t rx = (uint32_t)rg / b->n > 0 ? (uint32_t)rg / b->n : 1;
                    const dim3 gs(rx, b->n - cb < 65535 ? b->n - cb : 65535);
                    e = scz_ku::launch_pdl(kr, gs, NT, 0, s, p, cls, cb);
                    if (e) return e;
                }
        }
        if (rows) pf.mark("finest level");
    }
    return cudaGetLastError();
}

cudaError_t scz__lossy_cuda_dec_probe(void) {
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k_huff<false>);
    if (!e) e = cudaFuncGetAttributes(&a, k_recon<true>);
    if (!e) e = cudaFuncGetAttributes(&a, k_sweep<true, 1>);
    return e;
}

const char *scz__lossy_cuda_dec_error_text(unsigned code) {
    switch (code) {
    case LZE_HEADER: return "lossy chunk header is invalid (size, workflow vs codec_info, reserved bytes)";
    case LZE_STORED: return "stored lossy chunk is malformed";
    case LZE_SHAPE: return "lossy chunk: coding rank or block shape invalid";
    case LZE_COUNTS: return "lossy chunk: outlier or verbatim counts out of range";
    case LZE_STREAM: return "Huffman stream header is inconsistent (alphabet, count, bits or size)";
    case LZE_CODEBOOK: return "Huffman codebook is malformed or not a prefix code";
    case LZE_PADDING: return "Huffman stream: non-zero padding";
    case LZE_BITS: return "Huffman bitstream is corrupt (gap, segment entry or codeword)";
    case LZE_LONG:
        return "Huffman codebook with more codes longer than 11 bits than the chunk has elements (no writer "
               "produces this; not decoded on the GPU)";
    case LZE_RUNS: return "lossy chunk: run count or run lengths invalid";
    case LZE_SECTIONS: return "lossy chunk: section sizes do not add up";
    case LZE_OLIST: return "lossy chunk: outlier list malformed (varints, count or trailing bytes)";
    case LZE_OUTLIER: return "lossy chunk: outliers or verbatim values do not match the codes";
    case LZE_VERB: return "lossy chunk: verbatim count mismatch";
    case LZE_L1HEAD:
        return "lossy chunk: invalid predictor, back end, axis order, radius, sweep streams, level bounds or reserved "
               "bytes";
    case LZE_BACKEND: return "lossy chunk: back end stream size or trailing bytes invalid";
    case LZE_LIMIT:
        return "lossy chunk beyond the GPU decoder's limits (more than 8 sweep streams, or a back end body above 4.5 x "
               "the raw chunk: no writer produces these; not decoded on the GPU)";
    }
    return NULL;
}

/*
 * lossy_enc.cu -- lossy compression (codec id 2, FORMAT.md 7) on the GPU:
 * writes exactly the bytes of the CPU codec (lossy.c, lossy_kern.h). The
 * chunks of a batch go in groups (up to 256 Mi elements, the whole batch
 * of most calls; the scratch is sized for one group), each group in one
 * launch per step, all on the device, with one wait per group (after
 * k_ltry: which steps follow and their grids):
 *
 *   k_qfast<T>    whole blocks of the writer's shapes without verbatim
 *                 values or large integers, values in registers: codes,
 *                 code changes, the histogram; blocks with outliers also
 *                 their outlier statistics (a bitmap in code order) and a
 *                 place in olist; the other blocks are listed for:
 *   k_quant<T,0>  one block of 256 threads per listed 4096-element block:
 *                 prequantization and the verbatim check in binary64
 *                 (7.3), Lorenzo prediction errors as the n-dimensional
 *                 forward difference of the block's integers in shared
 *                 memory; a block with verbatim elements first replaces
 *                 their integers by their predictions row by row (a
 *                 segmented scan per row: Q = P at verbatim elements, so
 *                 the rest is predicted from what a decoder reconstructs);
 *                 codes (7.4), the verbatim "same as previous" decision
 *                 inside the block; per block: outlier count, their varint
 *                 bytes, first/last outlier, verbatim count, first/last
 *                 verbatim bits, code changes;
 *   k_lscan       one block per chunk: the first verbatim element of a
 *                 block that repeats the last one of an earlier block
 *                 becomes 2r+1; outlier byte offsets, verbatim indices,
 *                 number of runs (scans over the blocks);
 *   Huffman       the codes' histogram, codebook and size per chunk
 *                 (scz__hse_plan, the kernels of the huffman codec);
 *   run-length    where the auto rule (7.5) asks or the knob forces it:
 *                 k_rtile / k_rscan / k_rwrite cut the codes into runs
 *                 and pieces of 65536 (per 4096-code tile: run starts, a
 *                 scan over the tiles, then codes and lengths, in the run
 *                 slots k_ltry assigns, counted into their histograms);
 *                 their two Huffman streams are planned too;
 *   k_ldecide     the workflow and the payload size (stored fallback);
 *   k_loff        payload offsets of the group's chunks (a scan);
 *   writes        headers (k_lhdr), stored chunks (k_lstored), the chosen
 *                 Huffman streams (scz__hse_write), then k_quant<T,1>
 *                 (its listed blocks with outliers or verbatim values) and
 *                 k_qout<T> (olist) recompute their blocks and write the
 *                 outlier list and the values.
 * Integer sums and minima over atomics do not depend on their order: the
 * bytes are deterministic and equal the CPU's.
 */
#include "../util/ieee.h" /* first: lossy_interp_hd.h's host side seals its operations */
#include "../entropy/huffman_enc_cuda.h"
#include "lossy_cuda.h"
#include "lossy_interp_hd.h"
#include "../cuda/kutil.h"
#include "../cuda/prof.h"

#include <cub/cub.cuh>

#include <type_traits>

namespace {

constexpr uint32_t NT = 256;       /* threads per block */
constexpr uint32_t BLK = 4096;     /* elements of a lossy block, at most */
constexpr uint32_t BPT = BLK / NT; /* elements per thread in blocked order */
constexpr uint32_t RTILE = 4096;   /* codes per run-length tile */
constexpr uint32_t NONE = 0xffffffffu;
constexpr uint64_t NOFF = ~0ull;
constexpr uint32_t STORE_PIECE = 16384;
constexpr uint32_t HK = 2048; /* alphabets up to HK are counted by the quantization kernels */
constexpr uint32_t QGRID = 1024; /* k_quant's blocks at most (they walk the list of blocks) */

using scz_ku::Bump;

/* Chunk geometry (7.2): coding extents, block sides, blocks. */
struct LGeo {
    uint32_t rank, lb[3], nb[3], nblocks, e[3];
    uint32_t dm[2], dl[2]; /* b / nb[0] and t / nb[1] by multiplication (blk) */
    uint64_t n;
};

/* Division of any 32-bit n by d >= 1 by a multiplier (lossy_interp_hd.h's
 * lz1_div, which test_lossy checks), its two words kept apart in LGeo. */
void fdiv_make(uint32_t d, uint32_t *m, uint32_t *l) {
    const lz1_div v = lz1_div_make(d);
    *m = v.m, *l = v.l;
}
__device__ __forceinline__ uint32_t fdiv(uint32_t n, uint32_t m, uint32_t l) { return lz1_div_q(n, lz1_div{m, l}); }

LGeo lgeo(const scz_chunk_geom *g) {
    LGeo z;
    memset(&z, 0, sizeof z);
    z.e[0] = z.e[1] = z.e[2] = 1;
    unsigned r = 0;
    for (unsigned d = 0; d < g->rank; d++)
        if (g->dims[d] != 1 && r < 3) z.e[r++] = (uint32_t)g->dims[d];
    z.rank = r ? r : 1;
    z.n = g->count;
    uint64_t nb = 1;
    for (unsigned d = 0; d < 3; d++) {
        z.lb[d] = d < z.rank ? lz_block_log2[z.rank][d] : 0;
        z.nb[d] = (uint32_t)((z.e[d] + (1u << z.lb[d]) - 1) >> z.lb[d]);
        nb *= z.nb[d];
    }
    z.nblocks = (uint32_t)nb;
    fdiv_make(z.nb[0], &z.dm[0], &z.dl[0]);
    fdiv_make(z.nb[1], &z.dm[1], &z.dl[1]);
    return z;
}

struct Blk {
    uint32_t ex, ey, ez, nel;
    uint64_t base, co; /* first element (array order), first code */
};

__device__ __forceinline__ Blk blk(const LGeo &g, uint32_t b) {
    Blk k;
    const uint32_t t = fdiv(b, g.dm[0], g.dl[0]), bx = b - t * g.nb[0];
    const uint32_t bz = fdiv(t, g.dm[1], g.dl[1]), by = t - bz * g.nb[1];
    const uint64_t x0 = (uint64_t)bx << g.lb[0], y0 = (uint64_t)by << g.lb[1], z0 = (uint64_t)bz << g.lb[2];
    const uint64_t sx = 1ull << g.lb[0], sy = 1ull << g.lb[1], sz = 1ull << g.lb[2];
    k.ex = (uint32_t)(g.e[0] - x0 < sx ? g.e[0] - x0 : sx);
    k.ey = (uint32_t)(g.e[1] - y0 < sy ? g.e[1] - y0 : sy);
    k.ez = (uint32_t)(g.e[2] - z0 < sz ? g.e[2] - z0 : sz);
    k.nel = k.ex * k.ey * k.ez;
    k.base = (z0 * g.e[1] + y0) * g.e[0] + x0;
    k.co = z0 * g.e[1] * g.e[0] + (uint64_t)k.ez * y0 * g.e[0] + (uint64_t)k.ez * k.ey * x0;
    return k;
}

struct LMeta {
    uint64_t n, nout, nvnew, obytes, runs, size, off, oout, vout;
    uint32_t try_rle, wf, nruns;
};

struct LP {
    const uint8_t *src; /* the group's first raw chunk */
    uint64_t raw_full;
    uint8_t *pay;
    uint64_t *choff, *chsize, *chinfo;
    uint16_t *codes; /* chunk c's codes at c * cf */
    uint64_t cf;
    LGeo gfull, glast;
    uint32_t ng, gc0, nlast, nbc; /* chunks, first chunk (batch index), group index of the batch's last chunk */
    /* per lossy block (chunk c's blocks at c * nbc) */
    uint32_t *bo_n, *bo_bytes, *bo_first, *bo_last, *bo_prev, *bv_n, *bv_first, *bv_off, *bchg;
    uint64_t *bv_fbits, *bv_lbits, *bo_off;
    uint8_t *bv_fix;
    /* per chunk */
    LMeta *meta;
    uint32_t *cntC, *cntR;
    uint64_t *sizeC, *bitsC, *sizeV, *sizeL, *offC, *offV, *offL;
    /* run-length workflow: chunk c's runs at rv + roff[c], rl + roff[c]
     * (k_ltry packs the chunks that evaluate it) */
    uint16_t *rv, *rl;
    uint64_t *roff;
    /* the run codes' and lengths' histograms (their sets'), counted by
     * k_rwrite; hv NULL: the run codes' set counts them itself */
    uint32_t *hv, *hl;
    uint32_t hvstride, hlstride;
    uint32_t rtiles;
    uint32_t *t_cnt, *t_last, *t_first, *t_base, *t_cut, *t_nxt;
    double eb, ebx2, recip;
    uint32_t r, knob, es;
    uint32_t *hist; /* codes' histogram (the Huffman set's), chunk c at c * hstride; NULL: counted later */
    uint32_t hstride;
    /* ctl[0]: blocks that k_qfast left to k_quant, listed in slow[] (chunk
     * c's block b as c * nbc + b, in no particular order); ctl[1]: nonzero
     * when a chunk of the group evaluates the run-length workflow; ctl[2],
     * ctl[3]: the low and high words of the run slots those chunks need;
     * ctl[4]: blocks in olist */
    uint32_t *ctl, *slow;
    uint32_t *olist; /* blocks k_qfast kept that have outliers (ctl[4] of them) */
};

/* k_qfast zeroes its 16-byte aligned histogram (HK >= K words) in whole
 * uint4. (Flushing four bins a thread was slower: a warp's atomics then
 * fall on four times the lines, H100 k_qfast 432 -> 699 us.) */
__device__ __forceinline__ void hist_zero4(uint32_t K, uint32_t *sh) {
    uint4 *v = reinterpret_cast<uint4 *>(sh);
    for (uint32_t k = threadIdx.x; k < (K + 3) / 4; k += NT) v[k] = make_uint4(0, 0, 0, 0);
}

/* The block's code counts (shared memory, K <= HK) added to its chunk's
 * histogram: nonzero bins only. */
__device__ __forceinline__ void hist_flush(const LP &p, uint32_t cl, const uint32_t *sh) {
    uint32_t *H = p.hist + (uint64_t)cl * p.hstride;
    const uint32_t K = 2 * p.r + 2;
    for (uint32_t k = threadIdx.x; k < K; k += NT) {
        const uint32_t v = sh[k];
        if (v) atomicAdd(&H[k], v);
    }
}

__device__ __forceinline__ const LGeo &geo(const LP &p, uint32_t cl) { return cl == p.nlast ? p.glast : p.gfull; }

__device__ __forceinline__ unsigned vlen(uint64_t v) {
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

__device__ __forceinline__ uint64_t zigzag(int64_t v) {
    const uint64_t u = (uint64_t)v;
    return (u << 1) ^ (0 - (u >> 63));
}

__device__ __forceinline__ uint8_t *put_varint(uint8_t *q, uint64_t v) {
    while (v >= 0x80) {
        *q++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *q++ = (uint8_t)v;
    return q;
}

/* Prequantization and verification (7.3), binary64, each operation rounded
 * once (the *_rn intrinsics: no contraction whatever the flags). Returns 1
 * for a verbatim element, and for |x / 2eb| >= lim (LZ_QLIM: verbatim; the
 * fast path's QFAST_LIM: a block for k_quant). */
__device__ __forceinline__ int prequant(double x, double recip, double ebx2, double eb, bool f32, int64_t *q,
                                        double *err = nullptr, double lim = LZ_QLIM) {
    const double M = LZ_MAGIC;
    const double t = __dmul_rn(x, recip);
    const double tr = __dadd_rn(t, M);
    const double qd = __dsub_rn(tr, M);
    const double pr = __dmul_rn(qd, ebx2);
    const double xr = f32 ? (double)__double2float_rn(pr) : pr;
    const double e = fabs(__dsub_rn(x, xr));
    *q = (int64_t)((uint64_t)__double_as_longlong(tr) - (uint64_t)__double_as_longlong(M));
    if (err) *err = e;
    return !(fabs(t) < lim) | !(e <= eb);
}

/* k_qfast sums integers in int32: with |q| < 2^27 for every element of
 * its blocks, the Lorenzo error of 8 terms stays below 2^30, exact (k_quant
 * does the same in 64 bits, modulo 2^64). |x / 2eb| < 2^27 - 1 guarantees
 * it (q rounds x / 2eb); a block with a larger value goes to k_quant,
 * which writes the same bytes. */
constexpr double QFAST_LIM = 134217727.0;

/* Segmented scan element: f = 1 starts a new segment with value v, f = 0
 * adds v to the running value. */
struct Seg {
    uint64_t v;
    uint32_t f;
};
struct SegOp {
    __device__ __forceinline__ Seg operator()(const Seg &a, const Seg &b) const {
        Seg c;
        c.f = a.f | b.f;
        c.v = b.f ? b.v : a.v + b.v;
        return c;
    }
};

/* Exclusive "last valid" and sums of the blocked phase, one per thread. */
struct Agg {
    int32_t pv, po; /* last verbatim / outlier code index of the thread, -1 none */
};
struct AggOp {
    __device__ __forceinline__ Agg operator()(const Agg &a, const Agg &b) const {
        Agg c;
        c.pv = b.pv >= 0 ? b.pv : a.pv;
        c.po = b.po >= 0 ? b.po : a.po;
        return c;
    }
};

using scz_ku::MaxOp;
struct MinOp {
    __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a < b ? a : b; }
};

template <typename T> struct Bits;
template <> struct Bits<float> {
    typedef uint32_t U;
};
template <> struct Bits<double> {
    typedef uint64_t U;
};

/* Fast pass 1 for whole blocks of the writer's shapes (4096, 64 x 64,
 * 16^3): the block's values stay in registers, 16 per thread at code
 * positions j = k * 256 + tid (1D, 3D: k = z) or rows 16 g + k of column
 * x (2D: tid = 64 g + x); the Lorenzo prediction error is the forward
 * difference along each axis (registers along k, shuffles and a small
 * shared exchange across lanes and warps), modulo 2^64 as in k_quant.
 * A block whose elements are all plainly coded gets its codes and
 * statistics here; any other block is marked (bchg = NONE) for k_quant. */
enum { QS_NONE = 0, QS_1D, QS_2D, QS_3D };

__device__ __forceinline__ int qshape(const LGeo &g, const Blk &k) {
    const uint32_t l0 = g.lb[0], l1 = g.lb[1], l2 = g.lb[2];
    if (k.ex != 1u << l0 || k.ey != 1u << l1 || k.ez != 1u << l2) return QS_NONE;
    if (l0 == 12 && l1 == 0 && l2 == 0) return QS_1D;
    if (l0 == 6 && l1 == 6 && l2 == 0) return QS_2D;
    if (l0 == 4 && l1 == 4 && l2 == 4) return QS_3D;
    return QS_NONE;
}

/* The block's outlier before code jc (*prev), from the bitmap obm (bit j:
 * code j is an outlier); false if jc is the block's first. */
__device__ __forceinline__ bool prev_outlier(const uint32_t *obm, uint32_t jc, uint32_t *prev) {
    uint32_t wi = jc >> 5, m = obm[wi] & ((1u << (jc & 31)) - 1u);
    while (!m && wi) m = obm[--wi];
    if (!m) return false;
    *prev = wi * 32 + 31 - (uint32_t)__clz(m);
    return true;
}

/* A block for k_quant: marked and listed. */
__device__ __forceinline__ void mark_slow(const LP &p, uint64_t sb) {
    p.bchg[sb] = NONE;
    p.slow[atomicAdd(&p.ctl[0], 1u)] = (uint32_t)sb;
}

/* Whole blocks with outliers but no verbatim element stay here too: pass
 * 1 (P2 false) counts their outliers and list bytes as k_quant does and
 * lists the block in olist (ctl[4]); pass 2 (P2 true, k_qout) recomputes
 * the block's errors and writes its outlier list. An outlier's place in
 * code order comes from a bitmap of the block's outliers (one ballot per
 * 32 consecutive codes). */
template <typename T, bool P2> __device__ __forceinline__ void qfast_block(const LP &p, uint32_t cl, uint32_t b) {
    __shared__ int32_t xs[NT / 32][16][16]; /* 3D: the upper half-warp's values for the next warp */
    __shared__ int32_t xe[NT / 32][16];     /* lane 31's values per warp */
    __shared__ uint32_t ce[NT / 32][16];    /* lane 31's codes per warp */
    __shared__ uint32_t s_chg[NT / 32];
    __shared__ __align__(16) uint32_t sh[HK];
    __shared__ uint32_t hspare[32];         /* the histogram's discarded adds (code r: counted in registers) */
    __shared__ uint32_t obm[BLK / 32];      /* outliers, bit jc of the block in code order */
    __shared__ uint16_t ob[BLK];            /* pass 2: list bytes of the outlier at jc, then their offsets */
    __shared__ uint32_t s_on, s_ob, s_of, s_ol;
    const uint32_t tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    const LGeo &g = geo(p, cl);
    if (b >= g.nblocks) return;
    const uint64_t sb = (uint64_t)cl * p.nbc + b;
    const Blk k = blk(g, b);
    const int shape = qshape(g, k);
    if (shape == QS_NONE) {
        if (tid == 0 && !P2) mark_slow(p, sb);
        return;
    }
    const T *src = reinterpret_cast<const T *>(p.src + (uint64_t)cl * p.raw_full) + k.base;
    const uint64_t e0 = g.e[0], e01 = (uint64_t)g.e[0] * g.e[1];
    const bool f32 = sizeof(T) == 4;
    const uint32_t r = p.r;
    const uint64_t span = 2 * (uint64_t)r - 1;
    if (p.hist)
        hist_zero4(2 * r + 2, sh); /* ordered by the barriers below */
    int32_t d[16];
    int bad = 0;
    if (shape == QS_3D) {
        const uint32_t x = tid & 15, y = tid >> 4;
        int32_t prev = 0;
#pragma unroll
        for (uint32_t z = 0; z < 16; z++) {
            int64_t q;
            bad |= prequant((double)src[z * e01 + y * e0 + x], p.recip, p.ebx2, p.eb, f32, &q, nullptr, QFAST_LIM);
            d[z] = (int32_t)q - prev;
            prev = (int32_t)q;
        }
#pragma unroll
        for (uint32_t z = 0; z < 16; z++) {
            const int32_t o = __shfl_up_sync(0xffffffffu, d[z], 1);
            if (x) d[z] -= o;
        }
        if (lane >= 16)
#pragma unroll
            for (uint32_t z = 0; z < 16; z++) xs[w][z][lane - 16] = d[z];
        bad = __syncthreads_or(bad);
        if (bad) {
            if (tid == 0 && !P2) mark_slow(p, sb);
            return;
        }
#pragma unroll
        for (uint32_t z = 0; z < 16; z++) {
            const int32_t o = __shfl_up_sync(0xffffffffu, d[z], 16);
            if (y) d[z] -= lane >= 16 ? o : xs[w - 1][z][lane];
        }
    } else if (shape == QS_2D) {
        /* thread (x, g) = (tid & 63, tid >> 6): rows 16 g + k */
        const uint32_t x = tid & 63, gq = tid >> 6;
        int32_t *ql = &xs[0][0][0]; /* q of each group's last row: [g][x] */
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            int64_t q;
            bad |= prequant((double)src[(16 * gq + kk) * e0 + x], p.recip, p.ebx2, p.eb, f32, &q, nullptr, QFAST_LIM);
            d[kk] = (int32_t)q;
        }
        ql[gq * 64 + x] = d[15];
        bad = __syncthreads_or(bad);
        if (bad) {
            if (tid == 0 && !P2) mark_slow(p, sb);
            return;
        }
        const int32_t above = gq ? ql[(gq - 1) * 64 + x] : 0;
#pragma unroll
        for (uint32_t kk = 15; kk >= 1; kk--) d[kk] -= d[kk - 1];
        d[0] -= above;
        if (lane == 31)
#pragma unroll
            for (uint32_t kk = 0; kk < 16; kk++) xe[w][kk] = d[kk];
        __syncthreads();
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            const int32_t o = __shfl_up_sync(0xffffffffu, d[kk], 1);
            if (x) d[kk] -= lane ? o : xe[w - 1][kk];
        }
    } else {
        /* 1D: element j = k * 256 + tid */
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            int64_t q;
            bad |= prequant((double)src[kk * NT + tid], p.recip, p.ebx2, p.eb, f32, &q, nullptr, QFAST_LIM);
            d[kk] = (int32_t)q;
        }
        if (lane == 31)
#pragma unroll
            for (uint32_t kk = 0; kk < 16; kk++) xe[w][kk] = d[kk];
        bad = __syncthreads_or(bad);
        if (bad) {
            if (tid == 0 && !P2) mark_slow(p, sb);
            return;
        }
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            const int32_t o = __shfl_up_sync(0xffffffffu, d[kk], 1);
            int32_t pr = o;
            if (lane == 0) pr = w ? xe[w - 1][kk] : (kk ? xe[NT / 32 - 1][kk - 1] : 0);
            d[kk] -= pr;
        }
    }
    /* codes; outliers are code 0 */
    uint32_t c[16];
    int out = 0;
#pragma unroll
    for (uint32_t kk = 0; kk < 16; kk++) {
        const bool in = (uint32_t)d[kk] + (r - 1) < (uint32_t)span;
        c[kk] = in ? (uint32_t)(d[kk] + (int32_t)r) : LZ_CODE_OUTLIER;
        out |= !in;
    }
    if (lane == 31)
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) ce[w][kk] = c[kk];
    out = __syncthreads_or(out);
    /* code index in the block of element kk of this thread */
    auto jcode = [&](uint32_t kk) -> uint32_t {
        return shape == QS_2D ? (16 * (tid >> 6) + kk) * 64 + (tid & 63) : kk * NT + tid;
    };
    if (out) {
        /* the bitmap: 32 consecutive codes per warp and kk */
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            const unsigned m = __ballot_sync(0xffffffffu, c[kk] == LZ_CODE_OUTLIER);
            if (lane == 0) obm[jcode(kk) >> 5] = m;
        }
        if (tid == 0) {
            s_on = s_ob = 0;
            s_of = NONE;
            s_ol = 0;
        }
        __syncthreads();
        /* list bytes of each outlier: its gap after the previous one (the
         * block's first: k_lscan's or pass 2's business), its error */
        uint32_t nb = 0, no = 0, fo = NONE, lo = 0;
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            const uint32_t jc = jcode(kk);
            uint32_t bytes = 0;
            if (c[kk] == LZ_CODE_OUTLIER) {
                bytes = vlen(zigzag((int64_t)d[kk]));
                uint32_t pj;
                if (prev_outlier(obm, jc, &pj)) bytes += vlen((uint64_t)(jc - pj - 1));
                else if (P2) bytes += vlen(k.co + jc - p.bo_prev[sb]);
                nb += bytes;
                no++;
                fo = jc < fo ? jc : fo;
                lo = jc > lo ? jc : lo;
            }
            if (P2) ob[jc] = (uint16_t)bytes;
        }
        if (!P2) {
            if (no) {
                atomicAdd(&s_on, no);
                atomicAdd(&s_ob, nb);
                atomicMin(&s_of, fo);
                atomicMax(&s_ol, lo);
            }
        } else {
            /* offsets in code order: a blocked scan of ob */
            typedef cub::BlockScan<uint32_t, NT> OScan;
            __shared__ typename OScan::TempStorage ots;
            __syncthreads();
            uint32_t v[BLK / NT];
#pragma unroll
            for (uint32_t i = 0; i < BLK / NT; i++) v[i] = ob[tid * (BLK / NT) + i];
            OScan(ots).ExclusiveSum(v, v);
#pragma unroll
            for (uint32_t i = 0; i < BLK / NT; i++) ob[tid * (BLK / NT) + i] = (uint16_t)v[i];
            __syncthreads();
            uint8_t *op0 = p.pay + p.meta[cl].oout + p.bo_off[sb];
#pragma unroll
            for (uint32_t kk = 0; kk < 16; kk++) {
                if (c[kk] != LZ_CODE_OUTLIER) continue;
                const uint32_t jc = jcode(kk);
                uint32_t pj;
                const uint64_t gap = prev_outlier(obm, jc, &pj) ? (uint64_t)(jc - pj - 1) : k.co + jc - p.bo_prev[sb];
                uint8_t *op = put_varint(op0 + ob[jc], gap);
                put_varint(op, zigzag((int64_t)d[kk]));
            }
            return;
        }
    }
    if (P2) return;
    /* code changes in code order, and the codes */
    uint16_t *cd = p.codes + (uint64_t)cl * p.cf + k.co;
    uint32_t chg = 0;
    /* A lane 0's predecessor comes from ce (another warp's lane 31): every
     * lane loads it (one broadcast word) and selects, rather than a branch
     * per code for lane 0 alone (H100: a third of k_qfast's instructions
     * were its branches and reconvergence). ce as one array: cf[i0 + kk]. */
    const uint32_t *cf = &ce[0][0];
    if (shape == QS_2D) {
        const uint32_t x = tid & 63, gq = tid >> 6;
        /* lane 0: x = 32, lane 31 of the even warp (row 16 gq + kk); x = 0,
         * x = 63 of the row above: the odd warp's row kk - 1, for kk = 0
         * the previous group's last row (none in group 0) */
        const int i0 = x ? (int)(w - 1) * 16 : (int)(w + 1) * 16 - 1;
        const int iz = x ? (int)(w - 1) * 16 : gq ? (int)(w - 1) * 16 + 15 : 0;
        const bool has0 = lane || x || gq;
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            const uint32_t o = __shfl_up_sync(0xffffffffu, c[kk], 1);
            const uint32_t pe = cf[kk ? i0 + (int)kk : iz];
            const uint32_t pr = lane ? o : pe;
            chg += (kk || has0) && pr != c[kk];
            cd[(16 * gq + kk) * 64 + x] = (uint16_t)c[kk];
        }
    } else {
        /* lane 0: lane 31 of the previous warp, for warp 0 the last warp's
         * previous kk (none for the block's first code) */
        const int i0 = w ? (int)(w - 1) * 16 : (int)(NT / 32 - 1) * 16 - 1;
        const bool has0 = lane || w;
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            const uint32_t o = __shfl_up_sync(0xffffffffu, c[kk], 1);
            const uint32_t pe = cf[kk || w ? i0 + (int)kk : 0];
            const uint32_t pr = lane ? o : pe;
            chg += (kk || has0) && pr != c[kk];
            cd[kk * NT + tid] = (uint16_t)c[kk];
        }
    }
    if (p.hist) {
        /* the most frequent code, r, counted in registers (per warp: one
         * shared atomic per code is cheaper than aggregating equal codes
         * with __match_any_sync, or counting r - 1 and r + 1 too) */
        uint32_t nr = 0;
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            /* no branch: a lane with code r adds to its own spare word */
            const bool isr = c[kk] == r;
            nr += isr;
            atomicAdd(isr ? &hspare[lane] : &sh[c[kk]], 1u);
        }
#pragma unroll
        for (uint32_t o = 16; o; o >>= 1) nr += __shfl_down_sync(0xffffffffu, nr, o);
        if (lane == 0 && nr) atomicAdd(&sh[r], nr);
    }
#pragma unroll
    for (uint32_t o = 16; o; o >>= 1) chg += __shfl_down_sync(0xffffffffu, chg, o);
    if (lane == 0) s_chg[w] = chg;
    __syncthreads();
    if (p.hist) hist_flush(p, cl, sh);
    if (tid == 0) {
        uint32_t t = 0;
        for (uint32_t i = 0; i < NT / 32; i++) t += s_chg[i];
        p.bo_n[sb] = out ? s_on : 0;
        p.bo_bytes[sb] = out ? s_ob : 0; /* without the varint of the first outlier's gap */
        p.bo_first[sb] = out ? s_of : NONE;
        p.bo_last[sb] = out ? s_ol : 0;
        p.bv_n[sb] = 0;
        p.bv_first[sb] = NONE;
        p.bchg[sb] = t;
        if (out) p.olist[atomicAdd(&p.ctl[4], 1u)] = (uint32_t)sb;
    }
}

/* float32: 5 blocks per SM (48 registers, no spills; 64 gave 4): a block
 * waits for its 16 loads a thread before anything else, so more blocks in
 * flight hide more of that wait (H100 wmag REL 1e-3: 401 -> 374 us; 6
 * blocks spill). float64 keeps 4 (with 5, pressure REL 1e-3 lost 4%). */
template <typename T> __global__ void __launch_bounds__(NT, sizeof(T) == 4 ? 5 : 4) k_qfast(LP p) {
    qfast_block<T, false>(p, blockIdx.y, blockIdx.x);
}

/* Pass 2 of the blocks k_qfast kept that have outliers (olist). */
template <typename T> __global__ void __launch_bounds__(NT) k_qout(LP p) {
    const uint32_t n = p.ctl[4];
    for (uint32_t i = blockIdx.x; i < n; i += gridDim.x) {
        const uint32_t sb = p.olist[i], cl = sb / p.nbc;
        if (p.meta[cl].wf != LZ_WF_STORED) qfast_block<T, true>(p, cl, sb % p.nbc);
        __syncthreads(); /* the block's shared memory is reused */
    }
}

/* One block of k_quant (chunk cl, block b). */
template <typename T, bool P2> __device__ __forceinline__ void quant_block(const LP &p, uint32_t cl, uint32_t b) {
    typedef typename Bits<T>::U UB;
    typedef cub::BlockScan<Seg, NT, cub::BLOCK_SCAN_WARP_SCANS> SScan;
    typedef cub::BlockScan<Agg, NT, cub::BLOCK_SCAN_WARP_SCANS> AScan;
    typedef cub::BlockScan<uint32_t, NT, cub::BLOCK_SCAN_WARP_SCANS> UScan;
    __shared__ union {
        typename SScan::TempStorage s;
        typename AScan::TempStorage a;
        typename UScan::TempStorage u;
    } ts;
    __shared__ int64_t sq[BLK];
    __shared__ uint16_t sc[BLK];
    __shared__ uint32_t svm[BLK / 32]; /* verbatim flags, bit j */
    __shared__ uint32_t s_nout, s_bytes, s_fo, s_lo, s_nv, s_fv, s_lv, s_chg;
    const uint32_t tid = threadIdx.x;
    const LGeo &g = geo(p, cl);
    const uint64_t sb = (uint64_t)cl * p.nbc + b;
    auto sv = [&](uint32_t j) -> uint32_t { return svm[j >> 5] >> (j & 31) & 1u; };
    if (P2) {
        if (p.meta[cl].wf == LZ_WF_STORED) return;
        if (p.bo_n[sb] == 0 && p.bv_n[sb] == 0) return;
    }
    const Blk k = blk(g, b);
    const uint32_t lb0 = g.lb[0], lb1 = g.lb[1], lb01 = lb0 + lb1, sx = 1u << lb0, sy = 1u << lb1;
    const uint32_t sxy = 1u << lb01, full = 1u << (lb01 + g.lb[2]);
    const uint64_t e0 = g.e[0], e01 = (uint64_t)g.e[0] * g.e[1];
    const T *src = reinterpret_cast<const T *>(p.src + (uint64_t)cl * p.raw_full);
    const bool f32 = sizeof(T) == 4;
    const uint32_t r = p.r, vnew = 2 * r, vrep = 2 * r + 1;
    const uint64_t span = 2 * (uint64_t)r - 1;

    /* prequantize (striped over the block's full shape) */
    int vloc = 0;
    for (uint32_t j = tid; j < BLK / 32; j += NT) svm[j] = 0;
    /* pass 1, once the block's codes are in sc and sq is no longer read:
     * their counts (in sq's memory) into the chunk's histogram */
    auto count_codes = [&]() {
        uint32_t *sh = reinterpret_cast<uint32_t *>(sq);
        __syncthreads();
        for (uint32_t q = tid; q < 2 * r + 2; q += NT) sh[q] = 0;
        __syncthreads();
        for (uint32_t jc = tid; jc < k.nel; jc += NT) atomicAdd(&sh[sc[jc]], 1u);
        __syncthreads();
        hist_flush(p, cl, sh);
    };
    __syncthreads();
    for (uint32_t j = tid; j < full; j += NT) { /* full: 4096, whole warps */
        const uint32_t x = j & (sx - 1), y = (j >> lb0) & (sy - 1), z = j >> lb01;
        int bad = 0;
        if (x < k.ex && y < k.ey && z < k.ez) {
            const double v = (double)src[k.base + z * e01 + y * e0 + x];
            int64_t q;
            bad = prequant(v, p.recip, p.ebx2, p.eb, f32, &q);
            sq[j] = q;
        }
        const unsigned m = __ballot_sync(0xffffffffu, bad);
        if ((tid & 31) == 0 && m) svm[j >> 5] = m; /* the j of a warp: one aligned word */
        vloc |= bad;
    }
    const int anyv = __syncthreads_or(vloc);

    if (anyv) {
        /* Q := P at verbatim elements, row by row (y, then z): with A the
         * prediction's terms from earlier rows, Q[x] = Q[x-1] + A[x] at a
         * verbatim x, q[x] elsewhere: a segmented scan along the row. */
        uint64_t *qq = reinterpret_cast<uint64_t *>(sq);
        if (g.rank == 1) {
            Seg it[BPT];
#pragma unroll
            for (uint32_t i = 0; i < BPT; i++) {
                const uint32_t x = tid * BPT + i;
                const bool in = x < k.ex;
                it[i].f = in && !sv(x);
                it[i].v = in && !sv(x) ? qq[x] : 0;
            }
            SScan(ts.s).InclusiveScan(it, it, SegOp());
#pragma unroll
            for (uint32_t i = 0; i < BPT; i++) {
                const uint32_t x = tid * BPT + i;
                if (x < k.ex && sv(x)) qq[x] = it[i].v;
            }
            __syncthreads();
        } else if (tid < 32) {
            /* one warp; lane L holds x = 2L, 2L + 1 (rows are at most 64) */
            const uint32_t lane = tid;
            for (uint32_t z = 0; z < k.ez; z++)
                for (uint32_t y = 0; y < k.ey; y++) {
                    Seg e2[2];
#pragma unroll
                    for (uint32_t h = 0; h < 2; h++) {
                        const uint32_t x = 2 * lane + h;
                        const uint32_t j = (z << lb01) + (y << lb0) + x;
                        e2[h].f = 0;
                        e2[h].v = 0;
                        if (x < k.ex) {
                            if (!sv(j)) {
                                e2[h].f = 1;
                                e2[h].v = qq[j];
                            } else {
                                uint64_t a = 0;
                                if (y) a += qq[j - sx];
                                if (z) a += qq[j - sxy];
                                if (x && y) a -= qq[j - sx - 1];
                                if (x && z) a -= qq[j - sxy - 1];
                                if (y && z) a -= qq[j - sxy - sx];
                                if (x && y && z) a += qq[j - sxy - sx - 1];
                                e2[h].v = a;
                            }
                        }
                    }
                    const SegOp op;
                    Seg agg = op(e2[0], e2[1]);
                    /* inclusive warp scan of the lane aggregates */
#pragma unroll
                    for (uint32_t d = 1; d < 32; d <<= 1) {
                        Seg o;
                        o.v = __shfl_up_sync(0xffffffffu, agg.v, d);
                        o.f = __shfl_up_sync(0xffffffffu, agg.f, d);
                        if (lane >= d) agg = op(o, agg);
                    }
                    Seg pre;
                    pre.v = __shfl_up_sync(0xffffffffu, agg.v, 1);
                    pre.f = __shfl_up_sync(0xffffffffu, agg.f, 1);
                    if (lane == 0) {
                        pre.v = 0;
                        pre.f = 1; /* Q = 0 left of the block */
                    }
                    const Seg q0 = op(pre, e2[0]), q1 = op(q0, e2[1]);
                    const uint32_t j0 = (z << lb01) + (y << lb0) + 2 * lane;
                    if (2 * lane < k.ex && sv(j0)) qq[j0] = q0.v;
                    if (2 * lane + 1 < k.ex && sv(j0 + 1)) qq[j0 + 1] = q1.v;
                    __syncwarp();
                }
        }
        __syncthreads();
    }

    /* prediction errors (striped), then codes in code order */
    int64_t dreg[BLK / NT];
#pragma unroll
    for (uint32_t i = 0; i < BLK / NT; i++) {
        const uint32_t j = tid + i * NT;
        int64_t d = 0;
        if (j < full) {
            const uint32_t x = j & (sx - 1), y = (j >> lb0) & (sy - 1), z = j >> lb01;
            if (x < k.ex && y < k.ey && z < k.ez) {
                const uint64_t *qq = reinterpret_cast<const uint64_t *>(sq);
                uint64_t pr = 0;
                if (x) pr += qq[j - 1];
                if (y) pr += qq[j - sx];
                if (x && y) pr -= qq[j - sx - 1];
                if (z) {
                    pr += qq[j - sxy];
                    if (x) pr -= qq[j - sxy - 1];
                    if (y) pr -= qq[j - sxy - sx];
                    if (x && y) pr += qq[j - sxy - sx - 1];
                }
                d = (int64_t)(qq[j] - pr);
            }
        }
        dreg[i] = d;
    }
    __syncthreads();
    int special = anyv;
#pragma unroll
    for (uint32_t i = 0; i < BLK / NT; i++) {
        const uint32_t j = tid + i * NT;
        if (j < full) {
            const uint32_t x = j & (sx - 1), y = (j >> lb0) & (sy - 1), z = j >> lb01;
            if (x < k.ex && y < k.ey && z < k.ez) {
                const int64_t d = dreg[i];
                sq[j] = d;
                uint32_t c;
                if (sv(j)) c = vnew;
                else if ((uint64_t)d + (uint64_t)(r - 1) < span) c = (uint32_t)(d + (int64_t)r);
                else c = LZ_CODE_OUTLIER;
                special |= c == LZ_CODE_OUTLIER;
                sc[(z * k.ey + y) * k.ex + x] = (uint16_t)c;
            }
        }
    }
    special = __syncthreads_or(special);
    if (!P2 && !special) {
        /* no outlier, no verbatim element: the codes and their changes */
        uint16_t *cd = p.codes + (uint64_t)cl * p.cf + k.co;
        uint32_t chg = 0;
        for (uint32_t jc = tid; jc < k.nel; jc += NT) {
            const uint16_t v = sc[jc];
            cd[jc] = v;
            chg += jc >= 1 && v != sc[jc - 1];
        }
        typedef cub::BlockReduce<uint32_t, NT> Red;
        __shared__ typename Red::TempStorage rts;
        const uint32_t tchg = Red(rts).Sum(chg);
        if (p.hist) count_codes();
        if (tid == 0) {
            p.bo_n[sb] = 0;
            p.bo_bytes[sb] = 0;
            p.bo_first[sb] = NONE;
            p.bo_last[sb] = 0;
            p.bv_n[sb] = 0;
            p.bv_first[sb] = NONE;
            p.bchg[sb] = tchg;
        }
        return;
    }
    if (tid == 0) {
        s_nout = s_bytes = s_nv = s_chg = 0;
        s_fo = s_fv = NONE;
        s_lo = s_lv = 0;
    }
    __syncthreads();

    /* blocked: thread t holds codes t*BPT .. t*BPT+BPT-1 */
    const bool fullblk = k.ex == sx && k.ey == sy && k.ez == (1u << g.lb[2]);
    uint32_t c[BPT];
    Agg mine;
    mine.pv = mine.po = -1;
#pragma unroll
    for (uint32_t i = 0; i < BPT; i++) {
        const uint32_t jc = tid * BPT + i;
        c[i] = jc < k.nel ? sc[jc] : 1u;
        if (jc < k.nel && c[i] == vnew) mine.pv = (int32_t)jc;
        if (jc < k.nel && c[i] == LZ_CODE_OUTLIER) mine.po = (int32_t)jc;
    }
    Agg before;
    Agg init;
    init.pv = init.po = -1;
    AScan(ts.a).ExclusiveScan(mine, before, init, AggOp());
    __syncthreads();
    /* element jc's position in the array and in sq */
    auto lin = [&](uint32_t jc, uint32_t *jf) -> uint64_t {
        uint32_t x, y, z;
        if (fullblk) {
            x = jc & (sx - 1);
            y = (jc >> lb0) & (sy - 1);
            z = jc >> lb01;
        } else {
            x = jc % k.ex;
            const uint32_t t2 = jc / k.ex;
            y = t2 % k.ey;
            z = t2 / k.ey;
        }
        *jf = (z << lb01) + (y << lb0) + x;
        return k.base + z * e01 + y * e0 + x;
    };
    /* verbatim: same bits as the previous verbatim element of the block */
    int32_t pv = before.pv, po = before.po;
    uint32_t nv = 0, nout = 0, bytes = 0, fo = NONE, lo = 0, fv = NONE, lv = 0;
    UB fbits = 0, lbits = 0;
    uint32_t obytes_el[BPT];
#pragma unroll
    for (uint32_t i = 0; i < BPT; i++) {
        const uint32_t jc = tid * BPT + i;
        obytes_el[i] = 0;
        if (jc >= k.nel) continue;
        if (c[i] == vnew) {
            uint32_t jf;
            const UB bits = reinterpret_cast<const UB *>(src)[lin(jc, &jf)];
            if (pv >= 0) {
                uint32_t jf2;
                const UB pb = reinterpret_cast<const UB *>(src)[lin((uint32_t)pv, &jf2)];
                if (pb == bits) c[i] = vrep;
            }
            nv += c[i] == vnew;
            if (fv == NONE) {
                fv = jc;
                fbits = bits;
            }
            lv = jc;
            lbits = bits;
            pv = (int32_t)jc;
        } else if (c[i] == LZ_CODE_OUTLIER) {
            uint32_t jf;
            lin(jc, &jf);
            const unsigned zl = vlen(zigzag(sq[jf]));
            if (po >= 0) obytes_el[i] = vlen((uint64_t)(jc - (uint32_t)po - 1)) + zl;
            else obytes_el[i] = P2 ? vlen(k.co + jc - p.bo_prev[sb]) + zl : zl;
            bytes += obytes_el[i];
            nout++;
            if (fo == NONE) fo = jc;
            lo = jc;
            po = (int32_t)jc;
        }
    }
    if (!P2) {
#pragma unroll
        for (uint32_t i = 0; i < BPT; i++) {
            const uint32_t jc = tid * BPT + i;
            if (jc < k.nel) sc[jc] = (uint16_t)c[i];
        }
        __syncthreads();
        uint32_t chg = 0;
#pragma unroll
        for (uint32_t i = 0; i < BPT; i++) {
            const uint32_t jc = tid * BPT + i;
            if (jc >= 1 && jc < k.nel) chg += sc[jc] != sc[jc - 1];
        }
        if (nout) {
            atomicAdd(&s_nout, nout);
            atomicAdd(&s_bytes, bytes);
            atomicMin(&s_fo, fo);
            atomicMax(&s_lo, lo);
        }
        if (fv != NONE) {
            atomicAdd(&s_nv, nv);
            atomicMin(&s_fv, fv);
            atomicMax(&s_lv, lv);
        }
        if (chg) atomicAdd(&s_chg, chg);
        __syncthreads();
        if (fv != NONE && fv == s_fv) p.bv_fbits[sb] = fbits;
        if (fv != NONE && lv == s_lv) p.bv_lbits[sb] = lbits;
        uint16_t *cd = p.codes + (uint64_t)cl * p.cf + k.co;
        for (uint32_t jc = tid; jc < k.nel; jc += NT) cd[jc] = sc[jc];
        if (p.hist) count_codes();
        if (tid == 0) {
            p.bo_n[sb] = s_nout;
            p.bo_bytes[sb] = s_bytes; /* without the varint of the first outlier's gap */
            p.bo_first[sb] = s_fo;
            p.bo_last[sb] = s_lo;
            p.bv_n[sb] = s_nv;
            p.bv_first[sb] = s_fv;
            p.bchg[sb] = s_chg;
        }
        return;
    }
    /* pass 2: the outliers' varints and the new verbatim values */
    const LMeta &M = p.meta[cl];
    uint32_t nvx = nv, bx = bytes;
    /* the block's first verbatim element became 2r+1 (k_lscan) */
    const bool fix = p.bv_fix[sb] != 0;
    uint32_t vbefore, obefore, tot;
    {
        uint32_t first_here = 0;
#pragma unroll
        for (uint32_t i = 0; i < BPT; i++) {
            const uint32_t jc = tid * BPT + i;
            if (fix && jc == p.bv_first[sb] && c[i] == vnew) first_here = 1;
        }
        nvx -= first_here;
        UScan(ts.u).ExclusiveSum(nvx, vbefore, tot);
        __syncthreads();
        UScan(ts.u).ExclusiveSum(bx, obefore, tot);
    }
    uint8_t *op = p.pay + M.oout + p.bo_off[sb] + obefore;
    uint8_t *vp = p.pay + M.vout + ((uint64_t)p.bv_off[sb] + vbefore) * sizeof(T);
#pragma unroll
    for (uint32_t i = 0; i < BPT; i++) {
        const uint32_t jc = tid * BPT + i;
        if (jc >= k.nel) continue;
        if (c[i] == vnew && !(fix && jc == p.bv_first[sb])) {
            uint32_t jf;
            const UB bits = reinterpret_cast<const UB *>(src)[lin(jc, &jf)];
#pragma unroll
            for (uint32_t q = 0; q < sizeof(T); q++) vp[q] = (uint8_t)(bits >> (8 * q));
            vp += sizeof(T);
        }
    }
    /* outliers, in order, with the gap rule of the first pass */
    int32_t po2 = before.po;
#pragma unroll
    for (uint32_t i = 0; i < BPT; i++) {
        const uint32_t jc = tid * BPT + i;
        if (jc >= k.nel || c[i] != LZ_CODE_OUTLIER) continue;
        uint32_t jf;
        lin(jc, &jf);
        const uint64_t gap = po2 >= 0 ? (uint64_t)(jc - (uint32_t)po2 - 1) : k.co + jc - p.bo_prev[sb];
        op = put_varint(op, gap);
        op = put_varint(op, zigzag(sq[jf]));
        po2 = (int32_t)jc;
    }
}

/* Pass 1 (P2 false): codes and block statistics of the blocks k_qfast
 * left (in any order: each block's results are its own, its counts go in
 * by atomics). Pass 2: outlier list and verbatim values of the blocks that
 * have any, into the payload (only listed blocks can have any). A grid of
 * at most QGRID blocks walks the list. */
template <typename T, bool P2> __global__ void __launch_bounds__(NT) k_quant(LP p) {
    const uint32_t n = p.ctl[0];
    for (uint32_t i = blockIdx.x; i < n; i += gridDim.x) {
        const uint32_t sb = p.slow[i];
        quant_block<T, P2>(p, sb / p.nbc, sb % p.nbc);
        __syncthreads(); /* the block's shared memory is reused */
    }
}

/* One block per chunk: verbatim repeats across blocks, offsets, runs.
 * LI consecutive blocks per thread and round (the writer's 32 MiB chunks
 * have at most 2048 blocks: one round, all loads in flight together). */
__global__ void __launch_bounds__(NT) k_lscan(LP p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    constexpr uint32_t LI = 8;
    struct LastV {
        uint64_t bits;
        uint32_t has;
    };
    struct LastOp {
        __device__ __forceinline__ LastV operator()(const LastV &a, const LastV &b) const { return b.has ? b : a; }
    };
    typedef cub::BlockScan<LastV, NT> LScan;
    typedef cub::BlockScan<uint64_t, NT> Scan64;
    typedef cub::BlockReduce<uint64_t, NT> Red;
    __shared__ union {
        typename LScan::TempStorage l;
        typename Scan64::TempStorage s;
        typename Red::TempStorage r;
    } ts;
    __shared__ LastV lastv, lasto;
    const uint32_t cl = blockIdx.x, tid = threadIdx.x;
    const LGeo &g = geo(p, cl);
    const uint32_t nb = g.nblocks, r = p.r, vnew = 2 * r, vrep = 2 * r + 1;
    uint16_t *cd = p.codes + (uint64_t)cl * p.cf;
    const uint64_t base = (uint64_t)cl * p.nbc;
    LastV cv{0, 0}, co{0, 0};
    uint64_t voff = 0, ooff = 0;
    for (uint32_t b0 = 0; b0 < nb; b0 += NT * LI) {
        LastV mv[LI], mo[LI], pv[LI], po[LI];
        uint64_t cob[LI], nvf[LI], ob[LI], ex[LI];
#pragma unroll
        for (uint32_t j = 0; j < LI; j++) {
            const uint32_t b = b0 + tid * LI + j;
            const uint64_t sb = base + b;
            mv[j] = LastV{0, 0};
            mo[j] = LastV{0, 0};
            cob[j] = 0;
            if (b < nb) {
                cob[j] = blk(g, b).co;
                if (p.bv_first[sb] != NONE) {
                    mv[j].has = 1;
                    mv[j].bits = p.bv_lbits[sb];
                }
                if (p.bo_n[sb]) {
                    mo[j].has = 1;
                    mo[j].bits = cob[j] + p.bo_last[sb];
                }
            }
        }
        LScan(ts.l).ExclusiveScan(mv, pv, LastV{0, 0}, LastOp());
        __syncthreads();
        LScan(ts.l).ExclusiveScan(mo, po, LastV{0, 0}, LastOp());
        __syncthreads();
#pragma unroll
        for (uint32_t j = 0; j < LI; j++) {
            const uint32_t b = b0 + tid * LI + j;
            const uint64_t sb = base + b;
            if (!pv[j].has) pv[j] = cv;
            if (!po[j].has) po[j] = co;
            nvf[j] = 0;
            ob[j] = 0;
            if (b < nb) {
                uint32_t fix = 0;
                if (p.bv_first[sb] != NONE && pv[j].has && p.bv_fbits[sb] == pv[j].bits) {
                    fix = 1;
                    cd[cob[j] + p.bv_first[sb]] = (uint16_t)vrep;
                    if (p.hist) { /* the counts of the quantization pass */
                        atomicSub(&p.hist[(uint64_t)cl * p.hstride + vnew], 1u);
                        atomicAdd(&p.hist[(uint64_t)cl * p.hstride + vrep], 1u);
                    }
                }
                p.bv_fix[sb] = (uint8_t)fix;
                nvf[j] = p.bv_n[sb] - fix;
                p.bv_n[sb] = (uint32_t)nvf[j];
                const uint64_t prev = po[j].has ? po[j].bits + 1 : 0;
                p.bo_prev[sb] = (uint32_t)prev;
                if (p.bo_n[sb]) ob[j] = p.bo_bytes[sb] + vlen(cob[j] + p.bo_first[sb] - prev);
            }
        }
        uint64_t tot;
        Scan64(ts.s).ExclusiveSum(nvf, ex, tot);
#pragma unroll
        for (uint32_t j = 0; j < LI; j++)
            if (b0 + tid * LI + j < nb) p.bv_off[base + b0 + tid * LI + j] = (uint32_t)(voff + ex[j]);
        voff += tot;
        __syncthreads();
        Scan64(ts.s).ExclusiveSum(ob, ex, tot);
#pragma unroll
        for (uint32_t j = 0; j < LI; j++)
            if (b0 + tid * LI + j < nb) p.bo_off[base + b0 + tid * LI + j] = ooff + ex[j];
        ooff += tot;
        __syncthreads();
        /* carries: the last valid of this round */
        if (tid == NT - 1) {
            LastV a = pv[LI - 1], o = po[LI - 1];
            if (mv[LI - 1].has) a = mv[LI - 1];
            if (mo[LI - 1].has) o = mo[LI - 1];
            lastv = a;
            lasto = o;
        }
        __syncthreads();
        cv = lastv;
        co = lasto;
        __syncthreads();
    }
    /* all fixes are in global memory: runs = 1 + code changes */
    uint64_t chg = 0, nout = 0;
#pragma unroll 4
    for (uint32_t b = tid; b < nb; b += NT) {
        const uint64_t sb = base + b;
        const Blk k = blk(g, b);
        chg += p.bchg[sb];
        nout += p.bo_n[sb];
        if (b) chg += cd[k.co - 1] != cd[k.co];
        if (p.bv_fix[sb]) {
            const uint64_t P = k.co + p.bv_first[sb];
            if (p.bv_first[sb] >= 1) chg += (uint64_t)(cd[P - 1] != vrep) - (uint64_t)(cd[P - 1] != vnew);
            if (p.bv_first[sb] + 1 < k.nel) chg += (uint64_t)(cd[P + 1] != vrep) - (uint64_t)(cd[P + 1] != vnew);
        }
    }
    const uint64_t tchg = Red(ts.r).Sum(chg);
    __syncthreads();
    const uint64_t tout = Red(ts.r).Sum(nout);
    if (tid == 0) {
        LMeta &M = p.meta[cl];
        M.n = g.n;
        M.nout = tout;
        M.nvnew = voff;
        M.obytes = ooff;
        M.runs = tchg + 1;
        M.nruns = 0;
        p.cntC[cl] = (uint32_t)g.n;
        p.cntR[cl] = 0;
    }
}

/* Whether the chunk evaluates the run-length workflow (7.5). */
/* Which chunks evaluate the run-length workflow (7.5), and where their
 * runs go: a chunk of n codes and `runs` maximal runs has at most
 * min(n, runs + n / 65536 + 1) pieces; the slots are packed (one block). */
__global__ void __launch_bounds__(NT) k_ltry(LP p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<unsigned long long, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    unsigned long long carry = 0;
    for (uint32_t c0 = 0; c0 < p.ng; c0 += NT) {
        const uint32_t cl = c0 + threadIdx.x;
        unsigned long long a = 0;
        if (cl < p.ng) {
            LMeta &M = p.meta[cl];
            const uint64_t bits = p.bitsC[cl], n = M.n;
            uint32_t t = p.knob == 2;
            if (p.knob == 0) {
                const double db = (double)bits, avg = db / (double)n;
                t = (uint64_t)LZ_RLE_DEN * bits <= (uint64_t)LZ_RLE_NUM * n ||
                    __dmul_rn((double)M.runs, fmax(LZ_RUN_BITS_MIN, __dadd_rn(avg, LZ_RUN_BITS_ADD))) < db;
            }
            M.try_rle = t;
            if (t) {
                atomicOr(&p.ctl[1], 1u);
                const uint64_t r = M.runs + n / LZ_MAX_RUN + 1;
                a = r < n ? r : n;
            }
        }
        unsigned long long ex, tot;
        Scan(ts).ExclusiveSum(a, ex, tot);
        if (cl < p.ng) p.roff[cl] = carry + ex;
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        p.ctl[2] = (uint32_t)carry;
        p.ctl[3] = (uint32_t)(carry >> 32);
    }
}

/* Codes j0 .. j0 + 15 of a chunk of n codes (two 16-byte loads where they
 * are whole and aligned; NONE past n) and the code before j0 (NONE at 0). */
__device__ __forceinline__ void codes16(const uint16_t *cd, uint64_t j0, uint64_t n, uint32_t *v, uint32_t *prev) {
    *prev = j0 && j0 <= n ? cd[j0 - 1] : NONE;
    if (j0 + 16 <= n && (reinterpret_cast<uintptr_t>(cd + j0) & 15) == 0) {
        const uint4 a = *reinterpret_cast<const uint4 *>(cd + j0), b = *reinterpret_cast<const uint4 *>(cd + j0 + 8);
        const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
        for (uint32_t k = 0; k < 16; k++) v[k] = (w[k / 2] >> (16 * (k & 1))) & 0xffffu;
    } else {
#pragma unroll
        for (uint32_t k = 0; k < 16; k++) v[k] = j0 + k < n ? cd[j0 + k] : NONE;
    }
}

/* Run starts per tile of RTILE codes: maximal runs (code changes). */
__global__ void __launch_bounds__(NT) k_rtile(LP p) {
    typedef cub::BlockReduce<uint32_t, NT> Red;
    __shared__ typename Red::TempStorage ts;
    __shared__ uint32_t s_first, s_last;
    const uint32_t cl = blockIdx.y, t = blockIdx.x, tid = threadIdx.x;
    const LMeta &M = p.meta[cl];
    const uint64_t n = M.n, i0 = (uint64_t)t * RTILE;
    if (!M.try_rle || i0 >= n) return;
    const uint64_t i1 = i0 + RTILE < n ? i0 + RTILE : n;
    const uint16_t *cd = p.codes + (uint64_t)cl * p.cf;
    if (tid == 0) {
        s_first = NONE;
        s_last = 0;
    }
    __syncthreads();
    uint32_t cnt = 0, f = NONE, l = 0;
    static_assert(RTILE == 16 * NT, "16 codes per thread");
    uint32_t v[16], pv;
    const uint64_t j0 = i0 + 16 * (uint64_t)tid;
    codes16(cd, j0, n, v, &pv);
#pragma unroll
    for (uint32_t k = 0; k < 16; k++) {
        const uint64_t i = j0 + k;
        if (i < i1 && v[k] != pv) {
            cnt++;
            if (f == NONE) f = (uint32_t)i;
            l = (uint32_t)i + 1;
        }
        pv = v[k];
    }
    if (f != NONE) {
        atomicMin(&s_first, f);
        atomicMax(&s_last, l);
    }
    const uint32_t tc = Red(ts).Sum(cnt);
    __syncthreads();
    if (tid == 0) {
        const uint64_t ti = (uint64_t)cl * p.rtiles + t;
        p.t_cnt[ti] = tc;
        p.t_first[ti] = s_first;          /* first maximal start in the tile, NONE */
        p.t_last[ti] = s_last ? s_last - 1 : NONE; /* last one */
    }
}

/* Per chunk: pieces of 65536 (at most one cut per tile, from the run that
 * covers the tile's start), run index of each tile's first piece, the
 * start of the first piece after each tile, n_runs. */
__global__ void __launch_bounds__(NT) k_rscan(LP p) {
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    __shared__ uint32_t s_carry;
    const uint32_t cl = blockIdx.x, tid = threadIdx.x;
    LMeta &M = p.meta[cl];
    if (!M.try_rle) return;
    const uint64_t n = M.n;
    const uint32_t T = (uint32_t)((n + RTILE - 1) / RTILE);
    const uint64_t tb = (uint64_t)cl * p.rtiles;
    /* S: the last maximal start before each tile; a scan of "last valid" */
    uint32_t S = 0, base = 0;
    for (uint32_t t0 = 0; t0 < T; t0 += NT) {
        const uint32_t t = t0 + tid;
        const uint32_t last = t < T ? p.t_last[tb + t] : NONE;
        /* exclusive "last valid" scan: max works, starts increase with t */
        uint32_t val = last == NONE ? 0 : last + 1, pre;
        uint32_t agg;
        Scan(ts).ExclusiveScan(val, pre, 0u, MaxOp(), agg);
        __syncthreads();
        const uint32_t Sbefore = pre ? pre - 1 : S; /* carry S from earlier rounds */
        uint32_t pieces = 0, cut = NONE;
        if (t < T && t > 0) {
            const uint64_t ts0 = (uint64_t)t * RTILE, ts1 = ts0 + RTILE < n ? ts0 + RTILE : n;
            const uint32_t f = p.t_first[tb + t];
            const uint64_t cpos = Sbefore + (ts0 - Sbefore + LZ_MAX_RUN - 1) / LZ_MAX_RUN * LZ_MAX_RUN;
            if (cpos < ts1 && (f == NONE || cpos < f)) cut = (uint32_t)cpos;
        }
        if (t < T) {
            pieces = p.t_cnt[tb + t] + (cut != NONE);
            p.t_cut[tb + t] = cut;
        }
        uint32_t ex, tot;
        Scan(ts).ExclusiveSum(pieces, ex, tot);
        if (t < T) p.t_base[tb + t] = base + ex;
        base += tot;
        if (agg) S = agg - 1;
        __syncthreads();
    }
    /* first piece start after each tile: reverse "first valid" */
    if (tid == 0) s_carry = (uint32_t)n;
    __syncthreads();
    for (int64_t t1 = (int64_t)T - 1; t1 >= 0; t1 -= NT) {
        const int64_t t = t1 - tid;
        uint32_t first = NONE;
        if (t >= 0) {
            const uint32_t cut = p.t_cut[tb + t], f = p.t_first[tb + t];
            first = cut != NONE ? cut : f;
        }
        /* min over the tiles after t within this round, then the carry */
        uint32_t pre, agg;
        Scan(ts).ExclusiveScan(first, pre, NONE, MinOp(), agg);
        __syncthreads();
        if (t >= 0) p.t_nxt[tb + t] = pre != NONE ? pre : s_carry;
        __syncthreads();
        if (tid == 0 && agg != NONE) s_carry = agg;
        __syncthreads();
    }
    if (tid == 0) {
        M.nruns = base;
        p.cntR[cl] = base;
    }
}

/* Run codes and lengths - 1 of each tile's pieces: what = 3 both (codes
 * at rv, lengths at rl), 1 the codes only, 2 the lengths only, at rv (the
 * run slots short for both: rv and rl as one array, one stream at a time). */
__global__ void __launch_bounds__(NT) k_rwrite(LP p, int what, int count) {
    typedef cub::BlockScan<uint32_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    __shared__ uint32_t pos[RTILE + 1];
    __shared__ uint32_t hs[2][HK]; /* counts of run codes, of lengths - 1 below HK */
    const uint32_t cl = blockIdx.y, t = blockIdx.x, tid = threadIdx.x;
    const LMeta &M = p.meta[cl];
    const uint64_t n = M.n, i0 = (uint64_t)t * RTILE;
    if (!M.try_rle || i0 >= n) return;
    const bool cv = (count & 1) && p.hv, cln = (count & 2) && p.hl;
    if (cv || cln)
        for (uint32_t k = tid; k < HK; k += NT) hs[0][k] = hs[1][k] = 0;
    const uint64_t ti = (uint64_t)cl * p.rtiles + t;
    const uint32_t cut = p.t_cut[ti], base = p.t_base[ti], nxt = p.t_nxt[ti];
    const uint16_t *cd = p.codes + (uint64_t)cl * p.cf;
    constexpr uint32_t PT = RTILE / NT;
    uint32_t fl[PT], cnt = 0, cv16[PT], pv;
    codes16(cd, i0 + tid * PT, n, cv16, &pv);
#pragma unroll
    for (uint32_t k = 0; k < PT; k++) {
        const uint64_t i = i0 + tid * PT + k;
        fl[k] = i < n && (cv16[k] != pv || i == cut);
        pv = cv16[k];
        cnt += fl[k];
    }
    uint32_t ex, tot;
    Scan(ts).ExclusiveSum(cnt, ex, tot);
#pragma unroll
    for (uint32_t k = 0; k < PT; k++)
        if (fl[k]) pos[ex++] = (uint32_t)(i0 + tid * PT + k);
    __syncthreads();
    uint16_t *rv = p.rv + p.roff[cl], *rl = (what == 3 ? p.rl : p.rv) + p.roff[cl];
    uint32_t *HL = cln ? p.hl + (size_t)cl * p.hlstride : nullptr;
    for (uint32_t k = tid; k < tot; k += NT) {
        const uint32_t s = pos[k], e = k + 1 < tot ? pos[k + 1] : nxt;
        const uint32_t v = cd[s], l1 = e - s - 1;
        if (what & 1) rv[base + k] = (uint16_t)v;
        if (what & 2) rl[base + k] = (uint16_t)l1;
        if (cv) atomicAdd(&hs[0][v], 1u); /* v < 2r + 2 <= HK */
        if (cln) atomicAdd(l1 < HK ? &hs[1][l1] : &HL[l1], 1u);
    }
    if (!cv && !cln) return; /* block-uniform */
    __syncthreads();
    uint32_t *HV = cv ? p.hv + (size_t)cl * p.hvstride : nullptr;
    for (uint32_t k = tid; k < HK; k += NT) {
        if (cv && hs[0][k]) atomicAdd(&HV[k], hs[0][k]);
        if (cln && hs[1][k]) atomicAdd(&HL[k], hs[1][k]);
    }
}

/* Workflow and payload size (7.5). */
__global__ void k_ldecide(LP p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t cl = blockIdx.x * blockDim.x + threadIdx.x;
    if (cl >= p.ng) return;
    LMeta &M = p.meta[cl];
    const uint64_t sh = p.sizeC[cl];
    uint32_t wf = LZ_WF_HUFFMAN;
    uint64_t cs = sh;
    if (M.try_rle) {
        const uint64_t sr = 4 + p.sizeV[cl] + p.sizeL[cl];
        if (p.knob == 2 || sr < sh) {
            wf = LZ_WF_RLE;
            cs = sr;
        }
    }
    const uint64_t total = LZ_HDR + cs + M.obytes + M.nvnew * p.es;
    if (total >= LZ_HDR + M.n * p.es) {
        M.wf = LZ_WF_STORED;
        M.size = LZ_HDR + M.n * p.es;
    } else {
        M.wf = wf;
        M.size = total;
    }
}

/* Payload offsets of the group's chunks, after the chunks before it; where
 * each part goes. */
__global__ void __launch_bounds__(NT) k_loff(LP p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint64_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    uint64_t carry = p.gc0 ? p.choff[p.gc0 - 1] + p.chsize[p.gc0 - 1] : 0;
    for (uint32_t c0 = 0; c0 < p.ng; c0 += NT) {
        const uint32_t cl = c0 + threadIdx.x;
        const uint64_t x = cl < p.ng ? p.meta[cl].size : 0;
        uint64_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (cl < p.ng) {
            LMeta &M = p.meta[cl];
            const uint64_t o = carry + ex;
            M.off = o;
            p.choff[p.gc0 + cl] = o;
            p.chsize[p.gc0 + cl] = x;
            p.chinfo[p.gc0 + cl] = M.wf;
            p.offC[cl] = M.wf == LZ_WF_HUFFMAN ? o + LZ_HDR : NOFF;
            p.offV[cl] = M.wf == LZ_WF_RLE ? o + LZ_HDR + 4 : NOFF;
            p.offL[cl] = M.wf == LZ_WF_RLE ? o + LZ_HDR + 4 + p.sizeV[cl] : NOFF;
            const uint64_t cs = M.wf == LZ_WF_HUFFMAN ? p.sizeC[cl] : 4 + p.sizeV[cl] + p.sizeL[cl];
            M.oout = o + LZ_HDR + cs;
            M.vout = M.oout + M.obytes;
        }
        carry += tot;
        __syncthreads();
    }
}

/* Chunk headers (7.7) and n_runs. */
__global__ void k_lhdr(LP p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t cl = blockIdx.x, tid = threadIdx.x;
    const LMeta &M = p.meta[cl];
    const LGeo &g = geo(p, cl);
    uint8_t *d = p.pay + M.off;
    const bool st = M.wf == LZ_WF_STORED;
    const uint32_t nhdr = LZ_HDR + (M.wf == LZ_WF_RLE ? 4 : 0);
    for (uint32_t q = tid; q < nhdr; q += blockDim.x) {
        uint64_t v = 0;
        if (q == 0) v = M.wf;
        else if (st) v = 0;
        else if (q == 1) v = g.rank;
        else if (q < 5) v = g.lb[q - 2];
        else if (q < 8) v = 0;
        else if (q < 12) v = M.nout >> (8 * (q - 8));
        else if (q < 16) v = M.nvnew >> (8 * (q - 12));
        else if (q < 24) v = M.obytes >> (8 * (q - 16));
        else v = (uint64_t)M.nruns >> (8 * (q - 24));
        d[q] = (uint8_t)v;
    }
}

/* Raw bytes of stored chunks. */
__global__ void __launch_bounds__(NT) k_lstored(LP p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t cl = blockIdx.y;
    const LMeta &M = p.meta[cl];
    if (M.wf != LZ_WF_STORED) return;
    const uint64_t raw = M.n * p.es;
    const uint8_t *s = p.src + (uint64_t)cl * p.raw_full;
    uint8_t *d = p.pay + M.off + LZ_HDR;
    for (uint64_t q0 = (uint64_t)blockIdx.x * STORE_PIECE; q0 < raw; q0 += (uint64_t)gridDim.x * STORE_PIECE)
        scz_ku::copy_bytes<NT>(d + q0, s + q0, raw - q0 < STORE_PIECE ? raw - q0 : STORE_PIECE, threadIdx.x);
}

/* ---- the PSNR rule's passes (FORMAT.md 7.1 step 3) ---- */

/* S(eb) of one 65536-element block per warp: lane j sums the squared
 * scaled errors of the elements i = j mod 32 in increasing i, then the
 * shuffle-down tree; the block sums go to bs[]. */
template <typename T>
__global__ void __launch_bounds__(NT) k_psnr(const T *src, uint64_t n, double eb, double ebx2, double recip,
                                             double scale, double *bs) {
    const uint64_t b = ((uint64_t)blockIdx.x * NT + threadIdx.x) / 32;
    const uint32_t lane = threadIdx.x & 31;
    const uint64_t i0 = b * LZ_PSNR_BLOCK;
    if (i0 >= n) return; /* whole warps */
    const uint64_t i1 = i0 + LZ_PSNR_BLOCK < n ? i0 + LZ_PSNR_BLOCK : n;
    double l = 0;
#pragma unroll 4
    for (uint64_t i = i0 + lane; i < i1; i += 32) {
        int64_t q;
        double e;
        const int bad = prequant((double)src[i], recip, ebx2, eb, sizeof(T) == 4, &q, &e);
        const double v = bad ? 0.0 : __dmul_rn(e, scale);
        l = __dadd_rn(l, __dmul_rn(v, v));
    }
#pragma unroll
    for (uint32_t w = 16; w; w >>= 1) l = __dadd_rn(l, __shfl_down_sync(0xffffffffu, l, w));
    if (lane == 0) bs[b] = l;
}

/* The block sums added in block order. */
__global__ void k_psnr_sum(const double *bs, uint64_t nb, double *out) {
    double s = 0;
    for (uint64_t b = 0; b < nb; b++) s = __dadd_rn(s, bs[b]);
    *out = s;
}

/* ---- layout ---- */

struct ELay {
    uint32_t GC, nbc, rtiles;
    uint64_t cf, gv, rb; /* gv: code slots of a group (chunk c's at c * cf); rb: run slots (rv and rl each) */
    size_t hsC, hsL, hw, total;
};

size_t take_all(const ELay &L, uint8_t *base, LP *p, uint8_t **stC, uint8_t **stV, uint8_t **stL, uint8_t **work) {
    Bump B{base, 0};
    const size_t g = L.GC, nbk = (size_t)L.GC * L.nbc, nt = (size_t)L.GC * L.rtiles;
    p->codes = B.take<uint16_t>(L.gv);
    p->rv = B.take<uint16_t>(L.rb);
    p->rl = B.take<uint16_t>(L.rb);
    p->roff = B.take<uint64_t>(g);
    p->bo_n = B.take<uint32_t>(nbk);
    p->bo_bytes = B.take<uint32_t>(nbk);
    p->bo_first = B.take<uint32_t>(nbk);
    p->bo_last = B.take<uint32_t>(nbk);
    p->bo_prev = B.take<uint32_t>(nbk);
    p->bv_n = B.take<uint32_t>(nbk);
    p->bv_first = B.take<uint32_t>(nbk);
    p->bv_off = B.take<uint32_t>(nbk);
    p->bchg = B.take<uint32_t>(nbk);
    p->bv_fbits = B.take<uint64_t>(nbk);
    p->bv_lbits = B.take<uint64_t>(nbk);
    p->bo_off = B.take<uint64_t>(nbk);
    p->bv_fix = B.take<uint8_t>(nbk);
    p->meta = B.take<LMeta>(g);
    p->cntC = B.take<uint32_t>(g);
    p->cntR = B.take<uint32_t>(g);
    p->sizeC = B.take<uint64_t>(g);
    p->bitsC = B.take<uint64_t>(g);
    p->sizeV = B.take<uint64_t>(g);
    p->sizeL = B.take<uint64_t>(g);
    p->offC = B.take<uint64_t>(g);
    p->offV = B.take<uint64_t>(g);
    p->offL = B.take<uint64_t>(g);
    p->t_cnt = B.take<uint32_t>(nt);
    p->t_last = B.take<uint32_t>(nt);
    p->t_first = B.take<uint32_t>(nt);
    p->t_base = B.take<uint32_t>(nt);
    p->t_cut = B.take<uint32_t>(nt);
    p->t_nxt = B.take<uint32_t>(nt);
    p->ctl = B.take<uint32_t>(8);
    p->slow = B.take<uint32_t>(nbk);
    p->olist = B.take<uint32_t>(nbk);
    *stC = B.take<uint8_t>(L.hsC);
    *stV = B.take<uint8_t>(L.hsC);
    *stL = B.take<uint8_t>(L.hsL);
    *work = B.take<uint8_t>(L.hw);
    return B.o;
}

ELay elay(const scz_cuda_batch *b) {
    ELay L;
    const uint64_t cf = b->full.count ? b->full.count : 1;
    L.cf = cf;
    L.nbc = lgeo(&b->full).nblocks;
    const uint32_t nbl = lgeo(&b->last).nblocks;
    if (nbl > L.nbc) L.nbc = nbl;
    L.rtiles = (uint32_t)((cf + RTILE - 1) / RTILE);
    /* Groups of up to 256 Mi elements (the whole batch of most calls):
     * the scratch is about 4.3 bytes per element of a group (codes 2, run
     * slots 2: half the group's codes each for run codes and lengths, or,
     * where the runs need more, all of them for one at a time; see
     * scz__lossy_cuda_encode), so about 1.1 GB at most, whatever the
     * input's size, and ~1.09x the input below that (f32; test_api checks
     * <= 1.25x with the decompression's scratch, from 32 MiB up). */
    uint64_t gc = (256ull << 20) / cf;
    if (gc > b->n) gc = b->n;
    if (gc > 65535) gc = 65535;
    if (gc < 1) gc = 1;
    L.GC = (uint32_t)gc;
    /* a group of the whole batch ends with the batch's last chunk, which
     * may be short: no slots past its codes (100 MiB of float32 would
     * otherwise reserve four full chunks, 1.39x) */
    L.gv = gc == b->n ? (gc - 1) * cf + (b->last.count ? b->last.count : 1) : gc * cf;
    L.rb = (L.gv + 1) / 2;
    const uint32_t K = 2 * b->h->knobs[0] + 2;
    L.hsC = scz__hse_scratch(L.GC, cf, K);
    L.hsL = scz__hse_scratch(L.GC, cf, 65536);
    L.hw = scz__hse_work(L.GC, cf);
    LP tmp;
    uint8_t *a, *c, *d, *e;
    L.total = take_all(L, nullptr, &tmp, &a, &c, &d, &e);
    return L;
}

/* Pass 1: k_qfast over all blocks, k_quant over those it left. Pass 2:
 * k_quant over the listed blocks (nslow of them, known on the host). */
template <typename T> cudaError_t launch_quant(const LP &p, uint32_t nbc, bool pass2, uint32_t nslow,
                                              uint32_t nout, cudaStream_t s) {
    const uint64_t nb = (uint64_t)nbc * p.ng;
    if (pass2) {
        if (nslow) k_quant<T, true><<<nslow < QGRID ? nslow : QGRID, NT, 0, s>>>(p);
        if (nout) k_qout<T><<<nout < 8 * QGRID ? nout : 8 * QGRID, NT, 0, s>>>(p);
    } else {
        k_qfast<T><<<dim3(nbc, p.ng), NT, 0, s>>>(p);
        k_quant<T, false><<<(unsigned)(nb < QGRID ? nb : QGRID), NT, 0, s>>>(p);
    }
    return cudaGetLastError();
}

} // namespace

size_t scz__lossy_cuda_enc_scratch(const scz_cuda_batch *b) {
    return b->h->knobs[2] ? scz__lossy1_cuda_enc_scratch(b) : elay(b).total;
}

cudaError_t scz__lossy_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                   uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                   void *scratch, cudaStream_t s) {
    if (b->h->knobs[2]) return scz__lossy1_cuda_encode(b, ca, cb, d_src, d_pay, choff, chsize, chinfo, scratch, s);
    if (ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    const ELay L = elay(b);
    LP p;
    memset(&p, 0, sizeof p);
    uint8_t *stC, *stV, *stL, *work;
    take_all(L, static_cast<uint8_t *>(scratch), &p, &stC, &stV, &stL, &work);
    p.raw_full = b->raw_full;
    p.pay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.cf = L.cf;
    p.gfull = lgeo(&b->full);
    p.glast = lgeo(&b->last);
    p.nbc = L.nbc;
    p.rtiles = L.rtiles;
    p.es = b->full.esize;
    p.r = b->h->knobs[0];
    p.knob = b->h->knobs[1];
    p.eb = b->h->eb_abs;
    p.ebx2 = 2.0 * b->h->eb_abs;
    p.recip = p.ebx2 > 0 ? 1.0 / p.ebx2 : INFINITY;
    const uint32_t K = 2 * p.r + 2;
    cudaError_t e;
    ScProf pf("lossy encode", s);
    for (uint32_t g0 = ca; g0 < cb; g0 += L.GC) {
        const uint32_t ng = cb - g0 < L.GC ? cb - g0 : L.GC;
        p.ng = ng;
        p.gc0 = g0;
        p.nlast = g0 + ng == b->n ? ng - 1 : NONE;
        p.src = static_cast<const uint8_t *>(d_src) + (uint64_t)g0 * b->raw_full;
        /* the codes' histogram is counted by the quantization kernels */
        const scz_hse hc{p.codes, L.cf, p.cntC, ng, K, L.cf, K <= HK, nullptr, nullptr, nullptr, 0};
        p.hist = nullptr;
        if (hc.hist_ready) {
            p.hist = scz__hse_hist(&hc, stC, &p.hstride);
            if ((e = cudaMemset2DAsync(p.hist, (size_t)p.hstride * 4, 0, (size_t)K * 4, ng, s))) return e;
        }
        if ((e = cudaMemsetAsync(p.ctl, 0, 8 * sizeof(uint32_t), s))) return e;
        if ((e = p.es == 4 ? launch_quant<float>(p, L.nbc, false, 0, 0, s) : launch_quant<double>(p, L.nbc, false, 0, 0, s)))
            return e;
        pf.mark("quant");
        if ((e = scz_ku::launch_pdl(k_lscan, ng, NT, 0, s, p))) return e;
        pf.mark("lscan");
        if ((e = scz__hse_plan(&hc, stC, work, p.sizeC, p.bitsC, s))) return e;
        pf.mark("planC");
        if ((e = scz_ku::launch_pdl(k_ltry, 1, NT, 0, s, p))) return e;
        /* The one wait of a group: whether any chunk evaluates the
         * run-length workflow (its planning is ~0.16 ms of launches per
         * group of 64 Mi codes on an H100 even when every chunk skips it)
         * and how many blocks pass 2 visits. A copy into pageable memory
         * returns once the stream has reached it. */
        uint32_t ctl[8];
        if ((e = cudaMemcpyAsync(ctl, p.ctl, sizeof ctl, cudaMemcpyDeviceToHost, s))) return e;
        if ((e = cudaStreamSynchronize(s))) return e;
        pf.mark("wait");
        const bool any_rle = ctl[1] != 0;
        /* The run slots: rv and rl, L.rb each, hold the runs of the
         * chunks that evaluate run length (k_ltry packs them) where they
         * fit; where they do not (many runs: noise with the workflow
         * forced, say), rv and rl are one array of 2 L.rb >= the group's
         * codes, which holds the codes and then the lengths, each formed
         * again for its stream's planning and writing. */
        const bool seq = any_rle && ((uint64_t)ctl[3] << 32 | ctl[2]) > L.rb;
        const dim3 rt(L.rtiles, ng);
        /* their histograms counted by k_rwrite as it forms the runs */
        const scz_hse hv{p.rv, L.cf, p.cntR, ng, K, L.cf, K <= HK, nullptr, p.roff, nullptr, 0};
        const scz_hse hl{seq ? p.rv : p.rl, L.cf, p.cntR, ng, 65536, L.cf, 1, nullptr, p.roff, nullptr, 1};
        if (any_rle) {
            p.hv = nullptr;
            if (hv.hist_ready) {
                p.hv = scz__hse_hist(&hv, stV, &p.hvstride);
                if ((e = cudaMemset2DAsync(p.hv, (size_t)p.hvstride * 4, 0, (size_t)K * 4, ng, s))) return e;
            }
            p.hl = scz__hse_hist(&hl, stL, &p.hlstride);
            if ((e = cudaMemset2DAsync(p.hl, (size_t)p.hlstride * 4, 0, (size_t)65536 * 4, ng, s))) return e;
            k_rtile<<<rt, NT, 0, s>>>(p);
            k_rscan<<<ng, NT, 0, s>>>(p);
            k_rwrite<<<rt, NT, 0, s>>>(p, seq ? 1 : 3, seq ? 1 : 3);
            pf.mark(seq ? "runs (one array)" : "runs");
            if ((e = scz__hse_plan(&hv, stV, work, p.sizeV, nullptr, s))) return e;
            if (seq) k_rwrite<<<rt, NT, 0, s>>>(p, 2, 2);
            if ((e = scz__hse_plan(&hl, stL, work, p.sizeL, nullptr, s))) return e;
            pf.mark("planVL");
        }
        if ((e = scz_ku::launch_pdl(k_ldecide, (ng + NT - 1) / NT, NT, 0, s, p)) ||
            (e = scz_ku::launch_pdl(k_loff, 1, NT, 0, s, p)) || (e = scz_ku::launch_pdl(k_lhdr, ng, 32, 0, s, p)))
            return e;
        const uint64_t raw = L.cf * p.es;
        const uint64_t pieces = (raw + STORE_PIECE - 1) / STORE_PIECE; /* a few blocks per chunk walk them */
        if ((e = scz_ku::launch_pdl(k_lstored, dim3((unsigned)(pieces < 64 ? pieces : 64), ng), NT, 0, s, p))) return e;
        pf.mark("decide");
        if ((e = scz__hse_write(&hc, stC, work, p.offC, d_pay, s))) return e;
        pf.mark("writeC");
        if (any_rle) {
            if (seq) k_rwrite<<<rt, NT, 0, s>>>(p, 1, 0);
            if ((e = scz__hse_write(&hv, stV, work, p.offV, d_pay, s))) return e;
            if (seq) k_rwrite<<<rt, NT, 0, s>>>(p, 2, 0);
            if ((e = scz__hse_write(&hl, stL, work, p.offL, d_pay, s))) return e;
            pf.mark("writeVL");
        }
        if ((e = p.es == 4 ? launch_quant<float>(p, L.nbc, true, ctl[0], ctl[4], s)
                           : launch_quant<double>(p, L.nbc, true, ctl[0], ctl[4], s)))
            return e;
        pf.mark("quant2");
    }
    return cudaGetLastError();
}

cudaError_t scz__lossy_cuda_enc_probe(void) {
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k_quant<float, false>);
    if (!e) e = cudaFuncGetAttributes(&a, k_lscan);
    return e;
}

size_t scz__lossy_cuda_pass_scratch(const scz_header *h) {
    const uint64_t n = h->raw_bytes / (h->dtype == SCZ_DTYPE_F64 ? 8 : 4);
    return ((n + LZ_PSNR_BLOCK - 1) / LZ_PSNR_BLOCK + 1) * sizeof(double);
}

scz_status scz__lossy_cuda_passes(scz_ctx *ctx, scz_header *h, void *pass, const void *d_src, uint64_t finite,
                                  void *scratch, double *pinned, cudaStream_t s) {
    const bool f64 = h->dtype == SCZ_DTYPE_F64;
    const uint64_t n = h->raw_bytes / (f64 ? 8 : 4), nb = (n + LZ_PSNR_BLOCK - 1) / LZ_PSNR_BLOCK;
    double *bs = static_cast<double *>(scratch), *sum = bs + nb;
    const unsigned grid = (unsigned)((nb * 32 + NT - 1) / NT);
    for (int again = 1; again;) {
        double eb, scale;
        scz__lossy_pass_params(pass, &eb, &scale);
        const double ebx2 = 2.0 * eb, recip = ebx2 > 0 ? 1.0 / ebx2 : INFINITY;
        if (f64) k_psnr<double><<<grid, NT, 0, s>>>(static_cast<const double *>(d_src), n, eb, ebx2, recip, scale, bs);
        else k_psnr<float><<<grid, NT, 0, s>>>(static_cast<const float *>(d_src), n, eb, ebx2, recip, scale, bs);
        k_psnr_sum<<<1, 1, 0, s>>>(bs, nb, sum);
        cudaError_t e = cudaMemcpyAsync(pinned, sum, sizeof *sum, cudaMemcpyDeviceToHost, s);
        if (!e) e = cudaStreamSynchronize(s);
        if (e) return scz__fail(ctx, SCZ_ERR_BACKEND, "lossy PSNR pass on the GPU: %s", cudaGetErrorString(e));
        scz_status st = scz__lossy_pass_end_sum(ctx, pass, h, *pinned, finite, &again);
        if (st) return st;
    }
    return SCZ_OK;
}

/*
 * lossy_enc1.cu -- level-1 compression (knobs[2] = 1, FORMAT.md 7.9-7.10)
 * on the GPU, to write exactly the CPU writer's bytes (lossy.c lz1_*,
 * lossy_interp.h); docs/GPU.md "Level 1 on the GPU: compression". The
 * batch driver (scz__lossy1_cuda_encode, called by lossy_enc.cu's entry
 * for knobs[2] = 1) takes the chunks in groups: the estimate of the next
 * chunks (one wait: which ask for the trial), then a group of those whose
 * trial payloads fit beside them in the scratch's chunk slots, then one
 * launch per step over the group's chunks (the trial's interpolation
 * payloads are extra chunks after the group's, chunk nreal + j reading
 * chunk tsrc[j]'s elements; the smaller payload is kept, k_pfinal, and
 * written in place, l1_place). The slots are those of the fast layout
 * (l1_fast: the bodies sized after k_bsize, one more wait), or, for a
 * group whose bodies do not fit it, of the safe one (the group redone).
 * The white-box entry scz__lossy1_cuda_debug
 * (lossy_debug.h) runs the same steps on a batch in host memory and keeps
 * every intermediate result for the tests:
 *
 *   k_est     the predictor estimate (7.10 step 1): a sample a thread (SCZ_EST_PER: more)
 *             (lz1_est_sample's steps with lossy_est_hd.h's operations, every
 *             value of a sample loaded first), 64-bit integer sums per block,
 *             added per chunk by atomics (any order, the CPU's sums);
 *   k_decide  one thread per chunk: predictor, axis order, trial, level
 *             bounds (lz1_choose_costs, the CPU's function);
 *   k_stab    one warp per chunk: the sweep table of an interpolated
 *             chunk (lossy_sweep_cuda.h sweep_table_warp, the decoder's);
 *   k_isw     one launch per sweep index over all chunks (as the decoder's
 *             k_sweep; grids of the sweep's size, lz1_sweep_bound; two
 *             elements a thread): an element's traversal position gives its
 *             coordinates, its prediction from R (binary64, the values a
 *             decoder reconstructs, lossy_interp_hd.h lz_ipred's operations;
 *             float32 R in Rf, a verbatim element's in Rv), residual
 *             quantization (lz1_rq), its code with the largest radius R
 *             at its position; an outlier's error or a verbatim element's
 *             index beside it (aux); the largest |error| coded inside R
 *             per chunk (atomicMax: the chunk's radius, 7.10 step 2);
 *   k_erows   the finest level of rank-3 chunks (erows_takes) by rows,
 *             three launches after k_isw's (which skips those sweeps): the
 *             decoder's k_rows scheme with k_isw's arithmetic and outputs,
 *             classes 1 and 2 by walks along the class axis (its k_rwalk);
 *             the level of stride 2 the same way before it (k_erows<.., 2>);
 *   (tile_mark) / k_vscan / k_vt2   V_new / V_repeat (7.4) in traversal
 *             order: the last verbatim position (and the last outlier's, for
 *             the list below) per tile of 4096 codes, marked by the sweeps
 *             as they code them, their exclusive scan per chunk, then each
 *             code 2R compared with the previous verbatim element's bits
 *             (tiles without one skipped); V_new counts;
 *   k_sinit / k_hist / k_rest, scz__hse_plan, k_gchoose   the sweep
 *             streams (7.9, 7.10 step 3): codes mapped to the chunk's
 *             radius r, histograms of each of the last G = min(Sw, 8)
 *             sweeps and of the codes before them, then (k_rest) of all
 *             codes and of the codes before the last gg sweeps,
 *             Q = 1 + 2 LZ1_GMAX streams per chunk sized
 *             by the huffman codec's planning (each with its own alphabet
 *             2r + 2), then g with the smallest sum (the smaller on ties);
 *   (k_hist's tile_runs) / k_vscan / k_rcrit / k_rt2 / k_rcnt,
 *             scz__hse_plan, k_rdecide
 *             the run-length candidate (7.5, 7.10 step 3): run starts and
 *             the last start per tile (counted by k_hist as it maps the
 *             codes), their scan, 7.5's criterion from the
 *             runs and the single stream's bits; then each position's
 *             offset in its run (a block scan from the tile's carry) gives
 *             the pieces of 65536 without forming the runs: a piece starts
 *             at offsets 0 mod 65536 (its code counted) and ends at the
 *             run's end or at offsets 65535 mod 65536 (its length - 1
 *             counted); the two streams sized as above, the candidate kept
 *             where 20 x its section <= 21 x the Huffman section;
 *   k_vscan / k_ot2 / k_bsize   the outlier list's bytes (7.6: each
 *             outlier's index gap from the previous one, by the same tile
 *             scan; tiles without one skipped), outlier counts, and the
 *             bodies' sizes (sections + outlier list + verbatim values);
 *   k_w3init, k_w3hist, scz__hse_plan, k_w3off, scz__hse_write, k_lists
 *             the Huffman body of each interpolated chunk (7.9): its
 *             g + 1 streams (a stream set whose streams start anywhere in
 *             the codes, scz_hse.soff; histograms the size set's), the
 *             outlier list (each thread's varints
 *             at its offset: tile sums scanned per chunk, a block scan) and
 *             the verbatim values (the same with the V_new counts), the
 *             lists written into the run-length body too (the same bytes);
 *   k_rw, k_rhdr, scz__hse_write (the set h2's plan)   the run-length body
 *             where the candidate is kept: each piece's code and length - 1
 *             at its index (the pieces before a tile scanned per chunk, a
 *             block scan, each position's offset in its run as k_rt2), the
 *             piece count, the two streams (the lists: k_lists);
 *   k_bsym, scz__hse_plan, k_pdecide, k_pcopy, scz__hse_write   the back
 *             end (7.9: the body's bytes as a Huffman stream, K = 256) of
 *             each body, the workflow and back end with the smallest final
 *             size, the stored fallback, the 32-byte header and the payload
 *             (7.10 step 3);
 *   k_lor     Lorenzo chunks (7.4 with radius R): one block per lossy block,
 *             prequantization into shared memory, the prediction errors
 *             (inclusion-exclusion over the block's integers; a block with
 *             verbatim elements sequentially in one thread, Q = P there),
 *             codes at their code indices with aux as k_isw's. Such a chunk
 *             then goes through every step above as a chunk of no sweeps
 *             (g = 0, one stream).
 * From the sweeps on, this file's kernels are programmatic dependent
 * launches (launch_pdl; each calls grid_wait first): a kernel's blocks are
 * scheduled while the one before drains. Memsets, the huffman set's own
 * launches and the two host waits (K, the bodies' stride) still end a
 * chain; k_rdecide zeroes k_ot2's sums and k_rhdr copies the pieces' sizes
 * so that no memset or copy splits one.
 */
#include "../util/ieee.h" /* first: the host side of the shared headers seals its operations */

#include "lossy_cuda.h"
#include "lossy_est_hd.h"
#include "lossy_sweep_cuda.h"
#include "lossy_debug.h"
#include "../entropy/huffman_enc_cuda.h"
#include "../cuda/kutil.h"
#include "../cuda/prof.h"

#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

using scz_l1::Sweep;

namespace {

constexpr uint32_t NT = 256;            /* threads per block */
constexpr uint32_t TILE = 4096;         /* codes per tile (V_new / V_repeat) */
/* k_hist's shared counters a segment, at most: 9 x 1024 x 4 = 36 KiB, six
 * blocks an SM (a chunk's whole alphabet where it fits; wider ones count
 * the 1024 codes around the zero error there, their tails in global
 * memory) */
constexpr uint32_t HIST_WIN = 1024;
/* Wider alphabets (a group's K above HIST_WIN: tight bounds): a block
 * counts HIST_WT consecutive tiles (mostly of one segment) into one window
 * of HIST_WIDE codes around the zero error (48 KiB), flushed to the
 * segment's histogram when the segment changes and at its end (the 1024
 * codes of each segment left most codes of a wide alphabet to global
 * atomics: H100, wmag REL 1e-6, 4.1 ms) */
constexpr uint32_t HIST_WIDE = 12288, HIST_WT = 64;
constexpr uint32_t PER = TILE / NT;     /* codes per thread in a tile */
constexpr uint32_t NONE = 0xffffffffu;
constexpr uint32_t ND = 8;              /* decision bytes per chunk */
constexpr uint32_t W3 = LZ1_GMAX + 1;  /* Huffman streams of a body, at most */
constexpr uint32_t Q = 1 + 2 * LZ1_GMAX; /* streams per chunk sized for the choice of g: all codes, the last
                                            LZ1_GMAX sweeps, the codes before the last 1 .. LZ1_GMAX sweeps */

/* Coding geometry of a chunk (lossy.c geo_extents; Lorenzo block sides of
 * the writer's shape, 7.2). */
struct CGeo {
    uint64_t e[3], n;
    unsigned lb[3];
    uint32_t rank;
};

CGeo cgeo(const scz_chunk_geom &g) {
    CGeo z;
    memset(&z, 0, sizeof z);
    z.e[0] = z.e[1] = z.e[2] = 1;
    unsigned r = 0;
    for (unsigned d = 0; d < g.rank && d < 3; d++)
        if (g.dims[d] != 1) z.e[r++] = g.dims[d];
    z.rank = r ? r : 1;
    z.n = g.count;
    for (unsigned d = 0; d < 3; d++) z.lb[d] = d < z.rank ? lz_block_log2[z.rank][d] : 0;
    return z;
}

struct E1 {
    const uint8_t *src;         /* chunk c's elements at src + c raw_full */
    uint64_t raw_full, cf;      /* bytes of a full chunk; its elements (stride of the per-position arrays) */
    uint32_t nch, es, R, swn, tpc, nbl; /* nbl: Lorenzo blocks of a chunk, at most */
    uint32_t nreal;             /* chunks of the group; nch = nreal + ntr (the trial's payloads after them) */
    uint32_t ews;               /* rows a walk of k_erows<.., true> (ewalk_steps) */
    uint32_t ntr;               /* the trial's chunks: chunk nreal + j reads chunk tsrc[j] */
    const uint32_t *tsrc;       /* ntr */
    const uint32_t *twin;       /* nreal: the chunk of chunk c's trial payload, or NONE */
    int psnr;
    uint32_t wfk;               /* knobs[1]: 0 workflow by size, 1 Huffman, 2 run-length */
    CGeo gfull, glast;
    double eb, ebx2, recip;
    const uint8_t *force;       /* NULL or nch x {pred, order, tight} */
    unsigned long long *costs;  /* nch x LZ1_NCOST */
    uint8_t *dec;               /* nch x ND: pred, order, alt, alt_order, tight; [5..7] the sweeps' pred, order, tight */
    Sweep *sw;                  /* nch x swn */
    uint32_t *nsw;              /* nch: sweeps (NONE: no interpolation) */
    double *Rv;                 /* nch x cf: R of each element (element order); float32: a verbatim element's only */
    float *Rf;                  /* float32: nch x cf, R of each element, NaN where verbatim (R in Rv) */
    uint16_t *codes;            /* nch x cf: codes of radius R in traversal order */
    long long *aux;             /* nch x cf: an outlier's error, a verbatim element's index (traversal order) */
    uint32_t *rmax;             /* nch: largest |error| coded inside R */
    uint32_t *tlast;            /* nch x tpc: last verbatim position of a tile, then of the tiles before it */
    unsigned long long *nout, *nvnew;
    /* sweep streams */
    uint16_t *codes_r;          /* nch x cf: codes of the chunk's radius */
    uint32_t *rch;              /* nch: the chunk's radius r */
    uint32_t Kg, *kmax;         /* the largest alphabet 2r + 2 of the group's chunks (kmax: found on the device) */
    uint32_t *hist, hstride;    /* the size set's histograms (stream c Q + k at (c Q + k) hstride) */
    uint32_t *scnt, *sK;        /* nch x Q: symbols and alphabet of each stream */
    uint64_t *ssize, *sbits;    /* nch x Q: stream sizes and bits */
    uint32_t *g;                /* nch */
    uint64_t *hsz, *size0, *bits0;
    /* run-length candidate */
    uint32_t *rlast;            /* nch x tpc: last run start of a tile, then of the tiles before it */
    unsigned long long *runs;   /* nch */
    uint32_t *rtry;             /* nch: 7.5's criterion holds */
    uint32_t *hist2, h2stride;  /* stream 2c: run codes, 2c + 1: run lengths - 1 */
    uint32_t *r2cnt, *r2K;      /* 2 nch */
    uint64_t *r2size;           /* 2 nch */
    uint32_t *rformed, *rle;    /* nch */
    uint64_t *rsz;              /* nch */
    /* outlier list, bodies */
    uint32_t *olast;            /* nch x tpc: last outlier of a tile, then of the tiles before it */
    unsigned long long *obytes; /* nch */
    uint64_t *bh, *br;          /* nch */
    /* the bodies: body 2c + w of chunk c (w = 0 Huffman, 1 run-length) at (2c + w) bodycap */
    uint8_t *bodies;
    uint64_t bodycap;
    unsigned long long *tob, *tvn; /* nch x tpc: outlier-list bytes, V_new per tile; then their exclusive sums */
    uint32_t *w3cnt, *w3K;      /* nch x W3 */
    uint64_t *w3soff, *w3size, *w3off;
    uint8_t *rbodies;           /* bodies + bodycap: chunk c's run-length body at 2c bodycap */
    unsigned long long *tpp;    /* nch x tpc: pieces per tile, then before it */
    uint16_t *rvl;              /* 2 nch x cf: chunk c's piece codes at 2c cf, lengths - 1 at (2c + 1) cf */
    uint64_t *w4size, *w4off;   /* 2 nch */
    /* the back end and the payloads */
    uint32_t *b5cnt;            /* 2 nch */
    uint64_t *b5size, *b5off;   /* 2 nch */
    uint8_t *pay;               /* debug entry: chunk c's payload at c paycap (else NULL) */
    uint64_t paycap, *psize;
    uint32_t *pinfo;
    uint8_t *hdr;               /* nch x LZ1_HDR: each payload's header */
    uint8_t *pbase;             /* where the payloads go: pay, or the batch's payloads */
    uint64_t *pdst;             /* nch: chunk c's payload at pbase + pdst[c] (~0: not written) */
};

/* Chunks c >= nreal are the trial's second payloads of chunks tsrc[c -
 * nreal] (7.10 step 1: linear interpolation in the trial order). */
__device__ __forceinline__ uint32_t sc(const E1 &p, uint32_t c) { return c < p.nreal ? c : p.tsrc[c - p.nreal]; }
__device__ __forceinline__ const CGeo &geo(const E1 &p, uint32_t c) {
    return sc(p, c) + 1 == p.nreal ? p.glast : p.gfull;
}
/* Chunk c's bodies from p.bodies (its Huffman body) or p.rbodies. */
__device__ __forceinline__ uint64_t bo(const E1 &p, uint32_t c) { return 2 * (uint64_t)c * p.bodycap; }

using scz_ku::MaxOp;

/* The last position before a0 (this thread's first of PER positions of
 * tile t of chunk c) where mark(k, a0 + k) holds: the block's exclusive
 * max-scan of the threads' last marks, else the tile's carry tl (k_vscan:
 * the last before the tile, NONE if none). Every thread calls it. */
template <typename Mark>
__device__ __forceinline__ uint32_t last_mark(const E1 &p, typename cub::BlockScan<uint32_t, NT>::TempStorage &ts,
                                              const uint32_t *tl, uint32_t c, uint32_t t, uint64_t a0, uint64_t n,
                                              Mark mark) {
    uint32_t last = 0;
#pragma unroll
    for (uint32_t k = 0; k < PER; k++)
        if (a0 + k < n && mark(k, a0 + k)) last = (uint32_t)(a0 + k) + 1;
    uint32_t before;
    cub::BlockScan<uint32_t, NT>(ts).ExclusiveScan(last, before, 0u, MaxOp());
    return before ? before - 1 : tl[(uint64_t)c * p.tpc + t];
}

/* A thread's PER codes at positions a0 .. a0 + PER - 1 (fill beyond n): two
 * 16-byte loads where they are all inside and aligned. */
__device__ __forceinline__ void tile_codes(const uint16_t *codes, uint64_t a0, uint64_t n, uint16_t fill,
                                           uint16_t cv[PER]) {
    const uint16_t *q = codes + a0;
    if (a0 + PER <= n && ((uintptr_t)q & 15) == 0) {
#pragma unroll
        for (uint32_t h = 0; h < PER / 8; h++) {
            const uint4 w = __ldg(reinterpret_cast<const uint4 *>(q) + h);
            const uint32_t wd[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (uint32_t k = 0; k < 8; k++) cv[h * 8 + k] = (uint16_t)(wd[k / 2] >> (16 * (k & 1)));
        }
    } else {
#pragma unroll
        for (uint32_t k = 0; k < PER; k++) cv[k] = a0 + k < n ? q[k] : fill;
    }
}

/* The inverse of tile_codes: a thread's PER codes stored at positions a0
 * .. (those below n), two 16-byte stores where all are inside and aligned. */
__device__ __forceinline__ void tile_store(uint16_t *codes, uint64_t a0, uint64_t n, const uint16_t cv[PER]) {
    uint16_t *q = codes + a0;
    if (a0 + PER <= n && ((uintptr_t)q & 15) == 0) {
#pragma unroll
        for (uint32_t h = 0; h < PER / 8; h++) {
            uint32_t wd[4];
#pragma unroll
            for (uint32_t k = 0; k < 4; k++) wd[k] = (uint32_t)cv[h * 8 + 2 * k] | (uint32_t)cv[h * 8 + 2 * k + 1] << 16;
            reinterpret_cast<uint4 *>(q)[h] = make_uint4(wd[0], wd[1], wd[2], wd[3]);
        }
    } else {
#pragma unroll
        for (uint32_t k = 0; k < PER; k++)
            if (a0 + k < n) q[k] = cv[k];
    }
}

/* Whether tile t of chunk c (n positions) holds a mark, from arr after
 * k_vscan (the last mark before each tile); the last tile is taken. */
__device__ __forceinline__ bool tile_marked(const E1 &p, const uint32_t *arr, uint32_t c, uint32_t t, uint64_t n) {
    if ((uint64_t)(t + 1) * TILE >= n) return true;
    const uint32_t v = arr[(uint64_t)c * p.tpc + t + 1];
    return v != NONE && (uint64_t)v >= (uint64_t)t * TILE;
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* The predictor estimate (7.10 step 1) of chunk blockIdx.y: samples over
 * the blocks blockIdx.x, their costs summed per chunk (64-bit). The sample
 * of lz1_est_sample (lossy_est_hd.h) with its control flow laid out for a
 * GPU: every value a sample reads is loaded before any is tested (the
 * loads in flight together, not one dependent load after another), its
 * coordinates by 32-bit divisions by multipliers (lz1_div), and the
 * axis each order takes for the sample's level from a table per block; the
 * per-element operations are lossy_est_hd.h's, so the sums are the CPU's. */
template <bool F32> __global__ void __launch_bounds__(NT) k_est(E1 p) {
    typedef typename std::conditional<F32, float, double>::type T;
    __shared__ uint8_t amap[8][LZ1_MAX_ORDERS]; /* axis of order od for a level's axis set */
    const uint32_t c = blockIdx.y;
    if (p.psnr || c >= p.nreal) return;
    const CGeo g = geo(p, c);
    const uint32_t n = g.rank;
    const uint32_t no = lz1_norders(n);
    if (threadIdx.x < 8 * LZ1_MAX_ORDERS) {
        const uint32_t set = threadIdx.x / LZ1_MAX_ORDERS, od = threadIdx.x % LZ1_MAX_ORDERS;
        uint32_t a = 3;
        if (od < no) {
            uint8_t perm[3], pos[3];
            lz1_order(n, od, perm, pos);
            for (uint32_t k = 0; k < n; k++)
                if ((set >> k & 1) && (a == 3 || pos[k] > pos[a])) a = k;
        }
        amap[set][od] = (uint8_t)a;
    }
    __syncthreads();
    const uint64_t ns = lz1_nsamples(g.n);
    const uint32_t sst = (uint32_t)lz1_sample_step(g.n);
    const T *src = reinterpret_cast<const T *>(p.src + (uint64_t)sc(p, c) * p.raw_full);
    const uint32_t e0 = (uint32_t)g.e[0], e1 = (uint32_t)g.e[1];
    const uint32_t st[3] = {1u, e0, e0 * e1};
    const uint32_t bm[3] = {(1u << g.lb[0]) - 1, (1u << g.lb[1]) - 1, (1u << g.lb[2]) - 1};
    const lz1_div q0 = lz1_div_make(e0), q1v = lz1_div_make(e1);
    const double recip = p.recip, ebx2 = p.ebx2, eb = p.eb;
    uint32_t kk[LZ1_NCOST]; /* a thread's sums: at most 129 a sample (lz1_cost) */
#pragma unroll
    for (uint32_t k = 0; k < LZ1_NCOST; k++) kk[k] = 0;
    for (uint64_t si = (uint64_t)blockIdx.x * NT + threadIdx.x; si < ns; si += (uint64_t)gridDim.x * NT) {
        const uint32_t i = (uint32_t)(LZ1_SAMPLE_OFF + si * sst);
        const uint32_t q1 = lz1_div_q(i, q0), x = i - q1 * e0;
        const uint32_t z = lz1_div_q(q1, q1v), y = q1 - z * e1;
        const uint32_t cc[3] = {x, y, z};
        /* Lorenzo's neighbours inside the block (7.4), then the level's */
        T lv[7];
        uint32_t lin = 0; /* bit m - 1: neighbour m is inside the block */
#pragma unroll
        for (uint32_t m = 1; m < 8; m++) {
            lv[m - 1] = 0;
            if (m >> n) continue;
            uint32_t j = i;
            bool in = true;
#pragma unroll
            for (uint32_t k = 0; k < 3; k++)
                if (m >> k & 1) in &= (cc[k] & bm[k]) != 0, j -= st[k];
            if (in) lin |= 1u << (m - 1), lv[m - 1] = __ldg(src + j);
        }
        uint32_t tz = 32, set = 0;
#pragma unroll
        for (uint32_t k = 0; k < 3; k++)
            if (k < n && cc[k]) {
                const uint32_t t = (uint32_t)__ffs((int)cc[k]) - 1;
                if (t < tz) tz = t, set = 1u << k;
                else if (t == tz) set |= 1u << k;
            }
        const T xv = __ldg(src + i);
        const uint32_t s = tz < 32 ? 1u << tz : 0;
        T nv[3][4];
        uint32_t has[3];
        const uint64_t ea[3] = {g.e[0], g.e[1], g.e[2]};
#pragma unroll
        for (uint32_t a = 0; a < 3; a++) {
            nv[a][0] = nv[a][1] = nv[a][2] = nv[a][3] = 0;
            has[a] = 0;
            if (!(set >> a & 1)) continue;
            const uint32_t ca = cc[a], o = s * st[a];
            const uint64_t s3 = 3ull * s;
            const bool hr1 = (uint64_t)ca + s < ea[a], hl3 = hr1 && ca >= s3, hr3 = hr1 && ca + s3 < ea[a];
            has[a] = 1u | (hr1 ? 2u : 0u) | (hl3 ? 4u : 0u) | (hr3 ? 8u : 0u);
            nv[a][0] = __ldg(src + i - o);
            if (hr1) nv[a][1] = __ldg(src + i + o);
            if (hl3) nv[a][2] = __ldg(src + i - 3 * o);
            if (hr3) nv[a][3] = __ldg(src + i + 3 * o);
        }
        /* the sample as lz1_est_sample: it counts when no element read is
         * verbatim and no residual quantization is */
        int64_t q, v;
        int bad = lz1_pq((double)xv, F32, recip, ebx2, eb, &q);
        uint64_t pl = 0;
#pragma unroll
        for (uint32_t m = 1; m < 8; m++) {
            if (!(lin >> (m - 1) & 1)) continue;
            bad |= lz1_pq((double)lv[m - 1], F32, recip, ebx2, eb, &v);
            if (__popc(m) & 1) pl += (uint64_t)v;
            else pl -= (uint64_t)v;
        }
        bad |= set == 0; /* element 0 */
        uint32_t cl[3] = {0, 0, 0}, cu[3] = {0, 0, 0};
#pragma unroll
        for (uint32_t a = 0; a < 3; a++) {
            if (!has[a]) continue;
            const bool hr1 = has[a] & 2, hl3 = has[a] & 4, hr3 = has[a] & 8;
            int64_t l1, r1 = 0, l3 = 0, r3 = 0;
            bad |= lz1_pq((double)nv[a][0], F32, recip, ebx2, eb, &l1);
            if (hr1) bad |= lz1_pq((double)nv[a][1], F32, recip, ebx2, eb, &r1);
            if (hl3) bad |= lz1_pq((double)nv[a][2], F32, recip, ebx2, eb, &l3);
            if (hr3) bad |= lz1_pq((double)nv[a][3], F32, recip, ebx2, eb, &r3);
            const double A = lz1_xq(l1, ebx2, F32), B = hr1 ? lz1_xq(r1, ebx2, F32) : 0.0;
            const double A3 = hl3 ? lz1_xq(l3, ebx2, F32) : 0.0, B3 = hr3 ? lz1_xq(r3, ebx2, F32) : 0.0;
            double xr;
            int64_t ql, qc;
            bad |= lz1_rq((double)xv, lz_finterp(0, A, hr1, B, 0, 0.0, 0, 0.0), recip, ebx2, eb, F32, &ql, &xr);
            bad |= lz1_rq((double)xv, lz_finterp(1, A, hr1, B, hl3, A3, hr3, B3), recip, ebx2, eb, F32, &qc, &xr);
            cl[a] = (uint32_t)lz1_cost((uint64_t)ql);
            cu[a] = (uint32_t)lz1_cost((uint64_t)qc);
        }
        if (bad) continue;
        kk[0] += (uint32_t)lz1_cost((uint64_t)q - pl);
#pragma unroll
        for (uint32_t od = 0; od < LZ1_MAX_ORDERS; od++) {
            if (od >= no) break;
            const uint32_t a = amap[set][od];
            kk[1 + 2 * od] += a == 0 ? cl[0] : a == 1 ? cl[1] : cl[2];
            kk[2 + 2 * od] += a == 0 ? cu[0] : a == 1 ? cu[1] : cu[2];
        }
        kk[LZ1_NCOST - 1]++;
    }
    /* the block's sums, then one atomic per sum and block (the sums of a
     * chunk share a cache line: per-warp atomics queued on it) */
    __shared__ unsigned long long bs[NT / 32][LZ1_NCOST];
#pragma unroll
    for (uint32_t k = 0; k < LZ1_NCOST; k++) {
        const unsigned long long v = warp_sum(kk[k]);
        if ((threadIdx.x & 31) == 0) bs[threadIdx.x >> 5][k] = v;
    }
    __syncthreads();
    if (threadIdx.x < LZ1_NCOST) {
        unsigned long long v = 0;
        for (uint32_t w = 0; w < NT / 32; w++) v += bs[w][threadIdx.x];
        if (v) atomicAdd(&p.costs[(uint64_t)c * LZ1_NCOST + threadIdx.x], v);
    }
}

/* The decision of each chunk from its sums (7.10 step 1). */
__global__ void k_decide(E1 p) {
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nreal) return;
    unsigned pred = LZ_PRED_LORENZO, order = 0, alt = LZ_PRED_LORENZO, alt_order = 0, tight = 0;
    if (!p.psnr) {
        uint64_t cc[LZ1_NCOST];
        for (uint32_t k = 0; k < LZ1_NCOST; k++) cc[k] = p.costs[(uint64_t)c * LZ1_NCOST + k];
        lz1_choose_costs(cc, geo(p, c).rank, &pred, &order, &alt, &alt_order, &tight);
    }
    uint8_t *d = p.dec + (uint64_t)c * ND;
    d[0] = (uint8_t)pred, d[1] = (uint8_t)order, d[2] = (uint8_t)alt, d[3] = (uint8_t)alt_order, d[4] = (uint8_t)tight;
}

/* The predictor the sweeps encode (the decision, or p.force) and the
 * sweep table of each interpolated chunk (sweep_table_warp), the per-chunk
 * sums zeroed: a warp per chunk. */
__global__ void k_stab(E1 p) {
    const uint32_t c = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (c >= p.nch) return; /* warp-uniform */
    const bool l0 = (threadIdx.x & 31) == 0;
    uint8_t *d = p.dec + (uint64_t)c * ND;
    if (l0) p.rmax[c] = 0, p.nout[c] = 0, p.nvnew[c] = 0;
    for (uint32_t t = threadIdx.x & 31; t < p.tpc; t += 32) { /* the tiles' marks (tile_mark), piece counts (k_rt2) */
        const uint64_t k = (uint64_t)c * p.tpc + t;
        p.tlast[k] = 0, p.olast[k] = 0, p.tpp[k] = 0;
    }
    unsigned pred, order, tight;
    if (c >= p.nreal) { /* the trial's interpolation payload, where the decision asks for it */
        const uint8_t *r = p.dec + (uint64_t)sc(p, c) * ND;
        const bool none = p.force || r[2] == LZ_PRED_LORENZO;
        pred = r[2], order = r[3], tight = r[4]; /* r: another chunk's decision (sc(p, c) < nreal <= c) */
        if (l0) d[0] = d[1] = d[2] = d[3] = d[4] = 0;
        if (none) {
            if (l0) d[5] = d[6] = d[7] = 0, p.nsw[c] = NONE;
            return;
        }
    } else {
        pred = d[0], order = d[1], tight = d[4];
        if (p.force) pred = p.force[3 * c], order = p.force[3 * c + 1], tight = p.force[3 * c + 2];
    }
    if (pred == LZ_PRED_LORENZO) tight = 0;
    if (l0) d[5] = (uint8_t)pred, d[6] = (uint8_t)order, d[7] = (uint8_t)tight;
    if (pred == LZ_PRED_LORENZO) {
        if (l0) p.nsw[c] = 0; /* coded by k_lor; no sweeps */
        return;
    }
    const CGeo &g = geo(p, c);
    const uint32_t S =
        scz_l1::sweep_table_warp(p.sw + (uint64_t)c * p.swn, p.swn, g.rank, g.e, order, (int)tight, p.ebx2);
    if (l0) p.nsw[c] = S;
}

/* Position pos of a chunk marked in its tile's entry of tl (nch x tpc:
 * the tile's last such position + 1, 0 for none; k_vscan<true> scans
 * them): the sweeps mark their outliers (olast) and verbatim elements
 * (tlast) as they code them, so that no pass over the codes looks for
 * them (it was a pass of its own, ~0.1 ms of wmag REL 1e-3). The lanes
 * here (rare codes) that mark the same tile take one atomic (a tile of
 * outliers only: one a warp, not one a code). */
__device__ __forceinline__ void tile_mark(uint32_t *tl, uint32_t pos) {
    namespace cg = cooperative_groups;
    const cg::coalesced_group g = cg::coalesced_threads();
    const uint32_t t = pos / TILE;
    const cg::coalesced_group part = cg::labeled_partition(g, t);
    const uint32_t mx = cg::reduce(part, pos + 1, cg::greater<uint32_t>());
    if (part.thread_rank() == 0) atomicMax(tl + t, mx);
}

/* The code of prediction error d with radius R (span = 2R - 1): d + R
 * inside, else an outlier (code 0, d in aux, its position pos marked in
 * ol); |d| of a coded error raises *m (the chunk's radius, 7.10 step 2). */
__device__ __forceinline__ void code_err(int64_t d, uint32_t R, uint64_t span, uint16_t *code, long long *aux,
                                         uint32_t *m, uint32_t *ol, uint32_t pos) {
    if ((uint64_t)d + (uint64_t)(R - 1) < span) {
        __stwb(code, (unsigned short)(d + R)); /* global stores (pointers that may be opaque) */
        const uint32_t a = (uint32_t)(d < 0 ? -d : d);
        *m = a > *m ? a : *m;
    } else {
        __stwb(code, (unsigned short)LZ_CODE_OUTLIER);
        __stwb(aux, (long long)d);
        tile_mark(ol, pos);
    }
}

/* Bytes of an outlier's entry in the list (7.6): the varints of its
 * index gap and of its zigzagged error d (k_ot2 sizes the list, k_lists
 * writes it). */
__device__ __forceinline__ uint64_t opair_len(uint64_t gap, uint64_t d) {
    return lz1_vlen(gap) + lz1_vlen((d << 1) ^ (0 - (d >> 63)));
}

/* The list bytes of a thread's outliers among its PER codes cv at
 * positions a0 .. (errors in aux), the first gap from nextp, added to
 * bytes, their number to no (k_ot2 sizes the list, k_lists places the
 * thread's entries). */
__device__ __forceinline__ void olist_bytes(const uint16_t *cv, const long long *aux, uint64_t a0, uint64_t nextp,
                                            unsigned long long &bytes, unsigned long long &no) {
    for (uint32_t k = 0; k < PER; k++) {
        const uint64_t pos = a0 + k;
        if (cv[k] == LZ_CODE_OUTLIER) {
            const uint64_t d = (uint64_t)aux[pos];
            bytes += opair_len(pos - nextp, d);
            nextp = pos + 1;
            no++;
        }
    }
}

/* The warp's largest m into chunk c's rmax (every lane calls it). */
__device__ __forceinline__ void rmax_warp(const E1 &p, uint32_t c, uint32_t m) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const uint32_t v = __shfl_down_sync(0xffffffffu, m, o);
        m = v > m ? v : m;
    }
    if ((threadIdx.x & 31) == 0 && m) atomicMax(&p.rmax[c], m);
}

/* Whether chunk c (S sweeps) codes the level of stride L by rows
 * (k_erows) instead of k_isw. L = 1, the finest level: coding rank 3
 * (every extent 2 or more), rows (axis 0) of an even number of elements,
 * and the last three sweeps those of level s = 1, one along each axis
 * (always so for rank 3; checked, since k_isw skips exactly the sweeps
 * k_erows codes). L = 2, asked where L = 1 holds: the three sweeps before
 * them too (on the grid of even coordinates: e0 divisible by 4, so that
 * its rows have an even length; every axis with a sweep at s = 2, e1, e2
 * >= 3: scz_l1::rows_ext, the decoder's question). */
using scz_l1::rows_ext;
__device__ __forceinline__ bool erows_takes(const E1 &p, uint32_t c, uint32_t S, uint32_t L = 1) {
    const CGeo &g = geo(p, c);
    if (g.rank != 3 || !rows_ext(g.e, 1) || (L == 2 && !rows_ext(g.e, 2)) || S < 3 * L) return false;
    const Sweep *W = p.sw + (uint64_t)c * p.swn;
    for (uint32_t l = 1; l <= L; l++) { /* levels 1 (the last three sweeps) .. L */
        uint32_t axes = 0;
        for (uint32_t k = 3 * (l - 1); k < 3 * l; k++) {
            if (W[S - k].s != l || W[S - k].a > 2) return false;
            axes |= 1u << W[S - k].a;
        }
        if (axes != 7) return false;
    }
    return W[S - 3 * L].s > L || S == 3 * L;
}

/* Sweep index j (entry 0: element 0) of interpolated chunk c, its
 * elements over the blocks bx of gx (k_isw: the grid, chunk cbase +
 * blockIdx.y; k_icoarse: one block). The chunk's arrays are addressed by 32-bit indices from per-chunk bases kept
 * opaque (a chunk has at most 2^32 - 2 elements; without them every access
 * re-added the chunk's 64-bit offset), the bounds are 32-bit and cannot
 * wrap (s < ea - ca; 3 s saturated), the warp iterates as a whole (a
 * block-uniform loop) so that one vote decides whether any lane has a
 * verbatim neighbour (float32: the Rv loads were predicated into every
 * element's path), and the last sweep writes no R (nothing reads it).
 * Nsight (H100, wmag): ~250 -> ~150 instructions an element, but the time
 * is the loads' latency (long-scoreboard stalls, 40% occupancy): what
 * gained was the occupancy (MB, isw_sv). PLAIN: the neighbours' R by
 * plain loads (k_icoarse, whose block wrote them in this launch), else
 * read-only loads (written by earlier launches). */
template <bool F32, uint32_t SV, bool PLAIN>
__device__ __forceinline__ void isw_sweep(const E1 &p, uint32_t j, uint32_t c, uint32_t rows, uint32_t bx,
                                          uint32_t gx) {
    typedef typename std::conditional<F32, float, double>::type T;
    const uint32_t S = p.nsw[c];
    if (S == NONE || j > S || p.dec[(uint64_t)c * ND + 5] == LZ_PRED_LORENZO) return;
    const Sweep W = p.sw[(uint64_t)c * p.swn + j];
    if (rows && j > 0 && ((W.s == 1 && erows_takes(p, c, S)) || ((rows & 2) && W.s == 2 && erows_takes(p, c, S, 2))))
        return; /* k_erows' */
    const CGeo &g = geo(p, c);
    const int cubic = p.dec[(uint64_t)c * ND + 5] == LZ_PRED_CUBIC;
    using scz_ku::opaque;
    double *Rv = opaque(p.Rv + (uint64_t)c * p.cf);
    float *Rf = F32 ? opaque(p.Rf + (uint64_t)c * p.cf) : nullptr;
    T *Rt = F32 ? reinterpret_cast<T *>(Rf) : reinterpret_cast<T *>(Rv);
    uint16_t *codes = opaque(p.codes + (uint64_t)c * p.cf + W.p0);
    long long *aux = opaque(p.aux + (uint64_t)c * p.cf + W.p0);
    uint32_t *tlt = p.tlast + (uint64_t)c * p.tpc, *olt = p.olast + (uint64_t)c * p.tpc;
    const T *src = opaque(reinterpret_cast<const T *>(p.src + (uint64_t)sc(p, c) * p.raw_full));
    const uint32_t e0 = (uint32_t)g.e[0], e1 = (uint32_t)g.e[1];
    const uint32_t sta = W.a == 0 ? 1 : W.a == 1 ? e0 : e0 * e1, s = W.s, o = s * sta;
    const uint32_t ea = W.a < 3 ? (uint32_t)g.e[W.a] : 1;
    const uint32_t s3 = 3ull * s < 0xffffffffull ? 3 * s : 0xffffffffu; /* ca >= s3 never holds when saturated */
    const int64_t R = p.R;
    const uint64_t span = 2 * (uint64_t)R - 1;
    const uint32_t n = W.n;
    const bool last = j == S; /* no sweep reads the last one's R (nor does anything after the sweeps) */
    uint32_t m = 0;
    auto ldR = [&](const T *q) -> T { return PLAIN ? *q : __ldg(q); };
    auto ldV = [&](const double *q) -> double { return PLAIN ? *q : __ldg(q); };
    for (uint32_t b0 = bx * NT * SV; b0 < n; b0 += gx * NT * SV) {
        /* SV elements: everything each reads loaded first, then computed
         * (lz_ipred's neighbours: A, B, A3, B3 where they exist) */
        uint32_t iv[SV], fl[SV]; /* fl: 1 valid, 2 B, 4 A3, 8 B3 */
        T xv[SV], nb[SV][4];
        bool vn = false; /* a verbatim neighbour (float32) */
#pragma unroll
        for (uint32_t v = 0; v < SV; v++) {
            const uint32_t k = b0 + v * NT + threadIdx.x;
            fl[v] = 0;
            xv[v] = 0;
            nb[v][0] = nb[v][1] = nb[v][2] = nb[v][3] = 0;
            const uint32_t q1 = lz1_div_q(k, W.q0), kx = k - q1 * W.c0;
            const uint32_t kz = lz1_div_q(q1, W.q1), ky = q1 - kz * W.c1;
            const uint32_t x = W.b[0] + kx * W.d[0], y = W.b[1] + ky * W.d[1], z = W.b[2] + kz * W.d[2];
            const uint32_t i = (z * e1 + y) * e0 + x;
            iv[v] = i;
            if (k >= n) continue;
            fl[v] = 1;
            xv[v] = __ldg(src + i);
            if (W.a < 3) {
                const uint32_t ca = W.a == 0 ? x : W.a == 1 ? y : z; /* ca < ea */
                const bool hb = s < ea - ca, ha3 = cubic && hb && ca >= s3, hb3 = cubic && hb && s3 < ea - ca;
                fl[v] |= (hb ? 2u : 0u) | (ha3 ? 4u : 0u) | (hb3 ? 8u : 0u);
                nb[v][0] = ldR(Rt + (i - o)); /* written by earlier sweeps (launches) */
                if (hb) nb[v][1] = ldR(Rt + (i + o));
                if (ha3) nb[v][2] = ldR(Rt + (i - 3 * o));
                if (hb3) nb[v][3] = ldR(Rt + (i + 3 * o));
                if (F32) /* NaN marks a verbatim neighbour, its R in Rv */
                    vn |= nb[v][0] != nb[v][0] || nb[v][1] != nb[v][1] || nb[v][2] != nb[v][2] || nb[v][3] != nb[v][3];
            }
        }
        vn = F32 && __any_sync(0xffffffffu, vn); /* every lane of the warp is here (the loop is block-uniform) */
#pragma unroll
        for (uint32_t v = 0; v < SV; v++) {
            if (!fl[v]) continue;
            const uint32_t i = iv[v];
            double P = 0.0;
            if (W.a < 3) {
                double w[4];
#pragma unroll
                for (int q = 0; q < 4; q++) w[q] = (double)nb[v][q];
                if (F32 && vn) { /* rare: a branch, not predicated loads on the common path */
                    const uint32_t at[4] = {i - o, i + o, i - 3 * o, i + 3 * o};
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        if (nb[v][q] != nb[v][q]) w[q] = ldV(Rv + at[q]);
                }
                P = lz_finterp(cubic, w[0], fl[v] >> 1 & 1, w[1], fl[v] >> 2 & 1, w[2], fl[v] >> 3 & 1, w[3]);
            }
            int64_t q;
            double xr;
            const uint32_t pos = b0 + v * NT + threadIdx.x;
            if (lz1_rq((double)xv[v], P, W.rh, W.h, p.eb, F32, &q, &xr)) {
                if (!last) {
                    __stwb(Rv + i, P);
                    if (F32) __stwb(Rf + i, __int_as_float(0x7fffffff));
                }
                __stwb(codes + pos, (unsigned short)LZ_VNEW(R)); /* V_new or V_repeat: k_vt2 */
                __stwb(aux + pos, (long long)i);
                tile_mark(tlt, W.p0 + pos);
            } else {
                if (last) {
                } else if (F32) __stwb(Rf + i, (float)xr); /* T(x') of float32 data: exact */
                else __stwb(Rv + i, xr);
                code_err(q, R, span, codes + pos, aux + pos, &m, olt, W.p0 + pos);
            }
        }
    }
    rmax_warp(p, c, m);
}

template <bool F32, uint32_t SV, uint32_t MB>
__global__ void __launch_bounds__(NT, MB) k_isw(E1 p, uint32_t j, uint32_t cbase, uint32_t rows) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    isw_sweep<F32, SV, false>(p, j, cbase + blockIdx.y, rows, blockIdx.x, gridDim.x);
}

/* The small sweeps of the coarsest levels (entries 0 .. nj - 1, each with
 * at most ICO_MAX elements in every chunk of the group): one launch, a
 * block a chunk going through them in order, a barrier between sweeps
 * (their neighbours are earlier sweeps' elements, written by the same
 * block), as the decoder's k_coarse. Was one k_isw launch a sweep, ~5-8 us
 * each (H100, wmag: twelve under Nsight Compute). */
constexpr uint32_t ICO_MAX = 4096;
template <bool F32>
__global__ void __launch_bounds__(NT) k_icoarse(E1 p, uint32_t nj, uint32_t cbase, uint32_t rows) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    for (uint32_t j = 0; j < nj; j++) {
        isw_sweep<F32, 2, true>(p, j, cbase + blockIdx.y, rows, 0, 1);
        __syncthreads();
    }
}

/* The finest level (s = 1, 7/8 of the elements) of a chunk that
 * erows_takes, by rows along axis 0, as the decoder's k_rows
 * (lossy_dec.cu, which gives the classes): k_isw's one thread an element
 * loaded every neighbour from its own row of another sweep, stored every
 * second element of a row in most sweeps (partial sectors) and divided
 * its position into coordinates. Here a warp takes 29 pairs (2 j, 2 j + 1)
 * of a row, plus one pair before and two after (lanes 0, 30, 31: their
 * even elements' R only, for the odd ones'), loads the pairs' values with
 * one 8- or 16-byte load a lane, computes the even element of each (R read
 * from the coarser level in class 0, else from the rows at +-1, +-3 along
 * the class's axis, coded by earlier classes), passes the R values by
 * shuffles for the odd elements where axis 0 is swept after that axis
 * (else computes them along it too), and stores the pair's R whole.
 * Class 2 stores no R (no later sweep reads it: its rows are read only by
 * its own odd elements, through the shuffles), as k_isw's last sweep.
 * The arithmetic, codes, aux and radius are k_isw's; lanes outside their
 * own pairs write nothing. One launch a class, after the coarser levels. */
struct ERowCtx {
    double h, rh;
    uint32_t cubic;
    uint32_t er0, er1; /* the chunk's extents along axes 0, 1 (g.e: those of the level's grid) */
    scz_l1::RowGeo g; /* lossy_sweep_cuda.h: the classes, rows and sweeps, as the decoder's k_rows */
};

/* L = 1: the finest level (above); L = 2: the level of stride 2 the same
 * way on the grid of even coordinates (erows_takes(.., 2); coordinates and
 * code positions in units of the stride, the pairs x = 4 j, 4 j + 2 by
 * scalar loads and stores, every class storing its R, which the finest
 * level reads), launched before the finest level's classes, as the
 * decoder's k_rows / k_rwalk with S = 2. 5 blocks an SM (48 registers).
 * H100, wmag REL 1e-3: 6 blocks (40 registers, spills) no faster; two warp
 * items a step, everything both read loaded before either is computed, at
 * 4 blocks (64 registers): no faster (class 2 524 -> 570 us, the others
 * 2-5% faster, under Nsight). */
constexpr uint32_t EROWS_MB = 5;
/* WALK (classes 1 and 2): the class's rows by walks along the class axis
 * (the decoder's k_rwalk): a warp takes a row segment and p.ews (8)
 * consecutive rows of the class along that axis, the four neighbour rows'
 * pairs in registers, so that a step loads one new neighbour row instead
 * of four (eight where the odd elements go along the axis too). H100,
 * wmag REL 1e-3 (Nsight): class 1 333 -> 249 us, class 2 526 -> 423;
 * with the next step's loads issued a step ahead (two more pairs in
 * registers, spills) class 2 took 457. */
template <bool F32, uint32_t L, uint32_t CLS, bool WALK>
__global__ void __launch_bounds__(NT, EROWS_MB) k_erows(E1 p, uint32_t cbase) {
    static_assert(!WALK || CLS > 0, "class 0 has no class axis to walk");
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef typename std::conditional<F32, float, double>::type T;
    typedef typename std::conditional<F32, float2, double2>::type T2;
    __shared__ ERowCtx X;
    __shared__ int ok;
    const uint32_t c = cbase + blockIdx.y, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        const uint32_t S = p.nsw[c];
        ok = S != NONE && p.dec[(uint64_t)c * ND + 5] != LZ_PRED_LORENZO && erows_takes(p, c, S, L);
        if (ok) {
            const Sweep *Wl = p.sw + (uint64_t)c * p.swn + S + 1 - 3 * L; /* the level's three sweeps */
            const CGeo &g = geo(p, c);
            const uint32_t e[3] = {(uint32_t)((g.e[0] + L - 1) / L), (uint32_t)((g.e[1] + L - 1) / L),
                                   (uint32_t)((g.e[2] + L - 1) / L)};
            X.h = Wl[0].h, X.rh = Wl[0].rh; /* one level: one step */
            X.cubic = p.dec[(uint64_t)c * ND + 5] == LZ_PRED_CUBIC;
            X.er0 = (uint32_t)g.e[0], X.er1 = (uint32_t)g.e[1];
            ok = scz_l1::row_geo(X.g, Wl, e, CLS);
        }
    }
    __syncthreads();
    if (!ok) return; /* block-uniform */
    using scz_ku::opaque;
    double *Rv = opaque(p.Rv + (uint64_t)c * p.cf);
    float *Rf = F32 ? opaque(p.Rf + (uint64_t)c * p.cf) : nullptr;
    T *Rt = F32 ? reinterpret_cast<T *>(Rf) : reinterpret_cast<T *>(Rv);
    uint16_t *codes = opaque(p.codes + (uint64_t)c * p.cf);
    long long *aux = opaque(p.aux + (uint64_t)c * p.cf);
    uint32_t *tlt = p.tlast + (uint64_t)c * p.tpc, *olt = p.olast + (uint64_t)c * p.tpc;
    const T *src = opaque(reinterpret_cast<const T *>(p.src + (uint64_t)sc(p, c) * p.raw_full));
    const scz_l1::RowGeo &G = X.g;
    const uint32_t e0 = G.e[0], er0 = X.er0, er1 = X.er1, Rr = p.R;
    const uint64_t span = 2 * (uint64_t)Rr - 1;
    constexpr bool store = L == 2 || CLS < 2;
    const double h = X.h, rh = X.rh, eb = p.eb;
    uint32_t m = 0;
    /* R of the element at idx whose Rt entry is t (float32: NaN marks a verbatim one, its R in Rv) */
    auto Rof = [&](uint32_t idx, T t) -> double {
        if (F32 && t != t) return __ldg(Rv + idx);
        return (double)t;
    };
    /* element idx (value x, prediction P) at code position pos: code and
     * aux where wr, its Rt entry into *t, its R returned */
    auto fin = [&](uint32_t idx, uint32_t pos, T x, double P, T *t, bool wr) -> double {
        int64_t q;
        double xr;
        if (lz1_rq((double)x, P, rh, h, eb, F32, &q, &xr)) {
            if (F32 && wr && store) __stwb(Rv + idx, P);
            *t = F32 ? __int_as_float(0x7fffffff) : (T)P;
            if (wr) {
                __stwb(codes + pos, (unsigned short)LZ_VNEW(Rr)); /* V_new or V_repeat: k_vt2 */
                __stwb(aux + pos, (long long)idx);
                tile_mark(tlt, pos);
            }
            return P;
        }
        *t = (T)xr; /* float32: T(x') exact */
        if (wr) code_err(q, Rr, span, codes + pos, aux + pos, &m, olt, pos);
        return xr;
    };
    /* the rows, specialised on the predictor and xafter (block-uniform) */
    auto rows = [&](auto cu, auto xa) {
        constexpr bool CUBIC = decltype(cu)::value, XAFTER = decltype(xa)::value;
        /* the element at (x, y, z) of the sweep along axis a (1 or 2): P from the rows at +-1, +-3 */
        auto along = [&](uint32_t a, uint32_t x, uint32_t y, uint32_t z, uint32_t idx, T xv, T *t, bool wr) -> double {
            const uint32_t ca = a == 1 ? y : z, ea = G.e[a], ga = L * (a == 1 ? er0 : er0 * er1);
            const bool hb = ca + 1 < ea, c3 = CUBIC && hb, ha3 = c3 && ca >= 3, hb3 = c3 && ca + 3 < ea;
            const T tA = __ldg(Rt + idx - ga); /* written by earlier launches */
            const T tB = hb ? __ldg(Rt + idx + ga) : (T)0;
            const T tA3 = ha3 ? __ldg(Rt + idx - 3 * ga) : (T)0;
            const T tB3 = hb3 ? __ldg(Rt + idx + 3 * ga) : (T)0;
            const double P = lz_finterp((int)CUBIC, Rof(idx - ga, tA), hb, hb ? Rof(idx + ga, tB) : 0.0, ha3,
                                        ha3 ? Rof(idx - 3 * ga, tA3) : 0.0, hb3, hb3 ? Rof(idx + 3 * ga, tB3) : 0.0);
            return fin(idx, scz_l1::row_code(G, a, x, y, z), xv, P, t, wr);
        };
        const uint32_t nw = G.nrows * G.nseg, ax = CLS == 0 ? 3u : G.ax;
        for (uint32_t w = (blockIdx.x * NT + threadIdx.x) >> 5; w < nw; w += (gridDim.x * NT) >> 5) {
            const scz_l1::RowAt at = scz_l1::row_at(G, w, lane);
            const uint32_t y = at.y, z = at.z;
            const int32_t jp = at.jp;
            const bool valid = at.valid, own = at.own;
            const uint32_t x0 = 2 * (uint32_t)(jp > 0 ? jp : 0), i0 = ((z * L) * er1 + y * L) * er0 + x0 * L;
            T2 xp, rp;
            xp.x = xp.y = rp.x = rp.y = (T)0;
            if (valid) {
                xp = scz_l1::pair_ld<L, T, T2>(src, i0);
                if (CLS == 0) rp = scz_l1::pair_ld<L, T, T2>(Rt, i0); /* the even element: coarser */
            }
            double Re = 0.0;
            if (valid && CLS == 0) Re = Rof(i0, rp.x);
            else if (valid) Re = along(ax, x0, y, z, i0, xp.x, &rp.x, own);
            if (XAFTER) { /* the odd element from the even ones of the row */
                const scz_l1::RowNb nb = scz_l1::row_nb(Re);
                if (own) {
                    const uint32_t xo = x0 + 1;
                    const double P = scz_l1::row_odd<CUBIC>(nb, Re, xo, e0);
                    fin(i0 + L, scz_l1::row_code(G, 0, xo, y, z), xp.y, P, &rp.y, true);
                }
            } else if (own) {
                along(ax, x0 + 1, y, z, i0 + L, xp.y, &rp.y, true);
            }
            if (own && store) scz_l1::pair_st<L, T, T2>(Rt, i0, rp);
        }
    };
    /* classes 1 and 2 by walks along the class axis Ra (WALK) */
    auto walk = [&](auto cu, auto xa) {
        constexpr bool CUBIC = decltype(cu)::value, XAFTER = decltype(xa)::value;
        const uint32_t ews = p.ews;
        const scz_l1::Walk Wk = scz_l1::walk_geo(G, ews);
        const uint32_t Ra = Wk.Ra, ea = G.e[Ra], ga = L * (Ra == 1 ? er0 : er0 * er1);
        const uint32_t ao = XAFTER ? 0 : Ra; /* the odd elements' sweep */
        const uint32_t de = scz_l1::walk_dstep(G, Ra, Ra), dod = scz_l1::walk_dstep(G, Ra, ao);
        auto ldp = [&](const T *a, uint32_t idx) -> T2 { return scz_l1::pair_ld<L, T, T2>(a, idx); };
        for (uint32_t w = (blockIdx.x * NT + threadIdx.x) >> 5; w < Wk.nw; w += (gridDim.x * NT) >> 5) {
            const scz_l1::WalkAt at = scz_l1::walk_at(G, Wk, ews, w, lane);
            const bool valid = at.valid, own = at.own;
            const uint32_t x0 = at.x0, k0 = at.k0, k1 = at.k1, y0 = at.y0, z0 = at.z0, ca0 = at.ca0; /* ca0 odd */
            uint32_t i0 = ((z0 * L) * er1 + y0 * L) * er0 + x0 * L; /* the lane's even element in row k */
            uint32_t pe = scz_l1::row_code(G, Ra, x0, y0, z0), po = scz_l1::row_code(G, ao, x0 + 1, y0, z0);
            T2 w0, w1, w2, w3; /* rows ca - 3, ca - 1, ca + 1, ca + 3 */
            w0.x = w0.y = w1.x = w1.y = w2.x = w2.y = w3.x = w3.y = (T)0;
            if (valid) {
                if (CUBIC && ca0 >= 3) w0 = ldp(Rt, i0 - 3 * ga);
                w1 = ldp(Rt, i0 - ga);
                if (ca0 + 1 < ea) w2 = ldp(Rt, i0 + ga);
            }
            for (uint32_t k = k0; k < k1; k++) {
                const uint32_t ca = ca0 + 2 * (k - k0);
                const bool hb = ca + 1 < ea, ha3 = CUBIC && hb && ca >= 3, hb3 = CUBIC && hb && ca + 3 < ea;
                T2 xp, rp;
                xp.x = xp.y = rp.x = rp.y = (T)0;
                if (valid) {
                    if (ca + 3 < ea) w3 = ldp(Rt, i0 + 3 * ga); /* this step's B3 (cubic), the next step's B */
                    xp = ldp(src, i0);
                }
                double Re = 0.0;
                if (valid) {
                    const double P = lz_finterp((int)CUBIC, Rof(i0 - ga, w1.x), hb, hb ? Rof(i0 + ga, w2.x) : 0.0, ha3,
                                                ha3 ? Rof(i0 - 3 * ga, w0.x) : 0.0, hb3,
                                                hb3 ? Rof(i0 + 3 * ga, w3.x) : 0.0);
                    Re = fin(i0, pe, xp.x, P, &rp.x, own);
                }
                if (XAFTER) { /* the odd element from the even ones of the row */
                    const scz_l1::RowNb nb = scz_l1::row_nb(Re);
                    if (own) fin(i0 + L, po, xp.y, scz_l1::row_odd<CUBIC>(nb, Re, x0 + 1, e0), &rp.y, true);
                } else if (own) {
                    const uint32_t io = i0 + L;
                    const double P = lz_finterp((int)CUBIC, Rof(io - ga, w1.y), hb, hb ? Rof(io + ga, w2.y) : 0.0, ha3,
                                                ha3 ? Rof(io - 3 * ga, w0.y) : 0.0, hb3,
                                                hb3 ? Rof(io + 3 * ga, w3.y) : 0.0);
                    fin(io, po, xp.y, P, &rp.y, true);
                }
                if (own && store) scz_l1::pair_st<L, T, T2>(Rt, i0, rp);
                /* the next row: its neighbours at -3, -1, +1 are this one's -1, +1, +3 */
                w0 = w1, w1 = w2, w2 = w3;
                i0 += 2 * ga;
                pe += de, po += dod;
            }
        }
    };
    typedef std::false_type N;
    typedef std::true_type Y;
    if constexpr (CLS == 0) { /* xafter: every odd element of class 0 goes along axis 0 */
        if (X.cubic) rows(Y(), Y());
        else rows(N(), Y());
    } else if constexpr (WALK) {
        switch (X.cubic * 2 + G.xafter) {
        case 0: walk(N(), N()); break;
        case 1: walk(N(), Y()); break;
        case 2: walk(Y(), N()); break;
        default: walk(Y(), Y()); break;
        }
    } else {
        switch (X.cubic * 2 + G.xafter) {
        case 0: rows(N(), N()); break;
        case 1: rows(N(), Y()); break;
        case 2: rows(Y(), N()); break;
        default: rows(Y(), Y()); break;
        }
    }
    rmax_warp(p, c, m);
}

/* The Lorenzo prediction (7.4) of element i of a block of ex x ey x (exy =
 * ex ey) integers q: inclusion-exclusion over the neighbours before it,
 * mod 2^64. */
__device__ __forceinline__ uint64_t lor_pred(const long long *q, uint32_t i, uint32_t ex, uint32_t ey, uint32_t exy) {
    const uint32_t x = i % ex, y = i / ex % ey, z = i / exy;
    uint64_t P = 0;
    if (x) P += (uint64_t)q[i - 1];
    if (y) P += (uint64_t)q[i - ex];
    if (x && y) P -= (uint64_t)q[i - ex - 1];
    if (z) {
        P += (uint64_t)q[i - exy];
        if (x) P -= (uint64_t)q[i - exy - 1];
        if (y) P -= (uint64_t)q[i - exy - ex];
        if (x && y) P += (uint64_t)q[i - exy - ex - 1];
    }
    return P;
}

/* Lorenzo (7.4) of chunk blockIdx.y's lossy block blockIdx.x (7.2: the
 * writer's shape, codes in block order, x fastest inside a block), radius
 * R: codes at their code indices, an outlier's error or a verbatim
 * element's index in aux, |d| for the radius (as k_isw). */
template <bool F32> __global__ void __launch_bounds__(NT) k_lor(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ long long q[4096];
    __shared__ uint8_t vf[4096];
    const uint32_t c = blockIdx.y, b = blockIdx.x;
    if (p.nsw[c] != 0 || p.dec[(uint64_t)c * ND + 5] != LZ_PRED_LORENZO) return;
    const CGeo &g = geo(p, c);
    uint64_t nb[3];
    for (int k = 0; k < 3; k++) nb[k] = (g.e[k] + (1ull << g.lb[k]) - 1) >> g.lb[k];
    if (b >= nb[0] * nb[1] * nb[2]) return;
    const uint64_t bx = b % nb[0], bt = b / nb[0], by = bt % nb[1], bz = bt / nb[1];
    const uint64_t x0 = bx << g.lb[0], y0 = by << g.lb[1], z0 = bz << g.lb[2];
    const uint64_t sx = 1ull << g.lb[0], sy = 1ull << g.lb[1], sz = 1ull << g.lb[2];
    const uint32_t ex = (uint32_t)(g.e[0] - x0 < sx ? g.e[0] - x0 : sx), ey = (uint32_t)(g.e[1] - y0 < sy ? g.e[1] - y0 : sy),
                   ez = (uint32_t)(g.e[2] - z0 < sz ? g.e[2] - z0 : sz);
    const uint32_t m = ex * ey * ez, exy = ex * ey;
    const uint64_t e0 = g.e[0], e01 = g.e[0] * g.e[1];
    const uint64_t base = (z0 * g.e[1] + y0) * g.e[0] + x0;
    const uint64_t co = z0 * g.e[1] * g.e[0] + (uint64_t)ez * y0 * g.e[0] + (uint64_t)ez * ey * x0;
    const void *src = p.src + (uint64_t)sc(p, c) * p.raw_full;
    uint16_t *codes = p.codes + (uint64_t)c * p.cf + co;
    long long *aux = p.aux + (uint64_t)c * p.cf + co;
    uint32_t *tlt = p.tlast + (uint64_t)c * p.tpc, *olt = p.olast + (uint64_t)c * p.tpc;
    const int64_t R = p.R;
    const uint64_t span = 2 * (uint64_t)R - 1;
    int any = 0;
    for (uint32_t i = threadIdx.x; i < m; i += NT) {
        const uint32_t x = i % ex, y = i / ex % ey, z = i / exy;
        int64_t v;
        const int bad = lz1_pq(lz1_elem(src, F32, base + z * e01 + y * e0 + x), F32, p.recip, p.ebx2, p.eb, &v);
        q[i] = (long long)v;
        vf[i] = (uint8_t)bad;
        any |= bad;
    }
    any = __syncthreads_or(any);
    uint32_t mx = 0;
    if (!any) {
        for (uint32_t i = threadIdx.x; i < m; i += NT) {
            const uint64_t P = lor_pred(q, i, ex, ey, exy);
            code_err((int64_t)((uint64_t)q[i] - P), R, span, &codes[i], &aux[i], &mx, olt, (uint32_t)co + i);
        }
    } else if (threadIdx.x == 0) {
        /* verbatim elements: Q = P there, sequentially (lossy_kern.h compress_range) */
        for (uint32_t i = 0; i < m; i++) {
            const uint32_t x = i % ex, y = i / ex % ey, z = i / exy;
            const uint64_t P = lor_pred(q, i, ex, ey, exy);
            if (vf[i]) {
                q[i] = (long long)P;
                codes[i] = (uint16_t)LZ_VNEW(R);
                aux[i] = (long long)(base + z * e01 + y * e0 + x);
                tile_mark(tlt, (uint32_t)co + i);
                continue;
            }
            code_err((int64_t)((uint64_t)q[i] - P), R, span, &codes[i], &aux[i], &mx, olt, (uint32_t)co + i);
        }
    }
    rmax_warp(p, c, mx);
}


/* Per chunk: the last position (verbatim element, run start) before each
 * tile, from each tile's last in arr (nch x tpc). */
constexpr uint32_t SIPT = 8; /* tiles per thread of the per-chunk scans */

/* A block per chunk (positions grow with the tile: the last one before a
 * tile is the largest, a max-scan of position + 1, 0 for none). */
template <bool P1> __global__ void __launch_bounds__(NT) k_vscan(E1 p, uint32_t *arr) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> BS;
    __shared__ typename BS::TempStorage ts;
    const uint32_t c = blockIdx.x;
    if (p.nsw[c] == NONE) return;
    const uint64_t nt = (geo(p, c).n + TILE - 1) / TILE;
    uint32_t *tl = arr + (uint64_t)c * p.tpc, carry = 0;
    for (uint64_t t0 = 0; t0 < nt; t0 += NT * SIPT) {
        uint32_t v[SIPT];
#pragma unroll
        for (uint32_t j = 0; j < SIPT; j++) {
            const uint64_t t = t0 + threadIdx.x * SIPT + j;
            const uint32_t x = t < nt ? tl[t] : P1 ? 0 : NONE;
            v[j] = P1 ? x : x == NONE ? 0 : x + 1; /* P1: position + 1 already (tile_mark), 0 none */
        }
        uint32_t agg;
        BS(ts).ExclusiveScan(v, v, carry, MaxOp(), agg);
#pragma unroll
        for (uint32_t j = 0; j < SIPT; j++) {
            const uint64_t t = t0 + threadIdx.x * SIPT + j;
            if (t < nt) tl[t] = v[j] ? v[j] - 1 : NONE;
        }
        carry = agg > carry ? agg : carry;
        __syncthreads();
    }
}

template <bool F32> __device__ __forceinline__ uint64_t vbits(const void *src, long long i) {
    if (F32) return static_cast<const uint32_t *>(src)[i];
    return static_cast<const unsigned long long *>(src)[i];
}

/* V_new / V_repeat (7.4): a code 2R whose element has the bits of the
 * previous verbatim element (traversal order) becomes 2R + 1; outliers and
 * V_new counted per chunk. */
template <bool F32> __global__ void __launch_bounds__(NT) k_vt2(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> BS;
    typedef cub::BlockReduce<unsigned long long, NT> BR;
    __shared__ typename BS::TempStorage ts;
    __shared__ typename BR::TempStorage tr;
    const uint32_t c = blockIdx.y, t = blockIdx.x;
    if (p.nsw[c] == NONE) return;
    const uint64_t n = geo(p, c).n, a = (uint64_t)t * TILE;
    if (a >= n) return;
    if (!tile_marked(p, p.tlast, c, t, n)) { /* no verbatim element */
        if (threadIdx.x == 0) p.tvn[(uint64_t)c * p.tpc + t] = 0;
        return;
    }
    uint16_t *codes = p.codes + (uint64_t)c * p.cf;
    const long long *aux = p.aux + (uint64_t)c * p.cf;
    const void *src = p.src + (uint64_t)sc(p, c) * p.raw_full;
    const uint16_t vnew = (uint16_t)LZ_VNEW(p.R), vrep = (uint16_t)LZ_VREP(p.R);
    uint16_t cv[PER];
    const uint64_t a0 = a + threadIdx.x * PER;
    tile_codes(codes, a0, n, 1, cv);
    uint32_t prev = last_mark(p, ts, p.tlast, c, t, a0, n, [&](uint32_t k, uint64_t) { return cv[k] == vnew; });
    unsigned long long nv = 0;
    uint64_t pb = prev != NONE ? vbits<F32>(src, aux[prev]) : 0;
    for (uint32_t k = 0; k < PER; k++) {
        const uint64_t pos = a0 + k;
        if (cv[k] == vnew) {
            const uint64_t b = vbits<F32>(src, aux[pos]);
            if (prev != NONE && b == pb) codes[pos] = vrep;
            else nv++;
            prev = (uint32_t)pos;
            pb = b;
        }
    }
    const unsigned long long sv = BR(tr).Sum(nv);
    if (threadIdx.x == 0) {
        if (sv) atomicAdd(&p.nvnew[c], sv);
        p.tvn[(uint64_t)c * p.tpc + t] = sv;
    }
}

/* Start of sweep j of chunk c (lossy_sweep_cuda.h: entry j + 1). */
__device__ __forceinline__ uint32_t sw_start(const E1 &p, uint32_t c, uint32_t j) {
    return p.sw[(uint64_t)c * p.swn + j + 1].p0;
}

/* The size set's streams of each chunk: counts and alphabets; slots
 * without a stream get one symbol 0 (their sizes are not read). */
/* The group's largest alphabet 2r + 2 (r = rmax + 1 of a chunk with codes):
 * the size sets' tables and paths are those of this alphabet. */
__global__ void __launch_bounds__(NT) k_kmax(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockReduce<uint32_t, NT> Red;
    __shared__ typename Red::TempStorage ts;
    uint32_t m = 4;
    for (uint32_t c = threadIdx.x; c < p.nch; c += NT)
        if (p.nsw[c] != NONE && 2 * (p.rmax[c] + 1) + 2 > m) m = 2 * (p.rmax[c] + 1) + 2;
    const uint32_t t = Red(ts).Reduce(m, MaxOp());
    if (threadIdx.x == 0) *p.kmax = t;
}

__global__ void k_sinit(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    const uint32_t S = p.nsw[c];
    uint32_t *cnt = p.scnt + (uint64_t)c * Q, *K = p.sK + (uint64_t)c * Q;
    const uint32_t r = p.rmax[c] + 1, G = S == NONE ? 0 : S < LZ1_GMAX ? S : LZ1_GMAX;
    p.rch[c] = S == NONE ? 0 : r;
    for (uint32_t k = 0; k < Q; k++) {
        const uint32_t gg = k <= LZ1_GMAX ? k : k - LZ1_GMAX;
        K[k] = 2 * r + 2;
        if (S != NONE && k == 0) {
            cnt[k] = (uint32_t)geo(p, c).n;
        } else if (S != NONE && gg >= 1 && gg <= G) {
            const uint32_t a = sw_start(p, c, S - gg);
            cnt[k] = k <= LZ1_GMAX ? (S - gg + 1 < S ? sw_start(p, c, S - gg + 1) : (uint32_t)geo(p, c).n) - a : a;
        } else {
            cnt[k] = 1;
            p.hist[((uint64_t)c * Q + k) * p.hstride] = 1;
        }
    }
}

/* Code v of radius R as a code of the chunk's radius r (7.10 step 2): an
 * outlier stays 0, V_new / V_repeat (2R, 2R + 1) become 2r, 2r + 1, the
 * others keep their error. */
__device__ __forceinline__ uint32_t code_r(uint32_t v, uint32_t R, uint32_t r) {
    /* v == 0 ? 0 : v >= 2R ? v - 2R + 2r : v - R + r, by selects (the
     * nested conditional compiled to two branches a code in k_hist) */
    const uint32_t dR = R - r;
    uint32_t sub = v >= 2 * R ? 2 * dR : dR;
    sub = v ? sub : 0u;
    return v - sub;
}

/* The runs of tile t of chunk c for the run-length candidate (7.5):
 * positions whose mapped code differs from the one before (position 0
 * starts one) counted into p.runs[c], the last into p.rlast (NONE: none).
 * cv: the thread's PER mapped codes at a0 = t TILE + threadIdx.x PER; c0:
 * the mapped code before the tile (0x10000: none). Every thread of the
 * block calls it (block reductions). */
struct RunTmp {
    cub::BlockReduce<uint32_t, NT>::TempStorage r;
    uint32_t wlast[NT / 32];
};
__device__ __forceinline__ void tile_runs(const E1 &p, RunTmp &tmp, uint32_t c, uint64_t t, uint64_t n, uint64_t a0,
                                          const uint32_t cv[PER], uint32_t c0) {
    typedef cub::BlockReduce<uint32_t, NT> BR;
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* the code before a0: the previous thread's last */
    uint32_t pc = __shfl_up_sync(0xffffffffu, cv[PER - 1], 1);
    if (lane == 31) tmp.wlast[warp] = cv[PER - 1];
    __syncthreads();
    if (lane == 0) pc = warp ? tmp.wlast[warp - 1] : c0;
    if (a0 >= n) pc = 0x10000u;
    uint32_t last = 0, cnt = 0;
    if (a0 + PER <= n) { /* the thread's codes all inside (most): 32-bit positions, no bound tests */
        const uint32_t b = (uint32_t)a0 + 1;
#pragma unroll
        for (uint32_t k = 0; k < PER; k++) {
            const bool st = cv[k] != pc;
            last = st ? b + k : last;
            cnt += st;
            pc = cv[k];
        }
    } else {
#pragma unroll
        for (uint32_t k = 0; k < PER; k++) {
            if (a0 + k < n && cv[k] != pc) last = (uint32_t)(a0 + k) + 1, cnt++;
            pc = cv[k];
        }
    }
    const uint32_t v = BR(tmp.r).Reduce(last, MaxOp());
    __syncthreads();
    const uint32_t sc = BR(tmp.r).Sum(cnt);
    if (threadIdx.x == 0) {
        p.rlast[(uint64_t)c * p.tpc + t] = v ? v - 1 : NONE;
        if (sc) atomicAdd(&p.runs[c], (unsigned long long)sc);
    }
    __syncthreads();
}

/* Codes mapped to the chunk's radius (codes_r) and counted by segment:
 * each of the last G sweeps (stream gg for sweep S - gg) and the codes
 * before them (stream 0, which k_rest turns into all codes). A tile inside
 * one segment (most tiles) adds to that segment's counters; one across a
 * sweep start finds each position's. A block counts its tiles (every
 * gridDim.x-th) in shared memory, (1 + G) x W counters of the codes lo ..
 * lo + W - 1 (W = wmax: the chunk's whole alphabet K_c where it fits, else
 * the wmax codes around its zero error), and adds the non-zero counts to
 * the set's histograms once; codes outside the window (the tails of a wide
 * alphabet) go straight to the histograms. Global atomics on hot codes
 * were most of this step (H100, mpas REL 1e-4, whose alphabets did not fit
 * shared memory: 6.4 ms for 134 M codes). */
template <bool WIDE>
__global__ void __launch_bounds__(NT) k_hist(E1 p, uint32_t wmax) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    extern __shared__ uint32_t sh[];
    __shared__ uint32_t st[LZ1_GMAX + 1];
    __shared__ RunTmp rt;
    const uint32_t c = blockIdx.y;
    const uint32_t S = p.nsw[c];
    if (S == NONE) return;
    const uint64_t n = geo(p, c).n;
    const uint64_t nt = (n + TILE - 1) / TILE;
    /* the block's tiles: every gridDim.x-th from blockIdx.x, or (WIDE)
     * HIST_WT consecutive ones */
    const uint64_t tb = WIDE ? (uint64_t)blockIdx.x * HIST_WT : blockIdx.x;
    const uint64_t te = WIDE ? (tb + HIST_WT < nt ? tb + HIST_WT : nt) : nt, tstep = WIDE ? 1 : gridDim.x;
    if (tb >= nt) return;
    const uint32_t G = S < LZ1_GMAX ? S : LZ1_GMAX;
    const uint32_t R = p.R, r = p.rmax[c] + 1, Kc = 2 * r + 2;
    const uint32_t W = Kc <= wmax ? Kc : wmax, lo = Kc <= wmax ? 0 : r - wmax / 2; /* r >= wmax / 2 here */
    const uint32_t nsh = WIDE ? W : (1 + G) * W; /* WIDE: one segment's window */
    if (threadIdx.x < G) st[threadIdx.x] = sw_start(p, c, S - 1 - threadIdx.x); /* st[gg - 1]: sweep S - gg */
    for (uint32_t i = threadIdx.x; i < nsh; i += NT) sh[i] = 0;
    __syncthreads();
    /* the segment of position pos: the latest of the last G sweeps that
     * starts at or before it, else 0 */
    auto seg = [&](uint64_t pos) -> uint32_t {
        for (uint32_t gg = 1; gg <= G; gg++)
            if (pos >= st[gg - 1]) return gg;
        return 0;
    };
    const uint16_t *codes = p.codes + (uint64_t)c * p.cf;
    uint16_t *out = p.codes_r + (uint64_t)c * p.cf;
    uint32_t *H = p.hist + (uint64_t)c * Q * p.hstride;
    /* the mapped code before tile position a (0x10000: none), for tile_runs */
    auto before = [&](uint64_t a) -> uint32_t { return a > 0 && a < n ? code_r(codes[a - 1], R, r) : 0x10000u; };
    /* WIDE: the segment whose counts the window holds (cur; none yet:
     * NONE), added to its histogram when a tile of another begins and at
     * the end (block-uniform) */
    uint32_t cur = NONE;
    auto flush = [&]() {
        __syncthreads(); /* every count of the window done */
        for (uint32_t i = threadIdx.x; i < W; i += NT) {
            const uint32_t v = sh[i];
            if (v) {
                atomicAdd(&H[(uint64_t)cur * p.hstride + lo + i], v);
                sh[i] = 0;
            }
        }
        __syncthreads();
    };
    for (uint64_t t = tb; t < te; t += tstep) {
        const uint64_t a = t * TILE, z = a + TILE < n ? a + TILE : n;
        const uint32_t g0 = seg(a);
        const bool one = seg(z - 1) == g0;
        if (WIDE && one && g0 != cur) {
            if (cur != NONE) flush();
            cur = g0;
        }
        const uint64_t a0 = a + (uint64_t)threadIdx.x * PER;
        uint16_t cw[PER];
        tile_codes(codes, a0, n, 0, cw);
        uint32_t cv[PER]; /* mapped, in 32-bit registers (16-bit ones took masks and sign moves) */
#pragma unroll
        for (uint32_t k = 0; k < PER; k++) cv[k] = code_r(cw[k], R, r);
        if (one) {
            /* the five codes around the zero error (most codes) counted in
             * 5-bit fields of a register, widened to 12-bit fields of a
             * 64-bit one, summed over the warp, added once a tile; the
             * others added one by one. A thread's PER codes are
             * consecutive: two 16-byte loads and stores (tile_codes), all
             * in flight before the first atomic (strided 2-byte loads, each
             * waiting for the store and atomic before it, made this kernel
             * latency-bound) */
            uint32_t pk5 = 0; /* the thread's counts, 5 bits each (at most PER = 16) */
            uint32_t *hs0 = sh + (WIDE ? 0 : g0 * W);
#pragma unroll
            for (uint32_t k = 0; k < PER; k++) cw[k] = (uint16_t)cv[k];
            tile_store(out, a0, n, cw);
            /* predicated, not branched: most codes take the first line */
            auto count = [&](uint32_t m, bool ok) {
                const uint32_t d = m + 2 - r;
                const bool cen = d < 5;
                pk5 += ok && cen ? 1u << (5 * d) : 0u;
                /* !WIDE: the window is the group's alphabet (wmax = Kg >= Kc,
                 * lo = 0), every code lies in it */
                if (ok && !cen && (!WIDE || m - lo < W)) atomicAdd(hs0 + (m - lo), 1u);
                if (WIDE && ok && !cen && m - lo >= W) atomicAdd(H + (uint64_t)g0 * p.hstride + m, 1u);
            };
            if (a0 + PER <= n) { /* all inside (most threads): no bound tests */
#pragma unroll
                for (uint32_t k = 0; k < PER; k++) count(cv[k], true);
            } else {
#pragma unroll
                for (uint32_t k = 0; k < PER; k++) count(cv[k], a0 + k < n);
            }
            uint64_t pk = 0; /* 12 bits each for the warp's sums */
#pragma unroll
            for (uint32_t d = 0; d < 5; d++) pk |= (uint64_t)(pk5 >> (5 * d) & 31u) << (12 * d);
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) pk += __shfl_down_sync(0xffffffffu, pk, o);
            if ((threadIdx.x & 31) == 0)
                for (uint32_t d = 0; d < 5; d++) {
                    const uint32_t cnt = (uint32_t)(pk >> (12 * d)) & 4095u; /* at most 32 x PER */
                    if (cnt) atomicAdd(hs0 + (r - 2 + d - lo), cnt); /* the five lie in the window */
                }
        } else { /* a tile across a sweep's start (WIDE: its codes in global memory) */
#pragma unroll
            for (uint32_t k = 0; k < PER; k++) {
                const uint64_t pos = a0 + k;
                if (pos >= n) break;
                const uint32_t m = cv[k], g = seg(pos);
                out[pos] = (uint16_t)m;
                if (!WIDE) atomicAdd(sh + g * W + (m - lo), 1u); /* in the window (above) */
                else atomicAdd(H + (uint64_t)g * p.hstride + m, 1u);
            }
        }
        tile_runs(p, rt, c, t, n, a0, cv, before(a)); /* the runs (a pass of its own before) */
    }
    if (WIDE) {
        if (cur != NONE) flush();
        return;
    }
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < (1 + G) * W; i += NT)
        if (sh[i]) atomicAdd(&H[(uint64_t)(i / W) * p.hstride + lo + i % W], sh[i]);
}

/* From k_hist's segments: stream 0 all codes, stream LZ1_GMAX + gg the
 * codes before the last gg sweeps (all codes minus the last gg sweeps'). */
__global__ void __launch_bounds__(NT) k_rest(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.y;
    const uint32_t S = p.nsw[c];
    if (S == NONE) return;
    const uint32_t G = S < LZ1_GMAX ? S : LZ1_GMAX, K = 2 * (p.rmax[c] + 1) + 2;
    uint32_t *H = p.hist + (uint64_t)c * Q * p.hstride;
    for (uint32_t m = blockIdx.x * NT + threadIdx.x; m < K; m += gridDim.x * NT) {
        uint32_t acc = H[m];
        for (uint32_t gg = 1; gg <= G; gg++) acc += H[(uint64_t)gg * p.hstride + m];
        H[m] = acc;
        for (uint32_t gg = 1; gg <= G; gg++) {
            acc -= H[(uint64_t)gg * p.hstride + m];
            H[(uint64_t)(LZ1_GMAX + gg) * p.hstride + m] = acc;
        }
    }
}

/* g (7.10 step 3): the sum of the g + 1 streams' sizes smallest, the
 * smaller g on ties (lossy.c sweep_plan). */
__global__ void k_gchoose(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    const uint32_t S = p.nsw[c];
    const uint64_t *z = p.ssize + (uint64_t)c * Q;
    if (S == NONE) {
        p.g[c] = 0;
        p.hsz[c] = p.size0[c] = p.bits0[c] = 0;
        return;
    }
    const uint32_t G = p.wfk == 2 ? 0 : S < LZ1_GMAX ? S : LZ1_GMAX; /* run-length forced: no sweep streams */
    uint64_t best = z[0], swsum = 0;
    uint32_t gb = 0;
    for (uint32_t gg = 1; gg <= G; gg++) {
        swsum += z[gg];
        const uint64_t tot = swsum + z[LZ1_GMAX + gg];
        if (tot < best) best = tot, gb = gg;
    }
    p.g[c] = gb;
    p.hsz[c] = best;
    p.size0[c] = z[0];
    p.bits0[c] = p.sbits[(uint64_t)c * Q];
}

/* 7.5's criterion (lossy.c rle_plan, knobs[1] = 0): the single stream
 * averages at most 1.09 bits per code, or runs x max(3.5, bits per code +
 * 1.5) < its bits (binary64). Streams of chunks without a candidate get
 * one symbol 0 (their sizes are not read). */
__global__ void k_rcrit(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    uint32_t on = 0;
    if (p.nsw[c] != NONE) {
        const uint64_t n = geo(p, c).n, tb = p.bits0[c];
        const double bits = (double)tb, avg = __ddiv_rn(bits, (double)n);
        on = p.wfk == 2 || (p.wfk == 0 && ((uint64_t)LZ_RLE_DEN * tb <= (uint64_t)LZ_RLE_NUM * n ||
                                            __dmul_rn((double)p.runs[c], fmax(LZ_RUN_BITS_MIN,
                                                                              __dadd_rn(avg, LZ_RUN_BITS_ADD))) < bits));
    }
    p.rtry[c] = on;
    const uint32_t r = p.rmax[c] + 1;
    /* a chunk without a candidate: one symbol 0 in alphabets of 2 (sizes
     * never read; the plan's passes over 65536 lengths saved) */
    p.r2K[2 * c] = on ? 2 * r + 2 : 2;
    p.r2K[2 * c + 1] = on ? LZ_MAX_RUN : 2;
    p.r2cnt[2 * c] = p.r2cnt[2 * c + 1] = on ? 0 : 1;
    if (!on) p.hist2[(uint64_t)(2 * c) * p.h2stride] = p.hist2[(uint64_t)(2 * c + 1) * p.h2stride] = 1;
}

/* The pieces of the runs (7.5: each run cut from its start into pieces of
 * 65536 codes and a last, shorter one) counted without forming them: a
 * position at offset o of its run starts a piece where o mod 65536 = 0
 * (its code counted) and ends one where the run ends there or o mod 65536
 * = 65535 (o mod 65536 = the length - 1 counted). A block takes RT_TPB
 * tiles and counts in shared memory (RT_SH codes around the zero error,
 * lengths - 1 below RT_SH; the rest, rare, in global memory; H100,
 * pressure REL 1e-4, whose codes around the zero error lie above 2048:
 * still 2.1 ms with codes below RT_SH counted there), then adds the non-zero counts
 * once: global atomics straight into the histograms put a few hot
 * counters under every block of the chunk (H100, pressure REL 1e-3, whose
 * runs are short over a handful of codes: 2.39 ms for 67 M codes). */
constexpr uint32_t RT_TPB = 16, RT_SH = 2048;

__global__ void __launch_bounds__(NT) k_rt2(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> BS;
    typedef cub::BlockReduce<uint32_t, NT> BR;
    __shared__ typename BS::TempStorage ts;
    __shared__ typename BR::TempStorage tr;
    __shared__ uint32_t hc[RT_SH], hl[RT_SH];
    const uint32_t c = blockIdx.y;
    if (!p.rtry[c]) return;
    const uint64_t n = geo(p, c).n, nt = (n + TILE - 1) / TILE;
    if (blockIdx.x >= nt) return;
    for (uint32_t i = threadIdx.x; i < RT_SH; i += NT) hc[i] = hl[i] = 0;
    __syncthreads();
    const uint16_t *cr = p.codes_r + (uint64_t)c * p.cf;
    auto run_start = [&](uint32_t, uint64_t pos) { return pos == 0 || cr[pos] != cr[pos - 1]; };
    /* the run codes' window: the chunk's alphabet 2r + 2 where it fits, else
     * the RT_SH codes around its zero error r (the hot ones) */
    const uint32_t r = p.rch[c], clo = 2 * r + 2 <= RT_SH ? 0 : r - RT_SH / 2;
    uint32_t *h2 = p.hist2 + (uint64_t)(2 * c) * p.h2stride; /* run codes, then lengths at h2stride */
    const uint32_t hls = p.h2stride;
    uint32_t all = 0;
    for (uint64_t t = blockIdx.x; t < nt; t += gridDim.x) {
        const uint64_t a0 = t * TILE + threadIdx.x * PER;
        uint32_t rs = last_mark(p, ts, p.rlast, c, (uint32_t)t, a0, n, run_start); /* NONE only before position 0 */
        uint32_t pieces = 0;
        for (uint32_t k = 0; k < PER; k++) {
            const uint64_t pos = a0 + k;
            if (pos >= n) break;
            const uint32_t v = cr[pos];
            if (pos == 0 || cr[pos - 1] != v) rs = (uint32_t)pos;
            const uint32_t o = (uint32_t)pos - rs, om = o % LZ_MAX_RUN;
            if (om == 0) {
                pieces++;
                if (v - clo < RT_SH) atomicAdd(hc + (v - clo), 1u);
                else atomicAdd(h2 + v, 1u);
            }
            if (pos + 1 == n || cr[pos + 1] != v || om == LZ_MAX_RUN - 1) {
                if (om < RT_SH) atomicAdd(hl + om, 1u);
                else atomicAdd(h2 + hls + om, 1u);
            }
        }
        const uint32_t sp = BR(tr).Sum(pieces);
        if (threadIdx.x == 0) {
            all += sp;
            p.tpp[(uint64_t)c * p.tpc + t] = sp;
        }
        __syncthreads(); /* ts, tr again */
    }
    for (uint32_t i = threadIdx.x; i < RT_SH; i += NT) {
        if (hc[i]) atomicAdd(h2 + clo + i, hc[i]);
        if (hl[i]) atomicAdd(h2 + hls + i, hl[i]);
    }
    if (threadIdx.x == 0 && all) atomicAdd(&p.r2cnt[2 * c], all);
}

__global__ void k_rcnt(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < p.nch && p.rtry[c]) p.r2cnt[2 * c + 1] = p.r2cnt[2 * c];
}

/* The candidate's section (4 + its two streams) and the 21/20 rule. */
__global__ void k_rdecide(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    p.obytes[c] = 0; /* k_ot2's sums (no memset between the chain's launches) */
    const uint32_t f = p.rtry[c];
    const uint64_t z = f ? 4 + p.r2size[2 * c] + p.r2size[2 * c + 1] : 0;
    p.rformed[c] = f;
    p.rsz[c] = z;
    p.rle[c] = f && (p.wfk != 0 || !((uint64_t)LZ1_RLE_NUM * z > (uint64_t)LZ1_RLE_DEN * p.hsz[c]));
}

/* The outlier list's bytes (7.6): varint(i - p) + varint(zigzag(d)) per
 * outlier, p the previous outlier's position + 1 (0 for the first). */
__global__ void __launch_bounds__(NT) k_ot2(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> BS;
    typedef cub::BlockReduce<unsigned long long, NT> BR;
    __shared__ typename BS::TempStorage ts;
    __shared__ typename BR::TempStorage tr;
    const uint32_t c = blockIdx.y, t = blockIdx.x;
    if (p.nsw[c] == NONE) return;
    const uint64_t n = geo(p, c).n, a = (uint64_t)t * TILE;
    if (a >= n) return;
    if (!tile_marked(p, p.olast, c, t, n)) { /* no outlier */
        if (threadIdx.x == 0) p.tob[(uint64_t)c * p.tpc + t] = 0;
        return;
    }
    uint16_t cv[PER];
    const long long *aux = p.aux + (uint64_t)c * p.cf;
    const uint64_t a0 = a + threadIdx.x * PER;
    tile_codes(p.codes + (uint64_t)c * p.cf, a0, n, 1, cv);
    const uint32_t pv = last_mark(p, ts, p.olast, c, t, a0, n,
                                  [&](uint32_t k, uint64_t) { return cv[k] == LZ_CODE_OUTLIER; });
    unsigned long long bytes = 0, no = 0;
    olist_bytes(cv, aux, a0, pv == NONE ? 0 : (uint64_t)pv + 1, bytes, no);
    const unsigned long long sb = BR(tr).Sum(bytes);
    __syncthreads();
    const unsigned long long so = BR(tr).Sum(no);
    if (threadIdx.x == 0) {
        if (so) atomicAdd(&p.nout[c], so);
        if (sb) atomicAdd(&p.obytes[c], sb);
        p.tob[(uint64_t)c * p.tpc + t] = sb;
    }
}

/* The bodies' sizes (7.9): section + outlier list + verbatim values. */
__global__ void k_bsize(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    const uint64_t tail = p.obytes[c] + p.nvnew[c] * p.es;
    p.bh[c] = p.nsw[c] == NONE ? 0 : p.hsz[c] + tail;
    p.br[c] = p.nsw[c] == NONE || !p.rle[c] ? 0 : p.rsz[c] + tail;
}

/* The size of body w (0 Huffman, 1 run-length) of chunk c where it is
 * formed (7.10 step 3: the Huffman body unless knobs[1] = 2, the
 * run-length body where kept, neither above LZ1_BODY_CAP x the raw
 * chunk), else 0. */
__device__ __forceinline__ uint64_t body_len(const E1 &p, uint32_t c, uint32_t w) {
    if (p.nsw[c] == NONE) return 0;
    const uint64_t b = w ? (p.rle[c] ? p.br[c] : 0) : (p.wfk == 2 ? 0 : p.bh[c]);
    return b <= LZ1_BODY_CAP * geo(p, c).n * p.es ? b : 0;
}

/* Per chunk: exclusive sums over its tiles of arr (nch x tpc); a block
 * per chunk. */
__global__ void __launch_bounds__(NT) k_tsum(E1 p, unsigned long long *arr) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<unsigned long long, NT> BS;
    __shared__ typename BS::TempStorage ts;
    const uint32_t c = blockIdx.x;
    if (p.nsw[c] == NONE) return;
    const uint64_t nt = (geo(p, c).n + TILE - 1) / TILE;
    unsigned long long *a = arr + (uint64_t)c * p.tpc, carry = 0;
    for (uint64_t t0 = 0; t0 < nt; t0 += NT * SIPT) {
        unsigned long long v[SIPT];
#pragma unroll
        for (uint32_t j = 0; j < SIPT; j++) {
            const uint64_t t = t0 + threadIdx.x * SIPT + j;
            v[j] = t < nt ? a[t] : 0;
        }
        unsigned long long agg;
        BS(ts).ExclusiveSum(v, v, agg);
#pragma unroll
        for (uint32_t j = 0; j < SIPT; j++) {
            const uint64_t t = t0 + threadIdx.x * SIPT + j;
            if (t < nt) a[t] = carry + v[j];
        }
        carry += agg;
        __syncthreads();
    }
}

/* The Huffman body's streams (7.9): codes [0, p_(S-g)), then each of the
 * last g sweeps; slots beyond them one symbol 0 (not written). */
__global__ void k_w3init(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    const uint32_t S = p.nsw[c], g = S == NONE ? 0 : p.g[c];
    const uint64_t n = geo(p, c).n;
    for (uint32_t j = 0; j < W3; j++) {
        const uint64_t k = (uint64_t)c * W3 + j;
        p.w3K[k] = 2 * (p.rmax[c] + 1) + 2;
        p.w3soff[k] = (uint64_t)c * p.cf;
        p.w3cnt[k] = 1;
        if (S == NONE || j > g) continue;
        const uint64_t a = j == 0 ? 0 : sw_start(p, c, S - g + j - 1);
        const uint64_t b = j == g ? n : sw_start(p, c, S - g + j);
        p.w3soff[k] += a;
        p.w3cnt[k] = (uint32_t)(b - a);
    }
}

/* The histograms of the body's streams (k_w3init) from the size set's
 * (k_hist, k_rest: the same symbols): stream 0 is the codes before the
 * last g sweeps (all codes for g = 0), stream j the sweep S - g + j - 1;
 * a slot without a stream counts its one symbol, as a pass over the
 * symbols would. h: the body set's histograms (zeroed), stride hs. */
__global__ void __launch_bounds__(NT) k_w3hist(E1 p, uint32_t *h, uint32_t hs) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.y;
    const uint32_t S = p.nsw[c], g = S == NONE ? 0 : p.g[c];
    const uint32_t K = 2 * (p.rmax[c] + 1) + 2;
    for (uint32_t j = 0; j < W3; j++) {
        uint32_t *H = h + ((uint64_t)c * W3 + j) * hs;
        if (S == NONE || j > g) {
            if (blockIdx.x == 0 && threadIdx.x == 0) { /* a chunk's element 0, or symbol 0 */
                const uint32_t s = S == NONE ? 0 : p.codes_r[p.w3soff[(uint64_t)c * W3 + j]];
                if (s < p.Kg) H[s] = 1;
            }
            continue;
        }
        const uint32_t k = j == 0 ? (g == 0 ? 0 : LZ1_GMAX + g) : g - j + 1;
        const uint32_t *F = p.hist + ((uint64_t)c * Q + k) * p.hstride;
        for (uint32_t m = blockIdx.x * NT + threadIdx.x; m < K; m += gridDim.x * NT) H[m] = F[m];
    }
}

/* Offsets of the body streams in the bodies (~0: not written). */
__global__ void k_w3off(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    const uint32_t S = p.nsw[c], g = S == NONE ? 0 : p.g[c];
    const bool formed = body_len(p, c, 0) != 0;
    uint64_t o = bo(p, c);
    for (uint32_t j = 0; j < W3; j++) {
        const uint64_t k = (uint64_t)c * W3 + j;
        if (!formed || j > g) {
            p.w3off[k] = ~0ull;
            continue;
        }
        p.w3off[k] = o;
        o += p.w3size[k];
    }
}

/* The outlier list (7.6) and the verbatim values (the codes 2r in order,
 * their bit patterns) after the streams of each body formed: the same
 * bytes in both (after sec0 = the Huffman body's sections, sec1 = the
 * run-length body's), from one read of a tile's codes (the tiles without
 * outliers and verbatim elements skipped). Was one kernel for each list
 * and body (H100, wmag REL 1e-3: four launches, ~180 us under Nsight). */
template <bool F32>
__global__ void __launch_bounds__(NT) k_lists(E1 p, const uint64_t *sec0, const uint64_t *sec1) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> BS;
    typedef cub::BlockScan<unsigned long long, NT> BS64;
    __shared__ typename BS::TempStorage ts;
    __shared__ typename BS64::TempStorage ts64;
    const uint32_t c = blockIdx.y, t = blockIdx.x;
    const bool f0 = body_len(p, c, 0) != 0, f1 = body_len(p, c, 1) != 0;
    if (!f0 && !f1) return;
    const uint64_t n = geo(p, c).n, a = (uint64_t)t * TILE;
    if (a >= n) return;
    const bool mo = tile_marked(p, p.olast, c, t, n), mv = tile_marked(p, p.tlast, c, t, n);
    if (!mo && !mv) return;
    uint16_t cv[PER];
    const long long *aux = p.aux + (uint64_t)c * p.cf;
    const uint64_t a0 = a + threadIdx.x * PER;
    tile_codes(p.codes + (uint64_t)c * p.cf, a0, n, 1, cv);
    uint8_t *b0 = p.bodies + bo(p, c), *b1 = p.rbodies + bo(p, c); /* the two bodies */
    if (mo) { /* block-uniform */
        const uint32_t pv = last_mark(p, ts, p.olast, c, t, a0, n,
                                      [&](uint32_t k, uint64_t) { return cv[k] == LZ_CODE_OUTLIER; });
        const uint64_t p0 = pv == NONE ? 0 : (uint64_t)pv + 1;
        unsigned long long bytes = 0, nthr = 0;
        olist_bytes(cv, aux, a0, p0, bytes, nthr);
        unsigned long long off;
        BS64(ts64).ExclusiveSum(bytes, off);
        const uint64_t o = p.tob[(uint64_t)c * p.tpc + t] + off;
        uint8_t *q0 = f0 ? b0 + sec0[c] + o : nullptr, *q1 = f1 ? b1 + sec1[c] + o : nullptr;
        uint64_t nextp = p0;
        for (uint32_t k = 0; k < PER; k++) {
            const uint64_t pos = a0 + k;
            if (cv[k] == LZ_CODE_OUTLIER) {
                const uint64_t d = (uint64_t)aux[pos];
                uint64_t v = pos - nextp;
                for (int h = 0; h < 2; h++) {
                    for (;;) {
                        const uint8_t y = (uint8_t)(v >= 0x80 ? (v | 0x80) : v);
                        if (q0) *q0++ = y;
                        if (q1) *q1++ = y;
                        if (v < 0x80) break;
                        v >>= 7;
                    }
                    v = (d << 1) ^ (0 - (d >> 63));
                }
                nextp = pos + 1;
            }
        }
    }
    if (mv) { /* block-uniform */
        const void *src = p.src + (uint64_t)sc(p, c) * p.raw_full;
        const uint16_t vnew = (uint16_t)LZ_VNEW(p.R);
        uint32_t cnt = 0;
#pragma unroll
        for (uint32_t k = 0; k < PER; k++) cnt += cv[k] == vnew;
        uint32_t off;
        BS(ts).ExclusiveSum(cnt, off);
        if (!cnt) return;
        const uint32_t es = F32 ? 4 : 8;
        const uint64_t o = p.obytes[c] + (p.tvn[(uint64_t)c * p.tpc + t] + off) * es;
        uint8_t *q0 = f0 ? b0 + sec0[c] + o : nullptr, *q1 = f1 ? b1 + sec1[c] + o : nullptr;
        for (uint32_t k = 0; k < PER; k++) {
            const uint64_t pos = a0 + k;
            if (cv[k] == vnew) {
                const uint64_t b = vbits<F32>(src, aux[pos]);
                for (uint32_t h = 0; h < es; h++) {
                    if (q0) *q0++ = (uint8_t)(b >> (8 * h));
                    if (q1) *q1++ = (uint8_t)(b >> (8 * h));
                }
            }
        }
    }
}

/* The pieces of the runs (7.5) of a chunk whose run-length candidate is
 * kept: piece k's code at rvl[2c cf + k], its length - 1 at rvl[(2c + 1)
 * cf + k]. A block takes a tile: the pieces that start in it are
 * consecutive (from tpp), so they are formed in shared memory and stored
 * whole (a thread storing its own pieces scattered 2-byte stores: 0.68 ms
 * on pressure REL 1e-3, H100); the length of a piece that started in an
 * earlier tile goes straight to global memory (one a tile at most), and
 * the tile's last piece's length is stored by the tile where it ends. */
__global__ void __launch_bounds__(NT) k_rw(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockScan<uint32_t, NT> BS;
    __shared__ typename BS::TempStorage ts;
    __shared__ uint16_t sv[TILE], sl[TILE];
    __shared__ uint32_t lastdone;
    const uint32_t c = blockIdx.y, t = blockIdx.x;
    if (body_len(p, c, 1) == 0) return;
    const uint64_t n = geo(p, c).n, a = (uint64_t)t * TILE;
    if (a >= n) return;
    const uint16_t *cr = p.codes_r + (uint64_t)c * p.cf;
    uint16_t *rv = p.rvl + (uint64_t)(2 * c) * p.cf, *rl = rv + p.cf;
    const uint64_t a0 = a + threadIdx.x * PER;
    if (threadIdx.x == 0) lastdone = 0;
    uint32_t rs = last_mark(p, ts, p.rlast, c, t, a0, n,
                            [&](uint32_t, uint64_t pos) { return pos == 0 || cr[pos] != cr[pos - 1]; });
    __syncthreads();
    /* piece starts in this thread's positions (the run starts known from the scan) */
    uint32_t cnt = 0, rs2 = rs;
    for (uint32_t k = 0; k < PER; k++) {
        const uint64_t pos = a0 + k;
        if (pos < n) {
            if (pos == 0 || cr[pos - 1] != cr[pos]) rs2 = (uint32_t)pos;
            cnt += ((uint32_t)pos - rs2) % LZ_MAX_RUN == 0;
        }
    }
    uint32_t off, total;
    BS(ts).ExclusiveSum(cnt, off, total);
    const uint64_t base = p.tpp[(uint64_t)c * p.tpc + t]; /* pieces started before this tile */
    uint32_t j = off; /* the tile's pieces started before this thread's next position */
    for (uint32_t k = 0; k < PER; k++) {
        const uint64_t pos = a0 + k;
        if (pos >= n) break;
        const uint32_t v = cr[pos];
        if (pos == 0 || cr[pos - 1] != v) rs = (uint32_t)pos;
        const uint32_t om = ((uint32_t)pos - rs) % LZ_MAX_RUN;
        if (om == 0) sv[j++] = (uint16_t)v;
        if (pos + 1 == n || cr[pos + 1] != v || om == LZ_MAX_RUN - 1) {
            if (j == 0) rl[base - 1] = (uint16_t)om; /* a piece of an earlier tile */
            else {
                sl[j - 1] = (uint16_t)om;
                if (j == total) lastdone = 1;
            }
        }
    }
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < total; i += NT) {
        rv[base + i] = sv[i];
        if (i + 1 < total || lastdone) rl[base + i] = sl[i];
    }
}

/* The run-length bodies: n_runs (7.5) and the offsets of their streams. */
__global__ void k_rhdr(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    /* the pieces' stream sizes are the run-length set's (h2's plan): copied
     * here, not by a memcpy between the chain's launches */
    p.w4size[2 * c] = p.r2size[2 * c], p.w4size[2 * c + 1] = p.r2size[2 * c + 1];
    if (body_len(p, c, 1) == 0) {
        p.w4off[2 * c] = p.w4off[2 * c + 1] = ~0ull;
        return;
    }
    uint8_t *b = p.rbodies + bo(p, c);
    const uint32_t nr = p.r2cnt[2 * c];
    for (int h = 0; h < 4; h++) b[h] = (uint8_t)(nr >> (8 * h));
    p.w4off[2 * c] = bo(p, c) + 4;
    p.w4off[2 * c + 1] = bo(p, c) + 4 + p.w4size[2 * c];
}


/* The back end's streams are the bodies' bytes (u8 symbols, stream 2c + w
 * at (2c + w) bodycap): their counts. A body the back end does not take
 * (none, or B outside 1 .. 2^32 - 2) counts one symbol (its size is not
 * read). */
__global__ void k_bcnt(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= 2 * p.nch) return;
    const uint64_t B = body_len(p, b / 2, b % 2);
    p.b5cnt[b] = B >= 1 && B <= 0xfffffffeull ? (uint32_t)B : 1;
}

__device__ __forceinline__ void st32(uint8_t *q, uint32_t v) {
    for (int h = 0; h < 4; h++) q[h] = (uint8_t)(v >> (8 * h));
}

/* The final choice of each interpolated chunk (7.10 step 3, lossy.c
 * lz1_encode): per body the smaller of its bytes and its back-end stream,
 * run-length where strictly smaller, stored where the payload would be at
 * least 24 + N E; the header (7.7 / 7.9) and where the back end's stream
 * goes. */
__global__ void k_pdecide(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= p.nch) return;
    p.b5off[2 * c] = p.b5off[2 * c + 1] = ~0ull;
    p.psize[c] = 0;
    p.pinfo[c] = 0;
    p.pdst[c] = ~0ull;
    if (p.nsw[c] == NONE) return;
    /* the bodies formed (0: none; a body is never empty) */
    const uint64_t MX = ~0ull, bh = body_len(p, c, 0), br = body_len(p, c, 1);
    const uint64_t eh = bh >= 1 && bh <= 0xfffffffeull ? p.b5size[2 * c] : MX;
    const uint64_t er = br >= 1 && br <= 0xfffffffeull ? p.b5size[2 * c + 1] : MX;
    const uint64_t fh = bh ? (eh < bh ? eh : bh) : MX, fr = br ? (er < br ? er : br) : MX;
    const uint32_t wf = fr < fh ? LZ_WF_RLE : LZ_WF_HUFFMAN;
    const uint64_t blen = wf == LZ_WF_RLE ? br : bh, esz = wf == LZ_WF_RLE ? er : eh;
    const uint32_t be = esz < blen ? LZ_BE_HUFF : LZ_BE_NONE;
    const uint64_t total = fh == MX && fr == MX ? MX : LZ1_HDR + (be ? esz : blen); /* no body: stored */
    const CGeo &g = geo(p, c);
    /* the debug entry keeps every payload (pay), a batch only the smaller
     * of a chunk's and its trial's (k_pfinal places it) */
    p.pdst[c] = p.pay ? (uint64_t)c * p.paycap : ~0ull;
    uint8_t *d = p.hdr + (uint64_t)c * LZ1_HDR;
    for (int h = 0; h < (int)LZ1_HDR; h++) d[h] = 0;
    if (total >= LZ_HDR + g.n * p.es) { /* stored (k_pcopy copies the raw bytes) */
        p.psize[c] = LZ_HDR + g.n * p.es;
        p.pinfo[c] = LZ_WF_STORED;
        return;
    }
    const uint8_t *dc = p.dec + (uint64_t)c * ND;
    d[0] = (uint8_t)wf;
    d[1] = (uint8_t)g.rank;
    if (dc[5] == LZ_PRED_LORENZO)
        for (uint32_t k = 0; k < g.rank; k++) d[2 + k] = (uint8_t)g.lb[k];
    d[5] = dc[5];
    d[6] = (uint8_t)be;
    d[7] = dc[6];
    st32(d + 8, (uint32_t)p.nout[c]);
    st32(d + 12, (uint32_t)p.nvnew[c]);
    st32(d + 16, (uint32_t)p.obytes[c]);
    st32(d + 20, (uint32_t)(p.obytes[c] >> 32));
    st32(d + 24, p.rch[c]);
    d[28] = (uint8_t)(wf == LZ_WF_HUFFMAN ? p.g[c] : 0);
    d[29] = dc[7];
    if (be && p.pay) p.b5off[2 * c + (wf == LZ_WF_RLE)] = (uint64_t)c * p.paycap + LZ1_HDR;
    p.psize[c] = total;
    p.pinfo[c] = wf;
}

/* The payload bytes without the back end at pbase + pdst[c]: the header,
 * then the chosen body, or the raw bytes of a stored chunk. */
__global__ void __launch_bounds__(NT) k_pcopy(E1 p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    const uint32_t c = blockIdx.y;
    if (p.nsw[c] == NONE || p.psize[c] == 0 || p.pdst[c] == ~0ull) return;
    uint8_t *d = p.pbase + p.pdst[c];
    const uint8_t *h = p.hdr + (uint64_t)c * LZ1_HDR;
    const uint8_t *s;
    uint64_t len, at;
    if (p.pinfo[c] == LZ_WF_STORED) {
        s = p.src + (uint64_t)sc(p, c) * p.raw_full, len = geo(p, c).n * p.es, at = LZ_HDR;
    } else {
        const uint32_t w = p.pinfo[c] == LZ_WF_RLE;
        s = (w ? p.rbodies : p.bodies) + bo(p, c), len = h[6] == LZ_BE_HUFF ? 0 : body_len(p, c, w), at = LZ1_HDR;
    }
    if (blockIdx.x == 0 && threadIdx.x < at) d[threadIdx.x] = h[threadIdx.x];
    d += at;
    /* a payload starts at any byte: the bytes up to d's next 4-byte
     * boundary one by one, then aligned 4-byte stores of words read from
     * the source's aligned words (ld32u), 8 a thread and step, all loaded
     * before any is stored, then the last bytes (byte stores of every byte
     * were ~3x slower: H100, wmag REL 1e-3, 82 us under Nsight) */
    const uint64_t st = (uint64_t)gridDim.x * NT, tid = (uint64_t)blockIdx.x * NT + threadIdx.x;
    uint64_t head = (4 - (reinterpret_cast<uintptr_t>(d) & 3)) & 3;
    if (head > len) head = len;
    if (tid < head) d[tid] = s[tid];
    const uint64_t nw = (len - head) / 4;
    uint32_t *dw = reinterpret_cast<uint32_t *>(d + head);
    const uint8_t *sw = s + head, *end = s + len;
    for (uint64_t k0 = tid; k0 < nw; k0 += 8 * st) {
        uint32_t v[8];
#pragma unroll
        for (int k = 0; k < 8; k++) v[k] = k0 + k * st < nw ? scz_ku::ld32u(sw + 4 * (k0 + k * st), end) : 0u;
#pragma unroll
        for (int k = 0; k < 8; k++)
            if (k0 + k * st < nw) dw[k0 + k * st] = v[k];
    }
    const uint64_t tb = head + 4 * nw + tid;
    if (tb < len) d[tb] = s[tb];
}

uint32_t sweep_entries(const CGeo &g) { return lz1_nsweeps(g.rank, g.e) + 1; }

/* Elements per thread and step of k_isw: SCZ_L1_ISV (1 or 2), default 2,
 * with the registers of 5 blocks an SM (6 with 1). H100, wmag REL 1e-3,
 * sweeps: 2 elements with the compiler's registers (4 blocks) 2.29 ms, 5
 * blocks 2.11, 6 blocks (spills) 2.15, 4 elements and 3 blocks 2.10, 1
 * element and 6 blocks 2.26. */
int isw_sv() {
    return scz_ku::env_once("SCZ_L1_ISV", [](const char *v) { return v && atoi(v) == 1 ? 1 : 2; });
}

/* The finest level of chunks of rank 3 by rows (k_erows): SCZ_L1_ROWS=0
 * codes it by k_isw instead. */
int erows_env() {
    return scz_ku::env_once("SCZ_L1_ROWS", [](const char *v) { return v && *v && atoi(v) == 0 ? 0 : 1; });
}

/* The level of stride 2 by rows too (k_erows<F32, 2>): SCZ_L1_ROWS2=0
 * codes it by k_isw instead. */
int erows2_env() {
    return scz_ku::env_once("SCZ_L1_ROWS2", [](const char *v) { return v && *v && atoi(v) == 0 ? 0 : 1; });
}

/* Classes 1 and 2 of the rows levels by walks (k_erows<.., true>):
 * SCZ_L1_WALK=0 takes them by rows. */
int ewalk_env() {
    return scz_ku::env_once("SCZ_L1_WALK", [](const char *v) { return v && *v && atoi(v) == 0 ? 0 : 1; });
}

/* Rows a walk (SCZ_L1_WSTEPS, 1 .. 64, for measurements; 8). */
uint32_t ewalk_steps() {
    return (uint32_t)scz_ku::env_once("SCZ_L1_WSTEPS",
                                      [](const char *v) { return v && atoi(v) > 0 && atoi(v) <= 64 ? atoi(v) : 8; });
}

/* A geometry k_erows can take at the finest level (erows_takes: rank 3,
 * rows of even length); then whether k_erows codes sweep entry j of every
 * chunk of geometry g (rows bit 0: the last three of lz1_nsweeps sweeps;
 * bit 1: the three before them where rows_ext(.., 2) holds), so that
 * k_isw's blocks would all exit: a grid of one block (the sweeps are
 * grid-stride loops, so the grid only costs time if this were wrong; 2048
 * blocks a chunk that found nothing to do took ~50 us a sweep, H100). */
bool rows_geo(const CGeo &g) { return g.rank == 3 && rows_ext(g.e, 1); }
bool rows_sweep(const CGeo &g, uint32_t j, uint32_t rows) {
    if (!rows || !rows_geo(g)) return false;
    const uint32_t S = lz1_nsweeps(g.rank, g.e);
    if (S >= 3 && j + 2 >= S && j <= S) return true;
    return (rows & 2) && rows_ext(g.e, 2) && S >= 6 && j + 5 >= S && j <= S;
}

/* Blocks of NT for sweep entry j of a chunk of geometry g (at least 1). */
uint64_t sweep_blocks(const CGeo &g, uint32_t j) {
    const uint64_t m = lz1_sweep_bound(g.rank, g.e, j);
    return m ? (m + NT - 1) / NT : 1;
}

/* Samples a thread of k_est (SCZ_EST_PER, for measurements). */
int est_per_env() {
    return scz_ku::env_once("SCZ_EST_PER",
                            [](const char *v) { return v && atoi(v) > 0 && atoi(v) <= 64 ? atoi(v) : 1; });
}

/* The estimate and decision (7.10 step 1) of chunks [0, nreal). */
template <bool F32> cudaError_t launch_est(const E1 &p, cudaStream_t s) {
    /* the full chunks' samples (a shorter last chunk may have more: the loop strides) */
    const uint64_t nsg = lz1_nsamples(p.gfull.n), nsf = nsg ? nsg : 1;
    /* one sample a thread (SCZ_EST_PER: more; H100, wmag REL 1e-3: 0.340 -> 0.325 ms from four to two at
     * 227 K samples a chunk) */
    const uint64_t per = (uint64_t)est_per_env(), gq = (nsf + per * NT - 1) / (per * NT);
    const uint32_t ge = (uint32_t)(gq < 1024 ? gq : 1024);
    k_est<F32><<<dim3(ge, p.nreal), NT, 0, s>>>(p);
    k_decide<<<(p.nreal + NT - 1) / NT, NT, 0, s>>>(p);
    return cudaGetLastError();
}

/* Everything after the estimate (est: with it) for the group p: chunks
 * [0, nreal) and the trial's [nreal, nch). */
/* The bodies of a group sized from their largest (L1Dyn: the batch's fast
 * layout, l1_layout): after k_bsize, one wait for the largest body formed;
 * the bodies (2 nch of that stride, a multiple of 256) and the back end's
 * set state and work go at `at` where they fit in `avail` bytes, else the
 * group is redone in the safe layout (*redo). NULL: the bodies at their
 * cap, the back end's state and work at hstate5 / hwork5 (the debug entry
 * and the safe layout). */
struct L1Dyn {
    uint8_t *at;
    size_t avail;
    unsigned long long *d_bmax; /* 8 bytes of device scratch */
    bool redo;
};

/* The largest body formed in the group (body_len). */
__global__ void __launch_bounds__(NT) k_bmax(E1 p, unsigned long long *out) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    typedef cub::BlockReduce<unsigned long long, NT> BR;
    __shared__ typename BR::TempStorage tmp;
    unsigned long long m = 0;
    for (uint32_t c = threadIdx.x; c < p.nch; c += NT) {
        const uint64_t a = body_len(p, c, 0), b = body_len(p, c, 1);
        m = a > m ? a : m;
        m = b > m ? b : m;
    }
    m = BR(tmp).Reduce(m, [](unsigned long long x, unsigned long long y) { return x > y ? x : y; });
    if (threadIdx.x == 0) *out = m;
}

/* The bytes of the fast layout's bodies of stride st and the back end's
 * state and work for them. */
size_t dyn_bytes(uint32_t nch, uint64_t st, size_t *h5s, size_t *h5w) {
    *h5s = scz_ku::rup(scz__hse_scratch(nch * 2, st, 256), 256);
    *h5w = scz_ku::rup(scz__hse_work(nch * 2, st), 256);
    return scz_ku::rup((size_t)2 * nch * st, 256) + *h5s + *h5w;
}

template <bool F32>
cudaError_t launch_all(E1 &p, bool est, bool lor, void *hstate, void *hstate2, void *hstate3, void *hwork3,
                       void *&hstate5, void *&hwork5, L1Dyn *dyn, cudaStream_t s, cudaEvent_t *ev, ScProf *pf) {
    {   /* the run-length set's histograms: a layout of this group's streams */
        const scz_hse h2{p.codes_r, p.cf, p.r2cnt, p.nch * 2, LZ_MAX_RUN, p.cf, 1, p.r2K, nullptr, nullptr, 1};
        p.hist2 = scz__hse_hist(&h2, hstate2, &p.h2stride);
    }
    /* the debug entry's events (ev[k]) and the profile's phases */
    auto mk = [&](int k, const char *nm) {
        if (ev && k >= 0) cudaEventRecord(ev[k], s);
        if (pf) pf->mark(nm);
    };
    if (ev) cudaEventRecord(ev[0], s);
    cudaError_t e;
    if (est && (e = launch_est<F32>(p, s))) return e;
    const uint32_t gc = (p.nch + NT - 1) / NT;
    mk(1, "estimate");
    /* the finest level by rows where a chunk's geometry takes it and the
     * pairs are aligned (8-byte pairs of float32, 16 of float64; cf even);
     * SCZ_L1_ROWS=0: by k_isw */
    const uint32_t rows = erows_env() && (rows_geo(p.gfull) || rows_geo(p.glast)) &&
                                  ((uintptr_t)p.src & (2 * p.es - 1)) == 0 && (p.cf & 1) == 0 &&
                                  p.raw_full == p.cf * p.es && ((uintptr_t)p.Rv & 15) == 0 &&
                                  (!F32 || ((uintptr_t)p.Rf & 7) == 0)
                              ? 1u | (erows2_env() ? 2u : 0u)
                              : 0u;
    k_stab<<<(p.nch + NT / 32 - 1) / (NT / 32), NT, 0, s>>>(p); /* a warp a chunk */
    const uint32_t Sf = lz1_nsweeps(p.gfull.rank, p.gfull.e), Sl = lz1_nsweeps(p.glast.rank, p.glast.e);
    /* the leading sweeps with at most ICO_MAX elements by k_icoarse */
    uint32_t j0 = 0;
    while (j0 < p.swn && lz1_sweep_bound(p.gfull.rank, p.gfull.e, j0) <= ICO_MAX &&
           lz1_sweep_bound(p.glast.rank, p.glast.e, j0) <= ICO_MAX)
        j0++;
    if (isw_sv() == 1) j0 = 0; /* SCZ_L1_ISV=1: every sweep by k_isw */
    if (j0)
        for (uint32_t cb = 0; cb < p.nch; cb += 65535) {
            const dim3 gs(1, p.nch - cb < 65535 ? p.nch - cb : 65535);
            if ((e = scz_ku::launch_pdl(k_icoarse<F32>, gs, NT, 0, s, p, j0, cb, rows))) return e;
        }
    for (uint32_t j = j0; j < p.swn; j++) {
        /* no launch where every chunk's sweep j is k_erows' (or past its last) */
        if ((j > Sf || rows_sweep(p.gfull, j, rows)) && (j > Sl || rows_sweep(p.glast, j, rows))) continue;
        /* the grid of the sweep's size (the coarse levels' sweeps are small:
         * a grid of the chunk's size cost ~28 us a launch in blocks that
         * found nothing to do) */
        uint64_t gj = rows_sweep(p.gfull, j, rows) ? 1 : sweep_blocks(p.gfull, j);
        const uint64_t gl = rows_sweep(p.glast, j, rows) ? 1 : sweep_blocks(p.glast, j);
        gj = gj > gl ? gj : gl;
        const uint32_t gx = (uint32_t)(gj < 2048 ? gj : 2048);
        for (uint32_t cb = 0; cb < p.nch; cb += 65535) {
            const dim3 gs(gx, p.nch - cb < 65535 ? p.nch - cb : 65535);
            /* programmatic dependent launches: a sweep's blocks start
             * while the one before drains (24 launches a group) */
            if (isw_sv() == 1) e = scz_ku::launch_pdl(k_isw<F32, 1, 6>, gs, NT, 0, s, p, j, cb, rows);
            else e = scz_ku::launch_pdl(k_isw<F32, 2, 5>, gs, NT, 0, s, p, j, cb, rows);
            if (e) return e;
        }
    }
    /* the level of stride 2 (rows bit 1), then the finest level of chunks
     * of rank 3 (erows_takes), three classes each */
    const bool wk = ewalk_env() != 0;
    p.ews = ewalk_steps();
    for (uint32_t lv = 2; lv-- > 0;) {
        if (!(rows >> lv & 1)) continue;
        for (uint32_t cls = 0; cls < 3; cls++) {
            void (*kr)(E1, uint32_t) =
                lv ? (cls == 0 ? k_erows<F32, 2, 0, false>
                               : cls == 1 ? (wk ? k_erows<F32, 2, 1, true> : k_erows<F32, 2, 1, false>)
                                          : (wk ? k_erows<F32, 2, 2, true> : k_erows<F32, 2, 2, false>))
                   : (cls == 0 ? k_erows<F32, 1, 0, false>
                               : cls == 1 ? (wk ? k_erows<F32, 1, 1, true> : k_erows<F32, 1, 1, false>)
                                          : (wk ? k_erows<F32, 1, 2, true> : k_erows<F32, 1, 2, false>));
            const int rg = scz_ku::persistent_grid((const void *)kr, NT); /* the current device's */
            const uint32_t rx = (uint32_t)rg / p.nch > 0 ? (uint32_t)rg / p.nch : 1;
            for (uint32_t cb = 0; cb < p.nch; cb += 65535) {
                const dim3 gs(rx, p.nch - cb < 65535 ? p.nch - cb : 65535);
                if ((e = scz_ku::launch_pdl(kr, gs, NT, 0, s, p, cb))) return e;
            }
        }
    }
    /* its blocks exit in interpolated chunks */
    if (lor && (e = scz_ku::launch_pdl(k_lor<F32>, dim3(p.nbl, p.nch), NT, 0, s, p))) return e;
    mk(2, "sweeps");
    /* marked by the sweeps (tile_mark) */
    if ((e = scz_ku::launch_pdl(k_vscan<true>, p.nch, NT, 0, s, p, p.tlast))) return e;
    if ((e = scz_ku::launch_pdl(k_vt2<F32>, dim3(p.tpc, p.nch), NT, 0, s, p))) return e;
    mk(3, "V_new");
    /* The one wait of a group: the largest alphabet of its chunks, so that
     * the size sets plan streams of that alphabet (tables, histograms,
     * sorts), not of 2R + 2 (H200, wmag REL 1e-3, level 1: ms). */
    if ((e = scz_ku::launch_pdl(k_kmax, 1, NT, 0, s, p))) return e;
    uint32_t kg = 0;
    e = cudaMemcpyAsync(&kg, p.kmax, 4, cudaMemcpyDeviceToHost, s);
    if (!e) e = cudaStreamSynchronize(s);
    if (e) return e;
    if (kg < 4 || kg > 2 * p.R + 2) return cudaErrorInvalidValue;
    mk(-1, "K wait");
    p.Kg = kg;
    {
        const scz_hse hk{p.codes_r, p.cf, p.scnt, p.nch * Q, p.Kg, p.cf, 1, p.sK, nullptr, nullptr, 0};
        p.hist = scz__hse_hist(&hk, hstate, &p.hstride);
    }
    if ((e = cudaMemsetAsync(p.hist, 0, (size_t)p.nch * Q * p.hstride * 4, s))) return e;
    if ((e = cudaMemsetAsync(p.runs, 0, (size_t)p.nch * 8, s))) return e; /* k_hist's tile_runs */
    if ((e = scz_ku::launch_pdl(k_sinit, gc, NT, 0, s, p))) return e;
    if (p.Kg <= HIST_WIN) { /* 16 tiles a block */
        if ((e = scz_ku::launch_pdl(k_hist<false>, dim3((p.tpc + 15) / 16, p.nch), NT,
                                    (size_t)(1 + LZ1_GMAX) * p.Kg * 4, s, p, p.Kg)))
            return e;
    } else { /* wide alphabets: HIST_WT consecutive tiles a block */
        const uint32_t ww = p.Kg < HIST_WIDE ? p.Kg : HIST_WIDE;
        /* 48 KiB of window beside the static shared memory: above the default limit */
        if ((e = cudaFuncSetAttribute(k_hist<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(ww * 4))))
            return e;
        if ((e = scz_ku::launch_pdl(k_hist<true>, dim3((p.tpc + HIST_WT - 1) / HIST_WT, p.nch), NT, (size_t)ww * 4, s,
                                    p, ww)))
            return e;
    }
    mk(-1, "hist");
    /* k_rest's and k_w3hist's blocks per chunk: a slice of the alphabet each, 64 at most */
    const uint32_t gk = (p.Kg + NT - 1) / NT < 64 ? (p.Kg + NT - 1) / NT : 64;
    if ((e = scz_ku::launch_pdl(k_rest, dim3(gk, p.nch), NT, 0, s, p))) return e;
    const scz_hse hs{p.codes_r, p.cf, p.scnt, p.nch * Q, p.Kg, p.cf, 1, p.sK, nullptr, nullptr, 0};
    if ((e = scz__hse_plan(&hs, hstate, nullptr, p.ssize, p.sbits, s))) return e;
    if ((e = scz_ku::launch_pdl(k_gchoose, gc, NT, 0, s, p))) return e;
    mk(4, "plan g");
    /* the run-length candidate */
    if ((e = cudaMemsetAsync(p.hist2, 0, (size_t)p.nch * 2 * p.h2stride * 4, s))) return e;
    /* rlast, runs: k_hist (tile_runs) */
    if ((e = scz_ku::launch_pdl(k_vscan<false>, p.nch, NT, 0, s, p, p.rlast))) return e;
    if ((e = scz_ku::launch_pdl(k_rcrit, gc, NT, 0, s, p))) return e;
    if ((e = scz_ku::launch_pdl(k_rt2, dim3((p.tpc + RT_TPB - 1) / RT_TPB, p.nch), NT, 0, s, p))) return e;
    if ((e = scz_ku::launch_pdl(k_rcnt, gc, NT, 0, s, p))) return e;
    mk(-1, "rle count");
    const scz_hse h2{p.codes_r, p.cf, p.r2cnt, p.nch * 2, LZ_MAX_RUN, p.cf, 1, p.r2K, nullptr, nullptr, 1};
    if ((e = scz__hse_plan(&h2, hstate2, nullptr, p.r2size, nullptr, s))) return e;
    if ((e = scz_ku::launch_pdl(k_rdecide, gc, NT, 0, s, p))) return e;
    mk(-1, "rle plan");
    /* the outlier list, the bodies' sizes */
    if ((e = scz_ku::launch_pdl(k_vscan<true>, p.nch, NT, 0, s, p, p.olast))) return e;
    if ((e = scz_ku::launch_pdl(k_ot2, dim3(p.tpc, p.nch), NT, 0, s, p))) return e;
    if ((e = scz_ku::launch_pdl(k_bsize, gc, NT, 0, s, p))) return e;
    if (dyn) { /* the bodies' stride: the largest formed, where it fits */
        if ((e = scz_ku::launch_pdl(k_bmax, 1, NT, 0, s, p, dyn->d_bmax))) return e;
        unsigned long long bm = 0;
        if ((e = cudaMemcpyAsync(&bm, dyn->d_bmax, 8, cudaMemcpyDeviceToHost, s)) || (e = cudaStreamSynchronize(s)))
            return e;
        const uint64_t st = scz_ku::rup(bm ? bm : 1, 256);
        size_t h5s, h5w;
        if (st > p.bodycap || dyn_bytes(p.nch, st, &h5s, &h5w) > dyn->avail) {
            dyn->redo = true;
            return cudaSuccess;
        }
        p.bodycap = st;
        p.paycap = st + LZ1_HDR;
        p.bodies = dyn->at;
        p.rbodies = p.bodies + st;
        hstate5 = dyn->at + scz_ku::rup((size_t)2 * p.nch * st, 256);
        hwork5 = static_cast<uint8_t *>(hstate5) + h5s;
        mk(-1, "body wait");
    }
    mk(5, "olist");
    /* the Huffman bodies */
    if ((e = scz_ku::launch_pdl(k_w3init, gc, NT, 0, s, p))) return e;
    const scz_hse h3{p.codes_r, p.cf, p.w3cnt, p.nch * W3, p.Kg, p.cf, 1, p.w3K, p.w3soff, nullptr, 0};
    {   /* its histograms are the size set's: copied, not counted again */
        uint32_t h3s;
        uint32_t *h3h = scz__hse_hist(&h3, hstate3, &h3s);
        if ((e = cudaMemsetAsync(h3h, 0, (size_t)p.nch * W3 * h3s * 4, s))) return e;
        if ((e = scz_ku::launch_pdl(k_w3hist, dim3(gk, p.nch), NT, 0, s, p, h3h, h3s))) return e;
    }
    if ((e = scz__hse_plan(&h3, hstate3, nullptr, p.w3size, nullptr, s))) return e;
    if ((e = scz_ku::launch_pdl(k_w3off, gc, NT, 0, s, p))) return e;
    mk(-1, "plan bodies");
    if ((e = scz__hse_write(&h3, hstate3, hwork3, p.w3off, p.bodies, s))) return e;
    mk(-1, "write streams");
    if ((e = scz_ku::launch_pdl(k_tsum, p.nch, NT, 0, s, p, p.tob))) return e;
    if ((e = scz_ku::launch_pdl(k_tsum, p.nch, NT, 0, s, p, p.tvn))) return e;
    /* both bodies' */
    if ((e = scz_ku::launch_pdl(k_lists<F32>, dim3(p.tpc, p.nch), NT, 0, s, p, p.hsz, p.rsz))) return e;
    mk(-1, "write lists");
    /* the run-length bodies */
    if ((e = scz_ku::launch_pdl(k_tsum, p.nch, NT, 0, s, p, p.tpp))) return e;
    if ((e = scz_ku::launch_pdl(k_rw, dim3(p.tpc, p.nch), NT, 0, s, p))) return e;
    /* the pieces of a formed body are the symbols k_rt2 counted for the
     * set h2 (the same counts, alphabets and histograms): h2's plan and
     * codebooks write them, no plan of their own */
    const scz_hse h4{p.rvl, p.cf, p.r2cnt, p.nch * 2, LZ_MAX_RUN, p.cf, 1, p.r2K, nullptr, nullptr, 0};
    if ((e = scz_ku::launch_pdl(k_rhdr, gc, NT, 0, s, p))) return e;
    if ((e = scz__hse_write(&h4, hstate2, hwork3, p.w4off, p.rbodies, s))) return e;
    mk(-1, "run-length bodies");
    /* the back end, the choice, the payloads */
    const uint32_t gb = (uint32_t)((p.bodycap + NT - 1) / NT < 256 ? (p.bodycap + NT - 1) / NT : 256);
    if ((e = scz_ku::launch_pdl(k_bcnt, (2 * p.nch + NT - 1) / NT, NT, 0, s, p))) return e;
    const scz_hse h5{nullptr, p.bodycap, p.b5cnt, p.nch * 2, 256, p.bodycap, 0, nullptr, nullptr, p.bodies, 0};
    if ((e = scz__hse_plan(&h5, hstate5, nullptr, p.b5size, nullptr, s))) return e;
    mk(-1, "plan back end");
    if ((e = scz_ku::launch_pdl(k_pdecide, gc, NT, 0, s, p))) return e;
    if (!p.pay) return cudaGetLastError(); /* a batch: k_pfinal places the kept payloads, then l1_place */
    if ((e = scz_ku::launch_pdl(k_pcopy, dim3(gb, p.nch), NT, 0, s, p))) return e;
    if ((e = scz__hse_write(&h5, hstate5, hwork5, p.b5off, p.pay, s))) return e;
    mk(6, "payloads");
    return cudaGetLastError();
}


/* The per-group state (regions of the scratch, by index: l1_sizes, l1_bind). */
constexpr int NM = 67;

/* A group of nr chunks: nr full chunks, or (has_last) nr - 1 full ones and
 * the batch's last. The sweep table and Lorenzo block counts take the
 * larger of both geometries, so a group's regions never outgrow those of
 * the layout (l1_layout). */
E1 l1_params(uint32_t nr, uint32_t nslots, const scz_chunk_geom &full, const scz_chunk_geom &last, bool has_last,
             uint32_t R, uint32_t wfk, int psnr, double eb) {
    E1 p;
    memset(&p, 0, sizeof p);
    p.gfull = cgeo(full);
    const CGeo gl = cgeo(last);
    p.glast = has_last ? gl : p.gfull;
    p.nreal = nr;
    p.nch = nslots;
    p.ntr = nslots - nr;
    p.es = full.esize;
    p.cf = full.count ? full.count : 1;
    p.raw_full = full.count * p.es;
    p.R = R;
    p.Kg = 2 * R + 2;
    p.wfk = wfk;
    p.psnr = psnr;
    p.eb = eb;
    p.ebx2 = 2.0 * eb;
    p.recip = p.ebx2 > 0 ? 1.0 / p.ebx2 : INFINITY;
    const uint32_t sa = sweep_entries(p.gfull), sb = sweep_entries(gl);
    p.swn = sa > sb ? sa : sb;
    p.tpc = (uint32_t)((p.cf + TILE - 1) / TILE);
    for (int w = 0; w < 2; w++) {
        const CGeo &g = w ? gl : p.gfull;
        uint64_t nb = 1;
        for (int k = 0; k < 3; k++) nb *= (g.e[k] + (1ull << g.lb[k]) - 1) >> g.lb[k];
        if (nb > p.nbl) p.nbl = (uint32_t)nb;
    }
    /* a body formed (sections, outlier list, verbatim values) is at most
     * LZ1_BODY_CAP x the raw chunk (7.10 step 3) */
    p.bodycap = (LZ1_BODY_CAP * p.raw_full + 256 + 255) & ~(uint64_t)255;
    p.paycap = p.bodycap + LZ1_HDR;
    return p;
}

/* Bytes of each region of a group (regions 0 and 12, the debug entry's
 * source and forced choices, are its own). */
void l1_sizes(const E1 &p, bool pay, size_t sz[NM]) {
    const uint64_t nch = p.nch, cf = p.cf;
    /* the code sets' alphabets are at most 2 R + 2 (launch_all checks the
     * group's K against it); the run-length set's lengths take 65536 */
    const uint32_t kc = 2 * (uint64_t)p.R + 2 < 65536 ? 2 * p.R + 2 : 65536;
    const size_t hss = scz__hse_scratch((uint32_t)(nch * Q), cf, kc), hs2 = scz__hse_scratch((uint32_t)(nch * 2), cf, 65536);
    const size_t hs3 = scz__hse_scratch((uint32_t)(nch * W3), cf, kc), hw3 = scz__hse_work((uint32_t)(nch * W3), cf);
    /* R (Rv, and Rf of float32) lives only through the sweeps, the bodies
     * only after them: R takes the bodies' region (4 x the raw chunk a
     * slot; R 3 x for float32, 1 x for float64) */
    const size_t rvb = scz_ku::rup(nch * cf * 8, 256), rfb = p.es == 4 ? nch * cf * 4 : 0;
    const size_t bod = nch * 2 * p.bodycap > rvb + rfb ? nch * 2 * p.bodycap : rvb + rfb;
    const size_t v[NM] = {0, nch * LZ1_NCOST * 8, nch * ND, nch * p.swn * sizeof(Sweep), nch * 4,
                          0, nch * cf * 2, nch * cf * 8, nch * 4, nch * p.tpc * 4, nch * 8, nch * 8,
                          0, nch * cf * 2, nch * 4, hss, nch * Q * 4, nch * Q * 4, nch * Q * 8, nch * Q * 8,
                          nch * 4, nch * 8, nch * 8, nch * 8,
                          /* 24.. */ nch * p.tpc * 4, nch * 8, nch * 4, hs2, nch * 2 * 4, nch * 2 * 4, nch * 2 * 8,
                          nch * 4, nch * 4, nch * 8, nch * LZ1_HDR, nch * 8, /* 36.. */ nch * p.tpc * 4, nch * 8, nch * 8, nch * 8,
                          /* 40.. */ bod, nch * p.tpc * 8, nch * p.tpc * 8, nch * W3 * 4,
                          nch * W3 * 4, nch * W3 * 8, nch * W3 * 8, nch * W3 * 8, hs3, hw3,
                          /* 50.. */ 8, nch * p.tpc * 8, nch * 2 * cf * 2, nch * 2 * 8, nch * 2 * 8,
                          /* 55.. */ 0, nch * 2 * 4, nch * 2 * 8, nch * 2 * 8, pay ? nch * p.paycap : 0,
                          nch * 8, nch * 4, scz__hse_scratch((uint32_t)(nch * 2), p.bodycap, 256),
                          scz__hse_work((uint32_t)(nch * 2), p.bodycap), /* 64.. */ nch * 4, nch * 4,
                          8 /* 66: k_bmax's result */};
    memcpy(sz, v, sizeof v);
}

/* The regions' pointers (m[k] backs region k; the size sets' histograms
 * in regions 15 and 27 are laid out per group by launch_all). */
void l1_bind(E1 &p, void *const m[NM], const size_t sz[NM]) {
    p.costs = static_cast<unsigned long long *>(m[1]);
    p.dec = static_cast<uint8_t *>(m[2]);
    p.sw = static_cast<Sweep *>(m[3]);
    p.nsw = static_cast<uint32_t *>(m[4]);
    p.Rv = static_cast<double *>(m[40]); /* l1_sizes: R in the bodies' region */
    p.Rf = p.es == 4 ? reinterpret_cast<float *>(static_cast<uint8_t *>(m[40]) + scz_ku::rup((uint64_t)p.nch * p.cf * 8, 256))
                     : nullptr;
    p.codes = static_cast<uint16_t *>(m[6]);
    p.aux = static_cast<long long *>(m[7]);
    p.rmax = static_cast<uint32_t *>(m[8]);
    p.tlast = static_cast<uint32_t *>(m[9]);
    p.nout = static_cast<unsigned long long *>(m[10]);
    p.nvnew = static_cast<unsigned long long *>(m[11]);
    p.codes_r = static_cast<uint16_t *>(m[13]);
    p.rch = static_cast<uint32_t *>(m[14]);
    p.kmax = static_cast<uint32_t *>(m[50]);
    p.scnt = static_cast<uint32_t *>(m[16]);
    p.sK = static_cast<uint32_t *>(m[17]);
    p.ssize = static_cast<uint64_t *>(m[18]);
    p.sbits = static_cast<uint64_t *>(m[19]);
    p.g = static_cast<uint32_t *>(m[20]);
    p.hsz = static_cast<uint64_t *>(m[21]);
    p.size0 = static_cast<uint64_t *>(m[22]);
    p.bits0 = static_cast<uint64_t *>(m[23]);
    p.rlast = static_cast<uint32_t *>(m[24]);
    p.runs = static_cast<unsigned long long *>(m[25]);
    p.rtry = static_cast<uint32_t *>(m[26]);
    p.r2cnt = static_cast<uint32_t *>(m[28]);
    p.r2K = static_cast<uint32_t *>(m[29]);
    p.r2size = static_cast<uint64_t *>(m[30]);
    p.rformed = static_cast<uint32_t *>(m[31]);
    p.rle = static_cast<uint32_t *>(m[32]);
    p.rsz = static_cast<uint64_t *>(m[33]);
    p.olast = static_cast<uint32_t *>(m[36]);
    p.obytes = static_cast<unsigned long long *>(m[37]);
    p.bh = static_cast<uint64_t *>(m[38]);
    p.br = static_cast<uint64_t *>(m[39]);
    p.bodies = static_cast<uint8_t *>(m[40]);
    p.rbodies = p.bodies + p.bodycap;
    p.tob = static_cast<unsigned long long *>(m[41]);
    p.tvn = static_cast<unsigned long long *>(m[42]);
    p.w3cnt = static_cast<uint32_t *>(m[43]);
    p.w3K = static_cast<uint32_t *>(m[44]);
    p.w3soff = static_cast<uint64_t *>(m[45]);
    p.w3size = static_cast<uint64_t *>(m[46]);
    p.w3off = static_cast<uint64_t *>(m[47]);
    p.tpp = static_cast<unsigned long long *>(m[51]);
    p.rvl = static_cast<uint16_t *>(m[52]);
    p.w4size = static_cast<uint64_t *>(m[53]);
    p.w4off = static_cast<uint64_t *>(m[54]);
    p.b5cnt = static_cast<uint32_t *>(m[56]);
    p.b5size = static_cast<uint64_t *>(m[57]);
    p.b5off = static_cast<uint64_t *>(m[58]);
    p.pay = sz[59] ? static_cast<uint8_t *>(m[59]) : nullptr;
    p.pbase = p.pay;
    p.hdr = static_cast<uint8_t *>(m[34]);
    p.pdst = static_cast<uint64_t *>(m[35]);
    p.tsrc = static_cast<const uint32_t *>(m[64]);
    p.twin = static_cast<const uint32_t *>(m[65]);
    p.psize = static_cast<uint64_t *>(m[60]);
    p.pinfo = static_cast<uint32_t *>(m[61]);
}

/* The regions the kernels expect zeroed: the estimate's sums (atomics);
 * (k_stab zeroes tpp, for chunks without a run-length candidate, and the
 * tiles' marks, tlast and olast, of its chunk); the codes and aux for the
 * debug entry (dbg), which returns them whole: the kernels read a chunk's
 * codes only below its n, all written by the sweeps or k_lor (0.12 ms of
 * memset a 512 MiB call, H100), and aux only where a code says outlier or
 * verbatim. (codes_r and rvl are read only where k_hist and k_rw wrote
 * them: the stream slots without a stream count symbol 0, k_sinit and
 * k_w3hist.) */
cudaError_t l1_zero(void *const m[NM], const size_t sz[NM], bool costs, bool dbg, cudaStream_t s) {
    static const int z[] = {1, 6, 7};
    cudaError_t e = cudaSuccess;
    for (int k : z)
        if (!e && ((k != 7 && k != 6) || dbg) && (k != 1 || costs)) e = cudaMemsetAsync(m[k], 0, sz[k], s);
    return e;
}

template <bool F32>
cudaError_t launch_l1(E1 &p, bool est, bool lor, void *const m[NM], void *&hstate5, void *&hwork5, L1Dyn *dyn,
                      cudaStream_t s, cudaEvent_t *ev, ScProf *pf) {
    hstate5 = m[62], hwork5 = m[63];
    return launch_all<F32>(p, est, lor, m[15], m[27], m[48], m[49], hstate5, hwork5, dyn, s, ev, pf);
}

/* Per chunk c of the group: the payload kept (the trial's where strictly
 * smaller), its size, codec_info and offset after the chunks before it
 * (lossy_enc.cu k_loff's scan), and where it goes (pdst; the back end's
 * stream of it at b5off). */
__global__ void __launch_bounds__(NT) k_pfinal(E1 p, uint32_t g0, uint64_t *choff, uint64_t *chsize,
                                               uint64_t *chinfo) {
    typedef cub::BlockScan<uint64_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    uint64_t carry = g0 ? choff[g0 - 1] + chsize[g0 - 1] : 0;
    for (uint32_t c0 = 0; c0 < p.nreal; c0 += NT) {
        const uint32_t c = c0 + threadIdx.x;
        uint32_t t = c;
        uint64_t x = 0;
        if (c < p.nreal) {
            const uint32_t tw = p.twin[c];
            const uint64_t a = p.psize[c], b = tw != NONE ? p.psize[tw] : 0;
            t = b && b < a ? tw : c;
            x = p.psize[t];
        }
        uint64_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (c < p.nreal) {
            const uint64_t o = carry + ex;
            choff[g0 + c] = o;
            chsize[g0 + c] = x;
            chinfo[g0 + c] = p.pinfo[t];
            p.pdst[t] = o;
            const uint32_t wf = p.pinfo[t];
            if (wf != LZ_WF_STORED && p.hdr[(uint64_t)t * LZ1_HDR + 6] == LZ_BE_HUFF)
                p.b5off[2 * t + (wf == LZ_WF_RLE)] = o + LZ1_HDR;
        }
        carry += tot;
        __syncthreads();
    }
}

/* A batch's kept payloads at pbase (the batch's payloads): the headers and
 * bodies or raw bytes (k_pcopy), the back end's streams. */
cudaError_t l1_place(const E1 &p, void *hstate5, void *hwork5, cudaStream_t s) {
    const uint64_t pc = (p.paycap + 16 * NT - 1) / (16 * NT);
    k_pcopy<<<dim3((unsigned)(pc < 256 ? pc : 256), p.nch), NT, 0, s>>>(p);
    const scz_hse h5{nullptr, p.bodycap, p.b5cnt, p.nch * 2, 256, p.bodycap, 0, nullptr, nullptr, p.bodies, 0};
    cudaError_t e = scz__hse_write(&h5, hstate5, hwork5, p.b5off, p.pbase, s);
    return e ? e : cudaGetLastError();
}

/* The level-1 scratch: S chunk slots (at least 2: a chunk and its trial),
 * within the larger of L1_BUDGET and the scratch a level-1 decompression
 * of the batch takes (so compressing adds no peak to a round trip). A
 * group takes the next chunks whose trial payloads (where the estimate
 * asks for them) fit beside them: S chunks of data that needs no trial.
 * A slot of a 33.5 MB float32 chunk is 337 MB (10 x) in the safe layout:
 * aux 67, the bodies 134 (R inside them), the run pieces 34, the size
 * set's stream state 39 and the body set's 21 (sized for 2 R + 2 symbols:
 * 65536 at level 1's radius bound), codes and codes_r 17 each; ~225 MB in
 * the fast layout (l1_fast). H100, wmag 512^3 float32 REL 1e-3 (16
 * chunks): two groups 100.7 GB/s, one (SCZ_L1_BUDGET_MB=8000) 114.7 (the
 * twelfth session); 129.4 -> 143.0 with the fast layout's one group (the
 * twenty-fourth). */
constexpr size_t L1_BUDGET = 2ull << 30;

/* The fast layout: the regions whose data lives only after the sweeps
 * (codes_r, the size sets' state and histograms, the bodies' set state and
 * work, the run pieces: ARENA) go inside region 40, which holds R during
 * the sweeps, followed by the bodies at the group's stride and the back
 * end's state and work (L1Dyn), within a reserve of L1_BRES x the raw
 * chunk a body: a slot of a 33.5 MB float32 chunk is ~225 MB instead of
 * ~337 (H100, wmag 512^3: all 16 chunks in one group within the
 * decompression's scratch). A group whose largest body does not fit is
 * redone in the safe layout (every region apart, the bodies at their cap:
 * FORMAT.md 7.10 step 3 forms none above LZ1_BODY_CAP x the raw chunk),
 * which has fewer slots. */
constexpr int ARENA[] = {13, 15, 27, 48, 49, 52};
constexpr double L1_BRES = 0.375;

/* sz (l1_sizes) to the fast layout: ARENA's offsets into region 40 in off,
 * their sizes 0, region 40 sized; returns the bytes of ARENA (where the
 * bodies start). */
size_t l1_fast(const E1 &p, size_t sz[NM], size_t off[NM]) {
    size_t acc = 0;
    for (int k : ARENA) {
        off[k] = acc;
        acc = scz_ku::rup(acc + sz[k], 256);
        sz[k] = 0;
    }
    sz[62] = sz[63] = 0;
    const uint64_t bres = scz_ku::rup((uint64_t)(L1_BRES * (double)p.raw_full) + 1, 256);
    size_t h5s, h5w;
    const size_t dyn = dyn_bytes(p.nch, bres, &h5s, &h5w);
    const size_t rb = scz_ku::rup((size_t)p.nch * p.cf * 8, 256) + (p.es == 4 ? (size_t)p.nch * p.cf * 4 : 0);
    sz[40] = acc + dyn > rb ? acc + dyn : rb;
    return acc;
}

size_t l1_total(const E1 &p, bool fast) {
    size_t sz[NM], off[NM], t = 0;
    l1_sizes(p, false, sz);
    if (fast) l1_fast(p, sz, off);
    for (int k = 0; k < NM; k++) t = scz_ku::rup(t + sz[k], 256);
    return t;
}

struct L1Lay {
    uint32_t S[2]; /* slots of the fast [0] and the safe [1] layout */
    size_t total;
};

L1Lay l1_layout(const scz_cuda_batch *b) {
    /* SCZ_L1_BUDGET_MB: another budget, for measurements */
    size_t budget = scz_ku::env_once("SCZ_L1_BUDGET_MB", [](const char *v) {
        return v && atoll(v) > 0 ? (size_t)atoll(v) << 20 : (size_t)1;
    });
    if (budget == 1) {
        const size_t dec = scz__lossy_cuda_dec_scratch(b);
        budget = dec > L1_BUDGET ? dec : L1_BUDGET;
    }
    const uint32_t R = b->h->knobs[0];
    const int psnr = b->h->eb_mode == SCZ_EB_PSNR;
    L1Lay L;
    L.total = 0;
    for (int w = 0; w < 2; w++) {
        auto tot = [&](uint32_t S) {
            return l1_total(l1_params(1, S, b->full, b->last, true, R, b->h->knobs[1], psnr, b->h->eb_abs), w == 0);
        };
        uint64_t S = 2 * (uint64_t)b->n;
        if (S > 65534) S = 65534;
        const size_t one = tot(1);
        if (one * S > budget) S = budget / one;
        if (S < 2) S = 2;
        while (S > 2 && tot((uint32_t)S) > budget) S--;
        L.S[w] = (uint32_t)S;
        const size_t t = tot((uint32_t)S);
        L.total = t > L.total ? t : L.total;
    }
    return L;
}

} // namespace

size_t scz__lossy1_cuda_enc_scratch(const scz_cuda_batch *b) { return l1_layout(b).total; }

cudaError_t scz__lossy1_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                    uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                    void *scratch, cudaStream_t s) {
    if (ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    const L1Lay L = l1_layout(b);
    const uint32_t R = b->h->knobs[0], wfk = b->h->knobs[1];
    const uint32_t SM = L.S[0] > L.S[1] ? L.S[0] : L.S[1];
    const int psnr = b->h->eb_mode == SCZ_EB_PSNR;
    /* the regions of each layout's slots, the same for every group: w = 0
     * fast, 1 safe (l1_fast); both from the start of the scratch */
    E1 base[2];
    void *m[2][NM];
    uint8_t *at = nullptr;
    size_t avail = 0;
    for (int w = 0; w < 2; w++) {
        base[w] = l1_params(1, L.S[w], b->full, b->last, true, R, wfk, psnr, b->h->eb_abs);
        size_t sz[NM], off[NM], fixed = 0;
        l1_sizes(base[w], false, sz);
        if (w == 0) fixed = l1_fast(base[w], sz, off);
        size_t o = 0;
        for (int k = 0; k < NM; k++) {
            m[w][k] = static_cast<uint8_t *>(scratch) + o;
            o = scz_ku::rup(o + sz[k], 256);
        }
        if (w == 0) {
            for (int k : ARENA) m[0][k] = static_cast<uint8_t *>(m[0][40]) + off[k];
            at = static_cast<uint8_t *>(m[0][40]) + fixed;
            avail = sz[40] - fixed;
        }
        l1_bind(base[w], m[w], sz);
        base[w].pbase = d_pay;
    }
    const CGeo gfull = base[0].gfull, glast = cgeo(b->last);
    uint8_t *dec = static_cast<uint8_t *>(malloc((size_t)SM * ND));
    uint32_t *tw = static_cast<uint32_t *>(malloc((size_t)SM * 8));
    if (!dec || !tw) {
        free(dec);
        free(tw);
        return cudaErrorMemoryAllocation;
    }
    uint32_t *ts = tw + SM;
    cudaError_t e = cudaSuccess;
    ScProf pf("lossy1 encode", s);
    int safe = 0; /* 1: this group in the safe layout (its bodies did not fit the fast one's) */
    for (uint32_t c0 = ca; c0 < cb && !e;) {
        /* the estimate of the next S chunks (at most), then the group */
        const uint32_t S = L.S[safe];
        void *const *mm = m[safe];
        const uint32_t W = cb - c0 < S ? cb - c0 : S;
        E1 q = base[safe];
        q.nreal = q.nch = W;
        q.ntr = 0;
        q.glast = c0 + W == b->n ? glast : gfull;
        q.src = static_cast<const uint8_t *>(d_src) + (uint64_t)c0 * b->raw_full;
        if ((e = cudaMemsetAsync(q.costs, 0, (size_t)W * LZ1_NCOST * 8, s))) break;
        if ((e = q.es == 4 ? launch_est<true>(q, s) : launch_est<false>(q, s))) break;
        if ((e = cudaMemcpyAsync(dec, q.dec, (size_t)W * ND, cudaMemcpyDeviceToHost, s))) break;
        if ((e = cudaStreamSynchronize(s))) break;
        pf.mark("estimate");
        uint32_t G = 0, T = 0;
        while (G < W) {
            const uint32_t t = !psnr && dec[(size_t)G * ND + 2] != LZ_PRED_LORENZO; /* k_stab's condition */
            if (G + 1 + T + t > S) break;
            tw[G] = t ? 0 : NONE; /* marked; numbered below (trial slots follow the group's chunks) */
            T += t;
            G++;
        }
        for (uint32_t c = 0, j = 0; c < G; c++)
            if (tw[c] != NONE) tw[c] = G + j, ts[j++] = c;
        E1 p = base[safe];
        p.nreal = G;
        p.ntr = T;
        p.nch = G + T;
        p.glast = c0 + G == b->n ? glast : gfull;
        p.src = q.src;
        size_t gsz[NM];
        l1_sizes(p, false, gsz);
        if ((e = cudaMemcpyAsync(mm[65], tw, (size_t)G * 4, cudaMemcpyHostToDevice, s))) break;
        if (T && (e = cudaMemcpyAsync(mm[64], ts, (size_t)T * 4, cudaMemcpyHostToDevice, s))) break;
        if ((e = l1_zero(mm, gsz, false, false, s))) break;
        pf.mark("zero");
        /* k_lor only where a chunk of the group predicts by Lorenzo (k_stab:
         * the decision's predictor; the trial's chunks interpolate) */
        bool lor = false;
        for (uint32_t c = 0; c < G; c++) lor |= dec[(size_t)c * ND] == LZ_PRED_LORENZO;
        L1Dyn dy{at, avail, static_cast<unsigned long long *>(m[0][66]), false};
        void *hs5 = nullptr, *hw5 = nullptr;
        if ((e = p.es == 4 ? launch_l1<true>(p, false, lor, mm, hs5, hw5, safe ? nullptr : &dy, s, nullptr, &pf)
                           : launch_l1<false>(p, false, lor, mm, hs5, hw5, safe ? nullptr : &dy, s, nullptr, &pf)))
            break;
        if (dy.redo) { /* the group again, in the safe layout */
            safe = 1;
            pf.mark("redo");
            continue;
        }
        k_pfinal<<<1, NT, 0, s>>>(p, c0, choff, chsize, chinfo);
        e = l1_place(p, hs5, hw5, s);
        pf.mark("output");
        c0 += G;
        safe = 0;
    }
    /* the host arrays were copied (pageable memory: staged before the calls return) */
    free(dec);
    free(tw);
    return e;
}

extern "C" int scz__lossy1_cuda_debug(scz_l1dbg *d) {
    if (d->nch == 0 || d->nch > 32767 || (d->full.esize != 4 && d->full.esize != 8) || d->full.count > 0x7fffffffull)
        return (int)cudaErrorInvalidValue;
    const uint64_t nr = d->nch, nch = 2 * nr, cf = d->full.count ? d->full.count : 1;
    E1 p = l1_params(d->nch, 2 * d->nch, d->full, d->last, true, d->R, 0, d->psnr, d->eb);
    const size_t srcb = (nr - 1) * p.raw_full + d->last.count * p.es;
    cudaError_t e = cudaSuccess;
    void *m[NM] = {};
    size_t sz[NM];
    l1_sizes(p, true, sz);
    sz[0] = srcb ? srcb : 1;
    sz[12] = nch * 3;
    for (int k = 0; k < NM && !e; k++) e = cudaMalloc(&m[k], sz[k] ? sz[k] : 1);
    if (!e) e = cudaMemcpy(m[0], d->src, srcb, cudaMemcpyHostToDevice);
    if (!e && d->force) e = cudaMemcpy(m[12], d->force, nr * 3, cudaMemcpyHostToDevice);
    if (!e) e = l1_zero(m, sz, true, true, 0);
    { /* every chunk c has a trial slot nr + c (k_stab leaves it empty where not asked for) */
        uint32_t *tw = static_cast<uint32_t *>(malloc(nr * 8));
        if (!tw) e = cudaErrorMemoryAllocation;
        for (uint64_t c = 0; !e && c < nr; c++) tw[c] = (uint32_t)(nr + c), tw[nr + c] = (uint32_t)c;
        if (!e) e = cudaMemcpy(m[65], tw, nr * 4, cudaMemcpyHostToDevice);
        if (!e) e = cudaMemcpy(m[64], tw + nr, nr * 4, cudaMemcpyHostToDevice);
        free(tw);
    }
    if (!e) {
        p.src = static_cast<const uint8_t *>(m[0]);
        p.force = d->force ? static_cast<const uint8_t *>(m[12]) : nullptr;
        l1_bind(p, m, sz);
        cudaEvent_t ev[7];
        int nev = 0;
        for (; nev < 7 && cudaEventCreate(&ev[nev]) == cudaSuccess; nev++) {}
        void *hs5, *hw5;
        e = p.es == 4 ? launch_l1<true>(p, true, true, m, hs5, hw5, nullptr, 0, nev == 7 ? ev : nullptr, nullptr)
                      : launch_l1<false>(p, true, true, m, hs5, hw5, nullptr, 0, nev == 7 ? ev : nullptr, nullptr);
        if (!e) e = cudaDeviceSynchronize();
        for (int k = 0; k < 6; k++) {
            float ms = 0;
            if (!e && nev == 7) cudaEventElapsedTime(&ms, ev[k], ev[k + 1]);
            d->ms[k] = ms;
        }
        for (int k = 0; k < nev; k++) cudaEventDestroy(ev[k]);
    }
    uint8_t *dec = nullptr;
    uint32_t *nsw = nullptr, *rmax = nullptr;
    if (!e) {
        dec = static_cast<uint8_t *>(malloc(nch * ND));
        nsw = static_cast<uint32_t *>(malloc(nch * 4));
        rmax = static_cast<uint32_t *>(malloc(nch * 4));
        if (!dec || !nsw || !rmax) e = cudaErrorMemoryAllocation;
    }
    if (!e) e = cudaMemcpy(dec, m[2], nch * ND, cudaMemcpyDeviceToHost);
    if (!e) e = cudaMemcpy(nsw, m[4], nch * 4, cudaMemcpyDeviceToHost);
    if (!e) e = cudaMemcpy(rmax, m[8], nch * 4, cudaMemcpyDeviceToHost);
    if (!e && d->costs) e = cudaMemcpy(d->costs, m[1], nr * LZ1_NCOST * 8, cudaMemcpyDeviceToHost);
    if (!e && d->codes) e = cudaMemcpy(d->codes, m[6], nr * cf * 2, cudaMemcpyDeviceToHost);
    if (!e && d->aux) e = cudaMemcpy(d->aux, m[7], nr * cf * 8, cudaMemcpyDeviceToHost);
    if (!e && d->nout) e = cudaMemcpy(d->nout, m[10], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->nvnew) e = cudaMemcpy(d->nvnew, m[11], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->g) e = cudaMemcpy(d->g, m[20], nr * 4, cudaMemcpyDeviceToHost);
    if (!e && d->hsz) e = cudaMemcpy(d->hsz, m[21], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->size0) e = cudaMemcpy(d->size0, m[22], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->bits0) e = cudaMemcpy(d->bits0, m[23], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->rformed) e = cudaMemcpy(d->rformed, m[31], nr * 4, cudaMemcpyDeviceToHost);
    if (!e && d->rle) e = cudaMemcpy(d->rle, m[32], nr * 4, cudaMemcpyDeviceToHost);
    if (!e && d->rsz) e = cudaMemcpy(d->rsz, m[33], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->obytes) e = cudaMemcpy(d->obytes, m[37], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->bh) e = cudaMemcpy(d->bh, m[38], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->br) e = cudaMemcpy(d->br, m[39], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->psize) e = cudaMemcpy(d->psize, m[60], nr * 8, cudaMemcpyDeviceToHost);
    if (!e && d->pinfo) e = cudaMemcpy(d->pinfo, m[61], nr * 4, cudaMemcpyDeviceToHost);
    if (!e && d->pay) {
        uint64_t *ps = static_cast<uint64_t *>(malloc(nch * 8));
        if (!ps) e = cudaErrorMemoryAllocation;
        if (!e) e = cudaMemcpy(ps, m[60], nch * 8, cudaMemcpyDeviceToHost);
        for (uint64_t c = 0; c < nr && !e; c++)
            if (ps[c] && ps[c] <= d->bstride)
                e = cudaMemcpy(d->pay + c * d->bstride, static_cast<uint8_t *>(m[59]) + c * p.paycap, ps[c],
                               cudaMemcpyDeviceToHost);
        free(ps);
    }
    if (!e && d->fpay) { /* the trial: the interpolation payload where strictly smaller (a stored one with its size) */
        uint64_t *ps = static_cast<uint64_t *>(malloc(nch * 8));
        uint32_t *pi = static_cast<uint32_t *>(malloc(nch * 4));
        if (!ps || !pi) e = cudaErrorMemoryAllocation;
        if (!e) e = cudaMemcpy(ps, m[60], nch * 8, cudaMemcpyDeviceToHost);
        if (!e) e = cudaMemcpy(pi, m[61], nch * 4, cudaMemcpyDeviceToHost);
        for (uint64_t c = 0; c < nr && !e; c++) {
            const uint64_t t = ps[c + nr] && ps[c + nr] < ps[c] ? c + nr : c;
            d->fpsize[c] = ps[t];
            d->fpinfo[c] = pi[t];
            if (ps[t] && ps[t] <= d->bstride)
                e = cudaMemcpy(d->fpay + c * d->bstride, static_cast<uint8_t *>(m[59]) + t * p.paycap, ps[t],
                               cudaMemcpyDeviceToHost);
        }
        free(ps);
        free(pi);
    }
    for (int w = 0; w < 2 && !e; w++) {
        uint8_t *dst = w ? d->rbodies : d->bodies;
        if (!dst) continue;
        uint64_t *bh = static_cast<uint64_t *>(malloc(nch * 8));
        if (!bh) e = cudaErrorMemoryAllocation;
        if (!e) e = cudaMemcpy(bh, m[w ? 39 : 38], nch * 8, cudaMemcpyDeviceToHost);
        for (uint64_t c = 0; c < nr && !e; c++)
            if (bh[c] <= d->bstride && bh[c] <= p.bodycap) /* formed ones (others: not compared) */
                e = cudaMemcpy(dst + c * d->bstride, static_cast<uint8_t *>(m[40]) + (2 * c + w) * p.bodycap, bh[c],
                               cudaMemcpyDeviceToHost);
        free(bh);
    }
    if (!e) {
        for (uint64_t c = 0; c < nr; c++) {
            if (d->dec) memcpy(d->dec + 5 * c, dec + ND * c, 5);
            if (d->r) d->r[c] = nsw[c] == NONE ? 0 : rmax[c] + 1;
        }
    }
    free(dec);
    free(nsw);
    free(rmax);
    for (int k = 0; k < NM; k++)
        if (m[k]) cudaFree(m[k]);
    return (int)e;
}

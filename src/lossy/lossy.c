/*
 * lossy.c -- CPU (OpenMP) implementation of the error-bounded lossy codec:
 * dual quantization (prequantization to the bound's grid, then first-order
 * Lorenzo prediction of the integers inside independent blocks), outliers,
 * verbatim values for everything the bound or the quantizer cannot hold,
 * and a Huffman or run-length workflow per chunk. Implements
 * docs/FORMAT.md section 7; the entropy coders are in src/entropy.
 * Level 1 (knobs[2] = 1, 7.9-7.10; lz1_*, lossy_interp.h): per-chunk
 * radius, multilevel interpolation with residual quantization beside
 * Lorenzo, chosen by a sampled estimate, and a byte-Huffman back end.
 */
#include "../util/ieee.h" /* first: the floating-point contract of the bound */

#include "lossy.h"
#include "lossy_quant.h"
#include "lossy_interp_hd.h"
#include "lossy_est_hd.h"
#include "lossy_debug.h"

#include "../entropy/huffman.h"
#include "../entropy/rle.h"
#include "../internal.h"

#include <fenv.h>
#include <float.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the lossy CPU codec assumes a little-endian host"
#endif

#define LZ_MAXT 64

/* ------------------------------------------------------------------ */
/* Geometry (7.2)                                                      */
/* ------------------------------------------------------------------ */

typedef struct lz_geo {
    unsigned rank;       /* coding rank: dims of extent 1 dropped */
    uint64_t e[3];       /* extents, fastest first; 1 beyond rank */
    unsigned lb[3];      /* log2 block sides; 0 beyond rank */
    uint64_t nb[3];      /* blocks per axis */
    uint64_t nblocks, n;
} lz_geo;

typedef struct lz_blk {
    uint64_t ex, ey, ez; /* extents of this block */
    uint64_t base;       /* linear index of its first element in the chunk */
    uint64_t co;         /* index of its first code in the code sequence */
} lz_blk;

static void geo_extents(const scz_chunk_geom *g, lz_geo *z) {
    memset(z, 0, sizeof *z);
    z->e[0] = z->e[1] = z->e[2] = 1;
    unsigned r = 0;
    for (unsigned d = 0; d < g->rank; d++)
        if (g->dims[d] != 1) z->e[r++] = g->dims[d];
    z->rank = r ? r : 1;
    z->n = g->count;
}

static void geo_blocks(lz_geo *z, const unsigned *lb) {
    for (unsigned d = 0; d < 3; d++) {
        z->lb[d] = d < z->rank ? lb[d] : 0;
        uint64_t s = (uint64_t)1 << z->lb[d];
        z->nb[d] = (z->e[d] + s - 1) >> z->lb[d];
    }
    z->nblocks = z->nb[0] * z->nb[1] * z->nb[2];
}

/* Block b (x fastest): its extents, first element and first code. Codes
 * follow block order; inside a block, x fastest; partial blocks at the
 * upper edges hold only their elements. */
static inline void lz_block(const lz_geo *g, uint64_t b, lz_blk *k) {
    uint64_t bx = b % g->nb[0], t = b / g->nb[0];
    uint64_t by = t % g->nb[1], bz = t / g->nb[1];
    uint64_t x0 = bx << g->lb[0], y0 = by << g->lb[1], z0 = bz << g->lb[2];
    uint64_t sx = (uint64_t)1 << g->lb[0], sy = (uint64_t)1 << g->lb[1], sz = (uint64_t)1 << g->lb[2];
    k->ex = g->e[0] - x0 < sx ? g->e[0] - x0 : sx;
    k->ey = g->e[1] - y0 < sy ? g->e[1] - y0 : sy;
    k->ez = g->e[2] - z0 < sz ? g->e[2] - z0 : sz;
    k->base = (z0 * g->e[1] + y0) * g->e[0] + x0;
    k->co = z0 * g->e[1] * g->e[0] + k->ez * y0 * g->e[0] + k->ez * k->ey * x0;
}

/* Code index of the first code of block b (n for b = nblocks). */
static uint64_t block_code_start(const lz_geo *g, uint64_t b) {
    if (b >= g->nblocks) return g->n;
    lz_blk k;
    lz_block(g, b, &k);
    return k.co;
}

/* ------------------------------------------------------------------ */
/* Kernels                                                             */
/* ------------------------------------------------------------------ */

typedef struct lz_qp {
    double eb, ebx2, recip;
    int64_t radius;
} lz_qp;

typedef struct lz_tstate {
    uint64_t b0, b1, c0, c1;   /* blocks, codes */
    uint64_t n_out, n_vnew;    /* records written at [c0, c0 + n) of the staging arrays */
    int has_verb;
    uint64_t first_verb_code, first_bits, last_bits;
    int drop_first_vnew;       /* its first V_new became a V_repeat */
    uint64_t prev_out;         /* index of the last outlier before this range + 1 (0: none) */
    uint64_t out_bytes, out_off, vnew_off;
    uint32_t *hist;
} lz_tstate;

typedef struct lz_dstate {
    uint64_t b0, b1, c0, c1, o0, o1, v0, v1;
    int first_verb;            /* 0 none, 1 V_new, 2 V_repeat: the first verbatim code of the range */
} lz_dstate;

/* Code of a prediction error (FORMAT.md 7.4): delta + radius inside the
 * radius, else the outlier code with (index, delta) appended at *no. The
 * test is done in unsigned arithmetic so no delta can overflow it. */
static inline uint16_t lz_code(int64_t delta, int64_t r, uint64_t span, uint64_t ci, uint32_t *oidx,
                               int64_t *odel, uint64_t *no) {
    if ((uint64_t)delta + (uint64_t)(r - 1) < span) return (uint16_t)(delta + r);
    oidx[*no] = (uint32_t)ci;
    odel[(*no)++] = delta;
    return LZ_CODE_OUTLIER;
}

static inline uint64_t zigzag(int64_t v) {
    uint64_t u = (uint64_t)v;
    return (u << 1) ^ (0 - (u >> 63));
}
static inline int64_t unzigzag(uint64_t z) { return (int64_t)((z >> 1) ^ (0 - (z & 1))); }

/* ------------------------------------------------------------------ */
/* Level 1: interpolation (FORMAT.md 7.9)                              */
/* ------------------------------------------------------------------ */

/* The per-element arithmetic of the level-1 writer (residual quantization,
 * the estimate's samples and costs, the choice from them): lossy_est_hd.h,
 * shared with the GPU writer (lossy_enc1.cu). */
/* The CPU estimate's and encoder's names for them (lossy_interp.h: its
 * estimate is an SSE2 form of lz1_est_sample, with the same sums; the GPU
 * writer's test compares them). */
static inline uint64_t lz_cost(uint64_t d) { return lz1_cost(d); }
static inline int lz_rquant(double x, double P, double recip, double ebx2, double eb, int f32, int64_t *q,
                            double *xr) {
    return lz1_rq(x, P, recip, ebx2, eb, f32, q, xr);
}

/* The same predictions where all four (cubic) or both (linear) neighbours
 * exist, o the neighbour offset: no tests. */
static inline double lz_icub(const double *R, uint64_t i, uint64_t o) {
    return lz_cub(R[i - o], R[i + o], R[i - 3 * o], R[i + 3 * o]);
}
static inline double lz_ilin(const double *R, uint64_t i, uint64_t o) { return lz_lin(R[i - o], R[i + o]); }

/* Number of levels: the smallest L with 2^L >= every extent. */
static inline unsigned lz_levels(const lz_geo *g) { return lz1_levels(g->rank, g->e); }

/* Quantization step h_lv and its inverse for the levels 0 .. L of an
 * interpolated chunk (7.9, byte 29): h / f_lv with f_lv = 1 (tight = 0) or
 * f_0 = 1, f_(lv+1) = min(1.25 f_lv, 2) (tight = 1), binary64. Returns L. */
static unsigned lz_level_steps(const lz_qp *qp, int tight, const lz_geo *g, double *lh, double *lr) {
    const unsigned L = lz_levels(g);
    for (unsigned lv = 0; lv <= L; lv++) {
        lh[lv] = lz1_level_step(qp->ebx2, tight, lv);
        lr[lv] = lh[lv] > 0 ? 1.0 / lh[lv] : INFINITY;
    }
    return L;
}

/* The sweeps of the interpolation order (FORMAT.md 7.9): for each level
 * s = 2^(L-1) .. 1 and each axis a in the axis order with
 * s < e_a, the traversal position of its first element; st[S] = n. Returns
 * S, the number of sweeps (at most LZ1_MAX_SWEEPS), for axis order ord. */
static unsigned lz_sweep_starts(const lz_geo *g, unsigned ord, uint64_t *st) {
    const unsigned n = g->rank;
    uint8_t perm[3], pos[3];
    lz1_order(n, ord, perm, pos);
    uint64_t base = 1;
    unsigned S = 0;
    for (unsigned lv = lz_levels(g); lv-- > 0;) {
        const uint64_t s = (uint64_t)1 << lv;
        for (unsigned j = 0; j < n; j++) {
            const unsigned a = perm[j];
            if (s >= g->e[a]) continue;
            uint64_t b[3], d[3], cnt[3];
            lz1_sweep_dims(g->e, pos, a, s, b, d, cnt);
            st[S++] = base;
            base += cnt[0] * cnt[1] * cnt[2];
        }
    }
    st[S] = base; /* = n */
    return S;
}

/* Codes counted four at a time by interp_encode's pass (a window around
 * the zero error: the three extra histograms are cleared and summed over
 * it only). */
#define LZ_HX_WIN 4096u

#define LZ_T float
#define LZ_U uint32_t
#define LZ_SFX _f32
#include "lossy_kern.h"
#include "lossy_interp.h"
#undef LZ_T
#undef LZ_U
#undef LZ_SFX
#define LZ_T double
#define LZ_U uint64_t
#define LZ_SFX _f64
#include "lossy_kern.h"
#include "lossy_interp.h"
#undef LZ_T
#undef LZ_U
#undef LZ_SFX

/* ------------------------------------------------------------------ */
/* Codec interface                                                     */
/* ------------------------------------------------------------------ */

static size_t al64(size_t x) { return (x + 63) & ~(size_t)63; }

/* The bound's arithmetic rounds to nearest (FORMAT.md 7.1); a caller that
 * changed the rounding mode gets an error rather than a silently different
 * reconstruction. */
/* Whether the calling thread flushes denormal results or inputs to zero
 * (x86 MXCSR FTZ/DAZ, AArch64 FPCR.FZ; threads started later inherit it,
 * as under -ffast-math's start-up code). 0 where it cannot be read. */
static int lz_flush_mode(void) {
#if defined(__x86_64__) || defined(__i386__)
    return (_mm_getcsr() & 0x8040u) != 0;
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr >> 24 & 1u) != 0;
#else
    return 0;
#endif
}

static scz_status lz_check_fenv(scz_ctx *ctx, unsigned level) {
    if (fegetround() != FE_TONEAREST)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED,
                         "lossy: the floating-point rounding mode is not round-to-nearest (fesetround)");
    /* level 0 is immune to FTZ/DAZ (7.1); level 1's interpolation is not
     * (7.10): refused rather than a bound missed near the smallest normals */
    if (level && lz_flush_mode())
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED,
                         "lossy level 1: flush-to-zero / denormals-are-zero is on in this thread (e.g. -ffast-math); "
                         "level 1 needs IEEE denormals (FORMAT.md 7.10), level 0 does not");
    return SCZ_OK;
}

/* PSNR rule (FORMAT.md 7.1): the error of every element at a bound is
 * known before coding (7.3: x' depends on prequantization only; verbatim
 * values are exact), so the writer measures the squared error of a bound
 * and tightens it until the target holds. */

/* Sum of (err x scale)^2 over the non-verbatim elements [i0, i1) of one
 * PSNR block at the bound of qp: LZ_PSNR_LANES lanes by index mod
 * LZ_PSNR_LANES (i0 is a multiple of it), then a pairwise tree
 * l[j] += l[j + w], w = LANES/2 .. 1 (a GPU warp's shuffle-down
 * reduction: one warp per block, coalesced loads). */
static double psnr_block_sse(scz_dtype t, const void *src, uint64_t i0, uint64_t i1, const lz_qp *qp,
                             double scale) {
    const double recip = qp->recip, ebx2 = qp->ebx2, eb = qp->eb;
    double l[LZ_PSNR_LANES];
    for (unsigned j = 0; j < LZ_PSNR_LANES; j++) l[j] = 0;
#define LZ_PSNR_LANES_OF(T, PREQUANT)                                              \
    do {                                                                           \
        const T *x = src;                                                          \
        for (uint64_t i = i0; i < i1; i++) {                                       \
            int64_t q;                                                             \
            double e;                                                              \
            int bad = PREQUANT(x[i], recip, ebx2, eb, &q, &e);                     \
            double v = bad ? 0.0 : e * scale, vv = v * v;                          \
            SCZ_FP_SEAL(vv);                                                       \
            l[(i - i0) % LZ_PSNR_LANES] += vv;                                     \
        }                                                                          \
    } while (0)
    if (t == SCZ_DTYPE_F32) LZ_PSNR_LANES_OF(float, lz_prequant_f32);
    else LZ_PSNR_LANES_OF(double, lz_prequant_f64);
#undef LZ_PSNR_LANES_OF
    for (unsigned w = LZ_PSNR_LANES / 2; w; w /= 2)
        for (unsigned j = 0; j < w; j++) l[j] += l[j + w];
    return l[0];
}

/* Scaled sum of squared errors of the whole array at bound eb: block sums
 * in parallel into bs[], then added in block order (independent of the
 * thread count). */
static double psnr_sse(int T, scz_dtype t, const void *src, uint64_t n, double eb, double scale, double *bs) {
    lz_qp qp;
    qp.eb = eb;
    qp.ebx2 = 2.0 * eb;
    qp.recip = qp.ebx2 > 0 ? 1.0 / qp.ebx2 : INFINITY;
    qp.radius = 0;
    const uint64_t nb = (n + LZ_PSNR_BLOCK - 1) / LZ_PSNR_BLOCK;
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1 && nb > 1)
    for (uint64_t b = 0; b < nb; b++) {
        uint64_t i0 = b * LZ_PSNR_BLOCK, i1 = i0 + LZ_PSNR_BLOCK < n ? i0 + LZ_PSNR_BLOCK : n;
        bs[b] = psnr_block_sse(t, src, i0, i1, &qp, scale);
    }
    double s = 0;
    for (uint64_t b = 0; b < nb; b++) s += bs[b];
    return s;
}

/* A bound below the smallest normal number of the element type is 0
 * (lossless): from the smallest normal up, every value the check and the
 * decoder compute is normal or exactly 0, so flush-to-zero and
 * denormals-are-zero modes cannot change them (FORMAT.md 7.1). */
static double lz_final_eb(scz_dtype t, double eb) {
    return eb < (t == SCZ_DTYPE_F32 ? (double)FLT_MIN : DBL_MIN) ? 0 : eb;
}

/* The PSNR rule's state (FORMAT.md 7.1): the candidate bound, the scale
 * of the errors, and, for the incremental form, the sums of the pass in
 * progress. One pass = S(eb) over the whole array; psnr_step decides after
 * each. */
typedef struct lz_psnr {
    scz_dtype dtype;
    uint64_t n;            /* elements of the array */
    double p;              /* 10^(-dB/20) */
    double rs, scale;      /* range x 2^k in [1, 2), 2^k */
    double eb;             /* the candidate, final once done */
    int step, done;
    /* incremental passes (scz__lossy_pass_*) */
    lz_qp qp;
    double l[LZ_PSNR_LANES];
    uint64_t pos, fin;     /* elements and finite elements fed in this pass */
    double s;              /* sum of the completed blocks of this pass */
} lz_psnr;

/* Starts the rule from eb0 for the finite range [mn, mx]; done at once if
 * the rule does not apply (7.1 step 1). */
static void psnr_init(lz_psnr *ps, scz_dtype t, uint64_t n, double mn, double mx, double p, double eb0) {
    memset(ps, 0, sizeof *ps);
    ps->dtype = t;
    ps->n = n;
    ps->p = p;
    ps->eb = eb0;
    ps->done = !(eb0 > 0) || !isfinite(eb0) || !n || !(mx >= mn);
    if (ps->done) return;
    /* errors and range scaled by 2^k, range x 2^k in [1, 2): no overflow
     * or underflow of the squares whatever the magnitude of the data */
    double range = mx - mn, m;
    int e, k;
    if (isfinite(range)) {
        m = frexp(range, &e);
        k = 1 - e < 1023 ? 1 - e : 1023;
        ps->rs = range * ldexp(1.0, k);
    } else {
        double hx = 0.5 * mx, hn = 0.5 * mn; /* exact */
        m = frexp(hx - hn, &e);
        k = -e;
        ps->rs = 2.0 * m;
    }
    ps->scale = ldexp(1.0, k);
}

/* One step of the rule after a pass gave the scaled sum s over fin finite
 * values (7.1 steps 2-4): the bound is accepted, tightened, or given up
 * (0, lossless). */
static void psnr_step(lz_psnr *ps, double s, uint64_t fin) {
    const double tp = ps->rs * ps->p;
    const double target = tp * tp * (double)fin * (1.0 - LZ_PSNR_MARGIN);
    if (!fin || !(target < INFINITY) || s <= target) { /* no finite value / any finite error meets it / met */
        ps->done = 1;
        return;
    }
    if (ps->step == LZ_PSNR_STEPS) {
        ps->eb = 0;
        ps->done = 1;
        return;
    }
    double g = LZ_PSNR_SAFETY * sqrt(target / s);
    if (!(g >= LZ_PSNR_FLOOR)) g = LZ_PSNR_FLOOR;
    ps->eb *= g;
    ps->step++;
    if (!(ps->eb > 0)) ps->done = 1;
}

/* The rule over an array in memory: passes in parallel (psnr_sse). */
static scz_status psnr_tighten(scz_ctx *ctx, const scz_header *h, const void *src, double mn, double mx,
                               uint64_t fin, double p, double *eb) {
    lz_psnr ps;
    psnr_init(&ps, h->dtype, h->raw_bytes / scz_dtype_size(h->dtype), mn, mx, p, *eb);
    if (ps.done || !fin) return SCZ_OK;
    const uint64_t nb = (ps.n + LZ_PSNR_BLOCK - 1) / LZ_PSNR_BLOCK;
    double *bs = malloc((size_t)nb * sizeof *bs);
    if (!bs) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory for the PSNR rule");
    const int T = scz__threads(ctx);
    while (!ps.done) psnr_step(&ps, psnr_sse(T, h->dtype, src, ps.n, ps.eb, ps.scale, bs), fin);
    free(bs);
    *eb = ps.eb;
    return SCZ_OK;
}

/* ---- the same rule fed in pieces (incremental compression) ---- */

static void pass_reset(lz_psnr *ps) {
    ps->qp.eb = ps->eb;
    ps->qp.ebx2 = 2.0 * ps->eb;
    ps->qp.recip = ps->qp.ebx2 > 0 ? 1.0 / ps->qp.ebx2 : INFINITY;
    ps->qp.radius = 0;
    memset(ps->l, 0, sizeof ps->l);
    ps->pos = ps->fin = 0;
    ps->s = 0;
}

/* Closes the block in progress: the lanes' tree, added to the pass sum. */
static void pass_close_block(lz_psnr *ps) {
    for (unsigned w = LZ_PSNR_LANES / 2; w; w /= 2)
        for (unsigned j = 0; j < w; j++) ps->l[j] += ps->l[j + w];
    ps->s += ps->l[0];
    memset(ps->l, 0, sizeof ps->l);
}

static void lz_pass_feed(void *state, const void *elems, uint64_t count) {
    lz_psnr *ps = state;
    const double recip = ps->qp.recip, ebx2 = ps->qp.ebx2, eb = ps->qp.eb, scale = ps->scale;
    for (uint64_t i = 0; i < count && ps->pos < ps->n; i++) {
        int64_t q;
        double e, x;
        int bad;
        if (ps->dtype == SCZ_DTYPE_F32) {
            float f = ((const float *)elems)[i];
            x = (double)f;
            bad = lz_prequant_f32(f, recip, ebx2, eb, &q, &e);
        } else {
            x = ((const double *)elems)[i];
            bad = lz_prequant_f64(x, recip, ebx2, eb, &q, &e);
        }
        ps->fin += isfinite(x) != 0;
        double v = bad ? 0.0 : e * scale, vv = v * v;
        SCZ_FP_SEAL(vv);
        ps->l[ps->pos % LZ_PSNR_BLOCK % LZ_PSNR_LANES] += vv;
        if (++ps->pos % LZ_PSNR_BLOCK == 0) pass_close_block(ps);
    }
}

static scz_status lz_pass_end(scz_ctx *ctx, void *state, scz_header *h, int *again) {
    lz_psnr *ps = state;
    if (ps->pos != ps->n)
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: a PSNR pass needs the whole array (%llu of %llu elements fed)",
                         (unsigned long long)ps->pos, (unsigned long long)ps->n);
    if (ps->pos % LZ_PSNR_BLOCK) pass_close_block(ps);
    psnr_step(ps, ps->s, ps->fin);
    pass_reset(ps);
    *again = !ps->done;
    if (ps->done) h->eb_abs = lz_final_eb(h->dtype, ps->eb);
    return SCZ_OK;
}

static void lz_pass_free(void *state) { free(state); }

/* prepare() from the data (src) or, for incremental compression, from the
 * given finite range (src NULL): then a PSNR bound leaves the rule's state
 * in *pass for passes over the data (lz_pass_*). */
static scz_status lz_prepare_from(scz_ctx *ctx, scz_header *h, const void *src, const double *given, void **pass) {
    if (h->dtype != SCZ_DTYPE_F32 && h->dtype != SCZ_DTYPE_F64)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec 'lossy' takes f32 or f64 arrays, not %s",
                         scz_dtype_name(h->dtype));
    if (h->knobs[0] > LZ_MAX_RADIUS)
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: radius %u above %u", h->knobs[0], LZ_MAX_RADIUS);
    if (h->knobs[1] > 2)
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: workflow %u (0 auto, 1 Huffman, 2 run-length)", h->knobs[1]);
    if (h->knobs[2] > LZ_LEVEL_MAX)
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: level %u (0 default, 1 high ratio)", h->knobs[2]);
    for (int i = 3; i < SCZ_NUM_KNOBS; i++)
        if (h->knobs[i]) return scz__fail(ctx, SCZ_ERR_ARG, "lossy: knob %d must be 0", i);
    if (!h->knobs[0]) h->knobs[0] = h->knobs[2] ? LZ_MAX_RADIUS : LZ_DEFAULT_RADIUS;
    double eb = h->eb_user;
    if (!isfinite(eb) || (h->eb_mode != SCZ_EB_PSNR && eb < 0))
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: error bound %g is not a finite non-negative number", eb);
    double abs_eb;
    if (h->eb_mode == SCZ_EB_ABS) {
        abs_eb = eb;
    } else if (h->eb_mode == SCZ_EB_REL || h->eb_mode == SCZ_EB_PSNR) {
        /* REL: eb x (max - min) of the finite values; PSNR: starts from the
         * bound whose uniformly distributed error gives the target, range x
         * 10^(-dB/20) x sqrt(3), then the PSNR rule. A range beyond DBL_MAX
         * is scaled before subtracting. */
        double mn = 0, mx = 0;
        uint64_t fin = 0;
        scz_status st = SCZ_OK;
        if (src) {
            st = scz__value_range(h->dtype, src, h->raw_bytes / scz_dtype_size(h->dtype), &mn, &mx, &fin,
                                  scz__threads(ctx));
            if (st) return scz__fail(ctx, st, "lossy: cannot compute the value range of the input");
        } else {
            mn = given[0];
            mx = given[1];
            if (!(mn <= mx) || !isfinite(mn) || !isfinite(mx))
                return scz__fail(ctx, SCZ_ERR_ARG, "lossy: the given value range [%g, %g] is not a finite range", mn,
                                 mx);
        }
        double p = pow(10.0, -eb / 20.0);
        double f = h->eb_mode == SCZ_EB_REL ? eb : p * sqrt(3.0);
        double range = mx - mn;
        if (isfinite(range)) {
            abs_eb = f * range;
        } else {
            double fmx = f * mx, fmn = f * mn;
            SCZ_FP_SEAL(fmx); /* f*max - f*min, each product rounded (FORMAT.md 7.1) */
            SCZ_FP_SEAL(fmn);
            abs_eb = fmx - fmn;
        }
        if (abs_eb > DBL_MAX) abs_eb = DBL_MAX;
        if (h->eb_mode == SCZ_EB_PSNR && isfinite(abs_eb)) {
            if (src) {
                if ((st = psnr_tighten(ctx, h, src, mn, mx, fin, p, &abs_eb))) return st;
            } else {
                lz_psnr *ps = malloc(sizeof *ps);
                if (!ps) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory for the PSNR rule");
                psnr_init(ps, h->dtype, h->raw_bytes / scz_dtype_size(h->dtype), mn, mx, p, abs_eb);
                if (!ps->done) { /* the bound comes from the passes (lz_pass_end) */
                    pass_reset(ps);
                    *pass = ps;
                    h->eb_abs = abs_eb;
                    return SCZ_OK;
                }
                abs_eb = ps->eb;
                free(ps);
            }
        }
    } else {
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: unknown error-bound mode");
    }
    if (!isfinite(abs_eb) || abs_eb < 0)
        return scz__fail(ctx, SCZ_ERR_ARG, "lossy: the derived absolute bound %g is not usable", abs_eb);
    h->eb_abs = lz_final_eb(h->dtype, abs_eb);
    return SCZ_OK;
}

static scz_status lz_prepare(scz_ctx *ctx, scz_header *h, const void *src) {
    return lz_prepare_from(ctx, h, src, NULL, NULL);
}

static scz_status lz_prepare_range(scz_ctx *ctx, scz_header *h, const double range[2], void **pass) {
    *pass = NULL;
    return lz_prepare_from(ctx, h, NULL, range, pass);
}

static scz_status lz_check(scz_ctx *ctx, const scz_header *h) {
    if (h->dtype != SCZ_DTYPE_F32 && h->dtype != SCZ_DTYPE_F64)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy stream of dtype %s", scz_dtype_name(h->dtype));
    if (h->eb_mode < SCZ_EB_ABS || h->eb_mode > SCZ_EB_PSNR || !isfinite(h->eb_abs) || h->eb_abs < 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy stream: invalid error bound");
    if (h->knobs[0] < 1 || h->knobs[0] > LZ_MAX_RADIUS || h->knobs[1] > 2)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy stream: invalid radius or workflow knob");
    if (h->knobs[2] > LZ_LEVEL_MAX) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy stream: level %u", h->knobs[2]);
    for (int i = 3; i < SCZ_NUM_KNOBS; i++)
        if (h->knobs[i]) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy stream: knob %d is not 0", i);
    return SCZ_OK;
}

static uint64_t lz_slab_align(const scz_header *h) {
    if (h->rank > 3 || h->dims[h->rank - 1] <= 1) return 1;
    unsigned cr = 0;
    for (unsigned d = 0; d < h->rank; d++) cr += h->dims[d] > 1;
    return (uint64_t)1 << lz_block_log2[cr][cr - 1];
}

static uint64_t lz_bound(const scz_header *h, const scz_chunk_geom *g) {
    (void)h;
    uint64_t b;
    if (!scz__mul_ok(g->count, g->esize, &b) || !scz__add_ok(b, LZ_HDR, &b)) return 0;
    return b;
}

static int pick_threads(scz_ctx *ctx, uint64_t nblocks, uint64_t n) {
    int T = scz__threads(ctx);
    uint64_t lim = n / 32768 + 1; /* at least ~32 K elements per thread */
    if (nblocks < lim) lim = nblocks;
    if ((uint64_t)T > lim) T = (int)lim;
    if (T > LZ_MAXT) T = LZ_MAXT;
    return T < 1 ? 1 : T;
}

static void put_hdr(uint8_t *d, unsigned wf, const lz_geo *g, uint32_t nout, uint32_t nverb, uint64_t obytes) {
    memset(d, 0, LZ_HDR);
    d[0] = (uint8_t)wf;
    if (g) {
        d[1] = (uint8_t)g->rank;
        for (unsigned i = 0; i < g->rank; i++) d[2 + i] = (uint8_t)g->lb[i];
    }
    scz__st32(d + 8, nout);
    scz__st32(d + 12, nverb);
    scz__st64(d + 16, obytes);
}

static scz_status stored(scz_ctx *ctx, const scz_chunk_geom *g, const void *src, uint8_t *dst, uint64_t cap,
                         uint64_t *out, uint32_t *info) {
    uint64_t raw = g->count * g->esize;
    if (cap < LZ_HDR + raw) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "lossy: chunk does not fit");
    put_hdr(dst, LZ_WF_STORED, NULL, 0, 0, 0);
    memcpy(dst + LZ_HDR, src, raw);
    *out = LZ_HDR + raw;
    *info = LZ_WF_STORED;
    return SCZ_OK;
}

/* Positions i in [a, b) (a >= 1) where c[i] differs from c[i - 1]. */
static uint64_t count_changes(const uint16_t *c, uint64_t a, uint64_t b) {
    uint64_t ch = 0, i = a;
#if LZ_SSE2
    /* eight at a time: the equal pairs counted in 16-bit lanes (at most
     * 4096 steps between the flushes) */
    while (i + 8 <= b) {
        __m128i eq = _mm_setzero_si128();
        const uint64_t e = b - i >= 8 * 4096 ? i + 8 * 4096 : b - 7;
        uint64_t k = 0;
        for (; i < e; i += 8, k += 8) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(c + i));
            const __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(c + i - 1));
            eq = _mm_sub_epi16(eq, _mm_cmpeq_epi16(x, y));
        }
        uint16_t l[8];
        _mm_storeu_si128((__m128i *)(void *)l, eq);
        ch += k - ((uint64_t)l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7]);
    }
#endif
    for (; i < b; i++) ch += c[i] != c[i - 1];
    return ch;
}

/* Number of maximal runs of equal codes (1 + the positions where the
 * code changes). */
static uint64_t count_runs(const uint16_t *c, uint64_t n, int T) {
    if (n < 2) return 1;
    uint64_t ch = 0;
#pragma omp parallel for schedule(static, 1) num_threads(T) reduction(+ : ch) if (T > 1)
    for (int t = 0; t < T; t++)
        ch += count_changes(c, 1 + (n - 1) * (uint64_t)t / (uint64_t)T, 1 + (n - 1) * (uint64_t)(t + 1) / (uint64_t)T);
    return ch + 1;
}


/* ------------------------------------------------------------------ */
/* Level 1 (FORMAT.md 7.9-7.10)                                        */
/* ------------------------------------------------------------------ */

/* Outlier list and verbatim values of thread range ts, at p (the
 * outlier list) and p + obytes (the verbatim values). */
static void write_tail_range(uint8_t *p, uint64_t obytes, const lz_tstate *ts, const uint32_t *oidx,
                             const int64_t *odel, const uint32_t *vpos, const uint8_t *sb, unsigned es) {
    uint8_t *q = p + ts->out_off;
    uint64_t prev = ts->prev_out;
    for (uint64_t j = ts->c0; j < ts->c0 + ts->n_out; j++) {
        q = scz__put_varint(q, oidx[j] - prev);
        q = scz__put_varint(q, zigzag(odel[j]));
        prev = (uint64_t)oidx[j] + 1;
    }
    uint8_t *v = p + obytes + ts->vnew_off * es;
    for (uint64_t j = ts->c0 + (uint64_t)ts->drop_first_vnew; j < ts->c0 + ts->n_vnew; j++) {
        memcpy(v, sb + (uint64_t)vpos[j] * es, es);
        v += es;
    }
}

/* Outlier list and verbatim values of the thread ranges, at p (the ranges
 * write disjoint bytes: one thread each). */
static void write_tail(uint8_t *p, uint64_t obytes, const lz_tstate *ts, int T, const uint32_t *oidx,
                       const int64_t *odel, const uint32_t *vpos, const uint8_t *sb, unsigned es) {
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
    for (int t = 0; t < T; t++) write_tail_range(p, obytes, &ts[t], oidx, odel, vpos, sb, es);
}

/* Lorenzo prediction of a chunk (7.4) over T threads, one contiguous block
 * range each: per range its code range [c0, c1), codes, lists and a
 * histogram of K bins (hist + t K); both levels (join_ranges then joins
 * the ranges). */
static void lorenzo_ranges(const lz_geo *g, const void *src, const lz_qp *qp, size_t es, int T, uint32_t *hist,
                           uint32_t K, lz_tstate *ts, uint16_t *codes, uint32_t *oidx, int64_t *odel,
                           uint32_t *vpos) {
    for (int t = 0; t < T; t++) {
        ts[t].b0 = g->nblocks * (uint64_t)t / (uint64_t)T;
        ts[t].b1 = g->nblocks * (uint64_t)(t + 1) / (uint64_t)T;
        ts[t].hist = hist + (size_t)t * K;
        ts[t].c0 = block_code_start(g, ts[t].b0);
        ts[t].c1 = block_code_start(g, ts[t].b1);
    }
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
    for (int t = 0; t < T; t++) {
        memset(ts[t].hist, 0, (size_t)K * 4);
        if (es == 4) compress_range_f32(g, src, qp, &ts[t], codes, oidx, odel, vpos);
        else compress_range_f64(g, src, qp, &ts[t], codes, oidx, odel, vpos);
    }
}

/* The back end's size for a body of B bytes (7.10): the Huffman stream of
 * its bytes, or UINT64_MAX where it is not allowed. */
/* Joins the code ranges of the T threads (both levels): a range's first
 * verbatim value that repeats the last one of an earlier range becomes
 * V_repeat (the stream does not depend on T); each range's offsets in the
 * outlier list (varint(gap) varint(zigzag(delta))) and the new verbatim
 * values; the totals. */
static void join_ranges(lz_tstate *ts, int T, uint16_t *codes, const uint32_t *oidx, const int64_t *odel,
                        uint32_t r, uint64_t *n_out_, uint64_t *n_vnew_, uint64_t *obytes_) {
    uint64_t n_out = 0, n_vnew = 0, last = 0, prev_out = 0;
    int have = 0;
    for (int t = 0; t < T; t++) {
        lz_tstate *s = &ts[t];
        if (s->has_verb) {
            if (have && s->first_bits == last) {
                codes[s->first_verb_code] = (uint16_t)LZ_VREP(r);
                s->hist[LZ_VNEW(r)]--;
                s->hist[LZ_VREP(r)]++;
                s->drop_first_vnew = 1;
            }
            have = 1;
            last = s->last_bits;
        }
        s->prev_out = prev_out;
        if (s->n_out) prev_out = (uint64_t)oidx[s->c0 + s->n_out - 1] + 1;
        s->vnew_off = n_vnew;
        n_vnew += s->n_vnew - (uint64_t)s->drop_first_vnew;
        n_out += s->n_out;
    }
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
    for (int t = 0; t < T; t++) {
        uint64_t sz = 0, prev = ts[t].prev_out;
        for (uint64_t j = ts[t].c0; j < ts[t].c0 + ts[t].n_out; j++) {
            sz += scz__varint_len(oidx[j] - prev) + scz__varint_len(zigzag(odel[j]));
            prev = (uint64_t)oidx[j] + 1;
        }
        ts[t].out_bytes = sz;
    }
    uint64_t obytes = 0;
    for (int t = 0; t < T; t++) {
        ts[t].out_off = obytes;
        obytes += ts[t].out_bytes;
    }
    *n_out_ = n_out;
    *n_vnew_ = n_vnew;
    *obytes_ = obytes;
}

/* The chunk's codes stay in the alphabet of the largest radius R (7.10
 * step 2 maps them to that of r): map takes a code there to the chunk's
 * (NULL: the same code, r = R); the codes used are 0, lo .. hi and the two
 * verbatim codes of R. The writers read the codes through map: the
 * histograms through it, the codebooks through bk, a copy of a codebook of
 * the chunk's alphabet with its entries at the codes of R (its lengths,
 * which the codebook bytes are written from, those of the chunk). */
typedef struct lz_cmap {
    const uint16_t *map;
    uint32_t lo, hi, R;
    scz_huff_enc *bk;
} lz_cmap;

static const scz_huff_enc *cmap_book(const lz_cmap *cm, const scz_huff_enc *b) {
    if (!cm->map) return b;
    scz_huff_enc *k = cm->bk;
    k->K = b->K;
    k->used = b->used;
    memcpy(k->len, b->len, b->K);
    k->entry[0] = b->entry[cm->map[0]];
    k->entry[LZ_VNEW(cm->R)] = b->entry[cm->map[LZ_VNEW(cm->R)]];
    k->entry[LZ_VREP(cm->R)] = b->entry[cm->map[LZ_VREP(cm->R)]];
    for (uint32_t c = cm->lo; c <= cm->hi; c++) k->entry[c] = b->entry[cm->map[c]];
    return k;
}

/* Bits of the codes [a, b) under the codebook bk (codes of R). */
static uint64_t cmap_bits(const scz_huff_enc *bk, const uint16_t *codes, uint64_t a, uint64_t b) {
    uint64_t bits = 0;
    for (uint64_t i = a; i < b; i++) bits += bk->entry[codes[i]] & 31;
    return bits;
}

/* The run-length candidate of a chunk (7.5): whether it is evaluated (the
 * workflow knob, or the auto rule's test against the codes' Huffman plan
 * hc) and, if so, its runs, their two codebooks and stream plans. */
typedef struct {
    int on;                 /* evaluated */
    uint64_t nruns;
    int Tr;                 /* threads of the two streams */
    scz_hs_info hv, hl;     /* run codes, run lengths - 1 */
    uint16_t *vals, *lens;  /* the runs */
    scz_huff_enc *bookv, *bookl;
    uint64_t rs[LZ_MAXT + 1], rbv[LZ_MAXT], rbl[LZ_MAXT]; /* ranges and their bits */
    uint64_t nb;            /* pending: the runs are still to be written from nb starts at bnd */
    const uint32_t *bnd;
    int pending;
} lz_rle;

/* scz__huff_build + scz__hs_plan of the histogram tot (consumed: its
 * used counts are packed to its front) of an alphabet of K over its used
 * symbols only: the same codebook and sizes (the run lengths use few of
 * their 65536 symbols). */
static void sparse_book(uint64_t *tot, uint32_t Ku, uint32_t K, uint64_t count, scz_huff_enc *book, void *work,
                        scz_hs_info *hi) {
    /* symbols >= Ku (<= K) do not occur (tot holds Ku counts) */
    uint32_t m = 0;
    for (uint32_t c = 0; c < Ku; c++) m += tot[c] != 0;
    uint32_t *sym = malloc((size_t)m * 4 + 4);
    if (!sym) { /* the same result the long way */
        for (uint32_t c = Ku; c < K; c++) tot[c] = 0;
        scz__huff_build(tot, K, book, work);
        scz__hs_plan(book, tot, count, hi);
        return;
    }
    for (uint32_t c = 0, j = 0; c < Ku; c++)
        if (tot[c]) sym[j] = c, tot[j++] = tot[c];
    scz__huff_build_sparse(sym, tot, m, K, count, book, work, hi);
    free(sym);
}

#if LZ_SSE2
/* For each 4-bit mask: the positions of its set bits in ascending order
 * (the rest 0), and their number. */
static const uint32_t lz_nib_pos[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
    {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
static const uint8_t lz_nib_cnt[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
#endif

/* Starts of the maximal runs of equal codes (bnd[0] = 0), as
 * scz__rle_encode's first step on one thread: eight codes at a time, the
 * mask of those that differ from the one before turned into their
 * positions four at a time by a table (all four stored, the count
 * advanced: no branch on the data; bnd holds n entries and the stores stay
 * below the position). Returns their number. */
static uint64_t run_starts(const uint16_t *s, uint64_t n, uint32_t *bnd) {
    if (n == 0) return 0;
    uint64_t k = 0, i = 1;
    bnd[k++] = 0;
#if LZ_SSE2
    while (i + 8 <= n) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        const __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 1));
        const __m128i eq = _mm_cmpeq_epi16(x, y);
        const unsigned ne = ~(unsigned)_mm_movemask_epi8(_mm_packs_epi16(eq, eq)) & 0xffu;
        const unsigned lo = ne & 15, hi = ne >> 4;
        const __m128i b0 = _mm_set1_epi32((int)(uint32_t)i), b4 = _mm_set1_epi32((int)(uint32_t)(i + 4));
        _mm_storeu_si128((__m128i *)(void *)(bnd + k),
                         _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)lz_nib_pos[lo]), b0));
        k += lz_nib_cnt[lo];
        _mm_storeu_si128((__m128i *)(void *)(bnd + k),
                         _mm_add_epi32(_mm_loadu_si128((const __m128i *)(const void *)lz_nib_pos[hi]), b4));
        k += lz_nib_cnt[hi];
        i += 8;
    }
#endif
    return scz__rle_starts(s, i, n, bnd, k);
}

/* The longest run from the run starts bnd[0..m) of n codes (m >= 1). */
static uint64_t run_longest(const uint32_t *bnd, uint64_t m, uint64_t n) {
    uint64_t lmax = n - bnd[m - 1], j = 0;
#if LZ_SSE2
    /* four differences at a time, compared as signed after a bias (SSE2
     * has no unsigned 32-bit compare) */
    if (m > 8) {
        const __m128i bias = _mm_set1_epi32((int)0x80000000u);
        __m128i mx = bias; /* 0 biased */
        for (; j + 5 <= m; j += 4) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(bnd + j + 1));
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(bnd + j));
            const __m128i d = _mm_xor_si128(_mm_sub_epi32(a, b), bias);
            const __m128i gt = _mm_cmpgt_epi32(d, mx);
            mx = _mm_or_si128(_mm_and_si128(gt, d), _mm_andnot_si128(gt, mx));
        }
        uint32_t l[4];
        _mm_storeu_si128((__m128i *)(void *)l, _mm_xor_si128(mx, bias));
        for (int q = 0; q < 4; q++) lmax = l[q] > lmax ? l[q] : lmax;
    }
#endif
    for (; j + 1 < m; j++) lmax = bnd[j + 1] - bnd[j] > lmax ? bnd[j + 1] - bnd[j] : lmax;
    return lmax;
}

/* rle_plan on one thread: the histograms of the run codes and run lengths
 * (runs longer than LZ_MAX_RUN cut as scz__rle_encode cuts them) from the
 * run starts, without writing the runs; their codebooks and stream plans,
 * the same as from the written runs. rle_fill writes the runs if the
 * candidate stays. */
static void rle_plan1(const uint16_t *codes, const uint16_t *map, uint64_t n, uint32_t K, uint32_t *bnd,
                      uint32_t *hl, uint64_t hcap, uint64_t *tot, void *work, lz_rle *R) {
    const uint64_t m = run_starts(codes, n, bnd);
    uint64_t *hv = tot;
    memset(hv, 0, (size_t)K * sizeof *hv);
    /* the run lengths' alphabet: 0 .. the longest piece - 1 */
    const uint64_t lmax = m ? run_longest(bnd, m, n) : 0;
    const uint32_t Kl = lmax > LZ_MAX_RUN ? LZ_MAX_RUN : lmax ? (uint32_t)lmax : 1;
    memset(hl, 0, (size_t)Kl * sizeof *hl);
    uint64_t nr = 0, j = 0;
    if (lmax <= LZ_MAX_RUN && 4 * ((uint64_t)K + Kl) + Kl <= hcap) {
        /* no run to cut: four interleaved counters of each (runs of equal
         * codes or lengths do not chain their increments through memory),
         * in the space after hl: a value's or length's four side by side
         * (one base address each) */
        uint32_t *vt = hl + Kl, *lt = vt + 4 * (size_t)K;
        memset(vt, 0, ((size_t)4 * K + (size_t)4 * Kl) * 4);
        if (map)
            for (; j + 4 < m; j += 4) {
                const uint32_t s0 = bnd[j], s1 = bnd[j + 1], s2 = bnd[j + 2], s3 = bnd[j + 3], s4 = bnd[j + 4];
                vt[4 * (size_t)map[codes[s0]]]++;
                vt[4 * (size_t)map[codes[s1]] + 1]++;
                vt[4 * (size_t)map[codes[s2]] + 2]++;
                vt[4 * (size_t)map[codes[s3]] + 3]++;
                lt[4 * (size_t)(s1 - s0) - 4]++;
                lt[4 * (size_t)(s2 - s1) - 3]++;
                lt[4 * (size_t)(s3 - s2) - 2]++;
                lt[4 * (size_t)(s4 - s3) - 1]++;
            }
        else
            for (; j + 4 < m; j += 4) {
                const uint32_t s0 = bnd[j], s1 = bnd[j + 1], s2 = bnd[j + 2], s3 = bnd[j + 3], s4 = bnd[j + 4];
                vt[4 * (size_t)codes[s0]]++;
                vt[4 * (size_t)codes[s1] + 1]++;
                vt[4 * (size_t)codes[s2] + 2]++;
                vt[4 * (size_t)codes[s3] + 3]++;
                lt[4 * (size_t)(s1 - s0) - 4]++;
                lt[4 * (size_t)(s2 - s1) - 3]++;
                lt[4 * (size_t)(s3 - s2) - 2]++;
                lt[4 * (size_t)(s4 - s3) - 1]++;
            }
        nr = j;
        for (uint32_t c = 0; c < K; c++)
            hv[c] = (uint64_t)vt[4 * (size_t)c] + vt[4 * (size_t)c + 1] + vt[4 * (size_t)c + 2] + vt[4 * (size_t)c + 3];
        for (uint32_t c = 0; c < Kl; c++)
            hl[c] = lt[4 * (size_t)c] + lt[4 * (size_t)c + 1] + lt[4 * (size_t)c + 2] + lt[4 * (size_t)c + 3];
    }
    for (; j < m; j++) {
        const uint64_t st = bnd[j], len = (j + 1 < m ? bnd[j + 1] : n) - st;
        const uint16_t v = map ? map[codes[st]] : codes[st];
        if (len <= LZ_MAX_RUN) {
            hv[v]++;
            hl[len - 1]++;
            nr++;
            continue;
        }
        const uint64_t pieces = (len + LZ_MAX_RUN - 1) / LZ_MAX_RUN, last = len - (pieces - 1) * LZ_MAX_RUN;
        hv[v] += pieces;
        hl[LZ_MAX_RUN - 1] += (uint32_t)(pieces - 1);
        hl[last - 1]++;
        nr += pieces;
    }
    R->nruns = nr;
    R->Tr = 1;
    R->rs[0] = 0;
    R->rs[1] = nr;
    sparse_book(hv, K, K, nr, R->bookv, work, &R->hv);
    R->rbv[0] = R->hv.total_bits;
    for (uint32_t c = 0; c < Kl; c++) tot[c] = hl[c];
    sparse_book(tot, Kl, 65536, nr, R->bookl, work, &R->hl);
    R->rbl[0] = R->hl.total_bits;
    R->nb = m;
    R->bnd = bnd;
    R->pending = 1;
}

/* Writes the runs that rle_plan1 planned (scz__rle_encode's runs). */
static void rle_fill(lz_rle *R, const uint16_t *codes, const uint16_t *map, uint64_t n) {
    const uint64_t m = R->nb;
    const uint32_t *bnd = R->bnd;
    uint64_t o = 0;
    for (uint64_t j = 0; j < m; j++) {
        const uint64_t st = bnd[j], len = (j + 1 < m ? bnd[j + 1] : n) - st;
        const uint16_t v = map ? map[codes[st]] : codes[st];
        if (len <= LZ_MAX_RUN) {
            R->vals[o] = v;
            R->lens[o] = (uint16_t)(len - 1);
            o++;
            continue;
        }
        for (uint64_t l = len; l; ) {
            const uint64_t p = l < LZ_MAX_RUN ? l : LZ_MAX_RUN;
            R->vals[o] = v;
            R->lens[o] = (uint16_t)(p - 1);
            o++;
            l -= p;
        }
    }
    R->pending = 0;
}

static void rle_plan(scz_ctx *ctx, const scz_header *h, const uint16_t *codes, const uint16_t *map, uint64_t n, int T,
                     uint32_t K, const scz_hs_info *hc, uint32_t *bnd, uint32_t *rh, uint64_t rh_cap, uint64_t *tot,
                     void *work, lz_rle *R) {
    R->nruns = 0;
    R->Tr = T;
    R->pending = 0;
    R->on = h->knobs[1] == 2;
    if (h->knobs[1] == 0) {
        /* the paper's criterion, or an estimate of the run-length payload
         * (runs x max(3.5, Huffman bits per code + 1.5)) below Huffman's */
        uint64_t runs = count_runs(codes, n, T);
        double bits = (double)hc->total_bits, avg = bits / (double)n;
        R->on = (uint64_t)LZ_RLE_DEN * hc->total_bits <= (uint64_t)LZ_RLE_NUM * n ||
                (double)runs * fmax(LZ_RUN_BITS_MIN, avg + LZ_RUN_BITS_ADD) < bits;
    }
    if (!R->on) return;
    if (T == 1) {
        rle_plan1(codes, map, n, K, bnd, rh, rh_cap, tot, work, R);
        return;
    }
    R->nruns = scz__rle_encode(codes, n, LZ_MAX_RUN, T, bnd, R->vals, R->lens);
    if (map) {
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1)
        for (uint64_t i = 0; i < R->nruns; i++) R->vals[i] = map[R->vals[i]];
    }
    int Tr = pick_threads(ctx, R->nruns, R->nruns * 8);
    if (Tr > T) Tr = T;
    R->Tr = Tr;
    scz__hist_ranges(R->vals, 2, R->nruns, Tr, K, rh, R->rs);
    scz__hist_reduce(rh, Tr, K, tot, NULL, NULL);
    sparse_book(tot, K, K, R->nruns, R->bookv, work, &R->hv);
    scz__hist_reduce(rh, Tr, K, NULL, R->bookv, R->rbv);
    /* run lengths: histograms over 0 .. the longest only */
    uint32_t Kl = 1;
    for (uint64_t i = 0; i < R->nruns; i++) Kl = R->lens[i] >= Kl ? (uint32_t)R->lens[i] + 1 : Kl;
    scz__hist_ranges(R->lens, 2, R->nruns, Tr, Kl, rh, R->rs);
    scz__hist_reduce(rh, Tr, Kl, tot, NULL, NULL);
    sparse_book(tot, Kl, 65536, R->nruns, R->bookl, work, &R->hl);
    scz__hist_reduce(rh, Tr, Kl, NULL, R->bookl, R->rbl);
}

/* Bytes of the run-length section (7.5): the run count and the two streams. */
static uint64_t rle_size(const lz_rle *R) { return 4 + R->hv.size + R->hl.size; }

static void rle_write(const lz_rle *R, uint8_t *p, uint8_t *gap) {
    scz__st32(p, (uint32_t)R->nruns);
    scz__hs_write(&R->hv, R->bookv, R->vals, 2, R->Tr, R->rs, R->rbv, p + 4, gap);
    scz__hs_write(&R->hl, R->bookl, R->lens, 2, R->Tr, R->rs, R->rbl, p + 4 + R->hv.size, gap);
}

static uint64_t be_plan(const uint8_t *b, uint64_t B, uint64_t *tot, scz_huff_enc *book, void *work,
                        scz_hs_info *hi) {
    if (B == 0 || B > UINT32_MAX - 1) return UINT64_MAX;
    /* four interleaved counters: runs of one byte do not chain their
     * increments through memory */
    uint32_t t[4][256];
    memset(t, 0, sizeof t);
    uint64_t i = 0;
    for (; i + 4 <= B; i += 4) {
        t[0][b[i]]++;
        t[1][b[i + 1]]++;
        t[2][b[i + 2]]++;
        t[3][b[i + 3]]++;
    }
    for (; i < B; i++) t[0][b[i]]++;
    for (unsigned k = 0; k < 256; k++) tot[k] = (uint64_t)t[0][k] + t[1][k] + t[2][k] + t[3][k];
    scz__huff_build(tot, 256, book, work);
    scz__hs_plan(book, tot, B, hi);
    return hi->size;
}

/* Sweep streams (7.10 step 3): the histograms of the last G sweeps over
 * the symbols the chunk uses (sym[0..m), idx: a symbol's place in the
 * list): H[k*m + j] counts sym[j] in the k-th sweep from the end, rest the
 * codes before the last g sweeps. */
typedef struct lz_swp {
    uint32_t m, *idx, *sym;
    uint64_t *H, *rest;
} lz_swp;

/* Histogram of codes [a, b) in the list's places (4 interleaved counters:
 * runs of one code do not chain their increments). */
static void swp_hist(const uint16_t *codes, uint64_t a, uint64_t b, const uint32_t *idx, uint32_t m, uint64_t *h,
                     uint32_t *t4) {
    memset(t4, 0, (size_t)m * 16);
    uint32_t *t0 = t4, *t1 = t4 + m, *t2 = t4 + 2 * (size_t)m, *t3 = t4 + 3 * (size_t)m;
    uint64_t i = a;
    for (; i + 4 <= b; i += 4) {
        t0[idx[codes[i]]]++;
        t1[idx[codes[i + 1]]]++;
        t2[idx[codes[i + 2]]]++;
        t3[idx[codes[i + 3]]]++;
    }
    for (; i < b; i++) t0[idx[codes[i]]]++;
    for (uint32_t j = 0; j < m; j++) h[j] = (uint64_t)t0[j] + t1[j] + t2[j] + t3[j];
}

/* The number g <= LZ1_GMAX of last sweeps (starts sw[0..S], sw[S] = n) that
 * get Huffman streams of their own, the one with the smallest sum of stream
 * sizes (the smaller g on ties); *hsz gets that sum. size0: the single
 * stream's size (g = 0), total: the histogram of all codes. With g > 0, *p
 * keeps the histograms for sweep_write (which frees them). */
static unsigned sweep_plan(const uint16_t *codes, const lz_cmap *cm, const uint64_t *sw, unsigned S, uint32_t K,
                           const uint64_t *total, uint64_t size0, scz_huff_enc *book, void *work, uint64_t *hsz,
                           lz_swp *p) {
    const unsigned G = S < LZ1_GMAX ? S : LZ1_GMAX;
    *hsz = size0;
    memset(p, 0, sizeof *p);
    if (!G) return 0;
    uint32_t m = 0;
    for (uint32_t c = 0; c < K; c++) m += total[c] != 0;
    /* idx[K], sym[m], t4[4m] (u32); rest[m], cur[m], H[G m] (u64); the
     * codes' places by their code of R: idxR[2 R + 2] (u32) */
    const uint32_t KR = cm->map ? 2 * cm->R + 2 : 0;
    uint32_t *idx = malloc((size_t)K * 4 + (size_t)m * 20 + (size_t)m * 8 * (G + 2) + 16 + (size_t)KR * 4);
    if (!idx) return 0; /* valid: one stream */
    uint32_t *sym = idx + K, *t4 = sym + m;
    uint64_t *rest = (uint64_t *)(void *)(((uintptr_t)(t4 + 4 * (size_t)m) + 7) & ~(uintptr_t)7), *cur = rest + m,
             *H = cur + m;
    for (uint32_t c = 0, j = 0; c < K; c++)
        if (total[c]) sym[j] = c, rest[j] = total[c], idx[c] = j++;
    const uint32_t *idc = idx;
    if (cm->map) {
        uint32_t *idxR = (uint32_t *)(void *)(H + (size_t)G * m);
        idxR[0] = idx[cm->map[0]];
        idxR[LZ_VNEW(cm->R)] = idx[cm->map[LZ_VNEW(cm->R)]];
        idxR[LZ_VREP(cm->R)] = idx[cm->map[LZ_VREP(cm->R)]];
        for (uint32_t c = cm->lo; c <= cm->hi; c++) idxR[c] = idx[cm->map[c]];
        idc = idxR;
    }
    uint64_t swsum = 0, best = size0;
    unsigned gb = 0;
    for (unsigned gg = 1; gg <= G; gg++) {
        uint64_t *hs = H + (size_t)(gg - 1) * m;
        const uint64_t a = sw[S - gg], b = sw[S - gg + 1];
        swp_hist(codes, a, b, idc, m, hs, t4);
        for (uint32_t j = 0; j < m; j++) rest[j] -= hs[j];
        swsum += scz__hs_size_sparse(sym, hs, m, K, b - a, book, work);
        const uint64_t tot = swsum + scz__hs_size_sparse(sym, rest, m, K, a, book, work);
        if (tot < best) best = tot, gb = gg;
    }
    *hsz = best;
    if (!gb) {
        free(idx);
        return 0;
    }
    /* rest for g = gb: the codes before the last gb sweeps */
    for (unsigned gg = G; gg > gb; gg--)
        for (uint32_t j = 0; j < m; j++) rest[j] += H[(size_t)(gg - 1) * m + j];
    p->m = m, p->idx = idx, p->sym = sym, p->H = H, p->rest = rest;
    return gb;
}

/* Writes the g + 1 Huffman streams of the sweep streams at out: codes
 * [0, sw[S-g]), then each of the last g sweeps (codebooks from p's
 * histograms); frees p's memory. */
static void sweep_write(const uint16_t *codes, const lz_cmap *cm, const uint64_t *sw, unsigned S, unsigned gs,
                        uint32_t K, lz_swp *p, int T, scz_huff_enc *book, void *work, uint8_t *out, uint8_t *gap) {
    uint64_t a = 0;
    for (unsigned j = 0; j <= gs; j++) {
        const uint64_t b = sw[S - gs + j];
        const uint64_t *h = j ? p->H + (size_t)(gs - j) * p->m : p->rest;
        scz_hs_info hi;
        scz__huff_build_sparse(p->sym, h, p->m, K, b - a, book, work, &hi);
        /* up to T ranges of at least 32768 codes (the bytes do not depend on them) */
        uint64_t rs[LZ_MAXT + 1];
        int Tw = (uint64_t)T > (b - a) / 32768 + 1 ? (int)((b - a) / 32768 + 1) : T;
        for (int t = 0; t <= Tw; t++) rs[t] = (b - a) * (uint64_t)t / (uint64_t)Tw;
        const scz_huff_enc *bk = cmap_book(cm, book);
        uint64_t rb[LZ_MAXT];
        if (Tw == 1) rb[0] = hi.total_bits;
        else
            for (int t = 0; t < Tw; t++) rb[t] = cmap_bits(bk, codes + a, rs[t], rs[t + 1]);
        scz__hs_write(&hi, bk, codes + a, 2, Tw, rs, rb, out, gap);
        out += hi.size;
        a = b;
    }
    free(p->idx);
    p->idx = NULL;
}

/* Predictor choice (7.10) from the sampled costs: *pred, *order, and the
 * alternative tried beside Lorenzo (*alt LZ_PRED_LINEAR, *alt_order) or
 * none (*alt LZ_PRED_LORENZO). */
static void lz1_choose(const lz_geo *g, unsigned es, const void *src, const lz_qp *qp, int T, unsigned *pred,
                       unsigned *order, unsigned *alt, unsigned *alt_order, unsigned *tight) {
    uint64_t c[LZ1_NCOST];
    if (es == 4) lz_estimate_f32(g, src, qp, T, c);
    else lz_estimate_f64(g, src, qp, T, c);
    lz1_choose_costs(c, g->rank, pred, order, alt, alt_order, tight);
}

static scz_status lz1_encode(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *cg, const void *src,
                             unsigned pred, unsigned order, unsigned tight, uint64_t beat, uint8_t *dst, uint64_t cap,
                             uint64_t *out, uint32_t *info);

/* Level 1 (7.10): the predictor by the estimate, or the smaller payload of
 * Lorenzo and an interpolation where the estimate is not sure. */
static scz_status lz1_compress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *cg, const void *src,
                               uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t *info) {
    if (cg->count > UINT32_MAX - 1)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lossy: chunks of more than 2^32-2 elements");
    if (lz_check_fenv(ctx, 1)) return SCZ_ERR_UNSUPPORTED;
    lz_geo g;
    geo_extents(cg, &g);
    lz_qp qp;
    qp.eb = h->eb_abs;
    qp.ebx2 = 2.0 * h->eb_abs;
    qp.recip = qp.ebx2 > 0 ? 1.0 / qp.ebx2 : INFINITY;
    qp.radius = h->knobs[0];
    /* PSNR: the rule of 7.1 measured the errors of prequantization, which
     * the interpolation predictors do not use: Lorenzo only */
    unsigned pred = LZ_PRED_LORENZO, order = 0, alt = LZ_PRED_LORENZO, alt_order = 0, tight = 0;
    int T = scz__threads(ctx);
    if (T > LZ_MAXT) T = LZ_MAXT;
    if (h->eb_mode != SCZ_EB_PSNR) lz1_choose(&g, cg->esize, src, &qp, T, &pred, &order, &alt, &alt_order, &tight);
    scz_status st = lz1_encode(ctx, h, cg, src, pred, order, tight, UINT64_MAX, dst, cap, out, info);
    if (st || alt == LZ_PRED_LORENZO) return st;
    /* the alternative replaces the payload in dst only if it is smaller
     * (Lorenzo on ties): a larger one is sized, not written */
    uint64_t size2 = 0;
    uint32_t info2 = 0;
    st = lz1_encode(ctx, h, cg, src, alt, alt_order, tight, *out, dst, cap, &size2, &info2);
    if (!st && size2 < *out) {
        *out = size2;
        *info = info2;
    }
    return st;
}

/* White-box trace of lz1_encode (lossy_debug.h): NULL but in
 * scz__lossy1_debug_encode. */
static _Thread_local scz_l1trace *lz1_trace;

/* The chunk's radius (7.10 step 2): 1 + the largest |error| coded inside
 * R (1 if none), from [lo, hi] the in-range codes of radius R used (none:
 * lo > hi); lz1_radius finds [*lo, *hi] in the histogram tot[2R + 2]. */
static uint32_t lz1_radius_lohi(uint32_t lo, uint32_t hi, uint32_t R) {
    if (lo > hi) return 1;
    const uint32_t mlo = lo > R ? lo - R : R - lo, mhi = hi > R ? hi - R : R - hi;
    return (mlo > mhi ? mlo : mhi) + 1;
}
static uint32_t lz1_radius(const uint64_t *tot, uint32_t R, uint32_t *plo, uint32_t *phi) {
    uint32_t lo = 1, hi = 2 * R - 1;
    while (lo <= hi && !tot[lo]) lo++;
    while (hi >= lo && !tot[hi]) hi--;
    *plo = lo;
    *phi = hi;
    return lz1_radius_lohi(lo, hi, R);
}

/* A stored chunk (stored) as lz1_encode's payload: written only if its
 * size is below beat, else sized (the checks of stored either way). */
static scz_status lz1_stored(scz_ctx *ctx, const scz_chunk_geom *cg, const void *src, uint64_t beat, uint8_t *dst,
                             uint64_t cap, uint64_t *out, uint32_t *info) {
    const uint64_t size = LZ_HDR + cg->count * cg->esize;
    if (size < beat) return stored(ctx, cg, src, dst, cap, out, info);
    if (cap < size) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "lossy: chunk does not fit");
    *out = size;
    *info = LZ_WF_STORED;
    return SCZ_OK;
}

/* One level-1 payload of predictor pred (7.10 steps 2-3) at dst[0..cap):
 * *out its size, *info its workflow. The payload is written only if its
 * size is below beat (UINT64_MAX: always); else only *out and *info are
 * set, after the same checks (the trial's losing candidate). */
static scz_status lz1_encode(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *cg, const void *src,
                             unsigned pred, unsigned order, unsigned tight, uint64_t beat, uint8_t *dst, uint64_t cap,
                             uint64_t *out, uint32_t *info) {
    const uint64_t n = cg->count;
    const unsigned es = cg->esize;
    lz_geo g;
    geo_extents(cg, &g);
    const uint32_t R = h->knobs[0], KR = 2 * R + 2;
    if (pred == LZ_PRED_LORENZO) tight = 0;
    lz_qp qp;
    qp.eb = h->eb_abs;
    qp.ebx2 = 2.0 * h->eb_abs;
    qp.recip = qp.ebx2 > 0 ? 1.0 / qp.ebx2 : INFINITY;
    qp.radius = R;
    unsigned lb[3] = {0, 0, 0};
    if (pred == LZ_PRED_LORENZO)
        for (unsigned d = 0; d < 3; d++) lb[d] = lz_block_log2[g.rank][d];
    geo_blocks(&g, lb);
    int T = pick_threads(ctx, pred == LZ_PRED_LORENZO ? g.nblocks : n, n);

    size_t o_codes = 0, o_hist = al64(2 * (size_t)n + 16);
    size_t o_hist2 = o_hist + al64((size_t)T * KR * 4);
    size_t o_tot = o_hist2 + al64((size_t)T * KR * 4);
    size_t o_book = o_tot + al64((size_t)SCZ_HUFF_MAX_K * 8 * 3);
    size_t o_book2 = o_book + al64(sizeof(scz_huff_enc));
    size_t o_book3 = o_book2 + al64(sizeof(scz_huff_enc));
    size_t o_book4 = o_book3 + al64(sizeof(scz_huff_enc));
    size_t o_book5 = o_book4 + al64(sizeof(scz_huff_enc));
    size_t o_work = o_book5 + al64(sizeof(scz_huff_enc));
    size_t o_gap = o_work + al64(scz__huff_work_size(SCZ_HUFF_MAX_K));
    size_t o_rh = o_gap + al64((size_t)(16 * n / SCZ_HUFF_UNIT_BITS) + 16);
    /* rh: T histograms of 65536 (the run-length streams), before them the
     * interpolation's three extra histograms of KR (one thread) */
    size_t o_map = o_rh + al64((size_t)(T > 3 ? T : 3) * 65536 * 4);
    size_t need0 = o_map + al64((size_t)KR * 2);
    uint8_t *w0 = scz__scratch(ctx, 0, need0);
    size_t s_oidx = 0, s_odel = al64(4 * (size_t)n), s_vpos = s_odel + al64(8 * (size_t)n);
    size_t s_vals = s_vpos + al64(4 * (size_t)n), s_lens = s_vals + al64(2 * (size_t)n);
    size_t s_bnd = s_lens + al64(2 * (size_t)n), need1 = s_bnd + al64(4 * (size_t)n);
    uint8_t *w1 = w0 ? scz__scratch(ctx, 1, need1) : NULL;
    uint8_t *w2 = NULL;
    if (w1 && pred != LZ_PRED_LORENZO) w2 = scz__scratch(ctx, 2, al64(8 * (size_t)n));
    if (!w0 || !w1 || (pred != LZ_PRED_LORENZO && !w2))
        return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory for a chunk of %llu elements",
                         (unsigned long long)n);
    uint16_t *codes = (uint16_t *)(w0 + o_codes);
    uint32_t *hist = (uint32_t *)(w0 + o_hist), *hist2 = (uint32_t *)(w0 + o_hist2);
    uint64_t *total = (uint64_t *)(w0 + o_tot);
    uint64_t *total2 = total + SCZ_HUFF_MAX_K, *total3 = total2 + SCZ_HUFF_MAX_K;
    scz_huff_enc *book = (scz_huff_enc *)(w0 + o_book);
    uint32_t *oidx = (uint32_t *)(w1 + s_oidx);
    int64_t *odel = (int64_t *)(w1 + s_odel);
    uint32_t *vpos = (uint32_t *)(w1 + s_vpos);

    /* 1. prequantize, predict, classify with the largest radius R */
    lz_tstate ts[LZ_MAXT];
    memset(ts, 0, sizeof ts);
    if (pred == LZ_PRED_LORENZO) {
        lorenzo_ranges(&g, src, &qp, es, T, hist, KR, ts, codes, oidx, odel, vpos);
    } else {
        /* code ranges [c0, c1) per thread, as Lorenzo's: their lists,
         * histograms and verbatim state (interp_encode) */
        double *Rv = (double *)w2;
        for (int t = 0; t < T; t++) {
            ts[t].c0 = n * (uint64_t)t / (uint64_t)T;
            ts[t].c1 = n * (uint64_t)(t + 1) / (uint64_t)T;
            ts[t].hist = hist + (size_t)t * KR;
            memset(ts[t].hist, 0, (size_t)KR * 4);
        }
        const int cub = pred == LZ_PRED_CUBIC;
        uint32_t *hx = (uint32_t *)(w0 + o_rh);
        if (es == 4) interp_encode_f32(&g, src, &qp, cub, order, (int)tight, T, ts, codes, oidx, odel, vpos, Rv, hx);
        else interp_encode_f64(&g, src, &qp, cub, order, (int)tight, T, ts, codes, oidx, odel, vpos, Rv, hx);
    }
    uint64_t n_out, n_vnew, obytes;
    join_ranges(ts, T, codes, oidx, odel, R, &n_out, &n_vnew, &obytes);

    /* 2. the chunk's radius: 1 + the largest |error| coded inside R; codes
     * and histograms mapped to its alphabet */
    /* the in-range codes used lie in [lo, hi] (none: lo > hi); the radius
     * from the farther end; only those codes and 0, V_new, V_repeat occur
     * (one thread: its histogram is the total) */
    uint32_t lo = 1, hi = 2 * R - 1;
    if (T == 1) {
        while (lo <= hi && !hist[lo]) lo++;
        while (hi >= lo && !hist[hi]) hi--;
    } else {
        scz__hist_reduce(hist, T, KR, total3, NULL, NULL);
        while (lo <= hi && !total3[lo]) lo++;
        while (hi >= lo && !total3[hi]) hi--;
    }
    const uint32_t r = lz1_radius_lohi(lo, hi, R);
    const uint32_t K = 2 * r + 2;
    uint16_t *map = (uint16_t *)(w0 + o_map);
    map[0] = 0;
    map[LZ_VNEW(R)] = (uint16_t)LZ_VNEW(r);
    map[LZ_VREP(R)] = (uint16_t)LZ_VREP(r);
    for (uint32_t c = lo; c <= hi; c++) map[c] = (uint16_t)(c - R + r); /* |c - R| < r */
    /* the codes stay those of R; the writers read them through cm */
    lz_cmap cm = {r != R ? map : NULL, lo, hi, R, (scz_huff_enc *)(w0 + o_book5)};
    for (int t = 0; t < T; t++) {
        uint32_t *hs = hist + (size_t)t * KR, *hd = hist2 + (size_t)t * K;
        memset(hd, 0, (size_t)K * 4);
        hd[0] += hs[0];
        hd[LZ_VNEW(r)] += hs[LZ_VNEW(R)];
        hd[LZ_VREP(r)] += hs[LZ_VREP(R)];
        for (uint32_t c = lo; c <= hi; c++) hd[map[c]] += hs[c];
    }

    /* 3. Huffman codebook of the codes */
    uint64_t rs[LZ_MAXT + 1], rb[LZ_MAXT];
    for (int t = 0; t < T; t++) rs[t] = ts[t].c0;
    rs[T] = n;
    scz__hist_reduce(hist2, T, K, total, NULL, NULL);
    scz__huff_build(total, K, book, w0 + o_work);
    scz__hist_reduce(hist2, T, K, NULL, book, rb);
    scz_hs_info hc;
    scz__hs_plan(book, total, n, &hc);

    /* 4. sweep streams of an interpolated chunk's Huffman workflow */
    uint64_t sw[LZ1_MAX_SWEEPS + 1], hsz = hc.size;
    unsigned S = 0, gs = 0;
    lz_swp swp;
    memset(&swp, 0, sizeof swp);
    scz_huff_enc *bookb = (scz_huff_enc *)(w0 + o_book4);
    if (pred != LZ_PRED_LORENZO && h->knobs[1] != 2) {
        S = lz_sweep_starts(&g, order, sw);
        gs = sweep_plan(codes, &cm, sw, S, K, total, hc.size, bookb, w0 + o_work, &hsz, &swp);
    }

    /* 4b. run-length candidate (the criterion of 7.5) */
    lz_rle rl;
    memset(&rl, 0, sizeof rl);
    rl.vals = (uint16_t *)(w1 + s_vals);
    rl.lens = (uint16_t *)(w1 + s_lens);
    rl.bookv = (scz_huff_enc *)(w0 + o_book2);
    rl.bookl = (scz_huff_enc *)(w0 + o_book3);
    rle_plan(ctx, h, codes, cm.map, n, T, K, &hc, (uint32_t *)(w1 + s_bnd), (uint32_t *)(w0 + o_rh),
             (uint64_t)(T > 3 ? T : 3) * 65536, total2, w0 + o_work, &rl);

    /* level 1 (7.10 step 3): the run-length body only where its section is
     * at most 21/20 of the Huffman section (run-length never won above
     * 0.99 on the data fields: the back end favours the Huffman body) */
    const int rl_formed = rl.on;
    if (rl.on && h->knobs[1] == 0 && (uint64_t)LZ1_RLE_NUM * rle_size(&rl) > (uint64_t)LZ1_RLE_DEN * hsz) rl.on = 0;
    if (rl.on && rl.pending) rle_fill(&rl, codes, cm.map, n);
    if (lz1_trace) {
        lz1_trace->r = r, lz1_trace->S = S, lz1_trace->g = gs, lz1_trace->rle = (uint32_t)rl.on;
        lz1_trace->size0 = hc.size, lz1_trace->bits0 = hc.total_bits, lz1_trace->hsz = hsz;
        lz1_trace->rformed = (uint32_t)rl_formed, lz1_trace->rsz = rl_formed ? rle_size(&rl) : 0;
    }

    /* 5. bodies (workflow section, outliers, verbatim values), the back
     * end of each, the smallest final payload */
    const uint64_t tail = obytes + n_vnew * es;
    const uint64_t bh = hsz + tail, br = rl.on ? rle_size(&rl) + tail : 0;
    if (lz1_trace) lz1_trace->obytes = obytes, lz1_trace->nvnew = n_vnew, lz1_trace->bh = bh, lz1_trace->br = br;
    /* a body above twice the raw chunk is not formed (7.10 step 3): the
     * bound keeps a writer's bodies within twice the raw bytes */
    const uint64_t bcap = LZ1_BODY_CAP * n * es;
    const int fmh = h->knobs[1] != 2 && bh <= bcap, fmr = rl.on && br <= bcap;
    const uint64_t bhf = fmh ? bh : 0, brf = fmr ? br : 0;
    uint64_t gapb = 16 * ((bhf > brf ? bhf : brf) * 8 / SCZ_HUFF_UNIT_BITS + 2);
    /* slot 2 (the interpolation's R, no longer needed; slot 3 holds the
     * caller's chunk table) */
    uint8_t *w3 = scz__scratch(ctx, 2, al64(bhf) + al64(brf) + al64(gapb));
    if (!w3) {
        free(swp.idx);
        return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory for a chunk's body");
    }
    uint8_t *bodyh = w3, *bodyr = w3 + al64(bhf), *gtmp = w3 + al64(bhf) + al64(brf);
    const uint8_t *sb = src;
    if (fmh) {
        if (gs) sweep_write(codes, &cm, sw, S, gs, K, &swp, T, bookb, w0 + o_work, bodyh, w0 + o_gap);
        else scz__hs_write(&hc, cmap_book(&cm, book), codes, 2, T, rs, rb, bodyh, w0 + o_gap);
        write_tail(bodyh + hsz, obytes, ts, T, oidx, odel, vpos, sb, es);
        if (lz1_trace && lz1_trace->body && bh <= lz1_trace->body_cap) memcpy(lz1_trace->body, bodyh, bh);
    } else {
        free(swp.idx); /* sweep_write frees it */
        swp.idx = NULL;
    }
    if (fmr) {
        rle_write(&rl, bodyr, w0 + o_gap);
        write_tail(bodyr + rle_size(&rl), obytes, ts, T, oidx, odel, vpos, sb, es);
        if (lz1_trace && lz1_trace->rbody && br <= lz1_trace->body_cap) memcpy(lz1_trace->rbody, bodyr, br);
    }
    uint64_t *btot = total2; /* free again */
    /* the back end's codebooks: the Huffman body's in bookb, the
     * run-length body's in the run values' book (written above) */
    scz_hs_info bi_h, bi_r;
    scz_huff_enc *bookr = rl.bookv;
    uint64_t fh = UINT64_MAX, fr = UINT64_MAX, eh = UINT64_MAX, er = UINT64_MAX;
    if (fmh) {
        eh = be_plan(bodyh, bh, btot, bookb, w0 + o_work, &bi_h);
        fh = eh < bh ? eh : bh;
    }
    if (fmr) {
        er = be_plan(bodyr, br, btot, bookr, w0 + o_work, &bi_r);
        fr = er < br ? er : br;
    }
    if (!fmh && !fmr) return lz1_stored(ctx, cg, src, beat, dst, cap, out, info);
    const unsigned wf = fr < fh ? LZ_WF_RLE : LZ_WF_HUFFMAN;
    const uint8_t *body = wf == LZ_WF_RLE ? bodyr : bodyh;
    const uint64_t blen = wf == LZ_WF_RLE ? br : bh, esz = wf == LZ_WF_RLE ? er : eh;
    const unsigned be = esz < blen ? LZ_BE_HUFF : LZ_BE_NONE;
    const uint64_t total_size = LZ1_HDR + (be ? esz : blen);
    if (total_size >= LZ_HDR + n * es) return lz1_stored(ctx, cg, src, beat, dst, cap, out, info);
    if (total_size > cap) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "lossy: chunk does not fit");
    *out = total_size;
    *info = wf;
    if (total_size >= beat) return SCZ_OK;
    put_hdr(dst, wf, &g, (uint32_t)n_out, (uint32_t)n_vnew, obytes);
    dst[5] = (uint8_t)pred;
    dst[6] = (uint8_t)be;
    dst[7] = (uint8_t)order;
    scz__st32(dst + 24, r);
    scz__st32(dst + 28, 0);
    dst[28] = (uint8_t)(wf == LZ_WF_HUFFMAN ? gs : 0);
    dst[29] = (uint8_t)tight;
    if (be) {
        uint64_t r0[2] = {0, blen};
        if (wf == LZ_WF_RLE) scz__hs_write(&bi_r, bookr, body, 1, 1, r0, NULL, dst + LZ1_HDR, gtmp);
        else scz__hs_write(&bi_h, bookb, body, 1, 1, r0, NULL, dst + LZ1_HDR, gtmp);
    } else {
        memcpy(dst + LZ1_HDR, body, blen);
    }
    return SCZ_OK;
}

static scz_status lz_compress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *cg, const void *src,
                              uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t *info) {
    if (h->knobs[2]) return lz1_compress(ctx, h, cg, src, dst, cap, out, info);
    const uint64_t n = cg->count;
    const unsigned es = cg->esize;
    if (n > UINT32_MAX - 1)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lossy: chunks of more than 2^32-2 elements");
    if (lz_check_fenv(ctx, 0)) return SCZ_ERR_UNSUPPORTED;
    lz_geo g;
    geo_extents(cg, &g);
    unsigned lb[3] = {lz_block_log2[g.rank][0], lz_block_log2[g.rank][1], lz_block_log2[g.rank][2]};
    geo_blocks(&g, lb);
    const uint32_t r = h->knobs[0], K = 2 * r + 2;
    lz_qp qp;
    qp.eb = h->eb_abs;
    qp.ebx2 = 2.0 * h->eb_abs;
    qp.recip = qp.ebx2 > 0 ? 1.0 / qp.ebx2 : INFINITY; /* 0: every value verbatim */
    qp.radius = r;
    int T = pick_threads(ctx, g.nblocks, n);

    /* scratch: slot 0 codes + histograms + codebooks; slot 1 staging */
    size_t o_codes = 0, o_hist = al64(2 * (size_t)n + 16);
    size_t o_tot = o_hist + al64((size_t)T * K * 4);
    size_t o_book = o_tot + al64((size_t)SCZ_HUFF_MAX_K * 8 * 2);
    size_t o_book2 = o_book + al64(sizeof(scz_huff_enc));
    size_t o_book3 = o_book2 + al64(sizeof(scz_huff_enc));
    size_t o_work = o_book3 + al64(sizeof(scz_huff_enc));
    size_t o_gap = o_work + al64(scz__huff_work_size(SCZ_HUFF_MAX_K));
    size_t o_rh = o_gap + al64((size_t)(16 * n / SCZ_HUFF_UNIT_BITS) + 16);
    size_t need0 = o_rh + al64((size_t)T * 65536 * 4);
    uint8_t *w0 = scz__scratch(ctx, 0, need0);
    size_t s_oidx = 0, s_odel = al64(4 * (size_t)n), s_vpos = s_odel + al64(8 * (size_t)n);
    size_t s_vals = s_vpos + al64(4 * (size_t)n), s_lens = s_vals + al64(2 * (size_t)n);
    size_t s_bnd = s_lens + al64(2 * (size_t)n), need1 = s_bnd + al64(4 * (size_t)n);
    uint8_t *w1 = w0 ? scz__scratch(ctx, 1, need1) : NULL;
    if (!w0 || !w1) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory for a chunk of %llu elements",
                                     (unsigned long long)n);
    uint16_t *codes = (uint16_t *)(w0 + o_codes);
    uint32_t *hist = (uint32_t *)(w0 + o_hist);
    uint64_t *total = (uint64_t *)(w0 + o_tot);
    uint64_t *total2 = total + SCZ_HUFF_MAX_K;
    scz_huff_enc *book = (scz_huff_enc *)(w0 + o_book);
    uint32_t *oidx = (uint32_t *)(w1 + s_oidx);
    int64_t *odel = (int64_t *)(w1 + s_odel);
    uint32_t *vpos = (uint32_t *)(w1 + s_vpos);

    /* 1. prequantize, predict, classify: one contiguous block range per thread */
    lz_tstate ts[LZ_MAXT];
    memset(ts, 0, sizeof ts);
    lorenzo_ranges(&g, src, &qp, es, T, hist, K, ts, codes, oidx, odel, vpos);
    uint64_t n_out, n_vnew, obytes;
    join_ranges(ts, T, codes, oidx, odel, r, &n_out, &n_vnew, &obytes);

    /* 2. Huffman codebook of the codes */
    uint64_t rs[LZ_MAXT + 1], rb[LZ_MAXT];
    for (int t = 0; t < T; t++) rs[t] = ts[t].c0;
    rs[T] = n;
    scz__hist_reduce(hist, T, K, total, NULL, NULL);
    scz__huff_build(total, K, book, w0 + o_work);
    scz__hist_reduce(hist, T, K, NULL, book, rb);
    scz_hs_info hc;
    scz__hs_plan(book, total, n, &hc);
    uint64_t size_huff = hc.size;

    /* 3. workflow */
    unsigned wf = LZ_WF_HUFFMAN;
    lz_rle rl;
    rl.vals = (uint16_t *)(w1 + s_vals);
    rl.lens = (uint16_t *)(w1 + s_lens);
    rl.bookv = (scz_huff_enc *)(w0 + o_book2);
    rl.bookl = (scz_huff_enc *)(w0 + o_book3);
    rle_plan(ctx, h, codes, NULL, n, T, K, &hc, (uint32_t *)(w1 + s_bnd), (uint32_t *)(w0 + o_rh),
             (uint64_t)T * 65536, total2, w0 + o_work, &rl);
    if (rl.on && (h->knobs[1] == 2 || rle_size(&rl) < size_huff)) wf = LZ_WF_RLE;
    if (wf == LZ_WF_RLE && rl.pending) rle_fill(&rl, codes, NULL, n);
    uint64_t csize = wf == LZ_WF_HUFFMAN ? size_huff : rle_size(&rl);
    uint64_t total_size = LZ_HDR + csize + obytes + n_vnew * es;
    if (total_size >= LZ_HDR + n * es) return stored(ctx, cg, src, dst, cap, out, info);
    if (total_size > cap) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "lossy: chunk does not fit");

    /* 4. write */
    put_hdr(dst, wf, &g, (uint32_t)n_out, (uint32_t)n_vnew, obytes);
    uint8_t *p = dst + LZ_HDR;
    if (wf == LZ_WF_HUFFMAN) {
        scz__hs_write(&hc, book, codes, 2, T, rs, rb, p, w0 + o_gap);
    } else {
        rle_write(&rl, p, w0 + o_gap);
    }
    p += csize;
    write_tail(p, obytes, ts, T, oidx, odel, vpos, src, es);
    *out = total_size;
    *info = wf;
    return SCZ_OK;
}

/* Decodes the body of a chunk (FORMAT.md 7.7 from offset 24: workflow
 * section, outlier list, verbatim values) of size blen at body, radius r,
 * predictor pred, blocks of g. */
static scz_status lz_decode_body(scz_ctx *ctx, const scz_header *h, const lz_geo *gp, unsigned es, unsigned wf,
                                 uint32_t n_out, uint32_t n_verb, uint64_t obytes, const uint8_t *body,
                                 uint64_t blen, uint32_t r, unsigned pred, unsigned order, unsigned gs,
                                 unsigned tight, double *Rv, void *dst) {
    const lz_geo g = *gp;
    const uint64_t n = g.n;
    const uint32_t K = 2 * r + 2;
    if (n_out > n || n_verb > n || obytes > blen || (uint64_t)n_out * 2 > obytes)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outlier or verbatim counts out of range");
    int T = scz__threads(ctx);
    if (T > LZ_MAXT) T = LZ_MAXT;

    size_t o_codes = 0, o_dec = al64(2 * (size_t)n + 16), need0 = o_dec + al64(sizeof(scz_huff_dec));
    uint8_t *w0 = scz__scratch(ctx, 0, need0);
    if (!w0) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory");
    uint16_t *codes = (uint16_t *)(w0 + o_codes);
    scz_huff_dec *dec = (scz_huff_dec *)(w0 + o_dec);
    uint64_t pos = 0, used;
    scz_status st;
    uint8_t *w1;
    if (wf == LZ_WF_HUFFMAN && gs) {
        /* sweep streams (7.9): codes [0, sw[S-gs]), then each of the last gs sweeps */
        uint64_t sw[LZ1_MAX_SWEEPS + 1], a = 0;
        const unsigned S = lz_sweep_starts(&g, order, sw);
        for (unsigned j = 0; j <= gs; j++) {
            const uint64_t b = sw[S - gs + j];
            if ((st = scz__hs_read(ctx, body + pos, blen - pos, K, b - a, dec, codes + a, 2, T, &used))) return st;
            pos += used;
            a = b;
        }
        w1 = scz__scratch(ctx, 1, al64(4 * (size_t)n_out + 8) + al64(8 * (size_t)n_out + 8));
        if (!w1) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory");
    } else if (wf == LZ_WF_HUFFMAN) {
        if ((st = scz__hs_read(ctx, body + pos, blen - pos, K, n, dec, codes, 2, T, &used))) return st;
        pos += used;
        w1 = scz__scratch(ctx, 1, al64(4 * (size_t)n_out + 8) + al64(8 * (size_t)n_out + 8));
        if (!w1) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory");
    } else {
        if (blen - pos < 4) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk truncated");
        uint64_t nruns = scz__ld32(body + pos);
        pos += 4;
        if (nruns < 1 || nruns > n) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: %llu runs", (unsigned long long)nruns);
        size_t a = al64(4 * (size_t)n_out + 8), b = a + al64(8 * (size_t)n_out + 8);
        size_t c = b + al64(2 * (size_t)nruns), d = c + al64(2 * (size_t)nruns), e = d + al64(4 * (size_t)nruns);
        w1 = scz__scratch(ctx, 1, e);
        if (!w1) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory");
        uint16_t *vals = (uint16_t *)(w1 + b), *lens = (uint16_t *)(w1 + c);
        if ((st = scz__hs_read(ctx, body + pos, blen - pos, K, nruns, dec, vals, 2, T, &used))) return st;
        pos += used;
        if ((st = scz__hs_read(ctx, body + pos, blen - pos, 65536, nruns, dec, lens, 2, T, &used))) return st;
        pos += used;
        if (scz__rle_decode(vals, lens, nruns, LZ_MAX_RUN, codes, n, T, (uint32_t *)(w1 + d)))
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: runs do not cover the chunk");
    }
    uint32_t *oidx = (uint32_t *)w1;
    int64_t *odel = (int64_t *)(w1 + al64(4 * (size_t)n_out + 8));
    if (obytes > blen - pos || blen - pos - obytes != (uint64_t)n_verb * es)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: section sizes do not add up");
    {
        const uint8_t *q = body + pos, *qe = q + obytes;
        uint64_t prev = 0;
        for (uint32_t j = 0; j < n_out; j++) {
            uint64_t gap, z;
            if (!(q = scz__get_varint(q, qe, &gap)) || !(q = scz__get_varint(q, qe, &z)))
                return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outlier list truncated");
            if (gap >= n - prev) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outlier index out of range");
            int64_t dl = unzigzag(z);
            if (dl > -(int64_t)r && dl < (int64_t)r)
                return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outlier inside the radius");
            oidx[j] = (uint32_t)(prev + gap);
            odel[j] = dl;
            prev += gap + 1;
        }
        if (q != qe) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outlier list has trailing bytes");
        pos += obytes;
    }
    const uint8_t *vvals = body + pos;
    lz_qp qp;
    qp.eb = h->eb_abs;
    qp.ebx2 = 2.0 * h->eb_abs;
    qp.recip = 0;
    qp.radius = r;

    if (pred != LZ_PRED_LORENZO) {
        const int cub = pred == LZ_PRED_CUBIC;
        int64_t *Dv = (int64_t *)(Rv + n);
        const int Tp = (uint64_t)T > n / 32768 + 1 ? (int)(n / 32768 + 1) : T;
        int bad = es == 4 ? interp_decode_f32(&g, dst, &qp, cub, order, (int)tight, Tp, codes, oidx, odel, n_out, vvals,
                                              n_verb, Rv, Dv)
                          : interp_decode_f64(&g, dst, &qp, cub, order, (int)tight, Tp, codes, oidx, odel, n_out, vvals,
                                              n_verb, Rv, Dv);
        if (bad)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outliers or verbatim values do not match the codes");
        return SCZ_OK;
    }

    /* ranges; the first verbatim code overall must be V_new */
    if ((uint64_t)T > g.nblocks) T = (int)g.nblocks;
    if ((uint64_t)T > n / 32768 + 1) T = (int)(n / 32768 + 1);
    lz_dstate ds[LZ_MAXT];
    for (int t = 0; t < T; t++) {
        ds[t].b0 = g.nblocks * (uint64_t)t / (uint64_t)T;
        ds[t].b1 = g.nblocks * (uint64_t)(t + 1) / (uint64_t)T;
        ds[t].c0 = block_code_start(&g, ds[t].b0);
        ds[t].c1 = block_code_start(&g, ds[t].b1);
    }
    uint64_t vcount[LZ_MAXT];
    const uint16_t vnew = (uint16_t)LZ_VNEW(r), vrep = (uint16_t)LZ_VREP(r);
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
    for (int t = 0; t < T; t++) {
        uint64_t c = 0;
        int first = 0;
        for (uint64_t i = ds[t].c0; i < ds[t].c1; i++) {
            uint16_t x = codes[i];
            c += x == vnew;
            if (!first && (x == vnew || x == vrep)) first = x == vnew ? 1 : 2;
        }
        vcount[t] = c;
        ds[t].first_verb = first;
    }
    uint64_t vsum = 0;
    int seen = 0;
    for (int t = 0; t < T; t++) {
        if (!seen && ds[t].first_verb == 2)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: a repeated verbatim value before any value");
        seen |= ds[t].first_verb != 0;
        ds[t].v0 = vsum;
        vsum += vcount[t];
        ds[t].v1 = vsum;
    }
    if (vsum != n_verb) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: verbatim count mismatch");
    for (int t = 0; t < T; t++) { /* outlier range of each code range */
        uint64_t lo = 0, hi = n_out;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (oidx[mid] < ds[t].c0) lo = mid + 1;
            else hi = mid;
        }
        ds[t].o0 = lo;
        if (t) ds[t - 1].o1 = lo;
    }
    ds[T - 1].o1 = n_out;
    int bad = 0;
#pragma omp parallel for schedule(static, 1) num_threads(T) reduction(| : bad) if (T > 1)
    for (int t = 0; t < T; t++) {
        if (es == 4) bad |= decompress_range_f32(&g, dst, &qp, &ds[t], codes, oidx, odel, n_out, vvals, n_verb);
        else bad |= decompress_range_f64(&g, dst, &qp, &ds[t], codes, oidx, odel, n_out, vvals, n_verb);
    }
    if (bad) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: outliers or verbatim values do not match the codes");
    return SCZ_OK;
}

static scz_status lz_decompress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *cg, const uint8_t *src,
                                uint64_t size, uint32_t info, void *dst) {
    const uint64_t n = cg->count;
    const unsigned es = cg->esize;
    const unsigned level = h->knobs[2];
    if (lz_check_fenv(ctx, level)) return SCZ_ERR_UNSUPPORTED;
    if (size < LZ_HDR) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk shorter than its header");
    unsigned wf = src[0];
    if (wf != info || wf > LZ_WF_RLE)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: workflow %u (table says %u)", wf, info);
    uint32_t n_out = scz__ld32(src + 8), n_verb = scz__ld32(src + 12);
    uint64_t obytes = scz__ld64(src + 16);
    if (wf == LZ_WF_STORED) {
        if (src[1] || src[2] || src[3] || src[4] || src[5] || src[6] || src[7] || n_out || n_verb || obytes ||
            size != LZ_HDR + n * es)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "stored lossy chunk is malformed");
        memcpy(dst, src + LZ_HDR, n * es);
        return SCZ_OK;
    }
    unsigned pred = LZ_PRED_LORENZO, be = LZ_BE_NONE, order = 0, gs = 0, tight = 0;
    uint32_t r = h->knobs[0];
    if (level == 0) {
        for (int i = 5; i < 8; i++)
            if (src[i]) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: reserved byte is not zero");
    } else {
        if (size < LZ1_HDR) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk shorter than its header");
        pred = src[5];
        be = src[6];
        order = src[7];
        r = scz__ld32(src + 24);
        gs = src[28];
        tight = src[29];
        if (pred > LZ_PRED_CUBIC || be > LZ_BE_HUFF || order >= (pred != LZ_PRED_LORENZO ? LZ1_MAX_ORDERS : 1) ||
            tight > (pred != LZ_PRED_LORENZO) || src[30] || src[31] ||
            (gs && (pred == LZ_PRED_LORENZO || wf != LZ_WF_HUFFMAN)))
            return scz__fail(ctx, SCZ_ERR_CORRUPT,
                             "lossy chunk: invalid predictor, back end, axis order, sweep streams, level bounds or reserved bytes");
        if (r < 1 || r > h->knobs[0])
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: radius %u (stream limit %u)", r, h->knobs[0]);
    }
    if (n > UINT32_MAX - 1) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk too large");
    lz_geo g;
    geo_extents(cg, &g);
    unsigned lb[3] = {src[2], src[3], src[4]}, lsum = 0;
    if (src[1] != g.rank) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: coding rank %u, expected %u", src[1], g.rank);
    for (unsigned d = 0; d < 3; d++) {
        int ok = pred != LZ_PRED_LORENZO ? lb[d] == 0
                 : d < g.rank            ? lb[d] >= 1 && lb[d] <= LZ_MAX_BLOCK_LOG2
                                         : lb[d] == 0;
        if (!ok) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: invalid block shape");
        lsum += lb[d];
    }
    if (lsum > LZ_MAX_BLOCK_LOG2) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: block too large");
    geo_blocks(&g, lb);
    if (order >= lz1_norders(g.rank))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: axis order %u for rank %u", order, g.rank);
    if (gs) {
        uint64_t sw[LZ1_MAX_SWEEPS + 1];
        if (gs > lz_sweep_starts(&g, order, sw))
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: %u sweep streams", gs);
    }
    const uint64_t hdr = level ? LZ1_HDR : LZ_HDR;
    const uint8_t *body = src + hdr;
    uint64_t blen = size - hdr;
    /* slot 2 (slot 3 may hold the caller's chunk table): the back end's
     * body, then the interpolation's reconstructed values */
    uint64_t B = 0;
    if (be == LZ_BE_HUFF) {
        /* the body's bytes as a Huffman stream (K = 256): at most 8 symbols per byte of stream */
        if (blen < SCZ_HUFF_HDR_BYTES) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: back end truncated");
        B = scz__ld32(body + 4);
        if (B < 1 || B > 8 * blen) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: back end of %llu bytes",
                                                    (unsigned long long)B);
    }
    size_t o_r = be == LZ_BE_HUFF ? al64(B) + al64(sizeof(scz_huff_dec)) : 0;
    size_t need2 = o_r + (pred != LZ_PRED_LORENZO ? 16 * (size_t)n + 64 : 0); /* R and Dv */
    uint8_t *w2 = need2 ? scz__scratch(ctx, 2, need2) : NULL;
    if (need2 && !w2) return scz__fail(ctx, SCZ_ERR_NOMEM, "lossy: out of memory");
    double *Rv = pred != LZ_PRED_LORENZO ? (double *)(w2 + o_r) : NULL;
    if (be == LZ_BE_HUFF) {
        uint64_t used;
        scz_status st = scz__hs_read(ctx, body, blen, 256, B, (scz_huff_dec *)(w2 + al64(B)), w2, 1,
                                     scz__threads(ctx), &used);
        if (st) return st;
        if (used != blen) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lossy chunk: bytes after the back end's stream");
        body = w2;
        blen = B;
    }
    return lz_decode_body(ctx, h, &g, es, wf, n_out, n_verb, obytes, body, blen, r, pred, order, gs, tight, Rv, dst);
}

/* The PSNR rule's passes computed elsewhere (the GPU, lossy_enc.cu): the
 * candidate bound and the error scale of the pass in progress, and the end
 * of a pass from its sum S (FORMAT.md 7.1 step 3, the same order of
 * operations) over `fin` finite values. */
void scz__lossy_pass_params(const void *pass, double *eb, double *scale) {
    const lz_psnr *ps = pass;
    *eb = ps->eb;
    *scale = ps->scale;
}

scz_status scz__lossy_pass_end_sum(scz_ctx *ctx, void *pass, scz_header *h, double sum, uint64_t fin, int *again) {
    (void)ctx;
    lz_psnr *ps = pass;
    psnr_step(ps, sum, fin);
    pass_reset(ps);
    *again = !ps->done;
    if (ps->done) h->eb_abs = lz_final_eb(h->dtype, ps->eb);
    return SCZ_OK;
}

const scz_codec_ops scz__lossy_ops = {
    .id = SCZ_CODEC_LOSSY,
    .name = "lossy",
    .lossless = 0,
    .dtypes = 1u << SCZ_DTYPE_F32 | 1u << SCZ_DTYPE_F64,
    .prepare = lz_prepare,
    .check_header = lz_check,
    .slab_align = lz_slab_align,
    .chunk_bound = lz_bound,
    .compress_chunk = lz_compress,
    .decompress_chunk = lz_decompress,
    .prepare_range = lz_prepare_range,
    .pass_feed = lz_pass_feed,
    .pass_end = lz_pass_end,
    .pass_free = lz_pass_free,
};

/* ------------------------------------------------------------------ */
/* White-box entries for the GPU writer's tests (lossy_debug.h)        */
/* ------------------------------------------------------------------ */

void scz__lossy1_debug_estimate_t(const scz_chunk_geom *cg, const void *src, double eb, int T, uint64_t *costs) {
    lz_geo g;
    geo_extents(cg, &g);
    lz_qp qp;
    qp.eb = eb;
    qp.ebx2 = 2.0 * eb;
    qp.recip = qp.ebx2 > 0 ? 1.0 / qp.ebx2 : INFINITY;
    qp.radius = 1;
    memset(costs, 0, LZ1_NCOST * sizeof *costs);
    if (cg->esize == 4) lz_estimate_f32(&g, src, &qp, T, costs);
    else lz_estimate_f64(&g, src, &qp, T, costs);
}

void scz__lossy1_debug_estimate(const scz_chunk_geom *cg, const void *src, double eb, int psnr, uint64_t *costs,
                                uint8_t *dec) {
    unsigned pred = LZ_PRED_LORENZO, order = 0, alt = LZ_PRED_LORENZO, alt_order = 0, tight = 0;
    if (!psnr) {
        lz_geo g;
        geo_extents(cg, &g);
        scz__lossy1_debug_estimate_t(cg, src, eb, 1, costs); /* zeroes costs first */
        lz1_choose_costs(costs, g.rank, &pred, &order, &alt, &alt_order, &tight);
    } else {
        memset(costs, 0, LZ1_NCOST * sizeof *costs); /* the PSNR rule estimates nothing */
    }
    dec[0] = (uint8_t)pred, dec[1] = (uint8_t)order, dec[2] = (uint8_t)alt, dec[3] = (uint8_t)alt_order;
    dec[4] = (uint8_t)tight;
}

int scz__lossy1_debug_interp(const scz_chunk_geom *cg, const void *src, double eb, uint32_t R, unsigned pred,
                             unsigned order, unsigned tight, uint16_t *codes, uint32_t *oidx, int64_t *odel,
                             uint32_t *vpos, uint64_t *nout, uint64_t *nvnew, uint32_t *r) {
    lz_geo g;
    geo_extents(cg, &g);
    const unsigned lb[3] = {0, 0, 0};
    geo_blocks(&g, lb);
    lz_qp qp;
    qp.eb = eb;
    qp.ebx2 = 2.0 * eb;
    qp.recip = qp.ebx2 > 0 ? 1.0 / qp.ebx2 : INFINITY;
    qp.radius = R;
    const uint32_t KR = 2 * R + 2;
    uint32_t *hist = calloc(KR, 4);
    uint64_t *tot = calloc(KR, 8);
    double *Rv = malloc(8 * (size_t)(g.n ? g.n : 1));
    if (!hist || !tot || !Rv) {
        free(hist), free(tot), free(Rv);
        return -1;
    }
    lz_tstate ts[1];
    memset(ts, 0, sizeof ts);
    ts[0].c0 = 0;
    ts[0].c1 = g.n;
    ts[0].hist = hist;
    const int cub = pred == LZ_PRED_CUBIC;
    uint32_t *hx = calloc((size_t)3 * KR + 16, 4); /* interp_encode's counters (lz1_encode: slot o_rh) */
    if (!hx) {
        free(hist), free(tot), free(Rv);
        return -1;
    }
    if (cg->esize == 4) interp_encode_f32(&g, src, &qp, cub, order, (int)tight, 1, ts, codes, oidx, odel, vpos, Rv, hx);
    else interp_encode_f64(&g, src, &qp, cub, order, (int)tight, 1, ts, codes, oidx, odel, vpos, Rv, hx);
    free(hx);
    for (uint32_t c = 0; c < KR; c++) tot[c] = hist[c];
    uint32_t lo, hi;
    *r = lz1_radius(tot, R, &lo, &hi);
    *nout = ts[0].n_out;
    *nvnew = ts[0].n_vnew;
    free(hist), free(tot), free(Rv);
    return 0;
}

int scz__lossy1_debug_encode(scz_ctx *ctx, const scz_chunk_geom *cg, const void *src, double eb, uint32_t R,
                             uint32_t knob1, unsigned pred, unsigned order, unsigned tight, scz_l1trace *tr) {
    scz_status st = SCZ_OK;
    scz_header h;
    memset(&h, 0, sizeof h);
    h.codec = SCZ_CODEC_LOSSY;
    h.dtype = cg->dtype;
    h.eb_mode = SCZ_EB_ABS;
    h.eb_user = h.eb_abs = eb;
    h.knobs[0] = R;
    h.knobs[1] = knob1;
    h.knobs[2] = 1;
    const uint64_t cap = lz_bound(&h, cg) + LZ1_HDR;
    uint8_t *dst = malloc(cap ? cap : 1);
    uint64_t out = 0;
    uint32_t info = 0;
    uint8_t *body = tr->body, *rbody = tr->rbody, *payload = tr->payload;
    const uint64_t body_cap = tr->body_cap;
    memset(tr, 0, sizeof *tr);
    tr->body = body;
    tr->rbody = rbody;
    tr->payload = payload;
    tr->body_cap = body_cap;
    if (!dst) st = SCZ_ERR_NOMEM;
    if (!st) {
        lz1_trace = tr;
        st = lz1_encode(ctx, &h, cg, src, pred, order, tight, UINT64_MAX, dst, cap, &out, &info);
        lz1_trace = NULL;
        tr->psize = out;
        tr->pinfo = info;
        if (!st && payload && out <= body_cap) memcpy(payload, dst, out);
    }
    free(dst);
    return (int)st;
}

int scz__lossy1_debug_compress(scz_ctx *ctx, const scz_chunk_geom *cg, const void *src, double eb, int psnr,
                               uint32_t R, uint8_t *dst, uint64_t cap, uint64_t *size, uint32_t *info) {
    scz_header h;
    memset(&h, 0, sizeof h);
    h.codec = SCZ_CODEC_LOSSY;
    h.dtype = cg->dtype;
    h.eb_mode = psnr ? SCZ_EB_PSNR : SCZ_EB_ABS;
    h.eb_user = h.eb_abs = eb;
    h.knobs[0] = R;
    h.knobs[2] = 1;
    return (int)lz1_compress(ctx, &h, cg, src, dst, cap, size, info);
}

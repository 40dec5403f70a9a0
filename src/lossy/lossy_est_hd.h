/*
 * lossy_est_hd.h -- the level-1 writer's per-element arithmetic (docs/FORMAT.md
 * 7.3, 7.9, 7.10) as inline code for the host and the device, shared by the
 * CPU writer (lossy.c, lossy_interp.h) and the GPU writer (lossy_enc1.cu):
 * prequantization, residual quantization, the estimate's cost of a code, one
 * sample of the predictor estimate, its sums per axis order and the
 * predictor choice from the sums. One definition of each, so both writers
 * compute the same bits (binary64, each operation rounded once, never fused:
 * lossy_interp_hd.h's LZ1_* operations and seals; include util/ieee.h first
 * on the host).
 */
#ifndef SCZ_LOSSY_EST_HD_H
#define SCZ_LOSSY_EST_HD_H

#include "lossy.h"
#include "lossy_interp_hd.h"

#if !defined(__CUDA_ARCH__)
#include <math.h>
#include <string.h>
#endif

/* Bit pattern of a double. */
LZ1_HD uint64_t lz1_dbits(double x) {
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
#endif
}

/* The estimate's sample step in a chunk of n elements (7.10). */
LZ1_HD uint64_t lz1_sample_step(uint64_t n) { return n > LZ1_SAMPLE_BIG ? LZ1_SAMPLE_STEP_BIG : LZ1_SAMPLE_STEP; }

/* The estimate's number of samples in a chunk of n elements. */
LZ1_HD uint64_t lz1_nsamples(uint64_t n) {
    const uint64_t st = lz1_sample_step(n);
    return n > LZ1_SAMPLE_OFF ? (n - LZ1_SAMPLE_OFF + st - 1) / st : 0;
}

/* Number of significant bits of u. */
LZ1_HD unsigned lz1_bitlen(uint64_t u) {
#if defined(__CUDA_ARCH__)
    return 64u - (unsigned)__clzll((long long)u);
#else
    return u ? 64u - (unsigned)__builtin_clzll(u) : 0u;
#endif
}

/* Trailing zero bits of u != 0. */
LZ1_HD unsigned lz1_ctz(uint64_t u) {
#if defined(__CUDA_ARCH__)
    return (unsigned)__ffsll((long long)u) - 1u;
#else
    return (unsigned)__builtin_ctzll(u);
#endif
}

/* Bytes of v as a varint (7.6: LEB128, 7 bits a byte). */
LZ1_HD unsigned lz1_vlen(uint64_t v) {
    unsigned n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

/* Cost of a quantization error d in the estimate (7.10): 0 for 0, else
 * 2 b + 1, b the significant bits of zigzag(d). */
LZ1_HD uint64_t lz1_cost(uint64_t d) {
    const uint64_t z = (d << 1) ^ (0 - (d >> 63));
    const unsigned b = lz1_bitlen(z);
    return b ? 2 * (uint64_t)b + LZ1_COST_NZ : 0;
}

/* Element i of a chunk of float (f32) or double elements, as double. */
LZ1_HD double lz1_elem(const void *src, int f32, uint64_t i) {
    return f32 ? (double)((const float *)src)[i] : ((const double *)src)[i];
}

/* Prequantization and verification of x (7.3): *q the grid index; returns
 * 1 when the element is verbatim. (lossy_quant.h lz_prequant_*: the same
 * operations.) */
LZ1_HD int lz1_pq(double x, int f32, double recip, double ebx2, double eb, int64_t *q) {
    double t = LZ1_MUL(x, recip);
    LZ1_SEAL(t);
    double tr = LZ1_ADD(t, LZ_MAGIC);
    LZ1_SEAL(tr);
    double qd = LZ1_SUB(tr, LZ_MAGIC);
    double p = LZ1_MUL(qd, ebx2);
    LZ1_SEAL(p);
    const double xr = f32 ? LZ1_TOF32(p) : p;
    const double e = fabs(LZ1_SUB(x, xr));
    *q = (int64_t)(lz1_dbits(tr) - lz1_dbits(LZ_MAGIC));
    return !(fabs(t) < LZ_QLIM) | !(e <= eb);
}

/* x' = T(double(q) h) of a prequantized value (7.3). */
LZ1_HD double lz1_xq(int64_t q, double ebx2, int f32) {
    double p = LZ1_MUL(LZ1_I2D(q), ebx2);
    LZ1_SEAL(p);
    return f32 ? LZ1_TOF32(p) : p;
}

/* Residual quantization (7.9): q = round-half-even((x - P) / h), *xr = the
 * reconstruction T(P + q h); returns 1 when the element must be verbatim. */
LZ1_HD int lz1_rq(double x, double P, double recip, double h, double eb, int f32, int64_t *q, double *xr) {
    double dx = LZ1_SUB(x, P);
    LZ1_SEAL(dx);
    double t = LZ1_MUL(dx, recip);
    LZ1_SEAL(t);
    double tr = LZ1_ADD(t, LZ_MAGIC);
    LZ1_SEAL(tr);
    double qd = LZ1_SUB(tr, LZ_MAGIC);
    *q = (int64_t)(lz1_dbits(tr) - lz1_dbits(LZ_MAGIC));
    double y = LZ1_MUL(qd, h);
    LZ1_SEAL(y);
    double r = LZ1_ADD(P, y);
    LZ1_SEAL(r);
    if (f32) r = LZ1_TOF32(r);
    *xr = r;
    return !(fabs(t) < LZ_QLIM) | !(fabs(LZ1_SUB(x, r)) <= eb);
}

/* One sample of the predictor estimate (7.10 step 1): element i of a chunk
 * of coding rank n, extents e, Lorenzo block sides 2^lb. Returns 1 when it
 * counts, with *kl its Lorenzo cost, *set the axes of its level (bit k:
 * axis k) and cl[a], cc[a] the linear and cubic costs along each axis a of
 * set. */
LZ1_HD int lz1_est_sample(const void *src, int f32, unsigned n, const uint64_t *e, const unsigned *lb, uint64_t i,
                          double recip, double ebx2, double eb, uint64_t *kl, uint64_t *cl, uint64_t *cc,
                          unsigned *setp) {
    const uint64_t st[3] = {1, e[0], e[0] * e[1]};
    const uint64_t c[3] = {i % e[0], i / e[0] % e[1], i / st[2]};
    int64_t q, v;
    if (lz1_pq(lz1_elem(src, f32, i), f32, recip, ebx2, eb, &q)) return 0;
    /* Lorenzo inside the element's block (zero outside it) */
    uint64_t p = 0;
    for (unsigned m = 1; m < (1u << n); m++) {
        uint64_t j = i;
        int in = 1;
        unsigned pc = 0;
        for (unsigned k = 0; k < n; k++)
            if (m >> k & 1) {
                in &= (c[k] & (((uint64_t)1 << lb[k]) - 1)) != 0;
                j -= st[k];
                pc++;
            }
        if (!in) continue;
        if (lz1_pq(lz1_elem(src, f32, j), f32, recip, ebx2, eb, &v)) return 0;
        if (pc & 1) p += (uint64_t)v;
        else p -= (uint64_t)v;
    }
    /* the element's level s and the axes whose non-zero coordinate has the
     * fewest trailing zero bits (7.9) */
    unsigned tz = 64, set = 0;
    for (unsigned k = 0; k < n; k++)
        if (c[k]) {
            const unsigned t = lz1_ctz(c[k]);
            if (t < tz) tz = t, set = 1u << k;
            else if (t == tz) set |= 1u << k;
        }
    if (tz == 64) return 0; /* element 0 */
    const uint64_t s = (uint64_t)1 << tz;
    const double x = lz1_elem(src, f32, i);
    for (unsigned a = 0; a < n; a++) {
        if (!(set >> a & 1)) continue;
        const uint64_t ca = c[a], ea = e[a], o = s * st[a];
        int64_t l1, r1 = 0, l3 = 0, r3 = 0;
        const int hr1 = ca + s < ea, hl3 = hr1 && ca >= 3 * s, hr3 = hr1 && ca + 3 * s < ea;
        int bad = lz1_pq(lz1_elem(src, f32, i - o), f32, recip, ebx2, eb, &l1);
        if (hr1) bad |= lz1_pq(lz1_elem(src, f32, i + o), f32, recip, ebx2, eb, &r1);
        if (hl3) bad |= lz1_pq(lz1_elem(src, f32, i - 3 * o), f32, recip, ebx2, eb, &l3);
        if (hr3) bad |= lz1_pq(lz1_elem(src, f32, i + 3 * o), f32, recip, ebx2, eb, &r3);
        if (bad) return 0;
        /* the neighbours as prequantization reconstructs them (7.3) */
        const double A = lz1_xq(l1, ebx2, f32), B = hr1 ? lz1_xq(r1, ebx2, f32) : 0.0;
        const double A3 = hl3 ? lz1_xq(l3, ebx2, f32) : 0.0, B3 = hr3 ? lz1_xq(r3, ebx2, f32) : 0.0;
        double xr;
        int64_t ql, qc;
        bad = lz1_rq(x, lz_finterp(0, A, hr1, B, 0, 0.0, 0, 0.0), recip, ebx2, eb, f32, &ql, &xr);
        bad |= lz1_rq(x, lz_finterp(1, A, hr1, B, hl3, A3, hr3, B3), recip, ebx2, eb, f32, &qc, &xr);
        if (bad) return 0;
        cl[a] = lz1_cost((uint64_t)ql);
        cc[a] = lz1_cost((uint64_t)qc);
    }
    *kl = lz1_cost((uint64_t)q - p);
    *setp = set;
    return 1;
}

/* Adds a counting sample's costs to the sums kk[LZ1_NCOST] (7.10): kk[0]
 * Lorenzo, kk[1 + 2o] / kk[2 + 2o] linear / cubic in axis order o (along
 * the axis of set that comes last in the order), kk[LZ1_NCOST - 1] the
 * number of samples. */
LZ1_HD void lz1_est_add(unsigned n, unsigned set, uint64_t kl, const uint64_t *cl, const uint64_t *cc, uint64_t *kk) {
    kk[0] += kl;
    const unsigned no = lz1_norders(n);
    for (unsigned od = 0; od < no; od++) {
        uint8_t perm[3], pos[3];
        lz1_order(n, od, perm, pos);
        unsigned a = 3;
        for (unsigned k = 0; k < n; k++)
            if ((set >> k & 1) && (a == 3 || pos[k] > pos[a])) a = k;
        kk[1 + 2 * od] += cl[a];
        kk[2 + 2 * od] += cc[a];
    }
    kk[LZ1_NCOST - 1]++;
}

/* The writer's choice from the sums c[LZ1_NCOST] of a chunk of rank n
 * (7.10 step 1): *pred, *order; *alt (LZ_PRED_LINEAR, order *alt_order)
 * where the trial forms a second payload beside Lorenzo, else
 * LZ_PRED_LORENZO; *tight the level bounds. */
LZ1_HD void lz1_choose_costs(const uint64_t *c, unsigned n, unsigned *pred, unsigned *order, unsigned *alt,
                             unsigned *alt_order, unsigned *tight) {
    *alt = LZ_PRED_LORENZO;
    *alt_order = 0;
    *order = 0;
    /* the smallest interpolation cost: cubic 0, linear 0, cubic 1, linear
     * 1, cubic 2, ... (the first on ties) */
    const unsigned no = lz1_norders(n);
    unsigned bp = LZ_PRED_CUBIC, bo = 0, lo = 0;
    uint64_t ci = c[2];
    for (unsigned od = 0; od < no; od++) {
        if (c[2 + 2 * od] < ci) ci = c[2 + 2 * od], bp = LZ_PRED_CUBIC, bo = od;
        if (c[1 + 2 * od] < ci) ci = c[1 + 2 * od], bp = LZ_PRED_LINEAR, bo = od;
        if (c[1 + 2 * od] < c[1 + 2 * lo]) lo = od; /* the trial's linear order */
    }
    const uint64_t S = c[LZ1_NCOST - 1];
    /* level bounds: at low rates, where the coarse levels' errors dominate */
    *tight = ci < LZ1_TIGHT * S;
    if (ci < c[0]) {
        *pred = bp;
        *order = bo;
        return;
    }
    *pred = LZ_PRED_LORENZO;
    /* Lorenzo by the estimate, mostly zero codes (where runs matter, which
     * the estimate does not see) and an interpolation within a factor
     * LZ1_TRIAL of it: Lorenzo and linear interpolation are both tried */
    if (ci <= LZ1_TRIAL * c[0] && c[0] < LZ1_TRIAL_ZERO * S) {
        *alt = LZ_PRED_LINEAR;
        *alt_order = lo;
    }
}

#endif

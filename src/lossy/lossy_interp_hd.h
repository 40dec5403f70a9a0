/*
 * lossy_interp_hd.h -- the parts of level 1's interpolation (docs/FORMAT.md
 * 7.9) that the CPU codec (lossy.c, lossy_interp.h) and the GPU decoder
 * (lossy_dec.cu) share, as inline code for the host and the device: the
 * number of levels, the axis orders, the geometry of a sweep, the level
 * steps h_lv and the binary64 arithmetic of the prediction and the
 * reconstruction. One definition of each, so that the two sides compute
 * the same bits.
 *
 * Floating point: every operation is one binary64 operation rounded to
 * nearest, never fused. On the host each intermediate is sealed
 * (SCZ_FP_SEAL, src/util/ieee.h: include it first); on the device the
 * operations are the explicit round-to-nearest intrinsics (and the CUDA
 * build has -fmad=false besides).
 */
#ifndef SCZ_LOSSY_INTERP_HD_H
#define SCZ_LOSSY_INTERP_HD_H

#include <stdint.h>

#if defined(__CUDACC__)
#define LZ1_HD __host__ __device__ __forceinline__
#else
#define LZ1_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define LZ1_ADD(a, b) __dadd_rn(a, b)
#define LZ1_SUB(a, b) __dsub_rn(a, b)
#define LZ1_MUL(a, b) __dmul_rn(a, b)
#define LZ1_DIV(a, b) __ddiv_rn(a, b)
#define LZ1_I2D(q) __ll2double_rn((long long)(q))
#define LZ1_TOF32(x) ((double)__double2float_rn(x))
#define LZ1_SEAL(v) ((void)0)
#else
#define LZ1_ADD(a, b) ((a) + (b))
#define LZ1_SUB(a, b) ((a) - (b))
#define LZ1_MUL(a, b) ((a) * (b))
#define LZ1_DIV(a, b) ((a) / (b))
#define LZ1_I2D(q) ((double)(q))
#define LZ1_TOF32(x) ((double)(float)(x))
#define LZ1_SEAL(v) SCZ_FP_SEAL(v)
#endif

/* Division by an invariant d (1 <= d < 2^32), for the GPU kernels' index
 * arithmetic: n / d = (umulhi(n, m) + n) >> l for every 32-bit n, with
 * l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1 (Granlund and
 * Montgomery's round-up method; the sum in 64 bits). Four integer
 * instructions where a binary64 reciprocal took two conversions, a
 * multiply and a 64-bit remainder check. test_lossy checks it against
 * n / d. */
typedef struct {
    uint32_t m, l;
} lz1_div;
LZ1_HD lz1_div lz1_div_make(uint32_t d) {
    lz1_div v;
    uint32_t l = 0;
    if (d == 0) d = 1; /* (an empty sweep's count: never divided by) */
    while (l < 32 && ((uint64_t)1 << l) < d) l++;
    v.l = l;
    v.m = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << l) - d)) / d + 1);
    return v;
}
LZ1_HD uint32_t lz1_div_q(uint32_t n, lz1_div v) {
#if defined(__CUDA_ARCH__)
    return (uint32_t)(((uint64_t)__umulhi(n, v.m) + n) >> v.l);
#else
    return (uint32_t)(((((uint64_t)n * v.m) >> 32) + n) >> v.l);
#endif
}

/* Number of levels: the smallest L with 2^L >= e[k] for every k < rank. */
LZ1_HD unsigned lz1_levels(unsigned rank, const uint64_t *e) {
    unsigned L = 0;
    for (unsigned k = 0; k < rank; k++)
        while (((uint64_t)1 << L) < e[k]) L++;
    return L;
}

/* Axis orders (7.9, payload byte 7): perm[j] is the j-th axis swept of
 * order o of a rank-n chunk (order 0 axis 0 first, order 1 axis n-1 first,
 * then the other permutations of rank 3), pos[k] axis k's place in it
 * (axes beyond the rank last). Orders are 2-bit fields, 6 bits an order. */
#define LZ1_ORD(a, b, c) ((uint64_t)(a) | (uint64_t)(b) << 2 | (uint64_t)(c) << 4)
LZ1_HD unsigned lz1_norders(unsigned n) { return n == 3 ? 6u : 2u; }
LZ1_HD void lz1_order(unsigned n, unsigned o, uint8_t *perm, uint8_t *pos) {
    const uint64_t r3 = LZ1_ORD(0, 1, 2) | LZ1_ORD(2, 1, 0) << 6 | LZ1_ORD(0, 2, 1) << 12 | LZ1_ORD(1, 0, 2) << 18 |
                        LZ1_ORD(1, 2, 0) << 24 | LZ1_ORD(2, 0, 1) << 30;
    const uint64_t r2 = LZ1_ORD(0, 1, 2) | LZ1_ORD(1, 0, 2) << 6;
    const uint64_t r1 = LZ1_ORD(0, 1, 2) | LZ1_ORD(0, 1, 2) << 6;
    const uint64_t t = (n == 3 ? r3 : n == 2 ? r2 : r1) >> (6 * o);
    for (unsigned j = 0; j < 3; j++) {
        perm[j] = (uint8_t)(t >> (2 * j) & 3);
        pos[perm[j]] = (uint8_t)j;
    }
}
#undef LZ1_ORD

/* The sweep of level s = 2^lv along axis a (7.9) in an order whose places
 * are pos: its elements are b[k] + m_k d[k], m_k < cnt[k], in increasing
 * (m_2, m_1, m_0); e[k] = 1 beyond the rank. */
LZ1_HD void lz1_sweep_dims(const uint64_t *e, const uint8_t *pos, unsigned a, uint64_t s, uint64_t *b, uint64_t *d,
                           uint64_t *cnt) {
    for (unsigned k = 0; k < 3; k++) {
        d[k] = pos[k] < pos[a] ? s : 2 * s;
        b[k] = k == a ? s : 0;
        cnt[k] = b[k] < e[k] ? (e[k] - 1 - b[k]) / d[k] + 1 : 0;
    }
}

/* Number of sweeps Sw of a chunk: one per level lv < L and axis a with
 * 2^lv < e[a] (whatever the order). */
LZ1_HD unsigned lz1_nsweeps(unsigned rank, const uint64_t *e) {
    unsigned S = 0;
    for (unsigned lv = lz1_levels(rank, e); lv-- > 0;)
        for (unsigned a = 0; a < rank; a++) S += ((uint64_t)1 << lv) < e[a];
    return S;
}

/* The most elements sweep entry j (0: element 0) of a chunk of rank n and
 * extents e can have: its level s is the same in every axis order (a level
 * has one sweep for each axis with s < e_a), and a sweep of level s has at
 * most prod_k ceil(e_k / s) elements (those whose coordinates are all
 * multiples of s); 0 past the last sweep. (Launch sizes of the GPU
 * sweeps.) */
LZ1_HD uint64_t lz1_sweep_bound(unsigned n, const uint64_t *e, unsigned j) {
    unsigned k = 1;
    if (j == 0) return 1;
    for (unsigned lv = lz1_levels(n, e); lv-- > 0;)
        for (unsigned a = 0; a < n; a++)
            if (((uint64_t)1 << lv) < e[a] && k++ == j) {
                uint64_t m = 1;
                for (unsigned d = 0; d < n; d++) m *= (e[d] + ((uint64_t)1 << lv) - 1) >> lv;
                return m;
            }
    return 0;
}

/* Quantization step of level lv (7.9, byte 29): h / f_lv, f_0 = 1 and
 * f_(lv+1) = min(1.25 f_lv, 2) with tight level bounds, else f = 1. */
LZ1_HD double lz1_level_step(double h, int tight, unsigned lv) {
    double f = 1.0;
    for (unsigned k = 0; tight && k < lv; k++) {
        f = LZ1_MUL(f, 1.25);
        if (f > 2.0) f = 2.0;
    }
    return LZ1_DIV(h, f);
}

/* The cubic (four neighbours) and linear (two) interpolations of 7.9 from
 * the neighbours A, B at -s, +s and A3, B3 at -3s, +3s. */
LZ1_HD double lz_cub(double A, double B, double A3, double B3) {
    double ab = LZ1_ADD(A, B), ab3 = LZ1_ADD(A3, B3);
    LZ1_SEAL(ab);
    LZ1_SEAL(ab3);
    double m = LZ1_MUL(ab, 9.0);
    LZ1_SEAL(m);
    double d = LZ1_SUB(m, ab3);
    LZ1_SEAL(d);
    return LZ1_MUL(d, 0.0625);
}
LZ1_HD double lz_lin(double A, double B) {
    double ab = LZ1_ADD(A, B);
    LZ1_SEAL(ab);
    return LZ1_MUL(ab, 0.5);
}

/* Interpolation from the neighbours that exist along an axis (7.9). hb,
 * ha3, hb3: which of B, A3, B3 exist. */
LZ1_HD double lz_finterp(int cubic, double A, int hb, double B, int ha3, double A3, int hb3, double B3) {
    if (!hb) return A;
    if (cubic) {
        if (ha3 && hb3) return lz_cub(A, B, A3, B3);
        if (hb3 || ha3) {
            /* 3A + 6B - B3 (right neighbour at 3s) or 6A + 3B - A3, over 8 */
            double u = hb3 ? LZ1_MUL(A, 3.0) : LZ1_MUL(A, 6.0), v = hb3 ? LZ1_MUL(B, 6.0) : LZ1_MUL(B, 3.0);
            LZ1_SEAL(u);
            LZ1_SEAL(v);
            double w = LZ1_ADD(u, v);
            LZ1_SEAL(w);
            w = LZ1_SUB(w, (hb3 ? B3 : A3));
            LZ1_SEAL(w);
            return LZ1_MUL(w, 0.125);
        }
    }
    return lz_lin(A, B);
}

/* Prediction of element i at coordinate c along an axis of extent e and
 * linear stride st, level stride s, from the reconstructed values R. */
LZ1_HD double lz_ipred(const double *R, uint64_t i, uint64_t c, uint64_t s, uint64_t st, uint64_t e, int cubic) {
    const uint64_t o = s * st;
    const int hb = c + s < e, ha3 = cubic && hb && c >= 3 * s, hb3 = cubic && hb && c + 3 * s < e;
    return lz_finterp(cubic, R[i - o], hb, hb ? R[i + o] : 0.0, ha3, ha3 ? R[i - 3 * o] : 0.0, hb3,
                      hb3 ? R[i + 3 * o] : 0.0);
}

/* The decoder's reconstruction T(P + double(q) h) (7.9). */
LZ1_HD double lz_rrecon(double P, int64_t q, double ebx2, int f32) {
    double y = LZ1_MUL(LZ1_I2D(q), ebx2);
    LZ1_SEAL(y);
    double r = LZ1_ADD(P, y);
    LZ1_SEAL(r);
    return f32 ? LZ1_TOF32(r) : r;
}

#endif

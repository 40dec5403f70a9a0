/*
 * metrics.c -- error statistics in double precision (max error, RMSE,
 * NRMSE, PSNR). PSNR = 20 log10(range) - 10 log10(MSE), as SZ3 and cuSZ.
 * Used by the tool, the tests and the benchmark.
 */
#include "../internal.h"

#include <float.h>
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline double elem(scz_dtype t, const void *p, uint64_t i) {
    switch (t) {
    case SCZ_DTYPE_F32: return ((const float *)p)[i];
    case SCZ_DTYPE_F64: return ((const double *)p)[i];
    case SCZ_DTYPE_U8: return ((const uint8_t *)p)[i];
    case SCZ_DTYPE_U16: return ((const uint16_t *)p)[i];
    case SCZ_DTYPE_U32: return ((const uint32_t *)p)[i];
    case SCZ_DTYPE_U64: return (double)((const uint64_t *)p)[i];
    }
    return 0;
}

/* Bitwise equality of element i (NaN payloads and -0.0 included). */
static inline int same_bits(size_t es, const void *a, const void *b, uint64_t i) {
    return memcmp((const uint8_t *)a + i * es, (const uint8_t *)b + i * es, es) == 0;
}

/* float32 bits as an int32 that orders like the float (-0.0 just below
 * +0.0), and back: integer min / max reductions vectorize without
 * floating-point relaxations. */
static inline int32_t f32_key(uint32_t b) { return (int32_t)(b ^ ((uint32_t)((int32_t)b >> 31) & 0x7fffffffu)); }
static inline float f32_unkey(int32_t k) {
    const uint32_t b = (uint32_t)k ^ ((uint32_t)(k >> 31) & 0x7fffffffu);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Extremes (as keys) and finite count of p[0..n), non-finite values left
 * out: integer reductions, which the compiler vectorizes. *klo stays
 * INT32_MAX and *khi INT32_MIN without a finite value. */
static uint64_t range_f32(const float *restrict p, uint64_t n, int32_t *klo, int32_t *khi) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    uint64_t c = 0, i = 0;
#if defined(__SSE2__)
    /* SSE2 minimum / maximum in four accumulators of four lanes (minps
     * is v < acc ? v : acc, which passes over a NaN v; four independent
     * chains hide the latency), the finite and the non-NaN values counted
     * beside; where they differ (an infinity) the scalar scan below does
     * the whole. The extremes' keys after, a zero's sign from a scan (the
     * keys order -0.0 below +0.0, minps does not) */
    if (n >= 16) {
        const __m128 inf = _mm_set1_ps(INFINITY), ninf = _mm_set1_ps(-INFINITY);
        const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
        __m128 vlo[4] = {inf, inf, inf, inf}, vhi[4] = {ninf, ninf, ninf, ninf};
        const uint64_t n16 = n & ~(uint64_t)15;
        uint64_t cn = 0;
        while (i < n16) {
            const uint64_t e = n16 - i > (1u << 20) ? i + (1u << 20) : n16;
            __m128i vc = _mm_setzero_si128(), vn = _mm_setzero_si128();
            for (; i < e; i += 16)
                for (int k = 0; k < 4; k++) {
                    const __m128 v = _mm_loadu_ps(p + i + 4 * k);
                    const __m128 a = _mm_and_ps(v, absm);
                    vc = _mm_sub_epi32(vc, _mm_castps_si128(_mm_cmplt_ps(a, inf))); /* finite */
                    vn = _mm_sub_epi32(vn, _mm_castps_si128(_mm_cmple_ps(a, inf))); /* not NaN */
                    vlo[k] = _mm_min_ps(v, vlo[k]);
                    vhi[k] = _mm_max_ps(v, vhi[k]);
                }
            uint32_t c4[4], n4[4];
            _mm_storeu_si128((__m128i *)(void *)c4, vc);
            _mm_storeu_si128((__m128i *)(void *)n4, vn);
            c += (uint64_t)c4[0] + c4[1] + c4[2] + c4[3];
            cn += (uint64_t)n4[0] + n4[1] + n4[2] + n4[3];
        }
        if (c != cn) {
            i = c = 0; /* an infinity */
            goto scalar;
        }
        float l4[4], h4[4];
        _mm_storeu_ps(l4, _mm_min_ps(_mm_min_ps(vlo[0], vlo[1]), _mm_min_ps(vlo[2], vlo[3])));
        _mm_storeu_ps(h4, _mm_max_ps(_mm_max_ps(vhi[0], vhi[1]), _mm_max_ps(vhi[2], vhi[3])));
        float fl = l4[0], fh = h4[0];
        for (int q = 1; q < 4; q++) {
            fl = l4[q] < fl ? l4[q] : fl;
            fh = h4[q] > fh ? h4[q] : fh;
        }
        for (; i < n; i++) {
            const float v = p[i];
            if (!isfinite(v)) continue;
            c++;
            fl = v < fl ? v : fl;
            fh = v > fh ? v : fh;
        }
        if (c) {
            uint32_t b;
            if (fl == 0.0f) { /* -0.0 if there is one */
                fl = 0.0f;
                for (uint64_t j = 0; j < n; j++) {
                    memcpy(&b, p + j, sizeof b);
                    if (b == 0x80000000u) {
                        fl = -0.0f;
                        break;
                    }
                }
            }
            if (fh == 0.0f) { /* +0.0 if there is one */
                fh = -0.0f;
                for (uint64_t j = 0; j < n; j++) {
                    memcpy(&b, p + j, sizeof b);
                    if (b == 0) {
                        fh = 0.0f;
                        break;
                    }
                }
            }
            memcpy(&b, &fl, sizeof b);
            lo = f32_key(b);
            memcpy(&b, &fh, sizeof b);
            hi = f32_key(b);
        }
        *klo = lo;
        *khi = hi;
        return c;
    }
scalar:
#endif
    while (i < n) {
        /* blocks of at most 2^20 elements: the count fits 32 bits */
        const uint64_t e = n - i > (1u << 20) ? i + (1u << 20) : n;
        uint32_t cb = 0;
        for (; i < e; i++) {
            uint32_t b;
            memcpy(&b, p + i, sizeof b);
            const uint32_t fin = (b & 0x7fffffffu) < 0x7f800000u, nf = fin - 1u; /* all ones when not finite */
            const uint32_t key = (uint32_t)f32_key(b);
            const int32_t kl = (int32_t)(key ^ ((key ^ (uint32_t)INT32_MAX) & nf));
            const int32_t kh = (int32_t)(key ^ ((key ^ (uint32_t)INT32_MIN) & nf));
            cb += fin;
            lo = lo < kl ? lo : kl;
            hi = hi > kh ? hi : kh;
        }
        c += cb;
    }
    *klo = lo;
    *khi = hi;
    return c;
}

/* Extremes and finite count of p[0..n) of float64, non-finite values left
 * out. SSE2 minimum / maximum in four accumulators of two lanes (four
 * independent chains hide their latency), the lanes joined after: minpd
 * is v < acc ? v : acc, which passes over a NaN v as the scalar test
 * below does; the finite values are counted beside. Where an infinity
 * occurs (the finite count falls short of the values that are not NaN),
 * the part is scanned again with the infinities left out. Only a zero's
 * sign can differ from the order of a scalar scan; range_f64_zero puts it
 * right. */
static uint64_t range_f64(const double *restrict p, uint64_t n, double *plo, double *phi) {
    double lo = INFINITY, hi = -INFINITY;
    uint64_t c = 0, i = 0;
#if defined(__SSE2__)
    if (n >= 8) {
        const __m128d inf = _mm_set1_pd(INFINITY), ninf = _mm_set1_pd(-INFINITY);
        const __m128d absm = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
        __m128d vlo[4] = {inf, inf, inf, inf}, vhi[4] = {ninf, ninf, ninf, ninf};
        __m128i vc = _mm_setzero_si128(), vn = _mm_setzero_si128();
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 4; k++) {
                const __m128d v = _mm_loadu_pd(p + i + 2 * k);
                const __m128d a = _mm_and_pd(v, absm);
                vc = _mm_sub_epi64(vc, _mm_castpd_si128(_mm_cmplt_pd(a, inf)));  /* finite */
                vn = _mm_sub_epi64(vn, _mm_castpd_si128(_mm_cmple_pd(a, inf)));  /* not NaN */
                vlo[k] = _mm_min_pd(v, vlo[k]);
                vhi[k] = _mm_max_pd(v, vhi[k]);
            }
        uint64_t c2[2], n2[2];
        _mm_storeu_si128((__m128i *)(void *)c2, vc);
        _mm_storeu_si128((__m128i *)(void *)n2, vn);
        if (c2[0] + c2[1] == n2[0] + n2[1]) {
            const __m128d lo2 = _mm_min_pd(_mm_min_pd(vlo[0], vlo[1]), _mm_min_pd(vlo[2], vlo[3]));
            const __m128d hi2 = _mm_max_pd(_mm_max_pd(vhi[0], vhi[1]), _mm_max_pd(vhi[2], vhi[3]));
            double l2[2], h2[2];
            _mm_storeu_pd(l2, lo2);
            _mm_storeu_pd(h2, hi2);
            lo = l2[0] < l2[1] ? l2[0] : l2[1];
            hi = h2[0] > h2[1] ? h2[0] : h2[1];
            c = c2[0] + c2[1];
        } else {
            i = 0; /* an infinity: the scalar scan below */
        }
    }
#endif
    for (; i < n; i++) {
        const double v = p[i];
        if (!isfinite(v)) continue;
        c++;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    *plo = lo;
    *phi = hi;
    return c;
}

/* A scalar scan keeps the first finite value equal to the extreme: for an
 * extreme of zero, the sign of the first zero. */
static double range_f64_zero(const double *p, uint64_t n, double z) {
    if (z != 0.0) return z;
    for (uint64_t i = 0; i < n; i++)
        if (p[i] == 0.0) return p[i];
    return z;
}

scz_status scz__value_range(scz_dtype t, const void *data, uint64_t n, double *mn, double *mx,
                            uint64_t *finite, int threads) {
    if (!scz_dtype_size(t) || (!data && n)) return SCZ_ERR_ARG;
    double lo = INFINITY, hi = -INFINITY;
    uint64_t f = 0;
    if (threads < 1) threads = 1;
    /* float32 in float (the extremes are exact; no dtype switch per
     * element); non-finite values count as +-inf for the extremes. Each
     * thread scans a contiguous part (range_f32: an OpenMP reduction inside
     * the loop kept it scalar), the parts' results are combined after. */
    if (t == SCZ_DTYPE_F32) {
        const float *p = data;
        enum { PARTS = 64 };
        int32_t plo[PARTS], phi[PARTS];
        uint64_t pf[PARTS];
        int np = n > 65536 && threads > 1 ? (threads < PARTS ? threads : PARTS) : 1;
#pragma omp parallel for schedule(static, 1) num_threads(np) if (np > 1)
        for (int q = 0; q < np; q++) {
            const uint64_t a = n * (uint64_t)q / (uint64_t)np, b = n * (uint64_t)(q + 1) / (uint64_t)np;
            pf[q] = range_f32(p + a, b - a, &plo[q], &phi[q]);
        }
        int32_t klo = INT32_MAX, khi = INT32_MIN;
        for (int q = 0; q < np; q++) {
            klo = plo[q] < klo ? plo[q] : klo;
            khi = phi[q] > khi ? phi[q] : khi;
            f += pf[q];
        }
        if (f) {
            lo = f32_unkey(klo);
            hi = f32_unkey(khi);
        }
    } else if (t == SCZ_DTYPE_F64) {
        const double *p = data;
        enum { PARTS = 64 };
        double plo[PARTS], phi[PARTS];
        uint64_t pf[PARTS];
        int np = n > 65536 && threads > 1 ? (threads < PARTS ? threads : PARTS) : 1;
#pragma omp parallel for schedule(static, 1) num_threads(np) if (np > 1)
        for (int q = 0; q < np; q++) {
            const uint64_t a = n * (uint64_t)q / (uint64_t)np, b = n * (uint64_t)(q + 1) / (uint64_t)np;
            pf[q] = range_f64(p + a, b - a, &plo[q], &phi[q]);
        }
        for (int q = 0; q < np; q++) {
            if (plo[q] < lo) lo = plo[q];
            if (phi[q] > hi) hi = phi[q];
            f += pf[q];
        }
        if (f) {
            lo = range_f64_zero(p, n, lo);
            hi = range_f64_zero(p, n, hi);
        }
    } else {
#pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(+ : f) schedule(static) \
    num_threads(threads) if (n > 65536 && threads > 1)
        for (uint64_t i = 0; i < n; i++) {
            double v = elem(t, data, i);
            if (!isfinite(v)) continue;
            f++;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    }
    if (!f) lo = hi = 0;
    if (mn) *mn = lo;
    if (mx) *mx = hi;
    if (finite) *finite = f;
    return SCZ_OK;
}

scz_status scz_value_range(scz_dtype t, const void *data, uint64_t n, double *mn, double *mx,
                           uint64_t *finite) {
    return scz__value_range(t, data, n, mn, mx, finite, scz__threads(NULL));
}

scz_status scz_stats_compute(scz_dtype t, const void *a, const void *b, uint64_t n, scz_stats *o) {
    size_t es = scz_dtype_size(t);
    if (!es || !o || (n && (!a || !b))) return SCZ_ERR_ARG;
    memset(o, 0, sizeof *o);
    o->count = n;
    uint64_t finite = 0;
    scz_status st = scz_value_range(t, a, n, &o->min, &o->max, &finite);
    if (st) return st;
    o->range = o->max - o->min;
    o->nonfinite = n - finite;
    double maxe = 0, sse = 0, sae = 0;
    uint64_t mism = 0;
#pragma omp parallel for reduction(max : maxe) reduction(+ : sse, sae, mism) schedule(static) if (n > 65536)
    for (uint64_t i = 0; i < n; i++) {
        double x = elem(t, a, i);
        if (!isfinite(x)) {
            mism += !same_bits(es, a, b, i);
            continue;
        }
        double y = elem(t, b, i);
        double e = fabs(x - y);
        if (isnan(e)) e = INFINITY; /* a finite value decoded as NaN is an unbounded error */
        if (e > maxe) maxe = e;
        sse += e * e;
        sae += e;
    }
    o->nonfinite_mismatch = mism;
    o->max_abs_err = maxe;
    o->mean_abs_err = finite ? sae / (double)finite : 0;
    double mse = finite ? sse / (double)finite : 0;
    o->rmse = sqrt(mse);
    o->max_rel_err = o->range > 0 ? maxe / o->range : (maxe > 0 ? INFINITY : 0);
    o->nrmse = o->range > 0 ? o->rmse / o->range : (o->rmse > 0 ? INFINITY : 0);
    if (mse == 0) o->psnr = INFINITY;
    else if (o->range == 0) o->psnr = -INFINITY;
    else o->psnr = 20.0 * log10(o->range) - 10.0 * log10(mse);
    return SCZ_OK;
}

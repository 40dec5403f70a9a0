/*
 * metrics.c -- error statistics in double precision (max error, RMSE,
 * NRMSE, PSNR). PSNR = 20 log10(range) - 10 log10(MSE), as SZ3 and cuSZ.
 * Used by the tool, the tests and the benchmark.
 */
#include "../internal.h"

#include <math.h>

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

scz_status scz__value_range(scz_dtype t, const void *data, uint64_t n, double *mn, double *mx,
                            uint64_t *finite, int threads) {
    if (!scz_dtype_size(t) || (!data && n)) return SCZ_ERR_ARG;
    double lo = INFINITY, hi = -INFINITY;
    uint64_t f = 0;
    if (threads < 1) threads = 1;
    /* float32 in float (the extremes are exact; no dtype switch per
     * element); non-finite values count as +-inf for the extremes */
    if (t == SCZ_DTYPE_F32) {
        const float *p = data;
        float flo = INFINITY, fhi = -INFINITY;
#pragma omp parallel for reduction(min : flo) reduction(max : fhi) reduction(+ : f) schedule(static) \
    num_threads(threads) if (n > 65536 && threads > 1)
        for (uint64_t i = 0; i < n; i++) {
            const float v = p[i];
            const int fin = isfinite(v);
            const float vl = fin ? v : INFINITY, vh = fin ? v : -INFINITY;
            f += (uint64_t)fin;
            flo = vl < flo ? vl : flo;
            fhi = vh > fhi ? vh : fhi;
        }
        lo = flo;
        hi = fhi;
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

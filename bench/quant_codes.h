/*
 * quant_codes.h -- integer test data for the lzss codec derived from a
 * float field (scz_bench --int-codes, scz_bench_gpu --lzss-int): the
 * quantization codes a cuSZ-style compressor hands its entropy stage, as
 * in the gpuLZ paper's hurr-, hacc- and nyx-quant datasets (cuSZ codes at
 * REL 1e-3, uint16): values prequantized to q = round(x / (2 eb)) with eb
 * = REL x value range, the Lorenzo prediction error of q (1D-3D; a 4D
 * array as 3D), code = error + 512 when |error| < 512, else 0 (an
 * outlier). Non-finite values count as q = 0.
 */
#ifndef SCZ_BENCH_QUANT_CODES_H
#define SCZ_BENCH_QUANT_CODES_H

#include "scz.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* dims fastest first (unused = 1); out: count u16 codes. 0, or -1 out of
 * memory. */
static inline int bench_lorenzo_codes(const void *src, scz_dtype t, const uint64_t *dims, uint32_t rank, double rel,
                                      uint16_t *out) {
    const uint64_t nx = dims[0], ny = rank > 1 ? dims[1] : 1, nz = (rank > 2 ? dims[2] : 1) * (rank > 3 ? dims[3] : 1);
    const uint64_t n = nx * ny * nz;
    int64_t *q = malloc((n ? n : 1) * sizeof *q);
    if (!q) return -1;
    double lo = INFINITY, hi = -INFINITY;
    for (uint64_t i = 0; i < n; i++) {
        const double x = t == SCZ_DTYPE_F32 ? ((const float *)src)[i] : ((const double *)src)[i];
        if (isfinite(x)) {
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
    }
    const double eb = rel * (hi > lo ? hi - lo : 1.0), r2 = 1.0 / (2 * eb);
    for (uint64_t i = 0; i < n; i++) {
        const double x = t == SCZ_DTYPE_F32 ? ((const float *)src)[i] : ((const double *)src)[i];
        q[i] = isfinite(x) ? (int64_t)llround(x * r2) : 0;
    }
#define Q(x, y, z) ((x) < 0 || (y) < 0 || (z) < 0 ? 0 : q[((uint64_t)(z) * ny + (uint64_t)(y)) * nx + (uint64_t)(x)])
    for (int64_t z = 0; z < (int64_t)nz; z++)
        for (int64_t y = 0; y < (int64_t)ny; y++)
            for (int64_t x = 0; x < (int64_t)nx; x++) {
                const int64_t p = Q(x - 1, y, z) + Q(x, y - 1, z) + Q(x, y, z - 1) - Q(x - 1, y - 1, z) -
                                  Q(x - 1, y, z - 1) - Q(x, y - 1, z - 1) + Q(x - 1, y - 1, z - 1);
                const int64_t d = Q(x, y, z) - p;
                out[((uint64_t)z * ny + (uint64_t)y) * nx + (uint64_t)x] = d > -512 && d < 512 ? (uint16_t)(d + 512) : 0;
            }
#undef Q
    free(q);
    return 0;
}

#endif

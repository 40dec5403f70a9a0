/*
 * lossy_quant.h -- prequantization of one value and the reconstruction a
 * decoder will produce for it (docs/FORMAT.md 7.3), and the constants of
 * the PSNR rule (7.1). One definition for every writer-side use: the
 * encoder's per-element check and the PSNR rule's error pass must agree
 * bit for bit, or a stream would miss its target. Binary64, no fused
 * multiply-add (the build passes -ffp-contract=off; see DESIGN.md).
 */
#ifndef SCZ_LOSSY_QUANT_H
#define SCZ_LOSSY_QUANT_H

#include "lossy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __FAST_MATH__
#error "the lossy codec needs IEEE binary64 arithmetic: do not build it with -ffast-math"
#endif

/* Prequantizes x for the bound eb (ebx2 = 2 eb, recip = 1 / ebx2, +inf for
 * eb = 0). *q: the grid index (meaningful when not verbatim); *err:
 * |x - x'| in binary64, x' = the dtype's rounding of q * ebx2, which is
 * what a decoder writes for a non-verbatim element. Returns 1 when the
 * element is verbatim (stored exactly): t outside the 64-bit grid, NaN or
 * infinity, or an error above eb. */
static inline int lz_prequant_f64(double x, double recip, double ebx2, double eb, int64_t *q, double *err) {
    const double mg = LZ_MAGIC;
    double t = x * recip;
    double tr = t + LZ_MAGIC;
    double qd = tr - LZ_MAGIC;
    uint64_t tb, mb;
    memcpy(&tb, &tr, 8);
    memcpy(&mb, &mg, 8);
    double rec = qd * ebx2;
    double e = fabs(x - rec);
    *q = (int64_t)(tb - mb);
    *err = e;
    return !(fabs(t) < LZ_QLIM) | !(e <= eb);
}

static inline int lz_prequant_f32(float xf, double recip, double ebx2, double eb, int64_t *q, double *err) {
    const double mg = LZ_MAGIC;
    double x = (double)xf;
    double t = x * recip;
    double tr = t + LZ_MAGIC;
    double qd = tr - LZ_MAGIC;
    uint64_t tb, mb;
    memcpy(&tb, &tr, 8);
    memcpy(&mb, &mg, 8);
    float rec = (float)(qd * ebx2);
    double e = fabs(x - (double)rec);
    *q = (int64_t)(tb - mb);
    *err = e;
    return !(fabs(t) < LZ_QLIM) | !(e <= eb);
}

/* PSNR rule (FORMAT.md 7.1). Squared errors are summed over blocks of
 * LZ_PSNR_BLOCK consecutive elements (LZ_PSNR_LANES lanes by index inside
 * a block, combined by a pairwise tree, then the block sums in order), so
 * the sum does not depend on the thread count. */
#define LZ_PSNR_BLOCK 65536u
#define LZ_PSNR_LANES 32u
/* Accepted when sse <= (R 10^(-dB/20))^2 x finite x (1 - LZ_PSNR_MARGIN):
 * room for a PSNR computed with another summation order. */
#define LZ_PSNR_MARGIN 0x1p-20
/* At most this many tightening steps, eb *= max(LZ_PSNR_FLOOR,
 * LZ_PSNR_SAFETY sqrt(target / sse)); then eb = 0 (lossless). */
#define LZ_PSNR_STEPS 8
#define LZ_PSNR_SAFETY 0.99
#define LZ_PSNR_FLOOR 0.0625

#endif

/*
 * lossy_quant.h -- prequantization of one value and the reconstruction a
 * decoder will produce for it (docs/FORMAT.md 7.3), and the constants of
 * the PSNR rule (7.1). One definition for every writer-side use: the
 * encoder's per-element check and the PSNR rule's error pass must agree
 * bit for bit, or a stream would miss its target. Binary64, no fused
 * multiply-add whatever the compiler flags (util/ieee.h).
 */
#ifndef SCZ_LOSSY_QUANT_H
#define SCZ_LOSSY_QUANT_H

#include "../util/ieee.h" /* no -ffast-math, no contraction across the seals */
#include "lossy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* x' = T(qd * h) (FORMAT.md 7.3 and 7.8): the one reconstruction, used by
 * the writer's check, the PSNR rule and the decoder, so the check sees
 * exactly what a decoder produces. The seal keeps the product rounded on
 * its own: no compiler may fuse it with the check's subtraction. */
static inline double lz_recon_f64(double qd, double h) {
    double p = qd * h;
    SCZ_FP_SEAL(p);
    return p;
}
static inline float lz_recon_f32(double qd, double h) {
    double p = qd * h;
    SCZ_FP_SEAL(p);
    return (float)p;
}

/* Prequantizes x for the bound eb (ebx2 = 2 eb, recip = 1 / ebx2, +inf for
 * eb = 0). *q: the grid index (meaningful when not verbatim); *err:
 * |x - x'| in binary64, x' what a decoder writes for a non-verbatim
 * element. Returns 1 when the element is verbatim (stored exactly): t
 * outside the 64-bit grid, NaN or infinity, or an error above eb. */
#define LZ_PREQUANT_BODY(RECON)                                                    \
    const double mg = LZ_MAGIC;                                                    \
    double t = x * recip;                                                          \
    SCZ_FP_SEAL(t); /* t + M rounds t first (7.3), never fused */                  \
    double tr = t + LZ_MAGIC;                                                      \
    double qd = tr - LZ_MAGIC;                                                     \
    uint64_t tb, mb;                                                               \
    memcpy(&tb, &tr, 8);                                                           \
    memcpy(&mb, &mg, 8);                                                           \
    double e = fabs(x - (double)RECON(qd, ebx2));                                  \
    *q = (int64_t)(tb - mb);                                                       \
    *err = e;                                                                      \
    return !(fabs(t) < LZ_QLIM) | !(e <= eb)

static inline int lz_prequant_f64(double x, double recip, double ebx2, double eb, int64_t *q, double *err) {
    LZ_PREQUANT_BODY(lz_recon_f64);
}
static inline int lz_prequant_f32(float xf, double recip, double ebx2, double eb, int64_t *q, double *err) {
    double x = (double)xf;
    LZ_PREQUANT_BODY(lz_recon_f32);
}
#undef LZ_PREQUANT_BODY

/* PSNR rule (FORMAT.md 7.1). Squared errors are summed over blocks of
 * LZ_PSNR_BLOCK consecutive elements (LZ_PSNR_LANES lanes by index inside
 * a block, combined by a pairwise tree, then the block sums in order), so
 * the sum does not depend on the thread count. */
/* LZ_PSNR_BLOCK, LZ_PSNR_LANES: lossy.h (the GPU sums the same way) */
/* Accepted when sse <= (R 10^(-dB/20))^2 x finite x (1 - LZ_PSNR_MARGIN):
 * room for a PSNR computed with another summation order. */
#define LZ_PSNR_MARGIN 0x1p-20
/* At most this many tightening steps, eb *= max(LZ_PSNR_FLOOR,
 * LZ_PSNR_SAFETY sqrt(target / sse)); then eb = 0 (lossless). */
#define LZ_PSNR_STEPS 8
#define LZ_PSNR_SAFETY 0.99
#define LZ_PSNR_FLOOR 0.0625

#endif

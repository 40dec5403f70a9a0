/*
 * lossy.h -- constants and layout of the error-bounded lossy codec (id 2),
 * shared by the CPU implementation (lossy.c) and a CUDA one.
 * docs/FORMAT.md section 7.
 */
#ifndef SCZ_LOSSY_H
#define SCZ_LOSSY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "../internal.h"
#ifdef __cplusplus
}
#endif

#define LZ_DEFAULT_RADIUS 512u
#define LZ_MAX_RADIUS 32767u      /* alphabet 2r+2 <= 65536 */
#define LZ_HDR 24u                /* chunk payload header */

/* Level (knobs[2]): 0 the format of 7.1-7.8; 1 high ratio (7.9-7.10):
 * a 32-byte chunk header with the chunk's radius, predictor and back end. */
#define LZ_LEVEL_MAX 1u
#define LZ1_HDR 32u
#define LZ1_BODY_CAP 2u /* a body above LZ1_BODY_CAP x the raw chunk is not formed (7.10 step 3) */
#define LZ_PRED_LORENZO 0u
#define LZ_PRED_LINEAR 1u
#define LZ_PRED_CUBIC 2u
#define LZ_BE_NONE 0u
#define LZ_BE_HUFF 1u   /* the body as a Huffman stream of its bytes (K = 256) */

/* Predictor estimate (7.10): samples i = LZ1_SAMPLE_OFF + k step, the step
 * LZ1_SAMPLE_STEP, or LZ1_SAMPLE_STEP_BIG in chunks of more than
 * LZ1_SAMPLE_BIG elements (lz1_sample_step: a 32 MiB chunk has 56 K samples
 * or more instead of 227 K; both steps prime, so no power-of-two extent
 * aliases them), cost 2 x bits + LZ1_COST_NZ per non-zero code; where it
 * picks Lorenzo and an interpolation costs at most LZ1_TRIAL x Lorenzo's,
 * both payloads are formed and the smaller kept. */
#define LZ1_SAMPLE_OFF 3u
#define LZ1_SAMPLE_STEP 37u
#define LZ1_SAMPLE_STEP_BIG 149u
#define LZ1_SAMPLE_BIG (1ull << 21)
#define LZ1_COST_NZ 1u
#define LZ1_TRIAL 2u
#define LZ1_TRIAL_ZERO 2u /* ... and Lorenzo's cost below 2 per sample (mostly zeros) */
/* Sweep streams (7.9, 7.10 step 3): an interpolated chunk's Huffman
 * workflow may code each of its last g sweeps in a Huffman stream of its
 * own (payload byte 28); writers consider g <= LZ1_GMAX. */
#define LZ1_GMAX 8u
/* Run-length body at level 1 (7.10 step 3): formed (written, its back end
 * planned) only where LZ1_RLE_NUM x its section <= LZ1_RLE_DEN x the
 * Huffman section. */
#define LZ1_RLE_NUM 20u
#define LZ1_RLE_DEN 21u
#define LZ1_MAX_ORDERS 6u  /* axis orders (7.9 byte 7): the permutations of the coding axes */
#define LZ1_NCOST (2u + 2u * LZ1_MAX_ORDERS) /* the estimate's sums: Lorenzo, 2 per order, samples */
#define LZ1_MAX_SWEEPS 100u /* 3 axes x at most 33 levels */
#define LZ1_MAX_LEVELS 34u  /* levels s = 2^0 .. 2^33 (element 0 at 2^L) */
/* Level bounds (7.9, payload byte 29): with t = 1 the quantization step of
 * level s = 2^lv is h / f_lv, f_0 = 1, f_(lv+1) = min(1.25 f_lv, 2) (tighter
 * coarse levels, which the finer ones are predicted from); writers set
 * t = 1 where the estimate's interpolation cost is below LZ1_TIGHT per
 * sample (low rates; at high rates the extra bits cost more than the
 * error they save). */
#define LZ1_TIGHT 3u

/* workflows (payload byte 0 and the chunk's codec_info) */
#define LZ_WF_STORED 0u
#define LZ_WF_HUFFMAN 1u
#define LZ_WF_RLE 2u

/* Quantization code alphabet for radius r: K = 2r + 2.
 *   0          outlier: the prediction error is in the outlier list
 *   1 .. 2r-1  prediction error (code - r), |error| < r
 *   2r         verbatim, new value (next in the verbatim list)
 *   2r+1       verbatim, same bits as the previous verbatim value */
#define LZ_CODE_OUTLIER 0u
#define LZ_VNEW(r) (2u * (r))
#define LZ_VREP(r) (2u * (r) + 1u)

/* Prequantization: q = round-half-even(x * (1 / (2 eb))), computed as
 * (t + LZ_MAGIC) - LZ_MAGIC in double; valid while |t| < LZ_QLIM. */
#define LZ_MAGIC 6755399441055744.0  /* 1.5 * 2^52 */
#define LZ_QLIM 1125899906842624.0   /* 2^50 */

/* Auto workflow. Run-length coding is evaluated when either
 *   the paper's criterion holds: the Huffman code of the quantization codes
 *   averages at most 1.09 bits (LZ_RLE_DEN * total_bits <= LZ_RLE_NUM * count), or
 *   runs * max(LZ_RUN_BITS_MIN, total_bits / count + LZ_RUN_BITS_ADD) < total_bits
 *   (double precision), runs = 1 + number of code changes: an estimate of
 *   the run-length payload below the Huffman one;
 * and taken when its payload is smaller than the Huffman payload. */
#define LZ_RLE_NUM 109u
#define LZ_RLE_DEN 100u
#define LZ_RUN_BITS_MIN 3.5
#define LZ_RUN_BITS_ADD 1.5

/* Longest run of the run-length workflow (lengths are coded as len - 1 in
 * 16 bits). */
#define LZ_MAX_RUN 65536u

/* PSNR rule (FORMAT.md 7.1): squared errors summed over blocks of
 * LZ_PSNR_BLOCK elements, LZ_PSNR_LANES lanes each (lossy_quant.h). */
#define LZ_PSNR_BLOCK 65536u
#define LZ_PSNR_LANES 32u

/* Largest block: sum of the log2 sides. */
#define LZ_MAX_BLOCK_LOG2 12u

/* Block sides (log2) a writer uses per coding rank: 4096 elements, 4096,
 * 64x64, 16x16x16. The paper's 256, 16x16, 8x8x8 lose 1-13% of the ratio
 * on the data sets of ../shared/data (more elements next to a block face
 * are predicted with fewer neighbours) at the same CPU speed; a GPU keeps a
 * 4096-element block (16-32 KiB) in shared memory. */
static const uint8_t lz_block_log2[4][3] = {{0, 0, 0}, {12, 0, 0}, {6, 6, 0}, {4, 4, 4}};

/* The PSNR rule's passes computed on a GPU (lossy.c; lossy_enc.cu): the
 * pass state of prepare_range. */
#ifdef __cplusplus
extern "C" {
#endif
void scz__lossy_pass_params(const void *pass, double *eb, double *scale);
scz_status scz__lossy_pass_end_sum(scz_ctx *ctx, void *pass, scz_header *h, double sum, uint64_t fin,
                                   int *again);
#ifdef __cplusplus
}
#endif

#endif

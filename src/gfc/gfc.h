/*
 * gfc.h -- constants and layout of the gfc codec shared by the CPU
 * (gfc.c) and a CUDA implementation. docs/FORMAT.md section 10.
 */
#ifndef SCZ_GFC_H
#define SCZ_GFC_H

#include <stdint.h>

/* A subchunk is 32 values (one per warp lane); a segment is 32 subchunks,
 * coded independently (one warp each). */
#define GFC_SUB 32u
#define GFC_SEG_SUBS 32u
#define GFC_SEG_VALUES (GFC_SUB * GFC_SEG_SUBS) /* 1024 */
/* Nibble bytes at the start of every subchunk. */
#define GFC_HDR_BYTES 16u

/* Dimensionality knob (knobs[0]): 1..32, 0 in params means 1. */
#define GFC_DIM_MIN 1u
#define GFC_DIM_MAX 32u
#define GFC_DIM_DEFAULT 1u
/* Default chunk size of gfc streams (FORMAT.md 3). */
#define GFC_DEFAULT_CHUNK_BYTES ((uint64_t)4 << 20)

/* codec_info of a chunk (FORMAT.md 10.5, 10.6). */
#define GFC_INFO_CODED 0u
#define GFC_INFO_STORED 1u

/* Largest encoded subchunk / segment, per element size E (4 or 8). */
#define GFC_MAX_SUB_BYTES(E) (GFC_HDR_BYTES + GFC_SUB * (uint32_t)(E))
#define GFC_MAX_SEG_BYTES(E) (GFC_SEG_SUBS * GFC_MAX_SUB_BYTES(E))

/* Nibble of a zero residual (sign 0, no kept byte): every padded lane. */
#define GFC_ZERO_NIBBLE_F64 7u
#define GFC_ZERO_NIBBLE_F32 4u

/* Leading-zero bytes z -> code c (10.3). f64: 6 is coded as 5. */
static const uint8_t gfc_code_of_z64[9] = {0, 1, 2, 3, 4, 5, 5, 6, 7};
static const uint8_t gfc_code_of_z32[5] = {0, 1, 2, 3, 4};
/* Code c -> kept bytes n(c). f32: codes 5..7 are invalid (0xFF). */
static const uint8_t gfc_kept64[8] = {8, 7, 6, 5, 4, 3, 1, 0};
static const uint8_t gfc_kept32[8] = {4, 3, 2, 1, 0, 0xFF, 0xFF, 0xFF};

/* Index, inside the previous subchunk (0..31), of the predictor of lane j
 * for dimensionality d (10.2): 32 - d + j mod d. */
static inline uint32_t gfc_pred_lane(uint32_t j, uint32_t d) { return GFC_SUB - d + j % d; }

/* Segments of a chunk of n values, and subchunks. */
static inline uint64_t gfc_num_segments(uint64_t n) { return (n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES; }
static inline uint64_t gfc_num_subchunks(uint64_t n) { return (n + GFC_SUB - 1) / GFC_SUB; }

#endif

/*
 * ndzip.h -- constants and layout of the ndzip codec shared by the CPU
 * (ndzip.c) and CUDA implementations. docs/FORMAT.md section 6.
 */
#ifndef SCZ_NDZIP_H
#define SCZ_NDZIP_H

#include <stdint.h>

/* A hypercube holds 4096 elements: 4096 (1D), 64x64 (2D), 16x16x16 (3D). */
#define NDZIP_HC_ELEMS 4096u
/* Side of a hypercube per rank (index = rank). */
static const uint32_t ndzip_hc_side[4] = {0, 4096, 64, 16};

/* Residuals are packed in groups of W values, W = bit width (32 or 64):
 * a hypercube has 4096 / W groups; each group is one head word followed by
 * popcount(head) column words. */
#define NDZIP_GROUPS_F32 (NDZIP_HC_ELEMS / 32u)
#define NDZIP_GROUPS_F64 (NDZIP_HC_ELEMS / 64u)

#endif

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

/* codec_info of a chunk (FORMAT.md 6.7): coded (6.6), or stored raw when
 * the coded payload would be at least as large as the chunk's raw bytes. */
#define NDZIP_INFO_CODED 0u
#define NDZIP_INFO_STORED 1u

/* Coding geometry of a chunk (FORMAT.md 6.1), shared by the CPU and CUDA
 * implementations: drop unit dims, then merge a thin axis (extent below
 * half the hypercube side of the current rank) with its neighbour, so that
 * edge-replication padding never more than doubles an axis. in[0..rank_in)
 * are the chunk dims, fastest first; out gets the coding extents (unused
 * = 1); returns the coding rank (1..3). */
static inline unsigned ndzip_coding_dims(const uint64_t *in, unsigned rank_in, uint64_t out[3]) {
    unsigned n = 0;
    out[0] = out[1] = out[2] = 1;
    for (unsigned d = 0; d < rank_in && d < 3; d++)
        if (in[d] != 1) out[n++] = in[d];
    if (n == 0) return 1;
    while (n > 1) {
        unsigned k = 0;
        while (k < n && 2 * out[k] >= ndzip_hc_side[n]) k++;
        if (k == n) break;
        unsigned a = k + 1 < n ? k : k - 1; /* merge axes a and a+1 */
        out[a] *= out[a + 1];
        for (unsigned j = a + 1; j + 1 < n; j++) out[j] = out[j + 1];
        out[--n] = 1;
    }
    return n;
}

#endif

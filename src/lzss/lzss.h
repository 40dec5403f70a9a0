/*
 * lzss.h -- constants and layout of the `lzss` codec (docs/FORMAT.md
 * section 11), shared by the CPU implementation (lzss.c) and the CUDA one
 * (lzss.cu): knob ranges and defaults, payload header, sub-chunk geometry, token
 * widths, and the byte-plane shuffle. Plain C, no library dependencies.
 */
#ifndef SCZ_LZSS_H
#define SCZ_LZSS_H

#include <stdint.h>

#if defined(__CUDACC__)
#define LZSS_HD __host__ __device__
#else
#define LZSS_HD
#endif

/* knob indices in the stream header (FORMAT.md 11.1) */
enum {
    LZSS_K_SYM = 0,     /* symbol size S: 1, 2, 4, 8 */
    LZSS_K_WINDOW = 1,  /* window W in symbols: 1..65536 */
    LZSS_K_MINLEN = 2,  /* minimum match M in symbols: 1..255 */
    LZSS_K_SHUFFLE = 3, /* 1 off, 2 on */
    LZSS_K_LG = 4       /* log2 symbols per sub-chunk: 8..16 */
};

#define LZSS_WINDOW_MAX 65536u
#define LZSS_WINDOW_DEFAULT 256u
#define LZSS_MINLEN_MAX 255u
#define LZSS_EXTRA_MAX 255u      /* a match is at most M + 255 symbols */
#define LZSS_SHUFFLE_OFF 1u
#define LZSS_SHUFFLE_ON 2u
#define LZSS_LG_MIN 8u
#define LZSS_LG_MAX 16u
#define LZSS_LG_DEFAULT 12u      /* 4096 symbols per sub-chunk */
#define LZSS_PAYLOAD_HDR 8u      /* S, shuffle, lg, M, u32 W */
#define LZSS_GROUP 8u            /* tokens per flag byte */

/* Codec info of a chunk (chunk table). */
#define LZSS_INFO_STORED 0u
#define LZSS_INFO_CODED 1u

/* Bytes of the distance field: 1 up to a window of 256, else 2. */
static inline LZSS_HD unsigned lzss_dist_bytes(uint32_t W) { return W <= 256u ? 1u : 2u; }

/* Default minimum match: the shortest match whose token (D + 1 bytes) is
 * smaller than its literals (M * S bytes). */
static inline LZSS_HD unsigned lzss_default_minlen(unsigned S, uint32_t W) {
    return (lzss_dist_bytes(W) + 1u) / S + 1u;
}

static inline LZSS_HD int lzss_sym_ok(uint32_t S) { return S == 1 || S == 2 || S == 4 || S == 8; }

/* Resolved parameters of a stream. */
typedef struct lzss_par {
    uint32_t S, W, M, shuffle, lg;
    uint32_t E;       /* element size */
    uint32_t D;       /* distance bytes */
    uint64_t B;       /* sub-chunk bytes: 2^lg * S */
} lzss_par;

/* Byte-plane shuffle of one sub-chunk of b bytes (b a multiple of E):
 * byte p of element k goes to p * (b / E) + k. Element-major loops: one
 * sequential read (shuffle) or write (unshuffle) stream and E on the
 * other side. */
static inline void lzss_shuffle(const uint8_t *src, uint64_t b, uint32_t E, uint8_t *dst) {
    uint64_t m = b / E;
    for (uint64_t k = 0; k < m; k++)
        for (uint32_t p = 0; p < E; p++) dst[p * m + k] = src[k * E + p];
}
static inline void lzss_unshuffle(const uint8_t *src, uint64_t b, uint32_t E, uint8_t *dst) {
    uint64_t m = b / E;
    if (E == 4) {
        for (uint64_t k = 0; k < m; k++) {
            dst[4 * k] = src[k];
            dst[4 * k + 1] = src[m + k];
            dst[4 * k + 2] = src[2 * m + k];
            dst[4 * k + 3] = src[3 * m + k];
        }
        return;
    }
    for (uint64_t k = 0; k < m; k++)
        for (uint32_t p = 0; p < E; p++) dst[k * E + p] = src[p * m + k];
}

#endif /* SCZ_LZSS_H */

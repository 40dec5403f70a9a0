/*
 * xxh64.h -- XXH64 (xxHash, 64-bit variant) written from its public
 * specification, usable from host C and CUDA device code alike: the one
 * implementation behind every checksum of docs/FORMAT.md section 5, on the
 * CPU and the GPU, so the two agree by construction and the library needs
 * no external hashing library. tests/test_xxh64.c checks it against
 * reference values and, where libxxhash is installed, against libxxhash.
 *
 * Little-endian targets only (all GPUs and all supported hosts).
 */
#ifndef SCZ_XXH64_H
#define SCZ_XXH64_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define SCZ_HD __host__ __device__ __forceinline__
#else
#define SCZ_HD static inline
#endif

#define SCZ_XXP1 0x9E3779B185EBCA87ull
#define SCZ_XXP2 0xC2B2AE3D27D4EB4Full
#define SCZ_XXP3 0x165667B19E3779F9ull
#define SCZ_XXP4 0x85EBCA77C2B2AE63ull
#define SCZ_XXP5 0x27D4EB2F165667C5ull

SCZ_HD uint64_t scz_xxh_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

SCZ_HD uint64_t scz_xxh_round(uint64_t acc, uint64_t in) {
    acc += in * SCZ_XXP2;
    acc = scz_xxh_rotl(acc, 31);
    return acc * SCZ_XXP1;
}

SCZ_HD uint64_t scz_xxh_merge(uint64_t h, uint64_t v) {
    h ^= scz_xxh_round(0, v);
    return h * SCZ_XXP1 + SCZ_XXP4;
}

/* Streaming state over 32-byte stripes: the four accumulators. */
typedef struct scz_xxh_acc {
    uint64_t v1, v2, v3, v4;
} scz_xxh_acc;

SCZ_HD void scz_xxh_init(scz_xxh_acc *a, uint64_t seed) {
    a->v1 = seed + SCZ_XXP1 + SCZ_XXP2;
    a->v2 = seed + SCZ_XXP2;
    a->v3 = seed;
    a->v4 = seed - SCZ_XXP1;
}

SCZ_HD void scz_xxh_stripe(scz_xxh_acc *a, uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3) {
    a->v1 = scz_xxh_round(a->v1, w0);
    a->v2 = scz_xxh_round(a->v2, w1);
    a->v3 = scz_xxh_round(a->v3, w2);
    a->v4 = scz_xxh_round(a->v4, w3);
}

/* Converges the accumulators (input of at least 32 bytes) or starts from
 * the seed (shorter input), then adds the total length. */
SCZ_HD uint64_t scz_xxh_converge(const scz_xxh_acc *a, uint64_t len, uint64_t seed) {
    uint64_t h;
    if (len >= 32) {
        h = scz_xxh_rotl(a->v1, 1) + scz_xxh_rotl(a->v2, 7) + scz_xxh_rotl(a->v3, 12) +
            scz_xxh_rotl(a->v4, 18);
        h = scz_xxh_merge(h, a->v1);
        h = scz_xxh_merge(h, a->v2);
        h = scz_xxh_merge(h, a->v3);
        h = scz_xxh_merge(h, a->v4);
    } else {
        h = seed + SCZ_XXP5;
    }
    return h + len;
}

SCZ_HD uint64_t scz_xxh_tail8(uint64_t h, uint64_t w) {
    h ^= scz_xxh_round(0, w);
    return scz_xxh_rotl(h, 27) * SCZ_XXP1 + SCZ_XXP4;
}
SCZ_HD uint64_t scz_xxh_tail4(uint64_t h, uint32_t w) {
    h ^= (uint64_t)w * SCZ_XXP1;
    return scz_xxh_rotl(h, 23) * SCZ_XXP2 + SCZ_XXP3;
}
SCZ_HD uint64_t scz_xxh_tail1(uint64_t h, uint8_t b) {
    h ^= (uint64_t)b * SCZ_XXP5;
    return scz_xxh_rotl(h, 11) * SCZ_XXP1;
}

SCZ_HD uint64_t scz_xxh_avalanche(uint64_t h) {
    h ^= h >> 33;
    h *= SCZ_XXP2;
    h ^= h >> 29;
    h *= SCZ_XXP3;
    h ^= h >> 32;
    return h;
}

/* Little-endian loads at any alignment. On the host one memcpy (a single
 * load: gcc does not merge the byte loads of the device version, which
 * made the CPU checksum ~3x slower); on the device byte loads (the
 * runtime's kernels read payload words with aligned loads themselves). */
SCZ_HD uint64_t scz_xxh_le64(const uint8_t *p) {
#if defined(__CUDA_ARCH__)
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
#else
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#endif
}
SCZ_HD uint32_t scz_xxh_le32(const uint8_t *p) {
#if defined(__CUDA_ARCH__)
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
#else
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#endif
}

/* Finishes a hash whose full stripes are in *a: `rest` (< 32 bytes) are the
 * remaining input bytes, len the total length. */
SCZ_HD uint64_t scz_xxh_finish(const scz_xxh_acc *a, uint64_t len, const uint8_t *rest, uint64_t seed) {
    uint64_t h = scz_xxh_converge(a, len, seed);
    unsigned n = (unsigned)(len & 31), i = 0;
    for (; i + 8 <= n; i += 8) h = scz_xxh_tail8(h, scz_xxh_le64(rest + i));
    if (i + 4 <= n) {
        h = scz_xxh_tail4(h, scz_xxh_le32(rest + i));
        i += 4;
    }
    for (; i < n; i++) h = scz_xxh_tail1(h, rest[i]);
    return scz_xxh_avalanche(h);
}

/* Whole-buffer XXH64 (byte loads: any alignment). */
SCZ_HD uint64_t scz_xxh64(const uint8_t *p, uint64_t len, uint64_t seed) {
    scz_xxh_acc a;
    scz_xxh_init(&a, seed);
    uint64_t i = 0;
    for (; i + 32 <= len; i += 32)
        scz_xxh_stripe(&a, scz_xxh_le64(p + i), scz_xxh_le64(p + i + 8), scz_xxh_le64(p + i + 16),
                       scz_xxh_le64(p + i + 24));
    return scz_xxh_finish(&a, len, p + i, seed);
}

/* XXH64 of n 64-bit words stored little-endian (an aligned word array). */
SCZ_HD uint64_t scz_xxh64_words(const uint64_t *w, uint64_t n, uint64_t seed) {
    scz_xxh_acc a;
    scz_xxh_init(&a, seed);
    uint64_t i = 0;
    for (; i + 4 <= n; i += 4) scz_xxh_stripe(&a, w[i], w[i + 1], w[i + 2], w[i + 3]);
    uint64_t h = scz_xxh_converge(&a, n * 8, seed);
    for (; i < n; i++) h = scz_xxh_tail8(h, w[i]);
    return scz_xxh_avalanche(h);
}

#endif

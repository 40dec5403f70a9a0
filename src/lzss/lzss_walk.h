/*
 * lzss_walk.h -- the exact match at a position (FORMAT.md 11.4) through
 * run-linked hash chains: shared by the CPU encoder (lzss.c) and the GPU
 * encoder's path for windows above 256 symbols (lzss.cu enc_chain), which
 * build the links each their own way (prev[i]: the distance to the
 * previous position with the same key hash, or for an interior position
 * of a run of equal keys the distance to the run's start; 0: none; 16 bits,
 * a sub-chunk has at most 65536 symbols). Symbols are S bytes at s + i S
 * (S a constant where these are inlined), compared as integers.
 */
#ifndef SCZ_LZSS_WALK_H
#define SCZ_LZSS_WALK_H

#include "lzss.h"

#include <string.h>

#if defined(__CUDACC__)
#define LZSS_INLINE static __host__ __device__ __forceinline__
#else
#define LZSS_INLINE static inline __attribute__((always_inline))
#endif

/* Bytes in common at a and b, at most max (host: 8 bytes a step). */
static inline uint64_t lzss_common_bytes(const uint8_t *a, const uint8_t *b, uint64_t max) {
    uint64_t k = 0;
    while (k + 8 <= max) {
        uint64_t x, y;
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return k + (uint64_t)(__builtin_clzll(x ^ y) >> 3);
#else
            return k + (uint64_t)(__builtin_ctzll(x ^ y) >> 3);
#endif
        }
        k += 8;
    }
    while (k < max && a[k] == b[k]) k++;
    return k;
}

/* Symbol i as an integer (S is a constant where this is inlined: one load). */
LZSS_INLINE uint64_t lzss_sym(const uint8_t *s, uint64_t i, const uint64_t S) {
#ifdef __CUDA_ARCH__ /* the GPU's symbol buffers are aligned for their symbols */
    switch (S) {
    case 1: return s[i];
    case 2: return ((const uint16_t *)s)[i];
    case 4: return ((const uint32_t *)s)[i];
    default: return ((const unsigned long long *)s)[i];
    }
#else
    uint64_t v = 0;
    memcpy(&v, s + i * S, (size_t)S);
    return v;
#endif
}

/* Whether the K + 1 symbols p - 1 .. p + K - 1 are equal: p is an
 * interior position of a run of equal keys. */
LZSS_INLINE int lzss_run_at(const uint8_t *s, uint64_t p, uint64_t K, const uint64_t S) {
    if (p == 0) return 0;
    for (uint64_t k = 0; k < K; k++)
        if (lzss_sym(s, p - 1 + k, S) != lzss_sym(s, p + k, S)) return 0;
    return 1;
}

/* The match of s[q ..] and s[i ..] (q < i), known to hold k symbols, up to cap. */
LZSS_INLINE uint64_t lzss_extend(const uint8_t *s, uint64_t q, uint64_t i, uint64_t k, uint64_t cap,
                                        const uint64_t S) {
#ifdef __CUDA_ARCH__ /* four symbols a step, their loads issued together */
    while (k + 4 <= cap) {
        const uint64_t a0 = lzss_sym(s, q + k, S), a1 = lzss_sym(s, q + k + 1, S), a2 = lzss_sym(s, q + k + 2, S),
                       a3 = lzss_sym(s, q + k + 3, S);
        const uint64_t b0 = lzss_sym(s, i + k, S), b1 = lzss_sym(s, i + k + 1, S), b2 = lzss_sym(s, i + k + 2, S),
                       b3 = lzss_sym(s, i + k + 3, S);
        if (a0 != b0) return k;
        if (a1 != b1) return k + 1;
        if (a2 != b2) return k + 2;
        if (a3 != b3) return k + 3;
        k += 4;
    }
    while (k < cap && lzss_sym(s, q + k, S) == lzss_sym(s, i + k, S)) k++;
    return k;
#else
    return k + lzss_common_bytes(s + (i + k) * S, s + (q + k) * S, (cap - k) * S) / S;
#endif
}

/* The match at position i (FORMAT.md 11.4: the longest in the window, the
 * nearest of equals): its length (0: a literal) and distance *bd. The
 * links (prev, built by encode_sub_s) visit every earlier position with
 * i's key hash, nearest first, except that a run of equal keys is entered
 * at its last interior position and left at once through its start: a run
 * [a, re) of one symbol v stands for all its candidates, since with R the
 * run of v at i (Rc, at most cap) a candidate q of it matches re - q
 * symbols when re - q < R, exactly R when re - q > R, and R plus the match
 * of s[re ..] with s[i + R ..] when re - q = R. So a run costs one step
 * however long it is. Any other candidate first checks the symbol at the
 * best length so far (only a longer match replaces the best). */
LZSS_INLINE uint64_t lzss_find_match(const uint8_t *s, const uint16_t *prev, uint64_t i, uint64_t n, uint64_t W,
                                           uint64_t M, uint64_t K, uint64_t Rc, uint64_t *bd, const uint64_t S) {
    const uint64_t cap = n - i < M + LZSS_EXTRA_MAX ? n - i : M + LZSS_EXTRA_MAX;
    *bd = 0;
    if (cap < M) return 0;
    const uint64_t h0 = prev[i];
    if (!h0) return 0;
    uint64_t Lb = M - 1, d = 0;
    const uint64_t lo = i > W ? i - W : 0;
    uint64_t p = i - h0;
    const uint64_t si = lzss_sym(s, i, S);
    if (lzss_run_at(s, i, K, S)) { /* own run [p, i): d = 1 is the nearest of its equals */
        if (Rc > Lb) {
            Lb = Rc;
            d = 1;
        }
        if (Lb == cap || p < lo) goto done;
        const uint64_t ha = prev[p];
        if (!ha) goto done;
        p -= ha;
    }
    while (p >= lo) {
        const uint64_t hq = prev[p];
        if (lzss_run_at(s, p, K, S)) { /* entered a run at its last interior position */
            const uint64_t a = p - hq, re = p + K;
            if (Rc >= K && lzss_sym(s, p, S) == si) {
                const uint64_t lo2 = a > lo ? a : lo;
                uint64_t q, L;
                if (Rc == cap) { /* s[i] runs for cap symbols or more */
                    if (re >= cap && re - cap >= lo2) {
                        q = re - cap;
                        L = cap;
                    } else {
                        q = lo2;
                        L = re - lo2;
                    }
                } else if (re >= Rc && re - Rc >= lo2) {
                    q = re - Rc;
                    L = lzss_extend(s, q, i, Rc, cap, S);
                } else {
                    q = lo2;
                    L = re - lo2;
                }
                if (L > Lb) {
                    Lb = L;
                    d = i - q;
                    if (Lb == cap) break;
                }
            }
            if (a < lo) break;
            const uint64_t ha = prev[a];
            if (!ha) break;
            p = a - ha;
        } else {
            if (lzss_sym(s, p + Lb, S) == lzss_sym(s, i + Lb, S)) {
                const uint64_t L = lzss_extend(s, p, i, 0, cap, S);
                if (L > Lb) {
                    Lb = L;
                    d = i - p;
                    if (Lb == cap) break;
                }
            }
            if (!hq) break;
            p -= hq;
        }
    }
done:
    *bd = d;
    return Lb >= M ? Lb : 0;
}

#endif /* SCZ_LZSS_WALK_H */

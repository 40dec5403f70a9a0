/*
 * bhash.h -- the block hashes of FORMAT.md section 5 (XXH64 of each
 * 2^blog2-byte block of a payload) by warps, as device code shared by the
 * runtime's checksum pass (runtime.cu, k_block_hash) and the codec kernels
 * that hash the payloads they read (gfc's decoder). CUDA C++ (.cu files
 * only); include ../util/xxh64.h first.
 *
 * Four lanes per block, one per XXH64 accumulator: hashing a block is
 * sequential along its 32-byte stripes, but the four accumulators are
 * independent until they converge; lane 4k then converges them and hashes
 * the block's last bytes.
 */
#ifndef SCZ_CUDA_BHASH_H
#define SCZ_CUDA_BHASH_H

#include <stdint.h>

namespace scz_bh {

constexpr int UNROLL = 8; /* loads in flight per lane */

/* XXH64 accumulator q's start (seed 0). */
__device__ __forceinline__ uint64_t acc_init(int q) {
    return q == 0 ? SCZ_XXP1 + SCZ_XXP2 : q == 1 ? SCZ_XXP2 : q == 2 ? 0 : 0 - SCZ_XXP1;
}

/* The 8 bytes at p of a payload ending at `end`, by the payload's
 * alignment `mode`: 0 8-byte aligned, 1 4 bytes off, 2 any other byte (the
 * two aligned 8-byte words that hold them, funnel-shifted; the first may
 * begin before the payload, inside the stream: its header comes first;
 * byte loads where the second word would end past the payload). */
__device__ __forceinline__ uint64_t gword(const uint8_t *p, uint32_t mode, const uint8_t *end) {
    if (mode == 0) return __ldg(reinterpret_cast<const unsigned long long *>(p));
    if (mode == 1) {
        const uint32_t *q = reinterpret_cast<const uint32_t *>(p);
        return (uint64_t)__ldg(q) | ((uint64_t)__ldg(q + 1) << 32);
    }
    const uintptr_t a = reinterpret_cast<uintptr_t>(p) & ~(uintptr_t)7;
    if (reinterpret_cast<const uint8_t *>(a + 16) > end) return scz_xxh_le64(p);
    const unsigned sh = 8u * (unsigned)(reinterpret_cast<uintptr_t>(p) & 7); /* 8..56, not 32 */
    const unsigned long long *q = reinterpret_cast<const unsigned long long *>(a);
    return (__ldg(q) >> sh) | (__ldg(q + 1) << (64 - sh));
}

__device__ __forceinline__ uint32_t gmode(const uint8_t *base) {
    const uint32_t mis = (uint32_t)(reinterpret_cast<uintptr_t>(base) & 7);
    return mis == 0 ? 0u : mis == 4 ? 1u : 2u;
}

/* The four XXH64 accumulators of lane's group of four (lanes 4k..4k+3,
 * one accumulator each), in every lane of the group. */
__device__ __forceinline__ scz_xxh_acc group_acc(uint64_t acc, int lane) {
    scz_xxh_acc a;
    const int l0 = lane & ~3;
    a.v1 = __shfl_sync(0xffffffffu, acc, l0);
    a.v2 = __shfl_sync(0xffffffffu, acc, l0 + 1);
    a.v3 = __shfl_sync(0xffffffffu, acc, l0 + 2);
    a.v4 = __shfl_sync(0xffffffffu, acc, l0 + 3);
    return a;
}

/* A warp hashes blocks wb0 .. wb0 + 7 below bend (<= nb, the payload's
 * block count) of the n-byte payload at base (global memory, read-only
 * for the kernel's life) into bh[b]; lanes 4k..4k+3 take block wb0 + k.
 * Per stripe the four lanes read the 32 contiguous bytes of their block
 * (one sector, UNROLL loads in flight per lane). All 32 lanes call it. */
__device__ __forceinline__ void warp_blocks(const uint8_t *base, uint64_t n, unsigned blog2, uint64_t nb, uint64_t wb0,
                                            uint64_t bend, uint64_t *bh, int lane) {
    const int q = lane & 3;
    const uint32_t mode = gmode(base);
    const uint64_t b = wb0 + (lane >> 2);
    const uint64_t len = b < bend ? (b + 1 < nb ? (1ull << blog2) : n - ((nb - 1) << blog2)) : 0;
    const uint64_t ns = len >> 5; /* whole stripes */
    const uint8_t *p = base + (b << blog2) + 8 * q, *const end = base + n;
    uint64_t acc = acc_init(q);
    uint64_t s = 0;
    /* mode 2: every word of a lane is two aligned words shifted by the
     * same sh; a batch whose aligned words all end inside the payload
     * (all but the last one or two of a payload) issues its 2 UNROLL loads
     * before it shifts any (gword's per-word test would wait for each
     * load in turn) */
    const uintptr_t pa = reinterpret_cast<uintptr_t>(p) & ~(uintptr_t)7;
    const unsigned sh = 8u * (unsigned)(reinterpret_cast<uintptr_t>(p) & 7);
    for (; s + UNROLL <= ns; s += UNROLL) {
        uint64_t w[UNROLL];
        if (mode == 2 && reinterpret_cast<const uint8_t *>(pa + 32 * (s + UNROLL - 1) + 16) <= end) {
            const unsigned long long *q0 = reinterpret_cast<const unsigned long long *>(pa + 32 * s);
            unsigned long long x[UNROLL], y[UNROLL];
#pragma unroll
            for (int k = 0; k < UNROLL; k++) {
                x[k] = __ldg(q0 + 4 * k);
                y[k] = __ldg(q0 + 4 * k + 1);
            }
#pragma unroll
            for (int k = 0; k < UNROLL; k++) w[k] = (x[k] >> sh) | (y[k] << (64 - sh));
        } else {
#pragma unroll
            for (int k = 0; k < UNROLL; k++) w[k] = gword(p + 32 * (s + k), mode, end);
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) acc = scz_xxh_round(acc, w[k]);
    }
    for (; s < ns; s++) acc = scz_xxh_round(acc, gword(p + 32 * s, mode, end));
    const scz_xxh_acc a = group_acc(acc, lane);
    if (q == 0 && b < bend) bh[b] = scz_xxh_finish(&a, len, base + (b << blog2) + (ns << 5), 0);
}

/* Blocks [b0, b1) of the payload by one warp, 8 at a time. */
__device__ __forceinline__ void warp_range(const uint8_t *base, uint64_t n, unsigned blog2, uint64_t nb, uint64_t b0,
                                           uint64_t b1, uint64_t *bh, int lane) {
    for (uint64_t wb0 = b0; wb0 < b1; wb0 += 8) warp_blocks(base, n, blog2, nb, wb0, b1, bh, lane);
}

/* A warp hashes blocks [b0, b1) of a payload whose bytes from payload
 * offset t0 on are staged in shared memory: byte t0 + i at sm[o + i] (o
 * any; the buffer readable 16 bytes past the last block's end). Lanes
 * 4k..4k+3 take the k-th of 8 blocks at a time; block k's stripe r is
 * read at step r + k, so that blocks 2^blog2 bytes apart (the same banks)
 * are read at different banks. W4: a word of the tests-free batches from
 * the three 4-byte words that hold it, by two funnel shifts (fewer
 * instructions than two 8-byte words shifted; H100, gfc float32
 * decompression +4%, float64 -1%: float32's k_gdech only). */
template <bool W4 = false>
__device__ __forceinline__ void warp_range_smem(const uint8_t *sm, uint32_t o, uint64_t t0, uint64_t n, unsigned blog2,
                                                uint64_t nb, uint64_t b0, uint64_t b1, uint64_t *bh, int lane) {
    const int q = lane & 3, k = lane >> 2;
    for (uint64_t wb0 = b0; wb0 < b1; wb0 += 8) {
        const uint64_t b = wb0 + k;
        const uint64_t len = b < b1 ? (b + 1 < nb ? (1ull << blog2) : n - ((nb - 1) << blog2)) : 0;
        const uint32_t ns = (uint32_t)(len >> 5);
        const uint32_t i0 = o + (uint32_t)((b << blog2) - t0) + 8 * q; /* this lane's first word in sm */
        const uint32_t sh = 8 * (i0 & 7);
        const unsigned long long *w64 = reinterpret_cast<const unsigned long long *>(sm) + (i0 >> 3);
        uint64_t acc = acc_init(q);
        const uint32_t nsmax = __reduce_max_sync(0xffffffffu, ns);
        /* lanes without a block (ns = 0) read from sm's start in the batches
         * where every other lane has all UNROLL stripes (no tests then) */
        const bool idle = ns == 0;
        const uint32_t kk = idle ? 0 : (uint32_t)k;
        const unsigned long long *wp = idle ? reinterpret_cast<const unsigned long long *>(sm) : w64;
        const uint32_t *wq = reinterpret_cast<const uint32_t *>(sm) + (idle ? 0 : i0 >> 2), sh4 = 8 * (i0 & 3);
        for (uint32_t t = 0; t < nsmax + 7; t += UNROLL) {
            if (__all_sync(0xffffffffu, idle || (t >= kk && t + UNROLL <= ns + kk))) { /* warp-uniform */
                uint64_t w[UNROLL];
#pragma unroll
                for (int u = 0; u < UNROLL; u++) {
                    const uint32_t r = t + u - kk;
                    if (W4) {
                        const uint32_t a0 = wq[8 * r], a1 = wq[8 * r + 1], a2 = wq[8 * r + 2];
                        w[u] = (uint64_t)__funnelshift_r(a1, a2, sh4) << 32 | __funnelshift_r(a0, a1, sh4);
                    } else {
                        const unsigned long long lo = wp[4 * r], hi = wp[4 * r + 1];
                        w[u] = sh ? (lo >> sh) | (hi << (64 - sh)) : lo;
                    }
                }
#pragma unroll
                for (int u = 0; u < UNROLL; u++) acc = scz_xxh_round(acc, w[u]);
                continue;
            }
            uint64_t w[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const int r = (int)(t + u) - k; /* stripe */
                w[u] = 0;
                if (r >= 0 && (uint32_t)r < ns) {
                    const unsigned long long lo = w64[4 * r], hi = w64[4 * r + 1];
                    w[u] = sh ? (lo >> sh) | (hi << (64 - sh)) : lo;
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const int r = (int)(t + u) - k;
                if (r >= 0 && (uint32_t)r < ns) acc = scz_xxh_round(acc, w[u]);
            }
        }
        const scz_xxh_acc a = group_acc(acc, lane);
        if (q == 0 && b < b1) bh[b] = scz_xxh_finish(&a, len, sm + (i0 - 8 * q) + 32ull * ns, 0);
    }
}

} // namespace scz_bh

#endif

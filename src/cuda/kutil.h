/*
 * kutil.h -- small pieces every codec's kernels use (CUDA C++, .cu files
 * only): scratch layouts by bump allocation, byte-exact little-endian
 * loads, a block-cooperative copy to any alignment, asynchronous 16-byte
 * copies into shared memory, the decoupled look-back of a one-pass encoder
 * (ndzip, gfc), the grid of a persistent kernel. Inline, so each codec's
 * translation unit has its own.
 */
#ifndef SCZ_CUDA_KUTIL_H
#define SCZ_CUDA_KUTIL_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

namespace scz_ku {

inline size_t rup(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* A setting read from the environment once per process: parse(getenv(name))
 * (its argument NULL where unset), kept in a function-local static, whose
 * initialization C++ makes thread-safe (host threads may call at once).
 * Each call site passes its own lambda, hence its own instance and
 * static. */
template <typename F> auto env_once(const char *name, F parse) -> decltype(parse(name)) {
    static const auto v = parse(getenv(name));
    return v;
}

/* A bump layout of device scratch: the same sequence of take() gives the
 * size (base NULL) and the pointers; every piece 256-byte aligned. */
struct Bump {
    uint8_t *base;
    size_t o;
    template <typename P> P *take(size_t count) {
        P *r = reinterpret_cast<P *>(base ? base + o : nullptr);
        o = rup(o + count * sizeof(P), 256);
        return r;
    }
};

/* The larger of two words: the max operator of cub's block scans and
 * reductions. */
struct MaxOp {
    __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

/* x, opaque to the compiler: a per-block base pointer that it keeps in a
 * register instead of folding its 64-bit offset into every element's
 * address (one IMAD.WIDE an access from a 32-bit index, not an add chain).
 * Stores through it are generic ones unless written with __stwb & co. */
template <typename P> __device__ __forceinline__ P *opaque(P *x) {
    asm("" : "+l"(x));
    return x;
}

/* Little-endian loads at any byte address. */
__device__ __forceinline__ uint32_t ldb32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
__device__ __forceinline__ uint64_t ldb64(const uint8_t *p) { return ldb32(p) | (uint64_t)ldb32(p + 4) << 32; }

/* The u32 at p (p + 4 <= end) from aligned word loads: the word holding p
 * (inside the allocation, whose start is aligned) and the next one if it
 * ends before `end`, else the missing bytes one by one. */
__device__ __forceinline__ uint32_t ld32u(const uint8_t *p, const uint8_t *end) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const unsigned sh = (unsigned)(a & 3);
    const uint32_t *q = reinterpret_cast<const uint32_t *>(a - sh);
    if (!sh) return q[0];
    const uint32_t lo = q[0];
    uint32_t hi = 0;
    if (reinterpret_cast<const uint8_t *>(q + 2) <= end) hi = q[1];
    else
        for (unsigned i = 0; i < sh; i++) hi |= (uint32_t)p[4 - sh + i] << (8 * i);
    return __funnelshift_r(lo, hi, 8 * sh);
}

/* n bytes from s to d (any alignments) by NTH cooperating threads (tid
 * 0..NTH-1): aligned 4-byte stores, bytes at the two ends. */
template <uint32_t NTH>
__device__ __forceinline__ void copy_bytes(uint8_t *d, const uint8_t *s, uint64_t n, uint32_t tid) {
    uint64_t head = (4 - (reinterpret_cast<uintptr_t>(d) & 3)) & 3;
    if (head > n) head = n;
    if (tid < head) d[tid] = s[tid];
    const uint64_t nw = (n - head) / 4;
    uint32_t *dw = reinterpret_cast<uint32_t *>(d + head);
    const uint8_t *sw = s + head, *end = s + n;
    for (uint64_t k = tid; k < nw; k += NTH) dw[k] = ld32u(sw + 4 * k, end);
    const uint64_t t = head + 4 * nw + tid;
    if (t < n) d[t] = s[t];
}

/* 16-byte asynchronous copy global -> shared (LDGSTS, both addresses
 * 16-byte aligned): no registers held, so every piece of a staged block is
 * in flight at once; cp_async_wait_all() waits for this thread's copies
 * (a barrier or __syncwarp() then makes them visible to the others). */
__device__ __forceinline__ void cp_async16(void *sdst, const void *gsrc) {
    const unsigned sa = (unsigned)__cvta_generic_to_shared(sdst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(gsrc) : "memory");
}
/* The same for one 4-byte word (both addresses 4-byte aligned). */
__device__ __forceinline__ void cp_async4(void *sdst, const void *gsrc) {
    const unsigned sa = (unsigned)__cvta_generic_to_shared(sdst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(sa), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
/* Groups of copies: commit closes this thread's group of copies issued
 * since the last commit; cp_async_wait_group<N>() waits until at most N of
 * its groups are still in flight (the older ones have landed). */
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* Decoupled look-back over the work units of a one-pass encoder, in
 * ticket order (a unit waits only for units of lower tickets, which have
 * started): called by one whole warp, it publishes unit g's aggregate
 * `agg`, sums the aggregates of the units before it until one with an
 * inclusive prefix, publishes its own inclusive prefix and returns the
 * exclusive one. State words (zeroed before the launch): flag in the top
 * two bits (LB_AGG aggregate, LB_INC inclusive), value (< 2^62) below.
 * Used for payload offsets: the last unit of a chunk publishes nothing here
 * (publish = false) and, once it knows the chunk's form (coded or stored),
 * the chunk's end as an inclusive prefix (never an aggregate), so every
 * look-back stops at the chunk's start at the latest, and lb_chunk_start()
 * of the chunk's first unit is the payload offset of the chunk. */
constexpr unsigned long long LB_AGG = 1ull << 62, LB_INC = 2ull << 62, LB_VAL = LB_AGG - 1;

__device__ inline uint64_t lookback(unsigned long long *state, uint64_t g, uint64_t agg, bool publish) {
    const int lane = threadIdx.x & 31;
    volatile unsigned long long *vs = state;
    if (g == 0) {
        if (publish && lane == 0) vs[0] = LB_INC | agg;
        return 0;
    }
    if (publish && lane == 0) vs[g] = LB_AGG | agg;
    uint64_t excl = 0;
    int64_t base = (int64_t)g - 1;
    for (;;) {
        const int64_t idx = base - lane;
        unsigned long long s = LB_INC;
        if (idx >= 0) {
            do {
                s = vs[idx];
            } while ((s >> 62) == 0);
        }
        const unsigned pm = __ballot_sync(0xffffffffu, (s >> 62) == 2);
        uint64_t val = s & LB_VAL;
        if (pm) {
            const int first = __ffs(pm) - 1;
            if (lane > first) val = 0;
        }
#pragma unroll
        for (int d = 16; d; d >>= 1) val += __shfl_xor_sync(0xffffffffu, val, d);
        excl += val;
        if (pm) break;
        base -= 32;
    }
    if (publish && lane == 0) vs[g] = LB_INC | (excl + agg);
    return excl;
}

/* Payload offset of the chunk whose first unit is g0: the end of the
 * previous chunk, published by its last unit (inclusive only). */
__device__ __forceinline__ uint64_t lb_chunk_start(const unsigned long long *state, uint64_t g0) {
    if (g0 == 0) return 0;
    volatile const unsigned long long *vs = state;
    unsigned long long s;
    do {
        s = vs[g0 - 1];
    } while ((s >> 62) != 2);
    return s & LB_VAL;
}

/* Blocks of nt threads (smem bytes of dynamic shared memory) that fill the
 * device once: the grid of a persistent kernel. */
inline int persistent_grid(const void *fn, int nt, int smem = 0) {
    int dev = 0, sms = 0, per = 0;
    if (cudaGetDevice(&dev) || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) sms = 132;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fn, nt, (size_t)smem) || per < 1) per = 1;
    return sms * per;
}

/* Programmatic dependent launch (compute capability 9.0 and up): a kernel
 * launched with launch_pdl may have its blocks scheduled while the kernel
 * before it in the stream drains, instead of after it has finished; it
 * must call grid_wait() first thing, unconditionally (before any return:
 * a kernel that ends without waiting would let the next one start before
 * the work ahead of it is done), which returns once everything before it
 * in the stream has completed and its writes are visible. Saves part of
 * the gap between a chain's kernels (a few microseconds each); with
 * another launch before it (memset, event), or on older devices, it is a
 * plain launch and grid_wait() returns at once. */
__device__ __forceinline__ void grid_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <typename... KArgs, typename... Args>
cudaError_t launch_pdl(void (*k)(KArgs...), dim3 grid, dim3 block, size_t smem, cudaStream_t s, Args... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    /* the attribute only on devices that have the feature (a build for
     * older ones launches as usual) */
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        major = 0;
    cfg.numAttrs = major >= 9 ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, k, static_cast<KArgs>(args)...);
}

} // namespace scz_ku

#endif

/*
 * lossy_sweep_cuda.h -- the sweep table of a level-1 interpolated chunk on
 * the GPU (FORMAT.md 7.9), shared by the decoder (lossy_dec.cu) and the
 * writer (lossy_enc1.cu): entry 0 is element 0, entry j + 1 sweep j, each
 * with its traversal positions, its elements' coordinates, its axis, level
 * stride and step. CUDA C++ (.cu files only); include lossy_interp_hd.h
 * first.
 */
#ifndef SCZ_LOSSY_SWEEP_CUDA_H
#define SCZ_LOSSY_SWEEP_CUDA_H

#include <stdint.h>

namespace scz_l1 {

/* One sweep (entry 0: element 0): its elements b[k] + m_k d[k], m_0 < c0,
 * m_1 < c1, in traversal order from position p0. */
struct Sweep {
    double h;                   /* the level's step h_lv */
    double rh;                  /* 1 / h_lv (+inf for h_lv = 0): the writer's residual quantization */
    lz1_div q0, q1;             /* division by c0, c1 (lz1_div_q) */
    uint32_t p0, n, c0, c1;
    uint32_t b[3], d[3];
    uint32_t a, s;              /* axis (3: element 0, predicted 0), level stride */
};

/* Entry 0 (element 0) of a chunk of L levels. */
__device__ __forceinline__ Sweep sweep_first(double h, int tight, uint32_t L) {
    Sweep w0;
    w0.h = lz1_level_step(h, tight, L);
    w0.rh = w0.h > 0 ? __ddiv_rn(1.0, w0.h) : __longlong_as_double(0x7ff0000000000000ll);
    w0.p0 = 0, w0.n = 1, w0.c0 = w0.c1 = 1, w0.a = 3, w0.s = 0, w0.q0 = w0.q1 = lz1_div_make(1);
    for (int k = 0; k < 3; k++) w0.b[k] = 0, w0.d[k] = 1;
    return w0;
}

/* The sweep of level lv along axis a from traversal position p0, its
 * elements b, d, cnt (lz1_sweep_dims). */
__device__ __forceinline__ Sweep sweep_entry(uint32_t a, uint32_t lv, double h, int tight, uint32_t p0,
                                             const uint64_t *b, const uint64_t *d, const uint64_t *cnt) {
    Sweep w;
    w.h = lz1_level_step(h, tight, lv);
    w.rh = w.h > 0 ? __ddiv_rn(1.0, w.h) : __longlong_as_double(0x7ff0000000000000ll);
    w.p0 = p0;
    w.n = (uint32_t)(cnt[0] * cnt[1] * cnt[2]);
    w.c0 = (uint32_t)cnt[0];
    w.c1 = (uint32_t)cnt[1];
    w.q0 = lz1_div_make(w.c0);
    w.q1 = lz1_div_make(w.c1);
    for (int k = 0; k < 3; k++) w.b[k] = (uint32_t)b[k], w.d[k] = (uint32_t)d[k];
    w.a = a;
    w.s = (uint32_t)((uint64_t)1 << lv);
    return w;
}

/* The sweeps of a chunk of coding rank `rank` and extents ex in axis order
 * `order` (lossy.c lz_sweep_starts, lossy_interp.h LZ_SWEEPS: levels from
 * the coarsest, the axes of each in the order), level bounds `tight`, step
 * h = 2 eb_abs: entries W[0 .. S] where they fit in cap; returns S, the
 * number of sweeps. By the 32 lanes of a warp (all of them call it, with
 * the same arguments): lane t computes sweeps t + 32 r (entries t + 32 r +
 * 1), their positions p0 by a warp scan of the counts. (One thread took
 * ~30 us a chunk: 64-bit and binary64 divisions, ~27 sweeps in a row;
 * H100, k_stab and the decoder's k_head1.) */
__device__ inline uint32_t sweep_table_warp(Sweep *W, uint32_t cap, uint32_t rank, const uint64_t *ex, uint32_t order,
                                            int tight, double h) {
    const uint32_t lane = threadIdx.x & 31;
    uint8_t perm[3], pos[3];
    lz1_order(rank, order, perm, pos);
    const uint32_t L = lz1_levels(rank, ex), S = lz1_nsweeps(rank, ex);
    if (lane == 0 && cap) W[0] = sweep_first(h, tight, L);
    uint32_t base = 1;
    for (uint32_t r0 = 0; r0 < S; r0 += 32) {
        /* sweep k = r0 + lane: its level and axis (levels from the coarsest, the axes of each in the order) */
        const uint32_t k = r0 + lane;
        uint32_t i = 0, klv = 0, ka = 0;
        bool found = false;
        for (uint32_t lv = L; lv-- > 0 && !found;)
            for (uint32_t j = 0; j < rank; j++) {
                const uint32_t a = perm[j];
                if (((uint64_t)1 << lv) >= ex[a]) continue;
                if (i++ == k) {
                    klv = lv, ka = a, found = true;
                    break;
                }
            }
        uint64_t b[3], d[3], cnt[3];
        uint32_t n = 0;
        if (found) {
            lz1_sweep_dims(ex, pos, ka, (uint64_t)1 << klv, b, d, cnt);
            n = (uint32_t)(cnt[0] * cnt[1] * cnt[2]);
        }
        uint32_t incl = n;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t y = __shfl_up_sync(0xffffffffu, incl, o);
            if ((int)lane >= o) incl += y;
        }
        if (found && k + 1 < cap) W[k + 1] = sweep_entry(ka, klv, h, tight, base + incl - n, b, d, cnt);
        base += __shfl_sync(0xffffffffu, incl, 31);
    }
    return S;
}

} // namespace scz_l1

#endif

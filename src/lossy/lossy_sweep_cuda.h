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

/* The sweeps of a chunk of coding rank `rank` and extents ex in axis order
 * `order` (lossy.c lz_sweep_starts, lossy_interp.h LZ_SWEEPS), level bounds
 * `tight`, step h = 2 eb_abs: entries W[0 .. S] where they fit in cap;
 * returns S, the number of sweeps. */
__device__ inline uint32_t sweep_table(Sweep *W, uint32_t cap, uint32_t rank, const uint64_t *ex, uint32_t order,
                                       int tight, double h) {
    uint8_t perm[3], pos[3];
    lz1_order(rank, order, perm, pos);
    const uint32_t L = lz1_levels(rank, ex);
    Sweep w0;
    w0.h = lz1_level_step(h, tight, L);
    w0.rh = w0.h > 0 ? __ddiv_rn(1.0, w0.h) : __longlong_as_double(0x7ff0000000000000ll);
    w0.p0 = 0, w0.n = 1, w0.c0 = w0.c1 = 1, w0.a = 3, w0.s = 0, w0.q0 = w0.q1 = lz1_div_make(1);
    for (int k = 0; k < 3; k++) w0.b[k] = 0, w0.d[k] = 1;
    if (cap) W[0] = w0;
    uint32_t S = 0, base = 1;
    for (uint32_t lv = L; lv-- > 0;) {
        const uint64_t s = (uint64_t)1 << lv;
        const double hl = lz1_level_step(h, tight, lv);
        for (uint32_t j = 0; j < rank; j++) {
            const uint32_t a = perm[j];
            if (s >= ex[a]) continue;
            uint64_t b[3], d[3], cnt[3];
            lz1_sweep_dims(ex, pos, a, s, b, d, cnt);
            Sweep w;
            w.h = hl;
            w.rh = hl > 0 ? __ddiv_rn(1.0, hl) : __longlong_as_double(0x7ff0000000000000ll);
            w.p0 = base;
            w.n = (uint32_t)(cnt[0] * cnt[1] * cnt[2]);
            w.c0 = (uint32_t)cnt[0];
            w.c1 = (uint32_t)cnt[1];
            w.q0 = lz1_div_make(w.c0);
            w.q1 = lz1_div_make(w.c1);
            for (int k = 0; k < 3; k++) w.b[k] = (uint32_t)b[k], w.d[k] = (uint32_t)d[k];
            w.a = a;
            w.s = (uint32_t)s;
            if (S + 1 < cap) W[S + 1] = w;
            S++;
            base += w.n;
        }
    }
    return S;
}

} // namespace scz_l1

#endif

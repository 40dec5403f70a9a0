/*
 * lossy_sweep_cuda.h -- the sweep table of a level-1 interpolated chunk on
 * the GPU (FORMAT.md 7.9), shared by the decoder (lossy_dec.cu) and the
 * writer (lossy_enc1.cu): entry 0 is element 0, entry j + 1 sweep j, each
 * with its traversal positions, its elements' coordinates, its axis, level
 * stride and step; and the geometry and element helpers of the levels
 * coded by rows (rows_ext, RowGeo, row_nb / row_odd, pair_ld / pair_st).
 * CUDA C++ (.cu files only); include lossy_interp_hd.h first.
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

/* The finest level (s = 1) of a chunk of rank 3 by rows along axis 0, the
 * geometry the decoder's k_rows and the writer's k_erows share. At this
 * level the elements of a row (y, z) at even x belong to the sweep of the
 * class axis `ax`, the latest of axes 1, 2 in the order with an odd
 * coordinate (none, 3, where y and z are both even: class 0, coarser
 * elements), those at odd x to the sweep along axis 0 where it comes after
 * ax's (xafter), else to ax's too. Class 1: the first of axes 1, 2 in the
 * order odd, the other even; class 2: the second odd. A warp takes a row
 * segment of ROW_OWN pairs (2 j, 2 j + 1) plus one pair before and two
 * after (lanes 0, 30, 31). */
constexpr uint32_t ROW_OWN = 29;

struct RowPh { /* the finest level's sweep along one axis */
    uint32_t p0, c0, c1, dsh[3];
};

struct RowGeo {
    lz1_div q0, q1;
    uint32_t e[3], pos[3], np, nseg, nrows, rn0, ax, xafter;
    uint32_t rs[2], rsp[2]; /* the class's rows: y = rs[0] + rsp[0] u, z = rs[1] + rsp[1] v, u < rn0 */
    RowPh ph[3];
};

/* G for class cls of a chunk of extents e whose last three sweeps are
 * Wf[0 .. 2] (level 1, one along each axis); false if the class has no
 * rows. The decoder also takes the level of stride 2 so (Wf its three
 * sweeps, e the extents of the grid of even coordinates, ceil(e_k / 2)):
 * coordinates and code positions are then in units of the stride. */
__device__ __forceinline__ bool row_geo(RowGeo &G, const Sweep *Wf, const uint32_t *e, uint32_t cls) {
    for (uint32_t f = 0; f < 3; f++) {
        const Sweep &w = Wf[f];
        G.pos[w.a] = f;
        RowPh &P = G.ph[w.a];
        P.p0 = w.p0, P.c0 = w.c0, P.c1 = w.c1;
        for (int k = 0; k < 3; k++) P.dsh[k] = w.d[k] == 2 * w.s ? 1 : 0; /* in units of the level's stride */
    }
    for (int k = 0; k < 3; k++) G.e[k] = e[k];
    G.np = e[0] / 2;
    G.nseg = (G.np + ROW_OWN - 1) / ROW_OWN;
    /* axes 1, 2 in the order: f first, h second */
    const uint32_t f = G.pos[2] < G.pos[1] ? 2 : 1, hx = 3 - f;
    const uint32_t ef = e[f], eh = e[hx];
    uint32_t fs, fsp, fn, hs, hsp, hn; /* rows: f = fs + fsp u (u < fn), h = hs + hsp v (v < hn) */
    if (cls == 0) fs = 0, fsp = 2, fn = (ef + 1) / 2, hs = 0, hsp = 2, hn = (eh + 1) / 2, G.ax = 3;
    else if (cls == 1) fs = 1, fsp = 2, fn = ef / 2, hs = 0, hsp = 2, hn = (eh + 1) / 2, G.ax = f;
    else fs = 0, fsp = 1, fn = ef, hs = 1, hsp = 2, hn = eh / 2, G.ax = hx;
    G.xafter = G.ax == 3 || G.pos[0] > G.pos[G.ax];
    /* rs[0], rsp[0]: axis 1; rs[1], rsp[1]: axis 2; u runs over axis 1 */
    if (f == 1) G.rs[0] = fs, G.rsp[0] = fsp, G.rn0 = fn, G.rs[1] = hs, G.rsp[1] = hsp;
    else G.rs[0] = hs, G.rsp[0] = hsp, G.rn0 = hn, G.rs[1] = fs, G.rsp[1] = fsp;
    G.nrows = fn * hn;
    G.q0 = lz1_div_make(G.nseg);
    G.q1 = lz1_div_make(G.rn0 > 1 ? G.rn0 : 1);
    return G.nrows > 0;
}

/* Warp item w of G (a row segment) for lane: the row (y, z), its first
 * element rb, the lane's pair jp (lane 0 the pair before, 30 and 31 the
 * two after), whether it exists and whether the lane owns it. */
struct RowAt {
    uint32_t y, z, rb;
    int32_t jp;
    bool valid, own;
};
__device__ __forceinline__ RowAt row_at(const RowGeo &G, uint32_t w, uint32_t lane) {
    RowAt r;
    const uint32_t row = lz1_div_q(w, G.q0), seg = w - row * G.nseg;
    const uint32_t v = lz1_div_q(row, G.q1), u = row - v * G.rn0;
    r.y = G.rs[0] + G.rsp[0] * u, r.z = G.rs[1] + G.rsp[1] * v;
    r.rb = (r.z * G.e[1] + r.y) * G.e[0];
    r.jp = (int32_t)(seg * ROW_OWN + lane) - 1;
    r.valid = r.jp >= 0 && (uint32_t)r.jp < G.np;
    r.own = r.valid && lane >= 1 && lane <= ROW_OWN;
    return r;
}

/* The traversal position of element (x, y, z) in the sweep along axis a
 * (ax's, or a = 0 for an odd x). */
__device__ __forceinline__ uint32_t row_code(const RowGeo &G, uint32_t a, uint32_t x, uint32_t y, uint32_t z) {
    const RowPh &Q = G.ph[a];
    const uint32_t mx = (x - (a == 0)) >> Q.dsh[0], my = (y - (a == 1)) >> Q.dsh[1], mz = (z - (a == 2)) >> Q.dsh[2];
    return Q.p0 + (mz * Q.c1 + my) * Q.c0 + mx;
}

/* Whether a chunk of coding extents e[0..2] (rank 3) codes the level of
 * stride S by rows (the decoder's k_rows / k_rwalk, the writer's k_erows).
 * S = 1: the finest level (every axis of extent 2 or more, rows of an even
 * length). S = 2, asked where S = 1 holds: the level before it as well (on
 * the grid of even coordinates: rows of an even length whose pairs x =
 * 4 j, 4 j + 2 keep their two verbatim bits in one bitmap word, e0
 * divisible by 4; every axis with a sweep at that level, e1, e2 >= 3).
 * The hosts' launch plans and the kernels ask the same question. */
template <typename I> __host__ __device__ __forceinline__ bool rows_ext(const I *e, uint32_t S) {
    if (S == 1) return e[0] >= 2 && (e[0] & 1) == 0 && e[1] >= 2 && e[2] >= 2;
    return e[0] >= 4 && (e[0] & 3) == 0 && e[1] >= 3 && e[2] >= 3;
}

/* Walks along the class axis (classes 1 and 2 of a rows level: the
 * decoder's k_rwalk, the writer's k_erows<.., true>): a warp item is a
 * row segment and `steps` consecutive rows of the class along Ra = G.ax
 * (odd coordinates along Ra: the rows at +-1, +-3 belong to earlier
 * classes). */
struct Walk {
    uint32_t Ra, nR, npc, nw; /* the class axis, the class's rows along it, walks along it, warp items */
};
__device__ __forceinline__ Walk walk_geo(const RowGeo &G, uint32_t steps) {
    Walk W;
    W.Ra = G.ax;
    /* rows: y = rs[0] + rsp[0] u (u < rn0), z = rs[1] + rsp[1] v; the walk runs over Ra's index */
    const uint32_t nu = G.rn0, nv = G.nrows / G.rn0;
    W.nR = W.Ra == 1 ? nu : nv;
    const uint32_t nO = W.Ra == 1 ? nv : nu;
    W.npc = (W.nR + steps - 1) / steps;
    W.nw = G.nseg * nO * W.npc;
    return W;
}

/* Warp item w of walk W for lane: its pair x0 (valid and own as row_at's),
 * the class's rows k0 .. k1 - 1 along Ra, the first one's coordinates y0,
 * z0 and ca0 along Ra (odd). */
struct WalkAt {
    uint32_t x0, k0, k1, y0, z0, ca0;
    bool valid, own;
};
__device__ __forceinline__ WalkAt walk_at(const RowGeo &G, const Walk &W, uint32_t steps, uint32_t w, uint32_t lane) {
    WalkAt a;
    const uint32_t seg = w % G.nseg, t = w / G.nseg, pc = t % W.npc, oi = t / W.npc;
    const int32_t jp = (int32_t)(seg * ROW_OWN + lane) - 1;
    a.valid = jp >= 0 && (uint32_t)jp < G.np;
    a.own = a.valid && lane >= 1 && lane <= ROW_OWN;
    a.x0 = 2 * (uint32_t)(jp > 0 ? jp : 0);
    a.k0 = pc * steps;
    a.k1 = a.k0 + steps < W.nR ? a.k0 + steps : W.nR;
    /* the rows' coordinates: Ra's from k, the other's from oi */
    const uint32_t u0 = W.Ra == 1 ? a.k0 : oi, v0 = W.Ra == 1 ? oi : a.k0;
    a.y0 = G.rs[0] + G.rsp[0] * u0, a.z0 = G.rs[1] + G.rsp[1] * v0;
    a.ca0 = W.Ra == 1 ? a.y0 : a.z0;
    return a;
}

/* A code position's step from a row of a walk to the next (2 along Ra) in
 * the sweep along axis a. */
__device__ __forceinline__ uint32_t walk_dstep(const RowGeo &G, uint32_t Ra, uint32_t a) {
    const RowPh &Q = G.ph[a];
    return Ra == 1 ? (2u >> Q.dsh[1]) * Q.c0 : (2u >> Q.dsh[2]) * Q.c1 * Q.c0;
}

/* The odd element xo of a row whose axis 0 is swept after the class axis
 * (xafter): the R of the even elements at xo + 1, xo - 3, xo + 3 from
 * the lanes after and before (every lane calls row_nb, own pair or not:
 * shuffles), then its prediction (row_odd, lane's own pairs). */
struct RowNb {
    double b, a3, b3;
};
__device__ __forceinline__ RowNb row_nb(double Re) {
    RowNb n;
    n.b = __shfl_down_sync(0xffffffffu, Re, 1), n.a3 = __shfl_up_sync(0xffffffffu, Re, 1),
    n.b3 = __shfl_down_sync(0xffffffffu, Re, 2);
    return n;
}
template <bool CUBIC> __device__ __forceinline__ double row_odd(const RowNb &n, double Re, uint32_t xo, uint32_t e0) {
    const bool hb = xo + 1 < e0, ha3 = CUBIC && hb && xo >= 3, hb3 = CUBIC && hb && xo + 3 < e0;
    return lz_finterp((int)CUBIC, Re, hb, n.b, ha3, n.a3, hb3, n.b3);
}

/* A lane's pair (x, x + S) of a rows level's grid at index i of a
 * chunk's array a: S = 1 (the finest level), the elements i, i + 1, one
 * aligned load or store; S = 2 (the level before it, on the grid of even
 * coordinates), the elements i, i + 2, the one between belonging to the
 * finer level (not touched). The decoder's k_rows / k_rwalk and the
 * writer's k_erows. */
template <uint32_t S, typename U, typename U2> __device__ __forceinline__ U2 pair_ld(const U *a, uint32_t i) {
    if (S == 1) return __ldg(reinterpret_cast<const U2 *>(a + i));
    U2 v;
    v.x = __ldg(a + i), v.y = __ldg(a + i + S);
    return v;
}
template <uint32_t S, typename U, typename U2> __device__ __forceinline__ void pair_st(U *a, uint32_t i, U2 v) {
    if (S == 1) {
        *reinterpret_cast<U2 *>(a + i) = v;
    } else {
        a[i] = v.x;
        a[i + S] = v.y;
    }
}

} // namespace scz_l1

#endif

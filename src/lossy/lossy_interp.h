/*
 * lossy_interp.h -- level-1 kernels of the lossy codec (docs/FORMAT.md
 * 7.9-7.10), included by lossy.c once per element type with LZ_T, LZ_U and
 * LZ_SFX defined (as lossy_kern.h): the predictor estimate and the
 * multilevel interpolation predictor over a whole chunk, with residual
 * quantization against the values a decoder reconstructs (lz1_rq,
 * lz_rrecon: lossy_est_hd.h and lossy_interp_hd.h, one definition of each
 * operation for the CPU and the GPU).
 */
#define LZ_CAT2(a, b) a##b
#define LZ_CAT(a, b) LZ_CAT2(a, b)
#define LZ_FN(name) LZ_CAT(name, LZ_SFX)

#ifndef LZ_SWEEPS
/* The sweeps of the interpolation order (FORMAT.md 7.9) after element 0:
 * levels s = 2^(L-1) .. 1, in each the axes in the chunk's axis order ord
 * (lz1_order); a sweep's rows go to Tp threads (its elements depend on
 * earlier sweeps only). BODY(i, P, ci, lv): element index, prediction from
 * R, code index (traversal position), level (s = 2^lv). The pragma names the variable Tp of
 * the caller (a _Pragma string is not macro-expanded). */
#define LZ_SWEEPS(g, cubic, ord, R, Tp, BODY)                                                              \
    do {                                                                                                   \
        const unsigned n_ = (g)->rank;                                                                     \
        uint8_t perm_[3], pos_[3];                                                                         \
        lz1_order(n_, ord, perm_, pos_);                                                                   \
        const uint64_t e_[3] = {(g)->e[0], (g)->e[1], (g)->e[2]};                                          \
        const uint64_t st_[3] = {1, e_[0], e_[0] * e_[1]};                                                 \
        uint64_t base_ = 1;                                                                                \
        for (unsigned lv_ = lz_levels(g); lv_-- > 0;) {                                                    \
            const uint64_t s_ = (uint64_t)1 << lv_;                                                        \
            for (unsigned j_ = 0; j_ < n_; j_++) {                                                         \
                const unsigned a_ = perm_[j_];                                                             \
                if (s_ >= e_[a_]) continue;                                                                \
                uint64_t b_[3], d_[3], cnt_[3];                                                            \
                lz1_sweep_dims(e_, pos_, a_, s_, b_, d_, cnt_);                                            \
                const uint64_t rows_ = cnt_[1] * cnt_[2], nx_ = cnt_[0], sa_ = st_[a_], ea_ = e_[a_];      \
                if (!rows_ || !nx_) continue;                                                              \
                _Pragma("omp parallel for schedule(static) num_threads(Tp) if (Tp > 1 && rows_ * nx_ >= 32768)") \
                for (uint64_t rr_ = 0; rr_ < rows_; rr_++) {                                               \
                    const uint64_t z_ = b_[2] + rr_ / cnt_[1] * d_[2], y_ = b_[1] + rr_ % cnt_[1] * d_[1]; \
                    const uint64_t row_ = (z_ * e_[1] + y_) * e_[0], c0_ = base_ + rr_ * nx_;              \
                    const uint64_t tc_ = a_ == 1 ? y_ : z_;                                                \
                    /* elements whose neighbours all exist (k in [klo_, khi_)): the                        \
                     * interior formula without the boundary tests, the same value */                     \
                    uint64_t klo_ = 0, khi_ = 0;                                                           \
                    const uint64_t off_ = (cubic) ? 3 * s_ : s_;                                           \
                    if (a_ == 0) {                                                                         \
                        klo_ = (cubic) ? 1 : 0; /* x = s + 2 s k >= 3s */                                  \
                        khi_ = ea_ > s_ + off_ ? (ea_ - s_ - off_ - 1) / (2 * s_) + 1 : 0;                 \
                        if (khi_ > nx_) khi_ = nx_;                                                        \
                    } else if (tc_ + off_ < ea_ && (!(cubic) || tc_ >= 3 * s_)) {                          \
                        khi_ = nx_;                                                                        \
                    }                                                                                      \
                    if (khi_ < klo_) khi_ = klo_;                                                          \
                    for (uint64_t k_ = 0; k_ < klo_; k_++) {                                               \
                        const uint64_t x_ = b_[0] + k_ * d_[0], i_ = row_ + x_;                            \
                        BODY(i_, lz_ipred(R, i_, a_ == 0 ? x_ : tc_, s_, sa_, ea_, cubic), c0_ + k_, lv_); \
                    }                                                                                      \
                    const uint64_t o_ = s_ * sa_;                                                          \
                    if (cubic) {                                                                           \
                        for (uint64_t k_ = klo_; k_ < khi_; k_++) {                                        \
                            const uint64_t i_ = row_ + b_[0] + k_ * d_[0];                                 \
                            BODY(i_, lz_icub(R, i_, o_), c0_ + k_, lv_);                                   \
                        }                                                                                  \
                    } else {                                                                               \
                        for (uint64_t k_ = klo_; k_ < khi_; k_++) {                                        \
                            const uint64_t i_ = row_ + b_[0] + k_ * d_[0];                                 \
                            BODY(i_, lz_ilin(R, i_, o_), c0_ + k_, lv_);                                   \
                        }                                                                                  \
                    }                                                                                      \
                    for (uint64_t k_ = khi_; k_ < nx_; k_++) {                                             \
                        const uint64_t x_ = b_[0] + k_ * d_[0], i_ = row_ + x_;                            \
                        BODY(i_, lz_ipred(R, i_, a_ == 0 ? x_ : tc_, s_, sa_, ea_, cubic), c0_ + k_, lv_); \
                    }                                                                                      \
                }                                                                                          \
                base_ += rows_ * nx_;                                                                      \
            }                                                                                              \
        }                                                                                                  \
    } while (0)
#endif

/* Predictor estimate (FORMAT.md 7.10): the exact prediction errors of
 * Lorenzo and of linear and cubic interpolation in every axis order at the
 * sample elements i = LZ1_SAMPLE_OFF + k LZ1_SAMPLE_STEP whose
 * neighbourhoods hold no verbatim element, each costing lz1_cost(error):
 * costs[0] Lorenzo, costs[1 + 2o] linear and costs[2 + 2o] cubic in axis
 * order o (o < lz1_norders(rank); the others 0), costs[LZ1_NCOST - 1] the
 * number of those samples. An element's interpolation in order o runs
 * along the axis, among those whose coordinate has the fewest trailing
 * zero bits, that comes last in the order: each such axis is computed
 * once. One sample: lossy_est_hd.h lz1_est_sample (the GPU writer's too). */
static void LZ_FN(lz_estimate)(const lz_geo *g, const LZ_T *src, const lz_qp *qp, int T, uint64_t *costs) {
    const unsigned n = g->rank;
    const uint64_t e[3] = {g->e[0], g->e[1], g->e[2]};
    unsigned lb[3] = {0, 0, 0};
    for (unsigned d = 0; d < n; d++) lb[d] = lz_block_log2[n][d];
    const int f32 = sizeof(LZ_T) == 4;
    uint64_t kk[LZ1_NCOST]; /* integer sums: any thread count, same result */
    memset(kk, 0, sizeof kk);
    const uint64_t ns = g->n > LZ1_SAMPLE_OFF ? (g->n - LZ1_SAMPLE_OFF + LZ1_SAMPLE_STEP - 1) / LZ1_SAMPLE_STEP : 0;
#pragma omp parallel for schedule(static) num_threads(T) reduction(+ : kk[:LZ1_NCOST]) if (T > 1 && ns > 8192)
    for (uint64_t si = 0; si < ns; si++) {
        const uint64_t i = LZ1_SAMPLE_OFF + si * LZ1_SAMPLE_STEP;
        uint64_t kl, cl[3], cc[3];
        unsigned set;
        if (lz1_est_sample(src, f32, n, e, lb, i, qp->recip, qp->ebx2, qp->eb, &kl, cl, cc, &set))
            lz1_est_add(n, set, kl, cl, cc, kk);
    }
    memcpy(costs, kk, sizeof kk);
}

/* Interpolation encoder over the whole chunk (FORMAT.md 7.9): residual
 * quantization of each element against the interpolation of the values a
 * decoder reconstructs (R, scratch of n doubles); codes in traversal order
 * with radius qp->radius, outliers, verbatim positions and histograms per
 * code range ts[0 .. Tp-1]. The elements of one sweep (level, axis)
 * depend only on earlier sweeps: its rows go to Tp threads, each element's
 * code at its traversal position; outliers leave their error at odel[ci]
 * and verbatim elements their index at vpos[ci] and a placeholder code,
 * and one pass in code order then builds the lists and decides V_new /
 * V_repeat (the result does not depend on Tp). */
static void LZ_FN(interp_encode)(const lz_geo *g, const LZ_T *src, const lz_qp *qp, int cubic, unsigned ord, int tight, int Tp,
                                 lz_tstate *ts, uint16_t *codes, uint32_t *oidx, int64_t *odel, uint32_t *vpos,
                                 double *R) {
    const int64_t r = qp->radius;
    const uint64_t span = 2 * (uint64_t)r - 1;
    const uint16_t vnew = (uint16_t)LZ_VNEW(r), vrep = (uint16_t)LZ_VREP(r);
    const double eb = qp->eb;
    const int f32 = sizeof(LZ_T) == 4;
    double lh[LZ1_MAX_LEVELS], lr[LZ1_MAX_LEVELS]; /* h and 1/h of each level */
    const unsigned L = lz_level_steps(qp, tight, g, lh, lr);
#define LZ_QUANT(ii, P, ci, lv)                                                                            \
    do {                                                                                                   \
        int64_t q_;                                                                                        \
        double xr_;                                                                                        \
        if (lz1_rq((double)src[ii], (P), lr[lv], lh[lv], eb, f32, &q_, &xr_)) {                           \
            R[ii] = (P);                                                                                   \
            codes[ci] = vnew; /* placeholder: V_new or V_repeat below */                                   \
            vpos[ci] = (uint32_t)(ii);                                                                     \
        } else {                                                                                           \
            R[ii] = xr_;                                                                                   \
            if ((uint64_t)q_ + (uint64_t)(r - 1) < span) {                                                 \
                codes[ci] = (uint16_t)(q_ + r);                                                            \
            } else {                                                                                       \
                codes[ci] = LZ_CODE_OUTLIER;                                                               \
                odel[ci] = q_;                                                                             \
            }                                                                                              \
        }                                                                                                  \
    } while (0)
    LZ_QUANT(0, 0.0, 0, L);
    LZ_SWEEPS(g, cubic, ord, R, Tp, LZ_QUANT);
#undef LZ_QUANT
    /* per code range ts[t] (Tp ranges, as Lorenzo's thread ranges): its
     * lists at [c0, c0 + count) of oidx / odel / vpos (written at or below
     * the position read), V_new or V_repeat within the range (lossy.c joins
     * the ranges), its histogram */
#pragma omp parallel for schedule(static, 1) num_threads(Tp) if (Tp > 1)
    for (int t = 0; t < Tp; t++) {
        lz_tstate *tsr = &ts[t];
        uint32_t *hist = tsr->hist;
        uint64_t no = tsr->c0, nvp = tsr->c0;
        for (uint64_t ci = tsr->c0; ci < tsr->c1; ci++) {
            uint16_t c = codes[ci];
            if (c == LZ_CODE_OUTLIER) {
                oidx[no] = (uint32_t)ci;
                odel[no++] = odel[ci];
            } else if (c == vnew) {
                const uint32_t ii = vpos[ci];
                LZ_U bits;
                memcpy(&bits, src + ii, sizeof bits);
                if (tsr->has_verb && (uint64_t)bits == tsr->last_bits) {
                    c = vrep;
                } else {
                    vpos[nvp++] = ii;
                }
                if (!tsr->has_verb) {
                    tsr->has_verb = 1;
                    tsr->first_verb_code = ci;
                    tsr->first_bits = bits;
                }
                tsr->last_bits = bits;
                codes[ci] = c;
            }
            hist[c]++;
        }
        tsr->n_out = no - tsr->c0;
        tsr->n_vnew = nvp - tsr->c0;
    }
}

/* Interpolation decoder: codes in traversal order; R and Dv scratch of n
 * doubles / int64 each. One pass in code order gives each code its error
 * (or, for a verbatim code, its value's index) and validates the lists;
 * then the sweeps in parallel (Tp threads). Returns 0 or -1 (outliers or
 * verbatim values do not match the codes). */
static int LZ_FN(interp_decode)(const lz_geo *g, LZ_T *dst, const lz_qp *qp, int cubic, unsigned ord, int tight, int Tp,
                                const uint16_t *codes, const uint32_t *oidx, const int64_t *odel, uint64_t n_out,
                                const uint8_t *vvals, uint64_t n_verb, double *R, int64_t *Dv) {
    const uint64_t r = (uint64_t)qp->radius, twor = 2 * r;
    const uint16_t vnew = (uint16_t)LZ_VNEW(r);
    const int f32 = sizeof(LZ_T) == 4;
    double lh[LZ1_MAX_LEVELS], lr[LZ1_MAX_LEVELS];
    const unsigned L = lz_level_steps(qp, tight, g, lh, lr);
    uint64_t op = 0, vp = 0;
    for (uint64_t ci = 0; ci < g->n; ci++) {
        const uint64_t c = codes[ci];
        if (c >= twor) {
            if (c == vnew) {
                if (vp >= n_verb) return -1;
                vp++;
            } else if (vp == 0) {
                return -1;
            }
            Dv[ci] = (int64_t)(vp - 1);
        } else if (c == 0) {
            if (op >= n_out || oidx[op] != ci) return -1;
            Dv[ci] = odel[op++];
        } else {
            Dv[ci] = (int64_t)(c - r);
        }
    }
    if (op != n_out || vp != n_verb) return -1;
#define LZ_TAKE(ii, P, ci, lv)                                                                             \
    do {                                                                                                   \
        const double pp_ = (P);                                                                            \
        if (codes[ci] >= twor) {                                                                           \
            memcpy(dst + (ii), vvals + (uint64_t)Dv[ci] * sizeof(LZ_T), sizeof(LZ_T));                     \
            R[ii] = pp_;                                                                                   \
        } else {                                                                                           \
            const double xr_ = lz_rrecon(pp_, Dv[ci], lh[lv], f32);                                          \
            dst[ii] = (LZ_T)xr_;                                                                           \
            R[ii] = xr_;                                                                                   \
        }                                                                                                  \
    } while (0)
    LZ_TAKE(0, 0.0, 0, L);
    LZ_SWEEPS(g, cubic, ord, R, Tp, LZ_TAKE);
#undef LZ_TAKE
    return 0;
}

#undef LZ_FN
#undef LZ_CAT
#undef LZ_CAT2

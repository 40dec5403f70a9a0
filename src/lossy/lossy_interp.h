/*
 * lossy_interp.h -- level-1 kernels of the lossy codec (docs/FORMAT.md
 * 7.9-7.10), included by lossy.c once per element type with LZ_T, LZ_U and
 * LZ_SFX defined (as lossy_kern.h): the predictor estimate and the
 * multilevel interpolation predictor over a whole chunk, with residual
 * quantization against the values a decoder reconstructs (lz_rquant,
 * lz_rrecon in lossy.c: one definition of each operation for both sides).
 */
#define LZ_CAT2(a, b) a##b
#define LZ_CAT(a, b) LZ_CAT2(a, b)
#define LZ_FN(name) LZ_CAT(name, LZ_SFX)

#ifndef LZ_SWEEPS
/* LZ_SSE2, LZ_VSEAL, lz_pq2, lz_rq2: lossy_kern.h */
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
                    LZ_SWEEP_INTERIOR(cubic, R, row_ + b_[0], d_[0], o_, klo_, khi_, c0_, lv_, BODY);      \
                    for (uint64_t k_ = khi_; k_ < nx_; k_++) {                                             \
                        const uint64_t x_ = b_[0] + k_ * d_[0], i_ = row_ + x_;                            \
                        BODY(i_, lz_ipred(R, i_, a_ == 0 ? x_ : tc_, s_, sa_, ea_, cubic), c0_ + k_, lv_); \
                    }                                                                                      \
                }                                                                                          \
                base_ += rows_ * nx_;                                                                      \
            }                                                                                              \
        }                                                                                                  \
    } while (0)

/* The interior elements k in [klo, khi) of a sweep's row (first element x0,
 * step d, neighbours at +-o, +-3o): every neighbour exists, no tests. A
 * user of LZ_SWEEPS may define its own (the encoder's). */
#define LZ_SWEEP_INTERIOR_LOOP(cubic, R, x0, d, o, klo, khi, c0, lv, BODY)                                  \
    do {                                                                                                   \
        if (cubic) {                                                                                       \
            for (uint64_t k_ = (klo); k_ < (khi); k_++) {                                                  \
                const uint64_t i_ = (x0) + k_ * (d);                                                       \
                BODY(i_, lz_icub(R, i_, o), (c0) + k_, lv);                                                \
            }                                                                                              \
        } else {                                                                                           \
            for (uint64_t k_ = (klo); k_ < (khi); k_++) {                                                  \
                const uint64_t i_ = (x0) + k_ * (d);                                                       \
                BODY(i_, lz_ilin(R, i_, o), (c0) + k_, lv);                                                \
            }                                                                                              \
        }                                                                                                  \
    } while (0)
#endif

/* Prequantized value of element i and whether it is verbatim (7.3). */
static inline int LZ_FN(lz_pq)(const LZ_T *src, uint64_t i, const lz_qp *qp, uint64_t *q) {
    int64_t v;
    double e;
    int bad = LZ_FN(lz_prequant)(src[i], qp->recip, qp->ebx2, qp->eb, &v, &e);
    *q = (uint64_t)v;
    return bad;
}

/* Predictor estimate (FORMAT.md 7.10): the exact prediction errors of
 * Lorenzo and of linear and cubic interpolation in every axis order at the
 * sample elements i = LZ1_SAMPLE_OFF + k lz1_sample_step(n) whose
 * neighbourhoods hold no verbatim element, each costing lz_cost(error):
 * costs[0] Lorenzo, costs[1 + 2o] linear and costs[2 + 2o] cubic in axis
 * order o (o < lz1_norders(rank); the others 0), costs[LZ1_NCOST - 1] the
 * number of those samples. An element's interpolation in order o runs
 * along the axis, among those whose coordinate has the fewest trailing
 * zero bits, that comes last in the order: each such axis is computed
 * once. */
static void LZ_FN(lz_estimate)(const lz_geo *g, const LZ_T *src, const lz_qp *qp, int T, uint64_t *costs) {
    const unsigned n = g->rank, no = lz1_norders(n);
    const uint64_t e[3] = {g->e[0], g->e[1], g->e[2]};
    const uint64_t st[3] = {1, e[0], e[0] * e[1]};
    unsigned lb[3] = {0, 0, 0};
    for (unsigned d = 0; d < n; d++) lb[d] = lz_block_log2[n][d];
    uint64_t kk[LZ1_NCOST]; /* integer sums: any thread count, same result */
    memset(kk, 0, sizeof kk);
    const uint64_t ns = lz1_nsamples(g->n), sst = lz1_sample_step(g->n);
    /* each thread a contiguous range of samples, coordinates stepped from
     * sample to sample (no division per sample); the sums are integers:
     * the same whatever the ranges */
    const int Te = T > 1 && ns > 8192 ? T : 1;
    /* last_ax[set][o]: the axis of the set that comes last in order o (the
     * sweep that codes an element whose finest axes are the set) */
    uint8_t last_ax[8][LZ1_MAX_ORDERS];
    for (unsigned st_ = 1; st_ < 8; st_++)
        for (unsigned od = 0; od < no; od++) {
            uint8_t perm[3], pos[3];
            lz1_order(n, od, perm, pos);
            unsigned a = 3;
            for (unsigned k = 0; k < n; k++)
                if ((st_ >> k & 1) && (a == 3 || pos[k] > pos[a])) a = k;
            last_ax[st_][od] = (uint8_t)(a == 3 ? 0 : a);
        }
#if LZ_SSE2
    /* the Lorenzo corners: off[m] = the sum of st[k] over the bits k of m;
     * bm[k] the block's coordinate mask */
    uint64_t off[8], bm[3] = {0, 0, 0};
    for (unsigned m = 0; m < 8; m++) {
        off[m] = 0;
        for (unsigned k = 0; k < n; k++)
            if (m >> k & 1) off[m] += st[k];
    }
    for (unsigned k = 0; k < n; k++) bm[k] = ((uint64_t)1 << lb[k]) - 1;
    lz_vq vq;
    lz_vq_init(&vq, qp->recip, qp->ebx2, qp->eb);
#endif
#pragma omp parallel num_threads(Te) reduction(+ : kk[:LZ1_NCOST]) if (Te > 1)
    {
#ifdef _OPENMP
    const uint64_t nt_ = (uint64_t)omp_get_num_threads(), t_ = (uint64_t)omp_get_thread_num();
#else
    const uint64_t nt_ = 1, t_ = 0;
#endif
    const uint64_t s0_ = ns * t_ / nt_, s1_ = ns * (t_ + 1) / nt_;
    const uint64_t i0_ = LZ1_SAMPLE_OFF + s0_ * sst;
    uint64_t c[3] = {i0_ % e[0], i0_ / e[0] % e[1], i0_ / st[2]};
    /* the forward neighbours of a sample a few samples ahead (whole planes
     * or rows away: cache misses the sample loop would wait for) */
    const uint64_t pf_d = 8 * sst, pf1 = n > 1 ? st[1] : 0, pf2 = n > 2 ? st[2] : 0;
    for (uint64_t si = s0_; si < s1_; si++) {
        if (si > s0_) {
            c[0] += sst;
            while (c[0] >= e[0]) {
                c[0] -= e[0];
                if (++c[1] == e[1]) c[1] = 0, c[2]++;
            }
        }
        const uint64_t i = LZ1_SAMPLE_OFF + si * sst;
        if (i + pf_d + 3 * pf2 + 3 * pf1 < g->n) {
            const LZ_T *pp = src + i + pf_d;
            if (pf2) {
                __builtin_prefetch(pp + pf2);
                __builtin_prefetch(pp + 3 * pf2);
            }
            if (pf1) {
                __builtin_prefetch(pp + pf1);
                __builtin_prefetch(pp + 3 * pf1);
            }
        }
        uint64_t q, v;
        uint64_t p = 0;
        int bad = 0;
        /* the prequantized values of the axis neighbours i - st[a], where
         * the Lorenzo terms computed them (the interpolation reads them) */
        uint64_t qn[3];
        unsigned hn = 0;
#if LZ_SSE2
        unsigned inb = 1;
        for (unsigned k = 0; k < n; k++) inb &= (c[k] & bm[k]) != 0;
        if (inb) {
            /* every Lorenzo term inside the block: the 2^n corners i -
             * off[m] prequantized two at a time (m and m + 1 are x and
             * x - 1: neighbours in memory), each operation of
             * lz_prequant in its lane, sealed */
            int64_t qc[8];
            int bm2 = 0;
            for (unsigned m = 0; m < (1u << n); m += 2) {
                const LZ_T *px = src + i - off[m] - 1; /* lane 0: corner m + 1, lane 1: corner m */
                __m128i qv;
                int ok;
                (void)lz_pq2(_mm_set_pd((double)px[1], (double)px[0]), &vq, sizeof(LZ_T) == 4, &qv, &ok);
                bm2 |= ok ^ 3;
                qc[m + 1] = lz_lane0(qv);
                qc[m] = lz_lane1(qv);
            }
            if (bm2) continue; /* a verbatim element among them */
            q = (uint64_t)qc[0];
            for (unsigned m = 1; m < (1u << n); m++) {
                if (__builtin_popcount(m) & 1) p += (uint64_t)qc[m];
                else p -= (uint64_t)qc[m];
            }
            for (unsigned k = 0; k < n; k++) qn[k] = (uint64_t)qc[1u << k];
            hn = (1u << n) - 1;
        } else
#endif
        {
        if (LZ_FN(lz_pq)(src, i, qp, &q)) continue;
        /* Lorenzo inside the element's block (zero outside it) */
        for (unsigned m = 1; m < (1u << n) && !bad; m++) {
            uint64_t j = i;
            int in = 1;
            for (unsigned k = 0; k < n; k++)
                if (m >> k & 1) {
                    in &= (c[k] & (((uint64_t)1 << lb[k]) - 1)) != 0;
                    j -= st[k];
                }
            if (!in) continue;
            bad |= LZ_FN(lz_pq)(src, j, qp, &v);
            if (__builtin_popcount(m) & 1) p += v;
            else p -= v;
        }
        if (bad) continue;
        }
        /* interpolation: the element's level s and the axes whose non-zero
         * coordinate has the fewest trailing zero bits (7.9) */
        unsigned tz = 64, set = 0;
        for (unsigned k = 0; k < n; k++)
            if (c[k]) {
                unsigned t = (unsigned)__builtin_ctzll(c[k]);
                if (t < tz) tz = t, set = 1u << k;
                else if (t == tz) set |= 1u << k;
            }
        if (tz == 64) continue; /* element 0 */
        const uint64_t s = (uint64_t)1 << tz;
        int64_t qi[3][2]; /* [axis][linear, cubic] */
        const int f32 = sizeof(LZ_T) == 4;
        for (unsigned a = 0; a < n && !bad; a++) {
            if (!(set >> a & 1)) continue;
            const uint64_t ca = c[a], ea = e[a], o = s * st[a];
            uint64_t l1, r1 = 0, l3 = 0, r3 = 0;
            const int hr1 = ca + s < ea, hl3 = hr1 && ca >= 3 * s, hr3 = hr1 && ca + 3 * s < ea;
#if LZ_SSE2
            if (hl3 && hr3) {
                /* all four neighbours: prequantized two at a time (their
                 * reconstructions are LZ_EST_R's), the linear and the
                 * cubic residual quantization in the two lanes */
                __m128i q1, q3, qq;
                int ok1, ok3, okr;
                const __m128d y1 = lz_pq2(_mm_set_pd((double)src[i + o], (double)src[i - o]), &vq, f32, &q1, &ok1);
                const __m128d y3 =
                    lz_pq2(_mm_set_pd((double)src[i + 3 * o], (double)src[i - 3 * o]), &vq, f32, &q3, &ok3);
                if ((ok1 & ok3) != 3) {
                    bad = 1;
                    break;
                }
                const double A = lz_dlane0(y1), B = lz_dlane1(y1), A3 = lz_dlane0(y3), B3 = lz_dlane1(y3);
                const double xs = (double)src[i];
                lz_rq2(_mm_set1_pd(xs), _mm_set_pd(lz_cub(A, B, A3, B3), lz_lin(A, B)), &vq, f32, &qq, &okr);
                if (okr != 3) {
                    bad = 1;
                    break;
                }
                qi[a][0] = lz_lane0(qq);
                qi[a][1] = lz_lane1(qq);
                continue;
            }
#endif
            if (s == 1 && (hn >> a & 1)) l1 = qn[a], bad = 0; /* i - st[a]: a Lorenzo term, not verbatim */
            else bad = LZ_FN(lz_pq)(src, i - o, qp, &l1);
            if (hr1) bad |= LZ_FN(lz_pq)(src, i + o, qp, &r1);
            if (hl3) bad |= LZ_FN(lz_pq)(src, i - 3 * o, qp, &l3);
            if (hr3) bad |= LZ_FN(lz_pq)(src, i + 3 * o, qp, &r3);
            if (bad) break;
            /* residual quantization of the interpolation of the neighbours as
             * prequantization reconstructs them (7.3): an error like a
             * decoder's, within the bound */
#define LZ_EST_R(v) ((double)LZ_FN(lz_recon)((double)(int64_t)(v), qp->ebx2))
            const double A = LZ_EST_R(l1), B = hr1 ? LZ_EST_R(r1) : 0.0;
            const double A3 = hl3 ? LZ_EST_R(l3) : 0.0, B3 = hr3 ? LZ_EST_R(r3) : 0.0;
#undef LZ_EST_R
            double xr;
            bad = lz_rquant((double)src[i], lz_finterp(0, A, hr1, B, 0, 0.0, 0, 0.0), qp->recip, qp->ebx2, qp->eb,
                            f32, &qi[a][0], &xr);
            bad |= lz_rquant((double)src[i], lz_finterp(1, A, hr1, B, hl3, A3, hr3, B3), qp->recip, qp->ebx2,
                             qp->eb, f32, &qi[a][1], &xr);
        }
        if (bad) continue;
        kk[0] += lz_cost(q - p);
        uint64_t cl[3], cc[3];
        for (unsigned a = 0; a < n; a++)
            if (set >> a & 1) cl[a] = lz_cost((uint64_t)qi[a][0]), cc[a] = lz_cost((uint64_t)qi[a][1]);
        for (unsigned od = 0; od < no; od++) {
            const unsigned a = last_ax[set][od];
            kk[1 + 2 * od] += cl[a];
            kk[2 + 2 * od] += cc[a];
        }
        kk[LZ1_NCOST - 1]++;
    }
    }
    memcpy(costs, kk, sizeof kk);
}

/* The encoder's interior elements of a row (LZ_SWEEP_INTERIOR): cnt
 * elements from x0, step d, every neighbour at +-o (and +-3o, cubic)
 * present; codes, verbatim positions and outlier errors at the row's
 * traversal positions (cd, vp, od point at its first interior one), as
 * LZ_QUANT in interp_encode. Its own function: the loop keeps its values in
 * registers. */
static inline void LZ_FN(enc_interior)(const LZ_T *restrict src, double *restrict R, uint64_t x0, uint64_t d,
                                       uint64_t o, uint64_t cnt, int cubic, double h, double rc, double eb,
                                       int64_t r, uint16_t vnew, uint16_t *restrict cd, uint32_t *restrict vp,
                                       int64_t *restrict od, uint64_t cabs, lz_tstate *tv, uint32_t *vlist) {
    const int f32 = sizeof(LZ_T) == 4;
    const uint64_t span = 2 * (uint64_t)r - 1;
    /* a verbatim element at index ii, row position kk: with tv (one
     * thread, the traversal in code order), V_new or V_repeat decided here
     * (tv: the range's verbatim state, its V_new list at vlist[tv->n_vnew]
     * on); else a placeholder code and its index, for interp_encode's
     * pass */
#define LZ_VERBATIM(ii, kk)                                                                                \
    do {                                                                                                   \
        if (tv) {                                                                                          \
            LZ_U b_;                                                                                       \
            memcpy(&b_, src + (ii), sizeof b_);                                                            \
            if (tv->has_verb && (uint64_t)b_ == tv->last_bits) {                                           \
                cd[kk] = (uint16_t)(vnew + 1);                                                             \
            } else {                                                                                       \
                cd[kk] = vnew;                                                                             \
                vlist[tv->n_vnew++] = (uint32_t)(ii);                                                      \
            }                                                                                              \
            if (!tv->has_verb) {                                                                           \
                tv->has_verb = 1;                                                                          \
                tv->first_verb_code = cabs + (kk);                                                         \
                tv->first_bits = b_;                                                                       \
            }                                                                                              \
            tv->last_bits = b_;                                                                            \
        } else {                                                                                           \
            cd[kk] = vnew; /* placeholder: V_new or V_repeat in interp_encode's pass */                    \
            vp[kk] = (uint32_t)(ii);                                                                       \
        }                                                                                                  \
    } while (0)
#define LZ_ENC_ONE(PRED)                                                                                   \
    do {                                                                                                   \
        const uint64_t i = x0 + k * d;                                                                     \
        const double P = PRED;                                                                             \
        int64_t q;                                                                                         \
        double xr;                                                                                         \
        if (lz_rquant((double)src[i], P, rc, h, eb, f32, &q, &xr)) {                                       \
            R[i] = P;                                                                                      \
            LZ_VERBATIM(i, k);                                                                             \
        } else {                                                                                           \
            R[i] = xr;                                                                                     \
            if ((uint64_t)q + (uint64_t)(r - 1) < span) {                                                  \
                cd[k] = (uint16_t)(q + r);                                                                 \
            } else {                                                                                       \
                cd[k] = LZ_CODE_OUTLIER;                                                                   \
                od[k] = q;                                                                                 \
            }                                                                                              \
        }                                                                                                  \
    } while (0)
    uint64_t k = 0;
#if LZ_SSE2
    /* two elements at a time, one per lane: every operation of lz_rquant
     * and of the interpolation, each rounded on its own (sealed), as the
     * scalar code does it (the same values) */
    {
        lz_vq vq;
        lz_vq_init(&vq, rc, h, eb);
        const __m128d v9 = _mm_set1_pd(9.0), v16 = _mm_set1_pd(0.0625), v2 = _mm_set1_pd(0.5);
        for (; k + 2 <= cnt; k += 2) {
            const uint64_t i = x0 + k * d, j = i + d;
            __m128d P;
            if (cubic) {
                __m128d A = _mm_loadh_pd(_mm_load_sd(R + i - o), R + j - o);
                __m128d B = _mm_loadh_pd(_mm_load_sd(R + i + o), R + j + o);
                __m128d A3 = _mm_loadh_pd(_mm_load_sd(R + i - 3 * o), R + j - 3 * o);
                __m128d B3 = _mm_loadh_pd(_mm_load_sd(R + i + 3 * o), R + j + 3 * o);
                __m128d ab = _mm_add_pd(A, B), ab3 = _mm_add_pd(A3, B3);
                LZ_VSEAL(ab);
                LZ_VSEAL(ab3);
                __m128d m9 = _mm_mul_pd(ab, v9);
                LZ_VSEAL(m9);
                __m128d df = _mm_sub_pd(m9, ab3);
                LZ_VSEAL(df);
                P = _mm_mul_pd(df, v16);
            } else {
                __m128d A = _mm_loadh_pd(_mm_load_sd(R + i - o), R + j - o);
                __m128d B = _mm_loadh_pd(_mm_load_sd(R + i + o), R + j + o);
                __m128d ab = _mm_add_pd(A, B);
                LZ_VSEAL(ab);
                P = _mm_mul_pd(ab, v2);
            }
            LZ_VSEAL(P);
            const __m128d X = _mm_set_pd((double)src[j], (double)src[i]);
            __m128i qv;
            int mk;
            const __m128d xr = lz_rq2(X, P, &vq, f32, &qv, &mk);
            const int64_t q0 = _mm_cvtsi128_si64(qv), q1 = _mm_cvtsi128_si64(_mm_unpackhi_epi64(qv, qv));
            if (mk != 3) {
                /* a verbatim element (lz_rquant's test, lane by lane): R
                 * takes its prediction, its code a placeholder */
                double pl[2], xl[2];
                const int64_t ql[2] = {q0, q1};
                _mm_storeu_pd(pl, P);
                _mm_storeu_pd(xl, xr);
                for (int ln = 0; ln < 2; ln++) {
                    const uint64_t ii = ln ? j : i, kk = k + (uint64_t)ln;
                    if (!(mk >> ln & 1)) {
                        R[ii] = pl[ln];
                        LZ_VERBATIM(ii, kk);
                    } else {
                        R[ii] = xl[ln];
                        if ((uint64_t)ql[ln] + (uint64_t)(r - 1) < span) {
                            cd[kk] = (uint16_t)(ql[ln] + r);
                        } else {
                            cd[kk] = LZ_CODE_OUTLIER;
                            od[kk] = ql[ln];
                        }
                    }
                }
                continue;
            }
            _mm_storel_pd(R + i, xr);
            _mm_storeh_pd(R + j, xr);
            if ((uint64_t)q0 + (uint64_t)(r - 1) < span) {
                cd[k] = (uint16_t)(q0 + r);
            } else {
                cd[k] = LZ_CODE_OUTLIER;
                od[k] = q0;
            }
            if ((uint64_t)q1 + (uint64_t)(r - 1) < span) {
                cd[k + 1] = (uint16_t)(q1 + r);
            } else {
                cd[k + 1] = LZ_CODE_OUTLIER;
                od[k + 1] = q1;
            }
        }
    }
#endif
    if (cubic)
        for (; k < cnt; k++) LZ_ENC_ONE(lz_icub(R, i, o));
    else
        for (; k < cnt; k++) LZ_ENC_ONE(lz_ilin(R, i, o));
#undef LZ_ENC_ONE
#undef LZ_VERBATIM
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
                                 double *R, uint32_t *hx) {
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
        if (lz_rquant((double)src[ii], (P), lr[lv], lh[lv], eb, f32, &q_, &xr_)) {                           \
            R[ii] = (P);                                                                                   \
            if (tv) { /* one thread: decided here, as LZ_VERBATIM in enc_interior */                       \
                LZ_U b_;                                                                                   \
                memcpy(&b_, src + (ii), sizeof b_);                                                        \
                if (tv->has_verb && (uint64_t)b_ == tv->last_bits) {                                       \
                    codes[ci] = vrep;                                                                      \
                } else {                                                                                   \
                    codes[ci] = vnew;                                                                      \
                    vpos[tv->n_vnew++] = (uint32_t)(ii);                                                   \
                }                                                                                          \
                if (!tv->has_verb) {                                                                       \
                    tv->has_verb = 1;                                                                      \
                    tv->first_verb_code = (ci);                                                            \
                    tv->first_bits = b_;                                                                   \
                }                                                                                          \
                tv->last_bits = b_;                                                                        \
            } else {                                                                                       \
                codes[ci] = vnew; /* placeholder: V_new or V_repeat below */                               \
                vpos[ci] = (uint32_t)(ii);                                                                 \
            }                                                                                              \
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
    /* one thread: the sweeps visit the traversal positions in order, so
     * V_new / V_repeat are decided as they go (tv); the pass below only
     * lists the outliers and counts */
    lz_tstate *tv = Tp == 1 ? &ts[0] : NULL;
    if (tv) tv->n_vnew = tv->c0; /* the next V_new's place in vpos, until the pass below */
    LZ_QUANT(0, 0.0, 0, L);
#define LZ_SWEEP_INTERIOR(cubic_, R_, x0_, d_, o_, klo_, khi_, c0_, lv_, BODY_)                              \
    LZ_FN(enc_interior)(src, R_, (x0_) + (klo_) * (d_), d_, o_, (khi_) > (klo_) ? (khi_) - (klo_) : 0, cubic_, \
                        lh[lv_], lr[lv_], eb, r, vnew, codes + (c0_) + (klo_), vpos + (c0_) + (klo_),            \
                        odel + (c0_) + (klo_), (c0_) + (klo_), tv, vpos)
    LZ_SWEEPS(g, cubic, ord, R, Tp, LZ_QUANT);
#undef LZ_SWEEP_INTERIOR
#undef LZ_QUANT
    /* per code range ts[t] (Tp ranges, as Lorenzo's thread ranges): its
     * lists at [c0, c0 + count) of oidx / odel / vpos (written at or below
     * the position read), V_new or V_repeat within the range (lossy.c joins
     * the ranges), its histogram */
#pragma omp parallel for schedule(static, 1) num_threads(Tp) if (Tp > 1)
    for (int t = 0; t < Tp; t++) {
        lz_tstate *tsr = &ts[t];
        uint32_t *hist = tsr->hist;
        /* tv: the verbatim codes are final and their list written (nvp
         * continues it); counted as any other code */
        uint64_t no = tsr->c0, nvp = tv ? tsr->n_vnew : tsr->c0;
        const int fast = hx && Tp == 1;
        /* codes taken four at a time: those of the window [wlo, wlo + ww)
         * around the zero error (LZ_HX_WIN codes at most) inside 1 ..
         * vnew - 1, with tv 1 .. vrep; the three extra histograms cover
         * the window only */
        const uint32_t lim = tv ? (uint32_t)vrep : (uint32_t)vnew - 1u;
        const uint32_t wlo = (uint32_t)r > LZ_HX_WIN / 2 ? (uint32_t)r - LZ_HX_WIN / 2 : 1u;
        const uint32_t ww = lim + 1u - wlo < LZ_HX_WIN ? lim + 1u - wlo : LZ_HX_WIN;
        uint32_t *hx0 = hist + wlo, *hx1 = hx, *hx2 = hx + ww, *hx3 = hx + 2 * (size_t)ww;
        if (fast) memset(hx, 0, (size_t)ww * 12);
        uint64_t ci = tsr->c0;
        while (ci < tsr->c1) {
            /* four codes at a time where none is an outlier or verbatim
             * (the usual case): four interleaved histograms, so runs of
             * one code do not chain their increments through memory */
            if (fast && ci + 4 <= tsr->c1) {
                const uint32_t c0 = codes[ci], c1 = codes[ci + 1], c2 = codes[ci + 2], c3 = codes[ci + 3];
                const uint32_t a0 = c0 - wlo, a1 = c1 - wlo, a2 = c2 - wlo, a3 = c3 - wlo;
                if ((a0 < ww) & (a1 < ww) & (a2 < ww) & (a3 < ww)) {
                    hx0[a0]++;
                    hx1[a1]++;
                    hx2[a2]++;
                    hx3[a3]++;
                    ci += 4;
                    continue;
                }
                /* four verbatim elements repeating the last verbatim value
                 * (fill values): four V_repeat */
                if (!tv && (c0 == vnew) & (c1 == vnew) & (c2 == vnew) & (c3 == vnew) && tsr->has_verb) {
                    LZ_U b0, b1, b2, b3;
                    memcpy(&b0, src + vpos[ci], sizeof b0);
                    memcpy(&b1, src + vpos[ci + 1], sizeof b1);
                    memcpy(&b2, src + vpos[ci + 2], sizeof b2);
                    memcpy(&b3, src + vpos[ci + 3], sizeof b3);
                    const uint64_t lb = tsr->last_bits;
                    if (((uint64_t)b0 == lb) & ((uint64_t)b1 == lb) & ((uint64_t)b2 == lb) & ((uint64_t)b3 == lb)) {
                        codes[ci] = codes[ci + 1] = codes[ci + 2] = codes[ci + 3] = vrep;
                        hist[vrep] += 4;
                        ci += 4;
                        continue;
                    }
                }
            }
            const uint64_t ce = fast && ci + 4 < tsr->c1 ? ci + 4 : tsr->c1;
            for (; ci < ce; ci++) {
                uint16_t c = codes[ci];
                if (c == LZ_CODE_OUTLIER) {
                    oidx[no] = (uint32_t)ci;
                    odel[no++] = odel[ci];
                } else if (c == vnew && !tv) {
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
        }
        if (fast)
            for (uint32_t k = 0; k < ww; k++) hist[wlo + k] += hx1[k] + hx2[k] + hx3[k];
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
#define LZ_SWEEP_INTERIOR LZ_SWEEP_INTERIOR_LOOP
    LZ_SWEEPS(g, cubic, ord, R, Tp, LZ_TAKE);
#undef LZ_SWEEP_INTERIOR
#undef LZ_TAKE
    return 0;
}

#undef LZ_FN
#undef LZ_CAT
#undef LZ_CAT2

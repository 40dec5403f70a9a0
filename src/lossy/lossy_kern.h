/*
 * lossy_kern.h -- per-block kernels of the lossy codec, included by lossy.c
 * once per element type with LZ_T (float/double), LZ_U (uint32_t/uint64_t,
 * the bit pattern) and LZ_SFX defined. docs/FORMAT.md 7.3-7.4.
 */
#ifndef LZ_KERN_ONCE
#define LZ_KERN_ONCE
/* The N-dimensional forward difference of a block's values q (ex x ey x
 * ez, x fastest) into d, modulo 2^64: along x, then y, then z. The
 * Lorenzo prediction errors of 7.4 (the same bits as the signed
 * differences where they do not overflow). */
static inline void lz_fdiff(const uint64_t *q, uint64_t *d, uint64_t ex, uint64_t ey, uint64_t ez) {
    const uint64_t exy = ex * ey;
    for (uint64_t row = 0; row < ey * ez; row++) {
        const uint64_t *qr = q + row * ex;
        uint64_t *dr = d + row * ex;
        dr[0] = qr[0];
        for (uint64_t x = 1; x < ex; x++) dr[x] = qr[x] - qr[x - 1];
    }
    for (uint64_t z = 0; z < ez; z++)
        for (uint64_t y = ey - 1; y >= 1; y--) {
            uint64_t *dr = d + (z * ey + y) * ex;
            const uint64_t *pr = dr - ex;
            for (uint64_t x = 0; x < ex; x++) dr[x] -= pr[x];
        }
    for (uint64_t z = ez - 1; z >= 1; z--) {
        uint64_t *dp = d + z * exy;
        const uint64_t *pp = dp - exy;
        for (uint64_t i = 0; i < exy; i++) dp[i] -= pp[i];
    }
}
/* SSE2 lanes for the encoders (Lorenzo's prequantization, the
 * interpolation's interior rows and estimate; x86-64 with GNU C): the seal
 * keeps each packed operation rounded on its own, as SCZ_FP_SEAL the
 * scalar ones */
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#include <emmintrin.h>
#define LZ_SSE2 1
#define LZ_VSEAL(v) __asm__("" : "+x"(v))
typedef struct lz_vq {
    __m128d M, rc, h, eb, lim, abs;
    __m128i Mb;
} lz_vq;
static inline void lz_vq_init(lz_vq *v, double rc, double h, double eb) {
    v->M = _mm_set1_pd(LZ_MAGIC);
    v->rc = _mm_set1_pd(rc);
    v->h = _mm_set1_pd(h);
    v->eb = _mm_set1_pd(eb);
    v->lim = _mm_set1_pd(LZ_QLIM);
    v->abs = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
    v->Mb = _mm_castpd_si128(v->M);
}
/* lz_prequant of two values (7.3), lane by lane, each operation rounded on
 * its own: the reconstructions x' (returned), the grid indices (*q) and
 * the mask of the lanes that are not verbatim (*ok, bits 0 and 1). */
static inline __m128d lz_pq2(__m128d X, const lz_vq *v, int f32, __m128i *q, int *ok) {
    __m128d t = _mm_mul_pd(X, v->rc);
    LZ_VSEAL(t);
    __m128d tr = _mm_add_pd(t, v->M);
    LZ_VSEAL(tr);
    __m128d qd = _mm_sub_pd(tr, v->M);
    LZ_VSEAL(qd);
    __m128d y = _mm_mul_pd(qd, v->h);
    LZ_VSEAL(y);
    if (f32) y = _mm_cvtps_pd(_mm_cvtpd_ps(y));
    __m128d er = _mm_sub_pd(X, y);
    LZ_VSEAL(er);
    *ok = _mm_movemask_pd(_mm_and_pd(_mm_cmplt_pd(_mm_and_pd(t, v->abs), v->lim),
                                     _mm_cmple_pd(_mm_and_pd(er, v->abs), v->eb)));
    *q = _mm_sub_epi64(_mm_castpd_si128(tr), v->Mb);
    return y;
}
/* lz_rquant of x against two predictions P (lanes): the reconstructions
 * (returned), the grid indices (*q) and the mask of the lanes that are not
 * verbatim (*ok). */
static inline __m128d lz_rq2(__m128d X, __m128d P, const lz_vq *v, int f32, __m128i *q, int *ok) {
    __m128d dx = _mm_sub_pd(X, P);
    LZ_VSEAL(dx);
    __m128d t = _mm_mul_pd(dx, v->rc);
    LZ_VSEAL(t);
    __m128d tr = _mm_add_pd(t, v->M);
    LZ_VSEAL(tr);
    __m128d qd = _mm_sub_pd(tr, v->M);
    LZ_VSEAL(qd);
    __m128d y = _mm_mul_pd(qd, v->h);
    LZ_VSEAL(y);
    __m128d xr = _mm_add_pd(P, y);
    LZ_VSEAL(xr);
    if (f32) xr = _mm_cvtps_pd(_mm_cvtpd_ps(xr));
    __m128d er = _mm_sub_pd(X, xr);
    LZ_VSEAL(er);
    *ok = _mm_movemask_pd(_mm_and_pd(_mm_cmplt_pd(_mm_and_pd(t, v->abs), v->lim),
                                     _mm_cmple_pd(_mm_and_pd(er, v->abs), v->eb)));
    *q = _mm_sub_epi64(_mm_castpd_si128(tr), v->Mb);
    return xr;
}
static inline int64_t lz_lane0(__m128i q) { return _mm_cvtsi128_si64(q); }
static inline int64_t lz_lane1(__m128i q) { return _mm_cvtsi128_si64(_mm_unpackhi_epi64(q, q)); }
static inline double lz_dlane0(__m128d x) { return _mm_cvtsd_f64(x); }
static inline double lz_dlane1(__m128d x) { return _mm_cvtsd_f64(_mm_unpackhi_pd(x, x)); }
#else
#define LZ_SSE2 0
#endif
#endif

#define LZ_CAT2(a, b) a##b
#define LZ_CAT(a, b) LZ_CAT2(a, b)
#define LZ_FN(name) LZ_CAT(name, LZ_SFX)
/* lz_prequant_f32 / _f64 and lz_recon_f32 / _f64 (lossy_quant.h) */


/* Compresses blocks [ts->b0, ts->b1): codes, outliers, verbatim positions,
 * histogram of the codes. */
static void LZ_FN(compress_range)(const lz_geo *g, const LZ_T *src, const lz_qp *qp, lz_tstate *ts,
                                  uint16_t *codes, uint32_t *oidx, int64_t *odel, uint32_t *vpos) {
    int64_t q[1u << LZ_MAX_BLOCK_LOG2];
    int64_t d[1u << LZ_MAX_BLOCK_LOG2];
    uint8_t vf[1u << LZ_MAX_BLOCK_LOG2];
    const double recip = qp->recip, ebx2 = qp->ebx2, eb = qp->eb;
    const int64_t r = qp->radius;
    const uint64_t span = 2 * (uint64_t)r - 1;
    uint32_t *hist = ts->hist;
    uint64_t no = ts->c0, nvp = ts->c0; /* write positions in the staging arrays */
    const uint64_t e0 = g->e[0], e01 = g->e[0] * g->e[1];
    const uint16_t vnew = (uint16_t)LZ_VNEW(r), vrep = (uint16_t)LZ_VREP(r);
#if LZ_SSE2
    lz_vq vq;
    lz_vq_init(&vq, recip, ebx2, eb);
#endif
    for (uint64_t b = ts->b0; b < ts->b1; b++) {
        lz_blk k;
        lz_block(g, b, &k);
        const uint64_t ex = k.ex, ey = k.ey, ez = k.ez, m = ex * ey * ez, exy = ex * ey;
        if (b + 1 < ts->b1 && ey * ez > 1) {
            /* the next block's rows (a row of a block apart from the next
             * one: the loads below would wait for each) */
            lz_blk kn;
            lz_block(g, b + 1, &kn);
            for (uint64_t z = 0; z < kn.ez; z++)
                for (uint64_t y = 0; y < kn.ey; y++) {
                    const LZ_T *row = src + kn.base + z * e01 + y * e0;
                    __builtin_prefetch(row);
                    __builtin_prefetch(row + kn.ex - 1);
                }
        }
        uint64_t nv = 0;
        for (uint64_t z = 0; z < ez; z++)
            for (uint64_t y = 0; y < ey; y++) {
                const LZ_T *row = src + k.base + z * e01 + y * e0;
                int64_t *qr = q + (z * ey + y) * ex;
                uint8_t *vr = vf + (z * ey + y) * ex;
                uint64_t x = 0;
#if LZ_SSE2
                /* two at a time: lz_prequant's operations lane by lane */
                for (; x + 2 <= ex; x += 2) {
                    __m128i qv;
                    int ok;
                    (void)lz_pq2(_mm_set_pd((double)row[x + 1], (double)row[x]), &vq, sizeof(LZ_T) == 4, &qv, &ok);
                    _mm_storeu_si128((__m128i *)(void *)(qr + x), qv);
                    vr[x] = (uint8_t)(~ok & 1);
                    vr[x + 1] = (uint8_t)(~ok >> 1 & 1);
                    nv += (uint64_t)(ok != 3) + (uint64_t)(ok == 0);
                }
#endif
                for (; x < ex; x++) {
                    double err;
                    int bad = LZ_FN(lz_prequant)(row[x], recip, ebx2, eb, &qr[x], &err);
                    vr[x] = (uint8_t)bad;
                    nv += (uint64_t)bad;
                }
            }
        uint16_t *cb = codes + k.co;
        if (!nv) {
            /* Lorenzo prediction error = N-dimensional forward difference */
            lz_fdiff((const uint64_t *)q, (uint64_t *)d, ex, ey, ez);
            for (uint64_t i = 0; i < m; i++) {
                uint16_t c = lz_code(d[i], r, span, k.co + i, oidx, odel, &no);
                cb[i] = c;
                hist[c]++;
            }
            continue;
        }
        /* Block with verbatim values: their prequantized value is the
         * prediction itself (error 0), so the rest of the block is
         * predicted from what the decoder will reconstruct. Modulo 2^64:
         * first the verbatim elements' values, in order (each from
         * earlier ones); then every error at once, the N-dimensional
         * forward difference as above (the same sums modulo 2^64), 0 at
         * the verbatim elements. */
        uint64_t *qq = (uint64_t *)q;
        uint64_t *dd = (uint64_t *)d;
        for (uint64_t i = 0; i < m; i++) {
            if (!vf[i]) continue;
            const uint64_t x = i % ex, y = i / ex % ey, z = i / exy;
            uint64_t p = 0;
            if (x) p += qq[i - 1];
            if (y) p += qq[i - ex];
            if (x && y) p -= qq[i - ex - 1];
            if (z) {
                p += qq[i - exy];
                if (x) p -= qq[i - exy - 1];
                if (y) p -= qq[i - exy - ex];
                if (x && y) p += qq[i - exy - ex - 1];
            }
            qq[i] = p;
        }
        lz_fdiff(qq, dd, ex, ey, ez);
        for (uint64_t z = 0; z < ez; z++)
            for (uint64_t y = 0; y < ey; y++) {
                const uint64_t i0 = (z * ey + y) * ex, lin0 = k.base + z * e01 + y * e0;
                for (uint64_t x = 0; x < ex; x++) {
                    const uint64_t i = i0 + x;
                    uint16_t c;
                    if (vf[i]) {
                        const uint64_t lin = lin0 + x;
                        LZ_U bits;
                        memcpy(&bits, src + lin, sizeof bits);
                        if (ts->has_verb && (uint64_t)bits == ts->last_bits) {
                            c = vrep;
                        } else {
                            c = vnew;
                            vpos[nvp++] = (uint32_t)lin;
                        }
                        if (!ts->has_verb) {
                            ts->has_verb = 1;
                            ts->first_verb_code = k.co + i;
                            ts->first_bits = bits;
                        }
                        ts->last_bits = bits;
                    } else {
                        c = lz_code((int64_t)dd[i], r, span, k.co + i, oidx, odel, &no);
                    }
                    cb[i] = c;
                    hist[c]++;
                }
            }
    }
    ts->n_out = no - ts->c0;
    ts->n_vnew = nvp - ts->c0;
}

/* Reconstructs blocks [ts->b0, ts->b1) into dst. ts->o0 / ts->v0: index of
 * the first outlier / verbatim value of the range. Returns 0 or -1. */
static int LZ_FN(decompress_range)(const lz_geo *g, LZ_T *dst, const lz_qp *qp, const lz_dstate *ts,
                                   const uint16_t *codes, const uint32_t *oidx, const int64_t *odel,
                                   uint64_t n_out, const uint8_t *vvals, uint64_t n_verb) {
    uint64_t d[1u << LZ_MAX_BLOCK_LOG2];
    const uint64_t r = (uint64_t)qp->radius, twor = 2 * r;
    const double ebx2 = qp->ebx2;
    uint64_t op = ts->o0, vp = ts->v0;
    const uint64_t e0 = g->e[0], e01 = g->e[0] * g->e[1];
    const uint16_t vnew = (uint16_t)LZ_VNEW(r);
    const double mg = LZ_MAGIC;
    uint64_t mb;
    memcpy(&mb, &mg, 8);
    for (uint64_t b = ts->b0; b < ts->b1; b++) {
        lz_blk k;
        lz_block(g, b, &k);
        const uint64_t ex = k.ex, ey = k.ey, ez = k.ez, m = ex * ey * ez, exy = ex * ey;
        const uint16_t *cb = codes + k.co;
        unsigned special = 0;
        for (uint64_t i = 0; i < m; i++) {
            uint64_t c = cb[i];
            d[i] = c - r;
            special |= (c == 0) | (c >= twor);
        }
        if (special) {
            for (uint64_t i = 0; i < m; i++) {
                uint64_t c = cb[i];
                if (c == 0) {
                    if (op >= n_out || oidx[op] != k.co + i) return -1;
                    d[i] = (uint64_t)odel[op++];
                } else if (c >= twor) {
                    d[i] = 0;
                }
            }
        }
        /* partial sums along x, then y, then z (modulo 2^64) */
        for (uint64_t row = 0; row < ey * ez; row++) {
            uint64_t *dr = d + row * ex;
            for (uint64_t x = 1; x < ex; x++) dr[x] += dr[x - 1];
        }
        for (uint64_t z = 0; z < ez; z++)
            for (uint64_t y = 1; y < ey; y++) {
                uint64_t *dr = d + (z * ey + y) * ex;
                const uint64_t *pr = dr - ex;
                for (uint64_t x = 0; x < ex; x++) dr[x] += pr[x];
            }
        for (uint64_t z = 1; z < ez; z++) {
            uint64_t *dp = d + z * exy;
            const uint64_t *pp = dp - exy;
            for (uint64_t i = 0; i < exy; i++) dp[i] += pp[i];
        }
        for (uint64_t z = 0; z < ez; z++)
            for (uint64_t y = 0; y < ey; y++) {
                LZ_T *row = dst + k.base + z * e01 + y * e0;
                const uint64_t *dr = d + (z * ey + y) * ex;
                for (uint64_t x = 0; x < ex; x++) {
                    /* double(q) for |q| < 2^51, exact: (bits(MAGIC) + q) - MAGIC */
                    uint64_t u = dr[x] + mb;
                    double qd;
                    memcpy(&qd, &u, 8);
                    qd -= LZ_MAGIC;
                    row[x] = LZ_FN(lz_recon)(qd, ebx2);
                }
            }
        if (special) {
            for (uint64_t i = 0; i < m; i++) {
                uint64_t c = cb[i];
                if (c < twor) continue;
                if (c == vnew) {
                    if (vp >= n_verb) return -1;
                    vp++;
                } else if (vp == 0) {
                    return -1;
                }
                uint64_t x = i % ex, y = (i / ex) % ey, z = i / exy;
                memcpy(dst + k.base + z * e01 + y * e0 + x, vvals + (vp - 1) * sizeof(LZ_T), sizeof(LZ_T));
            }
        }
    }
    return op == ts->o1 && vp == ts->v1 ? 0 : -1;
}

#undef LZ_FN
#undef LZ_CAT
#undef LZ_CAT2

/*
 * test_metrics.c -- error statistics (scz_stats_compute, scz_value_range)
 * on hand-computed cases, non-finite handling, constant fields, integer
 * dtypes, and large arrays (the parallel path) against a plain loop.
 */
#include "gen.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static int near(double a, double b, double rel) {
    if (a == b) return 1;
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

static void test_hand_computed(void) {
    /* errors 0, .5, 0, 0, 1: max 1, SSE 1.25, MSE .25, RMSE .5, range 4 */
    const double o64[5] = {0, 1, 2, 3, 4}, d64[5] = {0, 1.5, 2, 3, 3};
    const float o32[5] = {0, 1, 2, 3, 4}, d32[5] = {0, 1.5f, 2, 3, 3};
    const double psnr = 20 * log10(4.0) - 10 * log10(0.25); /* 18.0618 dB */
    for (int f = 0; f < 2; f++) {
        scz_stats s;
        memset(&s, 0xFF, sizeof s);
        scz_status r = f ? scz_stats_compute(SCZ_DTYPE_F32, o32, d32, 5, &s) : scz_stats_compute(SCZ_DTYPE_F64, o64, d64, 5, &s);
        CHECK(r == SCZ_OK, "stats %d", f);
        CHECK(s.count == 5 && s.nonfinite == 0 && s.nonfinite_mismatch == 0, "%d: counts", f);
        CHECK(s.min == 0 && s.max == 4 && s.range == 4, "%d: range %g..%g", f, s.min, s.max);
        CHECK(s.max_abs_err == 1 && s.max_rel_err == 0.25, "%d: max err %g rel %g", f, s.max_abs_err, s.max_rel_err);
        CHECK(near(s.rmse, 0.5, 1e-15) && near(s.nrmse, 0.125, 1e-15), "%d: rmse %g nrmse %g", f, s.rmse, s.nrmse);
        CHECK(near(s.mean_abs_err, 0.3, 1e-15), "%d: mean abs err %g", f, s.mean_abs_err);
        CHECK(near(s.psnr, psnr, 1e-12) && near(s.psnr, 18.061799739838872, 1e-12), "%d: psnr %.15g", f, s.psnr);
    }
    /* negative values, errors of both signs */
    const double o[4] = {-10, -5, 5, 10}, d[4] = {-9, -5, 4, 10}; /* errors 1,0,1,0 */
    scz_stats s;
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, o, d, 4, &s) == SCZ_OK, "signed");
    CHECK(s.min == -10 && s.max == 10 && s.range == 20 && s.max_abs_err == 1 && near(s.rmse, sqrt(0.5), 1e-15) &&
              near(s.psnr, 20 * log10(20.0) - 10 * log10(0.5), 1e-12) && s.max_rel_err == 0.05,
          "signed: range %g rmse %g psnr %g", s.range, s.rmse, s.psnr);
}

static void test_identical_and_constant(void) {
    scz_shape sh = {SCZ_DTYPE_F64, 2, {37, 41, 1, 1}};
    double *a = gen_field(GEN_SMOOTH, &sh, 4, NULL);
    scz_stats s;
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, a, a, 37 * 41, &s) == SCZ_OK, "identical");
    CHECK(s.max_abs_err == 0 && s.rmse == 0 && s.mean_abs_err == 0 && s.max_rel_err == 0 && s.nrmse == 0 &&
              isinf(s.psnr) && s.psnr > 0 && s.range > 0,
          "identical arrays: error 0, psnr +inf (%g)", s.psnr);
    free(a);
    /* a constant field reproduced exactly */
    float c[100], e[100];
    for (int i = 0; i < 100; i++) c[i] = e[i] = 7.25f;
    CHECK(scz_stats_compute(SCZ_DTYPE_F32, c, e, 100, &s) == SCZ_OK, "constant");
    CHECK(s.range == 0 && s.min == 7.25 && s.max == 7.25 && s.max_abs_err == 0 && s.max_rel_err == 0 &&
              s.nrmse == 0 && isinf(s.psnr) && s.psnr > 0,
          "constant exact: range 0, psnr +inf, rel 0");
    /* a constant field with an error: the range is 0, the error is not */
    e[10] = 7.5f;
    CHECK(scz_stats_compute(SCZ_DTYPE_F32, c, e, 100, &s) == SCZ_OK, "constant with error");
    CHECK(s.range == 0 && s.max_abs_err == 0.25 && near(s.rmse, sqrt(0.0625 / 100), 1e-15) && !(s.psnr > 0),
          "constant with error: max %g rmse %g psnr %g (formula gives -inf)", s.max_abs_err, s.rmse, s.psnr);
    /* -0.0 against +0.0 is no error */
    double z1[2] = {0.0, 1.0}, z2[2] = {-0.0, 1.0};
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, z1, z2, 2, &s) == SCZ_OK && s.max_abs_err == 0 && isinf(s.psnr),
          "-0.0 vs +0.0");
}

static double mk_nan(uint64_t payload, int neg) {
    uint64_t u = 0x7FF8000000000000ull | (payload & 0x7FFFFFFFFFFFFull) | (neg ? 0x8000000000000000ull : 0);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static void test_nonfinite(void) {
    /* originals: 1, NaN, 3, +Inf, -Inf, 5, NaN(payload 7) */
    double o[7] = {1, mk_nan(1, 0), 3, INFINITY, -INFINITY, 5, mk_nan(7, 1)};
    double d[7] = {1, mk_nan(1, 0), 4, INFINITY, 7, 5, mk_nan(8, 1)};
    scz_stats s;
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, o, d, 7, &s) == SCZ_OK, "nonfinite");
    CHECK(s.nonfinite == 4, "nonfinite counted: %llu", (unsigned long long)s.nonfinite);
    CHECK(s.nonfinite_mismatch == 2, "-Inf->7 and a NaN payload change are mismatches: %llu",
          (unsigned long long)s.nonfinite_mismatch);
    CHECK(s.min == 1 && s.max == 5 && s.range == 4, "range of the finite values %g..%g", s.min, s.max);
    /* finite pairs (1,1) (3,4) (5,5): max 1, MSE 1/3 */
    CHECK(s.max_abs_err == 1 && near(s.rmse, sqrt(1.0 / 3), 1e-15) && near(s.mean_abs_err, 1.0 / 3, 1e-15),
          "errors over finite pairs only: max %g rmse %g", s.max_abs_err, s.rmse);
    CHECK(near(s.psnr, 20 * log10(4.0) - 10 * log10(1.0 / 3), 1e-12), "psnr %g", s.psnr);
    CHECK(s.count == 7, "count %llu", (unsigned long long)s.count);

    /* float32 NaN payloads compare bitwise */
    uint32_t ob[3] = {0x7FC00001u, 0xFF800000u, 0x3F800000u}, db[3] = {0x7FC00002u, 0xFF800000u, 0x3F800000u};
    CHECK(scz_stats_compute(SCZ_DTYPE_F32, ob, db, 3, &s) == SCZ_OK && s.nonfinite == 2 && s.nonfinite_mismatch == 1 &&
              s.max_abs_err == 0,
          "f32 payloads: nonfinite %llu mismatch %llu", (unsigned long long)s.nonfinite,
          (unsigned long long)s.nonfinite_mismatch);
    /* a finite original decoded as NaN or Inf is an unbounded error */
    double f1[3] = {1, 2, 3}, f2[3] = {1, NAN, 3}, f3[3] = {1, 2, INFINITY};
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, f1, f2, 3, &s) == SCZ_OK && isinf(s.max_abs_err) && !(s.psnr > 0),
          "finite -> NaN: max err %g", s.max_abs_err);
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, f1, f3, 3, &s) == SCZ_OK && isinf(s.max_abs_err), "finite -> Inf");
    /* nothing finite at all */
    double n1[2] = {NAN, INFINITY};
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, n1, n1, 2, &s) == SCZ_OK && s.nonfinite == 2 && s.nonfinite_mismatch == 0 &&
              s.max_abs_err == 0 && s.range == 0,
          "all non-finite");
}

static void test_integers(void) {
    uint8_t a8[3] = {0, 255, 100}, b8[3] = {1, 250, 100};
    scz_stats s;
    CHECK(scz_stats_compute(SCZ_DTYPE_U8, a8, b8, 3, &s) == SCZ_OK && s.range == 255 && s.max_abs_err == 5 &&
              near(s.rmse, sqrt(26.0 / 3), 1e-15),
          "u8: range %g max %g", s.range, s.max_abs_err);
    uint16_t a16[2] = {0, 65535}, b16[2] = {65535, 65535};
    CHECK(scz_stats_compute(SCZ_DTYPE_U16, a16, b16, 2, &s) == SCZ_OK && s.max_abs_err == 65535 && s.max_rel_err == 1,
          "u16: no wrap-around in the difference");
    uint32_t a32[2] = {4000000000u, 1}, b32[2] = {1, 4000000000u};
    CHECK(scz_stats_compute(SCZ_DTYPE_U32, a32, b32, 2, &s) == SCZ_OK && s.max_abs_err == 3999999999.0, "u32");
    uint64_t a64[2] = {1ull << 60, 0}, b64[2] = {(1ull << 60) + 4096, 0};
    CHECK(scz_stats_compute(SCZ_DTYPE_U64, a64, b64, 2, &s) == SCZ_OK && s.max_abs_err == 4096 &&
              s.range == 1152921504606846976.0,
          "u64: %g", s.max_abs_err);
}

static void test_args(void) {
    double a[2] = {1, 2};
    scz_stats s;
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, a, a, 2, NULL) == SCZ_ERR_ARG, "NULL out");
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, NULL, a, 2, &s) == SCZ_ERR_ARG, "NULL orig");
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, a, NULL, 2, &s) == SCZ_ERR_ARG, "NULL dec");
    CHECK(scz_stats_compute((scz_dtype)0, a, a, 2, &s) == SCZ_ERR_ARG, "unknown dtype");
    CHECK(scz_stats_compute((scz_dtype)9, a, a, 2, &s) == SCZ_ERR_ARG, "unknown dtype 9");
    CHECK(scz_stats_compute(SCZ_DTYPE_F64, NULL, NULL, 0, &s) == SCZ_OK && s.count == 0 && s.nonfinite == 0,
          "empty comparison");
    double mn, mx;
    uint64_t fin;
    CHECK(scz_value_range(SCZ_DTYPE_F64, NULL, 3, &mn, &mx, &fin) == SCZ_ERR_ARG, "range NULL data");
    CHECK(scz_value_range((scz_dtype)0, a, 2, &mn, &mx, &fin) == SCZ_ERR_ARG, "range unknown dtype");
    CHECK(scz_value_range(SCZ_DTYPE_F64, NULL, 0, &mn, &mx, &fin) == SCZ_OK && fin == 0, "range of nothing");
    CHECK(scz_value_range(SCZ_DTYPE_F64, a, 2, NULL, NULL, NULL) == SCZ_OK, "range with NULL outputs");
}

static void test_value_range(void) {
    float v[6] = {3, NAN, -2, INFINITY, 10, -INFINITY};
    double mn = 1, mx = 1;
    uint64_t fin = 99;
    CHECK(scz_value_range(SCZ_DTYPE_F32, v, 6, &mn, &mx, &fin) == SCZ_OK && mn == -2 && mx == 10 && fin == 3,
          "f32 range %g..%g finite %llu", mn, mx, (unsigned long long)fin);
    double w[3] = {NAN, NAN, INFINITY};
    CHECK(scz_value_range(SCZ_DTYPE_F64, w, 3, &mn, &mx, &fin) == SCZ_OK && fin == 0 && mn == 0 && mx == 0,
          "no finite values: 0 finite, 0..0");
    double one = -3.5;
    CHECK(scz_value_range(SCZ_DTYPE_F64, &one, 1, &mn, &mx, &fin) == SCZ_OK && mn == -3.5 && mx == -3.5 && fin == 1,
          "one value");
    uint16_t u[4] = {7, 65535, 0, 9};
    CHECK(scz_value_range(SCZ_DTYPE_U16, u, 4, &mn, &mx, &fin) == SCZ_OK && mn == 0 && mx == 65535 && fin == 4, "u16");
    float dn[2] = {1e-45f, -1e-45f}; /* denormals count as finite */
    CHECK(scz_value_range(SCZ_DTYPE_F32, dn, 2, &mn, &mx, &fin) == SCZ_OK && fin == 2 && mn < 0 && mx > 0, "denormals");
}

/* Large arrays go through the parallel reductions: compare to a plain loop. */
static void test_large(void) {
    scz_shape sh = {SCZ_DTYPE_F32, 1, {300001, 1, 1, 1}};
    float *a = gen_field(GEN_SPECIAL, &sh, 11, NULL);
    float *b = gen_field(GEN_SPECIAL, &sh, 11, NULL);
    uint64_t st = 5;
    for (uint64_t i = 0; i < 300001; i++) {
        uint64_t h = gen_splitmix64(&st);
        if (h % 3 == 0 && isfinite(b[i])) b[i] = b[i] + (float)((double)(h >> 40) * 1e-6);
        if (h % 1000 == 1) b[i] = NAN; /* some mismatches either way */
    }
    double lo = INFINITY, hi = -INFINITY, maxe = 0, sse = 0, sae = 0;
    uint64_t fin = 0, mism = 0;
    for (uint64_t i = 0; i < 300001; i++) {
        double x = a[i], y = b[i];
        if (!isfinite(x)) {
            mism += memcmp(&a[i], &b[i], 4) != 0;
            continue;
        }
        fin++;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
        double e = fabs(x - y);
        if (isnan(e)) e = INFINITY;
        maxe = fmax(maxe, e);
        sse += e * e;
        sae += e;
    }
    scz_stats s;
    CHECK(scz_stats_compute(SCZ_DTYPE_F32, a, b, 300001, &s) == SCZ_OK, "large stats");
    CHECK(s.min == lo && s.max == hi && s.nonfinite == 300001 - fin && s.nonfinite_mismatch == mism && s.max_abs_err == maxe,
          "large: exact figures (min %g/%g max %g/%g nonfinite %llu/%llu mism %llu/%llu)", s.min, lo, s.max, hi,
          (unsigned long long)s.nonfinite, (unsigned long long)(300001 - fin), (unsigned long long)s.nonfinite_mismatch,
          (unsigned long long)mism);
    CHECK(isinf(maxe), "the NaN-decoded finite values make the max error infinite");
    /* now without the NaNs, for finite sums */
    for (uint64_t i = 0; i < 300001; i++)
        if (isnan(b[i]) && isfinite(a[i])) b[i] = a[i];
    maxe = sse = sae = 0;
    for (uint64_t i = 0; i < 300001; i++) {
        double x = a[i];
        if (!isfinite(x)) continue;
        double e = fabs(x - (double)b[i]);
        maxe = fmax(maxe, e);
        sse += e * e;
        sae += e;
    }
    CHECK(scz_stats_compute(SCZ_DTYPE_F32, a, b, 300001, &s) == SCZ_OK, "large stats 2");
    double mse = sse / (double)fin;
    CHECK(s.max_abs_err == maxe && near(s.rmse, sqrt(mse), 1e-9) && near(s.mean_abs_err, sae / (double)fin, 1e-9) &&
              near(s.psnr, 20 * log10(hi - lo) - 10 * log10(mse), 1e-9),
          "large: rmse %.17g vs %.17g, psnr %.17g", s.rmse, sqrt(mse), s.psnr);
    double mn, mx;
    uint64_t f2;
    CHECK(scz_value_range(SCZ_DTYPE_F32, a, 300001, &mn, &mx, &f2) == SCZ_OK && mn == lo && mx == hi && f2 == fin,
          "large value range");
    free(a);
    free(b);
}

int main(void) {
    test_hand_computed();
    test_identical_and_constant();
    test_nonfinite();
    test_integers();
    test_args();
    test_value_range();
    test_large();
    return tu_finish("test_metrics");
}

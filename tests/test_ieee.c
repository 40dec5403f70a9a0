/*
 * test_ieee.c -- the floating-point contract of the lossy bound
 * (docs/FORMAT.md 7.1, src/util/ieee.h):
 *   - flush-to-zero / denormals-are-zero (x86 MXCSR): streams written with
 *     FTZ+DAZ on are byte-identical to those written without, and decode
 *     within the bound in either mode, for fields full of denormals and
 *     values next to the smallest normal, at bounds around it;
 *   - a bound below the smallest normal number is stored as 0 (lossless);
 *   - a rounding mode other than round-to-nearest is refused with an error
 *     (compressing and decompressing), nothing is written.
 */
#include "gen.h"
#include "testutil.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

static scz_ctx *ctx;

#ifdef HAVE_MXCSR
static unsigned csr_saved;
static void ftz_on(void) {
    csr_saved = _mm_getcsr();
    _mm_setcsr(csr_saved | 0x8000u /* FTZ */ | 0x0040u /* DAZ */);
}
static void ftz_off(void) { _mm_setcsr(csr_saved); }
#endif

/* A field of n values: denormals of both signs, values just above and
 * below the smallest normal, zeros, and ordinary values. */
static void *tiny_field(scz_dtype t, uint64_t n, uint64_t seed) {
    size_t es = scz_dtype_size(t);
    uint8_t *b = malloc(n * es);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = gen_splitmix64(&seed);
        int kind = (int)(r % 6);
        double v;
        if (t == SCZ_DTYPE_F32) {
            uint32_t bits;
            float f;
            switch (kind) {
            case 0: bits = (uint32_t)(r >> 32) & 0x007FFFFFu; memcpy(&f, &bits, 4); break;       /* +denormal */
            case 1: bits = ((uint32_t)(r >> 32) & 0x007FFFFFu) | 0x80000000u; memcpy(&f, &bits, 4); break;
            case 2: f = FLT_MIN * (float)(1.0 + (double)(r >> 40) / 16777216.0); break;          /* just normal */
            case 3: f = -FLT_MIN * 3.0f; break;
            case 4: f = 0.0f; break;
            default: f = (float)((double)(r >> 11) / 9007199254740992.0 - 0.5); break;
            }
            memcpy(b + 4 * i, &f, 4);
        } else {
            uint64_t bits;
            switch (kind) {
            case 0: bits = (r >> 12); memcpy(&v, &bits, 8); break;
            case 1: bits = (r >> 12) | 0x8000000000000000ull; memcpy(&v, &bits, 8); break;
            case 2: v = DBL_MIN * (1.0 + (double)(r >> 40) / 16777216.0); break;
            case 3: v = -DBL_MIN * 3.0; break;
            case 4: v = 0.0; break;
            default: v = (double)(r >> 11) / 9007199254740992.0 - 0.5; break;
            }
            memcpy(b + 8 * i, &v, 8);
        }
    }
    return b;
}

static uint8_t *compress(const scz_shape *sh, const void *data, double eb, size_t *n, scz_status *st) {
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.eb_mode = SCZ_EB_ABS;
    p.eb = eb;
    size_t cap = scz_compress_bound(sh, &p);
    uint8_t *z = malloc(cap);
    *st = scz_compress(ctx, &p, sh, data, z, cap, n);
    return z;
}

static void check_bound(const scz_shape *sh, const void *a, const void *b, double eb, const char *what) {
    scz_stats s;
    scz_stats_compute(sh->dtype, a, b, gen_count(sh), &s);
    CHECK(s.max_abs_err <= eb && s.nonfinite_mismatch == 0, "%s: max error %.17g above %.17g", what, s.max_abs_err,
          eb);
}

static void test_ftz(void) {
#ifndef HAVE_MXCSR
    printf("test_ieee: no MXCSR on this processor: FTZ/DAZ cases skipped\n");
#else
    for (int ti = 0; ti < 2; ti++) {
        scz_dtype t = ti ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
        double nmin = ti ? DBL_MIN : (double)FLT_MIN;
        uint64_t n = 20000;
        scz_shape sh = {t, 2, {100, 200, 1, 1}};
        void *data = tiny_field(t, n, 77 + (uint64_t)ti);
        size_t raw = n * scz_dtype_size(t);
        const double ebs[] = {nmin * 0.5, nmin, nmin * 1.5, nmin * 4, 1e-30, 1e-3};
        for (int k = 0; k < 6; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s ABS %g", scz_dtype_name(t), ebs[k]);
            size_t n1 = 0, n2 = 0;
            scz_status s1, s2;
            uint8_t *z1 = compress(&sh, data, ebs[k], &n1, &s1);
            ftz_on();
            uint8_t *z2 = compress(&sh, data, ebs[k], &n2, &s2);
            ftz_off();
            CHECK(s1 == SCZ_OK && s2 == SCZ_OK, "%s: compress %d / %d under FTZ+DAZ", what, (int)s1, (int)s2);
            CHECK(n1 == n2 && !memcmp(z1, z2, n1), "%s: the stream differs under FTZ+DAZ", what);
            scz_info info;
            CHECK(scz_inspect(z1, n1, &info) == SCZ_OK, "%s: inspect", what);
            if (ebs[k] < nmin) CHECK(info.eb_abs == 0, "%s: a bound below the smallest normal is %g, not 0", what,
                                      info.eb_abs);
            void *o1 = malloc(raw), *o2 = malloc(raw);
            CHECK(scz_decompress(ctx, z1, n1, o1, raw, NULL) == SCZ_OK, "%s: decompress", what);
            ftz_on();
            scz_status sd = scz_decompress(ctx, z1, n1, o2, raw, NULL);
            ftz_off();
            CHECK(sd == SCZ_OK, "%s: decompress under FTZ+DAZ", what);
            CHECK(!memcmp(o1, o2, raw), "%s: decoded values differ under FTZ+DAZ", what);
            check_bound(&sh, data, o1, info.eb_abs, what);
            check_bound(&sh, data, o1, ebs[k], what);
            free(o1);
            free(o2);
            free(z1);
            free(z2);
        }
        /* level 1 (interpolation) needs IEEE denormals: refused under
         * FTZ/DAZ, in both directions, not a bound missed */
        {
            scz_params p;
            scz_params_init(&p, SCZ_CODEC_LOSSY);
            p.eb_mode = SCZ_EB_ABS;
            p.eb = nmin * 4;
            p.knobs[2] = 1;
            size_t cap = scz_compress_bound(&sh, &p), nz = 0, nz2 = 0;
            uint8_t *z = malloc(cap), *z2 = malloc(cap);
            scz_status s0 = scz_compress(ctx, &p, &sh, data, z, cap, &nz);
            CHECK(s0 == SCZ_OK, "%s level 1: compress %d", scz_dtype_name(t), (int)s0);
            ftz_on();
            scz_status s1 = scz_compress(ctx, &p, &sh, data, z2, cap, &nz2);
            void *o = malloc(raw);
            scz_status s2 = s0 == SCZ_OK ? scz_decompress(ctx, z, nz, o, raw, NULL) : SCZ_ERR_UNSUPPORTED;
            ftz_off();
            CHECK(s1 == SCZ_ERR_UNSUPPORTED, "%s level 1 under FTZ+DAZ: compress gave %d, not refused",
                  scz_dtype_name(t), (int)s1);
            CHECK(s2 == SCZ_ERR_UNSUPPORTED, "%s level 1 under FTZ+DAZ: decompress gave %d, not refused",
                  scz_dtype_name(t), (int)s2);
            if (s0 == SCZ_OK) {
                CHECK(scz_decompress(ctx, z, nz, o, raw, NULL) == SCZ_OK, "%s level 1: decompress",
                      scz_dtype_name(t));
                check_bound(&sh, data, o, nmin * 4, "level 1");
            }
            free(o);
            free(z);
            free(z2);
        }
        free(data);
    }
#endif
}

static void test_rounding_mode(void) {
    uint64_t n = 4096;
    scz_shape sh = {SCZ_DTYPE_F64, 1, {n, 1, 1, 1}};
    size_t bytes;
    void *data = gen_field(GEN_SMOOTH, &sh, 5, &bytes);
    size_t zn;
    scz_status st;
    uint8_t *z = compress(&sh, data, 1e-3, &zn, &st);
    CHECK(st == SCZ_OK, "compress at round-to-nearest");
    const int modes[] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    for (int m = 0; m < 3; m++) {
        double *out = malloc(bytes);
        memset(out, 0x5A, bytes);
        size_t zn2;
        scz_status s1, s2;
        if (fesetround(modes[m])) {
            printf("test_ieee: rounding mode %d not available\n", modes[m]);
            free(out);
            continue;
        }
        uint8_t *z2 = compress(&sh, data, 1e-3, &zn2, &s1);
        s2 = scz_decompress(ctx, z, zn, out, bytes, NULL);
        fesetround(FE_TONEAREST);
        CHECK(s1 == SCZ_ERR_UNSUPPORTED, "rounding mode %d: compress returned %d", m, (int)s1);
        CHECK(s2 == SCZ_ERR_UNSUPPORTED, "rounding mode %d: decompress returned %d", m, (int)s2);
        CHECK(strstr(scz_ctx_last_error(ctx), "rounding") != NULL, "rounding mode: message '%s'",
              scz_ctx_last_error(ctx));
        free(z2);
        free(out);
    }
    free(z);
    free(data);
}

int main(void) {
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    scz_ctx_set_threads(ctx, 1); /* MXCSR is per thread: keep the work on this one */
    test_ftz();
    test_rounding_mode();
    scz_ctx_destroy(ctx);
    return tu_finish("test_ieee");
}

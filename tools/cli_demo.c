/*
 * cli_demo.c -- `scz demo`: a self-contained run of every codec of this
 * build on generated fields of the types it takes (two float fields, an
 * interleaved float64 trajectory for gfc's dimensionality, one integer
 * detector image), verified, with a table of ratio, bit rate, error
 * and throughput.
 *
 * The fields are the same bits on every platform: the generator uses its own
 * PRNG (splitmix64) and its own sine (a polynomial in IEEE double arithmetic,
 * no libm), so only +, -, * and / with round-to-nearest are involved.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- deterministic generators ---------------- */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 random bits. */
static double unif(uint64_t *s) { return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0); }

/* Uniform integer in [lo, hi]. */
static int64_t irange(uint64_t *s, int64_t lo, int64_t hi) {
    return lo + (int64_t)(splitmix64(s) % (uint64_t)(hi - lo + 1));
}

/* sin and cos of 2*pi*t for t in [0, 1): quadrant from t, then Taylor
 * polynomials on [0, pi/2) (error below 1e-15). */
static void sincos_turns(double t, double *s, double *c) {
    static const double two_pi = 6.283185307179586;
    double q4 = t * 4.0;
    int q = (int)q4; /* 0..3 */
    if (q > 3) q = 3;
    double a = (t - 0.25 * q) * two_pi, a2 = a * a;
    double ps = 1.0, pc = 1.0;
    /* Horner: sin a = a (1 - a^2/(2*3) (1 - a^2/(4*5) (...))), cos likewise. */
    for (int k = 21; k >= 3; k -= 2) ps = 1.0 - a2 / (double)((k - 1) * k) * ps;
    for (int k = 22; k >= 2; k -= 2) pc = 1.0 - a2 / (double)((k - 1) * k) * pc;
    double sv = a * ps, cv = pc;
    switch (q) {
    case 0: *s = sv; *c = cv; break;
    case 1: *s = cv; *c = -sv; break;
    case 2: *s = -sv; *c = -cv; break;
    default: *s = -cv; *c = sv; break;
    }
}

/* Fraction of turns of (k * i / n + phase), reduced exactly to [0, 1). */
static double turns(int64_t k, int64_t i, int64_t n, double phase) {
    int64_t r = (k * i) % n;
    if (r < 0) r += n;
    double t = (double)r / (double)n + phase;
    if (t >= 1.0) t -= 1.0;
    return t;
}

/* Smooth 3D float32 field: a few low-frequency separable modes plus a
 * gentle gradient, like a resolved simulation variable. */
static float *gen_smooth3d(uint64_t n) {
    enum { MODES = 6 };
    float *f = malloc(n * n * n * sizeof *f);
    double *tab = malloc(3 * MODES * n * sizeof *tab);
    if (!f || !tab) {
        free(f);
        free(tab);
        return NULL;
    }
    uint64_t seed = 0x5C2D3D;
    double amp[MODES];
    for (int m = 0; m < MODES; m++) {
        for (int ax = 0; ax < 3; ax++) {
            int64_t k = irange(&seed, 1, 4);
            double ph = unif(&seed), c;
            for (uint64_t i = 0; i < n; i++)
                sincos_turns(turns(k, (int64_t)i, (int64_t)n, ph), &tab[(ax * MODES + m) * n + i], &c);
        }
        amp[m] = 1.0 / (double)(m + 1);
    }
    for (uint64_t z = 0; z < n; z++)
        for (uint64_t y = 0; y < n; y++)
            for (uint64_t x = 0; x < n; x++) {
                double v = 0.5 * (double)(x + 2 * y + 3 * z) / (double)n;
                for (int m = 0; m < MODES; m++)
                    v += amp[m] * tab[(0 * MODES + m) * n + x] * tab[(1 * MODES + m) * n + y] *
                         tab[(2 * MODES + m) * n + z];
                f[(z * n + y) * n + x] = (float)v;
            }
    free(tab);
    return f;
}

/* Turbulence-like 2D float64 field: random-phase Fourier modes with
 * wave numbers spread over octaves 1..256 and amplitude |k|^-1 (a power-law
 * spectrum), plus small uniform noise in the low bits. Periodic in x and y.
 * sin(A + B) = sin A cos B + cos A sin B keeps it separable and fast. */
static double *gen_turb2d(uint64_t n) {
    enum { MODES = 96 };
    double *f = calloc(n * n, sizeof *f);
    double *sx = malloc(MODES * n * sizeof *sx), *cx = malloc(MODES * n * sizeof *cx);
    double *sy = malloc(MODES * n * sizeof *sy), *cy = malloc(MODES * n * sizeof *cy);
    double amp[MODES];
    if (!f || !sx || !cx || !sy || !cy) {
        free(f);
        f = NULL;
        goto out;
    }
    uint64_t seed = 0x7B2D;
    for (int m = 0; m < MODES; m++) {
        int64_t shell = (int64_t)1 << irange(&seed, 0, 8), kx, ky;
        do {
            kx = irange(&seed, -shell, shell);
            ky = irange(&seed, 0, shell);
        } while (kx == 0 && ky == 0);
        amp[m] = 1.0 / sqrt((double)(kx * kx + ky * ky)); /* sqrt is exactly rounded in IEEE */
        double ph = unif(&seed);
        for (uint64_t i = 0; i < n; i++) {
            sincos_turns(turns(kx, (int64_t)i, (int64_t)n, ph), &sx[m * n + i], &cx[m * n + i]);
            sincos_turns(turns(ky, (int64_t)i, (int64_t)n, 0.0), &sy[m * n + i], &cy[m * n + i]);
        }
    }
    for (uint64_t y = 0; y < n; y++) {
        double *row = f + y * n;
        for (int m = 0; m < MODES; m++) {
            double a = amp[m], ayc = a * cy[m * n + y], ays = a * sy[m * n + y];
            const double *s = sx + m * n, *c = cx + m * n;
            for (uint64_t x = 0; x < n; x++) row[x] += s[x] * ayc + c[x] * ays;
        }
        for (uint64_t x = 0; x < n; x++) row[x] += 1e-6 * (unif(&seed) - 0.5);
    }
out:
    free(sx);
    free(cx);
    free(sy);
    free(cy);
    return f;
}

/* Detector-like 2D uint16 image: a flat background of about 100 counts
 * with small integer noise, a few bright round spots (a Lorentzian profile,
 * no libm) and a saturated dead column, like a diffraction frame. */
static uint16_t *gen_counts2d(uint64_t n) {
    enum { SPOTS = 40 };
    uint16_t *f = malloc(n * n * sizeof *f);
    if (!f) return NULL;
    uint64_t seed = 0xC0C0A;
    double cx[SPOTS], cy[SPOTS], peak[SPOTS], w2[SPOTS];
    for (int k = 0; k < SPOTS; k++) {
        cx[k] = unif(&seed) * (double)n;
        cy[k] = unif(&seed) * (double)n;
        peak[k] = 200.0 + 20000.0 * unif(&seed) * unif(&seed);
        w2[k] = 2.0 + 30.0 * unif(&seed);
    }
    for (uint64_t y = 0; y < n; y++)
        for (uint64_t x = 0; x < n; x++) {
            uint64_t r = splitmix64(&seed);
            /* background: 100 + sum of four 0..7 draws - 14 (-14..+14, bell-shaped) */
            double v = 100.0 + (double)((r & 7) + (r >> 3 & 7) + (r >> 6 & 7) + (r >> 9 & 7)) - 14.0;
            for (int k = 0; k < SPOTS; k++) {
                double dx = (double)x - cx[k], dy = (double)y - cy[k], d2 = dx * dx + dy * dy;
                if (d2 < 400.0 * w2[k]) v += peak[k] / (1.0 + d2 / w2[k]);
            }
            if (x == n / 3) v = 65535.0;
            f[y * n + x] = (uint16_t)(v > 65535.0 ? 65535.0 : v);
        }
    return f;
}

/* Interleaved 3-component float64 trajectory (x y z per time step, the
 * layout of particle or station output): a slowly precessing orbit with a
 * drift. Component c of step t is element 3t + c, so each component is
 * smooth with a stride of 3: the case of gfc's dimensionality knob (3). */
static double *gen_orbit3(uint64_t steps) {
    double *f = malloc(3 * steps * sizeof *f);
    if (!f) return NULL;
    for (uint64_t t = 0; t < steps; t++) {
        double s1, c1, s2, c2;
        sincos_turns((double)(t % 4096) / 4096.0, &s1, &c1);   /* orbit */
        sincos_turns((double)(t % 65536) / 65536.0, &s2, &c2); /* precession */
        double r = 7000.0 + 30.0 * s2;
        f[3 * t] = r * (c1 * c2 - s1 * s2 * 0.5);
        f[3 * t + 1] = r * (c1 * s2 + s1 * c2 * 0.5);
        f[3 * t + 2] = r * s1 * 0.8660254037844386 + 1e-3 * (double)t;
    }
    return f;
}

/* ---------------- one case ---------------- */

typedef struct field {
    const char *name;
    scz_shape shape;
    const void *data;
    size_t bytes;
    uint32_t gfc_dim; /* gfc's dimensionality knob for this field (0 = default) */
} field;

enum { CASE_OK, CASE_SKIPPED, CASE_ERROR, CASE_BAD };

#define MIN_RUNS 1
#define MAX_RUNS 3
#define TIME_BUDGET 0.25 /* seconds per phase: repeat up to MAX_RUNS within it */

static void fmt_num(char *b, size_t cap, double v, const char *fmt) {
    if (isinf(v)) snprintf(b, cap, "%s", v > 0 ? "inf" : "-inf");
    else snprintf(b, cap, fmt, v);
}

static int run_case(scz_ctx *ctx, const field *f, scz_codec codec, scz_eb_mode mode, double eb, int quiet) {
    char setting[32];
    if (mode == SCZ_EB_NONE && codec == SCZ_CODEC_GFC) snprintf(setting, sizeof setting, "D=%u", f->gfc_dim ? f->gfc_dim : 1);
    else if (mode == SCZ_EB_NONE) snprintf(setting, sizeof setting, "lossless");
    else snprintf(setting, sizeof setting, "%s %g", scz_eb_mode_name(mode), eb);
    scz_params p;
    scz_params_init(&p, codec);
    if (codec == SCZ_CODEC_GFC) p.knobs[0] = f->gfc_dim;
    p.eb_mode = mode;
    p.eb = eb;
    uint64_t count = scz_shape_count(&f->shape);
    size_t cap = scz_compress_bound(&f->shape, &p);
    uint8_t *stream = cap ? malloc(cap) : NULL;
    uint8_t *dec = malloc(f->bytes);
    int rc = CASE_OK;
    size_t csize = 0;
    double tc = INFINITY, td = INFINITY;
    scz_status st = SCZ_OK;
    const char *why = NULL;
    if (!cap) {
        st = SCZ_ERR_UNSUPPORTED;
        why = "no compression bound for this shape and codec";
    } else if (!stream || !dec) {
        st = SCZ_ERR_NOMEM;
        why = "out of memory";
    }
    double spent = 0;
    for (int run = 0; !st && run < MAX_RUNS && (run < MIN_RUNS || spent < TIME_BUDGET); run++) {
        double t0 = cli_now();
        st = scz_compress(ctx, &p, &f->shape, f->data, stream, cap, &csize);
        double t = cli_now() - t0;
        spent += t;
        if (t < tc) tc = t;
    }
    spent = 0;
    for (int run = 0; !st && run < MAX_RUNS && (run < MIN_RUNS || spent < TIME_BUDGET); run++) {
        double t0 = cli_now();
        st = scz_decompress(ctx, stream, csize, dec, f->bytes, NULL);
        double t = cli_now() - t0;
        spent += t;
        if (t < td) td = t;
    }
    if (st && !why) why = scz_ctx_last_error(ctx);
    if (st) {
        rc = st == SCZ_ERR_UNSUPPORTED ? CASE_SKIPPED : CASE_ERROR;
        printf("%-9s %-8s %-10s  %s: %s\n", f->name, scz_codec_name(codec), setting,
               rc == CASE_SKIPPED ? "skipped" : "ERROR", why && *why ? why : scz_status_string(st));
        goto out;
    }
    scz_stats s;
    scz_info info;
    if (scz_stats_compute(f->shape.dtype, f->data, dec, count, &s) != SCZ_OK ||
        scz_inspect(stream, csize, &info) != SCZ_OK) {
        printf("%-9s %-8s %-10s  ERROR: cannot compute statistics\n", f->name, scz_codec_name(codec), setting);
        rc = CASE_ERROR;
        goto out;
    }
    int ok;
    if (scz_codec_is_lossless(codec)) ok = memcmp(f->data, dec, f->bytes) == 0;
    else ok = s.max_abs_err <= info.eb_abs && s.nonfinite_mismatch == 0;
    char psnr[32], err[32];
    fmt_num(psnr, sizeof psnr, s.psnr, "%.2f");
    fmt_num(err, sizeof err, s.max_abs_err, "%.3g");
    printf("%-9s %-8s %-10s %8.3f %9.3f %11s %9s %10.1f %10.1f  %s\n", f->name, scz_codec_name(codec), setting,
           (double)f->bytes / (double)csize, 8.0 * (double)csize / (double)count, err, psnr,
           cli_mbps(f->bytes, tc), cli_mbps(f->bytes, td),
           ok ? (scz_codec_is_lossless(codec) ? "bit-exact" : "within bound")
              : (scz_codec_is_lossless(codec) ? "FAIL: not bit-exact" : "FAIL: bound violated"));
    if (!ok) rc = CASE_BAD;
    (void)quiet;
out:
    fflush(stdout);
    free(stream);
    free(dec);
    return rc;
}

int cli_demo(int threads, int quiet) {
    const uint64_t n3 = 128, n2 = 1024;
    double t0 = cli_now();
    float *a = gen_smooth3d(n3);
    double *b = gen_turb2d(n2);
    uint16_t *c16 = gen_counts2d(n2);
    const uint64_t n_orbit = 262144;
    double *o3 = gen_orbit3(n_orbit);
    double tgen = cli_now() - t0;
    if (!a || !b || !c16 || !o3) {
        cli_error("out of memory generating the demo fields");
        free(a);
        free(b);
        free(c16);
        free(o3);
        return CLI_EXIT_LIB;
    }
    enum { NFIELDS = 4 };
    field fields[NFIELDS];
    memset(fields, 0, sizeof fields);
    fields[0].name = "smooth3d";
    fields[0].shape.dtype = SCZ_DTYPE_F32;
    fields[0].shape.rank = 3;
    fields[0].shape.dims[0] = fields[0].shape.dims[1] = fields[0].shape.dims[2] = n3;
    fields[0].shape.dims[3] = 1;
    fields[0].data = a;
    fields[0].bytes = (size_t)(n3 * n3 * n3 * sizeof(float));
    fields[1].name = "turb2d";
    fields[1].shape.dtype = SCZ_DTYPE_F64;
    fields[1].shape.rank = 2;
    fields[1].shape.dims[0] = fields[1].shape.dims[1] = n2;
    fields[1].shape.dims[2] = fields[1].shape.dims[3] = 1;
    fields[1].data = b;
    fields[1].bytes = (size_t)(n2 * n2 * sizeof(double));
    fields[2].name = "counts2d";
    fields[2].shape.dtype = SCZ_DTYPE_U16;
    fields[2].shape.rank = 2;
    fields[2].shape.dims[0] = fields[2].shape.dims[1] = n2;
    fields[2].shape.dims[2] = fields[2].shape.dims[3] = 1;
    fields[2].data = c16;
    fields[2].bytes = (size_t)(n2 * n2 * sizeof(uint16_t));
    fields[3].name = "orbit3";
    fields[3].shape.dtype = SCZ_DTYPE_F64;
    fields[3].shape.rank = 2;
    fields[3].shape.dims[0] = 3;
    fields[3].shape.dims[1] = n_orbit;
    fields[3].shape.dims[2] = fields[3].shape.dims[3] = 1;
    fields[3].data = o3;
    fields[3].bytes = (size_t)(3 * n_orbit * sizeof(double));
    fields[3].gfc_dim = 3;

    scz_ctx *ctx = NULL;
    scz_status st = scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    if (!st && threads) st = scz_ctx_set_threads(ctx, threads);
    if (st) {
        cli_error("cannot create a context: %s", scz_status_string(st));
        scz_ctx_destroy(ctx);
        free(a);
        free(b);
        free(c16);
        free(o3);
        return CLI_EXIT_LIB;
    }

    if (!quiet) {
        char tn[32];
        if (threads) snprintf(tn, sizeof tn, "%d", threads);
        else snprintf(tn, sizeof tn, "all cores");
        printf("scz demo: generated fields in %.2f s; CPU backend, threads: %s\n", tgen, tn);
        printf("  smooth3d  float32, 128 x 128 x 128 (fastest first), low-frequency modes + gradient\n");
        printf("  turb2d    float64, 1024 x 1024, random-phase modes with |k|^-1 spectrum + noise\n");
        printf("  counts2d  uint16, 1024 x 1024, detector frame: background counts, bright spots\n");
        printf("  orbit3    float64, 3 x 262144, x y z interleaved per time step (gfc runs with D=3)\n");
        printf("each codec runs on the fields of the types it takes\n");
        printf("ratio = original/compressed; bits/value = compressed bits per value;\n"
               "PSNR = 20 log10(range) - 10 log10(MSE) in dB; MB/s = 1e6 raw bytes/s, wall clock,\n"
               "best of up to %d runs\n\n", MAX_RUNS);
    }
    printf("%-9s %-8s %-10s %8s %9s %11s %9s %10s %10s  %s\n", "field", "codec", "setting", "ratio", "bits/val",
           "max abs err", "PSNR dB", "comp MB/s", "dec MB/s", "check");

    int ran = 0, errors = 0, bad = 0;
    int codecs_run[SCZ_CODEC_LZSS + 1] = {0};
    for (int fi = 0; fi < NFIELDS; fi++) {
        for (int c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LZSS; c++) {
            scz_codec codec = (scz_codec)c;
            if (!scz_codec_accepts(codec, fields[fi].shape.dtype)) continue;
            codecs_run[c] = 1;
            int r[2] = {CASE_SKIPPED, CASE_SKIPPED};
            if (scz_codec_is_lossless(codec)) {
                r[0] = run_case(ctx, &fields[fi], codec, SCZ_EB_NONE, 0, quiet);
            } else {
                r[0] = run_case(ctx, &fields[fi], codec, SCZ_EB_REL, 1e-3, quiet);
                r[1] = run_case(ctx, &fields[fi], codec, SCZ_EB_REL, 1e-5, quiet);
            }
            for (int k = 0; k < 2; k++) {
                ran += r[k] == CASE_OK || r[k] == CASE_BAD;
                errors += r[k] == CASE_ERROR;
                bad += r[k] == CASE_BAD;
            }
        }
    }
    scz_ctx_destroy(ctx);
    free(a);
    free(b);
    free(c16);
    free(o3);
    for (int c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LZSS; c++)
        if (scz_codec_available((scz_codec)c) && !codecs_run[c]) {
            cli_error("demo: codec %s has no demo field of a type it takes", scz_codec_name((scz_codec)c));
            errors++;
        }
    if (bad) {
        cli_error("demo: %d verification(s) failed", bad);
        return CLI_EXIT_VERIFY;
    }
    if (errors) {
        cli_error("demo: %d case(s) failed with a library error", errors);
        return CLI_EXIT_LIB;
    }
    if (!ran) {
        cli_error("demo: no codec of this build could compress the demo fields");
        return CLI_EXIT_LIB;
    }
    if (!quiet) printf("\n%d case(s) verified.\n", ran);
    return CLI_EXIT_OK;
}

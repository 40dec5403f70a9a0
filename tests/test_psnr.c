/*
 * test_psnr.c -- a PSNR target of the lossy codec is a promise (FORMAT.md
 * 7.1). For 40, 60, 80 and 100 dB, every real data file and generated
 * fields (station records on a 0.1 grid with -9999 sentinels, 1e20 and
 * 1e300 fill values, tiny values, NaN/Inf, every generator family) decode
 * with PSNR >= target, computed here with scaling (no overflow of the
 * squares) and by scz_stats_compute where its sums stay finite; the max
 * error stays within the header's eb_abs; eb_abs equals what an
 * independent implementation of the PSNR rule derives; streams are
 * byte-identical at 1, 2, 3 threads and the context default.
 */
#include "gen.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <string.h>

static scz_ctx *ctxs[4]; /* 1, 2, 3 threads, default */
static const int nthr[4] = {1, 2, 3, 0};
static const double targets[4] = {40, 60, 80, 100};

static double elem(scz_dtype t, const void *p, uint64_t i) {
    return t == SCZ_DTYPE_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* ---- the PSNR rule, written from FORMAT.md 7.1 and 7.3 ---- */

/* 1 if verbatim at bound eb, else 0 and *err = |x - x'|. */
static int ref_quant(scz_dtype t, double x, double eb, double *err) {
    const double M = 6755399441055744.0;
    double h = 2.0 * eb, inv = h > 0 ? 1.0 / h : INFINITY;
    double tt = x * inv;
    double qd = (tt + M) - M;
    double xr = t == SCZ_DTYPE_F32 ? (double)(float)(qd * h) : qd * h;
    *err = fabs(x - xr);
    return !(fabs(tt) < 1125899906842624.0) || !(*err <= eb);
}

static double ref_sse(scz_dtype t, const void *data, uint64_t n, double eb, double scale) {
    double s = 0;
    for (uint64_t b0 = 0; b0 < n; b0 += 65536) {
        double l[32] = {0};
        for (uint64_t i = b0; i < n && i < b0 + 65536; i++) {
            double e;
            if (!ref_quant(t, elem(t, data, i), eb, &e)) l[i % 32] += (e * scale) * (e * scale);
        }
        for (int w = 16; w >= 1; w /= 2)
            for (int j = 0; j < w; j++) l[j] += l[j + w];
        s += l[0];
    }
    return s;
}

static double ref_rule(scz_dtype t, const void *data, uint64_t n, double db) {
    double mn = INFINITY, mx = -INFINITY;
    uint64_t fin = 0;
    for (uint64_t i = 0; i < n; i++) {
        double v = elem(t, data, i);
        if (!isfinite(v)) continue;
        fin++;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    if (!fin) mn = mx = 0;
    double p = pow(10.0, -db / 20.0), f = p * sqrt(3.0), r = mx - mn;
    double eb = isfinite(r) ? f * r : f * mx - f * mn;
    if (eb > DBL_MAX) eb = DBL_MAX;
    if (!(eb > 0) || !isfinite(eb) || !fin || !n) return eb;
    int e, k;
    double m, rs;
    if (isfinite(r)) {
        m = frexp(r, &e);
        k = 1 - e > 1023 ? 1023 : 1 - e;
        rs = r * ldexp(1.0, k);
    } else {
        m = frexp(0.5 * mx - 0.5 * mn, &e);
        k = -e;
        rs = 2 * m;
    }
    double target = ((rs * p) * (rs * p)) * (double)fin * (1.0 - ldexp(1.0, -20));
    if (!isfinite(target)) return eb;
    for (int step = 0; step <= 8; step++) {
        double s = ref_sse(t, data, n, eb, ldexp(1.0, k));
        if (s <= target) return eb;
        if (step == 8) return 0;
        double g = 0.99 * sqrt(target / s);
        if (!(g >= 0.0625)) g = 0.0625;
        eb *= g;
        if (eb == 0) return 0;
    }
    return 0;
}

/* PSNR over the finite values with errors divided by the range first, so
 * that no square overflows or underflows (1e300 fills, 1e-300 data). */
static double psnr_scaled(scz_dtype t, const void *a, const void *b, uint64_t n) {
    double mn = INFINITY, mx = -INFINITY;
    uint64_t fin = 0;
    for (uint64_t i = 0; i < n; i++) {
        double v = elem(t, a, i);
        if (!isfinite(v)) continue;
        fin++;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    if (!fin) return INFINITY;
    double r = mx - mn, half = 0.5 * mx - 0.5 * mn, s = 0;
    for (uint64_t i = 0; i < n; i++) {
        double x = elem(t, a, i), y = elem(t, b, i);
        if (!isfinite(x)) continue;
        double u = isfinite(r) ? fabs(x - y) / r : fabs(0.5 * x - 0.5 * y) / half;
        if (r == 0) u = x == y ? 0 : INFINITY;
        if (isnan(u)) u = INFINITY;
        s += u * u;
    }
    if (s == 0) return INFINITY;
    return -10.0 * log10(s / (double)fin);
}

/* ---- one case: 4 thread counts, decode, check ---- */

typedef struct outcome {
    double psnr, ratio, eb_abs;
    int ok;
} outcome;

static outcome check_case(const char *what, const scz_shape *sh, const void *data, double db, uint64_t chunk) {
    outcome o = {0, 0, 0, 0};
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.eb_mode = SCZ_EB_PSNR;
    p.eb = db;
    p.chunk_bytes = chunk;
    uint64_t n = scz_shape_count(sh);
    size_t raw = n * scz_dtype_size(sh->dtype), cs[4] = {0, 0, 0, 0};
    uint8_t *c[4] = {NULL, NULL, NULL, NULL};
    int same = 1;
    for (int k = 0; k < 4; k++) {
        c[k] = tu_compress(ctxs[k], &p, sh, data, &cs[k], what);
        if (!c[k]) goto done;
        if (k) {
            same &= cs[k] == cs[0] && !memcmp(c[k], c[0], cs[0]);
            CHECK(same, "%s: the stream at %d threads differs from the one at 1 thread", what, nthr[k]);
        }
    }
    scz_info info;
    CHECK(scz_inspect(c[0], cs[0], &info) == SCZ_OK, "%s: inspect", what);
    o.eb_abs = info.eb_abs;
    double ref = ref_rule(sh->dtype, data, n, db);
    CHECK(info.eb_abs == ref, "%s: eb_abs %.17g, the rule of FORMAT.md 7.1 gives %.17g", what, info.eb_abs, ref);
    void *out = malloc(raw ? raw : 1);
    scz_status st = scz_decompress(ctxs[1], c[0], cs[0], out, raw, NULL);
    CHECK(st == SCZ_OK, "%s: decompress: %s", what, scz_ctx_last_error(ctxs[1]));
    if (st == SCZ_OK) {
        scz_stats s;
        scz_stats_compute(sh->dtype, data, out, n, &s);
        o.psnr = psnr_scaled(sh->dtype, data, out, n);
        o.ratio = cs[0] ? (double)raw / (double)cs[0] : 0;
        int within = s.nonfinite_mismatch == 0 && s.max_abs_err <= info.eb_abs;
        CHECK(within, "%s: max error %g above eb_abs %g, or %llu non-finite values changed", what, s.max_abs_err,
              info.eb_abs, (unsigned long long)s.nonfinite_mismatch);
        CHECK(o.psnr >= db, "%s: PSNR %.4f below the target %g", what, o.psnr, db);
        /* the library's own statistics, where its sums neither overflow nor underflow */
        int lib_ok = !(isfinite(s.rmse) && s.rmse > 1e-150 && isfinite(s.range) && s.range < 1e150) || s.psnr >= db;
        CHECK(lib_ok, "%s: scz_stats_compute PSNR %.4f below the target %g", what, s.psnr, db);
        o.ok = same && within && o.psnr >= db && lib_ok && info.eb_abs == ref;
    }
    free(out);
done:
    for (int k = 0; k < 4; k++) free(c[k]);
    return o;
}

/* ---- generated fields ---- */

/* Daily station records: a seasonal cycle plus weather, rounded to 0.1 as
 * archived, with gaps of -9999 (runs of 30 days in ~pct% of the months). kind: 0
 * temperature, 1 precipitation, 2 pressure, 3 humidity.
 * x = day (fastest), y = station. */
static void *gen_station(scz_dtype t, uint64_t days, uint64_t stations, uint64_t seed, unsigned pct, int kind) {
    uint64_t n = days * stations;
    void *p = malloc(n * scz_dtype_size(t));
    for (uint64_t s = 0; s < stations; s++)
        for (uint64_t d = 0; d < days; d++) {
            uint64_t i = s * days + d, h = gen_mix64(seed * 1000003u + i);
            double ph = (double)(gen_mix64(seed + s) % 1000) / 1000.0 * 6.283185307179586;
            double v;
            if (kind == 2) {
                /* station pressure, hPa: small variations around 1013 */
                v = 1013.0 + 6.0 * gen_sin(0.21 * (double)d + ph) + ((double)(h % 2001) / 1000.0 - 1.0) * 1.5;
            } else if (kind == 3) {
                /* relative humidity, whole percent */
                v = floor(70.0 + 20.0 * gen_sin(0.5 * (double)d + ph) + (double)(h % 11) - 5.0);
            } else if (!kind) {
                v = 10.0 + 0.3 * (double)(s % 7) + 12.0 * gen_sin(6.283185307179586 * (double)d / 365.25 + ph) +
                    3.0 * gen_sin(0.37 * (double)d + ph) + ((double)(h % 2001) / 1000.0 - 1.0) * 2.0;
            } else {
                /* precipitation: dry most days (0), showers of a few mm */
                v = h % 10 < 7 ? 0.0 : (double)(h % 50000) / 1000.0;
            }
            v = floor(v * 10.0 + 0.5) / 10.0;
            if (gen_mix64(seed * 7919u + s * 1000u + d / 30) % 100 < pct) v = -9999.0;
            if (t == SCZ_DTYPE_F32) ((float *)p)[i] = (float)v;
            else ((double *)p)[i] = v;
        }
    return p;
}

/* A smooth f64 field with runs of +-1e300 (errors of the fills overflow
 * when squared unscaled), or scaled to 1e-300 (squares underflow). */
static void *gen_extreme(const scz_shape *sh, uint64_t seed, int tiny) {
    size_t bytes;
    double *v = gen_field(GEN_SMOOTH, sh, seed, &bytes);
    uint64_t n = scz_shape_count(sh);
    for (uint64_t i = 0; i < n; i++) {
        if (tiny) v[i] *= 1e-300;
        else if (gen_mix64(seed + i / 41) % 10 < 2) v[i] = (i / 41) % 2 ? 1e300 : -1e300;
    }
    return v;
}

static void test_generated(void) {
    int cases = 0, met = 0;
    /* station records */
    for (int d = 0; d < 2; d++) {
        scz_dtype t = d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
        const struct {
            const char *name;
            uint64_t days, stations;
            unsigned pct;
            int kind;
        } st[6] = {{"station temperature 1 x 36500", 36500, 1, 5, 0},
                   {"station temperature 3650 x 40", 3650, 40, 12, 0},
                   {"station precipitation 3650 x 24", 3650, 24, 8, 1},
                   {"station pressure 3650 x 16", 3650, 16, 6, 2},
                   {"station humidity 3650 x 16", 3650, 16, 3, 3},
                   {"station temperature, no gaps 2000 x 3", 2000, 3, 0, 0}};
        for (int s = 0; s < 6; s++) {
            void *data = gen_station(t, st[s].days, st[s].stations, 11 + (uint64_t)s, st[s].pct, st[s].kind);
            scz_shape sh = {t, st[s].stations > 1 ? 2u : 1u, {st[s].days, st[s].stations, 1, 1}};
            for (int k = 0; k < 4; k++) {
                char what[200];
                snprintf(what, sizeof what, "%s %s PSNR %g", st[s].name, scz_dtype_name(t), targets[k]);
                outcome o = check_case(what, &sh, data, targets[k], s == 1 ? 64u << 10 : 0);
                cases++, met += o.ok;
            }
            free(data);
        }
    }
    /* generator families (1e20 / -9999 fills, NaN/Inf, spikes, random bits...), 3D */
    for (int d = 0; d < 2; d++) {
        scz_dtype t = d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
        scz_shape sh = {t, 3, {61, 53, 43, 1}}; /* 139019 elements: 3 PSNR blocks, the last partial */
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
            size_t bytes;
            void *data = gen_field((gen_family)f, &sh, 5 + (uint64_t)f, &bytes);
            for (int k = 0; k < 4; k++) {
                char what[200];
                snprintf(what, sizeof what, "%s %s PSNR %g", gen_family_name((gen_family)f), scz_dtype_name(t),
                         targets[k]);
                outcome o = check_case(what, &sh, data, targets[k], f % 2 ? 96u << 10 : 0);
                cases++, met += o.ok;
            }
            free(data);
        }
    }
    /* magnitudes at the ends of binary64, and targets outside 40..100 */
    scz_shape sh = {SCZ_DTYPE_F64, 2, {300, 257, 1, 1}};
    for (int tiny = 0; tiny < 2; tiny++) {
        void *data = gen_extreme(&sh, 3, tiny);
        const double tg[6] = {40, 60, 80, 100, 150, 0};
        for (int k = 0; k < 6; k++) {
            char what[200];
            snprintf(what, sizeof what, "%s f64 PSNR %g", tiny ? "values near 1e-300" : "fills of +-1e300", tg[k]);
            outcome o = check_case(what, &sh, data, tg[k], 0);
            cases++, met += o.ok;
        }
        free(data);
    }
    printf("  generated fields: %d of %d cases meet their target\n", met, cases);
}

/* ---- real data ---- */

static void test_data(void) {
    tu_datafile *files;
    int nf = tu_data_files(&files);
    if (!nf) {
        printf("  real data: SKIPPED (no files in $SCZ_DATA_DIR)\n");
        return;
    }
    printf("  %-36s %8s %8s %8s %8s   ratio at 40 / 60 / 80 / 100 dB\n", "PSNR achieved", "40", "60", "80", "100");
    int cases = 0, met = 0;
    for (int i = 0; i < nf; i++) {
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        uint64_t n = scz_shape_count(&files[i].shape);
        CHECK(data && size == n * scz_dtype_size(files[i].shape.dtype), "%s: read", files[i].name);
        if (!data) continue;
        outcome o[4];
        for (int k = 0; k < 4; k++) {
            char what[300];
            snprintf(what, sizeof what, "%s PSNR %g", files[i].name, targets[k]);
            o[k] = check_case(what, &files[i].shape, data, targets[k], 0);
            cases++, met += o[k].ok;
        }
        printf("  %-36s %8.3f %8.3f %8.3f %8.3f   %.2f / %.2f / %.2f / %.2f\n", files[i].name, o[0].psnr, o[1].psnr,
               o[2].psnr, o[3].psnr, o[0].ratio, o[1].ratio, o[2].ratio, o[3].ratio);
        free(data);
    }
    free(files);
    printf("  real data: %d of %d cases meet their target\n", met, cases);
}

int main(void) {
    for (int k = 0; k < 4; k++) {
        if (scz_ctx_create(&ctxs[k], SCZ_BACKEND_CPU) != SCZ_OK) {
            fprintf(stderr, "cannot create a CPU context\n");
            return 1;
        }
        if (nthr[k]) scz_ctx_set_threads(ctxs[k], nthr[k]);
    }
    test_generated();
    test_data();
    for (int k = 0; k < 4; k++) scz_ctx_destroy(ctxs[k]);
    return tu_finish("test_psnr");
}

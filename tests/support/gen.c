/*
 * gen.c -- deterministic test fields (see gen.h). Only correctly rounded IEEE
 * operations (+ - * /, floor, double->float conversion) touch the values, and
 * the build disables FMA contraction, so the output is the same everywhere.
 */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const family_names[GEN_NUM_FAMILIES] = {
    "smooth", "noisy", "constant", "sparse", "spiky", "special", "random_bits", "fill_value",
};

const char *gen_family_name(gen_family f) {
    return (unsigned)f < GEN_NUM_FAMILIES ? family_names[f] : "?";
}

uint64_t gen_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t gen_splitmix64(uint64_t *state) {
    *state += 0x9E3779B97F4A7C15ull;
    return gen_mix64(*state);
}

/* Hash of element i of a stream `salt` of a field with this seed. */
static uint64_t ehash(uint64_t seed, uint64_t salt, uint64_t i) {
    return gen_mix64(seed * 0x9E3779B97F4A7C15ull + salt * 0xD6E8FEB86659FD93ull + i);
}

/* Uniform in [0, 1) with 53 random bits. */
static double unit(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

#define GEN_PI 3.14159265358979323846
#define GEN_TWO_PI 6.28318530717958647692

double gen_sin(double x) {
    double k = floor(x / GEN_TWO_PI + 0.5);
    double r = x - k * GEN_TWO_PI; /* ~[-pi, pi] */
    if (r > GEN_PI / 2) r = GEN_PI - r;
    else if (r < -GEN_PI / 2) r = -GEN_PI - r;
    /* Taylor series to x^17 on [-pi/2, pi/2]: error < 1e-13, deterministic. */
    double r2 = r * r, term = r, sum = r;
    for (int n = 1; n <= 8; n++) {
        term = -term * r2 / (double)((2 * n) * (2 * n + 1));
        sum += term;
    }
    return sum;
}

uint64_t gen_count(const scz_shape *s) {
    if (!s || s->rank < 1 || s->rank > SCZ_MAX_RANK) return 0;
    uint64_t c = 1;
    for (uint32_t i = 0; i < s->rank; i++) c *= s->dims[i];
    return c;
}

size_t gen_bytes(const scz_shape *s) {
    size_t es = s ? scz_dtype_size(s->dtype) : 0;
    return (size_t)gen_count(s) * es;
}

/* The smooth base field in double: a sum of three separable products of
 * sines (per-axis tables, so the cost is one multiply-add chain per element)
 * plus a gentle ramp and an offset. */
static void smooth_field(const scz_shape *s, uint64_t seed, double *v) {
    enum { TERMS = 3 };
    uint64_t st = seed ^ 0x5EEDF00Dull;
    uint64_t d[SCZ_MAX_RANK] = {1, 1, 1, 1};
    for (uint32_t i = 0; i < s->rank; i++) d[i] = s->dims[i];
    double *tab[TERMS][SCZ_MAX_RANK];
    double amp[TERMS];
    for (int k = 0; k < TERMS; k++) {
        amp[k] = 10.0 + 40.0 * unit(gen_splitmix64(&st));
        for (int a = 0; a < SCZ_MAX_RANK; a++) {
            double cycles = 0.5 + 3.5 * unit(gen_splitmix64(&st));
            double phase = GEN_TWO_PI * unit(gen_splitmix64(&st));
            tab[k][a] = malloc((size_t)d[a] * sizeof(double));
            for (uint64_t i = 0; i < d[a]; i++)
                tab[k][a][i] = gen_sin(GEN_TWO_PI * cycles * (double)i / (double)d[a] + phase);
        }
    }
    double offset = 200.0 + 100.0 * unit(gen_splitmix64(&st));
    double ramp[SCZ_MAX_RANK];
    for (int a = 0; a < SCZ_MAX_RANK; a++)
        ramp[a] = (unit(gen_splitmix64(&st)) - 0.5) * 20.0 / (double)d[a];
    uint64_t n = 0;
    for (uint64_t i3 = 0; i3 < d[3]; i3++)
        for (uint64_t i2 = 0; i2 < d[2]; i2++)
            for (uint64_t i1 = 0; i1 < d[1]; i1++)
                for (uint64_t i0 = 0; i0 < d[0]; i0++) {
                    double x = offset + ramp[0] * (double)i0 + ramp[1] * (double)i1 +
                               ramp[2] * (double)i2 + ramp[3] * (double)i3;
                    for (int k = 0; k < TERMS; k++)
                        x += amp[k] * tab[k][0][i0] * tab[k][1][i1] * tab[k][2][i2] * tab[k][3][i3];
                    v[n++] = x;
                }
    for (int k = 0; k < TERMS; k++)
        for (int a = 0; a < SCZ_MAX_RANK; a++) free(tab[k][a]);
}

static void store(scz_dtype t, void *out, uint64_t i, double x) {
    if (t == SCZ_DTYPE_F32) {
        float f = (float)x;
        memcpy((uint8_t *)out + 4 * i, &f, 4);
    } else {
        memcpy((uint8_t *)out + 8 * i, &x, 8);
    }
}

static void store_bits(scz_dtype t, void *out, uint64_t i, uint64_t bits) {
    if (t == SCZ_DTYPE_F32) {
        uint32_t b = (uint32_t)bits;
        memcpy((uint8_t *)out + 4 * i, &b, 4);
    } else {
        memcpy((uint8_t *)out + 8 * i, &bits, 8);
    }
}

/* A special value's bit pattern for category c (0..10), random bits h. */
static uint64_t special_bits(scz_dtype t, int c, uint64_t h) {
    int f32 = t == SCZ_DTYPE_F32;
    uint64_t sign = f32 ? 0x80000000ull : 0x8000000000000000ull;
    uint64_t expo = f32 ? 0x7F800000ull : 0x7FF0000000000000ull;  /* Inf */
    uint64_t mant = f32 ? 0x007FFFFFull : 0x000FFFFFFFFFFFFFull;  /* all mantissa bits */
    uint64_t quiet = f32 ? 0x00400000ull : 0x0008000000000000ull; /* top mantissa bit */
    uint64_t s = (h >> 63) ? sign : 0;
    uint64_t r = h >> 1;
    switch (c) {
    case 0: return s | expo | quiet | (r & (quiet - 1));          /* quiet NaN, payload */
    case 1: return s | expo | (1 + r % (quiet - 1));               /* signalling NaN */
    case 2: return expo;                                           /* +Inf */
    case 3: return sign | expo;                                    /* -Inf */
    case 4: return sign;                                           /* -0.0 */
    case 5: return 0;                                              /* +0.0 */
    case 6: return s | 1;                                          /* smallest denormal */
    case 7: return s | (1 + r % mant);                             /* any denormal */
    case 8: return s | (expo - 1);                                 /* +-MAX */
    case 9: return s | (mant + 1);                                 /* +-MIN (normal) */
    default: return s | mant;                                      /* largest denormal */
    }
}

void gen_fill(gen_family f, const scz_shape *shape, uint64_t seed, void *out) {
    scz_dtype t = shape->dtype;
    uint64_t n = gen_count(shape);
    if (n == 0) return;
    double *v = NULL;
    if (f != GEN_CONSTANT && f != GEN_RANDOM_BITS && f != GEN_SPARSE) {
        v = malloc((size_t)n * sizeof *v);
        smooth_field(shape, seed, v);
    }
    double huge = t == SCZ_DTYPE_F32 ? 1e30 : 1e300;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = ehash(seed, (uint64_t)f + 1, i);
        switch (f) {
        case GEN_SMOOTH: store(t, out, i, v[i]); break;
        case GEN_NOISY: store(t, out, i, v[i] + 0.1 * (unit(h) - 0.5)); break;
        case GEN_CONSTANT: store(t, out, i, 273.15); break;
        case GEN_SPARSE:
            store(t, out, i, h % 100 == 0 ? 2000.0 * (unit(gen_mix64(h)) - 0.5) : 0.0);
            break;
        case GEN_SPIKY:
            if (h % 500 == 0) store(t, out, i, ((h >> 32) & 1 ? huge : -huge) * (1.0 + unit(gen_mix64(h))));
            else store(t, out, i, v[i]);
            break;
        case GEN_SPECIAL: {
            int c = (int)(h % 24);
            if (c <= 10) store_bits(t, out, i, special_bits(t, c, gen_mix64(h)));
            else store(t, out, i, v[i]);
            break;
        }
        case GEN_RANDOM_BITS: store_bits(t, out, i, h); break;
        case GEN_FILL_VALUE: {
            /* fill regions: runs of 37 elements, ~30% of the runs */
            uint64_t run = ehash(seed, 1000, i / 37);
            if (run % 10 < 3) store(t, out, i, 1e20);
            else if (h % 100 == 0) store(t, out, i, -9999.0);
            else store(t, out, i, v[i]);
            break;
        }
        default: store(t, out, i, 0.0); break;
        }
    }
    free(v);
}

void *gen_field(gen_family f, const scz_shape *shape, uint64_t seed, size_t *bytes) {
    size_t b = gen_bytes(shape);
    void *p = malloc(b ? b : 1);
    if (!p) return NULL;
    gen_fill(f, shape, seed, p);
    if (bytes) *bytes = b;
    return p;
}

const gen_shape_def gen_shapes[] = {
    {"1d_0", 1, {0, 1, 1, 1}},
    {"3d_5x0x7", 3, {5, 0, 7, 1}},
    {"2d_9x0", 2, {9, 0, 1, 1}},
    {"1d_1", 1, {1, 1, 1, 1}},
    {"3d_1x1x1", 3, {1, 1, 1, 1}},
    {"1d_2", 1, {2, 1, 1, 1}},
    {"1d_4095", 1, {4095, 1, 1, 1}},
    {"1d_4096", 1, {4096, 1, 1, 1}},
    {"1d_4097", 1, {4097, 1, 1, 1}},
    {"1d_100003", 1, {100003, 1, 1, 1}},
    {"2d_65x63", 2, {65, 63, 1, 1}},
    {"2d_1x200", 2, {1, 200, 1, 1}},
    {"2d_200x1", 2, {200, 1, 1, 1}},
    {"2d_64x64", 2, {64, 64, 1, 1}},
    {"2d_130x3", 2, {130, 3, 1, 1}},
    {"3d_17x16x15", 3, {17, 16, 15, 1}},
    {"3d_1x1x100", 3, {1, 1, 100, 1}},
    {"3d_100x1x1", 3, {100, 1, 1, 1}},
    {"3d_1x37x41", 3, {1, 37, 41, 1}},
    {"3d_16x16x16", 3, {16, 16, 16, 1}},
    {"3d_91x91x91", 3, {91, 91, 91, 1}},
    {"4d_7x5x3x2", 4, {7, 5, 3, 2}},
    {"4d_16x16x16x3", 4, {16, 16, 16, 3}},
    {"4d_1x1x1x5", 4, {1, 1, 1, 5}},
    {"4d_3x1x4x9", 4, {3, 1, 4, 9}},
};
const int gen_num_shapes = (int)(sizeof gen_shapes / sizeof gen_shapes[0]);

scz_shape gen_shape(const gen_shape_def *d, scz_dtype dtype) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dtype;
    s.rank = d->rank;
    for (int i = 0; i < SCZ_MAX_RANK; i++) s.dims[i] = (uint32_t)i < d->rank ? d->dims[i] : 1;
    return s;
}

/*
 * test_ndzip.c -- property tests of the ndzip lossless codec through the
 * public API: bit-exact round trips (NaN payloads, -0.0, denormals
 * included) for every generated family x shape x dtype at several chunk
 * sizes; 1 and 2 threads write identical streams; compressing twice gives
 * the same bytes; every chunk decodes alone to its slice of the array; the
 * stream never exceeds scz_compress_bound; then every real data file of
 * $SCZ_DATA_DIR (skipped with a message when absent).
 */
#include "gen.h"
#include "testutil.h"

#include <string.h>

static scz_ctx *ctx1, *ctx2; /* 1 thread, 2 threads */
static int cases_run;

static const char *st(scz_status s) { return scz_status_string(s); }


/* Decompresses and compares bit for bit; checks the guard and the shape. */
static void check_decompress(scz_ctx *ctx, const uint8_t *z, size_t zn, const scz_shape *s,
                             const void *src, const char *what) {
    size_t raw = gen_bytes(s);
    uint8_t *out = tu_guarded_alloc(raw, 0x5A);
    scz_shape got;
    memset(&got, 0xFF, sizeof got);
    scz_status r = scz_decompress(ctx, z, zn, out, raw, &got);
    CHECK(r == SCZ_OK, "%s: decompress: %s (%s)", what, st(r), scz_ctx_last_error(ctx));
    if (r == SCZ_OK) {
        size_t d = tu_first_diff(src, out, raw);
        CHECK(d == raw, "%s: decoded differs at byte %zu of %zu", what, d, raw);
        int same = got.dtype == s->dtype && got.rank == s->rank;
        for (uint32_t i = 0; i < SCZ_MAX_RANK; i++) same &= got.dims[i] == (i < s->rank ? s->dims[i] : 1);
        CHECK(same, "%s: decoded shape differs", what);
    }
    CHECK(tu_guard_intact(out, raw), "%s: decompress wrote past the array", what);
    free(out);
}

/* Every chunk alone equals its slice of the original. */
static void check_chunks(scz_ctx *ctx, const uint8_t *z, size_t zn, const scz_shape *s, const void *src,
                         const char *what) {
    scz_info info;
    scz_status r = scz_inspect(z, zn, &info);
    CHECK(r == SCZ_OK, "%s: inspect: %s", what, st(r));
    if (r) return;
    CHECK(info.stream_bytes == zn && info.raw_bytes == gen_bytes(s), "%s: inspect sizes", what);
    uint64_t covered = 0;
    int all_ok = 1;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        r = scz_inspect_chunk(z, zn, i, &ci);
        if (r != SCZ_OK) {
            CHECK(r == SCZ_OK, "%s: inspect_chunk %u: %s", what, i, st(r));
            all_ok = 0;
            break;
        }
        if (ci.raw_offset != covered) all_ok = 0;
        uint8_t *out = tu_guarded_alloc((size_t)ci.raw_bytes, 0x3C);
        r = scz_decompress_chunk(ctx, z, zn, i, out, (size_t)ci.raw_bytes);
        if (r != SCZ_OK || memcmp(out, (const uint8_t *)src + ci.raw_offset, (size_t)ci.raw_bytes) != 0 ||
            !tu_guard_intact(out, (size_t)ci.raw_bytes)) {
            CHECK(0, "%s: chunk %u of %u alone: %s", what, i, info.num_chunks, st(r));
            all_ok = 0;
        }
        covered += ci.raw_bytes;
        free(out);
    }
    CHECK(all_ok && covered == info.raw_bytes, "%s: chunks tile the array (%llu of %llu bytes)", what,
          (unsigned long long)covered, (unsigned long long)info.raw_bytes);
}

static void run_case(gen_family fam, const gen_shape_def *sd, scz_dtype dt, uint64_t seed) {
    scz_shape s = gen_shape(sd, dt);
    size_t raw;
    uint8_t *src = gen_field(fam, &s, seed, &raw);
    char what[160];
    const uint64_t chunk_sizes[] = {0, 4096, 65536};
    /* the largest shapes (91^3) skip the third chunk size: they dominate the
     * run time, above all under the sanitizers */
    size_t nsizes = gen_count(&s) > 200000 ? 2 : 3;
    for (size_t ci = 0; ci < nsizes; ci++) {
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_NDZIP);
        p.chunk_bytes = chunk_sizes[ci];
        snprintf(what, sizeof what, "%s %s %s chunk %llu", gen_family_name(fam), sd->name, scz_dtype_name(dt),
                 (unsigned long long)p.chunk_bytes);
        size_t na = 0, nb = 0, nc = 0;
        uint8_t *a = tu_compress(ctx1, &p, &s, src, &na, what);
        if (!a) continue;
        check_decompress(ctx2, a, na, &s, src, what);
        if (ci < 2) { /* threads 1 vs 2: identical bytes */
            uint8_t *b = tu_compress(ctx2, &p, &s, src, &nb, what);
            CHECK(b && nb == na && memcmp(a, b, na) == 0, "%s: 1 and 2 threads write different streams (%zu vs %zu)",
                  what, na, nb);
            free(b);
        }
        if (ci == 1) {
            check_chunks(ctx1, a, na, &s, src, what);
            /* determinism: again, after other work has dirtied the scratch */
            uint8_t *c = tu_compress(ctx1, &p, &s, src, &nc, what);
            CHECK(c && nc == na && memcmp(a, c, na) == 0, "%s: compressing twice differs", what);
            free(c);
        }
        /* a constant field must actually compress (default chunks: small
         * chunks pay one set of hypercube heads per 4 KiB) */
        if (ci == 0 && fam == GEN_CONSTANT && gen_count(&s) >= 4096)
            CHECK(na * 8 < raw, "%s: constant field not compressed (%zu of %zu bytes)", what, na, raw);
        free(a);
    }
    cases_run++;
    free(src);
}

static void test_generated(void) {
    const scz_dtype dts[2] = {SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    double t0 = tu_now();
    for (int f = 0; f < GEN_NUM_FAMILIES; f++)
        for (int i = 0; i < gen_num_shapes; i++)
            for (int d = 0; d < 2; d++) run_case((gen_family)f, &gen_shapes[i], dts[d], 1000u * (uint64_t)f + (uint64_t)i);
    printf("generated: %d cases (%d families x %d shapes x 2 dtypes) in %.2f s\n", cases_run, GEN_NUM_FAMILIES,
           gen_num_shapes, tu_now() - t0);
    CHECK(cases_run == GEN_NUM_FAMILIES * gen_num_shapes * 2, "every case ran");
}

/* A field generated from a seed is the same on every run and platform: pin
 * a hash of one field per family and dtype so that any change of the
 * generators (or of the platform's arithmetic) is noticed. */
static uint64_t fnv1a(const void *p, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001B3ull;
    return h;
}

static void test_generator_pins(void) {
    static const uint64_t pins[GEN_NUM_FAMILIES][2] = {
        /* smooth */ {0xc1daac39704b95bbull, 0xa452676cac71e151ull},
        /* noisy */ {0x5bb8b4ac2d9915fcull, 0x843fc2894bdff665ull},
        /* constant */ {0xa6c601c019370525ull, 0x6d19380bf6318365ull},
        /* sparse */ {0x394c2e83b7e4a7eaull, 0xae7101452d4f115cull},
        /* spiky */ {0x377f1b0135896fbcull, 0x8d599c98f1aeeabbull},
        /* special */ {0x849ad1ade5343540ull, 0x2c771d109b339883ull},
        /* random_bits */ {0xaf98fac1240d74b1ull, 0xedcf6c680a522fb5ull},
        /* fill_value */ {0x61aec7f7563e0a19ull, 0xafafbd2366026ea6ull},
    };
    scz_shape ps = {SCZ_DTYPE_F32, 4, {17, 16, 15, 2}};
    for (int f = 0; f < GEN_NUM_FAMILIES; f++)
        for (int d = 0; d < 2; d++) {
            ps.dtype = d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
            size_t n;
            void *x = gen_field((gen_family)f, &ps, 12345, &n);
            uint64_t h = fnv1a(x, n);
            if (getenv("SCZ_PRINT_PINS")) /* to regenerate the table after a deliberate change */
                printf("%s %s 0x%016llxull\n", gen_family_name((gen_family)f), scz_dtype_name(ps.dtype),
                       (unsigned long long)h);
            CHECK(h == pins[f][d], "generator %s %s changed: 0x%016llx", gen_family_name((gen_family)f),
                  scz_dtype_name(ps.dtype), (unsigned long long)h);
            free(x);
        }
    scz_shape s = {SCZ_DTYPE_F64, 3, {5, 4, 3, 1}};
    double *v = gen_field(GEN_SMOOTH, &s, 7, NULL);
    double *w = gen_field(GEN_SMOOTH, &s, 7, NULL);
    CHECK(memcmp(v, w, 60 * sizeof(double)) == 0, "generator is deterministic");
    int finite = 1, varied = 0;
    for (int i = 0; i < 60; i++) {
        finite &= v[i] == v[i] && v[i] > -1e6 && v[i] < 1e6;
        varied += v[i] != v[0];
    }
    CHECK(finite && varied > 50, "smooth field is finite and varied");
    free(v);
    free(w);
    CHECK(gen_sin(0.0) == 0.0, "gen_sin(0)");
    CHECK(gen_sin(1.5707963267948966) > 0.9999999999 && gen_sin(-1.5707963267948966) < -0.9999999999, "gen_sin(+-pi/2)");
    CHECK(gen_sin(100.0) > -0.5064 && gen_sin(100.0) < -0.5063, "gen_sin(100) = -0.50637");
    /* the special family really holds what it promises */
    scz_shape s32 = {SCZ_DTYPE_F32, 1, {10000, 1, 1, 1}};
    uint32_t *u = gen_field(GEN_SPECIAL, &s32, 1, NULL);
    int qnan = 0, snan = 0, pinf = 0, ninf = 0, nzero = 0, denorm = 0, negnan = 0;
    for (int i = 0; i < 10000; i++) {
        uint32_t x = u[i], e = (x >> 23) & 0xFF, m = x & 0x7FFFFF;
        if (e == 0xFF && m) {
            if (m & 0x400000) qnan++;
            else snan++;
            negnan += x >> 31;
        }
        pinf += x == 0x7F800000u;
        ninf += x == 0xFF800000u;
        nzero += x == 0x80000000u;
        denorm += e == 0 && m;
    }
    CHECK(qnan > 100 && snan > 100 && pinf > 100 && ninf > 100 && nzero > 100 && denorm > 300 && negnan > 50,
          "special family: qnan %d snan %d +inf %d -inf %d -0 %d denorm %d -nan %d", qnan, snan, pinf, ninf, nzero,
          denorm, negnan);
    free(u);
}

static void test_real_data(void) {
    tu_datafile *files;
    int n = tu_data_files(&files);
    if (n == 0) {
        printf("real data: SKIPPED (no data files in $SCZ_DATA_DIR=%s)\n",
               getenv("SCZ_DATA_DIR") ? getenv("SCZ_DATA_DIR") : "../shared/data");
        return;
    }
    double sum_ratio[3] = {0, 0, 0};
    int count[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        CHECK(data != NULL, "%s: cannot read", files[i].name);
        if (!data) continue;
        CHECK(size == gen_bytes(&files[i].shape), "%s: %zu bytes, the name says %zu", files[i].name, size,
              gen_bytes(&files[i].shape));
        if (size != gen_bytes(&files[i].shape)) {
            free(data);
            continue;
        }
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_NDZIP);
        size_t na = 0, nb = 0;
        uint8_t *a = tu_compress(ctx2, &p, &files[i].shape, data, &na, files[i].name);
        if (a) {
            check_decompress(ctx2, a, na, &files[i].shape, data, files[i].name);
            uint8_t *b = tu_compress(ctx1, &p, &files[i].shape, data, &nb, files[i].name);
            CHECK(b && na == nb && memcmp(a, b, na) == 0, "%s: 1 and 2 threads differ", files[i].name);
            free(b);
            double ratio = (double)na / (double)size;
            printf("  %-44s %9zu -> %9zu bytes  compressed/original %.4f  (%.3fx)\n", files[i].name, size, na, ratio,
                   (double)size / (double)na);
            sum_ratio[files[i].shape.dtype] += ratio;
            count[files[i].shape.dtype]++;
        }
        free(a);
        /* multi-chunk (256 KiB chunks) */
        p.chunk_bytes = 256 * 1024;
        char what[300];
        snprintf(what, sizeof what, "%s chunk 256K", files[i].name);
        a = tu_compress(ctx2, &p, &files[i].shape, data, &na, what);
        if (a) {
            check_decompress(ctx1, a, na, &files[i].shape, data, what);
            free(a);
        }
        free(data);
    }
    for (int t = 1; t <= 2; t++)
        if (count[t])
            printf("real data: %d %s files, mean compressed/original %.4f\n", count[t],
                   scz_dtype_name((scz_dtype)t), sum_ratio[t] / count[t]);
    free(files);
}

int main(void) {
    CHECK(scz_ctx_create(&ctx1, SCZ_BACKEND_CPU) == SCZ_OK, "ctx1");
    CHECK(scz_ctx_create(&ctx2, SCZ_BACKEND_CPU) == SCZ_OK, "ctx2");
    if (!ctx1 || !ctx2) return tu_finish("test_ndzip");
    CHECK(scz_ctx_set_threads(ctx1, 1) == SCZ_OK && scz_ctx_set_threads(ctx2, 2) == SCZ_OK, "threads");
    CHECK(scz_codec_available(SCZ_CODEC_NDZIP) && scz_codec_is_lossless(SCZ_CODEC_NDZIP), "ndzip available");
    test_generator_pins();
    test_generated();
    test_real_data();
    scz_ctx_destroy(ctx1);
    scz_ctx_destroy(ctx2);
    return tu_finish("test_ndzip");
}

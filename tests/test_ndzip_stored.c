/*
 * test_ndzip_stored.c -- the stored form of ndzip chunks (docs/FORMAT.md
 * 6.7): no lossless stream is larger than its raw bytes plus header and
 * chunk table.
 *   - every real data file of $SCZ_DATA_DIR under every lossless codec that
 *     takes its dtype, at several chunk sizes: stream <= raw + 128 +
 *     32 * chunks + 8, bit-exact round trip (skipped with a message when
 *     the directory is absent);
 *   - white noise (random bits, NaN payloads) in float32 and float64, rank
 *     1-4, chunk sizes that give several chunks: the same bound, every chunk
 *     stored, round trips, 1 and 2 threads write the same bytes;
 *   - streams whose chunks alternate between noise and smooth slabs: stored
 *     and coded chunks in one stream, each chunk decoding alone;
 *   - invalid stored chunks behind valid checksums (too short, too long,
 *     empty, unknown codec_info, one form's codec_info on the other's
 *     payload) give SCZ_ERR_CORRUPT; truncated streams give an error; no
 *     decode writes past its destination.
 */
#include "format/container.h"
#include "gen.h"
#include "testutil.h"

/* little-endian fields (internal.h) */
#define put64 scz__st64
#define put32 scz__st32
#define get64 scz__ld64
#define get32 scz__ld32

#include <string.h>

static scz_ctx *ctx1, *ctx2; /* 1 thread, 2 threads */

static const char *st(scz_status s) { return scz_status_string(s); }

static uint64_t overhead(uint32_t chunks) { return SCZ_HEADER_SIZE + 32ull * chunks + 8; }

typedef struct counts {
    uint32_t chunks, stored, coded;
} counts;

/* Checks the bound of the whole stream and of every chunk: for ndzip,
 * codec_info 1 with exactly the chunk's raw bytes of src (6.7), or 0 with a
 * coded payload smaller than them. Returns the chunk counts. */
static counts check_bound(const uint8_t *z, size_t n, const void *src, size_t raw, scz_codec codec,
                          const char *what) {
    counts k = {0, 0, 0};
    scz_info info;
    scz_status r = scz_inspect(z, n, &info);
    CHECK(r == SCZ_OK, "%s: inspect: %s", what, st(r));
    if (r) return k;
    k.chunks = info.num_chunks;
    CHECK(n <= raw + overhead(info.num_chunks), "%s: %zu bytes exceed raw %zu + header and table %llu", what, n, raw,
          (unsigned long long)overhead(info.num_chunks));
    int bad = 0;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        int ok = scz_inspect_chunk(z, n, i, &ci) == SCZ_OK && ci.size <= ci.raw_bytes;
        if (ok && codec == SCZ_CODEC_NDZIP) {
            if (ci.codec_info == 1) {
                k.stored++;
                ok = ci.size == ci.raw_bytes &&
                     memcmp(z + ci.offset, (const uint8_t *)src + ci.raw_offset, (size_t)ci.raw_bytes) == 0;
            } else {
                k.coded++;
                ok = ci.codec_info == 0 && ci.size < ci.raw_bytes;
            }
        }
        if (!ok && bad++ == 0)
            CHECK(0, "%s: chunk %u: %llu bytes for %llu raw, codec_info %u", what, i, (unsigned long long)ci.size,
                  (unsigned long long)ci.raw_bytes, ci.codec_info);
    }
    CHECK(bad == 0, "%s: every chunk within its raw size (%d are not)", what, bad);
    return k;
}

/* Bit-exact round trip into a guarded buffer. */
static void check_roundtrip(scz_ctx *ctx, const uint8_t *z, size_t n, const void *src, size_t raw, const char *what) {
    uint8_t *out = tu_guarded_alloc(raw, 0x5A);
    scz_status r = scz_decompress(ctx, z, n, out, raw, NULL);
    CHECK(r == SCZ_OK, "%s: decompress: %s (%s)", what, st(r), scz_ctx_last_error(ctx));
    if (!r) {
        size_t d = tu_first_diff(src, out, raw);
        CHECK(d == raw, "%s: decoded differs at byte %zu of %zu", what, d, raw);
    }
    CHECK(tu_guard_intact(out, raw), "%s: decompress wrote past the array", what);
    free(out);
}

/* Every chunk alone equals its slice. */
static void check_chunks_alone(const uint8_t *z, size_t n, const void *src, const char *what) {
    scz_info info;
    if (scz_inspect(z, n, &info)) return;
    int bad = 0;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, n, i, &ci)) {
            bad++;
            continue;
        }
        uint8_t *out = tu_guarded_alloc((size_t)ci.raw_bytes, 0x3C);
        scz_status r = scz_decompress_chunk(i & 1 ? ctx1 : ctx2, z, n, i, out, (size_t)ci.raw_bytes);
        if (r || memcmp(out, (const uint8_t *)src + ci.raw_offset, (size_t)ci.raw_bytes) ||
            !tu_guard_intact(out, (size_t)ci.raw_bytes)) {
            if (bad++ < 3) CHECK(0, "%s: chunk %u (codec_info %u) alone: %s", what, i, ci.codec_info, st(r));
        }
        free(out);
    }
    CHECK(bad == 0, "%s: every chunk decodes alone", what);
}

/* Compresses with 1 and 2 threads (same bytes), checks the bound and the
 * round trip. Returns the stream (free()) or NULL. */
static uint8_t *run(const scz_params *p, const scz_shape *s, const void *src, size_t *n, counts *k, const char *what) {
    size_t raw = gen_bytes(s), n2 = 0;
    uint8_t *z = tu_compress(ctx1, p, s, src, n, what);
    if (!z) return NULL;
    uint8_t *z2 = tu_compress(ctx2, p, s, src, &n2, what);
    CHECK(z2 && n2 == *n && memcmp(z, z2, *n) == 0, "%s: 1 and 2 threads write different streams", what);
    free(z2);
    *k = check_bound(z, *n, src, raw, p->codec, what);
    check_roundtrip(ctx2, z, *n, src, raw, what);
    return z;
}

/* ---- real data ---- */

static void test_real_data(void) {
    tu_datafile *files;
    int nf = tu_data_files(&files);
    if (nf == 0) {
        printf("real data: SKIPPED (no data files in $SCZ_DATA_DIR=%s)\n",
               getenv("SCZ_DATA_DIR") ? getenv("SCZ_DATA_DIR") : "../shared/data");
        return;
    }
    const scz_codec codecs[] = {SCZ_CODEC_NDZIP, SCZ_CODEC_LOSSY, SCZ_CODEC_HUFFMAN, SCZ_CODEC_GFC, SCZ_CODEC_LZSS};
    const uint64_t chunk_sizes[] = {0, 256 * 1024, 16 * 1024};
    int runs = 0, files_done = 0;
    uint32_t stored_total = 0;
    for (int i = 0; i < nf; i++) {
        size_t raw;
        void *data = tu_read_file(files[i].path, &raw);
        if (!data || raw != gen_bytes(&files[i].shape)) {
            CHECK(0, "%s: cannot read, or the size does not match the name", files[i].name);
            free(data);
            continue;
        }
        files_done++;
        for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
            if (!scz_codec_available(codecs[c]) || !scz_codec_is_lossless(codecs[c]) ||
                !scz_codec_accepts(codecs[c], files[i].shape.dtype))
                continue;
            for (size_t k = 0; k < sizeof chunk_sizes / sizeof chunk_sizes[0]; k++) {
                scz_params p;
                scz_params_init(&p, codecs[c]);
                p.chunk_bytes = chunk_sizes[k];
                char what[400];
                snprintf(what, sizeof what, "%s %s chunk %llu", files[i].name, scz_codec_name(codecs[c]),
                         (unsigned long long)p.chunk_bytes);
                size_t n = 0;
                uint8_t *z = tu_compress(ctx2, &p, &files[i].shape, data, &n, what);
                if (!z) continue;
                counts cnt = check_bound(z, n, data, raw, codecs[c], what);
                check_roundtrip(ctx2, z, n, data, raw, what);
                if (k == 0)
                    printf("  %-40s %-7s %9zu -> %9zu bytes (bound %9llu), %u of %u chunks stored\n", files[i].name,
                           scz_codec_name(codecs[c]), raw, n, (unsigned long long)(raw + overhead(cnt.chunks)),
                           cnt.stored, cnt.chunks);
                stored_total += cnt.stored;
                runs++;
                free(z);
            }
        }
        free(data);
    }
    free(files);
    printf("real data: %d files, %d streams within raw + header + table, %u stored chunks\n", files_done, runs,
           stored_total);
    CHECK(runs >= files_done * 3, "every file ran under ndzip at every chunk size");
}

/* ---- noise ---- */

/* Every element a NaN with a random payload and sign (quiet and
 * signalling). */
static void fill_nan(scz_dtype t, void *p, uint64_t count, uint64_t seed) {
    for (uint64_t i = 0; i < count; i++) {
        uint64_t r = gen_mix64(seed * 0x9E3779B97F4A7C15ull + i);
        if (t == SCZ_DTYPE_F32) {
            uint32_t u = 0x7F800000u | (uint32_t)(r >> 32 & 0x807FFFFFu);
            if (!(u & 0x7FFFFFu)) u |= 1;
            memcpy((uint8_t *)p + 4 * i, &u, 4);
        } else {
            uint64_t u = 0x7FF0000000000000ull | (r & 0x800FFFFFFFFFFFFFull);
            if (!(u & 0xFFFFFFFFFFFFFull)) u |= 1;
            memcpy((uint8_t *)p + 8 * i, &u, 8);
        }
    }
}

static void test_noise(void) {
    static const gen_shape_def shapes[] = {
        {"1d_100003", 1, {100003, 1, 1, 1}},   {"2d_149x149", 2, {149, 149, 1, 1}},
        {"2d_64x300", 2, {64, 300, 1, 1}},     {"3d_33x40x50", 3, {33, 40, 50, 1}},
        {"3d_16x16x100", 3, {16, 16, 100, 1}}, {"4d_9x8x7x30", 4, {9, 8, 7, 30}},
        {"1d_1", 1, {1, 1, 1, 1}},
    };
    const uint64_t chunk_sizes[] = {4096, 16384, 65536, 0};
    int cases = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int dt = 0; dt < 2; dt++)
            for (int nan = 0; nan < 2; nan++) {
                scz_shape s = gen_shape(&shapes[si], dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32);
                size_t raw;
                uint8_t *src = gen_field(GEN_RANDOM_BITS, &s, 31 + si, &raw);
                if (nan) fill_nan(s.dtype, src, gen_count(&s), 57 + si);
                for (size_t k = 0; k < sizeof chunk_sizes / sizeof chunk_sizes[0]; k++) {
                    scz_params p;
                    scz_params_init(&p, SCZ_CODEC_NDZIP);
                    p.chunk_bytes = chunk_sizes[k];
                    char what[200];
                    snprintf(what, sizeof what, "%s %s %s chunk %llu", nan ? "NaN payloads" : "random bits",
                             shapes[si].name, dt ? "f64" : "f32", (unsigned long long)p.chunk_bytes);
                    size_t n;
                    counts cnt;
                    uint8_t *z = run(&p, &s, src, &n, &cnt, what);
                    if (!z) continue;
                    /* random bits leave every column of every group set:
                     * nothing can be coded smaller */
                    if (!nan) CHECK(cnt.stored == cnt.chunks, "%s: %u of %u chunks stored", what, cnt.stored, cnt.chunks);
                    if (k == 1) check_chunks_alone(z, n, src, what);
                    free(z);
                    cases++;
                }
                free(src);
            }
    printf("noise: %d streams within raw + header + table\n", cases);
}

/* An array whose chunks alternate: even chunks noise, odd chunks smooth.
 * slab = slices per chunk (a multiple of the hypercube side along the
 * slowest axis, so that chunk_bytes gives exactly this slab). */
static uint8_t *mixed_field(const scz_shape *s, uint64_t slab, uint64_t seed, size_t *raw) {
    uint8_t *a = gen_field(GEN_SMOOTH, s, seed, raw);
    size_t bytes;
    uint8_t *b = gen_field(GEN_RANDOM_BITS, s, seed + 1, &bytes);
    uint64_t slice = *raw / s->dims[s->rank - 1];
    for (uint64_t z = 0; z < s->dims[s->rank - 1]; z++)
        if ((z / slab) % 2 == 0) memcpy(a + z * slice, b + z * slice, (size_t)slice);
    free(b);
    return a;
}

typedef struct mixed_case {
    const char *name;
    scz_shape s;
    uint64_t slab;
} mixed_case;

static const mixed_case mixed_cases[] = {
    {"3d_64x64x80 f32", {SCZ_DTYPE_F32, 3, {64, 64, 80, 1}}, 16},
    {"3d_40x36x72 f64", {SCZ_DTYPE_F64, 3, {40, 36, 72, 1}}, 16},
    {"2d_300x320 f32", {SCZ_DTYPE_F32, 2, {300, 320, 1, 1}}, 64},
    {"2d_4096x5 f64, a row per chunk", {SCZ_DTYPE_F64, 2, {4096, 5, 1, 1}}, 1},
};

static uint8_t *mixed_stream(const mixed_case *m, uint8_t **src, size_t *raw, size_t *n, counts *k) {
    *src = mixed_field(&m->s, m->slab, 11, raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = *raw / m->s.dims[m->s.rank - 1] * m->slab;
    return run(&p, &m->s, *src, n, k, m->name);
}

static void test_mixed(void) {
    for (size_t i = 0; i < sizeof mixed_cases / sizeof mixed_cases[0]; i++) {
        const mixed_case *m = &mixed_cases[i];
        uint8_t *src;
        size_t raw, n;
        counts k;
        uint8_t *z = mixed_stream(m, &src, &raw, &n, &k);
        if (z) {
            uint64_t S = m->s.dims[m->s.rank - 1], chunks = (S + m->slab - 1) / m->slab;
            CHECK(k.chunks == chunks && k.stored == (chunks + 1) / 2 && k.coded == chunks / 2,
                  "%s: %u chunks, %u stored, %u coded (noise chunks stored, smooth ones coded)", m->name, k.chunks,
                  k.stored, k.coded);
            for (uint32_t c = 0; c < k.chunks; c++) {
                scz_chunk_info ci;
                CHECK(scz_inspect_chunk(z, n, c, &ci) == SCZ_OK && ci.codec_info == (c % 2 == 0),
                      "%s: chunk %u codec_info %u", m->name, c, ci.codec_info);
            }
            check_chunks_alone(z, n, src, m->name);
            printf("mixed %-22s %8zu -> %8zu bytes: %u stored + %u coded chunks\n", m->name, raw, n, k.stored,
                   k.coded);
        }
        free(z);
        free(src);
    }
}

/* ---- invalid stored chunks ---- */



#define ANY_ERROR ((scz_status)-1)

/* Decodes z (exactly n bytes, in a buffer of that size) whole and chunk i
 * alone with both contexts: each outcome must be `want` (ANY_ERROR: any
 * error status but SCZ_ERR_INTERNAL), with a message, within bounds. */
static void expect(const uint8_t *z, size_t n, size_t raw, uint32_t i, scz_status want, const char *what) {
    scz_ctx *cs[2] = {ctx1, ctx2};
    for (int k = 0; k < 2; k++) {
        uint8_t *c = malloc(n ? n : 1);
        memcpy(c, z, n);
        uint8_t *out = tu_guarded_alloc(raw, 0x11);
        scz_status r = scz_decompress(cs[k], c, n, out, raw, NULL);
        if (want == ANY_ERROR)
            CHECK(r != SCZ_OK && r != SCZ_ERR_INTERNAL, "%s (%d threads): %s", what, k + 1, st(r));
        else
            CHECK(r == want, "%s (%d threads): %s, want %s (%s)", what, k + 1, st(r), st(want),
                  scz_ctx_last_error(cs[k]));
        CHECK(r == SCZ_OK || scz_ctx_last_error(cs[k])[0], "%s: an error without a message", what);
        CHECK(tu_guard_intact(out, raw), "%s: decompress wrote past the array", what);
        scz_chunk_info ci;
        if (scz_inspect_chunk(c, n, i, &ci) == SCZ_OK) {
            r = scz_decompress_chunk(cs[k], c, n, i, out, raw);
            if (want == ANY_ERROR)
                CHECK(r != SCZ_OK && r != SCZ_ERR_INTERNAL, "%s: chunk %u alone: %s", what, i, st(r));
            else
                CHECK(r == want, "%s: chunk %u alone (%d threads): %s, want %s", what, i, k + 1, st(r), st(want));
            CHECK(tu_guard_intact(out, raw), "%s: decompress_chunk wrote past the array", what);
        }
        free(out);
        free(c);
    }
}

static void test_invalid(void) {
    int cases = 0;
    for (size_t mi = 0; mi < sizeof mixed_cases / sizeof mixed_cases[0]; mi++) {
        const mixed_case *m = &mixed_cases[mi];
        uint8_t *src;
        size_t raw, n;
        counts k;
        uint8_t *z = mixed_stream(m, &src, &raw, &n, &k);
        if (!z) {
            free(src);
            continue;
        }
        const uint64_t E = scz_dtype_size(m->s.dtype);
        /* stored chunks: the first, a middle one, the last */
        uint32_t last = k.chunks - 1, tests[3] = {0, 2, last};
        for (int t = 0; t < 3; t++) {
            const uint32_t i = tests[t];
            scz_chunk_info ci;
            if (scz_inspect_chunk(z, n, i, &ci) || ci.codec_info != 1) {
                CHECK(0, "%s: chunk %u should be stored", m->name, i);
                continue;
            }
            const uint64_t R = ci.raw_bytes;
            const struct {
                const char *what;
                uint64_t size;
                uint32_t info;
            } ed[] = {
                {"stored chunk 1 byte short", R - 1, 1},      {"stored chunk one element short", R - E, 1},
                {"stored chunk half its size", R / 2, 1},      {"stored chunk empty", 0, 1},
                {"stored chunk 1 byte long", R + 1, 1},        {"stored chunk one element long", R + E, 1},
                {"stored chunk 4 KiB long", R + 4096, 1},      {"stored chunk with codec_info 2", R, 2},
                {"stored chunk with codec_info ~0", R, ~0u},   {"stored payload read as coded", R, 0},
                {"stored, one element short, read as coded", R - E, 0},
            };
            for (size_t e = 0; e < sizeof ed / sizeof ed[0]; e++) {
                size_t cn;
                uint8_t *c = tu_edit_chunk(z, n, i, ed[e].size, ed[e].info, &cn);
                char what[300];
                snprintf(what, sizeof what, "%s: chunk %u: %s", m->name, i, ed[e].what);
                expect(c, cn, raw, i, SCZ_ERR_CORRUPT, what);
                free(c);
                cases++;
            }
            /* the stream cut inside the stored payload: the container
             * notices (the table promises more bytes) */
            for (uint64_t cut = 1; cut <= R; cut = cut * 3 + 1) {
                char what[300];
                snprintf(what, sizeof what, "%s: stream cut %llu bytes into stored chunk %u", m->name,
                         (unsigned long long)(R - cut), i);
                expect(z, (size_t)(ci.offset + R - cut), raw, i, ANY_ERROR, what);
                cases++;
            }
        }
        /* coded chunk 1 as stored: its size is not the raw size */
        {
            scz_chunk_info ci;
            if (scz_inspect_chunk(z, n, 1, &ci) == SCZ_OK && ci.codec_info == 0) {
                size_t cn;
                uint8_t *c = tu_edit_chunk(z, n, 1, ci.size, 1, &cn);
                expect(c, cn, raw, 1, SCZ_ERR_CORRUPT, "coded payload read as stored");
                free(c);
                c = tu_edit_chunk(z, n, 1, ci.size, 2, &cn);
                expect(c, cn, raw, 1, SCZ_ERR_CORRUPT, "coded chunk with codec_info 2");
                free(c);
                cases += 2;
            } else {
                CHECK(0, "%s: chunk 1 should be coded", m->name);
            }
        }
        /* the edits themselves are sound: the unchanged sizes and
         * codec_info give back a stream that decodes */
        {
            size_t cn;
            scz_chunk_info ci;
            scz_inspect_chunk(z, n, last, &ci);
            uint8_t *c = tu_edit_chunk(z, n, last, ci.size, 1, &cn);
            CHECK(cn == n && memcmp(c, z, n) == 0, "%s: an identity edit changes the stream", m->name);
            free(c);
        }
        free(z);
        free(src);
    }
    printf("invalid stored chunks: %d cases rejected\n", cases);
}

int main(void) {
    CHECK(scz_ctx_create(&ctx1, SCZ_BACKEND_CPU) == SCZ_OK, "ctx1");
    CHECK(scz_ctx_create(&ctx2, SCZ_BACKEND_CPU) == SCZ_OK, "ctx2");
    if (!ctx1 || !ctx2) return tu_finish("test_ndzip_stored");
    CHECK(scz_ctx_set_threads(ctx1, 1) == SCZ_OK && scz_ctx_set_threads(ctx2, 2) == SCZ_OK, "threads");
    test_noise();
    test_mixed();
    test_invalid();
    test_real_data();
    scz_ctx_destroy(ctx1);
    scz_ctx_destroy(ctx2);
    return tu_finish("test_ndzip_stored");
}

/*
 * test_api.c -- the public API's contract (include/scz.h): argument
 * checking, names, compress_bound, inspect, chunking as FORMAT.md section 3
 * specifies it, destination capacity, thread counts, contexts used from
 * concurrent threads, the progress callback.
 */
#define _POSIX_C_SOURCE 200809L
#include "gen.h"
#include "testutil.h"

#include <pthread.h>
#include <string.h>

static const char *st(scz_status s) { return scz_status_string(s); }

static scz_ctx *new_ctx(int threads) {
    scz_ctx *c = NULL;
    scz_status r = scz_ctx_create(&c, SCZ_BACKEND_CPU);
    CHECK(r == SCZ_OK && c, "ctx create: %s", st(r));
    if (c) CHECK(scz_ctx_set_threads(c, threads) == SCZ_OK, "set threads %d", threads);
    return c;
}


static void test_names(void) {
    const char *seen[16];
    for (int s = 0; s <= SCZ_ERR_INTERNAL; s++) {
        seen[s] = scz_status_string((scz_status)s);
        CHECK(seen[s] && seen[s][0], "status %d has a string", s);
        for (int t = 0; t < s; t++) CHECK(strcmp(seen[s], seen[t]) != 0, "status %d and %d share a string", s, t);
    }
    CHECK(scz_status_string((scz_status)13) != NULL && scz_status_string((scz_status)-1) != NULL &&
              scz_status_string((scz_status)100000) != NULL,
          "unknown status strings are not NULL");

    static const struct { scz_dtype t; size_t size; } dts[] = {
        {SCZ_DTYPE_F32, 4}, {SCZ_DTYPE_F64, 8}, {SCZ_DTYPE_U8, 1}, {SCZ_DTYPE_U16, 2}, {SCZ_DTYPE_U32, 4}, {SCZ_DTYPE_U64, 8}};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        const char *n = scz_dtype_name(dts[i].t);
        CHECK(n && scz_dtype_from_name(n) == dts[i].t, "dtype %d name round trip", (int)dts[i].t);
        CHECK(scz_dtype_size(dts[i].t) == dts[i].size, "dtype %d size", (int)dts[i].t);
    }
    CHECK(scz_dtype_from_name("float") == SCZ_DTYPE_F32 && scz_dtype_from_name("float32") == SCZ_DTYPE_F32 &&
              scz_dtype_from_name("F32") == SCZ_DTYPE_F32, "f32 aliases");
    CHECK(scz_dtype_from_name("double") == SCZ_DTYPE_F64 && scz_dtype_from_name("float64") == SCZ_DTYPE_F64 &&
              scz_dtype_from_name("f64") == SCZ_DTYPE_F64, "f64 aliases");
    CHECK(scz_dtype_from_name("f16") == 0 && scz_dtype_from_name("") == 0 && scz_dtype_from_name(NULL) == 0 &&
              scz_dtype_from_name("f322") == 0 && scz_dtype_from_name("f3") == 0, "unknown dtype names");
    CHECK(scz_dtype_name((scz_dtype)0) == NULL && scz_dtype_name((scz_dtype)7) == NULL && scz_dtype_size((scz_dtype)0) == 0 &&
              scz_dtype_size((scz_dtype)99) == 0, "unknown dtypes");

    for (int c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LZSS; c++) {
        const char *n = scz_codec_name((scz_codec)c);
        CHECK(n && scz_codec_from_name(n) == (scz_codec)c, "codec %d name round trip", c);
    }
    CHECK(scz_codec_from_name("NDZIP") == SCZ_CODEC_NDZIP && scz_codec_from_name("Lossy") == SCZ_CODEC_LOSSY,
          "codec names are case-insensitive");
    CHECK(scz_codec_from_name("zip") == 0 && scz_codec_from_name("ndzipx") == 0 && scz_codec_from_name(NULL) == 0 &&
              scz_codec_name((scz_codec)0) == NULL && scz_codec_name((scz_codec)6) == NULL,
          "unknown codecs");
    CHECK(scz_codec_is_lossless(SCZ_CODEC_NDZIP) && !scz_codec_is_lossless(SCZ_CODEC_LOSSY) &&
              !scz_codec_is_lossless((scz_codec)0) && !scz_codec_is_lossless((scz_codec)42),
          "lossless flags");
    CHECK(scz_codec_available(SCZ_CODEC_NDZIP) && !scz_codec_available((scz_codec)0) &&
              !scz_codec_available((scz_codec)6), "availability");

    for (int m = SCZ_EB_NONE; m <= SCZ_EB_PSNR; m++) {
        const char *n = scz_eb_mode_name((scz_eb_mode)m);
        CHECK(n && scz_eb_mode_from_name(n) == (scz_eb_mode)m, "eb mode %d name round trip", m);
    }
    CHECK(scz_eb_mode_from_name("ABS") == SCZ_EB_ABS && scz_eb_mode_from_name("Psnr") == SCZ_EB_PSNR,
          "eb mode names are case-insensitive");
    CHECK((int)scz_eb_mode_from_name("absolute") == -1 && (int)scz_eb_mode_from_name(NULL) == -1 &&
              (int)scz_eb_mode_from_name("") == -1 && scz_eb_mode_name((scz_eb_mode)4) == NULL,
          "unknown eb modes");
}

static void test_shapes_and_bounds(void) {
    scz_shape s = {SCZ_DTYPE_F32, 3, {2, 3, 4, 1}};
    CHECK(scz_shape_count(&s) == 24, "shape count");
    s.dims[3] = 1000; /* unused */
    CHECK(scz_shape_count(&s) == 24, "unused dims do not count");
    s.dims[1] = 0;
    CHECK(scz_shape_count(&s) == 0, "empty shape count");
    s.rank = 0;
    CHECK(scz_shape_count(&s) == 0 && scz_shape_count(NULL) == 0, "bad rank count");
    scz_shape big = {SCZ_DTYPE_F32, 3, {1ull << 32, 1ull << 32, 2, 1}};
    CHECK(scz_shape_count(&big) == 0, "overflowing count");

    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    CHECK(p.codec == SCZ_CODEC_NDZIP && p.eb_mode == SCZ_EB_NONE && p.eb == 0 && p.chunk_bytes == 0, "params_init");
    scz_params_init(NULL, SCZ_CODEC_NDZIP); /* must not crash */

    scz_shape e = {SCZ_DTYPE_F64, 2, {10, 0, 1, 1}};
    size_t eb = scz_compress_bound(&e, &p);
    CHECK(eb >= 136, "bound of an empty array holds header and table: %zu", eb);
    CHECK(scz_compress_bound(&big, &p) == 0, "bound of an overflowing shape is 0");
    scz_shape huge = {SCZ_DTYPE_F64, 1, {1ull << 61, 1, 1, 1}};
    CHECK(scz_compress_bound(&huge, &p) == 0, "bound of a 2^64-byte array is 0");
    scz_shape g4 = {SCZ_DTYPE_F32, 1, {1ull << 30, 1, 1, 1}};
    size_t b4 = scz_compress_bound(&g4, &p);
    CHECK(b4 > (4ull << 30), "bound of 4 GiB of f32 exceeds the raw size (ndzip can expand): %zu", b4);
    CHECK(scz_compress_bound(NULL, &p) == 0 && scz_compress_bound(&e, NULL) == 0, "bound with NULL");
    scz_shape r0 = {SCZ_DTYPE_F32, 0, {4, 1, 1, 1}}, r5 = {SCZ_DTYPE_F32, 5, {4, 1, 1, 1}};
    scz_shape d0 = {(scz_dtype)0, 1, {4, 1, 1, 1}};
    CHECK(scz_compress_bound(&r0, &p) == 0 && scz_compress_bound(&r5, &p) == 0 && scz_compress_bound(&d0, &p) == 0,
          "bound of a bad shape is 0");
    scz_params bad = p;
    bad.eb_mode = SCZ_EB_REL;
    bad.eb = 1e-3;
    scz_shape ok = {SCZ_DTYPE_F32, 1, {100, 1, 1, 1}};
    CHECK(scz_compress_bound(&ok, &bad) == 0, "bound with a lossy request on ndzip is 0");
    /* the bound holds for the worst input at every chunk size */
    uint64_t cbs[] = {0, 1, 4096, 5000, 1 << 20, 1ull << 40};
    scz_ctx *c = new_ctx(2);
    scz_shape ws = {SCZ_DTYPE_F64, 3, {33, 17, 20, 1}};
    void *w = gen_field(GEN_RANDOM_BITS, &ws, 5, NULL);
    for (size_t i = 0; i < sizeof cbs / sizeof cbs[0]; i++) {
        p.chunk_bytes = cbs[i];
        size_t n, bound = scz_compress_bound(&ws, &p);
        uint8_t *z = tu_guarded_alloc(bound, 0);
        scz_status r = scz_compress(c, &p, &ws, w, z, bound, &n);
        CHECK(r == SCZ_OK && n <= bound && tu_guard_intact(z, bound), "random bits, chunk %llu: %s, %zu <= %zu",
              (unsigned long long)cbs[i], st(r), n, bound);
        free(z);
    }
    free(w);
    scz_ctx_destroy(c);
}

static void test_null_and_bad_args(void) {
    scz_ctx *c = new_ctx(1);
    CHECK(scz_ctx_create(NULL, SCZ_BACKEND_CPU) == SCZ_ERR_ARG, "ctx_create(NULL)");
    CHECK(scz_ctx_set_threads(NULL, 1) == SCZ_ERR_ARG, "set_threads(NULL)");
    CHECK(scz_ctx_set_threads(c, -1) == SCZ_ERR_ARG, "negative threads");
    CHECK(scz_ctx_set_threads(c, 0) == SCZ_OK && scz_ctx_set_threads(c, 1) == SCZ_OK, "threads 0 and 1");
    scz_ctx_destroy(NULL);
    scz_ctx_set_progress(NULL, NULL, NULL);
    CHECK(scz_ctx_last_error(NULL) != NULL && scz_ctx_last_error(c) != NULL, "last_error never NULL");

    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    scz_shape s = {SCZ_DTYPE_F32, 2, {50, 40, 1, 1}};
    float *src = gen_field(GEN_SMOOTH, &s, 1, NULL);
    size_t cap = scz_compress_bound(&s, &p), n = 0;
    uint8_t *dst = malloc(cap);
    CHECK(scz_compress(NULL, &p, &s, src, dst, cap, &n) == SCZ_ERR_ARG, "compress: NULL ctx");
    struct { const char *what; scz_status r; } cases[] = {
        {"NULL params", scz_compress(c, NULL, &s, src, dst, cap, &n)},
        {"NULL shape", scz_compress(c, &p, NULL, src, dst, cap, &n)},
        {"NULL src", scz_compress(c, &p, &s, NULL, dst, cap, &n)},
        {"NULL dst", scz_compress(c, &p, &s, src, NULL, cap, &n)},
        {"NULL dst_size", scz_compress(c, &p, &s, src, dst, cap, NULL)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(cases[i].r == SCZ_ERR_ARG, "compress %s: %s", cases[i].what, st(cases[i].r));
    }
    CHECK(scz_ctx_last_error(c)[0] != 0, "a failure leaves a message");

    /* unknown codec, dtype, rank; bounds on a lossless codec; knobs */
    scz_params q = p;
    int codecs[] = {0, 6, 99, -1};
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        q.codec = (scz_codec)codecs[i];
        scz_status r = scz_compress(c, &q, &s, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_ARG, "codec %d: %s", codecs[i], st(r));
    }
    for (int cc = SCZ_CODEC_NDZIP; cc <= SCZ_CODEC_LZSS; cc++) {
        if (scz_codec_available((scz_codec)cc)) continue;
        scz_params_init(&q, (scz_codec)cc);
        if (!scz_codec_is_lossless((scz_codec)cc)) {
            q.eb_mode = SCZ_EB_ABS;
            q.eb = 0.1;
        }
        scz_status r = scz_compress(c, &q, &s, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_UNSUPPORTED, "codec %s not built in: %s", scz_codec_name((scz_codec)cc), st(r));
    }
    scz_shape t = s;
    int dtypes[] = {0, 7, 255};
    for (size_t i = 0; i < 3; i++) {
        t.dtype = (scz_dtype)dtypes[i];
        scz_status r = scz_compress(c, &p, &t, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_ARG, "dtype %d: %s", dtypes[i], st(r));
    }
    t.dtype = SCZ_DTYPE_U16; /* a known dtype ndzip does not compress */
    {
        scz_status r = scz_compress(c, &p, &t, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_UNSUPPORTED || r == SCZ_ERR_ARG, "ndzip on u16: %s", st(r));
    }
    t = s;
    uint32_t ranks[] = {0, 5, 1000};
    for (size_t i = 0; i < 3; i++) {
        t.rank = ranks[i];
        scz_status r = scz_compress(c, &p, &t, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_ARG, "rank %u: %s", ranks[i], st(r));
    }
    scz_eb_mode modes[] = {SCZ_EB_ABS, SCZ_EB_REL, SCZ_EB_PSNR, (scz_eb_mode)9};
    for (size_t i = 0; i < 4; i++) {
        q = p;
        q.eb_mode = modes[i];
        q.eb = 1e-3;
        scz_status r = scz_compress(c, &q, &s, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_ARG, "ndzip with eb_mode %d: %s", (int)modes[i], st(r));
        CHECK(scz_ctx_last_error(c)[0] != 0, "eb_mode %d: message", (int)modes[i]);
    }
    /* mode NONE with a bound: refused (a stream carrying it would not decode) */
    q = p;
    q.eb = 0.5;
    {
        scz_status r = scz_compress(c, &q, &s, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_ARG, "ndzip with mode none and a bound: %s", st(r));
    }
    q = p;
    q.knobs[3] = 1;
    {
        scz_status r = scz_compress(c, &q, &s, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_ARG, "ndzip with a knob: %s", st(r));
    }
    /* overflowing shapes */
    scz_shape big = {SCZ_DTYPE_F32, 3, {1ull << 32, 1ull << 32, 2, 1}};
    {
        scz_status r = scz_compress(c, &p, &big, src, dst, cap, &n);
        CHECK(r == SCZ_ERR_OVERFLOW || r == SCZ_ERR_ARG, "overflowing shape: %s", st(r));
    }

    /* decompression and inspection */
    scz_status r = scz_compress(c, &p, &s, src, dst, cap, &n);
    CHECK(r == SCZ_OK, "compress: %s", st(r));
    float *out = malloc(s.dims[0] * s.dims[1] * 4);
    CHECK(scz_decompress(NULL, dst, n, out, 8000, NULL) == SCZ_ERR_ARG, "decompress NULL ctx");
    CHECK(scz_decompress(c, NULL, n, out, 8000, NULL) == SCZ_ERR_ARG, "decompress NULL src");
    scz_info info;
    CHECK(scz_inspect(NULL, n, &info) == SCZ_ERR_ARG, "inspect NULL src");
    CHECK(scz_inspect(dst, n, NULL) == SCZ_ERR_ARG, "inspect NULL info");
    scz_chunk_info ci;
    CHECK(scz_inspect_chunk(dst, n, 0, NULL) == SCZ_ERR_ARG, "inspect_chunk NULL info");
    CHECK(scz_inspect_chunk(NULL, n, 0, &ci) == SCZ_ERR_ARG, "inspect_chunk NULL src");
    CHECK(scz_inspect_chunk(dst, n, 1, &ci) == SCZ_ERR_ARG, "inspect_chunk index out of range");
    CHECK(scz_decompress_chunk(NULL, dst, n, 0, out, 8000) == SCZ_ERR_ARG, "decompress_chunk NULL ctx");
    CHECK(scz_decompress_chunk(c, NULL, n, 0, out, 8000) == SCZ_ERR_ARG, "decompress_chunk NULL src");
    CHECK(scz_decompress_chunk(c, dst, n, 1, out, 8000) == SCZ_ERR_ARG, "decompress_chunk index out of range");
    CHECK(scz_decompress(c, dst, n, out, 8000, NULL) == SCZ_OK && memcmp(out, src, 8000) == 0, "and it decodes");
    /* not a stream at all */
    static const uint8_t junk[200] = {'P', 'K', 3, 4};
    CHECK(scz_decompress(c, junk, sizeof junk, out, 8000, NULL) == SCZ_ERR_NOT_SCZ, "junk: NOT_SCZ");
    CHECK(scz_inspect(junk, sizeof junk, &info) == SCZ_ERR_NOT_SCZ, "inspect junk: NOT_SCZ");
    CHECK(scz_decompress(c, dst, 0, out, 8000, NULL) != SCZ_OK, "zero-length stream");
    free(out);
    free(dst);
    free(src);

    /* CUDA: not in a CPU build / without a device */
    scz_ctx *g = (scz_ctx *)&g; /* must be overwritten with NULL on failure */
    r = scz_ctx_create(&g, SCZ_BACKEND_CUDA);
    if (r == SCZ_OK) {
        printf("CUDA backend available: SCZ_ERR_BACKEND check skipped\n");
        scz_ctx_destroy(g);
    } else {
        CHECK(r == SCZ_ERR_BACKEND && g == NULL, "CUDA context without CUDA: %s", st(r));
    }
    g = (scz_ctx *)&g;
    r = scz_ctx_create(&g, (scz_backend)7);
    CHECK(r != SCZ_OK && g == NULL, "unknown backend: %s", st(r));
    scz_ctx_destroy(c);
}

/* inspect reports what was compressed; chunking follows FORMAT.md 3. */
static void test_inspect(void) {
    scz_ctx *c = new_ctx(2);
    struct {
        scz_shape s;
        uint64_t chunk_bytes, slab, chunks;
    } cases[] = {
        /* slice 2640 B, 16 KiB -> 6 slices (below the 16-slice alignment) */
        {{SCZ_DTYPE_F32, 3, {33, 20, 40, 1}}, 16384, 6, 7},
        /* slice 16 KiB, 300 KiB -> 18 slices, aligned down to 16 */
        {{SCZ_DTYPE_F32, 3, {64, 64, 100, 1}}, 300 * 1024, 16, 7},
        /* default 32 MiB: one chunk */
        {{SCZ_DTYPE_F64, 2, {300, 200, 1, 1}}, 0, 200, 1},
        /* 2D, slice 800 B, 64 KiB -> 81 rows -> 64 */
        {{SCZ_DTYPE_F64, 2, {100, 300, 1, 1}}, 65536, 64, 5},
        /* 1D: slab counts elements; 4 KiB of f32 = 1024 < 4096 */
        {{SCZ_DTYPE_F32, 1, {5000, 1, 1, 1}}, 4096, 1024, 5},
        /* chunk_bytes below the minimum is clamped to 4 KiB */
        {{SCZ_DTYPE_F32, 1, {5000, 1, 1, 1}}, 1, 1024, 5},
        /* a slice larger than the chunk: one slice per chunk */
        {{SCZ_DTYPE_F64, 3, {40, 30, 7, 1}}, 4096, 1, 7},
        /* 4D */
        {{SCZ_DTYPE_F32, 4, {8, 8, 4, 6}}, 4096, 4, 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        scz_shape *s = &cases[k].s;
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_NDZIP);
        p.chunk_bytes = cases[k].chunk_bytes;
        size_t raw, n = 0;
        void *src = gen_field(GEN_NOISY, s, k, &raw);
        uint8_t *z = tu_compress(c, &p, s, src, &n, "test_api");
        if (!z) {
            free(src);
            continue;
        }
        scz_info info;
        memset(&info, 0xAB, sizeof info);
        scz_status r = scz_inspect(z, n, &info);
        CHECK(r == SCZ_OK, "case %zu: inspect: %s", k, st(r));
        CHECK(info.format_version == SCZ_FORMAT_VERSION, "case %zu: version", k);
        int same = info.shape.dtype == s->dtype && info.shape.rank == s->rank;
        for (int d = 0; d < SCZ_MAX_RANK; d++) same &= info.shape.dims[d] == ((uint32_t)d < s->rank ? s->dims[d] : 1);
        CHECK(same, "case %zu: shape", k);
        CHECK(info.params.codec == SCZ_CODEC_NDZIP && info.params.eb_mode == SCZ_EB_NONE && info.params.eb == 0 &&
                  info.params.chunk_bytes == 0 && info.eb_abs == 0,
              "case %zu: params", k);
        int knobs0 = 1;
        for (int i = 0; i < SCZ_NUM_KNOBS; i++) knobs0 &= info.params.knobs[i] == 0;
        CHECK(knobs0, "case %zu: knobs", k);
        CHECK(info.raw_bytes == raw && info.stream_bytes == n, "case %zu: sizes %llu %llu", k,
              (unsigned long long)info.raw_bytes, (unsigned long long)info.stream_bytes);
        CHECK(info.chunk_slab == cases[k].slab && info.num_chunks == cases[k].chunks,
              "case %zu: slab %llu (want %llu), chunks %u (want %llu)", k, (unsigned long long)info.chunk_slab,
              (unsigned long long)cases[k].slab, info.num_chunks, (unsigned long long)cases[k].chunks);
        /* chunk entries: contiguous payloads after the table, raw ranges tiling the array */
        uint64_t pos = 128 + 32ull * info.num_chunks + 8, rpos = 0;
        uint64_t slice = raw / s->dims[s->rank - 1];
        int ok = 1;
        for (uint32_t i = 0; i < info.num_chunks; i++) {
            scz_chunk_info ci;
            if (scz_inspect_chunk(z, n, i, &ci) != SCZ_OK) {
                ok = 0;
                break;
            }
            uint64_t len = s->dims[s->rank - 1] - i * info.chunk_slab;
            if (len > info.chunk_slab) len = info.chunk_slab;
            if (ci.offset != pos || ci.raw_offset != rpos || ci.raw_bytes != len * slice || ci.codec_info > 1) ok = 0; /* ndzip: coded or stored */
            pos += ci.size;
            rpos += ci.raw_bytes;
        }
        CHECK(ok && pos == n && rpos == raw, "case %zu: chunk table", k);
        /* the stream is the same whatever the thread count */
        for (int th = 0; th <= 3; th++) {
            scz_ctx *c2 = new_ctx(th);
            size_t n2 = 0;
            uint8_t *z2 = tu_compress(c2, &p, s, src, &n2, "test_api");
            CHECK(z2 && n2 == n && memcmp(z, z2, n) == 0, "case %zu: %d threads write another stream", k, th);
            free(z2);
            scz_ctx_destroy(c2);
        }
        free(z);
        free(src);
    }
    /* chunk_bytes clamping: 1 behaves as 4 KiB, 2^40 as 1 GiB */
    scz_shape s = {SCZ_DTYPE_F32, 1, {20000, 1, 1, 1}};
    void *src = gen_field(GEN_SMOOTH, &s, 3, NULL);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    size_t na, nb;
    p.chunk_bytes = 1;
    uint8_t *a = tu_compress(c, &p, &s, src, &na, "test_api");
    p.chunk_bytes = 4096;
    uint8_t *b = tu_compress(c, &p, &s, src, &nb, "test_api");
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0, "chunk_bytes 1 == 4096");
    free(a);
    free(b);
    p.chunk_bytes = 1ull << 40;
    a = tu_compress(c, &p, &s, src, &na, "test_api");
    p.chunk_bytes = 1ull << 30;
    b = tu_compress(c, &p, &s, src, &nb, "test_api");
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0, "chunk_bytes 2^40 == 2^30");
    free(a);
    free(b);
    free(src);
    scz_ctx_destroy(c);
}

static void test_empty(void) {
    scz_ctx *c = new_ctx(2);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    scz_shape s = {SCZ_DTYPE_F64, 3, {4, 0, 9, 1}};
    uint8_t z[256];
    size_t n = 0;
    scz_status r = scz_compress(c, &p, &s, NULL, z, sizeof z, &n);
    CHECK(r == SCZ_OK && n == 136, "empty array with NULL src: %s, %zu bytes (header + empty table = 136)", st(r), n);
    scz_shape got;
    r = scz_decompress(c, z, n, NULL, 0, &got);
    CHECK(r == SCZ_OK && got.dtype == SCZ_DTYPE_F64 && got.rank == 3 && got.dims[0] == 4 && got.dims[1] == 0 &&
              got.dims[2] == 9 && got.dims[3] == 1,
          "empty array decodes into NULL: %s", st(r));
    scz_info info;
    r = scz_inspect(z, n, &info);
    CHECK(r == SCZ_OK && info.raw_bytes == 0 && info.num_chunks == 0 && info.stream_bytes == 136, "empty inspect");
    CHECK(scz_decompress_chunk(c, z, n, 0, z, sizeof z) == SCZ_ERR_ARG, "empty: no chunk 0");
    r = scz_compress(c, &p, &s, NULL, z, 135, &n);
    CHECK(r == SCZ_ERR_DST_TOO_SMALL, "empty array, 135-byte dst: %s", st(r));
    scz_ctx_destroy(c);
}

/* dst_cap below the stream size: DST_TOO_SMALL, nothing written past it. */
static void test_dst_too_small(void) {
    scz_ctx *c = new_ctx(2);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 4096;
    scz_shape s = {SCZ_DTYPE_F32, 1, {3000, 1, 1, 1}};
    gen_family fams[] = {GEN_SMOOTH, GEN_RANDOM_BITS};
    for (int f = 0; f < 2; f++) {
        void *src = gen_field(fams[f], &s, 8, NULL);
        size_t n = 0;
        uint8_t *ref = tu_compress(c, &p, &s, src, &n, "test_api");
        if (!ref) continue;
        /* every capacity inside header and table, near each chunk's end and
         * near the stream's end; a stride elsewhere */
        scz_info info;
        CHECK(scz_inspect(ref, n, &info) == SCZ_OK && info.num_chunks > 1, "multi-chunk stream");
        int bad = 0, tried = 0;
        for (size_t cap = 0; cap <= n; cap++) {
            int near_end = cap < 128 + 32 * (size_t)info.num_chunks + 72 || cap + 64 > n;
            for (uint32_t i = 0; i < info.num_chunks && !near_end; i++) {
                scz_chunk_info ci;
                if (scz_inspect_chunk(ref, n, i, &ci) == SCZ_OK && cap + 8 >= ci.offset + ci.size &&
                    cap <= ci.offset + ci.size + 8)
                    near_end = 1;
            }
            if (!near_end && cap % 61) continue;
            tried++;
            uint8_t *dst = tu_guarded_alloc(cap, 0);
            size_t got = 12345;
            scz_status r = scz_compress(c, &p, &s, src, dst, cap, &got);
            int ok = cap < n ? r == SCZ_ERR_DST_TOO_SMALL : (r == SCZ_OK && got == n && memcmp(dst, ref, n) == 0);
            if ((!ok || !tu_guard_intact(dst, cap)) && bad++ < 5)
                CHECK(0, "%s: dst_cap %zu of %zu: %s", gen_family_name(fams[f]), cap, n, st(r));
            free(dst);
        }
        CHECK(bad == 0 && tried > 300, "%s: %d capacities in 0..%zu", gen_family_name(fams[f]), tried, n);
        free(ref);
        free(src);
    }
    scz_ctx_destroy(c);
}

/* ---- concurrency: two contexts in two threads ---- */

typedef struct job {
    int id;
    uint8_t *streams[GEN_NUM_FAMILIES];
    size_t sizes[GEN_NUM_FAMILIES];
    int decoded_ok;
} job;

static const scz_shape conc_shape = {SCZ_DTYPE_F32, 3, {40, 33, 50, 1}};

static void *worker(void *arg) {
    job *j = arg;
    scz_ctx *c = NULL;
    if (scz_ctx_create(&c, SCZ_BACKEND_CPU)) return NULL;
    scz_ctx_set_threads(c, 2);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 32768;
    j->decoded_ok = 1;
    for (int rep = 0; rep < 3; rep++)
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
            /* the two threads walk the families in opposite orders */
            int ff = j->id ? GEN_NUM_FAMILIES - 1 - f : f;
            size_t raw;
            void *src = gen_field((gen_family)ff, &conc_shape, (uint64_t)ff, &raw);
            size_t bound = scz_compress_bound(&conc_shape, &p), n = 0;
            uint8_t *z = malloc(bound);
            if (scz_compress(c, &p, &conc_shape, src, z, bound, &n) != SCZ_OK) j->decoded_ok = 0;
            uint8_t *out = malloc(raw);
            if (scz_decompress(c, z, n, out, raw, NULL) != SCZ_OK || memcmp(out, src, raw) != 0) j->decoded_ok = 0;
            free(out);
            free(src);
            if (rep == 0) {
                j->streams[ff] = z;
                j->sizes[ff] = n;
            } else {
                if (n != j->sizes[ff] || memcmp(z, j->streams[ff], n) != 0) j->decoded_ok = 0;
                free(z);
            }
        }
    scz_ctx_destroy(c);
    return NULL;
}

static void test_threads(void) {
    job serial, jobs[2];
    memset(&serial, 0, sizeof serial);
    memset(jobs, 0, sizeof jobs);
    worker(&serial);
    CHECK(serial.decoded_ok, "serial run");
    jobs[0].id = 0;
    jobs[1].id = 1;
    pthread_t th[2];
    int started[2];
    for (int i = 0; i < 2; i++) started[i] = pthread_create(&th[i], NULL, worker, &jobs[i]) == 0;
    for (int i = 0; i < 2; i++)
        if (started[i]) pthread_join(th[i], NULL);
    CHECK(started[0] && started[1], "threads started");
    for (int i = 0; i < 2; i++) {
        CHECK(jobs[i].decoded_ok, "thread %d: round trips and repeat compressions", i);
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
            CHECK(jobs[i].streams[f] && jobs[i].sizes[f] == serial.sizes[f] &&
                      memcmp(jobs[i].streams[f], serial.streams[f], serial.sizes[f]) == 0,
                  "thread %d, %s: same stream as serial", i, gen_family_name((gen_family)f));
            free(jobs[i].streams[f]);
        }
    }
    for (int f = 0; f < GEN_NUM_FAMILIES; f++) free(serial.streams[f]);
}

/* ---- progress ---- */

typedef struct prog {
    int calls, monotone, same_thread;
    uint64_t last, total;
    pthread_t caller;
} prog;

static void on_progress(void *user, uint64_t done, uint64_t total) {
    prog *p = user;
    if (p->calls && (done <= p->last || total != p->total)) p->monotone = 0;
    if (!pthread_equal(pthread_self(), p->caller)) p->same_thread = 0;
    p->calls++;
    p->last = done;
    p->total = total;
}

static void test_progress(void) {
    scz_ctx *c = new_ctx(2);
    scz_params par;
    scz_params_init(&par, SCZ_CODEC_NDZIP);
    par.chunk_bytes = 16384;
    scz_shape s = {SCZ_DTYPE_F64, 3, {30, 20, 37, 1}};
    size_t raw;
    void *src = gen_field(GEN_NOISY, &s, 2, &raw);
    prog pr = {0, 1, 1, 0, 0, pthread_self()};
    scz_ctx_set_progress(c, on_progress, &pr);
    size_t n = 0;
    uint8_t *z = tu_compress(c, &par, &s, src, &n, "test_api");
    scz_info info;
    CHECK(z && scz_inspect(z, n, &info) == SCZ_OK && info.num_chunks > 1, "multi-chunk stream");
    CHECK(pr.calls == (int)info.num_chunks && pr.monotone && pr.same_thread && pr.last == raw && pr.total == raw,
          "compress progress: %d calls for %u chunks, last %llu of %llu", pr.calls, info.num_chunks,
          (unsigned long long)pr.last, (unsigned long long)pr.total);
    prog pd = {0, 1, 1, 0, 0, pthread_self()};
    scz_ctx_set_progress(c, on_progress, &pd);
    void *out = malloc(raw);
    CHECK(scz_decompress(c, z, n, out, raw, NULL) == SCZ_OK, "decompress");
    CHECK(pd.calls == (int)info.num_chunks && pd.monotone && pd.same_thread && pd.last == raw && pd.total == raw,
          "decompress progress: %d calls, last %llu of %llu", pd.calls, (unsigned long long)pd.last,
          (unsigned long long)pd.total);
    prog off = {0, 1, 1, 0, 0, pthread_self()};
    scz_ctx_set_progress(c, on_progress, &off);
    scz_ctx_set_progress(c, NULL, NULL);
    CHECK(scz_decompress(c, z, n, out, raw, NULL) == SCZ_OK && off.calls == 0, "NULL disables the callback");
    free(out);
    free(z);
    free(src);
    scz_ctx_destroy(c);
}

/* The device scratch of a lossy call, compression or decompression
 * (docs/GPU.md "Lossy compression on the GPU"): at most 1.25x the input
 * for float32 and float64 arrays from 32 MiB up, any number of chunks, a
 * short last one included (a widely used GPU lossy compressor needs ~1.5x).
 * Host arithmetic of the CUDA backend's layouts: no device needed; a build
 * without the CUDA backend returns 0 and skips. */
static void test_cuda_scratch(void) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = SCZ_DTYPE_F32;
    s.rank = 1;
    s.dims[0] = 1u << 20;
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.eb_mode = SCZ_EB_REL;
    p.eb = 1e-3;
    if (scz_cuda_scratch_size(&s, &p) == 0) {
        printf("cuda scratch: no CUDA backend in this build, skipped\n");
        return;
    }
    const double mib[] = {32, 100, 256, 512, 1024, 3000, 8192};
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < sizeof mib / sizeof mib[0]; i++)
            for (unsigned rank = 1; rank <= 3; rank++) {
                const size_t es = d ? 8 : 4;
                const uint64_t n = (uint64_t)(mib[i] * 1048576.0) / es;
                memset(&s, 0, sizeof s);
                s.dtype = d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
                s.rank = rank;
                s.dims[0] = s.dims[1] = s.dims[2] = s.dims[3] = 1;
                if (rank == 1) s.dims[0] = n;
                else if (rank == 2) s.dims[0] = 4096, s.dims[1] = n / 4096;
                else s.dims[0] = 256, s.dims[1] = 256, s.dims[2] = n / 65536;
                uint64_t raw = es;
                for (unsigned k = 0; k < rank; k++) raw *= s.dims[k];
                for (int knob = 0; knob < 3; knob++) {
                    p.knobs[1] = (uint32_t)knob; /* auto, Huffman, run-length forced */
                    const size_t sc = scz_cuda_scratch_size(&s, &p);
                    CHECK(sc > 0 && (double)sc <= 1.25 * (double)raw,
                          "lossy %s rank %u %.0f MiB workflow %d: device scratch %zu bytes for %llu raw",
                          d ? "f64" : "f32", rank, mib[i], knob, sc, (unsigned long long)raw);
                }
                p.knobs[1] = 0;
            }
}

int main(void) {
    test_names();
    test_cuda_scratch();
    test_shapes_and_bounds();
    test_null_and_bad_args();
    test_inspect();
    test_empty();
    test_dst_too_small();
    test_threads();
    test_progress();
    return tu_finish("test_api");
}

/*
 * test_invalid_streams.c -- damaged and hostile streams must give an error
 * status, never a crash, a hang or a write past the destination (run it
 * under ASan/UBSan). For several real streams of every built-in codec
 * (ndzip: generated fields, multi-chunk, both dtypes, an empty array, one
 * element, a real data file when present; lossy: both workflows, both dtypes;
 * huffman: u8/u16/u32):
 *   - every truncation length, each in a buffer of exactly that size;
 *   - every byte of header and chunk table damaged, and thousands of random
 *     single-byte corruptions and multi-byte garbage anywhere;
 *   - white-box: payload damage with the chunk and table checksums
 *     recomputed, so that the codec's own validation is what must hold;
 *   - absurd header fields under a valid header checksum;
 *   - trailing bytes, leading bytes, a too small destination.
 * Every decode writes into a buffer followed by a guard region.
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

typedef struct stream {
    char name[300];
    scz_shape shape;
    uint8_t *src;   /* original array */
    size_t raw;
    uint8_t *z;     /* the stream */
    size_t n;
    uint32_t num_chunks;
    scz_codec codec;
} stream;

static scz_ctx *ctx1, *ctx2;
static uint64_t rng = 0x1234567887654321ull;
static long decodes, rejected_resealed, accepted_resealed;

static uint64_t rnd(void) { return gen_splitmix64(&rng); }
static const char *st(scz_status s) { return scz_status_string(s); }

static uint32_t nchunks_of(const uint8_t *z) { return get32(z + 64); }

/* A status must be a known error and, with a context, come with a message. */
static int is_error(scz_status s) { return s > SCZ_OK && s <= SCZ_ERR_INTERNAL && s != SCZ_ERR_INTERNAL; }

/* Decodes z[0..n) (n exact: the caller's buffer ends there) into a guarded
 * destination of `cap` bytes. Returns the status; checks the guard. */
static scz_status decode(scz_ctx *ctx, const uint8_t *z, size_t n, size_t cap, const char *what) {
    uint8_t *dst = tu_guarded_alloc(cap, 0x77);
    scz_status s = scz_decompress(ctx, z, n, dst, cap, NULL);
    decodes++;
    if (!tu_guard_intact(dst, cap)) CHECK(0, "%s: decoder wrote past dst_cap %zu (%s)", what, cap, st(s));
    if (s != SCZ_OK && !scz_ctx_last_error(ctx)[0]) CHECK(0, "%s: error %s without a message", what, st(s));
    free(dst);
    return s;
}

/* Decodes a copy of the stream in an exactly sized buffer. */
static scz_status decode_copy(scz_ctx *ctx, const uint8_t *z, size_t n, size_t cap, const char *what) {
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, z, n);
    scz_status s = decode(ctx, c, n, cap, what);
    free(c);
    return s;
}

/* ---- the streams under test ---- */

/* Compresses s->src (shape set) with p into s->z. */
static int finish_stream(stream *s, const scz_params *p, scz_ctx *ctx) {
    s->codec = p->codec;
    size_t bound = scz_compress_bound(&s->shape, p);
    CHECK(bound > 0, "%s: bound", s->name);
    s->z = malloc(bound ? bound : 1);
    scz_status r = scz_compress(ctx, p, &s->shape, s->src, s->z, bound, &s->n);
    CHECK(r == SCZ_OK, "%s: compress: %s (%s)", s->name, st(r), scz_ctx_last_error(ctx));
    if (r) {
        free(s->z);
        free(s->src);
        return 0;
    }
    s->z = realloc(s->z, s->n);
    s->num_chunks = nchunks_of(s->z);
    return 1;
}

static void set_shape(stream *s, const char *name, scz_dtype dt, uint32_t rank, uint64_t d0, uint64_t d1,
                      uint64_t d2, uint64_t d3) {
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->shape.dtype = dt;
    s->shape.rank = rank;
    s->shape.dims[0] = d0;
    s->shape.dims[1] = d1;
    s->shape.dims[2] = d2;
    s->shape.dims[3] = d3;
}

static int make_stream(stream *s, const char *name, gen_family f, scz_dtype dt, uint32_t rank, uint64_t d0,
                       uint64_t d1, uint64_t d2, uint64_t d3, uint64_t chunk_bytes) {
    set_shape(s, name, dt, rank, d0, d1, d2, d3);
    s->src = gen_field(f, &s->shape, 99, &s->raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = chunk_bytes;
    return finish_stream(s, &p, ctx1);
}

/* A lossy stream; workflow 1 Huffman, 2 run-length. */
static int make_lossy_stream(stream *s, const char *name, gen_family f, scz_dtype dt, uint32_t rank, uint64_t d0,
                             uint64_t d1, uint64_t d2, scz_eb_mode mode, double eb, uint32_t workflow,
                             uint64_t chunk_bytes) {
    set_shape(s, name, dt, rank, d0, d1, d2, 1);
    s->src = gen_field(f, &s->shape, 77, &s->raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.eb_mode = mode;
    p.eb = eb;
    p.knobs[1] = workflow;
    p.chunk_bytes = chunk_bytes;
    return finish_stream(s, &p, ctx2);
}

/* A huffman stream of skewed integers (u32: a few hundred distinct values,
 * and some rare ones). */
static int make_int_stream(stream *s, const char *name, scz_dtype dt, uint64_t d0, uint64_t d1,
                           uint64_t chunk_bytes) {
    set_shape(s, name, dt, 2, d0, d1, 1, 1);
    size_t es = scz_dtype_size(dt), n = (size_t)(d0 * d1);
    s->raw = n * es;
    s->src = malloc(s->raw ? s->raw : 1);
    uint64_t r = 5;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = gen_splitmix64(&r);
        uint32_t v = (uint32_t)(i / 97 % 13 + (h % 8 == 0 ? h % 300 : 0));
        if (dt == SCZ_DTYPE_U32 && h % 1000 == 0) v = (uint32_t)(h >> 32);
        memcpy(s->src + i * es, &v, es); /* little-endian: the low bytes */
    }
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    p.chunk_bytes = chunk_bytes;
    return finish_stream(s, &p, ctx1);
}

static int make_file_stream(stream *s, const tu_datafile *f) {
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", f->name);
    s->shape = f->shape;
    s->src = tu_read_file(f->path, &s->raw);
    if (!s->src || s->raw != gen_bytes(&s->shape)) {
        free(s->src);
        return 0;
    }
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 64 * 1024;
    return finish_stream(s, &p, ctx2);
}

static void free_stream(stream *s) {
    free(s->src);
    free(s->z);
}

/* ---- the tests ---- */

static void test_intact(const stream *s) {
    uint8_t *dst = tu_guarded_alloc(s->raw, 0);
    scz_status r = scz_decompress(ctx2, s->z, s->n, dst, s->raw, NULL);
    CHECK(r == SCZ_OK && tu_guard_intact(dst, s->raw), "%s: the intact stream decodes: %s", s->name, st(r));
    if (scz_codec_is_lossless(s->codec)) {
        CHECK(memcmp(dst, s->src, s->raw) == 0, "%s: bit-exact", s->name);
    } else {
        scz_info info;
        scz_stats stats;
        uint64_t count = s->raw / scz_dtype_size(s->shape.dtype);
        CHECK(scz_inspect(s->z, s->n, &info) == SCZ_OK &&
                  scz_stats_compute(s->shape.dtype, s->src, dst, count, &stats) == SCZ_OK &&
                  stats.max_abs_err <= info.eb_abs && stats.nonfinite_mismatch == 0,
              "%s: within the bound", s->name);
    }
    free(dst);
}

/* Chunk boundaries: where truncations are most interesting. */
static int near_boundary(const stream *s, size_t k) {
    size_t tend = SCZ_HEADER_SIZE + 32 * (size_t)s->num_chunks + 8;
    if (k <= tend + 64 || k + 4096 >= s->n) return 1;
    for (uint32_t i = 0; i < s->num_chunks; i++) {
        uint64_t off = get64(s->z + SCZ_HEADER_SIZE + 32ull * i);
        if (k + 64 >= off && k <= off + 64) return 1;
    }
    return 0;
}

static void test_truncations(const stream *s) {
    int bad = 0, inspect_ok = 0;
    scz_chunk_info c0;
    memset(&c0, 0, sizeof c0);
    if (s->num_chunks) CHECK(scz_inspect_chunk(s->z, s->n, 0, &c0) == SCZ_OK, "%s: inspect_chunk 0", s->name);
    uint8_t *shared = malloc(s->n);
    memcpy(shared, s->z, s->n);
    uint8_t *dst = tu_guarded_alloc(s->raw, 0x11); /* one for all: only the guard matters */
    for (size_t k = 0; k < s->n; k++) {
        /* an exactly sized copy where cheap or interesting, so that any read
         * past k is an ASan error; the shared buffer elsewhere */
        int exact = s->n <= 32768 || near_boundary(s, k);
        uint8_t *c = exact ? malloc(k ? k : 1) : shared;
        if (exact) memcpy(c, s->z, k);
        scz_ctx *ctx = (k & 1) ? ctx1 : ctx2;
        scz_status r = scz_decompress(ctx, c, k, dst, s->raw, NULL);
        if (!is_error(r) || !tu_guard_intact(dst, s->raw) || !scz_ctx_last_error(ctx)[0]) {
            if (bad++ < 5) CHECK(0, "%s truncated to %zu of %zu: %s", s->name, k, s->n, st(r));
        }
        scz_info info;
        scz_status ri = scz_inspect(c, k, &info);
        if (ri == SCZ_OK) inspect_ok++;
        else if (!is_error(ri) && bad++ < 5) CHECK(0, "%s: inspect of truncation %zu: %d", s->name, k, (int)ri);
        if (s->num_chunks && (k % 7 == 0 || exact)) {
            scz_chunk_info ci;
            scz_inspect_chunk(c, k, 0, &ci);
            /* a reader may or may not serve a chunk that is wholly present;
             * if it does, the chunk must be right */
            r = scz_decompress_chunk(ctx, c, k, 0, dst, s->raw);
            if (r == SCZ_OK && scz_codec_is_lossless(s->codec) && memcmp(dst, s->src, (size_t)c0.raw_bytes) != 0 &&
                bad++ < 5)
                CHECK(0, "%s: chunk 0 of truncation %zu decoded wrongly", s->name, k);
            if (r != SCZ_OK && !is_error(r) && bad++ < 5)
                CHECK(0, "%s: chunk 0 of truncation %zu: status %d", s->name, k, (int)r);
            if (!tu_guard_intact(dst, s->raw) && bad++ < 5) CHECK(0, "%s: chunk write past dst", s->name);
        }
        if (exact) free(c);
        decodes++;
    }
    free(dst);
    free(shared);
    CHECK(bad == 0, "%s: all %zu truncations rejected", s->name, s->n);
    CHECK(inspect_ok == 0, "%s: inspect accepted %d truncations", s->name, inspect_ok);
}

/* Every byte of header and table, damaged two ways. */
static void test_header_table_bytes(const stream *s) {
    size_t tend = SCZ_HEADER_SIZE + 32 * (size_t)s->num_chunks + 8;
    uint8_t *c = malloc(s->n);
    int bad = 0;
    for (size_t i = 0; i < tend; i++)
        for (int v = 0; v < 2; v++) {
            memcpy(c, s->z, s->n);
            c[i] ^= v ? 0xFF : 0x01;
            scz_status r = decode(i & 1 ? ctx1 : ctx2, c, s->n, s->raw, s->name);
            if (!is_error(r) && bad++ < 5) CHECK(0, "%s: header/table byte %zu ^%02x accepted: %s", s->name, i, v ? 0xFF : 1, st(r));
        }
    free(c);
    CHECK(bad == 0, "%s: every header/table byte damage rejected", s->name);
}

static void test_random_corruptions(const stream *s, int singles, int multis) {
    uint8_t *c = malloc(s->n);
    int bad = 0;
    for (int t = 0; t < singles + multis; t++) {
        memcpy(c, s->z, s->n);
        if (t < singles) {
            size_t pos = (size_t)(rnd() % s->n);
            c[pos] ^= (uint8_t)(1 + rnd() % 255);
        } else if (t % 2) { /* a run of garbage */
            size_t len = 2 + (size_t)(rnd() % 64);
            size_t pos = (size_t)(rnd() % s->n);
            for (size_t k = pos; k < pos + len && k < s->n; k++) c[k] = (uint8_t)rnd();
            if (memcmp(c, s->z, s->n) == 0) c[pos] ^= 0x80;
        } else { /* scattered bytes */
            int m = 2 + (int)(rnd() % 9);
            for (int k = 0; k < m; k++) c[rnd() % s->n] ^= (uint8_t)(1 + rnd() % 255);
            if (memcmp(c, s->z, s->n) == 0) c[0] ^= 1;
        }
        scz_status r = decode(t & 1 ? ctx1 : ctx2, c, s->n, s->raw, s->name);
        /* Header, table and payloads are all covered by XXH64 checksums, so a
         * damaged stream that decodes means a check is missing. */
        if (!is_error(r) && bad++ < 5) CHECK(0, "%s: corruption %d accepted: %s", s->name, t, st(r));
        scz_info info;
        scz_inspect(c, s->n, &info);
    }
    free(c);
    CHECK(bad == 0, "%s: %d single-byte and %d multi-byte corruptions rejected", s->name, singles, multis);
}

/* Payload damage behind valid checksums: the codec must validate. */
static void test_resealed(const stream *s, int trials) {
    if (!s->num_chunks) return;
    uint8_t *c = malloc(s->n);
    for (int t = 0; t < trials; t++) {
        memcpy(c, s->z, s->n);
        uint32_t i = (uint32_t)(rnd() % s->num_chunks);
        uint8_t *e = c + SCZ_HEADER_SIZE + 32ull * i;
        uint64_t off = get64(e), size = get64(e + 8);
        if (!size) continue;
        switch (t % 4) {
        case 0: c[off + rnd() % size] ^= (uint8_t)(1 + rnd() % 255); break;
        case 1: /* the hypercube offset table at the start of the payload */
            c[off + rnd() % (size < 64 ? size : 64)] ^= (uint8_t)(1 + rnd() % 255);
            break;
        case 2: { /* a garbage run */
            uint64_t pos = rnd() % size, len = 1 + rnd() % 256;
            for (uint64_t k = pos; k < pos + len && k < size; k++) c[off + k] = (uint8_t)rnd();
            break;
        }
        default: /* everything random */
            for (uint64_t k = 0; k < size; k++) c[off + k] = (uint8_t)rnd();
            break;
        }
        tu_reseal_chunk(c, i);
        scz_status r = decode(t & 1 ? ctx1 : ctx2, c, s->n, s->raw, s->name);
        if (r == SCZ_OK) accepted_resealed++;
        else if (is_error(r)) rejected_resealed++;
        else CHECK(0, "%s: resealed damage: status %d", s->name, (int)r);
        /* and the chunk alone */
        uint8_t *dst = tu_guarded_alloc(s->raw, 0);
        scz_decompress_chunk(ctx2, c, s->n, i, dst, s->raw);
        if (!tu_guard_intact(dst, s->raw)) CHECK(0, "%s: decompress_chunk wrote past dst", s->name);
        free(dst);
    }
    free(c);
}

/* Damage the codec must detect even behind valid checksums. */
static void test_resealed_must_fail(const stream *s) {
    if (!s->num_chunks) return;
    uint8_t *c = malloc(s->n + 4096);
    uint32_t last = s->num_chunks - 1;
    uint8_t *e = c + SCZ_HEADER_SIZE + 32ull * last;
    /* ndzip: a head bit flipped: the hypercube's length no longer matches (6.5) */
    for (uint32_t i = 0; i < s->num_chunks && s->codec == SCZ_CODEC_NDZIP; i++) {
        memcpy(c, s->z, s->n);
        uint8_t *ei = c + SCZ_HEADER_SIZE + 32ull * i;
        uint64_t off = get64(ei);
        /* H from the geometry: the first u32 end offsets precede the data */
        scz_chunk_info ci;
        scz_inspect_chunk(s->z, s->n, i, &ci);
        if (ci.codec_info == 1) continue; /* stored (FORMAT.md 6.7): no heads; test_ndzip_stored */
        uint32_t H = 0;
        /* the end offsets are non-decreasing and the last is the data size:
         * find H as the count with 4*H + end[H-1] == size */
        for (uint32_t h = 1; 4ull * h <= ci.size; h++)
            if (4ull * h + get32(c + off + 4ull * (h - 1)) == ci.size) {
                H = h;
                break;
            }
        CHECK(H > 0, "%s chunk %u: payload is 4*H + end[H-1] bytes", s->name, i);
        if (!H) continue;
        c[off + 4ull * H + rnd() % (s->shape.dtype == SCZ_DTYPE_F32 ? 4 : 8)] ^= (uint8_t)(1u << (rnd() % 8));
        tu_reseal_chunk(c, i);
        scz_status r = decode(ctx2, c, s->n, s->raw, s->name);
        CHECK(r == SCZ_ERR_CORRUPT, "%s chunk %u: head bit flip behind valid checksums: %s", s->name, i, st(r));
    }
    /* the last payload shortened by k bytes (stream too) */
    for (uint64_t k = 1; k <= 9; k += 4) {
        memcpy(c, s->z, s->n);
        uint64_t size = get64(e + 8);
        if (size < k) break;
        put64(e + 8, size - k);
        tu_reseal_chunk(c, last);
        scz_status r = decode_copy(ctx1, c, s->n - k, s->raw, s->name);
        CHECK(is_error(r), "%s: last payload shortened by %llu: %s", s->name, (unsigned long long)k, st(r));
    }
    /* ... and lengthened by k garbage bytes inside the payload */
    for (uint64_t k = 1; k <= 4096; k *= 8) {
        memcpy(c, s->z, s->n);
        for (uint64_t j = 0; j < k; j++) c[s->n + j] = (uint8_t)(j & 1 ? rnd() : 0);
        put64(e + 8, get64(e + 8) + k);
        tu_reseal_chunk(c, last);
        scz_status r = decode_copy(ctx2, c, s->n + k, s->raw, s->name);
        CHECK(is_error(r), "%s: last payload with %llu extra bytes: %s", s->name, (unsigned long long)k, st(r));
    }
    /* every payload empty, offsets consistent */
    {
        memcpy(c, s->z, s->n);
        size_t tend = SCZ_HEADER_SIZE + 32 * (size_t)s->num_chunks + 8;
        for (uint32_t i = 0; i < s->num_chunks; i++) {
            uint8_t *ei = c + SCZ_HEADER_SIZE + 32ull * i;
            put64(ei, tend);
            put64(ei + 8, 0);
            put64(ei + 16, tu_xxh64("", 0, 0));
        }
        tu_reseal_table(c, nchunks_of(c));
        scz_status r = decode_copy(ctx1, c, tend, s->raw, s->name);
        CHECK(is_error(r), "%s: empty payloads: %s", s->name, st(r));
    }
    /* codec_info: ndzip 0 coded / 1 stored, the payload's first byte for lossy and huffman */
    for (int v = 0; v < 2; v++) {
        memcpy(c, s->z, s->n);
        put32(e + 24, v ? 0xFFFFFFFFu : get32(e + 24) ^ 1);
        tu_reseal_table(c, nchunks_of(c));
        scz_status r = decode(ctx1, c, s->n, s->raw, s->name);
        CHECK(is_error(r), "%s: codec_info changed to %u: %s", s->name, get32(e + 24), st(r));
    }
    free(c);
}

typedef struct edit {
    const char *what;
    int off, size;
    uint64_t v;
} edit;

/* Applies an edit to a copy of the stream, reseals the header, decodes. */
static scz_status apply_edit(const stream *s, uint8_t *c, const edit *e) {
    memcpy(c, s->z, s->n);
    if (e->size == 1) c[e->off] = (uint8_t)e->v;
    else if (e->size == 2) {
        c[e->off] = (uint8_t)e->v;
        c[e->off + 1] = (uint8_t)(e->v >> 8);
    } else if (e->size == 4) put32(c + e->off, (uint32_t)e->v);
    else put64(c + e->off, e->v);
    tu_reseal_header(c);
    return decode(ctx2, c, s->n, s->raw, s->name);
}

/* Header fields edited under a valid header checksum. */
static void test_absurd_headers(const stream *s) {
    uint8_t *c = malloc(s->n);
    static const edit generic[] = {
        {"rank 0", 14, 1, 0},        {"rank 5", 14, 1, 5},         {"rank 200", 14, 1, 200},
        {"codec 0", 12, 1, 0},       {"codec 6", 12, 1, 6},        {"codec 255", 12, 1, 255},
        {"codec ndzip", 12, 1, 1},   {"codec lossy", 12, 1, 2},    {"codec huffman", 12, 1, 3},
        {"codec gfc", 12, 1, 4},     {"codec lzss", 12, 1, 5},     {"dtype 0", 13, 1, 0},
        {"dtype 7", 13, 1, 7},       {"dim0 huge", 16, 8, 1ull << 62}, {"dim0 max", 16, 8, UINT64_MAX},
        {"dim0 0", 16, 8, 0},        {"dim3 huge", 40, 8, 1ull << 40}, {"raw_bytes huge", 48, 8, UINT64_MAX},
        {"slab huge", 56, 8, UINT64_MAX}, {"slab 0", 56, 8, 0},   {"num_chunks max", 64, 4, UINT32_MAX},
        {"cksum log2 9", 68, 1, 9},  {"cksum log2 31", 68, 1, 31}, {"cksum log2 255", 68, 1, 255},
        {"eb_mode 9", 69, 1, 9},     {"flags 1", 15, 1, 1},        {"header_size 0", 10, 2, 0},
        {"reserved", 112, 8, 1},     {"reserved 70", 70, 1, 1},
    };
    /* fields a codec must check (FORMAT.md 6, 7, 8.5) */
    static const edit ndzip_edits[] = {
        {"eb_mode abs", 69, 1, 1}, {"eb_user 1e-3", 72, 8, 0x3F50624DD2F1A9FCull},
        {"eb_abs 1", 80, 8, 0x3FF0000000000000ull}, {"knob0 1", 88, 4, 1}, {"knob5 7", 108, 4, 7},
    };
    static const edit lossy_edits[] = {
        {"eb_mode none", 69, 1, 0},  {"radius 0", 88, 4, 0},       {"radius 32768", 88, 4, 32768},
        {"radius max", 88, 4, UINT32_MAX}, {"workflow 3", 92, 4, 3}, {"knob2 1", 96, 4, 1},
        {"knob5 1", 108, 4, 1},      {"eb_abs -1", 80, 8, 0xBFF0000000000000ull},
        {"eb_abs NaN", 80, 8, 0x7FF8000000000000ull}, {"eb_abs +Inf", 80, 8, 0x7FF0000000000000ull},
    };
    static const edit huffman_edits[] = {
        {"eb_mode abs", 69, 1, 1}, {"eb_user 1", 72, 8, 0x3FF0000000000000ull},
        {"eb_abs 1", 80, 8, 0x3FF0000000000000ull}, {"knob0 1", 88, 4, 1}, {"knob3 2", 100, 4, 2},
    };
    for (size_t k = 0; k < sizeof generic / sizeof generic[0]; k++) {
        const edit *e = &generic[k];
        /* an empty array has no chunking, and another dim is 0 whatever d0 is */
        if (!s->raw && (e->off == 56 || e->off == 16)) continue;
        if (e->off == 12 && e->v == (uint64_t)s->codec) continue;
        scz_status r = apply_edit(s, c, e);
        if (e->off == 12 && scz_codec_available((scz_codec)e->v))
            /* another built-in codec reading these payloads: whatever it
             * decides, within bounds (decode() checks the guard) */
            CHECK(r == SCZ_OK || is_error(r), "%s: %s: %s", s->name, e->what, st(r));
        else
            CHECK(is_error(r), "%s: %s under a valid checksum: %s", s->name, e->what, st(r));
        scz_info info;
        scz_status ri = scz_inspect(c, s->n, &info);
        /* inspect reads header and table only: codec fields it may pass */
        if (e->off != 12 && e->off < 69)
            CHECK(is_error(ri), "%s: inspect of %s: %s", s->name, e->what, st(ri));
    }
    const edit *spec = s->codec == SCZ_CODEC_NDZIP ? ndzip_edits : s->codec == SCZ_CODEC_LOSSY ? lossy_edits : huffman_edits;
    size_t nspec = s->codec == SCZ_CODEC_NDZIP   ? sizeof ndzip_edits / sizeof ndzip_edits[0]
                   : s->codec == SCZ_CODEC_LOSSY ? sizeof lossy_edits / sizeof lossy_edits[0]
                                                 : sizeof huffman_edits / sizeof huffman_edits[0];
    for (size_t k = 0; k < nspec; k++) {
        scz_status r = apply_edit(s, c, &spec[k]);
        CHECK(is_error(r), "%s: %s under a valid checksum: %s", s->name, spec[k].what, st(r));
    }
    /* lossy: any other finite bound or radius decodes (to other values) or
     * fails, within bounds */
    if (s->codec == SCZ_CODEC_LOSSY && s->raw) {
        static const edit odd[] = {
            {"eb_abs 1e300", 80, 8, 0x7E37E43C8800759Cull}, {"eb_abs 0", 80, 8, 0},
            {"eb_abs denormal", 80, 8, 1}, {"eb_abs DBL_MAX", 80, 8, 0x7FEFFFFFFFFFFFFFull},
            {"radius 1", 88, 4, 1}, {"radius 32767", 88, 4, 32767}, {"radius 513", 88, 4, 513},
            {"eb_mode rel", 69, 1, 2},
        };
        for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
            scz_status r = apply_edit(s, c, &odd[k]);
            CHECK(r == SCZ_OK || is_error(r), "%s: %s: %s", s->name, odd[k].what, st(r));
        }
    }
    /* the dtype changed, raw size kept consistent: a dtype the codec does
     * not take is rejected; another one it takes decodes or fails, never
     * out of bounds */
    scz_dtype others[] = {SCZ_DTYPE_U8, SCZ_DTYPE_U16, SCZ_DTYPE_U32, SCZ_DTYPE_U64, SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        if (others[k] == s->shape.dtype || !s->num_chunks) continue;
        memcpy(c, s->z, s->n);
        c[13] = (uint8_t)others[k];
        uint64_t raw = s->raw / scz_dtype_size(s->shape.dtype) * scz_dtype_size(others[k]);
        put64(c + 48, raw);
        tu_reseal_header(c);
        scz_status r = decode(ctx1, c, s->n, (size_t)raw, s->name);
        int isfloat = others[k] == SCZ_DTYPE_F32 || others[k] == SCZ_DTYPE_F64;
        int takes = s->codec == SCZ_CODEC_HUFFMAN ? !isfloat && others[k] != SCZ_DTYPE_U64 : isfloat;
        if (!takes)
            CHECK(is_error(r), "%s: stream as %s: %s", s->name, scz_dtype_name(others[k]), st(r));
        else
            CHECK(r == SCZ_OK || is_error(r), "%s: as %s: %s", s->name, scz_dtype_name(others[k]), st(r));
    }
    /* the dims of the slices permuted (same raw size and chunking) */
    if (s->shape.rank >= 3 && s->shape.dims[0] != s->shape.dims[1]) {
        memcpy(c, s->z, s->n);
        put64(c + 16, s->shape.dims[1]);
        put64(c + 24, s->shape.dims[0]);
        tu_reseal_header(c);
        scz_status r = decode(ctx2, c, s->n, s->raw, s->name);
        CHECK(r == SCZ_OK || is_error(r), "%s: permuted dims: %s", s->name, st(r));
    }
    free(c);
}

/* A header with huge, consistent dims and a matching table of empty chunks:
 * nothing may be allocated or written for the claimed size. */
static void test_huge_claims(void) {
    struct { scz_dtype t; uint32_t rank; uint64_t d[4]; uint64_t slab; } cases[] = {
        {SCZ_DTYPE_F32, 2, {1ull << 28, 4, 1, 1}, 1},          /* 4 GiB in 4 chunks of 1 GiB */
        {SCZ_DTYPE_F64, 3, {1ull << 20, 1ull << 10, 64, 1}, 1}, /* 512 GiB in 64 chunks */
        {SCZ_DTYPE_F32, 1, {1ull << 40, 1, 1, 1}, 1ull << 28},  /* 4 TiB, 4096 chunks */
        {SCZ_DTYPE_F32, 4, {16, 16, 16, 1000}, 7},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        scz_header h;
        memset(&h, 0, sizeof h);
        h.version = 1;
        h.codec = SCZ_CODEC_NDZIP;
        h.dtype = cases[k].t;
        h.rank = cases[k].rank;
        uint64_t count = 1;
        for (int i = 0; i < 4; i++) {
            h.dims[i] = cases[k].d[i];
            count *= h.dims[i];
        }
        h.raw_bytes = count * scz_dtype_size(h.dtype);
        h.chunk_slab = cases[k].slab;
        uint64_t slow = h.dims[h.rank - 1];
        h.num_chunks = (uint32_t)((slow + h.chunk_slab - 1) / h.chunk_slab);
        h.cksum_block_log2 = 12;
        size_t tend = SCZ_HEADER_SIZE + 32 * (size_t)h.num_chunks + 8;
        uint8_t *z = calloc(1, tend);
        scz__header_write(&h, z);
        scz_chunk_entry *e = calloc(h.num_chunks, sizeof *e);
        for (uint32_t i = 0; i < h.num_chunks; i++) {
            e[i].offset = tend;
            e[i].checksum = tu_xxh64("", 0, 0);
        }
        scz__table_write(e, h.num_chunks, z + SCZ_HEADER_SIZE);
        free(e);
        scz_info info;
        scz_status r = scz_inspect(z, tend, &info);
        CHECK(r == SCZ_OK && info.raw_bytes == h.raw_bytes, "huge claim %zu: inspect: %s", k, st(r));
        size_t cap = h.raw_bytes <= (1u << 26) ? (size_t)h.raw_bytes : 1u << 16;
        r = decode(ctx2, z, tend, cap, "huge claim");
        CHECK(r == SCZ_ERR_DST_TOO_SMALL || (h.raw_bytes <= cap && is_error(r)), "huge claim %zu: %s", k, st(r));
        uint8_t *dst = tu_guarded_alloc(cap, 0);
        r = scz_decompress_chunk(ctx1, z, tend, 0, dst, cap);
        CHECK(is_error(r) && tu_guard_intact(dst, cap), "huge claim %zu: chunk 0: %s", k, st(r));
        free(dst);
        free(z);
    }
}

static void test_framing(const stream *s) {
    /* trailing bytes */
    size_t extra[] = {1, 7, 8, 4096};
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++)
        for (int zeros = 0; zeros <= 1; zeros++) {
            uint8_t *c = malloc(s->n + extra[k]);
            memcpy(c, s->z, s->n);
            for (size_t j = 0; j < extra[k]; j++) c[s->n + j] = zeros ? 0 : (uint8_t)rnd();
            scz_status r = decode(ctx1, c, s->n + extra[k], s->raw, s->name);
            CHECK(is_error(r), "%s: %zu trailing %s bytes: %s", s->name, extra[k], zeros ? "zero" : "random", st(r));
            free(c);
        }
    /* the stream twice */
    uint8_t *c = malloc(2 * s->n + 1);
    memcpy(c, s->z, s->n);
    memcpy(c + s->n, s->z, s->n);
    CHECK(is_error(decode(ctx2, c, 2 * s->n, s->raw, s->name)), "%s: stream followed by itself", s->name);
    /* a leading byte */
    c[0] = 0;
    memcpy(c + 1, s->z, s->n);
    scz_status r = decode(ctx2, c, s->n + 1, s->raw, s->name);
    CHECK(r == SCZ_ERR_NOT_SCZ, "%s: leading byte: %s", s->name, st(r));
    free(c);
    /* destination too small */
    if (s->raw) {
        size_t caps[] = {0, s->raw - 1, s->raw / 2};
        for (size_t k = 0; k < 3; k++) {
            r = decode(ctx1, s->z, s->n, caps[k], s->name);
            CHECK(r == SCZ_ERR_DST_TOO_SMALL, "%s: dst_cap %zu of %zu: %s", s->name, caps[k], s->raw, st(r));
        }
        r = scz_decompress(ctx1, s->z, s->n, NULL, s->raw, NULL);
        CHECK(is_error(r), "%s: NULL dst: %s", s->name, st(r));
        scz_chunk_info ci;
        if (scz_inspect_chunk(s->z, s->n, 0, &ci) == SCZ_OK && ci.raw_bytes) {
            uint8_t *dst = tu_guarded_alloc((size_t)ci.raw_bytes - 1, 0);
            r = scz_decompress_chunk(ctx1, s->z, s->n, 0, dst, (size_t)ci.raw_bytes - 1);
            CHECK(r == SCZ_ERR_DST_TOO_SMALL && tu_guard_intact(dst, (size_t)ci.raw_bytes - 1),
                  "%s: chunk dst too small: %s", s->name, st(r));
            free(dst);
        }
        uint8_t one[8];
        r = scz_decompress_chunk(ctx1, s->z, s->n, s->num_chunks, one, sizeof one);
        CHECK(is_error(r), "%s: chunk index out of range: %s", s->name, st(r));
    }
}

int main(void) {
    if (scz_ctx_create(&ctx1, SCZ_BACKEND_CPU) || scz_ctx_create(&ctx2, SCZ_BACKEND_CPU)) {
        CHECK(0, "contexts");
        return tu_finish("test_invalid_streams");
    }
    scz_ctx_set_threads(ctx1, 1);
    scz_ctx_set_threads(ctx2, 2);
    double t0 = tu_now();
    /* SCZ_TEST_SCALE=N multiplies the random trials (longer fuzzing runs) */
    int scale = getenv("SCZ_TEST_SCALE") ? atoi(getenv("SCZ_TEST_SCALE")) : 1;
    if (scale < 1) scale = 1;

    enum { MAXS = 20 };
    stream ss[MAXS];
    int ns = 0;
    ns += make_stream(&ss[ns], "smooth 3D 17x16x15 f32", GEN_SMOOTH, SCZ_DTYPE_F32, 3, 17, 16, 15, 1, 0);
    ns += make_stream(&ss[ns], "noisy 1D 4097 f64, 4 KiB chunks", GEN_NOISY, SCZ_DTYPE_F64, 1, 4097, 1, 1, 1, 4096);
    ns += make_stream(&ss[ns], "special 2D 65x63 f32, 4 KiB chunks", GEN_SPECIAL, SCZ_DTYPE_F32, 2, 65, 63, 1, 1, 4096);
    ns += make_stream(&ss[ns], "random bits 4D 7x5x3x2 f64", GEN_RANDOM_BITS, SCZ_DTYPE_F64, 4, 7, 5, 3, 2, 0);
    ns += make_stream(&ss[ns], "fill 3D 33x20x40 f32, 16 KiB chunks", GEN_FILL_VALUE, SCZ_DTYPE_F32, 3, 33, 20, 40, 1, 16384);
    ns += make_stream(&ss[ns], "empty 2D 5x0 f32", GEN_SMOOTH, SCZ_DTYPE_F32, 2, 5, 0, 1, 1, 0);
    ns += make_stream(&ss[ns], "one element f64", GEN_SPECIAL, SCZ_DTYPE_F64, 1, 1, 1, 1, 1, 0);
    ns += make_stream(&ss[ns], "constant 3D 40x40x40 f64, 64 KiB chunks", GEN_CONSTANT, SCZ_DTYPE_F64, 3, 40, 40, 40, 1, 65536);
    /* small and noisy chunks above are mostly stored (FORMAT.md 6.7): one
     * more stream of coded chunks only */
    ns += make_stream(&ss[ns], "smooth 3D 64x64x16 f32, 64 KiB chunks", GEN_SMOOTH, SCZ_DTYPE_F32, 3, 64, 64, 16, 1, 65536);
    if (scz_codec_available(SCZ_CODEC_LOSSY)) {
        ns += make_lossy_stream(&ss[ns], "lossy huffman smooth 3D 33x20x40 f32 ABS", GEN_SMOOTH, SCZ_DTYPE_F32, 3, 33, 20,
                                40, SCZ_EB_ABS, 1e-3, 1, 16384);
        ns += make_lossy_stream(&ss[ns], "lossy rle special 2D 70x50 f64 REL", GEN_SPECIAL, SCZ_DTYPE_F64, 2, 70, 50, 1,
                                SCZ_EB_REL, 1e-4, 2, 8192);
        ns += make_lossy_stream(&ss[ns], "lossy auto fill 1D 6000 f32 PSNR", GEN_FILL_VALUE, SCZ_DTYPE_F32, 1, 6000, 1, 1,
                                SCZ_EB_PSNR, 60, 0, 4096);
        ns += make_lossy_stream(&ss[ns], "lossy random bits 3D 9x8x7 f64 ABS", GEN_RANDOM_BITS, SCZ_DTYPE_F64, 3, 9, 8, 7,
                                SCZ_EB_ABS, 1e-2, 1, 0);
    } else {
        printf("lossy streams: SKIPPED (codec not built in)\n");
    }
    if (scz_codec_available(SCZ_CODEC_HUFFMAN)) {
        ns += make_int_stream(&ss[ns], "huffman u8 2D 300x40", SCZ_DTYPE_U8, 300, 40, 4096);
        ns += make_int_stream(&ss[ns], "huffman u16 2D 100x90", SCZ_DTYPE_U16, 100, 90, 8192);
        ns += make_int_stream(&ss[ns], "huffman u32 2D 64x100", SCZ_DTYPE_U32, 64, 100, 0);
    } else {
        printf("huffman streams: SKIPPED (codec not built in)\n");
    }
    tu_datafile *files;
    int nf = tu_data_files(&files);
    if (nf == 0) {
        printf("real data file stream: SKIPPED (no data files in $SCZ_DATA_DIR)\n");
    } else {
        /* the smallest file keeps the exhaustive parts quick */
        int best = 0;
        size_t bsz = SIZE_MAX;
        for (int i = 0; i < nf; i++)
            if (gen_bytes(&files[i].shape) < bsz) {
                bsz = gen_bytes(&files[i].shape);
                best = i;
            }
        ns += make_file_stream(&ss[ns], &files[best]);
    }
    free(files);

    for (int i = 0; i < ns; i++) {
        const stream *s = &ss[i];
        long d0 = decodes;
        double t1 = tu_now();
        test_intact(s);
        test_truncations(s);
        test_header_table_bytes(s);
        test_random_corruptions(s, 400 * scale, 100 * scale);
        test_resealed(s, 300 * scale);
        test_resealed_must_fail(s);
        test_absurd_headers(s);
        test_framing(s);
        printf("%-44s %8zu bytes, %2u chunks: %7ld decodes, %.2f s\n", s->name, s->n, s->num_chunks, decodes - d0,
               tu_now() - t1);
    }
    test_huge_claims();
    printf("resealed payload damage: %ld rejected by the codec, %ld decoded (undetectable by design)\n",
           rejected_resealed, accepted_resealed);
    printf("%ld decodes in %.2f s\n", decodes, tu_now() - t0);
    for (int i = 0; i < ns; i++) free_stream(&ss[i]);
    scz_ctx_destroy(ctx1);
    scz_ctx_destroy(ctx2);
    return tu_finish("test_invalid_streams");
}

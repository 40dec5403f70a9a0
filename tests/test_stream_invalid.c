/*
 * test_stream_invalid.c -- damaged table-last streams (docs/FORMAT.md
 * section 9) must be rejected with an error by the whole-buffer entry
 * points (scz_decompress, scz_inspect, scz_decompress_chunk) and by the
 * incremental decoder, never crash or write past a destination; and the
 * incremental decoder must never hand out a chunk that is not the right
 * one (it verifies each payload's checksum before decoding). For streams of
 * every built-in codec (many chunks, one chunk, an empty array):
 *   - every truncation length;
 *   - every byte damaged (two ways), and random multi-byte damage;
 *   - white-box: frames, table and footer edited under valid checksums
 *     (sizes, checksums, codec_info, chunk order, table offset, end
 *     marker), header flags switched between the layouts, absurd sizes;
 *   - trailing and leading bytes.
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

static scz_ctx *ctx;
static uint64_t rng = 0xABCDEF0123456789ull;
static uint64_t rnd(void) { return gen_splitmix64(&rng); }
static const char *st(scz_status s) { return scz_status_string(s); }
static int is_error(scz_status s) { return s > SCZ_OK && s < SCZ_ERR_INTERNAL; }


typedef struct tstream {
    char name[200];
    uint8_t *z;        /* table-last stream */
    size_t n;
    uint8_t *dec;      /* its correct decoding */
    size_t raw;
    uint64_t chunk_max;
    uint32_t nchunks;
    uint64_t frame[64]; /* offsets of the frames (first 64) */
    uint64_t table_off;
} tstream;

/* Compresses src into a table-last stream through an scz_cstream. */
static int make(tstream *t, const char *name, const scz_params *p, const scz_shape *s, const void *src,
                size_t raw) {
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    double range[2] = {0, 0};
    uint64_t fin;
    scz_value_range(s->dtype, src, raw / scz_dtype_size(s->dtype), &range[0], &range[1], &fin);
    scz_cstream *cs;
    scz_status r = scz_cstream_begin(ctx, p, s, range, SCZ_LAYOUT_TABLE_LAST, &cs);
    CHECK(r == SCZ_OK, "%s: begin: %s", name, st(r));
    if (r) return 0;
    size_t cap = scz_compress_bound(s, p) + 4096 + 64 * 64, off = 0;
    t->z = malloc(cap);
    for (;;) {
        const void *d;
        size_t k, used;
        while (scz_cstream_pull(cs, &d, &k) == SCZ_OK && k) {
            memcpy(t->z + t->n, d, k);
            t->n += k;
        }
        if (off == raw) break;
        r = scz_cstream_feed(cs, (const uint8_t *)src + off, raw - off, &used);
        CHECK(r == SCZ_OK, "%s: feed: %s", name, st(r));
        if (r) break;
        off += used;
    }
    const void *d;
    size_t k;
    uint64_t at;
    r = scz_cstream_end(cs, &d, &k, &at, NULL);
    CHECK(r == SCZ_OK && at == t->n, "%s: end", name);
    memcpy(t->z + t->n, d, k);
    t->n += k;
    scz_info in;
    scz_cstream_info(cs, &in);
    scz_cstream_free(cs);
    t->nchunks = in.num_chunks;
    t->chunk_max = in.num_chunks ? in.chunk_slab * (in.raw_bytes / in.shape.dims[in.shape.rank - 1]) : 0;
    t->raw = raw;
    t->dec = malloc(raw ? raw : 1);
    r = scz_decompress(ctx, t->z, t->n, t->dec, raw, NULL);
    CHECK(r == SCZ_OK, "%s: the intact stream decodes: %s (%s)", name, st(r), scz_ctx_last_error(ctx));
    if (scz_codec_is_lossless(p->codec)) CHECK(memcmp(t->dec, src, raw) == 0, "%s: bit-exact", name);
    uint64_t pos = SCZ_HEADER_SIZE;
    for (uint32_t i = 0; i < t->nchunks; i++) {
        if (i < 64) t->frame[i] = pos;
        pos += SCZ_FRAME_SIZE + get64(t->z + pos);
    }
    t->table_off = pos;
    CHECK(t->n == pos + scz__table_size(t->nchunks) + SCZ_FOOTER_SIZE, "%s: layout", name);
    return r == SCZ_OK;
}

/* Whole-buffer decode of an exact copy into a guarded destination. */
static scz_status whole(const tstream *t, const uint8_t *z, size_t n, const char *what) {
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, z, n);
    uint8_t *dst = tu_guarded_alloc(t->raw, 0x11);
    scz_status r = scz_decompress(ctx, c, n, dst, t->raw, NULL);
    if (!tu_guard_intact(dst, t->raw)) CHECK(0, "%s: wrote past the destination", what);
    if (r && !scz_ctx_last_error(ctx)[0]) CHECK(0, "%s: error without a message", what);
    scz_info in;
    scz_status ri = scz_inspect(c, n, &in);
    if (r == SCZ_OK && (ri != SCZ_OK || in.stream_bytes != n)) CHECK(0, "%s: decodes but does not inspect", what);
    free(dst);
    free(c);
    return r;
}

/* Incremental decode of z[0..n) fed in random pieces: the first error
 * (feed, pull or end) is returned; every chunk handed out must be the
 * right one. */
static scz_status incremental(const tstream *t, const uint8_t *z, size_t n, const char *what) {
    scz_dstream *ds;
    scz_dstream_begin(ctx, &ds);
    size_t cap = t->chunk_max ? (size_t)t->chunk_max : 1, off = 0, have = 0;
    uint8_t *buf = tu_guarded_alloc(cap, 0x22);
    scz_status r = SCZ_OK;
    for (int guard = 0; guard < 1000000 && !r; guard++) {
        size_t got;
        while ((r = scz_dstream_pull(ds, buf, cap, &got)) == SCZ_OK && got) {
            if (have + got > t->raw || memcmp(buf, t->dec + have, got) != 0) {
                CHECK(0, "%s: the decoder handed out a wrong chunk at raw offset %zu", what, have);
                r = SCZ_ERR_INTERNAL;
                break;
            }
            have += got;
        }
        if (!tu_guard_intact(buf, cap)) CHECK(0, "%s: pull wrote past the destination", what);
        if (r || off == n) break;
        size_t used, want = 1 + (size_t)(rnd() % 700);
        if (want > n - off) want = n - off;
        r = scz_dstream_feed(ds, z + off, want, &used);
        off += used;
        if (!r && used == 0 && scz_dstream_pull(ds, buf, cap, &got) == SCZ_OK && got == 0) {
            r = SCZ_ERR_CORRUPT; /* ended before n: trailing bytes, for this caller an error */
            break;
        }
        if (!r && used == 0) { /* a chunk was pulled in the test above */
            if (have + got > t->raw || memcmp(buf, t->dec + have, got) != 0) {
                CHECK(0, "%s: the decoder handed out a wrong chunk", what);
                r = SCZ_ERR_INTERNAL;
            }
            have += got;
        }
    }
    if (!r) r = scz_dstream_end(ds);
    if (r && r != SCZ_ERR_INTERNAL && !scz_ctx_last_error(ctx)[0] && off == n)
        CHECK(0, "%s: error %s without a message", what, st(r));
    if (r == SCZ_OK) CHECK(have == t->raw, "%s: decoded everything", what);
    scz_dstream_free(ds);
    free(buf);
    return r;
}

static void test_intact(const tstream *t) {
    CHECK(whole(t, t->z, t->n, t->name) == SCZ_OK, "%s: whole", t->name);
    CHECK(incremental(t, t->z, t->n, t->name) == SCZ_OK, "%s: incremental: %s", t->name, scz_ctx_last_error(ctx));
}

static void test_truncations(const tstream *t) {
    int bad = 0;
    for (size_t k = 0; k < t->n; k++) {
        char what[300];
        snprintf(what, sizeof what, "%s truncated to %zu", t->name, k);
        scz_status a = whole(t, t->z, k, what), b = incremental(t, t->z, k, what);
        if ((!is_error(a) || !is_error(b)) && bad++ < 5)
            CHECK(0, "%s: whole %s, incremental %s", what, st(a), st(b));
        if (k > SCZ_HEADER_SIZE && b != SCZ_ERR_TRUNCATED && bad++ < 5)
            CHECK(0, "%s: the incremental decoder says %s, not truncated", what, st(b));
    }
    CHECK(bad == 0, "%s: all %zu truncations rejected", t->name, t->n);
}

static void test_bytes(const tstream *t) {
    int bad = 0;
    uint8_t *c = malloc(t->n);
    for (size_t i = 0; i < t->n; i++) {
        for (int v = 0; v < 2; v++) {
            memcpy(c, t->z, t->n);
            c[i] ^= v ? 0xFF : 0x01;
            char what[300];
            snprintf(what, sizeof what, "%s byte %zu ^%02x", t->name, i, v ? 0xFF : 1);
            scz_status a = whole(t, c, t->n, what), b = incremental(t, c, t->n, what);
            if ((!is_error(a) || !is_error(b)) && bad++ < 5)
                CHECK(0, "%s accepted: whole %s, incremental %s", what, st(a), st(b));
        }
    }
    CHECK(bad == 0, "%s: every damaged byte rejected", t->name);
    for (int trial = 0; trial < 300; trial++) {
        memcpy(c, t->z, t->n);
        int k = 2 + (int)(rnd() % 8);
        for (int j = 0; j < k; j++) c[rnd() % t->n] = (uint8_t)rnd();
        if (memcmp(c, t->z, t->n) == 0) continue;
        scz_status a = whole(t, c, t->n, "random"), b = incremental(t, c, t->n, "random");
        if ((!is_error(a) || !is_error(b)) && bad++ < 5)
            CHECK(0, "%s: random damage %d accepted: %s %s", t->name, trial, st(a), st(b));
    }
    CHECK(bad == 0, "%s: random multi-byte damage rejected", t->name);
    free(c);
}

static void reseal_frame(uint8_t *f) { put64(f + 24, tu_xxh64(f, 24, 0)); }
static void reseal_table(const tstream *t, uint8_t *z) {
    uint64_t tb = (uint64_t)t->nchunks * SCZ_CHUNK_ENTRY_SIZE;
    put64(z + t->table_off + tb, tu_xxh64(z + t->table_off, tb, 0));
}

/* An edit under valid checksums must still be an error in both readers. */
static void expect_bad(const tstream *t, const uint8_t *c, size_t n, const char *edit, scz_status want) {
    char what[300];
    snprintf(what, sizeof what, "%s: %s", t->name, edit);
    scz_status a = whole(t, c, n, what), b = incremental(t, c, n, what);
    CHECK(is_error(a) && is_error(b), "%s: whole %s, incremental %s", what, st(a), st(b));
    if (want) CHECK(a == want && b == want, "%s: %s and %s, expected %s (%s)", what, st(a), st(b), st(want),
                    scz_ctx_last_error(ctx));
}

static void test_resealed(const tstream *t) {
    uint8_t *c = malloc(t->n + 64);
    uint32_t nf = t->nchunks < 64 ? t->nchunks : 64;
    for (uint32_t i = 0; i < nf; i++) {
        uint8_t *f;
        /* size one more or less: the walk and the payload checksum disagree */
        for (int d = -1; d <= 1; d += 2) {
            memcpy(c, t->z, t->n);
            f = c + t->frame[i];
            if (d < 0 && get64(f) == 0) continue;
            put64(f, get64(f) + (uint64_t)(int64_t)d);
            reseal_frame(f);
            expect_bad(t, c, t->n, d > 0 ? "frame size + 1" : "frame size - 1", 0);
        }
        memcpy(c, t->z, t->n);
        f = c + t->frame[i];
        put64(f + 8, get64(f + 8) ^ 1);
        reseal_frame(f);
        expect_bad(t, c, t->n, "frame checksum field changed", 0); /* table differs / payload checksum */
        memcpy(c, t->z, t->n);
        f = c + t->frame[i];
        put32(f + 16, 7);
        reseal_frame(f);
        expect_bad(t, c, t->n, "frame codec_info changed", 0);
        memcpy(c, t->z, t->n);
        f = c + t->frame[i];
        put32(f + 20, i + 1);
        reseal_frame(f);
        expect_bad(t, c, t->n, "frame of another chunk", SCZ_ERR_CORRUPT);
        memcpy(c, t->z, t->n);
        f = c + t->frame[i];
        put64(f, (uint64_t)1 << 62);
        reseal_frame(f);
        expect_bad(t, c, t->n, "frame with an absurd size", 0);
        /* the table disagrees with the frame */
        for (int field = 0; field < 5; field++) {
            memcpy(c, t->z, t->n);
            uint8_t *e = c + t->table_off + (uint64_t)i * SCZ_CHUNK_ENTRY_SIZE;
            if (field < 3) put64(e + 8 * field, get64(e + 8 * field) + 1);
            else put32(e + 24 + 4 * (field - 3), 9);
            reseal_table(t, c);
            expect_bad(t, c, t->n, "table entry differs from the frame", SCZ_ERR_CORRUPT);
        }
    }
    /* two chunks swapped, frames and table consistent but out of order */
    if (t->nchunks >= 2) {
        uint64_t a = t->frame[0], b = t->frame[1], la = t->frame[1] - a, lb = (nf > 2 ? t->frame[2] : t->table_off) - b;
        memcpy(c, t->z, t->n);
        memcpy(c + a, t->z + b, lb);
        memcpy(c + a + lb, t->z + a, la);
        expect_bad(t, c, t->n, "chunks 0 and 1 swapped", SCZ_ERR_CORRUPT);
    }
    /* footer: table offset, end marker */
    memcpy(c, t->z, t->n);
    put64(c + t->n - 16, t->table_off + 1);
    expect_bad(t, c, t->n, "footer table offset", SCZ_ERR_CORRUPT);
    memcpy(c, t->z, t->n);
    c[t->n - 1] ^= 0x40;
    expect_bad(t, c, t->n, "end marker", SCZ_ERR_CORRUPT);
    /* the header flag switched off: a table-first reading of frames */
    memcpy(c, t->z, t->n);
    c[15] = 0;
    tu_reseal_header(c);
    expect_bad(t, c, t->n, "table-last stream with flags 0", 0);
    memcpy(c, t->z, t->n);
    c[15] = 3;
    tu_reseal_header(c);
    expect_bad(t, c, t->n, "unknown flag bit", SCZ_ERR_UNSUPPORTED);
    /* trailing bytes (the whole-buffer reader refuses; the incremental one
     * stops at the end, which this caller counts as an error) and leading ones */
    memcpy(c, t->z, t->n);
    memset(c + t->n, 0, 64);
    CHECK(whole(t, c, t->n + 5, "trailing") == SCZ_ERR_CORRUPT, "%s: trailing bytes refused", t->name);
    CHECK(incremental(t, c, t->n + 5, "trailing") == SCZ_ERR_CORRUPT, "%s: the decoder stops at the end", t->name);
    c[0] = 0;
    memcpy(c + 1, t->z, t->n);
    expect_bad(t, c, t->n + 1, "a leading byte", SCZ_ERR_NOT_SCZ);
    free(c);
}

/* A table-first stream claiming the table-last layout. */
static void test_flag_on_table_first(void) {
    scz_shape s = {SCZ_DTYPE_F32, 2, {70, 60, 1, 1}};
    size_t raw;
    void *a = gen_field(GEN_SMOOTH, &s, 4, &raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 4096;
    size_t n;
    uint8_t *z = tu_compress(ctx, &p, &s, a, &n, "table first");
    z[15] = 1;
    tu_reseal_header(z);
    uint8_t *dst = malloc(raw);
    CHECK(is_error(scz_decompress(ctx, z, n, dst, raw, NULL)), "a table-first stream with flag 1 is refused");
    tstream t;
    memset(&t, 0, sizeof t);
    t.raw = raw;
    t.dec = a;
    t.chunk_max = raw;
    CHECK(is_error(incremental(&t, z, n, "flag on table-first")), "incremental: refused");
    free(dst);
    free(z);
    free(a);
}

static void run(tstream *t, int exhaustive) {
    test_intact(t);
    test_truncations(t);
    if (exhaustive) test_bytes(t);
    test_resealed(t);
    free(t->z);
    free(t->dec);
}

int main(void) {
    if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK) return 1;
    scz_ctx_set_threads(ctx, 1);
    tstream t;
    scz_params p;
    size_t raw;

    scz_shape s1 = {SCZ_DTYPE_F32, 3, {20, 9, 17, 1}};
    void *a = gen_field(GEN_NOISY, &s1, 5, &raw);
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 4096;
    if (make(&t, "ndzip f32 many chunks", &p, &s1, a, raw)) run(&t, 1);
    free(a);

    scz_shape s2 = {SCZ_DTYPE_F64, 1, {300, 1, 1, 1}};
    a = gen_field(GEN_SPECIAL, &s2, 6, &raw);
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    if (make(&t, "ndzip f64 one chunk", &p, &s2, a, raw)) run(&t, 1);
    free(a);

    scz_shape s3 = {SCZ_DTYPE_F32, 2, {0, 5, 1, 1}};
    a = gen_field(GEN_SMOOTH, &s3, 6, &raw);
    if (make(&t, "empty array", &p, &s3, a, raw)) run(&t, 1);
    free(a);

    if (scz_codec_available(SCZ_CODEC_LOSSY)) {
        scz_shape s4 = {SCZ_DTYPE_F32, 2, {64, 40, 1, 1}};
        a = gen_field(GEN_SMOOTH, &s4, 7, &raw);
        scz_params_init(&p, SCZ_CODEC_LOSSY);
        p.eb_mode = SCZ_EB_REL;
        p.eb = 1e-3;
        p.chunk_bytes = 4096;
        if (make(&t, "lossy f32 REL", &p, &s4, a, raw)) run(&t, 1);
        free(a);
    }
    if (scz_codec_available(SCZ_CODEC_HUFFMAN)) {
        scz_shape s5 = {SCZ_DTYPE_U16, 1, {6000, 1, 1, 1}};
        uint16_t *u = malloc(6000 * 2);
        for (int i = 0; i < 6000; i++) u[i] = (uint16_t)(i / 50 % 7 + (i % 13 == 0 ? i : 0));
        scz_params_init(&p, SCZ_CODEC_HUFFMAN);
        p.chunk_bytes = 4096;
        if (make(&t, "huffman u16", &p, &s5, u, 12000)) run(&t, 1);
        free(u);
    }
    test_flag_on_table_first();
    scz_ctx_destroy(ctx);
    return tu_finish("test_stream_invalid");
}

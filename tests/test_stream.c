/*
 * test_stream.c -- the incremental API (scz.h, "arrays larger than
 * memory"): scz_cstream_* and scz_dstream_* against the whole-buffer API.
 * For every codec and dtype, shapes with 0 elements, one element, one
 * chunk, many chunks and chunk sizes that do not divide the array, rank 1-4,
 * both layouts, fed in whole arrays, random pieces and tiny pieces:
 *   - a table-first stream is byte for byte the one scz_compress writes;
 *   - a table-last stream holds the same payloads, and scz_inspect,
 *     scz_inspect_chunk, scz_decompress and scz_decompress_chunk read it;
 *   - the incremental decoder reads both layouts (and scz_compress's
 *     streams) and decodes what scz_decompress decodes;
 *   - scz_cstream_decode gives the same chunks back;
 * then the contract of each call: misuse, sticky errors, trailing bytes,
 * a too small destination, REL/PSNR bounds from a value range.
 */
#include "format/container.h"
#include "gen.h"
#include "testutil.h"

#include <string.h>

static const char *st(scz_status s) { return scz_status_string(s); }
static scz_ctx *ctx;
static uint64_t rng = 0x5EED5EED12345678ull;
static uint64_t rnd(void) { return gen_splitmix64(&rng); }

enum { FEED_WHOLE, FEED_RANDOM, FEED_TINY };

static int same_chunk(const scz_chunk_info *a, const scz_chunk_info *b) {
    return a->offset == b->offset && a->size == b->size && a->checksum == b->checksum &&
           a->raw_offset == b->raw_offset && a->raw_bytes == b->raw_bytes && a->codec_info == b->codec_info;
}

/* Piece size for a feed pattern. */
static size_t piece(int pattern, size_t left, uint64_t chunk) {
    size_t k;
    if (pattern == FEED_WHOLE) k = left;
    else if (pattern == FEED_TINY) k = 1 + (size_t)(rnd() % 97);
    else k = 1 + (size_t)(rnd() % (3 * chunk + 1));
    return k < left ? k : left;
}

typedef struct written {
    uint8_t *z;
    size_t n, cap;
    uint8_t *dec;     /* scz_cstream_decode's chunks, in order */
    size_t ndec;
} written;

static void append(written *w, const void *p, size_t n) {
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 256;
        w->z = realloc(w->z, w->cap);
    }
    memcpy(w->z + w->n, p, n);
    w->n += n;
}

/* Compresses src through an scz_cstream into w (a seekable file in memory:
 * pulled bytes appended, the final bytes written at their offset). */
static scz_status cs_write(const scz_params *p, const scz_shape *s, const void *src, size_t raw,
                           const double *range, scz_layout layout, int pattern, written *w, const char *what) {
    memset(w, 0, sizeof *w);
    w->dec = malloc(raw ? raw : 1);
    scz_cstream *cs;
    scz_status r = scz_cstream_begin(ctx, p, s, range, layout, &cs);
    if (r) return r;
    /* passes over the array where the bound needs them (REL/PSNR) */
    const uint8_t *in = src;
    int passes = 0;
    while (!r && scz_cstream_pass_needed(cs) && passes < 30) {
        const void *d;
        size_t k, used;
        CHECK(scz_cstream_pull(cs, &d, &k) == SCZ_OK && k == 0, "%s: no bytes before the passes end", what);
        CHECK(scz_cstream_feed(cs, in, raw, &used) == SCZ_ERR_ARG, "%s: no feeding during the passes", what);
        for (size_t off = 0; !r && off < raw;) {
            size_t want = piece(pattern == FEED_WHOLE ? FEED_RANDOM : pattern, raw - off, 5000);
            r = scz_cstream_pass_feed(cs, in + off, want);
            off += want;
        }
        if (!r) r = scz_cstream_pass_end(cs);
        passes++;
    }
    CHECK(r || !scz_cstream_pass_needed(cs), "%s: the passes end", what);
    if (!scz_codec_is_lossless(p->codec) && p->eb_mode != SCZ_EB_ABS && raw)
        CHECK(passes >= (range ? 0 : 1), "%s: %d passes", what, passes);
    else
        CHECK(passes == 0, "%s: %d passes where none is needed", what, passes);
    if (r) {
        scz_cstream_free(cs);
        return r;
    }
    scz_info info;
    CHECK(scz_cstream_info(cs, &info) == SCZ_OK && info.raw_bytes == raw, "%s: cstream info", what);
    uint64_t chunk = info.num_chunks ? info.chunk_slab * (raw / s->dims[s->rank - 1]) : 1;
    uint8_t *cbuf = malloc(chunk ? chunk : 1);
    size_t off = 0;
    int stalls = 0;
    for (;;) {
        const void *d;
        size_t k;
        while ((r = scz_cstream_pull(cs, &d, &k)) == SCZ_OK && k) append(w, d, k);
        if (r) break;
        size_t got;
        while ((r = scz_cstream_decode(cs, cbuf, (size_t)chunk, &got)) == SCZ_OK && got) {
            CHECK(w->ndec + got <= raw, "%s: decoded chunks stay within the array", what);
            if (w->ndec + got <= raw) memcpy(w->dec + w->ndec, cbuf, got);
            w->ndec += got;
        }
        if (r || off == raw) break;
        size_t used, want = piece(pattern, raw - off, chunk);
        r = scz_cstream_feed(cs, in + off, want, &used);
        if (r) break;
        CHECK(used <= want, "%s: feed took more than given", what);
        if (used == 0 && ++stalls > 3) {
            CHECK(0, "%s: feed takes nothing with no bytes waiting", what);
            r = SCZ_ERR_INTERNAL;
            break;
        }
        if (used) stalls = 0;
        off += used;
    }
    if (!r) {
        const void *d;
        size_t k;
        uint64_t at, total;
        r = scz_cstream_end(cs, &d, &k, &at, &total);
        if (!r) {
            if (layout == SCZ_LAYOUT_TABLE_FIRST) {
                CHECK(at == 0 && k <= w->n, "%s: table-first end bytes go to offset 0", what);
                if (at == 0 && k <= w->n) memcpy(w->z, d, k);
            } else {
                CHECK(at == w->n, "%s: table-last end bytes are appended (%llu vs %zu)", what,
                      (unsigned long long)at, w->n);
                append(w, d, k);
            }
            CHECK(total == w->n, "%s: stream size %llu, written %zu", what, (unsigned long long)total, w->n);
            CHECK(scz_cstream_info(cs, &info) == SCZ_OK, "%s: info after end", what);
            for (uint32_t i = 0; i < info.num_chunks; i++) {
                scz_chunk_info a, b;
                CHECK(scz_cstream_inspect_chunk(cs, i, &a) == SCZ_OK && scz_inspect_chunk(w->z, w->n, i, &b) == SCZ_OK &&
                          same_chunk(&a, &b),
                      "%s: scz_cstream_inspect_chunk %u", what, i);
            }
            scz_chunk_info a;
            CHECK(scz_cstream_inspect_chunk(cs, info.num_chunks, &a) == SCZ_ERR_ARG, "%s: no chunk past the last",
                  what);
        }
    }
    free(cbuf);
    scz_cstream_free(cs);
    return r;
}

/* Decodes z through an scz_dstream; *out receives the array. */
static scz_status ds_read(const uint8_t *z, size_t n, int pattern, uint8_t **out, size_t *raw, const char *what) {
    scz_dstream *ds;
    *out = NULL;
    *raw = 0;
    scz_status r = scz_dstream_begin(ctx, &ds);
    if (r) return r;
    scz_info info;
    CHECK(scz_dstream_info(ds, &info) == SCZ_ERR_ARG, "%s: no info before the header", what);
    uint8_t *buf = NULL, *cbuf = NULL;
    size_t have = 0, off = 0, cap = 0;
    int infod = 0;
    while (!r) {
        size_t got;
        while (cbuf && (r = scz_dstream_pull(ds, cbuf, cap, &got)) == SCZ_OK && got) {
            CHECK(have + got <= info.raw_bytes, "%s: chunks stay within the array", what);
            if (have + got <= info.raw_bytes) memcpy(buf + have, cbuf, got);
            have += got;
        }
        if (r || off == n) break;
        size_t used, want = piece(pattern, n - off, cap ? cap / 2 + 1 : 4096);
        r = scz_dstream_feed(ds, z + off, want, &used);
        off += used;
        if (r) break;
        if (!infod && scz_dstream_info(ds, &info) == SCZ_OK) {
            infod = 1;
            buf = malloc(info.raw_bytes ? info.raw_bytes : 1);
            uint64_t slow = info.shape.dims[info.shape.rank - 1];
            cap = info.raw_bytes ? (size_t)(info.chunk_slab * (info.raw_bytes / slow)) : 1;
            cbuf = malloc(cap);
        }
        if (used == 0) { /* only with a chunk waiting: this stream ends where z does */
            if (!cbuf || scz_dstream_pull(ds, cbuf, cap, &got) != SCZ_OK || got == 0) {
                CHECK(0, "%s: decoder stopped at %zu of %zu bytes", what, off, n);
                r = SCZ_ERR_INTERNAL;
                break;
            }
            memcpy(buf + have, cbuf, got);
            have += got;
        }
    }
    if (!r) r = scz_dstream_end(ds);
    for (uint32_t i = 0; !r && i < info.num_chunks; i++) {
        scz_chunk_info a, b;
        CHECK(scz_dstream_inspect_chunk(ds, i, &a) == SCZ_OK && scz_inspect_chunk(z, n, i, &b) == SCZ_OK &&
                  same_chunk(&a, &b),
              "%s: scz_dstream_inspect_chunk %u", what, i);
    }
    if (!r) {
        CHECK(have == info.raw_bytes, "%s: decoded %zu of %llu bytes", what, have, (unsigned long long)info.raw_bytes);
        CHECK(scz_dstream_info(ds, &info) == SCZ_OK && info.stream_bytes == n, "%s: stream_bytes %llu of %zu", what,
              (unsigned long long)info.stream_bytes, n);
        *out = buf;
        *raw = have;
        buf = NULL;
    }
    free(buf);
    free(cbuf);
    scz_dstream_free(ds);
    return r;
}

/* Value range of an array computed piece by piece (as a caller that
 * cannot hold it would). */
static void range_of(scz_dtype t, const uint8_t *a, size_t raw, double range[2]) {
    size_t es = scz_dtype_size(t), step = 1000 * es;
    double lo = 0, hi = 0;
    uint64_t fin = 0;
    for (size_t o = 0; o < raw; o += step) {
        size_t k = raw - o < step ? raw - o : step;
        double a0, a1;
        uint64_t f;
        scz_value_range(t, a + o, k / es, &a0, &a1, &f);
        if (!f) continue;
        if (!fin || a0 < lo) lo = a0;
        if (!fin || a1 > hi) hi = a1;
        fin += f;
    }
    range[0] = lo;
    range[1] = hi;
}

typedef struct tcase {
    const char *name;
    scz_codec codec;
    scz_dtype dtype;
    scz_eb_mode mode;
    double eb;
    uint32_t level; /* lossy knobs[2] */
} tcase;

static void *make_data(const tcase *c, const scz_shape *s, size_t *raw) {
    if (c->dtype == SCZ_DTYPE_F32 || c->dtype == SCZ_DTYPE_F64)
        return gen_field(c->codec == SCZ_CODEC_LOSSY ? GEN_SMOOTH : GEN_NOISY, s, 11, raw);
    size_t es = scz_dtype_size(c->dtype), n = (size_t)gen_count(s);
    *raw = n * es;
    uint8_t *p = malloc(*raw ? *raw : 1);
    uint64_t r = 3;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = gen_splitmix64(&r);
        uint32_t v = (uint32_t)(i / 31 % 11 + (h % 5 == 0 ? h % 200 : 0));
        memcpy(p + i * es, &v, es);
    }
    return p;
}

/* One codec x shape x chunk size: every check of the header comment. */
static void run_case(const tcase *c, const gen_shape_def *sd, uint64_t chunk_bytes) {
    char what[300];
    scz_shape s = gen_shape(sd, c->dtype);
    snprintf(what, sizeof what, "%s %s chunk %llu", c->name, sd->name, (unsigned long long)chunk_bytes);
    size_t raw;
    uint8_t *src = make_data(c, &s, &raw);
    scz_params p;
    scz_params_init(&p, c->codec);
    p.eb_mode = c->mode;
    p.eb = c->eb;
    if (c->codec == SCZ_CODEC_LOSSY) p.knobs[2] = c->level;
    p.chunk_bytes = chunk_bytes;
    double range[2];
    range_of(c->dtype, src, raw, range);

    /* the whole-buffer reference */
    size_t ref_n;
    uint8_t *ref = tu_compress(ctx, &p, &s, src, &ref_n, what);
    if (!ref) {
        free(src);
        return;
    }
    scz_info ri;
    CHECK(scz_inspect(ref, ref_n, &ri) == SCZ_OK, "%s: inspect reference", what);
    uint8_t *ref_dec = malloc(raw ? raw : 1);
    scz_status r = scz_decompress(ctx, ref, ref_n, ref_dec, raw, NULL);
    CHECK(r == SCZ_OK, "%s: reference decodes: %s", what, st(r));
    if (scz_codec_is_lossless(c->codec)) CHECK(memcmp(ref_dec, src, raw) == 0, "%s: reference bit-exact", what);

    for (int layout = 0; layout < 2; layout++) {
        for (int pattern = FEED_WHOLE; pattern <= FEED_TINY; pattern++) {
            if (pattern == FEED_TINY && raw > 200000) continue;
            char w2[400];
            snprintf(w2, sizeof w2, "%s, %s, feed %s", what, layout ? "table last" : "table first",
                     pattern == FEED_WHOLE ? "whole" : pattern == FEED_RANDOM ? "random" : "tiny");
            written w;
            /* the range given, or found by a pass */
            r = cs_write(&p, &s, src, raw, pattern == FEED_RANDOM ? range : NULL, (scz_layout)layout, pattern, &w,
                         w2);
            CHECK(r == SCZ_OK, "%s: cstream: %s (%s)", w2, st(r), scz_ctx_last_error(ctx));
            if (r) {
                free(w.z);
                free(w.dec);
                continue;
            }
            CHECK(w.ndec == raw && memcmp(w.dec, ref_dec, raw) == 0, "%s: scz_cstream_decode gives the chunks back",
                  w2);
            if (layout == SCZ_LAYOUT_TABLE_FIRST) {
                CHECK(w.n == ref_n && memcmp(w.z, ref, ref_n) == 0, "%s: byte-identical to scz_compress", w2);
            } else {
                scz_info li;
                CHECK(scz_inspect(w.z, w.n, &li) == SCZ_OK && li.stream_bytes == w.n &&
                          li.num_chunks == ri.num_chunks && li.chunk_slab == ri.chunk_slab && li.eb_abs == ri.eb_abs &&
                          li.raw_bytes == ri.raw_bytes,
                      "%s: scz_inspect reads the table-last stream", w2);
                CHECK(w.n == ref_n + (size_t)ri.num_chunks * SCZ_FRAME_SIZE + SCZ_FOOTER_SIZE,
                      "%s: table-last size = table-first + frames + footer", w2);
                for (uint32_t i = 0; i < ri.num_chunks; i++) {
                    scz_chunk_info a, b;
                    CHECK(scz_inspect_chunk(ref, ref_n, i, &a) == SCZ_OK &&
                              scz_inspect_chunk(w.z, w.n, i, &b) == SCZ_OK && a.size == b.size &&
                              a.checksum == b.checksum && a.codec_info == b.codec_info &&
                              a.raw_offset == b.raw_offset && memcmp(ref + a.offset, w.z + b.offset, a.size) == 0,
                          "%s: chunk %u: the same payload in both layouts", w2, i);
                    uint8_t *one = tu_guarded_alloc(b.raw_bytes, 0x55);
                    r = scz_decompress_chunk(ctx, w.z, w.n, i, one, b.raw_bytes);
                    CHECK(r == SCZ_OK && memcmp(one, ref_dec + b.raw_offset, b.raw_bytes) == 0 &&
                              tu_guard_intact(one, b.raw_bytes),
                          "%s: scz_decompress_chunk %u of the table-last stream: %s", w2, i, st(r));
                    free(one);
                }
                uint8_t *dec = tu_guarded_alloc(raw, 0x33);
                r = scz_decompress(ctx, w.z, w.n, dec, raw, NULL);
                CHECK(r == SCZ_OK && memcmp(dec, ref_dec, raw) == 0 && tu_guard_intact(dec, raw),
                      "%s: scz_decompress reads the table-last stream: %s (%s)", w2, st(r), scz_ctx_last_error(ctx));
                free(dec);
            }
            /* the incremental decoder, fed in pieces */
            uint8_t *dec;
            size_t dn;
            r = ds_read(w.z, w.n, pattern == FEED_WHOLE ? FEED_RANDOM : pattern, &dec, &dn, w2);
            CHECK(r == SCZ_OK && dn == raw && memcmp(dec, ref_dec, raw) == 0, "%s: dstream decodes it: %s (%s)", w2,
                  st(r), scz_ctx_last_error(ctx));
            free(dec);
            free(w.z);
            free(w.dec);
        }
    }
    /* scz_compress's own stream, fed whole */
    uint8_t *dec;
    size_t dn;
    r = ds_read(ref, ref_n, FEED_WHOLE, &dec, &dn, what);
    CHECK(r == SCZ_OK && dn == raw && memcmp(dec, ref_dec, raw) == 0, "%s: dstream decodes scz_compress's stream: %s",
          what, st(r));
    free(dec);
    free(ref_dec);
    free(ref);
    free(src);
}

static const tcase cases[] = {
    {"ndzip f32", SCZ_CODEC_NDZIP, SCZ_DTYPE_F32, SCZ_EB_NONE, 0, 0},
    {"ndzip f64", SCZ_CODEC_NDZIP, SCZ_DTYPE_F64, SCZ_EB_NONE, 0, 0},
    {"lossy f32 ABS", SCZ_CODEC_LOSSY, SCZ_DTYPE_F32, SCZ_EB_ABS, 1e-3, 0},
    {"lossy f64 REL", SCZ_CODEC_LOSSY, SCZ_DTYPE_F64, SCZ_EB_REL, 1e-4, 0},
    {"lossy f32 PSNR", SCZ_CODEC_LOSSY, SCZ_DTYPE_F32, SCZ_EB_PSNR, 60, 0},
    {"lossy f32 REL", SCZ_CODEC_LOSSY, SCZ_DTYPE_F32, SCZ_EB_REL, 1e-3, 0},
    {"lossy f32 REL level 1", SCZ_CODEC_LOSSY, SCZ_DTYPE_F32, SCZ_EB_REL, 1e-2, 1},
    {"lossy f64 PSNR level 1", SCZ_CODEC_LOSSY, SCZ_DTYPE_F64, SCZ_EB_PSNR, 70, 1},
    {"huffman u8", SCZ_CODEC_HUFFMAN, SCZ_DTYPE_U8, SCZ_EB_NONE, 0, 0},
    {"huffman u16", SCZ_CODEC_HUFFMAN, SCZ_DTYPE_U16, SCZ_EB_NONE, 0, 0},
    {"huffman u32", SCZ_CODEC_HUFFMAN, SCZ_DTYPE_U32, SCZ_EB_NONE, 0, 0},
};

static const gen_shape_def shapes[] = {
    {"2d_0x7 (0 elements)", 2, {0, 7, 1, 1}},
    {"1d_1 (1 element)", 1, {1, 1, 1, 1}},
    {"3d_20x10x6 (1 chunk)", 3, {20, 10, 6, 1}},
    {"1d_10007 (chunks do not divide it)", 1, {10007, 1, 1, 1}},
    {"3d_33x17x40 (many chunks)", 3, {33, 17, 40, 1}},
    {"4d_9x5x4x7", 4, {9, 5, 4, 7}},
    {"2d_1x3000", 2, {1, 3000, 1, 1}},
};

static void test_matrix(void) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (!scz_codec_available(cases[c].codec)) continue;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            run_case(&cases[c], &shapes[k], 4096);
            if (k == 2 || k == 4) run_case(&cases[c], &shapes[k], 0); /* default chunk size: one chunk */
        }
    }
    /* a larger array with many 64 KiB chunks, fed in random pieces */
    gen_shape_def big = {"3d_64x64x70", 3, {64, 64, 70, 1}};
    run_case(&cases[0], &big, 65536);
    run_case(&cases[3], &big, 65536);
}

/* ---- the contract of each call ---- */

static void test_contract(void) {
    scz_shape s = {SCZ_DTYPE_F32, 1, {5000, 1, 1, 1}};
    size_t raw;
    float *a = gen_field(GEN_SMOOTH, &s, 1, &raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 4096;
    scz_cstream *cs = NULL;
    scz_status r;
    uint64_t at0;

    CHECK(scz_cstream_begin(NULL, &p, &s, NULL, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_ERR_ARG, "begin without ctx");
    CHECK(scz_cstream_begin(ctx, &p, &s, NULL, (scz_layout)7, &cs) == SCZ_ERR_ARG && cs == NULL &&
              scz_ctx_last_error(ctx)[0],
          "begin with an unknown layout");
    CHECK(scz_cstream_begin(ctx, &p, &s, NULL, SCZ_LAYOUT_TABLE_FIRST, NULL) == SCZ_ERR_ARG, "begin without out");
    scz_params bad = p;
    bad.eb_mode = SCZ_EB_REL;
    bad.eb = 1e-3;
    CHECK(scz_cstream_begin(ctx, &bad, &s, NULL, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_ERR_ARG, "lossless with a bound");

    /* REL/PSNR need the value range */
    scz_params lp;
    scz_params_init(&lp, SCZ_CODEC_LOSSY);
    lp.eb_mode = SCZ_EB_REL;
    lp.eb = 1e-3;
    if (scz_codec_available(SCZ_CODEC_LOSSY)) {
        /* without a range: a pass finds it */
        r = scz_cstream_begin(ctx, &lp, &s, NULL, SCZ_LAYOUT_TABLE_FIRST, &cs);
        CHECK(r == SCZ_OK && scz_cstream_pass_needed(cs) == 1, "REL without a range: a pass: %s", st(r));
        size_t u0;
        const void *d0;
        CHECK(scz_cstream_feed(cs, a, raw, &u0) == SCZ_ERR_ARG, "no feeding before the pass");
        CHECK(scz_cstream_end(cs, &d0, &u0, &at0, NULL) == SCZ_ERR_ARG, "no end before the pass");
        CHECK(scz_cstream_pass_feed(cs, a, 7) == SCZ_OK && scz_cstream_pass_end(cs) == SCZ_ERR_ARG,
              "a pass needs the whole array");
        CHECK(scz_cstream_pass_feed(cs, (uint8_t *)a + 7, raw) == SCZ_ERR_ARG, "a pass past the array");
        CHECK(scz_cstream_pass_feed(cs, (uint8_t *)a + 7, raw - 7) == SCZ_OK && scz_cstream_pass_end(cs) == SCZ_OK &&
                  scz_cstream_pass_needed(cs) == 0,
              "one pass (in pieces that split values) for REL");
        CHECK(scz_cstream_pass_feed(cs, a, 4) == SCZ_ERR_ARG && scz_cstream_pass_end(cs) == SCZ_ERR_ARG,
              "no pass once none is needed");
        scz_info ri2;
        double rr[2];
        uint64_t ff;
        scz_value_range(SCZ_DTYPE_F32, a, raw / 4, &rr[0], &rr[1], &ff);
        CHECK(scz_cstream_info(cs, &ri2) == SCZ_OK && ri2.eb_abs == 1e-3 * (rr[1] - rr[0]),
              "REL bound from the pass: %.17g", ri2.eb_abs);
        scz_cstream_free(cs);
        CHECK(scz_cstream_pass_needed(NULL) == 0, "pass_needed(NULL)");
        /* PSNR: the range pass, then at least one error pass */
        scz_params pp = lp;
        pp.eb_mode = SCZ_EB_PSNR;
        pp.eb = 70;
        int np = 0;
        CHECK(scz_cstream_begin(ctx, &pp, &s, NULL, SCZ_LAYOUT_TABLE_LAST, &cs) == SCZ_OK, "PSNR begin");
        while (scz_cstream_pass_needed(cs) && np < 30) {
            CHECK(scz_cstream_pass_feed(cs, a, raw) == SCZ_OK && scz_cstream_pass_end(cs) == SCZ_OK, "PSNR pass");
            np++;
        }
        scz_info pi;
        size_t pzn;
        uint8_t *pz = tu_compress(ctx, &pp, &s, a, &pzn, "PSNR reference");
        scz_info pzi;
        CHECK(np >= 2 && scz_cstream_info(cs, &pi) == SCZ_OK && pz && scz_inspect(pz, pzn, &pzi) == SCZ_OK &&
                  pi.eb_abs == pzi.eb_abs,
              "PSNR: %d passes, the bound of scz_compress (%.17g, %.17g)", np, pi.eb_abs, pz ? pzi.eb_abs : 0.0);
        free(pz);
        scz_cstream_free(cs);
        scz_params bp = lp;
        bp.knobs[0] = 1u << 30;
        CHECK(scz_cstream_begin(ctx, &bp, &s, NULL, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_ERR_ARG,
              "bad knobs refused at begin, before any pass");
        double rev[2] = {1, 0}, inf[2] = {0, 1.0 / 0.0}, wide[2] = {-1e300, 1e300};
        CHECK(scz_cstream_begin(ctx, &lp, &s, rev, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_ERR_ARG, "range min > max");
        CHECK(scz_cstream_begin(ctx, &lp, &s, inf, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_ERR_ARG, "infinite range");
        CHECK(scz_cstream_begin(ctx, &lp, &s, wide, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_ERR_ARG,
              "range beyond float32");
        /* ABS needs none; the range of an empty array is not needed either */
        scz_params ap = lp;
        ap.eb_mode = SCZ_EB_ABS;
        CHECK(scz_cstream_begin(ctx, &ap, &s, NULL, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_OK, "ABS without a range");
        scz_info in;
        CHECK(scz_cstream_info(cs, &in) == SCZ_OK && in.eb_abs == 1e-3, "ABS bound used");
        scz_cstream_free(cs);
        scz_shape e = {SCZ_DTYPE_F32, 2, {0, 3, 1, 1}};
        CHECK(scz_cstream_begin(ctx, &lp, &e, NULL, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_OK, "REL on an empty array");
        scz_cstream_free(cs);
        /* a range in decimal is taken to the nearest float32 values: the
         * bound is that of an array with exactly this range */
        double odd[2] = {0.1, 0.7};
        CHECK(scz_cstream_begin(ctx, &lp, &s, odd, SCZ_LAYOUT_TABLE_FIRST, &cs) == SCZ_OK, "REL with a range");
        CHECK(scz_cstream_info(cs, &in) == SCZ_OK && in.eb_abs == 1e-3 * ((double)0.7f - (double)0.1f),
              "REL bound from the given range: %.17g", in.eb_abs);
        scz_cstream_free(cs);
    }

    /* misuse while streaming: not sticky */
    CHECK(scz_cstream_begin(ctx, &p, &s, NULL, SCZ_LAYOUT_TABLE_LAST, &cs) == SCZ_OK, "begin");
    const void *d;
    size_t k, used;
    uint64_t at, total;
    CHECK(scz_cstream_feed(cs, a, 100, &used) == SCZ_OK && used == 0, "no bytes taken while the header waits");
    CHECK(scz_cstream_end(cs, &d, &k, &at, &total) == SCZ_ERR_ARG, "end before the array was fed");
    written w;
    memset(&w, 0, sizeof w);
    CHECK(scz_cstream_pull(cs, &d, &k) == SCZ_OK && k == SCZ_HEADER_SIZE, "header first");
    append(&w, d, k);
    CHECK(scz_cstream_pull(cs, &d, &k) == SCZ_OK && k == 0, "then nothing");
    CHECK(scz_cstream_feed(cs, a, raw + 1, &used) == SCZ_ERR_ARG && used == 0, "feeding past the array");
    CHECK(scz_cstream_feed(cs, NULL, 5, &used) == SCZ_ERR_ARG, "NULL src");
    CHECK(scz_cstream_feed(cs, a, 5, NULL) == SCZ_ERR_ARG, "NULL used");
    CHECK(scz_cstream_feed(cs, a, 0, &used) == SCZ_OK && used == 0, "feeding nothing");
    size_t off = 0;
    uint8_t *chunk = malloc(4096);
    while (off < raw) {
        CHECK(scz_cstream_feed(cs, (uint8_t *)a + off, raw - off, &used) == SCZ_OK && used > 0, "feed");
        off += used;
        CHECK(scz_cstream_end(cs, &d, &k, &at, &total) == SCZ_ERR_ARG || off == raw, "end while bytes wait");
        while (scz_cstream_pull(cs, &d, &k) == SCZ_OK && k) append(&w, d, k);
        CHECK(scz_cstream_decode(cs, chunk, 10, &k) == SCZ_ERR_DST_TOO_SMALL, "decode into a small buffer");
        CHECK(scz_cstream_decode(cs, chunk, 4096, &k) == SCZ_OK && k > 0, "decode after the small buffer");
    }
    CHECK(scz_cstream_end(cs, &d, &k, &at, &total) == SCZ_OK && at == w.n && total == w.n + k, "end");
    CHECK(scz_cstream_feed(cs, a, 1, &used) == SCZ_ERR_ARG, "feed after the end");
    scz_cstream_free(cs);
    free(chunk);
    free(w.z);
    scz_cstream_free(NULL);

    /* the decoder: trailing bytes, small destination, garbage */
    size_t zn;
    uint8_t *z = tu_compress(ctx, &p, &s, a, &zn, "contract");
    uint8_t *two = malloc(2 * zn);
    memcpy(two, z, zn);
    memcpy(two + zn, z, zn);
    scz_dstream *ds;
    CHECK(scz_dstream_begin(ctx, &ds) == SCZ_OK, "dstream begin");
    CHECK(scz_dstream_begin(ctx, NULL) == SCZ_ERR_ARG && scz_dstream_begin(NULL, &ds) == SCZ_ERR_ARG,
          "dstream begin arguments");
    size_t total_out = 0;
    uint8_t *out = malloc(raw);
    off = 0;
    int small_tried = 0;
    for (int guard = 0; guard < 10000; guard++) {
        CHECK(scz_dstream_feed(ds, two + off, 2 * zn - off, &used) == SCZ_OK, "feed");
        off += used;
        if (!small_tried) {
            r = scz_dstream_pull(ds, out, 3, &k);
            CHECK(r == SCZ_ERR_DST_TOO_SMALL || (r == SCZ_OK && k == 0), "pull into 3 bytes: %s", st(r));
            small_tried = r == SCZ_ERR_DST_TOO_SMALL;
        }
        CHECK(scz_dstream_pull(ds, out + total_out, raw - total_out, &k) == SCZ_OK, "pull");
        total_out += k;
        if (used == 0 && k == 0) break;
    }
    CHECK(small_tried, "a too small destination was refused, without ending the stream");
    CHECK(off == zn, "the decoder stops at the end of the first stream (%zu of %zu)", off, zn);
    CHECK(total_out == raw && memcmp(out, a, raw) == 0, "first stream decoded");
    CHECK(scz_dstream_end(ds) == SCZ_OK, "end");
    scz_dstream_free(ds);

    CHECK(scz_dstream_begin(ctx, &ds) == SCZ_OK, "dstream begin");
    r = scz_dstream_feed(ds, "\x89SCY", 4, &used);
    CHECK(r == SCZ_ERR_NOT_SCZ, "a wrong magic is refused at once: %s", st(r));
    CHECK(scz_dstream_feed(ds, z, zn, &used) == SCZ_ERR_NOT_SCZ && used == 0, "and stays refused");
    CHECK(scz_dstream_end(ds) == SCZ_ERR_NOT_SCZ, "end repeats it");
    scz_dstream_free(ds);

    CHECK(scz_dstream_begin(ctx, &ds) == SCZ_OK, "dstream begin");
    CHECK(scz_dstream_feed(ds, z, 50, &used) == SCZ_OK && used == 50, "half a header");
    CHECK(scz_dstream_end(ds) == SCZ_ERR_TRUNCATED, "ends inside the header: truncated");
    CHECK(scz_dstream_feed(ds, z + 50, zn - 50, &used) == SCZ_OK, "the rest");
    CHECK(scz_dstream_end(ds) == SCZ_ERR_ARG || scz_dstream_end(ds) == SCZ_ERR_TRUNCATED,
          "a chunk not pulled: not the end");
    scz_dstream_free(ds);
    scz_dstream_free(NULL);

    /* white-box: the device path's table check refuses the table-last layout */
    written tl;
    r = cs_write(&p, &s, a, raw, NULL, SCZ_LAYOUT_TABLE_LAST, FEED_WHOLE, &tl, "table-last for the device check");
    if (r == SCZ_OK) {
        scz_header h;
        uint64_t end;
        CHECK(scz__header_read(ctx, tl.z, tl.n, &h) == SCZ_OK &&
                  scz__table_check(ctx, &h, tl.z, tl.n, &end) == SCZ_ERR_UNSUPPORTED &&
                  strstr(scz_ctx_last_error(ctx), "table-last"),
              "a reader that needs the table first says so");
    }
    free(tl.z);
    free(tl.dec);
    free(out);
    free(two);
    free(z);
    free(a);
}

/* Progress: after each chunk, up to the total. */
static uint64_t prog_last, prog_total;
static int prog_calls, prog_backwards;
static void prog(void *u, uint64_t done, uint64_t total) {
    (void)u;
    if (done < prog_last) prog_backwards++;
    prog_last = done;
    prog_total = total;
    prog_calls++;
}

static void test_progress(void) {
    scz_shape s = {SCZ_DTYPE_F64, 2, {100, 97, 1, 1}};
    size_t raw;
    void *a = gen_field(GEN_NOISY, &s, 2, &raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 8192;
    scz_ctx_set_progress(ctx, prog, NULL);
    written w;
    prog_last = 0;
    prog_calls = 0;
    CHECK(cs_write(&p, &s, a, raw, NULL, SCZ_LAYOUT_TABLE_LAST, FEED_RANDOM, &w, "progress") == SCZ_OK, "compress");
    scz_info in;
    scz_inspect(w.z, w.n, &in);
    CHECK(prog_calls == (int)in.num_chunks && prog_last == raw && prog_total == raw && !prog_backwards,
          "compression progress: %d calls for %u chunks, last %llu of %llu", prog_calls, in.num_chunks,
          (unsigned long long)prog_last, (unsigned long long)prog_total);
    prog_last = 0;
    prog_calls = 0;
    uint8_t *dec;
    size_t dn;
    CHECK(ds_read(w.z, w.n, FEED_RANDOM, &dec, &dn, "progress") == SCZ_OK, "decode");
    CHECK(prog_calls == (int)in.num_chunks && prog_last == raw && !prog_backwards, "decoding progress");
    scz_ctx_set_progress(ctx, NULL, NULL);
    free(dec);
    free(w.z);
    free(w.dec);
    free(a);
}

int main(void) {
    if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK) return 1;
    scz_ctx_set_threads(ctx, 2);
    test_contract();
    test_progress();
    test_matrix();
    scz_ctx_destroy(ctx);
    return tu_finish("test_stream");
}

/*
 * test_stream_cuda.c -- the incremental API (scz_cstream / scz_dstream) on
 * a SCZ_BACKEND_CUDA context against the CPU: the same stream bytes in
 * both layouts (ndzip on the GPU, a batch of chunks at a time; lossy on the
 * CPU of the CUDA context), decoding of both layouts on the GPU by the
 * incremental decoder and by scz_decompress / scz_decompress_chunk, the
 * round-trip check of scz_cstream_decode, and a damaged payload refused
 * before anything reaches the destination. Arrays of ~100 MB make the GPU
 * compress several batches, the last one partial. Skipped (exit 77) without
 * a usable CUDA device.
 */
#include "gen.h"
#include "testutil.h"

#include <string.h>

static scz_ctx *cpu, *gpu;
static uint64_t rng = 0xC0DAC0DA5EEDull;
static const char *st(scz_status s) { return scz_status_string(s); }

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 1024;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

/* Compresses through an scz_cstream fed in random pieces; *dec receives the
 * chunks of scz_cstream_decode. */
static scz_status cs_run(scz_ctx *ctx, const scz_params *p, const scz_shape *s, const uint8_t *src, size_t raw,
                         const double *range, scz_layout layout, buf *z, uint8_t *dec) {
    memset(z, 0, sizeof *z);
    scz_cstream *cs;
    scz_status r = scz_cstream_begin(ctx, p, s, range, layout, &cs);
    if (r) return r;
    scz_info in;
    scz_cstream_info(cs, &in);
    size_t chunk = in.num_chunks ? (size_t)(in.chunk_slab * (raw / s->dims[s->rank - 1])) : 1;
    uint8_t *cb = malloc(chunk);
    size_t off = 0, nd = 0;
    for (;;) {
        const void *d;
        size_t k;
        while ((r = scz_cstream_pull(cs, &d, &k)) == SCZ_OK && k) put(z, d, k);
        while (!r && (r = scz_cstream_decode(cs, cb, chunk, &k)) == SCZ_OK && k) {
            if (nd + k <= raw) memcpy(dec + nd, cb, k);
            nd += k;
        }
        if (r || off == raw) break;
        size_t want = 1 + (size_t)(gen_splitmix64(&rng) % (3 * chunk)), used;
        if (want > raw - off) want = raw - off;
        if ((r = scz_cstream_feed(cs, src + off, want, &used))) break;
        off += used;
    }
    if (!r) {
        const void *d;
        size_t k;
        uint64_t at;
        if (!(r = scz_cstream_end(cs, &d, &k, &at, NULL))) {
            if (layout == SCZ_LAYOUT_TABLE_FIRST) memcpy(z->p, d, k);
            else put(z, d, k);
        }
    }
    CHECK(r || nd == raw, "round-trip chunks cover the array (%zu of %zu)", nd, raw);
    free(cb);
    scz_cstream_free(cs);
    return r;
}

/* Decodes z through an scz_dstream into out (raw bytes). */
static scz_status ds_run(scz_ctx *ctx, const uint8_t *z, size_t n, uint8_t *out, size_t raw, size_t chunk) {
    scz_dstream *ds;
    scz_status r = scz_dstream_begin(ctx, &ds);
    size_t off = 0, have = 0;
    while (!r) {
        size_t k;
        while ((r = scz_dstream_pull(ds, out + have, raw - have < chunk ? raw - have : chunk, &k)) == SCZ_OK && k)
            have += k;
        if (r || off == n) break;
        size_t want = 1 + (size_t)(gen_splitmix64(&rng) % (1 << 22)), used;
        if (want > n - off) want = n - off;
        r = scz_dstream_feed(ds, z + off, want, &used);
        off += used;
    }
    if (!r) r = scz_dstream_end(ds);
    if (!r) CHECK(have == raw, "decoded %zu of %zu bytes", have, raw);
    scz_dstream_free(ds);
    return r;
}

static void run_case(const char *name, scz_codec codec, scz_eb_mode mode, double eb, scz_shape s,
                     uint64_t chunk_bytes) {
    size_t raw;
    uint8_t *src = gen_field(GEN_NOISY, &s, 3, &raw);
    scz_params p;
    scz_params_init(&p, codec);
    p.eb_mode = mode;
    p.eb = eb;
    p.chunk_bytes = chunk_bytes;
    double range[2];
    uint64_t fin;
    scz_value_range(s.dtype, src, raw / scz_dtype_size(s.dtype), &range[0], &range[1], &fin);
    size_t ref_n;
    uint8_t *ref = tu_compress(cpu, &p, &s, src, &ref_n, name);
    uint8_t *ref_dec = malloc(raw + 1), *dec = malloc(raw + 1), *rt = malloc(raw + 1);
    CHECK(scz_decompress(cpu, ref, ref_n, ref_dec, raw, NULL) == SCZ_OK, "%s: CPU reference decodes", name);
    scz_info info;
    scz_inspect(ref, ref_n, &info);
    size_t chunk = info.num_chunks ? (size_t)(info.chunk_slab * (raw / s.dims[s.rank - 1])) : 1;
    for (int layout = 0; layout < 2; layout++) {
        const char *ln = layout ? "table last" : "table first";
        buf zc, zg;
        scz_status rc = cs_run(cpu, &p, &s, src, raw, range, (scz_layout)layout, &zc, rt);
        scz_status rg = cs_run(gpu, &p, &s, src, raw, range, (scz_layout)layout, &zg, rt);
        CHECK(rc == SCZ_OK && rg == SCZ_OK, "%s %s: cstream CPU %s, GPU %s (%s)", name, ln, st(rc), st(rg),
              scz_ctx_last_error(gpu));
        if (rc || rg) continue;
        CHECK(zc.n == zg.n && memcmp(zc.p, zg.p, zc.n) == 0, "%s %s: GPU stream == CPU stream", name, ln);
        if (!layout) CHECK(zg.n == ref_n && memcmp(zg.p, ref, ref_n) == 0, "%s: == scz_compress", name);
        CHECK(memcmp(rt, ref_dec, raw) == 0, "%s %s: scz_cstream_decode on the GPU context", name, ln);
        scz_status r = ds_run(gpu, zg.p, zg.n, dec, raw, chunk);
        CHECK(r == SCZ_OK && memcmp(dec, ref_dec, raw) == 0, "%s %s: dstream on the GPU: %s (%s)", name, ln, st(r),
              scz_ctx_last_error(gpu));
        memset(dec, 0, raw);
        r = scz_decompress(gpu, zg.p, zg.n, dec, raw, NULL);
        CHECK(r == SCZ_OK && memcmp(dec, ref_dec, raw) == 0, "%s %s: scz_decompress on the GPU: %s", name, ln,
              st(r));
        if (info.num_chunks) {
            uint32_t i = info.num_chunks - 1;
            scz_chunk_info ci;
            scz_inspect_chunk(zg.p, zg.n, i, &ci);
            r = scz_decompress_chunk(gpu, zg.p, zg.n, i, dec, raw);
            CHECK(r == SCZ_OK && memcmp(dec, ref_dec + ci.raw_offset, ci.raw_bytes) == 0,
                  "%s %s: last chunk alone on the GPU: %s", name, ln, st(r));
            /* a damaged payload: refused, nothing written */
            if (layout && ci.size) {
                zg.p[ci.offset + ci.size / 2] ^= 0x10;
                scz_dstream *ds;
                scz_dstream_begin(gpu, &ds);
                size_t off = 0, k, used;
                int refused = 0;
                uint8_t *cb = malloc(chunk);
                memset(cb, 0x5A, chunk);
                for (uint32_t c = 0; c < info.num_chunks && !refused; c++) {
                    while (off < zg.n && scz_dstream_feed(ds, zg.p + off, zg.n - off, &used) == SCZ_OK && used)
                        off += used;
                    if (c == i) memset(cb, 0x5A, chunk); /* earlier chunks were pulled into cb */
                    r = scz_dstream_pull(ds, cb, chunk, &k);
                    if (c == i) {
                        refused = r == SCZ_ERR_CHECKSUM;
                        size_t q = 0;
                        while (q < chunk && cb[q] == 0x5A) q++;
                        CHECK(q == chunk, "%s: a damaged chunk reached the destination", name);
                    }
                }
                CHECK(refused, "%s: a damaged payload is refused on the GPU (%s)", name, scz_ctx_last_error(gpu));
                free(cb);
                scz_dstream_free(ds);
            }
        }
        free(zc.p);
        free(zg.p);
    }
    free(ref);
    free(ref_dec);
    free(dec);
    free(rt);
    free(src);
}

int main(void) {
    char why[256];
    if (scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why) != SCZ_OK) tu_skip(why);
    if (scz_ctx_create(&cpu, SCZ_BACKEND_CPU) || scz_ctx_create(&gpu, SCZ_BACKEND_CUDA)) tu_skip("no context");
    scz_shape s1 = {SCZ_DTYPE_F32, 3, {64, 48, 40, 1}};
    run_case("ndzip f32 3D, 8 KiB chunks", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, s1, 8192);
    scz_shape s2 = {SCZ_DTYPE_F64, 1, {100003, 1, 1, 1}};
    run_case("ndzip f64 1D, chunks not dividing", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, s2, 65536);
    scz_shape s3 = {SCZ_DTYPE_F32, 2, {0, 9, 1, 1}};
    run_case("ndzip empty", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, s3, 0);
    /* several GPU batches, the last partial: 96 MiB, 4 MiB chunks */
    scz_shape s4 = {SCZ_DTYPE_F32, 4, {256, 256, 16, 24}};
    run_case("ndzip f32 4D, 96 MiB", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, s4, (uint64_t)4 << 20);
    scz_shape s5 = {SCZ_DTYPE_F64, 3, {512, 512, 50, 1}};
    run_case("ndzip f64 3D, 100 MiB, default chunks", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, s5, 0);
    run_case("lossy f32 REL (CPU codec on a CUDA context)", SCZ_CODEC_LOSSY, SCZ_EB_REL, 1e-3, s1, 8192);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(cpu);
    return tu_finish("test_stream_cuda");
}

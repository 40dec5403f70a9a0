/*
 * test_gfc.c -- the gfc lossless codec (docs/FORMAT.md section 10) through
 * the public API: bit-exact round trips of every generated family x shape
 * x dtype at several chunk sizes (some cutting segments), every length
 * 0..300, every dimensionality 1..32; every chunk's payload and codec_info
 * equal to the naive reference encoder written from FORMAT.md
 * (tests/support/ref_codecs.c); 1 and 2 threads write the same bytes;
 * stored chunks; knobs validated; truncated and corrupted payloads
 * (checksums recomputed) give an error, never a crash; every real data file
 * of $SCZ_DATA_DIR (skipped with a message when absent), with gfc's ratio
 * beside ndzip's.
 */
#include "format/container.h"
#include "gen.h"
#include "ref_codecs.h"
#include "testutil.h"

#include <string.h>

static scz_ctx *ctx1, *ctx2; /* 1 thread, 2 threads */
static int n_roundtrips, n_payloads, n_stored, n_coded;

static const char *st(scz_status s) { return scz_status_string(s); }

/* Every chunk's payload and codec_info equal the reference's. */
static void check_payloads(const uint8_t *z, size_t zn, const scz_shape *s, const void *src, uint32_t dim,
                           const char *what) {
    scz_info info;
    if (scz_inspect(z, zn, &info) != SCZ_OK) {
        CHECK(0, "%s: inspect", what);
        return;
    }
    const unsigned E = s->dtype == SCZ_DTYPE_F32 ? 4 : 8;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci) != SCZ_OK) {
            CHECK(0, "%s: inspect chunk %u", what, i);
            return;
        }
        uint32_t want_info;
        bytebuf ref = ref_gfc(s->dtype, (const uint8_t *)src + ci.raw_offset, ci.raw_bytes / E, dim, &want_info);
        n_payloads++;
        n_stored += want_info == 1;
        n_coded += want_info == 0;
        CHECK(ci.codec_info == want_info && ci.size == ref.n && memcmp(z + ci.offset, ref.p, ref.n) == 0,
              "%s: chunk %u differs from the FORMAT.md reference (info %u vs %u, %llu vs %zu bytes, first diff %zu)",
              what, i, ci.codec_info, want_info, (unsigned long long)ci.size, ref.n,
              ci.size == ref.n ? tu_first_diff(z + ci.offset, ref.p, ref.n) : (size_t)0);
        free(ref.p);
    }
}

/* Compresses with 1 and 2 threads (same bytes), decodes bit-exactly,
 * optionally compares with the reference. Returns the stream size. */
static size_t roundtrip(const scz_shape *s, const void *src, uint32_t dim, uint64_t chunk_bytes, int ref,
                        const char *what) {
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_GFC);
    p.knobs[0] = dim;
    p.chunk_bytes = chunk_bytes;
    size_t na = 0, nb = 0, raw = gen_bytes(s);
    uint8_t *a = tu_compress(ctx1, &p, s, src, &na, what);
    if (!a) return 0;
    uint8_t *b = tu_compress(ctx2, &p, s, src, &nb, what);
    CHECK(b && na == nb && memcmp(a, b, na) == 0, "%s: 1 and 2 threads write different streams", what);
    free(b);
    /* the writer stores the dimensionality it used */
    if (na >= SCZ_HEADER_SIZE) {
        uint32_t k0 = scz__ld32(a + 88);
        CHECK(k0 == (dim ? dim : 1), "%s: knob 0 stored as %u", what, k0);
    }
    uint8_t *out = tu_guarded_alloc(raw, 0x5A);
    scz_status r = scz_decompress(ctx2, a, na, out, raw, NULL);
    CHECK(r == SCZ_OK, "%s: decompress: %s (%s)", what, st(r), scz_ctx_last_error(ctx2));
    if (r == SCZ_OK) {
        size_t d = tu_first_diff(src, out, raw);
        CHECK(d == raw, "%s: decoded differs at byte %zu of %zu", what, d, raw);
    }
    CHECK(tu_guard_intact(out, raw), "%s: decompress wrote past the array", what);
    if (raw) { /* 1 thread decodes the same */
        memset(out, 0, raw);
        r = scz_decompress(ctx1, a, na, out, raw, NULL);
        CHECK(r == SCZ_OK && memcmp(out, src, raw) == 0, "%s: 1-thread decode", what);
    }
    free(out);
    if (ref) check_payloads(a, na, s, src, dim ? dim : 1, what);
    free(a);
    n_roundtrips++;
    return na;
}

static void test_generated(void) {
    const scz_dtype dts[2] = {SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    /* 4096 B: half a f64 segment; 12000 B: 1.46 / 2.9 segments; default */
    const uint64_t chunk_sizes[] = {0, 4096, 12000};
    double t0 = tu_now();
    int cases = 0;
    for (int f = 0; f < GEN_NUM_FAMILIES; f++)
        for (int i = 0; i < gen_num_shapes; i++)
            for (int d = 0; d < 2; d++) {
                scz_shape s = gen_shape(&gen_shapes[i], dts[d]);
                size_t raw;
                uint8_t *src = gen_field((gen_family)f, &s, 77u * (uint64_t)f + (uint64_t)i, &raw);
                for (size_t c = 0; c < 3; c++) {
                    uint32_t dim = (uint32_t)((f * 7 + i * 3 + (int)c) % 33); /* 0 (default) .. 32 */
                    char what[200];
                    snprintf(what, sizeof what, "%s %s %s chunk %llu dim %u", gen_family_name((gen_family)f),
                             gen_shapes[i].name, scz_dtype_name(dts[d]), (unsigned long long)chunk_sizes[c], dim);
                    roundtrip(&s, src, dim, chunk_sizes[c], gen_count(&s) <= 300000, what);
                }
                /* a constant field compresses: 16 B per subchunk, but the first
                 * subchunk of each segment is predicted from zeros (at least
                 * 6x for f32, 10x for f64, less the stream header) */
                if (f == GEN_CONSTANT && gen_count(&s) >= 4096) {
                    scz_params p;
                    scz_params_init(&p, SCZ_CODEC_GFC);
                    size_t n = 0;
                    uint8_t *z = tu_compress(ctx2, &p, &s, src, &n, "constant");
                    CHECK(z && n * 5 < raw, "%s: constant field not compressed (%zu of %zu bytes)", gen_shapes[i].name,
                          n, raw);
                    free(z);
                }
                free(src);
                cases++;
            }
    printf("generated: %d fields x 3 chunk sizes in %.2f s\n", cases, tu_now() - t0);
}

/* Every length 0..300 (all partial subchunks, 1..10 subchunks) in several
 * families, both dtypes, dimensionalities cycling through 1..32. */
static void test_lengths(void) {
    const gen_family fams[] = {GEN_SMOOTH, GEN_SPECIAL, GEN_RANDOM_BITS, GEN_SPARSE};
    for (int d = 0; d < 2; d++)
        for (uint64_t n = 0; n <= 300; n++)
            for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
                scz_shape s = {d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32, 1, {n, 1, 1, 1}};
                void *src = gen_field(fams[f], &s, 1000 + n, NULL);
                char what[160];
                uint32_t dim = (uint32_t)(1 + (n + f) % 32);
                snprintf(what, sizeof what, "length %llu %s %s dim %u", (unsigned long long)n,
                         gen_family_name(fams[f]), scz_dtype_name(s.dtype), dim);
                roundtrip(&s, src, dim, 0, 1, what);
                free(src);
            }
}

/* Every dimensionality on data that is D-way interleaved, over lengths that
 * end inside a segment and inside a subchunk; the matching D compresses
 * interleaved data better than D = 1. */
static void test_dims(void) {
    for (int d = 0; d < 2; d++)
        for (uint32_t dim = 0; dim <= 32; dim++) {
            const uint64_t n = 3 * 1024 + 517;
            scz_shape s = {d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32, 1, {n, 1, 1, 1}};
            const unsigned E = d ? 8 : 4;
            uint8_t *src = malloc(n * E);
            uint32_t D = dim ? dim : 1;
            for (uint64_t i = 0; i < n; i++) { /* component c of D: its own smooth series */
                uint64_t c = i % D, t = i / D;
                double v = 1000.0 * (double)(c + 1) + 0.001 * (double)t * (double)(c + 1);
                if (d) memcpy(src + i * 8, &v, 8);
                else {
                    float fv = (float)v;
                    memcpy(src + i * 4, &fv, 4);
                }
            }
            char what[100];
            snprintf(what, sizeof what, "interleaved %s dim %u", scz_dtype_name(s.dtype), dim);
            size_t with = roundtrip(&s, src, dim, 0, 1, what);
            snprintf(what, sizeof what, "interleaved %s dim %u coded with 1", scz_dtype_name(s.dtype), dim);
            size_t plain = roundtrip(&s, src, 1, 0, 0, what);
            if (D > 1)
                CHECK(with < plain, "%s: dimensionality %u does not help (%zu vs %zu bytes)", what, D, with, plain);
            /* several chunk sizes over the same data: cut segments */
            for (uint64_t cb = 4096; cb <= 16384; cb += 4000) {
                snprintf(what, sizeof what, "interleaved %s dim %u chunk %llu", scz_dtype_name(s.dtype), dim,
                         (unsigned long long)cb);
                roundtrip(&s, src, dim, cb, 1, what);
            }
            free(src);
        }
}

/* ---- malformed input ---- */

/* Decodes with 2 threads and with 1 (where gfc verifies the checksum while
 * it decodes): the same answer. */
static scz_status decode_copy(const uint8_t *z, size_t n, size_t raw) {
    uint8_t *out = tu_guarded_alloc(raw ? raw : 1, 0);
    scz_status r = scz_decompress(ctx2, z, n, out, raw, NULL);
    CHECK(tu_guard_intact(out, raw ? raw : 1), "malformed input: decoder wrote past the array");
    free(out);
    out = tu_guarded_alloc(raw ? raw : 1, 0);
    scz_status r1 = scz_decompress(ctx1, z, n, out, raw, NULL);
    CHECK(tu_guard_intact(out, raw ? raw : 1), "malformed input: the 1-thread decoder wrote past the array");
    CHECK(r1 == r, "malformed input: 1 thread says %s, 2 threads %s", st(r1), st(r));
    free(out);
    return r;
}

/* Checksums verified while decoding (1 thread): payload bytes changed
 * without resealing, in chunks of many checksum blocks (groups of 8, a
 * partial last block), coded and stored, table and data, every checksum
 * block size: SCZ_ERR_CHECKSUM from both decoders. */
static void test_unsealed(void) {
    int cases = 0;
    for (int d = 0; d < 2; d++) {
        scz_shape s = {d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32, 1, {200000 + 37, 1, 1, 1}};
        size_t raw;
        uint8_t *src = gen_field(GEN_NOISY, &s, 31, &raw);
        size_t rb;
        uint8_t *rnd = gen_field(GEN_RANDOM_BITS, &s, 32, &rb);
        memcpy(src + raw / 2, rnd + raw / 2, raw - raw / 2); /* the second chunk stored */
        free(rnd);
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_GFC);
        p.chunk_bytes = raw / 2;
        size_t zn = 0;
        uint8_t *z0 = tu_compress(ctx1, &p, &s, src, &zn, "unsealed base");
        if (!z0) {
            free(src);
            continue;
        }
        for (uint8_t L = 10; L <= 13; L++) {
            uint8_t *z = malloc(zn);
            memcpy(z, z0, zn);
            z[68] = L;
            tu_reseal_header(z);
            const uint32_t nc = scz__ld32(z + 64);
            for (uint32_t i = 0; i < nc; i++) tu_reseal_chunk(z, i);
            CHECK(decode_copy(z, zn, raw) == SCZ_OK, "%s, checksum blocks of 2^%u: resealed stream",
                  scz_dtype_name(s.dtype), L);
            for (uint32_t i = 0; i < nc; i++) {
                scz_chunk_info ci;
                if (scz_inspect_chunk(z, zn, i, &ci) != SCZ_OK) continue;
                const uint64_t B = 1ull << L;
                const uint64_t at[8] = {0, 3, B - 1, B, 8 * B + 5, ci.size / 2, ci.size - B / 2, ci.size - 1};
                for (int k = 0; k < 8; k++) {
                    if (at[k] >= ci.size) continue;
                    uint8_t *c = malloc(zn);
                    memcpy(c, z, zn);
                    c[ci.offset + at[k]] ^= 0x40;
                    const scz_status r = decode_copy(c, zn, raw);
                    CHECK(r == SCZ_ERR_CHECKSUM, "%s, blocks of 2^%u, chunk %u (%s) byte %llu changed: %s",
                          scz_dtype_name(s.dtype), L, i, ci.codec_info ? "stored" : "coded",
                          (unsigned long long)at[k], st(r));
                    cases++;
                    free(c);
                }
            }
            free(z);
        }
        free(z0);
        free(src);
    }
    printf("unsealed changes: %d\n", cases);
}

/* A stream of one chunk of n values (dtype t) whose payload is replaced by
 * pay[0..pn) with codec_info info; returns the decoder's status. */
static scz_status decode_payload(scz_dtype t, uint64_t n, const uint8_t *pay, size_t pn, uint32_t info) {
    scz_shape s = {t, 1, {n, 1, 1, 1}};
    const unsigned E = t == SCZ_DTYPE_F32 ? 4 : 8;
    uint8_t *src = calloc(n, E);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_GFC);
    size_t zn = 0;
    uint8_t *z = tu_compress(ctx1, &p, &s, src, &zn, "zeros");
    free(src);
    if (!z) return SCZ_ERR_INTERNAL;
    scz_info inf;
    scz_inspect(z, zn, &inf);
    CHECK(inf.num_chunks == 1, "one chunk");
    size_t en = 0;
    uint8_t *e = tu_edit_chunk(z, zn, 0, pn, info, &en);
    scz_chunk_info ci;
    scz_inspect_chunk(e, en, 0, &ci);
    memcpy(e + ci.offset, pay, pn);
    tu_reseal_chunk(e, 0);
    scz_status r = decode_copy(e, en, (size_t)(n * E));
    free(z);
    free(e);
    return r;
}

/* float32 codes 5..7 and missing or extra kept bytes in segments far
 * from the payload's end (where the vector decoder runs): three segments
 * of 1024 zeros, every nibble 4 (no kept byte). */
static void test_handmade_long(void) {
    enum { SUBS = 32, HDR = 16, SEGV = 1024 };
    const uint64_t n = 3 * SEGV;
    const size_t seg = SUBS * HDR, pn = 12 + 3 * seg + 1;
    uint8_t *pay = malloc(pn);
    int cases = 0;
    for (int where = 0; where < 6; where++) {
        const size_t at = 12 + (where / 2) * seg + (where % 2 ? 7 * HDR + 9 : 3); /* a header byte */
        const size_t ins = at + (HDR - (at - 12) % HDR);                            /* its subchunk's kept bytes */
        for (int v = 0; v < 6; v++) {
            memset(pay, 0x44, pn);
            for (int k = 0; k < 3; k++) scz__st32(pay + 4 * k, (uint32_t)((k + 1) * seg));
            size_t len = pn - 1;
            scz_status want = SCZ_ERR_CORRUPT;
            if (v == 0) want = SCZ_OK;
            if (v == 1) pay[at] = 0x45; /* code 5 */
            if (v == 2) pay[at] = 0x64; /* code 6 in the high nibble */
            if (v == 3) pay[at] = 0x47; /* code 7 */
            if (v == 4) pay[at] = 0x43; /* one kept byte, not there */
            if (v == 5) {               /* one kept byte, there: this and later segments end 1 byte later */
                pay[at] = 0x43;
                memmove(pay + ins + 1, pay + ins, pn - 1 - ins);
                pay[ins] = 0x5A;
                for (size_t k = (at - 12) / seg; k < 3; k++) scz__st32(pay + 4 * k, (uint32_t)((k + 1) * seg + 1));
                len = pn;
                want = SCZ_OK;
            }
            const scz_status r = decode_payload(SCZ_DTYPE_F32, n, pay, len, 0);
            CHECK(r == want, "long f32 payload, case %d at byte %zu: %s", v, at, st(r));
            cases++;
        }
    }
    free(pay);
    printf("long handmade payloads: %d\n", cases);
}

static void test_handmade(void) {
    /* 10 f32 zeros: one segment of one subchunk, all nibbles 4 (zero
     * residual, lanes 10..31 padded): end[0] = 16, then 16 bytes 0x44 */
    uint8_t pay[64];
    memset(pay, 0x44, sizeof pay);
    scz__st32(pay, 16);
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 20, 0) == SCZ_OK, "handmade f32 zeros decode");
    pay[4 + 5] = 0x47; /* lane 11 (padded): code 7 invalid for f32 */
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 20, 0) == SCZ_ERR_CORRUPT, "f32 code 7 rejected");
    pay[4 + 5] = 0x4C; /* lane 10 (padded): sign set */
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 20, 0) == SCZ_ERR_CORRUPT, "padded lane with a sign rejected");
    pay[4 + 5] = 0x44;
    pay[4] = 0x45; /* lane 0: code 5 */
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 20, 0) == SCZ_ERR_CORRUPT, "f32 code 5 rejected");
    pay[4] = 0x43; /* lane 0 keeps one byte that is not there */
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 20, 0) == SCZ_ERR_CORRUPT, "missing kept byte rejected");
    scz__st32(pay, 17); /* ... and with it, at payload byte 20 */
    pay[20] = 0x01;
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 21, 0) == SCZ_OK, "one kept byte decodes");
    pay[4] = 0x44;
    CHECK(decode_payload(SCZ_DTYPE_F32, 10, pay, 21, 0) == SCZ_ERR_CORRUPT, "trailing byte in a segment rejected");
    scz__st32(pay, 16);
    /* 12 f64 zeros: end[0] = 16, 16 bytes 0x77; non-canonical forms decode */
    memset(pay, 0x77, sizeof pay);
    scz__st32(pay, 16);
    CHECK(decode_payload(SCZ_DTYPE_F64, 12, pay, 20, 0) == SCZ_OK, "handmade f64 zeros decode");
    pay[4] = 0x7F; /* lane 0: sign 1, no byte (-0): decodes to 0 */
    CHECK(decode_payload(SCZ_DTYPE_F64, 12, pay, 20, 0) == SCZ_OK, "sign with zero magnitude decodes");
    pay[4] = 0x77;
    pay[4 + 7] = 0x07; /* lane 15 (padded) with nibble 0 (8 bytes) */
    CHECK(decode_payload(SCZ_DTYPE_F64, 12, pay, 20, 0) == SCZ_ERR_CORRUPT, "padded f64 lane rejected");
    pay[4 + 7] = 0x77;
    CHECK(decode_payload(SCZ_DTYPE_F64, 12, pay, 20, 2) == SCZ_ERR_CORRUPT, "codec_info 2 rejected");
    CHECK(decode_payload(SCZ_DTYPE_F64, 12, pay, 20, 1) == SCZ_ERR_CORRUPT, "stored of the wrong size rejected");
    CHECK(decode_payload(SCZ_DTYPE_F64, 3, pay, 24, 1) == SCZ_OK, "stored of the right size decodes");
    /* a coded payload not below the raw size is rejected (f64, 3 values:
     * 4 + 16 + 4 kept bytes = 24 = raw) */
    memset(pay, 0x77, sizeof pay);
    scz__st32(pay, 20);
    pay[4] = 0x74; /* lane 0: 4 kept bytes */
    CHECK(decode_payload(SCZ_DTYPE_F64, 3, pay, 24, 0) == SCZ_ERR_CORRUPT, "coded payload >= raw rejected");
    CHECK(decode_payload(SCZ_DTYPE_F64, 4, pay, 24, 0) == SCZ_OK, "the same below raw decodes");
    /* offsets: two segments (2048 f64 zeros: 2 x 32 subchunks of 16 B) */
    uint8_t *big = malloc(8 + 2 * 512);
    memset(big, 0x77, 8 + 2 * 512);
    scz__st32(big, 512);
    scz__st32(big + 4, 1024);
    CHECK(decode_payload(SCZ_DTYPE_F64, 2048, big, 8 + 1024, 0) == SCZ_OK, "two segments decode");
    scz__st32(big, 528);
    CHECK(decode_payload(SCZ_DTYPE_F64, 2048, big, 8 + 1024, 0) == SCZ_ERR_CORRUPT, "segment end inside a subchunk");
    scz__st32(big, 1025);
    CHECK(decode_payload(SCZ_DTYPE_F64, 2048, big, 8 + 1024, 0) == SCZ_ERR_CORRUPT, "decreasing offsets");
    scz__st32(big, 512);
    scz__st32(big + 4, 1008);
    CHECK(decode_payload(SCZ_DTYPE_F64, 2048, big, 8 + 1024, 0) == SCZ_ERR_CORRUPT, "offsets short of the payload");
    CHECK(decode_payload(SCZ_DTYPE_F64, 2048, big, 6, 0) == SCZ_ERR_CORRUPT, "payload shorter than its table");
    free(big);
}

/* Truncations, extensions and byte edits of real coded payloads (every
 * checksum recomputed): an error or some decoded array, never a crash or a
 * write out of bounds; size changes are always errors. */
static void test_corruption(void) {
    int edits = 0, rejected = 0;
    for (int d = 0; d < 2; d++) {
        scz_shape s = {d ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32, 2, {1000, 7, 1, 1}};
        size_t raw;
        void *src = gen_field(GEN_SMOOTH, &s, 5, &raw);
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_GFC);
        p.knobs[0] = 3;
        p.chunk_bytes = 3 * 1000 * (d ? 8 : 4);
        size_t zn = 0;
        uint8_t *z = tu_compress(ctx1, &p, &s, src, &zn, "corruption base");
        if (!z) continue;
        scz_chunk_info ci;
        scz_inspect_chunk(z, zn, 0, &ci);
        CHECK(ci.codec_info == 0, "corruption base is coded");
        /* sizes: every truncation of the first 64 bytes, then strided */
        for (uint64_t k = 0; k < ci.size; k += k < 64 ? 1 : 97) {
            size_t en = 0;
            uint8_t *e = tu_edit_chunk(z, zn, 0, k, 0, &en);
            scz_status r = decode_copy(e, en, raw);
            CHECK(r != SCZ_OK, "truncated to %llu of %llu bytes: accepted", (unsigned long long)k,
                  (unsigned long long)ci.size);
            edits++;
            rejected += r != SCZ_OK;
            free(e);
        }
        for (uint64_t k = ci.size + 1; k < ci.size + 40; k += 3) {
            size_t en = 0;
            uint8_t *e = tu_edit_chunk(z, zn, 0, k, 0, &en);
            scz_status r = decode_copy(e, en, raw);
            CHECK(r != SCZ_OK, "extended to %llu bytes: accepted", (unsigned long long)k);
            edits++;
            rejected += r != SCZ_OK;
            free(e);
        }
        /* byte edits all over the payload, table included */
        uint8_t *c = malloc(zn);
        uint64_t rng = 99;
        for (int t = 0; t < 3000; t++) {
            memcpy(c, z, zn);
            uint64_t pos = gen_splitmix64(&rng) % ci.size;
            uint8_t v = (uint8_t)gen_splitmix64(&rng);
            if (t % 3 == 0) v = c[ci.offset + pos] ^ (uint8_t)(1u << (t % 8));
            c[ci.offset + pos] = v;
            tu_reseal_chunk(c, 0);
            scz_status r = decode_copy(c, zn, raw);
            edits++;
            rejected += r != SCZ_OK;
        }
        free(c);
        /* header knobs (header checksum recomputed) */
        const uint32_t bad_k0[] = {0, 33, 1000, UINT32_MAX};
        for (size_t i = 0; i < 4; i++) {
            uint8_t *h = malloc(zn);
            memcpy(h, z, zn);
            scz__st32(h + 88, bad_k0[i]);
            tu_reseal_header(h);
            CHECK(decode_copy(h, zn, raw) == SCZ_ERR_CORRUPT, "knob 0 = %u accepted", bad_k0[i]);
            scz__st32(h + 88, 3);
            scz__st32(h + 92 + 4 * (uint32_t)i, 1);
            tu_reseal_header(h);
            CHECK(decode_copy(h, zn, raw) == SCZ_ERR_CORRUPT, "knob %zu = 1 accepted", i + 1);
            free(h);
        }
        /* a different (valid) dimensionality decodes to something else */
        uint8_t *h = malloc(zn);
        memcpy(h, z, zn);
        scz__st32(h + 88, 4);
        tu_reseal_header(h);
        uint8_t *out = malloc(raw);
        CHECK(scz_decompress(ctx2, h, zn, out, raw, NULL) == SCZ_OK && memcmp(out, src, raw) != 0,
              "dimensionality 4 instead of 3: decodes, differently");
        free(out);
        free(h);
        free(z);
        free(src);
    }
    printf("corruption: %d edits, %d rejected\n", edits, rejected);
}

/* Parameters the writer must refuse. */
static void test_params(void) {
    scz_shape s = {SCZ_DTYPE_F64, 1, {100, 1, 1, 1}};
    double x[100] = {0};
    uint8_t z[4096];
    size_t zn;
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_GFC);
    p.knobs[0] = 33;
    CHECK(scz_compress(ctx1, &p, &s, x, z, sizeof z, &zn) == SCZ_ERR_ARG, "dimensionality 33 refused");
    p.knobs[0] = 1;
    p.knobs[2] = 1;
    CHECK(scz_compress(ctx1, &p, &s, x, z, sizeof z, &zn) == SCZ_ERR_ARG, "knob 2 refused");
    scz_shape u = {SCZ_DTYPE_U16, 1, {100, 1, 1, 1}};
    scz_params_init(&p, SCZ_CODEC_GFC);
    CHECK(scz_compress(ctx1, &p, &u, x, z, sizeof z, &zn) != SCZ_OK, "u16 refused");
    CHECK(scz_codec_available(SCZ_CODEC_GFC) && scz_codec_is_lossless(SCZ_CODEC_GFC) &&
              scz_codec_accepts(SCZ_CODEC_GFC, SCZ_DTYPE_F32) && scz_codec_accepts(SCZ_CODEC_GFC, SCZ_DTYPE_F64),
          "gfc registered");
    /* chunk_bytes 0: gfc's default of 4 MiB (FORMAT.md 3); 32 MiB for the
     * codecs without their own, and an explicit size wins */
    scz_shape big = {SCZ_DTYPE_F64, 3, {64, 64, 300, 1}}; /* slices of 32 KiB, 9.4 MiB */
    const size_t bn = (size_t)64 * 64 * 300;
    double *bx = calloc(bn, sizeof *bx);
    CHECK(bx != NULL, "allocation for the default chunk size cases");
    const uint64_t want[3] = {3, 1, 5}; /* 128, 300 and 64 slices a chunk */
    for (int k = 0; k < 3 && bx; k++) {
        scz_params_init(&p, k == 1 ? SCZ_CODEC_NDZIP : SCZ_CODEC_GFC);
        if (k == 2) p.chunk_bytes = 2u << 20;
        size_t cap = scz_compress_bound(&big, &p), bz = 0;
        uint8_t *zb = malloc(cap);
        scz_info inf;
        CHECK(zb && scz_compress(ctx1, &p, &big, bx, zb, cap, &bz) == SCZ_OK && scz_inspect(zb, bz, &inf) == SCZ_OK &&
                  inf.num_chunks == want[k],
              "default chunk size (%d)", k);
        free(zb);
    }
    free(bx);
}

static void test_real_data(void) {
    tu_datafile *files;
    int n = tu_data_files(&files);
    if (n == 0) {
        printf("real data: SKIPPED (no data files in $SCZ_DATA_DIR=%s)\n",
               getenv("SCZ_DATA_DIR") ? getenv("SCZ_DATA_DIR") : "../shared/data");
        return;
    }
    printf("  %-40s %10s %8s %8s %8s\n", "file", "bytes", "gfc", "gfc D*", "ndzip");
    for (int i = 0; i < n; i++) {
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        if (!data || size != gen_bytes(&files[i].shape)) {
            CHECK(0, "%s: cannot read, or the size does not match the name", files[i].name);
            free(data);
            continue;
        }
        const scz_shape *s = &files[i].shape;
        char what[400];
        snprintf(what, sizeof what, "%s dim 1", files[i].name);
        size_t g1 = roundtrip(s, data, 1, 0, 1, what);
        snprintf(what, sizeof what, "%s dim 1 chunk 100000", files[i].name);
        roundtrip(s, data, 1, 100000, 0, what);
        /* the best dimensionality of a few */
        const uint32_t dims[] = {2, 3, 4, 8, 32};
        size_t best = g1;
        uint32_t best_d = 1;
        for (size_t k = 0; k < sizeof dims / sizeof dims[0]; k++) {
            snprintf(what, sizeof what, "%s dim %u", files[i].name, dims[k]);
            size_t g = roundtrip(s, data, dims[k], 0, k == 0, what);
            if (g && g < best) best = g, best_d = dims[k];
        }
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_NDZIP);
        size_t nn = 0;
        uint8_t *z = tu_compress(ctx2, &p, s, data, &nn, files[i].name);
        free(z);
        printf("  %-40s %10zu %8.4f %8.4f %8.4f  (D* = %u; ratios original/compressed)\n", files[i].name, size,
               (double)size / (double)g1, (double)size / (double)best, nn ? (double)size / (double)nn : 0.0, best_d);
        free(data);
    }
    free(files);
}

int main(void) {
    if (scz_ctx_create(&ctx1, SCZ_BACKEND_CPU) || scz_ctx_create(&ctx2, SCZ_BACKEND_CPU)) return 1;
    scz_ctx_set_threads(ctx1, 1);
    scz_ctx_set_threads(ctx2, 2);
    test_params();
    test_handmade();
    test_handmade_long();
    test_lengths();
    test_dims();
    test_generated();
    test_corruption();
    test_unsealed();
    test_real_data();
    printf("%d round trips, %d payloads compared with the reference (%d coded, %d stored)\n", n_roundtrips,
           n_payloads, n_coded, n_stored);
    CHECK(n_coded > 0 && n_stored > 0, "coded and stored payloads both compared");
    scz_ctx_destroy(ctx1);
    scz_ctx_destroy(ctx2);
    return tu_finish("test_gfc");
}

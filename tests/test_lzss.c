/*
 * test_lzss.c -- the lossless `lzss` codec (docs/FORMAT.md section 11):
 *   - bit-exact round trips over generated families that exercise the
 *     match finder: repeats at every distance and length around the window
 *     and the longest match, periodic records, runs, random data (stored
 *     sub-chunks and chunks), every symbol size, shuffle on and off, small
 *     and large sub-chunks, 1- and 2-byte distances, array lengths
 *     0..window+1, sizes that are not a multiple of the symbol, every dtype;
 *   - every payload equal to the naive reference encoder's
 *     (tests/support/ref_lzss.c, written from FORMAT.md), and 1 and 2
 *     threads writing the same bytes;
 *   - every file of $SCZ_DATA_DIR (skipped with a message when absent):
 *     round trips with the shuffle on and off, the reference on a prefix;
 *   - truncated and corrupted payloads behind valid checksums, and invalid
 *     knobs in the header, give an error and never a crash.
 */
#include "format/container.h"
#include "gen.h"
#include "lzss/lzss.h"
#include "ref_lzss.h"
#include "testutil.h"

#include <string.h>

static scz_ctx *ctx1, *ctx2; /* 1 thread, 2 threads */
static uint64_t rng = 0x6c7a7373;
static uint64_t rnd(void) { return gen_splitmix64(&rng); }

typedef struct knobs {
    uint32_t S, W, M, shuffle, lg;
} knobs;

static int ref_checks = 1; /* compare payloads with the reference encoder */

/* Compresses data (count elements of dtype t, 1D) with knobs k (0 =
 * default), checks: 1 and 2 threads give the same stream, bit-exact round
 * trip, every chunk's payload equals the reference encoder's. Returns the
 * stream (malloc'ed) and its size, the ratio in *ratio. */
static uint8_t *roundtrip(scz_dtype t, const void *data, uint64_t count, knobs k, uint64_t chunk_bytes,
                          const char *what, size_t *zn, double *ratio) {
    scz_shape sh = {t, 1, {count, 1, 1, 1}};
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LZSS);
    p.chunk_bytes = chunk_bytes;
    p.knobs[0] = k.S;
    p.knobs[1] = k.W;
    p.knobs[2] = k.M;
    p.knobs[3] = k.shuffle;
    p.knobs[4] = k.lg;
    size_t n1 = 0, n2 = 0;
    uint8_t *z1 = tu_compress(ctx1, &p, &sh, data, &n1, what);
    uint8_t *z2 = tu_compress(ctx2, &p, &sh, data, &n2, what);
    if (!z1 || !z2) {
        free(z1);
        free(z2);
        return NULL;
    }
    CHECK(n1 == n2 && !memcmp(z1, z2, n1), "%s: 1 and 2 threads write different streams", what);
    free(z2);
    size_t raw = (size_t)count * scz_dtype_size(t);
    uint8_t *out = tu_guarded_alloc(raw, 0x5A);
    scz_status r = scz_decompress(ctx2, z1, n1, out, raw, NULL);
    CHECK(r == SCZ_OK, "%s: decompress: %s (%s)", what, scz_status_string(r), scz_ctx_last_error(ctx2));
    CHECK(!memcmp(out, data, raw), "%s: not bit-exact (first difference at byte %zu)", what,
          tu_first_diff(out, data, raw));
    CHECK(tu_guard_intact(out, raw), "%s: decompress wrote past the array", what);
    memset(out, 0x5A, raw);
    r = scz_decompress(ctx1, z1, n1, out, raw, NULL);
    CHECK(r == SCZ_OK && !memcmp(out, data, raw), "%s: 1-thread decompress differs", what);
    free(out);
    if (ratio) *ratio = n1 ? (double)raw / (double)n1 : 0;

    if (ref_checks && count) {
        uint32_t kn[6];
        for (int i = 0; i < 6; i++) kn[i] = scz__ld32(z1 + 88 + 4 * i);
        uint32_t nc = scz__ld32(z1 + 64);
        uint64_t slab = scz__ld64(z1 + 56);
        uint32_t E = (uint32_t)scz_dtype_size(t);
        for (uint32_t c = 0; c < nc; c++) {
            scz_chunk_entry e;
            scz__table_entry(z1 + SCZ_HEADER_SIZE, c, &e);
            uint64_t first = c * slab, cnt = count - first < slab ? count - first : slab;
            uint64_t rs = 0;
            uint32_t ri = 0;
            uint8_t *ref = ref_lzss_chunk((const uint8_t *)data + first * E, cnt * E, E, kn, &rs, &ri);
            CHECK(ref && rs == e.size && ri == e.info && !memcmp(ref, z1 + e.offset, rs),
                  "%s: chunk %u differs from the reference encoder (%llu/%u bytes/info vs %llu/%u)", what, c,
                  (unsigned long long)e.size, e.info, (unsigned long long)rs, ri);
            free(ref);
        }
    }
    *zn = n1;
    return z1;
}

static void rt(scz_dtype t, const void *data, uint64_t count, knobs k, uint64_t chunk_bytes, const char *what,
               double *ratio) {
    size_t n;
    free(roundtrip(t, data, count, k, chunk_bytes, what, &n, ratio));
}

/* Symbols of S bytes: random, drawn from an alphabet of `alpha` values. */
static void rand_syms(uint8_t *b, uint64_t nbytes, unsigned alpha) {
    for (uint64_t i = 0; i < nbytes; i++) b[i] = (uint8_t)(alpha ? rnd() % alpha : rnd());
}

/* Repeats at every distance and length: a random sequence in which a copy
 * of length L from distance d is planted, for d around 1..W+1 and L around
 * M..M+255+1, every symbol size, 1- and 2-byte distances. */
static void test_repeats(void) {
    const uint32_t Ss[] = {1, 2, 4, 8};
    const uint32_t Ws[] = {1, 7, 256, 300};
    uint8_t *buf = malloc(1 << 20);
    char what[160];
    for (int si = 0; si < 4; si++)
        for (int wi = 0; wi < 4; wi++) {
            uint32_t S = Ss[si], W = Ws[wi];
            uint32_t M = lzss_default_minlen(S, W);
            uint32_t dists[] = {1, 2, 3, W > 3 ? W - 1 : 1, W, W + 1, W + 2};
            uint32_t lens[] = {1, M > 1 ? M - 1 : 1, M, M + 1, M + 100, M + 254, M + 255, M + 256, 2 * M + 600};
            for (int di = 0; di < 7; di++) {
                /* one array per distance: all lengths planted in sequence */
                uint64_t pos = 0;
                uint64_t nsym = 0;
                for (int li = 0; li < 9; li++) {
                    uint32_t d = dists[di], L = lens[li];
                    uint64_t pre = d + 3 + rnd() % 5;
                    rand_syms(buf + pos, pre * S, 0);
                    pos += pre * S;
                    for (uint64_t q = 0; q < (uint64_t)L * S; q++) buf[pos + q] = buf[pos + q - (uint64_t)d * S];
                    pos += (uint64_t)L * S;
                    nsym += pre + L;
                }
                (void)nsym;
                for (int shuf = 1; shuf <= 2; shuf++) {
                    knobs k = {S, W, 0, (uint32_t)shuf, 9};
                    snprintf(what, sizeof what, "repeats S=%u W=%u d=%u shuffle=%d", S, W, dists[di], shuf);
                    rt(SCZ_DTYPE_U8, buf, pos, k, 0, what, NULL);
                }
            }
        }
    /* every distance 1..W+1 and every length 1..40 with a small window */
    for (uint32_t S = 1; S <= 8; S *= 2) {
        uint32_t W = 24;
        uint64_t pos = 0;
        for (uint32_t d = 1; d <= W + 1; d++)
            for (uint32_t L = 1; L <= 40; L += 3) {
                uint64_t pre = 2 + rnd() % 3;
                rand_syms(buf + pos, pre * S, 4); /* small alphabet: many competing candidates */
                pos += pre * S;
                uint64_t back = (uint64_t)d * S < pos ? (uint64_t)d * S : pos;
                for (uint64_t q = 0; q < (uint64_t)L * S; q++) buf[pos + q] = buf[pos + q - back];
                pos += (uint64_t)L * S;
            }
        for (uint32_t M = 1; M <= 4; M++) {
            knobs k = {S, W, M, 1, 8};
            snprintf(what, sizeof what, "all distances S=%u W=%u M=%u", S, W, M);
            rt(SCZ_DTYPE_U8, buf, pos, k, 0, what, NULL);
        }
    }
    free(buf);
}

/* Periodic records, runs, random data, array lengths 0..W+1, sizes not a
 * multiple of the symbol size. */
static void test_families(void) {
    char what[160];
    uint64_t n = 100000;
    uint8_t *b = malloc(8 * n + 64);
    double r;
    /* periodic records: 24-byte structs with a counter and a slowly varying field */
    for (uint64_t i = 0; i < 8 * n / 24; i++) {
        uint8_t *rec = b + 24 * i;
        memset(rec, 0, 24);
        scz__st32(rec, (uint32_t)i);
        scz__st32(rec + 4, 0xABCD0000u + (uint32_t)(i / 100));
        scz__st64(rec + 8, 0x4045000000000000ull);
        rec[16] = (uint8_t)(i % 3);
    }
    for (uint32_t S = 1; S <= 8; S *= 2) {
        knobs k = {S, 0, 0, 0, 0};
        snprintf(what, sizeof what, "records S=%u", S);
        rt(SCZ_DTYPE_U8, b, 8 * n, k, 1 << 18, what, &r);
        CHECK(r > 2.0, "%s: ratio %.2f", what, r);
        k.shuffle = 2;
        snprintf(what, sizeof what, "records as u64 S=%u shuffled", S);
        rt(SCZ_DTYPE_U64, b, n, k, 1 << 18, what, &r);
    }
    /* runs: lengths around the longest match, distance 1 */
    {
        uint64_t pos = 0;
        uint32_t v = 0;
        while (pos < n) {
            uint64_t L = 1 + rnd() % 700;
            if (pos + L > n) L = n - pos;
            for (uint64_t q = 0; q < L; q++) scz__st32(b + 4 * (pos + q), v);
            pos += L;
            v = (uint32_t)rnd();
        }
        for (uint32_t S = 1; S <= 8; S *= 2) {
            knobs k = {S, 0, 0, 0, 0};
            snprintf(what, sizeof what, "runs S=%u", S);
            rt(SCZ_DTYPE_U32, b, n, k, 0, what, &r);
            CHECK(r > 10.0, "%s: ratio %.2f", what, r);
        }
        memset(b, 0x11, 8 * n);
        knobs k = {0, 0, 0, 0, 16};
        rt(SCZ_DTYPE_U64, b, n, k, 0, "constant, 65536-symbol sub-chunks", &r);
        CHECK(r > 50.0, "constant ratio %.2f", r);
    }
    /* random data: every sub-chunk stored, then the chunk stored */
    {
        rand_syms(b, 8 * n, 0);
        size_t zn;
        knobs k = {0, 0, 0, 0, 0};
        uint8_t *z = roundtrip(SCZ_DTYPE_U32, b, 2 * n, k, 1 << 16, "random", &zn, NULL);
        if (z) {
            uint32_t nc = scz__ld32(z + 64);
            for (uint32_t c = 0; c < nc; c++) {
                scz_chunk_entry e;
                scz__table_entry(z + SCZ_HEADER_SIZE, c, &e);
                CHECK(e.info == LZSS_INFO_STORED, "random: chunk %u not stored", c);
            }
            free(z);
        }
        /* half random, half runs: stored and coded sub-chunks in one chunk */
        for (uint64_t i = 0; i + 16384 <= 8 * n; i += 2 * 16384) memset(b + i, (int)(i >> 15), 16384);
        for (uint32_t lg = 8; lg <= 12; lg += 4) {
            knobs k2 = {4, 0, 0, 1, lg};
            snprintf(what, sizeof what, "mixed stored and coded sub-chunks lg=%u", lg);
            z = roundtrip(SCZ_DTYPE_U32, b, 2 * n, k2, 0, what, &zn, &r);
            CHECK(r > 1.5 && r < 2.5, "%s: ratio %.2f", what, r);
            free(z);
        }
    }
    /* array lengths 0..W+1 with W = 40, sub-chunks of 256 symbols; small alphabets */
    for (uint32_t S = 1; S <= 8; S *= 2)
        for (uint64_t len = 0; len <= 41; len++) {
            rand_syms(b, len * 8, 3);
            knobs k = {S, 40, 0, len % 2 ? 2 : 1, 8};
            snprintf(what, sizeof what, "u8 length %llu S=%u", (unsigned long long)len, S);
            rt(SCZ_DTYPE_U8, b, len, k, 0, what, NULL);
            snprintf(what, sizeof what, "u16 length %llu S=%u", (unsigned long long)len, S);
            rt(SCZ_DTYPE_U16, b, len, k, 0, what, NULL);
            snprintf(what, sizeof what, "f64 length %llu S=%u", (unsigned long long)len, S);
            rt(SCZ_DTYPE_F64, b, len, k, 0, what, NULL);
        }
    /* sizes not a multiple of the symbol, over several sub-chunks */
    {
        const uint64_t sizes[] = {257, 1023, 1025, 4099, 65537};
        for (int si = 0; si < 5; si++)
            for (uint32_t S = 2; S <= 8; S *= 2) {
                for (uint64_t i = 0; i < sizes[si]; i++) b[i] = (uint8_t)((i / 7) % 5);
                knobs k = {S, 0, 0, 0, 8};
                snprintf(what, sizeof what, "u8 x %llu, S=%u", (unsigned long long)sizes[si], S);
                rt(SCZ_DTYPE_U8, b, sizes[si], k, 0, what, NULL);
                if (S >= 4) {
                    snprintf(what, sizeof what, "u16 x %llu, S=%u", (unsigned long long)sizes[si], S);
                    rt(SCZ_DTYPE_U16, b, sizes[si] / 2, k, 0, what, NULL);
                }
            }
    }
    free(b);
}

/* Every dtype, its defaults and both shuffles, on the generated float
 * families and integer fields derived from them, rank 1-4. */
static void test_dtypes(void) {
    char what[160];
    const scz_dtype ts[] = {SCZ_DTYPE_U8, SCZ_DTYPE_U16, SCZ_DTYPE_U32, SCZ_DTYPE_U64, SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    for (int f = 0; f < GEN_NUM_FAMILIES; f++)
        for (int ti = 0; ti < 6; ti++) {
            scz_shape fs = {ti == 5 ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32, 3, {37, 21, 13, 1}};
            size_t bytes;
            void *fld = gen_field((gen_family)f, &fs, 7 + (uint64_t)f, &bytes);
            uint64_t count = gen_count(&fs);
            scz_dtype t = ts[ti];
            void *data = fld;
            uint8_t *conv = NULL;
            if (t != SCZ_DTYPE_F32 && t != SCZ_DTYPE_F64) { /* quantized codes of the field */
                size_t E = scz_dtype_size(t);
                conv = calloc(count, E);
                const float *x = fld;
                for (uint64_t i = 0; i < count; i++) {
                    float v = x[i];
                    uint64_t q = (v == v && v > -1e6f && v < 1e6f) ? (uint64_t)(int64_t)(v * 100.0f) : 0;
                    memcpy(conv + i * E, &q, E);
                }
                data = conv;
            }
            for (int shuf = 0; shuf <= 2; shuf++) {
                knobs k = {0, 0, 0, (uint32_t)shuf, 0};
                snprintf(what, sizeof what, "%s %s shuffle knob %d", gen_family_name((gen_family)f),
                         scz_dtype_name(t), shuf);
                rt(t, data, count, k, 1 << 14, what, NULL);
            }
            free(conv);
            free(fld);
        }
    /* rank 4 through the public API with the defaults */
    {
        scz_shape sh = {SCZ_DTYPE_F32, 4, {5, 6, 7, 8}};
        size_t bytes;
        void *fld = gen_field(GEN_SMOOTH, &sh, 3, &bytes);
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_LZSS);
        p.chunk_bytes = 4096;
        size_t n;
        uint8_t *z = tu_compress(ctx2, &p, &sh, fld, &n, "rank 4");
        uint8_t *out = malloc(bytes);
        CHECK(z && scz_decompress(ctx2, z, n, out, bytes, NULL) == SCZ_OK && !memcmp(out, fld, bytes),
              "rank 4 round trip");
        if (z) {
            CHECK(scz__ld32(z + 88) == 4 && scz__ld32(z + 92) == 256 && scz__ld32(z + 96) == 1 &&
                      scz__ld32(z + 100) == 2 && scz__ld32(z + 104) == 12 && scz__ld32(z + 108) == 0,
                  "f32 default knobs stored as 4/256/1/2/12/0");
        }
        free(z);
        free(out);
        free(fld);
    }
}

/* Invalid parameters are refused by the writer. */
static void test_params(void) {
    scz_shape sh = {SCZ_DTYPE_U8, 1, {1000, 1, 1, 1}};
    uint8_t src[1000] = {0}, dst[4096];
    const uint32_t bad[][6] = {{3, 0, 0, 0, 0, 0},   {16, 0, 0, 0, 0, 0}, {0, 65537, 0, 0, 0, 0},
                               {0, 0, 256, 0, 0, 0}, {0, 0, 0, 3, 0, 0},  {0, 0, 0, 0, 7, 0},
                               {0, 0, 0, 0, 17, 0},  {0, 0, 0, 0, 0, 1}};
    for (int i = 0; i < 8; i++) {
        scz_params p;
        scz_params_init(&p, SCZ_CODEC_LZSS);
        memcpy(p.knobs, bad[i], sizeof p.knobs);
        size_t n;
        CHECK(scz_compress(ctx1, &p, &sh, src, dst, sizeof dst, &n) != SCZ_OK, "bad knobs %d accepted", i);
    }
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LZSS);
    p.eb_mode = SCZ_EB_ABS;
    p.eb = 1;
    size_t n;
    CHECK(scz_compress(ctx1, &p, &sh, src, dst, sizeof dst, &n) != SCZ_OK, "lzss with an error bound accepted");
}

/* ---- invalid payloads ---- */

static int decodes(const uint8_t *z, size_t n, size_t raw) {
    uint8_t *out = tu_guarded_alloc(raw, 0);
    scz_status r = scz_decompress(ctx2, z, n, out, raw, NULL);
    CHECK(tu_guard_intact(out, raw), "decoder wrote past the array");
    free(out);
    return r == SCZ_OK;
}

/* A copy of z (one chunk) whose payload is pay[0..m), resealed. */
static uint8_t *with_payload(const uint8_t *z, size_t n, const uint8_t *pay, uint64_t m, uint32_t info,
                             size_t *n_out) {
    uint8_t *c = tu_edit_chunk(z, n, 0, m, info, n_out);
    scz_chunk_entry e;
    scz__table_entry(c + SCZ_HEADER_SIZE, 0, &e);
    memcpy(c + e.offset, pay, m);
    tu_reseal_chunk(c, 0);
    return c;
}

static void test_invalid(void) {
    /* a one-chunk u8 stream, S=1, W=256, M=3, no shuffle, 256-symbol sub-chunks, 4 sub-chunks */
    const uint64_t count = 1000;
    uint8_t *data = malloc(count);
    for (uint64_t i = 0; i < count; i++) data[i] = (uint8_t)((i % 50) < 25 ? i % 7 : rnd() % 3);
    knobs k = {1, 256, 3, 1, 8};
    size_t n;
    uint8_t *z = roundtrip(SCZ_DTYPE_U8, data, count, k, 0, "invalid base", &n, NULL);
    if (!z) return;
    scz_chunk_entry e;
    scz__table_entry(z + SCZ_HEADER_SIZE, 0, &e);
    CHECK(e.info == LZSS_INFO_CODED, "base stream not coded");
    const uint8_t *pay = z + e.offset;
    const uint64_t ps = e.size;
    uint8_t *q = malloc(ps + 64);
    size_t m;
    uint8_t *c;

    /* truncated and extended payloads, wrong codec_info */
    int bad = 0;
    for (uint64_t L = 0; L < ps + 3; L++) {
        if (L == ps) continue;
        memcpy(q, pay, ps < L ? ps : L);
        if (L > ps) memset(q + ps, 0, L - ps);
        c = with_payload(z, n, q, L, e.info, &m);
        if (decodes(c, m, count)) bad++;
        free(c);
    }
    CHECK(!bad, "%d truncated/extended payloads accepted", bad);
    for (uint32_t info = 0; info < 4; info++) {
        if (info == e.info) continue;
        c = with_payload(z, n, pay, ps, info, &m);
        CHECK(!decodes(c, m, count), "codec_info %u on a coded payload accepted", info);
        free(c);
    }
    /* header fields of the payload */
    for (int f = 0; f < 8; f++) {
        memcpy(q, pay, ps);
        q[f] ^= 1;
        c = with_payload(z, n, q, ps, e.info, &m);
        CHECK(!decodes(c, m, count), "payload header byte %d changed, accepted", f);
        free(c);
    }
    /* end offsets: decreasing, beyond a sub-chunk's size, total mismatch */
    {
        memcpy(q, pay, ps);
        uint32_t e0 = scz__ld32(q + 8), e1 = scz__ld32(q + 12);
        scz__st32(q + 8, e1 + 1);
        c = with_payload(z, n, q, ps, e.info, &m);
        CHECK(!decodes(c, m, count), "decreasing end offsets accepted");
        free(c);
        memcpy(q, pay, ps);
        scz__st32(q + 8, e0 + 300);
        c = with_payload(z, n, q, ps, e.info, &m);
        CHECK(!decodes(c, m, count), "sub-chunk body larger than its raw bytes accepted");
        free(c);
    }
    /* hand-made bodies: 40 equal u8 in one sub-chunk, S=1, M=3 */
    {
        uint8_t forty[40];
        memset(forty, 9, 40);
        for (int wi = 0; wi < 2; wi++) {
            uint32_t W = wi ? 4 : 256;
            knobs k40 = {1, W, 3, 1, 8};
            size_t n40;
            uint8_t *z40 = roundtrip(SCZ_DTYPE_U8, forty, 40, k40, 0, "forty", &n40, NULL);
            if (!z40) continue;
            scz_chunk_entry e40;
            scz__table_entry(z40 + SCZ_HEADER_SIZE, 0, &e40);
            uint8_t hdr[8] = {1, 1, 8, 3, 0, 0, 0, 0};
            scz__st32(hdr + 4, W);
            /* literal 9, then the match (d=1, L=39): L - M = 36 */
            const uint8_t want[] = {hdr[0], hdr[1], hdr[2], hdr[3], hdr[4], hdr[5], hdr[6], hdr[7],
                                    4, 0, 0, 0, 0x02, 9, 0, 36};
            CHECK(e40.info == 1 && e40.size == sizeof want && !memcmp(z40 + e40.offset, want, sizeof want),
                  "forty equal bytes (W=%u): payload differs from FORMAT.md by hand", W);
            struct {
                const char *what;
                uint8_t body[12];
                int len, ok;
            } cases[] = {
                {"the writer's body", {0x02, 9, 0, 36}, 4, 1},
                {"five literals, match d=4", {0x20, 9, 9, 9, 9, 9, 3, 32}, 8, 1},
                {"five literals, match d=5", {0x20, 9, 9, 9, 9, 9, 4, 32}, 8, W >= 5},
                {"match first (distance beyond the output)", {0x01, 0, 37}, 3, 0},
                {"distance 2 after one symbol", {0x02, 9, 1, 36}, 4, 0},
                {"match past the end", {0x02, 9, 0, 37}, 4, 0},
                {"match one symbol short", {0x02, 9, 0, 35}, 4, 0},
                {"flag bit after the last symbol", {0x06, 9, 0, 36, 0, 0}, 6, 0},
                {"body ends early", {0x02, 9, 0}, 3, 0},
                {"byte left over", {0x02, 9, 0, 36, 0}, 5, 0},
                {"empty body", {0}, 0, 0},
            };
            for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                uint8_t p40[32];
                memcpy(p40, hdr, 8);
                scz__st32(p40 + 8, (uint32_t)cases[i].len);
                memcpy(p40 + 12, cases[i].body, (size_t)cases[i].len);
                c = with_payload(z40, n40, p40, 12 + (uint64_t)cases[i].len, 1, &m);
                CHECK(decodes(c, m, 40) == cases[i].ok, "W=%u: hand-made body '%s': %s", W, cases[i].what,
                      cases[i].ok ? "rejected" : "accepted");
                free(c);
            }
            free(z40);
        }
    }
    /* header knobs out of range or 0 (resealed) */
    {
        const uint32_t out_of_range[6] = {3, 65537, 256, 3, 17, 1};
        for (int kk = 0; kk < 6; kk++) {
            uint8_t *h = malloc(n);
            memcpy(h, z, n);
            scz__st32(h + 88 + 4 * kk, out_of_range[kk]);
            tu_reseal_header(h);
            CHECK(!decodes(h, n, count), "header knob %d = %u accepted", kk, out_of_range[kk]);
            scz__st32(h + 88 + 4 * kk, 0);
            tu_reseal_header(h);
            if (kk < 5) CHECK(!decodes(h, n, count), "header knob %d = 0 accepted", kk);
            free(h);
        }
    }
    /* random corruption behind valid checksums: an error or the right bytes, never a crash */
    {
        int accepted = 0;
        for (int t = 0; t < 3000; t++) {
            memcpy(q, pay, ps);
            int flips = 1 + (int)(rnd() % 4);
            for (int f = 0; f < flips; f++) {
                uint64_t at = 8 + rnd() % (ps - 8);
                q[at] ^= (uint8_t)(1u << (rnd() % 8));
            }
            c = with_payload(z, n, q, ps, e.info, &m);
            accepted += decodes(c, m, count);
            free(c);
        }
        fprintf(stderr, "random corruption: %d of 3000 corrupted payloads still decoded (to other bytes)\n",
                accepted);
    }
    free(q);
    free(z);
    free(data);
}

/* Every file of $SCZ_DATA_DIR: round trips (shuffle on and off), the
 * reference encoder on a 64 KiB prefix. */
static void test_data_files(void) {
    tu_datafile *files;
    int nf = tu_data_files(&files);
    if (nf == 0) {
        fprintf(stderr, "test_lzss: SCZ_DATA_DIR absent: data files skipped\n");
        return;
    }
    for (int i = 0; i < nf; i++) {
        size_t sz;
        uint8_t *d = tu_read_file(files[i].path, &sz);
        CHECK(d != NULL, "%s: unreadable", files[i].name);
        if (!d) continue;
        scz_dtype t = files[i].shape.dtype;
        uint64_t count = sz / scz_dtype_size(t);
        double r1 = 0, r2 = 0;
        char what[320];
        ref_checks = 0;
        knobs off = {0, 0, 0, 1, 0}, on = {0, 0, 0, 2, 0};
        snprintf(what, sizeof what, "%s no shuffle", files[i].name);
        rt(t, d, count, off, 0, what, &r1);
        snprintf(what, sizeof what, "%s shuffle", files[i].name);
        rt(t, d, count, on, 0, what, &r2);
        ref_checks = 1;
        uint64_t pre = (65536 / scz_dtype_size(t)) < count ? 65536 / scz_dtype_size(t) : count;
        snprintf(what, sizeof what, "%s prefix, reference", files[i].name);
        rt(t, d, pre, on, 0, what, NULL);
        printf("  %-44s ratio %.3f (no shuffle) %.3f (shuffle)\n", files[i].name, r1, r2);
        free(d);
    }
    free(files);
}

int main(void) {
    if (scz_ctx_create(&ctx1, SCZ_BACKEND_CPU) || scz_ctx_create(&ctx2, SCZ_BACKEND_CPU)) return 1;
    scz_ctx_set_threads(ctx1, 1);
    scz_ctx_set_threads(ctx2, 2);
    test_repeats();
    test_families();
    test_dtypes();
    test_params();
    test_invalid();
    test_data_files();
    scz_ctx_destroy(ctx1);
    scz_ctx_destroy(ctx2);
    return tu_finish("test_lzss");
}

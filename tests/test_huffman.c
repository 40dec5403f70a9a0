/*
 * test_huffman.c -- the canonical Huffman coder (src/entropy) and the
 * lossless `huffman` codec: codebook properties (length limit, Kraft sum,
 * optimality without the limit, determinism), Huffman streams round-tripped
 * through every range/thread split with identical bytes, bit-exact codec
 * round trips of u8/u16/u32 (single symbol, all distinct, skewed, random,
 * escapes), and truncated / corrupted payloads rejected without crashing.
 */
#include "entropy/huff_limit.h"
#include "entropy/huff_rounds.h"
#include "entropy/huffman.h"
#include "gen.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

extern const scz_codec_ops scz__huffman_ops;

static uint64_t rng = 0x1234;
static uint64_t rnd(void) { return gen_splitmix64(&rng); }

/* Cost of an unrestricted Huffman code (sum of internal node weights),
 * with a binary min-heap: an independent reference for optimality. */
static void heap_down(uint64_t *h, uint32_t m, uint32_t i) {
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < m && h[l] < h[s]) s = l;
        if (r < m && h[r] < h[s]) s = r;
        if (s == i) return;
        uint64_t t = h[i];
        h[i] = h[s];
        h[s] = t;
        i = s;
    }
}
static uint64_t huffman_cost_ref(const uint64_t *hist, uint32_t K) {
    uint64_t *h = malloc(K * sizeof *h);
    uint32_t m = 0;
    for (uint32_t s = 0; s < K; s++)
        if (hist[s]) h[m++] = hist[s];
    if (m == 1) {
        uint64_t c = h[0];
        free(h);
        return c; /* one symbol: 1 bit each */
    }
    for (uint32_t i = m / 2 + 1; i-- > 0;) heap_down(h, m, i);
    uint64_t cost = 0;
    while (m > 1) {
        uint64_t a = h[0];
        h[0] = h[--m];
        heap_down(h, m, 0);
        uint64_t s = a + h[0];
        cost += s;
        h[0] = s;
        heap_down(h, m, 0);
    }
    free(h);
    return cost;
}

static void test_codebook(void) {
    scz_huff_enc *book = malloc(sizeof *book), *book2 = malloc(sizeof *book2);
    void *work = malloc(scz__huff_work_size(SCZ_HUFF_MAX_K));
    uint64_t *hist = calloc(SCZ_HUFF_MAX_K, sizeof *hist);
    for (int trial = 0; trial < 60; trial++) {
        uint32_t K = trial < 20 ? 1 + (uint32_t)(rnd() % 300) : trial < 40 ? 1026 : 65536;
        memset(hist, 0, K * sizeof *hist);
        int kind = trial % 4;
        for (uint32_t s = 0; s < K; s++) {
            uint64_t r = rnd();
            if (kind == 0) hist[s] = r % 1000;                         /* uniform-ish, some zeros */
            else if (kind == 1) hist[s] = (r % 3 == 0) ? 1 + r % 7 : 0; /* sparse, many ties */
            else if (kind == 2) hist[s] = (uint64_t)(1e6 * exp(-fabs((double)s - K / 2.0) / 3.0)); /* peaked */
            else hist[s] = 5;                                            /* all equal */
        }
        if (trial == 5) { memset(hist, 0, K * sizeof *hist); hist[K - 1] = 77; }
        scz__huff_build(hist, K, book, work);
        scz__huff_build(hist, K, book2, work);
        CHECK(!memcmp(book->len, book2->len, K) && !memcmp(book->entry, book2->entry, K * 4),
              "codebook not deterministic (trial %d)", trial);
        uint64_t kraft = 0, bits = 0, used = 0;
        int maxl = 0, ok = 1;
        for (uint32_t s = 0; s < K; s++) {
            unsigned l = book->len[s];
            if (hist[s] && !l) ok = 0;
            if (!hist[s] && l) ok = 0;
            if (l) kraft += (uint64_t)1 << (16 - l), used++;
            if ((int)l > maxl) maxl = (int)l;
            bits += hist[s] * l;
        }
        CHECK(ok, "codebook: used symbols and codes do not match (trial %d)", trial);
        CHECK(maxl <= 16, "codeword of %d bits", maxl);
        CHECK(used < 2 ? kraft <= 65536 : kraft == 65536, "Kraft sum %llu/65536 (trial %d)",
              (unsigned long long)kraft, trial);
        if (maxl < 16 && used > 0) {
            uint64_t ref = huffman_cost_ref(hist, K);
            CHECK(bits == ref, "not optimal: %llu bits vs %llu (trial %d)", (unsigned long long)bits,
                  (unsigned long long)ref, trial);
        }
        /* canonical: codes of the same length ascend with the symbol and are prefix-free */
        uint32_t prev_code[17] = {0};
        int seen[17] = {0}, canon = 1;
        for (uint32_t s = 0; s < K; s++) {
            unsigned l = book->len[s];
            if (!l) continue;
            uint32_t c = book->entry[s] >> 5;
            if (seen[l] && c != prev_code[l] + 1) canon = 0;
            seen[l] = 1;
            prev_code[l] = c;
        }
        CHECK(canon, "codes of equal length are not consecutive (trial %d)", trial);
    }
    /* length limit: Fibonacci counts force depths far above 16 */
    {
        uint32_t K = 40;
        uint64_t a = 1, b = 1;
        for (uint32_t s = 0; s < K; s++) {
            hist[s] = a;
            uint64_t c = a + b;
            a = b;
            b = c;
        }
        scz__huff_build(hist, K, book, work);
        uint64_t kraft = 0;
        int maxl = 0;
        for (uint32_t s = 0; s < K; s++) {
            kraft += (uint64_t)1 << (16 - book->len[s]);
            if (book->len[s] > maxl) maxl = book->len[s];
            CHECK(book->len[s] >= 1, "symbol %u without code", s);
        }
        CHECK(maxl == 16 && kraft == 65536, "length-limited code: max %d, Kraft %llu", maxl,
              (unsigned long long)kraft);
        for (uint32_t s = 1; s < K; s++)
            CHECK(book->len[s] <= book->len[s - 1], "more frequent symbol %u got a longer code", s);
    }
    /* 65536 equally likely symbols: all 16 bits */
    for (uint32_t s = 0; s < 65536; s++) hist[s] = 3;
    scz__huff_build(hist, 65536, book, work);
    int all16 = 1;
    for (uint32_t s = 0; s < 65536; s++) all16 &= book->len[s] == 16 && (book->entry[s] >> 5) == s;
    CHECK(all16, "65536 equal symbols: not all 16-bit identity codes");
    free(hist);
    free(work);
    free(book);
    free(book2);
}

/* Encodes syms with several range splits, checks identical bytes, decodes
 * with several thread counts. */
static void hs_roundtrip(const uint16_t *syms, uint64_t n, uint32_t K, const char *what) {
    uint64_t *hist = calloc(K, sizeof *hist);
    for (uint64_t i = 0; i < n; i++) hist[syms[i]]++;
    scz_huff_enc *book = malloc(sizeof *book);
    void *work = malloc(scz__huff_work_size(K));
    scz__huff_build(hist, K, book, work);
    scz_hs_info hi;
    scz__hs_plan(book, hist, n, &hi);
    uint8_t *ref = NULL, *buf = malloc(hi.size + 64), *gap = malloc(hi.n_units + 16);
    uint16_t *dec = malloc(2 * n + 2);
    scz_huff_dec *hd = malloc(sizeof *hd);
    int splits[] = {1, 2, 3, 7, 64};
    for (int k = 0; k < 5; k++) {
        int R = splits[k];
        uint64_t rs[65];
        for (int r = 0; r <= R; r++) rs[r] = n * (uint64_t)r / (uint64_t)R;
        memset(buf, 0xEE, hi.size + 64);
        scz__hs_write(&hi, book, syms, 2, R, rs, NULL, buf, gap);
        CHECK(buf[hi.size] == 0xEE, "%s: writer overran its size", what);
        if (!ref) {
            ref = malloc(hi.size);
            memcpy(ref, buf, hi.size);
        } else {
            CHECK(!memcmp(ref, buf, hi.size), "%s: stream differs with %d ranges", what, R);
        }
    }
    int threads[] = {1, 2, 5};
    for (int k = 0; k < 3; k++) {
        uint64_t used = 0;
        memset(dec, 0, 2 * n);
        scz_status st = scz__hs_read(NULL, ref, hi.size, K, n, hd, dec, 2, threads[k], &used);
        CHECK(st == SCZ_OK && used == hi.size, "%s: decode failed (%d) with %d threads", what, (int)st, threads[k]);
        CHECK(!memcmp(dec, syms, 2 * n), "%s: decoded symbols differ", what);
    }
    /* truncation at every length (small streams) or at a sample of lengths */
    uint64_t step = hi.size > 3000 ? hi.size / 500 : 1;
    int trunc_ok = 1;
    for (uint64_t L = 0; L < hi.size; L += step) {
        uint64_t used;
        if (scz__hs_read(NULL, ref, L, K, n, hd, dec, 2, 1, &used) == SCZ_OK) trunc_ok = 0;
    }
    CHECK(trunc_ok, "%s: a truncated stream was accepted", what);
    /* single-byte corruption: must not crash; count detections */
    int detected = 0, tries = 0;
    for (int t = 0; t < 300 && hi.size; t++) {
        uint64_t at = rnd() % hi.size;
        uint8_t old = ref[at];
        ref[at] ^= (uint8_t)(1u << (rnd() % 8));
        uint64_t used;
        scz_status st = scz__hs_read(NULL, ref, hi.size, K, n, hd, dec, 2, 1, &used);
        if (st != SCZ_OK || memcmp(dec, syms, 2 * n)) detected += st != SCZ_OK;
        tries++;
        ref[at] = old;
    }
    (void)detected;
    free(ref);
    free(buf);
    free(gap);
    free(dec);
    free(hd);
    free(book);
    free(work);
    free(hist);
}

static void test_streams(void) {
    uint64_t sizes[] = {1, 2, 31, 32, 33, 1000, 4096, 70001, 400000};
    uint16_t *s = malloc(2 * 400000);
    for (int k = 0; k < 9; k++) {
        uint64_t n = sizes[k];
        char what[64];
        /* peaked (lossy-like) */
        for (uint64_t i = 0; i < n; i++) {
            uint64_t r = rnd();
            int d = (int)(r % 16) == 0 ? (int)(r >> 8) % 200 - 100 : (int)((r >> 4) % 3) - 1;
            s[i] = (uint16_t)(512 + d);
        }
        snprintf(what, sizeof what, "peaked n=%llu", (unsigned long long)n);
        hs_roundtrip(s, n, 1026, what);
        /* single symbol */
        for (uint64_t i = 0; i < n; i++) s[i] = 7;
        snprintf(what, sizeof what, "single n=%llu", (unsigned long long)n);
        hs_roundtrip(s, n, 1026, what);
        /* uniform over 65536: long codes, slow decoding path */
        for (uint64_t i = 0; i < n; i++) s[i] = (uint16_t)rnd();
        snprintf(what, sizeof what, "uniform16 n=%llu", (unsigned long long)n);
        hs_roundtrip(s, n, 65536, what);
    }
    /* skewed distribution with codewords of every length 1..16 */
    {
        uint64_t n = 200000;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t r = rnd();
            int z = __builtin_ctzll(r | (1ull << 40));
            s[i] = (uint16_t)(z * 37 + (r >> 50) % 2);
        }
        hs_roundtrip(s, n, 65536, "geometric");
    }
    free(s);
}

/* ---- the codec through the public API ---- */

static void codec_roundtrip(scz_dtype t, const void *data, uint32_t rank, const uint64_t *dims,
                            uint64_t chunk_bytes, const char *what, double *ratio) {
    scz_shape sh = {t, rank, {1, 1, 1, 1}};
    for (uint32_t i = 0; i < rank; i++) sh.dims[i] = dims[i];
    uint64_t count = scz_shape_count(&sh);
    size_t raw = count * scz_dtype_size(t);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    p.chunk_bytes = chunk_bytes;
    size_t cap = scz_compress_bound(&sh, &p);
    CHECK(cap > 0, "%s: no bound", what);
    uint8_t *c1 = malloc(cap), *c2 = malloc(cap);
    uint8_t *out = malloc(raw + 1);
    scz_ctx *ctx;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    size_t n1 = 0, n2 = 0;
    scz_ctx_set_threads(ctx, 1);
    scz_status st = scz_compress(ctx, &p, &sh, data, c1, cap, &n1);
    CHECK(st == SCZ_OK, "%s: compress failed: %s", what, scz_ctx_last_error(ctx));
    scz_ctx_set_threads(ctx, 2);
    st = scz_compress(ctx, &p, &sh, data, c2, cap, &n2);
    CHECK(st == SCZ_OK && n1 == n2 && !memcmp(c1, c2, n1), "%s: 1 and 2 threads give different streams", what);
    memset(out, 0x5A, raw + 1);
    st = scz_decompress(ctx, c1, n1, out, raw, NULL);
    CHECK(st == SCZ_OK, "%s: decompress failed: %s", what, scz_ctx_last_error(ctx));
    CHECK(!memcmp(out, data, raw), "%s: not bit-exact", what);
    if (ratio) *ratio = n1 ? (double)raw / (double)n1 : 0;
    scz_ctx_destroy(ctx);
    free(c1);
    free(c2);
    free(out);
}

static void test_codec(void) {
    uint64_t n = 300000;
    uint8_t *b = malloc(4 * n);
    uint64_t d1[1] = {n};
    double r;
    /* u8 */
    for (uint64_t i = 0; i < n; i++) b[i] = (uint8_t)(__builtin_ctzll(rnd() | 1ull << 20) + 'a');
    codec_roundtrip(SCZ_DTYPE_U8, b, 1, d1, 0, "u8 skewed", &r);
    CHECK(r > 3.0, "u8 skewed ratio %.2f", r);
    memset(b, 42, n);
    codec_roundtrip(SCZ_DTYPE_U8, b, 1, d1, 0, "u8 single symbol", &r);
    CHECK(r > 7.5, "u8 single-symbol ratio %.2f", r);
    for (uint64_t i = 0; i < n; i++) b[i] = (uint8_t)rnd();
    codec_roundtrip(SCZ_DTYPE_U8, b, 1, d1, 0, "u8 random", &r);
    for (uint64_t i = 0; i < 256; i++) b[i] = (uint8_t)i;
    uint64_t d256[1] = {256};
    codec_roundtrip(SCZ_DTYPE_U8, b, 1, d256, 0, "u8 all distinct", NULL);
    uint64_t d3[3] = {7, 13, 11};
    codec_roundtrip(SCZ_DTYPE_U8, b, 3, d3, 0, "u8 3D odd", NULL);
    /* u16 */
    uint16_t *h = (uint16_t *)b;
    for (uint64_t i = 0; i < n; i++) h[i] = (uint16_t)(1000 + (int)(rnd() % 9) - 4);
    uint64_t d2[2] = {600, 500};
    codec_roundtrip(SCZ_DTYPE_U16, h, 2, d2, 64 << 10, "u16 peaked, many chunks", &r);
    CHECK(r > 4.0, "u16 peaked ratio %.2f", r);
    for (uint64_t i = 0; i < 65536; i++) h[i] = (uint16_t)(i * 40503u);
    uint64_t d64k[1] = {65536};
    codec_roundtrip(SCZ_DTYPE_U16, h, 1, d64k, 0, "u16 all 65536 distinct", NULL);
    for (uint64_t i = 0; i < n; i++) h[i] = 65535;
    codec_roundtrip(SCZ_DTYPE_U16, h, 1, d1, 0, "u16 single symbol", &r);
    CHECK(r > 15.0, "u16 single-symbol ratio %.2f", r);
    /* u32 */
    uint32_t *w = (uint32_t *)b;
    for (uint64_t i = 0; i < n; i++) w[i] = 0xDEADBEEFu;
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, d1, 0, "u32 single symbol", &r);
    CHECK(r > 30.0, "u32 single-symbol ratio %.2f", r);
    for (uint64_t i = 0; i < n; i++) w[i] = (uint32_t)(rnd() % 5000) * 1000003u;
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, d1, 0, "u32 5000 values", &r);
    CHECK(r > 2.0, "u32 5000-value ratio %.2f", r);
    for (uint64_t i = 0; i < n; i++) w[i] = (uint32_t)(i * 2654435761u);
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, d1, 0, "u32 all distinct (escapes)", NULL);
    for (uint64_t i = 0; i < n; i++) w[i] = (i % 3) ? (uint32_t)(rnd() % 100) : (uint32_t)rnd();
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, d1, 0, "u32 mixed escapes", &r);
    for (uint64_t i = 0; i < 65536; i++) w[i] = (uint32_t)(i * 7u);
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, d64k, 0, "u32 exactly 65536 distinct", NULL);
    uint64_t d65537[1] = {65537};
    for (uint64_t i = 0; i < 65537; i++) w[i] = (uint32_t)(i * 7u);
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, d65537, 0, "u32 65537 distinct", NULL);
    uint64_t one[1] = {1};
    codec_roundtrip(SCZ_DTYPE_U32, w, 1, one, 0, "u32 one element", NULL);
    uint64_t empty[2] = {0, 5};
    codec_roundtrip(SCZ_DTYPE_U16, w, 2, empty, 0, "u16 empty", NULL);
    uint64_t d4[4] = {5, 4, 3, 7};
    codec_roundtrip(SCZ_DTYPE_U32, w, 4, d4, 0, "u32 4D", NULL);
    free(b);

    /* parameters */
    scz_shape fs = {SCZ_DTYPE_F32, 1, {16, 1, 1, 1}};
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    float fd[16] = {0};
    uint8_t dst[4096];
    size_t ds;
    scz_ctx *ctx;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    CHECK(scz_compress(ctx, &p, &fs, fd, dst, sizeof dst, &ds) == SCZ_ERR_UNSUPPORTED, "f32 accepted");
    fs.dtype = SCZ_DTYPE_U8;
    p.knobs[0] = 1;
    CHECK(scz_compress(ctx, &p, &fs, fd, dst, sizeof dst, &ds) == SCZ_ERR_ARG, "knob accepted");
    p.knobs[0] = 0;
    p.eb_mode = SCZ_EB_ABS;
    p.eb = 1;
    CHECK(scz_compress(ctx, &p, &fs, fd, dst, sizeof dst, &ds) == SCZ_ERR_ARG, "error bound accepted");
    CHECK(scz_codec_is_lossless(SCZ_CODEC_HUFFMAN) && scz_codec_available(SCZ_CODEC_HUFFMAN), "registry");
    scz_ctx_destroy(ctx);
}

/* White-box: the codec's decompress_chunk on truncated and corrupted payloads. */
static void payload_attack(scz_dtype t, const void *data, uint64_t n, const char *what) {
    const scz_codec_ops *ops = &scz__huffman_ops;
    scz_header h;
    memset(&h, 0, sizeof h);
    h.codec = SCZ_CODEC_HUFFMAN;
    h.dtype = t;
    h.rank = 1;
    h.dims[0] = n;
    h.dims[1] = h.dims[2] = h.dims[3] = 1;
    scz_chunk_geom g = {t, (uint32_t)scz_dtype_size(t), 1, {n, 1, 1}, n};
    uint64_t cap = ops->chunk_bound(&h, &g), size = 0;
    uint8_t *pay = malloc(cap), *dst = malloc(n * g.esize + 1);
    uint32_t info = 0;
    scz_ctx *ctx;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    scz_ctx_set_threads(ctx, 1);
    CHECK(ops->compress_chunk(ctx, &h, &g, data, pay, cap, &size, &info) == SCZ_OK, "%s: compress", what);
    CHECK(ops->decompress_chunk(ctx, &h, &g, pay, size, info, dst) == SCZ_OK && !memcmp(dst, data, n * g.esize),
          "%s: white-box round trip", what);
    int bad = 0;
    uint64_t step = size > 4000 ? size / 700 : 1;
    for (uint64_t L = 0; L < size; L += step) {
        uint8_t *cp = malloc(L ? L : 1); /* exact-size copy so ASan sees any over-read */
        memcpy(cp, pay, L);
        if (ops->decompress_chunk(ctx, &h, &g, cp, L, info, dst) == SCZ_OK) bad++;
        free(cp);
    }
    CHECK(!bad, "%s: %d truncated payloads accepted", what, bad);
    CHECK(ops->decompress_chunk(ctx, &h, &g, pay, size, info ^ 1, dst) != SCZ_OK, "%s: wrong codec_info accepted", what);
    int detected = 0;
    for (int k = 0; k < 400; k++) {
        uint64_t at = rnd() % size;
        uint8_t old = pay[at];
        pay[at] ^= (uint8_t)(1 + rnd() % 255);
        if (ops->decompress_chunk(ctx, &h, &g, pay, size, info, dst) != SCZ_OK) detected++;
        pay[at] = old;
    }
    printf("  %s: %llu-byte payload, %d of 400 byte corruptions detected by the codec alone\n", what,
           (unsigned long long)size, detected);
    scz_ctx_destroy(ctx);
    free(pay);
    free(dst);
}


/* FORMAT.md 8.5: the u32 dictionary is the 65535 most frequent values
 * (count descending, value ascending) sorted ascending, or all distinct
 * values if at most 65536; the escape list holds the others in order. */
typedef struct vc {
    uint32_t v, c;
} vc;
static int vc_val(const void *a, const void *b) {
    const vc *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}
static int vc_cnt(const void *a, const void *b) {
    const vc *x = a, *y = b;
    if (x->c != y->c) return x->c > y->c ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}
static int u32cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}
static void u32_layout(const uint32_t *v, uint64_t n, const char *what) {
    scz_header h;
    memset(&h, 0, sizeof h);
    h.codec = SCZ_CODEC_HUFFMAN;
    h.dtype = SCZ_DTYPE_U32;
    h.rank = 1;
    h.dims[0] = n;
    h.dims[1] = h.dims[2] = h.dims[3] = 1;
    scz_chunk_geom g = {SCZ_DTYPE_U32, 4, 1, {n, 1, 1}, n};
    uint64_t cap = scz__huffman_ops.chunk_bound(&h, &g), size;
    uint8_t *pay = malloc(cap);
    uint32_t info;
    scz_ctx *ctx;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    CHECK(scz__huffman_ops.compress_chunk(ctx, &h, &g, v, pay, cap, &size, &info) == SCZ_OK && info == 1,
          "%s: compress", what);
    scz_ctx_destroy(ctx);
    uint32_t *sorted = malloc(4 * n);
    memcpy(sorted, v, 4 * n);
    qsort(sorted, n, 4, u32cmp);
    vc *d = malloc(n * sizeof *d);
    uint64_t nd = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i && sorted[i] == sorted[i - 1]) d[nd - 1].c++;
        else d[nd++] = (vc){sorted[i], 1};
    }
    uint32_t m = scz__ld32(pay + 4), nesc = scz__ld32(pay + 8);
    if (nd > 65536) {
        qsort(d, nd, sizeof *d, vc_cnt);
        nd = 65535;
        qsort(d, nd, sizeof *d, vc_val);
    }
    int ok = pay[0] == 1 && pay[1] == 4 && m == nd;
    for (uint64_t i = 0; ok && i < nd; i++) ok = scz__ld32(pay + 16 + 4 * i) == d[i].v;
    CHECK(ok, "%s: dictionary differs from FORMAT.md 8.5", what);
    /* escapes: the values outside the dictionary, in element order */
    uint64_t e = 0;
    const uint8_t *esc = pay + size - 4 * (uint64_t)nesc;
    for (uint64_t i = 0; ok && i < n; i++) {
        vc key = {v[i], 0};
        if (bsearch(&key, d, nd, sizeof *d, vc_val)) continue;
        ok = e < nesc && scz__ld32(esc + 4 * e) == v[i];
        e++;
    }
    CHECK(ok && e == nesc, "%s: escape list differs from FORMAT.md 8.5", what);
    free(sorted);
    free(d);
    free(pay);
}

/* The dictionary limit (FORMAT.md 8.5): k*65536 - 1, k*65536 and
 * k*65536 + 1 distinct values (k = 1, 2, 3), each value at least once, some
 * many times, shuffled; through the API at 1 and 2 threads, and the layout
 * against the format's rule. */
static void test_dict_boundaries(void) {
    for (uint64_t k = 1; k <= 3; k++)
        for (int dd = -1; dd <= 1; dd++) {
            uint64_t d = k * 65536 + (uint64_t)(int64_t)dd, n = 9 * d;
            uint32_t *v = malloc(4 * n);
            for (uint64_t i = 0; i < d; i++) v[i] = (uint32_t)(i * 2654435761u); /* distinct */
            for (uint64_t i = d; i < n; i++) v[i] = v[rnd() % 300];                /* repeats */
            for (uint64_t i = n - 1; i > 0; i--) {                                 /* shuffle */
                uint64_t j = rnd() % (i + 1);
                uint32_t t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
            char what[80];
            snprintf(what, sizeof what, "u32 with %llu distinct values", (unsigned long long)d);
            uint64_t dims[1] = {n};
            codec_roundtrip(SCZ_DTYPE_U32, v, 1, dims, 0, what, NULL);
            u32_layout(v, n, what);
            free(v);
        }
}

static void test_invalid(void) {
    uint64_t n = 20000;
    uint32_t *w = malloc(4 * n);
    for (uint64_t i = 0; i < n; i++) w[i] = (uint32_t)(__builtin_ctzll(rnd() | 1ull << 30) * 3);
    payload_attack(SCZ_DTYPE_U8, w, 4 * n, "u8");
    payload_attack(SCZ_DTYPE_U16, w, 2 * n, "u16");
    payload_attack(SCZ_DTYPE_U32, w, n, "u32 dictionary");
    for (uint64_t i = 0; i < n; i++) w[i] = (i & 1) ? (uint32_t)rnd() : 5;
    payload_attack(SCZ_DTYPE_U32, w, n, "u32 escapes");
    free(w);
    uint64_t m = 150000;
    uint32_t *v = malloc(4 * m);
    for (uint64_t i = 0; i < m; i++) v[i] = (i % 4) ? (uint32_t)(rnd() % 300) * 977u : (uint32_t)rnd();
    u32_layout(v, m, "u32 with escapes");
    for (uint64_t i = 0; i < m; i++) v[i] = (uint32_t)(rnd() % 5000) * 3u;
    u32_layout(v, m, "u32 without escapes");
    free(v);
}

/* The length limit of 8.2 one pair at a time, as FORMAT.md words it. */
static uint32_t limit_single(uint32_t *B, unsigned maxd, unsigned lmax) {
    uint32_t moves = 0;
    for (unsigned l = maxd; l > lmax; l--)
        while (B[l] > 0) {
            unsigned j = l - 2;
            while (j > 0 && B[j] == 0) j--;
            B[l] -= 2;
            B[l - 1] += 1;
            B[j + 1] += 2;
            B[j] -= 1;
            moves++;
        }
    return moves;
}

/* scz_huff_limit (batched moves, used by the CPU and GPU writers) against
 * single moves, on random depth profiles of full binary trees (leaves
 * split one at a time, so the Kraft sum stays 1) up to depth 120. */
static void test_limit(void) {
    int bad = 0, fewer = 0;
    uint64_t tmoves = 0, tsteps = 0;
    for (int trial = 0; trial < 3000 && !bad; trial++) {
        const unsigned lmax = 8 + (unsigned)(rnd() % 9); /* 8..16 */
        const uint32_t cap = 1u << lmax;                 /* leaves a code of lmax bits can take */
        uint32_t A[130] = {0}, Bq[130];
        A[1] = 2;
        uint32_t leaves = 2;
        unsigned maxd = 1;
        const uint32_t target = 2 + (uint32_t)(rnd() % (cap - 1));
        const int mode = trial % 3; /* 0: split the deepest level (deep, skewed), 1: uniform, 2: mixed */
        while (leaves < target) {
            unsigned d;
            if (mode == 0 || (mode == 2 && rnd() % 4 == 0)) d = maxd;
            else {
                do d = 1 + (unsigned)(rnd() % maxd);
                while (A[d] == 0);
            }
            if (d + 1 >= 121) break;
            A[d] -= 1;
            A[d + 1] += 2;
            leaves++;
            if (d + 1 > maxd) maxd = d + 1;
        }
        while (maxd > 1 && A[maxd] == 0) maxd--;
        memcpy(Bq, A, sizeof A);
        const uint32_t moves = limit_single(A, maxd, lmax);
        const uint32_t steps = scz_huff_limit(Bq, maxd, lmax);
        tmoves += moves, tsteps += steps;
        if (memcmp(A, Bq, sizeof A)) bad = 1;
        uint64_t kraft = 0;
        for (unsigned l = 1; l <= lmax; l++) kraft += (uint64_t)A[l] << (lmax - l);
        for (unsigned l = lmax + 1; l < 130; l++) bad |= A[l] != 0;
        bad |= kraft != cap;
        if (maxd > lmax + 4 && moves > 0) fewer++;
        CHECK(!bad, "length limit: batched moves differ from single moves (trial %d, maxd %u, lmax %u)", trial,
              maxd, lmax);
    }
    CHECK(fewer > 100, "length limit: too few deep profiles tested (%d)", fewer);
    printf("length limit: %llu single moves as %llu batched steps\n", (unsigned long long)tmoves,
           (unsigned long long)tsteps);
}

/* scz_huff_rounds (the GPU's block-parallel construction, here with one
 * thread) against 8.2's one-thread two-queue merge: the same internal
 * nodes in the same order, with the same parents and leaf children, on
 * Laplacian-like histograms and on small counts (many ties). */
static void test_rounds(void) {
    enum { MX = 4096 };
    static uint32_t L[MX], in1[MX], in2[MX], par1[MX], par2[MX], ord[MX];
    static uint8_t nl1[MX], nl2[MX];
    int bad = 0;
    uint64_t nodes = 0;
    for (int trial = 0; trial < 2000 && !bad; trial++) {
        const uint32_t m = 2 + (uint32_t)(rnd() % (trial % 4 == 0 ? MX - 1 : 600));
        const int small = trial % 3 == 0;
        const double scale = 0.5 + (double)(rnd() % 300) / 10.0;
        for (uint32_t i = 0; i < m; i++) {
            if (small) L[i] = 1 + (uint32_t)(rnd() % 8);
            else {
                const double d = (double)i - (double)(m / 2);
                L[i] = 1 + (uint32_t)(1e6 * exp(-fabs(d) / scale)) + (uint32_t)(rnd() % 3);
            }
        }
        /* ascending (insertion sort: m is small) */
        for (uint32_t i = 1; i < m; i++) {
            const uint32_t v = L[i];
            uint32_t j = i;
            while (j > 0 && L[j - 1] > v) L[j] = L[j - 1], j--;
            L[j] = v;
        }
        /* one thread, as FORMAT.md 8.2 words it */
        uint32_t i = 0, jn = 0, kn = 0;
        for (uint32_t step = 0; step + 1 < m; step++) {
            uint32_t sum = 0, nleaf = 0;
            for (int h = 0; h < 2; h++) {
                if (i < m && (jn >= kn || L[i] <= in1[jn])) sum += L[i++], nleaf++;
                else par1[jn] = kn, sum += in1[jn++];
            }
            in1[kn] = sum;
            nl1[kn++] = (uint8_t)nleaf;
        }
        scz_hr_state st;
        const uint32_t kr = scz_huff_rounds(L, m, in2, par2, nl2, ord, &st, 0, 1);
        if (kr != kn || memcmp(in1, in2, 4 * kn) || memcmp(par1, par2, 4 * (kn - 1)) || memcmp(nl1, nl2, kn)) bad = 1;
        nodes += kn;
        CHECK(!bad, "round construction differs from the two-queue merge (trial %d, m %u)", trial, m);
    }
    CHECK(nodes > 100000, "round construction: only %llu nodes tested", (unsigned long long)nodes);
}

/* scz_hr_place's shares (the GPU's P threads of a block, here one after
 * the other) against one thread's merge of the same round: the same
 * merged order for every P, on lists with many equal counts across them. */
static void test_place(void) {
    enum { MX = 3000 };
    static uint32_t A[MX], B[MX], o1[2 * MX], oP[2 * MX];
    int bad = 0;
    long rounds = 0;
    for (int trial = 0; trial < 3000 && !bad; trial++) {
        const uint32_t a = (uint32_t)(rnd() % (trial % 5 == 0 ? 3 : MX)), b = (uint32_t)(rnd() % (trial % 7 == 0 ? 3 : MX));
        const uint32_t span = 1 + (uint32_t)(rnd() % (trial % 2 ? 10 : 100000));
        const uint32_t li = (uint32_t)(rnd() % 50), ij = (uint32_t)(rnd() % 50);
        static uint32_t L[MX + 60], I[MX + 60];
        A[0] = B[0] = 0;
        for (uint32_t i = 0; i < a; i++) A[i] = (i ? A[i - 1] : 0) + (uint32_t)(rnd() % (span / 8 + 2) == 0);
        for (uint32_t i = 0; i < b; i++) B[i] = (i ? B[i - 1] : 0) + (uint32_t)(rnd() % (span / 8 + 2) == 0);
        for (uint32_t i = 0; i < a; i++) L[li + i] = A[i] * 3 + 1;
        for (uint32_t i = 0; i < b; i++) I[ij + i] = B[i] * 3 + 1;
        scz_hr_place(L, I, o1, li, a, ij, b, 0, 1);
        const uint32_t Ps[] = {2, 3, 7, 32, 256, 1000};
        for (size_t pi = 0; pi < sizeof Ps / sizeof Ps[0] && !bad; pi++) {
            memset(oP, 0xFF, sizeof oP);
            for (uint32_t t = 0; t < Ps[pi]; t++) scz_hr_place(L, I, oP, li, a, ij, b, t, Ps[pi]);
            if (memcmp(o1, oP, 4 * (size_t)(a + b))) bad = 1;
            rounds++;
        }
        /* the one-thread order is the merge, a leaf first on equal counts */
        for (uint32_t d = 1; d < a + b && !bad; d++) {
            const uint32_t x = o1[d - 1], y = o1[d];
            const uint32_t cx = x & SCZ_HR_INNER ? I[x & ~SCZ_HR_INNER] : L[x], cy = y & SCZ_HR_INNER ? I[y & ~SCZ_HR_INNER] : L[y];
            if (cx > cy || (cx == cy && (x & SCZ_HR_INNER) && !(y & SCZ_HR_INNER))) bad = 1;
        }
        CHECK(!bad, "merged order of a round differs across thread counts (trial %d, a %u, b %u)", trial, a, b);
    }
    CHECK(rounds > 10000, "merged order: only %ld rounds tested", rounds);
}

int main(void) {
    test_limit();
    test_rounds();
    test_place();
    test_codebook();
    test_streams();
    test_codec();
    test_invalid();
    test_dict_boundaries();
    return tu_finish("test_huffman");
}

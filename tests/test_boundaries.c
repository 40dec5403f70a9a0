/*
 * test_boundaries.c -- every fixed period and limit of the formats, probed
 * at k*period - 1, k*period and k*period + 1 (k = 1, 2, 3), at 1, 2 and all
 * threads, with the library's bytes compared to the naive encoders written
 * from docs/FORMAT.md (tests/support/ref_codecs.c):
 *
 *   - Huffman streams (8.4): total_bits around unit (1024) and segment
 *     (32768) boundaries, ranges of the parallel encoder ending exactly on a
 *     unit boundary, and a property test driving random distributions onto
 *     those boundaries; codebook runs at varint 7-bit boundaries (8.3);
 *   - the `huffman` codec (8.5): 1-bit streams of k*32768 +- 1 symbols
 *     through the API (the case that once decoded "successfully" into wrong
 *     data);
 *   - `lossy` (7): 1-bit code streams of k*32768 +- 1 codes, block edges
 *     (4096, 64, 16 per axis), run-length pieces of 65536 codes, varints at
 *     7-bit boundaries in the outlier list, outlier and verbatim lists empty
 *     and full;
 *   - checksum blocks (5): payloads of k*4096 +- 1 bytes;
 *   - chunk edges (3): slowest extents of k*slab +- 1.
 */
#include "entropy/huffman.h"
#include "gen.h"
#include "internal.h"
#include "ref_codecs.h"
#include "testutil.h"
#include "util/xxh64.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static uint64_t rng = 0xB0B0;
static uint64_t rnd(void) { return gen_splitmix64(&rng); }

enum { NCTX = 3 };
static scz_ctx *ctxs[NCTX];              /* 1, 2 and all threads */
static const int ctx_threads[NCTX] = {1, 2, 0};

#define HU SCZ_HUFF_UNIT_BITS
#define HSEG (SCZ_HUFF_UNIT_BITS * SCZ_HUFF_SEG_UNITS)

/* ------------------------------------------------------------------ */
/* Huffman streams (white box) against ref_hs                          */
/* ------------------------------------------------------------------ */

/* Encodes with several range splits (including `extra` ranges if given),
 * compares with the reference, decodes with 1, 2 and all threads. Returns
 * the total bits. */
static uint64_t hs_check(const uint16_t *syms, uint64_t n, uint32_t K, const uint64_t *extra_ranges,
                         int extra_n, const char *what) {
    uint64_t *hist = calloc(K, sizeof *hist);
    for (uint64_t i = 0; i < n; i++) hist[syms[i]]++;
    scz_huff_enc *book = malloc(sizeof *book);
    void *work = malloc(scz__huff_work_size(K));
    scz__huff_build(hist, K, book, work);
    scz_hs_info hi;
    scz__hs_plan(book, hist, n, &hi);
    bytebuf ref = {0};
    ref_hs(&ref, syms, n, K);
    CHECK(ref.n == hi.size, "%s: planned size %llu, reference %zu", what, (unsigned long long)hi.size, ref.n);
    uint8_t *buf = tu_guarded_alloc(hi.size, 0xEE), *gap = tu_guarded_alloc(hi.n_units, 0xEE);
    int all = 1;
#ifdef _OPENMP
    all = omp_get_max_threads();
#endif
    int splits[] = {1, 2, 3, all, 64};
    for (int k = 0; k <= 5; k++) {
        uint64_t rs[65];
        int R;
        if (k < 5) {
            R = splits[k];
            for (int r = 0; r <= R; r++) rs[r] = n * (uint64_t)r / (uint64_t)R;
        } else {
            if (!extra_ranges) continue;
            R = extra_n;
            memcpy(rs, extra_ranges, (size_t)(R + 1) * sizeof *rs);
        }
        memset(buf, 0xEE, hi.size);
        scz__hs_write(&hi, book, syms, 2, R, rs, NULL, buf, gap);
        CHECK(tu_guard_intact(buf, hi.size), "%s: writer overran the stream (%d ranges)", what, R);
        CHECK(tu_guard_intact(gap, hi.n_units), "%s: writer overran the gap array (%d ranges)", what, R);
        size_t at = ref.n == hi.size ? tu_first_diff(buf, ref.p, hi.size) : 0;
        CHECK(ref.n == hi.size && at == hi.size, "%s: %d ranges: differs from FORMAT.md at byte %zu of %llu", what,
              R, at, (unsigned long long)hi.size);
    }
    uint16_t *dec = malloc(2 * n + 2);
    scz_huff_dec *hd = malloc(sizeof *hd);
    int threads[] = {1, 2, all, 5};
    for (int k = 0; k < 4; k++) {
        uint64_t used = 0;
        memset(dec, 0xA5, 2 * n);
        scz_status st = scz__hs_read(NULL, ref.p, ref.n, K, n, hd, dec, 2, threads[k], &used);
        CHECK(st == SCZ_OK && used == ref.n, "%s: reference stream rejected (%d) with %d threads", what, (int)st,
              threads[k]);
        CHECK(!memcmp(dec, syms, 2 * n), "%s: decoded symbols differ (%d threads)", what, threads[k]);
    }
    uint64_t bits = hi.total_bits;
    free(ref.p);
    free(buf);
    free(gap);
    free(dec);
    free(hd);
    free(book);
    free(work);
    free(hist);
    return bits;
}

static void test_hs_boundaries(void) {
    const uint64_t periods[] = {HU, HSEG};
    uint16_t *s = malloc(2 * (3 * HSEG + 2));
    for (int pi = 0; pi < 2; pi++)
        for (uint64_t k = 1; k <= 3; k++)
            for (int d = -1; d <= 1; d++) {
                uint64_t T = k * periods[pi] + (uint64_t)(int64_t)d;
                char what[96];
                /* two symbols, 1-bit codes: total_bits = n */
                for (uint64_t i = 0; i < T; i++) s[i] = (uint16_t)(rnd() & 1);
                snprintf(what, sizeof what, "1-bit codes, total_bits %llu", (unsigned long long)T);
                /* ranges ending exactly on unit boundaries */
                uint64_t rs[4] = {0, HU, T > 2 * HU ? 2 * HU : T, T};
                uint64_t bits = hs_check(s, T, 2, rs, 3, what);
                CHECK(bits == T, "%s: %llu bits", what, (unsigned long long)bits);
                /* lengths 1, 2, 2 (codewords straddle unit boundaries) */
                uint64_t m = T / 8, n = T - 2 * m;
                for (uint64_t i = 0; i < n; i++) s[i] = 0;
                for (uint64_t j = 0; j < 2 * m; j++) s[rnd() % n] = (uint16_t)(1 + (j & 1)); /* may overwrite */
                uint64_t c[3] = {0, 0, 0};
                for (uint64_t i = 0; i < n; i++) c[s[i]]++;
                snprintf(what, sizeof what, "1/2-bit codes around %llu", (unsigned long long)T);
                hs_check(s, n, 3, NULL, 0, what);
            }
    free(s);
}

/* Codebook varints (FORMAT.md 8.3): runs of equal code lengths of
 * 8 + 2^(7j) - 1, 8 + 2^(7j), 8 + 2^(7j) + 1 (j = 1, 2) between used
 * symbols of a 65536-symbol alphabet. */
static void test_codebook_varints(void) {
    const uint64_t runs[] = {8 + 127, 8 + 128, 8 + 129, 8 + 16383, 8 + 16384, 8 + 16385, 7, 8, 9};
    uint16_t *s = malloc(2 * 4000);
    for (int k = 0; k < 9; k++) {
        uint32_t sym = 0;
        uint64_t n = 0;
        while (sym < 65536 && n < 3000) {
            for (int rep = 0; rep < 1 + (int)(n % 3); rep++) s[n++] = (uint16_t)sym;
            sym += (uint32_t)runs[k] + 1;
        }
        char what[80];
        snprintf(what, sizeof what, "codebook with zero-length runs of %llu", (unsigned long long)runs[k]);
        hs_check(s, n, 65536, NULL, 0, what);
    }
    free(s);
}

/* Property test: random distributions and sizes, nudged onto unit and
 * segment boundaries (+-1) by adding or removing copies of the symbol with
 * the shortest code. */
static void test_hs_property(void) {
    int cases = 120 * (getenv("SCZ_TEST_SCALE") ? atoi(getenv("SCZ_TEST_SCALE")) : 1), hit = 0;
    uint64_t cap = 8 * HSEG;
    uint16_t *s = malloc(2 * cap);
    uint64_t *hist = malloc(65536 * sizeof *hist);
    scz_huff_enc *book = malloc(sizeof *book);
    void *work = malloc(scz__huff_work_size(65536));
    for (int c = 0; c < cases; c++) {
        uint32_t K = (uint32_t[]){2, 3, 17, 1026, 65536}[rnd() % 5];
        int kind = (int)(rnd() % 3);
        uint64_t P = rnd() & 1 ? HSEG : HU;
        uint64_t target = (1 + rnd() % 4) * P + (uint64_t)((int64_t)(rnd() % 3) - 1);
        /* first guess of the count from ~average code length */
        uint64_t n = target / (kind == 0 ? 1 : kind == 1 ? 3 : 8) + 1;
        if (n > cap / 2) n = cap / 2;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t r = rnd();
            uint32_t v;
            if (kind == 0) v = (uint32_t)(r % (K < 3 ? K : 3));                        /* tiny alphabet */
            else if (kind == 1) v = (uint32_t)(__builtin_ctzll(r | 1ull << 40) % K);  /* geometric */
            else v = (uint32_t)(r % K);                                               /* uniform */
            s[i] = (uint16_t)v;
        }
        /* nudge: a few rounds of adding / removing the most frequent symbol */
        int ok = 0;
        for (int round = 0; round < 8 && !ok; round++) {
            memset(hist, 0, K * sizeof *hist);
            for (uint64_t i = 0; i < n; i++) hist[s[i]]++;
            scz__huff_build(hist, K, book, work);
            uint64_t bits = 0;
            uint32_t best = 0;
            for (uint32_t v = 0; v < K; v++) {
                bits += hist[v] * book->len[v];
                if (hist[v] > hist[best]) best = v;
            }
            if (bits == target) {
                ok = 1;
                break;
            }
            unsigned l = book->len[best];
            if (bits < target) {
                uint64_t add = (target - bits + l - 1) / l;
                if (n + add > cap) break;
                for (uint64_t i = 0; i < add; i++) s[n + i] = (uint16_t)best;
                n += add;
            } else {
                uint64_t drop = (bits - target) / l, j = n;
                while (drop && j--)
                    if (s[j] == best) {
                        s[j] = s[--n]; /* remove by swapping in the last one */
                        drop--;
                    }
                if (bits - target < l) { /* not reachable with this symbol: swap one for a longer one */
                    break;
                }
            }
        }
        char what[96];
        snprintf(what, sizeof what, "property #%d (K %u, kind %d, %llu symbols)", c, K, kind, (unsigned long long)n);
        uint64_t bits = hs_check(s, n, K, NULL, 0, what);
        hit += bits == target;
    }
    printf("  Huffman property test: %d cases, %d exactly on a boundary +-1\n", cases, hit);
    CHECK(hit * 2 >= cases, "only %d of %d property cases reached their boundary", hit, cases);
    free(s);
    free(hist);
    free(book);
    free(work);
}

/* ------------------------------------------------------------------ */
/* Through the API                                                      */
/* ------------------------------------------------------------------ */

/* Compresses with every context; streams must be identical; decodes each
 * with every context. Returns the first stream (free it). */
static uint8_t *api_roundtrip(const scz_params *p, const scz_shape *sh, const void *data, size_t *size,
                              const char *what) {
    size_t raw = gen_count(sh) * scz_dtype_size(sh->dtype);
    uint8_t *first = NULL;
    size_t first_n = 0;
    void *out = malloc(raw + 1);
    for (int c = 0; c < NCTX; c++) {
        size_t n = 0;
        uint8_t *z = tu_compress(ctxs[c], p, sh, data, &n, what);
        if (!z) continue;
        if (!first) {
            first = z;
            first_n = n;
        } else {
            CHECK(n == first_n && !memcmp(z, first, n), "%s: the stream differs between thread counts (ctx %d)", what,
                  c);
            free(z);
        }
    }
    if (!first) {
        free(out);
        return NULL;
    }
    for (int c = 0; c < NCTX; c++) {
        memset(out, 0x5A, raw + 1);
        scz_status st = scz_decompress(ctxs[c], first, first_n, out, raw, NULL);
        CHECK(st == SCZ_OK, "%s: decompress (ctx %d): %s", what, c, scz_ctx_last_error(ctxs[c]));
        if (st) continue;
        if (scz_codec_is_lossless(p->codec)) {
            size_t at = tu_first_diff(out, data, raw);
            CHECK(at == raw, "%s: not bit-exact (ctx %d, first difference at byte %zu)", what, c, at);
        } else {
            scz_info info;
            scz_inspect(first, first_n, &info);
            scz_stats st2;
            scz_stats_compute(sh->dtype, data, out, gen_count(sh), &st2);
            CHECK(st2.max_abs_err <= info.eb_abs && st2.nonfinite_mismatch == 0,
                  "%s: bound violated (ctx %d): max error %.17g > %.17g", what, c, st2.max_abs_err, info.eb_abs);
        }
    }
    free(out);
    *size = first_n;
    return first;
}

/* Each chunk's stored checksum against the definition (FORMAT.md 5):
 * XXH64 over the LE64 XXH64s of its 2^cklog-byte blocks. */
static void check_chunk_checksums(const uint8_t *z, size_t n, const char *what) {
    scz_info info;
    if (scz_inspect(z, n, &info)) return;
    unsigned cklog = z[68];
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, n, i, &ci)) continue;
        uint64_t bs = 1ull << cklog, nb = (ci.size + bs - 1) / bs;
        uint8_t *cat = malloc(8 * nb + 1);
        for (uint64_t b = 0; b < nb; b++) {
            uint64_t len = ci.size - b * bs < bs ? ci.size - b * bs : bs;
            scz__st64(cat + 8 * b, scz_xxh64(z + ci.offset + b * bs, len, 0));
        }
        CHECK(scz_xxh64(cat, 8 * nb, 0) == ci.checksum, "%s: chunk %u checksum differs from FORMAT.md 5", what, i);
        free(cat);
    }
}

/* The `huffman` payload of u8/u16 data per FORMAT.md 8.5 (mode 1 unless
 * stored). */
static bytebuf ref_huffman_payload(const void *data, uint64_t n, unsigned es) {
    uint16_t *sy = malloc(2 * n + 2);
    for (uint64_t i = 0; i < n; i++) sy[i] = es == 1 ? ((const uint8_t *)data)[i] : ((const uint16_t *)data)[i];
    bytebuf hs = {0}, o = {0};
    ref_hs(&hs, sy, n, es == 1 ? 256 : 65536);
    if (16 + hs.n >= 16 + n * es) {
        bb_u8(&o, 0);
        bb_u8(&o, es);
        for (int k = 0; k < 14; k++) bb_u8(&o, 0);
        bb_put(&o, data, n * es);
    } else {
        bb_u8(&o, 1);
        bb_u8(&o, es);
        for (int k = 0; k < 14; k++) bb_u8(&o, 0);
        bb_put(&o, hs.p, hs.n);
    }
    free(hs.p);
    free(sy);
    return o;
}

/* The codec's payload of chunk i against a reference. */
static void check_payload(const uint8_t *z, size_t n, uint32_t i, const bytebuf *ref, const char *what) {
    scz_chunk_info ci;
    if (scz_inspect_chunk(z, n, i, &ci)) {
        CHECK(0, "%s: chunk %u not readable", what, i);
        return;
    }
    size_t at = ci.size == ref->n ? tu_first_diff(z + ci.offset, ref->p, ref->n) : 0;
    CHECK(ci.size == ref->n && at == ref->n, "%s: chunk %u payload differs from FORMAT.md (%llu vs %zu bytes, at %zu)",
          what, i, (unsigned long long)ci.size, ref->n, at);
}

static void test_huffman_codec(void) {
    uint8_t *b = malloc(3 * HSEG + 2);
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t n = k * HSEG + (uint64_t)(int64_t)d;
            for (uint64_t i = 0; i < n; i++) b[i] = (uint8_t)(rnd() & 1 ? 200 : 7);
            scz_shape sh = {SCZ_DTYPE_U8, 1, {n, 1, 1, 1}};
            scz_params p;
            scz_params_init(&p, SCZ_CODEC_HUFFMAN);
            char what[80];
            snprintf(what, sizeof what, "huffman u8 two values, %llu elements", (unsigned long long)n);
            size_t zn;
            uint8_t *z = api_roundtrip(&p, &sh, b, &zn, what);
            if (!z) continue;
            bytebuf ref = ref_huffman_payload(b, n, 1);
            check_payload(z, zn, 0, &ref, what);
            free(ref.p);
            free(z);
        }
    /* u16: symbols with 2-bit codes, 2 * k * 16384 bits */
    uint16_t *w = malloc(2 * (3 * HSEG / 2 + 2));
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t n = k * HSEG / 2 + (uint64_t)(int64_t)d;
            for (uint64_t i = 0; i < n; i++) w[i] = (uint16_t)(1000 * (i % 4));
            scz_shape sh = {SCZ_DTYPE_U16, 2, {128, 1, 1, 1}};
            sh.dims[0] = n;
            sh.rank = 1;
            scz_params p;
            scz_params_init(&p, SCZ_CODEC_HUFFMAN);
            char what[80];
            snprintf(what, sizeof what, "huffman u16 four values, %llu elements", (unsigned long long)n);
            size_t zn;
            uint8_t *z = api_roundtrip(&p, &sh, w, &zn, what);
            if (!z) continue;
            bytebuf ref = ref_huffman_payload(w, n, 2);
            check_payload(z, zn, 0, &ref, what);
            free(ref.p);
            free(z);
        }
    free(w);
    free(b);
}

/* Stored payloads of k*4096 +- 1 bytes (random u8 data is stored: 16-byte
 * header + N bytes) and multi-block coded payloads: checksums against the
 * definition. */
static void test_checksum_blocks(void) {
    uint8_t *b = malloc(3 * 4096 + 64);
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t n = k * 4096 - 16 + (uint64_t)(int64_t)d;
            for (uint64_t i = 0; i < n; i++) b[i] = (uint8_t)rnd();
            scz_shape sh = {SCZ_DTYPE_U8, 1, {n, 1, 1, 1}};
            scz_params p;
            scz_params_init(&p, SCZ_CODEC_HUFFMAN);
            char what[80];
            snprintf(what, sizeof what, "stored payload of %llu bytes", (unsigned long long)(n + 16));
            size_t zn;
            uint8_t *z = api_roundtrip(&p, &sh, b, &zn, what);
            if (!z) continue;
            scz_chunk_info ci;
            CHECK(scz_inspect_chunk(z, zn, 0, &ci) == SCZ_OK && ci.size == n + 16 && ci.codec_info == 0,
                  "%s: expected a stored chunk of %llu bytes", what, (unsigned long long)(n + 16));
            check_chunk_checksums(z, zn, what);
            free(z);
        }
    free(b);
}

/* ------------------------------------------------------------------ */
/* lossy                                                               */
/* ------------------------------------------------------------------ */

/* ABS-bounded lossy through the API with radius r and workflow wf; every
 * chunk's payload compared with ref_lossy. */
static void lossy_case(const char *what, const scz_shape *sh, const void *data, double eb, uint32_t r, uint32_t wf,
                       uint64_t chunk_bytes, int expect_wf) {
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.eb_mode = SCZ_EB_ABS;
    p.eb = eb;
    p.knobs[0] = r;
    p.knobs[1] = wf;
    p.chunk_bytes = chunk_bytes;
    size_t zn;
    uint8_t *z = api_roundtrip(&p, sh, data, &zn, what);
    if (!z) return;
    scz_info info;
    scz_inspect(z, zn, &info);
    size_t es = scz_dtype_size(sh->dtype);
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci)) continue;
        uint64_t dims[3] = {1, 1, 1};
        for (uint32_t d = 0; d < sh->rank && d < 3; d++) dims[d] = sh->dims[d];
        uint64_t slice = ci.raw_bytes / es;
        for (uint32_t d = 0; d + 1 < sh->rank; d++) slice /= sh->dims[d];
        dims[sh->rank - 1] = slice;
        bytebuf ref = ref_lossy(sh->dtype, (const uint8_t *)data + ci.raw_offset, dims, info.eb_abs,
                                info.params.knobs[0], wf);
        check_payload(z, zn, i, &ref, what);
        free(ref.p);
        if (expect_wf >= 0)
            CHECK(ci.codec_info == (uint32_t)expect_wf, "%s: chunk %u workflow %u, expected %d", what, i, ci.codec_info,
                  expect_wf);
    }
    check_chunk_checksums(z, zn, what);
    free(z);
}

static void test_lossy_boundaries(void) {
    char what[128];
    /* 1. 1-bit codes: a random walk with steps 0 and 1 (times 2 eb) restarted
     * in each 4096-block, ABS 0.5: codes r and r+1 only, total_bits = N. */
    float *f = malloc(4 * (3 * HSEG + 2));
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t n = k * HSEG + (uint64_t)(int64_t)d;
            float v = 0;
            for (uint64_t i = 0; i < n; i++) {
                if (i % 4096 == 0) v = 0;
                else v += (float)(rnd() & 1);
                f[i] = v;
            }
            scz_shape sh = {SCZ_DTYPE_F32, 1, {n, 1, 1, 1}};
            snprintf(what, sizeof what, "lossy 1-bit codes, %llu elements, Huffman", (unsigned long long)n);
            lossy_case(what, &sh, f, 0.5, 0, 1, 0, 1);
            snprintf(what, sizeof what, "lossy 1-bit codes, %llu elements, auto", (unsigned long long)n);
            lossy_case(what, &sh, f, 0.5, 0, 0, 0, -1);
        }
    free(f);

    /* 2. block edges: extents k*side +- 1 on every axis of rank 1, 2, 3 */
    for (int rank = 1; rank <= 3; rank++) {
        uint64_t side = rank == 1 ? 4096 : rank == 2 ? 64 : 16;
        for (uint64_t k = 1; k <= 3; k++)
            for (int d = -1; d <= 1; d++) {
                uint64_t e = k * side + (uint64_t)(int64_t)d;
                scz_shape sh = {SCZ_DTYPE_F32, (uint32_t)rank, {1, 1, 1, 1}};
                for (int a = 0; a < rank; a++) sh.dims[a] = a == rank - 1 ? e : e + (uint64_t)a + 1;
                size_t bytes;
                void *g = gen_field(GEN_NOISY, &sh, 100 + k, &bytes);
                snprintf(what, sizeof what, "lossy block edges rank %d, extent %llu", rank, (unsigned long long)e);
                lossy_case(what, &sh, g, 1e-3, 0, 0, 0, -1);
                free(g);
            }
    }

    /* 3. run-length pieces of 65536 codes: a constant field (one run of N
     * codes) and a field whose code changes at k*65536 +- 1. */
    uint64_t nmax = 3 * 65536 + 2;
    double *c = malloc(8 * (nmax + 70000));
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t n = k * 65536 + (uint64_t)(int64_t)d;
            for (uint64_t i = 0; i < n; i++) c[i] = 3.0;
            scz_shape sh = {SCZ_DTYPE_F64, 1, {n, 1, 1, 1}};
            snprintf(what, sizeof what, "lossy run of %llu equal codes, run-length", (unsigned long long)n);
            lossy_case(what, &sh, c, 0.5, 0, 2, 0, 2);
            /* code change at element n (inside a longer array): a run of n codes then others */
            uint64_t m = n + 5000;
            for (uint64_t i = 0; i < m; i++) c[i] = i < n ? 0.0 : (double)(i - n + 1);
            sh.dims[0] = m;
            snprintf(what, sizeof what, "lossy run of %llu then a ramp, run-length", (unsigned long long)n);
            lossy_case(what, &sh, c, 0.5, 0, 2, 0, 2);
        }

    /* 4. varints at 7-bit boundaries: radius 1 makes every nonzero
     * prediction error an outlier; steps d with zigzag(d) = 2^(7j) - 1 and
     * 2^(7j), at index gaps 2^(7j) - 1 and 2^(7j) (1D, h = 1: x = Q). */
    {
        const int64_t steps[] = {-64, 64, -8192, 8192, -(1 << 20), 1 << 20, -((int64_t)1 << 27), (int64_t)1 << 27};
        const uint64_t gaps[] = {127, 128, 16383, 16384, 1, 0};
        uint64_t n = 0, pos = 0;
        uint64_t at[16];
        int na = 0;
        for (int j = 0; j < 8; j++) {
            pos += gaps[j % 6] + (na ? 1 : 0);
            at[na++] = pos;
        }
        n = pos + 10;
        double *x = calloc(n, 8);
        double q = 0;
        int next = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (next < na && i == at[next]) q += (double)steps[next++];
            x[i] = q;
        }
        scz_shape sh = {SCZ_DTYPE_F64, 1, {n, 1, 1, 1}};
        lossy_case("lossy outlier varints at 7-bit boundaries", &sh, x, 0.5, 1, 1, 0, 1);
        free(x);
    }

    /* 5. lists empty and full */
    {
        uint64_t n = 5000;
        scz_shape sh = {SCZ_DTYPE_F64, 1, {n, 1, 1, 1}};
        double *x = malloc(8 * n);
        /* every element an outlier: radius 1, every step nonzero */
        for (uint64_t i = 0; i < n; i++) x[i] = (double)((i * 7919) % 1000);
        lossy_case("lossy all outliers", &sh, x, 0.5, 1, 1, 0, 1);
        /* no outlier, no verbatim */
        for (uint64_t i = 0; i < n; i++) x[i] = (double)(i % 3);
        lossy_case("lossy no outliers, no verbatim values", &sh, x, 0.5, 0, 1, 0, 1);
        /* every element verbatim and new: distinct NaN payloads */
        for (uint64_t i = 0; i < n; i++) {
            uint64_t bits = 0x7FF8000000000000ull | (i + 1);
            memcpy(x + i, &bits, 8);
        }
        lossy_case("lossy all verbatim (distinct NaNs)", &sh, x, 0.5, 0, 0, 0, -1);
        /* every element verbatim, all repeats of one value */
        for (uint64_t i = 0; i < n; i++) x[i] = INFINITY;
        lossy_case("lossy all verbatim (one repeated infinity)", &sh, x, 0.5, 0, 0, 0, -1);
        free(x);
    }

    /* 6. chunk edges: slowest extent k*slab +- 1 (3D, 16 x 16 slices of
     * 1 KiB float32; chunks of 16 slices) */
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t nz = k * 16 + (uint64_t)(int64_t)d;
            scz_shape sh = {SCZ_DTYPE_F32, 3, {16, 16, nz, 1}};
            size_t bytes;
            void *g = gen_field(GEN_SMOOTH, &sh, 7 + k, &bytes);
            snprintf(what, sizeof what, "lossy chunk edges, %llu slices", (unsigned long long)nz);
            lossy_case(what, &sh, g, 1e-4, 0, 0, 16 * 16 * 16 * 4, -1);
            free(g);
        }
    free(c);
}

/* Chunk edges for the lossless codecs. */
static void test_chunk_edges(void) {
    char what[96];
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t nz = k * 32 + (uint64_t)(int64_t)d;
            scz_shape sh = {SCZ_DTYPE_F64, 3, {20, 12, nz, 1}};
            size_t bytes;
            void *g = gen_field(GEN_NOISY, &sh, 40 + k, &bytes);
            scz_params p;
            scz_params_init(&p, SCZ_CODEC_NDZIP);
            p.chunk_bytes = 20 * 12 * 32 * 8;
            snprintf(what, sizeof what, "ndzip chunk edges, %llu slices", (unsigned long long)nz);
            size_t zn;
            uint8_t *z = api_roundtrip(&p, &sh, g, &zn, what);
            if (z) check_chunk_checksums(z, zn, what);
            free(z);
            /* the same bytes as u16 through huffman */
            sh.dtype = SCZ_DTYPE_U16;
            scz_params_init(&p, SCZ_CODEC_HUFFMAN);
            p.chunk_bytes = 20 * 12 * 32 * 2;
            snprintf(what, sizeof what, "huffman chunk edges, %llu slices", (unsigned long long)nz);
            z = api_roundtrip(&p, &sh, g, &zn, what);
            if (z) check_chunk_checksums(z, zn, what);
            free(z);
            free(g);
        }
}

int main(void) {
    for (int c = 0; c < NCTX; c++) {
        scz_ctx_create(&ctxs[c], SCZ_BACKEND_CPU);
        scz_ctx_set_threads(ctxs[c], ctx_threads[c]);
    }
    test_hs_boundaries();
    test_hs_property();
    test_codebook_varints();
    test_huffman_codec();
    test_checksum_blocks();
    test_lossy_boundaries();
    test_chunk_edges();
    for (int c = 0; c < NCTX; c++) scz_ctx_destroy(ctxs[c]);
    return tu_finish("test_boundaries");
}

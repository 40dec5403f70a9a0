/*
 * huffman_codec.c -- the lossless `huffman` codec (id 3) for uint8, uint16
 * and uint32 arrays: one canonical Huffman stream per chunk, symbol = the
 * element (uint32: the element's rank in a per-chunk dictionary, with an
 * escape symbol for values outside it). docs/FORMAT.md section 8.5.
 */
#include "huffman.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define HC_HDR 16u          /* chunk payload header */
#define HC_DICT_MAX 65535u  /* dictionary entries when an escape is needed */

static size_t al64(size_t x) { return (x + 63) & ~(size_t)63; }

static scz_status hc_prepare(scz_ctx *ctx, scz_header *h, const void *src) {
    (void)src;
    if (h->dtype != SCZ_DTYPE_U8 && h->dtype != SCZ_DTYPE_U16 && h->dtype != SCZ_DTYPE_U32)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec 'huffman' takes u8, u16 or u32 arrays, not %s",
                         scz_dtype_name(h->dtype));
    for (int i = 0; i < SCZ_NUM_KNOBS; i++)
        if (h->knobs[i]) return scz__fail(ctx, SCZ_ERR_ARG, "codec 'huffman' has no knobs (knob %d is %u)", i, h->knobs[i]);
    h->eb_abs = 0;
    return SCZ_OK;
}

static scz_status hc_check(scz_ctx *ctx, const scz_header *h) {
    if (h->dtype != SCZ_DTYPE_U8 && h->dtype != SCZ_DTYPE_U16 && h->dtype != SCZ_DTYPE_U32)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman stream of dtype %s", scz_dtype_name(h->dtype));
    for (int i = 0; i < SCZ_NUM_KNOBS; i++)
        if (h->knobs[i]) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman stream with knob %d = %u", i, h->knobs[i]);
    if (h->eb_mode != SCZ_EB_NONE || h->eb_user != 0 || h->eb_abs != 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman stream with an error bound");
    return SCZ_OK;
}

static uint64_t hc_bound(const scz_header *h, const scz_chunk_geom *g) {
    (void)h;
    uint64_t b;
    if (!scz__mul_ok(g->count, g->esize, &b) || !scz__add_ok(b, HC_HDR, &b)) return 0;
    return b;
}

static int pick_threads(scz_ctx *ctx, uint64_t n) {
    int T = scz__threads(ctx);
    uint64_t maxT = n / 65536 + 1;
    if ((uint64_t)T > maxT) T = (int)maxT;
    if (T > 64) T = 64;
    return T < 1 ? 1 : T;
}

static void put_header(uint8_t *d, unsigned mode, unsigned es, uint32_t m, uint32_t nesc) {
    memset(d, 0, HC_HDR);
    d[0] = (uint8_t)mode;
    d[1] = (uint8_t)es;
    scz__st32(d + 4, m);
    scz__st32(d + 8, nesc);
}

static scz_status stored(scz_ctx *ctx, const scz_chunk_geom *g, const void *src, uint8_t *dst, uint64_t cap,
                         uint64_t *out, uint32_t *info) {
    uint64_t raw = g->count * g->esize;
    if (cap < HC_HDR + raw) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "huffman: chunk does not fit");
    put_header(dst, 0, g->esize, 0, 0);
    memcpy(dst + HC_HDR, src, raw);
    *out = HC_HDR + raw;
    *info = 0;
    return SCZ_OK;
}

/* ---- uint32 dictionary ---- */

typedef struct vc_pair {
    uint32_t val, cnt;
} vc_pair;

static int pair_by_count(const void *a, const void *b) {
    const vc_pair *x = a, *y = b;
    if (x->cnt != y->cnt) return x->cnt > y->cnt ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val;
}
static int pair_by_value(const void *a, const void *b) {
    const vc_pair *x = a, *y = b;
    return x->val < y->val ? -1 : x->val > y->val;
}

/* LSD radix sort of n uint32 (two 16-bit passes); result in a. */
static void radix_sort32(uint32_t *a, uint32_t *tmp, uint64_t n, uint32_t *cnt /* 65536 */) {
    for (int pass = 0; pass < 2; pass++) {
        int sh = 16 * pass;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (uint64_t i = 0; i < n; i++) cnt[(a[i] >> sh) & 0xFFFF]++;
        uint32_t s = 0;
        for (uint32_t k = 0; k < 65536; k++) {
            uint32_t c = cnt[k];
            cnt[k] = s;
            s += c;
        }
        for (uint64_t i = 0; i < n; i++) tmp[cnt[(a[i] >> sh) & 0xFFFF]++] = a[i];
        uint32_t *t = a;
        a = tmp;
        tmp = t;
    }
}

static inline uint32_t dict_find(const uint32_t *d, uint32_t m, uint32_t v) {
    uint32_t lo = 0, hi = m; /* first index with d[i] >= v */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (d[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static scz_status hc_compress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const void *src,
                              uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t *info) {
    (void)h;
    uint64_t n = g->count;
    unsigned es = g->esize;
    if (n > UINT32_MAX - 1)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "huffman: chunks of more than 2^32-2 elements");
    int T = pick_threads(ctx, n);
    uint32_t K = es == 1 ? 256 : 65536;
    const void *syms = src;
    uint32_t m = 0, *dict = NULL;
    uint64_t nesc = 0;
    uint16_t *s16 = NULL;

    if (es == 4) {
        /* distinct values with counts */
        size_t need = al64(8 * (size_t)n + 8) + al64(65536 * 4) + al64(8 * (size_t)n + 8);
        uint8_t *w = scz__scratch(ctx, 1, need);
        if (!w) return scz__fail(ctx, SCZ_ERR_NOMEM, "huffman: out of memory");
        uint32_t *a = (uint32_t *)w, *tmp = a + n, *cnt = (uint32_t *)(w + al64(8 * (size_t)n + 8));
        vc_pair *pairs = (vc_pair *)((uint8_t *)cnt + al64(65536 * 4));
        memcpy(a, src, 4 * (size_t)n);
        radix_sort32(a, tmp, n, cnt);
        uint64_t d = 0;
        for (uint64_t i = 0; i < n;) {
            uint64_t j = i + 1;
            while (j < n && a[j] == a[i]) j++;
            pairs[d++] = (vc_pair){a[i], (uint32_t)(j - i)};
            i = j;
        }
        if (d > SCZ_HUFF_MAX_K) {
            qsort(pairs, d, sizeof *pairs, pair_by_count);
            d = HC_DICT_MAX;
            qsort(pairs, d, sizeof *pairs, pair_by_value);
            K = SCZ_HUFF_MAX_K;
        } else {
            K = (uint32_t)d;
        }
        m = (uint32_t)d;
        dict = a; /* reuse: the sorted copy is no longer needed */
        for (uint32_t i = 0; i < m; i++) dict[i] = pairs[i].val;
        s16 = (uint16_t *)tmp; /* n uint16 fit in the n uint32 of tmp */
        const uint32_t *v = src;
        uint64_t esc = 0;
#pragma omp parallel for schedule(static) num_threads(T) reduction(+ : esc) if (T > 1)
        for (uint64_t i = 0; i < n; i++) {
            uint32_t k = dict_find(dict, m, v[i]);
            if (k < m && dict[k] == v[i]) s16[i] = (uint16_t)k;
            else {
                s16[i] = (uint16_t)HC_DICT_MAX;
                esc++;
            }
        }
        nesc = esc;
        syms = s16;
    }
    int width = es == 1 ? 1 : 2;

    size_t o_hist = 0, o_tot = al64((size_t)T * K * 4), o_book = o_tot + al64((size_t)K * 8);
    size_t o_work = o_book + al64(sizeof(scz_huff_enc));
    size_t o_gap = o_work + al64(scz__huff_work_size(K));
    size_t need = o_gap + al64((size_t)(16 * n / SCZ_HUFF_UNIT_BITS) + 16);
    uint8_t *w = scz__scratch(ctx, 0, need);
    if (!w) return scz__fail(ctx, SCZ_ERR_NOMEM, "huffman: out of memory");
    uint32_t *hist = (uint32_t *)(w + o_hist);
    uint64_t *total = (uint64_t *)(w + o_tot);
    scz_huff_enc *book = (scz_huff_enc *)(w + o_book);
    uint64_t rs[65], rb[64];
    scz__hist_ranges(syms, width, n, T, K, hist, rs);
    scz__hist_reduce(hist, T, K, total, NULL, NULL);
    scz__huff_build(total, K, book, w + o_work);
    scz__hist_reduce(hist, T, K, NULL, book, rb);
    scz_hs_info hi;
    scz__hs_plan(book, total, n, &hi);
    uint64_t size = HC_HDR + 4 * (uint64_t)(es == 4 ? m : 0) + hi.size + 4 * nesc;
    if (size >= HC_HDR + n * es) return stored(ctx, g, src, dst, cap, out, info);
    if (size > cap) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "huffman: chunk does not fit");
    put_header(dst, 1, es, es == 4 ? m : 0, (uint32_t)nesc);
    uint8_t *p = dst + HC_HDR;
    if (es == 4) {
        for (uint32_t i = 0; i < m; i++) scz__st32(p + 4 * (size_t)i, dict[i]);
        p += 4 * (size_t)m;
    }
    scz__hs_write(&hi, book, syms, width, T, rs, rb, p, w + o_gap);
    p += hi.size;
    if (nesc) { /* with escapes the dictionary has 65535 entries: symbol 65535 is the escape */
        const uint32_t *v = src;
        for (uint64_t i = 0; i < n; i++)
            if (s16[i] == HC_DICT_MAX) {
                scz__st32(p, v[i]);
                p += 4;
            }
    }
    *out = (uint64_t)(p - dst);
    *info = 1;
    return SCZ_OK;
}

static scz_status hc_decompress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const uint8_t *src,
                                uint64_t size, uint32_t info, void *dstv) {
    (void)h;
    uint64_t n = g->count;
    unsigned es = g->esize;
    if (size < HC_HDR) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk shorter than its header");
    unsigned mode = src[0];
    uint32_t m = scz__ld32(src + 4), nesc = scz__ld32(src + 8);
    if (mode != info || mode > 1 || src[1] != es || src[2] || src[3] || scz__ld32(src + 12))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk header is invalid");
    if (mode == 0) {
        if (m || nesc || size != HC_HDR + n * es)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "stored huffman chunk has the wrong size");
        memcpy(dstv, src + HC_HDR, n * es);
        return SCZ_OK;
    }
    if (n > UINT32_MAX - 1) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk too large");
    int T = scz__threads(ctx);
    if (T > 64) T = 64;
    uint32_t K;
    if (es != 4) {
        if (m || nesc) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: dictionary for %u-byte symbols", es);
        K = es == 1 ? 256 : 65536;
    } else {
        if (m == 0 || m > SCZ_HUFF_MAX_K || (nesc && m != HC_DICT_MAX) || nesc > n)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: bad dictionary or escape count");
        K = nesc ? SCZ_HUFF_MAX_K : m;
    }
    uint64_t pos = HC_HDR + 4 * (uint64_t)(es == 4 ? m : 0);
    if (pos > size) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk truncated in its dictionary");
    const uint8_t *dictp = src + HC_HDR;
    for (uint32_t i = 1; es == 4 && i < m; i++)
        if (scz__ld32(dictp + 4 * (size_t)(i - 1)) >= scz__ld32(dictp + 4 * (size_t)i))
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: dictionary not strictly ascending");
    size_t o_dec = 0, o_sym = al64(sizeof(scz_huff_dec));
    size_t need = o_sym + (es == 4 ? al64(2 * (size_t)n + 2) : 0);
    uint8_t *w = scz__scratch(ctx, 0, need);
    if (!w) return scz__fail(ctx, SCZ_ERR_NOMEM, "huffman: out of memory");
    scz_huff_dec *dec = (scz_huff_dec *)(w + o_dec);
    void *symout = es == 4 ? (void *)(w + o_sym) : dstv;
    uint64_t used;
    scz_status st = scz__hs_read(ctx, src + pos, size - pos, K, n, dec, symout, es == 1 ? 1 : 2, T, &used);
    if (st) return st;
    pos += used;
    if (es != 4) {
        if (pos != size) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: %llu trailing bytes",
                                          (unsigned long long)(size - pos));
        return SCZ_OK;
    }
    if (size - pos != 4 * (uint64_t)nesc)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: escape list size mismatch");
    const uint16_t *s16 = symout;
    const uint8_t *escp = src + pos;
    uint32_t *d = dstv;
    uint64_t e = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t s = s16[i];
        if (nesc && s == HC_DICT_MAX) {
            if (e == nesc) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: more escapes than listed");
            d[i] = scz__ld32(escp + 4 * e++);
        } else {
            d[i] = scz__ld32(dictp + 4 * (size_t)s);
        }
    }
    if (e != nesc) return scz__fail(ctx, SCZ_ERR_CORRUPT, "huffman chunk: fewer escapes than listed");
    return SCZ_OK;
}

const scz_codec_ops scz__huffman_ops = {
    .id = SCZ_CODEC_HUFFMAN,
    .name = "huffman",
    .lossless = 1,
    .dtypes = 1u << SCZ_DTYPE_U8 | 1u << SCZ_DTYPE_U16 | 1u << SCZ_DTYPE_U32,
    .prepare = hc_prepare,
    .check_header = hc_check,
    .chunk_bound = hc_bound,
    .compress_chunk = hc_compress,
    .decompress_chunk = hc_decompress,
};

/*
 * lzss.c -- the lossless `lzss` codec (id 5) on the CPU: LZSS over 1-, 2-,
 * 4- or 8-byte symbols in independent sub-chunks, with an optional
 * byte-plane shuffle. docs/FORMAT.md section 11; constants in lzss.h.
 *
 * The parse is specified exactly (FORMAT.md 11.4: at each position the
 * longest match in the window, the nearest of equals, greedy), so the match
 * finder must return that match: hash chains keyed on the first
 * min(M * S, 8) bytes visit every earlier position that can start a match
 * of at least M symbols, nearest first, with a run of equal keys taken as
 * one candidate (lzss_walk.h), and stop at the window's end or at the first
 * candidate reaching the longest possible length.
 * OpenMP: one task per sub-chunk.
 */
#include "lzss.h"
#include "lzss_walk.h"

#include "../internal.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define HASH_BITS 14
#define HASH_SIZE (1u << HASH_BITS)

/* ---- parameters ---- */

static uint32_t default_sym(scz_dtype t) {
    switch (t) {
    case SCZ_DTYPE_U8: return 1;
    case SCZ_DTYPE_U16: return 2;
    default: return 4; /* u32, f32; u64 and f64 as two 4-byte symbols (FORMAT.md 11.8) */
    }
}

static int dtype_ok(scz_dtype t) {
    return t == SCZ_DTYPE_U8 || t == SCZ_DTYPE_U16 || t == SCZ_DTYPE_U32 || t == SCZ_DTYPE_U64 ||
           t == SCZ_DTYPE_F32 || t == SCZ_DTYPE_F64;
}

/* Range checks of FORMAT.md 11.1 on resolved knobs; NULL if valid. */
static const char *knob_error(const uint32_t *k) {
    if (!lzss_sym_ok(k[LZSS_K_SYM])) return "symbol size (knob 0) must be 1, 2, 4 or 8";
    if (k[LZSS_K_WINDOW] < 1 || k[LZSS_K_WINDOW] > LZSS_WINDOW_MAX) return "window (knob 1) must be 1..65536";
    if (k[LZSS_K_MINLEN] < 1 || k[LZSS_K_MINLEN] > LZSS_MINLEN_MAX) return "minimum match (knob 2) must be 1..255";
    if (k[LZSS_K_SHUFFLE] != LZSS_SHUFFLE_OFF && k[LZSS_K_SHUFFLE] != LZSS_SHUFFLE_ON)
        return "shuffle (knob 3) must be 1 (off) or 2 (on)";
    if (k[LZSS_K_LG] < LZSS_LG_MIN || k[LZSS_K_LG] > LZSS_LG_MAX) return "sub-chunk log2 (knob 4) must be 8..16";
    if (k[5]) return "knob 5 must be 0";
    return NULL;
}

static lzss_par get_par(const scz_header *h) {
    lzss_par p;
    p.S = h->knobs[LZSS_K_SYM];
    p.W = h->knobs[LZSS_K_WINDOW];
    p.M = h->knobs[LZSS_K_MINLEN];
    p.shuffle = h->knobs[LZSS_K_SHUFFLE];
    p.lg = h->knobs[LZSS_K_LG];
    p.E = (uint32_t)scz_dtype_size(h->dtype);
    p.D = lzss_dist_bytes(p.W);
    p.B = (uint64_t)p.S << p.lg;
    return p;
}

static scz_status lz_prepare(scz_ctx *ctx, scz_header *h, const void *src) {
    (void)src;
    if (!dtype_ok(h->dtype))
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec 'lzss' takes u8, u16, u32, u64, f32 or f64 arrays, not %s",
                         scz_dtype_name(h->dtype));
    uint32_t *k = h->knobs;
    if (!k[LZSS_K_SYM]) k[LZSS_K_SYM] = default_sym(h->dtype);
    if (!k[LZSS_K_WINDOW]) k[LZSS_K_WINDOW] = LZSS_WINDOW_DEFAULT;
    if (!k[LZSS_K_MINLEN] && lzss_sym_ok(k[LZSS_K_SYM]) && k[LZSS_K_WINDOW] <= LZSS_WINDOW_MAX)
        k[LZSS_K_MINLEN] = lzss_default_minlen(k[LZSS_K_SYM], k[LZSS_K_WINDOW]);
    if (!k[LZSS_K_SHUFFLE])
        k[LZSS_K_SHUFFLE] = (h->dtype == SCZ_DTYPE_F32 || h->dtype == SCZ_DTYPE_F64) ? LZSS_SHUFFLE_ON : LZSS_SHUFFLE_OFF;
    if (!k[LZSS_K_LG]) k[LZSS_K_LG] = LZSS_LG_DEFAULT;
    const char *e = knob_error(k);
    if (e) return scz__fail(ctx, SCZ_ERR_ARG, "codec 'lzss': %s", e);
    h->eb_abs = 0;
    return SCZ_OK;
}

static scz_status lz_check(scz_ctx *ctx, const scz_header *h) {
    if (!dtype_ok(h->dtype)) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss stream of dtype %s", scz_dtype_name(h->dtype));
    const char *e = knob_error(h->knobs);
    if (e) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss stream: %s", e);
    if (h->eb_mode != SCZ_EB_NONE || h->eb_user != 0 || h->eb_abs != 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss stream with an error bound");
    return SCZ_OK;
}

static uint64_t lz_slab_align(const scz_header *h) {
    (void)h;
    return 1;
}

/* No payload is larger than the chunk's raw bytes (FORMAT.md 11.3). */
static uint64_t lz_bound(const scz_header *h, const scz_chunk_geom *g) {
    (void)h;
    uint64_t b;
    if (!scz__mul_ok(g->count, g->esize, &b)) return 0;
    return b;
}

/* ---- encoder ---- */

typedef struct lz_work {
    uint32_t head[HASH_SIZE]; /* base + position of the last symbol with this hash */
    uint32_t base;            /* positions of the current sub-chunk are base + i */
    uint16_t *prev;           /* 2^lg entries: each position's link (lzss_walk.h) */
    uint8_t *shuf;            /* B bytes: the shuffled sub-chunk */
    uint8_t *out;             /* 3 B + 64 bytes: the coded body */
} lz_work;

static inline uint64_t load_key(const uint8_t *p, unsigned hb, uint64_t avail) {
    uint64_t v = 0;
    if (avail >= 8) {
        memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        if (hb < 8) v &= ((uint64_t)1 << (8 * hb)) - 1;
    } else {
        for (unsigned k = 0; k < hb; k++) v |= (uint64_t)p[k] << (8 * k);
    }
    return v;
}

static inline uint32_t hash_key(uint64_t v) {
    return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> (64 - HASH_BITS));
}

/* Codes the symbols s (n symbols of S bytes, then t trailing bytes) into
 * w->out; returns the body size, or b (= n S + t) or more when the body
 * would not be smaller than the raw bytes (the sub-chunk is stored).
 * First the links of every position (prev: the distance to the previous
 * position with the same key hash, or for an interior position of a run
 * of equal keys the distance to the run's start; 0: none), then the greedy
 * parse with lzss_find_match (lzss_walk.h). Inlined once per symbol size (encode_sub). */
static inline __attribute__((always_inline)) uint64_t encode_sub_s(const lzss_par *P, const uint8_t *s, uint64_t n,
                                                                   uint64_t t, lz_work *w, const uint64_t S) {
    const uint64_t W = P->W, M = P->M;
    const uint64_t b = n * S + t;
    const uint64_t nbytes = n * S;
    const unsigned hb = (unsigned)(M * S < 8 ? M * S : 8);
    const uint64_t K = hb / S; /* key symbols: every match of M or more starts with the same key */
    uint8_t *out = w->out;
    uint64_t o = 0, flag_at = 0;
    unsigned ntok = LZSS_GROUP; /* tokens in the current group: a new group starts at once */

    if (w->base > UINT32_MAX - (2u << LZSS_LG_MAX)) { /* positions would wrap: start afresh */
        memset(w->head, 0, sizeof w->head);
        w->base = 0;
    }
    const uint32_t base = w->base + 1; /* head entries below base are from earlier sub-chunks (0 = none) */
    w->base = base + (uint32_t)n;
    uint16_t *prev = w->prev;

    uint64_t rs = 0; /* start of the current run of equal keys */
    for (uint64_t i = 0; i < n; i++) {
        if (i + K > n) {
            prev[i] = 0;
            continue;
        }
        const int interior = lzss_run_at(s, i, K, S);
        if (!interior) rs = i;
        const uint32_t h = hash_key(load_key(s + i * S, hb, nbytes - i * S));
        const uint32_t c = w->head[h];
        prev[i] = (uint16_t)(interior ? i - rs : c >= base ? i - (c - base) : 0);
        w->head[h] = base + (uint32_t)i;
    }

    uint64_t i = 0;
    while (i < n) {
        if (o >= b) return b; /* not smaller: stored */
        if (ntok == LZSS_GROUP) {
            flag_at = o;
            out[o++] = 0;
            ntok = 0;
        }
        uint64_t best = 0, bestd = 0;
        if (prev[i] && i + M <= n) {
            uint64_t cap = n - i;
            if (cap > M + LZSS_EXTRA_MAX) cap = M + LZSS_EXTRA_MAX;
            uint64_t Rc = 1; /* the run of s[i] at i, at most cap */
            const uint64_t v = lzss_sym(s, i, S);
            while (Rc < cap && lzss_sym(s, i + Rc, S) == v) Rc++;
            best = lzss_find_match(s, prev, i, n, W, M, K, Rc, &bestd, S);
        }
        uint64_t adv;
        if (best >= M) {
            out[flag_at] |= (uint8_t)(1u << ntok);
            uint64_t dd = bestd - 1;
            out[o++] = (uint8_t)dd;
            if (P->D == 2) out[o++] = (uint8_t)(dd >> 8);
            out[o++] = (uint8_t)(best - M);
            adv = best;
        } else {
            memcpy(out + o, s + i * S, S);
            o += S;
            adv = 1;
        }
        ntok++;
        i += adv;
    }
    if (o + t >= b) return b;
    memcpy(out + o, s + nbytes, t);
    return o + t;
}

static uint64_t encode_sub(const lzss_par *P, const uint8_t *s, uint64_t n, uint64_t t, lz_work *w) {
    switch (P->S) {
    case 1: return encode_sub_s(P, s, n, t, w, 1);
    case 2: return encode_sub_s(P, s, n, t, w, 2);
    case 4: return encode_sub_s(P, s, n, t, w, 4);
    case 8: return encode_sub_s(P, s, n, t, w, 8);
    default: return encode_sub_s(P, s, n, t, w, P->S); /* not reached: knobs are checked */
    }
}

static void work_free(lz_work **w, int T) {
    if (!w) return;
    for (int i = 0; i < T; i++)
        if (w[i]) {
            free(w[i]->prev);
            free(w[i]->shuf);
            free(w[i]->out);
            free(w[i]);
        }
    free(w);
}

static lz_work **work_alloc(const lzss_par *P, int T, int decode) {
    lz_work **w = calloc((size_t)T, sizeof *w);
    if (!w) return NULL;
    for (int i = 0; i < T; i++) {
        w[i] = calloc(1, sizeof **w);
        if (!w[i]) goto fail;
        w[i]->shuf = malloc((size_t)P->B);
        if (!w[i]->shuf) goto fail;
        if (decode) continue;
        w[i]->prev = malloc(sizeof(uint16_t) << P->lg);
        w[i]->out = malloc((size_t)(3 * P->B + 64));
        if (!w[i]->prev || !w[i]->out) goto fail;
    }
    return w;
fail:
    work_free(w, T);
    return NULL;
}

static int pick_threads(scz_ctx *ctx, uint64_t nsub) {
    int T = scz__threads(ctx);
    if ((uint64_t)T > nsub) T = (int)nsub;
    return T < 1 ? 1 : T;
}

static scz_status lz_compress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const void *srcv,
                              uint8_t *dst, uint64_t cap, uint64_t *out_size, uint32_t *info) {
    const lzss_par P = get_par(h);
    const uint8_t *src = srcv;
    uint64_t R;
    if (!scz__mul_ok(g->count, g->esize, &R)) return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lzss: chunk too large");
    const uint64_t nsub = (R + P.B - 1) / P.B;
    if (nsub > UINT32_MAX / 4) return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lzss: chunk too large");

    /* coded bodies, each in its own B-byte slot, then their sizes */
    uint64_t area;
    if (!scz__mul_ok(nsub, P.B, &area)) return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lzss: chunk too large");
    uint8_t *slots = scz__scratch(ctx, 0, (size_t)area + 8 * (size_t)nsub + 64);
    if (!slots) return scz__fail(ctx, SCZ_ERR_NOMEM, "lzss: out of memory");
    uint64_t *z = (uint64_t *)(slots + ((area + 7) & ~(uint64_t)7));
    const int T = pick_threads(ctx, nsub);
    lz_work **W = work_alloc(&P, T, 0);
    if (!W) return scz__fail(ctx, SCZ_ERR_NOMEM, "lzss: out of memory");

#pragma omp parallel num_threads(T) if (T > 1)
    {
#ifdef _OPENMP
        lz_work *w = W[omp_get_thread_num()];
#else
        lz_work *w = W[0];
#endif
#pragma omp for schedule(dynamic, 4)
        for (uint64_t j = 0; j < nsub; j++) {
            uint64_t off = j * P.B, b = R - off < P.B ? R - off : P.B;
            const uint8_t *s = src + off;
            if (P.shuffle == LZSS_SHUFFLE_ON && P.E > 1) {
                lzss_shuffle(s, b, P.E, w->shuf);
                s = w->shuf;
            }
            uint64_t n = b / P.S;
            uint64_t sz = encode_sub(&P, s, n, b - n * P.S, w);
            if (sz < b) {
                memcpy(slots + off, w->out, (size_t)sz);
                z[j] = sz;
            } else {
                z[j] = b;
            }
        }
    }
    work_free(W, T);

    uint64_t data = 0;
    for (uint64_t j = 0; j < nsub; j++) data += z[j];
    const uint64_t coded = LZSS_PAYLOAD_HDR + 4 * nsub + data;
    if (coded >= R) {
        if (cap < R) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
        memcpy(dst, src, (size_t)R);
        *out_size = R;
        *info = LZSS_INFO_STORED;
        return SCZ_OK;
    }
    if (data > UINT32_MAX) return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lzss: a chunk's data area exceeds 4 GiB");
    if (cap < coded) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
    dst[0] = (uint8_t)P.S;
    dst[1] = (uint8_t)P.shuffle;
    dst[2] = (uint8_t)P.lg;
    dst[3] = (uint8_t)P.M;
    scz__st32(dst + 4, P.W);
    uint8_t *tab = dst + LZSS_PAYLOAD_HDR, *d = tab + 4 * nsub;
    uint64_t e = 0;
    for (uint64_t j = 0; j < nsub; j++) {
        uint64_t off = j * P.B, b = R - off < P.B ? R - off : P.B;
        memcpy(d + e, z[j] == b ? src + off : slots + off, (size_t)z[j]);
        e += z[j];
        scz__st32(tab + 4 * j, (uint32_t)e);
    }
    *out_size = coded;
    *info = LZSS_INFO_CODED;
    return SCZ_OK;
}

/* ---- decoder ---- */

/* Copies len bytes from dst - dist to dst, front to back (overlap allowed). */
static inline void lz_copy(uint8_t *dst, uint64_t dist, uint64_t len) {
    const uint8_t *src = dst - dist;
    while (len) {
        uint64_t avail = (uint64_t)(dst - src); /* bytes of pattern already written */
        uint64_t c = avail < len ? avail : len;
        memcpy(dst, src, (size_t)c);
        dst += c;
        len -= c;
    }
}

/* Decodes a coded body of z bytes into out (n symbols, then t trailing
 * bytes). Returns 0, or a nonzero error code. Inlined once per symbol size
 * (decode_sub), so that a literal's copy is one fixed-size move instead of
 * a call to memcpy. */
static inline __attribute__((always_inline)) int decode_sub_s(const lzss_par *P, const uint8_t *in, uint64_t z,
                                                              uint8_t *out, uint64_t n, uint64_t t, const uint64_t S) {
    const uint64_t M = P->M, W = P->W, D = P->D;
    uint64_t p = 0, o = 0;
    while (o < n) {
        if (p >= z) return 1; /* body ends early */
        unsigned f = in[p++];
        for (unsigned k = 0; k < LZSS_GROUP; k++) {
            if (o == n) {
                if (f >> k) return 2; /* flag bits after the last symbol */
                break;
            }
            if (f >> k & 1) {
                if (z - p < D + 1) return 1;
                uint64_t d = (uint64_t)in[p] + 1;
                if (D == 2) d += (uint64_t)in[p + 1] << 8;
                uint64_t L = M + in[p + D];
                p += D + 1;
                if (d > W || d > o) return 3;  /* distance outside the window or the output */
                if (L > n - o) return 4;       /* match past the sub-chunk */
                lz_copy(out + o * S, d * S, L * S);
                o += L;
            } else {
                if (z - p < S) return 1;
                memcpy(out + o * S, in + p, (size_t)S);
                p += S;
                o++;
            }
        }
    }
    if (z - p != t) return 5; /* trailing bytes missing or bytes left over */
    memcpy(out + n * S, in + p, (size_t)t);
    return 0;
}

static int decode_sub(const lzss_par *P, const uint8_t *in, uint64_t z, uint8_t *out, uint64_t n, uint64_t t) {
    switch (P->S) {
    case 1: return decode_sub_s(P, in, z, out, n, t, 1);
    case 2: return decode_sub_s(P, in, z, out, n, t, 2);
    case 4: return decode_sub_s(P, in, z, out, n, t, 4);
    case 8: return decode_sub_s(P, in, z, out, n, t, 8);
    default: return decode_sub_s(P, in, z, out, n, t, P->S); /* not reached: knobs are checked */
    }
}

static scz_status lz_decompress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const uint8_t *src,
                                uint64_t size, uint32_t info, void *dstv) {
    const lzss_par P = get_par(h);
    uint8_t *dst = dstv;
    uint64_t R;
    if (!scz__mul_ok(g->count, g->esize, &R)) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss: chunk too large");
    if (info == LZSS_INFO_STORED) {
        if (size != R) return scz__fail(ctx, SCZ_ERR_CORRUPT, "stored lzss chunk has the wrong size");
        memcpy(dst, src, (size_t)R);
        return SCZ_OK;
    }
    if (info != LZSS_INFO_CODED) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss chunk with codec_info %u", info);
    const uint64_t nsub = (R + P.B - 1) / P.B;
    if (size < LZSS_PAYLOAD_HDR || (size - LZSS_PAYLOAD_HDR) / 4 < nsub)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss chunk shorter than its offset table");
    if (src[0] != P.S || src[1] != P.shuffle || src[2] != P.lg || src[3] != P.M || scz__ld32(src + 4) != P.W)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss chunk parameters differ from the stream's");
    const uint8_t *tab = src + LZSS_PAYLOAD_HDR, *data = tab + 4 * nsub;
    const uint64_t avail = size - LZSS_PAYLOAD_HDR - 4 * nsub;
    uint64_t prev = 0;
    for (uint64_t j = 0; j < nsub; j++) {
        uint64_t e = scz__ld32(tab + 4 * j);
        uint64_t b = R - j * P.B < P.B ? R - j * P.B : P.B;
        if (e < prev || e - prev > b)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss chunk: sub-chunk %llu has a bad end offset",
                             (unsigned long long)j);
        prev = e;
    }
    if (prev != avail) return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss chunk size does not match its offset table");

    const int T = pick_threads(ctx, nsub);
    const int shuf = P.shuffle == LZSS_SHUFFLE_ON && P.E > 1;
    lz_work **W = shuf ? work_alloc(&P, T, 1) : NULL;
    if (shuf && !W) return scz__fail(ctx, SCZ_ERR_NOMEM, "lzss: out of memory");
    uint64_t bad = UINT64_MAX; /* the first failing sub-chunk */
    int bad_code = 0;
#pragma omp parallel num_threads(T) if (T > 1)
    {
#ifdef _OPENMP
        lz_work *w = W ? W[omp_get_thread_num()] : NULL;
#else
        lz_work *w = W ? W[0] : NULL;
#endif
#pragma omp for schedule(dynamic, 4)
        for (uint64_t j = 0; j < nsub; j++) {
            uint64_t off = j * P.B, b = R - off < P.B ? R - off : P.B;
            uint64_t s0 = j ? scz__ld32(tab + 4 * (j - 1)) : 0, z = scz__ld32(tab + 4 * j) - s0;
            if (z == b) {
                memcpy(dst + off, data + s0, (size_t)b);
                continue;
            }
            uint8_t *o = shuf ? w->shuf : dst + off;
            uint64_t n = b / P.S;
            int rc = decode_sub(&P, data + s0, z, o, n, b - n * P.S);
            if (rc) {
#pragma omp critical(lzss_bad)
                if (j < bad) {
                    bad = j;
                    bad_code = rc;
                }
            } else if (shuf) {
                lzss_unshuffle(o, b, P.E, dst + off);
            }
        }
    }
    work_free(W, T);
    if (bad != UINT64_MAX) {
        static const char *const why[] = {"", "body ends early", "flag bits after the last symbol",
                                          "distance outside the window or the output", "match past the sub-chunk's end",
                                          "trailing bytes missing or bytes left over"};
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss chunk: sub-chunk %llu: %s", (unsigned long long)bad,
                         why[bad_code]);
    }
    return SCZ_OK;
}

const scz_codec_ops scz__lzss_ops = {
    .id = SCZ_CODEC_LZSS,
    .name = "lzss",
    .lossless = 1,
    .dtypes = 1u << SCZ_DTYPE_U8 | 1u << SCZ_DTYPE_U16 | 1u << SCZ_DTYPE_U32 | 1u << SCZ_DTYPE_U64 |
              1u << SCZ_DTYPE_F32 | 1u << SCZ_DTYPE_F64,
    .prepare = lz_prepare,
    .check_header = lz_check,
    .slab_align = lz_slab_align,
    .chunk_bound = lz_bound,
    .compress_chunk = lz_compress,
    .decompress_chunk = lz_decompress,
};

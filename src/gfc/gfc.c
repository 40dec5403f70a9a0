/*
 * gfc.c -- CPU (OpenMP over segments) implementation of the gfc lossless
 * codec for float32/float64: per 32-value subchunk, residuals against the
 * value of the same dimension in the previous subchunk, a sign and a
 * leading-zero-byte code per value, then the kept bytes; segments of 1024
 * values coded independently and found through an offset table; the
 * stored form for chunks the coding would not shrink. Implements
 * docs/FORMAT.md section 10.
 */
#include "gfc.h"

#include "../internal.h"
#include "../format/container.h"
#include "../util/xxh64.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the gfc CPU codec assumes a little-endian host"
#endif

#define T uint64_t
#define W 64
#define SFX 64
#define ZERO_NIB GFC_ZERO_NIBBLE_F64
#include "gfc_tmpl.h"
#undef T
#undef W
#undef SFX
#undef ZERO_NIB

#define T uint32_t
#define W 32
#define SFX 32
#define ZERO_NIB GFC_ZERO_NIBBLE_F32
#include "gfc_tmpl.h"
#undef T
#undef W
#undef SFX
#undef ZERO_NIB

/* float64 segments on x86-64 CPUs with AVX2: the same encoder with the
 * significant bytes by comparisons, so that the lane loop vectorizes
 * (baseline x86-64 has no 64-bit vector compare; the leading-zero count
 * kept it scalar: ~1.9 GB/s a core for the encoder alone, the issue's
 * target 2 GB/s for the whole compression). The same bytes: the codes are
 * integer functions of the values. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define T uint64_t
#define W 64
#define SFX 64x
#define ZERO_NIB GFC_ZERO_NIBBLE_F64
#define GFC_ATTR __attribute__((target("avx2")))
#define GFC_SIGB_CMP 1
#define GFC_ENC_ONLY 1
#include "gfc_tmpl.h"
#undef T
#undef W
#undef SFX
#undef ZERO_NIB
#undef GFC_ATTR
#undef GFC_SIGB_CMP
#undef GFC_ENC_ONLY
/* __builtin_cpu_supports reads the CPU model the runtime filled in at
 * start-up (no state of ours: the threads of a segment loop share nothing) */
#define ENC_SEG64(s, n, pl, d, o) \
    (__builtin_cpu_supports("avx2") ? enc_seg_64x(s, n, pl, d, o) : enc_seg_64(s, n, pl, d, o))
#else
#define ENC_SEG64(s, n, pl, d, o) enc_seg_64(s, n, pl, d, o)
#endif

/* float32 segments on x86-64 CPUs with AVX-512 VBMI: a subchunk decoded in
 * vectors (the scalar decoder's pointer chase through the kept bytes and
 * its per-value loads were ~9 cycles a value). Per subchunk: the 32
 * nibbles from the 16 header bytes, their codes checked (10.4, padding
 * 10.1), the kept-byte counts' prefix sum in one 256-bit register, and the
 * values' bytes gathered from the 128-byte window of kept bytes by one
 * two-table byte permute per 16 values (bytes past a value's count
 * zeroed), then sign and prediction as in dec_seg_32. The same answers as
 * dec_seg_32 for every input: a segment whose window could reach past
 * `avail` goes to dec_seg_32. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GFC_V32_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
GFC_V32_ATTR static int dec_seg_32v(const uint8_t *in, size_t len, size_t avail, uint32_t n, const uint8_t *pl,
                                    uint32_t d, uint8_t *dst) {
    if (avail < len || avail - len < 2 * 64 + GFC_HDR_BYTES) return dec_seg_32(in, len, avail, n, pl, d, dst);
    uint32_t buf[2][GFC_SUB], pred[GFC_SUB];
    uint32_t *prev = buf[0], *cur = buf[1];
    memset(prev, 0, sizeof buf[0]);
    const uint8_t *p = in, *const end = in + len;
    const __m128i m0f = _mm_set1_epi8(0x0f), one = _mm_set1_epi8(1);
    /* output byte i of a 16-value half: value i / 4 (e0, e1 = 16 + e0), byte i % 4 (b4) */
    const __m512i e0 = _mm512_set_epi32(0x0f0f0f0f, 0x0e0e0e0e, 0x0d0d0d0d, 0x0c0c0c0c, 0x0b0b0b0b, 0x0a0a0a0a,
                                        0x09090909, 0x08080808, 0x07070707, 0x06060606, 0x05050505, 0x04040404,
                                        0x03030303, 0x02020202, 0x01010101, 0x00000000);
    const __m512i e1 = _mm512_add_epi8(e0, _mm512_set1_epi8(16)), b4 = _mm512_set1_epi32(0x03020100);
    for (uint32_t base = 0; base < n; base += GFC_SUB) {
        const uint32_t cnt = n - base < GFC_SUB ? n - base : GFC_SUB;
        if ((size_t)(end - p) < GFC_HDR_BYTES) return -1;
        const __m128i h = _mm_loadu_si128((const __m128i *)p);
        const __m128i lo = _mm_and_si128(h, m0f), hi = _mm_and_si128(_mm_srli_epi16(h, 4), m0f);
        const __m128i n0 = _mm_unpacklo_epi8(lo, hi), n1 = _mm_unpackhi_epi8(lo, hi); /* nibbles 0..15, 16..31 */
        const __m256i nib = _mm256_inserti128_si256(_mm256_castsi128_si256(n0), n1, 1);
        const __m256i c = _mm256_and_si256(nib, _mm256_set1_epi8(7));
        __mmask32 bad = _mm256_cmpgt_epu8_mask(c, _mm256_set1_epi8(4)); /* codes 5..7 */
        if (cnt < GFC_SUB) /* padding nibbles (10.1) */
            bad |= _mm256_mask_cmpneq_epu8_mask(~(__mmask32)((1u << cnt) - 1), nib,
                                                _mm256_set1_epi8((char)GFC_ZERO_NIBBLE_F32));
        if (bad) return -1;
        const __m256i k = _mm256_sub_epi8(_mm256_set1_epi8(4), c); /* kept bytes 0..4 */
        __m256i sc = k; /* inclusive prefix sum: in each 128-bit lane, then lane 0's total into lane 1 */
        sc = _mm256_add_epi8(sc, _mm256_slli_si256(sc, 1));
        sc = _mm256_add_epi8(sc, _mm256_slli_si256(sc, 2));
        sc = _mm256_add_epi8(sc, _mm256_slli_si256(sc, 4));
        sc = _mm256_add_epi8(sc, _mm256_slli_si256(sc, 8));
        const __m256i t15 = _mm256_shuffle_epi8(sc, _mm256_set1_epi8(15));
        sc = _mm256_add_epi8(sc, _mm256_permute2x128_si256(t15, t15, 0x08));
        const unsigned tot = (unsigned)_mm256_extract_epi8(sc, 31) & 0xFFu; /* <= 128 */
        p += GFC_HDR_BYTES;
        if (tot > (size_t)(end - p)) return -1;
        const __m512i off = _mm512_castsi256_si512(_mm256_sub_epi8(sc, k)), kz = _mm512_castsi256_si512(k);
        const __m512i d0 = _mm512_loadu_si512(p), d1 = _mm512_loadu_si512(p + 64); /* p + 128 <= in + avail */
        const __m512i i0 = _mm512_add_epi8(_mm512_permutexvar_epi8(e0, off), b4);
        const __m512i i1 = _mm512_add_epi8(_mm512_permutexvar_epi8(e1, off), b4);
        const __mmask64 v0 = _mm512_cmplt_epu8_mask(b4, _mm512_permutexvar_epi8(e0, kz));
        const __mmask64 v1 = _mm512_cmplt_epu8_mask(b4, _mm512_permutexvar_epi8(e1, kz));
        const __m512i mag0 = _mm512_maskz_permutex2var_epi8(v0, d0, i0, d1);
        const __m512i mag1 = _mm512_maskz_permutex2var_epi8(v1, d0, i1, d1);
        const __m512i g0 = _mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(n0, 3), one));
        const __m512i g1 = _mm512_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(n1, 3), one));
        preds_32(prev, pl, d, pred);
        const __m512i z = _mm512_setzero_si512();
        const __m512i c0 = _mm512_add_epi32(_mm512_loadu_si512(pred),
                                            _mm512_add_epi32(_mm512_xor_si512(mag0, _mm512_sub_epi32(z, g0)), g0));
        const __m512i c1 = _mm512_add_epi32(_mm512_loadu_si512(pred + 16),
                                            _mm512_add_epi32(_mm512_xor_si512(mag1, _mm512_sub_epi32(z, g1)), g1));
        _mm512_storeu_si512(cur, c0);
        _mm512_storeu_si512(cur + 16, c1);
        if (cnt == GFC_SUB) memcpy(dst + (size_t)base * 4, cur, sizeof buf[0]);
        else memcpy(dst + (size_t)base * 4, cur, (size_t)cnt * 4);
        p += tot;
        uint32_t *sw = prev;
        prev = cur;
        cur = sw;
    }
    return p == end ? 0 : -1;
}
/* float32 segments coded in vectors on CPUs with AVX-512 VBMI2 (byte
 * compression): per subchunk the residuals, magnitudes and significant
 * bytes of 16 values at a time (leading-zero counts), the header's nibble
 * pairs by word shifts, and each half's kept bytes packed by one byte
 * compress and written by a masked store (no slack needed). The same
 * bytes as enc_seg_32 (FORMAT.md 10.3; test_gfc's reference encoder). */
#define GFC_E32_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512cd,avx512dq,avx512vbmi,avx512vbmi2")))
GFC_E32_ATTR static size_t enc_seg_32v(const uint8_t *src, uint32_t n, const uint8_t *pl, uint32_t d, uint8_t *out) {
    uint32_t buf[2][GFC_SUB], pred[GFC_SUB];
    uint32_t *prev = buf[0], *cur = buf[1];
    memset(prev, 0, sizeof buf[0]);
    uint8_t *o = out;
    const __m512i b4 = _mm512_set1_epi32(0x03020100);
    for (uint32_t base = 0; base < n; base += GFC_SUB) {
        const uint32_t cnt = n - base < GFC_SUB ? n - base : GFC_SUB;
        preds_32(prev, pl, d, pred);
        const __m512i p0 = _mm512_loadu_si512(pred), p1 = _mm512_loadu_si512(pred + 16);
        const uint32_t *x = (const uint32_t *)(const void *)(src + (size_t)base * 4);
        const __mmask16 l0 = cnt >= 16 ? 0xffff : (__mmask16)((1u << cnt) - 1);
        const __mmask16 l1 = cnt >= 32 ? 0xffff : cnt <= 16 ? 0 : (__mmask16)((1u << (cnt - 16)) - 1);
        const __m512i c0 = _mm512_mask_loadu_epi32(p0, l0, x), c1 = _mm512_mask_loadu_epi32(p1, l1, x + 16);
        _mm512_storeu_si512(cur, c0); /* padding lanes: the prediction (residual 0, 10.1) */
        _mm512_storeu_si512(cur + 16, c1);
        const __m512i r0 = _mm512_sub_epi32(c0, p0), r1 = _mm512_sub_epi32(c1, p1);
        const __m512i s0 = _mm512_srai_epi32(r0, 31), s1 = _mm512_srai_epi32(r1, 31);
        const __m512i m0 = _mm512_sub_epi32(_mm512_xor_si512(r0, s0), s0);
        const __m512i m1 = _mm512_sub_epi32(_mm512_xor_si512(r1, s1), s1);
        /* significant bytes: (32 - lzcnt + 7) / 8, 0 for 0 */
        const __m512i k0 = _mm512_srli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(39), _mm512_lzcnt_epi32(m0)), 3);
        const __m512i k1 = _mm512_srli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(39), _mm512_lzcnt_epi32(m1)), 3);
        /* nibble: sign << 3 | (4 - kept) */
        const __m512i eight = _mm512_set1_epi32(8), four = _mm512_set1_epi32(4);
        const __m512i n0 = _mm512_or_si512(_mm512_and_si512(s0, eight), _mm512_sub_epi32(four, k0));
        const __m512i n1 = _mm512_or_si512(_mm512_and_si512(s1, eight), _mm512_sub_epi32(four, k1));
        const __m256i nb =
            _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(n0)), _mm512_cvtepi32_epi8(n1), 1);
        /* 16-bit word t = nib[2t] | nib[2t + 1] << 8 -> byte nib[2t] | nib[2t + 1] << 4 */
        const __m256i w = _mm256_or_si256(_mm256_and_si256(nb, _mm256_set1_epi16(0x0f)), _mm256_srli_epi16(nb, 4));
        _mm_storeu_si128((__m128i *)o, _mm256_cvtepi16_epi8(w));
        o += GFC_HDR_BYTES;
        const __mmask64 v0 = _mm512_cmplt_epu8_mask(b4, _mm512_mullo_epi32(k0, _mm512_set1_epi32(0x01010101)));
        const __mmask64 v1 = _mm512_cmplt_epu8_mask(b4, _mm512_mullo_epi32(k1, _mm512_set1_epi32(0x01010101)));
        const unsigned t0 = (unsigned)__builtin_popcountll(v0), t1 = (unsigned)__builtin_popcountll(v1);
        _mm512_mask_storeu_epi8(o, t0 == 64 ? ~0ull : (1ull << t0) - 1, _mm512_maskz_compress_epi8(v0, m0));
        o += t0;
        _mm512_mask_storeu_epi8(o, t1 == 64 ? ~0ull : (1ull << t1) - 1, _mm512_maskz_compress_epi8(v1, m1));
        o += t1;
        uint32_t *sw = prev;
        prev = cur;
        cur = sw;
    }
    return (size_t)(o - out);
}
/* float64 segments the same way (FORMAT.md 10.3: 6 leading zero bytes
 * coded as 5): 8 values a register, four byte compresses per subchunk. */
GFC_E32_ATTR static size_t enc_seg_64v(const uint8_t *src, uint32_t n, const uint8_t *pl, uint32_t d, uint8_t *out) {
    uint64_t buf[2][GFC_SUB], pred[GFC_SUB];
    uint64_t *prev = buf[0], *cur = buf[1];
    memset(prev, 0, sizeof buf[0]);
    uint8_t *o = out;
    const __m512i b8 = _mm512_set1_epi64(0x0706050403020100ll), rep = _mm512_set1_epi64(0x0101010101010101ll);
    const __m512i one = _mm512_set1_epi64(1), two = _mm512_set1_epi64(2), eight = _mm512_set1_epi64(8);
    for (uint32_t base = 0; base < n; base += GFC_SUB) {
        const uint32_t cnt = n - base < GFC_SUB ? n - base : GFC_SUB;
        preds_64(prev, pl, d, pred);
        const uint64_t *x = (const uint64_t *)(const void *)(src + (size_t)base * 8);
        __m512i nibq[4], mq[4], kq[4];
        for (int q = 0; q < 4; q++) {
            const int lo = 8 * q;
            const __mmask8 l =
                cnt >= (uint32_t)lo + 8 ? 0xff : cnt <= (uint32_t)lo ? 0 : (__mmask8)((1u << (cnt - lo)) - 1);
            const __m512i pq = _mm512_loadu_si512(pred + lo);
            const __m512i c = _mm512_mask_loadu_epi64(pq, l, x + lo); /* padding lanes: the prediction (10.1) */
            _mm512_storeu_si512(cur + lo, c);
            const __m512i r = _mm512_sub_epi64(c, pq), sg = _mm512_srai_epi64(r, 63);
            const __m512i m = _mm512_sub_epi64(_mm512_xor_si512(r, sg), sg);
            const __m512i b = _mm512_srli_epi64(_mm512_sub_epi64(_mm512_set1_epi64(71), _mm512_lzcnt_epi64(m)), 3);
            const __m512i k = _mm512_mask_add_epi64(b, _mm512_cmpeq_epi64_mask(b, two), b, one); /* 2 kept as 3 */
            /* code: kept 8..3 -> 0..5, 1 -> 6, 0 -> 7 */
            const __m512i c8 = _mm512_mask_sub_epi64(_mm512_sub_epi64(eight, k), _mm512_cmple_epu64_mask(k, one),
                                                     _mm512_sub_epi64(eight, k), one);
            nibq[q] = _mm512_or_si512(_mm512_and_si512(sg, eight), c8);
            mq[q] = m;
            kq[q] = k;
        }
        /* nibbles (bytes) 0..31, then pairs into the 16 header bytes */
        const __m128i a0 = _mm512_cvtepi64_epi8(nibq[0]), a1 = _mm512_cvtepi64_epi8(nibq[1]);
        const __m128i a2 = _mm512_cvtepi64_epi8(nibq[2]), a3 = _mm512_cvtepi64_epi8(nibq[3]);
        const __m256i nb = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(a0, a1)),
                                                   _mm_unpacklo_epi64(a2, a3), 1);
        const __m256i w = _mm256_or_si256(_mm256_and_si256(nb, _mm256_set1_epi16(0x0f)), _mm256_srli_epi16(nb, 4));
        _mm_storeu_si128((__m128i *)o, _mm256_cvtepi16_epi8(w));
        o += GFC_HDR_BYTES;
        for (int q = 0; q < 4; q++) {
            const __mmask64 v = _mm512_cmplt_epu8_mask(b8, _mm512_mullo_epi64(kq[q], rep));
            const unsigned t = (unsigned)__builtin_popcountll(v);
            _mm512_mask_storeu_epi8(o, t == 64 ? ~0ull : (1ull << t) - 1, _mm512_maskz_compress_epi8(v, mq[q]));
            o += t;
        }
        uint64_t *sw = prev;
        prev = cur;
        cur = sw;
    }
    return (size_t)(o - out);
}
#define ENC_SEG32(s, n, pl, d, o)                                                                              \
    (__builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512cd") &&                           \
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")                          \
         ? enc_seg_32v(s, n, pl, d, o)                                                                         \
         : enc_seg_32(s, n, pl, d, o))
#define DEC_SEG32(in, len, avail, n, pl, d, x) \
    (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") \
         ? dec_seg_32v(in, len, avail, n, pl, d, x)                                                                   \
         : dec_seg_32(in, len, avail, n, pl, d, x))
#undef ENC_SEG64
#define ENC_SEG64(s, n, pl, d, o)                                                                              \
    (__builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("avx512cd") &&                           \
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&                       \
             __builtin_cpu_supports("avx512dq")                                                                \
         ? enc_seg_64v(s, n, pl, d, o)                                                                         \
         : __builtin_cpu_supports("avx2") ? enc_seg_64x(s, n, pl, d, o) : enc_seg_64(s, n, pl, d, o))
#else
#define DEC_SEG32(in, len, avail, n, pl, d, x) dec_seg_32(in, len, avail, n, pl, d, x)
#define ENC_SEG32(s, n, pl, d, o) enc_seg_32(s, n, pl, d, o)
#endif

static void pred_lanes(uint32_t d, uint8_t pl[GFC_SUB]) {
    for (uint32_t j = 0; j < GFC_SUB; j++) pl[j] = (uint8_t)gfc_pred_lane(j, d);
}

/* Values of segment s of a chunk of n values. */
static inline uint32_t seg_values(uint64_t n, uint64_t s) {
    uint64_t rest = n - s * GFC_SEG_VALUES;
    return (uint32_t)(rest < GFC_SEG_VALUES ? rest : GFC_SEG_VALUES);
}

/* ---------------- codec interface ---------------- */

static scz_status gfc_check_fields(scz_ctx *ctx, const scz_header *h, int reading) {
    if (h->dtype != SCZ_DTYPE_F32 && h->dtype != SCZ_DTYPE_F64)
        return scz__fail(ctx, reading ? SCZ_ERR_CORRUPT : SCZ_ERR_UNSUPPORTED,
                         "gfc compresses float32 and float64 only, not %s", scz_dtype_name(h->dtype));
    if (h->knobs[0] < GFC_DIM_MIN || h->knobs[0] > GFC_DIM_MAX)
        return scz__fail(ctx, reading ? SCZ_ERR_CORRUPT : SCZ_ERR_ARG,
                         "gfc dimensionality (knob 0) must be 1..32, not %u", h->knobs[0]);
    for (int i = 1; i < SCZ_NUM_KNOBS; i++)
        if (h->knobs[i])
            return scz__fail(ctx, reading ? SCZ_ERR_CORRUPT : SCZ_ERR_ARG,
                             "gfc has one knob, the dimensionality (knob %d is %u)", i, h->knobs[i]);
    return SCZ_OK;
}

static scz_status gfc_prepare(scz_ctx *ctx, scz_header *h, const void *src) {
    (void)src;
    if (h->knobs[0] == 0) h->knobs[0] = GFC_DIM_DEFAULT;
    return gfc_check_fields(ctx, h, 0);
}

static scz_status gfc_check_header(scz_ctx *ctx, const scz_header *h) {
    scz_status st = gfc_check_fields(ctx, h, 1);
    if (st) return st;
    if (h->eb_mode != SCZ_EB_NONE || h->eb_user != 0 || h->eb_abs != 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc stream carries an error bound");
    return SCZ_OK;
}

static uint64_t gfc_slab_align(const scz_header *h) {
    (void)h;
    return 1;
}

/* Largest coded payload: the offset table and every subchunk at its
 * largest (above the raw size, so it bounds the stored form too). */
static uint64_t gfc_chunk_bound(const scz_header *h, const scz_chunk_geom *g) {
    (void)h;
    uint64_t subs = gfc_num_subchunks(g->count), data, total;
    if (!scz__mul_ok(subs, GFC_MAX_SUB_BYTES(g->esize), &data) ||
        !scz__add_ok(data, 4 * gfc_num_segments(g->count), &total))
        return 0;
    return total;
}

static scz_status store_chunk(scz_ctx *ctx, const scz_chunk_geom *g, const void *src, uint8_t *dst, uint64_t cap,
                              uint64_t *out_size, uint32_t *info) {
    const uint64_t raw = g->count * g->esize;
    if (raw > cap) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
    memcpy(dst, src, (size_t)raw);
    *out_size = raw;
    *info = GFC_INFO_STORED;
    return SCZ_OK;
}

/* The checksum of a stored chunk's payload (ck: compress_chunk_ck). */
static scz_status store_chunk_ck(scz_ctx *ctx, const scz_chunk_geom *g, const void *src, uint8_t *dst, uint64_t cap,
                                 uint64_t *out_size, uint32_t *info, uint64_t *ck, unsigned bl) {
    scz_status st = store_chunk(ctx, g, src, dst, cap, out_size, info);
    if (!st && ck) *ck = scz__checksum(dst, *out_size, bl, 1);
    return st;
}

/* One thread: segments coded in place after the offset table (through a
 * small buffer where the slack of a full-word store is not there), the
 * coding abandoned as soon as it reaches the raw size (10.6). With ck, also
 * the payload's checksum (FORMAT.md 5, blocks of 2^bl bytes): the blocks
 * of the data area 8 at a time as soon as the segments fill them (in L1 /
 * L2 still), those that overlap the offset table at the end. */
static scz_status compress_serial(scz_ctx *ctx, const scz_chunk_geom *g, const uint8_t *src, uint8_t *dst,
                                  uint64_t cap, uint64_t *out_size, uint32_t *info, const uint8_t *pl, uint32_t dim,
                                  uint64_t *ck, unsigned bl) {
    const uint64_t n = g->count, S = gfc_num_segments(n), raw = n * g->esize;
    const uint64_t maxseg = GFC_MAX_SEG_BYTES(g->esize);
    if (4 * S >= raw) return store_chunk_ck(ctx, g, src, dst, cap, out_size, info, ck, bl);
    if (4 * S > cap) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
    uint8_t *tmp = scz__scratch(ctx, 0, (size_t)maxseg + 8);
    if (!tmp) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate gfc scratch");
    /* blocks of a coded payload (< raw bytes): at most raw / 2^bl + 1 */
    uint64_t *bh = ck ? scz__scratch(ctx, 1, (size_t)((raw >> bl) + 2) * sizeof(uint64_t)) : NULL;
    if (ck && !bh) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate gfc scratch");
    const uint64_t bt = ck ? (4 * S + ((uint64_t)1 << bl) - 1) >> bl : 0; /* blocks below bt overlap the table */
    uint64_t hb = bt;                                                      /* next data block to hash */
    const int wide = g->esize == 8;
    const uint64_t room = cap - 4 * S; /* bytes of dst after the table */
    uint8_t *data = dst + 4 * S;
    uint64_t off = 0;
    for (uint64_t s = 0; s < S; s++) {
        const uint32_t nv = seg_values(n, s);
        const uint8_t *x = src + s * GFC_SEG_VALUES * g->esize;
        uint8_t *o = off + maxseg + 8 <= room ? data + off : tmp;
        size_t b = wide ? ENC_SEG64(x, nv, pl, dim, o) : ENC_SEG32(x, nv, pl, dim, o);
        off += b;
        if (4 * S + off >= raw) return store_chunk_ck(ctx, g, src, dst, cap, out_size, info, ck, bl);
        if (off > UINT32_MAX)
            return scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk too large for gfc's 32-bit offsets; use a smaller chunk size");
        if (o == tmp) {
            if (off > room)
                return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
            memcpy(data + off - b, tmp, b);
        }
        scz__st32(dst + 4 * s, (uint32_t)off);
        if (ck && ((4 * S + off) >> bl) >= hb + 8) { /* 8 or more whole blocks written */
            const uint64_t b1 = hb + (((4 * S + off) >> bl) - hb) / 8 * 8;
            scz__block_hashes(dst, 4 * S + off, bl, hb, b1, bh + hb);
            hb = b1;
        }
    }
    *info = GFC_INFO_CODED;
    *out_size = 4 * S + off;
    if (ck) {
        const uint64_t size = 4 * S + off, nb = (size + ((uint64_t)1 << bl) - 1) >> bl;
        scz__block_hashes(dst, size, bl, hb, nb, bh + hb); /* hb <= size / 2^bl <= nb */
        scz__block_hashes(dst, size, bl, 0, bt < nb ? bt : nb, bh);
        *ck = scz_xxh64_words(bh, nb, 0);
    }
    return SCZ_OK;
}

/* ck: also the payload's checksum, on one thread (compress_chunk_ck). */
static scz_status gfc_compress(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const void *src,
                               uint8_t *dst, uint64_t cap, uint64_t *out_size, uint32_t *info, uint64_t *ck) {
    *info = GFC_INFO_CODED;
    const uint64_t n = g->count, S = gfc_num_segments(n), raw = n * g->esize;
    if (n == 0) return scz__fail(ctx, SCZ_ERR_INTERNAL, "empty chunk");
    const uint64_t maxseg = GFC_MAX_SEG_BYTES(g->esize);
    if (S > SIZE_MAX / maxseg - 1) return scz__fail(ctx, SCZ_ERR_OVERFLOW, "gfc chunk too large");
    int nt = ck ? 1 : scz__threads(ctx);
    if ((uint64_t)nt > S) nt = (int)S;
    const uint32_t dim = h->knobs[0];
    uint8_t pl[GFC_SUB];
    pred_lanes(dim, pl);
    const int wide = g->esize == 8;
    const uint8_t *in = src;
    if (nt == 1) return compress_serial(ctx, g, in, dst, cap, out_size, info, pl, dim, ck, h->cksum_block_log2);
    uint8_t *enc = scz__scratch(ctx, 0, (size_t)(S * maxseg + 8));
    uint32_t *len = scz__scratch(ctx, 1, (size_t)S * sizeof(uint32_t));
    uint64_t *part = scz__scratch(ctx, 2, (size_t)(nt + 1) * sizeof(uint64_t));
    if (!enc || !len || !part) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate gfc scratch");

    /* Thread t codes segments [S t / nt, S (t+1) / nt) back to back from
     * enc + first * maxseg; part[t] gets their total size. */
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        const uint64_t s0 = S * (uint64_t)t / (uint64_t)nt, s1 = S * (uint64_t)(t + 1) / (uint64_t)nt;
        uint8_t *o = enc + s0 * maxseg;
        for (uint64_t s = s0; s < s1; s++) {
            const uint32_t nv = seg_values(n, s);
            const uint8_t *x = in + s * GFC_SEG_VALUES * g->esize;
            size_t b = wide ? ENC_SEG64(x, nv, pl, dim, o) : ENC_SEG32(x, nv, pl, dim, o);
            len[s] = (uint32_t)b;
            o += b;
        }
        part[t] = (uint64_t)(o - (enc + s0 * maxseg));
    }
    uint64_t total = 0;
    for (int t = 0; t < nt; t++) total += part[t];
    const uint64_t need = 4 * S + total;
    if (need >= raw) return store_chunk(ctx, g, src, dst, cap, out_size, info); /* 10.6 */
    if (total > UINT32_MAX)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk too large for gfc's 32-bit offsets; use a smaller chunk size");
    if (need > cap) return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
    uint64_t e = 0;
    for (uint64_t s = 0; s < S; s++) {
        e += len[s];
        scz__st32(dst + 4 * s, (uint32_t)e);
    }
    uint8_t *data = dst + 4 * S;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        const uint64_t s0 = S * (uint64_t)t / (uint64_t)nt;
        const uint64_t start = s0 ? scz__ld32(dst + 4 * (s0 - 1)) : 0;
        if (part[t]) memcpy(data + start, enc + s0 * maxseg, (size_t)part[t]);
    }
    *out_size = need;
    return SCZ_OK;
}

static scz_status gfc_compress_chunk(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const void *src,
                                     uint8_t *dst, uint64_t cap, uint64_t *out_size, uint32_t *info) {
    return gfc_compress(ctx, h, g, src, dst, cap, out_size, info, NULL);
}

/* One thread, the checksum while the payload is in cache (compress_chunk_ck). */
static scz_status gfc_compress_chunk_ck(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const void *src,
                                        uint8_t *dst, uint64_t cap, uint64_t *out_size, uint32_t *info,
                                        uint64_t *checksum) {
    return gfc_compress(ctx, h, g, src, dst, cap, out_size, info, checksum);
}

/* Segment s of a coded chunk whose offset table (at src) is consistent:
 * its data from data[end[s - 1] .. end[s]) (data_size bytes in all) into
 * out; 0 or -1 (malformed). */
static int decode_one(const uint8_t *src, const uint8_t *data, uint64_t data_size, uint64_t n, uint64_t s,
                      uint32_t esize, const uint8_t *pl, uint32_t dim, uint8_t *out) {
    const uint64_t start = s ? scz__ld32(src + 4 * (s - 1)) : 0, stop = scz__ld32(src + 4 * s);
    const uint32_t nv = seg_values(n, s);
    uint8_t *x = out + s * GFC_SEG_VALUES * esize;
    return esize == 8 ? dec_seg_64(data + start, stop - start, data_size - start, nv, pl, dim, x)
                      : DEC_SEG32(data + start, stop - start, data_size - start, nv, pl, dim, x);
}

static scz_status gfc_decompress_chunk(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g,
                                       const uint8_t *src, uint64_t size, uint32_t info, void *dst) {
    if (info != GFC_INFO_CODED && info != GFC_INFO_STORED)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc chunk with codec_info %u", info);
    const uint64_t n = g->count, S = gfc_num_segments(n), raw = n * g->esize;
    if (n == 0) return scz__fail(ctx, SCZ_ERR_INTERNAL, "empty chunk");
    if (info == GFC_INFO_STORED) {
        if (size != raw)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "stored gfc chunk is %llu bytes, the chunk holds %llu raw bytes",
                             (unsigned long long)size, (unsigned long long)raw);
        memcpy(dst, src, (size_t)raw);
        return SCZ_OK;
    }
    if (size >= raw)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "coded gfc chunk of %llu bytes is not below its raw size %llu",
                         (unsigned long long)size, (unsigned long long)raw);
    if (size / 4 < S) return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc chunk shorter than its offset table");
    const uint64_t data_size = size - 4 * S;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < S; i++) {
        uint64_t e = scz__ld32(src + 4 * i);
        if (e < prev)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc segment offsets decrease at %llu", (unsigned long long)i);
        prev = e;
    }
    if (prev != data_size)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc segment data is %llu bytes, the chunk holds %llu",
                         (unsigned long long)prev, (unsigned long long)data_size);
    uint8_t pl[GFC_SUB];
    const uint32_t dim = h->knobs[0];
    pred_lanes(dim, pl);
    const uint8_t *data = src + 4 * S;
    uint8_t *out = dst;
    int nt = scz__threads(ctx);
    if ((uint64_t)nt > S) nt = (int)S;
    int64_t bad = -1;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(max : bad) if (nt > 1)
    for (int64_t s = 0; s < (int64_t)S; s++)
        if (decode_one(src, data, data_size, n, (uint64_t)s, g->esize, pl, dim, out) && s > bad) bad = s;
    if (bad >= 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc segment %lld: its bytes do not match its nibbles",
                         (long long)bad);
    return SCZ_OK;
}

/* One thread, verifying while decoding (decompress_chunk_ck): a coded
 * chunk whose offset table is consistent is hashed 8 blocks at a time
 * just ahead of the segment being decoded (so the decoder reads bytes the
 * hash brought into L1 / L2), and its checksum compared at the end; any
 * other chunk is hashed first, as by the callers without this op. A
 * mismatch is SCZ_ERR_CHECKSUM before any decoding error. */
static scz_status gfc_decompress_chunk_ck(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g,
                                          const uint8_t *src, uint64_t size, uint32_t info, void *dst,
                                          uint64_t checksum) {
    const unsigned bl = h->cksum_block_log2;
    const uint64_t n = g->count, S = gfc_num_segments(n), raw = n * g->esize;
    int simple = info != GFC_INFO_CODED || n == 0 || size >= raw || size / 4 < S;
    uint64_t prev = 0;
    for (uint64_t i = 0; !simple && i < S; i++) {
        const uint64_t e = scz__ld32(src + 4 * i);
        simple = e < prev;
        prev = e;
    }
    if (!simple) simple = prev != size - 4 * S;
    const uint64_t nb = (size + ((uint64_t)1 << bl) - 1) >> bl;
    uint64_t *bh = simple ? NULL : scz__scratch(ctx, 1, (size_t)(nb + 1) * sizeof(uint64_t));
    if (!bh) { /* the table is inconsistent (or no memory): hash first */
        if (scz__checksum(src, size, bl, 1) != checksum) return SCZ_ERR_CHECKSUM;
        return gfc_decompress_chunk(ctx, h, g, src, size, info, dst);
    }
    uint8_t pl[GFC_SUB];
    const uint32_t dim = h->knobs[0];
    pred_lanes(dim, pl);
    const uint8_t *data = src + 4 * S;
    const uint64_t data_size = size - 4 * S;
    uint8_t *out = dst;
    int64_t bad = -1;
    uint64_t hb = 0; /* blocks hashed */
    for (uint64_t s = 0; s < S; s++) {
        const uint64_t stop = scz__ld32(src + 4 * s);
        while (hb < nb && (hb << bl) < 4 * S + stop) { /* the segment's bytes hashed: 8 blocks at a time */
            const uint64_t b1 = nb - hb < 8 ? nb : hb + 8;
            scz__block_hashes(src, size, bl, hb, b1, bh + hb);
            hb = b1;
        }
        if (decode_one(src, data, data_size, n, s, g->esize, pl, dim, out))
            bad = (int64_t)s; /* the last one, as the parallel loop reports */
    }
    scz__block_hashes(src, size, bl, hb, nb, bh + hb);
    if (scz_xxh64_words(bh, nb, 0) != checksum) return SCZ_ERR_CHECKSUM;
    if (bad >= 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc segment %lld: its bytes do not match its nibbles",
                         (long long)bad);
    return SCZ_OK;
}

const scz_codec_ops scz__gfc_ops = {
    .id = SCZ_CODEC_GFC,
    .name = "gfc",
    .lossless = 1,
    .dtypes = 1u << SCZ_DTYPE_F32 | 1u << SCZ_DTYPE_F64,
    .prepare = gfc_prepare,
    .check_header = gfc_check_header,
    .slab_align = gfc_slab_align,
    .chunk_bound = gfc_chunk_bound,
    .compress_chunk = gfc_compress_chunk,
    .decompress_chunk = gfc_decompress_chunk,
    .compress_chunk_ck = gfc_compress_chunk_ck,
    .decompress_chunk_ck = gfc_decompress_chunk_ck,
    /* 4 MiB (FORMAT.md 3): a chunk's checksum ends in a serial XXH64 over
     * its block hashes (2048 rounds a lane for 32 MiB), which a GPU runs
     * after the chunk's last block; gfc's ratio does not depend on the
     * chunk size */
    .default_chunk_bytes = GFC_DEFAULT_CHUNK_BYTES,
};

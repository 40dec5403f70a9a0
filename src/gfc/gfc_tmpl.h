/*
 * gfc_tmpl.h -- one segment of the gfc codec (docs/FORMAT.md 10.1-10.4),
 * instantiated by gfc.c for float32 and float64. Before inclusion define
 *   T    the unsigned integer of the element width (uint32_t / uint64_t)
 *   W    its bit width (32 / 64)
 *   SFX  the name suffix (32 / 64)
 *   ZERO_NIB   the zero-residual nibble of gfc.h
 * The code and kept-byte rules of 10.3 are computed here, not looked up
 * (gfc.h has them as tables too). Optional: GFC_ATTR (a function
 * attribute, e.g. a target ISA), GFC_SIGB_CMP (significant bytes of a
 * 64-bit magnitude by comparisons, every lane quantity 64-bit: the lane
 * loop vectorizes where the ISA has 64-bit vector compares), GFC_ENC_ONLY
 * (no decoder).
 */
#ifdef GFC_ATTR
#define GFC_FN GFC_ATTR
#else
#define GFC_FN
#endif
#define GFC_CAT_(a, b) a##b
#define GFC_CAT(a, b) GFC_CAT_(a, b)
#define ENC_SEG GFC_CAT(enc_seg_, SFX)
#define DEC_SEG GFC_CAT(dec_seg_, SFX)
#define MASKS GFC_CAT(kept_mask_, SFX)
#define PREDS GFC_CAT(preds_, SFX)

#ifndef GFC_ENC_ONLY
/* Mask of the n low bytes, n = 0 .. W/8. */
static const T MASKS[W / 8 + 1] = {
#if W == 64
    0, 0xFFull, 0xFFFFull, 0xFFFFFFull, 0xFFFFFFFFull, 0xFFFFFFFFFFull, 0xFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFull,
    ~0ull,
#else
    0, 0xFFu, 0xFFFFu, 0xFFFFFFu, ~0u,
#endif
};
#endif

/* Significant bytes of m (0 for m = 0): f32 by comparisons the compiler
 * vectorises, f64 from the leading zero count (no 64-bit vector compare
 * in baseline x86-64). */
#if W == 64 && defined(GFC_SIGB_CMP)
#define SIGB(m)                                                                                                 \
    ((T)((m) != 0) + ((m) > 0xFFull) + ((m) > 0xFFFFull) + ((m) > 0xFFFFFFull) + ((m) > 0xFFFFFFFFull) +      \
     ((m) > 0xFFFFFFFFFFull) + ((m) > 0xFFFFFFFFFFFFull) + ((m) > 0xFFFFFFFFFFFFFFull))
typedef T GFC_CAT(lane_t_, SFX);
#elif W == 64
#define SIGB(m) (((unsigned)(71 - __builtin_clzll((m) | 1u)) >> 3) - ((m) == 0))
typedef unsigned GFC_CAT(lane_t_, SFX);
#else
#define SIGB(m) ((unsigned)((m) != 0) + ((m) > 0xFFu) + ((m) > 0xFFFFu) + ((m) > 0xFFFFFFu))
typedef unsigned GFC_CAT(lane_t_, SFX);
#endif
#define LANE_T GFC_CAT(lane_t_, SFX)

/* The predictions of the 32 lanes from the previous subchunk's values. */
GFC_FN static inline void PREDS(const T *prev, const uint8_t *pl, uint32_t d, T *pred) {
    if (d == 1) {
        const T v = prev[GFC_SUB - 1];
        for (uint32_t j = 0; j < GFC_SUB; j++) pred[j] = v;
    } else {
        for (uint32_t j = 0; j < GFC_SUB; j++) pred[j] = prev[pl[j]];
    }
}

/* Encodes the n values (1..1024) of one segment starting at src into out;
 * returns the bytes written. out must have W/8 bytes of slack after the
 * largest segment (a full word is stored at each value's position).
 * pl[j] = predictor lane of lane j (gfc_pred_lane) for dimensionality d. */
GFC_FN static size_t ENC_SEG(const uint8_t *src, uint32_t n, const uint8_t *pl, uint32_t d, uint8_t *out) {
    T buf[2][GFC_SUB], pred[GFC_SUB], mag[GFC_SUB];
    T *prev = buf[0], *cur = buf[1];
    memset(prev, 0, sizeof buf[0]);
    uint8_t *o = out;
    for (uint32_t base = 0; base < n; base += GFC_SUB) {
        const uint32_t cnt = n - base < GFC_SUB ? n - base : GFC_SUB;
        PREDS(prev, pl, d, pred);
        if (cnt == GFC_SUB) { /* constant size: vector moves, not a string copy */
            memcpy(cur, src + (size_t)base * sizeof(T), sizeof buf[0]);
        } else {
            memcpy(cur, src + (size_t)base * sizeof(T), (size_t)cnt * sizeof(T));
            for (uint32_t j = cnt; j < GFC_SUB; j++) cur[j] = pred[j]; /* padding: residual 0 */
        }
        uint8_t nib[GFC_SUB], kept[GFC_SUB];
        /* residuals, magnitudes, codes: no dependence between lanes */
        for (uint32_t j = 0; j < GFC_SUB; j++) {
            const T r = (T)(cur[j] - pred[j]);
            const T g = (T)(r >> (W - 1));
            const T m = (T)((r ^ (T)(0 - g)) + g);
            const LANE_T b = SIGB(m);
#if W == 64
            const LANE_T k = b + (b == 2);             /* 6 leading zero bytes coded as 5 */
            const LANE_T c = 8 - k - (k <= 1);         /* kept 8..3 -> 0..5, 1 -> 6, 0 -> 7 */
#else
            const LANE_T k = b, c = 4 - b;
#endif
            mag[j] = m;
            kept[j] = (uint8_t)k;
            nib[j] = (uint8_t)((LANE_T)g << 3 | c);
        }
        /* nibble pairs into bytes, 8 nibbles (one word of nib) at a time in
         * a register: byte 2i of x | x >> 4 is nib[2i] | nib[2i + 1] << 4
         * (packing byte by byte through the stack stalled on store
         * forwarding) */
        for (uint32_t q = 0; q < GFC_SUB / 8; q++) {
            uint64_t x;
            memcpy(&x, nib + 8 * q, 8);
            x = (x | x >> 4) & 0x00FF00FF00FF00FFull;
            x = (x | x >> 8) & 0x0000FFFF0000FFFFull;
            x = (x | x >> 16) & 0xFFFFFFFFull;
            const uint32_t y = (uint32_t)x;
            memcpy(o + 4 * q, &y, 4);
        }
        o += GFC_HDR_BYTES;
        /* kept bytes: whole words stored, the pointer advanced by the count */
        for (uint32_t j = 0; j < GFC_SUB; j++) {
            memcpy(o, &mag[j], sizeof(T));
            o += kept[j];
        }
        T *sw = prev;
        prev = cur;
        cur = sw;
    }
    return (size_t)(o - out);
}

/* Decodes one segment of n values (1..1024) from in[0 .. len) into dst.
 * Bytes up to in + avail (avail >= len) may be read (the end of the
 * payload): words are loaded whole where they fit. Returns 0, or -1 if
 * the segment is malformed (10.4, 10.5); never reads outside in[0 .. avail)
 * nor writes outside dst[0 .. n). */
#ifndef GFC_ENC_ONLY
static int DEC_SEG(const uint8_t *in, size_t len, size_t avail, uint32_t n, const uint8_t *pl, uint32_t d,
                   uint8_t *dst) {
    T buf[2][GFC_SUB], pred[GFC_SUB], mag[GFC_SUB];
    T *prev = buf[0], *cur = buf[1];
    memset(prev, 0, sizeof buf[0]);
    const uint8_t *p = in, *const end = in + len, *const lim = in + avail;
    for (uint32_t base = 0; base < n; base += GFC_SUB) {
        const uint32_t cnt = n - base < GFC_SUB ? n - base : GFC_SUB;
        if ((size_t)(end - p) < GFC_HDR_BYTES) return -1;
        uint8_t nib[GFC_SUB], kept[GFC_SUB];
        for (uint32_t t = 0; t < GFC_HDR_BYTES; t++) {
            const unsigned b = p[t];
            nib[2 * t] = (uint8_t)(b & 15u);
            nib[2 * t + 1] = (uint8_t)(b >> 4);
        }
        p += GFC_HDR_BYTES;
        unsigned tot = 0, bad = 0;
        for (uint32_t j = 0; j < GFC_SUB; j++) {
            const unsigned c = nib[j] & 7u;
#if W == 64
            const unsigned k = c <= 5 ? 8 - c : 7 - c; /* 8..3, then 1, 0 */
#else
            const unsigned k = 4 - c;                  /* codes 5..7 wrap: invalid */
            bad |= c > 4;
#endif
            kept[j] = (uint8_t)k;
            tot += k & 0xFF;
        }
        for (uint32_t j = cnt; j < GFC_SUB; j++) bad |= nib[j] != ZERO_NIB;
        if (bad || tot > (size_t)(end - p)) return -1;
        if ((size_t)(lim - p) >= (size_t)tot + sizeof(T)) {
            for (uint32_t j = 0; j < GFC_SUB; j++) {
                T m;
                memcpy(&m, p, sizeof m);
                mag[j] = m & MASKS[kept[j]];
                p += kept[j];
            }
        } else { /* near the end of the payload: exact copies */
            for (uint32_t j = 0; j < GFC_SUB; j++) {
                uint8_t w[sizeof(T)] = {0};
                memcpy(w, p, kept[j]);
                memcpy(&mag[j], w, sizeof(T));
                p += kept[j];
            }
        }
        PREDS(prev, pl, d, pred);
        for (uint32_t j = 0; j < GFC_SUB; j++) {
            const T g = (T)(nib[j] >> 3);
            cur[j] = (T)(pred[j] + ((mag[j] ^ (T)(0 - g)) + g));
        }
        if (cnt == GFC_SUB) memcpy(dst + (size_t)base * sizeof(T), cur, sizeof buf[0]);
        else memcpy(dst + (size_t)base * sizeof(T), cur, (size_t)cnt * sizeof(T));
        T *sw = prev;
        prev = cur;
        cur = sw;
    }
    return p == end ? 0 : -1;
}
#endif

#undef SIGB
#undef LANE_T
#undef GFC_FN
#undef MASKS
#undef PREDS
#undef ENC_SEG
#undef DEC_SEG
#undef GFC_CAT
#undef GFC_CAT_

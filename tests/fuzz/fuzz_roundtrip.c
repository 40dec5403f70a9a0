/*
 * fuzz_roundtrip.c -- property target: arbitrary bytes become a shape,
 * parameters and array contents; the array is compressed with scz_compress
 * into a buffer of exactly scz_compress_bound bytes and decompressed.
 *
 * Input layout (24 bytes, then the contents):
 *   0      codec: 1 + byte % 5 (ndzip, lossy, huffman, gfc, lzss; skipped if not built in)
 *   1      dtype: index (byte % count) into the codec's accepted dtypes
 *   2      bits 0-1: rank - 1; bit 7: 2 threads; bit 6: compress again with
 *          the other thread count (the stream must be byte-identical);
 *          bit 5: compress again into one byte less than the stream
 *          (must be refused with SCZ_ERR_DST_TOO_SMALL)
 *   3..10  dims d0..d3 as u16 (0 allowed: an empty array)
 *   11     lossy error-bound mode: 1 + byte % 3 (ABS, REL, PSNR)
 *   12..19 lossy bound (binary64, any bit pattern)
 *   20     chunk_bytes: 0 = default, else byte * 1 KiB (clamped by the library)
 *   21..22 lossy knobs[0] (radius): value % 32768 (0 = default);
 *          gfc knobs[0] (dimensionality): value % 33 (0 = default)
 *   23     lossy knobs[1] (workflow): (byte & 127) % 3; bit 7: knobs[2] (level 1)
 *   lzss:  knobs from bytes 21 (symbol: 0 default or 1 << (byte % 5 - 1)), 12..13
 *          (window, u16, 0 default), 23 (minimum match), 11 (shuffle % 3), 22 (lg:
 *          0 default or 7 + byte % 10)
 *   24..   contents, repeated cyclically to fill the array (zeros if none)
 * Arrays above FZ_MAX_RT_RAW bytes are skipped.
 *
 * Properties (any violation aborts): compression succeeds for every valid
 * request (lossy may refuse an unusable bound with SCZ_ERR_ARG), the stream
 * fits the bound and inspects to the same shape and parameters, and
 * decompression succeeds; lossless codecs give the array back bit for bit;
 * lossy keeps every finite value within the stream's eb_abs, evaluated in
 * binary64 (|x - x'| <= eb_abs), reproduces every NaN and infinity bit for
 * bit, records eb_abs = eb for ABS and eb_abs <= eb x range for REL (both
 * 0 below the dtype's smallest normal number, FORMAT.md 7.1), and
 * scz_stats_compute agrees.
 */
#include "fuzz_common.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FZ_RT_HDR 24u

static double elem(scz_dtype t, const uint8_t *p, uint64_t i) {
    switch (t) {
    case SCZ_DTYPE_F32: {
        float f;
        memcpy(&f, p + 4 * i, 4);
        return (double)f;
    }
    case SCZ_DTYPE_F64: {
        double d;
        memcpy(&d, p + 8 * i, 8);
        return d;
    }
    default: return 0;
    }
}

/* FORMAT.md 7.1: a derived bound below the smallest normal number of the
 * element type is recorded as 0. */
static double nmin_rule(scz_dtype t, double b) {
    return b < (t == SCZ_DTYPE_F32 ? (double)FLT_MIN : DBL_MIN) ? 0 : b;
}

/* The REL bound of FORMAT.md 7.1 from the finite values (binary64). */
static double rel_bound(scz_dtype t, const uint8_t *a, uint64_t n, double eb) {
    double mn = INFINITY, mx = -INFINITY;
    for (uint64_t i = 0; i < n; i++) {
        double x = elem(t, a, i);
        if (!isfinite(x)) continue;
        if (x < mn) mn = x;
        if (x > mx) mx = x;
    }
    if (mn > mx) return 0;
    double range = mx - mn;
    double b = isfinite(range) ? eb * range : eb * mx - eb * mn;
    return nmin_rule(t, b > DBL_MAX ? DBL_MAX : b);
}

static void check_lossy(const scz_shape *shape, const scz_params *p, const scz_info *info, const uint8_t *a,
                        const uint8_t *d, uint64_t n) {
    const scz_dtype t = shape->dtype;
    const double eb = info->eb_abs;
    FZ_ASSERT(isfinite(eb) && eb >= 0, "eb_abs %g", eb);
    if (p->eb_mode == SCZ_EB_ABS)
        FZ_ASSERT(eb == nmin_rule(t, p->eb), "ABS: eb_abs %.17g for a bound of %.17g", eb, p->eb);
    if (p->eb_mode == SCZ_EB_REL) {
        double lim = rel_bound(t, a, n, p->eb);
        FZ_ASSERT(eb <= lim, "REL: eb_abs %.17g above eb x range = %.17g", eb, lim);
    }
    const size_t es = scz_dtype_size(t);
    uint64_t nonfinite = 0;
    double maxerr = 0;
    for (uint64_t i = 0; i < n; i++) {
        double x = elem(t, a, i), y = elem(t, d, i);
        if (!isfinite(x)) {
            FZ_ASSERT(!memcmp(a + i * es, d + i * es, es), "element %llu: non-finite value not reproduced bit for bit",
                      (unsigned long long)i);
            nonfinite++;
            continue;
        }
        double e = fabs(x - y);
        FZ_ASSERT(e <= eb, "element %llu: |%.17g - %.17g| = %.17g above eb_abs %.17g", (unsigned long long)i, x, y, e,
                  eb);
        if (e > maxerr) maxerr = e;
    }
    scz_stats s;
    FZ_ASSERT(scz_stats_compute(t, a, d, n, &s) == SCZ_OK, "stats_compute fails");
    FZ_ASSERT(s.count == n && s.nonfinite == nonfinite && s.nonfinite_mismatch == 0, "stats: counts disagree");
    FZ_ASSERT(s.max_abs_err == maxerr, "stats: max_abs_err %.17g, checked %.17g", s.max_abs_err, maxerr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < FZ_RT_HDR) return 0;
    scz_params p;
    if (!scz_codec_available((scz_codec)(1 + data[0] % 5))) return 0;
    scz_params_init(&p, (scz_codec)(1 + data[0] % 5));
    scz_dtype accepted[8];
    int na = 0;
    for (int t = SCZ_DTYPE_F32; t <= SCZ_DTYPE_U64; t++)
        if (scz_codec_accepts(p.codec, (scz_dtype)t)) accepted[na++] = (scz_dtype)t;
    FZ_ASSERT(na > 0, "codec %d accepts no dtype", (int)p.codec);
    scz_shape shape;
    shape.dtype = accepted[data[1] % na];
    shape.rank = 1 + (data[2] & 3);
    for (unsigned i = 0; i < SCZ_MAX_RANK; i++) shape.dims[i] = i < shape.rank ? fz_ld16(data + 3 + 2 * i) : 1;
    const int threads = (data[2] & 0x80) ? 2 : 1;
    const size_t es = scz_dtype_size(shape.dtype);
    uint64_t n = 1;
    for (unsigned i = 0; i < shape.rank; i++) n *= shape.dims[i];
    if (n * es > FZ_MAX_RT_RAW) return 0;
    if (p.codec == SCZ_CODEC_LOSSY) {
        p.eb_mode = (scz_eb_mode)(1 + data[11] % 3);
        p.eb = fz_ldf64(data + 12);
        p.knobs[0] = fz_ld16(data + 21) % 32768u;
        p.knobs[1] = (data[23] & 0x7fu) % 3u;
        p.knobs[2] = data[23] >> 7;
    }
    if (p.codec == SCZ_CODEC_LZSS) { /* every value below is valid (FORMAT.md 11.1) */
        p.knobs[0] = data[21] % 5u ? 1u << (data[21] % 5u - 1) : 0;
        p.knobs[1] = fz_ld16(data + 12);
        p.knobs[2] = data[23];
        p.knobs[3] = data[11] % 3u;
        p.knobs[4] = data[22] % 10u ? 7u + data[22] % 10u : 0;
    }
    if (p.codec == SCZ_CODEC_GFC) p.knobs[0] = fz_ld16(data + 21) % 33u;
    p.chunk_bytes = (uint64_t)data[20] << 10;

    const size_t raw = (size_t)(n * es);
    uint8_t *a = malloc(raw ? raw : 1);
    const uint8_t *c = data + FZ_RT_HDR;
    const size_t cn = size - FZ_RT_HDR;
    if (!cn) memset(a, 0, raw);
    for (size_t i = 0; cn && i < raw; i += cn) memcpy(a + i, c, raw - i < cn ? raw - i : cn);

    scz_ctx *ctx = fz_ctx(threads);
    const size_t bound = scz_compress_bound(&shape, &p);
    FZ_ASSERT(bound > 0, "compress_bound is 0 for a valid request");
    uint8_t *z = malloc(bound); /* exactly the bound: ASan sees any byte past it */
    size_t zn = 0;
    scz_status st = scz_compress(ctx, &p, &shape, a, z, bound, &zn);
    if (st != SCZ_OK) {
        fz_check_error(ctx, st, "compress");
        FZ_ASSERT(p.codec == SCZ_CODEC_LOSSY && st == SCZ_ERR_ARG, "compress refused a valid request: %s (%s)",
                  scz_status_string(st), scz_ctx_last_error(ctx));
        free(z);
        free(a);
        return 0;
    }
    FZ_ASSERT(zn <= bound, "stream %zu above the bound %zu", zn, bound);

    scz_info info;
    st = scz_inspect(z, zn, &info);
    FZ_ASSERT(st == SCZ_OK, "inspect of a fresh stream: %s", scz_status_string(st));
    FZ_ASSERT(info.stream_bytes == zn && info.raw_bytes == raw && info.shape.dtype == shape.dtype &&
                  info.shape.rank == shape.rank && !memcmp(info.shape.dims, shape.dims, sizeof shape.dims) &&
                  info.params.codec == p.codec && info.params.eb_mode == p.eb_mode,
              "inspect reports another stream than was written");

    uint8_t *d = malloc(raw ? raw : 1);
    scz_shape out;
    st = scz_decompress(ctx, z, zn, d, raw, &out);
    FZ_ASSERT(st == SCZ_OK, "decompress of a fresh stream: %s (%s)", scz_status_string(st), scz_ctx_last_error(ctx));
    if (scz_codec_is_lossless(p.codec)) {
        if (memcmp(a, d, raw) != 0) {
            size_t i = 0;
            while (a[i] == d[i]) i++;
            FZ_ASSERT(0, "lossless codec %s: byte %zu differs", scz_codec_name(p.codec), i);
        }
    } else {
        check_lossy(&shape, &p, &info, a, d, n);
    }

    if (data[2] & 0x40) { /* the stream does not depend on the thread count */
        uint8_t *z2 = malloc(bound);
        size_t zn2 = 0;
        st = scz_compress(fz_ctx(3 - threads), &p, &shape, a, z2, bound, &zn2);
        FZ_ASSERT(st == SCZ_OK && zn2 == zn && !memcmp(z, z2, zn), "1 and 2 threads write different streams (%s)",
                  scz_status_string(st));
        free(z2);
    }
    if (data[2] & 0x20) { /* one byte less than the stream: refused, nothing written past it */
        uint8_t *z3 = malloc(zn - 1);
        size_t zn3 = 0;
        st = scz_compress(ctx, &p, &shape, a, z3, zn - 1, &zn3);
        FZ_ASSERT(st == SCZ_ERR_DST_TOO_SMALL, "compress into %zu bytes: %s", zn - 1, scz_status_string(st));
        free(z3);
    }
    free(d);
    free(z);
    free(a);
    return 0;
}

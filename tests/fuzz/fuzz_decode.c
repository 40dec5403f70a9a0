/*
 * fuzz_decode.c -- arbitrary bytes through scz_inspect and scz_decompress.
 *
 * Input: a control byte (fuzz_common.h: threads, reseal, compare), then the
 * stream. Every codec and dtype is reachable: the stream's header selects
 * them. Properties (any violation aborts):
 *  - scz_inspect and scz_decompress agree: a stream inspect rejects does not
 *    decode; a decode that succeeds had an inspectable header, exactly
 *    stream_bytes of input and reports the inspected shape;
 *  - failures are defined error codes with a message, never
 *    SCZ_ERR_INTERNAL; a destination one byte too small is refused;
 *  - with the compare bit, 1 and 2 threads give the same status and the
 *    same bytes.
 * Decoding writes into a buffer of exactly the raw size (ASan sees any byte
 * written past it); raw sizes above FZ_MAX_RAW are inspected only.
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const unsigned ctl = data[0];
    const size_t n = size - 1;
    uint8_t *z = malloc(n ? n : 1); /* exactly sized: reads past the end are caught */
    memcpy(z, data + 1, n);
    if (ctl & FZ_CTL_RESEAL) fz_reseal(z, n);
    const int threads = (ctl & FZ_CTL_THREADS2) ? 2 : 1;
    scz_ctx *ctx = fz_ctx(threads);

    scz_info info;
    scz_status si = scz_inspect(z, n, &info);
    if (si != SCZ_OK) {
        fz_check_error(NULL, si, "inspect");
        uint8_t small[64];
        scz_status sd = scz_decompress(ctx, z, n, small, sizeof small, NULL);
        FZ_ASSERT(sd != SCZ_OK, "decompress accepted a stream that inspect rejects (%s)", scz_status_string(si));
        fz_check_error(ctx, sd, "decompress of an uninspectable stream");
        free(z);
        return 0;
    }
    FZ_ASSERT(info.stream_bytes <= n, "inspect: stream_bytes %llu beyond the %zu input bytes",
              (unsigned long long)info.stream_bytes, n);
    uint64_t count = scz_shape_count(&info.shape);
    FZ_ASSERT(count * scz_dtype_size(info.shape.dtype) == info.raw_bytes, "inspect: raw_bytes %llu inconsistent",
              (unsigned long long)info.raw_bytes);
    if (info.raw_bytes > FZ_MAX_RAW) {
        free(z);
        return 0;
    }
    const size_t raw = (size_t)info.raw_bytes;
    uint8_t *dst = malloc(raw ? raw : 1);
    scz_shape shape;
    memset(&shape, 0, sizeof shape);
    scz_status sd = scz_decompress(ctx, z, n, dst, raw, &shape);
    if (sd == SCZ_OK) {
        FZ_ASSERT(info.stream_bytes == n, "decompress accepted %llu trailing bytes",
                  (unsigned long long)(n - info.stream_bytes));
        FZ_ASSERT(shape.dtype == info.shape.dtype && shape.rank == info.shape.rank &&
                      !memcmp(shape.dims, info.shape.dims, sizeof shape.dims),
                  "decompress reports another shape than inspect");
    } else {
        fz_check_error(ctx, sd, "decompress");
    }
    if (raw > 0) { /* one byte short: refused, and nothing written past it */
        uint8_t *shortd = malloc(raw - 1 ? raw - 1 : 1);
        scz_status ss = scz_decompress(ctx, z, n, raw - 1 ? shortd : NULL, raw - 1, NULL);
        FZ_ASSERT(ss != SCZ_OK, "decompress accepted a destination of raw_bytes - 1");
        fz_check_error(ctx, ss, "decompress into a short destination");
        free(shortd);
    }
    if (ctl & FZ_CTL_COMPARE) {
        scz_ctx *other = fz_ctx(threads == 1 ? 2 : 1);
        uint8_t *dst2 = malloc(raw ? raw : 1);
        scz_status s2 = scz_decompress(other, z, n, dst2, raw, NULL);
        FZ_ASSERT(s2 == sd, "%d threads: %s, %d threads: %s", threads, scz_status_string(sd), 3 - threads,
                  scz_status_string(s2));
        if (sd == SCZ_OK) FZ_ASSERT(!memcmp(dst, dst2, raw), "1 and 2 threads decode different bytes");
        free(dst2);
    }
    free(dst);
    free(z);
    return 0;
}

/*
 * fuzz_dstream.c -- arbitrary bytes through the incremental decoder
 * (scz_dstream_*, docs/FORMAT.md 9), fed in pieces.
 *
 * Input: fuzz_decode's layout (a control byte, then the stream), so its
 * seeds and regression inputs serve here too. Bits 3-7 of the control byte
 * choose the piece size: 1 + 37 * k bytes, k = 0..30, or the whole input
 * at once for k = 31. Properties (any violation aborts):
 *  - never a crash, an access out of bounds or SCZ_ERR_INTERNAL;
 *  - every pulled chunk fits the declared array and lands where the
 *    chunks before it end;
 *  - the incremental decoder and scz_decompress agree: a stream one of them
 *    accepts whole (every byte taken, end() = SCZ_OK) the other accepts,
 *    with the same bytes.
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const unsigned ctl = data[0];
    const size_t n = size - 1;
    uint8_t *z = malloc(n ? n : 1);
    memcpy(z, data + 1, n);
    if (ctl & FZ_CTL_RESEAL) fz_reseal(z, n);
    const int threads = (ctl & FZ_CTL_THREADS2) ? 2 : 1;
    const size_t piece = (ctl >> 3) == 31 ? (n ? n : 1) : 1 + 37 * (size_t)(ctl >> 3);
    scz_ctx *ctx = fz_ctx(threads);

    scz_dstream *ds = NULL;
    scz_status st = scz_dstream_begin(ctx, &ds);
    FZ_ASSERT(st == SCZ_OK, "dstream_begin: %s", scz_status_string(st));
    uint8_t *out = NULL;
    uint64_t raw = 0, got = 0;
    int have_info = 0, too_big = 0;
    size_t off = 0;
    while (!st && !too_big) {
        size_t used = 0;
        if (off < n) {
            size_t m = n - off < piece ? n - off : piece;
            st = scz_dstream_feed(ds, z + off, m, &used);
            if (st) break;
            off += used;
        }
        if (!have_info) {
            scz_info info;
            if (scz_dstream_info(ds, &info) == SCZ_OK) {
                have_info = 1;
                raw = info.raw_bytes;
                if (raw > FZ_MAX_RAW) too_big = 1;
                else out = malloc(raw ? raw : 1);
            }
        }
        size_t k = 0;
        if (have_info && !too_big) {
            st = scz_dstream_pull(ds, out + got, (size_t)(raw - got), &k);
            if (st) break;
            FZ_ASSERT(k <= raw - got, "a chunk of %zu bytes past the array's end", k);
            got += k;
        }
        if (!used && !k) break; /* ended, or nothing more to take */
    }
    if (st) fz_check_error(ctx, st, "dstream");
    scz_status se = st ? st : scz_dstream_end(ds);
    if (!st && se) fz_check_error(ctx, se, "dstream_end");
    scz_dstream_free(ds);

    if (!too_big) {
        int inc_ok = se == SCZ_OK && off == n && have_info;
        scz_info info;
        scz_status si = scz_inspect(z, n, &info);
        if (si == SCZ_OK && info.raw_bytes <= FZ_MAX_RAW) {
            size_t r = (size_t)info.raw_bytes;
            uint8_t *dst = malloc(r ? r : 1);
            scz_status sd = scz_decompress(ctx, z, n, dst, r, NULL);
            FZ_ASSERT((sd == SCZ_OK) == inc_ok, "scz_decompress %s, the incremental decoder %s (%zu of %zu bytes taken)",
                      scz_status_string(sd), scz_status_string(se), off, n);
            if (sd == SCZ_OK) {
                FZ_ASSERT(got == r && !memcmp(dst, out, r), "the incremental decoder gives other bytes");
            }
            free(dst);
        } else {
            FZ_ASSERT(!inc_ok, "the incremental decoder accepts a stream scz_inspect rejects (%s)",
                      scz_status_string(si));
        }
    }
    free(out);
    free(z);
    return 0;
}

/*
 * fuzz_chunk.c -- arbitrary bytes through scz_inspect_chunk and
 * scz_decompress_chunk, for every chunk index.
 *
 * Input: a control byte (fuzz_common.h: threads, reseal, compare), then the
 * stream. Properties (any violation aborts):
 *  - inspect_chunk works exactly when inspect does, for indices below
 *    num_chunks; chunk payloads follow the table, raw ranges tile the
 *    array in order; the index num_chunks is refused;
 *  - each chunk decodes into a buffer of exactly its raw size, or fails
 *    with a defined error and a message; one byte less is refused;
 *  - consistency with the whole-stream decoder: if scz_decompress succeeds,
 *    every chunk decodes to the same bytes; if every chunk decodes, the
 *    codec accepts the header (index num_chunks fails with SCZ_ERR_ARG, not
 *    a header error: this matters for arrays without chunks) and the input
 *    is exactly the stream, scz_decompress succeeds;
 *  - with the compare bit, 1 and 2 threads agree chunk by chunk.
 * At most FZ_MAX_CHUNKS chunks are decoded; arrays above FZ_MAX_RAW are
 * inspected only.
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#define FZ_MAX_CHUNKS 256u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const unsigned ctl = data[0];
    const size_t n = size - 1;
    uint8_t *z = malloc(n ? n : 1);
    memcpy(z, data + 1, n);
    if (ctl & FZ_CTL_RESEAL) fz_reseal(z, n);
    const int threads = (ctl & FZ_CTL_THREADS2) ? 2 : 1;
    scz_ctx *ctx = fz_ctx(threads);

    scz_info info;
    scz_chunk_info ci;
    scz_status si = scz_inspect(z, n, &info);
    if (si != SCZ_OK) {
        scz_status sc = scz_inspect_chunk(z, n, 0, &ci);
        FZ_ASSERT(sc != SCZ_OK, "inspect_chunk accepted a stream that inspect rejects");
        uint8_t small[64];
        sc = scz_decompress_chunk(ctx, z, n, 0, small, sizeof small);
        FZ_ASSERT(sc != SCZ_OK, "decompress_chunk accepted a stream that inspect rejects");
        fz_check_error(ctx, sc, "decompress_chunk of an uninspectable stream");
        free(z);
        return 0;
    }
    FZ_ASSERT(scz_inspect_chunk(z, n, info.num_chunks, &ci) != SCZ_OK, "inspect_chunk accepted index num_chunks");
    uint8_t one[8];
    scz_status sx = scz_decompress_chunk(ctx, z, n, info.num_chunks, one, sizeof one);
    FZ_ASSERT(sx != SCZ_OK, "decompress_chunk accepted index num_chunks");
    fz_check_error(ctx, sx, "decompress_chunk of index num_chunks");
    /* SCZ_ERR_ARG (no such chunk) once the codec accepted the header's codec
     * fields (inspect does not check those) */
    const int header_ok = sx == SCZ_ERR_ARG;
    if (info.raw_bytes > FZ_MAX_RAW) {
        free(z);
        return 0;
    }

    /* the whole stream, for the consistency checks */
    const size_t raw = (size_t)info.raw_bytes;
    uint8_t *whole = malloc(raw ? raw : 1);
    scz_status sw = scz_decompress(ctx, z, n, whole, raw, NULL);
    if (sw != SCZ_OK) fz_check_error(ctx, sw, "decompress");
    else FZ_ASSERT(header_ok, "the stream decodes but its codec fields are refused for a chunk");

    int all_ok = 1;
    uint64_t next_off = 128 + 32 * (uint64_t)info.num_chunks + 8, next_raw = 0;
    uint32_t nc = info.num_chunks < FZ_MAX_CHUNKS ? info.num_chunks : FZ_MAX_CHUNKS;
    for (uint32_t i = 0; i < nc; i++) {
        scz_status sc = scz_inspect_chunk(z, n, i, &ci);
        FZ_ASSERT(sc == SCZ_OK, "inspect_chunk %u: %s", i, scz_status_string(sc));
        FZ_ASSERT(ci.offset == next_off && ci.raw_offset == next_raw, "chunk %u: offsets %llu/%llu, expected %llu/%llu", i,
                  (unsigned long long)ci.offset, (unsigned long long)ci.raw_offset, (unsigned long long)next_off,
                  (unsigned long long)next_raw);
        FZ_ASSERT(ci.raw_bytes > 0 && ci.raw_bytes <= info.raw_bytes - ci.raw_offset, "chunk %u: raw range outside the array", i);
        FZ_ASSERT(ci.size <= info.stream_bytes - ci.offset, "chunk %u: payload outside the stream", i);
        next_off += ci.size;
        next_raw += ci.raw_bytes;
        const size_t rb = (size_t)ci.raw_bytes;
        uint8_t *dst = malloc(rb);
        sc = scz_decompress_chunk(ctx, z, n, i, dst, rb);
        if (sc == SCZ_OK) {
            if (sw == SCZ_OK)
                FZ_ASSERT(!memcmp(dst, whole + ci.raw_offset, rb), "chunk %u decodes differently alone", i);
        } else {
            fz_check_error(ctx, sc, "decompress_chunk");
            FZ_ASSERT(sw != SCZ_OK, "chunk %u fails alone (%s) but the whole stream decodes", i, scz_status_string(sc));
            all_ok = 0;
        }
        scz_status ss = scz_decompress_chunk(ctx, z, n, i, rb - 1 ? dst : NULL, rb - 1);
        FZ_ASSERT(ss != SCZ_OK, "decompress_chunk %u accepted a destination of raw_bytes - 1", i);
        if (ctl & FZ_CTL_COMPARE) {
            uint8_t *dst2 = malloc(rb);
            scz_status s2 = scz_decompress_chunk(fz_ctx(threads == 1 ? 2 : 1), z, n, i, dst2, rb);
            FZ_ASSERT(s2 == sc, "chunk %u: %d threads: %s, %d threads: %s", i, threads, scz_status_string(sc),
                      3 - threads, scz_status_string(s2));
            if (sc == SCZ_OK) {
                /* dst was overwritten by the short call only if that succeeded (it did not) */
                uint8_t *ref = malloc(rb);
                FZ_ASSERT(scz_decompress_chunk(ctx, z, n, i, ref, rb) == SCZ_OK, "chunk %u: second decode fails", i);
                FZ_ASSERT(!memcmp(ref, dst2, rb), "chunk %u: 1 and 2 threads decode different bytes", i);
                free(ref);
            }
            free(dst2);
        }
        free(dst);
    }
    if (nc == info.num_chunks) {
        FZ_ASSERT(next_raw == info.raw_bytes && next_off == info.stream_bytes, "chunks do not tile the stream");
        if (all_ok && header_ok && info.stream_bytes == n)
            FZ_ASSERT(sw == SCZ_OK, "every chunk decodes but the stream does not (%s)", scz_status_string(sw));
    }
    free(whole);
    free(z);
    return 0;
}

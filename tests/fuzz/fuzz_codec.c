/*
 * fuzz_codec.c -- the codecs' chunk decoders called directly through the
 * internal codec interface (src/internal.h), with no container and so no
 * checksum in the way: every mutation of a payload reaches the ndzip
 * unpacker, the lossy decoder (outlier list, verbatim values, run-length
 * expansion), the Huffman stream reader and the gfc segment decoder.
 *
 * Input layout (24 bytes, then the chunk payload):
 *   0      codec: 1 + byte % 5 (ndzip, lossy, huffman, gfc, lzss; skipped if not built in)
 *   1      dtype: index (byte % count) into the codec's accepted dtypes
 *   2      bits 0-1: coding rank - 1 (rank 1..3, 3 also from value 3);
 *          bit 7: 2 threads
 *   3..8   chunk dims d0 d1 d2 as u16, each + 1 (dims beyond the rank: 1)
 *   9..10  knobs[0] (lossy: quantization radius; gfc: dimensionality, a value
 *          outside 1..32 becomes 1 + value % 32)
 *   11     knobs[1] (lossy: bits 0-6 workflow knob, bit 7 knobs[2] = level;
 *          0 for gfc)
 *   12..19 eb_abs (binary64; lossy only, as eb_user too, mode ABS)
 *   20..23 codec_info (u32)
 *   24..   payload
 * The header goes through the codec's check_header first (as the container
 * does); chunks of more than FZ_MAX_RAW bytes are skipped. Properties: the
 * decoder returns SCZ_OK or a defined error with a message and stays inside
 * the payload and the exactly sized destination (ASan).
 */
#include "fuzz_common.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define FZ_CODEC_HDR 24u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < FZ_CODEC_HDR) return 0;
    scz_codec codec = (scz_codec)(1 + data[0] % 5);
    const scz_codec_ops *ops = scz__codec_ops(codec);
    if (!ops) return 0;
    scz_dtype accepted[8];
    int na = 0;
    for (int t = SCZ_DTYPE_F32; t <= SCZ_DTYPE_U64; t++)
        if (ops->dtypes >> t & 1u) accepted[na++] = (scz_dtype)t;
    FZ_ASSERT(na > 0, "codec %d accepts no dtype", (int)codec);

    scz_header h;
    memset(&h, 0, sizeof h);
    h.version = SCZ_FORMAT_VERSION;
    h.codec = codec;
    h.dtype = accepted[data[1] % na];
    h.cksum_block_log2 = 12;
    h.knobs[0] = fz_ld16(data + 9);
    h.knobs[1] = data[11];
    if (codec == SCZ_CODEC_GFC) {
        if (h.knobs[0] < 1 || h.knobs[0] > 32) h.knobs[0] = 1 + h.knobs[0] % 32;
        h.knobs[1] = 0;
    }
    if (codec == SCZ_CODEC_LOSSY) {
        h.knobs[1] = data[11] & 0x7f;
        h.knobs[2] = data[11] >> 7;
        h.eb_mode = SCZ_EB_ABS;
        h.eb_abs = h.eb_user = fz_ldf64(data + 12);
    }
    if (codec == SCZ_CODEC_LZSS) { /* knobs 1..4 from bytes 12..18 (check_header filters them) */
        h.knobs[1] = fz_ld32(data + 12);
        h.knobs[2] = data[16];
        h.knobs[3] = data[17];
        h.knobs[4] = data[18];
    }
    const uint32_t info = fz_ld32(data + 20);
    const int threads = (data[2] & 0x80) ? 2 : 1;

    scz_chunk_geom g;
    memset(&g, 0, sizeof g);
    g.dtype = h.dtype;
    g.esize = (uint32_t)scz_dtype_size(h.dtype);
    g.rank = 1 + (data[2] & 3);
    if (g.rank > 3) g.rank = 3;
    g.count = 1;
    for (unsigned d = 0; d < 3; d++) {
        g.dims[d] = d < g.rank ? (uint64_t)fz_ld16(data + 3 + 2 * d) + 1 : 1;
        g.count *= g.dims[d];
    }
    if (g.count * g.esize > FZ_MAX_RAW) return 0;
    /* the stream header this chunk would come with (a one-chunk array) */
    h.rank = g.rank;
    for (unsigned d = 0; d < SCZ_MAX_RANK; d++) h.dims[d] = d < g.rank ? g.dims[d] : 1;
    h.raw_bytes = g.count * g.esize;
    h.chunk_slab = g.dims[g.rank - 1];
    h.num_chunks = 1;

    scz_ctx *ctx = fz_ctx(threads);
    if (ops->check_header && ops->check_header(ctx, &h) != SCZ_OK) return 0;

    ctx->msg[0] = 0; /* as the public entry points do */
    const size_t psize = size - FZ_CODEC_HDR;
    uint8_t *payload = malloc(psize ? psize : 1); /* exactly sized */
    memcpy(payload, data + FZ_CODEC_HDR, psize);
    const size_t raw = (size_t)(g.count * g.esize);
    uint8_t *dst = malloc(raw);
    scz_status st = ops->decompress_chunk(ctx, &h, &g, payload, psize, info, dst);
    if (st != SCZ_OK) fz_check_error(ctx, st, "decompress_chunk");
    free(dst);
    free(payload);
    return 0;
}

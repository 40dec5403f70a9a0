/*
 * cuda_rt.h -- what the CUDA parts of the library share (C++, .cu files
 * only): the batch of chunks a launch processes, the device error word,
 * and the interface a codec's GPU kernels offer the runtime
 * (struct scz_cuda_codec_ops below; src/cuda/runtime.cu uses it). The
 * runtime owns contexts, scratch, streams, checksums, the container and the
 * host streaming; a codec only turns raw chunks into payloads and back.
 * docs/GPU.md, "Adding a GPU codec", says how a codec joins.
 */
#ifndef SCZ_CUDA_RT_H
#define SCZ_CUDA_RT_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "../format/container.h"
#include "../internal.h"
}

/* A batch: chunks [c0, c0 + n) of one stream, processed by one launch per
 * kernel. All chunks but the stream's last share one geometry (`full`);
 * `last` is the geometry of the batch's final chunk (equal to `full` unless
 * it is the stream's last chunk). Raw data of batch chunk i starts at
 * i * raw_full bytes from the batch's raw base. */
struct scz_cuda_batch {
    const scz_header *h;
    uint32_t c0, n;
    scz_chunk_geom full, last;
    uint64_t raw_full;
    /* decoding: the codec_info values of the batch's chunks as the host read
     * them from the chunk table (bit i: some chunk has info i; bit 31: info
     * 31 or more), so that a decoder may leave out the launches of a form
     * no chunk has (each chunk's kernels still check its info); ~0u where
     * the host did not read them */
    uint32_t infos;
};

/* Device error word: the minimum of (global chunk index << 8 | code), so
 * the first failing chunk is reported, checksum before decoding errors,
 * as on the CPU. ~0 = no error. Code 1 is the runtime's (checksum
 * mismatch); codes SCZ_CUDA_ERR_CODEC..255 belong to the chunk's codec,
 * whose error_text() says what they mean. Every code but the checksum's
 * becomes SCZ_ERR_CORRUPT. */
enum { SCZ_CUDA_ERR_CHECKSUM = 1, SCZ_CUDA_ERR_CODEC = 2 };
#define SCZ_CUDA_NO_ERROR (~0ull)

__device__ __forceinline__ void scz_cuda_report(unsigned long long *err, uint32_t chunk, unsigned code) {
    atomicMin(err, ((unsigned long long)chunk << 8) | code);
}

/* Which scratch a codec is asked about. */
enum scz_cuda_dir { SCZ_CUDA_ENCODE = 0, SCZ_CUDA_DECODE = 1 };

/*
 * ---- The GPU codec interface ----
 *
 * One instance per codec with GPU kernels, defined in the codec's own folder
 * (ndzip: src/ndzip/ndzip.cu) and listed once in src/cuda/codecs_cuda.cu.
 * The runtime (runtime.cu) owns everything else: the context, device
 * scratch, streams and events, pinned staging and the host streaming,
 * checksums, header and chunk table, the device-pointer API. It finds the
 * codec of a stream with scz__cuda_codec_ops(h->codec); codecs without an
 * entry run on the CPU on a CUDA context (host API) or are refused with
 * SCZ_ERR_UNSUPPORTED (device API), and scz_cuda_codec_supported() says
 * which is which. The CPU side of the codec (scz_codec_ops, src/codecs.c)
 * still plans the stream: prepare(), check_header(), slab_align() and
 * chunk_bound() are called on the host for both backends, and the GPU
 * kernels must write exactly the bytes of its compress_chunk().
 *
 * Per-chunk metadata lives in device arrays indexed by the chunk's place in
 * the batch (0..b->n-1): choff (payload offset, relative to the payload
 * base), chsize (payload bytes) and chinfo (the chunk table's codec_info,
 * FORMAT.md 4, in the low 32 bits; the runtime ignores the high ones).
 *
 * All entries take the batch b (chunks b->c0 .. b->c0 + b->n - 1 of the
 * stream b->h); launches are asynchronous on the stream given, and a
 * launch-time failure is returned as a cudaError_t (the runtime turns it
 * into a message). Nothing may allocate device memory or synchronize: the
 * scratch the runtime passes is all there is.
 */
struct scz_cuda_codec_ops {
    scz_codec id;
    /* Checks that the batch can be processed (size limits of the kernels,
     * grid limits), for encoding and decoding alike; on failure sets a
     * message with scz__fail(ctx, ...) and returns its status. The runtime
     * calls it before any other entry, on the host, for the largest and the
     * last batch of a call. */
    scz_status (*check)(scz_ctx *ctx, const scz_cuda_batch *b);
    /* Device scratch, in bytes, that encode (dir = SCZ_CUDA_ENCODE) or
     * decode (SCZ_CUDA_DECODE) needs for the batch; 0 for none. The runtime
     * hands the codec 256-byte aligned scratch of at least this size, of
     * undefined contents (no state survives from one call to the next). */
    size_t (*scratch)(const scz_cuda_batch *b, int dir);
    /* Encodes chunks [ca, cb) of the batch. Raw chunk i starts at
     * d_src + i * b->raw_full (d_src is 16-byte aligned); payloads go back to back,
     * in chunk order, from d_pay (chunk 0 at offset 0, chunk i + 1 right
     * after chunk i: choff[i + 1] = choff[i] + chsize[i]), each at most the
     * CPU codec's chunk_bound; choff, chsize and chinfo of chunks [ca, cb)
     * are written on the device. The runtime covers [0, b->n) with one or
     * more consecutive ranges, in order, on one stream (the calls of one
     * batch share `scratch`), and may hash the payloads of [ca, cb) on
     * another stream as soon as the work queued by that range's call is
     * done: they, and their choff/chsize/chinfo, must be final by then. */
    cudaError_t (*encode)(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src, uint8_t *d_pay,
                          uint64_t *choff, uint64_t *chsize, uint64_t *chinfo, void *scratch, cudaStream_t s);
    /* Decodes the batch: chunk i's payload is d_pay[choff[i] .. + chsize[i])
     * with codec_info chinfo[i] (device arrays, from the chunk table: any
     * values, validated by the codec); raw chunk i goes to
     * d_dst + i * b->raw_full. Payloads may start at any byte (the device
     * API decodes them where the caller's stream has them; the host path
     * stages each one 16-byte aligned). Inconsistent payloads or
     * codec_info are reported with scz_cuda_report(err, b->c0 + i, code)
     * (code >= SCZ_CUDA_ERR_CODEC), and nothing is ever read or written
     * outside the payload and the chunk's raw bytes. The chunk checksums
     * may run at the same time on another stream: a decoder must not rely
     * on them having been verified. */
    cudaError_t (*decode)(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                          const uint64_t *chsize, const uint64_t *chinfo, void *d_dst, unsigned long long *err,
                          void *scratch, cudaStream_t s);
    /* Loads the codec's kernels (e.g. cudaFuncGetAttributes on each), so
     * that scz_backend_probe fails where the device has no image for them;
     * NULL when there is nothing to check. */
    cudaError_t (*probe)(void);
    /* What an error code >= SCZ_CUDA_ERR_CODEC of this codec means (the
     * runtime prefixes "chunk N: "); NULL, or NULL for a code, gives a
     * generic message. */
    const char *(*error_text)(unsigned code);
    /* Optional (NULL: none). Passes over device data that the codec's CPU
     * prepare_range asked for (it left a pass state: the lossy PSNR rule)
     * when a device array is compressed: runs them on d_src, the array of
     * header h, `finite` of whose elements are finite, and completes the
     * header. May wait for stream s (a device compression needs its bound
     * before anything else). `scratch`: pass_scratch(h) bytes of device
     * memory; `pinned`: 8 bytes of pinned host memory. The runtime frees the
     * pass state afterwards. */
    size_t (*pass_scratch)(const scz_header *h);
    scz_status (*passes)(scz_ctx *ctx, scz_header *h, void *pass, const void *d_src, uint64_t finite,
                         void *scratch, double *pinned, cudaStream_t s);
    /* Device-API decompression: the chunk checksums run beside the decoder
     * on a second stream with at most this many blocks per SM (a decoder
     * that leaves SM resources idle), or, 0, before it on the caller's
     * stream (a decoder that moves memory at full speed). The environment
     * (SCZ_CUDA_HASH_CTAS, SCZ_CUDA_DEC_HASH) overrides it. */
    int dec_hash_ctas;
    /* Optional (NULL: none). decode, and the block hashes of FORMAT.md 5
     * of every chunk's payload into bh[i * nbmax + k] (block k of chunk i,
     * 2^blog2 bytes), whatever the bytes (chunks the codec finds
     * inconsistent included), from the bytes the decoder reads anyway:
     * the runtime then only combines them into the chunk checksums and
     * compares (one read of the payloads instead of two). The runtime calls
     * it only where blog2 <= hash_blog2_max, and not when the environment's
     * SCZ_CUDA_FUSED_HASH=0 (or SCZ_CUDA_HASH_CTAS / SCZ_CUDA_DEC_HASH)
     * asks for the separate checksum pass. */
    cudaError_t (*decode_hashed)(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                 const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                 unsigned long long *err, void *scratch, uint64_t *bh, uint64_t nbmax,
                                 unsigned blog2, cudaStream_t s);
    unsigned hash_blog2_max;
};

/* The registry (src/cuda/codecs_cuda.cu): the GPU ops of a codec, NULL if it
 * has none in this build; and the i-th registered codec (NULL past the
 * end), for checks that concern all of them. */
const scz_cuda_codec_ops *scz__cuda_codec_ops(scz_codec id);
const scz_cuda_codec_ops *scz__cuda_codec_at(size_t i);

#endif

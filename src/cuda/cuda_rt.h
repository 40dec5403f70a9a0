/*
 * cuda_rt.h -- what the CUDA parts of the library share (C++, .cu files
 * only): the batch of chunks a launch processes, the device error word,
 * and the interface a codec's GPU kernels offer the runtime
 * (src/cuda/runtime.cu). The runtime owns contexts, scratch, streams,
 * checksums, the container and the host streaming; a codec only turns raw
 * chunks into payloads and back.
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
};

/* Device error word: the minimum of (global chunk index << 8 | code), so
 * the first failing chunk is reported, checksum before decoding errors,
 * as on the CPU. ~0 = no error. */
enum { SCZ_CUDA_ERR_CHECKSUM = 1, SCZ_CUDA_ERR_LAYOUT = 2, SCZ_CUDA_ERR_HYPERCUBE = 3, SCZ_CUDA_ERR_FORM = 4 };
#define SCZ_CUDA_NO_ERROR (~0ull)

__device__ __forceinline__ void scz_cuda_report(unsigned long long *err, uint32_t chunk, unsigned code) {
    atomicMin(err, ((unsigned long long)chunk << 8) | code);
}

/* ---- ndzip (src/ndzip/ndzip.cu) ---- */

/* Checks the batch can be encoded (32-bit offsets, grid limits); sets a
 * message on ctx otherwise. */
scz_status scz__ndzip_cuda_check(scz_ctx *ctx, const scz_cuda_batch *b);
/* Device scratch the encoder needs for the batch (bytes, 256-aligned). */
size_t scz__ndzip_cuda_scratch(const scz_cuda_batch *b);
/* Encodes chunks [ca, cb) of the batch: raw chunks at d_src (the batch's),
 * payloads back to back into d_pay; chunk i's payload offset (relative to
 * d_pay), size and codec_info go to choff[i], chsize[i] and chinfo[i]
 * (device arrays).
 * Asynchronous on s; the ranges of one batch must be encoded in order, on
 * one stream, starting with ca = 0 (the calls share the look-back state in
 * scratch). */
cudaError_t scz__ndzip_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                   uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo, void *scratch,
                                   cudaStream_t s);
/* Decodes the batch: chunk i's payload is d_pay[choff[i] .. + chsize[i]),
 * its codec_info chinfo[i]; raw chunks go to d_dst. Inconsistent payloads
 * are reported to *err and never read or written out of bounds.
 * Asynchronous on s. */
cudaError_t scz__ndzip_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                   const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                   unsigned long long *err, cudaStream_t s);
/* Loads the ndzip kernels (fails where the device has no image for them). */
cudaError_t scz__ndzip_cuda_probe(void);

#endif

/*
 * backend.h -- the CUDA backend as the C parts of the library (api.c) see
 * it: plain C declarations, no CUDA types. Implemented in src/cuda/runtime.cu
 * when the library is built with CUDA (SCZ_HAVE_CUDA).
 */
#ifndef SCZ_CUDA_BACKEND_H
#define SCZ_CUDA_BACKEND_H

#include "../internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* memcpy split over threads (OpenMP), for large staging copies. */
void scz__par_memcpy(void *dst, const void *src, size_t n, int threads);
/* n copies dst + dst_off[i] <- src + src_off[i], len[i] bytes, in parallel. */
void scz__par_memcpy_many(uint8_t *dst, const uint64_t *dst_off, const uint8_t *src, const uint64_t *src_off,
                          const uint64_t *len, uint32_t n, int threads);

#ifdef SCZ_HAVE_CUDA
/* Sets up ctx->cuda (device, streams are made lazily). SCZ_ERR_BACKEND with
 * a message on ctx when no usable device is present. */
scz_status scz__cuda_ctx_init(scz_ctx *ctx);
void scz__cuda_ctx_free(scz_ctx *ctx);

/* Host-pointer paths of a CUDA context for codecs with GPU kernels: the
 * header h is planned (compress) or read and validated (decompress) by
 * api.c. Chunks are streamed through pinned buffers in batches. */
scz_status scz__cuda_compress_host(scz_ctx *ctx, const scz_header *h, const void *src, uint8_t *dst,
                                   size_t dst_cap, size_t *dst_size);
/* Decodes chunks [first, first + count) of the validated stream src; dst
 * receives their raw bytes contiguously (chunk `first` at dst). */
scz_status scz__cuda_decompress_host(scz_ctx *ctx, const scz_header *h, const uint8_t *src, uint32_t first,
                                     uint32_t count, uint8_t *dst);

/* The codec has GPU kernels for compression (dir 0) or decompression
 * (dir 1) in this build, and a CPU side that plans its streams; the other
 * direction then runs on the CPU on a CUDA context (host API). */
int scz__cuda_can(scz_codec c, int dir);
/* scz__cuda_can for the stream of header h: also 0 where the GPU kernels
 * do not write or read that stream's format (a lossy stream of level 1,
 * FORMAT.md 7.9, runs on the CPU on a CUDA context). */
int scz__cuda_can_hdr(const scz_header *h, int dir);

/* Phase times for benchmarks (src/cuda/prof.h; not thread-safe): with
 * recording on, the codecs' profiled phases are summed per (codec step,
 * phase) name, e.g. ("lossy decode", "huff"); scz__cuda_prof_phase gives
 * the sum in ms since the last reset (-1 if none). */
void scz__cuda_prof_set(int on);
void scz__cuda_prof_reset(void);
double scz__cuda_prof_phase(const char *what, const char *phase);

/* White-box knob for tests: raw bytes per streamed batch (0 = default). */
void scz__cuda_set_batch_bytes(scz_ctx *ctx, uint64_t bytes);
#endif

#ifdef __cplusplus
}
#endif
#endif

/*
 * lossy_cuda.h -- the parts of the lossy codec's GPU implementation (CUDA
 * C++, .cu files only): compression (lossy_enc.cu) and decompression
 * (lossy_dec.cu) behind one scz_cuda_codec_ops (lossy.cu). FORMAT.md 7.
 */
#ifndef SCZ_LOSSY_CUDA_H
#define SCZ_LOSSY_CUDA_H

#include "../cuda/cuda_rt.h"
#include "lossy.h"

/* Compression (lossy_enc.cu): scratch bytes for the batch, the encoding
 * launches (scz_cuda_codec_ops.encode's contract), a probe of its kernels. */
size_t scz__lossy_cuda_enc_scratch(const scz_cuda_batch *b);
cudaError_t scz__lossy_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                   uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                   void *scratch, cudaStream_t s);
cudaError_t scz__lossy_cuda_enc_probe(void);
/* The same for level 1 (knobs[2] = 1, FORMAT.md 7.9-7.10; lossy_enc1.cu),
 * which the level-0 entries hand such batches to. */
size_t scz__lossy1_cuda_enc_scratch(const scz_cuda_batch *b);
cudaError_t scz__lossy1_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                    uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                    void *scratch, cudaStream_t s);
/* The PSNR rule's passes over a device array (scz_cuda_codec_ops.passes). */
size_t scz__lossy_cuda_pass_scratch(const scz_header *h);
scz_status scz__lossy_cuda_passes(scz_ctx *ctx, scz_header *h, void *pass, const void *d_src, uint64_t finite,
                                  void *scratch, double *pinned, cudaStream_t s);

/* Decompression (lossy_dec.cu): scratch bytes for the batch, the decoding
 * launches (scz_cuda_codec_ops.decode's contract), a probe of its kernels
 * and the meaning of its error codes (SCZ_CUDA_ERR_CODEC + 0 .. 63). */
size_t scz__lossy_cuda_dec_scratch(const scz_cuda_batch *b);
cudaError_t scz__lossy_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                   const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                   unsigned long long *err, void *scratch, cudaStream_t s);
cudaError_t scz__lossy_cuda_dec_probe(void);
const char *scz__lossy_cuda_dec_error_text(unsigned code);

#endif

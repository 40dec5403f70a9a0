/*
 * stream.h -- what the whole-buffer entry points (api.c) share with the
 * incremental API (stream.c).
 */
#ifndef SCZ_STREAM_H
#define SCZ_STREAM_H

#include "format/container.h"
#include "internal.h"

/* scz_info from a validated header; end = stream size (0 if unknown). */
void scz__info_from_header(const scz_header *h, uint64_t end, scz_info *info);

/* Bytes a CUDA context needs in front of a payload to decode it alone
 * (scz__stream_gpu_chunk): a header and a one-entry table. */
#define SCZ_GPU_CHUNK_PREFIX (SCZ_HEADER_SIZE + SCZ_CHUNK_ENTRY_SIZE + 8)

#ifdef SCZ_HAVE_CUDA
/* Decodes chunk `index` of a validated header through the GPU of a CUDA
 * context: buf holds SCZ_GPU_CHUNK_PREFIX bytes the call overwrites, then
 * the payload described by e (size, checksum, codec_info; the checksum is
 * verified on the GPU before anything reaches dst). */
scz_status scz__stream_gpu_chunk(scz_ctx *ctx, const scz_header *h, uint32_t index, const scz_chunk_entry *e,
                                 uint8_t *buf, uint8_t *dst);
#endif

#endif

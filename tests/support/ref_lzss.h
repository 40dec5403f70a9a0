/*
 * ref_lzss.h -- a naive reference encoder of the `lzss` codec, written from
 * docs/FORMAT.md section 11 alone (brute-force match search, no index), to
 * pin the CPU and GPU implementations' bytes.
 */
#ifndef SCZ_REF_LZSS_H
#define SCZ_REF_LZSS_H

#include <stdint.h>

/* Encodes one chunk of R raw bytes (elements of E bytes) with the resolved
 * knobs k[0..5] of FORMAT.md 11.1. Returns a malloc'ed payload, its size in
 * *size and its codec_info in *info (NULL on out of memory). */
uint8_t *ref_lzss_chunk(const uint8_t *raw, uint64_t R, uint32_t E, const uint32_t k[6], uint64_t *size,
                        uint32_t *info);

#endif

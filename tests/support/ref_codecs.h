/*
 * ref_codecs.h -- naive reference encoders written from docs/FORMAT.md, for
 * byte-for-byte comparison with the library (tests only).
 */
#ifndef SCZ_REF_CODECS_H
#define SCZ_REF_CODECS_H

#include "scz.h"

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer (free p when done). */
typedef struct bytebuf {
    uint8_t *p;
    size_t n, cap;
} bytebuf;
void bb_put(bytebuf *b, const void *src, size_t n);
void bb_u8(bytebuf *b, unsigned v);
void bb_u32(bytebuf *b, uint64_t v);
void bb_u64(bytebuf *b, uint64_t v);
void bb_varint(bytebuf *b, uint64_t v); /* LEB128 (FORMAT.md 7.6) */

/* FORMAT.md 8.1-8.4: appends the Huffman stream of syms[0..count) over an
 * alphabet of K symbols. */
void ref_hs(bytebuf *o, const uint16_t *syms, uint64_t count, uint32_t K);

/* FORMAT.md 7: the `lossy` payload of one chunk of dims[0..2] (fastest
 * first) with absolute bound eb, radius r and workflow knob wfreq. */
bytebuf ref_lossy(scz_dtype t, const void *data, const uint64_t dims[3], double eb, uint32_t r, uint32_t wfreq);

/* FORMAT.md 7.9-7.10: the level-1 `lossy` payload (knobs[2] = 1) with
 * absolute bound eb, radius limit R = knobs[0] and workflow knob wfreq. */
bytebuf ref_lossy1(scz_dtype t, const void *data, const uint64_t dims[3], double eb, uint32_t R, uint32_t wfreq);

/* FORMAT.md 10: the `gfc` payload of one chunk of n values (f32 or f64)
 * with dimensionality dim (1..32); *info = its codec_info (0 coded, 1
 * stored). */
bytebuf ref_gfc(scz_dtype t, const void *data, uint64_t n, uint32_t dim, uint32_t *info);

#endif

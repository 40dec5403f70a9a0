/*
 * internal.h -- what the library's parts share: the context, scratch
 * memory, little-endian access, the decoded stream header and the interface
 * every codec implements. Error reporting (scz__fail) lives below all of it,
 * in util/error.h.
 */
#ifndef SCZ_INTERNAL_H
#define SCZ_INTERNAL_H

#include "scz.h"
#include "util/error.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SCZ_SCRATCH_SLOTS 4

struct scz_ctx {
    char msg[SCZ_ERROR_MSG_CAP]; /* last error; first member: scz__fail writes it (util/error.h) */
    scz_backend backend;
    int threads;                 /* 0 = all cores */
    scz_progress_fn progress;
    void *progress_user;
    void *scratch[SCZ_SCRATCH_SLOTS];
    size_t scratch_size[SCZ_SCRATCH_SLOTS];
    void *cuda;                  /* CUDA backend state (src/cuda/runtime.cu), NULL on the CPU */
};
#ifdef __cplusplus
static_assert(offsetof(struct scz_ctx, msg) == 0, "scz__fail writes the buffer at the start of the context");
#else
_Static_assert(offsetof(struct scz_ctx, msg) == 0, "scz__fail writes the buffer at the start of the context");
#endif

/* Grow-only scratch buffer `slot` of at least `bytes`; NULL if out of memory.
 * Contents are not preserved across growth. */
void *scz__scratch(scz_ctx *ctx, int slot, size_t bytes);

/* Number of threads to use for a parallel region on this context. */
int scz__threads(const scz_ctx *ctx);

/* scz_value_range on `threads` threads (a context's count: scz__threads). */
scz_status scz__value_range(scz_dtype t, const void *data, uint64_t n, double *mn, double *mx,
                            uint64_t *finite, int threads);

/* ---- little-endian access (all targets are little-endian, but the format
 * must not depend on that; the compiler turns these into plain loads) ---- */
static inline uint16_t scz__ld16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t scz__ld32(const uint8_t *p) {
    uint32_t v; memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}
static inline uint64_t scz__ld64(const uint8_t *p) {
    uint64_t v; memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}
static inline void scz__st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void scz__st32(uint8_t *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(p, &v, 4);
}
static inline void scz__st64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}
static inline double scz__ldf64(const uint8_t *p) { uint64_t u = scz__ld64(p); double d; memcpy(&d, &u, 8); return d; }
static inline void scz__stf64(uint8_t *p, double d) { uint64_t u; memcpy(&u, &d, 8); scz__st64(p, u); }

/* ---- decoded stream header (docs/FORMAT.md section 2) ---- */
typedef struct scz_header {
    uint16_t version;
    scz_codec codec;
    scz_dtype dtype;
    uint32_t rank;
    uint64_t dims[SCZ_MAX_RANK];
    uint8_t flags;
    uint64_t raw_bytes;
    uint64_t chunk_slab;         /* indices of the slowest dimension per chunk */
    uint32_t num_chunks;
    uint8_t cksum_block_log2;
    scz_eb_mode eb_mode;
    double eb_user;
    double eb_abs;
    uint32_t knobs[SCZ_NUM_KNOBS];
} scz_header;

/* Geometry of one chunk as a codec sees it: rank 4 is folded into 3D
 * (z = dims[2] * dims[3]), and the slowest dimension is cut to the slab. */
typedef struct scz_chunk_geom {
    scz_dtype dtype;
    uint32_t esize;              /* bytes per element */
    uint32_t rank;               /* 1..3 */
    uint64_t dims[3];            /* fastest first; unused = 1 */
    uint64_t count;              /* elements in the chunk */
} scz_chunk_geom;

/* ---- codec interface: one instance per codec (src/codecs.c lists them) ---- */
typedef struct scz_codec_ops {
    scz_codec id;
    const char *name;
    int lossless;
    uint32_t dtypes;             /* accepted dtypes: bit (1 << scz_dtype) each */
    /* Validates dtype/rank/params for compression and fills codec defaults
     * into hdr (knobs, eb_abs). May read the whole input (e.g. a value range
     * for REL bounds). Called once per compress call, before chunking. */
    scz_status (*prepare)(scz_ctx *ctx, scz_header *hdr, const void *src);
    /* Validates a decoded header's codec fields (eb, knobs) for decoding. */
    scz_status (*check_header)(scz_ctx *ctx, const scz_header *hdr);
    /* Slab alignment in units of the (folded) slowest dimension: chunk slabs
     * are rounded down to a multiple of this where possible. */
    uint64_t (*slab_align)(const scz_header *hdr);
    /* Largest payload a chunk of this geometry can need; 0 on overflow. */
    uint64_t (*chunk_bound)(const scz_header *hdr, const scz_chunk_geom *g);
    /* Compresses one chunk. *codec_info goes to the chunk table. */
    scz_status (*compress_chunk)(scz_ctx *ctx, const scz_header *hdr, const scz_chunk_geom *g,
                                 const void *src, uint8_t *dst, uint64_t cap,
                                 uint64_t *out_size, uint32_t *codec_info);
    /* Decompresses one chunk payload of exactly `size` bytes into dst
     * (g->count elements). Must validate every byte it reads. */
    scz_status (*decompress_chunk)(scz_ctx *ctx, const scz_header *hdr, const scz_chunk_geom *g,
                                   const uint8_t *src, uint64_t size, uint32_t codec_info,
                                   void *dst);
    /* Optional (NULL: none), for one thread (the callers use them when the
     * context has one): compress_chunk that also computes the payload's
     * checksum (FORMAT.md 5) into *checksum while its bytes are in cache;
     * decompress_chunk that verifies the payload against `checksum` while
     * it decodes and returns SCZ_ERR_CHECKSUM on a mismatch, whatever the
     * decoding found (dst may then hold decoded values; the caller words
     * the message). The same streams and answers as compress_chunk +
     * scz__checksum and scz__checksum + decompress_chunk. */
    scz_status (*compress_chunk_ck)(scz_ctx *ctx, const scz_header *hdr, const scz_chunk_geom *g,
                                    const void *src, uint8_t *dst, uint64_t cap, uint64_t *out_size,
                                    uint32_t *codec_info, uint64_t *checksum);
    scz_status (*decompress_chunk_ck)(scz_ctx *ctx, const scz_header *hdr, const scz_chunk_geom *g,
                                      const uint8_t *src, uint64_t size, uint32_t codec_info, void *dst,
                                      uint64_t checksum);
    /* Incremental compression (src/stream.c), for codecs whose prepare
     * reads the data; NULL for the others. prepare_range is prepare given
     * {min, max} of the finite values instead of the data. Where the codec
     * needs passes over the data (the lossy PSNR rule), *pass receives a
     * state: the caller feeds the whole array, in order and in any pieces,
     * through pass_feed, then calls pass_end, again as long as pass_end
     * sets *again; the header is complete after the last pass_end.
     * pass_free releases the state at any time. */
    scz_status (*prepare_range)(scz_ctx *ctx, scz_header *hdr, const double range[2], void **pass);
    void (*pass_feed)(void *pass, const void *elems, uint64_t count);
    scz_status (*pass_end)(scz_ctx *ctx, void *pass, scz_header *hdr, int *again);
    void (*pass_free)(void *pass);
    /* Chunk size for params.chunk_bytes = 0 (0: SCZ_DEFAULT_CHUNK_BYTES). */
    uint64_t default_chunk_bytes;
} scz_codec_ops;

/* Plans a compression request (api.c): the header from params and shape
 * (codec fields not yet prepared) and the codec, with the checks of
 * scz_compress. */
scz_status scz__plan(scz_ctx *ctx, const scz_params *p, const scz_shape *s, scz_header *h,
                     const scz_codec_ops **ops);

/* The codec registry (NULL if the codec is not built in). */
const scz_codec_ops *scz__codec_ops(scz_codec id);

/* Overflow-checked arithmetic. Return 0 on overflow. */
static inline int scz__mul_ok(uint64_t a, uint64_t b, uint64_t *r) {
    return !__builtin_mul_overflow(a, b, r);
}
static inline int scz__add_ok(uint64_t a, uint64_t b, uint64_t *r) {
    return !__builtin_add_overflow(a, b, r);
}

#endif /* SCZ_INTERNAL_H */

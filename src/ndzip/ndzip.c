/*
 * ndzip.c -- CPU (OpenMP) implementation of the ndzip lossless codec for
 * float32/float64: integer Lorenzo transform in 4096-element hypercubes and
 * vertical bit packing, and the stored form for chunks the coding would
 * not shrink. Implements docs/FORMAT.md section 6; the CUDA implementation
 * beside it writes the same bytes.
 */
#include "ndzip.h"

#include "../internal.h"

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the ndzip CPU codec assumes a little-endian host"
#endif

/* Coding geometry of a chunk (6.1): extents with unit dims dropped, sides
 * per axis (1 for axes beyond the coding rank) and hypercubes per axis. */
typedef struct ndz_geo {
    unsigned rank;
    uint64_t e[3];
    unsigned sx, sy, sz;
    uint64_t nb[3];
    uint64_t n_hc;
} ndz_geo;

static int geo_init(const scz_chunk_geom *g, ndz_geo *z) {
    memset(z, 0, sizeof *z);
    if (g->count == 0) return -1;
    z->rank = ndzip_coding_dims(g->dims, g->rank, z->e);
    unsigned s = ndzip_hc_side[z->rank];
    z->sx = s;
    z->sy = z->rank >= 2 ? s : 1;
    z->sz = z->rank >= 3 ? s : 1;
    z->nb[0] = (z->e[0] + z->sx - 1) / z->sx;
    z->nb[1] = (z->e[1] + z->sy - 1) / z->sy;
    z->nb[2] = (z->e[2] + z->sz - 1) / z->sz;
    z->n_hc = z->nb[0] * z->nb[1] * z->nb[2];
    return 0;
}

static inline void hc_coords(const ndz_geo *z, uint64_t h, uint64_t *b0, uint64_t *b1, uint64_t *b2) {
    *b0 = h % z->nb[0];
    h /= z->nb[0];
    *b1 = h % z->nb[1];
    *b2 = h / z->nb[1];
}

#define T uint32_t
#define W 32
#define SFX 32
#include "ndzip_tmpl.h"
#undef T
#undef W
#undef SFX

#define T uint64_t
#define W 64
#define SFX 64
#include "ndzip_tmpl.h"
#undef T
#undef W
#undef SFX

/* This thread's 4096-element work array inside the per-call scratch. */
static inline void *thread_work(uint8_t *work) {
#ifdef _OPENMP
    return work + (size_t)omp_get_thread_num() * NDZIP_HC_ELEMS * 8;
#else
    return work;
#endif
}

/* Largest encoded hypercube: all heads plus all columns. */
static uint64_t max_hc_bytes(uint32_t esize) {
    uint64_t w = esize * 8u;
    return (NDZIP_HC_ELEMS / w + NDZIP_HC_ELEMS) * esize;
}

/* ---------------- codec interface ---------------- */

static scz_status ndz_check_fields(scz_ctx *ctx, const scz_header *h) {
    if (h->dtype != SCZ_DTYPE_F32 && h->dtype != SCZ_DTYPE_F64)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "ndzip compresses float32 and float64 only, not %s",
                         scz_dtype_name(h->dtype));
    for (int i = 0; i < SCZ_NUM_KNOBS; i++)
        if (h->knobs[i])
            return scz__fail(ctx, SCZ_ERR_ARG, "ndzip has no knobs (knob %d is %u)", i, h->knobs[i]);
    return SCZ_OK;
}

static scz_status ndz_prepare(scz_ctx *ctx, scz_header *h, const void *src) {
    (void)src;
    return ndz_check_fields(ctx, h);
}

static scz_status ndz_check_header(scz_ctx *ctx, const scz_header *h) {
    if (ndz_check_fields(NULL, h))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip stream with dtype %s or nonzero knobs",
                         scz_dtype_name(h->dtype));
    if (h->eb_mode != SCZ_EB_NONE || h->eb_user != 0 || h->eb_abs != 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip stream carries an error bound");
    return SCZ_OK;
}

/* Chunk slabs are multiples of the hypercube side along the slowest axis. */
static uint64_t ndz_slab_align(const scz_header *h) {
    /* The slowest coding axis is the slowest dim times the dims merged into
     * it (P): the slab must make P * slab a multiple of the side. */
    uint64_t d[3] = {h->dims[0], h->rank >= 2 ? h->dims[1] : 1, 1}, e[3];
    uint64_t slow = h->dims[h->rank - 1];
    if (h->rank >= 3) d[2] = h->dims[2] * (h->rank == 4 ? slow : 1);
    if (slow <= 1) return 1;
    unsigned n = ndzip_coding_dims(d, h->rank < 3 ? h->rank : 3, e);
    uint64_t side = ndzip_hc_side[n], p = (e[n - 1] / slow) % side, a = side;
    while (p) { uint64_t t = a % p; a = p; p = t; }
    return side / a;
}

static uint64_t ndz_chunk_bound(const scz_header *h, const scz_chunk_geom *g) {
    (void)h;
    ndz_geo z;
    if (geo_init(g, &z)) return 4;
    uint64_t data;
    if (!scz__mul_ok(z.n_hc, max_hc_bytes(g->esize), &data) || data > UINT32_MAX) return 0;
    return 4 * z.n_hc + data;
}

static scz_status ndz_compress_chunk(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g,
                                     const void *src, uint8_t *dst, uint64_t cap, uint64_t *out_size,
                                     uint32_t *info) {
    (void)h;
    *info = NDZIP_INFO_CODED;
    ndz_geo z;
    if (geo_init(g, &z)) return scz__fail(ctx, SCZ_ERR_INTERNAL, "empty chunk");
    const uint64_t H = z.n_hc, maxhc = max_hc_bytes(g->esize);
    if (H * maxhc > UINT32_MAX)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk too large for ndzip's 32-bit offsets; use a smaller chunk size");
    const int nt = scz__threads(ctx);
    uint8_t *enc = scz__scratch(ctx, 0, (size_t)(H * maxhc));
    uint32_t *len = scz__scratch(ctx, 1, (size_t)H * sizeof(uint32_t));
    uint8_t *work = scz__scratch(ctx, 2, (size_t)nt * NDZIP_HC_ELEMS * 8);
    if (!enc || !len || !work) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate ndzip scratch");
    const int wide = g->esize == 8;

#pragma omp parallel num_threads(nt) if (H > 1)
    {
        void *a = thread_work(work);
#pragma omp for schedule(dynamic, 8)
        for (int64_t hh = 0; hh < (int64_t)H; hh++) {
            uint64_t b0, b1, b2;
            hc_coords(&z, (uint64_t)hh, &b0, &b1, &b2);
            uint8_t *o = enc + (uint64_t)hh * maxhc;
            size_t n;
            if (wide) {
                forward_64(&z, src, b0, b1, b2, a);
                n = pack_64(a, o);
            } else {
                forward_32(&z, src, b0, b1, b2, a);
                n = pack_32(a, o);
            }
            len[hh] = (uint32_t)n;
        }
    }
    /* Compaction: end-offset table, then hypercubes back to back; or the
     * raw bytes when the coded form would not be smaller (6.7). */
    uint64_t total = 0;
    for (uint64_t i = 0; i < H; i++) total += len[i];
    uint64_t need = 4 * H + total;
    const uint64_t raw = g->count * g->esize;
    if (need >= raw) {
        if (raw > cap)
            return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
        memcpy(dst, src, (size_t)raw);
        *out_size = raw;
        *info = NDZIP_INFO_STORED;
        return SCZ_OK;
    }
    if (need > cap)
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
    uint64_t end = 0;
    for (uint64_t i = 0; i < H; i++) {
        end += len[i];
        scz__st32(dst + 4 * i, (uint32_t)end);
    }
    uint8_t *data = dst + 4 * H;
#pragma omp parallel for num_threads(nt) schedule(static) if (H > 64)
    for (int64_t hh = 0; hh < (int64_t)H; hh++) {
        uint64_t start = hh ? scz__ld32(dst + 4 * (hh - 1)) : 0;
        memcpy(data + start, enc + (uint64_t)hh * maxhc, len[hh]);
    }
    *out_size = need;
    return SCZ_OK;
}

static scz_status ndz_decompress_chunk(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g,
                                       const uint8_t *src, uint64_t size, uint32_t info, void *dst) {
    (void)h;
    if (info != NDZIP_INFO_CODED && info != NDZIP_INFO_STORED)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip chunk with codec_info %u", info);
    ndz_geo z;
    if (geo_init(g, &z)) return scz__fail(ctx, SCZ_ERR_INTERNAL, "empty chunk");
    if (info == NDZIP_INFO_STORED) { /* 6.7: exactly the raw bytes */
        const uint64_t raw = g->count * g->esize;
        if (size != raw)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "stored ndzip chunk is %llu bytes, the chunk holds %llu raw bytes",
                             (unsigned long long)size, (unsigned long long)raw);
        memcpy(dst, src, (size_t)raw);
        return SCZ_OK;
    }
    const uint64_t H = z.n_hc;
    if (size / 4 < H) return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip chunk shorter than its offset table");
    const uint64_t data_size = size - 4 * H;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < H; i++) {
        uint64_t e = scz__ld32(src + 4 * i);
        if (e < prev) return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip hypercube offsets decrease at %llu",
                                       (unsigned long long)i);
        prev = e;
    }
    if (prev != data_size)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip hypercube data is %llu bytes, the chunk holds %llu",
                         (unsigned long long)prev, (unsigned long long)data_size);
    const int nt = scz__threads(ctx);
    uint8_t *work = scz__scratch(ctx, 2, (size_t)nt * NDZIP_HC_ELEMS * 8);
    if (!work) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate ndzip scratch");
    const uint8_t *data = src + 4 * H;
    const int wide = g->esize == 8;
    int64_t bad = -1;

#pragma omp parallel num_threads(nt) reduction(max : bad) if (H > 1)
    {
        void *a = thread_work(work);
#pragma omp for schedule(dynamic, 8)
        for (int64_t hh = 0; hh < (int64_t)H; hh++) {
            uint64_t start = hh ? scz__ld32(src + 4 * (hh - 1)) : 0;
            uint64_t stop = scz__ld32(src + 4 * hh);
            uint64_t b0, b1, b2;
            hc_coords(&z, (uint64_t)hh, &b0, &b1, &b2);
            if (wide) {
                if (unpack_64(data + start, stop - start, a)) { if (hh > bad) bad = hh; continue; }
                inverse_64(&z, a, b0, b1, b2, dst);
            } else {
                if (unpack_32(data + start, stop - start, a)) { if (hh > bad) bad = hh; continue; }
                inverse_32(&z, a, b0, b1, b2, dst);
            }
        }
    }
    if (bad >= 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "ndzip hypercube %lld: length does not match its heads",
                         (long long)bad);
    return SCZ_OK;
}

const scz_codec_ops scz__ndzip_ops = {
    .id = SCZ_CODEC_NDZIP,
    .name = "ndzip",
    .lossless = 1,
    .dtypes = 1u << SCZ_DTYPE_F32 | 1u << SCZ_DTYPE_F64,
    .prepare = ndz_prepare,
    .check_header = ndz_check_header,
    .slab_align = ndz_slab_align,
    .chunk_bound = ndz_chunk_bound,
    .compress_chunk = ndz_compress_chunk,
    .decompress_chunk = ndz_decompress_chunk,
};

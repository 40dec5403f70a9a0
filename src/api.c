/*
 * api.c -- public entry points: validate, pick the codec, run the container
 * (docs/FORMAT.md sections 1-5).
 */
#include "cuda/backend.h"
#include "format/container.h"
#include "internal.h"
#include "stream.h"
#include "util/error.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------- names ---------------- */

static const struct { scz_dtype t; size_t size; const char *name; } dtypes[] = {
    {SCZ_DTYPE_F32, 4, "f32"}, {SCZ_DTYPE_F64, 8, "f64"}, {SCZ_DTYPE_U8, 1, "u8"},
    {SCZ_DTYPE_U16, 2, "u16"}, {SCZ_DTYPE_U32, 4, "u32"}, {SCZ_DTYPE_U64, 8, "u64"},
};

size_t scz_dtype_size(scz_dtype t) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].t == t) return dtypes[i].size;
    return 0;
}

const char *scz_dtype_name(scz_dtype t) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].t == t) return dtypes[i].name;
    return NULL;
}

static int ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

scz_dtype scz_dtype_from_name(const char *n) {
    if (!n) return (scz_dtype)0;
    if (ieq(n, "float") || ieq(n, "float32") || ieq(n, "f32") || ieq(n, "f")) return SCZ_DTYPE_F32;
    if (ieq(n, "double") || ieq(n, "float64") || ieq(n, "f64") || ieq(n, "d")) return SCZ_DTYPE_F64;
    if (ieq(n, "u8") || ieq(n, "uint8")) return SCZ_DTYPE_U8;
    if (ieq(n, "u16") || ieq(n, "uint16")) return SCZ_DTYPE_U16;
    if (ieq(n, "u32") || ieq(n, "uint32")) return SCZ_DTYPE_U32;
    if (ieq(n, "u64") || ieq(n, "uint64")) return SCZ_DTYPE_U64;
    return (scz_dtype)0;
}

static const char *const codec_names[] = {NULL, "ndzip", "lossy", "huffman", "gfc", "lzss"};

const char *scz_codec_name(scz_codec c) {
    return (c >= SCZ_CODEC_NDZIP && c <= SCZ_CODEC_LZSS) ? codec_names[c] : NULL;
}

scz_codec scz_codec_from_name(const char *n) {
    for (int c = SCZ_CODEC_NDZIP; n && c <= SCZ_CODEC_LZSS; c++)
        if (ieq(n, codec_names[c])) return (scz_codec)c;
    return (scz_codec)0;
}

int scz_codec_available(scz_codec c) { return scz__codec_ops(c) != NULL; }

int scz_codec_accepts(scz_codec c, scz_dtype t) {
    const scz_codec_ops *ops = scz__codec_ops(c);
    return ops && (unsigned)t < 32 && (ops->dtypes >> (unsigned)t & 1u);
}

int scz_codec_is_lossless(scz_codec c) { return c != SCZ_CODEC_LOSSY && scz_codec_name(c) != NULL; }

const char *scz_eb_mode_name(scz_eb_mode m) {
    switch (m) {
    case SCZ_EB_NONE: return "none";
    case SCZ_EB_ABS: return "abs";
    case SCZ_EB_REL: return "rel";
    case SCZ_EB_PSNR: return "psnr";
    }
    return NULL;
}

scz_eb_mode scz_eb_mode_from_name(const char *n) {
    if (!n) return (scz_eb_mode)-1;
    for (int m = SCZ_EB_NONE; m <= SCZ_EB_PSNR; m++)
        if (ieq(n, scz_eb_mode_name((scz_eb_mode)m))) return (scz_eb_mode)m;
    return (scz_eb_mode)-1;
}

uint64_t scz_shape_count(const scz_shape *s) {
    if (!s || s->rank < 1 || s->rank > SCZ_MAX_RANK) return 0;
    uint64_t c = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        if (!scz__mul_ok(c, s->dims[i], &c)) return 0;
    return c;
}

void scz_params_init(scz_params *p, scz_codec codec) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->codec = codec;
    p->eb_mode = SCZ_EB_NONE;
}

/* ---------------- context ---------------- */

void *scz__scratch(scz_ctx *ctx, int slot, size_t bytes) {
    if (slot < 0 || slot >= SCZ_SCRATCH_SLOTS) return NULL;
    if (ctx->scratch_size[slot] >= bytes && ctx->scratch[slot]) return ctx->scratch[slot];
    free(ctx->scratch[slot]);
    ctx->scratch[slot] = malloc(bytes ? bytes : 1);
    ctx->scratch_size[slot] = ctx->scratch[slot] ? bytes : 0;
    return ctx->scratch[slot];
}

int scz__threads(const scz_ctx *ctx) {
    if (ctx && ctx->threads > 0) return ctx->threads;
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

scz_status scz_ctx_create(scz_ctx **out, scz_backend backend) {
    if (!out) return SCZ_ERR_ARG;
    *out = NULL;
    if (backend != SCZ_BACKEND_CPU && backend != SCZ_BACKEND_CUDA) return SCZ_ERR_BACKEND;
    /* scz_backend_probe says why a backend is unavailable */
    if (scz_backend_probe(backend, NULL, 0) != SCZ_OK) return SCZ_ERR_BACKEND;
    scz_ctx *c = calloc(1, sizeof *c);
    if (!c) return SCZ_ERR_NOMEM;
    c->backend = backend;
#ifdef SCZ_HAVE_CUDA
    if (backend == SCZ_BACKEND_CUDA) {
        scz_status st = scz__cuda_ctx_init(c);
        if (st) {
            free(c);
            return st;
        }
    }
#endif
    *out = c;
    return SCZ_OK;
}

void scz_ctx_destroy(scz_ctx *ctx) {
    if (!ctx) return;
#ifdef SCZ_HAVE_CUDA
    scz__cuda_ctx_free(ctx);
#endif
    for (int i = 0; i < SCZ_SCRATCH_SLOTS; i++) free(ctx->scratch[i]);
    free(ctx);
}

scz_status scz_ctx_set_threads(scz_ctx *ctx, int threads) {
    if (!ctx) return SCZ_ERR_ARG;
    if (threads < 0) return scz__fail(ctx, SCZ_ERR_ARG, "thread count %d is negative", threads);
    ctx->threads = threads;
    return SCZ_OK;
}

void scz_ctx_set_progress(scz_ctx *ctx, scz_progress_fn fn, void *user) {
    if (!ctx) return;
    ctx->progress = fn;
    ctx->progress_user = user;
}

const char *scz_ctx_last_error(const scz_ctx *ctx) { return ctx ? ctx->msg : "no context"; }

/* ---------------- planning ---------------- */

/* Builds the header of a compression request (everything but the data-
 * dependent fields a codec's prepare() fills in) and checks it. */
scz_status scz__plan(scz_ctx *ctx, const scz_params *p, const scz_shape *s, scz_header *h,
                     const scz_codec_ops **ops_out) {
    if (!p || !s) return scz__fail(ctx, SCZ_ERR_ARG, "params and shape must not be NULL");
    const scz_codec_ops *ops = scz__codec_ops(p->codec);
    if (!scz_codec_name(p->codec))
        return scz__fail(ctx, SCZ_ERR_ARG, "unknown codec id %d", (int)p->codec);
    if (!ops)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' is not available in this build",
                         scz_codec_name(p->codec));
    size_t es = scz_dtype_size(s->dtype);
    if (!es) return scz__fail(ctx, SCZ_ERR_ARG, "unknown dtype id %d", (int)s->dtype);
    if (s->rank < 1 || s->rank > SCZ_MAX_RANK)
        return scz__fail(ctx, SCZ_ERR_ARG, "rank %u out of range 1..%d", s->rank, SCZ_MAX_RANK);
    if (ops->lossless && p->eb_mode != SCZ_EB_NONE)
        return scz__fail(ctx, SCZ_ERR_ARG,
                         "codec '%s' is lossless: an error bound (%s) cannot be applied; use -c lossy",
                         ops->name, scz_eb_mode_name(p->eb_mode) ? scz_eb_mode_name(p->eb_mode) : "?");
    if (ops->lossless && p->eb != 0)
        return scz__fail(ctx, SCZ_ERR_ARG, "codec '%s' is lossless: the bound %g would be ignored; leave it 0",
                         ops->name, p->eb);
    if (!ops->lossless && p->eb_mode == SCZ_EB_NONE)
        return scz__fail(ctx, SCZ_ERR_ARG, "codec '%s' needs an error bound (ABS, REL or PSNR)", ops->name);
    if ((unsigned)p->eb_mode > SCZ_EB_PSNR)
        return scz__fail(ctx, SCZ_ERR_ARG, "unknown error-bound mode %d", (int)p->eb_mode);
    memset(h, 0, sizeof *h);
    h->version = SCZ_FORMAT_VERSION;
    h->codec = p->codec;
    h->dtype = s->dtype;
    h->rank = s->rank;
    uint64_t count = 1;
    int empty = 0;
    for (uint32_t i = 0; i < SCZ_MAX_RANK; i++) {
        h->dims[i] = i < s->rank ? s->dims[i] : 1;
        if (i >= s->rank) continue;
        if (s->dims[i] == 0) empty = 1;
        else if (!scz__mul_ok(count, s->dims[i], &count))
            return scz__fail(ctx, SCZ_ERR_OVERFLOW, "element count overflows 64 bits");
    }
    if (empty) count = 0;
    if (!scz__mul_ok(count, es, &h->raw_bytes) || h->raw_bytes > (uint64_t)SIZE_MAX / 2)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "raw size overflows");
    h->cksum_block_log2 = SCZ_CKSUM_BLOCK_LOG2;
    h->eb_mode = p->eb_mode;
    h->eb_user = p->eb;
    memcpy(h->knobs, p->knobs, sizeof h->knobs);

    if (count == 0) {
        h->chunk_slab = 0;
        h->num_chunks = 0;
    } else {
        uint64_t cb = p->chunk_bytes              ? p->chunk_bytes
                      : ops->default_chunk_bytes ? ops->default_chunk_bytes
                                                 : SCZ_DEFAULT_CHUNK_BYTES;
        if (cb < SCZ_MIN_CHUNK_BYTES) cb = SCZ_MIN_CHUNK_BYTES;
        if (cb > SCZ_MAX_CHUNK_BYTES) cb = SCZ_MAX_CHUNK_BYTES;
        uint64_t slice_bytes = scz__slice_elems(h) * es;
        uint64_t slow = scz__slow_extent(h);
        uint64_t slab = cb / slice_bytes;
        if (slab == 0) slab = 1;
        uint64_t align = ops->slab_align ? ops->slab_align(h) : 1;
        if (align > 1 && slab >= align) slab -= slab % align;
        if (slab > slow) slab = slow;
        h->chunk_slab = slab;
        uint64_t nc = slow / slab + (slow % slab != 0);
        if (nc > UINT32_MAX)
            return scz__fail(ctx, SCZ_ERR_OVERFLOW, "%llu chunks exceed the format's limit",
                             (unsigned long long)nc);
        h->num_chunks = (uint32_t)nc;
    }
    *ops_out = ops;
    return SCZ_OK;
}

/* Sum of the chunk bounds plus header and table; 0 on overflow. */
static uint64_t stream_bound(const scz_codec_ops *ops, const scz_header *h) {
    uint64_t total = SCZ_HEADER_SIZE + scz__table_size(h->num_chunks);
    if (h->num_chunks == 0) return total;
    scz_chunk_geom g;
    scz__chunk_geom(h, 0, &g, NULL, NULL);
    uint64_t b0 = ops->chunk_bound(h, &g), full, last;
    if (!b0 || !scz__mul_ok(b0, h->num_chunks - 1, &full)) return 0;
    scz__chunk_geom(h, h->num_chunks - 1, &g, NULL, NULL);
    last = ops->chunk_bound(h, &g);
    if (!last || !scz__add_ok(total, full, &total) || !scz__add_ok(total, last, &total)) return 0;
    return total;
}

size_t scz_compress_bound(const scz_shape *shape, const scz_params *params) {
    scz_header h;
    const scz_codec_ops *ops;
    if (scz__plan(NULL, params, shape, &h, &ops) != SCZ_OK) return 0;
    uint64_t b = stream_bound(ops, &h);
    return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

/* ---------------- compress ---------------- */

scz_status scz_compress(scz_ctx *ctx, const scz_params *params, const scz_shape *shape,
                        const void *src, void *dst, size_t dst_cap, size_t *dst_size) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    if (!dst || !dst_size) return scz__fail(ctx, SCZ_ERR_ARG, "dst and dst_size must not be NULL");
    *dst_size = 0;
    scz_header h;
    const scz_codec_ops *ops;
    scz_status st = scz__plan(ctx, params, shape, &h, &ops);
    if (st) return st;
    if (!src && h.raw_bytes) return scz__fail(ctx, SCZ_ERR_ARG, "src must not be NULL");
    if (ops->prepare && (st = ops->prepare(ctx, &h, src))) return st;

    uint64_t tsize = scz__table_size(h.num_chunks);
    uint64_t pos = SCZ_HEADER_SIZE + tsize;
    if (dst_cap < pos)
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination of %zu bytes cannot hold the header and table (%llu)",
                         dst_cap, (unsigned long long)pos);
#ifdef SCZ_HAVE_CUDA
    if (ctx->cuda && scz__cuda_can_hdr(&h, 0)) /* chunks streamed through the GPU */
        return scz__cuda_compress_host(ctx, &h, src, dst, dst_cap, dst_size);
#endif
    uint8_t *out = dst;
    scz_chunk_entry *entries = NULL;
    if (h.num_chunks) {
        entries = scz__scratch(ctx, SCZ_SCRATCH_SLOTS - 1, (size_t)h.num_chunks * sizeof *entries);
        if (!entries) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the chunk table");
    }
    int threads = scz__threads(ctx);
    uint64_t done = 0;
    for (uint32_t i = 0; i < h.num_chunks; i++) {
        scz_chunk_geom g;
        uint64_t roff, rbytes, csize = 0;
        uint32_t info = 0;
        scz__chunk_geom(&h, i, &g, &roff, &rbytes);
        uint64_t ck = 0;
        const int fused = threads == 1 && ops->compress_chunk_ck; /* the codec hashes its output in cache */
        if (fused)
            st = ops->compress_chunk_ck(ctx, &h, &g, (const uint8_t *)src + roff, out + pos, dst_cap - pos, &csize,
                                        &info, &ck);
        else
            st = ops->compress_chunk(ctx, &h, &g, (const uint8_t *)src + roff, out + pos, dst_cap - pos, &csize,
                                     &info);
        if (st) return st;
        if (csize > dst_cap - pos) return scz__fail(ctx, SCZ_ERR_INTERNAL, "codec overran its capacity");
        entries[i].offset = pos;
        entries[i].size = csize;
        entries[i].checksum = fused ? ck : scz__checksum(out + pos, csize, h.cksum_block_log2, threads);
        entries[i].info = info;
        pos += csize;
        done += rbytes;
        if (ctx->progress) ctx->progress(ctx->progress_user, done, h.raw_bytes);
    }
    scz__header_write(&h, out);
    scz__table_write(entries, h.num_chunks, out + SCZ_HEADER_SIZE);
    *dst_size = (size_t)pos;
    return SCZ_OK;
}

/* ---------------- decompress / inspect ---------------- */

/* Reads and validates header and table in either layout (FORMAT.md 4, 9);
 * *table points at the chunk table's entries; checks the codec can decode. */
static scz_status open_stream(scz_ctx *ctx, const void *src, size_t n, scz_header *h, uint64_t *end,
                              const uint8_t **table, const scz_codec_ops **ops) {
    if (!src) return scz__fail(ctx, SCZ_ERR_ARG, "src must not be NULL");
    scz_status st = scz__header_read(ctx, src, n, h);
    if (st) return st;
    uint64_t toff;
    if ((st = scz__layout_check(ctx, h, src, n, &toff, end))) return st;
    *table = (const uint8_t *)src + toff;
    if (ops) {
        *ops = scz__codec_ops(h->codec);
        if (!*ops)
            return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' is not available in this build",
                             scz_codec_name(h->codec));
        if ((*ops)->check_header && (st = (*ops)->check_header(ctx, h))) return st;
    }
    return SCZ_OK;
}

static scz_status decode_chunk(scz_ctx *ctx, const scz_header *h, const scz_codec_ops *ops,
                               const uint8_t *s, const uint8_t *table, uint32_t i, uint8_t *dst, int threads) {
    scz_chunk_entry e;
    scz_chunk_geom g;
    scz__table_entry(table, i, &e);
    scz__chunk_geom(h, i, &g, NULL, NULL);
    if (threads == 1 && ops->decompress_chunk_ck) { /* the codec verifies while it decodes */
        const scz_status st = ops->decompress_chunk_ck(ctx, h, &g, s + e.offset, e.size, e.info, dst, e.checksum);
        if (st == SCZ_ERR_CHECKSUM)
            return scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk %u checksum mismatch: the chunk is corrupt", i);
        return st;
    }
    if (scz__checksum(s + e.offset, e.size, h->cksum_block_log2, threads) != e.checksum)
        return scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk %u checksum mismatch: the chunk is corrupt", i);
    return ops->decompress_chunk(ctx, h, &g, s + e.offset, e.size, e.info, dst);
}

#ifdef SCZ_HAVE_CUDA
/* Chunk i of a table-last stream through the GPU, alone: the payload is
 * copied behind the prefix the GPU path needs (stream.h). */
static scz_status gpu_chunk_copy(scz_ctx *ctx, const scz_header *h, const uint8_t *s, const uint8_t *table,
                                 uint32_t i, uint8_t *dst) {
    scz_chunk_entry e;
    scz__table_entry(table, i, &e);
    uint8_t *buf = malloc((size_t)e.size + SCZ_GPU_CHUNK_PREFIX);
    if (!buf) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate %llu bytes for chunk %u",
                               (unsigned long long)e.size, i);
    memcpy(buf + SCZ_GPU_CHUNK_PREFIX, s + e.offset, (size_t)e.size);
    scz_status st = scz__stream_gpu_chunk(ctx, h, i, &e, buf, dst);
    free(buf);
    return st;
}
#endif

scz_status scz_decompress(scz_ctx *ctx, const void *src, size_t src_size, void *dst, size_t dst_cap,
                          scz_shape *shape) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    scz_header h;
    uint64_t end;
    const uint8_t *table = NULL;
    const scz_codec_ops *ops;
    scz_status st = open_stream(ctx, src, src_size, &h, &end, &table, &ops);
    if (st) return st;
    if (end != src_size)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "%llu unexpected bytes after the end of the stream",
                         (unsigned long long)(src_size - end));
    if (dst_cap < h.raw_bytes || (!dst && h.raw_bytes))
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination holds %zu bytes, the array needs %llu",
                         dst_cap, (unsigned long long)h.raw_bytes);
    int threads = scz__threads(ctx);
    uint64_t done = 0;
#ifdef SCZ_HAVE_CUDA
    if (ctx->cuda && scz__cuda_can_hdr(&h, 1)) { /* chunks streamed through the GPU */
        if (!(h.flags & SCZ_FLAG_TABLE_LAST)) {
            if ((st = scz__cuda_decompress_host(ctx, &h, src, 0, h.num_chunks, dst))) return st;
        } else {
            for (uint32_t i = 0; i < h.num_chunks; i++) {
                uint64_t roff, rbytes;
                scz_chunk_geom g;
                scz__chunk_geom(&h, i, &g, &roff, &rbytes);
                if ((st = gpu_chunk_copy(ctx, &h, src, table, i, (uint8_t *)dst + roff))) return st;
                done += rbytes;
                if (ctx->progress) ctx->progress(ctx->progress_user, done, h.raw_bytes);
            }
        }
    } else
#endif
    for (uint32_t i = 0; i < h.num_chunks; i++) {
        uint64_t roff, rbytes;
        scz_chunk_geom g;
        scz__chunk_geom(&h, i, &g, &roff, &rbytes);
        if ((st = decode_chunk(ctx, &h, ops, src, table, i, (uint8_t *)dst + roff, threads))) return st;
        done += rbytes;
        if (ctx->progress) ctx->progress(ctx->progress_user, done, h.raw_bytes);
    }
    if (shape) {
        shape->dtype = h.dtype;
        shape->rank = h.rank;
        memcpy(shape->dims, h.dims, sizeof shape->dims);
    }
    return SCZ_OK;
}

scz_status scz_inspect(const void *src, size_t src_size, scz_info *info) {
    if (!info) return SCZ_ERR_ARG;
    scz_header h;
    uint64_t end;
    const uint8_t *table = NULL;
    scz_status st = open_stream(NULL, src, src_size, &h, &end, &table, NULL);
    if (st) return st;
    scz__info_from_header(&h, end, info);
    return SCZ_OK;
}

void scz__info_from_header(const scz_header *hp, uint64_t end, scz_info *info) {
    const scz_header h = *hp;
    memset(info, 0, sizeof *info);
    info->format_version = h.version;
    info->shape.dtype = h.dtype;
    info->shape.rank = h.rank;
    memcpy(info->shape.dims, h.dims, sizeof h.dims);
    info->params.codec = h.codec;
    info->params.eb_mode = h.eb_mode;
    info->params.eb = h.eb_user;
    memcpy(info->params.knobs, h.knobs, sizeof h.knobs);
    info->eb_abs = h.eb_abs;
    info->raw_bytes = h.raw_bytes;
    info->stream_bytes = end;
    info->num_chunks = h.num_chunks;
    info->chunk_slab = h.chunk_slab;
}

scz_status scz_inspect_chunk(const void *src, size_t src_size, uint32_t index, scz_chunk_info *ci) {
    if (!ci) return SCZ_ERR_ARG;
    scz_header h;
    uint64_t end;
    const uint8_t *table = NULL;
    scz_status st = open_stream(NULL, src, src_size, &h, &end, &table, NULL);
    if (st) return st;
    if (index >= h.num_chunks) return SCZ_ERR_ARG;
    scz_chunk_entry e;
    scz_chunk_geom g;
    scz__table_entry(table, index, &e);
    scz__chunk_geom(&h, index, &g, &ci->raw_offset, &ci->raw_bytes);
    ci->offset = e.offset;
    ci->size = e.size;
    ci->checksum = e.checksum;
    ci->codec_info = e.info;
    return SCZ_OK;
}

scz_status scz_decompress_chunk(scz_ctx *ctx, const void *src, size_t src_size, uint32_t index,
                                void *dst, size_t dst_cap) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    scz_header h;
    uint64_t end, roff, rbytes;
    const uint8_t *table = NULL;
    const scz_codec_ops *ops;
    scz_status st = open_stream(ctx, src, src_size, &h, &end, &table, &ops);
    if (st) return st;
    if (index >= h.num_chunks)
        return scz__fail(ctx, SCZ_ERR_ARG, "chunk %u does not exist (%u chunks)", index, h.num_chunks);
    scz_chunk_geom g;
    scz__chunk_geom(&h, index, &g, &roff, &rbytes);
    if (!dst || dst_cap < rbytes)
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination holds %zu bytes, the chunk needs %llu",
                         dst_cap, (unsigned long long)rbytes);
#ifdef SCZ_HAVE_CUDA
    if (ctx->cuda && scz__cuda_can_hdr(&h, 1))
        return (h.flags & SCZ_FLAG_TABLE_LAST) ? gpu_chunk_copy(ctx, &h, src, table, index, dst)
                                               : scz__cuda_decompress_host(ctx, &h, src, index, 1, dst);
#endif
    return decode_chunk(ctx, &h, ops, src, table, index, dst, scz__threads(ctx));
}

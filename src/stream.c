/*
 * stream.c -- incremental compression and decompression (scz.h, "arrays
 * larger than memory"): the array passes chunk by chunk, the stream is
 * written and read front to back in either layout of docs/FORMAT.md
 * section 9. Chunks are independent, so each one goes through the codec
 * interface (internal.h) exactly as in scz_compress / scz_decompress, and
 * the bytes are the same.
 *
 * Memory: the compressor holds one chunk's payload (a CUDA context: a batch
 * of chunks, raw and compressed), the decoder one payload; both hold the
 * chunk table (32 bytes per chunk).
 */
#include "stream.h"

#include "cuda/backend.h"
#include "util/ieee.h"
#include "util/xxh64.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Raw bytes a CUDA context compresses per call of the streamed host path
 * (which splits them into its own overlapping batches). */
#define GPU_STREAM_BATCH_BYTES ((uint64_t)64 << 20)

static uint64_t chunk_raw(const scz_header *h, uint32_t i) {
    scz_chunk_geom g;
    uint64_t rb;
    scz__chunk_geom(h, i, &g, NULL, &rb);
    return rb;
}

/* Largest payload of chunk i; 0 on overflow. */
static uint64_t chunk_bound(const scz_codec_ops *ops, const scz_header *h, uint32_t i) {
    scz_chunk_geom g;
    scz__chunk_geom(h, i, &g, NULL, NULL);
    return ops->chunk_bound(h, &g);
}

#ifdef SCZ_HAVE_CUDA
/* Chunks [first, first + count) of h as an array of their own, table first:
 * the same chunk geometry, so the same payloads. */
static void sub_header(const scz_header *h, uint32_t first, uint32_t count, scz_header *s) {
    uint64_t slow = scz__slow_extent(h);
    uint64_t a = (uint64_t)first * h->chunk_slab, b = (uint64_t)(first + count) * h->chunk_slab;
    if (b > slow) b = slow;
    *s = *h;
    s->flags = 0;
    s->dims[h->rank - 1] = b - a;
    s->raw_bytes = scz__slice_elems(h) * (b - a) * scz_dtype_size(h->dtype);
    s->chunk_slab = h->chunk_slab < b - a ? h->chunk_slab : b - a;
    s->num_chunks = count;
}

/* The context's progress callback would see the raw bytes of the partial
 * arrays the GPU path is given: it is held back during those calls. */
typedef struct { scz_progress_fn fn; void *user; } held_progress;
static held_progress hold_progress(scz_ctx *ctx) {
    held_progress p = {ctx->progress, ctx->progress_user};
    ctx->progress = NULL;
    return p;
}
static void release_progress(scz_ctx *ctx, held_progress p) {
    ctx->progress = p.fn;
    ctx->progress_user = p.user;
}

scz_status scz__stream_gpu_chunk(scz_ctx *ctx, const scz_header *h, uint32_t index, const scz_chunk_entry *e,
                                 uint8_t *buf, uint8_t *dst) {
    scz_header s;
    sub_header(h, index, 1, &s);
    scz__header_write(&s, buf);
    scz_chunk_entry one = *e;
    one.offset = SCZ_GPU_CHUNK_PREFIX;
    scz__table_write(&one, 1, buf + SCZ_HEADER_SIZE);
    held_progress p = hold_progress(ctx);
    scz_status st = scz__cuda_decompress_host(ctx, &s, buf, 0, 1, dst);
    release_progress(ctx, p);
    if (st && strncmp(ctx->msg, "chunk 0 ", 8) == 0) { /* name the chunk of the whole stream */
        char m[sizeof ctx->msg];
        snprintf(m, sizeof m, "chunk %u %s", index, ctx->msg + 8);
        memcpy(ctx->msg, m, sizeof m);
    }
    return st;
}
#endif

/* ================================================================== */
/* Compression                                                         */
/* ================================================================== */

typedef struct piece {
    const uint8_t *p;
    size_t n;
} piece;

struct scz_cstream {
    scz_ctx *ctx;
    scz_header h;
    const scz_codec_ops *ops;
    int table_last, gpu, ended;
    scz_status err;              /* sticky */
    uint32_t batch;              /* chunks per compression step */
    uint32_t next;               /* first chunk not compressed yet */
    uint64_t fed, done_raw, pos; /* raw bytes taken and compressed; stream bytes produced */
    uint8_t *raw;                /* a partly fed batch */
    uint64_t raw_cap, fill;
    uint8_t *out;                /* payloads of the last batch (GPU: a table-first stream of it) */
    uint64_t out_cap;
    uint64_t *boff;              /* offset in out of each payload of the batch */
    uint32_t bfirst, bcount, bdecoded;
    uint8_t *frames;             /* frames of the batch (table-last) */
    piece *pieces;
    uint32_t npieces, ipiece;
    scz_chunk_entry *entries;
    uint8_t *meta;               /* placeholder, then header + table or table + footer */
    uint64_t tsize;
    /* passes over the data before the first chunk */
    int passing;                 /* 1: the range pass, 2: the codec's passes; 0: done */
    void *pass;                  /* the codec's pass state */
    uint32_t npass;              /* passes completed */
    uint64_t pass_fed;           /* bytes of the pass in progress */
    uint8_t carry[8];            /* an element split between two calls */
    size_t carry_n;
    double lo, hi;               /* range pass: finite values so far */
    uint64_t finite;
    uint8_t *bounce;             /* aligned copies of unaligned pieces */
};

static scz_status cs_fail(scz_cstream *cs, scz_status st) {
    cs->err = st;
    return st;
}

/* Codecs whose bound depends on the data (lossy REL and PSNR) are prepared
 * from the value range of the whole array and, where the codec asks for
 * them, passes over the data (scz_codec_ops: prepare_range, pass_*): a
 * range given by the caller spares the first pass. */
/* The float32 nearest to x. Sealed: gcc 12.2 at -O2 vectorizes two
 * (double)(float) round trips side by side and then folds them away. */
static double nearest_f32(double x) {
    float f = (float)x;
    SCZ_FP_SEAL(f);
    return (double)f;
}

static int needs_range(const scz_header *h, const scz_codec_ops *ops) {
    return ops->prepare_range && (h->eb_mode == SCZ_EB_REL || h->eb_mode == SCZ_EB_PSNR) && h->raw_bytes > 0;
}

/* Prepares the header from a value range (or none needed): the codec may
 * leave a pass state in cs->pass. */
static scz_status prepare_with(scz_cstream *cs, const double range[2]) {
    scz_ctx *ctx = cs->ctx;
    if (cs->ops->prepare_range) {
        static const double none[2] = {0, 0};
        return cs->ops->prepare_range(ctx, &cs->h, range ? range : none, &cs->pass);
    }
    /* the other codecs' prepare reads no data (internal.h) */
    return cs->ops->prepare ? cs->ops->prepare(ctx, &cs->h, NULL) : SCZ_OK;
}

void scz_cstream_free(scz_cstream *cs) {
    if (!cs) return;
    if (cs->pass && cs->ops->pass_free) cs->ops->pass_free(cs->pass);
    free(cs->bounce);
    free(cs->raw);
    free(cs->out);
    free(cs->boff);
    free(cs->frames);
    free(cs->pieces);
    free(cs->entries);
    free(cs->meta);
    free(cs);
}

/* The header is complete (the codec prepared): buffers sized from the
 * chunk bounds, then the first bytes go out: the header (table-last), or
 * zeros where header and table will go (table-first), so that an
 * unfinished output is not a valid stream. */
static scz_status start_output(scz_cstream *cs) {
    scz_ctx *ctx = cs->ctx;
    const scz_header h = cs->h;
    const scz_codec_ops *ops = cs->ops;
    const uint32_t N = h.num_chunks;
    cs->tsize = scz__table_size(N);
    uint64_t msize = SCZ_HEADER_SIZE + cs->tsize;
    if (msize > SIZE_MAX || (uint64_t)N * sizeof(scz_chunk_entry) > SIZE_MAX)
        return cs_fail(cs, scz__fail(ctx, SCZ_ERR_OVERFLOW, "the chunk table of %u chunks does not fit in memory", N));
    cs->meta = calloc(1, (size_t)msize);
    cs->entries = malloc(N ? (size_t)N * sizeof *cs->entries : 1);
    int ok = cs->meta && cs->entries;
    cs->batch = 1;
    if (ok && N) {
        uint64_t r0 = chunk_raw(&h, 0);
        uint64_t b0 = chunk_bound(ops, &h, 0), bl = chunk_bound(ops, &h, N - 1);
        uint64_t bmax = b0 > bl ? b0 : bl;
        if (cs->gpu) {
            uint64_t k = GPU_STREAM_BATCH_BYTES / r0;
            cs->batch = (uint32_t)(k < 1 ? 1 : k > N ? N : k);
        }
        /* payload area: a full batch (GPU: as a table-first stream of it) */
        uint64_t cap = 0, t;
        int okc = b0 && bl && scz__mul_ok(b0, cs->batch - 1, &t) && scz__add_ok(t, bmax, &cap);
        if (okc && cs->gpu) okc = scz__add_ok(cap, SCZ_HEADER_SIZE + scz__table_size(cs->batch), &cap);
        if (!okc || cap > SIZE_MAX || (uint64_t)cs->batch * r0 > SIZE_MAX)
            return cs_fail(cs, scz__fail(ctx, SCZ_ERR_OVERFLOW, "the compressed size bound of a chunk overflows"));
        cs->out_cap = cap;
        cs->raw_cap = (uint64_t)cs->batch * r0;
        cs->out = malloc((size_t)cap);
        cs->boff = malloc(cs->batch * sizeof *cs->boff);
        cs->frames = malloc((size_t)cs->batch * SCZ_FRAME_SIZE);
        ok = cs->out && cs->boff && cs->frames;
    }
    if (ok) cs->pieces = malloc((2 * (size_t)cs->batch + 1) * sizeof *cs->pieces);
    if (!ok || !cs->pieces)
        return cs_fail(cs, scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the stream buffers"));
    if (cs->table_last) {
        scz__header_write(&cs->h, cs->meta);
        cs->pieces[0] = (piece){cs->meta, SCZ_HEADER_SIZE};
    } else {
        cs->pieces[0] = (piece){cs->meta, (size_t)msize};
    }
    cs->npieces = 1;
    cs->ipiece = 0;
    cs->pos = cs->pieces[0].n;
    return SCZ_OK;
}

scz_status scz_cstream_begin(scz_ctx *ctx, const scz_params *params, const scz_shape *shape,
                             const double *value_range, scz_layout layout, scz_cstream **out) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    if (!out) return scz__fail(ctx, SCZ_ERR_ARG, "out must not be NULL");
    *out = NULL;
    if (layout != SCZ_LAYOUT_TABLE_FIRST && layout != SCZ_LAYOUT_TABLE_LAST)
        return scz__fail(ctx, SCZ_ERR_ARG, "unknown stream layout %d", (int)layout);
    scz_header h;
    const scz_codec_ops *ops;
    scz_status st = scz__plan(ctx, params, shape, &h, &ops);
    if (st) return st;
    if (value_range && needs_range(&h, ops)) {
        double lo = value_range[0], hi = value_range[1];
        if (!isfinite(lo) || !isfinite(hi) || lo > hi)
            return scz__fail(ctx, SCZ_ERR_ARG, "value range [%g, %g] is not two finite numbers min <= max", lo, hi);
        if (h.dtype == SCZ_DTYPE_F32 && (fabs(lo) > FLT_MAX || fabs(hi) > FLT_MAX))
            return scz__fail(ctx, SCZ_ERR_ARG, "value range [%g, %g] is beyond float32", lo, hi);
    }
    h.flags = layout == SCZ_LAYOUT_TABLE_LAST ? SCZ_FLAG_TABLE_LAST : 0;

    scz_cstream *cs = calloc(1, sizeof *cs);
    if (!cs) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the stream state");
    cs->ctx = ctx;
    cs->h = h;
    cs->ops = ops;
    cs->table_last = layout == SCZ_LAYOUT_TABLE_LAST;
#ifdef SCZ_HAVE_CUDA
    cs->gpu = ctx->cuda && scz__cuda_can_hdr(&h, 0);
#endif
    if (needs_range(&h, ops) && !value_range) {
        /* the value range comes from a first pass; the parameters are
         * checked now, on a stand-in range */
        static const double none[2] = {0, 0};
        scz_header t = h;
        void *ps = NULL;
        st = ops->prepare_range(ctx, &t, none, &ps);
        if (ps) ops->pass_free(ps);
        if (st) {
            free(cs);
            return st;
        }
        cs->passing = 1;
    } else {
        /* a float32 array's range is a pair of float32 values: a range
         * printed in decimal (%.9g) gives back exactly the data's */
        double given[2] = {0, 0};
        if (value_range) {
            given[0] = h.dtype == SCZ_DTYPE_F32 ? nearest_f32(value_range[0]) : value_range[0];
            given[1] = h.dtype == SCZ_DTYPE_F32 ? nearest_f32(value_range[1]) : value_range[1];
        }
        if ((st = prepare_with(cs, value_range ? given : NULL))) {
            scz_cstream_free(cs);
            return st;
        }
        if (cs->pass) cs->passing = 2;
        else if ((st = start_output(cs))) {
            scz_cstream_free(cs);
            return st;
        }
    }
    *out = cs;
    return SCZ_OK;
}

int scz_cstream_pass_needed(const scz_cstream *cs) { return cs && !cs->err && cs->passing != 0; }

/* Elements of a pass, whole and aligned, to the range or the codec. */
static void pass_elems(scz_cstream *cs, const uint8_t *p, uint64_t count) {
    if (!count) return;
    if (cs->passing == 1) {
        double a, b;
        uint64_t f = 0;
        scz__value_range(cs->h.dtype, p, count, &a, &b, &f, scz__threads(cs->ctx));
        if (f) {
            if (!cs->finite || a < cs->lo) cs->lo = a;
            if (!cs->finite || b > cs->hi) cs->hi = b;
            cs->finite += f;
        }
    } else {
        cs->ops->pass_feed(cs->pass, p, count);
    }
}

scz_status scz_cstream_pass_feed(scz_cstream *cs, const void *src, size_t n) {
    if (!cs) return SCZ_ERR_ARG;
    scz_ctx *ctx = cs->ctx;
    if (cs->err) return cs->err;
    if (!cs->passing) return scz__fail(ctx, SCZ_ERR_ARG, "no pass over the data is needed now");
    if (n && !src) return scz__fail(ctx, SCZ_ERR_ARG, "src must not be NULL");
    if ((uint64_t)n > cs->h.raw_bytes - cs->pass_fed)
        return scz__fail(ctx, SCZ_ERR_ARG, "%zu bytes fed beyond the end of the array in a pass", n);
    const size_t es = scz_dtype_size(cs->h.dtype);
    const uint8_t *p = src;
    cs->pass_fed += n;
    if (cs->carry_n) { /* complete the split element */
        size_t k = es - cs->carry_n < n ? es - cs->carry_n : n;
        memcpy(cs->carry + cs->carry_n, p, k);
        cs->carry_n += k;
        p += k;
        n -= k;
        if (cs->carry_n < es) return SCZ_OK;
        pass_elems(cs, cs->carry, 1);
        cs->carry_n = 0;
    }
    size_t whole = n / es * es;
    if ((uintptr_t)p % es == 0) {
        pass_elems(cs, p, whole / es);
    } else { /* an aligned copy, a piece at a time */
        enum { BOUNCE = 1 << 16 };
        if (!cs->bounce && !(cs->bounce = malloc(BOUNCE)))
            return cs_fail(cs, scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate a pass buffer"));
        for (size_t o = 0; o < whole; o += BOUNCE) {
            size_t k = whole - o < BOUNCE ? whole - o : BOUNCE;
            memcpy(cs->bounce, p + o, k);
            pass_elems(cs, cs->bounce, k / es);
        }
    }
    memcpy(cs->carry, p + whole, n - whole);
    cs->carry_n = n - whole;
    return SCZ_OK;
}

scz_status scz_cstream_pass_end(scz_cstream *cs) {
    if (!cs) return SCZ_ERR_ARG;
    scz_ctx *ctx = cs->ctx;
    if (cs->err) return cs->err;
    if (!cs->passing) return scz__fail(ctx, SCZ_ERR_ARG, "no pass over the data is needed now");
    if (cs->pass_fed != cs->h.raw_bytes)
        return scz__fail(ctx, SCZ_ERR_ARG, "a pass needs the whole array: %llu of %llu bytes fed",
                         (unsigned long long)cs->pass_fed, (unsigned long long)cs->h.raw_bytes);
    cs->pass_fed = 0;
    cs->npass++;
    scz_status st;
    if (cs->passing == 1) {
        double range[2] = {cs->finite ? cs->lo : 0, cs->finite ? cs->hi : 0};
        if ((st = prepare_with(cs, range))) return cs_fail(cs, st);
        cs->passing = cs->pass ? 2 : 0;
    } else {
        int again = 0;
        if ((st = cs->ops->pass_end(ctx, cs->pass, &cs->h, &again))) return cs_fail(cs, st);
        if (!again) {
            cs->ops->pass_free(cs->pass);
            cs->pass = NULL;
            cs->passing = 0;
        }
    }
    if (!cs->passing) return start_output(cs);
    return SCZ_OK;
}

/* Compresses chunks [next, next + count) from src (their raw bytes) into
 * out and queues their bytes. */
static scz_status compress_batch(scz_cstream *cs, const uint8_t *src, uint32_t count) {
    scz_ctx *ctx = cs->ctx;
    const scz_header *h = &cs->h;
    const uint32_t first = cs->next;
    const int threads = scz__threads(ctx);
    scz_status st;
    if (cs->gpu) {
#ifdef SCZ_HAVE_CUDA
        scz_header s;
        size_t size;
        sub_header(h, first, count, &s);
        held_progress p = hold_progress(ctx);
        st = scz__cuda_compress_host(ctx, &s, src, cs->out, (size_t)cs->out_cap, &size);
        release_progress(ctx, p);
        if (st) return cs_fail(cs, st);
        for (uint32_t j = 0; j < count; j++) {
            scz_chunk_entry e;
            scz__table_entry(cs->out + SCZ_HEADER_SIZE, j, &e);
            cs->boff[j] = e.offset;
            cs->entries[first + j] = e;
        }
#endif
    } else {
        uint64_t off = 0, roff0;
        scz_chunk_geom g;
        scz__chunk_geom(h, first, &g, &roff0, NULL);
        for (uint32_t j = 0; j < count; j++) {
            uint64_t roff, rb, csize = 0;
            uint32_t info = 0;
            scz__chunk_geom(h, first + j, &g, &roff, &rb);
            st = cs->ops->compress_chunk(ctx, h, &g, src + (roff - roff0), cs->out + off, cs->out_cap - off, &csize,
                                         &info);
            if (st) return cs_fail(cs, st);
            if (csize > cs->out_cap - off)
                return cs_fail(cs, scz__fail(ctx, SCZ_ERR_INTERNAL, "codec overran its capacity"));
            cs->boff[j] = off;
            cs->entries[first + j].size = csize;
            cs->entries[first + j].checksum = scz__checksum(cs->out + off, csize, h->cksum_block_log2, threads);
            cs->entries[first + j].info = info;
            off += csize;
        }
    }
    cs->npieces = cs->ipiece = 0;
    for (uint32_t j = 0; j < count; j++) {
        scz_chunk_entry *e = &cs->entries[first + j];
        if (cs->table_last) {
            uint8_t *f = cs->frames + (size_t)j * SCZ_FRAME_SIZE;
            scz__frame_write(e, first + j, f);
            cs->pieces[cs->npieces++] = (piece){f, SCZ_FRAME_SIZE};
            cs->pos += SCZ_FRAME_SIZE;
        }
        e->offset = cs->pos;
        cs->pieces[cs->npieces++] = (piece){cs->out + cs->boff[j], (size_t)e->size};
        cs->pos += e->size;
        cs->done_raw += chunk_raw(h, first + j);
        if (ctx->progress) ctx->progress(ctx->progress_user, cs->done_raw, h->raw_bytes);
    }
    cs->bfirst = first;
    cs->bcount = count;
    cs->bdecoded = 0;
    cs->next += count;
    return SCZ_OK;
}

scz_status scz_cstream_feed(scz_cstream *cs, const void *src, size_t n, size_t *used) {
    if (!cs) return SCZ_ERR_ARG;
    scz_ctx *ctx = cs->ctx;
    if (!used) return scz__fail(ctx, SCZ_ERR_ARG, "used must not be NULL");
    *used = 0;
    if (cs->err) return cs->err;
    if (cs->ended) return scz__fail(ctx, SCZ_ERR_ARG, "the stream has ended");
    if (cs->passing)
        return scz__fail(ctx, SCZ_ERR_ARG, "the bound needs a pass over the whole array first (scz_cstream_pass_feed)");
    if (n && !src) return scz__fail(ctx, SCZ_ERR_ARG, "src must not be NULL");
    if ((uint64_t)n > cs->h.raw_bytes - cs->fed)
        return scz__fail(ctx, SCZ_ERR_ARG, "%zu bytes fed beyond the end of the array (%llu of %llu bytes taken)", n,
                         (unsigned long long)cs->fed, (unsigned long long)cs->h.raw_bytes);
    const uint8_t *s = src;
    size_t u = 0;
    while (u < n && cs->ipiece == cs->npieces) {
        const uint32_t N = cs->h.num_chunks;
        uint32_t count = N - cs->next < cs->batch ? N - cs->next : cs->batch;
        uint64_t ra, rb, need;
        scz_chunk_geom g;
        scz__chunk_geom(&cs->h, cs->next, &g, &ra, NULL);
        scz__chunk_geom(&cs->h, cs->next + count - 1, &g, &rb, &need);
        need += rb - ra;
        scz_status st;
        if (cs->fill == 0 && n - u >= need) { /* whole chunks: straight from src */
            if ((st = compress_batch(cs, s + u, count))) return st;
            u += (size_t)need;
            cs->fed += need;
            continue;
        }
        if (!cs->raw && !(cs->raw = malloc((size_t)cs->raw_cap)))
            return cs_fail(cs, scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate a chunk buffer of %llu bytes",
                                         (unsigned long long)cs->raw_cap));
        size_t take = (size_t)(need - cs->fill < n - u ? need - cs->fill : n - u);
        memcpy(cs->raw + cs->fill, s + u, take);
        cs->fill += take;
        u += take;
        cs->fed += take;
        if (cs->fill == need) {
            cs->fill = 0;
            if ((st = compress_batch(cs, cs->raw, count))) return st;
        }
    }
    *used = u;
    return SCZ_OK;
}

scz_status scz_cstream_pull(scz_cstream *cs, const void **data, size_t *n) {
    if (!cs) return SCZ_ERR_ARG;
    if (!data || !n) return scz__fail(cs->ctx, SCZ_ERR_ARG, "data and n must not be NULL");
    *data = NULL;
    *n = 0;
    if (cs->err) return cs->err;
    if (cs->ipiece < cs->npieces) {
        *data = cs->pieces[cs->ipiece].p;
        *n = cs->pieces[cs->ipiece].n;
        cs->ipiece++;
    }
    return SCZ_OK;
}

scz_status scz_cstream_decode(scz_cstream *cs, void *dst, size_t cap, size_t *n) {
    if (!cs) return SCZ_ERR_ARG;
    scz_ctx *ctx = cs->ctx;
    if (!n) return scz__fail(ctx, SCZ_ERR_ARG, "n must not be NULL");
    *n = 0;
    if (cs->err) return cs->err;
    if (cs->bdecoded >= cs->bcount) return SCZ_OK;
    const uint32_t j = cs->bdecoded, i = cs->bfirst + j;
    const scz_chunk_entry *e = &cs->entries[i];
    scz_chunk_geom g;
    uint64_t rb;
    scz__chunk_geom(&cs->h, i, &g, NULL, &rb);
    if (!dst || cap < rb)
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination holds %zu bytes, chunk %u needs %llu", cap, i,
                         (unsigned long long)rb);
    scz_status st;
    if (cs->gpu) {
#ifdef SCZ_HAVE_CUDA
        scz_header s;
        sub_header(&cs->h, cs->bfirst, cs->bcount, &s);
        held_progress p = hold_progress(ctx);
        st = scz__cuda_decompress_host(ctx, &s, cs->out, j, 1, dst);
        release_progress(ctx, p);
#else
        st = SCZ_ERR_INTERNAL;
#endif
    } else {
        const uint8_t *pl = cs->out + cs->boff[j];
        if (scz__checksum(pl, e->size, cs->h.cksum_block_log2, scz__threads(ctx)) != e->checksum)
            st = scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk %u checksum mismatch: the chunk is corrupt", i);
        else
            st = cs->ops->decompress_chunk(ctx, &cs->h, &g, pl, e->size, e->info, dst);
    }
    if (st) return cs_fail(cs, st);
    cs->bdecoded++;
    *n = (size_t)rb;
    return SCZ_OK;
}

scz_status scz_cstream_end(scz_cstream *cs, const void **data, size_t *n, uint64_t *offset,
                           uint64_t *stream_size) {
    if (!cs) return SCZ_ERR_ARG;
    scz_ctx *ctx = cs->ctx;
    if (!data || !n || !offset) return scz__fail(ctx, SCZ_ERR_ARG, "data, n and offset must not be NULL");
    *data = NULL;
    *n = 0;
    *offset = 0;
    if (cs->err) return cs->err;
    if (cs->passing)
        return scz__fail(ctx, SCZ_ERR_ARG, "the bound needs a pass over the whole array first (scz_cstream_pass_feed)");
    if (cs->fed != cs->h.raw_bytes)
        return scz__fail(ctx, SCZ_ERR_ARG, "the stream ends after %llu of the array's %llu bytes",
                         (unsigned long long)cs->fed, (unsigned long long)cs->h.raw_bytes);
    if (cs->ipiece < cs->npieces)
        return scz__fail(ctx, SCZ_ERR_ARG, "compressed bytes are waiting: pull them before the end");
    const uint32_t N = cs->h.num_chunks;
    if (cs->table_last) {
        if (!cs->ended) {
            scz__table_write(cs->entries, N, cs->meta);
            scz__footer_write(cs->pos, cs->meta + cs->tsize);
        }
        *offset = cs->pos;
        *n = (size_t)cs->tsize + SCZ_FOOTER_SIZE;
    } else {
        if (!cs->ended) {
            scz__header_write(&cs->h, cs->meta);
            scz__table_write(cs->entries, N, cs->meta + SCZ_HEADER_SIZE);
        }
        *offset = 0;
        *n = SCZ_HEADER_SIZE + (size_t)cs->tsize;
    }
    *data = cs->meta;
    cs->ended = 1;
    if (stream_size) *stream_size = cs->pos + (cs->table_last ? *n : 0);
    return SCZ_OK;
}

scz_status scz_cstream_info(const scz_cstream *cs, scz_info *info) {
    if (!cs || !info) return SCZ_ERR_ARG;
    scz__info_from_header(&cs->h, cs->pos, info);
    return SCZ_OK;
}

static void chunk_info(const scz_header *h, uint32_t i, const scz_chunk_entry *e, scz_chunk_info *ci) {
    scz_chunk_geom g;
    scz__chunk_geom(h, i, &g, &ci->raw_offset, &ci->raw_bytes);
    ci->offset = e->offset;
    ci->size = e->size;
    ci->checksum = e->checksum;
    ci->codec_info = e->info;
}

scz_status scz_cstream_inspect_chunk(const scz_cstream *cs, uint32_t index, scz_chunk_info *info) {
    if (!cs || !info || index >= cs->next) return SCZ_ERR_ARG;
    chunk_info(&cs->h, index, &cs->entries[index], info);
    return SCZ_OK;
}

/* ================================================================== */
/* Decompression                                                       */
/* ================================================================== */

enum { D_HEADER, D_TABLE, D_FRAME, D_PAYLOAD, D_READY, D_TTABLE, D_FOOTER, D_DONE };

struct scz_dstream {
    scz_ctx *ctx;
    int state, gpu, table_last;
    scz_status err;            /* sticky */
    scz_header h;
    const scz_codec_ops *ops;
    uint8_t hdr[SCZ_HEADER_SIZE];
    uint8_t small[SCZ_FRAME_SIZE];
    uint8_t *meta;             /* table-first: header + table; table-last: the table the frames predict */
    uint64_t tsize;
    uint8_t *pay;              /* SCZ_GPU_CHUNK_PREFIX bytes, then the payload */
    uint64_t pay_cap;
    uint64_t fill;             /* bytes of the current item so far */
    uint32_t chunk;            /* current chunk */
    scz_chunk_entry cur;
    uint64_t pos;              /* stream bytes taken */
    uint64_t end;              /* stream size, once known */
    uint64_t table_off;
    uint64_t done_raw;
};

static scz_status ds_fail(scz_dstream *ds, scz_status st) {
    ds->err = st;
    return st;
}

scz_status scz_dstream_begin(scz_ctx *ctx, scz_dstream **out) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    if (!out) return scz__fail(ctx, SCZ_ERR_ARG, "out must not be NULL");
    *out = calloc(1, sizeof **out);
    if (!*out) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the stream state");
    (*out)->ctx = ctx;
    return SCZ_OK;
}

void scz_dstream_free(scz_dstream *ds) {
    if (!ds) return;
    free(ds->meta);
    free(ds->pay);
    free(ds);
}

/* Chunk ds->chunk's entry is in ds->cur: checks its size, readies the
 * payload buffer. */
static scz_status start_payload(scz_dstream *ds) {
    scz_ctx *ctx = ds->ctx;
    uint64_t bound = chunk_bound(ds->ops, &ds->h, ds->chunk);
    if (!bound || ds->cur.size > bound)
        return ds_fail(ds, scz__fail(ctx, SCZ_ERR_CORRUPT,
                                     "chunk %u: a payload of %llu bytes is more than the codec writes for it (%llu)",
                                     ds->chunk, (unsigned long long)ds->cur.size, (unsigned long long)bound));
    uint64_t need = SCZ_GPU_CHUNK_PREFIX + ds->cur.size;
    if (need > ds->pay_cap) {
        if (need > SIZE_MAX) return ds_fail(ds, scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk %u is too large", ds->chunk));
        free(ds->pay);
        ds->pay_cap = 0;
        if (!(ds->pay = malloc((size_t)need)))
            return ds_fail(ds, scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate %llu bytes for chunk %u",
                                         (unsigned long long)need, ds->chunk));
        ds->pay_cap = need;
    }
    ds->fill = 0;
    ds->state = ds->cur.size ? D_PAYLOAD : D_READY;
    return SCZ_OK;
}

/* Moves on to chunk ds->chunk (or past the last one). */
static scz_status next_chunk(scz_dstream *ds) {
    ds->fill = 0;
    if (ds->chunk == ds->h.num_chunks) {
        if (!ds->table_last) {
            ds->state = D_DONE;
            return SCZ_OK;
        }
        /* the table the frames predict, then its checksum */
        uint64_t tb = ds->tsize - 8;
        scz__st64(ds->meta + tb, scz_xxh64(ds->meta, tb, 0));
        ds->table_off = ds->pos;
        ds->state = D_TTABLE;
        return SCZ_OK;
    }
    if (ds->table_last) {
        ds->state = D_FRAME;
        return SCZ_OK;
    }
    scz__table_entry(ds->meta + SCZ_HEADER_SIZE, ds->chunk, &ds->cur);
    return start_payload(ds);
}

static scz_status header_done(scz_dstream *ds) {
    scz_ctx *ctx = ds->ctx;
    scz_status st = scz__header_read(ctx, ds->hdr, SCZ_HEADER_SIZE, &ds->h);
    if (st) return ds_fail(ds, st);
    ds->ops = scz__codec_ops(ds->h.codec);
    if (!ds->ops)
        return ds_fail(ds, scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' is not available in this build",
                                     scz_codec_name(ds->h.codec)));
    if (ds->ops->check_header && (st = ds->ops->check_header(ctx, &ds->h))) return ds_fail(ds, st);
    ds->table_last = (ds->h.flags & SCZ_FLAG_TABLE_LAST) != 0;
#ifdef SCZ_HAVE_CUDA
    ds->gpu = ctx->cuda && scz__cuda_can_hdr(&ds->h, 1);
#endif
    ds->tsize = scz__table_size(ds->h.num_chunks);
    uint64_t msize = ds->tsize + (ds->table_last ? 0 : SCZ_HEADER_SIZE);
    if (msize > SIZE_MAX || !(ds->meta = malloc((size_t)msize)))
        return ds_fail(ds, scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the chunk table of %u chunks",
                                     ds->h.num_chunks));
    ds->fill = 0;
    ds->chunk = 0;
    if (!ds->table_last) {
        memcpy(ds->meta, ds->hdr, SCZ_HEADER_SIZE);
        ds->state = D_TABLE;
        return SCZ_OK;
    }
    return next_chunk(ds);
}

/* Copies up to the rest of an item of `size` bytes into dst; returns the
 * bytes taken. */
static size_t take(scz_dstream *ds, uint8_t *dst, uint64_t size, const uint8_t *s, size_t n) {
    uint64_t want = size - ds->fill;
    size_t t = (size_t)(want < n ? want : n);
    memcpy(dst + ds->fill, s, t);
    ds->fill += t;
    ds->pos += t;
    return t;
}

scz_status scz_dstream_feed(scz_dstream *ds, const void *src, size_t n, size_t *used) {
    if (!ds) return SCZ_ERR_ARG;
    scz_ctx *ctx = ds->ctx;
    if (!used) return scz__fail(ctx, SCZ_ERR_ARG, "used must not be NULL");
    *used = 0;
    if (ds->err) return ds->err;
    if (n && !src) return scz__fail(ctx, SCZ_ERR_ARG, "src must not be NULL");
    const uint8_t *s = src;
    size_t u = 0;
    scz_status st = SCZ_OK;
    while (u < n && !st && ds->state != D_READY && ds->state != D_DONE) {
        switch (ds->state) {
        case D_HEADER: {
            uint64_t f0 = ds->fill;
            u += take(ds, ds->hdr, SCZ_HEADER_SIZE, s + u, n - u);
            if (f0 < SCZ_MAGIC_SIZE) { /* reject a wrong start at once */
                size_t k = (size_t)(ds->fill < SCZ_MAGIC_SIZE ? ds->fill : SCZ_MAGIC_SIZE);
                if (memcmp(ds->hdr, scz__magic, k) != 0)
                    st = ds_fail(ds, scz__fail(ctx, SCZ_ERR_NOT_SCZ, "not an scz stream (bad magic)"));
            }
            if (!st && ds->fill == SCZ_HEADER_SIZE) st = header_done(ds);
            break;
        }
        case D_TABLE:
            u += take(ds, ds->meta + SCZ_HEADER_SIZE, ds->tsize, s + u, n - u);
            if (ds->fill == ds->tsize) {
                uint64_t end;
                if ((st = scz__table_check(ctx, &ds->h, ds->meta, SIZE_MAX, &end))) {
                    ds_fail(ds, st);
                    break;
                }
                ds->end = end;
                st = next_chunk(ds);
            }
            break;
        case D_FRAME:
            u += take(ds, ds->small, SCZ_FRAME_SIZE, s + u, n - u);
            if (ds->fill == SCZ_FRAME_SIZE) {
                if ((st = scz__frame_read(ctx, ds->small, ds->chunk, &ds->cur))) {
                    ds_fail(ds, st);
                    break;
                }
                ds->cur.offset = ds->pos;
                /* the table entry this frame predicts */
                uint8_t *e = ds->meta + (uint64_t)ds->chunk * SCZ_CHUNK_ENTRY_SIZE;
                scz__st64(e, ds->cur.offset);
                scz__st64(e + 8, ds->cur.size);
                scz__st64(e + 16, ds->cur.checksum);
                scz__st32(e + 24, ds->cur.info);
                scz__st32(e + 28, 0);
                st = start_payload(ds);
            }
            break;
        case D_PAYLOAD:
            u += take(ds, ds->pay + SCZ_GPU_CHUNK_PREFIX, ds->cur.size, s + u, n - u);
            if (ds->fill == ds->cur.size) ds->state = D_READY;
            break;
        case D_TTABLE: {
            /* must repeat, byte for byte, the table the frames predict */
            uint64_t f0 = ds->fill, tb = ds->tsize - 8;
            uint64_t want = ds->tsize - f0;
            size_t k = (size_t)(want < n - u ? want : n - u);
            for (size_t q = 0; q < k; q++) {
                uint64_t at = f0 + q;
                if (s[u + q] != ds->meta[at]) {
                    if (at < tb)
                        st = scz__fail(ctx, SCZ_ERR_CORRUPT,
                                       "chunk %llu: the table entry at the end does not match the chunk's frame",
                                       (unsigned long long)(at / SCZ_CHUNK_ENTRY_SIZE));
                    else
                        st = scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk table checksum mismatch: the table is corrupt");
                    ds_fail(ds, st);
                    break;
                }
            }
            if (st) break;
            ds->fill += k;
            ds->pos += k;
            u += k;
            if (ds->fill == ds->tsize) {
                ds->fill = 0;
                ds->state = D_FOOTER;
            }
            break;
        }
        case D_FOOTER:
            u += take(ds, ds->small, SCZ_FOOTER_SIZE, s + u, n - u);
            if (ds->fill == SCZ_FOOTER_SIZE) {
                if ((st = scz__footer_check(ctx, ds->small, ds->table_off))) {
                    ds_fail(ds, st);
                    break;
                }
                ds->end = ds->pos;
                ds->state = D_DONE;
            }
            break;
        }
    }
    *used = u;
    return st;
}

scz_status scz_dstream_info(const scz_dstream *ds, scz_info *info) {
    if (!ds || !info) return SCZ_ERR_ARG;
    if (ds->state == D_HEADER || !ds->ops)
        return scz__fail(ds->ctx, SCZ_ERR_ARG, "the stream header has not been fed yet");
    scz__info_from_header(&ds->h, ds->end, info);
    return SCZ_OK;
}

scz_status scz_dstream_inspect_chunk(const scz_dstream *ds, uint32_t index, scz_chunk_info *info) {
    if (!ds || !info || ds->state == D_HEADER || !ds->meta) return SCZ_ERR_ARG;
    int known;
    if (!ds->table_last) known = ds->state != D_TABLE && index < ds->h.num_chunks;
    else known = index < ds->chunk || (index == ds->chunk && (ds->state == D_PAYLOAD || ds->state == D_READY));
    if (!known) return SCZ_ERR_ARG;
    scz_chunk_entry e;
    scz__table_entry(ds->meta + (ds->table_last ? 0 : SCZ_HEADER_SIZE), index, &e);
    chunk_info(&ds->h, index, &e, info);
    return SCZ_OK;
}

scz_status scz_dstream_pull(scz_dstream *ds, void *dst, size_t cap, size_t *n) {
    if (!ds) return SCZ_ERR_ARG;
    scz_ctx *ctx = ds->ctx;
    if (!n) return scz__fail(ctx, SCZ_ERR_ARG, "n must not be NULL");
    *n = 0;
    if (ds->err) return ds->err;
    if (ds->state != D_READY) return SCZ_OK;
    const uint32_t i = ds->chunk;
    scz_chunk_geom g;
    uint64_t rb;
    scz__chunk_geom(&ds->h, i, &g, NULL, &rb);
    if (!dst || cap < rb)
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination holds %zu bytes, chunk %u needs %llu", cap, i,
                         (unsigned long long)rb);
    scz_status st;
    const uint8_t *pl = ds->pay + SCZ_GPU_CHUNK_PREFIX;
    if (ds->gpu) {
#ifdef SCZ_HAVE_CUDA
        st = scz__stream_gpu_chunk(ctx, &ds->h, i, &ds->cur, ds->pay, dst);
#else
        st = SCZ_ERR_INTERNAL;
#endif
    } else if (scz__checksum(pl, ds->cur.size, ds->h.cksum_block_log2, scz__threads(ctx)) != ds->cur.checksum) {
        st = scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk %u checksum mismatch: the chunk is corrupt", i);
    } else {
        st = ds->ops->decompress_chunk(ctx, &ds->h, &g, pl, ds->cur.size, ds->cur.info, dst);
    }
    if (st) return ds_fail(ds, st);
    ds->done_raw += rb;
    if (ctx->progress) ctx->progress(ctx->progress_user, ds->done_raw, ds->h.raw_bytes);
    ds->chunk++;
    if ((st = next_chunk(ds))) return st;
    *n = (size_t)rb;
    return SCZ_OK;
}

scz_status scz_dstream_end(scz_dstream *ds) {
    if (!ds) return SCZ_ERR_ARG;
    scz_ctx *ctx = ds->ctx;
    if (ds->err) return ds->err;
    unsigned long long at = (unsigned long long)ds->pos;
    switch (ds->state) {
    case D_DONE: return SCZ_OK;
    case D_READY:
        return scz__fail(ctx, SCZ_ERR_ARG, "chunk %u is complete but has not been pulled", ds->chunk);
    case D_HEADER: {
        scz_header h;
        scz_status st = scz__header_read(ctx, ds->hdr, (size_t)ds->fill, &h);
        return st ? st : scz__fail(ctx, SCZ_ERR_INTERNAL, "header state with a complete header");
    }
    case D_TABLE:
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside the chunk table (%llu of %llu bytes)", at,
                         (unsigned long long)(SCZ_HEADER_SIZE + ds->tsize));
    case D_FRAME:
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated in the frame of chunk %u (after %llu bytes)",
                         ds->chunk, at);
    case D_PAYLOAD:
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside chunk %u (%llu of its %llu bytes)",
                         ds->chunk, (unsigned long long)ds->fill, (unsigned long long)ds->cur.size);
    case D_TTABLE:
        return scz__fail(ctx, SCZ_ERR_TRUNCATED,
                         "stream truncated inside the chunk table at its end (after %llu bytes)", at);
    case D_FOOTER:
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside the footer (after %llu bytes)", at);
    }
    return scz__fail(ctx, SCZ_ERR_INTERNAL, "unknown decoder state");
}

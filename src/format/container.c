/*
 * container.c -- header, chunk table, chunk geometry and blocked checksum.
 * Implements docs/FORMAT.md sections 2 (header), 3 (chunking),
 * 4 (chunk table), 5 (checksums) and 9 (the table-last layout: frames,
 * trailing table, footer).
 */
#include "container.h"

#include <math.h>
#include <stdlib.h>
#include "../util/error.h"
#include "../util/xxh64.h"
#ifdef _OPENMP
#include <omp.h>
#endif

const uint8_t scz__magic[SCZ_MAGIC_SIZE] = {0x89, 'S', 'C', 'Z', 0x0D, 0x0A, 0x1A, 0x0A};
const uint8_t scz__footer_magic[8] = {0x89, 'S', 'C', 'Z', 'E', 'N', 'D', 0x0A};

/* Header field offsets (FORMAT.md section 2). */
enum {
    H_MAGIC = 0, H_VERSION = 8, H_HSIZE = 10, H_CODEC = 12, H_DTYPE = 13, H_RANK = 14,
    H_FLAGS = 15, H_DIMS = 16, H_RAW = 48, H_SLAB = 56, H_NCHUNK = 64, H_CKLOG = 68,
    H_EBMODE = 69, H_RESERVED = 70, H_EBUSER = 72, H_EBABS = 80, H_KNOBS = 88,
    H_PAD = 112, H_CKSUM = 120
};

void scz__header_write(const scz_header *h, uint8_t *o) {
    memset(o, 0, SCZ_HEADER_SIZE);
    memcpy(o + H_MAGIC, scz__magic, SCZ_MAGIC_SIZE);
    scz__st16(o + H_VERSION, h->version);
    scz__st16(o + H_HSIZE, SCZ_HEADER_SIZE);
    o[H_CODEC] = (uint8_t)h->codec;
    o[H_DTYPE] = (uint8_t)h->dtype;
    o[H_RANK] = (uint8_t)h->rank;
    o[H_FLAGS] = h->flags;
    for (int i = 0; i < SCZ_MAX_RANK; i++)
        scz__st64(o + H_DIMS + 8 * i, (uint32_t)i < h->rank ? h->dims[i] : 1);
    scz__st64(o + H_RAW, h->raw_bytes);
    scz__st64(o + H_SLAB, h->chunk_slab);
    scz__st32(o + H_NCHUNK, h->num_chunks);
    o[H_CKLOG] = h->cksum_block_log2;
    o[H_EBMODE] = (uint8_t)h->eb_mode;
    scz__stf64(o + H_EBUSER, h->eb_user);
    scz__stf64(o + H_EBABS, h->eb_abs);
    for (int i = 0; i < SCZ_NUM_KNOBS; i++) scz__st32(o + H_KNOBS + 4 * i, h->knobs[i]);
    scz__st64(o + H_CKSUM, scz_xxh64(o, H_CKSUM, 0));
}

uint64_t scz__slow_extent(const scz_header *h) {
    return h->rank ? h->dims[h->rank - 1] : 0;
}

uint64_t scz__slice_elems(const scz_header *h) {
    uint64_t s = 1;
    for (uint32_t i = 0; i + 1 < h->rank; i++) s *= h->dims[i]; /* checked in header_read */
    return s;
}

scz_status scz__header_read(scz_ctx *ctx, const uint8_t *s, size_t n, scz_header *h) {
    if (n < SCZ_MAGIC_SIZE) {
        if (memcmp(s, scz__magic, n) == 0)
            return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream of %zu bytes is too short for an scz header", n);
        return scz__fail(ctx, SCZ_ERR_NOT_SCZ, "not an scz stream (bad magic)");
    }
    if (memcmp(s, scz__magic, SCZ_MAGIC_SIZE) != 0)
        return scz__fail(ctx, SCZ_ERR_NOT_SCZ, "not an scz stream (bad magic)");
    if (n < SCZ_HEADER_SIZE)
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside the header (%zu of %u bytes)",
                         n, SCZ_HEADER_SIZE);
    memset(h, 0, sizeof *h);
    h->version = scz__ld16(s + H_VERSION);
    if (h->version == 0 || h->version > SCZ_FORMAT_VERSION)
        return scz__fail(ctx, SCZ_ERR_VERSION,
                         "stream format version %u is not supported (this library reads up to %u)",
                         h->version, SCZ_FORMAT_VERSION);
    if (scz__ld64(s + H_CKSUM) != scz_xxh64(s, H_CKSUM, 0))
        return scz__fail(ctx, SCZ_ERR_CHECKSUM, "header checksum mismatch: the header is corrupt");
    if (scz__ld16(s + H_HSIZE) != SCZ_HEADER_SIZE)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "header size field %u is not %u",
                         scz__ld16(s + H_HSIZE), SCZ_HEADER_SIZE);
    h->codec = (scz_codec)s[H_CODEC];
    h->dtype = (scz_dtype)s[H_DTYPE];
    h->rank = s[H_RANK];
    h->flags = s[H_FLAGS];
    if (!scz_codec_name(h->codec))
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "unknown codec id %u", s[H_CODEC]);
    if (!scz_dtype_size(h->dtype))
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "unknown dtype id %u", s[H_DTYPE]);
    if (h->rank < 1 || h->rank > SCZ_MAX_RANK)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "rank %u out of range 1..%d", h->rank, SCZ_MAX_RANK);
    if (h->flags & ~SCZ_FLAG_TABLE_LAST)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "unknown header flags 0x%02x", h->flags);
    uint64_t count = 1;
    int empty = 0;
    for (int i = 0; i < SCZ_MAX_RANK; i++) {
        h->dims[i] = scz__ld64(s + H_DIMS + 8 * i);
        if ((uint32_t)i >= h->rank) {
            if (h->dims[i] != 1)
                return scz__fail(ctx, SCZ_ERR_CORRUPT, "unused dimension %d is %llu, not 1", i,
                                 (unsigned long long)h->dims[i]);
            continue;
        }
        if (h->dims[i] == 0) empty = 1;
        else if (!scz__mul_ok(count, h->dims[i], &count))
            return scz__fail(ctx, SCZ_ERR_OVERFLOW, "element count overflows 64 bits");
    }
    if (empty) count = 0;
    uint64_t raw;
    if (!scz__mul_ok(count, scz_dtype_size(h->dtype), &raw) || raw > (uint64_t)SIZE_MAX)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "raw size overflows");
    h->raw_bytes = scz__ld64(s + H_RAW);
    if (h->raw_bytes != raw)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "raw size %llu does not match the dimensions (%llu)",
                         (unsigned long long)h->raw_bytes, (unsigned long long)raw);
    h->chunk_slab = scz__ld64(s + H_SLAB);
    h->num_chunks = scz__ld32(s + H_NCHUNK);
    uint64_t slow = scz__slow_extent(h);
    if (count == 0) {
        if (h->num_chunks != 0 || h->chunk_slab != 0)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "empty array with %u chunks of slab %llu", h->num_chunks,
                             (unsigned long long)h->chunk_slab);
    } else {
        if (h->chunk_slab == 0 || h->chunk_slab > slow)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk slab %llu out of range 1..%llu",
                             (unsigned long long)h->chunk_slab, (unsigned long long)slow);
        uint64_t want = slow / h->chunk_slab + (slow % h->chunk_slab != 0);
        if (want != h->num_chunks)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk count %u does not match slab (%llu expected)",
                             h->num_chunks, (unsigned long long)want);
        uint64_t chunk_raw = scz__slice_elems(h) * h->chunk_slab * scz_dtype_size(h->dtype);
        if (chunk_raw > SCZ_MAX_CHUNK_BYTES && h->chunk_slab > 1)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk raw size %llu exceeds the 1 GiB limit",
                             (unsigned long long)chunk_raw);
    }
    h->cksum_block_log2 = s[H_CKLOG];
    if (h->cksum_block_log2 < 10 || h->cksum_block_log2 > 30)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "checksum block size 2^%u out of range", h->cksum_block_log2);
    h->eb_mode = (scz_eb_mode)s[H_EBMODE];
    if (s[H_EBMODE] > SCZ_EB_PSNR)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "unknown error-bound mode %u", s[H_EBMODE]);
    if (scz__ld16(s + H_RESERVED) != 0 || scz__ld64(s + H_PAD) != 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "reserved header bytes are not zero");
    h->eb_user = scz__ldf64(s + H_EBUSER);
    h->eb_abs = scz__ldf64(s + H_EBABS);
    for (int i = 0; i < SCZ_NUM_KNOBS; i++) h->knobs[i] = scz__ld32(s + H_KNOBS + 4 * i);
    return SCZ_OK;
}

uint64_t scz__table_size(uint32_t num_chunks) {
    return (uint64_t)num_chunks * SCZ_CHUNK_ENTRY_SIZE + 8;
}

void scz__table_write(const scz_chunk_entry *e, uint32_t n, uint8_t *o) {
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *p = o + (uint64_t)i * SCZ_CHUNK_ENTRY_SIZE;
        scz__st64(p, e[i].offset);
        scz__st64(p + 8, e[i].size);
        scz__st64(p + 16, e[i].checksum);
        scz__st32(p + 24, e[i].info);
        scz__st32(p + 28, 0);
    }
    uint64_t tb = (uint64_t)n * SCZ_CHUNK_ENTRY_SIZE;
    scz__st64(o + tb, scz_xxh64(o, tb, 0));
}

void scz__table_entry(const uint8_t *t, uint32_t i, scz_chunk_entry *e) {
    const uint8_t *p = t + (uint64_t)i * SCZ_CHUNK_ENTRY_SIZE;
    e->offset = scz__ld64(p);
    e->size = scz__ld64(p + 8);
    e->checksum = scz__ld64(p + 16);
    e->info = scz__ld32(p + 24);
}

scz_status scz__table_check(scz_ctx *ctx, const scz_header *h, const uint8_t *s, size_t n,
                            uint64_t *end) {
    if (h->flags & SCZ_FLAG_TABLE_LAST)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED,
                         "stream in the table-last layout (written to a pipe): this reader needs the chunk table "
                         "after the header (decode it with scz_decompress or scz_dstream, or rewrite it with "
                         "the scz tool to a file)");
    uint64_t tsize = scz__table_size(h->num_chunks);
    uint64_t pos = SCZ_HEADER_SIZE + tsize;
    if (n < pos)
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside the chunk table (%zu of %llu bytes)",
                         n, (unsigned long long)pos);
    const uint8_t *t = s + SCZ_HEADER_SIZE;
    uint64_t tb = tsize - 8;
    if (scz__ld64(t + tb) != scz_xxh64(t, tb, 0))
        return scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk table checksum mismatch: the table is corrupt");
    for (uint32_t i = 0; i < h->num_chunks; i++) {
        scz_chunk_entry e;
        scz__table_entry(t, i, &e);
        if (e.offset != pos)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk %u starts at %llu, expected %llu", i,
                             (unsigned long long)e.offset, (unsigned long long)pos);
        if (scz__ld32(t + (uint64_t)i * SCZ_CHUNK_ENTRY_SIZE + 28) != 0)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk %u: reserved field is not zero", i);
        if (!scz__add_ok(pos, e.size, &pos))
            return scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk %u size overflows", i);
    }
    if (n < pos)
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated: %zu bytes of %llu", n,
                         (unsigned long long)pos);
    *end = pos;
    return SCZ_OK;
}

/* ---- table-last layout (FORMAT.md section 9) ---- */

enum { F_SIZE = 0, F_CKSUM = 8, F_INFO = 16, F_INDEX = 20, F_FCKSUM = 24 };

void scz__frame_write(const scz_chunk_entry *e, uint32_t index, uint8_t *o) {
    scz__st64(o + F_SIZE, e->size);
    scz__st64(o + F_CKSUM, e->checksum);
    scz__st32(o + F_INFO, e->info);
    scz__st32(o + F_INDEX, index);
    scz__st64(o + F_FCKSUM, scz_xxh64(o, F_FCKSUM, 0));
}

scz_status scz__frame_read(scz_ctx *ctx, const uint8_t *p, uint32_t index, scz_chunk_entry *e) {
    if (scz__ld64(p + F_FCKSUM) != scz_xxh64(p, F_FCKSUM, 0))
        return scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk %u: frame checksum mismatch: the frame is corrupt", index);
    if (scz__ld32(p + F_INDEX) != index)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "frame of chunk %u says chunk %u: chunks are out of order", index,
                         scz__ld32(p + F_INDEX));
    e->size = scz__ld64(p + F_SIZE);
    e->checksum = scz__ld64(p + F_CKSUM);
    e->info = scz__ld32(p + F_INFO);
    return SCZ_OK;
}

void scz__footer_write(uint64_t table_off, uint8_t *o) {
    scz__st64(o, table_off);
    memcpy(o + 8, scz__footer_magic, 8);
}

scz_status scz__footer_check(scz_ctx *ctx, const uint8_t *p, uint64_t table_off) {
    if (memcmp(p + 8, scz__footer_magic, 8) != 0)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "no end marker after the chunk table: the footer is corrupt");
    if (scz__ld64(p) != table_off)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "footer gives the table offset %llu, the table starts at %llu",
                         (unsigned long long)scz__ld64(p), (unsigned long long)table_off);
    return SCZ_OK;
}

/* Walks the frames from the header on; *pos receives the offset after the
 * last payload (the start of the table). */
static scz_status walk_frames(scz_ctx *ctx, const scz_header *h, const uint8_t *s, size_t n, uint64_t *pos_out) {
    uint64_t pos = SCZ_HEADER_SIZE;
    for (uint32_t i = 0; i < h->num_chunks; i++) {
        scz_chunk_entry e = {0, 0, 0, 0};
        if (n - pos < SCZ_FRAME_SIZE)
            return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated in the frame of chunk %u (%zu bytes)", i, n);
        scz_status st = scz__frame_read(ctx, s + pos, i, &e);
        if (st) return st;
        pos += SCZ_FRAME_SIZE;
        if (e.size > n - pos)
            return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside chunk %u (%zu bytes, the payload ends at %llu)",
                             i, n, (unsigned long long)(pos + e.size));
        pos += e.size;
    }
    *pos_out = pos;
    return SCZ_OK;
}

scz_status scz__layout_check(scz_ctx *ctx, const scz_header *h, const uint8_t *s, size_t n, uint64_t *table_off,
                             uint64_t *end) {
    if (!(h->flags & SCZ_FLAG_TABLE_LAST)) {
        *table_off = SCZ_HEADER_SIZE;
        return scz__table_check(ctx, h, s, n, end);
    }
    uint64_t pos = 0, tsize = scz__table_size(h->num_chunks);
    scz_status st = walk_frames(ctx, h, s, n, &pos);
    if (st) return st;
    if (n - pos < tsize)
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside the chunk table at its end (%zu of %llu bytes)",
                         n, (unsigned long long)(pos + tsize));
    const uint8_t *t = s + pos;
    uint64_t tb = tsize - 8;
    if (scz__ld64(t + tb) != scz_xxh64(t, tb, 0))
        return scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk table checksum mismatch: the table is corrupt");
    /* the table repeats the frames */
    uint64_t p = SCZ_HEADER_SIZE;
    for (uint32_t i = 0; i < h->num_chunks; i++) {
        scz_chunk_entry f = {0, 0, 0, 0}, e;
        scz__frame_read(NULL, s + p, i, &f); /* verified by walk_frames */
        p += SCZ_FRAME_SIZE;
        scz__table_entry(t, i, &e);
        if (e.offset != p || e.size != f.size || e.checksum != f.checksum || e.info != f.info ||
            scz__ld32(t + (uint64_t)i * SCZ_CHUNK_ENTRY_SIZE + 28) != 0)
            return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk %u: the table entry does not match the chunk's frame", i);
        p += f.size;
    }
    if (n - pos - tsize < SCZ_FOOTER_SIZE)
        return scz__fail(ctx, SCZ_ERR_TRUNCATED, "stream truncated inside the footer (%zu of %llu bytes)", n,
                         (unsigned long long)(pos + tsize + SCZ_FOOTER_SIZE));
    if ((st = scz__footer_check(ctx, t + tsize, pos))) return st;
    *table_off = pos;
    *end = pos + tsize + SCZ_FOOTER_SIZE;
    return SCZ_OK;
}

void scz__chunk_geom(const scz_header *h, uint32_t i, scz_chunk_geom *g, uint64_t *raw_offset,
                     uint64_t *raw_bytes) {
    uint64_t slow = scz__slow_extent(h);
    uint64_t first = (uint64_t)i * h->chunk_slab;
    uint64_t len = slow - first < h->chunk_slab ? slow - first : h->chunk_slab;
    uint64_t slice = scz__slice_elems(h);
    g->dtype = h->dtype;
    g->esize = (uint32_t)scz_dtype_size(h->dtype);
    g->dims[0] = g->dims[1] = g->dims[2] = 1;
    if (h->rank <= 3) {
        g->rank = h->rank;
        for (uint32_t d = 0; d + 1 < h->rank; d++) g->dims[d] = h->dims[d];
        g->dims[h->rank - 1] = len;
    } else { /* fold w into z */
        g->rank = 3;
        g->dims[0] = h->dims[0];
        g->dims[1] = h->dims[1];
        g->dims[2] = h->dims[2] * len;
    }
    g->count = slice * len;
    if (raw_offset) *raw_offset = first * slice * g->esize;
    if (raw_bytes) *raw_bytes = g->count * g->esize;
}

/* Block hashes of 8 consecutive whole blocks of bs bytes (bs >= 32) at p,
 * on x86-64 CPUs with AVX-512 (64-bit multiplies in vectors): the four
 * accumulators of two blocks in one 512-bit register, four registers in
 * flight; the same rounds as scz_xxh64, so the same hashes (~2x the scalar
 * loop's speed in cache and from memory: the scalar loop is bound by its
 * 64-bit multiplies). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SCZ_CKSUM_X8 1
__attribute__((target("avx512f,avx512dq"))) static void block_hashes_x8(const uint8_t *p, uint64_t bs,
                                                                           uint64_t *out) {
    const __m512i P1 = _mm512_set1_epi64((long long)SCZ_XXP1), P2 = _mm512_set1_epi64((long long)SCZ_XXP2);
    const __m512i init = _mm512_set_epi64((long long)(0 - SCZ_XXP1), 0, (long long)SCZ_XXP2,
                                          (long long)(SCZ_XXP1 + SCZ_XXP2), (long long)(0 - SCZ_XXP1), 0,
                                          (long long)SCZ_XXP2, (long long)(SCZ_XXP1 + SCZ_XXP2));
    __m512i a[4];
    for (int j = 0; j < 4; j++) a[j] = init;
    for (uint64_t s = 0; s < bs; s += 32)
        for (int j = 0; j < 4; j++) {
            const __m256i lo = _mm256_loadu_si256((const __m256i *)(p + 2 * j * bs + s));
            const __m256i hi = _mm256_loadu_si256((const __m256i *)(p + (2 * j + 1) * bs + s));
            const __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
            a[j] = _mm512_mullo_epi64(_mm512_rol_epi64(_mm512_add_epi64(a[j], _mm512_mullo_epi64(w, P2)), 31), P1);
        }
    for (int j = 0; j < 4; j++) {
        uint64_t v[8];
        _mm512_storeu_si512((void *)v, a[j]);
        for (int k = 0; k < 2; k++) {
            const scz_xxh_acc acc = {v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]};
            out[2 * j + k] = scz_xxh_finish(&acc, bs, p, 0); /* bs % 32 == 0: no tail bytes read */
        }
    }
}
#endif

void scz__block_hashes(const uint8_t *p, uint64_t n, unsigned block_log2, uint64_t b0, uint64_t b1, uint64_t *out) {
    const uint64_t bs = (uint64_t)1 << block_log2;
    uint64_t b = b0;
#ifdef SCZ_CKSUM_X8
    /* __builtin_cpu_supports reads the CPU model filled in at start-up */
    if (block_log2 >= 5 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
        for (; b + 8 <= b1 && (b + 8) << block_log2 <= n; b += 8)
            block_hashes_x8(p + (b << block_log2), bs, out + (b - b0));
#endif
    for (; b < b1; b++) {
        const uint64_t off = b << block_log2;
        out[b - b0] = scz_xxh64(p + off, n - off < bs ? n - off : bs, 0);
    }
}

uint64_t scz__checksum(const uint8_t *p, uint64_t n, unsigned block_log2, int threads) {
    uint64_t bs = (uint64_t)1 << block_log2;
    uint64_t nb = (n + bs - 1) >> block_log2;
    /* Hash the per-block hashes in groups through a small stack buffer so no
     * allocation is needed; the result equals XXH64 over all block hashes
     * as little-endian u64 (G is a multiple of 4, so every group but the
     * last feeds whole 32-byte stripes). */
    scz_xxh_acc acc;
    scz_xxh_init(&acc, 0);
    enum { G = 512 };
    uint64_t buf[G];
    uint64_t h = 0;
    for (uint64_t b0 = 0;; b0 += G) {
        int64_t m = (int64_t)(nb - b0 < G ? nb - b0 : G);
        /* 8 blocks a step (scz__block_hashes: 8 at once where it can) */
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (threads > 1 && m > 8)
        for (int64_t k = 0; k < (m + 7) / 8; k++) {
            const uint64_t a = b0 + 8 * (uint64_t)k, e = a + 8 < b0 + (uint64_t)m ? a + 8 : b0 + (uint64_t)m;
            scz__block_hashes(p, n, block_log2, a, e, buf + 8 * k);
        }
        int64_t k = 0;
        for (; k + 4 <= m; k += 4) scz_xxh_stripe(&acc, buf[k], buf[k + 1], buf[k + 2], buf[k + 3]);
        if (m < G) { /* last group: converge, then the remaining words */
            h = scz_xxh_converge(&acc, nb * 8, 0);
            for (; k < m; k++) h = scz_xxh_tail8(h, buf[k]);
            break;
        }
    }
    return scz_xxh_avalanche(h);
}

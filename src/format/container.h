/*
 * container.h -- the scz container: header, chunk table, chunk geometry and
 * the blocked checksum (docs/FORMAT.md sections 2-5).
 */
#ifndef SCZ_CONTAINER_H
#define SCZ_CONTAINER_H

#include "../internal.h"

#define SCZ_MAGIC_SIZE 8
extern const uint8_t scz__magic[SCZ_MAGIC_SIZE];

#define SCZ_HEADER_SIZE 128u
#define SCZ_CHUNK_ENTRY_SIZE 32u
#define SCZ_CKSUM_BLOCK_LOG2 12u /* 4 KiB checksum blocks */

/* Header flags (FORMAT.md section 2). TABLE_LAST: the layout of section 9,
 * framed payloads with the chunk table and a footer at the end. */
#define SCZ_FLAG_TABLE_LAST 0x01u
#define SCZ_FRAME_SIZE 32u   /* chunk frame before each payload (section 9.1) */
#define SCZ_FOOTER_SIZE 16u  /* after the table (section 9.2) */
extern const uint8_t scz__footer_magic[8];

typedef struct scz_chunk_entry {
    uint64_t offset;   /* absolute offset of the payload in the stream */
    uint64_t size;
    uint64_t checksum;
    uint32_t info;
} scz_chunk_entry;

/* Serialises hdr into out[SCZ_HEADER_SIZE] (checksum included). */
void scz__header_write(const scz_header *hdr, uint8_t *out);

/* Parses and validates a header: magic, checksum, version, codec, dtype,
 * rank, dims, sizes, chunking. */
scz_status scz__header_read(scz_ctx *ctx, const uint8_t *src, size_t n, scz_header *hdr);

/* Bytes of the chunk table including its trailing checksum; 0 on overflow. */
uint64_t scz__table_size(uint32_t num_chunks);

/* Serialises the chunk table (entries + checksum) to out. */
void scz__table_write(const scz_chunk_entry *e, uint32_t n, uint8_t *out);

/* Reads entry i of a table already validated by scz__table_check. */
void scz__table_entry(const uint8_t *table, uint32_t i, scz_chunk_entry *e);

/* Validates the table of a stream whose header is hdr: its checksum, that
 * payloads follow each other from the end of the table, and that the stream
 * holds them all. On success *end is the total stream size. A table-last
 * stream (section 9) is refused with SCZ_ERR_UNSUPPORTED: this is the
 * check of readers that need the table after the header. */
scz_status scz__table_check(scz_ctx *ctx, const scz_header *hdr, const uint8_t *src,
                            size_t n, uint64_t *end);

/* Either layout: the checks of scz__table_check for a table-first stream,
 * or for a table-last one (section 9) every frame, the table (which must
 * repeat the frames) and the footer. *table_off is where the table starts
 * (entries as in section 4), *end the total stream size. */
scz_status scz__layout_check(scz_ctx *ctx, const scz_header *hdr, const uint8_t *src, size_t n,
                             uint64_t *table_off, uint64_t *end);

/* Chunk frame (section 9.1): written from entry e of chunk `index`; read
 * back with its checksum and index verified (e->offset is left alone). */
void scz__frame_write(const scz_chunk_entry *e, uint32_t index, uint8_t *out);
scz_status scz__frame_read(scz_ctx *ctx, const uint8_t *p, uint32_t index, scz_chunk_entry *e);

/* Footer (section 9.2) of a table starting at table_off. */
void scz__footer_write(uint64_t table_off, uint8_t *out);
scz_status scz__footer_check(scz_ctx *ctx, const uint8_t *p, uint64_t table_off);

/* Number of elements of the slowest dimension and bytes of one slice of it. */
uint64_t scz__slow_extent(const scz_header *hdr);
uint64_t scz__slice_elems(const scz_header *hdr);

/* Geometry of chunk i, and its raw byte offset and size. */
void scz__chunk_geom(const scz_header *hdr, uint32_t i, scz_chunk_geom *g,
                     uint64_t *raw_offset, uint64_t *raw_bytes);

/* Blocked XXH64 of a payload (FORMAT.md section 5). threads <= 1: serial. */
uint64_t scz__checksum(const uint8_t *p, uint64_t n, unsigned block_log2, int threads);
/* The same in pieces, one thread: the hashes of blocks [b0, b1) of the
 * n-byte payload p into out[0 .. b1 - b0); the checksum is then
 * scz_xxh64_words(all nb block hashes, nb, 0). For codecs that hash their
 * output while it is in cache (scz_codec_ops.compress_chunk_ck). */
void scz__block_hashes(const uint8_t *p, uint64_t n, unsigned block_log2, uint64_t b0, uint64_t b1, uint64_t *out);

#endif

/*
 * testutil.h -- shared helpers of the test programs: checks that count
 * failures, the skip convention (exit 77 = skipped), and loading of the
 * real data sets in $SCZ_DATA_DIR.
 */
#ifndef SCZ_TESTUTIL_H
#define SCZ_TESTUTIL_H

#include "scz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_SKIP_CODE 77

extern int tu_failures;
extern int tu_checks;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        tu_checks++;                                                              \
        if (!(cond)) {                                                            \
            tu_failures++;                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)

/* Ends a test program: prints "N passed, N failed" and returns the exit code. */
int tu_finish(const char *name);

/* Prints a skip message and exits with TEST_SKIP_CODE. */
void tu_skip(const char *why);

/* A real data file of $SCZ_DATA_DIR, parsed from its name NAME_DIMS.f32/f64
 * (dims slowest first in the name; shape below is fastest first). */
typedef struct tu_datafile {
    char path[1024];
    char name[256];
    scz_shape shape;
} tu_datafile;

/* Lists the data files; returns their number (0 if the directory is absent),
 * *files malloc'ed. */
int tu_data_files(tu_datafile **files);

/* Reads a whole file; returns NULL on failure. */
void *tu_read_file(const char *path, size_t *size);

/* ---- buffers with a guard region, to detect writes past a capacity ---- */
#define TU_GUARD_BYTES 4096
#define TU_GUARD_BYTE 0xA5

/* malloc's n + TU_GUARD_BYTES bytes; the n usable bytes are filled with
 * `fill`, the guard after them with TU_GUARD_BYTE. Free with free(). */
uint8_t *tu_guarded_alloc(size_t n, uint8_t fill);
/* 1 if the guard after p[0..n) is intact. */
int tu_guard_intact(const uint8_t *p, size_t n);

/* Index of the first differing byte of a and b, or n if equal. */
size_t tu_first_diff(const void *a, const void *b, size_t n);

/* XXH64 of p[0..n) (the library's own implementation, src/util/xxh64.h). */
uint64_t tu_xxh64(const void *p, size_t n, uint64_t seed);

/* Monotonic wall clock in seconds. */
double tu_now(void);

/* Compresses src into a fresh guarded buffer of scz_compress_bound bytes,
 * CHECKing the status and that nothing was written past the bound. Returns
 * the stream (free with free()) and its size, or NULL on failure. */
uint8_t *tu_compress(scz_ctx *ctx, const scz_params *p, const scz_shape *s, const void *src, size_t *size,
                     const char *what);

/* ctx decompresses z[0..zn) into a guarded buffer of raw bytes: CHECKs the
 * status, that the bytes equal ref, and that nothing was written past the
 * array (who names the decoder in the messages). Returns 1 if exact. */
int tu_check_decode(scz_ctx *ctx, const uint8_t *z, size_t zn, const void *ref, size_t raw, const char *what,
                    const char *who);

/* A 1D shape of n elements of dtype dt. */
scz_shape tu_shape1(scz_dtype dt, uint64_t n);

/* ---- white-box resealing (FORMAT.md sections 2, 4, 5): after an edit,
 * recompute the checksums so the decoder's own validation is exercised ---- */
void tu_reseal_header(uint8_t *z);                  /* header checksum */
void tu_reseal_table(uint8_t *z, uint32_t nchunks); /* table checksum */
/* Chunk i's checksum from its payload, then the table checksum (z must hold
 * a valid header and table layout). */
void tu_reseal_chunk(uint8_t *z, uint32_t i);
/* A malloc'ed copy of the table-first stream z[0..n) in which chunk i's
 * payload has new_size bytes (the first ones kept, then 0x5A), later
 * payloads moved, codec_info set, checksums recomputed; *n_out its size. */
uint8_t *tu_edit_chunk(const uint8_t *z, size_t n, uint32_t i, uint64_t new_size, uint32_t info, size_t *n_out);

/* Edits of a Huffman codebook (FORMAT.md 8.3) that every reader rejects,
 * for the decoders' error paths: edit k (0 .. TU_CB_EDITS - 1) of the
 * codebook cb[0 .. n), in place, at the first suitable run from run
 * at * runs / 1000 on (at < 1000): a length of 17, a run one symbol longer,
 * one shorter, a varint continued by a zero byte, a varint above 65536.
 * Returns what it did, or NULL (nothing changed) where no run from there
 * on suits the edit. */
#define TU_CB_EDITS 5
const char *tu_cb_edit(uint8_t *cb, size_t n, int k, unsigned at);

#endif

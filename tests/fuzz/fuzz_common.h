/*
 * fuzz_common.h -- what the libFuzzer targets of tests/fuzz share: the
 * control byte, contexts with 1 and 2 threads, checksum resealing of a
 * damaged stream, the size caps, and the property check that turns a
 * violated expectation into a crash the fuzzer reports. docs/FUZZING.md
 * describes the targets and their input layouts.
 *
 * The same sources build two ways: with clang -fsanitize=fuzzer (the fuzz
 * build, `make fuzz`) and with the normal compiler, linked with replay.c,
 * which feeds every file of a folder to LLVMFuzzerTestOneInput (the CTest
 * tests fuzz_replay_*, over tests/fuzz/regress and tests/fuzz/seeds).
 */
#ifndef SCZ_FUZZ_COMMON_H
#define SCZ_FUZZ_COMMON_H

#include "scz.h"

#include <stddef.h>
#include <stdint.h>

/* The entry point every target defines (libFuzzer's interface). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Largest raw array a target allocates for decoding (a stream can declare
 * any size; the fuzzer must not run out of memory on a valid header). */
#define FZ_MAX_RAW ((uint64_t)64 << 20)
/* Largest array fuzz_roundtrip compresses. */
#define FZ_MAX_RT_RAW ((uint64_t)1 << 20)

/* Control byte (first input byte of fuzz_decode and fuzz_chunk):
 *   bit 0  decode with 2 threads (else 1)
 *   bit 1  reseal the checksums (header, chunk payloads, table) before
 *          decoding, so that damaged fields and payloads reach the header
 *          checks and the codecs' own validation instead of stopping at a
 *          checksum mismatch
 *   bit 2  decode a second time with the other thread count; status and
 *          output must be the same
 * Other bits are ignored. */
#define FZ_CTL_THREADS2 1u
#define FZ_CTL_RESEAL 2u
#define FZ_CTL_COMPARE 4u

/* Aborts with a message when cond is false (a crash for libFuzzer). */
#define FZ_ASSERT(cond, ...)                                                       \
    do {                                                                           \
        if (!(cond)) fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);              \
    } while (0)

#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 4, 5)))
#endif
void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...);

/* A context with 1 or 2 threads, created on first use and kept for the
 * whole process (its scratch memory is reused, as an application would). */
scz_ctx *fz_ctx(int threads);

/* A status a failing call may return: a defined error other than
 * SCZ_ERR_INTERNAL (which means a library bug). */
int fz_is_error(scz_status s);

/* Checks a failed call: an error status with a message on ctx. */
void fz_check_error(scz_ctx *ctx, scz_status s, const char *what);

/* Recomputes the header checksum, each chunk checksum whose payload lies
 * inside z[0..n), and the table checksum, wherever the (possibly damaged)
 * fields make that possible; never reads or writes outside z[0..n). */
void fz_reseal(uint8_t *z, size_t n);

/* Little-endian field readers for input layouts. */
uint16_t fz_ld16(const uint8_t *p);
uint32_t fz_ld32(const uint8_t *p);
uint64_t fz_ld64(const uint8_t *p);
double fz_ldf64(const uint8_t *p);

#endif

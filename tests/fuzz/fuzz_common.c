/*
 * fuzz_common.c -- shared helpers of the fuzz targets (fuzz_common.h).
 */
#include "fuzz_common.h"

#include "format/container.h"
#include "util/xxh64.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
    fprintf(stderr, "FUZZ PROPERTY VIOLATED %s:%d: %s: ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

scz_ctx *fz_ctx(int threads) {
    static scz_ctx *ctx[2];
    int i = threads > 1;
    if (!ctx[i]) {
        FZ_ASSERT(scz_ctx_create(&ctx[i], SCZ_BACKEND_CPU) == SCZ_OK, "cannot create a CPU context");
        FZ_ASSERT(scz_ctx_set_threads(ctx[i], i ? 2 : 1) == SCZ_OK, "cannot set threads");
    }
    return ctx[i];
}

int fz_is_error(scz_status s) { return s > SCZ_OK && s < SCZ_ERR_INTERNAL; }

void fz_check_error(scz_ctx *ctx, scz_status s, const char *what) {
    FZ_ASSERT(fz_is_error(s), "%s: status %d (%s)", what, (int)s, scz_status_string(s));
    if (ctx) FZ_ASSERT(scz_ctx_last_error(ctx)[0] != 0, "%s: error %s without a message", what, scz_status_string(s));
}

uint16_t fz_ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
uint32_t fz_ld32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
uint64_t fz_ld64(const uint8_t *p) { return (uint64_t)fz_ld32(p) | (uint64_t)fz_ld32(p + 4) << 32; }
double fz_ldf64(const uint8_t *p) {
    uint64_t u = fz_ld64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

void fz_reseal(uint8_t *z, size_t n) {
    if (n < SCZ_HEADER_SIZE || memcmp(z, scz__magic, SCZ_MAGIC_SIZE) != 0) return;
    scz__st64(z + SCZ_HEADER_SIZE - 8, scz_xxh64(z, SCZ_HEADER_SIZE - 8, 0));
    uint32_t nc = scz__ld32(z + 64);
    uint64_t tb = (uint64_t)nc * SCZ_CHUNK_ENTRY_SIZE;
    if (tb + 8 > n - SCZ_HEADER_SIZE) return;
    uint8_t *t = z + SCZ_HEADER_SIZE;
    unsigned lg = z[68];
    if (lg >= 10 && lg <= 30)
        for (uint32_t i = 0; i < nc; i++) {
            uint8_t *e = t + (uint64_t)i * SCZ_CHUNK_ENTRY_SIZE;
            uint64_t off = scz__ld64(e), sz = scz__ld64(e + 8);
            if (off <= n && sz <= n - off) scz__st64(e + 16, scz__checksum(z + off, sz, lg, 1));
        }
    scz__st64(t + tb, scz_xxh64(t, tb, 0));
}

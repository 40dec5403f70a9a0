#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "testutil.h"

#include "util/xxh64.h"

#include "format/container.h"

#include <dirent.h>
#include <string.h>
#include <time.h>

int tu_failures = 0;
int tu_checks = 0;

int tu_finish(const char *name) {
    printf("%s: %d checks\n", name, tu_checks);
    printf("%d passed, %d failed\n", tu_checks - tu_failures, tu_failures);
    return tu_failures ? 1 : 0;
}

void tu_skip(const char *why) {
    printf("SKIPPED: %s\n", why);
    exit(TEST_SKIP_CODE);
}

void *tu_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc(n > 0 ? (size_t)n : 1);
    if (p && n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p && size) *size = (size_t)n;
    return p;
}

static int cmp_df(const void *a, const void *b) {
    return strcmp(((const tu_datafile *)a)->name, ((const tu_datafile *)b)->name);
}

int tu_data_files(tu_datafile **files) {
    const char *dir = getenv("SCZ_DATA_DIR");
    if (!dir) dir = "../shared/data";
    DIR *d = opendir(dir);
    *files = NULL;
    if (!d) return 0;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *nm = e->d_name;
        size_t len = strlen(nm);
        if (len < 5) continue;
        scz_dtype t;
        if (!strcmp(nm + len - 4, ".f32")) t = SCZ_DTYPE_F32;
        else if (!strcmp(nm + len - 4, ".f64")) t = SCZ_DTYPE_F64;
        else continue;
        /* dims: after the last '_' up to the extension, 'x'-separated, slowest first */
        const char *us = strrchr(nm, '_');
        if (!us) continue;
        uint64_t dims[4];
        int r = 0;
        const char *p = us + 1;
        while (r < 4 && p < nm + len - 4) {
            char *end;
            dims[r++] = strtoull(p, &end, 10);
            if (*end == 'x') p = end + 1;
            else break;
        }
        if (r < 1) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            *files = realloc(*files, (size_t)cap * sizeof **files);
        }
        tu_datafile *f = &(*files)[n++];
        memset(f, 0, sizeof *f);
        snprintf(f->path, sizeof f->path, "%s/%s", dir, nm);
        snprintf(f->name, sizeof f->name, "%s", nm);
        f->shape.dtype = t;
        f->shape.rank = (uint32_t)r;
        for (int i = 0; i < 4; i++) f->shape.dims[i] = 1;
        for (int i = 0; i < r; i++) f->shape.dims[i] = dims[r - 1 - i];
    }
    closedir(d);
    if (n) qsort(*files, (size_t)n, sizeof **files, cmp_df);
    return n;
}

uint8_t *tu_guarded_alloc(size_t n, uint8_t fill) {
    uint8_t *p = malloc(n + TU_GUARD_BYTES);
    if (!p) return NULL;
    memset(p, fill, n);
    memset(p + n, TU_GUARD_BYTE, TU_GUARD_BYTES);
    return p;
}

int tu_guard_intact(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < TU_GUARD_BYTES; i++)
        if (p[n + i] != TU_GUARD_BYTE) return 0;
    return 1;
}

size_t tu_first_diff(const void *a, const void *b, size_t n) {
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i]) return i;
    return n;
}

double tu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint8_t *tu_compress(scz_ctx *ctx, const scz_params *p, const scz_shape *s, const void *src, size_t *size,
                     const char *what) {
    size_t bound = scz_compress_bound(s, p);
    CHECK(bound > 0, "%s: compress_bound is 0", what);
    if (!bound) return NULL;
    uint8_t *dst = tu_guarded_alloc(bound, 0xCD);
    if (!dst) return NULL;
    scz_status r = scz_compress(ctx, p, s, src, dst, bound, size);
    CHECK(r == SCZ_OK, "%s: compress: %s (%s)", what, scz_status_string(r), scz_ctx_last_error(ctx));
    CHECK(tu_guard_intact(dst, bound), "%s: compress wrote past dst_cap", what);
    if (r != SCZ_OK) {
        free(dst);
        return NULL;
    }
    CHECK(*size <= bound, "%s: stream %zu > bound %zu", what, *size, bound);
    return dst;
}

int tu_check_decode(scz_ctx *ctx, const uint8_t *z, size_t zn, const void *ref, size_t raw, const char *what,
                    const char *who) {
    uint8_t *out = tu_guarded_alloc(raw, 0x5A);
    if (!out) return 0;
    scz_status r = scz_decompress(ctx, z, zn, out, raw, NULL);
    CHECK(r == SCZ_OK, "%s: %s decompress: %s (%s)", what, who, scz_status_string(r), scz_ctx_last_error(ctx));
    int same = 0;
    if (!r) {
        const size_t d = tu_first_diff(ref, out, raw);
        CHECK(d == raw, "%s: %s decoded differs at byte %zu of %zu", what, who, d, raw);
        same = d == raw;
    }
    CHECK(tu_guard_intact(out, raw), "%s: %s decompress wrote past the array", what, who);
    free(out);
    return same;
}

scz_shape tu_shape1(scz_dtype dt, uint64_t n) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.rank = 1;
    s.dims[0] = n;
    s.dims[1] = s.dims[2] = s.dims[3] = 1;
    return s;
}

void tu_reseal_header(uint8_t *z) { scz__st64(z + SCZ_HEADER_SIZE - 8, tu_xxh64(z, SCZ_HEADER_SIZE - 8, 0)); }

void tu_reseal_table(uint8_t *z, uint32_t nchunks) {
    uint8_t *t = z + SCZ_HEADER_SIZE;
    uint64_t tb = (uint64_t)SCZ_CHUNK_ENTRY_SIZE * nchunks;
    scz__st64(t + tb, tu_xxh64(t, (size_t)tb, 0));
}

void tu_reseal_chunk(uint8_t *z, uint32_t i) {
    uint8_t *e = z + SCZ_HEADER_SIZE + (uint64_t)SCZ_CHUNK_ENTRY_SIZE * i;
    scz__st64(e + 16, scz__checksum(z + scz__ld64(e), scz__ld64(e + 8), z[68], 1));
    tu_reseal_table(z, scz__ld32(z + 64));
}

uint64_t tu_xxh64(const void *p, size_t n, uint64_t seed) { return scz_xxh64((const uint8_t *)p, n, seed); }

/* A copy of z in which chunk i's payload has new_size bytes (the first
 * ones kept, then 0x5A), later payloads moved, codec_info set, checksums
 * recomputed. */
uint8_t *tu_edit_chunk(const uint8_t *z, size_t n, uint32_t i, uint64_t new_size, uint32_t info, size_t *n_out) {
    scz_chunk_entry e;
    scz__table_entry(z + SCZ_HEADER_SIZE, i, &e);
    const size_t m = n - (size_t)e.size + (size_t)new_size;
    uint8_t *c = malloc(m ? m : 1);
    memcpy(c, z, (size_t)e.offset);
    const uint64_t keep = e.size < new_size ? e.size : new_size;
    memcpy(c + e.offset, z + e.offset, (size_t)keep);
    memset(c + e.offset + keep, 0x5A, (size_t)(new_size - keep));
    memcpy(c + e.offset + new_size, z + e.offset + e.size, n - (size_t)(e.offset + e.size));
    const uint32_t nc = scz__ld32(z + 64);
    uint8_t *ce = c + SCZ_HEADER_SIZE + (size_t)SCZ_CHUNK_ENTRY_SIZE * i;
    scz__st64(ce + 8, new_size);
    scz__st32(ce + 24, info);
    for (uint32_t j = i + 1; j < nc; j++) {
        uint8_t *ej = c + SCZ_HEADER_SIZE + (size_t)SCZ_CHUNK_ENTRY_SIZE * j;
        scz__st64(ej, scz__ld64(ej) - e.size + new_size);
    }
    tu_reseal_chunk(c, i);
    *n_out = m;
    return c;
}

/* The byte offsets of the runs of codebook cb[0 .. n) into heads[] (up to
 * cap of them); returns how many runs there are, up to a malformed one. */
static size_t cb_runs(const uint8_t *cb, size_t n, size_t *heads, size_t cap) {
    size_t p = 0, nr = 0;
    while (p < n) {
        const size_t h = p;
        if (((cb[p++] >> 5) & 7) == 7)
            for (int k = 0;; k++) { /* the varint, at most 10 bytes */
                if (p >= n || k == 10) return nr;
                if (!(cb[p++] & 0x80)) break;
            }
        if (nr < cap) heads[nr] = h;
        nr++;
    }
    return nr;
}

const char *tu_cb_edit(uint8_t *cb, size_t n, int k, unsigned at) {
    const size_t nr = cb_runs(cb, n, NULL, 0);
    size_t *h = malloc((nr ? nr : 1) * sizeof *h);
    cb_runs(cb, n, h, nr);
    const char *what = NULL;
    for (size_t i = nr * at / 1000; i < nr && !what; i++) {
        uint8_t *b = cb + h[i];
        const unsigned run = *b >> 5;
        const size_t room = n - h[i]; /* bytes from the run's first on */
        switch (k) {
        case 0:
            *b = (uint8_t)((*b & 0xE0) | 17);
            what = "a run of length 17";
            break;
        case 1:
            if (run <= 5) {
                *b += 32;
                what = "a run one symbol longer";
            }
            break;
        case 2:
            if (run >= 1 && run <= 6) {
                *b -= 32;
                what = "a run one symbol shorter";
            }
            break;
        case 3:
            if (run == 7 && room >= 3) {
                b[1] |= 0x80;
                b[2] = 0;
                what = "a varint continued by a zero byte";
            }
            break;
        case 4:
            if (run == 7 && room >= 4) {
                b[1] = 0xFF;
                b[2] = 0xFF;
                b[3] = 0x07;
                what = "a varint run above 65536";
            }
            break;
        }
    }
    free(h);
    return what;
}

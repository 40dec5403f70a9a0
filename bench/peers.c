/*
 * peers.c -- reference compressors measured beside scz in the same run
 * (DESIGN.md, Performance method): zfp (reversible and fixed-accuracy
 * modes) and zstd. Each is compiled only when CMake found it
 * (SCZ_HAVE_ZFP, SCZ_HAVE_ZSTD); without it the version query returns
 * NULL and the driver prints that the peer is absent.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* zfp                                                                 */
/* ------------------------------------------------------------------ */
#ifdef SCZ_HAVE_ZFP
#include <zfp.h>

typedef struct zfp_state {
    double tol;            /* <= 0: reversible */
    int threads;
    int omp;               /* compress with the OpenMP policy */
    zfp_stream *zs;
    zfp_field *field;
} zfp_state;

const char *bench_zfp_version(void) { return zfp_version_string; }

int bench_zfp_has_omp(void) {
    zfp_stream *zs = zfp_stream_open(NULL);
    if (!zs) return 0;
    int ok = zfp_stream_set_execution(zs, zfp_exec_omp) ? 1 : 0;
    zfp_stream_close(zs);
    return ok;
}

/* zfp takes dims fastest first (nx, ny, nz, nw), as the bench field holds them. */
static zfp_field *zfp_make_field(const bench_field *f, void *ptr) {
    zfp_type t = f->dtype == SCZ_DTYPE_F64 ? zfp_type_double : zfp_type_float;
    switch (f->rank) {
    case 1: return zfp_field_1d(ptr, t, (size_t)f->dims[0]);
    case 2: return zfp_field_2d(ptr, t, (size_t)f->dims[0], (size_t)f->dims[1]);
    case 3: return zfp_field_3d(ptr, t, (size_t)f->dims[0], (size_t)f->dims[1], (size_t)f->dims[2]);
    case 4:
        return zfp_field_4d(ptr, t, (size_t)f->dims[0], (size_t)f->dims[1], (size_t)f->dims[2],
                            (size_t)f->dims[3]);
    }
    return NULL;
}

static void zfp_teardown(bench_runner *r) {
    zfp_state *s = r->state;
    if (s->field) zfp_field_free(s->field);
    if (s->zs) zfp_stream_close(s->zs);
    s->field = NULL;
    s->zs = NULL;
}

static int zfp_setup(bench_runner *r, const bench_field *f, size_t *cap, char *msg, size_t ml) {
    zfp_state *s = r->state;
    if (f->dtype != SCZ_DTYPE_F32 && f->dtype != SCZ_DTYPE_F64) {
        snprintf(msg, ml, "zfp: dtype %s not benchmarked", scz_dtype_name(f->dtype));
        return BR_SKIP;
    }
    s->zs = zfp_stream_open(NULL);
    s->field = zfp_make_field(f, f->data);
    if (!s->zs || !s->field) {
        zfp_teardown(r);
        snprintf(msg, ml, "zfp: cannot set up a rank-%u field", f->rank);
        return BR_ERR;
    }
    if (s->tol > 0) zfp_stream_set_accuracy(s->zs, s->tol);
    else zfp_stream_set_reversible(s->zs);
    *cap = zfp_stream_maximum_size(s->zs, s->field);
    return *cap ? BR_OK : BR_ERR;
}

static int zfp_comp(bench_runner *r, const bench_field *f, void *dst, size_t cap, size_t *size,
                    char *msg, size_t ml) {
    zfp_state *s = r->state;
    zfp_field_set_pointer(s->field, f->data);
    /* Compression runs with the OpenMP policy when asked and available. */
    if (s->omp) zfp_stream_set_omp_threads(s->zs, (unsigned)s->threads);
    else zfp_stream_set_execution(s->zs, zfp_exec_serial);
    bitstream *bs = stream_open(dst, cap);
    if (!bs) {
        snprintf(msg, ml, "zfp: stream_open failed");
        return BR_ERR;
    }
    zfp_stream_set_bit_stream(s->zs, bs);
    zfp_stream_rewind(s->zs);
    size_t n = zfp_compress(s->zs, s->field);
    stream_close(bs);
    if (!n) {
        snprintf(msg, ml, "zfp_compress failed");
        return BR_ERR;
    }
    *size = n;
    return BR_OK;
}

static int zfp_decomp(bench_runner *r, const bench_field *f, const void *src, size_t size,
                      void *dst, char *msg, size_t ml) {
    (void)f;
    zfp_state *s = r->state;
    /* zfp 1.0 decompresses serially only (its OpenMP policy is for compression). */
    zfp_stream_set_execution(s->zs, zfp_exec_serial);
    zfp_field_set_pointer(s->field, dst);
    bitstream *bs = stream_open((void *)src, size);
    if (!bs) {
        snprintf(msg, ml, "zfp: stream_open failed");
        return BR_ERR;
    }
    zfp_stream_set_bit_stream(s->zs, bs);
    zfp_stream_rewind(s->zs);
    size_t n = zfp_decompress(s->zs, s->field);
    stream_close(bs);
    if (!n) {
        snprintf(msg, ml, "zfp_decompress failed");
        return BR_ERR;
    }
    return BR_OK;
}

void bench_zfp_runner(bench_runner *r, double tol, double rel, int threads) {
    memset(r, 0, sizeof *r);
    zfp_state *s = calloc(1, sizeof *s); /* freed by the driver (bench.h) */
    if (!s) return;
    s->tol = tol;
    s->threads = threads;
    s->omp = threads > 1 && bench_zfp_has_omp();
    r->state = s;
    r->lossless = tol <= 0;
    r->rel = rel;
    r->tol = tol > 0 ? tol : 0;
    if (tol > 0) {
        snprintf(r->codec, sizeof r->codec, "zfp-accuracy");
        snprintf(r->setting, sizeof r->setting, "rel=%.0e", rel);
        snprintf(r->label, sizeof r->label, "zfp-accuracy");
    } else {
        snprintf(r->codec, sizeof r->codec, "zfp-reversible");
        snprintf(r->setting, sizeof r->setting, "lossless");
        snprintf(r->label, sizeof r->label, "zfp-reversible");
    }
    if (s->omp) snprintf(r->exec, sizeof r->exec, "c:omp%d d:serial", threads);
    else snprintf(r->exec, sizeof r->exec, "serial");
    r->setup = zfp_setup;
    r->compress = zfp_comp;
    r->decompress = zfp_decomp;
    r->teardown = zfp_teardown;
}

#else /* !SCZ_HAVE_ZFP */
const char *bench_zfp_version(void) { return NULL; }
int bench_zfp_has_omp(void) { return 0; }
void bench_zfp_runner(bench_runner *r, double tol, double rel, int threads) {
    (void)tol; (void)rel; (void)threads;
    memset(r, 0, sizeof *r);
}
#endif

/* ------------------------------------------------------------------ */
/* zstd                                                                */
/* ------------------------------------------------------------------ */
#ifdef SCZ_HAVE_ZSTD
#include <zstd.h>

typedef struct zstd_state {
    int level;
    int workers;           /* ZSTD_c_nbWorkers; 0 = single-threaded */
    ZSTD_CCtx *cctx;       /* kept across calls: its worker pool is reused */
    ZSTD_DCtx *dctx;
} zstd_state;

const char *bench_zstd_version(void) { return ZSTD_versionString(); }

int bench_zstd_has_mt(void) {
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (!c) return 0;
    int ok = !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, 2));
    ZSTD_freeCCtx(c);
    return ok;
}

static void zstd_teardown(bench_runner *r) {
    zstd_state *s = r->state;
    ZSTD_freeCCtx(s->cctx);
    ZSTD_freeDCtx(s->dctx);
    s->cctx = NULL;
    s->dctx = NULL;
}

static int zstd_setup(bench_runner *r, const bench_field *f, size_t *cap, char *msg, size_t ml) {
    zstd_state *s = r->state;
    s->cctx = ZSTD_createCCtx();
    s->dctx = ZSTD_createDCtx();
    if (!s->cctx || !s->dctx) {
        zstd_teardown(r);
        snprintf(msg, ml, "zstd: out of memory");
        return BR_ERR;
    }
    size_t e = ZSTD_CCtx_setParameter(s->cctx, ZSTD_c_compressionLevel, s->level);
    if (!ZSTD_isError(e) && s->workers > 0)
        e = ZSTD_CCtx_setParameter(s->cctx, ZSTD_c_nbWorkers, s->workers);
    if (ZSTD_isError(e)) {
        snprintf(msg, ml, "zstd: %s", ZSTD_getErrorName(e));
        zstd_teardown(r);
        return BR_ERR;
    }
    *cap = ZSTD_compressBound(f->bytes);
    return BR_OK;
}

static int zstd_comp(bench_runner *r, const bench_field *f, void *dst, size_t cap, size_t *size,
                     char *msg, size_t ml) {
    zstd_state *s = r->state;
    size_t n = ZSTD_compress2(s->cctx, dst, cap, f->data, f->bytes);
    if (ZSTD_isError(n)) {
        snprintf(msg, ml, "zstd: %s", ZSTD_getErrorName(n));
        return BR_ERR;
    }
    *size = n;
    return BR_OK;
}

static int zstd_decomp(bench_runner *r, const bench_field *f, const void *src, size_t size,
                       void *dst, char *msg, size_t ml) {
    zstd_state *s = r->state;
    size_t n = ZSTD_decompressDCtx(s->dctx, dst, f->bytes, src, size);
    if (ZSTD_isError(n) || n != f->bytes) {
        snprintf(msg, ml, "zstd: %s", ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output");
        return BR_ERR;
    }
    return BR_OK;
}

void bench_zstd_runner(bench_runner *r, int level, int threads) {
    memset(r, 0, sizeof *r);
    zstd_state *s = calloc(1, sizeof *s); /* freed by the driver (bench.h) */
    if (!s) return;
    s->level = level;
    s->workers = threads > 1 && bench_zstd_has_mt() ? threads : 0;
    r->state = s;
    r->lossless = 1;
    snprintf(r->codec, sizeof r->codec, "zstd");
    snprintf(r->setting, sizeof r->setting, "level=%d", level);
    snprintf(r->label, sizeof r->label, "zstd-%d", level);
    /* zstd decompresses on one thread whatever nbWorkers was. */
    if (s->workers) snprintf(r->exec, sizeof r->exec, "c:mt%d d:1", s->workers);
    else snprintf(r->exec, sizeof r->exec, "single");
    r->setup = zstd_setup;
    r->compress = zstd_comp;
    r->decompress = zstd_decomp;
    r->teardown = zstd_teardown;
}

#else /* !SCZ_HAVE_ZSTD */
const char *bench_zstd_version(void) { return NULL; }
int bench_zstd_has_mt(void) { return 0; }
void bench_zstd_runner(bench_runner *r, int level, int threads) {
    (void)level; (void)threads;
    memset(r, 0, sizeof *r);
}
#endif

/* ------------------------------------------------------------------ */
/* lz4: a reference point for the lzss codec (Debian liblz4-dev)       */
/* ------------------------------------------------------------------ */
#ifdef SCZ_HAVE_LZ4
#include <lz4.h>

const char *bench_lz4_version(void) { return LZ4_versionString(); }

static int lz4_setup(bench_runner *r, const bench_field *f, size_t *cap, char *msg, size_t ml) {
    (void)r;
    if (f->bytes > (size_t)LZ4_MAX_INPUT_SIZE) {
        snprintf(msg, ml, "lz4: input above LZ4_MAX_INPUT_SIZE");
        return BR_SKIP;
    }
    *cap = (size_t)LZ4_compressBound((int)f->bytes);
    return BR_OK;
}

static int lz4_comp(bench_runner *r, const bench_field *f, void *dst, size_t cap, size_t *size, char *msg,
                    size_t ml) {
    (void)r;
    int n = LZ4_compress_default(f->data, dst, (int)f->bytes, cap > (size_t)INT32_MAX ? INT32_MAX : (int)cap);
    if (n <= 0) {
        snprintf(msg, ml, "lz4: compression failed");
        return BR_ERR;
    }
    *size = (size_t)n;
    return BR_OK;
}

static int lz4_decomp(bench_runner *r, const bench_field *f, const void *src, size_t size, void *dst, char *msg,
                      size_t ml) {
    (void)r;
    int n = LZ4_decompress_safe(src, dst, (int)size, (int)f->bytes);
    if (n < 0 || (size_t)n != f->bytes) {
        snprintf(msg, ml, "lz4: decompression failed");
        return BR_ERR;
    }
    return BR_OK;
}

static void lz4_teardown(bench_runner *r) { (void)r; }

void bench_lz4_runner(bench_runner *r) {
    memset(r, 0, sizeof *r);
    r->state = calloc(1, 1); /* freed by the driver */
    if (!r->state) return;
    r->lossless = 1;
    snprintf(r->codec, sizeof r->codec, "lz4");
    snprintf(r->setting, sizeof r->setting, "default");
    snprintf(r->label, sizeof r->label, "lz4");
    snprintf(r->exec, sizeof r->exec, "single");
    r->setup = lz4_setup;
    r->compress = lz4_comp;
    r->decompress = lz4_decomp;
    r->teardown = lz4_teardown;
}
#else
const char *bench_lz4_version(void) { return NULL; }
void bench_lz4_runner(bench_runner *r) { memset(r, 0, sizeof *r); }
#endif

/* ------------------------------------------------------------------ */
/* a byte-plane shuffle in front of a byte-oriented peer                */
/* ------------------------------------------------------------------ */

/* The inner runner sees the field's bytes regrouped into its E byte planes
 * over the whole array (byte p of element k at p * count + k, as Blosc's
 * shuffle within one block): compress shuffles, then runs the inner
 * compressor; decompress runs the inner decompressor, then unshuffles.
 * Both transposes are timed. */
typedef struct shuf_state {
    bench_runner inner;
    uint8_t *tmp;
    size_t tmp_n;
} shuf_state;

static void shuf_bytes(const uint8_t *src, size_t n, size_t E, uint8_t *dst, int inverse) {
    const size_t m = n / E;
    for (size_t k = 0; k < m; k++)
        for (size_t q = 0; q < E; q++) {
            if (inverse) dst[k * E + q] = src[q * m + k];
            else dst[q * m + k] = src[k * E + q];
        }
}

static int shuf_setup(bench_runner *r, const bench_field *f, size_t *cap, char *msg, size_t ml) {
    shuf_state *s = r->state;
    if (s->tmp_n < f->bytes) {
        free(s->tmp);
        s->tmp = malloc(f->bytes ? f->bytes : 1);
        s->tmp_n = s->tmp ? f->bytes : 0;
        if (!s->tmp) {
            snprintf(msg, ml, "shuffle: out of memory");
            return BR_ERR;
        }
    }
    return s->inner.setup(&s->inner, f, cap, msg, ml);
}

static int shuf_comp(bench_runner *r, const bench_field *f, void *dst, size_t cap, size_t *size, char *msg,
                     size_t ml) {
    shuf_state *s = r->state;
    shuf_bytes(f->data, f->bytes, f->esize, s->tmp, 0);
    bench_field g = *f;
    g.data = s->tmp;
    return s->inner.compress(&s->inner, &g, dst, cap, size, msg, ml);
}

static int shuf_decomp(bench_runner *r, const bench_field *f, const void *src, size_t size, void *dst, char *msg,
                       size_t ml) {
    shuf_state *s = r->state;
    int st = s->inner.decompress(&s->inner, f, src, size, s->tmp, msg, ml);
    if (st == BR_OK) shuf_bytes(s->tmp, f->bytes, f->esize, dst, 1);
    return st;
}

static void shuf_teardown(bench_runner *r) {
    shuf_state *s = r->state;
    s->inner.teardown(&s->inner);
}

void bench_shuffled_runner(bench_runner *r, bench_runner *inner) {
    memset(r, 0, sizeof *r);
    if (!inner->setup) {
        free(inner->state);
        return;
    }
    shuf_state *s = calloc(1, sizeof *s); /* freed by the driver; the inner state by bench_shuffled_free */
    if (!s) {
        free(inner->state);
        return;
    }
    s->inner = *inner;
    r->state = s;
    r->lossless = 1;
    snprintf(r->codec, sizeof r->codec, "%s", inner->codec);
    snprintf(r->setting, sizeof r->setting, "%.30s,shuffle", inner->setting);
    snprintf(r->label, sizeof r->label, "%.20s+shuf", inner->label);
    snprintf(r->exec, sizeof r->exec, "%s", inner->exec);
    r->setup = shuf_setup;
    r->compress = shuf_comp;
    r->decompress = shuf_decomp;
    r->teardown = shuf_teardown;
}

void bench_shuffled_free(bench_runner *r) {
    shuf_state *s = r->state;
    if (!s) return;
    free(s->inner.state);
    free(s->tmp);
    s->inner.state = NULL;
    s->tmp = NULL;
}

/*
 * bench.h -- what the benchmark driver (scz_bench.c) and the peer
 * compressors (peers.c: zfp, zstd) share: a loaded field and a "runner",
 * one codec at one setting, that the driver times and verifies.
 */
#ifndef SCZ_BENCH_H
#define SCZ_BENCH_H

#include "scz.h"

#include <stddef.h>
#include <stdint.h>

/* A raw little-endian array held in memory. */
typedef struct bench_field {
    char path[4096];
    char name[256];        /* file name without directory */
    scz_dtype dtype;       /* F32 or F64 */
    size_t esize;
    uint32_t rank;         /* 1..4 */
    uint64_t dims[SCZ_MAX_RANK]; /* FASTEST FIRST (x, y, z, w); unused = 1 */
    uint64_t count;
    size_t bytes;
    void *data;
    double vmin, vmax;     /* of the finite values */
    uint64_t finite;
} bench_field;

/* Return codes of a runner's functions. */
enum { BR_OK = 0, BR_SKIP = 1, BR_ERR = -1 };

typedef struct bench_runner bench_runner;
struct bench_runner {
    char codec[32];        /* CSV "codec": "ndzip", "zfp-reversible", "zstd", ... */
    char setting[48];      /* CSV "setting": "lossless", "level=1", "rel=1e-03" */
    char label[48];        /* summary key: "ndzip", "zstd-1", ... */
    char exec[64];         /* how it ran: "omp x2", "compress omp x2, decompress serial" */
    int is_scz;            /* scz codec: determinism is checked, per-thread figures shown */
    int lossless;
    double rel;            /* lossy: the value-range-relative bound asked for */
    double tol;            /* lossy: absolute bound the codec must meet (0: unknown yet) */
    void *state;           /* malloc'd by the constructor; the driver frees it */
    /* Prepares for one field; sets *cap to the compressed-size bound. */
    int (*setup)(bench_runner *r, const bench_field *f, size_t *cap, char *msg, size_t msglen);
    int (*compress)(bench_runner *r, const bench_field *f, void *dst, size_t cap, size_t *size,
                    char *msg, size_t msglen);
    int (*decompress)(bench_runner *r, const bench_field *f, const void *src, size_t size,
                      void *dst, char *msg, size_t msglen);
    void (*teardown)(bench_runner *r);
};

/* ---- peers (peers.c); each is absent when not built in ---- */

/* Version string, or NULL when the peer was not found at build time. */
const char *bench_zfp_version(void);
const char *bench_zstd_version(void);
const char *bench_lz4_version(void);

/* 1 if zfp can compress with its OpenMP execution policy (libzfp built
 * with OpenMP); 0: serial only. */
int bench_zfp_has_omp(void);
/* 1 if libzstd was built with multithreading (ZSTD_c_nbWorkers accepted). */
int bench_zstd_has_mt(void);

/* Constructors leave r->setup NULL when the peer is absent or out of memory. */

/* zfp reversible (lossless) mode when tol <= 0, else fixed-accuracy mode
 * with absolute tolerance tol. threads > 1 asks for the OpenMP policy. */
void bench_zfp_runner(bench_runner *r, double tol, double rel, int threads);
/* zstd at a level; threads > 1 sets ZSTD_c_nbWorkers. */
void bench_zstd_runner(bench_runner *r, int level, int threads);
/* LZ4 (liblz4), LZ4_compress_default, single-threaded. */
void bench_lz4_runner(bench_runner *r);
/* inner (a constructed runner, taken over) behind a byte-plane shuffle of
 * the whole array; r->setup NULL when inner is absent. Before freeing
 * r->state, call bench_shuffled_free(r) (it frees the inner state). */
void bench_shuffled_runner(bench_runner *r, bench_runner *inner);
void bench_shuffled_free(bench_runner *r);

#endif /* SCZ_BENCH_H */

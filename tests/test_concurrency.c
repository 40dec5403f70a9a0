/*
 * test_concurrency.c -- separate contexts used from 4 threads at once
 * (scz.h: nothing in the library is global and mutable). A reference is
 * computed first on one thread with a 1-thread context: for every job
 * (ndzip; lossy at ABS, REL and PSNR bounds; huffman; several shapes,
 * dtypes and chunkings) the stream, and the decoded array checked against
 * the input (bit for bit, or within the bound and the PSNR target). Then 4
 * threads, each with its own context (1 or 2 OpenMP threads inside),
 * start together and run every job in their own order: compress (the
 * stream must equal the reference byte for byte), decompress (the output
 * must equal the reference output bit for bit), decode single chunks, and
 * decode a corrupted copy (an error with a message on that context only).
 * Built under ThreadSanitizer by `make tsan`.
 */
#include "gen.h"
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NWORKERS 4
#define ROUNDS 8
#define MAXJOBS 24

typedef struct job {
    char name[96];
    scz_shape shape;
    scz_params p;
    void *data;
    size_t raw;
    uint8_t *ref;      /* reference stream */
    size_t ref_size;
    void *ref_out;     /* reference decoded array */
} job;

static job jobs[MAXJOBS];
static int njobs;

/* ---- jobs ---- */

static void add_job(const char *name, scz_codec codec, scz_eb_mode mode, double eb, uint64_t chunk,
                    const scz_shape *sh, void *data) {
    job *j = &jobs[njobs++];
    snprintf(j->name, sizeof j->name, "%s", name);
    j->shape = *sh;
    scz_params_init(&j->p, codec);
    j->p.eb_mode = mode;
    j->p.eb = eb;
    j->p.chunk_bytes = chunk;
    j->data = data;
    j->raw = (size_t)scz_shape_count(sh) * scz_dtype_size(sh->dtype);
}

/* Symbols with a skewed distribution (detector counts): u8 or u16. */
static void *gen_symbols(scz_dtype t, uint64_t n, uint64_t seed) {
    void *p = malloc(n * scz_dtype_size(t));
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = gen_mix64(seed * 977u + i);
        uint64_t v = (h & 0xFF) < 200 ? h >> 8 & 7 : h >> 8 & (t == SCZ_DTYPE_U8 ? 0xFF : 0x3FF);
        if (t == SCZ_DTYPE_U8) ((uint8_t *)p)[i] = (uint8_t)v;
        else ((uint16_t *)p)[i] = (uint16_t)v;
    }
    return p;
}

static void make_jobs(void) {
    size_t b;
    scz_shape s3f = {SCZ_DTYPE_F32, 3, {48, 40, 36, 1}};
    scz_shape s2d = {SCZ_DTYPE_F64, 2, {200, 150, 1, 1}};
    scz_shape s1f = {SCZ_DTYPE_F32, 1, {70001, 1, 1, 1}};
    scz_shape s4d = {SCZ_DTYPE_F64, 4, {12, 10, 9, 8}};
    void *smooth3 = gen_field(GEN_SMOOTH, &s3f, 1, &b);
    void *noisy2 = gen_field(GEN_NOISY, &s2d, 2, &b);
    void *fill3 = gen_field(GEN_FILL_VALUE, &s3f, 3, &b);
    void *spec1 = gen_field(GEN_SPECIAL, &s1f, 4, &b);
    void *spiky4 = gen_field(GEN_SPIKY, &s4d, 5, &b);
    add_job("ndzip smooth f32 3D", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, 0, &s3f, smooth3);
    add_job("ndzip noisy f64 2D, 64 KiB chunks", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, 64 << 10, &s2d, noisy2);
    add_job("ndzip special f32 1D", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, 0, &s1f, spec1);
    add_job("ndzip spiky f64 4D", SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0, 0, &s4d, spiky4);
    add_job("lossy ABS 1e-3 smooth f32 3D", SCZ_CODEC_LOSSY, SCZ_EB_ABS, 1e-3, 0, &s3f, smooth3);
    add_job("lossy REL 1e-4 noisy f64 2D, 64 KiB chunks", SCZ_CODEC_LOSSY, SCZ_EB_REL, 1e-4, 64 << 10, &s2d, noisy2);
    add_job("lossy PSNR 60 fill f32 3D", SCZ_CODEC_LOSSY, SCZ_EB_PSNR, 60, 0, &s3f, fill3);
    add_job("lossy PSNR 80 noisy f64 2D", SCZ_CODEC_LOSSY, SCZ_EB_PSNR, 80, 0, &s2d, noisy2);
    add_job("lossy ABS 1e-2 special f32 1D, 32 KiB chunks", SCZ_CODEC_LOSSY, SCZ_EB_ABS, 1e-2, 32 << 10, &s1f, spec1);
    add_job("lossy REL 1e-3 spiky f64 4D", SCZ_CODEC_LOSSY, SCZ_EB_REL, 1e-3, 0, &s4d, spiky4);
    if (scz_codec_available(SCZ_CODEC_HUFFMAN)) {
        scz_shape u8 = {SCZ_DTYPE_U8, 1, {150000, 1, 1, 1}};
        scz_shape u16 = {SCZ_DTYPE_U16, 2, {300, 200, 1, 1}};
        add_job("huffman u8 1D", SCZ_CODEC_HUFFMAN, SCZ_EB_NONE, 0, 0, &u8, gen_symbols(SCZ_DTYPE_U8, 150000, 6));
        add_job("huffman u16 2D, 16 KiB chunks", SCZ_CODEC_HUFFMAN, SCZ_EB_NONE, 0, 16 << 10, &u16,
                gen_symbols(SCZ_DTYPE_U16, 60000, 7));
    }
}

/* Reference of every job on this thread, checked against the input. */
static void make_references(void) {
    scz_ctx *ctx;
    if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK) {
        CHECK(0, "cannot create a CPU context");
        return;
    }
    scz_ctx_set_threads(ctx, 1);
    for (int i = 0; i < njobs; i++) {
        job *j = &jobs[i];
        j->ref = tu_compress(ctx, &j->p, &j->shape, j->data, &j->ref_size, j->name);
        j->ref_out = malloc(j->raw + 1);
        if (!j->ref) continue;
        scz_status st = scz_decompress(ctx, j->ref, j->ref_size, j->ref_out, j->raw, NULL);
        CHECK(st == SCZ_OK, "%s: reference decompress: %s", j->name, scz_ctx_last_error(ctx));
        if (j->p.eb_mode == SCZ_EB_NONE) {
            CHECK(!memcmp(j->data, j->ref_out, j->raw), "%s: reference is not lossless", j->name);
        } else {
            scz_info info;
            scz_stats s;
            scz_inspect(j->ref, j->ref_size, &info);
            scz_stats_compute(j->shape.dtype, j->data, j->ref_out, scz_shape_count(&j->shape), &s);
            CHECK(s.max_abs_err <= info.eb_abs && s.nonfinite_mismatch == 0, "%s: reference error %g above %g",
                  j->name, s.max_abs_err, info.eb_abs);
            CHECK(j->p.eb_mode != SCZ_EB_PSNR || s.psnr >= j->p.eb, "%s: reference PSNR %.3f below %g", j->name,
                  s.psnr, j->p.eb);
        }
    }
    scz_ctx_destroy(ctx);
}

/* ---- workers ---- */

typedef struct worker {
    int id;
    int failures;
    uint64_t ops;
    char first[256]; /* the first failure */
} worker;

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void fail(worker *w, const char *fmt, const char *name, const char *detail) {
    if (!w->failures++) snprintf(w->first, sizeof w->first, fmt, name, detail);
}

static void run_job(worker *w, scz_ctx *ctx, const job *j) {
    size_t cap = scz_compress_bound(&j->shape, &j->p), cs = 0;
    uint8_t *c = malloc(cap ? cap : 1);
    uint8_t *out = malloc(j->raw + 1);
    if (!c || !out) {
        fail(w, "%s: %s", j->name, "out of memory");
        goto done;
    }
    if (scz_compress(ctx, &j->p, &j->shape, j->data, c, cap, &cs) != SCZ_OK) {
        fail(w, "%s: compress: %s", j->name, scz_ctx_last_error(ctx));
        goto done;
    }
    if (cs != j->ref_size || memcmp(c, j->ref, cs)) fail(w, "%s: %s", j->name, "stream differs from the reference");
    memset(out, 0x5A, j->raw + 1);
    if (scz_decompress(ctx, c, cs, out, j->raw, NULL) != SCZ_OK)
        fail(w, "%s: decompress: %s", j->name, scz_ctx_last_error(ctx));
    else if (memcmp(out, j->ref_out, j->raw) || out[j->raw] != 0x5A)
        fail(w, "%s: %s", j->name, "decoded array differs from the reference");
    /* single chunks, last first */
    scz_info info;
    if (scz_inspect(c, cs, &info) != SCZ_OK) {
        fail(w, "%s: %s", j->name, "inspect failed");
        goto done;
    }
    for (uint32_t k = info.num_chunks; k-- > 0;) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(c, cs, k, &ci) != SCZ_OK ||
            scz_decompress_chunk(ctx, c, cs, k, out, j->raw) != SCZ_OK ||
            memcmp(out, (const uint8_t *)j->ref_out + ci.raw_offset, ci.raw_bytes)) {
            fail(w, "%s: chunk decode: %s", j->name, scz_ctx_last_error(ctx));
            break;
        }
    }
    /* a corrupted payload byte: an error on this context, with a message */
    if (info.num_chunks) {
        scz_chunk_info ci;
        scz_inspect_chunk(c, cs, 0, &ci);
        c[ci.offset + ci.size / 2] ^= 0x10;
        if (scz_decompress(ctx, c, cs, out, j->raw, NULL) == SCZ_OK || !scz_ctx_last_error(ctx)[0])
            fail(w, "%s: %s", j->name, "corrupted stream decoded without an error message");
    }
    w->ops++;
done:
    free(c);
    free(out);
}

static void *worker_main(void *arg) {
    worker *w = arg;
    scz_ctx *ctx = NULL;
    /* contexts are created concurrently too */
    if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK) {
        fail(w, "%s%s", "worker: ", "cannot create a context");
        return NULL;
    }
    scz_ctx_set_threads(ctx, 1 + w->id % 2);
    pthread_mutex_lock(&gate_mu);
    while (!gate_open) pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < njobs; i++) {
            /* each worker its own order: rotated, every other one reversed */
            int k = (i + w->id * 3 + r) % njobs;
            if (w->id % 2) k = njobs - 1 - k;
            run_job(w, ctx, &jobs[k]);
        }
    scz_ctx_destroy(ctx);
    return NULL;
}

int main(void) {
    make_jobs();
    make_references();
    worker w[NWORKERS];
    pthread_t th[NWORKERS];
    int started = 0;
    double t0 = tu_now();
    for (int i = 0; i < NWORKERS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        if (pthread_create(&th[i], NULL, worker_main, &w[i])) break;
        started++;
    }
    CHECK(started == NWORKERS, "started %d of %d threads", started, NWORKERS);
    pthread_mutex_lock(&gate_mu);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    double t = tu_now() - t0;
    uint64_t ops = 0;
    for (int i = 0; i < started; i++) {
        CHECK(w[i].failures == 0, "thread %d: %d failures, the first: %s", i, w[i].failures, w[i].first);
        CHECK(w[i].ops == (uint64_t)ROUNDS * (uint64_t)njobs, "thread %d ran %llu of %d jobs", i,
              (unsigned long long)w[i].ops, ROUNDS * njobs);
        ops += w[i].ops;
    }
    printf("  %d jobs x %d rounds on %d threads at once: %llu round trips in %.2f s\n", njobs, ROUNDS, started,
           (unsigned long long)ops, t);
    for (int i = 0; i < njobs; i++) {
        free(jobs[i].ref);
        free(jobs[i].ref_out);
    }
    /* inputs are shared between jobs: free each once */
    for (int i = 0; i < njobs; i++) {
        int dup = 0;
        for (int k = 0; k < i; k++) dup |= jobs[k].data == jobs[i].data;
        if (!dup) free(jobs[i].data);
    }
    return tu_finish("test_concurrency");
}

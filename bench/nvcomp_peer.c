/*
 * nvcomp_peer.c -- nvCOMP's Bitcomp, Cascaded, LZ4 and ANS measured on the
 * same device buffers as scz in scz_bench_gpu (nvcomp_peer.h).
 *
 * nvCOMP's batched C API: the array is cut into 64 KiB chunks (the chunk
 * size nvCOMP recommends), one batch holds all of them; each chunk's output
 * slot has the codec's maximum compressed chunk size. Timed: one
 * CompressAsync or DecompressAsync call of the whole batch between CUDA
 * events (pointer and size arrays are built once, outside the timing).
 * Ratio = raw bytes / sum of the compressed chunk sizes (the 8-byte size of
 * each chunk that a container would also store is not counted: 0.012%).
 * Every round trip is checked byte for byte against the host copy, and
 * every chunk's status must be nvcompSuccess.
 */
#include "median.h"
#include "nvcomp_peer.h"

#include <stdio.h>
#include <string.h>

#ifndef SCZ_HAVE_NVCOMP

int nvc_describe(char *buf, size_t n) {
    snprintf(buf, n, "nvCOMP: skipped: nvCOMP not installed (configure with -DNVCOMP_ROOT=<dir with include/ and lib/>)");
    return 0;
}

int nvc_bench(const void *d_src, const void *h_src, size_t raw, int elem_size, int reps, int warmup,
              nvc_row rows[NVC_MAX_ROWS]) {
    (void)d_src, (void)h_src, (void)raw, (void)elem_size, (void)reps, (void)warmup, (void)rows;
    return 0;
}

#else

#include <cuda_runtime.h>
#include <nvcomp.h>
#include <nvcomp/ans.h>
#include <nvcomp/bitcomp.h>
#include <nvcomp/cascaded.h>
#include <nvcomp/lz4.h>
#include <stdlib.h>

#define NVC_CHUNK ((size_t)64 << 10)

/* One batch: device arrays of chunk pointers and sizes, shared buffers. */
typedef struct job {
    size_t n, raw;
    const void **in_ptrs; /* device: chunk i of the source */
    size_t *in_bytes;     /* device: chunk sizes (also the decoder's buffer sizes) */
    void **z_ptrs;        /* device: chunk i's compressed slot */
    size_t *z_bytes;      /* device: compressed chunk sizes */
    void **out_ptrs;      /* device: chunk i of the decoded array */
    size_t *out_bytes;    /* device: decoded chunk sizes */
    nvcompStatus_t *st;   /* device: per-chunk statuses */
    void *temp;
    size_t temp_bytes;
} job;

/* A codec configuration: uniform wrappers over nvCOMP's per-codec calls. */
typedef struct codec {
    const char *name, *config;
    int elem; /* 0: any element size; else only this one */
    nvcompStatus_t (*sizes)(const struct codec *c, int es, size_t n, size_t raw, size_t *max_out, size_t *tc,
                            size_t *td);
    nvcompStatus_t (*comp)(const struct codec *c, int es, const job *j, cudaStream_t s);
    nvcompStatus_t (*dec)(const struct codec *c, int es, const job *j, cudaStream_t s);
    int type4, type8; /* nvcompType_t per element size */
} codec;

/* ---- LZ4: bytes, no bitshuffle (the library default) ---- */
static nvcompBatchedLZ4CompressOpts_t lz4_c(const codec *c, int es) {
    nvcompBatchedLZ4CompressOpts_t o = nvcompBatchedLZ4CompressDefaultOpts;
    o.data_type = (nvcompType_t)(es == 4 ? c->type4 : c->type8);
    return o;
}
static nvcompStatus_t lz4_sizes(const codec *c, int es, size_t n, size_t raw, size_t *mo, size_t *tc, size_t *td) {
    nvcompStatus_t r = nvcompBatchedLZ4CompressGetMaxOutputChunkSize(NVC_CHUNK, lz4_c(c, es), mo);
    if (!r) r = nvcompBatchedLZ4CompressGetTempSize(n, NVC_CHUNK, lz4_c(c, es), tc, raw, 0);
    if (!r)
        r = nvcompBatchedLZ4DecompressGetTempSize(n, NVC_CHUNK, nvcompBatchedLZ4DecompressDefaultOpts, td, raw, 0);
    return r;
}
static nvcompStatus_t lz4_comp(const codec *c, int es, const job *j, cudaStream_t s) {
    return nvcompBatchedLZ4CompressAsync(j->in_ptrs, j->in_bytes, NVC_CHUNK, j->n, j->temp, j->temp_bytes, j->z_ptrs,
                                         j->z_bytes, lz4_c(c, es), j->st, s);
}
static nvcompStatus_t lz4_dec(const codec *c, int es, const job *j, cudaStream_t s) {
    (void)c, (void)es;
    return nvcompBatchedLZ4DecompressAsync((const void *const *)j->z_ptrs, j->z_bytes, j->in_bytes, j->out_bytes,
                                           j->n, j->temp, j->temp_bytes, j->out_ptrs,
                                           nvcompBatchedLZ4DecompressDefaultOpts, j->st, s);
}

/* ---- Bitcomp: default algorithm, lossless, typed as the array's floats ---- */
static nvcompBatchedBitcompCompressOpts_t bc_c(const codec *c, int es) {
    nvcompBatchedBitcompCompressOpts_t o = nvcompBatchedBitcompCompressDefaultOpts;
    o.data_type = (nvcompType_t)(es == 4 ? c->type4 : c->type8);
    return o;
}
static nvcompStatus_t bc_sizes(const codec *c, int es, size_t n, size_t raw, size_t *mo, size_t *tc, size_t *td) {
    nvcompStatus_t r = nvcompBatchedBitcompCompressGetMaxOutputChunkSize(NVC_CHUNK, bc_c(c, es), mo);
    if (!r) r = nvcompBatchedBitcompCompressGetTempSize(n, NVC_CHUNK, bc_c(c, es), tc, raw, 0);
    if (!r)
        r = nvcompBatchedBitcompDecompressGetTempSize(n, NVC_CHUNK, nvcompBatchedBitcompDecompressDefaultOpts, td,
                                                      raw, 0);
    return r;
}
static nvcompStatus_t bc_comp(const codec *c, int es, const job *j, cudaStream_t s) {
    return nvcompBatchedBitcompCompressAsync(j->in_ptrs, j->in_bytes, NVC_CHUNK, j->n, j->temp, j->temp_bytes,
                                             j->z_ptrs, j->z_bytes, bc_c(c, es), j->st, s);
}
static nvcompStatus_t bc_dec(const codec *c, int es, const job *j, cudaStream_t s) {
    (void)c, (void)es;
    return nvcompBatchedBitcompDecompressAsync((const void *const *)j->z_ptrs, j->z_bytes, j->in_bytes,
                                               j->out_bytes, j->n, j->temp, j->temp_bytes, j->out_ptrs,
                                               nvcompBatchedBitcompDecompressDefaultOpts, j->st, s);
}

/* ---- Cascaded: the library default (asymmetric mode, bit packing with all
 * fine-grained encodings: delta, RLE, frame of reference; level 3), with the
 * floats read as unsigned integers of their width; the decoder is told the
 * same common options (mode, type, codec), which lets it pick its kernel ---- */
static nvcompBatchedCascadedCompressOpts_t cas_c(const codec *c, int es) {
    nvcompBatchedCascadedCompressOpts_t o = nvcompBatchedCascadedCompressDefaultOpts;
    o.common_opts.data_type = (nvcompType_t)(es == 4 ? c->type4 : c->type8);
    return o;
}
static nvcompBatchedCascadedDecompressOpts_t cas_d(const codec *c, int es) {
    nvcompBatchedCascadedDecompressOpts_t o = nvcompBatchedCascadedDecompressDefaultOpts;
    o.common_opts = cas_c(c, es).common_opts;
    return o;
}
static nvcompStatus_t cas_sizes(const codec *c, int es, size_t n, size_t raw, size_t *mo, size_t *tc, size_t *td) {
    nvcompStatus_t r = nvcompBatchedCascadedCompressGetMaxOutputChunkSize(NVC_CHUNK, cas_c(c, es), mo);
    if (!r) r = nvcompBatchedCascadedCompressGetTempSize(n, NVC_CHUNK, cas_c(c, es), tc, raw, 0);
    if (!r) r = nvcompBatchedCascadedDecompressGetTempSize(n, NVC_CHUNK, cas_d(c, es), td, raw, 0);
    return r;
}
static nvcompStatus_t cas_comp(const codec *c, int es, const job *j, cudaStream_t s) {
    return nvcompBatchedCascadedCompressAsync(j->in_ptrs, j->in_bytes, NVC_CHUNK, j->n, j->temp, j->temp_bytes,
                                              j->z_ptrs, j->z_bytes, cas_c(c, es), j->st, s);
}
static nvcompStatus_t cas_dec(const codec *c, int es, const job *j, cudaStream_t s) {
    return nvcompBatchedCascadedDecompressAsync((const void *const *)j->z_ptrs, j->z_bytes, j->in_bytes,
                                                j->out_bytes, j->n, j->temp, j->temp_bytes, j->out_ptrs,
                                                cas_d(c, es), j->st, s);
}

/* ---- ANS (rANS): bytes (the default), or typed float32 ---- */
static nvcompBatchedANSCompressOpts_t ans_c(const codec *c, int es) {
    nvcompBatchedANSCompressOpts_t o = nvcompBatchedANSCompressDefaultOpts;
    o.data_type = (nvcompType_t)(es == 4 ? c->type4 : c->type8);
    return o;
}
static nvcompBatchedANSDecompressOpts_t ans_d(const codec *c, int es) {
    nvcompBatchedANSDecompressOpts_t o = nvcompBatchedANSDecompressDefaultOpts;
    o.data_type = ans_c(c, es).data_type;
    return o;
}
static nvcompStatus_t ans_sizes(const codec *c, int es, size_t n, size_t raw, size_t *mo, size_t *tc, size_t *td) {
    nvcompStatus_t r = nvcompBatchedANSCompressGetMaxOutputChunkSize(NVC_CHUNK, ans_c(c, es), mo);
    if (!r) r = nvcompBatchedANSCompressGetTempSize(n, NVC_CHUNK, ans_c(c, es), tc, raw, 0);
    if (!r) r = nvcompBatchedANSDecompressGetTempSize(n, NVC_CHUNK, ans_d(c, es), td, raw, 0);
    return r;
}
static nvcompStatus_t ans_comp(const codec *c, int es, const job *j, cudaStream_t s) {
    return nvcompBatchedANSCompressAsync(j->in_ptrs, j->in_bytes, NVC_CHUNK, j->n, j->temp, j->temp_bytes,
                                         j->z_ptrs, j->z_bytes, ans_c(c, es), j->st, s);
}
static nvcompStatus_t ans_dec(const codec *c, int es, const job *j, cudaStream_t s) {
    return nvcompBatchedANSDecompressAsync((const void *const *)j->z_ptrs, j->z_bytes, j->in_bytes, j->out_bytes,
                                           j->n, j->temp, j->temp_bytes, j->out_ptrs, ans_d(c, es), j->st, s);
}

static const codec g_codecs[] = {
    {"Bitcomp", "float, algorithm 0, lossless", 0, bc_sizes, bc_comp, bc_dec, NVCOMP_TYPE_FLOAT32,
     NVCOMP_TYPE_FLOAT64},
    {"Cascaded", "default opts, uint32/uint64", 0, cas_sizes, cas_comp, cas_dec, NVCOMP_TYPE_UINT,
     NVCOMP_TYPE_ULONGLONG},
    {"LZ4", "default opts (bytes)", 0, lz4_sizes, lz4_comp, lz4_dec, NVCOMP_TYPE_CHAR, NVCOMP_TYPE_CHAR},
    {"ANS", "default opts (bytes)", 0, ans_sizes, ans_comp, ans_dec, NVCOMP_TYPE_CHAR, NVCOMP_TYPE_CHAR},
    {"ANS-f32", "data_type float32", 4, ans_sizes, ans_comp, ans_dec, NVCOMP_TYPE_FLOAT32, NVCOMP_TYPE_FLOAT32},
};

int nvc_describe(char *buf, size_t n) {
    nvcompProperties_t p;
    memset(&p, 0, sizeof p);
    nvcompGetProperties(&p);
    snprintf(buf, n,
             "nvCOMP %u.%u.%u (built with CUDA %u.%u), batched C API, %zu KiB chunks, all chunks of a file in one "
             "batch",
             p.version / 1000, p.version % 1000 / 100, p.version % 100, p.cudart_version / 1000,
             p.cudart_version % 1000 / 10, NVC_CHUNK >> 10);
    return 1;
}


/* CUDA failure: recorded in the row, the measurement of that codec stops. */
#define CKR(call)                                                                                             \
    do {                                                                                                      \
        cudaError_t e_ = (call);                                                                              \
        if (e_ != cudaSuccess) {                                                                              \
            snprintf(row->err, sizeof row->err, "CUDA: %s (line %d)", cudaGetErrorString(e_), __LINE__);     \
            goto done;                                                                                        \
        }                                                                                                     \
    } while (0)
#define NKR(call, what)                                                                                       \
    do {                                                                                                      \
        nvcompStatus_t r_ = (call);                                                                           \
        if (r_ != nvcompSuccess) {                                                                            \
            snprintf(row->err, sizeof row->err, "%s: %s", what, nvcompGetStatusString(r_));                   \
            goto done;                                                                                        \
        }                                                                                                     \
    } while (0)

/* all chunk statuses nvcompSuccess and (decoder) all sizes as expected */
static int statuses_ok(const job *j, nvcompStatus_t *h_st, size_t *h_sz, const size_t *want, char *err, size_t en,
                       const char *what) {
    if (cudaMemcpy(h_st, j->st, j->n * sizeof *h_st, cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
    if (want && cudaMemcpy(h_sz, j->out_bytes, j->n * sizeof *h_sz, cudaMemcpyDeviceToHost) != cudaSuccess)
        return 0;
    for (size_t i = 0; i < j->n; i++) {
        if (h_st[i] != nvcompSuccess) {
            snprintf(err, en, "%s: chunk %zu: %s", what, i, nvcompGetStatusString(h_st[i]));
            return 0;
        }
        if (want && h_sz[i] != want[i]) {
            snprintf(err, en, "%s: chunk %zu: %zu bytes, want %zu", what, i, h_sz[i], want[i]);
            return 0;
        }
    }
    return 1;
}

static void bench_one(const codec *c, const void *d_src, const void *h_src, size_t raw, int es, int reps, int warmup,
                      nvc_row *row) {
    memset(row, 0, sizeof *row);
    snprintf(row->codec, sizeof row->codec, "%s", c->name);
    snprintf(row->config, sizeof row->config, "%s", c->config);
    job j;
    memset(&j, 0, sizeof j);
    j.raw = raw;
    j.n = (raw + NVC_CHUNK - 1) / NVC_CHUNK;
    const size_t n = j.n;
    void *d_z = NULL, *d_out = NULL, *h_back = NULL;
    const void **h_in = calloc(n, sizeof *h_in);
    void **h_z = calloc(n, sizeof *h_z), **h_out = calloc(n, sizeof *h_out);
    size_t *h_bytes = calloc(n, sizeof *h_bytes), *h_sz = calloc(n, sizeof *h_sz);
    nvcompStatus_t *h_st = calloc(n, sizeof *h_st);
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double tc[256], td[256];
    if (reps > 256) reps = 256;
    if (!h_in || !h_z || !h_out || !h_bytes || !h_sz || !h_st) {
        snprintf(row->err, sizeof row->err, "out of host memory");
        goto done;
    }
    size_t max_out = 0, t_c = 0, t_d = 0;
    NKR(c->sizes(c, es, n, raw, &max_out, &t_c, &t_d), "sizes");
    max_out = (max_out + 255) & ~(size_t)255; /* every slot 256-byte aligned */
    j.temp_bytes = t_c > t_d ? t_c : t_d;
    CKR(cudaMalloc(&d_z, n * max_out));
    CKR(cudaMalloc(&d_out, raw));
    if (j.temp_bytes) CKR(cudaMalloc(&j.temp, j.temp_bytes));
    CKR(cudaMalloc((void **)&j.in_ptrs, n * sizeof(void *)));
    CKR(cudaMalloc((void **)&j.z_ptrs, n * sizeof(void *)));
    CKR(cudaMalloc((void **)&j.out_ptrs, n * sizeof(void *)));
    CKR(cudaMalloc((void **)&j.in_bytes, n * sizeof(size_t)));
    CKR(cudaMalloc((void **)&j.z_bytes, n * sizeof(size_t)));
    CKR(cudaMalloc((void **)&j.out_bytes, n * sizeof(size_t)));
    CKR(cudaMalloc((void **)&j.st, n * sizeof(nvcompStatus_t)));
    for (size_t i = 0; i < n; i++) {
        h_in[i] = (const char *)d_src + i * NVC_CHUNK;
        h_z[i] = (char *)d_z + i * max_out;
        h_out[i] = (char *)d_out + i * NVC_CHUNK;
        h_bytes[i] = i + 1 < n ? NVC_CHUNK : raw - i * NVC_CHUNK;
    }
    CKR(cudaMemcpy(j.in_ptrs, h_in, n * sizeof(void *), cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(j.z_ptrs, h_z, n * sizeof(void *), cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(j.out_ptrs, h_out, n * sizeof(void *), cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(j.in_bytes, h_bytes, n * sizeof(size_t), cudaMemcpyHostToDevice));
    CKR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CKR(cudaEventCreate(&e0));
    CKR(cudaEventCreate(&e1));

    for (int i = -warmup; i < reps; i++) {
        float ms;
        CKR(cudaEventRecord(e0, s));
        NKR(c->comp(c, es, &j, s), "compress");
        CKR(cudaEventRecord(e1, s));
        CKR(cudaEventSynchronize(e1));
        CKR(cudaGetLastError());
        CKR(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0) tc[i] = raw / (ms * 1e-3) / 1e9;
    }
    if (!statuses_ok(&j, h_st, h_sz, NULL, row->err, sizeof row->err, "compress")) goto done;
    CKR(cudaMemcpy(h_sz, j.z_bytes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        if (h_sz[i] > max_out) {
            snprintf(row->err, sizeof row->err, "chunk %zu: %zu compressed bytes > max %zu", i, h_sz[i], max_out);
            goto done;
        }
        row->stream += h_sz[i];
    }
    CKR(cudaMemset(d_out, 0xA5, raw)); /* poison: every byte must be written */
    for (int i = -warmup; i < reps; i++) {
        float ms;
        CKR(cudaEventRecord(e0, s));
        NKR(c->dec(c, es, &j, s), "decompress");
        CKR(cudaEventRecord(e1, s));
        CKR(cudaEventSynchronize(e1));
        CKR(cudaGetLastError());
        CKR(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0) td[i] = raw / (ms * 1e-3) / 1e9;
    }
    if (!statuses_ok(&j, h_st, h_sz, h_bytes, row->err, sizeof row->err, "decompress")) goto done;
    h_back = malloc(raw);
    if (!h_back) {
        snprintf(row->err, sizeof row->err, "out of host memory");
        goto done;
    }
    CKR(cudaMemcpy(h_back, d_out, raw, cudaMemcpyDeviceToHost));
    if (memcmp(h_back, h_src, raw)) {
        snprintf(row->err, sizeof row->err, "round trip differs");
        row->mismatch = 1;
        goto done;
    }
    row->comp = bench_median(tc, reps);
    row->dec = bench_median(td, reps);
    row->ok = 1;
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (s) cudaStreamDestroy(s);
    cudaFree(d_z);
    cudaFree(d_out);
    cudaFree(j.temp);
    cudaFree((void *)j.in_ptrs);
    cudaFree(j.z_ptrs);
    cudaFree(j.out_ptrs);
    cudaFree(j.in_bytes);
    cudaFree(j.z_bytes);
    cudaFree(j.out_bytes);
    cudaFree(j.st);
    free(h_back);
    free(h_in);
    free(h_z);
    free(h_out);
    free(h_bytes);
    free(h_sz);
    free(h_st);
    cudaGetLastError(); /* an error above is in the row; do not leak it to the next caller */
}

int nvc_bench(const void *d_src, const void *h_src, size_t raw, int elem_size, int reps, int warmup,
              nvc_row rows[NVC_MAX_ROWS]) {
    int k = 0;
    for (size_t i = 0; i < sizeof g_codecs / sizeof *g_codecs && k < NVC_MAX_ROWS; i++) {
        if (g_codecs[i].elem && g_codecs[i].elem != elem_size) continue;
        bench_one(&g_codecs[i], d_src, h_src, raw, elem_size, reps < 1 ? 1 : reps, warmup, &rows[k++]);
    }
    return k;
}

#endif

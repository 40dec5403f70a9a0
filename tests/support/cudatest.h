/*
 * cudatest.h -- what the GPU test programs (tests/test_cuda_*.c) share.
 * Without a CUDA build (SCZ_TEST_CUDA undefined) including it gives the
 * program's main, which reports the test skipped with the backend's reason
 * (never passed); the test's own code then sits in #ifdef SCZ_TEST_CUDA.
 * With CUDA: CUDA_OK for runtime calls (a failure ends the program) and
 * st() for status names.
 */
#ifndef SCZ_CUDATEST_H
#define SCZ_CUDATEST_H

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCZ_TEST_CUDA
int main(void) {
    char why[512];
    scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why);
    tu_skip(why[0] ? why : "CUDA backend not built");
    return TEST_SKIP_CODE;
}
#else
#include <cuda_runtime.h>

#define CUDA_OK(call)                                                                                          \
    do {                                                                                                       \
        cudaError_t e_ = (call);                                                                               \
        if (e_ != cudaSuccess) {                                                                               \
            fprintf(stderr, "FATAL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

static inline const char *st(scz_status s) { return scz_status_string(s); }

/* Compresses src through the host API on gpu (`batches` names its batch
 * setting in messages) and checks that the stream is the CPU's (ref, ref_n
 * bytes). Returns the GPU's stream, *n bytes (the caller frees it), or
 * NULL where compression failed (tu_compress reported it); *same: 1 where
 * the two streams are equal. */
static inline uint8_t *cudatest_gpu_stream(scz_ctx *gpu, const char *batches, const scz_params *p,
                                           const scz_shape *s, const void *src, const uint8_t *ref, size_t ref_n,
                                           size_t *n, const char *what, int *same) {
    *same = 0;
    uint8_t *zg = tu_compress(gpu, p, s, src, n, what);
    if (!zg) return NULL;
    *same = *n == ref_n && memcmp(zg, ref, ref_n) == 0;
    CHECK(*same, "%s: GPU stream (%s batches, %zu bytes) differs from the CPU's (%zu bytes) at byte %zu", what,
          batches, *n, ref_n, tu_first_diff(zg, ref, *n < ref_n ? *n : ref_n));
    return zg;
}

/* Device-pointer API round trip of a lossless codec: src compressed by
 * scz_cuda_compress on gpu must give ref (the CPU's stream, ref_n bytes),
 * and ref decompressed by scz_cuda_decompress must give src back.
 * *stream_same / *decode_same: 1 where each held. */
static inline void cudatest_device_api(scz_ctx *gpu, const scz_params *p, const scz_shape *s, const void *src,
                                       size_t raw, const uint8_t *ref, size_t ref_n, const char *what,
                                       int *stream_same, int *decode_same) {
    const size_t bound = scz_compress_bound(s, p);
    void *d_src, *d_z, *d_out;
    *stream_same = *decode_same = 0;
    CUDA_OK(cudaMalloc(&d_src, raw ? raw : 1));
    CUDA_OK(cudaMalloc(&d_z, bound > ref_n ? bound : ref_n));
    CUDA_OK(cudaMalloc(&d_out, raw ? raw : 1));
    CUDA_OK(cudaMemcpy(d_src, src, raw, cudaMemcpyHostToDevice));
    uint64_t *size_out;
    CUDA_OK(cudaMallocHost((void **)&size_out, 8));
    *size_out = 0;
    scz_status r = scz_cuda_compress(gpu, p, s, d_src, d_z, bound, size_out, NULL);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(r == SCZ_OK, "%s: device compress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
    if (!r) {
        CHECK(*size_out == ref_n, "%s: device stream %llu bytes, CPU %zu", what, (unsigned long long)*size_out, ref_n);
        uint8_t *h = (uint8_t *)malloc(bound ? bound : 1);
        CUDA_OK(cudaMemcpy(h, d_z, bound, cudaMemcpyDeviceToHost));
        if (*size_out == ref_n) {
            const size_t d = tu_first_diff(h, ref, ref_n);
            CHECK(d == ref_n, "%s: device stream differs from the CPU's at byte %zu of %zu", what, d, ref_n);
            *stream_same = d == ref_n;
        }
        free(h);
    }
    CUDA_OK(cudaMemcpy(d_z, ref, ref_n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_out, 0x77, raw ? raw : 1));
    r = scz_cuda_decompress(gpu, d_z, ref_n, d_out, raw, NULL, NULL, NULL);
    CHECK(r == SCZ_OK, "%s: device decompress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
    if (!r) {
        uint8_t *o = (uint8_t *)malloc(raw ? raw : 1);
        CUDA_OK(cudaMemcpy(o, d_out, raw, cudaMemcpyDeviceToHost));
        *decode_same = tu_first_diff(o, src, raw) == raw;
        CHECK(*decode_same, "%s: device decode differs", what);
        free(o);
    }
    CUDA_OK(cudaFreeHost(size_out));
    CUDA_OK(cudaFree(d_src));
    CUDA_OK(cudaFree(d_z));
    CUDA_OK(cudaFree(d_out));
}

/* Stream z (maybe corrupt) of an array of raw bytes: the CPU and the GPU
 * (host and device API) answer alike; where both accept it, they decode
 * the same bytes; nothing is written past the array. */
static inline void cudatest_same_answer(scz_ctx *cpu, scz_ctx *gpu, const uint8_t *z, size_t n, size_t raw,
                                        const char *what) {
    uint8_t *oc = tu_guarded_alloc(raw, 0x22), *o = tu_guarded_alloc(raw, 0x22);
    const scz_status rc = scz_decompress(cpu, z, n, oc, raw, NULL);
    const scz_status rg = scz_decompress(gpu, z, n, o, raw, NULL);
    CHECK(rg == rc, "%s: CPU says %s, GPU says %s (%s)", what, st(rc), st(rg), scz_ctx_last_error(gpu));
    if (rc == SCZ_OK && rg == SCZ_OK) CHECK(memcmp(o, oc, raw) == 0, "%s: CPU and GPU decode differently", what);
    CHECK(tu_guard_intact(o, raw), "%s: wrote past the array", what);
    void *dz, *dout;
    CUDA_OK(cudaMalloc(&dz, n ? n : 1));
    CUDA_OK(cudaMalloc(&dout, raw ? raw : 1));
    CUDA_OK(cudaMemcpy(dz, z, n, cudaMemcpyHostToDevice));
    const scz_status rd = scz_cuda_decompress(gpu, dz, n, dout, raw, NULL, NULL, NULL);
    CHECK(rd == rc, "%s: device API says %s, CPU %s (%s)", what, st(rd), st(rc), scz_ctx_last_error(gpu));
    CUDA_OK(cudaFree(dz));
    CUDA_OK(cudaFree(dout));
    free(o);
    free(oc);
}
#endif

#endif

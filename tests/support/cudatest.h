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
#endif

#endif

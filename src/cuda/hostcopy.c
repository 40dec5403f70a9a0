/*
 * hostcopy.c -- multithreaded host memcpy for the CUDA backend's pinned
 * staging buffers (one thread copies far below the PCIe rate).
 */
#include "backend.h"

#include <string.h>

void scz__par_memcpy(void *dst, const void *src, size_t n, int threads) {
    const size_t piece = (size_t)1 << 20;
    if (threads <= 1 || n < 2 * piece) {
        memcpy(dst, src, n);
        return;
    }
    const int64_t np = (int64_t)((n + piece - 1) / piece);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < np; i++) {
        size_t o = (size_t)i * piece;
        memcpy((char *)dst + o, (const char *)src + o, n - o < piece ? n - o : piece);
    }
}

void scz__par_memcpy_many(uint8_t *dst, const uint64_t *dst_off, const uint8_t *src, const uint64_t *src_off,
                          const uint64_t *len, uint32_t n, int threads) {
    if (n < 2 * (uint32_t)threads || threads <= 1) { /* few chunks: split each one over the threads */
        for (uint32_t i = 0; i < n; i++) scz__par_memcpy(dst + dst_off[i], src + src_off[i], (size_t)len[i], threads);
        return;
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < (int64_t)n; i++) memcpy(dst + dst_off[i], src + src_off[i], (size_t)len[i]);
}

/*
 * rle.c -- run-length coding of 16-bit symbols (docs/FORMAT.md 7.5).
 */
#include "rle.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAXT 64

uint64_t scz__rle_encode(const uint16_t *s, uint64_t n, uint32_t max_run, int T, uint32_t *bnd,
                         uint16_t *vals, uint16_t *lens) {
    if (n == 0) return 0;
    if (T > MAXT) T = MAXT;
    if (T < 1) T = 1;
    uint64_t a[MAXT + 1], m[MAXT], runs[MAXT], first[MAXT + 1];
    for (int t = 0; t <= T; t++) a[t] = n * (uint64_t)t / (uint64_t)T;
    /* 1: positions where a new symbol starts (thread-independent set) */
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
    for (int t = 0; t < T; t++) {
        uint64_t i = a[t], e = a[t + 1], k = a[t];
        if (i < e && (i == 0 || s[i] != s[i - 1])) bnd[k++] = (uint32_t)i;
        i++;
        /* inside this thread's part (bnd below i) */
        k = scz__rle_starts(s, i, e, bnd, k);
        m[t] = k - a[t];
    }
    /* first boundary at or after each thread's start (n if none) */
    first[T] = n;
    for (int t = T - 1; t >= 0; t--) first[t] = m[t] ? bnd[a[t]] : first[t + 1];
    /* 2: count runs (only to place the threads' parts: one thread writes
     * at once), 3: write them */
    for (int pass = T == 1 ? 1 : 0; pass < 2; pass++) {
        uint64_t off[MAXT];
        if (pass == 1) {
            uint64_t o = 0;
            for (int t = 0; t < T; t++) {
                off[t] = o;
                o += T == 1 ? 0 : runs[t];
            }
        }
#pragma omp parallel for schedule(static, 1) num_threads(T) if (T > 1)
        for (int t = 0; t < T; t++) {
            uint64_t r = 0, o = pass ? off[t] : 0;
            for (uint64_t j = 0; j < m[t]; j++) {
                uint64_t st = bnd[a[t] + j];
                uint64_t en = j + 1 < m[t] ? bnd[a[t] + j + 1] : first[t + 1];
                uint64_t len = en - st;
                if (len <= max_run) { /* one piece (no division per run) */
                    if (pass) {
                        vals[o] = s[st];
                        lens[o] = (uint16_t)(len - 1);
                        o++;
                    }
                    r++;
                    continue;
                }
                uint64_t pieces = (len + max_run - 1) / max_run;
                if (pass) {
                    uint16_t v = s[st];
                    for (uint64_t p = 0; p < pieces; p++) {
                        uint64_t l = len - p * max_run < max_run ? len - p * max_run : max_run;
                        vals[o] = v;
                        lens[o] = (uint16_t)(l - 1);
                        o++;
                    }
                }
                r += pieces;
            }
            runs[t] = r;
        }
    }
    uint64_t total = 0;
    for (int t = 0; t < T; t++) total += runs[t];
    return total;
}

int scz__rle_decode(const uint16_t *vals, const uint16_t *lens, uint64_t nruns, uint32_t max_run,
                    uint16_t *out, uint64_t n, int T, uint32_t *starts) {
    uint64_t pos = 0;
    for (uint64_t k = 0; k < nruns; k++) {
        if (k && vals[k] == vals[k - 1] && (uint32_t)lens[k - 1] + 1 != max_run) return -1;
        if ((uint32_t)lens[k] + 1 > max_run) return -1;
        starts[k] = (uint32_t)pos;
        pos += (uint64_t)lens[k] + 1;
        if (pos > n) return -1;
    }
    if (pos != n) return -1;
    if (T < 1) T = 1;
    if ((uint64_t)T > nruns / 64 + 1) T = (int)(nruns / 64 + 1);
#pragma omp parallel for schedule(static) num_threads(T) if (T > 1)
    for (uint64_t k = 0; k < nruns; k++) {
        uint16_t v = vals[k];
        uint16_t *o = out + starts[k];
        uint32_t l = (uint32_t)lens[k] + 1;
        for (uint32_t i = 0; i < l; i++) o[i] = v;
    }
    return 0;
}

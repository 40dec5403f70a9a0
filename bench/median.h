/*
 * median.h -- the median of a set of timings, shared by the CPU and GPU
 * benchmarks and the nvCOMP peer (all report medians of repeated runs).
 */
#ifndef SCZ_BENCH_MEDIAN_H
#define SCZ_BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) in place and returns its median (0 for n == 0). */
static inline double bench_median(double *v, int n) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif

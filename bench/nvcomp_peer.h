/*
 * nvcomp_peer.h -- nvCOMP measured beside scz in scz_bench_gpu (optional).
 *
 * Built with SCZ_HAVE_NVCOMP when CMake finds nvCOMP (bench/CMakeLists.txt);
 * without it nvc_describe() says so and nvc_bench() measures nothing.
 */
#ifndef SCZ_NVCOMP_PEER_H
#define SCZ_NVCOMP_PEER_H

#include <stddef.h>

#define NVC_MAX_ROWS 8

typedef struct nvc_row {
    char codec[24];    /* "Bitcomp", "Cascaded", "LZ4", "ANS", ... */
    char config[48];   /* data type and options used */
    size_t stream;     /* compressed payload bytes (sum over chunks) */
    double comp, dec;  /* GB/s, raw bytes / time, median */
    int ok;            /* 1: measured and the round trip is exact */
    int mismatch;      /* 1: decoded bytes differ from the input */
    char err[96];      /* why not, when ok == 0 */
} nvc_row;

/* 1 when nvCOMP is built in; buf gets its version and the batch layout
 * (or why it is absent). */
int nvc_describe(char *buf, size_t n);

/* Measures each nvCOMP codec on the device buffer d_src (raw bytes of
 * elements of elem_size 4 or 8 bytes; h_src holds the same bytes on the host
 * for verification): compress and decompress device to device, CUDA events,
 * median of reps runs after warmup runs. Returns the number of rows. */
int nvc_bench(const void *d_src, const void *h_src, size_t raw, int elem_size, int reps, int warmup,
              nvc_row rows[NVC_MAX_ROWS]);

#endif

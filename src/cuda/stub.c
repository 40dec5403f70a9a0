/*
 * stub.c -- the CUDA entry points of scz.h in a build without CUDA: they
 * report that the backend is not built in. (With CUDA, runtime.cu defines
 * them and this file compiles to nothing.)
 */
#include "../internal.h"
#include "../util/error.h"

#ifndef SCZ_HAVE_CUDA
#include <stdio.h>

scz_status scz_backend_probe(scz_backend backend, char *msg, size_t msg_cap) {
    const char *why = "";
    scz_status st = SCZ_OK;
    if (backend == SCZ_BACKEND_CUDA) {
        why = "CUDA backend: not built in (configure where nvcc is found, with -DSCZ_CUDA=ON)";
        st = SCZ_ERR_BACKEND;
    } else if (backend != SCZ_BACKEND_CPU) {
        why = "unknown backend";
        st = SCZ_ERR_BACKEND;
    }
    if (msg && msg_cap) snprintf(msg, msg_cap, "%s", why);
    return st;
}

int scz_cuda_codec_supported(scz_codec c) {
    (void)c;
    return 0;
}

size_t scz_cuda_scratch_size(const scz_shape *shape, const scz_params *params) {
    (void)shape;
    (void)params;
    return 0;
}

scz_status scz_cuda_reserve(scz_ctx *ctx, size_t bytes) {
    (void)bytes;
    return scz__fail(ctx, SCZ_ERR_BACKEND, "CUDA backend: not built in");
}

scz_status scz_cuda_compress(scz_ctx *ctx, const scz_params *params, const scz_shape *shape, const void *d_src,
                             void *d_dst, size_t dst_cap, uint64_t *size_out, scz_cuda_stream stream) {
    (void)params, (void)shape, (void)d_src, (void)d_dst, (void)dst_cap, (void)size_out, (void)stream;
    return scz__fail(ctx, SCZ_ERR_BACKEND, "CUDA backend: not built in");
}

scz_status scz_cuda_decompress(scz_ctx *ctx, const void *d_src, size_t src_size, void *d_dst, size_t dst_cap,
                               scz_shape *shape, scz_status *status_out, scz_cuda_stream stream) {
    (void)d_src, (void)src_size, (void)d_dst, (void)dst_cap, (void)shape, (void)status_out, (void)stream;
    return scz__fail(ctx, SCZ_ERR_BACKEND, "CUDA backend: not built in");
}
#endif

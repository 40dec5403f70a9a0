/*
 * codecs_cuda.cu -- the GPU codec registry: which codecs have CUDA kernels
 * in this build (struct scz_cuda_codec_ops, cuda_rt.h). A codec defines its
 * ops in its own folder and is listed here, one line each; every other
 * codec runs on the CPU on a CUDA context.
 */
#include "cuda_rt.h"

extern const scz_cuda_codec_ops scz__ndzip_cuda_ops;   /* src/ndzip/ndzip.cu */
extern const scz_cuda_codec_ops scz__huffman_cuda_ops; /* src/entropy/huffman.cu */
extern const scz_cuda_codec_ops scz__lossy_cuda_ops;   /* src/lossy/lossy.cu */
extern const scz_cuda_codec_ops scz__gfc_cuda_ops;     /* src/gfc/gfc.cu */
extern const scz_cuda_codec_ops scz__lzss_cuda_ops;    /* src/lzss/lzss.cu */

static const scz_cuda_codec_ops *const registry[] = {
    &scz__ndzip_cuda_ops,
    &scz__huffman_cuda_ops,
    &scz__lossy_cuda_ops,
    &scz__gfc_cuda_ops,
    &scz__lzss_cuda_ops,
};

const scz_cuda_codec_ops *scz__cuda_codec_at(size_t i) {
    return i < sizeof registry / sizeof registry[0] ? registry[i] : nullptr;
}

const scz_cuda_codec_ops *scz__cuda_codec_ops(scz_codec id) {
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i]->id == id) return registry[i];
    return nullptr;
}

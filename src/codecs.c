/*
 * codecs.c -- the codec registry: which codec ids this build implements.
 * A new codec defines its scz_codec_ops in its own folder and is listed here.
 */
#include "internal.h"

extern const scz_codec_ops scz__ndzip_ops;
extern const scz_codec_ops scz__lossy_ops, scz__huffman_ops;
extern const scz_codec_ops scz__lzss_ops;
extern const scz_codec_ops scz__gfc_ops;

static const scz_codec_ops *const registry[] = {
    &scz__ndzip_ops,
    &scz__lossy_ops,
    &scz__huffman_ops,
    &scz__lzss_ops,
    &scz__gfc_ops,
};

const scz_codec_ops *scz__codec_ops(scz_codec id) {
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i]->id == id) return registry[i];
    return NULL;
}

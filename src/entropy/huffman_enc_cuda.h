/*
 * huffman_enc_cuda.h -- bare Huffman streams (docs/FORMAT.md 8.1-8.4, the
 * normative codebook of 8.2) written on the GPU for other codecs' kernels:
 * the lossy codec's quantization codes and run-length streams. The kernels
 * are the `huffman` codec's (huffman.cu), so both write the CPU's bytes.
 * CUDA C++, .cu files only.
 *
 * A *set* is n streams encoded together: stream i holds count[i] (a device
 * array, <= cap) u16 symbols at sym + i * stride (or u8 symbols: sym8),
 * alphabet K. Encoding is
 * two steps, everything on the device and asynchronous on one CUDA stream:
 *   scz__hse_plan   histograms, codebooks, each stream's size in bytes (and
 *                   its total_bits) into device arrays;
 *   scz__hse_write  the streams whose d_off[i] != ~0 at out + d_off[i].
 * `state` (scz__hse_scratch bytes) keeps the codebooks from plan to write;
 * `work` (scz__hse_work bytes) is the work area of write (gap nibbles and
 * segment entries; the bitstream words go straight to `out`), which sets
 * written one after the other may share. Both 256-byte aligned.
 */
#ifndef SCZ_HUFFMAN_ENC_CUDA_H
#define SCZ_HUFFMAN_ENC_CUDA_H

#include "../cuda/cuda_rt.h"

struct scz_hse {
    const uint16_t *sym;   /* stream i's symbols at sym + i * stride */
    uint64_t stride;       /* in symbols */
    const uint32_t *count; /* device: symbols of each stream, <= cap */
    uint32_t n;            /* streams */
    uint32_t K;            /* alphabet size, 1..65536 */
    uint64_t cap;          /* most symbols of one stream */
    uint32_t hist_ready;   /* 1: the caller counted the symbols into scz__hse_hist (plan skips its pass) */
    const uint32_t *Kv;    /* device: stream i's alphabet size Kv[i] <= K, or NULL: K for every stream */
    const uint64_t *soff;  /* device: stream i's first symbol at sym + soff[i] (then stride is unused), or NULL */
    const uint8_t *sym8;   /* or NULL: u8 symbols in place of sym (stream i at sym8 + i * stride; K <= 256, soff
                              NULL); the set's state is that of the same set of u16 symbols */
    uint32_t few;          /* 1: streams use few symbols of a large K (run lengths): the plan sorts each stream's
                              used symbols in its own block, not by CUB's segmented sort (8 launches) */
};

/* State of a set of n streams of at most cap symbols each, of alphabets
 * up to K (the set's scz_hse.K); the work area of its writing. */
size_t scz__hse_scratch(uint32_t n, uint64_t cap, uint32_t K);
size_t scz__hse_work(uint32_t n, uint64_t cap);
/* The most bytes one stream of at most cap symbols can take. */
uint64_t scz__hse_bound(uint64_t cap, uint32_t K);
/* The set's histogram in `state`: stream i's counts at i * (*stride) u32.
 * A producer that counts its symbols while writing them zeroes it, adds
 * to it, and sets hist_ready; the counts must be exact. */
uint32_t *scz__hse_hist(const scz_hse *h, void *state, uint32_t *stride);
cudaError_t scz__hse_plan(const scz_hse *h, void *state, void *work, uint64_t *d_size, uint64_t *d_bits,
                          cudaStream_t s);
cudaError_t scz__hse_write(const scz_hse *h, void *state, void *work, const uint64_t *d_off, uint8_t *out,
                           cudaStream_t s);

#endif

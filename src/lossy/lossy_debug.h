/*
 * lossy_debug.h -- white-box entries for the tests: of the level-1 writers
 * (tests/test_cuda_lossy_enc1.c): the CPU writer's estimate and decision
 * (lossy.c) and its interpolation codes and lists for one chunk, and the
 * GPU writer's (lossy_enc1.cu) for a batch of chunks; and the GPU
 * decoder's chunk counts (tests/test_cuda_lossy_dec.c). Not part of the
 * API; no stream's bytes depend on them.
 */
#ifndef SCZ_LOSSY_DEBUG_H
#define SCZ_LOSSY_DEBUG_H

#include "../internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CPU, one chunk of geometry cg at bound eb (psnr: the PSNR rule, Lorenzo
 * without an estimate): costs[LZ1_NCOST] of 7.10 step 1 and dec[5] =
 * {pred, order, alt, alt_order, tight}. */
void scz__lossy1_debug_estimate(const scz_chunk_geom *cg, const void *src, double eb, int psnr, uint64_t *costs,
                                uint8_t *dec);

/* CPU, one chunk, T threads: the estimate's sums costs[LZ1_NCOST] (7.10
 * step 1) of lz_estimate (its vectorised, threaded walk over the
 * samples). */
void scz__lossy1_debug_estimate_t(const scz_chunk_geom *cg, const void *src, double eb, int T, uint64_t *costs);

/* CPU, one chunk: the interpolation encoder (pred 1 or 2, axis order,
 * level bounds) with the largest radius R: codes[N] in traversal order
 * (radius R, V_new / V_repeat decided), the outlier list (oidx, odel) and
 * the verbatim elements' indices (vpos) of the codes 2R, their numbers,
 * and the chunk's radius *r (7.10 step 2). oidx, odel, vpos: N entries
 * (scratch). Returns 0, or -1 without memory. */
int scz__lossy1_debug_interp(const scz_chunk_geom *cg, const void *src, double eb, uint32_t R, unsigned pred,
                             unsigned order, unsigned tight, uint16_t *codes, uint32_t *oidx, int64_t *odel,
                             uint32_t *vpos, uint64_t *nout, uint64_t *nvnew, uint32_t *r);

/* CPU (context ctx), one chunk: what lz1_encode decides for a given predictor, axis
 * order and level bounds with knobs[0] = R and knobs[1] = knob1: the
 * radius, the number of sweeps S, the sweep streams g, whether the
 * run-length candidate is formed, the single Huffman stream's size and
 * bits and the Huffman section's size (its g + 1 streams). Returns 0, or
 * a status. */
typedef struct scz_l1trace {
    uint32_t r, S, g, rle;
    uint64_t size0, bits0, hsz;
    uint32_t rformed;  /* the run-length candidate was formed (7.5's criterion; before the 21/20 rule) */
    uint64_t rsz;      /* its section's size (4 + two streams), when formed */
    uint64_t obytes, nvnew; /* the outlier list's bytes, the verbatim values */
    uint64_t bh, br;   /* the bodies' sizes: Huffman (knobs[1] != 2), run-length (0 where not kept) */
    uint8_t *body;     /* in: NULL, or where the Huffman body goes (its bh bytes, if at most body_cap) */
    uint8_t *rbody;    /* in: NULL, or where the run-length body goes (br bytes where kept, if at most body_cap) */
    uint64_t body_cap;
    uint8_t *payload;  /* in: NULL, or where the chunk's payload goes (if at most body_cap) */
    uint64_t psize;    /* the payload's size */
    uint32_t pinfo;    /* its codec_info */
} scz_l1trace;
int scz__lossy1_debug_encode(scz_ctx *ctx, const scz_chunk_geom *cg, const void *src, double eb, uint32_t R,
                             uint32_t knob1, unsigned pred, unsigned order, unsigned tight, scz_l1trace *tr);

/* CPU (context ctx), one chunk: the whole level-1 writer (lossy.c
 * lz1_compress: estimate, trial, payload) at bound eb (psnr: the PSNR
 * rule's Lorenzo), knobs[0] = R, knobs[1] = 0: the payload at dst (cap
 * bytes), *size, *info. Returns 0 or a status. */
int scz__lossy1_debug_compress(scz_ctx *ctx, const scz_chunk_geom *cg, const void *src, double eb, int psnr,
                               uint32_t R, uint8_t *dst, uint64_t cap, uint64_t *size, uint32_t *info);

/* GPU (lossy_enc1.cu), a batch of nch chunks: chunk c's elements at src +
 * c x full.count x esize (host memory), every chunk of geometry full but
 * the last (last). Outputs in host memory, NULL where not wanted. */
typedef struct scz_l1dbg {
    const void *src;
    uint32_t nch;
    scz_chunk_geom full, last;
    double eb;
    uint32_t R;
    int psnr;
    /* NULL, or per chunk {pred, order, tight}: the sweeps use these instead
     * of the decision (pred 0: no sweeps) */
    const uint8_t *force;
    uint64_t *costs;   /* nch x LZ1_NCOST */
    uint8_t *dec;      /* nch x 5: pred, order, alt, alt_order, tight */
    uint16_t *codes;   /* nch x full.count: interpolated chunks' codes, radius R, traversal order */
    int64_t *aux;      /* nch x full.count: at an outlier's position its error, at a code 2R's its element index */
    uint32_t *r;       /* nch: radius (7.10 step 2); 0 for a chunk without sweeps */
    uint64_t *nout, *nvnew; /* nch: outliers, codes 2R */
    /* sweep streams (7.10 step 3) of the interpolated chunks, per chunk:
     * g, the Huffman section's size, the single stream's size and bits */
    uint32_t *g;
    uint64_t *hsz, *size0, *bits0;
    /* run-length candidate (knobs[1] = 0) of the interpolated chunks, per
     * chunk: formed (7.5's criterion), its section's size, kept (the 21/20
     * rule of 7.10 step 3) */
    uint32_t *rformed, *rle;
    uint64_t *rsz;
    /* the outlier list's bytes and the bodies' sizes (Huffman, run-length or 0) */
    uint64_t *obytes, *bh, *br;
    /* the Huffman bodies (7.9) of the interpolated chunks: chunk c's bh[c]
     * bytes at bodies + c x bstride where they fit */
    uint8_t *bodies, *rbodies; /* rbodies: the run-length bodies where kept (br[c] bytes) */
    uint64_t bstride;
    /* the payloads (7.9) of the interpolated chunks: psize[c] bytes (0:
     * not written: Lorenzo) at pay + c x bstride where they fit, workflow
     * pinfo[c] (= codec_info) */
    uint8_t *pay;
    uint64_t *psize;
    uint32_t *pinfo;
    /* the final payloads: with the trial (7.10 step 1) where the decision
     * asks for it (the trial runs as extra chunks after the batch's) */
    uint8_t *fpay;
    uint64_t *fpsize;
    uint32_t *fpinfo;
    double ms[6];      /* out: device time of the estimate and decision, the sweeps, V_new / V_repeat, the choice of
                          g, the run-length candidate with the outlier list's bytes, the Huffman bodies */      /* out: device time of the estimate and decision, the sweeps, V_new / V_repeat, the choice of g */
} scz_l1dbg;

/* Runs the GPU writer's estimate, decision and sweeps; returns a
 * cudaError_t (0: success). */
int scz__lossy1_cuda_debug(scz_l1dbg *d);

/* GPU decoder (lossy_dec.cu): the level-0 Huffman chunks the current
 * device has decoded with wide and with narrow (a byte per code) tables
 * since the program started. Returns 0, or a CUDA error code. */
int scz__lossy_cuda_huff_chunks(unsigned long long *wide, unsigned long long *narrow);

#ifdef __cplusplus
}
#endif

#endif

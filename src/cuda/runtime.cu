/*
 * runtime.cu -- the CUDA backend: device detection, the context's device
 * scratch, streams and pinned staging buffers, the blocked XXH64 checksum
 * of docs/FORMAT.md section 5 on the GPU, the container around device
 * buffers (sections 2-4: header and chunk table), the device-pointer API
 * of scz.h, and the host-pointer paths that stream chunks through the GPU.
 * Nothing here is codec-specific: codec kernels live beside their CPU
 * versions and are reached through their scz_cuda_codec_ops (cuda_rt.h),
 * listed in codecs_cuda.cu.
 */
#include "cuda_rt.h"
#include "../util/xxh64.h"
#include "kutil.h"
#include "bhash.h"

#include <cub/cub.cuh>

extern "C" {
#include "backend.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int NSLOT = 3;                         /* batches in flight on the host path */
constexpr int NGROUP = 8;                        /* most chunk groups of a batch: encode k+1 beside hash k */
constexpr int DEFAULT_GROUPS = 1, DEFAULT_HASH_CTAS = 0, DEFAULT_DEC_HASH = 0; /* bench/sweep_gpu.sh, docs/GPU.md */
constexpr uint64_t DEFAULT_BATCH = 64ull << 20;  /* raw bytes per streamed batch */

/* Plain data, allocated zeroed (calloc): no C++ runtime needed. */
struct Slot {
    cudaStream_t st, aux; /* aux: checksums beside the codec kernels */
    cudaEvent_t ev_k, ev_d2h, ev_fork, ev_join, ev_grp[NGROUP + 1];
    uint8_t *pin_in, *pin_out;
    size_t pin_in_cap, pin_out_cap;
    uint8_t *d_in, *d_out, *d_scr;
    size_t d_in_cap, d_out_cap, d_scr_cap;
    uint64_t *pin_meta;
    size_t pin_meta_cap;
};

struct Ctx {
    int device;
    uint8_t *scr; /* device API scratch */
    size_t scr_cap;
    uint8_t *pin_hdr; /* header + table read back by the device API */
    size_t pin_hdr_cap;
    uint64_t *pin_small;
    size_t pin_small_cap;
    cudaStream_t aux; /* device API: checksums beside the codec kernels */
    cudaEvent_t ev_fork, ev_join, ev_grp[NGROUP + 1];
    int sms;          /* multiprocessors of the device */
    int groups;       /* chunk groups per compressed batch (1..NGROUP) */
    int hash_ctas;    /* resident hashing blocks per SM beside a codec kernel; 0 = hash after it */
    int dec_hash;     /* device API decompression: 1 = checksums on a second stream, launched after
                       * the decoder (they fill its tail); 0 = before it on the caller's stream */
    int dec_env;      /* SCZ_CUDA_HASH_CTAS or SCZ_CUDA_DEC_HASH given: they decide for every codec */
    int fused;        /* decoders that hash the payloads they read do (SCZ_CUDA_FUSED_HASH=0: never) */
    int slots_ready;
    Slot slot[NSLOT];
    uint64_t batch_bytes;
};

inline Ctx *cctx(scz_ctx *ctx) { return static_cast<Ctx *>(ctx->cuda); }

scz_status cuda_fail(scz_ctx *ctx, cudaError_t e, const char *what) {
    cudaGetLastError(); /* clear a non-sticky error */
    return scz__fail(ctx, e == cudaErrorMemoryAllocation ? SCZ_ERR_NOMEM : SCZ_ERR_BACKEND, "CUDA: %s: %s", what,
                     cudaGetErrorString(e));
}

#define CK(call, what)                                                                                         \
    do {                                                                                                       \
        cudaError_t e_ = (call);                                                                               \
        if (e_ != cudaSuccess) return cuda_fail(ctx, e_, what);                                               \
    } while (0)

/* Makes the context's device current for the duration of a call. */
struct DevGuard {
    int prev = -1;
    explicit DevGuard(int dev) {
        int cur;
        if (cudaGetDevice(&cur) == cudaSuccess && cur != dev && cudaSetDevice(dev) == cudaSuccess) prev = cur;
    }
    ~DevGuard() {
        if (prev >= 0) cudaSetDevice(prev);
    }
};

size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Grow-only buffers; sizes rounded to 1 MiB so that small variations do not
 * reallocate. */
cudaError_t dgrow(uint8_t **p, size_t *cap, size_t need) {
    if (*p && *cap >= need) return cudaSuccess;
    if (*p) cudaFree(*p);
    *p = nullptr;
    *cap = 0;
    size_t n = round_up(need ? need : 1, (size_t)1 << 20);
    cudaError_t e = cudaMalloc(reinterpret_cast<void **>(p), n);
    if (e == cudaSuccess) *cap = n;
    else *p = nullptr;
    return e;
}

template <typename P> cudaError_t hgrow(P **p, size_t *cap, size_t need) {
    if (*p && *cap >= need) return cudaSuccess;
    if (*p) cudaFreeHost(*p);
    *p = nullptr;
    *cap = 0;
    size_t n = round_up(need ? need : 1, (size_t)1 << 20);
    cudaError_t e = cudaMallocHost(reinterpret_cast<void **>(p), n);
    if (e == cudaSuccess) *cap = n;
    else *p = nullptr;
    return e;
}

/* ---------------- checksum kernels (FORMAT.md section 5) ---------------- */

/* Block hashes (bhash.h): a warp owns HBPW = 8 consecutive blocks of a
 * chunk, four lanes a block; per stripe lanes 4k..4k+3 read the 32
 * contiguous bytes of block k (one full sector, 8 loads in flight per
 * lane), so there is no shared memory and every resident warp keeps loads
 * in flight; 32 KiB jobs leave a short tail. Payloads at any byte (gfc's:
 * its payload sizes are any number of bytes) take the two aligned 8-byte
 * words that hold each word, funnel-shifted (plain cached loads: the codec
 * kernel next to this one reads or has written the same bytes). Warps are
 * independent (no block barrier). */
constexpr int HWARPS = 4, HBPW = 8;

template <bool BESIDE>
__global__ void __launch_bounds__(32 * HWARPS, 8) k_block_hash(const uint8_t *pay, const uint64_t *choff,
                                                            const uint64_t *chsize, uint64_t wpc, uint64_t njobs,
                                                            uint64_t nbmax, unsigned blog2, uint64_t *bh) {
    const int lane = threadIdx.x & 31;
    const uint64_t stride = (uint64_t)gridDim.x * HWARPS;
    /* a job: HBPW blocks of one chunk for one warp; the grid may be smaller
     * than the jobs (a few resident blocks beside another kernel) */
    for (uint64_t jx = (uint64_t)blockIdx.x * HWARPS + (threadIdx.x >> 5); jx < njobs; jx += stride) {
        const uint64_t job = njobs - 1 - jx; /* last chunk first: see launch_hash */
        const uint64_t c = job / wpc, wb0 = (job % wpc) * HBPW;
        const uint64_t n = chsize[c];
        const uint64_t nb = (n + (1ull << blog2) - 1) >> blog2;
        if (wb0 >= nb) continue; /* warp-uniform */
        scz_bh::warp_blocks(pay + choff[c], n, blog2, nb, wb0, nb, bh + c * nbmax, lane);
    }
}

/* Chunk checksums: XXH64 of each chunk's block hashes; stored to ck_out,
 * or compared with ck_exp (a mismatch goes to the error word). One warp per
 * chunk: the warp stages the block hashes in shared memory with coalesced
 * loads, lanes 0-3 run the four XXH64 accumulators (the only serial part),
 * lane 0 finishes. */
constexpr int FH_TILE = 2048, FH_UNROLL = 16;
__global__ void __launch_bounds__(32) k_final_hash(const uint64_t *chsize, uint32_t n, uint64_t nbmax, unsigned blog2,
                                                   const uint64_t *bh, uint64_t *ck_out, const uint64_t *ck_exp,
                                                   unsigned long long *err, uint32_t c0) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ uint64_t tile[FH_TILE];
    const uint32_t c = blockIdx.x;
    const int lane = threadIdx.x;
    const uint64_t nb = (chsize[c] + (1ull << blog2) - 1) >> blog2;
    const uint64_t *w = bh + (uint64_t)c * nbmax;
    const uint64_t nfull = nb & ~3ull;
    uint64_t acc = lane == 0 ? SCZ_XXP1 + SCZ_XXP2 : lane == 1 ? SCZ_XXP2 : lane == 2 ? 0 : 0 - SCZ_XXP1;
    /* the next tile's loads are in flight while lanes 0-3 hash this one;
     * the rounds take FH_UNROLL words per lane from shared memory first,
     * so only the accumulator's multiply chain is serial (an unrolled loop
     * runs ~3x faster than one shared load per round) */
    uint64_t x[FH_TILE / 32];
    auto load = [&](uint64_t b0) {
        const uint64_t m = nfull - b0 < FH_TILE ? nfull - b0 : FH_TILE;
#pragma unroll
        for (int k = 0; k < FH_TILE / 32; k++) {
            const uint32_t i = k * 32 + lane;
            x[k] = i < m ? w[b0 + i] : 0;
        }
    };
    if (nfull) load(0);
    for (uint64_t b0 = 0; b0 < nfull; b0 += FH_TILE) {
        const uint32_t m = (uint32_t)(nfull - b0 < FH_TILE ? nfull - b0 : FH_TILE);
#pragma unroll
        for (int k = 0; k < FH_TILE / 32; k++) tile[k * 32 + lane] = x[k];
        __syncwarp();
        if (b0 + FH_TILE < nfull) load(b0 + FH_TILE);
        if (lane < 4) {
            uint32_t s = 0;
            for (; s + 4 * FH_UNROLL <= m; s += 4 * FH_UNROLL) {
                uint64_t v[FH_UNROLL];
#pragma unroll
                for (int k = 0; k < FH_UNROLL; k++) v[k] = tile[s + 4 * k + lane];
#pragma unroll
                for (int k = 0; k < FH_UNROLL; k++) acc = scz_xxh_round(acc, v[k]);
            }
            for (; s < m; s += 4) acc = scz_xxh_round(acc, tile[s + lane]);
        }
        __syncwarp();
    }
    scz_xxh_acc a;
    a.v1 = __shfl_sync(0xffffffffu, acc, 0);
    a.v2 = __shfl_sync(0xffffffffu, acc, 1);
    a.v3 = __shfl_sync(0xffffffffu, acc, 2);
    a.v4 = __shfl_sync(0xffffffffu, acc, 3);
    if (lane) return;
    uint64_t h = scz_xxh_converge(&a, nb * 8, 0);
    for (uint64_t i = nfull; i < nb; i++) h = scz_xxh_tail8(h, w[i]);
    h = scz_xxh_avalanche(h);
    if (ck_out) ck_out[c] = h;
    if (ck_exp && h != ck_exp[c]) scz_cuda_report(err, c0 + c, SCZ_CUDA_ERR_CHECKSUM);
}

/* The chunk checksums from block hashes bh (chunk i's at bh + i nbmax). */
cudaError_t launch_final_hash(const uint64_t *chsize, uint32_t n, uint64_t nbmax, unsigned blog2, const uint64_t *bh,
                              uint64_t *ck_out, const uint64_t *ck_exp, unsigned long long *err, uint32_t c0,
                              cudaStream_t s) {
    if (n == 0) return cudaSuccess;
    return scz_ku::launch_pdl(k_final_hash, n, 32, 0, s, chsize, n, nbmax, blog2, bh, ck_out, ck_exp, err, c0);
}

/* Checksums of n chunks, the last chunk's blocks first: after an encoder,
 * or in the tail of a decoder, that has just touched the last chunks, those
 * payload bytes are still in L2; and a decoder launched after the hashes
 * starts with the first chunk, the last one hashed. max_ctas bounds the hashing blocks (each loops
 * over jobs) when another kernel runs beside them; 0: one block per
 * HWARPS jobs, scheduled by the hardware (shortest tail) when they run
 * alone. */
cudaError_t launch_hash(const uint8_t *pay, const uint64_t *choff, const uint64_t *chsize, uint32_t n,
                        uint64_t nbmax, unsigned blog2, uint64_t *bh, uint64_t *ck_out, const uint64_t *ck_exp,
                        unsigned long long *err, uint32_t c0, unsigned max_ctas, cudaStream_t s) {
    if (n == 0) return cudaSuccess;
    const uint64_t wpc = (nbmax + HBPW - 1) / HBPW;
    if (wpc == 0) return cudaSuccess;
    const uint64_t njobs = wpc * n, nctas = (njobs + HWARPS - 1) / HWARPS;
    const uint64_t cap = max_ctas ? max_ctas : 0x7fffffffull;
    const unsigned grid = (unsigned)(nctas < cap ? nctas : cap);
    /* beside a codec kernel (max_ctas), the instance that asks for the
     * shared-memory carveout (ensure_aux) */
    if (max_ctas) k_block_hash<true><<<grid, 32 * HWARPS, 0, s>>>(pay, choff, chsize, wpc, njobs, nbmax, blog2, bh);
    else k_block_hash<false><<<grid, 32 * HWARPS, 0, s>>>(pay, choff, chsize, wpc, njobs, nbmax, blog2, bh);
    cudaError_t e = cudaGetLastError();
    if (e) return e;
    return launch_final_hash(chsize, n, nbmax, blog2, bh, ck_out, ck_exp, err, c0, s);
}

/* ---------------- container on the device (sections 2 and 4) ---------------- */

struct HeaderBytes {
    uint32_t w[SCZ_HEADER_SIZE / 4];
};

/* Writes header, chunk table and table checksum in front of the payloads
 * and the stream size to *size_out. One thread block. */
__global__ void k_write_table(HeaderBytes hdr, uint8_t *dst, uint32_t n, const uint64_t *choff,
                              const uint64_t *chsize, const uint64_t *chck, const uint64_t *chinfo,
                              uint64_t *size_out) {
    const int t = threadIdx.x;
    uint32_t *d32 = reinterpret_cast<uint32_t *>(dst);
    for (int i = t; i < (int)(SCZ_HEADER_SIZE / 4); i += blockDim.x) d32[i] = hdr.w[i];
    const uint64_t pay0 = SCZ_HEADER_SIZE + (uint64_t)n * SCZ_CHUNK_ENTRY_SIZE + 8;
    uint64_t *tab = reinterpret_cast<uint64_t *>(dst + SCZ_HEADER_SIZE);
    for (uint32_t c = t; c < n; c += blockDim.x) {
        tab[4 * (uint64_t)c] = pay0 + choff[c];
        tab[4 * (uint64_t)c + 1] = chsize[c];
        tab[4 * (uint64_t)c + 2] = chck[c];
        tab[4 * (uint64_t)c + 3] = chinfo[c] & 0xffffffffu; /* codec_info, reserved 0 */
    }
    __syncthreads();
    if (t == 0) {
        tab[4 * (uint64_t)n] = scz_xxh64_words(tab, 4 * (uint64_t)n, 0);
        *size_out = n ? pay0 + choff[n - 1] + chsize[n - 1] : pay0;
    }
}

/* Reads the (host-validated) chunk table of a stream in device memory. */
__global__ void k_read_table(const uint8_t *src, uint32_t n, uint64_t *choff, uint64_t *chsize, uint64_t *chexp,
                             uint64_t *chinfo, unsigned long long *err) {
    const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c == 0) *err = SCZ_CUDA_NO_ERROR;
    if (c >= n) return;
    const uint64_t *tab = reinterpret_cast<const uint64_t *>(src + SCZ_HEADER_SIZE);
    choff[c] = tab[4 * (uint64_t)c];
    chsize[c] = tab[4 * (uint64_t)c + 1];
    chexp[c] = tab[4 * (uint64_t)c + 2];
    chinfo[c] = tab[4 * (uint64_t)c + 3] & 0xffffffffu;
}

__device__ int err_code(unsigned long long e) {
    if (e == SCZ_CUDA_NO_ERROR) return SCZ_OK;
    return (e & 0xff) == SCZ_CUDA_ERR_CHECKSUM ? SCZ_ERR_CHECKSUM : SCZ_ERR_CORRUPT;
}

__global__ void k_write_status(const unsigned long long *err, int *status_out) {
    *status_out = err ? err_code(*err) : SCZ_OK;
}

/* The status and message of an error word read back from the device; the
 * codec of the stream explains its own codes. */
scz_status err_status(scz_ctx *ctx, scz_codec codec, uint64_t e) {
    if (e == SCZ_CUDA_NO_ERROR) return SCZ_OK;
    const unsigned chunk = (unsigned)(e >> 8), code = (unsigned)(e & 0xff);
    if (code == SCZ_CUDA_ERR_CHECKSUM)
        return scz__fail(ctx, SCZ_ERR_CHECKSUM, "chunk %u checksum mismatch: the chunk is corrupt", chunk);
    const scz_cuda_codec_ops *g = scz__cuda_codec_ops(codec);
    const char *text = g && g->error_text ? g->error_text(code) : NULL;
    if (text) return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk %u: %s", chunk, text);
    return scz__fail(ctx, SCZ_ERR_CORRUPT, "chunk %u: the %s payload is inconsistent (code %u)", chunk,
                     scz_codec_name(codec) ? scz_codec_name(codec) : "?", code);
}

/* ---------------- batches and scratch ---------------- */

void make_batch(const scz_header *h, uint32_t c0, uint32_t n, scz_cuda_batch *b) {
    b->h = h;
    b->c0 = c0;
    b->n = n;
    b->infos = ~0u; /* not read (scz_cuda_decompress reads them) */
    uint64_t roff;
    scz__chunk_geom(h, c0, &b->full, &roff, &b->raw_full);
    scz__chunk_geom(h, c0 + n - 1, &b->last, NULL, NULL);
}

/* Largest payload of any chunk of the batch (codec bound). */
uint64_t batch_chunk_bound(const scz_codec_ops *ops, const scz_cuda_batch *b) {
    uint64_t x = ops->chunk_bound(b->h, &b->full), y = ops->chunk_bound(b->h, &b->last);
    if (!x || !y) return 0;
    return x > y ? x : y;
}

/* Scratch of one batch: codec scratch, per-chunk arrays (payload offset,
 * size, checksum, codec_info, expected checksum: adjacent, so one copy
 * moves them), block hashes, error word. */
struct Layout {
    size_t codec, choff, chsize, chck, chinfo, chexp, bh, err, total;
    uint64_t nbmax; /* block hashes per chunk (row stride of bh) */
};

Layout layout(size_t codec_bytes, uint32_t n, uint64_t nbmax) {
    Layout L;
    size_t o = 0;
    L.codec = o;
    o += round_up(codec_bytes, 256);
    L.choff = o;
    L.chsize = o + 8 * (size_t)n;
    L.chck = o + 16 * (size_t)n;
    L.chinfo = o + 24 * (size_t)n;
    L.chexp = o + 32 * (size_t)n;
    o += round_up(40 * (size_t)n, 256);
    L.bh = o;
    o += round_up(8 * (size_t)n * nbmax, 256);
    L.err = o;
    o += 256;
    L.total = o;
    L.nbmax = nbmax;
    return L;
}

template <typename P> P *at(uint8_t *base, size_t off) { return reinterpret_cast<P *>(base + off); }

/* The batch's codec on the GPU. Every path checks scz__cuda_can for its
 * direction before it builds a batch, so this is never NULL. */
const scz_cuda_codec_ops *gpu_codec(const scz_cuda_batch *b) { return scz__cuda_codec_ops(b->h->codec); }

cudaError_t codec_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *src, uint8_t *pay,
                         uint64_t *choff, uint64_t *chsize, uint64_t *chinfo, void *scr, cudaStream_t s) {
    return gpu_codec(b)->encode(b, ca, cb, src, pay, choff, chsize, chinfo, scr, s);
}

/* Encodes a batch and its chunk checksums. With several chunks, chunk
 * groups are encoded in turn on s and each group's checksums run on aux
 * beside the encoding of the next group (events order them; no kernel waits
 * for another); the last group's checksums then run alone. Everything is
 * joined back into s. */
cudaError_t encode_and_hash(const scz_cuda_batch *b, const void *src, uint8_t *pay, uint8_t *scr, const Layout &L,
                            unsigned blog2, const Ctx *c, cudaStream_t s, cudaStream_t aux, cudaEvent_t *ev) {
    const uint32_t n = b->n, ng = c->hash_ctas == 0 ? 1 : n < (uint32_t)c->groups ? n : (uint32_t)c->groups;
    uint64_t *choff = at<uint64_t>(scr, L.choff), *chsize = at<uint64_t>(scr, L.chsize);
    uint64_t *chck = at<uint64_t>(scr, L.chck), *bh = at<uint64_t>(scr, L.bh), *chinfo = at<uint64_t>(scr, L.chinfo);
    const unsigned alone = 0, beside = (unsigned)(c->sms * c->hash_ctas);
    cudaError_t e;
    if (ng <= 1) {
        if ((e = codec_encode(b, 0, n, src, pay, choff, chsize, chinfo, scr + L.codec, s))) return e;
        return launch_hash(pay, choff, chsize, n, L.nbmax, blog2, bh, chck, NULL, NULL, b->c0, alone, s);
    }
    for (uint32_t k = 0; k < ng; k++) {
        const uint32_t ca = (uint32_t)((uint64_t)k * n / ng), cb = (uint32_t)((uint64_t)(k + 1) * n / ng);
        if ((e = codec_encode(b, ca, cb, src, pay, choff, chsize, chinfo, scr + L.codec, s))) return e;
        if ((e = cudaEventRecord(ev[k], s)) || (e = cudaStreamWaitEvent(aux, ev[k], 0))) return e;
        e = launch_hash(pay, choff + ca, chsize + ca, cb - ca, L.nbmax, blog2, bh + (uint64_t)ca * L.nbmax, chck + ca,
                        NULL, NULL, b->c0 + ca, k + 1 < ng ? beside : alone, aux);
        if (e) return e;
    }
    if ((e = cudaEventRecord(ev[ng], aux))) return e;
    return cudaStreamWaitEvent(s, ev[ng], 0);
}
cudaError_t codec_decode(const scz_cuda_batch *b, const uint8_t *pay, const uint64_t *choff, const uint64_t *chsize,
                         const uint64_t *chinfo, void *dst, unsigned long long *err, void *scr, cudaStream_t s) {
    return gpu_codec(b)->decode(b, pay, choff, chsize, chinfo, dst, err, scr, s);
}
/* The batch's decoder hashes the payloads it reads (decode_hashed) for
 * checksum blocks of 2^blog2 bytes, and the context lets it. */
bool fused_hash(const Ctx *c, const scz_cuda_batch *b, unsigned blog2) {
    const scz_cuda_codec_ops *g = gpu_codec(b);
    return c->fused && g->decode_hashed && blog2 <= g->hash_blog2_max;
}
size_t codec_scratch(const scz_cuda_batch *b, int dir) {
    const scz_cuda_codec_ops *g = gpu_codec(b);
    return g->scratch ? g->scratch(b, dir) : 0;
}
scz_status codec_check(scz_ctx *ctx, const scz_cuda_batch *b) {
    const scz_cuda_codec_ops *g = gpu_codec(b);
    return g->check ? g->check(ctx, b) : SCZ_OK;
}

scz_status ensure_slots(scz_ctx *ctx) {
    Ctx *c = cctx(ctx);
    if (c->slots_ready) return SCZ_OK;
    for (int i = 0; i < NSLOT; i++) {
        Slot &s = c->slot[i];
        CK(cudaStreamCreateWithFlags(&s.st, cudaStreamNonBlocking), "stream creation");
        CK(cudaStreamCreateWithFlags(&s.aux, cudaStreamNonBlocking), "stream creation");
        CK(cudaEventCreateWithFlags(&s.ev_k, cudaEventDisableTiming), "event creation");
        CK(cudaEventCreateWithFlags(&s.ev_d2h, cudaEventDisableTiming), "event creation");
        CK(cudaEventCreateWithFlags(&s.ev_fork, cudaEventDisableTiming), "event creation");
        CK(cudaEventCreateWithFlags(&s.ev_join, cudaEventDisableTiming), "event creation");
        for (int k = 0; k <= NGROUP; k++)
            CK(cudaEventCreateWithFlags(&s.ev_grp[k], cudaEventDisableTiming), "event creation");
    }
    c->slots_ready = 1;
    return SCZ_OK;
}

scz_status ensure_aux(scz_ctx *ctx) {
    Ctx *c = cctx(ctx);
    if (c->aux) return SCZ_OK;
    CK(cudaEventCreateWithFlags(&c->ev_fork, cudaEventDisableTiming), "event creation");
    CK(cudaEventCreateWithFlags(&c->ev_join, cudaEventDisableTiming), "event creation");
    for (int k = 0; k <= NGROUP; k++)
        CK(cudaEventCreateWithFlags(&c->ev_grp[k], cudaEventDisableTiming), "event creation");
    CK(cudaStreamCreateWithFlags(&c->aux, cudaStreamNonBlocking), "stream creation");
    /* hashing blocks beside a codec's kernels: an SM configured for the
     * hash alone (no shared memory, all L1) takes no block that needs
     * shared memory until its hashing blocks are gone (lossy decompression,
     * H100: the decoder's first kernels waited ~45 us), so the hash beside
     * them asks for the shared-memory carveout the codec kernels use; the
     * hash alone keeps all of L1 (with the carveout, ndzip and gfc lost
     * 6-10%: its unaligned word loads read each line twice) */
    CK(cudaFuncSetAttribute(k_block_hash<true>, cudaFuncAttributePreferredSharedMemoryCarveout, 100),
       "kernel attribute");
    return SCZ_OK;
}

scz_status grow_slots(scz_ctx *ctx, size_t pin_in, size_t pin_out, size_t d_in, size_t d_out, size_t d_scr,
                      size_t meta_words) {
    Ctx *c = cctx(ctx);
    scz_status st = ensure_slots(ctx);
    if (st) return st;
    for (int i = 0; i < NSLOT; i++) {
        Slot &s = c->slot[i];
        CK(hgrow(&s.pin_in, &s.pin_in_cap, pin_in), "pinned staging allocation");
        CK(hgrow(&s.pin_out, &s.pin_out_cap, pin_out), "pinned staging allocation");
        CK(hgrow(&s.pin_meta, &s.pin_meta_cap, meta_words * 8), "pinned staging allocation");
        CK(dgrow(&s.d_in, &s.d_in_cap, d_in), "device buffer allocation");
        CK(dgrow(&s.d_out, &s.d_out_cap, d_out), "device buffer allocation");
        CK(dgrow(&s.d_scr, &s.d_scr_cap, d_scr), "device scratch allocation");
    }
    return SCZ_OK;
}

void drain(Ctx *c) {
    if (!c->slots_ready) return;
    for (int i = 0; i < NSLOT; i++) cudaStreamSynchronize(c->slot[i].st);
}

/* Chunks per streamed batch. */
uint32_t chunks_per_batch(const Ctx *c, const scz_header *h) {
    uint64_t raw;
    scz_chunk_geom g;
    scz__chunk_geom(h, 0, &g, NULL, &raw);
    uint64_t bb = c->batch_bytes ? c->batch_bytes : DEFAULT_BATCH;
    uint64_t k = raw ? bb / raw : 1;
    if (k < 1) k = 1;
    if (k > h->num_chunks) k = h->num_chunks;
    return (uint32_t)k;
}

} // namespace

/* ---------------- backend probe and context ---------------- */

/* Loads the kernels of every GPU codec: fails where the device has no image
 * for them. */
static cudaError_t probe_codecs(void) {
    const scz_cuda_codec_ops *g;
    for (size_t i = 0; (g = scz__cuda_codec_at(i)) != nullptr; i++) {
        cudaError_t e = g->probe ? g->probe() : cudaSuccess;
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

extern "C" scz_status scz_backend_probe(scz_backend backend, char *msg, size_t cap) {
    char buf[512];
    buf[0] = 0;
    scz_status st = SCZ_OK;
    if (backend == SCZ_BACKEND_CPU) {
        st = SCZ_OK;
    } else if (backend != SCZ_BACKEND_CUDA) {
        snprintf(buf, sizeof buf, "unknown backend %d", (int)backend);
        st = SCZ_ERR_BACKEND;
    } else {
        int n = 0, dev = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            cudaGetLastError();
            snprintf(buf, sizeof buf, "CUDA backend: no usable CUDA device (cudaGetDeviceCount: %s)",
                     cudaGetErrorString(e));
            st = SCZ_ERR_BACKEND;
        } else if (n == 0) {
            snprintf(buf, sizeof buf, "CUDA backend: no CUDA device present");
            st = SCZ_ERR_BACKEND;
        } else if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = probe_codecs()) != cudaSuccess) {
            cudaGetLastError();
            cudaDeviceProp prop;
            int ok = cudaGetDeviceProperties(&prop, dev) == cudaSuccess;
            snprintf(buf, sizeof buf,
                     "CUDA backend: device %d (%.64s, compute capability %d.%d) cannot run this build's kernels (%.64s); "
                     "rebuild with CMAKE_CUDA_ARCHITECTURES naming it",
                     dev, ok ? prop.name : "?", ok ? prop.major : 0, ok ? prop.minor : 0, cudaGetErrorString(e));
            st = SCZ_ERR_BACKEND;
        }
    }
    if (msg && cap) snprintf(msg, cap, "%s", buf);
    return st;
}

extern "C" scz_status scz__cuda_ctx_init(scz_ctx *ctx) {
    char msg[512];
    if (scz_backend_probe(SCZ_BACKEND_CUDA, msg, sizeof msg)) return scz__fail(ctx, SCZ_ERR_BACKEND, "%s", msg);
    Ctx *c = static_cast<Ctx *>(calloc(1, sizeof(Ctx)));
    if (!c) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the CUDA context");
    cudaGetDevice(&c->device);
    if (cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, c->device) != cudaSuccess || c->sms < 1)
        c->sms = 1;
    /* tuning (docs/GPU.md): how checksums overlap the codec kernels */
    c->groups = DEFAULT_GROUPS;
    c->hash_ctas = DEFAULT_HASH_CTAS;
    c->dec_hash = DEFAULT_DEC_HASH;
    const char *ev = getenv("SCZ_CUDA_GROUPS");
    if (ev && atoi(ev) >= 1) c->groups = atoi(ev) > NGROUP ? NGROUP : atoi(ev);
    ev = getenv("SCZ_CUDA_HASH_CTAS");
    if (ev && atoi(ev) >= 0) c->hash_ctas = atoi(ev), c->dec_env = 1;
    ev = getenv("SCZ_CUDA_DEC_HASH");
    if (ev && (atoi(ev) == 0 || atoi(ev) == 1)) c->dec_hash = atoi(ev), c->dec_env = 1;
    ev = getenv("SCZ_CUDA_FUSED_HASH");
    c->fused = !(ev && atoi(ev) == 0) && !c->dec_env;
    ctx->cuda = c;
    return SCZ_OK;
}

extern "C" void scz__cuda_ctx_free(scz_ctx *ctx) {
    Ctx *c = cctx(ctx);
    if (!c) return;
    DevGuard dg(c->device);
    drain(c);
    for (int i = 0; i < NSLOT; i++) {
        Slot &s = c->slot[i];
        if (s.st) cudaStreamDestroy(s.st);
        if (s.aux) cudaStreamDestroy(s.aux);
        if (s.ev_k) cudaEventDestroy(s.ev_k);
        if (s.ev_d2h) cudaEventDestroy(s.ev_d2h);
        if (s.ev_fork) cudaEventDestroy(s.ev_fork);
        if (s.ev_join) cudaEventDestroy(s.ev_join);
        for (int k = 0; k <= NGROUP; k++)
            if (s.ev_grp[k]) cudaEventDestroy(s.ev_grp[k]);
        if (s.pin_in) cudaFreeHost(s.pin_in);
        if (s.pin_out) cudaFreeHost(s.pin_out);
        if (s.pin_meta) cudaFreeHost(s.pin_meta);
        if (s.d_in) cudaFree(s.d_in);
        if (s.d_out) cudaFree(s.d_out);
        if (s.d_scr) cudaFree(s.d_scr);
    }
    if (c->aux) {
        cudaStreamSynchronize(c->aux);
        cudaStreamDestroy(c->aux);
    }
    if (c->ev_fork) cudaEventDestroy(c->ev_fork);
    if (c->ev_join) cudaEventDestroy(c->ev_join);
    for (int k = 0; k <= NGROUP; k++)
        if (c->ev_grp[k]) cudaEventDestroy(c->ev_grp[k]);
    if (c->scr) cudaFree(c->scr);
    if (c->pin_hdr) cudaFreeHost(c->pin_hdr);
    if (c->pin_small) cudaFreeHost(c->pin_small);
    free(c);
    ctx->cuda = nullptr;
}

/* Phase timing (prof.h): printed with SCZ_GPU_PROFILE=1, or recorded for a
 * benchmark (scz__cuda_prof_set). */
namespace {
int g_prof_rec = 0;
struct ProfSum {
    const char *what, *phase; /* the string literals of ScProf and its marks */
    double ms;
};
ProfSum g_prof[64];
int g_nprof = 0;
} // namespace
extern "C" int scz__cuda_prof_mode(void) {
    const int env = scz_ku::env_once("SCZ_GPU_PROFILE", [](const char *e) { return e && *e == '1' ? 1 : 0; });
    return env ? 1 : g_prof_rec ? 2 : 0;
}
extern "C" void scz__cuda_prof_add(const char *what, const char *phase, double ms) {
    for (int i = 0; i < g_nprof; i++)
        if (!strcmp(g_prof[i].what, what) && !strcmp(g_prof[i].phase, phase)) {
            g_prof[i].ms += ms;
            return;
        }
    if (g_nprof < 64) g_prof[g_nprof++] = ProfSum{what, phase, ms};
}
extern "C" void scz__cuda_prof_set(int on) { g_prof_rec = on != 0; }
extern "C" void scz__cuda_prof_reset(void) { g_nprof = 0; }
extern "C" double scz__cuda_prof_phase(const char *what, const char *phase) {
    for (int i = 0; i < g_nprof; i++)
        if (!strcmp(g_prof[i].what, what) && !strcmp(g_prof[i].phase, phase)) return g_prof[i].ms;
    return -1;
}

extern "C" void scz__cuda_set_batch_bytes(scz_ctx *ctx, uint64_t bytes) {
    if (ctx && ctx->cuda) cctx(ctx)->batch_bytes = bytes;
}

/* GPU kernels of the codec are registered (codecs_cuda.cu), and so is its
 * CPU side, which plans the stream for both backends. */
extern "C" int scz__cuda_can(scz_codec c, int dir) {
    const scz_cuda_codec_ops *g = scz__cuda_codec_ops(c);
    if (!g || !scz__codec_ops(c)) return 0;
    return dir == SCZ_CUDA_ENCODE ? g->encode != nullptr : g->decode != nullptr;
}
extern "C" int scz__cuda_can_hdr(const scz_header *h, int dir) {
    /* every header a codec's CPU side accepts (lossy levels 0 and 1 both ways) */
    return scz__cuda_can(h->codec, dir);
}
extern "C" int scz_cuda_codec_supported(scz_codec c) {
    return scz__cuda_can(c, SCZ_CUDA_ENCODE) && scz__cuda_can(c, SCZ_CUDA_DECODE);
}

/* ---------------- device-pointer API ---------------- */

namespace {

/* Finite minimum, maximum and count of a device array (scz_value_range's
 * definition): per-block partials, then one block. */
constexpr unsigned RANGE_NT = 256, RANGE_BLOCKS = 1024;
struct RangePart {
    double lo, hi;
    unsigned long long n;
};

__device__ __forceinline__ RangePart range_join(RangePart a, const RangePart &b) {
    a.lo = b.lo < a.lo ? b.lo : a.lo;
    a.hi = b.hi > a.hi ? b.hi : a.hi;
    a.n += b.n;
    return a;
}

struct RangeOp {
    __device__ __forceinline__ RangePart operator()(const RangePart &a, const RangePart &b) const {
        return range_join(a, b);
    }
};

/* Per-block partials: 16-byte loads, four in flight per thread, min / max
 * in the element type (converting to binary64 afterwards is exact). */
template <typename T>
__device__ __forceinline__ void range_add(T v, T &lo, T &hi, unsigned long long &cnt) {
    if (isfinite(v)) {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        cnt++;
    }
}
template <typename T> __global__ void __launch_bounds__(RANGE_NT) k_range(const T *src, uint64_t n, RangePart *part) {
    typedef cub::BlockReduce<RangePart, RANGE_NT> Red;
    __shared__ typename Red::TempStorage ts;
    constexpr unsigned PER = 16 / sizeof(T), UNR = 4;
    T lo = (T)INFINITY, hi = (T)-INFINITY;
    unsigned long long cnt = 0;
    const uint64_t nv = n / PER, stride = (uint64_t)gridDim.x * RANGE_NT;
    const uint4 *V = reinterpret_cast<const uint4 *>(src); /* the API requires 16-byte alignment */
    for (uint64_t i = (uint64_t)blockIdx.x * RANGE_NT + threadIdx.x; i < nv; i += UNR * stride) {
        uint4 q[UNR];
#pragma unroll
        for (unsigned u = 0; u < UNR; u++) q[u] = i + u * stride < nv ? V[i + u * stride] : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (unsigned u = 0; u < UNR; u++) {
            if (i + u * stride >= nv) break;
            T e[PER];
            memcpy(e, &q[u], 16);
#pragma unroll
            for (unsigned k = 0; k < PER; k++) range_add(e[k], lo, hi, cnt);
        }
    }
    for (uint64_t i = nv * PER + (uint64_t)blockIdx.x * RANGE_NT + threadIdx.x; i < n; i += stride)
        range_add(src[i], lo, hi, cnt);
    const RangePart t = Red(ts).Reduce(RangePart{(double)lo, (double)hi, cnt}, RangeOp());
    if (threadIdx.x == 0) part[blockIdx.x] = t;
}

__global__ void __launch_bounds__(RANGE_NT) k_range_end(RangePart *part, unsigned nb) {
    typedef cub::BlockReduce<RangePart, RANGE_NT> Red;
    __shared__ typename Red::TempStorage ts;
    RangePart m{INFINITY, -INFINITY, 0};
    for (unsigned i = threadIdx.x; i < nb; i += RANGE_NT) m = range_join(m, part[i]);
    const RangePart t = Red(ts).Reduce(m, RangeOp());
    if (threadIdx.x == 0) part[0] = t;
}

scz_status grow_scratch(scz_ctx *ctx, size_t bytes);

/* The value range of a device array of f32 / f64, on stream s; waits for
 * it (a bound relative to the range goes into the header and drives the
 * quantization: the one host round trip a REL bound forces). */
scz_status device_range(scz_ctx *ctx, const scz_header *h, const void *d_src, cudaStream_t s, double range[2],
                        uint64_t *finite) {
    Ctx *c = cctx(ctx);
    const uint64_t n = h->raw_bytes / scz_dtype_size(h->dtype);
    scz_status st;
    if ((st = grow_scratch(ctx, RANGE_BLOCKS * sizeof(RangePart)))) return st;
    CK(hgrow(&c->pin_small, &c->pin_small_cap, 64), "pinned allocation");
    RangePart *part = reinterpret_cast<RangePart *>(c->scr);
    uint64_t nb = (n + RANGE_NT * 8 - 1) / (RANGE_NT * 8);
    if (nb > RANGE_BLOCKS) nb = RANGE_BLOCKS;
    if (nb < 1) nb = 1;
    if (h->dtype == SCZ_DTYPE_F64)
        k_range<double><<<(unsigned)nb, RANGE_NT, 0, s>>>(static_cast<const double *>(d_src), n, part);
    else k_range<float><<<(unsigned)nb, RANGE_NT, 0, s>>>(static_cast<const float *>(d_src), n, part);
    k_range_end<<<1, RANGE_NT, 0, s>>>(part, (unsigned)nb);
    CK(cudaMemcpyAsync(c->pin_small, part, sizeof(RangePart), cudaMemcpyDeviceToHost, s), "value range copy");
    CK(cudaStreamSynchronize(s), "value range");
    RangePart r;
    memcpy(&r, c->pin_small, sizeof r);
    range[0] = r.n ? r.lo : 0;
    range[1] = r.n ? r.hi : 0;
    *finite = r.n;
    return SCZ_OK;
}

/* Plans a device compression of all chunks in one batch: the scratch
 * layout of the compression (L) and, where dec_total is given, the scratch
 * a decompression of the stream needs at most. A codec whose bound depends
 * on the data (lossy REL) is prepared from the value range of d_src,
 * computed on the device (none when only sizing: d_src NULL). */
scz_status plan_device(scz_ctx *ctx, const scz_params *params, const scz_shape *shape, scz_header *h,
                       const scz_codec_ops **ops, scz_cuda_batch *b, Layout *L, size_t *dec_total = nullptr,
                       const void *d_src = nullptr, cudaStream_t s = nullptr) {
    scz_status st = scz__plan(ctx, params, shape, h, ops);
    if (st) return st;
    if (!scz__cuda_can(h->codec, SCZ_CUDA_ENCODE))
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' has no GPU compression kernels in this build",
                         scz_codec_name(h->codec));
    if ((*ops)->prepare_range && (h->eb_mode == SCZ_EB_REL || h->eb_mode == SCZ_EB_PSNR)) {
        double range[2] = {0, 0};
        uint64_t finite = 0;
        const bool data = ctx && d_src && h->raw_bytes;
        if (data && (st = device_range(ctx, h, d_src, s, range, &finite))) return st;
        void *pass = nullptr;
        if ((st = (*ops)->prepare_range(ctx, h, range, &pass))) return st;
        if (pass) { /* passes over the data (the lossy PSNR rule), on the device */
            const scz_cuda_codec_ops *g = scz__cuda_codec_ops(h->codec);
            if (data && !g->passes)
                st = scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' cannot run its passes over device data",
                               scz_codec_name(h->codec));
            else if (data && !(st = grow_scratch(ctx, g->pass_scratch(h))))
                st = g->passes(ctx, h, pass, d_src, finite, cctx(ctx)->scr,
                               reinterpret_cast<double *>(cctx(ctx)->pin_small), s);
            (*ops)->pass_free(pass);
            if (st) return st;
        }
    } else if ((*ops)->prepare && (st = (*ops)->prepare(ctx, h, NULL))) {
        return st;
    }
    if (h->num_chunks == 0) {
        *L = layout(0, 0, 0);
        if (dec_total) *dec_total = L->total;
        return SCZ_OK;
    }
    make_batch(h, 0, h->num_chunks, b);
    if ((st = codec_check(ctx, b))) return st;
    uint64_t bound = batch_chunk_bound(*ops, b);
    if (!bound) return scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk bound overflows");
    uint64_t nbmax = (bound + (1ull << h->cksum_block_log2) - 1) >> h->cksum_block_log2;
    *L = layout(codec_scratch(b, SCZ_CUDA_ENCODE), h->num_chunks, nbmax);
    if (dec_total) *dec_total = layout(codec_scratch(b, SCZ_CUDA_DECODE), h->num_chunks, nbmax).total;
    return SCZ_OK;
}

scz_status grow_scratch(scz_ctx *ctx, size_t bytes) {
    Ctx *c = cctx(ctx);
    CK(dgrow(&c->scr, &c->scr_cap, bytes), "device scratch allocation");
    return SCZ_OK;
}

} // namespace

extern "C" size_t scz_cuda_scratch_size(const scz_shape *shape, const scz_params *params) {
    scz_header h;
    const scz_codec_ops *ops;
    scz_cuda_batch b;
    Layout L = {};
    size_t dec = 0;
    if (plan_device(NULL, params, shape, &h, &ops, &b, &L, &dec)) return 0;
    return L.total > dec ? L.total : dec;
}

extern "C" scz_status scz_cuda_reserve(scz_ctx *ctx, size_t bytes) {
    if (!ctx) return SCZ_ERR_ARG;
    if (!ctx->cuda) return scz__fail(ctx, SCZ_ERR_BACKEND, "not a CUDA context");
    DevGuard dg(cctx(ctx)->device);
    return grow_scratch(ctx, bytes);
}

extern "C" scz_status scz_cuda_compress(scz_ctx *ctx, const scz_params *params, const scz_shape *shape,
                                        const void *d_src, void *d_dst, size_t dst_cap, uint64_t *size_out,
                                        scz_cuda_stream stream) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    if (!ctx->cuda)
        return scz__fail(ctx, SCZ_ERR_BACKEND, "scz_cuda_compress needs a context created with SCZ_BACKEND_CUDA");
    if (!d_dst || !size_out) return scz__fail(ctx, SCZ_ERR_ARG, "d_dst and size_out must not be NULL");
    scz_header h;
    const scz_codec_ops *ops;
    scz_cuda_batch b;
    Layout L = {};
    if (((uintptr_t)d_src | (uintptr_t)d_dst) & 15)
        return scz__fail(ctx, SCZ_ERR_ARG, "device buffers must be 16-byte aligned");
    DevGuard dg0(cctx(ctx)->device);
    scz_status st = plan_device(ctx, params, shape, &h, &ops, &b, &L, nullptr, d_src,
                                reinterpret_cast<cudaStream_t>(stream));
    if (st) return st;
    if (!d_src && h.raw_bytes) return scz__fail(ctx, SCZ_ERR_ARG, "d_src must not be NULL");
    size_t bound = scz_compress_bound(shape, params);
    if (!bound) return scz__fail(ctx, SCZ_ERR_OVERFLOW, "the compressed size bound overflows");
    if (dst_cap < bound)
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL,
                         "device compression needs dst_cap >= scz_compress_bound (%zu), got %zu", bound, dst_cap);
    Ctx *c = cctx(ctx);
    DevGuard dg(c->device);
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
    if ((st = grow_scratch(ctx, L.total))) return st;
    HeaderBytes hb;
    scz__header_write(&h, reinterpret_cast<uint8_t *>(hb.w));
    uint8_t *dst = static_cast<uint8_t *>(d_dst);
    uint8_t *pay = dst + SCZ_HEADER_SIZE + scz__table_size(h.num_chunks);
    uint8_t *scr = c->scr;
    if (h.num_chunks) {
        if ((st = ensure_aux(ctx))) return st;
        CK(encode_and_hash(&b, d_src, pay, scr, L, h.cksum_block_log2, c, s, c->aux, c->ev_grp),
           "compression kernels");
    }
    k_write_table<<<1, 256, 0, s>>>(hb, dst, h.num_chunks, at<uint64_t>(scr, L.choff), at<uint64_t>(scr, L.chsize),
                                    at<uint64_t>(scr, L.chck), at<uint64_t>(scr, L.chinfo), size_out);
    CK(cudaGetLastError(), "table kernel");
    return SCZ_OK;
}

extern "C" scz_status scz_cuda_decompress(scz_ctx *ctx, const void *d_src, size_t src_size, void *d_dst,
                                          size_t dst_cap, scz_shape *shape, scz_status *status_out,
                                          scz_cuda_stream stream) {
    if (!ctx) return SCZ_ERR_ARG;
    ctx->msg[0] = 0;
    if (!ctx->cuda)
        return scz__fail(ctx, SCZ_ERR_BACKEND, "scz_cuda_decompress needs a context created with SCZ_BACKEND_CUDA");
    if (!d_src) return scz__fail(ctx, SCZ_ERR_ARG, "d_src must not be NULL");
    if (((uintptr_t)d_src | (uintptr_t)d_dst) & 15)
        return scz__fail(ctx, SCZ_ERR_ARG, "device buffers must be 16-byte aligned");
    Ctx *c = cctx(ctx);
    DevGuard dg(c->device);
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
    const uint8_t *src = static_cast<const uint8_t *>(d_src);

    /* Header and table to the host (the call waits for the stream): one
     * copy for tables of up to ~500 chunks, a second one for larger. */
    CK(hgrow(&c->pin_small, &c->pin_small_cap, 64), "pinned allocation");
    const size_t guess = 16384;
    size_t n0 = src_size < guess ? src_size : guess;
    CK(hgrow(&c->pin_hdr, &c->pin_hdr_cap, guess), "pinned allocation");
    CK(cudaMemcpyAsync(c->pin_hdr, src, n0, cudaMemcpyDeviceToHost, s), "header copy");
    CK(cudaStreamSynchronize(s), "header copy");
    scz_header h;
    scz_status st = scz__header_read(ctx, c->pin_hdr, n0, &h);
    if (st) return st;
    const uint64_t tsize = scz__table_size(h.num_chunks);
    const uint64_t meta = SCZ_HEADER_SIZE + tsize;
    if (src_size >= meta && meta > n0) {
        CK(hgrow(&c->pin_hdr, &c->pin_hdr_cap, meta), "pinned allocation");
        CK(cudaMemcpyAsync(c->pin_hdr, src, meta, cudaMemcpyDeviceToHost, s), "table copy");
        CK(cudaStreamSynchronize(s), "table copy");
    }
    uint64_t end;
    if ((st = scz__table_check(ctx, &h, c->pin_hdr, src_size, &end))) return st;
    if (end != src_size)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "%llu unexpected bytes after the end of the stream",
                         (unsigned long long)(src_size - end));
    const scz_codec_ops *ops = scz__codec_ops(h.codec);
    if (!ops)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' is not available in this build",
                         scz_codec_name(h.codec));
    if (ops->check_header && (st = ops->check_header(ctx, &h))) return st;
    if (!scz__cuda_can(h.codec, SCZ_CUDA_DECODE))
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "codec '%s' has no GPU decompression kernels in this build",
                         scz_codec_name(h.codec));
    if (dst_cap < h.raw_bytes || (!d_dst && h.raw_bytes))
        return scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination holds %zu bytes, the array needs %llu", dst_cap,
                         (unsigned long long)h.raw_bytes);
    if (shape) {
        shape->dtype = h.dtype;
        shape->rank = h.rank;
        memcpy(shape->dims, h.dims, sizeof shape->dims);
    }
    uint64_t nbmax = 0;
    uint32_t infos = 0;
    for (uint32_t i = 0; i < h.num_chunks; i++) {
        scz_chunk_entry e;
        scz__table_entry(c->pin_hdr + SCZ_HEADER_SIZE, i, &e);
        uint64_t nb = (e.size + (1ull << h.cksum_block_log2) - 1) >> h.cksum_block_log2;
        if (nb > nbmax) nbmax = nb;
        infos |= 1u << (e.info < 31 ? e.info : 31);
    }
    unsigned long long *errp = NULL;
    if (h.num_chunks) {
        scz_cuda_batch b;
        make_batch(&h, 0, h.num_chunks, &b);
        b.infos = infos;
        if ((st = codec_check(ctx, &b))) return st;
        Layout L = layout(codec_scratch(&b, SCZ_CUDA_DECODE), h.num_chunks, nbmax);
        if ((st = grow_scratch(ctx, L.total))) return st;
        uint8_t *scr = c->scr;
        uint64_t *choff = at<uint64_t>(scr, L.choff), *chsize = at<uint64_t>(scr, L.chsize);
        errp = at<unsigned long long>(scr, L.err);
        uint64_t *chinfo = at<uint64_t>(scr, L.chinfo);
        k_read_table<<<(h.num_chunks + 127) / 128, 128, 0, s>>>(src, h.num_chunks, choff, chsize,
                                                                at<uint64_t>(scr, L.chexp), chinfo, errp);
        CK(cudaGetLastError(), "table kernel");
        /* checksums on a second stream beside the decoder (both only read
         * the payloads; the outcome joins in the error word): launched
         * after it (dec_hash: they take the SMs the decoder's tail frees,
         * last chunk first, whose bytes the decoder has just read), or
         * before it with at most hash_ctas blocks per SM; else on s before
         * the decoder. Without the environment's knobs, the codec's
         * dec_hash_ctas decides. */
        if (fused_hash(c, &b, h.cksum_block_log2)) { /* the decoder hashes what it reads */
            uint64_t *bh = at<uint64_t>(scr, L.bh);
            CK(gpu_codec(&b)->decode_hashed(&b, src, choff, chsize, chinfo, d_dst, errp, scr + L.codec, bh, nbmax,
                                            h.cksum_block_log2, s),
               "decompression kernels");
            CK(launch_final_hash(chsize, h.num_chunks, nbmax, h.cksum_block_log2, bh, NULL,
                                 at<uint64_t>(scr, L.chexp), errp, 0, s),
               "checksum kernels");
        } else {
        if ((st = ensure_aux(ctx))) return st;
        const int dh = c->dec_env ? c->dec_hash : 0, hc = c->dec_env ? c->hash_ctas : gpu_codec(&b)->dec_hash_ctas;
        const int after = dh && hc == 0, beside = after || hc > 0;
        cudaStream_t hs = beside ? c->aux : s;
        if (beside) {
            CK(cudaEventRecord(c->ev_fork, s), "event");
            CK(cudaStreamWaitEvent(c->aux, c->ev_fork, 0), "event");
        }
        if (after) CK(codec_decode(&b, src, choff, chsize, chinfo, d_dst, errp, scr + L.codec, s),
                      "decompression kernels");
        CK(launch_hash(src, choff, chsize, h.num_chunks, nbmax, h.cksum_block_log2, at<uint64_t>(scr, L.bh), NULL,
                       at<uint64_t>(scr, L.chexp), errp, 0, after || !beside ? 0u : (unsigned)(c->sms * hc),
                       hs),
           "checksum kernels");
        if (beside) CK(cudaEventRecord(c->ev_join, c->aux), "event");
        if (!after) CK(codec_decode(&b, src, choff, chsize, chinfo, d_dst, errp, scr + L.codec, s),
                       "decompression kernels");
        if (beside) CK(cudaStreamWaitEvent(s, c->ev_join, 0), "event");
        }
    }
    if (status_out) {
        k_write_status<<<1, 1, 0, s>>>(errp, reinterpret_cast<int *>(status_out));
        CK(cudaGetLastError(), "status kernel");
        return SCZ_OK;
    }
    if (!errp) return SCZ_OK;
    CK(cudaMemcpyAsync(c->pin_small, errp, 8, cudaMemcpyDeviceToHost, s), "status copy");
    CK(cudaStreamSynchronize(s), "decompression");
    return err_status(ctx, h.codec, c->pin_small[0]);
}

/* ---------------- host-pointer paths: chunks streamed in batches ---------------- */

extern "C" scz_status scz__cuda_compress_host(scz_ctx *ctx, const scz_header *h, const void *src, uint8_t *dst,
                                              size_t dst_cap, size_t *dst_size) {
    Ctx *c = cctx(ctx);
    DevGuard dg(c->device);
    const uint32_t N = h->num_chunks;
    const uint64_t pos0 = SCZ_HEADER_SIZE + scz__table_size(N);
    scz_chunk_entry *entries = NULL;
    if (N) {
        entries = static_cast<scz_chunk_entry *>(scz__scratch(ctx, SCZ_SCRATCH_SLOTS - 1, (size_t)N * sizeof *entries));
        if (!entries) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate the chunk table");
    }
    const scz_codec_ops *ops = scz__codec_ops(h->codec);
    const int threads = scz__threads(ctx);
    uint64_t pos = pos0;
    if (N) {
        const uint32_t cpb = chunks_per_batch(c, h);
        const uint32_t nbat = (N + cpb - 1) / cpb;
        /* capacities from the largest batch (a full one) and the final one */
        scz_cuda_batch bf, bl;
        make_batch(h, 0, cpb, &bf);
        make_batch(h, (nbat - 1) * cpb, N - (nbat - 1) * cpb, &bl);
        scz_status st;
        if ((st = codec_check(ctx, &bf)) || (st = codec_check(ctx, &bl))) return st;
        uint64_t cb = batch_chunk_bound(ops, &bf), cb2 = batch_chunk_bound(ops, &bl);
        if (!cb || !cb2) return scz__fail(ctx, SCZ_ERR_OVERFLOW, "chunk bound overflows");
        if (cb2 > cb) cb = cb2;
        const uint64_t nbmax = (cb + (1ull << h->cksum_block_log2) - 1) >> h->cksum_block_log2;
        size_t cs = codec_scratch(&bf, SCZ_CUDA_ENCODE), cs2 = codec_scratch(&bl, SCZ_CUDA_ENCODE);
        Layout L = layout(cs > cs2 ? cs : cs2, cpb, nbmax);
        const uint64_t raw_cap = (uint64_t)cpb * bf.raw_full, out_cap = (uint64_t)cpb * cb;
        if ((st = grow_slots(ctx, raw_cap, out_cap, raw_cap, out_cap, L.total, 4 * (size_t)cpb + 8))) return st;

        uint64_t bpos[NSLOT] = {0}, btot[NSLOT] = {0}, braw[NSLOT] = {0};
        uint64_t done = 0;
        st = SCZ_OK;
        for (uint32_t it = 0; it < nbat + 2 && !st; it++) {
            if (it < nbat) { /* A: stage in, enqueue copy + kernels + metadata copy */
                Slot &s = c->slot[it % NSLOT];
                const uint32_t first = it * cpb, n = first + cpb <= N ? cpb : N - first;
                scz_cuda_batch b;
                make_batch(h, first, n, &b);
                uint64_t roff, rb, rl;
                scz_chunk_geom g;
                scz__chunk_geom(h, first, &g, &roff, &rb);
                scz__chunk_geom(h, first + n - 1, &g, NULL, &rl);
                const uint64_t raw = rb * (n - 1) + rl;
                braw[it % NSLOT] = raw;
                scz__par_memcpy(s.pin_in, static_cast<const uint8_t *>(src) + roff, raw, threads);
                cudaError_t e = cudaMemcpyAsync(s.d_in, s.pin_in, raw, cudaMemcpyHostToDevice, s.st);
                Layout Lb = layout(codec_scratch(&b, SCZ_CUDA_ENCODE), n, nbmax);
                uint64_t *choff = at<uint64_t>(s.d_scr, Lb.choff), *chsize = at<uint64_t>(s.d_scr, Lb.chsize);
                if (!e)
                    e = encode_and_hash(&b, s.d_in, s.d_out, s.d_scr, Lb, h->cksum_block_log2, c, s.st, s.aux,
                                        s.ev_grp);
                if (!e) e = cudaMemcpyAsync(s.pin_meta, choff, 32 * (size_t)n, cudaMemcpyDeviceToHost, s.st);
                if (!e) e = cudaEventRecord(s.ev_k, s.st);
                if (e) st = cuda_fail(ctx, e, "compression batch");
            }
            if (!st && it >= 1 && it - 1 < nbat) { /* B: sizes known: place the payloads, copy them back */
                const uint32_t bi = it - 1;
                Slot &s = c->slot[bi % NSLOT];
                const uint32_t first = bi * cpb, n = first + cpb <= N ? cpb : N - first;
                cudaError_t e = cudaEventSynchronize(s.ev_k);
                if (e) {
                    st = cuda_fail(ctx, e, "compression batch");
                    break;
                }
                const uint64_t *mo = s.pin_meta, *ms = s.pin_meta + n, *mk = s.pin_meta + 2 * (size_t)n,
                               *mi = s.pin_meta + 3 * (size_t)n;
                const uint64_t tot = mo[n - 1] + ms[n - 1];
                if (tot > dst_cap - pos) {
                    st = scz__fail(ctx, SCZ_ERR_DST_TOO_SMALL, "destination too small for the compressed stream");
                    break;
                }
                for (uint32_t i = 0; i < n; i++) {
                    entries[first + i].offset = pos + mo[i];
                    entries[first + i].size = ms[i];
                    entries[first + i].checksum = mk[i];
                    entries[first + i].info = (uint32_t)mi[i];
                }
                bpos[bi % NSLOT] = pos;
                btot[bi % NSLOT] = tot;
                pos += tot;
                e = cudaMemcpyAsync(s.pin_out, s.d_out, tot, cudaMemcpyDeviceToHost, s.st);
                if (!e) e = cudaEventRecord(s.ev_d2h, s.st);
                if (e) st = cuda_fail(ctx, e, "copy back");
            }
            if (!st && it >= 2) { /* C: payloads to the destination */
                const uint32_t bi = it - 2;
                Slot &s = c->slot[bi % NSLOT];
                cudaError_t e = cudaEventSynchronize(s.ev_d2h);
                if (e) {
                    st = cuda_fail(ctx, e, "copy back");
                    break;
                }
                scz__par_memcpy(dst + bpos[bi % NSLOT], s.pin_out, btot[bi % NSLOT], threads);
                done += braw[bi % NSLOT];
                if (ctx->progress) ctx->progress(ctx->progress_user, done, h->raw_bytes);
            }
        }
        drain(c);
        if (st) return st;
    }
    scz__header_write(h, dst);
    scz__table_write(entries, N, dst + SCZ_HEADER_SIZE);
    *dst_size = (size_t)pos;
    return SCZ_OK;
}

extern "C" scz_status scz__cuda_decompress_host(scz_ctx *ctx, const scz_header *h, const uint8_t *src,
                                                uint32_t first_chunk, uint32_t count, uint8_t *dst) {
    Ctx *c = cctx(ctx);
    DevGuard dg(c->device);
    if (count == 0) return SCZ_OK;
    const int threads = scz__threads(ctx);
    const uint8_t *table = src + SCZ_HEADER_SIZE;
    const uint32_t cpb0 = chunks_per_batch(c, h);
    const uint32_t cpb = cpb0 < count ? cpb0 : count;
    const uint32_t nbat = (count + cpb - 1) / cpb;
    const uint64_t B = 1ull << h->cksum_block_log2;

    /* Capacities: staged payloads (each chunk 16-byte aligned) after the
     * metadata, raw output, block hashes. */
    uint64_t in_cap = 0, nbmax = 0, raw_cap = 0;
    for (uint32_t bi = 0; bi < nbat; bi++) {
        const uint32_t f = first_chunk + bi * cpb, n = bi + 1 < nbat ? cpb : count - bi * cpb;
        uint64_t in = round_up(32 * (size_t)n, 256), raw = 0;
        for (uint32_t i = 0; i < n; i++) {
            scz_chunk_entry e;
            scz__table_entry(table, f + i, &e);
            in += round_up(e.size, 16);
            uint64_t nb = (e.size + B - 1) / B;
            if (nb > nbmax) nbmax = nb;
            uint64_t rb;
            scz_chunk_geom g;
            scz__chunk_geom(h, f + i, &g, NULL, &rb);
            raw += rb;
        }
        if (in > in_cap) in_cap = in;
        if (raw > raw_cap) raw_cap = raw;
    }
    scz_status st;
    size_t dscr; /* codec scratch of the largest batch and of the final one */
    {
        scz_cuda_batch bf, bl;
        make_batch(h, first_chunk, cpb, &bf);
        make_batch(h, first_chunk + (nbat - 1) * cpb, count - (nbat - 1) * cpb, &bl);
        if ((st = codec_check(ctx, &bf)) || (st = codec_check(ctx, &bl))) return st;
        const size_t d1 = codec_scratch(&bf, SCZ_CUDA_DECODE), d2 = codec_scratch(&bl, SCZ_CUDA_DECODE);
        dscr = d1 > d2 ? d1 : d2;
    }
    Layout L = layout(dscr, cpb, nbmax);
    if ((st = grow_slots(ctx, in_cap, raw_cap, in_cap, raw_cap, L.total, 8 + 3 * (size_t)cpb))) return st;
    uint64_t *so = static_cast<uint64_t *>(scz__scratch(ctx, SCZ_SCRATCH_SLOTS - 1, 3 * (size_t)cpb * 8));
    if (!so) return scz__fail(ctx, SCZ_ERR_NOMEM, "cannot allocate staging offsets");

    uint64_t raw_base;
    {
        scz_chunk_geom g;
        scz__chunk_geom(h, first_chunk, &g, &raw_base, NULL);
    }
    uint64_t bdst[NSLOT] = {0}, braw[NSLOT] = {0};
    uint64_t done = 0, total_raw = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t rb;
        scz_chunk_geom g;
        scz__chunk_geom(h, first_chunk + i, &g, NULL, &rb);
        total_raw += rb;
    }
    st = SCZ_OK;
    for (uint32_t it = 0; it < nbat + NSLOT - 1 && !st; it++) {
        if (it < nbat) { /* A: stage payloads + metadata, decode, copy back */
            Slot &s = c->slot[it % NSLOT];
            const uint32_t f = first_chunk + it * cpb, n = it + 1 < nbat ? cpb : count - it * cpb;
            scz_cuda_batch b;
            make_batch(h, f, n, &b);
            /* metadata: payload offsets (relative to the staged payload
             * area), sizes, expected checksums, codec_info */
            uint64_t *mo = reinterpret_cast<uint64_t *>(s.pin_in), *ms = mo + n, *mk = mo + 2 * (size_t)n,
                     *mi = mo + 3 * (size_t)n;
            const uint64_t mbytes = round_up(32 * (size_t)n, 256);
            uint64_t off = 0;
            uint64_t *src_off = so, *dst_off = so + cpb, *len = so + 2 * (size_t)cpb;
            for (uint32_t i = 0; i < n; i++) {
                scz_chunk_entry e;
                scz__table_entry(table, f + i, &e);
                mo[i] = off;
                ms[i] = e.size;
                mk[i] = e.checksum;
                mi[i] = e.info;
                src_off[i] = e.offset;
                dst_off[i] = mbytes + off;
                len[i] = e.size;
                off += round_up(e.size, 16);
            }
            scz__par_memcpy_many(s.pin_in, dst_off, src, src_off, len, n, threads);
            uint64_t roff, rb, rl;
            scz_chunk_geom g;
            scz__chunk_geom(h, f, &g, &roff, &rb);
            scz__chunk_geom(h, f + n - 1, &g, NULL, &rl);
            const uint64_t raw = rb * (n - 1) + rl;
            bdst[it % NSLOT] = roff - raw_base;
            braw[it % NSLOT] = raw;
            Layout Lb = layout(codec_scratch(&b, SCZ_CUDA_DECODE), n, nbmax);
            unsigned long long *err = at<unsigned long long>(s.d_scr, Lb.err);
            const uint64_t *dmo = reinterpret_cast<const uint64_t *>(s.d_in), *dms = dmo + n, *dmk = dmo + 2 * (size_t)n,
                           *dmi = dmo + 3 * (size_t)n;
            cudaError_t e = cudaMemcpyAsync(s.d_in, s.pin_in, mbytes + off, cudaMemcpyHostToDevice, s.st);
            if (!e) e = cudaMemsetAsync(err, 0xff, 8, s.st);
            if (fused_hash(c, &b, h->cksum_block_log2)) { /* the decoder hashes what it reads */
                uint64_t *bh = at<uint64_t>(s.d_scr, Lb.bh);
                if (!e)
                    e = gpu_codec(&b)->decode_hashed(&b, s.d_in + mbytes, dmo, dms, dmi, s.d_out, err,
                                                     s.d_scr + Lb.codec, bh, nbmax, h->cksum_block_log2, s.st);
                if (!e) e = launch_final_hash(dms, n, nbmax, h->cksum_block_log2, bh, NULL, dmk, err, f, s.st);
            } else {
            if (!e) e = cudaEventRecord(s.ev_fork, s.st);
            if (!e) e = cudaStreamWaitEvent(s.aux, s.ev_fork, 0);
            if (!e)
                e = launch_hash(s.d_in + mbytes, dmo, dms, n, nbmax, h->cksum_block_log2, at<uint64_t>(s.d_scr, Lb.bh),
                                NULL, dmk, err, f, (unsigned)c->sms * (c->hash_ctas ? c->hash_ctas : 8), s.aux);
            if (!e) e = cudaEventRecord(s.ev_join, s.aux);
            if (!e)
                e = codec_decode(&b, s.d_in + mbytes, dmo, dms, dmi, s.d_out, err, s.d_scr + Lb.codec, s.st);
            if (!e) e = cudaStreamWaitEvent(s.st, s.ev_join, 0);
            }
            if (!e) e = cudaMemcpyAsync(s.pin_out, s.d_out, raw, cudaMemcpyDeviceToHost, s.st);
            if (!e) e = cudaMemcpyAsync(s.pin_meta, err, 8, cudaMemcpyDeviceToHost, s.st);
            if (!e) e = cudaEventRecord(s.ev_k, s.st);
            if (e) st = cuda_fail(ctx, e, "decompression batch");
        }
        if (!st && it >= NSLOT - 1) { /* C: check, copy out */
            const uint32_t bi = it - (NSLOT - 1);
            Slot &s = c->slot[bi % NSLOT];
            cudaError_t e = cudaEventSynchronize(s.ev_k);
            if (e) {
                st = cuda_fail(ctx, e, "decompression batch");
                break;
            }
            if ((st = err_status(ctx, h->codec, s.pin_meta[0]))) break;
            scz__par_memcpy(dst + bdst[bi % NSLOT], s.pin_out, braw[bi % NSLOT], threads);
            done += braw[bi % NSLOT];
            if (ctx->progress && count == h->num_chunks) ctx->progress(ctx->progress_user, done, total_raw);
        }
    }
    drain(c);
    return st;
}

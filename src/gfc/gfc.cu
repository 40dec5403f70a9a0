/*
 * gfc.cu -- the gfc codec (id 4, FORMAT.md 10) on the GPU: writes exactly
 * the bytes of the CPU codec (gfc.c) and decodes them. One warp per
 * segment of 1024 values (32 subchunks of 32, lane j takes value j of each
 * subchunk), as the format was designed for; no warp talks to another.
 *
 * Encoding (chunks [ca, cb) of a batch, one launch per step):
 *   k_gsize   warp per segment: residuals against the previous subchunk's
 *             values (a shuffle from lane 32 - D + j mod D), nibbles, kept
 *             bytes; the segment's size;
 *   k_gscan   block per chunk: segment offsets (a scan), the coded size,
 *             stored or coded (10.6);
 *   k_goff    one block: payload offsets of the chunks (a scan);
 *   k_gwrite  warp per segment: the same walk again, the segment's bytes
 *             assembled in shared memory, then copied out in aligned words
 *             (and its entry of the offset table); a stored chunk's warps
 *             copy its raw bytes.
 * Decoding:
 *   k_gdchk   block per chunk: codec_info, sizes, offset table (10.5, 10.6);
 *   k_gdec    warp per segment: the segment's bytes staged in shared memory,
 *             per subchunk the nibbles, a warp prefix sum of the kept bytes,
 *             the values from the previous subchunk's by a shuffle; the
 *             segment must decode to exactly its bytes.
 * Reads the input twice when encoding (sizes, then bytes): the offsets of
 * a segment's output are known before it is written.
 */
extern "C" {
#include "gfc.h"
}
#include "../cuda/cuda_rt.h"

#include <cub/cub.cuh>

namespace {

enum {
    GFC_ERR_INFO = SCZ_CUDA_ERR_CODEC, /* codec_info, or a payload of the wrong size for its form */
    GFC_ERR_TABLE,                     /* segment offset table */
    GFC_ERR_SEGMENT,                   /* a segment that does not decode to exactly its bytes */
};

constexpr uint32_t NT = 256;            /* threads per block */
constexpr uint32_t WPB = NT / 32;       /* warps (segments) per block */
constexpr unsigned FULLM = 0xffffffffu;

__device__ __forceinline__ uint32_t chunk_count(uint32_t c, uint32_t n, uint64_t full, uint64_t last) {
    return (uint32_t)(c + 1 == n ? last : full);
}

__device__ __forceinline__ uint32_t ld32le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Leading-zero code and kept bytes of a magnitude (10.3). */
template <typename T> struct Lz;
template <> struct Lz<uint64_t> {
    static constexpr uint32_t ZERO = GFC_ZERO_NIBBLE_F64;
    __device__ static __forceinline__ void code(uint64_t m, uint32_t *c, uint32_t *n) {
        const uint32_t z = m ? (uint32_t)__clzll((long long)m) / 8 : 8;
        const uint32_t cc = z < 6 ? z : z - 1;              /* 6 -> 5, 7 -> 6, 8 -> 7 */
        *c = cc;
        *n = cc < 6 ? 8 - cc : cc == 6 ? 1 : 0;             /* 8 7 6 5 4 3 1 0 */
    }
    __device__ static __forceinline__ uint32_t kept(uint32_t c) { return c < 6 ? 8 - c : c == 6 ? 1 : 0; }
};
template <> struct Lz<uint32_t> {
    static constexpr uint32_t ZERO = GFC_ZERO_NIBBLE_F32;
    __device__ static __forceinline__ void code(uint32_t m, uint32_t *c, uint32_t *n) {
        const uint32_t z = m ? (uint32_t)__clz((int)m) / 8 : 4;
        *c = z;
        *n = 4 - z;
    }
    __device__ static __forceinline__ uint32_t kept(uint32_t c) { return c <= 4 ? 4 - c : 0xffu; }
};

struct GParams {
    const uint8_t *src; /* encode: the range's first raw chunk */
    uint8_t *dst;       /* decode: the batch's first raw chunk */
    const uint8_t *pay;
    uint8_t *wpay;
    uint64_t *choff, *chsize, *chinfo;
    const uint64_t *rchoff, *rchsize, *rchinfo;
    unsigned long long *err;
    uint32_t *segsz, *segoff; /* per chunk: smax entries */
    uint64_t *csize;          /* per chunk: payload size (coded or stored) */
    uint32_t *cinfo, *cbad;   /* per chunk */
    uint64_t count_full, count_last, raw_full;
    uint32_t n, ng, g0, c0, smax, dim, es;
};

/* Residual of lane j of subchunk k against the previous subchunk's values
 * (prev: this lane's value of subchunk k-1), sign g and magnitude m. */
template <typename T>
__device__ __forceinline__ void residual(T x, T prev, uint32_t k0, uint32_t dim, uint32_t lane, uint32_t *g, T *m) {
    const T pv = __shfl_sync(FULLM, prev, 32 - dim + lane % dim);
    const T p = k0 ? pv : (T)0;
    const T r = x - p;
    *g = (uint32_t)(r >> (8 * sizeof(T) - 1));
    *m = *g ? (T)0 - r : r;
}

/* Value of lane j in subchunk k of the chunk (padded positions take their
 * prediction, 10.1): x of the real ones is loaded by the caller. */
template <typename T>
__device__ __forceinline__ T load_or_pad(const T *src, uint64_t i, uint64_t n, T prev, uint32_t k0, uint32_t dim,
                                         uint32_t lane) {
    const T pv = __shfl_sync(FULLM, prev, 32 - dim + lane % dim);
    return i < n ? src[i] : (k0 ? pv : (T)0);
}

/* Sizes of the segments of the range's chunks. */
template <typename T> __global__ void __launch_bounds__(NT) k_gsize(GParams p) {
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t cl = blockIdx.y, s = blockIdx.x * WPB + w;
    const uint64_t n = chunk_count(p.g0 + cl, p.n, p.count_full, p.count_last);
    const uint64_t S = (n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES;
    if (s >= S) return; /* whole warps */
    const T *src = reinterpret_cast<const T *>(p.src + (uint64_t)cl * p.raw_full);
    const uint64_t v0 = (uint64_t)s * GFC_SEG_VALUES;
    const uint32_t nsub = (uint32_t)((n - v0 + GFC_SUB - 1) / GFC_SUB < GFC_SEG_SUBS ? (n - v0 + GFC_SUB - 1) / GFC_SUB
                                                                                      : GFC_SEG_SUBS);
    T prev = 0;
    uint32_t bytes = 0;
    for (uint32_t k = 0; k < nsub; k++) {
        const uint64_t i = v0 + (uint64_t)k * GFC_SUB + lane;
        const T x = load_or_pad<T>(src, i, n, prev, k, p.dim, lane);
        uint32_t g, c, nb;
        T m;
        residual<T>(x, prev, k, p.dim, lane, &g, &m);
        Lz<T>::code(m, &c, &nb);
        bytes += nb;
        prev = x;
    }
    for (uint32_t o = 16; o; o >>= 1) bytes += __shfl_xor_sync(FULLM, bytes, o);
    if (lane == 0) p.segsz[(uint64_t)cl * p.smax + s] = bytes + nsub * GFC_HDR_BYTES;
}

/* Per chunk: segment offsets, coded size, stored or coded. */
__global__ void __launch_bounds__(NT) k_gscan(GParams p) {
    typedef cub::BlockScan<uint64_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    const uint32_t cl = blockIdx.x;
    const uint64_t n = chunk_count(p.g0 + cl, p.n, p.count_full, p.count_last);
    const uint32_t S = (uint32_t)((n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES);
    uint64_t carry = 0;
    for (uint32_t s0 = 0; s0 < S; s0 += NT) {
        const uint32_t s = s0 + threadIdx.x;
        const uint64_t x = s < S ? p.segsz[(uint64_t)cl * p.smax + s] : 0;
        uint64_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (s < S) p.segoff[(uint64_t)cl * p.smax + s] = (uint32_t)(carry + ex); /* < raw size < 2^32 when coded */
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const uint64_t R = n * p.es, C = 4ull * S + carry;
        const bool stored = C >= R;
        p.csize[cl] = stored ? R : C;
        p.cinfo[cl] = stored ? GFC_INFO_STORED : GFC_INFO_CODED;
    }
}

/* Payload offsets of the range's chunks, after the chunks before it. */
__global__ void __launch_bounds__(NT) k_goff(GParams p) {
    typedef cub::BlockScan<uint64_t, NT> Scan;
    __shared__ typename Scan::TempStorage ts;
    uint64_t carry = p.g0 ? p.choff[p.g0 - 1] + p.chsize[p.g0 - 1] : 0;
    for (uint32_t c0 = 0; c0 < p.ng; c0 += NT) {
        const uint32_t cl = c0 + threadIdx.x;
        const uint64_t x = cl < p.ng ? p.csize[cl] : 0;
        uint64_t ex, tot;
        Scan(ts).ExclusiveSum(x, ex, tot);
        if (cl < p.ng) {
            p.choff[p.g0 + cl] = carry + ex;
            p.chsize[p.g0 + cl] = x;
            p.chinfo[p.g0 + cl] = p.cinfo[cl];
        }
        carry += tot;
        __syncthreads();
    }
}

/* A warp copies len bytes from s (shared or global) to d (any alignment):
 * aligned 4-byte words of d, bytes at the two ends. */
__device__ __forceinline__ void warp_copy(uint8_t *d, const uint8_t *s, uint32_t len, uint32_t lane) {
    const uint32_t head = (uint32_t)((4 - (reinterpret_cast<uintptr_t>(d) & 3)) & 3);
    const uint32_t h = head < len ? head : len;
    if (lane < h) d[lane] = s[lane];
    const uint32_t words = (len - h) / 4;
    uint32_t *dw = reinterpret_cast<uint32_t *>(d + h);
    for (uint32_t k = lane; k < words; k += 32) {
        const uint8_t *q = s + h + 4 * k;
        dw[k] = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    }
    for (uint32_t k = h + 4 * words + lane; k < len; k += 32) d[k] = s[k];
}

/* The segments' bytes and offset table entries; stored chunks' raw bytes. */
template <typename T> __global__ void __launch_bounds__(NT) k_gwrite(GParams p) {
    extern __shared__ uint8_t gsm[];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t cl = blockIdx.y, s = blockIdx.x * WPB + w;
    const uint64_t n = chunk_count(p.g0 + cl, p.n, p.count_full, p.count_last);
    const uint64_t S = (n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES;
    if (s >= S) return;
    const uint8_t *raw = p.src + (uint64_t)cl * p.raw_full;
    uint8_t *P = p.wpay + p.choff[p.g0 + cl];
    const uint64_t v0 = (uint64_t)s * GFC_SEG_VALUES;
    const uint32_t vals = (uint32_t)(n - v0 < GFC_SEG_VALUES ? n - v0 : GFC_SEG_VALUES);
    if (p.cinfo[cl] == GFC_INFO_STORED) {
        warp_copy(P + v0 * sizeof(T), raw + v0 * sizeof(T), vals * (uint32_t)sizeof(T), lane);
        return;
    }
    const T *src = reinterpret_cast<const T *>(raw);
    uint8_t *sm = gsm + (size_t)w * GFC_MAX_SEG_BYTES(sizeof(T));
    const uint32_t nsub = (vals + GFC_SUB - 1) / GFC_SUB;
    T prev = 0;
    uint32_t pos = 0;
    for (uint32_t k = 0; k < nsub; k++) {
        const uint64_t i = v0 + (uint64_t)k * GFC_SUB + lane;
        const T x = load_or_pad<T>(src, i, n, prev, k, p.dim, lane);
        uint32_t g, c, nb;
        T m;
        residual<T>(x, prev, k, p.dim, lane, &g, &m);
        Lz<T>::code(m, &c, &nb);
        const uint32_t h = g << 3 | c;
        const uint32_t hn = __shfl_down_sync(FULLM, h, 1);
        if ((lane & 1) == 0) sm[pos + lane / 2] = (uint8_t)(h | hn << 4);
        uint32_t incl = nb;
        for (uint32_t o = 1; o < 32; o <<= 1) {
            const uint32_t t = __shfl_up_sync(FULLM, incl, o);
            if (lane >= o) incl += t;
        }
        const uint32_t at = pos + GFC_HDR_BYTES + incl - nb;
        for (uint32_t b = 0; b < nb; b++) sm[at + b] = (uint8_t)(m >> (8 * b));
        pos += GFC_HDR_BYTES + __shfl_sync(FULLM, incl, 31);
        prev = x;
    }
    __syncwarp();
    const uint32_t off = p.segoff[(uint64_t)cl * p.smax + s];
    uint8_t *D = P + 4 * S + off;
    warp_copy(D, sm, pos, lane);
    if (lane < 4) P[4 * s + lane] = (uint8_t)((off + pos) >> (8 * lane)); /* end[s] */
}

/* ---- decoding ---- */

/* Per chunk: codec_info, sizes, offset table. */
__global__ void __launch_bounds__(NT) k_gdchk(GParams p) {
    __shared__ int bad;
    const uint32_t cl = blockIdx.x;
    const uint64_t n = chunk_count(cl, p.n, p.count_full, p.count_last);
    const uint64_t R = n * p.es, size = p.rchsize[cl], info = p.rchinfo[cl] & 0xffffffffu;
    const uint64_t S = (n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES;
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    int e = 0;
    if (info == GFC_INFO_STORED) {
        e = size != R ? GFC_ERR_INFO : 0;
    } else if (info == GFC_INFO_CODED) {
        if (size >= R || size / 4 < S) {
            e = GFC_ERR_INFO;
        } else {
            const uint8_t *P = p.pay + p.rchoff[cl];
            for (uint64_t s = threadIdx.x; s < S && !e; s += NT) {
                const uint32_t a = s ? ld32le(P + 4 * (s - 1)) : 0, b = ld32le(P + 4 * s);
                if (b < a || b - a > GFC_MAX_SEG_BYTES(p.es)) e = GFC_ERR_TABLE;
                if (s + 1 == S && b != size - 4 * S) e = GFC_ERR_TABLE;
            }
        }
    } else {
        e = GFC_ERR_INFO;
    }
    if (e) atomicMax(&bad, e);
    __syncthreads();
    if (threadIdx.x == 0) {
        p.cbad[cl] = (uint32_t)bad;
        if (bad) scz_cuda_report(p.err, p.c0 + cl, (unsigned)bad);
    }
}

template <typename T> __global__ void __launch_bounds__(NT) k_gdec(GParams p) {
    extern __shared__ uint8_t gsm[];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t cl = blockIdx.y, s = blockIdx.x * WPB + w;
    const uint64_t n = chunk_count(cl, p.n, p.count_full, p.count_last);
    const uint64_t S = (n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES;
    if (s >= S || p.cbad[cl]) return;
    const uint8_t *P = p.pay + p.rchoff[cl];
    uint8_t *out = p.dst + (uint64_t)cl * p.raw_full;
    const uint64_t v0 = (uint64_t)s * GFC_SEG_VALUES;
    const uint32_t vals = (uint32_t)(n - v0 < GFC_SEG_VALUES ? n - v0 : GFC_SEG_VALUES);
    if ((p.rchinfo[cl] & 0xffffffffu) == GFC_INFO_STORED) {
        warp_copy(out + v0 * sizeof(T), P + v0 * sizeof(T), vals * (uint32_t)sizeof(T), lane);
        return;
    }
    const uint32_t a = s ? ld32le(P + 4 * (s - 1)) : 0, b = ld32le(P + 4 * s), len = b - a;
    const uint8_t *D = P + 4 * S + a;
    uint8_t *sm = gsm + (size_t)w * GFC_MAX_SEG_BYTES(sizeof(T));
    for (uint32_t k = lane; k < len; k += 32) sm[k] = D[k]; /* len <= the most a segment holds (k_gdchk) */
    __syncwarp();
    T *dst = reinterpret_cast<T *>(out);
    const uint32_t nsub = (vals + GFC_SUB - 1) / GFC_SUB;
    T prev = 0;
    uint32_t pos = 0;
    int bad = 0;
    for (uint32_t k = 0; k < nsub && !bad; k++) {
        if (pos + GFC_HDR_BYTES > len) {
            bad = 1;
            break;
        }
        const uint32_t byte = sm[pos + lane / 2];
        const uint32_t h = (lane & 1) ? byte >> 4 : byte & 15;
        const uint32_t g = h >> 3, c = h & 7, nb = Lz<T>::kept(c);
        const uint64_t i = v0 + (uint64_t)k * GFC_SUB + lane;
        int lbad = nb > sizeof(T);                              /* f32 codes 5..7 */
        if (i >= n && h != Lz<T>::ZERO) lbad = 1;                /* padding */
        const uint32_t nbv = lbad ? 0 : nb;
        uint32_t incl = nbv;
        for (uint32_t o = 1; o < 32; o <<= 1) {
            const uint32_t t = __shfl_up_sync(FULLM, incl, o);
            if (lane >= o) incl += t;
        }
        const uint32_t tot = __shfl_sync(FULLM, incl, 31);
        const uint32_t at = pos + GFC_HDR_BYTES + incl - nbv;
        if (pos + GFC_HDR_BYTES + tot > len) lbad = 1;
        T m = 0;
        if (!lbad)
            for (uint32_t q = 0; q < nbv; q++) m |= (T)sm[at + q] << (8 * q);
        const T pv = __shfl_sync(FULLM, prev, 32 - p.dim + lane % p.dim);
        const T pr = k ? pv : (T)0;
        const T x = g ? pr - m : pr + m;
        if (!lbad && i < n) dst[i] = x;
        prev = x;
        pos += GFC_HDR_BYTES + tot;
        bad = __any_sync(FULLM, lbad);
    }
    if (!bad && pos != len) bad = 1;
    if (bad && lane == 0) scz_cuda_report(p.err, p.c0 + cl, GFC_ERR_SEGMENT);
}

size_t smax_of(const scz_cuda_batch *b) {
    return (size_t)((b->full.count + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES);
}

struct GLay {
    size_t segsz, segoff, csize, cinfo, cbad, total;
};

GLay glay(const scz_cuda_batch *b) {
    GLay L;
    const size_t n = b->n, sm = smax_of(b);
    size_t o = 0;
    auto take = [&](size_t bytes) {
        const size_t r = o;
        o = (o + bytes + 255) / 256 * 256;
        return r;
    };
    L.segsz = take(n * sm * 4);
    L.segoff = take(n * sm * 4);
    L.csize = take(n * 8);
    L.cinfo = take(n * 4);
    L.cbad = take(n * 4);
    L.total = o;
    return L;
}

GParams gparams(const scz_cuda_batch *b, void *scratch) {
    GParams p;
    memset(&p, 0, sizeof p);
    const GLay L = glay(b);
    uint8_t *sc = static_cast<uint8_t *>(scratch);
    p.segsz = reinterpret_cast<uint32_t *>(sc + L.segsz);
    p.segoff = reinterpret_cast<uint32_t *>(sc + L.segoff);
    p.csize = reinterpret_cast<uint64_t *>(sc + L.csize);
    p.cinfo = reinterpret_cast<uint32_t *>(sc + L.cinfo);
    p.cbad = reinterpret_cast<uint32_t *>(sc + L.cbad);
    p.count_full = b->full.count;
    p.count_last = b->last.count;
    p.raw_full = b->raw_full;
    p.n = b->n;
    p.c0 = b->c0;
    p.smax = (uint32_t)smax_of(b);
    p.dim = b->h->knobs[0] ? b->h->knobs[0] : GFC_DIM_DEFAULT;
    p.es = b->full.esize;
    return p;
}

} // namespace

static scz_status gfc_cuda_check(scz_ctx *ctx, const scz_cuda_batch *b) {
    if (b->n == 0) return scz__fail(ctx, SCZ_ERR_INTERNAL, "gfc (CUDA): empty batch");
    if (b->full.esize != 4 && b->full.esize != 8)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "gfc (CUDA): element size %u", b->full.esize);
    const uint32_t d = b->h->knobs[0];
    if (d > GFC_DIM_MAX) return scz__fail(ctx, SCZ_ERR_CORRUPT, "gfc (CUDA): dimensionality %u", d);
    if (b->full.count * b->full.esize >= 0xffffffffull)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "gfc (CUDA): chunks of 4 GiB or more; use a smaller chunk size");
    if (smax_of(b) / WPB + 1 > 0x7fffffffull || b->n > 65535)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "gfc (CUDA): batch too large for the grid");
    return SCZ_OK;
}

static size_t gfc_cuda_scratch(const scz_cuda_batch *b, int dir) {
    (void)dir;
    return b->n ? glay(b).total : 0;
}

static cudaError_t gfc_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                   uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                   void *scratch, cudaStream_t s) {
    if (ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    GParams p = gparams(b, scratch);
    p.src = static_cast<const uint8_t *>(d_src) + (uint64_t)ca * b->raw_full;
    p.wpay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.g0 = ca;
    p.ng = cb - ca;
    /* per-range arrays start at the range's first chunk */
    p.segsz += (size_t)ca * p.smax;
    p.segoff += (size_t)ca * p.smax;
    p.csize += ca;
    p.cinfo += ca;
    const dim3 grid((p.smax + WPB - 1) / WPB, p.ng);
    const size_t dyn = (size_t)WPB * GFC_MAX_SEG_BYTES(p.es);
    cudaError_t e;
    if (p.es == 8) {
        if ((e = cudaFuncSetAttribute(k_gwrite<uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn)))
            return e;
        k_gsize<uint64_t><<<grid, NT, 0, s>>>(p);
    } else {
        if ((e = cudaFuncSetAttribute(k_gwrite<uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn)))
            return e;
        k_gsize<uint32_t><<<grid, NT, 0, s>>>(p);
    }
    k_gscan<<<p.ng, NT, 0, s>>>(p);
    k_goff<<<1, NT, 0, s>>>(p);
    if (p.es == 8) k_gwrite<uint64_t><<<grid, NT, dyn, s>>>(p);
    else k_gwrite<uint32_t><<<grid, NT, dyn, s>>>(p);
    return cudaGetLastError();
}

static cudaError_t gfc_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                   const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                   unsigned long long *err, void *scratch, cudaStream_t s) {
    GParams p = gparams(b, scratch);
    p.pay = d_pay;
    p.rchoff = choff;
    p.rchsize = chsize;
    p.rchinfo = chinfo;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.err = err;
    const dim3 grid((p.smax + WPB - 1) / WPB, b->n);
    const size_t dyn = (size_t)WPB * GFC_MAX_SEG_BYTES(p.es);
    cudaError_t e;
    k_gdchk<<<b->n, NT, 0, s>>>(p);
    if (p.es == 8) {
        if ((e = cudaFuncSetAttribute(k_gdec<uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn)))
            return e;
        k_gdec<uint64_t><<<grid, NT, dyn, s>>>(p);
    } else {
        if ((e = cudaFuncSetAttribute(k_gdec<uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn)))
            return e;
        k_gdec<uint32_t><<<grid, NT, dyn, s>>>(p);
    }
    return cudaGetLastError();
}

static cudaError_t gfc_cuda_probe(void) {
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k_gwrite<uint64_t>);
    if (!e) e = cudaFuncGetAttributes(&a, k_gdec<uint64_t>);
    return e;
}

static const char *gfc_cuda_error_text(unsigned code) {
    switch (code) {
    case GFC_ERR_INFO: return "gfc chunk: codec_info or payload size inconsistent with its form";
    case GFC_ERR_TABLE: return "gfc chunk: segment offset table is inconsistent";
    case GFC_ERR_SEGMENT: return "gfc segment does not decode to exactly its bytes (nibbles, padding or length)";
    }
    return NULL;
}

/* Listed in src/cuda/codecs_cuda.cu. */
extern const scz_cuda_codec_ops scz__gfc_cuda_ops = {
    SCZ_CODEC_GFC,  gfc_cuda_check,      gfc_cuda_scratch, gfc_cuda_encode, gfc_cuda_decode,
    gfc_cuda_probe, gfc_cuda_error_text, nullptr,          nullptr,
};

/*
 * ndzip.cu -- CUDA implementation of the ndzip lossless codec. Writes the
 * bytes of docs/FORMAT.md section 6 exactly as the CPU reference ndzip.c
 * beside it does, and reads them back.
 *
 * One thread block of 128 threads per hypercube; thread t holds the 32
 * consecutive hypercube elements 32t .. 32t+31 in registers, which is one
 * packing group for float32 and half of one (its top or bottom 32 rows)
 * for float64. That choice makes the vertical bit packing a per-thread
 * 32 x 32 bit transpose in registers (6.5) and leaves shared memory to the
 * neighbour exchange of the Lorenzo passes (rows padded to 33 words: the
 * per-thread strides then hit 32 different banks) and to staging the
 * compressed hypercube for wide, coalesced stores.
 *
 * Compression is one pass: each block encodes its hypercube into shared
 * memory, publishes its size and finds its output offset by decoupled
 * look-back over the blocks before it (all hypercubes of all chunks of a
 * batch, in stream order), then stores the hypercube at its final place. The
 * last hypercube of a chunk publishes the chunk's final end instead, raw
 * size for a chunk that is stored (FORMAT.md 6.7), so that the chunks after
 * it start where the stream has them; hypercubes that would reach past the
 * raw size are not stored at all. A small kernel then writes each chunk's
 * table of hypercube end offsets, or copies a stored chunk's raw bytes.
 * Decompression is one kernel: block h reads its offsets, stages the
 * hypercube in shared memory with asynchronous copies, unpacks, undoes the
 * transform with prefix sums (in registers, warp shuffles and a little
 * shared memory) and stores; for a stored chunk it copies its share of the
 * raw bytes.
 */
#include "../cuda/cuda_rt.h"
#include "../cuda/kutil.h"

extern "C" {
#include "ndzip.h"
}

namespace {

/* ndzip's codes in the device error word (cuda_rt.h; error_text below). */
enum { NDZIP_ERR_LAYOUT = SCZ_CUDA_ERR_CODEC, NDZIP_ERR_HYPERCUBE, NDZIP_ERR_FORM };

constexpr int NT = 128;     /* threads per hypercube */
constexpr int SROW = 33;    /* padded row of the exchange buffer */
constexpr unsigned FULL = 0xffffffffu;

/* Coding geometry of a chunk (6.1). */
struct Geo {
    uint32_t rank;
    uint32_t nb0, nb1, nb2;
    uint32_t H;
    uint64_t e0, e1, e2;
};

struct Params {
    const uint8_t *src;           /* encode: raw batch; decode: payload base */
    uint8_t *dst;                 /* encode: payload area; decode: raw batch */
    const uint64_t *choff, *chsize; /* decode: payload offset / size per chunk */
    const uint64_t *chinfo;       /* decode: codec_info per chunk (6.7) */
    unsigned long long *state;    /* encode: look-back state per hypercube */
    unsigned long long *counter;  /* encode: block ticket */
    unsigned long long *err;      /* decode: error word */
    uint64_t raw_full;
    uint64_t total_hc;
    uint32_t nchunks, c0;
    uint32_t esize;
    Geo full, last;
};

/* ---- host: geometry ---- */

static int geo_from_chunk(const scz_chunk_geom *g, Geo *z) {
    uint64_t e[3];
    if (g->count == 0) return -1;
    z->rank = ndzip_coding_dims(g->dims, g->rank, e); /* shared with the CPU (6.1) */
    const uint64_t s = ndzip_hc_side[z->rank];
    const uint64_t sy = z->rank >= 2 ? s : 1, sz = z->rank >= 3 ? s : 1;
    uint64_t nb0 = (e[0] + s - 1) / s, nb1 = (e[1] + sy - 1) / sy, nb2 = (e[2] + sz - 1) / sz;
    uint64_t H = nb0 * nb1 * nb2;
    if (H > 0xffffffffull) return -1;
    z->nb0 = (uint32_t)nb0;
    z->nb1 = (uint32_t)nb1;
    z->nb2 = (uint32_t)nb2;
    z->H = (uint32_t)H;
    z->e0 = e[0];
    z->e1 = e[1];
    z->e2 = e[2];
    return 0;
}

static uint64_t max_hc_bytes(uint32_t esize) {
    uint64_t w = esize * 8u;
    return (NDZIP_HC_ELEMS / w + NDZIP_HC_ELEMS) * esize;
}

static int make_params(const scz_cuda_batch *b, Params *p) {
    memset(p, 0, sizeof *p);
    if (geo_from_chunk(&b->full, &p->full) || geo_from_chunk(&b->last, &p->last)) return -1;
    p->nchunks = b->n;
    p->c0 = b->c0;
    p->esize = b->full.esize;
    p->raw_full = b->raw_full;
    p->total_hc = (uint64_t)(b->n - 1) * p->full.H + p->last.H;
    return 0;
}

/* ---- device helpers ---- */

template <typename T> struct Wd;
template <> struct Wd<uint32_t> { static constexpr int W = 32, G = 128; };
template <> struct Wd<uint64_t> { static constexpr int W = 64, G = 64; };

__device__ __forceinline__ uint32_t rotl1(uint32_t u) { return (u << 1) | (u >> 31); }
__device__ __forceinline__ uint64_t rotl1(uint64_t u) { return (u << 1) | (u >> 63); }
__device__ __forceinline__ uint32_t rotr1(uint32_t u) { return (u >> 1) | (u << 31); }
__device__ __forceinline__ uint64_t rotr1(uint64_t u) { return (u >> 1) | (u << 63); }
/* 6.4: flip all but the top bit when the top bit is set (an involution). */
__device__ __forceinline__ uint32_t smap(uint32_t r) { return r ^ ((uint32_t)(0u - (r >> 31)) >> 1); }
__device__ __forceinline__ uint64_t smap(uint64_t r) { return r ^ ((uint64_t)(0ull - (r >> 63)) >> 1); }

/* 32 x 32 bit transpose, MSB-first (6.5): afterwards bit 31-i of a[c] is the
 * former bit 31-c of a[i]. The block-swap network of the CPU; its two
 * widest stages (16- and 8-bit blocks) are byte permutes, one PRMT per word
 * instead of six logic operations. Unrolled so the matrix stays in
 * registers. Its own inverse. */
__device__ __forceinline__ void transpose32(uint32_t (&a)[32]) {
#pragma unroll
    for (int k = 0; k < 16; k++) {
        const uint32_t x = a[k], y = a[k + 16];
        a[k] = __byte_perm(x, y, 0x3276);
        a[k + 16] = __byte_perm(x, y, 0x1054);
    }
#pragma unroll
    for (int k = 0; k < 32; k++) {
        if ((k & 8) == 0) {
            const uint32_t x = a[k], y = a[k + 8];
            a[k] = __byte_perm(x, y, 0x3715);
            a[k + 8] = __byte_perm(x, y, 0x2604);
        }
    }
#pragma unroll
    for (int s = 0; s < 3; s++) {
        const int j = 4 >> s;
        const uint32_t m = s == 0 ? 0x0F0F0F0Fu : s == 1 ? 0x33333333u : 0x55555555u;
#pragma unroll
        for (int k = 0; k < 32; k++) {
            if ((k & j) == 0) {
                uint32_t x = (a[k] ^ (a[k + j] >> j)) & m;
                a[k] ^= x;
                a[k + j] ^= x << j;
            }
        }
    }
}

template <typename T> __device__ __forceinline__ T shfl_up(T v, int d) { return __shfl_up_sync(FULL, v, d); }
template <typename T> __device__ __forceinline__ T shfl_xor(T v, int d) { return __shfl_xor_sync(FULL, v, d); }


/* Copies n bytes (a multiple of 4; both pointers 4-byte aligned) with the
 * NTH threads whose index is `tid`: 16-byte vectors when source and
 * destination are equally aligned, else words; 8 loads in flight per
 * thread. Stored chunks (6.7). */
template <int NTH>
__device__ __forceinline__ void coop_copy(uint8_t *__restrict__ d, const uint8_t *__restrict__ s, uint64_t n,
                                          uint32_t tid) {
    if (((reinterpret_cast<uintptr_t>(d) ^ reinterpret_cast<uintptr_t>(s)) & 15) == 0) {
        uint64_t head = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
        if (head > n) head = n;
        if (4 * tid < head) reinterpret_cast<uint32_t *>(d)[tid] = reinterpret_cast<const uint32_t *>(s)[tid];
        d += head;
        s += head;
        n -= head;
        const uint64_t nv = n >> 4;
        const uint4 *sv = reinterpret_cast<const uint4 *>(s);
        uint4 *dv = reinterpret_cast<uint4 *>(d);
        uint64_t i = tid;
        for (; i + 7 * NTH < nv; i += 8 * NTH) {
            uint4 r[8];
#pragma unroll
            for (int k = 0; k < 8; k++) r[k] = __ldcs(sv + i + k * NTH);
#pragma unroll
            for (int k = 0; k < 8; k++) dv[i + k * NTH] = r[k];
        }
        for (; i < nv; i += NTH) dv[i] = __ldcs(sv + i);
        const uint64_t t = 4 * nv + tid; /* tail words */
        if (4 * t < n) reinterpret_cast<uint32_t *>(d)[t] = reinterpret_cast<const uint32_t *>(s)[t];
    } else {
        const uint64_t nw = n >> 2;
        const uint32_t *sw = reinterpret_cast<const uint32_t *>(s);
        uint32_t *dw = reinterpret_cast<uint32_t *>(d);
        uint64_t i = tid;
        for (; i + 7 * NTH < nw; i += 8 * NTH) {
            uint32_t r[8];
#pragma unroll
            for (int k = 0; k < 8; k++) r[k] = __ldcs(sw + i + k * NTH);
#pragma unroll
            for (int k = 0; k < 8; k++) dw[i + k * NTH] = r[k];
        }
        for (; i < nw; i += NTH) dw[i] = __ldcs(sw + i);
    }
}

/* Hypercube coordinates of element l (axis 0 fastest). */
template <int R> struct Side { static constexpr uint32_t S = R == 1 ? 4096 : R == 2 ? 64 : 16; };

/* Loads hypercube (b0,b1,b2) with edge replication (6.1) into S in the
 * thread-major layout of the transform: element l at
 * S[(l >> 5) * SROW + (l & 31)]. Coalesced: consecutive threads read
 * consecutive 16-byte pieces; the padded layout keeps the stores free of
 * bank conflicts. */
template <typename T, int R>
__device__ __forceinline__ void coop_load(const T *__restrict__ src, const Geo &geo, uint32_t b0, uint32_t b1,
                                          uint32_t b2, T *S) {
    constexpr uint32_t SD = Side<R>::S, PER = 16 / sizeof(T), NV = NDZIP_HC_ELEMS / PER;
    const uint64_t e0 = geo.e0, e1 = geo.e1, e2 = geo.e2;
    const uint64_t x0 = (uint64_t)b0 * SD, y0 = R >= 2 ? (uint64_t)b1 * SD : 0, z0 = R >= 3 ? (uint64_t)b2 * SD : 0;
    const bool inner = x0 + SD <= e0 && (R < 2 || y0 + SD <= e1) && (R < 3 || z0 + SD <= e2) && e0 % PER == 0 &&
                       (reinterpret_cast<uintptr_t>(src) & 15) == 0;
    if (inner) {
        uint4 r[NV / NT];
#pragma unroll
        for (uint32_t k = 0; k < NV / NT; k++) {
            const uint32_t l = (k * NT + threadIdx.x) * PER;
            const uint32_t lx = l % SD, ly = R >= 2 ? (l / SD) % SD : 0, lz = R >= 3 ? l / (SD * SD) : 0;
            r[k] = __ldcs(reinterpret_cast<const uint4 *>(src + ((z0 + lz) * e1 + (y0 + ly)) * e0 + x0 + lx));
        }
#pragma unroll
        for (uint32_t k = 0; k < NV / NT; k++) {
            const uint32_t l = (k * NT + threadIdx.x) * PER;
            T *d = S + (l >> 5) * SROW + (l & 31);
            if (sizeof(T) == 4) {
                d[0] = (T)r[k].x;
                d[1] = (T)r[k].y;
                d[2] = (T)r[k].z;
                d[3] = (T)r[k].w;
            } else {
                d[0] = (T)(r[k].x | ((uint64_t)r[k].y << 32));
                d[1] = (T)(r[k].z | ((uint64_t)r[k].w << 32));
            }
        }
    } else {
        for (uint32_t l = threadIdx.x; l < NDZIP_HC_ELEMS; l += NT) {
            const uint32_t lx = l % SD, ly = R >= 2 ? (l / SD) % SD : 0, lz = R >= 3 ? l / (SD * SD) : 0;
            uint64_t x = x0 + lx, y = y0 + ly, z = z0 + lz;
            if (x >= e0) x = e0 - 1;
            if (y >= e1) y = e1 - 1;
            if (z >= e2) z = e2 - 1;
            S[(l >> 5) * SROW + (l & 31)] = src[(z * e1 + y) * e0 + x];
        }
    }
}

/* Stores the elements of S (layout as coop_load) that lie inside the chunk. */
template <typename T, int R>
__device__ __forceinline__ void coop_store(T *__restrict__ dst, const Geo &geo, uint32_t b0, uint32_t b1,
                                           uint32_t b2, const T *S) {
    constexpr uint32_t SD = Side<R>::S, PER = 16 / sizeof(T), NV = NDZIP_HC_ELEMS / PER;
    const uint64_t e0 = geo.e0, e1 = geo.e1, e2 = geo.e2;
    const uint64_t x0 = (uint64_t)b0 * SD, y0 = R >= 2 ? (uint64_t)b1 * SD : 0, z0 = R >= 3 ? (uint64_t)b2 * SD : 0;
    const bool inner = x0 + SD <= e0 && (R < 2 || y0 + SD <= e1) && (R < 3 || z0 + SD <= e2) && e0 % PER == 0 &&
                       (reinterpret_cast<uintptr_t>(dst) & 15) == 0;
    if (inner) {
#pragma unroll
        for (uint32_t k = 0; k < NV / NT; k++) {
            const uint32_t l = (k * NT + threadIdx.x) * PER;
            const uint32_t lx = l % SD, ly = R >= 2 ? (l / SD) % SD : 0, lz = R >= 3 ? l / (SD * SD) : 0;
            const T *q = S + (l >> 5) * SROW + (l & 31);
            uint4 w;
            if (sizeof(T) == 4) {
                w = make_uint4((uint32_t)q[0], (uint32_t)q[1], (uint32_t)q[2], (uint32_t)q[3]);
            } else {
                w = make_uint4((uint32_t)q[0], (uint32_t)((uint64_t)q[0] >> 32), (uint32_t)q[1],
                               (uint32_t)((uint64_t)q[1] >> 32));
            }
            __stcs(reinterpret_cast<uint4 *>(dst + ((z0 + lz) * e1 + (y0 + ly)) * e0 + x0 + lx), w);
        }
    } else {
        for (uint32_t l = threadIdx.x; l < NDZIP_HC_ELEMS; l += NT) {
            const uint32_t lx = l % SD, ly = R >= 2 ? (l / SD) % SD : 0, lz = R >= 3 ? l / (SD * SD) : 0;
            const uint64_t x = x0 + lx, y = y0 + ly, z = z0 + lz;
            if (x < e0 && y < e1 && z < e2) dst[(z * e1 + y) * e0 + x] = S[(l >> 5) * SROW + (l & 31)];
        }
    }
}

/* Block-wide exclusive scan of one count per thread; *total gets the sum. */
__device__ __forceinline__ uint32_t block_excl_scan(uint32_t n, uint32_t *red, uint32_t *total) {
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    uint32_t x = n;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        uint32_t y = __shfl_up_sync(FULL, x, d);
        if (lane >= d) x += y;
    }
    if (lane == 31) red[warp] = x;
    __syncthreads();
    uint32_t base = 0, sum = 0;
#pragma unroll
    for (int w = 0; w < NT / 32; w++) {
        uint32_t r = red[w];
        base += w < warp ? r : 0;
        sum += r;
    }
    *total = sum;
    return base + x - n;
}

/* Locates hypercube g of the batch: chunk c (batch-relative), index h in
 * the chunk, the chunk's geometry and hypercube count. */
__device__ __forceinline__ const Geo &locate(const Params &p, uint64_t g, uint32_t &c, uint32_t &h) {
    const uint64_t nf = (uint64_t)(p.nchunks - 1) * p.full.H;
    if (g < nf) {
        c = (uint32_t)(g / p.full.H);
        h = (uint32_t)(g - (uint64_t)c * p.full.H);
        return p.full;
    }
    c = p.nchunks - 1;
    h = (uint32_t)(g - nf);
    return p.last;
}

/* Decoupled look-back over hypercubes (kutil.h): values are payload
 * offsets; the inclusive prefix of a chunk's last hypercube is the end of
 * the chunk's final payload (coded or stored, 6.7), that of any other
 * hypercube the chunk's start plus the hypercube data up to its end (the
 * chunk's offset table not counted). */
using scz_ku::cp_async16;
using scz_ku::cp_async_wait_all;
using scz_ku::lookback;
constexpr unsigned long long FLAG_P = scz_ku::LB_INC, VAL = scz_ku::LB_VAL;
__device__ __forceinline__ uint64_t chunk_start(const unsigned long long *state, uint64_t g0) {
    return scz_ku::lb_chunk_start(state, g0);
}

/* ---- encoding ---- */

/* For hypercube g (index h of a chunk of Hc) whose data could reach the
 * chunk's raw size, or that is the chunk's last: whether to store its
 * `bytes` at exclusive prefix e (1), or not (0: the chunk is stored, 6.7);
 * the last hypercube publishes the chunk's end (lookback). Out of line: the
 * encoder proper keeps its registers. */
__device__ __noinline__ int place_near_raw(unsigned long long *state, uint64_t g, uint32_t h, uint32_t Hc, uint64_t e,
                                           uint64_t bytes, uint64_t raw, bool last) {
    const uint64_t start = chunk_start(state, g - h);
    const uint64_t end = 4ull * Hc + (e - start) + bytes; /* coded size so far */
    const int write = end < raw;
    if (last) {
        volatile unsigned long long *vs = state;
        vs[g] = FLAG_P | (start + (write ? end : raw));
    }
    return write;
}

template <typename T, int R>
__device__ __forceinline__ void encode_hc(const Params &p, const Geo &geo, uint64_t g, uint32_t c, uint32_t h,
                                          T *S, uint32_t *red, unsigned long long *s_excl, int *s_write) {
    constexpr int W = Wd<T>::W, G = Wd<T>::G;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const uint32_t b0 = h % geo.nb0, hb = h / geo.nb0, b1 = hb % geo.nb1, b2 = hb / geo.nb1;
    const T *src = reinterpret_cast<const T *>(p.src + (uint64_t)c * p.raw_full);

    /* Load with edge replication (6.1); map (6.2) as values are read. */
    coop_load<T, R>(src, geo, b0, b1, b2, S);
    __syncthreads();

    /* Integer Lorenzo (6.3), every pass from the values before it: the
     * passes commute, so those along y and z are taken first, straight from
     * the loaded block (neighbour rows of other threads included), and the
     * x pass last, in registers. */
    T v[32];
    const T *Sme = S + t * SROW;
#pragma unroll
    for (int i = 0; i < 32; i++) v[i] = rotl1(Sme[i]);
    if (R == 1) {
        const T prev = t ? rotl1(S[(t - 1) * SROW + 31]) : (T)0;
#pragma unroll
        for (int i = 31; i >= 1; i--) v[i] -= v[i - 1];
        v[0] -= prev;
    } else if (R == 2) {
        /* y: thread t-2 holds the same half of the previous row */
        if (t >= 2) {
            const T *P = S + (t - 2) * SROW;
#pragma unroll
            for (int i = 0; i < 32; i++) v[i] -= rotl1(P[i]);
        }
        /* x: element 0 of a second half follows element 31 of the first,
         * after its own y difference */
        T prev = 0;
        if (t & 1) {
            prev = rotl1(S[(t - 1) * SROW + 31]);
            if (t >= 3) prev -= rotl1(S[(t - 3) * SROW + 31]);
        }
#pragma unroll
        for (int i = 31; i >= 1; i--) v[i] -= v[i - 1];
        v[0] -= prev;
    } else {
        /* z: thread t-8 holds the same rows one layer down */
        if (t >= 8) {
            const T *P = S + (t - 8) * SROW;
#pragma unroll
            for (int i = 0; i < 32; i++) v[i] -= rotl1(P[i]);
        }
        /* y: the thread's second row from its first; its first row from
         * thread t-1's second (after that one's z difference) */
#pragma unroll
        for (int i = 16; i < 32; i++) v[i] -= v[i - 16];
        if (t & 7) {
            const T *P1 = S + (t - 1) * SROW + 16, *P9 = S + (t - 9) * SROW + 16;
#pragma unroll
            for (int i = 0; i < 16; i++) {
                T a = rotl1(P1[i]);
                if (t >= 9) a -= rotl1(P9[i]);
                v[i] -= a;
            }
        }
#pragma unroll
        for (int i = 31; i >= 1; i--)
            if (i != 16) v[i] -= v[i - 1];
    }

    /* Sign mapping (6.4) and the heads (6.5): head = OR of the group. */
    T any = 0;
#pragma unroll
    for (int i = 0; i < 32; i++) {
        v[i] = smap(v[i]);
        any |= v[i];
    }
    T head = any;
    if (W == 64) head |= shfl_xor(any, 1);
    uint32_t n = W == 32 ? (uint32_t)__popc((uint32_t)head)
                         : ((t & 1) ? 0u : (uint32_t)__popcll((unsigned long long)head));
    uint32_t total;
    uint32_t off = block_excl_scan(n, red, &total);
    if (W == 64) off = __shfl_sync(FULL, off, lane & ~1);
    const uint64_t bytes = (uint64_t)(G + total) * sizeof(T);
    /* float32: transpose in place now (the zero-head short cut skips it) */
    if constexpr (W == 32) {
        if (head) transpose32(v);
    }

    /* Output offset: chunk c's payload is its end-offset table (4 H_c bytes)
     * then its data. The chunk is stored (6.7) if 4 H_c plus its data reach
     * its raw size R: a hypercube whose end would reach R is not written (the
     * chunk is stored, and the bytes could reach into the next chunk's
     * payload); one that ends below R is written inside the chunk's payload
     * and overwritten by the raw bytes (k_finish) if the chunk ends up
     * stored. While even the largest hypercubes could not reach R, the
     * chunk's start is not needed. */
    const uint32_t Hc = c + 1 == p.nchunks ? p.last.H : p.full.H;
    const bool last = h + 1 == Hc;
    if (warp == 0) {
        const uint64_t e = lookback(p.state, g, bytes, !last);
        if (lane == 0) {
            const uint64_t raw = geo.e0 * geo.e1 * geo.e2 * sizeof(T);
            const uint64_t maxhc = (uint64_t)(G + NDZIP_HC_ELEMS) * sizeof(T);
            *s_write = last || 4ull * Hc + (uint64_t)(h + 1) * maxhc >= raw
                           ? place_near_raw(p.state, g, h, Hc, e, bytes, raw, last)
                           : 1;
            *s_excl = e;
        }
    }
    __syncthreads();
    if (!*s_write) return; /* block-uniform */
    const uint64_t pos = 4ull * Hc + *s_excl;

    /* Stage the encoded hypercube in S, shifted so that 16-byte aligned
     * global words are 16-byte aligned in shared memory. */
    const uint32_t sh = (uint32_t)(reinterpret_cast<uintptr_t>(p.dst + pos) >> 2) & 3;
    uint32_t *O = reinterpret_cast<uint32_t *>(S) + sh;
    if constexpr (W == 32) {
        O[t] = (uint32_t)head;
        if (head) {
            uint32_t k = G + off;
#pragma unroll
            for (int cc = 0; cc < 32; cc++)
                if (((uint32_t)head >> (31 - cc)) & 1) O[k++] = v[cc];
        }
    } else {
        /* top thread (rows 0..31) owns the high halves of the 64-bit words,
         * the bottom thread (rows 32..63) the low halves (little-endian) */
        const uint32_t sel = (t & 1) ? 0u : 1u;
        const uint64_t h64 = (uint64_t)head;
        O[2 * (t >> 1) + sel] = sel ? (uint32_t)(h64 >> 32) : (uint32_t)h64;
        if (h64) {
            uint32_t a[32];
            uint32_t k = G + off;
#pragma unroll
            for (int i = 0; i < 32; i++) a[i] = (uint32_t)((uint64_t)v[i] >> 32);
            transpose32(a);
#pragma unroll
            for (int cc = 0; cc < 32; cc++)
                if ((h64 >> (63 - cc)) & 1) O[2 * k++ + sel] = a[cc];
#pragma unroll
            for (int i = 0; i < 32; i++) a[i] = (uint32_t)(uint64_t)v[i];
            transpose32(a);
#pragma unroll
            for (int cc = 0; cc < 32; cc++)
                if ((h64 >> (31 - cc)) & 1) O[2 * k++ + sel] = a[cc];
        }
    }
    __syncthreads();

    /* Store: 16-byte vectors where whole, words at the two ends. */
    const uint32_t nw = (uint32_t)(bytes >> 2);
    uint32_t *d = reinterpret_cast<uint32_t *>(p.dst + pos) - sh;
    const uint32_t *Sb = reinterpret_cast<const uint32_t *>(S);
    const uint32_t span = nw + sh, nvec = (span + 3) >> 2;
    for (uint32_t q = t; q < nvec; q += NT) {
        const uint32_t w0 = 4 * q;
        if (w0 >= sh && w0 + 4 <= span) {
            uint4 x = *reinterpret_cast<const uint4 *>(Sb + w0);
            *reinterpret_cast<uint4 *>(d + w0) = x;
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (w0 + j >= sh && w0 + j < span) d[w0 + j] = Sb[w0 + j];
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(NT, sizeof(T) == 4 ? 8 : 5) k_encode(Params p) {
    __shared__ __align__(16) T S[NT * SROW + 16 / sizeof(T)];
    __shared__ uint32_t red[NT / 32];
    __shared__ unsigned long long s_g, s_excl;
    __shared__ int s_write;
    if (threadIdx.x == 0) s_g = atomicAdd(p.counter, 1ull);
    __syncthreads();
    const uint64_t g = s_g;
    uint32_t c, h;
    const Geo &geo = locate(p, g, c, h);
    switch (geo.rank) {
    case 1: encode_hc<T, 1>(p, geo, g, c, h, S, red, &s_excl, &s_write); break;
    case 2: encode_hc<T, 2>(p, geo, g, c, h, S, red, &s_excl, &s_write); break;
    default: encode_hc<T, 3>(p, geo, g, c, h, S, red, &s_excl, &s_write); break;
    }
}

/* From the inclusive prefixes the look-back left: every coded chunk's
 * end-offset table, every chunk's payload offset, size and codec_info, and
 * the raw bytes of stored chunks (6.7). One thread per hypercube; the warp
 * copies the raw share of each of its hypercubes in a stored chunk (4096
 * elements from the share's start, the last share shorter). */
__global__ void k_finish(Params p, uint64_t g_begin, uint64_t g_end, uint64_t *choff, uint64_t *chsize,
                         uint64_t *chinfo) {
    const uint64_t g = g_begin + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t c = 0, h = 0;
    uint64_t start = 0, share = 0, n = 0;
    bool stored = false;
    if (g < g_end) {
        const Geo &geo = locate(p, g, c, h);
        const uint64_t g0 = g - h;
        start = g0 ? (p.state[g0 - 1] & VAL) : 0;
        const uint64_t size = (p.state[g0 + geo.H - 1] & VAL) - start;
        const uint64_t raw = geo.e0 * geo.e1 * geo.e2 * p.esize;
        stored = size == raw; /* coded payloads are smaller than raw */
        if (!stored) {
            const uint64_t end = h + 1 == geo.H ? size - 4ull * geo.H : (p.state[g] & VAL) - start;
            reinterpret_cast<uint32_t *>(p.dst + start)[h] = (uint32_t)end;
        }
        if (h + 1 == geo.H) {
            choff[c] = start;
            chsize[c] = size;
            chinfo[c] = stored ? NDZIP_INFO_STORED : NDZIP_INFO_CODED;
        }
        share = (uint64_t)h * NDZIP_HC_ELEMS * p.esize;
        n = share < raw ? (raw - share < (uint64_t)NDZIP_HC_ELEMS * p.esize ? raw - share : NDZIP_HC_ELEMS * p.esize) : 0;
    }
    unsigned m = __ballot_sync(FULL, stored && n);
    while (m) {
        const int j = __ffs(m) - 1;
        m &= m - 1;
        const uint32_t cj = __shfl_sync(FULL, c, j);
        const uint64_t sj = __shfl_sync(FULL, start, j), oj = __shfl_sync(FULL, share, j), nj = __shfl_sync(FULL, n, j);
        coop_copy<32>(p.dst + sj + oj, p.src + (uint64_t)cj * p.raw_full + oj, nj, threadIdx.x & 31);
    }
}

/* ---- decoding ---- */

/* Adds, to the values v[B..B+NV) of every thread, the sum of the same values
 * of the threads in earlier warps with the same lane % D (those hold the
 * warp-inclusive totals in their last D lanes): the cross-warp step of a
 * scan along an axis whose lines span warps. */
template <typename T, int D, int B, int NV>
__device__ __forceinline__ void cross_warp_add(T (&v)[32], T *Z) {
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (warp < NT / 32 - 1 && lane >= 32 - D) {
        T *z = Z + (warp * D + (lane - (32 - D))) * SROW;
#pragma unroll
        for (int i = 0; i < NV; i++) z[i] = v[B + i];
    }
    __syncthreads();
    for (int w = 0; w < warp; w++) {
        const T *z = Z + (w * D + (lane % D)) * SROW;
#pragma unroll
        for (int i = 0; i < NV; i++) v[B + i] += z[i];
    }
}

template <typename T, int R>
__device__ __forceinline__ void decode_hc(const Params &p, const Geo &geo, uint32_t c, uint32_t h, uint64_t poff,
                                          uint64_t psize, uint32_t *Sw, T *Z, uint32_t *red) {
    constexpr int W = Wd<T>::W, G = Wd<T>::G;
    const int t = threadIdx.x, lane = t & 31;
    const uint32_t cg = p.c0 + c;
    const uint32_t Hc = geo.H;
    /* Validate before reading (6.6); every condition is block-uniform. */
    if (((poff | psize) & 3) || psize / 4 < Hc) {
        if (h == 0 && t == 0) scz_cuda_report(p.err, cg, NDZIP_ERR_LAYOUT);
        return;
    }
    const uint8_t *P = p.src + poff;
    const uint32_t *E = reinterpret_cast<const uint32_t *>(P);
    const uint64_t dsize = psize - 4ull * Hc;
    const uint64_t start = h ? E[h - 1] : 0, end = E[h];
    if (start > end || end > dsize || (h + 1 == Hc && end != dsize)) {
        if (t == 0) scz_cuda_report(p.err, cg, NDZIP_ERR_LAYOUT);
        return;
    }
    const uint64_t len = end - start;
    if (len < (uint64_t)G * sizeof(T) || len > (uint64_t)(G + NDZIP_HC_ELEMS) * sizeof(T) || (len % sizeof(T))) {
        if (t == 0) scz_cuda_report(p.err, cg, NDZIP_ERR_HYPERCUBE);
        return;
    }

    /* Stage the hypercube's words in shared memory (aligned like global):
     * asynchronous 16-byte copies (cp.async), all in flight before the one
     * wait, with no registers held; ~18% faster than loads through
     * registers on an H100. */
    const uint32_t *src = reinterpret_cast<const uint32_t *>(P + 4ull * Hc + start);
    const uint32_t sh = (uint32_t)(reinterpret_cast<uintptr_t>(src) >> 2) & 3;
    const uint32_t nw = (uint32_t)(len >> 2), span = nw + sh, nvec = (span + 3) >> 2;
    const uint32_t *s0 = src - sh;
    for (uint32_t q = t; q < nvec; q += NT) {
        const uint32_t w0 = 4 * q;
        if (w0 >= sh && w0 + 4 <= span) {
            cp_async16(Sw + w0, s0 + w0);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (w0 + j >= sh && w0 + j < span) Sw[w0 + j] = s0[w0 + j];
        }
    }
    cp_async_wait_all();
    __syncthreads();
    const uint32_t *O = Sw + sh;

    /* Heads, column counts, and the check of the length (6.5). */
    uint64_t head;
    if (W == 32) head = O[t];
    else head = (uint64_t)O[2 * (t >> 1)] | ((uint64_t)O[2 * (t >> 1) + 1] << 32);
    const uint32_t n = W == 32 ? (uint32_t)__popc((uint32_t)head)
                               : ((t & 1) ? 0u : (uint32_t)__popcll((unsigned long long)head));
    uint32_t total;
    uint32_t off = block_excl_scan(n, red, &total);
    if (W == 64) off = __shfl_sync(FULL, off, lane & ~1);
    if ((uint64_t)(G + total) * sizeof(T) != len) {
        if (t == 0) scz_cuda_report(p.err, cg, NDZIP_ERR_HYPERCUBE);
        return;
    }

    /* Unpack: columns -> transpose -> rows; undo the sign mapping. */
    T v[32];
    if (W == 32) {
        uint32_t a[32];
        uint32_t k = G + off;
#pragma unroll
        for (int cc = 0; cc < 32; cc++) a[cc] = ((head >> (31 - cc)) & 1) ? O[k++] : 0u;
        if (head) transpose32(a);
#pragma unroll
        for (int i = 0; i < 32; i++) v[i] = smap((T)a[i]);
    } else {
        const uint32_t sel = (t & 1) ? 0u : 1u;
        uint32_t a[32];
        uint32_t k = G + off;
#pragma unroll
        for (int cc = 0; cc < 32; cc++) a[cc] = ((head >> (63 - cc)) & 1) ? O[2 * k++ + sel] : 0u;
        if (head >> 32) transpose32(a);
#pragma unroll
        for (int i = 0; i < 32; i++) v[i] = (T)((uint64_t)a[i] << 32);
#pragma unroll
        for (int cc = 0; cc < 32; cc++) a[cc] = ((head >> (31 - cc)) & 1) ? O[2 * k++ + sel] : 0u;
        if ((uint32_t)head) transpose32(a);
#pragma unroll
        for (int i = 0; i < 32; i++) v[i] = smap((T)(v[i] | a[i]));
    }

    /* Inverse Lorenzo: prefix sums along every axis (the passes commute). */
    if (R == 3) {
#pragma unroll
        for (int i = 1; i < 32; i++)
            if (i != 16) v[i] += v[i - 1];
        /* y: 16 rows = 8 lanes x 2 rows; pair sums (in v[0..15]), inclusive
         * scan over the lanes; the first row is then the scan less the
         * second row's own value (fewer live registers than keeping both) */
#pragma unroll
        for (int i = 0; i < 16; i++) v[i] += v[16 + i];
#pragma unroll
        for (int d = 1; d < 8; d *= 2) {
#pragma unroll
            for (int i = 0; i < 16; i++) {
                T u = shfl_up(v[i], d);
                if ((lane & 7) >= d) v[i] += u;
            }
        }
#pragma unroll
        for (int i = 0; i < 16; i++) {
            const T in = v[i];
            v[i] = in - v[16 + i];
            v[16 + i] = in;
        }
        /* z: 16 layers = 4 per warp, lanes 8 apart */
#pragma unroll
        for (int d = 8; d < 32; d *= 2) {
#pragma unroll
            for (int i = 0; i < 32; i++) {
                T u = shfl_up(v[i], d);
                if (lane >= d) v[i] += u;
            }
        }
        cross_warp_add<T, 8, 0, 32>(v, Z);
    } else if (R == 2) {
#pragma unroll
        for (int i = 1; i < 32; i++) v[i] += v[i - 1];
        const T tot = shfl_up(v[31], 1);
        if (t & 1) {
#pragma unroll
            for (int i = 0; i < 32; i++) v[i] += tot;
        }
        /* y: 64 rows = 16 per warp, lanes 2 apart */
#pragma unroll
        for (int d = 2; d < 32; d *= 2) {
#pragma unroll
            for (int i = 0; i < 32; i++) {
                T u = shfl_up(v[i], d);
                if (lane >= d) v[i] += u;
            }
        }
        cross_warp_add<T, 2, 0, 32>(v, Z);
    } else {
#pragma unroll
        for (int i = 1; i < 32; i++) v[i] += v[i - 1];
        T x = v[31];
        const T mine = x;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            T u = shfl_up(x, d);
            if (lane >= d) x += u;
        }
        T xs[32];
        xs[31] = x;
        cross_warp_add<T, 1, 31, 1>(xs, Z);
        const T ex = xs[31] - mine;
#pragma unroll
        for (int i = 0; i < 32; i++) v[i] += ex;
    }

#pragma unroll
    for (int i = 0; i < 32; i++) v[i] = rotr1(v[i]);

    /* Store the elements inside the chunk: through shared memory (the
     * staged stream is no longer needed) for coalesced stores. */
    T *dst = reinterpret_cast<T *>(p.dst + (uint64_t)c * p.raw_full);
    const uint32_t b0 = h % geo.nb0, hb = h / geo.nb0, b1 = hb % geo.nb1, b2 = hb / geo.nb1;
    T *SV = reinterpret_cast<T *>(Sw);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 32; i++) SV[t * SROW + i] = v[i];
    __syncthreads();
    coop_store<T, R>(dst, geo, b0, b1, b2, SV);
}

/* A chunk that is not coded (6.7): a stored chunk is checked (exactly its
 * raw size) and block h copies the raw share of hypercube h (4096 elements
 * from the share's start, the last share shorter); any other codec_info is
 * an error. Out of line, with plain arguments: the decoder proper keeps its
 * registers. */
__device__ __noinline__ void decode_stored(uint8_t *dst, const uint8_t *pay, uint64_t poff, uint64_t psize,
                                           uint64_t raw, uint64_t info, uint32_t h, uint32_t esize,
                                           unsigned long long *err, uint32_t cg) {
    if (info != NDZIP_INFO_STORED || psize != raw || (poff & 3)) {
        if (h == 0 && threadIdx.x == 0) scz_cuda_report(err, cg, NDZIP_ERR_FORM);
        return;
    }
    const uint64_t piece = (uint64_t)NDZIP_HC_ELEMS * esize, share = h * piece;
    if (share >= raw) return;
    coop_copy<NT>(dst + share, pay + poff + share, raw - share < piece ? raw - share : piece, threadIdx.x);
}

template <typename T>
__global__ void __launch_bounds__(NT, sizeof(T) == 4 ? 8 : 5) k_decode(Params p) {
    /* staging of one encoded hypercube (at most (G + 4096) words of T) */
    /* the staged encoded hypercube (at most (G + 4096) words of T, shifted by
     * up to 3 words), then the decoded values (NT x SROW of T) */
    constexpr uint32_t SWA = (Wd<T>::G + NDZIP_HC_ELEMS) * sizeof(T) / 4 + 4, SWB = NT * SROW * sizeof(T) / 4;
    __shared__ __align__(16) uint32_t Sw[SWA > SWB ? SWA : SWB];
    __shared__ __align__(16) T Z[(NT / 32 - 1) * 8 * SROW];
    __shared__ uint32_t red[NT / 32];
    const uint64_t g = (uint64_t)blockIdx.x + ((uint64_t)blockIdx.y << 31);
    if (g >= p.total_hc) return;
    uint32_t c, h;
    const Geo &geo = locate(p, g, c, h);
    const uint64_t info = p.chinfo[c], poff = p.choff[c], psize = p.chsize[c]; /* loads in flight together */
    if (info != NDZIP_INFO_CODED) { /* block-uniform */
        decode_stored(p.dst + (uint64_t)c * p.raw_full, p.src, poff, psize, geo.e0 * geo.e1 * geo.e2 * sizeof(T), info,
                      h, sizeof(T), p.err, p.c0 + c);
        return;
    }
    switch (geo.rank) {
    case 1: decode_hc<T, 1>(p, geo, c, h, poff, psize, Sw, Z, red); break;
    case 2: decode_hc<T, 2>(p, geo, c, h, poff, psize, Sw, Z, red); break;
    default: decode_hc<T, 3>(p, geo, c, h, poff, psize, Sw, Z, red); break;
    }
}

} // namespace

/* ---- interface to the runtime (scz_cuda_codec_ops, cuda_rt.h) ---- */

static scz_status scz__ndzip_cuda_check(scz_ctx *ctx, const scz_cuda_batch *b) {
    Params p;
    if (b->n == 0 || make_params(b, &p))
        return scz__fail(ctx, SCZ_ERR_INTERNAL, "ndzip (CUDA): bad batch geometry");
    const uint64_t maxhc = max_hc_bytes(b->full.esize);
    if ((uint64_t)p.full.H * maxhc > UINT32_MAX || (uint64_t)p.last.H * maxhc > UINT32_MAX)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW,
                         "chunk too large for ndzip's 32-bit offsets; use a smaller chunk size");
    if (p.total_hc >= (1ull << 62) / 2)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "too many hypercubes in one batch");
    return SCZ_OK;
}

/* Encoding: the look-back state of every hypercube and the ticket counter.
 * Decoding needs none. */
static size_t scz__ndzip_cuda_scratch(const scz_cuda_batch *b, int dir) {
    Params p;
    if (dir != SCZ_CUDA_ENCODE || b->n == 0 || make_params(b, &p)) return 0;
    return (size_t)((p.total_hc * 8 + 255) / 256 * 256) + 256;
}

static cudaError_t scz__ndzip_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                          uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                          void *scratch, cudaStream_t s) {
    Params p;
    if (make_params(b, &p) || ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    p.src = static_cast<const uint8_t *>(d_src);
    p.dst = d_pay;
    p.state = static_cast<unsigned long long *>(scratch);
    p.counter = p.state + (p.total_hc + 31) / 32 * 32;
    cudaError_t e;
    if (ca == 0) { /* look-back state and ticket counter, once per batch */
        const size_t clear = (size_t)((p.total_hc + 31) / 32 * 32 + 1) * 8;
        if ((e = cudaMemsetAsync(scratch, 0, clear, s))) return e;
    }
    /* hypercubes of chunks [ca, cb); the tickets continue from the chunks
     * before, whose launches came first on this stream */
    const uint64_t g_begin = (uint64_t)ca * p.full.H;
    const uint64_t g_end = cb == b->n ? p.total_hc : (uint64_t)cb * p.full.H;
    const uint64_t count = g_end - g_begin;
    if (count > 0x7fffffffull) return cudaErrorInvalidConfiguration;
    if (b->full.esize == 4) k_encode<uint32_t><<<(unsigned)count, NT, 0, s>>>(p);
    else k_encode<uint64_t><<<(unsigned)count, NT, 0, s>>>(p);
    if ((e = cudaGetLastError())) return e;
    k_finish<<<(unsigned)((count + 63) / 64), 64, 0, s>>>(p, g_begin, g_end, choff, chsize, chinfo);
    return cudaGetLastError();
}

static cudaError_t scz__ndzip_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                          const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                          unsigned long long *err, void *scratch, cudaStream_t s) {
    (void)scratch;
    Params p;
    if (make_params(b, &p)) return cudaErrorInvalidValue;
    p.src = d_pay;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.err = err;
    dim3 grid((unsigned)(p.total_hc < (1ull << 31) ? p.total_hc : (1ull << 31)),
              (unsigned)((p.total_hc + (1ull << 31) - 1) >> 31));
    if (b->full.esize == 4) k_decode<uint32_t><<<grid, NT, 0, s>>>(p);
    else k_decode<uint64_t><<<grid, NT, 0, s>>>(p);
    return cudaGetLastError();
}

static cudaError_t scz__ndzip_cuda_probe(void) {
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k_encode<uint32_t>);
    if (!e) e = cudaFuncGetAttributes(&a, k_decode<uint64_t>);
    return e;
}

static const char *scz__ndzip_cuda_error_text(unsigned code) {
    switch (code) {
    case NDZIP_ERR_FORM: return "unknown codec_info, or a stored chunk whose size is not its raw size";
    case NDZIP_ERR_LAYOUT: return "hypercube offsets are inconsistent with the chunk size";
    case NDZIP_ERR_HYPERCUBE: return "a hypercube's length does not match its heads";
    }
    return NULL;
}

/* Listed in src/cuda/codecs_cuda.cu. */
extern const scz_cuda_codec_ops scz__ndzip_cuda_ops = {
    SCZ_CODEC_NDZIP,
    scz__ndzip_cuda_check,
    scz__ndzip_cuda_scratch,
    scz__ndzip_cuda_encode,
    scz__ndzip_cuda_decode,
    scz__ndzip_cuda_probe,
    scz__ndzip_cuda_error_text,
    nullptr, /* no passes over the data */
    nullptr,
    0, /* checksums before the decoder */
    nullptr, /* the runtime hashes the payloads */
    0,
};

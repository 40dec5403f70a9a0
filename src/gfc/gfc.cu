/*
 * gfc.cu -- the gfc codec (id 4, FORMAT.md 10) on the GPU: writes exactly
 * the bytes of the CPU codec (gfc.c) and decodes them. One warp per
 * segment of 1024 values (32 subchunks of 32, lane j takes value j of each
 * subchunk), as the format was designed for.
 *
 * Encoding, one pass over the input (chunks [ca, cb) of a batch):
 *   k_genc    a block of WPB warps codes a *tile* of WPB consecutive
 *             segments of one chunk; blocks take tiles in ticket order.
 *             Each warp stages its segment's 1024 values in its
 *             shared-memory slot (asynchronous 16-byte copies, all in
 *             flight at once), computes residuals against the previous
 *             subchunk's values (a shuffle from lane 32 - D + j mod D),
 *             nibbles and kept bytes, and codes the segment in place in the
 *             slot (bit-sliced warp prefix sums give the byte positions).
 *             SCZ_GPU_PROFILE=1 times the phases. The tile's size goes
 *             through a decoupled
 *             look-back (kutil.h) whose values are payload offsets, so the
 *             tile learns where its bytes go and the chunk's start; the
 *             warps store their segments with 16-byte aligned stores and
 *             write their entries of the offset table. The chunk's last
 *             tile decides coded or stored (10.6) and publishes the chunk's
 *             end. A tile whose bytes would reach the chunk's raw size
 *             writes nothing (the chunk is stored then).
 *   k_gstored the raw bytes of stored chunks (their payload region may
 *             hold the coded bytes of tiles that ended below the raw size).
 * Decoding:
 *   k_gdchk   block per chunk: codec_info, sizes, offset table (10.5, 10.6);
 *   k_gdec    warp per segment: the segment's bytes staged in shared memory
 *             with asynchronous 16-byte copies, per subchunk the nibbles, a
 *             bit-sliced warp prefix sum of the kept bytes, the kept bytes from aligned
 *             shared words, the values from the previous subchunk's by a
 *             shuffle, coalesced stores; the segment must decode to exactly
 *             its bytes.
 */
extern "C" {
#include "gfc.h"
}
#include "../cuda/cuda_rt.h"
#include "../util/xxh64.h"
#include "../cuda/kutil.h"
#include "../cuda/bhash.h"
#include "../cuda/prof.h"

namespace {

using scz_ku::ldb32;

enum {
    GFC_ERR_INFO = SCZ_CUDA_ERR_CODEC, /* codec_info, or a payload of the wrong size for its form */
    GFC_ERR_TABLE,                     /* segment offset table */
    GFC_ERR_SEGMENT,                   /* a segment that does not decode to exactly its bytes */
};

constexpr uint32_t WPB = 4;           /* warps (segments) per block: one tile */
constexpr uint32_t NT = 32 * WPB;     /* threads of k_genc / k_gdec */
constexpr uint32_t NT2 = 256;         /* threads of k_gdchk / k_gstored */
constexpr unsigned FULLM = 0xffffffffu;

/* A warp's shared-memory slot: the largest segment, a 16-byte shift of the
 * staged bytes (decoder) and words read past the end (never used). */
template <typename T> __host__ __device__ constexpr uint32_t slot_bytes() { return GFC_MAX_SEG_BYTES(sizeof(T)) + 32; }

/* Leading-zero code and kept bytes of a magnitude (10.3). */
template <typename T> struct Lz;
template <> struct Lz<uint64_t> {
    static constexpr uint32_t ZERO = GFC_ZERO_NIBBLE_F64;
    __device__ static __forceinline__ void code(uint64_t m, uint32_t *c, uint32_t *n) {
        const uint32_t z = (uint32_t)__clzll((long long)m) >> 3; /* 8 for m = 0 */
        const uint32_t cc = z < 6 ? z : z - 1;                  /* 6 -> 5, 7 -> 6, 8 -> 7 */
        *c = cc;
        *n = cc < 6 ? 8 - cc : cc == 6 ? 1 : 0;                 /* 8 7 6 5 4 3 1 0 */
    }
    /* 8 7 6 5 4 3 1 0, one nibble each (c < 8) */
    __device__ static __forceinline__ uint32_t kept(uint32_t c) { return (0x01345678u >> (4 * c)) & 15u; }
};
template <> struct Lz<uint32_t> {
    static constexpr uint32_t ZERO = GFC_ZERO_NIBBLE_F32;
    __device__ static __forceinline__ void code(uint32_t m, uint32_t *c, uint32_t *n) {
        const uint32_t z = (uint32_t)__clz((int)m) >> 3; /* 4 for m = 0 */
        *c = z;
        *n = 4 - z;
    }
    __device__ static __forceinline__ uint32_t kept(uint32_t c) { return c <= 4 ? 4 - c : 0xffu; }
};

/* Streaming loads and stores (read or written once: evict first). */
__device__ __forceinline__ uint64_t ldcs(const uint64_t *p) {
    return __ldcs(reinterpret_cast<const unsigned long long *>(p));
}
__device__ __forceinline__ uint32_t ldcs(const uint32_t *p) { return __ldcs(reinterpret_cast<const unsigned *>(p)); }
__device__ __forceinline__ void stcs(uint64_t *p, uint64_t v) {
    __stcs(reinterpret_cast<unsigned long long *>(p), (unsigned long long)v);
}
__device__ __forceinline__ void stcs(uint32_t *p, uint32_t v) { __stcs(reinterpret_cast<unsigned *>(p), v); }

struct GParams {
    const uint8_t *src; /* encode: raw chunk i at src + i * raw_full */
    uint8_t *wpay;      /* encode: payloads, back to back */
    uint64_t *choff, *chsize, *chinfo;
    unsigned long long *state, *counter; /* encode: look-back state per tile, ticket */
    uint8_t *dst;                        /* decode: raw chunk i at dst + i * raw_full */
    const uint8_t *pay;
    const uint64_t *rchoff, *rchsize, *rchinfo;
    unsigned long long *err;
    uint32_t *cbad; /* decode: per chunk */
    uint64_t *bh;   /* decode (k_gdech): block hashes, chunk i's at bh + i nbmax */
    uint64_t nbmax;
    uint32_t blog2;
    uint64_t count_full, count_last, raw_full;
    uint64_t tiles_full, tiles; /* tiles of a full chunk, of the batch */
    uint32_t n, c0, smax, dim, es;
};

__device__ __forceinline__ uint64_t chunk_count(const GParams &p, uint32_t c) {
    return c + 1 == p.n ? p.count_last : p.count_full;
}

/* The lanes' kept-byte prefix (ex, exclusive) and the warp's total.
 * Two ways, measured on the H100 (twenty-second session): the decoder
 * (k_gdech, instruction-bound) and the float64 encoder take a shuffle
 * scan: five shuffles up, each with its validity predicate guarding the
 * add, two instructions a step (k_gdech<u64> ~65 -> ~52 instructions a
 * decoding step; decompression +6-7% on float64, +16% on float32, float64
 * compression +1-2%: bench/RESULTS.md).
 * The float32 encoder, latency-bound with three bits a count, keeps the
 * bit-sliced prefix (one ballot per bit, population counts below the
 * lane; no chain of shuffles), 1% faster there. The total by one warp
 * reduction either way. */
struct KeptSum {
    uint32_t ex, tot;
};
__device__ __forceinline__ uint32_t warp_excl_scan(uint32_t v) {
    uint32_t s = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1)
        asm("{\n\t.reg .u32 r0;\n\t.reg .pred p;\n\t"
            "shfl.sync.up.b32 r0|p, %0, %1, 0x0, 0xffffffff;\n\t"
            "@p add.u32 %0, r0, %0;\n\t}"
            : "+r"(s)
            : "r"(d));
    return s - v;
}
template <bool SCAN, int NB> __device__ __forceinline__ KeptSum kept_sum(uint32_t nb, uint32_t lt) {
    uint32_t ex = 0;
    if (SCAN) {
        ex = warp_excl_scan(nb);
    } else {
#pragma unroll
        for (int b = 0; b < NB; b++) ex += (uint32_t)__popc(__ballot_sync(FULLM, (nb >> b) & 1u) & lt) << b;
    }
    return {ex, __reduce_add_sync(FULLM, nb)};
}

/* ---- encoding ---- */

/* Byte of the warp's slot where a segment's input is staged for
 * encode_seg: subchunk k's output ends at or below 272 (k + 1) (f64;
 * 144 (k + 1) f32), which never reaches the input of subchunk k + 1 at
 * IN_OFF + 256 (k + 1) (128 (k + 1)): the segment is coded in place. */
constexpr uint32_t IN_OFF = GFC_SUB * GFC_HDR_BYTES; /* 512 */

/* Codes segment s of chunk c (n values) into the warp's slot; returns its
 * size in bytes. The segment's values are staged in the slot by
 * asynchronous 16-byte copies (no registers held while they are in
 * flight: more warps per SM than with the values in registers) and read
 * back a subchunk at a time; FULLSEG: all 1024 values (straight-line
 * code, only the byte position is carried from a subchunk to the next). */
template <typename T, bool FULLSEG>
__device__ __forceinline__ uint32_t encode_seg(const GParams &p, uint32_t c, uint64_t n, uint32_t s, uint8_t *slot,
                                                  uint32_t lane) {
    const uint64_t v0 = (uint64_t)s * GFC_SEG_VALUES;
    const uint32_t vals = FULLSEG ? GFC_SEG_VALUES : (uint32_t)(n - v0);
    const uint32_t nsub = (vals + GFC_SUB - 1) / GFC_SUB;
    const T *src = reinterpret_cast<const T *>(p.src + (uint64_t)c * p.raw_full) + v0;
    T *in = reinterpret_cast<T *>(slot + IN_OFF);
    if (FULLSEG && !(reinterpret_cast<uintptr_t>(src) & 15)) {
        constexpr uint32_t NP = GFC_SEG_VALUES * sizeof(T) / 16; /* 16-byte pieces */
#pragma unroll
        for (uint32_t q = lane; q < NP; q += 32)
            scz_ku::cp_async16(reinterpret_cast<uint8_t *>(in) + 16 * q,
                               reinterpret_cast<const uint8_t *>(src) + 16 * q);
        scz_ku::cp_async_wait_all();
    } else {
        for (uint32_t i = lane; i < vals; i += 32) in[i] = ldcs(src + i);
    }
    __syncwarp();
    const uint32_t plane = GFC_SUB - p.dim + lane % p.dim; /* predictor lane (10.2) */
    const uint32_t lt = (1u << lane) - 1;
    const int lim = (int)vals - (int)lane; /* value 32k + lane is real iff 32k < lim */
    uint32_t pos = 0;
    T prev = 0, xk = (FULLSEG || lim > 0) ? in[lane] : (T)0;
#pragma unroll
    for (uint32_t k = 0; k < GFC_SEG_SUBS; k++) {
        if (FULLSEG || k < nsub) { /* warp-uniform */
            /* the next subchunk's value now: this subchunk's output may
             * overwrite its own input, never the next one's */
            T xn = 0;
            if (k + 1 < GFC_SEG_SUBS && (FULLSEG || (int)(GFC_SUB * (k + 1)) < lim)) xn = in[GFC_SUB * (k + 1) + lane];
            const T pr = k ? __shfl_sync(FULLM, prev, plane) : (T)0;
            if (!FULLSEG && (int)(GFC_SUB * k) >= lim) xk = pr; /* padding (10.1): residual 0 */
            const T r = xk - pr;
            const uint32_t g = (uint32_t)(r >> (8 * sizeof(T) - 1));
            const T m = g ? (T)0 - r : r;
            uint32_t cc, nb;
            Lz<T>::code(m, &cc, &nb);
            const uint32_t h = g << 3 | cc;
            const uint32_t hn = __shfl_down_sync(FULLM, h, 1);
            const KeptSum ks = kept_sum<sizeof(T) == 8, 3>(nb, lt);
            __syncwarp(); /* every lane has read this subchunk's input */
            if (!(lane & 1)) slot[pos + lane / 2] = (uint8_t)(h | hn << 4);
            uint8_t *o = slot + pos + GFC_HDR_BYTES + ks.ex;
#pragma unroll
            for (uint32_t b = 0; b < sizeof(T); b++)
                if (b < nb) o[b] = (uint8_t)(m >> (8 * b));
            pos += GFC_HDR_BYTES + ks.tot;
            prev = xk;
            xk = xn;
        }
    }
    __syncwarp();
    return pos;
}

/* A warp stores len bytes of its slot (4-byte aligned, data from byte 0)
 * at d (any alignment): bytes up to d's next 16-byte boundary, 16-byte
 * stores (the slot's words funnel-shifted into place), the last bytes. */
__device__ __forceinline__ void store_out(uint8_t *d, const uint8_t *slot, uint32_t len, uint32_t lane) {
    uint32_t head = (uint32_t)((16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15);
    if (head > len) head = len;
    if (lane < head) d[lane] = slot[lane];
    const uint32_t nv = (len - head) / 16, sh = 8 * (head & 3);
    const uint32_t *sw = reinterpret_cast<const uint32_t *>(slot) + head / 4;
    uint4 *dv = reinterpret_cast<uint4 *>(d + head);
    for (uint32_t q = lane; q < nv; q += 32) {
        const uint32_t *a = sw + 4 * q;
        const uint32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4];
        dv[q] = make_uint4(__funnelshift_r(a0, a1, sh), __funnelshift_r(a1, a2, sh), __funnelshift_r(a2, a3, sh),
                           __funnelshift_r(a3, a4, sh));
    }
    const uint32_t t = head + 16 * nv + lane;
    if (t < len) d[t] = slot[t];
}

/* Tile g of the batch: chunk c, tile h of the chunk. */
__device__ __forceinline__ void locate(const GParams &p, uint64_t g, uint32_t &c, uint32_t &h) {
    const uint64_t nf = (uint64_t)(p.n - 1) * p.tiles_full;
    if (g < nf) {
        c = (uint32_t)(g / p.tiles_full);
        h = (uint32_t)(g - (uint64_t)c * p.tiles_full);
    } else {
        c = p.n - 1;
        h = (uint32_t)(g - nf);
    }
}

template <typename T> __global__ void __launch_bounds__(NT, sizeof(T) == 8 ? 6 : 8) k_genc(GParams p) {
    extern __shared__ __align__(16) uint8_t gsm[];
    __shared__ unsigned long long s_g, s_excl, s_start;
    __shared__ uint32_t s_size[WPB];
    __shared__ int s_write;
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (threadIdx.x == 0) s_g = atomicAdd(p.counter, 1ull);
    __syncthreads();
    const uint64_t g = s_g;
    uint32_t c, h;
    locate(p, g, c, h);
    const uint64_t n = chunk_count(p, c);
    const uint32_t S = (uint32_t)((n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES), Hc = (S + WPB - 1) / WPB;
    const uint32_t s = h * WPB + w;
    uint8_t *slot = gsm + w * slot_bytes<T>();
    uint32_t bytes = 0;
    if (s < S)
        bytes = n - (uint64_t)s * GFC_SEG_VALUES >= GFC_SEG_VALUES ? encode_seg<T, true>(p, c, n, s, slot, lane)
                                                                   : encode_seg<T, false>(p, c, n, s, slot, lane);
    if (lane == 0) s_size[w] = bytes;
    __syncthreads();
    uint32_t wex = 0, agg = 0;
#pragma unroll
    for (uint32_t i = 0; i < WPB; i++) {
        const uint32_t v = s_size[i];
        wex += i < w ? v : 0;
        agg += v;
    }
    if (w == 0) {
        /* Payload offsets: chunk c's payload is its offset table (4 S bytes)
         * and its data; the chunk is stored (10.6) if they reach its raw
         * size R. A tile whose end would reach R writes nothing (its bytes
         * could reach into the next chunk's payload); one that ends below R
         * is written, and overwritten by the raw bytes (k_gstored) if the
         * chunk ends up stored. */
        const bool last = h + 1 == Hc;
        const uint64_t e = scz_ku::lookback(p.state, g, agg, !last);
        const uint64_t start = scz_ku::lb_chunk_start(p.state, g - h);
        const uint64_t R = n * sizeof(T), end = 4ull * S + (e - start) + agg;
        if (lane == 0) {
            if (last) {
                const bool stored = end >= R;
                const uint64_t size = stored ? R : end;
                volatile unsigned long long *vs = p.state;
                vs[g] = scz_ku::LB_INC | (start + size);
                p.choff[c] = start;
                p.chsize[c] = size;
                p.chinfo[c] = stored ? GFC_INFO_STORED : GFC_INFO_CODED;
            }
            s_excl = e;
            s_start = start;
            s_write = end < R;
        }
    }
    __syncthreads();
    if (!s_write || s >= S) return;
    const uint64_t rel = (s_excl - s_start) + wex; /* the segment's start in the chunk's data area */
    uint8_t *P = p.wpay + s_start;
    store_out(P + 4ull * S + rel, slot, bytes, lane);
    const uint32_t endv = (uint32_t)(rel + bytes); /* end[s] (10.5): < R < 2^32 */
    if (lane < 4) P[4ull * s + lane] = (uint8_t)(endv >> (8 * lane));
}

/* The raw bytes of stored chunks [ca, ca + gridDim.y), a slice per block. */
__global__ void __launch_bounds__(NT2) k_gstored(GParams p, uint32_t ca) {
    const uint32_t c = ca + blockIdx.y;
    if (p.chinfo[c] != GFC_INFO_STORED) return;
    const uint64_t R = chunk_count(p, c) * p.es;
    const uint64_t per = ((R + gridDim.x - 1) / gridDim.x + 15) / 16 * 16, a = (uint64_t)blockIdx.x * per;
    if (a >= R) return;
    scz_ku::copy_bytes<NT2>(p.wpay + p.choff[c] + a, p.src + (uint64_t)c * p.raw_full + a, R - a < per ? R - a : per,
                            threadIdx.x);
}

/* ---- decoding ---- */

/* Per chunk: codec_info, sizes, offset table (a block of NTC threads: the
 * table's 4-byte entries, 4 S bytes at any alignment, by byte loads all
 * issued before they are tested; a chunk of 32 MiB has 4096 of them). */
constexpr uint32_t NTC = 1024;
__global__ void __launch_bounds__(NTC) k_gdchk(GParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    __shared__ int bad;
    const uint32_t cl = blockIdx.x;
    const uint64_t n = chunk_count(p, cl);
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
#pragma unroll 4
            for (uint64_t s = threadIdx.x; s < S; s += NTC) {
                const uint32_t a = s ? ldb32(P + 4 * (s - 1)) : 0, b = ldb32(P + 4 * s);
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

/* The copies of stage_in by NTHR threads (tid < NTHR): buf[i] = ga[i] for
 * i in [o0, end), ga 16-byte aligned; then a wait for them. */
template <uint32_t NTHR>
__device__ __forceinline__ void stage_copy(uint8_t *buf, const uint8_t *ga, uint32_t o0, uint32_t end, uint32_t tid) {
    for (uint32_t q = tid; 16 * q < end; q += NTHR) {
        const uint32_t b0 = 16 * q;
        if (b0 >= o0 && b0 + 16 <= end) {
            scz_ku::cp_async16(buf + b0, ga + b0);
        } else {
#pragma unroll
            for (uint32_t i = 0; i < 16; i++)
                if (b0 + i >= o0 && b0 + i < end) buf[b0 + i] = ga[b0 + i];
        }
    }
    scz_ku::cp_async_wait_all();
}

/* A warp stages len bytes from g into its slot: slot[o0 + i] = g[i] with
 * o0 = g mod 16, so that 16-byte aligned pieces of g are 16-byte aligned in
 * the slot (asynchronous copies, all in flight before one wait); the bytes
 * of the two partial pieces one by one. Returns o0. */
__device__ __forceinline__ uint32_t stage_in(uint8_t *slot, const uint8_t *g, uint32_t len, uint32_t lane) {
    const uint32_t o0 = (uint32_t)(reinterpret_cast<uintptr_t>(g) & 15);
    stage_copy<32>(slot, g - o0, o0, o0 + len, lane);
    __syncwarp();
    return o0;
}

/* The magnitude whose nb kept bytes start at byte `at` of the slot. */
template <typename T> __device__ __forceinline__ T kept_bytes(const uint32_t *sw, uint32_t at, uint32_t nb);
template <> __device__ __forceinline__ uint64_t kept_bytes<uint64_t>(const uint32_t *sw, uint32_t at, uint32_t nb) {
    const uint32_t *a = sw + (at >> 2), sh = 8 * (at & 3);
    const uint32_t w0 = a[0], w1 = a[1], w2 = a[2];
    /* the low 8 nb bits: clamped funnel shifts of all-ones (nb <= 8) */
    const uint32_t b8 = 8 * nb, b8h = (b8 > 32 ? b8 : 32) - 32;
    const uint32_t lo = __funnelshift_r(w0, w1, sh) & __funnelshift_lc(0xffffffffu, 0u, b8);
    const uint32_t hi = __funnelshift_r(w1, w2, sh) & __funnelshift_lc(0xffffffffu, 0u, b8h);
    return (uint64_t)hi << 32 | lo;
}
template <> __device__ __forceinline__ uint32_t kept_bytes<uint32_t>(const uint32_t *sw, uint32_t at, uint32_t nb) {
    const uint32_t *a = sw + (at >> 2), sh = 8 * (at & 3);
    const uint32_t m = __funnelshift_r(a[0], a[1], sh);
    return nb >= 4 ? m : m & ((1u << (8 * nb)) - 1);
}

/* Decodes a staged segment (slot[o0 ..] holds its len bytes) to dst (lane
 * j's value of subchunk k at dst[32 k]); returns whether the segment is
 * malformed (10.4, 10.5). No branch on the data: a malformed segment is
 * decoded to the end all the same, every read clamped inside the slot, and
 * rejected afterwards (its values are written only where its own values
 * go). FULLSEG: all 1024 values, fully unrolled. */
template <typename T, bool FULLSEG>
__device__ __forceinline__ bool decode_seg(const uint8_t *slot, uint32_t o0, uint32_t len, uint32_t vals, T *dst,
                                           uint32_t plane, uint32_t lane, uint32_t SB) {
    const uint32_t *sw = reinterpret_cast<const uint32_t *>(slot);
    const uint32_t nsub = FULLSEG ? GFC_SEG_SUBS : (vals + GFC_SUB - 1) / GFC_SUB;
    const int lim = (int)vals - (int)lane;
    T prev = 0;
    uint32_t pos = 0;
    bool bad = false;
    /* Lengths are checked once, at the end: pos only grows, so a
     * subchunk reaching past len leaves pos > len. */
    const uint32_t lh = lane >> 1, nsh = 4 * (lane & 1);
    auto step = [&](uint32_t k) {
        uint32_t rd = o0 + pos;
        rd = rd < SB - 32 ? rd : SB - 32;
        const uint32_t hn = ((uint32_t)slot[rd + lh] >> nsh) & 15u;
        const uint32_t g = hn >> 3, nb = Lz<T>::kept(hn & 7);
        const bool real = FULLSEG || (int)(GFC_SUB * k) < lim;
        /* f32 codes 5..7 (float64 keeps at most 8 bytes); padding */
        const bool lbad = (sizeof(T) == 4 && nb > sizeof(T)) || (!real && hn != Lz<T>::ZERO);
        const uint32_t nbv = lbad ? 0 : nb;
        const KeptSum ks = kept_sum<true, 0>(nbv, 0); /* by the scan: no lane mask */
        bad |= lbad;
        uint32_t at = o0 + pos + GFC_HDR_BYTES + ks.ex;
        at = at < SB - 12 ? at : SB - 12;
        const T m = kept_bytes<T>(sw, at, nbv);
        const T pv = __shfl_sync(FULLM, prev, plane);
        const T pr = k ? pv : (T)0;
        const T x = g ? pr - m : pr + m;
        if (real) stcs(dst + GFC_SUB * k, x);
        prev = x;
        pos += GFC_HDR_BYTES + ks.tot;
    };
    if (FULLSEG) {
#pragma unroll
        for (uint32_t k = 0; k < GFC_SEG_SUBS; k++) step(k);
    } else {
#pragma unroll 1
        for (uint32_t k = 0; k < nsub; k++) step(k);
    }
    return __any_sync(FULLM, bad) || pos != len;
}

template <typename T> __global__ void __launch_bounds__(NT) k_gdec(GParams p) {
    extern __shared__ __align__(16) uint8_t gsm[];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t cl = blockIdx.y, s = blockIdx.x * WPB + w;
    const uint64_t n = chunk_count(p, cl);
    const uint32_t S = (uint32_t)((n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES);
    if (s >= S || p.cbad[cl]) return;
    const uint8_t *P = p.pay + p.rchoff[cl];
    uint8_t *out = p.dst + (uint64_t)cl * p.raw_full;
    const uint64_t v0 = (uint64_t)s * GFC_SEG_VALUES;
    const uint32_t vals = n - v0 < GFC_SEG_VALUES ? (uint32_t)(n - v0) : GFC_SEG_VALUES;
    if ((p.rchinfo[cl] & 0xffffffffu) == GFC_INFO_STORED) {
        scz_ku::copy_bytes<32>(out + v0 * sizeof(T), P + v0 * sizeof(T), vals * (uint64_t)sizeof(T), lane);
        return;
    }
    /* len <= the most a segment holds (k_gdchk) */
    const uint32_t a = s ? ldb32(P + 4 * (s - 1)) : 0, b = ldb32(P + 4 * s), len = b - a;
    uint8_t *slot = gsm + w * slot_bytes<T>();
    const uint32_t o0 = stage_in(slot, P + 4ull * S + a, len, lane);
    T *dst = reinterpret_cast<T *>(out) + v0 + lane;
    const uint32_t plane = GFC_SUB - p.dim + lane % p.dim;
    const bool bad = vals == GFC_SEG_VALUES ? decode_seg<T, true>(slot, o0, len, vals, dst, plane, lane, slot_bytes<T>())
                                            : decode_seg<T, false>(slot, o0, len, vals, dst, plane, lane, slot_bytes<T>());
    if (bad && lane == 0) scz_cuda_report(p.err, p.c0 + cl, GFC_ERR_SEGMENT);
}

/* k_gdech: k_gdec that also computes the chunks' checksum block hashes
 * (FORMAT.md 5) from the bytes it stages, so the payload is read once
 * (the runtime's separate checksum pass read it a second time: ~0.2 ms of
 * a 0.68 ms decompression of 512 MiB). A block of WPB decoding warps and
 * one hashing warp takes a tile (WPB consecutive segments) of a coded
 * chunk: the tile's bytes, and those of the last checksum block that
 * begins in them, are staged in one buffer by all its threads; the
 * decoding warps decode their segments from it, the hashing warp hashes
 * the checksum blocks that begin in the tile (tile 0: also those that
 * begin in the offset table, from global memory). The blocks of stored
 * chunks and of chunks k_gdchk rejected are hashed from global memory,
 * in equal runs per tile (stored chunks are copied as in k_gdec). */
constexpr uint32_t HB_LOG2 = 12; /* largest checksum block hashed this way (4 KiB, the default) */

/* A tile of WPB segments (as k_gdec's; H100, decompression GB/s of tiled
 * mpas / pressure / wmag f32: 947 / 904 / 688 at 4 segments, 919 / 878 /
 * 632 at 3 (7 blocks per SM for float64), 841 / 807 / 522 at 2): WPB
 * decoding warps and the hashing warp. Its buffer: WPB largest segments, a
 * checksum block, the 16-byte shift of the staged bytes and room for the
 * reads past the end. */
constexpr uint32_t NTH = 32 * (WPB + 1);
__host__ __device__ constexpr uint32_t tbuf_bytes(uint32_t es, uint32_t blog2) {
    return WPB * GFC_MAX_SEG_BYTES(es) + (1u << blog2) + 16 + 64;
}

template <typename T> __global__ void __launch_bounds__(NTH, sizeof(T) == 8 ? 0 : 8) k_gdech(GParams p) {
    scz_ku::grid_wait(); /* launched with launch_pdl */
    extern __shared__ __align__(16) uint8_t gsm[];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t cl = blockIdx.y, x = blockIdx.x, s0 = x * WPB;
    const uint64_t n = chunk_count(p, cl);
    const uint32_t S = (uint32_t)((n + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES);
    const uint8_t *P = p.pay + p.rchoff[cl];
    const uint64_t size = p.rchsize[cl];
    const unsigned blog2 = p.blog2;
    const uint64_t nb = (size + (1ull << blog2) - 1) >> blog2;
    uint64_t *bh = p.bh + (uint64_t)cl * p.nbmax;
    const bool bad = p.cbad[cl] != 0, stored = (p.rchinfo[cl] & 0xffffffffu) == GFC_INFO_STORED;
    if (bad || stored) {
        if (w == WPB) {
            const uint64_t per = (nb + gridDim.x - 1) / gridDim.x, b0 = (uint64_t)x * per;
            const uint64_t b1 = b0 + per < nb ? b0 + per : nb;
            if (b0 < b1) scz_bh::warp_range(P, size, blog2, nb, b0, b1, bh, lane);
        } else if (!bad && s0 + w < S) {
            const uint64_t v0 = (uint64_t)(s0 + w) * GFC_SEG_VALUES;
            const uint32_t vals = n - v0 < GFC_SEG_VALUES ? (uint32_t)(n - v0) : GFC_SEG_VALUES;
            scz_ku::copy_bytes<32>(p.dst + (uint64_t)cl * p.raw_full + v0 * sizeof(T), P + v0 * sizeof(T),
                                   vals * (uint64_t)sizeof(T), lane);
        }
        return;
    }
    if (s0 >= S) return;
    /* the tile's bytes [T0s, T1) of the payload (k_gdchk checked the table) */
    const uint32_t s1 = s0 + WPB < S ? s0 + WPB : S;
    const uint64_t T0s = 4ull * S + (s0 ? ldb32(P + 4ull * (s0 - 1)) : 0), T1 = 4ull * S + ldb32(P + 4ull * (s1 - 1));
    const uint64_t T0 = x == 0 ? 0 : T0s;
    /* checksum blocks that begin in [T0, T1): [blo, bsm) in the offset
     * table (tile 0), [bsm, bhi) in the staged bytes */
    const uint64_t B = 1ull << blog2;
    const uint64_t blo = (T0 + B - 1) >> blog2, bhi = (T1 + B - 1) >> blog2;
    const uint64_t bt = (T0s + B - 1) >> blog2, bsm = bt > blo ? bt : blo;
    const uint64_t E = bhi > bsm ? ((bhi << blog2) < size ? (bhi << blog2) : size) : T1;
    const uint8_t *g = P + T0s;
    const uint32_t o0 = (uint32_t)(reinterpret_cast<uintptr_t>(g) & 15), end = o0 + (uint32_t)(E - T0s);
    stage_copy<NTH>(gsm, g - o0, o0, end, threadIdx.x);
    __syncthreads();
    if (w == WPB) {
        if (bsm > blo) scz_bh::warp_range(P, size, blog2, nb, blo, bsm, bh, lane);
        if (bhi > bsm) scz_bh::warp_range_smem<sizeof(T) == 4>(gsm, o0, T0s, size, blog2, nb, bsm, bhi, bh, lane);
        return;
    }
    const uint32_t s = s0 + w;
    if (s >= S) return;
    const uint64_t v0 = (uint64_t)s * GFC_SEG_VALUES;
    const uint32_t vals = n - v0 < GFC_SEG_VALUES ? (uint32_t)(n - v0) : GFC_SEG_VALUES;
    const uint32_t a = s ? ldb32(P + 4ull * (s - 1)) : 0, b = ldb32(P + 4ull * s), len = b - a;
    const uint32_t at = o0 + (uint32_t)(4ull * S + a - T0s);
    T *dst = reinterpret_cast<T *>(p.dst + (uint64_t)cl * p.raw_full) + v0 + lane;
    const uint32_t plane = GFC_SUB - p.dim + lane % p.dim, SB = tbuf_bytes(sizeof(T), blog2);
    const bool sbad = vals == GFC_SEG_VALUES ? decode_seg<T, true>(gsm, at, len, vals, dst, plane, lane, SB)
                                             : decode_seg<T, false>(gsm, at, len, vals, dst, plane, lane, SB);
    if (sbad && lane == 0) scz_cuda_report(p.err, p.c0 + cl, GFC_ERR_SEGMENT);
}

size_t smax_of(const scz_cuda_batch *b) {
    return (size_t)((b->full.count + GFC_SEG_VALUES - 1) / GFC_SEG_VALUES);
}

/* Tiles of a chunk of `count` values. */
uint64_t tiles_of(uint64_t count) { return (gfc_num_segments(count) + WPB - 1) / WPB; }

uint64_t batch_tiles(const scz_cuda_batch *b) { return (uint64_t)(b->n - 1) * tiles_of(b->full.count) + tiles_of(b->last.count); }

/* Scratch. Encoding: the look-back state of every tile of the batch, then
 * the ticket counter. Decoding: a flag per chunk. */
struct GLay {
    size_t state, counter, cbad, total;
};

GLay glay(const scz_cuda_batch *b, int dir) {
    GLay L = {0, 0, 0, 0};
    scz_ku::Bump bp = {nullptr, 0};
    if (dir == SCZ_CUDA_ENCODE) {
        L.state = bp.o;
        bp.take<unsigned long long>(batch_tiles(b));
        L.counter = bp.o;
        bp.take<unsigned long long>(1);
    } else {
        L.cbad = bp.o;
        bp.take<uint32_t>(b->n);
    }
    L.total = bp.o;
    return L;
}

GParams gparams(const scz_cuda_batch *b) {
    GParams p;
    memset(&p, 0, sizeof p);
    p.count_full = b->full.count;
    p.count_last = b->last.count;
    p.raw_full = b->raw_full;
    p.tiles_full = tiles_of(b->full.count);
    p.tiles = batch_tiles(b);
    p.n = b->n;
    p.c0 = b->c0;
    p.smax = (uint32_t)smax_of(b);
    p.dim = b->h->knobs[0] ? b->h->knobs[0] : GFC_DIM_DEFAULT;
    p.es = b->full.esize;
    return p;
}

/* Most shared memory for the carveout, so that the slots of 6 blocks fit. */
template <typename K> cudaError_t prefer_shared(K *k) {
    return cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
}

template <typename T> cudaError_t launch_enc(const GParams &p, unsigned count, cudaStream_t s) {
    cudaError_t e = prefer_shared(k_genc<T>);
    if (!e) k_genc<T><<<count, NT, (size_t)WPB * slot_bytes<T>(), s>>>(p);
    return e;
}

template <typename T> cudaError_t launch_dec(const GParams &p, dim3 grid, cudaStream_t s) {
    cudaError_t e = prefer_shared(k_gdec<T>);
    if (!e) k_gdec<T><<<grid, NT, (size_t)WPB * slot_bytes<T>(), s>>>(p);
    return e;
}

template <typename T> cudaError_t launch_dech(const GParams &p, dim3 grid, cudaStream_t s) {
    cudaError_t e = prefer_shared(k_gdech<T>);
    if (!e) e = scz_ku::launch_pdl(k_gdech<T>, grid, NTH, tbuf_bytes(sizeof(T), p.blog2), s, p);
    return e;
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
    if (smax_of(b) / WPB + 1 > 0x7fffffffull || b->n > 65535 || batch_tiles(b) > 0x7fffffffull)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "gfc (CUDA): batch too large for the grid");
    return SCZ_OK;
}

static size_t gfc_cuda_scratch(const scz_cuda_batch *b, int dir) { return b->n ? glay(b, dir).total : 0; }

static cudaError_t gfc_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                   uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                   void *scratch, cudaStream_t s) {
    if (ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    GParams p = gparams(b);
    const GLay L = glay(b, SCZ_CUDA_ENCODE);
    uint8_t *sc = static_cast<uint8_t *>(scratch);
    p.src = static_cast<const uint8_t *>(d_src);
    p.wpay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.state = reinterpret_cast<unsigned long long *>(sc + L.state);
    p.counter = reinterpret_cast<unsigned long long *>(sc + L.counter);
    cudaError_t e;
    ScProf pf("gfc encode", s); /* SCZ_GPU_PROFILE=1: phase times */
    if (ca == 0 && (e = cudaMemsetAsync(sc, 0, L.total, s))) return e; /* state and ticket, once per batch */
    pf.mark("memset");
    /* tiles of chunks [ca, cb); the tickets continue from the chunks before,
     * whose launches came first on this stream */
    const uint64_t g_begin = (uint64_t)ca * p.tiles_full, g_end = cb == b->n ? p.tiles : (uint64_t)cb * p.tiles_full;
    const unsigned count = (unsigned)(g_end - g_begin);
    e = p.es == 8 ? launch_enc<uint64_t>(p, count, s) : launch_enc<uint32_t>(p, count, s);
    if (e) return e;
    if ((e = cudaGetLastError())) return e;
    pf.mark("k_genc");
    uint64_t slices = (b->raw_full + (512u << 10) - 1) >> 19;
    slices = slices < 1 ? 1 : slices > 64 ? 64 : slices;
    k_gstored<<<dim3((unsigned)slices, cb - ca), NT2, 0, s>>>(p, ca);
    pf.mark("k_gstored");
    return cudaGetLastError();
}

/* Decodes the batch; with bh, also its checksum block hashes (k_gdech). */
static cudaError_t gfc_decode_batch(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                    const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                    unsigned long long *err, void *scratch, uint64_t *bh, uint64_t nbmax,
                                    unsigned blog2, cudaStream_t s) {
    GParams p = gparams(b);
    p.bh = bh;
    p.nbmax = nbmax;
    p.blog2 = blog2;
    const GLay L = glay(b, SCZ_CUDA_DECODE);
    p.cbad = reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(scratch) + L.cbad);
    p.pay = d_pay;
    p.rchoff = choff;
    p.rchsize = chsize;
    p.rchinfo = chinfo;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.err = err;
    const dim3 grid((p.smax + WPB - 1) / WPB, b->n);
    cudaError_t e;
    ScProf pf("gfc decode", s);
    if ((e = scz_ku::launch_pdl(k_gdchk, b->n, NTC, 0, s, p))) return e;
    pf.mark("k_gdchk");
    if (bh) e = p.es == 8 ? launch_dech<uint64_t>(p, grid, s) : launch_dech<uint32_t>(p, grid, s);
    else e = p.es == 8 ? launch_dec<uint64_t>(p, grid, s) : launch_dec<uint32_t>(p, grid, s);
    if (e) return e;
    pf.mark(bh ? "k_gdech" : "k_gdec");
    return cudaGetLastError();
}

static cudaError_t gfc_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                   const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                   unsigned long long *err, void *scratch, cudaStream_t s) {
    return gfc_decode_batch(b, d_pay, choff, chsize, chinfo, d_dst, err, scratch, nullptr, 0, 0, s);
}

static cudaError_t gfc_cuda_decode_hashed(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                          const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                          unsigned long long *err, void *scratch, uint64_t *bh, uint64_t nbmax,
                                          unsigned blog2, cudaStream_t s) {
    if (!bh || blog2 > HB_LOG2) return cudaErrorInvalidValue;
    return gfc_decode_batch(b, d_pay, choff, chsize, chinfo, d_dst, err, scratch, bh, nbmax, blog2, s);
}

static cudaError_t gfc_cuda_probe(void) {
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, k_genc<uint64_t>);
    if (!e) e = cudaFuncGetAttributes(&a, k_gdec<uint64_t>);
    if (!e) e = cudaFuncGetAttributes(&a, k_gdech<uint64_t>);
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
    0, /* checksums before the decoder (where it does not hash them itself) */
    gfc_cuda_decode_hashed,
    HB_LOG2,
};

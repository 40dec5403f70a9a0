/*
 * lzss.cu -- decompression of the lzss codec (id 5, FORMAT.md 11) on the
 * GPU: decodes exactly what the CPU decoder (lzss.c) decodes and rejects
 * what it rejects, never reading or writing outside the payload and the
 * chunk. Compression runs on the CPU (a CUDA context's host API; the
 * device-pointer API refuses it), so the registry entry has no encoder.
 *
 *   k_lzchk  block per chunk: codec_info, payload size, the payload header
 *            against the stream's knobs, the sub-chunk end offsets (11.3);
 *   k_lzdec  warp per sub-chunk: stored sub-chunks and chunks are copied;
 *            a coded body is decoded a group (flag byte + up to 8 tokens)
 *            at a time from a window of the body in shared memory: lane
 *            k < 8 reads token k (its offset from the flag
 *            bits below it), a scan over the 8 lanes places the tokens'
 *            symbols, the literals are written at once, then the matches in
 *            order, each copied by the whole warp (an overlapping match,
 *            d < L, repeats its period: symbol i comes from i mod d); the
 *            symbols go to a buffer (shared memory for sub-chunks of up to
 *            SMEM_B bytes, else scratch), then out to the chunk,
 *            unshuffled when the stream shuffles (11.2).
 */
extern "C" {
#include "lzss.h"
}
#include "../cuda/cuda_rt.h"
#include "../cuda/kutil.h"

namespace {

enum {
    LZ_ERR_INFO = SCZ_CUDA_ERR_CODEC, /* codec_info, or a payload of the wrong size for its form */
    LZ_ERR_HEADER,                    /* payload header differs from the stream's knobs */
    LZ_ERR_TABLE,                     /* sub-chunk end offsets */
    LZ_ERR_BODY,                      /* a coded sub-chunk that does not decode to exactly its bytes */
};

constexpr uint32_t WPB = 4;           /* warps (sub-chunks) per block */
constexpr uint32_t NT = 32 * WPB;
constexpr uint32_t NT2 = 256;         /* threads of k_lzchk */
constexpr uint64_t SMEM_B = 16384;    /* sub-chunks up to this size decode in shared memory */
constexpr unsigned FULLM = 0xffffffffu;

struct DParams {
    const uint8_t *pay;
    const uint64_t *choff, *chsize, *chinfo;
    uint8_t *dst;     /* raw chunk i at dst + i * raw_full */
    uint8_t *gbuf;    /* scratch buffers of sub-chunks above SMEM_B (else NULL) */
    uint32_t *cbad;
    unsigned long long *err;
    uint64_t count_full, count_last, raw_full, B, nsub_full;
    uint32_t n, c0, E, S, W, M, D, lg, shuffle;
};

__device__ __forceinline__ uint64_t chunk_raw(const DParams &p, uint32_t c) {
    return (c + 1 == p.n ? p.count_last : p.count_full) * p.E;
}

/* Per chunk: codec_info, sizes, payload header, end offsets. */
__global__ void __launch_bounds__(NT2) k_lzchk(DParams p) {
    __shared__ int bad;
    const uint32_t c = blockIdx.x;
    const uint64_t R = chunk_raw(p, c), size = p.chsize[c], info = p.chinfo[c] & 0xffffffffu;
    const uint64_t nsub = (R + p.B - 1) / p.B;
    const uint8_t *P = p.pay + p.choff[c];
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    int e = 0;
    if (info == LZSS_INFO_STORED) {
        e = size != R ? LZ_ERR_INFO : 0;
    } else if (info == LZSS_INFO_CODED) {
        if (size < LZSS_PAYLOAD_HDR || (size - LZSS_PAYLOAD_HDR) / 4 < nsub) {
            e = LZ_ERR_INFO;
        } else if (P[0] != p.S || P[1] != p.shuffle || P[2] != p.lg || P[3] != p.M ||
                   scz_ku::ldb32(P + 4) != p.W) {
            e = LZ_ERR_HEADER;
        } else {
            const uint8_t *tab = P + LZSS_PAYLOAD_HDR;
            const uint64_t avail = size - LZSS_PAYLOAD_HDR - 4 * nsub;
            for (uint64_t j = threadIdx.x; j < nsub && !e; j += NT2) {
                const uint64_t a = j ? scz_ku::ldb32(tab + 4 * (j - 1)) : 0, b = scz_ku::ldb32(tab + 4 * j);
                const uint64_t bj = R - j * p.B < p.B ? R - j * p.B : p.B;
                if (b < a || b - a > bj) e = LZ_ERR_TABLE;
                if (j + 1 == nsub && b != avail) e = LZ_ERR_TABLE;
            }
        }
    } else {
        e = LZ_ERR_INFO;
    }
    if (e) atomicMax(&bad, e);
    __syncthreads();
    if (threadIdx.x == 0) {
        p.cbad[c] = (uint32_t)bad;
        if (bad) scz_cuda_report(p.err, p.c0 + c, (unsigned)bad);
    }
}

template <int S> struct SymT;
template <> struct SymT<1> { typedef uint8_t T; };
template <> struct SymT<2> { typedef uint16_t T; };
template <> struct SymT<4> { typedef uint32_t T; };
template <> struct SymT<8> { typedef uint64_t T; };

/* S bytes at q (shared memory, any alignment), little-endian. */
template <int S> __device__ __forceinline__ typename SymT<S>::T ld_sym(const uint8_t *q) {
    typename SymT<S>::T v = 0;
#pragma unroll
    for (int i = S - 1; i >= 0; i--) v = (typename SymT<S>::T)((v << 8) | q[i]);
    return v;
}

/* Bytes of the body a warp keeps in shared memory; a group (flag byte and
 * 8 tokens of at most 8 bytes) needs GMAX of them. */
constexpr uint32_t WIN = 256, GMAX = 1 + 8 * 8;

/* Decodes a coded body (z bytes at body) into buf: n symbols of S bytes,
 * then t trailing bytes (FORMAT.md 11.5). Whole warp; win: WIN bytes of
 * shared memory, a window of the body refilled (one load per lane and
 * byte, all in flight together) whenever the next group might reach past
 * it, so the group's reads are shared-memory reads. Returns whether the
 * body is malformed (the CPU decoder's conditions, in any order). */
template <int S>
__device__ bool decode_body(const DParams &p, const uint8_t *body, uint32_t z, uint8_t *buf, uint32_t n, uint32_t t,
                            uint8_t *win, uint32_t lane) {
    typedef typename SymT<S>::T T;
    T *sym = reinterpret_cast<T *>(buf);
    const uint32_t P = p.D + 1, k = lane;
    uint32_t o = 0, pos = 0; /* symbols written, body bytes read */
    uint32_t wb = 0, we = 0; /* the window holds body bytes [wb, we) */
    bool bad = false;
    while (o < n) { /* warp-uniform */
        if (pos >= z) {
            bad = true;
            break;
        }
        if (pos + GMAX > we && we < z) {
            __syncwarp(); /* the old window is no longer read */
            wb = pos;
            we = z - pos < WIN ? z : pos + WIN;
            for (uint32_t i = lane; i < we - wb; i += 32) win[i] = __ldg(body + wb + i);
            __syncwarp();
        }
        /* here we == z or we >= pos + GMAX: every byte of the group that
         * lies in the body lies in the window */
        const uint32_t f = win[pos - wb];
        pos++;
        const uint32_t below = k < 8 ? f & ((1u << k) - 1) : f;
        const uint32_t mb = (uint32_t)__popc(below), ism = k < 8 ? (f >> k) & 1u : 0u;
        const uint32_t off = pos + mb * P + (k - mb) * S, tsz = ism ? P : (uint32_t)S;
        const bool fits = off <= z && tsz <= z - off;
        uint32_t cnt = 1, d = 0;
        if (k < 8 && fits && ism) {
            d = 1u + win[off - wb];
            if (p.D == 2) d += (uint32_t)win[off - wb + 1] << 8;
            cnt = p.M + win[off - wb + p.D];
        }
        uint32_t incl = k < 8 ? cnt : 0;
#pragma unroll
        for (uint32_t s = 1; s < 8; s <<= 1) {
            const uint32_t y = __shfl_up_sync(FULLM, incl, s);
            if (k >= s && k < 8) incl += y;
        }
        const uint32_t start = o + incl - cnt;
        const bool exists = k < 8 && start < n;
        const uint32_t ex = __ballot_sync(FULLM, exists);
        const uint32_t ntok = (uint32_t)__popc(ex); /* tokens of this group: lanes 0 .. ntok-1 */
        bool e = ntok < 8 && (f >> ntok) != 0;       /* flag bits after the last symbol */
        if (exists) {
            e |= !fits;                               /* body ends early */
            if (ism) e |= d > p.W || d > start || cnt > n - start; /* window, output, past the end */
        }
        if (__any_sync(FULLM, e)) {
            bad = true;
            break;
        }
        if (exists && !ism) sym[start] = ld_sym<S>(win + (off - wb));
        __syncwarp();
        for (uint32_t mm = __ballot_sync(FULLM, exists && ism); mm; mm &= mm - 1) {
            const int kk = __ffs(mm) - 1;
            const uint32_t sd = __shfl_sync(FULLM, d, kk), sl = __shfl_sync(FULLM, cnt, kk),
                           sp = __shfl_sync(FULLM, start, kk);
            if (sd >= sl) {
                for (uint32_t i = lane; i < sl; i += 32) sym[sp + i] = sym[sp - sd + i];
            } else {
                for (uint32_t i = lane; i < sl; i += 32) sym[sp + i] = sym[sp - sd + i % sd];
            }
            __syncwarp();
        }
        const uint32_t mt = (uint32_t)__popc(f & ((1u << ntok) - 1));
        o += __shfl_sync(FULLM, incl, ntok - 1);
        pos += mt * P + (ntok - mt) * S;
    }
    if (!bad && z - pos != t) bad = true; /* trailing bytes missing or bytes left over */
    if (!bad)
        for (uint32_t i = lane; i < t; i += 32) buf[(uint64_t)n * S + i] = __ldg(body + pos + i);
    __syncwarp();
    return bad;
}

/* The b decoded bytes of a sub-chunk from buf to out: unshuffled (11.2)
 * when shuf, element by element (E-byte stores), else copied. */
__device__ __forceinline__ void put_out(uint8_t *out, const uint8_t *buf, uint32_t b, uint32_t E, bool shuf,
                                        uint32_t lane) {
    if (!shuf) {
        scz_ku::copy_bytes<32>(out, buf, b, lane);
        return;
    }
    const uint32_t m = b / E;
    switch (E) {
    case 2:
        for (uint32_t k = lane; k < m; k += 32)
            reinterpret_cast<uint16_t *>(out)[k] = (uint16_t)(buf[k] | buf[m + k] << 8);
        break;
    case 4:
        for (uint32_t k = lane; k < m; k += 32)
            reinterpret_cast<uint32_t *>(out)[k] =
                (uint32_t)buf[k] | (uint32_t)buf[m + k] << 8 | (uint32_t)buf[2 * m + k] << 16 |
                (uint32_t)buf[3 * m + k] << 24;
        break;
    default:
        for (uint32_t k = lane; k < m; k += 32) {
            uint64_t v = 0;
            for (uint32_t q = 0; q < E; q++) v |= (uint64_t)buf[q * m + k] << (8 * q);
            reinterpret_cast<uint64_t *>(out)[k] = v;
        }
    }
}

template <int S> __global__ void __launch_bounds__(NT) k_lzdec(DParams p) {
    extern __shared__ __align__(16) uint8_t lsm[];
    __shared__ uint8_t wins[WPB][WIN];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t c = blockIdx.y;
    const uint64_t j = (uint64_t)blockIdx.x * WPB + w, R = chunk_raw(p, c), nsub = (R + p.B - 1) / p.B;
    if (j >= nsub || p.cbad[c]) return;
    const uint64_t off = j * p.B;
    const uint32_t b = (uint32_t)(R - off < p.B ? R - off : p.B);
    uint8_t *out = p.dst + (uint64_t)c * p.raw_full + off;
    const uint8_t *P = p.pay + p.choff[c];
    if ((p.chinfo[c] & 0xffffffffu) == LZSS_INFO_STORED) {
        scz_ku::copy_bytes<32>(out, P + off, b, lane);
        return;
    }
    const uint8_t *tab = P + LZSS_PAYLOAD_HDR;
    const uint32_t s0 = j ? scz_ku::ldb32(tab + 4 * (j - 1)) : 0, z = scz_ku::ldb32(tab + 4 * j) - s0;
    const uint8_t *body = tab + 4 * nsub + s0;
    if (z == b) { /* stored sub-chunk: its raw bytes, not shuffled */
        scz_ku::copy_bytes<32>(out, body, b, lane);
        return;
    }
    uint8_t *buf = p.gbuf ? p.gbuf + ((uint64_t)c * p.nsub_full + j) * p.B : lsm + (uint64_t)w * p.B;
    const uint32_t n = b / S, t = b - n * S;
    if (decode_body<S>(p, body, z, buf, n, t, wins[w], lane)) {
        if (lane == 0) scz_cuda_report(p.err, p.c0 + c, LZ_ERR_BODY);
        return;
    }
    put_out(out, buf, b, p.E, p.shuffle == LZSS_SHUFFLE_ON && p.E > 1, lane);
}

DParams dparams(const scz_cuda_batch *b) {
    DParams p;
    memset(&p, 0, sizeof p);
    const scz_header *h = b->h;
    p.count_full = b->full.count;
    p.count_last = b->last.count;
    p.raw_full = b->raw_full;
    p.n = b->n;
    p.c0 = b->c0;
    p.E = b->full.esize;
    p.S = h->knobs[LZSS_K_SYM];
    p.W = h->knobs[LZSS_K_WINDOW];
    p.M = h->knobs[LZSS_K_MINLEN];
    p.shuffle = h->knobs[LZSS_K_SHUFFLE];
    p.lg = h->knobs[LZSS_K_LG];
    p.D = lzss_dist_bytes(p.W);
    p.B = (uint64_t)p.S << p.lg;
    p.nsub_full = (b->raw_full + p.B - 1) / p.B;
    return p;
}

/* Scratch: a flag per chunk, then, for sub-chunks above SMEM_B, a buffer
 * per sub-chunk of the batch. */
struct DLay {
    size_t cbad, gbuf, total;
};
DLay dlay(const scz_cuda_batch *b) {
    const DParams p = dparams(b);
    scz_ku::Bump bp = {nullptr, 0};
    DLay L;
    L.cbad = bp.o;
    bp.take<uint32_t>(b->n);
    L.gbuf = bp.o;
    if (p.B > SMEM_B) bp.take<uint8_t>((size_t)b->n * p.nsub_full * p.B);
    L.total = bp.o;
    return L;
}

template <int S> cudaError_t launch_dec(const DParams &p, dim3 grid, cudaStream_t s) {
    const size_t smem = p.gbuf ? 0 : (size_t)WPB * p.B;
    cudaError_t e = cudaFuncSetAttribute(k_lzdec<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (!e) k_lzdec<S><<<grid, NT, smem, s>>>(p);
    return e;
}

} // namespace

static scz_status lzss_cuda_check(scz_ctx *ctx, const scz_cuda_batch *b) {
    if (b->n == 0) return scz__fail(ctx, SCZ_ERR_INTERNAL, "lzss (CUDA): empty batch");
    const DParams p = dparams(b);
    if (!lzss_sym_ok(p.S) || (p.E != 1 && p.E != 2 && p.E != 4 && p.E != 8))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "lzss (CUDA): symbol size %u, element size %u", p.S, p.E);
    if (b->raw_full >= 0xffffffffull)
        return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "lzss (CUDA): chunks of 4 GiB or more; use a smaller chunk size");
    if (p.nsub_full / WPB + 1 > 0x7fffffffull || b->n > 65535)
        return scz__fail(ctx, SCZ_ERR_OVERFLOW, "lzss (CUDA): batch too large for the grid");
    return SCZ_OK;
}

static size_t lzss_cuda_scratch(const scz_cuda_batch *b, int dir) {
    return b->n && dir == SCZ_CUDA_DECODE ? dlay(b).total : 0;
}

static cudaError_t lzss_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                    const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                    unsigned long long *err, void *scratch, cudaStream_t s) {
    DParams p = dparams(b);
    const DLay L = dlay(b);
    uint8_t *sc = static_cast<uint8_t *>(scratch);
    p.cbad = reinterpret_cast<uint32_t *>(sc + L.cbad);
    p.gbuf = p.B > SMEM_B ? sc + L.gbuf : nullptr;
    p.pay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.err = err;
    k_lzchk<<<b->n, NT2, 0, s>>>(p);
    cudaError_t e = cudaGetLastError();
    if (e) return e;
    const dim3 grid((unsigned)((p.nsub_full + WPB - 1) / WPB), b->n);
    switch (p.S) {
    case 1: e = launch_dec<1>(p, grid, s); break;
    case 2: e = launch_dec<2>(p, grid, s); break;
    case 4: e = launch_dec<4>(p, grid, s); break;
    default: e = launch_dec<8>(p, grid, s); break;
    }
    if (e) return e;
    return cudaGetLastError();
}

static cudaError_t lzss_cuda_probe(void) {
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, k_lzdec<4>);
}

static const char *lzss_cuda_error_text(unsigned code) {
    switch (code) {
    case LZ_ERR_INFO: return "lzss chunk: codec_info or payload size inconsistent with its form";
    case LZ_ERR_HEADER: return "lzss chunk parameters differ from the stream's";
    case LZ_ERR_TABLE: return "lzss chunk: sub-chunk end offsets are inconsistent";
    case LZ_ERR_BODY: return "lzss sub-chunk does not decode to exactly its bytes";
    }
    return NULL;
}

/* Listed in src/cuda/codecs_cuda.cu. No encoder: lzss compresses on the
 * CPU (scz__cuda_can(SCZ_CODEC_LZSS, SCZ_CUDA_ENCODE) is 0). */
extern const scz_cuda_codec_ops scz__lzss_cuda_ops = {
    SCZ_CODEC_LZSS,  lzss_cuda_check,      lzss_cuda_scratch, nullptr, lzss_cuda_decode,
    lzss_cuda_probe, lzss_cuda_error_text, nullptr,           nullptr,
};

/*
 * lzss.cu -- the lzss codec (id 5, FORMAT.md 11) on the GPU: writes
 * exactly the bytes of the CPU codec (lzss.c), decodes exactly what its
 * decoder decodes and rejects what it rejects, never reading or writing
 * outside the payload and the chunk.
 *
 * Encoding (k_lzenc, k_lzsize, k_lzoff, k_lzput): a warp per sub-chunk,
 * its symbols and links in scratch (read through L1), indexes the symbols
 * (hash links) and parses greedily: for windows of up to 256 symbols it
 * marks the positions with an earlier equal key and finds the exact match
 * only at the marked positions the parse reaches (enc_scan), for larger
 * windows each lane finds the match of its own position, 32 positions a
 * step (enc_chain); the tokens go into the body slot; per chunk a scan of
 * the body sizes gives the end offsets and the form; the chunks are placed
 * back to back and the bodies (or raw sub-chunks) copied into the
 * payloads.
 * Decoding:
 *   k_lzchk  block per chunk: codec_info, payload size, the payload header
 *            against the stream's knobs, the sub-chunk end offsets (11.3);
 *   k_lzdec  warp per sub-chunk: stored sub-chunks and chunks are copied;
 *            a coded body is decoded four groups (flag byte + up to 8
 *            tokens) at a time from a window of the body in shared memory:
 *            lane k reads token k & 7 of group k >> 3 (its offset from the
 *            flag bits below it), a scan over the 32 lanes places the tokens'
 *            symbols, the literals are written at once, then the matches in
 *            order, each copied by the whole warp (an overlapping match,
 *            d < L, repeats its period: symbol i comes from i mod d); the
 *            symbols go to a buffer in scratch (read back through L1),
 *            then out to the chunk, unshuffled when the stream shuffles
 *            (11.2); unshuffled symbols are decoded in place.
 */
extern "C" {
#include "lzss.h"
}
#include "lzss_walk.h"
#include "../cuda/cuda_rt.h"
#include "../cuda/kutil.h"

#include <cub/cub.cuh>
#include <cstdlib>
#include <type_traits>

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
constexpr uint32_t DEC_BLOCKS = 12;   /* k_lzdec blocks per SM (40 registers) */
/* Symbol scratch of one launch at most (both directions): the chunks of a
 * batch go through k_lzenc / k_lzdec in groups whose sub-chunk buffers fit
 * it (at least one chunk a group), so the scratch stays near 1x the
 * batch's raw bytes (the encoder's body slots) plus this. */
constexpr uint64_t SYM_SCRATCH = (uint64_t)1 << 30;
constexpr unsigned FULLM = 0xffffffffu;

struct DParams {
    const uint8_t *pay;
    const uint64_t *choff, *chsize, *chinfo;
    uint8_t *dst;     /* raw chunk i at dst + i * raw_full */
    uint8_t *gbuf;    /* a buffer of B bytes per sub-chunk (scratch) */
    uint32_t *cbad;
    unsigned long long *err;
    uint64_t count_full, count_last, raw_full, B, nsub_full;
    uint32_t n, c0, E, S, W, M, D, lg, shuffle;
    uint32_t cg; /* k_lzdec: the launch's first chunk (its chunks' buffers start at gbuf) */
};

__device__ __forceinline__ uint64_t chunk_raw(const DParams &p, uint32_t c) {
    return (c + 1 == p.n ? p.count_last : p.count_full) * p.E;
}

/* Per chunk: codec_info, sizes, payload header, end offsets (a block of
 * NTC threads, the table's byte loads all issued before they are tested:
 * gfc's k_gdchk). */
constexpr uint32_t NTC = 1024;
__global__ void __launch_bounds__(NTC) k_lzchk(DParams p) {
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
#pragma unroll 4
            for (uint64_t j = threadIdx.x; j < nsub; j += NTC) {
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
 * 8 tokens of at most 8 bytes) needs GMAX of them, a step NG groups. */
constexpr uint32_t NG = 4, GMAX = 1 + 8 * 8, WIN = 512;

/* Decodes a coded body (z bytes at body) into buf: n symbols of S bytes,
 * then t trailing bytes (FORMAT.md 11.5). Whole warp, NG = 4 groups a
 * step: lane k reads token k & 7 of group k >> 3. The groups' flag bytes
 * are found one after the other (a group before the last has 8 tokens, so
 * its size follows from its flag byte), a scan over the 32 lanes places
 * the tokens' symbols, the literals are written at once, then the matches
 * in order, each copied by the whole warp (an overlapping match, d < L,
 * repeats its period: symbol i comes from i mod d). win: WIN bytes of
 * shared memory, a window of the body refilled (one load per lane and
 * byte, all in flight together) whenever the step might reach past it, so
 * the step's reads are shared-memory reads. Returns whether the body is
 * malformed (the CPU decoder's conditions, in any order). */
template <int S>
__device__ bool decode_body(const DParams &p, const uint8_t *body, uint32_t z, uint8_t *buf, uint32_t n, uint32_t t,
                            uint8_t *win, uint32_t lane) {
    typedef typename SymT<S>::T T;
    T *sym = reinterpret_cast<T *>(buf);
    const uint32_t P = p.D + 1, g = lane >> 3, k = lane & 7;
    uint32_t o = 0, pos = 0; /* symbols written, body bytes read */
    uint32_t wb = 0, we = 0; /* the window holds body bytes [wb, we) */
    bool bad = false;
    while (o < n) { /* warp-uniform */
        if (pos >= z) {
            bad = true;
            break;
        }
        if (pos + NG * GMAX > we && we < z) {
            __syncwarp(); /* the old window is no longer read */
            wb = pos;
            we = z - pos < WIN ? z : pos + WIN;
            for (uint32_t i = lane; i < we - wb; i += 32) win[i] = __ldg(body + wb + i);
            __syncwarp();
        }
        /* here we == z or we >= pos + NG GMAX: every byte of the step's
         * groups that lies in the body lies in the window. The flag byte
         * of group q at fp[q] (fp >= z: the body has ended there). */
        uint32_t fq = 0, fpq = pos, fp_next = pos;
#pragma unroll
        for (uint32_t q = 0; q < NG; q++) {
            const uint32_t fpx = fp_next;
            const uint32_t fx = fpx < z ? win[fpx - wb] : 0u;
            const uint32_t m = (uint32_t)__popc(fx);
            fp_next = fpx + 1 + m * P + (8 - m) * S;
            if (q == g) {
                fq = fx;
                fpq = fpx;
            }
        }
        const uint32_t below = fq & ((1u << k) - 1);
        const uint32_t mb = (uint32_t)__popc(below), ism = (fq >> k) & 1u;
        const uint32_t off = fpq + 1 + mb * P + (k - mb) * S, tsz = ism ? P : (uint32_t)S;
        const bool fits = fpq < z && off <= z && tsz <= z - off;
        uint32_t cnt = 1, d = 0;
        if (fits && ism) {
            d = 1u + win[off - wb];
            if (p.D == 2) d += (uint32_t)win[off - wb + 1] << 8;
            cnt = p.M + win[off - wb + p.D];
        }
        uint32_t incl = cnt;
#pragma unroll
        for (uint32_t s = 1; s < 32; s <<= 1) {
            const uint32_t y = __shfl_up_sync(FULLM, incl, s);
            if (lane >= s) incl += y;
        }
        const uint32_t start = o + incl - cnt;
        const bool exists = start < n;
        const uint32_t ex = __ballot_sync(FULLM, exists);
        const uint32_t ntok = (uint32_t)__popc(ex); /* tokens of this step: lanes 0 .. ntok-1 */
        const uint32_t gl = (ntok - 1) >> 3, nl = ntok - 8 * gl; /* the last group, its tokens */
        /* flag bits after the last symbol (only the step's last group can have them) */
        bool e = lane == 8 * gl && nl < 8 && (fq >> nl) != 0;
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
        /* the step ends after token ntok - 1: the end of group gl if it is
         * full, else its flag byte and its tokens */
        const uint32_t lf = __shfl_sync(FULLM, fq, 8 * gl), lp = __shfl_sync(FULLM, fpq, 8 * gl);
        const uint32_t mt = (uint32_t)__popc(lf & ((1u << nl) - 1));
        o += __shfl_sync(FULLM, incl, ntok - 1);
        pos = lp + 1 + mt * P + (nl - mt) * S;
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

template <int S> __global__ void __launch_bounds__(NT, DEC_BLOCKS) k_lzdec(DParams p) {
    __shared__ uint8_t wins[WPB][WIN];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t c = p.cg + blockIdx.y;
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
    /* unshuffled symbols are decoded in place when the output is aligned for them (as on the CPU) */
    const bool shuf = p.shuffle == LZSS_SHUFFLE_ON && p.E > 1;
    const bool direct = !shuf && (reinterpret_cast<uintptr_t>(out) & (S - 1)) == 0;
    uint8_t *buf = direct ? out : p.gbuf + ((uint64_t)(c - p.cg) * p.nsub_full + j) * p.B;
    const uint32_t n = b / S, t = b - n * S;
    if (decode_body<S>(p, body, z, buf, n, t, wins[w], lane)) {
        if (lane == 0) scz_cuda_report(p.err, p.c0 + c, LZ_ERR_BODY);
        return;
    }
    if (!direct) put_out(out, buf, b, p.E, shuf, lane);
}

/* ---- encoding (FORMAT.md 11.3-11.5; the writer's rules are normative) ---- */

struct EParams {
    const uint8_t *src; /* raw chunk i at src + i * raw_full */
    uint8_t *pay;       /* payloads, back to back */
    uint64_t *choff, *chsize, *chinfo;
    uint8_t *gbuf;      /* symbols and links of each sub-chunk (enc_bufsz bytes apart) */
    uint8_t *gbody;     /* a coded body per sub-chunk, SLOT bytes apart */
    uint64_t *zsz;      /* body bytes per sub-chunk (b: stored) */
    uint64_t *ends;     /* end offsets (11.3) per sub-chunk */
    uint64_t count_full, count_last, raw_full, B, nsub_full, slot;
    uint32_t n, ca, E, S, W, M, D, lg, shuffle;
};

__device__ __forceinline__ uint64_t chunk_raw_e(const EParams &p, uint32_t c) {
    return (c + 1 == p.n ? p.count_last : p.count_full) * p.E;
}

/* ---- match finding (FORMAT.md 11.4) ----
 *
 * The best match at a position does not depend on the parse, so a warp
 * finds it for 32 positions at once, one per lane, from an index of the
 * sub-chunk built before the parse:
 *
 * - the key of position i is its first K = min(M, 8 / S) symbols (every
 *   match of M or more symbols starts with the same key), hashed to HBITS
 *   bits; hp[i] links i to an earlier position (a distance, 0: none);
 * - a run of equal keys (key(p - 1) == key(p): the K + 1 symbols p - 1 ..
 *   p + K - 1 are equal; "interior" positions) is linked as one: hp[p] of
 *   an interior p is the distance to the run's start a, and hp[a] the
 *   distance to the previous position with a's hash; every other position
 *   links to the previous position with its hash. Walking the links from i
 *   visits, nearest first, every earlier position with i's hash, except
 *   that a run is entered at its last interior position p (the largest of
 *   the run with that key, so the run's symbols end at re = p + K) and
 *   left at once through its start;
 * - a run [a, re) of symbol v stands for all its candidates: with R the
 *   run of v at i (s[i .. i + R - 1] = v, R >= K), a candidate q of the
 *   run has match length re - q when re - q < R, exactly R when re - q > R,
 *   and R plus the match of s[re ..] with s[i + R ..] when re - q = R. So
 *   the run's best is q = re - R (or, if that lies before the run or the
 *   window, its lowest position, with re - q symbols); where i itself is
 *   inside a run, d = 1 gives R and the rest of the run no more;
 * - any other candidate p first checks the symbol at the best length so
 *   far (only a longer match replaces the best: the nearest of the longest
 *   wins), then extends the match.
 * The walk is lzss_walk.h's lzss_find_match, shared with the CPU encoder.
 * R is found for all 32 lanes together: a ballot of s[i] == s[i + 1] and,
 * when the last lane's run goes on, a warp-wide search for its end.
 * Links are 16-bit distances (a sub-chunk has at most 65536 symbols), the
 * hash heads 16-bit positions (0xffff: none; only the last position of a
 * 65536-symbol sub-chunk can hold it, and nothing reads the heads after
 * it). */
constexpr uint32_t HBITS = 10, HSIZE = 1u << HBITS;
constexpr uint32_t ENC_BLOCKS = 12; /* k_lzenc blocks per SM (40 registers) */
constexpr uint32_t HNONE = 0xffffu;

template <int S> __device__ __forceinline__ uint32_t key_hash(const typename SymT<S>::T *sym, uint32_t i, uint32_t K) {
    uint64_t v = 0;
    for (uint32_t k = 0; k < K; k++) v |= (uint64_t)sym[i + k] << ((8 * S * k) & 63);
    const uint32_t x = (uint32_t)v ^ (uint32_t)(v >> 32) * 0x85ebca6bu;
    return (x * 0x9e3779b1u) >> (32 - HBITS);
}

/* Scratch bytes per sub-chunk of k_lzenc: its symbols (B) and links (2
 * bytes a symbol). They live in device memory and are read through L1:
 * in shared memory (28 KiB a warp) they allowed 8 warps per SM, and the
 * parse is latency-bound (H200, tiled wmag: 43 -> 107 GB/s with 40 warps
 * per SM, the same code otherwise). Shared memory holds the hash heads. */
__host__ __device__ __forceinline__ uint64_t enc_bufsz(uint64_t B, uint32_t S) {
    return (B + 2 * (B / S) + 15) / 16 * 16;
}

/* Byte planes of 4 mw elements of E bytes (E = 4 or 8) from s4 (16-byte
 * aligned) into d: word k of plane q holds byte q of elements 4 k .. 4 k +
 * 3. A lane takes 4 elements (E / 4 16-byte loads) at a time, four loads
 * in flight. */
template <uint32_t E>
__device__ __forceinline__ void load_planes(uint32_t *d, const uint4 *s4, uint32_t mw, uint32_t lane) {
    constexpr uint32_t W = E / 4, GR = 4 / W; /* words per element; element quads per lane and step */
    for (uint32_t k0 = lane; k0 < mw; k0 += 32 * GR) {
        uint4 v[4];
#pragma unroll
        for (uint32_t u = 0; u < GR; u++)
            if (k0 + 32 * u < mw)
#pragma unroll
                for (uint32_t h = 0; h < W; h++) v[u * W + h] = __ldg(s4 + W * (k0 + 32 * u) + h);
#pragma unroll
        for (uint32_t u = 0; u < GR; u++) {
            const uint32_t k = k0 + 32 * u;
            if (k >= mw) break;
            uint32_t c[4 * W]; /* the 4 elements' words */
#pragma unroll
            for (uint32_t h = 0; h < W; h++) {
                c[4 * h] = v[u * W + h].x;
                c[4 * h + 1] = v[u * W + h].y;
                c[4 * h + 2] = v[u * W + h].z;
                c[4 * h + 3] = v[u * W + h].w;
            }
#pragma unroll
            for (uint32_t q = 0; q < E; q++) {
                const uint32_t sel = (q & 3) | ((q & 3) + 4) << 4, o = q >> 2;
                const uint32_t lo = __byte_perm(c[o], c[W + o], sel), hi = __byte_perm(c[2 * W + o], c[3 * W + o], sel);
                d[q * mw + k] = __byte_perm(lo, hi, 0x5410);
            }
        }
    }
}

/* The sub-chunk's b bytes into buf, byte-shuffled when shuf (11.2): 16-byte
 * loads of 4 elements, one 4-byte store per plane, where the source is
 * aligned and the planes hold whole words; else byte by byte. */
__device__ __forceinline__ void load_sub(uint8_t *buf, const uint8_t *raw, uint32_t b, uint32_t E, bool shuf,
                                         uint32_t lane) {
    const bool al = (reinterpret_cast<uintptr_t>(raw) & 15) == 0;
    if (!shuf) {
        if (al && (b & 15) == 0) {
            const uint4 *s4 = reinterpret_cast<const uint4 *>(raw);
            uint4 *d4 = reinterpret_cast<uint4 *>(buf);
            for (uint32_t k0 = lane; k0 < b / 16; k0 += 128) {
                uint4 v[4];
#pragma unroll
                for (uint32_t u = 0; u < 4; u++)
                    if (k0 + 32 * u < b / 16) v[u] = __ldg(s4 + k0 + 32 * u);
#pragma unroll
                for (uint32_t u = 0; u < 4; u++)
                    if (k0 + 32 * u < b / 16) d4[k0 + 32 * u] = v[u];
            }
        } else {
            for (uint32_t k = lane; k < b; k += 32) buf[k] = raw[k];
        }
        return;
    }
    const uint32_t m = b / E;
    if (al && (m & 3) == 0 && E == 4) {
        load_planes<4>(reinterpret_cast<uint32_t *>(buf), reinterpret_cast<const uint4 *>(raw), m / 4, lane);
    } else if (al && (m & 3) == 0 && E == 8) {
        load_planes<8>(reinterpret_cast<uint32_t *>(buf), reinterpret_cast<const uint4 *>(raw), m / 4, lane);
    } else {
        for (uint32_t k = lane; k < m; k += 32)
            for (uint32_t q = 0; q < E; q++) buf[q * m + k] = raw[(uint64_t)k * E + q];
    }
}

/* The state of a body between parse steps: tokens so far (T0), their
 * bytes without flag bytes (psz), the flag bits of the open group (carry)
 * and its flag byte's place (fo_open). */
struct TokState {
    uint32_t T0, psz, carry, fo_open;
};

/* One lane's token of a step at tok_off (token tk of the body): a match
 * (distance d, length code lc = L - M) or the literal v; and the flag byte
 * of its group where it is the group's first token (the step's first
 * token, first, in an open group: at st.fo_open). seq: the step's match
 * bits from the open group's bit 0. Only bytes below b are written. */
template <int S>
__device__ __forceinline__ void put_token(uint8_t *out, typename SymT<S>::T v, bool ism, uint32_t tok_off, uint32_t tk,
                                          bool first, uint64_t seq, uint32_t b, uint32_t D, uint32_t lc, uint32_t d,
                                          const TokState &st) {
    if (tok_off + (ism ? D + 1 : (uint32_t)S) <= b) {
        if (ism) {
            const uint32_t dd = d - 1;
            out[tok_off] = (uint8_t)dd;
            if (D == 2) out[tok_off + 1] = (uint8_t)(dd >> 8);
            out[tok_off + D] = (uint8_t)lc;
        } else {
#pragma unroll
            for (int q = 0; q < S; q++) out[tok_off + q] = (uint8_t)(v >> ((8 * q) & 63));
        }
    }
    if ((tk & 7) == 0) {
        if (tok_off - 1 < b) out[tok_off - 1] = (uint8_t)(seq >> (8 * (tk / 8 - st.T0 / 8)));
    } else if (first) {
        if (st.fo_open < b) out[st.fo_open] = (uint8_t)seq;
    }
}

/* Writes one parse step's tokens (11.5): lane k's token is that of position
 * i0 + k where bit k of onm is set, in order: a match (d, L) where bit k
 * of mm is set, else the literal s[i0 + k]. Token t lies at t / 8 + 1 +
 * the sizes of the tokens before it; the flag byte of a group is written
 * by the lane of its first token, the bits of a group that continues into
 * the next step carried over. Only bytes below b are written (a body that
 * reaches b is abandoned: the sub-chunk is stored). */
template <int S>
__device__ __forceinline__ void put_step(uint8_t *out, const typename SymT<S>::T *sym, uint32_t i0, uint32_t onm,
                                         uint32_t mm, uint32_t L, uint32_t d, uint32_t b, uint32_t D, uint32_t M,
                                         TokState &st, uint32_t lane) {
    const uint32_t lt = (1u << lane) - 1, P = D + 1;
    const bool on = (onm >> lane) & 1u, ism = (mm >> lane) & 1u;
    const uint32_t lm = onm & ~mm;
    const uint32_t rank = __popc(onm & lt), tk = st.T0 + rank;
    const uint32_t tok_off = tk / 8 + 1 + st.psz + P * __popc(mm & lt) + S * __popc(lm & lt);
    const uint32_t mseq = __reduce_or_sync(FULLM, on && ism ? 1u << rank : 0u);
    const uint64_t seq = (uint64_t)st.carry | (uint64_t)mseq << (st.T0 & 7);
    if (on) put_token<S>(out, sym[i0 + lane], ism, tok_off, tk, rank == 0, seq, b, D, L - M, d, st);
    const uint32_t tend = st.T0 + __popc(onm);
    if (tend & 7) {
        const uint32_t gl = tend / 8;
        st.carry = (uint32_t)(seq >> (8 * (gl - st.T0 / 8))) & ((1u << (tend & 7)) - 1);
        if (gl * 8 >= st.T0) { /* the group starts here: its first token's place - 1 */
            const uint32_t bl = (1u << __fns(onm, 0, gl * 8 - st.T0 + 1)) - 1;
            st.fo_open = gl + st.psz + P * __popc(mm & bl) + S * __popc(lm & bl);
        }
    } else {
        st.carry = 0;
    }
    st.psz += P * __popc(mm) + S * __popc(lm);
    st.T0 = tend;
}

/* put_step for a step of nl tokens at positions i0 .. i0 + nl - 1 (lanes
 * 0 .. nl - 1) of which only the last may be a match (ism_last: length L,
 * distance d): enc_scan's steps. Every token before a lane is a literal,
 * so its place needs no popcounts. Same bytes as put_step. */
template <int S>
__device__ __forceinline__ void put_run(uint8_t *out, const typename SymT<S>::T *sym, uint32_t i0, uint32_t nl,
                                        bool ism_last, uint32_t L, uint32_t d, uint32_t b, uint32_t D, uint32_t M,
                                        TokState &st, uint32_t lane) {
    const uint32_t P = D + 1;
    const bool on = lane < nl, ism = ism_last && lane == nl - 1;
    const uint32_t tk = st.T0 + lane;
    const uint32_t tok_off = tk / 8 + 1 + st.psz + S * lane;
    const uint64_t seq = (uint64_t)st.carry | (uint64_t)(ism_last ? 1u << (nl - 1) : 0u) << (st.T0 & 7);
    if (on) put_token<S>(out, sym[i0 + lane], ism, tok_off, tk, lane == 0, seq, b, D, L - M, d, st);
    const uint32_t tend = st.T0 + nl;
    if (tend & 7) {
        const uint32_t gl = tend / 8;
        st.carry = (uint32_t)(seq >> (8 * (gl - st.T0 / 8))) & ((1u << (tend & 7)) - 1);
        if (gl * 8 >= st.T0) st.fo_open = gl + st.psz + S * (gl * 8 - st.T0); /* its first token's place - 1 */
    } else {
        st.carry = 0;
    }
    st.psz += ism_last ? S * (nl - 1) + P : S * nl;
    st.T0 = tend;
}

/* The key of position i: its first K symbols as one word (K S <= 8
 * bytes; 32 bits where they fit). */
template <int S, int K>
using KeyT = typename std::conditional<(S * K <= 4), uint32_t, unsigned long long>::type;
template <int S, int K> __device__ __forceinline__ KeyT<S, K> ld_key(const typename SymT<S>::T *sym, uint32_t i) {
    KeyT<S, K> v = 0;
#pragma unroll
    for (int k = 0; k < K; k++) v |= (KeyT<S, K>)sym[i + k] << ((8 * S * k) & 63);
    return v;
}

/* ---- windows of at most 256 symbols: the parse's matches only ----
 *
 * The index links each position to the previous one with the same key
 * hash within the window (hp, bits 0-14) and marks (bit 15) the positions
 * that have an earlier position with the same key in the window and room
 * for M symbols: exactly the positions where a match of M or more can
 * start when K = M (the default knobs), a superset otherwise. The parse
 * then needs the match only at the marked positions it reaches: from
 * position i0 every unmarked position up to the first marked one, y, is a
 * literal; at y the warp finds the match (search_at) and the next step
 * starts after its token. */
constexpr uint32_t WSCAN = 256;
constexpr uint16_t HP_MARK = 0x8000u, HP_LINK = 0x7fffu;

/* Whether s[q + k] = s[y + k] for every k in [lo, hi), from the top down
 * (a candidate that agreed up to near the best length so far tends to
 * differ there), four symbols a step with their loads issued together. */
template <int S>
__device__ __forceinline__ bool agree_down(const typename SymT<S>::T *sym, uint32_t q, uint32_t y, uint32_t lo,
                                           uint32_t hi) {
    typedef typename SymT<S>::T T;
    uint32_t k = hi;
    while (k >= lo + 4) {
        k -= 4;
        const T a0 = sym[q + k], a1 = sym[q + k + 1], a2 = sym[q + k + 2], a3 = sym[q + k + 3];
        const T b0 = sym[y + k], b1 = sym[y + k + 1], b2 = sym[y + k + 2], b3 = sym[y + k + 3];
        if ((a0 != b0) | (a1 != b1) | (a2 != b2) | (a3 != b3)) return false;
    }
    while (k > lo) {
        k--;
        if (sym[q + k] != sym[y + k]) return false;
    }
    return true;
}

/* The match at position y (11.4, exact) by the whole warp. Lane l holds
 * the candidates among the distances 1 + l + 32 t (t < 8): bit t of cm,
 * first every distance whose key equals y's. All candidates agree with y
 * on their first `known` symbols. The nearest candidate is extended by
 * the warp (32 symbols a round, a ballot finds the first difference); its
 * length is the best so far, Lb, and each lane then keeps only its
 * candidates that agree on the first Lb + 1 symbols (the symbol at Lb
 * first, then the rest from the top down): exactly those longer than Lb.
 * The nearest of them is extended next, and so on; so the result is the
 * longest match, the nearest of equals. Returns the length (< M: a
 * literal) and *bd the distance. */
template <int S, int K>
__device__ __forceinline__ uint32_t search_at(const typename SymT<S>::T *sym, uint32_t y, uint32_t n, uint32_t W,
                                              uint32_t M, uint32_t lane, uint32_t *bd) {
    typedef typename SymT<S>::T T;
    const uint32_t cap = n - y < M + LZSS_EXTRA_MAX ? n - y : M + LZSS_EXTRA_MAX;
    const uint32_t nd = W < y ? W : y;
    const KeyT<S, K> ky = ld_key<S, K>(sym, y);
    uint32_t cm = 0;
#pragma unroll
    for (uint32_t t = 0; t < WSCAN / 32; t++) {
        const uint32_t d = 1 + lane + 32 * t;
        if (d <= nd && ld_key<S, K>(sym, y - d) == ky) cm |= 1u << t;
    }
    uint32_t Lb = 0, db = 0, known = K;
    for (;;) { /* warp-uniform */
        const uint32_t mine = cm ? (uint32_t)(__ffs(cm) - 1) << 5 | lane : 0xffffffffu;
        const uint32_t nb = __reduce_min_sync(FULLM, mine);
        if (nb == 0xffffffffu) break;
        if (lane == (nb & 31)) cm &= cm - 1;
        const uint32_t d = nb + 1, q = y - d;
        for (uint32_t k0 = known;; k0 += 32) { /* longer than Lb: the best so far */
            const uint32_t k = k0 + lane;
            const uint32_t bm = __ballot_sync(FULLM, k >= cap || sym[q + k] != sym[y + k]);
            if (bm) {
                Lb = k0 + __ffs(bm) - 1;
                break;
            }
        }
        db = d;
        if (Lb >= cap) break;
        const T v = sym[y + Lb];
        for (uint32_t r = cm; r; r &= r - 1) {
            const uint32_t t = __ffs(r) - 1, qc = y - (1 + lane + 32 * t);
            if (sym[qc + Lb] != v || !agree_down<S>(sym, qc, y, known, Lb)) cm &= ~(1u << t);
        }
        known = Lb + 1;
    }
    *bd = db;
    return Lb;
}

/* Indexes and parses a sub-chunk's n symbols for W <= WSCAN (see above);
 * returns the body's size before the trailing bytes, or b when the body
 * would not be smaller than b (stored). */
template <int S, int K>
__device__ uint32_t enc_scan(const typename SymT<S>::T *sym, uint16_t *hp, uint16_t *head, uint8_t *out, uint32_t n,
                             uint32_t b, uint32_t W, uint32_t M, uint32_t D, uint32_t lane) {
    const uint32_t lt = (1u << lane) - 1;
    for (uint32_t base = 0; base < n; base += 32) {
        const uint32_t i = base + lane;
        const bool valid = i + K <= n;
        const KeyT<S, K> key = valid ? ld_key<S, K>(sym, i) : 0;
        const uint32_t x = (uint32_t)key ^ (uint32_t)((unsigned long long)key >> 32) * 0x85ebca6bu;
        const uint32_t h = valid ? (x * 0x9e3779b1u) >> (32 - HBITS) : 0xffffffffu;
        const uint32_t peers = __match_any_sync(FULLM, h), below = peers & lt;
        uint32_t link = 0;
        if (valid) {
            const uint32_t pv = below ? base + 31 - __clz(below) : head[h];
            if (pv != HNONE && i - pv <= W) link = i - pv;
        }
        __syncwarp();
        if (valid && (peers >> lane) == 1) head[h] = (uint16_t)i;
        if (i < n) hp[i] = (uint16_t)link;
        __syncwarp();
        bool mk = false;
        if (link && n - i >= M) { /* the nearest earlier position with i's key, through the links */
            uint32_t q = i - link;
            for (;;) {
                if (ld_key<S, K>(sym, q) == key) {
                    mk = true;
                    break;
                }
                const uint32_t l2 = hp[q] & HP_LINK;
                if (!l2 || i - q + l2 > W) break;
                q -= l2;
            }
        }
        __syncwarp();
        if (mk) hp[i] = (uint16_t)(link | HP_MARK);
    }
    __syncwarp();
    TokState st = {0, 0, 0, 0};
    uint32_t i0 = 0;
    while (i0 < n) { /* warp-uniform */
        if ((st.T0 + 7) / 8 + st.psz >= b) return b;
        const uint32_t nv = n - i0 < 32 ? n - i0 : 32;
        const uint32_t F = __ballot_sync(FULLM, lane < nv && (hp[i0 + lane] & HP_MARK));
        uint32_t nl = nv, L = 0, d = 0, x = nv;
        bool ml = false;
        if (F) {
            const uint32_t yk = __ffs(F) - 1;
            L = search_at<S, K>(sym, i0 + yk, n, W, M, lane, &d);
            nl = yk + 1;
            ml = L >= M;
            x = ml ? yk + L : yk + 1;
        }
        put_run<S>(out, sym, i0, nl, ml, L, d, b, D, M, st, lane);
        i0 += x;
    }
    return (st.T0 + 7) / 8 + st.psz;
}

/* Indexes (runs linked as one, above) and parses a sub-chunk's n symbols
 * for any window: 32 positions a step, lane k finding the match at i0 + k
 * (lzss_find_match); the parse's lanes are followed through the step. Returns
 * as enc_scan. */
template <int S>
__device__ uint32_t enc_chain(const typename SymT<S>::T *sym, uint16_t *hp, uint16_t *head, uint8_t *out, uint32_t n,
                              uint32_t b, uint32_t W, uint32_t M, uint32_t K, uint32_t D, uint32_t lane) {
    typedef typename SymT<S>::T T;
    const uint32_t lt = (1u << lane) - 1;
    /* index: 32 positions per step, in order */
    uint32_t rcarry = 0;
    for (uint32_t base = 0; base < n; base += 32) {
        const uint32_t i = base + lane;
        const bool valid = i + K <= n;
        const bool interior = valid && lzss_run_at(reinterpret_cast<const uint8_t *>(sym), i, K, S);
        const uint32_t h = valid ? key_hash<S>(sym, i, K) : 0xffffffffu;
        /* the run's start: the last position up to i that is not interior */
        const uint32_t ni = ~__ballot_sync(FULLM, interior), nb = ni & (lt | 1u << lane);
        const uint32_t rs = nb ? base + 31 - __clz(nb) : rcarry;
        if (ni) rcarry = base + 31 - __clz(ni);
        const uint32_t peers = __match_any_sync(FULLM, h), below = peers & lt;
        uint32_t link = 0;
        if (valid) {
            const uint32_t pv = below ? base + 31 - __clz(below) : head[h];
            link = interior ? i - rs : pv == HNONE ? 0 : i - pv;
        }
        __syncwarp();
        if (valid && (peers >> lane) == 1) head[h] = (uint16_t)i;
        if (i < n) hp[i] = (uint16_t)link;
        __syncwarp();
    }

    /* parse */
    TokState st = {0, 0, 0, 0};
    uint32_t i0 = 0;
    while (i0 < n) { /* warp-uniform */
        if ((st.T0 + 7) / 8 + st.psz >= b) return b;
        const uint32_t i = i0 + lane;
        const bool valid = i < n;
        /* runs: lane k's run of s[i] from the ballot, the last lane's by a search */
        const uint32_t ER = __ballot_sync(FULLM, i + 1 < n && sym[i] == sym[i + 1]);
        uint32_t R31 = 0;
        if (ER >> 31) {
            const uint32_t i31 = i0 + 31, lim = n - i31 < M + LZSS_EXTRA_MAX ? n - i31 : M + LZSS_EXTRA_MAX;
            const T v = sym[i31];
            for (uint32_t x = 1;; x += 32) {
                const uint32_t o = x + lane;
                const uint32_t bm = __ballot_sync(FULLM, o >= lim || sym[i31 + o] != v);
                if (bm) {
                    R31 = x + __ffs(bm) - 1;
                    break;
                }
            }
        }
        uint32_t L = 0, d = 0;
        if (valid) {
            const uint32_t x = ~(ER >> lane), ones = x ? __ffs(x) - 1 : 32;
            const uint32_t Rr = lane + ones >= 32 ? 31 - lane + R31 : ones + 1;
            const uint32_t cap = n - i < M + LZSS_EXTRA_MAX ? n - i : M + LZSS_EXTRA_MAX;
            uint64_t dd = 0;
            L = (uint32_t)lzss_find_match(reinterpret_cast<const uint8_t *>(sym), hp, i, n, W, M, K, Rr < cap ? Rr : cap,
                                          &dd, S);
            d = (uint32_t)dd;
        }
        /* the parse's lanes: from lane x, every literal up to the next match
         * lane y is a token, then the parse goes on at y + L(y) */
        const uint32_t Mk = __ballot_sync(FULLM, L != 0), nv = n - i0 < 32 ? n - i0 : 32;
        const uint32_t vmask = nv == 32 ? FULLM : (1u << nv) - 1;
        uint32_t onm = 0, x = 0;
        for (;;) { /* warp-uniform; x < nv */
            const uint32_t from = FULLM << x, mr = Mk & from;
            if (!mr) {
                onm |= vmask & from;
                x = nv;
                break;
            }
            const uint32_t y = __ffs(mr) - 1;
            onm |= from & (0xfffffffeu << y ^ FULLM);
            x = y + __shfl_sync(FULLM, L, y);
            if (x >= nv) break;
        }
        put_step<S>(out, sym, i0, onm, Mk & onm, L, d, b, D, M, st, lane);
        i0 += x;
    }
    return (st.T0 + 7) / 8 + st.psz;
}

/* Sub-chunk j of chunk c (blockIdx.y + ca) per warp: loaded (shuffled)
 * into the symbol buffer, then coded by enc_scan (windows of up to 256
 * symbols, the default) or, for larger windows, indexed with runs linked
 * as one (above) and parsed greedily (11.4) 32 positions at a time from
 * the current position i0: lane k finds the match at i0 + k; the tokens of
 * the parse are the lanes reached from lane 0 by the advances (1 for a
 * literal, L for a match); the next step starts at the end of the last
 * token. zsz: the body's size, or b when the body would not be smaller
 * than the raw bytes (the writer stores the sub-chunk). */
template <int S> __global__ void __launch_bounds__(NT, ENC_BLOCKS) k_lzenc(EParams p) {
    typedef typename SymT<S>::T T;
    extern __shared__ __align__(16) uint8_t lsm[];
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t c = p.ca + blockIdx.y;
    const uint64_t j = (uint64_t)blockIdx.x * WPB + w, R = chunk_raw_e(p, c), nsub = (R + p.B - 1) / p.B;
    if (j >= nsub) return;
    const uint64_t off = j * p.B;
    const uint32_t b = (uint32_t)(R - off < p.B ? R - off : p.B);
    const uint8_t *raw = p.src + (uint64_t)c * p.raw_full + off;
    uint16_t *head = reinterpret_cast<uint16_t *>(lsm + (uint64_t)w * 2 * HSIZE);
    uint8_t *buf = p.gbuf + ((uint64_t)(blockIdx.y) * p.nsub_full + j) * enc_bufsz(p.B, S); /* c - ca */
    const uint32_t n = b / S, t = b - n * S, W = p.W, M = p.M;
    const uint32_t K = M < 8 / S ? M : 8 / S;
    uint16_t *hp = reinterpret_cast<uint16_t *>(buf + p.B);
    const bool shuf = p.shuffle == LZSS_SHUFFLE_ON && p.E > 1;
    /* unshuffled symbols are read where they lie when they are aligned */
    const bool direct = !shuf && (reinterpret_cast<uintptr_t>(raw) & (S - 1)) == 0;
    if (!direct) load_sub(buf, raw, b, p.E, shuf, lane);
    for (uint32_t k = lane; k < HSIZE / 2; k += 32) reinterpret_cast<uint32_t *>(head)[k] = 0xffffffffu;
    __syncwarp();
    const uint8_t *sb = direct ? raw : buf;
    const T *sym = reinterpret_cast<const T *>(sb);
    uint8_t *out = p.gbody + ((uint64_t)c * p.nsub_full + j) * p.slot;
    uint32_t o;
    if (W <= WSCAN) {
        switch (K) { /* K <= 8 / S */
        case 1: o = enc_scan<S, 1>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        case 2: o = enc_scan<S, (S <= 4 ? 2 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        case 3: o = enc_scan<S, (S <= 2 ? 3 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        case 4: o = enc_scan<S, (S <= 2 ? 4 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        case 5: o = enc_scan<S, (S == 1 ? 5 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        case 6: o = enc_scan<S, (S == 1 ? 6 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        case 7: o = enc_scan<S, (S == 1 ? 7 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        default: o = enc_scan<S, (S == 1 ? 8 : 1)>(sym, hp, head, out, n, b, W, M, p.D, lane); break;
        }
    } else {
        o = enc_chain<S>(sym, hp, head, out, n, b, W, M, K, p.D, lane);
    }
    const bool stored = o + t >= b;
    if (!stored)
        for (uint32_t k = lane; k < t; k += 32) out[o + k] = sb[(uint64_t)n * S + k];
    if (lane == 0) p.zsz[(uint64_t)c * p.nsub_full + j] = stored ? b : o + t;
}

/* Per chunk: the end offsets (a scan of the body sizes), the payload size
 * and form (11.3: coded if smaller than the raw bytes). */
__global__ void __launch_bounds__(NT2) k_lzsize(EParams p) {
    typedef cub::BlockScan<uint64_t, NT2> Scan;
    __shared__ typename Scan::TempStorage ts;
    __shared__ uint64_t s_carry;
    const uint32_t c = p.ca + blockIdx.x;
    const uint64_t R = chunk_raw_e(p, c), nsub = (R + p.B - 1) / p.B;
    const uint64_t *z = p.zsz + (uint64_t)c * p.nsub_full;
    uint64_t *e = p.ends + (uint64_t)c * p.nsub_full;
    if (threadIdx.x == 0) s_carry = 0;
    __syncthreads();
    for (uint64_t j0 = 0; j0 < nsub; j0 += NT2) {
        const uint64_t j = j0 + threadIdx.x;
        const uint64_t v = j < nsub ? z[j] : 0;
        uint64_t incl, tot;
        Scan(ts).InclusiveSum(v, incl, tot);
        const uint64_t carry = s_carry;
        if (j < nsub) e[j] = carry + incl;
        __syncthreads();
        if (threadIdx.x == 0) s_carry = carry + tot;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const uint64_t coded = LZSS_PAYLOAD_HDR + 4 * nsub + s_carry;
        const bool st = coded >= R;
        p.chsize[c] = st ? R : coded;
        p.chinfo[c] = st ? LZSS_INFO_STORED : LZSS_INFO_CODED;
    }
}

/* Payload offsets of chunks [ca, cb): back to back after the chunks before. */
__global__ void k_lzoff(EParams p, uint32_t cb) {
    uint64_t o = p.ca ? p.choff[p.ca - 1] + p.chsize[p.ca - 1] : 0;
    for (uint32_t c = p.ca; c < cb; c++) {
        p.choff[c] = o;
        o += p.chsize[c];
    }
}

/* Sub-chunk j of chunk c per warp into the payload: the raw bytes of a
 * stored chunk; else the header (j = 0), the end offset and the body (the
 * raw bytes of a stored sub-chunk, unshuffled). */
__global__ void __launch_bounds__(NT) k_lzput(EParams p) {
    const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const uint32_t c = p.ca + blockIdx.y;
    const uint64_t j = (uint64_t)blockIdx.x * WPB + w, R = chunk_raw_e(p, c), nsub = (R + p.B - 1) / p.B;
    if (j >= nsub) return;
    const uint64_t off = j * p.B;
    const uint32_t b = (uint32_t)(R - off < p.B ? R - off : p.B);
    const uint8_t *raw = p.src + (uint64_t)c * p.raw_full + off;
    uint8_t *P = p.pay + p.choff[c];
    if (p.chinfo[c] == LZSS_INFO_STORED) {
        scz_ku::copy_bytes<32>(P + off, raw, b, lane);
        return;
    }
    const uint64_t *e = p.ends + (uint64_t)c * p.nsub_full;
    const uint64_t z = p.zsz[(uint64_t)c * p.nsub_full + j], start = j ? e[j - 1] : 0;
    if (j == 0 && lane < LZSS_PAYLOAD_HDR) {
        const uint32_t v[8] = {p.S, p.shuffle, p.lg, p.M, p.W & 255, (p.W >> 8) & 255, (p.W >> 16) & 255, p.W >> 24};
        P[lane] = (uint8_t)v[lane];
    }
    if (lane < 4) P[LZSS_PAYLOAD_HDR + 4 * j + lane] = (uint8_t)(e[j] >> (8 * lane));
    uint8_t *d = P + LZSS_PAYLOAD_HDR + 4 * nsub + start;
    if (z == b) scz_ku::copy_bytes<32>(d, raw, b, lane);
    else scz_ku::copy_bytes<32>(d, p.gbody + ((uint64_t)c * p.nsub_full + j) * p.slot, z, lane);
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

/* Chunks per k_lzenc / k_lzdec launch: as many as have sub-chunk buffers
 * of `per` bytes within SYM_SCRATCH (SCZ_LZSS_SYM_SCRATCH bytes if set:
 * tests use it to run several groups), at least one, at most n. */
uint32_t group_chunks(uint32_t n, uint64_t nsub_full, uint64_t per) {
    uint64_t cap = SYM_SCRATCH;
    const char *ev = getenv("SCZ_LZSS_SYM_SCRATCH");
    if (ev && *ev) cap = strtoull(ev, nullptr, 10);
    const uint64_t g = cap / (nsub_full * per ? nsub_full * per : 1);
    return g < 1 ? 1u : g < n ? (uint32_t)g : n;
}

/* Scratch: a flag per chunk, then a buffer per sub-chunk of a group of
 * chunks (group_chunks: at most SYM_SCRATCH, or one chunk): the decoded
 * symbols of shuffled streams before the unshuffle, read back through L1
 * by the matches. In shared memory (16 KiB a warp) they allowed 12 warps
 * per SM (H200, tiled wmag: decompression 207 -> 375 GB/s with 48). */
struct DLay {
    size_t cbad, gbuf, total;
    uint32_t group;
};
DLay dlay(const scz_cuda_batch *b) {
    const DParams p = dparams(b);
    scz_ku::Bump bp = {nullptr, 0};
    DLay L;
    L.group = group_chunks(b->n, p.nsub_full, p.B);
    L.cbad = bp.o;
    bp.take<uint32_t>(b->n);
    L.gbuf = bp.o;
    bp.take<uint8_t>((size_t)L.group * p.nsub_full * p.B);
    L.total = bp.o;
    return L;
}

template <int S> cudaError_t launch_dec(const DParams &p, dim3 grid, cudaStream_t s) {
    /* a quarter of the SM's memory as shared (the body windows), the rest L1 */
    cudaError_t e = cudaFuncSetAttribute(k_lzdec<S>, cudaFuncAttributePreferredSharedMemoryCarveout, 25);
    if (!e) k_lzdec<S><<<grid, NT, 0, s>>>(p);
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

/* Encoding scratch: body sizes and end offsets per sub-chunk, a body slot
 * per sub-chunk (B + 64 bytes: a body is abandoned once it reaches b), and
 * the symbols and links (enc_bufsz) of each sub-chunk of a group of chunks
 * (group_chunks): about 1x the batch's raw bytes plus at most SYM_SCRATCH
 * (or one chunk's 1.5x for 4-byte symbols, 2x for 2-byte ones). */
struct ELay {
    size_t zsz, ends, gbody, gbuf, total;
    uint64_t slot;
    uint32_t group; /* chunks per k_lzenc launch (group_chunks) */
};
ELay elay(const scz_cuda_batch *b) {
    const DParams p = dparams(b);
    const size_t subs = (size_t)b->n * p.nsub_full;
    scz_ku::Bump bp = {nullptr, 0};
    ELay L;
    L.slot = (p.B + 64 + 15) / 16 * 16;
    L.zsz = bp.o;
    bp.take<uint64_t>(subs);
    L.ends = bp.o;
    bp.take<uint64_t>(subs);
    L.gbody = bp.o;
    bp.take<uint8_t>(subs * L.slot);
    L.group = group_chunks(b->n, p.nsub_full, enc_bufsz(p.B, p.S));
    L.gbuf = bp.o;
    bp.take<uint8_t>((size_t)L.group * p.nsub_full * enc_bufsz(p.B, p.S));
    L.total = bp.o;
    return L;
}

template <int S> cudaError_t launch_enc(const EParams &p, dim3 grid, cudaStream_t s) {
    const size_t smem = (size_t)WPB * 2 * HSIZE;
    /* half of the SM's memory as L1: the symbols and links are read through it */
    cudaError_t e = cudaFuncSetAttribute(k_lzenc<S>, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
    if (!e) k_lzenc<S><<<grid, NT, smem, s>>>(p);
    return e;
}

static size_t lzss_cuda_scratch(const scz_cuda_batch *b, int dir) {
    if (!b->n) return 0;
    return dir == SCZ_CUDA_DECODE ? dlay(b).total : elay(b).total;
}

static cudaError_t lzss_cuda_encode(const scz_cuda_batch *b, uint32_t ca, uint32_t cb, const void *d_src,
                                    uint8_t *d_pay, uint64_t *choff, uint64_t *chsize, uint64_t *chinfo,
                                    void *scratch, cudaStream_t s) {
    if (ca >= cb || cb > b->n) return cudaErrorInvalidValue;
    const DParams q = dparams(b);
    const ELay L = elay(b);
    uint8_t *sc = static_cast<uint8_t *>(scratch);
    EParams p;
    memset(&p, 0, sizeof p);
    p.src = static_cast<const uint8_t *>(d_src);
    p.pay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.gbuf = sc + L.gbuf;
    p.gbody = sc + L.gbody;
    p.zsz = reinterpret_cast<uint64_t *>(sc + L.zsz);
    p.ends = reinterpret_cast<uint64_t *>(sc + L.ends);
    p.count_full = q.count_full;
    p.count_last = q.count_last;
    p.raw_full = q.raw_full;
    p.B = q.B;
    p.nsub_full = q.nsub_full;
    p.slot = L.slot;
    p.n = q.n;
    p.ca = ca;
    p.E = q.E;
    p.S = q.S;
    p.W = q.W;
    p.M = q.M;
    p.D = q.D;
    p.lg = q.lg;
    p.shuffle = q.shuffle;
    const dim3 grid((unsigned)((p.nsub_full + WPB - 1) / WPB), cb - ca);
    cudaError_t e = cudaSuccess;
    for (uint32_t g0 = ca; g0 < cb && !e; g0 += L.group) { /* chunk groups share the symbol scratch */
        EParams q = p;
        q.ca = g0;
        const dim3 gg(grid.x, cb - g0 < L.group ? cb - g0 : L.group);
        switch (p.S) {
        case 1: e = launch_enc<1>(q, gg, s); break;
        case 2: e = launch_enc<2>(q, gg, s); break;
        case 4: e = launch_enc<4>(q, gg, s); break;
        default: e = launch_enc<8>(q, gg, s); break;
        }
        if (!e) e = cudaGetLastError();
    }
    if (e) return e;
    k_lzsize<<<cb - ca, NT2, 0, s>>>(p);
    if ((e = cudaGetLastError())) return e;
    k_lzoff<<<1, 1, 0, s>>>(p, cb);
    if ((e = cudaGetLastError())) return e;
    k_lzput<<<grid, NT, 0, s>>>(p);
    return cudaGetLastError();
}

static cudaError_t lzss_cuda_decode(const scz_cuda_batch *b, const uint8_t *d_pay, const uint64_t *choff,
                                    const uint64_t *chsize, const uint64_t *chinfo, void *d_dst,
                                    unsigned long long *err, void *scratch, cudaStream_t s) {
    DParams p = dparams(b);
    const DLay L = dlay(b);
    uint8_t *sc = static_cast<uint8_t *>(scratch);
    p.cbad = reinterpret_cast<uint32_t *>(sc + L.cbad);
    p.gbuf = sc + L.gbuf;
    p.pay = d_pay;
    p.choff = choff;
    p.chsize = chsize;
    p.chinfo = chinfo;
    p.dst = static_cast<uint8_t *>(d_dst);
    p.err = err;
    k_lzchk<<<b->n, NTC, 0, s>>>(p);
    cudaError_t e = cudaGetLastError();
    if (e) return e;
    const unsigned gx = (unsigned)((p.nsub_full + WPB - 1) / WPB);
    for (uint32_t g0 = 0; g0 < b->n && !e; g0 += L.group) { /* chunk groups share the symbol scratch */
        DParams q = p;
        q.cg = g0;
        const dim3 gg(gx, b->n - g0 < L.group ? b->n - g0 : L.group);
        switch (p.S) {
        case 1: e = launch_dec<1>(q, gg, s); break;
        case 2: e = launch_dec<2>(q, gg, s); break;
        case 4: e = launch_dec<4>(q, gg, s); break;
        default: e = launch_dec<8>(q, gg, s); break;
        }
        if (!e) e = cudaGetLastError();
    }
    return e;
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

/* Listed in src/cuda/codecs_cuda.cu. */
extern const scz_cuda_codec_ops scz__lzss_cuda_ops = {
    SCZ_CODEC_LZSS,  lzss_cuda_check,      lzss_cuda_scratch, lzss_cuda_encode, lzss_cuda_decode,
    lzss_cuda_probe, lzss_cuda_error_text, nullptr,           nullptr,
    0, /* checksums before the decoder */
    nullptr, 0,
};

/*
 * warp_emu.cpp -- runs k_lzenc of src/lzss/lzss.cu on the CPU: one warp's
 * 32 lanes as 32 threads, the warp intrinsics it uses (ballot, shuffles,
 * match_any, reduce_or, syncwarp) emulated with a barrier, shared memory a
 * static buffer. Each sub-chunk's body and size are compared with the C
 * model (model.c, itself checked against the reference encoder). The
 * kernel's source is cut out of lzss.cu by run.sh (KERNEL_INC).
 *
 * usage: warp_emu FILE E S W M SHUFFLE LG [BYTES]   (M 0: the default)
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <barrier>
#include <vector>
#include <type_traits>
#include "lzss/lzss.h"
#include "lzss/lzss_walk.h"
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(x) alignas(x)
struct uint4 { uint32_t x, y, z, w; };
struct Dim { uint32_t x, y; };
thread_local Dim threadIdx, blockIdx;
static uint8_t g_smem[240000] alignas(16);
#define extern_shared_lsm uint8_t *lsm = g_smem;
static std::barrier<> *bar;
static uint64_t slots[32];
static inline uint32_t lane_id() { return threadIdx.x & 31; }
static inline void __syncwarp() { bar->arrive_and_wait(); }
static inline uint64_t xchg_all(uint64_t v, int src) { slots[lane_id()] = v; bar->arrive_and_wait(); uint64_t r = slots[src & 31]; bar->arrive_and_wait(); return r; }
static inline uint32_t __ballot_sync(uint32_t, bool p) { slots[lane_id()] = p; bar->arrive_and_wait(); uint32_t m = 0; for (int k = 0; k < 32; k++) if (slots[k]) m |= 1u << k; bar->arrive_and_wait(); return m; }
static inline uint32_t __reduce_or_sync(uint32_t, uint32_t v) { slots[lane_id()] = v; bar->arrive_and_wait(); uint32_t m = 0; for (int k = 0; k < 32; k++) m |= (uint32_t)slots[k]; bar->arrive_and_wait(); return m; }
static inline uint32_t __reduce_min_sync(uint32_t, uint32_t v) { slots[lane_id()] = v; bar->arrive_and_wait(); uint32_t m = 0xffffffffu; for (int k = 0; k < 32; k++) if ((uint32_t)slots[k] < m) m = (uint32_t)slots[k]; bar->arrive_and_wait(); return m; }
static inline uint32_t __match_any_sync(uint32_t, uint32_t v) { slots[lane_id()] = v; bar->arrive_and_wait(); uint32_t m = 0; for (int k = 0; k < 32; k++) if ((uint32_t)slots[k] == v) m |= 1u << k; bar->arrive_and_wait(); return m; }
template <typename X> static inline X __shfl_sync(uint32_t, X v, int src) { return (X)xchg_all((uint64_t)v, src); }
template <typename X> static inline X __shfl_up_sync(uint32_t, X v, unsigned d) { int l = lane_id(); return (X)xchg_all((uint64_t)v, l >= (int)d ? l - (int)d : l); }
static inline uint32_t __fns(uint32_t m, uint32_t base, int off) { for (uint32_t k = base; k < 32; k++) if (m >> k & 1) { if (--off == 0) return k; } return 0xffffffffu; }
static inline int __popc(uint32_t x) { return __builtin_popcount(x); }
static inline int __ffs(uint32_t x) { return x ? __builtin_ctz(x) + 1 : 0; }
static inline int __clz(uint32_t x) { return x ? __builtin_clz(x) : 32; }
template <typename X> static inline X __ldg(const X *p) { return *p; }
static inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) { uint64_t v = (uint64_t)y << 32 | x; uint32_t r = 0; for (int k = 0; k < 4; k++) { uint32_t n = (s >> (4 * k)) & 7; r |= (uint32_t)((v >> (8 * n)) & 255) << (8 * k); } return r; }
namespace {
constexpr uint32_t WPB = 4;
constexpr uint32_t NT = 32 * WPB;
constexpr uint64_t SMEM_B = 16384;
constexpr unsigned FULLM = 0xffffffffu;

#define __shared__
#include KERNEL_INC

}
extern "C" uint64_t model_body(const uint8_t *s, uint32_t n, uint32_t t, uint32_t S, uint32_t W, uint32_t M, uint8_t *out);
int main(int argc, char **argv) {
    // args: file E S W M shuffle lg
    FILE *f = fopen(argv[1], "rb"); fseek(f, 0, 2); uint64_t R = ftell(f); fseek(f, 0, 0);
    if (argc > 8 && strtoull(argv[8], 0, 10) < R) R = strtoull(argv[8], 0, 10);
    uint8_t *raw = (uint8_t *)aligned_alloc(64, R + 64); fread(raw, 1, R, f); fclose(f);
    uint32_t E = atoi(argv[2]), S = atoi(argv[3]), W = atoi(argv[4]), M = atoi(argv[5]), sh = atoi(argv[6]), lg = atoi(argv[7]);
    if (!M) M = lzss_default_minlen(S, W);
    R -= R % E;
    EParams p; memset(&p, 0, sizeof p);
    p.src = raw; p.B = (uint64_t)S << lg; p.nsub_full = (R + p.B - 1) / p.B; p.slot = (p.B + 64 + 15) / 16 * 16;
    p.count_full = p.count_last = R / E; p.raw_full = R; p.n = 1; p.ca = 0; p.E = E; p.S = S; p.W = W; p.M = M; p.D = lzss_dist_bytes(W); p.lg = lg; p.shuffle = sh;
    std::vector<uint8_t> gbody(p.nsub_full * p.slot), gbuf;
    std::vector<uint64_t> zsz(p.nsub_full);
    p.gbody = gbody.data(); p.zsz = zsz.data();
    gbuf.resize(p.nsub_full * enc_bufsz(p.B, S)); p.gbuf = gbuf.data();
    std::barrier<> b(32); bar = &b;
    std::vector<uint8_t> ref(p.B + 64), sb(p.B);
    int bad = 0;
    for (uint64_t j = 0; j < p.nsub_full; j++) {
        std::vector<std::thread> th;
        for (int l = 0; l < 32; l++) th.emplace_back([&, l] {
            threadIdx.x = (uint32_t)((j % WPB) * 32 + l); blockIdx.x = (uint32_t)(j / WPB); blockIdx.y = 0;
            switch (S) { case 1: k_lzenc<1>(p); break; case 2: k_lzenc<2>(p); break; case 4: k_lzenc<4>(p); break; default: k_lzenc<8>(p); }
        });
        for (auto &x : th) x.join();
        uint64_t off = j * p.B, bj = R - off < p.B ? R - off : p.B;
        const uint8_t *s = raw + off;
        if (sh == 2 && E > 1) { uint64_t m = bj / E; for (uint64_t el = 0; el < m; el++) for (uint32_t q = 0; q < E; q++) sb[q * m + el] = s[el * E + q]; s = sb.data(); }
        uint32_t n = (uint32_t)(bj / S);
        uint64_t z = model_body(s, n, (uint32_t)(bj - (uint64_t)n * S), S, W, M, ref.data());
        if (z >= bj) z = bj;
        if (z != zsz[j] || (z < bj && memcmp(ref.data(), gbody.data() + j * p.slot, z))) {
            uint64_t x = 0; while (x < z && ref[x] == gbody[j * p.slot + x]) x++;
            if (bad < 5) printf("sub %llu: size %llu vs emu %llu, first diff %llu\n", (unsigned long long)j, (unsigned long long)zsz[j], (unsigned long long)z, (unsigned long long)x);
            bad++;
        }
    }
    printf("%llu sub-chunks, %d differ\n", (unsigned long long)p.nsub_full, bad);
    return bad != 0;
}

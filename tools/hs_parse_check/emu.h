/*
 * emu.h -- one thread block of device code on the CPU, for
 * tools/hs_parse_check: every thread is a fiber on one OS thread (emu.cpp,
 * x86-64), switched only at block and warp barriers and warp intrinsics,
 * each of which is a barrier of the warp here (so the lanes of a warp
 * need not run in step between them). The next fiber to run: a random
 * runnable one of the first warp, in an order reshuffled at each block
 * barrier, that has one: a warp runs as far ahead as the barriers let it.
 * __shared__ data is static; atomics are plain operations.
 */
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <vector>
#include <random>

#define __device__
#define __host__
#define __global__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))

struct EmuIdx { unsigned x, y, z; };
extern EmuIdx threadIdx, blockIdx, blockDim;

namespace emu {
extern int nthreads;
void yield();
struct Group { int size = 0, arrived = 0; unsigned gen = 0; };
void group_wait(Group &g);
Group &block_group();
Group &warp_group(int w);
extern uint64_t xch[32][32];
extern unsigned tor_acc[3];
extern unsigned tor_gen_of[1024];
}

inline unsigned emu_lane() { return threadIdx.x & 31; }
inline unsigned emu_warp() { return threadIdx.x >> 5; }

inline void __syncthreads() { emu::group_wait(emu::block_group()); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::group_wait(emu::warp_group(emu_warp())); }
inline int __syncthreads_or(int p) {
    unsigned &g = emu::tor_gen_of[threadIdx.x];
    const unsigned k = g++ % 3;
    if (p) emu::tor_acc[k] = 1;
    __syncthreads();
    const int r = emu::tor_acc[k] != 0;
    if (threadIdx.x == 0) emu::tor_acc[(k + 2) % 3] = 0;
    return r;
}
template <typename T> inline T emu_xchg(T v, unsigned src) {
    const unsigned w = emu_warp(), l = emu_lane();
    uint64_t u = 0;
    memcpy(&u, &v, sizeof v);
    emu::xch[w][l] = u;
    __syncwarp();
    uint64_t r = emu::xch[w][src & 31];
    __syncwarp();
    T out;
    memcpy(&out, &r, sizeof out);
    return out;
}
template <typename T> inline T __shfl_sync(unsigned, T v, int src, int = 32) { return emu_xchg(v, (unsigned)src); }
template <typename T> inline T __shfl_up_sync(unsigned, T v, unsigned d, int = 32) {
    const unsigned l = emu_lane();
    return emu_xchg(v, l >= d ? l - d : l);
}
template <typename T> inline T __shfl_down_sync(unsigned, T v, unsigned d, int = 32) {
    const unsigned l = emu_lane();
    return emu_xchg(v, l + d < 32 ? l + d : l);
}
template <typename T> inline T __shfl_xor_sync(unsigned, T v, unsigned d, int = 32) { return emu_xchg(v, emu_lane() ^ d); }
inline unsigned __ballot_sync(unsigned, int p) {
    const unsigned w = emu_warp(), l = emu_lane();
    emu::xch[w][l] = p ? 1 : 0;
    __syncwarp();
    unsigned m = 0;
    for (int i = 0; i < 32; i++) m |= (unsigned)emu::xch[w][i] << i;
    __syncwarp();
    return m;
}
inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
inline int __all_sync(unsigned m, int p) { return __ballot_sync(m, p) == 0xffffffffu; }
inline unsigned __reduce_add_sync(unsigned, unsigned v) {
    const unsigned w = emu_warp(), l = emu_lane();
    emu::xch[w][l] = v;
    __syncwarp();
    unsigned s = 0;
    for (int i = 0; i < 32; i++) s += (unsigned)emu::xch[w][i];
    __syncwarp();
    return s;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    const uint64_t v = (uint64_t)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned sh) {
    sh &= 31;
    return sh ? (hi << sh) | (lo >> (32 - sh)) : hi;
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned sh) {
    if (sh > 32) sh = 32;
    const uint64_t v = ((uint64_t)hi << 32 | lo) << sh;
    return (unsigned)(v >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned sh) {
    sh &= 31;
    return sh ? (lo >> sh) | (hi << (32 - sh)) : lo;
}
inline unsigned atomicAdd(unsigned *p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { auto o = *p; *p = o + v; return o; }
inline int atomicOr(int *p, int v) { int o = *p; *p = o | v; return o; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
struct uint4 { unsigned x, y, z, w; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }

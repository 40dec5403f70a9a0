/* huff_limit.h -- the length limit of FORMAT.md 8.2 (JPEG Annex K.3) on a
 * count of leaves per depth, for the CPU (huffman.c) and the GPU
 * (huffman.cu's k_ebook).
 *
 * 8.2 moves one pair at a time: while B[l] > 0 for the deepest l above
 * the limit, with j the deepest level in [1, l - 2] that has leaves,
 * B[l] -= 2, B[l - 1] += 1, B[j + 1] += 2, B[j] -= 1. A deep tree's tail
 * takes hundreds of such moves, each with a search for j. This function
 * gives the same counts in O(depth) steps a level: the k = B[l] / 2 moves
 * of level l each add a leaf at l - 1, and on the levels 1 .. l - 2 (the
 * "pool") each is one operation on the pool's deepest leaf: a leaf at
 * l - 2 leaves the pool (it becomes two leaves at l - 1), any other splits
 * into two one level deeper. The deepest leaf is always taken, so the
 * operations take the pool's leaves apart one at a time, deepest first,
 * and a leaf a = l - 2 - d levels above l - 2 takes 2^(a + 1) - 1
 * operations (2^a leave the pool): whole leaves are counted off level by
 * level, and the last, partly taken leaf is followed down its halves
 * (a levels at most). A tree's deepest count is even (its Kraft sum is 1).
 * tests/test_huffman.c checks the result against single moves. Returns
 * the number of steps taken (for tests). */
#ifndef SCZ_HUFF_LIMIT_H
#define SCZ_HUFF_LIMIT_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SCZ_HLIM_HD __host__ __device__ __forceinline__
#else
#define SCZ_HLIM_HD static inline
#endif

/* Operations that take a leaf a levels above l - 2 out of the pool. */
SCZ_HLIM_HD uint64_t scz_huff_limit_cost(unsigned a) { return a >= 40 ? ~0ull : (2ull << a) - 1; }

SCZ_HLIM_HD uint32_t scz_huff_limit(uint32_t *B, unsigned maxd, unsigned lmax) {
    uint32_t steps = 0;
    for (unsigned l = maxd; l > lmax; l--) {
        const uint64_t k = B[l] / 2;
        uint64_t t = k, r = 0; /* operations left; leaves that left the pool */
        for (unsigned d = l - 2; t > 0 && d > 0; d--, steps++) {
            const unsigned a = l - 2 - d;
            const uint64_t C = scz_huff_limit_cost(a);
            uint64_t q = t / C;
            if (q > B[d]) q = B[d];
            B[d] -= (uint32_t)q;
            r += q << a; /* q > 0 only where C <= t, so a < 40 */
            t -= q * C;
            if (t == 0 || B[d] == 0) continue;
            /* one leaf at d, taken apart by t < C operations: split it,
             * take one half out whole where t allows, go on with the other */
            B[d] -= 1;
            unsigned e = d;
            while (t > 0) {
                t -= 1; /* the split: two leaves at e + 1 */
                e++;
                steps++;
                const uint64_t Ce = scz_huff_limit_cost(l - 2 - e);
                if (t >= Ce) { /* the first half leaves the pool; the second goes on */
                    t -= Ce;
                    r += 1ull << (l - 2 - e);
                    if (t == 0) B[e] += 1;
                } else { /* the first half goes on (or stays whole), the second stays */
                    B[e] += t == 0 ? 2 : 1;
                }
            }
        }
        B[l] -= (uint32_t)(2 * k);
        B[l - 1] += (uint32_t)(k + 2 * r);
        /* t > 0 here only where the pool ran out, which no tree (Kraft
         * sum 1) meets: the operations left with 8.2's j = 0, so that the
         * result stays defined (the writers share this function) */
        for (; t > 0; t--, steps++) {
            B[0] -= 1;
            B[1] += 2;
        }
    }
    return steps;
}

#endif

/* huff_rounds.h -- FORMAT.md 8.2's two-queue Huffman construction by
 * rounds, for a block of threads (huffman.cu's k_ebook) and, with one
 * thread, the CPU test that checks it (tests/test_huffman.c).
 *
 * The two-queue rule (leaves by (count, symbol) ascending, internal nodes
 * in creation order, the leaf taken on equal counts) takes the remaining
 * items in one merged order. A round: the two smallest items make s; every
 * remaining item of count <= s is taken before s (a leaf wins the tie;
 * every waiting internal node is <= s, since internal counts never
 * decrease), so these k items pair up in merged order, all pairs at once;
 * if k is odd, the last pairs with s itself. The new nodes join the queue
 * in creation order. The rounds make the same nodes in the same order as
 * one thread would (tools/huffman_rounds/model.py: 6-12 rounds median for
 * up to 4096 used symbols, where one thread makes m - 1 steps).
 *
 * A round's k items: the a leaves of count <= s after the first two picks
 * (a search; on the GPU by the whole block, scz_hr_block_bound) and every
 * waiting internal node (b of them); a leaf comes before the internal
 * nodes of a larger count and after those of a smaller one, so the k
 * items are the merge of two sorted lists, a leaf first on equal counts.
 * Each of the P threads merges an equal share of them, from the place
 * where its share starts (one search along the merge's diagonal,
 * scz_hr_place): a search per item was most of the time where the lists
 * live in global memory (65536 leaves: ~1.5 ms a block on an H100).
 *
 * Outputs as the one-thread merge: inner[j] the count of internal node j,
 * parent[j] the node that took internal node j, nl[j] its leaf children;
 * returns the number of internal nodes (m - 1). L: the m >= 2 leaf counts
 * ascending; ord: m words of scratch; st: state shared by the threads
 * (t of P; on the GPU every thread of the block, P = blockDim.x: the
 * barriers are the block's; in C one thread, t = 0, P = 1). */
#ifndef SCZ_HUFF_ROUNDS_H
#define SCZ_HUFF_ROUNDS_H

#include <stdint.h>

#if defined(__CUDACC__) /* device code only: the barrier is the block's */
#define SCZ_HR_HD __device__ __forceinline__
#define SCZ_HR_SYNC() __syncthreads()
#else
#define SCZ_HR_HD static inline
#define SCZ_HR_SYNC() ((void)0)
#endif

#define SCZ_HR_INNER 0x80000000u /* an item's tag: leaf i is i, internal node j is j | SCZ_HR_INNER */

typedef struct {
    uint32_t li, ij, kn;  /* the next leaf, the queue's head, the nodes made */
    uint32_t s, a, t0, t1; /* this round: s, the leaves <= s after the first two picks, those picks */
    uint32_t done;
} scz_hr_state;

/* The first index in [lo, hi) of the ascending x with x[i] > v (le: >=
 * v when !le, i.e. the first x[i] >= v). */
SCZ_HR_HD uint32_t scz_hr_bound(const uint32_t *x, uint32_t lo, uint32_t hi, uint32_t v, int le) {
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (le ? x[mid] <= v : x[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

SCZ_HR_HD uint32_t scz_hr_count(const uint32_t *L, const uint32_t *inner, uint32_t tag) {
    return tag & SCZ_HR_INNER ? inner[tag & ~SCZ_HR_INNER] : L[tag];
}

/* Node `node` from children x and y (tags). */
SCZ_HR_HD void scz_hr_make(const uint32_t *L, uint32_t *inner, uint32_t *parent, uint8_t *nl, uint32_t node,
                           uint32_t x, uint32_t y) {
    inner[node] = scz_hr_count(L, inner, x) + scz_hr_count(L, inner, y);
    uint32_t leaves = 0;
    if (x & SCZ_HR_INNER) parent[x & ~SCZ_HR_INNER] = node;
    else leaves++;
    if (y & SCZ_HR_INNER) parent[y & ~SCZ_HR_INNER] = node;
    else leaves++;
    nl[node] = (uint8_t)leaves;
}

/* Thread t of P: the merged order of the round's items ord[d] for d in
 * [k t / P, k (t + 1) / P), k = a + b: the leaves L[li .. li + a) and
 * internal nodes inner[ij .. ij + b), both ascending, a leaf first on
 * equal counts. The leaves among the first d0 items: the least i with
 * L[li + i] > inner[ij + d0 - i - 1] (a search along the diagonal). */
SCZ_HR_HD void scz_hr_place(const uint32_t *L, const uint32_t *inner, uint32_t *ord, uint32_t li, uint32_t a,
                            uint32_t ij, uint32_t b, uint32_t t, uint32_t P) {
    const uint32_t k = a + b;
    const uint32_t d0 = (uint32_t)((uint64_t)k * t / P), d1 = (uint32_t)((uint64_t)k * (t + 1) / P);
    if (d0 >= d1) return;
    uint32_t lo = d0 > b ? d0 - b : 0, hi = d0 < a ? d0 : a;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (L[li + mid] <= inner[ij + d0 - mid - 1]) lo = mid + 1;
        else hi = mid;
    }
    uint32_t i = lo, j = d0 - lo;
    uint32_t va = i < a ? L[li + i] : 0, vb = j < b ? inner[ij + j] : 0;
    for (uint32_t d = d0; d < d1; d++) {
        if (i < a && (j >= b || va <= vb)) {
            ord[d] = li + i++;
            va = i < a ? L[li + i] : 0;
        } else {
            ord[d] = SCZ_HR_INNER | (ij + j++);
            vb = j < b ? inner[ij + j] : 0;
        }
    }
}

#if defined(__CUDACC__)
/* scz_hr_bound over x[b + lo .. b + hi), relative to b, by every thread
 * of the block (P = blockDim.x; each gets the result): P-ary steps, each a
 * load a thread and a counting barrier (two steps for up to P * P
 * entries), where one thread's binary search is a chain of dependent
 * loads. The bound lies in [lo, hi]; thread t tests the entry at lo + t w. */
__device__ __forceinline__ uint32_t scz_hr_block_bound(const uint32_t *x, uint32_t b, uint32_t lo, uint32_t hi,
                                                       uint32_t v, int le, uint32_t t, uint32_t P) {
    while (lo < hi) {
        const uint32_t w = (hi - lo + P - 1) / P, i = b + (lo + t * w);
        const uint32_t c = (uint32_t)__syncthreads_count(t * w < hi - lo && (le ? x[i] <= v : x[i] < v));
        if (c == 0) {
            hi = lo;
        } else {
            const uint32_t e = lo + c * w; /* past v, or past hi */
            lo += (c - 1) * w + 1;
            hi = e < hi ? e : hi;
        }
    }
    return lo;
}
#endif

SCZ_HR_HD uint32_t scz_huff_rounds(const uint32_t *L, uint32_t m, uint32_t *inner, uint32_t *parent, uint8_t *nl,
                                   uint32_t *ord, scz_hr_state *st, uint32_t t, uint32_t P) {
    if (t == 0) st->li = st->ij = st->kn = 0;
    SCZ_HR_SYNC();
    for (;;) {
        if (t == 0) {
            uint32_t li = st->li, ij = st->ij;
            const uint32_t kn = st->kn;
            st->done = (m - li) + (kn - ij) <= 1;
            if (!st->done) {
                uint32_t tg[2], s = 0;
                for (int h = 0; h < 2; h++) {
                    if (li < m && (ij >= kn || L[li] <= inner[ij])) tg[h] = li++;
                    else tg[h] = SCZ_HR_INNER | ij++;
                    s += scz_hr_count(L, inner, tg[h]);
                }
                st->s = s, st->t0 = tg[0], st->t1 = tg[1];
#if !defined(__CUDACC__)
                st->a = scz_hr_bound(L, li, m, s, 1) - li; /* leaves <= s */
#endif
                st->li = li, st->ij = ij;
            }
        }
        SCZ_HR_SYNC();
        if (st->done) break;
        const uint32_t li = st->li, ij = st->ij, kn = st->kn, b = kn - ij;
#if defined(__CUDACC__)
        const uint32_t a = scz_hr_block_bound(L, li, 0, m - li, st->s, 1, t, P); /* leaves <= s */
#else
        const uint32_t a = st->a;
#endif
        const uint32_t k = a + b;
        /* the k items in merged order */
        scz_hr_place(L, inner, ord, li, a, ij, b, t, P);
        SCZ_HR_SYNC();
        /* node kn = s; then the pairs; an odd last item pairs with s */
        const uint32_t np = k / 2, odd = k & 1;
        if (t == 0) scz_hr_make(L, inner, parent, nl, kn, st->t0, st->t1);
        SCZ_HR_SYNC(); /* inner[kn] (s) is read by an odd pair */
        for (uint32_t q = t; q < np + odd; q += P) {
            if (q < np) scz_hr_make(L, inner, parent, nl, kn + 1 + q, ord[2 * q], ord[2 * q + 1]);
            else scz_hr_make(L, inner, parent, nl, kn + 1 + np, ord[k - 1], SCZ_HR_INNER | kn);
        }
        SCZ_HR_SYNC();
        if (t == 0) {
            st->li = li + a;
            st->ij = kn + odd; /* every waiting node was taken, and s too when k is odd */
            st->kn = kn + 1 + np + odd;
        }
        SCZ_HR_SYNC();
    }
    return st->kn;
}

#endif

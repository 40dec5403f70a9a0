/*
 * huffman.c -- canonical length-limited Huffman coding with a gap array
 * (docs/FORMAT.md sections 8.1-8.4): codebook construction, codebook
 * serialisation, parallel encoding and parallel, fully validating decoding.
 */
#include "huffman.h"
#include "huff_limit.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define U SCZ_HUFF_UNIT_BITS
#define G SCZ_HUFF_SEG_UNITS
#define LMAX SCZ_HUFF_MAX_LEN
#define TB SCZ_HUFF_TABLE_BITS

/* ------------------------------------------------------------------ */
/* Codebook construction (8.2)                                         */
/* ------------------------------------------------------------------ */

typedef struct hleaf {
    uint64_t cnt;
    uint32_t sym;
} hleaf;

/* Sorts leaves given in ascending symbol order by (count, symbol)
 * ascending (tmp holds m leaves). The order is total, so any stable sort
 * on the count gives it: an insertion sort for a few leaves, else an LSD
 * radix sort on the count with the digit width (4 .. 11 bits) of the
 * fewest bucket and leaf visits over all passes. */
static void leaves_asc(hleaf *lv, uint32_t m, hleaf *tmp) {
    if (m <= 24) {
        for (uint32_t i = 1; i < m; i++) {
            const hleaf x = lv[i];
            uint32_t j = i;
            for (; j > 0 && lv[j - 1].cnt > x.cnt; j--) lv[j] = lv[j - 1];
            lv[j] = x;
        }
        return;
    }
    uint64_t mx = 0;
    for (uint32_t i = 0; i < m; i++) mx |= lv[i].cnt;
    unsigned nb = 0; /* significant bits of the largest count */
    while (nb < 64 && (mx >> nb)) nb++;
    unsigned w = 11;
    uint64_t best = UINT64_MAX;
    for (unsigned d = 4; d <= 11; d++) {
        const uint64_t cost = (uint64_t)((nb + d - 1) / d) * (((uint64_t)1 << d) + 2 * (uint64_t)m);
        if (cost < best) best = cost, w = d;
    }
    const uint32_t nbk = 1u << w, mask = nbk - 1;
    hleaf *a = lv, *b = tmp;
    for (unsigned sh = 0; sh < nb; sh += w) {
        uint32_t c[2048];
        memset(c, 0, nbk * sizeof *c);
        for (uint32_t i = 0; i < m; i++) c[(a[i].cnt >> sh) & mask]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < nbk; d++) {
            uint32_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        for (uint32_t i = 0; i < m; i++) b[c[(a[i].cnt >> sh) & mask]++] = a[i];
        hleaf *t = a;
        a = b;
        b = t;
    }
    if (a != lv) memcpy(lv, a, (size_t)m * sizeof *lv);
}

/* The same leaves by (count descending, symbol ascending), from their
 * ascending order: runs of equal counts in reverse order. */
static void leaves_desc(hleaf *lv, uint32_t m, hleaf *tmp) {
    uint32_t o = 0;
    for (uint32_t e = m; e > 0;) {
        uint32_t b = e - 1;
        while (b > 0 && lv[b - 1].cnt == lv[e - 1].cnt) b--;
        for (uint32_t i = b; i < e; i++) tmp[o++] = lv[i];
        e = b;
    }
    memcpy(lv, tmp, (size_t)m * sizeof *lv);
}

size_t scz__huff_work_size(uint32_t K) {
    return (size_t)K * (sizeof(hleaf) + sizeof(uint64_t) + 2 * sizeof(uint32_t) + 2) + 64;
}

/* Canonical codes from lengths: codes of equal length are consecutive in
 * symbol order, shorter lengths first (deflate's rule). */
/* next[l] = the first code of length l, from the counts bl[] of each
 * length (bl[0], unused symbols, is ignored). */
static void first_codes(const uint32_t *bl, uint32_t *next) {
    uint32_t code = 0;
    next[0] = 0;
    for (unsigned l = 1; l <= LMAX; l++) {
        code = (code + (l > 1 ? bl[l - 1] : 0)) << 1;
        next[l] = code;
    }
}

static void assign_codes(scz_huff_enc *b) {
    uint32_t bl[LMAX + 2] = {0}, next[LMAX + 2];
    for (uint32_t s = 0; s < b->K; s++) bl[b->len[s]]++;
    first_codes(bl, next);
    b->used = 0;
    for (uint32_t s = 0; s < b->K; s++) {
        unsigned l = b->len[s];
        if (!l) {
            b->entry[s] = 0;
            continue;
        }
        b->entry[s] = next[l]++ << 5 | l;
        b->used++;
    }
}

static void build_lengths(const uint64_t *hist, uint32_t K, scz_huff_enc *book, void *work);

void scz__huff_build(const uint64_t *hist, uint32_t K, scz_huff_enc *book, void *work) {
    build_lengths(hist, K, book, work);
    assign_codes(book);
}

/* The code lengths of 8.2 into book->len (book->entry untouched). */
static void build_lengths(const uint64_t *hist, uint32_t K, scz_huff_enc *book, void *work) {
    book->K = K;
    memset(book->len, 0, K);
    hleaf *lv = work;
    uint64_t *icnt = (uint64_t *)(lv + K);
    uint32_t *parent = (uint32_t *)(icnt + K);   /* 2K node parents */
    uint8_t *depth = (uint8_t *)(parent + 2 * (size_t)K);
    uint32_t m = 0;
    for (uint32_t s = 0; s < K; s++)
        if (hist[s]) lv[m++] = (hleaf){hist[s], s};
    if (m == 0) return;
    if (m == 1) {
        book->len[lv[0].sym] = 1;
        return;
    }
    /* Two-queue Huffman: leaves by (count, symbol) ascending, internal nodes
     * in creation order; on equal counts the leaf is taken first. Nodes
     * 0..m-1 are the sorted leaves, m+k the k-th internal node. */
    leaves_asc(lv, m, (hleaf *)(void *)icnt); /* icnt and parent: 16 K bytes, free until the merge */
    uint32_t i = 0, j = 0, k = 0;
    for (uint32_t step = 0; step + 1 < m; step++) {
        uint32_t pick[2];
        uint64_t sum = 0;
        for (int h = 0; h < 2; h++) {
            if (i < m && (j >= k || lv[i].cnt <= icnt[j])) {
                pick[h] = i;
                sum += lv[i++].cnt;
            } else {
                pick[h] = m + j;
                sum += icnt[j++];
            }
        }
        icnt[k] = sum;
        parent[pick[0]] = parent[pick[1]] = m + k;
        k++;
    }
    uint32_t root = m + k - 1;
    depth[root] = 0;
    for (uint32_t nd = root; nd-- > 0;) depth[nd] = (uint8_t)(depth[parent[nd]] + 1);
    uint32_t bits[130] = {0};
    unsigned maxd = 0;
    for (uint32_t l = 0; l < m; l++) {
        bits[depth[l]]++;
        if (depth[l] > maxd) maxd = depth[l];
    }
    /* Length limit: move pairs of the deepest leaves up (JPEG Annex K.3),
     * which keeps the Kraft sum at exactly 1. */
    (void)scz_huff_limit(bits, maxd, LMAX); /* huff_limit.h: 8.2's single moves in batches */
    /* Lengths go to symbols by (count descending, symbol ascending): the
     * most frequent get the shortest. */
    leaves_desc(lv, m, (hleaf *)(void *)icnt); /* icnt, parent no longer needed */
    uint32_t at = 0;
    for (unsigned l = 1; l <= LMAX; l++)
        for (uint32_t c = 0; c < bits[l]; c++) book->len[lv[at++].sym] = (uint8_t)l;
}

/* ------------------------------------------------------------------ */
/* Codebook serialisation (8.3)                                        */
/* ------------------------------------------------------------------ */

/* Writes the code lengths of symbols 0..K-1 as runs; returns the bytes
 * (out may be NULL to count only). */
/* Length of the run of len[s] from s: 8 bytes at a time (long runs of
 * unused symbols are the rule in wide alphabets). */
static uint32_t run_from(const uint8_t *len, uint32_t s, uint32_t K) {
    const uint8_t v = len[s];
    uint32_t r = 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t bv = 0x0101010101010101ull * v;
    while (s + r + 8 <= K) {
        uint64_t w;
        memcpy(&w, len + s + r, 8);
        if (w ^ bv) return r + ((unsigned)__builtin_ctzll(w ^ bv) >> 3);
        r += 8;
    }
#endif
    while (s + r < K && len[s + r] == v) r++;
    return r;
}

static uint32_t cb_write(const uint8_t *len, uint32_t K, uint8_t *out) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < K;) {
        const uint32_t r = run_from(len, s, K);
        if (r <= 7) {
            if (out) out[n] = (uint8_t)((r - 1) << 5 | len[s]);
            n++;
        } else {
            if (out) {
                out[n] = (uint8_t)(7u << 5 | len[s]);
                n += (uint32_t)(scz__put_varint(out + n + 1, r - 8) - (out + n));
            } else {
                n += 1 + scz__varint_len(r - 8);
            }
        }
        s += r;
    }
    return n;
}

/* Parses a codebook into len[0..K); 0 on success, -1 if malformed. */
static int cb_read(const uint8_t *p, uint32_t n, uint32_t K, uint8_t *len) {
    const uint8_t *end = p + n;
    uint32_t s = 0;
    while (p < end) {
        uint8_t b = *p++;
        unsigned l = b & 31;
        uint64_t r = (b >> 5) + 1u;
        if (l > LMAX) return -1;
        if (r == 8) {
            uint64_t x;
            if (!(p = scz__get_varint(p, end, &x))) return -1;
            if (x > K) return -1;
            r = 8 + x;
        }
        if (r > K - s) return -1;
        memset(len + s, (int)l, (size_t)r);
        s += (uint32_t)r;
    }
    return s == K ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Histograms                                                          */
/* ------------------------------------------------------------------ */

/* Alphabets up to this size count with four interleaved counters (3 x 16
 * KiB of stack per thread). */
#define HIST_SPLIT_K 4096u

void scz__hist_ranges(const void *syms, int width, uint64_t n, int R, uint32_t K, uint32_t *hist,
                      uint64_t *range_start) {
    for (int r = 0; r <= R; r++) range_start[r] = n * (uint64_t)r / (uint64_t)R;
#pragma omp parallel for schedule(static, 1) num_threads(R) if (R > 1)
    for (int r = 0; r < R; r++) {
        uint32_t *h = hist + (size_t)r * K;
        memset(h, 0, (size_t)K * sizeof *h);
        uint64_t a = range_start[r], b = range_start[r + 1];
        if (K <= HIST_SPLIT_K && b - a >= 4 * (uint64_t)K) {
            /* three more interleaved counters: runs of one symbol do not
             * chain their increments through memory */
            uint32_t t[3][HIST_SPLIT_K];
            for (int q = 0; q < 3; q++) memset(t[q], 0, sizeof t[q][0] * K);
            uint64_t i = a;
            if (width == 1) {
                const uint8_t *s = syms;
                for (; i + 4 <= b; i += 4) {
                    h[s[i]]++;
                    t[0][s[i + 1]]++;
                    t[1][s[i + 2]]++;
                    t[2][s[i + 3]]++;
                }
                for (; i < b; i++) h[s[i]]++;
            } else {
                const uint16_t *s = syms;
                for (; i + 4 <= b; i += 4) {
                    const uint32_t s0 = s[i], s1 = s[i + 1], s2 = s[i + 2], s3 = s[i + 3];
                    if (s0 < K) h[s0]++;
                    if (s1 < K) t[0][s1]++;
                    if (s2 < K) t[1][s2]++;
                    if (s3 < K) t[2][s3]++;
                }
                for (; i < b; i++)
                    if (s[i] < K) h[s[i]]++;
            }
            for (uint32_t k = 0; k < K; k++) h[k] += t[0][k] + t[1][k] + t[2][k];
        } else if (width == 1) {
            const uint8_t *s = syms;
            for (uint64_t i = a; i < b; i++) h[s[i]]++;
        } else {
            const uint16_t *s = syms;
            for (uint64_t i = a; i < b; i++)
                if (s[i] < K) h[s[i]]++;
        }
    }
}

void scz__hist_reduce(const uint32_t *hist, int R, uint32_t K, uint64_t *total,
                      const scz_huff_enc *book, uint64_t *range_bits) {
    if (total) {
        for (uint32_t s = 0; s < K; s++) total[s] = 0;
        for (int r = 0; r < R; r++)
            for (uint32_t s = 0; s < K; s++) total[s] += hist[(size_t)r * K + s];
    }
    if (book && range_bits)
        for (int r = 0; r < R; r++) {
            uint64_t b = 0;
            const uint32_t *h = hist + (size_t)r * K;
            for (uint32_t s = 0; s < K; s++) b += (uint64_t)h[s] * book->len[s];
            range_bits[r] = b;
        }
}

/* ------------------------------------------------------------------ */
/* Stream layout                                                       */
/* ------------------------------------------------------------------ */

/* A stream's layout (8.4) from its bits and codebook bytes. */
static void hs_layout(scz_hs_info *f, uint32_t K, uint64_t count, uint64_t bits, uint32_t cb_bytes) {
    memset(f, 0, sizeof *f);
    f->K = K;
    f->count = count;
    f->total_bits = bits;
    f->cb_bytes = cb_bytes;
    f->n_units = (bits + U - 1) / U;
    f->n_segs = (f->n_units + G - 1) / G;
    f->n_words = (bits + 31) / 32;
    f->size = SCZ_HUFF_HDR_BYTES + f->cb_bytes + (f->n_units + 1) / 2 + 4 * f->n_segs + 4 * f->n_words;
}

/* Bytes of a maximal run of r equal lengths in the codebook (8.3). */
static uint32_t cb_run_bytes(uint32_t r) { return r <= 7 ? 1 : 1 + scz__varint_len(r - 8); }

uint64_t scz__hs_size_sparse(const uint32_t *sym, const uint64_t *hist, uint32_t m, uint32_t K, uint64_t count,
                             scz_huff_enc *book, void *work) {
    build_lengths(hist, m, book, work); /* the lengths depend on the symbols' order only */
    uint64_t bits = 0;
    for (uint32_t j = 0; j < m; j++) bits += hist[j] * book->len[j];
    uint32_t cb = 0;
    if (count) {
        /* the runs of the full alphabet: zeros between the listed symbols */
        uint32_t pos = 0, r = 0;
        int cur = -1;
#define CB_ADD(v, c)                                                                                       \
    do {                                                                                                   \
        if (c) {                                                                                           \
            if ((int)(v) == cur) r += (c);                                                                 \
            else {                                                                                         \
                if (cur >= 0) cb += cb_run_bytes(r);                                                       \
                cur = (int)(v), r = (c);                                                                   \
            }                                                                                              \
        }                                                                                                  \
    } while (0)
        for (uint32_t j = 0; j < m; j++) {
            CB_ADD(0, sym[j] - pos);
            CB_ADD(book->len[j], 1u);
            pos = sym[j] + 1;
        }
        CB_ADD(0, K - pos);
#undef CB_ADD
        if (cur >= 0) cb += cb_run_bytes(r);
    }
    scz_hs_info f;
    hs_layout(&f, K, count, bits, cb);
    return f.size;
}

void scz__huff_build_sparse(const uint32_t *sym, const uint64_t *hist, uint32_t m, uint32_t K, uint64_t count,
                            scz_huff_enc *book, void *work, scz_hs_info *f) {
    build_lengths(hist, m, book, work); /* lengths of the listed symbols, book->len[0..m) */
    uint8_t *l = work;                   /* free again */
    memcpy(l, book->len, m);
    book->K = K;
    memset(book->len, 0, K);
    uint32_t bl[LMAX + 2] = {0}, next[LMAX + 2];
    uint64_t bits = 0;
    for (uint32_t j = 0; j < m; j++) {
        book->len[sym[j]] = l[j];
        bl[l[j]]++;
        bits += hist[j] * l[j];
    }
    /* canonical codes (assign_codes) for the listed symbols, ascending */
    first_codes(bl, next);
    book->used = 0;
    for (uint32_t j = 0; j < m; j++)
        if (l[j]) {
            book->entry[sym[j]] = next[l[j]]++ << 5 | l[j];
            book->used++;
        }
    hs_layout(f, K, count, bits, count ? cb_write(book->len, K, NULL) : 0);
}

void scz__hs_plan(const scz_huff_enc *book, const uint64_t *hist, uint64_t count, scz_hs_info *f) {
    uint64_t bits = 0;
    for (uint32_t s = 0; s < book->K; s++) bits += hist[s] * book->len[s];
    hs_layout(f, book->K, count, bits, count ? cb_write(book->len, book->K, NULL) : 0);
}

typedef struct edge_word {
    uint64_t idx;
    uint32_t val;
} edge_word;

/* Encodes syms[a..b) starting at bit `start`. Words entirely inside the
 * range are stored; partial words at either end go to edges[] (<= 2).
 * Gaps and segment entries are written for the units [1, n_units) whose
 * start the range crosses or ends on: a stream ending exactly on a unit
 * boundary has no unit (and no segment) there. */
static int encode_range(const scz_huff_enc *book, const void *syms, int width, uint64_t a, uint64_t b,
                        uint64_t start, uint64_t n_units, uint8_t *words, uint8_t *gap_tmp,
                        uint8_t *segfirst, edge_word *edges) {
    int ne = 0;
    uint64_t acc = 0;
    unsigned nacc = (unsigned)(start & 31);
    uint64_t widx = start >> 5;
    uint64_t first_full = (start + 31) >> 5;
    uint64_t pos = start;
    uint64_t next_b = (start / U + 1) * U;
    const uint32_t *ent = book->entry;
    /* Until the range's first word is complete (it is shared with the
     * previous range: an edge word) a symbol flushes through a branch;
     * after it, every symbol stores the word being filled without a branch
     * on its length (the store is final only once 32 bits are in; an
     * earlier store of the same word is overwritten, and one of the last,
     * partial word is replaced by its edge below), which spares the
     * mispredicted flush branch of variable-length codes; two codes go in
     * per step (the chain through acc and nacc is the cost). Codes are at
     * most 16 bits, so nacc stays below 64. */
#define ENC_UNITS(i)                                                                  \
    if (pos >= next_b) {                                                              \
        uint64_t u = next_b / U;                                                      \
        if (u < n_units) {                                                            \
            gap_tmp[u] = (uint8_t)(pos - next_b);                                     \
            if (u % G == 0) scz__st32(segfirst + 4 * (u / G), (uint32_t)((i) + 1));   \
        }                                                                             \
        next_b += U;                                                                  \
    }
#define ENC_LOOP(TYPE)                                                                \
    do {                                                                              \
        const TYPE *s = syms;                                                         \
        uint64_t i = a;                                                               \
        for (; i < b && widx < first_full; i++) {                                     \
            uint32_t e = ent[s[i]];                                                   \
            unsigned l = e & 31;                                                      \
            acc = (acc << l) | (e >> 5);                                              \
            nacc += l;                                                                \
            pos += l;                                                                 \
            if (nacc >= 32) {                                                         \
                nacc -= 32;                                                           \
                edges[ne++] = (edge_word){widx, (uint32_t)(acc >> nacc)};             \
                widx++;                                                               \
            }                                                                         \
            ENC_UNITS(i)                                                              \
        }                                                                             \
        /* acc keeps the stream's last 64 bits (its low bit the last one   \
         * written): the last complete word, (pos >> 5) - 1, is            \
         * acc >> (pos & 31) and is stored after every step (again while   \
         * no other completes; words before first_full are edges, left to  \
         * the end), so only acc and pos chain from step to step */        \
        uint32_t spill_;                                                              \
        for (; i + 2 <= b; i += 2) { /* two codes (<= 32 bits) per step */           \
            const uint32_t e1 = ent[s[i]], e2 = ent[s[i + 1]];                        \
            const unsigned l1 = e1 & 31, l2 = e2 & 31, L = l1 + l2;                   \
            acc = (acc << L) | ((uint64_t)(e1 >> 5) << l2) | (e2 >> 5);               \
            const uint64_t pos1 = pos + l1;                                           \
            pos += L;                                                                 \
            const uint64_t wn = pos >> 5;                                             \
            uint8_t *wp = wn > first_full ? words + 4 * (wn - 1) : (uint8_t *)&spill_; \
            scz__st32(wp, (uint32_t)(acc >> (pos & 31)));                             \
            if (pos >= next_b) { /* a unit starts in this pair (L < U) */             \
                const int first = pos1 >= next_b;                                     \
                const uint64_t u = next_b / U;                                        \
                if (u < n_units) {                                                    \
                    gap_tmp[u] = (uint8_t)((first ? pos1 : pos) - next_b);            \
                    if (u % G == 0)                                                   \
                        scz__st32(segfirst + 4 * (u / G), (uint32_t)(i + (first ? 1 : 2))); \
                }                                                                     \
                next_b += U;                                                          \
            }                                                                         \
        }                                                                             \
        for (; i < b; i++) {                                                          \
            uint32_t e = ent[s[i]];                                                   \
            unsigned l = e & 31;                                                      \
            acc = (acc << l) | (e >> 5);                                              \
            pos += l;                                                                 \
            const uint64_t wn = pos >> 5;                                             \
            uint8_t *wp = wn > first_full ? words + 4 * (wn - 1) : (uint8_t *)&spill_; \
            scz__st32(wp, (uint32_t)(acc >> (pos & 31)));                             \
            ENC_UNITS(i)                                                              \
        }                                                                             \
        nacc = (unsigned)(pos & 31);                                                  \
        widx = pos >> 5;                                                              \
    } while (0)
    if (width == 1) ENC_LOOP(uint8_t);
    else ENC_LOOP(uint16_t);
#undef ENC_LOOP
#undef ENC_UNITS
    if (nacc > 0 && pos > start) edges[ne++] = (edge_word){widx, (uint32_t)(acc << (32 - nacc))};
    return ne;
}

void scz__hs_write(const scz_hs_info *f, const scz_huff_enc *book, const void *syms, int width,
                   int nranges, const uint64_t *range_start, const uint64_t *range_bits,
                   uint8_t *out, uint8_t *gap_tmp) {
    scz__st32(out, f->K);
    scz__st32(out + 4, (uint32_t)f->count);
    scz__st64(out + 8, f->total_bits);
    scz__st32(out + 16, f->cb_bytes);
    uint8_t *p = out + SCZ_HUFF_HDR_BYTES;
    if (f->count == 0) return;
    cb_write(book->len, book->K, p);
    p += f->cb_bytes;
    uint8_t *gaps = p;
    uint8_t *segfirst = gaps + (f->n_units + 1) / 2;
    uint8_t *words = segfirst + 4 * f->n_segs;

    /* bit offset of every range */
    enum { MAXR = 256 };
    uint64_t starts[MAXR + 1];
    edge_word edges[MAXR][2];
    int nedge[MAXR];
    uint64_t one_range[2];
    if (nranges > MAXR) { /* callers use one range per thread; more: encode serially */
        one_range[0] = range_start[0];
        one_range[1] = range_start[nranges];
        range_start = one_range;
        range_bits = NULL;
        nranges = 1;
    }
    uint64_t bitsum = 0;
    for (int r = 0; r < nranges; r++) {
        starts[r] = bitsum;
        uint64_t rb = 0;
        if (range_bits) rb = range_bits[r];
        else {
            const uint8_t *s8 = syms;
            const uint16_t *s16 = syms;
            for (uint64_t i = range_start[r]; i < range_start[r + 1]; i++)
                rb += book->len[width == 1 ? s8[i] : s16[i]];
        }
        bitsum += rb;
    }
    starts[nranges] = bitsum;
    if (f->n_units) gap_tmp[0] = 0;
    if (f->n_segs) scz__st32(segfirst, 0);
#pragma omp parallel for schedule(static, 1) num_threads(nranges) if (nranges > 1)
    for (int r = 0; r < nranges; r++)
        nedge[r] = encode_range(book, syms, width, range_start[r], range_start[r + 1], starts[r],
                                f->n_units, words, gap_tmp, segfirst, edges[r]);
    for (int r = 0; r < nranges; r++)
        for (int e = 0; e < nedge[r]; e++) scz__st32(words + 4 * edges[r][e].idx, 0);
    for (int r = 0; r < nranges; r++)
        for (int e = 0; e < nedge[r]; e++) {
            uint8_t *w = words + 4 * edges[r][e].idx;
            scz__st32(w, scz__ld32(w) | edges[r][e].val);
        }
    for (uint64_t u = 0; u < f->n_units; u += 2) {
        uint8_t lo = gap_tmp[u], hi = u + 1 < f->n_units ? gap_tmp[u + 1] : 0;
        gaps[u / 2] = (uint8_t)(lo | hi << 4);
    }
}

/* ------------------------------------------------------------------ */
/* Decoding (8.4)                                                      */
/* ------------------------------------------------------------------ */

/* Builds decoder tables from code lengths; -1 if the lengths do not form a
 * prefix code (Kraft sum above 1) or no symbol has a code. */
static int dec_build(scz_huff_dec *d, const uint8_t *len, uint32_t K) {
    d->K = K;
    memset(d->count, 0, sizeof d->count);
    for (uint32_t s = 0; s < K; s++) d->count[len[s]]++;
    d->count[0] = 0;
    uint64_t kraft = 0;
    uint32_t used = 0;
    for (unsigned l = 1; l <= LMAX; l++) {
        kraft += (uint64_t)d->count[l] << (LMAX - l);
        used += d->count[l];
    }
    if (kraft > ((uint64_t)1 << LMAX) || used == 0) return -1;
    uint32_t code = 0, off = 0;
    d->first[0] = 0;
    d->offset[0] = 0;
    for (unsigned l = 1; l <= LMAX; l++) {
        code = (code + d->count[l - 1]) << 1;
        d->first[l] = code;
        d->offset[l] = off;
        off += d->count[l];
    }
    uint32_t fill[LMAX + 2];
    memcpy(fill, d->offset, sizeof fill);
    for (uint32_t s = 0; s < K; s++)
        if (len[s]) d->sorted[fill[len[s]]++] = (uint16_t)s;
    memset(d->table, 0, sizeof d->table);
    for (unsigned l = 1; l <= TB; l++)
        for (uint32_t c = 0; c < d->count[l]; c++) {
            uint32_t cw = d->first[l] + c;
            uint32_t sym = d->sorted[d->offset[l] + c];
            uint32_t lo = cw << (TB - l), hi = (cw + 1) << (TB - l);
            for (uint32_t t = lo; t < hi; t++) d->table[t] = sym | l << 16;
        }
    return 0;
}

typedef struct hs_view {
    uint64_t count, total_bits, n_units, n_segs, n_words;
    const uint8_t *gaps, *segfirst, *words;
} hs_view;

static inline unsigned gap_of(const hs_view *v, uint64_t u) {
    return (v->gaps[u >> 1] >> ((u & 1) * 4)) & 15;
}

static inline uint32_t load_word(const hs_view *v, uint64_t wi) {
    return wi < v->n_words ? scz__ld32(v->words + 4 * wi) : 0;
}

/* Decodes the segments [sa, sb); returns 0 or -1 on any inconsistency. */
#define DEC_RANGE(NAME, TYPE)                                                                    \
    static int NAME(const hs_view *v, const scz_huff_dec *d, uint64_t sa, uint64_t sb, TYPE *out) { \
        uint64_t unit = sa * G;                                                                  \
        uint64_t pos = unit * U + gap_of(v, unit);                                               \
        uint64_t sym = scz__ld32(v->segfirst + 4 * sa);                                          \
        uint64_t end_sym = sb < v->n_segs ? scz__ld32(v->segfirst + 4 * sb) : v->count;          \
        uint64_t end_pos = sb < v->n_segs ? sb * G * U + gap_of(v, sb * G) : v->total_bits;       \
        if (sa == 0 && (pos != 0 || sym != 0)) return -1;                                        \
        if (sym > end_sym || end_sym > v->count || pos > end_pos || end_pos > v->total_bits)     \
            return -1;                                                                           \
        uint64_t next_b = (unit + 1) * U;                                                        \
        uint64_t wi = pos >> 5;                                                                  \
        uint64_t buf = 0;                                                                        \
        unsigned nb = 0;                                                                         \
        while (nb <= 32) {                                                                       \
            buf |= (uint64_t)load_word(v, wi++) << (32 - nb);                                    \
            nb += 32;                                                                            \
        }                                                                                        \
        buf <<= pos & 31;                                                                        \
        nb -= (unsigned)(pos & 31);                                                              \
        while (sym < end_sym) {                                                                  \
            if (nb < LMAX) {                                                                     \
                buf |= (uint64_t)load_word(v, wi++) << (32 - nb);                                \
                nb += 32;                                                                        \
            }                                                                                    \
            uint32_t e = d->table[buf >> (64 - TB)];                                             \
            unsigned l = e >> 16;                                                                \
            uint32_t s = e & 0xFFFF;                                                             \
            if (!l) {                                                                            \
                uint32_t c = (uint32_t)(buf >> (64 - LMAX));                                     \
                for (l = TB + 1; l <= LMAX; l++) {                                               \
                    uint32_t cl = c >> (LMAX - l);                                               \
                    if (cl - d->first[l] < d->count[l]) break;                                   \
                }                                                                                \
                if (l > LMAX) return -1;                                                         \
                s = d->sorted[d->offset[l] + (c >> (LMAX - l)) - d->first[l]];                   \
            }                                                                                    \
            buf <<= l;                                                                           \
            nb -= l;                                                                             \
            pos += l;                                                                            \
            out[sym++] = (TYPE)s;                                                                \
            if (pos >= next_b) {                                                                 \
                if (pos > v->total_bits) return -1;                                              \
                uint64_t u = next_b / U;                                                         \
                if (u < v->n_units) {                                                            \
                    if (gap_of(v, u) != pos - next_b) return -1;                                 \
                    if (u % G == 0 && scz__ld32(v->segfirst + 4 * (u / G)) != sym) return -1;    \
                }                                                                                \
                next_b += U;                                                                     \
            }                                                                                    \
        }                                                                                        \
        return pos == end_pos ? 0 : -1;                                                          \
    }
DEC_RANGE(dec_range8, uint8_t)
DEC_RANGE(dec_range16, uint16_t)
#undef DEC_RANGE

scz_status scz__hs_read(scz_ctx *ctx, const uint8_t *src, uint64_t avail, uint32_t K, uint64_t count,
                        scz_huff_dec *dec, void *out, int width, int threads, uint64_t *used) {
    if (avail < SCZ_HUFF_HDR_BYTES)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman stream truncated in its header");
    uint32_t k = scz__ld32(src), cnt = scz__ld32(src + 4), cbn = scz__ld32(src + 16);
    uint64_t bits = scz__ld64(src + 8);
    if (k != K || cnt != count)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman stream of %u symbols over %u, expected %llu over %u",
                         cnt, k, (unsigned long long)count, K);
    if (count == 0) {
        if (bits || cbn) return scz__fail(ctx, SCZ_ERR_CORRUPT, "empty Huffman stream with content");
        *used = SCZ_HUFF_HDR_BYTES;
        return SCZ_OK;
    }
    if (bits < count || bits > count * LMAX)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman stream: %llu bits for %llu symbols",
                         (unsigned long long)bits, (unsigned long long)count);
    hs_view v;
    v.count = count;
    v.total_bits = bits;
    v.n_units = (bits + U - 1) / U;
    v.n_segs = (v.n_units + G - 1) / G;
    v.n_words = (bits + 31) / 32;
    uint64_t need = (uint64_t)SCZ_HUFF_HDR_BYTES + cbn + (v.n_units + 1) / 2 + 4 * v.n_segs + 4 * v.n_words;
    if (need > avail)
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman stream needs %llu bytes, %llu present",
                         (unsigned long long)need, (unsigned long long)avail);
    const uint8_t *p = src + SCZ_HUFF_HDR_BYTES;
    if (K > SCZ_HUFF_MAX_K || cb_read(p, cbn, K, dec->len))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman codebook is malformed");
    if (dec_build(dec, dec->len, K))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman codebook is not a prefix code");
    p += cbn;
    v.gaps = p;
    v.segfirst = p + (v.n_units + 1) / 2;
    v.words = v.segfirst + 4 * v.n_segs;
    /* padding bits after the last codeword and an unused high gap nibble are zero */
    if ((bits & 31) && (scz__ld32(v.words + 4 * (v.n_words - 1)) & (0xFFFFFFFFu >> (bits & 31))))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman stream: non-zero padding bits");
    if ((v.n_units & 1) && (v.gaps[v.n_units / 2] >> 4))
        return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman stream: non-zero padding nibble");
    /* at least 4 segments (~16 KiB of bitstream) per thread: small streams
     * are not worth waking threads */
    int T = threads < 1 ? 1 : threads;
    if ((uint64_t)T > v.n_segs / 4) T = (int)(v.n_segs / 4);
    if (T < 1) T = 1;
    int bad = 0;
#pragma omp parallel for schedule(static, 1) num_threads(T) reduction(| : bad) if (T > 1)
    for (int t = 0; t < T; t++) {
        uint64_t sa = v.n_segs * (uint64_t)t / (uint64_t)T, sb = v.n_segs * (uint64_t)(t + 1) / (uint64_t)T;
        if (width == 1) bad |= dec_range8(&v, dec, sa, sb, out);
        else bad |= dec_range16(&v, dec, sa, sb, out);
    }
    if (bad) return scz__fail(ctx, SCZ_ERR_CORRUPT, "Huffman bitstream is corrupt");
    *used = need;
    return SCZ_OK;
}

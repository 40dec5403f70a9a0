/*
 * ref_codecs.c -- naive encoders written from docs/FORMAT.md alone (sections
 * 7 and 8), without the library's code: the codecs' payloads must be
 * byte-identical to them. Slow and simple on purpose.
 */
#include "ref_codecs.h"

#include "internal.h"
#include "lossy/lossy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double elem(scz_dtype t, const void *p, uint64_t i) {
    return t == SCZ_DTYPE_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

typedef struct rleaf {
    uint64_t c;
    uint32_t s;
} rleaf;
static int rleaf_up(const void *a, const void *b) {
    const rleaf *x = a, *y = b;
    return x->c != y->c ? (x->c < y->c ? -1 : 1) : (x->s < y->s ? -1 : x->s > y->s);
}
static int rleaf_down(const void *a, const void *b) {
    const rleaf *x = a, *y = b;
    return x->c != y->c ? (x->c > y->c ? -1 : 1) : (x->s < y->s ? -1 : x->s > y->s);
}

void bb_put(bytebuf *b, const void *src, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = 2 * (b->n + n) + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
void bb_u8(bytebuf *b, unsigned v) { uint8_t x = (uint8_t)v; bb_put(b, &x, 1); }
void bb_u32(bytebuf *b, uint64_t v) { for (int i = 0; i < 4; i++) bb_u8(b, (unsigned)(v >> (8 * i)) & 255); }
void bb_u64(bytebuf *b, uint64_t v) { for (int i = 0; i < 8; i++) bb_u8(b, (unsigned)(v >> (8 * i)) & 255); }
void bb_varint(bytebuf *b, uint64_t v) {
    do {
        bb_u8(b, (unsigned)(v & 127) | (v >= 128 ? 128 : 0));
        v >>= 7;
    } while (v);
}

/* 8.1-8.4: a Huffman stream of syms[0..count) over K symbols. */
void ref_hs(bytebuf *o, const uint16_t *syms, uint64_t count, uint32_t K) {
    uint64_t *c = calloc(K, sizeof *c);
    for (uint64_t i = 0; i < count; i++) c[syms[i]]++;
    uint8_t *len = calloc(K, 1);
    rleaf *lv = malloc(K * sizeof *lv);
    uint32_t m = 0;
    for (uint32_t s = 0; s < K; s++)
        if (c[s]) lv[m++] = (rleaf){c[s], s};
    if (m == 1) len[lv[0].s] = 1;
    if (m >= 2) {
        /* two queues; node depth by walking parents */
        qsort(lv, m, sizeof *lv, rleaf_up);
        uint64_t *w = malloc((2 * m) * sizeof *w);
        int64_t *par = malloc((2 * m) * sizeof *par);
        for (uint32_t i = 0; i < m; i++) w[i] = lv[i].c;
        uint32_t li = 0, ii = m, next = m;
        for (uint32_t k = 0; k + 1 < m; k++) {
            uint32_t a[2];
            for (int h = 0; h < 2; h++) {
                if (li < m && (ii == next || w[li] <= w[ii])) a[h] = li++;
                else a[h] = ii++;
            }
            w[next] = w[a[0]] + w[a[1]];
            par[a[0]] = par[a[1]] = next;
            next++;
        }
        uint32_t B[200] = {0}, maxd = 0;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t d = 0;
            for (uint32_t nd = i; nd != next - 1; nd = (uint32_t)par[nd]) d++;
            B[d]++;
            if (d > maxd) maxd = d;
        }
        for (uint32_t l = maxd; l > 16; l--)
            while (B[l] > 0) {
                uint32_t j = l - 2;
                while (B[j] == 0) j--;
                B[l] -= 2;
                B[l - 1] += 1;
                B[j + 1] += 2;
                B[j] -= 1;
            }
        qsort(lv, m, sizeof *lv, rleaf_down);
        uint32_t at = 0;
        for (uint32_t l = 1; l <= 16; l++)
            for (uint32_t k = 0; k < B[l]; k++) len[lv[at++].s] = (uint8_t)l;
        free(w);
        free(par);
    }
    uint32_t bl[18] = {0}, nx[18] = {0}, *code = calloc(K, 4);
    for (uint32_t s = 0; s < K; s++)
        if (len[s]) bl[len[s]]++;
    for (uint32_t l = 2; l <= 16; l++) nx[l] = (nx[l - 1] + bl[l - 1]) << 1;
    for (uint32_t s = 0; s < K; s++)
        if (len[s]) code[s] = nx[len[s]]++;
    uint64_t bits = 0;
    for (uint64_t i = 0; i < count; i++) bits += len[syms[i]];
    bytebuf cb = {0};
    for (uint32_t s = 0; s < K && count;) {
        uint32_t r = 1;
        while (s + r < K && len[s + r] == len[s]) r++;
        if (r <= 7) bb_u8(&cb, (r - 1) << 5 | len[s]);
        else {
            bb_u8(&cb, 7u << 5 | len[s]);
            bb_varint(&cb, r - 8);
        }
        s += r;
    }
    bb_u32(o, K);
    bb_u32(o, count);
    bb_u64(o, bits);
    bb_u32(o, cb.n);
    if (cb.n) bb_put(o, cb.p, cb.n);
    free(cb.p);
    if (count) {
        uint64_t nu = (bits + 1023) / 1024, ns = (nu + 31) / 32, nw = (bits + 31) / 32;
        uint64_t *start = malloc((count + 1) * 8);
        uint32_t *words = calloc(nw + 1, 4);
        uint64_t pos = 0;
        for (uint64_t i = 0; i < count; i++) {
            start[i] = pos;
            for (int b = len[syms[i]] - 1; b >= 0; b--, pos++)
                if ((code[syms[i]] >> b) & 1) words[pos / 32] |= 1u << (31 - pos % 32);
        }
        start[count] = bits;
        uint8_t *gaps = calloc(nu + 2, 1);
        uint32_t *seg = calloc(ns + 1, 4);
        uint64_t k = 0;
        for (uint64_t u = 0; u < nu; u++) {
            while (k < count && start[k] < u * 1024) k++;
            uint64_t g = (k < count ? start[k] : bits) - u * 1024;
            gaps[u / 2] |= (uint8_t)(g << (4 * (u & 1)));
            if (u % 32 == 0) seg[u / 32] = (uint32_t)k;
        }
        bb_put(o, gaps, (nu + 1) / 2);
        for (uint64_t j = 0; j < ns; j++) bb_u32(o, seg[j]);
        for (uint64_t j = 0; j < nw; j++) bb_u32(o, words[j]);
        free(start);
        free(words);
        free(gaps);
        free(seg);
    }
    free(c);
    free(len);
    free(lv);
    free(code);
}

/* Section 7: the payload of one chunk (3D dims nx, ny, nz as the chunk geometry). */
/* 7.5: whether the run-length workflow is evaluated (workflow knob wfreq,
 * or the auto rule against the codes' Huffman stream of total_bits) and,
 * if so, its section in rl: the run count, then the Huffman streams of the
 * run codes and of the run lengths - 1 (runs cut at 65536). */
static int ref_rle(bytebuf *rl, const uint16_t *codes, uint64_t n, uint32_t K, uint32_t wfreq, uint64_t total_bits) {
    uint64_t runs = 1;
    for (uint64_t i = 1; i < n; i++) runs += codes[i] != codes[i - 1];
    if (!(wfreq == 2 || (wfreq == 0 && (100 * total_bits <= 109 * n ||
                                        (double)runs * fmax(3.5, (double)total_bits / (double)n + 1.5) <
                                            (double)total_bits))))
        return 0;
    uint16_t *rv = malloc(2 * n), *rlen = malloc(2 * n);
    uint64_t nr = 0;
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i;
        while (j < n && codes[j] == codes[i] && j - i < 65536) j++;
        rv[nr] = codes[i];
        rlen[nr++] = (uint16_t)(j - i - 1);
        i = j;
    }
    bb_u32(rl, nr);
    ref_hs(rl, rv, nr, K);
    ref_hs(rl, rlen, nr, 65536);
    free(rv);
    free(rlen);
    return 1;
}

bytebuf ref_lossy(scz_dtype t, const void *data, const uint64_t dims[3], double eb, uint32_t r, uint32_t wfreq) {
    uint64_t e[3] = {1, 1, 1}, n = dims[0] * dims[1] * dims[2];
    unsigned rank = 0;
    for (int d = 0; d < 3; d++)
        if (dims[d] != 1) e[rank++] = dims[d];
    if (!rank) rank = 1;
    unsigned lb[3] = {0, 0, 0};
    for (unsigned d = 0; d < rank; d++) lb[d] = lz_block_log2[rank][d];
    uint64_t s[3], nb[3];
    for (int d = 0; d < 3; d++) {
        s[d] = (uint64_t)1 << lb[d];
        nb[d] = (e[d] + s[d] - 1) / s[d];
    }
    size_t es = scz_dtype_size(t);
    double h = 2 * eb, inv = h > 0 ? 1 / h : INFINITY, M = 6755399441055744.0;
    uint64_t *Q = calloc(n, 8);
    uint16_t *codes = malloc(2 * n);
    bytebuf outl = {0}, verb = {0};
    uint64_t n_out = 0, n_verb = 0, ci = 0, prev_out = 0, last_bits = 0;
    int have_last = 0;
    for (uint64_t bz = 0; bz < nb[2]; bz++)
        for (uint64_t by = 0; by < nb[1]; by++)
            for (uint64_t bx = 0; bx < nb[0]; bx++)
                for (uint64_t z = bz * s[2]; z < (bz + 1) * s[2] && z < e[2]; z++)
                    for (uint64_t y = by * s[1]; y < (by + 1) * s[1] && y < e[1]; y++)
                        for (uint64_t x = bx * s[0]; x < (bx + 1) * s[0] && x < e[0]; x++, ci++) {
                            uint64_t i = (z * e[1] + y) * e[0] + x;
                            double xv = elem(t, data, i);
                            double tt = xv * inv, tr = tt + M, qd = tr - M;
                            uint64_t btr, bm;
                            memcpy(&btr, &tr, 8);
                            memcpy(&bm, &M, 8);
                            double xr = t == SCZ_DTYPE_F32 ? (double)(float)(qd * h) : qd * h;
                            int verbatim = !(fabs(tt) < 1125899906842624.0) || !(fabs(xv - xr) <= eb);
                            /* Lorenzo over the block, zero outside it */
#define QN(dx, dy, dz) ((x >= bx * s[0] + dx && y >= by * s[1] + dy && z >= bz * s[2] + dz) ? Q[((z - dz) * e[1] + (y - dy)) * e[0] + (x - dx)] : 0)
                            uint64_t P = QN(1, 0, 0) + QN(0, 1, 0) + QN(0, 0, 1) - QN(1, 1, 0) - QN(1, 0, 1) - QN(0, 1, 1) + QN(1, 1, 1);
#undef QN
                            uint16_t code;
                            if (verbatim) {
                                Q[i] = P;
                                uint64_t bits = 0;
                                memcpy(&bits, (const uint8_t *)data + i * es, es);
                                if (have_last && bits == last_bits) code = (uint16_t)(2 * r + 1);
                                else {
                                    code = (uint16_t)(2 * r);
                                    bb_put(&verb, (const uint8_t *)data + i * es, es);
                                    n_verb++;
                                }
                                have_last = 1;
                                last_bits = bits;
                            } else {
                                Q[i] = btr - bm;
                                int64_t d = (int64_t)(Q[i] - P);
                                if (d > -(int64_t)r && d < (int64_t)r) code = (uint16_t)(d + r);
                                else {
                                    code = 0;
                                    bb_varint(&outl, ci - prev_out);
                                    bb_varint(&outl, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
                                    prev_out = ci + 1;
                                    n_out++;
                                }
                            }
                            codes[ci] = code;
                        }
    uint32_t K = 2 * r + 2;
    bytebuf hs = {0}, rl = {0};
    ref_hs(&hs, codes, n, K);
    unsigned wf = wfreq == 2 ? 2 : 1;
    if (ref_rle(&rl, codes, n, K, wfreq, scz__ld64(hs.p + 8)) && (wfreq == 2 || rl.n < hs.n)) wf = 2;
    bytebuf o = {0};
    bytebuf *cs = wf == 1 ? &hs : &rl;
    if (24 + cs->n + outl.n + verb.n >= 24 + n * es) {
        for (int k = 0; k < 24; k++) bb_u8(&o, 0);
        bb_put(&o, data, n * es);
    } else {
        bb_u8(&o, wf);
        bb_u8(&o, rank);
        for (int d = 0; d < 3; d++) bb_u8(&o, lb[d]);
        for (int k = 0; k < 3; k++) bb_u8(&o, 0);
        bb_u32(&o, n_out);
        bb_u32(&o, n_verb);
        bb_u64(&o, outl.n);
        bb_put(&o, cs->p, cs->n);
        if (outl.n) bb_put(&o, outl.p, outl.n);
        if (verb.n) bb_put(&o, verb.p, verb.n);
    }
    free(Q);
    free(codes);
    free(outl.p);
    free(verb.p);
    free(hs.p);
    free(rl.p);
    return o;
}


/* FORMAT.md 10: the gfc payload of a chunk of n values, value by value. */
bytebuf ref_gfc(scz_dtype t, const void *data, uint64_t n, uint32_t dim, uint32_t *info) {
    const unsigned E = t == SCZ_DTYPE_F32 ? 4 : 8, W = 8 * E;
    const uint64_t mask = W == 64 ? ~0ull : 0xFFFFFFFFull;
    const uint64_t K = (n + 31) / 32, S = (n + 1023) / 1024;
    /* the values, padded to whole subchunks (10.1) */
    uint64_t *x = calloc(K * 32 + 1, sizeof *x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t u = 0;
        memcpy(&u, (const uint8_t *)data + i * E, E);
        x[i] = u;
    }
    bytebuf table = {0}, seg = {0};
    uint64_t end = 0;
    for (uint64_t s = 0; s < S; s++) {
        size_t before = seg.n;
        for (uint64_t k = 32 * s; k < 32 * s + 32 && k < K; k++) {
            unsigned nib[32];
            bytebuf kept = {0};
            for (unsigned j = 0; j < 32; j++) {
                uint64_t i = 32 * k + j;
                uint64_t p = 32 * k - dim + j % dim; /* may wrap below 0: then p > i */
                uint64_t P = (p < i && p >= 1024 * s) ? x[p] : 0;
                if (i >= n) x[i] = P; /* padding: predicted perfectly */
                uint64_t r = (x[i] - P) & mask;
                unsigned g = (unsigned)(r >> (W - 1));
                uint64_t m = g ? ((0 - r) & mask) : r;
                unsigned z = 0;
                while (z < E && ((m >> (W - 8 - 8 * z)) & 255) == 0) z++;
                unsigned c;
                if (W == 64) c = z <= 5 ? z : z == 6 ? 5 : z - 1;
                else c = z;
                unsigned keep = W == 64 ? (c <= 5 ? 8 - c : c == 6 ? 1 : 0) : 4 - c;
                for (unsigned b = 0; b < keep; b++) bb_u8(&kept, (unsigned)(m >> (8 * b)) & 255);
                nib[j] = g * 8 + c;
            }
            for (unsigned b = 0; b < 16; b++) bb_u8(&seg, nib[2 * b] | nib[2 * b + 1] << 4);
            if (kept.n) bb_put(&seg, kept.p, kept.n);
            free(kept.p);
        }
        end += seg.n - before;
        bb_u32(&table, end);
    }
    free(x);
    bytebuf out = {0};
    if (table.n + seg.n >= n * E) { /* 10.6 */
        bb_put(&out, data, (size_t)(n * E));
        *info = 1;
    } else {
        bb_put(&out, table.p, table.n);
        if (seg.n) bb_put(&out, seg.p, seg.n);
        *info = 0;
    }
    free(table.p);
    free(seg.p);
    return out;
}

/* ---- FORMAT.md 7.9-7.10: the level-1 `lossy` payload ---- */

/* 7.9: linear (cubic = 0) or cubic prediction from the neighbours that
 * exist, binary64, every operation rounded (volatile: nothing fused) */
static double r1_interp(int cubic, double A, int hb, double B, int ha3, double A3, int hb3, double B3) {
    volatile double u, v, w;
    if (!hb) return A;
    if (cubic && ha3 && hb3) {
        u = A + B;
        v = A3 + B3;
        w = u * 9.0;
        w = w - v;
        return w * 0.0625;
    }
    if (cubic && hb3) {
        u = A * 3.0;
        v = B * 6.0;
        w = u + v;
        w = w - B3;
        return w * 0.125;
    }
    if (cubic && ha3) {
        u = A * 6.0;
        v = B * 3.0;
        w = u + v;
        w = w - A3;
        return w * 0.125;
    }
    u = A + B;
    return u * 0.5;
}

/* 7.9 residual quantization of x against P: *q, *xr (x'); 1 if verbatim */
static int r1_rquant_h(scz_dtype t, double x, double P, double h, double eb, int64_t *q, double *xr) {
    double inv = h > 0 ? 1 / h : INFINITY, M = 6755399441055744.0;
    volatile double dx = x - P, tt = dx * inv, tr = tt + M, qd = tr - M, y = qd * h, r = P + y;
    double trv = tr;
    uint64_t btr, bm;
    memcpy(&btr, &trv, 8);
    memcpy(&bm, &M, 8);
    *q = (int64_t)(btr - bm);
    *xr = t == SCZ_DTYPE_F32 ? (double)(float)r : r;
    return !(fabs(tt) < 1125899906842624.0) || !(fabs(x - *xr) <= eb);
}
static int r1_rquant(scz_dtype t, double x, double P, double eb, int64_t *q, double *xr) {
    return r1_rquant_h(t, x, P, 2 * eb, eb, q, xr);
}

static unsigned r1_bits(uint64_t v) {
    unsigned b = 0;
    while (v) b++, v >>= 1;
    return b;
}

/* 7.9 axis orders: rank 3 orders 0..5 sweep (0,1,2), (2,1,0), (0,2,1),
 * (1,0,2), (1,2,0), (2,0,1); rank 2 orders 0, 1: (0,1), (1,0); rank 1
 * orders 0, 1: (0) */
static unsigned r1_norders(unsigned rank) { return rank == 3 ? 6 : 2; }
static unsigned r1_perm(unsigned rank, unsigned ord, unsigned j) {
    static const unsigned p3[6][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}};
    if (rank == 3) return p3[ord][j];
    if (rank == 2) return ord ? 1 - j : j;
    return j;
}
/* place of axis k in the order (axes beyond the rank: last) */
static unsigned r1_pos(unsigned rank, unsigned ord, unsigned k) {
    for (unsigned j = 0; j < rank; j++)
        if (r1_perm(rank, ord, j) == k) return j;
    return k;
}

/* the axis of an element of the interpolation order ord (7.9): among the
 * non-zero coordinates with the fewest trailing zero bits, the one that
 * comes last in the order; 99 for element 0 */
static unsigned r1_axis(const uint64_t c[3], unsigned rank, unsigned ord, unsigned *tz) {
    unsigned a = 99;
    *tz = 99;
    for (unsigned k = 0; k < rank; k++)
        if (c[k]) {
            unsigned z = 0;
            while (!(c[k] >> z & 1)) z++;
            if (z < *tz || (z == *tz && r1_pos(rank, ord, k) > r1_pos(rank, ord, a))) *tz = z, a = k;
        }
    return a;
}

/* force: the predictor to use, or -1 for the writer's choice (7.10 step 1);
 * ford: the axis order with a forced interpolation predictor */
static bytebuf r1_lossy(scz_dtype t, const void *data, const uint64_t dims[3], double eb, uint32_t R, uint32_t wfreq,
                        int force, unsigned ford, unsigned ftight) {
    uint64_t e[3] = {1, 1, 1}, n = dims[0] * dims[1] * dims[2];
    unsigned rank = 0;
    for (int d = 0; d < 3; d++)
        if (dims[d] != 1) e[rank++] = dims[d];
    if (!rank) rank = 1;
    size_t es = scz_dtype_size(t);
    double h = 2 * eb, inv = h > 0 ? 1 / h : INFINITY, M = 6755399441055744.0;
    uint64_t *q = malloc(8 * n), *Q = malloc(8 * n), *ord = malloc(8 * n);
    uint8_t *V = malloc(n);
    for (uint64_t i = 0; i < n; i++) {
        double xv = elem(t, data, i);
        double tt = xv * inv, tr = tt + M, qd = tr - M;
        uint64_t btr, bm;
        memcpy(&btr, &tr, 8);
        memcpy(&bm, &M, 8);
        double xr = t == SCZ_DTYPE_F32 ? (double)(float)(qd * h) : qd * h;
        V[i] = !(fabs(tt) < 1125899906842624.0) || !(fabs(xv - xr) <= eb);
        q[i] = btr - bm;
    }
    uint64_t st[3] = {1, e[0], e[0] * e[1]};
    unsigned lb[3] = {0, 0, 0};
    for (unsigned d = 0; d < rank; d++) lb[d] = lz_block_log2[rank][d];
    /* 7.10 step 1: the predictor */
    uint64_t C[13] = {0}, S = 0; /* Lorenzo; linear, cubic of each order */
    const unsigned NO = r1_norders(rank);
    for (uint64_t i = 3; i < n; i += 37) {
        uint64_t c[3] = {i % e[0], (i / e[0]) % e[1], i / (e[0] * e[1])};
        int bad = V[i];
        uint64_t PL = 0;
        for (unsigned m = 1; m < (1u << rank); m++) { /* Lorenzo terms inside the block */
            int in = 1, odd = 0;
            uint64_t j = i;
            for (unsigned k = 0; k < rank; k++)
                if (m >> k & 1) {
                    if (c[k] % ((uint64_t)1 << lb[k]) == 0) in = 0;
                    j -= st[k];
                    odd ^= 1;
                }
            if (!in) continue;
            bad |= V[j];
            PL = odd ? PL + q[j] : PL - q[j];
        }
        unsigned tz;
        if (r1_axis(c, rank, 0, &tz) == 99) continue;
        int64_t qq[6][2];
        for (unsigned od = 0; od < NO && !bad; od++) {
            unsigned a = r1_axis(c, rank, od, &tz);
            uint64_t s = (uint64_t)1 << tz, ca = c[a], o = s * st[a];
            int hb = ca + s < e[a], ha3 = hb && ca >= 3 * s, hb3 = hb && ca + 3 * s < e[a];
            bad |= V[i - o] | (hb && V[i + o]) | (ha3 && V[i - 3 * o]) | (hb3 && V[i + 3 * o]);
            if (bad) break;
            /* neighbours as prequantization reconstructs them (7.3) */
#define XP(j) (t == SCZ_DTYPE_F32 ? (double)(float)((double)(int64_t)q[j] * h) : (double)(int64_t)q[j] * h)
            double A = XP(i - o), B = hb ? XP(i + o) : 0, A3 = ha3 ? XP(i - 3 * o) : 0, B3 = hb3 ? XP(i + 3 * o) : 0;
#undef XP
            double xr;
            bad |= r1_rquant(t, elem(t, data, i), r1_interp(0, A, hb, B, 0, 0, 0, 0), eb, &qq[od][0], &xr) ||
                   r1_rquant(t, elem(t, data, i), r1_interp(1, A, hb, B, ha3, A3, hb3, B3), eb, &qq[od][1], &xr);
        }
        if (bad) continue;
        uint64_t d[13] = {q[i] - PL};
        for (unsigned od = 0; od < NO; od++) d[1 + 2 * od] = (uint64_t)qq[od][0], d[2 + 2 * od] = (uint64_t)qq[od][1];
        S++;
        for (unsigned k = 0; k < 1 + 2 * NO; k++) {
            uint64_t zz = (d[k] << 1) ^ (uint64_t)((int64_t)d[k] >> 63);
            unsigned b = r1_bits(zz);
            C[k] += b ? 2 * b + 1 : 0;
        }
    }
    /* the smallest interpolation cost, ties: cubic 0, linear 0, cubic 1,
     * linear 1, cubic 2, ...; the trial's linear order: the smallest linear */
    unsigned pred = 0, order = 0, bp = 2, bo = 0, lo = 0;
    uint64_t cbest = C[2];
    for (unsigned od = 0; od < NO; od++) {
        if (C[2 + 2 * od] < cbest) cbest = C[2 + 2 * od], bp = 2, bo = od;
        if (C[1 + 2 * od] < cbest) cbest = C[1 + 2 * od], bp = 1, bo = od;
        if (C[1 + 2 * od] < C[1 + 2 * lo]) lo = od;
    }
    if (cbest < C[0]) pred = bp, order = bo;
    /* level bounds (byte 29): the estimate's interpolation cost below 3 per sample */
    unsigned tight = cbest < 3 * S;

    if (force >= 0) {
        pred = (unsigned)force;
        order = pred ? ford : 0;
        tight = ftight;
    } else if (pred == 0 && cbest <= 2 * C[0] && C[0] < 2 * S) { /* both payloads, the smaller */
        free(q), free(Q), free(ord), free(V);
        bytebuf a = r1_lossy(t, data, dims, eb, R, wfreq, 0, 0, 0),
                b = r1_lossy(t, data, dims, eb, R, wfreq, 1, lo, tight);
        if (b.n < a.n) {
            free(a.p);
            return b;
        }
        free(b.p);
        return a;
    }
    if (pred) lb[0] = lb[1] = lb[2] = 0;
    else tight = 0;
    /* code order; the sweeps' first positions */
    uint64_t no = 0, swst[101];
    unsigned nsw = 0, Lv = 0;
    if (!pred) {
        uint64_t s[3], nb[3];
        for (int d = 0; d < 3; d++) {
            s[d] = (uint64_t)1 << lb[d];
            nb[d] = (e[d] + s[d] - 1) / s[d];
        }
        for (uint64_t bz = 0; bz < nb[2]; bz++)
            for (uint64_t by = 0; by < nb[1]; by++)
                for (uint64_t bx = 0; bx < nb[0]; bx++)
                    for (uint64_t z = bz * s[2]; z < (bz + 1) * s[2] && z < e[2]; z++)
                        for (uint64_t y = by * s[1]; y < (by + 1) * s[1] && y < e[1]; y++)
                            for (uint64_t x = bx * s[0]; x < (bx + 1) * s[0] && x < e[0]; x++)
                                ord[no++] = (z * e[1] + y) * e[0] + x;
    } else {
        unsigned L = 0;
        for (unsigned k = 0; k < rank; k++)
            while (((uint64_t)1 << L) < e[k]) L++;
        Lv = L;
        ord[no++] = 0;
        for (int lv = (int)L - 1; lv >= 0; lv--) {
            uint64_t s = (uint64_t)1 << lv;
            for (unsigned j = 0; j < rank; j++) {
                unsigned a = r1_perm(rank, order, j);
                if (s >= e[a]) continue;
                swst[nsw++] = no; /* a sweep starts */
                for (uint64_t z = 0; z < e[2]; z++)
                    for (uint64_t y = 0; y < e[1]; y++)
                        for (uint64_t x = 0; x < e[0]; x++) {
                            uint64_t c[3] = {x, y, z};
                            int ok = c[a] % (2 * s) == s;
                            for (unsigned k = 0; k < rank; k++)
                                if (k != a)
                                    ok &= c[k] % (r1_pos(rank, order, k) < r1_pos(rank, order, a) ? s : 2 * s) == 0;
                            if (ok) ord[no++] = (z * e[1] + y) * e[0] + x;
                        }
            }
        }
    }
    swst[nsw] = n;
    /* 7.10 step 2: errors with radius R, then the chunk's radius */
    int64_t *dl = malloc(8 * n);
    double *Rd = malloc(8 * n);
    uint8_t *vv = malloc(n);
    uint64_t maxin = 0;
    for (uint64_t ci = 0; ci < n; ci++) {
        uint64_t i = ord[ci], c[3] = {i % e[0], (i / e[0]) % e[1], i / (e[0] * e[1])}, P = 0;
        if (!pred) {
            for (unsigned m = 1; m < 8; m++) {
                int in = 1, odd = 0;
                uint64_t j = i;
                for (unsigned k = 0; k < 3; k++)
                    if (m >> k & 1) {
                        if (c[k] % ((uint64_t)1 << lb[k]) == 0) in = 0;
                        j -= st[k];
                        odd ^= 1;
                    }
                if (in) P = odd ? P + Q[j] : P - Q[j];
            }
            Q[i] = V[i] ? P : q[i];
            dl[ci] = (int64_t)(Q[i] - P);
            vv[ci] = V[i];
        } else {
            double Pd = 0;
            if (ci) {
                unsigned tz, a = r1_axis(c, rank, order, &tz);
                uint64_t s = (uint64_t)1 << tz, ca = c[a], o = s * st[a];
                int hb = ca + s < e[a], ha3 = hb && ca >= 3 * s, hb3 = hb && ca + 3 * s < e[a];
                Pd = r1_interp(pred == 2, Rd[i - o], hb, hb ? Rd[i + o] : 0, ha3, ha3 ? Rd[i - 3 * o] : 0, hb3,
                               hb3 ? Rd[i + 3 * o] : 0);
            }
            /* the element's level: s = 2^tz (element 0: 2^L); step h / f_lv */
            unsigned tz = Lv;
            if (ci) r1_axis(c, rank, order, &tz);
            double f = 1.0;
            for (unsigned k = 0; k < tz && tight; k++) f = f * 1.25 > 2.0 ? 2.0 : f * 1.25;
            int64_t qq;
            double xr;
            vv[ci] = (uint8_t)r1_rquant_h(t, elem(t, data, i), Pd, h / f, eb, &qq, &xr);
            Rd[i] = vv[ci] ? Pd : xr;
            dl[ci] = vv[ci] ? 0 : qq;
        }
        if (!vv[ci] && dl[ci] > -(int64_t)R && dl[ci] < (int64_t)R) {
            uint64_t m = dl[ci] < 0 ? (uint64_t)-dl[ci] : (uint64_t)dl[ci];
            if (m > maxin) maxin = m;
        }
    }
    uint32_t r = (uint32_t)maxin + 1;
    uint16_t *codes = calloc(n ? n : 1, 2);
    bytebuf outl = {0}, verb = {0};
    uint64_t n_out = 0, n_verb = 0, prev_out = 0, last_bits = 0;
    int have_last = 0;
    for (uint64_t ci = 0; ci < n; ci++) {
        uint64_t i = ord[ci];
        if (vv[ci]) {
            uint64_t bits = 0;
            memcpy(&bits, (const uint8_t *)data + i * es, es);
            if (have_last && bits == last_bits) codes[ci] = (uint16_t)(2 * r + 1);
            else {
                codes[ci] = (uint16_t)(2 * r);
                bb_put(&verb, (const uint8_t *)data + i * es, es);
                n_verb++;
            }
            have_last = 1;
            last_bits = bits;
        } else if (dl[ci] > -(int64_t)r && dl[ci] < (int64_t)r) { /* (a verbatim element is coded above) */
            codes[ci] = (uint16_t)(dl[ci] + r);
        } else {
            codes[ci] = 0;
            bb_varint(&outl, ci - prev_out);
            bb_varint(&outl, ((uint64_t)dl[ci] << 1) ^ (uint64_t)(dl[ci] >> 63));
            prev_out = ci + 1;
            n_out++;
        }
    }
    /* 7.10 step 3: bodies, back end, workflow */
    uint32_t K = 2 * r + 2;
    bytebuf hs = {0}, rl = {0};
    ref_hs(&hs, codes, n, K);
    int try_h = wfreq != 2, try_r = ref_rle(&rl, codes, n, K, wfreq, scz__ld64(hs.p + 8));
    /* sweep streams (7.10 step 3): g = 0 .. min(S, 8) last sweeps in
     * streams of their own, the smallest sum of stream sizes */
    unsigned gs = 0;
    bytebuf hsw = {0};
    bb_put(&hsw, hs.p, hs.n);
    if (pred && try_h)
        for (unsigned gg = 1; gg <= nsw && gg <= 8; gg++) {
            bytebuf c = {0};
            uint64_t a = 0;
            for (unsigned j = 0; j <= gg; j++) {
                uint64_t b = swst[nsw - gg + j];
                ref_hs(&c, codes + a, b - a, K);
                a = b;
            }
            if (c.n < hsw.n) {
                free(hsw.p);
                hsw = c;
                gs = gg;
            } else {
                free(c.p);
            }
        }
    /* the run-length body only where its section is at most 21/20 of the Huffman section */
    if (try_r && wfreq == 0 && 20 * (uint64_t)rl.n > 21 * (uint64_t)hsw.n) try_r = 0;
    bytebuf body[2] = {{0}, {0}}, bend[2] = {{0}, {0}};
    uint64_t fin[2] = {UINT64_MAX, UINT64_MAX};
    int use_be[2] = {0, 0};
    for (int w = 0; w < 2; w++) {
        if (!(w ? try_r : try_h)) continue;
        bytebuf *b = &body[w];
        bb_put(b, w ? rl.p : hsw.p, w ? rl.n : hsw.n);
        if (outl.n) bb_put(b, outl.p, outl.n);
        if (verb.n) bb_put(b, verb.p, verb.n);
        if (b->n > 2 * n * es) continue; /* above twice the raw chunk: not formed, no part in the choice */
        fin[w] = 32 + b->n;
        if (b->n >= 1 && b->n <= 4294967294u) {
            uint16_t *sy = malloc(2 * b->n);
            for (size_t k = 0; k < b->n; k++) sy[k] = b->p[k];
            ref_hs(&bend[w], sy, b->n, 256);
            free(sy);
            if (bend[w].n < b->n) use_be[w] = 1, fin[w] = 32 + bend[w].n;
        }
    }
    int w = fin[1] < fin[0];
    bytebuf o = {0};
    if (fin[w] >= 24 + n * es) {
        for (int k = 0; k < 24; k++) bb_u8(&o, 0);
        bb_put(&o, data, n * es);
    } else {
        bb_u8(&o, w ? 2 : 1);
        bb_u8(&o, rank);
        for (int d = 0; d < 3; d++) bb_u8(&o, lb[d]);
        bb_u8(&o, pred);
        bb_u8(&o, use_be[w]);
        bb_u8(&o, order);
        bb_u32(&o, n_out);
        bb_u32(&o, n_verb);
        bb_u64(&o, outl.n);
        bb_u32(&o, r);
        bb_u8(&o, w ? 0 : gs);
        bb_u8(&o, tight);
        bb_u8(&o, 0);
        bb_u8(&o, 0);
        if (use_be[w]) bb_put(&o, bend[w].p, bend[w].n);
        else bb_put(&o, body[w].p, body[w].n);
    }
    for (int k = 0; k < 2; k++) free(body[k].p), free(bend[k].p);
    free(q), free(Q), free(ord), free(V), free(dl), free(codes), free(Rd), free(vv);
    free(outl.p), free(verb.p), free(hs.p), free(hsw.p), free(rl.p);
    return o;
}

bytebuf ref_lossy1(scz_dtype t, const void *data, const uint64_t dims[3], double eb, uint32_t R, uint32_t wfreq) {
    return r1_lossy(t, data, dims, eb, R, wfreq, -1, 0, 0);
}

/* model.c -- a C model of the GPU lzss encoder of src/lzss/lzss.cu (the
 * index of hash links with runs linked as one, the match finder, the parse
 * 32 positions at a time), checked against the reference encoder
 * (tests/support/ref_lzss.c) byte for byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref_lzss.h"

#define HB 11
#define HSZ (1u << HB)
#define NONE 0xFFFFu

typedef struct { uint32_t S, W, M, D, K; } Par;
static const uint8_t *gs; static uint32_t gS;
static inline uint64_t sym(uint32_t i) { uint64_t v = 0; memcpy(&v, gs + (uint64_t)i * gS, gS); return v; }
static inline int keyeq(uint32_t a, uint32_t b, uint32_t K) { return !memcmp(gs + (uint64_t)a * gS, gs + (uint64_t)b * gS, K * gS); }
static inline uint32_t khash(uint32_t i, uint32_t K) {
    uint64_t v = 0; memcpy(&v, gs + (uint64_t)i * gS, K * gS);
    uint32_t x = (uint32_t)v ^ ((uint32_t)(v >> 32) * 0x85EBCA6Bu);
    return (x * 0x9E3779B1u) >> (32 - HB);
}
static long st_steps, st_lcp, st_batches, st_warp, st_syms, st_runs;

static uint16_t hp[65536];
static void build(uint32_t n, const Par *P) {
    static uint16_t head[HSZ];
    for (uint32_t h = 0; h < HSZ; h++) head[h] = NONE;
    uint32_t rs = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i + P->K > n) { hp[i] = 0; continue; }
        int interior = i >= 1 && keyeq(i - 1, i, P->K);
        if (!interior) rs = i;
        uint32_t h = khash(i, P->K);
        uint32_t pv = head[h];
        hp[i] = interior ? (uint16_t)(i - rs) : (pv == NONE ? 0 : (uint16_t)(i - pv));
        head[h] = (uint16_t)i;
    }
}
static inline int interior_at(uint32_t p, uint32_t K) { return p >= 1 && keyeq(p - 1, p, K); }

/* LCP of positions q and i from k0 up to cap */
static uint32_t lcp(uint32_t q, uint32_t i, uint32_t k0, uint32_t cap, long *cost) {
    uint32_t k = k0;
    while (k < cap && sym(q + k) == sym(i + k)) k++;
    *cost += (k - k0) + 1;
    return k;
}

/* Best match at i: Lb (>= M: match, d = *bd) ; Rc: run remainder at i capped at cap (precomputed) */
static uint32_t walk(uint32_t i, uint32_t n, const Par *P, uint32_t Rc, uint32_t *bd, long *cost) {
    const uint32_t M = P->M, K = P->K;
    uint32_t cap = n - i < M + 255 ? n - i : M + 255;
    *bd = 0;
    if (cap < M) return 0;
    uint32_t Lb = M - 1, d = 0;
    const uint32_t lo = i > P->W ? i - P->W : 0;
    uint32_t p;
    if (hp[i] == 0) return 0;  /* no earlier position with this hash (i + K <= n here) */
    p = i - hp[i];
    if (interior_at(i, K)) {
        /* own run [p, i): d = 1 gives Rc, the rest of the run no more */
        if (Rc > Lb) { Lb = Rc; d = 1; }
        if (Lb == cap || p < lo || hp[p] == 0) goto done;
        p = p - hp[p];
    }
    for (;;) {
        if (p < lo) break;
        (*cost)++;
        st_steps++;
        if (interior_at(p, K)) {
            const uint32_t a = p - hp[p], re = p + K;
            if (sym(p) == sym(i) && Rc >= K) {
                st_runs++;
                const uint32_t lo2 = a > lo ? a : lo;
                uint32_t q, L;
                if (Rc == cap) {
                    if (re >= cap && re - cap >= lo2) { q = re - cap; L = cap; }
                    else { q = lo2; L = re - lo2; }
                } else {
                    if (re >= Rc && re - Rc >= lo2) { q = re - Rc; L = lcp(q, i, Rc, cap, cost); }
                    else { q = lo2; L = re - lo2; }
                }
                if (L > Lb) { Lb = L; d = i - q; if (Lb == cap) break; }
            }
            if (a < lo || hp[a] == 0) break;
            p = a - hp[a];
        } else {
            if (sym(p + Lb) == sym(i + Lb)) {
                uint32_t L = lcp(p, i, 0, cap, cost);
                st_lcp++;
                if (L > Lb) { Lb = L; d = i - p; if (Lb == cap) break; }
            }
            if (hp[p] == 0) break;
            p = p - hp[p];
        }
    }
done:
    *bd = d;
    return Lb >= M ? Lb : 0;
}

/* body of symbols (n of S bytes) + t trailing bytes into out; returns size or b when stored */
static uint64_t body(const uint8_t *s, uint32_t n, uint32_t t, const Par *P, uint8_t *out) {
    gs = s; gS = P->S;
    const uint32_t S = P->S, M = P->M, Pb = P->D + 1;
    const uint64_t b = (uint64_t)n * S + t;
    build(n, P);
    uint32_t i0 = 0, T0 = 0; uint64_t psz0 = 0; uint32_t carry = 0, fo_open = 0;
    uint32_t L[32], dd[32], Rc[32];
    while (i0 < n) {
        if ((T0 + 7) / 8 + psz0 >= b) return b;
        st_batches++;
        /* run remainders: lane k: s[i..] equal to s[i] */
        uint32_t ER = 0;
        for (int k = 0; k < 32; k++) { uint32_t i = i0 + k; if (i + 1 < n && sym(i) == sym(i + 1)) ER |= 1u << k; }
        uint32_t R31 = 0;
        if (ER >> 31) { /* run continues past the batch: cooperative count from i0 + 31 */
            uint32_t i = i0 + 31, lim = n - i < M + 255 ? n - i : M + 255; /* at most cap at lane 31 */
            uint32_t r = 1; while (r < lim && sym(i + r) == sym(i)) r++;
            R31 = r;
        }
        long wmax = 0;
        for (int k = 0; k < 32; k++) {
            uint32_t i = i0 + k;
            if (i >= n) { L[k] = 0; continue; }
            uint32_t cap = n - i < M + 255 ? n - i : M + 255;
            uint32_t xx = ~(ER >> k); uint32_t ones = xx ? (uint32_t)__builtin_ctz(xx) : 32u; /* consecutive ones from bit k */
            /* careful: ~(ER>>k) has high bits set for shifted-in zeros: fine */
            uint32_t R;
            if (k + ones >= 32) R = (31 - k) + R31; else R = ones + 1;
            Rc[k] = R < cap ? R : cap;
            long c = 0;
            L[k] = walk(i, n, P, Rc[k], &dd[k], &c);
            if (c > wmax) wmax = c;
        }
        st_warp += wmax + 8;
        /* path from lane 0 */
        uint32_t on = 0, mm = 0, lane = 0, endpos = i0;
        while (lane < 32 && i0 + lane < n) {
            on |= 1u << lane;
            uint32_t adv = L[lane] >= M ? L[lane] : 1;
            if (L[lane] >= M) mm |= 1u << lane;
            endpos = i0 + lane + adv;
            lane += adv;
        }
        uint32_t lm = on & ~mm;
        /* tokens */
        uint32_t mseq = 0;
        for (int k = 0; k < 32; k++) if (on >> k & 1) { uint32_t rank = __builtin_popcount(on & ((1u << k) - 1)); if (mm >> k & 1) mseq |= 1u << rank; }
        uint32_t r0 = T0 & 7;
        uint64_t seq = carry | ((uint64_t)mseq << r0);
        for (int k = 0; k < 32; k++) {
            if (!(on >> k & 1)) continue;
            uint32_t lt = (1u << k) - 1, rank = __builtin_popcount(on & lt), t = T0 + rank;
            uint64_t off = t / 8 + 1 + psz0 + (uint64_t)Pb * __builtin_popcount(mm & lt) + (uint64_t)S * __builtin_popcount(lm & lt);
            int ism = mm >> k & 1;
            uint32_t sz = ism ? Pb : S;
            if (off + sz <= b) {
                if (ism) { uint32_t d1 = dd[k] - 1; out[off] = (uint8_t)d1; if (P->D == 2) out[off + 1] = (uint8_t)(d1 >> 8); out[off + P->D] = (uint8_t)(L[k] - M); }
                else memcpy(out + off, s + (uint64_t)(i0 + k) * S, S);
            }
            if (t % 8 == 0) { uint64_t fo = off - 1; if (fo < b) out[fo] = (uint8_t)(seq >> (8 * (t / 8 - T0 / 8))); }
            else if (rank == 0) { if (fo_open < b) out[fo_open] = (uint8_t)seq; }
            if (t % 8 == 0) { /* record the open group's flag offset */ }
        }
        uint32_t c = __builtin_popcount(on), tend = T0 + c;
        /* new open group */
        if (tend % 8) {
            uint32_t gl = tend / 8; /* group of the last token */
            carry = (uint32_t)(seq >> (8 * (gl - T0 / 8))) & ((1u << (tend % 8)) - 1);
            if (gl * 8 >= T0) { /* the group started in this batch: its first token's offset - 1 */
                uint32_t rank = gl * 8 - T0; /* path rank */
                /* find the lane with that rank */
                for (int k = 0; k < 32; k++) if ((on >> k & 1) && (uint32_t)__builtin_popcount(on & ((1u << k) - 1)) == rank) {
                    uint32_t lt = (1u << k) - 1;
                    fo_open = (uint32_t)(gl + psz0 + (uint64_t)Pb * __builtin_popcount(mm & lt) + (uint64_t)S * __builtin_popcount(lm & lt));
                }
            }
        } else carry = 0;
        psz0 += (uint64_t)Pb * __builtin_popcount(mm) + (uint64_t)S * __builtin_popcount(lm);
        T0 = tend;
        i0 = endpos;
    }
    uint64_t o = (T0 + 7) / 8 + psz0;
    if (o + t >= b) return b;
    memcpy(out + o, s + (uint64_t)n * S, t);
    st_syms += n;
    return o + t;
}

static int check_chunk(const uint8_t *raw, uint64_t R, uint32_t E, const uint32_t k[6], const char *what) {
    Par P; P.S = k[0]; P.W = k[1]; P.M = k[2]; P.D = P.W <= 256 ? 1 : 2;
    P.K = P.M < 8 / P.S ? P.M : 8 / P.S;
    uint64_t B = (uint64_t)P.S << k[4];
    uint64_t rs; uint32_t ri;
    uint8_t *ref = ref_lzss_chunk(raw, R, E, k, &rs, &ri);
    uint64_t nsub = (R + B - 1) / B;
    uint8_t *pay = malloc(8 + 4 * nsub + R + 64), *sh = malloc(B), *tmp = malloc(B + 64);
    uint64_t data = 8 + 4 * nsub, e = 0;
    memcpy(pay, ref, 8);
    for (uint64_t j = 0; j < nsub; j++) {
        uint64_t off = j * B, b = R - off < B ? R - off : B;
        const uint8_t *s = raw + off;
        if (k[3] == 2 && E > 1) { uint64_t m = b / E; for (uint64_t el = 0; el < m; el++) for (uint32_t q = 0; q < E; q++) sh[q * m + el] = s[el * E + q]; s = sh; }
        uint32_t n = (uint32_t)(b / P.S);
        uint64_t z = body(s, n, (uint32_t)(b - (uint64_t)n * P.S), &P, tmp);
        if (z < b) memcpy(pay + data + e, tmp, z); else { z = b; memcpy(pay + data + e, raw + off, b); }
        e += z;
        for (int q = 0; q < 4; q++) pay[8 + 4 * j + q] = (uint8_t)(e >> (8 * q));
    }
    uint64_t tot = data + e; uint32_t info = tot < R;
    if (!info) { memcpy(pay, raw, R); tot = R; }
    int ok = tot == rs && info == ri && !memcmp(pay, ref, rs);
    if (!ok) {
        uint64_t x = 0; while (x < rs && x < tot && pay[x] == ref[x]) x++;
        printf("MISMATCH %s: size %llu vs ref %llu, first diff at %llu\n", what, (unsigned long long)tot, (unsigned long long)rs, (unsigned long long)x);
    }
    free(ref); free(pay); free(sh); free(tmp);
    return ok;
}
int model_check(const uint8_t *raw, uint64_t R, uint32_t E, const uint32_t k[6], const char *what) { return check_chunk(raw, R, E, k, what); }
void model_stats(void) {
    printf("batches %ld syms %ld steps %ld lcps %ld runs %ld warp-iters %ld (%.2f per sym)\n", st_batches, st_syms, st_steps, st_lcp, st_runs, st_warp, st_syms ? (double)st_warp / st_syms : 0);
    st_batches = st_syms = st_steps = st_lcp = st_runs = st_warp = 0;
}
uint64_t model_body(const uint8_t *s, uint32_t n, uint32_t t, uint32_t S, uint32_t W, uint32_t M, uint8_t *out) {
    Par P; P.S = S; P.W = W; P.M = M; P.D = W <= 256 ? 1 : 2; P.K = M < 8 / S ? M : 8 / S;
    return body(s, n, t, &P, out);
}

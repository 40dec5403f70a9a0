/*
 * ref_lzss.c -- naive reference encoder of the `lzss` codec (FORMAT.md
 * section 11): every distance of the window tried at every position,
 * symbol by symbol, exactly as 11.4 reads.
 */
#include "ref_lzss.h"

#include <stdlib.h>
#include <string.h>

static int sym_eq(const uint8_t *s, uint32_t S, uint64_t a, uint64_t b) {
    return memcmp(s + a * S, s + b * S, S) == 0;
}

/* Body of one sub-chunk (b bytes at raw) into out; returns its size. */
static uint64_t ref_body(const uint8_t *raw, uint64_t b, uint32_t E, const uint32_t *k, uint8_t *out) {
    const uint32_t S = k[0], W = k[1], M = k[2], shuffle = k[3];
    const uint32_t D = W <= 256 ? 1 : 2;
    uint8_t *s = malloc(b ? b : 1);
    if (shuffle == 2 && E > 1) {
        uint64_t m = b / E;
        for (uint64_t el = 0; el < m; el++)
            for (uint32_t p = 0; p < E; p++) s[p * m + el] = raw[el * E + p];
    } else {
        memcpy(s, raw, b);
    }
    const uint64_t n = b / S, t = b - n * S;
    uint64_t o = 0, flag = 0, ntok = 0, i = 0;
    while (i < n) {
        if (ntok % 8 == 0) {
            flag = o;
            out[o++] = 0;
        }
        uint64_t lcap = n - i < (uint64_t)M + 255 ? n - i : (uint64_t)M + 255;
        uint64_t best = 0, bestd = 0;
        for (uint64_t d = 1; d <= W && d <= i; d++) {
            uint64_t l = 0;
            while (l < lcap && sym_eq(s, S, i + l, i - d + l)) l++;
            if (l > best) {
                best = l;
                bestd = d;
            }
        }
        if (best >= M) {
            out[flag] |= (uint8_t)(1u << (ntok % 8));
            out[o++] = (uint8_t)((bestd - 1) & 0xFF);
            if (D == 2) out[o++] = (uint8_t)((bestd - 1) >> 8);
            out[o++] = (uint8_t)(best - M);
            i += best;
        } else {
            memcpy(out + o, s + i * S, S);
            o += S;
            i += 1;
        }
        ntok++;
    }
    memcpy(out + o, s + n * S, t);
    o += t;
    free(s);
    return o;
}

uint8_t *ref_lzss_chunk(const uint8_t *raw, uint64_t R, uint32_t E, const uint32_t k[6], uint64_t *size,
                        uint32_t *info) {
    const uint64_t B = (uint64_t)k[0] << k[4];
    const uint64_t nsub = (R + B - 1) / B;
    uint8_t *pay = malloc(8 + 4 * nsub + 3 * R + 64);
    uint8_t *tmp = malloc(3 * B + 64);
    if (!pay || !tmp) {
        free(pay);
        free(tmp);
        return NULL;
    }
    pay[0] = (uint8_t)k[0];
    pay[1] = (uint8_t)k[3];
    pay[2] = (uint8_t)k[4];
    pay[3] = (uint8_t)k[2];
    for (int q = 0; q < 4; q++) pay[4 + q] = (uint8_t)(k[1] >> (8 * q));
    uint64_t data = 8 + 4 * nsub, e = 0;
    for (uint64_t j = 0; j < nsub; j++) {
        uint64_t off = j * B, b = R - off < B ? R - off : B;
        uint64_t z = ref_body(raw + off, b, E, k, tmp);
        if (z < b) memcpy(pay + data + e, tmp, z);
        else {
            z = b;
            memcpy(pay + data + e, raw + off, b);
        }
        e += z;
        for (int q = 0; q < 4; q++) pay[8 + 4 * j + q] = (uint8_t)(e >> (8 * q));
    }
    free(tmp);
    uint64_t total = data + e;
    if (total >= R) {
        memcpy(pay, raw, R);
        *size = R;
        *info = 0;
    } else {
        *size = total;
        *info = 1;
    }
    return pay;
}

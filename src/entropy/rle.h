/*
 * rle.h -- run-length coding of 16-bit symbol sequences (the run-length
 * workflow of the lossy codec, docs/FORMAT.md section 7.5): runs are the
 * maximal sequences of equal symbols, cut into pieces of at most max_run.
 */
#ifndef SCZ_RLE_H
#define SCZ_RLE_H

#include <stdint.h>
#include <string.h>

/* Run starts in s[i..e) (i >= 1): appended to bnd from index k, the new
 * count returned. Four symbols at a time: equal stretches skipped,
 * otherwise the boundaries recorded without a branch on the data (short
 * runs made the branch unpredictable); bnd[k] may be written at a k that
 * is not kept, always below i. */
static inline uint64_t scz__rle_starts(const uint16_t *s, uint64_t i, uint64_t e, uint32_t *bnd, uint64_t k) {
    while (i + 4 <= e) {
        uint64_t x, y;
        memcpy(&x, s + i, 8);
        memcpy(&y, s + i - 1, 8);
        if (x != y) {
            bnd[k] = (uint32_t)i;
            k += s[i] != s[i - 1];
            bnd[k] = (uint32_t)(i + 1);
            k += s[i + 1] != s[i];
            bnd[k] = (uint32_t)(i + 2);
            k += s[i + 2] != s[i + 1];
            bnd[k] = (uint32_t)(i + 3);
            k += s[i + 3] != s[i + 2];
        }
        i += 4;
    }
    for (; i < e; i++) {
        bnd[k] = (uint32_t)i;
        k += s[i] != s[i - 1];
    }
    return k;
}

/* Splits s[0..n) into runs with T threads; the result does not depend on T.
 * vals[k] = symbol of run k, lens[k] = its length - 1. bnd: scratch of n
 * uint32. Returns the number of runs (vals/lens must hold n entries). */
uint64_t scz__rle_encode(const uint16_t *s, uint64_t n, uint32_t max_run, int T, uint32_t *bnd,
                         uint16_t *vals, uint16_t *lens);

/* Expands runs into out[0..n). starts: scratch of nruns uint32. Returns 0,
 * or -1 if the lengths do not add up to n or the runs are not the ones
 * scz__rle_encode produces (a run shorter than max_run followed by a run of
 * the same symbol). */
int scz__rle_decode(const uint16_t *vals, const uint16_t *lens, uint64_t nruns, uint32_t max_run,
                    uint16_t *out, uint64_t n, int T, uint32_t *starts);

#endif

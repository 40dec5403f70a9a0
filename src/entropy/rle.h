/*
 * rle.h -- run-length coding of 16-bit symbol sequences (the run-length
 * workflow of the lossy codec, docs/FORMAT.md section 7.5): runs are the
 * maximal sequences of equal symbols, cut into pieces of at most max_run.
 */
#ifndef SCZ_RLE_H
#define SCZ_RLE_H

#include <stdint.h>

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

/*
 * gen.h -- deterministic test fields for the test programs.
 *
 * Every field is a pure function of (family, shape, seed): the generators use
 * their own counter-based PRNG (splitmix64) and their own sine built from
 * + - * / only, so the same bytes come out on every IEEE-754 platform and with
 * every libm (no rand(), no sin()). Values are produced in double and rounded
 * once to the dtype; special values (NaN payloads, -0.0, denormals) are
 * written as bit patterns so that nothing on the way can quiet or flush them.
 */
#ifndef SCZ_GEN_H
#define SCZ_GEN_H

#include "scz.h"

#include <stddef.h>
#include <stdint.h>

typedef enum gen_family {
    GEN_SMOOTH = 0,   /* sum of separable sine products plus a ramp */
    GEN_NOISY,        /* smooth + white noise of ~1e-3 of the range */
    GEN_CONSTANT,     /* every element the same value */
    GEN_SPARSE,       /* ~99% +0.0, a few random values */
    GEN_SPIKY,        /* smooth with ~0.2% huge values (+-1e30 / +-1e300) */
    GEN_SPECIAL,      /* NaN (quiet/signalling, payloads, both signs), +-Inf,
                       * +-0.0, denormals, +-MAX, MIN, regular values */
    GEN_RANDOM_BITS,  /* arbitrary bit patterns: incompressible */
    GEN_FILL_VALUE,   /* smooth with ~30% 1e20 in runs and ~1% -9999 */
    GEN_NUM_FAMILIES
} gen_family;

/* "smooth", "noisy", ... */
const char *gen_family_name(gen_family f);

/* PRNG: splitmix64 step on *state, and the stateless mixer of one value. */
uint64_t gen_splitmix64(uint64_t *state);
uint64_t gen_mix64(uint64_t x);

/* Deterministic sine from basic IEEE operations only (test data, not libm). */
double gen_sin(double x);

/* Number of elements / bytes of a shape (0 for an empty array or a bad one). */
uint64_t gen_count(const scz_shape *s);
size_t gen_bytes(const scz_shape *s);

/* Fills out[0 .. gen_count(shape)) with the field; dtype F32 or F64. */
void gen_fill(gen_family f, const scz_shape *shape, uint64_t seed, void *out);

/* malloc'ed field (at least 1 byte even for an empty shape); *bytes = size. */
void *gen_field(gen_family f, const scz_shape *shape, uint64_t seed, size_t *bytes);

/* The shape list of the property tests: empty, one element, prime and odd
 * extents, extents of 1 in every position, rank 1-4. dims fastest first. */
typedef struct gen_shape_def {
    const char *name;
    uint32_t rank;
    uint64_t dims[SCZ_MAX_RANK];
} gen_shape_def;

extern const gen_shape_def gen_shapes[];
extern const int gen_num_shapes;

/* The scz_shape of a list entry with a dtype. */
scz_shape gen_shape(const gen_shape_def *d, scz_dtype dtype);

#endif

/*
 * ieee.h -- the floating-point contract of the error-bounded code, made a
 * property of the source rather than of the compiler flags (docs/FORMAT.md
 * 7.1, "What the guarantee assumes"). Include it FIRST in every file whose
 * arithmetic decides or reproduces a bound (src/lossy).
 *
 * The lossy writer checks every value against the bound with the same
 * binary64 operations the reader performs; the check is exact only if both
 * round every operation to nearest once. Three things can break that:
 *   - -ffast-math (reassociation, reciprocal approximations, no NaN/Inf):
 *     refused here at compile time;
 *   - excess precision (x87, FLT_EVAL_METHOD other than 0 or 16): refused at compile time;
 *   - contraction of a*b+c into a fused multiply-add, which compilers do by
 *     default in GNU C mode (gcc) or with -ffp-contract=fast (gcc, clang):
 *     every product whose rounding matters is passed through SCZ_FP_SEAL, an
 *     empty asm statement the compiler cannot see through, so no later
 *     addition can be fused with it, whatever the flags. (gcc ignores
 *     `STDC FP_CONTRACT`, and its `optimize("fp-contract=off")` pragma made
 *     the codec ten times slower by changing how the OpenMP regions are
 *     optimised; clang ignores every pragma under -ffp-contract=fast. The
 *     pragmas below are kept for compilers without GNU asm.)
 * Flush-to-zero / denormals-are-zero need no flag: writers never use an
 * absolute bound below the smallest normal number of the element type
 * (FORMAT.md 7.1), which keeps every value the check and the decoder compute
 * either normal or exactly zero, so FTZ/DAZ cannot change them. The
 * rounding mode must be round-to-nearest: the codec checks it per call.
 */
#ifndef SCZ_IEEE_H
#define SCZ_IEEE_H

#include <float.h>

#if defined(__FAST_MATH__)
#error "scz: the lossy codec needs IEEE arithmetic; build src/lossy without -ffast-math (its error bound would not be a guarantee)"
#endif
/* 16 (ISO/IEC TS 18661-3: only types no wider than _Float16 are evaluated
 * as _Float16; gcc with AVX512-FP16, e.g. -march=native on Sapphire
 * Rapids) leaves float and double as 0 does. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 16
#error "scz: the lossy codec needs binary64 evaluation without excess precision (FLT_EVAL_METHOD 0, e.g. SSE2 on x86)"
#endif

/* No fused multiply-add contraction in the including translation unit,
 * where the compiler honours it. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#pragma clang fp contract(off)
#elif !defined(__GNUC__)
#pragma STDC FP_CONTRACT OFF
#endif

/* SCZ_FP_SEAL(v): v (a double lvalue) is materialised as the rounded result
 * of the operation that produced it; no fused multiply-add can span it. */
#if defined(__GNUC__) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2_MATH__)))
#define SCZ_FP_SEAL(v) __asm__("" : "+x"(v))
#elif defined(__GNUC__) && defined(__aarch64__)
#define SCZ_FP_SEAL(v) __asm__("" : "+w"(v))
#elif defined(__GNUC__)
#define SCZ_FP_SEAL(v) __asm__("" : "+m"(v))
#else
#define SCZ_FP_SEAL(v) ((void)0) /* other compilers: the pragmas above */
#endif

#endif

/*
 * error.h -- error reporting, the lowest layer of the library: status names
 * and the "last error" message a context carries (scz_ctx_last_error).
 * Every other part (util, format, codecs, the CUDA backend, the API) reports
 * failures through scz__fail; this header depends on nothing but the public
 * types of scz.h, so reporting an error never calls up into a higher layer.
 *
 * The message buffer stays in the context: struct scz_ctx (src/internal.h)
 * starts with `char msg[SCZ_ERROR_MSG_CAP]`, which is what scz__fail writes
 * (internal.h checks that layout at compile time).
 */
#ifndef SCZ_UTIL_ERROR_H
#define SCZ_UTIL_ERROR_H

#include "scz.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a context's message buffer (terminating NUL included). */
#define SCZ_ERROR_MSG_CAP 256

/* Formats a message into ctx's buffer (ctx may be NULL: nothing is
 * recorded) and returns s, so that `return scz__fail(ctx, SCZ_ERR_ARG, ...)`
 * reports and fails in one statement. Messages longer than the buffer are
 * cut. */
scz_status scz__fail(scz_ctx *ctx, scz_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif

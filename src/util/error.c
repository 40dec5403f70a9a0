/*
 * error.c -- status names and the context's last-error message (error.h).
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

const char *scz_status_string(scz_status s) {
    switch (s) {
    case SCZ_OK: return "ok";
    case SCZ_ERR_ARG: return "invalid argument";
    case SCZ_ERR_UNSUPPORTED: return "unsupported";
    case SCZ_ERR_NOMEM: return "out of memory";
    case SCZ_ERR_DST_TOO_SMALL: return "destination buffer too small";
    case SCZ_ERR_NOT_SCZ: return "not an scz stream";
    case SCZ_ERR_VERSION: return "unsupported format version";
    case SCZ_ERR_TRUNCATED: return "truncated stream";
    case SCZ_ERR_CHECKSUM: return "checksum mismatch";
    case SCZ_ERR_CORRUPT: return "corrupt stream";
    case SCZ_ERR_OVERFLOW: return "size overflow";
    case SCZ_ERR_BACKEND: return "backend unavailable";
    case SCZ_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

scz_status scz__fail(scz_ctx *ctx, scz_status s, const char *fmt, ...) {
    if (ctx) {
        /* the context starts with its message buffer (error.h) */
        char *msg = (char *)ctx;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, SCZ_ERROR_MSG_CAP, fmt, ap);
        va_end(ap);
    }
    return s;
}

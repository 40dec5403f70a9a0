/*
 * cli.h -- pieces of the `scz` command-line tool shared between its files:
 * exit codes, whole-file I/O, timing, messages, and the demo.
 */
#ifndef SCZ_CLI_H
#define SCZ_CLI_H

#include "scz.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in --help). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_USAGE = 1,  /* bad options, or data that does not match them */
    CLI_EXIT_IO = 2,     /* a file cannot be read or written */
    CLI_EXIT_LIB = 3,    /* library/codec error: corrupt stream, unsupported request... */
    CLI_EXIT_VERIFY = 4  /* decoded data is not bit-exact / misses the error bound */
};

/* "scz: error: ..." on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* "scz: warning: ..." on stderr. */
void cli_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Displayable name of a path ("-" is shown as <stdin>/<stdout>). */
const char *cli_in_name(const char *path);
const char *cli_out_name(const char *path);

/* Reads a whole file ("-" = stdin) into a malloc'ed buffer (at least one
 * byte allocated, suitably aligned for any element type). Prints a message
 * and returns CLI_EXIT_IO on failure. */
int cli_read_all(const char *path, uint8_t **data, size_t *size);

/* Writes n bytes to path ("-" = stdout). On any failure prints a message,
 * removes the partial file (never stdout) and returns CLI_EXIT_IO. */
int cli_write_all(const char *path, const void *data, size_t n);

/* Monotonic wall-clock time in seconds. */
double cli_now(void);

/* Megabytes (1e6 bytes) per second; 0 if the time is not positive. */
double cli_mbps(uint64_t bytes, double seconds);

/* Progress display on stderr (a percentage line redrawn with \r), used
 * only when stderr is a terminal. */
typedef struct cli_progress {
    const char *what;
    int enabled;
    int last_pct;
    int shown;
} cli_progress;

/* Sets up p and, if it is enabled (stderr is a tty, not quiet, enough
 * work), hooks it to ctx. */
void cli_progress_attach(cli_progress *p, scz_ctx *ctx, const char *what, uint64_t total_bytes,
                         int quiet);
/* Clears the progress line, detaches from ctx. */
void cli_progress_done(cli_progress *p, scz_ctx *ctx);

/* Name of a lossy chunk workflow (codec_info), or NULL for other values. */
const char *cli_workflow_name(scz_codec codec, uint32_t codec_info);

/* The `scz demo` subcommand. */
int cli_demo(int threads, int quiet);

#endif

/*
 * cli.h -- pieces of the `scz` command-line tool shared between its files:
 * exit codes, file I/O (whole files, and streamed inputs and outputs),
 * timing, messages, and the demo.
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

/* ---- streamed files: the tool never holds a whole array or stream ---- */

/* An input read front to back ("-" = stdin). */
typedef struct cli_in {
    const char *path;
    int fd;
    int regular;      /* a regular file: its size is known and it can be read twice */
    uint64_t size;    /* of a regular file */
    uint64_t done;    /* bytes read so far */
    int spooled;      /* a temporary copy of a pipe (cli_in_spool) */
} cli_in;

/* Opens path for reading. Prints a message and returns CLI_EXIT_IO on failure. */
int cli_in_open(cli_in *in, const char *path);
/* Reads up to n bytes; *got < n only at the end of the input. */
int cli_in_read(cli_in *in, void *buf, size_t n, size_t *got);
/* Back to the start (regular files and spooled copies only). */
int cli_in_rewind(cli_in *in);
/* Replaces a pipe by an unlinked temporary copy in $TMPDIR (or /tmp), so it
 * can be read twice; fn (may be NULL) sees every piece on the way. */
int cli_in_spool(cli_in *in, void (*fn)(void *user, const void *p, size_t n), void *user);
void cli_in_close(cli_in *in);

/* An output ("-" = stdout). A named regular file (new or existing) is
 * written to a temporary file beside it and renamed over it by
 * cli_out_commit only, so that a failure never leaves a partial file and an
 * existing file stays untouched; other paths (devices, FIFOs, stdout) are
 * written directly. */
typedef struct cli_out {
    const char *path;
    char *tmp;        /* temporary name, or NULL */
    int fd;
    int seekable;     /* cli_out_pwrite works (regular file, not append mode) */
    uint64_t base;    /* offset of the output's first byte in the file */
    uint64_t written; /* bytes appended so far */
} cli_out;

int cli_out_open(cli_out *o, const char *path);
int cli_out_write(cli_out *o, const void *p, size_t n);
/* Writes at an offset from the output's start (seekable outputs only). */
int cli_out_pwrite(cli_out *o, const void *p, size_t n, uint64_t off);
/* Closes; renames the temporary file into place. */
int cli_out_commit(cli_out *o);
/* Closes and removes the temporary file (no-op if not open). */
void cli_out_abort(cli_out *o);

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
/* Updates an attached progress line by hand (work outside the library). */
void cli_progress_step(cli_progress *p, uint64_t done, uint64_t total);

/* Name of a lossy chunk workflow (codec_info), or NULL for other values. */
const char *cli_workflow_name(scz_codec codec, uint32_t codec_info);

/* The `scz demo` subcommand. */
int cli_demo(int threads, int quiet);

#endif

/*
 * cli_io.c -- whole-file reading and writing, timing, messages and the
 * progress line of the `scz` tool.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void vmsg(const char *kind, const char *fmt, va_list ap) {
    fflush(stdout);
    fprintf(stderr, "scz: %s: ", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmsg("error", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning", fmt, ap);
    va_end(ap);
}

static int is_std(const char *path) { return path[0] == '-' && path[1] == 0; }

const char *cli_in_name(const char *path) { return is_std(path) ? "<stdin>" : path; }
const char *cli_out_name(const char *path) { return is_std(path) ? "<stdout>" : path; }

int cli_read_all(const char *path, uint8_t **data, size_t *size) {
    *data = NULL;
    *size = 0;
    FILE *f = is_std(path) ? stdin : fopen(path, "rb");
    if (!f) {
        cli_error("cannot open '%s' for reading: %s", path, strerror(errno));
        return CLI_EXIT_IO;
    }
    /* A regular file's size is known up front: one allocation, one read.
     * Pipes and terminals grow a buffer geometrically. */
    size_t cap = (size_t)1 << 20;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0) {
        if ((uintmax_t)st.st_size >= SIZE_MAX) {
            cli_error("'%s' is too large to read into memory", cli_in_name(path));
            if (f != stdin) fclose(f);
            return CLI_EXIT_IO;
        }
        cap = (size_t)st.st_size + 1; /* +1: reaching EOF needs no regrowth */
    }
    uint8_t *buf = malloc(cap);
    size_t n = 0;
    int err = 0;
    if (!buf) err = ENOMEM;
    while (!err) {
        if (n == cap) {
            size_t ncap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                err = ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0 || n < cap) {
            if (ferror(f)) err = errno ? errno : EIO;
            else if (feof(f)) break;
        }
    }
    if (f != stdin && fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (err) {
        cli_error("cannot read '%s': %s", cli_in_name(path), strerror(err));
        free(buf);
        return CLI_EXIT_IO;
    }
    *data = buf;
    *size = n;
    return CLI_EXIT_OK;
}

int cli_write_all(const char *path, const void *data, size_t n) {
    int to_stdout = is_std(path);
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    if (!f) {
        cli_error("cannot open '%s' for writing: %s", path, strerror(errno));
        return CLI_EXIT_IO;
    }
    /* Only a regular file is removed on failure (never a device or a pipe). */
    struct stat st;
    int regular = !to_stdout && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    int err = 0;
    errno = 0;
    if (n && fwrite(data, 1, n, f) != n) err = errno ? errno : EIO;
    if (!err && fflush(f) != 0) err = errno ? errno : EIO;
    if (!to_stdout) {
        if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    } else if (!err && ferror(f)) {
        err = EIO;
    }
    if (err) {
        if (regular && remove(path) == 0)
            cli_error("cannot write '%s': %s (the partial file was removed)", path, strerror(err));
        else
            cli_error("cannot write '%s': %s", cli_out_name(path), strerror(err));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cli_mbps(uint64_t bytes, double seconds) {
    return seconds > 0 ? (double)bytes / 1e6 / seconds : 0;
}

/* Progress is worth showing only for work that takes a noticeable time. */
#define CLI_PROGRESS_MIN_BYTES ((uint64_t)64 << 20)

static void progress_cb(void *user, uint64_t done, uint64_t total) {
    cli_progress *p = user;
    int pct = total ? (int)((double)done * 100.0 / (double)total) : 100;
    if (pct == p->last_pct) return;
    p->last_pct = pct;
    p->shown = 1;
    fprintf(stderr, "\rscz: %s %3d%%", p->what, pct);
    fflush(stderr);
}

void cli_progress_attach(cli_progress *p, scz_ctx *ctx, const char *what, uint64_t total_bytes,
                         int quiet) {
    p->what = what;
    p->last_pct = -1;
    p->shown = 0;
    p->enabled = !quiet && total_bytes >= CLI_PROGRESS_MIN_BYTES && isatty(fileno(stderr));
    scz_ctx_set_progress(ctx, p->enabled ? progress_cb : NULL, p->enabled ? p : NULL);
}

void cli_progress_done(cli_progress *p, scz_ctx *ctx) {
    if (p->shown) {
        fprintf(stderr, "\r%*s\r", 40, "");
        fflush(stderr);
    }
    p->shown = 0;
    p->last_pct = -1;
    if (p->enabled) scz_ctx_set_progress(ctx, NULL, NULL);
    p->enabled = 0;
}

const char *cli_workflow_name(scz_codec codec, uint32_t codec_info) {
    if (codec != SCZ_CODEC_LOSSY) return NULL;
    switch (codec_info) {
    case 0: return "stored";
    case 1: return "Huffman";
    case 2: return "run-length";
    }
    return NULL;
}

/*
 * cli_io.c -- file reading and writing (whole files, streamed inputs and
 * outputs with temporary files renamed into place), timing, messages and
 * the progress line of the `scz` tool.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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

/* ---------------------------------------------------------------- streamed inputs */

int cli_in_open(cli_in *in, const char *path) {
    memset(in, 0, sizeof *in);
    in->path = path;
    in->fd = is_std(path) ? STDIN_FILENO : open(path, O_RDONLY);
    if (in->fd < 0) {
        cli_error("cannot open '%s' for reading: %s", path, strerror(errno));
        return CLI_EXIT_IO;
    }
    struct stat st;
    if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(in->fd, 0, SEEK_CUR) == 0) {
        in->regular = 1;
        in->size = (uint64_t)st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    return CLI_EXIT_OK;
}

int cli_in_read(cli_in *in, void *buf, size_t n, size_t *got) {
    size_t k = 0;
    while (k < n) {
        size_t want = n - k < ((size_t)1 << 30) ? n - k : (size_t)1 << 30;
        ssize_t r = read(in->fd, (uint8_t *)buf + k, want);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            cli_error("cannot read '%s': %s", cli_in_name(in->path), strerror(errno));
            *got = k;
            return CLI_EXIT_IO;
        }
        if (r == 0) break;
        k += (size_t)r;
    }
    in->done += k;
    *got = k;
    return CLI_EXIT_OK;
}

int cli_in_rewind(cli_in *in) {
    if (lseek(in->fd, 0, SEEK_SET) != 0) {
        cli_error("cannot read '%s' twice: %s", cli_in_name(in->path), strerror(errno));
        return CLI_EXIT_IO;
    }
    in->done = 0;
    return CLI_EXIT_OK;
}

int cli_in_spool(cli_in *in, void (*fn)(void *user, const void *p, size_t n), void *user) {
    const char *dir = getenv("TMPDIR");
    char name[4096];
    snprintf(name, sizeof name, "%s/scz-spool.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(name);
    if (fd < 0) {
        cli_error("cannot create a temporary file in %s to hold '%s': %s", dir && *dir ? dir : "/tmp",
                  cli_in_name(in->path), strerror(errno));
        return CLI_EXIT_IO;
    }
    unlink(name); /* gone with the process, whatever happens */
    const size_t B = (size_t)8 << 20;
    uint8_t *buf = malloc(B);
    int rc = buf ? CLI_EXIT_OK : CLI_EXIT_IO;
    if (!buf) cli_error("out of memory");
    uint64_t total = 0;
    while (!rc) {
        size_t got;
        if ((rc = cli_in_read(in, buf, B, &got)) || got == 0) break;
        if (fn) fn(user, buf, got);
        for (size_t k = 0; k < got && !rc;) {
            ssize_t w = write(fd, buf + k, got - k);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                cli_error("cannot write the temporary copy of '%s' in %s: %s", cli_in_name(in->path),
                          dir && *dir ? dir : "/tmp", strerror(errno));
                rc = CLI_EXIT_IO;
            } else {
                k += (size_t)w;
            }
        }
        total += got;
    }
    free(buf);
    if (rc || lseek(fd, 0, SEEK_SET) != 0) {
        if (!rc) cli_error("cannot read back the temporary copy of '%s'", cli_in_name(in->path));
        close(fd);
        return CLI_EXIT_IO;
    }
    if (in->fd != STDIN_FILENO) close(in->fd);
    in->fd = fd;
    in->regular = 1;
    in->spooled = 1;
    in->size = total;
    in->done = 0;
    return CLI_EXIT_OK;
}

void cli_in_close(cli_in *in) {
    if (in->fd > STDIN_FILENO || (in->fd == STDIN_FILENO && in->spooled)) close(in->fd);
    in->fd = -1;
}

/* ---------------------------------------------------------------- streamed outputs */

/* Temporary files to remove if a signal ends the process. */
#define CLI_MAX_TMP 4
static char *volatile tmp_names[CLI_MAX_TMP];

static void on_signal(int sig) {
    for (int i = 0; i < CLI_MAX_TMP; i++)
        if (tmp_names[i]) unlink(tmp_names[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track_tmp(char *name, int on) {
    static int handlers;
    if (!handlers) {
        int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            struct sigaction old;
            /* an ignored signal (nohup) stays ignored */
            if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
            sigaction(sigs[i], &sa, NULL);
        }
        handlers = 1;
    }
    for (int i = 0; i < CLI_MAX_TMP; i++) {
        if (on && !tmp_names[i]) {
            tmp_names[i] = name;
            return;
        }
        if (!on && tmp_names[i] == name) {
            tmp_names[i] = NULL;
            return;
        }
    }
}

int cli_out_open(cli_out *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    struct stat st;
    if (is_std(path)) {
        o->fd = STDOUT_FILENO;
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or FIFO (/dev/null, /dev/full, a named pipe): written as is */
        o->fd = open(path, O_WRONLY);
        if (o->fd < 0) {
            cli_error("cannot open '%s' for writing: %s", path, strerror(errno));
            return CLI_EXIT_IO;
        }
    } else {
        int exists = stat(path, &st) == 0;
        size_t n = strlen(path);
        o->tmp = malloc(n + 32);
        if (!o->tmp) {
            cli_error("out of memory");
            return CLI_EXIT_IO;
        }
        /* beside the target, so that rename() replaces it in one step */
        const char *slash = strrchr(path, '/');
        size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
        snprintf(o->tmp, n + 32, "%.*s.%s.tmp-XXXXXX", (int)dir, path, path + dir);
        o->fd = mkstemp(o->tmp);
        if (o->fd < 0) {
            cli_error("cannot open '%s' for writing: %s", path, strerror(errno));
            free(o->tmp);
            o->tmp = NULL;
            return CLI_EXIT_IO;
        }
        track_tmp(o->tmp, 1);
        mode_t mask = umask(0);
        umask(mask);
        fchmod(o->fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
    }
    if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) && !(fcntl(o->fd, F_GETFL) & O_APPEND)) {
        off_t pos = lseek(o->fd, 0, SEEK_CUR);
        if (pos >= 0) {
            o->seekable = 1;
            o->base = (uint64_t)pos;
        }
    }
    return CLI_EXIT_OK;
}

static int out_error(cli_out *o, int err) {
    if (o->tmp) cli_error("cannot write '%s': %s (nothing was written to it)", o->path, strerror(err));
    else cli_error("cannot write '%s': %s", cli_out_name(o->path), strerror(err));
    return CLI_EXIT_IO;
}

int cli_out_write(cli_out *o, const void *p, size_t n) {
    for (size_t k = 0; k < n;) {
        ssize_t w = write(o->fd, (const uint8_t *)p + k, n - k);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return out_error(o, errno);
        if (w == 0) return out_error(o, EIO);
        k += (size_t)w;
    }
    o->written += n;
    return CLI_EXIT_OK;
}

int cli_out_pwrite(cli_out *o, const void *p, size_t n, uint64_t off) {
    if (!o->seekable) return out_error(o, ESPIPE);
    for (size_t k = 0; k < n;) {
        ssize_t w = pwrite(o->fd, (const uint8_t *)p + k, n - k, (off_t)(o->base + off + k));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return out_error(o, errno);
        if (w == 0) return out_error(o, EIO);
        k += (size_t)w;
    }
    return CLI_EXIT_OK;
}

int cli_out_commit(cli_out *o) {
    if (o->fd < 0) return CLI_EXIT_OK;
    int rc = CLI_EXIT_OK;
    if (o->fd != STDOUT_FILENO && close(o->fd) != 0) rc = out_error(o, errno);
    o->fd = -1;
    if (o->tmp) {
        if (!rc && rename(o->tmp, o->path) != 0) {
            cli_error("cannot rename the finished output to '%s': %s", o->path, strerror(errno));
            rc = CLI_EXIT_IO;
        }
        if (rc) unlink(o->tmp);
        track_tmp(o->tmp, 0);
        free(o->tmp);
        o->tmp = NULL;
    }
    return rc;
}

void cli_out_abort(cli_out *o) {
    if (o->fd >= 0 && o->fd != STDOUT_FILENO) close(o->fd);
    o->fd = -1;
    if (o->tmp) {
        unlink(o->tmp);
        track_tmp(o->tmp, 0);
        free(o->tmp);
        o->tmp = NULL;
    }
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

void cli_progress_step(cli_progress *p, uint64_t done, uint64_t total) {
    if (p->enabled) progress_cb(p, done, total);
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

/*
 * scz.c -- the `scz` command-line tool, in the style of zfp's and SZ3's:
 * compress and decompress raw little-endian arrays, report statistics,
 * inspect streams (`scz info`), and run a self-contained demo (`scz demo`).
 * Dimensions are fastest-varying first everywhere (DESIGN.md).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Usage                                                              */
/* ------------------------------------------------------------------ */

static void print_version(FILE *f) {
    fprintf(f, "scz %d.%d.%d (stream format %d)\ncodecs in this build:", SCZ_VERSION_MAJOR,
            SCZ_VERSION_MINOR, SCZ_VERSION_PATCH, SCZ_FORMAT_VERSION);
    for (int c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LZSS; c++)
        if (scz_codec_available((scz_codec)c)) fprintf(f, " %s", scz_codec_name((scz_codec)c));
    fputc('\n', f);
}

static void print_codec_list(FILE *f) {
    for (int c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LZSS; c++)
        fprintf(f, "%s%s%s", c > SCZ_CODEC_NDZIP ? ", " : "", scz_codec_name((scz_codec)c),
                scz_codec_available((scz_codec)c) ? "" : " (not in this build)");
}

static void print_help(FILE *f) {
    fputs(
        "scz -- compression of scientific arrays (float32/float64 fields, integer data)\n"
        "\n"
        "Usage:\n"
        "  scz -i RAW -z STREAM  TYPE DIMS [-c CODEC] [-M MODE BOUND] [options]   compress\n"
        "  scz -z STREAM -o RAW  [options]                                        decompress\n"
        "  scz -i RAW [-z STREAM] -o RAW2  TYPE DIMS [...]       compress, then decompress\n"
        "  scz -z STREAM -i ORIGINAL [-o RAW] -s    decompress and compare with the original\n"
        "  scz info STREAM       describe a stream: shape, codec, bounds, chunk table\n"
        "  scz demo              compress generated fields with every codec, print a table\n"
        "  scz --help | --version\n"
        "\n"
        "A command that gives -i with a type or dims compresses; a command that gives -i and -z\n"
        "without type and dims reads the stream and compares it with -i. '-' as a file name\n"
        "means stdin (-i, -z as input) or stdout (-z as output, -o). Raw files are little-endian\n"
        "arrays without a header; streams carry their type and dims.\n"
        "\n"
        "Files:\n"
        "  -i FILE      raw input array (or the original, when comparing)\n"
        "  -z FILE      compressed stream: written when compressing, read otherwise\n"
        "  -o FILE      decompressed raw output\n"
        "\n"
        "Type (one of):\n"
        "  -f           float32           -d           float64\n"
        "  -t TYPE      f32 | f64 | u8 | u16 | u32 | u64 (also float, double, uint16...)\n"
        "\n"
        "Dimensions, FASTEST-VARYING FIRST (x y z w; a C array a[nz][ny][nx] is -3 nx ny nz;\n"
        "a Hurricane field 100x500x500 named slowest first is -3 500 500 100):\n"
        "  -1 NX | -2 NX NY | -3 NX NY NZ | -4 NX NY NZ NW\n"
        "  A dimension of 0 makes an empty array (its raw file must be empty).\n"
        "\n"
        "Compression:\n"
        "  -c CODEC     ndzip (lossless float, default for f32/f64), gfc, huffman (default\n"
        "               for u8/u16/u32), lzss (default for u64),\n"
        "               lossy (error-bounded; the default when -M is given)\n"
        "  -M MODE B    error bound of the lossy codec: ABS B (|x-x'| <= B), REL B\n"
        "               (|x-x'| <= B * (max-min)), PSNR B (target PSNR in dB).\n"
        "               A bound with a lossless codec is an error.\n"
        "  -k I=V       codec knob I (0..5) set to V (lossy: 0 = quantization radius,\n"
        "               1 = workflow 0 auto / 1 Huffman / 2 run-length, 2 = level;\n"
        "               gfc: 0 = dimensionality 1..32, the stride of interleaved data)\n"
        "  --radius N   same as -k 0=N        --workflow auto|huffman|rle   same as -k 1=...\n"
        "  --level N    lossy level, same as -k 2=N: 0 (default) fast, 1 high ratio (per-chunk\n"
        "               radius, interpolation prediction, a lossless back end; CPU only for now)\n"
        "  lzss knobs (0 or absent = default; FORMAT.md 11.1): --symbol 1|2|4|8 (-k 0),\n"
        "               --window N symbols (-k 1), --min-match N (-k 2), --shuffle on|off (-k 3),\n"
        "               --subchunk-log2 8..16 (-k 4)\n"
        "  --gfc-dim N  same as -k 0=N (gfc's dimensionality; default 1)\n"
        "  -C BYTES     raw bytes per chunk (suffix K, M, G: binary units; default 32M, gfc 4M)\n"
        "  --chunk-mb N raw MiB per chunk\n"
        "  -n THREADS   CPU threads (default: all cores)\n"
        "  --gpu        run on the GPU (same as --backend cuda); codecs without GPU kernels\n"
        "               run on the CPU there. --backend cpu|cuda chooses explicitly.\n"
        "  --range MIN MAX  value range of the whole array for -M REL/PSNR: saves the pass\n"
        "               that finds it. REL and PSNR bounds depend on the whole array, so the\n"
        "               input is read more than once (REL: twice, PSNR: a few times), and a\n"
        "               pipe is first copied to a temporary file in $TMPDIR (but for REL with\n"
        "               --range)\n"
        "\n"
        "Output:\n"
        "  -s           statistics: ratio both ways, bit rate, throughput; with the original\n"
        "               at hand (compress+decompress, or -z with -i) also max abs error,\n"
        "               max value-range-relative error, RMSE, NRMSE, PSNR, and bit-exactness\n"
        "               (lossless) or the error bound check (lossy). Statistics go to stdout,\n"
        "               or to stderr when stdout carries data.\n"
        "  -q           quiet: no progress line, no warnings\n"
        "  -h, --help   this text          --version   version and codecs in this build\n"
        "\n"
        "Definitions: ratio = original bytes / compressed bytes (its inverse is printed too);\n"
        "bit rate = compressed bits per value; MB/s = 1e6 raw bytes per second, wall clock;\n"
        "PSNR = 20 log10(range) - 10 log10(MSE), range = max - min of the original.\n"
        "Progress is shown on stderr for large arrays when stderr is a terminal.\n"
        "\n"
        "Large files and pipes: arrays and streams pass chunk by chunk, so memory stays at a\n"
        "few chunks (-C, 32 MiB by default) whatever the file size. A named output is written\n"
        "to a temporary file beside it and renamed into place only when complete: a failure\n"
        "leaves no partial file and an existing file untouched. A stream written to a pipe\n"
        "carries its chunk table at its end (table-last layout); every reader accepts both.\n"
        "\n"
        "Exit codes:\n"
        "  0  success\n"
        "  1  usage error: bad or missing options, a file size that does not match type and\n"
        "     dims, an error bound with a lossless codec, a parameter the library rejects\n"
        "  2  I/O error: a file cannot be opened, read or written (partial outputs are removed)\n"
        "  3  library/codec error: not an scz stream, truncated or corrupt stream, checksum\n"
        "     mismatch, a codec or type this build does not support, out of memory\n"
        "  4  verification failed: decoded data not bit-exact (lossless) or outside the\n"
        "     error bound (lossy)\n"
        "\n"
        "Examples:\n"
        "  scz -i temp.f32 -z temp.scz -f -3 500 500 100          compress with ndzip\n"
        "  scz -z temp.scz -o temp.out                            decompress\n"
        "  scz -i temp.f32 -z temp.scz -o temp.out -f -3 500 500 100 -s   round trip + stats\n"
        "  scz -i temp.f32 -z t.scz -f -3 500 500 100 -c lossy -M REL 1e-4 -s\n"
        "  scz -z temp.scz -i temp.f32 -s                         check a stream against data\n"
        "  cat a.f64 | scz -i - -z - -d -2 1024 1024 > a.scz      stdin to stdout\n"
        "  scz -i big.f32 -z big.scz -f -3 2048 2048 1600 --gpu   a 26 GB file through the GPU\n"
        "  scz info temp.scz\n"
        "  scz demo\n",
        f);
    fputs("\nCodecs: ", f);
    print_codec_list(f);
    fputc('\n', f);
}

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int usage_error(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fputs("scz: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(try 'scz --help')\n", stderr);
    return CLI_EXIT_USAGE;
}

/* ------------------------------------------------------------------ */
/* Number parsing                                                     */
/* ------------------------------------------------------------------ */

static int parse_u64(const char *s, uint64_t *v) {
    if (!s || *s < '0' || *s > '9') return 0; /* no sign, no space */
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end) return 0;
    *v = (uint64_t)x;
    return 1;
}

/* Bytes with an optional binary suffix K, M, G (KiB, MiB, GiB). */
static int parse_size(const char *s, uint64_t *v) {
    if (!s || *s < '0' || *s > '9') return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno) return 0;
    int shift = 0;
    if (*end == 'k' || *end == 'K') shift = 10;
    else if (*end == 'm' || *end == 'M') shift = 20;
    else if (*end == 'g' || *end == 'G') shift = 30;
    if (shift) {
        end++;
        if (*end == 'i' && end[1] == 'B') end += 2;
        else if (*end == 'B') end++;
    }
    if (*end) return 0;
    if (shift && x > (UINT64_MAX >> shift)) return 0;
    *v = (uint64_t)x << shift;
    return 1;
}

static int parse_double(const char *s, double *v) {
    if (!s || !*s) return 0;
    errno = 0;
    char *end;
    double x = strtod(s, &end);
    if (errno == ERANGE && x != 0) return 0;
    if (*end || !isfinite(x)) return 0;
    *v = x;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Options                                                            */
/* ------------------------------------------------------------------ */

typedef struct opts {
    const char *in, *z, *out;
    scz_dtype dtype;
    const char *dtype_arg;
    uint32_t rank;
    uint64_t dims[SCZ_MAX_RANK];
    const char *codec_arg;
    scz_eb_mode eb_mode;
    double eb;
    int have_eb;
    uint32_t knobs[SCZ_NUM_KNOBS];
    const char *lzss_opt;   /* an lzss knob option given (then the codec must be lzss) */
    int level_opt;          /* --level given (then the codec must be lossy) */
    uint64_t chunk_bytes;
    int threads;
    int stats, quiet;
    scz_backend backend;
    int have_range;
    double range[2];
} opts;

/* Parses the options of the compress/decompress modes. Returns -1 to go
 * on, or an exit code (help, version, usage error). */
static int parse_opts(int argc, char **argv, opts *o) {
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEED(k)                                                                                   \
    do {                                                                                          \
        if (i + (k) >= argc) return usage_error("option %s needs %s", a, (k) == 1 ? "a value" : "more values"); \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_help(stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "--version")) {
            print_version(stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "-i") || !strcmp(a, "-z") || !strcmp(a, "-o")) {
            NEED(1);
            const char **slot = a[1] == 'i' ? &o->in : a[1] == 'z' ? &o->z : &o->out;
            if (*slot) return usage_error("option %s given twice", a);
            *slot = argv[++i];
            if (!**slot) return usage_error("option %s needs a file name", a);
        } else if (!strcmp(a, "-f") || !strcmp(a, "-d") || !strcmp(a, "-t")) {
            scz_dtype t;
            const char *name = a;
            if (a[1] == 't') {
                NEED(1);
                name = argv[++i];
                t = scz_dtype_from_name(name);
                if (!t)
                    return usage_error("unknown type '%s' (types: f32, f64, u8, u16, u32, u64)", name);
            } else {
                t = a[1] == 'f' ? SCZ_DTYPE_F32 : SCZ_DTYPE_F64;
            }
            if (o->dtype && o->dtype != t)
                return usage_error("conflicting types: %s and %s", o->dtype_arg, name);
            o->dtype = t;
            o->dtype_arg = name;
        } else if (a[0] == '-' && a[1] >= '1' && a[1] <= '4' && a[2] == 0) {
            int r = a[1] - '0';
            NEED(r);
            if (o->rank) return usage_error("dimensions given twice (%s)", a);
            o->rank = (uint32_t)r;
            for (int k = 0; k < r; k++) {
                const char *s = argv[++i];
                if (!parse_u64(s, &o->dims[k]))
                    return usage_error("bad dimension '%s' after %s: expected a non-negative integer", s, a);
            }
            for (int k = r; k < SCZ_MAX_RANK; k++) o->dims[k] = 1;
        } else if (!strcmp(a, "-c")) {
            NEED(1);
            o->codec_arg = argv[++i];
        } else if (!strcmp(a, "-M")) {
            NEED(2);
            const char *m = argv[++i], *b = argv[++i];
            scz_eb_mode mode = scz_eb_mode_from_name(m);
            if ((int)mode < SCZ_EB_ABS || mode > SCZ_EB_PSNR)
                return usage_error("unknown error-bound mode '%s' (modes: ABS, REL, PSNR)", m);
            if (!parse_double(b, &o->eb) || !(o->eb > 0))
                return usage_error("bad error bound '%s' for %s: expected a positive number", b, m);
            o->eb_mode = mode;
            o->have_eb = 1;
        } else if (!strcmp(a, "-k")) {
            NEED(1);
            const char *s = argv[++i];
            const char *eq = strchr(s, '=');
            char idx[32];
            uint64_t k, v;
            if (!eq || (size_t)(eq - s) >= sizeof idx)
                return usage_error("bad knob '%s': expected I=V", s);
            memcpy(idx, s, (size_t)(eq - s));
            idx[eq - s] = 0;
            if (!parse_u64(idx, &k) || k >= SCZ_NUM_KNOBS || !parse_u64(eq + 1, &v) || v > UINT32_MAX)
                return usage_error("bad knob '%s': expected I=V with I in 0..5 and V a 32-bit unsigned integer", s);
            o->knobs[k] = (uint32_t)v;
        } else if (!strcmp(a, "--radius")) {
            NEED(1);
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v > UINT32_MAX)
                return usage_error("bad radius '%s'", argv[i]);
            o->knobs[0] = (uint32_t)v;
        } else if (!strcmp(a, "--symbol") || !strcmp(a, "--window") || !strcmp(a, "--min-match") ||
                   !strcmp(a, "--subchunk-log2")) {
            NEED(1);
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v == 0 || v > UINT32_MAX)
                return usage_error("bad value '%s' for %s", argv[i], a);
            int k = !strcmp(a, "--symbol") ? 0 : !strcmp(a, "--window") ? 1 : !strcmp(a, "--min-match") ? 2 : 4;
            o->knobs[k] = (uint32_t)v;
            o->lzss_opt = a;
        } else if (!strcmp(a, "--shuffle")) {
            NEED(1);
            const char *w = argv[++i];
            if (!strcmp(w, "on")) o->knobs[3] = 2;
            else if (!strcmp(w, "off")) o->knobs[3] = 1;
            else return usage_error("bad value '%s' for --shuffle (on, off)", w);
            o->lzss_opt = a;
        } else if (!strcmp(a, "--gfc-dim")) {
            NEED(1);
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v < 1 || v > 32)
                return usage_error("bad gfc dimensionality '%s': expected 1..32", argv[i]);
            o->knobs[0] = (uint32_t)v;
        } else if (!strcmp(a, "--level")) {
            NEED(1);
            uint64_t v;
            if (!parse_u64(argv[++i], &v) || v > 1) return usage_error("bad level '%s': expected 0 or 1", argv[i]);
            o->knobs[2] = (uint32_t)v;
            o->level_opt = 1;
        } else if (!strcmp(a, "--workflow")) {
            NEED(1);
            const char *w = argv[++i];
            if (!strcmp(w, "auto")) o->knobs[1] = 0;
            else if (!strcmp(w, "huffman")) o->knobs[1] = 1;
            else if (!strcmp(w, "rle") || !strcmp(w, "run-length")) o->knobs[1] = 2;
            else return usage_error("unknown workflow '%s' (auto, huffman, rle)", w);
        } else if (!strcmp(a, "-C")) {
            NEED(1);
            if (!parse_size(argv[++i], &o->chunk_bytes) || !o->chunk_bytes)
                return usage_error("bad chunk size '%s': expected a positive number of bytes (K, M, G suffixes)", argv[i]);
        } else if (!strcmp(a, "--chunk-mb")) {
            NEED(1);
            uint64_t mb;
            if (!parse_u64(argv[++i], &mb) || !mb || mb > (UINT64_MAX >> 20))
                return usage_error("bad chunk size '%s' MiB", argv[i]);
            o->chunk_bytes = mb << 20;
        } else if (!strcmp(a, "-n")) {
            NEED(1);
            uint64_t t;
            if (!parse_u64(argv[++i], &t) || t > INT_MAX)
                return usage_error("bad thread count '%s'", argv[i]);
            o->threads = (int)t;
        } else if (!strcmp(a, "--gpu")) {
            o->backend = SCZ_BACKEND_CUDA;
        } else if (!strcmp(a, "--backend")) {
            NEED(1);
            const char *b = argv[++i];
            if (!strcmp(b, "cpu")) o->backend = SCZ_BACKEND_CPU;
            else if (!strcmp(b, "cuda") || !strcmp(b, "gpu")) o->backend = SCZ_BACKEND_CUDA;
            else return usage_error("unknown backend '%s' (cpu, cuda)", b);
        } else if (!strcmp(a, "--range")) {
            NEED(2);
            const char *lo = argv[++i], *hi = argv[++i];
            if (!parse_double(lo, &o->range[0]) || !parse_double(hi, &o->range[1]) || !isfinite(o->range[0]) ||
                !isfinite(o->range[1]) || o->range[0] > o->range[1])
                return usage_error("bad value range '%s %s': expected MIN MAX, finite, MIN <= MAX", lo, hi);
            o->have_range = 1;
        } else if (!strcmp(a, "-s")) {
            o->stats = 1;
        } else if (!strcmp(a, "-q")) {
            o->quiet = 1;
        } else if (!strcmp(a, "info") || !strcmp(a, "demo")) {
            return usage_error("'%s' must come first: scz %s ...", a, a);
        } else {
            return usage_error("unknown option '%s'", a);
        }
#undef NEED
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

static int exit_for_status(scz_status st, int compressing) {
    /* The library rejects invalid requests with SCZ_ERR_ARG: on compress
     * that is the user's parameters (e.g. a bound with a lossless codec). */
    if (compressing && st == SCZ_ERR_ARG) return CLI_EXIT_USAGE;
    return CLI_EXIT_LIB;
}

static void lib_error(scz_ctx *ctx, scz_status st, const char *what) {
    const char *msg = ctx ? scz_ctx_last_error(ctx) : "";
    if (msg && *msg) cli_error("%s: %s (%s)", what, msg, scz_status_string(st));
    else cli_error("%s: %s", what, scz_status_string(st));
}

static void fmt_dims(char *buf, size_t cap, const scz_shape *s, int slowest_first) {
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < s->rank && n < cap; k++) {
        uint32_t d = slowest_first ? s->rank - 1 - k : k;
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRIu64, k ? " x " : "", s->dims[d]);
    }
}

static scz_status open_ctx(scz_ctx **ctx, int threads, scz_backend backend) {
    char why[256];
    if (backend != SCZ_BACKEND_CPU && scz_backend_probe(backend, why, sizeof why) != SCZ_OK) {
        cli_error("the GPU backend cannot be used: %s", why);
        return SCZ_ERR_BACKEND;
    }
    scz_status st = scz_ctx_create(ctx, backend);
    if (st) {
        cli_error("cannot create a context: %s", scz_status_string(st));
        return st;
    }
    if (threads && (st = scz_ctx_set_threads(*ctx, threads))) {
        lib_error(*ctx, st, "cannot set the thread count");
        scz_ctx_destroy(*ctx);
        *ctx = NULL;
    }
    return st;
}

/* The message of a stream that scz_inspect rejects: scz_inspect has no
 * context, so the same validation is repeated through scz_decompress. */
static void stream_error(scz_ctx *ctx, scz_status st, const void *src, size_t n, const char *name) {
    char what[1200];
    snprintf(what, sizeof what, "'%s' is not a valid scz stream", name);
    if (ctx) {
        scz_status st2 = scz_decompress(ctx, src, n, NULL, 0, NULL);
        if (st2 == st) {
            lib_error(ctx, st, what);
            return;
        }
    }
    cli_error("%s: %s", what, scz_status_string(st));
}

static void codec_label(char *buf, size_t cap, scz_codec c) {
    const char *n = scz_codec_name(c);
    if (n) snprintf(buf, cap, "%s", n);
    else snprintf(buf, cap, "codec %d", (int)c);
}

/* ------------------------------------------------------------------ */
/* Statistics and verification                                        */
/* ------------------------------------------------------------------ */

/* Error statistics gathered chunk by chunk (scz_stats of each chunk,
 * merged; the same definitions as scz_stats_compute over the whole array). */
typedef struct stats_acc {
    int exact;                 /* every byte equal so far */
    uint64_t count, nonfinite, mismatch, finite;
    double min, max, max_abs, sse, sae;
} stats_acc;

static int acc_add(stats_acc *a, scz_dtype t, const void *orig, const void *dec, size_t bytes) {
    size_t es = scz_dtype_size(t);
    uint64_t n = bytes / es;
    if (memcmp(orig, dec, bytes) != 0) a->exact = 0;
    if (!n) return 0;
    scz_stats s;
    if (scz_stats_compute(t, orig, dec, n, &s) != SCZ_OK) return -1;
    uint64_t fin = n - s.nonfinite;
    if (fin) {
        if (!a->finite || s.min < a->min) a->min = s.min;
        if (!a->finite || s.max > a->max) a->max = s.max;
    }
    if (s.max_abs_err > a->max_abs || isnan(s.max_abs_err)) a->max_abs = s.max_abs_err;
    a->sse += s.rmse * s.rmse * (double)fin;
    a->sae += s.mean_abs_err * (double)fin;
    a->count += n;
    a->nonfinite += s.nonfinite;
    a->mismatch += s.nonfinite_mismatch;
    a->finite += fin;
    return 0;
}

static void acc_result(const stats_acc *a, scz_stats *o) {
    memset(o, 0, sizeof *o);
    o->count = a->count;
    o->nonfinite = a->nonfinite;
    o->nonfinite_mismatch = a->mismatch;
    o->min = a->finite ? a->min : 0;
    o->max = a->finite ? a->max : 0;
    o->range = o->max - o->min;
    o->max_abs_err = a->max_abs;
    o->mean_abs_err = a->finite ? a->sae / (double)a->finite : 0;
    double mse = a->finite ? a->sse / (double)a->finite : 0;
    o->rmse = sqrt(mse);
    o->max_rel_err = o->range > 0 ? o->max_abs_err / o->range : (o->max_abs_err > 0 ? INFINITY : 0);
    o->nrmse = o->range > 0 ? o->rmse / o->range : (o->rmse > 0 ? INFINITY : 0);
    if (mse == 0) o->psnr = INFINITY;
    else if (o->range == 0) o->psnr = -INFINITY;
    else o->psnr = 20.0 * log10(o->range) - 10.0 * log10(mse);
}

typedef struct result {
    scz_info info;          /* of the stream */
    uint64_t stream_size;
    int have_orig;          /* decoded data compared with the original */
    stats_acc acc;
    uint64_t wf_count[4];   /* lossy chunks per workflow: stored, Huffman, run-length, other */
    uint32_t wf_first[16];  /* workflows of the first 16 chunks */
    uint32_t chunks_seen;
    double t_comp, t_dec;   /* seconds, < 0 if not measured */
} result;

static void note_chunk(result *r, const scz_chunk_info *ci) {
    uint32_t w = ci->codec_info;
    r->wf_count[w <= 2 ? w : 3]++;
    if (r->chunks_seen < 16) r->wf_first[r->chunks_seen] = w;
    r->chunks_seen++;
}

static void print_chunk_workflows(FILE *so, const result *r) {
    if (r->info.params.codec != SCZ_CODEC_LOSSY || r->info.num_chunks == 0 || r->chunks_seen == 0) return;
    fprintf(so, "  chunk workflow     ");
    if (r->chunks_seen <= 16) {
        for (uint32_t i = 0; i < r->chunks_seen; i++) {
            const char *w = cli_workflow_name(r->info.params.codec, r->wf_first[i]);
            fprintf(so, "%s%u", i ? ", " : "", r->wf_first[i]);
            if (w) fprintf(so, " (%s)", w);
        }
    } else {
        fprintf(so, "%" PRIu64 " stored (0), %" PRIu64 " Huffman (1), %" PRIu64 " run-length (2), %" PRIu64 " other",
                r->wf_count[0], r->wf_count[1], r->wf_count[2], r->wf_count[3]);
    }
    fprintf(so, "   [per chunk; codec_info: 0 = stored, 1 = Huffman, 2 = run-length]\n");
}

/* Verifies decoded data against the original when both were at hand, and
 * prints the statistics if asked. Returns an exit code. */
static int report(FILE *so, const result *r, int stats) {
    const scz_info *in = &r->info;
    scz_codec codec = in->params.codec;
    int lossless = scz_codec_is_lossless(codec);
    uint64_t count = scz_shape_count(&in->shape);
    if (in->raw_bytes == 0) count = 0;
    int have_orig = r->have_orig;
    scz_stats st;
    memset(&st, 0, sizeof st);
    int exact = 0, ok = 1;
    if (have_orig) {
        exact = r->acc.exact;
        acc_result(&r->acc, &st);
        if (lossless) ok = exact;
        else ok = st.max_abs_err <= in->eb_abs && st.nonfinite_mismatch == 0;
    }

    if (stats) {
        char cname[32], d1[128], d2[128];
        codec_label(cname, sizeof cname, codec);
        fmt_dims(d1, sizeof d1, &in->shape, 0);
        fmt_dims(d2, sizeof d2, &in->shape, 1);
        fprintf(so, "scz statistics\n");
        fprintf(so, "  codec              %s (%s)\n", cname, lossless ? "lossless" : "lossy");
        fprintf(so, "  type, dims         %s, %s (fastest first)\n",
                scz_dtype_name(in->shape.dtype) ? scz_dtype_name(in->shape.dtype) : "?", d1);
        fprintf(so, "  values             %" PRIu64 "\n", count);
        fprintf(so, "  original bytes     %" PRIu64 "\n", in->raw_bytes);
        fprintf(so, "  compressed bytes   %" PRIu64 "\n", r->stream_size);
        if (in->raw_bytes && r->stream_size) {
            fprintf(so, "  ratio              %.4f (original/compressed)\n",
                    (double)in->raw_bytes / (double)r->stream_size);
            fprintf(so, "  ratio (inverse)    %.6f (compressed/original)\n",
                    (double)r->stream_size / (double)in->raw_bytes);
        }
        if (count) fprintf(so, "  bit rate           %.4f bits/value\n", 8.0 * (double)r->stream_size / (double)count);
        if (r->t_comp >= 0)
            fprintf(so, "  compress           %.1f MB/s (%.4f s)\n", cli_mbps(in->raw_bytes, r->t_comp), r->t_comp);
        if (r->t_dec >= 0)
            fprintf(so, "  decompress         %.1f MB/s (%.4f s)\n", cli_mbps(in->raw_bytes, r->t_dec), r->t_dec);
        if (!lossless) {
            const char *m = scz_eb_mode_name(in->params.eb_mode);
            fprintf(so, "  error bound        %s %.6g (user), absolute bound used %.6g\n", m ? m : "?",
                    in->params.eb, in->eb_abs);
            print_chunk_workflows(so, r);
        }
        if (have_orig) {
            if (lossless) fprintf(so, "  bit-exact          %s\n", exact ? "yes" : "NO");
            fprintf(so, "  value range        [%.9g, %.9g], range %.9g\n", st.min, st.max, st.range);
            fprintf(so, "  max abs error      %.6g\n", st.max_abs_err);
            fprintf(so, "  max rel error      %.6g (max abs error / value range)\n", st.max_rel_err);
            fprintf(so, "  RMSE               %.6g\n", st.rmse);
            fprintf(so, "  NRMSE              %.6g (RMSE / value range)\n", st.nrmse);
            fprintf(so, "  PSNR               %.4f dB (20 log10(range) - 10 log10(MSE))\n", st.psnr);
            if (st.nonfinite)
                fprintf(so, "  non-finite values  %" PRIu64 " (%" PRIu64 " not reproduced bit for bit)\n",
                        st.nonfinite, st.nonfinite_mismatch);
            if (!lossless)
                fprintf(so, "  bound check        %s (max abs error %.6g %s %.6g)\n", ok ? "ok" : "VIOLATED",
                        st.max_abs_err, st.max_abs_err <= in->eb_abs ? "<=" : ">", in->eb_abs);
        } else {
            fprintf(so, "  (error statistics need the original: compress and decompress in one call,\n"
                        "   or give it with -i when decompressing)\n");
        }
        fflush(so);
    }
    if (!ok) {
        if (lossless)
            cli_error("verification failed: the decoded data is not bit-exact with the original");
        else if (st.nonfinite_mismatch)
            cli_error("verification failed: %" PRIu64 " non-finite values not reproduced", st.nonfinite_mismatch);
        else
            cli_error("verification failed: max abs error %.6g exceeds the bound %.6g", st.max_abs_err,
                      in->eb_abs);
        return CLI_EXIT_VERIFY;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* Compress (and optionally decompress) / decompress (and compare)    */
/* ------------------------------------------------------------------ */
/* Arrays and streams pass chunk by chunk (scz_cstream / scz_dstream), so
 * memory stays at a few chunks whatever the size of the files; outputs go
 * to temporary files renamed into place on success (cli_out). */

static int is_dash(const char *p) { return p && p[0] == '-' && p[1] == 0; }

static scz_codec default_codec(const opts *o) {
    if (o->have_eb) return SCZ_CODEC_LOSSY;
    if (o->dtype == SCZ_DTYPE_F32 || o->dtype == SCZ_DTYPE_F64) return SCZ_CODEC_NDZIP;
    /* Integer data: huffman where it takes the dtype (u8/u16/u32: fast on
     * the CPU and the GPU), else lzss (u64). */
    if (scz_codec_available(SCZ_CODEC_HUFFMAN) && scz_codec_accepts(SCZ_CODEC_HUFFMAN, o->dtype))
        return SCZ_CODEC_HUFFMAN;
    return SCZ_CODEC_LZSS;
}

static double now_minus(double t0) { return cli_now() - t0; }

/* A pass over the data fed piece by piece (cli_in_spool's callback). */
typedef struct pass_sink {
    scz_cstream *cs;
    scz_status st;
    cli_progress *pg;
    uint64_t done, total;
    double t; /* seconds in the library */
} pass_sink;

static void pass_cb(void *user, const void *p, size_t n) {
    pass_sink *ps = user;
    double t0 = cli_now();
    if (!ps->st) ps->st = scz_cstream_pass_feed(ps->cs, p, n);
    ps->t += cli_now() - t0;
    ps->done += n;
    cli_progress_step(ps->pg, ps->done, ps->total);
}

/* Chunk buffers of originals fed to the compressor and not yet decoded
 * back (one on the CPU; a GPU context compresses a few chunks at a time). */
typedef struct orig_queue {
    uint8_t **buf;
    size_t *len;
    size_t cap_bytes;
    uint32_t n, head, count;
} orig_queue;

static uint8_t *queue_slot(orig_queue *q) { /* a free buffer at the tail, growing the ring */
    if (q->count == q->n) {
        uint32_t nn = q->n ? 2 * q->n : 2;
        uint8_t **b = malloc(nn * sizeof *b);
        size_t *l = malloc(nn * sizeof *l);
        if (!b || !l) {
            free(b);
            free(l);
            return NULL;
        }
        for (uint32_t i = 0; i < nn; i++) b[i] = NULL;
        for (uint32_t i = 0; i < q->count; i++) {
            b[i] = q->buf[(q->head + i) % q->n];
            l[i] = q->len[(q->head + i) % q->n];
        }
        for (uint32_t i = 0; i < q->n; i++) /* free slots keep their buffers */
            if (i >= q->count) b[i] = q->buf[(q->head + i) % q->n];
        free(q->buf);
        free(q->len);
        q->buf = b;
        q->len = l;
        q->head = 0;
        q->n = nn;
    }
    uint32_t t = (q->head + q->count) % q->n;
    if (!q->buf[t]) q->buf[t] = malloc(q->cap_bytes ? q->cap_bytes : 1);
    return q->buf[t];
}

static void queue_free(orig_queue *q) {
    for (uint32_t i = 0; i < q->n; i++) free(q->buf[i]);
    free(q->buf);
    free(q->len);
}

static int do_compress(const opts *o) {
    if (!o->dtype)
        return usage_error("missing type: give -f (float32), -d (float64) or -t TYPE");
    if (!o->rank)
        return usage_error("missing dims: give -1 NX, -2 NX NY, -3 NX NY NZ or -4 NX NY NZ NW "
                           "(fastest-varying first)");
    if (!o->z && !o->out && !o->stats)
        return usage_error("nothing to do: give -z STREAM, -o RAW or -s");
    if (is_dash(o->z) && is_dash(o->out))
        return usage_error("-z and -o cannot both write to stdout");

    scz_shape shape;
    memset(&shape, 0, sizeof shape);
    shape.dtype = o->dtype;
    shape.rank = o->rank;
    memcpy(shape.dims, o->dims, sizeof shape.dims);
    size_t es = scz_dtype_size(o->dtype);
    uint64_t count = 1, need = 0;
    int empty = 0;
    for (uint32_t k = 0; k < o->rank; k++) {
        if (o->dims[k] == 0) empty = 1;
        else if (!empty && __builtin_mul_overflow(count, o->dims[k], &count)) {
            char buf[200];
            fmt_dims(buf, sizeof buf, &shape, 0);
            return usage_error("the dims %s hold more values than 64 bits can count", buf);
        }
    }
    if (empty) count = 0;
    if (__builtin_mul_overflow(count, (uint64_t)es, &need) || need > (uint64_t)SIZE_MAX / 2) {
        char buf[200];
        fmt_dims(buf, sizeof buf, &shape, 0);
        return usage_error("the array %s is too large (its byte size overflows)", buf);
    }

    scz_codec codec;
    if (o->codec_arg) {
        codec = scz_codec_from_name(o->codec_arg);
        if (!codec) {
            fflush(stdout);
            fprintf(stderr, "scz: error: unknown codec '%s'; codecs: ", o->codec_arg);
            print_codec_list(stderr);
            fputc('\n', stderr);
            return CLI_EXIT_USAGE;
        }
    } else {
        codec = default_codec(o);
        if (!scz_codec_available(codec)) {
            cli_error("no default codec for %s data%s in this build ('%s' is not built in); choose one with -c "
                      "(codecs: %s)",
                      scz_dtype_name(o->dtype), o->have_eb ? " with an error bound" : "", scz_codec_name(codec),
                      "see scz --version");
            return CLI_EXIT_LIB;
        }
    }
    if (o->lzss_opt && codec != SCZ_CODEC_LZSS)
        return usage_error("%s is a knob of codec lzss, not of %s", o->lzss_opt, scz_codec_name(codec));
    if (o->level_opt && codec != SCZ_CODEC_LOSSY)
        return usage_error("--level is a knob of codec lossy, not of %s", scz_codec_name(codec));
    scz_params params;
    scz_params_init(&params, codec);
    params.eb_mode = o->have_eb ? o->eb_mode : SCZ_EB_NONE;
    params.eb = o->have_eb ? o->eb : 0;
    params.chunk_bytes = o->chunk_bytes;
    memcpy(params.knobs, o->knobs, sizeof params.knobs);
    if (!scz_codec_is_lossless(codec) && !o->have_eb)
        return usage_error("codec '%s' needs an error bound: -M ABS|REL|PSNR BOUND", scz_codec_name(codec));

    char sizemsg[600];
    {
        char buf[200];
        fmt_dims(buf, sizeof buf, &shape, 0);
        snprintf(sizemsg, sizeof sizemsg, "%s %s (fastest first) needs %" PRIu64 " values x %zu bytes = %" PRIu64 " bytes",
                 scz_dtype_name(o->dtype), buf, count, es, need);
    }
    cli_in in;
    int rc = cli_in_open(&in, o->in);
    if (rc) return rc;
    if (in.regular && in.size != need) {
        cli_error("input '%s' has %" PRIu64 " bytes, but %s", cli_in_name(o->in), in.size, sizemsg);
        cli_in_close(&in);
        return CLI_EXIT_USAGE;
    }
    scz_ctx *ctx = NULL;
    if (open_ctx(&ctx, o->threads, o->backend)) {
        cli_in_close(&in);
        return CLI_EXIT_LIB;
    }

    cli_out zout, rout;
    memset(&zout, 0, sizeof zout);
    memset(&rout, 0, sizeof rout);
    zout.fd = rout.fd = -1;
    scz_cstream *cs = NULL;
    uint8_t *rbuf = NULL, *dbuf = NULL;
    orig_queue q;
    memset(&q, 0, sizeof q);
    result r;
    memset(&r, 0, sizeof r);
    r.t_comp = r.t_dec = -1;
    r.acc.exact = 1;
    scz_status st;
    cli_progress pg;
    memset(&pg, 0, sizeof pg);

    if (o->z && (rc = cli_out_open(&zout, o->z))) goto done;
    if (o->out && (rc = cli_out_open(&rout, o->out))) goto done;
    /* a seekable stream output gets the table-first layout (the table is
     * written in place at the end); a pipe the table-last one */
    scz_layout layout = o->z && zout.seekable ? SCZ_LAYOUT_TABLE_FIRST : SCZ_LAYOUT_TABLE_LAST;
    double t0 = cli_now();
    st = scz_cstream_begin(ctx, &params, &shape, o->have_range ? o->range : NULL, layout, &cs);
    r.t_comp = now_minus(t0);
    if (st) {
        lib_error(ctx, st, "cannot compress");
        rc = exit_for_status(st, 1);
        goto done;
    }
    /* REL and PSNR bounds depend on the whole array (its value range, and
     * for PSNR the error of a candidate bound): passes over the input
     * first. A pipe is copied to a temporary file on the first pass. */
    for (int pass = 1; scz_cstream_pass_needed(cs); pass++) {
        char what[64];
        snprintf(what, sizeof what, "pass %d over the input", pass);
        pass_sink ps = {cs, SCZ_OK, &pg, 0, need, 0};
        cli_progress_attach(&pg, ctx, what, need, o->quiet);
        if (!in.regular) {
            rc = cli_in_spool(&in, pass_cb, &ps);
        } else {
            const size_t B = (size_t)32 << 20;
            uint8_t *b = malloc(B);
            if (!b) {
                cli_error("out of memory");
                rc = CLI_EXIT_LIB;
            }
            for (uint64_t left = need; !rc && left;) {
                size_t got;
                if ((rc = cli_in_read(&in, b, left < B ? (size_t)left : B, &got)) || got == 0) break;
                pass_cb(&ps, b, got);
                left -= got;
            }
            free(b);
        }
        cli_progress_done(&pg, ctx);
        if (rc) goto done;
        if (in.size != need) {
            cli_error("input '%s' has %" PRIu64 " bytes, but %s", cli_in_name(o->in), in.size, sizemsg);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        t0 = cli_now();
        if (!ps.st) ps.st = scz_cstream_pass_end(cs);
        r.t_comp += now_minus(t0) + ps.t;
        if (ps.st) {
            lib_error(ctx, ps.st, "cannot compress");
            rc = exit_for_status(ps.st, 1);
            goto done;
        }
        if ((rc = cli_in_rewind(&in))) goto done;
    }
    scz_cstream_info(cs, &r.info);
    int verify = o->out || o->stats;
    uint64_t slow = shape.dims[shape.rank - 1];
    size_t chunk = r.info.num_chunks ? (size_t)(r.info.chunk_slab * (need / slow)) : 1;
    q.cap_bytes = chunk;
    if (!verify && !(rbuf = malloc(chunk))) {
        cli_error("out of memory: a chunk needs %zu bytes", chunk);
        rc = CLI_EXIT_LIB;
        goto done;
    }
    if (verify && !(dbuf = malloc(chunk))) {
        cli_error("out of memory: a chunk needs %zu bytes", chunk);
        rc = CLI_EXIT_LIB;
        goto done;
    }
    r.have_orig = verify;
    cli_progress_attach(&pg, ctx, "compressing", need, o->quiet);
    uint64_t fed = 0;
    for (;;) {
        const void *d;
        size_t k;
        while ((st = scz_cstream_pull(cs, &d, &k)) == SCZ_OK && k)
            if (o->z && (rc = cli_out_write(&zout, d, k))) goto done;
        scz_chunk_info ci;
        while (scz_cstream_inspect_chunk(cs, r.chunks_seen, &ci) == SCZ_OK) note_chunk(&r, &ci);
        if (verify) { /* round trip: decode each chunk back, compare with its original */
            for (;;) {
                t0 = cli_now();
                st = scz_cstream_decode(cs, dbuf, chunk, &k);
                r.t_dec = (r.t_dec < 0 ? 0 : r.t_dec) + now_minus(t0);
                if (st || !k) break;
                if (!q.count || q.len[q.head] != k) {
                    cli_error("internal error: a decoded chunk without its original");
                    rc = CLI_EXIT_LIB;
                    goto done;
                }
                if (acc_add(&r.acc, o->dtype, q.buf[q.head], dbuf, k)) {
                    cli_error("cannot compute the error statistics");
                    rc = CLI_EXIT_LIB;
                    goto done;
                }
                q.head = (q.head + 1) % q.n;
                q.count--;
                if (o->out && (rc = cli_out_write(&rout, dbuf, k))) goto done;
            }
        }
        if (st) {
            lib_error(ctx, st, "cannot compress");
            rc = exit_for_status(st, 1);
            goto done;
        }
        if (fed == need) break;
        size_t want = need - fed < chunk ? (size_t)(need - fed) : chunk, got;
        uint8_t *b = verify ? queue_slot(&q) : rbuf;
        if (!b) {
            cli_error("out of memory: a chunk needs %zu bytes", chunk);
            rc = CLI_EXIT_LIB;
            goto done;
        }
        if ((rc = cli_in_read(&in, b, want, &got))) goto done;
        if (got < want) {
            cli_error("input '%s' has %" PRIu64 " bytes, but %s", cli_in_name(o->in), in.done, sizemsg);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        if (verify) {
            q.len[(q.head + q.count) % q.n] = got;
            q.count++;
        }
        for (size_t off = 0; off < got;) { /* whole chunks: taken at once, no copy */
            size_t used;
            t0 = cli_now();
            st = scz_cstream_feed(cs, b + off, got - off, &used);
            r.t_comp += now_minus(t0);
            if (st) break;
            off += used;
            if (off < got) { /* bytes waiting: write them out */
                while ((st = scz_cstream_pull(cs, &d, &k)) == SCZ_OK && k)
                    if (o->z && (rc = cli_out_write(&zout, d, k))) goto done;
                if (st) break;
            }
        }
        if (st) {
            lib_error(ctx, st, "cannot compress");
            rc = exit_for_status(st, 1);
            goto done;
        }
        fed += got;
    }
    if (!in.regular) { /* a pipe must end here */
        uint8_t extra;
        size_t got;
        if ((rc = cli_in_read(&in, &extra, 1, &got))) goto done;
        if (got) {
            cli_error("input '%s' has more than %" PRIu64 " bytes: %s", cli_in_name(o->in), need, sizemsg);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
    }
    {
        const void *d;
        size_t k;
        uint64_t at;
        t0 = cli_now();
        st = scz_cstream_end(cs, &d, &k, &at, &r.stream_size);
        r.t_comp += now_minus(t0);
        if (st) {
            lib_error(ctx, st, "cannot compress");
            rc = CLI_EXIT_LIB;
            goto done;
        }
        if (o->z) {
            if (layout == SCZ_LAYOUT_TABLE_FIRST) rc = cli_out_pwrite(&zout, d, k, at);
            else rc = cli_out_write(&zout, d, k);
            if (rc) goto done;
        }
    }
    cli_progress_done(&pg, ctx);
    scz_cstream_info(cs, &r.info);
    r.info.stream_bytes = r.stream_size;
    if (!verify) r.t_dec = -1;
    {
        int data_on_stdout = is_dash(o->z) || is_dash(o->out);
        rc = report(data_on_stdout ? stderr : stdout, &r, o->stats);
    }
    /* The stream and the decoded array are kept even when verification
     * fails, so that they can be inspected; the exit code says it failed. */
    if (o->z) {
        int wrc = cli_out_commit(&zout);
        if (wrc && !rc) rc = wrc;
    }
    if (o->out) {
        int wrc = cli_out_commit(&rout);
        if (wrc && !rc) rc = wrc;
    }
done:
    cli_progress_done(&pg, ctx);
    cli_out_abort(&zout);
    cli_out_abort(&rout);
    scz_cstream_free(cs);
    scz_ctx_destroy(ctx);
    cli_in_close(&in);
    queue_free(&q);
    free(rbuf);
    free(dbuf);
    return rc;
}

/* Checks a type/dims given on a pure decompress against the stream. */
static int check_given_shape(const opts *o, const scz_info *pinfo) {
    scz_info info = *pinfo;
    if (o->dtype && o->dtype != info.shape.dtype) {
        cli_error("the stream holds %s data, the options say %s", scz_dtype_name(info.shape.dtype),
                  scz_dtype_name(o->dtype));
        return CLI_EXIT_USAGE;
    }
    if (o->rank) {
        int same = o->rank == info.shape.rank;
        for (uint32_t k = 0; same && k < o->rank; k++) same = o->dims[k] == info.shape.dims[k];
        if (!same) {
            char a[200], b[200];
            scz_shape given = info.shape;
            given.rank = o->rank;
            memcpy(given.dims, o->dims, sizeof given.dims);
            fmt_dims(a, sizeof a, &info.shape, 0);
            fmt_dims(b, sizeof b, &given, 0);
            cli_error("the stream holds dims %s, the options say %s (fastest first)", a, b);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

static int orig_size_error(const opts *o, const scz_info *info, uint64_t have, int more) {
    char buf[200];
    fmt_dims(buf, sizeof buf, &info->shape, 0);
    cli_error("original '%s' has %s%" PRIu64 " bytes, but the stream holds %s %s (fastest first) = %" PRIu64 " bytes",
              cli_in_name(o->in), more ? "more than " : "", have, scz_dtype_name(info->shape.dtype), buf,
              info->raw_bytes);
    return CLI_EXIT_USAGE;
}

static int do_decompress(const opts *o) {
    /* In compare mode -i is the original; type and dims come from the stream. */
    if (!o->out && !o->stats && !o->in)
        return usage_error("nothing to do: give -o RAW (decompress) or -s (statistics)");
    if (is_dash(o->z) && is_dash(o->in))
        return usage_error("-z and -i cannot both read from stdin");
    if (o->codec_arg || o->have_eb || o->chunk_bytes || o->have_range)
        if (!o->quiet)
            cli_warn("-c, -M, -C and --range apply when compressing; the stream's own settings are used");

    const char *zname = cli_in_name(o->z);
    cli_in zin, oin;
    memset(&oin, 0, sizeof oin);
    oin.fd = -1;
    int rc = cli_in_open(&zin, o->z);
    if (rc) return rc;
    scz_ctx *ctx = NULL;
    if (open_ctx(&ctx, o->threads, o->backend)) {
        cli_in_close(&zin);
        return CLI_EXIT_LIB;
    }
    cli_out rout;
    memset(&rout, 0, sizeof rout);
    rout.fd = -1;
    scz_dstream *ds = NULL;
    const size_t B = (size_t)4 << 20;
    uint8_t *zbuf = malloc(B), *chunk = NULL, *obuf = NULL;
    size_t chunk_cap = 0;
    result r;
    memset(&r, 0, sizeof r);
    r.t_comp = -1;
    r.t_dec = 0;
    r.acc.exact = 1;
    cli_progress pg;
    memset(&pg, 0, sizeof pg);
    scz_status st = scz_dstream_begin(ctx, &ds);
    if (st || !zbuf) {
        cli_error("out of memory");
        rc = CLI_EXIT_LIB;
        goto done;
    }
    if (o->in && (rc = cli_in_open(&oin, o->in))) goto done;
    if (o->out && (rc = cli_out_open(&rout, o->out))) goto done;

    int have_info = 0, ended = 0;
    uint64_t zread = 0;
    while (!ended) {
        size_t got;
        if ((rc = cli_in_read(&zin, zbuf, B, &got))) goto done;
        zread += got;
        if (got == 0) break;
        for (size_t off = 0; off < got;) {
            size_t used, k;
            double t0 = cli_now();
            st = scz_dstream_feed(ds, zbuf + off, got - off, &used);
            r.t_dec += now_minus(t0);
            if (st) {
                char what[1200];
                snprintf(what, sizeof what, "'%s' is not a valid scz stream", zname);
                lib_error(ctx, st, what);
                rc = CLI_EXIT_LIB;
                goto done;
            }
            off += used;
            if (!have_info && scz_dstream_info(ds, &r.info) == SCZ_OK) {
                have_info = 1;
                if (!o->in && (rc = check_given_shape(o, &r.info))) goto done;
                if (o->in && oin.regular && oin.size != r.info.raw_bytes) {
                    rc = orig_size_error(o, &r.info, oin.size, 0);
                    goto done;
                }
                uint64_t slow = r.info.shape.dims[r.info.shape.rank - 1];
                chunk_cap = r.info.raw_bytes ? (size_t)(r.info.chunk_slab * (r.info.raw_bytes / slow)) : 1;
                chunk = malloc(chunk_cap);
                if (o->in) obuf = malloc(chunk_cap);
                if (!chunk || (o->in && !obuf)) {
                    cli_error("out of memory: a chunk needs %zu bytes", chunk_cap);
                    rc = CLI_EXIT_LIB;
                    goto done;
                }
                cli_progress_attach(&pg, ctx, "decompressing", r.info.raw_bytes, o->quiet);
            }
            int pulled = 0;
            for (;;) {
                if (!chunk) break;
                t0 = cli_now();
                st = scz_dstream_pull(ds, chunk, chunk_cap, &k);
                r.t_dec += now_minus(t0);
                if (st) {
                    char what[1200];
                    snprintf(what, sizeof what, "cannot decompress '%s'", zname);
                    lib_error(ctx, st, what);
                    rc = CLI_EXIT_LIB;
                    goto done;
                }
                if (!k) break;
                pulled = 1;
                scz_chunk_info ci;
                if (scz_dstream_inspect_chunk(ds, r.chunks_seen, &ci) == SCZ_OK) note_chunk(&r, &ci);
                if (o->out && (rc = cli_out_write(&rout, chunk, k))) goto done;
                if (o->in) {
                    size_t og;
                    if ((rc = cli_in_read(&oin, obuf, k, &og))) goto done;
                    if (og < k) {
                        rc = orig_size_error(o, &r.info, oin.done, 0);
                        goto done;
                    }
                    if (acc_add(&r.acc, r.info.shape.dtype, obuf, chunk, k)) {
                        cli_error("cannot compute the error statistics");
                        rc = CLI_EXIT_LIB;
                        goto done;
                    }
                }
            }
            if (used == 0 && !pulled) { /* the stream has ended before these bytes */
                uint64_t extra = got - off;
                if (zin.regular) extra = zin.size - (zread - extra);
                cli_error("'%s' is not a valid scz stream: %" PRIu64 " unexpected bytes after the end of the stream",
                          zname, extra);
                rc = CLI_EXIT_LIB;
                goto done;
            }
        }
    }
    st = scz_dstream_end(ds);
    if (st) {
        char what[1200];
        snprintf(what, sizeof what, "'%s' is not a valid scz stream", zname);
        lib_error(ctx, st, what);
        rc = CLI_EXIT_LIB;
        goto done;
    }
    scz_dstream_info(ds, &r.info);
    cli_progress_done(&pg, ctx);
    r.stream_size = r.info.stream_bytes;
    if (o->in) {
        r.have_orig = 1;
        if (!oin.regular) {
            uint8_t extra;
            size_t og;
            if ((rc = cli_in_read(&oin, &extra, 1, &og))) goto done;
            if (og) {
                rc = orig_size_error(o, &r.info, r.info.raw_bytes, 1);
                goto done;
            }
        }
    }
    rc = report(is_dash(o->out) ? stderr : stdout, &r, o->stats);
    if (o->out) {
        int wrc = cli_out_commit(&rout);
        if (wrc && !rc) rc = wrc;
    }
done:
    cli_progress_done(&pg, ctx);
    cli_out_abort(&rout);
    scz_dstream_free(ds);
    scz_ctx_destroy(ctx);
    cli_in_close(&zin);
    if (o->in) cli_in_close(&oin);
    free(zbuf);
    free(chunk);
    free(obuf);
    return rc;
}

/* ------------------------------------------------------------------ */
/* scz info                                                           */
/* ------------------------------------------------------------------ */

static void release(uint8_t *s, size_t mapped) {
    if (mapped) munmap(s, mapped);
    else free(s);
}

static int cmd_info(int argc, char **argv) {
    const char *path = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: scz info STREAM   (STREAM '-' reads stdin)\n");
            return CLI_EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1]) return usage_error("unknown option '%s' for info", argv[i]);
        if (path) return usage_error("info takes one stream ('%s' and '%s' given)", path, argv[i]);
        path = argv[i];
    }
    if (!path) return usage_error("usage: scz info STREAM");
    /* A file is mapped, not read: only the header and the table (and, in
     * the table-last layout, the frames) are touched, whatever its size. */
    uint8_t *s = NULL;
    size_t n = 0, mapped = 0;
    int rc = CLI_EXIT_OK;
    {
        int fd = is_dash(path) ? -1 : open(path, O_RDONLY);
        struct stat sb;
        if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
            (uint64_t)sb.st_size <= (uint64_t)SIZE_MAX) {
            void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m != MAP_FAILED) {
                s = m;
                n = mapped = (size_t)sb.st_size;
            }
        }
        if (fd >= 0) close(fd);
    }
    if (!mapped && (rc = cli_read_all(path, &s, &n))) return rc;
    scz_info in;
    scz_status st = scz_inspect(s, n, &in);
    if (st) {
        scz_ctx *ctx = NULL;
        scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
        stream_error(ctx, st, s, n, cli_in_name(path));
        scz_ctx_destroy(ctx);
        release(s, mapped);
        return CLI_EXIT_LIB;
    }
    if (in.stream_bytes != (uint64_t)n) {
        cli_error("'%s' is not a valid scz stream: %" PRIu64 " unexpected bytes after the end of the stream",
                  cli_in_name(path), (uint64_t)n - in.stream_bytes);
        release(s, mapped);
        return CLI_EXIT_LIB;
    }
    char cname[32], d1[200], d2[200];
    codec_label(cname, sizeof cname, in.params.codec);
    fmt_dims(d1, sizeof d1, &in.shape, 0);
    fmt_dims(d2, sizeof d2, &in.shape, 1);
    uint64_t count = in.raw_bytes ? scz_shape_count(&in.shape) : 0;
    int lossless = scz_codec_is_lossless(in.params.codec);
    const char *dn = scz_dtype_name(in.shape.dtype);
    printf("stream             %s\n", cli_in_name(path));
    printf("format version     %u\n", in.format_version);
    printf("layout             %s\n", (s[15] & 1) ? "table last (FORMAT.md 9: written to a pipe)" : "table first");
    printf("codec              %s (%s)\n", cname, lossless ? "lossless" : "lossy");
    printf("dtype              %s (%zu bytes per value)\n", dn ? dn : "?", scz_dtype_size(in.shape.dtype));
    printf("rank               %u\n", in.shape.rank);
    printf("dims               %s (fastest first: -%u", d1, in.shape.rank);
    for (uint32_t k = 0; k < in.shape.rank; k++) printf(" %" PRIu64, in.shape.dims[k]);
    printf(")\n");
    printf("shape              %s (slowest first, C order)\n", d2);
    printf("values             %" PRIu64 "\n", count);
    printf("raw bytes          %" PRIu64 "\n", in.raw_bytes);
    printf("stream bytes       %" PRIu64 "\n", in.stream_bytes);
    if (in.raw_bytes && in.stream_bytes) {
        printf("ratio              %.4f (original/compressed); %.6f (compressed/original)\n",
               (double)in.raw_bytes / (double)in.stream_bytes, (double)in.stream_bytes / (double)in.raw_bytes);
        printf("bit rate           %.4f bits/value\n", 8.0 * (double)in.stream_bytes / (double)count);
    }
    const char *m = scz_eb_mode_name(in.params.eb_mode);
    if (in.params.eb_mode == SCZ_EB_NONE) printf("error bound        none\n");
    else
        printf("error bound        %s %.9g (user), absolute bound used %.9g\n", m ? m : "?", in.params.eb,
               in.eb_abs);
    int any_knob = 0;
    for (int k = 0; k < SCZ_NUM_KNOBS; k++) any_knob |= in.params.knobs[k] != 0;
    if (any_knob) {
        printf("knobs             ");
        for (int k = 0; k < SCZ_NUM_KNOBS; k++) printf(" %d=%u", k, in.params.knobs[k]);
        printf("\n");
    }
    printf("chunks             %u (slab: %" PRIu64 " slowest-dimension indices per chunk)\n", in.num_chunks,
           in.chunk_slab);
    if (in.num_chunks) {
        printf("\n%6s %14s %14s %14s %14s %9s %10s  %s\n", "chunk", "offset", "size", "raw offset", "raw bytes",
               "ratio", "codec_info", "checksum");
        for (uint32_t i = 0; i < in.num_chunks; i++) {
            scz_chunk_info ci;
            if ((st = scz_inspect_chunk(s, n, i, &ci))) {
                cli_error("chunk %u: %s", i, scz_status_string(st));
                release(s, mapped);
                return CLI_EXIT_LIB;
            }
            const char *w = cli_workflow_name(in.params.codec, ci.codec_info);
            char ratio[32];
            if (ci.size) snprintf(ratio, sizeof ratio, "%.3f", (double)ci.raw_bytes / (double)ci.size);
            else snprintf(ratio, sizeof ratio, "-");
            printf("%6u %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %9s %10u  %016" PRIx64 "%s%s%s\n", i,
                   ci.offset, ci.size, ci.raw_offset, ci.raw_bytes, ratio, ci.codec_info, ci.checksum,
                   w ? " (" : "", w ? w : "", w ? ")" : "");
        }
        if (in.params.codec == SCZ_CODEC_LOSSY) printf("codec_info (lossy workflow): 1 = Huffman, 2 = run-length\n");
    }
    release(s, mapped);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write to stdout");
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ */
/* scz demo                                                           */
/* ------------------------------------------------------------------ */

static int cmd_demo(int argc, char **argv) {
    int threads = 0, quiet = 0;
    for (int i = 2; i < argc; i++) {
        uint64_t t;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: scz demo [-n THREADS] [-q]\n"
                   "Generates a smooth 3D float32 field and a turbulence-like 2D float64 field,\n"
                   "compresses and decompresses each with every codec of this build, verifies\n"
                   "the results and prints a table. Exit code 4 if a verification fails.\n");
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            if (!parse_u64(argv[++i], &t) || t > INT_MAX) return usage_error("bad thread count '%s'", argv[i]);
            threads = (int)t;
        } else if (!strcmp(argv[i], "-q")) {
            quiet = 1;
        } else {
            return usage_error("unknown option '%s' for demo", argv[i]);
        }
    }
    return cli_demo(threads, quiet);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv) {
    if (argc < 2) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "info")) return cmd_info(argc, argv);
    if (!strcmp(argv[1], "demo")) return cmd_demo(argc, argv);
    if (!strcmp(argv[1], "help")) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }

    opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc >= 0) return rc;

    int shape_given = o.dtype || o.rank;
    if (o.in && (shape_given || !o.z)) return do_compress(&o);
    if (o.z) {
        return do_decompress(&o);
    }
    if (o.out) return usage_error("-o needs a source: -z STREAM, or -i RAW with type and dims");
    return usage_error("nothing to do: give -i RAW (compress) or -z STREAM (decompress)");
}

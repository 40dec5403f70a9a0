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
#include <stdlib.h>
#include <string.h>

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
        "  -c CODEC     ndzip (lossless float, default for f32/f64), gfc, lzss, huffman,\n"
        "               lossy (error-bounded; the default when -M is given)\n"
        "  -M MODE B    error bound of the lossy codec: ABS B (|x-x'| <= B), REL B\n"
        "               (|x-x'| <= B * (max-min)), PSNR B (target PSNR in dB).\n"
        "               A bound with a lossless codec is an error.\n"
        "  -k I=V       codec knob I (0..5) set to V (lossy: 0 = quantization radius,\n"
        "               1 = workflow 0 auto / 1 Huffman / 2 run-length)\n"
        "  --radius N   same as -k 0=N        --workflow auto|huffman|rle   same as -k 1=...\n"
        "  -C BYTES     raw bytes per chunk (suffix K, M, G: binary units; default 32M)\n"
        "  --chunk-mb N raw MiB per chunk\n"
        "  -n THREADS   CPU threads (default: all cores)\n"
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
    uint64_t chunk_bytes;
    int threads;
    int stats, quiet;
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

static scz_status open_ctx(scz_ctx **ctx, int threads) {
    scz_status st = scz_ctx_create(ctx, SCZ_BACKEND_CPU);
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

typedef struct result {
    scz_info info;          /* of the stream */
    const uint8_t *stream;  /* the stream bytes */
    size_t stream_size;
    const uint8_t *orig;    /* original raw data, or NULL */
    const uint8_t *dec;     /* decoded raw data, or NULL */
    double t_comp, t_dec;   /* seconds, < 0 if not measured */
} result;

static void print_chunk_workflows(FILE *so, const result *r) {
    if (r->info.params.codec != SCZ_CODEC_LOSSY || r->info.num_chunks == 0) return;
    /* Count chunks per workflow value; list them compactly. */
    uint64_t counts[4] = {0, 0, 0, 0}; /* stored, Huffman, run-length, other */
    fprintf(so, "  chunk workflow     ");
    for (uint32_t i = 0; i < r->info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(r->stream, r->stream_size, i, &ci)) continue;
        if (ci.codec_info <= 2) counts[ci.codec_info]++;
        else counts[3]++;
        if (r->info.num_chunks <= 16) {
            const char *w = cli_workflow_name(r->info.params.codec, ci.codec_info);
            fprintf(so, "%s%u", i ? ", " : "", ci.codec_info);
            if (w) fprintf(so, " (%s)", w);
        }
    }
    if (r->info.num_chunks > 16)
        fprintf(so, "%" PRIu64 " stored (0), %" PRIu64 " Huffman (1), %" PRIu64 " run-length (2), %" PRIu64 " other",
                counts[0], counts[1], counts[2], counts[3]);
    fprintf(so, "   [per chunk; codec_info: 0 = stored, 1 = Huffman, 2 = run-length]\n");
}

/* Verifies decoded data against the original when both are at hand, and
 * prints the statistics if asked. Returns an exit code. */
static int report(FILE *so, const result *r, int stats) {
    const scz_info *in = &r->info;
    scz_codec codec = in->params.codec;
    int lossless = scz_codec_is_lossless(codec);
    uint64_t count = scz_shape_count(&in->shape);
    if (in->raw_bytes == 0) count = 0;
    int have_orig = r->orig && r->dec;
    scz_stats st;
    memset(&st, 0, sizeof st);
    int exact = 0, ok = 1;
    if (have_orig) {
        exact = in->raw_bytes == 0 || memcmp(r->orig, r->dec, (size_t)in->raw_bytes) == 0;
        if (count && scz_stats_compute(in->shape.dtype, r->orig, r->dec, count, &st) != SCZ_OK) {
            cli_error("cannot compute the error statistics");
            return CLI_EXIT_LIB;
        }
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
        fprintf(so, "  compressed bytes   %zu\n", r->stream_size);
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

static int is_dash(const char *p) { return p && p[0] == '-' && p[1] == 0; }

/* Decodes r->stream into a new buffer (*dec), timing it. */
static int decode_stream(scz_ctx *ctx, result *r, uint8_t **dec, const char *name, int quiet) {
    size_t cap = (size_t)r->info.raw_bytes;
    *dec = malloc(cap ? cap : 1);
    if (!*dec) {
        cli_error("out of memory: the decoded array needs %" PRIu64 " bytes", r->info.raw_bytes);
        return CLI_EXIT_LIB;
    }
    cli_progress pg;
    cli_progress_attach(&pg, ctx, "decompressing", r->info.raw_bytes, quiet);
    double t0 = cli_now();
    scz_status st = scz_decompress(ctx, r->stream, r->stream_size, *dec, cap, NULL);
    r->t_dec = cli_now() - t0;
    cli_progress_done(&pg, ctx);
    if (st) {
        char what[1200];
        snprintf(what, sizeof what, "cannot decompress '%s'", name);
        lib_error(ctx, st, what);
        return CLI_EXIT_LIB;
    }
    r->dec = *dec;
    return CLI_EXIT_OK;
}

static scz_codec default_codec(const opts *o) {
    if (o->have_eb) return SCZ_CODEC_LOSSY;
    if (o->dtype == SCZ_DTYPE_F32 || o->dtype == SCZ_DTYPE_F64) return SCZ_CODEC_NDZIP;
    /* Integer data: the first lossless byte/symbol codec this build has. */
    if (scz_codec_available(SCZ_CODEC_LZSS)) return SCZ_CODEC_LZSS;
    if (scz_codec_available(SCZ_CODEC_HUFFMAN)) return SCZ_CODEC_HUFFMAN;
    return SCZ_CODEC_LZSS;
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
    scz_params params;
    scz_params_init(&params, codec);
    params.eb_mode = o->have_eb ? o->eb_mode : SCZ_EB_NONE;
    params.eb = o->have_eb ? o->eb : 0;
    params.chunk_bytes = o->chunk_bytes;
    memcpy(params.knobs, o->knobs, sizeof params.knobs);
    if (!scz_codec_is_lossless(codec) && !o->have_eb)
        return usage_error("codec '%s' needs an error bound: -M ABS|REL|PSNR BOUND", scz_codec_name(codec));

    uint8_t *raw = NULL, *stream = NULL, *dec = NULL;
    size_t raw_size = 0;
    scz_ctx *ctx = NULL;
    int rc = cli_read_all(o->in, &raw, &raw_size);
    if (rc) return rc;
    if ((uint64_t)raw_size != need) {
        char buf[200];
        fmt_dims(buf, sizeof buf, &shape, 0);
        cli_error("input '%s' has %zu bytes, but %s %s (fastest first) needs %" PRIu64 " values x %zu bytes = %" PRIu64
                  " bytes",
                  cli_in_name(o->in), raw_size, scz_dtype_name(o->dtype), buf, count, es, need);
        free(raw);
        return CLI_EXIT_USAGE;
    }
    if (open_ctx(&ctx, o->threads)) {
        free(raw);
        return CLI_EXIT_LIB;
    }

    result r;
    memset(&r, 0, sizeof r);
    r.t_comp = r.t_dec = -1;
    size_t cap = scz_compress_bound(&shape, &params);
    scz_status st;
    if (cap == 0) {
        /* Invalid parameters: compressing into nothing yields the library's reason. */
        uint8_t dummy;
        size_t n;
        st = scz_compress(ctx, &params, &shape, raw, &dummy, 0, &n);
        if (st == SCZ_OK || st == SCZ_ERR_DST_TOO_SMALL) {
            cli_error("cannot compute the compressed size bound of this array (size overflow)");
            rc = CLI_EXIT_LIB;
        } else {
            lib_error(ctx, st, "cannot compress");
            rc = exit_for_status(st, 1);
        }
        goto done;
    }
    stream = malloc(cap);
    if (!stream) {
        cli_error("out of memory: the compressed stream may need %zu bytes", cap);
        rc = CLI_EXIT_LIB;
        goto done;
    }
    cli_progress pg;
    cli_progress_attach(&pg, ctx, "compressing", need, o->quiet);
    double t0 = cli_now();
    st = scz_compress(ctx, &params, &shape, raw, stream, cap, &r.stream_size);
    r.t_comp = cli_now() - t0;
    cli_progress_done(&pg, ctx);
    if (st) {
        lib_error(ctx, st, "cannot compress");
        rc = exit_for_status(st, 1);
        goto done;
    }
    r.stream = stream;
    r.orig = raw;
    if ((st = scz_inspect(stream, r.stream_size, &r.info))) {
        lib_error(NULL, st, "the stream just written does not inspect");
        rc = CLI_EXIT_LIB;
        goto done;
    }
    if (o->z && (rc = cli_write_all(o->z, stream, r.stream_size))) goto done;
    if (o->out || o->stats) {
        if ((rc = decode_stream(ctx, &r, &dec, "the new stream", o->quiet))) goto done;
    }
    {
        int data_on_stdout = is_dash(o->z) || is_dash(o->out);
        rc = report(data_on_stdout ? stderr : stdout, &r, o->stats);
    }
    /* The decoded array is written even when it fails verification, so
     * that it can be inspected; the exit code says it failed. */
    if (o->out) {
        int wrc = cli_write_all(o->out, dec, (size_t)r.info.raw_bytes);
        if (wrc && !rc) rc = wrc;
    }
done:
    scz_ctx_destroy(ctx);
    free(raw);
    free(stream);
    free(dec);
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

static int do_decompress(const opts *o) {
    /* In compare mode -i is the original; type and dims come from the stream. */
    if (!o->out && !o->stats && !o->in)
        return usage_error("nothing to do: give -o RAW (decompress) or -s (statistics)");
    if (is_dash(o->z) && is_dash(o->in))
        return usage_error("-z and -i cannot both read from stdin");
    if (o->codec_arg || o->have_eb || o->chunk_bytes)
        if (!o->quiet)
            cli_warn("-c, -M and -C apply when compressing; the stream's own settings are used");

    uint8_t *stream = NULL, *dec = NULL, *orig = NULL;
    size_t stream_size = 0, orig_size = 0;
    scz_ctx *ctx = NULL;
    int rc = cli_read_all(o->z, &stream, &stream_size);
    if (rc) return rc;
    if (open_ctx(&ctx, o->threads)) {
        free(stream);
        return CLI_EXIT_LIB;
    }
    result r;
    memset(&r, 0, sizeof r);
    r.t_comp = r.t_dec = -1;
    r.stream = stream;
    r.stream_size = stream_size;
    scz_status st = scz_inspect(stream, stream_size, &r.info);
    if (st) {
        stream_error(ctx, st, stream, stream_size, cli_in_name(o->z));
        rc = CLI_EXIT_LIB;
        goto done;
    }
    if (!o->in && (rc = check_given_shape(o, &r.info))) goto done;
    if (o->in) {
        if ((rc = cli_read_all(o->in, &orig, &orig_size))) goto done;
        if ((uint64_t)orig_size != r.info.raw_bytes) {
            char buf[200];
            fmt_dims(buf, sizeof buf, &r.info.shape, 0);
            cli_error("original '%s' has %zu bytes, but the stream holds %s %s (fastest first) = %" PRIu64 " bytes",
                      cli_in_name(o->in), orig_size, scz_dtype_name(r.info.shape.dtype), buf, r.info.raw_bytes);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        r.orig = orig;
    }
    if ((rc = decode_stream(ctx, &r, &dec, cli_in_name(o->z), o->quiet))) goto done;
    rc = report(is_dash(o->out) ? stderr : stdout, &r, o->stats);
    if (o->out) {
        int wrc = cli_write_all(o->out, dec, (size_t)r.info.raw_bytes);
        if (wrc && !rc) rc = wrc;
    }
done:
    scz_ctx_destroy(ctx);
    free(stream);
    free(orig);
    free(dec);
    return rc;
}

/* ------------------------------------------------------------------ */
/* scz info                                                           */
/* ------------------------------------------------------------------ */

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
    uint8_t *s;
    size_t n;
    int rc = cli_read_all(path, &s, &n);
    if (rc) return rc;
    scz_info in;
    scz_status st = scz_inspect(s, n, &in);
    if (st) {
        scz_ctx *ctx = NULL;
        scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
        stream_error(ctx, st, s, n, cli_in_name(path));
        scz_ctx_destroy(ctx);
        free(s);
        return CLI_EXIT_LIB;
    }
    if (in.stream_bytes != (uint64_t)n) {
        cli_error("'%s' is not a valid scz stream: %" PRIu64 " unexpected bytes after the end of the stream",
                  cli_in_name(path), (uint64_t)n - in.stream_bytes);
        free(s);
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
                free(s);
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
    free(s);
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

/*
 * scz_bench.c -- CPU benchmark of the scz codecs beside zfp and zstd on
 * real fields (DESIGN.md, Performance method; bench/README.md).
 *
 * Per file x codec x setting it measures the compression ratio, bits per
 * value, compress and decompress throughput (raw bytes / wall time, the
 * median of R timed repetitions after warm-up, CLOCK_MONOTONIC, all cores
 * by default) and verifies every round trip: lossless codecs bit for bit,
 * the lossy codec against its error bound. A failed check is printed as
 * FAIL and makes the exit status nonzero. Results go to a table on stdout
 * and to a CSV file.
 */
#include "median.h"
#include "bench.h"
#include "quant_codes.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Smooth 3D float32 fields of ../shared/data, where the CPU throughput
 * targets apply (issue 2: ndzip >= 1 GB/s per core; issue 3: lossy >= 300
 * MB/s per core at REL 1e-3). Matched as file-name prefixes. */
static const char *const smooth3d_prefixes[] = {"cesm_trefht_", "sperr_wmag", "ncep_climo_T",
                                                "synthetic_smooth" /* the generated stand-in */};
#define NSMOOTH (sizeof smooth3d_prefixes / sizeof smooth3d_prefixes[0])

#define MAX_INPUTS 256
#define MAX_RELS 8

/* ------------------------------------------------------------------ */
/* options                                                             */
/* ------------------------------------------------------------------ */
typedef struct input {
    char path[4096];
    int explicit_dims;
    uint32_t rank;
    uint64_t dims[SCZ_MAX_RANK]; /* fastest first */
    scz_dtype dtype;
    int synthetic;               /* 1: smooth 3D f32, 2: noisy 2D f64 (generated) */
    int bad;                     /* could not be loaded: reported once, then skipped */
} input;

typedef struct options {
    const char *data_dir;
    const char *csv_path;
    const char *only;            /* comma-separated substrings of file names */
    int threads;
    int reps;
    int warmup;
    int lossless;
    int lossy;
    int synthetic;
    uint64_t chunk_bytes;
    int nrels;
    double rels[MAX_RELS];
    int ninputs;
    input inputs[MAX_INPUTS];
} options;

static uint32_t g_lossy_level; /* --level: knobs[2] of the lossy runs */
static double g_int_rel;       /* --int-codes REL: also each field's u16 quantization codes (lossless section) */

static void usage(FILE *o) {
    fprintf(o,
            "usage: scz_bench [options]\n"
            "Benchmarks scz's CPU codecs beside zfp and zstd on raw little-endian arrays.\n"
            "\n"
            "inputs (default: every *.f32 / *.f64 file of the data directory):\n"
            "  --data DIR          data directory (else $SCZ_DATA_DIR, else ../shared/data or\n"
            "                      ../../shared/data relative to the current directory)\n"
            "  --file PATH         benchmark this file (repeatable; replaces the directory scan)\n"
            "  --dims nx,ny,nz     dimensions of the preceding --file, FASTEST FIRST\n"
            "                      (default: parsed from NAME_D1xD2xD3.f32, which is slowest first)\n"
            "  --type f32|f64      dtype of the preceding --file (default: from the extension)\n"
            "  --only S1,S2,...    keep files whose name contains one of these substrings\n"
            "  --synthetic         add two generated fields (used alone when no data is found)\n"
            "measurement:\n"
            "  --threads N         threads for every codec (default: all online cores)\n"
            "  --reps R            timed repetitions, the median is reported (default 5)\n"
            "  --warmup W          untimed runs before them (default 1)\n"
            "  --quick             1 repetition, no warm-up (CI smoke run)\n"
            "  --chunk-bytes N     scz chunk size (default: the library's)\n"
            "  --rel A,B,...       lossy REL bounds (default 1e-2,1e-3,1e-4)\n"
            "  --level N           lossy level (knobs[2]): 0 default, 1 high ratio\n"
            "  --int-codes REL     lossless section: also each field's u16 Lorenzo quantization codes at REL\n"
            "                      (cuSZ's codes, as gpuLZ's quant datasets): lzss, zstd, lz4, shuffled or not\n"
            "  --no-lossless       skip the lossless section\n"
            "  --no-lossy          skip the lossy section\n"
            "output:\n"
            "  --csv PATH          CSV file (default bench-results.csv in the current directory)\n"
            "  --no-csv            write no CSV\n"
            "  -h, --help          this text\n"
            "exit status: 0 all checks passed, 1 a round trip or bound check FAILED or a codec\n"
            "errored, 2 bad arguments or no input.\n");
}

static int parse_u64_list(const char *s, uint64_t *out, int max) {
    int n = 0;
    while (*s) {
        if (n == max) return -1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || errno || v == 0) return -1;
        out[n++] = v;
        s = end;
        if (*s == ',' || *s == 'x') s++;
        else if (*s) return -1;
    }
    return n;
}

static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->csv_path = "bench-results.csv";
    o->reps = 5;
    o->warmup = 1;
    o->lossless = o->lossy = 1;
    o->nrels = 3;
    o->rels[0] = 1e-2;
    o->rels[1] = 1e-3;
    o->rels[2] = 1e-4;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                                       \
    do {                                                                 \
        if (!v) {                                                        \
            fprintf(stderr, "scz_bench: %s needs an argument\n", a);     \
            return -1;                                                   \
        }                                                                \
        i++;                                                             \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--data")) {
            NEED_ARG();
            o->data_dir = v;
        } else if (!strcmp(a, "--file")) {
            NEED_ARG();
            if (o->ninputs == MAX_INPUTS) {
                fprintf(stderr, "scz_bench: at most %d --file\n", MAX_INPUTS);
                return -1;
            }
            input *in = &o->inputs[o->ninputs++];
            memset(in, 0, sizeof *in);
            snprintf(in->path, sizeof in->path, "%s", v);
        } else if (!strcmp(a, "--dims")) {
            NEED_ARG();
            if (!o->ninputs) {
                fprintf(stderr, "scz_bench: --dims must follow a --file\n");
                return -1;
            }
            input *in = &o->inputs[o->ninputs - 1];
            int n = parse_u64_list(v, in->dims, SCZ_MAX_RANK);
            if (n < 1) {
                fprintf(stderr, "scz_bench: bad --dims '%s' (want nx[,ny[,nz[,nw]]], fastest first)\n", v);
                return -1;
            }
            in->rank = (uint32_t)n;
            for (int k = n; k < SCZ_MAX_RANK; k++) in->dims[k] = 1;
            in->explicit_dims = 1;
        } else if (!strcmp(a, "--type")) {
            NEED_ARG();
            if (!o->ninputs) {
                fprintf(stderr, "scz_bench: --type must follow a --file\n");
                return -1;
            }
            scz_dtype t = scz_dtype_from_name(v);
            if (t != SCZ_DTYPE_F32 && t != SCZ_DTYPE_F64) {
                fprintf(stderr, "scz_bench: --type must be f32 or f64, not '%s'\n", v);
                return -1;
            }
            o->inputs[o->ninputs - 1].dtype = t;
        } else if (!strcmp(a, "--only")) {
            NEED_ARG();
            o->only = v;
        } else if (!strcmp(a, "--synthetic")) {
            o->synthetic = 1;
        } else if (!strcmp(a, "--threads")) {
            NEED_ARG();
            o->threads = atoi(v);
            if (o->threads < 1) {
                fprintf(stderr, "scz_bench: --threads must be >= 1\n");
                return -1;
            }
        } else if (!strcmp(a, "--reps")) {
            NEED_ARG();
            o->reps = atoi(v);
            if (o->reps < 1) {
                fprintf(stderr, "scz_bench: --reps must be >= 1\n");
                return -1;
            }
        } else if (!strcmp(a, "--warmup")) {
            NEED_ARG();
            o->warmup = atoi(v);
            if (o->warmup < 0) {
                fprintf(stderr, "scz_bench: --warmup must be >= 0\n");
                return -1;
            }
        } else if (!strcmp(a, "--quick")) {
            o->reps = 1;
            o->warmup = 0;
        } else if (!strcmp(a, "--chunk-bytes")) {
            NEED_ARG();
            o->chunk_bytes = strtoull(v, NULL, 10);
        } else if (!strcmp(a, "--int-codes")) {
            NEED_ARG();
            g_int_rel = strtod(v, NULL);
            if (!(g_int_rel > 0)) {
                fprintf(stderr, "scz_bench: bad --int-codes '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--level")) {
            NEED_ARG();
            if (strcmp(v, "0") && strcmp(v, "1")) {
                fprintf(stderr, "scz_bench: bad --level '%s' (0 or 1)\n", v);
                return -1;
            }
            g_lossy_level = (uint32_t)(v[0] - '0');
        } else if (!strcmp(a, "--rel")) {
            NEED_ARG();
            o->nrels = 0;
            const char *s = v;
            while (*s) {
                char *end;
                double r = strtod(s, &end);
                if (end == s || !(r > 0) || o->nrels == MAX_RELS) {
                    fprintf(stderr, "scz_bench: bad --rel '%s'\n", v);
                    return -1;
                }
                o->rels[o->nrels++] = r;
                s = *end == ',' ? end + 1 : end;
                if (*end && *end != ',') {
                    fprintf(stderr, "scz_bench: bad --rel '%s'\n", v);
                    return -1;
                }
            }
        } else if (!strcmp(a, "--no-lossless")) {
            o->lossless = 0;
        } else if (!strcmp(a, "--no-lossy")) {
            o->lossy = 0;
        } else if (!strcmp(a, "--csv")) {
            NEED_ARG();
            o->csv_path = v;
        } else if (!strcmp(a, "--no-csv")) {
            o->csv_path = NULL;
        } else {
            fprintf(stderr, "scz_bench: unknown option '%s' (see --help)\n", a);
            return -1;
        }
#undef NEED_ARG
    }
    if (!o->threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n > 0 ? (int)n : 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* inputs                                                              */
/* ------------------------------------------------------------------ */
static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* NAME_D1xD2xD3.f32: dtype from the extension, dims from the last '_'
 * group, slowest first in the name, stored fastest first. */
static int parse_name(const char *path, scz_dtype *t, uint32_t *rank, uint64_t dims[SCZ_MAX_RANK]) {
    const char *b = base_name(path);
    const char *dot = strrchr(b, '.');
    if (!dot) return -1;
    if (!strcmp(dot, ".f32")) *t = SCZ_DTYPE_F32;
    else if (!strcmp(dot, ".f64")) *t = SCZ_DTYPE_F64;
    else return -1;
    const char *us = NULL;
    for (const char *p = b; p < dot; p++)
        if (*p == '_') us = p;
    if (!us || us + 1 >= dot) return -1;
    char buf[128];
    size_t len = (size_t)(dot - us - 1);
    if (len >= sizeof buf) return -1;
    memcpy(buf, us + 1, len);
    buf[len] = 0;
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)buf[i]) && buf[i] != 'x') return -1;
    uint64_t slow[SCZ_MAX_RANK];
    int n = parse_u64_list(buf, slow, SCZ_MAX_RANK);
    if (n < 1) return -1;
    *rank = (uint32_t)n;
    for (int i = 0; i < SCZ_MAX_RANK; i++) dims[i] = i < n ? slow[n - 1 - i] : 1;
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int is_dir(const char *p) {
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Fills o->inputs from the data directory when no --file was given.
 * Returns the directory used (or NULL). */
static const char *scan_data_dir(options *o) {
    const char *dir = o->data_dir;
    if (!dir) dir = getenv("SCZ_DATA_DIR");
    if (dir && !*dir) dir = NULL;
    if (!dir) {
        static const char *const guesses[] = {"../shared/data", "../../shared/data"};
        for (size_t i = 0; i < 2 && !dir; i++)
            if (is_dir(guesses[i])) dir = guesses[i];
    }
    if (!dir) return NULL;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "scz_bench: cannot open data directory '%s': %s\n", dir, strerror(errno));
        return NULL;
    }
    char *names[MAX_INPUTS];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_INPUTS) {
        size_t l = strlen(e->d_name);
        if (l < 5 || (strcmp(e->d_name + l - 4, ".f32") && strcmp(e->d_name + l - 4, ".f64"))) continue;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    for (int i = 0; i < n && o->ninputs < MAX_INPUTS; i++) {
        input *in = &o->inputs[o->ninputs++];
        memset(in, 0, sizeof *in);
        snprintf(in->path, sizeof in->path, "%s/%s", dir, names[i]);
        free(names[i]);
    }
    return dir;
}

static int name_selected(const options *o, const char *name) {
    if (!o->only) return 1;
    const char *s = o->only;
    while (*s) {
        const char *c = strchr(s, ',');
        size_t l = c ? (size_t)(c - s) : strlen(s);
        char sub[256];
        if (l && l < sizeof sub) {
            memcpy(sub, s, l);
            sub[l] = 0;
            if (strstr(name, sub)) return 1;
        }
        if (!c) break;
        s = c + 1;
    }
    return 0;
}

/* Deterministic generated fields, for a machine without the data set. */
static void gen_synthetic(bench_field *f, int kind) {
    if (kind == 1) {
        const uint64_t n = 96;
        f->dtype = SCZ_DTYPE_F32;
        f->rank = 3;
        f->dims[0] = f->dims[1] = f->dims[2] = n;
        f->dims[3] = 1;
        snprintf(f->name, sizeof f->name, "synthetic_smooth_%llux%llux%llu.f32",
                 (unsigned long long)n, (unsigned long long)n, (unsigned long long)n);
    } else {
        f->dtype = SCZ_DTYPE_F64;
        f->rank = 2;
        f->dims[0] = 384;
        f->dims[1] = 256;
        f->dims[2] = f->dims[3] = 1;
        snprintf(f->name, sizeof f->name, "synthetic_noisy_256x384.f64");
    }
    snprintf(f->path, sizeof f->path, "(generated)");
    f->esize = scz_dtype_size(f->dtype);
    f->count = f->dims[0] * f->dims[1] * f->dims[2];
    f->bytes = (size_t)f->count * f->esize;
    f->data = malloc(f->bytes ? f->bytes : 1);
    if (!f->data) return;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = 0; i < f->count; i++) {
        uint64_t x = i % f->dims[0], y = (i / f->dims[0]) % f->dims[1], z = i / (f->dims[0] * f->dims[1]);
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        double u = (double)(rng >> 11) / 9007199254740992.0 - 0.5;
        if (kind == 1) {
            double v = 280.0 + 15.0 * sin(0.07 * (double)x) * cos(0.05 * (double)y) + 3.0 * sin(0.11 * (double)z + 0.02 * (double)x);
            ((float *)f->data)[i] = (float)v;
        } else {
            double v = 1000.0 * exp(-((double)x - 190.0) * ((double)x - 190.0) / 8000.0) * cos(0.03 * (double)y) + 5.0 * u;
            ((double *)f->data)[i] = v;
        }
    }
}

/* Loads one input; returns 0, or -1 with a message (the file is skipped). */
static int load_field(const input *in, bench_field *f) {
    memset(f, 0, sizeof *f);
    if (in->synthetic) {
        gen_synthetic(f, in->synthetic);
        if (!f->data) return -1;
    } else {
        snprintf(f->path, sizeof f->path, "%s", in->path);
        snprintf(f->name, sizeof f->name, "%s", base_name(in->path));
        scz_dtype t = 0;
        uint32_t rank = 0;
        uint64_t dims[SCZ_MAX_RANK];
        int named = parse_name(in->path, &t, &rank, dims) == 0;
        if (in->dtype) t = in->dtype;
        if (in->explicit_dims) {
            rank = in->rank;
            memcpy(dims, in->dims, sizeof dims);
        } else if (!named) {
            fprintf(stderr, "scz_bench: %s: cannot parse NAME_D1xD2xD3.f32|f64; give --dims and --type\n",
                    in->path);
            return -1;
        }
        if (t != SCZ_DTYPE_F32 && t != SCZ_DTYPE_F64) {
            fprintf(stderr, "scz_bench: %s: dtype unknown; give --type f32|f64\n", in->path);
            return -1;
        }
        f->dtype = t;
        f->esize = scz_dtype_size(t);
        f->rank = rank;
        memcpy(f->dims, dims, sizeof dims);
        scz_shape sh = {t, rank, {dims[0], dims[1], dims[2], dims[3]}};
        f->count = scz_shape_count(&sh);
        if (!f->count) {
            fprintf(stderr, "scz_bench: %s: empty or overflowing shape\n", in->path);
            return -1;
        }
        f->bytes = (size_t)(f->count * f->esize);
        FILE *fp = fopen(in->path, "rb");
        if (!fp) {
            fprintf(stderr, "scz_bench: %s: %s\n", in->path, strerror(errno));
            return -1;
        }
        struct stat st;
        if (fstat(fileno(fp), &st) == 0 && (uint64_t)st.st_size != (uint64_t)f->bytes) {
            fprintf(stderr, "scz_bench: %s: size %lld bytes, but the shape needs %zu; skipped\n", in->path,
                    (long long)st.st_size, f->bytes);
            fclose(fp);
            return -1;
        }
        f->data = malloc(f->bytes);
        if (!f->data || fread(f->data, 1, f->bytes, fp) != f->bytes) {
            fprintf(stderr, "scz_bench: %s: cannot read %zu bytes\n", in->path, f->bytes);
            fclose(fp);
            free(f->data);
            f->data = NULL;
            return -1;
        }
        fclose(fp);
    }
    scz_value_range(f->dtype, f->data, f->count, &f->vmin, &f->vmax, &f->finite);
    return 0;
}

static void dims_string(const bench_field *f, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < f->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%llu", i ? "x" : "", (unsigned long long)f->dims[i]);
}

static int is_smooth3d_f32(const bench_field *f) {
    if (f->dtype != SCZ_DTYPE_F32 || f->rank != 3) return 0;
    for (size_t i = 0; i < NSMOOTH; i++)
        if (!strncmp(f->name, smooth3d_prefixes[i], strlen(smooth3d_prefixes[i]))) return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* scz runners                                                         */
/* ------------------------------------------------------------------ */
typedef struct scz_state {
    scz_ctx *ctx;
    scz_params params;
    scz_shape shape;
} scz_state;

static int scz_err(scz_status s, scz_ctx *ctx, char *msg, size_t ml) {
    snprintf(msg, ml, "%s: %s", scz_status_string(s), scz_ctx_last_error(ctx));
    return s == SCZ_ERR_UNSUPPORTED ? BR_SKIP : BR_ERR;
}

static int scz_setup(bench_runner *r, const bench_field *f, size_t *cap, char *msg, size_t ml) {
    scz_state *s = r->state;
    memset(&s->shape, 0, sizeof s->shape);
    s->shape.dtype = f->dtype;
    s->shape.rank = f->rank;
    memcpy(s->shape.dims, f->dims, sizeof s->shape.dims);
    *cap = scz_compress_bound(&s->shape, &s->params);
    if (!*cap) {
        snprintf(msg, ml, "scz_compress_bound returned 0 (shape or parameters rejected)");
        return BR_ERR;
    }
    return BR_OK;
}

static int scz_comp(bench_runner *r, const bench_field *f, void *dst, size_t cap, size_t *size,
                    char *msg, size_t ml) {
    scz_state *s = r->state;
    scz_status st = scz_compress(s->ctx, &s->params, &s->shape, f->data, dst, cap, size);
    return st == SCZ_OK ? BR_OK : scz_err(st, s->ctx, msg, ml);
}

static int scz_decomp(bench_runner *r, const bench_field *f, const void *src, size_t size, void *dst,
                      char *msg, size_t ml) {
    scz_state *s = r->state;
    scz_status st = scz_decompress(s->ctx, src, size, dst, f->bytes, NULL);
    return st == SCZ_OK ? BR_OK : scz_err(st, s->ctx, msg, ml);
}

static void scz_teardown(bench_runner *r) { (void)r; }

/* Lossless codec (rel, abs ignored), lossy at a REL bound (abs 0) or, for
 * the matched-error comparison with zfp, at an ABS bound (rel says which
 * REL row it belongs to). */
static void scz_runner(bench_runner *r, scz_ctx *ctx, scz_codec codec, double rel, double abs_eb,
                       int threads, uint64_t chunk_bytes) {
    memset(r, 0, sizeof *r);
    scz_state *s = calloc(1, sizeof *s);
    if (!s) return;
    s->ctx = ctx;
    scz_params_init(&s->params, codec);
    s->params.chunk_bytes = chunk_bytes;
    r->lossless = scz_codec_is_lossless(codec);
    if (codec == SCZ_CODEC_LOSSY) s->params.knobs[2] = g_lossy_level;
    snprintf(r->label, sizeof r->label, "%s", scz_codec_name(codec));
    if (!r->lossless && abs_eb > 0) {
        s->params.eb_mode = SCZ_EB_ABS;
        s->params.eb = abs_eb;
        r->rel = rel;
        r->tol = abs_eb;
        snprintf(r->setting, sizeof r->setting, "abs=zfp@%.0e", rel);
        snprintf(r->label, sizeof r->label, "%s-matched", scz_codec_name(codec));
    } else if (!r->lossless) {
        s->params.eb_mode = SCZ_EB_REL;
        s->params.eb = rel;
        r->rel = rel;
        snprintf(r->setting, sizeof r->setting, g_lossy_level ? "rel=%.0e,L1" : "rel=%.0e", rel);
    } else {
        snprintf(r->setting, sizeof r->setting, "lossless");
    }
    r->state = s;
    r->is_scz = 1;
    snprintf(r->codec, sizeof r->codec, "%s", scz_codec_name(codec));
    snprintf(r->exec, sizeof r->exec, "omp%d", threads);
    r->setup = scz_setup;
    r->compress = scz_comp;
    r->decompress = scz_decomp;
    r->teardown = scz_teardown;
}

/* ------------------------------------------------------------------ */
/* measurement                                                         */
/* ------------------------------------------------------------------ */
typedef struct buffers {
    uint8_t *comp, *first;       /* compressed; first stream (determinism check) */
    size_t cap, first_cap;
    uint8_t *dec;
    size_t dec_cap;
} buffers;

typedef struct result {
    int status;                  /* BR_OK, BR_SKIP, BR_ERR */
    int fail;                    /* a check failed (status OK but output wrong) */
    char msg[320];
    size_t comp_bytes;
    double t_comp, t_dec;        /* median seconds */
    int exact;
    scz_stats st;
    char workflow[64];           /* scz lossy: per-chunk workflow */
} result;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}


static int grow(uint8_t **p, size_t *cap, size_t need) {
    if (*cap >= need) return 0;
    uint8_t *q = realloc(*p, need);
    if (!q) return -1;
    *p = q;
    *cap = need;
    return 0;
}

static void measure(bench_runner *r, const bench_field *f, const options *o, buffers *b, result *res) {
    memset(res, 0, sizeof *res);
    size_t cap = 0;
    res->status = r->setup(r, f, &cap, res->msg, sizeof res->msg);
    if (res->status != BR_OK) return;
    if (grow(&b->comp, &b->cap, cap) || (r->is_scz && grow(&b->first, &b->first_cap, cap)) ||
        grow(&b->dec, &b->dec_cap, f->bytes ? f->bytes : 1)) {
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = BR_ERR;
        r->teardown(r);
        return;
    }
    int total = o->warmup + o->reps;
    double *tc = malloc(sizeof(double) * (size_t)o->reps), *td = malloc(sizeof(double) * (size_t)o->reps);
    if (!tc || !td) {
        free(tc);
        free(td);
        snprintf(res->msg, sizeof res->msg, "out of memory");
        res->status = BR_ERR;
        r->teardown(r);
        return;
    }
    size_t first_size = 0;
    for (int i = 0; i < total; i++) {
        size_t size = 0;
        double t0 = now_s();
        int st = r->compress(r, f, b->comp, cap, &size, res->msg, sizeof res->msg);
        double t1 = now_s();
        if (st != BR_OK) {
            res->status = st;
            goto done;
        }
        if (i >= o->warmup) tc[i - o->warmup] = t1 - t0;
        if (i == 0) {
            first_size = size;
            if (r->is_scz) memcpy(b->first, b->comp, size);
        } else if (r->is_scz && (size != first_size || memcmp(b->first, b->comp, size))) {
            /* scz streams are deterministic (DESIGN.md): same input, same bytes. */
            snprintf(res->msg, sizeof res->msg, "stream differs between runs (%zu vs %zu bytes)", first_size, size);
            res->fail = 1;
        }
        res->comp_bytes = size;
    }
    memset(b->dec, 0xA5, f->bytes); /* no stale output can pass the check */
    for (int i = 0; i < total; i++) {
        double t0 = now_s();
        int st = r->decompress(r, f, b->comp, res->comp_bytes, b->dec, res->msg, sizeof res->msg);
        double t1 = now_s();
        if (st != BR_OK) {
            res->status = st == BR_SKIP ? BR_SKIP : BR_ERR;
            goto done;
        }
        if (i >= o->warmup) td[i - o->warmup] = t1 - t0;
    }
    res->t_comp = bench_median(tc, o->reps);
    res->t_dec = bench_median(td, o->reps);
    res->exact = memcmp(b->dec, f->data, f->bytes) == 0;
    scz_stats_compute(f->dtype, f->data, b->dec, f->count, &res->st);
    if (r->lossless && !res->exact) {
        snprintf(res->msg, sizeof res->msg, "round trip NOT bit-exact (max abs err %.3g, %llu non-finite mismatches)",
                 res->st.max_abs_err, (unsigned long long)res->st.nonfinite_mismatch);
        res->fail = 1;
    }
done:
    free(tc);
    free(td);
    r->teardown(r);
}

/* ------------------------------------------------------------------ */
/* records, table, CSV                                                 */
/* ------------------------------------------------------------------ */
typedef struct record {
    char file[256];
    scz_dtype dtype;
    int smooth3d;
    char label[48];
    int lossless;
    double rel;
    int ok;                      /* measured and passed */
    double co, oc, maxerr, psnr;
    double t_comp, t_dec;
    size_t bytes;
    int met;                     /* lossy: max error within the bound */
} record;

static record *records;
static size_t nrecords, caprecords;

static void add_record(const record *rec) {
    if (nrecords == caprecords) {
        size_t nc = caprecords ? 2 * caprecords : 64;
        record *p = realloc(records, nc * sizeof *p);
        if (!p) return;
        records = p;
        caprecords = nc;
    }
    records[nrecords++] = *rec;
}

static void csv_field_str(FILE *c, const char *s) {
    if (strpbrk(s, ",\"\n")) {
        fputc('"', c);
        for (; *s; s++) {
            if (*s == '"') fputc('"', c);
            fputc(*s, c);
        }
        fputc('"', c);
    } else {
        fputs(s, c);
    }
}

static void csv_num(FILE *c, double v, const char *fmt) {
    if (isinf(v)) fputs(v > 0 ? "inf" : "-inf", c);
    else if (isnan(v)) fputs("nan", c);
    else fprintf(c, fmt, v);
}

static const char *TABLE_HEAD =
    "  %-15s %-13s %-15s %8s %8s %8s %11s %8s %9s %9s %8s %8s  %s\n";

static void print_table_head(void) {
    printf(TABLE_HEAD, "codec", "setting", "exec", "c/o", "o/c", "bits/val", "max_abs_err", "PSNR dB",
           "comp MB/s", "dec MB/s", "c/thr", "d/thr", "check");
}

static int g_failures;

/* Prints a row and a CSV line, and keeps a record for the summary. */
static void report(const bench_runner *r, const bench_field *f, const result *res, const options *o,
                   FILE *csv) {
    char dims[96];
    dims_string(f, dims, sizeof dims);
    if (res->status == BR_SKIP) {
        printf("  %-15s %-13s skipped: %s\n", r->codec, r->setting, res->msg);
        return;
    }
    if (res->status == BR_ERR) {
        printf("  %-15s %-13s FAIL: error: %s\n", r->codec, r->setting, res->msg);
        fprintf(stderr, "scz_bench: FAIL %s %s %s: %s\n", f->name, r->codec, r->setting, res->msg);
        g_failures++;
        return;
    }
    double co = (double)res->comp_bytes / (double)f->bytes;
    double oc = res->comp_bytes ? (double)f->bytes / (double)res->comp_bytes : INFINITY;
    double bpv = 8.0 * (double)res->comp_bytes / (double)f->count;
    double cm = (double)f->bytes / 1e6 / res->t_comp, dm = (double)f->bytes / 1e6 / res->t_dec;
    double maxerr = res->st.max_abs_err, psnr = res->st.psnr;
    int met = 1;
    char check[400];
    if (r->lossless) {
        snprintf(check, sizeof check, "%s", res->exact ? "exact" : "FAIL");
        maxerr = res->exact ? 0 : maxerr;
    } else {
        met = maxerr <= r->tol && res->st.nonfinite_mismatch == 0;
        snprintf(check, sizeof check, "%s (bound %.3g)%s%s", met ? "bound met" : (r->is_scz ? "FAIL bound" : "bound MISSED"),
                 r->tol, res->workflow[0] ? " wf=" : "", res->workflow);
        if (!met && r->is_scz) {
            fprintf(stderr, "scz_bench: FAIL %s %s %s: max abs error %.6g exceeds the bound %.6g\n", f->name,
                    r->codec, r->setting, maxerr, r->tol);
            g_failures++;
        }
    }
    if (res->fail) {
        fprintf(stderr, "scz_bench: FAIL %s %s %s: %s\n", f->name, r->codec, r->setting, res->msg);
        g_failures++;
        snprintf(check, sizeof check, "FAIL: %s", res->msg);
    }
    char cthr[16] = "-", dthr[16] = "-", me[16] = "-", ps[16] = "-";
    if (r->is_scz) {
        snprintf(cthr, sizeof cthr, "%.1f", cm / o->threads);
        snprintf(dthr, sizeof dthr, "%.1f", dm / o->threads);
    }
    if (!r->lossless || !res->exact) {
        snprintf(me, sizeof me, "%.3e", maxerr);
        snprintf(ps, sizeof ps, "%.2f", psnr);
    }
    printf("  %-15s %-13s %-15s %8.4f %8.3f %8.3f %11s %8s %9.1f %9.1f %8s %8s  %s\n", r->codec, r->setting,
           r->exec, co, oc, bpv, me, ps, cm, dm, cthr, dthr, check);
    fflush(stdout);

    if (csv) {
        csv_field_str(csv, f->name);
        fprintf(csv, ",%s,%s,", scz_dtype_name(f->dtype), dims);
        csv_field_str(csv, r->codec);
        fputc(',', csv);
        csv_field_str(csv, r->setting);
        fprintf(csv, ",%.6f,%.4f,%.4f,", co, oc, bpv);
        csv_num(csv, maxerr, "%.6e");
        fputc(',', csv);
        csv_num(csv, r->lossless && res->exact ? INFINITY : psnr, "%.4f");
        fprintf(csv, ",%.2f,%.2f,%d,", cm, dm, o->threads);
        csv_num(csv, r->lossless ? 0 : r->tol, "%.6e");
        fprintf(csv, ",%s,", res->fail ? "FAIL" : (r->lossless ? (res->exact ? "exact" : "FAIL") : (met ? "yes" : "no")));
        csv_field_str(csv, res->workflow);
        fputc(',', csv);
        csv_field_str(csv, r->exec);
        fputc('\n', csv);
        fflush(csv);
    }

    record rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.file, sizeof rec.file, "%s", f->name);
    rec.dtype = f->dtype;
    rec.smooth3d = is_smooth3d_f32(f);
    snprintf(rec.label, sizeof rec.label, "%s", r->label);
    rec.lossless = r->lossless;
    rec.rel = r->rel;
    rec.ok = !res->fail && (!r->lossless || res->exact);
    rec.co = co;
    rec.oc = oc;
    rec.maxerr = maxerr;
    rec.psnr = psnr;
    rec.t_comp = res->t_comp;
    rec.t_dec = res->t_dec;
    rec.bytes = f->bytes;
    rec.met = met;
    add_record(&rec);
}

/* Per-chunk workflow of a lossy stream (FORMAT.md 7.5: codec_info 0
 * stored, 1 Huffman, 2 run-length): one name when all chunks agree, else
 * a count of each. */
static void lossy_workflow(const uint8_t *s, size_t n, char *out, size_t ol) {
    static const char *const names[3] = {"stored", "huffman", "rle"};
    scz_info info;
    out[0] = 0;
    if (scz_inspect(s, n, &info) != SCZ_OK) {
        snprintf(out, ol, "?");
        return;
    }
    unsigned cnt[4] = {0, 0, 0, 0}; /* stored, huffman, rle, other */
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(s, n, i, &ci) != SCZ_OK || ci.codec_info > 2) cnt[3]++;
        else cnt[ci.codec_info]++;
    }
    for (int k = 0; k < 3; k++)
        if (cnt[k] == info.num_chunks) {
            snprintf(out, ol, "%s", names[k]);
            return;
        }
    size_t len = 0;
    for (int k = 0; k < 4 && len < ol; k++)
        if (cnt[k]) len += (size_t)snprintf(out + len, ol - len, "%s%s:%u", len ? "," : "", k < 3 ? names[k] : "other", cnt[k]);
}

/* ------------------------------------------------------------------ */
/* summary                                                             */
/* ------------------------------------------------------------------ */
#define MAX_LABELS 16

static int collect_labels(int lossless, scz_dtype dt, const char *labels[MAX_LABELS]) {
    int n = 0;
    for (size_t i = 0; i < nrecords; i++) {
        const record *r = &records[i];
        if (r->lossless != lossless || (dt && r->dtype != dt)) continue;
        int seen = 0;
        for (int k = 0; k < n; k++) seen |= !strcmp(labels[k], r->label);
        if (!seen && n < MAX_LABELS) labels[n++] = r->label;
    }
    return n;
}

static const record *find_record(const char *file, const char *label, int lossless, double rel) {
    for (size_t i = 0; i < nrecords; i++) {
        const record *r = &records[i];
        if (r->lossless == lossless && !strcmp(r->file, file) && !strcmp(r->label, label) &&
            (lossless || r->rel == rel))
            return r;
    }
    return NULL;
}

/* Files of dtype dt (0: any) with an ok lossless record for every label. */
static int common_file(const char *file, scz_dtype dt, const char **labels, int nl) {
    for (int k = 0; k < nl; k++) {
        const record *r = find_record(file, labels[k], 1, 0);
        if (!r || !r->ok || (dt && r->dtype != dt)) return 0;
    }
    return 1;
}

static void summary_lossless(const options *o) {
    printf("\n== Summary: lossless, mean over the same files (c/o = compressed/original, lower is better) ==\n");
    static const scz_dtype dts[3] = {SCZ_DTYPE_F32, SCZ_DTYPE_F64, SCZ_DTYPE_U16};
    for (int d = 0; d < 3; d++) {
        const char *labels[MAX_LABELS];
        int nl = collect_labels(1, dts[d], labels);
        if (!nl) continue;
        /* The common set: files where every codec that ran on this dtype passed. */
        const char *files[MAX_INPUTS];
        int nf = 0, total = 0;
        for (size_t i = 0; i < nrecords; i++) {
            const record *r = &records[i];
            if (!r->lossless || r->dtype != dts[d]) continue;
            int seen = 0;
            for (int k = 0; k < total && !seen; k++) seen = !strcmp(files[k], r->file);
            if (seen || total == MAX_INPUTS) continue;
            files[total++] = r->file;
        }
        for (int k = 0; k < total; k++)
            if (common_file(files[k], dts[d], labels, nl)) files[nf++] = files[k];
        printf("%s: %d file(s)%s\n", scz_dtype_name(dts[d]), nf,
               nf < total ? " (files where some codec failed or was skipped are left out)" : "");
        printf("  %-16s %10s %10s %12s %12s\n", "codec", "mean c/o", "mean o/c", "comp MB/s", "dec MB/s");
        for (int k = 0; k < nl; k++) {
            double sco = 0, soc = 0, bytes = 0, tc = 0, td = 0;
            for (int j = 0; j < nf; j++) {
                const record *r = find_record(files[j], labels[k], 1, 0);
                sco += r->co;
                soc += r->oc;
                bytes += (double)r->bytes;
                tc += r->t_comp;
                td += r->t_dec;
            }
            if (!nf) continue;
            printf("  %-16s %10.4f %10.3f %12.1f %12.1f\n", labels[k], sco / nf, soc / nf, bytes / 1e6 / tc,
                   bytes / 1e6 / td);
        }
    }
    printf("  (MB/s here: total raw bytes / total median time over those files, %d thread(s))\n", o->threads);

    /* Throughput on the smooth 3D float32 files (target: ndzip >= 1000 MB/s per core). */
    const char *labels[MAX_LABELS];
    int nl = collect_labels(1, SCZ_DTYPE_F32, labels);
    int any = 0;
    for (size_t i = 0; i < nrecords; i++) any |= records[i].smooth3d && records[i].lossless;
    if (!any || !nl) return;
    printf("\nSmooth 3D float32 files (");
    for (size_t i = 0; i < NSMOOTH; i++) printf("%s%s*", i ? ", " : "", smooth3d_prefixes[i]);
    printf("), lossless throughput per thread (%d threads; target for scz ndzip: 1000 MB/s per core):\n",
           o->threads);
    printf("  %-16s %6s %14s %14s %14s %14s\n", "codec", "files", "comp MB/s", "dec MB/s", "comp MB/s/thr",
           "dec MB/s/thr");
    for (int k = 0; k < nl; k++) {
        double bytes = 0, tc = 0, td = 0;
        int n = 0;
        for (size_t i = 0; i < nrecords; i++) {
            const record *r = &records[i];
            if (!r->lossless || !r->smooth3d || !r->ok || strcmp(r->label, labels[k])) continue;
            bytes += (double)r->bytes;
            tc += r->t_comp;
            td += r->t_dec;
            n++;
        }
        if (!n) continue;
        double c = bytes / 1e6 / tc, d = bytes / 1e6 / td;
        printf("  %-16s %6d %14.1f %14.1f %14.1f %14.1f\n", labels[k], n, c, d, c / o->threads, d / o->threads);
    }
}

static void summary_lossy(const options *o) {
    const char *labels[MAX_LABELS];
    int nl = collect_labels(0, 0, labels);
    if (!nl) return;
    printf("\n== Summary: lossy, scz lossy vs zfp fixed-accuracy ==\n");
    printf("  %-6s %6s %9s %9s %11s %11s %12s %12s %12s %14s\n", "REL", "fields", "scz met", "zfp met",
           "same bound", "matched err", "c/o scz", "c/o zfp", "c/o matched", "scz c MB/s/thr");
    for (int q = 0; q < o->nrels; q++) {
        double rel = o->rels[q];
        int fields = 0, smet = 0, zmet = 0, win_same = 0, win_matched = 0, npair = 0, nmatched = 0;
        double bytes = 0, tc = 0, soc = 0, zoc = 0, moc = 0;
        for (size_t i = 0; i < nrecords; i++) {
            const record *s = &records[i];
            if (s->lossless || s->rel != rel || strcmp(s->label, "lossy")) continue;
            if (s->smooth3d && s->ok) {
                bytes += (double)s->bytes;
                tc += s->t_comp;
            }
            fields++;
            smet += s->met;
            const record *z = find_record(s->file, "zfp-accuracy", 0, rel);
            if (!z) continue;
            zmet += z->met;
            npair++;
            soc += s->co;
            zoc += z->co;
            win_same += s->oc >= z->oc;
            const record *m = find_record(s->file, "lossy-matched", 0, rel);
            if (m && m->met) {
                nmatched++;
                moc += m->co;
                win_matched += m->oc >= z->oc;
            }
        }
        if (!fields) continue;
        char thr[32] = "-", c1[32] = "-", c2[32] = "-", c3[32] = "-", w1[32] = "-", w2[32] = "-";
        if (tc > 0) snprintf(thr, sizeof thr, "%.1f", bytes / 1e6 / tc / o->threads);
        if (npair) {
            snprintf(c1, sizeof c1, "%.4f", soc / npair);
            snprintf(c2, sizeof c2, "%.4f", zoc / npair);
            snprintf(w1, sizeof w1, "%d/%d", win_same, npair);
        }
        if (nmatched) {
            snprintf(c3, sizeof c3, "%.4f", moc / nmatched);
            snprintf(w2, sizeof w2, "%d/%d", win_matched, nmatched);
        }
        printf("  %-6.0e %6d %9d %9d %11s %11s %12s %12s %12s %14s\n", rel, fields, smet, zmet, w1, w2, c1, c2, c3,
               thr);
    }
    printf("  same bound:  fields where scz's o/c is at least zfp's, both at the absolute bound REL x range\n"
           "               (zfp's actual max error is usually several times smaller than the bound);\n"
           "  matched err: fields where scz at an ABS bound equal to zfp's actual max error (rows\n"
           "               'abs=zfp@REL'; max error therefore <= zfp's) still has o/c >= zfp's;\n"
           "  c/o columns: mean compressed/original size over the fields (scz at REL, zfp, scz matched);\n"
           "  last column: scz lossy compression throughput per thread on the smooth 3D float32 files at\n"
           "  REL (target 300 MB/s per core at 1e-3).\n");
}

/* ------------------------------------------------------------------ */
/* machine                                                             */
/* ------------------------------------------------------------------ */
static void cpu_model(char *buf, size_t n) {
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10)) continue;
        char *c = strchr(line, ':');
        if (!c) continue;
        c++;
        while (*c == ' ' || *c == '\t') c++;
        c[strcspn(c, "\n")] = 0;
        snprintf(buf, n, "%s", c);
        break;
    }
    fclose(f);
}

static void load_avg(char *buf, size_t n) {
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return;
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */
/* zstd -1 and lz4 behind a byte-plane shuffle of the whole array. */
static void shuffled_peers(const bench_field *f, const options *o, buffers *bufs, FILE *csv) {
    bench_runner inner[2], shuf[2];
    bench_zstd_runner(&inner[0], 1, o->threads);
    bench_lz4_runner(&inner[1]);
    for (int p = 0; p < 2; p++) {
        bench_shuffled_runner(&shuf[p], &inner[p]);
        if (!shuf[p].setup) continue;
        result res;
        measure(&shuf[p], f, o, bufs, &res);
        report(&shuf[p], f, &res, o, csv);
        bench_shuffled_free(&shuf[p]);
        free(shuf[p].state);
    }
}

/* --int-codes: the field's u16 Lorenzo quantization codes (quant_codes.h)
 * through lzss (default knobs, and with its byte shuffle) and the
 * byte-oriented peers. */
static void int_codes(scz_ctx *ctx, const bench_field *f, const options *o, buffers *bufs, FILE *csv) {
    bench_field g = *f;
    uint16_t *c = malloc((f->count ? f->count : 1) * sizeof *c);
    if (!c || bench_lorenzo_codes(f->data, f->dtype, f->dims, f->rank, g_int_rel, c)) {
        printf("  int codes: out of memory\n");
        free(c);
        return;
    }
    snprintf(g.name, sizeof g.name, "%.200s.codes", f->name);
    g.dtype = SCZ_DTYPE_U16;
    g.esize = 2;
    g.bytes = f->count * 2;
    g.data = c;
    g.vmin = 0;
    g.vmax = 1023;
    g.finite = f->count;
    printf("  -- u16 Lorenzo quantization codes at REL %g (%s):\n", g_int_rel, g.name);
    for (int k = 0; k < 2; k++) {
        if (!scz_codec_available(SCZ_CODEC_LZSS)) break;
        bench_runner r;
        result res;
        scz_runner(&r, ctx, SCZ_CODEC_LZSS, 0, 0, o->threads, o->chunk_bytes);
        if (!r.setup) continue;
        if (k) {
            ((scz_state *)r.state)->params.knobs[3] = 2;
            snprintf(r.setting, sizeof r.setting, "shuffle=on");
            snprintf(r.label, sizeof r.label, "lzss-shuf");
        }
        measure(&r, &g, o, bufs, &res);
        report(&r, &g, &res, o, csv);
        free(r.state);
    }
    bench_runner peers[3];
    bench_zstd_runner(&peers[0], 1, o->threads);
    bench_zstd_runner(&peers[1], 3, o->threads);
    bench_lz4_runner(&peers[2]);
    for (int p = 0; p < 3; p++) {
        if (!peers[p].setup) continue;
        result res;
        measure(&peers[p], &g, o, bufs, &res);
        report(&peers[p], &g, &res, o, csv);
        free(peers[p].state);
    }
    shuffled_peers(&g, o, bufs, csv);
    free(c);
}

int main(int argc, char **argv) {
    static options o;
    if (parse_args(argc, argv, &o)) return 2;
#ifdef _OPENMP
    omp_set_num_threads(o.threads); /* the statistics helpers and any OpenMP peer */
#endif

    const char *dir = NULL;
    int explicit_files = o.ninputs > 0;
    if (!explicit_files) dir = scan_data_dir(&o);
    if (!explicit_files && !o.ninputs && !o.synthetic) {
        printf("note: no data directory found (--data, $SCZ_DATA_DIR, ../shared/data, ../../shared/data);"
               " using generated fields\n");
        o.synthetic = 1;
    }
    if (o.synthetic && o.ninputs + 2 <= MAX_INPUTS) {
        for (int k = 1; k <= 2; k++) {
            input *in = &o.inputs[o.ninputs++];
            memset(in, 0, sizeof *in);
            in->synthetic = k;
            snprintf(in->path, sizeof in->path, "%s", k == 1 ? "synthetic_smooth" : "synthetic_noisy");
        }
    }

    char cpu[256], load[64];
    cpu_model(cpu, sizeof cpu);
    load_avg(load, sizeof load);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("scz_bench (scz %d.%d.%d, format %d)\n", SCZ_VERSION_MAJOR, SCZ_VERSION_MINOR, SCZ_VERSION_PATCH,
           SCZ_FORMAT_VERSION);
    printf("command:  ");
    for (int i = 0; i < argc; i++) printf("%s%s", i ? " " : "", argv[i]);
    printf("\nmachine:  %s, %ld online cores; load average at start %s\n", cpu, cores, load);
    printf("threads:  %d (every codec; per-thread figures = throughput / %d)\n", o.threads, o.threads);
    {
        /* OpenMP's waiting policy changes multi-threaded figures a lot on a
         * busy machine (spinning threads take the cores the work needs). */
        static const char *const env[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_NUM_THREADS", "OMP_PROC_BIND"};
        int any = 0;
        for (size_t k = 0; k < sizeof env / sizeof env[0]; k++) {
            const char *v = getenv(env[k]);
            if (!v) continue;
            printf("%s%s=%s", any ? " " : "openmp:   ", env[k], v);
            any = 1;
        }
        printf("%s", any ? "\n" : "openmp:   no OMP_WAIT_POLICY/GOMP_SPINCOUNT set (runtime defaults)\n");
    }
    printf("timing:   median of %d run(s) after %d warm-up run(s), wall clock (CLOCK_MONOTONIC);"
           " MB/s = raw bytes / 1e6 / s\n", o.reps, o.warmup);
    printf("data:     %s\n", explicit_files ? "--file arguments" : dir ? dir : "generated");
    const char *zv = bench_zfp_version(), *sv = bench_zstd_version(), *lv = bench_lz4_version();
    if (zv)
        printf("peer zfp: %s; %s\n", zv,
               bench_zfp_has_omp() ? (o.threads > 1 ? "OpenMP policy for compression, serial decompression (zfp 1.0 has no parallel decompression)"
                                                    : "serial (1 thread)")
                                   : "built without OpenMP: serial");
    else printf("peer zfp: skipped: zfp not installed (libzfp-dev not found at build time): its rows are left out\n");
    if (sv)
        printf("peer zstd: %s; %s\n", sv,
               bench_zstd_has_mt() ? (o.threads > 1 ? "compression with ZSTD_c_nbWorkers = threads (zstd cuts the input into jobs"
                                                      " of several MiB, so a small file may use one worker); single-threaded decompression"
                                                    : "single-threaded (1 thread)")
                                   : "built without multithreading: single-threaded");
    else printf("peer zstd: skipped: zstd not installed (libzstd-dev not found at build time): its rows are left out\n");
    if (lv) printf("peer lz4: %s; LZ4_compress_default (acceleration 1), single-threaded\n", lv);
    else printf("peer lz4: skipped: lz4 not installed (liblz4-dev not found at build time): its rows are left out\n");
    printf("columns:  c/o = compressed/original size, o/c = its inverse, bits/val = compressed bits per value,\n"
           "          c/thr, d/thr = scz throughput per thread; PSNR = 20 log10(range) - 10 log10(MSE) over finite values;\n"
           "          dims are given fastest first (x,y,z); file names give them slowest first\n");

    scz_ctx *ctx = NULL;
    if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK || scz_ctx_set_threads(ctx, o.threads) != SCZ_OK) {
        fprintf(stderr, "scz_bench: cannot create a CPU context\n");
        return 1;
    }

    FILE *csv = NULL;
    if (o.csv_path) {
        csv = fopen(o.csv_path, "w");
        if (!csv) {
            fprintf(stderr, "scz_bench: cannot write %s: %s\n", o.csv_path, strerror(errno));
            return 2;
        }
        fprintf(csv, "file,dtype,dims,codec,setting,ratio_c_over_o,ratio_o_over_c,bits_per_value,max_abs_err,"
                     "psnr,comp_MBps,decomp_MBps,threads,abs_bound,check,workflow,exec\n");
    }

    /* lossless codecs of scz that take float arrays */
    static const scz_codec lossless_codecs[] = {SCZ_CODEC_NDZIP, SCZ_CODEC_GFC, SCZ_CODEC_LZSS};
    buffers bufs;
    memset(&bufs, 0, sizeof bufs);
    int nfiles = 0, input_errors = 0;
    int lossy_ok = scz_codec_available(SCZ_CODEC_LOSSY);

    for (int section = 0; section < 2; section++) {
        if (section == 0 && !o.lossless) continue;
        if (section == 1 && !o.lossy) continue;
        if (section == 0) printf("\n== Lossless ==\n");
        else {
            printf("\n== Lossy (REL bounds; zfp fixed-accuracy with tolerance = REL x value range of the finite values) ==\n");
            if (!lossy_ok) {
                printf("scz lossy codec not available in this build: lossy section skipped\n");
                continue;
            }
        }
        for (int i = 0; i < o.ninputs; i++) {
            input *in = &o.inputs[i];
            if (in->bad || !name_selected(&o, base_name(in->path))) continue;
            bench_field f;
            if (load_field(in, &f)) {
                in->bad = 1;
                input_errors += explicit_files; /* a named file must load; a scanned one is skipped */
                continue;
            }
            nfiles++;
            char dims[96];
            dims_string(&f, dims, sizeof dims);
            printf("\n%s  %s  dims %s (fastest first)  %zu bytes  range [%.6g, %.6g]%s\n", f.name,
                   scz_dtype_name(f.dtype), dims, f.bytes, f.vmin, f.vmax,
                   f.finite < f.count ? "  (has NaN/Inf)" : "");
            print_table_head();
            if (section == 0) {
                for (size_t c = 0; c < sizeof lossless_codecs / sizeof lossless_codecs[0]; c++) {
                    if (!scz_codec_available(lossless_codecs[c])) continue;
                    bench_runner r;
                    result res;
                    scz_runner(&r, ctx, lossless_codecs[c], 0, 0, o.threads, o.chunk_bytes);
                    if (!r.setup) continue;
                    measure(&r, &f, &o, &bufs, &res);
                    report(&r, &f, &res, &o, csv);
                    free(r.state);
                }
                if (scz_codec_available(SCZ_CODEC_LZSS)) { /* lzss without the byte-plane shuffle */
                    bench_runner r;
                    result res;
                    scz_runner(&r, ctx, SCZ_CODEC_LZSS, 0, 0, o.threads, o.chunk_bytes);
                    if (r.setup) {
                        ((scz_state *)r.state)->params.knobs[3] = 1;
                        snprintf(r.setting, sizeof r.setting, "shuffle=off");
                        snprintf(r.label, sizeof r.label, "lzss-noshuf");
                        measure(&r, &f, &o, &bufs, &res);
                        report(&r, &f, &res, &o, csv);
                        free(r.state);
                    }
                }
                bench_runner peers[4];
                bench_zfp_runner(&peers[0], 0, 0, o.threads);
                bench_zstd_runner(&peers[1], 1, o.threads);
                bench_zstd_runner(&peers[2], 3, o.threads);
                bench_lz4_runner(&peers[3]);
                if (!zv) printf("  %-15s %-13s skipped: zfp not installed\n", "zfp-reversible", "lossless");
                if (!sv) printf("  %-15s %-13s skipped: zstd not installed\n", "zstd", "level=1,3");
                if (!lv) printf("  %-15s %-13s skipped: lz4 not installed (liblz4-dev)\n", "lz4", "default");
                for (int p = 0; p < 4; p++) {
                    if (!peers[p].setup) continue;
                    result res;
                    measure(&peers[p], &f, &o, &bufs, &res);
                    report(&peers[p], &f, &res, &o, csv);
                    free(peers[p].state);
                }
                /* the byte-oriented peers behind a byte-plane shuffle (as
                 * lzss's float default and Blosc's shuffle filter) */
                shuffled_peers(&f, &o, &bufs, csv);
                if (g_int_rel > 0) int_codes(ctx, &f, &o, &bufs, csv);
            } else {
                double range = f.vmax - f.vmin;
                for (int q = 0; q < o.nrels; q++) {
                    bench_runner r;
                    result res;
                    scz_runner(&r, ctx, SCZ_CODEC_LOSSY, o.rels[q], 0, o.threads, o.chunk_bytes);
                    if (r.setup) {
                        r.tol = o.rels[q] * range;
                        measure(&r, &f, &o, &bufs, &res);
                        /* Checked against the user's guarantee, REL x range. */
                        if (res.status == BR_OK)
                            lossy_workflow(bufs.comp, res.comp_bytes, res.workflow, sizeof res.workflow);
                        report(&r, &f, &res, &o, csv);
                        free(r.state);
                    }
                    if (zv && range > 0) {
                        bench_runner z;
                        double zerr = 0;
                        bench_zfp_runner(&z, o.rels[q] * range, o.rels[q], o.threads);
                        if (z.setup) {
                            measure(&z, &f, &o, &bufs, &res);
                            report(&z, &f, &res, &o, csv);
                            if (res.status == BR_OK) zerr = res.st.max_abs_err;
                            free(z.state);
                        }
                        /* zfp's actual error is usually well below its tolerance,
                         * so "ratio at equal or smaller max error" needs scz at
                         * an ABS bound equal to zfp's actual max error. */
                        if (zerr > 0 && isfinite(zerr)) {
                            scz_runner(&r, ctx, SCZ_CODEC_LOSSY, o.rels[q], zerr, o.threads, o.chunk_bytes);
                            if (r.setup) {
                                measure(&r, &f, &o, &bufs, &res);
                                if (res.status == BR_OK)
                                    lossy_workflow(bufs.comp, res.comp_bytes, res.workflow, sizeof res.workflow);
                                report(&r, &f, &res, &o, csv);
                                free(r.state);
                            }
                        }
                    } else if (zv) {
                        printf("  %-15s %-13s skipped: value range is 0\n", "zfp-accuracy", r.setting);
                    }
                }
            }
            free(f.data);
        }
    }
    if (!nfiles && (o.lossless || (o.lossy && lossy_ok))) {
        fflush(stdout);
        fprintf(stderr, "scz_bench: no input file %s\n", o.only ? "matched --only or could be loaded" : "could be loaded");
        return 2;
    }

    if (o.lossless) summary_lossless(&o);
    if (o.lossy && lossy_ok) summary_lossy(&o);

    load_avg(load, sizeof load);
    printf("\nload average at end: %s\n", load);
    if (csv) {
        fclose(csv);
        printf("CSV: %s\n", o.csv_path);
    }
    scz_ctx_destroy(ctx);
    free(bufs.comp);
    free(bufs.first);
    free(bufs.dec);
    free(records);
    if (g_failures) {
        printf("\n*** %d FAILURE(S): see the FAIL lines above ***\n", g_failures);
        return 1;
    }
    if (input_errors) {
        printf("\n%d input file(s) given with --file could not be loaded\n", input_errors);
        return 2;
    }
    printf("all checks passed\n");
    return 0;
}

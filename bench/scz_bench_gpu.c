/*
 * scz_bench_gpu.c -- GPU benchmark of scz (docs/GPU.md, bench/RESULTS.md).
 *
 * Per file: ratio and device-to-device compress / decompress throughput
 * (scz_cuda_compress / scz_cuda_decompress between device buffers, CUDA
 * events around each call, median of --reps runs after --warmup runs), and
 * each as a fraction of the device-to-device copy bandwidth measured in the
 * same run (cudaMemcpy device to device, counted as bytes read + written).
 * With --host: host-to-host figures of the streamed host API
 * (scz_compress / scz_decompress on a CUDA context, pageable buffers, wall
 * clock) beside the pinned PCIe copy rates and the CPU backend on the same
 * machine. --big GIB builds a GIB-sized array by repeating the first file
 * along its slowest axis and streams it through the host API (bounded
 * device memory), against the CPU backend. Every round trip is verified
 * bit for bit; a mismatch prints FAIL and the exit status is 1.
 * Built with nvCOMP (SCZ_HAVE_NVCOMP, bench/nvcomp_peer.c), the same run
 * measures nvCOMP's codecs on the same device buffers, right after scz on
 * each file, and prints their table after scz's (after gfc's with --gfc;
 * --no-nvcomp skips them). --gfc rows also compare each stream with the
 * CPU backend's.
 *
 * Throughput = raw (uncompressed) bytes / time, in GB/s (1e9 bytes/s).
 */
#define _POSIX_C_SOURCE 200809L
#include "median.h"
#include "nvcomp_peer.h"
#include "quant_codes.h"
#include "scz.h"

#include <cuda_runtime.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The library's phase timing (src/cuda/backend.h, src/cuda/prof.h): the
 * Huffman decoding phase of a lossy decompression, measured alone. */
void scz__cuda_prof_set(int on);
void scz__cuda_prof_reset(void);
double scz__cuda_prof_phase(const char *what, const char *phase);

#define CK(call)                                                                                               \
    do {                                                                                                       \
        cudaError_t e_ = (call);                                                                               \
        if (e_ != cudaSuccess) {                                                                               \
            fprintf(stderr, "CUDA error %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(3);                                                                                           \
        }                                                                                                      \
    } while (0)

typedef struct input {
    char path[1024], name[256];
    scz_shape shape;
} input;

static int g_reps = 10, g_warmup = 3, g_host = 0, g_fail = 0;
static double g_huff_mi = 0; /* --huffman: millions (2^20) of u16 codes; 0 = off */
static int g_huff_only = 0;  /* --huffman-only: no ndzip rows */
static double g_big_gib = 0;
static double g_big_rel = 0; /* --big-lossy REL: the large array through lossy too */
static int g_gfc = 0;         /* --gfc: a table of the gfc codec */
static int g_lzss = 0;        /* --lzss: a table of the lzss codec */
static double g_lzss_q = 0;   /* --lzss-int REL: also each float input's u16 quantization codes */
static scz_ctx *g_cpu = NULL; /* gfc and lzss rows: the GPU stream compared with the CPU's */
static uint64_t g_chunk = 0;
static FILE *g_csv;

/* nvCOMP rows, measured with scz's and printed after scz's table */
typedef struct nvc_file {
    char name[256], dims[96];
    const char *dtype;
    size_t raw;
    int nrows;
    nvc_row rows[NVC_MAX_ROWS];
} nvc_file;
static int g_nvcomp = 1, g_nnvc = 0;
static nvc_file *g_nvc;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}


/* NAME_D1xD2xD3.f32, dims slowest first in the name: shape fastest first. */
static int parse_name(const char *path, input *in) {
    const char *nm = strrchr(path, '/');
    nm = nm ? nm + 1 : path;
    size_t len = strlen(nm);
    if (len < 5) return -1;
    memset(in, 0, sizeof *in);
    if (!strcmp(nm + len - 4, ".f32")) in->shape.dtype = SCZ_DTYPE_F32;
    else if (!strcmp(nm + len - 4, ".f64")) in->shape.dtype = SCZ_DTYPE_F64;
    else return -1;
    const char *us = strrchr(nm, '_');
    if (!us) return -1;
    uint64_t d[4];
    int r = 0;
    const char *p = us + 1;
    while (r < 4 && p < nm + len - 4) {
        char *end;
        d[r++] = strtoull(p, &end, 10);
        if (*end == 'x') p = end + 1;
        else break;
    }
    if (r < 1) return -1;
    in->shape.rank = (uint32_t)r;
    for (int i = 0; i < 4; i++) in->shape.dims[i] = i < r ? d[r - 1 - i] : 1;
    snprintf(in->path, sizeof in->path, "%s", path);
    snprintf(in->name, sizeof in->name, "%s", nm);
    return 0;
}

static size_t shape_bytes(const scz_shape *s) { return (size_t)scz_shape_count(s) * scz_dtype_size(s->dtype); }

static void *read_file(const char *path, size_t want) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    void *p = malloc(want ? want : 1);
    size_t got = p ? fread(p, 1, want, f) : 0;
    fclose(f);
    if (got != want) {
        free(p);
        return NULL;
    }
    return p;
}

static int cmp_in(const void *a, const void *b) { return strcmp(((const input *)a)->name, ((const input *)b)->name); }

static int list_dir(const char *dir, input **out, int n, int *cap) {
    DIR *d = opendir(dir);
    if (!d) return n;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        input in;
        if (parse_name(path, &in)) continue;
        if (n == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *out = realloc(*out, (size_t)*cap * sizeof **out);
        }
        (*out)[n++] = in;
    }
    closedir(d);
    return n;
}

/* Device-to-device copy bandwidth, bytes read + written, median. */
static double copy_bw(size_t bytes, int reps) {
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double t[64];
    if (reps > 64) reps = 64;
    for (int i = 0; i < 3; i++) CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    for (int i = 0; i < reps; i++) {
        float ms;
        CK(cudaEventRecord(e0, 0));
        CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[i] = 2.0 * bytes / (ms * 1e-3) / 1e9;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(a));
    CK(cudaFree(b));
    return bench_median(t, reps);
}

static double pcie_bw(size_t bytes, int h2d) {
    void *h, *d;
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    memset(h, 1, bytes);
    double t[8];
    for (int i = 0; i < 8; i++) {
        double t0 = now();
        if (h2d) CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
        else CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
        t[i] = bytes / (now() - t0) / 1e9;
    }
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    return bench_median(t + 2, 6);
}

static const char *dims_str(const scz_shape *s, char *buf, size_t n) {
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < s->rank; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%llu", i ? "x" : "", (unsigned long long)s->dims[i]);
    return buf;
}

/* Device-to-device timing loops (CUDA events on s): n runs after the
 * warm-up, GB/s of raw bytes into t[]. */
static scz_status time_compress(scz_ctx *gpu, const scz_params *p, const scz_shape *shape, const void *d_src,
                                void *d_z, size_t bound, uint64_t *size_out, cudaStream_t s, int n, double *t) {
    const size_t raw = shape_bytes(shape);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    scz_status r = SCZ_OK;
    for (int i = -g_warmup; i < n && !r; i++) {
        float ms;
        CK(cudaEventRecord(e0, s));
        r = scz_cuda_compress(gpu, p, shape, d_src, d_z, bound, size_out, s);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0) t[i] = raw / (ms * 1e-3) / 1e9;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return r;
}

static scz_status time_decompress(scz_ctx *gpu, const void *d_z, size_t zn, void *d_out, size_t raw,
                                  scz_status *status, cudaStream_t s, int n, double *t) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    scz_status r = SCZ_OK;
    for (int i = -g_warmup; i < n && !r; i++) {
        float ms;
        CK(cudaEventRecord(e0, s));
        r = scz_cuda_decompress(gpu, d_z, zn, d_out, raw, NULL, status, s);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0) t[i] = raw / (ms * 1e-3) / 1e9;
        if (!r && *status) r = *status;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return r;
}

static void bench_device(scz_ctx *gpu, const input *in, const void *h_src, double copy, scz_codec codec) {
    const size_t raw = shape_bytes(&in->shape);
    scz_params p;
    scz_params_init(&p, codec);
    p.chunk_bytes = g_chunk;
    size_t bound = scz_compress_bound(&in->shape, &p);
    void *d_src, *d_z, *d_out;
    CK(cudaMalloc(&d_src, raw));
    CK(cudaMalloc(&d_z, bound));
    CK(cudaMalloc(&d_out, raw));
    CK(cudaMemcpy(d_src, h_src, raw, cudaMemcpyHostToDevice));
    uint64_t *size_out;
    scz_status *status;
    CK(cudaMallocHost((void **)&size_out, 8));
    CK(cudaMallocHost((void **)&status, sizeof *status));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    scz_status r = scz_cuda_reserve(gpu, scz_cuda_scratch_size(&in->shape, &p));
    int n = g_reps > 200 ? 200 : g_reps;
    double tc[200], td[200];
    if (!r) r = time_compress(gpu, &p, &in->shape, d_src, d_z, bound, size_out, s, n, tc);
    if (r) {
        printf("%-34s FAIL compress: %s (%s)\n", in->name, scz_status_string(r), scz_ctx_last_error(gpu));
        g_fail = 1;
    }
    const size_t zn = (size_t)*size_out;
    if (!r) r = time_decompress(gpu, d_z, zn, d_out, raw, status, s, n, td);
    if (r) {
        printf("%-34s FAIL decompress: %s (%s)\n", in->name, scz_status_string(r), scz_ctx_last_error(gpu));
        g_fail = 1;
    }
    /* verify: decoded == input, stream == the CPU's is the test suite's job */
    const char *check = "exact";
    if (!r) {
        void *h = malloc(raw);
        CK(cudaMemcpy(h, d_out, raw, cudaMemcpyDeviceToHost));
        if (memcmp(h, h_src, raw)) {
            check = "FAIL";
            g_fail = 1;
        }
        free(h);
        if ((codec == SCZ_CODEC_GFC || codec == SCZ_CODEC_LZSS) && g_cpu) { /* the large inputs too: the GPU writes the CPU's bytes */
            uint8_t *zg = malloc(zn), *zc = malloc(bound);
            size_t cn = 0;
            if (!zg || !zc || scz_compress(g_cpu, &p, &in->shape, h_src, zc, bound, &cn)) {
                check = "FAIL(cpu)";
                g_fail = 1;
            } else {
                CK(cudaMemcpy(zg, d_z, zn, cudaMemcpyDeviceToHost));
                if (cn != zn || memcmp(zg, zc, zn)) {
                    check = "FAIL(cpu!=gpu)";
                    g_fail = 1;
                } else if (!strcmp(check, "exact")) {
                    check = "exact, =cpu";
                }
            }
            free(zg);
            free(zc);
        }
        char dims[96];
        double mc = bench_median(tc, n), md = bench_median(td, n);
        printf("%-34s %-3s %-14s %8.1f %6.3f %9.1f %5.1f%% %9.1f %5.1f%%  %s\n", in->name,
               scz_dtype_name(in->shape.dtype), dims_str(&in->shape, dims, sizeof dims), raw / 1e6,
               (double)raw / zn, mc, 100 * mc / copy, md, 100 * md / copy, check);
        if (g_csv)
            fprintf(g_csv, "%s%s%s,%s,%s,%zu,%zu,%.4f,%.2f,%.2f,%.2f,%s\n", codec == SCZ_CODEC_NDZIP ? "" : scz_codec_name(codec),
                    codec == SCZ_CODEC_NDZIP ? "" : ":", in->name, scz_dtype_name(in->shape.dtype),
                    dims, raw, zn, (double)raw / zn, mc, md, copy, check);
    }
    if (g_nvcomp) { /* the same device buffer, right after scz */
        nvc_file *f = realloc(g_nvc, (size_t)(g_nnvc + 1) * sizeof *g_nvc);
        if (f) {
            g_nvc = f;
            f = &g_nvc[g_nnvc++];
            memset(f, 0, sizeof *f);
            snprintf(f->name, sizeof f->name, "%s", in->name);
            dims_str(&in->shape, f->dims, sizeof f->dims);
            f->dtype = scz_dtype_name(in->shape.dtype);
            f->raw = raw;
            f->nrows = nvc_bench(d_src, h_src, raw, (int)scz_dtype_size(in->shape.dtype), n, g_warmup, f->rows);
        }
    }
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(size_out));
    CK(cudaFreeHost(status));
    CK(cudaFree(d_src));
    CK(cudaFree(d_z));
    CK(cudaFree(d_out));
}

/* ---- lossy (--lossy REL,...) ---- */

static double g_lossy[8];
static int g_nlossy = 0;
static uint32_t g_level = 0; /* --level: knobs[2] of the lossy rows */

/* Largest |x - x'| over the finite values (binary64); *special_ok: every
 * NaN / infinity came back bit for bit. */
static double max_err(const scz_shape *sh, const void *a, const void *b, int *special_ok) {
    const uint64_t n = scz_shape_count(sh);
    const size_t es = scz_dtype_size(sh->dtype);
    double m = 0;
    *special_ok = 1;
    for (uint64_t i = 0; i < n; i++) {
        const double x = es == 8 ? ((const double *)a)[i] : ((const float *)a)[i];
        const double y = es == 8 ? ((const double *)b)[i] : ((const float *)b)[i];
        if (!isfinite(x)) {
            if (memcmp((const char *)a + i * es, (const char *)b + i * es, es)) *special_ok = 0;
        } else if (!(fabs(x - y) <= m)) {
            m = fabs(x - y);
        }
    }
    return m;
}

/* Device-to-device lossy compress / decompress at a REL bound. Without GPU
 * decompression kernels the CPU decodes the stream for the check and the
 * decompression columns say "-". */
static void bench_lossy(scz_ctx *gpu, scz_ctx *cpu, const input *in, const void *h_src, double copy, double rel) {
    const size_t raw = shape_bytes(&in->shape);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.chunk_bytes = g_chunk;
    p.eb_mode = SCZ_EB_REL;
    p.eb = rel;
    p.knobs[2] = g_level;
    const size_t bound = scz_compress_bound(&in->shape, &p);
    void *d_src, *d_z, *d_out;
    CK(cudaMalloc(&d_src, raw));
    CK(cudaMalloc(&d_z, bound));
    CK(cudaMalloc(&d_out, raw));
    CK(cudaMemcpy(d_src, h_src, raw, cudaMemcpyHostToDevice));
    uint64_t *size_out;
    scz_status *status;
    CK(cudaMallocHost((void **)&size_out, 8));
    CK(cudaMallocHost((void **)&status, sizeof *status));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int n = g_reps > 200 ? 200 : g_reps;
    double tc[200], td[200];
    scz_status r = scz_cuda_reserve(gpu, scz_cuda_scratch_size(&in->shape, &p));
    if (!r) r = time_compress(gpu, &p, &in->shape, d_src, d_z, bound, size_out, s, n, tc);
    /* level 1: the stream must be the CPU's (level 0's is checked by
     * test_cuda_lossy; level 1's writer is newer and costlier to test) */
    const char *same = "";
    if (!r && g_level) {
        uint8_t *hz = malloc(bound), *hg = malloc(bound);
        size_t zn = 0;
        int eq = 0;
        if (hz && hg && !scz_compress(cpu, &p, &in->shape, h_src, hz, bound, &zn) && zn == *size_out) {
            CK(cudaMemcpy(hg, d_z, zn, cudaMemcpyDeviceToHost));
            eq = !memcmp(hz, hg, zn);
        }
        same = eq ? " =cpu" : " FAIL(cpu!=gpu)";
        if (!eq) g_fail = 1;
        free(hz);
        free(hg);
    }
    char cfg[64];
    if (g_level) snprintf(cfg, sizeof cfg, "REL %g L%u", rel, g_level);
    else snprintf(cfg, sizeof cfg, "REL %g", rel);
    if (r) {
        printf("%-34s %-10s FAIL compress: %s (%s)\n", in->name, cfg, scz_status_string(r), scz_ctx_last_error(gpu));
        g_fail = 1;
    } else {
        const size_t zn = (size_t)*size_out;
        const int gpu_dec = scz_cuda_codec_supported(SCZ_CODEC_LOSSY);
        uint8_t *hz = malloc(zn);
        void *h = malloc(raw);
        CK(cudaMemcpy(hz, d_z, zn, cudaMemcpyDeviceToHost));
        double hms = -1; /* median time of the Huffman decoding phase (k_huff), ms */
        if (gpu_dec) {
            r = time_decompress(gpu, d_z, zn, d_out, raw, status, s, n, td);
            if (!r) CK(cudaMemcpy(h, d_out, raw, cudaMemcpyDeviceToHost));
            if (!r) { /* n more decompressions with the phases' events recorded (not timed above) */
                double hp[200];
                int nh = 0;
                scz__cuda_prof_set(1);
                for (int i = 0; i < n; i++) {
                    scz__cuda_prof_reset();
                    if (scz_cuda_decompress(gpu, d_z, zn, d_out, raw, NULL, status, s) ||
                        cudaStreamSynchronize(s) != cudaSuccess || *status)
                        break;
                    const double ms = scz__cuda_prof_phase("lossy decode", "huff");
                    if (ms > 0) hp[nh++] = ms;
                }
                scz__cuda_prof_set(0);
                if (nh == n) hms = bench_median(hp, nh);
            }
        } else {
            r = scz_decompress(cpu, hz, zn, h, raw, NULL);
        }
        scz_info info;
        memset(&info, 0, sizeof info);
        int sok = 0;
        const double me = r ? 0 : max_err(&in->shape, h_src, h, &sok);
        const int ok = !r && scz_inspect(hz, zn, &info) == SCZ_OK && sok && me <= info.eb_abs;
        if (!ok) g_fail = 1;
        const double mc = bench_median(tc, n), md = gpu_dec && !r ? bench_median(td, n) : 0;
        char dec[32], decp[16], huf[32];
        if (gpu_dec && !r) {
            snprintf(dec, sizeof dec, "%9.1f", md);
            snprintf(decp, sizeof decp, "%5.1f%%", 100 * md / copy);
        } else {
            snprintf(dec, sizeof dec, "%9s", "-");
            snprintf(decp, sizeof decp, "%6s", "-");
        }
        /* GB/s of decoded codes: 2 bytes (u16) per element */
        if (hms > 0) snprintf(huf, sizeof huf, "%9.1f", 2.0 * (double)(raw / scz_dtype_size(in->shape.dtype)) / (hms * 1e6));
        else snprintf(huf, sizeof huf, "%9s", "-");
        char comp[32], compp[16];
        snprintf(comp, sizeof comp, "%9.1f", mc);
        snprintf(compp, sizeof compp, "%5.1f%%", 100 * mc / copy);
        char scr[16]; /* the device API's scratch */
        const size_t sb = scz_cuda_scratch_size(&in->shape, &p);
        if (sb) snprintf(scr, sizeof scr, "%6.2fx", (double)sb / (double)raw);
        else snprintf(scr, sizeof scr, "%7s", "-");
        printf("%-34s %-10s %7.3f %s %s %s %s %s %s  %s%s (max err %.3g, bound %.3g)\n", in->name, cfg,
               (double)raw / zn, comp, compp, dec, decp, huf, scr, ok ? "within bound" : "FAIL", same, me,
               info.eb_abs);
        if (g_csv)
            fprintf(g_csv, "lossy-rel%g:%s,%s,,%zu,%zu,%.4f,%.2f,%.2f,%.2f,%s\n", rel, in->name,
                    scz_dtype_name(in->shape.dtype), raw, zn, (double)raw / zn, mc, md, copy,
                    ok ? "bound" : "FAIL");
        free(h);
        free(hz);
    }
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(size_out));
    CK(cudaFreeHost(status));
    CK(cudaFree(d_src));
    CK(cudaFree(d_z));
    CK(cudaFree(d_out));
}

/* ---- the `huffman` codec on u16 codes (--huffman) ---- */

/* Device-to-device huffman compress / decompress of n u16 codes: GB/s of
 * u16 codes (2 bytes each) per second, median; the GPU stream is compared
 * with the CPU backend's and the decoded codes with the input. */
static void bench_huffman_one(scz_ctx *gpu, scz_ctx *cpu, const char *name, const uint16_t *h, uint64_t n,
                              double copy) {
    scz_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.dtype = SCZ_DTYPE_U16;
    sh.rank = 1;
    sh.dims[0] = n;
    sh.dims[1] = sh.dims[2] = sh.dims[3] = 1;
    const size_t raw = (size_t)n * 2;
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    p.chunk_bytes = g_chunk;
    size_t bound = scz_compress_bound(&sh, &p);
    void *d_src, *d_z, *d_out;
    CK(cudaMalloc(&d_src, raw));
    CK(cudaMalloc(&d_z, bound));
    CK(cudaMalloc(&d_out, raw));
    CK(cudaMemcpy(d_src, h, raw, cudaMemcpyHostToDevice));
    uint64_t *size_out;
    scz_status *status;
    CK(cudaMallocHost((void **)&size_out, 8));
    CK(cudaMallocHost((void **)&status, sizeof *status));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    scz_status r = scz_cuda_reserve(gpu, scz_cuda_scratch_size(&sh, &p));
    int reps = g_reps > 200 ? 200 : g_reps;
    double tc[200], td[200];
    for (int i = -g_warmup; i < reps && !r; i++) {
        float ms;
        CK(cudaEventRecord(e0, s));
        r = scz_cuda_compress(gpu, &p, &sh, d_src, d_z, bound, size_out, s);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0) tc[i] = raw / (ms * 1e-3) / 1e9;
    }
    if (r) {
        printf("%-34s FAIL compress: %s (%s)\n", name, scz_status_string(r), scz_ctx_last_error(gpu));
        g_fail = 1;
    }
    const size_t zn = (size_t)*size_out;
    for (int i = -g_warmup; i < reps && !r; i++) {
        float ms;
        CK(cudaEventRecord(e0, s));
        r = scz_cuda_decompress(gpu, d_z, zn, d_out, raw, NULL, status, s);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0) td[i] = raw / (ms * 1e-3) / 1e9;
        if (!r && *status) r = *status;
    }
    if (r) {
        printf("%-34s FAIL decompress: %s (%s)\n", name, scz_status_string(r), scz_ctx_last_error(gpu));
        g_fail = 1;
    }
    if (!r) {
        const char *check = "exact";
        uint8_t *o = malloc(raw), *z = malloc(zn), *zc = malloc(bound);
        CK(cudaMemcpy(o, d_out, raw, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(z, d_z, zn, cudaMemcpyDeviceToHost));
        if (memcmp(o, h, raw)) check = "FAIL";
        size_t zcn = 0;
        double t0 = now();
        scz_status rc = scz_compress(cpu, &p, &sh, h, zc, bound, &zcn);
        double cpu_gbs = raw / (now() - t0) / 1e9;
        const char *same = rc == SCZ_OK && zcn == zn && memcmp(zc, z, zn) == 0 ? "= CPU stream" : "CPU stream DIFFERS";
        if (strcmp(check, "exact") || strcmp(same, "= CPU stream")) g_fail = 1;
        scz_info info;
        uint32_t nch = scz_inspect(z, zn, &info) == SCZ_OK ? info.num_chunks : 0;
        double mc = bench_median(tc, reps), md = bench_median(td, reps);
        printf("%-34s %9.1f %6.3f %6u %9.1f %5.1f%% %9.1f %5.1f%%  %s, %s (CPU backend %.2f GB/s)\n", name,
               raw / 1e6, (double)raw / zn, nch, mc, 100 * mc / copy, md, 100 * md / copy, check, same, cpu_gbs);
        if (g_csv)
            fprintf(g_csv, "huffman:%s,u16,%llu,%zu,%zu,%.4f,%.2f,%.2f,%.2f,%s\n", name, (unsigned long long)n, raw,
                    zn, (double)raw / zn, mc, md, copy, check);
        free(o);
        free(z);
        free(zc);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(size_out));
    CK(cudaFreeHost(status));
    CK(cudaFree(d_src));
    CK(cudaFree(d_z));
    CK(cudaFree(d_out));
}

/* u16 codes: a two-sided geometric around 32768 (synthetic), and the
 * quantized differences (step 2e-4 of the value range, +32768) of the
 * first float32 input, repeated to the same length. */
static void bench_huffman(scz_ctx *gpu, scz_ctx *cpu, const input *ins, int nin, double copy) {
    const uint64_t n = (uint64_t)(g_huff_mi * 1048576.0);
    uint16_t *h = malloc(2 * n + 2);
    if (!h) {
        printf("huffman: out of memory\n");
        g_fail = 1;
        return;
    }
    printf("\nhuffman (u16 codes) device to device, median of %d after %d warm-up; chunk %s; GB/s = bytes of u16 "
           "codes / time / 1e9; %% = of the copy bandwidth\n",
           g_reps, g_warmup, g_chunk ? "as given" : "default (32 MiB)");
    printf("%-34s %9s %6s %6s %9s %6s %9s %6s  %s\n", "codes", "MB", "ratio", "chunks", "comp GB/s", "%copy",
           "dec GB/s", "%copy", "check");
    uint64_t st = 0x9E3779B97F4A7C15ull;
    for (uint64_t i = 0; i < n; i++) {
        st += 0x9E3779B97F4A7C15ull;
        uint64_t z = st;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const unsigned g = (unsigned)__builtin_ctzll(z | (1ull << 40)); /* geometric, p = 1/2 */
        const unsigned x = g * 4 + (unsigned)((z >> 48) & 3);
        h[i] = (uint16_t)((z >> 47) & 1 ? 32768 + x : 32768 - x);
    }
    char name[300];
    snprintf(name, sizeof name, "geometric u16 (%.0f Mi)", g_huff_mi);
    bench_huffman_one(gpu, cpu, name, h, n, copy);
    for (int i = 0; i < nin; i++) {
        if (ins[i].shape.dtype != SCZ_DTYPE_F32) continue;
        const size_t raw = shape_bytes(&ins[i].shape);
        float *f = read_file(ins[i].path, raw);
        if (!f) continue;
        const uint64_t cnt = raw / 4;
        float lo = f[0], hi = f[0];
        for (uint64_t k = 0; k < cnt; k++) {
            if (f[k] < lo) lo = f[k];
            if (f[k] > hi) hi = f[k];
        }
        const double step = 2e-4 * ((double)hi - lo) + 1e-30;
        for (uint64_t k = 0; k < n; k++) {
            const uint64_t j = k % cnt;
            const double d = j ? (double)f[j] - f[j - 1] : 0.0;
            double c = d / step + 32768.5;
            h[k] = (uint16_t)(c < 0 ? 0 : c > 65535 ? 65535 : (uint64_t)c);
        }
        free(f);
        snprintf(name, sizeof name, "%s diffs", ins[i].name);
        bench_huffman_one(gpu, cpu, name, h, n, copy);
        break;
    }
    free(h);
}

static void print_nvcomp(double copy) {
    char desc[256];
    int have = nvc_describe(desc, sizeof desc);
    printf("\n%s\n", desc);
    if (!have || !g_nvcomp) {
        if (have) printf("nvCOMP rows skipped (--no-nvcomp)\n");
        return;
    }
    printf("nvCOMP device to device on the same device buffers, median of %d after %d warm-up; GB/s = raw bytes / "
           "time / 1e9; %% = of the copy bandwidth; ratio = raw / sum of compressed chunks\n",
           g_reps, g_warmup);
    printf("%-34s %-3s %-9s %-29s %6s %9s %6s %9s %6s  %s\n", "file", "dt", "codec", "config", "ratio", "comp GB/s",
           "%copy", "dec GB/s", "%copy", "check");
    int bad = 0;
    for (int i = 0; i < g_nnvc; i++) {
        const nvc_file *f = &g_nvc[i];
        for (int k = 0; k < f->nrows; k++) {
            const nvc_row *r = &f->rows[k];
            if (!r->ok) {
                printf("%-34s %-3s %-9s %-29s FAIL: %s\n", f->name, f->dtype, r->codec, r->config, r->err);
                bad++;
                if (r->mismatch) g_fail = 1;
                continue;
            }
            double ratio = (double)f->raw / r->stream;
            printf("%-34s %-3s %-9s %-29s %6.3f %9.1f %5.1f%% %9.1f %5.1f%%  exact\n", f->name, f->dtype, r->codec,
                   r->config, ratio, r->comp, 100 * r->comp / copy, r->dec, 100 * r->dec / copy);
            if (g_csv)
                fprintf(g_csv, "nvcomp-%s:%s,%s,%s,%zu,%zu,%.4f,%.2f,%.2f,%.2f,exact\n", r->codec, f->name,
                        f->dtype, f->dims, f->raw, r->stream, ratio, r->comp, r->dec, copy);
        }
    }
    printf("nvCOMP: %s\n", bad ? "some rows not measured (FAIL above)" : "all round trips exact");
}

/* Host-to-host: streamed GPU path vs the CPU backend; wall clock, median. */
/* The decoded array out of src is right: bit for bit (lossless), or within
 * the stream's bound with NaN / infinities exact (lossy). */
static int host_check(const scz_params *p, const scz_shape *shape, const void *src, const void *out,
                      const uint8_t *z, size_t zn) {
    if (p->codec != SCZ_CODEC_LOSSY) return memcmp(out, src, shape_bytes(shape)) == 0;
    scz_info info;
    int sok = 0;
    if (scz_inspect(z, zn, &info) != SCZ_OK) return 0;
    return max_err(shape, src, out, &sok) <= info.eb_abs && sok;
}

/* Host-to-host through the streamed host API on the GPU and on the CPU
 * backend: ndzip, or lossy at REL rel (rel > 0). */
static void bench_host(scz_ctx *gpu, scz_ctx *cpu, const char *name, const scz_shape *shape, const void *src,
                       int reps, double rel) {
    const size_t raw = shape_bytes(shape);
    scz_params p;
    scz_params_init(&p, rel > 0 ? SCZ_CODEC_LOSSY : SCZ_CODEC_NDZIP);
    if (rel > 0) {
        p.eb_mode = SCZ_EB_REL;
        p.eb = rel;
    }
    p.chunk_bytes = g_chunk;
    size_t bound = scz_compress_bound(shape, &p);
    uint8_t *z = malloc(bound), *zc = malloc(bound), *out = malloc(raw);
    if (!z || !zc || !out) {
        printf("%s: host buffers: out of memory\n", name);
        g_fail = 1;
        free(z), free(zc), free(out);
        return;
    }
    /* touch every page first: the first write to fresh memory pays page
     * faults, which would favour whichever backend runs second */
    memset(z, 0, bound);
    memset(zc, 0, bound);
    memset(out, 0, raw);
    size_t free0, total;
    CK(cudaMemGetInfo(&free0, &total));
    double t[4][16];
    size_t zn = 0, zcn = 0;
    if (reps > 16) reps = 16;
    scz_ctx *ctxs[2] = {gpu, cpu};
    size_t min_free = free0;
    /* untimed warm-up: the first host-API call allocates the pinned staging */
    if (scz_compress(gpu, &p, shape, src, z, bound, &zn) == SCZ_OK) scz_decompress(gpu, z, zn, out, raw, NULL);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < reps; i++) {
            double t0 = now();
            scz_status r = scz_compress(ctxs[k], &p, shape, src, k ? zc : z, bound, k ? &zcn : &zn);
            t[2 * k][i] = raw / (now() - t0) / 1e9;
            if (r) {
                printf("%s: FAIL host compress (%s): %s\n", name, k ? "cpu" : "gpu", scz_ctx_last_error(ctxs[k]));
                g_fail = 1;
                goto done;
            }
            if (k == 0) {
                size_t f, tt;
                CK(cudaMemGetInfo(&f, &tt));
                if (f < min_free) min_free = f;
            }
            t0 = now();
            r = scz_decompress(ctxs[k], k ? zc : z, k ? zcn : zn, out, raw, NULL);
            t[2 * k + 1][i] = raw / (now() - t0) / 1e9;
            if (r || !host_check(&p, shape, src, out, k ? zc : z, k ? zcn : zn)) {
                printf("%s: FAIL host decompress (%s): %s\n", name, k ? "cpu" : "gpu",
                       r ? scz_ctx_last_error(ctxs[k]) : rel > 0 ? "outside the bound" : "data differs");
                g_fail = 1;
                goto done;
            }
        }
    }
    {
        int same = zn == zcn && memcmp(z, zc, zn) == 0;
        if (!same) g_fail = 1;
        double gc = bench_median(t[0], reps), gd = bench_median(t[1], reps), cc = bench_median(t[2], reps), cd = bench_median(t[3], reps);
        printf("%-34s %8.1f MB  GPU-host comp %6.2f dec %6.2f GB/s | CPU comp %6.2f dec %6.2f GB/s | "
               "x%.1f/x%.1f | streams %s | device mem used <= %.0f MiB\n",
               name, raw / 1e6, gc, gd, cc, cd, gc / cc, gd / cd, same ? "identical" : "DIFFER (FAIL)",
               (free0 - min_free) / 1048576.0);
        if (g_csv)
            fprintf(g_csv, "host:%s,%zu,%zu,%.3f,%.3f,%.3f,%.3f\n", name, raw, zn, gc, gd, cc, cd);
    }
done:
    free(z);
    free(zc);
    free(out);
}

static void usage(void) {
    fprintf(stderr,
            "usage: scz_bench_gpu [--data DIR] [--file PATH]... [--only S1,S2] [--reps N] [--warmup N]\n"
            "                     [--chunk BYTES] [--host] [--big GIB [--big-lossy REL]] [--csv FILE] [--no-nvcomp]\n"
            "                     [--huffman MI | --huffman-only MI] [--lossy REL[,REL...]] [--level N] [--gfc] [--lzss]\n"
            "                     [--lzss-int REL]\n");
    exit(2);
}

/* --lzss-int: integer data from a float field: its u16 Lorenzo
 * quantization codes at REL (quant_codes.h: cuSZ's codes, as the gpuLZ
 * paper's quant datasets), repeated along the slowest axis up to at least
 * 512 MiB, through lzss on the device. */
static void bench_lzss_codes(scz_ctx *gpu, const input *in, const void *h, double copy) {
    const uint64_t cnt = scz_shape_count(&in->shape);
    if (!cnt) return;
    const uint64_t reps = (512ull << 20) / (2 * cnt) + ((512ull << 20) % (2 * cnt) != 0);
    input q = *in;
    q.shape.dtype = SCZ_DTYPE_U16;
    q.shape.dims[q.shape.rank - 1] *= reps;
    snprintf(q.name, sizeof q.name, "%.180s codes%g x%llu", in->name, g_lzss_q, (unsigned long long)reps);
    uint16_t *u = malloc(cnt * 2 * reps);
    if (u && !bench_lorenzo_codes(h, in->shape.dtype, in->shape.dims, in->shape.rank, g_lzss_q, u)) {
        for (uint64_t k = 1; k < reps; k++) memcpy(u + k * cnt, u, cnt * 2);
        bench_device(gpu, &q, u, copy, SCZ_CODEC_LZSS);
    }
    free(u);
}

/* A table of a lossless codec whose GPU streams are also compared with
 * the CPU backend's (gfc: the float files; lzss: every file, and with
 * --lzss-int the float files' quantization codes). */
static void codec_table(scz_ctx *gpu, scz_ctx *cpu, const input *ins, int nin, const char *only, double copy,
                        scz_codec codec) {
    printf("\n%s device to device (default knobs), median of %d after %d warm-up; same columns as ndzip's; "
           "\"=cpu\": the stream equals the CPU backend's byte for byte\n",
           scz_codec_name(codec), g_reps, g_warmup);
    printf("%-34s %-3s %-14s %8s %6s %9s %6s %9s %6s  %s\n", "file", "dt", "dims(fastest)", "MB", "ratio",
           "comp GB/s", "%copy", "dec GB/s", "%copy", "check");
    g_cpu = cpu;
    const int nv = g_nvcomp;
    g_nvcomp = 0; /* nvCOMP was measured on these buffers with ndzip's rows */
    for (int i = 0; i < nin; i++) {
        const int fl = ins[i].shape.dtype == SCZ_DTYPE_F32 || ins[i].shape.dtype == SCZ_DTYPE_F64;
        if (codec == SCZ_CODEC_GFC && !fl) continue;
        if (only && !strstr(only, ins[i].name) && !strstr(ins[i].name, only)) continue;
        size_t raw = shape_bytes(&ins[i].shape);
        void *h = read_file(ins[i].path, raw);
        if (!h) continue;
        bench_device(gpu, &ins[i], h, copy, codec);
        if (codec == SCZ_CODEC_LZSS && g_lzss_q > 0 && fl) bench_lzss_codes(gpu, &ins[i], h, copy);
        free(h);
    }
    g_nvcomp = nv;
    g_cpu = NULL;
}

int main(int argc, char **argv) {
    const char *data = NULL, *only = NULL, *csv = NULL;
    input *ins = NULL;
    int nin = 0, cap = 0, explicit_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--data") && v) data = argv[++i];
        else if (!strcmp(a, "--file") && v) {
            input in;
            if (parse_name(argv[++i], &in)) {
                fprintf(stderr, "cannot parse shape from %s\n", argv[i]);
                return 2;
            }
            if (nin == cap) {
                cap = cap ? 2 * cap : 16;
                ins = realloc(ins, (size_t)cap * sizeof *ins);
            }
            ins[nin++] = in;
            explicit_files = 1;
        } else if (!strcmp(a, "--only") && v) only = argv[++i];
        else if (!strcmp(a, "--reps") && v) g_reps = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && v) g_warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--chunk") && v) g_chunk = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--host")) g_host = 1;
        else if (!strcmp(a, "--no-nvcomp")) g_nvcomp = 0;
        else if (!strcmp(a, "--big") && v) g_big_gib = atof(argv[++i]);
        else if (!strcmp(a, "--big-lossy") && v) g_big_rel = atof(argv[++i]);
        else if (!strcmp(a, "--gfc")) g_gfc = 1;
        else if (!strcmp(a, "--level") && v) g_level = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(a, "--lzss")) g_lzss = 1;
        else if (!strcmp(a, "--lzss-int") && v) {
            g_lzss = 1;
            g_lzss_q = atof(argv[++i]);
        }
        else if (!strcmp(a, "--csv") && v) csv = argv[++i];
        else if (!strcmp(a, "--huffman") && v) g_huff_mi = atof(argv[++i]);
        else if (!strcmp(a, "--lossy") && v) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            for (char *tok = strtok(buf, ","); tok && g_nlossy < 8; tok = strtok(NULL, ","))
                g_lossy[g_nlossy++] = atof(tok);
        }
        else if (!strcmp(a, "--huffman-only") && v) {
            g_huff_mi = atof(argv[++i]);
            g_huff_only = 1;
        }
        else usage();
    }
    if (g_reps < 1) g_reps = 1;
    if (!explicit_files || data) {
        if (!data) data = getenv("SCZ_DATA_DIR");
        if (!data) data = "../shared/data";
        int n0 = nin;
        nin = list_dir(data, &ins, nin, &cap);
        qsort(ins + n0, (size_t)(nin - n0), sizeof *ins, cmp_in);
    }
    char why[512];
    if (scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why) != SCZ_OK) {
        printf("SKIPPED: %s\n", why);
        return 77;
    }
    scz_ctx *gpu, *cpu;
    if (scz_ctx_create(&gpu, SCZ_BACKEND_CUDA) || scz_ctx_create(&cpu, SCZ_BACKEND_CPU)) {
        printf("cannot create contexts\n");
        return 3;
    }
    if (csv) {
        g_csv = fopen(csv, "w");
        if (g_csv) fprintf(g_csv, "file,dtype,dims_fastest_first,raw_bytes,stream_bytes,ratio,comp_GBs,dec_GBs,copy_GBs,check\n");
    }
    int dev;
    struct cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    const size_t copy_bytes = (size_t)1 << 30;
    double copy = copy_bw(copy_bytes, 20);
    printf("device: %s, %d SMs, %.1f GiB; CUDA runtime %d.%d, driver %d.%d\n", prop.name, prop.multiProcessorCount,
           prop.totalGlobalMem / 1073741824.0, rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
    printf("D2D copy bandwidth: %.1f GB/s (cudaMemcpy device to device of %zu MiB, bytes read + written, median "
           "of 20)\n",
           copy, copy_bytes >> 20);
    if (g_host || g_big_gib > 0)
        printf("PCIe, pinned, 256 MiB: H2D %.1f GB/s, D2H %.1f GB/s\n", pcie_bw(256 << 20, 1), pcie_bw(256 << 20, 0));
    if (g_huff_only) goto huffman;
    printf("ndzip device to device, median of %d after %d warm-up; chunk %s; GB/s = raw bytes / time / 1e9; "
           "%% = of the copy bandwidth\n",
           g_reps, g_warmup, g_chunk ? "as given" : "default (32 MiB)");
    printf("%-34s %-3s %-14s %8s %6s %9s %6s %9s %6s  %s\n", "file", "dt", "dims(fastest)", "MB", "ratio",
           "comp GB/s", "%copy", "dec GB/s", "%copy", "check");
    for (int i = 0; i < nin; i++) {
        if (only) {
            int keep = 0;
            char buf[512];
            snprintf(buf, sizeof buf, "%s", only);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
                if (strstr(ins[i].name, tok)) keep = 1;
            if (!keep) continue;
        }
        size_t raw = shape_bytes(&ins[i].shape);
        void *h = read_file(ins[i].path, raw);
        if (!h) {
            printf("%-34s cannot read %zu bytes\n", ins[i].name, raw);
            g_fail = 1;
            continue;
        }
        bench_device(gpu, &ins[i], h, copy, SCZ_CODEC_NDZIP);
        free(h);
    }
    const int gfc_rows = g_gfc && scz_cuda_codec_supported(SCZ_CODEC_GFC);
    if (!gfc_rows) print_nvcomp(copy);
    if (gfc_rows) {
        codec_table(gpu, cpu, ins, nin, only, copy, SCZ_CODEC_GFC);
        print_nvcomp(copy); /* measured with ndzip's rows, on the same buffers: the peers beside gfc */
    }
    if (g_lzss && scz_cuda_codec_supported(SCZ_CODEC_LZSS)) codec_table(gpu, cpu, ins, nin, only, copy, SCZ_CODEC_LZSS);
    if (g_nlossy) {
        printf("\nlossy device to device, median of %d after %d warm-up; GB/s = raw bytes / time / 1e9; %% = of the "
               "copy bandwidth; huff GB/s = the Huffman decoding phase alone (k_huff, timed by events in %d more "
               "decompressions): u16 codes decoded (2 bytes per value) / its time; scratch = scz_cuda_scratch_size / raw "
               "bytes; checked against the bound in binary64\n",
               g_reps, g_warmup, g_reps);
        printf("%-34s %-10s %7s %9s %6s %9s %6s %9s %7s  %s\n", "file", "bound", "ratio", "comp GB/s", "%copy", "dec GB/s",
               "%copy", "huff GB/s", "scratch", "check");
        for (int i = 0; i < nin; i++) {
            if (ins[i].shape.dtype != SCZ_DTYPE_F32 && ins[i].shape.dtype != SCZ_DTYPE_F64) continue;
            if (only && !strstr(only, ins[i].name) && !strstr(ins[i].name, only)) continue;
            size_t raw = shape_bytes(&ins[i].shape);
            void *h = read_file(ins[i].path, raw);
            if (!h) continue;
            for (int k = 0; k < g_nlossy; k++) bench_lossy(gpu, cpu, &ins[i], h, copy, g_lossy[k]);
            free(h);
        }
    }
    if (g_host) {
        printf("\nhost to host (pageable buffers, streamed through pinned staging; wall clock, median of 3 after 1 "
               "warm-up):\n");
        for (int i = 0; i < nin; i++) {
            if (only && !strstr(only, ins[i].name) && !strstr(ins[i].name, only)) continue;
            size_t raw = shape_bytes(&ins[i].shape);
            void *h = read_file(ins[i].path, raw);
            if (h) bench_host(gpu, cpu, ins[i].name, &ins[i].shape, h, 3, 0);
            free(h);
        }
    }
    if (g_big_gib > 0 && nin > 0) {
        /* repeat the first file along its slowest axis up to the size */
        const input *in = &ins[0];
        size_t raw = shape_bytes(&in->shape);
        uint64_t reps = (uint64_t)(g_big_gib * 1073741824.0 / raw + 0.5);
        if (reps < 1) reps = 1;
        scz_shape s = in->shape;
        s.dims[s.rank - 1] *= reps;
        size_t big = shape_bytes(&s);
        uint8_t *h = malloc(big);
        void *one = read_file(in->path, raw);
        if (!h || !one) {
            printf("big: out of memory\n");
            return 3;
        }
        for (uint64_t k = 0; k < reps; k++) memcpy(h + k * raw, one, raw);
        free(one);
        char name[300];
        snprintf(name, sizeof name, "%s x%llu (%.2f GiB)", in->name, (unsigned long long)reps, big / 1073741824.0);
        printf("\nlarge array through the host API (1 run each):\n");
        bench_host(gpu, cpu, name, &s, h, 1, 0);
        if (g_big_rel > 0 && (s.dtype == SCZ_DTYPE_F32 || s.dtype == SCZ_DTYPE_F64)) {
            snprintf(name + strlen(name), sizeof name - strlen(name), " lossy REL %g", g_big_rel);
            bench_host(gpu, cpu, name, &s, h, 1, g_big_rel);
        }
        free(h);
    }
huffman:
    if (g_huff_mi > 0) bench_huffman(gpu, cpu, ins, nin, copy);
    if (g_csv) fclose(g_csv);
    free(g_nvc);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(cpu);
    printf("%s\n", g_fail ? "FAIL" : "all round trips exact");
    return g_fail;
}

/*
 * test_cuda_lossy.c -- lossy compression (FORMAT.md 7) on the GPU against
 * the CPU: the GPU writes exactly the CPU's bytes (host API with default
 * and tiny batches, device API) over the generated families (smooth,
 * noisy, constant, sparse, spiky, special values, random bits, fill
 * values) x the property-test shapes (odd extents, rank 1-4, empty) x
 * float32 / float64 x bounds (ABS, REL 1e-1 .. 1e-6, REL 0, PSNR: through
 * the device API the PSNR rule's passes run on the GPU) x workflows (auto,
 * forced Huffman, forced run-length) x radius (2, 3, 512, 32767) x chunk
 * sizes that split blocks and give many chunks per batch, and every file of
 * $SCZ_DATA_DIR at REL 1e-2 .. 1e-4 and PSNR 70 dB;
 * the CPU decodes the GPU's streams within the bound. Level 1 (knobs[2] =
 * 1, FORMAT.md 7.9-7.10) the same way over the families x shapes x dtypes,
 * bounds (ABS with outliers, REL 1e-1 .. 1e-6, REL 0, PSNR), forced
 * workflows, chunk sizes and the data files (SCZ_TEST_LEVEL1_ONLY=1: level
 * 1 alone). Counts every
 * workflow the streams used, so a test that never reaches a path shows it.
 * Skipped (exit 77) without a CUDA build or device.
 *
 * SCZ_TEST_QUICK=1: fewer, smaller cases (memcheck); =2: a few arrays that
 * reach every kernel (racecheck, synccheck).
 */
#include "gen.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudatest.h"

#ifdef SCZ_TEST_CUDA

#include "cuda/backend.h"

static scz_ctx *cpu, *gpu, *gpu_small;
static int quick;
static long n_streams, n_identical, n_wf[3], n_device, n_bound, n_psnr_device;

/* The CPU decodes stream z and every value is within eb_abs (NaN/Inf bit
 * for bit), in binary64. */
static void check_bound(const uint8_t *z, size_t zn, const scz_shape *s, const void *src, const char *what) {
    scz_info info;
    if (scz_inspect(z, zn, &info) != SCZ_OK) {
        CHECK(0, "%s: stream does not inspect", what);
        return;
    }
    const size_t raw = gen_bytes(s);
    const uint64_t n = gen_count(s);
    uint8_t *out = tu_guarded_alloc(raw, 0x5A);
    scz_status r = scz_decompress(cpu, z, zn, out, raw, NULL);
    CHECK(r == SCZ_OK, "%s: CPU decode of the GPU stream: %s (%s)", what, st(r), scz_ctx_last_error(cpu));
    if (!r) {
        const int f64 = s->dtype == SCZ_DTYPE_F64;
        uint64_t bad = 0;
        for (uint64_t i = 0; i < n; i++) {
            double a = f64 ? ((const double *)src)[i] : ((const float *)src)[i];
            double b = f64 ? ((const double *)out)[i] : ((const float *)out)[i];
            if (!isfinite(a)) {
                bad += f64 ? memcmp((const double *)src + i, (const double *)out + i, 8) != 0
                           : memcmp((const float *)src + i, (const float *)out + i, 4) != 0;
            } else if (!(fabs(a - b) <= info.eb_abs)) {
                bad++;
            }
        }
        CHECK(bad == 0, "%s: %llu values outside the bound %g", what, (unsigned long long)bad, info.eb_abs);
        n_bound++;
    }
    CHECK(tu_guard_intact(out, raw), "%s: decode wrote past the array", what);
    free(out);
}

static void count_workflows(const uint8_t *z, size_t zn) {
    scz_info info;
    if (scz_inspect(z, zn, &info) != SCZ_OK) return;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci) == SCZ_OK && ci.codec_info < 3) n_wf[ci.codec_info]++;
    }
}

/* Device API: the CPU's bytes. */
static void check_device_api(const scz_params *p, const scz_shape *s, const void *src, const uint8_t *ref,
                             size_t ref_n, const char *what) {
    const size_t raw = gen_bytes(s), bound = scz_compress_bound(s, p);
    void *d_src = NULL, *d_z = NULL;
    CUDA_OK(cudaMalloc(&d_src, raw ? raw : 1));
    CUDA_OK(cudaMalloc(&d_z, bound));
    CUDA_OK(cudaMemcpy(d_src, src, raw, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_z, 0xAB, bound));
    uint64_t *size_out;
    CUDA_OK(cudaMallocHost((void **)&size_out, 8));
    *size_out = 0;
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));
    scz_status r = scz_cuda_compress(gpu, p, s, d_src, d_z, bound, size_out, stream);
    CUDA_OK(cudaStreamSynchronize(stream));
    n_streams++;
    {
        CHECK(r == SCZ_OK, "%s: device compress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
        if (!r) {
            CHECK(*size_out == ref_n, "%s: device stream %llu bytes, CPU %zu", what, (unsigned long long)*size_out,
                  ref_n);
            uint8_t *h = malloc(bound);
            CUDA_OK(cudaMemcpy(h, d_z, bound, cudaMemcpyDeviceToHost));
            if (*size_out == ref_n) {
                size_t d = tu_first_diff(h, ref, ref_n);
                CHECK(d == ref_n, "%s: device stream differs from the CPU's at byte %zu of %zu", what, d, ref_n);
                n_identical += d == ref_n;
                n_device += d == ref_n;
                n_psnr_device += d == ref_n && p->eb_mode == SCZ_EB_PSNR;
            }
            free(h);
        }
    }
    CUDA_OK(cudaStreamDestroy(stream));
    CUDA_OK(cudaFreeHost(size_out));
    CUDA_OK(cudaFree(d_src));
    CUDA_OK(cudaFree(d_z));
}

/* Level 1 (FORMAT.md 7.9-7.10) compresses on the GPU too (lossy_enc1.cu):
 * the CPU's bytes through the host API (default and one-chunk batches) and
 * the device API. What the CPU's level-1 chunks used, so that a test that
 * never reaches a path shows it: predictor, back end, sweep streams (g),
 * level bounds (tl), workflow. */
static long l1_chunks, l1_interp, l1_cubic, l1_be, l1_g, l1_tl, l1_wf[3];

static void count_level1(const uint8_t *z, size_t zn) {
    scz_info info;
    if (scz_inspect(z, zn, &info) != SCZ_OK) return;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci) != SCZ_OK) continue;
        l1_chunks++;
        if (ci.codec_info < 3) l1_wf[ci.codec_info]++;
        if (ci.codec_info == 0 || ci.size < 32) continue;
        const uint8_t *h = z + ci.offset;
        l1_interp += h[5] != 0;
        l1_cubic += h[5] == 2;
        l1_be += h[6] != 0;
        l1_g += h[28] != 0;
        l1_tl += h[29] != 0;
    }
}

/* CPU vs GPU for one array and one parameter set. */
static void compare(const scz_shape *s, const void *data, const scz_params *p, int device_api, const char *name) {
    char what[400];
    snprintf(what, sizeof what, "%s [L%u %s %g r=%u wf=%u chunk=%llu]", name, p->knobs[2],
             p->eb_mode == SCZ_EB_ABS ? "ABS" : p->eb_mode == SCZ_EB_REL ? "REL" : "PSNR", p->eb, p->knobs[0],
             p->knobs[1], (unsigned long long)p->chunk_bytes);
    size_t nc = 0, ng = 0;
    uint8_t *zc = tu_compress(cpu, p, s, data, &nc, what);
    if (!zc) return;
    count_workflows(zc, nc);
    if (p->knobs[2]) count_level1(zc, nc);
    scz_ctx *gctx[2] = {gpu, gpu_small};
    for (int k = 0; k < (quick ? 1 : 2); k++) {
        int same;
        uint8_t *zg = cudatest_gpu_stream(gctx[k], k ? "small" : "default", p, s, data, zc, nc, &ng, what, &same);
        n_streams++;
        if (zg) {
            n_identical += same;
            if (k == 0) check_bound(zg, ng, s, data, what);
            free(zg);
        }
    }
    if (device_api) check_device_api(p, s, data, zc, nc, what);
    free(zc);
}

static uint32_t g_level; /* knobs[2] of the streams params() makes */

static scz_params params(scz_eb_mode mode, double eb, uint32_t radius, uint32_t wf, uint64_t chunk) {
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.knobs[2] = g_level;
    p.eb_mode = mode;
    p.eb = eb;
    p.knobs[0] = radius;
    p.knobs[1] = wf;
    p.chunk_bytes = chunk;
    return p;
}

/* SCZ_TEST_QUICK=2: every workflow, verbatim and outlier paths, 1D/2D/3D,
 * several chunks per batch, in few cases. */
static void test_small(void) {
    const gen_family fam[3] = {GEN_SMOOTH, GEN_SPECIAL, GEN_FILL_VALUE};
    const gen_shape_def shp[3] = {{"1d_100003", 1, {100003, 1, 1, 1}}, {"2d_65x63", 2, {65, 63, 1, 1}},
                                  {"3d_17x16x15", 3, {17, 16, 15, 1}}};
    long cases = 0;
    for (int di = 0; di < 2; di++)
        for (int f = 0; f < 3; f++)
            for (int si = 0; si < 3; si++) {
                const scz_shape s = gen_shape(&shp[si], di ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32);
                size_t bytes;
                void *a = gen_field(fam[f], &s, 5u + (unsigned)si, &bytes);
                char name[200];
                snprintf(name, sizeof name, "small %s %s %s", gen_family_name(fam[f]), shp[si].name,
                         scz_dtype_name(s.dtype));
                const scz_params P[3] = {params(SCZ_EB_REL, 1e-3, 0, 0, 16384), params(SCZ_EB_ABS, 0.5, 0, 2, 0),
                                         params(SCZ_EB_REL, 1e-4, 2, 1, 0)};
                for (int k = 0; k < 3; k++, cases++) compare(&s, a, &P[k], k == 0 && si == 0, name);
                free(a);
            }
    printf("small set: %ld cases\n", cases);
}

/* Every family x shape x dtype at a few bounds and workflows (level 1: a
 * radius that leaves outliers at ABS 1e-2, chunk sizes with the default
 * radius). */
static void test_generated(void) {
    const scz_dtype dts[2] = {SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    long cases = 0;
    for (int di = 0; di < 2; di++)
        for (int f = 0; f < GEN_NUM_FAMILIES; f++)
            for (int si = 0; si < gen_num_shapes; si++) {
                if (quick && si % 3) continue;
                const scz_shape s = gen_shape(&gen_shapes[si], dts[di]);
                size_t bytes;
                void *a = gen_field((gen_family)f, &s, (g_level ? 3000u : 1000u) + (unsigned)si, &bytes);
                char name[200];
                snprintf(name, sizeof name, "%s %s %s", gen_family_name((gen_family)f), gen_shapes[si].name,
                         scz_dtype_name(dts[di]));
                const scz_params P[] = {
                    params(SCZ_EB_REL, 1e-3, 0, 0, 0),
                    params(SCZ_EB_REL, 1e-1, 0, 0, 0),
                    params(SCZ_EB_REL, 1e-6, 0, 0, 0),
                    params(SCZ_EB_ABS, 1e-2, g_level ? 64 : 3, 0, 0),
                    params(SCZ_EB_REL, 1e-2, 0, 2, 0),
                    params(SCZ_EB_REL, 1e-4, 0, 1, 0),
                    params(SCZ_EB_REL, 0, 0, 0, 0),
                    params(SCZ_EB_PSNR, 60, 0, 0, 0),
                    params(SCZ_EB_REL, 1e-3, g_level ? 0 : 2, 0, 4096),
                    params(SCZ_EB_REL, 1e-2, g_level ? 2 : 32767, 0, 65536 + 64),
                };
                const int np = (int)(sizeof P / sizeof P[0]);
                for (int k = 0; k < np; k++) {
                    if (quick && k % 3) continue;
                    compare(&s, a, &P[k], k == 0 || k == 3 || k == 7 || k == 8, name);
                    cases++;
                }
                free(a);
            }
    printf("generated (level %u): %ld cases\n", g_level, cases);
}

/* Larger fields: many blocks and chunks, run-length chunks, verbatim in
 * consecutive blocks; chunk sizes that split blocks. Level 1: the first
 * three fields, several chunks per group and across groups. */
static void test_large(void) {
    const struct {
        gen_family f;
        uint32_t rank;
        uint64_t d0, d1, d2;
    } C[] = {
        {GEN_SMOOTH, 3, 130, 67, 45}, {GEN_FILL_VALUE, 2, 1000, 613, 1}, {GEN_NOISY, 1, 3000001, 1, 1},
        {GEN_SPIKY, 3, 64, 64, 70},   {GEN_SPARSE, 2, 777, 1025, 1},    {GEN_CONSTANT, 3, 100, 100, 100},
        /* chunks of more than 2048 lossy blocks (63 x 63 partial 16^3
         * blocks per 32 MiB): k_lscan's rounds over the blocks carry the
         * last outlier and verbatim element from one round to the next */
        {GEN_SPIKY, 3, 1000, 1000, 8},  {GEN_SPECIAL, 3, 1000, 1000, 8},
    };
    long cases = 0;
    const size_t nf = g_level ? 3 : sizeof C / sizeof C[0];
    for (size_t i = 0; i < nf; i++)
        for (int di = 0; di < 2; di++) {
            if (quick && i > (g_level ? 0u : 1u)) continue;
            scz_shape s;
            memset(&s, 0, sizeof s);
            s.dtype = di ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
            s.rank = C[i].rank;
            s.dims[0] = C[i].d0;
            s.dims[1] = C[i].d1;
            s.dims[2] = C[i].d2;
            s.dims[3] = 1;
            size_t bytes;
            void *a = gen_field(C[i].f, &s, (g_level ? 91 : 77) + i, &bytes);
            char name[200];
            snprintf(name, sizeof name, "large %s rank %u %s", gen_family_name(C[i].f), C[i].rank,
                     scz_dtype_name(s.dtype));
            if (g_level) {
                const scz_params P[2] = {params(SCZ_EB_REL, 1e-3, 0, 0, 0), params(SCZ_EB_REL, 1e-2, 0, 0, 1000000)};
                for (int k = 0; k < 2; k++, cases++) compare(&s, a, &P[k], 1, name);
                free(a);
                continue;
            }
            const uint64_t chunks[3] = {0, 1000000, 3 * 4096 * 8 + 8};
            for (int c = 0; c < 3; c++) {
                if (quick && c == 1) continue;
                scz_params p = params(SCZ_EB_REL, c == 2 ? 1e-2 : 1e-3, 0, 0, chunks[c]);
                compare(&s, a, &p, c == 0, name);
                cases++;
            }
            scz_params p = params(SCZ_EB_ABS, 0.5, 512, 2, 0);
            compare(&s, a, &p, 1, name);
            cases++;
            /* run-length forced in many small chunks: on noisy data their
             * runs need more run slots than the encoder keeps for codes
             * and lengths together (half the group's codes each), so it
             * forms them one stream at a time in one array */
            scz_params pr = params(SCZ_EB_REL, 1e-4, 0, 2, 1000000);
            compare(&s, a, &pr, 1, name);
            cases++;
            free(a);
        }
    printf("large (level %u): %ld cases\n", g_level, cases);
}

/* Every data file at REL 1e-2, 1e-3, 1e-4 (level 0: and PSNR 70 dB). */
static void test_real_data(void) {
    tu_datafile *files;
    int n = tu_data_files(&files);
    if (n == 0) {
        printf("real data: none in $SCZ_DATA_DIR, skipped\n");
        return;
    }
    int done = 0;
    for (int i = 0; i < n; i++) {
        if (quick && i) continue;
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        if (!data || size != gen_bytes(&files[i].shape)) {
            CHECK(0, "%s: cannot read or size mismatch", files[i].name);
            free(data);
            continue;
        }
        const double rel[3] = {1e-2, 1e-3, 1e-4};
        for (int k = 0; k < 3; k++) {
            scz_params p = params(SCZ_EB_REL, rel[k], 0, 0, k == 2 ? 1 << 20 : 0);
            compare(&files[i].shape, data, &p, k == 1, files[i].name);
        }
        if (!g_level) {
            scz_params pp = params(SCZ_EB_PSNR, 70, 0, 0, 0);
            compare(&files[i].shape, data, &pp, 1, files[i].name);
        }
        free(data);
        done++;
    }
    printf("real data (level %u): %d files\n", g_level, done);
    free(files);
}

/* Level 1 (FORMAT.md 7.9-7.10): the sets above with knobs[2] = 1, or
 * (SCZ_TEST_QUICK=2: racecheck, synccheck) every kernel in a few arrays. */
static void test_level1(void) {
    g_level = 1;
    if (quick > 1) {
        const gen_shape_def shp[2] = {{"2d_65x63", 2, {65, 63, 1, 1}}, {"3d_33x31x29", 3, {33, 31, 29, 1}}};
        for (int di = 0; di < 2; di++)
            for (int si = 0; si < 2; si++) {
                const scz_shape s = gen_shape(&shp[si], di ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32);
                size_t bytes;
                void *a = gen_field(GEN_SMOOTH, &s, 77u + (unsigned)si, &bytes);
                char name[200];
                snprintf(name, sizeof name, "smooth %s %s", shp[si].name, scz_dtype_name(s.dtype));
                const scz_params P[2] = {params(SCZ_EB_REL, 1e-3, 0, 0, 16384), params(SCZ_EB_ABS, 1e-2, 64, 0, 0)};
                for (int k = 0; k < 2; k++) compare(&s, a, &P[k], k == 0, name);
                free(a);
            }
    } else {
        test_generated();
        test_large();
        test_real_data();
    }
    g_level = 0;
    printf("level 1: CPU chunks %ld: interpolated %ld (cubic %ld), back end %ld, g > 0 %ld, tl %ld; "
           "stored %ld, huffman %ld, run-length %ld\n",
           l1_chunks, l1_interp, l1_cubic, l1_be, l1_g, l1_tl, l1_wf[0], l1_wf[1], l1_wf[2]);
    if (quick < 2)
        CHECK(l1_interp && l1_cubic && l1_be && l1_g && l1_tl && l1_wf[0] && l1_wf[1] && l1_wf[2] &&
                  l1_interp < l1_chunks,
              "level 1: every predictor, back end, sweep streams, level bounds and workflow reached");
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *q = getenv("SCZ_TEST_QUICK");
    quick = q ? atoi(q) : 0;
    char why[512];
    if (scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why) != SCZ_OK) {
        tu_skip(why);
        return TEST_SKIP_CODE;
    }
    if (scz_ctx_create(&cpu, SCZ_BACKEND_CPU) || scz_ctx_create(&gpu, SCZ_BACKEND_CUDA) ||
        scz_ctx_create(&gpu_small, SCZ_BACKEND_CUDA)) {
        fprintf(stderr, "context creation failed\n");
        return 1;
    }
    scz__cuda_set_batch_bytes(gpu_small, 1);
    CHECK(scz__cuda_can(SCZ_CODEC_LOSSY, 0), "lossy has GPU compression kernels");
    const char *l1 = getenv("SCZ_TEST_LEVEL1_ONLY");
    const int only1 = l1 && atoi(l1);
    if (only1) {
        /* level 1 alone */
    } else if (quick > 1) {
        test_small();
    } else {
        test_generated();
        test_large();
        test_real_data();
    }
    test_level1();
    printf("streams %ld, identical to the CPU's %ld (device API %ld), CPU-decoded within the bound %ld\n",
           n_streams, n_identical, n_device, n_bound);
    printf("device API with PSNR bounds (the rule's passes on the GPU): %ld streams\n", n_psnr_device);
    printf("CPU chunks by workflow: stored %ld, huffman %ld, run-length %ld\n", n_wf[0], n_wf[1], n_wf[2]);
    if (quick < 2 && !only1) CHECK(n_wf[0] && n_wf[1] && n_wf[2], "every workflow reached");
    scz_ctx_destroy(gpu_small);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(cpu);
    return tu_finish("test_cuda_lossy");
}
#endif

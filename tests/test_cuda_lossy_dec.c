/*
 * test_cuda_lossy_dec.c -- decompression of the lossy codec (FORMAT.md 7)
 * on the GPU against the CPU decoder: CPU-written streams decoded on a
 * CUDA context through the host API (default and tiny batches) and the
 * device API must equal the CPU's decode byte for byte. Inputs: smooth,
 * noisy, constant, sparse, spiky, NaN/Inf, random bits and fill-value
 * fields; 1D-4D shapes with odd extents (partial blocks); float32 and
 * float64; ABS, REL 1e-1..1e-6, REL 0, ABS 0, PSNR; radius 2, 3, default,
 * 32767; workflow auto, Huffman, run-length; chunk sizes that split blocks
 * and give many chunks per batch; the files of $SCZ_DATA_DIR. Corrupt and
 * truncated payloads (checksums resealed): the GPU rejects what the CPU
 * rejects, and decodes alike what both accept (among them the large
 * codebook of a tight bound, edited and altered). Level 1 (FORMAT.md 7.9,
 * knobs[2] = 1): the same families, shapes down to sizes below one
 * interpolation level, ABS / REL / PSNR bounds, radii, workflows and chunk
 * sizes, anisotropic fields that make the writer pick each axis order;
 * the predictors, axis orders, back ends, sweep streams, level bounds and
 * workflows the compared streams held are counted and must all occur;
 * corrupt level-1 payloads (header fields, bytes of the body or of the back
 * end's stream, sizes, truncation) as above. Skipped (exit 77) without a
 * CUDA build or device (SCZ_L1_COVERAGE=1 without a device: only the CPU
 * side of the level-1 cases, and their coverage). SCZ_TEST_QUICK=1: small
 * arrays (memcheck); =2: a few of them that still reach every kernel and
 * path of level 0 (racecheck).
 */
#include "gen.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudatest.h"

#ifdef SCZ_TEST_CUDA

#include "cuda/backend.h"
#include "format/container.h"
#include "lossy/lossy_debug.h"

static scz_ctx *cpu, *gpu, *gpu_small;
static int quick, cpu_only;
/* level-1 payloads compared: bit masks of predictors, back ends, sweep
 * streams (1: g = 0, 2: g > 0), level bounds, workflows; axis orders per
 * rank */
static unsigned cov_pred, cov_be, cov_gs, cov_tl, cov_wf, cov_order[4];
static long n_l1_chunks;
static long n_compared, n_identical, n_chunks[3], n_corrupt, n_corrupt_rejected;

static uint64_t rng_state = 0x5eed1234;
static uint64_t rnd(void) { return gen_splitmix64(&rng_state); }

static scz_shape mkshape(scz_dtype dt, uint32_t rank, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = dt;
    s.rank = rank;
    s.dims[0] = a;
    s.dims[1] = rank > 1 ? b : 1;
    s.dims[2] = rank > 2 ? c : 1;
    s.dims[3] = rank > 3 ? d : 1;
    return s;
}

static int gpu_device_equal(const uint8_t *z, size_t zn, const void *ref, size_t raw, const char *what) {
    void *dz = NULL, *dout = NULL;
    CUDA_OK(cudaMalloc(&dz, zn));
    CUDA_OK(cudaMalloc(&dout, raw ? raw : 1));
    CUDA_OK(cudaMemcpy(dz, z, zn, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dout, 0x77, raw ? raw : 1));
    scz_shape got;
    scz_status r = scz_cuda_decompress(gpu, dz, zn, dout, raw, &got, NULL, NULL);
    CHECK(r == SCZ_OK, "%s: device decompress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
    int same = 0;
    if (!r) {
        uint8_t *o = malloc(raw ? raw : 1);
        CUDA_OK(cudaMemcpy(o, dout, raw, cudaMemcpyDeviceToHost));
        size_t d = tu_first_diff(o, ref, raw);
        CHECK(d == raw, "%s: device decode differs at byte %zu of %zu", what, d, raw);
        same = d == raw;
        free(o);
    }
    CUDA_OK(cudaFree(dz));
    CUDA_OK(cudaFree(dout));
    return same;
}

/* CPU stream of data with params p, decoded by the CPU and the GPU. */
static void compare(const scz_shape *s, const void *data, const scz_params *p, int device_api, const char *name) {
    char what[400];
    snprintf(what, sizeof what, "%s [mode %d eb %g r %u wf %u chunk %llu]", name, (int)p->eb_mode, p->eb,
             p->knobs[0], p->knobs[1], (unsigned long long)p->chunk_bytes);
    size_t raw = gen_bytes(s), nc = 0;
    if (p->knobs[2]) snprintf(what + strlen(what), sizeof what - strlen(what), " level %u", p->knobs[2]);
    uint8_t *zc = tu_compress(cpu, p, s, data, &nc, what);
    if (!zc) return;
    uint8_t *ref = tu_guarded_alloc(raw, 0x33);
    scz_status r = scz_decompress(cpu, zc, nc, ref, raw, NULL);
    CHECK(r == SCZ_OK, "%s: CPU decompress: %s", what, st(r));
    if (!r) {
        scz_info info;
        if (scz_inspect(zc, nc, &info) == SCZ_OK)
            for (uint32_t i = 0; i < info.num_chunks; i++) {
                scz_chunk_info ci;
                if (scz_inspect_chunk(zc, nc, i, &ci) == SCZ_OK && ci.codec_info < 3) n_chunks[ci.codec_info]++;
                if (p->knobs[2] && ci.codec_info && ci.size >= 32) { /* level 1 (7.9) */
                    const uint8_t *P = zc + ci.offset;
                    n_l1_chunks++;
                    cov_wf |= 1u << P[0];
                    cov_pred |= 1u << (P[5] & 7);
                    cov_be |= 1u << (P[6] & 7);
                    cov_gs |= P[28] ? 2u : 1u;
                    cov_tl |= 1u << (P[29] & 7);
                    if (P[5] && P[1] <= 3) cov_order[P[1]] |= 1u << (P[7] & 7);
                }
            }
        if (cpu_only) {
            free(ref);
            free(zc);
            return;
        }
        n_compared++;
        n_identical += tu_check_decode(gpu, zc, nc, ref, raw, what, "GPU");
        n_compared++;
        n_identical += tu_check_decode(gpu_small, zc, nc, ref, raw, what, "GPU (small batches)");
        if (device_api) {
            n_compared++;
            n_identical += gpu_device_equal(zc, nc, ref, raw, what);
        }
    }
    free(ref);
    free(zc);
}

static uint32_t g_level; /* knobs[2] of the streams params() sets up */

/* A generated array's name in messages: family, dtype, rank, extents. */
static void array_name(char *buf, size_t n, gen_family f, const scz_shape *s) {
    snprintf(buf, n, "%s %s rank %u (%llux%llux%llux%llu)", gen_family_name(f),
             s->dtype == SCZ_DTYPE_F64 ? "f64" : "f32", s->rank, (unsigned long long)s->dims[0],
             (unsigned long long)s->dims[1], (unsigned long long)s->dims[2], (unsigned long long)s->dims[3]);
}

static void params(scz_params *p, scz_eb_mode mode, double eb, uint32_t radius, uint32_t wf, uint64_t chunk) {
    scz_params_init(p, SCZ_CODEC_LOSSY);
    p->knobs[2] = g_level;
    p->eb_mode = mode;
    p->eb = eb;
    p->knobs[0] = radius;
    p->knobs[1] = wf;
    p->chunk_bytes = chunk;
}

static void test_generated(void) {
    const double rels[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
    const uint32_t radii[] = {0, 2, 3, 32767};
    long cases = 0;
    for (int dt = 0; dt < 2; dt++) {
        const scz_dtype t = dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
        scz_shape shapes[5];
        if (quick) {
            shapes[0] = mkshape(t, 1, 10007, 1, 1, 1);
            shapes[1] = mkshape(t, 2, 131, 67, 1, 1);
            shapes[2] = mkshape(t, 3, 35, 19, 21, 1);
            shapes[3] = mkshape(t, 4, 17, 9, 5, 7);
            shapes[4] = mkshape(t, 3, 1, 100, 45, 1);
        } else {
            shapes[0] = mkshape(t, 1, 300007, 1, 1, 1);
            shapes[1] = mkshape(t, 2, 517, 389, 1, 1);
            shapes[2] = mkshape(t, 3, 67, 45, 71, 1);
            shapes[3] = mkshape(t, 4, 33, 17, 19, 7);
            shapes[4] = mkshape(t, 3, 1, 300, 131, 1);
        }
        for (int f = 0; f < GEN_NUM_FAMILIES; f++)
            for (int si = 0; si < 5; si++) {
                /* racecheck: 1D, 2D, 3D (whole blocks of each fast shape and partial
                 * ones), smooth / sparse / special / fill families */
                if (quick > 1 && ((f + dt) % 2 || si > 2)) continue;
                const scz_shape *s = &shapes[si];
                size_t bytes;
                void *data = gen_field((gen_family)f, s, 1000 + (uint64_t)f * 7 + (uint64_t)si, &bytes);
                char name[200];
                array_name(name, sizeof name, (gen_family)f, s);
                scz_params p;
                /* a rotating subset of the settings per array, all of them over the loop */
                const int k = f * 5 + si + dt * 3;
                params(&p, SCZ_EB_REL, rels[k % 6], radii[k % 4], (uint32_t)(k % 3), 0);
                compare(s, data, &p, 1, name);
                params(&p, SCZ_EB_ABS, 1e-3, radii[(k + 1) % 4], (uint32_t)((k + 1) % 3),
                       (k & 1) ? 16384 + 4 * 37 : 65536);
                compare(s, data, &p, 0, name);
                params(&p, SCZ_EB_PSNR, 60 + (k % 3) * 20, 0, (uint32_t)((k + 2) % 3), 0);
                compare(s, data, &p, 0, name);
                if (!quick || si == 0) {
                    params(&p, SCZ_EB_REL, 0, 0, (uint32_t)(k % 3), 0); /* all verbatim */
                    compare(s, data, &p, 0, name);
                    params(&p, SCZ_EB_ABS, 0, 3, 2, 40000);
                    compare(s, data, &p, 0, name);
                    for (uint32_t wf = 0; wf < 3; wf++) {
                        params(&p, SCZ_EB_REL, 1e-3, 0, wf, 0);
                        compare(s, data, &p, 0, name);
                        params(&p, SCZ_EB_REL, 1e-4, 2, wf, 12288);
                        compare(s, data, &p, 0, name);
                    }
                }
                cases++;
                free(data);
            }
    }
    printf("generated: %ld arrays\n", cases);
}


/* ---- level 1 (FORMAT.md 7.9) ---- */

/* Smooth along each axis at a different rate (sines of frequencies f[k]
 * along axis k, plus noise of relative amplitude nz): the writer's axis
 * order follows the rates. */
static void *aniso(const scz_shape *s, const double *f, double nz, uint64_t seed) {
    const uint64_t n = scz_shape_count(s);
    void *a = malloc(gen_bytes(s));
    uint64_t st = seed;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t x = i % s->dims[0], y = i / s->dims[0] % s->dims[1], z = i / (s->dims[0] * s->dims[1]);
        const double u = (double)(gen_splitmix64(&st) >> 11) / 9007199254740992.0 - 0.5;
        const double v = sin(f[0] * (double)x) + sin(f[1] * (double)y) + sin(f[2] * (double)z) + nz * u;
        if (s->dtype == SCZ_DTYPE_F32) ((float *)a)[i] = (float)v;
        else ((double *)a)[i] = v;
    }
    return a;
}

static void test_level1(void) {
    g_level = 1;
    const double rels[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
    const uint32_t radii[] = {0, 2, 3, 100};
    long cases = 0;
    for (int dt = 0; dt < 2; dt++) {
        const scz_dtype t = dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
        scz_shape shapes[11];
        int ns = 0;
        if (quick) {
            shapes[ns++] = mkshape(t, 1, 10007, 1, 1, 1);
            shapes[ns++] = mkshape(t, 2, 131, 67, 1, 1);
            shapes[ns++] = mkshape(t, 3, 35, 19, 21, 1);
            shapes[ns++] = mkshape(t, 4, 17, 9, 5, 7);
        } else {
            shapes[ns++] = mkshape(t, 1, 300007, 1, 1, 1);
            shapes[ns++] = mkshape(t, 2, 517, 389, 1, 1);
            shapes[ns++] = mkshape(t, 3, 67, 45, 71, 1);
            shapes[ns++] = mkshape(t, 4, 33, 17, 19, 7);
            shapes[ns++] = mkshape(t, 3, 1, 300, 131, 1);
            shapes[ns++] = mkshape(t, 3, 64, 64, 64, 1);
        }
        /* below one interpolation level and barely above it */
        shapes[ns++] = mkshape(t, 1, 1, 1, 1, 1);
        shapes[ns++] = mkshape(t, 1, 2, 1, 1, 1);
        shapes[ns++] = mkshape(t, 2, 3, 2, 1, 1);
        shapes[ns++] = mkshape(t, 3, 2, 3, 5, 1);
        shapes[ns++] = mkshape(t, 1, 5, 1, 1, 1);
        for (int f = 0; f < GEN_NUM_FAMILIES; f++)
            for (int si = 0; si < ns; si++) {
                const scz_shape *s = &shapes[si];
                const int tiny = scz_shape_count(s) < 100;
                if (tiny && f > GEN_SPECIAL) continue;
                size_t bytes;
                void *data = gen_field((gen_family)f, s, 2000 + (uint64_t)f * 11 + (uint64_t)si, &bytes);
                char name[200];
                array_name(name, sizeof name, (gen_family)f, s);
                scz_params p;
                const int k = f * 7 + si + dt * 3;
                params(&p, SCZ_EB_REL, rels[k % 6], radii[k % 4], (uint32_t)(k % 3), 0);
                compare(s, data, &p, 1, name);
                params(&p, SCZ_EB_REL, rels[(k + 2) % 6], 0, 0, 0);
                compare(s, data, &p, 0, name);
                params(&p, SCZ_EB_ABS, 1e-3, radii[(k + 1) % 4], (uint32_t)((k + 1) % 3),
                       (k & 1) ? 16384 + 4 * 37 : 65536);
                compare(s, data, &p, 0, name);
                if (!tiny || f == GEN_SMOOTH) {
                    params(&p, SCZ_EB_PSNR, 60 + (k % 3) * 20, 0, (uint32_t)((k + 2) % 3), 0);
                    compare(s, data, &p, 0, name);
                    for (uint32_t wf = 0; wf < 3 && (!quick || si == 0); wf++) {
                        params(&p, SCZ_EB_REL, 1e-2, 0, wf, 0);
                        compare(s, data, &p, 0, name);
                        params(&p, SCZ_EB_REL, 1e-4, 3, wf, 12288);
                        compare(s, data, &p, 0, name);
                    }
                }
                if (!quick && si == 0) {
                    params(&p, SCZ_EB_REL, 0, 0, 0, 0); /* all verbatim */
                    compare(s, data, &p, 0, name);
                }
                cases++;
                free(data);
            }
        /* anisotropic fields: each axis order (rank 3: the six permutations
         * of the rates; rank 2: both), at a rate where interpolation wins */
        const double fr[3] = {0.02, 0.2, 0.7};
        const int perm[6][3] = {{0, 1, 2}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}};
        for (int o = 0; o < 6; o++)
            for (int r = 2; r <= 3; r++) {
                if (r == 2 && o > 1) continue;
                const scz_shape s = r == 3 ? mkshape(t, 3, quick ? 40 : 90, quick ? 36 : 70, quick ? 33 : 60, 1)
                                           : mkshape(t, 2, quick ? 200 : 700, quick ? 150 : 500, 1, 1);
                double f[3] = {0, 0, 0};
                for (int a = 0; a < r; a++) f[perm[o][a]] = fr[2 - a] / (r == 2 ? 2 : 1);
                void *data = aniso(&s, f, 1e-4, 40 + (uint64_t)o);
                char name[200];
                snprintf(name, sizeof name, "anisotropic %s rank %d rates %g %g %g", dt ? "f64" : "f32", r, f[0],
                         f[1], f[2]);
                for (int b = 0; b < 3; b++) {
                    scz_params p;
                    params(&p, SCZ_EB_REL, b == 0 ? 1e-2 : b == 1 ? 1e-3 : 1e-5, 0, (uint32_t)b % 2, 0);
                    compare(&s, data, &p, b == 0, name);
                }
                cases++;
                free(data);
            }
    }
    g_level = 0;
    printf("level 1: %ld arrays, %ld coded chunks: predictors %x, back ends %x, sweep streams %x, level bounds %x, "
           "workflows %x, orders rank 1 %x rank 2 %x rank 3 %x\n",
           cases, n_l1_chunks, cov_pred, cov_be, cov_gs, cov_tl, cov_wf, cov_order[1], cov_order[2], cov_order[3]);
    CHECK(cov_pred == 7 && cov_be == 3 && cov_gs == 3 && cov_tl == 3 && cov_wf == 6,
          "level-1 streams compared cover predictors %x, back ends %x, sweep streams %x, level bounds %x, "
          "workflows %x",
          cov_pred, cov_be, cov_gs, cov_tl, cov_wf);
    CHECK(cov_order[2] == 3 && cov_order[3] == 0x3f, "level-1 axis orders compared: rank 2 %x, rank 3 %x",
          cov_order[2], cov_order[3]);
}

static void test_real_data(void) {
    tu_datafile *files;
    int n = tu_data_files(&files);
    if (n == 0) {
        printf("real data: none in $SCZ_DATA_DIR, skipped\n");
        return;
    }
    int done = 0, smallest = 0;
    for (int i = 1; i < n; i++)
        if (gen_bytes(&files[i].shape) < gen_bytes(&files[smallest].shape)) smallest = i;
    for (int i = 0; i < n; i++) {
        if ((quick && i != smallest) || quick > 1) continue;
        if (files[i].shape.dtype != SCZ_DTYPE_F32 && files[i].shape.dtype != SCZ_DTYPE_F64) continue;
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        if (!data || size != gen_bytes(&files[i].shape)) {
            CHECK(0, "%s: cannot read or size mismatch", files[i].name);
            free(data);
            continue;
        }
        scz_params p;
        params(&p, SCZ_EB_REL, 1e-3, 0, 0, 0);
        compare(&files[i].shape, data, &p, 1, files[i].name);
        params(&p, SCZ_EB_REL, 1e-5, 0, 0, 1 << 20);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        params(&p, SCZ_EB_REL, 1e-2, 0, 2, 0);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        params(&p, SCZ_EB_PSNR, 80, 3, 1, 0);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        g_level = 1;
        params(&p, SCZ_EB_REL, 1e-3, 0, 0, 0);
        compare(&files[i].shape, data, &p, 1, files[i].name);
        params(&p, SCZ_EB_REL, 1e-2, 0, 0, 1 << 20);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        params(&p, SCZ_EB_REL, 1e-5, 0, 2, 0);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        params(&p, SCZ_EB_ABS, 1e-2, 0, 0, 0);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        g_level = 0;
        free(data);
        done++;
    }
    printf("real data: %d files\n", done);
    free(files);
}

/* ---- corrupt streams ---- */

static void corrupt_stream(const uint8_t *z, size_t n, const scz_shape *s, int must_fail, const char *what) {
    size_t raw = gen_bytes(s);
    uint8_t *oc = tu_guarded_alloc(raw, 0x22), *o = tu_guarded_alloc(raw, 0x22);
    scz_status rc = scz_decompress(cpu, z, n, oc, raw, NULL);
    scz_status rg = scz_decompress(gpu, z, n, o, raw, NULL);
    n_corrupt++;
    n_corrupt_rejected += rc != SCZ_OK;
    if (must_fail) CHECK(rc != SCZ_OK, "%s: the CPU accepts it", what);
    CHECK(rg == rc, "%s: CPU says %s, GPU says %s (%s)", what, st(rc), st(rg), scz_ctx_last_error(gpu));
    if (rc == SCZ_OK && rg == SCZ_OK) CHECK(memcmp(o, oc, raw) == 0, "%s: CPU and GPU decode differently", what);
    CHECK(tu_guard_intact(o, raw), "%s: wrote past the array", what);
    scz_status rs = scz_decompress(gpu_small, z, n, o, raw, NULL);
    CHECK(rs == rc, "%s: GPU (small batches) says %s, CPU %s", what, st(rs), st(rc));
    void *dz, *dout;
    CUDA_OK(cudaMalloc(&dz, n));
    CUDA_OK(cudaMalloc(&dout, raw ? raw : 1));
    CUDA_OK(cudaMemcpy(dz, z, n, cudaMemcpyHostToDevice));
    scz_status rd = scz_cuda_decompress(gpu, dz, n, dout, raw, NULL, NULL, NULL);
    CHECK(rd == rc, "%s: device API says %s, CPU %s (%s)", what, st(rd), st(rc), scz_ctx_last_error(gpu));
    CUDA_OK(cudaFree(dz));
    CUDA_OK(cudaFree(dout));
    free(o);
    free(oc);
}

/* Sections of chunk i's payload (FORMAT.md 7.7). */
typedef struct lz_at {
    size_t pay, size, hs, olist, vvals;
    uint32_t wf, n_out, n_verb;
    uint64_t obytes;
} lz_at;

static lz_at locate(const uint8_t *z, uint32_t chunk, unsigned es) {
    lz_at a;
    memset(&a, 0, sizeof a);
    scz_chunk_entry e;
    scz__table_entry(z + SCZ_HEADER_SIZE, chunk, &e);
    a.pay = (size_t)e.offset;
    a.size = (size_t)e.size;
    const uint8_t *P = z + a.pay;
    a.wf = P[0];
    a.n_out = scz__ld32(P + 8);
    a.n_verb = scz__ld32(P + 12);
    a.obytes = scz__ld64(P + 16);
    a.hs = a.pay + 24;
    a.vvals = a.pay + a.size - (size_t)a.n_verb * es;
    a.olist = a.vvals - (size_t)a.obytes;
    return a;
}

static uint8_t *dup(const uint8_t *z, size_t n) {
    uint8_t *c = malloc(n);
    memcpy(c, z, n);
    return c;
}

static void flip_region(const uint8_t *z, size_t zn, const scz_shape *s, size_t at, size_t len, int flips,
                        const char *region) {
    char what[200];
    if (!len) return;
    for (int k = 0; k < flips; k++) {
        uint8_t *c = dup(z, zn);
        const size_t o = at + (size_t)(rnd() % len);
        const int mode = (int)(rnd() % 3);
        if (mode == 0) c[o] ^= (uint8_t)(1u << (rnd() % 8));
        else if (mode == 1) c[o] = (uint8_t)rnd();
        else c[o] = (uint8_t)(c[o] + 1);
        tu_reseal_chunk(c, 0);
        snprintf(what, sizeof what, "%s byte %zu altered (mode %d)", region, o - at, mode);
        corrupt_stream(c, zn, s, 0, what);
        free(c);
    }
}

/* The field of `bytes` (1, 4, 8) bytes at z + at plus add, chunk 0's
 * checksum resealed: the GPU must answer as the CPU. */
static void corrupt_field(const uint8_t *z, size_t zn, const scz_shape *s, size_t at, int bytes, int64_t add,
                          const char *what) {
    uint8_t *c = dup(z, zn);
    uint8_t *q = c + at;
    if (bytes == 1) *q = (uint8_t)(*q + add);
    else if (bytes == 4) scz__st32(q, (uint32_t)(scz__ld32(q) + add));
    else scz__st64(q, (uint64_t)(scz__ld64(q) + add));
    tu_reseal_chunk(c, 0);
    corrupt_stream(c, zn, s, 0, what);
    free(c);
}

/* Chunk 0's payload (size bytes, codec_info wf) made 1, 2 or an element
 * shorter or longer, and the stream truncated: rejected alike. */
static void corrupt_sizes(const uint8_t *z, size_t zn, const scz_shape *s, size_t size, unsigned wf, unsigned es,
                          const char *name) {
    char what[200];
    const int64_t dsz[] = {-1, -2, -(int64_t)es, 1, (int64_t)es};
    for (size_t k = 0; k < sizeof dsz / sizeof dsz[0]; k++) {
        size_t cn;
        uint8_t *c = tu_edit_chunk(z, zn, 0, (uint64_t)((int64_t)size + dsz[k]), wf, &cn);
        snprintf(what, sizeof what, "%s: payload %+lld bytes", name, (long long)dsz[k]);
        corrupt_stream(c, cn, s, 1, what);
        free(c);
    }
    snprintf(what, sizeof what, "%s truncated by 1 byte", name);
    corrupt_stream(z, zn - 1, s, 1, what);
    snprintf(what, sizeof what, "%s truncated to half", name);
    corrupt_stream(z, zn / 2, s, 1, what);
}

static void corrupt_base(const scz_shape *s, const void *data, const scz_params *p, const char *name) {
    size_t zn;
    uint8_t *z = tu_compress(cpu, p, s, data, &zn, name);
    if (!z) return;
    const unsigned es = (unsigned)scz_dtype_size(s->dtype);
    lz_at A = locate(z, 0, es);
    printf("corrupt base %s: workflow %u, %u outliers (%llu bytes), %u verbatim, payload %zu bytes\n", name, A.wf,
           A.n_out, (unsigned long long)A.obytes, A.n_verb, A.size);
    const int fl = quick > 1 ? 2 : quick ? 8 : 40;
    char what[200];
    /* header fields */
    struct {
        const char *what;
        size_t at;
        int bytes;
        int64_t add;
    } F[] = {
        {"workflow + 1", A.pay, 1, 1},      {"rank + 1", A.pay + 1, 1, 1},   {"lb0 + 1", A.pay + 2, 1, 1},
        {"lb0 - 1", A.pay + 2, 1, -1},      {"lb1 + 1", A.pay + 3, 1, 1},    {"lb2 + 1", A.pay + 4, 1, 1},
        {"reserved", A.pay + 5, 1, 1},      {"n_out + 1", A.pay + 8, 4, 1},  {"n_out - 1", A.pay + 8, 4, -1},
        {"n_verb + 1", A.pay + 12, 4, 1},   {"n_verb - 1", A.pay + 12, 4, -1},
        {"out_bytes + 1", A.pay + 16, 8, 1}, {"out_bytes - 1", A.pay + 16, 8, -1},
        {"stream K + 1", A.hs + (A.wf == 2 ? 4 : 0), 4, 1}, {"stream count - 1", A.hs + (A.wf == 2 ? 4 : 0) + 4, 4, -1},
        {"n_runs + 1", A.hs, 4, 1},         {"n_runs - 1", A.hs, 4, -1},
    };
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
        if (A.wf != 2 && !strncmp(F[k].what, "n_runs", 6)) continue;
        snprintf(what, sizeof what, "%s: %s", name, F[k].what);
        corrupt_field(z, zn, s, F[k].at, F[k].bytes, F[k].add, what);
    }
    snprintf(what, sizeof what, "%s header", name);
    flip_region(z, zn, s, A.pay, 24, fl / 2, what);
    snprintf(what, sizeof what, "%s streams", name);
    flip_region(z, zn, s, A.hs, A.olist - A.hs, fl, what);
    snprintf(what, sizeof what, "%s outlier list", name);
    flip_region(z, zn, s, A.olist, (size_t)A.obytes, fl, what);
    snprintf(what, sizeof what, "%s verbatim values", name);
    flip_region(z, zn, s, A.vvals, (size_t)A.n_verb * es, fl / 4, what);
    {
        size_t cn;
        uint8_t *c = tu_edit_chunk(z, zn, 0, A.size, A.wf == 1 ? 2 : 1, &cn);
        snprintf(what, sizeof what, "%s: other codec_info", name);
        corrupt_stream(c, cn, s, 1, what);
        free(c);
    }
    corrupt_sizes(z, zn, s, A.size, A.wf, es, name);
    free(z);
}

/* A Huffman-workflow stream whose codebook is large (K = 65536, thousands
 * of runs: k_books' block-parallel walk): decoded as it is, then with
 * codebook edits every reader rejects (at its first, middle and last runs)
 * and with bytes of it altered. */
static void corrupt_books(const scz_shape *s, const void *data, const scz_params *p, const char *name) {
    size_t zn;
    uint8_t *z = tu_compress(cpu, p, s, data, &zn, name);
    if (!z) return;
    const unsigned es = (unsigned)scz_dtype_size(s->dtype);
    lz_at A = locate(z, 0, es);
    const size_t cb = A.hs + 20;
    const uint32_t K = scz__ld32(z + A.hs), cbn = scz__ld32(z + A.hs + 16);
    printf("corrupt base %s: workflow %u, K %u, codebook %u bytes\n", name, A.wf, K, cbn);
    CHECK(A.wf == 1 && K == 65536 && cbn > 4096, "%s: Huffman, K %u, codebook of %u bytes", name, K, cbn);
    char what[200];
    snprintf(what, sizeof what, "%s unchanged", name);
    corrupt_stream(z, zn, s, 0, what);
    if (A.wf != 1) {
        free(z);
        return;
    }
    for (int k = 0; k < TU_CB_EDITS; k++)
        for (unsigned at = 0; at < 1000; at += 499) {
            uint8_t *c = dup(z, zn);
            const char *e = tu_cb_edit(c + cb, cbn, k, at);
            if (e) {
                tu_reseal_chunk(c, 0);
                snprintf(what, sizeof what, "%s: %s (from run %u / 1000)", name, e, at);
                corrupt_stream(c, zn, s, 1, what);
            }
            free(c);
        }
    snprintf(what, sizeof what, "%s codebook", name);
    flip_region(z, zn, s, cb, cbn, quick > 1 ? 2 : quick ? 6 : 16, what);
    free(z);
}

static void test_corrupt(void) {
    const uint64_t n = quick ? 20000 : 200000;
    scz_shape s = mkshape(SCZ_DTYPE_F32, 1, n, 1, 1, 1);
    size_t bytes;
    void *a = gen_field(GEN_FILL_VALUE, &s, 77, &bytes);
    void *b = gen_field(GEN_SPECIAL, &s, 78, &bytes);
    scz_params p;
    params(&p, SCZ_EB_ABS, 1e-3, 3, 1, 0);
    corrupt_base(&s, a, &p, "fill values r=3 Huffman");
    params(&p, SCZ_EB_ABS, 1e-3, 3, 2, 0);
    corrupt_base(&s, a, &p, "fill values r=3 run-length");
    params(&p, SCZ_EB_REL, 1e-4, 2, 1, 0);
    corrupt_base(&s, b, &p, "special values r=2");
    free(a);
    free(b);
    scz_shape s2 = mkshape(SCZ_DTYPE_F64, 2, quick ? 130 : 400, quick ? 70 : 300, 1, 1);
    a = gen_field(GEN_NOISY, &s2, 79, &bytes);
    params(&p, SCZ_EB_REL, 1e-5, 2, 0, 0);
    corrupt_base(&s2, a, &p, "noisy 2D f64 r=2");
    free(a);
    /* a tight bound: codes spread over the whole alphabet */
    scz_shape s3 = mkshape(SCZ_DTYPE_F32, 1, quick ? 50000 : 200000, 1, 1, 1);
    a = gen_field(GEN_NOISY, &s3, 80, &bytes);
    params(&p, SCZ_EB_REL, 1e-7, 32767, 1, 0);
    corrupt_books(&s3, a, &p, "noisy f32 REL 1e-7 r=32767");
    free(a);
    printf("corrupt streams: %ld, %ld rejected by the CPU\n", n_corrupt, n_corrupt_rejected);
}

/* Level 1 (7.9): header fields, bytes of the header, of the body (back
 * end 0) or of the back end's stream, sizes, truncation. */
static void corrupt1_base(const scz_shape *s, const void *data, const scz_params *p, const char *name) {
    size_t zn;
    uint8_t *z = tu_compress(cpu, p, s, data, &zn, name);
    if (!z) return;
    const unsigned es = (unsigned)scz_dtype_size(s->dtype);
    lz_at A = locate(z, 0, es);
    const uint8_t *P = z + A.pay;
    if (A.size < 32 || !A.wf) {
        CHECK(0, "%s: chunk 0 is not a coded level-1 chunk", name);
        free(z);
        return;
    }
    printf("corrupt base %s: workflow %u, predictor %u, back end %u, order %u, r %u, g %u, tl %u, payload %zu "
           "bytes\n",
           name, P[0], P[5], P[6], P[7], scz__ld32(P + 24), P[28], P[29], A.size);
    const int fl = quick ? 8 : 40;
    char what[200];
    struct {
        const char *what;
        size_t at;
        int bytes;
        int64_t add;
    } F[] = {
        {"workflow + 1", 0, 1, 1},   {"rank + 1", 1, 1, 1},      {"lb0 + 1", 2, 1, 1},         {"predictor + 1", 5, 1, 1},
        {"predictor - 1", 5, 1, -1}, {"predictor + 2", 5, 1, 2}, {"back end + 1", 6, 1, 1},    {"back end - 1", 6, 1, -1},
        {"order + 1", 7, 1, 1},      {"order + 6", 7, 1, 6},     {"n_out + 1", 8, 4, 1},       {"n_verb + 1", 12, 4, 1},
        {"out_bytes + 1", 16, 8, 1}, {"r + 1", 24, 4, 1},        {"r - 1", 24, 4, -1},         {"r + 2^31", 24, 4, 1ll << 31},
        {"g + 1", 28, 1, 1},         {"g - 1", 28, 1, -1},       {"g + 9", 28, 1, 9},          {"tl + 1", 29, 1, 1},
        {"tl - 1", 29, 1, -1},       {"reserved 30", 30, 1, 1},  {"reserved 31", 31, 1, 1},    {"B + 1", 36, 4, 1},
        {"B - 1", 36, 4, -1},
    };
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
        snprintf(what, sizeof what, "%s: %s", name, F[k].what);
        corrupt_field(z, zn, s, A.pay + F[k].at, F[k].bytes, F[k].add, what);
    }
    snprintf(what, sizeof what, "%s header", name);
    flip_region(z, zn, s, A.pay, 32, fl / 2, what);
    snprintf(what, sizeof what, "%s %s", name, P[6] ? "back end stream header" : "body head");
    flip_region(z, zn, s, A.pay + 32, A.size - 32 < 64 ? A.size - 32 : 64, fl / 2, what);
    snprintf(what, sizeof what, "%s %s", name, P[6] ? "back end stream" : "body");
    flip_region(z, zn, s, A.pay + 32, A.size - 32, 2 * fl, what);
    for (size_t cut = 1; cut < 40 && cut < A.size; cut += 7) {
        size_t cn;
        uint8_t *c = tu_edit_chunk(z, zn, 0, (uint64_t)cut, A.wf, &cn);
        snprintf(what, sizeof what, "%s: payload cut to %zu bytes", name, cut);
        corrupt_stream(c, cn, s, 1, what);
        free(c);
    }
    corrupt_sizes(z, zn, s, A.size, A.wf, es, name);
    free(z);
}

static void test_corrupt1(void) {
    g_level = 1;
    scz_params p;
    size_t bytes;
    {
        const uint64_t n = quick ? 20000 : 200000;
        scz_shape s = mkshape(SCZ_DTYPE_F32, 1, n, 1, 1, 1);
        void *a = gen_field(GEN_FILL_VALUE, &s, 77, &bytes);
        void *b = gen_field(GEN_SPECIAL, &s, 78, &bytes);
        params(&p, SCZ_EB_ABS, 1e-3, 0, 1, 0);
        corrupt1_base(&s, a, &p, "L1 fill values Huffman");
        params(&p, SCZ_EB_ABS, 1e-3, 0, 2, 0);
        corrupt1_base(&s, a, &p, "L1 fill values run-length");
        params(&p, SCZ_EB_REL, 1e-4, 3, 1, 0);
        corrupt1_base(&s, b, &p, "L1 special values r=3");
        free(a);
        free(b);
    }
    {
        scz_shape s3 = mkshape(SCZ_DTYPE_F32, 3, quick ? 40 : 90, quick ? 36 : 70, quick ? 33 : 60, 1);
        const double f[3] = {0.02, 0.1, 0.35};
        void *a = aniso(&s3, f, 1e-4, 9);
        params(&p, SCZ_EB_REL, 1e-3, 0, 1, 0);
        corrupt1_base(&s3, a, &p, "L1 interpolation 3D REL 1e-3");
        params(&p, SCZ_EB_REL, 1e-2, 0, 2, 0);
        corrupt1_base(&s3, a, &p, "L1 interpolation 3D run-length");
        free(a);
    }
    {
        scz_shape s2 = mkshape(SCZ_DTYPE_F64, 2, quick ? 130 : 400, quick ? 70 : 300, 1, 1);
        void *a = gen_field(GEN_NOISY, &s2, 79, &bytes);
        params(&p, SCZ_EB_REL, 1e-6, 0, 0, 0);
        corrupt1_base(&s2, a, &p, "L1 noisy 2D f64 REL 1e-6");
        params(&p, SCZ_EB_REL, 1e-2, 0, 0, 0);
        corrupt1_base(&s2, a, &p, "L1 noisy 2D f64 REL 1e-2");
        free(a);
    }
    g_level = 0;
    printf("corrupt streams (with level 1): %ld, %ld rejected by the CPU\n", n_corrupt, n_corrupt_rejected);
}

/* Throughput of the device API on a smooth float32 field of
 * $SCZ_LDEC_BENCH_MIB MiB (0 or unset: skipped), REL 1e-3. */
static void bench(void) {
    const char *e = getenv("SCZ_LDEC_BENCH_MIB");
    const uint64_t mib = e && *e ? strtoull(e, NULL, 10) : 0;
    if (!mib || quick) return;
    const uint64_t side = 256, layers = mib * 1048576 / 4 / (side * side);
    scz_shape s = mkshape(SCZ_DTYPE_F32, 3, side, side, layers, 1);
    size_t bytes;
    void *a = gen_field(GEN_SMOOTH, &s, 5, &bytes);
    scz_params p;
    params(&p, SCZ_EB_REL, 1e-3, 0, 0, 0);
    size_t zn;
    uint8_t *z = tu_compress(cpu, &p, &s, a, &zn, "bench");
    if (!z) return;
    void *dz, *dout;
    CUDA_OK(cudaMalloc(&dz, zn));
    CUDA_OK(cudaMalloc(&dout, bytes));
    CUDA_OK(cudaMemcpy(dz, z, zn, cudaMemcpyHostToDevice));
    scz_status *so;
    CUDA_OK(cudaMallocHost((void **)&so, sizeof *so));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int k = 0; k < 6; k++) {
        CUDA_OK(cudaEventRecord(e0, 0));
        scz_status r = scz_cuda_decompress(gpu, dz, zn, dout, bytes, NULL, so, 0);
        CUDA_OK(cudaEventRecord(e1, 0));
        CUDA_OK(cudaEventSynchronize(e1));
        CHECK(r == SCZ_OK && *so == SCZ_OK, "bench decode: %s / %s", st(r), st(*so));
        float ms;
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        if (k && ms < best) best = ms;
    }
    uint8_t *o = malloc(bytes), *ref = malloc(bytes);
    CUDA_OK(cudaMemcpy(o, dout, bytes, cudaMemcpyDeviceToHost));
    CHECK(scz_decompress(cpu, z, zn, ref, bytes, NULL) == SCZ_OK, "bench: CPU decode");
    CHECK(memcmp(o, ref, bytes) == 0, "bench: GPU decode differs from the CPU's");
    printf("bench: %llu MiB float32 smooth REL 1e-3, ratio %.2f: device decode %.3f ms = %.1f GB/s\n",
           (unsigned long long)mib, (double)bytes / (double)zn, best, (double)bytes / (best * 1e6));
    free(o);
    free(ref);
    CUDA_OK(cudaFree(dz));
    CUDA_OK(cudaFree(dout));
    CUDA_OK(cudaFreeHost(so));
    free(z);
    free(a);
}

int main(void) {
    char why[512];
    const char *q = getenv("SCZ_TEST_QUICK");
    quick = q && *q ? atoi(q) : 0;
    if (scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why) != SCZ_OK) {
        const char *cov = getenv("SCZ_L1_COVERAGE");
        if (!cov || !*cov || !atoi(cov)) tu_skip(why);
        /* no device: the CPU side of the level-1 cases and their coverage */
        cpu_only = 1;
        CHECK(scz_ctx_create(&cpu, SCZ_BACKEND_CPU) == SCZ_OK, "CPU context");
        test_level1();
        scz_ctx_destroy(cpu);
        return tu_finish("test_cuda_lossy_dec (level-1 coverage, CPU only)");
    }
    scz_status r = scz_ctx_create(&gpu, SCZ_BACKEND_CUDA);
    if (r != SCZ_OK) tu_skip("CUDA context creation failed");
    CHECK(scz_ctx_create(&gpu_small, SCZ_BACKEND_CUDA) == SCZ_OK, "second CUDA context");
    CHECK(scz_ctx_create(&cpu, SCZ_BACKEND_CPU) == SCZ_OK, "CPU context");
    scz__cuda_set_batch_bytes(gpu_small, 8192);
    printf("lossy: GPU kernels for both directions: %s\n", scz_cuda_codec_supported(SCZ_CODEC_LOSSY) ? "yes" : "no (decompression only)");
    double t0 = tu_now();
    bench();
    test_generated();
    printf("  (%.1f s)\n", tu_now() - t0);
    test_level1();
    printf("  (%.1f s)\n", tu_now() - t0);
    test_real_data();
    printf("  (%.1f s)\n", tu_now() - t0);
    test_corrupt();
    printf("  (%.1f s)\n", tu_now() - t0);
    test_corrupt1();
    printf("  (%.1f s)\n", tu_now() - t0);
    printf("CPU == GPU decodes: %ld of %ld byte-identical (CPU streams held %ld stored, %ld Huffman, %ld run-length "
           "chunks)\n",
           n_identical, n_compared, n_chunks[0], n_chunks[1], n_chunks[2]);
    CHECK(n_chunks[0] > 0 && n_chunks[1] > 0 && n_chunks[2] > 0, "every workflow was compared");
    /* both Huffman decoders of level 0 ran (narrow codes: docs/GPU.md), so
     * the comparisons above cover each */
    unsigned long long hw = 0, hn = 0;
    CHECK(scz__lossy_cuda_huff_chunks(&hw, &hn) == 0, "decoder chunk counts");
    printf("level-0 Huffman chunks decoded on the GPU: %llu wide, %llu narrow\n", hw, hn);
    CHECK(hw > 0 && hn > 0, "both Huffman decoders ran: %llu wide, %llu narrow chunks", hw, hn);
    scz_ctx_destroy(cpu);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(gpu_small);
    return tu_finish("test_cuda_lossy_dec");
}
#endif

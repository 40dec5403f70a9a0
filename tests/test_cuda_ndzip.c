/*
 * test_cuda_ndzip.c -- the CUDA backend against the CPU reference: for
 * every generated family x shape x dtype at several chunk sizes, and every
 * real data file of $SCZ_DATA_DIR, the GPU writes exactly the CPU's bytes
 * (host-pointer API, streamed in one and in many batches, and the
 * device-pointer API), decodes the CPU's streams, and single chunks decode
 * alone, and the CPU decodes the GPU's streams. Noise (random bits, NaN
 * payloads) and arrays whose chunks alternate between noise and smooth
 * slabs check stored chunks (FORMAT.md 6.7) beside coded ones. Corrupt
 * streams, stored chunks of the wrong size or with the wrong codec_info
 * included, give the CPU's errors without out-of-bounds access (run under
 * compute-sanitizer by bench/run_gpu.sh). Skipped (exit 77) when the library
 * has no CUDA backend or the machine no CUDA device.
 *
 * SCZ_TEST_QUICK=1 runs a subset (for memcheck), SCZ_TEST_QUICK=2 a small one
 * (for racecheck and synccheck, which are much slower).
 */
#include "gen.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cudatest.h"

#ifdef SCZ_TEST_CUDA

#include "cuda/backend.h"
#include "format/container.h"

static scz_ctx *cpu, *gpu, *gpu_small; /* gpu_small: tiny batches, many in flight */
static int quick; /* 0 all, 1 subset, 2 small subset */
static long n_streams, n_identical, n_stored, n_coded; /* chunks of the compared CPU streams */

/* Every chunk alone through the GPU equals its slice. */
static void check_chunks(const uint8_t *z, size_t zn, const void *ref, const char *what) {
    scz_info info;
    if (scz_inspect(z, zn, &info)) return;
    uint32_t step = info.num_chunks > 8 ? info.num_chunks / 5 : 1;
    for (uint32_t i = 0; i < info.num_chunks; i += step) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci)) continue;
        uint8_t *out = tu_guarded_alloc((size_t)ci.raw_bytes, 0x3C);
        scz_status r = scz_decompress_chunk(gpu, z, zn, i, out, (size_t)ci.raw_bytes);
        CHECK(r == SCZ_OK && memcmp(out, (const uint8_t *)ref + ci.raw_offset, (size_t)ci.raw_bytes) == 0,
              "%s: chunk %u alone: %s (%s)", what, i, st(r), scz_ctx_last_error(gpu));
        CHECK(tu_guard_intact(out, (size_t)ci.raw_bytes), "%s: chunk %u wrote past", what, i);
        free(out);
    }
}

/* Device-pointer API: same bytes as `ref_stream`; decodes back. */
static void check_device_api(const scz_params *p, const scz_shape *s, const void *src, size_t raw,
                             const uint8_t *ref_stream, size_t ref_n, const char *what) {
    size_t bound = scz_compress_bound(s, p);
    void *d_src = NULL, *d_z = NULL, *d_out = NULL;
    CUDA_OK(cudaMalloc(&d_src, raw ? raw : 1));
    CUDA_OK(cudaMalloc(&d_z, bound));
    CUDA_OK(cudaMalloc(&d_out, raw ? raw : 1));
    CUDA_OK(cudaMemcpy(d_src, src, raw, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_z, 0xAB, bound));
    uint64_t *size_out;
    scz_status *status_out;
    CUDA_OK(cudaMallocHost((void **)&size_out, 8));
    CUDA_OK(cudaMallocHost((void **)&status_out, sizeof *status_out));
    *size_out = 0;
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreate(&stream));

    scz_status r = scz_cuda_compress(gpu, p, s, d_src, d_z, bound, size_out, stream);
    CHECK(r == SCZ_OK, "%s: device compress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
    CUDA_OK(cudaStreamSynchronize(stream));
    n_streams++;
    if (!r) {
        CHECK(*size_out == ref_n, "%s: device stream %llu bytes, CPU %zu", what, (unsigned long long)*size_out,
              ref_n);
        uint8_t *h = malloc(bound);
        CUDA_OK(cudaMemcpy(h, d_z, bound, cudaMemcpyDeviceToHost));
        if (*size_out == ref_n) {
            size_t d = tu_first_diff(h, ref_stream, ref_n);
            CHECK(d == ref_n, "%s: device stream differs from the CPU's at byte %zu of %zu", what, d, ref_n);
            if (d == ref_n) n_identical++;
        }
        free(h);
        /* decode the CPU's stream (copied to the device) both ways */
        CUDA_OK(cudaMemcpy(d_z, ref_stream, ref_n, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(d_out, 0x77, raw ? raw : 1));
        scz_shape got;
        r = scz_cuda_decompress(gpu, d_z, ref_n, d_out, raw, &got, NULL, stream);
        CHECK(r == SCZ_OK, "%s: device decompress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
        uint8_t *o = malloc(raw ? raw : 1);
        CUDA_OK(cudaMemcpy(o, d_out, raw, cudaMemcpyDeviceToHost));
        CHECK(tu_first_diff(o, src, raw) == raw, "%s: device decode differs", what);
        CHECK(got.dtype == s->dtype && got.rank == s->rank, "%s: device decode shape", what);
        CUDA_OK(cudaMemset(d_out, 0x11, raw ? raw : 1));
        *status_out = SCZ_ERR_INTERNAL;
        r = scz_cuda_decompress(gpu, d_z, ref_n, d_out, raw, NULL, status_out, stream);
        CUDA_OK(cudaStreamSynchronize(stream));
        CHECK(r == SCZ_OK && *status_out == SCZ_OK, "%s: async device decompress: %s / %s", what, st(r),
              st(*status_out));
        CUDA_OK(cudaMemcpy(o, d_out, raw, cudaMemcpyDeviceToHost));
        CHECK(tu_first_diff(o, src, raw) == raw, "%s: async device decode differs", what);
        free(o);
    }
    CUDA_OK(cudaStreamDestroy(stream));
    CUDA_OK(cudaFreeHost(size_out));
    CUDA_OK(cudaFreeHost(status_out));
    CUDA_OK(cudaFree(d_src));
    CUDA_OK(cudaFree(d_z));
    CUDA_OK(cudaFree(d_out));
}

/* CPU vs GPU for one array at one chunk size. */
static void compare(const scz_shape *s, const void *data, uint64_t chunk_bytes, int device_api, int chunks,
                    const char *name) {
    char what[320];
    snprintf(what, sizeof what, "%s chunk=%llu", name, (unsigned long long)chunk_bytes);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = chunk_bytes;
    size_t raw = gen_bytes(s), nc = 0, ng = 0, ns = 0;
    uint8_t *zc = tu_compress(cpu, &p, s, data, &nc, what);
    if (!zc) return;
    scz_ctx *gctx[2] = {gpu, gpu_small};
    for (int k = 0; k < 2; k++) {
        int same;
        uint8_t *zg = cudatest_gpu_stream(gctx[k], k ? "small" : "default", &p, s, data, zc, nc, k ? &ns : &ng, what,
                                          &same);
        size_t n = k ? ns : ng;
        n_streams++;
        if (zg) {
            n_identical += same;
            tu_check_decode(cpu, zg, n, data, raw, what, "CPU (GPU's stream)"); /* and the CPU decodes the GPU's stream */
            free(zg);
        }
    }
    scz_info info;
    if (scz_inspect(zc, nc, &info) == SCZ_OK)
        for (uint32_t i = 0; i < info.num_chunks; i++) {
            scz_chunk_info ci;
            if (scz_inspect_chunk(zc, nc, i, &ci) == SCZ_OK) {
                n_stored += ci.codec_info == 1;
                n_coded += ci.codec_info == 0;
            }
        }
    tu_check_decode(gpu, zc, nc, data, raw, what, "GPU");
    tu_check_decode(gpu_small, zc, nc, data, raw, what, "GPU (small batches)");
    if (chunks) check_chunks(zc, nc, data, what);
    if (device_api) check_device_api(&p, s, data, raw, zc, nc, what);
    free(zc);
}

static void test_generated(void) {
    const uint64_t sizes[] = {0, 4096, 65536};
    const int nsizes = quick ? 2 : 3;
    long cases = 0;
    for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
        if (quick && f != GEN_SMOOTH && f != GEN_SPECIAL && f != GEN_RANDOM_BITS) continue;
        if (quick > 1 && f != GEN_SMOOTH) continue;
        for (int si = 0; si < gen_num_shapes; si++) {
            if (quick > 1 && strcmp(gen_shapes[si].name, "1d_4097") && strcmp(gen_shapes[si].name, "2d_65x63") &&
                strcmp(gen_shapes[si].name, "3d_17x16x15") && strcmp(gen_shapes[si].name, "4d_7x5x3x2"))
                continue;
            for (int dt = 0; dt < 2; dt++) {
                scz_shape s = gen_shape(&gen_shapes[si], dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32);
                size_t bytes;
                void *data = gen_field((gen_family)f, &s, 1000 + si, &bytes);
                for (int ci = 0; ci < nsizes; ci++) {
                    char name[200];
                    snprintf(name, sizeof name, "%s %s %s", gen_family_name((gen_family)f), gen_shapes[si].name,
                             dt ? "f64" : "f32");
                    compare(&s, data, sizes[ci], ci == 0 || (ci == 1 && f == GEN_SMOOTH), ci == 1, name);
                    cases++;
                }
                free(data);
            }
        }
    }
    printf("generated: %ld cases\n", cases);
}

/* Larger arrays: many hypercubes and chunks per batch, a partial last chunk,
 * and several batches in flight. */
static void test_large(void) {
    const struct {
        uint32_t rank;
        uint64_t dims[4];
        scz_dtype dt;
        uint64_t chunk;
    } L[] = {
        {3, {256, 256, 83, 1}, SCZ_DTYPE_F32, 1 << 20},
        {3, {130, 67, 150, 1}, SCZ_DTYPE_F64, 1 << 20},
        {2, {1000, 777, 1, 1}, SCZ_DTYPE_F32, 300000},
        {1, {3000017, 1, 1, 1}, SCZ_DTYPE_F64, 0},
        {4, {33, 17, 16, 40}, SCZ_DTYPE_F32, 200000},
    };
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        if (quick && i >= (quick > 1 ? 0 : 2)) break;
        scz_shape s;
        memset(&s, 0, sizeof s);
        s.dtype = L[i].dt;
        s.rank = L[i].rank;
        for (int d = 0; d < 4; d++) s.dims[d] = d < (int)L[i].rank ? L[i].dims[d] : 1;
        size_t bytes;
        void *data = gen_field(i % 2 ? GEN_NOISY : GEN_SMOOTH, &s, 77 + i, &bytes);
        char name[64];
        snprintf(name, sizeof name, "large #%zu", i);
        compare(&s, data, L[i].chunk, 1, 1, name);
        free(data);
    }
}

/* Fixed periods at k*period - 1, k*period, k*period + 1 (k = 1, 2, 3):
 * hypercube sides (4096, 64, 16 per axis) and packing groups (32 / 64
 * values), then batch edges: streams of 3k - 1, 3k, 3k + 1 chunks through
 * batches of 3 chunks (and the default batches). */
static void test_periods(void) {
    long cases = 0;
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            if (quick > 1 && k > 1) break;
            const uint64_t e1 = k * 4096 + (uint64_t)(int64_t)d, e2 = k * 64 + (uint64_t)(int64_t)d,
                           e3 = k * 16 + (uint64_t)(int64_t)d, g = k * 32 + (uint64_t)(int64_t)d;
            const gen_shape_def sh[] = {
                {"1d hc", 1, {e1, 1, 1, 1}}, {"1d group", 1, {g, 1, 1, 1}}, {"1d 2 groups", 1, {2 * g, 1, 1, 1}},
                {"2d", 2, {e2, 64, 1, 1}},   {"2d slow", 2, {64, e2, 1, 1}}, {"3d", 3, {e3, e3, e3, 1}},
                {"3d slow", 3, {16, 16, e3, 1}},
            };
            for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++)
                for (int dt = 0; dt < 2; dt++) {
                    scz_shape s = gen_shape(&sh[i], dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32);
                    size_t bytes;
                    void *data = gen_field(GEN_NOISY, &s, 300 + k, &bytes);
                    char name[96];
                    snprintf(name, sizeof name, "period %s %llux%llux%llu %s", sh[i].name,
                             (unsigned long long)s.dims[0], (unsigned long long)s.dims[1],
                             (unsigned long long)s.dims[2], dt ? "f64" : "f32");
                    compare(&s, data, 0, 0, 0, name);
                    cases++;
                    free(data);
                }
        }
    /* checksum blocks of 4 KiB (FORMAT.md 5): stored payloads (random bits)
     * of k*4096 - 4, k*4096, k*4096 + 4 bytes */
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            scz_shape s = {SCZ_DTYPE_F32, 1, {k * 1024 + (uint64_t)(int64_t)d, 1, 1, 1}};
            size_t bytes;
            void *data = gen_field(GEN_RANDOM_BITS, &s, 500 + k, &bytes);
            char name[96];
            snprintf(name, sizeof name, "stored payload of %zu bytes", bytes);
            compare(&s, data, 0, 1, 0, name);
            cases++;
            free(data);
        }
    /* batch edges: 64 x 64 x 16 float32 slabs of 256 KiB per chunk */
    const uint64_t chunk = 64 * 64 * 16 * 4;
    scz__cuda_set_batch_bytes(gpu_small, 3 * chunk);
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            if (quick > 1 && k > 1) break;
            uint64_t nchunks = 3 * k + (uint64_t)(int64_t)d;
            scz_shape s = {SCZ_DTYPE_F32, 3, {64, 64, 16 * nchunks, 1}};
            size_t bytes;
            void *data = gen_field(GEN_SMOOTH, &s, 400 + nchunks, &bytes);
            char name[96];
            snprintf(name, sizeof name, "batch edge: %llu chunks, batches of 3", (unsigned long long)nchunks);
            compare(&s, data, chunk, 1, 1, name);
            cases++;
            free(data);
        }
    scz__cuda_set_batch_bytes(gpu_small, 8192);
    printf("periods and batch edges: %ld cases\n", cases);
}

/* Every element a NaN with a random payload and sign. */
static void fill_nan(const scz_shape *s, void *p, uint64_t seed) {
    const uint64_t count = gen_count(s);
    for (uint64_t i = 0; i < count; i++) {
        const uint64_t r = gen_mix64(seed * 0x9E3779B97F4A7C15ull + i);
        if (s->dtype == SCZ_DTYPE_F32) {
            uint32_t u = 0x7F800000u | (uint32_t)(r >> 32 & 0x807FFFFFu);
            if (!(u & 0x7FFFFFu)) u |= 1;
            memcpy((uint8_t *)p + 4 * i, &u, 4);
        } else {
            uint64_t u = 0x7FF0000000000000ull | (r & 0x800FFFFFFFFFFFFFull);
            if (!(u & 0xFFFFFFFFFFFFFull)) u |= 1;
            memcpy((uint8_t *)p + 8 * i, &u, 8);
        }
    }
}

/* Slabs of `slab` slowest indices alternate: noise (stored chunks when the
 * chunk is one slab) first, then smooth (coded). */
static void *mixed_field(const scz_shape *s, uint64_t slab, uint64_t seed, size_t *raw) {
    uint8_t *a = (uint8_t *)gen_field(GEN_SMOOTH, s, seed, raw);
    size_t bytes;
    uint8_t *b = (uint8_t *)gen_field(GEN_RANDOM_BITS, s, seed + 1, &bytes);
    const uint64_t S = s->dims[s->rank - 1], slice = *raw / (S ? S : 1);
    for (uint64_t z = 0; z < S; z++)
        if ((z / slab) % 2 == 0) memcpy(a + z * slice, b + z * slice, (size_t)slice);
    free(b);
    return a;
}

/* Stored chunks: noise and mixed arrays, CPU vs GPU both ways. */
static void test_noise(void) {
    static const gen_shape_def shapes[] = {
        {"1d_100003", 1, {100003, 1, 1, 1}}, {"2d_149x149", 2, {149, 149, 1, 1}},
        {"3d_33x40x50", 3, {33, 40, 50, 1}}, {"4d_9x8x7x30", 4, {9, 8, 7, 30}},
    };
    const uint64_t sizes[] = {4096, 65536, 0};
    long cases = 0;
    const long stored0 = n_stored;
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        if ((quick && si != 1 && si != 2) || (quick > 1 && si != 1)) continue;
        for (int dt = 0; dt < 2; dt++)
            for (int kind = 0; kind < 2; kind++) {
                if (quick > 1 && (dt != 1 || kind)) continue;
                scz_shape s = gen_shape(&shapes[si], dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32);
                size_t bytes;
                void *data = gen_field(GEN_RANDOM_BITS, &s, 300 + si, &bytes);
                if (kind) fill_nan(&s, data, 400 + si);
                for (int ci = 0; ci < 3; ci++) {
                    if ((quick && ci == 1) || (quick > 1 && ci)) continue;
                    char name[200];
                    snprintf(name, sizeof name, "%s %s %s", kind ? "NaN payloads" : "random bits", shapes[si].name,
                             dt ? "f64" : "f32");
                    compare(&s, data, sizes[ci], 1, ci == 0, name);
                    cases++;
                }
                free(data);
            }
    }
    /* chunks alternating between stored and coded, one and many batches */
    const struct {
        const char *name;
        scz_shape s;
        uint64_t slab;
    } M[] = {
        {"mixed 3d_64x64x80 f32", {SCZ_DTYPE_F32, 3, {64, 64, 80, 1}}, 16},
        {"mixed 3d_40x36x72 f64", {SCZ_DTYPE_F64, 3, {40, 36, 72, 1}}, 16},
        {"mixed 2d_300x320 f32", {SCZ_DTYPE_F32, 2, {300, 320, 1, 1}}, 64},
        {"mixed 2d_4096x9 f64", {SCZ_DTYPE_F64, 2, {4096, 9, 1, 1}}, 1},
        {"mixed 3d_128x128x160 f32", {SCZ_DTYPE_F32, 3, {128, 128, 160, 1}}, 16},
        {"mixed 1d_3000017 f64", {SCZ_DTYPE_F64, 1, {3000017, 1, 1, 1}}, 65536},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        if (quick > 1 && i != 0 && i != 3) continue;
        if (quick && i >= 4) continue;
        size_t raw;
        void *data = mixed_field(&M[i].s, M[i].slab, 500 + i, &raw);
        const uint64_t chunk = raw / M[i].s.dims[M[i].s.rank - 1] * M[i].slab;
        compare(&M[i].s, data, chunk, 1, 1, M[i].name);
        cases++;
        free(data);
    }
    printf("noise and mixed: %ld cases, %ld stored chunks\n", cases, n_stored - stored0);
    CHECK(n_stored > stored0, "stored chunks were compared");
}

static void test_real_data(void) {
    tu_datafile *files;
    int n = tu_data_files(&files);
    if (n == 0) {
        printf("real data: none in $SCZ_DATA_DIR, skipped\n");
        return;
    }
    int done = 0;
    for (int i = 0; i < n; i++) {
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        if (!data || size != gen_bytes(&files[i].shape)) {
            CHECK(0, "%s: cannot read or size mismatch", files[i].name);
            free(data);
            continue;
        }
        compare(&files[i].shape, data, 0, 1, 0, files[i].name);
        if (!quick) compare(&files[i].shape, data, 256 * 1024, 1, 1, files[i].name);
        free(data);
        done++;
    }
    printf("real data: %d files\n", done);
    free(files);
}

/* The CPU and the GPU (host and device API) reject stream z of n bytes
 * with the same status. */
static void corrupt_stream(const uint8_t *z, size_t n, const scz_shape *s, const char *what) {
    size_t raw = gen_bytes(s);
    uint8_t *o = tu_guarded_alloc(raw, 0x22);
    scz_status rc = scz_decompress(cpu, z, n, o, raw, NULL);
    scz_status rg = scz_decompress(gpu, z, n, o, raw, NULL);
    CHECK(rc != SCZ_OK && rg == rc, "%s: CPU says %s, GPU says %s (%s)", what, st(rc), st(rg),
          scz_ctx_last_error(gpu));
    CHECK(tu_guard_intact(o, raw), "%s: wrote past the array", what);
    /* device API, synchronous and asynchronous outcome */
    void *dz, *dout;
    CUDA_OK(cudaMalloc(&dz, n));
    CUDA_OK(cudaMalloc(&dout, raw));
    CUDA_OK(cudaMemcpy(dz, z, n, cudaMemcpyHostToDevice));
    scz_status rd = scz_cuda_decompress(gpu, dz, n, dout, raw, NULL, NULL, NULL);
    CHECK(rd == rc, "%s: device API says %s, CPU %s", what, st(rd), st(rc));
    scz_status *so;
    CUDA_OK(cudaMallocHost((void **)&so, sizeof *so));
    *so = SCZ_OK;
    scz_status ra = scz_cuda_decompress(gpu, dz, n, dout, raw, NULL, so, NULL);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(ra == SCZ_OK && *so == rc, "%s: async device API says %s / %s, CPU %s", what, st(ra), st(*so), st(rc));
    CUDA_OK(cudaFreeHost(so));
    CUDA_OK(cudaFree(dz));
    CUDA_OK(cudaFree(dout));
    free(o);
}

static void corrupt_case(const uint8_t *z0, size_t n, const scz_shape *s, void (*edit)(uint8_t *, size_t),
                         const char *what) {
    uint8_t *z = malloc(n);
    memcpy(z, z0, n);
    edit(z, n);
    corrupt_stream(z, n, s, what);
    free(z);
}

/* Stored chunks (6.7) behind valid checksums: wrong sizes, codec_info. */
static void test_corrupt_stored(void) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = SCZ_DTYPE_F32;
    s.rank = 3;
    s.dims[0] = 40;
    s.dims[1] = 36;
    s.dims[2] = 48;
    s.dims[3] = 1;
    size_t raw, n;
    void *data = mixed_field(&s, 16, 9, &raw);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = 40 * 36 * 4 * 16; /* chunks 0 and 2 noise (stored), 1 smooth (coded) */
    uint8_t *z = tu_compress(cpu, &p, &s, data, &n, "corrupt stored base");
    if (z) {
        scz_chunk_entry e0, e1;
        scz__table_entry(z + SCZ_HEADER_SIZE, 0, &e0);
        scz__table_entry(z + SCZ_HEADER_SIZE, 1, &e1);
        CHECK(e0.info == 1 && e1.info == 0, "corrupt stored base: chunk 0 stored (%u), 1 coded (%u)", e0.info, e1.info);
        const struct {
            const char *what;
            uint32_t chunk;
            int64_t dsize;
            uint32_t info;
        } ed[] = {
            {"stored chunk 4 bytes short", 0, -4, 1},  {"stored chunk empty", 0, -(int64_t)e0.size, 1},
            {"stored chunk 4 bytes long", 0, 4, 1},    {"stored chunk 4 KiB long", 2, 4096, 1},
            {"last stored chunk short", 2, -8, 1},     {"stored chunk with codec_info 2", 0, 0, 2},
            {"stored payload read as coded", 0, 0, 0}, {"coded payload read as stored", 1, 0, 1},
            {"coded chunk with codec_info 7", 1, 0, 7},
        };
        for (size_t k = 0; k < sizeof ed / sizeof ed[0]; k++) {
            scz_chunk_entry e;
            scz__table_entry(z + SCZ_HEADER_SIZE, ed[k].chunk, &e);
            size_t cn;
            uint8_t *c = tu_edit_chunk(z, n, ed[k].chunk, (uint64_t)((int64_t)e.size + ed[k].dsize), ed[k].info, &cn);
            corrupt_stream(c, cn, &s, ed[k].what);
            uint8_t *o = malloc(raw);
            CHECK(scz_decompress(cpu, c, cn, o, raw, NULL) == SCZ_ERR_CORRUPT, "%s: CPU says CORRUPT", ed[k].what);
            free(o);
            free(c);
        }
        free(z);
    }
    free(data);
}

/* Payload of chunk 0 starts after header and table. */
static size_t pay0(const uint8_t *z) {
    scz_chunk_entry e;
    scz__table_entry(z + SCZ_HEADER_SIZE, 0, &e);
    return (size_t)e.offset;
}
static void ed_flip(uint8_t *z, size_t n) { z[n - 3] ^= 0x10; }
static void ed_offset(uint8_t *z, size_t n) {
    (void)n;
    scz__st32(z + pay0(z) + 4, 0xFFFFFFF0u); /* hypercube 1's end */
    tu_reseal_chunk(z, 0);
}
static void ed_offset_back(uint8_t *z, size_t n) {
    (void)n;
    scz__st32(z + pay0(z), scz__ld32(z + pay0(z)) + 8); /* hypercube 0 longer, 1 shorter */
    tu_reseal_chunk(z, 0);
}
/* Hypercubes of chunk 0 (FORMAT.md 6.1). */
static uint64_t n_hc0(const uint8_t *z) {
    scz_header h;
    scz__header_read(NULL, z, SCZ_HEADER_SIZE, &h);
    scz_chunk_geom g;
    scz__chunk_geom(&h, 0, &g, NULL, NULL);
    uint64_t e[3] = {1, 1, 1};
    unsigned r = 0;
    for (unsigned d = 0; d < g.rank; d++)
        if (g.dims[d] != 1) e[r++] = g.dims[d];
    if (!r) r = 1;
    uint64_t side = r == 1 ? 4096 : r == 2 ? 64 : 16, n = 1;
    for (unsigned k = 0; k < r; k++) n *= (e[k] + side - 1) / side;
    return n;
}
static void ed_head(uint8_t *z, size_t n) {
    (void)n;
    z[pay0(z) + 4 * n_hc0(z)] ^= 0x01; /* hypercube 0's first head: one column more or less */
    tu_reseal_chunk(z, 0);
}

static void test_corrupt(void) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = SCZ_DTYPE_F32;
    s.rank = 3;
    s.dims[0] = 40;
    s.dims[1] = 33;
    s.dims[2] = 20;
    s.dims[3] = 1;
    size_t bytes, n;
    void *data = gen_field(GEN_NOISY, &s, 5, &bytes);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    uint8_t *z = tu_compress(cpu, &p, &s, data, &n, "corrupt base");
    if (z) {
        corrupt_case(z, n, &s, ed_flip, "payload byte flipped");
        corrupt_case(z, n, &s, ed_offset, "hypercube offset out of range");
        corrupt_case(z, n, &s, ed_offset_back, "hypercube offsets shifted");
        corrupt_case(z, n, &s, ed_head, "head bit flipped");
        free(z);
    }
    free(data);
}

static void test_api_edges(void) {
    /* empty array through the device API */
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = SCZ_DTYPE_F64;
    s.rank = 2;
    s.dims[0] = 5;
    s.dims[1] = 0;
    s.dims[2] = s.dims[3] = 1;
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    uint8_t ref[256];
    size_t rn = 0;
    CHECK(scz_compress(cpu, &p, &s, NULL, ref, sizeof ref, &rn) == SCZ_OK, "empty: CPU compress");
    check_device_api(&p, &s, ref, 0, ref, rn, "empty array");
    /* misaligned device pointer, small capacity, wrong context */
    void *d;
    CUDA_OK(cudaMalloc(&d, 1 << 16));
    uint64_t *so;
    CUDA_OK(cudaMallocHost((void **)&so, 8));
    s.dims[1] = 100;
    CHECK(scz_cuda_compress(gpu, &p, &s, (char *)d + 4, d, 1 << 16, so, NULL) == SCZ_ERR_ARG, "misaligned");
    CHECK(scz_cuda_compress(gpu, &p, &s, d, d, 100, so, NULL) == SCZ_ERR_DST_TOO_SMALL, "dst_cap");
    CHECK(scz_cuda_compress(cpu, &p, &s, d, d, 1 << 16, so, NULL) == SCZ_ERR_BACKEND, "CPU context");
    s.dtype = SCZ_DTYPE_U16;
    CHECK(scz_cuda_compress(gpu, &p, &s, d, d, 1 << 16, so, NULL) != SCZ_OK, "u16 ndzip");
    CHECK(scz_cuda_scratch_size(&s, &p) == 0, "scratch of an invalid request");
    s.dtype = SCZ_DTYPE_F32;
    size_t need = scz_cuda_scratch_size(&s, &p);
    CHECK(need > 0, "scratch size");
    CHECK(scz_cuda_reserve(gpu, need) == SCZ_OK, "reserve");
    CUDA_OK(cudaFreeHost(so));
    CUDA_OK(cudaFree(d));
}

int main(void) {
    char why[512];
    if (scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why) != SCZ_OK) tu_skip(why);
    scz_status r = scz_ctx_create(&gpu, SCZ_BACKEND_CUDA);
    if (r != SCZ_OK) tu_skip("CUDA context creation failed");
    CHECK(scz_ctx_create(&gpu_small, SCZ_BACKEND_CUDA) == SCZ_OK, "second CUDA context");
    CHECK(scz_ctx_create(&cpu, SCZ_BACKEND_CPU) == SCZ_OK, "CPU context");
    scz__cuda_set_batch_bytes(gpu_small, 8192); /* one or two small chunks per batch */
    const char *q = getenv("SCZ_TEST_QUICK");
    quick = q && *q ? atoi(q) : 0;
    struct cudaDeviceProp prop;
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        printf("device %d: %s (compute capability %d.%d)%s\n", dev, prop.name, prop.major, prop.minor,
               quick ? ", quick subset" : "");

    test_api_edges();
    test_generated();
    test_large();
    test_periods();
    if (quick < 2) test_real_data();
    test_noise();
    test_corrupt();
    test_corrupt_stored();
    printf("CPU == GPU streams: %ld of %ld byte-identical (CPU streams held %ld stored and %ld coded chunks)\n",
           n_identical, n_streams, n_stored, n_coded);
    scz_ctx_destroy(cpu);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(gpu_small);
    return tu_finish("test_cuda_ndzip");
}
#endif

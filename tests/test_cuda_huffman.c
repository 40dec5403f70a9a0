/*
 * test_cuda_huffman.c -- the `huffman` codec (FORMAT.md 8.5) on the GPU
 * against the CPU reference: for u8, u16 and u32 arrays (one symbol, two
 * symbols with 1-bit codes at k*32768 - 1 / k*32768 / k*32768 + 1 and
 * k*1024 +- 1 elements, so that total_bits falls on and around segment and
 * unit boundaries; geometric, uniform (stored), u32 with up to and more
 * than 65536 distinct values (escapes), exactly 65536 and 65537 of them;
 * several chunk sizes, many chunks per batch, empty arrays; real data read
 * as u16 and u32, and quantized differences of it), the GPU writes exactly
 * the CPU's bytes (host API with default and tiny batches, device API),
 * decodes the CPU's streams, and the CPU decodes the GPU's. Corrupt and
 * truncated streams (checksums resealed; the codebook of a large one edited
 * and altered too) give the CPU's error on the GPU,
 * without out-of-bounds access (bench/run_gpu.sh runs it under
 * compute-sanitizer). Skipped (exit 77) without a CUDA build or device.
 *
 * SCZ_TEST_QUICK=1 runs smaller arrays (memcheck), =2 six small arrays
 * through every kernel, without the corrupt streams (racecheck).
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

static scz_ctx *cpu, *gpu, *gpu_small;
static int quick;
static long n_streams, n_identical, n_stored, n_coded, n_escaped;

static uint64_t rng_state = 0x1234567;
static uint64_t rnd(void) { return gen_splitmix64(&rng_state); }
static double urand(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }

static unsigned esz(scz_dtype dt) { return (unsigned)scz_dtype_size(dt); }

static void put(void *a, unsigned es, uint64_t i, uint64_t v) {
    if (es == 1) ((uint8_t *)a)[i] = (uint8_t)v;
    else if (es == 2) ((uint16_t *)a)[i] = (uint16_t)v;
    else ((uint32_t *)a)[i] = (uint32_t)v;
}

/* Device-pointer API: the same bytes as ref_stream; decodes back. */
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
        CHECK(*size_out == ref_n, "%s: device stream %llu bytes, CPU %zu", what, (unsigned long long)*size_out, ref_n);
        uint8_t *h = malloc(bound);
        CUDA_OK(cudaMemcpy(h, d_z, bound, cudaMemcpyDeviceToHost));
        if (*size_out == ref_n) {
            size_t d = tu_first_diff(h, ref_stream, ref_n);
            CHECK(d == ref_n, "%s: device stream differs from the CPU's at byte %zu of %zu", what, d, ref_n);
            if (d == ref_n) n_identical++;
        }
        free(h);
        /* the CPU's stream, decoded on the device: exactly ref_n bytes */
        CUDA_OK(cudaFree(d_z));
        CUDA_OK(cudaMalloc(&d_z, ref_n));
        CUDA_OK(cudaMemcpy(d_z, ref_stream, ref_n, cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(d_out, 0x77, raw ? raw : 1));
        scz_shape got;
        r = scz_cuda_decompress(gpu, d_z, ref_n, d_out, raw, &got, NULL, stream);
        CHECK(r == SCZ_OK, "%s: device decompress: %s (%s)", what, st(r), scz_ctx_last_error(gpu));
        uint8_t *o = malloc(raw ? raw : 1);
        CUDA_OK(cudaMemcpy(o, d_out, raw, cudaMemcpyDeviceToHost));
        size_t d = tu_first_diff(o, src, raw);
        CHECK(d == raw, "%s: device decode differs at byte %zu of %zu", what, d, raw);
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
static void compare(const scz_shape *s, const void *data, uint64_t chunk_bytes, int device_api, const char *name) {
    char what[320];
    snprintf(what, sizeof what, "%s chunk=%llu", name, (unsigned long long)chunk_bytes);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    p.chunk_bytes = chunk_bytes;
    size_t raw = gen_bytes(s), nc = 0, ng = 0;
    uint8_t *zc = tu_compress(cpu, &p, s, data, &nc, what);
    if (!zc) return;
    scz_ctx *gctx[2] = {gpu, gpu_small};
    for (int k = 0; k < 2; k++) {
        int same;
        uint8_t *zg = cudatest_gpu_stream(gctx[k], k ? "small" : "default", &p, s, data, zc, nc, &ng, what, &same);
        n_streams++;
        if (zg) {
            n_identical += same;
            if (k == 0) tu_check_decode(cpu, zg, ng, data, raw, what, "CPU (GPU's stream)");
            free(zg);
        }
    }
    scz_info info;
    if (scz_inspect(zc, nc, &info) == SCZ_OK)
        for (uint32_t i = 0; i < info.num_chunks; i++) {
            scz_chunk_info ci;
            if (scz_inspect_chunk(zc, nc, i, &ci) == SCZ_OK) {
                n_stored += ci.codec_info == 0;
                n_coded += ci.codec_info == 1;
                if (ci.codec_info == 1 && s->dtype == SCZ_DTYPE_U32 && scz__ld32(zc + ci.offset + 8)) n_escaped++;
            }
        }
    tu_check_decode(gpu, zc, nc, data, raw, what, "GPU");
    tu_check_decode(gpu_small, zc, nc, data, raw, what, "GPU (small batches)");
    if (device_api) check_device_api(&p, s, data, raw, zc, nc, what);
    free(zc);
}

/* ---- inputs ---- */

enum kind { K_CONST, K_TWO, K_GEOM, K_UNIFORM, K_DICT, K_MANY, K_MOD };

static void *make(enum kind k, scz_dtype dt, uint64_t n, uint64_t arg) {
    const unsigned es = esz(dt);
    void *a = malloc(n * es + 1);
    const uint64_t mask = es == 4 ? 0xffffffffull : es == 2 ? 0xffffull : 0xffull;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        switch (k) {
        case K_CONST: v = arg; break;
        case K_TWO: v = rnd() & 1 ? (es == 4 ? 0xDEADBEEFu : es == 2 ? 40000 : 200) : 7; break;
        case K_GEOM: { /* two-sided geometric around the middle of the range */
            const double g = floor(-log(1.0 - urand()) * (double)arg);
            const uint64_t mid = es == 1 ? 128 : es == 2 ? 32768 : 0x80000000ull;
            int64_t x = (int64_t)g;
            if (x > (int64_t)mid - 1) x = (int64_t)mid - 1;
            v = rnd() & 1 ? mid + (uint64_t)x : mid - (uint64_t)x;
            break;
        }
        case K_UNIFORM: v = rnd(); break;
        case K_DICT: v = gen_mix64(rnd() % arg + 17); break;           /* <= arg distinct random values */
        case K_MANY: v = gen_mix64((uint64_t)floor(-log(1.0 - urand()) * (double)arg)); break; /* many distinct */
        case K_MOD: v = gen_mix64(i % arg + 5); break;                  /* exactly arg distinct (n >= arg) */
        }
        put(a, es, i, v & mask);
    }
    return a;
}

/* SCZ_TEST_QUICK=2 (racecheck): a few arrays that reach every kernel. */
static void test_small(void) {
    const struct {
        scz_dtype dt;
        enum kind k;
        uint64_t n, arg, chunk;
    } C[] = {
        {SCZ_DTYPE_U8, K_GEOM, 70000, 4, 16384},  {SCZ_DTYPE_U16, K_TWO, 32768, 0, 0},
        {SCZ_DTYPE_U16, K_GEOM, 70000, 40, 0},    {SCZ_DTYPE_U8, K_UNIFORM, 9000, 0, 4096},
        {SCZ_DTYPE_U32, K_MOD, 300000, 70000, 0}, {SCZ_DTYPE_U32, K_DICT, 30000, 500, 0},
        /* tens of thousands of used symbols, mostly rare: the code
         * lengths' construction in global memory (k_ebook) */
        {SCZ_DTYPE_U16, K_GEOM, 300000, 6000, 0},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        void *a = make(C[i].k, C[i].dt, C[i].n, C[i].arg);
        scz_shape s = tu_shape1(C[i].dt, C[i].n);
        char name[100];
        snprintf(name, sizeof name, "small set #%zu %s", i, scz_dtype_name(C[i].dt));
        compare(&s, a, C[i].chunk, 1, name);
        free(a);
    }
    printf("small set: %zu cases\n", sizeof C / sizeof C[0]);
}

static void test_generated(void) {
    const scz_dtype dts[3] = {SCZ_DTYPE_U8, SCZ_DTYPE_U16, SCZ_DTYPE_U32};
    long cases = 0;
    const uint64_t big = quick ? 40000 : 1000000;
    for (int di = 0; di < 3; di++) {
        const scz_dtype dt = dts[di];
        const char *dn = scz_dtype_name(dt);
        char name[200];
        /* one symbol */
        for (int r = 0; r < 2; r++) {
            const uint64_t n = r ? big : 1000;
            void *a = make(K_CONST, dt, n, 0x5A);
            snprintf(name, sizeof name, "%s one symbol, %llu elements", dn, (unsigned long long)n);
            scz_shape s = tu_shape1(dt, n);
            compare(&s, a, 0, 1, name);
            cases++;
            free(a);
        }
        /* two symbols (1-bit codes): total_bits = n on and around unit and
         * segment boundaries */
        for (uint64_t k = 1; k <= 3; k++)
            for (int d = -1; d <= 1; d++)
                for (int unit = 0; unit < 2; unit++) {
                    if (quick > 1 && (k > 1 || unit)) continue;
                    const uint64_t n = k * (unit ? 1024 : 32768) + (uint64_t)(int64_t)d;
                    void *a = make(K_TWO, dt, n, 0);
                    snprintf(name, sizeof name, "%s two symbols, %llu elements", dn, (unsigned long long)n);
                    scz_shape s = tu_shape1(dt, n);
                    compare(&s, a, 0, !quick || k == 1, name);
                    cases++;
                    free(a);
                }
        /* geometric at several chunk sizes (many chunks per batch) */
        {
            void *a = make(K_GEOM, dt, big, dt == SCZ_DTYPE_U8 ? 4 : 40);
            const uint64_t sizes[] = {0, 4096, 65536 + 64};
            for (int ci = 0; ci < 3; ci++) {
                if (quick > 1 && ci == 1) continue;
                snprintf(name, sizeof name, "%s geometric, %llu elements", dn, (unsigned long long)big);
                scz_shape s = tu_shape1(dt, big);
                compare(&s, a, sizes[ci], 1, name);
                cases++;
            }
            free(a);
        }
        /* u16, wide: tens of thousands of used symbols a chunk, most of
         * them rare (k_ebook's construction in global memory), and a
         * chunk size where fewer fit */
        if (dt == SCZ_DTYPE_U16) {
            void *a = make(K_GEOM, dt, big, 6000);
            snprintf(name, sizeof name, "%s wide geometric, %llu elements", dn, (unsigned long long)big);
            scz_shape s = tu_shape1(dt, big);
            compare(&s, a, 0, 1, name);
            if (quick < 2) compare(&s, a, 65536, 1, name);
            cases += 2;
            free(a);
        }
        /* 2D, partial last chunk */
        if (quick < 2) {
            scz_shape s = tu_shape1(dt, 1000);
            s.rank = 2;
            s.dims[1] = quick ? 37 : 777;
            void *a = make(K_GEOM, dt, gen_count(&s), 12);
            snprintf(name, sizeof name, "%s geometric 2D 1000x%llu", dn, (unsigned long long)s.dims[1]);
            compare(&s, a, 300000, 1, name);
            cases++;
            free(a);
        }
        /* uniform: stored chunks, and a mix of stored and coded chunks */
        {
            void *a = make(K_UNIFORM, dt, big, 0);
            snprintf(name, sizeof name, "%s uniform, %llu elements", dn, (unsigned long long)big);
            scz_shape s = tu_shape1(dt, big);
            compare(&s, a, 0, 1, name);
            compare(&s, a, 16384, 0, name);
            const unsigned es = esz(dt);
            for (uint64_t i = 0; i < big; i++) /* every other 16 KiB chunk constant */
                if ((i * es / 16384) % 2) put(a, es, i, 3);
            snprintf(name, sizeof name, "%s uniform / constant chunks", dn);
            compare(&s, a, 16384, 1, name);
            cases += 3;
            free(a);
        }
    }
    /* u32 dictionaries: <= 65536 distinct values, exactly 65536 and 65537,
     * and many more (escapes) */
    {
        const uint64_t n = quick ? 140000 : 600000;
        char name[200];
        const struct {
            enum kind k;
            uint64_t arg;
            const char *what;
        } D[] = {
            {K_DICT, 1000, "u32 <= 1000 distinct"},       {K_DICT, 60000, "u32 <= 60000 distinct"},
            {K_MOD, 65536, "u32 65536 distinct"},         {K_MOD, 65537, "u32 65537 distinct (one escape)"},
            {K_MOD, 70000, "u32 70000 distinct"},         {K_MANY, 30000, "u32 many distinct (escapes)"},
        };
        for (size_t i = 0; i < sizeof D / sizeof D[0]; i++) {
            if (quick > 1 && i != 3 && i != 5) continue;
            void *a = make(D[i].k, SCZ_DTYPE_U32, n, D[i].arg);
            scz_shape s = tu_shape1(SCZ_DTYPE_U32, n);
            snprintf(name, sizeof name, "%s, %llu elements", D[i].what, (unsigned long long)n);
            compare(&s, a, 0, 1, name);
            if (quick < 2) compare(&s, a, 4 * 65536, 0, name);
            cases += 2;
            free(a);
        }
    }
    /* empty arrays */
    for (int di = 0; di < 3; di++) {
        scz_shape s = tu_shape1(dts[di], 5);
        s.rank = 2;
        s.dims[1] = 0;
        uint8_t dummy[8] = {0};
        compare(&s, dummy, 0, 1, "empty array");
        cases++;
    }
    printf("generated: %ld cases\n", cases);
}

/* Real data read as u16 and u32, and quantized differences (u16). */
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
        if (quick && i != smallest) continue;
        size_t size;
        void *data = tu_read_file(files[i].path, &size);
        if (!data || size != gen_bytes(&files[i].shape)) {
            CHECK(0, "%s: cannot read or size mismatch", files[i].name);
            free(data);
            continue;
        }
        char name[300];
        scz_shape s = tu_shape1(SCZ_DTYPE_U16, size / 2);
        snprintf(name, sizeof name, "%s as u16", files[i].name);
        compare(&s, data, 0, 1, name);
        s = tu_shape1(SCZ_DTYPE_U32, size / 4);
        snprintf(name, sizeof name, "%s as u32", files[i].name);
        compare(&s, data, quick ? 0 : 1 << 20, 1, name);
        /* quantized differences along the fastest axis */
        const int f64 = files[i].shape.dtype == SCZ_DTYPE_F64;
        const uint64_t cnt = size / (f64 ? 8 : 4);
        double lo = 1e300, hi = -1e300;
        for (uint64_t k = 0; k < cnt; k++) {
            double v = f64 ? ((const double *)data)[k] : ((const float *)data)[k];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        const double eb = (hi - lo) * 1e-4 + 1e-30;
        uint16_t *q = malloc(2 * cnt + 2);
        for (uint64_t k = 0; k < cnt; k++) {
            double v = f64 ? ((const double *)data)[k] : ((const float *)data)[k];
            double w = k ? (f64 ? ((const double *)data)[k - 1] : ((const float *)data)[k - 1]) : v;
            double c = floor((v - w) / (2 * eb) + 0.5) + 32768;
            q[k] = (uint16_t)(c < 0 ? 0 : c > 65535 ? 65535 : c);
        }
        s = tu_shape1(SCZ_DTYPE_U16, cnt);
        snprintf(name, sizeof name, "%s quantized differences (u16)", files[i].name);
        compare(&s, q, 0, 1, name);
        compare(&s, q, 65536, 0, name);
        free(q);
        free(data);
        done++;
    }
    printf("real data: %d files\n", done);
    free(files);
}

/* ---- corrupt streams ---- */

/* The CPU and the GPU (host and device API) answer stream z of n bytes
 * alike; must_fail: the CPU must reject it. With both accepting, the
 * outputs must agree. */
static void corrupt_stream(const uint8_t *z, size_t n, const scz_shape *s, int must_fail, const char *what) {
    size_t raw = gen_bytes(s);
    uint8_t *oc = tu_guarded_alloc(raw, 0x22), *o = tu_guarded_alloc(raw, 0x22);
    scz_status rc = scz_decompress(cpu, z, n, oc, raw, NULL);
    scz_status rg = scz_decompress(gpu, z, n, o, raw, NULL);
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
    scz_status *so;
    CUDA_OK(cudaMallocHost((void **)&so, sizeof *so));
    *so = SCZ_OK;
    scz_status ra = scz_cuda_decompress(gpu, dz, n, dout, raw, NULL, so, NULL);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(ra == SCZ_OK ? *so == rc : ra == rc, "%s: async device API says %s / %s, CPU %s", what, st(ra), st(*so),
          st(rc));
    CUDA_OK(cudaFreeHost(so));
    CUDA_OK(cudaFree(dz));
    CUDA_OK(cudaFree(dout));
    free(o);
    free(oc);
}

/* Layout of chunk 0's coded payload (FORMAT.md 8.1, 8.5). */
typedef struct hs_at {
    size_t pay, size, hs, cb, gaps, segf, words, esc;
    uint32_t m, nesc, K, cbn;
    uint64_t bits, n_units, n_segs, n_words;
} hs_at;

static hs_at locate(const uint8_t *z, uint32_t chunk) {
    hs_at a;
    memset(&a, 0, sizeof a);
    scz_chunk_entry e;
    scz__table_entry(z + SCZ_HEADER_SIZE, chunk, &e);
    a.pay = (size_t)e.offset;
    a.size = (size_t)e.size;
    const uint8_t *P = z + a.pay;
    a.m = P[1] == 4 ? scz__ld32(P + 4) : 0;
    a.nesc = scz__ld32(P + 8);
    a.hs = a.pay + 16 + 4 * (size_t)a.m;
    a.K = scz__ld32(z + a.hs);
    a.bits = scz__ld64(z + a.hs + 8);
    a.cbn = scz__ld32(z + a.hs + 16);
    a.cb = a.hs + 20;
    a.n_units = (a.bits + 1023) / 1024;
    a.n_segs = (a.n_units + 31) / 32;
    a.n_words = (a.bits + 31) / 32;
    a.gaps = a.cb + a.cbn;
    a.segf = a.gaps + (a.n_units + 1) / 2;
    a.words = a.segf + 4 * a.n_segs;
    a.esc = a.words + 4 * a.n_words;
    return a;
}

static uint8_t *dup(const uint8_t *z, size_t n) {
    uint8_t *c = malloc(n);
    memcpy(c, z, n);
    return c;
}

static void test_corrupt(void) {
    const uint64_t n = quick ? 60000 : 300000;
    scz_shape s = tu_shape1(SCZ_DTYPE_U16, n);
    uint16_t *a = make(K_GEOM, SCZ_DTYPE_U16, n, 40);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    size_t zn;
    uint8_t *z = tu_compress(cpu, &p, &s, a, &zn, "corrupt base");
    if (!z) return;
    hs_at A = locate(z, 0);
    CHECK(z[A.pay] == 1 && A.n_segs >= 2 && A.n_units >= 34, "corrupt base: coded, %llu segments, %llu bits",
          (unsigned long long)A.n_segs, (unsigned long long)A.bits);
    char what[200];
    size_t cn;
    uint8_t *c;
    /* sizes */
    const int64_t dsz[] = {-1, -4, -(int64_t)A.size + 8, 1, 4};
    for (size_t k = 0; k < sizeof dsz / sizeof dsz[0]; k++) {
        c = tu_edit_chunk(z, zn, 0, (uint64_t)((int64_t)A.size + dsz[k]), 1, &cn);
        snprintf(what, sizeof what, "payload %+lld bytes", (long long)dsz[k]);
        corrupt_stream(c, cn, &s, 1, what);
        free(c);
    }
    c = tu_edit_chunk(z, zn, 0, A.size, 0, &cn);
    corrupt_stream(c, cn, &s, 1, "coded payload with codec_info 0");
    free(c);
    c = tu_edit_chunk(z, zn, 0, A.size, 2, &cn);
    corrupt_stream(c, cn, &s, 1, "codec_info 2");
    free(c);
    /* field edits, resealed */
    struct {
        const char *what;
        size_t at;
        int bytes; /* 1, 4 or 8 */
        int64_t add;
        uint64_t xor_;
    } F[] = {
        {"mode 2", A.pay, 1, 0, 3},
        {"element size 4", A.pay + 1, 1, 0, 6},
        {"reserved byte", A.pay + 2, 1, 0, 1},
        {"reserved word", A.pay + 12, 4, 1, 0},
        {"dictionary count on u16", A.pay + 4, 4, 1, 0},
        {"K + 1", A.hs, 4, 1, 0},
        {"count - 1", A.hs + 4, 4, -1, 0},
        {"total_bits + 1", A.hs + 8, 8, 1, 0},
        {"total_bits - 1", A.hs + 8, 8, -1, 0},
        {"total_bits = count - 1", A.hs + 8, 8, -(int64_t)(A.bits - (n - 1)), 0},
        {"cb_bytes - 1", A.hs + 16, 4, -1, 0},
        {"codebook length 17", A.cb, 1, 0, 0},
        {"codebook run longer", A.cb, 1, 0, 0xE0},
        {"gap of unit 1", A.gaps, 1, 0, 0x10},
        {"gap of unit 0", A.gaps, 1, 0, 0x01},
        {"gap of unit 32", A.gaps + 16, 1, 0, 0x01},
        {"gap of unit 33", A.gaps + 16, 1, 0, 0x20},
        {"segment entry 0", A.segf, 4, 1, 0},
        {"segment entry 1 + 1", A.segf + 4, 4, 1, 0},
        {"segment entry 1 - 1", A.segf + 4, 4, -1, 0},
        {"last segment entry past count", A.segf + 4 * (A.n_segs - 1), 4, (int64_t)n, 0},
        {"padding bit", A.words + 4 * (A.n_words - 1), 4, 0, 1},
    };
    for (size_t k = 0; k < sizeof F / sizeof F[0]; k++) {
        if (!strcmp(F[k].what, "padding bit") && !(A.bits & 31)) continue; /* no padding */
        c = dup(z, zn);
        uint8_t *q = c + F[k].at;
        if (!strcmp(F[k].what, "codebook length 17")) *q = (uint8_t)((*q & 0xE0) | 17);
        else if (F[k].bytes == 1) *q = (uint8_t)((*q + F[k].add) ^ F[k].xor_);
        else if (F[k].bytes == 4) scz__st32(q, (uint32_t)((scz__ld32(q) + F[k].add) ^ F[k].xor_));
        else scz__st64(q, (uint64_t)((scz__ld64(q) + F[k].add) ^ F[k].xor_));
        tu_reseal_chunk(c, 0);
        corrupt_stream(c, zn, &s, strcmp(F[k].what, "codebook run longer") != 0, F[k].what);
        free(c);
    }
    /* bitstream bits flipped: both decoders agree (mostly an error) */
    const int flips = quick ? 6 : 24;
    for (int k = 0; k < flips; k++) {
        c = dup(z, zn);
        const size_t at = A.words + (size_t)(rnd() % (4 * A.n_words));
        c[at] ^= (uint8_t)(1u << (rnd() % 8));
        tu_reseal_chunk(c, 0);
        snprintf(what, sizeof what, "bitstream byte %zu flipped", at - A.words);
        corrupt_stream(c, zn, &s, 0, what);
        free(c);
    }
    /* truncated streams (container-level, not resealed) */
    corrupt_stream(z, zn - 1, &s, 1, "stream truncated by 1 byte");
    corrupt_stream(z, zn / 2, &s, 1, "stream truncated to half");
    free(z);
    free(a);

    /* u32 with escapes */
    const uint64_t n4 = 400000;
    scz_shape s4 = tu_shape1(SCZ_DTYPE_U32, n4);
    uint32_t *b = make(K_MOD, SCZ_DTYPE_U32, n4, 70000); /* 70000 distinct values: escapes */
    z = tu_compress(cpu, &p, &s4, b, &zn, "corrupt base u32");
    if (z) {
        A = locate(z, 0);
        CHECK(z[A.pay] == 1 && A.m == 65535 && A.nesc > 0, "u32 base: coded with escapes (m %u, escapes %u)", A.m,
              A.nesc);
        c = dup(z, zn);
        uint8_t t[4];
        memcpy(t, c + A.pay + 16, 4);
        memcpy(c + A.pay + 16, c + A.pay + 20, 4);
        memcpy(c + A.pay + 20, t, 4);
        tu_reseal_chunk(c, 0);
        corrupt_stream(c, zn, &s4, 1, "dictionary not ascending");
        free(c);
        c = dup(z, zn);
        scz__st32(c + A.pay + 8, A.nesc + 1);
        tu_reseal_chunk(c, 0);
        corrupt_stream(c, zn, &s4, 1, "escape count + 1");
        free(c);
        /* one more escape value listed than escape symbols */
        c = tu_edit_chunk(z, zn, 0, A.size + 4, 1, &cn);
        scz__st32(c + A.pay + 8, A.nesc + 1);
        tu_reseal_chunk(c, 0);
        corrupt_stream(c, cn, &s4, 1, "escape list longer than the escape symbols");
        free(c);
        c = tu_edit_chunk(z, zn, 0, A.size - 4, 1, &cn);
        scz__st32(c + A.pay + 8, A.nesc - 1);
        tu_reseal_chunk(c, 0);
        corrupt_stream(c, cn, &s4, 1, "escape list shorter than the escape symbols");
        free(c);
        c = dup(z, zn);
        scz__st32(c + A.pay + 4, 65536);
        tu_reseal_chunk(c, 0);
        corrupt_stream(c, zn, &s4, 1, "65536 entries with escapes");
        free(c);
        free(z);
    }
    free(b);

    /* stored chunk of the wrong size */
    uint8_t *r = make(K_UNIFORM, SCZ_DTYPE_U8, 5000, 0);
    scz_shape s1 = tu_shape1(SCZ_DTYPE_U8, 5000);
    z = tu_compress(cpu, &p, &s1, r, &zn, "stored base");
    if (z) {
        A = locate(z, 0);
        CHECK(z[A.pay] == 0, "stored base is stored");
        c = tu_edit_chunk(z, zn, 0, A.size - 2, 0, &cn);
        corrupt_stream(c, cn, &s1, 1, "stored chunk 2 bytes short");
        free(c);
        c = tu_edit_chunk(z, zn, 0, A.size + 3, 0, &cn);
        corrupt_stream(c, cn, &s1, 1, "stored chunk 3 bytes long");
        free(c);
        c = tu_edit_chunk(z, zn, 0, A.size, 1, &cn);
        corrupt_stream(c, cn, &s1, 1, "stored payload with codec_info 1");
        free(c);
        free(z);
    }
    free(r);

    /* a large codebook (u16, thousands of runs: the block-parallel walk of
     * hs_parse_build): edits every reader rejects at its first, middle and
     * last runs, then bytes of it altered */
    const uint64_t nl = quick ? 100000 : 200000;
    scz_shape sl = tu_shape1(SCZ_DTYPE_U16, nl);
    uint16_t *g = make(K_GEOM, SCZ_DTYPE_U16, nl, 3000);
    z = tu_compress(cpu, &p, &sl, g, &zn, "corrupt base, large codebook");
    if (z) {
        A = locate(z, 0);
        printf("large codebook: %u bytes\n", A.cbn);
        CHECK(z[A.pay] == 1 && A.cbn > 4096, "large codebook: coded, %u codebook bytes", A.cbn);
        corrupt_stream(z, zn, &sl, 0, "large codebook, unchanged");
        for (int k = 0; k < TU_CB_EDITS; k++)
            for (unsigned at = 0; at < 1000; at += 499) {
                c = dup(z, zn);
                const char *e = tu_cb_edit(c + A.cb, A.cbn, k, at);
                if (e) {
                    tu_reseal_chunk(c, 0);
                    snprintf(what, sizeof what, "large codebook: %s (from run %u / 1000)", e, at);
                    corrupt_stream(c, zn, &sl, 1, what);
                }
                free(c);
            }
        for (int k = 0; k < (quick ? 6 : 16); k++) {
            c = dup(z, zn);
            const size_t at = A.cb + (size_t)(rnd() % A.cbn);
            c[at] = k & 1 ? (uint8_t)rnd() : (uint8_t)(c[at] ^ (1u << (rnd() % 8)));
            tu_reseal_chunk(c, 0);
            snprintf(what, sizeof what, "large codebook: byte %zu altered", at - A.cb);
            corrupt_stream(c, zn, &sl, 0, what);
            free(c);
        }
        free(z);
    }
    free(g);
    printf("corrupt streams: done\n");
}

static void test_api_edges(void) {
    scz_shape s = tu_shape1(SCZ_DTYPE_U16, 1000);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    CHECK(scz_cuda_codec_supported(SCZ_CODEC_HUFFMAN), "huffman has GPU kernels");
    size_t need = scz_cuda_scratch_size(&s, &p);
    CHECK(need > 0, "scratch size");
    CHECK(scz_cuda_reserve(gpu, need) == SCZ_OK, "reserve");
    s.dtype = SCZ_DTYPE_F32;
    CHECK(scz_cuda_scratch_size(&s, &p) == 0, "scratch of an f32 huffman request");
    void *d;
    uint64_t *so;
    CUDA_OK(cudaMalloc(&d, 1 << 16));
    CUDA_OK(cudaMallocHost((void **)&so, 8));
    CHECK(scz_cuda_compress(gpu, &p, &s, d, d, 1 << 16, so, NULL) != SCZ_OK, "f32 huffman on the GPU");
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
    double t0 = tu_now();
    test_api_edges();
    if (quick > 1) {
        test_small();
    } else {
        test_generated();
        printf("  (%.1f s)\n", tu_now() - t0);
        test_real_data();
        printf("  (%.1f s)\n", tu_now() - t0);
        test_corrupt();
    }
    printf("CPU == GPU streams: %ld of %ld byte-identical (CPU streams held %ld stored and %ld coded chunks, %ld "
           "u32 chunks with escapes)\n",
           n_identical, n_streams, n_stored, n_coded, n_escaped);
    CHECK(n_stored > 0 && n_coded > 0 && n_escaped > 0, "stored, coded and escaped chunks were compared");
    scz_ctx_destroy(cpu);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(gpu_small);
    return tu_finish("test_cuda_huffman");
}
#endif

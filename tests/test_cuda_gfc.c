/*
 * test_cuda_gfc.c -- the gfc codec (FORMAT.md 10) on the GPU against the
 * CPU: the GPU writes exactly the CPU's bytes (host API with default and
 * tiny batches, device API) and decodes the CPU's streams bit for bit, over
 * the generated families (NaN payloads, -0.0, denormals, infinities, random
 * bits...) x the property-test shapes x every length 0..300 x float32 /
 * float64 x dimensionality 1..32 x chunk sizes that cut segments, and every
 * file of $SCZ_DATA_DIR; corrupted and truncated streams (checksums
 * resealed) get the CPU's answer on the GPU, without out-of-bounds access
 * (run under compute-sanitizer by bench/run_gpu.sh). Skipped (exit 77)
 * without a CUDA build or device.
 *
 * SCZ_TEST_QUICK=1: fewer cases (memcheck); =2: a handful (racecheck).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "gen.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cudatest.h"

#ifdef SCZ_TEST_CUDA

#include "cuda/backend.h"

static scz_ctx *cpu, *gpu, *gpu_small;
static int quick;
static long n_streams, n_identical, n_decoded, n_device, n_stored, n_coded, n_corrupt;

static scz_params gparams(uint32_t dim, uint64_t chunk) {
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_GFC);
    p.knobs[0] = dim;
    p.chunk_bytes = chunk;
    return p;
}

static void count_forms(const uint8_t *z, size_t zn) {
    scz_info info;
    if (scz_inspect(z, zn, &info) != SCZ_OK) return;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci) == SCZ_OK) {
            n_stored += ci.codec_info == 1;
            n_coded += ci.codec_info == 0;
        }
    }
}

/* CPU vs GPU for one array and one parameter set. */
static void compare(const scz_shape *s, const void *data, const scz_params *p, int device_api, const char *name) {
    char what[320];
    snprintf(what, sizeof what, "%s [dim %u chunk %llu]", name, p->knobs[0], (unsigned long long)p->chunk_bytes);
    const size_t raw = gen_bytes(s);
    size_t nc = 0, ng = 0;
    uint8_t *zc = tu_compress(cpu, p, s, data, &nc, what);
    if (!zc) return;
    count_forms(zc, nc);
    scz_ctx *gctx[2] = {gpu, gpu_small};
    for (int k = 0; k < (quick > 1 ? 1 : 2); k++) {
        int same;
        uint8_t *zg = cudatest_gpu_stream(gctx[k], k ? "small" : "default", p, s, data, zc, nc, &ng, what, &same);
        n_streams++;
        if (zg) {
            n_identical += same;
            free(zg);
        }
        n_decoded += tu_check_decode(gctx[k], zc, nc, data, raw, what, k ? "GPU (small batches)" : "GPU");
    }
    if (device_api) { /* the CPU's bytes through the device API, and decoded there */
        int ss, ds;
        cudatest_device_api(gpu, p, s, data, raw, zc, nc, what, &ss, &ds);
        n_streams++;
        n_identical += ss;
        n_device += ss;
    }
    free(zc);
}

/* Payload bytes of chunk 0 changed (checksums resealed), chunk sizes cut
 * and grown, codec_info changed. */
static void test_corrupt(void) {
    scz_shape s;
    memset(&s, 0, sizeof s);
    s.dtype = SCZ_DTYPE_F64;
    s.rank = 1;
    s.dims[0] = 5000;
    s.dims[1] = s.dims[2] = s.dims[3] = 1;
    size_t bytes;
    void *a = gen_field(GEN_NOISY, &s, 9, &bytes);
    for (int dt = 0; dt < 2; dt++) {
        if (dt) {
            free(a);
            s.dtype = SCZ_DTYPE_F32;
            a = gen_field(GEN_NOISY, &s, 9, &bytes);
        }
        scz_params p = gparams(3, 16384);
        size_t zn;
        uint8_t *z = tu_compress(cpu, &p, &s, a, &zn, "corrupt base");
        if (!z) continue;
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, 0, &ci) != SCZ_OK || ci.codec_info != 0) {
            CHECK(0, "corrupt base: chunk 0 is not coded");
            free(z);
            continue;
        }
        uint64_t rng = 77 + (uint64_t)dt;
        const int flips = quick ? 40 : 300;
        for (int k = 0; k < flips; k++) {
            uint8_t *c = malloc(zn);
            memcpy(c, z, zn);
            const uint64_t at = ci.offset + gen_splitmix64(&rng) % ci.size;
            c[at] ^= (uint8_t)(1u << (gen_splitmix64(&rng) % 8));
            if (k % 3 == 0) c[at] = (uint8_t)gen_splitmix64(&rng);
            tu_reseal_chunk(c, 0);
            char what[100];
            snprintf(what, sizeof what, "%s byte %llu changed", scz_dtype_name(s.dtype), (unsigned long long)at);
            cudatest_same_answer(cpu, gpu, c, zn, gen_bytes(&s), what);
            n_corrupt++;
            free(c);
        }
        const uint64_t sizes[4] = {0, ci.size / 2, ci.size - 1, ci.size + 3};
        for (int k = 0; k < 4; k++)
            for (uint32_t info = 0; info < 3; info++) {
                size_t n2;
                uint8_t *c = tu_edit_chunk(z, zn, 0, sizes[k], info, &n2);
                if (!c) continue;
                char what[100];
                snprintf(what, sizeof what, "%s chunk 0 of %llu bytes, codec_info %u", scz_dtype_name(s.dtype),
                         (unsigned long long)sizes[k], info);
                cudatest_same_answer(cpu, gpu, c, n2, gen_bytes(&s), what);
                n_corrupt++;
                free(c);
            }
        free(z);
    }
    free(a);
    printf("corrupt streams: %ld\n", n_corrupt);
}

static void test_generated(void) {
    const scz_dtype dts[2] = {SCZ_DTYPE_F64, SCZ_DTYPE_F32};
    long cases = 0;
    for (int di = 0; di < 2; di++)
        for (int f = 0; f < GEN_NUM_FAMILIES; f++)
            for (int si = 0; si < gen_num_shapes; si++) {
                if (quick && si % (quick > 1 ? 6 : 3)) continue;
                const scz_shape s = gen_shape(&gen_shapes[si], dts[di]);
                size_t bytes;
                void *a = gen_field((gen_family)f, &s, 300u + (unsigned)si, &bytes);
                char name[200];
                snprintf(name, sizeof name, "%s %s %s", gen_family_name((gen_family)f), gen_shapes[si].name,
                         scz_dtype_name(dts[di]));
                const uint32_t dims[4] = {1, 2, 7, 32};
                for (int k = 0; k < 4; k++) {
                    if (quick > 1 && k % 2) continue;
                    scz_params p = gparams(dims[k], k == 2 ? 8192 + 8 : 0);
                    compare(&s, a, &p, k == 0 || k == 3, name);
                    cases++;
                }
                free(a);
            }
    /* every length 0..300, every dimensionality 1..32 on one of them */
    for (uint64_t n = 0; n <= 300; n++) {
        if (quick && n % (quick > 1 ? 37 : 7)) continue;
        for (int di = 0; di < 2; di++) {
            scz_shape s;
            memset(&s, 0, sizeof s);
            s.dtype = dts[di];
            s.rank = 1;
            s.dims[0] = n;
            s.dims[1] = s.dims[2] = s.dims[3] = 1;
            size_t bytes;
            void *a = gen_field(GEN_SPECIAL, &s, n, &bytes);
            scz_params p = gparams((uint32_t)(n % 32) + 1, 0);
            compare(&s, a, &p, n % 10 == 0, "length sweep");
            free(a);
            cases++;
        }
    }
    {
        scz_shape s;
        memset(&s, 0, sizeof s);
        s.dtype = SCZ_DTYPE_F64;
        s.rank = 2;
        s.dims[0] = 300;
        s.dims[1] = 41;
        s.dims[2] = s.dims[3] = 1;
        size_t bytes;
        void *a = gen_field(GEN_SMOOTH, &s, 4, &bytes);
        for (uint32_t d = 1; d <= 32; d++) {
            if (quick && d % 5) continue;
            scz_params p = gparams(d, 40000);
            compare(&s, a, &p, d == 1, "smooth 300x41 every dimensionality");
            cases++;
        }
        free(a);
    }
    printf("generated: %ld cases\n", cases);
}

/* Checksums on the GPU: the decoder that hashes the bytes it stages
 * (k_gdech, checksum blocks up to 4 KiB) and the runtime's checksum pass
 * (larger blocks, or a context made with SCZ_CUDA_FUSED_HASH=0). Streams
 * of coded and stored chunks, rewritten with checksum blocks of 2^10 ..
 * 2^13 bytes, decode exactly; a payload byte changed without resealing
 * (offset table, block edges, middle, last byte; coded and stored chunks,
 * first and later chunks) gets the CPU's answer (a checksum mismatch). */
static long n_cksum;
static void test_checksums(scz_ctx *unfused) {
    const scz_dtype dts[2] = {SCZ_DTYPE_F64, SCZ_DTYPE_F32};
    for (int di = 0; di < 2; di++) {
        scz_shape s;
        memset(&s, 0, sizeof s);
        s.dtype = dts[di];
        s.rank = 1;
        s.dims[0] = 5 * 32768 + 777;
        s.dims[1] = s.dims[2] = s.dims[3] = 1;
        size_t bytes, rb;
        uint8_t *a = gen_field(GEN_NOISY, &s, 21, &bytes);
        uint8_t *r = gen_field(GEN_RANDOM_BITS, &s, 22, &rb);
        const size_t chunk = 262144;
        for (size_t o = chunk; o < bytes; o += 2 * chunk) /* chunks 1 and 3 incompressible: stored */
            memcpy(a + o, r + o, o + chunk <= bytes ? chunk : bytes - o);
        free(r);
        scz_params p = gparams(1, chunk);
        size_t zn;
        uint8_t *z0 = tu_compress(cpu, &p, &s, a, &zn, "checksum base");
        if (!z0) {
            free(a);
            continue;
        }
        const uint32_t nc = scz__ld32(z0 + 64);
        for (uint8_t L = 10; L <= 13; L++) {
            uint8_t *z = malloc(zn);
            memcpy(z, z0, zn);
            z[68] = L;
            tu_reseal_header(z);
            for (uint32_t i = 0; i < nc; i++) tu_reseal_chunk(z, i);
            char what[160];
            snprintf(what, sizeof what, "%s, checksum blocks of 2^%u bytes", scz_dtype_name(s.dtype), L);
            n_cksum += tu_check_decode(gpu, z, zn, a, bytes, what, "GPU");
            n_cksum += tu_check_decode(gpu_small, z, zn, a, bytes, what, "GPU (small batches)");
            n_cksum += tu_check_decode(unfused, z, zn, a, bytes, what, "GPU (separate checksum pass)");
            cudatest_same_answer(cpu, gpu, z, zn, bytes, what);
            for (uint32_t i = 0; i < nc; i++) {
                scz_chunk_info ci;
                if (scz_inspect_chunk(z, zn, i, &ci) != SCZ_OK) {
                    CHECK(0, "%s: chunk %u", what, i);
                    continue;
                }
                const uint64_t B = 1ull << L;
                const uint64_t at[9] = {0, 5, 127, 128, B - 1, B, ci.size / 2, 3 * B + 17, ci.size - 1};
                for (int k = 0; k < 9; k++) {
                    if (at[k] >= ci.size || (quick && k % 3 && i % 2 == 0)) continue;
                    uint8_t *c = malloc(zn);
                    memcpy(c, z, zn);
                    c[ci.offset + at[k]] ^= 0x10;
                    char w2[240];
                    snprintf(w2, sizeof w2, "%s: chunk %u (%s) byte %llu changed, not resealed", what, i,
                             ci.codec_info ? "stored" : "coded", (unsigned long long)at[k]);
                    uint8_t *o = malloc(bytes);
                    const scz_status rc = scz_decompress(cpu, c, zn, o, bytes, NULL);
                    CHECK(rc == SCZ_ERR_CHECKSUM, "%s: CPU says %s", w2, st(rc));
                    cudatest_same_answer(cpu, gpu, c, zn, bytes, w2);
                    cudatest_same_answer(cpu, unfused, c, zn, bytes, w2);
                    if (k == 6) cudatest_same_answer(cpu, gpu_small, c, zn, bytes, w2);
                    n_cksum++;
                    free(o);
                    free(c);
                }
            }
            free(z);
        }
        count_forms(z0, zn);
        free(z0);
        free(a);
    }
    printf("checksum cases: %ld\n", n_cksum);
}

static void test_real_data(void) {
    tu_datafile *files;
    const int n = tu_data_files(&files);
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
        scz_params p = gparams(1, 0);
        compare(&files[i].shape, data, &p, 1, files[i].name);
        p = gparams(2, 1 << 20);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        free(data);
        done++;
    }
    printf("real data: %d files\n", done);
    free(files);
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
    scz_ctx *unfused = NULL; /* the runtime's separate checksum pass for every decoder */
    setenv("SCZ_CUDA_FUSED_HASH", "0", 1);
    if (scz_ctx_create(&unfused, SCZ_BACKEND_CUDA)) {
        fprintf(stderr, "context creation failed\n");
        return 1;
    }
    unsetenv("SCZ_CUDA_FUSED_HASH");
    CHECK(scz_cuda_codec_supported(SCZ_CODEC_GFC), "gfc has GPU kernels in both directions");
    test_generated();
    test_real_data();
    test_corrupt();
    test_checksums(unfused);
    printf("CPU == GPU streams: %ld of %ld byte-identical (device API %ld); GPU decodes of CPU streams exact: %ld; "
           "CPU chunks %ld coded, %ld stored\n",
           n_identical, n_streams, n_device, n_decoded, n_coded, n_stored);
    CHECK(n_coded && n_stored, "both forms reached");
    scz_ctx_destroy(unfused);
    scz_ctx_destroy(gpu_small);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(cpu);
    return tu_finish("test_cuda_gfc");
}
#endif

/*
 * test_cuda_lzss.c -- the lzss codec (FORMAT.md 11) on the GPU against the
 * CPU: the GPU writes exactly the CPU's bytes and decodes the CPU's
 * streams bit for bit (host API with default and tiny batches, device
 * API), over symbol sizes
 * 1/2/4/8, windows 1..65536 (1- and 2-byte distances), minimum matches,
 * the byte shuffle on and off, sub-chunks of 2^8..2^16 symbols (shared
 * memory and scratch buffers), every dtype, planted repeats at many
 * distances and lengths, periodic records, runs, random bytes, the
 * generated float families and every file of $SCZ_DATA_DIR; corrupted and
 * truncated streams (checksums
 * resealed) get the CPU's answer, without out-of-bounds access (run under
 * compute-sanitizer by bench/run_gpu.sh). Skipped (exit 77) without a CUDA
 * build or device.
 *
 * SCZ_TEST_QUICK=1: fewer cases (memcheck); =2: a handful (racecheck).
 */
#include "gen.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "cudatest.h"

#ifdef SCZ_TEST_CUDA

#include "cuda/backend.h"

static scz_ctx *cpu, *gpu, *gpu_small;
static int quick;
static long n_cases, n_decoded, n_device, n_identical, n_streams, n_dev_identical, n_stored, n_coded, n_corrupt;
static uint64_t rng = 0x6c7a73737563ull;
static uint64_t rnd(void) { return gen_splitmix64(&rng); }

typedef struct knobs {
    uint32_t S, W, M, shuffle, lg;
} knobs;

static scz_params lparams(knobs k, uint64_t chunk) {
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LZSS);
    p.knobs[0] = k.S;
    p.knobs[1] = k.W;
    p.knobs[2] = k.M;
    p.knobs[3] = k.shuffle;
    p.knobs[4] = k.lg;
    p.chunk_bytes = chunk;
    return p;
}

static void count_forms(const uint8_t *z, size_t zn) {
    scz_info info;
    if (scz_inspect(z, zn, &info) != SCZ_OK) return;
    for (uint32_t i = 0; i < info.num_chunks; i++) {
        scz_chunk_info ci;
        if (scz_inspect_chunk(z, zn, i, &ci) == SCZ_OK) {
            n_stored += ci.codec_info == 0;
            n_coded += ci.codec_info == 1;
        }
    }
}

/* One array and one parameter set: the GPU writes the CPU's bytes (host
 * API with default and tiny batches, device API) and decodes them. */
static void compare(const scz_shape *s, const void *data, const scz_params *p, int device_api, const char *name) {
    char what[320];
    snprintf(what, sizeof what, "%s [S %u W %u M %u shuffle %u lg %u chunk %llu]", name, p->knobs[0], p->knobs[1],
             p->knobs[2], p->knobs[3], p->knobs[4], (unsigned long long)p->chunk_bytes);
    const size_t raw = gen_bytes(s);
    size_t nc = 0, ng = 0;
    uint8_t *zc = tu_compress(cpu, p, s, data, &nc, what);
    if (!zc) return;
    count_forms(zc, nc);
    n_cases++;
    scz_ctx *gctx[2] = {gpu, gpu_small};
    for (int k = 0; k < (quick > 1 ? 1 : 2); k++) {
        int same;
        uint8_t *zg = cudatest_gpu_stream(gctx[k], k ? "small" : "default", p, s, data, zc, nc, &ng, what, &same);
        n_streams++;
        if (zg) {
            n_identical += same;
            free(zg);
        }
    }
    n_decoded += tu_check_decode(gpu, zc, nc, data, raw, what, "GPU");
    if (quick < 2) n_decoded += tu_check_decode(gpu_small, zc, nc, data, raw, what, "GPU (small batches)");
    if (device_api) { /* the CPU's bytes through the device API, and decoded there */
        int ss, ds;
        cudatest_device_api(gpu, p, s, data, raw, zc, nc, what, &ss, &ds);
        n_dev_identical += ss;
        n_device += ds;
    }
    free(zc);
}

/* Bytes with planted repeats: random runs of `pre` symbols (alphabet
 * alpha, 0 = all bytes), each followed by a copy of L symbols from d
 * symbols back, for the distances and lengths given. */
static uint64_t plant(uint8_t *b, uint64_t cap, uint32_t S, const uint32_t *ds, int nd, const uint32_t *ls, int nl,
                      unsigned alpha) {
    uint64_t pos = 0;
    for (int di = 0; di < nd; di++)
        for (int li = 0; li < nl; li++) {
            const uint64_t pre = ds[di] + 2 + rnd() % 5, L = ls[li];
            if (pos + (pre + L) * S > cap) return pos;
            for (uint64_t q = 0; q < pre * S; q++) b[pos + q] = (uint8_t)(alpha ? rnd() % alpha : rnd());
            pos += pre * S;
            const uint64_t back = (uint64_t)ds[di] * S < pos ? (uint64_t)ds[di] * S : pos;
            for (uint64_t q = 0; q < L * S; q++) b[pos + q] = b[pos + q - back];
            pos += L * S;
        }
    return pos;
}

static void test_repeats(void) {
    const uint32_t Ss[4] = {1, 2, 4, 8}, Ws[5] = {1, 24, 256, 300, 65536};
    /* SCZ_TEST_QUICK: smaller arrays (the GPU encoder searches every
     * distance: slow under compute-sanitizer) */
    const uint64_t cap = quick ? 1u << 16 : 1u << 20;
    uint8_t *b = malloc(cap);
    for (int si = 0; si < 4; si++)
        for (int wi = 0; wi < 5; wi++) {
            if (quick && ((si + wi) % 2 || wi == 4)) continue;
            const uint32_t S = Ss[si], W = Ws[wi];
            const uint32_t ds[7] = {1, 2, 3, W > 3 ? W - 1 : 1, W, W + 1, 5 * W / 4 + 1};
            const uint32_t ls[8] = {1, 2, 3, 5, 40, 255, 256, 700};
            const uint64_t n = plant(b, cap, S, ds, 7, ls, 8, wi % 2 ? 4 : 0);
            for (int v = 0; v < 4; v++) {
                if (quick > 1 && v) continue;
                const knobs k = {S, W, v == 1 ? 1u : v == 2 ? 3u : 0u, 1u + (uint32_t)(v & 1), v == 3 ? 16u : 8u + (uint32_t)v};
                const scz_params p = lparams(k, v == 2 ? 8192 + 8 : 0);
                const scz_shape s = tu_shape1(SCZ_DTYPE_U8, n);
                char name[100];
                snprintf(name, sizeof name, "planted repeats (alphabet %s)", wi % 2 ? "4" : "256");
                compare(&s, b, &p, v == 0, name);
            }
        }
    free(b);
}

/* Integer dtypes: periodic records, runs, small alphabets, random bytes,
 * lengths around a sub-chunk and the symbol size. */
static void test_integers(void) {
    const scz_dtype dts[4] = {SCZ_DTYPE_U8, SCZ_DTYPE_U16, SCZ_DTYPE_U32, SCZ_DTYPE_U64};
    const uint64_t lens[6] = {0, 1, 7, 255, 4097, 70001};
    for (int di = 0; di < 4; di++)
        for (int li = 0; li < 6; li++)
            for (int fam = 0; fam < 4; fam++) {
                if (quick && (li + fam) % 2) continue;
                const scz_shape s = tu_shape1(dts[di], lens[li]);
                const size_t raw = gen_bytes(&s);
                uint8_t *a = malloc(raw ? raw : 1);
                for (size_t i = 0; i < raw; i++) {
                    const uint64_t r = rnd();
                    a[i] = fam == 0   ? (uint8_t)((i % 37) * 7 + (i / 37) % 3)    /* periodic records */
                           : fam == 1 ? (uint8_t)((i / 53) % 5)                    /* runs */
                           : fam == 2 ? (uint8_t)(r % 3)                            /* small alphabet */
                                      : (uint8_t)r;                                 /* random */
                }
                char name[100];
                snprintf(name, sizeof name, "integers family %d %s x %llu", fam, scz_dtype_name(dts[di]),
                         (unsigned long long)lens[li]);
                const knobs k0 = {0, 0, 0, 0, 0}, k1 = {1, 300, 2, 2, 9}, k2 = {8, 4096, 1, 1, 13};
                scz_params p = lparams(k0, 0);
                compare(&s, a, &p, li == 4, name);
                if (quick < 2) {
                    p = lparams(k1, 16384);
                    compare(&s, a, &p, 0, name);
                    p = lparams(k2, 0);
                    compare(&s, a, &p, li == 5, name);
                }
                free(a);
            }
}

/* Generated float fields (shuffle on by default), every shape, f32/f64. */
static void test_floats(void) {
    const scz_dtype dts[2] = {SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    for (int di = 0; di < 2; di++)
        for (int f = 0; f < GEN_NUM_FAMILIES; f++)
            for (int si = 0; si < gen_num_shapes; si++) {
                if (quick && si % (quick > 1 ? 6 : 3)) continue;
                const scz_shape s = gen_shape(&gen_shapes[si], dts[di]);
                size_t bytes;
                void *a = gen_field((gen_family)f, &s, 500u + (unsigned)si, &bytes);
                char name[200];
                snprintf(name, sizeof name, "%s %s %s", gen_family_name((gen_family)f), gen_shapes[si].name,
                         scz_dtype_name(dts[di]));
                const knobs k0 = {0, 0, 0, 0, 0}, k1 = {2, 1024, 0, 2, 14};
                scz_params p = lparams(k0, 0);
                compare(&s, a, &p, si % 5 == 0, name);
                if (quick < 2) {
                    p = lparams(k1, 20000);
                    compare(&s, a, &p, 0, name);
                }
                free(a);
            }
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
        const knobs k0 = {0, 0, 0, 0, 0}, k1 = {4, 256, 0, 1, 12};
        scz_params p = lparams(k0, 0);
        compare(&files[i].shape, data, &p, 1, files[i].name);
        p = lparams(k1, 1 << 20);
        compare(&files[i].shape, data, &p, 0, files[i].name);
        free(data);
        done++;
    }
    printf("real data: %d files\n", done);
    free(files);
}

/* Payload bytes of chunk 0 changed (checksums resealed), chunk sizes cut
 * and grown, codec_info changed; bases with 1- and 2-byte distances, the
 * shuffle, shared-memory and scratch buffers. */
static void test_corrupt(void) {
    const struct {
        scz_dtype t;
        knobs k;
    } bases[4] = {{SCZ_DTYPE_U8, {1, 256, 3, 1, 8}},
                  {SCZ_DTYPE_F32, {0, 0, 0, 0, 0}},
                  {SCZ_DTYPE_U16, {2, 300, 1, 2, 10}},
                  {SCZ_DTYPE_F64, {4, 512, 0, 2, 13}}};
    for (int bi = 0; bi < 4; bi++) {
        const scz_shape s = tu_shape1(bases[bi].t, 6000);
        const size_t raw = gen_bytes(&s);
        uint8_t *a = malloc(raw);
        const uint32_t ds[3] = {1, 5, 200}, ls[4] = {2, 9, 60, 300};
        const uint64_t planted = plant(a, raw, 1, ds, 3, ls, 4, 3);
        for (size_t i = planted; i < raw; i++) a[i] = (uint8_t)(rnd() % 4);
        const scz_params p = lparams(bases[bi].k, 0);
        size_t zn;
        uint8_t *z = tu_compress(cpu, &p, &s, a, &zn, "corrupt base");
        scz_chunk_info ci;
        if (!z || scz_inspect_chunk(z, zn, 0, &ci) != SCZ_OK || ci.codec_info != 1) {
            CHECK(0, "corrupt base %d: chunk 0 is not coded", bi);
            free(z);
            free(a);
            continue;
        }
        const int flips = quick ? 40 : 300;
        for (int k = 0; k < flips; k++) {
            uint8_t *c = malloc(zn);
            memcpy(c, z, zn);
            const uint64_t at = ci.offset + rnd() % ci.size;
            c[at] ^= (uint8_t)(1u << (rnd() % 8));
            if (k % 3 == 0) c[at] = (uint8_t)rnd();
            tu_reseal_chunk(c, 0);
            char what[100];
            snprintf(what, sizeof what, "base %d byte %llu changed", bi, (unsigned long long)at);
            cudatest_same_answer(cpu, gpu, c, zn, gen_bytes(&s), what);
            n_corrupt++;
            free(c);
        }
        const uint64_t sizes[5] = {0, 7, ci.size / 2, ci.size - 1, ci.size + 3};
        for (int k = 0; k < 5; k++)
            for (uint32_t info = 0; info < 3; info++) {
                size_t n2;
                uint8_t *c = tu_edit_chunk(z, zn, 0, sizes[k], info, &n2);
                if (!c) continue;
                char what[100];
                snprintf(what, sizeof what, "base %d chunk 0 of %llu bytes, codec_info %u", bi,
                         (unsigned long long)sizes[k], info);
                cudatest_same_answer(cpu, gpu, c, n2, gen_bytes(&s), what);
                n_corrupt++;
                free(c);
            }
        free(z);
        free(a);
    }
    printf("corrupt streams: %ld\n", n_corrupt);
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
    CHECK(scz_cuda_codec_supported(SCZ_CODEC_LZSS), "lzss has GPU kernels in both directions");
    test_repeats();
    test_integers();
    test_floats();
    test_real_data();
    test_corrupt();
    printf("cases %ld; CPU == GPU streams: %ld of %ld byte-identical (device API %ld); GPU decodes of CPU streams "
           "exact: %ld (device API %ld); CPU chunks %ld coded, %ld stored\n",
           n_cases, n_identical, n_streams, n_dev_identical, n_decoded, n_device, n_coded, n_stored);
    CHECK(n_coded && n_stored, "both chunk forms reached");
    scz_ctx_destroy(gpu_small);
    scz_ctx_destroy(gpu);
    scz_ctx_destroy(cpu);
    return tu_finish("test_cuda_lzss");
}
#endif

/*
 * test_ndzip_format.c -- checks that the ndzip payload the library writes is
 * exactly what docs/FORMAT.md section 6 specifies, using a deliberately
 * naive reference encoder written from the text alone (inclusion-exclusion
 * Lorenzo residuals, bit-by-bit transposition) and the stored rule of 6.7.
 * The CUDA implementation is held to the same bytes, so this pins the
 * specification itself.
 */
#include "format/container.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

typedef struct { uint8_t *p; size_t n, cap; } buf;

static void put(buf *b, uint64_t v, unsigned bytes) {
    if (b->n + bytes > b->cap) {
        b->cap = (b->n + bytes) * 2;
        b->p = realloc(b->p, b->cap);
    }
    for (unsigned i = 0; i < bytes; i++) b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static uint64_t bits_of(const void *src, size_t i, unsigned W) {
    if (W == 32) { uint32_t u; memcpy(&u, (const uint8_t *)src + 4 * i, 4); return u; }
    uint64_t u; memcpy(&u, (const uint8_t *)src + 8 * i, 8); return u;
}

/* Reference encoding of one chunk (dims fastest first, rank <= 3). */
static buf reference(const void *src, const uint64_t *dims, unsigned rank, unsigned W) {
    const uint64_t mask = W == 64 ? ~0ull : 0xffffffffull;
    uint64_t e[3] = {1, 1, 1};
    unsigned n = 0;
    for (unsigned d = 0; d < rank; d++) if (dims[d] != 1) e[n++] = dims[d];
    if (!n) n = 1;
    /* thin axes (2 * extent < side) merge with the next axis, or the
     * previous one for the last axis, until none is left */
    for (;;) {
        unsigned side_n = n == 1 ? 4096 : n == 2 ? 64 : 16, k;
        if (n == 1) break;
        for (k = 0; k < n; k++) if (2 * e[k] < side_n) break;
        if (k == n) break;
        unsigned a = k + 1 < n ? k : k - 1;
        e[a] *= e[a + 1];
        if (a + 2 < n) e[a + 1] = e[a + 2];
        e[--n] = 1;
    }
    const unsigned s = n == 1 ? 4096 : n == 2 ? 64 : 16;
    unsigned side[3] = {s, n >= 2 ? s : 1, n >= 3 ? s : 1};
    uint64_t nb[3];
    for (int k = 0; k < 3; k++) nb[k] = (e[k] + side[k] - 1) / side[k];
    uint64_t H = nb[0] * nb[1] * nb[2];
    buf table = {0}, data = {0};
    uint64_t *m = malloc(4096 * sizeof *m), *q = malloc(4096 * sizeof *q);
    for (uint64_t h = 0; h < H; h++) {
        uint64_t b[3] = {h % nb[0], (h / nb[0]) % nb[1], h / nb[0] / nb[1]};
        /* 6.1 + 6.2: mapped values with edge replication */
        for (unsigned l = 0; l < 4096; l++) {
            unsigned lc[3] = {l % side[0], (l / side[0]) % side[1], l / side[0] / side[1]};
            uint64_t g[3];
            for (int k = 0; k < 3; k++) {
                g[k] = b[k] * side[k] + lc[k];
                if (g[k] >= e[k]) g[k] = e[k] - 1;
            }
            uint64_t u = bits_of(src, (g[2] * e[1] + g[1]) * e[0] + g[0], W);
            m[l] = ((u << 1) | (u >> (W - 1))) & mask;
        }
        /* 6.3 by inclusion-exclusion over the axes with l_k > 0 */
        for (unsigned l = 0; l < 4096; l++) {
            unsigned lc[3] = {l % side[0], (l / side[0]) % side[1], l / side[0] / side[1]};
            uint64_t r = 0;
            for (unsigned S = 0; S < 8; S++) {
                int ok = 1, odd = 0;
                unsigned ll = l;
                unsigned stride[3] = {1, side[0], side[0] * side[1]};
                for (int k = 0; k < 3; k++)
                    if (S >> k & 1) {
                        if (lc[k] == 0) ok = 0;
                        odd ^= 1;
                        ll -= stride[k];
                    }
                if (!ok) continue;
                r = odd ? r - m[ll] : r + m[ll];
            }
            r &= mask;
            /* 6.4 */
            if (r >> (W - 1)) r ^= (mask >> 1);
            q[l] = r;
        }
        /* 6.5 bit by bit */
        unsigned G = 4096 / W;
        buf cols = {0};
        uint64_t start = data.n;
        uint64_t *heads = calloc(G, sizeof *heads);
        for (unsigned grp = 0; grp < G; grp++) {
            for (unsigned c = 0; c < W; c++) {
                uint64_t word = 0;
                for (unsigned i = 0; i < W; i++)
                    if ((q[grp * W + i] >> (W - 1 - c)) & 1) word |= 1ull << (W - 1 - i);
                if (word) {
                    heads[grp] |= 1ull << (W - 1 - c);
                    put(&cols, word, W / 8);
                }
            }
        }
        for (unsigned grp = 0; grp < G; grp++) put(&data, heads[grp], W / 8);
        for (size_t i = 0; i < cols.n; i++) put(&data, cols.p[i], 1);
        (void)start;
        free(cols.p);
        free(heads);
        put(&table, data.n, 4);
    }
    for (size_t i = 0; i < data.n; i++) put(&table, data.p[i], 1);
    free(data.p);
    free(m);
    free(q);
    return table;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Kinds: 0 smooth; 1 smooth + noise; 2 as 1 with sign changes; 3 as 1 with
 * random bit patterns (NaN payloads too); 4 random bits (stored); 5 linear
 * in the mapped integers (6.2), whose residuals (6.3) vanish inside the
 * array, so that every shape also compares a coded payload, edge padding
 * included. */
#define NKINDS 6
static void fill(void *p, size_t count, unsigned W, int kind) {
    for (size_t i = 0; i < count; i++) {
        double x = sin(0.01 * (double)i) * 100 + (kind && kind < 5 ? (double)(next() % 1000) * 1e-3 : 0);
        if (kind == 2 && i % 97 == 0) x = -x; /* sign changes */
        if (W == 32) {
            float f = (float)x;
            if ((kind == 3 && i % 13 == 0) || kind == 4) { uint32_t u = (uint32_t)next(); memcpy(&f, &u, 4); }
            if (kind == 5) { uint32_t m = 0x80000000u + 3u * (uint32_t)i, u = m >> 1 | m << 31; memcpy(&f, &u, 4); }
            memcpy((uint8_t *)p + 4 * i, &f, 4);
        } else {
            if ((kind == 3 && i % 13 == 0) || kind == 4) { uint64_t u = next(); memcpy(&x, &u, 8); }
            if (kind == 5) { uint64_t m = (1ull << 63) + 3u * (uint64_t)i, u = m >> 1 | m << 63; memcpy(&x, &u, 8); }
            memcpy((uint8_t *)p + 8 * i, &x, 8);
        }
    }
}

/* A single-chunk stream whose payload is replaced by `pay` (n bytes) with
 * the given codec_info, checksums recomputed; decodes it and returns 1 if
 * that gives back src exactly. */
static int decodes_to(scz_ctx *ctx, const uint8_t *z, const scz_chunk_info *ci, const uint8_t *pay, size_t n,
                      uint32_t info, const void *src, size_t rawn) {
    uint8_t *c = malloc((size_t)ci->offset + n + 1), *out = malloc(rawn + 1);
    memcpy(c, z, (size_t)ci->offset);
    memcpy(c + ci->offset, pay, n);
    uint8_t *e = c + SCZ_HEADER_SIZE;
    for (int i = 0; i < 8; i++) e[8 + i] = (uint8_t)((uint64_t)n >> (8 * i));
    for (int i = 0; i < 4; i++) e[24 + i] = (uint8_t)(info >> (8 * i));
    tu_reseal_chunk(c, 0);
    scz_status st = scz_decompress(ctx, c, (size_t)ci->offset + n, out, rawn, NULL);
    int ok = st == SCZ_OK && memcmp(out, src, rawn) == 0;
    free(c);
    free(out);
    return ok;
}

typedef struct shape_def {
    unsigned rank;
    uint64_t d[3];
} shape_def;

int main(void) {
    static const shape_def fixed[] = {
        {1, {5000, 1, 1}}, {1, {1, 1, 1}}, {2, {70, 65, 1}}, {2, {64, 64, 1}},
        {3, {17, 16, 18}}, {3, {16, 1, 33}}, {3, {1, 1, 10}}, {3, {20, 3, 5}},
        {3, {8, 8, 40}}, {3, {40, 7, 9}}, {2, {31, 100, 1}}, {3, {2, 2, 300}},
    };
    /* Boundaries (issue of fixed periods): hypercube sides 4096 / 64 / 16
     * per axis and packing groups of 32 / 64 values, at k*period - 1,
     * k*period, k*period + 1 for k = 1, 2, 3. */
    shape_def shapes[200];
    size_t ns = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) shapes[ns++] = fixed[i];
    for (uint64_t k = 1; k <= 3; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t e1 = k * 4096 + (uint64_t)(int64_t)d, e2 = k * 64 + (uint64_t)(int64_t)d,
                     e3 = k * 16 + (uint64_t)(int64_t)d, g = k * 32 + (uint64_t)(int64_t)d;
            shapes[ns++] = (shape_def){1, {e1, 1, 1}};
            shapes[ns++] = (shape_def){1, {g, 1, 1}};
            shapes[ns++] = (shape_def){1, {2 * g, 1, 1}};
            shapes[ns++] = (shape_def){2, {e2, 64, 1}};
            shapes[ns++] = (shape_def){2, {64, e2, 1}};
            shapes[ns++] = (shape_def){3, {e3, e3, e3}};
            shapes[ns++] = (shape_def){3, {16, 16, e3}};
            shapes[ns++] = (shape_def){3, {e3, 16, 16}};
        }
    scz_ctx *ctx, *ctx2;
    int n_stored = 0, n_cases = 0;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    scz_ctx_create(&ctx2, SCZ_BACKEND_CPU);
    scz_ctx_set_threads(ctx, 1);
    scz_ctx_set_threads(ctx2, 2);
    for (unsigned W = 32; W <= 64; W += 32) {
        for (size_t si = 0; si < ns; si++) {
            for (int kind = 0; kind < NKINDS; kind++) {
                if (si >= sizeof fixed / sizeof fixed[0] && kind == NKINDS - 1) continue; /* keep it quick */
                scz_shape sh = {W == 32 ? SCZ_DTYPE_F32 : SCZ_DTYPE_F64, shapes[si].rank, {1, 1, 1, 1}};
                size_t count = 1;
                for (unsigned d = 0; d < shapes[si].rank; d++) {
                    sh.dims[d] = shapes[si].d[d];
                    count *= shapes[si].d[d];
                }
                const size_t rawn = count * W / 8;
                void *src = malloc(rawn);
                fill(src, count, W, kind);
                scz_params p;
                scz_params_init(&p, SCZ_CODEC_NDZIP);
                size_t cap = scz_compress_bound(&sh, &p), zs = 0;
                uint8_t *z = malloc(cap);
                scz_status st = scz_compress(ctx, &p, &sh, src, z, cap, &zs);
                CHECK(st == SCZ_OK, "compress: %s", scz_ctx_last_error(ctx));
                size_t zs2 = 0;
                uint8_t *z2 = malloc(cap);
                st = scz_compress(ctx2, &p, &sh, src, z2, cap, &zs2);
                CHECK(st == SCZ_OK && zs2 == zs && !memcmp(z, z2, zs), "W=%u shape %zu kind %d: 1 and 2 threads differ",
                      W, si, kind);
                free(z2);
                scz_chunk_info ci;
                CHECK(scz_inspect_chunk(z, zs, 0, &ci) == SCZ_OK, "inspect");
                buf ref = reference(src, shapes[si].d, shapes[si].rank, W);
                /* 6.7: stored when the coded payload is not smaller */
                const uint32_t want_info = ref.n >= rawn;
                n_stored += want_info;
                CHECK(ci.codec_info == want_info, "W=%u shape %zu kind %d: codec_info %u, FORMAT.md 6.7 says %u", W,
                      si, kind, ci.codec_info, want_info);
                const uint8_t *want = want_info ? (const uint8_t *)src : ref.p;
                const size_t want_n = want_info ? rawn : ref.n;
                CHECK(ci.size == want_n && memcmp(z + ci.offset, want, want_n) == 0,
                      "W=%u shape %zu kind %d: payload differs from the FORMAT.md reference (%llu vs %zu bytes)",
                      W, si, kind, (unsigned long long)ci.size, want_n);
                /* readers take the reference's coded form whatever its size
                 * (streams written before 6.7 hold such chunks) */
                CHECK(decodes_to(ctx, z, &ci, ref.p, ref.n, 0, src, rawn),
                      "W=%u shape %zu kind %d: the reference's coded payload (%zu bytes, raw %zu) does not decode", W,
                      si, kind, ref.n, rawn);
                free(ref.p);
                free(z);
                free(src);
                n_cases++;
            }
        }
    }
    /* both forms of 6.7 were compared */
    printf("%d payloads, %d of them stored\n", n_cases, n_stored);
    CHECK(n_stored > 0 && n_stored < n_cases, "stored and coded payloads both occur (%d of %d stored)", n_stored,
          n_cases);
    scz_ctx_destroy(ctx);
    scz_ctx_destroy(ctx2);
    return tu_finish("test_ndzip_format");
}

/*
 * test_xxh64.c -- the project's XXH64 (src/util/xxh64.h, used by the CPU and
 * the GPU for every checksum of docs/FORMAT.md section 5) against reference
 * values computed by the reference xxHash implementation, and, when the
 * build found libxxhash, against libxxhash on many lengths, seeds and
 * alignments. Also the blocked checksum's streaming over block hashes
 * against its definition.
 */
#include "testutil.h"

#include "format/container.h"
#include "util/xxh64.h"

#include <string.h>

#ifdef SCZ_TEST_LIBXXHASH
#include <xxhash.h>
#endif

/* bytes ((i * 2654435761) >> 13) & 255 */
static void fill(uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(((uint64_t)i * 2654435761u) >> 13);
}

int main(void) {
    /* Reference values (seed 0 and seed 0x9E3779B97F4A7C15) of the buffer
     * above, from the reference xxHash implementation. */
    static const struct {
        size_t n;
        uint64_t h0, hs;
    } ref[] = {
        {0, 0xef46db3751d8e999ull, 0xc4349fc93c010000ull},    {1, 0xe934a84adb052768ull, 0x126bb57a12364aa5ull},
        {3, 0x28823e205e353f69ull, 0x3c78e47f8d9d625full},    {4, 0x91b65bbe720c34cfull, 0x4fb638bfcfa1c0ccull},
        {7, 0xe2400cdea02ee3c5ull, 0x037801de732c7eb3ull},    {8, 0x521fd2878ea69d17ull, 0x87c89248cf142c8bull},
        {12, 0x3fb737ea78f531bbull, 0xc0a6c2b770e85451ull},   {31, 0xb74baa9042b94deeull, 0x2c8fa6d44ca89e82ull},
        {32, 0x4e13111ced6f735dull, 0x3a5e73ddfe641a94ull},   {33, 0xf7b9faf20b3bce63ull, 0xdccfc8b6e6f78f10ull},
        {63, 0x35f935e6044a08adull, 0xb3fcaa593c0c5edfull},   {64, 0xcd91daec2c21766full, 0xb43fbd19c995f89full},
        {100, 0xd61ea92c5ae13676ull, 0x9173a732d3c67513ull},  {1000, 0xb260521730b6d8d9ull, 0x9608eb63a94c7337ull},
        {4096, 0x04bfc7ca6498362aull, 0x9ed5980f8f44167dull},
    };
    static uint8_t buf[1 << 16];
    fill(buf, sizeof buf);
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        CHECK(scz_xxh64(buf, ref[i].n, 0) == ref[i].h0, "length %zu seed 0", ref[i].n);
        CHECK(scz_xxh64(buf, ref[i].n, 0x9E3779B97F4A7C15ull) == ref[i].hs, "length %zu seeded", ref[i].n);
    }
    CHECK(scz_xxh64((const uint8_t *)"abc", 3, 0) == 0x44bc2cf5ad770999ull, "\"abc\"");

    /* Word form = byte form over little-endian words. */
    uint64_t w[40];
    for (unsigned n = 0; n <= 40; n++) {
        uint8_t le[320];
        for (unsigned k = 0; k < n; k++) {
            w[k] = scz_xxh64(buf + k, 17 + k, k);
            scz__st64(le + 8 * k, w[k]);
        }
        CHECK(scz_xxh64_words(w, n, 0) == scz_xxh64(le, 8ull * n, 0), "%u words", n);
    }

    /* Blocked checksum (FORMAT.md 5) = XXH64 over the LE64 block hashes, for
     * block counts around the streaming group of 512 (and 4-word stripes). */
    static const uint64_t nblocks[] = {0, 1, 3, 4, 5, 511, 512, 513, 1023, 1024, 1025, 1536, 1539};
    for (size_t i = 0; i < sizeof nblocks / sizeof nblocks[0]; i++)
        for (int extra = -1; extra <= 1; extra++) {
            uint64_t nb = nblocks[i];
            if (nb == 0 && extra) continue;
            uint64_t n = nb * 32 + (uint64_t)(extra < 0 ? -20 : extra * 7); /* 32-byte blocks */
            if (nb == 0) n = 0;
            uint8_t *p = buf; /* n <= 1539*32+7 < 65536 */
            uint64_t nbb = (n + 31) / 32;
            uint8_t *cat = malloc(nbb * 8 + 1);
            for (uint64_t b = 0; b < nbb; b++) scz__st64(cat + 8 * b, scz_xxh64(p + 32 * b, n - 32 * b < 32 ? n - 32 * b : 32, 0));
            uint64_t want = scz_xxh64(cat, nbb * 8, 0);
            for (int t = 1; t <= 2; t++)
                CHECK(scz__checksum(p, n, 5, t) == want, "blocked checksum of %llu bytes, %d threads",
                      (unsigned long long)n, t);
            free(cat);
        }

    /* Larger blocks (2^6..2^13 bytes; the vector path hashes 8 whole
     * blocks at a time where the CPU has AVX-512): sizes around groups of
     * 8 and of 512 blocks, partial last blocks, unaligned starts. */
    {
        const size_t big = (size_t)1100 * 4096 + 64;
        uint8_t *q = malloc(big);
        for (size_t i = 0; i < big; i++) q[i] = (uint8_t)((i * 2654435761u) >> 11 ^ i);
        static const unsigned logs[] = {6, 10, 12, 13};
        for (size_t li = 0; li < 4; li++) {
            const uint64_t bs = 1ull << logs[li];
            const uint64_t counts[] = {1, 7, 8, 9, 16, 17, 511, 512, 513, 520};
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int extra = -1; extra <= 1; extra++) {
                    const uint64_t n = counts[ci] * bs + (uint64_t)(extra < 0 ? -(int64_t)(bs / 3) : extra * 5);
                    const size_t off = (size_t)(ci + li) % 8;
                    if (n + off > big) continue;
                    const uint8_t *p = q + off;
                    const uint64_t nbb = (n + bs - 1) / bs;
                    uint8_t *cat = malloc(nbb * 8 + 1);
                    for (uint64_t b = 0; b < nbb; b++)
                        scz__st64(cat + 8 * b, scz_xxh64(p + bs * b, n - bs * b < bs ? n - bs * b : bs, 0));
                    const uint64_t want = scz_xxh64(cat, nbb * 8, 0);
                    for (int t = 1; t <= 2; t++)
                        CHECK(scz__checksum(p, n, logs[li], t) == want,
                              "blocked checksum of %llu bytes, blocks of %llu, +%zu, %d threads",
                              (unsigned long long)n, (unsigned long long)bs, off, t);
                    free(cat);
                }
        }
        free(q);
    }

#ifdef SCZ_TEST_LIBXXHASH
    /* Against libxxhash: every length 0..600 at every alignment 0..7, and
     * long inputs, several seeds. */
    const uint64_t seeds[] = {0, 1, 0x9E3779B97F4A7C15ull, ~0ull};
    for (size_t s = 0; s < 4; s++)
        for (size_t a = 0; a < 8; a++)
            for (size_t n = 0; n <= 600; n++)
                CHECK(scz_xxh64(buf + a, n, seeds[s]) == XXH64(buf + a, n, seeds[s]), "libxxhash: %zu at +%zu", n, a);
    for (size_t n = 1000; n <= sizeof buf - 8; n = n * 3 + 11)
        CHECK(scz_xxh64(buf + 3, n, 7) == XXH64(buf + 3, n, 7), "libxxhash: %zu bytes", n);
    printf("test_xxh64: compared with libxxhash\n");
#else
    printf("test_xxh64: skipped: libxxhash not installed (the comparison with it; reference values checked)\n");
#endif
    return tu_finish("test_xxh64");
}

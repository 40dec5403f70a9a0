/*
 * gen_field.c -- writes a large float32 field to stdout for
 * bench/large_file.sh: a smooth 3D field (separable sines and a slow trend
 * along z) plus uniform noise of 1e-3, NX x NY x NZ values, fastest first,
 * one z-slice at a time (memory: one slice). Deterministic. At the end it
 * prints "MIN MAX" of the values (exact, %.9g) to stderr.
 *
 *   cc -O2 -o gen_field bench/gen_field.c -lm
 *   ./gen_field 2048 2048 1664 > field.f32        # 26 GiB
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: gen_field NX NY NZ [SEED] > FILE.f32\n");
        return 1;
    }
    uint64_t nx = strtoull(argv[1], NULL, 10), ny = strtoull(argv[2], NULL, 10), nz = strtoull(argv[3], NULL, 10);
    uint64_t s = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
    if (!nx || !ny || !nz) return 1;
    const double tau = 6.283185307179586;
    float *sx = malloc(nx * sizeof *sx), *cy = malloc(ny * sizeof *cy), *slice = malloc(nx * ny * sizeof *slice);
    if (!sx || !cy || !slice) return 1;
    for (uint64_t x = 0; x < nx; x++) sx[x] = (float)sin(tau * 3.0 * (double)x / (double)nx);
    for (uint64_t y = 0; y < ny; y++) cy[y] = (float)cos(tau * 2.0 * (double)y / (double)ny);
    float lo = INFINITY, hi = -INFINITY;
    s = s * 0x9E3779B97F4A7C15ull + 1;
    for (uint64_t z = 0; z < nz; z++) {
        float tz = (float)(0.25 * sin(tau * (double)z / (double)nz));
        for (uint64_t y = 0; y < ny; y++) {
            float *row = slice + y * nx;
            for (uint64_t x = 0; x < nx; x++) {
                s ^= s << 13; /* xorshift64 */
                s ^= s >> 7;
                s ^= s << 17;
                float u = (float)((double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0);
                float v = sx[x] * cy[y] + tz + 1e-3f * u;
                row[x] = v;
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
        }
        if (fwrite(slice, sizeof *slice, nx * ny, stdout) != nx * ny) {
            perror("gen_field: write");
            return 1;
        }
    }
    if (fflush(stdout) != 0) return 1;
    fprintf(stderr, "%.9g %.9g\n", lo, hi);
    return 0;
}

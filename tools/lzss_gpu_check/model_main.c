/* model_main.c -- drives model.c: the C model of the GPU lzss encoder
 * against the reference encoder on mirror-tiled slices of the data files
 * (like the benchmark inputs; mode 1), the data files with default knobs
 * (2), knob variants and synthetic data (3); 0: all. Prints the model's
 * step counts (a cost estimate of the kernel) after each group.
 *   model_main [MODE] [DATA_DIR] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int model_check(const uint8_t *raw, uint64_t R, uint32_t E, const uint32_t k[6], const char *what);
void model_stats(void);
static uint64_t rs = 12345;
static uint64_t rnd(void) { uint64_t z = (rs += 0x9E3779B97F4A7C15ull); z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static uint8_t *readf(const char *p, uint64_t *n) { FILE *f = fopen(p, "rb"); if (!f) return 0; fseek(f, 0, 2); *n = ftell(f); fseek(f, 0, 0); uint8_t *b = malloc(*n + 1); fread(b, 1, *n, f); fclose(f); return b; }
static int mi(int i, int n) { int per = 2 * (n - 1); i %= per; return i < n ? i : per - i; }
static int fails, checks;
static void chk(const uint8_t *raw, uint64_t R, uint32_t E, uint32_t S, uint32_t W, uint32_t M, uint32_t sh, uint32_t lg, const char *what) {
    uint32_t k[6] = {S, W, M ? M : (W <= 256 ? 2 : 3) / S + 1, sh, lg, 0};
    char buf[256]; snprintf(buf, sizeof buf, "%s S%u W%u M%u sh%u lg%u", what, S, W, k[2], sh, lg);
    checks++;
    if (!model_check(raw, R, E, k, buf)) fails++;
}
int main(int argc, char **argv) {
    const char *dir = argc > 2 ? argv[2] : "../shared/data";
    const char *f32[] = {"sperr_wmag_91x91x91.f32", "sperr_vorticity3d_41x128x128.f32", "sperr_field_999x999.f32", "sperr_vorticity2d_512x512.f32", "cesm_trefht_b06_66_110x64x128.f32", "ncep_climo_T_17x64x128.f32", "tos_24x170x180.f32", "l1448_13co_53x105x105.f32"};
    const char *f64[] = {"sperr_pressure_384x384.f64", "mpas_surface_pressure_163842.f64", "gc_msx_e_149x149.f64", "iris_lcc_tas_12x60x60.f64"};
    char p[512]; uint64_t n;
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    if (mode == 0 || mode == 1) { /* tiled benchmark inputs, slices */
        uint64_t wn; snprintf(p, sizeof p, "%s/%s", dir, f32[0]); float *w = (float *)readf(p, &wn);
        uint64_t cnt = 4ull * 512 * 512; float *t = malloc(cnt * 4);
        for (int z = 0; z < 4; z++) for (int y = 0; y < 512; y++) for (int x = 0; x < 512; x++)
            t[((uint64_t)z * 512 + y) * 512 + x] = w[((uint64_t)mi(z + 200, 91) * 91 + mi(y, 91)) * 91 + mi(x, 91)];
        chk((uint8_t *)t, cnt * 4, 4, 4, 256, 0, 2, 12, "tiled_wmag"); model_stats();
        snprintf(p, sizeof p, "%s/%s", dir, f64[0]); double *pr = (double *)readf(p, &wn);
        cnt = 64ull * 8192; double *tp = malloc(cnt * 8);
        for (int y = 0; y < 64; y++) for (int x = 0; x < 8192; x++) tp[(uint64_t)y * 8192 + x] = pr[(uint64_t)mi(y + 1000, 384) * 384 + mi(x, 384)];
        chk((uint8_t *)tp, cnt * 8, 8, 4, 256, 0, 2, 12, "tiled_pressure"); model_stats();
        snprintf(p, sizeof p, "%s/%s", dir, f64[1]); double *mp = (double *)readf(p, &wn);
        cnt = 1ull << 19; double *tm = malloc(cnt * 8);
        for (uint64_t i = 0; i < cnt; i++) tm[i] = mp[mi((int)(i + 100000), 163842)];
        chk((uint8_t *)tm, cnt * 8, 8, 4, 256, 0, 2, 12, "tiled_mpas"); model_stats();
    }
    if (mode == 0 || mode == 2) { /* data files, default knobs */
        for (int i = 0; i < 8; i++) { snprintf(p, sizeof p, "%s/%s", dir, f32[i]); uint8_t *b = readf(p, &n); chk(b, n, 4, 4, 256, 0, 2, 12, f32[i]); free(b); }
        for (int i = 0; i < 4; i++) { snprintf(p, sizeof p, "%s/%s", dir, f64[i]); uint8_t *b = readf(p, &n); chk(b, n, 8, 4, 256, 0, 2, 12, f64[i]); free(b); }
        model_stats();
    }
    if (mode == 0 || mode == 3) { /* knob variants on slices and synthetic data */
        snprintf(p, sizeof p, "%s/%s", dir, f32[0]); uint8_t *b = readf(p, &n);
        const uint32_t Ss[] = {1, 2, 4, 8}, Ws[] = {1, 2, 7, 45, 256, 300, 4096};
        for (int si = 0; si < 4; si++) for (int wi = 0; wi < 7; wi++) for (uint32_t sh = 1; sh <= 2; sh++) for (int mv = 0; mv < 3; mv++) {
            uint32_t M = mv == 0 ? 0 : mv == 1 ? 1 : 4;
            chk(b + 100000, 300000, 4, Ss[si], Ws[wi], M, sh, si == 3 ? 10 : 8 + (uint32_t)wi, "wmag-part");
        }
        free(b);
        /* synthetic */
        uint64_t N = 1 << 18; uint8_t *s = malloc(N + 64);
        for (int fam = 0; fam < 8; fam++) {
            for (uint64_t i = 0; i < N; i++) {
                switch (fam) {
                case 0: s[i] = 7; break;                                   /* constant */
                case 1: s[i] = (uint8_t)((i / (1 + (i >> 9) % 300)) & 1); break; /* runs of varying length */
                case 2: s[i] = (uint8_t)(rnd() % 3); break;                /* small alphabet */
                case 3: s[i] = i < 37 ? (uint8_t)rnd() : s[i - 37]; break; /* periodic */
                case 4: s[i] = (uint8_t)rnd(); break;                      /* random */
                case 5: s[i] = (rnd() % 50) ? 0 : (uint8_t)rnd(); break;  /* sparse */
                case 6: s[i] = (i / 4096) & 1 ? (uint8_t)(i % 5) : (uint8_t)((i >> 3) % 3); break;
                default: { uint64_t r = rnd(); s[i] = (r % 4 == 0 && i > 300) ? s[i - 1 - (r >> 8) % 300] : (uint8_t)(r >> 20) % 4; } /* repeats */
                }
            }
            for (int si = 0; si < 4; si++) for (int v = 0; v < 6; v++) {
                const uint32_t W = v == 0 ? 256 : v == 1 ? 1 : v == 2 ? 3 : v == 3 ? 300 : v == 4 ? 65536 : 17;
                const uint32_t M = v == 5 ? 2 : v == 3 ? 5 : 0;
                const uint32_t lg = v == 4 ? 14 : v == 3 ? 16 : 9 + (uint32_t)v % 3;
                uint64_t R = v == 4 ? 40000 : N - (uint64_t)(rnd() % 13);
                uint32_t E = si == 0 ? 1 : Ss[si];
                R -= R % E;
                char w[64]; snprintf(w, sizeof w, "synthetic%d", fam);
                chk(s, R, E, Ss[si], W, M, 1 + (uint32_t)(v & 1), lg, w);
            }
        }
        model_stats();
    }
    printf("%d checks, %d failures\n", checks, fails);
    return fails != 0;
}

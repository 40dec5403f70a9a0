/*
 * make_seeds.c -- writes the seed corpora of the fuzz targets:
 *
 *   fuzz_seeds OUTDIR [--tiny]
 *
 * creates OUTDIR/fuzz_decode, fuzz_chunk, fuzz_codec and fuzz_roundtrip and
 * fills them with inputs in each target's layout (docs/FUZZING.md): streams
 * of every codec and dtype compressed from small generated arrays
 * (tests/support/gen.c: smooth, noisy, constant, sparse, spiky, special
 * values, random bits, fill values; ranks 1-4; one and several chunks;
 * lossy with ABS/REL/PSNR, both workflows, small radii, stored chunks;
 * huffman u8/u16/u32) and from small windows of the real fields in
 * $SCZ_DATA_DIR (default ../shared/data) when present. fuzz_codec gets
 * each chunk's payload with its header fields, fuzz_roundtrip the
 * parameters and the array. Inputs
 * above 64 KiB are left out (the fuzz runs use -max_len 65536).
 * --tiny writes only a few inputs of under 2 KiB per target (the ones
 * committed in tests/fuzz/seeds).
 */
#include "format/container.h"
#include "gen.h"
#include "internal.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_INPUT 65536u

static const char *outdir;
static int tiny;
static size_t max_input = MAX_INPUT;
static int written[4];
static const char *const targets[4] = {"fuzz_decode", "fuzz_chunk", "fuzz_codec", "fuzz_roundtrip"};
static scz_ctx *ctx;

static void mkdir_p(const char *p) {
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "fuzz_seeds: cannot create %s\n", p);
        exit(1);
    }
}

static void put(int target, const char *name, const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    if (an + bn > max_input) return;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s/%s", outdir, targets[target], name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, an, f) != an || (bn && fwrite(b, 1, bn, f) != bn) || fclose(f) != 0) {
        fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
        exit(1);
    }
    written[target]++;
}

static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

static int dtype_index(scz_codec c, scz_dtype t) {
    int k = 0;
    for (int d = SCZ_DTYPE_F32; d <= SCZ_DTYPE_U64; d++) {
        if (!scz_codec_accepts(c, (scz_dtype)d)) continue;
        if (d == (int)t) return k;
        k++;
    }
    return 0;
}

/* fuzz_roundtrip input: its 24-byte parameter block, then the array. */
static void roundtrip_seed(const char *name, const scz_params *p, const scz_shape *s, const void *src, size_t raw) {
    uint8_t h[24];
    memset(h, 0, sizeof h);
    h[0] = (uint8_t)(p->codec - 1);
    h[1] = (uint8_t)dtype_index(p->codec, s->dtype);
    h[2] = (uint8_t)(s->rank - 1);
    for (unsigned i = 0; i < s->rank; i++) {
        if (s->dims[i] > 65535) return;
        st16(h + 3 + 2 * i, (uint16_t)s->dims[i]);
    }
    h[11] = (uint8_t)(p->eb_mode ? p->eb_mode - 1 : 0);
    scz__stf64(h + 12, p->eb);
    h[20] = (uint8_t)(p->chunk_bytes >> 10 > 255 ? 0 : p->chunk_bytes >> 10);
    st16(h + 21, (uint16_t)p->knobs[0]);
    h[23] = (uint8_t)p->knobs[1];
    if (p->codec == SCZ_CODEC_LOSSY) h[23] |= (uint8_t)(p->knobs[2] << 7); /* fuzz_roundtrip.c: level in bit 7 */
    if (p->codec == SCZ_CODEC_LZSS) { /* fuzz_roundtrip.c's lzss knob bytes */
        unsigned sb = 0;
        for (unsigned k = 1; k <= 4; k++)
            if (p->knobs[0] == 1u << (k - 1)) sb = k;
        h[21] = (uint8_t)sb;
        memset(h + 12, 0, 8);
        st16(h + 12, (uint16_t)(p->knobs[1] > 65535 ? 0 : p->knobs[1]));
        h[23] = (uint8_t)p->knobs[2];
        h[11] = (uint8_t)p->knobs[3];
        h[22] = (uint8_t)(p->knobs[4] ? p->knobs[4] - 7 : 0);
    }
    put(3, name, h, sizeof h, src, raw);
    if (!tiny && raw > 64) { /* also: a short pattern repeated (threads bits set) */
        h[2] |= 0xC0;
        char nm[400];
        snprintf(nm, sizeof nm, "%s_rep", name);
        put(3, nm, h, sizeof h, src, 64);
    }
}

/* Compresses src and writes the stream (fuzz_decode, fuzz_chunk with
 * control bytes 0 and 7), its chunks (fuzz_codec) and the round-trip input. */
static void emit(const char *name, const scz_params *p, const scz_shape *s, const void *src) {
    size_t raw = (size_t)scz_shape_count(s) * scz_dtype_size(s->dtype);
    if (s->rank && scz_shape_count(s) == 0) raw = 0;
    roundtrip_seed(name, p, s, src, raw);
    size_t bound = scz_compress_bound(s, p), n = 0;
    if (!bound) return;
    uint8_t *z = malloc(bound + 1);
    scz_status st = scz_compress(ctx, p, s, src, z + 1, bound, &n);
    if (st != SCZ_OK) {
        fprintf(stderr, "fuzz_seeds: %s: %s (%s)\n", name, scz_status_string(st), scz_ctx_last_error(ctx));
        exit(1);
    }
    char nm[400];
    const unsigned ctls[2] = {0, 7};
    for (int k = 0; k < (tiny ? 1 : 2); k++) {
        z[0] = (uint8_t)ctls[k];
        snprintf(nm, sizeof nm, "%s_c%u", name, ctls[k]);
        put(0, nm, z, n + 1, NULL, 0);
        put(1, nm, z, n + 1, NULL, 0);
    }
    /* chunks for fuzz_codec */
    scz_header h;
    if (scz__header_read(NULL, z + 1, n, &h) != SCZ_OK) exit(1);
    for (uint32_t i = 0; i < h.num_chunks && i < 3; i++) {
        scz_chunk_geom g;
        scz_chunk_info ci;
        scz__chunk_geom(&h, i, &g, NULL, NULL);
        if (scz_inspect_chunk(z + 1, n, i, &ci) != SCZ_OK) exit(1);
        int fits = 1;
        for (unsigned d = 0; d < 3; d++) fits &= g.dims[d] >= 1 && g.dims[d] <= 65536;
        if (!fits) continue;
        uint8_t c[24];
        memset(c, 0, sizeof c);
        c[0] = (uint8_t)(h.codec - 1);
        c[1] = (uint8_t)dtype_index(h.codec, h.dtype);
        c[2] = (uint8_t)((g.rank - 1) | (i & 1 ? 0x80 : 0));
        for (unsigned d = 0; d < 3; d++) st16(c + 3 + 2 * d, (uint16_t)(d < g.rank ? g.dims[d] - 1 : 0));
        st16(c + 9, (uint16_t)h.knobs[0]);
        c[11] = (uint8_t)h.knobs[1];
        if (h.codec == SCZ_CODEC_LOSSY) c[11] |= (uint8_t)(h.knobs[2] << 7); /* fuzz_codec.c: level in bit 7 */
        scz__stf64(c + 12, h.eb_abs);
        if (h.codec == SCZ_CODEC_LZSS) { /* fuzz_codec.c's lzss knob bytes */
            scz__st32(c + 12, h.knobs[1]);
            c[16] = (uint8_t)h.knobs[2];
            c[17] = (uint8_t)h.knobs[3];
            c[18] = (uint8_t)h.knobs[4];
        }
        scz__st32(c + 20, ci.codec_info);
        snprintf(nm, sizeof nm, "%s_k%u", name, i);
        put(2, nm, c, sizeof c, z + 1 + ci.offset, (size_t)ci.size);
    }
    free(z);
}

static scz_shape mkshape(scz_dtype t, uint32_t rank, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3) {
    scz_shape s = {t, rank, {d0, d1, d2, d3}};
    return s;
}

/* An integer array of dtype t from a float64 field (values scaled into
 * `levels` steps). */
static void *int_field(gen_family f, const scz_shape *s, uint64_t seed, double levels) {
    scz_shape sd = *s;
    sd.dtype = SCZ_DTYPE_F64;
    size_t nb;
    double *v = gen_field(f, &sd, seed, &nb);
    uint64_t n = scz_shape_count(s);
    double mn = 0, mx = 0;
    uint64_t fin = 0;
    scz_value_range(SCZ_DTYPE_F64, v, n, &mn, &mx, &fin);
    size_t es = scz_dtype_size(s->dtype);
    uint8_t *o = malloc(n * es + 1);
    for (uint64_t i = 0; i < n; i++) {
        double x = isfinite(v[i]) && mx > mn ? (v[i] - mn) / (mx - mn) : 0;
        uint64_t q = (uint64_t)(x * (levels - 1) + 0.5);
        if (f == GEN_RANDOM_BITS) q = gen_mix64(i + seed);
        for (size_t b = 0; b < es; b++) o[i * es + b] = (uint8_t)(q >> (8 * b));
    }
    free(v);
    return o;
}

/* "7x5x3x2": the dims of a shape, for input names. */
static const char *dims_str(const scz_shape *s) {
    static char b[96];
    int k = 0;
    for (unsigned i = 0; i < s->rank; i++)
        k += snprintf(b + k, sizeof b - (size_t)k, "%s%llu", i ? "x" : "", (unsigned long long)s->dims[i]);
    return b;
}

static void lossless_float(const char *tag, scz_dtype t, gen_family f, scz_shape s, uint64_t chunk) {
    s.dtype = t;
    void *a = gen_field(f, &s, 7, NULL);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    p.chunk_bytes = chunk;
    char nm[300];
    snprintf(nm, sizeof nm, "ndzip_%s_%s_%s_%s", tag, scz_dtype_name(t), gen_family_name(f), dims_str(&s));
    emit(nm, &p, &s, a);
    free(a);
}

static void gfc(const char *tag, scz_dtype t, gen_family f, scz_shape s, uint32_t dim, uint64_t chunk) {
    s.dtype = t;
    void *a = gen_field(f, &s, 9, NULL);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_GFC);
    p.knobs[0] = dim;
    p.chunk_bytes = chunk;
    char nm[300];
    snprintf(nm, sizeof nm, "gfc_%s_%s_%s_%s_d%u", tag, scz_dtype_name(t), gen_family_name(f), dims_str(&s), dim);
    emit(nm, &p, &s, a);
    free(a);
}

static uint32_t lossy_level; /* knobs[2] of the lossy seeds being made */

static void lossy(const char *tag, scz_dtype t, gen_family f, scz_shape s, scz_eb_mode m, double eb, uint32_t radius,
                  uint32_t wf, uint64_t chunk) {
    s.dtype = t;
    void *a = gen_field(f, &s, 11, NULL);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LOSSY);
    p.eb_mode = m;
    p.eb = eb;
    p.knobs[0] = radius;
    p.knobs[1] = wf;
    p.knobs[2] = lossy_level;
    p.chunk_bytes = chunk;
    char nm[300];
    snprintf(nm, sizeof nm, "lossy_%s_%s_%s_%s_%s%g_r%u_w%u%s", tag, scz_dtype_name(t), gen_family_name(f),
             dims_str(&s), scz_eb_mode_name(m), eb, radius, wf, lossy_level ? "_L1" : "");
    emit(nm, &p, &s, a);
    free(a);
}

static void huff(const char *tag, scz_dtype t, gen_family f, scz_shape s, double levels, uint64_t chunk) {
    s.dtype = t;
    void *a = int_field(f, &s, 5, levels);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_HUFFMAN);
    p.chunk_bytes = chunk;
    char nm[300];
    snprintf(nm, sizeof nm, "huffman_%s_%s_%s_%s_l%g", tag, scz_dtype_name(t), gen_family_name(f), dims_str(&s),
             levels);
    emit(nm, &p, &s, a);
    free(a);
}

static void lz(const char *tag, scz_dtype t, gen_family f, scz_shape s, double levels, uint32_t S, uint32_t W,
               uint32_t shuffle, uint32_t lg, uint64_t chunk) {
    s.dtype = t;
    void *a = (t == SCZ_DTYPE_F32 || t == SCZ_DTYPE_F64) ? gen_field(f, &s, 9, NULL) : int_field(f, &s, 9, levels);
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_LZSS);
    p.knobs[0] = S;
    p.knobs[1] = W;
    p.knobs[3] = shuffle;
    p.knobs[4] = lg;
    p.chunk_bytes = chunk;
    char nm[300];
    snprintf(nm, sizeof nm, "lzss_%s_%s_%s_%s_S%u_W%u_sh%u_lg%u", tag, scz_dtype_name(t), gen_family_name(f),
             dims_str(&s), S, W, shuffle, lg);
    emit(nm, &p, &s, a);
    free(a);
}

static void tiny_set(void) {
    max_input = 2048;
    lossless_float("tiny", SCZ_DTYPE_F32, GEN_SMOOTH, mkshape(0, 1, 100, 1, 1, 1), 0);
    lossless_float("tiny", SCZ_DTYPE_F64, GEN_SPECIAL, mkshape(0, 2, 9, 7, 1, 1), 0);
    lossless_float("tiny_empty", SCZ_DTYPE_F32, GEN_SMOOTH, mkshape(0, 3, 5, 0, 7, 1), 0);
    lossy("tiny", SCZ_DTYPE_F32, GEN_SPIKY, mkshape(0, 2, 20, 12, 1, 1), SCZ_EB_REL, 1e-3, 8, 1, 0);
    lossy("tiny", SCZ_DTYPE_F64, GEN_FILL_VALUE, mkshape(0, 3, 6, 5, 4, 1), SCZ_EB_ABS, 0.5, 0, 2, 0);
    huff("tiny", SCZ_DTYPE_U8, GEN_SMOOTH, mkshape(0, 1, 600, 1, 1, 1), 16, 0);
    gfc("tiny", SCZ_DTYPE_F64, GEN_SMOOTH, mkshape(0, 1, 150, 1, 1, 1), 1, 0);
    gfc("tiny", SCZ_DTYPE_F32, GEN_SPECIAL, mkshape(0, 2, 9, 7, 1, 1), 3, 0);
    huff("tiny", SCZ_DTYPE_U32, GEN_NOISY, mkshape(0, 2, 30, 10, 1, 1), 50, 0);
    lz("tiny", SCZ_DTYPE_U8, GEN_SMOOTH, mkshape(0, 1, 700, 1, 1, 1), 16, 1, 0, 0, 8, 0);
    lz("tiny", SCZ_DTYPE_F32, GEN_FILL_VALUE, mkshape(0, 2, 20, 12, 1, 1), 0, 0, 300, 0, 8, 0);
    lossy_level = 1; /* level 1 (FORMAT.md 7.9): interpolation, back end */
    lossy("tiny", SCZ_DTYPE_F32, GEN_SMOOTH, mkshape(0, 2, 24, 20, 1, 1), SCZ_EB_REL, 1e-2, 0, 0, 0);
    lossy("tiny", SCZ_DTYPE_F64, GEN_FILL_VALUE, mkshape(0, 3, 6, 5, 4, 1), SCZ_EB_ABS, 0.5, 0, 2, 0);
    lossy_level = 0;
}

static void generated_set(void) {
    static const scz_dtype fl[2] = {SCZ_DTYPE_F32, SCZ_DTYPE_F64};
    const scz_shape shapes[] = {
        mkshape(0, 1, 1, 1, 1, 1),     mkshape(0, 1, 4097, 1, 1, 1), mkshape(0, 2, 65, 63, 1, 1),
        mkshape(0, 3, 17, 16, 15, 1),  mkshape(0, 4, 7, 5, 3, 2),    mkshape(0, 2, 1, 200, 1, 1),
        mkshape(0, 3, 5, 0, 7, 1),     mkshape(0, 3, 1, 37, 41, 1),
    };
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    for (int ti = 0; ti < 2; ti++) {
        scz_dtype t = fl[ti];
        for (int si = 0; si < ns; si++) {
            lossless_float("gen", t, GEN_SMOOTH, shapes[si], 0);
            lossless_float("gen4k", t, GEN_NOISY, shapes[si], 4096);
        }
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) lossless_float("fam", t, (gen_family)f, mkshape(0, 2, 40, 30, 1, 1), 0);
        for (int si = 0; si < ns; si++) gfc("shape", t, GEN_SMOOTH, shapes[si], (uint32_t)(1 + (5 * si) % 32), 0);
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) gfc("fam", t, (gen_family)f, mkshape(0, 1, 2500, 1, 1, 1), 2, 4096);
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
            lossy("fam", t, (gen_family)f, mkshape(0, 2, 40, 30, 1, 1), SCZ_EB_REL, 1e-3, 0, 0, 0);
            lossy("fam", t, (gen_family)f, mkshape(0, 3, 12, 11, 10, 1), SCZ_EB_ABS, 1e-2, 4, 1, 0);
            lossy("famrle", t, (gen_family)f, mkshape(0, 1, 3000, 1, 1, 1), SCZ_EB_REL, 1e-2, 0, 2, 4096);
        }
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
            lz("fam", t, (gen_family)f, mkshape(0, 2, 40, 30, 1, 1), 0, 0, 0, 0, 8, 0);
            lz("fam", t, (gen_family)f, mkshape(0, 1, 3000, 1, 1, 1), 0, 8, 1000, 1, 9, 4096);
        }
        for (int si = 0; si < ns; si++) {
            lossy("shape", t, GEN_SMOOTH, shapes[si], SCZ_EB_PSNR, 60, 0, 0, 0);
            lossy("shape4k", t, GEN_NOISY, shapes[si], SCZ_EB_ABS, 1e-3, 2, 1, 4096);
        }
        lossy("abs0", t, GEN_CONSTANT, mkshape(0, 1, 5000, 1, 1, 1), SCZ_EB_ABS, 0, 0, 0, 0);
        lossy("r1", t, GEN_NOISY, mkshape(0, 2, 64, 20, 1, 1), SCZ_EB_ABS, 1e-4, 1, 1, 0);
        lossy("big", t, GEN_CONSTANT, mkshape(0, 1, 70000, 1, 1, 1), SCZ_EB_REL, 1e-2, 0, 2, 0);
        lossy("bigsp", t, GEN_SPARSE, mkshape(0, 2, 300, 200, 1, 1), SCZ_EB_ABS, 1e-1, 0, 0, 0);
        lossy_level = 1; /* level 1: every family, interpolation and Lorenzo, both back ends */
        for (int f = 0; f < GEN_NUM_FAMILIES; f++) {
            lossy("fam", t, (gen_family)f, mkshape(0, 2, 40, 30, 1, 1), SCZ_EB_REL, 1e-2, 0, 0, 0);
            lossy("fam", t, (gen_family)f, mkshape(0, 3, 12, 11, 10, 1), SCZ_EB_ABS, 1e-3, 6, 1, 0);
        }
        for (int si = 0; si < ns; si++) lossy("shape", t, GEN_SMOOTH, shapes[si], SCZ_EB_REL, 1e-3, 0, 0, 0);
        lossy_level = 0;
    }
    static const scz_dtype it[3] = {SCZ_DTYPE_U8, SCZ_DTYPE_U16, SCZ_DTYPE_U32};
    for (int ti = 0; ti < 3; ti++) {
        scz_dtype t = it[ti];
        for (int si = 0; si < ns; si++) huff("shape", t, GEN_SMOOTH, shapes[si], 200, 0);
        huff("noisy", t, GEN_NOISY, mkshape(0, 1, 5000, 1, 1, 1), t == SCZ_DTYPE_U8 ? 256 : 3000, 4096);
        lz("int", t, GEN_NOISY, mkshape(0, 1, 5000, 1, 1, 1), t == SCZ_DTYPE_U8 ? 256 : 3000, 0, 0, 0, 0, 0);
        huff("const", t, GEN_CONSTANT, mkshape(0, 1, 3000, 1, 1, 1), 2, 0);
        huff("rand", t, GEN_RANDOM_BITS, mkshape(0, 1, 2000, 1, 1, 1), 2, 0);
        huff("sparse", t, GEN_SPARSE, mkshape(0, 2, 100, 90, 1, 1), 1000, 0);
        huff("long", t, GEN_SMOOTH, mkshape(0, 1, 40000, 1, 1, 1), 8, 0);
    }
}

/* Windows of at most 40 x 24 x 6 (3D), 96 x 64 (2D) or 5000 (1D) elements
 * at the start of each real field. */
static void data_set(void) {
    tu_datafile *files = NULL;
    int nf = tu_data_files(&files);
    for (int fi = 0; fi < nf; fi++) {
        tu_datafile *df = &files[fi];
        size_t fsz;
        uint8_t *all = tu_read_file(df->path, &fsz);
        size_t es = scz_dtype_size(df->shape.dtype);
        if (!all || fsz < scz_shape_count(&df->shape) * es) {
            free(all);
            continue;
        }
        scz_shape w = df->shape;
        const uint64_t lim3[4] = {40, 24, 6, 1}, lim2[4] = {96, 64, 1, 1}, lim1[4] = {5000, 1, 1, 1};
        const uint64_t *lim = w.rank >= 3 ? lim3 : w.rank == 2 ? lim2 : lim1;
        for (unsigned d = 0; d < w.rank; d++)
            if (w.dims[d] > lim[d]) w.dims[d] = lim[d];
        for (unsigned d = w.rank; d < 4; d++) w.dims[d] = 1;
        uint64_t n = scz_shape_count(&w);
        uint8_t *a = malloc(n * es);
        const uint64_t *D = df->shape.dims, *E = w.dims;
        uint64_t k = 0;
        for (uint64_t z = 0; z < E[2] * E[3]; z++)
            for (uint64_t y = 0; y < E[1]; y++) {
                uint64_t src = ((z * D[1]) + y) * D[0];
                memcpy(a + k * es, all + src * es, E[0] * es);
                k += E[0];
            }
        free(all);
        char base[300];
        snprintf(base, sizeof base, "%.*s", (int)(strrchr(df->name, '.') - df->name), df->name);
        scz_params p;
        char nm[400];
        scz_params_init(&p, SCZ_CODEC_NDZIP);
        snprintf(nm, sizeof nm, "data_ndzip_%s", base);
        emit(nm, &p, &w, a);
        p.chunk_bytes = 4096;
        snprintf(nm, sizeof nm, "data_ndzip4k_%s", base);
        emit(nm, &p, &w, a);
        scz_params_init(&p, SCZ_CODEC_GFC);
        snprintf(nm, sizeof nm, "data_gfc_%s", base);
        emit(nm, &p, &w, a);
        const double rel[3] = {1e-2, 1e-3, 1e-5};
        for (int r = 0; r < 3; r++)
            for (uint32_t wf = 0; wf < 3; wf++) {
                scz_params_init(&p, SCZ_CODEC_LOSSY);
                p.eb_mode = SCZ_EB_REL;
                p.eb = rel[r];
                p.knobs[1] = wf;
                snprintf(nm, sizeof nm, "data_lossy_%s_rel%g_w%u", base, rel[r], wf);
                emit(nm, &p, &w, a);
            }
        /* huffman: the field quantized to u8 / u16 levels */
        double mn, mx;
        uint64_t fin;
        scz_value_range(w.dtype, a, n, &mn, &mx, &fin);
        const scz_dtype it[3] = {SCZ_DTYPE_U8, SCZ_DTYPE_U16, SCZ_DTYPE_U32};
        for (int ti = 0; ti < 3; ti++) {
            scz_shape s = w;
            s.dtype = it[ti];
            size_t ie = scz_dtype_size(s.dtype);
            double levels = ti == 0 ? 256 : ti == 1 ? 4096 : 20000;
            uint8_t *q = malloc(n * ie);
            for (uint64_t i = 0; i < n; i++) {
                double x = w.dtype == SCZ_DTYPE_F32 ? (double)((float *)a)[i] : ((double *)a)[i];
                double u = isfinite(x) && mx > mn ? (x - mn) / (mx - mn) : 0;
                uint64_t v = (uint64_t)(u * (levels - 1) + 0.5);
                for (size_t b = 0; b < ie; b++) q[i * ie + b] = (uint8_t)(v >> (8 * b));
            }
            scz_params_init(&p, SCZ_CODEC_HUFFMAN);
            snprintf(nm, sizeof nm, "data_huffman_%s_%s", base, scz_dtype_name(s.dtype));
            emit(nm, &p, &s, q);
            free(q);
        }
        free(a);
    }
    free(files);
    printf("fuzz_seeds: %d real data files\n", nf);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_seeds OUTDIR [--tiny]\n");
        return 2;
    }
    outdir = argv[1];
    tiny = argc > 2 && !strcmp(argv[2], "--tiny");
    mkdir_p(outdir);
    char p[1100];
    for (int t = 0; t < 4; t++) {
        snprintf(p, sizeof p, "%s/%s", outdir, targets[t]);
        mkdir_p(p);
    }
    if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK) return 1;
    scz_ctx_set_threads(ctx, 1);
    if (tiny) {
        tiny_set();
    } else {
        generated_set();
        data_set(); /* $SCZ_DATA_DIR, else ../shared/data; nothing if absent */
    }
    scz_ctx_destroy(ctx);
    for (int t = 0; t < 4; t++) printf("fuzz_seeds: %s: %d inputs\n", targets[t], written[t]);
    return 0;
}

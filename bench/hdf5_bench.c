/*
 * hdf5_bench.c -- what the HDF5 filter (src/hdf5, docs/HDF5.md) costs on
 * top of scz itself (issue 13: under 5% on 512 MiB with 16 MiB chunks).
 * One float32 array (a 3D data file repeated along its slowest axis up to
 * --mib MiB), HDF5 chunks of whole slabs of about --chunk-mib MiB:
 *   scz        scz_compress / scz_decompress of each chunk's slab, in turn,
 *              on one context (what the filter does per chunk, without HDF5);
 *   hdf5+scz   H5Dwrite / H5Dread of the whole array into a chunked dataset
 *              with the scz filter, file on --dir (use a RAM-backed folder
 *              such as /dev/shm so the file system is not measured);
 *   hdf5 raw   the same dataset without a filter (HDF5's own cost).
 * Wall clock, median of --reps. Lossless ndzip and lossy REL --rel.
 *
 *   hdf5_bench --data ../shared/data --name wmag --mib 512 --chunk-mib 16 --dir /dev/shm --reps 5
 */
#define _POSIX_C_SOURCE 200809L
#include "h5z_scz.h"
#include "median.h"

#include <dirent.h>
#include <hdf5.h>
#include <scz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The first NAME_AxBxC.f32 of dir (dims slowest first) whose name holds
 * `want` (NULL: any). */
static float *load(const char *dir, const char *want, uint64_t d[3], char *name, size_t cap) {
    DIR *D = opendir(dir);
    if (!D) return NULL;
    struct dirent *e;
    float *r = NULL;
    while (!r && (e = readdir(D))) {
        const char *n = e->d_name, *u = strrchr(n, '_');
        size_t len = strlen(n);
        unsigned long long a, b, c;
        if (!u || len < 5 || strcmp(n + len - 4, ".f32") || (want && !strstr(n, want))) continue;
        if (sscanf(u + 1, "%llux%llux%llu.f32", &a, &b, &c) != 3) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, n);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        const size_t cnt = (size_t)(a * b * c);
        r = malloc(cnt * 4);
        if (r && fread(r, 4, cnt, f) != cnt) {
            free(r);
            r = NULL;
        }
        fclose(f);
        d[0] = a, d[1] = b, d[2] = c;
        snprintf(name, cap, "%s", n);
    }
    closedir(D);
    return r;
}

typedef struct row {
    double w, r; /* s, median */
    size_t bytes;
} row;

/* scz alone: each chunk's slab compressed and decompressed in turn. */
static int run_scz(scz_ctx *ctx, const scz_params *p, const float *a, uint64_t Z, uint64_t Y, uint64_t X, uint64_t cz,
                   int reps, row *out) {
    const size_t slab = (size_t)(cz * Y * X) * 4;
    scz_shape s = {SCZ_DTYPE_F32, 3, {X, Y, cz, 1}};
    const size_t cap = scz_compress_bound(&s, p);
    uint64_t nch = (Z + cz - 1) / cz;
    uint8_t **z = calloc(nch, sizeof *z);
    size_t *zn = calloc(nch, sizeof *zn);
    float *back = malloc((size_t)(Z * Y * X) * 4);
    double tw[16], tr[16];
    for (uint64_t k = 0; k < nch; k++) z[k] = malloc(cap);
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        size_t tot = 0;
        for (uint64_t k = 0; k < nch; k++) {
            const uint64_t zz = k + 1 < nch ? cz : Z - k * cz;
            scz_shape sk = {SCZ_DTYPE_F32, 3, {X, Y, zz, 1}};
            if (scz_compress(ctx, p, &sk, (const uint8_t *)a + k * slab, z[k], cap, &zn[k])) {
                fprintf(stderr, "scz_compress: %s\n", scz_ctx_last_error(ctx));
                return -1;
            }
            tot += zn[k];
        }
        tw[i] = now() - t0;
        out->bytes = tot;
        t0 = now();
        for (uint64_t k = 0; k < nch; k++) {
            const uint64_t zz = k + 1 < nch ? cz : Z - k * cz;
            if (scz_decompress(ctx, z[k], zn[k], (uint8_t *)back + k * slab, (size_t)(zz * Y * X) * 4, NULL)) {
                fprintf(stderr, "scz_decompress: %s\n", scz_ctx_last_error(ctx));
                return -1;
            }
        }
        tr[i] = now() - t0;
    }
    out->w = bench_median(tw, reps);
    out->r = bench_median(tr, reps);
    for (uint64_t k = 0; k < nch; k++) free(z[k]);
    free(z);
    free(zn);
    free(back);
    return 0;
}

/* The whole array through HDF5 (filter: cd values, or none). */
static int run_h5(const char *file, const float *a, uint64_t Z, uint64_t Y, uint64_t X, uint64_t cz,
                  const unsigned *cd, unsigned ncd, int reps, row *out) {
    hsize_t dims[3] = {Z, Y, X}, ch[3] = {cz, Y, X};
    float *back = malloc((size_t)(Z * Y * X) * 4);
    double tw[16], tr[16];
    for (int i = 0; i < reps; i++) {
        double t0 = now();
        hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t sp = H5Screate_simple(3, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 3, ch);
        if (cd) H5Pset_filter(dcpl, H5Z_FILTER_SCZ, H5Z_FLAG_MANDATORY, ncd, cd);
        hid_t ds = H5Dcreate2(f, "d", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) < 0) return -1;
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Fclose(f);
        tw[i] = now() - t0;
        t0 = now();
        f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
        ds = H5Dopen2(f, "d", H5P_DEFAULT);
        if (ds < 0 || H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0) return -1;
        out->bytes = (size_t)H5Dget_storage_size(ds);
        H5Dclose(ds);
        H5Fclose(f);
        tr[i] = now() - t0;
    }
    out->w = bench_median(tw, reps);
    out->r = bench_median(tr, reps);
    free(back);
    remove(file);
    return 0;
}

int main(int argc, char **argv) {
    const char *data = getenv("SCZ_DATA_DIR"), *dir = "/dev/shm", *want = NULL;
    double mib = 512, chunk_mib = 16, rel = 1e-3;
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--data")) data = argv[i + 1];
        else if (!strcmp(argv[i], "--mib")) mib = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--chunk-mib")) chunk_mib = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--dir")) dir = argv[i + 1];
        else if (!strcmp(argv[i], "--rel")) rel = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--name")) want = argv[i + 1];
    }
    if (reps < 1) reps = 1;
    if (reps > 16) reps = 16;
    uint64_t d[3];
    char name[512];
    float *f = load(data ? data : "../shared/data", want, d, name, sizeof name);
    if (!f) {
        printf("skipped: no 3D float32 file in %s\n", data ? data : "../shared/data");
        return 77;
    }
    const uint64_t plane = d[1] * d[2], per = d[0] * plane;
    const uint64_t rep = (uint64_t)(mib * 1048576.0 / 4 / per + 0.5) ? (uint64_t)(mib * 1048576.0 / 4 / per + 0.5) : 1;
    const uint64_t Z = d[0] * rep, Y = d[1], X = d[2];
    float *a = malloc((size_t)(Z * plane) * 4);
    for (uint64_t k = 0; k < rep; k++) memcpy(a + k * per, f, (size_t)per * 4);
    free(f);
    uint64_t cz = (uint64_t)(chunk_mib * 1048576.0 / 4 / plane + 0.5);
    if (cz < 1) cz = 1;
    const double gb = (double)(Z * plane) * 4 / 1e9;
    if (h5z_scz_register() < 0) {
        printf("cannot register the filter\n");
        return 1;
    }
    scz_ctx *ctx;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    char file[1024];
    snprintf(file, sizeof file, "%s/scz_hdf5_bench.h5", dir);
    printf("array: %s x%llu = %llux%llux%llu float32 (%.2f GB); HDF5 chunks %llux%llux%llu (%.1f MiB); file in %s; "
           "median of %d\n",
           name, (unsigned long long)rep, (unsigned long long)Z, (unsigned long long)Y, (unsigned long long)X, gb,
           (unsigned long long)cz, (unsigned long long)Y, (unsigned long long)X, cz * plane * 4 / 1048576.0, dir, reps);
    row raw;
    if (run_h5(file, a, Z, Y, X, cz, NULL, 0, reps, &raw)) return 1;
    printf("%-22s write %6.2f GB/s  read %6.2f GB/s\n", "hdf5 raw (no filter)", gb / raw.w, gb / raw.r);
    for (int c = 0; c < 2; c++) {
        scz_params p;
        scz_params_init(&p, c ? SCZ_CODEC_LOSSY : SCZ_CODEC_NDZIP);
        if (c) {
            p.eb_mode = SCZ_EB_REL;
            p.eb = rel;
        }
        unsigned cd[H5Z_SCZ_USER_NELMTS];
        const unsigned ncd = h5z_scz_cd_values(cd, p.codec, p.eb_mode, p.eb);
        row s, h;
        if (run_scz(ctx, &p, a, Z, Y, X, cz, reps, &s) || run_h5(file, a, Z, Y, X, cz, cd, ncd, reps, &h)) return 1;
        char what[64];
        snprintf(what, sizeof what, "%s", c ? "lossy REL" : "ndzip");
        if (c) snprintf(what + strlen(what), sizeof what - strlen(what), " %g", rel);
        printf("%-14s scz      write %6.2f GB/s  read %6.2f GB/s  ratio %.3f\n", what, gb / s.w, gb / s.r,
               gb * 1e9 / s.bytes);
        printf("%-14s hdf5+scz write %6.2f GB/s  read %6.2f GB/s  ratio %.3f  filter path: +%.1f%% write, "
               "+%.1f%% read (time over scz's)\n",
               what, gb / h.w, gb / h.r, gb * 1e9 / h.bytes, 100 * (h.w / s.w - 1), 100 * (h.r / s.r - 1));
    }
    scz_ctx_destroy(ctx);
    free(a);
    return 0;
}

/*
 * test_hdf5: the scz HDF5 filter (src/hdf5, docs/HDF5.md) through libhdf5.
 *   test_hdf5            registers the filter with h5z_scz_register() and
 *                        runs every case
 *   test_hdf5 --plugin   registers nothing: the filter must come from the
 *                        plugin found through HDF5_PLUGIN_PATH
 *   test_hdf5 --write F  writes F (datasets for the h5dump/h5repack test)
 * Round trips of every codec for float32/float64 (lossless exact, lossy
 * within its bound) and of integer types for huffman/lzss, partial chunks at
 * the dataset's edges, ranks 1 to 5, bad parameters refused at creation, and
 * a corrupted chunk in the file giving a read error.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#ifndef SCZ_TEST_HDF5
#include <stdio.h>
int main(void) {
    printf("skipped: HDF5 not installed (libhdf5-dev)\n");
    return 77;
}
#else
#include "h5z_scz.h"
#include <hdf5.h>
#include <scz.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(c, ...)                                                     \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static char path[512];

/* a smooth field with some noise, values ~[-1, 2] */
static void fill_float(void *buf, int is64, size_t n, unsigned seed) {
    uint64_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double noise = (double)(s >> 11) / 9007199254740992.0;
        double v = sin((double)i * 0.001) + 0.5 * cos((double)i * 0.0173) + 0.01 * noise;
        if (is64) ((double *)buf)[i] = v;
        else ((float *)buf)[i] = (float)v;
    }
}

static void fill_int(void *buf, size_t size, size_t n, unsigned seed) {
    uint64_t s = seed * 2654435761u + 7;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = (i / 7) + ((s >> 60) & 3); /* repetitive, small alphabet */
        if (seed & 1) v = (uint64_t)0 - v;     /* negative values for signed types */
        memcpy((char *)buf + i * size, &v, size); /* little-endian low bytes */
    }
}

/* Writes then reads a dataset of `rank` dims / chunk dims with the filter;
 * returns 0 when create/write failed (expect_fail cases), 1 otherwise. */
static int roundtrip(const char *what, hid_t type, int rank, const hsize_t *dims, const hsize_t *chunk,
                     const unsigned *cd, size_t ncd, int expect_create_fail, void *data, void *back) {
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    H5Pset_filter(dcpl, H5Z_FILTER_SCZ, H5Z_FLAG_MANDATORY, ncd, cd);
    hid_t ds;
    if (expect_create_fail) {
        H5E_BEGIN_TRY { ds = H5Dcreate2(f, "d", type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT); } H5E_END_TRY;
        CHECK(ds < 0, "%s: dataset creation should fail", what);
        if (ds >= 0) H5Dclose(ds);
        H5Pclose(dcpl); H5Sclose(sp); H5Fclose(f);
        return 0;
    }
    ds = H5Dcreate2(f, "d", type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds >= 0, "%s: H5Dcreate2", what);
    if (ds < 0) { H5Pclose(dcpl); H5Sclose(sp); H5Fclose(f); return 0; }
    herr_t e = H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    CHECK(e >= 0, "%s: H5Dwrite", what);
    H5Dclose(ds); H5Pclose(dcpl); H5Sclose(sp); H5Fclose(f);

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = H5Dopen2(f, "d", H5P_DEFAULT);
    /* the filter's complete cd_values are stored with the dataset */
    hid_t pl = H5Dget_create_plist(ds);
    unsigned fl, got[32];
    size_t ngot = 32;
    CHECK(H5Pget_filter_by_id2(pl, H5Z_FILTER_SCZ, &fl, &ngot, got, 0, NULL, NULL) >= 0 &&
              ngot == H5Z_SCZ_NELMTS && got[11] == H5Z_SCZ_CD_VERSION,
          "%s: stored cd_values", what);
    H5Pclose(pl);
    e = H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
    CHECK(e >= 0, "%s: H5Dread", what);
    H5Dclose(ds); H5Fclose(f);
    return e >= 0;
}

static size_t count_of(int rank, const hsize_t *dims) {
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    return n;
}

static void float_cases(void) {
    const hsize_t dims[3] = {21, 37, 50}, chunk[3] = {8, 16, 20}; /* edges: partial chunks */
    size_t n = count_of(3, dims);
    for (int is64 = 0; is64 < 2; is64++) {
        hid_t type = is64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
        scz_dtype dt = is64 ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
        size_t es = is64 ? 8 : 4;
        void *a = malloc(n * es), *b = malloc(n * es);
        fill_float(a, is64, n, 3);
        double mn = 1e300, mx = -1e300;
        for (size_t i = 0; i < n; i++) {
            double v = is64 ? ((double *)a)[i] : ((float *)a)[i];
            mn = v < mn ? v : mn; mx = v > mx ? v : mx;
        }
        for (int c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LZSS; c++) {
            int accepts = scz_codec_available((scz_codec)c) && scz_codec_accepts((scz_codec)c, dt);
            unsigned cd[H5Z_SCZ_USER_NELMTS];
            char what[128];
            if (c != SCZ_CODEC_LOSSY) {
                size_t ncd = h5z_scz_cd_values(cd, (unsigned)c, SCZ_EB_NONE, 0);
                snprintf(what, sizeof what, "%s %s", scz_codec_name((scz_codec)c), is64 ? "f64" : "f32");
                memset(b, 0, n * es);
                if (!roundtrip(what, type, 3, dims, chunk, cd, ncd, !accepts, a, b)) continue;
                CHECK(memcmp(a, b, n * es) == 0, "%s: not bit-exact", what);
                printf("ok   %s lossless\n", what);
                continue;
            }
            const struct { scz_eb_mode m; double eb; } bounds[] = {
                {SCZ_EB_ABS, 1e-3}, {SCZ_EB_REL, 1e-4}, {SCZ_EB_PSNR, 70}};
            for (int k = 0; k < 3; k++) {
                size_t ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LOSSY, bounds[k].m, bounds[k].eb);
                snprintf(what, sizeof what, "lossy %s %s %g", scz_eb_mode_name(bounds[k].m),
                         is64 ? "f64" : "f32", bounds[k].eb);
                memset(b, 0, n * es);
                if (!roundtrip(what, type, 3, dims, chunk, cd, ncd, 0, a, b)) continue;
                scz_stats st;
                scz_stats_compute(dt, a, b, n, &st);
                /* REL and PSNR hold per chunk (each chunk is its own stream),
                 * so they also hold against the whole array's range */
                if (bounds[k].m == SCZ_EB_ABS)
                    CHECK(st.max_abs_err <= bounds[k].eb, "%s: max err %g", what, st.max_abs_err);
                if (bounds[k].m == SCZ_EB_REL)
                    CHECK(st.max_abs_err <= bounds[k].eb * (mx - mn), "%s: max err %g", what, st.max_abs_err);
                if (bounds[k].m == SCZ_EB_PSNR)
                    CHECK(st.psnr >= bounds[k].eb, "%s: psnr %g", what, st.psnr);
                CHECK(st.max_abs_err > 0, "%s: lossy but exact?", what);
                printf("ok   %s (max err %.3g, psnr %.1f)\n", what, st.max_abs_err, st.psnr);
            }
        }
        free(a); free(b);
    }
}

static void int_cases(void) {
    const hsize_t dims[2] = {45, 77}, chunk[2] = {16, 32};
    size_t n = count_of(2, dims);
    const struct { hid_t t; size_t size; const char *name; unsigned seed; } types[] = {
        {H5T_NATIVE_UINT8, 1, "u8", 2},   {H5T_NATIVE_UINT16, 2, "u16", 2},
        {H5T_NATIVE_UINT32, 4, "u32", 2}, {H5T_NATIVE_UINT64, 8, "u64", 2},
        {H5T_NATIVE_INT16, 2, "i16", 1},  {H5T_NATIVE_INT32, 4, "i32", 1},
        {H5T_NATIVE_INT64, 8, "i64", 1}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        void *a = malloc(n * 8), *b = malloc(n * 8);
        fill_int(a, types[t].size, n, types[t].seed);
        scz_dtype dt = types[t].size == 1 ? SCZ_DTYPE_U8 : types[t].size == 2 ? SCZ_DTYPE_U16
                     : types[t].size == 4 ? SCZ_DTYPE_U32 : SCZ_DTYPE_U64;
        unsigned codecs[3] = {SCZ_CODEC_HUFFMAN, SCZ_CODEC_LZSS, 0 /* default */};
        for (int c = 0; c < 3; c++) {
            unsigned cd[H5Z_SCZ_USER_NELMTS];
            size_t ncd = h5z_scz_cd_values(cd, codecs[c], SCZ_EB_NONE, 0);
            if (codecs[c] == 0) ncd = 1;
            int accepts = codecs[c] == 0 || scz_codec_accepts((scz_codec)codecs[c], dt);
            char what[128];
            snprintf(what, sizeof what, "%s %s", codecs[c] ? scz_codec_name((scz_codec)codecs[c]) : "default",
                     types[t].name);
            memset(b, 0, n * 8);
            if (!roundtrip(what, types[t].t, 2, dims, chunk, cd, ncd, !accepts, a, b)) {
                if (!accepts) printf("ok   %s refused at creation\n", what);
                continue;
            }
            CHECK(memcmp(a, b, n * types[t].size) == 0, "%s: not exact", what);
            printf("ok   %s lossless\n", what);
        }
        /* lossy on integers: refused when the dataset is created */
        unsigned cd[H5Z_SCZ_USER_NELMTS];
        size_t ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LOSSY, SCZ_EB_ABS, 1);
        roundtrip("lossy on ints", types[t].t, 2, dims, chunk, cd, ncd, 1, a, b);
        free(a); free(b);
    }
}

static void rank_cases(void) {
    const hsize_t d1[1] = {100003}, c1[1] = {4096};
    const hsize_t d2[2] = {300, 301}, c2[2] = {64, 300};
    const hsize_t d4[4] = {3, 9, 17, 33}, c4[4] = {2, 4, 8, 16};
    const hsize_t d5[5] = {3, 4, 5, 6, 7}, c5[5] = {2, 3, 4, 5, 6};
    const struct { int rank; const hsize_t *d, *c; } cases[] = {{1, d1, c1}, {2, d2, c2}, {4, d4, c4}, {5, d5, c5}};
    for (int k = 0; k < 4; k++) {
        size_t n = count_of(cases[k].rank, cases[k].d);
        double *a = malloc(n * 8), *b = malloc(n * 8);
        fill_float(a, 1, n, 5);
        for (unsigned c = SCZ_CODEC_NDZIP; c <= SCZ_CODEC_LOSSY; c++) {
            unsigned cd[H5Z_SCZ_USER_NELMTS];
            size_t ncd = h5z_scz_cd_values(cd, c, c == SCZ_CODEC_LOSSY ? SCZ_EB_ABS : SCZ_EB_NONE, 1e-6);
            char what[64];
            snprintf(what, sizeof what, "rank %d %s", cases[k].rank, scz_codec_name((scz_codec)c));
            if (!roundtrip(what, H5T_NATIVE_DOUBLE, cases[k].rank, cases[k].d, cases[k].c, cd, ncd, 0, a, b)) continue;
            double err = 0;
            for (size_t i = 0; i < n; i++) err = fmax(err, fabs(a[i] - b[i]));
            CHECK(c == SCZ_CODEC_LOSSY ? err <= 1e-6 : memcmp(a, b, n * 8) == 0, "%s: err %g", what, err);
            printf("ok   %s\n", what);
        }
        free(a); free(b);
    }
}

static void bad_params(void) {
    const hsize_t dims[1] = {1000}, chunk[1] = {100};
    float a[1000], b[1000];
    fill_float(a, 0, 1000, 1);
    unsigned cd[H5Z_SCZ_USER_NELMTS];
    size_t ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LOSSY, SCZ_EB_NONE, 0);
    roundtrip("lossy without a bound", H5T_NATIVE_FLOAT, 1, dims, chunk, cd, ncd, 1, a, b);
    ncd = h5z_scz_cd_values(cd, SCZ_CODEC_NDZIP, SCZ_EB_ABS, 1e-3);
    roundtrip("lossless with a bound", H5T_NATIVE_FLOAT, 1, dims, chunk, cd, ncd, 1, a, b);
    ncd = h5z_scz_cd_values(cd, 99, SCZ_EB_NONE, 0);
    roundtrip("unknown codec", H5T_NATIVE_FLOAT, 1, dims, chunk, cd, ncd, 1, a, b);
    ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LOSSY, SCZ_EB_ABS, -1);
    roundtrip("negative bound", H5T_NATIVE_FLOAT, 1, dims, chunk, cd, ncd, 1, a, b);
    ncd = h5z_scz_cd_values(cd, SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0);
    roundtrip("big-endian float", H5T_IEEE_F32BE, 1, dims, chunk, cd, ncd, 1, a, b);
    printf("ok   bad parameters refused at dataset creation\n");
}

/* Flips one byte of the stored chunk at `coord` (at byte `at` of the chunk,
 * negative: from its end) and checks that reading it fails while the other
 * chunks still read correctly. */
static void corrupt_case(long at, const char *what) {
    const hsize_t dims[2] = {64, 64}, chunk[2] = {32, 32};
    float a[64 * 64], b[64 * 64];
    fill_float(a, 0, 64 * 64, 9);
    unsigned cd[H5Z_SCZ_USER_NELMTS];
    size_t ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LOSSY, SCZ_EB_ABS, 1e-4);
    if (!roundtrip(what, H5T_NATIVE_FLOAT, 2, dims, chunk, cd, ncd, 0, a, b)) return;

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, "d", H5P_DEFAULT);
    hsize_t coord[2] = {32, 0}, off[2];
    unsigned mask;
    haddr_t addr;
    hsize_t size;
    CHECK(H5Dget_chunk_info_by_coord(ds, coord, &mask, &addr, &size) >= 0, "%s: chunk info", what);
    H5Dclose(ds); H5Fclose(f);
    FILE *fp = fopen(path, "r+b");
    long pos = (long)addr + (at >= 0 ? at : (long)size + at);
    fseek(fp, pos, SEEK_SET);
    int byte = fgetc(fp);
    fseek(fp, pos, SEEK_SET);
    fputc(byte ^ 0x5a, fp);
    fclose(fp);

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = H5Dopen2(f, "d", H5P_DEFAULT);
    herr_t e;
    H5E_BEGIN_TRY { e = H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b); } H5E_END_TRY;
    CHECK(e < 0, "%s: reading a corrupted chunk should fail", what);
    /* the chunk next to it is intact */
    hid_t fs = H5Dget_space(ds);
    hsize_t cnt[2] = {32, 32};
    off[0] = 0; off[1] = 32;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    float part[32 * 32];
    e = H5Dread(ds, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, part);
    CHECK(e >= 0, "%s: an intact chunk should read", what);
    for (int i = 0; e >= 0 && i < 32; i++)
        for (int j = 0; j < 32; j++)
            CHECK(fabsf(part[i * 32 + j] - a[i * 64 + 32 + j]) <= 1e-4f, "%s: intact chunk value", what);
    H5Sclose(ms); H5Sclose(fs); H5Dclose(ds); H5Fclose(f);
    printf("ok   %s: read error\n", what);
}

/* datasets for the command-line tools' test (tests/hdf5_tools.sh) */
static int write_tool_file(const char *file) {
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {10, 12}, chunk[2] = {4, 5};
    int32_t ints[120];
    double dbl[120];
    for (int i = 0; i < 120; i++) { ints[i] = i * 3 - 7; dbl[i] = 0.25 * i; }
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    unsigned cd[H5Z_SCZ_USER_NELMTS];
    size_t ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LZSS, SCZ_EB_NONE, 0);
    H5Pset_filter(dcpl, H5Z_FILTER_SCZ, H5Z_FLAG_MANDATORY, ncd, cd);
    hid_t ds = H5Dcreate2(f, "ints", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    herr_t e = ds < 0 ? -1 : H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints);
    if (ds >= 0) H5Dclose(ds);
    H5Pclose(dcpl);
    /* an unfiltered dataset for h5repack to compress */
    hid_t ds2 = H5Dcreate2(f, "plain", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (e >= 0) e = H5Dwrite(ds2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, dbl);
    H5Dclose(ds2); H5Sclose(sp); H5Fclose(f);
    return e >= 0 ? 0 : 1;
}

/* The CUDA device of a process (h5z_scz_cuda_device): a pure function of
 * the environment and the device count, so checked on any machine. */
static void device_cases(void) {
    static const char *const vars[] = {"SCZ_HDF5_DEVICE", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                       "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMI_LOCAL_RANK",
                                       "PALS_LOCAL_RANKID", "FLUX_TASK_LOCAL_ID", "JSM_NAMESPACE_LOCAL_RANK"};
    char *saved[sizeof vars / sizeof *vars];
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        saved[i] = getenv(vars[i]) ? strdup(getenv(vars[i])) : NULL;
        unsetenv(vars[i]);
    }
    CHECK(h5z_scz_cuda_device(4) == -1, "no rank, no choice: the current device");
    CHECK(h5z_scz_cuda_device(0) == -1, "no device");
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "5", 1);
    CHECK(h5z_scz_cuda_device(4) == 1, "Open MPI local rank 5 on 4 devices: 1, got %d", h5z_scz_cuda_device(4));
    CHECK(h5z_scz_cuda_device(8) == 5, "local rank 5 on 8 devices");
    CHECK(h5z_scz_cuda_device(1) == 0, "one device (CUDA_VISIBLE_DEVICES per rank): 0");
    CHECK(h5z_scz_cuda_device(0) == -1, "no device, with a rank");
    setenv("SLURM_LOCALID", "2", 1); /* Open MPI's comes first */
    CHECK(h5z_scz_cuda_device(4) == 1, "the first variable set wins");
    unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
    CHECK(h5z_scz_cuda_device(4) == 2, "SLURM_LOCALID 2: got %d", h5z_scz_cuda_device(4));
    setenv("MPI_LOCALRANKID", "x3", 1); /* not a number: skipped */
    CHECK(h5z_scz_cuda_device(4) == 2, "a non-number is skipped: got %d", h5z_scz_cuda_device(4));
    setenv("MPI_LOCALRANKID", "7", 1);
    CHECK(h5z_scz_cuda_device(4) == 3, "MPICH local rank 7 on 4 devices: 3");
    setenv("SCZ_HDF5_DEVICE", "2", 1);
    CHECK(h5z_scz_cuda_device(4) == 2, "SCZ_HDF5_DEVICE over the rank");
    CHECK(h5z_scz_cuda_device(2) == 0, "SCZ_HDF5_DEVICE modulo the count");
    setenv("SCZ_HDF5_DEVICE", "current", 1);
    CHECK(h5z_scz_cuda_device(4) == -1, "SCZ_HDF5_DEVICE=current");
    setenv("SCZ_HDF5_DEVICE", "-1", 1); /* not a device: as if unset */
    CHECK(h5z_scz_cuda_device(4) == 3, "SCZ_HDF5_DEVICE=-1 ignored: got %d", h5z_scz_cuda_device(4));
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        if (saved[i]) setenv(vars[i], saved[i], 1);
        else unsetenv(vars[i]);
        free(saved[i]);
    }
    printf("ok   CUDA device of a rank: SCZ_HDF5_DEVICE, else local rank modulo device count\n");
}

int main(int argc, char **argv) {
    int plugin = argc > 1 && strcmp(argv[1], "--plugin") == 0;
    if (argc > 2 && strcmp(argv[1], "--write") == 0) {
        if (getenv("HDF5_PLUGIN_PATH") == NULL && h5z_scz_register() < 0) return 1;
        return write_tool_file(argv[2]);
    }
    if (plugin) {
        /* H5Zfilter_avail loads plugins on demand */
        if (H5Zfilter_avail(H5Z_FILTER_SCZ) <= 0) {
            fprintf(stderr, "FAIL: the plugin was not found (HDF5_PLUGIN_PATH=%s)\n",
                    getenv("HDF5_PLUGIN_PATH") ? getenv("HDF5_PLUGIN_PATH") : "");
            return 1;
        }
        printf("ok   plugin loaded from HDF5_PLUGIN_PATH\n");
    } else {
        if (h5z_scz_register() < 0) {
            fprintf(stderr, "FAIL: h5z_scz_register\n");
            return 1;
        }
    }
    snprintf(path, sizeof path, "test_hdf5_%d%s.h5", (int)getpid(), plugin ? "_plugin" : "");
    float_cases();
    if (!plugin) {
        int_cases();
        rank_cases();
        bad_params();
        device_cases();
    }
    corrupt_case(200, "corrupted chunk payload");
    corrupt_case(0, "corrupted chunk header");
    corrupt_case(-3, "corrupted chunk end");
    remove(path);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("all HDF5 filter tests passed\n");
    return 0;
}
#endif

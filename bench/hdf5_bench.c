/*
 * hdf5_bench.c -- what the HDF5 filter (src/hdf5, docs/HDF5.md) costs on
 * top of scz itself (issue 13: under 5% on 512 MiB with 16 MiB chunks).
 * One float32 array (a 3D data file repeated along its slowest axis up to
 * --mib MiB), HDF5 chunks of whole slabs of about --chunk-mib MiB. For each
 * codec (ndzip lossless, lossy REL for each bound of --rel), write and read:
 *
 *   scz          scz_compress / scz_decompress of each chunk, in turn, on
 *                one context: the chunks HDF5 hands the filter (the edge
 *                chunk padded with the fill value, 0, as HDF5 pads it), so
 *                the streams are byte for byte the ones the filter writes;
 *   direct I/O   those precomputed streams written with H5Dwrite_chunk and
 *                read back with H5Dread_chunk into one dataset with the
 *                filter (file created / opened and closed in the time):
 *                HDF5 moving the compressed bytes, no filter run;
 *   filter       H5Dwrite / H5Dread of the whole array through the filter,
 *                with the time spent inside the filter callback and, of
 *                that, inside scz_compress / scz_decompress (this file
 *                includes h5z_scz.c to time them);
 *   raw          the same chunked dataset without a filter (HDF5's cost
 *                of moving the uncompressed array; context only).
 *
 * Reported: the filter path against scz alone (raw figure), and decomposed:
 *   filter own   = callback time - scz time inside it (the filter's code);
 *   HDF5 pipeline= filter path - callback - direct I/O (HDF5 gathering the
 *                  user's array into chunk buffers and scattering back,
 *                  chunk buffers; nothing the filter can remove);
 *   over scz+I/O = filter path - scz alone - direct I/O (what the filter
 *                  path adds over scz's own time plus HDF5 moving the
 *                  compressed bytes) = filter own + HDF5 pipeline + the
 *                  difference of scz's time inside the filter from scz
 *                  alone (caches: the filter compresses a chunk HDF5 has
 *                  just copied).
 * Each as a percentage of scz's own time. Wall clock, median of --reps
 * (one untimed warm-up run of each phase first). Use a RAM-backed --dir
 * (/dev/shm) so that the file system is not measured.
 *
 *   hdf5_bench --data ../shared/data --name wmag --mib 512 --chunk-mib 16 --dir /dev/shm --reps 5
 *
 * --backend cuda: scz alone on a CUDA context, and the filter on one too
 * (SCZ_HDF5_BACKEND=cuda, its device as docs/HDF5.md "GPU per rank" says);
 * --raw 0 skips the unfiltered dataset.
 */
#define _POSIX_C_SOURCE 200809L
#include "median.h"

#include <dirent.h>
#include <hdf5.h>
#include <scz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The filter compiled in here, its scz calls timed. */
static double t_scz_in_filter, t_call0;
static scz_status t_call_st;
#define H5Z_SCZ_CALL(call) \
    (t_call0 = now(), t_call_st = (call), t_scz_in_filter += now() - t_call0, t_call_st)
#include "h5z_scz.c"

static double t_in_filter;
static size_t timed_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
                           size_t *buf_size, void **buf) {
    const double t0 = now();
    const size_t r = filter(flags, cd_nelmts, cd_values, nbytes, buf_size, buf);
    t_in_filter += now() - t0;
    return r;
}

static long minflt(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
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

/* One run of one phase: wall time of write and read; for the filter path
 * also the time inside the callback and inside scz there; minor page
 * faults of each direction; the bytes stored. */
typedef struct run {
    double w, r, w_cb, r_cb, w_scz, r_scz;
    double w_flt, r_flt;
    size_t bytes;
} run;

typedef struct job {
    const float *a;    /* the array, Z x Y x X */
    const float *edge; /* the last chunk padded with 0 to cz slices (NULL: Z % cz == 0) */
    uint64_t Z, Y, X, cz, nch;
    const char *file;
} job;

static const void *chunk_src(const job *j, uint64_t k) {
    return (j->edge && k + 1 == j->nch) ? (const void *)j->edge : (const void *)(j->a + k * j->cz * j->Y * j->X);
}

/* scz alone: each chunk compressed into z[k], then decompressed. */
static int run_scz(scz_ctx *ctx, const scz_params *p, const job *j, uint8_t **z, size_t *zn, size_t cap,
                   float *back, run *out) {
    const size_t slab = (size_t)(j->cz * j->Y * j->X) * 4;
    scz_shape s = {SCZ_DTYPE_F32, 3, {j->X, j->Y, j->cz, 1}};
    long f0 = minflt();
    double t0 = now();
    size_t tot = 0;
    for (uint64_t k = 0; k < j->nch; k++) {
        if (scz_compress(ctx, p, &s, chunk_src(j, k), z[k], cap, &zn[k])) {
            fprintf(stderr, "scz_compress: %s\n", scz_ctx_last_error(ctx));
            return -1;
        }
        tot += zn[k];
    }
    double t1 = now();
    long f1 = minflt();
    out->bytes = tot;
    for (uint64_t k = 0; k < j->nch; k++) {
        if (scz_decompress(ctx, z[k], zn[k], (uint8_t *)back + k * slab, slab, NULL)) {
            fprintf(stderr, "scz_decompress: %s\n", scz_ctx_last_error(ctx));
            return -1;
        }
    }
    out->w = t1 - t0, out->r = now() - t1;
    out->w_flt = (double)(f1 - f0), out->r_flt = (double)(minflt() - f1);
    return 0;
}

static hid_t create(const job *j, const unsigned *cd, unsigned ncd, hid_t *f) {
    hsize_t dims[3] = {j->Z, j->Y, j->X}, ch[3] = {j->cz, j->Y, j->X};
    *f = H5Fcreate(j->file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(3, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, ch);
    if (cd) H5Pset_filter(dcpl, H5Z_FILTER_SCZ, H5Z_FLAG_MANDATORY, ncd, cd);
    hid_t ds = H5Dcreate2(*f, "d", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

/* The streams z[k] written with H5Dwrite_chunk, read back with
 * H5Dread_chunk into rbuf (one chunk's capacity, reused). */
static int run_direct(const job *j, const unsigned *cd, unsigned ncd, uint8_t *const *z, const size_t *zn,
                      uint8_t *rbuf, size_t cap, run *out) {
    long f0 = minflt();
    double t0 = now();
    hid_t f, ds = create(j, cd, ncd, &f);
    if (ds < 0) return -1;
    for (uint64_t k = 0; k < j->nch; k++) {
        hsize_t off[3] = {k * j->cz, 0, 0};
        if (H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, zn[k], z[k]) < 0) return -1;
    }
    H5Dclose(ds);
    H5Fclose(f);
    double t1 = now();
    long f1 = minflt();
    f = H5Fopen(j->file, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = H5Dopen2(f, "d", H5P_DEFAULT);
    if (ds < 0) return -1;
    size_t tot = 0;
    for (uint64_t k = 0; k < j->nch; k++) {
        hsize_t off[3] = {k * j->cz, 0, 0}, n = 0;
        uint32_t mask = 0;
        if (H5Dget_chunk_storage_size(ds, off, &n) < 0 || n > cap || H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, rbuf) < 0)
            return -1;
        tot += (size_t)n;
    }
    out->bytes = tot;
    H5Dclose(ds);
    H5Fclose(f);
    out->w = t1 - t0, out->r = now() - t1;
    out->w_flt = (double)(f1 - f0), out->r_flt = (double)(minflt() - f1);
    return 0;
}

/* The whole array through HDF5: with the filter (cd) or without (NULL). */
static int run_h5(const job *j, const unsigned *cd, unsigned ncd, float *back, run *out) {
    long f0 = minflt();
    t_in_filter = t_scz_in_filter = 0;
    double t0 = now();
    hid_t f, ds = create(j, cd, ncd, &f);
    if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, j->a) < 0) return -1;
    H5Dclose(ds);
    H5Fclose(f);
    double t1 = now();
    long f1 = minflt();
    out->w_cb = t_in_filter, out->w_scz = t_scz_in_filter;
    t_in_filter = t_scz_in_filter = 0;
    f = H5Fopen(j->file, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = H5Dopen2(f, "d", H5P_DEFAULT);
    if (ds < 0 || H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0) return -1;
    out->bytes = (size_t)H5Dget_storage_size(ds);
    H5Dclose(ds);
    H5Fclose(f);
    out->w = t1 - t0, out->r = now() - t1;
    out->r_cb = t_in_filter, out->r_scz = t_scz_in_filter;
    out->w_flt = (double)(f1 - f0), out->r_flt = (double)(minflt() - f1);
    return 0;
}

/* The streams in the file the filter wrote, byte for byte those of scz
 * alone (the direct I/O phase then moved the same bytes). */
static int same_streams(const job *j, uint8_t *const *z, const size_t *zn, uint8_t *rbuf, size_t cap) {
    hid_t f = H5Fopen(j->file, H5F_ACC_RDONLY, H5P_DEFAULT), ds = H5Dopen2(f, "d", H5P_DEFAULT);
    int same = ds >= 0;
    for (uint64_t k = 0; same && k < j->nch; k++) {
        hsize_t off[3] = {k * j->cz, 0, 0}, n = 0;
        uint32_t mask = 0;
        same = H5Dget_chunk_storage_size(ds, off, &n) >= 0 && n == zn[k] && n <= cap &&
               H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, rbuf) >= 0 && mask == 0 && !memcmp(rbuf, z[k], zn[k]);
    }
    H5Dclose(ds);
    H5Fclose(f);
    return same;
}

/* The median of v[0..n) (v unchanged). */
static double med(const double *v, int n) {
    double c[64];
    memcpy(c, v, (size_t)n * sizeof *v);
    return bench_median(c, n);
}

static void line(const char *what, double gb, double w, double r, double fw, double fr) {
    printf("  %-34s %7.3f s %6.2f GB/s   %7.3f s %6.2f GB/s", what, w, gb / w, r, gb / r);
    if (fw >= 0) printf("   %7.0f %7.0f", fw, fr);
    printf("\n");
}

static void pct(const char *what, double w, double r) {
    printf("  %-34s %+7.1f%%                %+7.1f%%\n", what, 100 * w, 100 * r);
}

int main(int argc, char **argv) {
    const char *data = getenv("SCZ_DATA_DIR"), *dir = "/dev/shm", *want = NULL, *rels = "1e-3";
    double mib = 512, chunk_mib = 16;
    int reps = 5, with_raw = 1, cuda = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--data")) data = argv[i + 1];
        else if (!strcmp(argv[i], "--mib")) mib = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--chunk-mib")) chunk_mib = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--dir")) dir = argv[i + 1];
        else if (!strcmp(argv[i], "--rel")) rels = argv[i + 1]; /* comma-separated; "" = none */
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--name")) want = argv[i + 1];
        else if (!strcmp(argv[i], "--raw")) with_raw = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--backend")) cuda = !strcmp(argv[i + 1], "cuda");
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
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
    if (cz > Z) cz = Z;
    const uint64_t nch = (Z + cz - 1) / cz;
    const size_t slab = (size_t)(cz * plane) * 4;
    float *edge = NULL;
    if (Z % cz) { /* HDF5 pads the edge chunk with the fill value (0) */
        edge = calloc(1, slab);
        memcpy(edge, a + (nch - 1) * cz * plane, (size_t)((Z - (nch - 1) * cz) * plane) * 4);
    }
    const double gb = (double)(Z * plane) * 4 / 1e9;
    char file[1024];
    snprintf(file, sizeof file, "%s/scz_hdf5_bench.h5", dir);
    job j = {a, edge, Z, Y, X, cz, nch, file};

    /* the filter, its callback timed */
    H5Z_class2_t cls = h5z_scz_class;
    cls.filter = timed_filter;
    if (H5Zregister(&cls) < 0) {
        printf("cannot register the filter\n");
        return 1;
    }
    scz_ctx *ctx;
    if (cuda) {
        setenv("SCZ_HDF5_BACKEND", "cuda", 1);
        if (cuda_ctx_create(&ctx) != SCZ_OK) { /* the filter's own choice of device */
            char msg[256];
            scz_backend_probe(SCZ_BACKEND_CUDA, msg, sizeof msg);
            printf("skipped: %s\n", msg);
            return 77;
        }
    } else if (scz_ctx_create(&ctx, SCZ_BACKEND_CPU) != SCZ_OK) {
        return 1;
    }
    const char *th = getenv("SCZ_HDF5_THREADS");
    if (th && atoi(th) > 0) scz_ctx_set_threads(ctx, atoi(th));
    float *back = malloc((size_t)(nch * cz * plane) * 4);
    memset(back, 0, (size_t)(nch * cz * plane) * 4);
    unsigned H5maj, H5min, H5rel;
    H5get_libversion(&H5maj, &H5min, &H5rel);
    printf("array: %s x%llu = %llux%llux%llu float32 (%.2f GB); HDF5 %u.%u.%u chunks %llux%llux%llu (%.1f MiB, %llu); "
           "file in %s; %s; median of %d\n",
           name, (unsigned long long)rep, (unsigned long long)Z, (unsigned long long)Y, (unsigned long long)X, gb,
           H5maj, H5min, H5rel, (unsigned long long)cz, (unsigned long long)Y, (unsigned long long)X,
           slab / 1048576.0, (unsigned long long)nch, dir, cuda ? "CUDA backend" : "CPU backend", reps);
    printf("  %-34s %-22s   %-22s   %s\n", "", "write", "read", "page faults w / r");
    if (with_raw) {
        run raw[64];
        for (int i = -1; i < reps; i++)
            if (run_h5(&j, NULL, 0, back, &raw[i < 0 ? 0 : i])) return 1;
        double w[64], r[64], fw[64], fr[64];
        for (int i = 0; i < reps; i++) w[i] = raw[i].w, r[i] = raw[i].r, fw[i] = raw[i].w_flt, fr[i] = raw[i].r_flt;
        line("HDF5 without a filter", gb, med(w, reps), med(r, reps), med(fw, reps), med(fr, reps));
    }
    const char *rp = rels;
    for (int c = 0;; c++) {
        scz_params p;
        char what[64];
        if (c == 0) {
            scz_params_init(&p, SCZ_CODEC_NDZIP);
            snprintf(what, sizeof what, "ndzip (lossless)");
        } else {
            while (*rp == ',') rp++;
            if (!*rp) break;
            char *end;
            double rel = strtod(rp, &end);
            if (end == rp) break;
            rp = end;
            scz_params_init(&p, SCZ_CODEC_LOSSY);
            p.eb_mode = SCZ_EB_REL;
            p.eb = rel;
            snprintf(what, sizeof what, "lossy REL %g", rel);
        }
        unsigned cd[H5Z_SCZ_USER_NELMTS];
        const unsigned ncd = h5z_scz_cd_values(cd, p.codec, p.eb_mode, p.eb);
        scz_shape s = {SCZ_DTYPE_F32, 3, {X, Y, cz, 1}};
        const size_t cap = scz_compress_bound(&s, &p);
        uint8_t **z = calloc(nch, sizeof *z), *rbuf = malloc(cap);
        size_t *zn = calloc(nch, sizeof *zn);
        for (uint64_t k = 0; k < nch; k++) memset(z[k] = malloc(cap), 0, cap);
        memset(rbuf, 0, cap);
        /* the phases interleaved in each rep (a warm-up rep first), so that
         * a slower spell of a shared machine hits them alike */
        run S[64], D[64], H[64];
        for (int i = -1; i < reps; i++) {
            const int k = i < 0 ? 0 : i;
            if (run_scz(ctx, &p, &j, z, zn, cap, back, &S[k]) || run_direct(&j, cd, ncd, z, zn, rbuf, cap, &D[k]) ||
                run_h5(&j, cd, ncd, back, &H[k])) {
                fprintf(stderr, "%s: failed\n", what);
                return 1;
            }
        }
        const int same = same_streams(&j, z, zn, rbuf, cap);
        remove(file);
        printf("%s: ratio %.3f (%.1f MB of chunks), filter's streams %s scz's\n", what, gb * 1e9 / S[0].bytes,
               S[0].bytes / 1e6, same ? "identical to" : "DIFFERENT from");
        enum { NQ = 22 };
        double q[NQ][64], m[NQ];
        for (int i = 0; i < reps; i++) {
            const run *s_ = &S[i], *d_ = &D[i], *h_ = &H[i];
            const double v[NQ] = {
                s_->w, s_->r, d_->w, d_->r, s_->w + d_->w, s_->r + d_->r, h_->w, h_->r, h_->w_cb, h_->r_cb,
                h_->w_scz, h_->r_scz,
                /* 12: filter path over scz; 14: over scz + direct I/O; 16: the
                 * filter's own; 18: HDF5's pipeline: fractions of scz's time */
                (h_->w - s_->w) / s_->w, (h_->r - s_->r) / s_->r, (h_->w - s_->w - d_->w) / s_->w,
                (h_->r - s_->r - d_->r) / s_->r, (h_->w_cb - h_->w_scz) / s_->w, (h_->r_cb - h_->r_scz) / s_->r,
                (h_->w - h_->w_cb - d_->w) / s_->w, (h_->r - h_->r_cb - d_->r) / s_->r,
                /* 20: scz inside the filter against scz alone (caches) */
                (h_->w_scz - s_->w) / s_->w, (h_->r_scz - s_->r) / s_->r};
            for (int t = 0; t < NQ; t++) q[t][i] = v[t];
        }
        for (int t = 0; t < NQ; t++) m[t] = med(q[t], reps);
        double fl[6][64];
        for (int i = 0; i < reps; i++)
            fl[0][i] = S[i].w_flt, fl[1][i] = S[i].r_flt, fl[2][i] = D[i].w_flt, fl[3][i] = D[i].r_flt,
            fl[4][i] = H[i].w_flt, fl[5][i] = H[i].r_flt;
        line("scz alone", gb, m[0], m[1], med(fl[0], reps), med(fl[1], reps));
        line("HDF5 direct chunk I/O (no filter)", gb, m[2], m[3], med(fl[2], reps), med(fl[3], reps));
        line("scz + direct I/O", gb, m[4], m[5], -1, -1);
        line("through the filter", gb, m[6], m[7], med(fl[4], reps), med(fl[5], reps));
        printf("  %-34s %7.3f s                %7.3f s\n", "  inside the filter callback", m[8], m[9]);
        printf("  %-34s %7.3f s                %7.3f s\n", "  of which inside scz", m[10], m[11]);
        printf("  (medians of each rep's fraction of scz's time)\n");
        pct("filter path over scz alone", m[12], m[13]);
        pct("filter path over scz + direct I/O", m[14], m[15]);
        pct("  the filter's own (callback - scz)", m[16], m[17]);
        pct("  HDF5 (path - callback - direct)", m[18], m[19]);
        pct("  scz in the filter - scz alone", m[20], m[21]);
        for (uint64_t k = 0; k < nch; k++) free(z[k]);
        free(z);
        free(zn);
        free(rbuf);
    }
    scz_ctx_destroy(ctx);
    free(back);
    free(edge);
    free(a);
    return 0;
}

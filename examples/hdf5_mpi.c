/*
 * hdf5_mpi: a 3D field written by several MPI ranks, each its own slab, to
 * one chunked, scz-filtered dataset of one file through parallel HDF5
 * (collective filtered writes, HDF5 >= 1.10.2), and read back on any number
 * of ranks (docs/HDF5.md).
 *
 *   mpirun -np 4 hdf5_mpi write field.h5    # each rank compresses its chunks
 *   mpirun -np 3 hdf5_mpi read field.h5     # checks bound and exactness
 *   mpirun -np 4 hdf5_mpi write big.h5 64   # 64 x the field's slices (timing)
 *
 * Datasets: /field float32, lossy ABS 1e-3; /exact float64, ndzip
 * (lossless). The field is analytic, so every rank knows the expected
 * values of what it reads. On a CUDA build, SCZ_HDF5_BACKEND=cuda makes the
 * filter compress on a GPU: each rank on its own, its local rank (from the
 * MPI launcher's environment) modulo the node's device count, unless
 * SCZ_HDF5_DEVICE names one (h5z_scz_cuda_device, docs/HDF5.md).
 */
#include "h5z_scz.h"
#include <hdf5.h>
#include <mpi.h>
#ifdef H5Z_SCZ_CUDA /* a CUDA build: say which GPU each rank's filter uses */
#include <cuda_runtime_api.h>
#endif
#include <scz.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hsize_t NZ = 96; /* slices: 96 x the optional third argument (benchmarks) */
#define NY 64
#define NX 80
#define CZ 8 /* chunk: 8 x 32 x 80 */
#define CY 32
#define ABS_BOUND 1e-3

static double field(hsize_t z, hsize_t y, hsize_t x) {
    return sin(0.05 * (double)x) * cos(0.07 * (double)y) + 0.3 * sin(0.11 * (double)z + 0.02 * (double)x);
}

/* rows [z0, z0 + nz) of rank r out of n */
static void slab(int r, int n, hsize_t *z0, hsize_t *nz) {
    hsize_t base = NZ / (hsize_t)n, rem = NZ % (hsize_t)n;
    *z0 = (hsize_t)r * base + ((hsize_t)r < rem ? (hsize_t)r : rem);
    *nz = base + ((hsize_t)r < rem ? 1 : 0);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || (strcmp(argv[1], "write") && strcmp(argv[1], "read"))) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np N %s write|read FILE\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
#if !H5_VERSION_GE(1, 10, 2)
    if (rank == 0) printf("skipped: parallel HDF5 %d.%d.%d has no collective filtered writes (1.10.2)\n",
                          H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
    MPI_Finalize();
    return 77;
#endif
    if (argc > 3 && atoi(argv[3]) > 1) NZ *= (hsize_t)atoi(argv[3]);
    int writing = strcmp(argv[1], "write") == 0;
    if (h5z_scz_register() < 0) {
        fprintf(stderr, "rank %d: h5z_scz_register failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#ifdef H5Z_SCZ_CUDA
    const char *backend = getenv("SCZ_HDF5_BACKEND");
    int ndev = 0;
    if (backend && strcmp(backend, "cuda") == 0) {
        if (cudaGetDeviceCount(&ndev) != cudaSuccess) ndev = 0;
        const int dev = h5z_scz_cuda_device(ndev);
        if (ndev > 0 && dev >= 0) printf("rank %d: the filter runs on GPU %d of %d\n", rank, dev, ndev);
        else if (ndev > 0) printf("rank %d: the filter runs on the current GPU (of %d)\n", rank, ndev);
        else printf("rank %d: no GPU, the filter runs on the CPU\n", rank);
    }
#endif
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = writing ? H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                      : H5Fopen(argv[2], H5F_ACC_RDONLY, fapl);
    if (f < 0) MPI_Abort(MPI_COMM_WORLD, 1);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE); /* filtered writes must be collective */

    hsize_t z0, nz;
    slab(rank, size, &z0, &nz);
    size_t n = (size_t)nz * NY * NX;
    float *f32 = malloc(n * sizeof(float) + 1);
    double *f64 = malloc(n * sizeof(double) + 1);
    hsize_t dims[3] = {NZ, NY, NX}, start[3] = {z0, 0, 0}, count[3] = {nz, NY, NX};
    hid_t fs = H5Screate_simple(3, dims, NULL);
    hid_t ms = H5Screate_simple(3, count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ds32, ds64;
    int bad = 0;
    double t0 = MPI_Wtime();
    if (writing) {
        for (hsize_t z = 0; z < nz; z++)
            for (hsize_t y = 0; y < NY; y++)
                for (hsize_t x = 0; x < NX; x++) {
                    double v = field(z0 + z, y, x);
                    f32[(z * NY + y) * NX + x] = (float)v;
                    f64[(z * NY + y) * NX + x] = v;
                }
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        hsize_t chunk[3] = {CZ, CY, NX};
        H5Pset_chunk(dcpl, 3, chunk);
        unsigned cd[H5Z_SCZ_USER_NELMTS];
        size_t ncd = h5z_scz_cd_values(cd, SCZ_CODEC_LOSSY, SCZ_EB_ABS, ABS_BOUND);
        H5Pset_filter(dcpl, H5Z_FILTER_SCZ, H5Z_FLAG_MANDATORY, ncd, cd);
        ds32 = H5Dcreate2(f, "field", H5T_IEEE_F32LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Premove_filter(dcpl, H5Z_FILTER_SCZ);
        ncd = h5z_scz_cd_values(cd, SCZ_CODEC_NDZIP, SCZ_EB_NONE, 0);
        H5Pset_filter(dcpl, H5Z_FILTER_SCZ, H5Z_FLAG_MANDATORY, ncd, cd);
        ds64 = H5Dcreate2(f, "exact", H5T_IEEE_F64LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        if (ds32 < 0 || ds64 < 0) MPI_Abort(MPI_COMM_WORLD, 1);
        if (H5Dwrite(ds32, H5T_NATIVE_FLOAT, ms, fs, dxpl, f32) < 0) bad = 1;
        if (H5Dwrite(ds64, H5T_NATIVE_DOUBLE, ms, fs, dxpl, f64) < 0) bad = 1;
    } else {
        ds32 = H5Dopen2(f, "field", H5P_DEFAULT);
        ds64 = H5Dopen2(f, "exact", H5P_DEFAULT);
        if (ds32 < 0 || ds64 < 0) MPI_Abort(MPI_COMM_WORLD, 1);
        if (H5Dread(ds32, H5T_NATIVE_FLOAT, ms, fs, dxpl, f32) < 0) bad = 1;
        if (H5Dread(ds64, H5T_NATIVE_DOUBLE, ms, fs, dxpl, f64) < 0) bad = 1;
        double maxerr = 0;
        for (hsize_t z = 0; !bad && z < nz; z++)
            for (hsize_t y = 0; y < NY; y++)
                for (hsize_t x = 0; x < NX; x++) {
                    double v = field(z0 + z, y, x);
                    size_t i = (z * NY + y) * NX + x;
                    double e = fabs((double)f32[i] - (double)(float)v);
                    maxerr = e > maxerr ? e : maxerr;
                    if (e > ABS_BOUND) bad = 1;
                    if (memcmp(&f64[i], &v, sizeof v) != 0) bad = 1;
                }
        double gmax;
        MPI_Reduce(&maxerr, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("read on %d ranks: float32 max error %.3g (bound %g), float64 exact\n", size, gmax, ABS_BOUND);
    }
    H5Dclose(ds32); H5Dclose(ds64);
    H5Sclose(ms); H5Sclose(fs); H5Pclose(dxpl);
    H5Fclose(f); H5Pclose(fapl);
    double t = MPI_Wtime() - t0;
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        double mib = (double)NZ * NY * NX * 12 / 1048576.0;
        printf("%s %.1f MiB (float32 + float64) on %d ranks: %.3f s, %s\n", argv[1], mib, size, t,
               anybad ? "FAILED" : "ok");
    }
    free(f32); free(f64);
    MPI_Finalize();
    return anybad ? 1 : 0;
}

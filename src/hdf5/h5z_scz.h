/*
 * h5z_scz.h -- the scz HDF5 filter (docs/HDF5.md).
 *
 * Each HDF5 chunk is compressed into one scz stream. The filter is a
 * shared library loadable through HDF5_PLUGIN_PATH (libh5z_scz.so), or
 * registered from a program with h5z_scz_register().
 *
 * cd_values (unsigned int each; the user gives the first H5Z_SCZ_USER_NELMTS
 * or fewer, missing ones are 0; set_local appends the rest):
 *   [0]      codec (scz_codec: 1 ndzip, 2 lossy, 3 huffman, 4 gfc, 5 lzss;
 *            0 = the default for the dtype)
 *   [1]      error-bound mode (scz_eb_mode: 0 none, 1 abs, 2 rel, 3 psnr)
 *   [2], [3] the bound, an IEEE double: [2] low 32 bits, [3] high 32 bits
 *   [4..9]   the codec's knobs (scz_params.knobs, 0 = default)
 *   [10]     flags: bit 0 = compress on a CUDA context (falls back to the CPU
 *            when no GPU is usable)
 *   filled by set_local:
 *   [11]     layout version of these cd_values (1)
 *   [12]     scz dtype
 *   [13]     rank (1..4)
 *   [14..17] chunk dims, fastest-varying first (unused = 1)
 */
#ifndef H5Z_SCZ_H
#define H5Z_SCZ_H

#ifdef __cplusplus
extern "C" {
#endif

/* From HDF5's range for testing (256-511) until an id is registered with
 * The HDF Group. */
#define H5Z_FILTER_SCZ 378

#define H5Z_SCZ_USER_NELMTS 11
#define H5Z_SCZ_NELMTS 18
#define H5Z_SCZ_CD_VERSION 1
#define H5Z_SCZ_FLAG_CUDA 1u

/* Registers the filter with the HDF5 library of the calling program.
 * Returns a non-negative value on success, negative on failure. */
int h5z_scz_register(void);

/* The CUDA device (0 .. device_count-1) the filter compresses on in this
 * process, from the environment; -1 = the device current in the calling
 * thread. SCZ_HDF5_DEVICE=n picks device n (modulo device_count),
 * SCZ_HDF5_DEVICE=current keeps the current device; otherwise the local rank
 * on the node, from the first of OMPI_COMM_WORLD_LOCAL_RANK (Open MPI),
 * MPI_LOCALRANKID (MPICH, Intel MPI), MV2_COMM_WORLD_LOCAL_RANK (MVAPICH2),
 * SLURM_LOCALID (srun), PMI_LOCAL_RANK, PALS_LOCAL_RANKID (Cray/HPE),
 * FLUX_TASK_LOCAL_ID (Flux), JSM_NAMESPACE_LOCAL_RANK (jsrun) that holds a
 * number, modulo device_count; none: -1. -1 also for device_count < 1.
 * Depends on nothing but the environment (any build; docs/HDF5.md). */
int h5z_scz_cuda_device(int device_count);

/* Fills cd[0..H5Z_SCZ_USER_NELMTS) for a codec (scz_codec), bound mode
 * (scz_eb_mode) and bound; knobs and flags 0. Returns the count to pass to
 * H5Pset_filter. */
static inline unsigned h5z_scz_cd_values(unsigned cd[H5Z_SCZ_USER_NELMTS], unsigned codec,
                                         unsigned eb_mode, double bound) {
    union { double d; unsigned long long u; } b;
    unsigned i;
    b.d = bound;
    for (i = 0; i < H5Z_SCZ_USER_NELMTS; i++) cd[i] = 0;
    cd[0] = codec;
    cd[1] = eb_mode;
    cd[2] = (unsigned)(b.u & 0xffffffffu);
    cd[3] = (unsigned)(b.u >> 32);
    return H5Z_SCZ_USER_NELMTS;
}

#ifdef __cplusplus
}
#endif
#endif

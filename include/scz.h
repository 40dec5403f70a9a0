/*
 * scz.h -- the whole public C API of scz, a compression library for
 * scientific arrays (float32/float64 fields, multi-byte integer data).
 *
 * Conventions
 *  - Dimensions are given FASTEST-VARYING FIRST (x, y, z, w), like zfp and
 *    SZ3's command line: a C array a[nz][ny][nx] has dims {nx, ny, nz}.
 *  - All multi-byte data (arrays and streams) is little-endian.
 *  - The caller provides every buffer; the library never keeps a pointer to
 *    caller memory after a call returns.
 *  - Nothing in the library is global and mutable: separate contexts may be
 *    used from separate threads at the same time. One context must not be
 *    used by two threads at once.
 *  - Every function that can fail returns an scz_status; scz_ctx_last_error()
 *    gives a human-readable message for the last failure on that context.
 *
 * The byte format of a stream is specified in docs/FORMAT.md.
 */
#ifndef SCZ_H
#define SCZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the shared library are hidden unless marked SCZ_API. */
#if defined(__GNUC__)
#define SCZ_API __attribute__((visibility("default")))
#else
#define SCZ_API
#endif

#define SCZ_VERSION_MAJOR 0
#define SCZ_VERSION_MINOR 1
#define SCZ_VERSION_PATCH 0

/* Version of the stream format this library writes (docs/FORMAT.md). */
#define SCZ_FORMAT_VERSION 1

/* Largest rank accepted. Rank 4 is folded into 3D by the codecs. */
#define SCZ_MAX_RANK 4

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */
typedef enum scz_status {
    SCZ_OK = 0,
    SCZ_ERR_ARG = 1,          /* invalid argument (NULL pointer, bad shape, bad parameter) */
    SCZ_ERR_UNSUPPORTED = 2,  /* valid request this codec/backend/dtype cannot do */
    SCZ_ERR_NOMEM = 3,        /* an allocation failed */
    SCZ_ERR_DST_TOO_SMALL = 4,/* destination capacity is too small */
    SCZ_ERR_NOT_SCZ = 5,      /* input does not start with the scz magic */
    SCZ_ERR_VERSION = 6,      /* stream written by a newer/unknown format version */
    SCZ_ERR_TRUNCATED = 7,    /* stream is shorter than its own sizes say */
    SCZ_ERR_CHECKSUM = 8,     /* a header, table or chunk checksum does not match */
    SCZ_ERR_CORRUPT = 9,      /* stream fields are inconsistent or out of range */
    SCZ_ERR_OVERFLOW = 10,    /* a size does not fit in 64 bits / size_t */
    SCZ_ERR_BACKEND = 11,     /* backend unavailable (e.g. CUDA asked for, no device) */
    SCZ_ERR_INTERNAL = 12     /* a bug: please report */
} scz_status;

/* Short static description of a status code (never NULL). */
SCZ_API const char *scz_status_string(scz_status s);

/* ------------------------------------------------------------------ */
/* Data types, codecs, error-bound modes, backends                     */
/* ------------------------------------------------------------------ */
typedef enum scz_dtype {
    SCZ_DTYPE_F32 = 1,
    SCZ_DTYPE_F64 = 2,
    SCZ_DTYPE_U8 = 3,
    SCZ_DTYPE_U16 = 4,
    SCZ_DTYPE_U32 = 5,
    SCZ_DTYPE_U64 = 6
} scz_dtype;

/* Size in bytes of one element, 0 for an unknown dtype. */
SCZ_API size_t scz_dtype_size(scz_dtype t);
/* "f32", "f64", "u8", ...; NULL for an unknown dtype. */
SCZ_API const char *scz_dtype_name(scz_dtype t);
/* Parses "f32"/"float32"/"float", "f64"/"float64"/"double", "u8", ...
 * Returns 0 for an unknown name. */
SCZ_API scz_dtype scz_dtype_from_name(const char *name);

typedef enum scz_codec {
    SCZ_CODEC_NDZIP = 1,   /* lossless float32/float64 (ndzip) */
    SCZ_CODEC_LOSSY = 2,   /* error-bounded lossy (dual-quantization Lorenzo) */
    SCZ_CODEC_HUFFMAN = 3, /* lossless canonical Huffman of u8/u16/u32 symbols */
    SCZ_CODEC_GFC = 4,     /* lossless float64 (GFC) */
    SCZ_CODEC_LZSS = 5     /* lossless LZSS over 1/2/4-byte symbols */
} scz_codec;

/* "ndzip", "lossy", ...; NULL for an unknown codec. */
SCZ_API const char *scz_codec_name(scz_codec c);
/* Inverse of scz_codec_name; 0 for an unknown name. */
SCZ_API scz_codec scz_codec_from_name(const char *name);
/* 1 if this build of the library implements the codec on the CPU. */
SCZ_API int scz_codec_available(scz_codec c);
/* 1 if the codec is lossless (bit-exact). */
SCZ_API int scz_codec_is_lossless(scz_codec c);
/* 1 if this build implements the codec for arrays of the dtype. */
SCZ_API int scz_codec_accepts(scz_codec c, scz_dtype t);

typedef enum scz_eb_mode {
    SCZ_EB_NONE = 0, /* lossless codecs */
    SCZ_EB_ABS = 1,  /* |x - x'| <= bound */
    SCZ_EB_REL = 2,  /* |x - x'| <= bound * (max - min) of the whole array */
    SCZ_EB_PSNR = 3  /* target PSNR in dB; bound derived from the value range */
} scz_eb_mode;

SCZ_API const char *scz_eb_mode_name(scz_eb_mode m); /* "none","abs","rel","psnr" */
SCZ_API scz_eb_mode scz_eb_mode_from_name(const char *name); /* case-insensitive; -1 if unknown */

typedef enum scz_backend {
    SCZ_BACKEND_CPU = 0,
    SCZ_BACKEND_CUDA = 1
} scz_backend;

/* ------------------------------------------------------------------ */
/* Shapes and parameters                                               */
/* ------------------------------------------------------------------ */
typedef struct scz_shape {
    scz_dtype dtype;
    uint32_t rank;                /* 1..SCZ_MAX_RANK */
    uint64_t dims[SCZ_MAX_RANK];  /* fastest-varying first; unused = 1; 0 = empty array */
} scz_shape;

/* Number of elements (product of the rank's dims); 0 on overflow or bad rank. */
SCZ_API uint64_t scz_shape_count(const scz_shape *s);

/* Number of codec-specific knobs carried in the stream header. */
#define SCZ_NUM_KNOBS 6

typedef struct scz_params {
    scz_codec codec;
    scz_eb_mode eb_mode;   /* SCZ_EB_NONE for lossless codecs */
    double eb;             /* the bound (ABS, REL) or target dB (PSNR) */
    uint64_t chunk_bytes;  /* target raw bytes per chunk; 0 = the codec's default (32 MiB; gfc 4 MiB) */
    /* Codec knobs, 0 = the codec's default. Meaning per codec, see FORMAT.md:
     *   lossy: knobs[0] quantization radius (default 512)
     *          knobs[1] workflow: 0 auto, 1 Huffman, 2 run-length
     *   lzss:  knobs[0] symbol bytes 1/2/4/8, [1] window in symbols (256),
     *          [2] minimum match, [3] shuffle 1 off / 2 on, [4] log2 symbols
     *          per sub-chunk (12); defaults from the dtype (FORMAT.md 11.1)
     *   others: unused, must be 0. */
    uint32_t knobs[SCZ_NUM_KNOBS];
} scz_params;

/* Fills *p with the defaults of a codec (eb_mode NONE, eb 0, knobs 0). */
SCZ_API void scz_params_init(scz_params *p, scz_codec codec);

/* Default and extreme chunk sizes (gfc's default: 4 MiB, FORMAT.md 3). */
#define SCZ_DEFAULT_CHUNK_BYTES ((uint64_t)32 << 20)
#define SCZ_MIN_CHUNK_BYTES ((uint64_t)4 << 10)
#define SCZ_MAX_CHUNK_BYTES ((uint64_t)1 << 30)

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */
typedef struct scz_ctx scz_ctx;

/* Creates a context for a backend. Returns SCZ_ERR_BACKEND (and *out NULL)
 * when the backend is not built in or no device is present. */
SCZ_API scz_status scz_ctx_create(scz_ctx **out, scz_backend backend);
SCZ_API void scz_ctx_destroy(scz_ctx *ctx);

/* Threads used on the CPU backend; 0 (default) = all available cores. */
SCZ_API scz_status scz_ctx_set_threads(scz_ctx *ctx, int threads);

/* Optional progress callback, called from the calling thread after each
 * chunk is done, with the raw bytes done so far and in total. NULL
 * disables it. */
typedef void (*scz_progress_fn)(void *user, uint64_t done_bytes, uint64_t total_bytes);
SCZ_API void scz_ctx_set_progress(scz_ctx *ctx, scz_progress_fn fn, void *user);

/* Message for the last failure on this context ("" if none). */
SCZ_API const char *scz_ctx_last_error(const scz_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Compression                                                         */
/* ------------------------------------------------------------------ */

/* Upper bound of the compressed size of any array of this shape with these
 * parameters; 0 if the shape/params are invalid or the bound overflows. */
SCZ_API size_t scz_compress_bound(const scz_shape *shape, const scz_params *params);

/* Compresses the array src (host memory, shape->dims, little-endian) into
 * dst[0..dst_cap). On success *dst_size is the stream size. */
SCZ_API scz_status scz_compress(scz_ctx *ctx, const scz_params *params, const scz_shape *shape,
                        const void *src, void *dst, size_t dst_cap, size_t *dst_size);

/* Decompresses a whole stream into dst, which must hold the raw size
 * (scz_inspect tells it). If shape is not NULL it receives the stream's shape. */
SCZ_API scz_status scz_decompress(scz_ctx *ctx, const void *src, size_t src_size,
                          void *dst, size_t dst_cap, scz_shape *shape);

/* ------------------------------------------------------------------ */
/* Inspection                                                          */
/* ------------------------------------------------------------------ */
typedef struct scz_info {
    uint32_t format_version;
    scz_shape shape;
    scz_params params;      /* codec, eb_mode, eb (user's), chunk_bytes=0, knobs */
    double eb_abs;          /* absolute bound actually used (lossy), else 0 */
    uint64_t raw_bytes;     /* decompressed size */
    uint64_t stream_bytes;  /* total compressed size */
    uint32_t num_chunks;
    uint64_t chunk_slab;    /* slowest-dimension indices per chunk */
} scz_info;

/* Reads header and chunk table (verifying their checksums and consistency)
 * without decoding chunks. */
SCZ_API scz_status scz_inspect(const void *src, size_t src_size, scz_info *info);

typedef struct scz_chunk_info {
    uint64_t offset;        /* byte offset of the payload in the stream */
    uint64_t size;          /* compressed payload size */
    uint64_t checksum;      /* as stored */
    uint64_t raw_offset;    /* byte offset of the chunk in the raw array */
    uint64_t raw_bytes;     /* raw size of the chunk */
    uint32_t codec_info;    /* codec-specific (lossy: workflow), FORMAT.md */
} scz_chunk_info;

SCZ_API scz_status scz_inspect_chunk(const void *src, size_t src_size, uint32_t index,
                             scz_chunk_info *info);

/* Decodes one chunk alone into dst (capacity >= its raw_bytes). */
SCZ_API scz_status scz_decompress_chunk(scz_ctx *ctx, const void *src, size_t src_size,
                                uint32_t index, void *dst, size_t dst_cap);

/* ------------------------------------------------------------------ */
/* Incremental compression and decompression (arrays larger than memory) */
/* ------------------------------------------------------------------ */
/* The array goes through in pieces, chunk by chunk, in both directions, so
 * that memory stays at a few chunk buffers (chunks are params->chunk_bytes
 * raw, 32 MiB by default, gfc 4 MiB) plus 32 bytes per chunk for the chunk table,
 * whatever the size of the array. Streams are those of scz_compress, in
 * one of two layouts (docs/FORMAT.md section 9):
 *
 *  SCZ_LAYOUT_TABLE_FIRST  header, chunk table, payloads: the bytes
 *      scz_compress writes. The table is known only at the end, so the
 *      output must be seekable: the first bytes pulled are a zero-filled
 *      placeholder for header and table, overwritten at the end.
 *  SCZ_LAYOUT_TABLE_LAST   header, then each payload behind a 32-byte frame
 *      (size, checksum), then the table and a footer: written front to
 *      back, for pipes and sockets.
 *
 * scz_decompress, scz_inspect, scz_inspect_chunk, scz_decompress_chunk and
 * the incremental decoder read both layouts (scz_cuda_decompress, whose
 * input is in device memory, reads table-first streams only).
 *
 * A stream object uses its context for the work and for error messages
 * (scz_ctx_last_error): the context must outlive it, and serves one call at
 * a time, but several stream objects (a compressor and a decoder, say) may
 * share it. On a SCZ_BACKEND_CUDA context, codecs with GPU kernels run on
 * the GPU, a few chunks at a time. The progress callback of the context is
 * called after each chunk. After an error (other than a misuse reported as
 * SCZ_ERR_ARG or SCZ_ERR_DST_TOO_SMALL) every later call on the object
 * returns the same status. */
typedef enum scz_layout {
    SCZ_LAYOUT_TABLE_FIRST = 0,
    SCZ_LAYOUT_TABLE_LAST = 1
} scz_layout;

typedef struct scz_cstream scz_cstream;

/* Starts compressing an array of this shape with these parameters (the
 * checks of scz_compress apply). The lossy codec's REL and PSNR bounds
 * depend on the whole array (FORMAT.md 7.1): its value range, and for PSNR
 * the error a candidate bound gives. The stream then first asks for passes
 * over the array (scz_cstream_pass_needed below), and the bound it derives
 * is the one scz_compress derives, so the stream is the same.
 * value_range (may be NULL): {min, max} of the finite values of the whole
 * array ({0, 0} if it has none; scz_value_range over pieces combined by min
 * and max gives it; float32 arrays: taken to the nearest float32 values)
 * spares the pass that would find it. Ignored for other codecs and bounds. */
SCZ_API scz_status scz_cstream_begin(scz_ctx *ctx, const scz_params *params, const scz_shape *shape,
                                     const double *value_range, scz_layout layout, scz_cstream **out);

/* 1 while the bound needs another pass over the whole array before the
 * first chunk: feed the array, in order and in any pieces, to
 * scz_cstream_pass_feed, then call scz_cstream_pass_end, and ask again
 * (REL without a value range: one pass; PSNR: one more, and a few where
 * the rule tightens the bound). 0 once compression can start. A source
 * that cannot be read twice (a pipe) must be kept (a temporary file) or
 * given an ABS bound. */
SCZ_API int scz_cstream_pass_needed(const scz_cstream *cs);
SCZ_API scz_status scz_cstream_pass_feed(scz_cstream *cs, const void *src, size_t n);
SCZ_API scz_status scz_cstream_pass_end(scz_cstream *cs);

/* Takes up to n bytes of the raw array, in order, any amount per call;
 * *used receives how many were taken. When the bytes complete a chunk it is
 * compressed in this call, and no more bytes are taken (*used < n, possibly
 * 0) until its compressed bytes have been collected with scz_cstream_pull.
 * Chunks given whole in one call are compressed from src without a copy
 * (on a CUDA context: the few chunks of a GPU batch). More bytes than the
 * array holds: SCZ_ERR_ARG. */
SCZ_API scz_status scz_cstream_feed(scz_cstream *cs, const void *src, size_t n, size_t *used);

/* The next compressed bytes to append to the output: *data points to *n
 * bytes inside cs, valid until the next feed or end; *n = 0 when none are
 * waiting. The first bytes (header or placeholder) are waiting once no
 * pass is needed. */
SCZ_API scz_status scz_cstream_pull(scz_cstream *cs, const void **data, size_t *n);

/* Round-trip check without a second pass: decodes, back from its
 * compressed bytes and after verifying their checksum as a decoder does,
 * the next chunk that has been compressed and not yet decoded, into dst
 * (capacity at least the chunk's raw size); *n = its raw bytes, 0 when
 * no chunk is waiting. A chunk can be decoded until the next feed
 * compresses more; chunks not decoded by then are skipped. Optional. */
SCZ_API scz_status scz_cstream_decode(scz_cstream *cs, void *dst, size_t cap, size_t *n);

/* Once the whole array has been fed and every compressed byte pulled: the
 * last bytes, *data[0..*n), to be written at stream offset *offset: 0 for
 * SCZ_LAYOUT_TABLE_FIRST (header and table, over the placeholder), the end
 * of the pulled bytes for SCZ_LAYOUT_TABLE_LAST (table and footer).
 * *stream_size (may be NULL) receives the size of the whole stream. */
SCZ_API scz_status scz_cstream_end(scz_cstream *cs, const void **data, size_t *n, uint64_t *offset,
                                   uint64_t *stream_size);

/* Header fields of the stream being written (as scz_inspect gives them;
 * stream_bytes counts the bytes produced so far). */
SCZ_API scz_status scz_cstream_info(const scz_cstream *cs, scz_info *info);
/* As scz_inspect_chunk, for a chunk already compressed (else SCZ_ERR_ARG). */
SCZ_API scz_status scz_cstream_inspect_chunk(const scz_cstream *cs, uint32_t index, scz_chunk_info *info);

SCZ_API void scz_cstream_free(scz_cstream *cs);

typedef struct scz_dstream scz_dstream;

/* Starts decoding a stream of either layout, fed in order from its first
 * byte (a file or a pipe alike). */
SCZ_API scz_status scz_dstream_begin(scz_ctx *ctx, scz_dstream **out);

/* Takes up to n bytes of the stream, any amount per call; *used receives
 * how many were taken. Header, table and frames are validated as they
 * arrive. No more bytes are taken while a chunk is complete and waiting for
 * scz_dstream_pull, nor after the end of the stream: *used = 0 with no
 * chunk waiting means the stream has ended before src[0..n) (trailing
 * bytes are the caller's to reject). */
SCZ_API scz_status scz_dstream_feed(scz_dstream *ds, const void *src, size_t n, size_t *used);

/* Available once the 128 header bytes have been fed (SCZ_ERR_ARG before):
 * shape, codec, bound and chunking, as scz_inspect gives them (stream_bytes
 * 0 until it is known). The largest chunk holds chunk_slab slices of the
 * slowest dimension: chunk_slab * raw_bytes / dims[rank - 1] bytes. */
SCZ_API scz_status scz_dstream_info(const scz_dstream *ds, scz_info *info);

/* As scz_inspect_chunk, for a chunk whose table entry (table first) or
 * frame (table last) has been fed: every chunk pulled so far, and the one
 * waiting (else SCZ_ERR_ARG). */
SCZ_API scz_status scz_dstream_inspect_chunk(const scz_dstream *ds, uint32_t index, scz_chunk_info *info);

/* Decodes the waiting chunk, if one is complete, into dst (capacity at
 * least its raw size); *n = its raw bytes, 0 when no chunk is waiting
 * (feed more). Chunks come in order; the payload's checksum is verified
 * before decoding, so dst only ever receives verified data. */
SCZ_API scz_status scz_dstream_pull(scz_dstream *ds, void *dst, size_t cap, size_t *n);

/* SCZ_OK when the whole stream has been fed and validated (with the table
 * and footer of the table-last layout) and every chunk pulled; otherwise
 * the error, SCZ_ERR_TRUNCATED for a stream that stops early. */
SCZ_API scz_status scz_dstream_end(scz_dstream *ds);

SCZ_API void scz_dstream_free(scz_dstream *ds);

/* ------------------------------------------------------------------ */
/* Error statistics (computed in double precision)                     */
/* ------------------------------------------------------------------ */
typedef struct scz_stats {
    uint64_t count;          /* elements compared */
    uint64_t nonfinite;      /* NaN/Inf in the original */
    uint64_t nonfinite_mismatch; /* non-finite originals not reproduced bit for bit */
    double min, max;         /* of the finite original values */
    double range;            /* max - min */
    double max_abs_err;      /* max |x - x'| over finite pairs */
    double max_rel_err;      /* max_abs_err / range; if range is 0: 0 when exact, else +inf */
    double rmse;
    double nrmse;            /* rmse / range; if range is 0: 0 when exact, else +inf */
    double psnr;             /* 20 log10(range) - 10 log10(MSE); +inf if MSE 0 */
    double mean_abs_err;
} scz_stats;

/* Compares orig and dec, both `count` elements of dtype (F32/F64 or integer
 * types). Pairs where the original is non-finite are excluded from the
 * error figures and counted in nonfinite / nonfinite_mismatch. */
SCZ_API scz_status scz_stats_compute(scz_dtype dtype, const void *orig, const void *dec,
                             uint64_t count, scz_stats *out);

/* Min and max of the finite values (for REL bounds); returns 0 finite if none. */
SCZ_API scz_status scz_value_range(scz_dtype dtype, const void *data, uint64_t count,
                           double *min, double *max, uint64_t *finite);

/* ------------------------------------------------------------------ */
/* CUDA backend (docs/GPU.md)                                           */
/* ------------------------------------------------------------------ */
/* A context created with SCZ_BACKEND_CUDA runs on the CUDA device that is
 * current in the creating thread (cudaSetDevice before scz_ctx_create to
 * pick another). It writes exactly the bytes the CPU backend writes, and
 * each backend reads the other's streams.
 *
 * Host pointers keep working on a CUDA context: scz_compress,
 * scz_decompress and scz_decompress_chunk stream the array chunk by chunk
 * through pinned staging buffers, copies overlapping kernels on several CUDA
 * streams, so arrays larger than GPU memory work and device memory stays
 * bounded (a few batches of chunks). Codecs without GPU kernels in this
 * build (scz_cuda_codec_supported() == 0) run on the CPU there.
 *
 * The functions below take DEVICE pointers and a CUDA stream. Device
 * buffers must be 16-byte aligned (cudaMalloc's are). They need no CUDA
 * headers: scz_cuda_stream is the same type as cudaStream_t. */
typedef struct CUstream_st *scz_cuda_stream; /* == cudaStream_t; NULL = default stream */

/* SCZ_OK if the backend can be used on this machine; otherwise
 * SCZ_ERR_BACKEND and the reason in msg[0..msg_cap) (msg may be NULL):
 * not built in, no CUDA device, driver too old... scz_ctx_create fails
 * with SCZ_ERR_BACKEND in exactly these cases. */
SCZ_API scz_status scz_backend_probe(scz_backend backend, char *msg, size_t msg_cap);

/* 1 if this build has GPU kernels for both compression and decompression
 * with the codec (ndzip, huffman, lossy). */
SCZ_API int scz_cuda_codec_supported(scz_codec c);

/* Device scratch memory that scz_cuda_compress or scz_cuda_decompress needs
 * for an array of this shape compressed with these params (chunk size
 * included); 0 if they are invalid. The context owns its scratch, grows it
 * on demand (cudaMalloc, which synchronizes the device) and reuses it, so
 * calls after the first of a given size allocate nothing. */
SCZ_API size_t scz_cuda_scratch_size(const scz_shape *shape, const scz_params *params);

/* Grows the context's device scratch to at least `bytes` now, so that no
 * later call allocates. */
SCZ_API scz_status scz_cuda_reserve(scz_ctx *ctx, size_t bytes);

/* Compresses the array at d_src (device memory) into d_dst (device memory,
 * dst_cap >= scz_compress_bound(shape, params), else SCZ_ERR_DST_TOO_SMALL).
 * All chunks go to the GPU in one batch; everything is queued on `stream`
 * and the call returns without waiting. When the stream reaches the end of
 * the work, the stream size (uint64_t) is stored to *size_out, which must
 * be device-accessible: device memory, or pinned host memory
 * (cudaMallocHost / cudaHostAlloc / cudaHostRegister). Read it after
 * cudaStreamSynchronize(stream) (or an event). The progress callback is not
 * called. Returns errors of the request (arguments, shape, unsupported
 * codec, out of device memory, launch failure) immediately.
 * One context serves one call at a time: calls on different streams with
 * the same context must be ordered by the caller (its scratch is shared). */
SCZ_API scz_status scz_cuda_compress(scz_ctx *ctx, const scz_params *params, const scz_shape *shape,
                                     const void *d_src, void *d_dst, size_t dst_cap,
                                     uint64_t *size_out, scz_cuda_stream stream);

/* Decompresses the stream d_src[0..src_size) (device memory) into d_dst
 * (device memory of at least the raw size). The header and chunk table are
 * first copied to the host and validated (a small copy the call waits for:
 * bad headers are reported at once), then checksum verification and
 * decoding are queued on `stream`. If shape is not NULL it receives the
 * stream's shape.
 *  - status_out == NULL: the call waits for the stream and returns the
 *    outcome (checksum mismatch, corrupt payload) with a message.
 *  - status_out != NULL (device-accessible, as size_out above): the call
 *    returns SCZ_OK once queued and the outcome (an scz_status, int-sized)
 *    is stored to *status_out when the stream reaches the end of the work.
 * The decoded array is meaningful only when the outcome is SCZ_OK. */
SCZ_API scz_status scz_cuda_decompress(scz_ctx *ctx, const void *d_src, size_t src_size, void *d_dst,
                                       size_t dst_cap, scz_shape *shape, scz_status *status_out,
                                       scz_cuda_stream stream);

#ifdef __cplusplus
}
#endif
#endif /* SCZ_H */

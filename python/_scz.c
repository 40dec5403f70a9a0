/*
 * _scz.c -- the Python binding of the scz library (module scz._scz): a thin
 * layer over include/scz.h, no second implementation of anything. Arrays
 * cross it as buffers (the buffer protocol, no copy) or, for GPU arrays, as
 * device pointers; numpy / CuPy specifics live in the Python package
 * (python/scz/__init__.py). Shapes here are C order (slowest first, numpy's
 * convention); the library's are fastest first, reversed at this boundary.
 * Compression and decompression release the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "scz.h"

#include <string.h>

#define SCZ_HEADER_BYTES 128 /* FORMAT.md 2 */

static PyObject *SczError; /* scz.SczError: .status (name), .code (int) */

/* Raises SczError with the library's message (ctx may be NULL). */
static PyObject *raise_status(scz_status st, const scz_ctx *ctx, const char *what) {
    const char *msg = ctx ? scz_ctx_last_error(ctx) : "";
    PyObject *exc = PyObject_CallFunction(SczError, "s", "");
    if (!exc) return NULL;
    PyObject *text = PyUnicode_FromFormat("%s: %s%s%s", what, scz_status_string(st), msg && msg[0] ? ": " : "",
                                          msg ? msg : "");
    if (text) {
        PyObject *args = PyTuple_Pack(1, text);
        if (args) {
            PyObject_SetAttrString(exc, "args", args);
            Py_DECREF(args);
        }
        Py_DECREF(text);
    }
    PyObject *code = PyLong_FromLong((long)st);
    PyObject *name = PyUnicode_FromString(scz_status_string(st));
    if (code) PyObject_SetAttrString(exc, "code", code);
    if (name) PyObject_SetAttrString(exc, "status", name);
    Py_XDECREF(code);
    Py_XDECREF(name);
    PyErr_SetObject(SczError, exc);
    Py_DECREF(exc);
    return NULL;
}

/* A shape from a C-order sequence of non-negative ints. */
static int parse_shape(PyObject *seq, scz_dtype dtype, scz_shape *s) {
    PyObject *f = PySequence_Fast(seq, "shape must be a sequence of ints");
    if (!f) return -1;
    const Py_ssize_t r = PySequence_Fast_GET_SIZE(f);
    if (r < 1 || r > SCZ_MAX_RANK) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "scz takes arrays of 1 to %d dimensions, not %zd", SCZ_MAX_RANK, r);
        return -1;
    }
    memset(s, 0, sizeof *s);
    s->dtype = dtype;
    s->rank = (uint32_t)r;
    for (int i = 0; i < SCZ_MAX_RANK; i++) s->dims[i] = 1;
    for (Py_ssize_t i = 0; i < r; i++) {
        const unsigned long long d = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(f, i));
        if (PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
        s->dims[r - 1 - i] = d; /* fastest first */
    }
    Py_DECREF(f);
    return 0;
}

static PyObject *shape_tuple(const scz_shape *s) {
    PyObject *t = PyTuple_New(s->rank);
    if (!t) return NULL;
    for (uint32_t i = 0; i < s->rank; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromUnsignedLongLong(s->dims[s->rank - 1 - i]));
    return t;
}

static scz_dtype dtype_arg(const char *name) {
    const scz_dtype t = scz_dtype_from_name(name);
    if (!scz_dtype_size(t)) PyErr_Format(PyExc_ValueError, "unsupported dtype '%s'", name);
    return t;
}

/* Parameters from keywords: codec, mode, bound, knobs, chunk_bytes. */
static int make_params(const char *codec, const char *mode, double bound, PyObject *knobs,
                       unsigned long long chunk_bytes, scz_params *p) {
    const scz_codec c = scz_codec_from_name(codec);
    if (!scz_codec_name(c)) {
        PyErr_Format(PyExc_ValueError, "unknown codec '%s'", codec);
        return -1;
    }
    scz_params_init(p, c);
    if (mode && mode[0]) {
        const scz_eb_mode m = scz_eb_mode_from_name(mode);
        if ((int)m < 0) {
            PyErr_Format(PyExc_ValueError, "unknown error-bound mode '%s' (abs, rel, psnr, none)", mode);
            return -1;
        }
        p->eb_mode = m;
    }
    p->eb = bound;
    p->chunk_bytes = chunk_bytes;
    if (knobs && knobs != Py_None) {
        PyObject *f = PySequence_Fast(knobs, "knobs must be a sequence of ints");
        if (!f) return -1;
        const Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
        if (k > SCZ_NUM_KNOBS) {
            Py_DECREF(f);
            PyErr_Format(PyExc_ValueError, "at most %d knobs", SCZ_NUM_KNOBS);
            return -1;
        }
        for (Py_ssize_t i = 0; i < k; i++) {
            const unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(f, i));
            if (PyErr_Occurred()) {
                Py_DECREF(f);
                return -1;
            }
            p->knobs[i] = (uint32_t)v;
        }
        Py_DECREF(f);
    }
    return 0;
}

/* ---------------- Context ---------------- */

typedef struct {
    PyObject_HEAD scz_ctx *ctx;
    int backend; /* scz_backend */
    PyThread_type_lock lock; /* one call at a time per context */
} Context;

static void Context_dealloc(Context *self) {
    if (self->ctx) scz_ctx_destroy(self->ctx);
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Context_init(Context *self, PyObject *args, PyObject *kw) {
    static char *kwl[] = {"backend", "threads", NULL};
    const char *backend = "cpu";
    int threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|si", kwl, &backend, &threads)) return -1;
    scz_backend b;
    if (!strcmp(backend, "cpu")) b = SCZ_BACKEND_CPU;
    else if (!strcmp(backend, "cuda") || !strcmp(backend, "gpu")) b = SCZ_BACKEND_CUDA;
    else {
        PyErr_Format(PyExc_ValueError, "unknown backend '%s' (cpu, cuda)", backend);
        return -1;
    }
    if (self->ctx) {
        scz_ctx_destroy(self->ctx);
        self->ctx = NULL;
    }
    scz_status st = scz_ctx_create(&self->ctx, b);
    if (st) {
        char why[512] = "";
        scz_backend_probe(b, why, sizeof why);
        PyErr_Format(SczError, "cannot create a %s context: %s%s%s", backend, scz_status_string(st), why[0] ? ": " : "",
                     why);
        self->ctx = NULL;
        return -1;
    }
    if (threads && (st = scz_ctx_set_threads(self->ctx, threads))) {
        raise_status(st, self->ctx, "set_threads");
        return -1;
    }
    self->backend = (int)b;
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int ready(Context *self) {
    if (!self->ctx) {
        PyErr_SetString(SczError, "context is not initialized");
        return 0;
    }
    return 1;
}

/* compress(buf, dtype, shape, codec, mode, bound, knobs, chunk_bytes) -> bytes */
static PyObject *Context_compress(Context *self, PyObject *args, PyObject *kw) {
    static char *kwl[] = {"data", "dtype", "shape", "codec", "mode", "bound", "knobs", "chunk_bytes", NULL};
    Py_buffer in;
    const char *dtn, *codec = "ndzip", *mode = "";
    PyObject *shape, *knobs = NULL;
    double bound = 0;
    unsigned long long chunk = 0;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*sO|ssdOK", kwl, &in, &dtn, &shape, &codec, &mode, &bound, &knobs,
                                     &chunk))
        return NULL;
    PyObject *out = NULL;
    scz_shape s;
    scz_params p;
    const scz_dtype dt = dtype_arg(dtn);
    if (PyErr_Occurred() || parse_shape(shape, dt, &s) || make_params(codec, mode, bound, knobs, chunk, &p)) goto done;
    const size_t raw = (size_t)scz_shape_count(&s) * scz_dtype_size(dt);
    if ((size_t)in.len != raw) {
        PyErr_Format(PyExc_ValueError, "the buffer holds %zd bytes, the shape and dtype need %zu", in.len, raw);
        goto done;
    }
    const size_t bound_bytes = scz_compress_bound(&s, &p);
    if (!bound_bytes) {
        raise_status(SCZ_ERR_ARG, NULL, "compress_bound (invalid shape or parameters)");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)bound_bytes);
    if (!out) goto done;
    size_t zn = 0;
    scz_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = scz_compress(self->ctx, &p, &s, in.buf, PyBytes_AS_STRING(out), bound_bytes, &zn);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS if (st) {
        Py_CLEAR(out);
        raise_status(st, self->ctx, "compress");
        goto done;
    }
    _PyBytes_Resize(&out, (Py_ssize_t)zn);
done:
    PyBuffer_Release(&in);
    return out;
}

/* decompress_into(stream, out_buffer): out must hold exactly the array. */
static PyObject *Context_decompress_into(Context *self, PyObject *args) {
    Py_buffer in, out;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "y*w*", &in, &out)) return NULL;
    scz_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = scz_decompress(self->ctx, in.buf, (size_t)in.len, out.buf, (size_t)out.len, NULL);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    if (st) return raise_status(st, self->ctx, "decompress");
    Py_RETURN_NONE;
}

/* ---- device pointers (a CUDA context): ints, as __cuda_array_interface__ gives them ---- */

/* compress_device(src_ptr, dtype, shape, dst_ptr, dst_cap, size_ptr, stream, codec, mode, bound, knobs,
 * chunk_bytes): queued on the stream; the stream size goes to size_ptr (device-accessible memory: device
 * or pinned host) when the stream gets there. */
static PyObject *Context_compress_device(Context *self, PyObject *args, PyObject *kw) {
    static char *kwl[] = {"src", "dtype", "shape", "dst", "dst_cap", "size_ptr", "stream", "codec", "mode", "bound",
                          "knobs", "chunk_bytes", NULL};
    unsigned long long src, dst, cap, sizep, stream;
    const char *dtn, *codec = "ndzip", *mode = "";
    PyObject *shape, *knobs = NULL;
    double bound = 0;
    unsigned long long chunk = 0;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "KsOKKKK|ssdOK", kwl, &src, &dtn, &shape, &dst, &cap, &sizep, &stream,
                                     &codec, &mode, &bound, &knobs, &chunk))
        return NULL;
    scz_shape s;
    scz_params p;
    const scz_dtype dt = dtype_arg(dtn);
    if (PyErr_Occurred() || parse_shape(shape, dt, &s) || make_params(codec, mode, bound, knobs, chunk, &p))
        return NULL;
    scz_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = scz_cuda_compress(self->ctx, &p, &s, (const void *)(uintptr_t)src, (void *)(uintptr_t)dst, (size_t)cap,
                           (uint64_t *)(uintptr_t)sizep, (scz_cuda_stream)(uintptr_t)stream);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS if (st) return raise_status(st, self->ctx, "compress (device)");
    Py_RETURN_NONE;
}

/* decompress_device(src_ptr, src_size, dst_ptr, dst_cap, stream): waits. */
static PyObject *Context_decompress_device(Context *self, PyObject *args) {
    unsigned long long src, n, dst, cap, stream;
    if (!ready(self)) return NULL;
    if (!PyArg_ParseTuple(args, "KKKKK", &src, &n, &dst, &cap, &stream)) return NULL;
    scz_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
    st = scz_cuda_decompress(self->ctx, (const void *)(uintptr_t)src, (size_t)n, (void *)(uintptr_t)dst, (size_t)cap,
                             NULL, NULL, (scz_cuda_stream)(uintptr_t)stream);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS if (st) return raise_status(st, self->ctx, "decompress (device)");
    Py_RETURN_NONE;
}

static PyObject *Context_get_backend(Context *self, void *unused) {
    (void)unused;
    return PyUnicode_FromString(self->backend == SCZ_BACKEND_CUDA ? "cuda" : "cpu");
}

static PyMethodDef Context_methods[] = {
    {"compress", (PyCFunction)(void (*)(void))Context_compress, METH_VARARGS | METH_KEYWORDS,
     "compress(data, dtype, shape, codec='ndzip', mode='', bound=0.0, knobs=None, chunk_bytes=0) -> bytes"},
    {"decompress_into", (PyCFunction)Context_decompress_into, METH_VARARGS,
     "decompress_into(stream, out): decodes into the writable buffer out (exactly the array's bytes)"},
    {"compress_device", (PyCFunction)(void (*)(void))Context_compress_device, METH_VARARGS | METH_KEYWORDS,
     "compress_device(src, dtype, shape, dst, dst_cap, size_ptr, stream, codec=..., ...): device pointers"},
    {"decompress_device", (PyCFunction)Context_decompress_device, METH_VARARGS,
     "decompress_device(src, src_size, dst, dst_cap, stream): device pointers; waits"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Context_getset[] = {
    {"backend", (getter)Context_get_backend, NULL, "'cpu' or 'cuda'", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scz._scz.Context",
    .tp_basicsize = sizeof(Context),
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A reusable scz context: Context(backend='cpu'|'cuda', threads=0)",
    .tp_methods = Context_methods,
    .tp_getset = Context_getset,
    .tp_init = (initproc)Context_init,
    .tp_new = PyType_GenericNew,
};

/* ---------------- module functions ---------------- */

static PyObject *info_dict(const scz_info *ip) {
    const scz_info info = *ip;
    PyObject *shape = shape_tuple(&info.shape);
    if (!shape) return NULL;
    const scz_params *p = &info.params;
    PyObject *knobs = Py_BuildValue("(IIIIII)", p->knobs[0], p->knobs[1], p->knobs[2], p->knobs[3], p->knobs[4],
                                    p->knobs[5]);
    const char *cn = scz_codec_name(p->codec), *mn = scz_eb_mode_name(p->eb_mode);
    return Py_BuildValue("{s:s,s:N,s:s,s:s,s:d,s:d,s:N,s:K,s:K,s:I,s:K,s:O,s:I}", "dtype",
                         scz_dtype_name(info.shape.dtype), "shape", shape, "codec", cn ? cn : "?", "mode",
                         mn ? mn : "?", "bound", p->eb, "abs_bound", info.eb_abs, "knobs", knobs, "raw_bytes",
                         (unsigned long long)info.raw_bytes, "stream_bytes", (unsigned long long)info.stream_bytes,
                         "chunks", info.num_chunks, "chunk_slab", (unsigned long long)info.chunk_slab, "lossless",
                         scz_codec_is_lossless(p->codec) ? Py_True : Py_False, "format_version",
                         info.format_version);
}

/* info(stream) -> dict (header and chunk table verified) */
static PyObject *mod_info(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    scz_info info;
    scz_status st = scz_inspect(in.buf, (size_t)in.len, &info);
    PyBuffer_Release(&in);
    if (st) return raise_status(st, NULL, "info");
    return info_dict(&info);
}

/* header_info(first bytes) -> dict from the 128-byte header alone
 * (stream_bytes 0): what a decoder must allocate before it has the stream. */
static PyObject *mod_header_info(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    scz_ctx *c = NULL;
    scz_dstream *ds = NULL;
    scz_info info;
    size_t used = 0;
    scz_status st = scz_ctx_create(&c, SCZ_BACKEND_CPU);
    if (!st) st = scz_dstream_begin(c, &ds);
    if (!st) st = scz_dstream_feed(ds, in.buf, in.len < SCZ_HEADER_BYTES ? (size_t)in.len : SCZ_HEADER_BYTES, &used);
    if (!st) st = scz_dstream_info(ds, &info);
    PyObject *r = st ? raise_status(st, c, "header_info") : info_dict(&info);
    scz_dstream_free(ds);
    scz_ctx_destroy(c);
    PyBuffer_Release(&in);
    return r;
}

/* stats(dtype, original, decoded) -> dict */
static PyObject *mod_stats(PyObject *self, PyObject *args) {
    (void)self;
    const char *dtn;
    Py_buffer a, b;
    if (!PyArg_ParseTuple(args, "sy*y*", &dtn, &a, &b)) return NULL;
    PyObject *r = NULL;
    const scz_dtype dt = dtype_arg(dtn);
    if (!PyErr_Occurred()) {
        const size_t es = scz_dtype_size(dt);
        if (a.len != b.len || a.len % (Py_ssize_t)es) {
            PyErr_SetString(PyExc_ValueError, "stats needs two arrays of the same size and dtype");
        } else {
            scz_stats o;
            scz_status st;
            Py_BEGIN_ALLOW_THREADS st = scz_stats_compute(dt, a.buf, b.buf, (uint64_t)a.len / es, &o);
            Py_END_ALLOW_THREADS if (st) raise_status(st, NULL, "stats");
            else r = Py_BuildValue("{s:K,s:K,s:K,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "count",
                                   (unsigned long long)o.count, "nonfinite", (unsigned long long)o.nonfinite,
                                   "nonfinite_mismatch", (unsigned long long)o.nonfinite_mismatch, "min", o.min, "max",
                                   o.max, "range", o.range, "max_abs_err", o.max_abs_err, "max_rel_err",
                                   o.max_rel_err, "mean_abs_err", o.mean_abs_err, "rmse", o.rmse, "nrmse", o.nrmse,
                                   "psnr", o.psnr);
        }
    }
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return r;
}

/* compress_bound(dtype, shape, codec, mode, bound, knobs, chunk_bytes) -> int */
static PyObject *mod_compress_bound(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *kwl[] = {"dtype", "shape", "codec", "mode", "bound", "knobs", "chunk_bytes", NULL};
    const char *dtn, *codec = "ndzip", *mode = "";
    PyObject *shape, *knobs = NULL;
    double bound = 0;
    unsigned long long chunk = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|ssdOK", kwl, &dtn, &shape, &codec, &mode, &bound, &knobs, &chunk))
        return NULL;
    scz_shape s;
    scz_params p;
    const scz_dtype dt = dtype_arg(dtn);
    if (PyErr_Occurred() || parse_shape(shape, dt, &s) || make_params(codec, mode, bound, knobs, chunk, &p))
        return NULL;
    return PyLong_FromSize_t(scz_compress_bound(&s, &p));
}

/* backend_available(name) -> (bool, message) */
static PyObject *mod_backend_available(PyObject *self, PyObject *args) {
    (void)self;
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    const scz_backend b = !strcmp(name, "cuda") || !strcmp(name, "gpu") ? SCZ_BACKEND_CUDA : SCZ_BACKEND_CPU;
    char why[512] = "";
    const scz_status st = scz_backend_probe(b, why, sizeof why);
    return Py_BuildValue("(Os)", st == SCZ_OK ? Py_True : Py_False, why);
}

/* codecs() -> list of dicts */
static PyObject *mod_codecs(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (int c = 1; c < 16 && l; c++) {
        const char *n = scz_codec_name((scz_codec)c);
        if (!n) continue;
        PyObject *d = Py_BuildValue("{s:s,s:O,s:O,s:O}", "name", n, "available",
                                    scz_codec_available((scz_codec)c) ? Py_True : Py_False, "lossless",
                                    scz_codec_is_lossless((scz_codec)c) ? Py_True : Py_False, "gpu",
                                    scz_cuda_codec_supported((scz_codec)c) ? Py_True : Py_False);
        if (!d || PyList_Append(l, d)) Py_CLEAR(l);
        Py_XDECREF(d);
    }
    return l;
}

/* accepts(codec, dtype) -> bool */
static PyObject *mod_accepts(PyObject *self, PyObject *args) {
    (void)self;
    const char *codec, *dtn;
    if (!PyArg_ParseTuple(args, "ss", &codec, &dtn)) return NULL;
    const scz_codec c = scz_codec_from_name(codec);
    const scz_dtype t = scz_dtype_from_name(dtn);
    return PyBool_FromLong(scz_codec_name(c) && scz_dtype_size(t) && scz_codec_accepts(c, t));
}

static PyMethodDef mod_methods[] = {
    {"info", mod_info, METH_VARARGS, "info(stream) -> dict: dtype, shape (C order), codec, bounds, sizes"},
    {"header_info", mod_header_info, METH_VARARGS, "header_info(first 128 bytes) -> dict from the header alone"},
    {"stats", mod_stats, METH_VARARGS, "stats(dtype, original, decoded) -> dict of error statistics"},
    {"compress_bound", (PyCFunction)(void (*)(void))mod_compress_bound, METH_VARARGS | METH_KEYWORDS,
     "compress_bound(dtype, shape, codec=..., ...) -> the largest stream size"},
    {"backend_available", mod_backend_available, METH_VARARGS, "backend_available('cpu'|'cuda') -> (ok, why)"},
    {"codecs", mod_codecs, METH_NOARGS, "codecs() -> the codecs of this build"},
    {"accepts", mod_accepts, METH_VARARGS, "accepts(codec, dtype) -> bool"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_scz", "The C binding of the scz library (include/scz.h).", -1, mod_methods,
    NULL,                  NULL,   NULL,                                                  NULL,
};

PyMODINIT_FUNC PyInit__scz(void) {
    if (PyType_Ready(&ContextType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    SczError = PyErr_NewExceptionWithDoc("scz.SczError",
                                         "An error reported by the scz library; .status is its name, .code its "
                                         "number (scz.h's scz_status).",
                                         PyExc_RuntimeError, NULL);
    Py_INCREF(&ContextType);
    if (!SczError || PyModule_AddObject(m, "SczError", SczError) ||
        PyModule_AddObject(m, "Context", (PyObject *)&ContextType)) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(SczError);
    return m;
}

/*
 * ndzip_tmpl.h -- the width-generic part of the CPU ndzip codec, included
 * by ndzip.c once for 32-bit (float32) and once for 64-bit (float64)
 * elements with T (unsigned type), W (bits) and SFX (name suffix) defined.
 * Implements docs/FORMAT.md sections 6.1-6.5 for one hypercube.
 */
#define NDZ_CAT_(a, b) a##_##b
#define NDZ_CAT(a, b) NDZ_CAT_(a, b)
#define FN(name) NDZ_CAT(name, SFX)
#define G ((unsigned)(NDZIP_HC_ELEMS / W))

static inline T FN(rotl1)(T u) { return (T)((u << 1) | (u >> (W - 1))); }
static inline T FN(rotr1)(T u) { return (T)((u >> 1) | (u << (W - 1))); }
/* 6.4: flip all but the top bit when the top bit is set (an involution). */
static inline T FN(smap)(T r) { return r ^ ((T)(0 - (r >> (W - 1))) >> 1); }

/* Element access through memcpy: caller arrays need no alignment. */
static inline T FN(load)(const uint8_t *p) { T v; memcpy(&v, p, sizeof v); return v; }
static inline T FN(ld)(const uint8_t *row, uint64_t i) { return FN(load)(row + i * sizeof(T)); }
static inline void FN(st)(uint8_t *row, uint64_t i, T v) { memcpy(row + i * sizeof(T), &v, sizeof v); }

/* W x W bit-matrix transpose, MSB-first rows and columns (6.5): afterwards
 * bit W-1-i of a[c] is the former bit W-1-c of a[i]. Its own inverse.
 * Classic recursive block swap; the inner loops over contiguous runs let
 * the compiler vectorise the wide stages. */
static inline void FN(transpose)(T *a) {
    T m = (T)(~(T)0) >> (W / 2);
    for (unsigned j = W / 2; j; j >>= 1, m ^= (T)(m << j)) {
        for (unsigned base = 0; base < W; base += 2 * j) {
            for (unsigned k = base; k < base + j; k++) {
                T t = (a[k] ^ (a[k + j] >> j)) & m;
                a[k] ^= t;
                a[k + j] ^= (T)(t << j);
            }
        }
    }
}

/* Loads hypercube (b0,b1,b2) with edge replication, maps (6.2) and applies
 * the x difference on the fly, then the y and z differences (6.3). */
static void FN(forward)(const ndz_geo *z, const uint8_t *src, uint64_t b0, uint64_t b1, uint64_t b2, T *a) {
    const unsigned sx = z->sx, sy = z->sy, sz = z->sz;
    const uint64_t e0 = z->e[0], e1 = z->e[1], e2 = z->e[2];
    const uint64_t x0 = b0 * sx;
    const int full_x = x0 + sx <= e0;
    for (unsigned l2 = 0; l2 < sz; l2++) {
        uint64_t g2 = b2 * sz + l2;
        if (g2 >= e2) g2 = e2 - 1;
        for (unsigned l1 = 0; l1 < sy; l1++) {
            uint64_t g1 = b1 * sy + l1;
            if (g1 >= e1) g1 = e1 - 1;
            const uint8_t *row = src + ((g2 * e1 + g1) * e0 + x0) * sizeof(T);
            T *ar = a + ((size_t)l2 * sy + l1) * sx;
            if (full_x) {
                ar[0] = FN(rotl1)(FN(ld)(row, 0));
                for (unsigned lx = 1; lx < sx; lx++)
                    ar[lx] = FN(rotl1)(FN(ld)(row, lx)) - FN(rotl1)(FN(ld)(row, lx - 1));
            } else {
                uint64_t n = e0 - x0; /* 1..sx-1 valid elements, then replicate the last */
                T prev = 0;
                for (unsigned lx = 0; lx < sx; lx++) {
                    T m = FN(rotl1)(FN(ld)(row, lx < n ? lx : n - 1));
                    ar[lx] = m - prev;
                    prev = m;
                }
            }
        }
        if (sy > 1) {
            T *pl = a + (size_t)l2 * sy * sx;
            for (unsigned l1 = sy - 1; l1 >= 1; l1--)
                for (unsigned lx = 0; lx < sx; lx++) pl[l1 * sx + lx] -= pl[(l1 - 1) * sx + lx];
        }
    }
    if (sz > 1) {
        const size_t plane = (size_t)sx * sy;
        for (unsigned l2 = sz - 1; l2 >= 1; l2--) {
            T *p = a + l2 * plane, *q = p - plane;
            for (size_t i = 0; i < plane; i++) p[i] -= q[i];
        }
    }
}

/* Encodes the residuals a[4096] (destroyed) into out; returns the bytes. */
static size_t FN(pack)(T *a, uint8_t *out) {
    T *heads = (T *)out; /* out is 8-byte aligned scratch */
    T *cols = heads + G;
    size_t nc = 0;
    for (unsigned g = 0; g < G; g++) {
        T *q = a + (size_t)g * W;
        T any = 0;
        for (unsigned i = 0; i < W; i++) {
            q[i] = FN(smap)(q[i]);
            any |= q[i];
        }
        if (!any) { /* zero-head short cut */
            heads[g] = 0;
            continue;
        }
        FN(transpose)(q);
        T head = 0;
        for (unsigned c = 0; c < W; c++) {
            T w = q[c];
            head |= (T)(w != 0) << (W - 1 - c);
            cols[nc] = w; /* room guaranteed: the scratch slot holds G*(W+1) words */
            nc += w != 0;
        }
        heads[g] = head;
    }
    return (G + nc) * sizeof(T);
}

/* Decodes one hypercube of exactly `len` bytes into a[4096] (residuals
 * undone, still mapped). Returns 0, or -1 if the length is inconsistent. */
static int FN(unpack)(const uint8_t *in, uint64_t len, T *a) {
    if (len < (uint64_t)G * sizeof(T)) return -1;
    uint64_t pops = 0;
    for (unsigned g = 0; g < G; g++) pops += (uint64_t)__builtin_popcountll((unsigned long long)FN(load)(in + g * sizeof(T)));
    if (len != (G + pops) * sizeof(T)) return -1;
    const uint8_t *col = in + (size_t)G * sizeof(T);
    for (unsigned g = 0; g < G; g++) {
        T head = FN(load)(in + g * sizeof(T));
        T *q = a + (size_t)g * W;
        if (!head) {
            memset(q, 0, W * sizeof(T));
            continue;
        }
        for (unsigned c = 0; c < W; c++) {
            if ((head >> (W - 1 - c)) & 1) {
                q[c] = FN(load)(col);
                col += sizeof(T);
            } else {
                q[c] = 0;
            }
        }
        FN(transpose)(q);
        for (unsigned i = 0; i < W; i++) q[i] = FN(smap)(q[i]);
    }
    return 0;
}

/* Inverse Lorenzo (partial sums along z, y, then x), unmapping, and store
 * of the elements inside the chunk. */
static void FN(inverse)(const ndz_geo *z, T *a, uint64_t b0, uint64_t b1, uint64_t b2, uint8_t *dst) {
    const unsigned sx = z->sx, sy = z->sy, sz = z->sz;
    const uint64_t e0 = z->e[0], e1 = z->e[1], e2 = z->e[2];
    const size_t plane = (size_t)sx * sy;
    const uint64_t x0 = b0 * sx;
    const unsigned nx = (unsigned)(e0 - x0 < sx ? e0 - x0 : sx);
    unsigned ny = (unsigned)(e1 - b1 * sy < sy ? e1 - b1 * sy : sy);
    unsigned nz = (unsigned)(e2 - b2 * sz < sz ? e2 - b2 * sz : sz);
    for (unsigned l2 = 1; l2 < nz; l2++) {
        T *p = a + l2 * plane, *q = p - plane;
        for (size_t i = 0; i < plane; i++) p[i] += q[i];
    }
    for (unsigned l2 = 0; l2 < nz; l2++) {
        T *pl = a + l2 * plane;
        for (unsigned l1 = 1; l1 < ny; l1++)
            for (unsigned lx = 0; lx < sx; lx++) pl[l1 * sx + lx] += pl[(l1 - 1) * sx + lx];
        for (unsigned l1 = 0; l1 < ny; l1++) {
            const T *ar = pl + (size_t)l1 * sx;
            uint8_t *row = dst + (((b2 * sz + l2) * e1 + (b1 * sy + l1)) * e0 + x0) * sizeof(T);
            T acc = 0;
            for (unsigned lx = 0; lx < nx; lx++) {
                acc += ar[lx];
                FN(st)(row, lx, FN(rotr1)(acc));
            }
        }
    }
}

#undef G
#undef FN
#undef NDZ_CAT
#undef NDZ_CAT_

/*
 * test_container.c -- white-box tests of the container (docs/FORMAT.md
 * sections 2-5): header and chunk-table round trips and byte layout, every
 * rejection a reader must make, chunk geometry, and the blocked checksum
 * against an independent implementation of its definition.
 */
#include "format/container.h"
#include "testutil.h"

#include <string.h>

/* ---------- helpers ---------- */

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static uint64_t dbits(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
/* Recomputes the header checksum after an edit (FORMAT.md 2: XXH64 of 0..119). */

static const char *st(scz_status s) { return scz_status_string(s); }

/* A valid header of a non-empty f32 3D array: 10 x 20 x 30, slab 7 -> 5 chunks. */
static scz_header base_header(void) {
    scz_header h;
    memset(&h, 0, sizeof h);
    h.version = 1;
    h.codec = SCZ_CODEC_NDZIP;
    h.dtype = SCZ_DTYPE_F32;
    h.rank = 3;
    h.dims[0] = 10;
    h.dims[1] = 20;
    h.dims[2] = 30;
    h.dims[3] = 1;
    h.raw_bytes = 10 * 20 * 30 * 4;
    h.chunk_slab = 7;
    h.num_chunks = 5;
    h.cksum_block_log2 = 12;
    return h;
}

static int headers_equal(const scz_header *a, const scz_header *b) {
    if (a->version != b->version || a->codec != b->codec || a->dtype != b->dtype ||
        a->rank != b->rank || a->flags != b->flags || a->raw_bytes != b->raw_bytes ||
        a->chunk_slab != b->chunk_slab || a->num_chunks != b->num_chunks ||
        a->cksum_block_log2 != b->cksum_block_log2 || a->eb_mode != b->eb_mode ||
        dbits(a->eb_user) != dbits(b->eb_user) || dbits(a->eb_abs) != dbits(b->eb_abs))
        return 0;
    for (int i = 0; i < SCZ_MAX_RANK; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    for (int i = 0; i < SCZ_NUM_KNOBS; i++)
        if (a->knobs[i] != b->knobs[i]) return 0;
    return 1;
}

/* ---------- header ---------- */

static void test_header_layout(void) {
    scz_header h = base_header();
    h.codec = SCZ_CODEC_LOSSY;
    h.dtype = SCZ_DTYPE_F64;
    h.raw_bytes = 10 * 20 * 30 * 8;
    h.eb_mode = SCZ_EB_REL;
    h.eb_user = 1e-3;
    h.eb_abs = 0.0123456789;
    h.cksum_block_log2 = 13;
    for (int i = 0; i < SCZ_NUM_KNOBS; i++) h.knobs[i] = 0x01020304u * (uint32_t)(i + 1);
    uint8_t b[SCZ_HEADER_SIZE];
    memset(b, 0xEE, sizeof b);
    scz__header_write(&h, b);
    static const uint8_t magic[8] = {0x89, 0x53, 0x43, 0x5A, 0x0D, 0x0A, 0x1A, 0x0A};
    CHECK(memcmp(b, magic, 8) == 0, "magic bytes");
    CHECK(b[8] == 1 && b[9] == 0, "version LE16 at 8: %02x %02x", b[8], b[9]);
    CHECK(b[10] == 128 && b[11] == 0, "header_size LE16 at 10");
    CHECK(b[12] == 2 && b[13] == 2 && b[14] == 3 && b[15] == 0, "codec/dtype/rank/flags at 12..15");
    CHECK(le64(b + 16) == 10 && le64(b + 24) == 20 && le64(b + 32) == 30 && le64(b + 40) == 1,
          "dims at 16..47, unused = 1");
    CHECK(le64(b + 48) == 10 * 20 * 30 * 8, "raw_bytes at 48");
    CHECK(le64(b + 56) == 7, "chunk_slab at 56");
    CHECK(le32(b + 64) == 5, "num_chunks at 64");
    CHECK(b[68] == 13, "cksum_block_log2 at 68");
    CHECK(b[69] == 2, "eb_mode at 69");
    CHECK(b[70] == 0 && b[71] == 0, "reserved at 70");
    CHECK(le64(b + 72) == dbits(1e-3), "eb_user at 72");
    CHECK(le64(b + 80) == dbits(0.0123456789), "eb_abs at 80");
    for (int i = 0; i < SCZ_NUM_KNOBS; i++)
        CHECK(le32(b + 88 + 4 * i) == h.knobs[i], "knob %d at %d", i, 88 + 4 * i);
    CHECK(le64(b + 112) == 0, "reserved at 112");
    CHECK(le64(b + 120) == tu_xxh64(b, 120, 0), "header checksum = tu_xxh64(bytes 0..119, seed 0)");

    scz_header r;
    memset(&r, 0x55, sizeof r);
    scz_status s = scz__header_read(NULL, b, sizeof b, &r);
    CHECK(s == SCZ_OK, "read back: %s", st(s));
    CHECK(headers_equal(&h, &r), "every field survives write -> read");
}

/* Round trip over every codec id, dtype, rank and an empty array. */
static void test_header_roundtrips(void) {
    int n = 0;
    for (int codec = 1; codec <= 5; codec++)
        for (int dtype = 1; dtype <= 6; dtype++)
            for (uint32_t rank = 1; rank <= 4; rank++)
                for (int empty = 0; empty <= 1; empty++) {
                    scz_header h;
                    memset(&h, 0, sizeof h);
                    h.version = 1;
                    h.codec = (scz_codec)codec;
                    h.dtype = (scz_dtype)dtype;
                    h.rank = rank;
                    uint64_t count = 1;
                    for (uint32_t i = 0; i < 4; i++) {
                        h.dims[i] = i < rank ? 3 + 2 * i + (uint64_t)codec : 1;
                        if (empty && i == rank / 2) h.dims[i] = 0;
                        count *= h.dims[i];
                    }
                    h.raw_bytes = count * scz_dtype_size(h.dtype);
                    uint64_t slow = h.dims[rank - 1];
                    if (count) {
                        h.chunk_slab = slow > 2 ? 2 : 1;
                        h.num_chunks = (uint32_t)((slow + h.chunk_slab - 1) / h.chunk_slab);
                    }
                    h.cksum_block_log2 = (uint8_t)(10 + (codec + dtype + (int)rank) % 21);
                    h.eb_mode = (scz_eb_mode)(dtype % 4);
                    h.eb_user = 0.5 * codec;
                    h.eb_abs = -0.25 * dtype; /* the container does not interpret it */
                    h.knobs[rank % SCZ_NUM_KNOBS] = 0xFFFFFFFFu;
                    uint8_t b[SCZ_HEADER_SIZE];
                    scz__header_write(&h, b);
                    scz_header r;
                    scz_status s = scz__header_read(NULL, b, sizeof b, &r);
                    CHECK(s == SCZ_OK && headers_equal(&h, &r),
                          "round trip codec %d dtype %d rank %u empty %d: %s", codec, dtype, rank, empty, st(s));
                    n++;
                }
    CHECK(n == 5 * 6 * 4 * 2, "round trip count");
}

static void test_header_rejects(void) {
    scz_header h = base_header();
    uint8_t good[SCZ_HEADER_SIZE], b[SCZ_HEADER_SIZE];
    scz__header_write(&h, good);
    scz_header r;
    scz_status s;
    scz_ctx *ctx = NULL;
    CHECK(scz_ctx_create(&ctx, SCZ_BACKEND_CPU) == SCZ_OK, "ctx");

    /* magic: each byte altered */
    for (int i = 0; i < 8; i++) {
        memcpy(b, good, sizeof b);
        b[i] ^= 0x20;
        s = scz__header_read(ctx, b, sizeof b, &r);
        CHECK(s == SCZ_ERR_NOT_SCZ, "magic byte %d: %s", i, st(s));
    }
    CHECK(strlen(scz_ctx_last_error(ctx)) > 0, "a message is recorded");
    /* not scz at all, short and long */
    memset(b, 0, sizeof b);
    s = scz__header_read(NULL, b, sizeof b, &r);
    CHECK(s == SCZ_ERR_NOT_SCZ, "zeros: %s", st(s));
    s = scz__header_read(NULL, (const uint8_t *)"PK\3\4", 4, &r);
    CHECK(s == SCZ_ERR_NOT_SCZ, "short non-scz: %s", st(s));
    /* truncation inside the header */
    for (size_t n = 0; n < SCZ_HEADER_SIZE; n++) {
        s = scz__header_read(NULL, good, n, &r);
        CHECK(s == SCZ_ERR_TRUNCATED, "header truncated to %zu: %s", n, st(s));
    }

    /* version 0 and 2, with and without a valid checksum */
    for (int v = 0; v <= 2; v += 2) {
        memcpy(b, good, sizeof b);
        put16(b + 8, (uint16_t)v);
        s = scz__header_read(NULL, b, sizeof b, &r);
        CHECK(s == SCZ_ERR_VERSION, "version %d (stale checksum): %s", v, st(s));
        tu_reseal_header(b);
        s = scz__header_read(NULL, b, sizeof b, &r);
        CHECK(s == SCZ_ERR_VERSION, "version %d: %s", v, st(s));
    }
    memcpy(b, good, sizeof b);
    put16(b + 8, 0xFFFF);
    tu_reseal_header(b);
    CHECK(scz__header_read(NULL, b, sizeof b, &r) == SCZ_ERR_VERSION, "version 65535");

    /* every single-bit flip: magic -> NOT_SCZ, version -> VERSION, else CHECKSUM */
    int flips = 0, ok = 0;
    for (int bit = 0; bit < (int)SCZ_HEADER_SIZE * 8; bit++) {
        memcpy(b, good, sizeof b);
        b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        s = scz__header_read(NULL, b, sizeof b, &r);
        scz_status want = bit < 64 ? SCZ_ERR_NOT_SCZ : bit < 80 ? SCZ_ERR_VERSION : SCZ_ERR_CHECKSUM;
        flips++;
        if (s == want) ok++;
        else CHECK(s == want, "bit flip %d: %s, expected %s", bit, st(s), st(want));
    }
    CHECK(ok == flips && flips == 1024, "all %d header bit flips rejected as expected (%d)", flips, ok);

    /* field validation, each edit resealed so the checksum passes */
    struct {
        const char *what;
        int off, size;
        uint64_t value;
        int bad; /* 1: must be rejected, 0: must be accepted */
    } edits[] = {
        {"header_size 127", 10, 2, 127, 1},
        {"header_size 256", 10, 2, 256, 1},
        {"codec 0", 12, 1, 0, 1},
        {"codec 6", 12, 1, 6, 1},
        {"codec 255", 12, 1, 255, 1},
        {"dtype 0", 13, 1, 0, 1},
        {"dtype 7", 13, 1, 7, 1},
        {"dtype 255", 13, 1, 255, 1},
        {"rank 0", 14, 1, 0, 1},
        {"rank 5", 14, 1, 5, 1},
        {"rank 255", 14, 1, 255, 1},
        {"rank 2 (d2 = 30 unused, not 1)", 14, 1, 2, 1},
        {"flags 1 (table last)", 15, 1, 1, 0},
        {"flags 2", 15, 1, 2, 1},
        {"flags 0x80", 15, 1, 0x80, 1},
        {"unused dim 3 = 0", 40, 8, 0, 1},
        {"unused dim 3 = 2", 40, 8, 2, 1},
        {"raw_bytes + 1", 48, 8, 10 * 20 * 30 * 4 + 1, 1},
        {"raw_bytes - 4", 48, 8, 10 * 20 * 30 * 4 - 4, 1},
        {"raw_bytes 0", 48, 8, 0, 1},
        {"raw_bytes as f64", 48, 8, 10 * 20 * 30 * 8, 1},
        {"slab 0", 56, 8, 0, 1},
        {"slab 31 > d2", 56, 8, 31, 1},
        {"slab huge", 56, 8, UINT64_MAX, 1},
        {"num_chunks 4", 64, 4, 4, 1},
        {"num_chunks 6", 64, 4, 6, 1},
        {"num_chunks 0", 64, 4, 0, 1},
        {"num_chunks max", 64, 4, UINT32_MAX, 1},
        {"cksum log2 9", 68, 1, 9, 1},
        {"cksum log2 31", 68, 1, 31, 1},
        {"cksum log2 0", 68, 1, 0, 1},
        {"cksum log2 10", 68, 1, 10, 0},
        {"cksum log2 30", 68, 1, 30, 0},
        {"eb_mode 4", 69, 1, 4, 1},
        {"eb_mode 255", 69, 1, 255, 1},
        {"reserved 70", 70, 1, 1, 1},
        {"reserved 71", 71, 1, 0x80, 1},
        {"reserved 112", 112, 1, 1, 1},
        {"reserved 119", 119, 1, 0x40, 1},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(b, good, sizeof b);
        if (edits[i].size == 1) b[edits[i].off] = (uint8_t)edits[i].value;
        else if (edits[i].size == 2) put16(b + edits[i].off, (uint16_t)edits[i].value);
        else if (edits[i].size == 4) put32(b + edits[i].off, (uint32_t)edits[i].value);
        else put64(b + edits[i].off, edits[i].value);
        tu_reseal_header(b);
        s = scz__header_read(NULL, b, sizeof b, &r);
        if (edits[i].bad) CHECK(s != SCZ_OK, "%s must be rejected", edits[i].what);
        else CHECK(s == SCZ_OK, "%s must be accepted: %s", edits[i].what, st(s));
        if (edits[i].bad && s != SCZ_OK)
            CHECK(s == SCZ_ERR_CORRUPT || s == SCZ_ERR_UNSUPPORTED || s == SCZ_ERR_OVERFLOW,
                  "%s: status %s is a field error", edits[i].what, st(s));
    }

    /* dims overflowing 64 bits, and raw size overflowing */
    struct { uint32_t rank; uint64_t d[4]; scz_dtype t; } ov[] = {
        {2, {1ull << 32, 1ull << 32, 1, 1}, SCZ_DTYPE_U8},
        {4, {1ull << 20, 1ull << 20, 1ull << 20, 1ull << 20}, SCZ_DTYPE_F32},
        {1, {1ull << 62, 1, 1, 1}, SCZ_DTYPE_F32},   /* count fits, raw = 2^64 */
        {1, {UINT64_MAX, 1, 1, 1}, SCZ_DTYPE_F64},
        {3, {3, UINT64_MAX / 2, 3, 1}, SCZ_DTYPE_U8},
    };
    for (size_t i = 0; i < sizeof ov / sizeof ov[0]; i++) {
        memcpy(b, good, sizeof b);
        b[13] = (uint8_t)ov[i].t;
        b[14] = (uint8_t)ov[i].rank;
        for (int d = 0; d < 4; d++) put64(b + 16 + 8 * d, ov[i].d[d]);
        put64(b + 56, 1);
        tu_reseal_header(b);
        s = scz__header_read(NULL, b, sizeof b, &r);
        CHECK(s == SCZ_ERR_OVERFLOW, "overflowing dims case %zu: %s", i, st(s));
    }

    /* empty arrays: 0 chunks required */
    memcpy(b, good, sizeof b);
    put64(b + 24, 0); /* d1 = 0 */
    put64(b + 48, 0);
    put64(b + 56, 0);
    put32(b + 64, 0);
    tu_reseal_header(b);
    s = scz__header_read(NULL, b, sizeof b, &r);
    CHECK(s == SCZ_OK && r.raw_bytes == 0 && r.num_chunks == 0, "empty array header: %s", st(s));
    put32(b + 64, 1);
    tu_reseal_header(b);
    CHECK(scz__header_read(NULL, b, sizeof b, &r) != SCZ_OK, "empty array with 1 chunk");
    put32(b + 64, 0);
    put64(b + 48, 4);
    tu_reseal_header(b);
    CHECK(scz__header_read(NULL, b, sizeof b, &r) != SCZ_OK, "empty array with raw_bytes 4");

    /* chunk raw size limit: 1 GiB unless the slab is one slice */
    struct { uint64_t d0, d1, slab; int ok; } lim[] = {
        {1ull << 27, 4, 4, 0},   /* slice 512 MiB, 2 slices = 2 GiB: rejected */
        {1ull << 27, 4, 2, 1},   /* exactly 1 GiB */
        {1ull << 27, 4, 3, 0},
        {1ull << 29, 2, 1, 1},   /* one 2 GiB slice: allowed */
        {1ull << 29, 2, 2, 0},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        memcpy(b, good, sizeof b);
        b[14] = 2;
        put64(b + 16, lim[i].d0);
        put64(b + 24, lim[i].d1);
        put64(b + 32, 1);
        put64(b + 48, lim[i].d0 * lim[i].d1 * 4);
        put64(b + 56, lim[i].slab);
        put32(b + 64, (uint32_t)((lim[i].d1 + lim[i].slab - 1) / lim[i].slab));
        tu_reseal_header(b);
        s = scz__header_read(NULL, b, sizeof b, &r);
        if (lim[i].ok) CHECK(s == SCZ_OK, "chunk limit case %zu accepted: %s", i, st(s));
        else CHECK(s == SCZ_ERR_CORRUPT, "chunk limit case %zu rejected: %s", i, st(s));
    }
    scz_ctx_destroy(ctx);
}

/* ---------- chunk table ---------- */

/* A stream image: header (for num_chunks) + table + payload bytes. */
static uint8_t *make_stream(const scz_chunk_entry *e, uint32_t n, uint64_t *size) {
    uint64_t end = SCZ_HEADER_SIZE + scz__table_size(n);
    for (uint32_t i = 0; i < n; i++) end += e[i].size;
    uint8_t *s = calloc(1, (size_t)end);
    scz__table_write(e, n, s + SCZ_HEADER_SIZE);
    *size = end;
    return s;
}

static void fill_entries(scz_chunk_entry *e, uint32_t n, uint64_t seed) {
    uint64_t pos = SCZ_HEADER_SIZE + scz__table_size(n);
    for (uint32_t i = 0; i < n; i++) {
        e[i].offset = pos;
        e[i].size = (seed * 7 + i * 131) % 500; /* includes empty payloads */
        e[i].checksum = 0x0123456789ABCDEFull * (i + 1) ^ seed;
        e[i].info = (uint32_t)(i * 0x10001u + (uint32_t)seed);
        pos += e[i].size;
    }
}


static void test_table(void) {
    CHECK(scz__table_size(0) == 8 && scz__table_size(3) == 104, "table sizes");
    CHECK(scz__table_size(UINT32_MAX) == (uint64_t)UINT32_MAX * 32 + 8, "table size of 2^32-1 chunks");
    uint32_t counts[] = {0, 1, 2, 7, 100};
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        uint32_t n = counts[ci];
        scz_header h = base_header();
        h.num_chunks = n;
        scz_chunk_entry e[100], r;
        fill_entries(e, n, ci + 1);
        uint64_t size, end = 0;
        uint8_t *s = make_stream(e, n, &size);
        const uint8_t *t = s + SCZ_HEADER_SIZE;
        /* byte layout (FORMAT.md 4) */
        int layout = 1;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *p = t + 32ull * i;
            if (le64(p) != e[i].offset || le64(p + 8) != e[i].size || le64(p + 16) != e[i].checksum ||
                le32(p + 24) != e[i].info || le32(p + 28) != 0)
                layout = 0;
        }
        CHECK(layout, "%u entries laid out as specified", n);
        CHECK(le64(t + 32ull * n) == tu_xxh64(t, 32ull * n, 0), "%u: table checksum", n);
        if (n == 0) CHECK(le64(t) == tu_xxh64("", 0, 0) && le64(t) == 0xEF46DB3751D8E999ull, "empty table hash");

        scz_status s0 = scz__table_check(NULL, &h, s, (size_t)size, &end);
        CHECK(s0 == SCZ_OK && end == size, "%u: table check: %s, end %llu of %llu", n, st(s0),
              (unsigned long long)end, (unsigned long long)size);
        int same = 1;
        for (uint32_t i = 0; i < n; i++) {
            scz__table_entry(t, i, &r);
            if (r.offset != e[i].offset || r.size != e[i].size || r.checksum != e[i].checksum ||
                r.info != e[i].info)
                same = 0;
        }
        CHECK(same, "%u: entries read back", n);
        /* longer buffer: the table check reports the end, it does not care */
        uint8_t *big = calloc(1, (size_t)size + 16);
        memcpy(big, s, (size_t)size);
        CHECK(scz__table_check(NULL, &h, big, (size_t)size + 16, &end) == SCZ_OK && end == size,
              "%u: end with trailing bytes", n);
        free(big);
        /* every truncation */
        int trunc_ok = 1;
        for (uint64_t k = 0; k < size; k++) {
            scz_status ts = scz__table_check(NULL, &h, s, (size_t)k, &end);
            if (ts != SCZ_ERR_TRUNCATED) trunc_ok = 0;
        }
        CHECK(trunc_ok, "%u: every truncation is TRUNCATED", n);
        /* a flipped bit anywhere in the entries or the checksum */
        int ck_ok = 1;
        for (uint64_t bit = 0; bit < (32ull * n + 8) * 8; bit += (n > 10 ? 13 : 1)) {
            s[SCZ_HEADER_SIZE + bit / 8] ^= (uint8_t)(1u << (bit % 8));
            if (scz__table_check(NULL, &h, s, (size_t)size, &end) != SCZ_ERR_CHECKSUM) ck_ok = 0;
            s[SCZ_HEADER_SIZE + bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        CHECK(ck_ok, "%u: table bit flips give CHECKSUM", n);
        free(s);
    }

    /* non-contiguous offsets, resealed */
    {
        uint32_t n = 4;
        scz_header h = base_header();
        h.num_chunks = n;
        scz_chunk_entry e[4];
        fill_entries(e, n, 3);
        for (uint32_t i = 0; i < n; i++) e[i].size += 10;
        for (uint32_t i = 1; i < n; i++) e[i].offset = e[i - 1].offset + e[i - 1].size;
        uint64_t size, end;
        uint8_t *s = make_stream(e, n, &size);
        CHECK(scz__table_check(NULL, &h, s, (size_t)size, &end) == SCZ_OK, "base table ok");
        int64_t deltas[] = {1, -1, 8, -8, (int64_t)1 << 40};
        for (uint32_t i = 0; i < n; i++)
            for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++) {
                uint8_t *p = s + SCZ_HEADER_SIZE + 32ull * i;
                uint64_t old = le64(p);
                put64(p, old + (uint64_t)deltas[d]);
                tu_reseal_table(s, n);
                scz_status r = scz__table_check(NULL, &h, s, (size_t)size, &end);
                CHECK(r == SCZ_ERR_CORRUPT, "chunk %u offset %+lld: %s", i, (long long)deltas[d], st(r));
                put64(p, old);
            }
        /* reserved field */
        s[SCZ_HEADER_SIZE + 32 + 28] = 1;
        tu_reseal_table(s, n);
        CHECK(scz__table_check(NULL, &h, s, (size_t)size, &end) == SCZ_ERR_CORRUPT, "reserved entry field");
        s[SCZ_HEADER_SIZE + 32 + 28] = 0;
        tu_reseal_table(s, n);
        CHECK(scz__table_check(NULL, &h, s, (size_t)size, &end) == SCZ_OK, "restored");

        /* a size that wraps the position around 2^64 back onto a plausible
         * offset: chunk 0 size = 2^64 - 1 and chunk 1 at offset table_end - 1. */
        uint8_t *t = s + SCZ_HEADER_SIZE;
        uint64_t tend = SCZ_HEADER_SIZE + scz__table_size(n);
        put64(t + 8, UINT64_MAX);
        put64(t + 32, tend - 1);
        put64(t + 32 + 8, 1);
        put64(t + 64, tend);
        put64(t + 64 + 8, 1);
        put64(t + 96, tend + 1);
        put64(t + 96 + 8, 1);
        tu_reseal_table(s, n);
        scz_status r = scz__table_check(NULL, &h, s, (size_t)size, &end);
        CHECK(r == SCZ_ERR_OVERFLOW, "wrapping chunk size: %s", st(r));
        /* the last size huge (no wrap): truncated */
        fill_entries(e, n, 3);
        free(s);
        s = make_stream(e, n, &size);
        put64(s + SCZ_HEADER_SIZE + 96 + 8, UINT64_MAX - 1000);
        tu_reseal_table(s, n);
        r = scz__table_check(NULL, &h, s, (size_t)size, &end);
        CHECK(r == SCZ_ERR_TRUNCATED || r == SCZ_ERR_OVERFLOW, "huge last size: %s", st(r));
        free(s);
    }

    /* a header claiming 2^32-1 chunks on a tiny stream */
    {
        scz_header h = base_header();
        h.num_chunks = UINT32_MAX;
        uint8_t s[SCZ_HEADER_SIZE + 64];
        memset(s, 0, sizeof s);
        uint64_t end;
        CHECK(scz__table_check(NULL, &h, s, sizeof s, &end) == SCZ_ERR_TRUNCATED, "huge table, tiny stream");
    }
}

/* ---------- chunk geometry (FORMAT.md 3) ---------- */

static void test_geometry(void) {
    /* 3D 10x20x30 f32, slab 7: chunks of 7,7,7,7,2 slices */
    scz_header h = base_header();
    uint64_t total = 0, expect_off = 0;
    for (uint32_t i = 0; i < h.num_chunks; i++) {
        scz_chunk_geom g;
        uint64_t off, bytes;
        scz__chunk_geom(&h, i, &g, &off, &bytes);
        uint64_t len = i < 4 ? 7 : 2;
        CHECK(g.rank == 3 && g.dims[0] == 10 && g.dims[1] == 20 && g.dims[2] == len, "3D chunk %u dims", i);
        CHECK(g.count == 200 * len && bytes == 800 * len && off == expect_off && g.esize == 4,
              "3D chunk %u count/offset", i);
        expect_off += bytes;
        total += bytes;
    }
    CHECK(total == h.raw_bytes, "chunks cover the array");
    /* 4D 3x4x5x11 f64, slab 3: folded z = 5 * slab extent */
    h.rank = 4;
    h.dtype = SCZ_DTYPE_F64;
    h.dims[0] = 3;
    h.dims[1] = 4;
    h.dims[2] = 5;
    h.dims[3] = 11;
    h.raw_bytes = 3 * 4 * 5 * 11 * 8;
    h.chunk_slab = 3;
    h.num_chunks = 4;
    CHECK(scz__slow_extent(&h) == 11 && scz__slice_elems(&h) == 60, "4D slow extent / slice");
    for (uint32_t i = 0; i < 4; i++) {
        scz_chunk_geom g;
        uint64_t off, bytes;
        scz__chunk_geom(&h, i, &g, &off, &bytes);
        uint64_t len = i < 3 ? 3 : 2;
        CHECK(g.rank == 3 && g.dims[0] == 3 && g.dims[1] == 4 && g.dims[2] == 5 * len,
              "4D chunk %u folded to 3x4x%llu", i, (unsigned long long)g.dims[2]);
        CHECK(off == i * 3 * 60 * 8 && bytes == len * 60 * 8 && g.count == len * 60, "4D chunk %u sizes", i);
    }
    /* 1D */
    h.rank = 1;
    h.dtype = SCZ_DTYPE_F32;
    h.dims[0] = 4097;
    h.dims[1] = h.dims[2] = h.dims[3] = 1;
    h.chunk_slab = 1024;
    h.num_chunks = 5;
    scz_chunk_geom g;
    uint64_t off, bytes;
    scz__chunk_geom(&h, 4, &g, &off, &bytes);
    CHECK(g.rank == 1 && g.dims[0] == 1 && g.count == 1 && off == 4096 * 4 && bytes == 4, "1D last chunk");
}

/* ---------- blocked checksum (FORMAT.md 5) ---------- */

/* Straight from the definition: XXH64 over the LE64 block hashes. */
static uint64_t ref_checksum(const uint8_t *p, uint64_t n, unsigned log2) {
    uint64_t B = (uint64_t)1 << log2;
    uint64_t nb = (n + B - 1) / B;
    uint8_t *cat = malloc(nb ? (size_t)nb * 8 : 1);
    for (uint64_t b = 0; b < nb; b++) {
        uint64_t len = (b + 1) * B <= n ? B : n - b * B;
        put64(cat + 8 * b, tu_xxh64(p + b * B, (size_t)len, 0));
    }
    uint64_t r = tu_xxh64(cat, (size_t)nb * 8, 0);
    free(cat);
    return r;
}

static void test_checksum(void) {
    uint64_t maxn = 3 * 1024 * 1024 + 3; /* > 512 blocks: several groups */
    uint8_t *buf = malloc((size_t)maxn);
    uint64_t st = 42;
    for (uint64_t i = 0; i < maxn; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(st >> 56);
    }
    struct { uint64_t n; unsigned log2; } cases[] = {
        {0, 12}, {1, 12}, {4095, 12}, {4096, 12}, {4097, 12}, {3 * 4096 + 5, 12},
        {9 * 4096, 12}, {9 * 4096 + 1, 12}, {33 * 4096 + 17, 12}, {512 * 4096, 12},
        {512 * 4096 + 1, 12}, {1023, 10}, {1024, 10}, {513 * 1024 + 7, 10},
        {2 * 512 * 1024 + 7, 10}, {maxn, 20}, {100, 30},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t ref = ref_checksum(buf, cases[i].n, cases[i].log2);
        for (int threads = 0; threads <= 3; threads++) {
            uint64_t got = scz__checksum(buf, cases[i].n, cases[i].log2, threads);
            CHECK(got == ref, "checksum n=%llu B=2^%u threads %d: %016llx vs %016llx",
                  (unsigned long long)cases[i].n, cases[i].log2, threads, (unsigned long long)got,
                  (unsigned long long)ref);
        }
    }
    /* n = 0 has no blocks: the hash of the empty string */
    CHECK(scz__checksum(buf, 0, 12, 1) == tu_xxh64("", 0, 0), "empty payload checksum");
    /* one block: the hash of its own hash */
    uint8_t one[8];
    put64(one, tu_xxh64(buf, 100, 0));
    CHECK(scz__checksum(buf, 100, 12, 1) == tu_xxh64(one, 8, 0), "single-block checksum");
    /* a change in any block changes it */
    uint64_t base = scz__checksum(buf, 3 * 4096 + 5, 12, 2);
    int changed = 1;
    for (uint64_t pos = 0; pos < 3 * 4096 + 5; pos += 1021) {
        buf[pos] ^= 1;
        if (scz__checksum(buf, 3 * 4096 + 5, 12, 2) == base) changed = 0;
        buf[pos] ^= 1;
    }
    CHECK(changed, "checksum sees every block");
    free(buf);
}

int main(void) {
    test_header_layout();
    test_header_roundtrips();
    test_header_rejects();
    test_table();
    test_geometry();
    test_checksum();
    return tu_finish("test_container");
}

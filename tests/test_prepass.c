/*
 * test_prepass.c -- the lossy codec's prepare from a value range plus
 * passes over the data (the form incremental compression uses: the array
 * fed in pieces, possibly read again from a file) derives exactly the bound
 * that prepare over the array in memory derives (FORMAT.md 7.1), for ABS,
 * REL and PSNR bounds, on generated fields and every data file, with the
 * array fed in pieces of random sizes.
 */
#include "gen.h"
#include "internal.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

extern const scz_codec_ops scz__lossy_ops;

static uint64_t rng = 0xFEED;

static void header_of(scz_header *h, const scz_shape *sh, scz_eb_mode mode, double eb) {
    memset(h, 0, sizeof *h);
    h->codec = SCZ_CODEC_LOSSY;
    h->dtype = sh->dtype;
    h->rank = sh->rank;
    for (int d = 0; d < SCZ_MAX_RANK; d++) h->dims[d] = sh->dims[d];
    h->raw_bytes = gen_count(sh) * scz_dtype_size(sh->dtype);
    h->eb_mode = mode;
    h->eb_user = eb;
}

static void one(scz_ctx *ctx, const scz_shape *sh, const void *data, scz_eb_mode mode, double eb, const char *what) {
    const scz_codec_ops *ops = &scz__lossy_ops;
    scz_header a, b;
    header_of(&a, sh, mode, eb);
    header_of(&b, sh, mode, eb);
    CHECK(ops->prepare(ctx, &a, data) == SCZ_OK, "%s: prepare", what);
    uint64_t n = gen_count(sh), fin;
    double range[2];
    scz_value_range(sh->dtype, data, n, &range[0], &range[1], &fin);
    void *pass = NULL;
    CHECK(ops->prepare_range(ctx, &b, range, &pass) == SCZ_OK, "%s: prepare_range", what);
    int passes = 0, again = pass != NULL;
    size_t es = scz_dtype_size(sh->dtype);
    while (again && passes < 20) {
        uint64_t at = 0;
        while (at < n) { /* pieces of 1 .. 200000 elements */
            uint64_t k = 1 + gen_splitmix64(&rng) % 200000;
            if (k > n - at) k = n - at;
            ops->pass_feed(pass, (const uint8_t *)data + at * es, k);
            at += k;
        }
        CHECK(ops->pass_end(ctx, pass, &b, &again) == SCZ_OK, "%s: pass_end", what);
        passes++;
    }
    if (pass) ops->pass_free(pass);
    CHECK(!again, "%s: the rule did not end", what);
    CHECK(memcmp(&a.eb_abs, &b.eb_abs, sizeof a.eb_abs) == 0, "%s: eb_abs %.17g from the array, %.17g from %d passes",
          what, a.eb_abs, b.eb_abs, passes);
}

int main(void) {
    scz_ctx *ctx;
    scz_ctx_create(&ctx, SCZ_BACKEND_CPU);
    const double dbs[] = {40, 60, 80, 100};
    int cases = 0;
    for (int f = 0; f < GEN_NUM_FAMILIES; f++)
        for (int dt = 0; dt < 2; dt++) {
            scz_shape sh = {dt ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32, 3, {70, 60, 50, 1}};
            size_t bytes;
            void *data = gen_field((gen_family)f, &sh, 9 + (uint64_t)f, &bytes);
            for (int k = 0; k < 4; k++) {
                char what[96];
                snprintf(what, sizeof what, "%s %s PSNR %g", gen_family_name((gen_family)f), dt ? "f64" : "f32", dbs[k]);
                one(ctx, &sh, data, SCZ_EB_PSNR, dbs[k], what);
                cases++;
            }
            one(ctx, &sh, data, SCZ_EB_REL, 1e-3, "REL 1e-3");
            one(ctx, &sh, data, SCZ_EB_ABS, 1e-2, "ABS 1e-2");
            free(data);
        }
    tu_datafile *files;
    int nf = tu_data_files(&files);
    if (!nf) printf("test_prepass: skipped: no data files (SCZ_DATA_DIR)\n");
    for (int i = 0; i < nf; i++) {
        size_t sz;
        void *data = tu_read_file(files[i].path, &sz);
        if (!data) continue;
        for (int k = 0; k < 4; k++) {
            char what[300];
            snprintf(what, sizeof what, "%s PSNR %g", files[i].name, dbs[k]);
            one(ctx, &files[i].shape, data, SCZ_EB_PSNR, dbs[k], what);
            cases++;
        }
        free(data);
    }
    free(files);
    printf("test_prepass: %d PSNR cases\n", cases);
    scz_ctx_destroy(ctx);
    return tu_finish("test_prepass");
}

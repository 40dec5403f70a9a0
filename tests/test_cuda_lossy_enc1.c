/*
 * test_cuda_lossy_enc1.c -- white-box test of the level-1 GPU writer
 * (src/lossy/lossy_enc1.cu, docs/GPU.md "Level 1 on the GPU: compression")
 * against the CPU writer (lossy.c, through src/lossy/lossy_debug.h):
 *   - the predictor estimate of every chunk (FORMAT.md 7.10 step 1: the
 *     sums C_L, C_{1,o}, C_{2,o}, S) and the decision (predictor, axis
 *     order, trial and its order, level bounds);
 *   - the interpolation sweeps with the largest radius R: the codes in
 *     traversal order (V_new / V_repeat decided), the outlier list, the
 *     verbatim elements, their counts and the chunk's radius (7.10 step
 *     2), once with the GPU's decision and once with a forced predictor,
 *     axis order and level bounds (every order, tl = 0 and 1, the trial's
 *     linear order);
 * for every generated family (tests/support/gen.h) x shape x f32/f64 x
 * bound (REL, ABS, 0, PSNR), batches of several chunks with a shorter last
 * one, and the data files of $SCZ_DATA_DIR. Skipped (77) without a CUDA
 * build or device. SCZ_TEST_QUICK=1: fewer bounds; 2 (for
 * compute-sanitizer): three families, three bounds, two data files. SCZ_ENC1_MODEL=1 (no
 * device needed): the CPU stands in for the GPU, which checks the test's
 * own plumbing and the CPU's white-box entries.
 */
#include "gen.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudatest.h"

#ifdef SCZ_TEST_CUDA
#include "lossy/lossy.h"
#include "lossy/lossy_debug.h"

static int quick, model;
static scz_ctx *cpu;
static long n_unformed, n_final, n_final_ok, n_trial_won, n_lor, n_pay_ok, n_pay_be, n_pay_stored, n_rbytes_ok, n_bytes_ok, n_body_ok, n_rform, n_rkeep, n_rok, n_g, n_gok, n_gpos, n_cases, n_chunks, n_cost_ok, n_sweep_chunks, n_sweep_ok, n_interp_dec, n_trial, n_tight, n_outl, n_vrep,
    n_vnew, n_ord[LZ1_MAX_ORDERS];

/* CPU interpolation of one chunk against the GPU's codes, aux, r, counts. */
static int cmp_sweeps(const char *what, const scz_chunk_geom *cg, const void *src, double eb, uint32_t R,
                      unsigned pred, unsigned order, unsigned tight, const uint16_t *gc, const int64_t *ga,
                      uint32_t gr, uint64_t gno, uint64_t gnv) {
    const uint64_t n = cg->count;
    uint16_t *codes = malloc(2 * n + 2);
    uint32_t *oidx = malloc(4 * n + 4), *vpos = malloc(4 * n + 4);
    int64_t *odel = malloc(8 * n + 8);
    uint64_t no = 0, nv = 0;
    uint32_t r = 0;
    CHECK(codes && oidx && vpos && odel, "memory");
    CHECK(scz__lossy1_debug_interp(cg, src, eb, R, pred, order, tight, codes, oidx, odel, vpos, &no, &nv, &r) == 0,
          "%s: CPU interpolation", what);
    int ok = 1;
    uint64_t k = 0;
    for (; k < n && codes[k] == gc[k]; k++) {}
    if (k < n) {
        CHECK(0, "%s (pred %u order %u tl %u): code %llu: GPU %u, CPU %u", what, pred, order, tight,
              (unsigned long long)k, gc[k], codes[k]);
        ok = 0;
    }
    if (ok && (gno != no || gnv != nv || gr != r)) {
        CHECK(0, "%s: counts GPU out %llu vnew %llu r %u, CPU %llu %llu %u", what, (unsigned long long)gno,
              (unsigned long long)gnv, gr, (unsigned long long)no, (unsigned long long)nv, r);
        ok = 0;
    }
    /* the lists from the GPU's codes and aux */
    uint64_t io = 0, iv = 0;
    for (uint64_t p = 0; ok && p < n; p++) {
        if (codes[p] == LZ_CODE_OUTLIER) {
            if (io >= no || oidx[io] != p || odel[io] != ga[p]) {
                CHECK(0, "%s: outlier %llu at %llu: GPU %lld, CPU %lld", what, (unsigned long long)io,
                      (unsigned long long)p, (long long)ga[p], io < no ? (long long)odel[io] : 0ll);
                ok = 0;
            }
            io++;
        } else if (codes[p] == LZ_VNEW(R)) {
            if (iv >= nv || vpos[iv] != (uint64_t)ga[p]) {
                CHECK(0, "%s: verbatim %llu at %llu: GPU element %lld, CPU %u", what, (unsigned long long)iv,
                      (unsigned long long)p, (long long)ga[p], iv < nv ? vpos[iv] : 0u);
                ok = 0;
            }
            iv++;
        } else if (codes[p] == LZ_VREP(R)) {
            n_vrep++;
        }
    }
    n_outl += (long)no;
    n_vnew += (long)nv;
    free(codes);
    free(oidx);
    free(vpos);
    free(odel);
    return ok;
}

/* The CPU in the GPU's place (SCZ_ENC1_MODEL=1). */
static int cpu_model(scz_l1dbg *d) {
    const uint64_t cf = d->full.count ? d->full.count : 1, es = d->full.esize;
    for (uint32_t c = 0; c < d->nch; c++) {
        const scz_chunk_geom *cg = c + 1 == d->nch ? &d->last : &d->full;
        const uint8_t *src = (const uint8_t *)d->src + (uint64_t)c * cf * es;
        uint64_t cc[LZ1_NCOST];
        uint8_t dec[5];
        scz__lossy1_debug_estimate(cg, src, d->eb, d->psnr, cc, dec);
        if (d->costs) memcpy(d->costs + (size_t)c * LZ1_NCOST, cc, sizeof cc);
        if (d->dec) memcpy(d->dec + 5 * (size_t)c, dec, 5);
        unsigned pred = dec[0], order = dec[1], tight = dec[4];
        if (d->force) pred = d->force[3 * c], order = d->force[3 * c + 1], tight = d->force[3 * c + 2];
        d->r[c] = 0;
        d->nout[c] = d->nvnew[c] = 0;
        if (cg->count == 0) continue;
        if (pred == LZ_PRED_LORENZO) {
            scz_l1trace tr;
            memset(&tr, 0, sizeof tr);
            tr.body = d->bodies + (size_t)c * d->bstride;
            tr.rbody = d->rbodies + (size_t)c * d->bstride;
            tr.payload = d->pay + (size_t)c * d->bstride;
            tr.body_cap = d->bstride;
            scz__lossy1_debug_encode(cpu, cg, src, d->eb, d->R, 0, pred, order, tight, &tr);
            d->r[c] = tr.r, d->g[c] = tr.g, d->hsz[c] = tr.hsz, d->size0[c] = tr.size0, d->bits0[c] = tr.bits0;
            d->rformed[c] = tr.rformed, d->rsz[c] = tr.rsz, d->rle[c] = tr.rle;
            d->obytes[c] = tr.obytes, d->bh[c] = tr.bh, d->br[c] = tr.br;
            d->psize[c] = tr.psize, d->pinfo[c] = tr.pinfo;
            continue;
        }
        const uint64_t n = cg->count;
        uint32_t *oidx = malloc(4 * n), *vpos = malloc(4 * n);
        int64_t *odel = malloc(8 * n), *aux = d->aux + (size_t)c * cf;
        uint16_t *codes = d->codes + (size_t)c * cf;
        scz__lossy1_debug_interp(cg, src, d->eb, d->R, pred, order, tight, codes, oidx, odel, vpos, &d->nout[c],
                                 &d->nvnew[c], &d->r[c]);
        scz_l1trace tr;
        memset(&tr, 0, sizeof tr);
        tr.body = d->bodies + (size_t)c * d->bstride;
        tr.rbody = d->rbodies + (size_t)c * d->bstride;
        tr.payload = d->pay + (size_t)c * d->bstride;
        tr.body_cap = d->bstride;
        scz__lossy1_debug_encode(cpu, cg, src, d->eb, d->R, 0, pred, order, tight, &tr);
        d->g[c] = tr.g, d->hsz[c] = tr.hsz, d->size0[c] = tr.size0, d->bits0[c] = tr.bits0;
        d->rformed[c] = tr.rformed, d->rsz[c] = tr.rsz, d->rle[c] = tr.rle;
        d->obytes[c] = tr.obytes, d->bh[c] = tr.bh, d->br[c] = tr.br;
        d->psize[c] = tr.psize, d->pinfo[c] = tr.pinfo;
        for (uint64_t k = 0; k < d->nout[c]; k++) aux[oidx[k]] = odel[k];
        for (uint64_t p = 0, iv = 0; p < n; p++)
            if (codes[p] == LZ_VNEW(d->R)) aux[p] = vpos[iv++];
        free(oidx), free(vpos), free(odel);
    }
    return 0;
}

static int gpu_writer(scz_l1dbg *d) {
    if (!model) return scz__lossy1_cuda_debug(d);
    cpu_model(d);
    const uint64_t cf = d->full.count ? d->full.count : 1, es = d->full.esize;
    for (uint32_t c = 0; d->fpay && c < d->nch; c++) {
        const scz_chunk_geom *cg = c + 1 == d->nch ? &d->last : &d->full;
        if (d->force) { /* no trial where the predictor is forced */
            d->fpsize[c] = d->psize[c], d->fpinfo[c] = d->pinfo[c];
            memcpy(d->fpay + (size_t)c * d->bstride, d->pay + (size_t)c * d->bstride, d->psize[c]);
            continue;
        }
        scz__lossy1_debug_compress(cpu, cg, (const uint8_t *)d->src + (uint64_t)c * cf * es, d->eb, d->psnr, d->R,
                                   d->fpay + (size_t)c * d->bstride, d->bstride, &d->fpsize[c], &d->fpinfo[c]);
    }
    return 0;
}

/* The CPU writer's sweep streams for one chunk against the GPU's. */
static int cmp_streams(const char *what, const scz_chunk_geom *cg, const void *src, double eb, uint32_t R,
                       unsigned pred, unsigned order, unsigned tight, uint32_t g, uint64_t hsz, uint64_t size0,
                       uint64_t bits0, uint32_t rformed, uint64_t rsz, uint32_t rle, uint64_t obytes, uint64_t bh,
                       uint64_t br, const uint8_t *gbody, const uint8_t *grbody, uint64_t bstride, const uint8_t *gpay,
                       uint64_t gpsize, uint32_t gpinfo) {
    scz_l1trace tr;
    memset(&tr, 0, sizeof tr);
    tr.body = malloc(bstride);
    tr.rbody = malloc(bstride);
    tr.payload = malloc(bstride);
    tr.body_cap = bstride;
    CHECK(tr.body && tr.rbody && tr.payload, "memory");
    const int e = scz__lossy1_debug_encode(cpu, cg, src, eb, R, 0, pred, order, tight, &tr);
    CHECK(e == 0, "%s: CPU encode: %d", what, e);
    n_g++;
    n_gpos += tr.g > 0;
    const int ok = tr.g == g && tr.hsz == hsz && tr.size0 == size0 && tr.bits0 == bits0;
    CHECK(ok, "%s (pred %u order %u tl %u, %u sweeps): g %u / %u, Huffman section %llu / %llu, single stream %llu / %llu "
              "bytes, %llu / %llu bits (GPU / CPU)",
          what, pred, order, tight, tr.S, g, tr.g, (unsigned long long)hsz, (unsigned long long)tr.hsz,
          (unsigned long long)size0, (unsigned long long)tr.size0, (unsigned long long)bits0,
          (unsigned long long)tr.bits0);
    n_rform += tr.rformed != 0;
    n_rkeep += tr.rle != 0;
    const int rok = tr.rformed == rformed && tr.rsz == rsz && tr.rle == rle;
    n_rok += rok;
    CHECK(rok, "%s (pred %u order %u tl %u): run-length candidate formed %u / %u, section %llu / %llu bytes, kept %u / %u "
               "(GPU / CPU)",
          what, pred, order, tight, rformed, tr.rformed, (unsigned long long)rsz, (unsigned long long)tr.rsz, rle,
          tr.rle);
    const int bok = tr.obytes == obytes && tr.bh == bh && tr.br == br;
    n_body_ok += bok;
    CHECK(bok, "%s (pred %u order %u tl %u): outlier list %llu / %llu bytes, bodies %llu / %llu and %llu / %llu bytes "
               "(GPU / CPU)",
          what, pred, order, tight, (unsigned long long)obytes, (unsigned long long)tr.obytes,
          (unsigned long long)bh, (unsigned long long)tr.bh, (unsigned long long)br, (unsigned long long)tr.br);
    /* bodies above LZ1_BODY_CAP x the raw chunk are not formed (7.10 step 3): nothing to compare */
    const uint64_t raw = LZ1_BODY_CAP * cg->count * cg->esize;
    n_unformed += tr.bh > raw || (tr.rle && tr.br > raw);
    int yok = bok && (tr.bh > raw || (tr.bh <= bstride && memcmp(tr.body, gbody, tr.bh) == 0));
    n_bytes_ok += yok;
    if (bok && !yok)
        CHECK(0, "%s (pred %u order %u tl %u, g %u): Huffman body (%llu bytes) differs at byte %zu", what, pred, order,
              tight, g, (unsigned long long)bh, tu_first_diff(tr.body, gbody, tr.bh));
    if (yok && tr.rle && tr.br <= raw) {
        const int zok = tr.br <= bstride && memcmp(tr.rbody, grbody, tr.br) == 0;
        n_rbytes_ok += zok;
        if (!zok)
            CHECK(0, "%s (pred %u order %u tl %u): run-length body (%llu bytes) differs at byte %zu", what, pred, order,
                  tight, (unsigned long long)br, tu_first_diff(tr.rbody, grbody, tr.br));
        yok = zok;
    }
    const int pok = tr.psize == gpsize && tr.pinfo == gpinfo && tr.psize <= bstride &&
                    memcmp(tr.payload, gpay, tr.psize) == 0;
    n_pay_ok += pok;
    n_pay_be += tr.pinfo && tr.psize > 6 && tr.payload[6];
    n_pay_stored += tr.pinfo == 0;
    CHECK(pok, "%s (pred %u order %u tl %u): payload GPU %llu bytes (workflow %u), CPU %llu (%u), first difference at %zu",
          what, pred, order, tight, (unsigned long long)gpsize, gpinfo, (unsigned long long)tr.psize, tr.pinfo,
          tu_first_diff(tr.payload, gpay, tr.psize < gpsize ? tr.psize : gpsize));
    free(tr.body);
    free(tr.rbody);
    free(tr.payload);
    return ok && rok && yok && pok;
}

/* One batch: nch chunks of geometry full (the last: last) of the array a. */
static void run_case(const char *what, const void *a, uint32_t nch, const scz_chunk_geom *full,
                     const scz_chunk_geom *last, double eb, int psnr, uint32_t R, unsigned salt) {
    n_cases++;
    const uint64_t cf = full->count ? full->count : 1, es = full->esize;
    uint64_t *gcost = calloc((size_t)nch * LZ1_NCOST, 8);
    uint8_t *gdec = calloc((size_t)nch * 5, 1), *force = calloc((size_t)nch * 3, 1);
    uint16_t *gcodes = malloc((size_t)nch * cf * 2);
    int64_t *gaux = malloc((size_t)nch * cf * 8);
    uint32_t *gr = calloc(nch, 4);
    uint64_t *gno = calloc(nch, 8), *gnv = calloc(nch, 8);
    uint32_t *gg = calloc(nch, 4);
    uint64_t *ghsz = calloc(nch, 8), *gs0 = calloc(nch, 8), *gb0 = calloc(nch, 8), *grsz = calloc(nch, 8);
    uint32_t *grf = calloc(nch, 4), *grl = calloc(nch, 4);
    uint64_t *gob = calloc(nch, 8), *gbh = calloc(nch, 8), *gbr = calloc(nch, 8);
    const uint64_t bstride = cf * es * 9 / 2 + (1u << 20);
    uint8_t *gbody = malloc((size_t)nch * bstride), *grbody = malloc((size_t)nch * bstride);
    uint8_t *gpay = malloc((size_t)nch * bstride), *gfpay = malloc((size_t)nch * bstride), *cpay = malloc(bstride);
    uint64_t *gfps = calloc(nch, 8);
    uint32_t *gfpi = calloc(nch, 4);
    uint64_t *gps = calloc(nch, 8);
    uint32_t *gpi = calloc(nch, 4);
    CHECK(gcost && gdec && force && gcodes && gaux && gr && gno && gnv && gg && ghsz && gs0 && gb0 && grsz && grf && grl && gob && gbh && gbr && gbody && grbody && gpay && gps && gpi && gfpay && cpay && gfps && gfpi,
          "memory");
    scz_l1dbg d;
    memset(&d, 0, sizeof d);
    d.src = a;
    d.nch = nch;
    d.full = *full;
    d.last = *last;
    d.eb = eb;
    d.R = R;
    d.psnr = psnr;
    d.costs = gcost;
    d.dec = gdec;
    d.codes = gcodes;
    d.aux = gaux;
    d.r = gr;
    d.nout = gno;
    d.nvnew = gnv;
    d.g = gg, d.hsz = ghsz, d.size0 = gs0, d.bits0 = gb0;
    d.rformed = grf, d.rsz = grsz, d.rle = grl;
    d.obytes = gob, d.bh = gbh, d.br = gbr;
    d.bodies = gbody, d.rbodies = grbody, d.bstride = bstride;
    d.pay = gpay, d.psize = gps, d.pinfo = gpi;
    d.fpay = gfpay, d.fpsize = gfps, d.fpinfo = gfpi;
    int e = gpu_writer(&d);
    CHECK(e == 0, "%s: GPU writer: %s", what, cudaGetErrorString((cudaError_t)e));
    if (e) goto done;
    char w[600];
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t c = 0; c < nch; c++) {
            const scz_chunk_geom *cg = c + 1 == nch ? last : full;
            const uint8_t *src = (const uint8_t *)a + (uint64_t)c * cf * es;
            uint64_t cc[LZ1_NCOST];
            uint8_t dec[5] = {0, 0, 0, 0, 0};
            snprintf(w, sizeof w, "%s chunk %u/%u%s", what, c, nch, pass ? " (forced)" : "");
            if (pass == 0) {
                scz__lossy1_debug_estimate(cg, src, eb, psnr, cc, dec);
                n_chunks++;
                int ok = memcmp(cc, gcost + (size_t)c * LZ1_NCOST, sizeof cc) == 0;
                for (unsigned k = 0; k < LZ1_NCOST && !ok; k++)
                    if (cc[k] != gcost[(size_t)c * LZ1_NCOST + k])
                        CHECK(0, "%s: cost %u: GPU %llu, CPU %llu", w, k,
                              (unsigned long long)gcost[(size_t)c * LZ1_NCOST + k], (unsigned long long)cc[k]);
                if (ok && memcmp(dec, gdec + 5 * c, 5)) {
                    CHECK(0, "%s: decision GPU %u %u %u %u %u, CPU %u %u %u %u %u", w, gdec[5 * c], gdec[5 * c + 1],
                          gdec[5 * c + 2], gdec[5 * c + 3], gdec[5 * c + 4], dec[0], dec[1], dec[2], dec[3], dec[4]);
                    ok = 0;
                }
                n_cost_ok += ok;
                n_interp_dec += dec[0] != LZ_PRED_LORENZO;
                n_trial += dec[2] != LZ_PRED_LORENZO;
                /* the final payload (with the trial) against the CPU writer's */
                if (cg->count) {
                    uint64_t csz = 0;
                    uint32_t cinfo = 0;
                    const int ce = scz__lossy1_debug_compress(cpu, cg, src, eb, psnr, R, cpay, bstride, &csz, &cinfo);
                    n_final++;
                    const int fok = ce == 0 && csz == gfps[c] && cinfo == gfpi[c] &&
                                    memcmp(cpay, gfpay + (size_t)c * bstride, csz) == 0;
                    n_final_ok += fok;
                    n_trial_won += dec[2] != LZ_PRED_LORENZO && cinfo && csz > 5 && cpay[5] != LZ_PRED_LORENZO;
                    CHECK(fok, "%s: final payload GPU %llu bytes (workflow %u), CPU %llu (%u), first difference at %zu",
                          w, (unsigned long long)gfps[c], gfpi[c], (unsigned long long)csz, cinfo,
                          tu_first_diff(cpay, gfpay + (size_t)c * bstride, csz < gfps[c] ? csz : gfps[c]));
                }
            }
            unsigned pred = dec[0], order = dec[1], tight = dec[4];
            if (pass == 1) {
                pred = force[3 * c], order = force[3 * c + 1], tight = force[3 * c + 2];
            } else {
                /* the next pass: the trial's linear order, else every predictor, order and tl in turn */
                unsigned rank = 0;
                for (unsigned k = 0; k < cg->rank; k++) rank += cg->dims[k] != 1;
                const unsigned no = rank == 3 ? 6 : 2, v = salt + c;
                if (dec[2] != LZ_PRED_LORENZO) force[3 * c] = LZ_PRED_LINEAR, force[3 * c + 1] = dec[3];
                else force[3 * c] = (uint8_t)(1 + v % 2), force[3 * c + 1] = (uint8_t)(v / 2 % no);
                force[3 * c + 2] = dec[2] != LZ_PRED_LORENZO ? dec[4] : (uint8_t)(v / 3 % 2);
            }
            if (cg->count == 0) continue;
            if (pred == LZ_PRED_LORENZO) {
                n_lor++;
            } else {
                n_sweep_chunks++;
                n_ord[order]++;
                n_tight += tight != 0;
                n_sweep_ok += cmp_sweeps(w, cg, src, eb, R, pred, order, tight, gcodes + (size_t)c * cf,
                                         gaux + (size_t)c * cf, gr[c], gno[c], gnv[c]);
            }
            n_gok += cmp_streams(w, cg, src, eb, R, pred, order, tight, gg[c], ghsz[c], gs0[c], gb0[c], grf[c],
                                 grsz[c], grl[c], gob[c], gbh[c], gbr[c],
                                 gbody + (size_t)c * bstride, grbody + (size_t)c * bstride, bstride,
                                 gpay + (size_t)c * bstride, gps[c], gpi[c]);
        }
        if (pass == 0) {
            d.force = force;
            d.costs = NULL;
            d.dec = NULL;
            e = gpu_writer(&d);
            CHECK(e == 0, "%s: GPU writer (forced): %s", what, cudaGetErrorString((cudaError_t)e));
            if (e) break;
        }
    }
done:
    free(gcost), free(gdec), free(force), free(gcodes), free(gaux), free(gr), free(gno), free(gnv);
    free(gg), free(ghsz), free(gs0), free(gb0), free(grsz), free(grf), free(grl);
    free(gob), free(gbh), free(gbr), free(gbody), free(grbody), free(gpay), free(gps), free(gpi);
    free(gfpay), free(cpay), free(gfps), free(gfpi);
}

/* Finite range of an array. */
static double frange(const void *a, uint64_t n, int f32) {
    double mn = INFINITY, mx = -INFINITY;
    for (uint64_t i = 0; i < n; i++) {
        const double x = f32 ? (double)((const float *)a)[i] : ((const double *)a)[i];
        if (isfinite(x)) mn = x < mn ? x : mn, mx = x > mx ? x : mx;
    }
    return mx >= mn ? mx - mn : 0.0;
}

/* The array of extents dims (fastest first, up to 4) in about `parts`
 * chunks along its slowest axis (a 4th axis folded into the 3rd), at the
 * bounds of the list. */
static void run_array(const char *name, const void *a, scz_dtype dt, const uint64_t *dims4, unsigned rank4,
                      unsigned parts, unsigned salt) {
    uint64_t dims[3] = {1, 1, 1};
    unsigned rank = rank4 > 3 ? 3 : rank4;
    for (unsigned k = 0; k < rank; k++) dims[k] = dims4[k];
    if (rank4 == 4) dims[2] *= dims4[3];
    uint64_t n = dims[0] * dims[1] * dims[2];
    if (n == 0) return;
    const unsigned sl = rank - 1;
    const uint64_t ck = (dims[sl] + parts - 1) / parts;
    const uint32_t nch = (uint32_t)((dims[sl] + ck - 1) / ck);
    scz_chunk_geom full, last;
    memset(&full, 0, sizeof full);
    full.dtype = dt;
    full.esize = dt == SCZ_DTYPE_F32 ? 4 : 8;
    full.rank = rank;
    for (unsigned k = 0; k < 3; k++) full.dims[k] = k < rank ? dims[k] : 1;
    last = full;
    full.dims[sl] = ck;
    last.dims[sl] = dims[sl] - (nch - 1) * ck;
    full.count = full.dims[0] * full.dims[1] * full.dims[2];
    last.count = last.dims[0] * last.dims[1] * last.dims[2];
    const int f32 = dt == SCZ_DTYPE_F32;
    const double range = frange(a, n, f32);
    static const double rels[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-6};
    char w[512];
    for (unsigned b = 0; b < 8; b++) {
        if (quick && b != 2 && b != 5 && b != (quick >= 2 ? 6 : 7)) continue;
        double eb;
        int psnr = 0;
        uint32_t R = 32767;
        if (b < 5) {
            eb = rels[b] * range;
            snprintf(w, sizeof w, "%s REL %g (%u chunks)", name, rels[b], nch);
        } else if (b == 5) {
            eb = 1e-2;
            R = 64; /* a small radius: outliers */
            snprintf(w, sizeof w, "%s ABS 1e-2 R 64 (%u chunks)", name, nch);
        } else if (b == 6) {
            eb = 0.0;
            snprintf(w, sizeof w, "%s ABS 0 (%u chunks)", name, nch);
        } else {
            eb = 1e-3 * range;
            psnr = 1;
            snprintf(w, sizeof w, "%s PSNR (eb 1e-3 x range) (%u chunks)", name, nch);
        }
        run_case(w, a, nch, &full, &last, eb, psnr, R, salt + b);
    }
}

static void test_generated(void) {
    for (int f = 0; f < GEN_NUM_FAMILIES; f++)
        for (int si = 0; si < gen_num_shapes; si++) {
            if (quick >= 2 && f != GEN_SMOOTH && f != GEN_SPIKY && f != GEN_FILL_VALUE) continue;
            for (int t = 0; t < 2; t++) {
                const scz_dtype dt = t ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
                const scz_shape s = gen_shape(&gen_shapes[si], dt);
                size_t bytes;
                void *a = gen_field((gen_family)f, &s, 1000 + (uint64_t)f * 7 + (uint64_t)si, &bytes);
                char name[256];
                snprintf(name, sizeof name, "%s %s %s", gen_family_name((gen_family)f), gen_shapes[si].name,
                         t ? "f64" : "f32");
                uint64_t dims[4];
                for (unsigned k = 0; k < 4; k++) dims[k] = s.dims[k];
                run_array(name, a, dt, dims, s.rank, 1 + (unsigned)(si + f) % 3, (unsigned)(f * 31 + si * 7 + t));
                free(a);
            }
        }
}

/* Shapes of rank 3 whose finest level the GPU codes by rows (even rows;
 * extents 2 and 3 where the cubic neighbours at +-3 are missing, odd
 * extents along axes 1 and 2, rows of one warp's pairs and of several),
 * and the level of stride 2 as well (rows divisible by 4, extents 3 or
 * more along axes 1 and 2: the last seven shapes, the first of them split
 * into chunks where not every chunk has it). */
static void test_rows(void) {
    static const uint64_t shapes[][3] = {{2, 2, 2}, {4, 2, 3}, {6, 7, 2}, {8, 3, 5},  {34, 9, 7},   {66, 4, 11},
                                         {130, 6, 6}, {12, 5, 9}, {68, 11, 6}, {128, 7, 13}, {8, 4, 4}, {252, 3, 3},
                                         {64, 9, 6}, {16, 5, 17}};
    static const gen_family fams[] = {GEN_SMOOTH, GEN_SPIKY, GEN_FILL_VALUE};
    for (unsigned si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (unsigned fi = 0; fi < 3; fi++)
            for (int t = 0; t < 2; t++) {
                if (quick >= 2 && (si + fi + (unsigned)t) % 2) continue;
                const scz_dtype dt = t ? SCZ_DTYPE_F64 : SCZ_DTYPE_F32;
                scz_shape s;
                memset(&s, 0, sizeof s);
                s.dtype = dt, s.rank = 3;
                for (unsigned k = 0; k < SCZ_MAX_RANK; k++) s.dims[k] = k < 3 ? shapes[si][k] : 1;
                size_t bytes;
                void *a = gen_field(fams[fi], &s, 77 + si * 3 + fi, &bytes);
                char name[256];
                snprintf(name, sizeof name, "rows %s %llux%llux%llu %s", gen_family_name(fams[fi]),
                         (unsigned long long)shapes[si][0], (unsigned long long)shapes[si][1],
                         (unsigned long long)shapes[si][2], t ? "f64" : "f32");
                run_array(name, a, dt, s.dims, 3, 1 + (si + fi) % 3, 500 + si * 11 + fi * 3 + (unsigned)t);
                free(a);
            }
}

static void test_files(void) {
    tu_datafile *files = NULL;
    const int nf = tu_data_files(&files);
    if (nf == 0) printf("no data files ($SCZ_DATA_DIR): skipped them\n");
    for (int i = 0; i < nf && (quick < 2 || i < 2); i++) {
        size_t sz = 0;
        void *a = tu_read_file(files[i].path, &sz);
        CHECK(a != NULL, "read %s", files[i].path);
        if (!a) continue;
        uint64_t dims[4] = {1, 1, 1, 1};
        for (unsigned k = 0; k < files[i].shape.rank && k < 4; k++) dims[k] = files[i].shape.dims[k];
        run_array(files[i].name, a, files[i].shape.dtype, dims, files[i].shape.rank, 1 + (unsigned)i % 4,
                  (unsigned)i * 5);
        free(a);
    }
    free(files);
}

/* SCZ_ENC1_BENCH=1: device time of the kernels on wmag tiled to 512^3
 * (mirrored, as bench/ and .devdata scripts do), f32, REL 1e-3, chunks of
 * 16 planes; no comparison. */
static void bench(void) {
    tu_datafile *files = NULL;
    const int nf = tu_data_files(&files);
    int wi = -1;
    for (int i = 0; i < nf; i++)
        if (strstr(files[i].name, "wmag")) wi = i;
    if (wi < 0) {
        printf("bench: no wmag data file\n");
        free(files);
        return;
    }
    size_t sz = 0;
    float *w = tu_read_file(files[wi].path, &sz);
    const uint64_t E = 512, M = 91, n = E * E * E;
    float *a = malloc(n * 4);
    CHECK(w && a && sz == M * M * M * 4, "bench input");
    if (!w || !a) return;
    uint64_t ix[512];
    for (uint64_t k = 0; k < E; k++) {
        const uint64_t per = 2 * (M - 1), r = k % per;
        ix[k] = r < M ? r : per - r;
    }
    for (uint64_t z = 0; z < E; z++)
        for (uint64_t y = 0; y < E; y++)
            for (uint64_t x = 0; x < E; x++) a[(z * E + y) * E + x] = w[(ix[z] * M + ix[y]) * M + ix[x]];
    scz_chunk_geom g;
    memset(&g, 0, sizeof g);
    g.dtype = SCZ_DTYPE_F32, g.esize = 4, g.rank = 3, g.dims[0] = E, g.dims[1] = E, g.dims[2] = 16;
    g.count = E * E * 16;
    scz_l1dbg d;
    memset(&d, 0, sizeof d);
    d.src = a, d.nch = (uint32_t)(E / 16), d.full = g, d.last = g, d.eb = 1e-3 * frange(a, n, 1), d.R = 32767;
    uint8_t *dec = malloc(5 * d.nch);
    d.dec = dec;
    for (int rep = 0; rep < 3; rep++) {
        const int e = scz__lossy1_cuda_debug(&d);
        CHECK(e == 0, "bench: %s", cudaGetErrorString((cudaError_t)e));
        unsigned ni = 0;
        for (uint32_t c = 0; c < d.nch; c++) ni += dec[5 * c] != 0;
        printf("bench wmag 512^3 f32 REL 1e-3, %u chunks (%u interpolated): estimate %.3f ms, sweeps %.3f ms, "
               "V_new/V_repeat %.3f ms (%.1f GB/s for the three), choice of g %.3f ms, run-length candidate, outlier list "
               "and body sizes %.3f ms, bodies and payloads %.3f ms\n",
               d.nch, ni, d.ms[0], d.ms[1], d.ms[2], (double)n * 4 / ((d.ms[0] + d.ms[1] + d.ms[2]) * 1e6), d.ms[3],
               d.ms[4], d.ms[5]);
    }
    free(dec);
    free(a);
    free(w);
    free(files);
}

int main(void) {
    char why[512];
    const char *q = getenv("SCZ_TEST_QUICK");
    quick = q && *q ? atoi(q) : 0;
    const char *m = getenv("SCZ_ENC1_MODEL");
    model = m && *m ? atoi(m) : 0;
    if (!model && scz_backend_probe(SCZ_BACKEND_CUDA, why, sizeof why) != SCZ_OK) tu_skip(why);
    if (model) printf("SCZ_ENC1_MODEL: the CPU stands in for the GPU (the test's plumbing only)\n");
    CHECK(scz_ctx_create(&cpu, SCZ_BACKEND_CPU) == SCZ_OK, "CPU context");
    const char *bv = getenv("SCZ_ENC1_BENCH");
    if (!model && bv && *bv && atoi(bv)) bench();
    const double t0 = tu_now();
    test_generated();
    test_rows();
    printf("generated: %ld cases (%.1f s)\n", n_cases, tu_now() - t0);
    test_files();
    printf("cases %ld, chunks %ld: estimate and decision equal in %ld (interpolation chosen %ld, trial %ld); sweeps "
           "compared on %ld chunks, equal in %ld (tl = 1: %ld; outliers %ld, V_new %ld, V_repeat %ld; orders",
           n_cases, n_chunks, n_cost_ok, n_interp_dec, n_trial, n_sweep_chunks, n_sweep_ok, n_tight, n_outl, n_vnew,
           n_vrep);
    for (unsigned o = 0; o < LZ1_MAX_ORDERS; o++) printf(" %ld", n_ord[o]);
    printf(") (%.1f s)\n", tu_now() - t0);
    printf("sweep streams, run-length candidate, outlier list and bodies' sizes: equal in %ld of %ld chunks (g > 0 in "
           "%ld; run-length equal in %ld, formed in %ld, kept in %ld; outlier list and bodies' sizes equal in %ld; Huffman "
           "bodies byte-identical in %ld, run-length bodies in %ld)\npayloads: byte-identical in %ld of %ld chunks (%ld "
           "Lorenzo; back end in %ld, stored %ld)\n",
           n_gok, n_g, n_gpos, n_rok, n_rform, n_rkeep, n_body_ok, n_bytes_ok, n_rbytes_ok, n_pay_ok, n_g, n_lor,
           n_pay_be, n_pay_stored);
    printf("final chunk payloads (the whole writer, trial included): byte-identical in %ld of %ld (the trial's "
           "interpolation kept in %ld); chunks with a body above the cap (not formed) %ld\n",
           n_final_ok, n_final, n_trial_won, n_unformed);
    if (quick < 2) CHECK(n_pay_be > 0 && n_pay_stored > 0 && n_lor > 0, "coverage: back end, stored, Lorenzo");
    if (quick < 2) CHECK(n_trial_won > 0, "coverage: the trial's interpolation kept");
    if (quick < 2) CHECK(n_gpos > 0 && n_rform > 0 && n_rkeep > 0, "coverage: g > 0, run-length formed and kept");
    if (quick < 2) { /* coverage of the full and QUICK=1 runs */
        CHECK(n_interp_dec > 0 && n_trial > 0 && n_tight > 0 && n_outl > 0 && n_vrep > 0, "coverage");
        for (unsigned o = 0; o < LZ1_MAX_ORDERS; o++) CHECK(n_ord[o] > 0, "axis order %u swept", o);
    }
    scz_ctx_destroy(cpu);
    return tu_finish(model ? "test_cuda_lossy_enc1 (CPU model, no GPU)" : "test_cuda_lossy_enc1");
}
#endif

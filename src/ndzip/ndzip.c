/* ndzip codec -- placeholder, being written */
#include "../internal.h"
#include "ndzip.h"
static uint64_t al(const scz_header *h) { return ndzip_hc_side[h->rank > 3 ? 3 : h->rank]; }
static uint64_t bound(const scz_header *h, const scz_chunk_geom *g) { (void)h; return g->count * g->esize * 2 + 4096; }
static scz_status cc(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const void *s, uint8_t *d, uint64_t cap, uint64_t *o, uint32_t *i) {
    (void)h; (void)g; (void)s; (void)d; (void)cap; (void)o; (void)i;
    return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "ndzip not yet implemented");
}
static scz_status dc(scz_ctx *ctx, const scz_header *h, const scz_chunk_geom *g, const uint8_t *s, uint64_t n, uint32_t i, void *d) {
    (void)h; (void)g; (void)s; (void)n; (void)i; (void)d;
    return scz__fail(ctx, SCZ_ERR_UNSUPPORTED, "ndzip not yet implemented");
}
const scz_codec_ops scz__ndzip_ops = {SCZ_CODEC_NDZIP, "ndzip", 1, NULL, NULL, al, bound, cc, dc};

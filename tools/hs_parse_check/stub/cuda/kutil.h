/* kutil.h for tools/hs_parse_check: the loads huffman_cuda.h uses, on the
 * host; ld32u aborts where it would read at or past `end` */
#pragma once
#include "emu.h"
namespace scz_ku {
inline uint32_t ldb32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
inline uint64_t ldb64(const uint8_t *p) { return ldb32(p) | (uint64_t)ldb32(p + 4) << 32; }
inline uint32_t ld32u(const uint8_t *p, const uint8_t *end) {
    if (p + 4 > end) {
        fprintf(stderr, "ld32u past the end\n");
        abort();
    }
    return ldb32(p);
}
inline void cp_async4(void *d, const void *s) { memcpy(d, s, 4); }
inline void cp_async_wait_all() {}
} // namespace scz_ku

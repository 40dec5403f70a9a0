/*
 * check.cpp -- hs_parse_build against hs_parse + hs_build, both run on the
 * emulated device (emu.h): the same return code from every thread, and
 * for a valid stream the same Stream, primary table and long list (entries
 * neither writes keep a sentinel). Streams end at a protected page, so a
 * read past them faults. run.sh builds and runs it.
 *   check REPS NT   (NT 64, 96 or 256; 0: all three)
 */
#include "entropy/huffman_cuda.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

using namespace scz_hd;
namespace emu {
void launch(int nt, void (*fn)());
}

static std::mt19937_64 R(777);
static uint64_t rnd() { return R(); }
static uint64_t rr(uint64_t n) { return n ? rnd() % n : 0; }

/* shared state of the emulated block */
static Stream Sref, Snew;
static HsParseShared w;
static Run runs[1024];
static uint32_t sh[LMAX + 8];
static int res_ref, res_new;
static uint32_t table_ref[TABLE], table_new[TABLE];
static uint16_t longs_ref[70000], longs_new[70000];
static const uint8_t *g_src;
static uint64_t g_avail, g_count;
static uint32_t g_K, g_cap;

template <int NT> static void k_ref() {
    if (threadIdx.x == 0) res_ref = hs_parse(g_src, g_avail, g_K, g_count, g_cap, &Sref);
    __syncthreads();
    const int r = res_ref;
    if (!r && Sref.count) hs_build<NT>(Sref, Sref.cb, table_ref, longs_ref, runs, sh);
}
static int per_thread[1024];
template <int NT> static void k_new() {
    const int r = hs_parse_build<NT>(g_src, g_avail, g_K, g_count, g_cap, Snew, table_new, longs_new, w);
    per_thread[threadIdx.x] = r;
}

/* a stream around codebook cb */
static std::vector<uint8_t> make_stream(uint32_t K, const std::vector<uint8_t> &cb, uint64_t count, uint64_t bits) {
    std::vector<uint8_t> s(20);
    auto st32 = [&](size_t o, uint32_t v) { for (int i = 0; i < 4; i++) s[o + i] = (uint8_t)(v >> (8 * i)); };
    st32(0, K);
    st32(4, (uint32_t)count);
    for (int i = 0; i < 8; i++) s[8 + i] = (uint8_t)(bits >> (8 * i));
    st32(16, (uint32_t)cb.size());
    s.insert(s.end(), cb.begin(), cb.end());
    const uint64_t nu = (bits + 1023) / 1024, ns = (nu + 31) / 32, nw = (bits + 31) / 32;
    s.resize(s.size() + (nu + 1) / 2 + 4 * ns + 4 * nw, 0);
    return s;
}

static void put_run(std::vector<uint8_t> &cb, uint32_t l, uint32_t c) {
    if (c <= 7) {
        cb.push_back((uint8_t)((c - 1) << 5 | l));
        return;
    }
    cb.push_back((uint8_t)(0xE0 | l));
    uint32_t x = c - 8;
    do {
        uint8_t b = x & 0x7F;
        x >>= 7;
        if (x) b |= 0x80;
        cb.push_back(b);
    } while (x);
}

/* a valid codebook of K symbols: runs (length, count) */
static std::vector<uint8_t> gen_cb(uint32_t K, int style) {
    std::vector<std::pair<uint32_t, uint32_t>> rv;
    uint32_t s = 0;
    while (s < K) {
        uint32_t c, l;
        const uint32_t left = K - s;
        if (style == 0) { /* sparse tails: many short runs, long lengths */
            c = 1 + (uint32_t)rr(3);
            l = rr(2) ? 0 : 12 + (uint32_t)rr(5);
        } else if (style == 1) { /* mixed */
            const uint64_t z = rr(100);
            c = z < 70 ? 1 + (uint32_t)rr(7) : z < 90 ? 8 + (uint32_t)rr(128) : z < 98 ? 136 + (uint32_t)rr(16256) : 16392 + (uint32_t)rr(50000);
            l = rr(10) < 3 ? 0 : 1 + (uint32_t)rr(16);
        } else if (style == 2) { /* one length */
            c = left;
            l = 16;
        } else if (style == 4) { /* many long-code runs just above HSP_DIRECT, unmerged */
            c = 17 + (uint32_t)rr(8);
            l = 13 + (uint32_t)rr(4);
        } else if (style == 5) { /* one symbol a run: a byte a symbol */
            c = 1;
            l = (s & 1) ? 16 : (rr(3) ? 0 : 15);
        } else { /* short runs of all lengths */
            c = 1 + (uint32_t)rr(9);
            l = (uint32_t)rr(17);
        }
        if (c > left) c = left;
        rv.push_back({l, c});
        s += c;
    }
    /* Kraft <= 1: lengthen the shortest codes */
    auto kraft = [&]() { uint64_t k = 0; for (auto &p : rv) if (p.first) k += (uint64_t)p.second << (16 - p.first); return k; };
    for (uint32_t l = 1; l < 16 && kraft() > 65536; l++)
        for (auto &p : rv) if (p.first == l) p.first = l + 1;
    bool any = false;
    for (auto &p : rv) any |= p.first != 0;
    if (!any) rv[rr(rv.size())].first = 16;
    if (kraft() > 65536) { fprintf(stderr, "gen: kraft\n"); abort(); }
    std::vector<uint8_t> cb;
    for (size_t i = 0; i < rv.size();) { /* maximal runs, sometimes split */
        uint32_t l = rv[i].first, c = 0;
        if (style == 4) c = rv[i++].second;
        else
            while (i < rv.size() && rv[i].first == l) c += rv[i++].second;
        while (c) {
            uint32_t piece = rr(8) == 0 ? 1 + (uint32_t)rr(c) : c;
            put_run(cb, l, piece);
            c -= piece;
        }
    }
    return cb;
}

static long n_cases, n_ok, n_err[8], n_fail, n_fast, n_gen_ok, max_gen_cb, n_big_runs;

template <int NT> static void run_case(std::vector<uint8_t> strm, uint32_t K, uint64_t count, uint32_t cap, uint64_t avail_cut,
                                       const char *what) {
    /* the stream ends at a protected page */
    const size_t avail = strm.size() - std::min<size_t>(avail_cut, strm.size());
    const long pg = sysconf(_SC_PAGESIZE);
    const size_t span = (avail + pg - 1) / pg * pg + pg;
    uint8_t *m = (uint8_t *)mmap(nullptr, span + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(m + span, pg, PROT_NONE);
    uint8_t *src = m + span - avail;
    memcpy(src, strm.data(), avail);
    g_src = src;
    g_avail = avail;
    g_K = K;
    g_count = count;
    g_cap = cap;
    memset(&Sref, 0, sizeof Sref);
    memset(&Snew, 0, sizeof Snew);
    for (uint32_t i = 0; i < TABLE; i++) table_ref[i] = table_new[i] = 0xDEADBEEFu;
    for (uint32_t i = 0; i < 70000; i++) longs_ref[i] = longs_new[i] = 0xABCD;
    memset(&w, 0x5A, sizeof w);
    emu::launch(NT, k_ref<NT>);
    emu::launch(NT, k_new<NT>);
    res_new = per_thread[0];
    bool bad = false;
    for (int i = 1; i < NT; i++) bad |= per_thread[i] != res_new;
    if (bad) printf("FAIL %s: threads disagree\n", what);
    if (res_new != res_ref) {
        printf("FAIL %s: ref %d new %d (K %u cb %u NT %d)\n", what, res_ref, res_new, K, Sref.cb_bytes, NT);
        bad = true;
    } else if (res_ref == HS_OK) {
        if (memcmp(&Sref, &Snew, sizeof Sref)) printf("FAIL %s: Stream differs\n", what), bad = true;
        if (Sref.count) {
            if (memcmp(table_ref, table_new, sizeof table_ref)) {
                printf("FAIL %s: table differs\n", what);
                bad = true;
            }
            if (memcmp(longs_ref, longs_new, sizeof longs_ref)) {
                printf("FAIL %s: longs differ (n_long %u)\n", what, Sref.n_long);
                bad = true;
            }
        }
    }
    n_cases++;
    if (res_ref == HS_OK) n_ok++;
    n_err[res_ref]++;
    const bool fast = K <= HSP_RUNS && Sref.cb_bytes <= HSP_CB;
    if (fast) n_fast++;
    if (!fast && res_ref == HS_OK) {
        n_gen_ok++;
        n_big_runs = std::max<long>(n_big_runs, w.nr);
        max_gen_cb = std::max<long>(max_gen_cb, Sref.cb_bytes);
    }
    n_fail += bad;
    munmap(m, span + pg);
}

template <int NT> static void family(uint32_t K, int style, int mut, uint64_t count) {
    std::vector<uint8_t> cb = gen_cb(K, style);
    const uint64_t bits = count + rr(15 * count + 1);
    uint32_t cap = (uint32_t)std::min<uint64_t>(K, count);
    uint64_t cut = 0;
    uint32_t KK = K;
    std::vector<uint8_t> st;
    char what[200];
    auto mutate_cb = [&]() {
        if (cb.empty()) return;
        const size_t at = rr(cb.size());
        switch (mut) {
        case 1: cb[at] ^= (uint8_t)(1u << rr(8)); break;
        case 2: cb[at] = (uint8_t)rnd(); break;
        case 3: cb[at] = (uint8_t)((cb[at] & 0xE0) | (17 + rr(15))); break;
        case 4: cb.insert(cb.begin() + (long)at, (uint8_t)rnd()); break;
        case 5: cb.erase(cb.begin() + (long)at); break;
        case 6: cb.resize(at); break;
        case 7: put_run(cb, (uint32_t)rr(17), 1 + (uint32_t)rr(20)); break;
        case 8: { /* a varint with a zero continuation byte */
            for (size_t k = at; k + 2 < cb.size(); k++)
                if ((cb[k] >> 5) == 7) { cb[k + 1] |= 0x80; cb[k + 2] = 0; break; }
            break;
        }
        case 9: { /* a 4-byte varint */
            std::vector<uint8_t> v = {(uint8_t)(0xE0 | rr(17)), 0x80, 0x80, 0x80, (uint8_t)(1 + rr(127))};
            cb.insert(cb.begin() + (long)at, v.begin(), v.end());
            break;
        }
        case 10: { /* a 3-byte varint with all continuation bits at the end */
            std::vector<uint8_t> v = {(uint8_t)(0xE0 | rr(17)), 0x81, 0x82, 0x83};
            cb.insert(cb.end(), v.begin(), v.end());
            break;
        }
        case 11: cb.resize(cb.size() - std::min<size_t>(cb.size(), 1 + rr(3))); break; /* cut at the end */
        case 12: for (int k = 0; k < 4; k++) cb[rr(cb.size())] = (uint8_t)rnd(); break;
        case 13: { /* a varint run of x > K */
            std::vector<uint8_t> v = {(uint8_t)(0xE0 | rr(17)), 0xFF, 0xFF, 0x07};
            cb.insert(cb.begin() + (long)at, v.begin(), v.end());
            break;
        }
        }
    };
    if (mut >= 1 && mut <= 13) mutate_cb();
    if (mut == 14) { /* garbage codebook */
        cb.resize(rr(std::min<uint32_t>(K, 70000) + 10));
        for (auto &b : cb) b = (uint8_t)rnd();
    }
    if (mut == 15) { /* garbage of only valid-looking runs, more than K bytes or not */
        cb.clear();
        const size_t len = rr(2 * K + 10);
        while (cb.size() < len) cb.push_back((uint8_t)(rr(7) << 5 | rr(17)));
    }
    st = make_stream(K, cb, count, bits);
    auto st32 = [&](size_t o, uint32_t v) { for (int i = 0; i < 4; i++) st[o + i] = (uint8_t)(v >> (8 * i)); };
    if (mut == 16) st32(16, (uint32_t)cb.size() + (uint32_t)rr(5) - 2); /* cb_bytes off */
    if (mut == 17) KK = K + 1;                                       /* K mismatch */
    if (mut == 18) cut = 1 + rr(3);                                  /* truncated */
    if (mut == 19 && (bits & 31)) st[st.size() - 4] |= 1;            /* padding */
    if (mut == 20) st[20 + cb.size()] |= 1 + rr(15);                 /* gap 0 */
    if (mut == 21) cap = (uint32_t)rr(cap + 1);                      /* long list cap */
    snprintf(what, sizeof what, "K %u style %d mut %d count %llu cb %zu", K, style, mut, (unsigned long long)count, cb.size());
    run_case<NT>(st, KK, count, cap, cut, what);
}

template <int NT> static void sweep(int reps, bool big) {
    const uint32_t Ks[] = {1, 2, 300, 2048, 2049, 3000, 20000, 65535, 65536};
    for (int rep = 0; rep < reps; rep++)
        for (uint32_t K : Ks) {
            if (!big && K > 20000 && rep % 4) continue;
            for (int style = 0; style < 6; style++)
                for (int mut = 0; mut <= 21; mut++) {
                    const uint64_t count = rr(3) ? K + rr(200000) : 1 + rr(3000);
                    family<NT>(K, style, mut, count);
                }
        }
}

int main(int argc, char **argv) {
    const int reps = argc > 1 ? atoi(argv[1]) : 1;
    const int which = argc > 2 ? atoi(argv[2]) : 0;
    if (which == 0 || which == 64) sweep<64>(reps, true);
    if (which == 0 || which == 96) sweep<96>(reps, false);
    if (which == 0 || which == 256) sweep<256>(reps, false);
    printf("general path OK cases %ld, largest codebook %ld bytes, most buffered runs %ld\n", n_gen_ok, max_gen_cb, n_big_runs);
    printf("cases %ld (small path %ld): ok %ld, stream %ld, codebook %ld, padding %ld, bitstream %ld, long %ld; FAILED %ld\n",
           n_cases, n_fast, n_ok, n_err[HS_ERR_STREAM], n_err[HS_ERR_CODEBOOK], n_err[HS_ERR_PADDING],
           n_err[HS_ERR_BITSTREAM], n_err[HS_ERR_LONG], n_fail);
    return n_fail != 0;
}

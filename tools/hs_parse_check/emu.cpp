/*
 * emu.cpp -- the fibers of emu.h: a context switch that saves the
 * callee-saved registers and the stack pointer (x86-64 System V), a
 * scheduler that runs the fibers of one launch until all return, and the
 * barriers (a fiber that waits yields until its group's generation moves
 * on). No runnable fiber left (a barrier some threads never reach): abort.
 */
#include "emu.h"

EmuIdx threadIdx, blockIdx, blockDim;
namespace emu {
int nthreads;
uint64_t xch[32][32];
unsigned tor_acc[3];
unsigned tor_gen_of[1024];
struct Fiber {
    void *sp;
    char *stack;
    bool done;
    Group *wg;
    unsigned wgen;
};
static Fiber fib[1024];
static void *sched_sp;
static int cur;
static std::mt19937_64 rng(12345);
static void (*body)();
static Group blk, wg[32];
static uint64_t progress;
Group &block_group() { return blk; }
Group &warp_group(int w) { return wg[w]; }
extern "C" void emu_swap(void **save, void *to);
asm(R"(
.text
.globl emu_swap
.type emu_swap,@function
emu_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
)");
static void tramp() {
    body();
    fib[cur].done = true;
    progress++;
    emu_swap(&fib[cur].sp, sched_sp);
    abort();
}
void yield() { emu_swap(&fib[cur].sp, sched_sp); }
void group_wait(Group &g) {
    const unsigned my = g.gen;
    progress++;
    if (++g.arrived == g.size) {
        g.arrived = 0;
        g.gen++;
        yield();
        return;
    }
    fib[cur].wg = &g;
    fib[cur].wgen = my;
    while (g.gen == my) yield();
    fib[cur].wg = nullptr;
}
static int prio[32];
static void shuffle_prio(int nw) {
    for (int i = 0; i < nw; i++) prio[i] = i;
    for (int i = nw - 1; i > 0; i--) std::swap(prio[i], prio[rng() % (i + 1)]);
}
static bool runnable(int i) { return !fib[i].done && !(fib[i].wg && fib[i].wg->gen == fib[i].wgen); }
constexpr size_t STACK = 256 << 10;
void launch(int nt, void (*fn)()) {
    nthreads = nt;
    body = fn;
    blk = Group{nt, 0, 0};
    for (int w = 0; w < nt / 32; w++) wg[w] = Group{32, 0, 0};
    memset(tor_acc, 0, sizeof tor_acc);
    memset(tor_gen_of, 0, sizeof tor_gen_of);
    for (int i = 0; i < nt; i++) {
        if (!fib[i].stack) fib[i].stack = (char *)malloc(STACK);
        uintptr_t top = ((uintptr_t)fib[i].stack + STACK) & ~(uintptr_t)15;
        void **sp = (void **)top;
        *--sp = nullptr;          /* fake return address of tramp */
        *--sp = (void *)&tramp;   /* ret target */
        for (int k = 0; k < 6; k++) *--sp = nullptr;
        fib[i].sp = sp;
        fib[i].done = false;
        fib[i].wg = nullptr;
    }
    const int nw = nt / 32;
    shuffle_prio(nw);
    unsigned bgen = blk.gen;
    int left = nt;
    uint64_t last = progress, idle = 0;
    while (left) {
        /* warps by priority (reshuffled at each block barrier and now and
         * then): the first warp with a runnable fiber runs, a random one */
        if (blk.gen != bgen || rng() % 4096 == 0) bgen = blk.gen, shuffle_prio(nw);
        int i = -1;
        for (int k = 0; k < nw && i < 0; k++) {
            const int wv = prio[k], o = (int)(rng() % 32);
            for (int j = 0; j < 32; j++)
                if (runnable(wv * 32 + (o + j) % 32)) { i = wv * 32 + (o + j) % 32; break; }
        }
        if (i < 0) {
            fprintf(stderr, "emu: deadlock (no runnable fiber)\n");
            abort();
        }
        cur = i;
        threadIdx.x = i;
        emu_swap(&sched_sp, fib[i].sp);
        if (fib[i].done) left--;
        if (progress != last) last = progress, idle = 0;
        else if (++idle > 100000ull * nt) {
            fprintf(stderr, "emu: deadlock\n");
            abort();
        }
    }
}
} // namespace emu

/*
 * prof.h -- phase timing of a codec's launches for development: with
 * SCZ_GPU_PROFILE=1 in the environment, Prof::mark records a CUDA event
 * after the launches of a phase and Prof::report waits for the stream and
 * prints each phase's time (summed over the marks of the same name) to
 * stderr. Off (one getenv per process) it does nothing and adds no sync.
 * CUDA C++, .cu files only.
 */
#ifndef SCZ_CUDA_PROF_H
#define SCZ_CUDA_PROF_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* runtime.cu: 0 off, 1 print (SCZ_GPU_PROFILE=1), 2 record */
extern "C" int scz__cuda_prof_mode(void);
extern "C" void scz__cuda_prof_add(const char *what, const char *phase, double ms);

struct ScProf {
    enum { MAXM = 256 };
    cudaEvent_t ev[MAXM + 1];
    const char *name[MAXM];
    int n = 0;
    bool on = false;
    int mode = 0;
    cudaStream_t s;
    const char *what;
    ScProf(const char *w, cudaStream_t st) : s(st), what(w) {
        mode = scz__cuda_prof_mode();
        on = mode != 0;
        if (on && cudaEventCreate(&ev[0]) == cudaSuccess) cudaEventRecord(ev[0], s);
        else on = false;
    }
    void mark(const char *nm) {
        if (!on || n >= MAXM) return;
        if (cudaEventCreate(&ev[n + 1]) != cudaSuccess) return;
        cudaEventRecord(ev[n + 1], s);
        name[n++] = nm;
    }
    ~ScProf() {
        if (!on) return;
        cudaStreamSynchronize(s);
        float tot = 0;
        const char *seen[MAXM];
        float sum[MAXM];
        int ns = 0;
        for (int i = 0; i < n; i++) {
            float ms = 0;
            cudaEventElapsedTime(&ms, ev[i], ev[i + 1]);
            tot += ms;
            int k = 0;
            while (k < ns && strcmp(seen[k], name[i])) k++;
            if (k == ns) {
                seen[ns] = name[i];
                sum[ns++] = 0;
            }
            sum[k] += ms;
        }
        if (mode == 1) {
            fprintf(stderr, "[profile %s: %.3f ms]", what, tot);
            for (int k = 0; k < ns; k++) fprintf(stderr, " %s %.3f", seen[k], sum[k]);
            fprintf(stderr, "\n");
        } else {
            for (int k = 0; k < ns; k++) scz__cuda_prof_add(what, seen[k], sum[k]);
        }
        for (int i = 0; i <= n; i++) cudaEventDestroy(ev[i]);
    }
};

#endif

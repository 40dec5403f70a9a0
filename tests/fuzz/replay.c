/*
 * replay.c -- runs a fuzz target's LLVMFuzzerTestOneInput over files, without
 * libFuzzer: the normal build links it with each target (fuzz_replay_*
 * CTest tests), so every input in tests/fuzz/regress (crashes found by
 * fuzzing, kept as regression tests) and tests/fuzz/seeds is replayed by
 * `make test` and `make asan` with any compiler.
 *
 *   replay PATH...   each PATH a file or a folder (its files, sorted)
 *
 * Exits 0 when at least one input ran and none aborted (a violated property
 * aborts inside the target), 2 when no input was found or one could not be
 * read.
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ran, failed;

static void run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        failed++;
        return;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        size_t r = fread(buf + n, 1, cap - n, f);
        if (r == 0) break;
        n += r;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        failed++;
        free(buf);
        return;
    }
    /* an exactly sized copy, as libFuzzer passes it */
    uint8_t *in = malloc(n ? n : 1);
    memcpy(in, buf, n);
    free(buf);
    printf("replay %s (%zu bytes)\n", path, n);
    fflush(stdout);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    ran++;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_path(const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: %s does not exist\n", path);
        failed++;
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        run_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot list %s\n", path);
        failed++;
        return;
    }
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue; /* ., .., hidden files (.gitkeep) */
        if (nn == cap) names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[nn] = malloc(len);
        snprintf(names[nn++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (nn) qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn; i++) {
        run_path(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) run_path(argv[i]);
    printf("replay: %d inputs, %d unreadable\n", ran, failed);
    return ran > 0 && failed == 0 ? 0 : 2;
}

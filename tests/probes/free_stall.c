/*
 * free_stall: how long a large free() stalls another thread's memory
 * operations (cuda/NOTES.md, the async calls' gap). Touches
 * three buffers of G GiB, then frees them while a second thread loops on
 * either a 1 MiB mmap/munmap pair (mode "mmap") or a first touch of a new
 * page of a reserved region (mode "fault"), and prints the free's time
 * and the prober's worst single operation. A diagnostic, not a test: run
 * it by hand.
 *
 *   cc -O2 -pthread tests/probes/free_stall.c -o /tmp/free_stall
 *   /tmp/free_stall 2 mmap; /tmp/free_stall 2 fault
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile int stop;
static int fault_mode;

static void* prober(void* arg) {
    (void)arg;
    const size_t region = (size_t)8 << 30;
    char* reg = NULL;
    if (fault_mode) {
        reg = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (reg == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
    }
    size_t off = 0;
    double worst = 0;
    long n = 0;
    while (!stop) {
        double t0 = now();
        if (fault_mode) {
            reg[off] = 1;
            off = (off + 4096) % region;
        } else {
            void* p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED) munmap(p, 1 << 20);
        }
        double d = now() - t0;
        if (d > worst) worst = d;
        n++;
    }
    printf("prober (%s): %ld operations, worst %.1f ms\n", fault_mode ? "page faults" : "mmap/munmap pairs", n, worst * 1e3);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 64 || (strcmp(argv[2], "mmap") && strcmp(argv[2], "fault"))) {
        fprintf(stderr, "usage: free_stall GIB(1..64) mmap|fault\n");
        return 2;
    }
    size_t sz = (size_t)atoi(argv[1]) << 30;
    fault_mode = !strcmp(argv[2], "fault");
    char* b[3];
    for (int i = 0; i < 3; i++) {
        if (!(b[i] = malloc(sz))) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        memset(b[i], 1, sz);
    }
    pthread_t th;
    pthread_create(&th, NULL, prober, NULL);
    struct timespec pause = {0, 200000000};
    nanosleep(&pause, NULL); /* the prober's own set-up done */
    double t0 = now();
    for (int i = 0; i < 3; i++) free(b[i]);
    double d = now() - t0;
    nanosleep(&pause, NULL);
    stop = 1;
    pthread_join(th, NULL);
    printf("free of 3 x %s GiB: %.1f ms\n", argv[1], d * 1e3);
    return 0;
}

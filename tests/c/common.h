/* Helpers shared by the C tests: file loading and a tiny check harness. */
#ifndef CUZK_TEST_COMMON_H
#define CUZK_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (cond) {                                       \
            passed++;                                     \
        } else {                                          \
            failed++;                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                 \
            fprintf(stderr, "\n");                        \
        }                                                 \
    } while (0)

/* Reads a whole file; *len receives its size. Exits on failure (fixture). */
static inline uint8_t* read_file(const char* dir, const char* name, size_t* len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t* buf = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Reads an integer field of the fixture's assignment.json. */
static inline size_t meta_field(const char* dir, const char* key) {
    size_t len;
    char* js = (char*)read_file(dir, "assignment.json", &len);
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    char* at = strstr(js, pat);
    if (!at) {
        fprintf(stderr, "assignment.json has no %s\n", key);
        exit(2);
    }
    size_t v = strtoull(at + strlen(pat), NULL, 10);
    free(js);
    return v;
}

static inline int finish(const char* name) {
    printf("%s: %d passed, %d failed\n", name, passed, failed);
    return failed == 0 ? 0 : 1;
}

#endif

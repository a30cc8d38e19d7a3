// SPDX-License-Identifier: Apache-2.0
// Jansson against cJSON, the two JSON libraries Debian (and Yocto, Buildroot) package, on the
// documents the SDK reads: every JSON body of Adobe's documented examples (bodies.json, written by
// Benchmarks/json_libraries.py). Prints, per library: documents parsed, microseconds per
// document (parse + free, median of 7 rounds of 2,000 passes), and the library's file size.
// docs/DECISIONS.md "JSON" has the figures and the choice.
//   cc -O2 Benchmarks/json_libraries.c -o json_libraries -ljansson -lcjson && ./json_libraries bodies.bin
#include <cjson/cJSON.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DOCS 512
#define ROUNDS 7
#define PASSES 2000

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s BODIES (NUL-separated)\n", argv[0]); return 2; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 2; }
    static char buffer[1 << 22];
    size_t size = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    const char *docs[MAX_DOCS];
    size_t lengths[MAX_DOCS];
    int count = 0;
    for (size_t start = 0; start < size && count < MAX_DOCS;) {
        size_t length = strlen(buffer + start);
        docs[count] = buffer + start;
        lengths[count++] = length;
        start += length + 1;
    }
    double jansson[ROUNDS], cjson[ROUNDS];
    int jansson_ok = 0, cjson_ok = 0;
    for (int round = 0; round < ROUNDS; round++) {
        double started = now();
        jansson_ok = 0;
        for (int pass = 0; pass < PASSES; pass++)
            for (int i = 0; i < count; i++) {
                json_error_t error;
                json_t *root = json_loadb(docs[i], lengths[i], JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &error);
                if (root) { jansson_ok++; json_decref(root); }
            }
        jansson[round] = (now() - started) / (PASSES * count) * 1e6;
        started = now();
        cjson_ok = 0;
        for (int pass = 0; pass < PASSES; pass++)
            for (int i = 0; i < count; i++) {
                cJSON *root = cJSON_ParseWithLength(docs[i], lengths[i]);
                if (root) { cjson_ok++; cJSON_Delete(root); }
            }
        cjson[round] = (now() - started) / (PASSES * count) * 1e6;
    }
    qsort(jansson, ROUNDS, sizeof *jansson, compare);
    qsort(cjson, ROUNDS, sizeof *cjson, compare);
    size_t total = 0;
    for (int i = 0; i < count; i++) total += lengths[i];
    printf("%d documents, %zu bytes on average\n", count, total / (size_t)count);
    printf("| library | parsed | µs per document (median) |\n|---|---:|---:|\n");
    printf("| Jansson %s | %d / %d | %.2f |\n", JANSSON_VERSION, jansson_ok / PASSES, count, jansson[ROUNDS / 2]);
    printf("| cJSON %d.%d.%d | %d / %d | %.2f |\n", CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH,
           cjson_ok / PASSES, count, cjson[ROUNDS / 2]);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * The C side of Benchmarks/run.py: timings, load and memory measured through the public header,
 * in one process, with no Python in the measured path. Prints one JSON object on stdout.
 *
 *   bench overhead <url> <store> <statement> <device> <request-file> <calls>
 *       ae_get_authorization -> set_token, one call at a time, interleaved in blocks with a bare
 *       libcurl replay of the SDK's own decisions/authorize request (<request-file>: method line,
 *       URL line, header lines, an empty line, the body), and with the same replay through a
 *       curl_multi loop on a thread of its own (the SDK's shape without the SDK: the caller wakes
 *       the loop with curl_multi_wakeup, the loop posts the caller's semaphore), 2 ms apart.
 *       Samples in microseconds.
 *   bench load <url> <store> <statement> <device> <threads> <burst> <total> <inflight> <samples>
 *       <burst> getAuthorization calls released at once from <threads> threads; then <total>
 *       calls with at most <inflight> outstanding, VmRSS sampled <samples> times.
 *   bench startup <url> <store> <statement> <device> <repeats>
 *       create -> setRequestor -> set_requestor_complete: the first in this process (time and
 *       VmRSS added), then <repeats> more create/setRequestor/destroy cycles.
 *
 * The store must hold a fresh registration, access token, configuration and profile for
 * <statement> and <device> (run.py logs in through the emulator first), except for a cold
 * `startup`, which is given an empty store.
 */
#define _POSIX_C_SOURCE 200809L
#include "accessenabler.h"

#include <curl/curl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *RESOURCES[] = {"LIVE", "NEWS", "SPORTS", "MOVIES", "KIDS", "MUSIC", "DOCS", "DRAMA"};
#define RESOURCE_COUNT (sizeof RESOURCES / sizeof RESOURCES[0])

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static long rss_kb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmRSS:", 6) == 0) { kb = strtol(line + 6, NULL, 10); break; }
    }
    fclose(status);
    return kb;
}

/* Resident memory by what it belongs to, from /proc/self/smaps: the pages of each shared library
 * (code and data) and the anonymous memory (the heap and thread stacks, which every library's
 * allocations share). */
enum { PART_SDK, PART_CURL, PART_TLS, PART_SQLITE, PART_JANSSON, PART_LIBC_OTHER, PART_ANON, PART_COUNT };
static const char *const part_names[PART_COUNT] = {
    "libaccessenabler", "libcurl", "libssl_libcrypto", "libsqlite3", "libjansson", "other_libraries", "anonymous"};

static void rss_parts_kb(long parts[PART_COUNT]) {
    memset(parts, 0, sizeof(long) * PART_COUNT);
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (smaps == NULL) return;
    char line[512];
    int part = PART_ANON;
    while (fgets(line, sizeof line, smaps)) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, ':') != NULL && strncmp(line, "Rss:", 4) != 0) {
            const char *path = strchr(line, '/');
            if (path == NULL) part = PART_ANON;
            else if (strstr(path, "libaccessenabler")) part = PART_SDK;
            else if (strstr(path, "libcurl")) part = PART_CURL;
            else if (strstr(path, "libssl") || strstr(path, "libcrypto")) part = PART_TLS;
            else if (strstr(path, "libsqlite3")) part = PART_SQLITE;
            else if (strstr(path, "libjansson")) part = PART_JANSSON;
            else part = PART_LIBC_OTHER;
        } else if (strncmp(line, "Rss:", 4) == 0) {
            parts[part] += strtol(line + 4, NULL, 10);
        }
    }
    fclose(smaps);
}

static void print_parts(const char *name, const long parts[PART_COUNT]) {
    printf("\"%s\":{", name);
    for (int i = 0; i < PART_COUNT; i++) printf("%s\"%s\":%ld", i ? "," : "", part_names[i], parts[i]);
    printf("},");
}

static void pause_ms(long ms) {
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&wait, NULL);
}

static void die(const char *what) {
    char *message = ae_last_error_message();
    fprintf(stderr, "bench: %s%s%s\n", what, message ? ": " : "", message ? message : "");
    ae_string_free(message);
    exit(1);
}

/* --- the client and its callbacks ------------------------------------------------------------ */

static sem_t done;                 /* one post per terminal outcome (overhead, burst) */
static sem_t slots;                /* in-flight limit (sustained load) */
static atomic_int requestor_status = -1;
static atomic_long tokens, failures, outcomes;
static double last_token_us;
static int limit_in_flight;        /* post `slots` from the callbacks */

static void on_complete(int32_t status, void *u) {
    (void)u;
    atomic_store(&requestor_status, status);
    sem_post(&done);
}

static void on_outcome(void) {
    atomic_fetch_add(&outcomes, 1);
    if (limit_in_flight) sem_post(&slots);
    else sem_post(&done);
}

static void on_token(const char *t, const char *r, void *u) {
    (void)t; (void)r; (void)u;
    last_token_us = now_us();
    atomic_fetch_add(&tokens, 1);
    on_outcome();
}

static void on_failed(const char *r, const char *c, const char *d, void *u) {
    (void)u;
    if (atomic_fetch_add(&failures, 1) < 5) fprintf(stderr, "bench: token_request_failed(%s, %s, %s)\n", r, c, d);
    on_outcome();
}

static const char *base_url, *store_path, *statement, *device;

static ae_client *make_client(void) {
    ae_config config;
    ae_config_init(&config, AE_CONFIG_VERSION);
    config.software_statement = statement;
    config.base_url = base_url;
    config.storage_path = store_path;
    config.device_id = device;
    config.max_requests_per_second = -1;
    ae_delegate delegate;
    ae_delegate_init(&delegate, AE_DELEGATE_VERSION);
    delegate.set_requestor_complete = on_complete;
    delegate.set_token = on_token;
    delegate.token_request_failed = on_failed;
    ae_client *client = NULL;
    if (ae_client_create(&config, &delegate, &client) != AE_OK) die("ae_client_create");
    return client;
}

/* create (or reuse) + setRequestor, waiting for set_requestor_complete(1) */
static ae_client *ready_client(void) {
    ae_client *client = make_client();
    if (ae_set_requestor(client, "REF30", NULL) != AE_OK) die("ae_set_requestor");
    sem_wait(&done);
    if (atomic_load(&requestor_status) != 1) die("set_requestor_complete(0)");
    return client;
}

static void print_samples(const char *name, const double *samples, int count, int comma) {
    printf("\"%s\":[", name);
    for (int i = 0; i < count; i++) printf("%s%.1f", i ? "," : "", samples[i]);
    printf("]%s", comma ? "," : "");
}

/* --- overhead: SDK call vs bare libcurl --------------------------------------------------------- */

typedef struct {
    char *method;
    char *url;
    struct curl_slist *headers;
    char *body;
    size_t body_length;
} replay;

static void read_replay(const char *path, replay *r) {
    FILE *file = fopen(path, "r");
    if (file == NULL) { perror(path); exit(1); }
    static char line[16384];
    memset(r, 0, sizeof *r);
    if (!fgets(line, sizeof line, file)) exit(1);
    line[strcspn(line, "\r\n")] = 0;
    r->method = strdup(line);
    if (!fgets(line, sizeof line, file)) exit(1);
    line[strcspn(line, "\r\n")] = 0;
    r->url = strdup(line);
    r->headers = curl_slist_append(NULL, "Expect:");
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == 0) break;
        r->headers = curl_slist_append(r->headers, line);
    }
    size_t capacity = 65536;
    r->body = malloc(capacity);
    r->body_length = fread(r->body, 1, capacity - 1, file);
    r->body[r->body_length] = 0;
    fclose(file);
}

static size_t discard(char *data, size_t size, size_t count, void *u) {
    (void)data; (void)u;
    return size * count;
}

/* Between two timed calls: the work the SDK does after set_token (the durable write of the
 * authorization's expiry) is not charged to the next call. Back-to-back throughput is `load`'s. */
#define IDLE_MS 2

/* The replay through a curl_multi loop on its own thread, driven like CurlTransport: a request is
 * posted and the loop woken with curl_multi_wakeup; the loop adds the handle, performs and polls,
 * and posts `multi_done` when the transfer is done. */
static struct {
    CURLM *multi;
    CURL *easy;
    atomic_int posted, stop;
    sem_t done;
    long status;
    CURLcode code;
} loop;

static void *multi_loop(void *unused) {
    (void)unused;
    int running = 0;
    while (!atomic_load(&loop.stop)) {
        if (atomic_exchange(&loop.posted, 0)) curl_multi_add_handle(loop.multi, loop.easy);
        curl_multi_perform(loop.multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(loop.multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            loop.code = message->data.result;
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &loop.status);
            curl_multi_remove_handle(loop.multi, message->easy_handle);
            sem_post(&loop.done);
        }
        curl_multi_poll(loop.multi, NULL, 0, 1000, NULL);
    }
    return NULL;
}

static int overhead(int argc, char **argv) {
    if (argc < 2) return 2;
    replay r;
    read_replay(argv[0], &r);
    int calls = atoi(argv[1]);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, r.url);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, r.headers);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    if (strcmp(r.method, "POST") == 0) {
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, (long)r.body_length);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r.body);
    }

    loop.multi = curl_multi_init();
    loop.easy = curl_easy_duphandle(easy);
    sem_init(&loop.done, 0, 0);
    pthread_t loop_thread;
    if (pthread_create(&loop_thread, NULL, multi_loop, NULL) != 0) die("pthread_create");

    ae_client *client = ready_client();
    double *sdk = calloc((size_t)calls, sizeof *sdk), *bare = calloc((size_t)calls, sizeof *bare);
    double *multi = calloc((size_t)calls, sizeof *multi);
    const int warmup = 20, block = 25;
    int sdk_count = 0, bare_count = 0, multi_count = 0, bad_status = 0;
    for (int i = -warmup; i < calls; i += block) {
        for (int k = 0; k < block; k++) {           /* the SDK: call -> set_token */
            double start = now_us();
            if (ae_get_authorization(client, "LIVE", NULL) != AE_OK) die("ae_get_authorization");
            sem_wait(&done);
            if (i >= 0 && sdk_count < calls) sdk[sdk_count++] = last_token_us - start;
            pause_ms(IDLE_MS);                      /* each call starts on an idle SDK */
        }
        for (int k = 0; k < block; k++) {           /* bare libcurl: the same request */
            double start = now_us();
            CURLcode code = curl_easy_perform(easy);
            double elapsed = now_us() - start;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (code != CURLE_OK || status != 200) bad_status++;
            if (i >= 0 && bare_count < calls) bare[bare_count++] = elapsed;
            pause_ms(IDLE_MS);
        }
        for (int k = 0; k < block; k++) {           /* the same request through the multi loop */
            double start = now_us();
            atomic_store(&loop.posted, 1);
            curl_multi_wakeup(loop.multi);
            sem_wait(&loop.done);
            double elapsed = now_us() - start;
            if (loop.code != CURLE_OK || loop.status != 200) bad_status++;
            if (i >= 0 && multi_count < calls) multi[multi_count++] = elapsed;
            pause_ms(IDLE_MS);
        }
    }
    ae_client_destroy(client);
    atomic_store(&loop.stop, 1);
    curl_multi_wakeup(loop.multi);
    pthread_join(loop_thread, NULL);
    curl_easy_cleanup(loop.easy);
    curl_multi_cleanup(loop.multi);
    curl_easy_cleanup(easy);
    printf("{");
    print_samples("sdk_us", sdk, sdk_count, 1);
    print_samples("curl_us", bare, bare_count, 1);
    print_samples("multi_us", multi, multi_count, 1);
    printf("\"tokens\":%ld,\"failures\":%ld,\"curl_errors\":%d}\n", atomic_load(&tokens), atomic_load(&failures),
           bad_status);
    return atomic_load(&failures) == 0 && bad_status == 0 ? 0 : 1;
}

/* --- load: a burst from many threads, then sustained calls with RSS samples -------------------- */

static ae_client *shared;
static pthread_barrier_t start_line;
static atomic_long next_call, refused;
static long burst_calls, total_calls;
static int thread_count;

static void authorize(long index) {
    if (ae_get_authorization(shared, RESOURCES[index % RESOURCE_COUNT], NULL) != AE_OK) {
        atomic_fetch_add(&refused, 1);
        on_outcome();
    }
}

static void *burst_worker(void *raw) {
    long id = (long)raw;
    pthread_barrier_wait(&start_line);
    for (long i = id; i < burst_calls; i += thread_count) authorize(i);
    return NULL;
}

static void *sustained_worker(void *raw) {
    (void)raw;
    for (;;) {
        sem_wait(&slots);
        long index = atomic_fetch_add(&next_call, 1);
        if (index >= total_calls) { sem_post(&slots); return NULL; }
        authorize(index);
    }
}

static int load(int argc, char **argv) {
    if (argc < 5) return 2;
    thread_count = atoi(argv[0]);
    burst_calls = atol(argv[1]);
    total_calls = atol(argv[2]);
    int inflight = atoi(argv[3]), samples = atoi(argv[4]);
    if (thread_count < 1 || thread_count > 256 || samples < 1) return 2;
    pthread_t ids[256];
    shared = ready_client();
    long rss_ready = rss_kb();

    /* burst: every call issued at once (threads released together), then every outcome awaited */
    pthread_barrier_init(&start_line, NULL, (unsigned)thread_count + 1);
    for (long t = 0; t < thread_count; t++) pthread_create(&ids[t], NULL, burst_worker, (void *)t);
    double start = now_us();
    pthread_barrier_wait(&start_line);
    for (long i = 0; i < burst_calls; i++) sem_wait(&done);
    double burst_ms = (now_us() - start) / 1000;
    for (int t = 0; t < thread_count; t++) pthread_join(ids[t], NULL);
    long burst_tokens = atomic_load(&tokens), burst_errors = atomic_load(&failures) + atomic_load(&refused);

    /* sustained: at most `inflight` outstanding calls */
    atomic_store(&outcomes, 0);
    limit_in_flight = 1;
    sem_init(&slots, 0, (unsigned)inflight);
    long step = total_calls / samples, next_sample = step;
    long rss[1024], at[1024];
    int sampled = 0;
    rss[sampled] = rss_kb();
    at[sampled++] = 0;
    start = now_us();
    for (int t = 0; t < thread_count; t++) pthread_create(&ids[t], NULL, sustained_worker, NULL);
    while (atomic_load(&outcomes) < total_calls) {
        if (atomic_load(&outcomes) >= next_sample && sampled < 1024) {
            rss[sampled] = rss_kb();
            at[sampled++] = atomic_load(&outcomes);
            next_sample += step;
        }
        pause_ms(5);
    }
    double sustained_s = (now_us() - start) / 1e6;
    for (int t = 0; t < thread_count; t++) pthread_join(ids[t], NULL);
    if (at[sampled - 1] != total_calls && sampled < 1024) { rss[sampled] = rss_kb(); at[sampled++] = total_calls; }
    ae_client_destroy(shared);
    long errors = atomic_load(&failures) + atomic_load(&refused);
    printf("{\"burst\":{\"calls\":%ld,\"threads\":%d,\"tokens\":%ld,\"errors\":%ld,\"ms\":%.1f},", burst_calls,
           thread_count, burst_tokens, burst_errors, burst_ms);
    printf("\"sustained\":{\"calls\":%ld,\"inflight\":%d,\"tokens\":%ld,\"errors\":%ld,\"seconds\":%.2f,"
           "\"rss_ready_kb\":%ld,\"rss_kb\":[", total_calls, inflight, atomic_load(&tokens) - burst_tokens,
           errors - burst_errors, sustained_s, rss_ready);
    for (int i = 0; i < sampled; i++) printf("%s[%ld,%ld]", i ? "," : "", at[i], rss[i]);
    printf("]}}\n");
    return errors == 0 ? 0 : 1;
}

/* --- startup: create -> set_requestor_complete ----------------------------------------------------- */

static int startup(int argc, char **argv) {
    int repeats = argc > 0 ? atoi(argv[0]) : 0;
    long rss_before = rss_kb();
    long parts_before[PART_COUNT], parts_after[PART_COUNT];
    rss_parts_kb(parts_before);
    double start = now_us();
    ae_client *client = ready_client();
    double first_ms = (now_us() - start) / 1000;
    long rss_after = rss_kb();
    rss_parts_kb(parts_after);
    ae_client_destroy(client);
    double *again = calloc((size_t)repeats + 1, sizeof *again);
    for (int i = 0; i < repeats; i++) {
        start = now_us();
        client = ready_client();
        again[i] = (now_us() - start) / 1000;
        ae_client_destroy(client);
    }
    printf("{\"first_ms\":%.3f,\"rss_before_kb\":%ld,\"rss_after_kb\":%ld,", first_ms, rss_before, rss_after);
    print_parts("rss_parts_before_kb", parts_before);
    print_parts("rss_parts_after_kb", parts_after);
    print_samples("again_ms", again, repeats, 0);
    printf("}\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: bench overhead|load|startup <url> <store> <statement> <device> ...\n");
        return 2;
    }
    base_url = argv[2];
    store_path = argv[3];
    statement = argv[4];
    device = argv[5];
    sem_init(&done, 0, 0);
    if (strcmp(argv[1], "overhead") == 0) return overhead(argc - 6, argv + 6);
    if (strcmp(argv[1], "load") == 0) return load(argc - 6, argv + 6);
    if (strcmp(argv[1], "startup") == 0) return startup(argc - 6, argv + 6);
    fprintf(stderr, "bench: unknown mode %s\n", argv[1]);
    return 2;
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * Thread safety: THREADS threads × CALLS mixed calls on one client (plus creates and destroys of
 * short-lived clients), against the emulator. Every call must return a documented status; every
 * call that returned AE_OK must get its terminal callback; nothing may crash or deadlock.
 *
 *   stress <emulator base URL> [threads] [calls]     (default 16 × 1000)
 */
#include "accessenabler.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void pause_ms(long ms) {
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&wait, NULL);
}

static ae_client *client;
static atomic_long accepted, refused_unexpected, callbacks, tokens, metadata, auth_status, preauth;
static atomic_int ready;
static const char *base_url;

static void on_complete(int32_t status, void *u) { (void)u; atomic_store(&ready, status == 1 ? 1 : -1); }
static void on_auth(int32_t s, const char *c, void *u) { (void)s; (void)c; (void)u; atomic_fetch_add(&auth_status, 1); atomic_fetch_add(&callbacks, 1); }
static void on_token(const char *t, const char *r, void *u) { (void)t; (void)r; (void)u; atomic_fetch_add(&tokens, 1); atomic_fetch_add(&callbacks, 1); }
static void on_failed(const char *r, const char *c, const char *d, void *u) { (void)r; (void)c; (void)d; (void)u; atomic_fetch_add(&tokens, 1); atomic_fetch_add(&callbacks, 1); }
static void on_meta(const char *m, int32_t e, int32_t k, const char *a, void *u) { (void)m; (void)e; (void)k; (void)a; (void)u; atomic_fetch_add(&metadata, 1); atomic_fetch_add(&callbacks, 1); }
static void on_preauth(const char *r, void *u) { (void)r; (void)u; atomic_fetch_add(&preauth, 1); atomic_fetch_add(&callbacks, 1); }
static void on_selected(const char *m, void *u) { (void)m; (void)u; atomic_fetch_add(&callbacks, 1); }

static ae_delegate make_delegate(void) {
    ae_delegate d;
    ae_delegate_init(&d, AE_DELEGATE_VERSION);
    d.set_requestor_complete = on_complete;
    d.set_authentication_status = on_auth;
    d.set_token = on_token;
    d.token_request_failed = on_failed;
    d.set_metadata_status = on_meta;
    d.preauthorized_resources = on_preauth;
    d.selected_provider = on_selected;
    return d;
}

static ae_config make_config(const char *device) {
    ae_config c;
    ae_config_init(&c, AE_CONFIG_VERSION);
    c.software_statement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6InN0cmVzcyJ9.c2ln";
    c.base_url = base_url;
    c.device_id = device;
    c.max_requests_per_second = -1;
    return c;
}

static void expect_ok(int32_t status) {
    if (status == AE_OK) atomic_fetch_add(&accepted, 1);
    else atomic_fetch_add(&refused_unexpected, 1);
}

typedef struct { int id; int calls; } job;

static void *worker(void *raw) {
    job *j = raw;
    char resource[32];
    for (int i = 0; i < j->calls; i++) {
        switch (i % 8) {
        case 0: expect_ok(ae_check_authentication(client)); break;
        case 1: expect_ok(ae_get_metadata(client, "{\"opCode\":2}")); break;
        case 2: expect_ok(ae_get_metadata(client, "{\"opCode\":3,\"user_metadata_name\":\"zip\"}")); break;
        case 3: expect_ok(ae_get_selected_provider(client)); break;
        case 4:
            snprintf(resource, sizeof resource, "R-%d-%d", j->id, i);
            if (i % 40 == 4) expect_ok(ae_check_authorization(client, resource, NULL));
            else expect_ok(ae_check_authentication(client));
            break;
        case 5:
            if (i % 80 == 5) expect_ok(ae_check_preauthorized_resources(client, "[\"LIVE\",\"NEWS\"]", 1));
            else expect_ok(ae_get_metadata(client, "{\"opCode\":0}"));
            break;
        case 6:
            /* refused calls must stay refused and harmless */
            if (ae_get_metadata(client, "{\"opCode\":9}") != AE_E_INVALID_ARG) atomic_fetch_add(&refused_unexpected, 1);
            break;
        default:
            if (i % 200 == 7) { /* a short-lived client created and destroyed meanwhile */
                char device[32];
                snprintf(device, sizeof device, "stress-%d-%d", j->id, i);
                ae_config c = make_config(device);
                ae_delegate d;
                ae_delegate_init(&d, AE_DELEGATE_VERSION);
                ae_client *other = NULL;
                if (ae_client_create(&c, &d, &other) != AE_OK) atomic_fetch_add(&refused_unexpected, 1);
                ae_set_requestor(other, "REF30", NULL);
                ae_client_destroy(other);
                if (ae_check_authentication(other) != AE_E_INVALID_HANDLE) atomic_fetch_add(&refused_unexpected, 1);
            } else {
                expect_ok(ae_check_authentication(client));
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: stress <base url> [threads] [calls]\n"); return 2; }
    base_url = argv[1];
    int threads = argc > 2 ? atoi(argv[2]) : 16, calls = argc > 3 ? atoi(argv[3]) : 1000;
    ae_config config = make_config("stress-device");
    ae_delegate delegate = make_delegate();
    if (ae_client_create(&config, &delegate, &client) != AE_OK) return 1;
    ae_set_requestor(client, "REF30", NULL);
    for (int i = 0; i < 1000 && atomic_load(&ready) == 0; i++) pause_ms(10);
    if (atomic_load(&ready) != 1) { fprintf(stderr, "setRequestor failed\n"); return 1; }

    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_t ids[256];
    job jobs[256];
    if (threads > 256) threads = 256;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){t, calls};
        pthread_create(&ids[t], NULL, worker, &jobs[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;

    /* every accepted call ends with one callback (tracking data is not counted) */
    for (int i = 0; i < 3000 && atomic_load(&callbacks) < atomic_load(&accepted); i++) pause_ms(10);
    ae_client_destroy(client);
    /* Destroy returns once no callback can run; the SDK's threads free a destroyed client's last
       objects a moment later (a request being cancelled lets go of them when libcurl is done with
       it). LeakSanitizer checks at exit: give the clients destroyed last that moment, so that it
       reports objects nothing frees, not objects being freed. (Leaks proper: sanitizers.sh's
       valgrind step, growth over N iterations.) */
    pause_ms(500);
    long a = atomic_load(&accepted), c = atomic_load(&callbacks), r = atomic_load(&refused_unexpected);
    printf("threads %d × calls %d: %ld accepted in %.2f s (%.0f calls/s), %ld callbacks, %ld unexpected statuses\n",
           threads, calls, a, seconds, a / seconds, c, r);
    printf("  authentication %ld, metadata %ld, token outcomes %ld, preauthorized %ld\n", atomic_load(&auth_status),
           atomic_load(&metadata), atomic_load(&tokens), atomic_load(&preauth));
    return (r == 0 && c == a) ? 0 : 1;
}

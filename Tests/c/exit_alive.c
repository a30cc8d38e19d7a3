/* SPDX-License-Identifier: Apache-2.0
 *
 * Process exit while the SDK is busy (issue 28, item 4): the process must end with status 0 and no
 * signal whether it returns from main() or calls exit(), with clients alive and requests in flight,
 * right after destroying clients whose last requests failed (on TLS, given a front with a bad
 * certificate), from inside a callback, or from an event loop. The pytest side
 * (Tests/python/test_exit.py) runs it many times per mode.
 *
 *   exit_alive <mode> <curl|host> <base url> <seed> [ca file]
 *
 * mode:
 *   alive        three clients keep calling (each setRequestor's end starts the next one); main ends
 *                after a delay while requests are in flight
 *   destroyed    three clients; once each got its set_requestor_complete (0 behind a bad front: the
 *                requests failed on TLS), main destroys them all and ends at once
 *   callback     as alive, but the process ends with exit(0) called from inside a callback, on the
 *                callback thread, while main sleeps
 *   event-loop   as alive, in event-loop mode: main polls the clients' descriptors and dispatches;
 *                it ends after a delay, by returning (even seeds) or by exit(0) from inside a
 *                dispatched callback (odd seeds)
 *
 * curl: the SDK's libcurl. host: a host transport (ae_config.transport) whose `send` hands each
 * request to a thread of its own that runs it with libcurl (system CAs) and replies; at exit those
 * threads are mid-request. `ca file`: CA certificates to trust besides the system's (ae_config.ca_file,
 * or the host's CURLOPT_CAINFO), for a front with a good certificate.
 *
 * `seed` picks the delay (0-249 ms) and, for alive and destroyed, the ending: return from main
 * (even) or exit(0) (odd). Exit status 0 whenever the program got to its ending; 3 when no
 * callback came at all (a broken setup, not the defect under test).
 */
#define _POSIX_C_SOURCE 200809L
#include "accessenabler.h"

#include <curl/curl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLIENTS 3

enum mode { ALIVE, DESTROYED, CALLBACK, EVENT_LOOP };

static enum mode mode;
static int host_transport;
static long seed;
static const char *base_url;
static const char *ca_file;
static ae_client *clients[CLIENTS];
static atomic_int completed[CLIENTS];  /* set_requestor_complete seen (1 + status) */
static atomic_long callbacks;
static atomic_int exiting;
static atomic_int keep_calling = 1;
static long exit_after;                /* > 0: the callback that calls exit(0) (callback, event-loop modes) */

static void pause_ms(long ms) {
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&wait, NULL);
}

static void end_here(void) {
    if (atomic_exchange(&exiting, 1) == 0) {
        printf("exit(0) from a callback after %ld callbacks\n", atomic_load(&callbacks));
        fflush(stdout);
        exit(0);
    }
}

/* Every callback: count it, maybe end the process (callback / event-loop modes). Each
   set_requestor_complete starts the client's next setRequestor (its requests: the configuration,
   and the registration and token while they fail) and a getAuthorization, so that requests stay in
   flight until the end. */
static void next_call(int index, int requestor_complete) {
    long count = atomic_fetch_add(&callbacks, 1) + 1;
    if (exit_after > 0 && count >= exit_after) end_here();
    if (!requestor_complete || !atomic_load(&keep_calling) || atomic_load(&exiting)) return;
    ae_set_requestor(clients[index], "REF30", NULL);
    ae_get_authorization(clients[index], "LIVE", NULL);
}

static int index_of(void *user_data) { return (int)(intptr_t)user_data; }

static void on_complete(int32_t status, void *u) {
    atomic_store(&completed[index_of(u)], 1 + (int)status);
    next_call(index_of(u), 1);
}
static void on_auth(int32_t s, const char *c, void *u) { (void)s; (void)c; next_call(index_of(u), 0); }
static void on_token(const char *t, const char *r, void *u) { (void)t; (void)r; next_call(index_of(u), 0); }
static void on_failed(const char *r, const char *c, const char *d, void *u) {
    (void)r; (void)c; (void)d;
    next_call(index_of(u), 0);
}
static void on_meta(const char *m, int32_t e, int32_t k, const char *a, void *u) {
    (void)m; (void)e; (void)k; (void)a;
    next_call(index_of(u), 0);
}

/* --- a host transport: one thread per request, libcurl easy, system CAs --------------------- */

typedef struct {
    char *method, *url, **headers;
    uint8_t *body;
    size_t body_length;
    long timeout_ms;
    ae_http_request *request;
    char *response;
    size_t response_length;
} exchange;

static size_t collect(char *data, size_t size, size_t count, void *raw) {
    exchange *x = raw;
    size_t n = size * count;
    char *grown = realloc(x->response, x->response_length + n);
    if (grown == NULL) return 0;
    memcpy(grown + x->response_length, data, n);
    x->response = grown;
    x->response_length += n;
    return n;
}

static void *run_exchange(void *raw) {
    exchange *x = raw;
    CURL *easy = curl_easy_init();
    struct curl_slist *list = NULL;
    for (size_t i = 0; x->headers[i] != NULL; i++) list = curl_slist_append(list, x->headers[i]);
    curl_easy_setopt(easy, CURLOPT_URL, x->url);
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, x->method);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, x->timeout_ms);
    if (ca_file != NULL) curl_easy_setopt(easy, CURLOPT_CAINFO, ca_file);
    if (x->body_length > 0) {
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, (char *)x->body);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, (long)x->body_length);
    }
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, x);
    CURLcode result = curl_easy_perform(easy);
    if (result == CURLE_OK) {
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        static const char *const content_type[] = {"Content-Type: application/json", NULL};
        ae_http_request_reply(x->request, (int32_t)status, content_type, (const uint8_t *)x->response,
                              x->response_length);
    } else {
        int32_t code = result == CURLE_PEER_FAILED_VERIFICATION || result == CURLE_SSL_CONNECT_ERROR
                           ? AE_HTTP_E_TLS
                           : result == CURLE_COULDNT_CONNECT ? AE_HTTP_E_CANNOT_CONNECT : AE_HTTP_E_FAILED;
        ae_http_request_reply_error(x->request, code, curl_easy_strerror(result));
    }
    curl_slist_free_all(list);
    curl_easy_cleanup(easy);
    for (size_t i = 0; x->headers[i] != NULL; i++) free(x->headers[i]);
    free(x->headers);
    free(x->method);
    free(x->url);
    free(x->body);
    free(x->response);
    free(x);
    return NULL;
}

static void host_send(const char *method, const char *url, const char *const *headers, const uint8_t *body,
                      size_t body_length, int32_t timeout_ms, ae_http_request *request, void *user_data) {
    (void)user_data;
    exchange *x = calloc(1, sizeof *x);
    size_t count = 0;
    while (headers[count] != NULL) count++;
    x->headers = calloc(count + 1, sizeof *x->headers);
    for (size_t i = 0; i < count; i++) x->headers[i] = strdup(headers[i]);
    x->method = strdup(method);
    x->url = strdup(url);
    x->body = malloc(body_length + 1);
    if (body_length > 0) memcpy(x->body, body, body_length);
    x->body_length = body_length;
    x->timeout_ms = timeout_ms;
    x->request = request;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    if (pthread_create(&thread, &attributes, run_exchange, x) != 0)
        ae_http_request_reply_error(request, AE_HTTP_E_FAILED, "no thread");  /* x leaks: never in practice */
    pthread_attr_destroy(&attributes);
}

/* ------------------------------------------------------------------------------------------- */

static int create_clients(void) {
    static ae_http_transport transport;
    ae_http_transport_init(&transport, AE_HTTP_TRANSPORT_VERSION);
    transport.send = host_send;
    for (int i = 0; i < CLIENTS; i++) {
        char device[48];
        snprintf(device, sizeof device, "exit-%ld-%d", seed, i);
        ae_config config;
        ae_config_init(&config, AE_CONFIG_VERSION);
        config.software_statement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImV4aXQifQ.c2ln";
        config.base_url = base_url;
        config.device_id = device;
        config.max_requests_per_second = -1;
        config.connect_timeout_ms = 2000;
        config.request_timeout_ms = 4000;
        if (host_transport) config.transport = &transport;
        else config.ca_file = ca_file;
        if (mode == EVENT_LOOP) config.callback_mode = AE_CALLBACKS_EVENT_LOOP;
        ae_delegate delegate;
        ae_delegate_init(&delegate, AE_DELEGATE_VERSION);
        delegate.user_data = (void *)(intptr_t)i;
        delegate.set_requestor_complete = on_complete;
        delegate.set_authentication_status = on_auth;
        delegate.set_token = on_token;
        delegate.token_request_failed = on_failed;
        delegate.set_metadata_status = on_meta;
        if (ae_client_create(&config, &delegate, &clients[i]) != AE_OK) {
            fprintf(stderr, "create failed\n");
            return 0;
        }
        ae_set_requestor(clients[i], "REF30", NULL);
    }
    return 1;
}

static int all_completed(void) {
    for (int i = 0; i < CLIENTS; i++)
        if (atomic_load(&completed[i]) == 0) return 0;
    return 1;
}

/* alive and destroyed: return from main (even seeds) or exit(0) (odd seeds). */
static int ending(void) {
    printf("%s with %d clients alive after %ld callbacks\n", seed % 2 == 1 ? "exit(0)" : "return from main",
           mode == DESTROYED ? 0 : CLIENTS, atomic_load(&callbacks));
    fflush(stdout);
    if (seed % 2 == 1) exit(0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: exit_alive <alive|destroyed|callback|event-loop> <curl|host> <base url> <seed> [ca file]\n");
        return 2;
    }
    if (strcmp(argv[1], "alive") == 0) mode = ALIVE;
    else if (strcmp(argv[1], "destroyed") == 0) mode = DESTROYED;
    else if (strcmp(argv[1], "callback") == 0) mode = CALLBACK;
    else if (strcmp(argv[1], "event-loop") == 0) mode = EVENT_LOOP;
    else { fprintf(stderr, "unknown mode %s\n", argv[1]); return 2; }
    host_transport = strcmp(argv[2], "host") == 0;
    base_url = argv[3];
    seed = atol(argv[4]);
    ca_file = argc == 6 ? argv[5] : NULL;
    long delay_ms = (seed * 7919) % 250;
    exit_after = mode == CALLBACK || (mode == EVENT_LOOP && seed % 2 == 1) ? 1 + seed % 7 : 0;
    if (host_transport) curl_global_init(CURL_GLOBAL_DEFAULT);  /* a host that uses libcurl itself */
    if (mode == DESTROYED) atomic_store(&keep_calling, 0);
    if (!create_clients()) return 1;

    switch (mode) {
    case ALIVE:
        pause_ms(delay_ms);
        if (atomic_load(&callbacks) == 0) pause_ms(200);
        return ending();
    case DESTROYED:
        for (int i = 0; i < 1000 && !all_completed(); i++) pause_ms(10);
        if (!all_completed()) { fprintf(stderr, "no set_requestor_complete\n"); return 3; }
        for (int i = 0; i < CLIENTS; i++) ae_client_destroy(clients[i]);
        printf("destroyed; set_requestor_complete %d %d %d\n", atomic_load(&completed[0]) - 1,
               atomic_load(&completed[1]) - 1, atomic_load(&completed[2]) - 1);
        return ending();
    case CALLBACK:
        pause_ms(10000);
        fprintf(stderr, "no exit from a callback in 10 s (%ld callbacks)\n", atomic_load(&callbacks));
        return 3;
    case EVENT_LOOP: {
        struct pollfd watched[CLIENTS];
        for (int i = 0; i < CLIENTS; i++) watched[i] = (struct pollfd){ae_client_event_fd(clients[i]), POLLIN, 0};
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
            if (seed % 2 == 0 && elapsed >= delay_ms && atomic_load(&callbacks) > 0) break;
            if (elapsed > 10000) { fprintf(stderr, "no ending in 10 s\n"); return 3; }
            if (poll(watched, CLIENTS, 50) > 0)
                for (int i = 0; i < CLIENTS; i++)
                    if (watched[i].revents & POLLIN) ae_client_dispatch(clients[i], NULL);
        }
        printf("return from the event loop with %d clients alive after %ld callbacks\n", CLIENTS,
               atomic_load(&callbacks));
        return 0;
    }
    }
    return 2;
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * Lifetime and resource bounds of a client, as a firmware host sees them (issue 28): the host's
 * functions after ae_client_destroy(), the transport's cancel at destroy, preauthorize completions,
 * the bound of ae_client_dispatch() and of the calls queued behind setRequestor.
 *
 *   lifetime <emulator base URL> <mode>
 *
 * Modes (each exits 0 when the SDK kept its promise, 1 otherwise, printing what it saw):
 *   log-destroy   a log sink destroys the client on "registered the application" (allowed by
 *                 docs/THREADING.md): no `send` of the host transport may follow (item 1)
 *   race          200 clients destroyed 0–3 ms after ae_set_requestor, the host transport
 *                 answering from its own thread: no `send` or `cancel` after destroy returned (item 1)
 *   cancel        destroy while the DCR request waits in the host: `cancel` for it, once, before
 *                 destroy returns, and nothing after (item 2)
 *   preauthorize  100 ae_preauthorize() calls queued behind a setRequestor, then destroy: every
 *                 completion exactly once, before destroy returns, with "client_destroyed" (item 5)
 *   dispatch      event-loop mode, 5000 callbacks queued: one ae_client_dispatch() runs at most
 *                 AE_DISPATCH_MAX_CALLBACKS and the descriptor stays readable until all ran (item 6)
 *   queue         AE_MAX_QUEUED_CALLS calls queued behind a setRequestor that cannot finish: the
 *                 next is AE_E_QUEUE_FULL, named by ae_last_error_message() (item 7)
 *
 * The host transport forwards each request to the emulator with libcurl on a worker thread of its
 * own, as a firmware HTTP stack would (the `cancel` mode holds them instead).
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

static const char *base_url;
static int failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static void pause_ms(long ms) {
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&wait, NULL);
}

/* ---- a host transport: libcurl on a worker thread --------------------------------------------- */

typedef struct exchange {
    char *method, *url;
    struct curl_slist *headers;
    uint8_t *body;
    size_t body_length;
    ae_http_request *request;
    struct exchange *next;
} exchange;

typedef struct host {
    atomic_int destroyed;      /* set once ae_client_destroy() returned */
    atomic_int in_destroy;     /* set while ae_client_destroy() runs */
    atomic_long sends, late_sends, cancels, late_cancels, cancels_in_destroy;
    atomic_int registered;     /* the DCR register request was sent */
    int hold;                  /* do not answer: keep the requests (the `cancel` mode) */
    ae_http_request *held;     /* the first request held */
    ae_client *client;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    exchange *queue;
    int stop;
    pthread_t worker;
} host;

static size_t collect(char *data, size_t size, size_t count, void *user_data) {
    size_t n = size * count;
    char **buffer = user_data;
    size_t old = *buffer ? strlen(*buffer) : 0;
    char *grown = realloc(*buffer, old + n + 1);
    if (!grown) return 0;
    memcpy(grown + old, data, n);
    grown[old + n] = '\0';
    *buffer = grown;
    return n;
}

static void perform(exchange *e) {
    CURL *curl = curl_easy_init();
    char *body = NULL;
    long status = 0;
    curl_easy_setopt(curl, CURLOPT_URL, e->url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, e->method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, e->headers);
    if (e->body_length > 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, e->body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)e->body_length);
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
    CURLcode code = curl_easy_perform(curl);
    if (code == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        const char *headers[] = {"Content-Type: application/json", NULL};
        /* AE_E_INVALID_HANDLE after destroy or a cancel: expected, and harmless */
        ae_http_request_reply(e->request, (int32_t)status, headers, (const uint8_t *)body, body ? strlen(body) : 0);
    } else {
        ae_http_request_reply_error(e->request, AE_HTTP_E_FAILED, curl_easy_strerror(code));
    }
    free(body);
    curl_easy_cleanup(curl);
}

static void *work(void *raw) {
    host *h = raw;
    for (;;) {
        pthread_mutex_lock(&h->mutex);
        while (!h->stop && h->queue == NULL) pthread_cond_wait(&h->wake, &h->mutex);
        exchange *e = h->queue;
        if (e) h->queue = e->next;
        int stop = h->stop && e == NULL;
        pthread_mutex_unlock(&h->mutex);
        if (stop) return NULL;
        perform(e);
        free(e->method);
        free(e->url);
        free(e->body);
        curl_slist_free_all(e->headers);
        free(e);
    }
}

static void on_send(const char *method, const char *url, const char *const *headers, const uint8_t *body,
                    size_t body_length, int32_t timeout_ms, ae_http_request *request, void *user_data) {
    (void)timeout_ms;
    host *h = user_data;
    atomic_fetch_add(&h->sends, 1);
    if (atomic_load(&h->destroyed)) {
        atomic_fetch_add(&h->late_sends, 1);
        printf("send after destroy returned: %s %s\n", method, url);
    }
    if (strstr(url, "/o/client/register")) atomic_store(&h->registered, 1);
    if (h->hold) {
        if (h->held == NULL) h->held = request;
        return;
    }
    exchange *e = calloc(1, sizeof *e);
    e->method = strdup(method);
    e->url = strdup(url);
    for (size_t i = 0; headers && headers[i]; i++) e->headers = curl_slist_append(e->headers, headers[i]);
    if (body_length > 0) {
        e->body = malloc(body_length);
        memcpy(e->body, body, body_length);
        e->body_length = body_length;
    }
    e->request = request;
    pthread_mutex_lock(&h->mutex);
    exchange **tail = &h->queue;
    while (*tail) tail = &(*tail)->next;
    *tail = e;
    pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->mutex);
}

static void on_cancel(ae_http_request *request, void *user_data) {
    host *h = user_data;
    atomic_fetch_add(&h->cancels, 1);
    if (atomic_load(&h->in_destroy)) atomic_fetch_add(&h->cancels_in_destroy, 1);
    if (atomic_load(&h->destroyed)) {
        atomic_fetch_add(&h->late_cancels, 1);
        printf("cancel after destroy returned\n");
    }
    (void)request;
}

static host *host_new(int hold) {
    host *h = calloc(1, sizeof *h);
    h->hold = hold;
    pthread_mutex_init(&h->mutex, NULL);
    pthread_cond_init(&h->wake, NULL);
    pthread_create(&h->worker, NULL, work, h);
    return h;
}

/* Stops the worker once it has answered what it holds (replies after destroy are refused). */
static void host_free(host *h) {
    pthread_mutex_lock(&h->mutex);
    h->stop = 1;
    pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->mutex);
    pthread_join(h->worker, NULL);
    pthread_mutex_destroy(&h->mutex);
    pthread_cond_destroy(&h->wake);
    free(h);
}

static void destroy(host *h) {
    atomic_store(&h->in_destroy, 1);
    ae_client_destroy(h->client);
    atomic_store(&h->in_destroy, 0);
    atomic_store(&h->destroyed, 1);
}

static ae_config make_config(host *h, ae_http_transport *transport, const char *device) {
    ae_config c;
    ae_config_init(&c, AE_CONFIG_VERSION);
    c.software_statement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImxpZmV0aW1lIn0.c2ln";
    c.base_url = base_url;
    c.device_id = device;
    c.max_requests_per_second = -1;
    if (h) {
        ae_http_transport_init(transport, AE_HTTP_TRANSPORT_VERSION);
        transport->send = on_send;
        transport->cancel = on_cancel;
        transport->user_data = h;
        c.transport = transport;
    }
    return c;
}

/* ---- item 1: a log sink that destroys its client --------------------------------------------- */

static void destroying_sink(int32_t level, const char *message, void *user_data) {
    (void)level;
    host *h = user_data;
    if (strstr(message, "registered the application") && !atomic_load(&h->destroyed)) destroy(h);
}

static int log_destroy(void) {
    host *h = host_new(0);
    ae_http_transport transport;
    ae_config config = make_config(h, &transport, "lifetime-log-destroy");
    config.log = destroying_sink;
    config.log_user_data = h;
    config.log_level = AE_LOG_INFO;
    ae_delegate delegate = AE_DELEGATE_INIT;
    EXPECT(ae_client_create(&config, &delegate, &h->client) == AE_OK, "create");
    EXPECT(ae_set_requestor(h->client, "REF30", NULL) == AE_OK, "set_requestor");
    for (int i = 0; i < 500 && !atomic_load(&h->destroyed); i++) pause_ms(10);
    EXPECT(atomic_load(&h->destroyed), "the sink never saw \"registered the application\"");
    pause_ms(500); /* what the SDK would still send comes now */
    printf("log-destroy: %ld sends, %ld after destroy returned\n", atomic_load(&h->sends), atomic_load(&h->late_sends));
    EXPECT(atomic_load(&h->late_sends) == 0, "%ld sends after destroy", atomic_load(&h->late_sends));
    EXPECT(atomic_load(&h->late_cancels) == 0, "%ld cancels after destroy", atomic_load(&h->late_cancels));
    host_free(h);
    return failures == 0;
}

/* ---- item 1: destroy racing the first requests ----------------------------------------------- */

static int race(void) {
    long sends = 0, late_sends = 0, late_cancels = 0;
    srand(28);
    for (int i = 0; i < 200; i++) {
        host *h = host_new(0);
        ae_http_transport transport;
        ae_config config = make_config(h, &transport, "lifetime-race");
        ae_delegate delegate = AE_DELEGATE_INIT;
        if (ae_client_create(&config, &delegate, &h->client) != AE_OK) { failures++; break; }
        ae_set_requestor(h->client, "REF30", NULL);
        struct timespec wait = {0, (rand() % 3000) * 1000L};
        nanosleep(&wait, NULL);
        destroy(h);
        pause_ms(20); /* a send after destroy would come now */
        sends += atomic_load(&h->sends);
        late_sends += atomic_load(&h->late_sends);
        late_cancels += atomic_load(&h->late_cancels);
        host_free(h);
    }
    printf("race: 200 clients, %ld sends, %ld after destroy returned, %ld cancels after it\n", sends, late_sends,
           late_cancels);
    EXPECT(late_sends == 0, "%ld sends after destroy", late_sends);
    EXPECT(late_cancels == 0, "%ld cancels after destroy", late_cancels);
    EXPECT(sends > 0, "no request was ever sent: the race was not run");
    return failures == 0;
}

/* ---- item 2: cancel of the exchange in flight at destroy --------------------------------------- */

static int cancel(void) {
    host *h = host_new(1);
    ae_http_transport transport;
    ae_config config = make_config(h, &transport, "lifetime-cancel");
    ae_delegate delegate = AE_DELEGATE_INIT;
    EXPECT(ae_client_create(&config, &delegate, &h->client) == AE_OK, "create");
    EXPECT(ae_set_requestor(h->client, "REF30", NULL) == AE_OK, "set_requestor");
    for (int i = 0; i < 500 && !atomic_load(&h->registered); i++) pause_ms(10);
    EXPECT(atomic_load(&h->registered), "the register request never came");
    destroy(h);
    pause_ms(300);
    printf("cancel: %ld sends, %ld cancels (%ld inside destroy, %ld after it)\n", atomic_load(&h->sends),
           atomic_load(&h->cancels), atomic_load(&h->cancels_in_destroy), atomic_load(&h->late_cancels));
    EXPECT(atomic_load(&h->cancels) == 1, "cancels: %ld (the register request, once)", atomic_load(&h->cancels));
    EXPECT(atomic_load(&h->cancels_in_destroy) == 1, "not called inside destroy");
    EXPECT(atomic_load(&h->late_sends) == 0 && atomic_load(&h->late_cancels) == 0, "host called after destroy");
    EXPECT(h->held && ae_http_request_reply(h->held, 200, NULL, NULL, 0) == AE_E_INVALID_HANDLE,
           "a reply to the cancelled request must be refused");
    host_free(h);
    return failures == 0;
}

/* ---- item 5: preauthorize completions at destroy --------------------------------------------- */

static atomic_int completions[100];
static atomic_int completions_after_destroy, destroyed_status;
static atomic_int preauthorize_destroyed;

static void on_preauthorized(const char *response_json, void *user_data) {
    atomic_int *slot = user_data;
    atomic_fetch_add(slot, 1);
    if (atomic_load(&preauthorize_destroyed)) atomic_fetch_add(&completions_after_destroy, 1);
    if (strstr(response_json, "\"client_destroyed\"")) atomic_fetch_add(&destroyed_status, 1);
}

static int preauthorize(void) {
    host *h = host_new(1); /* setRequestor never completes: every call queues behind it */
    ae_http_transport transport;
    ae_config config = make_config(h, &transport, "lifetime-preauthorize");
    ae_delegate delegate = AE_DELEGATE_INIT;
    EXPECT(ae_client_create(&config, &delegate, &h->client) == AE_OK, "create");
    EXPECT(ae_set_requestor(h->client, "REF30", NULL) == AE_OK, "set_requestor");
    for (int i = 0; i < 100; i++) {
        EXPECT(ae_preauthorize(h->client, "{\"resources\":[\"LIVE\",\"NEWS\"]}", on_preauthorized, &completions[i]) == AE_OK,
               "preauthorize %d", i);
    }
    destroy(h);
    atomic_store(&preauthorize_destroyed, 1);
    pause_ms(300);
    int once = 0;
    for (int i = 0; i < 100; i++) once += atomic_load(&completions[i]) == 1;
    printf("preauthorize: %d of 100 completions called exactly once, %d with client_destroyed, %d after destroy\n", once,
           atomic_load(&destroyed_status), atomic_load(&completions_after_destroy));
    EXPECT(once == 100, "only %d of 100 completions were called exactly once", once);
    EXPECT(atomic_load(&destroyed_status) == 100, "client_destroyed: %d", atomic_load(&destroyed_status));
    EXPECT(atomic_load(&completions_after_destroy) == 0, "completions after destroy returned");
    host_free(h);
    return failures == 0;
}

/* ---- item 6: ae_client_dispatch() is bounded --------------------------------------------------- */

static atomic_long selected;
static atomic_int ready;
static void on_selected(const char *mvpd_json, void *user_data) { (void)mvpd_json; (void)user_data; atomic_fetch_add(&selected, 1); }
static void on_ready(int32_t status, void *user_data) { (void)user_data; atomic_store(&ready, status == 1 ? 1 : -1); }

static int readable(int fd) {
    struct pollfd watched = {fd, POLLIN, 0};
    return poll(&watched, 1, 0) == 1 && (watched.revents & POLLIN);
}

static int dispatch(long total) {
    ae_config config = make_config(NULL, NULL, "lifetime-dispatch");
    config.callback_mode = AE_CALLBACKS_EVENT_LOOP;
    ae_delegate delegate = AE_DELEGATE_INIT;
    delegate.set_requestor_complete = on_ready;
    delegate.selected_provider = on_selected;
    ae_client *client = NULL;
    EXPECT(ae_client_create(&config, &delegate, &client) == AE_OK, "create");
    int fd = ae_client_event_fd(client);
    EXPECT(ae_set_requestor(client, "REF30", NULL) == AE_OK, "set_requestor");
    for (int i = 0; i < 1000 && atomic_load(&ready) == 0; i++) {
        struct pollfd watched = {fd, POLLIN, 0};
        poll(&watched, 1, 10);
        ae_client_dispatch(client, NULL);
    }
    EXPECT(atomic_load(&ready) == 1, "setRequestor did not complete");
    for (long i = 0; i < total; i++) {
        if (ae_get_selected_provider(client) != AE_OK) { failures++; break; }
    }
    /* wait until the engine has queued every callback: nothing is dispatched meanwhile */
    pause_ms(total / 100 + 500);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int32_t count = -1;
    EXPECT(ae_client_dispatch(client, &count) == AE_OK, "dispatch");
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("dispatch: the first of %ld queued callbacks ran %d in %.1f ms\n", total, (int)count,
           ((double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6));
    EXPECT(count == AE_DISPATCH_MAX_CALLBACKS, "the first dispatch ran %d callbacks, not at most %d", (int)count,
           AE_DISPATCH_MAX_CALLBACKS);
    EXPECT(readable(fd), "the descriptor is not readable while callbacks wait");
    long ran = count, rounds = 1;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (readable(fd) && rounds < total) {
        EXPECT(ae_client_dispatch(client, &count) == AE_OK, "dispatch");
        EXPECT(count <= AE_DISPATCH_MAX_CALLBACKS, "a dispatch ran %d", (int)count);
        ran += count;
        rounds++;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double ms = (double)(end.tv_sec - start.tv_sec) * 1e3 + (double)(end.tv_nsec - start.tv_nsec) / 1e6;
    printf("dispatch: %ld callbacks in %ld dispatches (%.1f ms for all but the first: %.2f us each)\n", ran, rounds, ms,
           ms * 1e3 / (double)(ran > count ? ran - count : 1));
    EXPECT(ran == total && atomic_load(&selected) == total, "ran %ld, selected_provider %ld of %ld", ran,
           atomic_load(&selected), total);
    ae_client_destroy(client);
    return failures == 0;
}

/* ---- item 7: the calls queued behind setRequestor are bounded ---------------------------------- */

static int queue(void) {
    host *h = host_new(1); /* setRequestor never completes */
    ae_http_transport transport;
    ae_config config = make_config(h, &transport, "lifetime-queue");
    ae_delegate delegate = AE_DELEGATE_INIT;
    EXPECT(ae_client_create(&config, &delegate, &h->client) == AE_OK, "create");
    EXPECT(ae_set_requestor(h->client, "REF30", NULL) == AE_OK, "set_requestor");
    int accepted = 0;
    for (int i = 0; i < AE_MAX_QUEUED_CALLS; i++) accepted += ae_check_authentication(h->client) == AE_OK;
    EXPECT(accepted == AE_MAX_QUEUED_CALLS, "accepted %d of %d", accepted, AE_MAX_QUEUED_CALLS);
    int32_t status = ae_get_authorization(h->client, "LIVE", NULL);
    char *message = ae_last_error_message();
    printf("queue: %d calls queued, the next one: %d (%s): %s\n", accepted, (int)status, ae_status_string(status),
           message ? message : "(no message)");
    EXPECT(status == AE_E_QUEUE_FULL, "status %d", (int)status);
    EXPECT(message && strstr(message, "setRequestor"), "the message does not say why");
    ae_string_free(message);
    EXPECT(ae_set_requestor(h->client, "REF30", NULL) == AE_E_QUEUE_FULL, "setRequestor queues like the others");
    destroy(h);
    host_free(h);
    return failures == 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: lifetime <base url> log-destroy|race|cancel|preauthorize|dispatch|queue\n");
        return 2;
    }
    base_url = argv[1];
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const char *mode = argv[2];
    int ok;
    if (strcmp(mode, "log-destroy") == 0) ok = log_destroy();
    else if (strcmp(mode, "race") == 0) ok = race();
    else if (strcmp(mode, "cancel") == 0) ok = cancel();
    else if (strcmp(mode, "preauthorize") == 0) ok = preauthorize();
    else if (strcmp(mode, "dispatch") == 0) ok = dispatch(5000);
    else if (strcmp(mode, "queue") == 0) ok = queue();
    else { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    printf("%s: %s\n", mode, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

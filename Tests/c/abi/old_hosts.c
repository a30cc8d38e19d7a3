/* SPDX-License-Identifier: Apache-2.0
 *
 * old_hosts <emulator base URL>: hosts compiled against every earlier layout of the public structs
 * (layouts.h, frozen) run against today's library. Built with -fsanitize=address (check-old-hosts.sh,
 * and scripts/sanitizers.sh against an ASan build of the library), each struct is a heap block of
 * exactly its old size, so a byte read or written past it is a report. A second copy of each is
 * followed by guard bytes: init must leave them as they were, and create must succeed although
 * they hold garbage (0xFF: a callback_mode of -1, wild pointers), which proves that nothing past
 * the struct's version was read.
 *
 * For each struct and version: ae_*_init(p, v) writes exactly that version; 0, a newer version and
 * NULL are refused with a named status and no write. Then short flows: every ae_config version
 * (setRequestor, checkAuthentication against the emulator), a partner framework v1 (no
 * cancel_request: destroying a client with a request pending must not call past the struct), a v2
 * one (cancel_request is called: the positive control), an HTTP transport v1, and hosts that claim
 * a version newer than the library's.
 */
#define _POSIX_C_SOURCE 200809L
#include "layouts.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GUARD 64
#define STATEMENT "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6Im9sZC1ob3N0cyJ9.c2ln"

static int checks, failures;
#define CHECK(cond, ...)                                                                             \
    do {                                                                                             \
        checks++;                                                                                    \
        if (!(cond)) {                                                                               \
            failures++;                                                                              \
            fprintf(stderr, "old_hosts: FAILED at %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                            \
            fputc('\n', stderr);                                                                     \
        }                                                                                            \
    } while (0)

static const char *base_url;

/* ------------------------------------------------------------------------------------------ state */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int requestor_complete = -1, authentication_status = -1, cancels;
static ae_partner_request *pending_partner;

static void reset_state(void) {
    pthread_mutex_lock(&lock);
    requestor_complete = authentication_status = -1;
    cancels = 0;
    pending_partner = NULL;
    pthread_mutex_unlock(&lock);
}

/* Waits up to 15 s for *value to differ from -1 (or, for pointers, from NULL). */
static int wait_int(int *value) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 15;
    pthread_mutex_lock(&lock);
    while (*value == -1 && pthread_cond_timedwait(&changed, &lock, &deadline) == 0) {}
    int result = *value;
    pthread_mutex_unlock(&lock);
    return result;
}

static ae_partner_request *wait_partner(void) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 15;
    pthread_mutex_lock(&lock);
    while (pending_partner == NULL && pthread_cond_timedwait(&changed, &lock, &deadline) == 0) {}
    ae_partner_request *request = pending_partner;
    pthread_mutex_unlock(&lock);
    return request;
}

static void set_int(int *slot, int value) {
    pthread_mutex_lock(&lock);
    *slot = value;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void on_complete(int32_t status, void *user_data) { (void)user_data, set_int(&requestor_complete, status); }
static void on_authentication(int32_t status, const char *code, void *user_data) {
    (void)code, (void)user_data;
    set_int(&authentication_status, status);
}

static void on_check_access_status(int32_t prompt, ae_partner_request *request, void *user_data) {
    (void)prompt, (void)user_data;
    pthread_mutex_lock(&lock);
    pending_partner = request;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}
static void on_enqueue(const char *request_json, ae_partner_request *request, void *user_data) {
    (void)request_json, (void)user_data;
    ae_partner_request_reply_error(request, AE_PARTNER_E_FAILED, "old_hosts answers no metadata");
}
static void on_cancel(ae_partner_request *request, void *user_data) {
    (void)request, (void)user_data;
    pthread_mutex_lock(&lock);
    cancels++;
    pthread_mutex_unlock(&lock);
}

/* The transport answers every request from a thread of its own: "cannot connect". */
static void *refuse_later(void *request) {
    ae_http_request_reply_error(request, AE_HTTP_E_CANNOT_CONNECT, "old_hosts has no network");
    return NULL;
}
static void on_send(const char *method, const char *url, const char *const *headers, const uint8_t *body,
                    size_t body_length, int32_t timeout_ms, ae_http_request *request, void *user_data) {
    (void)method, (void)url, (void)headers, (void)body, (void)body_length, (void)timeout_ms, (void)user_data;
    pthread_t thread;
    if (pthread_create(&thread, NULL, refuse_later, request) == 0) pthread_detach(thread);
}

/* ---------------------------------------------------------------------------------------- memory */
/* A struct of exactly `size` bytes (ASan's red zone starts right after it), bytes 0x5A. */
static unsigned char *exact(size_t size) {
    unsigned char *block = malloc(size);
    memset(block, 0x5A, size);
    return block;
}

/* `size` bytes of 0x5A, then GUARD bytes of `fill`. */
static unsigned char *guarded(size_t size, unsigned char fill) {
    unsigned char *block = malloc(size + GUARD);
    memset(block, 0x5A, size);
    memset(block + size, fill, GUARD);
    return block;
}

static int all_bytes(const unsigned char *bytes, size_t count, unsigned char value) {
    for (size_t i = 0; i < count; i++)
        if (bytes[i] != value) return 0;
    return 1;
}

static int message_names(const char *a, const char *b) {
    char *message = ae_last_error_message();
    int named = message && strstr(message, a) && strstr(message, b);
    if (!named) fprintf(stderr, "old_hosts: message: %s\n", message ? message : "(none)");
    ae_string_free(message);
    return named;
}

/* ------------------------------------------------------------------------------ ae_*_init checks */
enum { CONFIG, DELEGATE, PARTNER, TRANSPORT, IDENTITY };
static const char *const struct_names[] = {"ae_config", "ae_delegate", "ae_partner_framework", "ae_http_transport",
                                           "ae_identity_provider"};

static int32_t init_struct(int kind, void *block, uint32_t version) {
    switch (kind) {
    case CONFIG: return ae_config_init(block, version);
    case DELEGATE: return ae_delegate_init(block, version);
    case PARTNER: return ae_partner_framework_init(block, version);
    case IDENTITY: return ae_identity_provider_init(block, version);
    default: return ae_http_transport_init(block, version);
    }
}

/* Version `version` of struct `kind` is `size` bytes in its frozen layout; `current` is the header's. */
static void check_init(int kind, uint32_t version, size_t size, uint32_t current) {
    const char *name = struct_names[kind];
    unsigned char *block = exact(size);
    CHECK(init_struct(kind, block, version) == AE_OK, "%s v%u", name, version);
    uint32_t stored;
    memcpy(&stored, block, sizeof stored);
    CHECK(stored == version, "%s v%u: version %u stored", name, version, stored);
    CHECK(all_bytes(block + sizeof stored, size - sizeof stored, 0), "%s v%u: every field 0 / NULL", name, version);
    free(block);

    block = guarded(size, 0xA5);
    CHECK(init_struct(kind, block, version) == AE_OK, "%s v%u (guarded)", name, version);
    CHECK(all_bytes(block + size, GUARD, 0xA5), "%s v%u: init wrote past the struct", name, version);
    /* Refusals write nothing at all. */
    memset(block, 0x5A, size);
    CHECK(init_struct(kind, block, 0) == AE_E_UNSUPPORTED_VERSION, "%s version 0", name);
    CHECK(message_names("version is 0", name), "%s version 0: message", name);
    CHECK(init_struct(kind, block, current + 1) == AE_E_UNSUPPORTED_VERSION, "%s v%u", name, current + 1);
    char newer[16], known[16];
    snprintf(newer, sizeof newer, "version %u", current + 1);
    snprintf(known, sizeof known, "1...%u", current);
    CHECK(message_names(newer, known), "%s v%u: the message names both versions", name, current + 1);
    CHECK(init_struct(kind, block, UINT32_MAX) == AE_E_UNSUPPORTED_VERSION, "%s v%u", name, UINT32_MAX);
    CHECK(all_bytes(block, size, 0x5A) && all_bytes(block + size, GUARD, 0xA5), "%s: a refused init wrote", name);
    free(block);
    CHECK(init_struct(kind, NULL, version) == AE_E_INVALID_ARG, "%s NULL", name);
}

/* ------------------------------------------------------------------------------------------ flows */
static ae_delegate_v1 *old_delegate(void) {
    ae_delegate_v1 *delegate = (ae_delegate_v1 *)exact(sizeof *delegate);
    ae_delegate_init((ae_delegate *)delegate, 1);
    delegate->set_requestor_complete = on_complete;
    delegate->set_authentication_status = on_authentication;
    return delegate;
}

/* The ae_config v1 fields a flow needs (every version has them). */
#define FILL_CONFIG(config, device)                                                                  \
    do {                                                                                             \
        (config)->software_statement = STATEMENT;                                                    \
        (config)->base_url = base_url;                                                               \
        (config)->device_id = (device);                                                              \
        (config)->max_requests_per_second = -1;                                                      \
    } while (0)

/* setRequestor and checkAuthentication with a client made from `config` (version `version`). */
static void run_flow(const void *config, const ae_delegate_v1 *delegate, const char *label) {
    ae_client *client = NULL;
    reset_state();
    int32_t status = ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client);
    CHECK(status == AE_OK, "%s: create returned %d", label, (int)status);
    if (status != AE_OK) return;
    CHECK(ae_set_requestor(client, "REF30", NULL) == AE_OK, "%s: set_requestor", label);
    CHECK(wait_int(&requestor_complete) == AE_ACCESS_ENABLER_STATUS_SUCCESS, "%s: set_requestor_complete(1)", label);
    CHECK(ae_check_authentication(client) == AE_OK, "%s: check_authentication", label);
    CHECK(wait_int(&authentication_status) == 0, "%s: not authenticated (a new device)", label);
    ae_client_destroy(client);
}

/* Every ae_config version: once in a block of its exact size, once followed by garbage. */
#define CONFIG_FLOW(type, version)                                                                   \
    do {                                                                                             \
        type *config = (type *)exact(sizeof(type));                                                  \
        CHECK(ae_config_init((ae_config *)config, version) == AE_OK, #type);                         \
        FILL_CONFIG(config, "old-host-" #version);                                                   \
        run_flow(config, delegate, #type);                                                           \
        free(config);                                                                                \
        unsigned char *block = guarded(sizeof(type), 0xFF);                                          \
        CHECK(ae_config_init((ae_config *)block, version) == AE_OK, #type " (guarded)");             \
        FILL_CONFIG((type *)block, "old-host-guarded-" #version);                                    \
        ae_client *client = NULL;                                                                    \
        CHECK(ae_client_create((const ae_config *)block, (const ae_delegate *)delegate, &client) == AE_OK, \
              #type ": create read past the struct (garbage after it)");                             \
        ae_client_destroy(client);                                                                   \
        free(block);                                                                                 \
    } while (0)

/* A partner framework of version 1 (no cancel_request; garbage after it when `fill` is 0xFF). */
static void partner_flows(const ae_delegate_v1 *delegate) {
    unsigned char *block = guarded(sizeof(ae_partner_framework_v1), 0xFF);
    ae_partner_framework_v1 *partner = (ae_partner_framework_v1 *)block;
    CHECK(ae_partner_framework_init((ae_partner_framework *)partner, 1) == AE_OK, "partner v1");
    partner->check_access_status = on_check_access_status;
    partner->enqueue_metadata_request = on_enqueue;
    ae_config_v2 *config = (ae_config_v2 *)exact(sizeof *config);
    ae_config_init((ae_config *)config, 2);
    FILL_CONFIG(config, "old-host-partner-v1");
    config->partner = (const ae_partner_framework *)partner;

    /* Destroyed with a partner request pending: a v2 host would hear cancel_request; a v1 host has
       none, and the garbage where it would be must never be called. */
    ae_client *client = NULL;
    reset_state();
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_OK, "partner v1 create");
    CHECK(ae_set_requestor(client, "REF30", NULL) == AE_OK, "partner v1 set_requestor");
    ae_partner_request *request = wait_partner();
    CHECK(request != NULL, "partner v1: check_access_status was asked");
    ae_client_destroy(client);
    CHECK(ae_partner_request_reply_access_status(request, AE_PARTNER_ACCESS_DENIED, AE_PARTNER_SIGNED_OUT) ==
              AE_E_INVALID_HANDLE,
          "partner v1: a reply after destroy is refused");

    /* Answered: setRequestor completes. */
    reset_state();
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_OK, "partner v1 create");
    CHECK(ae_set_requestor(client, "REF30", NULL) == AE_OK, "partner v1 set_requestor");
    request = wait_partner();
    CHECK(ae_partner_request_reply_access_status(request, AE_PARTNER_ACCESS_DENIED, AE_PARTNER_SIGNED_OUT) == AE_OK,
          "partner v1 reply");
    CHECK(wait_int(&requestor_complete) == AE_ACCESS_ENABLER_STATUS_SUCCESS, "partner v1: set_requestor_complete(1)");
    ae_client_destroy(client);
    free(block);

    /* The positive control: a v2 framework hears cancel_request when the client goes with a request pending. */
    ae_partner_framework_v2 *current = (ae_partner_framework_v2 *)exact(sizeof *current);
    ae_partner_framework_init((ae_partner_framework *)current, 2);
    current->check_access_status = on_check_access_status;
    current->enqueue_metadata_request = on_enqueue;
    current->cancel_request = on_cancel;
    config->partner = (const ae_partner_framework *)current;
    reset_state();
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_OK, "partner v2 create");
    ae_set_requestor(client, "REF30", NULL);
    CHECK(wait_partner() != NULL, "partner v2: check_access_status was asked");
    ae_client_destroy(client);
    pthread_mutex_lock(&lock);
    int cancelled = cancels;
    pthread_mutex_unlock(&lock);
    CHECK(cancelled == 1, "partner v2: cancel_request called %d times (want 1)", cancelled);
    free(current);
    free(config);
}

/* An HTTP transport of version 1 carries setRequestor's first request (answered "cannot connect"). */
static void transport_flow(const ae_delegate_v1 *delegate) {
    ae_http_transport_v1 *transport = (ae_http_transport_v1 *)exact(sizeof *transport);
    CHECK(ae_http_transport_init((ae_http_transport *)transport, 1) == AE_OK, "transport v1");
    transport->send = on_send;
    ae_config_v3 *config = (ae_config_v3 *)exact(sizeof *config);
    ae_config_init((ae_config *)config, 3);
    FILL_CONFIG(config, "old-host-transport");
    config->base_url = "https://sp.auth.adobe.com";
    config->transport = (const ae_http_transport *)transport;
    ae_client *client = NULL;
    reset_state();
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_OK, "transport v1 create");
    CHECK(ae_set_requestor(client, "REF30", NULL) == AE_OK, "transport v1 set_requestor");
    CHECK(wait_int(&requestor_complete) == AE_ACCESS_ENABLER_STATUS_ERROR, "transport v1: set_requestor_complete(0)");
    ae_client_destroy(client);
    free(config);
    free(transport);
}

static void on_request_token(int32_t kind, int32_t reason, ae_identity_request *request, void *user_data) {
    (void)kind, (void)reason, (void)request, (void)user_data;
}

/* Hosts compiled against a header newer than the library: refused, nothing created. */
static void newer_hosts(const ae_delegate_v1 *delegate) {
    ae_client *client = (ae_client *)delegate; /* not NULL: create must set it to NULL */
    ae_config_v6 *config = (ae_config_v6 *)exact(sizeof *config);
    ae_config_init((ae_config *)config, AE_CONFIG_VERSION);
    FILL_CONFIG(config, "old-host-newer");
    config->version = AE_CONFIG_VERSION + 1;
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_E_UNSUPPORTED_VERSION &&
              client == NULL,
          "a config newer than the library");
    CHECK(message_names("ae_config version 7", "1...6"), "newer config: the message names both versions");
    config->version = 0;
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_E_UNSUPPORTED_VERSION,
          "a config of version 0");
    config->version = AE_CONFIG_VERSION;

    ae_delegate_v1 *newer = (ae_delegate_v1 *)exact(sizeof *newer);
    memcpy(newer, delegate, sizeof *newer);
    newer->version = AE_DELEGATE_VERSION + 1;
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)newer, &client) == AE_E_UNSUPPORTED_VERSION,
          "a delegate newer than the library");
    free(newer);

    ae_partner_framework_v2 *partner = (ae_partner_framework_v2 *)exact(sizeof *partner);
    ae_partner_framework_init((ae_partner_framework *)partner, AE_PARTNER_FRAMEWORK_VERSION);
    partner->check_access_status = on_check_access_status;
    partner->enqueue_metadata_request = on_enqueue;
    partner->version = AE_PARTNER_FRAMEWORK_VERSION + 1;
    config->partner = (const ae_partner_framework *)partner;
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_E_UNSUPPORTED_VERSION,
          "a partner framework newer than the library");
    config->partner = NULL;
    free(partner);

    ae_http_transport_v1 *transport = (ae_http_transport_v1 *)exact(sizeof *transport);
    ae_http_transport_init((ae_http_transport *)transport, AE_HTTP_TRANSPORT_VERSION);
    transport->send = on_send;
    transport->version = AE_HTTP_TRANSPORT_VERSION + 1;
    config->transport = (const ae_http_transport *)transport;
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_E_UNSUPPORTED_VERSION,
          "a transport newer than the library");
    config->transport = NULL;
    free(transport);

    ae_identity_provider_v1 *identity = (ae_identity_provider_v1 *)exact(sizeof *identity);
    ae_identity_provider_init((ae_identity_provider *)identity, AE_IDENTITY_PROVIDER_VERSION);
    identity->request_token = on_request_token;
    identity->version = AE_IDENTITY_PROVIDER_VERSION + 1;
    config->identity = (const ae_identity_provider *)identity;
    CHECK(ae_client_create((const ae_config *)config, (const ae_delegate *)delegate, &client) == AE_E_UNSUPPORTED_VERSION,
          "an identity provider newer than the library");
    config->identity = NULL;
    free(identity);
    free(config);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: old_hosts <emulator base URL>\n");
        return 2;
    }
    base_url = argv[1];

    check_init(CONFIG, 1, sizeof(ae_config_v1), AE_CONFIG_VERSION);
    check_init(CONFIG, 2, sizeof(ae_config_v2), AE_CONFIG_VERSION);
    check_init(CONFIG, 3, sizeof(ae_config_v3), AE_CONFIG_VERSION);
    check_init(CONFIG, 4, sizeof(ae_config_v4), AE_CONFIG_VERSION);
    check_init(CONFIG, 5, sizeof(ae_config_v5), AE_CONFIG_VERSION);
    check_init(CONFIG, 6, sizeof(ae_config_v6), AE_CONFIG_VERSION);
    check_init(IDENTITY, 1, sizeof(ae_identity_provider_v1), AE_IDENTITY_PROVIDER_VERSION);
    check_init(DELEGATE, 1, sizeof(ae_delegate_v1), AE_DELEGATE_VERSION);
    check_init(PARTNER, 1, sizeof(ae_partner_framework_v1), AE_PARTNER_FRAMEWORK_VERSION);
    check_init(PARTNER, 2, sizeof(ae_partner_framework_v2), AE_PARTNER_FRAMEWORK_VERSION);
    check_init(TRANSPORT, 1, sizeof(ae_http_transport_v1), AE_HTTP_TRANSPORT_VERSION);

    /* The static initialisers give the same struct as ae_*_init. */
    ae_config from_macro = AE_CONFIG_INIT, from_init;
    ae_config_init(&from_init, AE_CONFIG_VERSION);
    CHECK(memcmp(&from_macro, &from_init, sizeof from_init) == 0, "AE_CONFIG_INIT == ae_config_init");
    ae_delegate delegate_macro = AE_DELEGATE_INIT;
    ae_partner_framework partner_macro = AE_PARTNER_FRAMEWORK_INIT;
    ae_http_transport transport_macro = AE_HTTP_TRANSPORT_INIT;
    CHECK(delegate_macro.version == AE_DELEGATE_VERSION && partner_macro.version == AE_PARTNER_FRAMEWORK_VERSION &&
              transport_macro.version == AE_HTTP_TRANSPORT_VERSION && delegate_macro.status == NULL &&
              partner_macro.cancel_request == NULL && transport_macro.send == NULL,
          "AE_*_INIT");

    ae_delegate_v1 *delegate = old_delegate();
    CONFIG_FLOW(ae_config_v1, 1);
    CONFIG_FLOW(ae_config_v2, 2);
    CONFIG_FLOW(ae_config_v3, 3);
    CONFIG_FLOW(ae_config_v4, 4);
    CONFIG_FLOW(ae_config_v5, 5);
    CONFIG_FLOW(ae_config_v6, 6);
    partner_flows(delegate);
    transport_flow(delegate);
    newer_hosts(delegate);
    free(delegate);

    if (failures) {
        fprintf(stderr, "old_hosts: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("old_hosts: %d checks passed (ae_config v1-v6, ae_partner_framework v1-v2, ae_delegate v1, "
           "ae_http_transport v1, ae_identity_provider v1; newer versions refused)\n",
           checks);
    return 0;
}

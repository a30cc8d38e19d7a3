/* SPDX-License-Identifier: Apache-2.0
 *
 * minimal.c: the smallest complete AccessEnabler host, as libcurl's simple.c. Set the requestor,
 * log in with a code on a second screen, get one media token, log out; every callback runs on
 * this thread (event-loop mode), and every error is printed by name.
 *
 *   cc -o minimal minimal.c $(pkg-config --cflags --libs accessenabler)
 *   ./minimal http://127.0.0.1:PORT     (the bundled emulator: Emulator/emulator.py --auto-login-ms 1000)
 */
#include <accessenabler.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static ae_client *client;
static int waiting; /* 1 while the flow waits for a callback */
static int failed;

/* Prints a refused call by name, with the library's reason. */
static int check(int32_t status, const char *call) {
    if (status == AE_OK) return 0;
    char *reason = ae_last_error_message();
    fprintf(stderr, "%s: %s: %s\n", call, ae_status_string(status), reason ? reason : "");
    ae_string_free(reason);
    failed = 1;
    return -1;
}

static void on_requestor(int32_t status, void *user_data) {
    (void)user_data;
    printf("setRequestor: %s\n", status == AE_ACCESS_ENABLER_STATUS_SUCCESS ? "done" : "failed");
    failed |= status != AE_ACCESS_ENABLER_STATUS_SUCCESS;
    waiting = 0;
}

static void on_providers(const char *mvpds_json, void *user_data) {
    (void)mvpds_json, (void)user_data;
    const ae_payload *first = ae_payload_at(ae_callback_payload(), 0); /* the typed view: no JSON parser */
    const char *id = ae_payload_string(first, AE_FIELD_ID, NULL);
    const char *name = ae_payload_string(first, AE_FIELD_DISPLAY_NAME, NULL);
    printf("TV provider: %s\n", name ? name : id ? id : "none");
    if (id == NULL || check(ae_set_selected_provider(client, id), "ae_set_selected_provider")) waiting = 0;
}

static void on_status(const char *status_json, void *user_data) {
    (void)status_json, (void)user_data;
    const ae_payload *status = ae_callback_payload();
    const char *id = ae_payload_string(status, AE_FIELD_ERROR_ID, NULL);
    if (id && strcmp(id, "REGCODE") == 0) {
        printf("open %s and enter the code %s\n", ae_payload_string(status, AE_FIELD_URL, NULL),
               ae_payload_string(status, AE_FIELD_CODE, NULL));
    } else {
        const char *message = ae_payload_string(status, AE_FIELD_MESSAGE, NULL);
        printf("status %s: %s\n", id ? id : "?", message ? message : "");
    }
}

static void on_authentication(int32_t status, const char *error_code, void *user_data) {
    (void)user_data;
    printf("authenticated: %d %s\n", (int)status, error_code);
    failed |= status != AE_ACCESS_ENABLER_STATUS_SUCCESS && waiting == 1;
    waiting = 0;
}

static void on_token(const char *token, const char *resource, void *user_data) {
    (void)user_data;
    printf("media token for %s: %zu characters\n", resource, strlen(token));
    waiting = 0;
}

static void on_token_failed(const char *resource, const char *error_code, const char *description, void *user_data) {
    (void)user_data;
    printf("no media token for %s: %s %s\n", resource, error_code, description);
    failed = 1;
    waiting = 0;
}

/* Runs the callbacks as they come until the one the flow waits for has run (at most 5 minutes). */
static int wait_for_callback(void) {
    struct pollfd ready = {.fd = ae_client_event_fd(client), .events = POLLIN};
    int32_t ran;
    for (int tick = 0; waiting && tick < 3000; tick++) {
        if (poll(&ready, 1, 100) > 0 && check(ae_client_dispatch(client, &ran), "ae_client_dispatch")) return -1;
    }
    return waiting || failed ? -1 : 0;
}

int main(int argc, char **argv) {
    char storage[256];
    snprintf(storage, sizeof storage, "%s/ae-minimal", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdir(storage, 0700) != 0 && errno != EEXIST) { /* the store's directory must exist */
        perror(storage);
        return 1;
    }
    strncat(storage, "/store.sqlite", sizeof storage - strlen(storage) - 1);

    ae_config config = AE_CONFIG_INIT;
    config.software_statement = getenv("AE_SOFTWARE_STATEMENT") ? getenv("AE_SOFTWARE_STATEMENT")
                                                                : "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6Im1pbmltYWwifQ.c2ln";
    config.base_url = argc > 1 ? argv[1] : "https://sp.auth.adobe.com";
    config.storage_path = storage;
    config.callback_mode = AE_CALLBACKS_EVENT_LOOP;
    ae_delegate delegate = AE_DELEGATE_INIT;
    delegate.set_requestor_complete = on_requestor;
    delegate.display_provider_dialog = on_providers;
    delegate.status = on_status;
    delegate.set_authentication_status = on_authentication;
    delegate.set_token = on_token;
    delegate.token_request_failed = on_token_failed;
    if (check(ae_client_create(&config, &delegate, &client), "ae_client_create")) return 1;

    waiting = 1;
    if (check(ae_set_requestor(client, "REF30", NULL), "ae_set_requestor") == 0 && wait_for_callback() == 0) {
        waiting = 1; /* forced, so that the example logs in every time it runs */
        if (check(ae_get_authentication(client, 1, NULL, NULL), "ae_get_authentication") == 0 &&
            wait_for_callback() == 0) {
            waiting = 1;
            if (check(ae_get_authorization(client, "LIVE", NULL), "ae_get_authorization") == 0) wait_for_callback();
        }
        waiting = 2; /* logout reports "not authenticated": that is its success */
        if (check(ae_logout(client), "ae_logout") == 0) wait_for_callback();
    }
    ae_client_destroy(client);
    printf("%s\n", failed ? "failed" : "done");
    return failed ? 1 : 0;
}

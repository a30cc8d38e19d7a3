/* SPDX-License-Identifier: Apache-2.0
 *
 * The whole AccessEnabler flow from one poll() loop (event-loop mode), in C:
 * create → setRequestor → checkAuthentication → getAuthentication → dialog → select → REGCODE →
 * (the emulator's simulated viewer logs in) → status 1 → getAuthorization → setToken → logout.
 * Every callback runs on this thread, inside ae_client_dispatch().
 *
 *   event_loop <emulator base URL>      (the emulator started with --auto-login-ms)
 * Exit status 0 when the flow completed, 1 otherwise.
 */
#include "accessenabler.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static ae_client *client;
static pthread_t loop_thread;
static int step;       /* how far the flow got */
static int failed;
static int foreign;    /* callbacks on another thread */

static void check_thread(void) {
    if (!pthread_equal(pthread_self(), loop_thread)) foreign++;
}

static void on_complete(int32_t status, void *user_data) {
    (void)user_data;
    check_thread();
    printf("set_requestor_complete(%d)\n", (int)status);
    if (status != 1) { failed = 1; return; }
    step = 1;
    ae_check_authentication(client);
}

static void on_authentication(int32_t status, const char *code, void *user_data) {
    (void)user_data;
    check_thread();
    printf("set_authentication_status(%d, \"%s\")\n", (int)status, code);
    if (step == 1 && status == 0) { step = 2; ae_get_authentication(client, 0, NULL, NULL); }
    else if (step == 3 && status == 1) { step = 4; ae_get_authorization(client, "LIVE", NULL); }
    else if (step == 5 && status == 0) { step = 6; }
    else failed = 1;
}

static void on_dialog(const char *mvpds_json, void *user_data) {
    (void)user_data;
    check_thread();
    printf("display_provider_dialog(%.40s...)\n", mvpds_json);
    if (strstr(mvpds_json, "\"ID\":\"Cablevision\"") == NULL) { failed = 1; return; }
    ae_set_selected_provider(client, "Cablevision");
}

static void on_status(const char *status_json, void *user_data) {
    (void)user_data;
    check_thread();
    printf("status(%.60s...)\n", status_json);
    if (strstr(status_json, "\"errorId\":\"REGCODE\"")) step = 3;
}

static void on_token(const char *token, const char *resource, void *user_data) {
    (void)user_data;
    check_thread();
    printf("set_token(%.12s..., %s)\n", token, resource);
    step = 5;
    ae_logout(client);
}

static void on_token_failed(const char *resource, const char *code, const char *description, void *user_data) {
    (void)user_data;
    printf("token_request_failed(%s, %s, %s)\n", resource, code, description);
    failed = 1;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: event_loop <base url>\n"); return 2; }
    loop_thread = pthread_self();
    ae_config config;
    ae_config_init(&config, AE_CONFIG_VERSION);
    config.software_statement = "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImMtZXZlbnQtbG9vcCJ9.c2ln";
    config.base_url = argv[1];
    config.device_id = "c-event-loop-device";
    config.callback_mode = AE_CALLBACKS_EVENT_LOOP;
    config.poll_interval_ms = 1000;
    config.max_requests_per_second = -1;
    ae_delegate delegate;
    ae_delegate_init(&delegate, AE_DELEGATE_VERSION);
    delegate.set_requestor_complete = on_complete;
    delegate.set_authentication_status = on_authentication;
    delegate.display_provider_dialog = on_dialog;
    delegate.status = on_status;
    delegate.set_token = on_token;
    delegate.token_request_failed = on_token_failed;
    if (ae_client_create(&config, &delegate, &client) != AE_OK) {
        char *message = ae_last_error_message();
        fprintf(stderr, "create failed: %s\n", message ? message : "?");
        ae_string_free(message);
        return 1;
    }
    struct pollfd watch = {ae_client_event_fd(client), POLLIN, 0};
    if (watch.fd < 0 || ae_set_requestor(client, "REF30", NULL) != AE_OK) return 1;

    time_t deadline = time(NULL) + 30;
    int dispatched = 0;
    while (step < 6 && !failed && time(NULL) < deadline) {
        int ready = poll(&watch, 1, 200);
        if (ready > 0 && (watch.revents & POLLIN)) {
            int32_t count = 0;
            if (ae_client_dispatch(client, &count) != AE_OK) { failed = 1; break; }
            dispatched += count;
        }
    }
    ae_client_destroy(client);
    printf("step %d, %d callbacks dispatched, %d on another thread\n", step, dispatched, foreign);
    return step == 6 && !failed && foreign == 0 ? 0 : 1;
}

/*
 * smoke.c — C smoke test of libaccessenabler.so through Include/accessenabler.h. No network:
 * every call made here either fails its argument checks or needs no server (the client points
 * at 127.0.0.1:9, and set_requestor is never called with valid arguments).
 *
 * SPDX-License-Identifier: Apache-2.0
 *
 * Build (Tests/c/check-header.sh and CTest do this):
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -IInclude Tests/c/smoke.c \
 *      -L<libdir> -Wl,-rpath,<libdir> -laccessenabler -o smoke
 * Exits 0 when every check passed, 1 at the first failure (with the file:line and the check).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c99 */

#include "accessenabler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int checks = 0;

static void fail(int line, const char *what, const char *detail) {
    char *message = ae_last_error_message();
    fprintf(stderr, "smoke: FAILED (check %d) at smoke.c:%d: %s%s%s\n", checks, line, what, detail ? " — " : "",
            detail ? detail : "");
    if (message) {
        fprintf(stderr, "smoke:   ae_last_error_message(): %s\n", message);
        ae_string_free(message);
    }
    exit(1);
}

/* CHECK(condition): a plain assertion. */
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        checks++;                                                                                                      \
        if (!(cond)) fail(__LINE__, #cond, NULL);                                                                      \
    } while (0)

/* EXPECT(call, status): `call` returns exactly `status`; on failure, both are named. */
#define EXPECT(call, expected)                                                                                         \
    do {                                                                                                               \
        int32_t got_ = (call);                                                                                         \
        checks++;                                                                                                      \
        if (got_ != (expected)) {                                                                                      \
            char detail_[200];                                                                                         \
            snprintf(detail_, sizeof detail_, "returned %d (%s), expected %s = %d", (int)got_, ae_status_string(got_), \
                     #expected, (int)(expected));                                                                      \
            fail(__LINE__, #call, detail_);                                                                            \
        }                                                                                                              \
    } while (0)

static void section(const char *name) { printf("smoke: %-44s (%d checks so far)\n", name, checks); }

/* Every delegate callback and the preauthorize callback bump this counter. No call in this test
   may produce a callback: calls that fail trigger none, and nothing here reaches the network. */
static volatile int callbacks = 0;

static void on_status_i(int32_t a, void *u) { (void)a, (void)u, callbacks++; }
static void on_status_is(int32_t a, const char *b, void *u) { (void)a, (void)b, (void)u, callbacks++; }
static void on_ss(const char *a, const char *b, void *u) { (void)a, (void)b, (void)u, callbacks++; }
static void on_sss(const char *a, const char *b, const char *c, void *u) { (void)a, (void)b, (void)c, (void)u, callbacks++; }
static void on_s(const char *a, void *u) { (void)a, (void)u, callbacks++; }
static void on_is(int32_t a, const char *b, void *u) { (void)a, (void)b, (void)u, callbacks++; }
static void on_metadata(const char *a, int32_t b, int32_t c, const char *d, void *u) {
    (void)a, (void)b, (void)c, (void)d, (void)u, callbacks++;
}

static void counting_delegate(ae_delegate *d) {
    ae_delegate_init(d, AE_DELEGATE_VERSION);
    d->set_requestor_complete = on_status_i;
    d->set_authentication_status = on_status_is;
    d->set_token = on_ss;
    d->token_request_failed = on_sss;
    d->selected_provider = on_s;
    d->display_provider_dialog = on_s;
    d->navigate_to_url = on_s;
    d->send_tracking_data = on_is;
    d->set_metadata_status = on_metadata;
    d->preauthorized_resources = on_s;
    d->present_tv_provider_dialog = on_s;
    d->dismiss_tv_provider_dialog = on_s;
    d->status = on_s;
}

static void valid_config(ae_config *c) {
    ae_config_init(c, AE_CONFIG_VERSION);
    c->software_statement = "smoke.software.statement";
    c->base_url = "http://127.0.0.1:9"; /* loopback: allowed over plain http; nothing listens there */
    c->storage_path = NULL;               /* in memory */
}

/* Each call that takes a client, with otherwise valid arguments: used with a NULL and a destroyed
   handle, where every one must return AE_E_INVALID_HANDLE. */
static void preauthorize_cb(const char *response, void *u) { (void)response, (void)u, callbacks++; }

static int metric_series;

static void count_metric(const ae_metric *metric, void *user_data) {
    (void)user_data;
    if (metric && metric->version >= 1 && metric->name && metric->unit) metric_series++;
}

static void metrics_push_cb(ae_client *client, void *user_data) {
    (void)client;
    (void)user_data;
}

static void expect_all_invalid_handle(ae_client *h) {
    EXPECT(ae_set_options(h, "{}"), AE_E_INVALID_HANDLE);
    EXPECT(ae_set_requestor(h, "REF30", NULL), AE_E_INVALID_HANDLE);
    EXPECT(ae_check_authentication(h), AE_E_INVALID_HANDLE);
    EXPECT(ae_get_authentication(h, 0, NULL, NULL), AE_E_INVALID_HANDLE);
    EXPECT(ae_set_selected_provider(h, "mvpd"), AE_E_INVALID_HANDLE);
    EXPECT(ae_get_selected_provider(h), AE_E_INVALID_HANDLE);
    EXPECT(ae_check_authorization(h, "R", NULL), AE_E_INVALID_HANDLE);
    EXPECT(ae_get_authorization(h, "R", NULL), AE_E_INVALID_HANDLE);
    EXPECT(ae_check_preauthorized_resources(h, "[\"R\"]", 1), AE_E_INVALID_HANDLE);
    EXPECT(ae_get_metadata(h, "{\"opCode\": 0}"), AE_E_INVALID_HANDLE);
    EXPECT(ae_logout(h), AE_E_INVALID_HANDLE);
    EXPECT(ae_handle_external_url(h, "https://example.com/done"), AE_E_INVALID_HANDLE);
    EXPECT(ae_preauthorize(h, "{\"resources\": [\"R\"]}", preauthorize_cb, NULL), AE_E_INVALID_HANDLE);
    {
        int32_t store_status = -1;
        EXPECT(ae_client_store_status(h, &store_status), AE_E_INVALID_HANDLE);
        CHECK(store_status == -1);
    }
    {
        char *text = (char *)"untouched";
        EXPECT(ae_client_metrics(h, count_metric, NULL), AE_E_INVALID_HANDLE);
        EXPECT(ae_client_metrics_text(h, AE_METRICS_PROMETHEUS, &text), AE_E_INVALID_HANDLE);
        CHECK(text == NULL);
        EXPECT(ae_client_set_metrics_push(h, AE_METRICS_PUSH_MIN_MS, NULL, NULL), AE_E_INVALID_HANDLE);
    }
}

int main(void) {
    /* ---------------------------------------------------------------- versions and strings */
    section("versions");
    CHECK(ae_version_number() == AE_VERSION_NUMBER);
    CHECK(ae_version_string() != NULL);
    {
        char expected[32];
        snprintf(expected, sizeof expected, "%d.%d.%d", AE_VERSION_MAJOR, AE_VERSION_MINOR, AE_VERSION_PATCH);
        CHECK(strcmp(ae_version_string(), expected) == 0);
    }
    CHECK(AE_VERSION_AT_LEAST(AE_VERSION_MAJOR, AE_VERSION_MINOR, AE_VERSION_PATCH));
    CHECK(!AE_VERSION_AT_LEAST(AE_VERSION_MAJOR + 1, 0, 0));

    section("status strings");
    {
        /* Every code of the header's status enum (check-header.sh verifies this list is complete). */
        static const int32_t codes[] = {
            AE_OK,             AE_E_INVALID_ARG, AE_E_INVALID_HANDLE, AE_E_UNSUPPORTED_VERSION,
            AE_E_NO_REQUESTOR, AE_E_STORAGE,     AE_E_INSECURE_URL,   AE_E_INTERNAL,
            AE_E_STORE_KEY,    AE_E_QUEUE_FULL,
        };
        const size_t n = sizeof codes / sizeof codes[0];
        const char *unknown = ae_status_string(9999);
        size_t i, j;
        CHECK(unknown != NULL);
        CHECK(strcmp(unknown, "unknown status") == 0);
        CHECK(ae_status_string(-1) != NULL);
        for (i = 0; i < n; i++) {
            const char *s = ae_status_string(codes[i]);
            CHECK(s != NULL && s[0] != '\0');
            CHECK(strcmp(s, unknown) != 0);
            for (j = 0; j < i; j++) CHECK(strcmp(s, ae_status_string(codes[j])) != 0);
        }
    }

    section("ae_string_free / ae_client_destroy (NULL)");
    ae_string_free(NULL);
    ae_client_destroy(NULL);
    checks += 2; /* reaching this line is the check */

    /* ---------------------------------------------------------------- config and delegate */
    section("ae_config_init / ae_delegate_init");
    {
        ae_config c;
        ae_delegate d;
        memset(&c, 0xAB, sizeof c); /* garbage in: init must overwrite every field */
        memset(&d, 0xAB, sizeof d);
        EXPECT(ae_config_init(&c, AE_CONFIG_VERSION), AE_OK);
        CHECK(c.version == AE_CONFIG_VERSION);
        CHECK(c.software_statement == NULL && c.base_url == NULL && c.storage_path == NULL);
        CHECK(c.device_info_json == NULL && c.device_id == NULL && c.redirect_url == NULL);
        CHECK(c.domain_name == NULL && c.activation_url == NULL && c.log == NULL && c.log_user_data == NULL);
        CHECK(c.api_generation == 0 || c.api_generation == AE_API_V2);
        CHECK(c.login_mode == AE_LOGIN_SECOND_SCREEN);
        CHECK(c.poll_interval_ms == 0 && c.preauthorize_limit == 0 && c.connect_timeout_ms == 0);
        CHECK(c.request_timeout_ms == 0 && c.max_requests_per_second == 0);
        {
            char *m = ae_last_error_message(); /* the last call on this thread succeeded */
            CHECK(m == NULL);
            ae_string_free(m);
        }
        EXPECT(ae_delegate_init(&d, AE_DELEGATE_VERSION), AE_OK);
        CHECK(d.version == AE_DELEGATE_VERSION);
        CHECK(d.user_data == NULL && d.set_requestor_complete == NULL && d.set_authentication_status == NULL);
        CHECK(d.set_token == NULL && d.token_request_failed == NULL && d.selected_provider == NULL);
        CHECK(d.display_provider_dialog == NULL && d.navigate_to_url == NULL && d.send_tracking_data == NULL);
        CHECK(d.set_metadata_status == NULL && d.preauthorized_resources == NULL);
        CHECK(d.present_tv_provider_dialog == NULL && d.dismiss_tv_provider_dialog == NULL && d.status == NULL);
        EXPECT(ae_config_init(NULL, AE_CONFIG_VERSION), AE_E_INVALID_ARG);
        EXPECT(ae_delegate_init(NULL, AE_DELEGATE_VERSION), AE_E_INVALID_ARG);
    }

    /* ---------------------------------------------------------------- ae_client_create failures */
    section("ae_client_create: refusals");
    {
        static int sentinel;
        ae_config c;
        ae_delegate d;
        ae_client *out = (ae_client *)&sentinel;
        valid_config(&c);
        counting_delegate(&d);

        EXPECT(ae_client_create(NULL, &d, &out), AE_E_INVALID_ARG);
        CHECK(out == NULL); /* "Set to NULL on failure" */
        EXPECT(ae_client_create(&c, NULL, &out), AE_E_INVALID_ARG);
        EXPECT(ae_client_create(&c, &d, NULL), AE_E_INVALID_ARG);

        c.version = 99;
        out = (ae_client *)&sentinel;
        EXPECT(ae_client_create(&c, &d, &out), AE_E_UNSUPPORTED_VERSION);
        CHECK(out == NULL);
        valid_config(&c);
        d.version = 99;
        EXPECT(ae_client_create(&c, &d, &out), AE_E_UNSUPPORTED_VERSION);
        d.version = AE_DELEGATE_VERSION;

        c.base_url = "http://example.com";
        EXPECT(ae_client_create(&c, &d, &out), AE_E_INSECURE_URL);
        valid_config(&c);

        c.software_statement = NULL; /* required */
        EXPECT(ae_client_create(&c, &d, &out), AE_E_INVALID_ARG);
        valid_config(&c);

        c.api_generation = 3; /* neither AE_API_V1 nor AE_API_V2 */
        EXPECT(ae_client_create(&c, &d, &out), AE_E_INVALID_ARG);
        valid_config(&c);

        c.api_generation = AE_API_V1; /* the legacy REST API V1: created like a V2 client */
        EXPECT(ae_client_create(&c, &d, &out), AE_OK);
        ae_client_destroy(out);
        out = NULL;
        valid_config(&c);

        c.software_statement = "\xff\xfe"; /* not UTF-8 */
        out = (ae_client *)&sentinel;
        EXPECT(ae_client_create(&c, &d, &out), AE_E_INVALID_ARG);
        CHECK(out == NULL);
        {
            char *m = ae_last_error_message();
            CHECK(m != NULL && m[0] != '\0');
            ae_string_free(m);
        }
    }

    /* ---------------------------------------------------------------- a client, no requestor */
    {
        ae_config c;
        ae_delegate d;
        ae_client *client = NULL, *other = NULL, *third = NULL;
        char *big;
        struct timespec pause = {0, 200 * 1000 * 1000};

        section("ae_client_create: valid (loopback, in memory)");
        valid_config(&c);
        counting_delegate(&d);
        EXPECT(ae_client_create(&c, &d, &client), AE_OK);
        CHECK(client != NULL);
        EXPECT(ae_client_create(&c, &d, &other), AE_OK); /* several clients per process */
        CHECK(other != NULL && other != client);

        section("setOptions before setRequestor");
        EXPECT(ae_set_options(client, "{\"applicationProfile\": \"smoke\"}"), AE_OK);

        section("entitlement calls before setRequestor");
        EXPECT(ae_check_authentication(client), AE_E_NO_REQUESTOR);
        EXPECT(ae_get_authentication(client, 0, NULL, NULL), AE_E_NO_REQUESTOR);
        EXPECT(ae_get_authentication(client, 1, "{}", "{\"TV_PROVIDERS\": []}"), AE_E_NO_REQUESTOR);
        EXPECT(ae_set_selected_provider(client, "mvpd"), AE_E_NO_REQUESTOR);
        EXPECT(ae_set_selected_provider(client, NULL), AE_E_NO_REQUESTOR);
        EXPECT(ae_get_selected_provider(client), AE_E_NO_REQUESTOR);
        EXPECT(ae_check_authorization(client, "R", NULL), AE_E_NO_REQUESTOR);
        EXPECT(ae_get_authorization(client, "R", NULL), AE_E_NO_REQUESTOR);
        EXPECT(ae_get_authorization(client, "R", "{}"), AE_E_NO_REQUESTOR);
        EXPECT(ae_check_preauthorized_resources(client, "[\"R1\", \"R2\"]", 1), AE_E_NO_REQUESTOR);
        EXPECT(ae_get_metadata(client, "{\"opCode\": 0}"), AE_E_NO_REQUESTOR);
        EXPECT(ae_logout(client), AE_E_NO_REQUESTOR);
        EXPECT(ae_handle_external_url(client, "https://example.com/done"), AE_E_NO_REQUESTOR);
        EXPECT(ae_preauthorize(client, "{\"resources\": [\"R\"]}", preauthorize_cb, NULL), AE_E_NO_REQUESTOR);

        section("NULL arguments");
        EXPECT(ae_set_options(client, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_set_requestor(client, NULL, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_check_authorization(client, NULL, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_get_authorization(client, NULL, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_check_preauthorized_resources(client, NULL, 0), AE_E_INVALID_ARG);
        EXPECT(ae_get_metadata(client, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_handle_external_url(client, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_preauthorize(client, NULL, preauthorize_cb, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_preauthorize(client, "{\"resources\": [\"R\"]}", NULL, NULL), AE_E_INVALID_ARG);
        {
            char *m = ae_last_error_message();
            CHECK(m != NULL && m[0] != '\0');
            ae_string_free(m);
        }

        section("invalid UTF-8 arguments");
        EXPECT(ae_set_options(client, "{\"visitorID\": \"\xff\"}"), AE_E_INVALID_ARG);
        EXPECT(ae_set_requestor(client, "\xff\xfe", NULL), AE_E_INVALID_ARG);
        EXPECT(ae_set_requestor(client, "REF30", "[\"https://\xc3\"]"), AE_E_INVALID_ARG); /* truncated sequence */
        EXPECT(ae_get_authentication(client, 0, "{\"a\": \"\xc0\xaf\"}", NULL), AE_E_INVALID_ARG); /* overlong */
        EXPECT(ae_get_authentication(client, 0, NULL, "\xed\xa0\x80"), AE_E_INVALID_ARG); /* surrogate */
        EXPECT(ae_set_selected_provider(client, "\xff"), AE_E_INVALID_ARG);
        EXPECT(ae_check_authorization(client, "\xff\xfe", NULL), AE_E_INVALID_ARG);
        EXPECT(ae_get_authorization(client, "R", "\xff"), AE_E_INVALID_ARG);
        EXPECT(ae_check_preauthorized_resources(client, "[\"\xff\"]", 1), AE_E_INVALID_ARG);
        EXPECT(ae_get_metadata(client, "\xfe"), AE_E_INVALID_ARG);
        EXPECT(ae_handle_external_url(client, "https://example.com/\xff"), AE_E_INVALID_ARG);
        EXPECT(ae_preauthorize(client, "{\"resources\": [\"\xff\"]}", preauthorize_cb, NULL), AE_E_INVALID_ARG);

        section("malformed JSON / wrong JSON shapes");
        EXPECT(ae_set_options(client, "not json"), AE_E_INVALID_ARG);
        EXPECT(ae_set_options(client, "[]"), AE_E_INVALID_ARG); /* must be an object */
        EXPECT(ae_set_requestor(client, "REF30", "{not an array}"), AE_E_INVALID_ARG);
        EXPECT(ae_set_requestor(client, "REF30", "{\"a\": 1}"), AE_E_INVALID_ARG);
        EXPECT(ae_get_authentication(client, 0, "{", NULL), AE_E_INVALID_ARG);
        EXPECT(ae_get_authentication(client, 0, NULL, "{\"TV_PROVIDERS\": 1"), AE_E_INVALID_ARG);
        EXPECT(ae_check_authorization(client, "R", "not json"), AE_E_INVALID_ARG);
        EXPECT(ae_check_authorization(client, "", NULL), AE_E_INVALID_ARG); /* "not empty" */
        EXPECT(ae_get_metadata(client, "{\"opCode\": 9}"), AE_E_INVALID_ARG);
        EXPECT(ae_get_metadata(client, "{\"opCode\": 1}"), AE_E_INVALID_ARG); /* opcode 1 needs resource_id */
        EXPECT(ae_get_metadata(client, "{\"opCode\": 3}"), AE_E_INVALID_ARG); /* opcode 3 needs user_metadata_name */
        EXPECT(ae_preauthorize(client, "{\"resources\":[]}", preauthorize_cb, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_preauthorize(client, "{\"resources\": [\"R\"]", preauthorize_cb, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_check_preauthorized_resources(client, "[1,2]", 1), AE_E_INVALID_ARG);
        EXPECT(ae_check_preauthorized_resources(client, "{\"R\": 1}", 1), AE_E_INVALID_ARG);

        section("metrics (1.5)");
        {
            char *text = NULL;
            metric_series = 0;
            EXPECT(ae_client_metrics(client, count_metric, NULL), AE_OK);
            CHECK(metric_series >= 3); /* the label-less counter and histograms, at zero */
            EXPECT(ae_client_metrics(client, NULL, NULL), AE_E_INVALID_ARG);
            EXPECT(ae_client_metrics_text(client, AE_METRICS_PROMETHEUS, &text), AE_OK);
            CHECK(text != NULL && strstr(text, "# TYPE http_client_request_duration_seconds histogram\n") != NULL);
            ae_string_free(text);
            EXPECT(ae_client_metrics_text(client, AE_METRICS_JSON, &text), AE_OK);
            CHECK(text != NULL && strncmp(text, "{\"metrics\":", 11) == 0);
            ae_string_free(text);
            EXPECT(ae_client_metrics_text(client, 0, &text), AE_E_INVALID_ARG);
            CHECK(text == NULL);
            EXPECT(ae_client_metrics_text(client, AE_METRICS_JSON, NULL), AE_E_INVALID_ARG);
            EXPECT(ae_client_set_metrics_push(client, AE_METRICS_PUSH_MIN_MS - 1, metrics_push_cb, NULL), AE_E_INVALID_ARG);
            EXPECT(ae_client_set_metrics_push(client, 0, NULL, NULL), AE_OK); /* stop: nothing to stop */
        }

        section("insecure service provider URL");
        EXPECT(ae_set_requestor(client, "REF30", "[\"http://example.com\"]"), AE_E_INSECURE_URL);

        section("string length limit");
        big = malloc(AE_MAX_STRING_LENGTH + 2);
        CHECK(big != NULL);
        memset(big, 'a', AE_MAX_STRING_LENGTH + 1);
        big[AE_MAX_STRING_LENGTH + 1] = '\0'; /* AE_MAX_STRING_LENGTH + 1 bytes: too long */
        EXPECT(ae_check_authorization(client, big, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_set_requestor(client, big, NULL), AE_E_INVALID_ARG);
        EXPECT(ae_handle_external_url(client, big), AE_E_INVALID_ARG);
        big[AE_MAX_STRING_LENGTH] = '\0'; /* exactly AE_MAX_STRING_LENGTH bytes: accepted, then gated */
        EXPECT(ae_check_authorization(client, big, NULL), AE_E_NO_REQUESTOR);
        free(big);

        section("no callback from refused calls");
        nanosleep(&pause, NULL); /* give a (wrong) callback time to arrive */
        CHECK(callbacks == 0);

        section("destroy, then the same handle");
        ae_client_destroy(client);
        expect_all_invalid_handle(client);
        ae_client_destroy(client); /* a second destroy of the same handle must be harmless */
        checks++;
        EXPECT(ae_check_authentication(other), AE_E_NO_REQUESTOR); /* the other client is untouched */

        section("handles are never reused");
        EXPECT(ae_client_create(&c, &d, &third), AE_OK);
        CHECK(third != NULL && third != client && third != other);
        ae_client_destroy(third);
        ae_client_destroy(other);
        EXPECT(ae_check_authentication(other), AE_E_INVALID_HANDLE);

        section("NULL handle");
        expect_all_invalid_handle(NULL);
        CHECK(callbacks == 0);
    }

    printf("smoke: all %d checks passed (library %s)\n", checks, ae_version_string());
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 *
 * The C example player: the second-screen flow of a set-top box on libaccessenabler, from one
 * poll() loop (event-loop mode: every callback runs on this thread, inside ae_client_dispatch()).
 *
 *   setRequestor → checkAuthentication → getAuthentication → pick a TV provider → show the code,
 *   the activation URL as a QR code and a countdown → the viewer logs in on another device →
 *   getAuthorization → short media token → logout
 *
 * The loop watches four descriptors: ae_client_event_fd() (callbacks are queued), a timerfd (the
 * countdown, once a second), a signalfd (SIGUSR1: print the metrics) and, with --interactive, stdin
 * (the viewer's choices).
 *
 *   c-player --base-url URL [--requestor ID] [--mvpd ID] [--resource ID] [--storage PATH]
 *            [--poll-ms N] [--timeout SECONDS] [--interactive] [--no-qr] [--software-statement JWT]
 *            [--api v2|v1] [--ca-file PEM] [--platform-token FILE] [--keep-session] [--device-id ID]
 *            [--metrics]
 *
 * Unattended (the default) it picks --mvpd (or the first TV provider) and waits for someone to log
 * in at the printed URL: against the emulator started with --auto-login-ms, its simulated viewer
 * does. --interactive asks which provider to use; while the code is shown, "q" cancels.
 * Exit status: 0 when the flow reached the media token and the logout; 1 otherwise; 2 bad usage.
 *
 * Metrics (docs/METRICS.md), an exporter with no library of its own: SIGUSR1 prints the client's
 * metrics in Prometheus's text format to stdout at any time (`kill -USR1 <pid>`), and --metrics
 * prints them once more when the flow ends, before the client is destroyed.
 */
#include "terminal_qr.h"

#include <accessenabler.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* A software statement from the TVE Dashboard; the emulator accepts any JWT-shaped one. */
#define DEMO_SOFTWARE_STATEMENT "eyJhbGciOiJSUzI1NiJ9.eyJzb2Z0d2FyZV9pZCI6ImMtcGxheWVyIn0.c2lnbmF0dXJl"
#define MAX_PROVIDERS 64

struct options {
    const char *base_url;
    const char *requestor;
    const char *mvpd;
    const char *resource;
    const char *storage;
    const char *software_statement;
    const char *ca_file;
    const char *platform_token; /* a file holding the platform's identity token (--platform-token) */
    int keep_session;           /* no logout at the end (--keep-session) */
    const char *device_id;      /* NULL: the machine's (--device-id) */
    int poll_ms;
    int timeout_s;
    int interactive;
    int qr;
    int api_generation; /* AE_API_V2 or AE_API_V1 (--api) */
    int metrics;        /* print the metrics when the flow ends (--metrics) */
};

enum phase { STARTING, CHECKING, LOGGING_IN, AUTHORIZING, LOGGING_OUT, FINISHED };

struct player {
    struct options options;
    ae_client *client;
    enum phase phase;
    int exit_status;
    int got_token;
    /* the provider dialog */
    int choosing;
    int provider_count;
    char providers[MAX_PROVIDERS][128];
    /* the registration code on screen */
    int code_shown;
    char code[64];
    int64_t code_not_after_ms;
    time_t last_countdown;
};

static struct player player;

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void finish(int status) {
    player.exit_status = status;
    player.phase = FINISHED;
}

/* A call the SDK refused at once (no callback follows): say why, and stop. */
static int checked(int32_t status, const char *call) {
    if (status == AE_OK) return 0;
    char *message = ae_last_error_message();
    fprintf(stderr, "%s refused: %s (%s)\n", call, ae_status_string(status), message ? message : "no detail");
    ae_string_free(message);
    finish(1);
    return -1;
}

static void start_authorization(void) {
    player.phase = AUTHORIZING;
    player.code_shown = 0;
    checked(ae_get_authorization(player.client, player.options.resource, NULL), "getAuthorization");
}

static void start_logout(void) {
    player.phase = LOGGING_OUT;
    checked(ae_logout(player.client), "logout");
}

static void select_provider(const char *id) {
    player.choosing = 0;
    printf("selected: %s\n", id ? id : "none (cancelled)");
    checked(ae_set_selected_provider(player.client, id), "setSelectedProvider");
}

/* ---- callbacks (all on this thread, inside ae_client_dispatch) ------------------------------- */

static void on_requestor_complete(int32_t status, void *user_data) {
    (void)user_data;
    if (status != AE_ACCESS_ENABLER_STATUS_SUCCESS) {
        printf("setRequestor failed\n");
        finish(1);
        return;
    }
    printf("setRequestor: done\n");
    player.phase = CHECKING;
    checked(ae_check_authentication(player.client), "checkAuthentication");
}

static void on_authentication_status(int32_t status, const char *error_code, void *user_data) {
    (void)user_data;
    switch (player.phase) {
    case CHECKING:
        printf("checkAuthentication: %s\n", status ? "authenticated (no login needed)" : "not authenticated");
        if (status) {
            start_authorization();
        } else {
            player.phase = LOGGING_IN;
            checked(ae_get_authentication(player.client, 0, NULL, NULL), "getAuthentication");
        }
        break;
    case LOGGING_IN:
        if (player.code_shown && isatty(STDOUT_FILENO)) printf("\n");
        if (!status) {
            printf("getAuthentication failed: %s\n", error_code);
            finish(1);
            break;
        }
        printf("getAuthentication: authenticated\n");
        start_authorization();
        break;
    case LOGGING_OUT:
        printf("logout: done (authenticated = %d)\n", (int)status);
        finish(player.got_token ? 0 : 1);
        break;
    default:
        break; /* the login that getAuthorization may start reports here too */
    }
}

/* A string field of a callback's data, or `fallback` when the callback's data has no such field. */
static const char *field(const ae_payload *view, int32_t name, const char *fallback) {
    const char *value = ae_payload_string(view, name, NULL);
    return value ? value : fallback;
}

/* The provider list, read field by field (ae_callback_payload: no JSON parsing). */
static void on_provider_dialog(const char *mvpds_json, void *user_data) {
    (void)mvpds_json, (void)user_data;
    const ae_payload *providers = ae_callback_payload();
    player.provider_count = 0;
    printf("TV providers:\n");
    for (size_t i = 0; i < ae_payload_count(providers) && player.provider_count < MAX_PROVIDERS; i++) {
        const ae_payload *provider = ae_payload_at(providers, i);
        const char *id = ae_payload_string(provider, AE_FIELD_ID, NULL);
        if (id == NULL || strlen(id) >= sizeof player.providers[0]) continue;
        int32_t temp_pass = 0;
        ae_payload_bool(provider, AE_FIELD_IS_TEMP_PASS, &temp_pass);
        snprintf(player.providers[player.provider_count++], sizeof player.providers[0], "%s", id);
        printf("  %d. %s (%s)%s\n", player.provider_count, field(provider, AE_FIELD_DISPLAY_NAME, id), id,
               temp_pass ? " - TempPass" : "");
    }
    if (player.provider_count == 0) {
        printf("no TV provider to choose from\n");
        select_provider(NULL);
    } else if (player.options.interactive) {
        player.choosing = 1;
        printf("Choose 1-%d (empty cancels): ", player.provider_count);
        fflush(stdout);
    } else {
        select_provider(player.options.mvpd ? player.options.mvpd : player.providers[0]);
    }
}

static void show_code(const ae_payload *status) {
    const char *code = ae_payload_string(status, AE_FIELD_CODE, NULL);
    const char *url = ae_payload_string(status, AE_FIELD_URL, NULL);
    int64_t not_after = 0;
    if (code == NULL || url == NULL || strlen(code) >= sizeof player.code) {
        printf("REGCODE status without a code or URL\n");
        finish(1);
        return;
    }
    snprintf(player.code, sizeof player.code, "%s", code);
    ae_payload_int64(status, AE_FIELD_NOT_AFTER, &not_after); /* 0 when absent: no countdown */
    player.code_not_after_ms = not_after;
    player.code_shown = 1;
    player.last_countdown = 0;
    printf("\n  On your phone or computer, open\n    %s\n  and enter the activation code  %s\n\n", url, player.code);
    if (player.options.qr) {
        if (terminal_qr_print(stdout, url, "    ", isatty(STDOUT_FILENO)) == 0) {
            printf("  (or scan the QR code: it holds the same URL)\n\n");
        } else {
            printf("  (the URL is too long for a QR code)\n\n");
        }
    }
    printf(player.options.interactive ? "waiting for you to log in (q cancels)\n"
                                      : "waiting for the viewer to log in on another device\n");
}

/* The `status` callback (AccessEnabler's EntitlementStatus), read field by field. */
static void on_status(const char *status_json, void *user_data) {
    (void)status_json, (void)user_data;
    const ae_payload *status = ae_callback_payload();
    const char *id = field(status, AE_FIELD_ERROR_ID, "");
    if (strcmp(id, "REGCODE") == 0) {
        show_code(status);
    } else if (strcmp(id, "LOGOUT") == 0 && ae_payload_string(status, AE_FIELD_URL, NULL)) {
        printf("logout: the TV provider's logout page is %s\n", ae_payload_string(status, AE_FIELD_URL, NULL));
    } else {
        const ae_payload *enhanced = ae_payload_child(status, AE_FIELD_ENHANCED_ERROR);
        printf("  [status %s %s] %s", id, field(status, AE_FIELD_LEVEL, ""), field(status, AE_FIELD_MESSAGE, ""));
        if (enhanced) printf(" (Adobe: %s, action %s)", field(enhanced, AE_FIELD_CODE, "?"), field(enhanced, AE_FIELD_ACTION, "?"));
        printf("\n");
    }
}

static void on_token(const char *token, const char *resource, void *user_data) {
    (void)user_data;
    /* A media token is a credential for a few minutes: show enough to recognise it, not all of it. */
    printf("getAuthorization(%s): short media token (%zu characters): %.16s...\n", resource, strlen(token), token);
    player.got_token = 1;
    if (player.options.keep_session) {
        printf("keeping the session (--keep-session): no logout\n");
        finish(0);
        return;
    }
    start_logout();
}

static void on_token_failed(const char *resource, const char *error_code, const char *description, void *user_data) {
    (void)user_data;
    printf("getAuthorization(%s) failed: %s%s%s\n", resource, error_code, *description ? ": " : "", description);
    start_logout();
}

/* ---- the timer and stdin ----------------------------------------------------------------------- */

static void on_tick(void) {
    if (player.phase != LOGGING_IN || !player.code_shown || player.code_not_after_ms <= 0) return;
    int64_t left = (player.code_not_after_ms - now_ms()) / 1000;
    if (left < 0) left = 0;
    if (isatty(STDOUT_FILENO)) {
        printf("\r  code %s expires in %02d:%02d ", player.code, (int)(left / 60), (int)(left % 60));
        fflush(stdout);
    } else if (time(NULL) - player.last_countdown >= 10) { /* a log, not a screen: a line every 10 s */
        player.last_countdown = time(NULL);
        printf("  code %s expires in %02d:%02d\n", player.code, (int)(left / 60), (int)(left % 60));
    }
}

static void on_line(char *line) {
    line[strcspn(line, "\r\n")] = '\0';
    if (player.choosing) {
        char *end;
        long choice = strtol(line, &end, 10);
        if (*line == '\0') {
            select_provider(NULL);
        } else if (*end != '\0' || choice < 1 || choice > player.provider_count) {
            printf("'%s' is not a number from 1 to %d. Choose 1-%d (empty cancels): ", line, player.provider_count,
                   player.provider_count);
            fflush(stdout);
        } else {
            select_provider(player.providers[choice - 1]);
        }
    } else if (player.phase == LOGGING_IN && player.code_shown && strcmp(line, "q") == 0) {
        select_provider(NULL); /* cancels the login: set_authentication_status(0, ...) follows */
    }
}

/* Reads what stdin has and hands over complete lines; returns -1 at end of input. */
static int read_stdin(void) {
    static char buffer[256];
    static size_t used;
    ssize_t got = read(STDIN_FILENO, buffer + used, sizeof buffer - 1 - used);
    if (got <= 0) return got < 0 && errno == EINTR ? 0 : -1;
    used += (size_t)got;
    buffer[used] = '\0';
    char *newline;
    while ((newline = strchr(buffer, '\n'))) {
        *newline = '\0';
        on_line(buffer);
        used -= (size_t)(newline + 1 - buffer);
        memmove(buffer, newline + 1, used + 1);
    }
    if (used == sizeof buffer - 1) used = 0; /* an over-long line: drop it */
    return 0;
}

/* ---- set-up and the loop --------------------------------------------------------------------- */

static void usage(FILE *out) {
    fprintf(out, "usage: c-player --base-url URL [--requestor ID] [--mvpd ID] [--resource ID] [--storage PATH]\n"
                 "                [--poll-ms N] [--timeout SECONDS] [--interactive] [--no-qr] [--software-statement JWT]\n"
                 "                [--api v2|v1] [--ca-file PEM] [--platform-token FILE] [--keep-session] [--device-id ID]\n"
                 "                [--metrics]\n"
                 "SIGUSR1 prints the metrics (Prometheus text) at any time; --metrics once more at the end.\n");
}

static int number_option(const char *name, const char *text, int minimum, int *out) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || *text == '\0' || *end != '\0' || value < minimum || value > 86400000) {
        fprintf(stderr, "c-player: %s wants a whole number >= %d, not '%s'\n", name, minimum, text);
        return -1;
    }
    *out = (int)value;
    return 0;
}

static int parse_options(int argc, char **argv, struct options *options) {
    static const struct option longs[] = {
        {"base-url", required_argument, NULL, 'b'}, {"requestor", required_argument, NULL, 'r'},
        {"mvpd", required_argument, NULL, 'm'},     {"resource", required_argument, NULL, 'R'},
        {"storage", required_argument, NULL, 's'},  {"poll-ms", required_argument, NULL, 'p'},
        {"timeout", required_argument, NULL, 't'},  {"interactive", no_argument, NULL, 'i'},
        {"no-qr", no_argument, NULL, 'n'},          {"software-statement", required_argument, NULL, 'S'},
        {"api", required_argument, NULL, 'a'},      {"help", no_argument, NULL, 'h'},
        {"ca-file", required_argument, NULL, 'c'},  {"platform-token", required_argument, NULL, 'T'},
        {"keep-session", no_argument, NULL, 'k'},   {"device-id", required_argument, NULL, 'd'},
        {"metrics", no_argument, NULL, 'M'},        {NULL, 0, NULL, 0},
    };
    *options = (struct options){.requestor = "REF30", .resource = "LIVE", .poll_ms = 3000, .timeout_s = -1,
                                .qr = 1, .software_statement = DEMO_SOFTWARE_STATEMENT, .api_generation = AE_API_V2};
    int option;
    while ((option = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (option) {
        case 'b': options->base_url = optarg; break;
        case 'r': options->requestor = optarg; break;
        case 'm': options->mvpd = optarg; break;
        case 'R': options->resource = optarg; break;
        case 's': options->storage = optarg; break;
        case 'S': options->software_statement = optarg; break;
        case 'c': options->ca_file = optarg; break;
        case 'T': options->platform_token = optarg; break;
        case 'k': options->keep_session = 1; break;
        case 'd': options->device_id = optarg; break;
        case 'M': options->metrics = 1; break;
        case 'p': if (number_option("--poll-ms", optarg, 1000, &options->poll_ms)) return -1; break;
        case 't': if (number_option("--timeout", optarg, 0, &options->timeout_s)) return -1; break;
        case 'i': options->interactive = 1; break;
        case 'n': options->qr = 0; break;
        case 'a':
            if (strcmp(optarg, "v1") == 0) {
                options->api_generation = AE_API_V1;
            } else if (strcmp(optarg, "v2") == 0) {
                options->api_generation = AE_API_V2;
            } else {
                fprintf(stderr, "c-player: --api takes v2 or v1, not '%s'\n", optarg);
                return -1;
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "c-player: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return -1;
    }
    if (!options->base_url) {
        fprintf(stderr, "c-player: --base-url is required (the emulator prints it: AE_EMULATOR_LISTENING <url>)\n");
        usage(stderr);
        return -1;
    }
    /* Unattended runs end on their own: the code is valid for 30 minutes, a test waits 2. */
    if (options->timeout_s < 0) options->timeout_s = options->interactive ? 0 : 120;
    return 0;
}

static int create_client(void) {
    ae_config config;
    ae_config_init(&config, AE_CONFIG_VERSION);
    config.software_statement = player.options.software_statement;
    config.base_url = player.options.base_url;
    config.ca_file = player.options.ca_file; /* NULL: the system's store only */
    config.storage_path = player.options.storage;
    config.device_id = player.options.device_id; /* NULL: the machine's */
    config.poll_interval_ms = player.options.poll_ms;
    config.api_generation = player.options.api_generation;
    config.callback_mode = AE_CALLBACKS_EVENT_LOOP;
    ae_delegate delegate;
    ae_delegate_init(&delegate, AE_DELEGATE_VERSION);
    delegate.set_requestor_complete = on_requestor_complete;
    delegate.set_authentication_status = on_authentication_status;
    delegate.display_provider_dialog = on_provider_dialog;
    delegate.status = on_status;
    delegate.set_token = on_token;
    delegate.token_request_failed = on_token_failed;
    int32_t status = ae_client_create(&config, &delegate, &player.client);
    if (status != AE_OK) {
        char *message = ae_last_error_message();
        fprintf(stderr, "c-player: cannot create the client: %s (%s)\n", ae_status_string(status),
                message ? message : "no detail");
        ae_string_free(message);
        return -1;
    }
    return 0;
}

/* The platform's identity token (a JWS or JWE in a file, as a platform would hand it to the app): sent
   as Adobe-Subject-Token, so that a second app of the same subject is signed in with no login
   (docs/PLATFORM-SSO.md). Never printed: it is a credential. */
static int give_platform_token(const char *path) {
    FILE *file = fopen(path, "r");
    char token[16 * 1024 + 2];
    size_t length = file ? fread(token, 1, sizeof token - 1, file) : 0;
    if (file) fclose(file);
    while (length > 0 && (token[length - 1] == '\n' || token[length - 1] == '\r' || token[length - 1] == ' ')) length--;
    token[length] = '\0';
    if (length == 0) {
        fprintf(stderr, "c-player: cannot read a token from %s\n", path);
        return -1;
    }
    return checked(ae_set_identity_token(player.client, AE_IDENTITY_TOKEN_PLATFORM, token),
                   "ae_set_identity_token");
}

/* ---- metrics: the Prometheus text exposition, on a signal or at the end ----------------------- */

static void print_metrics(void) {
    char *text = NULL;
    if (checked(ae_client_metrics_text(player.client, AE_METRICS_PROMETHEUS, &text), "ae_client_metrics_text") == 0) {
        fputs(text, stdout);
        fflush(stdout);
    }
    ae_string_free(text);
}

/* SIGUSR1 as a descriptor the loop watches (a signal handler may call no ae_* function). Blocked before
   the client exists, so that the library's threads, which inherit the mask, never take it either. */
static int metrics_signal_fd(void) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &usr1, NULL) != 0) return -1;
    return signalfd(-1, &usr1, SFD_CLOEXEC);
}

int main(int argc, char **argv) {
    if (parse_options(argc, argv, &player.options) != 0) return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    int metrics_fd = metrics_signal_fd();
    if (metrics_fd < 0) {
        perror("c-player: signalfd");
        return 1;
    }
    if (ae_version_number() != AE_VERSION_NUMBER) {
        fprintf(stderr, "c-player: built with accessenabler.h %d but runs with the library %s\n", AE_VERSION_NUMBER,
                ae_version_string());
        return 1;
    }
    if (create_client() != 0) return 1;
    if (player.options.platform_token && give_platform_token(player.options.platform_token) != 0) {
        ae_client_destroy(player.client);
        return 1;
    }
    printf("AccessEnabler for Linux %s (C, event-loop mode) - requestor %s at %s, REST API %s\n", ae_version_string(),
           player.options.requestor, player.options.base_url, player.options.api_generation == AE_API_V1 ? "V1" : "V2");

    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec second = {{1, 0}, {1, 0}};
    if (timer < 0 || timerfd_settime(timer, 0, &second, NULL) != 0) {
        perror("c-player: timerfd");
        ae_client_destroy(player.client);
        return 1;
    }
    int watch_stdin = player.options.interactive;
    time_t deadline = player.options.timeout_s ? time(NULL) + player.options.timeout_s : 0;

    checked(ae_set_requestor(player.client, player.options.requestor, NULL), "setRequestor");
    while (player.phase != FINISHED) {
        struct pollfd watched[4] = {
            {ae_client_event_fd(player.client), POLLIN, 0},
            {timer, POLLIN, 0},
            {metrics_fd, POLLIN, 0},
            {STDIN_FILENO, POLLIN, 0},
        };
        if (poll(watched, watch_stdin ? 4 : 3, -1) < 0) {
            if (errno == EINTR) continue;
            perror("c-player: poll");
            finish(1);
            break;
        }
        if (watched[0].revents & POLLIN) {
            checked(ae_client_dispatch(player.client, NULL), "dispatch"); /* runs the callbacks above */
        }
        if (watched[1].revents & POLLIN) {
            uint64_t expirations;
            if (read(timer, &expirations, sizeof expirations) == (ssize_t)sizeof expirations) on_tick();
            if (deadline && time(NULL) >= deadline && player.phase != FINISHED) {
                printf("\nc-player: gave up after %d s (--timeout)\n", player.options.timeout_s);
                finish(1);
            }
        }
        if (watched[2].revents & POLLIN) {
            struct signalfd_siginfo signal_info;
            if (read(metrics_fd, &signal_info, sizeof signal_info) == (ssize_t)sizeof signal_info) print_metrics();
        }
        if (watch_stdin && (watched[3].revents & (POLLIN | POLLHUP)) && read_stdin() < 0) {
            watch_stdin = 0; /* end of input: nobody will answer any more */
            if (player.choosing) select_provider(NULL);
        }
    }
    if (player.options.metrics) print_metrics();
    ae_client_destroy(player.client); /* no callback runs after this */
    close(timer);
    close(metrics_fd);
    return player.exit_status;
}

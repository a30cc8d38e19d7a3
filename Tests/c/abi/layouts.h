/* SPDX-License-Identifier: Apache-2.0
 *
 * Frozen copies of every earlier layout of the public structs, as a host compiled against that
 * version of accessenabler.h has them. Never edit a frozen layout. When a struct gets a new version
 * (docs/ABI.md): copy today's struct here as ae_<struct>_v<current>, add the new fields to the
 * header after a "version N" marker, and add the new layout's checks below and in old_hosts.c.
 *
 * The checks below fail the build when today's header moved a field of an earlier version:
 * every field keeps its offset, so a host compiled against any earlier header still matches.
 */
#ifndef AE_TEST_LAYOUTS_H
#define AE_TEST_LAYOUTS_H

#include "accessenabler.h"

#include <stddef.h>

/* ------------------------------------------------------------------ ae_config v1 ... v6 */
#define AE_CONFIG_V1_FIELDS                                                                          \
    uint32_t version;                                                                                \
    const char *software_statement;                                                                  \
    const char *base_url;                                                                            \
    int32_t api_generation;                                                                          \
    const char *storage_path;                                                                        \
    const char *device_info_json;                                                                    \
    const char *device_id;                                                                           \
    const char *redirect_url;                                                                        \
    const char *domain_name;                                                                         \
    const char *activation_url;                                                                      \
    int32_t login_mode;                                                                              \
    int32_t poll_interval_ms;                                                                        \
    int32_t preauthorize_limit;                                                                      \
    int32_t connect_timeout_ms;                                                                      \
    int32_t request_timeout_ms;                                                                      \
    int32_t max_requests_per_second;                                                                 \
    ae_log_fn log;                                                                                   \
    void *log_user_data;                                                                             \
    int32_t log_level;
#define AE_CONFIG_V2_FIELDS AE_CONFIG_V1_FIELDS const ae_partner_framework *partner;
#define AE_CONFIG_V3_FIELDS AE_CONFIG_V2_FIELDS int32_t callback_mode; const ae_http_transport *transport;
#define AE_CONFIG_V4_FIELDS AE_CONFIG_V3_FIELDS const uint8_t *store_key; size_t store_key_length; int32_t store_check;
#define AE_CONFIG_V5_FIELDS                                                                          \
    AE_CONFIG_V4_FIELDS const char *ca_file; const char *ca_path; const char *pinned_public_keys;     \
    const char *proxy; int32_t ca_mode; int32_t min_tls_version; int32_t proxy_from_environment;
#define AE_CONFIG_V6_FIELDS AE_CONFIG_V5_FIELDS const ae_identity_provider *identity;

typedef struct { AE_CONFIG_V1_FIELDS } ae_config_v1;
typedef struct { AE_CONFIG_V2_FIELDS } ae_config_v2;
typedef struct { AE_CONFIG_V3_FIELDS } ae_config_v3;
typedef struct { AE_CONFIG_V4_FIELDS } ae_config_v4;
typedef struct { AE_CONFIG_V5_FIELDS } ae_config_v5;
typedef struct { AE_CONFIG_V6_FIELDS } ae_config_v6;

/* ------------------------------------------------------------------ ae_identity_provider v1 (1.2) */
#define AE_IDENTITY_PROVIDER_V1_FIELDS                                                               \
    uint32_t version;                                                                                \
    void *user_data;                                                                                 \
    int32_t timeout_ms;                                                                              \
    int32_t platform_identity;                                                                       \
    int32_t service_token;                                                                           \
    void (*request_token)(int32_t kind, int32_t reason, ae_identity_request *request, void *user_data); \
    void (*cancel_request)(ae_identity_request *request, void *user_data);
typedef struct { AE_IDENTITY_PROVIDER_V1_FIELDS } ae_identity_provider_v1;

/* ------------------------------------------------------------------ ae_partner_framework v1, v2 */
#define AE_PARTNER_V1_FIELDS                                                                         \
    uint32_t version;                                                                                \
    void *user_data;                                                                                 \
    const char *name;                                                                                \
    int32_t timeout_ms;                                                                              \
    void (*check_access_status)(int32_t prompt, ae_partner_request *request, void *user_data);      \
    void (*enqueue_metadata_request)(const char *request_json, ae_partner_request *request, void *user_data);
#define AE_PARTNER_V2_FIELDS AE_PARTNER_V1_FIELDS void (*cancel_request)(ae_partner_request *request, void *user_data);

typedef struct { AE_PARTNER_V1_FIELDS } ae_partner_framework_v1;
typedef struct { AE_PARTNER_V2_FIELDS } ae_partner_framework_v2;

/* ------------------------------------------------------------------ ae_delegate v1 */
typedef struct {
    uint32_t version;
    void *user_data;
    void (*set_requestor_complete)(int32_t status, void *user_data);
    void (*set_authentication_status)(int32_t status, const char *error_code, void *user_data);
    void (*set_token)(const char *token, const char *resource, void *user_data);
    void (*token_request_failed)(const char *resource, const char *error_code, const char *error_description,
                                 void *user_data);
    void (*selected_provider)(const char *mvpd_json, void *user_data);
    void (*display_provider_dialog)(const char *mvpds_json, void *user_data);
    void (*navigate_to_url)(const char *url, void *user_data);
    void (*send_tracking_data)(int32_t event_type, const char *data_json, void *user_data);
    void (*set_metadata_status)(const char *metadata_json, int32_t encrypted, int32_t key,
                                const char *arguments_json, void *user_data);
    void (*preauthorized_resources)(const char *resources_json, void *user_data);
    void (*present_tv_provider_dialog)(const char *dialog_json, void *user_data);
    void (*dismiss_tv_provider_dialog)(const char *dialog_json, void *user_data);
    void (*status)(const char *status_json, void *user_data);
} ae_delegate_v1;

/* ------------------------------------------------------------------ ae_http_transport v1 */
typedef struct {
    uint32_t version;
    void *user_data;
    void (*send)(const char *method, const char *url, const char *const *headers, const uint8_t *body,
                 size_t body_length, int32_t timeout_ms, ae_http_request *request, void *user_data);
    void (*cancel)(ae_http_request *request, void *user_data);
} ae_http_transport_v1;

/* ------------------------------------------------------------------ checks against today's header */
#define AE_SAME_FIELD(old, current, field)                                                           \
    _Static_assert(offsetof(old, field) == offsetof(current, field), #old "." #field " moved in " #current)

/* The newest frozen layout is today's whole struct: a new version must freeze it here first. */
_Static_assert(AE_CONFIG_VERSION == 6 && sizeof(ae_config_v6) == sizeof(ae_config),
               "ae_config has a new version: freeze ae_config_v6's successor in Tests/c/abi/layouts.h");
_Static_assert(AE_IDENTITY_PROVIDER_VERSION == 1 && sizeof(ae_identity_provider_v1) == sizeof(ae_identity_provider),
               "ae_identity_provider has a new version: freeze it in Tests/c/abi/layouts.h");
_Static_assert(AE_PARTNER_FRAMEWORK_VERSION == 2 && sizeof(ae_partner_framework_v2) == sizeof(ae_partner_framework),
               "ae_partner_framework has a new version: freeze it in Tests/c/abi/layouts.h");
_Static_assert(AE_DELEGATE_VERSION == 1 && sizeof(ae_delegate_v1) == sizeof(ae_delegate),
               "ae_delegate has a new version: freeze it in Tests/c/abi/layouts.h");
_Static_assert(AE_HTTP_TRANSPORT_VERSION == 1 && sizeof(ae_http_transport_v1) == sizeof(ae_http_transport),
               "ae_http_transport has a new version: freeze it in Tests/c/abi/layouts.h");

AE_SAME_FIELD(ae_config_v1, ae_config, software_statement);
AE_SAME_FIELD(ae_config_v1, ae_config, base_url);
AE_SAME_FIELD(ae_config_v1, ae_config, api_generation);
AE_SAME_FIELD(ae_config_v1, ae_config, storage_path);
AE_SAME_FIELD(ae_config_v1, ae_config, device_info_json);
AE_SAME_FIELD(ae_config_v1, ae_config, device_id);
AE_SAME_FIELD(ae_config_v1, ae_config, redirect_url);
AE_SAME_FIELD(ae_config_v1, ae_config, domain_name);
AE_SAME_FIELD(ae_config_v1, ae_config, activation_url);
AE_SAME_FIELD(ae_config_v1, ae_config, login_mode);
AE_SAME_FIELD(ae_config_v1, ae_config, poll_interval_ms);
AE_SAME_FIELD(ae_config_v1, ae_config, preauthorize_limit);
AE_SAME_FIELD(ae_config_v1, ae_config, connect_timeout_ms);
AE_SAME_FIELD(ae_config_v1, ae_config, request_timeout_ms);
AE_SAME_FIELD(ae_config_v1, ae_config, max_requests_per_second);
AE_SAME_FIELD(ae_config_v1, ae_config, log);
AE_SAME_FIELD(ae_config_v1, ae_config, log_user_data);
AE_SAME_FIELD(ae_config_v1, ae_config, log_level);
AE_SAME_FIELD(ae_config_v2, ae_config, partner);
AE_SAME_FIELD(ae_config_v3, ae_config, callback_mode);
AE_SAME_FIELD(ae_config_v3, ae_config, transport);
AE_SAME_FIELD(ae_config_v4, ae_config, store_key);
AE_SAME_FIELD(ae_config_v4, ae_config, store_key_length);
AE_SAME_FIELD(ae_config_v4, ae_config, store_check);
AE_SAME_FIELD(ae_config_v5, ae_config, ca_file);
AE_SAME_FIELD(ae_config_v5, ae_config, ca_path);
AE_SAME_FIELD(ae_config_v5, ae_config, pinned_public_keys);
AE_SAME_FIELD(ae_config_v5, ae_config, proxy);
AE_SAME_FIELD(ae_config_v5, ae_config, ca_mode);
AE_SAME_FIELD(ae_config_v5, ae_config, min_tls_version);
AE_SAME_FIELD(ae_config_v5, ae_config, proxy_from_environment);
AE_SAME_FIELD(ae_config_v6, ae_config, identity);

AE_SAME_FIELD(ae_identity_provider_v1, ae_identity_provider, user_data);
AE_SAME_FIELD(ae_identity_provider_v1, ae_identity_provider, timeout_ms);
AE_SAME_FIELD(ae_identity_provider_v1, ae_identity_provider, platform_identity);
AE_SAME_FIELD(ae_identity_provider_v1, ae_identity_provider, service_token);
AE_SAME_FIELD(ae_identity_provider_v1, ae_identity_provider, request_token);
AE_SAME_FIELD(ae_identity_provider_v1, ae_identity_provider, cancel_request);

AE_SAME_FIELD(ae_partner_framework_v1, ae_partner_framework, user_data);
AE_SAME_FIELD(ae_partner_framework_v1, ae_partner_framework, name);
AE_SAME_FIELD(ae_partner_framework_v1, ae_partner_framework, timeout_ms);
AE_SAME_FIELD(ae_partner_framework_v1, ae_partner_framework, check_access_status);
AE_SAME_FIELD(ae_partner_framework_v1, ae_partner_framework, enqueue_metadata_request);
AE_SAME_FIELD(ae_partner_framework_v2, ae_partner_framework, cancel_request);

AE_SAME_FIELD(ae_delegate_v1, ae_delegate, user_data);
AE_SAME_FIELD(ae_delegate_v1, ae_delegate, set_requestor_complete);
AE_SAME_FIELD(ae_delegate_v1, ae_delegate, set_authentication_status);
AE_SAME_FIELD(ae_delegate_v1, ae_delegate, status);

AE_SAME_FIELD(ae_http_transport_v1, ae_http_transport, send);
AE_SAME_FIELD(ae_http_transport_v1, ae_http_transport, cancel);

#endif /* AE_TEST_LAYOUTS_H */

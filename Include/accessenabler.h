/**
 * @file accessenabler.h
 * @brief AccessEnabler for Linux, the C contract.
 *
 * SPDX-License-Identifier: Apache-2.0
 *
 * This header is the contract. If a function, type or constant is not declared here, it is not
 * API. The library implements Adobe's AccessEnabler callback API (setRequestor,
 * checkAuthentication, getAuthentication, getAuthorization, ...) on top of Adobe Pass
 * REST API V2, with AccessEnabler's names, constant values and callback order, so that Adobe's
 * integration guides apply unchanged. Names are the AccessEnabler ones in snake_case with the
 * prefix `ae_` (macros `AE_`).
 *
 * @section rules Rules that hold for every function (read these once)
 *
 * Calls.     Every AccessEnabler call is asynchronous. It checks its arguments, returns an
 *            int32_t status at once (AE_OK = 0, or an AE_E_* code) and, when it returned AE_OK,
 *            delivers its outcome later through the delegate. A call that returns an error
 *            triggers no callback. No call blocks on the network.
 *
 * Order.     Entitlement calls made while setRequestor is in progress are queued and run after
 *            it completes, as Adobe's SDKs do. Calls made before any ae_set_requestor(), or
 *            after one that failed, return AE_E_NO_REQUESTOR and trigger no callback.
 *
 * Threads.   Every function may be called from any thread, including from inside a callback.
 *            Callbacks never run inside the call that caused them. They run on one internal
 *            thread per client, one at a time, in the order they were produced — or, in
 *            event-loop mode, on the host's thread inside ae_client_dispatch(). A callback
 *            should return quickly; a slow callback delays the callbacks behind it, never the
 *            network work.
 *
 * Strings.   Strings passed in are copied before the call returns; the caller may free them
 *            at once. Every string argument must be valid UTF-8, NUL-terminated and at most
 *            AE_MAX_STRING_LENGTH bytes, else the call returns AE_E_INVALID_ARG. Strings passed
 *            to callbacks are borrowed: valid until the callback returns; copy what you keep.
 *            Strings returned to the caller (`char *`) are owned by the caller and freed with
 *            ae_string_free(). `const char *` returns are static.
 *
 * JSON.      Structured values (MVPD lists, metadata, tracking data, statuses, options) travel
 *            as JSON text (RFC 8259, UTF-8).
 *
 * Lifetime.  A client lives from ae_client_create() to ae_client_destroy(). After destroy
 *            returns, no callback of that client runs any more, and any call with the
 *            destroyed handle returns AE_E_INVALID_HANDLE (handles are never reused).
 *            The process may end with clients alive (return from main(), exit()): see
 *            ae_client_destroy().
 *
 * Constants. Integer constants are enums, one per family (status codes, log levels, partner
 *            errors, ...); strings and the numbers the preprocessor tests (versions, limits) are
 *            `#define`s. Every family is append-only: a value is never renumbered, reused or
 *            removed, and a later release may add values, so treat an unknown one as "other".
 *
 * Versions.  Each public struct starts with its `version`, set by its ae_*_init() or AE_*_INIT
 *            to the version of this header; the library reads and writes only that version's
 *            fields and accepts every earlier one (docs/ABI.md).
 *
 * Handles.   Clients, partner requests and HTTP requests are opaque handles: numbers, never
 *            addresses, checked and never dereferenced. Every function that takes one checks it
 *            before its other arguments: a NULL, made-up or stale handle (a destroyed client, a
 *            request already answered, cancelled or timed out), or a handle of another kind,
 *            returns AE_E_INVALID_HANDLE, from any thread, whatever the other arguments.
 *            Load the library once; do not dlclose() it.
 */
#ifndef ACCESSENABLER_H
#define ACCESSENABLER_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
/** Marks a function the library exports (default visibility); every AE_API function is API. */
#define AE_API __attribute__((visibility("default")))
#else
/** Marks a function the library exports (no attribute on this compiler). */
#define AE_API
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(AE_DOXYGEN)
/** Marks an exported function renamed in a 1.x release (not for direct use): it keeps working until
    the next major, and the compiler names its new name. */
#define AE_RENAMED_(replacement, version) __attribute__((deprecated("renamed " replacement " in " version)))
#else
/** Marks an exported function renamed in a 1.x release (no attribute on this compiler). */
#define AE_RENAMED_(replacement, version)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup lifecycle Lifecycle
 *  @brief Versions, the client's configuration, create and destroy, event-loop mode. */
/** @defgroup calls AccessEnabler calls
 *  @brief The calls a host makes on a client: setRequestor, checkAuthentication, getAuthorization, ... */
/** @defgroup callbacks Callbacks
 *  @brief The delegate: AccessEnabler's callbacks and the values they carry. */
/** @defgroup payloads Callback data without JSON
 *  @brief Typed views of what the callbacks carry, read field by field (since 1.4). */
/** @defgroup partner Partner framework
 *  @brief The platform's TV-provider single sign-on (Apple's Video Subscriber Account model, made portable). */
/** @defgroup transport HTTP transport
 *  @brief The host's own HTTP stack instead of libcurl. */
/** @defgroup store Token store
 *  @brief Where the store lives, its key, its checks, and how it was found. */
/** @defgroup diagnostics Diagnostics
 *  @brief What accessenabler-diag asks of a store and of the network, without a client (since 1.5). */
/** @defgroup errors Errors and strings
 *  @brief Status codes, the last error's message, strings the library returns. */
/** @defgroup metrics Metrics
 *  @brief What a fleet watches: request latency, retries, TLS, calls and their outcomes (since 1.5, docs/METRICS.md). */
/** @defgroup abi ABI
 *  @brief Versioned structs, their static initialisers, deprecated names (docs/ABI.md). */

/** @addtogroup lifecycle
 * @{ */

/* ============================================================================================
 * Versions
 * ============================================================================================ */

/** @} */

/** @addtogroup abi
 * @{ */

#if defined(__cplusplus)
/** The static initialisers' common form (AE_CONFIG_INIT, ...; not for direct use): the version, every
    other field 0 / NULL. C++ (11 and later): a value-initialised struct with its version, so that
    -Wmissing-field-initializers has nothing to say. */
#define AE_STRUCT_INIT_(type_, version_) ([] { type_ value_ = {}; value_.version = (version_); return value_; }())
#else
/** The static initialisers' common form (AE_CONFIG_INIT, ...; not for direct use): the version, every
    other field 0 / NULL. C99: a designated initialiser. */
#define AE_STRUCT_INIT_(type_, version_) {.version = (version_)}
#endif

/** @} */

/** @addtogroup lifecycle
 * @{ */


#define AE_VERSION_MAJOR 1 /**< The header's major version: the ABI major (SONAME libaccessenabler.so.1). */
#define AE_VERSION_MINOR 5 /**< The header's minor version: a minor release only adds to the ABI (docs/ABI.md). */
#define AE_VERSION_PATCH 0 /**< The header's patch version: no change to the ABI. */
/** The header's version as one number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define AE_VERSION_NUMBER (AE_VERSION_MAJOR * 10000 + AE_VERSION_MINOR * 100 + AE_VERSION_PATCH)
/** True when the header is at least version x.y.z. */
#define AE_VERSION_AT_LEAST(x, y, z) (AE_VERSION_NUMBER >= ((x) * 10000 + (y) * 100 + (z)))

/**
 * The library's version as "MAJOR.MINOR.PATCH". Check `ae_version_number() == AE_VERSION_NUMBER`
 * at start-up to catch a header/library mismatch.
 *
 * @return The version text.
 * @ownership static; do not free.
 * @thread any.
 * @callbacks none.
 */
AE_API const char *ae_version_string(void);

/**
 * The library's version as MAJOR * 10000 + MINOR * 100 + PATCH (compare with AE_VERSION_NUMBER).
 *
 * @return The version number.
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_version_number(void);

/** @} */

/** @addtogroup errors
 * @{ */

/* ============================================================================================
 * Status codes returned by the functions of this header.
 * Append only: values are never renumbered or removed. Outcomes of the asynchronous work are
 * not status codes: they arrive through the delegate with AccessEnabler's own values.
 * ============================================================================================ */

enum {
    AE_OK = 0,                    /**< accepted (asynchronous calls) or done (synchronous ones) */
    AE_E_INVALID_ARG = 1,         /**< NULL, invalid UTF-8, over-long or malformed argument */
    AE_E_INVALID_HANDLE = 2,      /**< the client or request handle is NULL, unknown or stale (destroyed,
                                        answered, cancelled or timed out) */
    AE_E_UNSUPPORTED_VERSION = 3, /**< a struct's `version` is 0 or newer than this library knows */
    AE_E_NO_REQUESTOR = 4,        /**< no successful ae_set_requestor() yet (or the last one failed) */
    AE_E_STORAGE = 5,             /**< the token store cannot be opened or written */
    AE_E_INSECURE_URL = 6,        /**< a plain http:// URL that is not a loopback address */
    AE_E_INTERNAL = 7,            /**< a bug in the library; the message says where */
    AE_E_STORE_KEY = 8,           /**< the store's records are sealed under another key, or sealed and
                                        no store_key was given (nothing was changed or deleted) */
    AE_E_QUEUE_FULL = 9           /**< AE_MAX_QUEUED_CALLS calls already wait for setRequestor (or the
                                        partner status) to complete: this one is refused, no callback
                                        (since 1.3) */
};

/** The most AccessEnabler calls that wait behind a running ae_set_requestor() (or a partner status
    being asked); the next one returns AE_E_QUEUE_FULL until they drain. Since 1.3. */
#define AE_MAX_QUEUED_CALLS 1000

/**
 * A short English description of a status code ("invalid argument", ...); "unknown status" for
 * values this library does not know.
 *
 * @param status  A status code: AE_OK or an AE_E_* value (any int32_t is accepted).
 * @return The description.
 * @ownership static; do not free.
 * @thread any.
 * @callbacks none.
 */
AE_API const char *ae_status_string(int32_t status);

/**
 * The message of the last failed call made on the calling thread (for instance which argument
 * was invalid and why), or NULL when the last call on this thread succeeded. Only the functions
 * that return an int32_t status set or clear it; the others (ae_version_*, ae_status_string,
 * ae_client_destroy, ae_string_free, this function) leave it as it is. A bad handle is reported
 * before a bad argument.
 *
 * @return The message, or NULL.
 * @ownership owned by the caller; free with ae_string_free().
 * @thread per thread (the message belongs to the thread that made the failed call).
 * @callbacks none.
 */
AE_API char *ae_last_error_message(void);

/**
 * Frees a string returned by this library. NULL is a no-op.
 *
 * @param string  A `char *` this library returned (e.g. by ae_last_error_message()), or NULL.
 * @ownership takes `string`.
 * @thread any.
 * @callbacks none.
 */
AE_API void ae_string_free(char *string);

/** Longest string, in bytes without the NUL, that any argument may have. */
#define AE_MAX_STRING_LENGTH 65536

/** @} */

/** @addtogroup callbacks
 * @{ */

/* ============================================================================================
 * AccessEnabler constants (values as in Adobe's SDKs)
 * ============================================================================================ */

/** set_requestor_complete / set_authentication_status values. */
enum {
    AE_ACCESS_ENABLER_STATUS_ERROR = 0,  /**< failed (a `status` callback before it names the error) */
    AE_ACCESS_ENABLER_STATUS_SUCCESS = 1 /**< done: requestor set, or viewer authenticated */
};

/** Error codes of set_authentication_status and token_request_failed (iOS spellings). */
#define AE_USER_AUTHENTICATED ""                                        /**< authenticated: no error */
#define AE_USER_NOT_AUTHENTICATED_ERROR "User Not Authenticated Error"   /**< no (usable) profile */
#define AE_USER_NOT_AUTHORIZED_ERROR "User Not Authorized Error"         /**< the MVPD or Adobe denied */
#define AE_PROVIDER_NOT_SELECTED_ERROR "Provider Not Selected Error"     /**< the viewer cancelled the provider choice */
#define AE_GENERIC_AUTHENTICATION_ERROR "Generic Authentication Error"   /**< the login failed (code expired, network, ...) */
#define AE_GENERIC_AUTHORIZATION_ERROR "Generic Authorization Error"     /**< the decision failed (network, server) */

/** getMetadata: keys of the key object and the opcodes. */
#define AE_METADATA_OPCODE_KEY "opCode"                 /**< the opcode (a JSON number: AE_METADATA_*) */
#define AE_METADATA_RESOURCE_ID_KEY "resource_id"       /**< the resource of AE_METADATA_AUTHORIZATION */
#define AE_METADATA_USER_META_KEY "user_metadata_name"  /**< the attribute of AE_METADATA_USER_META */
enum {
    AE_METADATA_AUTHENTICATION = 0, /**< authentication expiry */
    AE_METADATA_AUTHORIZATION = 1, /**< authorization expiry for "resource_id" */
    AE_METADATA_DEVICE_ID = 2, /**< the device id, once enabled (AE_OPTION_DEVICE_ID_METADATA; Adobe: disabled by default) */
    AE_METADATA_USER_META = 3 /**< user metadata named by "user_metadata_name" */
};

/** sendTrackingData event types. */
enum {
    AE_TRACKING_AUTHENTICATION = 0, /**< after checkAuthentication / a login */
    AE_TRACKING_AUTHORIZATION = 1,  /**< after an authorization decision */
    AE_TRACKING_MVPD_SELECTION = 2  /**< after setSelectedProvider */
};

/** @} */

/** @addtogroup calls
 * @{ */

/** setOptions keys. */
#define AE_OPTION_PROFILE "applicationProfile" /**< string: the configuration's `profile` */
#define AE_OPTION_VISITOR_ID "visitorID"         /**< string: sent as AP-Visitor-Identifier */
#define AE_OPTION_HANDLE_SVC "handleSVC"         /**< bool: accepted and ignored */
#define AE_OPTION_DEVICE_INFO "device_info"      /**< object, or Base64 of one: replaces X-Device-Info */
#define AE_OPTION_DEVICE_ID_METADATA "deviceIdMetadata" /**< bool: getMetadata opcode 2 answers the device id (default
                                                       false: Adobe enables the device id metadata per integration) */

/** @} */

/** @addtogroup lifecycle
 * @{ */

/* ============================================================================================
 * Configuration
 * ============================================================================================ */

/** API generations (ae_config.api_generation). 0 means the default, AE_API_V2. */
enum {
    AE_API_V1 = 1, /**< the legacy REST API V1 (docs/REST-API-V1.md) */
    AE_API_V2 = 2  /**< REST API V2 (the default) */
};

/** How the viewer logs in (ae_config.login_mode). */
enum {
    AE_LOGIN_SECOND_SCREEN = 0, /**< default: a code and a URL for another device (tvOS style) */
    AE_LOGIN_BROWSER = 1 /**< the host opens navigate_to_url's URL and calls ae_handle_external_url */
};

/** Log levels (ae_config.log). */
enum {
    AE_LOG_ERROR = 0,   /**< failures (the default level) */
    AE_LOG_WARNING = 1, /**< + what the SDK worked around */
    AE_LOG_INFO = 2,    /**< + each flow's steps */
    AE_LOG_DEBUG = 3    /**< + each request and answer (never secrets) */
};

/**
 * Log sink. `message` never contains secrets (client secret, access token, profile attributes,
 * media tokens, SAML).
 *
 * @param level      The message's level: AE_LOG_*.
 * @param message    The message, NUL-terminated UTF-8.
 * @param user_data  ae_config.log_user_data.
 * @ownership `message` is borrowed (valid during the call).
 * @thread called from any of the library's threads. One client's calls are serialized (one at a time,
 * in order; two clients may call their sinks at once).
 * @callbacks called with no lock of the library held, so the sink may call any ae_* function, also
 * one that logs: a message logged while the sink runs is queued and delivered after it returns (never
 * inside it).
 */
typedef void (*ae_log_fn)(int32_t level, const char *message, void *user_data);

/** @} */

/** @addtogroup partner
 * @{ */

/* ============================================================================================
 * Partner framework: the platform's TV-provider single sign-on (Apple's Video Subscriber Account
 * model, made portable). The host implements the two requests below with its platform's SSO
 * service and answers each one later, from any thread, with exactly one ae_partner_request_reply_*()
 * call. A request that gets no reply within `timeout_ms` ends as AE_PARTNER_E_TIMEOUT.
 * ============================================================================================ */

/** Access status of the app to the viewer's TV-provider account (VSAccountAccessStatus values). */
enum {
    AE_PARTNER_ACCESS_NOT_DETERMINED = 0, /**< the viewer was not asked yet */
    AE_PARTNER_ACCESS_RESTRICTED = 1,     /**< the device's policy does not allow it */
    AE_PARTNER_ACCESS_DENIED = 2,         /**< the viewer said no */
    AE_PARTNER_ACCESS_GRANTED = 3         /**< the viewer said yes */
};

/** Whether the viewer is signed in to a TV provider at platform level, as far as the platform knows. */
enum {
    AE_PARTNER_SIGNED_IN_UNKNOWN = -1, /**< the platform cannot tell */
    AE_PARTNER_SIGNED_OUT = 0,         /**< no TV provider account on the platform */
    AE_PARTNER_SIGNED_IN = 1           /**< a TV provider account on the platform */
};

/** Partner errors (ae_partner_request_reply_error). The comment names Apple's VSErrorCode it stands for. */
enum {
    AE_PARTNER_E_UNSUPPORTED_PROVIDER = 1, /**< unsupportedProvider: picked a provider not onboarded; detail = its id */
    AE_PARTNER_E_USER_CANCELLED = 2, /**< userCancelled: the picker was dismissed */
    AE_PARTNER_E_SERVICE_UNAVAILABLE = 3, /**< serviceTemporarilyUnavailable */
    AE_PARTNER_E_REJECTED = 4, /**< providerRejected / rejected */
    AE_PARTNER_E_OTHER_PROVIDER = 5, /**< the viewer chose "Other TV provider" in the picker */
    AE_PARTNER_E_ACCESS_NOT_GRANTED = 6, /**< accessNotGranted */
    AE_PARTNER_E_FAILED = 7, /**< any other platform failure; detail says what */
    AE_PARTNER_E_TIMEOUT = 8 /**< set by the SDK: no reply within timeout_ms */
};

/** One pending partner request (opaque; a number, never an address). Valid until it is answered,
    times out, or the client is destroyed; replies after that return AE_E_INVALID_HANDLE. */
typedef struct ae_partner_request ae_partner_request;

/** The version of ae_partner_framework this header has (docs/ABI.md): 1, + cancel_request in 2. */
#define AE_PARTNER_FRAMEWORK_VERSION 2

/* The types of ae_partner_framework's callbacks (since 1.4; documented at its fields). */
/** The type of ae_partner_framework.check_access_status (see there). Since 1.4. */
typedef void (*ae_partner_check_access_status_fn)(int32_t prompt, ae_partner_request *request, void *user_data);
/** The type of ae_partner_framework.enqueue_metadata_request (see there). Since 1.4. */
typedef void (*ae_partner_enqueue_metadata_request_fn)(const char *request_json, ae_partner_request *request,
                                                      void *user_data);
/** The type of ae_partner_framework.cancel_request (see there). Since 1.4. */
typedef void (*ae_partner_cancel_request_fn)(ae_partner_request *request, void *user_data);

/**
 * The platform's TV-provider SSO, given to ae_client_create() through ae_config.partner (the
 * struct is copied, up to its version's last field; `user_data` is kept). check_access_status and
 * enqueue_metadata_request are required. They are called on an SDK thread, must not block, and are
 * answered later with ae_partner_request_reply_*(). Versions: 1 (the two requests), 2 (+ cancel_request);
 * the library accepts both.
 */
typedef struct ae_partner_framework {
    uint32_t version;   /**< The host's AE_PARTNER_FRAMEWORK_VERSION (set by ae_partner_framework_init or AE_PARTNER_FRAMEWORK_INIT). */
    void *user_data;    /**< Passed back as the last argument of both callbacks. */
    const char *name;   /**< Partner name on the wire (`/sessions/sso/{partner}`). NULL: "Apple". */
    int32_t timeout_ms; /**< Longest wait for a reply. 0: 60000 for requests that may show UI, 10000 for the others. */

    /** checkAccessStatus: `prompt` non-zero lets the platform ask the viewer. Answer with
        ae_partner_request_reply_access_status() or ae_partner_request_reply_error(). */
    ae_partner_check_access_status_fn check_access_status;

    /** enqueue(VSAccountMetadataRequest): `request_json` is {"channelIdentifier" (the SAML issuer:
        https://saml.sp.auth.adobe.com, or https://saml.sp.auth-staging.adobe.com for staging hosts),
        "includeAccountProviderIdentifier", "includeAuthenticationExpirationDate", "isInterruptionAllowed"
        (true: the platform may show its provider picker or login), "supportedAccountProviderIdentifiers",
        "featuredAccountProviderIdentifiers", "attributeNames", "verificationToken" (the SAML request,
        Base64, passed unparsed)} (borrowed). Answer with ae_partner_request_reply_metadata() or ae_partner_request_reply_error(). */
    ae_partner_enqueue_metadata_request_fn enqueue_metadata_request;

    /* version 2 */
    /** Optional (NULL: not told). The SDK stopped waiting for `request` before it was answered: the
        login it belongs to was cancelled (ae_set_selected_provider(NULL), another selection, a new
        setRequestor), it timed out (`timeout_ms`), or the client is being destroyed. The platform
        may dismiss what it shows for it (its picker, its login). A reply to `request` afterwards
        returns AE_E_INVALID_HANDLE. Called once per such request, on an SDK thread or on the thread
        calling ae_client_destroy() (before it returns); must not block and must not reply. */
    ae_partner_cancel_request_fn cancel_request;
} ae_partner_framework;

/** Static initialiser of an ae_partner_framework: every field NULL / 0, the version this header has. */
#define AE_PARTNER_FRAMEWORK_INIT AE_STRUCT_INIT_(ae_partner_framework, AE_PARTNER_FRAMEWORK_VERSION)

/**
 * Sets up `partner` as version `version` of the struct: its fields NULL / 0 and its `version`.
 * Writes no byte past that version's fields (a host compiled against an older header has a
 * shorter struct).
 *
 * @param[out] partner  The struct to set up. Not NULL.
 * @param version       AE_PARTNER_FRAMEWORK_VERSION as the host's header defines it (1 up to this library's).
 * @return AE_OK; AE_E_INVALID_ARG (`partner` NULL); AE_E_UNSUPPORTED_VERSION (0, or newer than this
 *         library's: nothing is written).
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_partner_framework_init(ae_partner_framework *partner, uint32_t version);

/**
 * Answers check_access_status.
 * @param request  The pending request (its handle, as the callback gave it).
 * @param access_status  AE_PARTNER_ACCESS_*.
 * @param signed_in      AE_PARTNER_SIGNED_IN / _OUT / _UNKNOWN.
 * @return AE_OK; AE_E_INVALID_HANDLE (NULL, unknown, already answered, cancelled or timed out: checked
 *         before the other arguments); AE_E_INVALID_ARG (a bad value, or `request` is an
 *         enqueue_metadata_request one: it stays pending).
 * @ownership n/a.
 * @thread any.
 * @callbacks none (the SDK goes on on its own threads).
 */
AE_API int32_t ae_partner_request_reply_access_status(ae_partner_request *request, int32_t access_status, int32_t signed_in);

/**
 * Answers enqueue_metadata_request with the account metadata.
 * @param request  The pending request (its handle, as the callback gave it).
 * @param metadata_json  {"accountProviderIdentifier": string|null, "authenticationExpirationDate": ms since
 *                       the epoch|null, "samlAttributeQueryResponse": string|null} (copied). The SAML text is
 *                       passed as the platform returned it; the SDK cleans it up and encodes it.
 * @return AE_OK; AE_E_INVALID_HANDLE (as for ae_partner_request_reply_access_status); AE_E_INVALID_ARG (not that
 *         object, or `request` is a check_access_status one: it stays pending).
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_partner_request_reply_metadata(ae_partner_request *request, const char *metadata_json);

/**
 * Answers either request with a failure.
 * @param request  The pending request (its handle, as the callback gave it).
 * @param error   AE_PARTNER_E_* (not AE_PARTNER_E_TIMEOUT).
 * @param detail  NULL, or text: the provider id for AE_PARTNER_E_UNSUPPORTED_PROVIDER, else the
 *                platform's message (passed to the host in the advanced status `details`).
 * @return AE_OK; AE_E_INVALID_HANDLE (as for ae_partner_request_reply_access_status); AE_E_INVALID_ARG.
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_partner_request_reply_error(ae_partner_request *request, int32_t error, const char *detail);

/** @} */

/** @addtogroup transport
 * @{ */

/* ============================================================================================
 * HTTP transport (optional): firmware with its own HTTP stack sends the SDK's requests. The SDK
 * calls `send`; the host answers later, from any thread, with exactly one ae_http_request_reply() or
 * ae_http_request_reply_error(). libcurl is used when no transport is given. The host must verify TLS
 * certificates; the SDK only gives it https:// URLs (http:// for loopback addresses only).
 * ============================================================================================ */

/** Transport failures (ae_http_request_reply_error). */
enum {
    AE_HTTP_E_CANNOT_CONNECT = 1, /**< DNS or TCP connect failed: the request was not sent */
    AE_HTTP_E_TIMEOUT = 2, /**< connect or total timeout */
    AE_HTTP_E_TLS = 3, /**< TLS handshake or certificate verification failed */
    AE_HTTP_E_FAILED = 4 /**< anything else after the request was sent (reset, truncated body) */
};

/** One HTTP exchange in flight (opaque; a number, never an address). */
typedef struct ae_http_request ae_http_request;

/** The version of ae_http_transport this header has (docs/ABI.md). */
#define AE_HTTP_TRANSPORT_VERSION 1

/* The types of ae_http_transport's callbacks (since 1.4; documented at its fields). */
/** The type of ae_http_transport.send (see there). Since 1.4. */
typedef void (*ae_http_send_fn)(const char *method, const char *url, const char *const *headers,
                                const uint8_t *body, size_t body_length, int32_t timeout_ms,
                                ae_http_request *request, void *user_data);
/** The type of ae_http_transport.cancel (see there). Since 1.4. */
typedef void (*ae_http_cancel_fn)(ae_http_request *request, void *user_data);

/**
 * The host's HTTP stack, given to ae_client_create() through ae_config.transport (the struct is
 * copied, up to its version's last field; `user_data` is kept). `send` is required.
 */
typedef struct ae_http_transport {
    uint32_t version; /**< The host's AE_HTTP_TRANSPORT_VERSION (set by ae_http_transport_init or AE_HTTP_TRANSPORT_INIT). */
    void *user_data;  /**< Passed back as the last argument of both callbacks. */

    /** Sends one request (required). All arguments are borrowed for the duration of the call: copy
        what you keep. `headers` is a NULL-terminated array of "Name: value" strings; `body` may be NULL
        (body_length 0). `timeout_ms` is the whole exchange's budget. Called on an SDK thread; must not block.
        Never called once ae_client_destroy() has returned (destroy waits for a `send` running on
        another thread). */
    ae_http_send_fn send;

    /** Optional: the SDK no longer needs the answer (client destroyed, flow cancelled, timed out). The
        host may still reply; the reply is then refused with AE_E_INVALID_HANDLE. Called at most once per
        request the host got in `send`, on an SDK thread or, for the requests in flight at destroy, on the
        thread calling ae_client_destroy() (before it returns); never after destroy has returned. Must
        not block. */
    ae_http_cancel_fn cancel;
} ae_http_transport;

/** Static initialiser of an ae_http_transport: every field NULL, the version this header has. */
#define AE_HTTP_TRANSPORT_INIT AE_STRUCT_INIT_(ae_http_transport, AE_HTTP_TRANSPORT_VERSION)

/**
 * Sets up `transport` as version `version` of the struct: its fields NULL and its `version`.
 * Writes no byte past that version's fields.
 *
 * @param[out] transport  The struct to set up. Not NULL.
 * @param version         AE_HTTP_TRANSPORT_VERSION as the host's header defines it (1 up to this library's).
 * @return AE_OK; AE_E_INVALID_ARG (`transport` NULL); AE_E_UNSUPPORTED_VERSION (0, or newer than this
 *         library's: nothing is written).
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_http_transport_init(ae_http_transport *transport, uint32_t version);

/**
 * Answers `send` with an HTTP response.
 * @param request  The pending request (its handle, as the callback gave it).
 * @param status       The HTTP status (100–599).
 * @param headers      NULL, or a NULL-terminated array of "Name: value" strings (copied).
 * @param body         The body (copied); NULL when body_length is 0. Bodies over 4 MiB (body_length
 *                     > 4194304, SIZE_MAX included) are refused as too large: nothing is read from
 *                     `body`, the call returns AE_OK and the exchange ends with an error, as with libcurl.
 * @param body_length  Bytes at `body` (0 when `body` is NULL).
 * @return AE_OK; AE_E_INVALID_HANDLE (NULL, unknown, answered, cancelled or timed out: checked before the
 *         other arguments); AE_E_INVALID_ARG.
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_http_request_reply(ae_http_request *request, int32_t status, const char *const *headers,
                             const uint8_t *body, size_t body_length);

/**
 * Answers `send` with a failure (AE_HTTP_E_*); `message` (nullable, copied) is logged.
 * @param request  The pending request (its handle, as the callback gave it).
 * @param error    AE_HTTP_E_*.
 * @param message  NULL, or text saying what failed (copied; logged).
 * @return AE_OK; AE_E_INVALID_HANDLE (as for ae_http_request_reply); AE_E_INVALID_ARG.
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_http_request_reply_error(ae_http_request *request, int32_t error, const char *message);

/** @} */

/** @addtogroup lifecycle
 * @{ */

/** How callbacks are delivered (ae_config.callback_mode). */
enum {
    AE_CALLBACKS_THREAD = 0, /**< default: on the client's callback thread */
    AE_CALLBACKS_EVENT_LOOP = 1 /**< queued; the host runs them with ae_client_dispatch() */
};

/** @} */

/** @addtogroup store
 * @{ */

/** The check of the token store at create (ae_config.store_check): the iOS SDK's storage
    integrity check (IntegrityCheckType), plus a quick check as the default. A damaged file found
    by any of them (or one SQLite cannot read at all, whatever the option) is moved aside to
    `<storage_path>.corrupt-<ms>` (with its -wal and -shm) and a new store is started; the client
    is created and ae_client_store_status() says AE_STORE_RECOVERED. */
enum {
    AE_STORE_CHECK_QUICK = 0, /**< default: PRAGMA quick_check (well under 1 ms on a store this size) */
    AE_STORE_CHECK_NONE = 1, /**< INTEGRITY_CHECK_NONE: no check beyond opening */
    AE_STORE_CHECK_ALL = 2, /**< INTEGRITY_CHECK_ALL: full PRAGMA integrity_check; on failure, a new store */
    AE_STORE_CHECK_CLEAR = 3 /**< INTEGRITY_CHECK_CLEAR: this app's records are cleared at every create */
};

/** Length in bytes of ae_config.store_key (AES-256). */
#define AE_STORE_KEY_LENGTH 32

/** @} */

/** @addtogroup lifecycle
 * @{ */

/** Which CA certificates verify Adobe's (ae_config.ca_mode). Verification itself is never off. */
enum {
    AE_CA_WITH_SYSTEM = 0, /**< default: ca_file / ca_path beside the system's store */
    AE_CA_ONLY = 1         /**< ca_file / ca_path only (an operator whose network re-signs TLS) */
};

/** The oldest TLS version the client accepts (ae_config.min_tls_version). */
enum {
    AE_TLS_1_2 = 0, /**< default: TLS 1.2 and 1.3 */
    AE_TLS_1_3 = 1  /**< TLS 1.3 only */
};

/** @addtogroup partner
 * @{ */

/** A pending request for a single sign-on token (opaque). Valid until answered, timed out or cancelled. */
typedef struct ae_identity_request ae_identity_request;

/** Why the SDK asks for a single sign-on token (ae_identity_provider.request_token). Since 1.2. */
enum {
    AE_IDENTITY_REASON_NEEDED = 0,   /**< setRequestor, with no valid token of that kind */
    AE_IDENTITY_REASON_EXPIRING = 1, /**< the token passes its `exp` within a minute (or has) */
    AE_IDENTITY_REASON_REFUSED = 2   /**< Adobe refused it: the SDK went on without it (status SSO400) */
};

/** The version of ae_identity_provider this header has (docs/ABI.md): 1 (1.2). */
#define AE_IDENTITY_PROVIDER_VERSION 1

/* The types of ae_identity_provider's callbacks (since 1.4; documented at its fields). */
/** The type of ae_identity_provider.request_token (see there). Since 1.4. */
typedef void (*ae_identity_request_token_fn)(int32_t kind, int32_t reason, ae_identity_request *request,
                                             void *user_data);
/** The type of ae_identity_provider.cancel_request (see there). Since 1.4. */
typedef void (*ae_identity_cancel_request_fn)(ae_identity_request *request, void *user_data);

/**
 * Where the SDK asks for single sign-on tokens (docs/PLATFORM-SSO.md): the pull form of
 * ae_set_identity_token(), for platforms that issue tokens on demand. The SDK asks at
 * ae_set_requestor() for each kind the host gives and has no valid token of (and waits for the
 * answers, at most `timeout_ms`, before the profiles call, which then carries them), in the
 * background when a token it holds nears its `exp`, and after Adobe refused one. Pointed to by
 * ae_config.identity (version 6); the struct is copied at ae_client_create(). Since 1.2.
 */
typedef struct ae_identity_provider {
    uint32_t version;          /**< The host's AE_IDENTITY_PROVIDER_VERSION (ae_identity_provider_init or AE_IDENTITY_PROVIDER_INIT). */
    void *user_data;           /**< Passed back as the last argument of both callbacks. */
    int32_t timeout_ms;        /**< Longest wait for a reply. 0: 10000; at most 600000. Negative: AE_E_INVALID_ARG. */
    int32_t platform_identity; /**< Non-zero: the host can give AE_IDENTITY_TOKEN_PLATFORM tokens. */
    int32_t service_token;     /**< Non-zero: the host can give AE_IDENTITY_TOKEN_SERVICE tokens. */

    /** Required. The SDK needs a token of `kind` (AE_IDENTITY_TOKEN_*) for `reason`
        (AE_IDENTITY_REASON_*). Answer with ae_identity_request_reply(), now or later, from any thread;
        must not block. Called on an SDK thread. */
    ae_identity_request_token_fn request_token;

    /** Optional (NULL: not told). The SDK stopped waiting for `request` (it timed out, or the client is
        being destroyed); a reply afterwards returns AE_E_INVALID_HANDLE. Called once per such request,
        on an SDK thread or on the thread calling ae_client_destroy() (before it returns). Must not
        block or reply. */
    ae_identity_cancel_request_fn cancel_request;
} ae_identity_provider;

/** Static initialiser of an ae_identity_provider: every field NULL / 0, the version this header has. */
#define AE_IDENTITY_PROVIDER_INIT AE_STRUCT_INIT_(ae_identity_provider, AE_IDENTITY_PROVIDER_VERSION)

/**
 * Sets up `provider` as version `version` of the struct: its fields NULL / 0 and its `version`. Writes
 * no byte past that version's fields.
 *
 * @param[out] provider  The struct to set up. Not NULL.
 * @param version        AE_IDENTITY_PROVIDER_VERSION as the host's header defines it.
 * @return AE_OK; AE_E_INVALID_ARG (`provider` NULL); AE_E_UNSUPPORTED_VERSION (0, or newer than this
 *         library's: nothing is written).
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 * @since 1.2 (symbol version AE_1.2).
 */
AE_API int32_t ae_identity_provider_init(ae_identity_provider *provider, uint32_t version);

/**
 * Answers request_token with a token, or with none (`token` NULL: the SDK goes on without single
 * sign-on of that kind). The token is checked as ae_set_identity_token() checks it; one that
 * fails the checks is not used (the host hears of it through a `status` SSO400, `details`
 * "sdk_check"), and the reply still ends the request.
 *
 * @param request  The pending request (its handle, as the callback gave it).
 * @param token    The compact serialisation, NUL-terminated UTF-8, or NULL.
 * @return AE_OK; AE_E_INVALID_HANDLE (NULL, unknown, already answered, cancelled or timed out: judged
 *         first); AE_E_INVALID_ARG (`token` not UTF-8 or over AE_MAX_STRING_LENGTH bytes, the rule of
 *         every string argument: nothing is taken and the request stays pending, to be answered again).
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 * @since 1.2 (symbol version AE_1.2).
 */
AE_API int32_t ae_identity_request_reply(ae_identity_request *request, const char *token);

/** @} */

/** The version of ae_config this header has (docs/ABI.md): 1, + partner in 2, + callback_mode and
    transport in 3, + store_key, store_key_length and store_check in 4, + the TLS and proxy options
    in 5 (1.1), + identity in 6 (1.2). */
#define AE_CONFIG_VERSION 6

/**
 * Client configuration, read by ae_client_create() (strings are copied; the struct may be freed
 * after the call). Set it up with ae_config_init() or AE_CONFIG_INIT, which state the version the
 * host was compiled with; a NULL or 0 field means "the default" below. The library reads only the
 * fields of the struct's version (a struct of an earlier version is shorter) and gives every later
 * field its default.
 */
typedef struct ae_config {
    uint32_t version;               /**< The host's AE_CONFIG_VERSION (set by ae_config_init or AE_CONFIG_INIT). */
    const char *software_statement; /**< Required: the software statement (JWT) from the TVE Dashboard. */
    const char *base_url;           /**< Adobe Pass host. Default "https://sp.auth.adobe.com" (V2) or
                                         "https://api.auth.adobe.com" (V1); plain http:// only for
                                         loopback (emulators, tests). */
    int32_t api_generation;         /**< AE_API_V2 (default) or AE_API_V1, the legacy REST API V1 (until Adobe
                                         retires it, end of 2026): the calls and callbacks are the same;
                                         docs/REST-API-V1.md says what differs on the wire. */
    const char *storage_path;       /**< SQLite file shared by the app's processes. NULL: in memory,
                                         nothing persists. The directory must exist. */
    const char *device_info_json;   /**< X-Device-Info as a JSON object (keys of Adobe's "Passing Device
                                         and Connection Information": model, version, osName, osVersion,
                                         connectionType required). NULL: derived from uname(2). */
    const char *device_id;          /**< Stable device id. NULL: derived once from /etc/machine-id (hashed)
                                         and stored. Changing it invalidates every profile (SEC412). */
    const char *redirect_url;       /**< Where the MVPD login ends (DCR redirect_uri, sessions redirectUrl,
                                         V1 redirect_url). NULL: "adobepass://android.app", as Adobe's
                                         native SDKs use when the programmer configures none. */
    const char *domain_name;        /**< sessions domainName (V1: domain_name). NULL: the requestor's first domain. */
    const char *activation_url;     /**< The programmer's own activation site, echoed in the REGCODE status. */
    int32_t login_mode;             /**< AE_LOGIN_SECOND_SCREEN (default) or AE_LOGIN_BROWSER. */
    int32_t poll_interval_ms;       /**< Second-screen polling interval. 0: 4000. Clamped to 3000–60000 (Adobe
                                         documents 3–5 s); a loopback base_url (an emulator) may go down to 1000. */
    int32_t preauthorize_limit;     /**< Resources per preauthorization request. 0: 5 (Adobe's default). */
    int32_t connect_timeout_ms;     /**< 0: 10000. */
    int32_t request_timeout_ms;     /**< Whole request. 0: 30000. */
    int32_t max_requests_per_second; /**< Client-side pacing after a burst of 10 (Adobe's throttle is
                                         1/s). 0: 1. -1: no pacing (tests, benchmarks). */
    ae_log_fn log;                  /**< Optional log sink. */
    void *log_user_data;            /**< Passed back to `log`. */
    int32_t log_level;              /**< Highest level passed to `log`. 0 (AE_LOG_ERROR) up to AE_LOG_DEBUG. */
    /* version 2 */
    const ae_partner_framework *partner; /**< Optional platform SSO (copied at create). NULL: none. */
    /* version 3 */
    int32_t callback_mode;               /**< AE_CALLBACKS_THREAD (default) or AE_CALLBACKS_EVENT_LOOP. */
    const ae_http_transport *transport;  /**< Optional host HTTP stack (copied at create). NULL: libcurl. */
    /* version 4 */
    const uint8_t *store_key;  /**< NULL: the store is not encrypted (file mode 0600; logged once at warning
                                    level). Else AE_STORE_KEY_LENGTH bytes (copied): the app's secrets in
                                    the store (client secret, access token, profiles and their attributes)
                                    are sealed with AES-256-GCM. The first create with a key seals what an
                                    unencrypted store held; a different key, or no key for a sealed store,
                                    fails with AE_E_STORE_KEY and changes nothing. Every process of the app
                                    must give the same key. Keep it out of the file system's reach (e.g. a
                                    hardware-backed keystore). */
    size_t store_key_length;   /**< Bytes at store_key: AE_STORE_KEY_LENGTH (else AE_E_INVALID_ARG). */
    int32_t store_check;       /**< AE_STORE_CHECK_QUICK (default), _NONE, _ALL or _CLEAR. */
    /* version 5 (1.1): TLS and proxy, for libcurl (a host transport verifies TLS itself) */
    const char *ca_file;            /**< NULL: none. A PEM file of CA certificates to trust (an operator's
                                         bundle), beside the system's store or instead of it (ca_mode). Read
                                         at create: a file that cannot be read or holds no certificate is
                                         AE_E_INVALID_ARG. */
    const char *ca_path;            /**< NULL: none. A directory of CA certificates in OpenSSL's hashed form
                                         (`openssl rehash`), beside ca_file; not a readable directory:
                                         AE_E_INVALID_ARG. */
    const char *pinned_public_keys; /**< NULL: no pinning. SHA-256 pins of the server's public key in
                                         libcurl's CURLOPT_PINNEDPUBLICKEY form, "sha256//<base64>" separated
                                         by ";": the key must be one of them, on top of verification. A
                                         mismatch fails with SEC420, cause "pinned_key_mismatch". */
    const char *proxy;              /**< NULL: no proxy. "http://host:port" (also https, socks4, socks4a,
                                         socks5, socks5h); TLS to Adobe goes through it (CONNECT). */
    int32_t ca_mode;                /**< AE_CA_WITH_SYSTEM (default) or AE_CA_ONLY (ca_file or ca_path needed). */
    int32_t min_tls_version;        /**< AE_TLS_1_2 (default) or AE_TLS_1_3. */
    int32_t proxy_from_environment; /**< 0 (default): the environment's proxy variables (https_proxy,
                                         http_proxy, all_proxy, no_proxy) are ignored, so a firmware
                                         daemon's environment cannot redirect it; non-zero: honoured as
                                         libcurl does, when `proxy` is NULL. */

    /* version 6 */
    const ae_identity_provider *identity; /**< NULL: none (the host may still set tokens with
                                               ae_set_identity_token()). Copied at create. */
} ae_config;

/** Static initialiser of an ae_config: every field 0 / NULL (the defaults), the version this header has. */
#define AE_CONFIG_INIT AE_STRUCT_INIT_(ae_config, AE_CONFIG_VERSION)

/**
 * Sets up `config` as version `version` of the struct: every field of that version 0 / NULL (the
 * defaults) and its `version`. Writes no byte past that version's fields: a host compiled against
 * an older header passes its own, shorter struct with its own AE_CONFIG_VERSION.
 *
 *     ae_config config;
 *     ae_config_init(&config, AE_CONFIG_VERSION);
 *
 * @param[out] config  The struct to set up. Not NULL.
 * @param version      AE_CONFIG_VERSION as the host's header defines it (1 up to this library's).
 * @return AE_OK; AE_E_INVALID_ARG (`config` NULL); AE_E_UNSUPPORTED_VERSION (0, or newer than this
 *         library's: the message names both versions, and nothing is written).
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_config_init(ae_config *config, uint32_t version);

/** @} */

/** @addtogroup callbacks
 * @{ */

/* ============================================================================================
 * Delegate: AccessEnabler's callbacks (EntitlementDelegate + EntitlementStatus)
 *
 * Every callback is optional (NULL: the event is dropped). Every callback gets the delegate's
 * `user_data` as its last argument. String arguments are borrowed (valid until the callback
 * returns). Thread: the client's callback thread, one callback at a time, in order.
 * A callback may call any function of this header, including ae_client_destroy() on its own
 * client (destroy then returns without waiting for the callback thread; no further callback runs).
 * ============================================================================================ */

/** The version of ae_delegate this header has (docs/ABI.md). */
#define AE_DELEGATE_VERSION 1

/* The types of ae_delegate's callbacks (since 1.4; documented at its fields). */
/** The type of ae_delegate.set_requestor_complete (see there). Since 1.4. */
typedef void (*ae_delegate_set_requestor_complete_fn)(int32_t status, void *user_data);
/** The type of ae_delegate.set_authentication_status (see there). Since 1.4. */
typedef void (*ae_delegate_set_authentication_status_fn)(int32_t status, const char *error_code,
                                                         void *user_data);
/** The type of ae_delegate.set_token (see there). Since 1.4. */
typedef void (*ae_delegate_set_token_fn)(const char *token, const char *resource, void *user_data);
/** The type of ae_delegate.token_request_failed (see there). Since 1.4. */
typedef void (*ae_delegate_token_request_failed_fn)(const char *resource, const char *error_code,
                                                    const char *error_description, void *user_data);
/** The type of ae_delegate.selected_provider (see there). Since 1.4. */
typedef void (*ae_delegate_selected_provider_fn)(const char *mvpd_json, void *user_data);
/** The type of ae_delegate.display_provider_dialog (see there). Since 1.4. */
typedef void (*ae_delegate_display_provider_dialog_fn)(const char *mvpds_json, void *user_data);
/** The type of ae_delegate.navigate_to_url (see there). Since 1.4. */
typedef void (*ae_delegate_navigate_to_url_fn)(const char *url, void *user_data);
/** The type of ae_delegate.send_tracking_data (see there). Since 1.4. */
typedef void (*ae_delegate_send_tracking_data_fn)(int32_t event_type, const char *data_json, void *user_data);
/** The type of ae_delegate.set_metadata_status (see there). Since 1.4. */
typedef void (*ae_delegate_set_metadata_status_fn)(const char *metadata_json, int32_t encrypted, int32_t key,
                                                   const char *arguments_json, void *user_data);
/** The type of ae_delegate.preauthorized_resources (see there). Since 1.4. */
typedef void (*ae_delegate_preauthorized_resources_fn)(const char *resources_json, void *user_data);
/** The type of ae_delegate.present_tv_provider_dialog (see there). Since 1.4. */
typedef void (*ae_delegate_present_tv_provider_dialog_fn)(const char *dialog_json, void *user_data);
/** The type of ae_delegate.dismiss_tv_provider_dialog (see there). Since 1.4. */
typedef void (*ae_delegate_dismiss_tv_provider_dialog_fn)(const char *dialog_json, void *user_data);
/** The type of ae_delegate.status (see there). Since 1.4. */
typedef void (*ae_delegate_status_fn)(const char *status_json, void *user_data);

/**
 * The host's callbacks, given to ae_client_create() (the struct is copied, up to its version's last
 * field; `user_data` is kept). Every callback is optional.
 */
typedef struct ae_delegate {
    uint32_t version; /**< The host's AE_DELEGATE_VERSION (set by ae_delegate_init or AE_DELEGATE_INIT). */
    void *user_data;  /**< Passed back as the last argument of every callback. */

    /** setRequestorComplete: `status` is AE_ACCESS_ENABLER_STATUS_SUCCESS (1) or _ERROR (0); on 0 a
        `status` callback before it names the error. */
    ae_delegate_set_requestor_complete_fn set_requestor_complete;

    /** setAuthenticationStatus: `status` 1 (authenticated, `error_code` "") or 0 with one of the
        AE_*_ERROR strings. */
    ae_delegate_set_authentication_status_fn set_authentication_status;

    /** setToken: the short media token (Base64, as Adobe issues it; verify it with Adobe's Media Token
        Verifier; never cache it) for `resource`. */
    ae_delegate_set_token_fn set_token;

    /** tokenRequestFailed: `error_code` is an AE_*_ERROR string; `error_description` the MVPD's or
        Adobe's message ("" if none). While Adobe is failing the SDK answers at once without sending
        (the `status` before it: enhanced error `service_unavailable`, docs/OUTAGE.md); a host that
        calls again on failure should wait a random time (a fixed delay keeps a fleet in step). */
    ae_delegate_token_request_failed_fn token_request_failed;

    /** selectedProvider: the current MVPD as a JSON object (see display_provider_dialog), or NULL. */
    ae_delegate_selected_provider_fn selected_provider;

    /** displayProviderDialog: JSON array of MVPD objects {"ID", "displayName", "logoURL",
        "isTempPass", "enablePlatformServices", "boardingStatus"}; answer with ae_set_selected_provider()
        (NULL to cancel). */
    ae_delegate_display_provider_dialog_fn display_provider_dialog;

    /** navigateToUrl: open `url` in a browser (AE_LOGIN_BROWSER mode only). */
    ae_delegate_navigate_to_url_fn navigate_to_url;

    /** sendTrackingData: `event_type` AE_TRACKING_*; `data_json` a JSON array of strings (Adobe's data
        arrays, e.g. authentication: [success, mvpd, guid, cached, deviceType, clientType, os]). */
    ae_delegate_send_tracking_data_fn send_tracking_data;

    /** setMetadataStatus: `metadata_json` is the value as JSON (NULL when unavailable): opcodes 0 and 1 a
        number, the expiry in milliseconds since the Unix epoch; opcode 2 a string (NULL, after a META403
        status, until setOptions "deviceIdMetadata" enables it); opcode 3 the attribute's
        value (string, number or array). `encrypted` is 1 when a user metadata value is encrypted with
        the programmer's key. `key` is the opcode; `arguments_json` the key object given to getMetadata. */
    ae_delegate_set_metadata_status_fn set_metadata_status;

    /** preauthorizedResources: JSON array of the resources the viewer may watch (UI hints only). */
    ae_delegate_preauthorized_resources_fn preauthorized_resources;

    /** presentTvProviderDialog: the partner framework's provider picker is about to show; `dialog_json` is
        {"partner", "supportedAccountProviderIdentifiers", "featuredAccountProviderIdentifiers"}. */
    ae_delegate_present_tv_provider_dialog_fn present_tv_provider_dialog;

    /** dismissTvProviderDialog: the partner picker is gone. */
    ae_delegate_dismiss_tv_provider_dialog_fn dismiss_tv_provider_dialog;

    /** status (EntitlementStatus): advanced status as a JSON object {"errorId", "level" ("info", "warning",
        "error"), "message", "details"?, ...} plus, when it came from Adobe's enhanced error codes,
        "enhancedError": {"status", "code", "action", "message"?, "details"?, "helpUrl"?, "trace"?}.
        REGCODE (second screen) adds "code", "url", "activationUrl", "notAfter". With a partner framework:
        VSA403 / VSA404 (permission denied / undetermined), APPL (setRequestor) and APPL_ERROR
        (checkAuthentication; `details` has the partner's error) — spelled as Adobe's Apple SSO cookbook
        spells them (its error table writes AAPL / AAPL_ERROR) —, VSA503, N003, N004, N005 (getAuthentication
        falls back to display_provider_dialog with exactly one of them), VSA203 (logout of a partner profile:
        the viewer must also sign out in the platform's TV provider settings). See docs/ERRORS.md.
        Other spellings: a status Adobe's documents spell in more than one way carries the others in
        "aliases" (an array of strings): APPL has "aliases": ["AAPL"], APPL_ERROR "aliases": ["AAPL_ERROR"]
        (Adobe's error table writes AAPL / AAPL_ERROR). A host ported from iOS matches either spelling
        with: errorId == X, or X in aliases. */
    ae_delegate_status_fn status;
} ae_delegate;

/** Static initialiser of an ae_delegate: every callback NULL, the version this header has. */
#define AE_DELEGATE_INIT AE_STRUCT_INIT_(ae_delegate, AE_DELEGATE_VERSION)

/**
 * Sets up `delegate` as version `version` of the struct: every callback and `user_data` NULL, and
 * its `version`. Writes no byte past that version's fields. Callbacks added in later versions are
 * absent for a delegate of an earlier one: the library never calls past its version's fields.
 *
 * @param[out] delegate  The struct to set up. Not NULL.
 * @param version        AE_DELEGATE_VERSION as the host's header defines it (1 up to this library's).
 * @return AE_OK; AE_E_INVALID_ARG (`delegate` NULL); AE_E_UNSUPPORTED_VERSION (0, or newer than this
 *         library's: nothing is written).
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_delegate_init(ae_delegate *delegate, uint32_t version);

/** @} */

/** @addtogroup lifecycle
 * @{ */

/* ============================================================================================
 * Client
 * ============================================================================================ */

/** Opaque client: one per application instance, as with Adobe's SDKs. */
typedef struct ae_client ae_client;

/**
 * Creates a client: opens (or creates) the token store, reads or derives the device id. No
 * network. Several clients may exist in one process and share one store file.
 *
 * @param[in]  config    Configuration (copied). Not NULL.
 * @param[in]  delegate  Callbacks (the struct is copied; `user_data` is kept). Not NULL.
 * @param[out] out       Receives the client. Not NULL. Set to NULL on failure.
 * @return AE_OK; AE_E_INVALID_ARG (bad field: see ae_last_error_message), AE_E_UNSUPPORTED_VERSION,
 *         AE_E_INSECURE_URL, AE_E_STORAGE, AE_E_STORE_KEY.
 * @ownership the client is owned by the caller; release it with ae_client_destroy().
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_client_create(const ae_config *config, const ae_delegate *delegate, ae_client **out);

/**
 * Destroys a client: cancels its requests and polling (a host transport's `cancel`, a partner's or
 * identity provider's `cancel_request` are called for the requests in flight, before it returns),
 * waits until no callback of it can run (except when called from inside one of its callbacks),
 * closes its store. The completions of ae_preauthorize() calls not answered yet are called here,
 * on this thread, before it returns (each exactly once: every resource denied with, and "status",
 * the enhanced error {"status": 0, "code": "client_destroyed", "action": "none"}). After it
 * returns, none of the host's functions given to this client (delegate, log sink, transport,
 * partner, identity provider) is called again. NULL is a no-op.
 *
 * @param client  The client (from ae_client_create()), or NULL.
 * @ownership takes `client`; the handle is invalid afterwards (calls with it return
 * AE_E_INVALID_HANDLE).
 * @thread any, including a callback of this client.
 * @callbacks none after it returns.
 *
 * @par Process exit
 * A host need not destroy its clients first. Returning from main() or calling exit()
 * (from any thread, a callback included) with clients alive, or right after destroying them, ends the
 * process normally: the SDK's threads stop after the step they are in (exit waits for it, at most 2 s)
 * and start no other, so none is inside OpenSSL while OpenSSL frees its state. Callbacks already queued
 * may still run meanwhile. Loading the library tells OpenSSL not to free its state at exit
 * (OPENSSL_INIT_NO_ATEXIT) unless the process initialised OpenSSL before; then the host stops its own
 * threads that use OpenSSL (a transport's) before it exits. docs/THREADING.md, "At exit".
 */
AE_API void ae_client_destroy(ae_client *client);

/** @} */

/** @addtogroup store
 * @{ */

/** How ae_client_create() found the token store (ae_client_store_status). */
enum {
    AE_STORE_OPENED = 0, /**< an existing store, opened as it was */
    AE_STORE_CREATED = 1, /**< no store at storage_path: a new one */
    AE_STORE_IN_MEMORY = 2, /**< storage_path NULL: nothing persists */
    AE_STORE_RECOVERED = 3, /**< the file was damaged: moved aside, a new store started (the viewer must log in again); the log names where it was moved */
    AE_STORE_CLEARED = 4, /**< AE_STORE_CHECK_CLEAR removed this app's records */
    AE_STORE_UPGRADED = 5, /**< a store of an earlier schema, migrated (its records kept) */
    /** The store file, or its -wal or -shm, was readable or writable by group or others: its mode was set
        to 0600 and its records kept (logged at warning level). Another local user may have read or altered
        it: a host may log the viewer out. Reported instead of AE_STORE_OPENED, _CREATED, _UPGRADED or
        _CLEARED; a damaged file still says AE_STORE_RECOVERED. A file owned by another user, a symbolic
        link or anything but a regular file at storage_path is refused: AE_E_STORAGE, nothing changed. */
    AE_STORE_MODE_REPAIRED = 6
};

/**
 * How ae_client_create() found the token store: one of AE_STORE_*. A host may tell the viewer
 * why a login is asked again after AE_STORE_RECOVERED.
 *
 * @param client  The client (from ae_client_create()).
 * @param[out] out_status  Receives the AE_STORE_* value. Not NULL.
 * @return AE_OK; AE_E_INVALID_HANDLE; AE_E_INVALID_ARG.
 * @ownership n/a.
 * @thread any.
 * @callbacks none.
 */
AE_API int32_t ae_client_store_status(ae_client *client, int32_t *out_status);

/** @} */

/** @addtogroup diagnostics
 * @{ */

/* ============================================================================================
 * Diagnostics (since 1.5): what the SDK's tool accessenabler-diag (Tools/diag/) asks, for a
 * support engineer on one box. No client is made: each function opens the store, or makes its
 * request, itself, and blocks until it is done. Reports never hold a secret (client secret,
 * access token, profile attributes, SAML, media tokens, SSO tokens, the store key).
 * ============================================================================================ */

/** What stopped a diagnostic (`*out_problem` of the ae_diag_* functions); accessenabler-diag exits
    with this number. 2 is not used (the tool's usage error). Since 1.5. */
enum {
    AE_DIAG_OK = 0,                /**< nothing: the report is complete */
    AE_DIAG_FAILED = 1,            /**< another failure (the report's message says which) */
    AE_DIAG_STORE_MISSING = 3,     /**< no file at storage_path */
    AE_DIAG_STORE_UNSAFE = 4,      /**< the store, or its -wal or -shm, is a symbolic link, not a regular file, or
                                        owned by another user than the caller's effective user: refused, as
                                        ae_client_create() refuses it */
    AE_DIAG_STORE_LOCKED = 5,      /**< another process held the store's write lock for longer than
                                        AE_DIAG_BUSY_TIMEOUT_MS (ae_diag_logout only: reads never wait) */
    AE_DIAG_STORE_CORRUPT = 6,     /**< not an SQLite database, damaged (PRAGMA quick_check), or no store schema */
    AE_DIAG_STORE_NEWER = 7,       /**< a store schema newer than this library's: written by a newer SDK */
    AE_DIAG_STORE_KEY = 8,         /**< the app's records are sealed and the key given is not theirs, or no key was given */
    AE_DIAG_STORE_UNREADABLE = 9,  /**< the store cannot be read (permissions, I/O) */
    AE_DIAG_CONFIGURATION = 10,    /**< a field the diagnostic needs is missing or wrong (base_url, ca_file, pins, proxy) */
    AE_DIAG_DNS = 11,              /**< doctor: the host name (or the proxy's) does not resolve */
    AE_DIAG_TCP = 12,              /**< doctor: no connection (refused, unreachable, timed out) */
    AE_DIAG_TLS = 13,              /**< doctor: the TLS handshake or verification failed (CA, host name, pin, version) */
    AE_DIAG_CERTIFICATE = 14,      /**< doctor: the server's certificate is expired or not yet valid on the box's clock */
    AE_DIAG_SERVICE = 15           /**< doctor: the answer is not Adobe Pass's (5xx, a captive portal, the wrong host) */
};

/** The report's form (the `format` argument of the ae_diag_* functions). Since 1.5. */
enum {
    AE_DIAG_FORMAT_TEXT = 0, /**< lines for a console (UTF-8, no trailing newline) */
    AE_DIAG_FORMAT_JSON = 1  /**< one JSON object; on a problem {"ok": false, "problem", "message"} */
};

/** How long ae_diag_logout() waits for another process's write to the store (ms). Since 1.5. */
#define AE_DIAG_BUSY_TIMEOUT_MS 5000

/**
 * The store's status without a client: the apps registered (when, with which client id; never
 * the client secret), the access token's expiry, per requestor the selected provider, the profiles
 * per MVPD and the single sign-on profiles with their expiry on Adobe's clock (the store's anchor of
 * Adobe's clock for this boot) and on the box's, the authorizations' expiries, the store's schema
 * and state. JSON keys: "ok", "store" {"path", "schema_version", "library_schema_version", "in_use",
 * "open_to_others", "encrypted"}, "clock" {"box", "adobe", "skew_ms", "latest_server_time"}, "apps"
 * [{"app", "api", "encrypted", "base_url", "client_id", "registered_at", "registration_age_s",
 * "access_token_expires_at", "requestors" [{"requestor", "selected_provider", "configuration_fetched_at",
 * "profiles_synced_at", "profiles", "sso_profiles", "authorizations"}]}] (an expiry: {"at", "valid",
 * "left_adobe_s", "left_box_s", "at_box_clock"}; times ISO 8601 UTC). Later releases may add keys.
 *
 * The store is read without a byte of it changing: never created, migrated, recovered, repaired or
 * checkpointed, no -wal or -shm written (a store in use by a process is read from a private copy).
 *
 * @param[in] config   Read: storage_path (required), store_key / store_key_length (a sealed store),
 *                     software_statement (optional: only that app's records). Other fields are ignored.
 *                     Not NULL; any version.
 * @param format       AE_DIAG_FORMAT_TEXT or AE_DIAG_FORMAT_JSON.
 * @param[out] out_report   Receives the report (on a problem: the message saying what and why). Not NULL.
 * @param[out] out_problem  Receives AE_DIAG_OK or the AE_DIAG_* that stopped it. Not NULL.
 * @return AE_OK (the report is made, whatever the problem); AE_E_INVALID_ARG (NULL, an unknown format,
 *         a bad field); AE_E_UNSUPPORTED_VERSION (config). Then `*out_report` is NULL.
 * @ownership `*out_report` is owned by the caller; free it with ae_string_free().
 * @thread any; blocks while it reads the store (milliseconds).
 * @callbacks none.
 */
AE_API int32_t ae_diag_store_status(const ae_config *config, int32_t format, char **out_report, int32_t *out_problem);

/**
 * Logs one requestor out on this box, in a store another process (the app) may be using at that
 * moment: removes the requestor's profiles, authorization expiries and selected provider, as the
 * library's own logout removes them, in one SQLite IMMEDIATE transaction (a write of the app in
 * progress is waited for, up to AE_DIAG_BUSY_TIMEOUT_MS); the app reads the change at its next call.
 * Adobe is not called: its session ends when it expires. The store is never created, migrated or
 * recovered; a sealed app's records are changed only with its key. JSON keys: "ok", "requestor",
 * "profiles_removed", "authorizations_removed", "selected_provider_removed".
 *
 * @param[in] config   As for ae_diag_store_status(). Not NULL.
 * @param requestor_id The requestor id. Not NULL, not empty.
 * @param format       AE_DIAG_FORMAT_TEXT or AE_DIAG_FORMAT_JSON.
 * @param[out] out_report   Receives the report. Not NULL.
 * @param[out] out_problem  Receives AE_DIAG_OK or the AE_DIAG_* that stopped it (nothing changed then). Not NULL.
 * @return AE_OK; AE_E_INVALID_ARG; AE_E_UNSUPPORTED_VERSION. Then `*out_report` is NULL.
 * @ownership `*out_report` is owned by the caller; free it with ae_string_free().
 * @thread any; blocks (at most about AE_DIAG_BUSY_TIMEOUT_MS).
 * @callbacks none.
 */
AE_API int32_t ae_diag_logout(const ae_config *config, const char *requestor_id, int32_t format, char **out_report,
                              int32_t *out_problem);

/**
 * Checks the way to Adobe Pass as a client with this config would take it: the base URL and TLS
 * options (configuration), the name (dns), the connection (tcp), the handshake with ca_file, ca_path,
 * ca_mode, pinned_public_keys, min_tls_version, proxy and proxy_from_environment (tls), the server
 * certificate's expiry (certificate: a warning under 14 days), Adobe's clock against the box's from the
 * Date header (clock: a warning beyond 60 s), and one harmless request (adobe: the requestor's
 * configuration asked without an access token, which Adobe refuses with an Enhanced Error Code; no
 * side effect). Each step is timed (libcurl's clocks); the first failing step stops it. JSON keys:
 * "ok", "problem", "steps" [{"name", "state" ("ok", "warning", "failed", "skipped"), "ms", "detail"}].
 *
 * @param[in] config   Read: base_url (required), api_generation, ca_file, ca_path, ca_mode,
 *                     pinned_public_keys, min_tls_version, proxy, proxy_from_environment,
 *                     connect_timeout_ms, request_timeout_ms. Not NULL.
 * @param requestor_id The requestor id in the request's path, or NULL ("accessenabler-diag").
 * @param format       AE_DIAG_FORMAT_TEXT or AE_DIAG_FORMAT_JSON.
 * @param[out] out_report   Receives the report. Not NULL.
 * @param[out] out_problem  Receives AE_DIAG_OK or the failing step's AE_DIAG_CONFIGURATION, _DNS, _TCP,
 *                          _TLS, _CERTIFICATE or _SERVICE. Not NULL.
 * @return AE_OK; AE_E_INVALID_ARG; AE_E_UNSUPPORTED_VERSION. Then `*out_report` is NULL.
 * @ownership `*out_report` is owned by the caller; free it with ae_string_free().
 * @thread any; blocks up to connect_timeout_ms + request_timeout_ms.
 * @callbacks none.
 */
AE_API int32_t ae_diag_doctor(const ae_config *config, const char *requestor_id, int32_t format, char **out_report,
                              int32_t *out_problem);

/**
 * A support bundle: one JSON object to attach to a ticket, without secrets: "bundle_version",
 * "created_at", "versions" {"library", "store_schema", "libcurl", "sqlite"}, "config" (the fields
 * given, the store key and software statement only as "…_given" booleans, a proxy's user information
 * masked), "store" (ae_diag_store_status()'s JSON, or {"ok": false, "problem", "message"}),
 * "recent_failures" (the newest first: {"at", "app", "api", "level", "error_id", "message"}: the
 * failures the library reported to callbacks, which it keeps in the store, at most 20), "metrics"
 * (the metrics snapshots the library stored, per app, {"updated_at", "value"}, or null).
 *
 * @param[in] config      As for ae_diag_store_status(), plus the fields ae_diag_doctor() reads (reported, not used). Not NULL.
 * @param max_failures    The most recent failures to include (0 up to 20; more is 20).
 * @param[out] out_report  Receives the JSON. Not NULL.
 * @param[out] out_problem Receives AE_DIAG_OK or the store's problem (the bundle is made all the same). Not NULL.
 * @return AE_OK; AE_E_INVALID_ARG (a NULL, a negative max_failures); AE_E_UNSUPPORTED_VERSION.
 * @ownership `*out_report` is owned by the caller; free it with ae_string_free().
 * @thread any; blocks while it reads the store.
 * @callbacks none.
 */
AE_API int32_t ae_diag_bundle(const ae_config *config, int32_t max_failures, char **out_report, int32_t *out_problem);

/** @} */

/** @addtogroup lifecycle
 * @{ */

/**
 * Event-loop mode (callback_mode AE_CALLBACKS_EVENT_LOOP): a file descriptor that is readable
 * while callbacks are queued. Watch it for POLLIN (poll, epoll, glib, libuv) and call
 * ae_client_dispatch() when it is. The SDK owns it: do not read from or close it.
 *
 * @param client  The client (from ae_client_create()).
 * @return The descriptor, or -1 (not in event-loop mode, or an invalid handle; see ae_last_error_message).
 * @ownership the SDK's, valid until ae_client_destroy().
 * @thread any.
 * @callbacks none.
 */
AE_API int ae_client_event_fd(ae_client *client);

/** The most callbacks one ae_client_dispatch() runs; the descriptor stays readable while more wait.
    Since 1.3. */
#define AE_DISPATCH_MAX_CALLBACKS 1000

/**
 * Event-loop mode: runs the callbacks queued when the call starts, in order, on the calling thread,
 * at most AE_DISPATCH_MAX_CALLBACKS of them (as a libuv loop iteration is bounded: the host's loop
 * gets control back), and clears the descriptor's readiness. Callbacks queued meanwhile, or beyond
 * the bound, wait for the next call (the descriptor is readable again). Its cost is linear in the
 * callbacks it runs. A callback may call any function, including ae_client_dispatch()
 * (it returns at once) and ae_client_destroy() (no further callback runs).
 *
 * @param client  The client (from ae_client_create()).
 * @param[out] out_count  NULL, or receives how many callbacks ran.
 * @return AE_OK; AE_E_INVALID_HANDLE; AE_E_INVALID_ARG (not in event-loop mode).
 * @ownership n/a.
 * @thread any, one at a time per client (a second concurrent call runs nothing).
 * @callbacks the delegate's, on this thread.
 */
AE_API int32_t ae_client_dispatch(ae_client *client, int32_t *out_count);

/** @} */

/** @addtogroup calls
 * @{ */

/* ============================================================================================
 * AccessEnabler calls
 * ============================================================================================ */

/**
 * setOptions. Keys: "applicationProfile" (string; sent as the configuration `profile`),
 * "visitorID" (string; sent as AP-Visitor-Identifier), "device_info" (object, or Base64 of one:
 * replaces X-Device-Info), "handleSVC" (bool; accepted and ignored), "deviceIdMetadata" (bool, default
 * false: getMetadata opcode 2 answers the device id only once it is true; set it when Adobe enabled
 * the device id metadata for the integration, which Adobe documents as disabled by default). Unknown
 * keys are ignored with a log line. Takes effect for the requests that start after it. A string with a control
 * character (C0, DEL, C1: a CR/LF would add headers of its own) or a device_info string outside the
 * Base64 alphabet is refused, and nothing of the call is applied.
 *
 * @param client  The client (from ae_client_create()).
 * @param options_json JSON object. Not NULL.
 * @return AE_OK or AE_E_INVALID_ARG / AE_E_INVALID_HANDLE.
 * @ownership copied.
 * @thread any.
 * @callbacks none (setOptions has no callback).
 */
AE_API int32_t ae_set_options(ae_client *client, const char *options_json);

/** Kinds of single sign-on token (ae_set_identity_token; docs/PLATFORM-SSO.md). Since 1.2. */
enum {
    AE_IDENTITY_TOKEN_PLATFORM = 1, /**< a platform identity (JWS or JWE) from the box's platform: sent as
                                         `Adobe-Subject-Token` (V2 and V1); a second app of the same subject
                                         gets a `platformSSO` profile */
    AE_IDENTITY_TOKEN_SERVICE = 2   /**< a service token (JWS, RS256: iss, sub, aud "Adobe", iat, exp) from the
                                         programmer's or operator's identity service: sent as
                                         `AD-Service-Token` (V2); its `serviceTokenSSO` profiles follow the
                                         viewer across devices */
};

/**
 * Gives the SDK the host's single sign-on token of `kind`, or clears it (`token` NULL). From then on
 * it goes with exactly the calls Adobe lists for it (V2: sessions, profiles, profiles/{mvpd}, both
 * decisions, logout; V1: every call; never DCR, never another host), until it passes its `exp`
 * (then it is not sent). Checked now: compact JWS (3 parts) or, for a platform token, JWE (5 parts);
 * base64url characters only; at most 16 KiB; a JOSE header with an allowed `alg` (never `none`; a
 * service token RS256 only); a JWS's claims with a numeric `exp` in the future and at most a year
 * away, `iat` not in the future, a service token's `iss`, `sub`, `aud` naming "Adobe". A refused
 * token leaves the previous one in place. Set it before ae_set_requestor() so that the profiles
 * call carries it (a second app of the same subject is then signed in with no login); a platform
 * that refreshes its token calls this again. The token text is never logged (a SHA-256 prefix is).
 *
 * @param client  The client (from ae_client_create()).
 * @param kind    AE_IDENTITY_TOKEN_PLATFORM or AE_IDENTITY_TOKEN_SERVICE.
 * @param token   The compact serialisation, NUL-terminated UTF-8; NULL clears the token of `kind`.
 * @return AE_OK; AE_E_INVALID_ARG (an unknown kind, or a token refused: ae_last_error_message()
 *         says why, e.g. `AD-Service-Token refused: alg "none" is not allowed`);
 *         AE_E_INVALID_HANDLE.
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 * @since 1.4 (symbol version AE_1.4); the same function was ae_client_set_identity_token() in 1.2 and 1.3.
 */
AE_API int32_t ae_set_identity_token(ae_client *client, int32_t kind, const char *token);

#if !defined(AE_NO_DEPRECATED) || defined(AE_DOXYGEN)
/**
 * @deprecated Renamed ae_set_identity_token() in 1.4, into the scheme of the calls (ae_set_options()):
 * the same function, still exported (node AE_1.2) for programs built against 1.2 and 1.3, until the
 * next major. Define AE_NO_DEPRECATED to hide it.
 *
 * @param client  See ae_set_identity_token().
 * @param kind    See ae_set_identity_token().
 * @param token   See ae_set_identity_token().
 * @return See ae_set_identity_token().
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 * @since 1.2 (symbol version AE_1.2).
 */
AE_API int32_t ae_client_set_identity_token(ae_client *client, int32_t kind, const char *token)
    AE_RENAMED_("ae_set_identity_token", "1.4");
#endif

/**
 * setRequestor. Registers the application (DCR) and gets an access token when needed, loads the
 * requestor's configuration and syncs the stored profiles with Adobe's, each only when missing or
 * stale (older than the cache age). The profiles are also asked for when the call would carry a
 * single sign-on token (one set and not past its `exp`, or one the identity provider gives now)
 * while no stored profile is valid: another app or device of the subject may have signed in since.
 * Call it again when the application returns to the foreground (Adobe's way to resync).
 *
 * @param client  The client (from ae_client_create()).
 * @param requestor_id            The requestor (service provider) id. Not NULL, not empty, not "." or ".."
 *                                (URL normalisation would turn them into another path), no control character.
 * @param service_providers_json  NULL, or a JSON array of service base URLs; with REST API V2 the first
 *                                one replaces ae_config.base_url for this requestor.
 * @return AE_OK or AE_E_INVALID_ARG / AE_E_INSECURE_URL / AE_E_INVALID_HANDLE.
 * @ownership copied.
 * @thread any.
 * @callbacks set_requestor_complete (1, or 0 after a `status` naming the error: R400, R401, CFG400,
 * CFG404, CFG410, CFG5xx, SEC412 (warning, profiles cleared), SEC420). Calls made while it runs wait for it.
 * SEC420 (an HTTPS security error, from any call) carries "cause": certificate_untrusted,
 * certificate_expired, certificate_not_yet_valid, certificate_self_signed, host_name_mismatch,
 * pinned_key_mismatch, tls_version_refused, ca_file_unusable or handshake_failed (docs/ERRORS.md).
 */
AE_API int32_t ae_set_requestor(ae_client *client, const char *requestor_id, const char *service_providers_json);

/**
 * checkAuthentication: answers from the stored profile and its expiry. No network.
 *
 * @param client  The client (from ae_client_create()).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR.
 * @ownership n/a.
 * @thread any.
 * @callbacks set_authentication_status (1, "") or (0, AE_USER_NOT_AUTHENTICATED_ERROR), then
 * send_tracking_data(AE_TRACKING_AUTHENTICATION). A `status` comes first when it explains the answer:
 * N011 (info) for a TempPass profile, N010 (warning) for a degraded one (authenticate-all rule),
 * N111 (warning) with 0 when the selected MVPD's TempPass has expired or is used up.
 */
AE_API int32_t ae_check_authentication(ae_client *client);

/**
 * getAuthentication: authenticates the viewer, with the provider dialog and a login when needed.
 *
 * @param client  The client (from ae_client_create()).
 * @param force_authn  Non-zero: run the flow even if authenticated.
 * @param data_json    NULL or a JSON object: the viewer's identity for promotional TempPass, e.g.
 *                     {"email": "..."}; its compact JSON, Base64-encoded, goes to Adobe as
 *                     AP-TempPass-Identity when the viewer selects a TempPass MVPD (and on that
 *                     profile's decisions). Never logged. REST API V2 has no place for other data.
 * @param filter_json  NULL or {"TV_PROVIDERS": [...], "FEATURED_TV_PROVIDERS": [...]} (partner picker
 *                     filter; ignored when no partner framework is configured).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (data or filter not an object).
 * @ownership copied.
 * @thread any.
 * @callbacks authenticated and not `force_authn`: set_authentication_status(1, "") at once
 * (with N010 / N011 as for ae_check_authentication).
 * Otherwise display_provider_dialog(mvpds); the host answers with ae_set_selected_provider(). Then
 * (second screen) a `status` REGCODE with the code and the URL to show, polling until the viewer
 * has logged in on another device, and set_authentication_status(1, ""); or 0 with
 * AE_PROVIDER_NOT_SELECTED_ERROR (cancelled) or AE_GENERIC_AUTHENTICATION_ERROR (code expired: N130;
 * code not obtained: REG500).
 */
AE_API int32_t ae_get_authentication(ae_client *client, int32_t force_authn, const char *data_json,
                                     const char *filter_json);

/**
 * setSelectedProvider: the viewer's choice from the provider dialog; starts (or restarts) the login
 * with that MVPD. NULL cancels: polling stops, the selected MVPD is forgotten, and
 * set_authentication_status(0, AE_PROVIDER_NOT_SELECTED_ERROR) follows. It may also be called without
 * getAuthentication. A TempPass MVPD ("isTempPass" in the dialog) authenticates at once, with no code
 * and no browser: `status` N011 and set_authentication_status(1, ""); when its TempPass is over,
 * N111 and (0, AE_USER_NOT_AUTHENTICATED_ERROR); N500 and (0, AE_GENERIC_AUTHENTICATION_ERROR) when
 * Adobe refuses it (a promotional TempPass without getAuthentication's identity data, a TempPass
 * configuration error). Under an authenticate-all degradation rule any MVPD authenticates at once, N010.
 *
 * @param client  The client (from ae_client_create()).
 * @param mvpd_id  An MVPD id from the dialog, or NULL ("." and ".." are refused: they are no MVPD id).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (empty id).
 * @ownership copied.
 * @thread any.
 * @callbacks status REGCODE / navigate_to_url (not for TempPass and degraded MVPDs), then
 * set_authentication_status; send_tracking_data (AE_TRACKING_MVPD_SELECTION).
 */
AE_API int32_t ae_set_selected_provider(ae_client *client, const char *mvpd_id);

/**
 * getSelectedProvider: the current MVPD, if any.
 *
 * @param client  The client (from ae_client_create()).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR.
 * @ownership n/a.
 * @thread any.
 * @callbacks selected_provider(mvpd_json or NULL).
 */
AE_API int32_t ae_get_selected_provider(ae_client *client);

/**
 * checkAuthorization: like getAuthorization, but when the viewer is not authenticated it fails at once
 * with token_request_failed(resource, AE_USER_NOT_AUTHENTICATED_ERROR, ...) instead of starting a login.
 *
 * @param client  The client (from ae_client_create()).
 * @param resource   Resource id or MRSS text. Not NULL, not empty.
 * @param data_json  NULL or a JSON object (accepted; REST API V2 decisions carry no generic data).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG.
 * @ownership copied.
 * @thread any.
 * @callbacks set_token or token_request_failed (+ `status` Z100, Z120, Z130, Z169, Z500, N000), then
 * send_tracking_data(AE_TRACKING_AUTHORIZATION). A permit under a degradation rule comes with `status`
 * Z010 (warning), one under TempPass with Z011 (info), before set_token. A TempPass that is over gives
 * N111, set_authentication_status(0, AE_USER_NOT_AUTHENTICATED_ERROR) and token_request_failed(resource,
 * AE_USER_NOT_AUTHENTICATED_ERROR, ...); an authorize-none degradation rule gives Z169 and
 * token_request_failed(resource, AE_USER_NOT_AUTHORIZED_ERROR, ...). A profile made through the
 * platform's single sign-on counts only while the partner's status is usable (permission granted,
 * provider known, expiry ahead: asked again when older than 5 minutes); without it no request is
 * sent and the viewer is not authenticated: `status` VSA403 / VSA404 (permission denied /
 * undetermined) or N000, as when Adobe refuses the status (invalid_header_pfs_*), then
 * token_request_failed(resource, AE_USER_NOT_AUTHENTICATED_ERROR, ...). An enhanced error code the
 * SDK does not know gives Z500 (N000 when its action is `authentication`), never Z100.
 */
AE_API int32_t ae_check_authorization(ae_client *client, const char *resource, const char *data_json);

/**
 * getAuthorization: authorization decision and short media token for `resource`; starts
 * getAuthentication first when the viewer is not authenticated.
 *
 * @param client     The client (from ae_client_create()).
 * @param resource   Resource id or MRSS text. Not NULL, not empty.
 * @param data_json  NULL or a JSON object (accepted; REST API V2 decisions carry no generic data).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG.
 * @ownership copied.
 * @thread any.
 * @callbacks as ae_check_authorization, plus the getAuthentication callbacks when a login is needed.
 */
AE_API int32_t ae_get_authorization(ae_client *client, const char *resource, const char *data_json);

/**
 * checkPreauthorizedResources: which of `resources` the viewer may watch (for UI decoration only).
 * Sends ceil(N / preauthorize_limit) requests, fewer when `cache` is non-zero and decisions are cached.
 *
 * @param client  The client (from ae_client_create()).
 * @param resources_json  JSON array of resource ids (strings). Not NULL. An empty array is accepted
 *                        (a UI list may be empty): preauthorized_resources("[]") follows with no
 *                        request. ae_preauthorize() refuses an empty list instead, as Adobe's
 *                        decisions/preauthorize does: its answer would carry no decision to read.
 * @param cache           Non-zero: answer from the SDK's cache where it can (5 minutes).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (not an array of strings).
 * @ownership copied.
 * @thread any.
 * @callbacks preauthorized_resources(JSON array) exactly once (empty when not authenticated or on error,
 * with a `status` P100 on error).
 */
AE_API int32_t ae_check_preauthorized_resources(ae_client *client, const char *resources_json, int32_t cache);

/**
 * getMetadata: authentication or authorization expiry, the device id, or a user metadata value.
 *
 * @param client  The client (from ae_client_create()).
 * @param key_json  {"opCode": 0|1|2|3, "resource_id": "..." (opcode 1), "user_metadata_name": "..."
 *                  (opcode 3; "tokenSource" gives the profile's source: "Apple" for Apple SSO, else the
 *                  issuer)}. Not NULL. `opCode` is a JSON number: a string such as "0" is refused.
 *                  The expiries of opcodes 0 and 1 are milliseconds since the Unix epoch on Adobe's
 *                  clock (the server time its answers' Date headers give, which the SDK keeps against
 *                  the boot clock), not necessarily the box's wall clock. Opcode 2 answers the device
 *                  id only after setOptions {"deviceIdMetadata": true}; until then status META403
 *                  (warning), then set_metadata_status with NULL.
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (not such a key object).
 * @ownership copied.
 * @thread any.
 * @callbacks set_metadata_status (see ae_delegate).
 */
AE_API int32_t ae_get_metadata(ae_client *client, const char *key_json);

/**
 * logout: tells Adobe (the configured redirect URL), removes the local profile and the selected MVPD.
 * The local profile is removed even when Adobe cannot be reached. A TempPass profile needs no request
 * to Adobe (nor an MVPD logout page); its TempPass time keeps running.
 *
 * @param client  The client (from ae_client_create()).
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR.
 * @ownership n/a.
 * @thread any.
 * @callbacks set_authentication_status(0, AE_USER_NOT_AUTHENTICATED_ERROR). When the MVPD has an
 * interactive logout page its URL comes first in a `status` {"errorId": "LOGOUT", "url"} (or
 * navigate_to_url in AE_LOGIN_BROWSER mode).
 */
AE_API int32_t ae_logout(ae_client *client);

/**
 * handleExternalURL: the host's browser reached the redirect URL (AE_LOGIN_BROWSER mode, or a host
 * that opened the REGCODE URL itself); the SDK completes the login from the pending code.
 *
 * @param client  The client (from ae_client_create()).
 * @param url  The intercepted URL. Not NULL.
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG.
 * @ownership copied.
 * @thread any.
 * @callbacks set_authentication_status (1, or 0 when no login was pending or it failed).
 */
AE_API int32_t ae_handle_external_url(ae_client *client, const char *url);

/**
 * Completion of ae_preauthorize(). `response_json` is {"decisions": [{"id", "authorized", "error"?}],
 * "status"?} where "error" and "status" are enhanced error objects {"status", "code", "action",
 * "message", "details"?, "helpUrl"?, "trace"?}; "status" is present when the whole call failed
 * ("status": 0 for SDK-side failures such as "network_error", "authentication_session_missing").
 *
 * @param response_json  The response, a JSON object as above.
 * @param user_data      The `user_data` given to ae_preauthorize().
 * @ownership borrowed.
 * @thread runs on the callback thread, in order with the delegate's callbacks.
 */
typedef void (*ae_preauthorize_fn)(const char *response_json, void *user_data);

/**
 * preauthorize (AccessEnabler 3.6+): preauthorization with Adobe's enhanced error codes per resource.
 *
 * @param client  The client (from ae_client_create()).
 * @param request_json  {"resources": [...], "disableFeatures": ["LOCAL_CACHE", "REMOTE_CACHE"]?}. Not NULL.
 * @param callback      Called exactly once with the response: on the callback thread (or in
 *                      ae_client_dispatch()), or, when the client is destroyed before the answer,
 *                      inside ae_client_destroy() with "client_destroyed" (see there). Not NULL.
 * @param user_data     Passed back to `callback`.
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (not such a request, or no callback).
 * @ownership copied.
 * @thread any.
 * @callbacks `callback` (not a delegate callback, as on iOS where the
 * response goes to the call's own AccessEnablerCallback).
 */
AE_API int32_t ae_preauthorize(ae_client *client, const char *request_json, ae_preauthorize_fn callback,
                               void *user_data);

/* ----------------------------------------------------------------------------------------------
 * The same calls with typed arguments (since 1.4): no JSON to write. Each builds the JSON form
 * of its call and behaves exactly as that call (the same checks, statuses and callbacks).
 * ---------------------------------------------------------------------------------------------- */

/** ae_preauthorize_list() flags: Adobe's "disableFeatures" (AccessEnabler 3.6+). Since 1.4. */
enum {
    AE_PREAUTHORIZE_NO_LOCAL_CACHE = 1, /**< disableFeatures "LOCAL_CACHE": do not answer from the SDK's cache */
    AE_PREAUTHORIZE_NO_REMOTE_CACHE = 2 /**< disableFeatures "REMOTE_CACHE": ask Adobe not to answer from its cache */
};

/**
 * setOptions with one string option: ae_set_options() with {key: value}.
 *
 * @param client  The client (from ae_client_create()).
 * @param key     An option of a string value: AE_OPTION_PROFILE, AE_OPTION_VISITOR_ID,
 *                AE_OPTION_DEVICE_INFO (Base64 of the JSON object). Not NULL. An unknown key is
 *                ignored with a log line, as in ae_set_options().
 * @param value   The value, UTF-8. Not NULL ("" clears a profile or visitor id).
 * @return AE_OK; AE_E_INVALID_ARG (NULL, a control character, a key whose value is no string);
 *         AE_E_INVALID_HANDLE.
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 * @since 1.4 (symbol version AE_1.4).
 */
AE_API int32_t ae_set_option_string(ae_client *client, const char *key, const char *value);

/**
 * setOptions with one boolean option: ae_set_options() with {key: true|false}.
 *
 * @param client  The client (from ae_client_create()).
 * @param key     An option of a boolean value: AE_OPTION_DEVICE_ID_METADATA, AE_OPTION_HANDLE_SVC. Not NULL.
 * @param value   Non-zero: true.
 * @return AE_OK; AE_E_INVALID_ARG (`key` NULL, or a key whose value is no boolean); AE_E_INVALID_HANDLE.
 * @ownership copied.
 * @thread any.
 * @callbacks none.
 * @since 1.4 (symbol version AE_1.4).
 */
AE_API int32_t ae_set_option_bool(ae_client *client, const char *key, int32_t value);

/**
 * checkPreauthorizedResources with the resources as an array of strings: ae_check_preauthorized_resources()
 * with their JSON array.
 *
 * @param client     The client (from ae_client_create()).
 * @param resources  `count` resource ids, each NUL-terminated UTF-8 and not NULL. May be NULL when
 *                   `count` is 0 (an empty list: preauthorized_resources with an empty list follows).
 * @param count      The number of resources (at most AE_MAX_STRING_LENGTH).
 * @param cache      Non-zero: answer from the SDK's cache where it can.
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (a NULL array with a count,
 *         a NULL or invalid string, too many).
 * @ownership copied.
 * @thread any.
 * @callbacks preauthorized_resources, as ae_check_preauthorized_resources().
 * @since 1.4 (symbol version AE_1.4).
 */
AE_API int32_t ae_check_preauthorized_resources_list(ae_client *client, const char *const *resources,
                                                     size_t count, int32_t cache);

/**
 * getMetadata with the key as values: ae_get_metadata() with {"opCode": op_code} and, for opcodes 1
 * and 3, "resource_id" or "user_metadata_name" = `argument`.
 *
 * @param client    The client (from ae_client_create()).
 * @param op_code   AE_METADATA_AUTHENTICATION, _AUTHORIZATION, _DEVICE_ID or _USER_META.
 * @param argument  The resource id (AE_METADATA_AUTHORIZATION) or the attribute's name
 *                  (AE_METADATA_USER_META); NULL for the other opcodes.
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (an unknown opcode, a
 *         missing or unexpected argument).
 * @ownership copied.
 * @thread any.
 * @callbacks set_metadata_status, as ae_get_metadata() (its `arguments_json` is the key object built here).
 * @since 1.4 (symbol version AE_1.4).
 */
AE_API int32_t ae_get_metadata_key(ae_client *client, int32_t op_code, const char *argument);

/**
 * preauthorize with the resources as an array of strings: ae_preauthorize() with
 * {"resources": [...], "disableFeatures": [...]}.
 *
 * @param client     The client (from ae_client_create()).
 * @param resources  `count` resource ids, each NUL-terminated UTF-8 and not NULL. Not NULL.
 * @param count      The number of resources: at least 1 (as Adobe's decisions/preauthorize), at most
 *                   AE_MAX_STRING_LENGTH.
 * @param flags      0, or AE_PREAUTHORIZE_NO_LOCAL_CACHE and/or AE_PREAUTHORIZE_NO_REMOTE_CACHE.
 * @param callback   Called exactly once with the response, as for ae_preauthorize(). Not NULL.
 * @param user_data  Passed back to `callback`.
 * @return AE_OK; AE_E_INVALID_HANDLE, AE_E_NO_REQUESTOR, AE_E_INVALID_ARG (no resource, a NULL or
 *         invalid string, unknown flags, no callback).
 * @ownership copied.
 * @thread any.
 * @callbacks `callback`, as ae_preauthorize().
 * @since 1.4 (symbol version AE_1.4).
 */
AE_API int32_t ae_preauthorize_list(ae_client *client, const char *const *resources, size_t count, int32_t flags,
                                    ae_preauthorize_fn callback, void *user_data);

/** @} */

/** @addtogroup payloads
 * @{ */

/* ============================================================================================
 * Callback data without JSON (since 1.4; docs/DECISIONS.md, "Typed callback data")
 *
 * Every callback that passes JSON (and set_token, token_request_failed, send_tracking_data,
 * set_metadata_status, the ae_preauthorize() completion) can be read field by field instead: inside
 * the callback, ae_callback_payload() gives a typed view of what the callback carries, read with
 * the ae_payload_*() accessors as libcurl's curl_easy_getinfo() reads a transfer: a field is named
 * by an AE_FIELD_* constant and read with the accessor of its type. The view is the callback's JSON
 * itself, field for field (the JSON arguments stay, byte for byte, for hosts that parse them).
 *
 * Lifetime: a view, its children and every string read from it live until the callback returns,
 * on the thread running the callback; copy what you keep. After that, or on another thread, every
 * accessor answers as for a NULL view (NULL, 0, AE_E_INVALID_HANDLE): a stale view never crashes.
 * Absent is not empty: a field Adobe did not send (or of another type than the one asked for) reads
 * as NULL / AE_E_INVALID_ARG, an empty string as "" with length 0. Strings are UTF-8 with their
 * length in bytes (a string may hold a NUL: use the length). The accessors allocate nothing the
 * host frees and take no lock of the client.
 * ============================================================================================ */

/** A typed view of a callback's data, or of one of its parts (opaque; a number, never an address). */
typedef struct ae_payload ae_payload;

/** What a view holds (ae_payload_kind()). Append-only. */
enum {
    AE_PAYLOAD_NONE = 0,           /**< no view (NULL, stale, or outside a callback) */
    AE_PAYLOAD_STATUS = 1,         /**< the `status` callback: AE_FIELD_ERROR_ID, _LEVEL, _MESSAGE, _DETAILS, _CAUSE,
                                        _ALIASES, _ENHANCED_ERROR; REGCODE's _CODE, _URL, _ACTIVATION_URL, _NOT_AFTER;
                                        LOGOUT's _URL */
    AE_PAYLOAD_PROVIDERS = 2,      /**< display_provider_dialog: a list of AE_PAYLOAD_PROVIDER */
    AE_PAYLOAD_PROVIDER = 3,       /**< selected_provider (no view when its argument is NULL), or one provider of a
                                        list: AE_FIELD_ID, _DISPLAY_NAME, _LOGO_URL, _IS_TEMP_PASS,
                                        _ENABLE_PLATFORM_SERVICES, _BOARDING_STATUS */
    AE_PAYLOAD_TOKEN = 4,          /**< set_token: AE_FIELD_TOKEN, _RESOURCE, _NOT_AFTER (the token's expiry, when
                                        Adobe gave one) */
    AE_PAYLOAD_TOKEN_FAILURE = 5,  /**< token_request_failed: AE_FIELD_RESOURCE, _ERROR_CODE, _ERROR_DESCRIPTION */
    AE_PAYLOAD_METADATA = 6,       /**< set_metadata_status: AE_FIELD_KEY, _ENCRYPTED, _VALUE (absent when NULL),
                                        _ARGUMENTS */
    AE_PAYLOAD_RESOURCES = 7,      /**< preauthorized_resources: a list of strings (the resource ids) */
    AE_PAYLOAD_TRACKING = 8,       /**< send_tracking_data: AE_FIELD_EVENT_TYPE, _DATA (a list of strings) */
    AE_PAYLOAD_PARTNER_DIALOG = 9, /**< present_ / dismiss_tv_provider_dialog: AE_FIELD_PARTNER,
                                        _SUPPORTED_PROVIDERS, _FEATURED_PROVIDERS (lists of strings) */
    AE_PAYLOAD_PREAUTHORIZE = 10,  /**< the ae_preauthorize() completion: AE_FIELD_DECISIONS (a list of
                                        AE_PAYLOAD_DECISION), _STATUS (an AE_PAYLOAD_ENHANCED_ERROR, when the call failed) */
    AE_PAYLOAD_DECISION = 11,      /**< one decision: AE_FIELD_ID, _AUTHORIZED, _ERROR (an AE_PAYLOAD_ENHANCED_ERROR) */
    AE_PAYLOAD_ENHANCED_ERROR = 12, /**< Adobe's Enhanced Error Code: AE_FIELD_STATUS (integer), _CODE, _ACTION,
                                         _MESSAGE, _DETAILS, _HELP_URL, _TRACE */
    AE_PAYLOAD_LIST = 13,          /**< a list (ae_payload_count(), ae_payload_at()) of strings or other views */
    AE_PAYLOAD_OBJECT = 14,        /**< any other object (AE_FIELD_ARGUMENTS, an object-valued AE_FIELD_VALUE) */
    AE_PAYLOAD_STRING = 15         /**< a string item of a list (ae_payload_text()) */
};

/** The fields of a view (AE_PAYLOAD_*), each with the JSON key it reads and its type. Append-only. */
enum {
    AE_FIELD_ERROR_ID = 1,          /**< JSON key "errorId" (string): the status's id (REGCODE, N130, Z100, ...) */
    AE_FIELD_LEVEL = 2,             /**< JSON key "level" (string): "info", "warning" or "error" */
    AE_FIELD_MESSAGE = 3,           /**< JSON key "message" (string) */
    AE_FIELD_DETAILS = 4,           /**< JSON key "details" (string) */
    AE_FIELD_CAUSE = 5,             /**< JSON key "cause" (string): the SDK's cause of SEC420 (certificate_expired, ...) */
    AE_FIELD_ALIASES = 6,           /**< JSON key "aliases" (list of strings): other spellings of the status's id */
    AE_FIELD_ENHANCED_ERROR = 7,    /**< JSON key "enhancedError" (view AE_PAYLOAD_ENHANCED_ERROR) */
    AE_FIELD_CODE = 8,              /**< JSON key "code" (string): REGCODE's code to show; an enhanced error's code */
    AE_FIELD_URL = 9,               /**< JSON key "url" (string): REGCODE's URL, LOGOUT's page */
    AE_FIELD_ACTIVATION_URL = 10,   /**< JSON key "activationUrl" (string): REGCODE's URL with the code filled in */
    AE_FIELD_NOT_AFTER = 11,        /**< JSON key "notAfter" (integer): REGCODE's or the media token's expiry, milliseconds
                                         since the Unix epoch (the token's on Adobe's clock) */
    AE_FIELD_STATUS = 12,           /**< JSON key "status": an enhanced error's HTTP status (integer); the preauthorize
                                         completion's failure (view AE_PAYLOAD_ENHANCED_ERROR) */
    AE_FIELD_ACTION = 13,           /**< JSON key "action" (string): an enhanced error's action (retry, authentication, ...) */
    AE_FIELD_HELP_URL = 14,         /**< JSON key "helpUrl" (string) */
    AE_FIELD_TRACE = 15,            /**< JSON key "trace" (string) */
    AE_FIELD_ID = 16,               /**< JSON key "ID" of a provider, "id" of a decision (string) */
    AE_FIELD_DISPLAY_NAME = 17,     /**< JSON key "displayName" (string) */
    AE_FIELD_LOGO_URL = 18,         /**< JSON key "logoURL" (string) */
    AE_FIELD_IS_TEMP_PASS = 19,     /**< JSON key "isTempPass" (boolean) */
    AE_FIELD_ENABLE_PLATFORM_SERVICES = 20, /**< JSON key "enablePlatformServices" (boolean): the provider supports the
                                                  platform's single sign-on */
    AE_FIELD_BOARDING_STATUS = 21,  /**< JSON key "boardingStatus" (string) */
    AE_FIELD_TOKEN = 22,            /**< JSON key "token" (string): the short media token */
    AE_FIELD_RESOURCE = 23,         /**< JSON key "resource" (string) */
    AE_FIELD_ERROR_CODE = 24,       /**< JSON key "errorCode" (string): an AE_*_ERROR string */
    AE_FIELD_ERROR_DESCRIPTION = 25, /**< JSON key "errorDescription" (string) */
    AE_FIELD_KEY = 26,              /**< JSON key "key" (integer): getMetadata's opcode */
    AE_FIELD_ENCRYPTED = 27,        /**< JSON key "encrypted" (boolean) */
    AE_FIELD_VALUE = 28,            /**< JSON key "value": the metadata (integer for opcodes 0 and 1, string for 2, string,
                                         integer, list or view for 3) */
    AE_FIELD_ARGUMENTS = 29,        /**< JSON key "arguments" (view AE_PAYLOAD_OBJECT): the key object given to getMetadata */
    AE_FIELD_EVENT_TYPE = 30,       /**< JSON key "eventType" (integer): AE_TRACKING_* */
    AE_FIELD_DATA = 31,             /**< JSON key "data" (list of strings): the tracking event's data array */
    AE_FIELD_PARTNER = 32,          /**< JSON key "partner" (string) */
    AE_FIELD_SUPPORTED_PROVIDERS = 33, /**< JSON key "supportedAccountProviderIdentifiers" (list of strings) */
    AE_FIELD_FEATURED_PROVIDERS = 34,  /**< JSON key "featuredAccountProviderIdentifiers" (list of strings) */
    AE_FIELD_DECISIONS = 35,        /**< JSON key "decisions" (list of AE_PAYLOAD_DECISION) */
    AE_FIELD_AUTHORIZED = 36,       /**< JSON key "authorized" (boolean) */
    AE_FIELD_ERROR = 37,            /**< JSON key "error" (view AE_PAYLOAD_ENHANCED_ERROR) */
    AE_FIELD_OP_CODE = 38,          /**< JSON key "opCode" (integer), in AE_FIELD_ARGUMENTS */
    AE_FIELD_RESOURCE_ID = 39,      /**< JSON key "resource_id" (string), in AE_FIELD_ARGUMENTS */
    AE_FIELD_USER_METADATA_NAME = 40 /**< JSON key "user_metadata_name" (string), in AE_FIELD_ARGUMENTS */
};

/** The type of a field (ae_payload_type()). Append-only. */
enum {
    AE_VALUE_ABSENT = 0,  /**< not there (Adobe did not send it, or the view is NULL or stale) */
    AE_VALUE_STRING = 1,  /**< ae_payload_string() */
    AE_VALUE_INTEGER = 2, /**< ae_payload_int64() */
    AE_VALUE_BOOLEAN = 3, /**< ae_payload_bool() */
    AE_VALUE_LIST = 4,    /**< ae_payload_child(), then ae_payload_count() and ae_payload_at() */
    AE_VALUE_OBJECT = 5,  /**< ae_payload_child() */
    AE_VALUE_OTHER = 6    /**< a JSON null or a fractional number: read the callback's JSON */
};

/**
 * The typed view of the data of the callback running on this thread.
 *
 * @return The view (its kind says which callback's: AE_PAYLOAD_*), or NULL outside a callback, in a
 *         callback with no data (set_requestor_complete, set_authentication_status, navigate_to_url,
 *         selected_provider(NULL)) or on another thread.
 * @ownership borrowed, valid until the callback returns.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4 (symbol version AE_1.4).
 */
AE_API const ae_payload *ae_callback_payload(void);

/**
 * What `payload` holds.
 *
 * @param payload  A view (from ae_callback_payload(), ae_payload_child() or ae_payload_at()), or NULL.
 * @return AE_PAYLOAD_*; AE_PAYLOAD_NONE for NULL or a stale view.
 * @ownership n/a.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API int32_t ae_payload_kind(const ae_payload *payload);

/**
 * The type of `field` in `payload`.
 *
 * @param payload  A view, or NULL.
 * @param field    An AE_FIELD_* constant.
 * @return AE_VALUE_*: AE_VALUE_ABSENT when the field is not there (or `payload` is NULL or stale, or
 *         `field` unknown).
 * @ownership n/a.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API int32_t ae_payload_type(const ae_payload *payload, int32_t field);

/**
 * A string field of `payload`.
 *
 * @param payload     A view, or NULL.
 * @param field       An AE_FIELD_* constant of a string field.
 * @param[out] length NULL, or where the string's length in bytes goes (0 when NULL is returned).
 * @return The UTF-8 string, NUL-terminated; NULL when the field is absent or not a string (or
 *         `payload` is NULL or stale).
 * @ownership borrowed, valid until the callback returns.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API const char *ae_payload_string(const ae_payload *payload, int32_t field, size_t *length);

/**
 * An integer field of `payload` (AE_FIELD_NOT_AFTER, AE_FIELD_STATUS, AE_FIELD_KEY, ...).
 *
 * @param payload    A view, or NULL.
 * @param field      An AE_FIELD_* constant of an integer field.
 * @param[out] value Where the value goes. Not NULL. Untouched unless AE_OK is returned.
 * @return AE_OK; AE_E_INVALID_ARG (the field is absent or not an integer, or `value` is NULL);
 *         AE_E_INVALID_HANDLE (`payload` NULL or stale).
 * @ownership n/a.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API int32_t ae_payload_int64(const ae_payload *payload, int32_t field, int64_t *value);

/**
 * A boolean field of `payload` (AE_FIELD_IS_TEMP_PASS, AE_FIELD_AUTHORIZED, ...).
 *
 * @param payload    A view, or NULL.
 * @param field      An AE_FIELD_* constant of a boolean field.
 * @param[out] value Where the value goes (1 or 0). Not NULL. Untouched unless AE_OK is returned.
 * @return AE_OK; AE_E_INVALID_ARG (the field is absent or not a boolean, or `value` is NULL);
 *         AE_E_INVALID_HANDLE (`payload` NULL or stale).
 * @ownership n/a.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API int32_t ae_payload_bool(const ae_payload *payload, int32_t field, int32_t *value);

/**
 * A list or object field of `payload`, as a view (AE_FIELD_ENHANCED_ERROR, AE_FIELD_ALIASES,
 * AE_FIELD_DECISIONS, ...).
 *
 * @param payload  A view, or NULL.
 * @param field    An AE_FIELD_* constant of a list or object field.
 * @return The view (the same one each time it is asked for); NULL when the field is absent or
 *         not a list or object (or `payload` is NULL or stale).
 * @ownership borrowed, valid until the callback returns.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API const ae_payload *ae_payload_child(const ae_payload *payload, int32_t field);

/**
 * The number of items of a list view (AE_PAYLOAD_PROVIDERS, AE_PAYLOAD_RESOURCES, AE_PAYLOAD_LIST).
 *
 * @param list  A view, or NULL.
 * @return The count; 0 for an empty list, a view that is no list, NULL or a stale view.
 * @ownership n/a.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API size_t ae_payload_count(const ae_payload *list);

/**
 * Item `index` of a list view.
 *
 * @param list   A list view, or NULL.
 * @param index  0 to ae_payload_count() - 1.
 * @return The item's view (AE_PAYLOAD_PROVIDER, AE_PAYLOAD_DECISION, AE_PAYLOAD_STRING, ...); NULL
 *         for an index out of range, a view that is no list, NULL or a stale view.
 * @ownership borrowed, valid until the callback returns.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API const ae_payload *ae_payload_at(const ae_payload *list, size_t index);

/**
 * The text of a string item of a list (AE_PAYLOAD_STRING, from ae_payload_at()).
 *
 * @param item        A view, or NULL.
 * @param[out] length NULL, or where the text's length in bytes goes (0 when NULL is returned).
 * @return The UTF-8 text, NUL-terminated; NULL when `item` is no string item (or NULL or stale).
 * @ownership borrowed, valid until the callback returns.
 * @thread the callback's.
 * @callbacks none.
 * @since 1.4.
 */
AE_API const char *ae_payload_text(const ae_payload *item, size_t *length);

/** @} */

/** @addtogroup metrics
 * @{ */

/* ============================================================================================
 * Metrics (since 1.5; docs/METRICS.md names every metric, its unit, labels and Prometheus form)
 *
 * Each client counts its own: per Adobe operation, requests, answers by status class, a latency
 * histogram, retries by reason and bytes; per client, calls by AccessEnabler call and outcome,
 * login durations, TLS handshakes and failures, DNS lookups, connections opened and reused, store
 * writes, token renewals, clock skew to Adobe and the outage breaker's state. Names follow
 * OpenTelemetry's semantic conventions where one exists (`http.client.request.duration`, in
 * seconds); the SDK's own are under `ae.`. Counting costs a few locked updates per exchange and
 * nothing else while nobody reads. Pull: ae_client_metrics() (typed, no JSON) or
 * ae_client_metrics_text() (Prometheus text or JSON). Push: ae_client_set_metrics_push() calls the
 * host on a timer, on the callback thread, and the host pulls from there.
 * ============================================================================================ */

/** The kind of a metric (ae_metric.type). Append-only. */
enum {
    AE_METRIC_COUNTER = 1,   /**< a total since the client was created: `value` (and `count`, the same as an integer) */
    AE_METRIC_GAUGE = 2,     /**< a reading now: `value` */
    AE_METRIC_HISTOGRAM = 3  /**< observations: `count`, their sum in `value`, and cumulative buckets */
};

/** The formats of ae_client_metrics_text(). Append-only. */
enum {
    AE_METRICS_PROMETHEUS = 1, /**< Prometheus's text exposition format 0.0.4 (`# HELP`, `# TYPE`, `_bucket{le=...}`) */
    AE_METRICS_JSON = 2        /**< {"metrics": [{"name", "type", "unit", "labels": [names], "help", "series":
                                    [{"labels": {name: value}, "value", "count", "buckets": [[le, count], ...]}]}]} */
};

/** The version of ae_metric this header describes (ae_metric.version): fields are only appended. */
#define AE_METRIC_VERSION 1

/**
 * One series of a metric, as ae_client_metrics() hands it to the host. Every pointer is borrowed
 * and valid only during the visit call; copy what you keep. Written by the library: a host built
 * against an older header reads the fields it knows (the struct only grows, `version` says how far).
 */
typedef struct ae_metric {
    uint32_t version;                 /**< AE_METRIC_VERSION of the library that wrote it (1) */
    const char *name;                 /**< the OpenTelemetry-style name, e.g. "http.client.request.duration", "ae.calls" */
    const char *unit;                 /**< UCUM, as OpenTelemetry writes it: "s", "By", "1", "{request}" */
    int32_t type;                     /**< AE_METRIC_COUNTER, _GAUGE or _HISTOGRAM */
    size_t label_count;               /**< entries of label_names and label_values */
    const char *const *label_names;   /**< e.g. "ae.operation", "http.response.status_code" (docs/METRICS.md) */
    const char *const *label_values;  /**< the series' values, "" for a label that does not apply (no status
                                           code on a transport failure) */
    double value;                     /**< a counter's total, a gauge's reading, a histogram's sum */
    uint64_t count;                   /**< a counter's total; a histogram's number of observations; 0 for a gauge */
    size_t bucket_count;              /**< a histogram's buckets (0 otherwise), without +Inf (which is `count`) */
    const double *bucket_bounds;      /**< their upper bounds, ascending, in the metric's unit */
    const uint64_t *bucket_counts;    /**< cumulative: observations at most each bound */
} ae_metric;

/** Called once per series by ae_client_metrics(); `metric` is valid during the call only. */
typedef void (*ae_metric_fn)(const ae_metric *metric, void *user_data);

/** Called every interval by ae_client_set_metrics_push(), on the callback thread (event-loop mode: inside
    ae_client_dispatch()); it may call ae_client_metrics() or ae_client_metrics_text() on `client`. */
typedef void (*ae_metrics_push_fn)(ae_client *client, void *user_data);

/** The shortest interval ae_client_set_metrics_push() takes, in ms. */
#define AE_METRICS_PUSH_MIN_MS 1000

/**
 * Reads the client's metrics now: calls `visit` once per series, in docs/METRICS.md's order, on the
 * calling thread, before returning. A label-less counter or histogram is visited from the start
 * (at zero); a gauge only when it has a value (`ae.clock.skew` once Adobe's time is known).
 *
 * @param client     The client.
 * @param visit      Called per series; must not call ae_client_destroy() on this client. Not NULL.
 * @param user_data  Passed to `visit`.
 * @return AE_OK; AE_E_INVALID_HANDLE; AE_E_INVALID_ARG (`visit` NULL).
 * @ownership `metric` and everything it points to are borrowed for the call of `visit`.
 * @thread any, also from a callback.
 * @callbacks `visit` only, synchronously.
 * @since 1.5.
 */
AE_API int32_t ae_client_metrics(ae_client *client, ae_metric_fn visit, void *user_data);

/**
 * The client's metrics now, as text: Prometheus's exposition format (a fleet exporter serves it as
 * it is) or JSON.
 *
 * @param client        The client.
 * @param format        AE_METRICS_PROMETHEUS or AE_METRICS_JSON.
 * @param[out] out_text Receives the UTF-8 text. Not NULL; set to NULL on failure.
 * @return AE_OK; AE_E_INVALID_HANDLE; AE_E_INVALID_ARG (another format, `out_text` NULL).
 * @ownership `*out_text` is owned by the caller: free it with ae_string_free().
 * @thread any, also from a callback.
 * @callbacks none.
 * @since 1.5.
 */
AE_API int32_t ae_client_metrics_text(ae_client *client, int32_t format, char **out_text);

/**
 * Pushes the metrics: calls `push` every `interval_ms` until stopped, on the callback thread in order
 * with the other callbacks (event-loop mode: from ae_client_dispatch()). `push` reads what it needs
 * with ae_client_metrics() or ae_client_metrics_text(). A new call replaces the previous timer;
 * `push` NULL stops it; ae_client_destroy() stops it too (no call after destroy returns).
 *
 * @param client       The client.
 * @param interval_ms  At least AE_METRICS_PUSH_MIN_MS (ignored when `push` is NULL).
 * @param push         Called each interval, or NULL to stop.
 * @param user_data    Passed to `push`.
 * @return AE_OK; AE_E_INVALID_HANDLE; AE_E_INVALID_ARG (an interval below AE_METRICS_PUSH_MIN_MS).
 * @ownership n/a (`user_data` must stay valid until the timer is replaced, stopped or the client destroyed).
 * @thread any, also from a callback.
 * @callbacks `push`, later, on the callback thread.
 * @since 1.5.
 */
AE_API int32_t ae_client_set_metrics_push(ae_client *client, uint32_t interval_ms, ae_metrics_push_fn push,
                                          void *user_data);

/** @} */

/** @addtogroup abi
 * @{ */

/* ============================================================================================
 * Deprecated names
 * ============================================================================================ */

#if !defined(AE_NO_DEPRECATED) || defined(AE_DOXYGEN)
#if defined(__GNUC__) || defined(__clang__)
/** Marks a deprecated alias (not for direct use): the compiler names its replacement. */
#define AE_DEPRECATED_(replacement) __attribute__((deprecated("renamed " replacement " in 1.0")))
#else
/** Marks a deprecated alias (no attribute on this compiler). */
#define AE_DEPRECATED_(replacement)
#endif
/* 0.x names of the reply functions, renamed in 1.0 to the ae_<object>_<verb> scheme
   (docs/DECISIONS.md). Inline aliases: source written for 0.x compiles, with a deprecation warning;
   they are not exported by the library. Define AE_NO_DEPRECATED to leave them out. */

/** @deprecated Renamed ae_partner_request_reply_access_status() in 1.0. */
AE_DEPRECATED_("ae_partner_request_reply_access_status")
static inline int32_t ae_partner_reply_access_status(ae_partner_request *request, int32_t access_status,
                                                     int32_t signed_in) {
    return ae_partner_request_reply_access_status(request, access_status, signed_in);
}

/** @deprecated Renamed ae_partner_request_reply_metadata() in 1.0. */
AE_DEPRECATED_("ae_partner_request_reply_metadata")
static inline int32_t ae_partner_reply_metadata(ae_partner_request *request, const char *metadata_json) {
    return ae_partner_request_reply_metadata(request, metadata_json);
}

/** @deprecated Renamed ae_partner_request_reply_error() in 1.0. */
AE_DEPRECATED_("ae_partner_request_reply_error")
static inline int32_t ae_partner_reply_error(ae_partner_request *request, int32_t error, const char *detail) {
    return ae_partner_request_reply_error(request, error, detail);
}

/** @deprecated Renamed ae_http_request_reply() in 1.0. */
AE_DEPRECATED_("ae_http_request_reply")
static inline int32_t ae_http_reply(ae_http_request *request, int32_t status, const char *const *headers,
                                    const uint8_t *body, size_t body_length) {
    return ae_http_request_reply(request, status, headers, body, body_length);
}

/** @deprecated Renamed ae_http_request_reply_error() in 1.0. */
AE_DEPRECATED_("ae_http_request_reply_error")
static inline int32_t ae_http_reply_error(ae_http_request *request, int32_t error, const char *message) {
    return ae_http_request_reply_error(request, error, message);
}
#endif /* AE_NO_DEPRECATED */

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ACCESSENABLER_H */

// SPDX-License-Identifier: Apache-2.0
// Typed wrappers over libcurl's variadic curl_easy_setopt/curl_easy_getinfo, which Swift cannot call.
#ifndef CCURL_H
#define CCURL_H
#include <curl/curl.h>

typedef size_t (*ccurl_data_fn)(char *data, size_t size, size_t count, void *user_data);

/// curl_global_init once per process (thread-safe through pthread_once), then the exit gate's atexit
/// handler (ccurl.c: registered after OpenSSL's, so it runs before it). Returns CURLE_OK or the error.
/// Called at every client's creation.
CURLcode ccurl_global_init_once(void);

/// The exit gate (ccurl.c): an SDK thread calls ccurl_work_begin() before a turn of work that may use
/// libcurl or OpenSSL (a network loop's turn, a batch of engine jobs, freeing libcurl handles) and
/// ccurl_work_end() after it; calls nest. 0: the process is exiting (the gate is closed), do not start:
/// a loop stops (ccurl_park() or returns), a clean-up leaves things to the process's end.
int ccurl_work_begin(void);
void ccurl_work_end(void);
/// Keeps `memory` (a libcurl handle, a buffer) reachable until the process ends: what a clean-up
/// skipped at exit (the gate closed) is then not reported as lost by a leak checker.
void ccurl_leave_to_exit(void *memory);
/// Blocks the calling thread for good (an SDK thread at process exit).
__attribute__((noreturn)) void ccurl_park(void);

CURLcode ccurl_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode ccurl_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode ccurl_setopt_data_fn(CURL *easy, CURLoption option, ccurl_data_fn fn);
/// A struct curl_blob option that libcurl reads in place (CURL_BLOB_NOCOPY): `data` must outlive the handle.
CURLcode ccurl_setopt_blob(CURL *easy, CURLoption option, void *data, size_t length);
/// Makes the transfer a warm-up (ccurl.c): a HEAD (CURLOPT_NOBODY) that, once its connection is ready,
/// stops before its request on HTTP/2 (the connection stays in the pool; `spare` != 0: it is closed)
/// and without TLS, and is sent on TLS connections of any other protocol (HTTP/1.1), whose finished
/// exchange leaves the connection in the pool. A stop ends the transfer with CURLE_ABORTED_BY_CALLBACK.
CURLcode ccurl_setopt_warm_up(CURL *easy, int spare);
/// Counts the host name resolutions the transfer starts (CURLOPT_RESOLVER_START_FUNCTION: not the hits
/// of libcurl's DNS cache) in `*counter`, which must outlive the handle. Called on the thread that drives
/// the transfer; read it there.
CURLcode ccurl_setopt_resolve_counter(CURL *easy, unsigned long long *counter);
enum { CCURL_PROTOCOL_UNKNOWN = 0, CCURL_PROTOCOL_H2 = 1, CCURL_PROTOCOL_TLS_OTHER = 2 };
/// The protocol TLS negotiated on the transfer's connection (ALPN): CCURL_PROTOCOL_H2, _TLS_OTHER, or
/// _UNKNOWN (no TLS, no connection yet, or a TLS library other than OpenSSL).
int ccurl_connection_protocol(CURL *easy);
/// libcurl's default CA bundle file (curl_version_info's cainfo), or NULL.
const char *ccurl_default_cainfo(void);
CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode ccurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value);
CURLcode ccurl_getinfo_long(CURL *easy, CURLINFO info, long *out);
CURLcode ccurl_getinfo_pointer(CURL *easy, CURLINFO info, void **out);
CURLcode ccurl_getinfo_double(CURL *easy, CURLINFO info, double *out);
#endif

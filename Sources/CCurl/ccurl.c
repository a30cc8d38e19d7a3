// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE  /* dladdr */
#include "ccurl.h"
#include <dlfcn.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- process exit (docs/THREADING.md, "Destroy") ------------------------------------------------
 * OpenSSL 3 frees its global state (providers, decoders, the error and name tables) in an atexit
 * handler, OPENSSL_cleanup, registered when OpenSSL is first initialised. A host that returns from
 * main() or calls exit() with clients alive would run it while the SDK's threads are in the middle
 * of a TLS handshake (the CA store, the key decoders) or a digest: they crashed (SIGSEGV, SIGBUS,
 * "double free"), mostly when requests were failing on TLS (each one a new handshake). Two guards:
 *
 * 1. When the library is loaded, before anything else in the process initialises OpenSSL (a C host
 *    linking the library: its constructor runs before main()), OpenSSL is told never to register
 *    that handler (OPENSSL_INIT_NO_ATEXIT): nothing frees OpenSSL's state under a live thread, the
 *    host's own threads included (a host transport's requests). The memory goes with the process.
 * 2. When OpenSSL was initialised first (a Python host that imported ssl or hashlib before the
 *    package), the handler is registered already and stays. At the first client, after OpenSSL's
 *    handler, the library registers its own (atexit runs them in reverse, so it runs first): it
 *    closes the exit gate below and waits (at most 2 s) until no SDK thread is at work; the SDK's
 *    threads then stop between two turns for good, the process ends without them. */
__attribute__((constructor)) static void ccurl_openssl_no_atexit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

/* The gate: a count of the SDK's threads at work and a flag. Sequentially consistent: a thread
   that counts itself in and then finds the flag clear is seen by the closer, which sets the flag and
   then reads the count. Two atomic operations per turn, no lock. */
static atomic_int gate_inside;         /* threads at work (each once, however deep) */
static atomic_int gate_closed;         /* the process is exiting */
static _Thread_local int gate_depth;   /* this thread's nesting */

int ccurl_work_begin(void) {
    if (gate_depth > 0) {
        gate_depth++;
        return 1;
    }
    atomic_fetch_add(&gate_inside, 1);
    if (atomic_load(&gate_closed)) {
        atomic_fetch_sub(&gate_inside, 1);
        return 0;
    }
    gate_depth = 1;
    return 1;
}

void ccurl_work_end(void) {
    if (--gate_depth == 0) atomic_fetch_sub(&gate_inside, 1);
}

void ccurl_park(void) {
    for (;;) pause();
}

/* What a clean-up left to the process's end: reachable from here, so a leak checker at exit (LSan,
   valgrind) sees memory the process keeps on purpose, not memory it lost. */
struct left_node {
    void *memory;
    struct left_node *next;
};
static struct left_node *_Atomic left_at_exit;

void ccurl_leave_to_exit(void *memory) {
    if (memory == NULL) return;
    struct left_node *node = malloc(sizeof *node);
    if (node == NULL) return;
    node->memory = memory;
    node->next = atomic_load(&left_at_exit);
    while (!atomic_compare_exchange_weak(&left_at_exit, &node->next, node)) {}
}

/* atexit: close the gate, wait for the work in progress (not the caller's own: exit() called from
   inside the SDK's work, a log sink for instance), at most 2 s (a thread blocked in a host's
   callback must not hang the exit). */
static void gate_close(void) {
    atomic_store(&gate_closed, 1);
    int own = gate_depth > 0 ? 1 : 0;
    struct timespec millisecond = {0, 1000000L};
    for (int waited = 0; atomic_load(&gate_inside) > own && waited < 2000; waited++) nanosleep(&millisecond, NULL);
}

/* fork(): the child has the forking thread only; the others' work is not its own. */
static void gate_after_fork_child(void) { atomic_store(&gate_inside, gate_depth > 0 ? 1 : 0); }

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_OK;
static void init(void) {
    init_result = curl_global_init(CURL_GLOBAL_DEFAULT);  /* initialises OpenSSL: its handler (if any) first */
    pthread_atfork(NULL, NULL, gate_after_fork_child);
    atexit(gate_close);
}

CURLcode ccurl_global_init_once(void) {
    pthread_once(&once, init);
    return init_result;
}

CURLcode ccurl_setopt_long(CURL *easy, CURLoption option, long value) { return curl_easy_setopt(easy, option, value); }
CURLcode ccurl_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode ccurl_setopt_pointer(CURL *easy, CURLoption option, void *value) { return curl_easy_setopt(easy, option, value); }
CURLcode ccurl_setopt_data_fn(CURL *easy, CURLoption option, ccurl_data_fn fn) {
    return curl_easy_setopt(easy, option, fn);
}
CURLcode ccurl_setopt_blob(CURL *easy, CURLoption option, void *data, size_t length) {
    struct curl_blob blob = {data, length, CURL_BLOB_NOCOPY};
    return curl_easy_setopt(easy, option, &blob);
}
const char *ccurl_default_cainfo(void) { return curl_version_info(CURLVERSION_NOW)->cainfo; }
CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
CURLSHcode ccurl_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}
static int count_resolve(void *resolver_state, void *reserved, void *counter) {
    (void)resolver_state;
    (void)reserved;
    *(unsigned long long *)counter += 1;
    return 0;
}

CURLcode ccurl_setopt_resolve_counter(CURL *easy, unsigned long long *counter) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_RESOLVER_START_DATA, (void *)counter);
    return code != CURLE_OK ? code : curl_easy_setopt(easy, CURLOPT_RESOLVER_START_FUNCTION, count_resolve);
}

CURLcode ccurl_getinfo_long(CURL *easy, CURLINFO info, long *out) { return curl_easy_getinfo(easy, info, out); }
CURLcode ccurl_getinfo_pointer(CURL *easy, CURLINFO info, void **out) { return curl_easy_getinfo(easy, info, out); }
CURLcode ccurl_getinfo_double(CURL *easy, CURLINFO info, double *out) { return curl_easy_getinfo(easy, info, out); }

/* --- warm-ups (CurlTransport.warmUp) ------------------------------------------------------------
 * A warm-up is a HEAD of the service's origin ("/", no API path: nothing Adobe's throttle counts)
 * whose transfer asks, once its connection is ready, which protocol TLS negotiated (ALPN):
 * - "h2": it stops before the request (CURL_PREREQFUNC_ABORT). libcurl keeps a multiplexed connection
 *   in its pool after such a stop; a spare (the second connection of a cold start) is closed instead
 *   (CURLOPT_FORBID_REUSE): one HTTP/2 connection carries every request.
 * - anything else over TLS (HTTP/1.1): the HEAD goes. libcurl closes an HTTP/1.1 connection whose
 *   transfer stopped early, so only a finished exchange leaves it in the pool, ready for the next
 *   request, with the server's TLS session ticket (sent after the handshake) in the share.
 * - no TLS, or a TLS library other than OpenSSL: it stops, as before warm-ups sent anything.
 * The ALPN is read with OpenSSL's SSL_get0_alpn_selected, found in libcurl's own dependencies
 * (dlopen of libcurl's file with RTLD_NOLOAD, then dlsym): the OpenSSL libcurl uses, whichever it
 * is, and no link to libssl. */

typedef void (*ccurl_alpn_fn)(const void *ssl, const unsigned char **data, unsigned int *length);
static ccurl_alpn_fn ccurl_alpn_selected;
static pthread_once_t ccurl_alpn_once = PTHREAD_ONCE_INIT;

static void ccurl_resolve_alpn(void) {
    Dl_info info;
    if (!dladdr((void *)curl_easy_init, &info) || !info.dli_fname) return;
    void *curl = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!curl) return;
    ccurl_alpn_selected = (ccurl_alpn_fn)dlsym(curl, "SSL_get0_alpn_selected");
    dlclose(curl);  /* libcurl stays loaded: the library links it */
}

int ccurl_connection_protocol(CURL *easy) {
    struct curl_tlssessioninfo *tls = NULL;
    if (curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &tls) != CURLE_OK || !tls || !tls->internals ||
        tls->backend != CURLSSLBACKEND_OPENSSL)
        return CCURL_PROTOCOL_UNKNOWN;
    pthread_once(&ccurl_alpn_once, ccurl_resolve_alpn);
    if (!ccurl_alpn_selected) return CCURL_PROTOCOL_UNKNOWN;
    const unsigned char *alpn = NULL;
    unsigned int length = 0;
    ccurl_alpn_selected(tls->internals, &alpn, &length);
    return alpn && length == 2 && memcmp(alpn, "h2", 2) == 0 ? CCURL_PROTOCOL_H2 : CCURL_PROTOCOL_TLS_OTHER;
}

static int ccurl_warm_up_decide(CURL *easy, int spare) {
    switch (ccurl_connection_protocol(easy)) {
    case CCURL_PROTOCOL_H2:
        if (spare) curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
        return CURL_PREREQFUNC_ABORT;
    case CCURL_PROTOCOL_TLS_OTHER: return CURL_PREREQFUNC_OK;
    default: return CURL_PREREQFUNC_ABORT;
    }
}

static int ccurl_warm_up_keep(void *easy, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)primary_ip; (void)local_ip; (void)primary_port; (void)local_port;
    return ccurl_warm_up_decide(easy, 0);
}

static int ccurl_warm_up_spare(void *easy, char *primary_ip, char *local_ip, int primary_port, int local_port) {
    (void)primary_ip; (void)local_ip; (void)primary_port; (void)local_port;
    return ccurl_warm_up_decide(easy, 1);
}

CURLcode ccurl_setopt_warm_up(CURL *easy, int spare) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, spare ? ccurl_warm_up_spare : ccurl_warm_up_keep);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_PREREQDATA, easy);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    /* A spare neither takes nor leaves a TLS session in the client's share: over HTTP/2 it is closed
     * right after its handshake, and the session it would store there was seen to resume nothing
     * (the next connection then paid a full handshake); the first request's connection stores its
     * own. */
    if (code == CURLE_OK && spare) code = curl_easy_setopt(easy, CURLOPT_SSL_SESSIONID_CACHE, 0L);
    return code;
}

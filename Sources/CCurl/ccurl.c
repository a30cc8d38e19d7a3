// SPDX-License-Identifier: Apache-2.0
#include "ccurl.h"
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
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
CURLcode ccurl_getinfo_long(CURL *easy, CURLINFO info, long *out) { return curl_easy_getinfo(easy, info, out); }
CURLcode ccurl_getinfo_pointer(CURL *easy, CURLINFO info, void **out) { return curl_easy_getinfo(easy, info, out); }

static int ccurl_stop_before_request(void *client, char *conn_primary_ip, char *conn_local_ip, int conn_primary_port,
                                     int conn_local_port) {
    (void)client; (void)conn_primary_ip; (void)conn_local_ip; (void)conn_primary_port; (void)conn_local_port;
    return CURL_PREREQFUNC_ABORT;
}

CURLcode ccurl_setopt_connect_then_stop(CURL *easy) {
    return curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, ccurl_stop_before_request);
}

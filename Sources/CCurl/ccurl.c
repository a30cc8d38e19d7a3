// SPDX-License-Identifier: Apache-2.0
#include "ccurl.h"
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_OK;
static void init(void) { init_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

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

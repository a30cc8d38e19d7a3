// SPDX-License-Identifier: Apache-2.0
// An LD_PRELOAD shim for the DNS test and benchmark (Tests/python/test_dns.py, Benchmarks/roundtrips.py):
// resolves the test name AE_TEST_DNS_HOST (e.g. adobe.test) to AE_TEST_DNS_ADDRESS (default 127.0.0.1),
// as an /etc/hosts line would, counting each getaddrinfo() call for it (libcurl's threaded resolver
// calls it once per resolution; libcurl answers "localhost" itself, so a test name is needed) and, with
// AE_TEST_DNS_DELAY_MS, answering that much later (a resolver far away). The count is read through
// ae_test_dns_lookups() (ctypes.CDLL(None)). Build: cc -shared -fPIC -o x.so dns_counter.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int lookups;

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
    static int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    if (!real) real = (int (*)(const char *, const char *, const struct addrinfo *, struct addrinfo **))dlsym(
                   RTLD_NEXT, "getaddrinfo");
    const char *watched = getenv("AE_TEST_DNS_HOST");
    if (node && watched && strcmp(node, watched) == 0) {
        atomic_fetch_add(&lookups, 1);
        const char *delay = getenv("AE_TEST_DNS_DELAY_MS");
        long ms = delay ? atol(delay) : 0;
        if (ms > 0) {
            struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
            nanosleep(&wait, NULL);
        }
        const char *address = getenv("AE_TEST_DNS_ADDRESS");
        return real(address ? address : "127.0.0.1", service, hints, res);
    }
    return real(node, service, hints, res);
}

int ae_test_dns_lookups(void) { return atomic_load(&lookups); }

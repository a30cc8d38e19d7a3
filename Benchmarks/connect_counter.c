// SPDX-License-Identifier: Apache-2.0
/*
 * connect_counter.c: an LD_PRELOAD shim that counts connect() calls to one TCP port, per second.
 *
 * Benchmarks/outage.py preloads it into its client processes: a connection the kernel refuses
 * never reaches any server, so the attempts of the fleet can only be counted where they are made.
 * libcurl connects without blocking (connect() returns EINPROGRESS and the result comes later), so
 * this counts calls, not outcomes: a refused connection is counted like one that succeeds.
 *
 * Environment, read at the first connect():
 *   AE_CONNECT_COUNTER_PORT   the port to count (the outage proxy's); unset or 0: count nothing
 *   AE_CONNECT_COUNTER_EPOCH  the Unix second the per-second counts start at (default: the first call's)
 *
 * Exported for ctypes (ctypes.CDLL(None) finds them in a preloaded library):
 *   unsigned long long connect_counter_total(void)        every counted call
 *   unsigned long long connect_counter_at(long long sec)  the calls made during Unix second `sec`
 *
 * Build: cc -shared -fPIC -O2 -o connect_counter.so connect_counter.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#define SECONDS 86400 /* one day of per-second counts; later calls count in the total only */

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);

static connect_fn real_connect;
static int watched_port = -1; /* -1: environment not read yet */
static long long epoch;
static unsigned long long total;
static unsigned long long per_second[SECONDS];

static void setup(void) {
    /* Racing threads compute the same values: storing them twice is harmless. */
    const char *port = getenv("AE_CONNECT_COUNTER_PORT");
    const char *start = getenv("AE_CONNECT_COUNTER_EPOCH");
    epoch = start ? atoll(start) : (long long)time(NULL);
    __atomic_store_n(&watched_port, port ? atoi(port) : 0, __ATOMIC_RELEASE);
}

static int port_of(const struct sockaddr *address, socklen_t length) {
    if (address == NULL) return -1;
    if (address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in))
        return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->sa_family == AF_INET6 && length >= (socklen_t)sizeof(struct sockaddr_in6))
        return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return -1;
}

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    connect_fn next = __atomic_load_n(&real_connect, __ATOMIC_ACQUIRE);
    if (next == NULL) {
        next = (connect_fn)dlsym(RTLD_NEXT, "connect");
        __atomic_store_n(&real_connect, next, __ATOMIC_RELEASE);
    }
    if (__atomic_load_n(&watched_port, __ATOMIC_ACQUIRE) < 0) setup();
    int port = __atomic_load_n(&watched_port, __ATOMIC_ACQUIRE);
    if (port > 0 && port_of(address, length) == port) {
        __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        long long index = (long long)now.tv_sec - epoch;
        if (index >= 0 && index < SECONDS) __atomic_fetch_add(&per_second[index], 1, __ATOMIC_RELAXED);
    }
    return next(fd, address, length);
}

unsigned long long connect_counter_total(void) { return __atomic_load_n(&total, __ATOMIC_RELAXED); }

unsigned long long connect_counter_at(long long second) {
    long long index = second - epoch;
    if (__atomic_load_n(&watched_port, __ATOMIC_ACQUIRE) < 0 || index < 0 || index >= SECONDS) return 0;
    return __atomic_load_n(&per_second[index], __ATOMIC_RELAXED);
}

// SPDX-License-Identifier: Apache-2.0
// Linux system calls the Glibc module does not export to Swift.
#ifndef CSYSTEM_H
#define CSYSTEM_H
#include <sys/eventfd.h>

/// A non-blocking, close-on-exec eventfd (event-loop mode's readiness descriptor).
static inline int csystem_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
#endif

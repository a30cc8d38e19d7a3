// SPDX-License-Identifier: Apache-2.0
// Linux system calls the Glibc module does not export to Swift.
#ifndef CSYSTEM_H
#define CSYSTEM_H
#include <sys/eventfd.h>

/// A non-blocking, close-on-exec eventfd (event-loop mode's readiness descriptor).
static inline int csystem_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// The library's locks (Support/Lock.swift) count themselves per thread, so that a log line produced
/// while the thread holds one is delivered to the host's sink only once it holds none: a sink may call
/// any ae_* function, which may take the same locks (Support/Log.swift).
void csystem_lock_enter(void);
/// Leaves one lock; when it was the thread's last and lines were deferred, returns them (and forgets
/// them here): the caller delivers them. NULL otherwise.
void *csystem_lock_exit(void);
/// How many of the library's locks the calling thread holds.
unsigned csystem_lock_depth(void);
/// The calling thread's deferred log lines (NULL: none).
void *csystem_deferred_logs(void);
void csystem_set_deferred_logs(void *logs);
#endif

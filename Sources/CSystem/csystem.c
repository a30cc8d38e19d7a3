// SPDX-License-Identifier: Apache-2.0
// The header-only wrappers live in include/csystem.h; the thread-local state of the library's locks
// lives here (one definition for the whole library).
#include "csystem.h"

#include <stddef.h>

/// How many of the library's locks the calling thread holds, and the log lines it produced meanwhile
/// (an opaque Swift object, or NULL): delivered to the host's sink when the last lock is released.
static _Thread_local unsigned lock_depth;
static _Thread_local void *deferred_logs;

void csystem_lock_enter(void) { lock_depth += 1; }

void *csystem_lock_exit(void) {
    lock_depth -= 1;
    if (lock_depth != 0 || deferred_logs == NULL) return NULL;
    void *taken = deferred_logs;
    deferred_logs = NULL;
    return taken;
}

unsigned csystem_lock_depth(void) { return lock_depth; }

void *csystem_deferred_logs(void) { return deferred_logs; }

void csystem_set_deferred_logs(void *logs) { deferred_logs = logs; }

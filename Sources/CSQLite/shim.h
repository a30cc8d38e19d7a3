// SPDX-License-Identifier: Apache-2.0
#include <sqlite3.h>
// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }

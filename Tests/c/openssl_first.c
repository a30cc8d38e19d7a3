/* SPDX-License-Identifier: Apache-2.0
 *
 * A library that initialises OpenSSL from its constructor, for Tests/python/test_exit.py. Linked into
 * exit_alive after libaccessenabler (DT_NEEDED order), its constructor runs before the library's: OpenSSL
 * registers its atexit clean-up (OPENSSL_cleanup) before the library can ask for OPENSSL_INIT_NO_ATEXIT.
 * That is the process of a host that initialised OpenSSL before loading the library (a plugin host,
 * Python with ssl imported first), where the library's exit gate alone keeps its threads out of the
 * clean-up (Sources/CCurl/ccurl.c). Checked once with gdb: OPENSSL_cleanup runs at that program's exit,
 * not at the plain one's.
 */
#include <openssl/ssl.h>

__attribute__((constructor)) static void initialise_openssl(void) { OPENSSL_init_ssl(0, NULL); }

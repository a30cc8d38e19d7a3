// SPDX-License-Identifier: Apache-2.0
#include <openssl/evp.h>
#include <openssl/rand.h>

// SPDX-License-Identifier: Apache-2.0
// Jansson (Debian libjansson-dev, 2.14): the JSON parser and printer of the library
// (Sources/AccessEnabler/Support/JSON.swift; docs/DECISIONS.md "JSON").
#include <jansson.h>

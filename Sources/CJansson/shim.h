// SPDX-License-Identifier: Apache-2.0
// Jansson (Debian libjansson-dev, 2.14): the JSON parser and printer of the library
// (Sources/AccessEnabler/Support/JSON.swift; docs/DECISIONS.md "JSON").
#include <jansson.h>

#include <stddef.h>

/// One pass over JSON text before Jansson parses it (Support/JSON.swift): the offset of the first
/// NUL byte, or -1; `*too_deep` is set when arrays and objects nest deeper than `max_depth` outside
/// strings (the text need not be valid). C rather than Swift: a 4 MiB answer is scanned in
/// milliseconds even in unoptimized, sanitizer-instrumented test builds.
static inline long ae_json_prescan(const unsigned char *text, size_t length, int max_depth, int *too_deep) {
    long nul = -1;
    int depth = 0, in_string = 0, escaped = 0;
    *too_deep = 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = text[i];
        if (c == 0 && nul < 0) nul = (long)i;
        if (in_string) {
            if (escaped) escaped = 0;
            else if (c == '\\') escaped = 1;
            else if (c == '"') in_string = 0;
            continue;
        }
        if (c == '"') in_string = 1;
        else if (c == '[' || c == '{') { if (++depth > max_depth) *too_deep = 1; }
        else if (c == ']' || c == '}') depth--;
    }
    return nul;
}

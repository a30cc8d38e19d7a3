/* SPDX-License-Identifier: Apache-2.0
 * json_text — see json_text.h. A strict scanner: it skips values by their grammar (strings with
 * their escapes, nested objects and arrays, numbers, literals) and refuses what is not JSON. */
#include "json_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static int hex4(const char *p, unsigned *out) {
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        value <<= 4;
        if (c >= '0' && c <= '9') value |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') value |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') value |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = value;
    return 0;
}

/* Appends the UTF-8 encoding of `code` to out[*length] when it fits (always counts it). */
static void put_utf8(unsigned code, char *out, size_t size, size_t *length) {
    char bytes[4];
    size_t count;
    if (code < 0x80) { bytes[0] = (char)code; count = 1; }
    else if (code < 0x800) { bytes[0] = (char)(0xC0 | (code >> 6)); bytes[1] = (char)(0x80 | (code & 0x3F)); count = 2; }
    else if (code < 0x10000) {
        bytes[0] = (char)(0xE0 | (code >> 12));
        bytes[1] = (char)(0x80 | ((code >> 6) & 0x3F));
        bytes[2] = (char)(0x80 | (code & 0x3F));
        count = 3;
    } else {
        bytes[0] = (char)(0xF0 | (code >> 18));
        bytes[1] = (char)(0x80 | ((code >> 12) & 0x3F));
        bytes[2] = (char)(0x80 | ((code >> 6) & 0x3F));
        bytes[3] = (char)(0x80 | (code & 0x3F));
        count = 4;
    }
    for (size_t i = 0; i < count; i++, (*length)++) {
        if (out && *length + 1 < size) out[*length] = bytes[i];
    }
}

/* Reads the string starting at `p` (its opening quote). Decodes it into `out` when `out` is not
   NULL. Returns the position after the closing quote, or NULL when malformed; `*length` gets the
   decoded length (which may exceed `size`). */
static const char *read_string(const char *p, char *out, size_t size, size_t *length) {
    if (*p != '"') return NULL;
    p++;
    *length = 0;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c == '\0' || c < 0x20) return NULL;
        if (c != '\\') {
            if (out && *length + 1 < size) out[*length] = (char)c;
            (*length)++;
            p++;
            continue;
        }
        p++;
        unsigned code;
        switch (*p) {
        case '"': code = '"'; break;
        case '\\': code = '\\'; break;
        case '/': code = '/'; break;
        case 'b': code = '\b'; break;
        case 'f': code = '\f'; break;
        case 'n': code = '\n'; break;
        case 'r': code = '\r'; break;
        case 't': code = '\t'; break;
        case 'u':
            if (hex4(p + 1, &code) != 0) return NULL;
            p += 4;
            if (code >= 0xD800 && code <= 0xDBFF) { /* a surrogate pair */
                unsigned low;
                if (p[1] != '\\' || p[2] != 'u' || hex4(p + 3, &low) != 0 || low < 0xDC00 || low > 0xDFFF) return NULL;
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            } else if (code >= 0xDC00 && code <= 0xDFFF) {
                return NULL;
            }
            break;
        default: return NULL;
        }
        put_utf8(code, out, size, length);
        p++;
    }
    if (out && size > 0) out[*length < size ? *length : size - 1] = '\0';
    return p + 1;
}

static const char *skip_value(const char *p, int depth);

static const char *skip_container(const char *p, int depth, char close) {
    int object = close == '}';
    p = skip_space(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
        size_t ignored;
        if (object) {
            p = read_string(p, NULL, 0, &ignored);
            if (!p) return NULL;
            p = skip_space(p);
            if (*p != ':') return NULL;
            p = skip_space(p + 1);
        }
        p = skip_value(p, depth + 1);
        if (!p) return NULL;
        p = skip_space(p);
        if (*p == close) return p + 1;
        if (*p != ',') return NULL;
        p = skip_space(p + 1);
    }
}

static const char *skip_value(const char *p, int depth) {
    size_t ignored;
    if (depth > 64) return NULL;
    switch (*p) {
    case '"': return read_string(p, NULL, 0, &ignored);
    case '{': return skip_container(p, depth, '}');
    case '[': return skip_container(p, depth, ']');
    case 't': return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f': return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n': return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default: {
        char *end;
        if (*p != '-' && (*p < '0' || *p > '9')) return NULL;
        strtod(p, &end);
        return end > p ? end : NULL;
    }
    }
}

/* The start of member `key`'s value in `object`, or NULL. */
static const char *find_member(const char *object, const char *key) {
    const char *p = skip_space(object);
    if (*p != '{') return NULL;
    p = skip_space(p + 1);
    if (*p == '}') return NULL;
    size_t key_length = strlen(key);
    for (;;) {
        char name[128];
        size_t length;
        p = read_string(p, name, sizeof name, &length);
        if (!p) return NULL;
        p = skip_space(p);
        if (*p != ':') return NULL;
        p = skip_space(p + 1);
        if (length == key_length && length < sizeof name && memcmp(name, key, length) == 0) return p;
        const char *end = skip_value(p, 1);
        if (!end) return NULL;
        p = skip_space(end);
        if (*p != ',') return NULL;
        p = skip_space(p + 1);
    }
}

int json_string_member(const char *object, const char *key, char *out, size_t size) {
    const char *value = find_member(object, key);
    size_t length;
    if (!value || *value != '"' || !read_string(value, out, size, &length) || length >= size) return -1;
    return 0;
}

int json_number_member(const char *object, const char *key, double *out) {
    const char *value = find_member(object, key);
    char *end;
    if (!value || (*value != '-' && (*value < '0' || *value > '9'))) return -1;
    *out = strtod(value, &end);
    return end > value ? 0 : -1;
}

const char *json_array_next(const char **cursor) {
    const char *p = skip_space(*cursor);
    if (*p == '[') {
        p = skip_space(p + 1);
    } else if (*p == ',') {
        p = skip_space(p + 1);
    } else {
        return NULL; /* the closing bracket, or not an array */
    }
    if (*p == ']') return NULL;
    const char *end = skip_value(p, 1);
    if (!end) return NULL;
    *cursor = skip_space(end);
    return p;
}

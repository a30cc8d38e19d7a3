/* SPDX-License-Identifier: Apache-2.0
 *
 * json_text — just enough JSON reading for the example player: the SDK hands structured values
 * to callbacks as JSON text (RFC 8259), and the player needs a few fields of them (the REGCODE
 * status's "code", "url" and "notAfter", each MVPD's "ID" and "displayName"). A real host would
 * use its JSON library (cJSON, json-c, jansson, glib's json-glib); this one has no dependency.
 *
 * Every function takes NUL-terminated JSON text and never reads past its end.
 */
#ifndef JSON_TEXT_H
#define JSON_TEXT_H

#include <stddef.h>

/* The string member `key` of the object `object`, decoded to UTF-8 into `out` (NUL-terminated).
   Returns 0; -1 when `object` is not an object, has no such member, the member is not a string,
   or the value does not fit in `size` bytes. */
int json_string_member(const char *object, const char *key, char *out, size_t size);

/* The number member `key` of the object `object`. Returns 0 or -1 (as above). */
int json_number_member(const char *object, const char *key, double *out);

/* Walks the elements of an array: pass the array text as `*cursor` the first time. Returns the
   start of the next element (and moves `*cursor` past it), or NULL at the end of the array or on
   malformed text. */
const char *json_array_next(const char **cursor);

#endif /* JSON_TEXT_H */

/* SPDX-License-Identifier: Apache-2.0
 * terminal_qr — draws a QR code (libqrencode) in a terminal, two module rows per text line with
 * the Unicode half blocks ▀ ▄ █. */
#ifndef TERMINAL_QR_H
#define TERMINAL_QR_H

#include <stdio.h>

/* Prints `text` as a QR code to `out`, each line prefixed with `indent`. With `ansi` non-zero the
   code is drawn black on white with ANSI colours (right on any terminal theme); without, light
   modules are drawn as blocks (right on a dark terminal, as in most log viewers).
   Returns 0, or -1 when the text cannot be encoded (too long; errno from libqrencode). */
int terminal_qr_print(FILE *out, const char *text, const char *indent, int ansi);

#endif /* TERMINAL_QR_H */

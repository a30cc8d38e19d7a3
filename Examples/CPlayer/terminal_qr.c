/* SPDX-License-Identifier: Apache-2.0
 * terminal_qr — see terminal_qr.h. */
#include "terminal_qr.h"

#include <qrencode.h>

#define QUIET_ZONE 2 /* light modules around the code, so a phone finds its edges */

/* 1 when the module at (x, y) is dark; the quiet zone and everything outside the code are light. */
static int dark(const QRcode *code, int x, int y) {
    x -= QUIET_ZONE;
    y -= QUIET_ZONE;
    if (x < 0 || y < 0 || x >= code->width || y >= code->width) return 0;
    return code->data[y * code->width + x] & 1;
}

int terminal_qr_print(FILE *out, const char *text, const char *indent, int ansi) {
    QRcode *code = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
    if (!code) return -1;
    ansi = ansi != 0;
    int size = code->width + 2 * QUIET_ZONE;
    for (int y = 0; y < size; y += 2) {
        fputs(indent, out);
        if (ansi) fputs("\033[30;47m", out); /* black on white */
        for (int x = 0; x < size; x++) {
            /* The glyph draws the "ink": dark modules with ANSI colours, light ones without. */
            int top = dark(code, x, y) == ansi;
            int bottom = (y + 1 < size ? dark(code, x, y + 1) : 0) == ansi;
            fputs(top && bottom ? "\u2588" : top ? "\u2580" : bottom ? "\u2584" : " ", out);
        }
        if (ansi) fputs("\033[0m", out);
        fputc('\n', out);
    }
    QRcode_free(code);
    return 0;
}

# SPDX-License-Identifier: Apache-2.0
#
# accessenabler-diag's --help and its man page from one text (help.txt), at build time:
#   cmake -DHELP_TEXT=Tools/diag/help.txt -DOUTPUT_DIR=<dir> -DVERSION=1.5.0 -P Tools/diag/GenerateHelp.cmake
# writes <dir>/help.inc (the text's lines as C string literals, included by accessenabler-diag.c) and
# <dir>/accessenabler-diag.1 (section 1: the same text, its headings as sections, the rest as written).
foreach(_var HELP_TEXT OUTPUT_DIR VERSION)
    if(NOT DEFINED ${_var})
        message(FATAL_ERROR "GenerateHelp.cmake needs -D${_var}=...")
    endif()
endforeach()
file(READ "${HELP_TEXT}" _text)

# The C strings: one literal per line (C99 compilers need not take a literal over 4095 bytes), backslashes
# and quotes escaped; the initialiser of an array of lines.
string(REPLACE "\\" "\\\\" _c "${_text}")
string(REPLACE "\"" "\\\"" _c "${_c}")
string(REGEX REPLACE "\n$" "" _c "${_c}")
string(REPLACE "\n" "\",\n\"" _c "${_c}")
file(WRITE "${OUTPUT_DIR}/help.inc.tmp" "/* Generated from help.txt by GenerateHelp.cmake: edit help.txt. */\n\"${_c}\",\n")
file(COPY_FILE "${OUTPUT_DIR}/help.inc.tmp" "${OUTPUT_DIR}/help.inc" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT_DIR}/help.inc.tmp")

# The man page: each unindented line a section heading (.SH), the rest preformatted (.nf), roff's
# escape character and leading dots and quotes made literal.
string(REPLACE "\\" "\\e" _roff "${_text}")
string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" _roff "${_roff}")
string(REGEX REPLACE "\n([A-Z][A-Z ]+)\n" "\n.SH \\1\n" _roff "\n${_roff}")
string(REGEX REPLACE "^\n" "" _roff "${_roff}")
string(REGEX REPLACE "^([A-Z][A-Z ]+)\n" ".SH \\1\n" _roff "${_roff}")
string(REPLACE "\n.SH " "\n.fi\n.SH " _roff "${_roff}")
string(REGEX REPLACE "(\n.SH [A-Z ]+\n)" "\\1.nf\n" _roff "${_roff}")
string(REGEX REPLACE "^(.SH [A-Z ]+\n)" "\\1.nf\n" _roff "${_roff}")
# NAME as whatis (lexgrog, lintian) reads it: "name \- summary" on one plain line.
string(REGEX REPLACE "^.SH NAME\n.nf\n +([^ \n]+) - ([^\n]+)\n\n.fi\n" ".SH NAME\n\\1 \\\\- \\2\n" _roff "${_roff}")
file(WRITE "${OUTPUT_DIR}/accessenabler-diag.1"
     ".\\\" Generated from Tools/diag/help.txt by GenerateHelp.cmake: edit help.txt.\n"
     ".TH ACCESSENABLER-DIAG 1 \"\" \"AccessEnabler for Linux ${VERSION}\" \"User Commands\"\n"
     "${_roff}.fi\n")

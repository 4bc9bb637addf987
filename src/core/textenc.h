/* SPDX-License-Identifier: MIT */
/* textenc.h - strings of arbitrary bytes in JSON and XML text: escaped, invalid UTF-8 replaced (internal). */
#ifndef IST_CORE_TEXTENC_H
#define IST_CORE_TEXTENC_H

#include <stddef.h>
#include <stdio.h>

/*
 * Names in a trace (device names, metadata keys and values, the paths a
 * command was given) are bytes, any but NUL: an importer takes them as the
 * input has them, which need not be UTF-8 (a Latin-1 file name, a damaged
 * line).  JSON and XML text must be UTF-8, so every writer of them puts
 * such strings out through these functions: each byte that is not part of
 * a well-formed UTF-8 character becomes U+FFFD (the replacement character,
 * one per byte, so that the byte count stays visible), written as the
 * escape \ufffd in JSON and &#xFFFD; in XML.  Well-formed characters are
 * kept as they are.
 */

/* Length (1 to 4) of the well-formed UTF-8 character at s, which has n
 * bytes left; 0 if the byte at s begins none: a stray continuation byte,
 * an overlong form, a surrogate, a code point past U+10FFFF, or a
 * character cut short by the end. */
size_t istint_utf8_len(const char *s, size_t n);

/* Writes s to f as a quoted JSON string: '"' and '\\' escaped, control
 * characters as \u00XX, bytes not part of well-formed UTF-8 as \ufffd.
 * 0, or -1 when f has an error. */
int istint_json_put_str(FILE *f, const char *s);

/* Writes the JSON text js to f with each byte that is not part of
 * well-formed UTF-8 as \ufffd.  For json-c's output, which passes the
 * bytes of strings through unchecked: outside its strings JSON text is
 * ASCII, so such bytes are inside a string, where the escape is valid.
 * 0, or -1 when f has an error. */
int istint_json_put_text(FILE *f, const char *js);

/* Writes s to f as XML character data or attribute value: markup
 * characters as entities, control characters other than tab and newline
 * (not allowed in XML 1.0) as '?', bytes not part of well-formed UTF-8 as
 * &#xFFFD;. */
void istint_xml_put_str(FILE *f, const char *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * jscan.h - finding values in JSON text without building a tree: a long
 * run's thousands of interval rows are parsed one at a time instead of all
 * at once (json-c's tree costs ~10x the text).  The scanner tracks strings
 * and nesting only; the values it finds are parsed (and checked) by json-c
 * (internal, rpt_ prefix).
 */
#ifndef IST_REPORT_JSCAN_H
#define IST_REPORT_JSCAN_H

#include <stddef.h>

/* Offset of the first non-white-space byte at or after pos (len if none). */
size_t rpt_jscan_ws(const char *buf, size_t len, size_t pos);
/* Offset just past the value starting at pos (a string, object, array or
 * scalar), or 0 when the text ends first. */
size_t rpt_jscan_value_end(const char *buf, size_t len, size_t pos);
/* The value of member key of the top-level object: [*vs, *ve).  0, or -1
 * when absent, or when the text is not an object that scans cleanly (the
 * parser then says what is wrong). */
int rpt_jscan_member(const char *buf, size_t len, const char *key, size_t *vs,
		     size_t *ve);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One set of print calls for text and JSON output: a command describes
 * what it shows once, and the output mode decides how it looks.
 */
#ifndef RBDADM_OUTPUT_H
#define RBDADM_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

enum out_mode { OUT_TEXT, OUT_JSON };

void out_init(enum out_mode mode);
/* Flush everything (the JSON document) to stdout; returns 0 or -1. */
int out_finish(void);

/*
 * A list of records (JSON array; text: one block per record) and a named
 * object inside the current one (JSON only; text: nothing). out_end()
 * closes the innermost one of them that is open.
 */
void out_list_begin(const char *key);
void out_record_begin(void);
void out_object_begin(const char *key);
/* A named object in JSON; in text a line with TITLE before its fields. */
void out_section(const char *key, const char *title);
void out_end(void);

void out_str(const char *key, const char *label, const char *val);
void out_u64(const char *key, const char *label, uint64_t val);
void out_i64(const char *key, const char *label, int64_t val);
void out_bool(const char *key, const char *label, bool val);
void out_null(const char *key, const char *label);

/* One clear line on stderr, prefixed with the program name. */
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

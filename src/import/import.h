/* SPDX-License-Identifier: MIT */
/* import.h - the importer framework: format ops table, session context, driver. */
#ifndef IST_IMPORT_H
#define IST_IMPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"
#include "import/imp_stream.h"

struct imp_ctx;

/*
 * Importers hand records to the framework with t_ns holding an ABSOLUTE
 * time as a signed 64-bit nanosecond count in the format's own epoch
 * (imp_t()/imp_set_t(): Unix time for formats with wall-clock stamps, trace-relative
 * otherwise); the framework sorts them and shifts them to start at 0.
 */
static inline int64_t imp_t(const struct ist_record *rec)
{
	return (int64_t)rec->t_ns;
}

static inline void imp_set_t(struct ist_record *rec, int64_t t)
{
	rec->t_ns = (uint64_t)t;
}

/* Callback through which callback-style sources deliver records (in
 * source order); returns 0 or a negative error that stops the source. */
typedef int (*imp_emit_fn)(void *emit_ctx, const struct ist_record *rec);

enum imp_format_flags {
	IMP_BINARY = 1u << 0,     /* binary records, positions as byte offsets */
	IMP_ALL_INPUTS = 1u << 1, /* one open() for all the input files (they
				     are merged by the importer)            */
	IMP_NO_PROBE = 1u << 2,   /* never auto-detected (needs --format)   */
	IMP_KEEP_TIME = 1u << 3,  /* times are already trace-relative: keep */
	IMP_EVENTS = 1u << 4,     /* records built from several events (the
				     position at hand is not the record's):
				     the record checks are the importer's   */
	IMP_DEVICE_NAME = 1u << 5, /* --device names the device (of inputs
				      that have one, or number theirs)     */
	IMP_KEEP_META = 1u << 6,  /* the input's metadata is the trace's: the
				     import's keys (source_format, ...)
				     fill in only those it lacks           */
};

/*
 * One importer.  Pull-style importers implement open/next/close: open()
 * gets the context whose current stream (imp_cur_stream()) is positioned
 * at the start of the (decompressed) input; next() fills one record and
 * returns 1, 0 at the end, or a negative error after imp_bad*() described
 * it.  Callback-style sources (e.g. a pcap decoder) implement run()
 * instead: it reads path itself and calls emit for every record.
 */
struct imp_format {
	const char *name;
	const char *description;
	const char *time_unit;   /* unit of the source's timestamps          */
	const char *time_epoch;  /* "unix" or "trace" (arbitrary origin)     */
	unsigned flags;
	/* Confidence 0..100 that buf (the first bytes of the input, up to
	 * 64 KiB, decompressed) is this format. */
	int (*probe)(const char *buf, size_t len);
	size_t priv_size;        /* zeroed private state passed to the ops   */
	int (*open)(struct imp_ctx *c, void *priv);
	int (*next)(struct imp_ctx *c, void *priv, struct ist_record *rec);
	/* Optional, beside next(): up to n records at once into recs[0..n)
	 * (every field set), for the common case only.  Returns how many it
	 * parsed, stopping before the first record that is not plainly good
	 * (a bad or doubtful one, one imp_rec_plain() refuses, the end of
	 * what is buffered): next() then reads that one and reports it.
	 * Used by imports that write (into the sort window directly). */
	size_t (*next_batch)(struct imp_ctx *c, void *priv,
			     struct ist_record *recs, size_t n);
	void (*close)(struct imp_ctx *c, void *priv);
	int (*run)(struct imp_ctx *c, const char *path, imp_emit_fn emit,
		   void *emit_ctx);
};

/* A record the framework's own checks pass (what next_batch may return):
 * not a read or write of 0 bytes, its end not past 2^64. */
static inline int imp_rec_plain(const struct ist_record *rec)
{
	return (rec->len != 0 || rec->op == IST_OP_FLUSH) &&
	       rec->offset + rec->len >= rec->offset;
}

/* The registered importers, NULL-terminated. */
extern const struct imp_format *const imp_formats[];
const struct imp_format *imp_format_find(const char *name);
/* Best-scoring format for buf; NULL if none scores above 0. */
const struct imp_format *imp_format_detect(const char *buf, size_t len);

/* Options of one import (zero-initialise, then set). */
struct imp_options {
	const struct imp_format *format; /* NULL: detect from content       */
	uint64_t skip_bad;        /* bad records tolerated                  */
	size_t sort_window;       /* records kept in memory (0 = default)  */
	const char *tmpdir;       /* for sorted runs; NULL = $TMPDIR, /tmp  */
	int absolute_time;        /* keep source timestamps (no shift to 0) */
	char event;               /* blktrace/blkparse: 'Q' or 'D' (0 = D)  */
	const char *columns;      /* csv: column map                        */
	char delimiter;           /* csv: 0 = ','                           */
	char quote;               /* csv: 0 = '"'                           */
	int header_rows;          /* csv: -1 = auto (skip non-numeric rows) */
	const char *device;       /* single-device formats: device name     */
	struct ist_writer_opts writer; /* output writer options            */
};

/* The first option of opt that format f does not use ("--event",
 * "--columns", ...), or NULL: such an option would be ignored. */
const char *imp_unused_option(const struct imp_options *opt, const struct imp_format *f);

/* Records held for sorting by default: 128 Ki (16 MiB with the sort's
 * buffers); disorder within half of it costs nothing more. */
#define IMP_SORT_WINDOW (128u << 10)

#define IMP_MAX_STATS 24
#define IMP_MAX_BADPOS 5

/* What an import did (filled by imp_run, also on failure). */
struct imp_result {
	const struct imp_format *format;
	uint64_t records;         /* written                                */
	uint64_t reordered;       /* records earlier than a predecessor     */
	uint64_t runs;            /* sorted runs spilled to disk            */
	uint64_t skipped;         /* bad records skipped                    */
	char skipped_at[IMP_MAX_BADPOS][1100]; /* "FILE: line N" of the first */
	int64_t start_ns;         /* absolute time of the first record      */
	unsigned nstats;          /* importer-specific counters             */
	struct {
		const char *name;
		uint64_t value;
	} stats[IMP_MAX_STATS];
	/* on failure: the file, position and reason */
	char err_file[512];
	char err_where[96];       /* "line 12", "byte offset 480", ""      */
	char err_reason[256];
};

/*
 * Imports the n input files into the IST file out (NULL: parse and count
 * only).  Returns 0 or a negative error; on error res->err_* says where and
 * why, and out is not left behind.  Never prints.
 */
int imp_run(const char *const *inputs, unsigned n, const char *out,
	    const struct imp_options *opt, struct imp_result *res);

/*
 * Parses inputs with the importer into records handed to emit (unsorted,
 * absolute times), without writing anything: for unit tests and fuzzing.
 * buf/len is one in-memory input (compressed or not).
 */
int imp_parse_mem(const struct imp_format *f, const void *buf, size_t len,
		  const struct imp_options *opt, imp_emit_fn emit,
		  void *emit_ctx, ist_header *h, struct imp_result *res);

/* ---------------------------------------------------------------- for importers */

/* The stream of the input being read, its path, all inputs. */
struct imp_stream *imp_cur_stream(struct imp_ctx *c);
const char *imp_cur_path(struct imp_ctx *c);
unsigned imp_input_count(struct imp_ctx *c);
const char *imp_input_path(struct imp_ctx *c, unsigned i);
const struct imp_options *imp_opts(struct imp_ctx *c);

/* The output header (callback-style sources add their devices and metadata
 * to it directly). */
ist_header *imp_header(struct imp_ctx *c);
/* Index of the device called name (added on first use); negative error. */
int imp_device(struct imp_ctx *c, const char *name, size_t len);
/* Sets a metadata key of the output header. */
int imp_meta(struct imp_ctx *c, const char *key, const char *value);
/* Adds n to the counter called name (a static string). */
void imp_stat(struct imp_ctx *c, const char *name, uint64_t n);

/*
 * Describe a bad input and return IST_EPARSE: at the current stream's last
 * line (imp_bad), at a byte offset (imp_bad_at; record >= 0 names the
 * record number too).  imp_fatal() marks the error as one that --skip-bad
 * cannot step over (the importer lost its place).
 */
int imp_bad(struct imp_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int imp_bad_at(struct imp_ctx *c, const char *path, uint64_t offset,
	       int64_t record, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int imp_fatal(struct imp_ctx *c, int err);
/* A fatal error described by a source that formats its own position
 * (where may be ""); returns err. */
int imp_fail(struct imp_ctx *c, const char *path, const char *where,
	     const char *reason, int err);
/* A bad input (or option) that concerns the whole file: no position. */
int imp_bad_file(struct imp_ctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reports a stream error (decompression, I/O, long line) as a bad input. */
int imp_stream_fail(struct imp_ctx *c, int err);

/* ---------------------------------------------------------------- text helpers */

struct imp_fields;

/* Next non-blank line of the current stream: 1, 0 at the end, or a
 * negative error (already described). */
int imp_next_line(struct imp_ctx *c, char **line, size_t *len);
/* Field i parsed as an unsigned decimal / as a decimal fraction scaled by
 * 10^digits; 0 or IST_EPARSE with "bad WHAT 'text'". */
int imp_field_u64(struct imp_ctx *c, const struct imp_fields *fl, unsigned i,
		  const char *what, uint64_t *v);
int imp_field_fixed(struct imp_ctx *c, const struct imp_fields *fl,
		    unsigned i, unsigned digits, const char *what, uint64_t *v);
/* rec->len = len, or IST_EPARSE if it does not fit 32 bits. */
int imp_set_len(struct imp_ctx *c, struct ist_record *rec, uint64_t len);
/* *out = v * mul, or IST_EPARSE on overflow ("WHAT N out of range"). */
int imp_scale(struct imp_ctx *c, uint64_t v, uint64_t mul, const char *what,
	      uint64_t *out);
/* *t = v * mul as a signed time, or IST_EPARSE on overflow. */
int imp_time(struct imp_ctx *c, uint64_t v, uint64_t mul, int64_t *t);
/* For probes: copies the (skip+1)-th non-blank line of buf into out
 * (truncated); its length or -1. */
int imp_first_line(const char *buf, size_t len, char *out, size_t size,
		   unsigned skip);

#endif

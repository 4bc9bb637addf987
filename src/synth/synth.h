/* SPDX-License-Identifier: MIT */
/*
 * synth.h - workload emulators: a generator handle that yields synthetic
 * I/O records in time order, in batches, for `iostorm synth`, `iostorm
 * demo`, sweeps and tests (no file needed).
 *
 * Use: syn_gen_new() -> syn_gen_set()... -> syn_gen_start() ->
 * syn_gen_read() until it returns 0 -> syn_gen_free().  The same profile,
 * parameters, seed and duration always give the same records, bit for bit.
 * Memory stays bounded whatever the duration: the records come from a
 * calendar queue of streams (users, threads, desktops, background
 * writers), each a state machine that knows its next I/O time.
 */
#ifndef IST_SYNTH_H
#define IST_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"

/* Parameter types. */
enum syn_ptype {
	SYN_P_NUM,   /* a number (may be fractional)                         */
	SYN_P_INT,   /* a non-negative integer                               */
	SYN_P_SIZE,  /* bytes; accepts k/M/G/T suffixes (binary)             */
	SYN_P_TIME,  /* seconds; accepts ns/us/ms/s/m/h suffixes             */
	SYN_P_ENUM,  /* one of choices ("full|linked"); value = its index    */
	SYN_P_STR,   /* free text (a file name)                              */
};

/* One tunable of a profile, with its documentation. */
struct syn_param {
	const char *name;
	enum syn_ptype type;
	const char *def;     /* default, as text                            */
	const char *unit;    /* "", "B", "s", "%", "IOPS", ...              */
	const char *meaning;
	const char *source;  /* where the default comes from                */
	const char *choices; /* SYN_P_ENUM: "a|b|c"                          */
	double min, max;     /* accepted range of the value                 */
};

struct syn_gen;
struct syn_stream;

/* A workload model: a static const ops table, listed in syn_profiles[]. */
struct syn_profile {
	const char *name;
	const char *summary;
	const struct syn_param *params; /* terminated by a NULL name */
	size_t priv_size;               /* zeroed private state          */
	/* Reads parameters, adds devices and streams; 0 or negative error. */
	int (*setup)(struct syn_gen *g, void *priv);
	/*
	 * Advances stream s: fills *rec with one record at time s->t and
	 * returns 1, or returns 0 having produced nothing; either way sets
	 * s->t to the stream's next event (never earlier).  SYN_RETIRE ends
	 * the stream; a negative value is an error.
	 */
	int (*step)(struct syn_gen *g, void *priv, struct syn_stream *s,
		    struct ist_record *rec);
	void (*cleanup)(struct syn_gen *g, void *priv);
};
#define SYN_RETIRE 2

/* The built-in profiles, terminated by NULL. */
extern const struct syn_profile *const syn_profiles[];
/* Profile named name, or NULL. */
const struct syn_profile *syn_profile_find(const char *name);
/* The i-th parameter of p, or NULL past the end. */
const struct syn_param *syn_profile_param(const struct syn_profile *p,
					  unsigned i);

/* Creates a generator for p with its defaults, seed 1, duration 60 s. */
int syn_gen_new(struct syn_gen **g, const struct syn_profile *p);
void syn_gen_free(struct syn_gen *g);
/* Sets a parameter from text before start: 0, -ENOENT (no such
 * parameter), IST_EPARSE (bad value), IST_ERANGE (out of range), -EBUSY
 * (already started). */
int syn_gen_set(struct syn_gen *g, const char *name, const char *value);
/* Parses "name=value" and calls syn_gen_set(). */
int syn_gen_set_kv(struct syn_gen *g, const char *kv);
void syn_gen_set_seed(struct syn_gen *g, uint64_t seed);
void syn_gen_set_duration(struct syn_gen *g, uint64_t duration_ns);
/* Builds the streams and the header.  Returns 0 or a negative error; for
 * errors in a profile file, syn_gen_error() says where and why. */
int syn_gen_start(struct syn_gen *g);
/* Fills up to max records in time order; returns the count, 0 when the
 * duration is reached, or a negative error. */
ssize_t syn_gen_read(struct syn_gen *g, struct ist_record *recs, size_t max);
/* Header of the trace (devices and metadata); valid after start. */
const ist_header *syn_gen_header(const struct syn_gen *g);
/* Records produced so far. */
uint64_t syn_gen_count(const struct syn_gen *g);
/* After a failed start: the line (0 = none) and a reason text. */
const char *syn_gen_error(const struct syn_gen *g, unsigned *line);
/* Formats the value of parameter i as text into buf. */
int syn_gen_param_text(const struct syn_gen *g, unsigned i, char *buf,
		       size_t size);

/* Parses a value of type t from text: 0 or IST_EPARSE. */
int syn_parse_value(enum syn_ptype t, const char *choices, const char *s,
		    double *v);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * mix.h - the generic "mix" workload (vdbench-like): its specification,
 * the INI profile parser that fills it, and the built-in profiles
 * (four corners, SQL, Oracle) written in the same INI language.
 */
#ifndef IST_SYNTH_MIX_H
#define IST_SYNTH_MIX_H

#include <stddef.h>
#include <stdint.h>

#define SYN_MIX_MAX_DEV 16
#define SYN_MIX_MAX_SIZES 16

enum syn_arrival { SYN_ARR_CLOSED, SYN_ARR_CONSTANT, SYN_ARR_POISSON,
		   SYN_ARR_HYPEREXP, SYN_ARR_ONOFF };
enum syn_skew { SYN_SKEW_NONE, SYN_SKEW_HOTSPOT, SYN_SKEW_ZIPF };

struct syn_sizes {
	unsigned n;
	uint32_t size[SYN_MIX_MAX_SIZES];
	double weight[SYN_MIX_MAX_SIZES]; /* cumulative, normalized to 1 */
};

struct syn_mix_spec {
	unsigned streams;      /* issuing threads                        */
	double rate;           /* total IOPS; 0 = closed loop            */
	enum syn_arrival arrival;
	double cv;             /* hyperexponential coefficient of variation */
	double on_s, off_s;    /* on/off periods                          */
	double think_s;        /* closed loop: mean think time            */
	double latency_s;      /* nominal device latency                  */
	double read;           /* read share 0..1                         */
	double seq;            /* sequential share 0..1                   */
	double fua;            /* share of writes carrying FUA            */
	unsigned txn_ios;      /* I/Os per transaction; 0 = none          */
	struct syn_sizes rsize, wsize;
	uint32_t align;
	enum syn_skew skew;
	double hot_io, hot_space; /* hot spot: hot_io of I/Os on hot_space */
	double theta;          /* zipf exponent                           */
	unsigned ndev;
	char dev_name[SYN_MIX_MAX_DEV][32];
	uint64_t dev_size[SYN_MIX_MAX_DEV];
	double dev_weight[SYN_MIX_MAX_DEV]; /* cumulative, normalized   */
};

/* Sets the defaults (one 8 KiB random-read stream, no device). */
void syn_mix_defaults(struct syn_mix_spec *m);
/*
 * Parses an INI profile (text of len bytes) into m, over what m holds.
 * Returns 0, or IST_EPARSE with *line (1-based; the last line for errors
 * about the whole file) and a reason in err.
 */
int syn_mix_parse(const char *text, size_t len, struct syn_mix_spec *m,
		  unsigned *line, char *err, size_t errsize);
/* Checks a parsed spec as a whole (devices present, sizes set...). */
int syn_mix_check(const struct syn_mix_spec *m, char *err, size_t errsize);

#endif

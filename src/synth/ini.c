/* SPDX-License-Identifier: MIT */
/* ini.c - the INI language of "mix" workload profiles (traces/profiles/). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "synth/mix.h"
#include "synth/synth.h"

#define LINE_MAX_LEN 1024

void syn_mix_defaults(struct syn_mix_spec *m)
{
	memset(m, 0, sizeof(*m));
	m->streams = 1;
	m->arrival = SYN_ARR_CLOSED;
	m->cv = 4.0;
	m->on_s = 1.0;
	m->off_s = 1.0;
	m->latency_s = 200e-6;
	m->read = 1.0;
	m->rsize.n = 1;
	m->rsize.size[0] = 8192;
	m->rsize.weight[0] = 1.0;
	m->wsize = m->rsize;
	m->align = 0;
	m->theta = 0.99;
}

static int fail(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return IST_EPARSE;
}

static int get_num(enum syn_ptype t, const char *s, double lo, double hi,
		   double *v)
{
	if (syn_parse_value(t, NULL, s, v) < 0 || *v < lo || *v > hi)
		return -1;
	return 0;
}

static int get_pct(const char *s, double *v)
{
	if (get_num(SYN_P_NUM, s, 0, 100, v) < 0)
		return -1;
	*v /= 100.0;
	return 0;
}

/* "8k" or "4k:30,8k:50,64k:20" (weights are relative). */
static int get_sizes(const char *s, struct syn_sizes *z, char *err,
		     size_t errsize)
{
	char item[64];
	double total = 0;

	z->n = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		char *colon;
		double size, w = 1.0;

		if (n == 0 || n >= sizeof(item))
			return fail(err, errsize, "bad size list");
		if (z->n == SYN_MIX_MAX_SIZES)
			return fail(err, errsize, "more than %d sizes",
				    SYN_MIX_MAX_SIZES);
		memcpy(item, s, n);
		item[n] = '\0';
		colon = strchr(item, ':');
		if (colon) {
			*colon = '\0';
			if (get_num(SYN_P_NUM, colon + 1, 0, 1e9, &w) < 0)
				return fail(err, errsize, "bad weight '%s'",
					    colon + 1);
		}
		if (get_num(SYN_P_SIZE, item, 512, 64.0 * 1024 * 1024, &size) < 0 ||
		    fmod(size, 512) != 0)
			return fail(err, errsize,
				    "bad size '%s' (512 B to 64 MiB, multiple of 512)",
				    item);
		z->size[z->n] = (uint32_t)size;
		z->weight[z->n] = w;
		total += w;
		z->n++;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!z->n || total <= 0)
		return fail(err, errsize, "empty size list");
	for (unsigned i = 0, acc = 0; i < z->n; i++) {
		(void)acc;
		z->weight[i] = (i ? z->weight[i - 1] : 0) + z->weight[i] / total;
	}
	z->weight[z->n - 1] = 1.0;
	return 0;
}

static int workload_key(struct syn_mix_spec *m, const char *k, const char *v,
			char *err, size_t errsize)
{
	double x;

	if (!strcmp(k, "streams") || !strcmp(k, "threads")) {
		if (get_num(SYN_P_INT, v, 1, 65536, &x) < 0)
			return fail(err, errsize, "%s must be 1 to 65536", k);
		m->streams = (unsigned)x;
	} else if (!strcmp(k, "rate")) {
		if (get_num(SYN_P_NUM, v, 0, 1e9, &x) < 0)
			return fail(err, errsize, "rate must be 0 to 1e9 IOPS");
		m->rate = x;
		if (x > 0 && m->arrival == SYN_ARR_CLOSED)
			m->arrival = SYN_ARR_POISSON;
	} else if (!strcmp(k, "arrival")) {
		static const char *const names[] = { "closed", "constant",
			"poisson", "hyperexp", "onoff", NULL };
		unsigned i;

		for (i = 0; names[i] && strcmp(names[i], v); i++)
			;
		if (!names[i])
			return fail(err, errsize,
				    "arrival must be closed, constant, poisson, hyperexp or onoff");
		m->arrival = (enum syn_arrival)i;
	} else if (!strcmp(k, "cv")) {
		if (get_num(SYN_P_NUM, v, 1, 100, &x) < 0)
			return fail(err, errsize, "cv must be 1 to 100");
		m->cv = x;
	} else if (!strcmp(k, "on") || !strcmp(k, "off") ||
		   !strcmp(k, "think") || !strcmp(k, "latency")) {
		if (get_num(SYN_P_TIME, v, 0, 86400, &x) < 0)
			return fail(err, errsize, "bad duration '%s'", v);
		if (!strcmp(k, "on"))
			m->on_s = x;
		else if (!strcmp(k, "off"))
			m->off_s = x;
		else if (!strcmp(k, "think"))
			m->think_s = x;
		else if (x <= 0)
			return fail(err, errsize, "latency must be > 0");
		else
			m->latency_s = x;
	} else if (!strcmp(k, "read") || !strcmp(k, "seq") ||
		   !strcmp(k, "fua")) {
		if (get_pct(v, &x) < 0)
			return fail(err, errsize, "%s must be a percentage 0 to 100", k);
		if (!strcmp(k, "read"))
			m->read = x;
		else if (!strcmp(k, "seq"))
			m->seq = x;
		else
			m->fua = x;
	} else if (!strcmp(k, "txn-ios")) {
		if (get_num(SYN_P_INT, v, 0, 1000000, &x) < 0)
			return fail(err, errsize, "txn-ios must be 0 to 1000000");
		m->txn_ios = (unsigned)x;
	} else if (!strcmp(k, "size")) {
		if (get_sizes(v, &m->rsize, err, errsize) < 0)
			return IST_EPARSE;
		m->wsize = m->rsize;
	} else if (!strcmp(k, "read-size")) {
		return get_sizes(v, &m->rsize, err, errsize);
	} else if (!strcmp(k, "write-size")) {
		return get_sizes(v, &m->wsize, err, errsize);
	} else if (!strcmp(k, "align")) {
		if (get_num(SYN_P_SIZE, v, 512, 64.0 * 1024 * 1024, &x) < 0 ||
		    fmod(x, 512) != 0)
			return fail(err, errsize, "align must be a multiple of 512");
		m->align = (uint32_t)x;
	} else if (!strcmp(k, "skew")) {
		char a[32], b[32];

		if (!strcmp(v, "none")) {
			m->skew = SYN_SKEW_NONE;
		} else if (!strncmp(v, "zipf:", 5)) {
			if (get_num(SYN_P_NUM, v + 5, 0.01, 10, &x) < 0)
				return fail(err, errsize, "zipf exponent must be 0.01 to 10");
			m->skew = SYN_SKEW_ZIPF;
			m->theta = x;
		} else if (sscanf(v, "hotspot:%31[^:]:%31s", a, b) == 2) {
			double io, space;

			if (get_pct(a, &io) < 0 || get_pct(b, &space) < 0 ||
			    space <= 0 || space >= 1)
				return fail(err, errsize,
					    "hotspot needs IO%%:SPACE%% percentages");
			m->skew = SYN_SKEW_HOTSPOT;
			m->hot_io = io;
			m->hot_space = space;
		} else {
			return fail(err, errsize,
				    "skew must be none, hotspot:IO:SPACE or zipf:THETA");
		}
	} else {
		return fail(err, errsize, "unknown key '%s' in [workload]", k);
	}
	return 0;
}

static int device_key(struct syn_mix_spec *m, const char *k, const char *v,
		      char *err, size_t errsize)
{
	unsigned d = m->ndev - 1;
	double x;

	if (!strcmp(k, "size")) {
		if (get_num(SYN_P_SIZE, v, 1024 * 1024, 1e18, &x) < 0)
			return fail(err, errsize, "device size must be 1M or more");
		m->dev_size[d] = (uint64_t)x;
	} else if (!strcmp(k, "weight")) {
		if (get_num(SYN_P_NUM, v, 0, 1e6, &x) < 0)
			return fail(err, errsize, "weight must be 0 to 1e6");
		m->dev_weight[d] = x;
	} else {
		return fail(err, errsize, "unknown key '%s' in [device]", k);
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int syn_mix_parse(const char *text, size_t len, struct syn_mix_spec *m,
		  unsigned *line, char *err, size_t errsize)
{
	enum { NONE, WORKLOAD, DEVICE } sect = NONE;
	const char *p = text, *end = text + len;
	unsigned ln = 0;
	char buf[LINE_MAX_LEN + 1];
	int rc = 0;

	*line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *s, *eq;

		ln++;
		*line = ln;
		if (n > LINE_MAX_LEN)
			return fail(err, errsize, "line longer than %d bytes",
				    LINE_MAX_LEN);
		if (memchr(p, '\0', n))
			return fail(err, errsize, "NUL byte in text");
		memcpy(buf, p, n);
		buf[n] = '\0';
		p += n + (nl ? 1 : 0);
		s = buf + strcspn(buf, "#;");
		*s = '\0';
		s = trim(buf);
		if (!*s)
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			char *name;

			if (!close || close[1])
				return fail(err, errsize, "bad section header");
			*close = '\0';
			name = trim(s + 1);
			if (!strcmp(name, "workload")) {
				sect = WORKLOAD;
			} else if (!strncmp(name, "device", 6) &&
				   (name[6] == ' ' || name[6] == '\t')) {
				char *dn = trim(name + 7);

				if (!*dn || strlen(dn) >= sizeof(m->dev_name[0]) ||
				    strspn(dn, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") != strlen(dn))
					return fail(err, errsize,
						    "bad device name (1-31 of [A-Za-z0-9_-./])");
				for (unsigned i = 0; i < m->ndev; i++)
					if (!strcmp(m->dev_name[i], dn))
						return fail(err, errsize,
							    "duplicate device '%s'", dn);
				if (m->ndev == SYN_MIX_MAX_DEV)
					return fail(err, errsize, "more than %d devices",
						    SYN_MIX_MAX_DEV);
				strcpy(m->dev_name[m->ndev], dn);
				m->dev_size[m->ndev] = 0;
				m->dev_weight[m->ndev] = 1.0;
				m->ndev++;
				sect = DEVICE;
			} else {
				return fail(err, errsize, "unknown section [%s]", name);
			}
			continue;
		}
		eq = strchr(s, '=');
		if (!eq)
			return fail(err, errsize, "expected key = value");
		*eq = '\0';
		s = trim(s);
		if (!*s)
			return fail(err, errsize, "missing key before '='");
		if (!*trim(eq + 1))
			return fail(err, errsize, "missing value for '%s'", s);
		if (sect == NONE)
			return fail(err, errsize, "key '%s' outside a section", s);
		rc = sect == WORKLOAD ? workload_key(m, s, trim(eq + 1), err, errsize)
				      : device_key(m, s, trim(eq + 1), err, errsize);
		if (rc < 0)
			return rc;
	}
	if (syn_mix_check(m, err, errsize) < 0) {
		if (!*line)
			*line = 1;
		return IST_EPARSE;
	}
	return 0;
}

int syn_mix_check(const struct syn_mix_spec *m, char *err, size_t errsize)
{
	double total = 0;
	uint32_t maxsz = 0;

	if (!m->ndev)
		return fail(err, errsize, "no [device NAME] section");
	for (unsigned i = 0; i < m->rsize.n; i++)
		maxsz = m->rsize.size[i] > maxsz ? m->rsize.size[i] : maxsz;
	for (unsigned i = 0; i < m->wsize.n; i++)
		maxsz = m->wsize.size[i] > maxsz ? m->wsize.size[i] : maxsz;
	for (unsigned i = 0; i < m->ndev; i++) {
		if (!m->dev_size[i])
			return fail(err, errsize, "device '%s' has no size",
				    m->dev_name[i]);
		if (m->dev_size[i] < 4ull * maxsz)
			return fail(err, errsize,
				    "device '%s' is too small for its I/O sizes",
				    m->dev_name[i]);
		total += m->dev_weight[i];
	}
	if (total <= 0)
		return fail(err, errsize, "every device has weight 0");
	if (m->arrival != SYN_ARR_CLOSED && m->rate <= 0) {
		static const char *const names[] = { "closed", "constant",
			"poisson", "hyperexp", "onoff" };

		return fail(err, errsize, "arrival %s needs a rate > 0",
			    names[m->arrival]);
	}
	if (m->arrival == SYN_ARR_ONOFF && m->on_s <= 0)
		return fail(err, errsize, "onoff needs on > 0");
	return 0;
}

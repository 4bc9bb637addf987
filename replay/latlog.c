/* SPDX-License-Identifier: MIT */
/* latlog.c - reading a replay's --lat-log back: each op's latencies in issue order (--null-latency-from). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/internal.h"

/* A latency beyond an hour is no device's: a log edited by hand or
 * damaged (it would also carry the completion time past the end of the
 * clock) */
#define LAT_MAX_NS 3600000000000ull
/* eleven fields of 20 digits at most, an op name: a longer line is not a
 * --lat-log's */
#define LINE_MAX_LEN 320
/* a trace's devices are numbered from 0; more than this in a log is a
 * damaged or made-up one (the lists are allocated per device) */
#define LAT_MAX_DEV 65535

struct lat_ent {
	uint64_t seq, lat;
	uint32_t line;
	uint32_t dev;
	uint8_t op;
};

static int lat_err(char *err, size_t errlen, const char *path, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int lat_err(char *err, size_t errlen, const char *path, size_t line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = line ? snprintf(err, errlen, "%s: line %zu: ", path, line) :
		   snprintf(err, errlen, "%s: ", path);
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A decimal field of digits only (no sign, no blank), not beyond max:
 * 0, or a reason. */
static const char *field_u64(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!len)
		return "empty";
	if (s[0] == '-')
		return "negative";
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return "not a number";
		if (x > (UINT64_MAX - d) / 10)
			return "too large";
		x = x * 10 + d;
	}
	if (x > max)
		return "too large";
	*v = x;
	return NULL;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct lat_ent *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *const field_name[RPL_LAT_LOG_FIELDS] = {
	"seq", "op", "stream", "deadline_ns", "issue_ns", "done_ns", "latency_ns", "result",
	"dev", "offset", "len",
};

void rpl_lat_lists_free(struct rpl_lat_lists *ll)
{
	for (unsigned k = 0; k < IST_OP_COUNT; k++) {
		free(ll->lat[k]);
		ll->lat[k] = NULL;
		ll->n[k] = 0;
	}
	for (size_t i = 0; ll->dlat && i < (size_t)ll->ndev * IST_OP_COUNT; i++)
		free(ll->dlat[i]);
	free(ll->dlat);
	free(ll->dn);
	ll->dlat = NULL;
	ll->dn = NULL;
	ll->ndev = 0;
}

int rpl_lat_log_read(struct rpl_lat_lists *ll, const char *path, char *err, size_t errlen)
{
	char *line = NULL;
	size_t linecap = 0;
	ssize_t got;
	size_t lineno = 0, n = 0, cap = 0, *at = NULL;
	unsigned nfields = RPL_LAT_LOG_FIELDS, maxdev = 0;
	const char *header = RPL_LAT_LOG_HEADER;
	struct lat_ent *e = NULL;
	FILE *f;
	int ret = -1;

	memset(ll, 0, sizeof(*ll));
	f = fopen(path, "r");
	if (!f)
		return lat_err(err, errlen, path, 0, "%s", strerror(errno));
	while ((got = getline(&line, &linecap, f)) >= 0) {
		size_t len = (size_t)got, nf = 0;
		const char *fs[RPL_LAT_LOG_FIELDS + 1];
		size_t fl[RPL_LAT_LOG_FIELDS + 1];
		uint64_t v[RPL_LAT_LOG_FIELDS] = { 0 };
		const char *why;
		int op, failed = 0;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (len && line[len - 1] == '\r') /* CRLF */
			line[--len] = 0;
		if (len > LINE_MAX_LEN) {
			lat_err(err, errlen, path, lineno, "longer than %d bytes", LINE_MAX_LEN);
			goto out;
		}
		if (memchr(line, 0, len)) {
			lat_err(err, errlen, path, lineno, "a NUL byte");
			goto out;
		}
		if (!len && lineno > 1) {
			lat_err(err, errlen, path, lineno, "empty");
			goto out;
		}
		if (lineno == 1) {
			/* the first release's log, without dev, offset and
			 * len: its latencies serve every device */
			if (!strcmp(line, RPL_LAT_LOG_HEADER_V1)) {
				nfields = RPL_LAT_LOG_FIELDS_V1;
				header = RPL_LAT_LOG_HEADER_V1;
			} else if (strcmp(line, RPL_LAT_LOG_HEADER)) {
				lat_err(err, errlen, path, 1, "not a --lat-log (header '%s' expected)",
					RPL_LAT_LOG_HEADER);
				goto out;
			}
			continue;
		}
		for (const char *p = line;; nf++) {
			const char *c = strchr(p, ',');

			if (nf < RPL_LAT_LOG_FIELDS + 1) {
				fs[nf] = p;
				fl[nf] = c ? (size_t)(c - p) : strlen(p);
			}
			if (!c) {
				nf++;
				break;
			}
			p = c + 1;
		}
		if (nf != nfields) {
			lat_err(err, errlen, path, lineno, "%zu fields, %u expected (%s)", nf, nfields,
				header);
			goto out;
		}
		op = ist_op_parse(fs[1], fl[1]);
		if (op < 0 || op >= IST_OP_COUNT) {
			lat_err(err, errlen, path, lineno, "unknown op '%.*s'", (int)(fl[1] > 32 ? 32 : fl[1]),
				fs[1]);
			goto out;
		}
		for (unsigned k = 0; k < nfields; k++) {
			/* result: the bytes moved, or -errno */
			size_t sign = k == 7 && fl[7] && fs[7][0] == '-';

			if (k == 1)
				continue;
			why = field_u64(fs[k] + sign, fl[k] - sign, k == 6 ? LAT_MAX_NS :
					k == 7 ? 0x7fffffff : k == 8 ? LAT_MAX_DEV :
					k == 10 ? UINT32_MAX : UINT64_MAX, &v[k]);
			if (why) {
				lat_err(err, errlen, path, lineno, "%s '%.*s': %s%s", field_name[k],
					(int)(fl[k] > 32 ? 32 : fl[k]), fs[k],
					sign && !strcmp(why, "negative") ? "not a number" : why,
					k == 6 && !strcmp(why, "too large") ? " (over an hour)" :
					k == 8 && !strcmp(why, "too large") ? " (over 65535)" : "");
				goto out;
			}
			if (sign && v[7])
				failed = 1;
		}
		if (failed)
			continue; /* a failed I/O says nothing of the device's speed */
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 1024;
			struct lat_ent *ne = realloc(e, nc * sizeof(*e));

			if (!ne) {
				lat_err(err, errlen, path, 0, "%s", strerror(ENOMEM));
				goto out;
			}
			e = ne;
			cap = nc;
		}
		e[n].seq = v[0];
		e[n].lat = v[6];
		e[n].line = lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)lineno;
		e[n].dev = (uint32_t)v[8];
		e[n].op = (uint8_t)op;
		if (v[8] + 1 > maxdev)
			maxdev = (unsigned)v[8] + 1;
		n++;
	}
	if (ferror(f)) {
		lat_err(err, errlen, path, 0, "%s", strerror(errno ? errno : EIO));
		goto out;
	}
	if (!lineno) {
		lat_err(err, errlen, path, 0, "empty (no --lat-log header)");
		goto out;
	}
	if (!n) {
		lat_err(err, errlen, path, 0, "no completed I/O in it");
		goto out;
	}
	/* the log is in completion order; the lists in issue order (seq).
	 * An insertion sort took n^2 / 2 steps on a log in reverse order. */
	qsort(e, n, sizeof(*e), cmp_seq);
	for (size_t i = 1; i < n; i++)
		if (e[i].seq == e[i - 1].seq) {
			uint32_t a = e[i].line < e[i - 1].line ? e[i].line : e[i - 1].line;
			uint32_t b = e[i].line < e[i - 1].line ? e[i - 1].line : e[i].line;

			lat_err(err, errlen, path, b, "seq %llu also on line %u (two logs in one?)",
				(unsigned long long)e[i].seq, a);
			goto out;
		}
	if (nfields == RPL_LAT_LOG_FIELDS_V1) {
		size_t atv[IST_OP_COUNT] = { 0 };

		for (size_t i = 0; i < n; i++)
			ll->n[e[i].op]++;
		for (unsigned k = 0; k < IST_OP_COUNT; k++)
			if (ll->n[k] && !(ll->lat[k] = malloc(ll->n[k] * sizeof(uint64_t)))) {
				lat_err(err, errlen, path, 0, "%s", strerror(ENOMEM));
				goto out;
			}
		for (size_t i = 0; i < n; i++)
			ll->lat[e[i].op][atv[e[i].op]++] = e[i].lat;
	} else {
		size_t nl = (size_t)maxdev * IST_OP_COUNT;

		ll->ndev = maxdev;
		ll->dlat = calloc(nl, sizeof(*ll->dlat));
		ll->dn = calloc(nl, sizeof(*ll->dn));
		at = calloc(nl, sizeof(*at));
		if (!ll->dlat || !ll->dn || !at) {
			lat_err(err, errlen, path, 0, "%s", strerror(ENOMEM));
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			ll->dn[(size_t)e[i].dev * IST_OP_COUNT + e[i].op]++;
		for (size_t i = 0; i < nl; i++)
			if (ll->dn[i] && !(ll->dlat[i] = malloc(ll->dn[i] * sizeof(uint64_t)))) {
				lat_err(err, errlen, path, 0, "%s", strerror(ENOMEM));
				goto out;
			}
		for (size_t i = 0; i < n; i++) {
			size_t j = (size_t)e[i].dev * IST_OP_COUNT + e[i].op;

			ll->dlat[j][at[j]++] = e[i].lat;
		}
	}
	ret = 0;
out:
	if (ret < 0)
		rpl_lat_lists_free(ll);
	free(at);
	free(e);
	free(line);
	fclose(f);
	return ret;
}

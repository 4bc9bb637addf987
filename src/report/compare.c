/* SPDX-License-Identifier: MIT */
/* compare.c - baseline against new run: comparability, changes with
 * confidence intervals, the regression gate. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"

/* Settings that change what the drive sees.  The interval length, the
 * spin time, write permission and --force do not. */
static const char *const compared_settings[] = {
	"timing", "speed", "rate_iops", "iodepth", "workers", "partition",
	"from_ns", "to_ns", "loops", "duration_ns", "backend", "direct",
	"remap", "data", "read_only", "sqpoll", "iopoll", "think_scale",
	"txn_per", NULL
};

int rpt_compare_ignorable(const char *key, char *keys, size_t size)
{
	size_t k = 0;
	int found = !strcmp(key, "trace") || !strcmp(key, "interrupted");

	if (size)
		keys[0] = '\0';
	for (const char *const *c = compared_settings; *c; c++) {
		if (!strcmp(*c, key))
			found = 1;
		if (k < size)
			k += (size_t)snprintf(keys + k, size - k, "%s, ", *c);
	}
	if (k < size)
		snprintf(keys + k, size - k, "trace, interrupted");
	return found;
}

static void why_add(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void why_add(char *why, size_t size, const char *fmt, ...)
{
	size_t len = strlen(why);
	va_list ap;

	if (len && len + 2 < size) {
		strcpy(why + len, "; ");
		len += 2;
	}
	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(why + len, size - len, fmt, ap);
	va_end(ap);
}

static int ignored(const struct rpt_compare_opts *o, const char *key)
{
	for (unsigned i = 0; o && i < o->nignore; i++)
		if (!strcmp(o->ignore[i], key))
			return 1;
	return 0;
}

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "";
}

int rpt_comparable(const struct rpt_run *a, const struct rpt_run *b,
		   const struct rpt_compare_opts *o, char *why, size_t size)
{
	why[0] = 0;
	if (a->kind != RPT_REPLAY || b->kind != RPT_REPLAY) {
		why_add(why, size, "only replay results are compared (%s is %s)",
			a->kind != RPT_REPLAY ? "BASE" : "NEW",
			(a->kind != RPT_REPLAY ? a : b)->schema);
		return 0;
	}
	if ((a->interrupted || b->interrupted) && !ignored(o, "interrupted"))
		why_add(why, size, "%s was interrupted", a->interrupted ? "BASE" : "NEW");
	if (!ignored(o, "trace")) {
		if (!same_num(a->trace_records, b->trace_records))
			why_add(why, size, "different trace: %.0f records vs %.0f",
				a->trace_records, b->trace_records);
		else if (!same_num(a->trace_duration_s, b->trace_duration_s))
			why_add(why, size, "different trace: %.9g s long vs %.9g s",
				a->trace_duration_s, b->trace_duration_s);
		else if (a->trace_ops_present && b->trace_ops_present &&
			 memcmp(a->trace_ops, b->trace_ops, sizeof(a->trace_ops)))
			why_add(why, size, "different trace: other operation mix");
		else if ((a->trace_id || b->trace_id) &&
			 (!a->trace_id || !b->trace_id || strcmp(a->trace_id, b->trace_id)))
			why_add(why, size, "different trace: '%s' vs '%s'",
				a->trace_id ? a->trace_id : "", b->trace_id ? b->trace_id : "");
		else if (isnan(a->trace_records) &&
			 strcmp(base_name(a->trace_path), base_name(b->trace_path)))
			/* no totals to go by: the file names must agree */
			why_add(why, size, "different trace: %s vs %s",
				base_name(a->trace_path), base_name(b->trace_path));
	}
	for (const char *const *k = compared_settings; *k; k++) {
		const char *va = rpt_run_setting(a, *k), *vb = rpt_run_setting(b, *k);

		if (ignored(o, *k) || (!va && !vb))
			continue;
		if (!va || !vb || strcmp(va, vb))
			why_add(why, size, "different setting %s: %s vs %s", *k,
				va ? va : "(none)", vb ? vb : "(none)");
	}
	return why[0] == 0;
}

/* The intervals whose figures count: a final partial interval (shorter
 * than half the usual length) is as noisy as it is short. */
static size_t interval_values(const struct rpt_metric *m, const struct rpt_run *r,
			      double *v)
{
	double typical = 0;
	size_t n = 0;

	if (!r->niv)
		return 0;
	typical = r->iv[r->niv / 2].len_s;
	for (size_t i = 0; i < r->niv; i++) {
		const struct rpt_interval *iv = &r->iv[i];

		if (iv->len_s < typical / 2)
			continue;
		v[n++] = rpt_metric_interval(m, iv);
	}
	return n;
}

int rpt_compare(const struct rpt_run *base, const struct rpt_run *new_,
		const struct rpt_compare_opts *o, struct rpt_comparison *c)
{
	double conf = o && o->confidence > 0 ? o->confidence : 0.95;
	size_t nmax = base->niv > new_->niv ? base->niv : new_->niv;
	double *va = NULL, *vb = NULL;
	size_t nm = 0;

	memset(c, 0, sizeof(*c));
	c->comparable = rpt_comparable(base, new_, o, c->why, sizeof(c->why));
	for (const struct rpt_metric *m = rpt_metrics; m->key; m++)
		nm++;
	c->fig = calloc(nm, sizeof(*c->fig));
	va = malloc((nmax ? nmax : 1) * sizeof(double));
	vb = malloc((nmax ? nmax : 1) * sizeof(double));
	if (!c->fig || !va || !vb) {
		free(va);
		free(vb);
		free(c->fig);
		c->fig = NULL;
		return -ENOMEM;
	}
	for (const struct rpt_metric *m = rpt_metrics; m->key; m++) {
		struct rpt_figure_diff *d = &c->fig[c->nfig];
		double worse;

		d->m = m;
		d->base = rpt_metric_value(m, base);
		d->new_ = rpt_metric_value(m, new_);
		if (!isfinite(d->base) && !isfinite(d->new_))
			continue;
		c->nfig++;
		d->change = d->new_ - d->base;
		d->rel = d->base != 0 ? d->change / fabs(d->base) :
			 d->change == 0 ? 0 : NAN;
		d->sig = RPT_SIG_UNKNOWN;
		d->rel_lo = d->rel_hi = NAN;
		d->threshold = NAN;
		if (m->src != RPT_IV_NONE) {
			struct rpt_sample sa, sb;
			struct rpt_diff_ci ci;

			d->n_base = interval_values(m, base, va);
			d->n_new = interval_values(m, new_, vb);
			rpt_sample_of(va, d->n_base, &sa);
			rpt_sample_of(vb, d->n_new, &sb);
			d->n_base = sa.n;
			d->n_new = sb.n;
			rpt_welch(&sa, &sb, conf, &ci);
			if (ci.valid) {
				int worse_side = m->higher_better ? ci.hi < 0 : ci.lo > 0;
				int better_side = m->higher_better ? ci.lo > 0 : ci.hi < 0;

				d->sig = worse_side || better_side ? RPT_SIG_YES : RPT_SIG_NO;
				if (sa.mean != 0) {
					d->rel_lo = ci.lo / fabs(sa.mean);
					d->rel_hi = ci.hi / fabs(sa.mean);
				}
			}
		}
		for (unsigned i = 0; o && i < o->nth; i++) {
			if (o->th[i].m != m)
				continue;
			d->threshold = o->th[i].pct;
			worse = m->higher_better ? -d->rel : d->rel;
			d->crossed = isfinite(worse) ? worse * 100 > o->th[i].pct :
				     /* a figure that vanished or appeared */
				     !isfinite(d->new_) || d->base == 0;
			if (d->crossed) {
				c->crossed++;
				/* significant means: on the worse side */
				if (d->sig == RPT_SIG_NO ||
				    (d->sig == RPT_SIG_YES &&
				     !(m->higher_better ? d->rel_hi < 0 || (isnan(d->rel_hi) && d->change < 0) :
				       d->rel_lo > 0 || (isnan(d->rel_lo) && d->change > 0)))) {
					c->noise_only++;
				} else {
					d->fails = 1;
					c->fails++;
				}
			}
		}
	}
	free(va);
	free(vb);
	return 0;
}

void rpt_comparison_release(struct rpt_comparison *c)
{
	free(c->fig);
	c->fig = NULL;
	c->nfig = 0;
}

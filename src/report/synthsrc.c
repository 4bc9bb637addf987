/* SPDX-License-Identifier: MIT */
/* synthsrc.c - synth profiles as replay sources. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/synthsrc.h"
#include "synth/synth.h"

struct syn_src {
	struct rpt_synth_spec spec;
	struct syn_gen *g;
};

static int is_file(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".ini"));
}

/* A started generator for spec. */
static int make_gen(const struct rpt_synth_spec *spec, struct syn_gen **gp, char *err,
		    size_t errsize)
{
	const struct syn_profile *p = syn_profile_find(is_file(spec->profile) ? "mix" :
						      spec->profile);
	struct syn_gen *g;
	int e;

	*gp = NULL;
	if (!p) {
		snprintf(err, errsize, "unknown synth profile '%s'", spec->profile);
		return -ENOENT;
	}
	e = syn_gen_new(&g, p);
	if (e < 0) {
		snprintf(err, errsize, "%s: %s", p->name, ist_strerror(e));
		return e;
	}
	if (is_file(spec->profile) && (e = syn_gen_set(g, "file", spec->profile)) < 0) {
		snprintf(err, errsize, "%s: %s", spec->profile, ist_strerror(e));
		syn_gen_free(g);
		return e;
	}
	for (unsigned i = 0; i < spec->nsets; i++) {
		e = syn_gen_set_kv(g, spec->sets[i]);
		if (e < 0) {
			if (e == -ENOENT)
				snprintf(err, errsize, "%s has no parameter '%.*s'", p->name,
					 (int)strcspn(spec->sets[i], "="), spec->sets[i]);
			else
				snprintf(err, errsize, "%s: bad value in '%s'%s", p->name,
					 spec->sets[i], e == IST_ERANGE ? " (out of range)" : "");
			syn_gen_free(g);
			return e;
		}
	}
	syn_gen_set_seed(g, spec->seed ? spec->seed : 1);
	if (spec->duration_ns)
		syn_gen_set_duration(g, spec->duration_ns);
	e = syn_gen_start(g);
	if (e < 0) {
		unsigned line = 0;
		const char *why = syn_gen_error(g, &line);

		if (line)
			snprintf(err, errsize, "%s: line %u: %s", spec->profile, line,
				 why ? why : ist_strerror(e));
		else
			snprintf(err, errsize, "%s: %s", spec->profile, why ? why : ist_strerror(e));
		syn_gen_free(g);
		return e;
	}
	*gp = g;
	return 0;
}

static ssize_t ss_read(struct rpl_source *s, struct ist_record *recs, size_t max)
{
	return syn_gen_read(((struct syn_src *)s->priv)->g, recs, max);
}

static int ss_rewind(struct rpl_source *s)
{
	struct syn_src *ss = s->priv;
	struct syn_gen *g;
	char err[256];
	int e = make_gen(&ss->spec, &g, err, sizeof(err));

	if (e < 0)
		return e;
	syn_gen_free(ss->g);
	ss->g = g;
	return 0;
}

static void ss_where(struct rpl_source *s, char *buf, size_t size)
{
	struct syn_src *ss = s->priv;

	snprintf(buf, size, "record %llu", (unsigned long long)syn_gen_count(ss->g));
}

static void ss_close(struct rpl_source *s)
{
	struct syn_src *ss = s->priv;

	if (ss)
		syn_gen_free(ss->g);
	free(ss);
	s->priv = NULL;
}

static const struct rpl_source_ops synth_ops = {
	.name = "synth",
	.read = ss_read,
	.rewind = ss_rewind,
	.where = ss_where,
	.close = ss_close,
};

int rpt_synth_source(struct rpl_source **sp, const struct rpt_synth_spec *spec,
		     char *err, size_t errsize)
{
	struct rpl_source *s;
	struct syn_src *ss;
	ist_header *h;
	int e;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	ss = calloc(1, sizeof(*ss));
	if (!s || !ss) {
		free(s);
		free(ss);
		snprintf(err, errsize, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ss->spec = *spec;
	e = make_gen(&ss->spec, &ss->g, err, errsize);
	if (e < 0) {
		free(s);
		free(ss);
		return e;
	}
	h = ist_header_dup(syn_gen_header(ss->g));
	if (!h) {
		syn_gen_free(ss->g);
		free(s);
		free(ss);
		snprintf(err, errsize, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	s->ops = &synth_ops;
	s->header = h;
	s->path = spec->profile;
	s->format = "synth";
	s->priv = ss;
	*sp = s;
	return 0;
}

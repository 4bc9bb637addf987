/* SPDX-License-Identifier: MIT */
/* fmt_blkparse.c - importer for blkparse's default text output. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "import/imp_blk.h"
#include "import/imp_text.h"
#include "import/import.h"


struct blkparse_state {
	struct imp_blk *m;
	int eof;
	char last_dev[32];
	size_t last_dev_len;
	int dev;
};

/* "8,16" */
static int is_majmin(const char *s, size_t len)
{
	size_t i = 0, d1 = 0, d2 = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++, d1++;
	if (i == len || s[i] != ',')
		return 0;
	for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		d2++;
	return i == len && d1 && d2;
}

static int blkparse_probe(const char *buf, size_t len)
{
	struct imp_fields fl;
	char line[512];
	uint64_t v;
	int n = imp_first_line(buf, len, line, sizeof(line), 0);

	if (n < 0 || imp_split(line, n, ' ', &fl) < 7)
		return 0;
	if (!is_majmin(fl.f[0], fl.len[0]) || imp_u64(fl.f[1], fl.len[1], &v) ||
	    imp_u64(fl.f[2], fl.len[2], &v) ||
	    imp_fixed(fl.f[3], fl.len[3], 9, &v) ||
	    imp_u64(fl.f[4], fl.len[4], &v) || fl.len[5] > 2)
		return 0;
	return 90;
}

static int blkparse_open(struct imp_ctx *c, void *priv)
{
	struct blkparse_state *st = priv;

	st->dev = -1;
	return imp_blk_open(c, &st->m);
}

static int dev_of(struct imp_ctx *c, struct blkparse_state *st, const char *s,
		  size_t len)
{
	if (st->dev >= 0 && len == st->last_dev_len &&
	    !memcmp(s, st->last_dev, len))
		return st->dev;
	st->dev = imp_device(c, s, len);
	if (st->dev >= 0 && len < sizeof(st->last_dev)) {
		memcpy(st->last_dev, s, len);
		st->last_dev_len = len;
	}
	return st->dev;
}

/* A packet command (SG_IO passthrough): no sector, nothing of it matched;
 * the matcher counts its issue. */
static int packet_command(struct blk_event *e)
{
	e->op = -1;
	e->skip = IMP_BLK_PC;
	e->sector = e->nsect = 0;
	return 1;
}

/* Parses one event line; 1 event, 0 not an I/O event (skipped), 2 the
 * summary started, or an error. */
static int parse_line(struct imp_ctx *c, struct blkparse_state *st, char *line,
		      size_t len, struct blk_event *e)
{
	struct imp_fields fl;
	uint64_t t, v;
	unsigned n = imp_split(line, len, ' ', &fl);
	char q[48], act;
	int ret;

	if (n && !is_majmin(fl.f[0], fl.len[0])) {
		if ((fl.len[0] > 3 && !memcmp(fl.f[0], "CPU", 3)) ||
		    imp_word_eq(fl.f[0], fl.len[0], "total"))
			return 2;
		return imp_bad(c, "not a blkparse event line: '%s'",
			       imp_quote(line, len, q, sizeof(q)));
	}
	if (n < 7)
		return imp_bad(c, "expected at least 7 fields (dev cpu seq time pid action rwbs), got %u",
			       n);
	if ((ret = imp_field_u64(c, &fl, 1, "cpu", &v)) ||
	    (ret = imp_field_u64(c, &fl, 2, "sequence number", &v)) ||
	    (ret = imp_field_fixed(c, &fl, 3, 9, "time", &t)) ||
	    (ret = imp_time(c, t, 1, &(int64_t){ 0 })) ||
	    (ret = imp_field_u64(c, &fl, 4, "pid", &v)))
		return ret;
	if (fl.len[5] == 0 || fl.len[5] > 2)
		return imp_bad(c, "bad action '%s'",
			       imp_quote(fl.f[5], fl.len[5], q, sizeof(q)));
	act = fl.f[5][0];
	/* two letters: unplug by timer, zone write plug and unplug (UT, ZP,
	 * ZU of blkparse on kernels that trace zone write plugging) */
	if (fl.len[5] == 2 && !(act == 'U' && fl.f[5][1] == 'T') &&
	    !(act == 'Z' && (fl.f[5][1] == 'P' || fl.f[5][1] == 'U')))
		return imp_bad(c, "bad action '%s'",
			       imp_quote(fl.f[5], fl.len[5], q, sizeof(q)));
	memset(e, 0, sizeof(*e));
	e->t = (int64_t)t;
	e->pid = (uint32_t)v;
	e->action = act;
	if (act == 'm' || act == 'P' || act == 'U' || act == 'T' ||
	    (act == 'Z' && fl.len[5] == 2))
		return 0; /* messages, plugs, unplugs */
	if (imp_blk_rwbs(fl.f[6], fl.len[6], &e->op, &e->flags, &e->skip))
		return imp_bad(c, "bad RWBS '%s'",
			       imp_quote(fl.f[6], fl.len[6], q, sizeof(q)));
	/* 'ZA', after a preflush's 'F': completed where it was written */
	{
		size_t i = fl.len[6] > 1 && fl.f[6][0] == 'F';

		e->append = fl.len[6] >= i + 2 && fl.f[6][i] == 'Z' && fl.f[6][i + 1] == 'A';
	}
	if (n >= 8 && fl.f[7][0] >= '0' && fl.f[7][0] <= '9' &&
	    imp_u64(fl.f[7], fl.len[7], &e->sector))
		/* a number that does not parse (past 2^64, "12x"): damage,
		 * not an event without a sector to be skipped in silence */
		return imp_bad(c, "bad sector '%s'",
			       imp_quote(fl.f[7], fl.len[7], q, sizeof(q)));
	if (n < 8) {
		e->action = '?';
		return 1;
	}
	if (fl.f[7][0] == '[' || fl.f[7][0] == '(') {
		/* blkparse prints no sector where there are no sectors
		 * ("D FN [jbd2]": a flush; "D WS [zonectl]": a zone reset),
		 * nor for a packet command's completion or requeue
		 * ("C R (12 00 ...) [0]", "C N [0]"): a completion of
		 * anything else names its sector */
		if (act == 'C' || act == 'R')
			return packet_command(e);
		if (!strchr("DIQBMFGS", act)) {
			e->action = '?';
			return 1;
		}
		e->sector = 0;
		e->nsect = 0;
		goto event;
	}
	if (imp_u64(fl.f[7], fl.len[7], &e->sector)) {
		e->action = '?';
		return 1;
	}
	if (act == 'X') {
		if (n < 10 || fl.len[8] != 1 || fl.f[8][0] != '/')
			return imp_bad(c, "bad split event (expected 'sector / new_sector')");
		if ((ret = imp_field_u64(c, &fl, 9, "split sector", &e->sector2)))
			return ret;
		e->nsect = 0;
	} else if (n >= 10 && fl.len[8] == 1 && fl.f[8][0] == '+') {
		if ((ret = imp_field_u64(c, &fl, 9, "sector count", &e->nsect)))
			return ret;
		if (e->nsect > UINT32_MAX / 512)
			return imp_bad(c, "request of %" PRIu64 " sectors too large",
				       e->nsect);
		if (e->sector > UINT64_MAX / 512 - e->nsect)
			return imp_bad(c, "sector %" PRIu64 " out of range",
				       e->sector);
	} else if ((act == 'C' || act == 'R') && n >= 9 &&
		   (fl.f[8][0] == '[' || fl.f[8][0] == '(')) {
		/* a completion without data (flush): "sector [error]" */
		e->nsect = 0;
	} else if (strchr("DIQB", act)) {
		/* a packet command's issue shows its byte count, no sector:
		 * "D R 36 (12 01 ...) [scsi_id]", "D N 0 [smartctl]" */
		return packet_command(e);
	} else {
		e->action = '?';
		return 1;
	}
	if (act == 'C') {
		unsigned ei = n == 9 ? 8 : 10;
		int64_t err;

		if (n > ei && fl.len[ei] > 2 && fl.f[ei][0] == '[' &&
		    !imp_i64(fl.f[ei] + 1, fl.len[ei] - 2, &err))
			e->error = (int)err;
	}
event:
	imp_blk_classify(e);
	ret = dev_of(c, st, fl.f[0], fl.len[0]);
	if (ret < 0)
		return ret;
	e->dev = ret;
	return 1;
}

static int blkparse_next(struct imp_ctx *c, void *priv, struct ist_record *rec)
{
	struct blkparse_state *st = priv;
	struct blk_event e;
	char *line;
	size_t len;
	int ret;

	for (;;) {
		if (imp_blk_pop(st->m, rec, st->eof))
			return 1;
		if (st->eof)
			return 0;
		ret = imp_next_line(c, &line, &len);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			st->eof = 1;
			continue;
		}
		ret = parse_line(c, st, line, len, &e);
		if (ret < 0)
			return ret;
		if (ret == 2) {
			imp_stat(c, "summary_skipped", 1);
			st->eof = 1;
			continue;
		}
		if (ret == 1 && imp_blk_zero_len(st->m, &e))
			/* its line; the next call goes on after it */
			return imp_bad(c, "zero-length %s (only a flush has no length)",
				       ist_op_name(e.op));
		if (ret == 1) {
			ret = imp_blk_event(st->m, &e);
			if (ret)
				return ret;
		}
	}
}

void imp_blk_report(struct imp_ctx *c, const struct imp_blk *m)
{
	const struct imp_blk_counts *n = imp_blk_counts(m);

	imp_stat(c, "queued", n->queued);
	imp_stat(c, "issued", n->issued);
	imp_stat(c, "completed", n->completed);
	imp_stat(c, "merges", n->merges);
	imp_stat(c, "splits", n->splits);
	imp_stat(c, "remaps", n->remaps);
	imp_stat(c, "requeues", n->requeues);
	imp_stat(c, "incomplete", n->incomplete);
	imp_stat(c, "unmatched_completions", n->unmatched_completions);
	imp_stat(c, "reissued", n->reissued);
	imp_stat(c, "completion_errors", n->errors);
	imp_stat(c, "no_data_skipped", n->no_data);
	imp_stat(c, "zone_mgmt_skipped", n->zone_mgmt);
	imp_stat(c, "packet_commands_skipped", n->packet_commands);
}

static void blkparse_close(struct imp_ctx *c, void *priv)
{
	struct blkparse_state *st = priv;

	if (st->m)
		imp_blk_report(c, st->m);
	imp_blk_free(st->m);
}

const struct imp_format imp_fmt_blkparse = {
	.name = "blkparse",
	.description = "blkparse default text output (--event Q or D; C gives latency)",
	.time_unit = "ns",
	.time_epoch = "trace",
	.flags = IMP_EVENTS,
	.probe = blkparse_probe,
	.priv_size = sizeof(struct blkparse_state),
	.open = blkparse_open,
	.next = blkparse_next,
	.close = blkparse_close,
};

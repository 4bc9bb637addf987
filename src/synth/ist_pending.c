/* SPDX-License-Identifier: MIT */
/*
 * ist_pending.c - placeholders for the IST writer/reader until src/format
 * is merged: every call fails with IST_EUNSUPPORTED (CSV still works).
 * Compiles to nothing once src/format/fmt.h exists.  Delete after merge.
 */
#include "config.h"

#if !__has_include("format/fmt.h")
#include "iostorm.h"

int ist_writer_open(ist_writer **w, const char *path, const ist_header *h,
		    const struct ist_writer_opts *opts)
{
	(void)path, (void)h, (void)opts;
	*w = NULL;
	return IST_EUNSUPPORTED;
}

int ist_writer_write(ist_writer *w, const struct ist_record *recs, size_t n)
{
	(void)w, (void)recs, (void)n;
	return IST_EUNSUPPORTED;
}

int ist_writer_close(ist_writer *w)
{
	(void)w;
	return IST_EUNSUPPORTED;
}

void ist_writer_abort(ist_writer *w)
{
	(void)w;
}

int ist_reader_open(ist_reader **r, const char *path)
{
	(void)path;
	*r = NULL;
	return IST_EUNSUPPORTED;
}

const ist_header *ist_reader_header(const ist_reader *r)
{
	(void)r;
	return NULL;
}

ssize_t ist_reader_read(ist_reader *r, struct ist_record *recs, size_t max)
{
	(void)r, (void)recs, (void)max;
	return IST_EUNSUPPORTED;
}

void ist_reader_close(ist_reader *r)
{
	(void)r;
}

void ist_reader_position(const ist_reader *r, struct ist_position *pos)
{
	(void)r;
	pos->chunk = pos->byte_offset = pos->record = 0;
}
#else
typedef int ist_pending_empty; /* ISO C wants something in a unit */
#endif

/* SPDX-License-Identifier: MIT */
/* fmt_pcap.c - the capture module's iSCSI/NBD pcap decoder plugged in as a callback-style import format. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "capture/pcap_import.h"
#include "import/import.h"

static int pcap_probe(const char *buf, size_t len)
{
	static const unsigned char magic[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 },
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d },
		{ 0x0a, 0x0d, 0x0d, 0x0a },
	};

	if (len < 24)
		return 0;
	for (unsigned i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (!memcmp(buf, magic[i], 4))
			return 100;
	return 0;
}

static int pcap_run(struct imp_ctx *c, const char *path, imp_emit_fn emit,
		    void *emit_ctx)
{
	struct cap_pcap_opts po = { 0 };
	struct cap_pcap_stats st = { 0 };
	char err[512] = "", *where, *reason;
	size_t pl = strlen(path);
	int ret;

	/* two passes over the file (see import_two_pass()) */
	if (!strcmp(path, "-"))
		return imp_bad_file(c, path, "a capture is read twice: give "
				    "a file, not standard input");
	ret = cap_pcap_import(path, &po, imp_header(c), emit, emit_ctx, &st,
			      err, sizeof(err));
	imp_stat(c, "packets", st.packets);
	imp_stat(c, "connections", st.connections);
	imp_stat(c, "commands", st.commands);
	imp_stat(c, "unmatched_commands", st.unmatched_commands);
	imp_stat(c, "unmatched_responses", st.unmatched_responses);
	imp_stat(c, "tcp_gaps", st.gaps);
	imp_stat(c, "resyncs", st.resyncs);
	if (!ret)
		return 0;
	if (!err[0])
		return ret; /* an emit (output) error */
	/* "PATH: packet N: reason" -> position and reason */
	where = err;
	if (!strncmp(where, path, pl) && !strncmp(where + pl, ": ", 2))
		where += pl + 2;
	reason = strstr(where, ": ");
	if (!strncmp(where, "packet ", 7) && reason) {
		*reason = '\0';
		reason += 2;
	} else {
		reason = where;
		where = "";
	}
	return imp_fail(c, path, where, reason, ret);
}

const struct imp_format imp_fmt_pcap = {
	.name = "pcap",
	.description = "iSCSI and NBD block requests in a pcap/pcapng capture (TCP reassembled)",
	.time_unit = "capture timestamp",
	.time_epoch = "trace",
	.flags = IMP_BINARY,
	.probe = pcap_probe,
	.run = pcap_run,
};

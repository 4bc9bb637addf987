/* SPDX-License-Identifier: MIT */
/* fuzz_pcap.c - fuzz target: a pcap/pcapng capture through the TCP
 * reassembly and the iSCSI and NBD decoders. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "capture/pcap_import.h"

static int count(void *ctx, const struct ist_record *rec)
{
	uint64_t *n = ctx;

	(void)rec;
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Both ports on what tcpdump on lo produces; the first byte of a
	 * short input would never reach them otherwise. */
	struct cap_pcap_opts o = { 0 };
	struct cap_pcap_stats st;
	uint64_t n = 0;
	char err[256];
	ist_header *h = ist_header_new();

	if (!h)
		return 0;
	cap_pcap_import_mem(data, size, &o, h, count, &n, &st, err, sizeof(err));
	ist_header_free(h);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* placeholder */
#include "config.h"
#include <errno.h>
#include "capture/pcap_import.h"
int cap_pcap_import(const char *path, const struct cap_pcap_opts *opts, ist_header *h, int (*emit)(void *, const struct ist_record *), void *ctx, struct cap_pcap_stats *stats, char *err, size_t errlen) { (void)path;(void)opts;(void)h;(void)emit;(void)ctx;(void)stats;(void)err;(void)errlen; return -ENOSYS; }
int cap_pcap_live(const char *path, const struct cap_pcap_opts *opts, ist_header *h, int (*emit)(void *, const struct ist_record *), void *ctx, struct cap_pcap_stats *stats, char *err, size_t errlen) { (void)path;(void)opts;(void)h;(void)emit;(void)ctx;(void)stats;(void)err;(void)errlen; return -ENOSYS; }

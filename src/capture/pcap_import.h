/* SPDX-License-Identifier: MIT */
/* pcap_import.h - iSCSI and NBD block I/O from packet captures (libpcap). */
#ifndef CAP_PCAP_IMPORT_H
#define CAP_PCAP_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "iostorm.h"

struct cap_pcap_opts {
	uint16_t iscsi_port;    /* 0 = 3260                                     */
	uint16_t nbd_port;      /* 0 = 10809                                    */
	const char *filter;     /* BPF expression applied by libpcap; NULL none */
	/* Live capture (cap_pcap_live) only: */
	int snaplen;            /* 0 = 262144                                   */
	uint64_t duration_ns;   /* stop after; 0 = until *stop                  */
	uint64_t max_ios;       /* stop after this many records; 0 = no limit   */
	volatile int *stop;     /* set non-zero (signal handler) to stop        */
	/* called at every read timeout (100 ms) and every 64 packets, so that
	 * the caller writes what it holds; < 0 stops the capture with it   */
	int (*tick)(void *ctx);
	void *tick_ctx;
};

/* What the import saw and what it could not decode. */
struct cap_pcap_stats {
	uint64_t packets;          /* packets read                              */
	uint64_t tcp_segments;     /* TCP segments on a decoded port            */
	uint64_t other_packets;    /* not IPv4/IPv6 TCP on a decoded port       */
	uint64_t truncated;        /* packets cut by the snap length            */
	uint64_t missing_bytes;    /* TCP payload bytes absent (snap length)    */
	uint64_t retransmitted;    /* segments already seen (dropped)           */
	uint64_t out_of_order;     /* segments held until the gap before filled */
	uint64_t gaps;             /* holes in a TCP stream (lost, not captured) */
	uint64_t gap_bytes;
	uint64_t resyncs;          /* decoder re-found a PDU after a gap        */
	uint64_t undecoded_bytes;  /* stream bytes skipped while resyncing      */
	uint64_t connections;
	uint64_t iscsi_pdus;
	uint64_t nbd_messages;
	uint64_t commands;         /* block commands seen (records)             */
	uint64_t unmatched_commands;  /* no response seen: latency unknown      */
	uint64_t unmatched_responses; /* response without its command           */
	uint64_t other_commands;   /* SCSI/NBD commands that carry no block I/O */
	uint64_t records;          /* records emitted                           */
	uint64_t kernel_drops;     /* live: packets the kernel dropped          */
	unsigned digests;          /* 1 header digest, 2 data digest seen/used  */
};

/*
 * Reads the pcap or pcapng file path, reassembles the TCP connections on
 * the iSCSI and NBD ports, and calls emit for each block request in
 * capture (issue) order, with the latency to its response when seen.  h
 * gets a device per iSCSI target+LUN ("iscsi:TARGET/lun:N", or the peer
 * address while the login is not visible) and per NBD export
 * ("nbd:ADDR/EXPORT"), and metadata (source, the sessions as streams).
 * Returns 0 or a negative error with "PATH: packet N: reason" in err; an
 * emit error is returned as is.
 */
int cap_pcap_import(const char *path, const struct cap_pcap_opts *opts,
		    ist_header *h,
		    int (*emit)(void *ctx, const struct ist_record *rec),
		    void *ctx, struct cap_pcap_stats *stats, char *err,
		    size_t errlen);

/* The same from a live interface (`iostorm record --pcap IFACE`): runs until
 * opts->duration_ns, opts->max_ios or *opts->stop. */
int cap_pcap_live(const char *iface, const struct cap_pcap_opts *opts,
		  ist_header *h,
		  int (*emit)(void *ctx, const struct ist_record *rec),
		  void *ctx, struct cap_pcap_stats *stats, char *err,
		  size_t errlen);

/* Decodes a capture held in memory (fuzzing, tests): as cap_pcap_import. */
int cap_pcap_import_mem(const void *data, size_t size,
			const struct cap_pcap_opts *opts, ist_header *h,
			int (*emit)(void *ctx, const struct ist_record *rec),
			void *ctx, struct cap_pcap_stats *stats, char *err,
			size_t errlen);

#endif

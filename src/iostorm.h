/* SPDX-License-Identifier: MIT */
/*
 * iostorm.h - public interface of libiostorm: the I/O record, the IST trace
 * file (streaming writer and reader), errors and shared helpers.
 *
 * Conventions (as in liburing): functions return 0 or a non-negative count
 * on success and a negative error code on failure: -errno for system
 * errors, or one of the IST_E* codes below (all below -IST_E_BASE) for
 * format errors.  ist_strerror() names every code.  The library never
 * prints and never exits.  Objects are opaque handles with _open/_new and
 * _close/_free; the caller owns what it passes in unless stated otherwise.
 */
#ifndef IOSTORM_H
#define IOSTORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IST_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- errors */

#define IST_E_BASE 4096
enum ist_error {
	IST_EFORMAT = -(IST_E_BASE + 1),    /* not an IST file (bad magic)        */
	IST_EVERSION = -(IST_E_BASE + 2),   /* unsupported major version          */
	IST_ECRC = -(IST_E_BASE + 3),       /* chunk CRC mismatch                 */
	IST_ETRUNC = -(IST_E_BASE + 4),     /* file or chunk truncated            */
	IST_ECORRUPT = -(IST_E_BASE + 5),   /* structure inconsistent             */
	IST_EZLIB = -(IST_E_BASE + 6),      /* zlib failed to inflate/deflate     */
	IST_ENOFOOTER = -(IST_E_BASE + 7),  /* footer missing (writer died)       */
	IST_EPARSE = -(IST_E_BASE + 8),     /* bad input text or record           */
	IST_ERANGE = -(IST_E_BASE + 9),     /* value out of range                 */
	IST_EDEVICE = -(IST_E_BASE + 10),   /* unknown device index               */
	IST_EUNSUPPORTED = -(IST_E_BASE + 11), /* feature not supported here     */
	IST_EORDER = -(IST_E_BASE + 12),    /* records out of time order          */
	IST_EUNSAFE = -(IST_E_BASE + 13),   /* refused: would destroy data        */
	IST_E_LAST = -(IST_E_BASE + 14)
};

/* A static string naming err (negative code); never NULL. */
const char *ist_strerror(int err);

/* ---------------------------------------------------------------- record */

enum ist_op {
	IST_OP_READ = 0,
	IST_OP_WRITE = 1,
	IST_OP_FLUSH = 2,
	IST_OP_DISCARD = 3,
	IST_OP_WRITE_ZEROES = 4,
	IST_OP_COUNT
};

enum ist_flag {
	IST_F_SYNC = 1u << 0,      /* synchronous (REQ_SYNC)                       */
	IST_F_FUA = 1u << 1,       /* force unit access                            */
	IST_F_META = 1u << 2,      /* filesystem metadata                          */
	IST_F_PREFLUSH = 1u << 3,  /* flush before the write (REQ_PREFLUSH)        */
	IST_F_READAHEAD = 1u << 4, /* read-ahead                                   */
	IST_F_COMMIT = 1u << 5,    /* commit marker: ends a transaction            */
	IST_F_DEPENDENT = 1u << 6, /* issued after the stream's previous completed */
	IST_F_COUNT = 7
};
#define IST_F_ALL ((1u << IST_F_COUNT) - 1)

/*
 * One I/O request.  offset and len are bytes.  t_ns is the issue time in
 * nanoseconds since the trace start; lat_ns the completion latency seen at
 * capture (0 = unknown); stream the issuing client (0 = unknown), txn the
 * transaction within the stream (0 = none).
 */
struct ist_record {
	uint64_t t_ns;
	uint64_t offset;
	uint64_t lat_ns;
	uint64_t stream;
	uint64_t txn;
	uint32_t len;
	uint32_t dev;
	uint16_t flags;
	uint8_t op;
	uint8_t reserved;
};

/* "read", "write", "flush", "discard", "write_zeroes"; NULL if unknown. */
const char *ist_op_name(unsigned op);
/* Returns the op (>= 0) or IST_EPARSE. */
int ist_op_parse(const char *name, size_t len);
/* Name of one flag bit ("sync", "fua", "meta", "preflush", "readahead",
 * "commit", "dependent"); NULL if not a known single bit. */
const char *ist_flag_name(unsigned flag);
/* Formats flags as names joined by '|' ("" for none) into buf; returns the
 * length written (excluding NUL), or IST_ERANGE if buf is too small. */
int ist_flags_format(unsigned flags, char *buf, size_t size);
/* Parses names joined by '|' (empty = 0); returns flags or IST_EPARSE. */
int ist_flags_parse(const char *s, size_t len);

/* ---------------------------------------------------------------- header */

/* A trace header: metadata (ordered key/value strings) and device table. */
struct ist_device {
	const char *name;
	uint64_t size;       /* bytes; 0 = unknown */
	uint32_t block_size; /* logical block size in bytes; 0 = unknown */
};

typedef struct ist_header ist_header;

ist_header *ist_header_new(void);
void ist_header_free(ist_header *h);
/* Copies h (NULL on allocation failure). */
ist_header *ist_header_dup(const ist_header *h);
/* Sets (replaces) a metadata key; key and value are copied. */
int ist_header_set(ist_header *h, const char *key, const char *value);
/* Value of key, or NULL. */
const char *ist_header_get(const ist_header *h, const char *key);
unsigned ist_header_meta_count(const ist_header *h);
/* The i-th key/value pair, in insertion order; 0 or IST_ERANGE. */
int ist_header_meta_at(const ist_header *h, unsigned i, const char **key,
		       const char **value);
/* Appends a device; returns its index (>= 0) or a negative error. */
int ist_header_add_device(ist_header *h, const char *name, uint64_t size,
			  uint32_t block_size);
/* Index of the device named name, or IST_EDEVICE. */
int ist_header_find_device(const ist_header *h, const char *name);
unsigned ist_header_device_count(const ist_header *h);
/* Pointer valid until h changes or is freed; NULL if out of range. */
const struct ist_device *ist_header_device(const ist_header *h, unsigned i);
/* Updates a device's size (e.g. from observed max offset). */
int ist_header_set_device_size(ist_header *h, unsigned i, uint64_t size);
int ist_header_set_device_block_size(ist_header *h, unsigned i, uint32_t block_size);

/* ---------------------------------------------------------------- totals */

#define IST_MAX_FOOTER_DEVICES 65536

/* Totals kept in the footer: readable without decoding any data. */
struct ist_totals {
	uint64_t records;
	uint64_t first_t_ns;            /* t_ns of the earliest record            */
	uint64_t last_t_ns;             /* t_ns of the latest record              */
	uint64_t count[IST_OP_COUNT];   /* records per op                         */
	uint64_t bytes[IST_OP_COUNT];   /* bytes per op                           */
	uint64_t streams;               /* distinct non-zero streams              */
	uint64_t txns;                  /* distinct (stream, txn) with txn != 0   */
	uint64_t with_latency;          /* records with lat_ns != 0               */
	uint64_t out_of_order;          /* records earlier than their predecessor */
	uint32_t flags_exact;           /* IST_TOTALS_* bits                      */
	uint32_t ndev;                  /* entries in dev_max_end                 */
	uint64_t *dev_max_end;          /* per device: max(offset + len), owned   */
};
#define IST_TOTALS_STREAMS_EXACT 1u /* streams is exact, not a lower bound   */
#define IST_TOTALS_TXNS_EXACT 2u    /* txns is exact, not a lower bound      */

/* ---------------------------------------------------------------- writer */

typedef struct ist_writer ist_writer;

/*
 * How hard the writer works on size (ist_writer_opts.effort).  Both write
 * ordinary IST files that every reader reads; only the storage the
 * writer chooses per column differs.
 */
enum ist_effort {
	/* smallest files: per column the shortest of plain, ANS, deflate
	 * and (chunks of at most 8192 records) ARITH */
	IST_EFFORT_DEFAULT = 0,
	/* plain or ANS, no ARITH, and deflate (level 1) only where a 4 KiB
	 * sample of a column promises half of ANS's size (long repeats):
	 * up to 2.3 times the writer's speed on the bench traces, files
	 * 0-25 % larger, small ones more (bench/README.md) */
	IST_EFFORT_FAST = 1,
	/* no entropy coding: every column stored as coded (varints, DICT,
	 * ...), deflated (level 1) only where a 4 KiB sample of it
	 * deflates to 1/8 or less (long repeats): the writer's fastest,
	 * files 1.1 to 3.3 times the default's on the real samples
	 * (bench/README.md) */
	IST_EFFORT_FASTEST = 2,
};

/* Options for ist_writer_open (zero-initialise; all fields optional). */
struct ist_writer_opts {
	unsigned chunk_records; /* records per chunk; 0 = 65536 (max 1 << 20)  */
	int level;              /* zlib level 1..9; 0 = default (ignored by
				   IST_EFFORT_FAST and IST_EFFORT_FASTEST,
				   which deflate at 1)                          */
	int direct;             /* 1: write path itself, not path.tmp+rename;
				   for recorders: a killed writer leaves every
				   complete chunk readable                      */
	int effort;             /* enum ist_effort; 0 = IST_EFFORT_DEFAULT;
				   another value: -EINVAL                       */
};

/*
 * Creates path and writes the header (copied from h).  Unless opts->direct
 * the data goes to a temporary file beside path that ist_writer_close()
 * renames into place, so that a failed or interrupted writer never leaves
 * a file that looks complete.
 */
int ist_writer_open(ist_writer **w, const char *path, const ist_header *h,
		    const struct ist_writer_opts *opts);
/*
 * Writes to an open descriptor (a pipe, stdout) instead; opts->direct is
 * implied.  The writer never seeks.  ist_writer_close() does not close fd.
 */
int ist_writer_open_fd(ist_writer **w, int fd, const ist_header *h,
		       const struct ist_writer_opts *opts);
/*
 * Appends n records; returns 0 or a negative error.  A record the format
 * cannot hold (op >= IST_OP_COUNT or unknown flag bits: IST_ERANGE; dev >=
 * IST_MAX_FOOTER_DEVICES: IST_EDEVICE) rejects the whole batch and leaves
 * the writer usable; any other error (I/O, memory) makes it unusable and
 * close will discard the file.
 */
int ist_writer_write(ist_writer *w, const struct ist_record *recs, size_t n);
/*
 * The same, each record written as if its t_ns were t_ns - shift (modulo
 * 2^64; recs are not changed): a caller that moves times to a new origin
 * (an importer making a trace start at 0) need not copy the records to
 * shift them first.
 */
int ist_writer_write_shifted(ist_writer *w, const struct ist_record *recs,
			     size_t n, uint64_t shift);
/* Flushes the current partial chunk to disk (for recorders). */
int ist_writer_flush(ist_writer *w);
/* Running totals so far (valid until the next call on w). */
const struct ist_totals *ist_writer_totals(const ist_writer *w);
/*
 * Footer metadata (IST 1.2) for what a writer learns after the header was
 * written, such as the names of processes that started later: pairs and
 * devices kept by ist_writer_close() in the footer, which readers merge
 * into the header they return (a footer key replaces a header key of the
 * same name; footer devices follow the header's).  Lost when the writer
 * never closes.  set_meta returns 0 or a negative error; add_device
 * returns the device's index (header devices first) or a negative error.
 */
int ist_writer_set_meta(ist_writer *w, const char *key, const char *value);
int ist_writer_add_device(ist_writer *w, const char *name, uint64_t size,
			  uint32_t block_size);
/* Writes the last chunk and footer, syncs and renames into place; frees w.
 * Returns 0 or a negative error (the temporary output is then removed; with
 * opts.direct the file stays, without a footer, for recovery). */
int ist_writer_close(ist_writer *w);
/* Discards the output (removes it) and frees w. */
void ist_writer_abort(ist_writer *w);

/* ---------------------------------------------------------------- reader */

typedef struct ist_reader ist_reader;

/* Where a reader stands or where it failed, for error messages. */
struct ist_position {
	uint64_t chunk;       /* chunk index (0-based)                  */
	uint64_t byte_offset; /* file offset of that chunk (or of the error) */
	uint64_t record;      /* records returned before this one       */
};

struct ist_chunk_info {
	uint64_t offset;     /* file offset of the chunk */
	uint64_t first_t_ns; /* t_ns of its first record */
	uint64_t last_t_ns;  /* largest t_ns in it */
	uint32_t count;      /* records in it */
};

/*
 * Opens an IST file and reads its header and footer.  A file without a
 * footer is accepted (ist_reader_has_footer() then returns 0) and its
 * complete chunks are found by scanning.  Returns 0 or a negative error; on
 * error *r is NULL.
 */
int ist_reader_open(ist_reader **r, const char *path);
void ist_reader_close(ist_reader *r);
const ist_header *ist_reader_header(const ist_reader *r);
int ist_reader_version(const ist_reader *r, unsigned *major, unsigned *minor);
int ist_reader_has_footer(const ist_reader *r);
/* The footer's own metadata and devices (IST 1.2; already merged into
 * ist_reader_header()), or NULL when the file has none or no footer. */
const ist_header *ist_reader_footer_meta(const ist_reader *r);
/* Why the footer is not used: 0 (it is), IST_ENOFOOTER (no trailer: the
 * writer did not finish), IST_ECRC or IST_ECORRUPT (damaged). */
int ist_reader_footer_error(const ist_reader *r);
/* Footer totals, or NULL without a footer. */
const struct ist_totals *ist_reader_totals(const ist_reader *r);
/* Number of chunks (from the index, or found by scanning). */
uint64_t ist_reader_chunk_count(const ist_reader *r);
int ist_reader_chunk_info(const ist_reader *r, uint64_t i,
			  struct ist_chunk_info *ci);
/* File size in bytes. */
uint64_t ist_reader_file_size(const ist_reader *r);
/*
 * Reads up to max records into recs; returns the count, 0 at the end, or a
 * negative error (position from ist_reader_position()).  After an error
 * in one chunk, the next call continues with the next chunk.  Records are
 * decoded straight into recs, as many as asked for: a chunk read in
 * batches smaller than it is decoded batch by batch, so damage that its
 * CRC cannot show (a column inconsistent with the others) may come out as
 * an error after some of the chunk's records were returned; a batch at
 * least as large as a chunk (65536 records by default) gets all of its
 * records or the error.
 */
ssize_t ist_reader_read(ist_reader *r, struct ist_record *recs, size_t max);
/* Positions the reader at the first chunk that may hold t >= t_ns. */
int ist_reader_seek_time(ist_reader *r, uint64_t t_ns);
/* Positions the reader at chunk i. */
int ist_reader_seek_chunk(ist_reader *r, uint64_t i);
/* Where the reader stands (after an error: where it failed). */
void ist_reader_position(const ist_reader *r, struct ist_position *pos);
/* Decodes and checks chunk i alone; 0 or the chunk's error. */
int ist_reader_check_chunk(ist_reader *r, uint64_t i);

/* ---------------------------------------------------------------- totals helper */

/* Frees what ist_totals owns (dev_max_end). */
void ist_totals_release(struct ist_totals *t);

/*
 * Running totals of a record stream, as the writer keeps them for the
 * footer (for a scan of a file without footer, importers, statistics).
 * Distinct streams and (stream, txn) pairs are exact up to 512 Ki each,
 * then lower bounds (the IST_TOTALS_*_EXACT bit is cleared).
 */
typedef struct ist_totals_acc ist_totals_acc;
ist_totals_acc *ist_totals_acc_new(void);
void ist_totals_acc_free(ist_totals_acc *a);
/* Adds n records; 0, -ENOMEM, or IST_EDEVICE (dev >= IST_MAX_FOOTER_DEVICES). */
int ist_totals_acc_add(ist_totals_acc *a, const struct ist_record *recs,
		       size_t n);
/* The same with every t_ns taken as t_ns - shift (ist_writer_write_shifted()). */
int ist_totals_acc_add_shifted(ist_totals_acc *a, const struct ist_record *recs,
			       size_t n, uint64_t shift);
/* The totals so far, owned by a (valid until the next call on a). */
const struct ist_totals *ist_totals_acc_get(const ist_totals_acc *a);

/* ---------------------------------------------------------------- canonical CSV */

#define IST_CSV_HEADER "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"

/* Formats rec as one canonical CSV line with '\n'; returns its length or
 * IST_ERANGE if buf is too small (IST_CSV_LINE_MAX always suffices). */
#define IST_CSV_LINE_MAX 192
int ist_csv_format(const struct ist_record *rec, char *buf, size_t size);
/* Parses one canonical CSV line (without or with trailing newline);
 * 0, IST_EPARSE or IST_ERANGE. */
int ist_csv_parse(const char *line, size_t len, struct ist_record *rec);

/*
 * A canonical CSV file starts with the trace header as comment lines,
 * then the header row IST_CSV_HEADER, then one line per record:
 *     # meta: KEY=VALUE
 *     # device: N size=BYTES block_size=BYTES name=NAME
 * (KEY, VALUE, NAME escape '\' as "\\" and control bytes as "\xHH",
 * KEY also '=').  Other lines starting with '#' are ignored.
 */
/* Writes h (may be NULL) as comment lines and the header row; 0 or -EIO. */
int ist_csv_write_header(FILE *f, const ist_header *h);

typedef struct ist_csv_reader ist_csv_reader;
/* A streaming reader of canonical CSV from f (not closed by it); NULL if
 * out of memory.  Memory stays bounded (lines longer than 64 KiB are
 * rejected). */
ist_csv_reader *ist_csv_reader_new(FILE *f);
void ist_csv_reader_free(ist_csv_reader *c);
/* Reads the comment lines and the header row (read does it when needed);
 * 0 or a negative error. */
int ist_csv_reader_begin(ist_csv_reader *c);
/* The header built from the comment lines (valid until free). */
const ist_header *ist_csv_reader_header(const ist_csv_reader *c);
/* Reads up to max records; the count, 0 at the end, or a negative error
 * (IST_EPARSE, IST_ERANGE, -EIO; every later call returns it again). */
ssize_t ist_csv_reader_read(ist_csv_reader *c, struct ist_record *recs,
			    size_t max);
/* Line number (1-based) of the last line read: after an error, its line. */
uint64_t ist_csv_reader_line(const ist_csv_reader *c);
/* A short reason for the last error ("field op: unknown op 'rd'"). */
const char *ist_csv_reader_detail(const ist_csv_reader *c);

/*
 * The reader's line parsers, for readers of other streams (the ist-csv
 * importer): the same syntax and reasons.  ist_csv_preamble_line() takes
 * one line before the header row into h: 0 for a '# meta:', '# device:'
 * or other comment line, 1 for the header row, or IST_EPARSE (-ENOMEM)
 * with the reason in why.  ist_csv_record_line() is ist_csv_parse() with
 * the reason of a rejection in why.  Lines come without their newline.
 */
int ist_csv_preamble_line(ist_header *h, const char *line, size_t len,
			  char *why, size_t size);
int ist_csv_record_line(const char *line, size_t len, struct ist_record *rec,
			char *why, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* IOSTORM_H */

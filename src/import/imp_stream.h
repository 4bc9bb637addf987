/* SPDX-License-Identifier: MIT */
/* imp_stream.h - one streaming reader for plain and compressed inputs. */
#ifndef IST_IMP_STREAM_H
#define IST_IMP_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * An input stream: a file (or memory buffer) that may be gzip, bzip2, xz or
 * zstd compressed, detected by its magic bytes and decompressed on the fly.
 * It hands out lines (text formats) or bytes (binary formats) and keeps
 * the line number and the decompressed byte offset of what it handed out
 * last, for error messages.  Memory is bounded by its buffers (~1.3 MiB).
 */
struct imp_stream;

#define IMP_LINE_MAX (1u << 20) /* longest accepted line */

/* Opens path ("-" is standard input).  0 or -errno. */
int imp_stream_open(struct imp_stream **s, const char *path);
/* Reads from a caller-owned buffer (kept until close); 0 or -ENOMEM. */
int imp_stream_open_mem(struct imp_stream **s, const void *buf, size_t len);
void imp_stream_close(struct imp_stream *s);

/* "none", "gzip", "bzip2", "xz" or "zstd". */
const char *imp_stream_codec(const struct imp_stream *s);

/*
 * Makes up to want bytes of decompressed data visible without consuming
 * them (fewer at the end of the stream); returns the count or a negative
 * error.  want is capped at 64 KiB.
 */
ssize_t imp_stream_peek(struct imp_stream *s, const unsigned char **p,
			size_t want);

/*
 * Returns the next line in *line (NUL-terminated, '\n' and a trailing '\r'
 * removed; writable, valid until the next call) and its length in *len.
 * Returns 1, 0 at the end, IST_ERANGE for a line longer than IMP_LINE_MAX,
 * or a decompression error (see imp_stream_error()).
 */
int imp_stream_getline(struct imp_stream *s, char **line, size_t *len);

/* Reads up to n bytes; returns the count (short only at the end) or a
 * negative error. */
ssize_t imp_stream_read(struct imp_stream *s, void *buf, size_t n);
/*
 * Consumes up to n bytes (n at most 64 KiB) without copying them: *p
 * points to them in the stream's buffer, valid until the next call.
 * Returns the count (short only at the end) or a negative error.
 */
ssize_t imp_stream_take(struct imp_stream *s, const unsigned char **p,
			size_t n);

/*
 * For a parser that takes many records at once: the bytes buffered and
 * not yet consumed, without reading more (*p valid until the next call
 * on s; 0 when the buffer is used up: take or read refill it), and
 * consuming n of them as records of rec bytes each (n a multiple of rec,
 * at most what imp_stream_buffered() gave), the offset then being the
 * last record's, as if each had been taken.
 */
size_t imp_stream_buffered(struct imp_stream *s, const unsigned char **p);
void imp_stream_consume(struct imp_stream *s, size_t n, size_t rec);

/* 1-based number of the last line returned (0 before the first). */
uint64_t imp_stream_line(const struct imp_stream *s);
/* Decompressed byte offset of the start of the last line or read. */
uint64_t imp_stream_offset(const struct imp_stream *s);
/* A static description of the last decompression error ("" if none). */
const char *imp_stream_error(const struct imp_stream *s);
/* Byte offset in the compressed input at which that error was found (for
 * a truncated stream: its length). */
uint64_t imp_stream_error_offset(const struct imp_stream *s);

#endif

/*
 * pktline.h: git's pkt-line framing and side-band multiplexing, as
 * `git archive --remote` and `git upload-archive` speak them.
 *
 * A pkt-line is four lowercase hex digits giving the length of the whole
 * packet (the four digits included) followed by the payload.  "0000" is
 * a flush packet, "0001" a delimiter and "0002" a response end (protocol
 * v2 markers that upload-archive never sends but a reader must accept).
 * Lengths 0003 and anything whose payload does not fit the reader's
 * buffer are protocol errors.
 *
 * Side-band: after the handshake each packet's first payload byte names
 * a band: 1 archive data, 2 progress and messages for stderr, 3 a fatal
 * error message.  The stream ends with a flush packet.
 *
 * Every function returns 0 (or a status >= 0) or a negative error code
 * with git's message in the error slot; GA_EPIPE when the peer has gone
 * away while we write, so that main can die of SIGPIPE as git does.
 */
#ifndef GARCHIVE_PKTLINE_H
#define GARCHIVE_PKTLINE_H

#include <stddef.h>

struct ga_buf;

/* git's LARGE_PACKET_MAX: the largest packet, header included. */
#define PKT_MAX			65520
#define PKT_DATA_MAX		(PKT_MAX - 4)
/*
 * What upload-archive reads from its writer at a time, and therefore the
 * largest side-band payload it sends.
 */
#define PKT_SIDEBAND_CHUNK	16384

enum pkt_status {
	PKT_NORMAL = 0,		/* a packet with a payload (maybe empty) */
	PKT_FLUSH,		/* 0000 */
	PKT_DELIM,		/* 0001 */
	PKT_RESPONSE_END,	/* 0002 */
	PKT_EOF			/* end of input (PKT_GENTLE_ON_EOF only) */
};

/* Flags for pkt_read(). */
#define PKT_CHOMP_NEWLINE	(1u << 0)	/* drop one trailing '\n' */
#define PKT_GENTLE_ON_EOF	(1u << 1)	/* EOF is PKT_EOF, not fatal */
#define PKT_DIE_ON_ERR		(1u << 2)	/* "ERR <msg>": remote error */

/*
 * Read one packet from `fd` into `buf` (of `size` bytes; a payload must
 * be shorter than `size`, as in git, and is NUL-terminated).  `*len` gets
 * the payload length (0 for the special packets).  Returns an enum
 * pkt_status, or GA_ERROR with git's message: "protocol error: bad line
 * length character: XXXX", "protocol error: bad line length N", "the
 * remote end hung up unexpectedly", "read error: <strerror>", "remote
 * error: <msg>".
 */
int pkt_read(int fd, char *buf, size_t size, size_t *len, unsigned flags);

/*
 * git's packet_read_line(): one packet read with PKT_CHOMP_NEWLINE into
 * `buf` (of `size` bytes).  *line is the payload, or NULL for a flush or
 * any other packet with nothing left in it.  The end of input is fatal.
 * Returns 0 or a negative error code (*line NULL), as pkt_read().
 */
int pkt_read_line(int fd, char *buf, size_t size, char **line);

/*
 * git's read_packetized_to_strbuf(): append the payloads of packets to
 * `out` until a flush (or an empty packet), NUL-terminated.  Returns 0,
 * PKT_EOF if the input ended first (only with PKT_GENTLE_ON_EOF in
 * `flags`; what was read stays in `out`), or a negative error code.
 */
int pkt_read_packetized(int fd, struct ga_buf *out, unsigned flags);

/* Write one packet with `len` (<= PKT_DATA_MAX) payload bytes. */
int pkt_write(int fd, const void *data, size_t len);

/* Write one packet whose payload is formatted; git's "impossibly long". */
int pkt_write_fmt(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Write a flush packet. */
int pkt_flush(int fd);

/*
 * The writers of git's long-running process protocol, which fail
 * gently as git's packet_write_fmt_gently(), packet_flush_gently() and
 * write_packetized_from_buf_no_flush(): a failed write is reported
 * through ga_report() as git's "error:" line ("packet write with format
 * failed", "flush packet write failed", "packet write failed:
 * <strerror>") and returns 1, for the caller to give up on the process
 * and carry on.  0 when all is written.  Only what git dies of is a
 * negative code: a formatted line longer than a packet ("protocol
 * error: impossibly long line").
 *
 * pkt_write_fmt_gently() writes each packet in one write(), as git.
 * pkt_write_data_gently() splits `len` bytes into as many packets as
 * needed, without a flush.
 */
int pkt_write_fmt_gently(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int pkt_flush_gently(int fd);
int pkt_write_data_gently(int fd, const void *data, size_t len);

/*
 * The same packets appended to a buffer, for a caller that sends a
 * whole request in one write.  They fail as their pkt_write*()
 * counterparts do on a payload too long.
 */
int pkt_buf_add(struct ga_buf *buf, const void *data, size_t len);
int pkt_buf_fmt(struct ga_buf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pkt_buf_flush(struct ga_buf *buf);

/*
 * Send `len` bytes on side-band `band` (1, 2 or 3) to `fd`, split into
 * packets of at most PKT_MAX bytes.
 */
int sideband_send(int fd, int band, const void *data, size_t len);

/* How band 2 and band 3 messages are shown, chosen by the caller. */
struct sideband_style {
	const char *me;		/* "archive": prefix of our own messages */
	int color;		/* highlight hint/warning/success/error */
	int ansi;		/* end lines with ESC [K, not 8 spaces */
};

/*
 * Demultiplex the side-band stream on `in_fd` until a flush packet, as
 * git's recv_sideband(): band 1 to `out_fd`, band 2 to `err_fd` line by
 * line with "remote: " in front and the clear-to-end-of-line suffix
 * after every non-empty line.  Returns 0 at the flush; GA_EREMOTE (see
 * garchive/remote.h) after writing "remote: <msg>" for band 3 or
 * "<me>: ..." for a protocol error or a disconnect to `err_fd`; GA_EPIPE
 * or GA_ERROR when `out_fd` cannot be written or the packet framing is
 * broken.
 */
int sideband_recv(int in_fd, int out_fd, int err_fd,
		  const struct sideband_style *style);

/*
 * Write all of `buf` to `fd`, retrying short writes and EINTR.  Returns
 * 0, GA_EPIPE, or -1 with errno set (no message: callers word it).
 */
int pkt_write_all(int fd, const void *buf, size_t len);

#endif

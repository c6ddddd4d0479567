/*
 * pktline.c: pkt-line framing and side-band (de)multiplexing with git's
 * limits and messages (pkt-line.c and sideband.c of git 2.39).
 */
#include "pktline.h"
#include "garchive/common.h"
#include "garchive/sink.h"
#include "sane-ctype.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DISPLAY_PREFIX	"remote: "
#define ANSI_SUFFIX	"\033[K"
#define DUMB_SUFFIX	"        "

int pkt_write_all(int fd, const void *buf, size_t len)
{
	if (!ga_write_all(fd, buf, len))
		return 0;
	return errno == EPIPE ? GA_EPIPE : -1;
}

/* 0: all `len` bytes; 1: EOF first; or an error code. */
static int read_packet_data(int fd, char *buf, size_t len, unsigned flags)
{
	ssize_t n = ga_read_full(fd, buf, len);

	if (n < 0)
		return ga_error_errno(errno, "read error");
	if ((size_t)n == len)
		return 0;
	if (flags & PKT_GENTLE_ON_EOF)
		return 1;
	return ga_error_set("the remote end hung up unexpectedly");
}

int pkt_read(int fd, char *buf, size_t size, size_t *len, unsigned flags)
{
	char linelen[5];
	int i, error;
	long n = 0;

	*len = 0;
	if ((error = read_packet_data(fd, linelen, 4, flags)) != 0)
		return error < 0 ? error : PKT_EOF;
	linelen[4] = '\0';
	for (i = 0; i < 4; i++) {
		int v = ga_hexval((unsigned char)linelen[i]);

		if (v < 0)
			return ga_error_set("protocol error: bad line length "
					    "character: %.4s", linelen);
		n = (n << 4) | v;
	}
	switch (n) {
	case 0:
		return PKT_FLUSH;
	case 1:
		return PKT_DELIM;
	case 2:
		return PKT_RESPONSE_END;
	case 3:
		return ga_error_set("protocol error: bad line length %ld", n);
	}
	n -= 4;
	if ((size_t)n >= size)
		return ga_error_set("protocol error: bad line length %ld", n);
	if ((error = read_packet_data(fd, buf, (size_t)n, flags)) != 0)
		return error < 0 ? error : PKT_EOF;
	if ((flags & PKT_CHOMP_NEWLINE) && n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	*len = (size_t)n;
	if ((flags & PKT_DIE_ON_ERR) && !strncmp(buf, "ERR ", 4))
		return ga_error_set("remote error: %s", buf + 4);
	return PKT_NORMAL;
}

int pkt_read_line(int fd, char *buf, size_t size, char **line)
{
	size_t len;
	int status = pkt_read(fd, buf, size, &len, PKT_CHOMP_NEWLINE);

	*line = status >= 0 && len ? buf : NULL;
	return status < 0 ? status : 0;
}

int pkt_read_packetized(int fd, struct ga_buf *out, unsigned flags)
{
	size_t len;
	int status;

	for (;;) {
		/* The payload and pkt_read()'s NUL fit in what is grown. */
		ga_buf_grow(out, PKT_DATA_MAX + 1);
		status = pkt_read(fd, out->ptr + out->len, PKT_DATA_MAX + 1,
				  &len, flags);
		if (status < 0)
			return status;
		if (!len)
			break;
		out->len += len;
	}
	out->ptr[out->len] = '\0';
	return status == PKT_EOF ? PKT_EOF : 0;
}

static void set_header(char *hdr, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	hdr[0] = hex[(len >> 12) & 15];
	hdr[1] = hex[(len >> 8) & 15];
	hdr[2] = hex[(len >> 4) & 15];
	hdr[3] = hex[len & 15];
}

int pkt_buf_add(struct ga_buf *buf, const void *data, size_t len)
{
	char hdr[4];

	if (len > PKT_DATA_MAX)
		return ga_error_set("packet write failed - data exceeds max "
				    "packet size");
	set_header(hdr, len + 4);
	ga_buf_put(buf, hdr, 4);
	ga_buf_put(buf, data, len);
	return 0;
}

static int pkt_buf_vfmt(struct ga_buf *buf, const char *fmt, va_list ap)
{
	size_t start = buf->len;
	char *payload;

	if (vasprintf(&payload, fmt, ap) < 0)
		return ga_error_set("out of memory formatting a packet");
	ga_buf_puts(buf, "0000");
	ga_buf_puts(buf, payload);
	free(payload);
	if (buf->len - start > PKT_MAX) {
		ga_buf_setlen(buf, start);
		return ga_error_set("protocol error: impossibly long line");
	}
	set_header(buf->ptr + start, buf->len - start);
	return 0;
}

int pkt_buf_fmt(struct ga_buf *buf, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = pkt_buf_vfmt(buf, fmt, ap);
	va_end(ap);
	return error;
}

void pkt_buf_flush(struct ga_buf *buf)
{
	ga_buf_put(buf, "0000", 4);
}

int pkt_write(int fd, const void *data, size_t len)
{
	struct ga_buf buf = GA_BUF_INIT;
	int error;

	if ((error = pkt_buf_add(&buf, data, len)) == 0 &&
	    (error = pkt_write_all(fd, buf.ptr, buf.len)) == -1)
		error = ga_error_errno(errno, "packet write failed");
	ga_buf_release(&buf);
	return error;
}

/*
 * Format one packet and send it in one write().  Returns 0, GA_ERROR for
 * a line too long (message set), or 1 when the write failed (errno set,
 * no message: the callers word it as git does).
 */
static int write_vfmt(int fd, const char *fmt, va_list ap)
{
	struct ga_buf buf = GA_BUF_INIT;
	int error = pkt_buf_vfmt(&buf, fmt, ap), err = 0;

	if (!error && ga_write_all(fd, buf.ptr, buf.len) < 0) {
		err = errno;
		error = 1;
	}
	ga_buf_release(&buf);
	errno = err;
	return error;
}

int pkt_write_fmt(int fd, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = write_vfmt(fd, fmt, ap);
	va_end(ap);
	if (error == 1 && errno == EPIPE)
		return GA_EPIPE;
	if (error == 1)
		return ga_error_errno(errno,
				      "packet write with format failed");
	return error;
}

int pkt_flush(int fd)
{
	int error = pkt_write_all(fd, "0000", 4);

	if (error == -1)
		return ga_error_errno(errno, "unable to write flush packet");
	return error;
}

int pkt_write_fmt_gently(int fd, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = write_vfmt(fd, fmt, ap);
	va_end(ap);
	if (error == 1)
		ga_report(GA_REPORT_ERROR, "packet write with format failed");
	return error;
}

int pkt_flush_gently(int fd)
{
	if (ga_write_all(fd, "0000", 4) < 0) {
		ga_report(GA_REPORT_ERROR, "flush packet write failed");
		return 1;
	}
	return 0;
}

int pkt_write_data_gently(int fd, const void *data, size_t len)
{
	const char *p = data;
	char hdr[4];

	while (len) {
		size_t n = len < PKT_DATA_MAX ? len : PKT_DATA_MAX;

		/* Header and payload apart, so the data is never copied. */
		set_header(hdr, n + 4);
		if (ga_write_all(fd, hdr, 4) < 0 ||
		    ga_write_all(fd, p, n) < 0) {
			ga_report(GA_REPORT_ERROR, "packet write failed: %s",
				  strerror(errno));
			return 1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int sideband_send(int fd, int band, const void *data, size_t len)
{
	const char *p = data;
	char hdr[5];
	int error;

	while (len) {
		size_t n = len < PKT_MAX - 5 ? len : PKT_MAX - 5;

		set_header(hdr, n + 5);
		hdr[4] = (char)band;
		if ((error = pkt_write_all(fd, hdr, 5)) == 0)
			error = pkt_write_all(fd, p, n);
		if (error == -1)
			return ga_error_errno(errno, "write error");
		if (error)
			return error;
		p += n;
		len -= n;
	}
	return 0;
}

/* ---- demultiplexing ---- */

struct keyword {
	const char *word;
	const char *color;
};

/* git's default colors for keywords at the start of a remote line. */
static const struct keyword keywords[] = {
	{ "hint", "\033[33m" },
	{ "warning", "\033[1;33m" },
	{ "success", "\033[1;32m" },
	{ "error", "\033[1;31m" },
};

/* Add one line's text, highlighting a leading keyword when asked. */
static void add_colorized(struct ga_buf *dst, const char *src, size_t n,
			  const struct sideband_style *style)
{
	size_t i;

	if (!style->color) {
		ga_buf_put(dst, src, n);
		return;
	}
	while (n && ga_isspace(*src)) {
		ga_buf_putc(dst, *src++);
		n--;
	}
	for (i = 0; i < GA_ARRAY_SIZE(keywords); i++) {
		size_t len = strlen(keywords[i].word);

		if (n < len)
			continue;
		if (!strncasecmp(keywords[i].word, src, len) &&
		    (len == n || !ga_isalnum(src[len]))) {
			ga_buf_puts(dst, keywords[i].color);
			ga_buf_put(dst, src, len);
			ga_buf_puts(dst, "\033[m");
			src += len;
			n -= len;
			break;
		}
	}
	ga_buf_put(dst, src, n);
}

static void flush_scratch(int err_fd, struct ga_buf *scratch)
{
	if (scratch->len)
		(void)pkt_write_all(err_fd, scratch->ptr, scratch->len);
	ga_buf_setlen(scratch, 0);
}

/*
 * Band 2: every complete line is written at once (one write, so lines
 * from several processes do not interleave), a partial line waits in
 * `scratch` for the rest.
 */
static void show_band2(int err_fd, const char *b, struct ga_buf *scratch,
		       const struct sideband_style *style)
{
	const char *suffix = style->ansi ? ANSI_SUFFIX : DUMB_SUFFIX;
	const char *brk;

	while ((brk = strpbrk(b, "\n\r"))) {
		size_t linelen = (size_t)(brk - b);

		/* A line continued across packets: clear what was shown. */
		if (scratch->len && !linelen)
			ga_buf_puts(scratch, suffix);
		if (!scratch->len)
			ga_buf_puts(scratch, DISPLAY_PREFIX);
		/*
		 * No suffix on an empty line: a lone '\n' after '\r'
		 * progress updates must keep the last one visible.
		 */
		if (linelen) {
			add_colorized(scratch, b, linelen, style);
			ga_buf_puts(scratch, suffix);
		}
		ga_buf_putc(scratch, *brk);
		flush_scratch(err_fd, scratch);
		b = brk + 1;
	}
	if (*b) {
		if (!scratch->len)
			ga_buf_puts(scratch, DISPLAY_PREFIX);
		add_colorized(scratch, b, strlen(b), style);
	}
}

int sideband_recv(int in_fd, int out_fd, int err_fd,
		  const struct sideband_style *style)
{
	struct ga_buf scratch = GA_BUF_INIT;
	char *buf = ga_xmalloc(PKT_MAX + 1);
	int status, error = 0, remote_error = 0;
	size_t len;

	for (;;) {
		status = pkt_read(in_fd, buf, PKT_MAX, &len,
				  PKT_GENTLE_ON_EOF);
		if (status < 0) {
			error = status;
			goto done;
		}
		if (status == PKT_EOF) {
			ga_buf_printf(&scratch, "%s%s: unexpected disconnect "
				      "while reading sideband packet",
				      scratch.len ? "\n" : "", style->me);
			remote_error = 1;
			break;
		}
		if (!len) {
			if (status == PKT_NORMAL) {
				ga_buf_printf(&scratch, "%s%s: protocol error: "
					      "missing sideband designator",
					      scratch.len ? "\n" : "",
					      style->me);
				remote_error = 1;
			}
			/* A flush (or another marker) ends the stream. */
			break;
		}
		buf[len] = '\0';
		switch ((unsigned char)buf[0]) {
		case 1:
			error = pkt_write_all(out_fd, buf + 1, len - 1);
			if (error == -1)
				error = ga_error_errno(errno, "write error");
			if (error)
				goto done;
			continue;
		case 2:
			show_band2(err_fd, buf + 1, &scratch, style);
			continue;
		case 3:
			ga_buf_puts(&scratch, scratch.len ? "\n" : "");
			ga_buf_puts(&scratch, DISPLAY_PREFIX);
			add_colorized(&scratch, buf + 1, len - 1, style);
			break;
		default:
			ga_buf_printf(&scratch, "%s%s: protocol error: bad "
				      "band #%d", scratch.len ? "\n" : "",
				      style->me, (unsigned char)buf[0]);
			break;
		}
		remote_error = 1;
		break;
	}
	if (scratch.len) {
		ga_buf_putc(&scratch, '\n');
		flush_scratch(err_fd, &scratch);
	}
	if (remote_error)
		error = GA_EREMOTE;
done:
	ga_buf_release(&scratch);
	free(buf);
	return error;
}

/*
 * Unit tests of pkt-line framing and side-band (de)multiplexing: exact
 * bytes written, git's length limits and messages, and the way band 2
 * and band 3 messages are shown.  Streams are temporary files, so no
 * test can block on a pipe.
 */
#include "tap.h"

#include "garchive/common.h"
#include "garchive/sink.h"
#include "garchive/remote.h"
#include "pktline.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A string literal and its length, which may include NUL bytes. */
#define IN(s) s, sizeof(s) - 1

/* A temporary file holding `len` bytes, positioned at its start. */
static int stream_of(const void *data, size_t len)
{
	char name[] = "/tmp/garchive-pktline-XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	unlink(name);
	if (len && write(fd, data, len) != (ssize_t)len) {
		perror("write");
		exit(2);
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Everything written to `fd` so far. */
static char *contents(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	char *buf = malloc((size_t)end + 1);

	lseek(fd, 0, SEEK_SET);
	if (read(fd, buf, (size_t)end) != (ssize_t)end) {
		perror("read");
		exit(2);
	}
	buf[end] = '\0';
	*len = (size_t)end;
	return buf;
}

static void check_written(int fd, const char *want, size_t want_len,
			  const char *name)
{
	size_t len;
	char *got = contents(fd, &len);

	is_mem(got, len, want, want_len, name);
	free(got);
}

static void test_write(void)
{
	int fd = stream_of(NULL, 0);
	char *big;

	ok(pkt_write(fd, "abc", 3) == 0 && pkt_flush(fd) == 0 &&
	   pkt_write_fmt(fd, "argument %s\n", "HEAD") == 0,
	   "pkt_write, pkt_flush, pkt_write_fmt succeed");
	check_written(fd, "0007abc00000012argument HEAD\n", 29,
		      "packets are 4 lowercase hex digits of total length");
	close(fd);

	big = malloc(PKT_MAX);
	memset(big, 'x', PKT_MAX - 1);
	big[PKT_MAX - 1] = '\0';
	fd = stream_of(NULL, 0);
	ok(pkt_write(fd, big, PKT_DATA_MAX) == 0, "largest packet is written");
	ok(pkt_write(fd, big, PKT_DATA_MAX + 1) == GA_ERROR,
	   "a larger one is refused");
	ok(pkt_write_fmt(fd, "%s", big + 3) == 0, "largest formatted packet");
	ok(pkt_write_fmt(fd, "%s", big + 2) == GA_ERROR &&
	   !strcmp(ga_error_message(), "protocol error: impossibly long line"),
	   "git's message for a formatted packet too long");
	close(fd);
	free(big);
}

struct read_case {
	const char *input;
	size_t input_len;
	unsigned flags;
	int status;		/* expected status, or GA_ERROR */
	const char *text;	/* payload, or the error message */
};

static void test_read(void)
{
	static const struct read_case cases[] = {
		{ IN("0007abc"), 0, PKT_NORMAL, "abc" },
		{ IN("0008abc\n"), PKT_CHOMP_NEWLINE, PKT_NORMAL, "abc" },
		{ IN("0008abc\n"), 0, PKT_NORMAL, "abc\n" },
		{ IN("0004"), 0, PKT_NORMAL, "" },
		{ IN("0000"), 0, PKT_FLUSH, "" },
		{ IN("0001"), 0, PKT_DELIM, "" },
		{ IN("0002"), 0, PKT_RESPONSE_END, "" },
		{ IN("0003"), 0, GA_ERROR,
		  "protocol error: bad line length 3" },
		{ IN("00zz"), 0, GA_ERROR,
		  "protocol error: bad line length character: 00zz" },
		{ IN("00A7"), 0, GA_ERROR,
		  "the remote end hung up unexpectedly" },
		{ IN("fff4"), 0, GA_ERROR,
		  "protocol error: bad line length 65520" },
		{ IN("ffff"), 0, GA_ERROR,
		  "protocol error: bad line length 65531" },
		{ IN(""), 0, GA_ERROR, "the remote end hung up unexpectedly" },
		{ IN("00"), PKT_GENTLE_ON_EOF, PKT_EOF, "" },
		{ IN("0009ab"), PKT_GENTLE_ON_EOF, PKT_EOF, "" },
		{ IN("000cERR oops"), PKT_DIE_ON_ERR, GA_ERROR,
		  "remote error: oops" },
		{ IN("000cERR oops"), 0, PKT_NORMAL, "ERR oops" },
	};
	char buf[PKT_MAX];
	size_t i, len;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		const struct read_case *c = &cases[i];
		int fd = stream_of(c->input, c->input_len);
		int status = pkt_read(fd, buf, sizeof(buf), &len, c->flags);
		const char *text = status < 0 ? ga_error_message() : buf;

		if (status == PKT_EOF || status == PKT_FLUSH)
			text = "";
		if (!ok(status == c->status && !strcmp(text, c->text),
			"pkt_read case %zu (%.4s): %d", i, c->input,
			c->status))
			diag("got %d '%s'", status, text);
		ga_error_clear();
		close(fd);
	}
}

static void test_read_limit(void)
{
	/* A payload of 65519 bytes fits a 65520-byte buffer. */
	size_t n = PKT_MAX - 1 + 4, len = 0;
	char *in = malloc(n), *buf = malloc(PKT_MAX);
	int fd;

	memcpy(in, "fff3", 4);
	memset(in + 4, 'y', n - 4);
	fd = stream_of(in, n);
	ok(pkt_read(fd, buf, PKT_MAX, &len, 0) == PKT_NORMAL &&
	   len == PKT_MAX - 1, "the largest payload git accepts is read");
	close(fd);
	free(in);
	free(buf);
}

static void test_read_line(void)
{
	char buf[PKT_MAX], *line = buf;
	int fd = stream_of(IN("000ahello\n00040005\n00000002x"));

	ok(pkt_read_line(fd, buf, sizeof(buf), &line) == 0 && line == buf &&
	   !strcmp(line, "hello"), "pkt_read_line chomps the newline");
	ok(pkt_read_line(fd, buf, sizeof(buf), &line) == 0 && !line,
	   "an empty packet reads as no line");
	ok(pkt_read_line(fd, buf, sizeof(buf), &line) == 0 && !line,
	   "so does a packet left empty by the chomp");
	ok(pkt_read_line(fd, buf, sizeof(buf), &line) == 0 && !line,
	   "and a flush");
	ok(pkt_read_line(fd, buf, sizeof(buf), &line) == 0 && !line,
	   "and a response end");
	ok(pkt_read_line(fd, buf, sizeof(buf), &line) == GA_ERROR && !line &&
	   !strcmp(ga_error_message(), "the remote end hung up unexpectedly"),
	   "the end of input is fatal");
	ga_error_clear();
	close(fd);
}

static void test_read_packetized(void)
{
	struct ga_buf out = GA_BUF_INIT;
	size_t n = 2 * PKT_DATA_MAX + 10, i, at = 0;
	char *in = malloc(n + 3 * 4 + 4 + 20), *want = malloc(n);
	int fd, good;

	for (i = 0; i < n; i++)
		want[i] = (char)('a' + i % 26);
	for (i = 0; i < n; i += PKT_DATA_MAX) {
		size_t len = n - i < PKT_DATA_MAX ? n - i : PKT_DATA_MAX;

		sprintf(in + at, "%04x", (unsigned)len + 4);
		memcpy(in + at + 4, want + i, len);
		at += len + 4;
	}
	memcpy(in + at, "0000after", 9);
	fd = stream_of(in, at + 9);
	ga_buf_puts(&out, "<");
	ok(pkt_read_packetized(fd, &out, PKT_GENTLE_ON_EOF) == 0,
	   "pkt_read_packetized stops at the flush");
	good = out.len == n + 1 && !memcmp(out.ptr + 1, want, n) &&
	       out.ptr[out.len] == '\0';
	ok(good, "the payloads of every largest packet, appended");
	close(fd);

	fd = stream_of(IN("0006ab0007c"));
	ga_buf_setlen(&out, 0);
	ok(pkt_read_packetized(fd, &out, PKT_GENTLE_ON_EOF) == PKT_EOF &&
	   !strcmp(out.ptr, "ab"), "PKT_EOF when the input ends first");
	close(fd);
	fd = stream_of(IN("0006ab"));
	ok(pkt_read_packetized(fd, &out, 0) == GA_ERROR &&
	   !strcmp(ga_error_message(), "the remote end hung up unexpectedly"),
	   "which is fatal without PKT_GENTLE_ON_EOF");
	ga_error_clear();
	close(fd);
	ga_buf_release(&out);
	free(in);
	free(want);
}

static void keep_report(enum ga_report_kind kind, const char *msg,
			void *payload)
{
	ga_buf_printf(payload, "%s: %s\n",
		      kind == GA_REPORT_ERROR ? "error" : "other", msg);
}

static void test_write_gently(void)
{
	struct ga_buf reports = GA_BUF_INIT;
	size_t n = PKT_DATA_MAX + 3, len;
	char *data = malloc(n), *got, *big;
	int fd = stream_of(NULL, 0), fds[2];

	memset(data, 'd', n);
	ok(pkt_write_fmt_gently(fd, "key=%s\n", "value") == 0 &&
	   pkt_flush_gently(fd) == 0 &&
	   pkt_write_data_gently(fd, data, n) == 0 &&
	   pkt_write_data_gently(fd, data, 0) == 0,
	   "the gentle writers succeed");
	got = contents(fd, &len);
	ok(len == 14 + 4 + n + 8 &&
	   !memcmp(got, "000ekey=value\n0000fff0", 22) &&
	   !memcmp(got + 18 + 4 + PKT_DATA_MAX, "0007ddd", 7),
	   "data goes in packets of at most 65516 bytes, with no flush");
	free(got);
	close(fd);

	big = malloc(PKT_MAX);
	memset(big, 'x', PKT_MAX - 1);
	big[PKT_MAX - 1] = '\0';
	fd = stream_of(NULL, 0);
	ok(pkt_write_fmt_gently(fd, "%s", big + 2) == GA_ERROR &&
	   !strcmp(ga_error_message(), "protocol error: impossibly long line"),
	   "a formatted packet too long is fatal, as in git");
	ga_error_clear();
	close(fd);
	free(big);

	signal(SIGPIPE, SIG_IGN);
	ga_set_report_handler(keep_report, &reports);
	if (pipe(fds) < 0)
		exit(2);
	close(fds[0]);
	ok(pkt_write_fmt_gently(fds[1], "x\n") == 1 &&
	   pkt_flush_gently(fds[1]) == 1 &&
	   pkt_write_data_gently(fds[1], "abc", 3) == 1 &&
	   !ga_error_last_code(), "a failed write returns 1, not an error");
	is_str(reports.ptr, "error: packet write with format failed\n"
	       "error: flush packet write failed\n"
	       "error: packet write failed: Broken pipe\n",
	       "with git's error lines");
	ok(pkt_write_fmt(fds[1], "x\n") == GA_EPIPE,
	   "pkt_write_fmt: GA_EPIPE when the reader is gone");
	close(fds[1]);
	ok(pkt_write_fmt(fds[1], "x\n") == GA_ERROR &&
	   !strcmp(ga_error_message(), "packet write with format failed: "
		   "Bad file descriptor"),
	   "pkt_write_fmt: other write errors are fatal, with git's words");
	ga_error_clear();
	ga_set_report_handler(NULL, NULL);
	ga_buf_release(&reports);
	free(data);
}

static void test_sideband_send(void)
{
	size_t n = 100000, len, at, packets = 0;
	char *data = malloc(n), *got;
	int fd = stream_of(NULL, 0), good = 1;

	memset(data, 'z', n);
	ok(sideband_send(fd, 1, data, n) == 0, "sideband_send succeeds");
	got = contents(fd, &len);
	for (at = 0; at < len; packets++) {
		unsigned size;

		sscanf(got + at, "%4x", &size);
		if (size > PKT_MAX || got[at + 4] != 1)
			good = 0;
		at += size;
	}
	ok(good && at == len && packets == 2 && len == n + 2 * 5,
	   "split into packets of at most 65520 bytes on band 1");
	free(got);
	free(data);
	close(fd);
}

struct demux_case {
	const char *name;
	const char *input;
	size_t input_len;
	int color, ansi;
	int result;
	const char *out, *err;
};

static void test_sideband_recv(void)
{
	static const struct demux_case cases[] = {
		{ "data to out, flush ends", IN("0007\001ab0007\001cd0000"),
		  0, 0, 0, "abcd", "" },
		{ "band 2 lines get prefix and 8 spaces",
		  IN("0008\002ab\n0000"), 0, 0, 0, "",
		  "remote: ab        \n" },
		{ "ESC [K on a terminal", IN("0008\002ab\n0000"), 0, 1, 0, "",
		  "remote: ab\033[K\n" },
		{ "a line across packets", IN("0007\002ab0008\002c\nd0000"),
		  0, 0, 0, "", "remote: abc        \nremote: d\n" },
		{ "no suffix on an empty line", IN("0006\002\n0000"), 0, 0, 0,
		  "", "remote: \n" },
		{ "carriage returns", IN("0009\002a\rb\n0000"), 0, 0, 0, "",
		  "remote: a        \rremote: b        \n" },
		{ "band 3 is an error", IN("0008\003bad0000"), 0, 0,
		  GA_EREMOTE, "", "remote: bad\n" },
		{ "pending text before band 3",
		  IN("0006\002x0008\003bad"), 0, 0, GA_EREMOTE, "",
		  "remote: x\nremote: bad\n" },
		{ "bad band", IN("0006\004x0000"), 0, 0, GA_EREMOTE, "",
		  "archive: protocol error: bad band #4\n" },
		{ "missing designator", IN("0004"), 0, 0, GA_EREMOTE, "",
		  "archive: protocol error: missing sideband designator\n" },
		{ "disconnect", IN("0006\001x"), 0, 0, GA_EREMOTE, "x",
		  "archive: unexpected disconnect while reading sideband "
		  "packet\n" },
		{ "keywords in color", IN("0017\002  error: x\nerrors\n0000"),
		  1, 0, 0, "",
		  "remote:   \033[1;31merror\033[m: x        \n"
		  "remote: errors        \n" },
	};
	struct sideband_style style;
	size_t i, len;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		const struct demux_case *c = &cases[i];
		int in = stream_of(c->input, c->input_len);
		int out = stream_of(NULL, 0), err = stream_of(NULL, 0);
		int result;
		char *o, *e;

		style.me = "archive";
		style.color = c->color;
		style.ansi = c->ansi;
		result = sideband_recv(in, out, err, &style);
		o = contents(out, &len);
		e = contents(err, &len);
		ok(result == c->result && !strcmp(o, c->out) &&
		   !strcmp(e, c->err), "sideband_recv: %s", c->name);
		if (strcmp(e, c->err))
			diag("stderr: '%s'", e);
		free(o);
		free(e);
		close(in);
		close(out);
		close(err);
	}
}

int main(void)
{
	test_write();
	test_read();
	test_read_limit();
	test_read_line();
	test_read_packetized();
	test_write_gently();
	test_sideband_send();
	test_sideband_recv();
	return tap_done();
}

/*
 * common.c unit test: the descriptor, hex and zlib helpers that several
 * stages share (ga_write_all, ga_read_full, ga_buf_read_fd,
 * ga_buf_read_file, ga_hexval, ga_zlib_strerror).
 */
#include "tap.h"

#include "garchive/common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

/* More than a pipe holds (64 KiB), so a writer must wait for a reader. */
#define BIG (1024 * 1024 + 123)

static unsigned char *pattern(size_t len)
{
	unsigned char *p = ga_xmalloc(len);
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + i / 251);
	return p;
}

static void pause_a_little(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static void set_nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		abort();
}

struct peer {
	int fd;
	unsigned char *data;
	size_t len;
	ssize_t result;
	int err;
};

/* Read the pipe slowly, a little at a time, to its end. */
static void *slow_reader(void *arg)
{
	struct peer *p = arg;
	size_t got = 0;

	for (;;) {
		ssize_t n = read(p->fd, p->data + got, p->len - got < 4096 ?
				 p->len - got : 4096);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got % 65536 < 4096)
			pause_a_little();
	}
	p->result = (ssize_t)got;
	return NULL;
}

/* Write the data slowly, in small pieces, then close. */
static void *slow_writer(void *arg)
{
	struct peer *p = arg;
	size_t off = 0;

	while (off < p->len) {
		size_t n = p->len - off < 1000 ? p->len - off : 1000;

		if (ga_write_all(p->fd, p->data + off, n) < 0) {
			p->err = errno;
			break;
		}
		off += n;
		if (off % 100000 < 1000)
			pause_a_little();
	}
	close(p->fd);
	return NULL;
}

/*
 * Start a thread that writes `len` bytes of `data` slowly to a pipe and
 * closes it.  Returns the read end, non-blocking.
 */
static int start_slow_writer(pthread_t *t, struct peer *w,
			     unsigned char *data, size_t len)
{
	int fds[2];

	if (pipe(fds) < 0)
		abort();
	memset(w, 0, sizeof(*w));
	w->fd = fds[1];
	w->data = data;
	w->len = len;
	set_nonblock(fds[0]);
	pthread_create(t, NULL, slow_writer, w);
	return fds[0];
}

static void test_write_all_nonblocking(void)
{
	unsigned char *want = pattern(BIG);
	struct peer r = { 0 };
	pthread_t t;
	int fds[2];

	if (pipe(fds) < 0)
		abort();
	r.fd = fds[0];
	r.data = ga_xcalloc(1, BIG);
	r.len = BIG;
	set_nonblock(fds[1]);
	pthread_create(&t, NULL, slow_reader, &r);
	ok(ga_write_all(fds[1], want, BIG) == 0,
	   "ga_write_all waits out EAGAIN on a non-blocking pipe");
	close(fds[1]);
	pthread_join(t, NULL);
	close(fds[0]);
	is_mem(r.data, (size_t)r.result, want, BIG,
	       "the reader gets every byte, in order");
	free(r.data);
	free(want);
}

static void test_read_full_nonblocking(void)
{
	unsigned char *want = pattern(BIG);
	unsigned char *got = ga_xcalloc(1, BIG + 10);
	struct peer w;
	pthread_t t;
	ssize_t n;
	int fd = start_slow_writer(&t, &w, want, BIG);

	n = ga_read_full(fd, got, BIG + 10);
	pthread_join(t, NULL);
	close(fd);
	ok(!w.err, "the writer wrote everything");
	ok(n == BIG, "ga_read_full reads to end of file (%zd)", n);
	is_mem(got, n < 0 ? 0 : (size_t)n, want, BIG,
	       "ga_read_full: every byte, in order");
	free(got);
	free(want);
}

static void test_errors(void)
{
	char buf[16];
	struct ga_buf b = GA_BUF_INIT;
	int fds[2], dir;
	ssize_t n;

	if (pipe(fds) < 0)
		abort();
	close(fds[0]);
	errno = 0;
	ok(ga_write_all(fds[1], "abc", 3) == -1 && errno == EPIPE,
	   "ga_write_all: -1 with EPIPE once the reader is gone");
	close(fds[1]);

	ok(ga_write_all(-1, "abc", 3) == -1 && errno == EBADF,
	   "ga_write_all: -1 with errno on a bad descriptor");
	ok(ga_write_all(-1, "", 0) == 0, "ga_write_all: nothing to write");
	ok(ga_read_full(-1, buf, sizeof(buf)) == -1 && errno == EBADF,
	   "ga_read_full: -1 with errno on a bad descriptor");

	if (pipe(fds) < 0)
		abort();
	if (write(fds[1], "hello", 5) != 5)
		abort();
	close(fds[1]);
	n = ga_read_full(fds[0], buf, sizeof(buf));
	ok(n == 5 && !memcmp(buf, "hello", 5),
	   "ga_read_full: short only at end of file");
	ok(ga_read_full(fds[0], buf, sizeof(buf)) == 0,
	   "ga_read_full: 0 at end of file");
	close(fds[0]);

	dir = open(".", O_RDONLY | O_DIRECTORY);
	ga_buf_puts(&b, "kept");
	ok(ga_buf_read_fd(&b, dir) == -1 && errno == EISDIR,
	   "ga_buf_read_fd: -1 with errno on a read error");
	is_str(b.ptr, "kept", "ga_buf_read_fd: the buffer is left as it was");
	close(dir);
	ga_buf_release(&b);
}

static void test_buf_read_fd(void)
{
	unsigned char *want = pattern(BIG);
	struct ga_buf b = GA_BUF_INIT;
	struct peer w;
	pthread_t t;
	int fd, fds[2], error;

	ga_buf_puts(&b, "head:");
	fd = start_slow_writer(&t, &w, want, BIG);
	error = ga_buf_read_fd(&b, fd);
	pthread_join(t, NULL);
	close(fd);
	ok(!error, "ga_buf_read_fd reads a slow non-blocking pipe");
	ok(b.len == BIG + 5 && !memcmp(b.ptr, "head:", 5) &&
	   !memcmp(b.ptr + 5, want, BIG) && b.ptr[b.len] == '\0',
	   "ga_buf_read_fd appends every byte and keeps the NUL");
	ga_buf_release(&b);

	if (pipe(fds) < 0)
		abort();
	close(fds[1]);
	ok(ga_buf_read_fd(&b, fds[0]) == 0 && b.len == 0 && b.ptr &&
	   !*b.ptr, "ga_buf_read_fd: an empty pipe gives an empty string");
	close(fds[0]);
	ga_buf_release(&b);
	free(want);
}

static void test_buf_read_file(void)
{
	char name[] = "/tmp/garchive-common-XXXXXX";
	struct ga_buf b = GA_BUF_INIT;
	int fd = mkstemp(name);

	if (fd < 0 || write(fd, "file\0data", 9) != 9)
		abort();
	close(fd);
	ga_buf_puts(&b, ">");
	ok(ga_buf_read_file(&b, name) == 0 && b.len == 10 &&
	   !memcmp(b.ptr, ">file\0data", 10),
	   "ga_buf_read_file appends the whole file");
	unlink(name);
	errno = 0;
	ok(ga_buf_read_file(&b, name) == -1 && errno == ENOENT &&
	   b.len == 10, "ga_buf_read_file: -1 with errno, buffer unchanged");
	ok(ga_buf_read_file(&b, "/") == -1 && errno == EISDIR,
	   "ga_buf_read_file: errno of a failed read survives the close");
	ga_buf_release(&b);
}

static void test_hexval(void)
{
	static const char digits[] = "0123456789abcdef";
	int c, bad = 0;

	for (c = 0; c < 256; c++) {
		const char *p = c ? strchr(digits, c >= 'A' && c <= 'F' ?
					   c - 'A' + 'a' : c) : NULL;
		int want = p ? (int)(p - digits) : -1;

		if (ga_hexval(c) != want) {
			diag("ga_hexval(0x%02x) = %d, want %d", c,
			     ga_hexval(c), want);
			bad++;
		}
	}
	ok(!bad, "ga_hexval: both cases of the 16 digits, -1 for the rest");
	ok(ga_hexval(-1) == -1, "ga_hexval(EOF) is -1");
}

static void test_zlib_strerror(void)
{
	/* git's zerr_to_string() in git-zlib.c, word for word. */
	is_str(ga_zlib_strerror(Z_MEM_ERROR), "out of memory", "Z_MEM_ERROR");
	is_str(ga_zlib_strerror(Z_VERSION_ERROR), "wrong version",
	       "Z_VERSION_ERROR");
	is_str(ga_zlib_strerror(Z_NEED_DICT), "needs dictionary",
	       "Z_NEED_DICT");
	is_str(ga_zlib_strerror(Z_DATA_ERROR), "data stream error",
	       "Z_DATA_ERROR");
	is_str(ga_zlib_strerror(Z_STREAM_ERROR), "stream consistency error",
	       "Z_STREAM_ERROR");
	is_str(ga_zlib_strerror(Z_BUF_ERROR), "unknown error",
	       "other codes are unknown errors");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_write_all_nonblocking();
	test_read_full_nonblocking();
	test_buf_read_fd();
	test_errors();
	test_buf_read_file();
	test_hexval();
	test_zlib_strerror();
	return tap_done();
}

/*
 * common.c unit test: the descriptor, hex and zlib helpers that several
 * stages share (ga_write_all, ga_read_full, ga_buf_read_fd,
 * ga_buf_read_file, ga_hexval, ga_zlib_strerror), and git's string
 * helpers (buffers, strvec, prefixes, shell quoting, path normalising,
 * home expansion).
 */
#include "tap.h"

#include "garchive/common.h"
#include "quote.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
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

static void test_buf_edits(void)
{
	struct ga_buf a = GA_BUF_INIT, b = GA_BUF_INIT;

	is_str(ga_buf_str(&a, 0), "", "ga_buf_str of an empty buffer");
	ga_buf_puts(&a, "abef");
	ga_buf_insert(&a, 2, "cd", 2);
	ga_buf_addchars(&a, ' ', 3);
	ga_buf_puts(&a, "\t\n");
	is_str(a.ptr, "abcdef   \t\n", "ga_buf_insert, ga_buf_addchars");
	ga_buf_rtrim(&a, 7);
	is_str(a.ptr, "abcdef ", "ga_buf_rtrim stops at its floor");
	ga_buf_rtrim(&a, 0);
	is_str(ga_buf_str(&a, 2), "cdef", "ga_buf_rtrim, ga_buf_str");
	ga_buf_puts(&b, "x\v");
	ga_buf_rtrim(&b, 0);
	is_str(b.ptr, "x\v", "ga_buf_rtrim keeps VT, as git's isspace");
	ga_buf_swap(&a, &b);
	ok(!strcmp(a.ptr, "x\v") && !strcmp(b.ptr, "abcdef"), "ga_buf_swap");
	ga_buf_release(&a);
	ga_buf_release(&b);
}

static void test_strvec(void)
{
	struct ga_strvec sv = GA_STRVEC_INIT;

	ga_strvec_sort(&sv);
	ga_strvec_push(&sv, ga_xstrdup("refs/tags/b"));
	ga_strvec_push(&sv, ga_xstrdup("HEAD"));
	ga_strvec_push(&sv, ga_xstrdup("refs/heads/a"));
	ok(sv.nr == 3 && !sv.v[3], "ga_strvec: NULL-terminated");
	ga_strvec_sort(&sv);
	ok(!strcmp(sv.v[0], "HEAD") && !strcmp(sv.v[1], "refs/heads/a") &&
	   !strcmp(sv.v[2], "refs/tags/b"), "ga_strvec_sort: byte order");
	ok(ga_strvec_has(&sv, "HEAD") && !ga_strvec_has(&sv, "head"),
	   "ga_strvec_has");
	ga_strvec_clear(&sv);
	ok(!sv.v && !sv.nr, "ga_strvec_clear");
}

static void test_prefixes(void)
{
	const char *rest = "unset";

	ok(ga_starts_with("refs/heads/x", "refs/") &&
	   ga_starts_with("abc", "") && !ga_starts_with("ab", "abc"),
	   "ga_starts_with");
	ok(!ga_skip_prefix("refs/tags/v1", "refs/heads/", &rest) &&
	   !strcmp(rest, "unset"), "ga_skip_prefix: no match leaves *out");
	ok(ga_skip_prefix("refs/tags/v1", "refs/tags/", &rest) &&
	   !strcmp(rest, "v1"), "ga_skip_prefix: past the prefix");
}

static void test_sq_quote(void)
{
	struct ga_buf b = GA_BUF_INIT;

	ga_sq_quote(&b, "");
	ga_sq_quote(&b, " a b ");
	ga_sq_quote(&b, "it's!");
	is_str(b.ptr, "''' a b ''it'\\''s'\\!''",
	       "ga_sq_quote: quote.c's sq_quote_buf");
	ga_buf_release(&b);
}

static void test_quote_c(void)
{
	struct ga_buf b = GA_BUF_INIT;

	ga_quote_c(&b, "plain/name", 10, 1);
	is_str(b.ptr, "plain/name", "ga_quote_c: nothing to quote");
	ga_buf_setlen(&b, 0);
	ga_quote_c(&b, "a\"b\\c\a\b\t\n\v\f\r\001\177", 14, 1);
	is_str(b.ptr, "\"a\\\"b\\\\c\\a\\b\\t\\n\\v\\f\\r\\001\\177\"",
	       "ga_quote_c: git's letters, octal for the rest");
	ga_buf_setlen(&b, 0);
	ga_quote_c(&b, "\303\251", 2, 1);
	is_str(b.ptr, "\"\\303\\251\"", "ga_quote_c: core.quotePath on");
	ga_buf_setlen(&b, 0);
	ga_quote_c(&b, "\303\251", 2, 0);
	is_str(b.ptr, "\303\251", "ga_quote_c: core.quotePath off");
	ga_buf_setlen(&b, 0);
	ga_quote_c(&b, "a\0b", 3, 0);
	is_str(b.ptr, "\"a\\000b\"", "ga_quote_c: a NUL byte, counted");
	ga_buf_release(&b);
}

static void test_normalize_path(void)
{
	/* git's t0060-path-utils.sh, norm_path (NULL: "++failed++"). */
	static const char *const cases[][2] = {
		{ "", "" }, { ".", "" }, { "./", "" }, { "./.", "" },
		{ "./..", NULL }, { "../.", NULL }, { "./.././/", NULL },
		{ "dir/..", "" }, { "dir/sub/../..", "" },
		{ "dir/sub/../../..", NULL }, { "dir", "dir" },
		{ "dir//", "dir/" }, { "./dir", "dir" }, { "dir/.", "dir/" },
		{ "dir///./", "dir/" }, { "dir//sub/..", "dir/" },
		{ "dir/sub/../", "dir/" }, { "dir/sub/../.", "dir/" },
		{ "dir/s1/../s2/", "dir/s2/" },
		{ "d1/s1///s2/..//../s3/", "d1/s3/" },
		{ "d1/s1//../s2/../../d2", "d2" },
		{ "d1/.../d2", "d1/.../d2" }, { "d1/..././../d2", "d1/d2" },
		{ "/", "/" }, { "//", "/" }, { "///", "/" }, { "/.", "/" },
		{ "/./", "/" }, { "/./..", NULL }, { "/../.", NULL },
		{ "/./.././/", NULL }, { "/dir/..", "/" },
		{ "/dir/sub/../..", "/" }, { "/dir/sub/../../..", NULL },
		{ "/dir", "/dir" }, { "/dir//", "/dir/" },
		{ "/./dir", "/dir" }, { "/dir/.", "/dir/" },
		{ "/d1/s1//../s2/../../d2", "/d2" },
		{ "/d1/..././../d2", "/d1/d2" },
	};
	size_t i;
	int bad = 0;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		char *dst = ga_xstrdup(cases[i][0]);
		int ret = ga_normalize_path(dst, dst);
		const char *want = cases[i][1];

		if (want ? ret || strcmp(dst, want) : ret != -1) {
			diag("'%s': got %d '%s', want %s", cases[i][0], ret,
			     dst, want ? want : "++failed++");
			bad++;
		}
		free(dst);
	}
	ok(!bad, "ga_normalize_path: git's normalize_path_copy, in place");
}

static void test_interpolate_path(void)
{
	const char *home = getenv("HOME");
	char *saved = home ? ga_xstrdup(home) : NULL, *got;
	struct passwd *pw = getpwuid(getuid());

	setenv("HOME", "/home/someone", 1);
	got = ga_interpolate_path("~/.gitattributes", 0);
	is_str(got, "/home/someone/.gitattributes", "~/ is $HOME");
	free(got);
	got = ga_interpolate_path("~", 0);
	is_str(got, "/home/someone", "~ alone is $HOME");
	free(got);
	got = ga_interpolate_path("%(prefix)/share/x", 0);
	is_str(got, "/usr/share/x", "%(prefix)/ is git's prefix");
	free(got);
	got = ga_interpolate_path("a/~/b", 0);
	is_str(got, "a/~/b", "only a leading ~ is expanded");
	free(got);
	if (pw) {
		char *spec = ga_xstrfmt("~%s/f", pw->pw_name);
		char *want = ga_xstrfmt("%s/f", pw->pw_dir);

		got = ga_interpolate_path(spec, 0);
		is_str(got, want, "~user/ is that user's home");
		free(got);
		free(spec);
		free(want);
	}
	got = ga_interpolate_path("~no-such-user-garchive/f", 0);
	ok(!got, "an unknown user gives NULL");
	free(got);
	unsetenv("HOME");
	got = ga_interpolate_path("~/f", 0);
	ok(!got, "~/ without HOME gives NULL");
	free(got);
	if (saved)
		setenv("HOME", saved, 1);
	free(saved);
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
	test_buf_edits();
	test_strvec();
	test_prefixes();
	test_sq_quote();
	test_quote_c();
	test_normalize_path();
	test_interpolate_path();
	return tap_done();
}

/*
 * common.c: the error slot, diagnostics, allocation, byte buffers and
 * the small I/O and parsing helpers several stages share.
 */
#include "garchive/common.h"
#include "sane-ctype.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2/errors.h>
#include <zlib.h>

/* git's system_path() base for "%(prefix)/" (Debian's git: /usr). */
#define GA_GIT_PREFIX "/usr"

/*
 * One slot per thread, as libgit2's: a worker's failure never overwrites
 * the writer's message.  The message is heap-allocated because paths in
 * messages can be arbitrarily long.
 */
struct error_slot {
	int code;
	enum ga_usage_dest usage;
	char *message;
	char *hint;	/* garchive's advice after git's words, or NULL */
};

static _Thread_local struct error_slot slot;

/*
 * Process-wide handlers.  They are installed once by main before any
 * thread starts and never change afterwards.
 */
static ga_report_fn report_fn;
static void *report_payload;
static ga_oom_fn oom_fn;

static void slot_store(int code, enum ga_usage_dest usage, char *message)
{
	free(slot.message);
	free(slot.hint);
	slot.code = code;
	slot.usage = usage;
	slot.message = message;
	slot.hint = NULL;
}

static char *vformat(const char *fmt, va_list ap)
{
	struct ga_buf buf = GA_BUF_INIT;
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return ga_xstrdup(fmt);
	ga_buf_grow(&buf, (size_t)n + 1);
	vsnprintf(buf.ptr, (size_t)n + 1, fmt, ap);
	buf.len = (size_t)n;
	return ga_buf_detach(&buf, NULL);
}

int ga_error_vcode(int code, const char *fmt, va_list ap)
{
	slot_store(code, GA_USAGE_NONE, vformat(fmt, ap));
	return code;
}

int ga_error_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ga_error_vcode(code, fmt, ap);
	va_end(ap);
	return code;
}

int ga_error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ga_error_vcode(GA_ERROR, fmt, ap);
	va_end(ap);
	return GA_ERROR;
}

int ga_error_usage(enum ga_usage_dest dest, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (fmt) {
		va_start(ap, fmt);
		msg = vformat(fmt, ap);
		va_end(ap);
	}
	slot_store(GA_EUSAGE, dest, msg);
	return GA_EUSAGE;
}

int ga_error_from_git(const char *context)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "unknown error";

	if (context)
		return ga_error_set("%s: %s", context, msg);
	return ga_error_set("%s", msg);
}

int ga_error_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	char *ctx;

	va_start(ap, fmt);
	ctx = vformat(fmt, ap);
	va_end(ap);
	ga_error_set("%s: %s", ctx, strerror(errnum));
	free(ctx);
	return GA_ERROR;
}

const char *ga_error_message(void)
{
	return slot.message ? slot.message : "";
}

int ga_error_last_code(void)
{
	return slot.code;
}

enum ga_usage_dest ga_error_usage_dest(void)
{
	return slot.usage;
}

int ga_error_hint(const char *fmt, ...)
{
	va_list ap;

	free(slot.hint);
	va_start(ap, fmt);
	slot.hint = vformat(fmt, ap);
	va_end(ap);
	return slot.code;
}

const char *ga_error_hint_message(void)
{
	return slot.hint;
}

void ga_error_clear(void)
{
	slot_store(GA_OK, GA_USAGE_NONE, NULL);
}

char *ga_error_detach(void)
{
	char *msg = slot.message ? slot.message : ga_xstrdup("");

	slot.message = NULL;
	free(slot.hint);
	slot.hint = NULL;
	slot.code = GA_OK;
	return msg;
}

int ga_error_restore(int code, const char *message)
{
	slot_store(code, GA_USAGE_NONE, ga_xstrdup(message ? message : ""));
	return code;
}

void ga_set_report_handler(ga_report_fn fn, void *payload)
{
	report_fn = fn;
	report_payload = payload;
}

static void vreport(enum ga_report_kind kind, const char *fmt, va_list ap)
{
	char *msg;

	if (!report_fn)
		return;
	msg = vformat(fmt, ap);
	report_fn(kind, msg, report_payload);
	free(msg);
}

void ga_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(GA_REPORT_WARNING, fmt, ap);
	va_end(ap);
}

void ga_report(enum ga_report_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(kind, fmt, ap);
	va_end(ap);
}

void ga_set_oom_handler(ga_oom_fn fn)
{
	oom_fn = fn;
}

static void out_of_memory(size_t size)
{
	if (oom_fn)
		oom_fn(size);
	abort();
}

void *ga_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *ga_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *ga_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

char *ga_xstrdup(const char *s)
{
	return ga_xstrndup(s, strlen(s));
}

char *ga_xstrndup(const char *s, size_t n)
{
	char *p;
	size_t len = strnlen(s, n);

	p = ga_xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *ga_xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

void ga_array_grow(void *array, size_t *alloc, size_t need, size_t size)
{
	void **arr = array;
	size_t n = *alloc;

	if (need <= n)
		return;
	n = n < 16 ? 16 : n;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			out_of_memory(SIZE_MAX);
		n *= 2;
	}
	*arr = ga_xrealloc(*arr, n * size);
	*alloc = n;
}

void ga_buf_grow(struct ga_buf *buf, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - buf->len - 1)
		out_of_memory(SIZE_MAX);
	need = buf->len + extra + 1;
	if (need <= buf->alloc)
		return;
	ga_array_grow(&buf->ptr, &buf->alloc, need, 1);
}

void ga_buf_put(struct ga_buf *buf, const void *data, size_t len)
{
	ga_buf_grow(buf, len);
	if (len)
		memcpy(buf->ptr + buf->len, data, len);
	buf->len += len;
	buf->ptr[buf->len] = '\0';
}

void ga_buf_puts(struct ga_buf *buf, const char *s)
{
	ga_buf_put(buf, s, strlen(s));
}

void ga_buf_putc(struct ga_buf *buf, int c)
{
	char ch = (char)c;

	ga_buf_put(buf, &ch, 1);
}

void ga_buf_printf(struct ga_buf *buf, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	ga_buf_puts(buf, s);
	free(s);
}

void ga_buf_setlen(struct ga_buf *buf, size_t len)
{
	if (len > buf->len)
		GA_BUG("ga_buf_setlen beyond the end");
	buf->len = len;
	if (buf->ptr)
		buf->ptr[len] = '\0';
}

char *ga_buf_detach(struct ga_buf *buf, size_t *len)
{
	char *p = buf->ptr ? buf->ptr : ga_xstrdup("");

	if (len)
		*len = buf->len;
	buf->ptr = NULL;
	buf->len = buf->alloc = 0;
	return p;
}

void ga_buf_release(struct ga_buf *buf)
{
	free(buf->ptr);
	buf->ptr = NULL;
	buf->len = buf->alloc = 0;
}

void ga_buf_addchars(struct ga_buf *buf, int c, size_t n)
{
	ga_buf_grow(buf, n);
	memset(buf->ptr + buf->len, c, n);
	buf->len += n;
	buf->ptr[buf->len] = '\0';
}

void ga_buf_insert(struct ga_buf *buf, size_t pos, const void *data,
		   size_t len)
{
	ga_buf_grow(buf, len);
	memmove(buf->ptr + pos + len, buf->ptr + pos, buf->len - pos);
	memcpy(buf->ptr + pos, data, len);
	buf->len += len;
	buf->ptr[buf->len] = '\0';
}

void ga_buf_swap(struct ga_buf *a, struct ga_buf *b)
{
	struct ga_buf t = *a;

	*a = *b;
	*b = t;
}

void ga_buf_rtrim(struct ga_buf *buf, size_t floor)
{
	size_t len = buf->len;

	while (len > floor && ga_isspace((unsigned char)buf->ptr[len - 1]))
		len--;
	ga_buf_setlen(buf, len);
}

void ga_strvec_push(struct ga_strvec *sv, char *owned)
{
	GA_ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = owned;
	sv->v[sv->nr] = NULL;
}

int ga_strvec_has(const struct ga_strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ga_strvec_sort(struct ga_strvec *sv)
{
	if (sv->nr)
		qsort(sv->v, sv->nr, sizeof(*sv->v), strv_cmp);
}

void ga_strvec_clear(struct ga_strvec *sv)
{
	ga_strv_free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}

void ga_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int ga_starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int ga_skip_prefix(const char *s, const char *prefix, const char **out)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return 0;
	*out = s + n;
	return 1;
}

char *ga_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	return ga_xstrfmt("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
			  name);
}

char *ga_xdg_config_home(const char *name)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return ga_xstrfmt("%s/git/%s", xdg, name);
	if (home)
		return ga_xstrfmt("%s/.config/git/%s", home, name);
	return NULL;
}

int ga_normalize_path(char *dst, const char *src)
{
	char *start;

	if (*src == '/')
		*dst++ = *src++;
	start = dst;
	while (*src == '/')
		src++;
	for (;;) {
		char c = *src;

		if (c == '.') {
			if (!src[1]) {
				src++;		/* "." at the end */
			} else if (src[1] == '/') {
				src += 2;	/* "./" */
				while (*src == '/')
					src++;
				continue;
			} else if (src[1] == '.' &&
				   (!src[2] || src[2] == '/')) {
				src += 2;	/* ".." or "../" */
				while (*src == '/')
					src++;
				/* Go up one level: dst[-1] is '/'. */
				dst--;
				if (dst <= start)
					return -1;
				while (start < dst && dst[-1] != '/')
					dst--;
				continue;
			}
		}
		while ((c = *src++) && c != '/')
			*dst++ = c;
		if (!c)
			break;
		*dst++ = '/';
		while (*src == '/')
			src++;
	}
	*dst = '\0';
	return 0;
}

char *ga_interpolate_path(const char *path, int real_home)
{
	const char *rest, *home;
	struct passwd *pw;
	char *user, *real, *out;

	if (ga_skip_prefix(path, "%(prefix)/", &rest))
		return ga_xstrfmt("%s/%s", GA_GIT_PREFIX, rest);
	if (path[0] != '~')
		return ga_xstrdup(path);
	rest = strchrnul(path, '/');
	if (rest == path + 1) {
		if (!(home = getenv("HOME")))
			return NULL;
		if (real_home && (real = realpath(home, NULL))) {
			out = ga_xstrfmt("%s%s", real, rest);
			free(real);
			return out;
		}
		return ga_xstrfmt("%s%s", home, rest);
	}
	user = ga_xstrndup(path + 1, (size_t)(rest - path - 1));
	pw = getpwnam(user);
	free(user);
	if (!pw)
		return NULL;
	return ga_xstrfmt("%s%s", pw->pw_dir, rest);
}

/*
 * Whether a failed read or write with `err` is worth another try: EINTR
 * at once; EAGAIN once a non-blocking `fd` is ready again (the poll()
 * result does not matter, the retry finds any lasting error).
 */
static int io_retry(int fd, short events, int err)
{
	struct pollfd pfd;

	if (err == EINTR)
		return 1;
	if (err != EAGAIN && err != EWOULDBLOCK)
		return 0;
	pfd.fd = fd;
	pfd.events = events;
	(void)poll(&pfd, 1, -1);
	return 1;
}

/* Linux moves at most 0x7ffff000 bytes per call anyway. */
#define IO_CHUNK_MAX ((size_t)1 << 30)

int ga_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		size_t chunk = len < IO_CHUNK_MAX ? len : IO_CHUNK_MAX;
		ssize_t n = write(fd, p, chunk);

		if (n < 0) {
			if (io_retry(fd, POLLOUT, errno))
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t ga_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		size_t want = len - got;
		ssize_t n = read(fd, p + got,
				 want < IO_CHUNK_MAX ? want : IO_CHUNK_MAX);

		if (n < 0) {
			if (io_retry(fd, POLLIN, errno))
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int ga_buf_read_fd(struct ga_buf *buf, int fd)
{
	for (;;) {
		ssize_t n;

		ga_buf_grow(buf, 8192);
		buf->ptr[buf->len] = '\0';
		n = read(fd, buf->ptr + buf->len, buf->alloc - buf->len - 1);
		if (n < 0) {
			if (io_retry(fd, POLLIN, errno))
				continue;
			return -1;
		}
		if (n == 0)
			return 0;
		buf->len += (size_t)n;
		buf->ptr[buf->len] = '\0';
	}
}

int ga_buf_read_file(struct ga_buf *buf, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), error, err;

	if (fd < 0)
		return -1;
	error = ga_buf_read_fd(buf, fd);
	err = errno;
	close(fd);
	errno = err;
	return error;
}

int ga_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

const char *ga_zlib_strerror(int status)
{
	switch (status) {
	case Z_MEM_ERROR:
		return "out of memory";
	case Z_VERSION_ERROR:
		return "wrong version";
	case Z_NEED_DICT:
		return "needs dictionary";
	case Z_DATA_ERROR:
		return "data stream error";
	case Z_STREAM_ERROR:
		return "stream consistency error";
	default:
		return "unknown error";
	}
}

int ga_put_octal(char *field, size_t width, uint64_t value)
{
	size_t digits = width - 1;
	size_t i;

	if (digits < 22 && (value >> (3 * digits)) != 0)
		return -1;
	field[digits] = '\0';
	for (i = digits; i > 0; i--) {
		field[i - 1] = (char)('0' + (value & 7));
		value >>= 3;
	}
	return 0;
}

void ga_bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "BUG: %s:%d: %s\n", file, line, msg);
	abort();
}


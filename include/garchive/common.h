/*
 * common.h: what every stage of garchive shares.
 *
 * - The error slot.  A function that fails calls ga_error_set() (or one of
 *   its siblings), which stores a message in a thread-local slot and returns
 *   the error code (errors.h), so "return ga_error_set(...)" is one line.
 *   Callers pass the code up unchanged.  Only main.c prints the message and
 *   chooses the exit status from the code, the way git does:
 *
 *	GA_ERROR	"fatal: <msg>", exit 128 (git's die())
 *	GA_EARCHIVE	"error: <msg>", exit 255 (git's error() inside a writer,
 *			which makes write_archive() return -1)
 *	GA_EUSAGE	"error: <msg>" and/or the usage text, exit 129
 *	GA_ECORRUPT	"error: <msg>", exit 128: a damaged object, where
 *			git prints the cause with error() and then dies;
 *			<msg> holds all those lines, the later ones with
 *			their own "error: " or "fatal: " prefix (a <msg>
 *			that is only the fatal line starts with "fatal: ")
 *
 * - Diagnostics that do not stop the run (warnings, and git's non-fatal
 *   "error:" lines) go through ga_warning()/ga_report(), whose handler
 *   main installs.
 * - A growable byte buffer and little-endian/octal field encoders used by
 *   the format writers.
 * - Whole reads and writes on a descriptor, hex digits and zlib's status
 *   codes in git's words, for the stages that each need them.
 *
 * Allocation failure is not an error code: like git's xmalloc(), the
 * ga_x*() helpers call the out-of-memory handler installed by main, which
 * does not return.
 */
#ifndef GARCHIVE_COMMON_H
#define GARCHIVE_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "garchive/errors.h"

/* Where main prints the usage text for a GA_EUSAGE error. */
enum ga_usage_dest {
	GA_USAGE_NONE = 0,	/* only the "error: " line */
	GA_USAGE_STDOUT,	/* -h, ambiguous abbreviations */
	GA_USAGE_STDERR		/* unknown options, missing tree-ish */
};

#define GA_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * Store a message for a fatal error (exit 128) and return GA_ERROR.
 * The message has no prefix and no trailing newline, as git's.
 */
int ga_error_set(const char *fmt, ...) GA_PRINTF(1, 2);

/* Same, with an explicit code (GA_ERROR, GA_EARCHIVE, GA_ENOTFOUND...). */
int ga_error_code(int code, const char *fmt, ...) GA_PRINTF(2, 3);
int ga_error_vcode(int code, const char *fmt, va_list ap);

/*
 * A usage error: `fmt` may be NULL for "print only the usage text".
 * Returns GA_EUSAGE.
 */
int ga_error_usage(enum ga_usage_dest dest, const char *fmt, ...)
	GA_PRINTF(2, 3);

/*
 * Store the last libgit2 error, prefixed by `context` when not NULL
 * ("context: message"), as a fatal error.  Returns GA_ERROR.
 */
int ga_error_from_git(const char *context);

/* Store strerror(errnum) after a formatted context: "ctx: strerror". */
int ga_error_errno(int errnum, const char *fmt, ...) GA_PRINTF(2, 3);

/* The current thread's message ("" when none), code and usage request. */
const char *ga_error_message(void);
int ga_error_last_code(void);
enum ga_usage_dest ga_error_usage_dest(void);
void ga_error_clear(void);

/*
 * Advice for the stored error, which main prints as "hint: " lines
 * after it: garchive's own words, kept apart from git's message so that
 * that stays as git words it.  Returns the stored code.  The hint is
 * forgotten with the error; ga_error_hint_message() gives it or NULL.
 */
int ga_error_hint(const char *fmt, ...) GA_PRINTF(1, 2);
const char *ga_error_hint_message(void);

/*
 * Move the current thread's error into a heap string, for a worker thread
 * to hand it to the thread that reports it.  ga_error_restore() stores it
 * in the calling thread's slot and returns `code`.
 */
char *ga_error_detach(void);
int ga_error_restore(int code, const char *message);

/*
 * Diagnostics that do not end the run.  main installs a handler that adds
 * the "warning: " or "error: " prefix; without one they go nowhere.
 */
enum ga_report_kind {
	GA_REPORT_WARNING,
	GA_REPORT_ERROR,
	/*
	 * Printed as is, with no prefix: git writes some diagnostics with
	 * a bare fprintf(stderr), e.g. attr.c's "<name> is not a valid
	 * attribute name: <file>:<line>".
	 */
	GA_REPORT_PLAIN
};
typedef void (*ga_report_fn)(enum ga_report_kind kind, const char *msg,
			     void *payload);
void ga_set_report_handler(ga_report_fn fn, void *payload);
void ga_warning(const char *fmt, ...) GA_PRINTF(1, 2);
void ga_report(enum ga_report_kind kind, const char *fmt, ...)
	GA_PRINTF(2, 3);

/* Called when memory runs out; must not return.  Installed by main. */
typedef void (*ga_oom_fn)(size_t size);
void ga_set_oom_handler(ga_oom_fn fn);

void *ga_xmalloc(size_t size);
void *ga_xcalloc(size_t nmemb, size_t size);
void *ga_xrealloc(void *ptr, size_t size);
char *ga_xstrdup(const char *s);
char *ga_xstrndup(const char *s, size_t n);
char *ga_xstrfmt(const char *fmt, ...) GA_PRINTF(1, 2);

/* Grow `*array` (of `*alloc` items of `size` bytes) to hold `need`. */
void ga_array_grow(void *array, size_t *alloc, size_t need, size_t size);
#define GA_ALLOC_GROW(arr, need, alloc) \
	ga_array_grow(&(arr), &(alloc), (need), sizeof(*(arr)))

/*
 * A growable byte buffer, always NUL-terminated when ptr is not NULL
 * (the NUL is not counted in len).  GA_BUF_INIT is an empty buffer.
 */
struct ga_buf {
	char *ptr;
	size_t len;
	size_t alloc;
};
#define GA_BUF_INIT { NULL, 0, 0 }

void ga_buf_grow(struct ga_buf *buf, size_t extra);
void ga_buf_put(struct ga_buf *buf, const void *data, size_t len);
void ga_buf_puts(struct ga_buf *buf, const char *s);
void ga_buf_putc(struct ga_buf *buf, int c);
void ga_buf_printf(struct ga_buf *buf, const char *fmt, ...) GA_PRINTF(2, 3);
void ga_buf_setlen(struct ga_buf *buf, size_t len);
/* Give up ownership: the caller frees the returned string; buf is reset. */
char *ga_buf_detach(struct ga_buf *buf, size_t *len);
void ga_buf_release(struct ga_buf *buf);

/* The text of `buf` from byte `from` on, "" for a buffer never grown. */
static inline const char *ga_buf_str(const struct ga_buf *buf, size_t from)
{
	return buf->ptr ? buf->ptr + from : "";
}

/* git's strbuf_addchars(), strbuf_insert() and strbuf_swap(). */
void ga_buf_addchars(struct ga_buf *buf, int c, size_t n);
void ga_buf_insert(struct ga_buf *buf, size_t pos, const void *data,
		   size_t len);
void ga_buf_swap(struct ga_buf *a, struct ga_buf *b);

/* git's strbuf_rtrim(), never cutting below byte `floor`. */
void ga_buf_rtrim(struct ga_buf *buf, size_t floor);

/*
 * A growable list of owned strings, NULL-terminated once it holds one
 * (git's strvec), so `v` can serve as an argv.  GA_STRVEC_INIT is empty.
 * ga_strvec_push() takes ownership of `owned`; ga_strvec_clear() frees
 * the strings and the array; ga_strv_free() frees a NULL-terminated
 * array taken out of one.
 */
struct ga_strvec {
	char **v;
	size_t nr, alloc;
};
#define GA_STRVEC_INIT { NULL, 0, 0 }

void ga_strvec_push(struct ga_strvec *sv, char *owned);
int ga_strvec_has(const struct ga_strvec *sv, const char *s);
/* Sort the strings in byte order (strcmp). */
void ga_strvec_sort(struct ga_strvec *sv);
void ga_strvec_clear(struct ga_strvec *sv);
void ga_strv_free(char **v);

/*
 * git's starts_with() and skip_prefix(): the latter sets *out past the
 * prefix and returns 1 when `s` starts with it, else returns 0 and
 * leaves *out alone.
 */
int ga_starts_with(const char *s, const char *prefix);
int ga_skip_prefix(const char *s, const char *prefix, const char **out);

/* "dir/name" with one slash between them; `dir` may end with one. */
char *ga_path_join(const char *dir, const char *name);

/*
 * git's xdg_config_home(): "$XDG_CONFIG_HOME/git/<name>" when that is
 * set and not empty, else "$HOME/.config/git/<name>", else NULL.
 */
char *ga_xdg_config_home(const char *name);

/*
 * git's normalize_path_copy(): copy `src` to `dst` (which may be `src`
 * itself; it needs strlen(src) + 1 bytes) with "//" folded and "." and
 * ".." components resolved.  A leading '/' and a trailing one stay.
 * Returns 0, or -1 when ".." would climb above the start (`dst` then
 * holds a partial result, as git's).
 */
int ga_normalize_path(char *dst, const char *src);

/*
 * git's interpolate_path() for configured file names: a leading "~/" or
 * "~" alone is $HOME (its real path when `real_home`, as git's includeIf
 * gitdir: wants it), "~user/" that user's home directory, and
 * "%(prefix)/" the prefix git was installed under.  Returns a malloc'd
 * string, or NULL when $HOME is unset or the user unknown.
 */
char *ga_interpolate_path(const char *path, int real_home);

/*
 * Whole reads and writes on a file descriptor, as git's read_in_full()
 * and write_in_full(): a transfer cut short, interrupted (EINTR) or
 * refused by a non-blocking descriptor (EAGAIN, then wait until it is
 * ready, as git's xread()/xwrite() do) is carried on.  They set no
 * message: callers word their own.
 *
 * ga_write_all() returns 0, or -1 with errno set (EIO if write() made
 * no progress).  ga_read_full() returns the number of bytes read, short
 * only at end of file, or -1 with errno set.
 */
int ga_write_all(int fd, const void *buf, size_t len);
ssize_t ga_read_full(int fd, void *buf, size_t len);

/*
 * Append everything `fd` has to `buf`, up to end of file.  Returns 0, or
 * -1 with errno set after a read error (what was read stays in `buf`).
 */
int ga_buf_read_fd(struct ga_buf *buf, int fd);

/* The same for the file at `path`, opened and closed here. */
int ga_buf_read_file(struct ga_buf *buf, const char *path);

/* The value of hex digit `c` (either case), or -1 if it is not one. */
int ga_hexval(int c);

/* git's zerr_to_string(): zlib's status codes in git's words. */
const char *ga_zlib_strerror(int status);

/* Little-endian field encoders for binary layouts (zip). */
static inline void ga_put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void ga_put_le32(unsigned char *p, uint32_t v)
{
	ga_put_le16(p, (uint16_t)v);
	ga_put_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void ga_put_le64(unsigned char *p, uint64_t v)
{
	ga_put_le32(p, (uint32_t)v);
	ga_put_le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * Write `value` as exactly `width - 1` zero-padded octal digits followed
 * by a NUL, the way git fills ustar numeric fields.  Returns 0, or -1
 * (leaving the field untouched) if the value needs more digits.
 */
int ga_put_octal(char *field, size_t width, uint64_t value);

/* Round `n` up to a multiple of `to` (a power of two). */
#define GA_ALIGN_UP(n, to) (((n) + ((to) - 1)) & ~((uint64_t)(to) - 1))

/* Room for a hex object id of any hash git knows (SHA-256: 64). */
#define GA_OID_MAX_HEXSZ 64

#define GA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Abort on an impossible state; never for input or I/O problems. */
#define GA_BUG(msg) ga_bug(__FILE__, __LINE__, msg)
void ga_bug(const char *file, int line, const char *msg)
	__attribute__((noreturn));

#endif

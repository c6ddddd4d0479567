/*
 * files.c: loose refs, ref directories and reflog files (see files.h).
 */
#include "refs/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "garchive/common.h"
#include "sane-ctype.h"

int files_parse_ref(struct refs_raw *out, const char *buf, size_t len,
		    enum ga_hash_algo algo)
{
	const char *p;

	if (ga_skip_prefix(buf, "ref:", &p)) {
		while (ga_isspace((unsigned char)*p))
			p++;
		ga_buf_setlen(&out->target, 0);
		ga_buf_puts(&out->target, p);
		out->flags |= REFS_ISSYMREF;
		return 0;
	}
	/* FETCH_HEAD has more after the id and a blank. */
	if (len < ga_hash_hexsz(algo) ||
	    ga_oid_from_hex(&out->oid, algo, buf) < 0 ||
	    (buf[ga_hash_hexsz(algo)] != '\0' &&
	     !ga_isspace((unsigned char)buf[ga_hash_hexsz(algo)]))) {
		out->flags |= REFS_ISBROKEN;
		return EINVAL;
	}
	return 0;
}

/*
 * Read at most FILES_REF_MAX + 1 bytes of the file at `path`, which
 * must be a regular file: git would wait for ever on a FIFO.  Returns
 * 0 or an errno value.
 */
static int read_small(struct ga_buf *buf, const char *path, int *open_errno)
{
	struct stat st;
	ssize_t n;
	int fd;

	*open_errno = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*open_errno = errno;
		return errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = EINVAL;

		if (!fstat(fd, &st) && S_ISDIR(st.st_mode))
			e = EISDIR;
		close(fd);
		return e;
	}
	ga_buf_setlen(buf, 0);
	ga_buf_grow(buf, FILES_REF_MAX + 2);
	n = ga_read_full(fd, buf->ptr, FILES_REF_MAX + 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	buf->len = (size_t)n;
	buf->ptr[n] = '\0';
	return 0;
}

/*
 * Parse what read_small() read: past FILES_REF_MAX bytes only an id at
 * the start can be read as git would read it.
 */
static int parse_small(struct refs_raw *out, struct ga_buf *buf,
		       enum ga_hash_algo algo, int trim)
{
	if (buf->len > FILES_REF_MAX) {
		if (ga_starts_with(buf->ptr, "ref:")) {
			out->flags |= REFS_ISBROKEN;
			return EINVAL;
		}
		ga_buf_setlen(buf, FILES_REF_MAX);
	}
	if (trim)
		ga_buf_rtrim(buf, 0);
	return files_parse_ref(out, buf->ptr, buf->len, algo);
}

/*
 * A symbolic link to a valid name under refs/ is a symbolic ref
 * (git wrote them before 1.5).  Returns 1 for one, 0 for another link
 * (read what it points to), or -1 with *err when it vanished.
 */
static int read_link(struct refs_raw *out, const char *path, int *err)
{
	char target[4096];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0) {
		*err = errno;
		return -1;
	}
	target[n] = '\0';
	if (!ga_starts_with(target, "refs/") || refs_check_name(target, 0))
		return 0;
	ga_buf_setlen(&out->target, 0);
	ga_buf_puts(&out->target, target);
	out->flags |= REFS_ISSYMREF;
	return 1;
}

int files_read_ref(struct refs_raw *out, const char *path,
		   enum ga_hash_algo algo)
{
	struct ga_buf buf = GA_BUF_INIT;
	int retries, err = ENOENT;

	out->flags = 0;
	/*
	 * The file may change type (file, directory, link) between the
	 * lstat() and the read: start again, a few times, as git does.
	 */
	for (retries = 3; retries > 0; retries--) {
		struct stat st;
		int open_errno, link;

		if (lstat(path, &st) < 0) {
			err = errno;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			link = read_link(out, path, &err);
			if (link > 0) {
				err = 0;
				break;
			}
			if (link < 0 && (err == ENOENT || err == EINVAL))
				continue;
			if (link < 0)
				break;
		}
		if (S_ISDIR(st.st_mode)) {
			err = EISDIR;
			break;
		}
		err = read_small(&buf, path, &open_errno);
		if (err == ENOENT && open_errno && !S_ISLNK(st.st_mode))
			continue;
		if (!err)
			err = parse_small(out, &buf, algo, 1);
		else if (err == EINVAL)
			out->flags |= REFS_ISBROKEN;
		break;
	}
	ga_buf_release(&buf);
	return err;
}

int files_read_special(struct refs_raw *out, const char *path,
		       enum ga_hash_algo algo)
{
	struct ga_buf buf = GA_BUF_INIT;
	int open_errno, err;

	out->flags = 0;
	err = read_small(&buf, path, &open_errno);
	if (!err)
		err = parse_small(out, &buf, algo, 0);
	ga_buf_release(&buf);
	return err;
}

static int ends_with_lock(const char *name)
{
	size_t n = strlen(name);

	return n >= 5 && !memcmp(name + n - 5, ".lock", 5);
}

/* Whether names under directory `dir` ("a/b/") may start with `prefix`. */
static int dir_may_match(const char *dir, const char *prefix)
{
	size_t d = strlen(dir), p = strlen(prefix);

	return !strncmp(dir, prefix, d < p ? d : p);
}

static const char *const per_worktree_dirs[] = {
	"bisect", "worktree", "rewritten"
};

static int is_per_worktree_dir(const char *dirname, const char *name)
{
	size_t i;

	if (strcmp(dirname, "refs/"))
		return 0;
	for (i = 0; i < 3; i++)
		if (!strcmp(name, per_worktree_dirs[i]))
			return 1;
	return 0;
}

struct walk {
	struct ga_strvec *out;
	const char *prefix;
	files_path_fn path_of;
	void *ctx;
};

/* A directory's entries, sorted, without hidden names and locks. */
static void list_dir(struct ga_strvec *names, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || ends_with_lock(de->d_name))
			continue;
		ga_strvec_push(names, ga_xstrdup(de->d_name));
	}
	closedir(d);
	ga_strvec_sort(names);
}

static void walk_dir(struct walk *w, const char *dirname, int depth);

static void walk_entry(struct walk *w, const char *dirname, const char *dir,
		       const char *name, int depth)
{
	char *refname = ga_xstrfmt("%s%s", dirname, name);
	char *path = ga_path_join(dir, name);
	struct stat st;

	if (lstat(path, &st) < 0)
		goto done;
	if (S_ISDIR(st.st_mode)) {
		char *sub = ga_xstrfmt("%s/", refname);

		if (!is_per_worktree_dir(dirname, name) &&
		    depth < FILES_MAX_DEPTH && dir_may_match(sub, w->prefix))
			walk_dir(w, sub, depth + 1);
		free(sub);
		goto done;
	}
	if (S_ISLNK(st.st_mode) && (stat(path, &st) < 0 ||
				    !S_ISREG(st.st_mode)))
		goto done;
	if (S_ISREG(st.st_mode) && ga_starts_with(refname, w->prefix)) {
		ga_strvec_push(w->out, refname);
		refname = NULL;
	}
done:
	free(refname);
	free(path);
}

static void walk_dir(struct walk *w, const char *dirname, int depth)
{
	struct ga_strvec names = GA_STRVEC_INIT;
	char *dir = w->path_of(w->ctx, dirname);
	size_t i;

	list_dir(&names, dir);
	for (i = 0; i < names.nr; i++)
		walk_entry(w, dirname, dir, names.v[i], depth);
	ga_strvec_clear(&names);
	free(dir);
	/*
	 * The per-worktree directories are the worktree's own, wherever
	 * refs/ is (git's add_per_worktree_entries_to_dir()).
	 */
	if (!strcmp(dirname, "refs/")) {
		for (i = 0; i < 3; i++) {
			char *sub = ga_xstrfmt("refs/%s/",
					       per_worktree_dirs[i]);

			if (dir_may_match(sub, w->prefix))
				walk_dir(w, sub, depth + 1);
			free(sub);
		}
	}
}

int files_loose_names(struct ga_strvec *out, const char *prefix,
		      files_path_fn path_of, void *ctx)
{
	struct walk w = { out, prefix, path_of, ctx };

	if (dir_may_match("refs/", prefix))
		walk_dir(&w, "refs/", 1);
	/* The walk visits the per-worktree directories last. */
	ga_strvec_sort(out);
	return 0;
}

int files_root_names(struct ga_strvec *out, const char *git_dir)
{
	struct ga_strvec names = GA_STRVEC_INIT;
	size_t i;

	list_dir(&names, git_dir);
	for (i = 0; i < names.nr; i++) {
		char *path = ga_path_join(git_dir, names.v[i]);
		struct stat st;

		if (refname_is_root(names.v[i]) && !stat(path, &st) &&
		    S_ISREG(st.st_mode))
			ga_strvec_push(out, ga_xstrdup(names.v[i]));
		free(path);
	}
	ga_strvec_clear(&names);
	return 0;
}

int files_parse_reflog_line(struct refs_reflog_entry *e, char *line,
			    size_t len, enum ga_hash_algo algo)
{
	size_t hexsz = ga_hash_hexsz(algo);
	char *p = line, *email_end, *message;

	if (!len || line[len - 1] != '\n' ||
	    ga_oid_from_hex(&e->old_oid, algo, p) < 0 || p[hexsz] != ' ')
		return 0;
	p += hexsz + 1;
	if (ga_oid_from_hex(&e->new_oid, algo, p) < 0 || p[hexsz] != ' ')
		return 0;
	p += hexsz + 1;
	email_end = strchr(p, '>');
	if (!email_end || email_end[1] != ' ')
		return 0;
	/* git's parse_timestamp() is strtoumax(); 0 is no time. */
	e->timestamp = strtoumax(email_end + 2, &message, 10);
	if (!e->timestamp || message[0] != ' ' ||
	    (message[1] != '+' && message[1] != '-') ||
	    !ga_isdigit(message[2]) || !ga_isdigit(message[3]) ||
	    !ga_isdigit(message[4]) || !ga_isdigit(message[5]))
		return 0;
	email_end[1] = '\0';
	e->tz = (int)strtol(message + 1, NULL, 10);
	e->who = p;
	e->message = message + (message[6] == '\t' ? 7 : 6);
	return 1;
}

#define REFLOG_CHUNK 65536

struct reflog_reader {
	int fd;
	const char *refname;
	enum ga_hash_algo algo;
	refs_reflog_fn fn;
	void *payload;
	struct ga_buf line;
	int overlong;		/* the line is too long: it is skipped */
};

/* Hand out the line in r->line, unless it is too long or damaged. */
static int emit(struct reflog_reader *r)
{
	struct refs_reflog_entry e;
	int ret = 0;

	if (!r->overlong && r->line.len &&
	    files_parse_reflog_line(&e, r->line.ptr, r->line.len, r->algo))
		ret = r->fn(&e, r->payload);
	ga_buf_setlen(&r->line, 0);
	r->overlong = 0;
	return ret;
}

/*
 * Add `n` bytes to the line being gathered, before what it holds when
 * reading backwards; a line grown past the limit is dropped whole.
 */
static void add(struct reflog_reader *r, const char *data, size_t n,
		int front)
{
	if (r->overlong)
		return;
	if (r->line.len + n > FILES_REFLOG_LINE_MAX) {
		r->overlong = 1;
		ga_buf_setlen(&r->line, 0);
	} else if (front) {
		ga_buf_insert(&r->line, 0, data, n);
	} else {
		ga_buf_put(&r->line, data, n);
	}
}

static int read_error(struct reflog_reader *r, size_t cnt)
{
	return ga_error_set("cannot read %zu bytes from reflog for %s: %s",
			    cnt, r->refname, strerror(errno));
}

static int each_forward(struct reflog_reader *r, char *chunk)
{
	ssize_t n;
	int ret;

	while ((n = ga_read_full(r->fd, chunk, REFLOG_CHUNK)) > 0) {
		size_t i = 0;

		while (i < (size_t)n) {
			char *lf = memchr(chunk + i, '\n', (size_t)n - i);
			size_t take = lf ? (size_t)(lf - chunk) + 1 - i
					 : (size_t)n - i;

			add(r, chunk + i, take, 0);
			i += take;
			if (lf && (ret = emit(r)) != 0)
				return ret;
		}
	}
	if (n < 0)
		return read_error(r, REFLOG_CHUNK);
	/* A last line without LF never parses. */
	return 0;
}

/*
 * Backwards through chunk[0..i): each LF ends the line before the one
 * gathered in r->line.  *started is set once the file's last LF is
 * seen (what follows it is no line).
 */
static int scan_back(struct reflog_reader *r, const char *chunk, size_t i,
		     int *started)
{
	while (i > 0) {
		const char *lf = memrchr(chunk, '\n', i);
		size_t j;
		int ret;

		if (!lf) {
			if (*started)
				add(r, chunk, i, 1);
			return 0;
		}
		j = (size_t)(lf - chunk);
		if (*started) {
			add(r, chunk + j + 1, i - j - 1, 1);
			if ((ret = emit(r)) != 0)
				return ret;
		}
		*started = 1;
		add(r, chunk + j, 1, 1);
		i = j;
	}
	return 0;
}

static int each_backward(struct reflog_reader *r, char *chunk)
{
	struct stat st;
	uint64_t pos;
	int started = 0, ret;

	if (fstat(r->fd, &st) < 0)
		return read_error(r, 0);
	pos = (uint64_t)st.st_size;
	while (pos > 0) {
		size_t cnt = pos < REFLOG_CHUNK ? (size_t)pos : REFLOG_CHUNK;
		ssize_t n = pread(r->fd, chunk, cnt, (off_t)(pos - cnt));

		if (n != (ssize_t)cnt)
			return read_error(r, cnt);
		pos -= cnt;
		if ((ret = scan_back(r, chunk, cnt, &started)) != 0)
			return ret;
	}
	/* The file's first line. */
	if (started && (r->line.len || r->overlong))
		return emit(r);
	return 0;
}

int files_reflog_each(const char *path, const char *refname,
		      enum ga_hash_algo algo, int newest_first,
		      refs_reflog_fn fn, void *payload)
{
	struct reflog_reader r = { -1, refname, algo, fn, payload,
				   GA_BUF_INIT, 0 };
	struct stat st;
	char *chunk;
	int ret;

	r.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r.fd < 0)
		return GA_ENOTFOUND;
	/* git takes only a regular file for a reflog (reflog_exists()). */
	if (fstat(r.fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(r.fd);
		return GA_ENOTFOUND;
	}
	chunk = ga_xmalloc(REFLOG_CHUNK);
	ret = newest_first ? each_backward(&r, chunk) : each_forward(&r, chunk);
	free(chunk);
	ga_buf_release(&r.line);
	close(r.fd);
	return ret;
}

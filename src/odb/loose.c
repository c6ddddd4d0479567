/*
 * loose.c: loose objects, read with bounds (see loose.h).
 *
 * The inflater runs over any input (a file read whole, or a descriptor
 * read in pieces for a stream), so a stream and a whole read check the
 * same things in the same way.  Termination: zlib returns Z_OK only when
 * it made progress, input and output are finite, and every loop here
 * stops on anything but Z_OK.
 */
#include "loose.h"
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"
#include <git2/sys/odb_backend.h>

/* zlib counts in uInt: inputs and outputs go to it in pieces this big. */
#define LOOSE_ZLIB_CHUNK	((size_t)1 << 30)
/* Compressed bytes read from a descriptor at a time, for a stream. */
#define LOOSE_READ_CHUNK	((size_t)64 << 10)
/* The same for a header (git's 32 bytes need a few dozen). */
#define LOOSE_HEADER_READ	1024
/* The largest expansion deflate achieves (zlib's technical notes). */
#define LOOSE_MAX_RATIO		1032

static const char *const type_names[] = {
	[GIT_OBJECT_COMMIT] = "commit",
	[GIT_OBJECT_TREE] = "tree",
	[GIT_OBJECT_BLOB] = "blob",
	[GIT_OBJECT_TAG] = "tag",
};

int loose_size_possible(uint64_t size, uint64_t compressed)
{
	return compressed && size / LOOSE_MAX_RATIO <= compressed;
}

/*
 * git's parse_loose_header(): "<type> <size>", where the size is in
 * canonical decimal ("010" is refused) and nothing follows it.
 */
static int parse_header(struct loose_inflater *li, const char *hdr,
			size_t len)
{
	const char *sp = memchr(hdr, ' ', len), *p;
	uint64_t size = 0;
	size_t i;

	if (!sp)
		return -1;
	li->type = GIT_OBJECT_INVALID;
	for (i = 0; i < GA_ARRAY_SIZE(type_names); i++)
		if (type_names[i] && strlen(type_names[i]) == (size_t)(sp - hdr)
		    && !memcmp(hdr, type_names[i], (size_t)(sp - hdr)))
			li->type = (git_object_t)i;
	if (li->type == GIT_OBJECT_INVALID)
		return -1;
	p = sp + 1;
	if (p == hdr + len || *p < '0' || *p > '9')
		return -1;
	if (*p == '0') {
		p++;
	} else {
		for (; p < hdr + len && *p >= '0' && *p <= '9'; p++) {
			if (size > (UINT64_MAX - 9) / 10)
				return -1;
			size = size * 10 + (uint64_t)(*p - '0');
		}
	}
	if (p != hdr + len || size > SIZE_MAX - 1)
		return -1;
	li->size = size;
	return 0;
}

/* Give zlib more input once it has used what it had. */
static int feed(struct loose_inflater *li, int *eof)
{
	const unsigned char *buf;
	size_t len;
	int error;

	*eof = 0;
	if (li->zs.avail_in)
		return 0;
	if ((error = li->in->fill(li->in, &buf, &len)) < 0)
		return error;
	if (!len) {
		*eof = 1;
		return 0;
	}
	li->zs.next_in = (Bytef *)buf;
	li->zs.avail_in = (uInt)(len < LOOSE_ZLIB_CHUNK ? len
							: LOOSE_ZLIB_CHUNK);
	return 0;
}

/* One inflate call into `out`, fed first.  Sets li->status. */
static int inflate_into(struct loose_inflater *li, unsigned char *out,
			size_t cap, size_t *produced)
{
	int eof, error;

	if ((error = feed(li, &eof)) < 0)
		return error;
	li->zs.next_out = out;
	li->zs.avail_out = (uInt)(cap < LOOSE_ZLIB_CHUNK ? cap
							 : LOOSE_ZLIB_CHUNK);
	li->status = inflate(&li->zs, Z_NO_FLUSH);
	*produced = (size_t)(li->zs.next_out - out);
	return 0;
}

/* git_inflate() reports zlib's errors, though not Z_BUF_ERROR. */
static void zlib_said(const struct loose_inflater *li, struct ga_buf *why)
{
	if (li->status == Z_OK || li->status == Z_STREAM_END ||
	    li->status == Z_BUF_ERROR)
		return;
	ga_buf_printf(why, "inflate: %s (%s)\n",
		      ga_zlib_strerror(li->status),
		      li->zs.msg ? li->zs.msg : "no message");
}

/* The lines that say the damage is past the header. */
#define LOOSE_CORRUPT_BODY	"corrupt loose object '"
#define LOOSE_GARBAGE		"garbage at end of loose object '"

static int corrupt_body(const struct loose_inflater *li, struct ga_buf *why)
{
	zlib_said(li, why);
	ga_buf_printf(why, LOOSE_CORRUPT_BODY "%s'\n", li->hex);
	return GA_ECORRUPT;
}

int loose_begin(struct loose_inflater *li, struct loose_input *in,
		const char *hex, struct ga_buf *why)
{
	size_t have = 0, n;
	const char *nul;
	int error;

	memset(li, 0, sizeof(*li));
	li->in = in;
	li->hex = hex;
	if (inflateInit(&li->zs) != Z_OK)
		return ga_error_set("inflate: out of memory");
	li->zs_live = 1;
	/*
	 * git makes one inflate call over the whole file into 32 bytes:
	 * the same as going on until they are full, the stream ends or
	 * nothing more comes.
	 */
	do {
		if ((error = inflate_into(li, li->hdr + have,
					  sizeof(li->hdr) - have, &n)) < 0)
			return error;
		have += n;
	} while (li->status == Z_OK && have < sizeof(li->hdr));
	if (li->status < Z_OK && li->status != Z_BUF_ERROR) {
		zlib_said(li, why);
		ga_buf_printf(why, "unable to unpack %s header\n", hex);
		return GA_ECORRUPT;
	}
	zlib_said(li, why);
	nul = memchr(li->hdr, '\0', have);
	if (!nul) {
		ga_buf_printf(why, "header for %s too long, exceeds %d bytes\n",
			      hex, LOOSE_HEADER_MAX);
		return GA_ECORRUPT;
	}
	if (parse_header(li, (const char *)li->hdr,
			 (size_t)(nul - (const char *)li->hdr)) < 0) {
		ga_buf_printf(why, "unable to parse %s header\n", hex);
		return GA_ECORRUPT;
	}
	li->spill_used = (size_t)(nul + 1 - (const char *)li->hdr);
	li->spill = have;
	return 0;
}

/*
 * The whole body is out: the stream must end here, with nothing after
 * it.  One spare byte of room shows a stream that goes on.
 */
static int check_end(struct loose_inflater *li, struct ga_buf *why)
{
	unsigned char spare;
	size_t n = 0;
	int eof = 0, error;

	if (li->spill_used < li->spill)
		return corrupt_body(li, why);
	while (li->status == Z_OK) {
		if ((error = inflate_into(li, &spare, 1, &n)) < 0)
			return error;
		if (n)
			return corrupt_body(li, why);
	}
	if (li->status != Z_STREAM_END)
		return corrupt_body(li, why);
	if (!li->zs.avail_in && (error = feed(li, &eof)) < 0)
		return error;
	if (li->zs.avail_in) {
		ga_buf_printf(why, LOOSE_GARBAGE "%s'\n", li->hex);
		return GA_ECORRUPT;
	}
	li->ended = 1;
	return 0;
}

int loose_read(struct loose_inflater *li, unsigned char *buf, size_t cap,
	       size_t *nread, struct ga_buf *why)
{
	uint64_t left = li->size - li->given;
	size_t got = 0, n;
	int error;

	*nread = 0;
	if (cap > left)
		cap = (size_t)left;
	if (li->spill_used < li->spill) {
		got = li->spill - li->spill_used;
		if (got > cap)
			got = cap;
		memcpy(buf, li->hdr + li->spill_used, got);
		li->spill_used += got;
	}
	while (got < cap) {
		if (li->status != Z_OK)
			return corrupt_body(li, why);
		if ((error = inflate_into(li, buf + got, cap - got, &n)) < 0)
			return error;
		got += n;
		if (li->status != Z_OK && li->status != Z_STREAM_END)
			return corrupt_body(li, why);
	}
	li->given += got;
	if (li->given == li->size && !li->ended &&
	    (error = check_end(li, why)) < 0)
		return error;
	*nread = got;
	return 0;
}

void loose_end(struct loose_inflater *li)
{
	if (li->zs_live)
		inflateEnd(&li->zs);
	li->zs_live = 0;
}

/* ---- the backend ---- */

struct loose_backend {
	git_odb_backend parent;
	char *dir;		/* the objects directory, ending in '/' */
	char *shown;		/* the same as messages name it */
	int named;		/* `shown` was given */
};

/* A file read whole, handed to the inflater in pieces zlib can count. */
struct mem_input {
	struct loose_input base;
	const unsigned char *p;
	size_t left;
};

static int mem_fill(struct loose_input *in, const unsigned char **buf,
		    size_t *len)
{
	struct mem_input *m = (struct mem_input *)in;

	*buf = m->p;
	*len = m->left < LOOSE_ZLIB_CHUNK ? m->left : LOOSE_ZLIB_CHUNK;
	m->p += *len;
	m->left -= *len;
	return 0;
}

/* A descriptor read in pieces: `cap` bytes at a time into `buf`. */
struct fd_input {
	struct loose_input base;
	int fd;
	const char *hex;
	unsigned char *buf;
	size_t cap;
};

static int fd_fill(struct loose_input *in, const unsigned char **buf,
		   size_t *len)
{
	struct fd_input *f = (struct fd_input *)in;
	ssize_t n = ga_read_full(f->fd, f->buf, f->cap);

	if (n < 0) {
		git_error_set(GIT_ERROR_OS, "failed to read object %s: %s",
			      f->hex, strerror(errno));
		return GIT_ERROR;
	}
	*buf = f->buf;
	*len = (size_t)n;
	return 0;
}

static void fd_input_init(struct fd_input *f, int fd, const char *hex,
			  unsigned char *buf, size_t cap)
{
	f->base.fill = fd_fill;
	f->fd = fd;
	f->hex = hex;
	f->buf = buf;
	f->cap = cap;
}

static char *object_path(const char *dir, const char *hex)
{
	return ga_xstrfmt("%s%.2s/%s", dir, hex, hex + 2);
}

/*
 * Turn git's lines in `why` into libgit2's error: every line after the
 * first gets its "error: " prefix, and git's fatal line ends them.
 */
static int corrupt(const struct loose_backend *b, const char *hex,
		   struct ga_buf *why)
{
	struct ga_buf msg = GA_BUF_INIT;
	char *path = object_path(b->shown, hex);
	const char *p = why->ptr ? why->ptr : "";
	int error;

	while (*p) {
		const char *nl = strchrnul(p, '\n');

		if (msg.len)
			ga_buf_puts(&msg, "error: ");
		ga_buf_put(&msg, p, (size_t)(nl - p));
		ga_buf_putc(&msg, '\n');
		p = *nl ? nl + 1 : nl;
	}
	error = object_corrupt(&msg, "loose", hex, path);
	free(path);
	return error;
}

int object_corrupt(struct ga_buf *lines, const char *kind, const char *hex,
		   const char *where)
{
	ga_buf_printf(lines, "fatal: %s object %s (stored in %s) is corrupt",
		      kind, hex, where);
	git_error_set_str(GIT_ERROR_ODB, lines->ptr);
	ga_buf_release(lines);
	return GA_ECORRUPT;
}

/*
 * Open object `hex`.  Returns the descriptor and its size, GIT_ENOTFOUND
 * when there is no such file, or GIT_ERROR.
 */
static int open_object(int *fd, uint64_t *size, const struct loose_backend *b,
		       const char *hex)
{
	char *path = object_path(b->dir, hex);
	struct stat st;
	int err = 0;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		err = errno;
	else if (fstat(*fd, &st) < 0)
		err = errno;
	free(path);
	if (!err) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (err == ENOENT || err == ENOTDIR)
		return GIT_ENOTFOUND;
	git_error_set(GIT_ERROR_OS, "failed to read object %s: %s", hex,
		      strerror(err));
	return GIT_ERROR;
}

static int empty_file(const struct loose_backend *b, const char *hex,
		      struct ga_buf *why)
{
	char *path = object_path(b->shown, hex);

	ga_buf_printf(why, "object file %s is empty\n", path);
	free(path);
	return corrupt(b, hex, why);
}

int loose_read_object(git_odb_backend *backend, const struct ga_oid *id,
		      const struct ga_store_alloc *a, void **out, size_t *len,
		      git_object_t *type)
{
	struct loose_backend *b = (struct loose_backend *)backend;
	struct ga_buf file = GA_BUF_INIT, why = GA_BUF_INIT;
	struct mem_input in = { { mem_fill }, NULL, 0 };
	struct loose_inflater li = { 0 };
	char hex[GA_OID_MAX_HEXSZ + 1];
	unsigned char *data = NULL;
	uint64_t compressed, got = 0;
	size_t n;
	int fd, error;

	ga_oid_fmt(hex, id);
	if ((error = open_object(&fd, &compressed, b, hex)) < 0)
		return error;
	error = ga_buf_read_fd(&file, fd);
	close(fd);
	if (error < 0) {
		git_error_set(GIT_ERROR_OS, "failed to read object %s: %s",
			      hex, strerror(errno));
		error = GIT_ERROR;
		goto done;
	}
	if (!file.len) {
		error = empty_file(b, hex, &why);
		goto done;
	}
	in.p = (const unsigned char *)file.ptr;
	in.left = file.len;
	if ((error = loose_begin(&li, &in.base, hex, &why)) < 0)
		goto done;
	if (!loose_size_possible(li.size, file.len)) {
		error = corrupt_body(&li, &why);
		goto done;
	}
	data = a->alloc(a->ctx, (size_t)li.size + 1);
	if (!data) {
		git_error_set_oom();
		error = GIT_ERROR;
		goto done;
	}
	do {
		if ((error = loose_read(&li, data + got, (size_t)(li.size - got),
					&n, &why)) < 0)
			goto done;
		got += n;
	} while (n);
	data[li.size] = '\0';
	*out = data;
	*len = (size_t)li.size;
	*type = li.type;
	data = NULL;
done:
	if (error == GA_ECORRUPT)
		corrupt(b, hex, &why);
	if (data)
		a->release(a->ctx, data);
	loose_end(&li);
	ga_buf_release(&why);
	ga_buf_release(&file);
	return error;
}

int loose_read_object_header(git_odb_backend *backend,
			     const struct ga_oid *id, size_t *len,
			     git_object_t *type)
{
	struct loose_backend *b = (struct loose_backend *)backend;
	struct fd_input in;
	struct loose_inflater li = { 0 };
	struct ga_buf why = GA_BUF_INIT;
	unsigned char buf[LOOSE_HEADER_READ];
	char hex[GA_OID_MAX_HEXSZ + 1];
	uint64_t compressed;
	int fd, error;

	ga_oid_fmt(hex, id);
	if ((error = open_object(&fd, &compressed, b, hex)) < 0)
		return error;
	fd_input_init(&in, fd, hex, buf, sizeof(buf));
	if (!compressed)
		error = empty_file(b, hex, &why);
	else if ((error = loose_begin(&li, &in.base, hex, &why)) == 0) {
		*len = (size_t)li.size;
		*type = li.type;
	} else if (error == GA_ECORRUPT) {
		corrupt(b, hex, &why);
	}
	loose_end(&li);
	close(fd);
	ga_buf_release(&why);
	return error;
}

/* ---- streams ---- */

static void loose_free(git_odb_backend *backend);

struct loose_stream {
	struct loose_inflater li;
	struct fd_input in;
	struct loose_backend *b;
	char hex[GA_OID_MAX_HEXSZ + 1];
	unsigned char buf[LOOSE_READ_CHUNK];
};

int loose_stream_read(struct loose_stream *s, unsigned char *buf,
		      size_t cap, size_t *nread)
{
	struct ga_buf why = GA_BUF_INIT;
	int error;

	error = loose_read(&s->li, buf, cap, nread, &why);
	if (error == GA_ECORRUPT)
		corrupt(s->b, s->hex, &why);
	ga_buf_release(&why);
	return error;
}

void loose_stream_free(struct loose_stream *s)
{
	if (!s)
		return;
	loose_end(&s->li);
	if (s->in.fd >= 0)
		close(s->in.fd);
	free(s);
}

int loose_stream_open(struct loose_stream **out, uint64_t *size,
		      git_object_t *type, git_odb_backend *backend,
		      const struct ga_oid *id)
{
	struct loose_backend *b = (struct loose_backend *)backend;
	struct loose_stream *s;
	struct ga_buf why = GA_BUF_INIT;
	uint64_t compressed;
	int fd, error;

	*out = NULL;
	if (backend->free != loose_free)
		return GIT_ENOTFOUND;
	s = ga_xcalloc(1, sizeof(*s));
	s->in.fd = -1;
	s->b = b;
	ga_oid_fmt(s->hex, id);
	if ((error = open_object(&fd, &compressed, b, s->hex)) < 0)
		goto fail;
	fd_input_init(&s->in, fd, s->hex, s->buf, sizeof(s->buf));
	if (!compressed) {
		error = empty_file(b, s->hex, &why);
		goto fail;
	}
	/*
	 * No loose_size_possible() here: a stream holds no more than a
	 * chunk whatever the header says, and git streams such an object
	 * until it runs out (its t5000 "huge size" test).
	 */
	if ((error = loose_begin(&s->li, &s->in.base, s->hex, &why)) < 0)
		goto fail;
	*size = s->li.size;
	*type = s->li.type;
	*out = s;
	return 0;
fail:
	if (error == GA_ECORRUPT)
		corrupt(b, s->hex, &why);
	ga_buf_release(&why);
	loose_stream_free(s);
	return error;
}

/* ---- existence and abbreviated ids ---- */

int loose_has(git_odb_backend *backend, const struct ga_oid *id)
{
	struct loose_backend *b = (struct loose_backend *)backend;
	char hex[GA_OID_MAX_HEXSZ + 1];
	char *path;
	struct stat st;
	int found;

	ga_oid_fmt(hex, id);
	path = object_path(b->dir, hex);
	found = stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
	free(path);
	return found;
}

int loose_find_prefix(git_odb_backend *backend, const struct ga_oid *prefix,
		      size_t len, struct ga_oid *out)
{
	const struct loose_backend *b = (struct loose_backend *)backend;
	size_t hexsz = ga_oid_hexsz(prefix);
	char hex[GA_OID_MAX_HEXSZ + 1], *dirpath;
	struct dirent *de;
	DIR *dir;
	int found = 0;

	ga_oid_fmt(hex, prefix);
	dirpath = ga_xstrfmt("%s%.2s", b->dir, hex);
	dir = opendir(dirpath);
	free(dirpath);
	if (!dir)
		return GIT_ENOTFOUND;
	while ((de = readdir(dir))) {
		char full[GA_OID_MAX_HEXSZ + 1];

		if (strlen(de->d_name) != hexsz - 2 ||
		    strncmp(de->d_name, hex + 2, len - 2))
			continue;
		memcpy(full, hex, 2);
		memcpy(full + 2, de->d_name, hexsz - 2);
		full[hexsz] = '\0';
		if (ga_oid_from_hex(out, prefix->algo, full) < 0)
			continue;
		if (found++) {
			closedir(dir);
			git_error_set_str(GIT_ERROR_ODB,
					  "multiple matches for prefix");
			return GIT_EAMBIGUOUS;
		}
	}
	closedir(dir);
	return found ? 0 : GIT_ENOTFOUND;
}

/*
 * libgit2's side of the backend, for a SHA-1 database: its 20-byte
 * git_oid made a ga_oid for the functions above.
 */
static void sha1_oid(struct ga_oid *out, const git_oid *oid)
{
	ga_oid_from_raw(out, GA_HASH_SHA1, oid->id);
}

static void *backend_alloc(void *ctx, size_t len)
{
	return git_odb_backend_data_alloc(ctx, len);
}

static void backend_release(void *ctx, void *data)
{
	git_odb_backend_data_free(ctx, data);
}

static int loose_read_whole(void **out, size_t *len, git_object_t *type,
			    git_odb_backend *backend, const git_oid *oid)
{
	struct ga_store_alloc a = { backend_alloc, backend_release, backend };
	struct ga_oid id;

	sha1_oid(&id, oid);
	return loose_read_object(backend, &id, &a, out, len, type);
}

static int loose_read_header(size_t *len, git_object_t *type,
			     git_odb_backend *backend, const git_oid *oid)
{
	struct ga_oid id;

	sha1_oid(&id, oid);
	return loose_read_object_header(backend, &id, len, type);
}

static int loose_exists(git_odb_backend *backend, const git_oid *oid)
{
	struct ga_oid id;

	sha1_oid(&id, oid);
	return loose_has(backend, &id);
}

static int find_prefix(git_oid *out, git_odb_backend *backend,
		       const git_oid *prefix, size_t len)
{
	struct ga_oid pre, found;
	int error;

	sha1_oid(&pre, prefix);
	if ((error = loose_find_prefix(backend, &pre, len, &found)) < 0)
		return error;
	git_oid_fromraw(out, found.id);
	return 0;
}

static int loose_exists_prefix(git_oid *out, git_odb_backend *backend,
			       const git_oid *prefix, size_t len)
{
	return find_prefix(out, backend, prefix, len);
}

static int loose_read_prefix(git_oid *out, void **data, size_t *len,
			     git_object_t *type, git_odb_backend *backend,
			     const git_oid *prefix, size_t plen)
{
	int error;

	if (plen >= GIT_OID_HEXSZ)
		git_oid_cpy(out, prefix);
	else if ((error = find_prefix(out, backend, prefix, plen)) < 0)
		return error;
	return loose_read_whole(data, len, type, backend, out);
}

static void loose_free(git_odb_backend *backend)
{
	struct loose_backend *b = (struct loose_backend *)backend;

	free(b->dir);
	free(b->shown);
	free(b);
}

static char *with_slash(const char *dir)
{
	size_t len = strlen(dir);

	return len && dir[len - 1] == '/' ? ga_xstrdup(dir)
					  : ga_xstrfmt("%s/", dir);
}

int loose_backend_new(git_odb_backend **out, const char *objects_dir,
		      const char *shown)
{
	struct loose_backend *b = ga_xcalloc(1, sizeof(*b));

	if (git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION) < 0) {
		free(b);
		return ga_error_from_git(NULL);
	}
	b->dir = with_slash(objects_dir);
	b->shown = with_slash(shown ? shown : objects_dir);
	b->named = shown != NULL;
	b->parent.read = loose_read_whole;
	b->parent.read_header = loose_read_header;
	b->parent.read_prefix = loose_read_prefix;
	b->parent.exists = loose_exists;
	b->parent.exists_prefix = loose_exists_prefix;
	b->parent.free = loose_free;
	*out = &b->parent;
	return 0;
}

const char *loose_backend_shown(git_odb_backend *b)
{
	struct loose_backend *lb = (struct loose_backend *)b;

	if (b->free != loose_free || !lb->named)
		return NULL;
	return lb->shown;
}

int loose_damage_in_header(const char *message)
{
	const char *fatal = strstr(message, "\nfatal: loose object ");
	const char *body = strstr(message, LOOSE_CORRUPT_BODY);
	const char *garbage = strstr(message, LOOSE_GARBAGE);

	return fatal && !(body && body < fatal) && !(garbage && garbage < fatal);
}

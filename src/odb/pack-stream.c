/*
 * pack-stream.c: a blob stored whole in a pack, read in pieces (see
 * pack-stream.h).
 *
 * Every offset read from an index is checked against the index's size
 * and every offset into the pack against the pack's size before it is
 * used; nothing is allocated by a size read from either file.
 * Termination: each inflate call either makes progress or ends the
 * read, and input is read from a file of finite size.
 */
#include "pack-stream.h"
#include "garchive/common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

/* Compressed bytes read from the pack at a time. */
#define PACK_READ_CHUNK		((size_t)64 << 10)
/* zlib counts output in uInt: at most this much per inflate call. */
#define PACK_ZLIB_CHUNK		((size_t)1 << 30)
/* An entry header: a type and a size of up to 64 bits, 7 bits a byte. */
#define PACK_HEADER_MAX		10
#define RAWSZ			GIT_OID_RAWSZ

/* The pack's object types (git's enum object_type). */
enum { PACK_COMMIT = 1, PACK_TREE, PACK_BLOB, PACK_TAG };

struct pack_stream {
	z_stream zs;
	int zs_live;
	int fd;
	uint64_t pos;			/* the next compressed byte */
	uint64_t pack_size;
	uint64_t size;			/* as the entry header says */
	uint64_t given;			/* bytes handed out */
	int status;			/* zlib's last status */
	int ended;			/* the end of the stream is checked */
	char hex[GIT_OID_HEXSZ + 1];
	char *shown;			/* the pack, as messages name it */
	unsigned char in[PACK_READ_CHUNK];
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* pread() all of `len` bytes at `at`: 0, or -1 (short, or an error). */
static int read_at(int fd, void *buf, size_t len, uint64_t at)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int pack_idx_layout(struct pack_idx_layout *idx, int fd, uint64_t idx_size)
{
	unsigned char head[8], fan[1024];
	uint32_t i, prev = 0;
	uint64_t want;

	if (idx_size < sizeof(head) || read_at(fd, head, sizeof(head), 0) < 0)
		return 0;
	idx->v2 = !memcmp(head, "\377tOc", 4);
	if (idx->v2 && be32(head + 4) != 2)
		return 0;
	if (read_at(fd, fan, sizeof(fan), idx->v2 ? 8 : 0) < 0)
		return 0;
	for (i = 0; i < 256; i++) {
		idx->fanout[i] = be32(fan + 4 * i);
		if (idx->fanout[i] < prev)
			return 0;
		prev = idx->fanout[i];
	}
	idx->nr = prev;
	if (idx->v2) {
		idx->names = 8 + sizeof(fan);
		idx->width = RAWSZ;
		idx->offsets = idx->names + (uint64_t)prev * (RAWSZ + 4);
		idx->large = idx->offsets + (uint64_t)prev * 4;
		want = idx->large + 2 * RAWSZ;
		/* At most one large offset for each object but the first. */
		return idx_size >= want &&
		       idx_size - want <= (prev ? (uint64_t)(prev - 1) * 8 : 0);
	}
	idx->names = sizeof(fan) + 4;
	idx->width = 4 + RAWSZ;
	idx->offsets = sizeof(fan);
	idx->large = 0;
	return idx_size == sizeof(fan) + (uint64_t)prev * idx->width + 2 * RAWSZ;
}

int pack_idx_find(uint64_t *offset, uint32_t *nr,
		  unsigned char checksum[RAWSZ], int fd, uint64_t idx_size,
		  const git_oid *id)
{
	struct pack_idx_layout idx;
	unsigned char name[RAWSZ], ofs[8];
	uint32_t lo, hi, first = id->id[0];

	if (!pack_idx_layout(&idx, fd, idx_size))
		return 0;
	*nr = idx.nr;
	if (read_at(fd, checksum, RAWSZ, idx_size - 2 * RAWSZ) < 0)
		return 0;

	lo = first ? idx.fanout[first - 1] : 0;
	hi = idx.fanout[first];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int cmp;

		if (read_at(fd, name, sizeof(name),
			    idx.names + mid * idx.width) < 0)
			return 0;
		cmp = memcmp(id->id, name, sizeof(name));
		if (cmp < 0) {
			hi = mid;
		} else if (cmp > 0) {
			lo = mid + 1;
		} else {
			uint64_t at = idx.offsets + (uint64_t)mid *
				      (idx.v2 ? 4 : idx.width);
			uint32_t small;

			if (read_at(fd, ofs, 4, at) < 0)
				return 0;
			small = be32(ofs);
			if (!idx.v2 || !(small & 0x80000000u)) {
				*offset = small;
				return 1;
			}
			at = idx.large + (uint64_t)(small & 0x7fffffffu) * 8;
			if (at + 8 > idx_size - 2 * RAWSZ ||
			    read_at(fd, ofs, 8, at) < 0)
				return 0;
			*offset = (uint64_t)be32(ofs) << 32 | be32(ofs + 4);
			return 1;
		}
	}
	return 0;
}

/*
 * Whether the pack open on `fd` is one git would use with an index of
 * `nr` objects and pack checksum `checksum` (git's open_packed_git_1()).
 */
static int pack_usable(int fd, uint64_t *pack_size, uint32_t nr,
		       const unsigned char checksum[RAWSZ])
{
	unsigned char head[12], sum[RAWSZ];
	uint32_t version;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)(sizeof(head) + RAWSZ))
		return 0;
	*pack_size = (uint64_t)st.st_size;
	if (read_at(fd, head, sizeof(head), 0) < 0 ||
	    read_at(fd, sum, sizeof(sum), *pack_size - RAWSZ) < 0)
		return 0;
	version = be32(head + 4);
	return !memcmp(head, "PACK", 4) && (version == 2 || version == 3) &&
	       be32(head + 8) == nr && !memcmp(sum, checksum, RAWSZ);
}

/*
 * The entry header at `at`: the type in bits 4-6 of the first byte, the
 * size in base-128 little-endian digits.  Returns the type (0 when the
 * header cannot be read, -1 when it goes on past where git stops, which
 * is its "bad object header") and sets *size and *data, where the
 * compressed data starts.
 */
static int entry_header(int fd, uint64_t at, uint64_t pack_size,
			uint64_t *size, uint64_t *data)
{
	unsigned char h[PACK_HEADER_MAX];
	size_t len = sizeof(h), i = 0;
	unsigned shift = 4;
	uint64_t v;

	if (pack_size - RAWSZ - at < len)
		len = (size_t)(pack_size - RAWSZ - at);
	if (!len || read_at(fd, h, len, at) < 0)
		return 0;
	v = h[0] & 15;
	while (h[i] & 0x80) {
		/* git reads no digit that could shift past 64 bits. */
		if (shift > 64 - 7)
			return -1;
		if (++i == len)
			return 0;
		v |= (uint64_t)(h[i] & 0x7f) << shift;
		shift += 7;
	}
	*size = v;
	*data = at + i + 1;
	return (h[0] >> 4) & 7;
}

static const git_object_t object_types[] = {
	[PACK_COMMIT] = GIT_OBJECT_COMMIT,
	[PACK_TREE] = GIT_OBJECT_TREE,
	[PACK_BLOB] = GIT_OBJECT_BLOB,
	[PACK_TAG] = GIT_OBJECT_TAG,
};

/*
 * Try the pack whose index is `dir`/`name`: 1 with the stream set up,
 * 0 when it does not hold the object whole, GA_ECORRUPT when the entry
 * header is one git calls bad.
 */
static int try_pack(struct pack_stream *s, uint64_t *size, git_object_t *type,
		    const char *dir, const char *name, const char *shown,
		    const git_oid *id)
{
	char *idx = ga_xstrfmt("%s/%s", dir, name), *pack;
	size_t base = strlen(name) - 4;
	unsigned char checksum[RAWSZ];
	uint64_t offset = 0, pack_size = 0, len = 0, data = 0;
	uint32_t nr = 0;
	struct stat st;
	int fd, found, kind = 0;

	fd = open(idx, O_RDONLY | O_CLOEXEC);
	free(idx);
	if (fd < 0)
		return 0;
	found = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		pack_idx_find(&offset, &nr, checksum, fd, (uint64_t)st.st_size,
			      id);
	close(fd);
	if (!found)
		return 0;
	pack = ga_xstrfmt("%s/%.*s.pack", dir, (int)base, name);
	fd = open(pack, O_RDONLY | O_CLOEXEC);
	free(pack);
	if (fd < 0)
		return 0;
	/* git takes an offset into the pack's header or checksum as damage. */
	if (pack_usable(fd, &pack_size, nr, checksum) && offset >= 12 &&
	    offset < pack_size - RAWSZ)
		kind = entry_header(fd, offset, pack_size, &len, &data);
	if (kind < 0) {
		/* Not git_oid_tostr_s(): its buffer is libgit2's per thread. */
		char hex[GIT_OID_HEXSZ + 1];

		close(fd);
		git_oid_tostr(hex, sizeof(hex), id);
		return ga_error_code(GA_ECORRUPT, "bad object header\nfatal: "
				     "packed object %s (stored in %s/pack/%.*s"
				     ".pack) is corrupt", hex, shown,
				     (int)base, name);
	}
	if (kind < PACK_COMMIT || kind > PACK_TAG || len > SIZE_MAX - 1) {
		close(fd);
		return 0;
	}
	s->fd = fd;
	s->pos = data;
	s->pack_size = pack_size;
	s->size = len;
	s->shown = ga_xstrfmt("%s/pack/%.*s.pack", shown, (int)base, name);
	*size = len;
	*type = object_types[kind];
	return 1;
}

void pack_stream_free(struct pack_stream *s)
{
	if (!s)
		return;
	if (s->zs_live)
		inflateEnd(&s->zs);
	if (s->fd >= 0)
		close(s->fd);
	free(s->shown);
	free(s);
}

int pack_stream_open(struct pack_stream **out, uint64_t *size,
		     git_object_t *type, const char *objects_dir,
		     const char *shown, const git_oid *id)
{
	struct pack_stream *s = ga_xcalloc(1, sizeof(*s));
	char *dirpath = ga_xstrfmt("%s/pack", objects_dir);
	DIR *dir = opendir(dirpath);
	struct dirent *de;
	int found = 0;

	*out = NULL;
	s->fd = -1;
	while (dir && found == 0 && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (len > 4 && !strcmp(de->d_name + len - 4, ".idx"))
			found = try_pack(s, size, type, dirpath, de->d_name,
					 shown, id);
	}
	if (dir)
		closedir(dir);
	free(dirpath);
	if (found <= 0) {
		pack_stream_free(s);
		return found < 0 ? found : GA_ENOTFOUND;
	}
	git_oid_tostr(s->hex, sizeof(s->hex), id);
	if (inflateInit(&s->zs) != Z_OK) {
		pack_stream_free(s);
		return ga_error_set("inflate: out of memory");
	}
	s->zs_live = 1;
	s->status = Z_OK;
	*out = s;
	return 0;
}

/*
 * git's words for a damaged object.  zlib's complaint is git's stream
 * failing as an archive entry that cannot be written: the error line
 * of git_inflate() and status 255, nothing more.  A stream that ends
 * before or goes on after its size is what git's whole read calls the
 * object (git's stream archives it cut or long and exits 0).
 */
static int corrupt(const struct pack_stream *s)
{
	if (s->status != Z_OK && s->status != Z_STREAM_END &&
	    s->status != Z_BUF_ERROR)
		return ga_error_code(GA_EARCHIVE, "inflate: %s (%s)",
				     ga_zlib_strerror(s->status),
				     s->zs.msg ? s->zs.msg : "no message");
	return ga_error_code(GA_ECORRUPT, "fatal: packed object %s (stored "
			     "in %s) is corrupt", s->hex, s->shown);
}

/*
 * Give zlib more input once it has used what it had.  git reads on into
 * the pack's checksum, and dies past its start.
 */
static int feed(struct pack_stream *s)
{
	size_t len = PACK_READ_CHUNK;

	if (s->zs.avail_in)
		return 0;
	if (s->pos > s->pack_size - RAWSZ)
		return ga_error_code(GA_ECORRUPT, "fatal: offset beyond end of "
				     "packfile (truncated pack?)");
	if (s->pack_size - s->pos < len)
		len = (size_t)(s->pack_size - s->pos);
	if (read_at(s->fd, s->in, len, s->pos) < 0)
		return ga_error_errno(errno ? errno : EIO, "cannot read %s",
				      s->shown);
	s->pos += len;
	s->zs.next_in = s->in;
	s->zs.avail_in = (uInt)len;
	return 0;
}

/*
 * One inflate call into `out` (at most `cap` bytes), fed first.  Any
 * status but Z_OK and Z_STREAM_END ends the read: with input and room
 * zlib returns Z_BUF_ERROR only when it cannot go on.
 */
static int inflate_some(struct pack_stream *s, unsigned char *out,
			size_t cap, size_t *produced)
{
	int error;

	if ((error = feed(s)) < 0)
		return error;
	s->zs.next_out = out;
	s->zs.avail_out = (uInt)(cap < PACK_ZLIB_CHUNK ? cap : PACK_ZLIB_CHUNK);
	s->status = inflate(&s->zs, Z_NO_FLUSH);
	*produced = (size_t)(s->zs.next_out - out);
	return 0;
}

/* Everything was given: the stream must end here. */
static int check_end(struct pack_stream *s)
{
	unsigned char spare;
	size_t n;
	int error;

	while (s->status == Z_OK) {
		if ((error = inflate_some(s, &spare, 1, &n)) < 0)
			return error;
		if (n)
			return corrupt(s);
	}
	if (s->status != Z_STREAM_END)
		return corrupt(s);
	s->ended = 1;
	return 0;
}

int pack_stream_read(struct pack_stream *s, unsigned char *buf, size_t cap,
		     size_t *nread)
{
	uint64_t left = s->size - s->given;
	size_t got = 0, n;
	int error;

	*nread = 0;
	if (cap > left)
		cap = (size_t)left;
	while (got < cap) {
		if (s->status != Z_OK)
			return corrupt(s);
		if ((error = inflate_some(s, buf + got, cap - got, &n)) < 0)
			return error;
		got += n;
	}
	s->given += got;
	if (s->given == s->size && !s->ended && (error = check_end(s)) < 0)
		return error;
	*nread = got;
	return 0;
}

/*
 * verify-check.c: reading the file for `garchive verify`: its
 * decompressed bytes against the expected archive's, and each entry
 * against the expected entry of the same path (see verify.c).
 */
#include "verify-state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static void list_add(struct verify *v, enum list_kind kind, char *item)
{
	struct path_list *l = &v->lists[kind];

	l->count++;
	if (!v->opts->verbose && l->nr >= VERIFY_LIST_MAX) {
		free(item);
		return;
	}
	GA_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr++] = item;
}

/* ---- reading the file ---- */

static void decoded_chunk(struct verify *v, uint32_t crc, size_t index)
{
	if (v->tar_differs)
		return;
	if (index >= v->nr_e_crcs || v->e_crcs[index] != crc) {
		v->tar_differs = 1;
		v->first_diff = (uint64_t)index * VERIFY_CHUNK;
		/* No compressor can make this file from garchive's tar. */
		recompress_stop(v->rc, "the tar inside differs");
	}
}

static int decoded_read(struct byte_source *s, unsigned char *buf,
			size_t cap, size_t *nread)
{
	struct verify *v = ((struct decoded *)s)->v;
	int error;

	if (v->peek_pos < v->peek_len) {
		size_t n = v->peek_len - v->peek_pos;

		*nread = n < cap ? n : cap;
		memcpy(buf, v->peek + v->peek_pos, *nread);
		v->peek_pos += *nread;
	} else if ((error = v->dsrc->read(v->dsrc, buf, cap, nread)) < 0) {
		return error;
	}
	if (!*nread)
		return 0;
	v->d_len += *nread;
	if (v->d_len > v->budget) {
		v->over_budget = 1;
		return ga_error_code(GA_ELIMIT, "it holds more than %" PRIu64
				     " bytes, where garchive writes %" PRIu64,
				     v->budget, v->e_len);
	}
	ga_sha256_update(&v->d_sha, buf, *nread);
	verify_chunk_update(&v->d_chunk, buf, *nread, decoded_chunk, v);
	if (v->rc && recompress_alive(v->rc))
		return recompress_feed(v->rc, buf, *nread);
	return 0;
}

/* Hash the rest of the current entry's content. */
static int hash_content(struct verify *v, unsigned char *digest,
			uint64_t *size,
			int (*readfn)(void *r, unsigned char *buf, size_t cap,
				      size_t *n),
			void *reader)
{
	int error;

	*size = 0;
	ga_sha256_init(&v->entry_sha);
	for (;;) {
		size_t n;

		if ((error = readfn(reader, v->buf, VERIFY_BUF, &n)) < 0)
			return error;
		if (!n)
			break;
		*size += n;
		ga_sha256_update(&v->entry_sha, v->buf, n);
	}
	ga_sha256_final(&v->entry_sha, digest);
	return 0;
}

static int tar_read_fn(void *r, unsigned char *buf, size_t cap, size_t *n)
{
	return tar_reader_read(r, buf, cap, n);
}

static int zip_read_fn(void *r, unsigned char *buf, size_t cap, size_t *n)
{
	return zip_reader_read(r, buf, cap, n);
}

static const char *kind_name(uint32_t mode)
{
	switch (mode) {
	case ARCHIVE_MODE_EXEC:
		return "executable";
	case ARCHIVE_MODE_SYMLINK:
		return "symbolic link";
	case ARCHIVE_MODE_DIR:
	case ARCHIVE_MODE_GITLINK:
		return "directory";
	case ARCHIVE_MODE_FILE:
		return "file";
	default:
		return "special file";
	}
}

static void note_once(char **slot, const char *path, size_t len)
{
	if (!*slot)
		*slot = verify_quote_path(path, len);
}

/* The record of an archive path, or NULL after listing it. */
static struct expect *match_path(struct verify *v, const char *path,
				 size_t len, int dir)
{
	struct expect *x = verify_expect_get(&v->table, path, len);

	if (dir)
		v->nr_dirs++;
	else
		v->nr_entries++;
	if (v->progress && !dir)
		progress_update(v->progress, v->nr_entries, v->d_len);
	if (!x) {
		list_add(v, dir ? LIST_DIR_ONLY_ARCHIVE : LIST_ONLY_ARCHIVE,
			 verify_quote_path(path, len));
		return NULL;
	}
	if (x->seen) {
		list_add(v, LIST_TWICE, verify_quote_path(path, len));
		return NULL;
	}
	x->seen = 1;
	if (v->have_last && x->index < v->last_index)
		note_once(&v->misordered, path, len);
	v->last_index = x->index;
	v->have_last = 1;
	return x;
}

/* The kind and mode an archive entry has against the expected one. */
static int same_kind(struct verify *v, const struct expect *x, uint32_t mode,
		     const char *path, size_t len)
{
	int ok = archive_mode_is_dir(x->mode) ? archive_mode_is_dir(mode)
					      : x->mode == mode;
	char *q;

	if (ok)
		return 1;
	q = verify_quote_path(path, len);
	list_add(v, LIST_MODE, ga_xstrfmt("%s (archive: %s, tree-ish: %s)", q,
					  kind_name(mode),
					  kind_name(x->mode)));
	free(q);
	return 0;
}

static void compare_content(struct verify *v, const struct expect *x,
			    const unsigned char *sha, uint64_t size,
			    const char *path, size_t len)
{
	if (size == x->size && !memcmp(sha, x->sha, GA_SHA256_LEN))
		return;
	list_add(v, x->mode == ARCHIVE_MODE_SYMLINK ? LIST_LINK : LIST_CONTENT,
		 verify_quote_path(path, len));
}

/* The permission bits git writes for `mode` with the umask used. */
static uint32_t expected_perm(const struct verify *v, uint32_t mode)
{
	switch (mode) {
	case ARCHIVE_MODE_SYMLINK:
		return 0777;
	case ARCHIVE_MODE_FILE:
		return 0666 & ~v->umask_used;
	default:
		return 0777 & ~v->umask_used;
	}
}

static int tar_entry(struct verify *v, struct tar_reader *r,
		     struct tar_read_entry *e)
{
	unsigned char sha[GA_SHA256_LEN];
	struct ga_buf path = GA_BUF_INIT;
	struct expect *x;
	uint32_t mode;
	uint64_t size;
	int error = 0;

	switch (e->type) {
	case '0': case '\0': case '7':
		mode = e->perm & 0100 ? ARCHIVE_MODE_EXEC : ARCHIVE_MODE_FILE;
		break;
	case '2':
		mode = ARCHIVE_MODE_SYMLINK;
		break;
	case '5':
		mode = ARCHIVE_MODE_DIR;
		break;
	default:
		mode = 0;	/* hard links, devices, fifos... */
	}
	ga_buf_put(&path, e->path, e->path_len);
	if (mode == ARCHIVE_MODE_DIR &&
	    (!path.len || path.ptr[path.len - 1] != '/'))
		ga_buf_putc(&path, '/');
	v->tar_flags |= e->flags;
	x = match_path(v, path.ptr, path.len, mode == ARCHIVE_MODE_DIR);
	if (!x || !same_kind(v, x, mode, path.ptr, path.len))
		goto done;
	if (mode == ARCHIVE_MODE_SYMLINK) {
		ga_sha256_init(&v->entry_sha);
		ga_sha256_update(&v->entry_sha, e->link, e->link_len);
		ga_sha256_final(&v->entry_sha, sha);
		compare_content(v, x, sha, e->link_len, path.ptr, path.len);
	} else if (mode != ARCHIVE_MODE_DIR) {
		if ((error = hash_content(v, sha, &size, tar_read_fn, r)) < 0)
			goto done;
		compare_content(v, x, sha, size, path.ptr, path.len);
	}
	if (e->mtime != v->mtime)
		note_once(&v->mtime_odd, path.ptr, path.len);
	if (e->perm != expected_perm(v, mode))
		note_once(&v->perm_odd, path.ptr, path.len);
	if (e->uid || e->gid || strcmp(e->uname, "root") ||
	    strcmp(e->gname, "root"))
		note_once(&v->owner_odd, path.ptr, path.len);
done:
	ga_buf_release(&path);
	return error;
}

static int check_tar(struct verify *v)
{
	struct tar_reader *r;
	struct tar_read_entry *e;
	int error;

	tar_reader_new(&r, &v->dstream.base, NULL);
	while ((error = tar_reader_next(&e, r)) == 0)
		if ((error = tar_entry(v, r, e)) < 0)
			break;
	tar_reader_summary(&v->tsum, r);
	if (v->tsum.comment)
		v->tsum.comment = NULL;	/* freed with the reader */
	if (error == GA_ITEROVER)
		error = tar_reader_trailer(r, VERIFY_TRAILER_MAX,
					   &v->trailer_len, &v->trailer_zero,
					   &v->trailer_more);
	/* What the global header recorded, kept beyond the reader. */
	if (!error) {
		struct tar_read_summary s;

		tar_reader_summary(&s, r);
		free(v->recorded_commit);
		v->recorded_commit = s.comment ? ga_xstrdup(s.comment) : NULL;
	}
	tar_reader_free(r);
	return error;
}

/* The kind a central directory header gives, as unzip reads it. */
static uint32_t central_mode(const struct zip_read_central *c)
{
	uint32_t unix_mode = c->external_attr >> 16;

	if ((c->made_by >> 8) == 3 && unix_mode) {
		switch (unix_mode & 0170000) {
		case 0120000:
			return ARCHIVE_MODE_SYMLINK;
		case 0040000:
			return ARCHIVE_MODE_DIR;
		case 0100000:
			return unix_mode & 0100 ? ARCHIVE_MODE_EXEC
						: ARCHIVE_MODE_FILE;
		default:
			return 0;
		}
	}
	if ((c->external_attr & 0x10) ||
	    (c->path_len && c->path[c->path_len - 1] == '/'))
		return ARCHIVE_MODE_DIR;
	return ARCHIVE_MODE_FILE;
}

static int zip_entry(struct verify *v, struct zip_reader *r,
		     struct zip_read_entry *e)
{
	unsigned char sha[GA_SHA256_LEN];
	int dir = e->path_len && e->path[e->path_len - 1] == '/';
	struct expect *x;
	uint64_t size;
	int error;

	if (!(e->extras & ZIP_READ_EXTRA_UT))
		v->zip_no_ut = 1;
	else if ((int64_t)e->ut_mtime != (int64_t)(uint32_t)v->mtime)
		note_once(&v->mtime_odd, e->path, e->path_len);
	if (e->extras & ZIP_READ_EXTRA_OTHER)
		v->zip_extra_other = 1;
	if (v->have_dos && (e->dos_time != v->first_dos_time ||
			    e->dos_date != v->first_dos_date))
		note_once(&v->mtime_odd, e->path, e->path_len);
	x = match_path(v, e->path, e->path_len, dir);
	if (!x || dir)
		return 0;
	if (archive_mode_is_dir(x->mode)) {
		same_kind(v, x, ARCHIVE_MODE_FILE, e->path, e->path_len);
		return 0;
	}
	if ((error = hash_content(v, sha, &size, zip_read_fn, r)) < 0)
		return error;
	compare_content(v, x, sha, size, e->path, e->path_len);
	return 0;
}

static void zip_central(struct verify *v, const struct zip_read_central *c)
{
	struct expect *x = verify_expect_get(&v->table, c->path, c->path_len);

	/* Paths not expected, or seen twice, are listed already. */
	if (x && x->seen)
		same_kind(v, x, central_mode(c), c->path, c->path_len);
}

static int check_zip(struct verify *v)
{
	struct zip_reader *r;
	struct zip_read_entry *e;
	struct zip_read_central *c;
	uint64_t max = v->expected_content * 2 + VERIFY_SLACK;
	int error;

	zip_reader_new(&r, &v->dstream.base, max);
	while ((error = zip_reader_next(&e, r)) == 0)
		if ((error = zip_entry(v, r, e)) < 0)
			break;
	if (error == GA_ITEROVER)
		while ((error = zip_reader_next_central(&c, r)) == 0)
			zip_central(v, c);
	if (error == GA_ITEROVER)
		error = zip_reader_trailer(r, VERIFY_TRAILER_MAX,
					   &v->trailer_len, &v->trailer_more);
	zip_reader_summary(&v->zsum, r);
	if (v->zsum.comment) {
		free(v->recorded_commit);
		v->recorded_commit = ga_xstrndup(v->zsum.comment,
						 v->zsum.comment_len);
		v->zsum.comment = NULL;
	}
	v->zip_descriptors = v->zsum.descriptors;
	if (error == GA_ELIMIT) {
		v->over_budget = 1;
	}
	zip_reader_free(r);
	return error;
}

/* Whatever is left of the decompressed stream, through the checks. */
static int drain_decoded(struct verify *v)
{
	size_t n;
	int error;

	do {
		error = v->dstream.base.read(&v->dstream.base, v->buf,
					     VERIFY_BUF, &n);
	} while (!error && n);
	return error;
}

static void list_unseen(struct verify *v)
{
	size_t i;

	for (i = 0; i < v->table.cap; i++) {
		struct expect *x = v->table.slots[i];

		if (!x || x->seen)
			continue;
		list_add(v, archive_mode_is_dir(x->mode) ? LIST_DIR_ONLY_TREE
					    : LIST_ONLY_TREE,
			 verify_quote_path(x->path, x->path_len));
	}
}

static int cmp_items(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void verify_set_progress(struct verify *v, struct progress *p)
{
	progress_free(v->progress);
	v->progress = p;
}

int verify_check(struct verify *v)
{
	int error;
	size_t i;

	progress_set_total(v->progress, v->nr_expected_files);
	v->dstream.base.read = decoded_read;
	v->dstream.v = v;
	v->budget = v->e_len * 2 + VERIFY_SLACK;

	error = v->zip ? check_zip(v) : check_tar(v);
	if (error == GA_ELIMIT) {
		v->over_budget = 1;
		free(v->over_budget_msg);
		v->over_budget_msg = ga_xstrdup(ga_error_message());
		ga_error_clear();
		error = 0;
		recompress_stop(v->rc, "the file is too large");
	} else if (!error) {
		error = drain_decoded(v);
		if (error == GA_ELIMIT) {
			v->over_budget = 1;
			v->over_budget_msg = ga_xstrdup(ga_error_message());
			ga_error_clear();
			error = 0;
		}
	}
	if (error < 0)
		return error;
	if (!v->over_budget) {
		/* The last partial MiB, and a tar that ends early. */
		if (v->d_chunk.fill)
			decoded_chunk(v, v->d_chunk.crc, v->d_chunk.index);
		if (v->d_len != v->e_len && !v->tar_differs) {
			v->tar_differs = 1;
			v->first_diff = (v->d_len < v->e_len ? v->d_len
							     : v->e_len) &
					~(uint64_t)(VERIFY_CHUNK - 1);
			recompress_stop(v->rc, "the tar inside differs");
		}
	}
	if (v->dec && !v->over_budget &&
	    (error = unpack_decoder_finish(v->dec)) < 0)
		return error;
	if (v->dec)
		v->gz = unpack_decoder_gzip(v->dec);
	if (!v->over_budget && (error = unpack_input_drain(&v->in)) < 0)
		return error;
	ga_sha256_final(&v->a_sha, v->a_digest);
	ga_sha256_final(&v->d_sha, v->d_digest);
	if (v->rc && (error = recompress_finish(v->rc, v->in.total)) < 0)
		return error;
	v->winner = recompress_winner(v->rc);
	progress_done(v->progress, v->nr_entries, v->d_len);
	v->progress = NULL;
	list_unseen(v);
	for (i = 0; i < LIST_NR; i++)
		if (v->lists[i].nr > 1)
			qsort(v->lists[i].items, v->lists[i].nr, sizeof(char *),
		      cmp_items);
	v->checked = 1;
	return 0;
}

/*
 * commit.c: git's commit.c for archives and pretty formats: commit and
 * tag objects read over odb_read and parsed for either hash (struct
 * ga_commit, ga_tag_target), find_commit_header(), and the parents git
 * reports for a commit under grafts (read_graft_file,
 * lookup_commit_graft) and a shallow file (shallow.c), which libgit2
 * 1.5 ignores.
 */
#include "commit.h"
#include "repo-open.h"

#include "garchive/common.h"
#include "odb/odb.h"
#include "object-name.h"
#include "sane-ctype.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "libgit2.h"

void ga_commit_release(struct ga_commit *c)
{
	free(c->parents);
	free(c->raw);
	memset(c, 0, sizeof(*c));
}

/*
 * "<key> <hex>\n" at *p (before end): the id into *out and *p past the
 * line, or -1 with *p unmoved.
 */
static int id_line(struct ga_oid *out, const char **p, const char *end,
		   const char *key, enum ga_hash_algo algo)
{
	size_t klen = strlen(key), hexsz = ga_hash_hexsz(algo);
	const char *q = *p;

	if ((size_t)(end - q) < klen + hexsz + 1 || memcmp(q, key, klen) ||
	    q[klen + hexsz] != '\n' ||
	    ga_oid_from_hex(out, algo, q + klen) < 0)
		return -1;
	*p = q + klen + hexsz + 1;
	return 0;
}

/*
 * git's parse_commit_date(): the number after the first '>' of a
 * committer line that follows the author line, else 0.  git reads it
 * as an unsigned timestamp; the archive keeps the same 64 bits.
 */
static int64_t commit_date(const char *buf, const char *tail)
{
	const char *date;

	if (tail - buf <= 6 || memcmp(buf, "author", 6))
		return 0;
	while (buf < tail && *buf++ != '\n')
		;
	if (tail - buf <= 9 || memcmp(buf, "committer", 9))
		return 0;
	while (buf < tail && *buf++ != '>')
		;
	if (buf >= tail)
		return 0;
	date = buf;
	while (buf < tail && *buf++ != '\n')
		;
	if (buf >= tail)
		return 0;
	/* The line ends before tail, so strtoumax stops inside the object. */
	return (int64_t)strtoumax(date, NULL, 10);
}

int ga_commit_parse(struct ga_commit *out, const struct ga_oid *id,
		    const void *data, size_t size)
{
	const char *p, *end;
	struct ga_oid parent;
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	ga_oid_cpy(&out->id, id);
	out->raw = ga_xmalloc(size + 1);
	memcpy(out->raw, data, size);
	out->raw[size] = '\0';
	out->raw_len = size;
	p = out->raw;
	end = p + size;
	if (id_line(&out->tree_id, &p, end, "tree ", id->algo) < 0) {
		ga_commit_release(out);
		return ga_error_set("failed to parse bad commit object");
	}
	while (!id_line(&parent, &p, end, "parent ", id->algo)) {
		GA_ALLOC_GROW(out->parents, out->nr_parents + 1, alloc);
		ga_oid_cpy(&out->parents[out->nr_parents++], &parent);
	}
	out->time = commit_date(p, end);
	return 0;
}

int ga_commit_read(struct ga_commit **out, git_odb *odb,
		   const struct ga_oid *id)
{
	struct odb_object *obj = NULL;
	struct ga_commit *c;
	int error;

	*out = NULL;
	if (odb_read(&obj, odb, id) < 0)
		return ga_error_from_git(NULL);
	if (odb_object_type(obj) != GIT_OBJECT_COMMIT) {
		odb_object_free(obj);
		return ga_error_set("the requested type does not match the "
				    "type in the ODB");
	}
	c = ga_xmalloc(sizeof(*c));
	error = ga_commit_parse(c, id, odb_object_data(obj),
				odb_object_size(obj));
	odb_object_free(obj);
	if (error < 0) {
		free(c);
		return error;
	}
	*out = c;
	return 0;
}

void ga_commit_free(struct ga_commit *c)
{
	if (!c)
		return;
	ga_commit_release(c);
	free(c);
}

char *commit_header(const char *msg, const char *key)
{
	size_t klen = strlen(key);
	const char *line = msg;

	while (line) {
		const char *eol = strchrnul(line, '\n');

		if (line == eol)
			return NULL;
		if ((size_t)(eol - line) > klen && !strncmp(line, key, klen) &&
		    line[klen] == ' ')
			return ga_xstrndup(line + klen + 1,
					   (size_t)(eol - line) - klen - 1);
		line = *eol ? eol + 1 : NULL;
	}
	return NULL;
}

/* "tagger ... <email> ...\n" at *p: *p past it, or -1. */
static int tagger_line(const char **p, const char *end)
{
	const char *q = *p, *eol, *lt, *gt;

	if (end - q < 7 || memcmp(q, "tagger ", 7) ||
	    !(eol = memchr(q, '\n', (size_t)(end - q))))
		return -1;
	lt = memrchr(q, '<', (size_t)(eol - q));
	gt = memrchr(q, '>', (size_t)(eol - q));
	if (!lt || !gt || lt > gt)
		return -1;
	*p = eol + 1;
	return 0;
}

int ga_tag_target(struct ga_oid *target, git_object_t *type,
		  enum ga_hash_algo algo, const char *data, size_t size)
{
	static const char *const names[] = { "commit", "tree", "blob", "tag" };
	static const git_object_t types[] = {
		GIT_OBJECT_COMMIT, GIT_OBJECT_TREE, GIT_OBJECT_BLOB,
		GIT_OBJECT_TAG
	};
	const char *p = data, *end = data + size, *nl;
	size_t i, len;

	if (id_line(target, &p, end, "object ", algo) < 0 || end - p <= 5 ||
	    memcmp(p, "type ", 5))
		return -1;
	p += 5;
	for (i = 0; i < 4; i++) {
		len = strlen(names[i]);
		if ((size_t)(end - p) <= len)
			return -1;
		if (!memcmp(p, names[i], len))
			break;
	}
	if (i == 4 || p[len] != '\n')
		return -1;
	*type = types[i];
	p += len + 1;
	if (end - p <= 4 || memcmp(p, "tag ", 4) ||
	    !(nl = memchr(p + 4, '\n', (size_t)(end - p - 4))))
		return -1;
	p = nl + 1;
	if (p < end && *p != '\n' && tagger_line(&p, end) < 0)
		return -1;
	if (p < end && *p != '\n' && !memmem(p, (size_t)(end - p), "\n\n", 2))
		return -1;
	return 0;
}

int ga_peel_tags(struct ga_oid *out, git_odb *odb, const struct ga_oid *id)
{
	git_object_t want = GIT_OBJECT_ANY;
	struct ga_oid cur = *id;

	for (;;) {
		struct odb_object *obj = NULL;
		git_object_t type;
		int error;

		if (odb_read(&obj, odb, &cur) < 0) {
			git_error_clear();
			return -1;
		}
		type = odb_object_type(obj);
		if (want != GIT_OBJECT_ANY && type != want) {
			odb_object_free(obj);
			return -1;
		}
		if (type != GIT_OBJECT_TAG) {
			odb_object_free(obj);
			ga_oid_cpy(out, &cur);
			return 0;
		}
		error = ga_tag_target(&cur, &want, id->algo,
				      odb_object_data(obj),
				      odb_object_size(obj));
		odb_object_free(obj);
		if (error < 0)
			return -1;
	}
}

/*
 * Grafts for this commit: $GIT_DIR/info/grafts (first line for a
 * commit wins) then the shallow file, which cuts the parents.
 */
void commit_grafts_load(struct commit_grafts *g, git_repository *repo,
			const struct ga_oid *oid)
{
	struct ga_buf data = GA_BUF_INIT;
	const char *env = getenv("GIT_GRAFT_FILE");
	char *path, *text, *line, *common;

	if (g->loaded)
		return;
	g->loaded = 1;
	common = repo_commondir(repo);
	path = env ? ga_xstrdup(env) : ga_path_join(common, "info/grafts");
	if (ga_buf_read_file(&data, path) == 0 && data.len) {
		text = ga_xstrndup(data.ptr, data.len);
		for (line = text; *line && g->state == GRAFT_NONE;) {
			char *end = strchrnul(line, '\n'), *e;
			const char *p;
			struct ga_oid id, parent;
			struct ga_oid *parents = NULL;
			size_t nr = 0, alloc = 0;
			int bad = 0;

			if (*end)
				*end++ = '\0';
			e = line + strlen(line);
			while (e > line && ga_isspace((unsigned char)e[-1]))
				*--e = '\0';
			if (!*line || *line == '#' || oid_parse_hex(&id, oid->algo, line, &p)) {
				line = end;
				continue;
			}
			while (*p) {
				if (!ga_isspace((unsigned char)*p++) ||
				    oid_parse_hex(&parent, oid->algo, p, &p)) {
					bad = 1;
					break;
				}
				GA_ALLOC_GROW(parents, nr + 1, alloc);
				parents[nr++] = parent;
			}
			if (!bad && ga_oid_equal(&id, oid)) {
				g->state = GRAFT_PARENTS;
				g->parents = parents;
				g->nr = nr;
				parents = NULL;
			}
			free(parents);
			line = end;
		}
		free(text);
	}
	free(path);
	ga_buf_release(&data);

	path = ga_path_join(common, "shallow");
	free(common);
	if (ga_buf_read_file(&data, path) == 0 && data.len) {
		text = ga_xstrndup(data.ptr, data.len);
		for (line = text; *line;) {
			char *end = strchrnul(line, '\n');
			struct ga_oid id;

			if (*end)
				*end++ = '\0';
			if (!oid_parse_hex(&id, oid->algo, line, NULL) &&
			    ga_oid_equal(&id, oid)) {
				g->state = GRAFT_SHALLOW;
				free(g->parents);
				g->parents = NULL;
				g->nr = 0;
			}
			line = end;
		}
		free(text);
	}
	free(path);
	ga_buf_release(&data);
}

void commit_grafts_release(struct commit_grafts *g)
{
	free(g->parents);
	g->parents = NULL;
	g->nr = 0;
	g->state = GRAFT_NONE;
	g->loaded = 0;
}

/*
 * mailmap.c: git's mailmap.c (read_mailmap, map_user).
 *
 * libgit2 has a mailmap (git_mailmap_from_repository), but 1.5 does not
 * give git's answers, so this is kept: libgit2 compares addresses and
 * names case-sensitively where git ignores case ("<Author@Example.com>"
 * in .mailmap does not map "author@example.com"), it takes '#' anywhere
 * on a line for a comment where git only skips lines that start with
 * one, it follows a symlinked .mailmap that git refuses (O_NOFOLLOW),
 * and it says nothing where git prints an "error:" line.  git also cuts
 * lines at 1023 bytes (its fgets() buffer), which this reproduces.
 */
#include "mailmap.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "garchive/treeish.h"
#include "odb/odb.h"
#include "sane-ctype.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "libgit2.h"

struct mm_name {
	char *old_name;
	char *name, *email;
};

struct mm_entry {
	char *old_email;
	char *name, *email;	/* the simple (email-only) mapping */
	struct mm_name *names;
	size_t nr_names, alloc_names;
};

void mailmap_clear(struct mailmap *map)
{
	size_t i, j;

	for (i = 0; i < map->nr; i++) {
		struct mm_entry *e = &map->entries[i];

		for (j = 0; j < e->nr_names; j++) {
			free(e->names[j].old_name);
			free(e->names[j].name);
			free(e->names[j].email);
		}
		free(e->names);
		free(e->old_email);
		free(e->name);
		free(e->email);
	}
	free(map->entries);
	memset(map, 0, sizeof(*map));
}

static void replace_str(char **slot, const char *value)
{
	free(*slot);
	*slot = value ? ga_xstrdup(value) : NULL;
}

static void mailmap_add(struct mailmap *map, const char *new_name,
			const char *new_email, const char *old_name,
			const char *old_email)
{
	struct mm_entry *e = NULL;
	size_t i;

	if (!old_email) {
		old_email = new_email;
		new_email = NULL;
	}
	for (i = 0; i < map->nr; i++) {
		if (!strcasecmp(map->entries[i].old_email, old_email)) {
			e = &map->entries[i];
			break;
		}
	}
	if (!e) {
		GA_ALLOC_GROW(map->entries, map->nr + 1, map->alloc);
		e = &map->entries[map->nr++];
		memset(e, 0, sizeof(*e));
		e->old_email = ga_xstrdup(old_email);
	}
	if (!old_name) {
		if (new_name)
			replace_str(&e->name, new_name);
		if (new_email)
			replace_str(&e->email, new_email);
	} else {
		struct mm_name *n = NULL;

		for (i = 0; i < e->nr_names; i++) {
			if (!strcasecmp(e->names[i].old_name, old_name)) {
				n = &e->names[i];
				break;
			}
		}
		if (!n) {
			GA_ALLOC_GROW(e->names, e->nr_names + 1,
				      e->alloc_names);
			n = &e->names[e->nr_names++];
			memset(n, 0, sizeof(*n));
			n->old_name = ga_xstrdup(old_name);
		}
		/* A later line for the same pair replaces both fields. */
		replace_str(&n->name, new_name);
		replace_str(&n->email, new_email);
	}
}

/*
 * Parse "Name <email>" at the start of buf, in place.  Returns what
 * follows the '>' (NULL when nothing does or on a parse failure).
 */
static char *parse_name_email(char *buf, char **name, char **email,
			      int allow_empty_email)
{
	char *left, *right, *nstart, *nend;

	*name = *email = NULL;
	if (!(left = strchr(buf, '<')))
		return NULL;
	if (!(right = strchr(left + 1, '>')))
		return NULL;
	if (!allow_empty_email && left + 1 == right)
		return NULL;
	nstart = buf;
	while (ga_isspace((unsigned char)*nstart) && nstart < left)
		++nstart;
	nend = left - 1;
	while (nend > nstart && ga_isspace((unsigned char)*nend))
		--nend;
	*name = nstart <= nend ? nstart : NULL;
	*email = left + 1;
	*(nend + 1) = '\0';
	*right++ = '\0';
	return *right == '\0' ? NULL : right;
}

static void mailmap_line(struct mailmap *map, char *line)
{
	char *name1, *email1, *name2 = NULL, *email2 = NULL, *rest;

	if (line[0] == '#')
		return;
	if ((rest = parse_name_email(line, &name1, &email1, 0)))
		parse_name_email(rest, &name2, &email2, 1);
	if (email1)
		mailmap_add(map, name1, email1, name2, email2);
}

/* Lines as fgets() with git's 1024-byte buffer cuts them. */
static void mailmap_read_file_data(struct mailmap *map, const char *data,
				   size_t len)
{
	char chunk[1024];
	size_t pos = 0;

	while (pos < len) {
		size_t n = 0;

		while (pos < len && n < sizeof(chunk) - 1) {
			chunk[n++] = data[pos++];
			if (chunk[n - 1] == '\n')
				break;
		}
		chunk[n] = '\0';
		mailmap_line(map, chunk);
	}
}

static void mailmap_read_file(struct mailmap *map, const char *path,
			      const char *shown, int nofollow)
{
	struct ga_buf data = GA_BUF_INIT;
	int fd;

	fd = open(path, O_RDONLY | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		if (errno != ENOENT)
			ga_report(GA_REPORT_ERROR,
				  "unable to open mailmap at %s: %s", shown,
				  strerror(errno));
		return;
	}
	if (ga_buf_read_fd(&data, fd) == 0)
		mailmap_read_file_data(map, ga_buf_str(&data, 0), data.len);
	close(fd);
	ga_buf_release(&data);
}

static void mailmap_read_blob(struct mailmap *map, git_repository *repo,
			      const char *spec)
{
	git_odb *odb = NULL;
	struct odb_object *obj = NULL;
	struct ga_oid id;
	char *copy, *line;

	/* git's read_mailmap_blob(): a name naming nothing is no mailmap. */
	if (treeish_get_oid(&id, repo, spec) < 0) {
		ga_error_clear();
		return;
	}
	if (git_repository_odb(&odb, repo) < 0 || odb_read(&obj, odb, &id) < 0) {
		git_error_clear();
		git_odb_free(odb);
		ga_report(GA_REPORT_ERROR, "unable to read mailmap object at %s",
			  spec);
		return;
	}
	if (odb_object_type(obj) != GIT_OBJECT_BLOB) {
		ga_report(GA_REPORT_ERROR, "mailmap is not a blob: %s", spec);
		odb_object_free(obj);
		git_odb_free(odb);
		return;
	}
	/* The blob is read as a C string, line by line. */
	copy = ga_xstrndup(odb_object_data(obj), odb_object_size(obj));
	for (line = copy; *line;) {
		char *end = strchrnul(line, '\n');

		if (*end)
			*end++ = '\0';
		mailmap_line(map, line);
		line = end;
	}
	free(copy);
	odb_object_free(obj);
	git_odb_free(odb);
}

/* Where git runs: the top of the work tree, or the git directory. */
static const char *run_dir(git_repository *repo)
{
	const char *wd = git_repository_workdir(repo);

	return wd ? wd : git_repository_path(repo);
}

void mailmap_load(struct mailmap *map, git_repository *repo,
		  const struct ga_config *cfg)
{
	const char *blob = NULL, *file = NULL;
	int bare = git_repository_is_bare(repo);

	if (config_get_string(&blob, cfg, "mailmap.blob") < 0)
		blob = NULL;
	if (config_get_string(&file, cfg, "mailmap.file") < 0)
		file = NULL;
	if (!blob && bare)
		blob = "HEAD:.mailmap";
	if (!bare) {
		/* git opens it relative to the top of the work tree. */
		char *p = ga_path_join(run_dir(repo), ".mailmap");

		mailmap_read_file(map, p, ".mailmap", 1);
		free(p);
	}
	if (blob)
		mailmap_read_blob(map, repo, blob);
	if (file) {
		/*
		 * git dies when "~" cannot be expanded; garchive looks for
		 * the name as it is.
		 */
		char *expanded = ga_interpolate_path(file, 0);
		const char *name = expanded ? expanded : file;
		char *p = name[0] == '/' ? ga_xstrdup(name)
					 : ga_path_join(run_dir(repo), name);

		mailmap_read_file(map, p, file, 0);
		free(p);
		free(expanded);
	}
}

int mailmap_map(const struct mailmap *map, const char **email,
		size_t *email_len, const char **name, size_t *name_len)
{
	const struct mm_entry *e = NULL;
	const char *new_name, *new_email;
	size_t i;

	for (i = 0; i < map->nr; i++) {
		const char *k = map->entries[i].old_email;

		if (strlen(k) == *email_len &&
		    !strncasecmp(k, *email, *email_len)) {
			e = &map->entries[i];
			break;
		}
	}
	if (!e)
		return 0;
	new_name = e->name;
	new_email = e->email;
	for (i = 0; i < e->nr_names; i++) {
		const char *k = e->names[i].old_name;

		if (strlen(k) == *name_len &&
		    !strncasecmp(k, *name, *name_len)) {
			new_name = e->names[i].name;
			new_email = e->names[i].email;
			break;
		}
	}
	if (!new_name && !new_email)
		return 0;
	if (new_email) {
		*email = new_email;
		*email_len = strlen(new_email);
	}
	if (new_name) {
		*name = new_name;
		*name_len = strlen(new_name);
	}
	return 1;
}

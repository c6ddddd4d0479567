/*
 * commit.c: git's commit.c for pretty formats: find_commit_header(), and
 * the parents git reports for a commit under grafts (read_graft_file,
 * lookup_commit_graft) and a shallow file (shallow.c), which libgit2
 * 1.5 ignores.
 */
#include "commit.h"

#include "garchive/common.h"
#include "object-name.h"
#include "sane-ctype.h"

#include <stdlib.h>
#include <string.h>

#include <git2/repository.h>

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

/*
 * Grafts for this commit: $GIT_DIR/info/grafts (first line for a
 * commit wins) then the shallow file, which cuts the parents.
 */
void commit_grafts_load(struct commit_grafts *g, git_repository *repo,
			const struct ga_oid *oid)
{
	struct ga_buf data = GA_BUF_INIT;
	const char *env = getenv("GIT_GRAFT_FILE");
	char *path, *text, *line;

	if (g->loaded)
		return;
	g->loaded = 1;
	path = env ? ga_xstrdup(env)
		   : ga_path_join(git_repository_commondir(repo),
				  "info/grafts");
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

	path = ga_path_join(git_repository_commondir(repo), "shallow");
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

/*
 * pathspec.c: placeholder matching plain paths and directories only;
 * replaced by the full pathspec parser and matcher.
 */
#include "pathspec.h"
#include "garchive/common.h"

#include <stdlib.h>
#include <string.h>

struct pathspec {
	char **items;
	size_t nr;
};

int pathspec_parse(struct pathspec **out, char *const *args, size_t nr,
		   const char *toplevel, const struct pathspec_env *env)
{
	struct pathspec *ps = ga_xcalloc(1, sizeof(*ps));
	size_t i;

	(void)toplevel, (void)env;
	ps->items = ga_xcalloc(nr, sizeof(char *));
	for (i = 0; i < nr; i++) {
		if (!*args[i]) {
			pathspec_free(ps);
			return ga_error_set("empty string is not a valid "
					    "pathspec. please use . instead if "
					    "you meant to match all paths");
		}
		ps->items[ps->nr++] = ga_xstrdup(args[i]);
	}
	*out = ps;
	return 0;
}

size_t pathspec_nr(const struct pathspec *ps)
{
	return ps->nr;
}

const char *pathspec_original(const struct pathspec *ps, size_t i)
{
	return ps->items[i];
}

int pathspec_is_exclude(const struct pathspec *ps, size_t i)
{
	(void)ps, (void)i;
	return 0;
}

int pathspec_item_match(const struct pathspec *ps, size_t i,
			const char *path, int is_dir,
			pathspec_attr_fn attr, void *payload)
{
	const char *item = ps->items[i];
	size_t len = strlen(item);

	(void)is_dir, (void)attr, (void)payload;
	while (len && item[len - 1] == '/')
		len--;
	return !strncmp(path, item, len) && (!path[len] || path[len] == '/');
}

int pathspec_match(const struct pathspec *ps, const char *path, int is_dir,
		   pathspec_attr_fn attr, void *payload)
{
	size_t i;

	for (i = 0; i < ps->nr; i++)
		if (pathspec_item_match(ps, i, path, is_dir, attr, payload))
			return 1;
	return 0;
}

int pathspec_may_match_inside(const struct pathspec *ps, const char *dir)
{
	(void)ps, (void)dir;
	return 1;
}

void pathspec_free(struct pathspec *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; i < ps->nr; i++)
		free(ps->items[i]);
	free(ps->items);
	free(ps);
}

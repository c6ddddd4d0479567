/*
 * Fuzz the pathspec parser and matcher: magic (:(glob,icase,exclude,
 * attr:...,prefix:N), short magic :!/^:/, the environment switches, and
 * matching of files, directories and "may match inside".  The first
 * byte holds the switches; the rest is two parts split at NUL: the
 * pathspec arguments and the paths to test, one a line each.
 */
#include "fuzz.h"

#include "attr.h"
#include "pathspec.h"

/* Attributes for :(attr:...) items: a fixed function of the path. */
static int attr_fn(struct attr_value *out, const char *path, int is_dir,
		   const char *const *names, size_t nr, void *payload)
{
	size_t i, len = strlen(path);

	(void)payload;
	for (i = 0; i < nr; i++) {
		FUZZ_CHECK(names[i] != NULL);
		out[i].state = (enum attr_state)((len + i + is_dir) % 4);
		out[i].value = out[i].state == ATTR_VALUE ? path : NULL;
	}
	return 0;
}

static char **lines(const char *text, size_t *nr)
{
	char **v = NULL;
	size_t alloc = 0;
	const char *p = text, *nl;

	*nr = 0;
	while (*nr < 16) {
		nl = strchr(p, '\n');
		GA_ALLOC_GROW(v, *nr + 1, alloc);
		v[(*nr)++] = nl ? ga_xstrndup(p, (size_t)(nl - p))
				: ga_xstrdup(p);
		if (!nl)
			break;
		p = nl + 1;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pathspec_env env = { 0 };
	struct pathspec *ps = NULL;
	char **parts, *block, **args, **paths;
	size_t n, nr_args, nr_paths, i, j;
	int r;

	if (!size || fuzz_too_many_stars(data, size))
		return 0;
	env.glob = data[0] & 1;
	env.noglob = (data[0] >> 1) & 1;
	env.icase = (data[0] >> 2) & 1;
	env.literal = (data[0] >> 3) & 1;
	env.bare = (data[0] >> 4) & 1;
	n = fuzz_split(&parts, &block, data + 1, size - 1, '\0', 2);
	args = lines(parts[0], &nr_args);
	paths = lines(n > 1 ? parts[1] : "a/b\nx.c\nsub/", &nr_paths);

	r = pathspec_parse(&ps, args, data[0] & 0x20 ? 0 : nr_args,
			   "/nonexistent-top/repo", &env);
	if (r == 0) {
		FUZZ_CHECK(pathspec_nr(ps) <= nr_args);
		for (i = 0; i < pathspec_nr(ps); i++)
			FUZZ_CHECK(pathspec_original(ps, i) != NULL);
		for (j = 0; j < nr_paths; j++) {
			int is_dir = (int)(j & 1);

			r = pathspec_match(ps, paths[j], is_dir, attr_fn,
					   NULL);
			FUZZ_CHECK(r == 0 || r == 1);
			r = pathspec_may_match_inside(ps, paths[j]);
			FUZZ_CHECK(r >= 0);
			for (i = 0; i < pathspec_nr(ps); i++) {
				r = pathspec_item_match(ps, i, paths[j],
							is_dir, attr_fn,
							NULL);
				FUZZ_CHECK(r >= 0);
				FUZZ_CHECK(pathspec_item_may_match_inside(
						ps, i, paths[j]) >= 0);
			}
		}
	} else {
		FUZZ_CHECK(r == GA_ERROR && *ga_error_message());
	}
	pathspec_free(ps);
	ga_error_clear();
	for (i = 0; i < nr_args; i++)
		free(args[i]);
	for (i = 0; i < nr_paths; i++)
		free(paths[i]);
	free(args);
	free(paths);
	free(parts);
	free(block);
	return 0;
}

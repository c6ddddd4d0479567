/*
 * Fuzz the gitattributes parser and matcher.  The input is three parts
 * split at NUL bytes: the top-level .gitattributes, the one in "a/", and
 * paths to look up, one a line.  The line parser is static in attr.c,
 * so the files come through the read_dir callback of a real stack and
 * the lookups go through attr_check().  The first byte picks blob or
 * work-tree parsing and case folding.
 */
#include "fuzz.h"

#include "attr.h"

struct files {
	const char *top;
	const char *sub;
};

static int read_dir(struct ga_buf *out, const char *dir, void *payload)
{
	const struct files *f = payload;

	if (!*dir)
		ga_buf_puts(out, f->top);
	else if (!strcmp(dir, "a"))
		ga_buf_puts(out, f->sub);
	else
		return GA_ENOTFOUND;
	return 0;
}

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)kind;
	(void)payload;
	FUZZ_CHECK(msg != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *names[] = {
		"export-ignore", "export-subst", "text", "eol", "crlf",
		"diff", "binary", "filter", "ident", "working-tree-encoding",
		"foo", "", "-bad", NULL
	};
	struct attr_stack_options opts = { 0 };
	struct attr_stack *stack = NULL;
	struct attr_value values[GA_ARRAY_SIZE(names)];
	struct files files;
	char **parts, *block, *paths, *line, *next;
	size_t n, i, nr = GA_ARRAY_SIZE(names);

	if (!size || fuzz_too_many_stars(data, size))
		return 0;
	ga_set_report_handler(report, NULL);
	n = fuzz_split(&parts, &block, data + 1, size - 1, '\0', 3);
	files.top = parts[0];
	files.sub = n > 1 ? parts[1] : "";
	opts.read_dir = read_dir;
	opts.payload = &files;
	opts.worktree = data[0] & 1;
	opts.ignore_case = (data[0] >> 1) & 1;
	FUZZ_CHECK(attr_stack_new(&stack, &opts) == 0);

	paths = ga_xstrdup(n > 2 ? parts[2] : "a/b.c\nx\na/\nA/B.C");
	for (line = paths; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* One name from the input too, valid or not. */
		names[nr - 1] = line;
		memset(values, 0xa5, sizeof(values));
		FUZZ_CHECK(attr_check(values, stack, line, data[0] & 4 ? 1 : 0,
				      names, nr) == 0);
		for (i = 0; i < nr; i++) {
			FUZZ_CHECK(values[i].state <= ATTR_VALUE);
			if (values[i].state == ATTR_VALUE)
				FUZZ_CHECK(values[i].value != NULL &&
					   strlen(values[i].value) < size);
		}
	}
	names[nr - 1] = NULL;
	attr_stack_free(stack);
	ga_error_clear();
	free(paths);
	free(parts);
	free(block);
	return 0;
}

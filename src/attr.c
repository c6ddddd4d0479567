/*
 * attr.c: placeholder that knows no attributes; replaced by the
 * gitattributes reader.
 */
#include "attr.h"
#include "garchive/common.h"

#include <stdlib.h>
#include <string.h>

struct attr_stack {
	int unused;
};

int attr_stack_new(struct attr_stack **out,
		   const struct attr_stack_options *opts)
{
	(void)opts;
	*out = ga_xcalloc(1, sizeof(**out));
	return 0;
}

int attr_check(struct attr_value *out, struct attr_stack *stack,
	       const char *path, int is_dir,
	       const char *const *names, size_t nr)
{
	(void)stack, (void)path, (void)is_dir, (void)names;
	memset(out, 0, nr * sizeof(*out));
	return 0;
}

void attr_stack_free(struct attr_stack *stack)
{
	free(stack);
}

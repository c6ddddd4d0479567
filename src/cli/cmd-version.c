/*
 * cmd-version.c: `garchive --version`.  The version is defined here
 * (the Makefile reads it from this file).
 */
#include "run.h"
#include "garchive/common.h"
#include "run-command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#ifndef GARCHIVE_VERSION
#define GARCHIVE_VERSION "0.1.0"
#endif

/*
 * The first line of `gzip --version`, from the gzip that tgz and tar.gz
 * run, or NULL when it cannot be run.
 */
static char *gzip_version(void)
{
	const char *argv[] = { "gzip", "--version", NULL };
	struct child c = CHILD_INIT;
	struct ga_buf out = GA_BUF_INIT;
	char *line = NULL;
	int code = -1;

	c.argv = argv;
	c.null_in = c.null_err = c.pipe_out = 1;
	if (child_start(&c) < 0) {
		ga_error_clear();
		return NULL;
	}
	(void)ga_buf_read_fd(&out, c.out);
	(void)child_finish(&c, &code, NULL);
	/* "gzip 1.12" */
	if (code == 0 && out.len) {
		const char *v = !strncmp(out.ptr, "gzip ", 5) ? out.ptr + 5
							      : out.ptr;

		line = ga_xstrndup(v, strcspn(v, "\n"));
	}
	ga_buf_release(&out);
	return line;
}

/*
 * "garchive --version": the version, and what the bytes depend on: the
 * libgit2 that reads the objects, the zlib that deflates zip members
 * (and tgz without gzip), and the gzip that compresses tgz.
 * --build-options (git's word) is accepted and changes nothing.
 */
void cmd_version(void)
{
	int major, minor, rev;
	char *gzip = gzip_version();

	git_libgit2_version(&major, &minor, &rev);
	printf("garchive version %s\n", GARCHIVE_VERSION);
	printf("libgit2: %d.%d.%d\n", major, minor, rev);
	printf("zlib: %s\n", zlibVersion());
	printf("gzip: %s\n", gzip ? gzip : "not found (tgz falls back to "
	       "the in-process deflater)");
	free(gzip);
}

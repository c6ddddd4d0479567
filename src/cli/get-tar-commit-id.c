/*
 * get-tar-commit-id.c: `git get-tar-commit-id`, as git's
 * builtin/get-tar-commit-id.c: the commit id that git archive wrote
 * into the pax global header of a tar (see get-tar-commit-id.h).
 */
#include "get-tar-commit-id.h"
#include "run.h"
#include "garchive/common.h"
#include "pktline.h"
#include "ustar.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *get_tar_commit_id_usage(void)
{
	return "usage: git get-tar-commit-id\n";
}

int get_tar_commit_id(int *found, int in_fd, int out_fd)
{
	char buf[2 * USTAR_RECORD];
	char content[USTAR_RECORD + 1];
	const char *comment;
	ssize_t got;
	char *end;
	long len;
	int error;

	*found = 0;
	got = ga_read_full(in_fd, buf, sizeof(buf));
	if (got < 0)
		return ga_error_errno(errno, "git get-tar-commit-id: "
				      "read error");
	/*
	 * git reports a stale errno here; in practice it is the ENOENT
	 * left by its search for configuration files.
	 */
	if ((size_t)got != sizeof(buf))
		return ga_error_errno(ENOENT, "git get-tar-commit-id: EOF "
				      "before reading tar header");
	/* The ustar typeflag: 'g' is a pax global header. */
	if (buf[H_TYPEFLAG] != 'g')
		return 0;

	/* One extended header record: "<len> comment=<hex>\n". */
	memcpy(content, buf + USTAR_RECORD, USTAR_RECORD);
	content[USTAR_RECORD] = '\0';
	errno = 0;
	len = strtol(content, &end, 10);
	if (errno == ERANGE || end == content || len < 0)
		return 0;
	if (strncmp(end, " comment=", 9))
		return 0;
	comment = end + 9;
	len -= comment - content;
	/* 40 or 64 hex digits (SHA-1 or SHA-256) and the newline. */
	if (len < 1 || !(len % 2) || ((len - 1) / 2 != 20 &&
				       (len - 1) / 2 != 32))
		return 0;
	if (comment + len > content + USTAR_RECORD)
		return 0;
	error = pkt_write_all(out_fd, comment, (size_t)len);
	if (error == -1)
		return ga_error_errno(errno, "git get-tar-commit-id: write "
				      "error");
	if (error)
		return error;
	*found = 1;
	return 0;
}

int cmd_get_tar_commit_id(struct run *r)
{
	int error, found;

	if ((error = run_usage_if_asked(r, get_tar_commit_id_usage())) < 0)
		return error;
	if (r->global.argc != 1)
		return run_usage(r, get_tar_commit_id_usage());
	if ((error = get_tar_commit_id(&found, 0, 1)) < 0)
		return error;
	/* Not an archive of a commit: git exits 1 and says nothing. */
	if (!found)
		r->exit_status = 1;
	return 0;
}

/*
 * cmd-upload-archive.c: the server side of --remote, as git's
 * builtin/upload-archive.c: `upload-archive` (also when installed as
 * git-upload-archive) relays its writer, `upload-archive--writer`, which
 * runs the archive pipeline with the client's arguments.
 */
#include "run.h"
#include "garchive/common.h"
#include "garchive/remote.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * upload-archive <dir>: relay a writer, started as
 * "<us> [-c ...] upload-archive--writer <args>", to the client.
 */
int cmd_upload_archive(struct run *r)
{
	struct remote_server_options o;
	const char **argv;
	char self[PATH_MAX];
	ssize_t n;
	size_t i, j = 0;
	int error;

	if ((error = run_usage_if_asked(r,
					remote_upload_archive_usage())) < 0)
		return error;
	/* Our own executable, even when started as git-upload-archive. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = '\0';
	argv = ga_xcalloc(2 * r->global.nr_config + (size_t)r->global.argc + 2,
			  sizeof(*argv));
	argv[j++] = n > 0 ? self : r->self;
	for (i = 0; i < r->global.nr_config; i++) {
		argv[j++] = "-c";
		argv[j++] = r->global.config[i];
	}
	argv[j++] = "upload-archive--writer";
	for (i = 1; i < (size_t)r->global.argc; i++)
		argv[j++] = r->global.argv[i];
	argv[j] = NULL;

	memset(&o, 0, sizeof(o));
	o.writer_argv = argv;
	o.out_fd = 1;
	error = remote_upload_archive(&o);
	free(argv);
	return error;
}

/*
 * upload-archive--writer <dir>: the archive a local run in <dir> would
 * write, with the client's arguments (read from stdin as pkt-lines and
 * parsed by pass 2 only, so -o and --remote are refused as git does)
 * and the restrictions of remote mode.
 */
int cmd_upload_archive_writer(struct run *r)
{
	mode_t umask_bits = umask(0);
	size_t i;
	int error;

	umask(umask_bits);
	if ((error = run_usage_if_asked(r,
					remote_upload_archive_usage())) < 0)
		return error;
	if (r->global.argc != 2)
		return run_usage(r, remote_upload_archive_usage());
	if ((error = remote_enter_repo(&r->repo, r->global.argv[1],
			(const char *const *)r->global.config,
			r->global.nr_config)) < 0)
		return error;
	r->cwd_prefix = ga_xstrdup("");
	if ((error = run_load_settings(r, umask_bits)) < 0)
		return error;
	if ((error = remote_read_arguments(&r->sent_args, &r->nr_sent_args,
					   0)) < 0)
		return error;

	/*
	 * What pass 1 would leave for pass 2, with nothing taken out; the
	 * options own their copies, as after cli_parse_pass1().  The
	 * client gets git's usage text, as from git's server.
	 */
	r->serving = 1;
	r->usage = cli_git_usage();
	r->opts.level = -1;
	r->opts.pass1_args = ga_xcalloc(r->nr_sent_args + 1, sizeof(char *));
	for (i = 0; i < r->nr_sent_args; i++)
		r->opts.pass1_args[i] = ga_xstrdup(r->sent_args[i]);
	r->opts.nr_pass1_args = r->nr_sent_args;
	return run_archive_from_options(r);
}

/*
 * cmd-gzip.c: `garchive gzip`, the built-in gzip as a command (the
 * engine and its options are in src/gzip).
 */
#include "run.h"
#include "gzip-options.h"

#include <stdio.h>

/*
 * gzip [options] [<file>...]: the built-in gzip as a filter.  Its
 * failures are reported as gzip reports them (see main()).
 */
int cmd_gzip(struct run *r)
{
	struct gzip_command cmd;
	struct gzip_stats st;
	int error;

	if ((error = gzip_command_parse(&cmd, r->global.argc,
					r->global.argv)) < 0)
		goto done;
	if (cmd.help) {
		fputs(gzip_command_usage(), stdout);
		goto done;
	}
	/* gzip writes to a closed stdout and fails: so do we. */
	error = gzip_command_run(&cmd, r->stdout_closed ? -1 : 1, &st,
				 &r->exit_status);
	if (!error && cmd.stats)
		fprintf(stderr, "gzip stats: input %llu parsed %llu "
			"speculated %llu used %llu resynced %llu "
			"fallbacks %llu (%llu bytes) sync distance %llu "
			"(max %llu) blocks %llu\n",
			(unsigned long long)st.input,
			(unsigned long long)st.parsed,
			(unsigned long long)st.speculated,
			(unsigned long long)st.used,
			(unsigned long long)st.resynced,
			(unsigned long long)st.fallbacks,
			(unsigned long long)st.fallback_bytes,
			(unsigned long long)st.sync_distance,
			(unsigned long long)st.max_sync_distance,
			(unsigned long long)st.blocks);
done:
	gzip_command_release(&cmd);
	return error;
}

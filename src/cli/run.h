/*
 * run.h: one run of garchive, shared by main.c and the command files
 * (cmd-*.c), as git's builtin/ files share git.c's setup.  Private to
 * src/cli: the stages never see a struct run.
 */
#ifndef GARCHIVE_RUN_H
#define GARCHIVE_RUN_H

#include <stdint.h>
#include <sys/types.h>

#include "garchive/archive.h"
#include "garchive/cli.h"
#include "garchive/format.h"
#include "garchive/treeish.h"
#include "garchive/verify.h"
#include "garchive/walk.h"
#include "output.h"

#include "libgit2.h"

/* Everything one run owns, released in one place. */
struct run {
	struct cli_global global;
	struct archive_options opts;
	git_repository *repo;
	struct ga_config *config;
	struct format_list formats;
	char *cwd_prefix;	/* "" or "sub/dir/" */
	int treeish_keep_prefix; /* git 2.41's subdirectory behaviour */
	char *output_path;	/* -o file, as opened */
	struct output out;
	struct treeish treeish;
	struct walk *walk;
	struct sink *sink;
	struct archive_writer *writer;
	struct progress *progress;	/* NULL when none is shown */
	struct submodules *submodules;	/* --recurse-submodules */
	uint64_t files, bytes;		/* what the meter counts */
	struct walk_env *walk_env;	/* what the walk's options point at */
	char *dubious;		/* a repository refused for its owner */

	/* garchive verify */
	struct verify_options vopts;
	struct verify *verify;

	/* Serving a --remote client (upload-archive--writer). */
	int serving;
	int allow_unreachable;	/* uploadArchive.allowUnreachable */
	char **sent_args;	/* the client's arguments */
	size_t nr_sent_args;

	int stdout_closed;	/* before sanitize_stdfds() opened it */
	const char *self;	/* argv[0], to start ourselves again */
	const char *usage;	/* usage text of a subcommand, or NULL */
	int exit_status;	/* non-zero status of a successful run */
};

/* What more than one command does with a run (run.c). */
int run_open_repository(struct run *r);
int run_load_settings(struct run *r, mode_t umask_bits);
int run_usage(struct run *r, const char *usage);
int run_usage_if_asked(struct run *r, const char *usage);
void run_release(struct run *r);

/* The archive pipeline's steps, which verify reuses (cmd-archive.c). */
int run_resolve_treeish(struct run *r);
int run_resolve_threads(struct run *r);
int run_fill_walk_options(struct run *r, struct walk_options *wo);
void run_fill_archive_args(struct run *r, struct archive_args *args,
			   char *commit_hex);
void run_start_progress(struct run *r, int setting, const char *title,
			int out_fd);
void run_count_entry(struct run *r, const struct archive_entry *entry);
void run_finish_progress(struct run *r);
int run_archive_from_options(struct run *r);

/* What a command adds to the pipeline's loop over the walk's entries. */
struct run_pipeline {
	/* Around each entry's trip through the writer (may be NULL). */
	void (*before)(void *payload, struct archive_entry *entry);
	void (*after)(void *payload, struct archive_entry *entry);
	void *payload;
	int progress;		/* the meter's setting, as --progress */
	const char *title;	/* the meter's title */
	int progress_fd;	/* where the archive goes, or -1 */
};

/*
 * The pipeline after the walk: the format's writer into `sink`, every
 * entry of r->walk through it, then the writer and the sink finished.
 * A local archive and verify's expected archive both go through here.
 */
int run_write_pipeline(struct run *r, struct sink *sink,
		       const struct archive_args *args,
		       const struct run_pipeline *p);

/* The commands, one file each, as git's builtin/. */
int cmd_archive(struct run *r);			/* cmd-archive.c */
int cmd_upload_archive(struct run *r);		/* cmd-upload-archive.c */
int cmd_upload_archive_writer(struct run *r);	/* cmd-upload-archive.c */
int cmd_get_tar_commit_id(struct run *r);	/* get-tar-commit-id.c */
int cmd_verify(struct run *r);			/* cmd-verify.c */
int cmd_gzip(struct run *r);			/* cmd-gzip.c */
int cmd_http_backend(struct run *r);		/* cmd-http-backend.c */
void cmd_version(void);				/* cmd-version.c */

#endif

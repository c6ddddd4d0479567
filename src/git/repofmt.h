/*
 * repofmt.h: the repository format as git reads it (setup.c's
 * check_repository_format_gently()): core.repositoryformatversion and
 * the extensions.* of the common dir's config.
 *
 * git reads version 0 and 1.  Extensions it knows in any version:
 * noop, preciousobjects, partialclone, worktreeconfig; in version 1
 * only: noop-v1, objectformat, refstorage (git 2.45 and later).  An
 * unknown extension is refused in version 1 and ignored in version 0; a
 * version-1 extension in version 0 is refused.  The result says which
 * hash names the objects, which format keeps the refs and which reader
 * serves them: that choice is made here, once, when the repository is
 * opened.
 *
 * The reader: libgit2 1.5 reads SHA-1 objects and files refs only, so
 * garchive's own object store (odb/store.h) and ref store (refs/refs.h)
 * serve every other repository.  In a SHA-1 repository libgit2's reads
 * are used, over garchive's store, unless the test knob
 * GARCHIVE_TEST_READER is "garchive" ("libgit2", unset or anything else:
 * the choice above): then garchive's stores serve it as they serve a
 * SHA-256 one, so that the whole suite can run through them (make
 * test-own-reader).  Nothing above the stores asks which one serves.
 */
#ifndef GARCHIVE_REPOFMT_H
#define GARCHIVE_REPOFMT_H

#include "garchive/common.h"
#include "odb/oid.h"
#include "refs/refs.h"

/* Who reads the objects and refs of a repository (see above). */
enum repofmt_reader {
	REPOFMT_READER_LIBGIT2,		/* libgit2's reads, over our store */
	REPOFMT_READER_GARCHIVE		/* garchive's stores, read directly */
};

struct repofmt {
	int version;			/* -1: no config, or no version */
	enum ga_hash_algo hash;
	enum refs_storage refs;
	enum repofmt_reader reader;	/* from hash and the test knob */
	struct ga_strvec unknown;	/* extensions git does not know */
	struct ga_strvec v1_only;	/* known, but for version 1 only */
};

/*
 * Let libgit2 open the repositories git opens: it refuses an extension
 * it does not know, and 1.5 knows only noop.  Call once before any
 * repository is opened; garchive's own check (repofmt_verify) decides.
 */
void repofmt_register_extensions(void);

/*
 * Read the format of the repository whose git dir is `git_dir`, from
 * `<common dir>/config`; `shown` is how messages name the git dir
 * (NULL: `git_dir`).  Returns 0, or GA_ERROR with git's message: "bad
 * config line <n> in file <shown>/config" after its "error: invalid
 * value for 'extensions.objectformat': '<v>'", a version that is no
 * number.  repofmt_release() frees it.
 */
int repofmt_read(struct repofmt *fmt, const char *git_dir, const char *shown);
void repofmt_release(struct repofmt *fmt);

/*
 * git's verify_repository_format(), then what garchive cannot read yet.
 * Returns 0 or GA_ERROR with git's message ("Expected git repo version
 * <= 1, found <n>", "unknown repository extension found:\n\t<ext>",
 * "repo version is 0, but v1-only extension found:\n\t<ext>").
 */
int repofmt_verify(const struct repofmt *fmt);

/*
 * Read and verify in one step, for a repository libgit2 has opened or
 * failed to open.  `discovered` words the failure as git's discovery
 * does: a warning, "warning: ignoring git dir '<shown>': ..." and the
 * fatal message; otherwise (GIT_DIR) a warning and the fatal message.
 */
int repofmt_check(struct repofmt *fmt, const char *git_dir, const char *shown,
		  int discovered);

/*
 * git's get_common_dir(): the directory named by the "commondir" file
 * of `git_dir` (a linked worktree's), else `git_dir` itself.  Free it.
 */
char *repofmt_common_dir(const char *git_dir);

/*
 * The hash that names the objects of the repository at `git_dir`, whose
 * format was checked already: what its object database is opened with
 * (odb_install()).  SHA-1 when the format cannot be read.
 */
enum ga_hash_algo repofmt_hash(const char *git_dir);

/*
 * The reader of the repository at `git_dir`, whose format was checked
 * already: the `reader` repofmt_read() gives, libgit2's (SHA-1) when the
 * format cannot be read and the knob does not ask for garchive's.
 */
enum repofmt_reader repofmt_reader(const char *git_dir);

#endif

/*
 * verify.h: `garchive verify`, is this archive what that tree-ish gives?
 *
 * A run has two halves, wired by main:
 *
 *  1. verify_open() reads the start of the file: what it is (tar, zip,
 *     a compressed tar), the commit it records, its first entry (the
 *     prefix, the time and the umask it was written with).
 *  2. main resolves the tree-ish and writes the archive garchive would
 *     write, with the time and umask the file has, into
 *     verify_expect_sink(), passing each entry past
 *     verify_expect_entry() / verify_expect_done(): what is kept is a
 *     digest of the whole archive, a CRC of each MiB of it and, per
 *     entry, its path, kind and content digest.  Never the bytes.
 *  3. verify_check() reads the whole file once: its digest, its
 *     decompressed bytes compared with the expected ones MiB by MiB,
 *     the candidate compressors compared with the file, and every entry
 *     compared with the expected one of the same path.
 *  4. verify_report() prints the answer and gives the exit status.
 *
 * Memory grows with the number of entries of the tree-ish (as the zip
 * writer's central directory does), never with the size of the content
 * of either archive.  What the file holds is bounded by what is
 * expected: twice the expected size plus 64 MiB, after which reading
 * stops and the answer is "different" (a decompression bomb ends there).
 */
#ifndef GARCHIVE_VERIFY_H
#define GARCHIVE_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <git2/types.h>
#include "odb/oid.h"

struct archive_args;
struct archive_entry;
struct format;
struct format_list;
struct progress;
struct sink;

/* The command line, as cli_parse_verify() fills it. */
struct verify_options {
	char *file;		/* path, "-" for standard input */
	char *treeish;		/* NULL: the commit recorded in the file */
	char *prefix;		/* NULL: found from the entries */
	char *format;		/* NULL: from the file's name and content */
	char **pathspecs;
	size_t nr_pathspecs;
	int verbose;
	int digest;
	int progress;		/* -1 automatic, 0 off, 1 on */
};

void verify_options_release(struct verify_options *o);

/* The three answers that mean "yes", and the one that means "no". */
enum verify_verdict {
	VERIFY_IDENTICAL,
	VERIFY_SAME_TAR,	/* same tar, other compression */
	VERIFY_SAME_FILES,	/* same files, other archive bytes */
	VERIFY_DIFFERENT
};

struct verify;

/*
 * Open `opts->file` and read its start.  `formats` is the format table
 * (for --format and the file name); `tar_umask` the configured one.
 * Errors (GA_ERROR): "could not open '<file>': ...", "'<file>' is not a
 * tar or zip archive", "unknown format '<fmt>'", "'<file>' is a zip
 * archive, not <fmt>", and the decompressor's.
 */
int verify_open(struct verify **out, const struct verify_options *opts,
		const struct format_list *formats, unsigned int tar_umask);
void verify_free(struct verify *v);

/*
 * The commit id the file records (pax comment or zip comment), or NULL.
 * A zip read from a pipe has its comment at the end: NULL then.
 */
const char *verify_recorded_commit(const struct verify *v);

/* Whether the file is a zip (else a tar, compressed or not). */
int verify_is_zip(const struct verify *v);

/*
 * What main needs to write the expected archive, once the tree-ish is
 * resolved: the format to write (tar or zip), the prefix (given or
 * found from the file's first entry: its first directory, unless the
 * tree's root has an entry of that name), and the archive arguments the
 * file was written with.
 */
struct verify_plan {
	const char *treeish_name;	/* as named, for the command shown */
	const struct ga_oid *tree_id;		/* the archived tree */
	const char *commit_hex;		/* NULL for a tree */
	int64_t default_mtime;		/* what garchive would stamp */
	git_repository *repo;
};

/*
 * Decide the prefix (*prefix, owned by v) and adjust `args` (filled by
 * main as for an archive) to the time and umask found in the file.
 * Returns 0 or GA_ERROR.
 */
int verify_prepare(struct verify *v, const struct verify_plan *plan,
		   struct archive_args *args, const char **prefix);

/*
 * Show a meter while the file is read (counting its files against the
 * expected ones); v takes `p` over, finishes it after verify_check()
 * and frees it.
 */
void verify_set_progress(struct verify *v, struct progress *p);

/* Where the expected archive is written (owned by v). */
struct sink *verify_expect_sink(struct verify *v);

/* Around the writer's add() of each expected entry. */
void verify_expect_entry(struct verify *v, struct archive_entry *e);
void verify_expect_done(struct verify *v, struct archive_entry *e);

/*
 * Read the file and compare.  Returns 0 (the answer is ready) or
 * GA_ERROR for a file that cannot be read as an archive ("truncated tar
 * archive: ...", "CRC mismatch in ...", a decompressor's failure).
 */
int verify_check(struct verify *v);

/* Print the answer on `out`; returns the verdict. */
enum verify_verdict verify_report(struct verify *v, FILE *out);

#endif

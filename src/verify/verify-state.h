/*
 * verify-state.h: what the three parts of `garchive verify` share: the
 * state of one run (struct verify) and the few helpers more than one
 * part calls.  verify.c opens the file, makes the plan and records the
 * expected archive; verify-check.c reads the file and compares;
 * verify-report.c prints the answer.  Private to those three files.
 */
#ifndef GARCHIVE_VERIFY_STATE_H
#define GARCHIVE_VERIFY_STATE_H

#include "garchive/verify.h"
#include "garchive/archive.h"
#include "garchive/common.h"
#include "garchive/sink.h"
#include "garchive/format.h"
#include "bytesrc.h"
#include "progress.h"
#include "recompress.h"
#include "sha256.h"
#include "tar-read.h"
#include "unpack.h"
#include "zip-read.h"

#include <stddef.h>
#include <stdint.h>

#include "libgit2.h"
#include "odb/oid.h"

/* Granularity of the early comparison of the two tars. */
#define VERIFY_CHUNK		((size_t)1 << 20)
/* How much of the decompressed start is read before the tree-ish. */
#define VERIFY_PEEK		((size_t)64 << 10)
/* Paths listed per kind of difference without -v. */
#define VERIFY_LIST_MAX		20
/* What the file may hold beyond twice the expected size. */
#define VERIFY_SLACK		((uint64_t)64 << 20)
/* Bytes after a tar's end record that are still read. */
#define VERIFY_TRAILER_MAX	((uint64_t)1 << 20)
#define VERIFY_BUF		((size_t)64 << 10)

/* ---- the expected entries ---- */

struct expect {
	char *path;
	size_t path_len;
	uint32_t mode;		/* ARCHIVE_MODE_* */
	uint64_t size;		/* content, or link target length */
	unsigned char sha[GA_SHA256_LEN];
	size_t index;		/* in the expected archive's order */
	int seen;
};

struct table {
	struct expect **slots;
	size_t cap, nr;
};

/* ---- lists of differences ---- */

enum list_kind {
	LIST_ONLY_ARCHIVE,
	LIST_ONLY_TREE,
	LIST_CONTENT,
	LIST_MODE,
	LIST_LINK,
	LIST_TWICE,
	LIST_DIR_ONLY_ARCHIVE,
	LIST_DIR_ONLY_TREE,
	LIST_NR
};

struct path_list {
	char **items;
	size_t nr, alloc;
	uint64_t count;
};

/* ---- the run ---- */

struct verify;

struct expect_sink {
	struct sink base;
	struct verify *v;
};

struct decoded {
	struct byte_source base;
	struct verify *v;
};

/* A streamed expected blob, hashed as the writer reads it. */
struct hash_stream {
	struct entry_stream base;
	struct entry_stream *inner;
	struct ga_sha256 *sha;
};

/* Running CRCs of MiB-sized chunks of a stream. */
struct chunker {
	uint32_t crc;
	size_t fill;
	size_t index;
};

struct verify {
	const struct verify_options *opts;
	const struct format_list *formats;
	unsigned int cfg_umask;

	struct unpack_input in;
	enum unpack_kind kind;
	int zip;
	struct unpack_decoder *dec;
	struct byte_source *dsrc;	/* decompressed bytes (or the file) */
	char *fmt_name;			/* the format the command names */
	const struct format *fmt;
	int fmt_gzip;			/* the format compresses with gzip */

	struct recompress *rc;
	struct recompress_candidate cands[20];
	size_t nr_cands;
	char *labels[20];
	const char *gzip_skip;		/* why no gzip candidate was tried */

	/* The decompressed start, read before the tree-ish is known. */
	unsigned char *peek;
	size_t peek_len, peek_pos;
	char *recorded_commit;
	char *first_path;
	int have_mtime, have_umask, have_dos;
	int64_t file_mtime;
	unsigned int file_umask;
	uint16_t first_dos_time, first_dos_date;

	/* The plan, copied: main's lives on its stack. */
	struct verify_plan plan_copy;
	const struct verify_plan *plan;
	struct ga_oid tree_id;
	char *treeish_name, *commit_hex;
	char *prefix;
	int prefix_found;
	int64_t mtime;			/* used for the expected archive */
	unsigned int umask_used;
	int mtime_changed, umask_changed, tz_changed;
	int64_t tz_offset;		/* east of UTC, for zip */

	/* The expected archive. */
	struct expect_sink esink;
	struct table table;
	size_t nr_expected, nr_expected_files;
	uint64_t expected_content;
	struct ga_sha256 e_sha;
	uint64_t e_len;
	uint32_t *e_crcs;
	size_t nr_e_crcs, alloc_e_crcs;
	struct chunker e_chunk;
	struct expect *current;
	struct hash_stream hstream;
	struct ga_sha256 entry_sha;

	/* Reading the file. */
	struct decoded dstream;
	struct ga_sha256 a_sha, d_sha;
	uint64_t d_len, budget;
	struct chunker d_chunk;
	int tar_differs;
	uint64_t first_diff;		/* start of the first differing MiB */
	int over_budget;
	char *over_budget_msg;
	unsigned char *buf;
	unsigned char a_digest[GA_SHA256_LEN], d_digest[GA_SHA256_LEN];
	unsigned char e_digest[GA_SHA256_LEN];
	int checked;

	/* What was found. */
	struct path_list lists[LIST_NR];
	size_t nr_entries, nr_dirs;
	size_t last_index;
	int have_last;
	char *misordered;		/* first entry out of order */
	char *mtime_odd, *perm_odd, *owner_odd, *attr_odd;
	unsigned tar_flags;		/* TAR_READ_* seen */
	struct tar_read_summary tsum;
	uint64_t trailer_len;
	int trailer_zero, trailer_more;
	struct zip_read_summary zsum;
	int zip_no_ut, zip_extra_other, zip_descriptors;
	const struct unpack_gzip_info *gz;
	int winner;
	struct progress *progress;
};

/* The expected entry of `path`, or NULL. */
struct expect *verify_expect_get(struct table *t, const char *path,
				 size_t len);

/*
 * Feed `len` bytes to the running CRCs of `c`, calling `done` for each
 * whole chunk of VERIFY_CHUNK bytes.
 */
void verify_chunk_update(struct chunker *c, const unsigned char *p,
			 size_t len,
			 void (*done)(struct verify *, uint32_t, size_t),
			 struct verify *v);

/*
 * A path as git's quote_path() shows one with core.quotePath off
 * (ga_quote_c()): in double quotes with C escapes when it has control
 * characters, quotes or backslashes (or a NUL, which tar can hold), as
 * is otherwise.  malloc'd.
 */
char *verify_quote_path(const char *p, size_t len);

#endif

/*
 * Unit tests of the tar writer: header fields, checksums, pax records
 * (including lengths that cross a digit boundary), path splitting,
 * time clamping and the trailer rule.  Entries are built by hand and
 * written into a memory sink.
 */
#include "memsink.h"
#include "tap.h"

#include "garchive/archive.h"
#include "garchive/common.h"
#include "garchive/sink.h"

#include <stdlib.h>
#include <string.h>

#define HEX40 "0123456789abcdef0123456789abcdef01234567"

static void default_args(struct archive_args *a)
{
	memset(a, 0, sizeof(*a));
	a->mtime = 1112911993;
	a->level = -1;
	a->tar_umask = 002;
}

static struct archive_entry file_entry(const char *path, const char *data)
{
	struct archive_entry e;

	memset(&e, 0, sizeof(e));
	e.path = path;
	e.path_len = strlen(path);
	e.mode = ARCHIVE_MODE_FILE;
	e.oid_hex = HEX40;
	e.data = (unsigned char *)data;
	e.size = strlen(data);
	return e;
}

/* Write `n` entries with `args` and return the archive bytes. */
static struct ga_buf write_tar(const struct archive_args *args,
			       struct archive_entry *entries, size_t n)
{
	struct ga_buf out = GA_BUF_INIT;
	struct mem_sink m;
	struct archive_writer *w = NULL;
	size_t i;

	mem_sink_init(&m, &out);
	if (tar_writer_new(&w, &m.base, args) < 0) {
		diag("tar_writer_new: %s", ga_error_message());
		return out;
	}
	for (i = 0; i < n; i++)
		if (w->add(w, &entries[i]) < 0)
			diag("add: %s", ga_error_message());
	if (w->finish(w) < 0)
		diag("finish: %s", ga_error_message());
	w->free(w);
	return out;
}

static int field_is(const struct ga_buf *b, size_t off, const char *want,
		    size_t len, const char *name)
{
	if (b->len < off + len)
		return ok(0, "%s (archive too short)", name);
	return is_mem(b->ptr + off, len, want, len, name);
}

/* Checksum as git computes it: chksum bytes counted as spaces. */
static unsigned int checksum(const unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum;
}

static void test_empty_tree(void)
{
	struct archive_args a;
	struct ga_buf b;
	size_t i;
	int zero = 1;

	default_args(&a);
	b = write_tar(&a, NULL, 0);
	ok(b.len == 10240, "an empty tree gives exactly one 10240-byte block");
	for (i = 0; i < b.len; i++)
		zero &= b.ptr[i] == 0;
	ok(zero, "... of zeros");
	ga_buf_release(&b);
}

static void test_global_header(void)
{
	struct archive_args a;
	struct ga_buf b;
	char want[13];

	default_args(&a);
	a.commit_hex = HEX40;
	b = write_tar(&a, NULL, 0);
	field_is(&b, 0, "pax_global_header\0", 18, "global header name");
	field_is(&b, 100, "0000666\0", 8, "pax headers are mode 0666");
	field_is(&b, 108, "0000000\0" "0000000\0", 16, "uid and gid 0");
	field_is(&b, 124, "00000000064\0", 12, "size 52 in 11 octal digits");
	snprintf(want, sizeof(want), "%011o", 1112911993u);
	field_is(&b, 136, want, 12, "mtime in 11 octal digits and a NUL");
	field_is(&b, 156, "g", 1, "typeflag g");
	field_is(&b, 257, "ustar\0" "00", 8, "ustar magic and version");
	field_is(&b, 265, "root\0", 5, "uname root");
	field_is(&b, 297, "root\0", 5, "gname root");
	field_is(&b, 329, "0000000\0" "0000000\0", 16, "devmajor/minor");
	field_is(&b, 512, "52 comment=" HEX40 "\n", 52,
		 "record: 52 comment=<id>");
	if (b.len >= 512) {
		char chk[8];

		snprintf(chk, sizeof(chk), "%07o",
			 checksum((unsigned char *)b.ptr));
		is_mem(b.ptr + 148, 8, chk, 8,
		       "checksum is 7 octal digits and a NUL");
	}
	ok(b.len == 10240, "global header alone fits one block");
	ga_buf_release(&b);
}

static void test_regular_file(void)
{
	struct archive_args a;
	struct archive_entry e[2];
	struct ga_buf b;

	default_args(&a);
	e[0] = file_entry("hello.txt", "hello\n");
	e[1] = file_entry("run.sh", "#!/bin/sh\n");
	e[1].mode = ARCHIVE_MODE_EXEC;
	b = write_tar(&a, e, 2);
	field_is(&b, 0, "hello.txt\0", 10, "name");
	field_is(&b, 100, "0000664\0", 8, "file mode 0664 with umask 002");
	field_is(&b, 124, "00000000006\0", 12, "size");
	field_is(&b, 156, "0", 1, "typeflag 0");
	field_is(&b, 512, "hello\n\0", 7, "content then zero padding");
	field_is(&b, 1024 + 100, "0000775\0", 8, "executable 0775");
	ga_buf_release(&b);

	a.tar_umask = 022;
	b = write_tar(&a, e, 2);
	field_is(&b, 100, "0000644\0", 8, "tar.umask 022: 0644");
	field_is(&b, 1024 + 100, "0000755\0", 8, "tar.umask 022: 0755");
	ga_buf_release(&b);
}

static void test_dir_symlink_gitlink(void)
{
	struct archive_args a;
	struct archive_entry e[3];
	struct ga_buf b;

	default_args(&a);
	a.tar_umask = 077;
	memset(e, 0, sizeof(e));
	e[0].path = "dir/";
	e[0].path_len = 4;
	e[0].mode = ARCHIVE_MODE_DIR;
	e[0].oid_hex = HEX40;
	e[1] = file_entry("link", "target");
	e[1].mode = ARCHIVE_MODE_SYMLINK;
	e[2].path = "sub/";
	e[2].path_len = 4;
	e[2].mode = ARCHIVE_MODE_GITLINK;
	e[2].oid_hex = HEX40;
	b = write_tar(&a, e, 3);
	field_is(&b, 100, "0000700\0", 8, "directory mode follows the umask");
	field_is(&b, 156, "5", 1, "directory typeflag 5");
	field_is(&b, 512 + 100, "0000777\0", 8, "symlinks are always 0777");
	field_is(&b, 512 + 124, "00000000000\0", 12, "symlink size 0");
	field_is(&b, 512 + 156, "2", 1, "symlink typeflag 2");
	field_is(&b, 512 + 157, "target\0", 7, "symlink target in linkname");
	field_is(&b, 1024 + 156, "5", 1, "gitlink written as a directory");
	field_is(&b, 1024 + 100, "0000700\0", 8, "gitlink mode like a dir");
	ga_buf_release(&b);
}

static char *repeat(char c, size_t n)
{
	char *s = ga_xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* A path without a slash longer than 100 bytes needs a pax record. */
static void check_pax_path(size_t len, size_t want_record)
{
	struct archive_args a;
	struct archive_entry e;
	struct ga_buf b;
	char *path = repeat('x', len);
	char prefix[32];
	int n;

	default_args(&a);
	e = file_entry(path, "x");
	b = write_tar(&a, &e, 1);
	n = snprintf(prefix, sizeof(prefix), "%zu path=", want_record);
	field_is(&b, 0, HEX40 ".paxheader\0", 51,
		 "pax header named <oid>.paxheader");
	field_is(&b, 156, "x", 1, "typeflag x");
	field_is(&b, 512, prefix, (size_t)n, "record length prefix");
	ok(b.len > 512 + want_record &&
	   b.ptr[512 + want_record - 1] == '\n' &&
	   !memcmp(b.ptr + 512 + n, path, len),
	   "record of %zu bytes for a %zu-byte path", want_record, len);
	{
		size_t data_rec = 512 + GA_ALIGN_UP(want_record, 512);

		field_is(&b, data_rec, HEX40 ".data\0", 46,
			 "entry named <oid>.data");
	}
	ga_buf_release(&b);
	free(path);
}

static void test_pax_record_lengths(void)
{
	size_t v;

	/* "<len> path=<v>\n": 7 + v bytes plus the digits of len. */
	ok(tar_pax_record_len(4, 90) == 99, "90-byte value: record of 99");
	ok(tar_pax_record_len(4, 91) == 101,
	   "91-byte value: 100 cannot be written, record of 101");
	ok(tar_pax_record_len(4, 0) == 8, "empty value: record of 8");
	ok(tar_pax_record_len(4, 1) == 9, "one-byte value: record of 9");
	ok(tar_pax_record_len(4, 2) == 11, "10 cannot be written: 11");
	for (v = 0; v < 20000; v++) {
		size_t len = tar_pax_record_len(4, v);
		char digits[16];

		if (len != 7 + v + (size_t)snprintf(digits, sizeof(digits),
						    "%zu", len))
			break;
	}
	ok(v == 20000, "every length up to 20000 is self-consistent");
	check_pax_path(101, 111);
	/* "path" records: 4 + len + 3 + digits */
	check_pax_path(989, 999);	/* three digits, just fits */
	check_pax_path(990, 1001);	/* 1000 is impossible: four digits */
	check_pax_path(9988, 9999);
	check_pax_path(9989, 10001);
}

static void test_linkpath_99_100(void)
{
	struct archive_args a;
	struct archive_entry e;
	struct ga_buf b;
	char *target;

	default_args(&a);
	/* linkpath: 8 + len + 3 + digits; len 86 -> 99, 87 -> 101. */
	target = repeat('t', 100);
	e = file_entry("l", target);
	e.mode = ARCHIVE_MODE_SYMLINK;
	b = write_tar(&a, &e, 1);
	field_is(&b, 157, target, 100, "a 100-byte target fills linkname");
	ok(b.len == 10240, "no pax header for a 100-byte target");
	ga_buf_release(&b);
	free(target);

	target = repeat('t', 101);
	e = file_entry("l", target);
	e.mode = ARCHIVE_MODE_SYMLINK;
	b = write_tar(&a, &e, 1);
	field_is(&b, 512, "115 linkpath=", 13, "101-byte target: 115 linkpath=");
	field_is(&b, 1024 + 157, "see " HEX40 ".paxheader\0", 55,
		 "linkname says see <oid>.paxheader");
	ga_buf_release(&b);
	free(target);
}

static void test_split(void)
{
	struct archive_args a;
	struct archive_entry e;
	struct ga_buf b;
	char path[512];
	char *p100 = repeat('p', 100), *q99 = repeat('q', 99);

	default_args(&a);
	/* A directory of 201 bytes: prefix p{100}, name q{99}/ (100). */
	snprintf(path, sizeof(path), "%s/%s/", p100, q99);
	memset(&e, 0, sizeof(e));
	e.path = path;
	e.path_len = strlen(path);
	e.mode = ARCHIVE_MODE_DIR;
	e.oid_hex = HEX40;
	b = write_tar(&a, &e, 1);
	field_is(&b, 345, p100, 100, "prefix field holds the first part");
	field_is(&b, 0, q99, 99, "name field holds the rest");
	field_is(&b, 99, "/", 1, "... with the directory slash (100 bytes)");
	ga_buf_release(&b);

	/* Only a 155-byte prefix would work: git uses pax instead. */
	{
		char *a99 = repeat('a', 99), *b55 = repeat('b', 55);
		char *c100 = repeat('c', 100);

		snprintf(path, sizeof(path), "%s/%s/%s", a99, b55, c100);
		e = file_entry(path, "x");
		b = write_tar(&a, &e, 1);
		field_is(&b, 156, "x", 1,
			 "a 155-byte prefix is never used: pax path");
		ga_buf_release(&b);
		free(a99);
		free(b55);
		free(c100);
	}
	free(p100);
	free(q99);
}

static void test_clamped_mtime(void)
{
	struct archive_args a;
	struct archive_entry e;
	struct ga_buf b;

	default_args(&a);
	a.mtime = 68719476737LL;	/* past 077777777777 */
	a.commit_hex = HEX40;
	e = file_entry("f", "x");
	b = write_tar(&a, &e, 1);
	field_is(&b, 124, "00000000111\0", 12,
		 "global header holds comment and mtime (73 bytes)");
	field_is(&b, 512, "52 comment=" HEX40 "\n21 mtime=68719476737\n",
		 73, "records: comment, then mtime");
	field_is(&b, 136, "77777777777\0", 12, "global header mtime clamped");
	field_is(&b, 1024 + 136, "77777777777\0", 12, "entry mtime clamped");
	ga_buf_release(&b);
}

static void test_trailer(void)
{
	struct archive_args a;
	struct archive_entry e;
	struct ga_buf b;
	char *data;

	default_args(&a);
	/* header + data = 9216 bytes: 1024 left, just enough. */
	data = repeat('d', 9216 - 512);
	e = file_entry("f", data);
	b = write_tar(&a, &e, 1);
	ok(b.len == 10240, "1024 bytes of room: one block (got %zu)", b.len);
	ga_buf_release(&b);
	free(data);

	/* header + data = 9728 bytes: only 512 left, one more block. */
	data = repeat('d', 9728 - 512);
	e = file_entry("f", data);
	b = write_tar(&a, &e, 1);
	ok(b.len == 20480, "512 bytes of room: two blocks (got %zu)", b.len);
	ga_buf_release(&b);
	free(data);

	/* exactly one block of content: a whole block of zeros follows. */
	data = repeat('d', 10240 - 512);
	e = file_entry("f", data);
	b = write_tar(&a, &e, 1);
	ok(b.len == 20480, "a full block: one more block (got %zu)", b.len);
	ga_buf_release(&b);
	free(data);
}

static void test_unsupported_mode(void)
{
	struct archive_args a;
	struct archive_entry e;
	struct ga_buf out = GA_BUF_INIT;
	struct mem_sink m;
	struct archive_writer *w = NULL;
	int error;

	default_args(&a);
	mem_sink_init(&m, &out);
	e = file_entry("weird", "");
	e.mode = 0010644;	/* a FIFO mode no tree may carry */
	tar_writer_new(&w, &m.base, &a);
	error = w->add(w, &e);
	ok(error == GA_EARCHIVE, "unsupported mode is an archive error");
	is_str(ga_error_message(),
	       "unsupported file mode: 010644 (SHA1: " HEX40 ")",
	       "with git's message");
	w->free(w);
	ga_buf_release(&out);
}

int main(void)
{
	test_empty_tree();
	test_global_header();
	test_regular_file();
	test_dir_symlink_gitlink();
	test_pax_record_lengths();
	test_linkpath_99_100();
	test_split();
	test_clamped_mtime();
	test_trailer();
	test_unsupported_mode();
	return tap_done();
}

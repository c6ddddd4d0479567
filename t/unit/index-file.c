/*
 * index-file.c: the index reader on hand-built files (the layout of
 * git's Documentation/technical/index-format.txt): v2 padding, v4
 * prefix-compressed names, long names, stages, git's binary search,
 * extensions and the errors git 2.39 gives.  The files git itself
 * writes are compared with git in t/t1000-treeish.sh.
 */
#include "tap.h"
#include "garchive/common.h"
#include "git/index-file.h"

static char reports[4096];

static void keep_report(enum ga_report_kind kind, const char *msg,
			void *payload)
{
	size_t len = strlen(reports);

	(void)payload;
	snprintf(reports + len, sizeof(reports) - len, "%s%s\n",
		 kind == GA_REPORT_ERROR ? "error: " :
		 kind == GA_REPORT_WARNING ? "warning: " : "", msg);
}

static void put_be32(struct ga_buf *b, uint32_t v)
{
	unsigned char p[4] = { v >> 24, v >> 16, v >> 8, v };

	ga_buf_put(b, p, 4);
}

static void put_be16(struct ga_buf *b, uint32_t v)
{
	unsigned char p[2] = { v >> 8, v };

	ga_buf_put(b, p, 2);
}

static void header(struct ga_buf *b, uint32_t version, uint32_t nr)
{
	ga_buf_setlen(b, 0);
	ga_buf_put(b, "DIRC", 4);
	put_be32(b, version);
	put_be32(b, nr);
}

/*
 * One entry with id byte `fill` (SHA-1), `flags` holding the stage and
 * name length; `strip` < 0 writes a v2/v3 name, else a v4 one that
 * strips that much from the previous name and appends `name`.
 */
static void entry(struct ga_buf *b, uint32_t mode, int fill, uint32_t flags,
		  const char *name, int strip)
{
	size_t start = b->len, i;
	unsigned char id[20];

	for (i = 0; i < 6; i++)
		put_be32(b, 0);
	put_be32(b, mode);
	for (i = 0; i < 3; i++)
		put_be32(b, 0);
	memset(id, fill, sizeof(id));
	ga_buf_put(b, id, sizeof(id));
	put_be16(b, flags);
	if (strip >= 0)
		ga_buf_putc(b, strip);	/* a one-byte varint */
	ga_buf_put(b, name, strlen(name) + 1);
	if (strip < 0)
		while ((b->len - start) % 8)
			ga_buf_putc(b, '\0');
}

static void trailer(struct ga_buf *b)
{
	unsigned char sum[20] = { 0 };

	ga_buf_put(b, sum, sizeof(sum));
}

static int parse(struct index_file *ix, const struct ga_buf *b)
{
	reports[0] = '\0';
	ga_error_clear();
	return index_file_parse(ix, b->ptr, b->len, "idx", GA_HASH_SHA1);
}

static void test_v2(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix;
	const struct index_file_entry *e;

	header(&b, 2, 4);
	entry(&b, 0100644, 1, 1 << 12 | 1, "a", -1);
	entry(&b, 0100644, 2, 2 << 12 | 1, "a", -1);
	entry(&b, 0160000, 3, 7, "b/c.txt", -1);
	entry(&b, 0100755, 4, 8, "b/c.txt2", -1);
	trailer(&b);
	ok(!parse(&ix, &b) && ix.nr == 4 && ix.version == 2,
	   "v2: four entries");
	e = index_file_find(&ix, "a", 1, 2);
	ok(e && e->id.id[0] == 2, "v2: :2:a found");
	ok(!index_file_find(&ix, "a", 1, 0), "v2: no :0:a");
	ok(!index_file_find(&ix, "a", 1, 3), "v2: no :3:a");
	e = index_file_find(&ix, "b/c.txt", 7, 0);
	ok(e && e->mode == 0160000 && e->id.id[0] == 3, "v2: gitlink");
	ok(!index_file_find(&ix, "b", 1, 0) &&
	   !index_file_find(&ix, "b/c.tx", 6, 0),
	   "v2: no directory, no prefix");
	index_file_release(&ix);
	index_file_release(&ix);
	ga_buf_release(&b);
}

static void test_v4(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix;
	const struct index_file_entry *e;
	char longname[5000];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	header(&b, 4, 4);
	entry(&b, 0100644, 1, 9, "dir/one.c", 0);
	entry(&b, 0100644, 2, 9, "two.c", 5);	/* "dir/" + "two.c" */
	/* Names of 0xfff bytes and more say 0xfff and are counted. */
	entry(&b, 0100644, 3, 0xfff, longname, 9);
	entry(&b, 0100644, 4, 0xfff, "y", 0);	/* longname + "y" */
	trailer(&b);
	ok(!parse(&ix, &b) && ix.nr == 4, "v4: four entries");
	ok(ix.nr == 4 && !strcmp(ix.entries[1].name, "dir/two.c") &&
	   ix.entries[2].name_len == 4999 && ix.entries[3].name_len == 5000,
	   "v4: names rebuilt from their prefixes");
	e = index_file_find(&ix, "dir/two.c", 9, 0);
	ok(e && e->id.id[0] == 2, "v4: :dir/two.c found");
	index_file_release(&ix);

	header(&b, 4, 2);
	entry(&b, 0100644, 1, 1, "a", 0);
	entry(&b, 0100644, 2, 1, "b", 2);
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(),
		   "malformed name field in the index, near path 'a'"),
	   "v4: stripping more than the previous name");
	index_file_release(&ix);
	ga_buf_release(&b);
}

/* git's binary search: an entry out of order may be missed, as by git. */
static void test_unsorted(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix;

	header(&b, 2, 3);
	entry(&b, 0100644, 1, 1, "z", -1);
	entry(&b, 0100644, 2, 1, "m", -1);
	entry(&b, 0100644, 3, 1, "a", -1);
	trailer(&b);
	ok(!parse(&ix, &b), "unsorted: parsed");
	ok(index_file_find(&ix, "m", 1, 0) && !index_file_find(&ix, "a", 1, 0),
	   "unsorted: the middle one is found, the last is not");
	index_file_release(&ix);
	ga_buf_release(&b);
}

static void test_errors(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix;

	header(&b, 2, 0);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(), "idx: index file smaller than expected"),
	   "too short");
	index_file_release(&ix);

	header(&b, 2, 0);
	memcpy(b.ptr, "DIRX", 4);
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(), "index file corrupt") &&
	   !strcmp(reports, "error: bad signature 0x58524944\n"),
	   "bad signature, printed as git's little-endian host reads it");
	index_file_release(&ix);

	header(&b, 5, 0);
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(reports, "error: bad index version 5\n"), "bad version");
	index_file_release(&ix);

	header(&b, 3, 1);
	entry(&b, 0100644, 1, 0x4000 | 1, "a", -1);
	trailer(&b);
	/* The extended flags are the two bytes after the flags. */
	b.ptr[12 + 40 + 20 + 2] = 0x10;
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(), "unknown index entry format 0x10000000"),
	   "unknown extended flag");
	index_file_release(&ix);

	header(&b, 2, 1000000);
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR && ix.alloc == 0,
	   "an entry count the file cannot hold allocates nothing");
	index_file_release(&ix);

	header(&b, 2, 1);
	entry(&b, 0100644, 1, 3, "a", -1);	/* says 3 bytes, has 1 */
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(), "index file corrupt"),
	   "a name of another length than its flags say");
	index_file_release(&ix);
	ga_buf_release(&b);
}

static void test_extensions(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix;
	unsigned char base[20];

	header(&b, 2, 1);
	entry(&b, 0100644, 1, 1, "a", -1);
	ga_buf_put(&b, "TREE", 4);
	put_be32(&b, 0);
	ga_buf_put(&b, "Zzzz", 4);
	put_be32(&b, 2);
	ga_buf_put(&b, "ab", 2);
	trailer(&b);
	ok(!parse(&ix, &b) && ix.nr == 1 &&
	   !strcmp(reports, "ignoring Zzzz extension\n"),
	   "an optional extension is skipped");
	index_file_release(&ix);

	b.ptr[12 + 64 + 8] = 'z';
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(reports, "error: index uses zzzz extension, which we do "
		   "not understand\n"), "a required one is refused");
	index_file_release(&ix);

	header(&b, 2, 0);
	ga_buf_put(&b, "link", 4);
	put_be32(&b, 20);
	memset(base, 0xab, sizeof(base));
	ga_buf_put(&b, base, sizeof(base));
	ga_buf_put(&b, "sdir", 4);
	put_be32(&b, 0);
	trailer(&b);
	ok(!parse(&ix, &b) && ix.split && ix.sparse &&
	   ix.shared.id[0] == 0xab, "link and sdir are read");
	index_file_release(&ix);
	ga_buf_release(&b);
}

int main(void)
{
	ga_set_report_handler(keep_report, NULL);
	test_v2();
	test_v4();
	test_unsorted();
	test_errors();
	test_extensions();
	return tap_done();
}

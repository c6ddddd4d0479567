/*
 * index-file.c: the index reader on hand-built files (the layout of
 * git's Documentation/technical/index-format.txt): v2 padding, v4
 * prefix-compressed names, long names, stages, git's binary search,
 * extensions and the errors git 2.39 gives; EWAH bitmaps and the merge
 * of a split index with its shared index.  The files git itself
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

static void put_be64(struct ga_buf *b, uint64_t v)
{
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b, (uint32_t)v);
}

/* An EWAH bitmap of `nr` words (a bit size of 64 * nr, rlw 0). */
static void bitmap(struct ga_buf *b, const uint64_t *words, uint32_t nr)
{
	uint32_t i;

	put_be32(b, nr * 64);
	put_be32(b, nr);
	for (i = 0; i < nr; i++)
		put_be64(b, words[i]);
	put_be32(b, 0);
}

/* A run-length word: `run` words of `bit`, then `literals` words. */
static uint64_t rlw(int bit, uint64_t run, uint64_t literals)
{
	return (uint64_t)bit | run << 1 | literals << 33;
}

struct bits {
	uint64_t pos[300];
	size_t nr;
};

static int keep_bit(uint64_t pos, void *payload)
{
	struct bits *bits = payload;

	if (bits->nr == 300)
		return -1;
	bits->pos[bits->nr++] = pos;
	return 0;
}

static void test_ewah(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct ewah bm = { 0 };
	struct bits bits = { { 0 }, 0 };
	/* 64 zeros, a literal (bits 64 and 66), then 64 ones. */
	uint64_t words[] = { rlw(0, 1, 1), 5, rlw(1, 1, 0) };
	size_t used = 0, i;
	int all;

	bitmap(&b, words, 3);
	ga_buf_put(&b, "more", 4);
	ok(!ewah_read(&bm, &used, b.ptr, b.len) && used == b.len - 4 &&
	   bm.nr == 3 && bm.bit_size == 192, "ewah: read, its length taken");
	ok(!ewah_each_bit(&bm, keep_bit, &bits) && bits.nr == 66 &&
	   bits.pos[0] == 64 && bits.pos[1] == 66 && bits.pos[2] == 128,
	   "ewah: runs and literals in order");
	for (i = 2, all = 1; i < bits.nr; i++)
		all &= bits.pos[i] == 128 + i - 2;
	ok(all, "ewah: a run of ones is every bit of its words");

	/* A literal count past the words: git reads on, this stops. */
	words[0] = rlw(0, 0, 5);
	ga_buf_setlen(&b, 0);
	bitmap(&b, words, 2);
	bits.nr = 0;
	ok(!ewah_read(&bm, &used, b.ptr, b.len) &&
	   ewah_each_bit(&bm, keep_bit, &bits) == 1 && bits.nr == 2,
	   "ewah: literal words past the end stop the walk");

	reports[0] = '\0';
	ok(ewah_read(&bm, &used, b.ptr, 3) == GA_ERROR &&
	   !strcmp(reports, "error: corrupt ewah bitmap: eof before bit "
		   "size\n"), "ewah: no bit size");
	reports[0] = '\0';
	ok(ewah_read(&bm, &used, b.ptr, 7) == GA_ERROR &&
	   !strcmp(reports, "error: corrupt ewah bitmap: eof before "
		   "length\n"), "ewah: no length");
	reports[0] = '\0';
	ok(ewah_read(&bm, &used, b.ptr, 20) == GA_ERROR &&
	   !strcmp(reports, "error: corrupt ewah bitmap: eof in data (4 "
		   "bytes short)\n"), "ewah: words missing");
	reports[0] = '\0';
	ok(ewah_read(&bm, &used, b.ptr, b.len - 1) == GA_ERROR &&
	   !strcmp(reports, "error: corrupt ewah bitmap: eof before rlw\n"),
	   "ewah: no last-word position");
	/* 0xffffffff words said, none there: nothing allocated for them. */
	ga_buf_setlen(&b, 0);
	put_be32(&b, 0);
	put_be32(&b, 0xffffffffu);
	reports[0] = '\0';
	ok(ewah_read(&bm, &used, b.ptr, b.len) == GA_ERROR && !bm.words &&
	   strstr(reports, "34359738360 bytes short"),
	   "ewah: a word count the data cannot hold");
	ewah_release(&bm);
	ewah_release(&bm);
	ga_buf_release(&b);
}

/*
 * A link extension naming shared index `fill`, with a delete bitmap of
 * one literal word `del` and a replace bitmap of one literal `repl`
 * (no bitmaps when both are ~0).
 */
static void link_ext(struct ga_buf *b, int fill, uint64_t del, uint64_t repl)
{
	unsigned char id[20];
	int none = del == ~(uint64_t)0 && repl == ~(uint64_t)0;
	uint64_t dw[2] = { rlw(0, 0, 1), del }, rw[2] = { rlw(0, 0, 1), repl };

	memset(id, fill, sizeof(id));
	ga_buf_put(b, "link", 4);
	put_be32(b, none ? 20 : 20 + 2 * (4 + 4 + 16 + 4));
	ga_buf_put(b, id, sizeof(id));
	if (none)
		return;
	bitmap(b, dw, 2);
	bitmap(b, rw, 2);
}

/* The shared index: a, b, c, d and x at stages 1 and 2. */
static void shared_index(struct index_file *base)
{
	struct ga_buf b = GA_BUF_INIT;

	header(&b, 2, 6);
	entry(&b, 0100644, 1, 1, "a", -1);
	entry(&b, 0100644, 2, 1, "b", -1);
	entry(&b, 0100644, 3, 1, "c", -1);
	entry(&b, 0100644, 4, 1, "d", -1);
	entry(&b, 0100644, 5, 1 << 12 | 1, "x", -1);
	entry(&b, 0100644, 6, 2 << 12 | 1, "x", -1);
	trailer(&b);
	ok(!parse(base, &b) && base->nr == 6, "merge: the shared index");
	ga_buf_release(&b);
}

static int names_are(const struct index_file *ix, const char *want)
{
	char got[256] = "";
	size_t i;

	for (i = 0; i < ix->nr; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%s:%d:%d", i ? " " : "", ix->entries[i].name,
			 (int)(ix->entries[i].flags >> 12 & 3),
			 ix->entries[i].id.id[0]);
	if (strcmp(got, want))
		diag("got '%s'", got);
	return !strcmp(got, want);
}

static void test_merge(void)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix, base;

	/* b replaced (id 7), c deleted, "bb" and x at stage 0 added. */
	header(&b, 2, 3);
	entry(&b, 0100755, 7, 0, "", -1);
	entry(&b, 0100644, 8, 2, "bb", -1);
	entry(&b, 0100644, 9, 1, "x", -1);
	link_ext(&b, 0xab, 1u << 2, 1u << 1);
	trailer(&b);
	ok(!parse(&ix, &b) && ix.split && ix.nr == 3 &&
	   ix.delete_bm.nr == 2 && ix.replace_bm.nr == 2,
	   "merge: the split index and its bitmaps");
	shared_index(&base);
	ok(!index_file_merge(&ix, &base) && base.nr == 0 &&
	   names_are(&ix, "a:0:1 b:0:7 bb:0:8 d:0:4 x:0:9") &&
	   ix.entries[1].mode == 0100755,
	   "merge: replaced, deleted, added; stage 0 ends the stages");
	ok(index_file_find(&ix, "bb", 2, 0) != NULL, "merge: sorted");
	index_file_release(&base);
	index_file_release(&ix);

	/* Unsorted, as git never writes it: one insertion at a time. */
	header(&b, 2, 3);
	entry(&b, 0100755, 7, 0, "", -1);
	entry(&b, 0100644, 9, 1, "x", -1);
	entry(&b, 0100644, 8, 2, "bb", -1);
	link_ext(&b, 0xab, 1u << 2, 1u << 1);
	trailer(&b);
	shared_index(&base);
	ok(!parse(&ix, &b) && !index_file_merge(&ix, &base) &&
	   names_are(&ix, "a:0:1 b:0:7 bb:0:8 d:0:4 x:0:9"),
	   "merge: unsorted additions land where the sorted ones do");
	index_file_release(&base);
	index_file_release(&ix);

	header(&b, 2, 2);
	entry(&b, 0100644, 9, 1 << 12 | 1, "y", -1);
	entry(&b, 0100644, 8, 1, "e", -1);
	link_ext(&b, 0xab, 0, 0);
	trailer(&b);
	shared_index(&base);
	ok(!parse(&ix, &b) && !index_file_merge(&ix, &base) &&
	   names_are(&ix, "a:0:1 b:0:2 c:0:3 d:0:4 e:0:8 x:1:5 x:2:6 y:1:9"),
	   "merge: unsorted, an entry past the last and one inside");
	index_file_release(&base);
	index_file_release(&ix);

	/* Same name and stage: the split entry replaces the shared one. */
	header(&b, 2, 2);
	entry(&b, 0100644, 8, 1, "a", -1);
	entry(&b, 0100644, 9, 2 << 12 | 1, "x", -1);
	link_ext(&b, 0xab, ~(uint64_t)0, ~(uint64_t)0);
	trailer(&b);
	ok(!parse(&ix, &b) && !ix.delete_bm.nr, "merge: a link without bitmaps");
	shared_index(&base);
	ok(!index_file_merge(&ix, &base) &&
	   names_are(&ix, "a:0:8 b:0:2 c:0:3 d:0:4 x:1:5 x:2:9"),
	   "merge: an entry of the same name and stage is replaced");
	index_file_release(&base);
	index_file_release(&ix);

	header(&b, 2, 1);
	entry(&b, 0100644, 8, 6, ".git/a", -1);
	link_ext(&b, 0xab, 0, 0);
	trailer(&b);
	reports[0] = '\0';
	shared_index(&base);
	ok(!parse(&ix, &b) && !index_file_merge(&ix, &base) && ix.nr == 6 &&
	   !strcmp(reports, "error: invalid path '.git/a'\n"),
	   "merge: a path git refuses is left out");
	index_file_release(&base);
	index_file_release(&ix);
	ga_buf_release(&b);
}

/* Merge a split index of `entries` ("" for a nameless one) and bitmaps. */
static int merge_fails(const char *const *names, size_t nr, uint64_t del,
		       uint64_t repl, const char *want)
{
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix, base;
	size_t i;
	int ret;

	header(&b, 2, (uint32_t)nr);
	for (i = 0; i < nr; i++)
		entry(&b, 0100644, 8, (uint32_t)strlen(names[i]), names[i],
		      -1);
	link_ext(&b, 0xab, del, repl);
	trailer(&b);
	shared_index(&base);
	ret = !parse(&ix, &b) && index_file_merge(&ix, &base) == GA_ERROR &&
	      !strcmp(ga_error_message(), want);
	if (!ret)
		diag("got '%s'", ga_error_message());
	index_file_release(&base);
	index_file_release(&ix);
	ga_buf_release(&b);
	return ret;
}

static void test_merge_errors(void)
{
	static const char *const nameless[] = { "" }, *const named[] = { "a" };
	struct ga_buf b = GA_BUF_INIT;
	struct index_file ix;

	ok(merge_fails(nameless, 1, 0, 1u << 6, "position for replacement 6 "
		       "exceeds base index size 6"), "merge: replace past");
	ok(merge_fails(nameless, 1, 1u << 6, 0, "position for delete 6 "
		       "exceeds base index size 6"), "merge: delete past");
	ok(merge_fails(nameless, 1, 0, 3, "too many replacements (1 vs 1)"),
	   "merge: more replacements than entries");
	ok(merge_fails(named, 1, 0, 1, "corrupt link extension, entry 0 "
		       "should have zero length name"),
	   "merge: a replacement with a name");
	ok(merge_fails(nameless, 1, 0, 0, "corrupt link extension, entry 0 "
		       "should have non-zero length name"),
	   "merge: an added entry without one");

	/* Malformed link extensions. */
	header(&b, 2, 0);
	link_ext(&b, 0xab, 0, 0);
	ga_buf_setlen(&b, b.len - 1);
	b.ptr[12 + 7] -= 1;
	trailer(&b);
	reports[0] = '\0';
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(), "index file corrupt") &&
	   !strcmp(reports, "error: corrupt ewah bitmap: eof before rlw\n"
		   "error: corrupt replace bitmap in link extension\n"),
	   "link: a replace bitmap cut short");
	index_file_release(&ix);

	header(&b, 2, 0);
	link_ext(&b, 0xab, 0, 0);
	ga_buf_put(&b, "zz", 2);
	b.ptr[12 + 7] += 2;
	trailer(&b);
	reports[0] = '\0';
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(reports, "error: garbage at the end of link extension\n"),
	   "link: bytes after the bitmaps");
	index_file_release(&ix);

	header(&b, 2, 0);
	ga_buf_put(&b, "link", 4);
	put_be32(&b, 22);
	ga_buf_put(&b, "aaaaaaaaaaaaaaaaaaaazz", 22);
	trailer(&b);
	reports[0] = '\0';
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(reports, "error: corrupt ewah bitmap: eof before bit size\n"
		   "error: corrupt delete bitmap in link extension\n"),
	   "link: a delete bitmap cut short");
	index_file_release(&ix);

	header(&b, 2, 0);
	ga_buf_put(&b, "link", 4);
	put_be32(&b, 1000);
	ga_buf_put(&b, "aaaaaaaaaaaaaaaaaaaa", 20);
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(), "index file corrupt"),
	   "link: longer than the file");
	index_file_release(&ix);

	header(&b, 2, 0);
	ga_buf_put(&b, "sdir", 4);
	put_be32(&b, 0);
	link_ext(&b, 0xab, ~(uint64_t)0, ~(uint64_t)0);
	trailer(&b);
	ok(parse(&ix, &b) == GA_ERROR &&
	   !strcmp(ga_error_message(),
		   "cannot use split index with a sparse index"),
	   "link: after sdir");
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
	test_ewah();
	test_merge();
	test_merge_errors();
	return tap_done();
}

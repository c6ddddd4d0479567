/*
 * Fuzz a reftable stack (src/refs/rtstack.c): tables.list and the
 * tables it names, merged newest first (shadowing, deletions of refs
 * and of log entries, existence markers).  The input is split at the
 * bytes "\n==\n": the first part is tables.list, each later part is a
 * table written as t0.ref, t1.ref, ... in a scratch directory (so a
 * list naming them reads them, and other names are missing tables).
 * The first byte picks the hash (bit 0: SHA-256).
 *
 * Every ref the merged iteration yields is then looked up by name (a
 * damaged table may hide it: unsorted keys defeat the search, as in
 * git), and some reflogs are read both ways: the same number of
 * entries.  Walks end, failures carry a message.
 */
#include "fuzz.h"

#include <fcntl.h>
#include <unistd.h>

#include "refs/rtstack.h"

static char *dir;

static void setup(void)
{
	char tmpl[] = "/tmp/ga-fuzz-rtstack-XXXXXX";

	if (dir)
		return;
	FUZZ_CHECK(mkdtemp(tmpl));
	dir = ga_xstrdup(tmpl);
}

static void write_file(const char *name, const uint8_t *data, size_t len)
{
	char *path = ga_path_join(dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(ga_write_all(fd, data, len) == 0);
	FUZZ_CHECK(close(fd) == 0);
	free(path);
}

static void clear_dir(int tables)
{
	int i;

	for (i = 0; i < tables; i++) {
		char *name = ga_xstrfmt("%s/t%d.ref", dir, i);

		unlink(name);
		free(name);
	}
}

struct logs {
	struct ga_buf buf;
	int n;
};

static int add_log(const struct refs_reflog_entry *e, void *payload)
{
	struct logs *l = payload;
	char a[GA_OID_MAX_HEXSZ + 1], b[GA_OID_MAX_HEXSZ + 1];

	ga_buf_printf(&l->buf, "%s %s %s %d\n", ga_oid_fmt(a, &e->old_oid),
		      ga_oid_fmt(b, &e->new_oid), e->who, e->tz);
	l->n++;
	return 0;
}

static void check_logs(struct rtstack *st, const char *name)
{
	struct logs newest = { GA_BUF_INIT, 0 }, oldest = { GA_BUF_INIT, 0 };
	int a = rtstack_reflog_each(st, name, 1, add_log, &newest);
	int b = rtstack_reflog_each(st, name, 0, add_log, &oldest);

	FUZZ_CHECK(a == 0 || a == GA_ERROR);
	FUZZ_CHECK(b == 0 || b == GA_ERROR);
	if (!a && !b)
		FUZZ_CHECK(newest.n == oldest.n);
	ga_buf_release(&newest.buf);
	ga_buf_release(&oldest.buf);
	ga_error_clear();
}

static void check(struct rtstack *st)
{
	struct refs_iter *it = rtstack_ref_iter_new(st, "");
	struct reftable_record rec;
	int ret, n = 0;

	memset(&rec, 0, sizeof(rec));
	while (it && !(ret = it->next(it)) && n++ < 64) {
		const struct refs_raw *raw = &it->cur;

		if (strlen(raw->name.ptr) != raw->name.len)
			continue;
		ret = rtstack_read_ref(&rec, st, raw->name.ptr);
		FUZZ_CHECK(ret == 0 || ret == GA_ENOTFOUND ||
			   ret == GA_ERROR);
		if (n < 4)
			check_logs(st, raw->name.ptr);
	}
	refs_iter_free(it);
	check_logs(st, "HEAD");
	reftable_record_release(&rec);
	ga_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtstack st;
	const uint8_t *p, *end, *sep;
	int tables = 0;

	if (size < 1)
		return 0;
	setup();
	p = data + 1;
	end = data + size;
	sep = memmem(p, (size_t)(end - p), "\n==\n", 4);
	write_file("tables.list", p, sep ? (size_t)(sep - p)
					 : (size_t)(end - p));
	while (sep && tables < 8) {
		const uint8_t *next;
		char name[16];

		p = sep + 4;
		next = memmem(p, (size_t)(end - p), "\n==\n", 4);
		snprintf(name, sizeof(name), "t%d.ref", tables++);
		write_file(name, p, next ? (size_t)(next - p)
					 : (size_t)(end - p));
		sep = next;
	}
	rtstack_init(&st, dir, data[0] & 1 ? GA_HASH_SHA256 : GA_HASH_SHA1);
	if (!rtstack_load(&st))
		check(&st);
	else
		FUZZ_CHECK(*ga_error_message());
	rtstack_release(&st);
	ga_error_clear();
	clear_dir(tables);
	return 0;
}

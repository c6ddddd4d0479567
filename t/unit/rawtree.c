/*
 * rawtree.c: rawtree_cursor_lookup() answers as rawtree_lookup() does,
 * path after path, in SHA-1 and SHA-256 databases: in sorted trees,
 * where it keeps the trees it went through, and in malformed ones (an
 * unsorted tree, names holding '/'), where a tree it holds may not be
 * the one a search from the root would reach for the next path.
 */
#include "tap.h"
#include "gitscratch.h"
#include "odb/odb.h"
#include "odb/rawtree.h"
#include "garchive/common.h"

#include <git2.h>

/* Today's reader for `algo` (repofmt.h): libgit2's for SHA-1. */
#define READER(algo) ((algo) == GA_HASH_SHA1 ? REPOFMT_READER_LIBGIT2 \
					    : REPOFMT_READER_GARCHIVE)

/*
 * Writes the trees (loose objects, in any order of entries) and prints
 * their ids, one a line: sorted, slash, unsorted.
 */
static const char maker[] =
	"import hashlib, os, sys, zlib\n"
	"algo = sys.argv[1]\n"
	"def put(kind, data):\n"
	"    obj = b'%s %d\\0' % (kind, len(data)) + data\n"
	"    oid = hashlib.new(algo, obj).hexdigest()\n"
	"    d = '.git/objects/' + oid[:2]\n"
	"    os.makedirs(d, exist_ok=True)\n"
	"    open(d + '/' + oid[2:], 'wb').write(zlib.compress(obj))\n"
	"    return oid\n"
	"def tree(*ents):\n"
	"    return put(b'tree', b''.join(m + b' ' + n + b'\\0' +\n"
	"               bytes.fromhex(o) for m, n, o in ents))\n"
	"def blob(s):\n"
	"    return put(b'blob', s)\n"
	"D, F = b'40000', b'100644'\n"
	"f, g = blob(b'f\\n'), blob(b'g\\n')\n"
	"c = tree((F, b'f', f))\n"
	"b = tree((F, b'.gitattributes', g), (D, b'c', c))\n"
	"a = tree((F, b'.gitattributes', f), (D, b'b', b), (F, b'f', g))\n"
	"print(tree((F, b'a-b', f), (D, b'a', a), (F, b'a0', g), (D, b'x', c)))\n"
	"print(tree((D, b'a/b', c), (D, b'a', a)))\n"
	"print(tree((F, b'a0000', f), (D, b'a', a), (D, b'z', c)))\n";

/* The paths each tree is asked for, in this order. */
static const char *const paths[] = {
	".gitattributes", "a/.gitattributes", "a/b/.gitattributes",
	"a/b/c/.gitattributes", "a/b/c/f", "a/b/c", "a/b/", "a/b",
	"a/b/c/f/x", "a/f", "a/f/x", "x/f", "a/b/c/f", "a/x", "a/b/f",
	"a/b/c/f", "a/ffff", "a/b/c/f", "a-b", "a0", "z/f", "a/b/f",
	"a//b", "/a", "", "a/b/c/f",
};

static int is_same(const struct rawtree_entry *a, int ea,
		   const struct rawtree_entry *b, int eb)
{
	if (ea != eb)
		return 0;
	return ea < 0 || (a->mode == b->mode && ga_oid_equal(&a->id, &b->id));
}

static void test_tree(git_odb *odb, size_t hashsz, struct rawtree_cursor *c,
		      const char *hex, const char *what, enum ga_hash_algo algo)
{
	struct ga_oid root;
	size_t i;

	if (ga_oid_from_hex(&root, algo, hex) < 0) {
		ok(0, "%s: a tree id", what);
		return;
	}
	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		struct rawtree_entry want = { 0 }, got = { 0 };
		int ew = rawtree_lookup(&want, odb, &root, paths[i], hashsz);
		int eg;

		ga_error_clear();
		eg = rawtree_cursor_lookup(&got, c, &root, paths[i]);
		ga_error_clear();
		if (!ok(is_same(&want, ew, &got, eg), "%s: '%s' (%s)", what,
			paths[i], ew < 0 ? "not found" : "found"))
			diag("rawtree_lookup %d, the cursor %d", ew, eg);
	}
}

static void test_algo(const char *dir, const char *algo_name,
		      enum ga_hash_algo algo)
{
	static const char *const what[] = { "sorted", "slash", "unsorted" };
	char *r = scratch_fmt("%s/%s", dir, algo_name);
	char *objects = scratch_fmt("%s/.git/objects", r);
	char *script = scratch_fmt("%s/maker.py", dir);
	struct rawtree_cursor c;
	git_odb *odb = NULL;
	char *out, *line, *nl;
	size_t len, i = 0;
	int status;

	scratch_write(script, maker, strlen(maker));
	scratch_sh("git init -q --object-format=%s %s", algo_name, r);
	out = scratch_out(&len, &status, "cd %s && python3 %s %s", r, script,
			  algo_name);
	if (!ok(out && !status && odb_open(&odb, objects, ".git/objects", 0,
					   algo, READER(algo)) == 0,
		"%s: the trees are written", algo_name))
		goto done;
	rawtree_cursor_init(&c, odb, ga_hash_rawsz(algo));
	/* Twice over: the cursor moves from tree to tree and back. */
	for (line = out; i < 6; i++) {
		char *name = scratch_fmt("%s %s", algo_name, what[i % 3]);

		if (i == 3)
			line = out;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		test_tree(odb, ga_hash_rawsz(algo), &c, line, name, algo);
		if (nl)
			*nl = '\n';
		line = nl ? nl + 1 : line;
		free(name);
	}
	rawtree_cursor_release(&c);
	git_odb_free(odb);
done:
	free(out);
	free(script);
	free(objects);
	free(r);
}

int main(void)
{
	char *dir = scratch_init("rawtree");

	if (!dir) {
		printf("1..0 # SKIP git is missing\n");
		return 0;
	}
	git_libgit2_init();
	test_algo(dir, "sha1", GA_HASH_SHA1);
	test_algo(dir, "sha256", GA_HASH_SHA256);
	git_libgit2_shutdown();
	scratch_done(dir);
	return tap_done();
}

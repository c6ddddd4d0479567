/*
 * odb-sha256.c: the object database of a SHA-256 repository, read
 * through odb.h (odb_read, odb_read_header, odb_exists,
 * odb_exists_prefix, odb_stream_open), which takes its objects from
 * garchive's store since libgit2 cannot.  git writes the repository,
 * first with loose objects, then packed (git gc); every object must be
 * what `git cat-file` prints, an abbreviated id must find its object,
 * and a damaged loose object must fail with git's lines.
 */
#include "tap.h"
#include "gitscratch.h"
#include "odb/odb.h"
#include "odb/store.h"
#include "garchive/common.h"

#include <git2.h>

/* Today's reader for `algo` (repofmt.h): libgit2's for SHA-1. */
#define READER(algo) ((algo) == GA_HASH_SHA1 ? REPOFMT_READER_LIBGIT2 \
					    : REPOFMT_READER_GARCHIVE)

static const enum ga_hash_algo algo = GA_HASH_SHA256;

static int is_int(int got, int want, const char *fmt, const char *how)
{
	if (got == want)
		return ok(1, fmt, how);
	ok(0, fmt, how);
	diag("got %d, want %d", got, want);
	return 0;
}

/* Each object of the listing `list` ("<id> <type>\n" lines). */
struct listed {
	struct ga_oid *ids;
	char **types;
	size_t nr;
};

static void list_objects(struct listed *l, const char *r)
{
	size_t len, hexsz = ga_hash_hexsz(algo);
	int status;
	char *out = scratch_out(&len, &status, "cd %s && git cat-file "
				"--batch-all-objects --batch-check="
				"'%%(objectname) %%(objecttype)'", r);
	char *p;

	memset(l, 0, sizeof(*l));
	for (p = out; p && *p; ) {
		char *nl = strchr(p, '\n');

		if (!nl)
			break;
		*nl = '\0';
		l->ids = realloc(l->ids, (l->nr + 1) * sizeof(*l->ids));
		l->types = realloc(l->types, (l->nr + 1) * sizeof(*l->types));
		if (strlen(p) > hexsz &&
		    ga_oid_from_hex(&l->ids[l->nr], algo, p) == 0) {
			l->types[l->nr] = strdup(p + hexsz + 1);
			l->nr++;
		}
		p = nl + 1;
	}
	free(out);
}

static void listed_release(struct listed *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->types[i]);
	free(l->types);
	free(l->ids);
}

/* Whether object `i` reads as git prints it, whole and by header. */
static int reads_as_git(git_odb *odb, const char *r, const struct listed *l,
			size_t i)
{
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct odb_object *obj = NULL;
	git_object_t htype = GIT_OBJECT_INVALID;
	size_t want_len, hsize = 0;
	int status, same;
	char *want;

	ga_oid_fmt(hex, &l->ids[i]);
	want = scratch_out(&want_len, &status, "cd %s && git cat-file %s %s",
			   r, l->types[i], hex);
	same = odb_read(&obj, odb, &l->ids[i]) == 0 &&
	       odb_read_header(&hsize, &htype, odb, &l->ids[i]) == 0 &&
	       odb_exists(odb, &l->ids[i]) == 1 &&
	       !strcmp(git_object_type2string(odb_object_type(obj)),
		       l->types[i]) &&
	       htype == odb_object_type(obj) &&
	       hsize == want_len && odb_object_size(obj) == want_len &&
	       !memcmp(odb_object_data(obj), want, want_len) &&
	       ((const char *)odb_object_data(obj))[want_len] == '\0';
	if (!same)
		diag("object %s %s differs", l->types[i], hex);
	odb_object_free(obj);
	free(want);
	return same;
}

/* Two listed ids that share their first two hex digits, or 0. */
static int shared_pair(const struct listed *l, size_t *a, size_t *b)
{
	for (*a = 0; *a < l->nr; (*a)++)
		for (*b = *a + 1; *b < l->nr; (*b)++)
			if (l->ids[*a].id[0] == l->ids[*b].id[0])
				return 1;
	return 0;
}

static void test_prefixes(git_odb *odb, const char *objects,
			  const struct listed *l, const char *how)
{
	struct ga_store *store = ga_store_new(algo, 0);
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct ga_oid pre, found;
	size_t i, a, b, good = 0;

	for (i = 0; i < l->nr; i++) {
		ga_oid_fmt(hex, &l->ids[i]);
		ga_oid_from_hex_prefix(&pre, algo, hex, 10);
		if (odb_exists_prefix(&found, odb, &pre, 10) == 0 &&
		    ga_oid_equal(&found, &l->ids[i]) &&
		    odb_exists_prefix(&found, odb, &l->ids[i],
				      ga_hash_hexsz(algo)) == 0 &&
		    ga_oid_equal(&found, &l->ids[i]))
			good++;
	}
	ok(good == l->nr, "%s: %zu of %zu ids found by 10 hex digits", how,
	   good, l->nr);
	ok(shared_pair(l, &a, &b), "%s: two ids share their first byte", how);
	ga_oid_fmt(hex, &l->ids[a]);
	ga_oid_from_hex_prefix(&pre, algo, hex, 2);
	ga_store_add_dir(store, objects, NULL);
	is_int(ga_store_find_prefix(store, &pre, 2, &found), GA_EAMBIGUOUS_ID,
	       "%s: their 2-digit prefix is ambiguous in the store", how);
	ga_store_free(store);
	ga_oid_from_hex_prefix(&pre, algo, hex, 4);
	is_int(odb_exists_prefix(&found, odb, &pre, 3), GIT_EAMBIGUOUS,
	       "%s: 3 digits are too short, as libgit2 says", how);
	ga_oid_clear(&pre, algo);
	pre.id[0] = 0x12;
	pre.id[1] = 0x34;
	pre.id[2] = 0x56;
	pre.id[3] = 0x78;
	pre.id[4] = 0x9a;
	is_int(odb_exists_prefix(&found, odb, &pre, 10), GIT_ENOTFOUND,
	       "%s: an unknown prefix is not found", how);
}

static void test_reads(git_odb *odb, const char *r, const char *how)
{
	struct listed l;
	struct ga_oid missing;
	/* Not NULL: a failed read must set it so. */
	struct odb_object *obj = (struct odb_object *)&missing;
	size_t i, good = 0;

	list_objects(&l, r);
	for (i = 0; i < l.nr; i++)
		good += (size_t)reads_as_git(odb, r, &l, i);
	ok(l.nr >= 100 && good == l.nr,
	   "%s: %zu of %zu objects read as git prints them", how, good, l.nr);
	ga_oid_clear(&missing, algo);
	missing.id[0] = 0xfe;
	is_int(odb_read(&obj, odb, &missing), GIT_ENOTFOUND,
	       "%s: a missing object is GIT_ENOTFOUND", how);
	ok(obj == NULL, "%s: and nothing is handed back", how);
	ok(git_error_last() && !strncmp(git_error_last()->message,
					"object not found - no match for id (fe00",
					40),
	   "%s: with libgit2's message", how);
	ok(odb_exists(odb, &missing) == 0, "%s: it does not exist", how);
	listed_release(&l);
}

/* A whole blob, through odb_stream_open() and odb_stream_read(). */
static int streams_as(git_odb *odb, const struct ga_oid *id,
		      const char *want, size_t want_len)
{
	struct odb_stream *st = NULL;
	struct ga_buf got = GA_BUF_INIT;
	git_object_t type;
	unsigned char buf[100];
	size_t size = 0, n = 0;
	int error, same;

	if ((error = odb_stream_open(&st, &size, &type, odb, id)) < 0)
		return error;
	do {
		if (odb_stream_read(st, buf, sizeof(buf), &n) < 0)
			break;
		ga_buf_put(&got, buf, n);
	} while (n);
	same = type == GIT_OBJECT_BLOB && size == want_len &&
	       got.len == want_len && !memcmp(got.ptr, want, want_len);
	odb_stream_free(st);
	ga_buf_release(&got);
	return same ? 0 : -1;
}

static int blob_id(struct ga_oid *id, const char *r, const char *rev)
{
	size_t len;
	int status;
	char *hex = scratch_out(&len, &status, "cd %s && git rev-parse %s",
				r, rev);
	int error = hex && ga_oid_from_hex(id, algo, hex) == 0 ? 0 : -1;

	free(hex);
	return error;
}

static void test_damage(const char *r, const char *objects)
{
	struct ga_oid id;
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct odb_object *obj = NULL;
	git_odb *odb = NULL;
	git_object_t type;
	size_t want_len, size;
	int status;
	char *want, *got, *lines;

	ok(blob_id(&id, r, "HEAD:damaged") == 0, "%s", "the blob to damage");
	ga_oid_fmt(hex, &id);
	scratch_sh("cd %s && f=.git/objects/%.2s/%s && chmod u+w $f && "
		   "printf 'not zlib at all' >$f", r, hex, hex + 2);
	want = scratch_out(&want_len, &status,
			   "cd %s && git cat-file blob %s 2>&1 >/dev/null",
			   r, hex);
	ok(odb_open(&odb, objects, ".git/objects", 0, algo,
		    READER(algo)) == 0, "%s",
	   "the damaged database opens");
	is_int(odb_read(&obj, odb, &id), GA_ECORRUPT, "%s",
	       "a damaged loose object is GA_ECORRUPT");
	got = scratch_fmt("error: %s\n", git_error_last() ?
			  git_error_last()->message : "");
	lines = scratch_fmt("error: inflate: data stream error (incorrect "
			    "header check)\nerror: unable to unpack %s "
			    "header\nfatal: loose object %s (stored in "
			    ".git/objects/%.2s/%s) is corrupt\n", hex, hex,
			    hex, hex + 2);
	is_str(got, lines, "with git's lines");
	/* git cat-file reads the header, then the object: the lines twice. */
	if (tap_git_is_2_39())
		is_str(want && strlen(want) >= strlen(got) ?
		       want + strlen(want) - strlen(got) : want, got,
		       "as git 2.39 ends its output");
	free(got);
	free(lines);
	is_int(odb_corrupt_error(GA_ECORRUPT), GA_ECORRUPT, "%s",
	       "odb_corrupt_error() takes them");
	is_int(odb_read_header(&size, &type, odb, &id), GA_ECORRUPT, "%s",
	       "and so is its header");
	ga_error_clear();
	git_odb_free(odb);
	free(want);
}

int main(void)
{
	char *dir = scratch_init("odb-sha256"), *r, *objects, *want;
	struct ga_oid big;
	struct listed l;
	git_odb *odb = NULL;
	size_t want_len;
	int status;

	if (!dir) {
		printf("1..0 # SKIP git is missing\n");
		return 0;
	}
	git_libgit2_init();
	r = scratch_fmt("%s/repo", dir);
	objects = scratch_fmt("%s/.git/objects", r);
	/* Over a hundred loose objects, some with ids that share a byte. */
	scratch_sh("git init -q --object-format=sha256 %s && cd %s && "
		   "for i in $(seq 1 40); do seq 1 $((i * 30)) >f; "
		   "echo $i >>g; git add f g; git commit -qm c$i; done && "
		   "seq 1 20000 >big && echo damaged >damaged && "
		   "git add big damaged && git commit -qm big && "
		   "git tag -a -m tagged v1", r, r);
	ok(odb_open(&odb, objects, ".git/objects", 1, algo,
		    READER(algo)) == 0, "%s",
	   "a SHA-256 database opens");
	ok(odb_hash_algo(odb) == GA_HASH_SHA256, "%s", "and names its hash");
	test_reads(odb, r, "loose");
	list_objects(&l, r);
	test_prefixes(odb, objects, &l, "loose");
	listed_release(&l);
	want = scratch_out(&want_len, &status, "cd %s && cat big", r);
	ok(blob_id(&big, r, "HEAD:big") == 0 &&
	   streams_as(odb, &big, want, want_len) == 0,
	   "%s", "a loose blob streams as git stores it");
	/* A pack made while the database is open is found after a miss. */
	scratch_sh("cd %s && git gc -q && git prune-packed", r);
	test_reads(odb, r, "packed since opened");
	git_odb_free(odb);

	ok(odb_open(&odb, objects, ".git/objects", 1, algo,
		    READER(algo)) == 0, "%s",
	   "the packed database opens");
	test_reads(odb, r, "packed");
	list_objects(&l, r);
	test_prefixes(odb, objects, &l, "packed");
	listed_release(&l);
	ok(streams_as(odb, &big, want, want_len) == 0, "%s",
	   "a packed SHA-256 blob streams as git stores it");
	git_odb_free(odb);

	scratch_sh("cd %s && echo again >damaged && git add damaged && "
		   "git commit -qm loose-again", r);
	test_damage(r, objects);
	free(want);
	free(objects);
	free(r);
	scratch_done(dir);
	git_libgit2_shutdown();
	return tap_done();
}

/*
 * commit-obj.c: commit and tag objects parsed by garchive (git/commit.c)
 * for both hashes, without libgit2's 20-byte objects.  The SHA-256 ids
 * are those of a repository made with `git init --object-format=sha256`.
 */
#include "tap.h"
#include "garchive/common.h"
#include "commit.h"

#include <string.h>

#define T256 "ad4e8ec6a5ed0a3f21c9d0bc3e2b9fb9c8e1e2f1e63e0ce2e5c5e6f4a1a2b3c4"
#define P256 "1b6a5c1bd4a8a38a6b2a1a1f0e8fc48f1c0d3f8d4d2f0cbb9b1e1c2d3e4f5a6b"
#define P1 "ce013625030ba8dba906f756967f9e9ca394464a"
#define T1 "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

static void test_commit_sha256(void)
{
	static const char raw[] =
		"tree " T256 "\n"
		"parent " P256 "\n"
		"parent " T256 "\n"
		"author A <a@example.com> 5 +0000\n"
		"committer C <c@example.com> 1234567890 +0100\n"
		"\nsubject\n";
	struct ga_commit c;
	struct ga_oid id;
	char hex[GA_OID_MAX_HEXSZ + 1];

	ga_hash_object(&id, GA_HASH_SHA256, "commit", raw, sizeof(raw) - 1);
	ok(!ga_commit_parse(&c, &id, raw, sizeof(raw) - 1),
	   "a sha256 commit parses");
	is_str(ga_oid_fmt(hex, &c.tree_id), T256, "its 64-digit tree id");
	ok(c.nr_parents == 2, "two parents");
	is_str(ga_oid_fmt(hex, &c.parents[0]), P256, "first parent");
	ok(c.time == 1234567890, "committer time");
	ok(c.raw_len == sizeof(raw) - 1 && !memcmp(c.raw, raw, c.raw_len) &&
	   !c.raw[c.raw_len], "raw text kept, NUL-terminated");
	ga_commit_release(&c);
}

static void test_commit_odd(void)
{
	static const char no_author[] =
		"tree " T1 "\ncommitter C <c> 77 +0000\n\nx\n";
	static const char sha1_in_256[] = "tree " T1 "\n\nx\n";
	struct ga_commit c;
	struct ga_oid id;

	ga_hash_object(&id, GA_HASH_SHA1, "commit", no_author,
		       sizeof(no_author) - 1);
	ok(!ga_commit_parse(&c, &id, no_author, sizeof(no_author) - 1) &&
	   c.time == 0 && c.nr_parents == 0,
	   "no author line: time 0, as git's parse_commit_date()");
	ga_commit_release(&c);
	ga_hash_object(&id, GA_HASH_SHA256, "commit", sha1_in_256,
		       sizeof(sha1_in_256) - 1);
	ok(ga_commit_parse(&c, &id, sha1_in_256, sizeof(sha1_in_256) - 1) < 0,
	   "a 40-digit tree line in a sha256 commit is refused");
	ga_error_clear();
}

static void test_tag(void)
{
	static const char tag256[] =
		"object " T256 "\ntype commit\ntag v1\n"
		"tagger T <t@example.com> 5 +0000\n\nmessage\n";
	static const char bad_type[] =
		"object " P1 "\ntype commits\ntag v1\n\nm\n";
	static const char no_email[] =
		"object " P1 "\ntype blob\ntag v1\ntagger T 5 +0000\n\nm\n";
	static const char no_tagger[] = "object " P1 "\ntype tree\ntag v1\n";
	struct ga_oid target;
	git_object_t type = GIT_OBJECT_INVALID;
	char hex[GA_OID_MAX_HEXSZ + 1];

	ok(!ga_tag_target(&target, &type, GA_HASH_SHA256, tag256,
			  sizeof(tag256) - 1) && type == GIT_OBJECT_COMMIT,
	   "a sha256 tag of a commit");
	is_str(ga_oid_fmt(hex, &target), T256, "its target");
	ok(ga_tag_target(&target, &type, GA_HASH_SHA1, bad_type,
			 sizeof(bad_type) - 1) < 0, "an unknown type is refused");
	ok(ga_tag_target(&target, &type, GA_HASH_SHA1, no_email,
			 sizeof(no_email) - 1) < 0,
	   "a tagger without <e-mail> is refused, as by libgit2");
	ok(!ga_tag_target(&target, &type, GA_HASH_SHA1, no_tagger,
			  sizeof(no_tagger) - 1) && type == GIT_OBJECT_TREE,
	   "no tagger and no message");
}

int main(void)
{
	test_commit_sha256();
	test_commit_odd();
	test_tag();
	return tap_done();
}

/*
 * treeish-search.c: treeish_search_commits(), git's get_oid_oneline()
 * walk, on a history git writes in each hash: the youngest commit
 * first, commits of one date in the order they were queued (the start
 * list, then parents in parent order), the message after the header's
 * blank line matched as a POSIX extended regex, "!-" negating, "!!" a
 * literal "!", other "!" forms reserved.
 */
#include "tap.h"
#include "gitscratch.h"
#include "odb/odb.h"
#include "treeish-search.h"
#include "garchive/common.h"

#include <git2.h>

/* The id `rev` names in repository `r`. */
static struct ga_oid rev(const char *r, const char *name,
			 enum ga_hash_algo algo)
{
	struct ga_oid id;
	size_t len;
	int status;
	char *out = scratch_out(&len, &status, "cd %s && git rev-parse %s",
				r, name);

	memset(&id, 0, sizeof(id));
	if (!out || ga_oid_from_hex(&id, algo, out) < 0)
		diag("cannot read %s", name);
	free(out);
	return id;
}

/* Whether searching `pattern` from `starts` finds `want` (NULL: none). */
static void finds(git_odb *odb, const struct ga_oid *starts, size_t nr,
		  const char *pattern, const struct ga_oid *want,
		  const char *hash, const char *what)
{
	struct ga_oid got;
	int error;

	memset(&got, 0, sizeof(got));
	error = treeish_search_commits(&got, odb, starts, nr, pattern);
	if (!want)
		ok(error == GA_ENOTFOUND, "%s: %s", hash, what);
	else
		ok(!error && ga_oid_equal(&got, want), "%s: %s", hash, what);
}

static void test_hash(const char *dir, enum ga_hash_algo algo)
{
	const char *hash = ga_hash_name(algo);
	char *r = scratch_fmt("%s/%s", dir, hash);
	char *objects = scratch_fmt("%s/.git/objects", r);
	struct ga_oid a, b, merge, start, pair[2];
	git_odb *odb = NULL;

	/*
	 * start; a and b its children, of one committer date; merge (of
	 * start's line and a) the youngest.
	 */
	scratch_sh("git init -q -b main --object-format=%s %s && cd %s && "
		   "git commit -q --allow-empty -m start && "
		   "git checkout -q -b a && "
		   "GIT_COMMITTER_DATE='1112920000 +0000' "
		   "git commit -q --allow-empty -m 'fix: alpha' && "
		   "git checkout -q -b b main && "
		   "GIT_COMMITTER_DATE='1112920000 +0000' "
		   "git commit -q --allow-empty -m 'fix: beta!' && "
		   "git checkout -q main && "
		   "GIT_COMMITTER_DATE='1112930000 +0000' "
		   "git merge -q --no-ff -m 'merge a' a", hash, r, r);
	a = rev(r, "a", algo);
	b = rev(r, "b", algo);
	merge = rev(r, "main", algo);
	start = rev(r, "main^", algo);
	if (odb_open(&odb, objects, NULL, 0, algo,
		     algo == GA_HASH_SHA1 ? REPOFMT_READER_LIBGIT2
					 : REPOFMT_READER_GARCHIVE) < 0) {
		ok(0, "%s: the database opens", hash);
		goto done;
	}
	pair[0] = a;
	pair[1] = b;
	finds(odb, pair, 2, "fix", &a, hash, "a tie goes to the first queued");
	pair[0] = b;
	pair[1] = a;
	finds(odb, pair, 2, "fix", &b, hash, "in either order");
	finds(odb, &merge, 1, "fix", &a, hash, "a merge's parents are walked");
	finds(odb, &merge, 1, "^merge a\n$", &merge, hash,
	      "the message is matched whole, newline included");
	finds(odb, &merge, 1, "a$", NULL, hash, "no REG_NEWLINE: $ at the end");
	finds(odb, &merge, 1, "^(start|nothing)", &start, hash,
	      "extended syntax");
	finds(odb, &merge, 1, "!-merge", &a, hash, "!- negates");
	finds(odb, &b, 1, "!!", &b, hash, "!! is a literal !");
	finds(odb, &b, 1, "!!beta", NULL, hash, "that must match");
	finds(odb, &b, 1, "beta!", &b, hash, "a ! later is plain");
	finds(odb, &b, 1, "!x", NULL, hash, "other ! forms are reserved");
	finds(odb, &b, 1, "(", NULL, hash, "a bad regex finds nothing");
	finds(odb, &merge, 1, "nomatch", NULL, hash, "no match");
	finds(odb, &merge, 1, "committer", NULL, hash,
	      "the header is not searched");
	git_odb_free(odb);
done:
	free(objects);
	free(r);
}

int main(void)
{
	char *dir = scratch_init("treeish-search");

	if (!dir) {
		printf("1..0 # SKIP git is missing\n");
		return 0;
	}
	git_libgit2_init();
	test_hash(dir, GA_HASH_SHA1);
	test_hash(dir, GA_HASH_SHA256);
	scratch_done(dir);
	git_libgit2_shutdown();
	return tap_done();
}

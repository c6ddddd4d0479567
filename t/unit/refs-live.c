/*
 * refs-live.c: the ref store reading a reftable repository that git
 * keeps rewriting.  A writer (git update-ref --stdin, git pack-refs,
 * git's own auto-compaction) moves twenty branches together from one
 * commit to another in single transactions, and in each one creates
 * refs/heads/gen/<n> and deletes refs/heads/gen/<n-1>; meanwhile the
 * store is opened and read again and again.  Every read must be one
 * moment of the repository: the twenty branches equal, one gen ref,
 * HEAD (symbolic, to the first branch) and the branch's newest reflog
 * entry agreeing, the fixed tags there; no error, no crash.  Tables
 * vanish under the reader all the time (compaction deletes them), so
 * the reload of tables.list is exercised.
 *
 * Needs git 2.45 or later (reftable), on PATH or in /opt/git-*; skipped
 * otherwise.  No timing is asserted: the reader goes on until it has
 * seen the writer commit a number of transactions.
 */
#include "tap.h"

#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "garchive/common.h"
#include "gitscratch.h"
#include "refs/refs-internal.h"

#define BRANCHES 20
#define MIN_READS 300
#define MIN_TRANSACTIONS 30
#define MAX_READS 100000

/* "git version 2.47.3" at least 2.45? */
static int new_enough(const char *git)
{
	char *v = scratch_out(NULL, NULL, "%s --version 2>/dev/null", git);
	int major = 0, minor = 0, ok_ = 0;

	if (sscanf(v, "git version %d.%d", &major, &minor) == 2)
		ok_ = major > 2 || (major == 2 && minor >= 45);
	free(v);
	return ok_;
}

static char *find_git(void)
{
	glob_t g;
	char *found = NULL;
	size_t i;

	if (new_enough("git"))
		return ga_xstrdup("git");
	if (!glob("/opt/git-*/bin/git", 0, NULL, &g)) {
		for (i = g.gl_pathc; i-- > 0 && !found;)
			if (new_enough(g.gl_pathv[i]))
				found = ga_xstrdup(g.gl_pathv[i]);
		globfree(&g);
	}
	return found;
}

struct snapshot {
	struct ga_oid value;
	int branches, same, gens;
	long gen;
	int tags;
	const char *bad;
};

static int look(const struct refs_entry *e, void *payload)
{
	struct snapshot *s = payload;
	const char *rest;

	if (ga_skip_prefix(e->name, "refs/heads/gen/", &rest)) {
		s->gens++;
		s->gen = atol(rest);
	} else if (ga_skip_prefix(e->name, "refs/heads/r", &rest)) {
		if (!s->branches++)
			s->value = e->oid;
		else if (!ga_oid_equal(&s->value, &e->oid))
			s->same = 0;
	} else if (ga_starts_with(e->name, "refs/tags/")) {
		s->tags++;
		if (!(e->flags & REFS_PEELED))
			s->bad = "a tag without its peeled value";
	}
	return 0;
}

static int newest(const struct refs_reflog_entry *e, void *payload)
{
	*(struct ga_oid *)payload = e->new_oid;
	return 1;
}

/* One read of the repository; NULL when it is one moment of it. */
static const char *read_once(struct snapshot *s, const char *git_dir,
			     enum ga_hash_algo algo, unsigned *retries)
{
	struct refs_store *refs;
	struct ga_oid head, logged;
	const char *bad = NULL;

	memset(s, 0, sizeof(*s));
	s->same = 1;
	if (refs_open(&refs, git_dir, git_dir, algo, REFS_STORAGE_REFTABLE))
		return "cannot open";
	if (refs_for_each(refs, "", 0, look, s))
		bad = ga_error_message();
	else if (s->bad)
		bad = s->bad;
	else if (s->branches != BRANCHES || !s->same)
		bad = "the branches moved apart";
	else if (s->gens != 1)
		bad = "not exactly one gen ref";
	else if (s->tags != 2)
		bad = "a tag is missing";
	else if (refs_resolve(NULL, &head, NULL, refs, "HEAD",
			      REFS_RESOLVE_READING) ||
		 !ga_oid_equal(&head, &s->value))
		bad = "HEAD is not its branch";
	else if (refs_for_each_reflog(refs, "refs/heads/r00", 1, newest,
				      &logged) != 1 ||
		 !ga_oid_equal(&logged, &s->value))
		bad = "the reflog is not the ref";
	*retries += refs->main_stack.retries;
	refs_free(refs);
	return bad;
}

static pid_t start_writer(const char *git, const char *repo)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		/*
		 * Move the branches between two commits, a gen ref along;
		 * pack now and then.  At most a few thousand rounds, should
		 * the reader be gone.
		 */
		char *script = ga_xstrfmt(
			"cd %s || exit 1\n"
			"a=$(%s rev-parse HEAD~1) b=$(%s rev-parse HEAD)\n"
			"n=1\n"
			"while test ! -e stop && test $n -lt 5000; do\n"
			"  if test $((n %% 2)) = 0; then v=$a; else v=$b; fi\n"
			"  { echo start\n"
			"    for r in $(seq -w 0 %d); do\n"
			"      echo \"update refs/heads/r$r $v\"; done\n"
			"    echo \"create refs/heads/gen/$n $v\"\n"
			"    echo \"delete refs/heads/gen/$((n - 1))\"\n"
			"    echo commit\n"
			"  } | %s update-ref --stdin >/dev/null || exit 1\n"
			"  if test $((n %% 7)) = 0; then\n"
			"    %s pack-refs --all || exit 1; fi\n"
			"  n=$((n + 1))\n"
			"done\n", repo, git, git, BRANCHES - 1, git, git);

		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void live(const char *git, const char *dir, const char *hash)
{
	char *repo = ga_xstrfmt("%s/%s", dir, hash);
	char *git_dir = ga_xstrfmt("%s/.git", repo);
	enum ga_hash_algo algo = ga_hash_by_name(hash);
	long first_gen = -1, last_gen = -1;
	unsigned retries = 0;
	int reads, status;
	const char *bad = NULL;
	pid_t writer;

	if (scratch_sh("%s init -q --ref-format=reftable --object-format=%s "
		       "%s && cd %s && %s commit -q --allow-empty -m one && "
		       "%s commit -q --allow-empty -m two && "
		       "for r in $(seq -w 0 %d); do %s branch r$r || exit 1; "
		       "done && %s branch gen/0 && %s tag -a -m t t1 && "
		       "%s tag -a -m t t2 HEAD~1 && "
		       "%s symbolic-ref HEAD refs/heads/r00", git, hash, repo,
		       repo, git, git, BRANCHES - 1, git, git, git, git,
		       git)) {
		ok(0, "%s: a reftable repository", hash);
		goto done;
	}
	writer = start_writer(git, repo);
	for (reads = 0; reads < MAX_READS && !bad; reads++) {
		struct snapshot s;

		bad = read_once(&s, git_dir, algo, &retries);
		if (!bad) {
			if (first_gen < 0)
				first_gen = s.gen;
			last_gen = s.gen;
		}
		if (reads >= MIN_READS &&
		    last_gen - first_gen >= MIN_TRANSACTIONS)
			break;
		/* The writer gave up (or died): stop reading. */
		if (waitpid(writer, &status, WNOHANG) == writer) {
			writer = -1;
			break;
		}
	}
	ok(!bad, "%s: %d reads while git wrote %ld transactions, each one "
	   "moment of the refs%s%s", hash, reads, last_gen - first_gen,
	   bad ? ": " : "", bad ? bad : "");
	diag("%s: tables.list read again %u times after a table vanished",
	     hash, retries);
	ok(last_gen - first_gen >= MIN_TRANSACTIONS,
	   "%s: the writer kept writing while the store read", hash);
	if (writer > 0) {
		char *stop = ga_xstrfmt("%s/stop", repo);

		scratch_write(stop, "", 0);
		free(stop);
		waitpid(writer, &status, 0);
	}
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "%s: the writer "
	   "had no error", hash);
done:
	free(repo);
	free(git_dir);
}

int main(void)
{
	char *git = find_git(), *dir;

	if (!git) {
		printf("1..0 # SKIP needs git 2.45 or later (reftable) on "
		       "PATH or in /opt/git-*/bin\n");
		return 0;
	}
	dir = scratch_init("refs-live");
	if (!dir) {
		printf("1..0 # SKIP no scratch directory\n");
		free(git);
		return 0;
	}
	diag("writer: %s", git);
	live(git, dir, "sha1");
	live(git, dir, "sha256");
	scratch_done(dir);
	free(git);
	return tap_done();
}

/*
 * Fuzz the export-subst expander: the input is a file's content, and
 * every "$Format:...$" in it is expanded for a commit of a small
 * repository made at start-up (a tag, a branch, a multi-line message
 * with a trailer, a mailmap).  Text without "$Format:" must come back
 * unchanged.
 */
#include "fuzz.h"

#include "garchive/config.h"
#include "commit.h"
#include "odb/odb.h"
#include "subst.h"

#include <git2.h>
#include <unistd.h>

static git_repository *repo;
static struct ga_commit *commit;
static struct ga_config *cfg;

static void die(const char *what)
{
	const git_error *e = git_error_last();

	fprintf(stderr, "subst fuzz setup: %s: %s\n", what,
		e && e->message ? e->message : "?");
	abort();
}

static void make_repo(void)
{
	char dir[] = "/tmp/garchive-fuzz-subst-XXXXXX";
	git_signature *author = NULL, *committer = NULL;
	git_treebuilder *tb = NULL;
	git_index *index = NULL;
	git_oid blob, tree, id, tag;
	git_tree *t = NULL;
	git_object *target = NULL;
	git_odb *odb = NULL;
	struct ga_oid cid;
	static const char mailmap[] =
		"Mapped Name <mapped@example.com> <author@example.com>\n";

	if (!mkdtemp(dir) || git_repository_init(&repo, dir, 1) < 0)
		die("init");
	if (git_signature_new(&author, "A U Thor", "author@example.com",
			      1112911993, -420) < 0 ||
	    git_signature_new(&committer, "C O Mitter",
			      "committer@example.com", 1112912053, 330) < 0)
		die("signature");
	if (git_blob_create_from_buffer(&blob, repo, mailmap,
					sizeof(mailmap) - 1) < 0 ||
	    git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, ".mailmap", &blob,
				   GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_write(&tree, tb) < 0 ||
	    git_tree_lookup(&t, repo, &tree) < 0)
		die("tree");
	if (git_commit_create(&id, repo, "HEAD", author, committer, NULL,
			      "subject line\n\nbody line one\nbody line two\n"
			      "\nSigned-off-by: A U Thor <author@example.com>\n",
			      t, 0, NULL) < 0 ||
	    git_repository_odb(&odb, repo) < 0)
		die("commit");
	odb_oid_from_git(&cid, &id);
	if (ga_commit_read(&commit, odb, &cid) < 0)
		die("commit read");
	git_odb_free(odb);
	if (git_object_lookup(&target, repo, &id, GIT_OBJECT_COMMIT) < 0 ||
	    git_tag_create(&tag, repo, "v1.0", target, committer, "v1.0\n",
			   0) < 0 ||
	    git_tag_create_lightweight(&tag, repo, "light", target, 0) < 0)
		die("tags");
	if (config_load(&cfg, repo, NULL, 0) < 0)
		die("config");
	git_object_free(target);
	git_tree_free(t);
	git_treebuilder_free(tb);
	git_index_free(index);
	git_signature_free(author);
	git_signature_free(committer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ga_buf out = GA_BUF_INIT;
	struct subst *s = NULL;
	int error;

	if (!repo) {
		git_libgit2_init();
		make_repo();
	}
	FUZZ_CHECK(subst_new(&s, repo, commit, cfg) == 0);
	error = subst_expand(&out, s, data, size);
	if (!error && !memmem(data, size, "$Format:", 8))
		FUZZ_CHECK(out.len == size && !memcmp(out.ptr ? out.ptr : "",
						      data, size));
	FUZZ_CHECK(error == 0 || *ga_error_message());
	subst_free(s);
	ga_buf_release(&out);
	ga_error_clear();
	return 0;
}

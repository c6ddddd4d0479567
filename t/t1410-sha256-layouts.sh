#!/bin/sh
test_description='SHA-256 repositories in every layout git opens: work tree, GIT_DIR, inside the git directory, bare, linked worktree, core.worktree, included config'
. "$(dirname "$0")/lib.sh"

# libgit2 1.9 (Debian 13) refuses to open a SHA-256 repository, which
# garchive then opens through a stand-in common directory
# (src/git/repo-open.c); libgit2 1.5 (Debian 12) opens it itself.  The
# same cases hold either way, and leave nothing in TMPDIR.

# test_must_be_empty_dir_ DIR: nothing left in DIR.
test_must_be_empty_dir_ () {
	left=$(ls -A "$1") &&
	test -z "$left" || {
		echo >&2 "left in $1: $left"
		return 1
	}
}

test_expect_success 'setup' '
	git init -q --object-format=sha256 r &&
	(
		cd r &&
		mkdir -p sub &&
		echo top >top.txt &&
		echo s >sub/s.txt &&
		printf "sub/s.txt export-subst\n" >.gitattributes &&
		echo "\$Format:%H %h\$" >>sub/s.txt &&
		git add . &&
		test_tick &&
		git commit -q -m one &&
		echo two >>top.txt &&
		test_tick &&
		git commit -q -a -m two
	) &&
	test "$(git -C r rev-parse --show-object-format)" = sha256 &&
	mkdir tmp &&
	TMPDIR=$TRASH_DIRECTORY/tmp && export TMPDIR
'

test_expect_success 'from the top of the work tree: tar, zip, a subtree' '
	(
		cd r &&
		test_same_as_git HEAD &&
		test "$actual_code" = 0 &&
		test_same_as_git --format=zip HEAD~1 &&
		test_same_as_git HEAD:sub &&
		test_same_as_git --prefix=p/ HEAD sub
	) &&
	test_must_be_empty_dir_ tmp
'

test_expect_success 'GIT_DIR, and inside the git directory' '
	(GIT_DIR=r/.git && export GIT_DIR && test_same_as_git HEAD) &&
	(cd r/.git && test_same_as_git HEAD) &&
	(cd r/.git/refs && test_same_as_git HEAD~1) &&
	(cd r && GIT_DIR=.git GIT_WORK_TREE=. &&
	 export GIT_DIR GIT_WORK_TREE && test_same_as_git HEAD) &&
	# relative to the current directory, as git takes them
	mkdir elsewhere &&
	(cd elsewhere && GIT_DIR=../r/.git GIT_WORK_TREE=../r &&
	 export GIT_DIR GIT_WORK_TREE && test_same_as_git HEAD) &&
	test_must_be_empty_dir_ tmp
'

test_expect_success 'a bare clone, and one whose config has no core.bare' '
	git clone -q --bare r bare.git &&
	(cd bare.git && test_same_as_git HEAD && test_same_as_git HEAD:sub) &&
	cp -R r/.git mirror.git &&
	git --git-dir=mirror.git config --unset core.bare &&
	(cd mirror.git && test_same_as_git HEAD) &&
	test_must_be_empty_dir_ tmp
'

test_expect_success 'a linked worktree: its own HEAD' '
	git -C r worktree add -q --detach ../wt HEAD~1 &&
	(cd wt && test_same_as_git HEAD && test_same_as_git --format=zip HEAD) &&
	(cd r && test_same_as_git HEAD) &&
	test_must_be_empty_dir_ tmp
'

test_expect_success 'core.worktree, and settings from an included file' '
	git --git-dir=mirror.git config core.worktree "$TRASH_DIRECTORY/r" &&
	(cd mirror.git/refs && test_same_as_git HEAD) &&
	printf "[tar]\n\tumask = 0\n" >included &&
	git -C r config include.path "$TRASH_DIRECTORY/included" &&
	(cd r && test_same_as_git HEAD) &&
	git -C r config --unset include.path &&
	test_must_be_empty_dir_ tmp
'

test_expect_success 'a bad config line is still reported as git reports it' '
	cp -R r/.git broken.git &&
	printf "[core\n" >>broken.git/config &&
	(cd broken.git && same_failure_as_git HEAD &&
	 test "$actual_code" = 128) &&
	test_must_be_empty_dir_ tmp
'

test_done

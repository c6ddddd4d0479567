#!/bin/sh
test_description='the repository as git finds it: inside the git directory, bare copies without core.bare, shallow and partial clones'
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup' '
	git init -q r &&
	(
		cd r &&
		mkdir -p sub/inner &&
		echo top >top.txt &&
		echo s >sub/s.txt &&
		echo i >sub/inner/i.txt &&
		git add . &&
		test_tick &&
		git commit -q -m one &&
		echo two >>top.txt &&
		test_tick &&
		git commit -q -a -m two &&
		echo three >>top.txt &&
		test_tick &&
		git commit -q -a -m three
	)
'

# git's discovery takes a directory that is a git directory as a bare
# repository: no work tree, so no subdirectory to archive.
test_expect_success 'inside the git directory of a work tree' '
	for dir in r/.git r/.git/refs r/.git/refs/heads r/.git/objects r/.git/logs
	do
		(cd "$dir" && test_same_as_git HEAD &&
		 test "$actual_code" = 0 &&
		 test_same_as_git --format=zip HEAD~1) || return 1
	done &&
	# GIT_DIR names the repository: the work tree is the current
	# directory, or GIT_WORK_TREE
	(cd r/.git && GIT_DIR=. && export GIT_DIR && test_same_as_git HEAD) &&
	(cd r/.git/refs && GIT_DIR=.. && export GIT_DIR &&
	 test_same_as_git HEAD) &&
	(cd r && GIT_DIR=.git && export GIT_DIR && test_same_as_git HEAD) &&
	(cd r/sub/inner && GIT_DIR=../../.git && export GIT_DIR &&
	 test_same_as_git HEAD) &&
	(cd r/sub && GIT_DIR=../.git GIT_WORK_TREE=.. &&
	 export GIT_DIR GIT_WORK_TREE && test_same_as_git HEAD) &&
	(GIT_DIR=r/.git && export GIT_DIR && test_same_as_git HEAD)
'

test_expect_success 'a bare copy whose config has no core.bare' '
	cp -R r/.git mirror.git &&
	git --git-dir=mirror.git config --unset core.bare &&
	cp -R r/.git notbare.git &&
	git --git-dir=notbare.git config core.bare false &&
	mkdir -p outer &&
	cp -R r/.git outer/copy &&
	git --git-dir=outer/copy config --unset core.bare &&
	for dir in mirror.git mirror.git/refs notbare.git notbare.git/objects \
		outer/copy outer/copy/refs/tags
	do
		(cd "$dir" && test_same_as_git HEAD &&
		 test_same_as_git HEAD:sub) || return 1
	done &&
	# unless a work tree is named
	(
		cd mirror.git/refs &&
		GIT_WORK_TREE=$TRASH_DIRECTORY/r/sub && export GIT_WORK_TREE &&
		test_same_as_git HEAD
	) &&
	git --git-dir=mirror.git config core.worktree "$TRASH_DIRECTORY/r" &&
	test_when_finished "git --git-dir=\"$TRASH_DIRECTORY/mirror.git\" config --unset core.worktree" &&
	(cd mirror.git/refs && test_same_as_git HEAD) &&
	(cd mirror.git && test_same_as_git HEAD)
'

# A shallow clone's cut-off commits have no parents for git.
test_expect_success 'shallow clone: a parent beyond the cut' '
	git clone -q --depth=1 "file://$TRASH_DIRECTORY/r" shallow &&
	cd shallow &&
	for name in HEAD~1 HEAD^ HEAD~5 main~1 HEAD~1:sub HEAD^2
	do
		test_same_as_git "$name" &&
		test "$actual_code" = 128 &&
		test_cmp expect.err actual.err || return 1
	done &&
	grep "^fatal: not a valid object name: HEAD^2\$" actual.err &&
	test_same_as_git HEAD^0 &&
	test_same_as_git HEAD
'

test_expect_success 'shallow clone of depth 2' '
	git clone -q --depth=2 "file://$TRASH_DIRECTORY/r" shallow2 &&
	cd shallow2 &&
	test_same_as_git HEAD~1 &&
	test "$actual_code" = 0 &&
	test_same_as_git HEAD~2 &&
	test "$actual_code" = 128 &&
	test_cmp expect.err actual.err
'

test_done

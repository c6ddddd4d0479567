#!/bin/sh
test_description='the repository as git finds it: inside the git directory, bare copies without core.bare, shallow and partial clones'
. "$(dirname "$0")/lib.sh"
# Where git is not 2.39, the comparisons replay git 2.39's record (t/lib.sh):
# git 2.47 words a bad GIT_NO_LAZY_FETCH otherwise ("environment value").
test_uses_git_2_39_record

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
# (The comparisons leave their files where they run: in a copy.)
test_expect_success 'inside the git directory of a work tree' '
	cp -R r w &&
	for dir in w/.git w/.git/refs w/.git/refs/heads w/.git/objects w/.git/logs
	do
		(cd "$dir" && test_same_as_git HEAD &&
		 test "$actual_code" = 0 &&
		 test_same_as_git --format=zip HEAD~1) || return 1
	done &&
	# GIT_DIR names the repository: the work tree is the current
	# directory, or GIT_WORK_TREE
	(cd w/.git && GIT_DIR=. && export GIT_DIR && test_same_as_git HEAD) &&
	(cd w/.git/refs && GIT_DIR=.. && export GIT_DIR &&
	 test_same_as_git HEAD) &&
	(cd w && GIT_DIR=.git && export GIT_DIR && test_same_as_git HEAD) &&
	(cd w/sub/inner && GIT_DIR=../../.git && export GIT_DIR &&
	 test_same_as_git HEAD) &&
	(cd w/sub && GIT_DIR=../.git GIT_WORK_TREE=.. &&
	 export GIT_DIR GIT_WORK_TREE && test_same_as_git HEAD) &&
	(GIT_DIR=w/.git && export GIT_DIR && test_same_as_git HEAD)
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

# partial_clones: two fresh blob-less clones of r, pc-git for git and
# pc-ga for garchive (what one fetches the other must fetch too).
partial_clones () {
	rm -rf pc-git pc-ga &&
	git clone -q --no-checkout --filter=blob:none \
		"file://$TRASH_DIRECTORY/r" pc-git &&
	git clone -q --no-checkout --filter=blob:none \
		"file://$TRASH_DIRECTORY/r" pc-ga
}

# same_in_clones ARGS...: `git archive ARGS` in pc-git and `garchive
# ARGS` in pc-ga exit alike and write the same stdout and stderr (in
# the same frozen second: archives of a tree carry "now").  garchive
# runs with $clone_threads threads when that is set: missing blobs are
# fetched from the read-ahead workers.
same_in_clones () {
	test_clock_start
	# Not in a subshell: a replay sets the clock garchive runs on.
	cd pc-git || return 1
	ref_git_ archive "$@" >../expect.out 2>../expect.err
	expect_code=$?
	cd .. || return 1
	(cd pc-ga && frozen garchive ${clone_threads:+--threads=$clone_threads} \
		"$@") >actual.out 2>actual.err
	actual_code=$?
	same_code_as_git_ &&
	test_cmp expect.err actual.err &&
	test_cmp expect.out actual.out
}

# blobs_missing DIR: how many blobs of HEAD's tree DIR lacks.
blobs_missing () {
	git -C "$1" rev-list --objects --missing=print --no-walk HEAD |
	grep -c "^?"
}

test_expect_success 'partial clone: missing blobs fetched as git fetches them' '
	test_when_finished "unset clone_threads" &&
	git -C r config uploadpack.allowFilter true &&
	for clone_threads in 1 8
	do
		partial_clones &&
		test "$(blobs_missing pc-ga)" = 3 &&
		same_in_clones HEAD &&
		test "$actual_code" = 0 &&
		test "$(blobs_missing pc-ga)" = 0 &&
		partial_clones &&
		same_in_clones --format=zip HEAD~1:sub &&
		test "$actual_code" = 0 || return 1
	done
'

test_expect_success 'partial clone: GIT_NO_LAZY_FETCH, as git 2.39' '
	test_when_finished "unset clone_threads" &&
	partial_clones &&
	for clone_threads in 1 8
	do
		(
			GIT_NO_LAZY_FETCH=1 && export GIT_NO_LAZY_FETCH &&
			same_in_clones HEAD &&
			test "$actual_code" = 128 &&
			grep "^warning: lazy fetching disabled; some objects may not be available\$" actual.err &&
			grep "^fatal: could not fetch [0-9a-f]* from promisor remote\$" actual.err &&
			same_in_clones HEAD:sub/inner &&
			GIT_NO_LAZY_FETCH=bogus && same_in_clones HEAD &&
			test "$actual_code" = 128
		) || return 1
	done &&
	(
		GIT_NO_LAZY_FETCH=0 && export GIT_NO_LAZY_FETCH &&
		same_in_clones HEAD &&
		test "$actual_code" = 0
	) &&
	test_must_be_empty actual.err
'

test_expect_success 'partial clone: the promisor remote is gone' '
	test_when_finished "unset clone_threads" &&
	partial_clones &&
	git -C pc-git config remote.origin.url "$TRASH_DIRECTORY/gone" &&
	git -C pc-ga config remote.origin.url "$TRASH_DIRECTORY/gone" &&
	for clone_threads in 1 8
	do
		same_in_clones HEAD &&
		test "$actual_code" = 128 &&
		grep "^fatal: could not fetch [0-9a-f]* from promisor remote\$" actual.err ||
		return 1
	done &&
	partial_clones &&
	git -C pc-git config --unset remote.origin.promisor &&
	git -C pc-ga config --unset remote.origin.promisor &&
	git -C pc-git config extensions.partialClone origin &&
	git -C pc-ga config extensions.partialClone origin &&
	same_in_clones HEAD &&
	test "$actual_code" = 0
'

# A blob the archive reads from outside its tree, fetched alone.
test_expect_success 'partial clone: a blob read from outside the tree' '
	(
		cd r &&
		echo "New Name <author@example.com>" >.mailmap &&
		echo "\$Format:%aN %H\$" >subst &&
		echo "subst export-subst" >.gitattributes &&
		git add .mailmap subst .gitattributes &&
		test_tick &&
		git commit -q -m mailmap &&
		git rm -q .mailmap &&
		test_tick &&
		git commit -q -m "no mailmap"
	) &&
	partial_clones &&
	(cd pc-git && git -c mailmap.blob=HEAD~1:.mailmap archive HEAD) \
		>expect.tar 2>expect.err &&
	(cd pc-ga && garchive -c mailmap.blob=HEAD~1:.mailmap HEAD) \
		>actual.tar 2>actual.err &&
	test_cmp expect.err actual.err &&
	test_cmp expect.tar actual.tar &&
	tar xOf actual.tar subst >subst &&
	grep "^New Name " subst
'

test_done

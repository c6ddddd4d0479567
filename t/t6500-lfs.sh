#!/bin/sh
test_description='git-lfs: archives hold the real content, as with git'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-attr.sh"
. "$TEST_DIRECTORY/lib-repo.sh"
# Where git is not 2.39, the comparisons replay git 2.39's record
# (t/lib.sh): run from sub/, git 2.41 and later apply the root's
# .gitattributes (filter=lfs) where git 2.39, and garchive, do not.
test_uses_git_2_39_record

# Debian's git-lfs (make deps installs it; CI runs this).
test_lazy_prereq LFS 'git lfs version'

if ! test_have_prereq LFS; then
	test_skip_all 'git lfs version fails: git-lfs is not installed'
fi

# The lines `git lfs install --local` writes, without its hooks.
lfs_config () {
	git config filter.lfs.clean "git-lfs clean -- %f" &&
	git config filter.lfs.smudge "git-lfs smudge -- %f" &&
	git config filter.lfs.process "git-lfs filter-process" &&
	git config filter.lfs.required true
}

test_expect_success 'setup: LFS-tracked files committed locally' '
	attr_repo_init repo &&
	cd repo &&
	git lfs install --local >/dev/null &&
	git config --get filter.lfs.process &&
	git lfs track "*.bin" >/dev/null &&
	mkdir -p sub &&
	printf "sub/*.dat filter=lfs diff=lfs merge=lfs -text\n" \
		>>.gitattributes &&
	repo_random 3000 1 >a.bin &&
	repo_random 70000 2 >sub/b.bin &&
	repo_random 100 3 >sub/c.dat &&
	printf "" >empty.bin &&
	printf "text, not lfs\n" >plain.txt &&
	git add . &&
	test_commit lfs &&
	git tag -a -m v1 v1 &&
	git cat-file -p HEAD:a.bin >pointer &&
	grep "^version https://git-lfs.github.com/spec/v1" pointer &&
	test -d .git/lfs/objects
'

test_expect_success 'git archive itself smudges LFS files' '
	cd repo &&
	git archive HEAD >git.tar &&
	tar xOf git.tar a.bin >out &&
	cmp a.bin out
'

# The archives hold 70 KB of random bytes, more than a record of git
# 2.39 keeps, and a later git makes other bytes from sub/ (above): they
# are compared by their SHA-1.
test_expect_success 'through filter.lfs.process, every form' '
	cd repo &&
	forms_cmp=digest_same_as_git same_in_forms &&
	garchive HEAD >ga.tar &&
	tar xOf ga.tar a.bin >out &&
	cmp a.bin out &&
	tar xOf ga.tar sub/b.bin >out &&
	cmp sub/b.bin out &&
	tar xOf ga.tar sub/c.dat >out &&
	cmp sub/c.dat out
'

test_expect_success 'through filter.lfs.smudge, every form' '
	cd repo &&
	test_when_finished "git config filter.lfs.process \"git-lfs filter-process\"" &&
	git config --unset filter.lfs.process &&
	forms_cmp=digest_same_as_git same_in_forms &&
	garchive --format=zip HEAD >ga.zip &&
	git archive --format=zip HEAD >git.zip &&
	cmp git.zip ga.zip
'

test_expect_success 'GIT_LFS_SKIP_SMUDGE leaves the pointers' '
	cd repo &&
	(
		GIT_LFS_SKIP_SMUDGE=1 && export GIT_LFS_SKIP_SMUDGE &&
		test_same_as_git HEAD &&
		tar xOf actual.out a.bin >out &&
		test_cmp pointer out &&
		test_same_as_git --format=zip HEAD
	)
'

test_expect_success 'LFS files above core.bigFileThreshold stay pointers' '
	cd repo &&
	(
		GIT_CONFIG_PARAMETERS="$(config_param core.bigfilethreshold 100)" &&
		export GIT_CONFIG_PARAMETERS &&
		test_same_as_git HEAD &&
		test_same_as_git --format=zip HEAD
	)
'

test_expect_success 'a bare clone with the LFS objects' '
	git clone -q --bare repo bare.git &&
	cp -R repo/.git/lfs bare.git/lfs &&
	cd bare.git &&
	lfs_config &&
	same_in_bare &&
	git config --unset filter.lfs.process &&
	same_in_bare
'

test_expect_success 'a missing LFS object: the required filter fails' '
	git clone -q repo missing &&
	cd missing &&
	lfs_config &&
	git lfs install --local >/dev/null &&
	rm -rf .git/lfs/objects &&
	git remote set-url origin "$TRASH_DIRECTORY/nowhere" &&
	same_failure_as_git HEAD a.bin &&
	git config --unset filter.lfs.process &&
	same_failure_as_git HEAD a.bin
'

test_done

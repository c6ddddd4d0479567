#!/bin/sh
test_description='the reader chosen at open: GARCHIVE_TEST_READER switches a SHA-1 repository from libgit2 reading over garchive'"'"'s stores to garchive'"'"'s stores read directly'
. "$(dirname "$0")/lib.sh"

# src/git/repofmt.c chooses the reader once, when the repository is
# opened: garchive's own object and ref stores for SHA-256, and for
# SHA-1 too when GARCHIVE_TEST_READER=garchive (make test-own-reader);
# else libgit2's reads, over garchive's object store and libgit2's files
# ref backend.  The two differ where libgit2's revparse reads a files
# reflog itself: "HEAD@{<date>}" before the oldest entry is the oldest
# value either way, but only garchive's ref store says so as git does
# ("warning: log for 'HEAD' only goes back to ...").  That difference
# shows which reader served.  Should libgit2's path learn the warning,
# the second test fails and another difference has to take its place.

test_expect_success 'setup: three commits a day apart' '
	git init -q -b main r &&
	(
		cd r &&
		for i in 1 2 3
		do
			echo $i >f &&
			git add f &&
			test_tick &&
			GIT_COMMITTER_DATE="$((1112911993 + i * 86400)) +0000" \
				git commit -q -m c$i || return 1
		done
	)
'

test_expect_success 'garchive: a date before the reflog warns as git does' '
	(
		cd r &&
		GARCHIVE_TEST_READER=garchive &&
		export GARCHIVE_TEST_READER &&
		test_same_as_git --format=tar "HEAD@{2005-01-01}" &&
		grep "^warning: log for .HEAD. only goes back to" actual.err
	)
'

test_expect_success SHA1 'libgit2 (and unset): the same commit, no warning' '
	(
		cd r &&
		GARCHIVE_TEST_READER=garchive frozen garchive --format=tar \
			"HEAD@{2005-01-01}" >own.tar 2>own.err &&
		GARCHIVE_TEST_READER=libgit2 frozen garchive --format=tar \
			"HEAD@{2005-01-01}" >lg2.tar 2>lg2.err &&
		test_cmp own.tar lg2.tar &&
		test_must_be_empty lg2.err &&
		(
			unset GARCHIVE_TEST_READER &&
			frozen garchive --format=tar "HEAD@{2005-01-01}" \
				>unset.tar 2>unset.err
		) &&
		test_cmp own.tar unset.tar &&
		test_must_be_empty unset.err &&
		test -s own.err
	)
'

test_expect_success 'garchive: refs, objects and a newer reflog entry agree' '
	(
		cd r &&
		GARCHIVE_TEST_READER=garchive &&
		export GARCHIVE_TEST_READER &&
		test_same_as_git --format=zip "HEAD@{1}" &&
		test_same_as_git --format=tar "main@{2005-04-10}" &&
		test_same_as_git --format=tar HEAD~2:
	)
'

test_done

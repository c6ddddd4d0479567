#!/bin/sh
test_description='golden checksums: the output stability promise

The bytes garchive writes for a fixed repository are pinned here.  A
change that moves one of these checksums changes what users get for
the same tree: it must be deliberate, documented in OUTPUT STABILITY,
and the checksum updated in the same commit.  The compressed outputs
depend on the compressor, so they are checked only with the gzip and
zlib versions they were recorded with (Debian bookworm: gzip 1.12,
zlib 1.2.13).'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-repo.sh"

test_lazy_prereq GZIP_1_12 'gzip --version | head -n 1 | grep -qx "gzip 1.12"'
test_lazy_prereq ZLIB_1_2_13 'garchive --version --build-options | grep -qx "zlib: 1.2.13"'

# check_sum FILE SHA256
check_sum () {
	echo "$2  $1" >expect.sum &&
	sha256sum "$1" >actual.sum &&
	test_cmp expect.sum actual.sum
}

# The pinned checksums are of the SHA-1 repository (its ids are in the
# archives); in SHA-256 mode the last test still compares with git.
test_expect_success 'setup: the fixed repository' '
	make_edge_repo repo
'

test_expect_success SHA1 'the fixed repository has its pinned commit' '
	git -C repo rev-parse HEAD >head &&
	echo 2aaf19e524f99518736aab85854de826e28be6e0 >expect.head &&
	test_cmp expect.head head
'

test_expect_success SHA1 'tar' '
	(cd repo && garchive --format=tar --prefix=golden/ HEAD) >golden.tar &&
	check_sum golden.tar 1148e70ed73f2b573a9a96da45aed3326d898a2d25a1b258d6874bf2c113634b
'

test_expect_success SHA1 'zip' '
	(cd repo && garchive --format=zip --prefix=golden/ HEAD) >golden.zip &&
	check_sum golden.zip 78cbf67c2c6c9871860529bd73de4f18fc8b1f21485ba537ad9b0eca442e7933
'

test_expect_success SHA1,GZIP_1_12 'tgz through gzip -cn' '
	(cd repo && garchive --format=tgz --prefix=golden/ HEAD) >golden.tgz &&
	check_sum golden.tgz d8f43ec8414144210ed23c24fb886d51b37f40aa8c84b41fe616d5579041335f &&
	(cd repo && garchive --format=tgz -9 --prefix=golden/ HEAD) >golden9.tgz &&
	check_sum golden9.tgz 1077a4e16b771d0e6738da587b8eee6bc00c01ae950e7f57f183cac2580752af
'

test_expect_success SHA1,ZLIB_1_2_13 'the in-process gzip' '
	(cd repo && garchive -c tar.tgz.command="git archive gzip" \
		--format=tgz --prefix=golden/ HEAD) >internal.tgz &&
	check_sum internal.tgz a3fa38e71c62313202514621b98bdc31c696e689138ac6a7afc1eb0831461985
'

test_expect_success SHA1,GZIP 'each pinned output is also what git and gzip write' '
	cd repo &&
	git archive --format=tar --prefix=golden/ HEAD >git.tar &&
	test_cmp git.tar ../golden.tar &&
	git archive --format=zip --prefix=golden/ HEAD >git.zip &&
	test_cmp git.zip ../golden.zip &&
	git archive --format=tgz --prefix=golden/ HEAD >git.tgz &&
	garchive -c tar.tgz.command="git archive gzip" \
		--format=tgz --prefix=golden/ HEAD >internal.tgz &&
	test_cmp git.tgz internal.tgz &&
	gzip -cn <git.tar >gzip.tgz &&
	garchive --format=tgz --prefix=golden/ HEAD >garchive.tgz &&
	test_cmp gzip.tgz garchive.tgz
'

test_expect_success SHA256 'SHA-256: the same repository, as git archives it' '
	cd repo &&
	for f in tar zip
	do
		git archive --format=$f --prefix=golden/ HEAD >git.$f &&
		garchive --format=$f --prefix=golden/ HEAD >garchive.$f &&
		test_cmp git.$f garchive.$f || return 1
	done
'

test_done

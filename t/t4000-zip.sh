#!/bin/sh
test_description='zip output is byte-identical to git archive'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-repo.sh"

# Every archive a test writes must also satisfy unzip.
zip_ok () {
	! test_have_prereq UNZIP || unzip -tq "$1" >/dev/null
}

# same_zip ARGS...: git and garchive agree, with 1 and 8 threads.
same_zip () {
	test_same_as_git --format=zip "$@" &&
	zip_ok actual.out &&
	garchive --threads=1 --format=zip "$@" >t1.zip &&
	garchive --threads=8 --format=zip "$@" >t8.zip &&
	test_cmp t1.zip t8.zip &&
	test_cmp actual.out t8.zip
}

test_expect_success 'setup' '
	make_edge_repo repo
'

test_expect_success 'zip of HEAD, of a tag, of HEAD~1' '
	cd repo &&
	same_zip HEAD &&
	same_zip v1.0 &&
	same_zip HEAD~1
'

test_expect_success 'compression levels 0, 1, 6 and 9' '
	cd repo &&
	for level in 0 1 6 9; do
		same_zip -$level HEAD || return 1
	done
'

test_expect_success 'a bad level fails as in git' '
	cd repo &&
	test_same_as_git --format=zip -10 HEAD
'

test_expect_success 'DOS times follow TZ, east and west of UTC' '
	cd repo &&
	for zone in UTC XST-5:30 America/New_York Asia/Kolkata \
		    "EST5EDT,M3.2.0,M11.1.0"; do
		TZ=$zone same_zip HEAD || return 1
	done
'

test_expect_success 'commits before 1980 and after 2107' '
	cd repo &&
	tree=$(git rev-parse HEAD^{tree}) &&
	old=$(GIT_COMMITTER_DATE="315532799 +0000" git commit-tree -m old $tree) &&
	same_zip $old &&
	TZ=XST-5:30 same_zip $old &&
	future=$(GIT_COMMITTER_DATE="@4354819200 +0000" git commit-tree -m future $tree) &&
	same_zip $future
'

test_expect_success '--prefix and pathspecs' '
	cd repo &&
	same_zip --prefix=p/ HEAD &&
	same_zip --prefix="$(repo_long x 91)/" HEAD &&
	same_zip HEAD names paths
'

test_expect_success 'a non-UTF-8 name warns as git does' '
	cd repo &&
	same_zip HEAD names &&
	grep "^warning: path is not valid UTF-8: names/bad" actual.err
'

test_expect_success 'big blobs above core.bigFileThreshold are streamed' '
	cd repo &&
	test_when_finished "git config --unset core.bigFileThreshold" &&
	git config core.bigFileThreshold 1m &&
	same_zip HEAD big/random.bin &&
	same_zip -0 HEAD &&
	git repack -adq &&
	same_zip -9 HEAD big/random.bin
'

# git 2.39 assumes one final deflate() call finishes a streamed member
# and dies with "deflate error (0)" when it does not (fixed in 2.51);
# garchive writes the member git 2.51 writes.
test_expect_success 'a streamed compressible blob, which git 2.39 cannot write' '
	cd repo &&
	test_when_finished "git config --unset core.bigFileThreshold" &&
	git config core.bigFileThreshold 1m &&
	test_expect_code 128 git archive --format=zip HEAD big/compressible.txt >git.zip 2>git.err &&
	grep "deflate error" git.err &&
	garchive --format=zip HEAD big/compressible.txt >ga.zip &&
	zip_ok ga.zip &&
	git config --unset core.bigFileThreshold &&
	git archive --format=zip HEAD big/compressible.txt >plain.zip &&
	unzip -p ga.zip big/compressible.txt >ga.txt &&
	git cat-file blob HEAD:big/compressible.txt >expect.txt &&
	test_cmp expect.txt ga.txt &&
	git config core.bigFileThreshold 1m
'

# A tree is stamped with the current time: compare with git allowing
# for a second turning between the runs, and the thread counts with a
# fixed --mtime.
test_expect_success 'a tree id (mtime now, no comment)' '
	cd repo &&
	{
		test_same_as_git --format=zip HEAD^{tree} ||
		test_same_as_git --format=zip HEAD^{tree} ||
		test_same_as_git --format=zip HEAD^{tree}
	} &&
	zip_ok actual.out &&
	garchive --threads=1 --mtime=@1234567890 --format=zip HEAD^{tree} >t1.zip &&
	garchive --threads=8 --mtime=@1234567890 --format=zip HEAD^{tree} >t8.zip &&
	test_cmp t1.zip t8.zip
'

test_expect_success 'extra files in zip' '
	cd repo &&
	echo extra >../extra.txt &&
	same_zip --add-file=../extra.txt --add-virtual-file=v/x.txt:hello HEAD
'

# EXPENSIVE: under the sanitizers and valgrind, t8100's 100000 entries
# checks the zip64 end records.
test_expect_success EXPENSIVE '70000 entries get zip64 end records' '
	git init -q many &&
	cd many &&
	blob=$(echo x | git hash-object -w --stdin) &&
	awk -v b=$blob "BEGIN { for (i = 0; i < 70000; i++) printf \"100644 blob %s\tf%05d\n\", b, i }" |
	git mktree >tree &&
	c=$(echo many | git commit-tree $(cat tree)) &&
	same_zip $c
'

test_done

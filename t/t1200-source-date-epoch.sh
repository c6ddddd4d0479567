#!/bin/sh
test_description='SOURCE_DATE_EPOCH stamps archives of a tree, not of a commit'
. "$(dirname "$0")/lib.sh"

# mtime_field FILE: the mtime field of the first tar header, in decimal.
mtime_field () {
	echo $((0$(dd if="$1" bs=1 skip=136 count=11 2>/dev/null)))
}

test_expect_success 'setup' '
	git init -q repo &&
	(
		cd repo &&
		mkdir dir &&
		echo a >a &&
		echo b >dir/b &&
		git add . &&
		test_tick &&
		git commit -q -m one
	)
'

test_expect_success 'a tree is stamped with SOURCE_DATE_EPOCH' '
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive HEAD^{tree}) >sde.tar &&
	test $(mtime_field sde.tar) = 1234567890 &&
	(cd repo && garchive --mtime=@1234567890 HEAD^{tree}) >mtime.tar &&
	test_cmp mtime.tar sde.tar
'

test_expect_success 'so is HEAD:dir, in tar and zip' '
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive HEAD:dir) >dir.tar &&
	(cd repo && garchive --mtime=@1234567890 HEAD:dir) >expect.tar &&
	test_cmp expect.tar dir.tar &&
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive --format=zip HEAD:dir) >dir.zip &&
	(cd repo && garchive --format=zip --mtime=@1234567890 HEAD:dir) >expect.zip &&
	test_cmp expect.zip dir.zip
'

test_expect_success 'two runs apart give the same bytes' '
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive HEAD^{tree}) >one.tar &&
	sleep 1 &&
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive HEAD^{tree}) >two.tar &&
	test_cmp one.tar two.tar
'

test_expect_success 'a commit keeps its own time, as in git' '
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive HEAD) >commit.tar &&
	git -C repo archive HEAD >expect.tar &&
	test_cmp expect.tar commit.tar &&
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive --format=zip HEAD) >commit.zip &&
	git -C repo archive --format=zip HEAD >expect.zip &&
	test_cmp expect.zip commit.zip
'

test_expect_success '--mtime wins over SOURCE_DATE_EPOCH' '
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive --mtime=@1000000000 HEAD^{tree}) >both.tar &&
	test $(mtime_field both.tar) = 1000000000
'

test_expect_success 'a malformed value is an error where it is used' '
	(cd repo && SOURCE_DATE_EPOCH=yesterday test_expect_code 128 garchive HEAD^{tree}) >out 2>err &&
	echo "fatal: invalid SOURCE_DATE_EPOCH value: '"'"'yesterday'"'"'" >expect &&
	test_cmp expect err &&
	(cd repo && SOURCE_DATE_EPOCH=-5 test_expect_code 128 garchive HEAD^{tree}) >out 2>err &&
	(cd repo && SOURCE_DATE_EPOCH=yesterday garchive HEAD) >out &&
	test_cmp expect.tar out
'

test_expect_success 'an empty value is unset: the current time, as git' '
	before=$(date +%s) &&
	(cd repo && SOURCE_DATE_EPOCH= garchive HEAD^{tree}) >now.tar &&
	after=$(date +%s) &&
	t=$(mtime_field now.tar) &&
	test $t -ge $before && test $t -le $after
'

test_expect_success 'verify of a tree archive takes the time from the file' '
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive --prefix=p/ HEAD^{tree}) >p.tar &&
	(cd repo && SOURCE_DATE_EPOCH=1234567890 garchive verify ../p.tar HEAD^{tree}) >out &&
	grep "^identical$" out &&
	grep "^  command: *garchive --format=tar --prefix=p/ --mtime=@1234567890 " out
'

test_done

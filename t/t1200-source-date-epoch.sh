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

# --mtime against git: git 2.39.5 has no --mtime, so its bytes for a time
# are those of a commit with that committer date (git's own date parser),
# and garchive --mtime=<value> of that commit must give them.  Each row:
# the --mtime value | the same time as GIT_COMMITTER_DATE.
test_expect_success '--mtime values git reads at face value give git'"'"'s bytes' '
	cat >accepted <<-\EOF &&
	1970-01-01 00:00:00 +0000|1970-01-01 00:00:00 +0000
	1970-01-01 01:00:00 +0100|1970-01-01 01:00:00 +0100
	2020-02-29 12:34:56 +0100|2020-02-29 12:34:56 +0100
	2020-01-01T00:00:00+23:59|2020-01-01T00:00:00+23:59
	2020-01-01 10:00 -05:30|2020-01-01 10:00 -05:30
	2020-01-01 23:59:60 +0000|2020-01-01 23:59:60 +0000
	2099-12-31 23:59:59 +0000|2099-12-31 23:59:59 +0000
	@0|@0 +0000
	@8589934592|@8589934592 +0000
	@999999999999999999|@999999999999999999 +0000
	@9223372036854775807|@9223372036854775807 +0000
	EOF
	while IFS="|" read mtime date
	do
		c=$(GIT_COMMITTER_DATE="$date" git -C repo commit-tree -m x HEAD^{tree}) &&
		git -C repo archive $c >expect.tar &&
		(cd repo && garchive --mtime="$mtime" $c) >actual.tar &&
		test_cmp expect.tar actual.tar || return 1
	done <accepted
'

# Values git would not take at face value: its parser knows the years
# 1970 to 2099 only, makes 2020-02-30 March 1st, drops a zone of 24 hours
# or more, and wraps a time before 1970 around (timestamps are unsigned).
# garchive refuses them (128); the rows git refuses as a commit date
# (third field "refused") must fail there too, with 128.
test_expect_success '--mtime values git would not take at face value are refused' '
	cat >refused <<-\EOF &&
	1969-12-31|git reads the years 1970 to 2099 only|refused
	1969-12-31 23:59:59 +0000|git reads the years 1970 to 2099 only|refused
	2100-01-01 00:00:00 +0000|git reads the years 1970 to 2099 only|refused
	1970-01-01 00:00:00 +0100|before 1970-01-01 00:00:00 UTC|wraps
	2020-02-30|no such day|refused
	2020-02-30 00:00:00 +0000|no such day|next month
	2021-02-29 00:00:00 +0000|no such day|next month
	2020-01-01T00:00:00+25:00|time zone out of range|zone dropped
	2020-01-01 00:00:00 +0060|time zone out of range|zone dropped
	@99999999999999999999|too large|refused
	@9223372036854775808|too large|taken
	99999999999 weeks ago|before 1970-01-01 00:00:00 UTC|-
	EOF
	while IFS="|" read mtime why git
	do
		(cd repo && test_expect_code 128 garchive --mtime="$mtime" HEAD) >out 2>err &&
		test_must_be_empty out &&
		echo "fatal: invalid --mtime value: '"'"'$mtime'"'"' ($why)" >expect &&
		test_cmp expect err &&
		case $git in
		refused)
			date=$mtime &&
			case $mtime in @*) date="$mtime +0000" ;; esac &&
			GIT_COMMITTER_DATE="$date" test_expect_code 128 \
				git -C repo commit-tree -m x HEAD^{tree} 2>err &&
			grep "^fatal: invalid date format: " err
			;;
		esac || return 1
	done <refused
'

test_done

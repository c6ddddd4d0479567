#!/bin/sh
test_description='which git garchive follows where git changed a command line'
. "$(dirname "$0")/lib.sh"

# git 2.41 changed running from a subdirectory, git 2.43.1 --list with a
# parameter.  garchive follows GARCHIVE_GIT_VERSION, else
# garchive.gitVersion, else the git on PATH (asked only when one of
# those cases is reached), else the newest behaviour.  The runs of
# t/fixtures/git-2.55/cases were recorded from git 2.55.0
# (t/fixtures/git-2.55/record), in expect/ with a SHA-1 repository and in
# expect-sha256/ with a SHA-256 one (the SHA-256 mode); git 2.39 and a
# live git of 2.41 or later are compared with directly.

FIXTURES=$TEST_DIRECTORY/fixtures/git-2.55
case $test_object_format in
sha1) RECORDS=$FIXTURES/expect ;;
*) RECORDS=$FIXTURES/expect-$test_object_format ;;
esac
. "$FIXTURES/repo.sh"

case "$GIT_VERSION" in
2.39.*|2.40.*|1.*|'') ;;
*) test_set_prereq GIT_2_41_OR_LATER ;;
esac

test_expect_success 'setup' '
	make_subdir_repo repo 2>/dev/null &&
	REPO=$(cd repo && pwd -P) &&
	grep -v "^#" "$FIXTURES/cases" >cases &&
	test "$(wc -l <cases)" = "$(ls "$RECORDS" | grep -c "\.code\$")"
'
REPO=$(cd "$TRASH_DIRECTORY/repo" 2>/dev/null && pwd -P)

# run_case N: garchive (as set up by the caller) for case N of cases, in
# its directory: actual.code, actual.out and actual.err.
run_case () {
	line=$(sed -n "$1p" cases) &&
	dir=${line%%	*} &&
	args=${line#*	} &&
	set -f &&
	# shellcheck disable=SC2086
	(cd "repo/$dir" && garchive $args >"$TRASH_DIRECTORY/actual.out" \
		2>"$TRASH_DIRECTORY/actual.err"; echo $? >"$TRASH_DIRECTORY/actual.code")
	set +f
}

# git_case N: the same with `git archive` (the live git).
git_case () {
	line=$(sed -n "$1p" cases) &&
	dir=${line%%	*} &&
	args=${line#*	} &&
	set -f &&
	# shellcheck disable=SC2086
	(cd "repo/$dir" && git archive $args >"$TRASH_DIRECTORY/expect.out" \
		2>"$TRASH_DIRECTORY/expect.err"; echo $? >"$TRASH_DIRECTORY/expect.code")
	set +f
}

# same_as_recorded N: garchive's run of case N is git 2.55.0's.
same_as_recorded () {
	run_case "$1" &&
	test_cmp "$RECORDS/$1.code" actual.code &&
	echo "$(sha256sum <actual.out | cut -c1-64) $(wc -c <actual.out)" \
		>actual.sum &&
	test_cmp "$RECORDS/$1.out" actual.sum &&
	sed "s|$REPO|@REPO@|g" actual.err >actual.rec &&
	test_cmp "$RECORDS/$1.err" actual.rec
}

# same_as_live N: garchive's run of case N is the live git's.
same_as_live () {
	git_case "$1" &&
	run_case "$1" &&
	test_cmp expect.code actual.code &&
	test_cmp expect.err actual.err &&
	test_cmp expect.out actual.out
}

nr_cases=$(grep -vc "^#" "$FIXTURES/cases")
n=1
while test $n -le "$nr_cases"
do
	desc=$(grep -v "^#" "$FIXTURES/cases" | sed -n "${n}p" | tr '\t' ' ')
	test_expect_success "following 2.55.0, as git 2.55.0: $desc" "
		(
			GARCHIVE_GIT_VERSION=2.55.0 &&
			export GARCHIVE_GIT_VERSION &&
			same_as_recorded $n
		)
	"
	test_expect_success GIT_2_39 "following 2.39.5, as git 2.39: $desc" "
		(
			GARCHIVE_GIT_VERSION=2.39.5 &&
			export GARCHIVE_GIT_VERSION &&
			same_as_live $n
		)
	"
	test_expect_success GIT_2_39 "following git on PATH (2.39), as it: $desc" "
		same_as_live $n
	"
	test_expect_success GIT_2_41_OR_LATER "following git on PATH ($GIT_VERSION), as it: $desc" "
		same_as_live $n
	"
	n=$((n + 1))
done

# A `git` that notes each run in $TRASH_DIRECTORY/git-ran and says
# `git version $FAKE_GIT_VERSION`.
test_expect_success 'setup: a git that leaves a mark' '
	mkdir fakebin &&
	cat >fakebin/git <<-EOF &&
	#!/bin/sh
	echo "\$*" >>"$TRASH_DIRECTORY/git-ran"
	printf "%s\n" "\$FAKE_GIT_VERSION"
	EOF
	chmod +x fakebin/git
'

# with_fake_git CMD...: CMD with that git first on PATH.
with_fake_git () {
	PATH="$TRASH_DIRECTORY/fakebin:$PATH" "$@"
}

test_expect_success 'the common case runs no git' '
	rm -f git-ran &&
	(
		cd repo &&
		FAKE_GIT_VERSION="git version 2.39.5" &&
		export FAKE_GIT_VERSION &&
		with_fake_git garchive HEAD >../out1 &&
		with_fake_git garchive -v --format=zip HEAD a >../out2 2>/dev/null &&
		with_fake_git garchive --list >../out3 &&
		with_fake_git garchive --prefix=p/ HEAD:a >../out4 &&
		with_fake_git garchive -o ../out5.tgz HEAD
	) &&
	test_path_is_missing git-ran &&
	test -s out1 && test -s out2 && test -s out5.tgz &&
	printf "%s\n" tar tgz tar.gz zip >expect &&
	test_cmp expect out3
'

test_expect_success 'from a subdirectory garchive asks git version, once' '
	rm -f git-ran &&
	(
		cd repo/a/bin &&
		FAKE_GIT_VERSION="git version 2.39.5" &&
		export FAKE_GIT_VERSION &&
		test_expect_code 128 with_fake_git garchive HEAD .. >/dev/null 2>../../../err
	) &&
	echo "version" >expect &&
	test_cmp expect git-ran &&
	echo "fatal: ..: '"'"'..'"'"' is outside repository at '"'"'$REPO'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success '--list with a parameter asks git version' '
	rm -f git-ran &&
	(
		cd repo &&
		FAKE_GIT_VERSION="git version 2.43.1.windows.1" &&
		export FAKE_GIT_VERSION &&
		test_expect_code 128 with_fake_git garchive --list HEAD >../out 2>../err
	) &&
	echo "version" >expect &&
	test_cmp expect git-ran &&
	test_must_be_empty out &&
	echo "fatal: extra command line parameter '"'"'HEAD'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'git 2.43.0 lists the formats and ignores the parameter' '
	(
		cd repo &&
		FAKE_GIT_VERSION="git version 2.43.0" &&
		export FAKE_GIT_VERSION &&
		with_fake_git garchive --list HEAD >../out 2>../err
	) &&
	printf "%s\n" tar tgz tar.gz zip >expect &&
	test_cmp expect out &&
	test_must_be_empty err
'

test_expect_success 'a git whose answer does not parse: the newest behaviour' '
	(
		cd repo/a/bin &&
		FAKE_GIT_VERSION="hub version 2.14.2" &&
		export FAKE_GIT_VERSION &&
		with_fake_git garchive -v HEAD ../bin >/dev/null 2>../../../err
	) &&
	printf "%s\n" deep/ deep/s sh subst t.txt >expect &&
	test_cmp expect err
'

test_expect_success 'no git on PATH: the newest behaviour' '
	garchive_bin=$(command -v garchive) &&
	(
		cd repo &&
		test_expect_code 128 env PATH=/nonexistent "$garchive_bin" \
			--list HEAD >../out 2>../err
	) &&
	echo "fatal: extra command line parameter '"'"'HEAD'"'"'" >expect &&
	test_cmp expect err &&
	(
		cd repo/sub &&
		env PATH=/nonexistent "$garchive_bin" -v HEAD >/dev/null 2>../../err
	) &&
	printf "%s\n" .gitattributes z >expect &&
	test_cmp expect err
'

test_expect_success 'garchive.gitVersion decides without running git' '
	rm -f git-ran &&
	(
		cd repo &&
		FAKE_GIT_VERSION="git version 2.55.0" &&
		export FAKE_GIT_VERSION &&
		with_fake_git garchive -c garchive.gitVersion=2.39.5 --list HEAD \
			>../out &&
		git config garchive.gitVersion 2.43.1 &&
		test_expect_code 128 with_fake_git garchive --list HEAD 2>../err &&
		git config --unset garchive.gitVersion
	) &&
	test_path_is_missing git-ran &&
	printf "%s\n" tar tgz tar.gz zip >expect &&
	test_cmp expect out &&
	echo "fatal: extra command line parameter '"'"'HEAD'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'GARCHIVE_GIT_VERSION wins over garchive.gitVersion' '
	(
		cd repo &&
		GARCHIVE_GIT_VERSION=2.39.5 garchive -c garchive.gitVersion=2.55.0 \
			--list HEAD >../out &&
		test_expect_code 128 env GARCHIVE_GIT_VERSION=2.55.0 garchive \
			-c garchive.gitVersion=2.39.5 --list HEAD 2>../err
	) &&
	printf "%s\n" tar tgz tar.gz zip >expect &&
	test_cmp expect out &&
	echo "fatal: extra command line parameter '"'"'HEAD'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad GARCHIVE_GIT_VERSION is fatal where it is needed' '
	(
		cd repo &&
		test_expect_code 128 env GARCHIVE_GIT_VERSION=2.x garchive \
			--list HEAD >../out 2>../err &&
		GARCHIVE_GIT_VERSION=2.x garchive --list >../out2
	) &&
	test_must_be_empty out &&
	echo "fatal: invalid git version '"'"'2.x'"'"' in GARCHIVE_GIT_VERSION" >expect &&
	test_cmp expect err &&
	printf "%s\n" tar tgz tar.gz zip >expect &&
	test_cmp expect out2
'

test_expect_success 'a bad garchive.gitVersion: error and fatal, status 128' '
	(
		cd repo/sub &&
		git config garchive.gitVersion v2.39 &&
		grep -n "gitVersion = v2.39" ../.git/config | cut -d: -f1 \
			>../../line &&
		test_expect_code 128 garchive HEAD >../../out 2>../../err;
		code=$? &&
		git config --unset garchive.gitVersion &&
		test $code = 0 &&
		test_expect_code 128 garchive -c garchive.gitVersion --list x \
			2>../../err2
	) &&
	test_must_be_empty out &&
	cat >expect <<-EOF &&
	error: invalid git version '"'"'v2.39'"'"' for '"'"'garchive.gitVersion'"'"'
	fatal: bad config variable '"'"'garchive.gitversion'"'"' in file '"'"'.git/config'"'"' at line $(cat line)
	EOF
	test_cmp expect err &&
	cat >expect <<-\EOF &&
	error: missing value for '"'"'garchive.gitversion'"'"'
	fatal: unable to parse '"'"'garchive.gitversion'"'"' from command-line config
	EOF
	test_cmp expect err2
'

test_done

#!/bin/sh
test_description='garchive get-tar-commit-id reads the commit id back'
. "$(dirname "$0")/lib.sh"

# pax_header RECORD: a tar header of type g and RECORD as its content.
pax_header () {
	printf "pax_global_header" &&
	head -c $((156 - 17)) /dev/zero &&
	printf g &&
	head -c $((512 - 157)) /dev/zero &&
	printf "%s" "$1" &&
	head -c $((512 - ${#1})) /dev/zero
}

test_expect_success 'setup' '
	git init -q repo &&
	(
		cd repo &&
		echo a >a &&
		git add a &&
		test_tick &&
		git commit -q -m one
	) &&
	git -C repo archive HEAD >commit.tar &&
	git -C repo archive HEAD^{tree} >tree.tar &&
	git -C repo archive --format=zip HEAD >commit.zip &&
	git -C repo archive --format=tgz HEAD >commit.tgz
'

test_expect_success 'an archive of a commit' '
	test_stdin_same_as_git get-tar-commit-id commit.tar &&
	git -C repo rev-parse HEAD >expect &&
	test_cmp expect actual.out
'

test_expect_success 'an archive made by garchive' '
	(cd repo && garchive HEAD) >ga.tar &&
	test_stdin_same_as_git get-tar-commit-id ga.tar &&
	git -C repo rev-parse HEAD >expect &&
	test_cmp expect actual.out
'

test_expect_success 'archives without a commit id: exit 1, silently' '
	test_stdin_same_as_git get-tar-commit-id tree.tar &&
	test_expect_code 1 garchive get-tar-commit-id <tree.tar &&
	test_stdin_same_as_git get-tar-commit-id commit.zip &&
	test_stdin_same_as_git get-tar-commit-id commit.tgz
'

test_expect_success 'empty, short and garbage input' '
	: >empty &&
	test_stdin_same_as_git get-tar-commit-id empty &&
	test_expect_code 128 garchive get-tar-commit-id <empty &&
	head -c 1023 commit.tar >short &&
	test_stdin_same_as_git get-tar-commit-id short &&
	head -c 1024 commit.tar >exact &&
	test_stdin_same_as_git get-tar-commit-id exact &&
	test -s actual.out &&
	i=0 &&
	while test $i -lt 64
	do
		echo "garbage line $i of some length"
		i=$((i + 1))
	done >garbage &&
	test_stdin_same_as_git get-tar-commit-id garbage
'

test_expect_success 'crafted pax headers' '
	hex=0123456789abcdef0123456789abcdef01234567 &&
	hex256=$hex$hex${hex%????????????????} &&
	for record in "52 comment=$hex
" "+52 comment=$hex
" "   52 comment=$hex
" "52 comment=$hex" "51 comment=${hex%?}
" "53 comment=${hex}0
" "76 comment=$hex256
" "-5 comment=$hex
" "52 path=$hex
" "52comment=$hex
" "x52 comment=$hex
" "99999999999999999999999 comment=$hex
" "52 comment=not-hex-not-hex-not-hex-not-hex-not-hex
" "600 comment=$hex
"
	do
		pax_header "$record" >crafted &&
		test_stdin_same_as_git get-tar-commit-id crafted || {
			echo >&2 "record: $record"
			return 1
		}
	done
'

test_expect_success 'SHA-256 repositories' '
	git init -q --object-format=sha256 repo256 &&
	(
		cd repo256 &&
		echo a >a &&
		git add a &&
		git commit -q -m one
	) &&
	git -C repo256 archive HEAD >commit256.tar &&
	test_stdin_same_as_git get-tar-commit-id commit256.tar &&
	git -C repo256 rev-parse HEAD >expect &&
	test_cmp expect actual.out
'

test_expect_success 'arguments are a usage error' '
	test_stdin_same_as_git get-tar-commit-id commit.tar extra &&
	test_stdin_same_as_git get-tar-commit-id commit.tar -h extra &&
	test_expect_code 129 garchive get-tar-commit-id x <commit.tar
'

# git 2.49 and later print the usage asked for on stdout (2.39: stderr).
test_expect_success '-h and --help-all print the usage on stdout' '
	echo "usage: git get-tar-commit-id" >expect &&
	for h in -h --help-all
	do
		test_expect_code 129 garchive get-tar-commit-id $h \
			<commit.tar >out 2>err &&
		test_cmp expect out &&
		test_must_be_empty err || return 1
	done
'

test_done

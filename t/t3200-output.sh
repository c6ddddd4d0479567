#!/bin/sh
test_description='-o FILE is written atomically

garchive writes -o FILE to a temporary file in the same directory and
renames it over FILE only on success: a failed run leaves an existing
FILE as it was, and no partial or temporary file behind (git leaves an
empty or truncated FILE).'
. "$(dirname "$0")/lib.sh"

# no_leftovers DIR: no temporary file of ours remains in DIR.
no_leftovers () {
	ls -a "$1" >listing &&
	! grep "^\.garchive-" listing
}

test_expect_success 'setup' '
	git init -q repo &&
	cd repo &&
	echo a >a &&
	git add a &&
	test_tick &&
	git commit -q -m one
'

for args in "nosuch" "--format=bogus HEAD" "HEAD nosuch-path" \
	    "--bogus-option HEAD" "HEAD -- ''"
do
	test_expect_success "a failure ($args) leaves an existing -o file alone" "
		cd repo &&
		echo precious >out.tar &&
		test_must_fail garchive -o out.tar $args 2>err &&
		echo precious >expect &&
		test_cmp expect out.tar &&
		no_leftovers .
	"
	test_expect_success "a failure ($args) creates no -o file" "
		cd repo &&
		rm -f new.tar &&
		test_must_fail garchive -o new.tar $args 2>err &&
		test_path_is_missing new.tar &&
		no_leftovers .
	"
done

test_expect_success 'messages and exit codes as git, for -o errors' '
	cd repo &&
	test_same_as_git -o missing/dir/x.tar HEAD &&
	test_path_is_missing missing &&
	test_same_as_git -o out.tar nosuch &&
	test_same_as_git -o out.tar --format=bogus HEAD
'

test_expect_success NOT_ROOT 'an unwritable directory' '
	mkdir ro &&
	chmod a-w ro &&
	test_when_finished "chmod u+w ro" &&
	cd repo &&
	test_same_as_git -o ../ro/x.tar HEAD
'

test_expect_success 'success replaces the file and keeps the umask mode' '
	cd repo &&
	echo old >out.tar &&
	chmod 600 out.tar &&
	(umask 022 && garchive -o out.tar HEAD) &&
	git archive HEAD >expect.tar &&
	test_cmp expect.tar out.tar &&
	ls -l out.tar >mode &&
	grep "^-rw-r--r--" mode &&
	no_leftovers .
'

test_expect_success 'a non-regular -o target (a device) is written in place' '
	cd repo &&
	garchive -o /dev/null HEAD &&
	test -c /dev/null
'

test_expect_success '-o /dev/full fails with git'"'"'s write error' '
	cd repo &&
	test_expect_code 128 garchive -o /dev/full HEAD 2>err &&
	echo "fatal: write error: No space left on device" >expect &&
	test_cmp expect err
'

test_expect_success '-o - is a file named "-" at the top, from a subdirectory too' '
	cd repo &&
	mkdir -p sub &&
	echo s >sub/s &&
	git add sub &&
	test_tick &&
	git commit -q -m sub &&
	(cd sub && garchive -o - HEAD) &&
	test_path_is_file ./- &&
	test_path_is_missing sub/- &&
	(cd sub && git archive HEAD) >expect.tar &&
	test_cmp expect.tar ./-
'

test_done

#!/bin/sh
test_description='-o FILE is written atomically

garchive writes -o FILE to a temporary file in the same directory and
renames it over FILE only on success: a failed run leaves an existing
FILE as it was, and no partial or temporary file behind (git leaves an
empty or truncated FILE).'
. "$(dirname "$0")/lib.sh"
# Where git is not 2.39, the comparisons replay git 2.39's record (t/lib.sh):
# git 2.47 and 2.55 write to standard output for an empty --output=, where
# git 2.39 (and garchive) refuse it.
test_uses_git_2_39_record

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

test_expect_success SYMLINKS 'a symbolic link is written through, as git does' '
	cd repo &&
	mkdir -p releases &&
	echo old >releases/v1.tar &&
	ln -s releases/v1.tar latest.tar &&
	garchive -o latest.tar HEAD &&
	test -h latest.tar &&
	git archive HEAD >expect.tar &&
	test_cmp expect.tar releases/v1.tar &&
	no_leftovers . &&
	no_leftovers releases &&
	ln -s v1.tar releases/chain &&
	ln -s releases/chain chain.tar &&
	garchive -o chain.tar --prefix=p/ HEAD &&
	test -h chain.tar && test -h releases/chain &&
	git archive --prefix=p/ HEAD >expect.tar &&
	test_cmp expect.tar releases/v1.tar
'

test_expect_success SYMLINKS 'a dangling link makes its target, a loop fails as in git' '
	cd repo &&
	ln -s made.tar dangling.tar &&
	garchive -o dangling.tar HEAD &&
	test -h dangling.tar &&
	git archive HEAD >expect.tar &&
	test_cmp expect.tar made.tar &&
	ln -s nodir/x.tar nowhere.tar &&
	test_same_as_git -o nowhere.tar HEAD &&
	ln -s loop2 loop1 &&
	ln -s loop1 loop2 &&
	test_same_as_git -o loop1 HEAD &&
	grep "Too many levels of symbolic links" actual.err
'

test_expect_success '-l -o FILE writes the list into FILE, as git' '
	cd repo &&
	git archive -l -o expect.list &&
	garchive -l -o actual.list &&
	test_cmp expect.list actual.list &&
	grep "^tar$" actual.list &&
	git archive --list >expect.out &&
	test_cmp expect.out actual.list
'

test_expect_success 'an empty -o fails before any work, as git' '
	cd repo &&
	test_same_as_git --output= HEAD &&
	test "$actual_code" = 128 &&
	echo "fatal: could not open '"''"' for writing: No such file or directory" >expect &&
	test_cmp expect actual.err &&
	test_same_as_git --output= --list &&
	test_same_as_git -o "" nosuch &&
	no_leftovers .
'


test_expect_success PERMS 'a writable file in an unwritable directory: in place, as git' '
	mkdir locked &&
	: >locked/out.tar &&
	chmod 666 locked/out.tar &&
	chmod 555 locked &&
	test_when_finished "chmod 755 \"$TRASH_DIRECTORY/locked\"" &&
	cd repo &&
	as_user garchive -o ../locked/out.tar HEAD &&
	git archive HEAD >expect.tar &&
	test_cmp expect.tar ../locked/out.tar &&
	no_leftovers ../locked &&
	chmod 444 ../locked/out.tar &&
	as_user garchive -o ../locked/out.tar HEAD 2>actual.err;
	test $? = 128 &&
	echo "fatal: could not open '"'../locked/out.tar'"' for writing: Permission denied" >expect.err &&
	test_cmp expect.err actual.err
'

test_expect_success 'killed by SIGXFSZ (ulimit -f): no temporary file left' '
	cd repo &&
	head -c 100000 /dev/urandom >big &&
	git add big &&
	test_tick &&
	git commit -q -m big &&
	(ulimit -f 20 && exec garchive -o limited.tar HEAD) 2>err
	status=$? &&
	test $status -gt 128 &&
	test_path_is_missing limited.tar &&
	no_leftovers .
'

test_done

#!/bin/sh
test_description='repositories owned by someone else: safe.directory as git 2.39'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record

# git's own test knob makes every repository look foreign, so most of
# this runs as any user; the ROOT tests chown a copy to nobody.
test_lazy_prereq ROOT 'test "$(id -u)" = 0'

# same_all [-c NAME=VALUE] ARGS...: `git [-c ...] archive ARGS` and
# `garchive [-c ...] ARGS` exit alike and write the same bytes on stdout
# and on stderr (the hint lines after "fatal:" included).
same_all () {
	test_clock_start
	if test "$1" = -c; then
		ref_git_ -c "$2" archive "$3" >expect.out 2>expect.err
		expect_code=$?
		frozen garchive -c "$2" "$3" >actual.out 2>actual.err
		actual_code=$?
	else
		ref_git_ archive "$@" >expect.out 2>expect.err
		expect_code=$?
		frozen garchive "$@" >actual.out 2>actual.err
		actual_code=$?
	fi
	same_code_as_git_ &&
	test_cmp expect.err actual.err &&
	test_cmp expect.out actual.out
}

# refused_as_git ARGS...: same_all, and both refuse with git's words.
refused_as_git () {
	same_all "$@" &&
	test "$actual_code" = 128 &&
	grep "^fatal: detected dubious ownership in repository at " \
		actual.err &&
	grep "^	git config --global --add safe.directory " actual.err
}

# accepted_as_git ARGS...: same_all, and both wrote an archive.
accepted_as_git () {
	same_all "$@" &&
	test "$actual_code" = 0 &&
	test -s actual.out
}

test_expect_success 'setup' '
	git init -q r &&
	(
		cd r &&
		mkdir sub &&
		echo a >sub/a &&
		git add sub/a &&
		test_tick &&
		git commit -q -m one
	) &&
	cp -R r/.git bare.git &&
	git -C bare.git config core.bare true &&
	mkdir "sp ace" &&
	cp -R r/.git "sp ace/.git" &&
	mkdir linked &&
	echo "gitdir: ../bare.git" >linked/.git &&
	printf "[init]\n\tdefaultBranch = main\n" >"$HOME/.gitconfig"
'

test_expect_success 'owned by someone else: refused, as git' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	(cd r && refused_as_git HEAD) &&
	(cd r/sub && refused_as_git --format=zip HEAD) &&
	(cd r/.git && refused_as_git HEAD) &&
	(cd bare.git && refused_as_git HEAD) &&
	(cd bare.git/refs && refused_as_git HEAD) &&
	(cd "sp ace" && refused_as_git HEAD &&
	 grep "safe.directory .$TRASH_DIRECTORY/sp ace.$" actual.err)
'

test_expect_success 'refused only where a repository is needed' '
	git -C r config tar.mine.command cat &&
	test_when_finished "git -C \"$TRASH_DIRECTORY/r\" config --unset tar.mine.command" &&
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	cd r &&
	same_all --list &&
	! grep mine actual.out &&
	test_expect_code 129 git archive -h >expect.out &&
	test_expect_code 129 garchive -h >actual.out &&
	grep "^usage: garchive " actual.out
'

test_expect_success 'safe.directory from the command line and environment' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	cd r &&
	accepted_as_git -c "safe.directory=$TRASH_DIRECTORY/r" HEAD &&
	accepted_as_git -c "safe.directory=*" HEAD &&
	accepted_as_git -c "safe.directory=~/r" HEAD &&
	refused_as_git -c "safe.directory=$TRASH_DIRECTORY/r/" HEAD &&
	refused_as_git -c "safe.directory=$TRASH_DIRECTORY/./r" HEAD &&
	refused_as_git -c "safe.directory=$TRASH_DIRECTORY" HEAD &&
	same_all -c "safe.directory=~nosuchuser/r" HEAD &&
	grep "failed to expand user dir" actual.err &&
	(
		GIT_CONFIG_PARAMETERS="'\''safe.directory'\''='\''*'\''" &&
		export GIT_CONFIG_PARAMETERS &&
		accepted_as_git HEAD
	) &&
	(
		GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory &&
		GIT_CONFIG_VALUE_0="$TRASH_DIRECTORY/r" &&
		export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 &&
		accepted_as_git HEAD
	)
'

test_expect_success 'safe.directory from system and global files' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	test_when_finished "git config --global --unset-all safe.directory; :" &&
	git config --global safe.directory "$TRASH_DIRECTORY/r" &&
	(cd r && accepted_as_git HEAD) &&
	(cd bare.git && refused_as_git HEAD) &&
	git config --global --add safe.directory "$TRASH_DIRECTORY/bare.git" &&
	(cd bare.git && accepted_as_git HEAD) &&
	git config --global --add safe.directory "" &&
	(cd r && refused_as_git HEAD) &&
	git config --global --add safe.directory "*" &&
	(cd r && accepted_as_git HEAD) &&
	git config --global --unset-all safe.directory &&
	printf "[safe]\n\tdirectory = *\n" >system.config &&
	(
		GIT_CONFIG_SYSTEM=$TRASH_DIRECTORY/system.config &&
		export GIT_CONFIG_SYSTEM && unset GIT_CONFIG_NOSYSTEM &&
		cd r && accepted_as_git HEAD
	) &&
	(
		GIT_CONFIG_SYSTEM=$TRASH_DIRECTORY/system.config &&
		export GIT_CONFIG_SYSTEM &&
		cd r && refused_as_git HEAD
	)
'

test_expect_success 'safe.directory in the repository itself is ignored' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	git --git-dir=r/.git config safe.directory "*" &&
	test_when_finished "git --git-dir=\"$TRASH_DIRECTORY/r/.git\" config --unset safe.directory" &&
	(cd r && refused_as_git HEAD)
'

test_expect_success 'GIT_DIR is taken at its word, as git 2.39 does' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	(
		GIT_DIR=$TRASH_DIRECTORY/bare.git && export GIT_DIR &&
		accepted_as_git HEAD
	)
'

# serve_with_safe VALUE: both servers, with -c safe.directory=VALUE,
# answer head.req for r; the same exit status.  (Archive data packets
# depend on timing: callers compare them only for refusals.)
serve_with_safe () {
	test_clock_start
	ref_git_ -c safe.directory="$1" upload-archive r <head.req \
		>expect.out 2>expect.err
	expect_code=$?
	frozen garchive -c safe.directory="$1" upload-archive r <head.req \
		>actual.out 2>actual.err
	actual_code=$?
	same_code_as_git_
}

test_expect_success 'upload-archive refuses as git, and -c allows' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER" &&
	printf "0011argument HEAD0000" >head.req &&
	for dir in r bare.git linked
	do
		git upload-archive $dir <head.req >expect.out 2>expect.err
		expect_code=$?
		garchive upload-archive $dir <head.req >actual.out 2>actual.err
		actual_code=$?
		same_code_as_git_ &&
		test_cmp expect.out actual.out &&
		grep "dubious ownership" actual.out || return 1
	done &&
	for safe in r/.git "*"
	do
		serve_with_safe "$safe" &&
		test "$actual_code" = 0 &&
		grep pax_global_header actual.out || return 1
	done &&
	for safe in "$TRASH_DIRECTORY/r" "$TRASH_DIRECTORY/r/.git"
	do
		serve_with_safe "$safe" &&
		test_cmp expect.out actual.out &&
		grep "dubious ownership" actual.out || return 1
	done
'

test_expect_success ROOT 'owned by nobody: refused, and allowed as git allows' '
	cp -R r owned &&
	chown -R nobody owned &&
	test_when_finished "rm -rf owned" &&
	cd owned &&
	refused_as_git HEAD &&
	(cd sub && refused_as_git HEAD) &&
	accepted_as_git -c "safe.directory=$TRASH_DIRECTORY/owned" HEAD &&
	accepted_as_git -c "safe.directory=*" HEAD &&
	git config --global safe.directory "$TRASH_DIRECTORY/owned" &&
	test_when_finished "git config --global --unset-all safe.directory; :" &&
	accepted_as_git HEAD &&
	git config --global --unset-all safe.directory &&
	(SUDO_UID=65534 && export SUDO_UID && accepted_as_git HEAD) &&
	(SUDO_UID=0 && export SUDO_UID && refused_as_git HEAD) &&
	(SUDO_UID=65534x && export SUDO_UID && refused_as_git HEAD)
'

test_expect_success ROOT 'owned by nobody: which directories count' '
	cp -R r part &&
	test_when_finished "rm -rf part" &&
	chown nobody part/.git &&
	(cd part && refused_as_git HEAD) &&
	chown root part/.git && chown nobody part &&
	(cd part && refused_as_git HEAD) &&
	chown root part && chown -R nobody part/.git/objects &&
	(cd part && accepted_as_git HEAD)
'

test_expect_success ROOT 'upload-archive of a repository owned by nobody' '
	cp -R bare.git owned.git &&
	chown -R nobody owned.git &&
	test_when_finished "rm -rf owned.git" &&
	git upload-archive owned.git <head.req >expect.out 2>expect.err
	expect_code=$?
	garchive upload-archive owned.git <head.req >actual.out 2>actual.err
	actual_code=$?
	same_code_as_git_ &&
	test_cmp expect.out actual.out &&
	grep "dubious ownership" actual.out
'

test_done

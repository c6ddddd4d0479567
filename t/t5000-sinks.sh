#!/bin/sh
test_description='sinks: tgz through gzip -cn, in-process gzip, configured commands'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-repo.sh"

# garchive's default tgz is what git wrote before 2.38: gzip -cn.
# same_as_gzip_cn ARGS...: garchive's default equals git with gzip -cn.
same_as_gzip_cn () {
	git -c tar.tgz.command="gzip -cn" -c tar.tar.gz.command="gzip -cn" \
		archive "$@" >expect.out &&
	garchive "$@" >actual.out 2>actual.err &&
	test_must_be_empty actual.err &&
	test_cmp expect.out actual.out
}

test_expect_success 'setup: a repository of a few MiB' '
	make_edge_repo repo &&
	git -C repo archive --format=tar HEAD >plain.tar &&
	test $(wc -c <plain.tar) -gt 3000000
'

test_expect_success GZIP 'tgz and tar.gz default to gzip -cn' '
	cd repo &&
	same_as_gzip_cn --format=tgz HEAD &&
	same_as_gzip_cn --format=tar.gz HEAD &&
	same_as_gzip_cn --format=tgz --prefix=p/ v1.0
'

test_expect_success GZIP 'levels are appended to gzip -cn' '
	cd repo &&
	same_as_gzip_cn --format=tgz -1 HEAD &&
	same_as_gzip_cn --format=tgz -9 HEAD &&
	same_as_gzip_cn --format=tar.gz -1 HEAD
'

test_expect_success GZIP 'gzip rejects -0 and -10, as git with gzip -cn fails' '
	cd repo &&
	test_must_fail garchive --format=tgz -0 HEAD >out 2>err &&
	test_must_be_empty out &&
	grep "^fatal: '"'"'gzip -cn -0'"'"' filter reported error" err &&
	test_must_fail garchive --format=tgz -10 HEAD >out 2>err &&
	grep "^fatal: '"'"'gzip -cn -10'"'"' filter reported error" err
'

test_expect_success GZIP '-o FILE.tgz and FILE.tar.gz infer the format' '
	cd repo &&
	git -c tar.tgz.command="gzip -cn" archive -o expect.tgz HEAD &&
	garchive -o actual.tgz HEAD &&
	test_cmp expect.tgz actual.tgz &&
	git -c tar.tar.gz.command="gzip -cn" archive -o expect.tar.gz HEAD &&
	garchive -o actual.tar.gz HEAD &&
	test_cmp expect.tar.gz actual.tar.gz
'

test_expect_success '"git archive gzip" selects the in-process gzip' '
	cd repo &&
	git archive --format=tgz HEAD >expect &&
	garchive -c tar.tgz.command="git archive gzip" --format=tgz HEAD >actual 2>err &&
	test_must_be_empty err &&
	test_cmp expect actual &&
	for level in 0 1 9; do
		git archive --format=tgz -$level HEAD >expect &&
		garchive -c tar.tgz.command="git archive gzip" \
			--format=tgz -$level HEAD >actual &&
		test_cmp expect actual || return 1
	done &&
	git config tar.tar.gz.command "git archive gzip" &&
	test_same_as_git --format=tar.gz HEAD &&
	test_same_as_git --format=tar.gz -10 HEAD &&
	git config --unset tar.tar.gz.command
'

test_expect_success 'without gzip on PATH: a warning and git'"'"'s in-process gzip' '
	mkdir nogzip &&
	ln -s "$(command -v git)" nogzip/git &&
	cd repo &&
	git archive --format=tgz HEAD >expect &&
	PATH="$TRASH_DIRECTORY/nogzip" "$GARCHIVE_BUILD_DIR/garchive" \
		--format=tgz HEAD >actual 2>err &&
	test_cmp expect actual &&
	echo "warning: unable to start '"'"'gzip -cn'"'"' filter, falling back to '"'"'git archive gzip'"'"': No such file or directory" >expect.err &&
	test_cmp expect.err err &&
	git archive --format=tgz -9 HEAD >expect &&
	PATH="$TRASH_DIRECTORY/nogzip" "$GARCHIVE_BUILD_DIR/garchive" \
		--format=tgz -9 HEAD >actual 2>err &&
	test_cmp expect actual &&
	grep "^warning: unable to start '"'"'gzip -cn -9'"'"' filter, falling back" err
'

test_expect_success 'a gzip that is not executable or not a program falls back' '
	mkdir badgzip &&
	printf "not a program" >badgzip/gzip &&
	chmod -x badgzip/gzip &&
	cd repo &&
	git archive --format=tgz HEAD >expect &&
	PATH="$TRASH_DIRECTORY/badgzip:$TRASH_DIRECTORY/nogzip" \
		"$GARCHIVE_BUILD_DIR/garchive" --format=tgz HEAD >actual 2>err &&
	test_cmp expect actual &&
	grep "^warning: unable to start .* falling back.*: No such file or directory" err &&
	chmod +x ../badgzip/gzip &&
	PATH="$TRASH_DIRECTORY/badgzip:$PATH" garchive --format=tgz HEAD >actual 2>err &&
	test_cmp expect actual &&
	grep "^warning: unable to start .* falling back.*: Exec format error" err
'

test_expect_success 'a configured gzip -cn never falls back' '
	cd repo &&
	test_must_fail env PATH="$TRASH_DIRECTORY/nogzip" \
		"$GARCHIVE_BUILD_DIR/garchive" -c tar.tgz.command="gzip -cn" \
		--format=tgz HEAD >out 2>err &&
	test_must_be_empty out &&
	! grep "falling back" err
'

test_expect_success GZIP 'the built-in gzip -cn is started without a shell' '
	mkdir spy &&
	cat >spy/gzip <<-EOF &&
	#!/bin/sh
	cat /proc/\$PPID/comm >>"$TRASH_DIRECTORY/parent.log"
	exec $(command -v gzip) "\$@"
	EOF
	cat >spy/sh <<-EOF &&
	#!/bin/sh
	echo "sh \$*" >>"$TRASH_DIRECTORY/shell.log"
	exec /bin/sh "\$@"
	EOF
	chmod +x spy/gzip spy/sh &&
	cd repo &&
	PATH="$TRASH_DIRECTORY/spy:$PATH" garchive --format=tgz HEAD >actual &&
	echo garchive >expect &&
	test_cmp expect ../parent.log &&
	test_path_is_missing ../shell.log &&
	gzip -cn <../plain.tar >expect.tgz &&
	test_cmp expect.tgz actual
'

test_expect_success XZ 'a configured xz -c format, by name and from -o' '
	cd repo &&
	git config tar.tar.xz.command "xz -c" &&
	test_when_finished "git config --unset tar.tar.xz.command" &&
	test_same_as_git --format=tar.xz HEAD &&
	test_same_as_git --format=tar.xz -1 HEAD &&
	git archive -o expect.tar.xz HEAD &&
	garchive -o actual.tar.xz HEAD &&
	test_cmp expect.tar.xz actual.tar.xz &&
	test_same_as_git --list
'

test_expect_success GZIP 'a command with shell syntax, level appended' '
	cd repo &&
	git config tar.tgz.command "cat | gzip -cn" &&
	test_when_finished "git config --unset tar.tgz.command" &&
	test_same_as_git --format=tgz HEAD &&
	test_same_as_git --format=tgz -9 HEAD
'

test_expect_success 'a filter that exits 1: git'"'"'s message, no -o file' '
	cd repo &&
	git config tar.fail.command "cat >/dev/null; exit 1" &&
	test_when_finished "git config --unset tar.fail.command" &&
	test_same_as_git --format=fail HEAD &&
	test_expect_code 128 garchive -o out.fail HEAD 2>err &&
	test_path_is_missing out.fail &&
	echo "fatal: '"'"'cat >/dev/null; exit 1'"'"' filter reported error" >expect &&
	test_cmp expect err
'

test_expect_success 'a filter killed mid-stream fails and leaves no file' '
	cd repo &&
	git config tar.kill.command "head -c 1000 >/dev/null; kill -9 \$\$" &&
	test_when_finished "git config --unset tar.kill.command" &&
	test_must_fail garchive -o out.kill HEAD 2>err &&
	test_path_is_missing out.kill &&
	grep "^fatal: .* filter reported error" err
'

test_expect_success 'a filter that closes its input early is no success' '
	cd repo &&
	git config tar.short.command "head -c 10" &&
	test_when_finished "git config --unset tar.short.command" &&
	test_must_fail ok=sigpipe garchive -o out.short HEAD 2>err &&
	test_path_is_missing out.short
'

test_expect_success 'a configured filter that does not exist' '
	cd repo &&
	git config tar.none.command no-such-filter-command &&
	test_when_finished "git config --unset tar.none.command" &&
	test_same_as_git --format=none HEAD &&
	git config tar.none.command "no-such-filter-command --opt" &&
	test_must_fail garchive -o out.none --format=none HEAD 2>err &&
	test_path_is_missing out.none
'

test_expect_success 'tar.<format>.remote is parsed, badly set it fails as in git' '
	cd repo &&
	test_same_as_git -c tar.tgz.remote=maybe --list 2>/dev/null ||
	{
		git config tar.tgz.remote maybe &&
		test_when_finished "git config --unset tar.tgz.remote" &&
		test_same_as_git --list
	}
'

test_expect_success 'git -c tar.umask=022 garchive through git-garchive on PATH' '
	mkdir gitbin &&
	ln -s "$GARCHIVE_BUILD_DIR/garchive" gitbin/git-garchive &&
	cd repo &&
	git -c tar.umask=022 archive --format=tar HEAD >expect &&
	PATH="$TRASH_DIRECTORY/gitbin:$PATH" git -c tar.umask=022 garchive \
		--format=tar HEAD >actual &&
	test_cmp expect actual &&
	garchive --format=tar HEAD >default &&
	! test_cmp expect default 2>/dev/null
'

test_expect_success '-c on garchive'"'"'s command line' '
	cd repo &&
	git -c tar.umask=077 archive HEAD >expect &&
	garchive -c tar.umask=077 HEAD >actual &&
	test_cmp expect actual &&
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=tar.umask GIT_CONFIG_VALUE_0=0 \
		garchive HEAD >actual0 &&
	git -c tar.umask=0 archive HEAD >expect0 &&
	test_cmp expect0 actual0
'

test_done

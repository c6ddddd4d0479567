#!/bin/sh
test_description='garchive upload-archive: serving git archive --remote'
. "$(dirname "$0")/lib.sh"
# Where git is not 2.39, the reference runs replay git 2.39's record: its
# server's usage text is not a later git's (t/lib.sh).
test_uses_git_2_39_record

# Parts of the server side that belong to other stages: they are
# checked once those stages can do them.
test_lazy_prereq CLI_ADD_FILE '
	git init -q r && git -C r commit -q --allow-empty -m x &&
	(cd r && garchive --add-virtual-file=v:x HEAD) >out &&
	tar tf out | grep "^v$"
'
test_lazy_prereq CLI_PASS2 '
	git init -q r && git -C r commit -q --allow-empty -m x &&
	cd r && garchive --out=x HEAD 2>err; test $? = 128 &&
	grep "Unexpected option --output" err
'
test_lazy_prereq CLI_USAGE '
	garchive 2>err; test $? = 129 && test $(wc -l <err) -gt 5
'
test_lazy_prereq FILTER_COMMAND '
	git init -q r && git -C r commit -q --allow-empty -m x &&
	git -C r config tar.x.command "cat" &&
	(cd r && garchive --format=x HEAD) >out && test -s out
'
test_lazy_prereq ROOT 'test "$(id -u)" = 0'

# request ARG...: the pkt-lines a client sends, then a flush.
request () {
	for a
	do
		printf "%04x" $((${#a} + 14)) &&
		printf "argument %s\n" "$a" || return 1
	done
	printf 0000
}

# garchive_server ARGS...: `git archive ARGS` served by garchive.
garchive_server () {
	git archive --exec="garchive upload-archive" "$@"
}

# test_server_same_as_git ARGS...: `git archive ARGS` with the git server
# and with garchive's (ARGS include the --remote) alike.
test_server_same_as_git () {
	test_remote_same_as_git garchive_server "$@"
}

# Requests fed to a server directly (test_stdin_same_as_git
# upload-archive FILE DIR...) compare the whole pkt-line stream it
# answers, so they ask for no archive data: its packets depend on timing.

test_expect_success 'setup' '
	git init -q work &&
	(
		cd work &&
		mkdir -p sub/deeper &&
		echo top >top.txt &&
		echo s >sub/s.txt &&
		echo d >sub/deeper/d.txt &&
		printf "#!/bin/sh\n" >sub/run.sh &&
		chmod +x sub/run.sh &&
		git add . &&
		test_tick &&
		git commit -q -m one &&
		git tag v1 &&
		git tag -a -m annotated v1a &&
		echo more >>top.txt &&
		test_tick &&
		git commit -q -a -m two
	) &&
	git clone -q --bare work srv.git &&
	git -C srv.git config tar.local.command cat &&
	git -C srv.git config tar.shared.command cat &&
	git -C srv.git config tar.shared.remote true
'

test_expect_success 'the archive is the one a local run makes' '
	cd work &&
	for args in HEAD v1 v1a "v1 sub" "--prefix=p/ HEAD" \
		"HEAD sub/deeper" "--format=tar HEAD top.txt" \
		refs/heads/main heads/main
	do
		git -C ../srv.git archive $args >local.out &&
		git archive --remote=../srv.git \
			--exec="garchive upload-archive" $args >actual.out &&
		test_cmp local.out actual.out &&
		test_server_same_as_git --remote=../srv.git $args || return 1
	done &&
	for args in HEAD:sub "v1:sub/deeper"
	do
		test_server_same_as_git --remote=../srv.git $args ||
		return 1
	done
'

test_expect_success '-v lists the entries on band 2' '
	cd work &&
	test_server_same_as_git --remote=../srv.git -v HEAD &&
	grep "^remote: sub/run.sh        $" actual.err
'

test_expect_success '--list shows the formats a client may ask for' '
	cd work &&
	test_server_same_as_git --remote=../srv.git --list &&
	grep shared actual.out &&
	! grep local actual.out
'

test_expect_success 'a format without tar.<name>.remote is refused' '
	cd work &&
	test_server_same_as_git --remote=../srv.git --format=bogus HEAD &&
	test_server_same_as_git --remote=../srv.git --format=local HEAD &&
	grep "^remote: fatal: Unknown archive format .local.        $" \
		actual.err
'

test_expect_success FILTER_COMMAND 'a format with tar.<name>.remote works' '
	cd work &&
	test_server_same_as_git --remote=../srv.git --format=shared HEAD
'

test_expect_success 'only refs may be named, unless allowUnreachable' '
	cd work &&
	commit=$(git rev-parse HEAD) &&
	tree=$(git rev-parse HEAD^{tree}) &&
	for name in $commit $tree $commit:sub HEAD~1 v1^{tree} nosuch \
		HEAD:nosuch nosuch:sub main:sub
	do
		test_server_same_as_git --remote=../srv.git "$name" ||
		return 1
	done &&
	test_server_same_as_git --remote=../srv.git $commit &&
	grep "^remote: fatal: no such ref: $commit        $" actual.err &&
	grep "^fatal: sent error to the client: git upload-archive: archiver died with error$" actual.err &&
	grep "^remote: git upload-archive: archiver died with error$" actual.err &&
	git -C ../srv.git config uploadArchive.allowUnreachable true &&
	for name in $commit HEAD~1 $commit:sub
	do
		test_server_same_as_git --remote=../srv.git "$name" ||
		return 1
	done &&
	git -C ../srv.git config uploadArchive.allowUnreachable bogus &&
	test_server_same_as_git --remote=../srv.git HEAD &&
	git -C ../srv.git config --unset uploadArchive.allowUnreachable
'

test_expect_success 'at most 64 arguments' '
	cd work &&
	set -- HEAD &&
	for i in $(seq 63); do set -- "$@" sub; done &&
	test_server_same_as_git --remote=../srv.git "$@" &&
	test_must_be_empty actual.err &&
	test_server_same_as_git --remote=../srv.git "$@" top.txt &&
	grep "^remote: fatal: Too many options (>63)        $" actual.err
'

test_expect_success CLI_ADD_FILE '--add-file is refused after the file is looked at' '
	cd work &&
	test_server_same_as_git --remote=../srv.git --add-file=description HEAD &&
	grep "cannot be used together" actual.err &&
	test_server_same_as_git --remote=../srv.git --add-file=nonexistent HEAD &&
	grep "File not found: nonexistent" actual.err &&
	test_server_same_as_git --remote=../srv.git --add-virtual-file=a:b HEAD
'

test_expect_success CLI_PASS2 'options for the client only are refused' '
	cd work &&
	test_server_same_as_git --remote=../srv.git --out=x HEAD &&
	test_server_same_as_git --remote=../srv.git --rem=x HEAD &&
	test_server_same_as_git --remote=../srv.git --exe=x HEAD &&
	test_server_same_as_git --remote=../srv.git HEAD -- --output=x &&
	test_server_same_as_git --remote=../srv.git HEAD -- sub
'

test_expect_success CLI_USAGE 'no tree-ish: the usage text on band 2' '
	cd work &&
	test_server_same_as_git --remote=../srv.git
'

test_expect_success 'how the repository is found' '
	cd work &&
	git config core.bare false &&
	mkdir ../linked &&
	echo "gitdir: ../srv.git" >../linked/.git &&
	for remote in ../srv.git ../srv ../srv.git/ "$TRASH_DIRECTORY/srv" \
		../work ../work/.git "~/srv.git" "~/srv" ../linked ../nosuch \
		../work/sub "~nosuchuser/x"
	do
		test_server_same_as_git --remote="$remote" HEAD || return 1
	done
'

test_expect_success ROOT 'a repository owned by someone else' '
	cp -R srv.git owned.git &&
	chown -R nobody owned.git &&
	mkdir nohome owned-link &&
	echo "gitdir: ../owned.git" >owned-link/.git &&
	for remote in ../owned.git ../owned.git/ ../owned-link
	do
		(
			HOME="$TRASH_DIRECTORY/nohome" && export HOME &&
			cd work &&
			test_server_same_as_git --remote=$remote HEAD &&
			grep "dubious ownership" actual.err
		) || return 1
	done
'

test_expect_success 'malformed requests' '
	printf 0009garbage0000 >garbage.req &&
	test_stdin_same_as_git upload-archive garbage.req srv.git &&
	printf "0011argument nosuch0004" >empty-packet.req &&
	test_stdin_same_as_git upload-archive empty-packet.req srv.git &&
	printf "0011argument nosuch0005\n0000" >empty-line.req &&
	test_stdin_same_as_git upload-archive empty-line.req srv.git &&
	printf "0011argument nosuch" >eof.req &&
	test_stdin_same_as_git upload-archive eof.req srv.git &&
	printf "0011argument nosuch00zz" >bad-length.req &&
	test_stdin_same_as_git upload-archive bad-length.req srv.git &&
	printf "0003" >short-length.req &&
	test_stdin_same_as_git upload-archive short-length.req srv.git &&
	request --format=local HEAD >local.req &&
	test_stdin_same_as_git upload-archive local.req srv.git &&
	request $(for i in $(seq 65); do echo -v; done) HEAD >many.req &&
	test_stdin_same_as_git upload-archive many.req srv.git &&
	grep "Too many options" actual.out
'

test_expect_success 'command line misuse' '
	request HEAD >head.req &&
	test_stdin_same_as_git upload-archive head.req &&
	test_stdin_same_as_git upload-archive head.req srv.git srv.git &&
	test_stdin_same_as_git upload-archive head.req -h x &&
	test_stdin_same_as_git upload-archive head.req nosuch.git &&
	test_expect_code 129 garchive upload-archive--writer <head.req \
		>out 2>err &&
	test_must_be_empty out &&
	echo "usage: git upload-archive <repository>" >expect &&
	test_cmp expect err
'

# git 2.49 and later print the usage asked for on stdout (2.39: stderr;
# and 2.39 took --help-all for a repository).
test_expect_success '-h and --help-all print the usage on stdout' '
	echo "usage: git upload-archive <repository>" >expect &&
	for cmd in upload-archive upload-archive--writer
	do
		for h in -h --help-all
		do
			test_expect_code 129 garchive $cmd $h <head.req \
				>out 2>err &&
			test_cmp expect out &&
			test_must_be_empty err || return 1
		done || return 1
	done
'

test_expect_success 'installed as git-upload-archive' '
	mkdir server-bin &&
	ln -s "$GARCHIVE_BUILD_DIR/garchive" server-bin/git-upload-archive &&
	cd work &&
	git -C ../srv.git archive HEAD >local.out &&
	git archive --remote=../srv.git \
		--exec="$TRASH_DIRECTORY/server-bin/git-upload-archive" \
		HEAD >actual.out &&
	test_cmp local.out actual.out &&
	cat >../fakessh <<-\EOF &&
	#!/bin/sh
	# ssh stand-in: the "remote" login finds server-bin first on PATH.
	echo "$*" >>"$HOME/ssh.log"
	test "$1" = -G && exit 0
	while test $# -gt 1; do shift; done
	cd "$HOME" && PATH="$HOME/server-bin:$PATH" exec sh -c "$1"
	EOF
	chmod +x ../fakessh &&
	(
		GIT_SSH_COMMAND="$TRASH_DIRECTORY/fakessh" &&
		export GIT_SSH_COMMAND &&
		git archive --remote=host:srv.git --prefix=x/ HEAD sub \
			>actual.out &&
		test_expect_code 1 git archive --remote=host:srv.git nosuch \
			2>err
	) &&
	git -C ../srv.git archive --prefix=x/ HEAD sub >local.out &&
	test_cmp local.out actual.out &&
	grep "git-upload-archive .srv.git." ../ssh.log &&
	grep "^remote: fatal: no such ref: nosuch        $" err &&
	grep "^fatal: sent error to the client" err
'

test_expect_success 'installed as git-upload-archive: git'"'"'s exit status' '
	request nosuch >nosuch.req &&
	test_expect_code 128 server-bin/git-upload-archive srv.git \
		<nosuch.req >out 2>err &&
	test_cmp - err <<-\EOF &&
	fatal: sent error to the client: git upload-archive: archiver died with error
	EOF
	test_expect_code 0 server-bin/git-upload-archive srv.git \
		<head.req >out
'

# A served archive that stops short: git's server has written the
# entries in front of the damaged blob, as far as whole 10240-byte
# blocks go, and the client gets those bytes before the error.  The
# damaged blob sorts last; garchive's writer runs with 1 and 8 threads.
test_expect_success 'an entry that cannot be read: the bytes git'"'"'s server sent' '
	git init -q damaged &&
	(
		cd damaged &&
		for i in 1 2 3 4 5 6 7 8 9
		do
			python3 -c "
import random, sys
r = random.Random(int(sys.argv[2]))
open(sys.argv[1], \"wb\").write(r.randbytes(3000))
" a$i $i || return 1
		done &&
		echo last >z &&
		git add . &&
		test_tick &&
		git commit -q -m front
	) &&
	damage_loose damaged/.git $(git -C damaged rev-parse HEAD:z) cut 10 &&
	cd damaged &&
	test_expect_code 1 bounded git archive --remote=. HEAD \
		>git.out 2>git.err &&
	test $(wc -c <git.out) = 30720 &&
	for n in 1 8
	do
		test_expect_code 1 bounded git archive --remote=. \
			--exec="garchive -c garchive.threads=$n upload-archive" \
			HEAD >ga.out 2>ga.err &&
		cmp git.out ga.out &&
		sort git.err >expect &&
		sort ga.err >actual &&
		test_cmp expect actual || return 1
	done
'

test_done

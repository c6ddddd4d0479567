#!/bin/sh
test_description='garchive --remote: transports and the client protocol'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record

# Servers and clients may use different gzip implementations (git's
# built-in deflater, garchive's `gzip -cn`): for tgz the tests compare
# the tar inside, and only byte-compare when one side made both.
test_lazy_prereq GARCHIVE_TGZ '
	git init -q r && git -C r commit -q --allow-empty -m x &&
	(cd r && garchive --format=tgz HEAD) >out && gzip -t out
'
test_lazy_prereq GARCHIVE_ZIP '
	git init -q r && git -C r commit -q --allow-empty -m x &&
	(cd r && garchive --format=zip HEAD) >out && unzip -l out
'

# The output of `git archive ARGS` in the served repository.
local_archive () {
	git -C "$TRASH_DIRECTORY/srv.git" archive "$@"
}

# test_remote_archive REMOTE ARGS...: the git client and the garchive
# client get the same bytes from REMOTE, the bytes of a local archive.
test_remote_archive () {
	remote=$1
	shift
	local_archive "$@" >local.out &&
	git archive --remote="$remote" "$@" >git.out &&
	garchive --remote="$remote" "$@" >ga.out &&
	test_cmp local.out git.out &&
	test_cmp local.out ga.out
}

# test_client_same_as_git ARGS...: the git client and the garchive
# client, run with ARGS, agree (see test_remote_same_as_git).
test_client_same_as_git () {
	test_remote_same_as_git garchive "$@"
}

# without_v2_probe LOG: the reference git's ssh log as git 2.41 and
# later would write it.  Since eaa0fd6584 git offers protocol v2 only
# to upload-pack, so upload-archive gets no "-o SendEnv=GIT_PROTOCOL"
# (nor GIT_PROTOCOL=version=2) from an ssh of OpenSSH's kind; git 2.39
# sends them when protocol.version is 2, its default.  The tests that
# use this leave protocol.version at that default.
without_v2_probe () {
	sed "s/\[-o\]\[SendEnv=GIT_PROTOCOL\]//" "$1"
}

# test_ssh_same_as_git URL: both clients run the ssh stand-in with the
# same arguments (git first, then garchive, in one log) and agree, but
# for the v2 probe (without_v2_probe).
test_ssh_same_as_git () {
	rm -f "$HOME/ssh.log" &&
	if test "$ref_mode_" = replay
	then
		# The record holds git 2.39's output, not how it ran ssh:
		# this git runs for the first half of the log.
		frozen git archive --remote="$1" HEAD >/dev/null 2>&1
	fi
	test_client_same_as_git --remote="$1" HEAD || return 1
	test -f "$HOME/ssh.log" || return 0
	n=$(wc -l <"$HOME/ssh.log") &&
	test $((n % 2)) = 0 &&
	head -n $((n / 2)) "$HOME/ssh.log" >ssh.git &&
	without_v2_probe ssh.git >ssh.expect &&
	tail -n $((n / 2)) "$HOME/ssh.log" >ssh.actual &&
	test_cmp ssh.expect ssh.actual
}

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
		ln -s top.txt link &&
		git add . &&
		test_tick &&
		git commit -q -m one &&
		git tag v1 &&
		echo more >>top.txt &&
		test_tick &&
		git commit -q -a -m two
	) &&
	git clone -q --bare work srv.git &&
	mkdir bin &&
	cat >bin/fakessh <<-\EOF &&
	#!/bin/sh
	# ssh stand-in: log the arguments, run the command "remotely" here.
	for a; do printf "[%s]" "$a"; done >>"$HOME/ssh.log"
	echo >>"$HOME/ssh.log"
	test "$1" = -G && exit ${FAKESSH_G_STATUS:-0}
	while test $# -gt 1; do shift; done
	cd "$HOME" && PATH="${FAKESSH_PATH:+$FAKESSH_PATH:}$PATH" exec sh -c "$1"
	EOF
	chmod +x bin/fakessh &&
	cat >bin/fakeserver <<-\EOF &&
	#!/bin/sh
	# Keep the request (pkt-lines up to a flush) in request.bin, then
	# answer $FAKE_RESPONSE (printf escapes) and end: the client has
	# nothing more to send.
	: >"$HOME/request.bin"
	while :; do
		len=$(dd bs=4 count=1 iflag=fullblock 2>/dev/null)
		printf "%s" "$len" >>"$HOME/request.bin"
		test -z "$len" || test "$len" = 0000 && break
		dd bs=$((0x$len - 4)) count=1 iflag=fullblock 2>/dev/null \
			>>"$HOME/request.bin"
	done
	printf "${FAKE_RESPONSE-0008ACK\n00000000}"
	EOF
	chmod +x bin/fakeserver
'

test_expect_success 'local path: tar, paths, prefix, -o' '
	cd work &&
	test_remote_archive ../srv.git HEAD &&
	test_remote_archive ../srv.git --prefix=p/ v1 sub &&
	# A tree is stamped with the current time: hold the clock for
	# all three runs rather than hope they share a second.
	test_clock_start &&
	frozen test_remote_archive ../srv.git HEAD:sub &&
	test_remote_archive "$TRASH_DIRECTORY/srv.git" HEAD &&
	git archive --remote=../srv.git -o git.tar HEAD &&
	garchive --remote=../srv.git -o ga.tar HEAD &&
	local_archive HEAD >local.tar &&
	test_cmp local.tar git.tar &&
	test_cmp local.tar ga.tar
'

test_expect_success 'local path: formats made by the git server' '
	cd work &&
	test_remote_archive ../srv.git --format=zip HEAD &&
	test_remote_archive ../srv.git --format=tgz HEAD &&
	test_remote_archive ../srv.git --format=tar.gz -9 HEAD &&
	test_remote_archive ../srv.git -v HEAD &&
	test_remote_archive ../srv.git --list
'

test_expect_success '-o FILE sends its format first' '
	cd work &&
	git archive --remote=../srv.git -o git.zip HEAD &&
	garchive --remote=../srv.git -o ga.zip HEAD &&
	local_archive --format=zip HEAD >local.zip &&
	test_cmp local.zip git.zip &&
	test_cmp local.zip ga.zip &&
	git archive --remote=. --exec="$TRASH_DIRECTORY/bin/fakeserver" \
		-o x.tgz --prefix=a/ HEAD -- sub &&
	mv "$HOME/request.bin" expect.bin &&
	garchive --remote=. --exec="$TRASH_DIRECTORY/bin/fakeserver" \
		-o x.tgz --prefix=a/ HEAD -- sub &&
	test_cmp expect.bin "$HOME/request.bin" &&
	grep "argument --format=tgz" expect.bin
'

test_expect_success 'file:// URLs' '
	cd work &&
	test_remote_archive "file://$TRASH_DIRECTORY/srv.git" HEAD &&
	test_remote_archive "file://$TRASH_DIRECTORY/srv%2egit" HEAD
'

test_expect_success 'a relative path counts from the top of the work tree' '
	cd work/sub/deeper &&
	test_remote_archive ../srv.git HEAD &&
	test_client_same_as_git --remote=../../../srv.git HEAD
'

test_expect_success 'remote names and url.<base>.insteadOf' '
	cd work &&
	git remote add origin ../srv.git &&
	test_remote_archive origin HEAD &&
	git config url."$TRASH_DIRECTORY/".insteadOf trash: &&
	test_remote_archive trash:srv.git HEAD &&
	git config remote.short.url trash:srv.git &&
	test_remote_archive short HEAD
'

test_expect_success 'the server runs without our repository environment' '
	cd work &&
	local_archive HEAD >local.out &&
	(
		GIT_OBJECT_DIRECTORY=/nonexistent GIT_INDEX_FILE=/nonexistent &&
		GIT_CONFIG_PARAMETERS="'\''uploadarchive.allowunreachable'\''='\''bad'\''" &&
		export GIT_OBJECT_DIRECTORY GIT_INDEX_FILE GIT_CONFIG_PARAMETERS &&
		garchive --remote=../srv.git HEAD >ga.out
	) &&
	test_cmp local.out ga.out &&
	show="env | grep -e ^GIT_PROTOCOL= -e ^GIT_DIR= -e ^GIT_INDEX_FILE= | sort >&2" &&
	# protocol.version 2 (also the default) is no version for
	# upload-archive since git 2.41, where git 2.39 sends version=2:
	# those two runs are not compared with git.
	for version in "" 0 1 2
	do
		if test -n "$version"
		then
			git config protocol.version $version
		fi &&
		(
			GIT_INDEX_FILE=/nonexistent && export GIT_INDEX_FILE &&
			case "$version" in
			0|1)
				test_client_same_as_git --remote=. \
					--exec="$show; $TRASH_DIRECTORY/bin/fakeserver" HEAD
				;;
			*)
				garchive --remote=. \
					--exec="$show; $TRASH_DIRECTORY/bin/fakeserver" HEAD \
					>actual.out 2>actual.err
				;;
			esac
		) &&
		cat actual.err >>protocol.env || return 1
	done &&
	git config --unset protocol.version &&
	echo GIT_PROTOCOL=version=1 >expect.env &&
	test_cmp expect.env protocol.env
'

# A git:// stand-in: keep the first pkt-line a client sends (the
# daemon request) in git-request.bin, then hang up.  It gives up after
# 20 s without a client, so that a failed test leaves nothing behind.
fake_git_daemon () {
	python3 - <<-\EOF
	import os, socket
	s = socket.socket()
	s.bind(("127.0.0.1", 0))
	s.listen(1)
	s.settimeout(20)
	with open("fake-daemon.port.tmp", "w") as f:
	    f.write("%d\n" % s.getsockname()[1])
	os.rename("fake-daemon.port.tmp", "fake-daemon.port")
	c, _ = s.accept()
	c.settimeout(20)
	data = b""
	while len(data) < 4 or len(data) < int(data[:4], 16):
	    more = c.recv(65536)
	    if not more:
	        break
	    data += more
	open("git-request.bin", "wb").write(data[:int(data[:4], 16)])
	c.close()
	EOF
}

# expect_request FORMAT: git-request.bin must be the pkt-line of
# printf FORMAT (with $port set by run_fake_git_daemon).
expect_request () {
	printf "$1" >request.payload &&
	printf "%04x" $(($(wc -c <request.payload) + 4)) >expect.bin &&
	cat request.payload >>expect.bin &&
	test_cmp expect.bin git-request.bin
}

# run_fake_git_daemon ARGS...: garchive ARGS --remote=git://<fake>/srv.git
# HEAD against fake_git_daemon; its request is left in git-request.bin.
run_fake_git_daemon () {
	rm -f fake-daemon.port git-request.bin &&
	{ fake_git_daemon >/dev/null 2>&1 & } &&
	pid=$! &&
	for wait in $(seq 100)
	do
		test -s fake-daemon.port && break
		sleep 0.1
	done &&
	port=$(cat fake-daemon.port) &&
	test_must_fail garchive "$@" --remote="git://127.0.0.1:$port/srv.git" \
		HEAD >/dev/null 2>&1 &&
	wait $pid &&
	test -f git-request.bin
}

test_expect_success 'upload-archive gets no protocol v2 probe (git 2.41)' '
	cd work &&
	run_fake_git_daemon &&
	expect_request "git-upload-archive /srv.git\\0host=127.0.0.1:$port\\0" &&
	run_fake_git_daemon -c protocol.version=2 &&
	expect_request "git-upload-archive /srv.git\\0host=127.0.0.1:$port\\0" &&
	run_fake_git_daemon -c protocol.version=1 &&
	expect_request "git-upload-archive /srv.git\\0host=127.0.0.1:$port\\0\\0version=1\\0" &&
	GIT_SSH_COMMAND="$TRASH_DIRECTORY/bin/fakessh" &&
	export GIT_SSH_COMMAND &&
	rm -f "$HOME/ssh.log" &&
	garchive --remote=host:srv.git HEAD >/dev/null &&
	garchive -c protocol.version=1 --remote=host:srv.git HEAD >/dev/null &&
	unset GIT_SSH_COMMAND &&
	cat >expect.log <<-EOF &&
	[-G][host]
	[host][git-upload-archive '"'"'srv.git'"'"']
	[-G][-o][SendEnv=GIT_PROTOCOL][host]
	[-o][SendEnv=GIT_PROTOCOL][host][git-upload-archive '"'"'srv.git'"'"']
	EOF
	test_cmp expect.log "$HOME/ssh.log"
'

test_expect_success 'ssh: GIT_SSH_COMMAND, scp-like and ssh:// forms' '
	cd work &&
	GIT_SSH_COMMAND="$TRASH_DIRECTORY/bin/fakessh" &&
	export GIT_SSH_COMMAND &&
	for url in host:srv.git user@host:srv.git "ssh://host/$TRASH_DIRECTORY/srv.git" \
		"ssh://user@host:2222/$TRASH_DIRECTORY/srv.git" \
		"[host:22]:srv.git" "git+ssh://host/$TRASH_DIRECTORY/srv.git"
	do
		rm -f "$HOME/ssh.log" &&
		git archive --remote="$url" HEAD >git.out &&
		without_v2_probe "$HOME/ssh.log" >expect.log &&
		rm "$HOME/ssh.log" &&
		garchive --remote="$url" HEAD >ga.out &&
		test_cmp expect.log "$HOME/ssh.log" &&
		test_cmp git.out ga.out &&
		cat expect.log >>all.log || return 1
	done &&
	local_archive HEAD >local.out &&
	test_cmp local.out ga.out &&
	grep -F "[-p][2222][user@host]" all.log &&
	unset GIT_SSH_COMMAND
'

test_expect_success 'ssh: quoting, GIT_SSH, variants and core.sshCommand' '
	cd work &&
	cp -R ../srv.git "../q'\''uo!te.git" &&
	ln -s fakessh ../bin/ssh &&
	ln -s fakessh ../bin/plink &&
	ln -s fakessh ../bin/tortoiseplink &&
	(
		GIT_SSH_COMMAND="$TRASH_DIRECTORY/bin/fakessh -x" &&
		export GIT_SSH_COMMAND &&
		test_ssh_same_as_git "host:q'\''uo!te.git" &&
		test_ssh_same_as_git "ssh://h:33/~/srv.git" &&
		FAKESSH_G_STATUS=1 && export FAKESSH_G_STATUS &&
		test_ssh_same_as_git "host:srv.git" &&
		test_ssh_same_as_git "ssh://h:33/~/srv.git"
	) &&
	for ssh in fakessh ssh plink tortoiseplink
	do
		(
			GIT_SSH=$TRASH_DIRECTORY/bin/$ssh && export GIT_SSH &&
			test_ssh_same_as_git host:srv.git &&
			test_ssh_same_as_git "ssh://h:33/~/srv.git"
		) || return 1
	done &&
	for variant in plink putty tortoiseplink simple ssh auto
	do
		(
			GIT_SSH_COMMAND="$TRASH_DIRECTORY/bin/fakessh" &&
			GIT_SSH_VARIANT=$variant &&
			export GIT_SSH_COMMAND GIT_SSH_VARIANT &&
			test_ssh_same_as_git host:srv.git &&
			test_ssh_same_as_git "ssh://h:33/~/srv.git"
		) || return 1
	done &&
	git config core.sshCommand "$TRASH_DIRECTORY/bin/fakessh" &&
	rm -f "$HOME/ssh.log" &&
	test_remote_archive host:srv.git HEAD &&
	test $(wc -l <"$HOME/ssh.log") = 4 &&
	git config --unset core.sshCommand
'

test_expect_success 'ssh: a missing ssh program' '
	cd work &&
	(
		GIT_SSH=/nonexistent/ssh && export GIT_SSH &&
		test_client_same_as_git --remote=h:p HEAD &&
		grep "^fatal: cannot run /nonexistent/ssh: No such file" \
			actual.err
	) &&
	(
		GIT_SSH_COMMAND=/nonexistent/ssh && export GIT_SSH_COMMAND &&
		test_client_same_as_git --remote=h:p HEAD
	)
'

# git finds a program without a slash in PATH itself and says error:
# when it is not there; an exec that fails otherwise is the child's
# "fatal: cannot exec".
test_expect_success 'ssh: not in PATH, or not executable' '
	cd work &&
	(
		GIT_SSH=garchive-no-such-ssh && export GIT_SSH &&
		test_client_same_as_git --remote=h:p HEAD &&
		grep "^error: cannot run garchive-no-such-ssh: No such file" \
			actual.err
	) &&
	printf "not a program\n" >"$TRASH_DIRECTORY/notexec" &&
	chmod -x "$TRASH_DIRECTORY/notexec" &&
	(
		GIT_SSH="$TRASH_DIRECTORY/notexec" && export GIT_SSH &&
		test_client_same_as_git --remote=h:p HEAD &&
		grep "^fatal: cannot exec .*notexec.: Permission denied" \
			actual.err
	)
'

test_expect_success 'git:// through git daemon' '
	port=$((20000 + $$ % 20000)) &&
	started= &&
	for try in 1 2 3 4 5 6 7 8
	do
		git daemon --export-all --enable=upload-archive \
			--base-path="$TRASH_DIRECTORY" --port=$port \
			--listen=127.0.0.1 --detach \
			--pid-file="$TRASH_DIRECTORY/daemon.pid" \
			--reuseaddr &&
		# Up to 10 s: a busy machine starts the daemon slowly.
		for wait in $(seq 100)
		do
			git ls-remote "git://127.0.0.1:$port/srv.git" \
				>/dev/null 2>&1 && started=$port && break
			sleep 0.1
		done &&
		test -n "$started" && break
		kill $(cat daemon.pid) 2>/dev/null
		port=$((port + 1))
	done &&
	test -n "$started" &&
	echo $started >daemon.port &&
	ref_args_sed="s|127\.0\.0\.1:$started/|127.0.0.1:PORT/|g" &&
	test_when_finished "unset ref_args_sed" &&
	cd work &&
	test_remote_archive "git://127.0.0.1:$started/srv.git" HEAD &&
	test_remote_archive "git://127.0.0.1:$started/srv.git" --format=zip v1 sub &&
	test_client_same_as_git --remote="git://127.0.0.1:$started/nosuch.git" HEAD &&
	test_client_same_as_git --remote="git://127.0.0.1:$started/srv.git" nosuch &&
	test_client_same_as_git --remote="git://127.0.0.1:$started/srv.git" \
		--exec=git-upload-archive HEAD
'

test_expect_success 'git:// errors: refused connection, bad names' '
	cd work &&
	test_client_same_as_git --remote=git://127.0.0.1:1/srv.git HEAD &&
	test_client_same_as_git --remote=git://host.invalid/srv.git HEAD &&
	test_client_same_as_git --remote="git://127.0.0.1:1/a%0ab" HEAD &&
	test_client_same_as_git --remote=git://127.0.0.1:1 HEAD
'

test_expect_success 'git client, garchive server; garchive on both ends' '
	cd work &&
	local_archive HEAD >local.out &&
	git archive --remote=../srv.git --exec="garchive upload-archive" \
		HEAD >git.out &&
	garchive --remote=../srv.git --exec="garchive upload-archive" \
		HEAD >ga.out &&
	test_cmp local.out git.out &&
	test_cmp local.out ga.out &&
	GIT_SSH_COMMAND="$TRASH_DIRECTORY/bin/fakessh" &&
	export GIT_SSH_COMMAND &&
	git archive --remote=host:srv.git --exec="garchive upload-archive" \
		--prefix=x/ HEAD sub >git.out &&
	garchive --remote=host:srv.git --exec="garchive upload-archive" \
		--prefix=x/ HEAD sub >ga.out &&
	local_archive --prefix=x/ HEAD sub >local.out &&
	test_cmp local.out git.out &&
	test_cmp local.out ga.out &&
	unset GIT_SSH_COMMAND
'

test_expect_success GARCHIVE_ZIP 'zip from a garchive server' '
	cd work &&
	local_archive --format=zip HEAD >local.out &&
	git archive --remote=../srv.git --exec="garchive upload-archive" \
		--format=zip HEAD >git.out &&
	garchive --remote=../srv.git --exec="garchive upload-archive" \
		-o ga.zip HEAD &&
	test_cmp local.out git.out &&
	test_cmp local.out ga.zip
'

test_expect_success GZIP,GARCHIVE_TGZ 'tgz from a garchive server: the same tar inside' '
	cd work &&
	local_archive --format=tgz HEAD | gzip -dc >local.tar &&
	git archive --remote=../srv.git --exec="garchive upload-archive" \
		--format=tgz HEAD >git.tgz &&
	garchive --remote=../srv.git --exec="garchive upload-archive" \
		--format=tgz HEAD >ga.tgz &&
	test_cmp git.tgz ga.tgz &&
	gzip -dc <ga.tgz >ga.tar &&
	test_cmp local.tar ga.tar
'

test_expect_success 'server errors reach the client, exit 1' '
	cd work &&
	test_client_same_as_git --remote=../srv.git nosuch &&
	test_client_same_as_git --remote=../srv.git \
		$(git -C ../srv.git rev-parse HEAD) &&
	test_client_same_as_git --remote=../nosuch.git HEAD &&
	test_client_same_as_git --remote=../srv.git --format=bogus HEAD &&
	test_expect_code 1 garchive --remote=../srv.git nosuch &&
	test_client_same_as_git --remote=../srv.git \
		--exec="garchive upload-archive" nosuch &&
	garchive --remote=../srv.git --exec="garchive upload-archive" \
		nosuch 2>err;
	test $? = 1 &&
	grep "^remote: fatal: no such ref: nosuch        $" err
'

test_expect_success 'a failed remote run leaves no -o file' '
	cd work &&
	test_expect_code 1 garchive --remote=../srv.git -o out.tar nosuch &&
	test_path_is_missing out.tar
'

test_expect_success 'protocol errors of a misbehaving server' '
	cd work &&
	for response in "" "0000" "000aNACK foo" "000bERR  boom" "00zz" "0003" \
		"0001" "0004" "ffff" "fff4" "0008ACK\n" "0008ACK\n0004" \
		"0008ACK\n0001" "0008ACK\n0000" "0008ACK\n00000006\004x" \
		"0008ACK\n00000006\003x" "0008ACK\n00000004" \
		"0008ACK\n0000000bERR oops0000" \
		"0008ACK\n00000007\002ab0008\002c\nd0008\003err" \
		"0008ACK\n00000007\002ab0008\002c\nd0000" \
		"0008ACK\n00000007\001ab0006\002\n0006\002\r0000" \
		"0008ACK\n00000007\001ab0008\003e\000d0000" \
		"0008ACK\n0000000a\002x\000y\n0000" \
		"0008ACK\n00000\001\033\177" "0010NACK a\033[2Jb"
	do
		FAKE_RESPONSE=$response &&
		export FAKE_RESPONSE &&
		test_client_same_as_git --remote=. \
			--exec="$TRASH_DIRECTORY/bin/fakeserver" HEAD || {
			echo >&2 "response: $response"
			return 1
		}
	done &&
	unset FAKE_RESPONSE
'

test_lazy_prereq SCRIPT 'script -qc true /dev/null'

test_expect_success SCRIPT 'on a terminal: ESC [K and highlighted keywords' '
	cd work &&
	FAKE_RESPONSE="0008ACK\n00000020\002  Error: x\nwarning:y\rhints\n0006\002\n0000" &&
	export FAKE_RESPONSE &&
	for config in "" "color.remote never" "color.remote always" \
		"color.ui false" "color.remote auto"
	do
		if test -n "$config"
		then
			git config $config
		fi &&
		for term in xterm dumb
		do
			TERM=$term script -qc "git archive --remote=. -o x.tar \
				--exec=$TRASH_DIRECTORY/bin/fakeserver HEAD" \
				/dev/null >expect &&
			TERM=$term script -qc "garchive --remote=. -o x.tar \
				--exec=$TRASH_DIRECTORY/bin/fakeserver HEAD" \
				/dev/null >actual &&
			test_cmp expect actual || return 1
		done &&
		git config --unset-all color.remote;
		git config --unset-all color.ui;
		: || return 1
	done &&
	TERM=xterm script -qc "garchive --remote=. -o x.tar \
		--exec=$TRASH_DIRECTORY/bin/fakeserver HEAD" /dev/null >actual &&
	unset FAKE_RESPONSE &&
	printf "remote:   \033[1;31mError\033[m: x\033[K" >esc &&
	grep -F "$(cat esc)" actual
'

# http and https: t9400-http (git 2.39 cannot archive over HTTP).
test_expect_success 'transports git does not speak for archives' '
	cd work &&
	git bundle create ../b.bundle HEAD 2>/dev/null &&
	test_client_same_as_git --remote=../b.bundle HEAD &&
	test_client_same_as_git --remote="ext::git %s ../srv.git" HEAD
'

test_expect_success 'a remote helper with "connect" (ext::)' '
	cd work &&
	git config protocol.ext.allow always &&
	test_remote_archive "ext::git %s $TRASH_DIRECTORY/srv.git" HEAD &&
	test_client_same_as_git --remote="ext::git %s $TRASH_DIRECTORY/srv.git" \
		--exec=git-upload-archive HEAD &&
	test_client_same_as_git --remote="ext::git %s $TRASH_DIRECTORY/srv.git" \
		--exec=other HEAD &&
	git config --unset protocol.ext.allow
'

# git 2.46 and later (ffce821880): a remote with remote.<name>.vcs and
# no URL has its name for URL, handed to git-remote-<vcs>; git 2.39
# crashes on it.
test_expect_success 'remote.<name>.vcs without a URL: the name is the URL' '
	cd work &&
	mkdir -p ../helper-bin &&
	cat >../helper-bin/git-remote-fake <<-\EOF &&
	#!/bin/sh
	# A helper with "connect" that serves srv.git whatever its URL.
	echo "$*" >>"$HOME/helper.log"
	read cmd
	printf "connect\\n\\n"
	read cmd
	echo "$cmd" >>"$HOME/helper.log"
	printf "\\n"
	exec git upload-archive "$HOME/srv.git"
	EOF
	chmod +x ../helper-bin/git-remote-fake &&
	rm -f "$HOME/helper.log" &&
	local_archive HEAD >local.out &&
	PATH="$TRASH_DIRECTORY/helper-bin:$PATH" \
		garchive -c remote.x.vcs=fake --remote=x HEAD >ga.out &&
	test_cmp local.out ga.out &&
	PATH="$TRASH_DIRECTORY/helper-bin:$PATH" \
		garchive -c remote.y.vcs=fake -c remote.y.url=elsewhere \
		--remote=y HEAD >ga.out &&
	test_cmp local.out ga.out &&
	cat >expect <<-\EOF &&
	x x
	connect git-upload-archive
	y elsewhere
	connect git-upload-archive
	EOF
	test_cmp expect "$HOME/helper.log"
'

test_expect_success 'URL and policy errors' '
	cd work &&
	test_client_same_as_git --remote= HEAD &&
	test_client_same_as_git --remote=-bad HEAD &&
	test_client_same_as_git --remote=ssh://-oProxyCommand=x/p HEAD &&
	test_client_same_as_git --remote=ssh://host HEAD &&
	test_client_same_as_git --remote=ssh://host: HEAD &&
	(
		GIT_ALLOW_PROTOCOL=ssh && export GIT_ALLOW_PROTOCOL &&
		test_client_same_as_git --remote=../srv.git HEAD
	) &&
	(
		GIT_ALLOW_PROTOCOL=git:file && export GIT_ALLOW_PROTOCOL &&
		test_remote_archive ../srv.git HEAD
	) &&
	git config protocol.file.allow never &&
	test_client_same_as_git --remote=../srv.git HEAD &&
	git config protocol.file.allow user &&
	test_remote_archive ../srv.git HEAD &&
	(
		GIT_PROTOCOL_FROM_USER=0 && export GIT_PROTOCOL_FROM_USER &&
		test_client_same_as_git --remote=../srv.git HEAD
	) &&
	git config protocol.file.allow bogus &&
	test_client_same_as_git --remote=../srv.git HEAD &&
	git config --unset protocol.file.allow &&
	git config protocol.allow never &&
	test_client_same_as_git --remote=../srv.git HEAD &&
	git config --unset protocol.allow &&
	git config protocol.version 3 &&
	test_client_same_as_git --remote=../srv.git HEAD &&
	git config --unset protocol.version
'

test_expect_success 'a server that dies at once' '
	cd work &&
	test_must_fail ok=sigpipe garchive --remote=. --exec=true HEAD
'

test_expect_success 'stop git daemon' '
	if test -f daemon.pid; then kill $(cat daemon.pid); fi
'

test_done

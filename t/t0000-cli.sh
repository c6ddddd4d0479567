#!/bin/sh

test_description='command line: options, messages and exit codes as git'

. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record

# test_cli_same ARGS...: like test_same_as_git, and the whole stderr
# and stdout (usage text included) must be git's too, but for the name
# and garchive's additions (as_git_words).
test_cli_same () {
	same_failure_as_git "$@" &&
	if grep -q "^usage: garchive " actual.out
	then
		as_git_words actual.out >actual.git-out
	else
		cp actual.out actual.git-out
	fi &&
	as_git_words actual.err >actual.git-err &&
	test_cmp expect.out actual.git-out &&
	test_cmp expect.err actual.git-err
}

# test_output_same FILE [GIT_OPTS...] -- ARGS...: ARGS write the archive
# to FILE with -o; git's and garchive's files, exit statuses and
# diagnostics must be the same.
test_output_same () {
	file=$1
	shift
	git_opts=
	while test $# -gt 0 && test "$1" != --; do
		git_opts="$git_opts $(printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")")"
		shift
	done
	shift
	rm -f "$file" expect.file actual.file &&
	eval "git $git_opts archive \"\$@\"" >expect.out 2>expect.err
	expect_code=$?
	if test -f "$file"; then mv "$file" expect.file; fi &&
	garchive "$@" >actual.out 2>actual.err
	actual_code=$?
	if test -f "$file"; then mv "$file" actual.file; fi &&
	if test $expect_code != $actual_code; then
		echo >&2 "exit status: git $expect_code, garchive $actual_code"
		cat actual.err >&2
		return 1
	fi &&
	diagnostics expect.err >expect.diag &&
	diagnostics actual.err >actual.diag &&
	test_cmp expect.diag actual.diag &&
	test_cmp expect.out actual.out &&
	test_path_is_file expect.file &&
	test_cmp expect.file actual.file
}

# remote_lines FILE: what a client printed for its server's diagnostics.
remote_lines () {
	grep -E '^remote: (fatal|error|warning):' "$1" | sed 's/ *$//' || :
}

# test_server_same ARGS...: git's client talking to `garchive
# upload-archive` must see what it sees from `git upload-archive`.
test_server_same () {
	git archive --remote=. --exec='git upload-archive' "$@" \
		>expect.out 2>expect.err
	expect_code=$?
	git archive --remote=. --exec='garchive upload-archive' "$@" \
		>actual.out 2>actual.err
	actual_code=$?
	if test $expect_code != $actual_code; then
		echo >&2 "exit status: git $expect_code, garchive $actual_code"
		cat actual.err >&2
		return 1
	fi &&
	remote_lines expect.err >expect.diag &&
	remote_lines actual.err >actual.diag &&
	test_cmp expect.diag actual.diag &&
	test_cmp expect.out actual.out
}

test_expect_success 'setup' '
	echo hi >a &&
	mkdir sub &&
	echo x >sub/f &&
	git init -q &&
	git add a sub/f &&
	test_tick &&
	git commit -q -m init &&
	echo untracked >u &&
	printf "#!/bin/sh\\n" >x.sh &&
	chmod +x x.sh &&
	git config tar.foo.command "gzip -cn" &&
	git config tar.bar.command "gzip -cn" &&
	git config tar.bar.remote true
'

test_expect_success SYMLINKS 'setup dangling symlink' '
	ln -s nowhere dangling
'

test_expect_success '-h prints git'\''s usage, and garchive'\''s options, on stdout' '
	test_expect_code 129 ref_git_ archive -h >expect &&
	test_expect_code 129 garchive -h >actual &&
	as_git_words actual >actual.git &&
	test_cmp expect actual.git &&
	grep "^usage: garchive \[<options>\] <tree-ish> \[<path>...\]$" actual &&
	for opt in "-c <name>=<value>" "--mtime <time>" "--threads <n>" \
		"--version" "--help"
	do
		grep "^    $opt " actual || return 1
	done
'

test_expect_success 'garchive'\''s own options after the archive options: a hint' '
	test_cli_same --format=tar -c k=v HEAD &&
	grep "^error: unknown switch .c.$" actual.err &&
	grep "^hint: -c <name>=<value> is garchive.s own option: give it first" actual.err &&
	test_cli_same HEAD --version &&
	grep "^hint: --version is garchive.s own option" actual.err
'

test_expect_success '--version names libgit2, zlib and gzip in use' '
	garchive --version >actual &&
	sed -n 1p actual >first &&
	grep "^garchive version [0-9]" first &&
	grep "^libgit2: [0-9]*\.[0-9]*\.[0-9]*$" actual &&
	grep "^zlib: [0-9]" actual &&
	echo "gzip: $(gzip --version | sed -n "1s/^gzip //p")" >expect.gzip &&
	grep "^gzip: " actual >actual.gzip &&
	test_cmp expect.gzip actual.gzip &&
	if command -v python3 >/dev/null; then
		python3 -c "import zlib; print(\"zlib: \" + zlib.ZLIB_RUNTIME_VERSION)" >expect.zlib &&
		grep "^zlib: " actual >actual.zlib &&
		test_cmp expect.zlib actual.zlib
	fi &&
	mkdir nogzip &&
	ln -s "$(command -v git)" nogzip/git &&
	PATH="$TRASH_DIRECTORY/nogzip" "$GARCHIVE_BUILD_DIR/garchive" --version >actual &&
	grep "^gzip: not found" actual &&
	garchive --version --build-options >actual.b &&
	garchive --version >actual &&
	test_cmp actual actual.b
'

# LeakSanitizer refuses to run under ptrace, so not in ASAN builds.
test_lazy_prereq STRACE '
	strace -f -o /dev/null true &&
	strace -f -o /dev/null garchive --version
'

# libgit2 built with mbedTLS (Debian's) would parse the whole system CA
# bundle at init; garchive makes no TLS connection (src/cli/no-tls.c).
test_expect_success STRACE 'no run reads the TLS certificate store' '
	strace -f -e trace=open,openat -o trace.version garchive --version >/dev/null &&
	strace -f -e trace=open,openat -o trace.tar garchive HEAD >/dev/null &&
	grep -c "openat(" trace.tar >count &&
	test "$(cat count)" -gt 0 &&
	! grep -E "/etc/ssl|/usr/lib/ssl|ca-certificates|\\.pem\"|\\.crt\"" trace.version trace.tar
'

test_expect_success 'an unknown tar.* format: a hint at tar.<format>.command' '
	git init -q fmt &&
	git -C fmt commit -q --allow-empty -m x &&
	cd fmt &&
	test_same_as_git --format=tar.xz HEAD &&
	as_git_words actual.err >actual.git-err &&
	test_cmp expect.err actual.git-err &&
	cat >expect.hint <<-\EOF &&
	hint: `garchive --list` shows the formats; a tar filter makes '"'tar.xz'"' one:
	hint:   git config tar.tar.xz.command "xz -c"
	EOF
	grep "^hint: " actual.err >actual.hint &&
	test_cmp expect.hint actual.hint &&
	git config tar.tar.xz.command "xz -c" &&
	garchive --format=tar.xz HEAD >out.xz
'

test_expect_success '--list prints the formats' '
	git archive --list >expect &&
	garchive --list >actual &&
	test_cmp expect actual &&
	grep "^foo\$" actual
'

# Each line is the arguments of one test, as shell words.  The whole
# stderr must match, so these also check where the usage text goes.
while read -r args; do
	test_expect_success "same as git: ${args:-(no arguments)}" "
		test_cli_same $args
	"
done <<\EOF

-h
HEAD -h
-vh
-hv
-hel
-9h
-v --help
HEAD --help-all
--he
--help=x
-v
--format=bogus
--
HEAD --end-of-options -h
--bogus HEAD
--bogus=1 HEAD
-q HEAD
-vq HEAD
-v-x HEAD
-é
-vé
-list
-lis
-li
-vlist
-form=zip
-for
-prefix
-prefix=x
-worktree
-remote
-rem
-exec
-ex
-no-foo
-no
-no-h
-help
-mtime
-threads
-thr
--no-mtime HEAD
--no-threads HEAD
--bogus --add-file=nosuch HEAD
--add-file=nosuch --bogus HEAD
--format
--prefix
--add-file
--add-virtual-file
HEAD --form
--verbose=3
--verb=3
--no-verbose=3
--no-verb=3
--list=1
--worktree-attributes=yes
--no-format=zip HEAD
--no-form=zip HEAD
--no-add-file=x HEAD
--add=x
--add x HEAD
--no-add HEAD
--no-no-format HEAD
--=x
--=
--n=x
--formatx=zip HEAD
-vo
-vo vo.tar HEAD
-vovo.tar HEAD
--rem=x HEAD
--exe=x HEAD
--out=x HEAD
--out=x --no-out HEAD
--outp x HEAD
--rem=x --exe=y --out=z HEAD
--exe=y --out=z HEAD
--add-file=u --rem=x HEAD
--rem=x --add-file=nosuch HEAD
--format=bogus HEAD
--format= HEAD
--format=bogus -l
--format -- HEAD
--format -v HEAD
-o
--output
--remote
--exec
--n
--no
--no-
--no-output=x
--no-o HEAD
--no-rem HEAD
--no-exec HEAD
--exec=foo HEAD
--exec foo HEAD
--end-of-options -o x
-o p.tar --no-output HEAD
--git-completion-helper
--git-completion-helper HEAD
-- --git-completion-helper
-v --output o1.tar HEAD -oo2.tar -- -o x
-l
--list
--lis HEAD
-l nosuch extra
-lv
-l9 --format=tar
--format=bogus --list HEAD
--list --no-list -l
--list --no-list HEAD
--add-file=nosuch -l
-l --out=x
HEAD
-v HEAD
-v -v HEAD
-vv --no-verbose -v HEAD
--worktree HEAD
--worktree-attributes --no-worktree-attributes HEAD
--prefix=p/ HEAD --pre q/
--prefix=p/ --no-prefix HEAD
HEAD sub -v a
-- -v
HEAD -- -v -- -l
HEAD --end-of-options -l
- HEAD
--form=zip HEAD
--format zip HEAD
--format zip --format tar HEAD
--no-format HEAD
-v9 --format zip HEAD
-9v --format zip HEAD
-0 --format=zip HEAD
-12 -3 --format=zip HEAD
-99999999999999999999 HEAD
--format=zip -4294967297 HEAD
-9 HEAD
--format=tar -0 HEAD
--format=zip -10 HEAD
-4294967297 HEAD
-2147483649 HEAD
-10 -v -o x.zip HEAD
--format=foo -5 HEAD
--prefix=one/ --add-file=u --prefix=two/ --add-file=u --prefix= HEAD
--prefix=one --add-file=./u HEAD
--add-file x.sh --add-file=sub/f HEAD
--add-file=u --no-add-virtual-file --add-virtual-file=v:x HEAD
--add-virtual-file=v:x --no-add-file --add-file=u HEAD
'--add-virtual-file="a:b":c' HEAD
'--add-virtual-file="\t":x' HEAD
'--add-virtual-file="\101\"c\\":y' HEAD
'--add-virtual-file="":x' HEAD
--add-virtual-file=a:b:c HEAD
--add-virtual-file=d: HEAD
'--add-virtual-file=a"b:x' HEAD
--prefix=p/ --add-virtual-file=v:x HEAD
--add-v=w:1 --add-f=u HEAD
--add-file=nosuch HEAD
--add-file=sub HEAD
--add-file= HEAD
--add-file=u/ HEAD
--add-file=/nonexistent/x HEAD
'--add-virtual-file="a:b' HEAD
'--add-virtual-file="a\q":x' HEAD
'--add-virtual-file="\400":x' HEAD
'--add-virtual-file="\01":x' HEAD
'--add-virtual-file="a\' HEAD
--add-virtual-file=ab HEAD
'--add-virtual-file="a"b:x' HEAD
'--add-virtual-file="a"' HEAD
--add-virtual-file=:x HEAD
--add-virtual-file= HEAD
--add-virtual-file=:x -l
-l --add-virtual-file=ab
--add-file=nosuch --out=x HEAD
--add-file=u --no-add-file --add-file=nosuch HEAD
EOF

test_expect_success SYMLINKS 'same as git: --add-file=dangling HEAD' '
	test_cli_same --add-file=dangling HEAD
'

# The same from a subdirectory: the cwd prefix shows in messages and
# in virtual file names.  garchive follows the git on PATH where git
# 2.41 changed running from a subdirectory, so these hold with any git;
# the usage text is 2.39's (replayed from its record on a later git).
test_expect_success 'same as git in sub/: -h' '
	cd sub &&
	test_cli_same -h
'

while read -r args; do
	test_expect_success "same as git in sub/: $args" "
		cd sub &&
		test_cli_same $args
	"
done <<\EOF
HEAD
--add-file=nosuch HEAD
--add-file=../nosuch HEAD
--add-file=./nosuch HEAD
--add-file= HEAD
--add-file=. HEAD
--add-file=f --add-file=../u --add-virtual-file=v:hi --prefix=p/ --add-file=f HEAD
'--add-virtual-file="q":x' HEAD
--add-file=../sub/f HEAD
'--add-virtual-file="\000":x' HEAD
--add-virtual-file=/abs:x HEAD
EOF

test_expect_success 'same as git: -out writes to ut' '
	test_output_same ut -- -out HEAD
'

# Format inference from the -o name.  garchive's tgz is `gzip -cn`, so
# git is told to use the same command for its tgz and tar.gz.
while read -r file args; do
	test_expect_success "-o $file $args: format and bytes as git's" "
		mkdir -p e &&
		test_output_same $file \
			-c tar.tgz.command='gzip -cn' \
			-c tar.tar.gz.command='gzip -cn' -- \
			$args
	"
done <<\EOF
x.zip -o x.zip HEAD
x.zip HEAD -o x.zip
x.ZIP -o x.ZIP HEAD
.zip -o .zip HEAD
e/.zip -o e/.zip HEAD
x.gz -o x.gz HEAD
x.tar -o x.tar HEAD
x.tgz -o x.tgz HEAD
x.tar.gz -o x.tar.gz HEAD
x.foo -o x.foo HEAD
x.zip --format=tar.gz -o x.zip HEAD
x.zip --no-format -o x.zip HEAD
x.zip --format=zip --no-format -o x.zip HEAD
x.tgz --format=tar --format=zip -o x.tgz HEAD
x.tgz -9 -o x.tgz HEAD
EOF

test_expect_success '-o .zip in sub/ is a zip, as in git' '
	cd sub &&
	test_output_same .zip -- -o .zip HEAD &&
	test "$(head -c 2 actual.file)" = PK
'

test_expect_success 'tgz takes high levels, as tar filters do in git' '
	git -c tar.tgz.command="gzip -cn" archive --format=tgz -12 HEAD \
		>expect.out 2>expect.err;
	expect_code=$? &&
	test_expect_code $expect_code garchive --format=tgz -12 HEAD \
		>actual.out 2>actual.err &&
	diagnostics expect.err >expect.diag &&
	diagnostics actual.err >actual.diag &&
	test_cmp expect.diag actual.diag
'

# The server side of --remote: `garchive upload-archive` must answer
# git's client as `git upload-archive` does.
while read -r args; do
	test_expect_success "server side as git's: $args" "
		test_server_same $args
	"
done <<\EOF
-l
HEAD
--format=zip HEAD
--format=bar HEAD
--format=foo HEAD
--format=bogus HEAD
--add-file=HEAD HEAD
--add-file=nosuch HEAD
--add-virtual-file=a HEAD
--add-virtual-file=a:b HEAD
--exe=x HEAD
--format=tar -9 HEAD
-v HEAD
EOF

test_done

#!/bin/sh
test_description='garchive gzip: the bytes of GNU gzip -cn, on any number of threads

The engine must write what `gzip -c -n -N` writes, bit for bit, for
every input and level, and the same bytes with one thread or several.
The corpus (t/lib-gzip-corpus.py) is made of the engine'"'"'s edges:
gzip'"'"'s window, where its buffer slides, its block buffers, the
engine'"'"'s chunks and the tail it emulates, long runs that keep a
speculative parse out of step, and a tar of about 100 MB.  Each file is
a gzip member of one run of `gzip -cn FILE...` and of `garchive gzip
FILE...`, so one run per level and thread count covers the corpus.
The checksums at the end pin the engine'"'"'s own bytes, with or
without a gzip to compare with.'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-repo.sh"

# gzip reads options from $GZIP; the reference is gzip without them.
unset GZIP

# same_as_gzip LEVEL OPTIONS...: the corpus through garchive gzip with
# OPTIONS equals gzip -cn -LEVEL; on a difference, name the first file.
same_as_gzip () {
	level=$1 &&
	shift &&
	garchive gzip -$level "$@" corpus/* >actual &&
	if ! cmp -s expect-$level actual; then
		for f in corpus/*; do
			gzip -cn -$level <$f >expect.one &&
			garchive gzip -$level "$@" <$f >actual.one &&
			cmp expect.one actual.one ||
			echo "# differs: $f at -$level with $*"
		done
		return 1
	fi
}

test_expect_success 'setup: the corpus' '
	python3 "$TEST_DIRECTORY/lib-gzip-corpus.py" corpus &&
	test $(ls corpus | wc -l) -ge 40
'

for level in 1 2 3 4 5 6 7 8 9; do
	test_expect_success GZIP "level $level: gzip -cn -$level's bytes, 1, 2 and 3 threads" '
		gzip -cn -$level corpus/* >expect-$level &&
		same_as_gzip $level --threads=1 &&
		same_as_gzip $level --threads=2 &&
		same_as_gzip $level --threads=3 --chunk-size=65536
	'
done

test_expect_success GZIP 'small chunks: joins and fallbacks everywhere' '
	for level in 1 3 4 6 9; do
		same_as_gzip $level --threads=4 --chunk-size=32768 || return 1
	done
'

test_expect_success GZIP 'stdin, -, and clusters of options' '
	gzip -cn -6 <corpus/text-400k >expect &&
	garchive gzip <corpus/text-400k >actual &&
	test_cmp expect actual &&
	garchive gzip -cn6 - <corpus/text-400k >actual &&
	test_cmp expect actual &&
	gzip -cn --best corpus/one corpus/two >expect &&
	garchive gzip --std --no-n --best corpus/one - <corpus/two >actual &&
	test_cmp expect actual
'

test_expect_success GZIP 'the project'"'"'s own tar' '
	if git -C "$GARCHIVE_SRC" rev-parse --verify -q HEAD >/dev/null
	then
		git -C "$GARCHIVE_SRC" archive --format=tar HEAD >own.tar
	else
		tar -C "$GARCHIVE_SRC" -cf own.tar src t Makefile
	fi &&
	for level in 1 6 9; do
		gzip -cn -$level <own.tar >expect &&
		garchive gzip -$level --threads=1 <own.tar >actual &&
		test_cmp expect actual &&
		garchive gzip -$level --threads=2 <own.tar >actual &&
		test_cmp expect actual || return 1
	done
'

# EXPENSIVE: under the sanitizers, the corpus above and the project's
# tar run the same engine on less.
test_expect_success GZIP,EXPENSIVE 'a tar of 100 MB, 1 and 2 threads' '
	python3 "$TEST_DIRECTORY/lib-gzip-corpus.py" big big.tar &&
	gzip -cn -6 <big/big.tar >expect &&
	garchive gzip -6 --threads=1 <big/big.tar >actual &&
	cmp expect actual &&
	garchive gzip -6 --threads=2 <big/big.tar >actual &&
	cmp expect actual &&
	gzip -cn -1 <big/big.tar >expect &&
	garchive gzip -1 --threads=2 <big/big.tar >actual &&
	cmp expect actual &&
	rm -rf big expect actual
'

# check_sum SHA256 OPTIONS... <FILE
check_sum () {
	sum=$1 &&
	shift &&
	garchive gzip "$@" >out.gz &&
	echo "$sum  out.gz" >expect.sum &&
	sha256sum out.gz >actual.sum &&
	test_cmp expect.sum actual.sum
}

# The engine's bytes for these inputs, recorded when they were also
# gzip 1.12's.  They must never change: a difference here is a
# difference from gzip, or a garchive that is not byte-stable.
while read sum level file; do
	test_expect_success "golden: $file at -$level" '
		check_sum $sum -$level --threads=1 <corpus/$file &&
		check_sum $sum -$level --threads=3 --chunk-size=65536 \
			<corpus/$file
	'
done <<\EOF
c67083aaa99b9efe381fc0dcaab6464bd845574f747e2401a370d62287b8a7d1 1 text-400k
e2392b2a84d16f1a2a7120ebc9e1095ec2a693dbed2155a2b5d91a8fd915811d 6 text-400k
9a5df283d9f95b117356c092f8f4a53df19ee41cb3acf214b07f8e9894311abd 9 text-400k
ec89a5d02987c53c3680cffa268d290e89c29582780c0821a504917245e25c95 6 mixed-3m
186e230fc20929b74b3a25481e29b2000286ab914a1b9e3ad84c00d9b84094b1 1 zeros-3m
0a848307b5e0f3f9234b74e0b388613f16751e5baf63a0cd056105107f1b56a0 6 noise-300k
31d6948b986a8186f54e2708874a17a7470b323be286d8a2e6492041a17c180e 9 edge-slide
59869db34853933b239f1e2219cf7d431da006aa919635478511fabbfc8849d2 6 empty
1eddaa4241b71ff8b9f20911d24e3d3ed2742e05ae08e885d8df6f803be95f5e 4 runs-across-chunks
EOF

test_expect_success 'unknown options: gzip'"'"'s message, status 1' '
	test_expect_code 1 garchive gzip -x <corpus/one >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	garchive gzip: invalid option -- '"'"'x'"'"'
	Try '"'"'garchive gzip --help'"'"' for more information.
	EOF
	test_cmp expect err &&
	test_expect_code 1 garchive gzip --bogus <corpus/one >out 2>err &&
	test_must_be_empty out &&
	grep "^garchive gzip: unrecognized option '"'"'--bogus'"'"'" err &&
	test_expect_code 1 garchive gzip --threads=many <corpus/one >out 2>err &&
	test_must_be_empty out &&
	grep "^garchive gzip: invalid number of threads: '"'"'many'"'"'" err
'

test_expect_success 'a missing or unreadable FILE: gzip'"'"'s message, status 1' '
	test_expect_code 1 garchive gzip nosuchfile >out 2>err &&
	test_must_be_empty out &&
	echo "garchive gzip: nosuchfile: No such file or directory" >expect &&
	test_cmp expect err &&
	mkdir dir &&
	test_expect_code 2 garchive gzip dir >out 2>err &&
	test_must_be_empty out &&
	echo "garchive gzip: dir is a directory -- ignored" >expect &&
	test_cmp expect err
'

# as_gzip NAME ARGS...: `gzip -cn ARGS` and `garchive gzip ARGS`, into
# NAME.expect.* and NAME.actual.*: output, stderr (gzip's program name
# made garchive gzip's) and status.
as_gzip () {
	name=$1 &&
	shift &&
	{ gzip -cn "$@" >$name.expect.out 2>$name.expect.raw; echo $? >$name.expect.status; } &&
	sed "s/^gzip:/garchive gzip:/" $name.expect.raw >$name.expect.err &&
	{ garchive gzip "$@" >$name.actual.out 2>$name.actual.err; echo $? >$name.actual.status; }
}

# same_as_gzip_run NAME: both runs of as_gzip NAME wrote the same.
same_as_gzip_run () {
	test_cmp $1.expect.err $1.actual.err &&
	test_cmp $1.expect.status $1.actual.status &&
	test_cmp $1.expect.out $1.actual.out
}

test_expect_success GZIP 'operands it cannot read are skipped with gzip'"'"'s words and status' '
	as_gzip missing corpus/one nosuchfile corpus/two &&
	same_as_gzip_run missing &&
	echo 1 >expect &&
	test_cmp expect missing.actual.status &&
	as_gzip dir corpus/one dir corpus/two &&
	same_as_gzip_run dir &&
	echo 2 >expect &&
	test_cmp expect dir.actual.status &&
	as_gzip both nosuchfile dir corpus/one &&
	same_as_gzip_run both &&
	as_gzip quiet -q dir corpus/one &&
	same_as_gzip_run quiet &&
	test_must_be_empty quiet.actual.err &&
	as_gzip quiet2 -q dir nosuchfile corpus/one &&
	same_as_gzip_run quiet2
'

# closed_or_full NAME REDIRECTION ARGS...: as as_gzip, with stdout closed
# (REDIRECTION "closed") or /dev/full ("full"), stdin corpus/text-400k.
closed_or_full () {
	name=$1 how=$2 &&
	shift 2 &&
	for prog in expect actual
	do
		if test $prog = expect
		then
			set -- gzip -cn "$@"
		else
			shift 2 &&
			set -- garchive gzip "$@"
		fi &&
		case $how in
		closed) "$@" <corpus/text-400k >&- 2>$name.$prog.raw ;;
		full) "$@" <corpus/text-400k >/dev/full 2>$name.$prog.raw ;;
		esac
		echo $? >$name.$prog.status &&
		sed "s/^gzip:/garchive gzip:/" $name.$prog.raw >$name.$prog.err || return 1
	done
}

test_expect_success GZIP 'a closed or full stdout: gzip'"'"'s message and status' '
	test -w /dev/full &&
	for case in "closed corpus/one" "closed -" "closed nosuchfile -" \
		"full corpus/one" "full -"
	do
		set -- $case &&
		name=$(echo "$case" | tr -c "a-z\n" "-") &&
		closed_or_full $name "$@" &&
		test_cmp $name.expect.err $name.actual.err &&
		test_cmp $name.expect.status $name.actual.status &&
		echo 1 >expect &&
		test_cmp expect $name.actual.status || return 1
	done
'

# tty NAME INPUT COMMAND...: COMMAND with stdout on a terminal, into
# NAME.out, NAME.err (gzip's program name made garchive gzip's) and
# NAME.status.
tty () {
	tty_name=$1 tty_input=$2 &&
	shift 2 &&
	{ python3 "$TEST_DIRECTORY/lib-pty.py" "$tty_input" "$@"; echo $? >$tty_name.status; } &&
	mv tty.out $tty_name.out &&
	sed "s/^gzip:/garchive gzip:/; s/type: gzip -h/type: garchive gzip -h/" tty.err >$tty_name.err
}

test_expect_success GZIP 'a terminal gets a file'"'"'s output, never stdin'"'"'s, as with gzip' '
	for case in "stdin corpus/one" "file /dev/null corpus/one" \
		"both corpus/two corpus/one -" "forced corpus/one -f"
	do
		set -- $case &&
		name=$1 input=$2 &&
		shift 2 &&
		tty $name.expect $input gzip -cn "$@" &&
		tty $name.actual $input garchive gzip "$@" &&
		test_cmp $name.expect.err $name.actual.err &&
		test_cmp $name.expect.status $name.actual.status &&
		test_cmp $name.expect.out $name.actual.out || return 1
	done &&
	echo 1 >expect &&
	test_cmp expect stdin.actual.status &&
	test_must_be_empty stdin.actual.out &&
	grep "^garchive gzip: compressed data not written to a terminal" stdin.actual.err &&
	echo 0 >expect &&
	test_cmp expect file.actual.status &&
	test -s file.actual.out
'

test_expect_success 'a reader that goes away: death by SIGPIPE, as gzip' '
	{ garchive gzip --threads=2 <corpus/mixed-3m; echo $? >status; } |
		head -c 10 >/dev/null &&
	echo 141 >expect &&
	test_cmp expect status
'

test_expect_success '--help prints the usage, status 0' '
	garchive gzip --help >out &&
	grep "^usage: garchive gzip" out
'

test_expect_success 'setup: a repository of a few MiB' '
	make_edge_repo repo
'

test_expect_success GZIP 'tar.<format>.command naming garchive gzip runs in process' '
	cd repo &&
	git -c tar.tgz.command="gzip -cn" archive --format=tgz HEAD >expect &&
	garchive -c tar.tgz.command="garchive gzip -cn" --format=tgz HEAD \
		>actual 2>err &&
	test_must_be_empty err &&
	test_cmp expect actual &&
	git -c tar.tgz.command="gzip -cn" archive --format=tgz -9 HEAD >expect &&
	garchive -c tar.tgz.command="garchive gzip -cn" --format=tgz -9 HEAD \
		>actual &&
	test_cmp expect actual &&
	# No such program: only the engine in process can have written it.
	garchive -c tar.tgz.command="/nonexistent/garchive gzip -cn" \
		--format=tgz -9 HEAD >actual &&
	test_cmp expect actual &&
	garchive -c tar.tgz.command="/nonexistent/garchive gzip -c -n --threads=1" \
		--format=tgz -9 HEAD >actual &&
	test_cmp expect actual
'

test_expect_success GZIP 'as git'"'"'s tar.tgz.command, garchive gzip writes gzip -cn'"'"'s bytes' '
	cd repo &&
	git -c tar.tgz.command="gzip -cn" archive --format=tgz HEAD >expect &&
	git -c tar.tgz.command="garchive gzip -cn" archive --format=tgz HEAD \
		>actual &&
	test_cmp expect actual
'

test_expect_success 'a level garchive gzip refuses fails as the command would' '
	cd repo &&
	test_must_fail garchive -c tar.tgz.command="garchive gzip -cn" \
		--format=tgz -0 HEAD >out 2>err &&
	test_must_be_empty out &&
	grep "^fatal: '"'"'garchive gzip -cn -0'"'"' filter reported error" err
'

# git would run the line with " -5" through the shell: the child's own
# words, then git's (not git itself: its write to a child that is gone
# may or may not kill it with SIGPIPE).
test_expect_success 'the level appended to a garchive gzip line is read as the child reads it' '
	cd repo &&
	test_expect_code 1 garchive gzip --threads -5 </dev/null >out 2>child &&
	test_must_be_empty out &&
	{
		cat child &&
		echo "fatal: '"'"'garchive gzip --threads -5'"'"' filter reported error"
	} >expect &&
	test_expect_code 128 garchive -c tar.tgz.command="garchive gzip --threads" \
		--format=tgz -5 HEAD >out 2>actual &&
	test_must_be_empty out &&
	grep "^garchive gzip: invalid number of threads: '"'"'-5'"'"'" actual &&
	test_cmp expect actual
'

test_expect_success 'a garchive gzip line with shell syntax or a file is a command' '
	cd repo &&
	garchive -c tar.tgz.command="garchive gzip -cn | cat" --format=tgz HEAD \
		>actual &&
	garchive -c tar.tgz.command="garchive gzip -cn" --format=tgz HEAD \
		>expect &&
	test_cmp expect actual
'

test_expect_success GZIP 'garchive.gzip = builtin: tgz and tar.gz by the engine' '
	cd repo &&
	git -c tar.tgz.command="gzip -cn" archive --format=tgz HEAD >expect &&
	mkdir ../nogzip &&
	ln -s "$(command -v git)" ../nogzip/git &&
	PATH="$TRASH_DIRECTORY/nogzip" "$GARCHIVE_BUILD_DIR/garchive" \
		-c garchive.gzip=builtin --format=tgz HEAD >actual 2>err &&
	test_must_be_empty err &&
	test_cmp expect actual &&
	git -c tar.tar.gz.command="gzip -cn" archive --format=tar.gz -1 HEAD \
		>expect &&
	garchive -c garchive.gzip=builtin --format=tar.gz -1 HEAD >actual &&
	test_cmp expect actual &&
	garchive -c garchive.gzip=builtin --threads=1 -o out.tgz HEAD &&
	git -c tar.tgz.command="gzip -cn" archive -o expect.tgz HEAD &&
	test_cmp expect.tgz out.tgz
'

test_expect_success 'garchive.gzip = gzip is the default; other values fail' '
	cd repo &&
	garchive --format=tgz HEAD >expect &&
	garchive -c garchive.gzip=gzip --format=tgz HEAD >actual &&
	test_cmp expect actual &&
	test_must_fail garchive -c garchive.gzip=pigz --format=tgz HEAD \
		>out 2>err &&
	test_must_be_empty out &&
	echo "fatal: bad config value '"'"'pigz'"'"' for '"'"'garchive.gzip'"'"' (builtin or gzip)" >expect &&
	test_cmp expect err
'

test_done

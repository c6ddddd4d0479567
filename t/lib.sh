# t/lib.sh: garchive's shell test library, in the manner of git's test-lib.
#
# A test script sets test_description, sources this file, runs
#
#	test_expect_success 'what it checks' '
#		command &&
#		other command
#	'
#
# and ends with test_done.  Output is TAP.  Every script runs sealed off
# from the host: its own trash directory (also $HOME), TZ=UTC, LC_ALL=C,
# no system git config or attributes, fixed author and committer dates.
#
# Options (as git's test-lib takes them) and environment:
#   -v, --verbose   GARCHIVE_TEST_VERBOSE=1   show the output of every body
#   -x              GARCHIVE_TEST_TRACE=1     trace the commands of the bodies
#   -d, --debug     GARCHIVE_TEST_KEEP=1      keep the trash directory

# Where the built binary and the sources are.
TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
GARCHIVE_SRC=$(cd "$TEST_DIRECTORY/.." && pwd)
GARCHIVE_BUILD_DIR=${GARCHIVE_BUILD_DIR:-$GARCHIVE_SRC}
TEST_NAME=$(basename "$0" .sh)
TRASH_DIRECTORY="${GARCHIVE_TRASH_ROOT:-$TEST_DIRECTORY}/trash-$TEST_NAME"

# Relative to where the script was started, before it moves to its
# trash directory.
case "${GARCHIVE_TEST_TIMES-}" in
""|/*) ;;
*) GARCHIVE_TEST_TIMES=$(pwd)/$GARCHIVE_TEST_TIMES ;;
esac

for test_opt_
do
	case "$test_opt_" in
	-v|--verbose) GARCHIVE_TEST_VERBOSE=1 ;;
	-x) GARCHIVE_TEST_TRACE=1 ;;
	-d|--debug) GARCHIVE_TEST_KEEP=1 ;;
	*) echo "$0: unknown option '$test_opt_'" >&2; exit 1 ;;
	esac
done

if ! test -x "$GARCHIVE_BUILD_DIR/garchive"; then
	echo "1..0 # SKIP garchive is not built (run make)"
	exit 0
fi

# Seal the environment.
for var in $(env | sed -n 's/^\(GIT_[A-Z_0-9]*\)=.*/\1/p'); do
	case "$var" in
	GIT_EXEC_PATH) ;;
	*) unset "$var" ;;
	esac
done
unset XDG_CONFIG_HOME XDG_CACHE_HOME EMAIL SOURCE_DATE_EPOCH
# garchive follows the git on PATH where git changed a command line
# (t0100); a test that wants another says so.
unset GARCHIVE_GIT_VERSION
# GARCHIVE_TEST_OBJECT_FORMAT=sha256: every repository git makes in a
# test names its objects by SHA-256 (git's GIT_DEFAULT_HASH).
# test_hexsz is the length of an object id in hex; the prerequisite
# SHA1 or SHA256 names the mode, for a test bound to one of them.
case "${GARCHIVE_TEST_OBJECT_FORMAT:-sha1}" in
sha1) test_object_format=sha1 test_hexsz_=40 ;;
sha256) GIT_DEFAULT_HASH=sha256 && export GIT_DEFAULT_HASH &&
	test_object_format=sha256 test_hexsz_=64 ;;
*) echo "Bail out! GARCHIVE_TEST_OBJECT_FORMAT=$GARCHIVE_TEST_OBJECT_FORMAT: sha1 or sha256" && exit 1 ;;
esac
LC_ALL=C
LANG=C
TZ=UTC
GIT_CONFIG_NOSYSTEM=1
GIT_ATTR_NOSYSTEM=1
GIT_AUTHOR_NAME='A U Thor'
GIT_AUTHOR_EMAIL='author@example.com'
GIT_COMMITTER_NAME='C O Mitter'
GIT_COMMITTER_EMAIL='committer@example.com'
GIT_AUTHOR_DATE='1112911993 -0700'
GIT_COMMITTER_DATE='1112911993 -0700'
GIT_MERGE_AUTOEDIT=no
export LC_ALL LANG TZ GIT_CONFIG_NOSYSTEM GIT_ATTR_NOSYSTEM \
	GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
	GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE \
	GIT_MERGE_AUTOEDIT
umask 022

PATH="$GARCHIVE_BUILD_DIR:$PATH"
export PATH

# The wall clock both tools read in a comparison (t/clock.c): archives of
# a tree carry "now", and on a busy machine git's run and garchive's may
# land in different seconds.  `make test` builds the library; a script
# run on its own builds it when missing.
TEST_CLOCK_LIB=$TEST_DIRECTORY/clock.so
if ! test -f "$TEST_CLOCK_LIB" ||
   test "$TEST_DIRECTORY/clock.c" -nt "$TEST_CLOCK_LIB"
then
	cc -shared -fPIC -O2 -o "$TEST_CLOCK_LIB.$$" \
		"$TEST_DIRECTORY/clock.c" -ldl 2>/dev/null &&
	mv -f "$TEST_CLOCK_LIB.$$" "$TEST_CLOCK_LIB"
	rm -f "$TEST_CLOCK_LIB.$$"
fi
test -f "$TEST_CLOCK_LIB" || TEST_CLOCK_LIB=

rm -rf "$TRASH_DIRECTORY" || exit 1
mkdir -p "$TRASH_DIRECTORY" || exit 1
HOME="$TRASH_DIRECTORY"
export HOME
cat >"$HOME/.gitconfig" <<\EOF
[init]
	defaultBranch = main
[safe]
	directory = *
EOF
# GARCHIVE_TEST_THREADS=N runs the whole suite with garchive.threads=N
# as the default (make test GARCHIVE_TEST_THREADS=8).
if test -n "${GARCHIVE_TEST_THREADS-}"; then
	printf '[garchive]\n\tthreads = %s\n' "$GARCHIVE_TEST_THREADS" \
		>>"$HOME/.gitconfig"
fi
cd "$TRASH_DIRECTORY" || exit 1

# python3 may be a version manager's shim (pyenv's is a shell script
# costing half a CPU-second a start, and the fixtures start python
# hundreds of times): ask it once for the real interpreter and put that
# first in PATH as python3.  A program in PATH, not a shell function, so
# that `python3 ... &` leaves the interpreter's own pid in $!.
PYTHON3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if test -n "$PYTHON3" && test "$PYTHON3" != "$(command -v python3)"; then
	mkdir "$TRASH_DIRECTORY/.python" &&
	ln -s "$PYTHON3" "$TRASH_DIRECTORY/.python/python3" &&
	PATH="$TRASH_DIRECTORY/.python:$PATH"
fi

test_count=0
test_failures=0
test_fixed=0
test_broken=0
test_log="$TRASH_DIRECTORY/.test-log"
test_prereqs=" "
test_missing_prereqs=" "

say_diag () {
	sed -e 's/^/# /' "$@"
}

# test_hexsz: the length in hex of an object id in this mode.
test_hexsz () {
	echo "$test_hexsz_"
}

# test_oid_hex DIGIT: a fake object id of the mode's length, DIGIT
# repeated (a gitlink or index entry that names no object).
test_oid_hex () {
	printf "%${test_hexsz_}s\n" "" | tr ' ' "$1"
}

# test_set_prereq NAME: mark a prerequisite as satisfied.
test_set_prereq () {
	test_prereqs="$test_prereqs$1 "
}

# test_lazy_prereq NAME 'script': the prerequisite holds if the script
# succeeds; it is evaluated the first time a test asks for it.
test_lazy_prereq () {
	eval "test_lazy_prereq_script_$1=\$2"
}

test_have_prereq () {
	for prereq in $(echo "$1" | tr ',' ' '); do
		negate=
		case "$prereq" in
		!*) negate=t; prereq=${prereq#!} ;;
		esac
		case "$test_prereqs" in
		*" $prereq "*) have=t ;;
		*)
			case "$test_missing_prereqs" in
			*" $prereq "*) have= ;;
			*)
				have=
				eval "script=\${test_lazy_prereq_script_$prereq-}"
				if test -n "$script" &&
				   (mkdir -p "$TRASH_DIRECTORY/.prereq-$prereq" &&
				    cd "$TRASH_DIRECTORY/.prereq-$prereq" &&
				    eval "$script") >/dev/null 2>&1
				then
					have=t
					test_set_prereq "$prereq"
				else
					test_missing_prereqs="$test_missing_prereqs$prereq "
				fi
				;;
			esac
			;;
		esac
		if test -n "$negate"; then
			test -z "$have" || return 1
		else
			test -n "$have" || return 1
		fi
	done
	return 0
}

# test_when_finished 'command': run it after the current test, pass or fail.
test_when_finished () {
	test_cleanup_cmds_="$1 && $test_cleanup_cmds_"
}

# A function of its own, so that `return 1` in a body (the way a loop
# fails a test) ends the body and not test_run_body_, whose cleanup and
# return to the trash directory must still run.
test_eval_body_ () {
	eval "$1"
}

# With -x the body runs traced; tracing stops whatever way it ends.
test_eval_ () {
	if test -n "$GARCHIVE_TEST_TRACE"; then
		set -x
		test_eval_body_ "$1"
		{ test_eval_status_=$?; set +x; } 2>/dev/null
		return $test_eval_status_
	fi
	test_eval_body_ "$1"
}

test_run_body_ () {
	test_times_start_
	# The body runs in the current shell (so variables carry over)
	# with its output in the log; `set -e` is not used, the body is
	# expected to chain with &&.
	if test -n "$GARCHIVE_TEST_VERBOSE"; then
		test_eval_ "$1"
	else
		test_eval_ "$1" >"$test_log" 2>&1
	fi
	test_body_status=$?
	if test -n "$test_cleanup_cmds_"; then
		eval "$test_cleanup_cmds_ :" >>"$test_log" 2>&1 ||
			test_body_status=1
		test_cleanup_cmds_=
	fi
	cd "$TRASH_DIRECTORY" || exit 1
	test_times_record_ "$test_count" "$2"
	return $test_body_status
}

# GARCHIVE_TEST_TIMES=FILE appends to FILE one line per test, tab
# separated: script, test number, CPU seconds (user + sys) of the
# processes the test ran, CPU seconds of the script's own shell, title;
# and at the end a line with "all" as the number for the whole script,
# set-up outside the tests included.  CPU time, not wall time, so that
# the figures mean something on a loaded machine.  `times` runs in this
# shell (never in $(...), whose fork would count its own child), into
# a file; the awk that subtracts runs after the second snapshot and
# before the next first one, so it is counted in no test.
test_times_start_ () {
	test -n "${GARCHIVE_TEST_TIMES-}" || return 0
	times >"$TRASH_DIRECTORY/.times-start"
}

test_times_record_ () {
	test -n "${GARCHIVE_TEST_TIMES-}" || return 0
	times >"$TRASH_DIRECTORY/.times-end"
	test_times_write_ "$1" "$2" "$TRASH_DIRECTORY/.times-start" \
		"$TRASH_DIRECTORY/.times-end"
}

# test_times_write_ NUMBER TITLE START END: one line for the difference
# between two outputs of `times` (START /dev/null: since the script
# began).
test_times_write_ () {
	awk -v script="$TEST_NAME" -v number="$1" -v title="$2" '
		function secs(v) {
			sub(/s$/, "", v)
			split(v, ms, "m")
			return ms[1] * 60 + ms[2]
		}
		FNR == 1 { shell[FILENAME] = secs($1) + secs($2) }
		FNR == 2 { kids[FILENAME] = secs($1) + secs($2) }
		END {
			start = ARGV[1]
			end = ARGV[2]
			printf "%s\t%s\t%.2f\t%.2f\t%s\n", script, number,
				kids[end] - kids[start], shell[end] - shell[start],
				title
		}
	' "$3" "$4" >>"$GARCHIVE_TEST_TIMES"
}

# A failed test's diagnostics: the end of its log (what its commands
# said: test_cmp's diff, the exit statuses same_code_as_git_ compares,
# test_must_fail's complaint), then its body.  On stderr, which prove
# shows, where it hides TAP comments unless run with -v.
test_report_failure_ () {
	{
		echo "failed test $test_count in $TEST_NAME: $2"
		if test -z "$GARCHIVE_TEST_VERBOSE" && test -s "$test_log"
		then
			echo "the end of its output:"
			tail -n 40 "$test_log"
		fi
		echo "its body:"
		printf '%s\n' "$1"
	} | say_diag >&2
}

# test_expect_success [PREREQ] 'title' 'body'
test_expect_success () {
	test_prereq_=
	if test $# = 3; then
		test_prereq_=$1
		shift
	fi
	test_count=$((test_count + 1))
	if test -n "$test_prereq_" && ! test_have_prereq "$test_prereq_"; then
		echo "ok $test_count # skip $1 (missing $test_prereq_)"
		return 0
	fi
	if test_run_body_ "$2" "$1"; then
		echo "ok $test_count - $1"
	else
		test_failures=$((test_failures + 1))
		echo "not ok $test_count - $1"
		test_report_failure_ "$2" "$1"
	fi
}

# test_expect_failure: a known breakage, reported as TODO.
test_expect_failure () {
	test_prereq_=
	if test $# = 3; then
		test_prereq_=$1
		shift
	fi
	test_count=$((test_count + 1))
	if test -n "$test_prereq_" && ! test_have_prereq "$test_prereq_"; then
		echo "ok $test_count # skip $1 (missing $test_prereq_)"
		return 0
	fi
	if test_run_body_ "$2" "$1"; then
		test_fixed=$((test_fixed + 1))
		echo "ok $test_count - $1 # TODO known breakage vanished"
	else
		test_broken=$((test_broken + 1))
		echo "not ok $test_count - $1 # TODO known breakage"
	fi
}

test_skip_all () {
	echo "1..0 # SKIP $1"
	test_cleanup_
	exit 0
}

test_cleanup_ () {
	cd "$TEST_DIRECTORY" || return
	if test -z "$GARCHIVE_TEST_KEEP" && test "$test_failures" = 0; then
		chmod -R u+rwx "$TRASH_DIRECTORY" 2>/dev/null
		rm -rf "$TRASH_DIRECTORY"
	fi
}

test_done () {
	echo "1..$test_count"
	ref_record_write_
	if test -n "${GARCHIVE_TEST_TIMES-}"; then
		times >"$TRASH_DIRECTORY/.times-end"
		test_times_write_ all "(the whole script)" /dev/null \
			"$TRASH_DIRECTORY/.times-end"
	fi
	test_cleanup_
	test "$test_failures" = 0
	exit $?
}

# test_must_fail CMD...: CMD must exit non-zero, but not by a crash
# (signal) nor with 127 (not found).  test_must_fail ok=sigpipe CMD
# also accepts death by SIGPIPE.
test_must_fail () {
	ok_sigpipe=
	case "$1" in
	ok=sigpipe) ok_sigpipe=t; shift ;;
	esac
	"$@"
	exit_code=$?
	if test $exit_code = 0; then
		echo >&2 "test_must_fail: command succeeded: $*"
		return 1
	elif test $exit_code = 141 && test -n "$ok_sigpipe"; then
		return 0
	elif test $exit_code -gt 129 && test $exit_code -le 192; then
		echo >&2 "test_must_fail: died by signal $((exit_code - 128)): $*"
		return 1
	elif test $exit_code = 127; then
		echo >&2 "test_must_fail: command not found: $*"
		return 1
	fi
	return 0
}

# test_expect_code N CMD...: CMD must exit with status N.
test_expect_code () {
	want=$1
	shift
	"$@"
	exit_code=$?
	if test $exit_code = "$want"; then
		return 0
	fi
	echo >&2 "test_expect_code: command exited with $exit_code, we wanted $want: $*"
	return 1
}

# test_cmp EXPECT ACTUAL: files must be identical; shows a diff if not.
test_cmp () {
	if cmp -s "$1" "$2"; then
		return 0
	fi
	echo >&2 "test_cmp: $1 and $2 differ"
	diff -u "$1" "$2" | head -n 40 >&2
	cmp "$1" "$2" >&2
	return 1
}

# test_must_be_empty FILE
test_must_be_empty () {
	if test -s "$1"; then
		echo >&2 "'$1' is not empty:"
		head -n 20 "$1" >&2
		return 1
	fi
}

test_path_is_missing () {
	if test -e "$1" || test -L "$1"; then
		echo >&2 "path exists: $1"
		ls -la "$1" >&2
		return 1
	fi
}

test_path_is_file () {
	test -f "$1" || { echo >&2 "not a file: $1"; return 1; }
}

# test_tick: move the author and committer dates one minute on.
test_tick () {
	if test -z "${test_tick_time+set}"; then
		test_tick_time=1112911993
	else
		test_tick_time=$((test_tick_time + 60))
	fi
	GIT_COMMITTER_DATE="$test_tick_time -0700"
	GIT_AUTHOR_DATE="$test_tick_time -0700"
	export GIT_COMMITTER_DATE GIT_AUTHOR_DATE
}

# test_commit MSG [FILE [CONTENT]]: commit a file, tag it MSG.
test_commit () {
	file=${2:-$1.t}
	mkdir -p "$(dirname "$file")" &&
	printf '%s\n' "${3:-$1}" >"$file" &&
	git add -- "$file" &&
	test_tick &&
	git commit -q -m "$1" &&
	git tag "$1"
}

# diagnostics FILE: the fatal/error/warning lines of a stderr file.
diagnostics () {
	grep -E '^(fatal|error|warning):' "$1" || :
}

# frozen CMD...: run CMD (a command or a shell function) with the wall
# clock held at $test_clock, the second test_clock_start set.  Without
# the library (no C compiler), CMD runs on the real clock.
frozen () {
	if test -n "$TEST_CLOCK_LIB"
	then
		LD_PRELOAD="$TEST_CLOCK_LIB${LD_PRELOAD:+ $LD_PRELOAD}" \
		GARCHIVE_TEST_CLOCK=$test_clock "$@"
	else
		"$@"
	fi
}

# test_clock_start: hold the clock of the next frozen runs at now.
test_clock_start () {
	test_clock=$(date +%s)
}

# same_code_as_git_ [WHAT]: after a run of git and of garchive that set
# expect_code and actual_code, fail if they differ, showing garchive's
# stderr (actual.err).  WHAT, when given, ends the message in ().
same_code_as_git_ () {
	test "$expect_code" = "$actual_code" && return 0
	echo >&2 "exit status: git $expect_code, garchive $actual_code${1+ ($1)}"
	cat actual.err >&2
	return 1
}

# same_failure_as_git ARGS...: run `git archive ARGS` and `garchive ARGS`
# the same way and require the same exit status and diagnostic lines,
# but not the same stdout: for runs that die mid-archive, where git has
# written what it wrote before dying (whole zip entries, whole
# 10240-byte tar records) while garchive drops what it still holds.
# $ref_git_opts (words, e.g. -c tar.tgz.command=...) go to the reference
# git only.
same_failure_as_git () {
	test_clock_start
	# shellcheck disable=SC2086
	ref_git_ $ref_git_opts archive "$@" >expect.out 2>expect.err
	expect_code=$?
	frozen garchive "$@" >actual.out 2>actual.err
	actual_code=$?
	diagnostics expect.err >expect.diag
	diagnostics actual.err >actual.diag
	same_code_as_git_ "$*" &&
	test_cmp expect.diag actual.diag
}

# as_git_words FILE: garchive's output as git would word it: its usage
# names "garchive" where git's names "git archive", and adds garchive's
# own options and "hint:" lines, which git has not.
as_git_words () {
	awk '
		/^garchive.s own options/ { own = 1; next }
		own && /^   or: garchive get-tar-commit-id/ { own = 2; next }
		own == 2 && /^$/ { own = 0; next }
		own { next }
		/^hint: / { next }
		{ gsub(/garchive/, "git archive"); print }
	' "$1"
}

# test_same_as_git ARGS...: same_failure_as_git, and the same stdout
# bytes too.  Both run in the same frozen second, so archives of a tree
# (which carry "now") compare too.
test_same_as_git () {
	same_failure_as_git "$@" &&
	test_cmp expect.out actual.out
}

# digest_ CMD...: CMD with its stdout replaced by its SHA-1 (a line of
# 40 hex digits), its exit status kept.
digest_ () {
	"$@" >digest.out
	digest_code_=$?
	sha1sum <digest.out | cut -c1-40
	rm -f digest.out
	return $digest_code_
}

# digest_same_as_git ARGS...: test_same_as_git for archives over 64 KiB
# that a later git cannot stand in for (it makes other bytes, or fails):
# a record of git 2.39 keeps the SHA-1 of such an output, not its bytes,
# so both stdouts are compared by their SHA-1 (expect.out and
# actual.out hold them).
digest_same_as_git () {
	test_clock_start
	digest_wrap_=$ref_git_wrap
	ref_git_wrap="digest_ $ref_git_wrap"
	# shellcheck disable=SC2086
	ref_git_ $ref_git_opts archive "$@" >expect.out 2>expect.err
	expect_code=$?
	ref_git_wrap=$digest_wrap_
	frozen digest_ garchive "$@" >actual.out 2>actual.err
	actual_code=$?
	diagnostics expect.err >expect.diag
	diagnostics actual.err >actual.diag
	same_code_as_git_ "$*" &&
	test_cmp expect.diag actual.diag &&
	test_cmp expect.out actual.out
}

# test_stdin_same_as_git COMMAND FILE [ARGS...]: `git COMMAND ARGS` and
# `garchive COMMAND ARGS`, each reading FILE, exit alike and write the
# same bytes on stdout and on stderr.
test_stdin_same_as_git () {
	cmd=$1
	file=$2
	shift 2
	test_clock_start
	ref_git_ "$cmd" "$@" <"$file" >expect.out 2>expect.err
	expect_code=$?
	frozen garchive "$cmd" "$@" <"$file" >actual.out 2>actual.err
	actual_code=$?
	same_code_as_git_ &&
	test_cmp expect.err actual.err &&
	test_cmp expect.out actual.out
}

# test_remote_same_as_git CMD ARGS...: `git archive ARGS` and `CMD ARGS`
# (a command or a shell function that runs garchive at one end of a
# --remote connection) exit alike and write the same bytes on stdout
# and on stderr.  Lines from the two processes of one run may
# interleave, so stderr is compared sorted.  A server that hangs up at
# once may kill its client with SIGPIPE while it is still writing its
# request, depending on timing: then both run again.
test_remote_same_as_git () {
	remote_cmd=$1
	shift
	try=0
	while :
	do
		test_clock_start
		ref_git_ archive "$@" >expect.out 2>expect.err
		expect_code=$?
		frozen "$remote_cmd" "$@" >actual.out 2>actual.err
		actual_code=$?
		test $expect_code = $actual_code && break
		test $expect_code = 141 || test $actual_code = 141 || break
		try=$((try + 1))
		test $try -lt 10 || break
		ref_again_
	done
	same_code_as_git_ &&
	sort expect.err >expect.sorted &&
	sort actual.err >actual.sorted &&
	test_cmp expect.sorted actual.sorted &&
	test_cmp expect.out actual.out
}

# Pick up a missing-tool prerequisite quickly.
# mktree ENTRY...: write a raw tree, which git itself may refuse to
# make, with `hash-object --literally`, and print its id.  ENTRY is
# "mode name oid"; the name may hold \NNN octal escapes, or be "@LEN"
# for LEN bytes of "x".
mktree () {
	python3 - "$@" <<-\EOF
	import sys, subprocess, binascii
	data = b""
	for arg in sys.argv[1:]:
	    mode, rest = arg.split(" ", 1)
	    name, oid = rest.rsplit(" ", 1)
	    if name.startswith("@"):
	        name = b"x" * int(name[1:])
	    else:
	        name = name.encode().decode("unicode_escape").encode("latin-1")
	    data += mode.encode() + b" " + name + b"\0" + binascii.unhexlify(oid)
	p = subprocess.run(["git", "hash-object", "--literally", "-w",
	                    "-t", "tree", "--stdin"], input=data,
	                   capture_output=True, check=True)
	print(p.stdout.decode().strip())
	EOF
}

# nest_tree N TREE: the id of the tree that N runs of
#	TREE=$(mktree "040000 d $TREE")
# would leave, written as loose objects by one python instead of N,
# named by the hash whose ids are as long as TREE's.
nest_tree () {
	python3 - "$@" <<-\EOF
	import hashlib, os, subprocess, sys, zlib
	objects = subprocess.run(["git", "rev-parse", "--git-path", "objects"],
	                         capture_output=True, check=True,
	                         text=True).stdout.strip()
	oid = sys.argv[2]
	algo = "sha256" if len(oid) == 64 else "sha1"
	for _ in range(int(sys.argv[1])):
	    data = b"040000 d\0" + bytes.fromhex(oid)
	    obj = b"tree %d\0" % len(data) + data
	    oid = hashlib.new(algo, obj).hexdigest()
	    path = os.path.join(objects, oid[:2], oid[2:])
	    os.makedirs(os.path.dirname(path), exist_ok=True)
	    if not os.path.exists(path):
	        with open(path, "wb") as f:
	            f.write(zlib.compress(obj))
	print(oid)
	EOF
}

# commit_of TREE: a commit of TREE, for trees made by mktree.
commit_of () {
	echo raw | git commit-tree "$1"
}

# The reference: garchive reproduces git 2.39 (Debian 12's), and the
# comparisons expect its messages and decisions; a later git (Debian 13
# has 2.47) words and decides some of them otherwise.  GIT_2_39 marks
# the tests, and test_requires_git_2_39 the scripts, that hold only for
# the reference; GARCHIVE_TEST_ANY_GIT=1 runs them with any git.  Most
# scripts instead compare with a record of git 2.39 where git is another
# (test_uses_git_2_39_record, below).
GIT_VERSION=$(git --version 2>/dev/null | sed -n 's/^git version //p')
# The object format of the test repositories (see above).
case "$test_object_format" in
sha1) test_set_prereq SHA1 ;;
sha256) test_set_prereq SHA256 ;;
esac
case "$GIT_VERSION" in
2.39.*) test_set_prereq GIT_2_39 ;;
*) test -z "$GARCHIVE_TEST_ANY_GIT" || test_set_prereq GIT_2_39 ;;
esac

test_requires_git_2_39 () {
	test_have_prereq GIT_2_39 ||
	test_skip_all "compares with git 2.39 (the reference), not git ${GIT_VERSION:-(none)}; GARCHIVE_TEST_ANY_GIT=1 runs it anyway"
}

# Recorded runs of git 2.39.  A script that calls test_uses_git_2_39_record
# compares, through ref_git_ (same_failure_as_git, test_same_as_git,
# test_stdin_same_as_git, test_remote_same_as_git), with the live git
# where git is 2.39, and elsewhere with what git 2.39 did on the same
# input, replayed from t/ref-2.39/SCRIPT.tar.gz (garchive then follows
# git 2.39, GARCHIVE_GIT_VERSION=2.39.5): exit status, stdout
# bytes, stderr, and the second its clock was held at (archives of a
# tree carry it).  The inputs are deterministic (test_tick, seeded
# random bytes), so the same repository is built with any git.  Each run
# is the Nth reference run of test T, checked against its arguments, so
# a script edited without recording again fails where it drifted.
# GARCHIVE_TEST_RECORD_2_39=1 (with git 2.39) writes the record again:
# `make record-2.39`.  The trash directory's path is kept as @TRASH@.
# GARCHIVE_TEST_ANY_GIT=1 compares with the live git, whatever it is.
# Outputs over 64 KiB are recorded by their SHA-1 only: the replay runs
# this git on the recorded clock and takes its bytes when they match.
ref_dir_=
ref_mode_=live
test_uses_git_2_39_record () {
	ref_file_="$TEST_DIRECTORY/ref-2.39/$TEST_NAME.tar.gz"
	ref_dir_="$TRASH_DIRECTORY/.ref-2.39"
	case "$GIT_VERSION" in
	2.39.*)
		test -z "${GARCHIVE_TEST_RECORD_2_39-}" && return 0
		ref_mode_=record
		rm -rf "$ref_dir_" && mkdir -p "$ref_dir_/blobs" &&
		: >"$ref_dir_/index" || exit 1
		;;
	*)
		test -n "${GARCHIVE_TEST_ANY_GIT-}" && return 0
		# The records are of SHA-1 repositories: their ids and
		# bytes cannot stand for a SHA-256 run.
		test "$test_object_format" = sha1 ||
		test_skip_all "compares with git 2.39 (the reference) through SHA-1 records, which cannot replay in SHA-256 mode, not git ${GIT_VERSION:-(none)}"
		test -f "$ref_file_" ||
		test_skip_all "compares with git 2.39 (the reference) and has no record of it ($ref_file_), not git ${GIT_VERSION:-(none)}"
		ref_mode_=replay
		# garchive follows the git it is compared with: 2.39's
		# record, not this git, where git changed a command line.
		GARCHIVE_GIT_VERSION=2.39.5
		export GARCHIVE_GIT_VERSION
		mkdir -p "$ref_dir_" &&
		tar -xzf "$ref_file_" -C "$ref_dir_" || exit 1
		;;
	esac
}

# ref_key_ ARGS...: set ref_key_ to "TEST:N" (the Nth reference run of
# this test) and ref_args_ to ARGS on one line, the trash path as @TRASH@
# and $ref_args_sed, a sed command a test may set, applied (for a part
# that changes from run to run, such as a port).
ref_key_ () {
	echo "$test_count" >>"$ref_dir_/calls"
	ref_key_="$test_count:$(grep -c "^$test_count\$" "$ref_dir_/calls")"
	ref_args_=$(printf '[%s]' "$@" | tr '\t\n' '  ' |
		sed -e "s|$TRASH_DIRECTORY|@TRASH@|g" ${ref_args_sed:+-e "$ref_args_sed"})
}

# ref_git_ ARGS...: `git ARGS` on the frozen clock as the reference, its
# stdout and stderr on ours, its exit status as ours: live, recorded
# or replayed (above).  $ref_git_wrap, when a script sets it, runs git
# (e.g. "bounded").
ref_git_ () {
	case "$ref_mode_" in
	live)
		frozen $ref_git_wrap git "$@"
		;;
	record)
		ref_key_ "$@"
		frozen $ref_git_wrap git "$@" >"$ref_dir_/out" 2>"$ref_dir_/err"
		ref_code_=$?
		sed "s|$TRASH_DIRECTORY|@TRASH@|g" "$ref_dir_/err" >"$ref_dir_/err.rec"
		ref_out_=$(sha1sum <"$ref_dir_/out" | cut -c1-40)
		ref_err_=$(sha1sum <"$ref_dir_/err.rec" | cut -c1-40)
		if test "$(wc -c <"$ref_dir_/out")" -le 65536; then
			cp "$ref_dir_/out" "$ref_dir_/blobs/$ref_out_"
		fi &&
		cp "$ref_dir_/err.rec" "$ref_dir_/blobs/$ref_err_" &&
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ref_key_" "$ref_code_" \
			"$test_clock" "$ref_out_" "$ref_err_" "$ref_args_" \
			>>"$ref_dir_/index" &&
		cat "$ref_dir_/out" &&
		cat "$ref_dir_/err" >&2
		return $ref_code_
		;;
	replay)
		ref_key_ "$@"
		ref_line_=$(awk -F '\t' -v k="$ref_key_" '$1 == k' "$ref_dir_/index")
		if test -z "$ref_line_"; then
			echo >&2 "no recorded git 2.39 run $ref_key_ (of git $ref_args_): record again"
			return 125
		fi
		ref_rec_args_=$(printf '%s\n' "$ref_line_" | cut -f6-)
		if test "$ref_rec_args_" != "$ref_args_"; then
			echo >&2 "recorded git 2.39 run $ref_key_ was git $ref_rec_args_, not git $ref_args_: record again"
			return 125
		fi
		test_clock=$(printf '%s\n' "$ref_line_" | cut -f3)
		ref_out_=$(printf '%s\n' "$ref_line_" | cut -f4)
		if ! test -f "$ref_dir_/blobs/$ref_out_"; then
			# Too large to record: this git's bytes serve only
			# when they are git 2.39's.
			frozen $ref_git_wrap git "$@" >"$ref_dir_/blobs/$ref_out_" 2>/dev/null
			if test "$(sha1sum <"$ref_dir_/blobs/$ref_out_" | cut -c1-40)" != "$ref_out_"; then
				rm -f "$ref_dir_/blobs/$ref_out_"
				echo >&2 "git $GIT_VERSION's stdout for run $ref_key_ (git $ref_args_) is not git 2.39's (sha1 $ref_out_, too large to record)"
				return 125
			fi
		fi
		cat "$ref_dir_/blobs/$ref_out_" &&
		sed "s|@TRASH@|$TRASH_DIRECTORY|g" \
			"$ref_dir_/blobs/$(printf '%s\n' "$ref_line_" | cut -f5)" >&2
		return "$(printf '%s\n' "$ref_line_" | cut -f2)"
		;;
	esac
}

# ref_again_: the last reference run is to be run again (a SIGPIPE race
# in test_remote_same_as_git): a recording forgets it, a replay gives it
# again, so the record never depends on who lost the race.
ref_again_ () {
	test "$ref_mode_" = live && return 0
	sed -i '$d' "$ref_dir_/calls" &&
	if test "$ref_mode_" = record
	then
		sed -i '$d' "$ref_dir_/index"
	fi
}

# ref_record_write_: at the end of a recording run, the record of the
# script, written reproducibly (sorted names, no times, no owners); not
# after a failure, which may have left runs out.
ref_record_write_ () {
	test "$ref_mode_" = record || return 0
	if test "$test_failures" != 0; then
		echo >&2 "# $TEST_NAME failed: its record of git 2.39 is left as it was"
		return 0
	fi
	mkdir -p "$TEST_DIRECTORY/ref-2.39" &&
	rm -f "$ref_dir_/out" "$ref_dir_/err" "$ref_dir_/err.rec" "$ref_dir_/calls" &&
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
		-C "$ref_dir_" -cf - index blobs |
	gzip -n -9 >"$TEST_DIRECTORY/ref-2.39/$TEST_NAME.tar.gz"
}

# as_user CMD...: run CMD as another user (nobody) where root would
# bypass permissions, else as ourselves; setpriv keeps the environment
# (HOME, PATH) as it is.  PERMS: permissions hold for as_user.
if test "$(id -u)" = 0; then
	as_user () {
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
	}
else
	as_user () {
		"$@"
	}
fi
test_lazy_prereq PERMS '
	if test "$(id -u)" = 0; then
		command -v setpriv && id nobody &&
		as_user sh -c "cd \"$TRASH_DIRECTORY\" && garchive --version"
	fi &&
	mkdir ro && chmod 555 ro && ! as_user sh -c ": >ro/x"
'

# bounded CMD...: CMD (a program, not a function), stopped with status
# 124 after 20 seconds (5 minutes under valgrind), so that a run that
# hangs fails its test instead of blocking the suite.
bounded () {
	if test -n "$GARCHIVE_VALGRIND_REAL"
	then
		timeout 300 "$@"
	else
		timeout 20 "$@"
	fi
}

# damage_loose GITDIR OID HOW [ARG...]: rewrite loose object OID of the
# repository GITDIR in place, keeping its name:
#   cut N          keep the first N bytes of the file
#   empty          leave the file empty
#   size N         deflate it again with N as the size in its header
#   garbage        add bytes after its zlib stream
#   replace OLD NEW  deflate it again with the first OLD in it replaced
#                  (the header is not counted: use it for a same-length
#                  change, whose id then no longer matches its content)
damage_loose () {
	python3 - "$@" <<-\EOF
	import os, sys, zlib
	gitdir, oid, how, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
	path = os.path.join(gitdir, "objects", oid[:2], oid[2:])
	data = open(path, "rb").read()
	raw = zlib.decompress(data) if how in ("size", "replace") else None
	if how == "cut":
	    data = data[:int(args[0])]
	elif how == "empty":
	    data = b""
	elif how == "garbage":
	    data += b"garbage"
	elif how == "size":
	    hdr, body = raw.split(b"\0", 1)
	    data = zlib.compress(hdr.split(b" ")[0] + b" " + args[0].encode() +
	                         b"\0" + body)
	elif how == "replace":
	    hdr, body = raw.split(b"\0", 1)
	    old, new = args[0].encode(), args[1].encode()
	    assert old in body
	    data = zlib.compress(hdr + b"\0" + body.replace(old, new, 1))
	else:
	    sys.exit("damage_loose: unknown " + how)
	os.chmod(path, 0o644)
	open(path, "wb").write(data)
	EOF
}

# EXPENSIVE: a test that costs many CPU-seconds and whose check the
# instrumented runs add little to (make check-asan and make valgrind set
# GARCHIVE_TEST_SKIP_EXPENSIVE=1); plain `make test` runs it.
if test -z "${GARCHIVE_TEST_SKIP_EXPENSIVE-}"; then
	test_set_prereq EXPENSIVE
fi

test_lazy_prereq GZIP 'gzip --version'
test_lazy_prereq XZ 'xz --version'
test_lazy_prereq UNZIP 'unzip -v'
test_lazy_prereq SYMLINKS 'ln -s x y && test -h y'
test_lazy_prereq NOT_ROOT 'test "$(id -u)" != 0'

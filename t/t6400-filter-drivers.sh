#!/bin/sh
test_description='filter drivers: smudge, process, required'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
. "$TEST_DIRECTORY/lib-attr.sh"

# The interpreter itself, not a wrapper such as a pyenv shim, which
# would cost more than the archive for every filter started.
PYTHON=$(python3 -c "import sys; print(sys.executable)" 2>/dev/null)
PROCESS_FILTER="$PYTHON -S $TEST_DIRECTORY/lib-process-filter.py"

# unshelled_filter MODE: $TRASH_DIRECTORY/MODE-filter, a script that
# execs the process filter in MODE, to be named without a shell.
unshelled_filter () {
	printf "#!/bin/sh\nexec \"%s\" -S \"%s\" %s\n" "$PYTHON" \
		"$TEST_DIRECTORY/lib-process-filter.py" "$1" \
		>"$TRASH_DIRECTORY/$1-filter" &&
	chmod +x "$TRASH_DIRECTORY/$1-filter"
}

test_lazy_prereq PYTHON3 'test -n "$PYTHON" && $PYTHON -S -c "pass"'

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir -p sub &&
	for f in a.up b.up sub/c.up "sp ace.up" "it'\''s.up" a.tag \
		sub/d.tag a.mix a.none a.undef a.req sub/e.req a.ign; do
		printf "hello \$Id\$\nworld\n" >"$f" || return 1
	done &&
	ln -s a.up link.up &&
	git add . &&
	cat >.gitattributes <<-\EOF &&
	*.up filter=upper
	*.tag filter=tag
	*.mix filter=upper text eol=crlf ident
	*.none filter=cleanonly
	*.undef filter=nosuch
	*.req filter=req
	*.ign filter=upper export-ignore
	EOF
	git add .gitattributes &&
	test_commit filters &&
	git config filter.upper.smudge "tr a-z A-Z" &&
	git config filter.upper.clean cat &&
	git config filter.tag.smudge "sed \"s|^|%f: |\"" &&
	git config filter.cleanonly.clean cat &&
	git config filter.req.smudge "sed s/o/0/g" &&
	git config filter.req.clean cat &&
	git config filter.req.required true
'

test_expect_success 'smudge filters, every form' '
	cd repo &&
	same_in_forms
'

test_expect_success 'the smudge filter ran, after ident and eol' '
	cd repo &&
	garchive HEAD >s.tar &&
	tar xOf s.tar a.up >out &&
	printf "HELLO \$ID\$\nWORLD\n" >expect &&
	test_cmp expect out &&
	tar xOf s.tar "it'\''s.up" >out &&
	test_cmp expect out &&
	tar xOf s.tar sub/d.tag >out &&
	printf "'\''sub/d.tag'\'': hello \$Id\$\n'\''sub/d.tag'\'': world\n" \
		>expect &&
	test_cmp expect out &&
	tar xOf s.tar a.mix >out &&
	id=$(git rev-parse HEAD:a.mix) &&
	printf "HELLO \$ID: %s \$\r\nWORLD\r\n" "$(echo $id | tr a-z A-Z)" >expect &&
	test_cmp expect out
'

test_expect_success 'a smudge filter that fails, not required' '
	cd repo &&
	test_when_finished "git config filter.upper.smudge \"tr a-z A-Z\"" &&
	git config filter.upper.smudge "exit 3" &&
	same_in_forms &&
	git config filter.upper.smudge "cat >/dev/null; exit 1" &&
	same_in_forms &&
	git config filter.upper.smudge "/no/such/command" &&
	test_same_as_git HEAD &&
	git config filter.upper.smudge "echo constant" &&
	test_same_as_git HEAD &&
	git config filter.upper.smudge "true" &&
	test_same_as_git HEAD &&
	test_same_as_git --format=zip HEAD
'

test_expect_success 'a required smudge filter that fails dies' '
	cd repo &&
	test_when_finished "git config filter.req.smudge \"sed s/o/0/g\"" &&
	git config filter.req.smudge "exit 1" &&
	test_same_as_git HEAD &&
	test_same_as_git HEAD^{tree} &&
	same_failure_as_git --format=zip HEAD sub &&
	(cd sub && test_same_as_git --format=tar HEAD)
'

# git has written the zip entries before the one that dies; garchive
# drops what it still holds (see t6300).
test_expect_success 'a zip that dies: git leaves its entries, garchive none' '
	cd repo &&
	test_when_finished "git config filter.req.smudge \"sed s/o/0/g\"" &&
	git config filter.req.smudge "exit 1" &&
	same_failure_as_git --format=zip HEAD sub &&
	test -s expect.out &&
	test_must_be_empty actual.out
'

test_expect_success 'a required filter without smudge or process dies' '
	cd repo &&
	test_when_finished "git config filter.req.smudge \"sed s/o/0/g\"" &&
	git config --unset filter.req.smudge &&
	test_same_as_git HEAD a.req &&
	test_same_as_git HEAD a.up
'

test_expect_success 'required=false and other values' '
	cd repo &&
	test_when_finished "git config filter.req.smudge \"sed s/o/0/g\"" &&
	test_when_finished "git config filter.req.required true" &&
	git config filter.req.smudge "exit 1" &&
	git config filter.req.required false &&
	test_same_as_git HEAD &&
	git config filter.req.required notabool &&
	test_same_as_git HEAD
'

# The filter prints where it runs, below the trash directory, whose path
# differs from machine to machine (and from git 2.39's record).
test_expect_success 'smudge filters run at the top of the work tree' '
	cd repo &&
	test_when_finished "git config filter.tag.smudge \"sed \\\"s|^|%f: |\\\"\"" &&
	git config filter.tag.smudge "cat; pwd | sed s,^$TRASH_DIRECTORY,TRASH," &&
	same_in_forms
'

test_expect_success 'files above core.bigFileThreshold are not filtered' '
	cd repo &&
	(
		GIT_CONFIG_PARAMETERS="$(config_param core.bigfilethreshold 5)" &&
		export GIT_CONFIG_PARAMETERS &&
		same_form_ HEAD &&
		same_form_ --format=zip HEAD
	)
'

test_expect_success PYTHON3 'process filters, every form' '
	cd repo &&
	test_when_finished "git config --unset filter.upper.process" &&
	git config filter.upper.process "$PROCESS_FILTER upper" &&
	same_in_forms &&
	garchive HEAD >p.tar &&
	tar xOf p.tar sub/c.up >out &&
	{
		printf "[pathname=sub/c.up;ref=refs/heads/main;" &&
		printf "treeish=%s;" $(git rev-parse HEAD) &&
		printf "blob=%s]\n" $(git rev-parse HEAD:sub/c.up) &&
		printf "HELLO \$ID\$\nWORLD\n"
	} >expect &&
	test_cmp expect out
'

test_expect_success PYTHON3 'process filter metadata for other tree-ishes' '
	cd repo &&
	test_when_finished "git tag -d light" &&
	test_when_finished "git config --unset filter.upper.process" &&
	git config filter.upper.process "$PROCESS_FILTER upper" &&
	git tag light &&
	same_form_ light &&
	same_form_ filters &&
	same_form_ refs/tags/filters &&
	same_form_ forms-tag &&
	same_form_ main &&
	same_form_ $(git rev-parse HEAD) &&
	same_form_ HEAD~0 &&
	same_form_ HEAD^{tree} &&
	same_form_ filters:sub
'

test_expect_success PYTHON3 'process filter errors, not required' '
	cd repo &&
	test_when_finished "git reset -q --hard HEAD~1" &&
	test_when_finished "rm -f fail.up abort.up late.up empty.up" &&
	test_when_finished "git config --unset filter.upper.process" &&
	for f in fail.up abort.up late.up empty.up; do
		echo "$f" >"$f" || return 1
	done &&
	git add fail.up abort.up late.up empty.up &&
	test_commit errors &&
	git config filter.upper.process "$PROCESS_FILTER upper" &&
	same_in_forms
'

# The filter is named in git's message: a path in the trash directory,
# the same for every python and checkout (and for git 2.39's record).
test_expect_success PYTHON3 'a process filter that dies' '
	cd repo &&
	test_when_finished "git reset -q --hard HEAD~1" &&
	test_when_finished "git config --unset filter.upper.process" &&
	echo die >die.up &&
	git add die.up &&
	test_commit dies &&
	printf "#!/bin/sh\nexec \"%s\" -S \"%s\" \"\$@\"\n" "$PYTHON" \
		"$TEST_DIRECTORY/lib-process-filter.py" >../process-filter &&
	chmod +x ../process-filter &&
	git config filter.upper.process "$TRASH_DIRECTORY/process-filter upper" &&
	test_same_as_git HEAD &&
	test_same_as_git --format=zip HEAD
'

# Run without a shell (no space in the command), so the signal is the
# filter's own and not a shell's exit status.
test_expect_success PYTHON3 'a process filter killed by a signal as it stops' '
	cd repo &&
	test_when_finished "git config --unset filter.upper.process" &&
	printf "#!/bin/sh\nexec \"%s\" -S \"%s\" sigexit\n" "$PYTHON" \
		"$TEST_DIRECTORY/lib-process-filter.py" >../sigexit-filter &&
	chmod +x ../sigexit-filter &&
	git config filter.upper.process "$TRASH_DIRECTORY/sigexit-filter" &&
	test_same_as_git HEAD &&
	grep "died of signal" actual.err &&
	test_same_as_git --format=zip HEAD
'

# The filters that fail their handshake run without a shell too: each
# is stopped with SIGTERM, and a shell between us and the filter makes
# "died of signal 15" depend on where the shell is when the signal
# lands, for git and for garchive alike (seen on a loaded machine).
test_expect_success PYTHON3 'process filters that cannot start or talk' '
	cd repo &&
	test_when_finished "git config --unset filter.upper.process" &&
	git config filter.upper.process "/no/such/filter" &&
	test_same_as_git HEAD &&
	unshelled_filter badversion &&
	unshelled_filter nosmudge &&
	git config filter.upper.process "$TRASH_DIRECTORY/badversion-filter" &&
	test_same_as_git HEAD &&
	grep "badversion-filter died of signal 15" actual.err &&
	git config filter.upper.process "$TRASH_DIRECTORY/nosmudge-filter" &&
	test_same_as_git HEAD &&
	git config filter.upper.process "head -c 40 >/dev/null" &&
	test_same_as_git HEAD
'

test_expect_success PYTHON3 'required process filters' '
	cd repo &&
	test_when_finished "git reset -q --hard HEAD~1" &&
	test_when_finished "git config --unset filter.req.process" &&
	git config filter.req.process "$PROCESS_FILTER upper" &&
	same_in_forms &&
	git config --unset filter.req.process &&
	echo x >fail.req &&
	git add fail.req &&
	test_commit reqfail &&
	git config filter.req.process "$PROCESS_FILTER upper" &&
	same_failure_as_git --format=zip HEAD &&
	test_same_as_git HEAD &&
	test_same_as_git HEAD a.req &&
	unshelled_filter nosmudge &&
	git config filter.req.process "$TRASH_DIRECTORY/nosmudge-filter" &&
	test_same_as_git HEAD a.req
'

test_expect_success PYTHON3 'the process filter is asked once per file' '
	cd repo &&
	test_when_finished "git config --unset filter.upper.process" &&
	git config filter.upper.process "$PROCESS_FILTER upper \"$HOME/git.log\"" &&
	git archive HEAD >/dev/null &&
	git config filter.upper.process "$PROCESS_FILTER upper \"$HOME/ga.log\"" &&
	garchive HEAD >/dev/null &&
	test_cmp "$HOME/git.log" "$HOME/ga.log"
'

test_expect_success 'filter configuration in a bare clone' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	git config filter.upper.smudge "tr a-z A-Z" &&
	git config filter.tag.smudge "cat; pwd | sed s,^$TRASH_DIRECTORY,TRASH," &&
	same_in_bare
'

test_done

#!/bin/sh
test_description='where attributes come from, their precedence and syntax'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
. "$TEST_DIRECTORY/lib-attr.sh"

# Attributes are seen through what they do to the archive: export-ignore
# drops entries, "text eol=crlf" and "ident" change contents.

# LeakSanitizer refuses to run under ptrace, so not in ASAN builds.
test_lazy_prereq STRACE '
	strace -f -o /dev/null true &&
	strace -f -o /dev/null garchive --version
'

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir -p sub/deep other dir-ignored sub/dir-ignored &&
	cat >.gitattributes <<-\EOF &&
	*.crlf text eol=crlf
	*.id ident
	ignored export-ignore
	sub/anchored export-ignore
	/rooted export-ignore
	dir-ignored/ export-ignore
	[attr]mymacro text eol=crlf ident
	*.mac mymacro
	bin.crlf binary
	unset.mac -mymacro
	value.mac mymacro=yes
	clear.mac !mymacro
	**/deep/*.txt text eol=crlf
	"quoted name" export-ignore
	EOF
	cat >sub/.gitattributes <<-\EOF &&
	*.crlf -text
	deep/a.txt -text
	rooted export-ignore
	EOF
	for f in a.crlf bin.crlf sub/x.crlf other/y.crlf m.mac unset.mac \
		value.mac clear.mac sub/m.mac sub/deep/a.txt sub/deep/b.txt \
		other/deep/c.txt plain.txt sub/plain.txt
	do
		mkdir -p "$(dirname "$f")" &&
		printf "line one\nline two \$Id\$\n" >"$f" || return 1
	done &&
	printf "\$Id\$\n\$Id: old \$\n" >a.id &&
	printf "\$Id\$\n" >sub/b.id &&
	for f in ignored sub/ignored anchored sub/anchored rooted sub/rooted \
		other/rooted dir-ignored/f sub/dir-ignored/f "quoted name"
	do
		echo "$f" >"$f" || return 1
	done &&
	git add . &&
	test_commit base &&
	git tag -a -m "annotated" v1
'

test_expect_success 'in-tree .gitattributes, every form' '
	cd repo &&
	same_in_forms
'

test_expect_success 'the attributes do change the archive' '
	cd repo &&
	garchive --format=tar HEAD >with.tar &&
	archive_list with.tar >list &&
	! grep -x ignored list &&
	! grep -x dir-ignored/ list &&
	! grep -x sub/dir-ignored/ list &&
	! grep -x sub/anchored list &&
	grep -x anchored list &&
	! grep -x rooted list &&
	grep -x other/rooted list &&
	! grep -x sub/rooted list &&
	! grep -x "quoted name" list &&
	tar xOf with.tar a.crlf >a.crlf.out &&
	printf "line one\r\nline two \$Id\$\r\n" >expect &&
	test_cmp expect a.crlf.out &&
	tar xOf with.tar sub/x.crlf >x.out &&
	test_cmp sub/x.crlf x.out
'

test_expect_success '--worktree-attributes reads the work tree, not HEAD' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes sub/.gitattributes" &&
	cat >.gitattributes <<-\EOF &&
	*.txt text eol=crlf
	anchored export-ignore
	EOF
	rm sub/.gitattributes &&
	same_in_forms &&
	garchive HEAD >head.tar &&
	garchive --worktree-attributes HEAD >wt.tar &&
	! cmp -s head.tar wt.tar
'

test_expect_success 'the real index is ignored' '
	cd repo &&
	test_when_finished "git reset -q && git checkout -q -- .gitattributes" &&
	echo "* export-ignore" >.gitattributes &&
	git add .gitattributes &&
	git checkout -q HEAD -- .gitattributes &&
	same_in_forms &&
	git checkout -q -- .gitattributes &&
	echo "* export-ignore" >.gitattributes &&
	git add .gitattributes &&
	same_in_forms
'

test_expect_success 'a .gitattributes only in the work tree' '
	cd repo &&
	test_when_finished "rm -f other/.gitattributes" &&
	echo "*.crlf -text" >other/.gitattributes &&
	same_in_forms
'

test_expect_success 'info/attributes wins over the tree' '
	cd repo &&
	test_when_finished "rm -f .git/info/attributes" &&
	cat >.git/info/attributes <<-\EOF &&
	a.crlf -text
	sub/x.crlf text eol=crlf
	x.crlf text eol=crlf
	anchored export-ignore
	sub/ignored -export-ignore
	plain.txt mymacro
	EOF
	same_in_forms
'

test_expect_success 'core.attributesFile loses to the tree' '
	cd repo &&
	test_when_finished "git config --unset core.attributesFile" &&
	cat >"$HOME/attrs" <<-\EOF &&
	*.txt text eol=crlf
	a.crlf -text
	*.id -ident
	anchored export-ignore
	[attr]gmacro export-ignore
	other/y.crlf gmacro
	EOF
	git config core.attributesFile "~/attrs" &&
	same_in_forms &&
	git config core.attributesFile "$HOME/attrs" &&
	same_in_forms
'

test_expect_success 'a relative core.attributesFile is read from the top' '
	cd repo &&
	test_when_finished "rm -f rel-attrs sub/rel-attrs" &&
	test_when_finished "git config --unset core.attributesFile" &&
	printf "anchored export-ignore\nx.crlf text eol=crlf\n" >rel-attrs &&
	echo "* export-ignore" >sub/rel-attrs &&
	git config core.attributesFile rel-attrs &&
	same_in_forms &&
	(
		cd sub &&
		GIT_DIR=../.git && export GIT_DIR &&
		test_same_as_git HEAD
	)
'

test_expect_success 'the default global file: XDG_CONFIG_HOME, ~/.config' '
	cd repo &&
	test_when_finished "rm -rf \"\$HOME/.config\" \"\$HOME/xdg\"" &&
	mkdir -p "$HOME/.config/git" "$HOME/xdg/git" &&
	echo "*.txt text eol=crlf" >"$HOME/.config/git/attributes" &&
	echo "anchored export-ignore" >"$HOME/xdg/git/attributes" &&
	same_in_forms &&
	(
		XDG_CONFIG_HOME="$HOME/xdg" && export XDG_CONFIG_HOME &&
		same_in_forms
	)
'

test_expect_success 'core.attributesFile from the command line' '
	cd repo &&
	echo "plain.txt export-ignore" >"$HOME/cmdline-attrs" &&
	(
		GIT_CONFIG_PARAMETERS=$(config_param core.attributesfile \
			"$HOME/cmdline-attrs") &&
		export GIT_CONFIG_PARAMETERS &&
		test_same_as_git HEAD &&
		test_same_as_git --format=zip HEAD
	) &&
	(
		GIT_CONFIG_COUNT=1 &&
		GIT_CONFIG_KEY_0=core.attributesFile &&
		GIT_CONFIG_VALUE_0="$HOME/cmdline-attrs" &&
		export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0 &&
		test_same_as_git HEAD
	)
'

test_expect_success 'a missing core.attributesFile is no error' '
	cd repo &&
	test_when_finished "git config --unset core.attributesFile" &&
	git config core.attributesFile "$HOME/no/such/file" &&
	test_same_as_git HEAD &&
	test_must_be_empty actual.err
'

test_expect_success 'precedence: tree beats global, info beats tree' '
	cd repo &&
	test_when_finished "git config --unset core.attributesFile" &&
	test_when_finished "rm -f .git/info/attributes" &&
	echo "a.crlf -text" >"$HOME/attrs2" &&
	git config core.attributesFile "$HOME/attrs2" &&
	garchive HEAD >g.tar &&
	tar xOf g.tar a.crlf >out &&
	printf "line one\r\nline two \$Id\$\r\n" >expect &&
	test_cmp expect out &&
	echo "a.crlf -text" >.git/info/attributes &&
	garchive HEAD >i.tar &&
	tar xOf i.tar a.crlf >out &&
	test_cmp a.crlf out &&
	same_in_forms
'

test_expect_success STRACE 'GIT_ATTR_NOSYSTEM is honoured as set' '
	cd repo &&
	for v in unset 1 true 0 false; do
		(
			if test $v = unset; then
				unset GIT_ATTR_NOSYSTEM
			else
				GIT_ATTR_NOSYSTEM=$v && export GIT_ATTR_NOSYSTEM
			fi &&
			strace -f -e trace=open,openat -o git.trace \
				git archive HEAD >/dev/null &&
			strace -f -e trace=open,openat -o ga.trace \
				garchive HEAD >/dev/null &&
			{ grep -c "etc/gitattributes" git.trace || :; } >git.n &&
			{ grep -c "etc/gitattributes" ga.trace || :; } >ga.n &&
			echo "$v: git $(cat git.n), garchive $(cat ga.n)" &&
			if test "$(cat git.n)" = 0; then
				test "$(cat ga.n)" = 0
			else
				test "$(cat ga.n)" != 0
			fi &&
			test_same_as_git HEAD
		) || return 1
	done
'

test_expect_success 'a bad GIT_ATTR_NOSYSTEM value' '
	cd repo &&
	(
		GIT_ATTR_NOSYSTEM=maybe && export GIT_ATTR_NOSYSTEM &&
		test_same_as_git HEAD
	)
'

test_expect_success 'a bare clone' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	same_in_bare &&
	echo "a.crlf -text" >info/attributes &&
	same_in_bare &&
	echo "anchored export-ignore" >rel-attrs &&
	git config core.attributesFile rel-attrs &&
	same_in_bare &&
	echo "a.crlf export-ignore" >hooks/rel-attrs &&
	(
		cd hooks &&
		test_same_as_git HEAD
	)
'

# git prints some of these diagnostics without a prefix, so compare the
# whole of stderr.
same_stderr_as_git () {
	test_clock_start
	ref_git_ archive "$@" >expect.out 2>expect.err
	expect_code=$?
	frozen garchive "$@" >actual.out 2>actual.err
	actual_code=$?
	test $expect_code = $actual_code &&
	test_cmp expect.err actual.err &&
	test_cmp expect.out actual.out
}

test_expect_success 'malformed lines: the same warnings as git' '
	attr_repo_init bad &&
	cd bad &&
	mkdir sub &&
	long=$(printf "%2100s" "" | tr " " x) &&
	{
		echo "!negated export-ignore" &&
		echo "-bad=name export-ignore" &&
		echo "good export-ignore bad!name" &&
		echo "$long export-ignore" &&
		echo "[attr]" &&
		echo "[attr]-m text" &&
		echo "   " &&
		echo "# comment export-ignore" &&
		echo "\"unterminated export-ignore" &&
		echo "onlypattern" &&
		echo "[attr]ok -text" &&
		echo "sub/x ok"
	} >.gitattributes &&
	cat >sub/.gitattributes <<-\EOF &&
	[attr]inner export-ignore
	y inner
	!z export-ignore
	EOF
	for f in negated good x sub/x sub/y sub/z onlypattern; do
		echo "$f" >"$f" || return 1
	done &&
	git add . &&
	test_commit bad &&
	same_stderr_as_git HEAD &&
	same_stderr_as_git --format=zip HEAD &&
	same_stderr_as_git HEAD^{tree} &&
	same_stderr_as_git HEAD:sub &&
	(cd sub && same_stderr_as_git HEAD) &&
	same_stderr_as_git --worktree-attributes HEAD &&
	same_in_forms
'

test_expect_success 'malformed lines in info/attributes and the global file' '
	cd bad &&
	test_when_finished "git config --unset core.attributesFile" &&
	test_when_finished "rm -f .git/info/attributes" &&
	printf "!neg export-ignore\n[attr]m export-ignore\nnegated m\n" \
		>.git/info/attributes &&
	printf "x -bad!\n!neg2 text\n" >"$HOME/bad-global" &&
	git config core.attributesFile "$HOME/bad-global" &&
	same_stderr_as_git HEAD &&
	same_stderr_as_git --worktree-attributes HEAD
'

test_expect_success 'CRLF, BOM and NUL in .gitattributes: blob and file' '
	attr_repo_init crlf &&
	cd crlf &&
	mkdir sub &&
	printf "\357\273\277a export-ignore\r\nb export-ignore\r\n" \
		>.gitattributes &&
	printf "c export-ignore\nd export-ignore\000e export-ignore\n" \
		>sub/.gitattributes &&
	echo "f export-ignore" >>sub/.gitattributes &&
	for f in a b c d e f sub/a sub/b sub/c sub/d sub/e sub/f; do
		echo "$f" >"$f" || return 1
	done &&
	git add . &&
	test_commit crlf &&
	same_stderr_as_git HEAD &&
	same_stderr_as_git --worktree-attributes HEAD &&
	same_in_forms
'

test_expect_success 'macros: built-in binary, nesting, redefinition' '
	attr_repo_init macros &&
	cd macros &&
	cat >.gitattributes <<-\EOF &&
	[attr]inner text eol=crlf
	[attr]outer inner ident
	[attr]binary export-ignore
	*.o outer
	*.b binary
	*.t text eol=crlf
	both.t binary
	[attr]late export-ignore
	*.l late
	undef.o !outer
	EOF
	for f in a.o a.b both.t c.t x.l undef.o; do
		printf "x \$Id\$\ny\n" >"$f" || return 1
	done &&
	git add . &&
	test_commit macros &&
	same_in_forms
'

test_expect_success 'macros from info/attributes and the global file' '
	cd macros &&
	test_when_finished "git config --unset core.attributesFile" &&
	test_when_finished "rm -f .git/info/attributes" &&
	echo "[attr]gm export-ignore" >"$HOME/gm" &&
	git config core.attributesFile "$HOME/gm" &&
	echo "a.b gm" >.git/info/attributes &&
	echo "[attr]inner -text" >>.git/info/attributes &&
	same_in_forms
'

test_expect_success 'pattern rules' '
	attr_repo_init pat &&
	cd pat &&
	mkdir -p a/b/c sub/a/b d e &&
	cat >.gitattributes <<-\EOF &&
	a/**/c/f export-ignore
	sub/*/x export-ignore
	d/ export-ignore
	e export-ignore
	[abc].q export-ignore
	\#hash export-ignore
	*.Case export-ignore
	\!bang export-ignore
	"tab\there" export-ignore
	**/deep export-ignore
	/top/** export-ignore
	EOF
	cat >sub/.gitattributes <<-\EOF &&
	a/b export-ignore
	/x export-ignore
	EOF
	for f in a/b/c/f a/f sub/a/x sub/a/b/x sub/x x d/f e/f a.q z.q \
		"#hash" file.case file.Case "!bang" "tab	here" \
		a/deep b/deep/f top/f
	do
		mkdir -p "$(dirname "$f")" &&
		echo "$f" >"$f" || return 1
	done &&
	git add . &&
	test_commit pat &&
	same_in_forms
'

test_expect_success 'core.ignoreCase makes patterns match any case' '
	cd pat &&
	test_when_finished "git config core.ignoreCase false" &&
	git config core.ignoreCase true &&
	same_in_forms
'

test_expect_success 'a symlinked .gitattributes' '
	attr_repo_init link &&
	cd link &&
	mkdir sub &&
	echo "a export-ignore" >real-attrs &&
	ln -s real-attrs .gitattributes &&
	ln -s ../real-attrs sub/.gitattributes &&
	echo a >a &&
	echo a >sub/a &&
	git add . &&
	test_commit link &&
	same_stderr_as_git HEAD &&
	same_stderr_as_git --worktree-attributes HEAD &&
	(cd sub && same_stderr_as_git --worktree-attributes HEAD) &&
	ln -s loop loop &&
	rm .gitattributes sub/.gitattributes &&
	ln -s loop .gitattributes &&
	ln -s ../loop sub/.gitattributes &&
	same_stderr_as_git --worktree-attributes HEAD &&
	(cd sub && same_stderr_as_git --worktree-attributes HEAD) &&
	same_in_forms
'

test_expect_success 'diff attributes set the zip text flag' '
	attr_repo_init diff &&
	cd diff &&
	mkdir sub &&
	cat >.gitattributes <<-\EOF &&
	*.nd -diff
	*.d diff
	*.bd binary
	*.cb diff=custombin
	*.ct diff=customtext
	*.un diff=undefined
	*.td -text
	sub/* diff
	EOF
	for ext in nd d bd cb ct un td none; do
		printf "text\n" >t.$ext &&
		printf "bin\000ary\n" >b.$ext || return 1
	done &&
	printf "bin\000ary\n" >sub/b &&
	git add . &&
	test_commit diff &&
	git config diff.custombin.binary true &&
	git config diff.customtext.binary false &&
	same_in_forms &&
	echo "*.none -diff" >.git/info/attributes &&
	same_in_forms
'

# In a cone-mode sparse checkout git 2.39.5 does not read the
# .gitattributes of directories outside the cone (attr.c skips them, as
# they could only apply to files not checked out); garchive reads them.
test_expect_failure 'cone-mode sparse checkout: .gitattributes outside the cone' '
	attr_repo_init sparse &&
	cd sparse &&
	mkdir -p in out/deep &&
	echo "x export-ignore" >out/.gitattributes &&
	echo "y export-ignore" >in/.gitattributes &&
	for f in in/x in/y out/x out/y out/deep/x; do
		echo $f >$f || return 1
	done &&
	git add . &&
	test_commit sparse &&
	git sparse-checkout set --cone in &&
	test_same_as_git HEAD
'

test_expect_success 'an unreadable global file is named as configured' '
	cd link &&
	test_when_finished "git config --unset core.attributesFile" &&
	ln -s gloop "$HOME/gloop" &&
	git config core.attributesFile "~/gloop" &&
	same_stderr_as_git HEAD
'

# git names info/attributes by its own idea of $GIT_DIR (".git" from a
# work tree, nothing in a bare repository, GIT_DIR as given).
test_expect_success 'an unreadable info/attributes is named as git names it' '
	cd link &&
	test_when_finished "rm -f .git/info/attributes" &&
	ln -s attributes .git/info/attributes &&
	same_stderr_as_git HEAD
'

test_done

# t/lib-attr.sh: run one comparison with git in every form issue 5 asks
# for, for the attribute, conversion and pathspec tests (t6xxx).
#
#	. "$TEST_DIRECTORY/lib-attr.sh"
#	attr_repo_init DIR
#	same_in_forms [OPTION...]
#
# same_in_forms compares `git archive` and garchive from the top of a
# work tree, in tar and zip, with and without --worktree-attributes, at
# HEAD, at an annotated tag of HEAD, at HEAD's tree id, at HEAD:sub (when
# HEAD has a directory "sub") and at HEAD run from sub/.  same_in_bare
# does the same in a bare repository (no work tree, no subdirectory).

# Archives of a tree carry "now": retry once when the second turned
# between the two runs, as the conformance harness does.
test_same_as_git_now () {
	test_same_as_git "$@" || test_same_as_git "$@"
}

# A comparison that says which one failed.
same_form_ () {
	test_same_as_git_now "$@" && return 0
	echo >&2 "differs from git: archive $*"
	return 1
}

# attr_repo_init DIR: a repository whose work tree ignores the files
# test_same_as_git leaves behind, so `git add .` never picks them up.
attr_repo_init () {
	git init -q "$1" &&
	cat >>"$1/.git/info/exclude" <<-\EOF
	/expect.*
	/actual.*
	/sub/expect.*
	/sub/actual.*
	EOF
}

same_in_forms () {
	git tag -f -a -m "forms" forms-tag HEAD >/dev/null &&
	has_sub= &&
	if git cat-file -e HEAD:sub 2>/dev/null &&
	   test "$(git cat-file -t HEAD:sub)" = tree
	then
		has_sub=t
	fi &&
	for fmt in tar zip; do
		for wt in "" --worktree-attributes; do
			same_form_ --format=$fmt $wt "$@" HEAD &&
			same_form_ --format=$fmt $wt "$@" forms-tag &&
			same_form_ --format=$fmt $wt "$@" \
				"$(git rev-parse HEAD^{tree})" &&
			if test -n "$has_sub"; then
				same_form_ --format=$fmt $wt "$@" HEAD:sub &&
				(
					cd sub &&
					same_form_ --format=$fmt $wt "$@" HEAD
				)
			fi || return 1
		done
	done
}

same_in_bare () {
	git tag -f -a -m "forms" forms-tag HEAD >/dev/null &&
	for fmt in tar zip; do
		for wt in "" --worktree-attributes; do
			same_form_ --format=$fmt $wt "$@" HEAD &&
			same_form_ --format=$fmt $wt "$@" forms-tag &&
			same_form_ --format=$fmt $wt "$@" \
				"$(git rev-parse HEAD^{tree})" &&
			if test "$(git cat-file -t HEAD:sub 2>/dev/null)" = tree
			then
				same_form_ --format=$fmt $wt "$@" HEAD:sub
			fi || return 1
		done
	done
}

# same_failure_as_git ARGS...: test_same_as_git without the stdout
# bytes, for runs that die mid-archive: git has written what it wrote
# before dying (whole zip entries, whole 10240-byte tar records), while
# garchive's writers drop what they buffered.  The t6xxx scripts keep
# that difference as test_expect_failure.
same_failure_as_git () {
	git archive "$@" >expect.out 2>expect.err
	expect_code=$?
	garchive "$@" >actual.out 2>actual.err
	actual_code=$?
	diagnostics expect.err >expect.diag
	diagnostics actual.err >actual.diag
	if test $expect_code != $actual_code; then
		echo >&2 "exit status: git $expect_code, garchive $actual_code ($*)"
		cat actual.err >&2
		return 1
	fi
	test_cmp expect.diag actual.diag
}

# archive_list ARCHIVE.tar: the names in a tar, one a line.
archive_list () {
	tar tf "$1"
}

# t/lib-attr.sh: run one comparison with git in every form issue 5 asks
# for, for the attribute, conversion and pathspec tests (t6xxx).
#
#	. "$TEST_DIRECTORY/lib-attr.sh"
#	attr_repo_init DIR
#	same_in_forms [OPTION...] [-- PATHSPEC...]
#
# same_in_forms compares `git archive` and garchive from the top of a
# work tree, in tar and zip, with and without --worktree-attributes, at
# HEAD, at an annotated tag of HEAD, at HEAD's tree id, at HEAD:sub (when
# HEAD has a directory "sub") and at HEAD run from sub/.  same_in_bare
# does the same in a bare repository (no work tree, no subdirectory).

# A comparison that says which one failed; $forms_cmp, when a test sets
# it, compares instead of test_same_as_git (e.g. digest_same_as_git).
same_form_ () {
	${forms_cmp:-test_same_as_git} "$@" && return 0
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

# forms_args_ [OPTION...] [-- PATHSPEC...]: set forms_opts_ and forms_ps_
# to strings that, given to eval in the caller, give back the options and
# the pathspecs, quoted.
forms_args_ () {
	forms_opts_= &&
	forms_ps_= &&
	forms_seen_= &&
	forms_i_=0 &&
	for forms_a_; do
		forms_i_=$((forms_i_ + 1))
		if test -z "$forms_seen_" && test "x$forms_a_" = x--; then
			forms_seen_=t
		elif test -z "$forms_seen_"; then
			forms_opts_="$forms_opts_ \"\${$forms_i_}\""
		else
			forms_ps_="$forms_ps_ \"\${$forms_i_}\""
		fi
	done
}

# same_in_forms_ SUBDIR [OPTION...] [-- PATHSPEC...]: the comparisons,
# from sub/ too when SUBDIR is not empty.
same_in_forms_ () {
	forms_subdir_=$1 &&
	shift &&
	forms_args_ "$@" &&
	git tag -f -a -m "forms" forms-tag HEAD >/dev/null &&
	has_sub= &&
	if test "$(git cat-file -t HEAD:sub 2>/dev/null)" = tree; then
		has_sub=t
	fi &&
	forms_tree_=$(git rev-parse HEAD^{tree}) &&
	for fmt in tar zip; do
		for wt in "" --worktree-attributes; do
			for forms_t_ in HEAD forms-tag $forms_tree_ \
				${has_sub:+HEAD:sub}
			do
				eval "same_form_ --format=\$fmt \$wt $forms_opts_ \
					\$forms_t_ $forms_ps_" || return 1
			done &&
			if test -n "$forms_subdir_" && test -n "$has_sub"; then
				(
					cd sub &&
					eval "same_form_ --format=\$fmt \$wt \
						$forms_opts_ HEAD $forms_ps_"
				)
			fi || return 1
		done
	done
}

# same_in_forms [OPTION...] [-- PATHSPEC...]
same_in_forms () {
	same_in_forms_ t "$@"
}

# same_in_bare [OPTION...] [-- PATHSPEC...]: the same in a bare
# repository, which has no work tree to run from.
same_in_bare () {
	same_in_forms_ "" "$@"
}

# config_param KEY VALUE: one 'key'='value' item of GIT_CONFIG_PARAMETERS,
# which git and garchive both read.
config_param () {
	printf "'%s'='%s'" "$1" "$2"
}

# archive_list ARCHIVE.tar: the names in a tar, one a line.
archive_list () {
	tar tf "$1"
}

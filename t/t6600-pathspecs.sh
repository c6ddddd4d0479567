#!/bin/sh
test_description='pathspecs: magic, environment switches, validation'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
. "$TEST_DIRECTORY/lib-attr.sh"

# same_at_head PATHSPEC...: tar and zip at HEAD, with and without
# --worktree-attributes; same_in_forms for one case in each group.
same_at_head () {
	same_form_ HEAD "$@" &&
	same_form_ --format=zip HEAD "$@" &&
	same_form_ --worktree-attributes HEAD "$@"
}

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir -p sub/deeper dir/sub other "sp ace" &&
	for f in README readme.TXT a.txt b.sh dir/f dir/exe.sh dir/sub/f \
		sub/a.txt sub/b.sh sub/deeper/f other/o "star*" "what?" \
		"sp ace/x" "[ab]" a b
	do
		echo "$f" >"$f" || return 1
	done &&
	cat >.gitattributes <<-\EOF &&
	*.sh marked
	dir/** level=deep
	sub/a.txt marked level=sub
	EOF
	echo "f marked" >sub/.gitattributes &&
	git add . &&
	test_commit ps
'

test_expect_success 'plain pathspecs: * matches /, directories, prefixes' '
	cd repo &&
	same_in_forms -- "*.sh" &&
	same_at_head "dir/*" &&
	same_at_head dir &&
	same_at_head dir/ &&
	same_at_head a.txt sub &&
	same_at_head di &&
	same_at_head "star*" &&
	same_at_head "what?" &&
	same_at_head "[ab]" &&
	same_at_head "sp ace" &&
	same_at_head . &&
	same_at_head a.txt a.txt
'

test_expect_success ':(glob)' '
	cd repo &&
	same_at_head ":(glob)*.sh" &&
	same_in_forms -- ":(glob)**/f" &&
	same_at_head ":(glob)dir/*" &&
	same_at_head ":(glob)dir/**" &&
	same_at_head ":(glob)star*"
'

test_expect_success ':(exclude), :! and :^' '
	cd repo &&
	same_in_forms -- . ":(exclude)dir" &&
	same_at_head ":!*.txt" &&
	same_at_head ":^dir" ":^sub" &&
	same_at_head dir ":(exclude,glob)dir/*" &&
	same_at_head ":!nomatch" &&
	same_at_head nomatch ":!dir"
'

test_expect_success ':(icase), :(literal), :(top) and :/' '
	cd repo &&
	same_in_forms -- ":(icase)readme" &&
	same_at_head ":(icase)*.txt" &&
	same_at_head ":(literal)star*" &&
	same_at_head ":(literal)what?" &&
	same_at_head ":(literal)*.txt" &&
	same_at_head ":(top)dir" &&
	same_in_forms -- ":/dir" &&
	same_at_head ":/" &&
	same_at_head ":(top,glob)**/f" &&
	same_at_head ":(icase,glob)DIR/*"
'

test_expect_success 'GIT_*_PATHSPECS switches' '
	cd repo &&
	(
		GIT_LITERAL_PATHSPECS=1 && export GIT_LITERAL_PATHSPECS &&
		same_at_head "star*" &&
		same_at_head "*.sh" &&
		same_at_head ":(glob)*.sh"
	) &&
	(
		GIT_GLOB_PATHSPECS=1 && export GIT_GLOB_PATHSPECS &&
		same_at_head "*.sh" &&
		same_at_head ":(literal)star*"
	) &&
	(
		GIT_NOGLOB_PATHSPECS=1 && export GIT_NOGLOB_PATHSPECS &&
		same_at_head "star*" &&
		same_at_head "*.sh" &&
		same_at_head ":(glob)*.sh"
	) &&
	(
		GIT_ICASE_PATHSPECS=1 && export GIT_ICASE_PATHSPECS &&
		same_in_forms -- "readme" &&
		same_at_head "DIR"
	) &&
	(
		GIT_GLOB_PATHSPECS=1 GIT_NOGLOB_PATHSPECS=1 &&
		export GIT_GLOB_PATHSPECS GIT_NOGLOB_PATHSPECS &&
		test_same_as_git HEAD a.txt
	) &&
	(
		GIT_LITERAL_PATHSPECS=1 GIT_ICASE_PATHSPECS=1 &&
		export GIT_LITERAL_PATHSPECS GIT_ICASE_PATHSPECS &&
		test_same_as_git HEAD a.txt
	) &&
	(
		GIT_LITERAL_PATHSPECS=0 GIT_GLOB_PATHSPECS=false &&
		export GIT_LITERAL_PATHSPECS GIT_GLOB_PATHSPECS &&
		test_same_as_git HEAD "*.sh"
	) &&
	(
		GIT_GLOB_PATHSPECS=maybe && export GIT_GLOB_PATHSPECS &&
		test_same_as_git HEAD "*.sh"
	)
'

test_expect_success 'every pathspec must match, with git'\''s message' '
	cd repo &&
	test_same_as_git HEAD nosuch &&
	test_same_as_git HEAD a.txt nosuch other/nosuch &&
	test_same_as_git HEAD other/nosuch nosuch &&
	test_same_as_git HEAD "" &&
	test_same_as_git HEAD a.txt "" &&
	test_same_as_git --format=zip HEAD nosuch &&
	test_same_as_git HEAD ../outside &&
	(cd sub && test_same_as_git HEAD ../other) &&
	(cd sub && test_same_as_git HEAD a.txt) &&
	(cd sub && test_same_as_git HEAD sub/a.txt)
'

test_expect_success 'bad magic' '
	cd repo &&
	test_same_as_git HEAD ":(nosuch)a" &&
	test_same_as_git HEAD ":(glob,literal)a" &&
	test_same_as_git HEAD ":(icase,literal)a.txt" &&
	test_same_as_git HEAD ":(glob" &&
	test_same_as_git HEAD ":(prefix:1)a.txt" &&
	test_same_as_git HEAD ":(prefix:x)a.txt" &&
	test_same_as_git HEAD ":x" &&
	test_same_as_git HEAD ":!" &&
	test_same_as_git HEAD ":(attr:)" &&
	test_same_as_git HEAD ":(attr:a,attr:b)x" &&
	test_same_as_git HEAD ":(attr:!)"
'

test_expect_success 'pathspecs and export-ignore' '
	cd repo &&
	test_when_finished "rm -f .git/info/attributes" &&
	echo "dir export-ignore" >.git/info/attributes &&
	same_at_head dir &&
	same_in_forms -- dir/f a.txt
'

# :(attr:) works in git 2.39.5 when the attribute is in the work tree's
# .gitattributes, which is where 2.39.5 looks while validating; the
# entries are then selected by the archived tree's attributes.
test_expect_success ':(attr:) where git 2.39.5 handles it' '
	cd repo &&
	same_in_forms -- ":(attr:marked)" &&
	same_at_head ":(attr:level=deep)" &&
	same_at_head ":(attr:!level)" &&
	same_at_head ":(attr:marked level=sub)" &&
	same_at_head ":(attr:-marked)" &&
	same_at_head ":(attr:marked,glob)dir/*" &&
	same_at_head . ":(exclude,attr:marked)" &&
	same_at_head ":(attr:nosuch)"
'

# git 2.39.5 accepts such an item and archives nothing for it; git 2.47
# validates with the archived tree's attributes and refuses it, and
# garchive follows (git 2.55.0 gave this message).  git 2.39's run is
# its record where git is another.
test_expect_success ':(attr:) only in the work tree: git 2.39.5 accepts' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes" &&
	echo "a.txt onlywt" >>.gitattributes &&
	ref_git_ archive HEAD ":(attr:onlywt)" a.txt >out &&
	archive_list out >list &&
	echo a.txt >expect &&
	test_cmp expect list
'

test_expect_success ':(attr:) with the attribute only in the work tree' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes" &&
	echo "a.txt onlywt" >>.gitattributes &&
	same_form_ --worktree-attributes HEAD ":(attr:onlywt)" a.txt &&
	same_form_ --worktree-attributes HEAD ":(attr:onlywt)" &&
	test_expect_code 128 garchive HEAD ":(attr:onlywt)" a.txt >out 2>err &&
	echo "fatal: pathspec '"'"':(attr:onlywt)'"'"' did not match any files" \
		>expect &&
	test_cmp expect err &&
	test_must_be_empty out
'

# Where 2.39.5 refuses, garchive follows git 2.47, which checks the
# pathspecs after loading the archived tree into its index (296743a7ca):
# the item matches by the attributes the archive is made with.
# 2.39's refusal is checked against git 2.39 (its record where git is
# another); a later git accepts.
test_expect_success ':(attr:) from the tree alone: newer git accepts it' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes sub/.gitattributes" &&
	: >.gitattributes &&
	: >sub/.gitattributes &&
	test_expect_code 128 ref_git_ archive HEAD ":(attr:marked)" >out 2>err &&
	grep "did not match any files" err &&
	garchive HEAD ":(attr:marked)" >ga.tar &&
	archive_list ga.tar >list &&
	cat >expect <<-\EOF &&
	b.sh
	dir/
	dir/exe.sh
	sub/
	sub/a.txt
	sub/b.sh
	sub/deeper/
	sub/deeper/f
	EOF
	test_cmp expect list &&
	git checkout -q -- .gitattributes sub/.gitattributes &&
	git archive HEAD ":(attr:marked)" >git.tar &&
	test_cmp git.tar ga.tar &&
	: >.gitattributes &&
	test_must_fail garchive HEAD ":(attr:level=sub,attr:nosuch)" 2>err
'

test_expect_success ':(attr:) in a bare repository: newer git accepts it' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	test_expect_code 128 ref_git_ archive HEAD ":(attr:marked)" >out 2>err &&
	grep "did not match any files" err &&
	garchive HEAD ":(attr:marked)" >ga.tar &&
	(cd ../repo && git archive HEAD ":(attr:marked)") >git.tar &&
	test_cmp git.tar ga.tar &&
	test_must_fail garchive HEAD ":(attr:nosuch)" 2>err &&
	echo "fatal: pathspec '\'':(attr:nosuch)'\'' did not match any files" \
		>expect &&
	test_cmp expect err &&
	same_in_bare -- a.txt ":(exclude)nosuch"
'

test_expect_success 'a bare repository' '
	cd bare.git &&
	same_in_bare -- "*.sh" &&
	same_in_bare -- ":(glob)**/f" ":!dir"
'

test_done

#!/bin/sh
test_description='bash completion of garchive and git garchive'
. "$(dirname "$0")/lib.sh"

completion_script="$GARCHIVE_SRC/contrib/completion/garchive.bash"

test_lazy_prereq BASH 'bash --version'
test_lazy_prereq BASH_COMPLETION '
	test -r /usr/share/bash-completion/bash_completion
'
test_lazy_prereq GIT_COMPLETION '
	test -r /usr/share/bash-completion/completions/git
'

# run_completion SETUP LINE: print, one per line, what bash offers for LINE
# with the cursor at its end.  SETUP is a list of what to load first:
# "bc" bash-completion, "git" git's completion; garchive.bash is always
# sourced.  COMP_WORDS is split at blanks, "=" and ":" as bash does with
# its default COMP_WORDBREAKS.
run_completion () {
	bash -c '
		case $1 in *bc*) . /usr/share/bash-completion/bash_completion ;; esac
		case $1 in *git*) . /usr/share/bash-completion/completions/git ;; esac
		. "$2"
		line=$3
		COMP_LINE=$line
		COMP_POINT=${#line}
		read -r -a COMP_WORDS <<<"$(printf "%s" "$line" |
					    sed "s/[=:]/ & /g")"
		case $line in *" ") COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		case ${COMP_WORDS[0]} in
		git) __git_wrap__git_main ;;
		*) _garchive ;;
		esac
		test ${#COMPREPLY[@]} = 0 || printf "%s|\n" "${COMPREPLY[@]}"
	' run_completion "$1" "$completion_script" "$2"
}

# expect LINE...: the lines of the expected output of run_completion
# (with the "|" that shows where each candidate ends).  Candidates are
# what replaces the part of the word after its last "=" or ":".
expect () {
	printf "%s|\n" "$@" >expect
}

test_expect_success BASH 'setup' '
	git init -q repo &&
	cd repo &&
	mkdir -p dir/sub &&
	echo a >a.txt &&
	echo b >dir/b.txt &&
	echo c >dir/sub/c.txt &&
	git add . &&
	test_tick &&
	git commit -q -m initial &&
	git tag v1.0 &&
	git branch topic &&
	git remote add origin https://example.com/repo.git &&
	git remote add upstream https://example.com/up.git
'

test_expect_success BASH 'garchive --form completes to --format=' '
	cd repo &&
	run_completion "" "garchive --form" >actual &&
	expect "--format=" &&
	test_cmp expect actual
'

test_expect_success BASH,BASH_COMPLETION 'the same with bash-completion loaded' '
	cd repo &&
	run_completion bc "garchive --form" >actual &&
	expect "--format=" &&
	test_cmp expect actual
'

test_expect_success BASH,GIT_COMPLETION 'git garchive --form completes to --format=' '
	cd repo &&
	run_completion git "git garchive --form" >actual &&
	expect "--format=" &&
	test_cmp expect actual
'

test_expect_success BASH,BASH_COMPLETION,GIT_COMPLETION 'git garchive with bash-completion' '
	cd repo &&
	run_completion "bc git" "git garchive --form" >actual &&
	expect "--format=" &&
	test_cmp expect actual
'

test_expect_success BASH 'option names' '
	cd repo &&
	run_completion "" "garchive --wor" >actual &&
	expect "--worktree-attributes " &&
	test_cmp expect actual &&
	run_completion "" "garchive --add" >actual &&
	expect "--add-file=" "--add-virtual-file=" &&
	test_cmp expect actual &&
	run_completion "" "garchive --no-p" >actual &&
	expect "--no-prefix " "--no-progress " &&
	test_cmp expect actual
'

test_expect_success BASH 'format names come from garchive --list' '
	cd repo &&
	garchive --list >formats &&
	sed "s/\$/ |/" formats >expect &&
	run_completion "" "garchive --format=" >actual &&
	test_cmp expect actual &&
	git config tar.tar.xz.command "xz -c" &&
	run_completion "" "garchive --format=tar." >actual &&
	expect "tar.gz " "tar.xz " &&
	test_cmp expect actual &&
	run_completion "" "garchive --format t" >actual &&
	expect "tar " "tgz " "tar.gz " "tar.xz " &&
	test_cmp expect actual
'

test_expect_success BASH,GIT_COMPLETION 'format names for git garchive' '
	cd repo &&
	run_completion git "git garchive --format=z" >actual &&
	expect "zip " &&
	test_cmp expect actual
'

test_expect_success BASH 'refs for the tree-ish' '
	cd repo &&
	run_completion "" "garchive --prefix=p/ " >actual &&
	expect "HEAD " "main " "topic " "v1.0 " &&
	test_cmp expect actual &&
	run_completion "" "garchive " >actual &&
	expect "help " "upload-archive " "get-tar-commit-id " "verify " "gzip " \
		"HEAD " "main " "topic " "v1.0 " &&
	test_cmp expect actual &&
	run_completion "" "garchive t" >actual &&
	expect "topic " &&
	test_cmp expect actual
'

test_expect_success BASH,GIT_COMPLETION 'refs for git garchive' '
	cd repo &&
	run_completion git "git garchive -v v" >actual &&
	expect "v1.0 " &&
	test_cmp expect actual
'

test_expect_success BASH 'paths inside <ref>:' '
	cd repo &&
	run_completion "" "garchive HEAD:d" >actual &&
	expect "dir/" &&
	test_cmp expect actual &&
	run_completion "" "garchive v1.0:dir/" >actual &&
	expect "dir/b.txt " "dir/sub/" &&
	test_cmp expect actual
'

test_expect_success BASH 'paths of the tree-ish for pathspecs' '
	cd repo &&
	run_completion "" "garchive HEAD " >actual &&
	expect "a.txt " "dir/" &&
	test_cmp expect actual &&
	run_completion "" "garchive --format=zip HEAD dir/" >actual &&
	expect "dir/b.txt " "dir/sub/" &&
	test_cmp expect actual &&
	run_completion "" "garchive v1.0 -- dir/s" >actual &&
	expect "dir/sub/" &&
	test_cmp expect actual
'

test_expect_success BASH 'paths are relative to a subdirectory' '
	cd repo/dir &&
	run_completion "" "garchive HEAD " >actual &&
	expect "b.txt " "sub/" &&
	test_cmp expect actual
'

test_expect_success BASH,GIT_COMPLETION 'paths for git garchive' '
	cd repo &&
	run_completion git "git garchive HEAD dir/s" >actual &&
	expect "dir/sub/" &&
	test_cmp expect actual
'

test_expect_success BASH 'remote names' '
	cd repo &&
	run_completion "" "garchive --remote=u" >actual &&
	expect "upstream " &&
	test_cmp expect actual &&
	run_completion "" "garchive --remote " >actual &&
	expect "origin " "upstream " &&
	test_cmp expect actual
'

test_expect_success BASH 'file arguments are left to bash' '
	cd repo &&
	run_completion "" "garchive -o " >actual &&
	test_must_be_empty actual &&
	run_completion "" "garchive --add-file=" >actual &&
	test_must_be_empty actual &&
	run_completion "" "garchive --prefix=" >actual &&
	test_must_be_empty actual
'

test_expect_success BASH 'garchive options and subcommands come first' '
	cd repo &&
	run_completion "" "garchive -c " >actual &&
	grep "^tar.umask=|\$" actual &&
	run_completion "" "garchive -c tar.umask=022 --ver" >actual &&
	expect "--verbose " "--version " &&
	test_cmp expect actual &&
	run_completion "" "garchive -c tar.umask=022 g" >actual &&
	expect "get-tar-commit-id " "gzip " &&
	test_cmp expect actual &&
	run_completion "" "garchive HEAD --ver" >actual &&
	expect "--verbose " &&
	test_cmp expect actual &&
	run_completion "" "garchive --att" >actual &&
	expect "--attr-source=" &&
	test_cmp expect actual &&
	run_completion "" "garchive --attr-source " >actual &&
	expect "HEAD " "main " "topic " "v1.0 " &&
	test_cmp expect actual &&
	run_completion "" "garchive --attr-source v1.0 -c x.y=z g" >actual &&
	expect "get-tar-commit-id " "gzip " &&
	test_cmp expect actual &&
	run_completion "" "garchive --attr-source=v1.0 --ver" >actual &&
	expect "--verbose " "--version " &&
	test_cmp expect actual
'

test_expect_success BASH '--recurse-submodules and its value' '
	cd repo &&
	run_completion "" "garchive --recurse" >actual &&
	expect "--recurse-submodules " "--recurse-submodules=" &&
	test_cmp expect actual &&
	run_completion "" "garchive --recurse-submodules=" >actual &&
	expect "skip-missing " &&
	test_cmp expect actual
'

test_expect_success BASH '--progress and --no-progress' '
	cd repo &&
	run_completion "" "garchive --prog" >actual &&
	expect "--progress " &&
	test_cmp expect actual &&
	run_completion "" "garchive --no-prog" >actual &&
	expect "--no-progress " &&
	test_cmp expect actual
'

test_expect_success BASH 'garchive verify: options, file, tree-ish, paths' '
	cd repo &&
	run_completion "" "garchive ve" >actual &&
	expect "verify " &&
	test_cmp expect actual &&
	run_completion "" "garchive verify --d" >actual &&
	expect "--digest " &&
	test_cmp expect actual &&
	run_completion "" "garchive verify --no-" >actual &&
	expect "--no-progress " &&
	test_cmp expect actual &&
	run_completion "" "garchive verify --format=tg" >actual &&
	expect "tgz " &&
	test_cmp expect actual &&
	run_completion "" "garchive verify " >actual &&
	test_must_be_empty actual &&
	run_completion "" "garchive verify x.tgz v1" >actual &&
	expect "v1.0 " &&
	test_cmp expect actual &&
	run_completion "" "garchive verify --digest x.tgz v1.0 di" >actual &&
	expect "dir/" &&
	test_cmp expect actual
'

test_expect_success BASH,GIT_COMPLETION 'git garchive has no garchive-only options' '
	cd repo &&
	run_completion git "git garchive --ver" >actual &&
	expect "--verbose " &&
	test_cmp expect actual &&
	run_completion git "git garchive " >actual &&
	expect "HEAD " "main " "topic " "v1.0 " &&
	test_cmp expect actual
'

test_done

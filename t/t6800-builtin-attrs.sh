#!/bin/sh
test_description='builtin_* attribute names and builtin_objectmode (git 2.44)'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-attr.sh"

# git 2.44 (2232a88ab6) keeps the names starting with "builtin_" for
# values it computes: a .gitattributes line setting one, or defining a
# macro so named, is refused whole, and builtin_objectmode is the mode
# of the entry, for :(attr:) pathspecs.  git 2.39.5 knows nothing of it,
# so the expected lines and lists below are what git 2.55.0 gave; a git
# of 2.44 or later is also compared with directly.

test_lazy_prereq GIT_2_44 '
	case "$GIT_VERSION" in
	2.[0-9].*|2.[0-3][0-9].*|2.4[0-3].*|1.*|"") false ;;
	esac
'

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir d &&
	echo a >a &&
	echo y >d/y &&
	echo z >d/z &&
	printf "#!/bin/sh\n" >x.sh &&
	chmod +x x.sh &&
	ln -s a l &&
	cat >.gitattributes <<-\EOF &&
	a export-ignore builtin_foo
	d/y export-ignore
	d/z export-ignore builtin_objectmode=100644
	[attr]builtin_m export-ignore
	l builtin_m
	EOF
	git add . &&
	git update-index --add \
		--cacheinfo 160000,$(test_oid_hex 1),sm &&
	test_commit builtin a a &&
	cat >../warnings <<-\EOF
	builtin_foo is not a valid attribute name: .gitattributes:1
	builtin_objectmode is not a valid attribute name: .gitattributes:3
	builtin_m is not a valid attribute name: .gitattributes:4
	builtin_m is not a valid attribute name: .gitattributes:5
	EOF
'

test_expect_success 'a line naming a builtin_ attribute is dropped whole' '
	cd repo &&
	garchive HEAD >out.tar 2>err &&
	cat ../warnings ../warnings >expect &&
	test_cmp expect err &&
	archive_list out.tar >list &&
	cat >expect <<-\EOF &&
	.gitattributes
	a
	d/
	d/z
	l
	sm/
	x.sh
	EOF
	test_cmp expect list
'

# one_mode MODE [OPTION...]: the entries :(attr:builtin_objectmode=MODE)
# selects, in "list", the warnings left out of "err".
one_mode () {
	mode=$1 &&
	shift &&
	garchive "$@" HEAD ":(attr:builtin_objectmode=$mode)" >out.tar 2>err.all &&
	{ grep -v "is not a valid attribute name" err.all >err || :; } &&
	test_must_be_empty err &&
	archive_list out.tar >list
}

test_expect_success 'builtin_objectmode is the mode in the archived tree' '
	cd repo &&
	one_mode 100644 &&
	printf "%s\n" .gitattributes a d/ d/z >expect &&
	test_cmp expect list &&
	one_mode 100755 &&
	echo x.sh >expect &&
	test_cmp expect list &&
	one_mode 120000 &&
	echo l >expect &&
	test_cmp expect list &&
	one_mode 160000 &&
	echo sm/ >expect &&
	test_cmp expect list
'

test_expect_success 'no tree has one; other builtin_ names are unspecified' '
	cd repo &&
	test_expect_code 128 garchive HEAD ":(attr:builtin_objectmode=040000)" \
		>out 2>err.all &&
	{ grep -v "is not a valid attribute name" err.all >err || :; } &&
	echo "fatal: pathspec '"'"':(attr:builtin_objectmode=040000)'"'"' did not match any files" \
		>expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	test_expect_code 128 garchive HEAD ":(attr:builtin_foo)" 2>err.all &&
	garchive HEAD ":(attr:!builtin_foo)" >out.tar &&
	garchive HEAD >all.tar &&
	test_cmp all.tar out.tar
'

test_expect_success '--worktree-attributes: the mode in the work tree' '
	cd repo &&
	test_when_finished "rmdir sm; chmod +x x.sh; git checkout -q -- a" &&
	test_expect_code 128 garchive --worktree-attributes HEAD \
		":(attr:builtin_objectmode=100755)" >out 2>err.all &&
	{ grep -v "is not a valid attribute name" err.all >err || :; } &&
	echo "fatal: unable to stat '"'"'sm'"'"': No such file or directory" >expect &&
	test_cmp expect err &&
	mkdir sm &&
	chmod -x x.sh &&
	one_mode 100644 --worktree-attributes &&
	printf "%s\n" .gitattributes a d/ d/z x.sh >expect &&
	test_cmp expect list &&
	one_mode 040000 --worktree-attributes &&
	echo sm/ >expect &&
	test_cmp expect list &&
	test_expect_code 128 garchive --worktree-attributes HEAD \
		":(attr:builtin_objectmode=100755)" 2>err.all &&
	rm a &&
	test_expect_code 128 garchive --worktree-attributes HEAD \
		":(attr:builtin_objectmode=100644)" 2>err.all &&
	{ grep -v "is not a valid attribute name" err.all >err || :; } &&
	echo "fatal: unable to stat '"'"'a'"'"': No such file or directory" >expect &&
	test_cmp expect err
'

# git archive has no --recurse-submodules: inside a submodule the mode
# is the submodule's entry's, whose tree the superproject's lacks.
test_expect_success '--recurse-submodules: modes inside a submodule' '
	git init -q inner &&
	(
		cd inner &&
		printf "#!/bin/sh\n" >run &&
		chmod +x run &&
		ln -s run link &&
		git add . &&
		test_commit inner
	) &&
	git init -q outer &&
	cd outer &&
	git -c protocol.file.allow=always submodule -q add ../inner inner &&
	test_commit outer &&
	garchive --recurse-submodules HEAD \
		":(attr:builtin_objectmode=120000)" >out.tar &&
	archive_list out.tar >list &&
	printf "%s\n" inner/ inner/link >expect &&
	test_cmp expect list &&
	garchive --recurse-submodules HEAD \
		":(attr:builtin_objectmode=100755)" >out.tar &&
	archive_list out.tar >list &&
	printf "%s\n" inner/ inner/run >expect &&
	test_cmp expect list
'

test_expect_success GIT_2_44 'the same as git 2.44 and later' '
	cd repo &&
	test_same_as_git HEAD &&
	for m in 100644 100755 120000 160000 040000; do
		test_same_as_git HEAD ":(attr:builtin_objectmode=$m)" &&
		test_same_as_git --format=zip HEAD \
			":(attr:builtin_objectmode=$m)" || return 1
	done
'

test_done

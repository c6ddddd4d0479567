#!/bin/sh
test_description='attribute source: --attr-source, GIT_ATTR_SOURCE, attr.tree'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-attr.sh"

# git 2.41 added the global option --attr-source=<tree> and
# GIT_ATTR_SOURCE, git 2.43 the attr.tree setting (2.43 to 2.45 also read
# a bare repository's HEAD by default; 2.46 stopped).  git archive reads
# the archived tree's attributes from an index, which no source changes:
# a source stands in for the work tree's files, i.e. it matters with
# --worktree-attributes.  A name that does not resolve is fatal at the
# first attribute lookup (attr.tree: ignored).  git 2.39 knows none of
# this, so most tests assert garchive's output directly; the comparisons
# with git are of cases where every git since 2.39 (but 2.43 to 2.45 in
# a bare repository) answers the same.
#
# HEAD~1's attributes leave out "a" and mark "b", HEAD's leave out "b",
# the work tree's leave out and mark "c".

# list ARGS...: the names garchive archives, sorted.
list () {
	garchive "$@" >out.tar &&
	archive_list out.tar | sort
}

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	for f in a b c; do echo "$f" >"$f" || return 1; done &&
	printf "a export-ignore\nb mark\n" >.gitattributes &&
	git add . &&
	test_tick &&
	git commit -q -m one &&
	echo "b export-ignore" >.gitattributes &&
	test_tick &&
	git commit -q -a -m two &&
	printf "c export-ignore\nc mark\n" >.gitattributes &&
	printf ".gitattributes\na\nb\n" >../worktree.list &&
	printf ".gitattributes\nb\nc\n" >../one.list &&
	printf ".gitattributes\na\nc\n" >../two.list
'

test_expect_success 'without a source: the index, or the work tree' '
	cd repo &&
	list HEAD >actual &&
	test_cmp ../two.list actual &&
	list --worktree-attributes HEAD >actual &&
	test_cmp ../worktree.list actual
'

test_expect_success 'GIT_ATTR_SOURCE stands in for the work tree' '
	cd repo &&
	GIT_ATTR_SOURCE=HEAD~1 list --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	GIT_ATTR_SOURCE=HEAD list --worktree-attributes HEAD~1 >actual &&
	test_cmp ../two.list actual &&
	tree=$(git rev-parse HEAD~1^{tree}) &&
	GIT_ATTR_SOURCE=$tree list --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	GIT_ATTR_SOURCE=HEAD~1 list --worktree-attributes --format=tar \
		HEAD >actual &&
	test_cmp ../one.list actual
'

test_expect_success 'zip too' '
	cd repo &&
	GIT_ATTR_SOURCE=HEAD~1 garchive --worktree-attributes --format=zip \
		HEAD >out.zip &&
	unzip -Z1 out.zip | sort >actual &&
	test_cmp ../one.list actual
'

test_expect_success '--attr-source, both spellings, sets GIT_ATTR_SOURCE' '
	cd repo &&
	list --attr-source=HEAD~1 --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	list --attr-source HEAD~1 --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	list -c core.abbrev=12 --attr-source HEAD~1 -c core.abbrev=10 \
		--worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	GIT_ATTR_SOURCE=HEAD list --attr-source=HEAD~1 \
		--worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	cat >filter <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	printf "%s\n" "$GIT_ATTR_SOURCE"
	EOF
	chmod +x filter &&
	garchive -c tar.src.command="$PWD/filter" --attr-source=HEAD~1 \
		--format=src HEAD >actual &&
	echo HEAD~1 >expect &&
	test_cmp expect actual
'

test_expect_success '--attr-source without a value' '
	cd repo &&
	test_expect_code 129 garchive --attr-source >out 2>err &&
	test_must_be_empty out &&
	echo "error: no attribute source given for --attr-source" >expect &&
	test_cmp expect err
'

test_expect_success 'attr.tree, below GIT_ATTR_SOURCE' '
	cd repo &&
	list -c attr.tree=HEAD~1 --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	git config attr.tree HEAD~1 &&
	test_when_finished "git config --unset attr.tree" &&
	list --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	GIT_ATTR_SOURCE=HEAD list --worktree-attributes HEAD~1 >actual &&
	test_cmp ../two.list actual
'

test_expect_success 'attr.tree naming nothing is ignored' '
	cd repo &&
	list -c attr.tree=nosuchref --worktree-attributes HEAD >actual &&
	test_cmp ../worktree.list actual &&
	list -c attr.tree= --worktree-attributes HEAD >actual &&
	test_cmp ../worktree.list actual
'

test_expect_success 'attr.tree without a value is fatal, before anything' '
	cd repo &&
	test_expect_code 128 garchive -c attr.tree --list >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	error: missing value for '"'"'attr.tree'"'"'
	fatal: unable to parse '"'"'attr.tree'"'"' from command-line config
	EOF
	test_cmp expect err &&
	cp .git/config config.saved &&
	test_when_finished "cp config.saved .git/config" &&
	printf "[attr]\n\ttree\n" >>.git/config &&
	line=$(wc -l <.git/config) &&
	test_expect_code 128 garchive HEAD >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-EOF &&
	error: missing value for '"'"'attr.tree'"'"'
	fatal: bad config variable '"'"'attr.tree'"'"' in file '"'"'.git/config'"'"' at line $line
	EOF
	test_cmp expect err
'

test_expect_success 'a source that does not resolve is fatal' '
	cd repo &&
	echo "fatal: bad --attr-source or GIT_ATTR_SOURCE" >expect &&
	for src in nosuchref HEAD~9 HEAD:nosuchfile ""; do
		test_expect_code 128 env GIT_ATTR_SOURCE="$src" \
			garchive HEAD >out 2>err &&
		test_must_be_empty out &&
		test_cmp expect err || return 1
	done &&
	test_expect_code 128 garchive --attr-source=nosuchref \
		--worktree-attributes --format=zip HEAD >out 2>err &&
	test_must_be_empty out &&
	test_cmp expect err &&
	test_expect_code 128 garchive --attr-source=nosuchref \
		-o new.tar HEAD 2>err &&
	test_cmp expect err &&
	test_path_is_missing new.tar
'

test_expect_success 'but only at the first attribute lookup' '
	cd repo &&
	empty=$(git mktree </dev/null) &&
	garchive $empty >expect &&
	GIT_ATTR_SOURCE=nosuchref garchive $empty >actual &&
	test_cmp expect actual &&
	test_expect_code 128 env GIT_ATTR_SOURCE=nosuchref \
		garchive HEAD nosuchpath >out 2>err &&
	echo "fatal: pathspec '"'"'nosuchpath'"'"' did not match any files" \
		>expect &&
	test_cmp expect err
'

test_expect_success 'a source that names a blob has no attributes' '
	cd repo &&
	GIT_ATTR_SOURCE=HEAD:a list --worktree-attributes HEAD >actual &&
	printf ".gitattributes\na\nb\nc\n" >expect &&
	test_cmp expect actual
'

test_expect_success ':(attr:) pathspecs see the source too' '
	cd repo &&
	GIT_ATTR_SOURCE=HEAD~1 list --worktree-attributes HEAD \
		":(attr:mark)" >actual &&
	echo b >expect &&
	test_cmp expect actual
'

test_expect_success 'without --worktree-attributes a good source changes nothing' '
	cd repo &&
	(
		GIT_ATTR_SOURCE=HEAD~1 &&
		export GIT_ATTR_SOURCE &&
		test_same_as_git HEAD &&
		test_same_as_git --format=zip HEAD
	) &&
	(
		GIT_CONFIG_PARAMETERS=$(config_param attr.tree HEAD~1) &&
		export GIT_CONFIG_PARAMETERS &&
		test_same_as_git HEAD
	)
'

test_expect_success 'bare repository: no attributes from HEAD by default' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	test_same_as_git HEAD &&
	test_same_as_git --worktree-attributes HEAD &&
	list --worktree-attributes HEAD >actual &&
	printf ".gitattributes\na\nb\nc\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'bare repository: attr.tree and GIT_ATTR_SOURCE' '
	cd bare.git &&
	list -c attr.tree=HEAD~1 --worktree-attributes HEAD >actual &&
	test_cmp ../one.list actual &&
	GIT_ATTR_SOURCE=HEAD list --worktree-attributes HEAD~1 >actual &&
	test_cmp ../two.list actual &&
	list -c attr.tree=HEAD~1 HEAD >actual &&
	test_cmp ../two.list actual
'

test_expect_success 'a local upload-archive inherits the source' '
	cd repo &&
	test_expect_code 1 env GIT_ATTR_SOURCE=nosuchref garchive \
		--remote=. --exec="garchive upload-archive" HEAD >out 2>err &&
	test_must_be_empty out &&
	grep "^remote: fatal: bad --attr-source or GIT_ATTR_SOURCE" err &&
	GIT_ATTR_SOURCE=HEAD~1 garchive --remote=. \
		--exec="garchive upload-archive" --worktree-attributes \
		HEAD >out.tar &&
	archive_list out.tar | sort >actual &&
	test_cmp ../one.list actual
'

# A git that knows all of it (2.46 or later, e.g. Debian 13's 2.47)
# gives the same bytes, statuses and messages.
test_lazy_prereq GIT_2_46 '
	case "$GIT_VERSION" in
	2.[0-9].*|2.[0-3][0-9].*|2.4[0-5].*|1.*|"") false ;;
	esac
'

test_expect_success GIT_2_46 'the same as git 2.46 and later' '
	cd repo &&
	test_same_as_git --worktree-attributes HEAD &&
	for src in HEAD~1 HEAD:a nosuchref ""; do
		(
			GIT_ATTR_SOURCE=$src &&
			export GIT_ATTR_SOURCE &&
			test_same_as_git --worktree-attributes HEAD &&
			test_same_as_git --format=zip --worktree-attributes \
				HEAD ":(attr:mark)"
		) || return 1
	done &&
	for tree in HEAD~1 nosuchref ""; do
		(
			GIT_CONFIG_PARAMETERS=$(config_param attr.tree "$tree") &&
			export GIT_CONFIG_PARAMETERS &&
			test_same_as_git --worktree-attributes HEAD
		) || return 1
	done &&
	cd ../bare.git &&
	test_same_as_git --worktree-attributes HEAD &&
	GIT_CONFIG_PARAMETERS=$(config_param attr.tree HEAD~1) &&
	export GIT_CONFIG_PARAMETERS &&
	test_same_as_git --worktree-attributes HEAD
'

test_done

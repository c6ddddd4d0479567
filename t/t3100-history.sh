#!/bin/sh
test_description='every commit of this repository archives as git archives it'
. "$(dirname "$0")/lib.sh"

if ! git -C "$GARCHIVE_SRC" rev-parse --git-dir >/dev/null 2>&1; then
	test_skip_all 'the sources are not a git checkout'
fi

test_expect_success 'list the commits of this repository' '
	git -C "$GARCHIVE_SRC" rev-list --all >commits &&
	test -s commits
'

# Run both tools in the source repository itself: its own configuration
# and attributes apply to both.
compare_all () {
	while read commit; do
		(cd "$GARCHIVE_SRC" && git archive "$@" $commit) >expect &&
		(cd "$GARCHIVE_SRC" && garchive "$@" $commit) >actual &&
		cmp -s expect actual || {
			echo "differs: $commit $*"
			return 1
		}
	done <commits
}

test_expect_success 'tar of every commit' '
	compare_all --format=tar
'

test_expect_success 'tar with a prefix of every commit' '
	compare_all --format=tar --prefix=garchive/
'

test_expect_success 'zip of every commit' '
	compare_all --format=zip
'

test_expect_success GZIP 'tgz of every commit (gzip -cn)' '
	while read commit; do
		(cd "$GARCHIVE_SRC" &&
		 git -c tar.tgz.command="gzip -cn" archive --format=tgz $commit) >expect &&
		(cd "$GARCHIVE_SRC" && garchive --format=tgz $commit) >actual &&
		cmp -s expect actual || return 1
	done <commits
'

test_done

#!/bin/sh
test_description='the commits of this repository archive as git archives them'
. "$(dirname "$0")/lib.sh"

if ! git -C "$GARCHIVE_SRC" rev-parse --git-dir >/dev/null 2>&1; then
	test_skip_all 'the sources are not a git checkout'
fi

# Which commits: a neighbour differs from a commit by a few files'
# contents, which the tree of any commit exercises as well, while the
# whole history cost minutes of CPU and grows with every merge.  So
# each test takes every 8th commit of `rev-list --all`, from its own
# offset (the four together see one commit in two), and every test
# takes the edges: the root commits, the tips of the branches, and the
# last commit before a path was deleted or changed its type (its name or
# kind is in no later tree).
test_expect_success 'list the commits of this repository' '
	src() { git -C "$GARCHIVE_SRC" "$@"; } &&
	src rev-list --all >commits &&
	test -s commits &&
	{
		src rev-list --all --max-parents=0 &&
		src for-each-ref --format="%(objectname)" refs/heads &&
		src log --all --no-renames --diff-filter=DT --format=%P
	} | tr " " "\n" | sed "/^$/d" | sort -u >edges &&
	test -s edges
'

# sampled OFFSET: the commits one test compares (see above).
sampled () {
	awk -v at="$1" 'NR % 8 == at' commits | sort -u - edges
}

# Run both tools in the source repository itself: its own configuration
# and attributes apply to both.
compare_all () {
	sampled "$1" >sample &&
	shift &&
	while read commit; do
		(cd "$GARCHIVE_SRC" && git archive "$@" $commit) >expect &&
		(cd "$GARCHIVE_SRC" && garchive "$@" $commit) >actual &&
		cmp -s expect actual || {
			echo "differs: $commit $*"
			return 1
		}
	done <sample
}

test_expect_success 'tar of a sample of the commits' '
	compare_all 0 --format=tar
'

# The other formats are EXPENSIVE: under the sanitizers and valgrind,
# the tar test above is this history's share, and t3000, t4000 and
# t5300 run the zip and tgz writers.
test_expect_success EXPENSIVE 'tar with a prefix of a sample of the commits' '
	compare_all 2 --format=tar --prefix=garchive/
'

test_expect_success EXPENSIVE 'zip of a sample of the commits' '
	compare_all 4 --format=zip
'

test_expect_success GZIP,EXPENSIVE 'tgz of a sample of the commits (gzip -cn)' '
	sampled 6 >sample &&
	while read commit; do
		(cd "$GARCHIVE_SRC" &&
		 git -c tar.tgz.command="gzip -cn" archive --format=tgz $commit) >expect &&
		(cd "$GARCHIVE_SRC" && garchive --format=tgz $commit) >actual &&
		cmp -s expect actual || return 1
	done <sample
'

test_done

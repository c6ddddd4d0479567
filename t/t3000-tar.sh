#!/bin/sh
test_description='tar output is byte-identical to git archive'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record

# make_long NAME-CHAR LENGTH: a string of LENGTH copies of a character.
make_long () {
	printf "%$2s" "" | tr ' ' "$1"
}

test_expect_success 'setup: a tree with every kind of entry' '
	git init -q repo &&
	cd repo &&
	echo hello >hello.txt &&
	printf "#!/bin/sh\necho hi\n" >run.sh &&
	chmod +x run.sh &&
	: >empty &&
	printf "\000\001\002binary" >binary.bin &&
	mkdir -p a/b/c &&
	echo deep >a/b/c/deep.txt &&
	ln -s hello.txt link &&
	ln -s "$(make_long t 100)" link100 &&
	ln -s "$(make_long t 101)" link101 &&
	echo 99 >"$(make_long n 99)" &&
	echo 100 >"$(make_long m 100)" &&
	echo 101 >"$(make_long o 101)" &&
	p100=$(make_long p 100) &&
	mkdir -p "$p100/$(make_long q 99)" &&
	echo split >"$p100/$(make_long q 99)/f" &&
	a99=$(make_long a 99) && b55=$(make_long b 55) &&
	mkdir -p "$a99/$b55" &&
	echo nosplit >"$a99/$b55/$(make_long c 100)" &&
	mkdir -p "$a99/$(make_long d 54)" &&
	echo split154 >"$a99/$(make_long d 54)/$(make_long e 100)" &&
	printf "caf\303\251" >"caf$(printf "\303\251")" &&
	git add . &&
	git update-index --add --cacheinfo 160000,$(test_oid_hex 1),modules/lib &&
	test_tick &&
	git commit -q -m initial &&
	git tag -a -m "annotated" v1.0 &&
	git tag light &&
	echo more >>hello.txt &&
	test_tick &&
	git commit -q -a -m second
'

test_expect_success 'HEAD' '
	cd repo &&
	test_same_as_git --format=tar HEAD
'

test_expect_success 'default format is tar' '
	cd repo &&
	test_same_as_git HEAD
'

test_expect_success 'an annotated tag, a lightweight tag, HEAD~1' '
	cd repo &&
	test_same_as_git v1.0 &&
	test_same_as_git light &&
	test_same_as_git HEAD~1
'

test_expect_success 'the pax global header carries the commit id' '
	cd repo &&
	garchive HEAD >out.tar &&
	git get-tar-commit-id <out.tar >id &&
	git rev-parse HEAD >expect &&
	test_cmp expect id
'

test_expect_success '--prefix variants' '
	cd repo &&
	test_same_as_git --prefix=p/ HEAD &&
	test_same_as_git --prefix=p// HEAD &&
	test_same_as_git --prefix=p HEAD &&
	test_same_as_git --prefix=a/b/c/ HEAD &&
	test_same_as_git --prefix=/ HEAD &&
	test_same_as_git --prefix=../up/ HEAD &&
	test_same_as_git --prefix="$(make_long x 91)/" HEAD
'

test_expect_success 'tar.umask values' '
	cd repo &&
	for mask in 022 0 18 0x12 077 1k; do
		git config tar.umask $mask &&
		test_same_as_git HEAD || return 1
	done &&
	git config tar.umask user &&
	(umask 027 && test_same_as_git HEAD) &&
	git config --unset tar.umask
'

# git applies tar.umask to the whole mode and decides from the result
# whether the entry has data: with the file-type bits cleared, a file is
# an entry of size 0 without data.  Zip ignores tar.umask.
test_expect_success 'tar.umask with file-type bits: git'"'"'s bytes, a valid tar' '
	cd repo &&
	for mask in 0100000 0170000 0040000 0120000 -1 -0100000 \
		2147483647 0x8000
	do
		git config tar.umask $mask &&
		test_same_as_git HEAD &&
		tar tf actual.out >/dev/null 2>tar.err &&
		test_must_be_empty tar.err &&
		test_same_as_git --format=zip HEAD &&
		git config core.bigfilethreshold 1 &&
		test_same_as_git HEAD &&
		git config --unset core.bigfilethreshold || return 1
	done &&
	git config --unset tar.umask
'

test_expect_success 'a bad tar.umask fails as in git' '
	cd repo &&
	git config tar.umask bogus &&
	test_same_as_git HEAD &&
	test_same_as_git --list &&
	git config --unset tar.umask
'

test_expect_success 'legacy modes are canonicalised' '
	cd repo &&
	blob=$(echo legacy | git hash-object -w --stdin) &&
	tree=$(printf "100664 blob %s\tg664\n100600 blob %s\tg600\n100700 blob %s\tg700\n" \
		$blob $blob $blob | git mktree) &&
	commit=$(echo legacy | git commit-tree $tree) &&
	test_same_as_git $commit
'

test_expect_success 'empty trees are never written' '
	cd repo &&
	empty=$(git mktree </dev/null) &&
	inner=$(printf "040000 tree %s\tinner\n" $empty | git mktree) &&
	blob=$(echo x | git hash-object -w --stdin) &&
	tree=$(printf "040000 tree %s\tnest\n040000 tree %s\tempty\n100644 blob %s\tz\n" \
		$inner $empty $blob | git mktree) &&
	commit=$(echo empties | git commit-tree $tree) &&
	test_same_as_git $commit &&
	onlyempty=$(echo e | git commit-tree $inner) &&
	test_same_as_git $onlyempty &&
	garchive $onlyempty >out.tar &&
	test $(wc -c <out.tar) = 10240
'

test_expect_success 'an empty tree with --prefix still gets the prefix entry' '
	cd repo &&
	empty=$(git mktree </dev/null) &&
	commit=$(echo e | git commit-tree $empty) &&
	test_same_as_git --prefix=only/ $commit
'

test_expect_success 'a commit dated beyond 077777777777 gets a pax mtime' '
	cd repo &&
	tree=$(git rev-parse HEAD^{tree}) &&
	commit=$(GIT_COMMITTER_DATE="@68719476737 +0000" git commit-tree -m future $tree) &&
	test_same_as_git $commit
'

test_expect_success 'a commit dated before the epoch of DOS' '
	cd repo &&
	tree=$(git rev-parse HEAD^{tree}) &&
	commit=$(GIT_COMMITTER_DATE="315532799 +0000" git commit-tree -m old $tree) &&
	test_same_as_git $commit
'

test_expect_success 'pathspecs: file, directory, trailing slash, glob' '
	cd repo &&
	test_same_as_git HEAD hello.txt &&
	test_same_as_git HEAD a &&
	test_same_as_git HEAD a/ &&
	test_same_as_git HEAD "*.txt" &&
	test_same_as_git HEAD a/b/c/deep.txt hello.txt &&
	test_same_as_git HEAD -- run.sh &&
	test_same_as_git HEAD modules/lib
'

test_expect_success 'pathspec errors' '
	cd repo &&
	test_same_as_git HEAD nosuch &&
	test_same_as_git HEAD hello.txt nosuch &&
	test_same_as_git HEAD ""
'

test_expect_success 'a big blob above core.bigFileThreshold is streamed' '
	cd repo &&
	python3 -c "import random, sys; sys.stdout.buffer.write(random.Random(17).randbytes(300 * 1024))" >big.bin &&
	git add big.bin &&
	test_tick &&
	git commit -q -m big &&
	git config core.bigFileThreshold 100k &&
	test_same_as_git HEAD &&
	git repack -adq &&
	test_same_as_git HEAD &&
	git config --unset core.bigFileThreshold
'

test_expect_success 'extra files: --add-file and --add-virtual-file' '
	cd repo &&
	echo untracked >u.txt &&
	test_same_as_git --add-file=u.txt HEAD &&
	test_same_as_git --prefix=one/ --add-file=u.txt --prefix=two/ --add-file=u.txt --prefix= HEAD &&
	test_same_as_git --add-virtual-file=v/virtual.txt:content HEAD &&
	test_same_as_git --add-virtual-file="$(make_long v 120):x" HEAD
'

test_expect_success '-o writes the same bytes and infers the format' '
	cd repo &&
	git archive -o expect.tar HEAD &&
	garchive -o actual.tar HEAD &&
	test_cmp expect.tar actual.tar
'

test_done

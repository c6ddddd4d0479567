#!/bin/sh
test_description='tree-ish forms, archive time and where garchive runs'
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup' '
	git init -q repo &&
	cd repo &&
	mkdir -p sub/inner other &&
	echo top >top.txt &&
	echo s >sub/s.txt &&
	echo i >sub/inner/i.txt &&
	echo o >other/o.txt &&
	git add . &&
	test_tick &&
	git commit -q -m one &&
	git tag -a -m "v1" v1.0 &&
	git tag -a -m "tag of a tag" nested v1.0 &&
	git tag tree-tag HEAD^{tree} &&
	git tag blob-tag HEAD:top.txt &&
	echo two >>top.txt &&
	test_tick &&
	git commit -q -a -m two
'

test_expect_success 'commits by every name' '
	cd repo &&
	test_same_as_git HEAD &&
	test_same_as_git main &&
	test_same_as_git refs/heads/main &&
	test_same_as_git HEAD~1 &&
	test_same_as_git $(git rev-parse --short HEAD) &&
	test_same_as_git $(git rev-parse HEAD)
'

test_expect_success 'tags: annotated, lightweight, tag of a tag' '
	cd repo &&
	test_same_as_git v1.0 &&
	test_same_as_git nested &&
	git tag light HEAD~1 &&
	test_same_as_git light
'

test_expect_success 'trees get the current time and no commit id' '
	cd repo &&
	test_same_as_git HEAD^{tree} &&
	test_same_as_git $(git rev-parse HEAD^{tree}) &&
	test_same_as_git tree-tag &&
	test_same_as_git HEAD:sub &&
	garchive HEAD^{tree} >tree.tar &&
	test_expect_code 1 git get-tar-commit-id <tree.tar
'

# The comparisons above hold on a busy machine because both tools read
# one frozen clock (t/clock.c), not because they ran in the same second:
# here they run seconds apart, and a tool that took "now" from anywhere
# but the clock would differ.
test_expect_success 'trees compare with git under one frozen clock' '
	cd repo &&
	test -n "$TEST_CLOCK_LIB" &&
	test_clock=1000000000 &&
	frozen git archive HEAD^{tree} >expect.tar &&
	sleep 2 &&
	frozen garchive HEAD^{tree} >actual.tar &&
	test_cmp expect.tar actual.tar &&
	TZ=UTC tar tvf actual.tar >listing &&
	grep " 2001-09-09 01:46 top.txt$" listing &&
	test_clock_start &&
	test "$test_clock" -gt 1000000000
'

test_expect_success 'errors: bad names, blobs, missing paths' '
	cd repo &&
	test_same_as_git nosuch &&
	test_same_as_git HEAD:nosuch &&
	test_same_as_git blob-tag &&
	test_same_as_git HEAD:top.txt
'

test_expect_success 'running from a subdirectory archives that subtree' '
	cd repo/sub &&
	test_same_as_git HEAD &&
	test_same_as_git --prefix=p/ HEAD &&
	test_same_as_git HEAD inner &&
	test_same_as_git HEAD~1
'

# git 2.39 fails ("current working directory is untracked"), 2.41 and
# later write an archive without entries; garchive follows the git on
# PATH.
test_expect_success 'a commit without the subdirectory: as the git on PATH' '
	cd repo &&
	tree=$(git mktree </dev/null) &&
	c=$(echo empty | git commit-tree $tree) &&
	cd sub &&
	test_same_as_git $c
'

test_expect_success 'a bare repository' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	test_same_as_git HEAD &&
	test_same_as_git v1.0
'

test_expect_success 'GIT_DIR and GIT_WORK_TREE' '
	mkdir elsewhere &&
	cd elsewhere &&
	(
		GIT_DIR=../repo/.git && export GIT_DIR &&
		test_same_as_git HEAD &&
		GIT_WORK_TREE=../repo && export GIT_WORK_TREE &&
		test_same_as_git HEAD
	) &&
	cd ../repo/sub &&
	(
		GIT_DIR=../.git && export GIT_DIR &&
		test_same_as_git HEAD
	)
'

test_expect_success 'outside a repository' '
	mkdir -p /tmp/garchive-norepo-$$ &&
	cd /tmp/garchive-norepo-$$ &&
	GIT_CEILING_DIRECTORIES=/tmp && export GIT_CEILING_DIRECTORIES &&
	test_same_as_git HEAD &&
	test_same_as_git --list &&
	cd / && rm -rf /tmp/garchive-norepo-$$
'

test_expect_success '--mtime sets the time of every entry (git 2.40+)' '
	cd repo &&
	garchive --mtime="2020-01-02 03:04:05 +0000" HEAD >m.tar &&
	tar tvf m.tar --full-time >list &&
	grep -c "2020-01-02 03:04:05" list >n &&
	test "$(cat n)" = "$(wc -l <list)" &&
	garchive --mtime=@1234567890 HEAD^{tree} >m2.tar &&
	tar tvf m2.tar --full-time >list2 &&
	grep -c "2009-02-13 23:31:30" list2 >n2 &&
	test "$(cat n2)" = "$(wc -l <list2)"
'

test_expect_success '--mtime keeps the commit id of a commit' '
	cd repo &&
	garchive --mtime=@1234567890 HEAD >m.tar &&
	git get-tar-commit-id <m.tar >id &&
	git rev-parse HEAD >expect &&
	test_cmp expect id
'

test_expect_success 'a --mtime garchive cannot read is an error' '
	cd repo &&
	test_expect_code 128 garchive --mtime="next blue moon" HEAD >out 2>err &&
	test_must_be_empty out &&
	grep "^fatal: invalid --mtime value" err
'

test_expect_success 'the time of odd commits is read as git reads it' '
	cd repo &&
	tree=$(git rev-parse HEAD^{tree}) &&
	printf "tree %s\ncommitter C <c> 1234567890 +0000\n\nno author\n" \
		$tree >no-author &&
	printf "tree %s\nauthor A <a> 5 +0000\ncommitter C <c> 77x +0000\n\nx\n" \
		$tree >trailing &&
	printf "tree %s\nauthor A <a> 5 +0000\ncommitter C <c>\n\nx\n" \
		$tree >no-date &&
	for f in no-author trailing no-date
	do
		c=$(git hash-object --literally -t commit -w $f) &&
		git archive $c >expect.tar &&
		garchive $c >actual.tar &&
		cmp expect.tar actual.tar || return 1
	done
'

test_expect_success 'export-subst %d: symbolic, dangling, packed refs as git' '
	git init -q deco &&
	cd deco &&
	echo "\$Format:%d|%D\$" >f &&
	echo "f export-subst" >.gitattributes &&
	git add . &&
	test_tick &&
	git commit -q -m one &&
	git tag light &&
	git tag -a -m ann ann &&
	git -c advice.nestedTag=false tag -a -m nested nested ann &&
	git update-ref refs/remotes/origin/main HEAD &&
	git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main &&
	git symbolic-ref refs/heads/dangle refs/heads/nowhere &&
	git branch other &&
	test_same_as_git HEAD &&
	tar xOf actual.out f >deco &&
	grep "HEAD -> " deco &&
	grep "tag: nested" deco &&
	git pack-refs --all &&
	test_same_as_git HEAD &&
	git symbolic-ref HEAD refs/heads/other &&
	test_same_as_git HEAD &&
	git checkout -q --detach &&
	test_same_as_git HEAD
'

# ":<path>" and ":<n>:<path>" name an entry of the index, read by
# garchive itself in either hash.  git 2.39 takes a path or a stage the
# index lacks, and a directory, for no name at all, and a file's blob
# is no tree; a gitlink names its commit, which here is one of the
# repository's, so that an archive comes out.
test_expect_success 'index: setup with stages, a gitlink and an i-t-a entry' '
	git init -q ix &&
	cd ix &&
	mkdir -p sub/dir &&
	echo top >top &&
	echo f >sub/dir/f &&
	git add . &&
	test_tick &&
	git commit -q -m one &&
	c=$(git rev-parse HEAD) &&
	git update-index --add --cacheinfo 160000,$c,link &&
	one=$(git rev-parse HEAD:top) &&
	two=$(git rev-parse HEAD:sub/dir/f) &&
	printf "100644 %s 1\tboth\n100644 %s 2\tboth\n160000 %s 3\tboth\n" \
		$one $two $c >stages &&
	git update-index --index-info <stages &&
	echo new >new &&
	git add -N new &&
	git ls-files -s >ls &&
	test $(wc -l <ls) -eq 7
'

index_names=":top :0:top :1:top :4:top :sub/dir :sub/dir/ :sub/dir/f
	:nosuch :link :0:link :1:both :2:both :3:both :0:both :new :: :0:"

for v in 2 3 4
do
	test_expect_success ":path and :n:path in an index of version $v" '
		cd ix &&
		git update-index --index-version $v &&
		# Version 2 has no extended flags: git writes 3 for i-t-a.
		want=$(test $v = 2 && echo 3 || echo $v) &&
		test "$(od -An -tu1 -j7 -N1 .git/index)" -eq $want &&
		for n in $index_names
		do
			test_same_as_git $n || return 1
		done
	'
done

test_expect_success 'index: ./ and ../ from a subdirectory' '
	cd ix/sub &&
	test_same_as_git :./dir/f &&
	test_same_as_git :../top &&
	test_same_as_git :../link &&
	test_same_as_git :../../out
'

test_expect_success 'index: no index is an empty one; GIT_INDEX_FILE' '
	cd ix &&
	mv .git/index saved &&
	test_same_as_git :top &&
	mv saved .git/index &&
	cp .git/index other &&
	(
		GIT_INDEX_FILE=other && export GIT_INDEX_FILE &&
		test_same_as_git :link &&
		cd sub &&
		test_same_as_git :link &&
		GIT_INDEX_FILE=nowhere &&
		test_same_as_git :link
	)
'

# index_body FILE: FILE without its trailing hash.
index_body () {
	head -c $(($(wc -c <"$1") - test_hexsz_ / 2)) "$1"
}

# index_sum: a trailing hash of zeros (git 2.39 checks it only in fsck).
index_sum () {
	head -c $((test_hexsz_ / 2)) /dev/zero
}

test_expect_success 'index: git 2.39 does not check the trailing hash' '
	cd ix &&
	cp .git/index good &&
	{ index_body good && index_sum; } >.git/index &&
	! cmp -s good .git/index &&
	test_same_as_git :link &&
	cp good .git/index
'

test_expect_success 'index: short, bad signature, bad version' '
	cd ix &&
	: >.git/index &&
	test_same_as_git :link &&
	head -c 12 good >.git/index &&
	test_same_as_git :link &&
	{ printf DIRX && tail -c +5 good; } >.git/index &&
	test_same_as_git :link &&
	{ printf "DIRC\0\0\0\5" && tail -c +9 good; } >.git/index &&
	test_same_as_git :link &&
	{ printf "DIRC\377\377\377\377" && tail -c +9 good; } >.git/index &&
	test_same_as_git :link &&
	grep "^error: bad index version -1$" actual.err &&
	rm .git/index &&
	mkdir .git/index &&
	test_same_as_git :link &&
	rmdir .git/index &&
	cp good .git/index
'

test_expect_success 'index: a linked work tree has its own, named in full' '
	cd ix &&
	git worktree add -q --detach ../ix-wt HEAD &&
	cd ../ix-wt &&
	test_same_as_git :top &&
	: >"$(git rev-parse --git-dir)/index" &&
	test_same_as_git :top &&
	grep "^fatal: /.*/worktrees/ix-wt/index: index file smaller" actual.err
'

# test_stderr_same_as_git ARGS...: test_same_as_git, and every line of
# stderr alike, not only the diagnostics.
# (Newer gits, 2.47 among them, add advice, "hint:" lines, when they
# expand a sparse index; garchive gives none: the other lines compare.)
test_stderr_same_as_git () {
	test_same_as_git "$@" &&
	{ grep -v "^hint: " expect.err || :; } >expect.nohint &&
	{ grep -v "^hint: " actual.err || :; } >actual.nohint &&
	test_cmp expect.nohint actual.nohint
}

test_expect_success 'index: optional extensions are skipped, others refused' '
	cd ix &&
	{ index_body good && printf "ZZZZ\0\0\0\3abc" && index_sum; } \
		>.git/index &&
	test_stderr_same_as_git :link &&
	grep "^ignoring ZZZZ extension$" actual.err &&
	{ index_body good && printf "ZZZZ\0\0\0\0zzzz\0\0\0\0" &&
	  index_sum; } >.git/index &&
	test_stderr_same_as_git :link &&
	grep "^error: index uses zzzz extension" actual.err &&
	{ index_body good && printf "link\0\0\0\2ab" && index_sum; } \
		>.git/index &&
	test_stderr_same_as_git :link &&
	cp good .git/index
'

# A split index (git update-index --split-index, core.splitIndex) keeps
# most entries in a shared index, .git/sharedindex.<id>; the index names
# it in its "link" extension and holds the changes: nameless entries
# replacing shared ones (the replace bitmap), deletions (the delete
# bitmap) and new entries.  Files name blobs, no trees, so git's message
# names the entry found; gitlinks give archives.
split_names=":f1 :f3 :f5 :f7 :f30 :new :link :link2 :link3 :0:link
	:1:both :2:both :3:both :0:both :nosuch"

# link_bits INDEX: the bit sizes of the delete and replace bitmaps of
# INDEX's link extension (0 for an empty bitmap), "no bitmaps" after
# the shared index was written, or "none" without the extension.
link_bits () {
	python3 - "$1" "$test_hexsz_" <<-\EOF
	import sys
	d = open(sys.argv[1], "rb").read()
	raw = int(sys.argv[2]) // 2
	ver, off = int.from_bytes(d[4:8], "big"), 12
	prev = 0
	for i in range(int.from_bytes(d[8:12], "big")):
	    fl = int.from_bytes(d[off + 40 + raw:off + 42 + raw], "big")
	    fixed = 40 + raw + (4 if fl & 0x4000 else 2)
	    if ver == 4:
	        while d[off + fixed] & 0x80:
	            fixed += 1
	        fixed += 1
	        off = d.index(b"\0", off + fixed) + 1
	    else:
	        end = d.index(b"\0", off + fixed)
	        off += (end - off + 8) & ~7
	while off + 8 <= len(d) - raw:
	    sig, size = d[off:off + 4], int.from_bytes(d[off + 4:off + 8], "big")
	    if sig == b"link":
	        p = off + 8 + raw
	        if size == raw:
	            print("no bitmaps")
	            sys.exit(0)
	        dl = int.from_bytes(d[p:p + 4], "big")
	        n = int.from_bytes(d[p + 4:p + 8], "big")
	        rl = int.from_bytes(d[p + 12 + 8 * n:p + 16 + 8 * n], "big")
	        print(dl, rl)
	        sys.exit(0)
	    off += 8 + size
	print("none")
	EOF
}

test_expect_success 'split index: setup, stages and a gitlink shared' '
	git init -q split &&
	cd split &&
	git config splitIndex.maxPercentChange 100 &&
	for i in $(seq 1 30)
	do
		echo $i >f$i || return 1
	done &&
	git add . &&
	test_tick &&
	git commit -q -m one &&
	c=$(git rev-parse HEAD) &&
	git update-index --add --cacheinfo 160000,$c,link &&
	one=$(git rev-parse HEAD:f1) &&
	two=$(git rev-parse HEAD:f2) &&
	printf "100644 %s 1\tboth\n100644 %s 2\tboth\n160000 %s 3\tboth\n" \
		$one $two $c >../stages &&
	git update-index --index-info <../stages &&
	git update-index --split-index &&
	test $(ls .git/sharedindex.* | wc -l) -eq 1 &&
	test "$(link_bits .git/index)" != none
'

test_expect_success 'split index: all in the shared index' '
	cd split &&
	for n in $split_names
	do
		test_same_as_git $n || return 1
	done
'

test_expect_success 'split index: replaced, deleted and added entries' '
	cd split &&
	c=$(git rev-parse HEAD) &&
	one=$(git rev-parse HEAD:f1) &&
	echo new >new &&
	echo five >f5 &&
	echo seven >f7 &&
	git add new f5 f7 &&
	git rm -q --cached f3 &&
	git update-index --add --cacheinfo 160000,$c,link2 &&
	git update-index --add --cacheinfo 160000,$c,link3 &&
	git update-index --add --cacheinfo 100644,$one,both &&
	test $(ls .git/sharedindex.* | wc -l) -eq 1 &&
	set -- $(link_bits .git/index) &&
	test $1 -gt 0 && test $2 -gt 0 &&
	for n in $split_names
	do
		test_same_as_git $n || return 1
	done
'

test_expect_success 'split index: version 4, a subdirectory, GIT_INDEX_FILE' '
	cd split &&
	# A new version writes the whole index; split it again.
	git update-index --index-version 4 &&
	git update-index --split-index &&
	echo nine >f9 &&
	git add f9 &&
	test "$(od -An -tu1 -j7 -N1 .git/index)" -eq 4 &&
	test "$(link_bits .git/index)" != none &&
	for n in $split_names
	do
		test_same_as_git $n || return 1
	done &&
	mkdir -p sub &&
	(cd sub && test_same_as_git :../link2 && test_same_as_git :../f5) &&
	mkdir -p elsewhere &&
	cp .git/index elsewhere/index &&
	(
		GIT_INDEX_FILE=elsewhere/index && export GIT_INDEX_FILE &&
		test_same_as_git :link2 &&
		mkdir .git/aside &&
		mv .git/sharedindex.* .git/aside/ &&
		test_same_as_git :link2 &&
		grep "elsewhere/sharedindex.* index file open failed" \
			actual.err &&
		cp .git/aside/sharedindex.* elsewhere/ &&
		test_same_as_git :link2 &&
		test_same_as_git :f5 &&
		mv .git/aside/sharedindex.* .git/ &&
		rmdir .git/aside
	)
'

test_expect_success 'split index: a missing or broken shared index' '
	cd split &&
	mkdir -p aside &&
	mv .git/sharedindex.* aside/ &&
	test_same_as_git :link2 &&
	grep "^fatal: .git/sharedindex.* index file open failed" actual.err &&
	(cd sub && test_same_as_git :../link2) &&
	shared=$(sed -n "s|^fatal: .git/\(sharedindex\.[0-9a-f]*\):.*|\1|p" \
		actual.err) &&
	test -f aside/$shared &&
	{ index_body aside/$shared && index_sum; } >.git/$shared &&
	test_same_as_git :link2 &&
	grep "^fatal: broken index, expect" actual.err &&
	: >.git/$shared &&
	test_same_as_git :link2 &&
	mv aside/sharedindex.* .git/ &&
	test_same_as_git :link2
'

test_expect_success 'split index: core.splitIndex, then none' '
	git init -q split-config &&
	cd split-config &&
	git config core.splitIndex true &&
	echo a >a &&
	echo b >b &&
	git add a b &&
	test_tick &&
	git commit -q -m one &&
	c=$(git rev-parse HEAD) &&
	git update-index --add --cacheinfo 160000,$c,link &&
	test "$(link_bits .git/index)" != none &&
	test_same_as_git :link &&
	test_same_as_git :a &&
	git config core.splitIndex false &&
	git update-index --no-split-index &&
	test "$(link_bits .git/index)" = none &&
	test_same_as_git :link
'

test_expect_success 'split index: a linked work tree keeps its own' '
	cd split-config &&
	git worktree add -q --detach ../split-wt HEAD &&
	cd ../split-wt &&
	git config --unset core.splitIndex &&
	git config splitIndex.maxPercentChange 100 &&
	git update-index --split-index &&
	git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),wl &&
	echo changed >b &&
	git add b &&
	gd=$(git rev-parse --git-dir) &&
	ls "$gd"/sharedindex.* &&
	test_same_as_git :wl &&
	test_same_as_git :b &&
	mkdir ../split-wt-aside &&
	mv "$gd"/sharedindex.* ../split-wt-aside/ &&
	test_same_as_git :wl &&
	grep "^fatal: /.*/worktrees/split-wt/sharedindex.* open failed" \
		actual.err &&
	mv ../split-wt-aside/* "$gd"/
'

# A sparse index keeps directories outside the cone as entries naming
# their tree; git expands them when it reads the index.
test_expect_success 'index: a sparse index is expanded through its trees' '
	git init -q sparse &&
	cd sparse &&
	mkdir -p in out/deep &&
	echo a >in/a &&
	echo b >out/b &&
	echo c >out/deep/c &&
	git add . &&
	test_tick &&
	git commit -q -m one &&
	git sparse-checkout init --cone --sparse-index &&
	git sparse-checkout set in &&
	git ls-files --sparse -s >ls &&
	grep "^040000 .* 0	out/$" ls &&
	for n in :in/a :out/b :out/deep/c :out :out/ :out/deep :1:out/b
	do
		test_same_as_git $n || return 1
	done
'

# set_index_id INDEX NAME ID: point entry NAME of INDEX (v2 or v3) at ID.
set_index_id () {
	python3 - "$@" <<-\EOF
	import sys
	path, name, oid = sys.argv[1], sys.argv[2].encode(), bytes.fromhex(sys.argv[3])
	d = bytearray(open(path, "rb").read())
	off, raw = 12, len(oid)
	for i in range(int.from_bytes(d[8:12], "big")):
	    fl = int.from_bytes(d[off + 40 + raw:off + 42 + raw], "big")
	    fixed = 40 + raw + (4 if fl & 0x4000 else 2)
	    end = d.index(b"\0", off + fixed)
	    if d[off + fixed:end] == name:
	        d[off + 40:off + 40 + raw] = oid
	    off += (fixed + end - off - fixed + 8) & ~7
	open(path, "wb").write(d)
	EOF
}

test_expect_success 'index: a gitlink below a sparse directory; bad trees' '
	cd sparse &&
	cp .git/index good &&
	c=$(git rev-parse HEAD) &&
	t=$(printf "160000 commit %s\tlink\n" $c | git mktree) &&
	set_index_id .git/index out/ $t &&
	test_same_as_git :out/link &&
	test_same_as_git :out/b &&
	set_index_id .git/index out/ $(git rev-parse HEAD:out/b) &&
	test_stderr_same_as_git :in/a &&
	grep "^error: Object .* not a tree$" actual.err &&
	set_index_id .git/index out/ $(echo $t | tr 0-9a-f 1-9a-f0) &&
	test_stderr_same_as_git :in/a &&
	grep "^error: invalid object 040000 .* for .out.$" actual.err &&
	cp good .git/index
'

# git 2.47 to 2.50 walk the start list of ":/<text>" reversed (fixed in
# 2.51); garchive follows 2.39 and 2.51+.  Where the git on PATH is one
# of those, ":/" is checked against the answer the history below makes
# right, not against that git.
test_lazy_prereq SEARCH_ORDER_GIT '
	case "$GIT_VERSION" in
	2.47.*|2.48.*|2.49.*|2.5[0].*) false ;;
	esac
'

# same_archive_as NAME REV: garchive's archive of NAME is git's of REV.
same_archive_as () {
	garchive "$1" >actual.tar &&
	git archive "$2" >expect.tar &&
	cmp expect.tar actual.tar
}

test_expect_success 'search: setup a merge history with tied dates' '
	git init -q search &&
	cd search &&
	test_commit start &&
	git checkout -q -b a &&
	echo a >a.txt && git add a.txt &&
	GIT_COMMITTER_DATE="1112920000 +0000" git commit -q -m "fix: alpha" &&
	git checkout -q -b b main &&
	echo b >b.txt && git add b.txt &&
	GIT_COMMITTER_DATE="1112920000 +0000" git commit -q -m "fix: beta" &&
	git checkout -q main &&
	test_tick &&
	GIT_COMMITTER_DATE="1112930000 +0000" \
		git merge -q --no-ff -m "merge a" a &&
	git checkout -q -b only start &&
	echo t >t.txt && git add t.txt &&
	test_tick &&
	git commit -q -m "tagged only" &&
	git tag -a -m "the only way there" only-tag &&
	git checkout -q main &&
	git branch -D -q only
'

test_expect_success 'search: ":/" walks youngest first, ties as queued' '
	cd search &&
	same_archive_as :/fix b &&
	same_archive_as ":/^fix: (alpha|gamma)" a &&
	same_archive_as ":/^merge" main &&
	same_archive_as ":/tagged" only-tag &&
	same_archive_as ":/!-fix" main &&
	same_archive_as ":/start" start
'

test_expect_success SEARCH_ORDER_GIT 'search: ":/" as the git on PATH' '
	cd search &&
	test_same_as_git :/fix &&
	test_same_as_git ":/^fix: (alpha|gamma)" &&
	test_same_as_git ":/!-fix" &&
	test_same_as_git ":/!-merge" &&
	test_same_as_git ":/tagged" &&
	test_same_as_git ":/fix:/a.txt"
'

test_expect_success 'search: "<rev>^{/<text>}" walks from that commit' '
	cd search &&
	same_archive_as "HEAD^{/fix}" a &&
	same_archive_as "b^{/fix}" b &&
	same_archive_as "b^{/start}" start &&
	same_archive_as "main^{/}" main &&
	test_same_as_git "HEAD^{/fix}" &&
	test_same_as_git "only-tag^{/start}" &&
	test_same_as_git "HEAD^{/fix}:a.txt" &&
	test_same_as_git "main^{/}"
'

test_expect_success 'search: no match, a bad regex, reserved "!" forms' '
	cd search &&
	for n in :/nomatch ":/alpha\$" ":/(" ":/!x" ":/!!x" "HEAD^{/nomatch}" \
		"b^{/alpha}"
	do
		test_expect_code 128 garchive "$n" >out 2>err &&
		echo "fatal: not a valid object name: $n" >expect &&
		test_cmp expect err &&
		same_failure_as_git "$n" || return 1
	done
'

test_expect_success 'search: a ref to a commit that fails its hash' '
	cd search &&
	c=$(git rev-parse start) &&
	bad=$(echo $c | tr 0-9a-f 1-9a-f0) &&
	good_file=.git/objects/$(echo $c | sed "s|^..|&/|") &&
	bad_file=.git/objects/$(echo $bad | sed "s|^..|&/|") &&
	test_when_finished "rm -f .git/refs/heads/bad $bad_file" &&
	mkdir -p "${bad_file%/*}" &&
	cp "$good_file" "$bad_file" &&
	echo $bad >.git/refs/heads/bad &&
	test_expect_code 128 garchive :/nomatch >out 2>err &&
	grep "^error: hash mismatch $bad\$" err &&
	test_same_as_git :/nomatch &&
	test_same_as_git :/start
'

test_expect_success 'upstream: setup remote-tracking refs and config' '
	cd search &&
	git config remote.origin.url . &&
	git config remote.origin.fetch "+refs/heads/*:refs/remotes/origin/*" &&
	git update-ref refs/remotes/origin/main start &&
	git update-ref refs/remotes/origin/a a &&
	git config branch.main.remote origin &&
	git config branch.main.merge refs/heads/main &&
	git config branch.a.remote . &&
	git config branch.a.merge refs/heads/b
'

test_expect_success 'upstream: @{u}, @{upstream}, @{push}, <branch>@{u}' '
	cd search &&
	same_archive_as @{u} start &&
	same_archive_as main@{UPSTREAM} start &&
	same_archive_as @{push} start &&
	same_archive_as a@{u} b &&
	test_same_as_git @{u} &&
	test_same_as_git main@{upstream} &&
	test_same_as_git HEAD@{u} &&
	test_same_as_git @{push} &&
	test_same_as_git "@{u}:start.t" &&
	test_same_as_git "@{u}^{tree}" &&
	test_same_as_git a@{u} &&
	test_same_as_git a@{push}
'

test_expect_success 'upstream: none configured, no such branch, not stored' '
	cd search &&
	test_expect_code 128 garchive b@{u} >out 2>err &&
	echo "fatal: no upstream configured for branch '"'b'"'" >expect &&
	test_cmp expect err &&
	test_same_as_git b@{u} &&
	test_same_as_git b@{push} &&
	test_same_as_git nosuch@{u} &&
	test_same_as_git main@{u}x &&
	git config branch.b.remote elsewhere &&
	git config branch.b.merge refs/heads/b &&
	test_same_as_git b@{u} &&
	git config branch.b.remote origin &&
	test_same_as_git b@{u} &&
	git config --unset branch.b.remote &&
	git config --unset branch.b.merge
'

test_expect_success 'upstream: push.default, remote.pushDefault, push refspecs' '
	cd search &&
	git update-ref refs/remotes/other/main b &&
	git config push.default nothing &&
	test_same_as_git @{push} &&
	for d in matching current upstream simple tracking
	do
		git config push.default $d &&
		test_same_as_git @{push} &&
		test_same_as_git a@{push} || return 1
	done &&
	git config --unset push.default &&
	git config remote.pushDefault other &&
	test_same_as_git @{push} &&
	git config remote.other.fetch "+refs/heads/*:refs/remotes/other/*" &&
	git config push.default current &&
	test_same_as_git @{push} &&
	same_archive_as @{push} b &&
	git config remote.other.push refs/heads/nomatch:refs/heads/x &&
	test_same_as_git @{push} &&
	git config --add remote.other.push "refs/heads/*:refs/heads/*" &&
	test_same_as_git @{push} &&
	git config branch.main.pushRemote origin &&
	test_same_as_git @{push} &&
	git config --unset branch.main.pushRemote &&
	git config --unset remote.pushDefault &&
	git config --unset push.default
'

test_lazy_prereq PYTHON3 'test -n "$PYTHON3" && "$PYTHON3" -S -c "pass"'

# git's dwim_ref() turns "@{u}" into the ref it stands for, and a
# process filter is told that ref.
test_expect_success PYTHON3 'upstream: a process filter is told the tracking ref' '
	cd search &&
	test_when_finished "rm -f .git/info/attributes" &&
	test_when_finished "git config --unset filter.upper.process" &&
	mkdir -p .git/info &&
	echo "start.t filter=upper" >.git/info/attributes &&
	git config filter.upper.process \
		"$PYTHON3 -S $TEST_DIRECTORY/lib-process-filter.py upper" &&
	test_same_as_git @{u} &&
	tar xOf actual.out start.t >out &&
	grep "ref=refs/remotes/origin/main;" out &&
	test_same_as_git a@{push} &&
	test_same_as_git "@{u}:"
'

test_expect_success 'upstream: a detached HEAD has none' '
	cd search &&
	git checkout -q --detach main &&
	test_expect_code 128 garchive @{u} >out 2>err &&
	echo "fatal: HEAD does not point to a branch" >expect &&
	test_cmp expect err &&
	test_same_as_git @{u} &&
	test_same_as_git @{push} &&
	test_same_as_git main@{u} &&
	git checkout -q main
'

test_done

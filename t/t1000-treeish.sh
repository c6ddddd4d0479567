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

# git's ":/<text>": the youngest commit reachable from any ref whose
# message (after the header) matches a POSIX extended regex, with no
# REG_NEWLINE ("^" is the start of the message, "." takes a newline);
# "<rev>^{/<text>}" from one commit.  Both read through garchive's own
# stores, so these hold in SHA-256 repositories too.
test_expect_success ':/<text> and ^{/<text>}: the youngest match' '
	git init -q search &&
	cd search &&
	echo 1 >f &&
	git add f &&
	test_tick &&
	git commit -q -m "one fix" &&
	echo 2 >f &&
	test_tick &&
	git commit -q -a -m two -m "body line fix" &&
	git tag -a -m tag v1 HEAD~1 &&
	git tag tree-tag HEAD^{tree} &&
	git tag blob-tag HEAD:f &&
	git checkout -q -b side HEAD~1 &&
	echo s >s &&
	git add s &&
	test_tick &&
	git commit -q -m "side fix" &&
	echo b >s &&
	test_tick &&
	git commit -q -a -m "!bang" &&
	git checkout -q main &&
	test_tick &&
	git merge -q --no-edit side &&
	for n in ":/fix" ":/^two" ":/line fix" ":/two..body" ":/^body" \
		":/fix\$" ":/[ob]ne" ":/!bang" ":/!!bang" ":/!-fix" \
		":/!-." ":/!-" ":/!" ":/nomatch" ":/(" ":/Merge" \
		":/fix:f" ":/two" "HEAD^{/one}" "side^{/fix}" "HEAD^{/}" \
		"v1^{/fix}" "v1^{/two}" "HEAD^{/two}:f" "HEAD^{/two}~1" \
		"HEAD^{/nomatch}" "HEAD^{tree}^{/x}" "blob-tag^{/x}" \
		"HEAD^{/(}" "HEAD~1^{/one}"
	do
		test_same_as_git "$n" || return 1
	done
'

# Which of two matches of one date is found depends on git's list: the
# refs in name order, each put in front (HEAD last), sorted by date
# (stably), and a parent seen for the first time put after every commit
# of its date.  Here refs/heads/c is found before a and b, and the
# parent of d, a commit of the same date as a, b and c, after them.
test_expect_success ':/<text>: ties are broken as git breaks them' '
	git init -q ties &&
	cd ties &&
	test_tick &&
	git commit -q --allow-empty -m base &&
	test_tick &&
	for b in a b c
	do
		git checkout -q -b $b main &&
		git commit -q --allow-empty -m "same $b" || return 1
	done &&
	git checkout -q -b d main &&
	git commit -q --allow-empty -m "same d" &&
	test_tick &&
	git commit -q --allow-empty -m top &&
	git checkout -q main &&
	git tag -a -m "tag of a" t-a a &&
	for n in ":/same" ":/same [ad]" ":/same [abd]" ":/same d" \
		":/!-same|top" ":/base" "d^{/same}"
	do
		test_same_as_git "$n" || return 1
	done &&
	git checkout -q b &&
	test_same_as_git ":/same" &&
	git checkout -q --detach a &&
	test_same_as_git ":/same"
'

# Many tips: the list outgrows its first allocations while it is built
# (garchive once wrote through a stale pointer there).
test_expect_success ':/<text> from hundreds of refs' '
	cd search &&
	k=0 &&
	for c in HEAD HEAD~1 HEAD~2 side~1
	do
		k=$((k + 1)) &&
		id=$(git rev-parse $c) &&
		for i in 0 1 2 3 4 5 6 7 8 9
		do
			for j in 0 1 2 3 4 5 6 7
			do
				echo "create refs/many/$k/$i$j $id" || return 1
			done || return 1
		done || return 1
	done >refs.in &&
	git update-ref --stdin <refs.in &&
	for n in ":/one" ":/side" ":/^two" ":/!-Merge" ":/nomatch"
	do
		test_same_as_git "$n" || return 1
	done
'

# <branch>@{upstream} and <branch>@{push}, from branch.<b>.remote and
# .merge, the remote'"'"'s fetch and push refspecs, push.default,
# remote.pushDefault and branch.<b>.pushRemote, with git'"'"'s messages
# where there is none.
test_expect_success '@{upstream}: branch.<b>.merge through the fetch refspec' '
	git init -q up &&
	cd up &&
	test_commit one &&
	test_commit two &&
	git update-ref refs/remotes/origin/main one &&
	git config remote.origin.url /nowhere &&
	git config remote.origin.fetch "+refs/heads/*:refs/remotes/origin/*" &&
	for n in "@{u}" "@{push}" "main@{u}" "nosuch@{u}" "nosuch@{push}"
	do
		test_same_as_git "$n" || return 1
	done &&
	git config branch.main.remote origin &&
	git config branch.main.merge refs/heads/main &&
	for n in "@{u}" "@{upstream}" "main@{U}" "HEAD@{u}" "@{UpStReAm}" \
		"@{u}^{tree}" "@{u}:one.t" "main@{u}~0" "@{push}" \
		"@{u}x" "main@{ux}" "@{u}@{push}"
	do
		test_same_as_git "$n" || return 1
	done &&
	git config branch.nosuch.remote origin &&
	git config branch.nosuch.merge refs/heads/main &&
	test_same_as_git "nosuch@{u}" &&
	git branch topic two &&
	git config branch.topic.remote origin &&
	git config branch.topic.merge refs/heads/other &&
	test_same_as_git "topic@{u}" &&
	git update-ref refs/remotes/origin/other two &&
	test_same_as_git "topic@{u}" &&
	git checkout -q --detach &&
	test_same_as_git "@{u}" &&
	test_same_as_git "@{push}" &&
	test_same_as_git "main@{u}" &&
	git checkout -q main
'

test_expect_success '@{upstream}: other remotes, ".", ambiguous names' '
	cd up &&
	git config remote.bare.url /elsewhere &&
	git config branch.topic.remote bare &&
	test_same_as_git "topic@{u}" &&
	git config branch.topic.remote . &&
	test_same_as_git "topic@{u}" &&
	git config branch.topic.merge refs/heads/main &&
	test_same_as_git "topic@{u}" &&
	git config branch.topic.merge main &&
	test_same_as_git "topic@{u}" &&
	git tag origin/main two &&
	test_same_as_git "@{u}" &&
	git tag -d origin/main &&
	git config --add remote.origin.fetch "^refs/heads/main" &&
	test_same_as_git "@{u}" &&
	git config --unset remote.origin.fetch "main\$" &&
	git config --add remote.broken.fetch "refs/heads/*" &&
	test_same_as_git "@{u}" &&
	test_same_as_git "HEAD" &&
	git config --unset remote.broken.fetch
'

test_expect_success '@{push}: push.default, pushRemote, push refspecs' '
	cd up &&
	git update-ref refs/remotes/origin/topic one &&
	for mode in nothing matching simple upstream tracking current
	do
		git config push.default $mode &&
		test_same_as_git "@{push}" &&
		test_same_as_git "topic@{push}" || return 1
	done &&
	git config branch.topic.remote origin &&
	git config branch.topic.merge refs/heads/other &&
	git config --unset push.default &&
	test_same_as_git "topic@{push}" &&
	git config remote.fork.url /fork &&
	git config remote.fork.fetch "+refs/heads/*:refs/remotes/fork/*" &&
	git update-ref refs/remotes/fork/main two &&
	git config remote.pushDefault fork &&
	test_same_as_git "@{push}" &&
	git config push.default current &&
	test_same_as_git "@{push}" &&
	git config branch.main.pushRemote nope &&
	test_same_as_git "@{push}" &&
	git config branch.main.pushRemote origin &&
	test_same_as_git "@{push}" &&
	git config remote.origin.push refs/heads/main:refs/heads/pushed &&
	test_same_as_git "@{push}" &&
	git update-ref refs/remotes/origin/pushed two &&
	test_same_as_git "@{push}" &&
	test_same_as_git "topic@{push}" &&
	git config --unset remote.origin.push &&
	git config remote.fork.mirror true &&
	git config --unset branch.main.pushRemote &&
	git config push.default nothing &&
	test_same_as_git "@{push}"
'

test_expect_success '@{push}: one remote is the default' '
	git init -q solo &&
	cd solo &&
	test_commit one &&
	git config remote.only.url /only &&
	git config remote.only.fetch "+refs/heads/*:refs/remotes/only/*" &&
	git update-ref refs/remotes/only/main one &&
	git config push.default current &&
	test_same_as_git "@{push}" &&
	git config remote.second.url /second &&
	test_same_as_git "@{push}"
'

test_expect_success 'mailmap.blob through @{upstream}' '
	cd solo &&
	echo "\$Format:%aN <%aE>\$" >f &&
	echo "f export-subst" >.gitattributes &&
	echo "Mapped Name <$(git log -1 --format=%ae)>" >.mailmap &&
	git add f .gitattributes .mailmap &&
	test_tick &&
	git commit -q -m mailmap &&
	git update-ref refs/remotes/only/main HEAD &&
	git config branch.main.remote only &&
	git config branch.main.merge refs/heads/main &&
	git config mailmap.blob "@{u}:.mailmap" &&
	test_same_as_git HEAD &&
	tar xOf actual.out f >subst &&
	grep "^Mapped Name <" subst
'

test_done

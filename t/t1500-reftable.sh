#!/bin/sh
test_description='reftable repositories and the repository format'
. "$(dirname "$0")/lib.sh"

# The fixtures: repositories git 2.47 made (t/fixtures/
# make-reftable-fixtures.sh), with the checksums of its archives and
# what its rev-parse said, in expect/main/ (the repository) and
# expect/wt/ (its linked worktree).  The system git (2.39) cannot read
# reftable; it archives the same ids from a repository that borrows the
# fixture's objects.

# The fixtures of the mode's object format (GARCHIVE_TEST_OBJECT_FORMAT)
# are the ones most tests read: fx/$fx_hash-<kind>.
fx_hash=$test_object_format

# fixture_dirs: the fixtures of the mode's object format, files and
# reftable kinds.
fixture_dirs () {
	ls -d fx/$fx_hash-*
}

# git_archive_of KIND ID: the system git's archive of ID, from the
# objects of fixture KIND.
git_archive_of () {
	git --git-dir="borrow-$1" archive --format=tar "$2"
}

test_expect_success 'setup: the fixtures, their worktrees moved here' '
	mkdir fx &&
	tar -xzf "$TEST_DIRECTORY/fixtures/reftable.tar.gz" -C fx &&
	for k in fx/sha1-* fx/sha256-*
	do
		top=$(cd "$k" && pwd) &&
		echo "gitdir: $top/repo/.git/worktrees/wt" >"$k/wt/.git" &&
		echo "$top/wt/.git" >"$k/repo/.git/worktrees/wt/gitdir" ||
		return 1
	done &&
	for k in $(fixture_dirs)
	do
		name=${k#fx/} &&
		git init -q --bare --object-format="${name%%-*}" \
			"borrow-$name" &&
		echo "$(pwd)/$k/repo/.git/objects" \
			>"borrow-$name/objects/info/alternates" || return 1
	done
'

# check_archives KIND WHERE: garchive's archives of the revisions whose
# checksums git 2.47 recorded in expect/WHERE/archive, run in the
# repository (main) or the worktree (wt).
check_archives () {
	dir=fx/$1/repo
	test "$2" = wt && dir=fx/$1/wt
	while IFS='	' read -r rev sum
	do
		(cd "$dir" && garchive --format=tar "$rev") >actual.tar &&
		echo "$sum" >expect.sum &&
		sha256sum <actual.tar | cut -d" " -f1 >actual.sum &&
		test_cmp expect.sum actual.sum || {
			echo "$1 $2: $rev differs"
			return 1
		}
	done <"fx/$1/expect/$2/archive"
}

test_expect_success 'the archives git 2.47 made, from every SHA-1 fixture' '
	for k in fx/sha1-*
	do
		check_archives "${k#fx/}" main &&
		check_archives "${k#fx/}" wt || return 1
	done
'

# check_rev_parse KIND WHERE: every expression git 2.47 resolved names
# the same archive in garchive as its id does in git; where git died
# with "log for ... only has N entries", garchive dies with it too.
check_rev_parse () {
	dir=fx/$1/repo
	test "$2" = wt && dir=fx/$1/wt
	while IFS='	' read -r expr said
	do
		case $said in
		fatal:\ log\ for*)
			printf "%s\n" "${said%;}" >expect.err &&
			test_expect_code 128 \
				sh -c "cd \"$dir\" && garchive --format=tar \"\$1\"" \
				- "$expr" >actual.tar 2>actual.err &&
			test_cmp expect.err actual.err || {
				echo "$1 $2: $expr: not git's failure"
				return 1
			} ;;
		fatal:*|warning:*)
			;;
		*)
			git_archive_of "$1" "$said" >expect.tar &&
			(cd "$dir" && garchive --format=tar "$expr") \
				>actual.tar &&
			cmp expect.tar actual.tar || {
				echo "$1 $2: $expr is not $said"
				return 1
			} ;;
		esac
	done <"fx/$1/expect/$2/rev-parse"
}

test_expect_success 'refs, tags, symrefs and reflog entries as git 2.47 resolved them' '
	for k in $(fixture_dirs)
	do
		check_rev_parse "${k#fx/}" main &&
		check_rev_parse "${k#fx/}" wt || return 1
	done
'

# git 2.39 reads the files fixture: the names it refuses, refused with its
# words (dangling symbolic refs warned about, deleted refs, reflogs too
# short).  Names of a reflog with a gap are left out: there git 2.39 and
# 2.47 (which garchive follows) read "@{<n>}" differently.
test_expect_success 'names git refuses, refused as git 2.39 does' '
	sed -n "s/	\(fatal\|warning\):.*//p" \
		fx/$fx_hash-files/expect/main/rev-parse >refused &&
	test -s refused &&
	while read -r expr
	do
		case $expr in feature@*) continue ;; esac
		(cd fx/$fx_hash-files/repo && same_failure_as_git "$expr") || {
			echo "$expr: not as git"
			return 1
		}
	done <refused
'

test_expect_success 'reflog entries in a files repository, as git 2.39' '
	git init -q logs &&
	(cd logs &&
	 test_commit one && test_commit two && test_commit three &&
	 git checkout -q -b side HEAD~1 && test_commit four &&
	 git checkout -q main &&
	 test_same_as_git @{1} &&
	 test_same_as_git main@{1} &&
	 test_same_as_git HEAD@{2} &&
	 test_same_as_git side@{1} &&
	 test_same_as_git @{-1} &&
	 same_failure_as_git main@{9} &&
	 same_failure_as_git @{9})
'

# The fixtures' history checks out feature, then main again: "@{-1}" is
# feature, "@{-2}" main, as HEAD's reflog says.
test_expect_success '@{-<n>}: the branches checked out before' '
	for k in fx/$fx_hash-reftable-*
	do
		for pair in @{-1}:feature @{-2}:HEAD
		do
			sed -n "s/^${pair#*:}	//p" "$k/expect/main/archive" \
				>expect.sum &&
			(cd "$k/repo" && garchive --format=tar "${pair%:*}") |
			sha256sum | cut -d" " -f1 >actual.sum &&
			test_cmp expect.sum actual.sum || return 1
		done
	done
'

# %(describe) in a reftable repository: the system git cannot read it,
# so garchive describes the commit itself.  fx/describe (made by git
# 2.55) has tags annotated and lightweight, two on one commit, a tag of
# a tag, one whose object names it otherwise, one of a tree, a dangling
# symbolic ref under refs/tags/, a merge, more tags than git takes
# candidates and a branch no tag reaches; expect/describe holds what
# git 2.55 expanded, one %(describe...) form a file.
test_expect_success '%(describe) in a reftable repository, as git 2.55' '
	test $(wc -l <fx/describe/expect/describe) -eq 192 &&
	while IFS="	" read -r rev file text
	do
		printf "%s\n" "$text" >expect.txt &&
		(cd fx/describe/repo &&
		 garchive --format=tar "$rev" "$file") >actual.tar &&
		tar -xOf actual.tar >actual.txt &&
		test_cmp expect.txt actual.txt || {
			echo "$rev $file: not as git 2.55"
			return 1
		}
	done <fx/describe/expect/describe
'

# "<ref>@{<date>}" in a reftable repository: the ref store's reflog, as
# git 2.55 read it (expect/reflog-date: the checksum of its archive and
# its stderr, lines joined by ";"; the reflog's entries are of April
# 2005, so "yesterday" and "2 days ago" are its newest).
test_expect_success '@{<date>} in a reftable repository, as git 2.55' '
	test $(wc -l <fx/describe/expect/reflog-date) -eq 26 &&
	while IFS="	" read -r expr sum said
	do
		code=0 &&
		case $said in fatal:*) code=128 ;; esac &&
		test_expect_code $code sh -c "cd fx/describe/repo &&
			garchive --format=tar \"\$1\"" - "$expr" \
			>actual.tar 2>actual.err &&
		echo "$sum" >expect.sum &&
		sha256sum <actual.tar | cut -d" " -f1 >actual.sum &&
		printf "%s\n" "$said" >expect.err &&
		tr "\n" ";" <actual.err >actual.said &&
		echo >>actual.said &&
		test_cmp expect.sum actual.sum &&
		test_cmp expect.err actual.said || {
			echo "$expr: not as git 2.55"
			return 1
		}
	done <fx/describe/expect/reflog-date
'

test_expect_success '@{<date>}: a form git reads and garchive does not, refused' '
	(cd fx/describe/repo &&
	 test_expect_code 128 garchive --format=tar "main@{last friday}") \
		>out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	fatal: garchive cannot read the date '"'"'last friday'"'"' in '"'"'main@{last friday}'"'"' (it reads YYYY-MM-DD[ HH:MM[:SS]][ zone], seconds since 1970, now, yesterday, never, '"'"'<n> <unit>s ago'"'"')
	EOF
	test_cmp expect err
'

test_expect_success 'worktree refs: HEAD, refs/worktree/, the main worktree' '
	(cd fx/$fx_hash-reftable-auto/wt &&
	 garchive --format=tar HEAD >../../../actual.head &&
	 garchive --format=tar refs/worktree/own >../../../actual.own &&
	 garchive --format=tar main-worktree/HEAD >../../../actual.main) &&
	id=$(sed -n "s/^HEAD	//p" fx/$fx_hash-reftable-auto/expect/wt/rev-parse) &&
	git_archive_of $fx_hash-reftable-auto "$id" >expect.head &&
	cmp expect.head actual.head &&
	id=$(sed -n "s/^refs.worktree.own	//p" \
		fx/$fx_hash-reftable-auto/expect/wt/rev-parse) &&
	git_archive_of $fx_hash-reftable-auto "$id" >expect.own &&
	cmp expect.own actual.own &&
	id=$(sed -n "s/^main-worktree.HEAD	//p" \
		fx/$fx_hash-reftable-auto/expect/wt/rev-parse) &&
	git_archive_of $fx_hash-reftable-auto "$id" >expect.main &&
	cmp expect.main actual.main
'

test_expect_success 'GIT_DIR names a reftable repository' '
	GIT_DIR=fx/$fx_hash-reftable-packed/repo/.git garchive --format=tar v1 \
		>actual.tar &&
	id=$(sed -n "s/^v1	//p" fx/$fx_hash-reftable-packed/expect/main/rev-parse) &&
	git_archive_of $fx_hash-reftable-packed "$id" >expect.tar &&
	cmp expect.tar actual.tar
'

test_expect_success 'upload-archive serves a reftable repository' '
	for k in $(fixture_dirs)
	do
		grep -v "@{" "$k/expect/main/archive" >served &&
		while IFS="	" read -r rev sum
		do
			(cd "$k/repo" &&
			 git archive --remote=. --exec="garchive upload-archive" \
				--format=tar "$rev") >actual.tar &&
			echo "$sum" >expect.sum &&
			sha256sum <actual.tar | cut -d" " -f1 >actual.sum &&
			test_cmp expect.sum actual.sum || return 1
		done <served || return 1
	done
'

# A stack another git rewrites while garchive reads it.  Debian 12 has
# no git that writes reftable, so the writer here plays git's part with
# tables git 2.47 wrote: the auto-compacted fixture's four tables and the
# packed fixture's one, which hold the same refs and reflogs.  Each
# round it writes the tables of one state, names them in a new
# tables.list (renamed over the old one, as git commits a stack) and
# deletes the other state's tables, as compaction does: a reader that
# read the old list finds its tables gone and must read the list again.
test_expect_success 'a stack rewritten while garchive reads it' '
	cp -R fx/$fx_hash-reftable-auto/repo live &&
	mkdir states &&
	cp -R fx/$fx_hash-reftable-auto/repo/.git/reftable states/a &&
	cp -R fx/$fx_hash-reftable-packed/repo/.git/reftable states/b &&
	cat >rewrite.py <<-\EOF &&
	import os, shutil, sys
	live, states, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
	def tables(state):
	    with open(os.path.join(states, state, "tables.list")) as f:
	        return f.read().split()
	current = tables("a")
	for n in range(rounds):
	    if os.path.exists("stop"):
	        break
	    new = "b" if n % 2 == 0 else "a"
	    # Fresh names each round, as git never reuses a table name.
	    names = []
	    for t in tables(new):
	        name = "%s-r%d.ref" % (t[:-4], n)
	        shutil.copy(os.path.join(states, new, t), os.path.join(live, name + ".tmp"))
	        os.rename(os.path.join(live, name + ".tmp"), os.path.join(live, name))
	        names.append(name)
	    with open(os.path.join(live, "tables.list.lock"), "w") as f:
	        f.write("".join(t + "\n" for t in names))
	    os.rename(os.path.join(live, "tables.list.lock"),
	              os.path.join(live, "tables.list"))
	    for t in current:
	        os.unlink(os.path.join(live, t))
	    current = names
	    with open("rounds.tmp", "w") as f:
	        f.write("%d\n" % (n + 1))
	    os.rename("rounds.tmp", "rounds")
	EOF
	echo 0 >rounds || return 1
	# Its own statement: "a && b &" would put the whole chain above,
	# the copies included, in the background.
	python3 rewrite.py live/.git/reftable states 100000 &
	writer=$! &&
	test_when_finished "touch stop; wait $writer" &&
	reads=0 &&
	while :
	do
		for rev in HEAD main@{2} v1 feature
		do
			sum=$(sed -n "s/^$rev	//p" \
				fx/$fx_hash-reftable-auto/expect/main/archive) &&
			got=$(cd live && garchive --format=tar "$rev" |
			      sha256sum | cut -d" " -f1) &&
			test "$got" = "$sum" || {
				echo "read $reads: $rev differs"
				return 1
			}
		done &&
		reads=$((reads + 1)) &&
		rounds=$(cat rounds) &&
		if test $reads -ge 50 && test $rounds -ge 20
		then
			break
		fi &&
		test $reads -lt 2000 || {
			echo "the writer did $rounds rounds in $reads reads"
			return 1
		}
	done &&
	echo "$reads reads, $rounds rounds"
'

test_expect_success 'the archives git 2.47 made, from every SHA-256 fixture' '
	for k in fx/sha256-*
	do
		check_archives "${k#fx/}" main &&
		check_archives "${k#fx/}" wt || return 1
	done
'

# A git that writes reftable (2.45 or later): $GARCHIVE_TEST_NEW_GIT,
# else the git on PATH when new enough (Debian 13).  Without one the
# tests that compare with it live are skipped.
reftable_git_ok_ () {
	v=$("$1" version 2>/dev/null |
	    sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	test -n "$v" || return 1
	set -- $v
	test $1 -gt 2 || { test $1 = 2 && test $2 -ge 45; }
}
REFTABLE_GIT=
for g in ${GARCHIVE_TEST_NEW_GIT:+"$GARCHIVE_TEST_NEW_GIT"} git
do
	if reftable_git_ok_ "$g"
	then
		REFTABLE_GIT=$g
		test_set_prereq REFTABLE_GIT
		break
	fi
done

test_expect_success REFTABLE_GIT 'live: garchive and a git that writes reftable' '
	"$REFTABLE_GIT" init -q --ref-format=reftable live-new &&
	(cd live-new &&
	 for i in 1 2 3 4
	 do
		echo $i >f && "$REFTABLE_GIT" add f && test_tick &&
		"$REFTABLE_GIT" commit -q -m c$i || return 1
	 done &&
	 "$REFTABLE_GIT" tag -a -m t v1 HEAD~2 &&
	 "$REFTABLE_GIT" tag light HEAD~1 &&
	 "$REFTABLE_GIT" branch side HEAD~3 &&
	 "$REFTABLE_GIT" checkout -q side &&
	 "$REFTABLE_GIT" checkout -q main &&
	 for step in before packed
	 do
		for rev in HEAD main v1 light side main@{1} HEAD@{2} @{-1} \
			v1^{tree} main~2
		do
			test_clock_start &&
			frozen "$REFTABLE_GIT" archive --format=tar "$rev" \
				>expect.tar &&
			frozen garchive --format=tar "$rev" >actual.tar &&
			cmp expect.tar actual.tar || {
				echo "$step: $rev differs"
				return 1
			}
		done &&
		"$REFTABLE_GIT" pack-refs --all || return 1
	 done)
'

# git itself rewrites the stack while garchive archives a branch it
# moves: every update-ref adds a table (and git auto-compacts the stack
# when it grows), every fifth round pack-refs compacts it whole, so
# tables a reader listed are deleted under it.  garchive must never
# fail, and must each time archive one of the commits the branch held.
# The test ends on counts, not on time: 50 reads with the writer 20
# rounds (160 updates) on at least; it prints its figures, the number
# of distinct commits archived among them.
test_expect_success REFTABLE_GIT 'live: git updates and compacts the stack garchive reads' '
	"$REFTABLE_GIT" init -q --ref-format=reftable moving &&
	(cd moving &&
	 for i in 1 2 3 4 5 6 7 8
	 do
		echo $i >f && "$REFTABLE_GIT" add f && test_tick &&
		"$REFTABLE_GIT" commit -q -m c$i || return 1
	 done &&
	 "$REFTABLE_GIT" rev-list main >../commits &&
	 "$REFTABLE_GIT" branch moving main~7 &&
	 while read -r c
	 do
		sum=$("$REFTABLE_GIT" archive --format=tar "$c" |
		      sha256sum | cut -d" " -f1) &&
		echo "$sum $c" || return 1
	 done <../commits >../sums) &&
	test $(wc -l <sums) = 8 &&
	cat >writer.sh <<-\EOF &&
	git=$1 rounds=0 updates=0 compactions=0
	while ! test -f ../stop-writer
	do
		for c in $(cat ../commits)
		do
			"$git" update-ref refs/heads/moving $c ||
				{ echo "$rounds" >../writer-failed; exit 1; }
			updates=$((updates + 1))
		done
		rounds=$((rounds + 1))
		if test $((rounds % 5)) = 0
		then
			"$git" pack-refs --all ||
				{ echo "$rounds" >../writer-failed; exit 1; }
			compactions=$((compactions + 1))
		fi
		echo "$rounds $updates $compactions" >../writer.tmp
		mv ../writer.tmp ../writer
	done
	EOF
	echo "0 0 0" >writer || return 1
	# Its own statement, as above.
	(cd moving && exec sh ../writer.sh "$REFTABLE_GIT") &
	writer=$! &&
	test_when_finished "touch stop-writer; wait $writer" &&
	reads=0 &&
	: >archived &&
	while :
	do
		(cd moving && garchive --format=tar moving) >actual.tar || {
			echo "read $reads: garchive failed"
			return 1
		}
		sum=$(sha256sum <actual.tar | cut -d" " -f1) &&
		grep "^$sum " sums | cut -d" " -f2 >>archived &&
		test $(wc -l <archived) = $((reads + 1)) || {
			echo "read $reads: an archive of no commit moving held"
			return 1
		}
		reads=$((reads + 1)) &&
		read -r rounds updates compactions <writer &&
		if test $reads -ge 50 && test $rounds -ge 20
		then
			break
		fi &&
		! test -f writer-failed || {
			echo "the writer (git) failed after $rounds rounds"
			return 1
		}
		test $reads -lt 5000 || {
			echo "the writer did $rounds rounds in $reads reads"
			return 1
		}
	done &&
	echo "$test_object_format: $reads reads; writer: $rounds rounds," \
		"$updates ref updates, $compactions compactions" \
		"(pack-refs); $(sort -u archived | wc -l) distinct commits" \
		"archived"
'

# The repository format, as git 2.39 reads it.
# fixture_commit KIND MESSAGE: the commit of fixture KIND whose subject
# is MESSAGE, found by the system git in the fixture's objects from the
# ids its refs held.
fixture_commit () {
	cut -d" " -f2 "fx/$1/expect/main/for-each-ref" | sort -u |
	xargs git --git-dir="borrow-$1" log --format="%H %s" 2>/dev/null |
	awk -v m="$2" '$2 == m && !done { print $1; done = 1 }'
}

# searched_as KIND DIR NAME ID: garchive's archive of NAME, run in DIR,
# is the system git's of ID.
searched_as () {
	(cd "$2" && garchive --format=tar "$3") >actual.tar &&
	git_archive_of "$1" "$4" >expect.tar &&
	cmp expect.tar actual.tar || {
		echo "$1: $3 is not $4"
		return 1
	}
}

# The fixtures' history: one .. seven on main (seven the youngest), five
# on feature, origin/main at three, and "in-worktree" (younger than all)
# on wt-branch, the linked worktree's HEAD.  git 2.47 wrote the refs;
# the system git cannot read them, so the answers are the commits the
# history makes right, and for "^{/}" (one start, walked alike by every
# git) the system git's own rev-parse in the borrowed objects.
test_expect_success 'search: ":/<text>" and "<rev>^{/<text>}" over reftable refs' '
	for k in fx/$fx_hash-reftable-*
	do
		kind=${k#fx/} &&
		seven=$(fixture_commit $kind seven) &&
		five=$(fixture_commit $kind five) &&
		wt=$(fixture_commit $kind in-worktree) &&
		test -n "$seven" && test -n "$five" && test -n "$wt" &&
		searched_as $kind $k/repo ":/^s" $seven &&
		searched_as $kind $k/repo ":/^f" $five &&
		searched_as $kind $k/repo ":/^(one|in-)" $wt &&
		searched_as $kind $k/repo ":/!-^in-worktree" $seven &&
		searched_as $kind $k/wt ":/^s" $seven &&
		main=$(sed -n "s/^main	//p" $k/expect/main/rev-parse) &&
		for re in t o s
		do
			id=$(git --git-dir=borrow-$kind rev-parse \
				"$main^{/^$re}") &&
			searched_as $kind $k/repo "main^{/^$re}" $id || return 1
		done &&
		searched_as $kind $k/repo "feature^{/}" $five &&
		(cd $k/repo && test_expect_code 128 \
			garchive --format=tar ":/nomatch") >out 2>err &&
		echo "fatal: not a valid object name: :/nomatch" >expect &&
		test_cmp expect err || return 1
	done
'

# with_upstream CMD...: CMD with main tracking origin/main.
with_upstream () {
	GIT_CONFIG_COUNT=3 \
	GIT_CONFIG_KEY_0=branch.main.remote GIT_CONFIG_VALUE_0=origin \
	GIT_CONFIG_KEY_1=branch.main.merge GIT_CONFIG_VALUE_1=refs/heads/main \
	GIT_CONFIG_KEY_2=remote.origin.fetch \
	GIT_CONFIG_VALUE_2="+refs/heads/*:refs/remotes/origin/*" \
	"$@"
}

test_expect_success 'upstream: @{u} and @{push} from reftable refs' '
	for k in fx/$fx_hash-reftable-*
	do
		kind=${k#fx/} &&
		origin=$(sed -n "s|^refs/remotes/origin/main \([0-9a-f]*\).*|\1|p" \
			$k/expect/main/for-each-ref) &&
		test -n "$origin" &&
		for n in @{u} main@{upstream} @{push} main@{push}
		do
			(cd $k/repo && with_upstream garchive --format=tar $n) \
				>actual.tar &&
			git_archive_of $kind $origin >expect.tar &&
			cmp expect.tar actual.tar || return 1
		done &&
		(cd $k/repo && test_expect_code 128 with_upstream \
			garchive --format=tar feature@{u}) >out 2>err &&
		echo "fatal: no upstream configured for branch '"'feature'"'" \
			>expect &&
		test_cmp expect err &&
		(cd $k/wt && test_expect_code 128 with_upstream \
			garchive --format=tar @{push}) >out 2>err &&
		echo "fatal: no upstream configured for branch '"'wt-branch'"'" \
			>expect &&
		test_cmp expect err &&
		(cd $k/repo && test_expect_code 128 \
			garchive --format=tar gone@{u}) >out 2>err &&
		echo "fatal: no such branch: '"'gone'"'" >expect &&
		test_cmp expect err || return 1
	done
'

test_expect_success 'setup: a repository to change the format of' '
	git init -q fmt &&
	(cd fmt && test_commit one)
'

# with_format VERSION [KEY=VALUE...]: set the format of fmt/ anew.  A
# SHA-256 repository keeps its extensions.objectformat in version 1 and
# later unless KEY=VALUE names one (version 0 has none: it is SHA-1).
with_format () {
	git config -f fmt/.git/config --remove-section extensions 2>/dev/null
	git config -f fmt/.git/config core.repositoryformatversion "$1" &&
	if test "$test_object_format" = sha256 && test "$1" != 0
	then
		case " $* " in
		*" extensions.objectformat="*) ;;
		*) git config -f fmt/.git/config extensions.objectformat sha256 ;;
		esac
	fi &&
	shift &&
	for kv in "$@"
	do
		git config -f fmt/.git/config "${kv%%=*}" "${kv#*=}" || return 1
	done
}

test_expect_success 'extensions git reads; unknown ones in version 0' '
	with_format 0 extensions.foo=bar &&
	(cd fmt && test_same_as_git HEAD) &&
	with_format 1 extensions.noop=x extensions.noop-v1=x \
		extensions.objectformat=$test_object_format \
		extensions.worktreeconfig=true \
		extensions.preciousobjects=true \
		extensions.partialclone=origin &&
	(cd fmt && test_same_as_git HEAD) &&
	with_format 1 extensions.refstorage=files &&
	(cd fmt && garchive HEAD >../actual.tar) &&
	with_format 1 &&
	(cd fmt && git archive HEAD >../expect.tar) &&
	cmp expect.tar actual.tar
'

test_expect_success 'unknown extensions in version 1: git refuses them' '
	with_format 1 extensions.foo=bar &&
	(cd fmt && same_failure_as_git HEAD) &&
	(cd fmt && GIT_DIR=.git && export GIT_DIR && same_failure_as_git HEAD) &&
	with_format 1 extensions.foo=bar extensions.bar=baz &&
	(cd fmt && same_failure_as_git HEAD) &&
	git init -q --bare fmt.git &&
	git config -f fmt.git/config core.repositoryformatversion 1 &&
	git config -f fmt.git/config extensions.foo bar &&
	(cd fmt.git/refs && same_failure_as_git HEAD)
'

test_expect_success 'version-1 extensions in version 0, a version over 1' '
	with_format 0 extensions.objectformat=sha1 &&
	(cd fmt && same_failure_as_git HEAD) &&
	with_format 0 extensions.noop-v1=x extensions.objectformat=sha1 &&
	(cd fmt && same_failure_as_git HEAD) &&
	with_format 2 &&
	(cd fmt && same_failure_as_git HEAD) &&
	(cd fmt && GIT_DIR=.git && export GIT_DIR && same_failure_as_git HEAD)
'

test_expect_success 'an objectformat git does not know' '
	with_format 1 extensions.objectformat=sha3 &&
	(cd fmt && same_failure_as_git HEAD) &&
	with_format 0
'

test_done

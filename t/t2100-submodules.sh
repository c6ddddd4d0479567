#!/bin/sh
test_description='--recurse-submodules archives submodules in place'
. "$(dirname "$0")/lib.sh"

# The ownership tests chown copies to nobody.
test_lazy_prereq ROOT 'test "$(id -u)" = 0'

# graft_commit COMMIT: a commit of COMMIT's tree in which every gitlink
# is replaced, recursively, by its submodule's tree (objects borrowed
# through alternates), with COMMIT's committer date: what git archive
# would write if the submodules were subtrees.
graft_commit () {
	GIT_INDEX_FILE=$PWD/.git/graft-index &&
	export GIT_INDEX_FILE &&
	git read-tree "$1" &&
	while :
	do
		line=$(git ls-files -s | grep "^160000" | head -n 1)
		test -n "$line" || break
		oid=$(echo "$line" | cut -d" " -f2) &&
		path=$(echo "$line" | cut -f2) &&
		name=$(echo "$path" | sed "s|^libs/b$|old-b|; s|/|/modules/|g") &&
		echo "$(git rev-parse --absolute-git-dir)/modules/$name/objects" \
			>>.git/objects/info/alternates &&
		git update-index --force-remove "$path" &&
		git read-tree --prefix="$path/" "$oid^{tree}" || return 1
	done &&
	tree=$(git write-tree) &&
	unset GIT_INDEX_FILE &&
	rm -f .git/graft-index &&
	GIT_COMMITTER_DATE="$(git log -1 --format=%cd --date=raw "$1")" \
		git commit-tree -m graft "$tree"
}

# same_but_commit FORMAT EXPECT ACTUAL: the archives are the same but
# for where the commit id is recorded (tar: the pax global header, the
# first 1024 bytes; zip: the comment, the last hex id), which in
# ACTUAL must be the superproject's, as `git archive HEAD` records it.
same_but_commit () {
	case $1 in
	tar)
		tail -c +1025 "$2" >expect.body &&
		tail -c +1025 "$3" >actual.body &&
		head -c 1024 "$3" >actual.head &&
		git archive HEAD | head -c 1024 >expect.head &&
		test_cmp expect.head actual.head
		;;
	zip)
		size=$(wc -c <"$2") && hexsz=$(test_hexsz) &&
		head -c $((size - hexsz)) "$2" >expect.body &&
		head -c $((size - hexsz)) "$3" >actual.body &&
		tail -c $hexsz "$3" >actual.comment &&
		git rev-parse HEAD | tr -d "\n" >expect.comment &&
		test_cmp expect.comment actual.comment
		;;
	esac &&
	test_cmp expect.body actual.body
}

sm () {
	git -c protocol.file.allow=always submodule -q "$@"
}

test_expect_success 'setup: a superproject with nested submodules' '
	git init -q inner &&
	(
		cd inner &&
		mkdir -p d &&
		echo in >i.txt &&
		echo deep >d/x.txt &&
		echo drop >d/ignored.log &&
		echo "*.log export-ignore" >.gitattributes &&
		git add . &&
		test_tick &&
		git commit -q -m inner
	) &&
	git init -q sub &&
	(
		cd sub &&
		echo s >s.txt &&
		echo s >sa &&
		sm add ../inner inner &&
		git add . &&
		test_tick &&
		git commit -q -m sub
	) &&
	git init -q b &&
	(
		cd b &&
		echo b >b.txt &&
		git add . &&
		test_tick &&
		git commit -q -m b
	) &&
	git init -q super &&
	(
		cd super &&
		echo top >a &&
		echo z >sub-a &&
		echo y >sub.c &&
		echo x >"sub a" &&
		mkdir libs &&
		echo l >libs/l.txt &&
		sm add ../sub sub &&
		sm add --name old-b ../b libs/b &&
		sm update --init --recursive &&
		git add . &&
		test_tick &&
		git commit -q -m super
	) &&
	test -d super/.git/modules/sub/modules/inner &&
	test -d super/.git/modules/old-b
'

test_expect_success 'without the option nothing changes' '
	(cd super && test_same_as_git --prefix=p/ HEAD) &&
	(cd super && test_same_as_git --format=zip HEAD)
'

test_expect_success 'tar: as git archive of the grafted tree' '
	(
		cd super &&
		graft=$(graft_commit HEAD) &&
		git archive --prefix=p/ $graft >../graft.tar &&
		garchive --recurse-submodules --prefix=p/ HEAD >../ga.tar &&
		same_but_commit tar ../graft.tar ../ga.tar
	) &&
	tar tf ga.tar >list &&
	grep "^p/sub/inner/d/x.txt$" list &&
	grep "^p/libs/b/b.txt$" list &&
	! grep "ignored.log" list
'

test_expect_success 'entries come where the subtree sorts, not the gitlink' '
	tar tf ga.tar | grep -n "^p/sub" >order &&
	cat >expect <<-\EOF &&
	p/sub a
	p/sub-a
	p/sub.c
	p/sub/
	EOF
	sed -n "s/^[0-9]*://p" order | head -n 4 >actual &&
	test_cmp expect actual
'

test_expect_success 'zip: the same' '
	(
		cd super &&
		graft=$(graft_commit HEAD) &&
		git archive --format=zip --prefix=p/ $graft >../graft.zip &&
		garchive --format=zip --recurse-submodules --prefix=p/ HEAD >../ga.zip &&
		same_but_commit zip ../graft.zip ../ga.zip
	)
'

test_expect_success 'pathspecs reach into submodules' '
	(
		cd super &&
		graft=$(graft_commit HEAD) &&
		git archive $graft sub/inner/d libs >../graft-part.tar &&
		garchive --recurse-submodules HEAD sub/inner/d libs >../ga-part.tar &&
		same_but_commit tar ../graft-part.tar ../ga-part.tar &&
		test_must_fail garchive --recurse-submodules HEAD sub/nothing 2>err &&
		grep "^fatal: pathspec .sub/nothing. did not match any files$" err
	)
'

test_expect_success 'export-ignore of the gitlink drops the submodule' '
	(
		cd super &&
		echo "sub export-ignore" >.gitattributes &&
		git add .gitattributes &&
		test_tick &&
		git commit -q -m ignore &&
		graft=$(graft_commit HEAD) &&
		git archive $graft >../graft-ign.tar &&
		garchive --recurse-submodules HEAD >../ga-ign.tar &&
		same_but_commit tar ../graft-ign.tar ../ga-ign.tar &&
		git rm -q --cached .gitattributes && rm .gitattributes &&
		test_tick &&
		git commit -q -m unignore
	)
'

test_expect_success 'export-subst expands against the submodule'"'"'s commit' '
	(
		cd inner &&
		printf "\$Format:%%H\$\n" >ver &&
		echo "ver export-subst" >>.gitattributes &&
		git add . &&
		test_tick &&
		git commit -q -m subst
	) &&
	(
		cd super/sub/inner &&
		git pull -q ../../../inner HEAD 2>/dev/null || git fetch -q ../../../inner && git checkout -q FETCH_HEAD
	) &&
	(cd super/sub && git add inner && test_tick && git commit -q -m bump) &&
	(cd super && git add sub && test_tick && git commit -q -m bump) &&
	(cd super && garchive --recurse-submodules HEAD) >subst.tar &&
	tar xOf subst.tar sub/inner/ver >actual &&
	git -C super/sub/inner rev-parse HEAD >expect &&
	test_cmp expect actual
'

test_expect_success 'a submodule checked out in the work tree, not absorbed' '
	git init -q wt &&
	(
		cd wt &&
		echo w >w &&
		git clone -q ../b inside &&
		git add w inside 2>/dev/null &&
		test_tick &&
		git commit -q -m wt &&
		garchive --recurse-submodules HEAD >../wt.tar
	) &&
	tar tf wt.tar >list &&
	grep "^inside/b.txt$" list
'

test_expect_success 'a missing commit is an error naming path and commit' '
	(
		cd super &&
		# The grafts above borrowed objects through alternates that
		# name the repository moved away here; git and garchive
		# both complain about an alternate that is gone.
		rm -f .git/objects/info/alternates &&
		mv .git/modules/sub/modules/inner ../inner-moved &&
		c=$(git -C sub rev-parse HEAD:inner) &&
		test_expect_code 128 garchive --recurse-submodules -o ../x.tar HEAD 2>err &&
		echo "fatal: submodule '"'"'sub/inner'"'"': commit $c not found" >expect &&
		test_cmp expect err &&
		test_path_is_missing ../x.tar
	)
'

test_expect_success '=skip-missing warns and archives the gitlink as git does' '
	(
		cd super &&
		c=$(git -C sub rev-parse HEAD:inner) &&
		garchive --recurse-submodules=skip-missing HEAD >../skip.tar 2>err &&
		echo "warning: submodule '"'"'sub/inner'"'"': commit $c not found, archived as an empty directory" >expect &&
		test_cmp expect err &&
		mv ../inner-moved .git/modules/sub/modules/inner
	) &&
	tar tf skip.tar >list &&
	grep "^sub/inner/$" list &&
	! grep "^sub/inner/." list
'

test_expect_success 'bad values and a server that refuses it' '
	(cd super && test_expect_code 129 garchive --recurse-submodules=yes HEAD) 2>err &&
	grep "^error: option .recurse-submodules. takes no value but skip-missing$" err &&
	(cd super && test_expect_code 1 garchive --remote=. --recurse-submodules HEAD) >out 2>err &&
	grep "unknown option .recurse-submodules." err &&
	(cd super && test_expect_code 1 garchive --remote=. --exec="garchive upload-archive" --recurse-submodules HEAD) >out 2>err &&
	grep "unknown option .recurse-submodules." err &&
	(cd super && test_same_as_git --re=x HEAD) &&
	(cd super && test_same_as_git --no-rec HEAD)
'

# chain DIR N: a repository whose commit l0 has a submodule "sub" at
# commit l1, whose submodule "sub" is at l2, ... down to lN, each level
# with a file f.  One fast-import writes every commit; each level's
# $GIT_DIR/modules/sub is a bare git directory borrowing the objects
# through alternates.  flat25 is l25 with the levels below as subtrees
# (what git archive writes when the submodules are plain directories).
chain () {
	git init -q "$1" &&
	(
		cd "$1" &&
		n=$2 &&
		k=$n &&
		while test $k -ge 0
		do
			printf "commit refs/heads/l%d\nmark :%d\n" $k $((k + 1)) &&
			printf "committer C <c@example.com> 1234567890 +0000\n" &&
			printf "data <<END\nlevel %d\nEND\n" $k &&
			printf "M 100644 inline f\ndata <<END\nlevel %d\nEND\n" $k &&
			if test $k -lt $n
			then
				printf "M 100644 inline .gitmodules\ndata <<END\n" &&
				printf "[submodule \"sub\"]\n\tpath = sub\nEND\n" &&
				printf "M 160000 :%d sub\n" $((k + 2))
			fi &&
			k=$((k - 1)) || return 1
		done >stream &&
		for s in 25
		do
			printf "commit refs/heads/flat%d\n" $s &&
			printf "committer C <c@example.com> 1234567890 +0000\n" &&
			printf "data <<END\nflat\nEND\n" &&
			k=$s p= &&
			while test $k -le $n
			do
				printf "M 100644 inline %sf\ndata <<END\nlevel %d\nEND\n" "$p" $k &&
				if test $k -lt $n
				then
					printf "M 100644 inline %s.gitmodules\ndata <<END\n" "$p" &&
					printf "[submodule \"sub\"]\n\tpath = sub\nEND\n"
				fi &&
				k=$((k + 1)) p=${p}sub/ || return 1
			done || return 1
		done >>stream &&
		git fast-import --quiet <stream &&
		git symbolic-ref HEAD refs/heads/l0 &&
		d=.git k=1 &&
		while test $k -le $n
		do
			d=$d/modules/sub &&
			mkdir -p $d/objects/info $d/refs/heads &&
			echo "ref: refs/heads/main" >$d/HEAD &&
			git config -f $d/config core.repositoryformatversion 1 &&
			git config -f $d/config extensions.objectformat \
				"$(git rev-parse --show-object-format)" &&
			echo "$PWD/.git/objects" >$d/objects/info/alternates &&
			k=$((k + 1)) || return 1
		done
	)
}

test_expect_success 'a chain of 40 nested submodules, with the bytes of git' '
	chain deep 65 &&
	(
		cd deep &&
		git archive flat25 >../flat.tar &&
		garchive --recurse-submodules l25 >../deep.tar &&
		git archive l25 | head -c 1024 >../expect.head
	) &&
	head -c 1024 deep.tar >actual.head &&
	test_cmp expect.head actual.head &&
	tail -c +1025 flat.tar >expect.body &&
	tail -c +1025 deep.tar >actual.body &&
	test_cmp expect.body actual.body &&
	test $(tar tf deep.tar | grep -c "/f$") = 40
'

test_expect_success 'nested levels share one set of read-ahead threads' '
	rm -f tasks &&
	(cd deep && GARCHIVE_TEST_TASKS=$PWD/../tasks garchive --threads=8 \
		--recurse-submodules l25 >../deep8.tar) &&
	test_cmp deep.tar deep8.tar &&
	test $(wc -l <tasks) = 41 &&
	sort -u tasks >counts &&
	test $(wc -l <counts) = 1 &&
	test $(cat counts) -le 8
'

test_expect_success '64 levels of submodules are archived, 65 are refused' '
	(
		cd deep &&
		garchive --recurse-submodules l1 >../l1.tar &&
		test $(tar tf ../l1.tar | grep -c "/f$") = 64 &&
		test_expect_code 128 garchive --recurse-submodules l0 >../l0.tar 2>../err
	) &&
	p=$(printf "sub/%.0s" $(seq 65)) &&
	echo "fatal: submodule '"'"'${p%/}'"'"': more than 64 levels of nested submodules" >expect &&
	test_cmp expect err
'

# no_global_safe: a global configuration without lib.sh's
# safe.directory=*, for git and garchive alike.
no_global_safe () {
	: >"$TRASH_DIRECTORY/plain.gitconfig" &&
	GIT_CONFIG_GLOBAL=$TRASH_DIRECTORY/plain.gitconfig &&
	export GIT_CONFIG_GLOBAL
}

# refused_in DIR ERR: ERR is what git says when run in DIR, a repository
# that git does not trust: "detected dubious ownership" and its hint.
refused_in () {
	(cd "$1" && test_expect_code 128 git archive HEAD) >/dev/null 2>expect.err &&
	grep "^fatal: detected dubious ownership in repository at '$1'\$" \
		expect.err &&
	test_cmp expect.err "$2"
}

test_expect_success 'a submodule git does not trust is refused, as git refuses it' '
	GIT_TEST_ASSUME_DIFFERENT_OWNER=1 && export GIT_TEST_ASSUME_DIFFERENT_OWNER &&
	test_when_finished "unset GIT_TEST_ASSUME_DIFFERENT_OWNER GIT_CONFIG_GLOBAL" &&
	no_global_safe &&
	cd super &&
	top=$TRASH_DIRECTORY/super &&
	test_expect_code 128 garchive -c safe.directory="$top" \
		--recurse-submodules HEAD >out 2>err &&
	test_must_be_empty out &&
	refused_in "$top/libs/b" err &&
	test_expect_code 128 garchive -c safe.directory="$top" \
		--recurse-submodules=skip-missing HEAD >out 2>err &&
	refused_in "$top/libs/b" err &&
	garchive -c safe.directory=* --recurse-submodules HEAD >all.tar &&
	GIT_CONFIG_COUNT=3 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$top" \
	GIT_CONFIG_KEY_1=safe.directory GIT_CONFIG_VALUE_1="$top/libs/b" \
	GIT_CONFIG_KEY_2=safe.directory GIT_CONFIG_VALUE_2="$top/sub" \
	test_expect_code 128 garchive --recurse-submodules HEAD >out 2>err &&
	refused_in "$top/sub/inner" err &&
	# Met inside the walk, the refusal ends the archive there, as any
	# failure does (the whole blocks written so far stay, as in git):
	# nothing of the refused repository, and no -o file.
	! grep -a "sub/inner/" out &&
	GIT_CONFIG_COUNT=3 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="$top" \
	GIT_CONFIG_KEY_1=safe.directory GIT_CONFIG_VALUE_1="$top/libs/b" \
	GIT_CONFIG_KEY_2=safe.directory GIT_CONFIG_VALUE_2="$top/sub" \
	test_expect_code 128 garchive --recurse-submodules -o ga.tar HEAD 2>err &&
	refused_in "$top/sub/inner" err &&
	test_path_is_missing ga.tar
'

test_expect_success ROOT 'a submodule owned by nobody: refused, its filter never run' '
	cp -R super foreign &&
	test_when_finished "rm -rf \"$TRASH_DIRECTORY/foreign\"; unset GIT_CONFIG_GLOBAL" &&
	no_global_safe &&
	cd foreign &&
	top=$TRASH_DIRECTORY/foreign &&
	git --git-dir=.git/modules/old-b config filter.evil.smudge \
		"touch \"$TRASH_DIRECTORY/ran\"; cat" &&
	echo "* filter=evil" >.git/modules/old-b/info/attributes &&
	garchive --recurse-submodules HEAD >/dev/null &&
	test_path_is_file "$TRASH_DIRECTORY/ran" &&
	rm "$TRASH_DIRECTORY/ran" &&
	chown -R nobody .git/modules/old-b &&
	test_expect_code 128 garchive --recurse-submodules HEAD >out 2>err &&
	test_must_be_empty out &&
	test_path_is_missing "$TRASH_DIRECTORY/ran" &&
	refused_in "$top/libs/b" err &&
	# the superproject'"'"'s own config cannot vouch for it
	git config safe.directory "*" &&
	test_expect_code 128 garchive --recurse-submodules HEAD >out 2>err &&
	refused_in "$top/libs/b" err &&
	test_path_is_missing "$TRASH_DIRECTORY/ran" &&
	garchive -c safe.directory="$top/libs/b" --recurse-submodules HEAD \
		>out &&
	test_path_is_file "$TRASH_DIRECTORY/ran" &&
	rm "$TRASH_DIRECTORY/ran" &&
	chown -R root .git/modules/old-b &&
	chown nobody libs/b/.git &&
	test_expect_code 128 garchive --recurse-submodules HEAD >out 2>err &&
	refused_in "$top/libs/b" err &&
	test_path_is_missing "$TRASH_DIRECTORY/ran" &&
	chown root libs/b/.git &&
	chown -R nobody .git/modules/sub/modules/inner &&
	test_expect_code 128 garchive --recurse-submodules HEAD >out 2>err &&
	refused_in "$top/sub/inner" err
'

# Without a work tree to run in, the repository is named.
test_expect_success ROOT 'a submodule without work tree owned by nobody' '
	cp -R super foreign &&
	test_when_finished "rm -rf \"$TRASH_DIRECTORY/foreign\"; unset GIT_CONFIG_GLOBAL" &&
	no_global_safe &&
	cd foreign &&
	rm libs/b/.git &&
	chown -R nobody .git/modules/old-b &&
	test_expect_code 128 garchive --recurse-submodules HEAD >out 2>err &&
	cat >expect <<-EOF &&
	fatal: detected dubious ownership in repository at '"'$TRASH_DIRECTORY/foreign/.git/modules/old-b'"'
	To add an exception for this directory, call:

	 	git config --global --add safe.directory $TRASH_DIRECTORY/foreign/.git/modules/old-b
	EOF
	sed "s/^ //" expect >expect.err &&
	test_cmp expect.err err &&
	garchive -c safe.directory="$TRASH_DIRECTORY/foreign/.git/modules/old-b" \
		--recurse-submodules HEAD >out &&
	tar tf out >list &&
	grep "^libs/b/b.txt$" list
'

test_expect_success 'a submodule that is a partial clone: its blobs fetched' '
	git -C b config uploadpack.allowFilter true &&
	git init -q pcsuper &&
	(
		cd pcsuper &&
		echo t >t &&
		git clone -q --no-checkout --filter=blob:none \
			"file://$TRASH_DIRECTORY/b" lb &&
		git add t lb 2>/dev/null &&
		test_tick &&
		git commit -q -m pcsuper &&
		for n in 1 8
		do
			test_expect_code 128 env GIT_NO_LAZY_FETCH=1 \
				garchive --threads=$n --recurse-submodules HEAD \
				>/dev/null 2>err &&
			grep "^warning: lazy fetching disabled; some objects may not be available\$" err ||
			return 1
		done &&
		garchive --threads=8 --recurse-submodules HEAD >../pc.tar &&
		garchive --threads=1 --recurse-submodules HEAD >../pc1.tar
	) &&
	test_cmp pc.tar pc1.tar &&
	tar xOf pc.tar lb/b.txt >actual &&
	git -C b show HEAD:b.txt >expect &&
	test_cmp expect actual
'

# Without its trees nothing is prefetched: each tree is fetched when the
# walk reads it (git's lazy fetch of one object).
test_expect_success 'a submodule cloned without trees: each fetched when read' '
	git init -q pctree &&
	(
		cd pctree &&
		echo t >t &&
		git clone -q --no-checkout --filter=tree:0 \
			"file://$TRASH_DIRECTORY/b" lb &&
		test_must_fail env GIT_NO_LAZY_FETCH=1 \
			git -C lb cat-file -e HEAD^{tree} 2>/dev/null &&
		git add t lb 2>/dev/null &&
		test_tick &&
		git commit -q -m pctree &&
		test_expect_code 128 env GIT_NO_LAZY_FETCH=1 \
			garchive --recurse-submodules HEAD >/dev/null 2>err &&
		grep "^warning: lazy fetching disabled; some objects may not be available\$" err &&
		garchive --recurse-submodules HEAD >../pct.tar
	) &&
	tar xOf pct.tar lb/b.txt >actual &&
	git -C b show HEAD:b.txt >expect &&
	test_cmp expect actual
'

test_done

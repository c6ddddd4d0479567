#!/bin/sh
test_description='blob prefetch: the same bytes, messages and status with 1 and 8 threads'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-repo.sh"

# run_threads N ARGS...: garchive with N threads; output, stderr and
# status in tN.out, tN.err, tN.code.
run_threads () {
	n=$1
	shift
	garchive --threads="$n" "$@" >"t$n.out" 2>"t$n.err"
	echo $? >"t$n.code"
}

# errors_agree ARGS...: the same stderr and status with 1, 2 and 8
# threads, whatever was written before the error.
errors_agree () {
	run_threads 1 "$@" &&
	run_threads 2 "$@" &&
	run_threads 8 "$@" &&
	test_cmp t1.code t8.code &&
	test_cmp t1.code t2.code &&
	test_cmp t1.err t8.err &&
	test_cmp t1.err t2.err
}

# threads_agree ARGS...: 1, 2 and 8 threads give the same archive, the
# same stderr and the same status.
threads_agree () {
	errors_agree "$@" &&
	test_cmp t1.out t8.out &&
	test_cmp t1.out t2.out
}

# same_errors_as_git ARGS...: git's status and diagnostics, with any
# number of threads.
same_errors_as_git () {
	git archive "$@" >expect.out 2>expect.err
	echo $? >expect.code
	diagnostics expect.err >expect.diag
	errors_agree "$@" &&
	diagnostics t8.err >actual.diag &&
	test_cmp expect.code t8.code &&
	test_cmp expect.diag actual.diag
}

# same_all ARGS...: that, and the archive is git's.
same_all () {
	test_same_as_git "$@" &&
	threads_agree "$@" &&
	test_cmp expect.out t8.out
}

# make_wide_repo DIR: enough files, in enough directories, for the
# workers to run well ahead of the walk, with attributes that make the
# walk skip part of what the scout queued.
make_wide_repo () {
	git init -q "$1" &&
	(
		cd "$1" &&
		for d in a b c ignored keep; do
			mkdir -p "$d/x" "$d/y" || return 1
			for i in 0 1 2 3 4 5 6 7 8 9; do
				repo_text $((i * 700 + 10)) $i >"$d/x/f$i.txt" &&
				echo "$d $i" >"$d/y/g$i.skip" &&
				echo "$d $i" >"$d/y/h$i.c" || return 1
			done
		done &&
		repo_random 300000 7 >a/big.bin &&
		repo_text 400000 8 >keep/big.txt &&
		ln -s a/x/f1.txt link &&
		echo "in an ignored directory only" >ignored/only.txt &&
		echo "\$Format:%H %s\$ is never streamed" >keep/subst.txt &&
		cat >.gitattributes <<-\EOF &&
		ignored export-ignore
		*.skip export-ignore
		keep/subst.txt export-subst
		b/x/f3.txt export-ignore
		EOF
		git add . &&
		test_tick &&
		git commit -q -m wide &&
		echo changed >>a/x/f2.txt &&
		git commit -q -a -m second &&
		git repack -q -a -d &&
		echo loose >loose.txt &&
		git add loose.txt &&
		git commit -q -m loose
	)
}

test_expect_success 'setup' '
	make_edge_repo edge &&
	make_wide_repo wide
'

test_expect_success 'tar and zip of the edge repository' '
	(
		cd edge &&
		for ref in HEAD v1.0 HEAD~1; do
			same_all --format=tar $ref &&
			same_all --format=zip $ref || return 1
		done
	)
'

test_expect_success 'export-ignore and export-subst in a wide tree' '
	(
		cd wide &&
		same_all --format=tar HEAD &&
		same_all --format=zip HEAD &&
		same_all --format=tar --prefix=p/ HEAD~1
	)
'

test_expect_success 'pathspecs, with and without wildcards' '
	(
		cd wide &&
		same_all --format=tar HEAD a keep &&
		same_all --format=zip HEAD "*.c" &&
		same_all --format=tar HEAD ":(exclude)b" &&
		same_all --format=tar HEAD "keep/*.txt" link
	)
'

test_expect_success 'blobs above core.bigFileThreshold, loose and packed' '
	(
		cd wide &&
		git config core.bigFileThreshold 2k &&
		same_all --format=tar HEAD &&
		same_all --format=zip HEAD &&
		git config core.bigFileThreshold 100k &&
		same_all --format=tar HEAD &&
		git config --unset core.bigFileThreshold
	)
'

# Blobs above the read-ahead budget (8 MiB for tar) are read one at a
# time, or one beside a smaller one, and while the walk waits for one
# the workers read on through the small blobs after it (z/: more than
# the 4096 jobs queued ahead, part of it export-ignored); zip reads no
# blob ahead, and its deflate workers read those above 2 MiB.  Either
# way the archive keeps tree order.
# EXPENSIVE (30 MB of blobs): under the sanitizers the next test has
# the workers read large blobs.
test_expect_success EXPENSIVE 'blobs larger than the read-ahead budget' '
	git init -q large &&
	(
		cd large &&
		head -c 3000000 /dev/urandom >a.bin &&
		seq 1 900000 >b.txt &&
		echo small >c.txt &&
		head -c 2500000 /dev/urandom >d.bin &&
		head -c 9000000 /dev/urandom >e.bin &&
		echo small >f.txt &&
		head -c 3100000 /dev/urandom >g.bin &&
		head -c 12000000 /dev/urandom >h.bin &&
		python3 -c "
import os
for d in \"ab\":
    os.makedirs(\"z/\" + d)
    for i in range(3000):
        with open(\"z/%s/%d.txt\" % (d, i), \"w\") as f:
            f.write(\"small %d\\n\" % i * (i % 7))
" &&
		echo "z/a/*5.txt export-ignore" >.gitattributes &&
		git add . &&
		git commit -q -m large &&
		same_all --format=tar HEAD &&
		same_all --format=zip HEAD &&
		git repack -q -a -d &&
		same_all --format=tar HEAD
	)
'

# clone_loose SRC DST: a copy of SRC whose objects are all loose, so
# that one can be removed or damaged.
clone_loose () {
	git clone -q --no-local "$1" "$2" &&
	(
		cd "$2" &&
		mv .git/objects/pack/*.pack "../$2.pack" &&
		rm -f .git/objects/pack/* &&
		git unpack-objects -q <"../$2.pack"
	)
}

# git writes every full 10240-byte tar block, or every earlier zip
# member, before the entry that fails.  garchive drops what its writers
# still hold (a broken archive is never worth completing), so what it
# writes is a prefix of git's output: never a byte git would not write.
is_prefix_of () {
	size=$(wc -c <"$1") &&
	head -c "$size" "$2" >prefix &&
	test_cmp prefix "$1"
}

# zip hands large blobs (above 2 MiB) on unread, for a deflate worker
# to read when it has room, while the walk goes on; a blob some
# conversion may change is read and converted by the walk instead.
test_expect_success 'zip: large members read by the deflate workers' '
	git init -q deferred &&
	(
		cd deferred &&
		seq 1 600000 >a.txt &&
		seq 2 600000 >b.txt &&
		head -c 2200000 /dev/urandom >c.bin &&
		echo small >d.txt &&
		seq 3 600000 >crlf.txt &&
		sed "s/^1/\$Id\$ /" a.txt >ident.txt &&
		sed "s/^1/\$Format:%H\$ /" a.txt >subst.txt &&
		seq 4 600000 >filtered.txt &&
		seq 5 700000 >e.txt &&
		cat >.gitattributes <<-\EOF &&
		crlf.txt text eol=crlf
		ident.txt ident
		subst.txt export-subst
		filtered.txt filter=upper
		EOF
		git config filter.upper.smudge "tr 0-9 a-j" &&
		git add . &&
		git commit -q -m deferred &&
		same_all --format=zip HEAD &&
		same_all --format=zip -1 HEAD &&
		same_all --format=zip -0 HEAD &&
		test_same_as_git -v --format=zip HEAD &&
		test_cmp expect.err actual.err &&
		git config filter.upper.required maybe &&
		same_errors_as_git --format=zip HEAD &&
		test_cmp expect.err t8.err &&
		git config --unset filter.upper.required &&
		garchive --threads=8 --format=zip HEAD >t8.zip &&
		unzip -p t8.zip crlf.txt | head -2 >crlf.head &&
		printf "3\r\n4\r\n" >crlf.expect &&
		test_cmp crlf.expect crlf.head
	)
'

# A large loose blob whose header reads but whose body is damaged: a
# deflate worker fails to read it, after git's earlier members, with
# git's lines.
test_expect_success 'zip: a large member that cannot be read' '
	clone_loose deferred cut &&
	(
		cd cut &&
		oid=$(git rev-parse HEAD:b.txt) &&
		obj=.git/objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-) &&
		chmod u+w "$obj" &&
		size=$(wc -c <"$obj") &&
		{
			head -c 20000 "$obj" &&
			head -c 1000 /dev/zero | tr "\\0" x &&
			tail -c $((size - 21000)) "$obj"
		} >cut.obj &&
		mv cut.obj "$obj" &&
		test_expect_code 128 git archive --format=zip HEAD \
			>git.out 2>/dev/null &&
		same_errors_as_git --format=zip HEAD &&
		grep "^fatal: loose object $oid (stored in .*) is corrupt" t8.err &&
		is_prefix_of t1.out git.out &&
		test_cmp t1.out t8.out &&
		test_cmp t1.out t2.out &&
		test_expect_code 128 garchive -v --format=zip HEAD \
			>v.out 2>v.err &&
		grep "^fatal: loose object $oid (stored in .*) is corrupt" v.err &&
		is_prefix_of v.out git.out
	)
'

test_expect_success 'garchive.threads is the default number of workers' '
	(
		cd wide &&
		garchive --threads=1 --format=tar HEAD >one.tar &&
		garchive -c garchive.threads=3 --format=tar HEAD >three.tar &&
		test_cmp one.tar three.tar &&
		test_must_fail garchive -c garchive.threads=many \
			--format=tar HEAD >out 2>err &&
		grep "^fatal: bad numeric config value .many. for .garchive.threads." err
	)
'

# LeakSanitizer refuses to run under ptrace, so not in ASAN builds.
test_lazy_prereq STRACE '
	strace -f -o /dev/null true &&
	strace -f -o /dev/null garchive --version
'

# threads_started ARGS...: how many threads garchive ARGS starts, with
# no garchive.threads from the global config (GARCHIVE_TEST_THREADS).
threads_started () {
	GIT_CONFIG_GLOBAL=/dev/null \
	strace -f -e trace=clone,clone3 -o clones garchive "$@" >/dev/null &&
	grep -c CLONE_THREAD clones || :
}

test_expect_success STRACE 'the default leaves gzip and tar commands a CPU' '
	cpus=$(getconf _NPROCESSORS_ONLN) &&
	reading=$((cpus - 1)) &&
	beside_gzip=$((cpus - 2)) &&
	if test $beside_gzip -lt 0; then beside_gzip=0; fi &&
	(
		cd wide &&
		test "$(threads_started --format=tar HEAD)" = $reading &&
		test "$(threads_started --format=tgz HEAD)" = $beside_gzip &&
		test "$(threads_started -c tar.tgz.command=cat --format=tgz HEAD)" = $beside_gzip &&
		test "$(threads_started --threads=3 --format=tgz HEAD)" = 2 &&
		test "$(threads_started -c garchive.threads=3 --format=tgz HEAD)" = 2
	)
'

# Copies of `wide` with one blob missing or damaged.
test_expect_success 'setup broken copies' '
	clone_loose wide broken &&
	(
		cd broken &&
		git rev-parse HEAD:a/x/f5.txt >../missing.oid &&
		git rev-parse HEAD:ignored/only.txt >../ignored.oid &&
		git rev-parse HEAD:c/y/h2.c >../corrupt.oid
	) &&
	cp -R broken missing &&
	cp -R broken missing-ignored &&
	cp -R broken corrupt &&
	rm -rf broken &&
	oid=$(cat missing.oid) &&
	rm missing/.git/objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-) &&
	oid=$(cat ignored.oid) &&
	rm missing-ignored/.git/objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-) &&
	oid=$(cat corrupt.oid) &&
	obj=corrupt/.git/objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-) &&
	chmod u+w "$obj" &&
	printf "not zlib at all, but long enough to be read" >"$obj"
'

test_expect_success 'a missing blob: cannot read, status 255, as git' '
	(
		cd missing &&
		same_errors_as_git --format=tar HEAD &&
		grep "^error: cannot read .$(cat ../missing.oid)." t8.err &&
		test_cmp t1.out t8.out &&
		same_errors_as_git --format=zip HEAD
	)
'

test_expect_success 'the output before a missing blob is a prefix of git'"'"'s' '
	(
		cd missing &&
		for fmt in tar zip; do
			test_expect_code 255 git archive --format=$fmt HEAD \
				>git.out 2>/dev/null &&
			test_expect_code 255 garchive --format=$fmt HEAD \
				>ga.out 2>/dev/null &&
			is_prefix_of ga.out git.out || return 1
		done
	)
'

test_expect_success 'a missing blob the walk skips is no error' '
	(
		cd missing-ignored &&
		same_all --format=tar HEAD &&
		same_all --format=zip HEAD &&
		same_all --format=tar HEAD keep
	)
'

test_expect_success 'a corrupt blob is fatal, as git, with any threads' '
	(
		cd corrupt &&
		same_errors_as_git --format=tar HEAD &&
		test_cmp t1.out t8.out &&
		grep "^fatal: loose object $(cat ../corrupt.oid) (stored in .*) is corrupt" t8.err &&
		same_errors_as_git --format=zip HEAD
	)
'

test_done

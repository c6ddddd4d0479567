# t/lib-repo.sh: an edge-case repository for the byte-comparison tests.
#
#	. "$TEST_DIRECTORY/lib-repo.sh"
#	make_edge_repo DIR
#
# Builds, with fixed dates and identities (from lib.sh), a repository
# whose HEAD holds every kind of entry git archive treats specially:
# long names around the ustar limits, symlinks (short, 100, 101 bytes),
# a gitlink, executables, empty and binary files, an incompressible and
# a compressible blob over 1 MiB, UTF-8 and invalid UTF-8 names, names
# with spaces, quotes and glob characters, git's tree order traps, and
# empty trees (which git never writes).  Tags: v1.0 (annotated, first
# commit), light (lightweight), tree-tag (a tree).

repo_long () {
	printf "%$2s" "" | tr ' ' "$1"
}

# Deterministic bytes: N bytes from a seeded generator (no /dev/urandom,
# so every run builds the same objects).
repo_random () {
	python3 -c '
import random, sys
r = random.Random(int(sys.argv[2]))
sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(int(sys.argv[1]))))
' "$1" "$2"
}

repo_text () {
	python3 -c '
import random, sys
r = random.Random(int(sys.argv[2]))
words = "archive tree blob commit zlib deflate gzip header pax ustar".split()
out = []
n = 0
while n < int(sys.argv[1]):
    line = " ".join(r.choice(words) for _ in range(r.randint(3, 12))) + "\n"
    out.append(line)
    n += len(line)
sys.stdout.write("".join(out))
' "$1" "$2"
}

make_edge_repo () {
	git init -q "$1" &&
	(
		cd "$1" &&
		echo "first" >README &&
		git add README &&
		test_tick &&
		git commit -q -m first &&
		git tag -a -m "version 1.0" v1.0 &&
		git tag light &&

		printf "hello\n" >hello.txt &&
		printf "#!/bin/sh\necho hi\n" >exec.sh &&
		chmod +x exec.sh &&
		mkdir -p sub/deeper &&
		printf "#!/bin/sh\n" >sub/tool.sh &&
		chmod +x sub/tool.sh &&
		echo deep >sub/deeper/file.txt &&
		: >empty &&
		printf "\000\001\002\003binary\000" >binary.bin &&
		mkdir -p big &&
		repo_random 1153434 1 >big/random.bin &&
		repo_text 2202009 2 >big/compressible.txt &&
		ln -s hello.txt link &&
		ln -s "sub/deeper" linkdir &&
		ln -s /absolute/target linkabs &&
		ln -s "$(repo_long t 100)" link100 &&
		ln -s "$(repo_long t 101)" link101 &&
		mkdir -p paths &&
		echo 99 >"paths/$(repo_long a 93)" &&
		echo 100 >"paths/$(repo_long b 94)" &&
		echo 101 >"paths/$(repo_long c 95)" &&
		echo top101 >"$(repo_long o 101)" &&
		mkdir -p "paths/$(repo_long p 100)/$(repo_long q 99)" &&
		echo split >"paths/$(repo_long p 100)/$(repo_long q 99)/f" &&
		mkdir -p "paths/$(repo_long r 92)/$(repo_long s 55)" &&
		echo pax >"paths/$(repo_long r 92)/$(repo_long s 55)/$(repo_long u 100)" &&
		mkdir -p names &&
		echo utf8 >"names/caf$(printf "\303\251")" &&
		echo cjk >"names/$(printf "\346\274\242\345\255\227")" &&
		echo bad >"names/bad$(printf "\377\376")name" &&
		echo space >"names/with space" &&
		echo quote >"names/quote\"d" &&
		echo glob >"names/star*" &&
		echo q >"names/what?" &&
		echo dash >"names/-dash" &&
		echo case >names/Case &&
		echo case >names/case &&
		mkdir -p order/foo &&
		for n in foo-bar foo.txt foo0 foo/in; do
			echo "$n" >"order/$n" || return 1
		done &&
		git add . &&
		git update-index --add --cacheinfo \
			160000,$(test_oid_hex 1),modules/lib &&
		test_tick &&
		git commit -q -m "second: every kind of entry" &&

		empty=$(git mktree </dev/null) &&
		inner=$(printf "040000 tree %s\tinner\n" $empty | git mktree) &&
		git ls-tree HEAD >tree.lst &&
		printf "040000 tree %s\temptydir\n040000 tree %s\tnest\n" \
			$empty $inner >>tree.lst &&
		tree=$(git mktree <tree.lst) &&
		rm tree.lst &&
		test_tick &&
		commit=$(git commit-tree -p HEAD -m "third: empty trees" $tree) &&
		git update-ref refs/heads/main $commit &&
		git reset -q --hard &&
		git tag tree-tag $tree
	)
}

#!/bin/sh
test_description='big blobs stored whole in a pack are streamed, as git streams them

A blob above core.bigFileThreshold that is stored whole (not as a delta)
in a pack is inflated from the pack in pieces (src/odb/pack-stream.c): the
archive is git'"'"'s, memory does not grow with the blob, and damage is
told as git tells it.'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
# git runs bounded as garchive does: a damaged pack must not hang either.
ref_git_wrap=bounded

# The memory test measures the plain build: ASan and valgrind add their
# own memory.
test_lazy_prereq PLAIN_BUILD '
	test "$GARCHIVE_BUILD_DIR" = "$GARCHIVE_SRC" &&
	test -z "$GARCHIVE_VALGRIND_REAL"
'

# random_file NAME SIZE SEED: SIZE bytes that deflate cannot shrink.
random_file () {
	python3 -c "
import random, sys
r = random.Random(int(sys.argv[3]))
open(sys.argv[1], \"wb\").write(r.randbytes(int(sys.argv[2])))
" "$@"
}

# text_file NAME SIZE: SIZE bytes of numbered lines, which deflate does.
text_file () {
	seq 1 10000000 | head -c "$2" >"$1"
}

# entry_kinds: "<oid> <type> <size> <delta?>" for the objects of the
# pack, from git verify-pack.
entry_kinds () {
	git verify-pack -v .git/objects/pack/*.idx |
	awk "NF >= 5 && \$2 == \"blob\" { print \$1, \$3, (NF >= 7 ? \"delta\" : \"whole\") }"
}

# same_in_all_modes FORMAT: git'"'"'s archive with 1 and 8 threads (tgz:
# with gzip -cn, the bytes garchive writes; see t5300).
same_in_all_modes () {
	git -c tar.tgz.command="gzip -cn" archive --format=$1 HEAD \
		>expect.$1 &&
	for n in 1 8
	do
		garchive --threads=$n --format=$1 HEAD >actual.$1 &&
		test_cmp expect.$1 actual.$1 || return 1
	done
}

test_expect_success 'setup: blobs of many sizes in one pack, one as a delta' '
	git init -q repo &&
	(
		cd repo &&
		: >empty &&
		echo x >tiny &&
		random_file r1025 1025 1 &&
		random_file r65535 65535 2 &&
		random_file r65536 65536 3 &&
		random_file r65537 65537 4 &&
		random_file r131073 131073 5 &&
		text_file t65536 65536 &&
		text_file t300000 300000 &&
		text_file t2m 2000000 &&
		random_file r40m 40000000 6 &&
		mkdir d &&
		random_file d/r300k 300000 7 &&
		git add . &&
		test_tick &&
		git commit -q -m one &&
		cp t2m t2m-edited &&
		echo edited >>t2m-edited &&
		git add . &&
		test_tick &&
		git commit -q -m two &&
		git repack -adq &&
		git prune &&
		git count-objects -v >count &&
		grep "^count: 0$" count &&
		entry_kinds >kinds &&
		grep " 40000000 whole$" kinds &&
		grep " 65536 whole$" kinds &&
		grep " delta$" kinds
	)
'

test_expect_success 'packed blobs above the threshold: git'"'"'s bytes, tar, tgz and zip' '
	(
		cd repo &&
		for t in 1k 1m
		do
			git config core.bigFileThreshold $t &&
			same_in_all_modes tar &&
			same_in_all_modes tgz &&
			same_in_all_modes zip || return 1
		done
	)
'

test_expect_success 'the same with a prefix, a path and -o' '
	(
		cd repo &&
		git config core.bigFileThreshold 1k &&
		git archive --prefix=p/ HEAD d t2m >expect &&
		garchive --prefix=p/ -o out.tar HEAD d t2m &&
		test_cmp expect out.tar
	)
'

# The objects of the repository are found through its alternate.
test_expect_success 'packed blobs of an alternate are streamed too' '
	git clone -q -s repo borrower &&
	(
		cd borrower &&
		git config core.bigFileThreshold 1k &&
		git count-objects -v >count &&
		grep "^in-pack: 0$" count &&
		same_in_all_modes tar &&
		same_in_all_modes zip
	)
'

# peak_rss_kb ARGS...: garchive ARGS, its output dropped; prints the
# peak resident set of the run in KiB.
peak_rss_kb () {
	python3 -c "
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
" garchive "$@"
}

test_expect_success PLAIN_BUILD 'a 64 MB packed blob is archived in bounded memory' '
	git init -q mem &&
	(
		cd mem &&
		random_file big 64000000 8 &&
		git add big &&
		test_tick &&
		git commit -q -m big &&
		git repack -adq &&
		git prune &&
		git config core.bigFileThreshold 1m &&
		for fmt in tar zip
		do
			rss=$(peak_rss_kb --format=$fmt HEAD) &&
			echo "peak RSS for $fmt: $rss KiB" &&
			test "$rss" -lt 40000 || return 1
		done
	)
'

# pack_only_big DIR SIZE SEED [CONFIG...]: a repository DIR whose pack
# holds only a random blob "big" of SIZE bytes, so that the commit and
# trees are read and damage to the pack is met while the blob is being
# written; git's tar of it and garchive's are the same.
pack_only_big () {
	pob_dir=$1 &&
	git init -q "$pob_dir" &&
	(
		cd "$pob_dir" &&
		random_file big "$2" "$3" &&
		echo a >a &&
		git add . &&
		test_tick &&
		git commit -q -m "$pob_dir" &&
		big=$(git rev-parse HEAD:big) &&
		echo $big | git pack-objects -q .git/objects/pack/pack >/dev/null &&
		rm -f .git/objects/$(echo $big | cut -c1-2)/$(echo $big | cut -c3-) &&
		shift 3 &&
		for c in "$@"
		do
			git config ${c%%=*} "${c#*=}" || return 1
		done &&
		git archive HEAD >../$pob_dir.tar &&
		garchive HEAD >../$pob_dir-ga.tar &&
		test_cmp ../$pob_dir.tar ../$pob_dir-ga.tar
	)
}

test_expect_success 'setup: a pack holding only a big blob' '
	pack_only_big one 3000000 9 core.bigFileThreshold=1m
'

# damage_pack HOW ARG...: a copy of one/ (or $DAMAGE_FROM) in damaged/,
# its pack changed:
#   flip AT N	N bytes at AT turned
#   cut AT N	N bytes at AT taken out, the checksum at the end kept
#   keep AT	the first AT bytes kept, and the checksum (20 or 32 bytes,
#		as the mode's hash)
#   size SIZE	the size in the header of the entry at 12 (the blob;
#		the only entry: the header may change length)
damage_pack () {
	rm -rf damaged &&
	cp -R "${DAMAGE_FROM:-one}" damaged &&
	p=$(ls damaged/.git/objects/pack/*.pack) &&
	chmod u+w "$p" &&
	python3 -c "
import sys
p, rawsz, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
a = [int(x) for x in sys.argv[4:]]
d = bytearray(open(p, \"rb\").read())
if how == \"flip\":
    for i in range(a[0], a[0] + a[1]):
        d[i] ^= 0x55
elif how == \"cut\":
    d = d[:a[0]] + d[a[0] + a[1]:]
elif how == \"keep\":
    d = d[:a[0]] + d[-rawsz:]
elif how == \"size\":
    end = 12
    while d[end] & 0x80:
        end += 1
    size, t = a[0], (d[12] >> 4) & 7
    h = bytearray()
    b = (t << 4) | (size & 15)
    size >>= 4
    while size:
        h.append(b | 0x80)
        b = size & 0x7f
        size >>= 7
    h.append(b)
    d[12:end + 1] = h
open(p, \"wb\").write(d)
" "$p" $(($(test_hexsz) / 2)) "$@"
}

# fails_as_git CODE ARGS...: git and garchive exit CODE with the same
# diagnostics, with 1 and 8 threads; with -o garchive leaves nothing.
fails_as_git () {
	fg_code=$1 &&
	shift &&
	test_clock_start &&
	test_expect_code $fg_code ref_git_ archive "$@" >git.out 2>git.err &&
	diagnostics git.err >expect &&
	for n in 1 8
	do
		test_expect_code $fg_code bounded garchive --threads=$n "$@" \
			>ga.out 2>ga.err &&
		diagnostics ga.err >actual &&
		test_cmp expect actual || return 1
	done &&
	test_expect_code $fg_code bounded garchive -o out.tar "$@" \
		>o.out 2>o.err &&
	test_path_is_missing out.tar &&
	diagnostics o.err >actual &&
	test_cmp expect actual
}

# is_prefix SHORT LONG: the bytes of SHORT start LONG.
is_prefix () {
	head -c "$(wc -c <"$1")" "$2" >prefix.cmp &&
	cmp "$1" prefix.cmp
}

# writes_as_git CODE ARGS...: git and garchive, with 1 and 8 threads,
# exit CODE with the same diagnostics, and garchive writes what git
# wrote before it stopped: the same tar bytes (git reads a blob below
# core.bigFileThreshold whole before it writes a byte of its entry, and
# writes whole 10240-byte blocks), and with tgz a prefix of git'"'"'s bytes
# (git'"'"'s gzip -cn ends the stream of what it was given; garchive
# stops its compressor).
writes_as_git () {
	wg_code=$1 &&
	shift &&
	for fmt in tar tgz
	do
		test_clock_start &&
		test_expect_code $wg_code ref_git_ \
			-c tar.tgz.command="gzip -cn" archive --format=$fmt "$@" \
			>git.out 2>git.err &&
		diagnostics git.err >expect &&
		for n in 1 8
		do
			test_expect_code $wg_code bounded garchive --threads=$n \
				--format=$fmt "$@" >ga.out 2>ga.err &&
			diagnostics ga.err >actual &&
			test_cmp expect actual &&
			if test $fmt = tar
			then
				cmp git.out ga.out
			else
				is_prefix ga.out git.out
			fi || return 1
		done
	done
}

test_expect_success 'damaged deflate data in the blob: git'"'"'s line, 255' '
	for how in "flip 1500000 4" "flip 200 4" "cut 1000000 1000" \
		"keep 20" "keep 3000941"
	do
		damage_pack $how &&
		(
			cd damaged &&
			fails_as_git 255 HEAD &&
			fails_as_git 255 --format=zip HEAD &&
			grep "^error: inflate: data stream error (" ga.err &&
			writes_as_git 255 HEAD
		) || return 1
	done
'

test_expect_success 'a pack cut inside the blob: git'"'"'s line, 128' '
	damage_pack keep 2000000 &&
	cd damaged &&
	fails_as_git 128 HEAD &&
	fails_as_git 128 --format=zip HEAD &&
	echo "fatal: offset beyond end of packfile (truncated pack?)" >expect &&
	test_cmp expect actual &&
	writes_as_git 128 HEAD
'

# git 2.39 archives such a blob cut or long and exits 0; garchive
# refuses it with the words git'"'"'s whole read has for it.
test_expect_success 'an entry header that lies about the size: 128' '
	big=$(git -C one rev-parse HEAD:big) &&
	for size in 2999999 3000001
	do
		damage_pack size $size &&
		(
			cd damaged &&
			echo "fatal: packed object $big (stored in .git/objects/pack/$(basename $p)) is corrupt" >expect &&
			for fmt in tar zip
			do
				test_expect_code 128 bounded garchive --format=$fmt HEAD \
					>ga.out 2>ga.err &&
				test_cmp expect ga.err &&
				test_expect_code 128 bounded garchive -o out.$fmt HEAD \
					2>o.err &&
				test_path_is_missing out.$fmt &&
				test_cmp expect o.err || return 1
			done
		) || return 1
	done
'

# Below core.bigFileThreshold git reads a blob whole.  A tar writer takes
# any file as a stream, so garchive streams a blob larger than its
# read-ahead budget (8 MiB for a plain tar, 2 MiB with a compressor)
# when no conversion changes it: the same bytes in bounded memory.
test_expect_success 'setup: blobs git reads whole, some converted' '
	git init -q mid &&
	(
		cd mid &&
		text_file t64m 64000000 &&
		random_file r10m 10000000 10 &&
		text_file crlf.txt 12000000 &&
		text_file subst.txt 9000000 &&
		echo "\$Format:%H\$" >>subst.txt &&
		text_file ident.txt 9000000 &&
		echo "\$Id\$" >>ident.txt &&
		cat >.gitattributes <<-\EOF &&
		crlf.txt eol=crlf
		subst.txt export-subst
		ident.txt ident
		EOF
		git add . &&
		test_tick &&
		git commit -q -m mid &&
		git repack -adq &&
		git prune
	)
'

# EXPENSIVE (100 MB through git and garchive, in-process gzip four
# times): under the sanitizers the damage tests below stream a 10 MB
# blob git reads whole.
test_expect_success EXPENSIVE 'blobs git reads whole: its bytes, tar and tgz, 1 and 8 threads' '
	(
		cd mid &&
		same_in_all_modes tar &&
		same_in_all_modes tgz &&
		git config tar.tgz.command "git archive gzip" &&
		git archive --format=tgz HEAD >expect &&
		for n in 0 1 2 8
		do
			garchive --threads=$n --format=tgz HEAD >actual &&
			test_cmp expect actual || return 1
		done &&
		git config --unset tar.tgz.command
	)
'

test_expect_success PLAIN_BUILD 'a 64 MB blob below the threshold: tar in bounded memory' '
	(
		cd mid &&
		for n in 1 2 8
		do
			rss=$(peak_rss_kb --threads=$n --format=tar HEAD t64m) &&
			echo "peak RSS with $n threads: $rss KiB" &&
			test "$rss" -lt 40000 || return 1
		done
	)
'

test_expect_success 'setup: a pack holding only a 10 MB blob git reads whole' '
	pack_only_big whole 10000000 11
'

test_expect_success 'damage in a streamed blob git reads whole: its words, 128' '
	big=$(git -C whole rev-parse HEAD:big) &&
	for how in "flip 5000000 4" "flip 9990000 4" "keep 6000000"
	do
		DAMAGE_FROM=whole damage_pack $how &&
		(
			cd damaged &&
			fails_as_git 128 HEAD &&
			grep "^fatal: " ga.err &&
			writes_as_git 128 HEAD
		) || return 1
	done
'

test_expect_success 'damage in a loose blob git reads whole: its words, 128' '
	git init -q loose &&
	(
		cd loose &&
		random_file big 10000000 12 &&
		git add big &&
		test_tick &&
		git commit -q -m loose &&
		f=.git/objects/$(git rev-parse HEAD:big | sed "s|^..|&/|") &&
		chmod u+w "$f" &&
		python3 -c "
import sys
f = open(sys.argv[1], \"r+b\")
f.seek(5000000)
f.write(bytes(16))
" "$f" &&
		fails_as_git 128 HEAD &&
		grep "^error: corrupt loose object" ga.err &&
		writes_as_git 128 HEAD
	)
'

# Before the damaged blob, git has written the entries of the files in
# front of it, as far as whole 10240-byte blocks go.
test_expect_success 'damage after 27 kB of entries: the blocks git wrote' '
	(
		cd loose &&
		for i in 1 2 3 4 5 6 7 8 9
		do
			random_file a$i 3000 $i || return 1
		done &&
		git add . &&
		test_tick &&
		git commit -q -m front &&
		writes_as_git 128 HEAD &&
		test_expect_code 128 git archive HEAD >git.out 2>/dev/null &&
		test -s git.out
	)
'

# git reads an entry header'"'"'s size 7 bits at a time and takes no
# digit that could go past 64 bits: from 2^60 on, the header is "bad",
# the object unreadable, whether it is above core.bigFileThreshold
# (which git asks the size for) or below it (read whole).
test_expect_success 'an entry header saying 2^60: "bad object header", 128' '
	damage_pack size 1152921504606846976 &&
	(
		cd damaged &&
		git config --unset core.bigFileThreshold &&
		writes_as_git 128 HEAD &&
		grep "^error: bad object header$" ga.err &&
		git config core.bigFileThreshold 4611686018427387904 &&
		writes_as_git 128 HEAD &&
		grep "^error: bad object header$" ga.err
	)
'

# git'"'"'s t5000 "generate tar with huge size": a loose blob whose header
# says 64 GiB, cut short after megabytes of zeros.  git streams it (it
# is above core.bigFileThreshold) and dies of SIGPIPE once its reader
# has taken 4096 bytes and gone; it does not read the object through.
test_expect_success 'setup: a loose blob that says 64 GiB, cut short' '
	git init -q huge &&
	(
		cd huge &&
		obj=$(python3 -c "
import hashlib, os, sys, zlib
z = zlib.compressobj()
data = z.compress(b\"blob 68719476737\\0\" + bytes(4 << 20))
data += z.flush(zlib.Z_SYNC_FLUSH)
oid = hashlib.new(sys.argv[1], data).hexdigest()
os.makedirs(\".git/objects/\" + oid[:2], exist_ok=True)
open(\".git/objects/%s/%s\" % (oid[:2], oid[2:]), \"wb\").write(data)
print(oid)
" "$test_object_format") &&
		git update-index --add --cacheinfo 100644,$obj,huge &&
		test_tick &&
		git commit -q -m huge
	)
'

test_expect_success 'a 64 GiB loose blob cut short: streamed, SIGPIPE as git' '
	(
		cd huge &&
		{
			git archive HEAD
			echo $? >git.code
		} | head -c 4096 >git.tar &&
		echo 141 >expect &&
		test_cmp expect git.code &&
		for n in 1 8
		do
			{
				garchive --threads=$n HEAD
				echo $? >ga.code
			} | head -c 4096 >ga.tar &&
			test_cmp expect ga.code &&
			cmp git.tar ga.tar || return 1
		done
	)
'

# Read to its end, git 2.39 stops with status 255 and says nothing;
# garchive tells the damage, having written what git wrote.
test_expect_success 'the same read through: 128, git'"'"'s bytes' '
	(
		cd huge &&
		test_expect_code 255 bounded git archive HEAD >git.out 2>git.err &&
		test -s git.out &&
		for n in 1 8
		do
			test_expect_code 128 bounded garchive --threads=$n HEAD \
				>ga.out 2>ga.err &&
			cmp git.out ga.out &&
			grep "^fatal: loose object .* is corrupt$" ga.err || return 1
		done
	)
'

test_done

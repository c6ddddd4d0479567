#!/bin/sh
test_description='garchive verify: is this archive what that tree-ish gives?'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq BZIP2 'bzip2 --help'
test_lazy_prereq ZSTD 'zstd --version'

# verdict FILE [ARGS...]: run verify from the repository on ../FILE
# (stdout in out, stderr in err) and keep its exit status in $code.
verdict () {
	file=$1
	shift
	(cd repo && garchive verify "../$file" "$@") >out 2>err
	code=$?
}

# run_command: run what verify printed on its "command:" line in
# `again/` (a clone's view of the same repository) and compare with
# FILE, byte for byte.
run_command () {
	sed -n "s/^  command: *//p" out >cmd &&
	test -s cmd &&
	rm -rf again && mkdir again &&
	(cd again && GIT_DIR=../repo/.git && export GIT_DIR &&
	 eval "$(cat ../cmd)") &&
	cmp "$1" "again/$(basename "$1")"
}

# python3 snippets that write hostile archives.
tar_header () {
	# tar_header NAME SIZE TYPE: one ustar header on stdout.
	python3 - "$@" <<-\EOF
	import sys
	name, size, typ = sys.argv[1].encode(), int(sys.argv[2]), sys.argv[3]
	h = bytearray(512)
	h[0:len(name)] = name
	h[100:108] = b"0000644\0"
	h[108:116] = b"0000000\0"
	h[116:124] = b"0000000\0"
	h[124:136] = b"%011o\0" % size
	h[136:148] = b"00000000000\0"
	h[156:157] = typ.encode()
	h[257:265] = b"ustar\x0000"
	h[148:156] = b" " * 8
	h[148:156] = b"%07o\0" % sum(h)
	sys.stdout.buffer.write(bytes(h))
	EOF
}

test_expect_success 'setup' '
	git init -q repo &&
	(
		cd repo &&
		mkdir -p src doc &&
		i=1 &&
		while test $i -le 30
		do
			awk -v n=$i "BEGIN { for (j = 0; j < n * 200; j++) print j * n, \"line\", j }" >src/f$i.c || return 1
			i=$((i + 1))
		done &&
		echo "read me" >README &&
		printf "#!/bin/sh\necho hi\n" >run.sh &&
		chmod +x run.sh &&
		ln -s README link &&
		echo doc >doc/a.txt &&
		git add . &&
		test_tick &&
		git commit -q -m one &&
		git tag v1.2
	) &&
	mkdir files &&
	git -C repo archive --format=tar --prefix=p-1.2/ v1.2 >files/p.tar &&
	git -C repo rev-parse v1.2 >commit
'

test_expect_success 'a tar as git writes it is identical' '
	verdict files/p.tar &&
	test $code = 0 &&
	head -n 1 out >actual &&
	echo identical >expect &&
	test_cmp expect actual &&
	grep "^  tree-ish: *commit $(cat commit) (recorded in the archive)$" out &&
	grep "^  prefix: *p-1.2/ (found from the entries)$" out &&
	grep "^  command: *garchive --format=tar --prefix=p-1.2/ $(cat commit) -o p.tar$" out &&
	test_must_be_empty err &&
	run_command files/p.tar
'

test_expect_success GZIP 'tgz by gzip -cn, and recompressed by gzip -9' '
	(cd repo && garchive --format=tgz --prefix=p-1.2/ v1.2) >files/p.tgz &&
	verdict files/p.tgz &&
	test $code = 0 &&
	echo identical >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  made by: *gzip -cn$" out &&
	run_command files/p.tgz &&

	gzip -dc files/p.tgz | gzip -9cn >files/p9.tar.gz &&
	verdict files/p9.tar.gz &&
	test $code = 0 &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  made by: *gzip -cn -9$" out &&
	grep "^  command: *garchive --format=tar.gz -9 --prefix=p-1.2/ " out &&
	run_command files/p9.tar.gz
'

test_expect_success 'git archive --format=tar.gz -1: git'"'"'s own gzip' '
	git -C repo archive --format=tar.gz -1 --prefix=p-1.2/ v1.2 >files/g1.tar.gz &&
	verdict files/g1.tar.gz &&
	test $code = 0 &&
	echo identical >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  made by: *git.s in-process gzip -1$" out &&
	run_command files/g1.tar.gz
'

test_expect_success GZIP 'same tar, other compression: gzip with a name' '
	cp files/p.tar p-1.2.tar &&
	gzip -c p-1.2.tar >files/named.tar.gz &&
	verdict files/named.tar.gz &&
	test $code = 0 &&
	echo "same tar, other compression" >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  gzip: *header names p-1.2.tar, time .*: gzip without -n$" out &&
	grep "^  tar: *garchive --format=tar --prefix=p-1.2/ $(cat commit) (gives the tar inside)$" out
'

test_expect_success XZ 'xz: the tar inside, or identical with the configured command' '
	xz -c files/p.tar >files/p.tar.xz &&
	verdict files/p.tar.xz &&
	test $code = 0 &&
	echo "same tar, other compression" >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	(cd repo && garchive -c tar.tar.xz.command="xz -c" verify ../files/p.tar.xz) >out &&
	echo identical >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  made by: *tar.tar.xz.command .xz -c.$" out
'

test_expect_success BZIP2 'bzip2' '
	bzip2 -c files/p.tar >files/p.tar.bz2 &&
	verdict files/p.tar.bz2 &&
	test $code = 0 &&
	grep "^  file: .*tar compressed with bzip2" out
'

test_expect_success ZSTD 'zstd, from standard input' '
	zstd -q -c files/p.tar >files/p.tar.zst &&
	(cd repo && garchive verify - <../files/p.tar.zst) >out &&
	echo "same tar, other compression" >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual
'

test_expect_success 'a compressor that is not installed is named' '
	mkdir nobin &&
	for t in git sed; do ln -s "$(command -v $t)" nobin/$t || return 1; done &&
	printf "\375" >files/fake.xz &&
	printf "7zXZ\000rest" >>files/fake.xz &&
	(cd repo && PATH=$GARCHIVE_BUILD_DIR:../nobin &&
	 test_expect_code 128 garchive verify ../files/fake.xz v1.2) 2>err &&
	grep "^fatal: .*compressed with xz, and xz cannot be run: No such file or directory$" err
'

test_expect_success 'same files: tar.umask 022 is found and reproduced' '
	git -C repo -c tar.umask=022 archive --prefix=p-1.2/ v1.2 >files/u.tar &&
	verdict files/u.tar &&
	test $code = 0 &&
	echo "same files, other archive bytes" >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  differs: *modes: written with tar.umask 0022; garchive uses 0002$" out &&
	grep "^  command: *garchive -c tar.umask=0022 --format=tar " out &&
	run_command files/u.tar
'

test_expect_success 'same files: another time' '
	git -C repo archive --mtime=@1234567890 --prefix=p-1.2/ v1.2 >files/m.tar 2>/dev/null ||
	(cd repo && garchive --mtime=@1234567890 --prefix=p-1.2/ v1.2) >files/m.tar &&
	verdict files/m.tar &&
	test $code = 0 &&
	echo "same files, other archive bytes" >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  differs: *time: 2009-02-13 23:31:30 UTC, where garchive writes the commit.s 2005-04-07 22:13:13 UTC$" out &&
	run_command files/m.tar
'

test_expect_success 'a tree: identical with the time it has' '
	git -C repo archive v1.2^{tree} >files/tree.tar &&
	test_expect_code 128 garchive -C repo verify ../files/tree.tar 2>/dev/null;
	(cd repo && test_expect_code 128 garchive verify ../files/tree.tar) 2>err &&
	grep "^fatal: .*records no commit: name the tree-ish to compare it with$" err &&
	verdict files/tree.tar "v1.2^{tree}" &&
	test $code = 0 &&
	echo identical >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  command: *garchive --format=tar --mtime=@[0-9]* .v1.2^{tree}. -o tree.tar$" out &&
	run_command files/tree.tar
'

test_expect_success 'same files, another tool: GNU tar' '
	mkdir x &&
	(cd x && tar xf ../files/p.tar && tar --owner=1000 --group=1000 -cf ../files/gnu.tar p-1.2) &&
	verdict files/gnu.tar v1.2 &&
	test $code = 0 &&
	echo "same files, other archive bytes" >expect &&
	head -n 1 out >actual &&
	test_cmp expect actual &&
	grep "^  differs: *owner: not root/0" out &&
	grep "^  differs: *no commit recorded" out &&
	! grep "^  command:" out
'

test_expect_success 'different: every kind of difference is listed' '
	rm -rf x && mkdir x &&
	(
		cd x && tar xf ../files/p.tar &&
		echo changed >>p-1.2/src/f3.c &&
		rm p-1.2/src/f4.c &&
		echo new >p-1.2/new.txt &&
		chmod +x p-1.2/README &&
		rm p-1.2/link && ln -s run.sh p-1.2/link &&
		tar -cf ../files/changed.tar p-1.2
	) &&
	verdict files/changed.tar v1.2 &&
	test $code = 1 &&
	cat >expect <<-\EOF &&
	different
	  only in archive: p-1.2/new.txt
	  only in tree-ish: p-1.2/src/f4.c
	  other content: p-1.2/src/f3.c
	  other mode: p-1.2/README (archive: executable, tree-ish: file)
	  other link target: p-1.2/link
	EOF
	grep -v "^  [a-z-]*: " out >actual &&
	test_cmp expect actual
'

test_expect_success 'twenty of each, then a count; -v lists them all' '
	rm -rf x && mkdir x &&
	(cd x && tar xf ../files/p.tar && rm p-1.2/src/*.c && tar -cf ../files/empty.tar p-1.2) &&
	verdict files/empty.tar v1.2 &&
	test $code = 1 &&
	test $(grep -c "^  only in tree-ish: " out) = 21 &&
	grep "^  only in tree-ish: \.\.\. and 10 more (-v lists all)$" out &&
	verdict files/empty.tar -v v1.2 &&
	test $code = 1 &&
	test $(grep -c "^  only in tree-ish: " out) = 30
'

test_expect_success 'pathspecs and --prefix' '
	git -C repo archive --prefix=q/ v1.2 src doc >files/part.tar &&
	verdict files/part.tar v1.2 src doc &&
	test $code = 0 &&
	grep "^identical$" out &&
	grep "^  paths: *src doc$" out &&
	verdict files/part.tar --prefix=other/ v1.2 src doc &&
	test $code = 1 &&
	grep "^  only in archive: q/doc/a.txt$" out &&
	git -C repo archive v1.2 src >files/noprefix.tar &&
	verdict files/noprefix.tar v1.2 src &&
	test $code = 0 &&
	grep "^  prefix: *(none) (found from the entries)$" out
'

test_expect_success 'zip: identical, other compression level, from a pipe' '
	git -C repo archive --format=zip --prefix=p-1.2/ v1.2 >files/p.zip &&
	verdict files/p.zip &&
	test $code = 0 &&
	grep "^identical$" out &&
	run_command files/p.zip &&
	git -C repo archive --format=zip -9 --prefix=p-1.2/ v1.2 >files/p9.zip &&
	verdict files/p9.zip &&
	test $code = 0 &&
	grep "^same files, other archive bytes$" out &&
	grep "^  differs: *compressed data or fields: another deflate level, zlib or tool$" out &&
	test_expect_code 128 sh -c "cd repo && cat ../files/p.zip | garchive verify -" 2>err &&
	grep "^fatal: a zip archive records its commit at its end: name the tree-ish" err &&
	(cd repo && cat ../files/p.zip | garchive verify - v1.2) >out &&
	grep "^identical$" out
'

test_expect_success 'zip: MS-DOS times of another time zone' '
	TZ=XST-5:30 git -C repo archive --format=zip --prefix=p-1.2/ v1.2 >files/tz.zip &&
	verdict files/tz.zip &&
	test $code = 0 &&
	grep "^same files, other archive bytes$" out &&
	grep "^  differs: *MS-DOS times: written in another time zone (UTC+05:30)$" out &&
	grep "^  command: *TZ=UTC-05:30 garchive --format=zip " out &&
	run_command files/tz.zip
'

test_expect_success '--digest: the file and the tar inside' '
	verdict files/p9.tar.gz --digest &&
	test $code = 0 &&
	sha256sum <files/p9.tar.gz | sed "s/ .*//" >expect &&
	sed -n "s/^  sha256: *\([0-9a-f]*\)  file$/\1/p" out >actual &&
	test_cmp expect actual &&
	gzip -dc files/p9.tar.gz | sha256sum | sed "s/ .*//" >expect &&
	sed -n "s/^  sha256: *\([0-9a-f]*\)  tar$/\1/p" out >actual &&
	test_cmp expect actual
'

test_expect_success 'errors: status 128 and a message' '
	verdict files/none.tar &&
	test $code = 128 &&
	grep "^fatal: could not open .../files/none.tar.: No such file or directory$" err &&
	echo hello >files/hello.txt &&
	verdict files/hello.txt &&
	test $code = 128 &&
	grep "^fatal: .../files/hello.txt. is not a tar or zip archive$" err &&
	verdict files/p.tar nosuchref &&
	test $code = 128 &&
	grep "^fatal: not a valid object name: nosuchref$" err &&
	verdict files/p.tar --format=zip &&
	test $code = 128 &&
	grep "^fatal: .../files/p.tar. is a tar archive, not zip$" err &&
	gzip -c files/hello.txt >files/hello.gz &&
	verdict files/hello.gz &&
	test $code = 128 &&
	grep "holds is not a tar archive$" err
'

test_expect_success 'usage: status 129' '
	(cd repo && test_expect_code 129 garchive verify) 2>err &&
	grep "^usage: garchive verify" err &&
	(cd repo && test_expect_code 129 garchive verify --bogus x) 2>err &&
	grep "^error: unknown option .bogus.$" err &&
	(cd repo && test_expect_code 129 garchive verify -h) >out &&
	grep "^usage: garchive verify" out
'

# ---- hostile archives ----

test_expect_success 'truncated archives are errors' '
	head -c 20000 files/p.tar >files/cut.tar &&
	verdict files/cut.tar &&
	test $code = 128 &&
	grep "^fatal: truncated tar archive" err &&
	head -c 3000 files/p.tgz >files/cut.tgz &&
	verdict files/cut.tgz &&
	test $code = 128 &&
	grep "^fatal: truncated" err &&
	head -c 3000 files/p.zip >files/cut.zip &&
	verdict files/cut.zip v1.2 &&
	test $code = 128 &&
	grep "^fatal: truncated zip archive" err
'

test_expect_success 'a damaged header checksum is an error' '
	{ head -c 1100 files/p.tar && printf X && tail -c +1102 files/p.tar; } >files/sum.tar &&
	verdict files/sum.tar &&
	test $code = 128 &&
	grep "^fatal: bad tar header checksum at byte 1024$" err
'

test_expect_success 'paths with .. are compared, never written' '
	{ ls -a . && echo after; } >before &&
	end=$(python3 -c "import tarfile, sys; t = tarfile.open(sys.argv[1]); t.getmembers(); print(t.offset)" files/p.tar) &&
	{
		head -c $end files/p.tar &&
		tar_header p-1.2/../../evil 5 0 && printf "evil\n" &&
		head -c 507 /dev/zero && head -c 10240 /dev/zero
	} >files/dots.tar &&
	verdict files/dots.tar &&
	test $code = 1 &&
	grep "^  only in archive: p-1.2/../../evil$" out &&
	test_path_is_missing evil &&
	test_path_is_missing ../evil &&
	ls -a . >after &&
	sort before >before.sorted && test_cmp before.sorted after
'

test_expect_success 'a huge pax header is an error' '
	{
		printf "%s" "$(tar_header p-1.2/x 2000000 x)" >/dev/null;
		tar_header pax 2000000 x && head -c 2000384 /dev/zero
	} >files/pax.tar &&
	verdict files/pax.tar v1.2 &&
	test $code = 128 &&
	grep "^fatal: tar header of 2000000 bytes at byte 0 is too large" err
'

test_expect_success GZIP 'a gzip bomb stops early: different' '
	{ tar_header p-1.2/bomb 209715200 0 && head -c 209715200 /dev/zero; } |
		gzip -1 >files/bomb.tgz &&
	verdict files/bomb.tgz v1.2 &&
	test $code = 1 &&
	grep "^different$" out &&
	grep "^  stopped: *it holds more than [0-9]* bytes, where garchive writes [0-9]*$" out &&
	verdict files/bomb.tgz v1.2 --digest &&
	grep "^  sha256: *(the file was not read to its end)$" out
'

test_expect_success 'zip: a member inflating past its size is an error' '
	python3 - >files/zbomb.zip <<-\EOF &&
	import sys, zlib, struct
	data = zlib.compressobj(9, zlib.DEFLATED, -15)
	raw = data.compress(b"\0" * (50 << 20)) + data.flush()
	name = b"p-1.2/README"
	hdr = struct.pack("<IHHHHHIIIHH", 0x04034b50, 10, 0, 8, 0, 0,
			  0, len(raw), 10, len(name), 0)
	sys.stdout.buffer.write(hdr + name + raw)
	EOF
	verdict files/zbomb.zip v1.2 &&
	test $code = 128 &&
	grep "^fatal: .p-1.2/README. at byte 0 inflates to more than its declared 10 bytes$" err
'

test_expect_success 'zip: bogus central directory offsets: different' '
	python3 - files/p.zip >files/offsets.zip <<-\EOF &&
	import sys
	z = bytearray(open(sys.argv[1], "rb").read())
	cd = z.index(b"PK\x01\x02")
	z[cd + 42] ^= 1
	sys.stdout.buffer.write(z)
	EOF
	verdict files/offsets.zip &&
	test $code = 1 &&
	grep "^  damaged: *the central directory describes the entries differently" out
'

test_expect_success 'zip: a bad CRC is an error' '
	python3 - files/p.zip >files/crc.zip <<-\EOF &&
	import sys
	z = bytearray(open(sys.argv[1], "rb").read())
	z[z.index(b"PK\x03\x04", 1) + 14] ^= 1
	sys.stdout.buffer.write(z)
	EOF
	verdict files/crc.zip &&
	test $code = 128 &&
	grep "^fatal: CRC mismatch in " err
'

test_done

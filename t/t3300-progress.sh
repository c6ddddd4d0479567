#!/bin/sh
test_description='progress on standard error, only where a person reads it'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq PTY 'python3 -c "import pty; pty.openpty()"'

# on_pty WHERE CMD...: run CMD with stderr on a pseudo-terminal and
# stdout in "stdout" (WHERE=file) or on the same terminal (WHERE=tty);
# what the terminal got goes to "tty".
on_pty () {
	python3 - "$@" <<-\EOF
	import os, pty, subprocess, sys
	where, cmd = sys.argv[1], sys.argv[2:]
	master, slave = pty.openpty()
	out = open("stdout", "wb")
	p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
			     stdout=slave if where == "tty" else out,
			     stderr=slave)
	os.close(slave)
	data = b""
	while True:
	    try:
	        chunk = os.read(master, 65536)
	    except OSError:
	        break
	    if not chunk:
	        break
	    data += chunk
	p.wait()
	open("tty", "wb").write(data)
	sys.exit(p.returncode)
	EOF
}

# last_line FILE: the last line drawn (lines end in \r or \n).
last_line () {
	tr "\r" "\n" <"$1" | sed "/^$/d" | tail -n 1
}

test_expect_success 'setup' '
	git init -q repo &&
	(
		cd repo &&
		mkdir -p a/b &&
		for i in 1 2 3 4 5; do echo $i >a/b/f$i; done &&
		echo top >top &&
		ln -s top link &&
		echo "a/b/f5 export-ignore" >.gitattributes &&
		git add . &&
		test_tick &&
		git commit -q -m one
	) &&
	git -C repo archive HEAD >expect.tar
'

test_expect_success 'nothing on stderr when it is not a terminal' '
	(cd repo && garchive HEAD) >actual.tar 2>err &&
	test_must_be_empty err &&
	test_cmp expect.tar actual.tar
'

test_expect_success '--progress forces the meter, the archive is the same' '
	(cd repo && garchive --progress HEAD) >actual.tar 2>err &&
	test_cmp expect.tar actual.tar &&
	last_line err >line &&
	grep "^Writing archive: 100% (7/7 files), [0-9.]* \(bytes\|KiB\) | [0-9.]* [KMG]*i*B*\(bytes\)*/s, done\.$" line &&
	test $(tr -cd "\n" <err | wc -c) = 1
'

test_expect_success '--no-progress wins, also on a terminal' '
	(cd repo && garchive --progress --no-progress -o ../out.tar HEAD) 2>err &&
	test_must_be_empty err
'

test_expect_success PTY 'on a terminal, when the archive goes elsewhere' '
	(cd repo && on_pty file garchive HEAD) &&
	mv repo/tty tty && mv repo/stdout actual.tar &&
	test_cmp expect.tar actual.tar &&
	last_line tty >line &&
	grep "^Writing archive: 100% (7/7 files), .*, done\.$" line
'

test_expect_success PTY 'not when the archive goes to that terminal, nor with -v' '
	(cd repo && on_pty tty garchive --format=zip HEAD) &&
	! grep "Writing archive" repo/tty &&
	(cd repo && on_pty file garchive -v HEAD) &&
	! grep "Writing archive" repo/tty &&
	grep "^top" repo/tty &&
	(cd repo && on_pty file garchive --no-progress -o x.tar HEAD) &&
	test_must_be_empty repo/tty
'

test_expect_success 'with pathspecs the total is counted as it goes' '
	(cd repo && garchive --progress HEAD a) >/dev/null 2>err &&
	last_line err >line &&
	grep "^Writing archive: 100% (4/4 files), .*, done\.$" line
'

test_expect_success 'a failed run ends the line without done' '
	(cd repo && test_expect_code 128 garchive --progress -o /nonexistent/x.tar HEAD) 2>err &&
	! grep "done\." err
'

test_expect_success 'garchive'"'"'s own option takes no abbreviation' '
	(cd repo && test_same_as_git --pr=x/ HEAD) &&
	(cd repo && test_same_as_git --p=x/ HEAD) &&
	(cd repo && test_same_as_git --no-pr HEAD)
'

test_expect_success 'a server refuses --progress from its client, as git does' '
	(cd repo && test_expect_code 1 garchive --remote=. --progress HEAD) >out 2>err.git &&
	grep "unknown option .progress." err.git &&
	(cd repo && test_expect_code 1 garchive --remote=. --exec="garchive upload-archive" --progress HEAD) >out 2>err.ga &&
	grep "unknown option .progress." err.ga
'

test_expect_success 'verify shows both halves' '
	(cd repo && garchive verify --progress ../expect.tar) >out 2>err &&
	grep "^identical$" out &&
	tr "\r" "\n" <err | grep "^Writing expected archive: 100% (7/7 files), .*, done\.$" &&
	tr "\r" "\n" <err | grep "^Verifying archive: 100% (7/7 files), .*, done\.$"
'

test_done

#!/bin/sh
test_description='hostile trees: garchive refuses at least what git refuses

Trees are written with git hash-object --literally, so they can hold
what git itself would never create.  For each, garchive must refuse at
least what git refuses, with the same message and exit status, and
write nothing; what git accepts (duplicates, unsorted entries, unknown
modes) must come out byte for byte as git writes it.'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record

# refused_like_git TREE: git refuses the archive; garchive must refuse
# it with the same diagnostics and status, and write nothing, with or
# without --worktree-attributes (where git itself does not check).
# A path that git 2.39 cannot load into its index ends its archive
# with status 255 after "error: invalid path"; git 2.47 and later add
# "fatal: failed to unpack tree object <tree>" and exit 128, as
# garchive does (with --worktree-attributes there is no index to load:
# 255 and git 2.39's lines).
refused_like_git () {
	c=$(commit_of "$1") &&
	test_clock_start &&
	ref_git_ archive $c >expect.out 2>expect.err
	expect_code=$? &&
	test $expect_code != 0 &&
	if test $expect_code = 255
	then
		diagnostics expect.err >expect &&
		echo "fatal: failed to unpack tree object $1" >>expect &&
		test_expect_code 128 garchive $c >actual.out 2>actual.err &&
		diagnostics actual.err >actual &&
		test_cmp expect actual
	else
		frozen garchive $c >actual.out 2>actual.err
		actual_code=$? &&
		same_code_as_git_ &&
		test_cmp expect.err actual.err
	fi &&
	test_must_be_empty actual.out &&
	test_expect_code $expect_code garchive --worktree-attributes $c \
		>wa.out 2>wa.err &&
	test_must_be_empty wa.out &&
	diagnostics expect.err >expect &&
	diagnostics wa.err >actual &&
	test_cmp expect actual &&
	rm -f out.tar &&
	test_must_fail garchive -o out.tar $c &&
	test_path_is_missing out.tar
}

test_expect_success SYMLINKS 'setup' '
	git init -q repo &&
	cd repo &&
	echo x | git hash-object -w --stdin >blob &&
	echo sub | git hash-object -w --stdin >blob2
'

for name in . .. .git .GIT .Git git~1 GIT~1 ".git " ".git..." ".git. . ."
do
	test_expect_success "a file named '$name' is refused" "
		cd repo &&
		t=\$(mktree \"100644 $name \$(cat blob)\") &&
		refused_like_git \$t
	"
done

test_expect_success 'a directory named .git (a nested repository) is refused' '
	cd repo &&
	inner=$(mktree "100644 config $(cat blob)") &&
	t=$(mktree "040000 .git $inner") &&
	refused_like_git $t &&
	deep=$(mktree "040000 sub $t") &&
	refused_like_git $deep
'

test_expect_success 'a directory named .. is refused' '
	cd repo &&
	inner=$(mktree "100644 passwd $(cat blob)") &&
	t=$(mktree "040000 .. $inner") &&
	refused_like_git $t
'

test_expect_success 'a symlink named .gitmodules (or its NTFS short name) is refused' '
	cd repo &&
	t=$(mktree "120000 .gitmodules $(cat blob)") &&
	refused_like_git $t &&
	t=$(mktree "120000 gitmod~1 $(cat blob)") &&
	refused_like_git $t
'

test_expect_success 'a regular file named .gitmodules is fine' '
	cd repo &&
	t=$(mktree "100644 .gitmodules $(cat blob)") &&
	test_same_as_git $(commit_of $t)
'

test_expect_success 'an empty name is refused as git refuses it' '
	cd repo &&
	t=$(mktree "100644  $(cat blob)") &&
	refused_like_git $t
'

test_expect_success 'HFS+ aliases of .git are refused (git only on macOS)' '
	cd repo &&
	t=$(mktree "100644 .g\\342\\200\\214it $(cat blob)") &&
	c=$(commit_of $t) &&
	test_expect_code 128 garchive $c >out 2>err &&
	test_must_be_empty out &&
	grep "^error: invalid path" err &&
	grep "^fatal: failed to unpack tree object $t\$" err &&
	test_expect_code 255 garchive --worktree-attributes $c >out 2>err &&
	test_must_be_empty out &&
	grep "^error: invalid path" err
'

test_expect_success 'a name containing a slash is refused (git accepts it)' '
	cd repo &&
	t=$(mktree "100644 a/b $(cat blob)") &&
	c=$(commit_of $t) &&
	test_expect_code 128 garchive $c >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-EOF &&
	error: invalid path '"'"'a/b'"'"'
	fatal: failed to unpack tree object $t
	EOF
	test_cmp expect err &&
	test_expect_code 255 garchive --worktree-attributes $c >out 2>err &&
	test_must_be_empty out &&
	echo "error: invalid path '"'"'a/b'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'duplicate and unsorted entries come out as git writes them' '
	cd repo &&
	t=$(mktree "100644 b $(cat blob)" "100644 a $(cat blob2)" "100644 a $(cat blob)") &&
	test_same_as_git $(commit_of $t)
'

test_expect_success 'unknown modes are canonicalised as git does' '
	cd repo &&
	for mode in 100000 100600 100700 100611 000000 1 140000 060000 777777; do
		t=$(mktree "$mode m $(cat blob)") &&
		test_same_as_git $(commit_of $t) || return 1
	done
'

test_expect_success 'symlinks pointing outside are archived as data, as in git' '
	cd repo &&
	up=$(printf "../../etc/passwd" | git hash-object -w --stdin) &&
	abs=$(printf "/etc/shadow" | git hash-object -w --stdin) &&
	t=$(mktree "120000 up $up" "120000 abs $abs") &&
	test_same_as_git $(commit_of $t)
'

test_expect_success 'malformed tree objects fail as in git' '
	cd repo &&
	for raw in "100644 x" "10a644 x\\000$(printf "%040d" 0)"; do
		t=$(printf "$raw" | git hash-object --literally -w -t tree --stdin) &&
		c=$(commit_of $t) &&
		test_same_as_git $c || return 1
	done
'

# git's own t5000 archives such a tree; libgit2 1.5 refuses to parse a
# tree with a name over 65535 bytes, so garchive never asks it to.
test_expect_success 'names over 65535 bytes, by every kind of name: as git' '
	cd repo &&
	long=$(mktree "100644 @70000 $(cat blob)" "100644 y $(cat blob)") &&
	root=$(mktree "040000 sub $long" "100644 z $(cat blob)" \
		"100644 @65536 $(cat blob2)") &&
	c=$(commit_of $root) &&
	git tag -a -m long longtag $c &&
	git tag longtree $root &&
	test_same_as_git $c &&
	test_same_as_git longtag &&
	test_same_as_git --format=zip $c &&
	for name in $root $long "$c^{tree}" "$c:" "$c:sub" "$c:sub/" \
		"longtag^{tree}" "longtag:sub" "$c^{tree}:sub" longtree \
		"longtree^{}" "longtree:sub"
	do
		test_same_as_git "$name" || return 1
	done &&
	test_same_as_git "$c:sub/y" &&
	test_same_as_git "$c:z" &&
	test_same_as_git "$c:nosuch"
'

# git parses the commits and tags a name goes through itself, with its
# own rules and errors ("bogus commit object", "unknown tag type", one
# type per object); garchive resolves names the same way.
test_expect_success 'malformed commits and tags, by every kind of name: as git' '
	cd repo &&
	t=$(mktree "100644 f $(cat blob)") &&
	c=$(commit_of $t) &&
	b=$(cat blob) &&
	none=1111111111111111111111111111111111111111 &&
	sig="author A <a@b> 1112911993 -0700\ncommitter C <c@d> 1112911993 -0700\n\nm\n" &&
	for body in "commit tree $t\n" "commit tree $t" \
		"commit tree $(echo $t | cut -c1-39)x\n$sig" \
		"commit tree $t\nparent zz\n$sig" \
		"commit tree $t\nparent $(echo $c | cut -c1-39)x\n$sig" \
		"commit tree $t\nparent $none\n$sig" \
		"commit tree $t\nparent $t\n$sig" \
		"commit tree $c\n$sig" "commit tree $b\n$sig" \
		"commit tree $none\n$sig" \
		"tag object $c\ntype commit\n" \
		"tag object $c\ntype commit\ntagx\n\nm\n" \
		"tag object $c\ntype bogus\ntag x\n\nm\n" \
		"tag object $c\ntype commitcommitcommitcommit\ntag x\n\nm\n" \
		"tag object $c\ntype tree\ntag x\n\nm\n" \
		"tag object $t\ntype commit\ntag x\n\nm\n" \
		"tag object $none\ntype commit\ntag x\n\nm\n"
	do
		o=$(printf "${body#* }" |
		    git hash-object --literally -w -t ${body%% *} --stdin) &&
		for name in $o "$o^{}" "$o:" "$o^{tree}" "$o~0" "$o^0" \
			"$o^" "$o^{commit}" "$o^{tag}"
		do
			test_same_as_git "$name" || return 1
		done || return 1
	done
'

# A tag whose content does not match its id can name another that names
# it back.  git 2.39 follows such a ring for ever for "<rev>:"; garchive
# stops, and fails as git does for the other names.
test_expect_success 'a ring of tags ends' '
	cd repo &&
	python3 - <<-\EOF &&
	import os, zlib
	def put(oid, target):
	    body = b"object %s\ntype tag\ntag x\n\nm\n" % target.encode()
	    path = os.path.join(".git", "objects", oid[:2], oid[2:])
	    os.makedirs(os.path.dirname(path), exist_ok=True)
	    open(path, "wb").write(zlib.compress(b"tag %d\0" % len(body) + body))
	put("a" * 40, "b" * 40)
	put("b" * 40, "a" * 40)
	EOF
	ring=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa &&
	test_expect_code 128 bounded garchive $ring: >out 2>err &&
	test_must_be_empty out &&
	echo "fatal: not a valid object name: $ring:" >expect &&
	test_cmp expect err &&
	test_same_as_git $ring &&
	test_same_as_git "$ring^{}" &&
	rm -f .git/objects/aa/aaaa* .git/objects/bb/bbbb*
'

test_expect_success 'a tree 200 levels deep' '
	cd repo &&
	t=$(mktree "100644 leaf $(cat blob)") &&
	t=$(nest_tree 200 $t) &&
	test_same_as_git $(commit_of $t)
'

test_done

#!/bin/sh
test_description='contrib/release: garchive-release and Makefile.example'
. "$(dirname "$0")/lib.sh"

release="$GARCHIVE_SRC/contrib/release/garchive-release"

test_lazy_prereq SHA256SUM 'sha256sum --version'
# Until the filter module lands, garchive cannot compress: the tests that
# need a .tar.gz wait for it.
test_lazy_prereq GARCHIVE_GZIP '
	git init -q r &&
	cd r &&
	git commit -q --allow-empty -m x &&
	garchive --format=tgz HEAD >out
'

test_expect_success 'setup: project with tags' '
	git init -q project &&
	cd project &&
	mkdir -p src doc &&
	echo "int main(void) { return 0; }" >src/main.c &&
	echo "# project" >README &&
	echo doc >doc/index.txt &&
	printf "#!/bin/sh\nexit 0\n" >configure &&
	chmod +x configure &&
	git add . &&
	test_tick &&
	git commit -q -m "first" &&
	git tag -a -m "project 1.2.3" v1.2.3 &&
	git tag light &&
	git tag -a -m "a tree" treetag "HEAD^{tree}" &&
	echo later >>README &&
	test_tick &&
	git commit -q -a -m "second"
'

test_expect_success SHA256SUM,GARCHIVE_GZIP 'garchive-release writes the tarballs and SHA256SUMS' '
	cd project &&
	"$release" v1.2.3 >out 2>err &&
	test_path_is_file project-1.2.3.tar &&
	test_path_is_file project-1.2.3.tar.gz &&
	test_cmp SHA256SUMS out &&
	sha256sum -c SHA256SUMS &&
	cut -c 67- SHA256SUMS >names &&
	printf "%s\n" project-1.2.3.tar.gz project-1.2.3.tar >expect &&
	test_cmp expect names
'

test_expect_success SHA256SUM,GARCHIVE_GZIP 'the .tar digest is that of git archive' '
	cd project &&
	git archive --format=tar --prefix=project-1.2.3/ v1.2.3 |
		sha256sum | sed "s/ .*//" >expect &&
	sed -n "s/  project-1.2.3.tar\$//p" SHA256SUMS >actual &&
	test_cmp expect actual &&
	git archive --format=tar --prefix=project-1.2.3/ v1.2.3 >git.tar &&
	test_cmp git.tar project-1.2.3.tar
'

test_expect_success GARCHIVE_GZIP 'the .tar.gz holds the tar under the prefix' '
	cd project &&
	gzip -dc project-1.2.3.tar.gz >unzipped.tar &&
	test_cmp project-1.2.3.tar unzipped.tar &&
	tar -tzf project-1.2.3.tar.gz >list &&
	head -n 1 list >first &&
	echo project-1.2.3/ >expect &&
	test_cmp expect first &&
	! grep -v "^project-1\.2\.3/" list &&
	grep "^project-1\.2\.3/src/main\.c\$" list &&
	gzip -cn <project-1.2.3.tar >expect.tar.gz &&
	test_cmp expect.tar.gz project-1.2.3.tar.gz
'

test_expect_success SHA256SUM,GARCHIVE_GZIP 'from a subdirectory, with options' '
	cd project/src &&
	"$release" --name=proj --version 9 --output-dir ../release \
		refs/tags/v1.2.3 >stdout 2>err &&
	cd ../release &&
	sha256sum -c SHA256SUMS &&
	git -C .. archive --format=tar --prefix=proj-9/ v1.2.3 >expect &&
	test_cmp expect proj-9.tar
'

test_expect_success SHA256SUM,GARCHIVE_GZIP '-C, and a bare repository names the project' '
	git clone -q --bare project project.git &&
	"$release" -C project.git --output-dir bare-out light >out 2>err &&
	(cd bare-out && sha256sum -c SHA256SUMS) &&
	git -C project archive --format=tar --prefix=project-light/ light \
		>expect &&
	test_cmp expect bare-out/project-light.tar
'

test_expect_success SHA256SUM,GARCHIVE_GZIP 'Makefile.example: make dist' '
	cd project &&
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		PATH="$GARCHIVE_SRC/contrib/release:$PATH" \
		make -f "$GARCHIVE_SRC/contrib/release/Makefile.example" \
		NAME=project VERSION=1.2.3 dist dist-plain >out 2>err &&
	(cd dist && sha256sum -c SHA256SUMS) &&
	test_cmp project-1.2.3.tar dist/project-1.2.3.tar
'

test_expect_success 'a failing garchive leaves no SHA256SUMS' '
	cd project &&
	rm -rf fail &&
	test_expect_code 1 env GARCHIVE=false "$release" --output-dir fail \
		v1.2.3 >out 2>err &&
	grep "^garchive-release: garchive failed" err &&
	test_path_is_missing fail/SHA256SUMS &&
	test_path_is_missing fail/project-1.2.3.tar.gz
'

test_expect_success GARCHIVE_GZIP 'a .tar.gz that is not the .tar is refused' '
	git clone -q project bad &&
	git -C bad config tar.tar.gz.command "{ cat; echo junk; } | gzip -cn" &&
	test_expect_code 1 "$release" -C bad --output-dir bad-out v1.2.3 \
		>out 2>err &&
	echo "garchive-release: bad-1.2.3.tar.gz does not decompress to bad-1.2.3.tar" >expect &&
	test_cmp expect err &&
	test_path_is_missing bad-out/SHA256SUMS
'

test_expect_success 'a missing tag, a tag of a tree, bad usage' '
	cd project &&
	test_expect_code 1 "$release" v9.9 2>err &&
	echo "garchive-release: no such tag: v9.9" >expect &&
	test_cmp expect err &&
	test_expect_code 1 "$release" treetag 2>err &&
	echo "garchive-release: tag treetag does not point to a commit" \
		>expect &&
	test_cmp expect err &&
	test_expect_code 129 "$release" 2>err &&
	grep "^usage: garchive-release" err &&
	test_expect_code 129 "$release" --bogus v1.2.3 2>err &&
	test_expect_code 0 "$release" --help >out &&
	grep "^usage: garchive-release" out
'

test_expect_success 'outside a repository' '
	mkdir empty &&
	cd empty &&
	test_expect_code 1 env GIT_CEILING_DIRECTORIES="$TRASH_DIRECTORY" \
		"$release" v1.0 2>err &&
	echo "garchive-release: not in a git repository" >expect &&
	test_cmp expect err
'

test_done

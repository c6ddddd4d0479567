#!/bin/sh
test_description='--remote over smart HTTP, as git 2.44 and later'
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-http.sh"

# Both ends behind a real web server (lighttpd, started here on a free
# port of 127.0.0.1): garchive's client (garchive-remote-http) and its
# server (garchive http-backend), with each other and with git's.  A git
# that archives over HTTP (2.44 or later) is looked for as
# t/lib-http.sh's find_new_git says ($GARCHIVE_TEST_NEW_GIT, PATH,
# /opt/git-*); without one, what git 2.55.0's client sent and its
# http-backend answered, recorded by t/t9400/record into
# t/t9400/git-2.55.0/ (git-2.55.0-sha256/ for the SHA-256 mode), stands
# in for it (the "replay" tests run always).

command -v lighttpd >/dev/null ||
	test_skip_all "lighttpd is not installed (make deps installs it)"
python3 -c 'import http.client' 2>/dev/null ||
	test_skip_all "python3 is not installed (make deps installs it)"
test -x "$GARCHIVE_BUILD_DIR/garchive-remote-http" ||
	test_skip_all "garchive-remote-http is not built (run make)"

find_new_git
test -z "$NEW_GIT" || test_set_prereq NEW_GIT
# The SHA-256 mode replays what git did with a SHA-256 repository.
case $test_object_format in
sha1) HTTPD_FIXTURES="$TEST_DIRECTORY/t9400/git-2.55.0" ;;
*) HTTPD_FIXTURES="$TEST_DIRECTORY/t9400/git-2.55.0-$test_object_format" ;;
esac
LONG=$(printf "%01100d" 0 | tr 0 x)
SQ="'"


# The archive a local run makes in the served repository.
local_archive () {
	git -C "$HTTPD_ROOT/repo.git" archive "$@"
}

# test_http_archive URL ARGS...: garchive --remote=URL ARGS makes the
# bytes of a local archive, and says nothing.
test_http_archive () {
	tha_url=$1
	shift
	local_archive "$@" >expect.out &&
	garchive --remote="$tha_url" "$@" >actual.out 2>actual.err &&
	test_cmp expect.out actual.out &&
	test_must_be_empty actual.err
}

# test_http_fails CODE URL ARGS... <expected-stderr
test_http_fails () {
	thf_code=$1
	thf_url=$2
	shift 2
	cat >expect.err &&
	test_expect_code "$thf_code" garchive --remote="$thf_url" "$@" \
		>actual.out 2>actual.err &&
	curl_words <expect.err >expect.norm &&
	curl_words <actual.err >actual.norm &&
	test_cmp expect.norm actual.norm
}

# curl_words: libcurl's messages with what changes between its
# versions made the same (the time taken; curl 8 says "Could not" where
# curl 7.88, Debian 12's, says "Couldn't").
curl_words () {
	sed -e "s/ after [0-9]* ms:/ after N ms:/" \
	    -e "s/Couldn't connect to server/Could not connect to server/"
}

test_expect_success 'setup: a web server with garchive http-backend' '
	HTTPD_ROOT="$TRASH_DIRECTORY/www" &&
	http_make_repo "$HTTPD_ROOT/repo.git" &&
	git -C "$HTTPD_ROOT/repo.git" config http.uploadarchive true &&
	git -C "$HTTPD_ROOT/repo.git" update-server-info &&
	git clone -q --bare "$HTTPD_ROOT/repo.git" "$HTTPD_ROOT/closed.git" &&
	start_httpd &&
	mkdir client &&
	cd client
'

test_expect_success 'garchive client, garchive server: tar, zip, paths' '
	cd client &&
	test_http_archive "$HTTPD_URL/ga/repo.git" HEAD &&
	test_http_archive "$HTTPD_URL/ga/repo.git" v1 &&
	test_http_archive "$HTTPD_URL/ga/repo.git" --format=zip HEAD &&
	test_http_archive "$HTTPD_URL/ga/repo.git" --prefix=p/ HEAD sub link &&
	test_http_archive "$HTTPD_URL/ga/repo.git" --prefix="$LONG/" HEAD &&
	garchive --remote="$HTTPD_URL/ga/repo.git" -o x.zip HEAD sub &&
	local_archive --format=zip HEAD sub >expect.zip &&
	test_cmp expect.zip x.zip
'

test_expect_success 'server errors reach the client, exit 1' '
	cd client &&
	test_http_fails 1 "$HTTPD_URL/ga/repo.git" nosuch <<-\EOF
	remote: fatal: no such ref: nosuch        
	remote: git upload-archive: archiver died with error
	EOF
'

test_expect_success 'no such repository: 404' '
	cd client &&
	test_http_fails 128 "$HTTPD_URL/ga/nosuch.git" HEAD <<-EOF
	fatal: repository ${SQ}$HTTPD_URL/ga/nosuch.git/${SQ} not found
	EOF
'

test_expect_success 'the service is off unless enabled or authenticated' '
	cd client &&
	test_http_fails 128 "$HTTPD_URL/ga/closed.git" HEAD <<-\EOF &&
	error: RPC failed; HTTP 403 curl 22 The requested URL returned error: 403
	fatal: git archive: expected ACK/NAK, got a flush packet
	EOF
	grep "Service not enabled: ${SQ}upload-archive${SQ}" \
		"$HTTPD_DIR/cgi-stderr.log" &&
	url=$(echo "$HTTPD_URL" | sed "s|//|//user:pass@|") &&
	test_http_archive "$url/auth-ga/closed.git" HEAD &&
	git -C "$HTTPD_ROOT/closed.git" config http.uploadarchive false &&
	test_http_fails 128 "$url/auth-ga/closed.git" HEAD <<-\EOF &&
	error: RPC failed; HTTP 403 curl 22 The requested URL returned error: 403
	fatal: git archive: expected ACK/NAK, got a flush packet
	EOF
	git -C "$HTTPD_ROOT/closed.git" config --unset http.uploadarchive
'

test_expect_success 'a 401: credential helpers, approve and reject' '
	cd client &&
	cat >"$TRASH_DIRECTORY/helper" <<-\EOF &&
	#!/bin/sh
	echo "$1" >>"$HOME/helper.log"
	test "$1" = get || exit 0
	echo username=user
	echo password=${HELPER_PASSWORD-pass}
	EOF
	chmod +x "$TRASH_DIRECTORY/helper" &&
	git config --global credential.helper "$TRASH_DIRECTORY/helper" &&
	test_http_archive "$HTTPD_URL/auth-ga/closed.git" HEAD &&
	printf "get\nstore\n" >expect.log &&
	test_cmp expect.log "$HOME/helper.log" &&
	rm "$HOME/helper.log" &&
	HELPER_PASSWORD=wrong &&
	export HELPER_PASSWORD &&
	test_http_fails 128 "$HTTPD_URL/auth-ga/closed.git" HEAD <<-EOF &&
	fatal: Authentication failed for ${SQ}$HTTPD_URL/auth-ga/closed.git/${SQ}
	EOF
	unset HELPER_PASSWORD &&
	printf "get\nerase\n" >expect.log &&
	test_cmp expect.log "$HOME/helper.log" &&
	git config --global --unset credential.helper &&
	(
		GIT_TERMINAL_PROMPT=0 &&
		export GIT_TERMINAL_PROMPT &&
		test_http_fails 128 "$HTTPD_URL/auth-ga/closed.git" HEAD <<-EOF
		fatal: could not read Username for ${SQ}$HTTPD_URL${SQ}: terminal prompts disabled
		EOF
	)
'

test_expect_success 'http.extraHeader, for matching URLs, and -c options' '
	cd client &&
	garchive -c http.extraHeader="X-Test: one" \
		--remote="$HTTPD_URL/log/h1/repo.git" HEAD >out &&
	grep "^HTTP_X_TEST=one$" "$HTTPD_LOG/h1/get.env" &&
	grep "^HTTP_X_TEST=one$" "$HTTPD_LOG/h1/post.env" &&
	git config --global "http.$HTTPD_URL/log/h2.extraHeader" "X-Test: two" &&
	git config --global "http.http://other.invalid/.extraHeader" "X-Test: x" &&
	git config --global "http.$HTTPD_URL/log/h3.extraHeader" "X-Test: x" &&
	garchive --remote="$HTTPD_URL/log/h2/repo.git" HEAD >out &&
	grep "^HTTP_X_TEST=two$" "$HTTPD_LOG/h2/post.env" &&
	garchive -c http.extraHeader= --remote="$HTTPD_URL/log/h4/repo.git" \
		HEAD >out &&
	! grep HTTP_X_TEST "$HTTPD_LOG/h4/post.env" &&
	git config --global --remove-section "http.$HTTPD_URL/log/h2" &&
	git config --global --remove-section "http.$HTTPD_URL/log/h3" &&
	git config --global --remove-section "http.http://other.invalid/"
'

test_expect_success 'a proxy: http.proxy, http_proxy, no_proxy' '
	cd client &&
	url=http://garchive.invalid/ga/repo.git &&
	local_archive HEAD >expect.out &&
	garchive -c http.proxy="$HTTPD_URL" --remote=$url HEAD >actual.out &&
	test_cmp expect.out actual.out &&
	(
		http_proxy=$HTTPD_URL &&
		export http_proxy &&
		garchive --remote=$url HEAD >actual.out &&
		test_cmp expect.out actual.out &&
		git config --global http.proxy "" &&
		test_http_fails 128 $url HEAD <<-EOF
		fatal: unable to access ${SQ}$url/${SQ}: Could not resolve host: garchive.invalid
		EOF
	) &&
	git config --global --unset http.proxy
'

test_expect_success 'redirects: the discovery only, with git'"'"'s warning' '
	cd client &&
	local_archive HEAD >expect.out &&
	garchive --remote="$HTTPD_URL/redir/repo.git" HEAD >actual.out \
		2>actual.err &&
	test_cmp expect.out actual.out &&
	echo "warning: redirecting to $HTTPD_URL/ga/repo.git/" >expect.err &&
	test_cmp expect.err actual.err &&
	git config --global http.followRedirects false &&
	test_http_fails 128 "$HTTPD_URL/redir/repo.git" HEAD <<-EOF &&
	fatal: unable to access ${SQ}$HTTPD_URL/redir/repo.git/${SQ}: The requested URL returned error: 301
	EOF
	git config --global --unset http.followRedirects
'

test_expect_success 'no protocol v2: a dumb server, protocol.version=1' '
	cd client &&
	test_http_fails 128 "$HTTPD_URL/static/repo.git" HEAD <<-EOF &&
	fatal: can${SQ}t connect to subservice git-upload-archive
	EOF
	test_expect_code 128 garchive -c protocol.version=1 \
		--remote="$HTTPD_URL/ga/repo.git" HEAD 2>actual.err &&
	test_cmp expect.err actual.err
'

test_lazy_prereq OLD_GIT_SERVER '! new_git_ok_ git'

test_expect_success OLD_GIT_SERVER 'a git server before 2.44: 404 on the request' '
	cd client &&
	test_http_fails 128 "$HTTPD_URL/oldgit/repo.git" HEAD <<-\EOF
	error: RPC failed; HTTP 404 curl 22 The requested URL returned error: 404
	fatal: git archive: expected ACK/NAK, got a flush packet
	EOF
'

test_expect_success '--exec, a closed port' '
	cd client &&
	local_archive HEAD >expect.out &&
	garchive --remote="$HTTPD_URL/ga/repo.git" --exec=other HEAD \
		>actual.out 2>actual.err &&
	test_cmp expect.out actual.out &&
	echo "warning: setting remote service path not supported by protocol" \
		>expect.err &&
	test_cmp expect.err actual.err &&
	port=$(python3 "$LIB_HTTP_PY" free-port) &&
	test_http_fails 128 "http://127.0.0.1:$port/x.git" HEAD <<-EOF
	fatal: unable to access ${SQ}http://127.0.0.1:$port/x.git/${SQ}: Failed to connect to 127.0.0.1 port $port after N ms: Couldn${SQ}t connect to server
	EOF
'

test_lazy_prereq OPENSSL 'openssl version'

test_expect_success OPENSSL 'https: sslVerify, sslCAInfo, GIT_SSL_NO_VERIFY' '
	cd client &&
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$HTTPD_DIR/key.pem" \
		-out "$HTTPD_DIR/cert.pem" 2>/dev/null &&
	tport=$(python3 "$LIB_HTTP_PY" free-port) &&
	{
		python3 "$LIB_HTTP_PY" tls-forward "$HTTPD_DIR/cert.pem" \
			"$HTTPD_DIR/key.pem" $tport $HTTPD_PORT &
		HTTPD_EXTRA_PIDS="$HTTPD_EXTRA_PIDS $!"
	} &&
	python3 "$LIB_HTTP_PY" wait-port $tport &&
	url=https://127.0.0.1:$tport/ga/repo.git &&
	test_http_fails 128 $url HEAD <<-EOF &&
	fatal: unable to access ${SQ}$url/${SQ}: SSL certificate problem: self-signed certificate
	EOF
	git config --global http.sslCAInfo "$HTTPD_DIR/cert.pem" &&
	test_http_archive $url HEAD &&
	git config --global --unset http.sslCAInfo &&
	git config --global "http.https://127.0.0.1:$tport/.sslVerify" false &&
	test_http_archive $url HEAD &&
	git config --global --remove-section "http.https://127.0.0.1:$tport/" &&
	(
		GIT_SSL_NO_VERIFY=1 &&
		export GIT_SSL_NO_VERIFY &&
		test_http_archive $url --format=zip HEAD
	) &&
	# A git whose libcurl verifies with GnuTLS (as on Debian) words
	# the refusal its own way: compare with git only where its libcurl
	# uses OpenSSL, as the libcurl of garchive does.
	if test_have_prereq NEW_GIT &&
		! ldd "$("$NEW_GIT" --exec-path)/git-remote-https" 2>/dev/null |
			grep -q libcurl-gnutls
	then
		test_expect_code 128 "$NEW_GIT" archive --remote=$url HEAD \
			2>git.err &&
		test_cmp expect.err git.err
	fi
'

# The replayed cases: the arguments t/t9400/record gave git.
case_args () {
	case $1 in
	tar) echo HEAD ;;
	zip) echo -o x.zip --prefix=pre/ HEAD sub ;;
	gzip) echo --prefix="$LONG/" HEAD ;;
	esac
}

# What the local archive of a case is.
case_local () {
	case $1 in
	zip) local_archive --format=zip --prefix=pre/ HEAD sub ;;
	*) local_archive $(case_args $1) ;;
	esac
}

test_expect_success 'replay: git 2.55.0'"'"'s answers hold the local archives' '
	for c in tar zip gzip
	do
		case_local $c >expect.out &&
		python3 "$LIB_HTTP_PY" demux "$HTTPD_FIXTURES/$c/post.out" \
			>actual.out &&
		test_cmp expect.out actual.out || return 1
	done
'

test_expect_success 'replay: garchive sends what git 2.55.0 sends, and reads its answers' '
	cd client &&
	for c in tar zip gzip
	do
		rm -f x.zip &&
		garchive --remote="$HTTPD_URL/replay/$c/repo.git" \
			$(case_args $c) >actual.out &&
		if test $c = zip
		then
			mv x.zip actual.out
		fi &&
		case_local $c >expect.out &&
		test_cmp expect.out actual.out &&
		python3 "$LIB_HTTP_PY" same-request "$HTTPD_FIXTURES/$c" \
			"$HTTPD_LOG/$c" get &&
		python3 "$LIB_HTTP_PY" same-request "$HTTPD_FIXTURES/$c" \
			"$HTTPD_LOG/$c" post || return 1
	done
'

# The headers of a CGI answer, one a line.
answer_headers () {
	sed -n "/^\r$/q; p" "$1"
}

test_expect_success 'replay: garchive answers git 2.55.0'"'"'s requests as git does' '
	for c in tar zip gzip
	do
		python3 "$LIB_HTTP_PY" send "$HTTPD_URL/ga" "$HTTPD_FIXTURES/$c" \
			post answer &&
		answer_headers "$HTTPD_FIXTURES/$c/post.out" >expect.hdr &&
		answer_headers answer >actual.hdr &&
		test_cmp expect.hdr actual.hdr &&
		case_local $c >expect.out &&
		python3 "$LIB_HTTP_PY" demux answer >actual.out &&
		test_cmp expect.out actual.out &&
		python3 "$LIB_HTTP_PY" send "$HTTPD_URL/ga" "$HTTPD_FIXTURES/$c" \
			get answer &&
		answer_headers "$HTTPD_FIXTURES/$c/get.out" >expect.hdr &&
		answer_headers answer >actual.hdr &&
		test_cmp expect.hdr actual.hdr &&
		sed -n "/^\r$/{n;p;q}" answer | cut -c1-13 >actual.v &&
		echo 000eversion 2 >expect.v &&
		test_cmp expect.v actual.v || return 1
	done
'

test_expect_success NEW_GIT 'git (2.44 or later) client, garchive server' '
	cd client &&
	for args in HEAD "--format=zip HEAD" "--prefix=p/ HEAD sub"
	do
		local_archive $args >expect.out &&
		"$NEW_GIT" archive --remote="$HTTPD_URL/ga/repo.git" $args \
			>actual.out &&
		test_cmp expect.out actual.out || return 1
	done
'

test_expect_success NEW_GIT 'garchive client, git (2.44 or later) server' '
	cd client &&
	test_http_archive "$HTTPD_URL/git/repo.git" HEAD &&
	test_http_archive "$HTTPD_URL/git/repo.git" --format=zip HEAD &&
	test_http_archive "$HTTPD_URL/git/repo.git" --prefix=p/ HEAD sub
'

# same_as_new_git ARGS...: git's client and garchive's, run with ARGS,
# fail alike: exit status and stderr.
same_as_new_git () {
	"$NEW_GIT" archive "$@" >expect.out 2>expect.err
	expect_code=$?
	garchive "$@" >actual.out 2>actual.err
	actual_code=$?
	same_code_as_git_ &&
	sed "s/ after [0-9]* ms:/ after N ms:/" expect.err >expect.norm &&
	sed "s/ after [0-9]* ms:/ after N ms:/" actual.err >actual.norm &&
	test_cmp expect.norm actual.norm &&
	test_cmp expect.out actual.out
}

test_expect_success NEW_GIT 'the garchive client fails as git'"'"'s does' '
	cd client &&
	port=$(python3 "$LIB_HTTP_PY" free-port) &&
	for s in git ga
	do
		same_as_new_git --remote="$HTTPD_URL/$s/nosuch.git" HEAD &&
		same_as_new_git --remote="$HTTPD_URL/$s/repo.git" nosuch &&
		same_as_new_git --remote="$HTTPD_URL/$s/closed.git" HEAD &&
		same_as_new_git --remote="$HTTPD_URL/$s/repo.git" --exec=x HEAD &&
		same_as_new_git --remote="$HTTPD_URL/$s/repo.git" \
			--format=bogus HEAD || return 1
	done &&
	same_as_new_git --remote="$HTTPD_URL/static/repo.git" HEAD &&
	same_as_new_git --remote="http://127.0.0.1:$port/x.git" HEAD &&
	same_as_new_git --remote="$HTTPD_URL/redir/repo.git" HEAD &&
	(
		GIT_TERMINAL_PROMPT=0 &&
		export GIT_TERMINAL_PROMPT &&
		same_as_new_git --remote="$HTTPD_URL/auth-ga/closed.git" HEAD
	)
'

test_expect_success 'stop the web server' '
	stop_httpd
'

test_done

# t/lib-http.sh: a web server for the smart HTTP tests (t9400-http and
# t/t9400/record), sourced after t/lib.sh or by a script that sets
# TEST_DIRECTORY and TRASH_DIRECTORY itself.
#
# start_httpd starts lighttpd (started unprivileged-style: its own
# config, a free port of 127.0.0.1, in the foreground as our child) and
# sets HTTPD_URL.  Under $HTTPD_URL:
#   /ga/       garchive-http-backend: the repositories under
#              $HTTPD_ROOT, all exported
#   /auth-ga/  the same behind basic authentication (user "user",
#              password "pass"), so REMOTE_USER is set
#   /log/      the same, each request kept in $HTTPD_LOG/<case>/ first
#              (URLs /log/<case>/<repo>)
#   /replay/   recorded answers: /replay/<case>/<repo> answers what
#              $HTTPD_FIXTURES/<case>/ holds, and keeps the request in
#              $HTTPD_LOG/<case>/
#   /git/      the git-http-backend of $NEW_GIT, when set
#   /oldgit/   the git-http-backend of the git on PATH
#   /redir/    a 301 redirect to /ga/
#   /static/   the files under $HTTPD_ROOT, as a dumb server
# plus the lines of $HTTPD_EXTRA_CONF.  stop_httpd stops it, and the
# processes listed in $HTTPD_EXTRA_PIDS (and so does the end of the
# script).

LIB_HTTP_PY="$TEST_DIRECTORY/lib-http.py"
# The interpreter itself: a wrapper such as pyenv's may not work in the
# web server's environment.
HTTP_PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)

# http_make_repo DIR: the bare repository the tests serve, with the same
# object ids under any git: fixed names, dates and contents.
http_make_repo () {
	(
		GIT_AUTHOR_NAME='A U Thor' &&
		GIT_AUTHOR_EMAIL='author@example.com' &&
		GIT_COMMITTER_NAME='C O Mitter' &&
		GIT_COMMITTER_EMAIL='committer@example.com' &&
		GIT_AUTHOR_DATE='1112911993 -0700' &&
		GIT_COMMITTER_DATE='1112911993 -0700' &&
		export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
			GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE &&
		rm -rf "$1.work" &&
		git -c init.defaultBranch=main init -q "$1.work" &&
		cd "$1.work" &&
		git config core.autocrlf false &&
		mkdir -p sub/deeper &&
		echo top >top.txt &&
		echo s >sub/s.txt &&
		echo d >sub/deeper/d.txt &&
		printf "#!/bin/sh\n" >sub/run.sh &&
		chmod +x sub/run.sh &&
		ln -s top.txt link &&
		git add . &&
		git commit -q -m one &&
		git tag v1 &&
		echo more >>top.txt &&
		GIT_AUTHOR_DATE='1112912053 -0700' &&
		GIT_COMMITTER_DATE='1112912053 -0700' &&
		git commit -q -a -m two
	) &&
	git clone -q --bare "$1.work" "$1" &&
	rm -rf "$1.work"
}

# write_cgi NAME COMMAND...: an executable CGI program $HTTPD_BIN/NAME
# that runs COMMAND (quoted here, once).
write_cgi () {
	name=$1
	shift
	{
		echo "#!/bin/sh" &&
		printf "exec" &&
		for a
		do
			printf " '%s'" "$a"
		done &&
		echo
	} >"$HTTPD_BIN/$name" &&
	chmod +x "$HTTPD_BIN/$name"
}

httpd_conf () {
	cat <<-EOF
	server.document-root = "$HTTPD_ROOT"
	server.bind = "127.0.0.1"
	server.port = $1
	server.errorlog = "$HTTPD_DIR/error.log"
	server.modules = ( "mod_alias", "mod_setenv", "mod_auth",
		"mod_authn_file", "mod_cgi", "mod_redirect", "mod_accesslog" )
	accesslog.filename = "$HTTPD_DIR/access.log"
	alias.url = (
		"/ga/" => "$HTTPD_BIN/garchive-http-backend/",
		"/auth-ga/" => "$HTTPD_BIN/garchive-http-backend/",
		"/log/" => "$HTTPD_BIN/log/",
		"/replay/" => "$HTTPD_BIN/replay/",
		"/git/" => "$HTTPD_BIN/git-http-backend/",
		"/oldgit/" => "$HTTPD_BIN/old-git-http-backend/",
		"/rec/" => "$HTTPD_BIN/rec/",
		"/static/" => "$HTTPD_ROOT/"
	)
	cgi.assign = ( "" => "" )
	\$HTTP["url"] =~ "^/static/" {
		cgi.assign = ( )
	}
	setenv.add-environment = (
		"GIT_PROJECT_ROOT" => "$HTTPD_ROOT",
		"GIT_HTTP_EXPORT_ALL" => "1",
		"GIT_CONFIG_NOSYSTEM" => "1",
		"HOME" => "$HOME",
		"PATH" => "$PATH"
	)
	auth.backend = "plain"
	auth.backend.plain.userfile = "$HTTPD_DIR/users"
	auth.require = ( "/auth-ga/" => ( "method" => "basic",
		"realm" => "git", "require" => "valid-user" ) )
	url.redirect = ( "^/redir/(.*)\$" => "/ga/\$1" )
	EOF
	test -z "$HTTPD_EXTRA_CONF" || printf '%s\n' "$HTTPD_EXTRA_CONF"
}

# start_httpd: see above.  Tries a few free ports (another program may
# take the one we found first); waits 10 s at most for each.
start_httpd () {
	HTTPD_DIR="$TRASH_DIRECTORY/httpd"
	HTTPD_BIN="$HTTPD_DIR/bin"
	HTTPD_ROOT=${HTTPD_ROOT:-"$TRASH_DIRECTORY/www"}
	HTTPD_LOG=${HTTPD_LOG:-"$HTTPD_DIR/log"}
	mkdir -p "$HTTPD_BIN" "$HTTPD_ROOT" "$HTTPD_LOG" &&
	echo "user:pass" >"$HTTPD_DIR/users" &&
	ln -sf "$GARCHIVE_BUILD_DIR/garchive" \
		"$HTTPD_BIN/garchive-http-backend" &&
	write_cgi log "$HTTP_PYTHON" "$LIB_HTTP_PY" record "$HTTPD_LOG" \
		"$HTTPD_BIN/garchive-http-backend" &&
	ln -sf "$(git --exec-path)/git-http-backend" \
		"$HTTPD_BIN/old-git-http-backend" &&
	write_cgi replay "$HTTP_PYTHON" "$LIB_HTTP_PY" replay \
		"${HTTPD_FIXTURES:-/nonexistent}" "$HTTPD_LOG" &&
	if test -n "$NEW_GIT"
	then
		ln -sf "$("$NEW_GIT" --exec-path)/git-http-backend" \
			"$HTTPD_BIN/git-http-backend"
	fi || return 1
	tries=0
	while test $tries -lt 5
	do
		port=$(python3 "$LIB_HTTP_PY" free-port) &&
		httpd_conf $port >"$HTTPD_DIR/lighttpd.conf" &&
		lighttpd -tt -f "$HTTPD_DIR/lighttpd.conf" >/dev/null || return 1
		lighttpd -D -f "$HTTPD_DIR/lighttpd.conf" \
			>>"$HTTPD_DIR/cgi-stderr.log" 2>&1 &
		HTTPD_PID=$!
		trap stop_httpd EXIT
		if python3 "$LIB_HTTP_PY" wait-port $port 2>/dev/null &&
		   kill -0 $HTTPD_PID 2>/dev/null
		then
			HTTPD_URL="http://127.0.0.1:$port"
			HTTPD_PORT=$port
			return 0
		fi
		stop_httpd
		tries=$((tries + 1))
	done
	echo "lighttpd did not start; see $HTTPD_DIR/error.log" >&2
	return 1
}

# Other servers a test starts (their pids in HTTPD_EXTRA_PIDS) stop with
# the web server.
stop_httpd () {
	for pid in $HTTPD_EXTRA_PIDS
	do
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
	done
	HTTPD_EXTRA_PIDS=
	if test -n "$HTTPD_PID"
	then
		kill $HTTPD_PID 2>/dev/null
		wait $HTTPD_PID 2>/dev/null
		HTTPD_PID=
	fi
	trap - EXIT
}

# find_new_git: set NEW_GIT to a git that archives over HTTP (2.44 or
# later): $GARCHIVE_TEST_NEW_GIT, else `git` from PATH, else the newest
# /opt/git-*/bin/git.  Empty when there is none.
new_git_ok_ () {
	v=$("$1" version 2>/dev/null |
	    sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	test -n "$v" || return 1
	set -- $v
	test $1 -gt 2 || { test $1 = 2 && test $2 -ge 44; }
}

find_new_git () {
	NEW_GIT=
	for g in ${GARCHIVE_TEST_NEW_GIT:+"$GARCHIVE_TEST_NEW_GIT"} git
	do
		if new_git_ok_ "$g"
		then
			NEW_GIT=$(command -v "$g")
			return 0
		fi
	done
	for g in /opt/git-*/bin/git
	do
		new_git_ok_ "$g" && NEW_GIT=$g
	done
	return 0
}

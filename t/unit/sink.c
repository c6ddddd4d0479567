/*
 * Unit tests for src/archive/sink.c: every sink kind, compared with the system
 * git and gzip wherever they can be the reference.
 */
#include "gitscratch.h"
#include "tap.h"

#include "garchive/common.h"
#include "garchive/sink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char trash[256];
static struct ga_buf reports = GA_BUF_INIT;

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)payload;
	ga_buf_printf(&reports, "%s: %s\n",
		      kind == GA_REPORT_WARNING ? "warning" : "error", msg);
}

/* The threads of this process now, as the kernel lists them. */
static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		abort();
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Run a shell command in the trash directory; returns its exit status. */
__attribute__((format(printf, 1, 2)))
static int run(const char *fmt, ...)
{
	struct ga_buf cmd = GA_BUF_INIT;
	va_list ap;
	char *s;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	ga_buf_printf(&cmd, "cd '%s' && { %s ; }", trash, s);
	free(s);
	st = system(cmd.ptr);
	ga_buf_release(&cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int slurp(struct ga_buf *out, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", trash, name);
	ga_buf_setlen(out, 0);
	return ga_buf_read_file(out, path);
}

static int create(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", trash, name);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

/* A deterministic generator, so the test data are the same every run. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *words[] = {
	"archive", "tree", "blob", "commit", "the", "of", "and", "a", "to",
	"deflate", "gzip", "stream", "block", "window", "match", "literal",
	"git", "zlib", "header", "trailer", "mode", "path", "prefix", "tag",
};

/*
 * A scratch repository with a few MiB of varied content: text, source
 * like text, incompressible bytes and long runs, so that every deflate
 * block type and the stored-block logic of level 0 are exercised.
 */
static int make_repo(void)
{
	int i;

	if (run("git init -q repo"))
		return -1;
	for (i = 0; i < 24; i++) {
		char name[64];
		struct ga_buf data = GA_BUF_INIT;
		size_t size = 40000 + (size_t)(next_rand() % 200000);
		int fd;

		snprintf(name, sizeof(name), "repo/file%02d.%s", i,
			 i % 6 == 5 ? "bin" : "txt");
		while (data.len < size) {
			if (i % 6 == 5) {
				uint64_t r = next_rand();

				ga_buf_put(&data, &r, sizeof(r));
			} else if (i % 6 == 4 && next_rand() % 50 == 0) {
				char zeros[4096] = { 0 };

				ga_buf_put(&data, zeros, sizeof(zeros));
			} else {
				ga_buf_puts(&data, words[next_rand() %
					GA_ARRAY_SIZE(words)]);
				ga_buf_putc(&data,
					    next_rand() % 9 ? ' ' : '\n');
				if (next_rand() % 17 == 0)
					ga_buf_printf(&data, "%u ",
						(unsigned)next_rand());
			}
		}
		if ((fd = create(name)) < 0 ||
		    write(fd, data.ptr, data.len) != (ssize_t)data.len)
			return -1;
		close(fd);
		ga_buf_release(&data);
	}
	return run("cd repo && git add . && git commit -q -m data && "
		   "git archive --format=tar HEAD >../data.tar");
}

/* Write `data` into `s` in pieces of `chunk` bytes, then finish. */
static int feed(struct sink *s, const struct ga_buf *data, size_t chunk)
{
	size_t off = 0;
	int error;

	while (off < data->len) {
		size_t n = data->len - off < chunk ? data->len - off : chunk;

		if ((error = s->write(s, data->ptr + off, n)) < 0)
			return error;
		off += n;
	}
	return s->finish(s);
}

static void test_fd_and_memory(const struct ga_buf *tar)
{
	struct ga_buf mem = GA_BUF_INIT, got = GA_BUF_INIT;
	struct sink *s = NULL;
	int fds[2], fd, error;

	sink_open_memory(&s, &mem);
	ok(!feed(s, tar, 777), "memory sink takes odd-sized writes");
	is_mem(mem.ptr, mem.len, tar->ptr, tar->len, "memory sink bytes");
	s->free(s);

	fd = create("fd.out");
	sink_open_fd(&s, fd);
	ok(!feed(s, tar, tar->len), "fd sink: one large write");
	s->free(s);
	close(fd);
	slurp(&got, "fd.out");
	is_mem(got.ptr, got.len, tar->ptr, tar->len, "fd sink bytes");

	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	sink_open_fd(&s, fd);
	error = s->write(s, tar->ptr, 4096);
	ok(error == GA_ERROR, "fd sink: /dev/full fails with GA_ERROR");
	is_str(ga_error_message(), "write error: No space left on device",
	       "fd sink: git's message for /dev/full");
	s->free(s);
	close(fd);

	if (pipe(fds))
		abort();
	close(fds[0]);
	sink_open_fd(&s, fds[1]);
	error = s->write(s, tar->ptr, 4096);
	ok(error == GA_EPIPE, "fd sink: a closed reader gives GA_EPIPE");
	s->free(s);
	close(fds[1]);

	ga_buf_release(&mem);
	ga_buf_release(&got);
}

static void test_zlib(const struct ga_buf *tar)
{
	static const int levels[] = { -1, 1, 9, 0 };
	struct ga_buf want = GA_BUF_INIT, mem = GA_BUF_INIT;
	struct sink *s = NULL, *m = NULL;
	size_t i;
	int error, threaded, threads;

	for (i = 0; i < GA_ARRAY_SIZE(levels); i++) {
		int level = levels[i];
		char lv[16] = "";

		if (level >= 0)
			snprintf(lv, sizeof(lv), "-%d", level);
		if (run("cd repo && git -c tar.tgz.command='git archive gzip' "
			"archive --format=tgz %s HEAD >../want.tgz", lv) ||
		    slurp(&want, "want.tgz")) {
			ok(0, "git's in-process gzip %s", lv);
			continue;
		}
		for (threaded = 0; threaded < 2; threaded++) {
			size_t chunk = threaded ? 65536 : 10240;

			ga_buf_setlen(&mem, 0);
			sink_open_memory(&m, &mem);
			error = sink_open_zlib(&s, level, m, threaded);
			ok(!error && !feed(s, tar, chunk),
			   "zlib sink level %d (%s)", level,
			   threaded ? "thread" : "inline");
			if (s)
				s->free(s);
			is_mem(mem.ptr, mem.len, want.ptr, want.len,
			       threaded ? "zlib sink (thread) == git's tgz" :
			       "zlib sink (inline) == git's tgz");
		}
		/* Write sizes must not matter, even not multiples of 512. */
		if (level == -1 || level == 0) {
			ga_buf_setlen(&mem, 0);
			sink_open_memory(&m, &mem);
			sink_open_zlib(&s, level, m, 1);
			ok(!feed(s, tar, 3001), "zlib sink, 3001-byte writes");
			s->free(s);
			is_mem(mem.ptr, mem.len, want.ptr, want.len,
			       "odd write sizes give git's bytes too");
		}
	}

	/* Levels above 9: git's exact message, nothing written. */
	ga_buf_setlen(&mem, 0);
	sink_open_memory(&m, &mem);
	error = sink_open_zlib(&s, 10, m, 1);
	ok(error == GA_ERROR && !s && !mem.len, "zlib sink refuses -10");
	is_str(ga_error_message(),
	       "deflateInit2: stream consistency error (no message)",
	       "git's message for -10");
	if (!run("cd repo && git -c tar.tgz.command='git archive gzip' "
		 "archive --format=tgz -10 HEAD >../o 2>../err"))
		ok(0, "git accepted -10?");
	slurp(&want, "err");
	ga_buf_setlen(&mem, 0);
	ga_buf_printf(&mem, "fatal: %s\n", ga_error_message());
	is_str(mem.ptr, want.ptr, "same stderr as git for -10");

	/* SINK_ZLIB through sink_open writes to the fd. */
	{
		struct sink_spec spec = { SINK_ZLIB, NULL };
		int fd = create("zlib.out");

		run("cd repo && git -c tar.tgz.command='git archive gzip' "
		    "archive --format=tgz -1 HEAD >../want.tgz");
		slurp(&want, "want.tgz");
		error = sink_open(&s, &spec, 1, fd);
		ok(!error && !feed(s, tar, 65536), "SINK_ZLIB -1");
		if (s)
			s->free(s);
		close(fd);
		slurp(&mem, "zlib.out");
		is_mem(mem.ptr, mem.len, want.ptr, want.len,
		       "SINK_ZLIB -1 == git");
	}

	/* Errors of the next sink come back from the thread. */
	for (threaded = 0; threaded < 2; threaded++) {
		int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);

		sink_open_fd(&m, fd);
		sink_open_zlib(&s, 1, m, threaded);
		error = feed(s, tar, 65536);
		ok(error == GA_ERROR, "zlib into /dev/full fails (%s)",
		   threaded ? "thread" : "inline");
		is_str(ga_error_message(),
		       "write error: No space left on device",
		       "the write error reaches the writer");
		s->free(s);
		close(fd);
	}
	{
		int fds[2];

		if (pipe(fds))
			abort();
		close(fds[0]);
		sink_open_fd(&m, fds[1]);
		sink_open_zlib(&s, -1, m, 1);
		error = feed(s, tar, 65536);
		ok(error == GA_EPIPE, "zlib thread passes GA_EPIPE on");
		s->free(s);
		close(fds[1]);
	}

	/* free() without finish() stops and joins the thread. */
	ga_buf_setlen(&mem, 0);
	threads = count_threads();
	sink_open_memory(&m, &mem);
	sink_open_zlib(&s, -1, m, 1);
	ok(count_threads() == threads + 1, "the zlib sink runs a thread");
	s->write(s, tar->ptr, tar->len / 2);
	s->free(s);
	ok(count_threads() == threads,
	   "zlib sink freed before finish: its thread is gone");

	ga_buf_release(&want);
	ga_buf_release(&mem);
}

/* Run `spec` over the tar into file `name`; returns the finish status. */
static int through(const struct sink_spec *spec, int level,
		   const struct ga_buf *tar, const char *name)
{
	struct sink *s = NULL;
	int fd = create(name), error;

	ga_buf_setlen(&reports, 0);
	ga_error_clear();
	error = sink_open(&s, spec, level, fd);
	if (!error)
		error = feed(s, tar, 65536);
	if (s)
		s->free(s);
	close(fd);
	return error;
}

/* What git prints for tar.tgz.command=`cmd`, next to what we say. */
static void same_as_git(const char *cmd, int level, int error,
			const char *title)
{
	struct ga_buf want = GA_BUF_INIT, got = GA_BUF_INIT;
	char lv[16] = "";
	int st;

	if (level >= 0)
		snprintf(lv, sizeof(lv), "-%d", level);
	setenv("GA_TEST_CMD", cmd, 1);
	st = run("cd repo && git -c tar.tgz.command=\"$GA_TEST_CMD\" "
		 "archive --format=tgz %s HEAD~0 >/dev/null 2>../err", lv);
	slurp(&want, "err");
	ga_buf_puts(&got, reports.ptr ? reports.ptr : "");
	ga_buf_printf(&got, "fatal: %s\n", ga_error_message());
	ok(st == 128 && error == GA_ERROR, "%s: fails like git (%d)",
	   title, st);
	/* Keep only git's diagnostic lines, as the harness does. */
	{
		struct ga_buf diag = GA_BUF_INIT;
		char *line = want.ptr, *end;

		while (line && *line) {
			end = strchrnul(line, '\n');
			if (!strncmp(line, "fatal:", 6) ||
			    !strncmp(line, "error:", 6) ||
			    !strncmp(line, "warning:", 8)) {
				ga_buf_put(&diag, line, (size_t)(end - line));
				ga_buf_putc(&diag, '\n');
			}
			line = *end ? end + 1 : end;
		}
		is_str(got.ptr, diag.ptr ? diag.ptr : "", title);
		ga_buf_release(&diag);
	}
	ga_buf_release(&want);
	ga_buf_release(&got);
}

static void test_gzip(const struct ga_buf *tar)
{
	struct sink_spec gz = { SINK_GZIP, NULL };
	struct ga_buf want = GA_BUF_INIT, got = GA_BUF_INIT;
	char *path = ga_xstrdup(getenv("PATH"));
	char nopath[600];
	int error;

	error = through(&gz, -1, tar, "gz.out");
	run("gzip -cn <data.tar >gz.want");
	slurp(&want, "gz.want");
	slurp(&got, "gz.out");
	ok(!error && !reports.len, "SINK_GZIP runs gzip, no warning");
	is_mem(got.ptr, got.len, want.ptr, want.len,
	       "SINK_GZIP == gzip -cn");

	error = through(&gz, 1, tar, "gz.out");
	run("gzip -cn -1 <data.tar >gz.want");
	slurp(&want, "gz.want");
	slurp(&got, "gz.out");
	ok(!error, "SINK_GZIP -1");
	is_mem(got.ptr, got.len, want.ptr, want.len,
	       "SINK_GZIP -1 == gzip -cn -1");

	error = through(&gz, 0, tar, "gz.out");
	ok(error == GA_ERROR, "gzip rejects -0: a filter error");
	is_str(ga_error_message(), "'gzip -cn -0' filter reported error",
	       "the message names the command with its level");

	/* A recording `sh` first on PATH must never run. */
	run("mkdir -p fakesh && printf '#!/bin/sh\\necho ran >>%s/sh.log\\n"
	    "exec /bin/sh \"$@\"\\n' >fakesh/sh && chmod +x fakesh/sh", trash);
	snprintf(nopath, sizeof(nopath), "%s/fakesh:%s", trash, path);
	setenv("PATH", nopath, 1);
	error = through(&gz, -1, tar, "gz.out");
	setenv("PATH", path, 1);
	ok(!error && run("test -f sh.log") != 0,
	   "SINK_GZIP uses no shell (fake sh on PATH stays silent)");
	ok(run("PATH=\"$PWD/fakesh:$PATH\" sh -c true && test -f sh.log") == 0,
	   "the fake sh does record when run");

	/* No gzip on PATH: warning and git's in-process bytes. */
	run("mkdir -p nogzip");
	snprintf(nopath, sizeof(nopath), "%s/nogzip", trash);
	run("cd repo && git -c tar.tgz.command='git archive gzip' "
	    "archive --format=tgz HEAD >../want.tgz");
	slurp(&want, "want.tgz");
	setenv("PATH", nopath, 1);
	error = through(&gz, -1, tar, "gz.out");
	setenv("PATH", path, 1);
	slurp(&got, "gz.out");
	ok(!error, "without gzip, SINK_GZIP falls back");
	is_str(reports.ptr, "warning: unable to start 'gzip -cn' filter, "
	       "falling back to 'git archive gzip': "
	       "No such file or directory\n",
	       "the fallback warning");
	is_mem(got.ptr, got.len, want.ptr, want.len,
	       "fallback bytes == git's in-process gzip");

	run("cd repo && git -c tar.tgz.command='git archive gzip' "
	    "archive --format=tgz -1 HEAD >../want.tgz");
	slurp(&want, "want.tgz");
	setenv("PATH", nopath, 1);
	error = through(&gz, 1, tar, "gz.out");
	setenv("PATH", path, 1);
	slurp(&got, "gz.out");
	ok(!error && strstr(reports.ptr, "'gzip -cn -1' filter"),
	   "fallback at -1 names 'gzip -cn -1'");
	is_mem(got.ptr, got.len, want.ptr, want.len,
	       "fallback -1 bytes == git's in-process gzip -1");

	/* A gzip that is there but cannot be executed also falls back. */
	run("mkdir -p badgzip && echo junk >badgzip/gzip && "
	    "chmod 644 badgzip/gzip && mkdir -p dirgzip/gzip");
	snprintf(nopath, sizeof(nopath), "%s/badgzip:%s/dirgzip", trash,
		 trash);
	setenv("PATH", nopath, 1);
	error = through(&gz, -1, tar, "gz.out");
	setenv("PATH", path, 1);
	ok(!error && strstr(reports.ptr, "falling back"),
	   "non-executable gzip and a gzip directory are skipped");

	/*
	 * Found on PATH but execve() fails (its interpreter is a
	 * directory): the child's errno comes back at open time.
	 */
	run("mkdir -p badinterp && printf '#!/tmp\\n' >badinterp/gzip && "
	    "chmod 755 badinterp/gzip");
	snprintf(nopath, sizeof(nopath), "%s/badinterp", trash);
	setenv("PATH", nopath, 1);
	error = through(&gz, -1, tar, "gz.out");
	setenv("PATH", path, 1);
	ok(!error && strstr(reports.ptr, "falling back to 'git archive gzip': "
			   "Permission denied"),
	   "an execve() failure is detected at open time: %s",
	   reports.ptr ? reports.ptr : "");

	free(path);
	ga_buf_release(&want);
	ga_buf_release(&got);
}

/*
 * The command sink running `command` (with `level`, -1 for none) writes
 * what the shell line `reference` writes into gz.want from data.tar.
 */
static void pipeline_like_shell(const struct ga_buf *tar, const char *command,
				int level, const char *reference,
				const char *what)
{
	struct sink_spec cmd = { SINK_COMMAND, NULL };
	struct ga_buf want = GA_BUF_INIT, got = GA_BUF_INIT;
	int error;

	cmd.command = command;
	error = through(&cmd, level, tar, "cmd.out");
	run("%s", reference);
	slurp(&want, "gz.want");
	slurp(&got, "cmd.out");
	ok(!error, "%s", what);
	is_mem(got.ptr, got.len, want.ptr, want.len, what);
	ga_buf_release(&want);
	ga_buf_release(&got);
}

static void test_commands(const struct ga_buf *tar)
{
	struct sink_spec cmd = { SINK_COMMAND, NULL };
	struct ga_buf want = GA_BUF_INIT, got = GA_BUF_INIT;
	int error, fd;

	pipeline_like_shell(tar, "gzip -cn | cat", -1,
			    "gzip -cn <data.tar >gz.want",
			    "shell pipeline 'gzip -cn | cat'");
	pipeline_like_shell(tar, "gzip -cn | gzip -cn", 1,
			    "gzip -cn <data.tar | gzip -cn -1 >gz.want",
			    "level appended to the end of a pipeline");

	cmd.command = "cat";
	error = through(&cmd, -1, tar, "cmd.out");
	slurp(&got, "cmd.out");
	ok(!error, "plain 'cat' (exec'd directly)");
	is_mem(got.ptr, got.len, tar->ptr, tar->len, "cat passes bytes");

	/* Only stdin, stdout and stderr reach the filter. */
	fd = open("/dev/null", O_RDONLY);	/* deliberately inheritable */
	cmd.command = "cat >/dev/null; ls /proc/$$/fd";
	error = through(&cmd, -1, tar, "cmd.out");
	slurp(&got, "cmd.out");
	ok(!error, "fd listing filter runs");
	is_str(got.ptr, "0\n1\n2\n", "the filter gets fds 0, 1, 2 only");
	close(fd);

	/* Failures, compared with git's diagnostics. */
	cmd.command = "cat >/dev/null; exit 3";
	error = through(&cmd, -1, tar, "cmd.out");
	same_as_git(cmd.command, -1, error, "filter exits 3");

	cmd.command = "no-such-filter-cmd";
	error = through(&cmd, -1, tar, "cmd.out");
	same_as_git(cmd.command, -1, error, "command not found (exec)");

	cmd.command = "cat";
	error = through(&cmd, 9, tar, "cmd.out");
	/* (git itself may die of SIGPIPE here: the tar is large) */
	ok(error == GA_ERROR, "'cat -9' fails");
	is_str(ga_error_message(), "'cat -9' filter reported error",
	       "the level is part of the command in messages");

	run("echo 'echo hi' >notexec && chmod 644 notexec && mkdir -p adir");
	ga_buf_setlen(&want, 0);
	ga_buf_printf(&want, "%s/notexec", trash);
	cmd.command = want.ptr;
	error = through(&cmd, -1, tar, "cmd.out");
	same_as_git(cmd.command, -1, error, "non-executable path");
	ga_buf_setlen(&want, 0);
	ga_buf_printf(&want, "%s/adir", trash);
	error = through(&cmd, -1, tar, "cmd.out");
	same_as_git(cmd.command, -1, error, "a directory as the command");

	/* A script without #! is run by the shell, as git does. */
	run("printf 'cat\\n' >noshebang && chmod 755 noshebang");
	ga_buf_setlen(&want, 0);
	ga_buf_printf(&want, "%s/noshebang", trash);
	cmd.command = want.ptr;
	error = through(&cmd, -1, tar, "cmd.out");
	slurp(&got, "cmd.out");
	ok(!error && got.len == tar->len, "script without #! runs via sh");

	/* No gzip on PATH: a configured "gzip -cn" never falls back. */
	{
		char *path = ga_xstrdup(getenv("PATH"));
		char nopath[600];

		snprintf(nopath, sizeof(nopath), "%s/nogzip", trash);
		setenv("PATH", nopath, 1);
		cmd.command = "gzip -cn";
		error = through(&cmd, -1, tar, "cmd.out");
		setenv("PATH", path, 1);
		ok(error == GA_ERROR && !strstr(reports.ptr ? reports.ptr : "",
						"falling back"),
		   "configured 'gzip -cn' without gzip: no fallback");
		is_str(ga_error_message(), "'gzip -cn' filter reported error",
		       "the shell's 127 is a filter error");
		free(path);
	}

	/* Killed mid-stream by a signal. */
	cmd.command = "head -c 1000 >/dev/null; kill -9 $$";
	error = through(&cmd, -1, tar, "cmd.out");
	ok(error == GA_ERROR, "filter killed mid-stream fails");
	is_str(ga_error_message(), "'head -c 1000 >/dev/null; kill -9 $$' "
	       "filter reported error", "killed: filter reported error");
	is_str(reports.ptr, "error: head -c 1000 >/dev/null; kill -9 $$ "
	       "died of signal 9\n", "killed: git's died-of-signal line");

	/* Killed after reading everything: same lines as git. */
	cmd.command = "cat >/dev/null; kill -9 $$";
	error = through(&cmd, -1, tar, "cmd.out");
	same_as_git(cmd.command, -1, error, "killed after reading all");

	/* Closes stdin early and exits 0: never a success. */
	cmd.command = "head -c 1000 >/dev/null";
	error = through(&cmd, -1, tar, "cmd.out");
	ok(error == GA_EPIPE, "filter closing stdin early: GA_EPIPE");

	/* Closes stdin early and fails. */
	cmd.command = "head -c 1000 >/dev/null; exit 5";
	error = through(&cmd, -1, tar, "cmd.out");
	ok(error == GA_ERROR, "filter closing stdin early and failing");
	is_str(ga_error_message(), "'head -c 1000 >/dev/null; exit 5' "
	       "filter reported error", "early close + failure message");

	/* The reader of our output goes away: gzip dies of SIGPIPE. */
	{
		struct sink_spec gz = { SINK_GZIP, NULL };
		struct sink *s = NULL;
		int fds[2];

		if (pipe(fds))
			abort();
		close(fds[0]);
		error = sink_open(&s, &gz, -1, fds[1]);
		close(fds[1]);
		if (!error)
			error = feed(s, tar, 65536);
		ok(error == GA_EPIPE, "gzip losing its reader: GA_EPIPE");
		if (s)
			s->free(s);
	}

	/* free() while the filter still runs: killed and reaped. */
	{
		struct sink *s = NULL;

		cmd.command = "cat >/dev/null; sleep 30";
		fd = create("cmd.out");
		error = sink_open(&s, &cmd, -1, fd);
		ok(!error && !s->write(s, tar->ptr, 4096), "started sleeper");
		s->free(s);
		close(fd);
		ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
		   "free() reaps a running filter (no zombie)");
	}

	ga_buf_release(&want);
	ga_buf_release(&got);
}

int main(void)
{
	struct ga_buf tar = GA_BUF_INIT;
	const char *tmp = getenv("TMPDIR");

	/* As main does: EPIPE, not death, when a reader goes away. */
	signal(SIGPIPE, SIG_IGN);
	ga_set_report_handler(report, NULL);

	snprintf(trash, sizeof(trash), "%s/ga-filter-XXXXXX",
		 tmp ? tmp : "/tmp");
	if (!mkdtemp(trash)) {
		perror("mkdtemp");
		return 1;
	}
	scratch_seal_env(trash);

	if (make_repo() || slurp(&tar, "data.tar") || tar.len < (2u << 20)) {
		ok(0, "scratch repository and tar");
		return tap_done();
	}
	diag("tar of %zu bytes", tar.len);

	test_fd_and_memory(&tar);
	test_zlib(&tar);
	test_gzip(&tar);
	test_commands(&tar);

	ga_buf_release(&tar);
	ga_buf_release(&reports);
	if (!getenv("GA_TEST_KEEP"))
		run("cd / && rm -rf '%s'", trash);
	return tap_done();
}

/*
 * transport.c: from a --remote value to a connected byte stream, with
 * git 2.39's rules (transport.c, connect.c, transport-helper.c, remote.c
 * and url.c of git) for URL forms, quoting, ssh variants, the protocol
 * allow-list and remote helpers.
 */
#include "transport.h"
#include "run-command.h"
#include "pktline.h"
#include "garchive/common.h"
#include "garchive/config.h"
#include "quote.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_GIT_PORT "9418"

enum protocol { PROTO_LOCAL = 1, PROTO_FILE, PROTO_SSH, PROTO_GIT };

enum ssh_variant {
	VARIANT_AUTO,
	VARIANT_SIMPLE,
	VARIANT_SSH,
	VARIANT_PLINK,
	VARIANT_PUTTY,
	VARIANT_TORTOISEPLINK
};

/*
 * Variables that describe the caller's repository: a local transport
 * must not pass them to the server, or it would serve the wrong
 * repository (git's local_repo_env).
 */
static const char *const local_repo_env[] = {
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY",
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_IMPLICIT_WORK_TREE",
	"GIT_GRAFT_FILE",
	"GIT_INDEX_FILE",
	"GIT_NO_REPLACE_OBJECTS",
	"GIT_REPLACE_REF_BASE",
	"GIT_PREFIX",
	"GIT_SHALLOW_FILE",
	"GIT_COMMON_DIR",
	NULL
};

/* Write one of git's diagnostics that do not end the run. */
static void say(int fd, const char *prefix, const char *msg)
{
	char *line = ga_xstrfmt("%s%s\n", prefix, msg);

	(void)pkt_write_all(fd, line, strlen(line));
	free(line);
}

/* ---- resolving the remote ---- */

struct rewrite {
	char *base;
	char **prefixes;
	size_t nr, alloc;
};

struct remote_config {
	const char *name;	/* the --remote value */
	char **urls;
	size_t nr_urls, alloc_urls;
	int has_vcs;
	char *vcs;
	struct rewrite *rewrites;
	size_t nr_rewrites, alloc_rewrites;
};

/* Split "section.sub.key"; returns 0 when it has a subsection. */
static int split_key(const char *name, size_t *section_len,
		     const char **sub, size_t *sub_len, const char **key)
{
	const char *dot = strchr(name, '.');
	const char *last = strrchr(name, '.');

	if (!dot || dot == last)
		return -1;
	*section_len = (size_t)(dot - name);
	*sub = dot + 1;
	*sub_len = (size_t)(last - dot - 1);
	*key = last + 1;
	return 0;
}

static int collect_remote_config(const char *name, const char *value,
				 const char *origin, void *payload)
{
	struct remote_config *rc = payload;
	size_t section_len, sub_len, i;
	const char *sub, *key;

	(void)origin;
	if (split_key(name, &section_len, &sub, &sub_len, &key) < 0)
		return 0;
	if (section_len == 6 && !strncasecmp(name, "remote", 6) &&
	    sub_len == strlen(rc->name) && !strncmp(sub, rc->name, sub_len)) {
		if (!strcasecmp(key, "url")) {
			if (!value)
				return ga_error_set("missing value for '%s'",
						    name);
			GA_ALLOC_GROW(rc->urls, rc->nr_urls + 1,
				      rc->alloc_urls);
			rc->urls[rc->nr_urls++] = ga_xstrdup(value);
		} else if (!strcasecmp(key, "vcs")) {
			if (!value)
				return ga_error_set("missing value for '%s'",
						    name);
			free(rc->vcs);
			rc->vcs = ga_xstrdup(value);
			rc->has_vcs = 1;
		}
	} else if (section_len == 3 && !strncasecmp(name, "url", 3) &&
		   !strcasecmp(key, "insteadof")) {
		struct rewrite *rw = NULL;

		if (!value)
			return ga_error_set("missing value for '%s'", name);
		/* Rewrites are grouped by base, in order of appearance. */
		for (i = 0; i < rc->nr_rewrites; i++)
			if (strlen(rc->rewrites[i].base) == sub_len &&
			    !strncmp(rc->rewrites[i].base, sub, sub_len))
				rw = &rc->rewrites[i];
		if (!rw) {
			GA_ALLOC_GROW(rc->rewrites, rc->nr_rewrites + 1,
				      rc->alloc_rewrites);
			rw = &rc->rewrites[rc->nr_rewrites++];
			memset(rw, 0, sizeof(*rw));
			rw->base = ga_xstrndup(sub, sub_len);
		}
		GA_ALLOC_GROW(rw->prefixes, rw->nr + 1, rw->alloc);
		rw->prefixes[rw->nr++] = ga_xstrdup(value);
	}
	return 0;
}

static void remote_config_release(struct remote_config *rc)
{
	size_t i, j;

	for (i = 0; i < rc->nr_urls; i++)
		free(rc->urls[i]);
	free(rc->urls);
	free(rc->vcs);
	for (i = 0; i < rc->nr_rewrites; i++) {
		for (j = 0; j < rc->rewrites[i].nr; j++)
			free(rc->rewrites[i].prefixes[j]);
		free(rc->rewrites[i].prefixes);
		free(rc->rewrites[i].base);
	}
	free(rc->rewrites);
}

/* url.<base>.insteadOf: the longest matching prefix wins, first on ties. */
static char *alias_url(const struct remote_config *rc, const char *url)
{
	const struct rewrite *best = NULL;
	size_t best_len = 0, i, j;

	for (i = 0; i < rc->nr_rewrites; i++) {
		for (j = 0; j < rc->rewrites[i].nr; j++) {
			const char *p = rc->rewrites[i].prefixes[j];
			size_t len = strlen(p);

			if (!strncmp(url, p, len) &&
			    (!best || best_len < len)) {
				best = &rc->rewrites[i];
				best_len = len;
			}
		}
	}
	if (!best)
		return ga_xstrdup(url);
	return ga_xstrfmt("%s%s", best->base, url + best_len);
}

/* ---- URL helpers (git's url.c and connect.c) ---- */

static int is_urlschemechar(int first, int ch)
{
	int alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
	int digit = ch >= '0' && ch <= '9';

	return first ? alpha : (alpha || digit || ch == '+' || ch == '-' ||
				ch == '.');
}

static int is_url(const char *url)
{
	if (!url || !is_urlschemechar(1, *url++))
		return 0;
	while (*url && *url != ':')
		if (!is_urlschemechar(0, *url++))
			return 0;
	return url[0] == ':' && url[1] == '/' && url[2] == '/';
}

static int url_is_local_not_ssh(const char *url)
{
	const char *colon = strchr(url, ':');
	const char *slash = strchr(url, '/');

	return !colon || (slash && slash < colon);
}

static int hex2chr(const char *s)
{
	int hi, lo;

	if (!s[0] || !s[1])
		return -1;
	hi = (s[0] >= '0' && s[0] <= '9') ? s[0] - '0' :
	     (s[0] >= 'a' && s[0] <= 'f') ? s[0] - 'a' + 10 :
	     (s[0] >= 'A' && s[0] <= 'F') ? s[0] - 'A' + 10 : -1;
	lo = (s[1] >= '0' && s[1] <= '9') ? s[1] - '0' :
	     (s[1] >= 'a' && s[1] <= 'f') ? s[1] - 'a' + 10 :
	     (s[1] >= 'A' && s[1] <= 'F') ? s[1] - 'A' + 10 : -1;
	return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}

/* %XX-decode everything after the scheme; "%00" stays as it is. */
static char *url_decode(const char *url)
{
	struct ga_buf out = GA_BUF_INIT;
	const char *colon = strchr(url, ':');
	const char *q = url;

	if (colon && url < colon) {
		ga_buf_put(&out, url, (size_t)(colon - url));
		q = colon;
	}
	while (*q) {
		int val;

		if (*q == '%' && (val = hex2chr(q + 1)) > 0) {
			ga_buf_putc(&out, val);
			q += 3;
			continue;
		}
		ga_buf_putc(&out, *q++);
	}
	return ga_buf_detach(&out, NULL);
}

static int get_protocol(enum protocol *out, const char *name)
{
	if (!strcmp(name, "ssh") || !strcmp(name, "git+ssh") ||
	    !strcmp(name, "ssh+git"))
		*out = PROTO_SSH;
	else if (!strcmp(name, "git"))
		*out = PROTO_GIT;
	else if (!strcmp(name, "file"))
		*out = PROTO_FILE;
	else
		return ga_error_set("protocol '%s' is not supported", name);
	return 0;
}

/*
 * Where the host ends: after a bracketed "[...]" (also "user@[...]"),
 * whose brackets are removed when asked.
 */
static char *host_end(char **hoststart, int removebrackets)
{
	char *host = *hoststart;
	char *start = strstr(host, "@[");
	char *end;

	start = start ? start + 1 : host;
	if (start[0] != '[')
		return host;
	end = strchr(start + 1, ']');
	if (!end)
		return host;
	if (removebrackets) {
		*end = '\0';
		memmove(start, start + 1, (size_t)(end - start));
		end++;
	}
	return end;
}

static void get_host_and_port(char **host, const char **port)
{
	char *end = host_end(host, 1);
	char *colon = strchr(end, ':');

	if (colon) {
		long portnr = strtol(colon + 1, &end, 10);

		if (end != colon + 1 && *end == '\0' && portnr >= 0 &&
		    portnr < 65536) {
			*colon = '\0';
			*port = colon + 1;
		} else if (!colon[1]) {
			*colon = '\0';
		}
	}
}

static const char *get_port(char *host)
{
	char *end, *p = strchr(host, ':');

	if (p) {
		long port = strtol(p + 1, &end, 10);

		if (end != p + 1 && *end == '\0' && port >= 0 &&
		    port < 65536) {
			*p = '\0';
			return p + 1;
		}
	}
	return NULL;
}

/* git's parse_connect_url(): the protocol, "host[:port]" and the path. */
static int parse_connect_url(enum protocol *proto, char **ret_host,
			     char **ret_path, const char *url_orig)
{
	char *url, *host, *path, *end;
	int separator = '/', error = 0;

	*proto = PROTO_LOCAL;
	url = is_url(url_orig) ? url_decode(url_orig) : ga_xstrdup(url_orig);
	host = strstr(url, "://");
	if (host) {
		*host = '\0';
		if ((error = get_protocol(proto, url)) < 0)
			goto done;
		host += 3;
	} else {
		host = url;
		if (!url_is_local_not_ssh(url)) {
			*proto = PROTO_SSH;
			separator = ':';
		}
	}
	/* Brackets stay for now: get_host_and_port() removes them. */
	end = host_end(&host, 0);
	if (*proto == PROTO_LOCAL)
		path = end;
	else
		path = strchr(end, separator);
	if (!path || !*path) {
		error = ga_error_set("no path specified; see 'git help pull' "
				     "for valid url syntax");
		goto done;
	}
	end = path;
	if (separator == ':')
		path++;
	/* ssh://host/~user/repo and git://host/~user/repo name ~user/repo */
	if ((*proto == PROTO_GIT || *proto == PROTO_SSH) && path[1] == '~')
		path++;
	*ret_path = ga_xstrdup(path);
	*end = '\0';
	*ret_host = ga_xstrdup(host);
done:
	free(url);
	return error;
}

/* ---- policy: protocol.version, protocol.*.allow ---- */

static int protocol_version(int *out, const struct ga_config *cfg)
{
	const char *v = NULL;

	*out = 2;
	if (config_get_string(&v, cfg, "protocol.version") == 0) {
		if (v && (!strcmp(v, "0") || !strcmp(v, "1") ||
			  !strcmp(v, "2"))) {
			*out = v[0] - '0';
			return 0;
		}
		return ga_error_set("unknown value for config "
				    "'protocol.version': %s", v ? v : "");
	}
	v = getenv("GIT_TEST_PROTOCOL_VERSION");
	if (v && *v) {
		if (!strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "2")) {
			*out = v[0] - '0';
			return 0;
		}
		return ga_error_set("unknown value for "
				    "GIT_TEST_PROTOCOL_VERSION: %s", v);
	}
	return 0;
}

enum allow { ALLOW_NEVER, ALLOW_USER_ONLY, ALLOW_ALWAYS };

static int parse_allow(enum allow *out, const char *key, const char *value)
{
	if (value && !strcasecmp(value, "always"))
		*out = ALLOW_ALWAYS;
	else if (value && !strcasecmp(value, "never"))
		*out = ALLOW_NEVER;
	else if (value && !strcasecmp(value, "user"))
		*out = ALLOW_USER_ONLY;
	else
		return ga_error_set("unknown value for config '%s': %s", key,
				    value ? value : "");
	return 0;
}

static int check_allowed(const struct ga_config *cfg, const char *type)
{
	const char *list = getenv("GIT_ALLOW_PROTOCOL");
	const char *value;
	enum allow allow;
	char *key;
	int error, allowed, from_user = 1;

	if (list) {
		/* A colon-separated allow-list replaces all configuration. */
		size_t len = strlen(type);
		const char *p = list;

		allowed = 0;
		for (;;) {
			size_t n = strcspn(p, ":");

			if (n == len && !strncmp(p, type, len))
				allowed = 1;
			if (!p[n])
				break;
			p += n + 1;
		}
		goto out;
	}
	key = ga_xstrfmt("protocol.%s.allow", type);
	if (config_get_string(&value, cfg, key) == 0) {
		error = parse_allow(&allow, key, value);
	} else if (config_get_string(&value, cfg, "protocol.allow") == 0) {
		error = parse_allow(&allow, "protocol.allow", value);
	} else {
		error = 0;
		if (!strcmp(type, "http") || !strcmp(type, "https") ||
		    !strcmp(type, "git") || !strcmp(type, "ssh"))
			allow = ALLOW_ALWAYS;
		else if (!strcmp(type, "ext"))
			allow = ALLOW_NEVER;
		else
			allow = ALLOW_USER_ONLY;
	}
	free(key);
	if (error < 0)
		return error;
	if (allow == ALLOW_USER_ONLY) {
		const char *v = getenv("GIT_PROTOCOL_FROM_USER");

		if (v && (error = config_parse_bool(&from_user,
					"GIT_PROTOCOL_FROM_USER", v)) < 0)
			return error;
	}
	allowed = allow == ALLOW_ALWAYS ||
		  (allow == ALLOW_USER_ONLY && from_user);
out:
	if (!allowed)
		return ga_error_set("transport '%s' not allowed", type);
	return 0;
}

/* ---- git:// ---- */

static int tcp_connect(int *out, char *hostandport)
{
	struct addrinfo hints, *ai0 = NULL, *ai;
	struct ga_buf errors = GA_BUF_INIT;
	const char *port = DEFAULT_GIT_PORT;
	char *host = hostandport;
	int sockfd = -1, gai, cnt = 0, ka = 1;

	get_host_and_port(&host, &port);
	if (!*port)
		port = "<none>";
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	gai = getaddrinfo(host, port, &hints, &ai0);
	if (gai)
		return ga_error_set("unable to look up %s (port %s) (%s)",
				    host, port, gai_strerror(gai));
	for (ai = ai0; ai; ai = ai->ai_next, cnt++) {
		char addr[NI_MAXHOST];
		int err;

		sockfd = socket(ai->ai_family, ai->ai_socktype,
				ai->ai_protocol);
		if (sockfd >= 0 &&
		    connect(sockfd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		err = errno;
		if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr,
				sizeof(addr), NULL, 0, NI_NUMERICHOST))
			snprintf(addr, sizeof(addr), "(unknown)");
		ga_buf_printf(&errors, "%s[%d: %s]: errno=%s\n", host, cnt,
			      addr, strerror(err));
		if (sockfd >= 0)
			close(sockfd);
		sockfd = -1;
	}
	freeaddrinfo(ai0);
	if (sockfd < 0) {
		int error = ga_error_set("unable to connect to %s:\n%s", host,
					 errors.ptr ? errors.ptr : "");

		ga_buf_release(&errors);
		return error;
	}
	ga_buf_release(&errors);
	/* git turns keepalive on for its daemon connections. */
	(void)setsockopt(sockfd, SOL_SOCKET, SO_KEEPALIVE, &ka, sizeof(ka));
	*out = sockfd;
	return 0;
}

static int connect_git(struct transport *t, const struct transport_options *o,
		       char *hostandport, const char *path, int version)
{
	const char *vhost = getenv("GIT_OVERRIDE_VIRTUAL_HOST");
	char *target = ga_xstrdup(vhost ? vhost : hostandport);
	struct ga_buf req = GA_BUF_INIT;
	int error, fd;

	if ((error = check_allowed(o->config, "git")) < 0)
		goto done;
	if (strchr(target, '\n') || strchr(path, '\n')) {
		error = ga_error_set("newline is forbidden in git:// hosts "
				     "and repo paths");
		goto done;
	}
	if ((error = tcp_connect(&fd, hostandport)) < 0)
		goto done;
	t->in = fd;
	t->out = dup(fd);
	if (t->out < 0) {
		error = ga_error_errno(errno, "dup");
		goto done;
	}
	/* Extra headers follow the host after a second NUL. */
	ga_buf_printf(&req, "%s %s", o->exec, path);
	ga_buf_putc(&req, '\0');
	ga_buf_printf(&req, "host=%s", target);
	ga_buf_putc(&req, '\0');
	if (version > 0) {
		ga_buf_putc(&req, '\0');
		ga_buf_printf(&req, "version=%d", version);
		ga_buf_putc(&req, '\0');
	}
	error = pkt_buf_add(&t->pending, req.ptr, req.len);
done:
	ga_buf_release(&req);
	free(target);
	return error;
}

/* ---- ssh ---- */

/* The first word of a command line split as git's split_cmdline(). */
static char *first_word(const char *cmd)
{
	struct ga_buf w = GA_BUF_INIT;
	const char *p = cmd;
	char quote = 0;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (!*p)
		return NULL;
	for (; *p; p++) {
		if (quote) {
			if (*p == quote) {
				quote = 0;
			} else if (quote == '"' && *p == '\\' && p[1]) {
				ga_buf_putc(&w, *++p);
			} else {
				ga_buf_putc(&w, *p);
			}
		} else if (*p == ' ' || *p == '\t' || *p == '\n' ||
			   *p == '\r') {
			break;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '\\' && p[1]) {
			ga_buf_putc(&w, *++p);
		} else {
			ga_buf_putc(&w, *p);
		}
	}
	if (quote) {
		ga_buf_release(&w);
		return NULL;
	}
	return ga_buf_detach(&w, NULL);
}

static enum ssh_variant determine_ssh_variant(const struct ga_config *cfg,
					      const char *ssh, int is_cmdline)
{
	const char *v = getenv("GIT_SSH_VARIANT");
	const char *base;
	char *word;
	enum ssh_variant variant = VARIANT_AUTO;

	if (!v && config_get_string(&v, cfg, "ssh.variant") != 0)
		v = NULL;
	if (v) {
		if (!strcmp(v, "auto"))
			return VARIANT_AUTO;
		if (!strcmp(v, "plink"))
			return VARIANT_PLINK;
		if (!strcmp(v, "putty"))
			return VARIANT_PUTTY;
		if (!strcmp(v, "tortoiseplink"))
			return VARIANT_TORTOISEPLINK;
		if (!strcmp(v, "simple"))
			return VARIANT_SIMPLE;
		return VARIANT_SSH;
	}
	word = is_cmdline ? first_word(ssh) : ga_xstrdup(ssh);
	if (!word)
		return VARIANT_AUTO;
	base = strrchr(word, '/');
	base = base ? base + 1 : word;
	if (!strcasecmp(base, "ssh") || !strcasecmp(base, "ssh.exe"))
		variant = VARIANT_SSH;
	else if (!strcasecmp(base, "plink") ||
		 !strcasecmp(base, "plink.exe"))
		variant = VARIANT_PLINK;
	else if (!strcasecmp(base, "tortoiseplink") ||
		 !strcasecmp(base, "tortoiseplink.exe"))
		variant = VARIANT_TORTOISEPLINK;
	free(word);
	return variant;
}

static int push_ssh_options(struct ga_strvec *args, struct ga_strvec *env,
			    enum ssh_variant variant, const char *port,
			    int version)
{
	if (variant == VARIANT_SSH && version > 0) {
		ga_strvec_push(args, ga_xstrdup("-o"));
		ga_strvec_push(args, ga_xstrdup("SendEnv=GIT_PROTOCOL"));
		ga_strvec_push(env,
			       ga_xstrfmt("GIT_PROTOCOL=version=%d", version));
	}
	if (variant == VARIANT_TORTOISEPLINK)
		ga_strvec_push(args, ga_xstrdup("-batch"));
	if (!port)
		return 0;
	switch (variant) {
	case VARIANT_AUTO:
		GA_BUG("VARIANT_AUTO passed to push_ssh_options()");
	case VARIANT_SIMPLE:
		return ga_error_set("ssh variant 'simple' does not support "
				    "setting port");
	case VARIANT_SSH:
		ga_strvec_push(args, ga_xstrdup("-p"));
		break;
	case VARIANT_PLINK:
	case VARIANT_PUTTY:
	case VARIANT_TORTOISEPLINK:
		ga_strvec_push(args, ga_xstrdup("-P"));
		break;
	}
	ga_strvec_push(args, ga_xstrdup(port));
	return 0;
}

/*
 * An ssh of unknown kind is asked whether it understands OpenSSH's
 * options ("ssh -G"), as git does; if not, it gets none.
 */
static enum ssh_variant detect_ssh(const struct transport_options *o,
				   const char *ssh, int use_shell,
				   const char *port, const char *host,
				   int version)
{
	struct ga_strvec args = GA_STRVEC_INIT, env = GA_STRVEC_INIT;
	struct child c = CHILD_INIT;
	enum ssh_variant variant = VARIANT_SIMPLE;
	int code;

	ga_strvec_push(&args, ga_xstrdup(ssh));
	ga_strvec_push(&args, ga_xstrdup("-G"));
	(void)push_ssh_options(&args, &env, VARIANT_SSH, port, version);
	ga_strvec_push(&args, ga_xstrdup(host));
	c.argv = (const char *const *)args.v;
	c.env = (const char *const *)env.v;
	c.use_shell = use_shell;
	c.dir = o->dir;
	c.null_in = c.null_out = c.null_err = 1;
	if (child_start(&c) < 0) {
		say(o->err_fd, child_failure_prefix(&c), ga_error_message());
		ga_error_clear();
	} else if (child_finish(&c, &code, NULL) == 0 && code == 0) {
		variant = VARIANT_SSH;
	}
	ga_error_clear();
	ga_strv_free(args.v);
	ga_strv_free(env.v);
	return variant;
}

static int fill_ssh_args(struct transport *t, struct ga_strvec *args,
			 struct ga_strvec *env,
			 const struct transport_options *o,
			 const char *host, const char *port, int version)
{
	const char *ssh = getenv("GIT_SSH_COMMAND");
	enum ssh_variant variant;

	if (host[0] == '-')
		return ga_error_set("strange hostname '%s' blocked", host);
	if (!ssh && config_get_string(&ssh, o->config,
				      "core.sshcommand") != 0)
		ssh = NULL;
	if (ssh) {
		variant = determine_ssh_variant(o->config, ssh, 1);
	} else {
		/* GIT_SSH names a program; it is never given to a shell. */
		t->child.use_shell = 0;
		ssh = getenv("GIT_SSH");
		if (!ssh)
			ssh = "ssh";
		variant = determine_ssh_variant(o->config, ssh, 0);
	}
	if (variant == VARIANT_AUTO)
		variant = detect_ssh(o, ssh, t->child.use_shell, port, host,
				     version);
	ga_strvec_push(args, ga_xstrdup(ssh));
	return push_ssh_options(args, env, variant, port, version);
}

/* ssh and local paths: a child process speaking on its stdin/stdout. */
static int connect_process(struct transport *t,
			   const struct transport_options *o,
			   enum protocol proto, char *hostandport,
			   const char *path, int version)
{
	struct ga_strvec args = GA_STRVEC_INIT, env = GA_STRVEC_INIT;
	struct ga_buf cmd = GA_BUF_INIT;
	size_t i;
	int error;

	if (path[0] == '-') {
		error = ga_error_set("strange pathname '%s' blocked", path);
		goto done;
	}
	ga_buf_puts(&cmd, o->exec);
	ga_buf_putc(&cmd, ' ');
	ga_sq_quote(&cmd, path);
	for (i = 0; local_repo_env[i]; i++)
		ga_strvec_push(&env, ga_xstrdup(local_repo_env[i]));
	t->child.use_shell = 1;
	if (proto == PROTO_SSH) {
		char *host = hostandport;
		const char *port = NULL;

		if ((error = check_allowed(o->config, "ssh")) < 0)
			goto done;
		get_host_and_port(&host, &port);
		if (!port)
			port = get_port(host);
		if ((error = fill_ssh_args(t, &args, &env, o, host, port,
					   version)) < 0)
			goto done;
		ga_strvec_push(&args, ga_xstrdup(host));
	} else {
		if ((error = check_allowed(o->config, "file")) < 0)
			goto done;
		if (version > 0)
			ga_strvec_push(&env,
				       ga_xstrfmt("GIT_PROTOCOL=version=%d",
						  version));
	}
	ga_strvec_push(&args, ga_buf_detach(&cmd, NULL));
	t->argv = args.v;
	t->env = env.v;
	args.v = env.v = NULL;
	t->child.argv = (const char *const *)t->argv;
	t->child.env = (const char *const *)t->env;
	t->child.dir = o->dir;
	t->child.pipe_in = t->child.pipe_out = 1;
	if (child_start(&t->child) < 0) {
		say(o->err_fd, child_failure_prefix(&t->child),
		    ga_error_message());
		error = ga_error_set("unable to fork");
		goto done;
	}
	t->in = t->child.out;
	t->out = t->child.in;
	t->child.out = t->child.in = -1;
	error = 0;
done:
	ga_buf_release(&cmd);
	ga_strv_free(args.v);
	ga_strv_free(env.v);
	return error;
}

static int git_connect(struct transport *t, const struct transport_options *o,
		       const char *url)
{
	char *hostandport = NULL, *path = NULL;
	enum protocol proto;
	int version, error;

	if ((error = protocol_version(&version, o->config)) < 0)
		return error;
	/*
	 * git 2.41 and later (eaa0fd6584) speak v2 only to upload-pack:
	 * upload-archive gets no "version=2" probe (git:// extra
	 * parameter, GIT_PROTOCOL, ssh's SendEnv).  No upload-archive
	 * speaks v2 over these transports, so the probe was only noise.
	 * protocol.version=1 is still sent, as by git.
	 */
	if (version == 2)
		version = 0;
	if ((error = parse_connect_url(&proto, &hostandport, &path, url)) < 0)
		return error;
	if (proto == PROTO_GIT)
		error = connect_git(t, o, hostandport, path, version);
	else
		error = connect_process(t, o, proto, hostandport, path,
					version);
	free(hostandport);
	free(path);
	return error;
}

/* ---- remote helpers ---- */

int transport_read_line(struct ga_buf *line, int fd)
{
	ga_buf_setlen(line, 0);
	for (;;) {
		char c;
		ssize_t n = read(fd, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return line->len ? 0 : -1;
		if (c == '\n')
			return 0;
		ga_buf_putc(line, c);
	}
}

static int helper_send(struct transport *t, const char *text)
{
	int error = pkt_write_all(t->out, text, strlen(text));

	if (error == -1)
		return ga_error_errno(errno, "write to remote helper failed");
	return error;
}

static const char *const helper_capabilities[] = {
	"fetch", "option", "push", "import", "bidi-import", "export",
	"check-connectivity", "connect", "stateless-connect", "signed-tags",
	NULL
};

static int known_capability(const char *cap)
{
	size_t i;

	for (i = 0; helper_capabilities[i]; i++)
		if (!strcmp(cap, helper_capabilities[i]))
			return 1;
	return !strncmp(cap, "refspec ", 8) ||
	       !strncmp(cap, "export-marks ", 13) ||
	       !strncmp(cap, "import-marks ", 13) ||
	       !strncmp(cap, "no-private-update", 17) ||
	       !strncmp(cap, "object-format", 13);
}

/* "option servpath <exec>": fire and forget, with git's warnings. */
static int helper_servpath(struct transport *t,
			   const struct transport_options *o,
			   const char *name, struct ga_buf *line)
{
	struct ga_buf cmd = GA_BUF_INIT;
	int r, error;

	ga_buf_puts(&cmd, "option servpath ");
	ga_quote_c(&cmd, o->exec, strlen(o->exec), 1);
	ga_buf_putc(&cmd, '\n');
	error = helper_send(t, cmd.ptr);
	ga_buf_release(&cmd);
	if (error < 0)
		return error;
	if (transport_read_line(line, t->in) < 0)
		return GA_ESILENT;
	if (!strcmp(line->ptr, "ok")) {
		r = 0;
	} else if (!strncmp(line->ptr, "error", 5)) {
		r = -1;
	} else if (!strcmp(line->ptr, "unsupported")) {
		r = 1;
	} else {
		char *msg = ga_xstrfmt("%s unexpectedly said: '%s'", name,
				       line->ptr);

		say(o->err_fd, "warning: ", msg);
		free(msg);
		r = 1;
	}
	if (r > 0)
		say(o->err_fd, "warning: ", "setting remote service path not "
		    "supported by protocol");
	else if (r < 0)
		say(o->err_fd, "warning: ", "invalid remote service path");
	return 0;
}

/*
 * git's curl-based helpers (git-remote-http and its links) are
 * garchive-remote-http here, from garchive's own directory: it speaks
 * protocol v2 for archives with any git installed, or none.
 */
static int is_curl_helper(const char *name)
{
	return !strcmp(name, "http") || !strcmp(name, "https") ||
	       !strcmp(name, "ftp") || !strcmp(name, "ftps");
}

static char *curl_helper_path(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return ga_xstrdup("garchive-remote-http");
	self[n] = '\0';
	slash = strrchr(self, '/');
	return ga_xstrfmt("%.*s/garchive-remote-http",
			  (int)(slash ? slash - self : 0), self);
}

/*
 * The client's -c options reach a helper in GIT_CONFIG_PARAMETERS,
 * after those it got itself, as git passes its own.
 */
static char *config_parameters(const struct transport_options *o)
{
	struct ga_buf b = GA_BUF_INIT;
	const char *old = getenv("GIT_CONFIG_PARAMETERS");
	size_t i;

	ga_buf_puts(&b, "GIT_CONFIG_PARAMETERS=");
	if (old)
		ga_buf_puts(&b, old);
	for (i = 0; i < o->nr_config_overrides; i++) {
		const char *kv = o->config_overrides[i];
		const char *eq = strchr(kv, '=');
		char *key = ga_xstrndup(kv, eq ? (size_t)(eq - kv)
					       : strlen(kv));

		if (b.len > 22)
			ga_buf_putc(&b, ' ');
		ga_sq_quote(&b, key);
		if (eq) {
			ga_buf_putc(&b, '=');
			ga_sq_quote(&b, eq + 1);
		}
		free(key);
	}
	return ga_buf_detach(&b, NULL);
}

static int start_helper(struct transport *t, const struct transport_options *o,
			const char *name, const char *url)
{
	struct ga_strvec args = GA_STRVEC_INIT, env = GA_STRVEC_INIT;

	if (is_curl_helper(name)) {
		ga_strvec_push(&args, curl_helper_path());
	} else {
		ga_strvec_push(&args, ga_xstrdup("git"));
		ga_strvec_push(&args, ga_xstrfmt("remote-%s", name));
	}
	ga_strvec_push(&args, ga_xstrdup(o->remote));
	ga_strvec_push(&args, ga_xstrdup(url));
	if (o->git_dir)
		ga_strvec_push(&env, ga_xstrfmt("GIT_DIR=%s", o->git_dir));
	if (o->nr_config_overrides)
		ga_strvec_push(&env, config_parameters(o));
	t->argv = args.v;
	t->env = env.v;
	t->name = ga_xstrfmt("remote-%s", name);
	t->child.argv = (const char *const *)t->argv;
	t->child.env = (const char *const *)t->env;
	t->child.dir = o->dir;
	t->child.pipe_in = t->child.pipe_out = 1;
	t->helper = 1;
	if (child_start(&t->child) < 0) {
		if (errno == ENOENT)
			return ga_error_set("unable to find remote helper "
					    "for '%s'", name);
		return GA_ESILENT;
	}
	t->in = t->child.out;
	t->out = t->child.in;
	t->child.out = t->child.in = -1;
	return 0;
}

static int connect_helper(struct transport *t,
			  const struct transport_options *o,
			  const char *name, const char *url)
{
	struct ga_buf line = GA_BUF_INIT;
	const char *colon = strchr(url, ':');
	int error, has_connect = 0, has_stateless = 0, has_option = 0;
	int version;

	if ((error = check_allowed(o->config, name)) < 0)
		return error;
	if ((error = protocol_version(&version, o->config)) < 0)
		return error;
	/* The helper gets the address without its "<helper>::". */
	if (colon && colon[1] == ':')
		url = colon + 2;
	if ((error = start_helper(t, o, name, url)) < 0)
		goto done;

	if ((error = helper_send(t, "capabilities\n")) < 0)
		goto done;
	for (;;) {
		const char *cap;

		if (transport_read_line(&line, t->in) < 0) {
			/* git exits 128 without a word of its own. */
			error = GA_ESILENT;
			goto done;
		}
		if (!line.len)
			break;
		cap = line.ptr[0] == '*' ? line.ptr + 1 : line.ptr;
		if (!strcmp(cap, "connect"))
			has_connect = 1;
		else if (!strcmp(cap, "stateless-connect"))
			has_stateless = 1;
		else if (!strcmp(cap, "option"))
			has_option = 1;
		else if (line.ptr[0] == '*' && !known_capability(cap)) {
			error = ga_error_set("unknown mandatory capability %s; "
					     "this remote helper probably "
					     "needs newer version of Git",
					     cap);
			goto done;
		}
	}
	if (strcmp(o->service, o->exec)) {
		if (!has_option)
			say(o->err_fd, "warning: ", "setting remote service "
			    "path not supported by protocol");
		else if ((error = helper_servpath(t, o, name, &line)) < 0)
			goto done;
	}
	/*
	 * git 2.44 and later: a helper without "connect" may still serve
	 * upload-archive statelessly, in protocol v2 (http and https).
	 */
	ga_buf_setlen(&line, 0);
	if (has_connect) {
		ga_buf_printf(&line, "connect %s\n", o->service);
	} else if (has_stateless && version == 2) {
		ga_buf_printf(&line, "stateless-connect %s\n", o->service);
		t->stateless = 1;
	} else {
		error = ga_error_set("can't connect to subservice %s",
				     o->service);
		goto done;
	}
	if ((error = helper_send(t, line.ptr)) < 0)
		goto done;
	if (transport_read_line(&line, t->in) < 0) {
		error = GA_ESILENT;
		goto done;
	}
	if (!strcmp(line.ptr, "fallback"))
		error = ga_error_set("can't connect to subservice %s",
				     o->service);
	else if (line.len)
		error = ga_error_set("unknown response to connect: %s",
				     line.ptr);
done:
	ga_buf_release(&line);
	return error;
}

/* ---- the entry points ---- */

/* A bundle file: git can read it, but it cannot serve an archive. */
static int is_bundle(const char *path)
{
	static const char *const sigs[] = {
		"# v2 git bundle\n", "# v3 git bundle\n"
	};
	struct stat st;
	char head[16];
	ssize_t n;
	size_t i;
	FILE *f;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	n = (ssize_t)fread(head, 1, sizeof(head), f);
	fclose(f);
	/* The first line must be one of the signatures. */
	for (i = 0; i < GA_ARRAY_SIZE(sigs); i++)
		if (n == (ssize_t)sizeof(head) &&
		    !memcmp(head, sigs[i], sizeof(head)))
			return 1;
	return 0;
}

/* The "<helper>::" in front of an address, if any. */
static char *helper_prefix(const char *url)
{
	const char *p = url;

	while (is_urlschemechar(p == url, *p))
		p++;
	if (p != url && p[0] == ':' && p[1] == ':')
		return ga_xstrndup(url, (size_t)(p - url));
	return NULL;
}

static int builtin_smart(const char *url)
{
	return !is_url(url) || !strncmp(url, "file://", 7) ||
	       !strncmp(url, "git://", 6) || !strncmp(url, "ssh://", 6) ||
	       !strncmp(url, "git+ssh://", 10) ||
	       !strncmp(url, "ssh+git://", 10);
}

int transport_connect(struct transport *t, const struct transport_options *o)
{
	struct remote_config rc;
	char *url = NULL, *helper = NULL;
	int error;

	memset(&rc, 0, sizeof(rc));
	rc.name = o->remote;
	if ((error = config_foreach(o->config, collect_remote_config,
				    &rc)) < 0)
		goto done;
	/*
	 * A remote without a URL (remote.<name>.vcs alone) has its name
	 * for URL, as everything else given to --remote: git 2.46 and
	 * later (ffce821880).  git 2.39 crashes on it.
	 */
	if (rc.nr_urls)
		url = alias_url(&rc, rc.urls[0]);
	else
		url = alias_url(&rc, o->remote);

	if (rc.has_vcs)
		helper = ga_xstrdup(rc.vcs);
	else
		helper = helper_prefix(url);
	if (!helper && url_is_local_not_ssh(url) && is_bundle(url)) {
		error = ga_error_set("operation not supported by protocol");
		goto done;
	}
	if (!helper && !builtin_smart(url))
		helper = ga_xstrndup(url, strcspn(url, ":"));
	if (helper)
		error = connect_helper(t, o, helper, url);
	else
		error = git_connect(t, o, url);
done:
	remote_config_release(&rc);
	free(url);
	free(helper);
	return error;
}

static void report_signal(int err_fd, const char *argv0, int signo)
{
	char *msg = child_death_message(argv0, signo);

	if (msg)
		say(err_fd, "error: ", msg);
	free(msg);
}

int transport_disconnect(struct transport *t, int err_fd)
{
	int code = 0, signo = 0, error = 0;

	child_close(&t->in);
	child_close(&t->out);
	if (t->child.pid) {
		/*
		 * git names the child by its first argument: the shell
		 * command, ssh, or "remote-<helper>" (run as a git command).
		 */
		const char *argv0 = t->helper ? t->name : t->argv[0];

		if ((error = child_finish(&t->child, &code, &signo)) < 0)
			goto done;
		report_signal(err_fd, argv0, signo);
		/*
		 * Only a helper's status counts, as in git; not after a
		 * stateless connection, which git 2.44 and later hand
		 * over to the transport that ignores it.
		 */
		if (t->helper && !t->stateless && code)
			error = GA_EREMOTE;
	}
done:
	transport_release(t);
	return error;
}

void transport_release(struct transport *t)
{
	child_close(&t->in);
	child_close(&t->out);
	/*
	 * Not waited for: like git when it dies, we do not hang on a
	 * server that ignores the end of its input; closing the pipes
	 * tells it to stop.
	 */
	t->child.pid = 0;
	ga_strv_free(t->argv);
	ga_strv_free(t->env);
	t->argv = t->env = NULL;
	free(t->name);
	t->name = NULL;
	ga_buf_release(&t->pending);
}

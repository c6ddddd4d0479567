/*
 * credential.c: `git credential fill|approve|reject` (see credential.h).
 */
#include "remote/credential.h"
#include "garchive/common.h"
#include "run-command.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *credential_split_url(const char *url, char **user, char **pass)
{
	const char *host = strstr(url, "://");
	const char *end, *at, *colon;

	if (user)
		*user = NULL;
	if (pass)
		*pass = NULL;
	if (!host)
		return ga_xstrdup(url);
	host += 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	if (!at)
		return ga_xstrdup(url);
	colon = memchr(host, ':', (size_t)(at - host));
	if (user)
		*user = ga_xstrndup(host, (size_t)((colon ? colon : at) - host));
	if (pass && colon)
		*pass = ga_xstrndup(colon + 1, (size_t)(at - colon - 1));
	return ga_xstrfmt("%.*s%s", (int)(host - url), url, at + 1);
}

void credential_from_url(struct credential *c, const char *url)
{
	char *user, *pass;
	char *bare = credential_split_url(url, &user, &pass);

	credential_release(c);
	c->username = user;
	c->password = pass;
	/* The user name stays in what git is told: it selects a helper. */
	if (user) {
		const char *host = strstr(bare, "://") + 3;

		c->url = ga_xstrfmt("%.*s%s@%s", (int)(host - bare), bare,
				    user, host);
		free(bare);
	} else {
		c->url = bare;
	}
}

/* The description git credential reads on stdin. */
static char *describe(const struct credential *c, int with_password)
{
	struct ga_buf b = GA_BUF_INIT;

	ga_buf_printf(&b, "url=%s\n", c->url);
	if (c->username)
		ga_buf_printf(&b, "username=%s\n", c->username);
	if (with_password && c->password)
		ga_buf_printf(&b, "password=%s\n", c->password);
	ga_buf_putc(&b, '\n');
	return ga_buf_detach(&b, NULL);
}

/*
 * Run `git credential <action>` with the description on stdin; its
 * answer in *out when `out` is not NULL.  Returns its exit status, or
 * -1 with the message set when it could not be run.
 */
static int run_git_credential(const char *action, const char *input,
			      struct ga_buf *out)
{
	const char *argv[] = { "git", "credential", action, NULL };
	struct child c = CHILD_INIT;
	int code = 0, error;

	c.argv = argv;
	c.pipe_in = 1;
	if (out)
		c.pipe_out = 1;
	else
		c.null_out = 1;
	if (child_start(&c) < 0)
		return -1;
	error = ga_write_all(c.in, input, strlen(input));
	child_close(&c.in);
	if (out)
		(void)ga_buf_read_fd(out, c.out);
	if (child_finish(&c, &code, NULL) < 0)
		return -1;
	return error < 0 ? 1 : code;
}

/* The value of "<key>=" in git credential's answer, or NULL. */
static char *answer_value(const struct ga_buf *b, const char *key)
{
	size_t klen = strlen(key);
	const char *p = b->ptr;

	while (p && p < b->ptr + b->len) {
		const char *nl = memchr(p, '\n', (size_t)(b->ptr + b->len - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(b->ptr + b->len - p);

		if (len > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return ga_xstrndup(p + klen + 1, len - klen - 1);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int credential_fill(struct credential *c)
{
	struct ga_buf out = GA_BUF_INIT;
	char *input = describe(c, 1);
	int code = run_git_credential("fill", input, &out);

	free(input);
	if (code < 0) {
		ga_buf_release(&out);
		return GA_ERROR;
	}
	if (code) {
		/* git said why, on our stderr. */
		ga_buf_release(&out);
		return GA_ESILENT;
	}
	free(c->username);
	free(c->password);
	c->username = answer_value(&out, "username");
	c->password = answer_value(&out, "password");
	ga_buf_release(&out);
	return 0;
}

void credential_approve(struct credential *c)
{
	char *input;

	if (c->approved || !c->username || !c->password)
		return;
	c->approved = 1;
	input = describe(c, 1);
	if (run_git_credential("approve", input, NULL) < 0)
		ga_error_clear();
	free(input);
}

void credential_reject(struct credential *c)
{
	char *input;

	if (!c->username && !c->password)
		return;
	input = describe(c, 1);
	if (run_git_credential("reject", input, NULL) < 0)
		ga_error_clear();
	free(input);
	free(c->password);
	c->password = NULL;
	c->approved = 0;
}

void credential_release(struct credential *c)
{
	free(c->url);
	free(c->username);
	free(c->password);
	memset(c, 0, sizeof(*c));
}

/*
 * credential.h: asking git's credential layer for a username and
 * password, as git's http.c does through credential.c: here by running
 * `git credential fill`, `git credential approve` and `git credential
 * reject`, so that credential helpers, credential.* configuration,
 * askpass programs and the terminal prompt behave exactly as for git.
 */
#ifndef GARCHIVE_REMOTE_CREDENTIAL_H
#define GARCHIVE_REMOTE_CREDENTIAL_H

struct credential {
	char *url;		/* "scheme://[user@]host[:port]/path" */
	char *username;		/* NULL until known */
	char *password;		/* NULL until known */
	int approved;		/* approve once, as git */
};

#define CREDENTIAL_INIT { NULL, NULL, NULL, 0 }

/*
 * A copy of `url` without its "user[:password]@" (what git's messages
 * show), and the user name and password in *user and *pass when they
 * are not NULL (NULL when absent).  The caller frees all three.
 */
char *credential_split_url(const char *url, char **user, char **pass);

/*
 * Start from `url`: its user name and password, if it has them, are
 * taken out of the URL that the credential layer is told.
 */
void credential_from_url(struct credential *c, const char *url);

/*
 * `git credential fill`: sets username and password.  git prints its
 * own words when it cannot get them ("could not read Username for
 * '<url>': terminal prompts disabled") and exits 128; then this returns
 * GA_ESILENT.  GA_ERROR with git's words when git cannot be run.
 */
int credential_fill(struct credential *c);

/* Tell the helpers that the credential worked, or did not (and forget
 * the password).  Failures are ignored, as git ignores them. */
void credential_approve(struct credential *c);
void credential_reject(struct credential *c);

void credential_release(struct credential *c);

#endif

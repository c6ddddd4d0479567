/*
 * treeish.c: from <tree-ish> to the tree, commit and time of an archive.
 *
 * git peels the object named by <tree-ish> to a commit when it can: then
 * the archive time is the committer time and the commit id is recorded.
 * A tree (a tree id, HEAD^{tree}, HEAD:dir, a tag of a tree) is stamped
 * with the current time and records no commit; garchive takes
 * SOURCE_DATE_EPOCH instead when it is set, so that such archives can be
 * reproduced (the reproducible-builds convention; git has no such rule).  Run from a subdirectory
 * of the work tree, git 2.39 archives only that subtree.
 */
#include "garchive/treeish.h"
#include "garchive/common.h"
#include "rawtree.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libgit2.h"

/* The ref a name means, as git's dwim_ref() finds it, or NULL. */
static char *dwim_refname(git_repository *repo, const char *name,
			  size_t len)
{
	git_reference *ref = NULL;
	char *shortname = ga_xstrndup(name, len);
	char *full = NULL;

	if (git_reference_dwim(&ref, repo, shortname) == 0)
		full = ga_xstrdup(git_reference_name(ref));
	git_reference_free(ref);
	free(shortname);
	return full;
}

/* Replace the archived tree by its subtree at `dir` ("sub/" or "sub"). */
static int enter_subdir(struct treeish *t, git_repository *repo,
			const char *dir)
{
	struct rawtree_entry entry;
	git_odb *odb = NULL;
	size_t len = strlen(dir);
	char *path;
	int error;

	while (len && dir[len - 1] == '/')
		len--;
	if (!len)
		return 0;
	if (git_repository_odb(&odb, repo) < 0)
		return ga_error_from_git(NULL);
	path = ga_xstrndup(dir, len);
	error = rawtree_lookup(&entry, odb, &t->tree_id, path, t->hexsz / 2);
	free(path);
	git_odb_free(odb);
	if (error == GA_ENOTFOUND || (!error && entry.mode != 0040000))
		return ga_error_set("current working directory is untracked");
	if (error < 0)
		return error;
	git_oid_cpy(&t->tree_id, &entry.id);
	return 0;
}

/*
 * Peel tags to what they point at, then a commit to its tree, without
 * parsing the tree itself: the walk reads trees its own way, and a tree
 * libgit2 cannot parse must still fail with git's messages.  Returns 0
 * with *is_tree set when the end of the chain is a tree.
 */
static int peel(struct treeish *out, git_repository *repo, git_object *obj,
		int *is_tree)
{
	git_oid id;
	git_object_t type = git_object_type(obj);
	git_object *cur = NULL;
	int error = 0;

	git_oid_cpy(&id, git_object_id(obj));
	*is_tree = 0;
	while (type == GIT_OBJECT_TAG) {
		git_tag *tag = NULL;

		if (git_tag_lookup(&tag, repo, &id) < 0)
			return ga_error_from_git(NULL);
		git_oid_cpy(&id, git_tag_target_id(tag));
		type = git_tag_target_type(tag);
		git_tag_free(tag);
	}
	if (type == GIT_OBJECT_COMMIT) {
		if (git_object_lookup(&cur, repo, &id, GIT_OBJECT_COMMIT) < 0)
			return ga_error_from_git(NULL);
		out->commit = (git_commit *)cur;
		git_oid_cpy(&out->commit_id, &id);
		git_oid_cpy(&out->tree_id, git_commit_tree_id(out->commit));
		*is_tree = 1;
	} else if (type == GIT_OBJECT_TREE) {
		git_oid_cpy(&out->tree_id, &id);
		*is_tree = 1;
	}
	return error;
}

/*
 * libgit2 could not resolve `name`.  git names a full hex id or a ref
 * without reading the object, and only then finds no tree in it (the
 * object is missing, unreadable or corrupt): it says "not a tree
 * object: <id>" where it got that far, "not a valid object name"
 * otherwise.
 */
static int unreadable_object(git_repository *repo, const char *name,
			     const char *refname)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid id;
	int found = 0;

	if (strlen(name) == GIT_OID_HEXSZ &&
	    strspn(name, "0123456789abcdefABCDEF") == GIT_OID_HEXSZ)
		found = git_oid_fromstr(&id, name) == 0;
	else if (refname && *name && !strchr(name, ':'))
		found = git_reference_name_to_id(&id, repo, refname) == 0;
	git_error_clear();
	if (!found)
		return ga_error_set("not a valid object name: %s", name);
	git_oid_tostr(hex, sizeof(hex), &id);
	return ga_error_set("not a tree object: %s", hex);
}

/*
 * When the ref that `name` starts with (before any ^, ~, : or @{) points
 * at an object that cannot be read, fail as git does without asking
 * libgit2's revparse: libgit2 1.5 leaks the reference it found on that
 * path.  Returns 0 when revparse may go on.
 */
static int check_base_object(git_repository *repo, const char *name)
{
	size_t len = strcspn(name, "^~:");
	const char *at = strstr(name, "@{");
	git_object *obj = NULL;
	char *refname;
	git_oid id;
	int error = 0;

	if (at && (size_t)(at - name) < len)
		len = (size_t)(at - name);
	if (!len || !(refname = dwim_refname(repo, name, len)))
		return 0;
	if (git_reference_name_to_id(&id, repo, refname) == 0 &&
	    git_object_lookup(&obj, repo, &id, GIT_OBJECT_ANY) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &id);
		error = name[len]
			? ga_error_set("not a valid object name: %s", name)
			: ga_error_set("not a tree object: %s", hex);
	}
	git_object_free(obj);
	git_error_clear();
	free(refname);
	return error;
}

/*
 * The reproducible-builds specification: a decimal number of seconds
 * since the epoch, and a malformed value is an error, not "now".
 */
static int parse_source_date_epoch(int64_t *out, const char *s)
{
	int64_t v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - 9) / 10)
			break;
		v = v * 10 + (*p - '0');
	}
	if (p == s || *p)
		return ga_error_set("invalid SOURCE_DATE_EPOCH value: '%s'", s);
	*out = v;
	return 0;
}

int treeish_resolve(struct treeish *out, git_repository *repo,
		    const struct treeish_options *opts)
{
	git_object *obj = NULL;
	const char *name = opts->name;
	char hex[GIT_OID_HEXSZ + 1];
	int is_tree, error;

	memset(out, 0, sizeof(*out));
	out->hexsz = GIT_OID_HEXSZ;

	if (opts->remote && !opts->allow_unreachable) {
		/* A remote client may only name refs (and paths in them). */
		const char *colon = strchr(name, ':');
		size_t len = colon ? (size_t)(colon - name) : strlen(name);

		out->refname = dwim_refname(repo, name, len);
		if (!out->refname)
			return ga_error_set("no such ref: %.*s", (int)len, name);
	} else {
		out->refname = dwim_refname(repo, name, strlen(name));
	}

	if ((error = check_base_object(repo, name)) < 0 ||
	    git_revparse_single(&obj, repo, name) < 0) {
		if (!error)
			error = unreadable_object(repo, name, out->refname);
		goto done;
	}
	if ((error = peel(out, repo, obj, &is_tree)) < 0)
		goto done;
	if (!is_tree) {
		git_oid_tostr(hex, sizeof(hex), git_object_id(obj));
		error = ga_error_set("not a tree object: %s", hex);
		goto done;
	}
	/* A commit gives its committer time; a tree, the current time. */
	out->mtime = out->commit ? git_commit_time(out->commit)
				 : (int64_t)time(NULL);
	if (!out->commit && !opts->mtime && opts->source_date_epoch &&
	    *opts->source_date_epoch &&
	    (error = parse_source_date_epoch(&out->mtime,
					     opts->source_date_epoch)) < 0)
		goto done;

	if (opts->cwd_prefix && *opts->cwd_prefix &&
	    (error = enter_subdir(out, repo, opts->cwd_prefix)) < 0)
		goto done;

	if (opts->mtime &&
	    (error = treeish_parse_date(&out->mtime, opts->mtime,
					(int64_t)time(NULL))) < 0)
		goto done;
	error = 0;
done:
	git_object_free(obj);
	if (error < 0)
		treeish_release(out);
	return error;
}

void treeish_release(struct treeish *t)
{
	if (!t)
		return;
	git_commit_free(t->commit);
	free(t->refname);
	memset(t, 0, sizeof(*t));
}

/* Days from 1970-01-01 to the given civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int parse_digits(const char **p, int n, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/* "+hhmm", "-hh:mm", "Z" or nothing (UTC), into seconds east of UTC. */
static int parse_zone(const char **p, int *offset)
{
	const char *s = *p;
	int sign, hh, mm;

	while (*s == ' ')
		s++;
	if (!*s) {
		*offset = 0;
		*p = s;
		return 0;
	}
	if (*s == 'Z') {
		*offset = 0;
		*p = s + 1;
		return 0;
	}
	if (*s != '+' && *s != '-')
		return -1;
	sign = *s++ == '-' ? -1 : 1;
	if (parse_digits(&s, 2, &hh) < 0)
		return -1;
	if (*s == ':')
		s++;
	if (parse_digits(&s, 2, &mm) < 0)
		return -1;
	*offset = sign * (hh * 3600 + mm * 60);
	*p = s;
	return 0;
}

/*
 * "YYYY-MM-DD[ T]HH:MM[:SS][ zone]" or "YYYY-MM-DD" (midnight UTC).
 */
static int parse_iso(int64_t *out, const char *s)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, zone = 0;

	if (parse_digits(&s, 4, &y) < 0 || *s++ != '-' ||
	    parse_digits(&s, 2, &mo) < 0 || *s++ != '-' ||
	    parse_digits(&s, 2, &d) < 0)
		return -1;
	if (*s == ' ' || *s == 'T') {
		s++;
		if (parse_digits(&s, 2, &h) < 0 || *s++ != ':' ||
		    parse_digits(&s, 2, &mi) < 0)
			return -1;
		if (*s == ':') {
			s++;
			if (parse_digits(&s, 2, &sec) < 0)
				return -1;
		}
	}
	if (parse_zone(&s, &zone) < 0 || *s)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60)
		return -1;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	       zone;
	return 0;
}

/* "N unit(s) ago", "now", "yesterday". */
static int parse_relative(int64_t *out, const char *s, int64_t now)
{
	static const struct { const char *name; int64_t secs; } units[] = {
		{ "second", 1 }, { "minute", 60 }, { "hour", 3600 },
		{ "day", 86400 }, { "week", 7 * 86400 },
	};
	char *end;
	long n;
	size_t i, len;

	if (!strcmp(s, "now")) {
		*out = now;
		return 0;
	}
	if (!strcmp(s, "yesterday")) {
		*out = now - 86400;
		return 0;
	}
	n = strtol(s, &end, 10);
	if (end == s || n < 0 || *end != ' ')
		return -1;
	s = end + 1;
	for (i = 0; i < GA_ARRAY_SIZE(units); i++) {
		len = strlen(units[i].name);
		if (strncmp(s, units[i].name, len))
			continue;
		s += len;
		if (*s == 's')
			s++;
		if (strcmp(s, " ago"))
			return -1;
		*out = now - n * units[i].secs;
		return 0;
	}
	return -1;
}

/*
 * git 2.40's --mtime goes through approxidate, which never fails and
 * turns what it cannot read into "now".  garchive reads the forms a
 * release script uses (an epoch "@N", ISO 8601 dates and times, "now",
 * "N units ago") and refuses anything else rather than silently
 * stamping the archive with the current time.
 */
int treeish_parse_date(int64_t *out, const char *s, int64_t now)
{
	char *end;

	if (s[0] == '@' && isdigit((unsigned char)s[1])) {
		long long v = strtoll(s + 1, &end, 10);

		if (!*end) {
			*out = v;
			return 0;
		}
	} else if (parse_iso(out, s) == 0 || parse_relative(out, s, now) == 0) {
		return 0;
	}
	return ga_error_set("invalid --mtime value: '%s'", s);
}

/*
 * refs-dwim.c: what git's object-name.c asks of the ref store: the
 * value of a ref some updates or some time ago (read_ref_at(), for
 * "<ref>@{<n>}" and "<ref>@{<date>}"), and a short name tried as git's
 * ref_rev_parse_rules list (expand_ref(), repo_dwim_log()).
 */
#include "refs/refs-internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "date.h"
#include "garchive/common.h"

struct ref_at {
	const char *refname;
	uint64_t at_time;
	int cnt;
	int reccnt;
	struct ga_oid *oid;
	int found_it;
	struct ga_oid ooid, noid;
	int tz;
	uint64_t date;
	struct refs_ref_at *info;
	int error;		/* a date git's show_date() dies of */
};

static void set_cutoffs(struct ref_at *cb, uint64_t timestamp, int tz,
			const char *message)
{
	if (!cb->info)
		return;
	free(cb->info->message);
	cb->info->message = ga_xstrdup(message);
	cb->info->cutoff_time = timestamp;
	cb->info->cutoff_tz = tz;
	cb->info->cutoff_cnt = cb->reccnt;
}

/* git's warnings on a reflog whose entries do not chain. */
static int warn_at(struct ref_at *cb, const char *fmt)
{
	struct ga_buf date = GA_BUF_INIT;
	int error = date_show(&date, cb->date, cb->tz, DATE_RFC2822);

	if (!error)
		ga_warning(fmt, cb->refname, date.ptr);
	ga_buf_release(&date);
	return error;
}

/* git's read_ref_at_ent(), newest entry first. */
static int ref_at_entry(const struct refs_reflog_entry *e, void *payload)
{
	struct ref_at *cb = payload;

	cb->tz = e->tz;
	cb->date = e->timestamp;
	if (e->timestamp <= cb->at_time || cb->cnt == 0) {
		set_cutoffs(cb, e->timestamp, e->tz, e->message);
		/* ooid, noid: still those of the entry before (newer). */
		if (!ga_oid_is_null(&cb->ooid)) {
			*cb->oid = e->new_oid;
			if (!ga_oid_equal(&cb->ooid, &e->new_oid))
				cb->error = warn_at(cb, "log for ref %s has "
						    "gap after %s");
		} else if (cb->date == cb->at_time) {
			*cb->oid = e->new_oid;
		} else if (!ga_oid_equal(&e->new_oid, cb->oid)) {
			cb->error = warn_at(cb, "log for ref %s unexpectedly "
					    "ended on %s");
		}
		cb->reccnt++;
		cb->ooid = e->old_oid;
		cb->noid = e->new_oid;
		cb->found_it = 1;
		return 1;
	}
	cb->reccnt++;
	cb->ooid = e->old_oid;
	cb->noid = e->new_oid;
	if (cb->cnt > 0)
		cb->cnt--;
	return 0;
}

/* git's read_ref_at_ent_oldest(): the first entry only. */
static int ref_at_oldest(const struct refs_reflog_entry *e, void *payload)
{
	struct ref_at *cb = payload;

	set_cutoffs(cb, e->timestamp, e->tz, e->message);
	*cb->oid = e->old_oid;
	if (cb->at_time && ga_oid_is_null(cb->oid))
		*cb->oid = e->new_oid;
	return 1;
}

int refs_read_ref_at(struct ga_oid *out, struct refs_ref_at *info,
		     struct refs_store *refs, const char *refname,
		     uint64_t at_time, int cnt)
{
	struct ref_at cb;
	int ret;

	memset(&cb, 0, sizeof(cb));
	cb.refname = refname;
	cb.at_time = at_time;
	cb.cnt = cnt;
	cb.oid = out;
	cb.info = info;
	ga_oid_clear(&cb.ooid, refs->algo);
	ga_oid_clear(&cb.noid, refs->algo);
	ret = refs_for_each_reflog(refs, refname, 1, ref_at_entry, &cb);
	if (ret < 0)
		return ret;
	if (cb.error)
		return cb.error;
	if (!cb.reccnt) {
		/*
		 * "@{0}" of an empty reflog: the caller's current value
		 * stands, as git's callers prepare it.
		 */
		if (cnt == 0) {
			set_cutoffs(&cb, 0, 0, "empty reflog");
			return 1;
		}
		return ga_error_set("log for %s is empty", refname);
	}
	if (cb.found_it)
		return 0;
	ret = refs_for_each_reflog(refs, refname, 0, ref_at_oldest, &cb);
	return ret < 0 ? ret : 1;
}

void refs_ref_at_release(struct refs_ref_at *info)
{
	free(info->message);
	memset(info, 0, sizeof(*info));
}

/* git's ref_rev_parse_rules. */
static const char *const rev_parse_rules[] = {
	"%.*s",
	"refs/%.*s",
	"refs/tags/%.*s",
	"refs/heads/%.*s",
	"refs/remotes/%.*s",
	"refs/remotes/%.*s/HEAD"
};

#define NR_RULES (sizeof(rev_parse_rules) / sizeof(*rev_parse_rules))

static char *rule_name(size_t rule, const char *str, size_t len)
{
	return ga_xstrfmt(rev_parse_rules[rule],
			  len > INT_MAX ? INT_MAX : (int)len, str);
}

/*
 * Try `str` (`len` bytes) in each rule's form with `try` until one is
 * found (all of them with `warn_ambiguous`).  try() returns 1 for a
 * name found, 0, or GA_ERROR.  Returns the count found, or GA_ERROR.
 */
static int each_rule(const char *str, size_t len, int warn_ambiguous,
		     int (*try)(const char *full, int found, void *ctx),
		     void *ctx)
{
	size_t rule;
	int found = 0;

	for (rule = 0; rule < NR_RULES; rule++) {
		char *full = rule_name(rule, str, len);
		int ret = try(full, found, ctx);

		free(full);
		if (ret < 0)
			return ret;
		found += ret;
		if (found && !warn_ambiguous)
			break;
	}
	return found;
}

struct dwim {
	struct refs_store *refs;
	char **out;
	struct ga_oid *oid;
};

/* git's expand_ref() for one rule. */
static int try_ref(const char *full, int found, void *ctx)
{
	struct dwim *d = ctx;
	struct ga_oid this_oid;
	char *name = NULL;
	unsigned flags;
	int ret;

	ret = refs_resolve(&name, found ? &this_oid : d->oid, &flags,
			   d->refs, full, REFS_RESOLVE_READING);
	if (ret == GA_ERROR)
		return ret;
	if (!ret) {
		if (!found)
			*d->out = name;
		else
			free(name);
		return 1;
	}
	if ((flags & REFS_ISSYMREF) && strcmp(full, "HEAD"))
		ga_warning("ignoring dangling symref %s", full);
	else if ((flags & REFS_ISBROKEN) && strchr(full, '/'))
		ga_warning("ignoring broken ref %s", full);
	return 0;
}

int refs_dwim_ref(char **out_ref, struct ga_oid *oid,
		  struct refs_store *refs, const char *str, size_t len,
		  int warn_ambiguous)
{
	struct dwim d = { refs, out_ref, oid };

	*out_ref = NULL;
	return each_rule(str, len, warn_ambiguous, try_ref, &d);
}

/* git's repo_dwim_log() for one rule. */
static int try_log(const char *path, int found, void *ctx)
{
	struct dwim *d = ctx;
	const char *it = NULL;
	struct ga_oid hash;
	char *ref = NULL;
	int ret;

	ret = refs_resolve(&ref, &hash, NULL, d->refs, path,
			   REFS_RESOLVE_READING);
	if (!ret) {
		if ((ret = refs_reflog_exists(d->refs, path)) > 0)
			it = path;
		else if (!ret && strcmp(ref, path) &&
			 (ret = refs_reflog_exists(d->refs, ref)) > 0)
			it = ref;
	}
	if (it && !found) {
		*d->out = ga_xstrdup(it);
		if (d->oid)
			*d->oid = hash;
	}
	free(ref);
	return ret == GA_ERROR ? ret : !!it;
}

int refs_dwim_log(char **out_log, struct ga_oid *oid,
		  struct refs_store *refs, const char *str, size_t len,
		  int warn_ambiguous)
{
	struct dwim d = { refs, out_log, oid };

	*out_log = NULL;
	return each_rule(str, len, warn_ambiguous, try_log, &d);
}

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
 *
 * The name is resolved the way git's get_oid() resolves it, and the
 * objects on the way are read raw, never parsed by libgit2: its tree
 * parser refuses names longer than 65535 bytes, which git archives.
 * git checks the content of what it parses against its id (its
 * parse_object()): the objects the name is peeled through, the named
 * object, every tag on the way to the commit, the commit and the
 * archived tree.  So does garchive, with git's "hash mismatch" lines:
 * a damaged commit, tag or root tree never makes an archive.
 * ":/<text>" and "<rev>^{/<text>}" are searched by treeish-search.c,
 * "@{upstream}" and "@{push}" found by upstream.c, "@{<n>}" and
 * "@{-<n>}" read from garchive's ref store, in either hash and ref
 * format.  "@{<date>}" is read from that store too wherever it serves
 * libgit2 (refdb.h: reftable, SHA-256, GARCHIVE_TEST_READER); only in
 * a SHA-1 repository with files refs read by libgit2 is it still left
 * to libgit2's revparse.
 */
#include "garchive/treeish.h"
#include "garchive/common.h"
#include "commit.h"
#include "date.h"
#include "index-file.h"
#include "odb.h"
#include "rawtree.h"
#include "refdb.h"
#include "repo-open.h"
#include "refs/refs.h"
#include "treeish-search.h"
#include "upstream.h"
#include "garchive/config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "libgit2.h"
#include "sane-ctype.h"

/* What git's object layer knows of an object met on the way. */
struct known {
	struct ga_oid id;
	git_object_t type;
	int parsed;		/* its links below are read */
	int checked;		/* and its content matched its id */
	struct ga_oid next;		/* a tag's target, a commit's tree */
	git_object_t next_type;
	struct ga_oid *parents;	/* a commit's */
	size_t nr_parents, alloc_parents;
};

struct resolver {
	git_repository *repo;
	git_odb *odb;
	struct refs_store *refs;	/* opened on first use */
	int served;			/* refs_served(); -1: not asked yet */
	const struct treeish_options *opts;
	struct ga_config *own_config;	/* loaded when opts has none */
	enum ga_hash_algo algo;		/* the repository's object ids */
	struct known *known;
	size_t nr, alloc;
};

/* The resolver's ref store, opened on first use: 0 or GA_ERROR. */
static int use_refs(struct resolver *rs)
{
	if (rs->refs)
		return 0;
	return refdb_open_store(&rs->refs, rs->repo);
}

/*
 * The ref a name means, as git's dwim_ref() finds it (core.warnAmbiguousRefs
 * on, its default: every rule is tried, with git's warnings), with its
 * id in *oid and in *found the count of names that resolve; NULL when
 * none does.
 */
static char *dwim_ref(struct ga_oid *oid, int *found, struct resolver *rs,
		      const char *name, size_t len)
{
	struct ga_oid id;
	char *full = NULL;

	*found = 0;
	if (use_refs(rs) < 0 ||
	    (*found = refs_dwim_ref(&full, &id, rs->refs, name, len, 1)) <= 0) {
		ga_error_clear();
		free(full);
		*found = 0;
		return NULL;
	}
	if (oid)
		ga_oid_cpy(oid, &id);
	return full;
}

static struct known *find_known(struct resolver *rs, const struct ga_oid *id)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		if (ga_oid_equal(&rs->known[i].id, id))
			return &rs->known[i];
	return NULL;
}

static void say_type_clash(const struct ga_oid *id, git_object_t known,
			   git_object_t wanted)
{
	char hex[GA_OID_MAX_HEXSZ + 1];

	ga_oid_fmt(hex, id);
	ga_report(GA_REPORT_ERROR, "object %s is a %s, not a %s", hex,
		  git_object_type2string(known),
		  git_object_type2string(wanted));
}

/*
 * git's lookup_<type>(): hear of object `id` as a `type`.  git keeps
 * one type per object: one it has heard of as another type is refused
 * with its error.  Returns 0 or -1.  The table may move.
 */
static int learn(struct resolver *rs, const struct ga_oid *id, git_object_t type)
{
	struct known *k = find_known(rs, id);

	if (k) {
		if (k->type == type)
			return 0;
		say_type_clash(id, k->type, type);
		return -1;
	}
	GA_ALLOC_GROW(rs->known, rs->nr + 1, rs->alloc);
	k = &rs->known[rs->nr++];
	memset(k, 0, sizeof(*k));
	ga_oid_cpy(&k->id, id);
	k->type = type;
	return 0;
}

static void resolver_release(struct resolver *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		free(rs->known[i].parents);
	free(rs->known);
	git_odb_free(rs->odb);
	refs_free(rs->refs);
	config_free(rs->own_config);
}

/*
 * A full hex object id at `p` (either case), as git's get_oid_hex():
 * the caller has checked that there are that many characters.
 */
static int hex_oid(struct ga_oid *out, const struct resolver *rs,
		   const char *p)
{
	return ga_oid_from_hex(out, rs->algo, p);
}

/* Hex digits of the repository's object ids. */
static size_t hexsz(const struct resolver *rs)
{
	return ga_hash_hexsz(rs->algo);
}

static int parse_error(const char *fmt, const struct ga_oid *a, const struct ga_oid *b)
{
	char ha[GA_OID_MAX_HEXSZ + 1], hb[GA_OID_MAX_HEXSZ + 1];

	ga_oid_fmt(ha, a);
	if (b) {
		ga_oid_fmt(hb, b);
		ga_report(GA_REPORT_ERROR, fmt, ha, hb);
	} else {
		ga_report(GA_REPORT_ERROR, fmt, ha);
	}
	return -1;
}

/*
 * git's parse_commit_buffer(), as far as the links go: the tree, then
 * the parents, each heard of (learn()) as it is found, with git's errors
 * for a malformed commit.  Returns 0 or -1.
 */
static int parse_commit_links(struct resolver *rs, const struct ga_oid *id,
			      const char *data, size_t size)
{
	const char *p = data, *end = data + size;
	struct ga_oid tree, parent, *parents = NULL;
	size_t nr = 0, alloc = 0, i;
	struct commit_grafts grafts = { 0 };
	struct known *k;
	size_t hexlen = hexsz(rs);

	if (size <= 5 + hexlen + 1 || memcmp(p, "tree ", 5) ||
	    p[5 + hexlen] != '\n')
		return parse_error("bogus commit object %s", id, NULL);
	if (hex_oid(&tree, rs, p + 5) < 0)
		return parse_error("bad tree pointer in commit %s", id, NULL);
	if (learn(rs, &tree, GIT_OBJECT_TREE) < 0)
		return parse_error("bad tree pointer %s in commit %s", &tree,
				   id);
	p += 5 + hexlen + 1;
	commit_grafts_load(&grafts, rs->repo, id);
	while (end - p > (ptrdiff_t)(7 + hexlen) && !memcmp(p, "parent ", 7)) {
		if (end - p <= (ptrdiff_t)(7 + hexlen + 1) ||
		    hex_oid(&parent, rs, p + 7) < 0 ||
		    p[7 + hexlen] != '\n') {
			free(parents);
			commit_grafts_release(&grafts);
			return parse_error("bad parents in commit %s", id,
					   NULL);
		}
		p += 7 + hexlen + 1;
		/* A graft or the shallow file replaces the parents. */
		if (grafts.state != GRAFT_NONE)
			continue;
		if (learn(rs, &parent, GIT_OBJECT_COMMIT) < 0) {
			free(parents);
			commit_grafts_release(&grafts);
			return parse_error("bad parent %s in commit %s",
					   &parent, id);
		}
		GA_ALLOC_GROW(parents, nr + 1, alloc);
		ga_oid_cpy(&parents[nr++], &parent);
	}
	/* git skips a graft parent it cannot take as a commit. */
	for (i = 0; i < grafts.nr; i++) {
		if (learn(rs, &grafts.parents[i], GIT_OBJECT_COMMIT) < 0)
			continue;
		GA_ALLOC_GROW(parents, nr + 1, alloc);
		ga_oid_cpy(&parents[nr++], &grafts.parents[i]);
	}
	commit_grafts_release(&grafts);
	k = find_known(rs, id);
	free(k->parents);
	ga_oid_cpy(&k->next, &tree);
	k->next_type = GIT_OBJECT_TREE;
	k->parents = parents;
	k->nr_parents = nr;
	k->alloc_parents = alloc;
	return 0;
}

/*
 * git's parse_tag_buffer(), as far as the link goes: "object", "type",
 * then a "tag" line; the target is heard of before the "tag" line is
 * looked for, as in git.  Returns 0 or -1 (git says why only for an
 * unknown type or a target it knows as another type).
 */
static int parse_tag_links(struct resolver *rs, const struct ga_oid *id,
			   const char *data, size_t size)
{
	static const git_object_t types[] = {
		GIT_OBJECT_BLOB, GIT_OBJECT_TREE, GIT_OBJECT_COMMIT,
		GIT_OBJECT_TAG,
	};
	const char *p = data, *end = data + size, *nl;
	git_object_t type = GIT_OBJECT_INVALID;
	char name[20];
	struct ga_oid target;
	struct known *k;
	size_t i, hexlen = hexsz(rs);

	if (size < hexlen + 24 || memcmp(p, "object ", 7) ||
	    hex_oid(&target, rs, p + 7) < 0 || p[7 + hexlen] != '\n')
		return -1;
	p += 7 + hexlen + 1;
	if (end - p < 5 || memcmp(p, "type ", 5))
		return -1;
	p += 5;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || nl - p >= (ptrdiff_t)sizeof(name))
		return -1;
	memcpy(name, p, (size_t)(nl - p));
	name[nl - p] = '\0';
	p = nl + 1;
	for (i = 0; i < GA_ARRAY_SIZE(types); i++)
		if (!strcmp(name, git_object_type2string(types[i])))
			type = types[i];
	if (type == GIT_OBJECT_INVALID) {
		char hex[GA_OID_MAX_HEXSZ + 1];

		ga_oid_fmt(hex, id);
		ga_report(GA_REPORT_ERROR, "unknown tag type '%s' in %s",
			  name, hex);
		return -1;
	}
	if (learn(rs, &target, type) < 0)
		return parse_error("bad tag pointer to %s in %s", &target, id);
	k = find_known(rs, id);
	ga_oid_cpy(&k->next, &target);
	k->next_type = type;
	return end - p > 4 && !memcmp(p, "tag ", 4) ? 0 : -1;
}

/* How an object is read (see read_known()). */
enum read_how {
	AS_PARSE_OBJECT,	/* git's parse_object(): checked if unread */
	AS_PARSE_COMMIT,	/* git's parse_commit(): never checked */
	CHECKED			/* checked even if git read it unchecked */
};

/* What git's error() says for a read that found nothing usable. */
static int not_usable(void)
{
	git_error_clear();
	return GA_ENOTFOUND;
}

static int say_not_usable(const char *fmt, const struct ga_oid *id)
{
	parse_error(fmt, id, NULL);
	return not_usable();
}

/*
 * Read object `id` as git's object layer does (parse_object(), or
 * parse_commit() for AS_PARSE_COMMIT) and hear of what it links to.
 * Its content is checked against its id ("error: hash mismatch <id>")
 * unless `how` says otherwise.  An object git has not heard of yet is
 * first asked for its type, so damage in the header of a loose one is
 * told twice, as git tells it.  Returns 0 with *out (valid until the
 * next read), GA_ENOTFOUND when it is missing, unusable, malformed or
 * does not match its id (with git's error lines reported), or
 * GA_ECORRUPT when it is damaged (git dies there).
 */
static int read_known(struct known **out, struct resolver *rs,
		      const struct ga_oid *id, enum read_how how)
{
	struct known *k = find_known(rs, id);
	int heard_of = k != NULL;
	struct odb_object *obj = NULL;
	git_object_t type;
	struct ga_oid actual;
	int error;

	*out = NULL;
	if (k && k->parsed && (k->checked || how != CHECKED)) {
		*out = k;
		return 0;
	}
	if ((error = odb_read(&obj, rs->odb, id)) < 0) {
		if (error == GA_ECORRUPT)
			return heard_of || how == AS_PARSE_COMMIT
				? odb_corrupt_error(error)
				: odb_blob_corrupt_error(error);
		if (how == AS_PARSE_COMMIT)
			return say_not_usable("Could not read %s", id);
		return not_usable();
	}
	type = odb_object_type(obj);
	if (how == AS_PARSE_COMMIT && type != GIT_OBJECT_COMMIT) {
		odb_object_free(obj);
		return say_not_usable("Object %s not a commit", id);
	}
	if (how != AS_PARSE_COMMIT) {
		odb_hash_object(&actual, id->algo, type,
				odb_object_data(obj),
				odb_object_size(obj));
		if (!ga_oid_equal(&actual, id)) {
			odb_object_free(obj);
			return say_not_usable("hash mismatch %s", id);
		}
	}
	/*
	 * git takes an object it heard of as a blob for a blob (its type
	 * is not asked again); any other clash is an error.
	 */
	if (k && k->type == GIT_OBJECT_BLOB)
		type = GIT_OBJECT_BLOB;
	if (learn(rs, id, type) < 0) {
		odb_object_free(obj);
		return not_usable();
	}
	if (type == GIT_OBJECT_COMMIT)
		error = parse_commit_links(rs, id, odb_object_data(obj),
					   odb_object_size(obj));
	else if (type == GIT_OBJECT_TAG)
		error = parse_tag_links(rs, id, odb_object_data(obj),
					odb_object_size(obj));
	odb_object_free(obj);
	if (error < 0)
		return not_usable();
	k = find_known(rs, id);
	k->parsed = 1;
	k->checked = how != AS_PARSE_COMMIT;
	*out = k;
	return 0;
}

/* A step along a commit or tag, read as git's parse_object() would. */
static int follow(struct known **out, struct resolver *rs,
		  const struct known *k)
{
	struct ga_oid next = k->next;

	return read_known(out, rs, &next, AS_PARSE_OBJECT);
}

/*
 * git's lookup_commit_reference(): the commit `id` is or whose tags lead
 * to.  With `say` git's complaint about another type is reported.
 * Returns 0, GA_ENOTFOUND or GA_ECORRUPT.
 */
static int commit_reference(struct known **out, struct resolver *rs,
			    const struct ga_oid *id, int say)
{
	struct known *k;
	int error;

	if ((error = read_known(&k, rs, id, AS_PARSE_OBJECT)) < 0)
		return error;
	while (k->type == GIT_OBJECT_TAG)
		if ((error = follow(&k, rs, k)) < 0)
			return error;
	if (k->type != GIT_OBJECT_COMMIT) {
		if (say) {
			say_type_clash(&k->id, k->type, GIT_OBJECT_COMMIT);
		}
		return GA_ENOTFOUND;
	}
	*out = k;
	return 0;
}

static int get_oid_1(struct ga_oid *out, struct resolver *rs, const char *name,
		     size_t len);

/*
 * The commit `name` (its first `len` bytes) names, tags peeled, as git's
 * lookup_commit_reference(get_oid_1(name)) finds it for "^" and "~":
 * another type is reported with git's complaint (GA_ENOTFOUND).
 */
static int get_commit(struct known **out, struct resolver *rs,
		      const char *name, size_t len)
{
	struct ga_oid id;
	int error;

	if ((error = get_oid_1(&id, rs, name, len)) < 0)
		return error;
	return commit_reference(out, rs, &id, 1);
}

/* git's get_parent(): "<name>^<idx>", where ^0 is the commit itself. */
static int get_parent(struct ga_oid *out, struct resolver *rs, const char *name,
		      size_t len, unsigned long idx)
{
	struct known *k;
	int error;

	if ((error = get_commit(&k, rs, name, len)) < 0)
		return error;
	if (!idx) {
		ga_oid_cpy(out, &k->id);
		return 0;
	}
	if (idx > k->nr_parents)
		return GA_ENOTFOUND;
	ga_oid_cpy(out, &k->parents[idx - 1]);
	return 0;
}

/*
 * git's get_nth_ancestor(): "<name>~<n>".  The commits on the way are
 * read as git's parse_commit() reads them, unchecked.
 */
static int get_nth_ancestor(struct ga_oid *out, struct resolver *rs,
			    const char *name, size_t len, unsigned long n)
{
	struct known *k;
	struct ga_oid id;
	int error;

	if ((error = get_commit(&k, rs, name, len)) < 0)
		return error;
	while (n--) {
		ga_oid_cpy(&id, &k->id);
		if ((error = read_known(&k, rs, &id, AS_PARSE_COMMIT)) < 0)
			return error;
		if (k->type != GIT_OBJECT_COMMIT || !k->nr_parents)
			return GA_ENOTFOUND;
		/* The parent is only heard of, not read. */
		ga_oid_cpy(&id, &k->parents[0]);
		k = find_known(rs, &id);
	}
	ga_oid_cpy(out, &k->id);
	return 0;
}

/*
 * libgit2 reads only SHA-1 objects: the forms still left
 * to it are an error in a repository of another hash, not a wrong answer.
 */
static int sha1_only(const struct resolver *rs, const char *name, size_t len)
{
	if (rs->algo == GA_HASH_SHA1)
		return 0;
	return ga_error_set("garchive cannot resolve '%.*s' in a %s "
			    "repository yet", (int)len, name,
			    ga_hash_name(rs->algo));
}

/* libgit2's revparse for what only it reads: "@{<date>}" (files, SHA-1). */
static int revparse(struct ga_oid *out, struct resolver *rs, const char *name,
		    size_t len)
{
	char *spec;
	git_object *obj = NULL;
	int error;

	if ((error = sha1_only(rs, name, len)) < 0)
		return error;
	spec = ga_xstrndup(name, len);
	error = git_revparse_single(&obj, rs->repo, spec);

	free(spec);
	if (error == GA_ECORRUPT)
		return odb_corrupt_error(error);
	if (error < 0)
		return not_usable();
	odb_oid_from_git(out, git_object_id(obj));
	git_object_free(obj);
	return 0;
}

/*
 * Where "<ref>@{<n>}" has its "@{": the offset of the '@' and n, as
 * git's get_oid_basic() reads a reflog entry by number.  Returns 0 for
 * another form (@{-N}, @{upstream}, @{push}, a date), which libgit2's
 * revparse reads, and 1 for a number.
 */
static int reflog_nth_form(size_t *at, int *nth, const char *name, size_t len)
{
	size_t i, j;

	if (len < 4 || name[len - 1] != '}')
		return 0;
	for (i = len - 3; i-- > 0;) {
		if (name[i] != '@' || name[i + 1] != '{')
			continue;
		*nth = 0;
		for (j = i + 2; j < len - 1; j++) {
			if (name[j] < '0' || name[j] > '9' ||
			    *nth >= 100000000 / 10)
				return 0;
			*nth = *nth * 10 + (name[j] - '0');
		}
		*at = i;
		/* git takes 100000000 and more as a time. */
		return j > i + 2 && *nth < 100000000;
	}
	return 0;
}

/*
 * The ref whose reflog "<name[0..at)>@{...}" reads ("@{...}" alone:
 * HEAD's), as git's dwim_log() finds it: its full name in *real (free
 * it) and its current value in *oid, where reading the log starts.
 * Returns 0, GA_ENOTFOUND, or GA_ERROR.
 */
static int reflog_ref(char **real, struct ga_oid *oid, struct resolver *rs,
		      const char *name, size_t at)
{
	int found;

	*real = NULL;
	if (use_refs(rs) < 0)
		return GA_ERROR;
	found = at ? refs_dwim_log(real, oid, rs->refs, name, at, 0)
		   : refs_dwim_ref(real, oid, rs->refs, "HEAD", 4, 0);
	if (found > 0)
		return 0;
	free(*real);
	*real = NULL;
	return found < 0 ? found : GA_ENOTFOUND;
}

/*
 * git's get_oid_basic() for "<ref>@{<n>}" ("@{<n>}": HEAD's): the value
 * `ref` had n updates ago, from its reflog in garchive's ref store, in
 * either ref format.  Returns 0, GA_ENOTFOUND, or GA_ERROR with git's
 * "log for '<ref>' only has <n> entries".
 */
static int reflog_nth(struct ga_oid *out, struct resolver *rs, const char *name,
		      size_t at, int nth)
{
	struct refs_ref_at info = { 0 };
	struct ga_oid oid;
	const char *shown;
	char *real = NULL;
	int error;

	if ((error = reflog_ref(&real, &oid, rs, name, at)) < 0)
		return error;
	error = refs_read_ref_at(&oid, &info, rs->refs, real, 0, nth);
	if (error == 1) {
		if (!at && !ga_skip_prefix(real, "refs/heads/", &shown))
			shown = "HEAD";
		error = at ? ga_error_set("log for '%.*s' only has %d entries",
					  (int)at, name, info.cutoff_cnt)
			   : ga_error_set("log for '%s' only has %d entries",
					  shown, info.cutoff_cnt);
	}
	if (!error)
		ga_oid_cpy(out, &oid);
	refs_ref_at_release(&info);
	free(real);
	return error;
}

/* ------------------------------------------------------------------ */
/* "<ref>@{<date>}" in reftable repositories.                         */

/* The date helpers of --mtime, below. */
static int64_t days_from_civil(int64_t y, int m, int d);
static int parse_digits(const char **p, int n, int *out);
static int parse_zone(const char **p, int *offset);
static int days_in_month(int y, int m);

/*
 * git's match_string(): how many leading characters of the word at `s`
 * match `word`, ignoring case; 0 when the word goes on past a mismatch.
 */
static size_t match_word(const char *s, const char *word)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		if (ga_tolower((unsigned char)s[i]) ==
		    ga_tolower((unsigned char)word[i]))
			continue;
		if (!ga_isalnum((unsigned char)s[i]))
			break;
		return 0;
	}
	return i;
}

/*
 * Whether git's approxidate takes something from `s`: a digit, or a word
 * it knows (a month, a weekday, a special word, a number word, "last",
 * a unit).  Where it takes nothing it fails, and git says the name is
 * not valid; garchive too.
 */
static int approxidate_takes(const char *s)
{
	static const char *const exact[] = {
		"yesterday", "noon", "midnight", "tea", "PM", "AM", "never",
		"now", "today", "one", "two", "three", "four", "five", "six",
		"seven", "eight", "nine", "ten", "last",
	};
	static const char *const prefix3[] = {
		"January", "February", "March", "April", "May", "June",
		"July", "August", "September", "October", "November",
		"December", "Sundays", "Mondays", "Tuesdays", "Wednesdays",
		"Thursdays", "Fridays", "Saturdays",
	};
	static const char *const units[] = {
		"seconds", "minutes", "hours", "days", "weeks", "months",
		"years",
	};
	size_t i;
	int in_word = 0;

	for (; *s; s++) {
		int word_start = !in_word;

		if (ga_isdigit((unsigned char)*s))
			return 1;
		in_word = ga_isalpha((unsigned char)*s);
		if (!in_word || !word_start)
			continue;
		for (i = 0; i < GA_ARRAY_SIZE(exact); i++)
			if (match_word(s, exact[i]) == strlen(exact[i]))
				return 1;
		for (i = 0; i < GA_ARRAY_SIZE(prefix3); i++)
			if (match_word(s, prefix3[i]) >= 3)
				return 1;
		for (i = 0; i < GA_ARRAY_SIZE(units); i++)
			if (match_word(s, units[i]) >= strlen(units[i]) - 1)
				return 1;
	}
	return 0;
}

/* "<n> <unit>[s][ ago]", with spaces or dots between: now - n units. */
static int reflog_relative(uint64_t *out, const char *s, time_t now)
{
	static const struct { const char *name; uint64_t secs; } units[] = {
		{ "seconds", 1 }, { "minutes", 60 }, { "hours", 3600 },
		{ "days", 86400 }, { "weeks", 7 * 86400 },
	};
	unsigned long long n;
	char *end;
	size_t i, len;

	if (!ga_isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || (*end != ' ' && *end != '.'))
		return -1;
	for (s = end; *s == ' ' || *s == '.'; s++)
		;
	for (i = 0; i < GA_ARRAY_SIZE(units); i++) {
		len = match_word(s, units[i].name);
		if (len >= strlen(units[i].name) - 1 &&
		    !ga_isalpha((unsigned char)s[len]))
			break;
	}
	if (i == GA_ARRAY_SIZE(units))
		return -1;
	for (s += len; *s == ' ' || *s == '.'; s++)
		;
	if (*s && strcmp(s, "ago"))
		return -1;
	if (n > (uint64_t)now / units[i].secs)
		return -1;
	*out = (uint64_t)now - n * units[i].secs;
	return 0;
}

/*
 * "YYYY-MM-DD[( |T)HH:MM[:SS]][ zone]": with a zone (+hhmm, -hh:mm, Z)
 * that instant, without one local time, as git's parse_date_basic();
 * a date alone is that day at the current local time of day, as git's
 * approxidate makes it.  Years 1970 to 2099 only, as git's parser.
 */
static int reflog_iso(uint64_t *out, const char *s, time_t now)
{
	int y, mo, d, h, mi, sec = 0, zone = 0, has_zone;
	struct tm tm;
	time_t t;

	if (parse_digits(&s, 4, &y) < 0 || *s++ != '-' ||
	    parse_digits(&s, 2, &mo) < 0 || *s++ != '-' ||
	    parse_digits(&s, 2, &d) < 0)
		return -1;
	if (y < 1970 || y > 2099 || mo < 1 || mo > 12 || d < 1 ||
	    d > days_in_month(y, mo))
		return -1;
	if (!*s) {
		localtime_r(&now, &tm);
		h = tm.tm_hour;
		mi = tm.tm_min;
		sec = tm.tm_sec;
		has_zone = 0;
	} else {
		if (*s != ' ' && *s != 'T')
			return -1;
		s++;
		if (parse_digits(&s, 2, &h) < 0 || *s++ != ':' ||
		    parse_digits(&s, 2, &mi) < 0)
			return -1;
		if (*s == ':' && (s++, parse_digits(&s, 2, &sec) < 0))
			return -1;
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
		has_zone = *s != '\0';
		if (has_zone && (parse_zone(&s, &zone) < 0 || *s))
			return -1;
	}
	if (has_zone) {
		int64_t v = days_from_civil(y, mo, d) * 86400 + h * 3600 +
			    mi * 60 + sec - zone;

		if (v < 0)
			return -1;
		*out = (uint64_t)v;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == (time_t)-1 || t < 0)
		return -1;
	*out = (uint64_t)t;
	return 0;
}

/*
 * The time "@{<date>}" names, for the forms garchive reads: all digits
 * (seconds since the epoch; the caller sends fewer than 100000000 to
 * the reflog by number), "now", "yesterday", "never" (0), "<n> <unit>s
 * ago" and reflog_iso()'s dates.  Returns 0 with *out; 1 for a text
 * git's approxidate refuses too; -1 for one git reads in a way garchive
 * does not follow (git's approxidate reads many more).
 */
static int reflog_date(uint64_t *out, const char *text, time_t now)
{
	const char *p;

	for (p = text; ga_isdigit((unsigned char)*p); p++)
		;
	if (p > text && !*p) {
		errno = 0;
		*out = strtoull(text, NULL, 10);
		return errno ? -1 : 0;
	}
	if (!strcasecmp(text, "now")) {
		*out = (uint64_t)now;
		return 0;
	}
	if (!strcasecmp(text, "yesterday")) {
		*out = (uint64_t)now - 86400;
		return 0;
	}
	if (!strcasecmp(text, "never")) {
		*out = 0;
		return 0;
	}
	if (!reflog_relative(out, text, now) || !reflog_iso(out, text, now))
		return 0;
	return approxidate_takes(text) ? -1 : 1;
}

/* git's upstream_mark() and push_mark(): "@{u}", "@{upstream}", "@{push}". */
static int branch_mark(const char *s, size_t len)
{
	static const char *const marks[] = { "@{u}", "@{upstream}",
					     "@{push}" };
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(marks); i++)
		if (len == strlen(marks[i]) && !strncasecmp(s, marks[i], len))
			return 1;
	return 0;
}

/* Whether garchive's ref store serves libgit2 (refdb.h): no reflogs. */
static int refs_served(struct resolver *rs)
{
	if (rs->served < 0)
		rs->served = refdb_served(rs->repo);
	return rs->served;
}

/*
 * git's get_oid_basic() for "<ref>@{<date>}" ("@{<date>}": HEAD's
 * branch) in a reftable repository, whose reflogs libgit2 cannot read:
 * the value the ref had at that time, from the ref store.  Older than
 * the log: its oldest value, with git's warning.  Returns 1 when `name`
 * has no such form, 0 with *out, GA_ENOTFOUND, or GA_ERROR.
 */
static int reflog_at_date(struct ga_oid *out, struct resolver *rs,
			  const char *name, size_t len)
{
	struct refs_ref_at info = { 0 };
	struct ga_oid oid;
	struct ga_buf when = GA_BUF_INIT;
	const char *shown;
	char *real = NULL, *text;
	size_t at;
	uint64_t at_time = 0;
	int error, parsed;

	if (len < 4 || name[len - 1] != '}')
		return 1;
	for (at = len - 3; at-- > 0;)
		if (name[at] == '@' && name[at + 1] == '{' &&
		    name[at + 2] != '-')
			break;
	if (at == (size_t)-1 || branch_mark(name + at, len - at))
		return 1;
	if ((error = reflog_ref(&real, &oid, rs, name, at)) < 0)
		return error;
	text = ga_xstrndup(name + at + 2, len - at - 3);
	parsed = reflog_date(&at_time, text, time(NULL));
	if (parsed) {
		error = parsed > 0 ? GA_ENOTFOUND :
			ga_error_set("garchive cannot read the date '%s' in "
				     "'%.*s' (it reads YYYY-MM-DD[ HH:MM[:SS]]"
				     "[ zone], seconds since 1970, now, "
				     "yesterday, never, '<n> <unit>s ago')",
				     text, (int)len, name);
		goto done;
	}
	error = refs_read_ref_at(&oid, &info, rs->refs, real, at_time, -1);
	if (error == 1) {
		shown = name;
		if (!at && !ga_skip_prefix(real, "refs/heads/", &shown))
			shown = "HEAD";
		if (!at)
			at = strlen(shown);
		if (!at_time) {
			error = ga_error_set("log for '%.*s' only has %d entries",
					     (int)at, shown, info.cutoff_cnt);
			goto done;
		}
		if ((error = date_show(&when, info.cutoff_time, info.cutoff_tz,
				       DATE_RFC2822)) < 0)
			goto done;
		ga_warning("log for '%.*s' only goes back to %s", (int)at,
			   shown, ga_buf_str(&when, 0));
		error = 0;
	}
	if (!error)
		ga_oid_cpy(out, &oid);
done:
	refs_ref_at_release(&info);
	ga_buf_release(&when);
	free(text);
	free(real);
	return error;
}

static int is_full_hex(const struct resolver *rs, const char *name,
		       size_t len);

/* git's grab_nth_branch_switch(): the n-th "checkout: moving from". */
struct prior_checkout {
	int remaining;
	char *name;
};

static int grab_branch_switch(const struct refs_reflog_entry *e,
			      void *payload)
{
	struct prior_checkout *pc = payload;
	const char *from, *to;

	if (!ga_skip_prefix(e->message, "checkout: moving from ", &from) ||
	    !(to = strstr(from, " to ")))
		return 0;
	if (--pc->remaining)
		return 0;
	pc->name = ga_xstrndup(from, (size_t)(to - from));
	return 1;
}

/*
 * git's "@{-<n>}" (interpret_nth_prior_checkout() and get_oid_basic()):
 * the branch, or the detached commit, HEAD's reflog says was checked
 * out n switches ago, read from the store in either ref format.
 * Returns 0 for another form, 1 with *out set, GA_ENOTFOUND, or
 * GA_ERROR.
 */
static int nth_prior_checkout(struct ga_oid *out, struct resolver *rs,
			      const char *name, size_t len)
{
	struct prior_checkout pc = { 0 };
	char *end, *refname = NULL;
	long n;
	int error, found;

	if (len < 5 || strncmp(name, "@{-", 3) || name[len - 1] != '}' ||
	    name[3] < '0' || name[3] > '9')
		return 0;
	n = strtol(name + 3, &end, 10);
	if (end != name + len - 1 || n <= 0 || n > INT_MAX)
		return 0;
	if (use_refs(rs) < 0)
		return GA_ERROR;
	pc.remaining = (int)n;
	error = refs_for_each_reflog(rs->refs, "HEAD", 1, grab_branch_switch,
				     &pc);
	if (error < 0 || !pc.name) {
		free(pc.name);
		return error < 0 ? error : GA_ENOTFOUND;
	}
	if (is_full_hex(rs, pc.name, strlen(pc.name)))
		error = hex_oid(out, rs, pc.name) < 0 ? GA_ENOTFOUND : 1;
	else if ((refname = dwim_ref(out, &found, rs, pc.name,
				     strlen(pc.name))))
		error = 1;
	else
		error = GA_ENOTFOUND;
	free(refname);
	free(pc.name);
	return error;
}

/*
 * git's peel_onion(): "<name>^{<type>}", "<name>^{}".  Returns 0,
 * GA_ENOTFOUND (also when `name` has no such suffix), or GA_ECORRUPT.
 */
static int peel_onion(struct ga_oid *out, struct resolver *rs, const char *name,
		      size_t len)
{
	static const struct {
		const char *word;
		git_object_t type;
	} types[] = {
		{ "commit}", GIT_OBJECT_COMMIT }, { "tag}", GIT_OBJECT_TAG },
		{ "tree}", GIT_OBJECT_TREE }, { "blob}", GIT_OBJECT_BLOB },
		{ "object}", GIT_OBJECT_ANY }, { "}", GIT_OBJECT_INVALID },
	};
	const char *sp;
	git_object_t want = GIT_OBJECT_INVALID;
	struct known *k;
	struct ga_oid outer;
	size_t i, base;
	int error, found = 0;

	if (len < 4 || name[len - 1] != '}')
		return GA_ENOTFOUND;
	for (sp = name + len - 1; sp > name; sp--)
		if (*sp == '{' && sp[-1] == '^')
			break;
	if (sp <= name)
		return GA_ENOTFOUND;
	sp++;
	base = (size_t)(sp - name) - 2;
	/* "^{/<text>}": the commit, then a search of its history. */
	if (*sp == '/') {
		want = GIT_OBJECT_COMMIT;
		found = 1;
	}
	/* git takes the first word the rest starts with: "^{tree}x}". */
	for (i = 0; i < GA_ARRAY_SIZE(types) && !found; i++)
		if ((size_t)(name + len - sp) >= strlen(types[i].word) &&
		    !memcmp(sp, types[i].word, strlen(types[i].word))) {
			want = types[i].type;
			found = 1;
		}
	if (!found)
		return GA_ENOTFOUND;
	if ((error = get_oid_1(&outer, rs, name, base)) < 0 ||
	    (error = read_known(&k, rs, &outer, AS_PARSE_OBJECT)) < 0)
		return error;
	if (want == GIT_OBJECT_INVALID) {
		/* git's deref_tag(), warning with the name before "^{}". */
		while (k->type == GIT_OBJECT_TAG) {
			if ((error = follow(&k, rs, k)) < 0) {
				if (error == GA_ENOTFOUND)
					ga_report(GA_REPORT_ERROR,
						  "missing object referenced "
						  "by '%.*s'", (int)base, name);
				return error;
			}
		}
	} else {
		/* git's peel_to_type(). */
		while (want != GIT_OBJECT_ANY && k->type != want) {
			if (k->type != GIT_OBJECT_TAG &&
			    k->type != GIT_OBJECT_COMMIT) {
				ga_report(GA_REPORT_ERROR, "%.*s: expected %s "
					  "type, but the object dereferences "
					  "to %s type", (int)len, name,
					  git_object_type2string(want),
					  git_object_type2string(k->type));
				return GA_ENOTFOUND;
			}
			if ((error = follow(&k, rs, k)) < 0)
				return error;
		}
	}
	if (*sp == '/' && sp[1] != '}') {
		/* git needs no regex for "^{/}": it matches anything. */
		char *pattern = ga_xstrndup(sp + 1,
					    (size_t)(name + len - 1 - sp - 1));
		struct ga_oid start = k->id;

		error = treeish_search_commits(out, rs->odb, &start, 1,
					       pattern);
		free(pattern);
		return error;
	}
	ga_oid_cpy(out, &k->id);
	return 0;
}

/* A full object id in hex: taken without reading it, as git does. */
static int is_full_hex(const struct resolver *rs, const char *name,
		       size_t len)
{
	size_t i;

	if (len != hexsz(rs))
		return 0;
	for (i = 0; i < len; i++)
		if (ga_hexval(name[i]) < 0)
			return 0;
	return 1;
}

/* git's get_short_oid(): an abbreviated id of one object. */
static int get_short_oid(struct ga_oid *out, struct resolver *rs, const char *hex,
			 size_t len)
{
	struct ga_oid prefix;
	size_t i;

	if (len < GIT_OID_MINPREFIXLEN || len >= hexsz(rs))
		return GA_ENOTFOUND;
	for (i = 0; i < len; i++)
		if (ga_hexval(hex[i]) < 0)
			return GA_ENOTFOUND;
	if (ga_oid_from_hex_prefix(&prefix, rs->algo, hex, len) < 0 ||
	    odb_exists_prefix(out, rs->odb, &prefix, len) < 0)
		return not_usable();
	return 0;
}

/* The length of the "@{upstream}", "@{u}" or "@{push}" `s` starts with. */
static size_t mark_at(const char *s, size_t len, enum upstream_kind *kind)
{
	static const struct {
		const char *mark;
		enum upstream_kind kind;
	} marks[] = {
		{ "@{upstream}", UPSTREAM_MERGE }, { "@{u}", UPSTREAM_MERGE },
		{ "@{push}", UPSTREAM_PUSH },
	};
	size_t i, n;

	for (i = 0; i < GA_ARRAY_SIZE(marks); i++) {
		n = strlen(marks[i].mark);
		if (n <= len && !strncasecmp(s, marks[i].mark, n)) {
			*kind = marks[i].kind;
			return n;
		}
	}
	return 0;
}

/*
 * git's interpret_branch_mark() as its dwim_ref() meets it:
 * "[<branch>]@{upstream}", "@{u}", "@{push}" stand for the
 * remote-tracking ref the configuration gives.  A branch without one is
 * fatal, as git dies there.  Returns 1 when `name` (`len` bytes) has no
 * such mark; 0 with *out the full name of that ref (malloc'd), or NULL
 * when more follows the mark (git then takes the name as it is); or
 * GA_ERROR.
 */
static int branch_mark_name(char **out, struct resolver *rs, const char *name,
			    size_t len)
{
	const struct ga_config *cfg = rs->opts ? rs->opts->config : NULL;
	enum upstream_kind kind = UPSTREAM_MERGE;
	const char *at;
	char *tracking = NULL;
	size_t n = 0;

	*out = NULL;
	for (at = name; (at = memchr(at, '@', len - (size_t)(at - name)));
	     at++) {
		n = mark_at(at, len - (size_t)(at - name), &kind);
		if (n && !memchr(name, ':', (size_t)(at - name)))
			break;
	}
	if (!at)
		return 1;
	if (!cfg && !rs->own_config &&
	    config_load(&rs->own_config, rs->repo, NULL, 0) < 0)
		return GA_ERROR;
	if (!cfg)
		cfg = rs->own_config;
	if (use_refs(rs) < 0 ||
	    upstream_tracking_ref(&tracking, cfg, rs->refs, name,
				  (size_t)(at - name), kind) < 0)
		return GA_ERROR;
	if ((size_t)(at - name) + n == len)
		*out = tracking;
	else
		free(tracking);
	return 0;
}

/*
 * The ref "<branch>@{u}" and the like stand for, as dwim_ref() finds
 * it (branch_mark_name()).  Returns 1 when `name` has no such mark, 0
 * with *out, GA_ENOTFOUND, or GA_ERROR.
 */
static int branch_mark_ref(struct ga_oid *out, struct resolver *rs,
			   const char *name, size_t len)
{
	char *tracking, *refname = NULL;
	int found, error;

	if ((error = branch_mark_name(&tracking, rs, name, len)) != 0)
		return error;
	if (tracking)
		refname = dwim_ref(out, &found, rs, tracking,
				   strlen(tracking));
	error = refname ? 0 : GA_ENOTFOUND;
	free(tracking);
	free(refname);
	return error;
}

/*
 * git's get_oid_basic(), get_describe_name() and get_short_oid(): a
 * full hex id, a ref (with @{...}: the ref store's reflog, or libgit2),
 * describe output
 * ("<tag>-<n>-g<hex>") or an abbreviated id.  The object is not read.
 */
static int get_oid_basic(struct ga_oid *out, struct resolver *rs, const char *name,
			 size_t len)
{
	const char *g;
	char *refname;
	size_t at;
	int found, nth, error;

	if (!len)
		return GA_ENOTFOUND;
	if (is_full_hex(rs, name, len))
		return hex_oid(out, rs, name) < 0 ? GA_ENOTFOUND : 0;
	if (reflog_nth_form(&at, &nth, name, len))
		return reflog_nth(out, rs, name, at, nth);
	if ((error = nth_prior_checkout(out, rs, name, len)))
		return error < 0 ? error : 0;
	if ((error = branch_mark_ref(out, rs, name, len)) != 1)
		return error;
	/*
	 * libgit2 reads no reflog through garchive's ref store (reftable,
	 * SHA-256, GARCHIVE_TEST_READER) and no SHA-256 id: there,
	 * "@{<date>}" and "@" are read from garchive's ref store.
	 */
	if (memmem(name, len, "@{", 2) && refs_served(rs) &&
	    (error = reflog_at_date(out, rs, name, len)) != 1)
		return error;
	if (len == 1 && name[0] == '@' && rs->algo != GA_HASH_SHA1)
		return get_oid_basic(out, rs, "HEAD", 4);
	if (memmem(name, len, "@{", 2) || (len == 1 && name[0] == '@'))
		return revparse(out, rs, name, len);
	if ((refname = dwim_ref(out, &found, rs, name, len))) {
		free(refname);
		if (found > 1)
			ga_warning("refname '%.*s' is ambiguous.", (int)len,
				   name);
		return 0;
	}
	for (g = name + len - 1; g > name; g--)
		if (*g == 'g' && g[-1] == '-')
			break;
	if (g > name && get_short_oid(out, rs, g + 1,
				      (size_t)(name + len - g - 1)) == 0)
		return 0;
	return get_short_oid(out, rs, name, len);
}

/*
 * git's get_oid_1(): `name` (`len` bytes) is "<name>~<n>", "<name>^<n>",
 * "<name>^{...}" or a basic name.  Returns 0, GA_ENOTFOUND (with git's
 * error lines reported, if any), or GA_ECORRUPT.
 */
static int get_oid_1(struct ga_oid *out, struct resolver *rs, const char *name,
		     size_t len)
{
	const char *cp = name + len;
	unsigned long n = 0;
	int error;

	while (cp > name && cp[-1] >= '0' && cp[-1] <= '9')
		cp--;
	if (cp > name && (cp[-1] == '~' || cp[-1] == '^')) {
		const char *d;
		size_t base = (size_t)(cp - 1 - name);

		for (d = cp; d < name + len; d++) {
			if (n > (INT_MAX - 9) / 10)
				return GA_ENOTFOUND;
			n = n * 10 + (unsigned long)(*d - '0');
		}
		if (cp == name + len)
			n = 1;
		if (cp[-1] == '^')
			return get_parent(out, rs, name, base, n);
		return get_nth_ancestor(out, rs, name, base, n);
	}
	error = peel_onion(out, rs, name, len);
	if (error != GA_ENOTFOUND)
		return error;
	return get_oid_basic(out, rs, name, len);
}

/* git's is_inside_work_tree(), and the top of the work tree. */
static int inside_worktree(char top[PATH_MAX], git_repository *repo)
{
	const char *workdir = git_repository_workdir(repo);
	char cwd[PATH_MAX];
	size_t len;

	if (!workdir || !getcwd(cwd, sizeof(cwd)) || !realpath(workdir, top))
		return 0;
	len = strlen(top);
	return !strncmp(cwd, top, len) && (!cwd[len] || cwd[len] == '/' ||
					   !strcmp(top, "/"));
}

/*
 * The path of "<rev>:<path>" from the top of the tree: git takes one
 * starting with "./" or "../" from the directory it runs in.  Returns 0
 * with *out (the caller frees it), or a fatal error.
 */
static int tree_path(char **out, struct resolver *rs, const char *path)
{
	struct ga_buf joined = GA_BUF_INIT;
	char top[PATH_MAX];
	int error = 0;

	*out = NULL;
	if (strncmp(path, "./", 2) && strncmp(path, "../", 3)) {
		*out = ga_xstrdup(path);
		return 0;
	}
	if (rs->opts->remote || !inside_worktree(top, rs->repo))
		return ga_error_set("relative path syntax can't be used "
				    "outside working tree");
	ga_buf_puts(&joined, rs->opts->cwd_prefix ? rs->opts->cwd_prefix : "");
	ga_buf_puts(&joined, path);
	if (ga_normalize_path(joined.ptr, joined.ptr) < 0)
		error = ga_error_set("'%s' is outside repository at '%s'",
				     path, top);
	else
		*out = ga_xstrdup(joined.ptr);
	ga_buf_release(&joined);
	return error;
}

/*
 * A tag or commit whose content does not match its id may name another
 * that names it back; git's read_object_with_reference() would follow
 * such a ring for ever.  No real chain of tags is this long.
 */
#define TREEISH_MAX_REFERENCES 100000

/*
 * git's read_object_with_reference() for a tree: from `id`, the "object"
 * of each tag and the "tree" of each commit, read raw and unchecked,
 * until a tree.  Returns 0, GA_ENOTFOUND or GA_ECORRUPT.
 */
static int peel_raw_to_tree(struct ga_oid *id, struct resolver *rs)
{
	struct odb_object *obj = NULL;
	unsigned long hops;
	int error;

	for (hops = 0; hops < TREEISH_MAX_REFERENCES; hops++) {
		const char *data, *ref;
		git_object_t type;
		size_t size, reflen;

		if ((error = odb_read(&obj, rs->odb, id)) < 0)
			return error == GA_ECORRUPT ? odb_corrupt_error(error)
						    : not_usable();
		type = odb_object_type(obj);
		data = odb_object_data(obj);
		size = odb_object_size(obj);
		if (type == GIT_OBJECT_TREE) {
			odb_object_free(obj);
			return 0;
		}
		ref = type == GIT_OBJECT_COMMIT ? "tree " :
		      type == GIT_OBJECT_TAG ? "object " : NULL;
		reflen = ref ? strlen(ref) : 0;
		error = !ref || size < reflen + hexsz(rs) ||
			memcmp(data, ref, reflen) ||
			hex_oid(id, rs, data + reflen) < 0;
		odb_object_free(obj);
		if (error)
			return GA_ENOTFOUND;
	}
	return GA_ENOTFOUND;
}

/*
 * git's get_tree_entry() for "<rev>:<path>": the commits and tags from
 * `rev` to its tree, and the trees down to the entry, are read without
 * being checked, as git reads them.
 */
static int tree_entry(struct ga_oid *out, struct resolver *rs, const struct ga_oid *rev,
		      const char *path)
{
	struct rawtree_entry entry;
	struct ga_oid id;
	int error;

	ga_oid_cpy(&id, rev);
	if ((error = peel_raw_to_tree(&id, rs)) < 0)
		return error;
	if (!*path) {
		ga_oid_cpy(out, &id);
		return 0;
	}
	error = rawtree_lookup(&entry, rs->odb, &id, path,
			       ga_hash_rawsz(rs->algo));
	if (error < 0)
		return error;
	ga_oid_cpy(out, &entry.id);
	return 0;
}

/*
 * The length of "<dir>/" in "<dir>/objects" or "<dir>/objects/", the
 * object store as messages name it; 0 for another name.
 */
static size_t objects_parent(const char *objects)
{
	size_t len = strlen(objects);

	while (len > 1 && objects[len - 1] == '/')
		len--;
	if (len < 8 || strncmp(objects + len - 8, "/objects", 8))
		return 0;
	return len - 7;
}

/*
 * The index file git reads and how its messages name it: $GIT_INDEX_FILE
 * (relative to the top of the work tree, where git has moved), else
 * "index" in the git dir, named as the object store names that dir;
 * and that name of the git dir (no final '/'), where a split index's
 * shared index is looked for first.
 */
static void index_path(char **path, char **shown, char **dir_shown,
		       struct resolver *rs)
{
	const char *env = getenv("GIT_INDEX_FILE");
	const char *gitdir = getenv("GIT_DIR");
	const char *repo_path = git_repository_path(rs->repo);
	const char *prefix = rs->opts->cwd_prefix, *objects, *p;
	struct ga_buf buf = GA_BUF_INIT;
	char *common;
	size_t len;

	objects = odb_shown(rs->odb);
	common = repo_commondir(rs->repo);
	if (gitdir && *gitdir) {
		/* As given: git names ".git/" + "/index" ".git//index". */
		*dir_shown = ga_xstrdup(gitdir);
	} else if (objects && !strcmp(repo_path, common) &&
		   (len = objects_parent(objects))) {
		*dir_shown = ga_xstrndup(objects, len - 1);
	} else {
		len = strlen(repo_path);
		while (len > 1 && repo_path[len - 1] == '/')
			len--;
		*dir_shown = ga_xstrndup(repo_path, len);
	}
	free(common);
	if (env && *env) {
		*shown = ga_xstrdup(env);
		if (*env != '/' && prefix)
			for (p = prefix; *p; p++)
				if (*p == '/')
					ga_buf_puts(&buf, "../");
		ga_buf_puts(&buf, env);
		*path = ga_buf_detach(&buf, NULL);
		return;
	}
	*path = ga_xstrfmt("%sindex", repo_path);
	*shown = ga_xstrfmt("%s/index", *dir_shown);
}

/*
 * ":<path>" and ":<stage>:<path>": an entry of the index, read by
 * garchive in either hash (index-file.h); ":/<text>", the youngest
 * commit whose message matches (treeish-search.h).
 */
static int index_entry(struct ga_oid *out, struct resolver *rs, const char *name)
{
	const struct index_file_entry *e;
	struct index_file ix = { 0 };
	char *path = NULL, *file = NULL, *shown = NULL, *dir_shown = NULL;
	int stage = 0, error;

	if (name[1] == '/' && name[2]) {
		if (use_refs(rs) < 0)
			return GA_ERROR;
		return treeish_search_refs(out, rs->odb, rs->refs, name + 2);
	}
	name++;
	if (name[0] >= '0' && name[0] <= '3' && name[1] == ':') {
		stage = name[0] - '0';
		name += 2;
	}
	if ((error = tree_path(&path, rs, name)) < 0)
		return error;
	index_path(&file, &shown, &dir_shown, rs);
	if ((error = index_file_read(&ix, file, shown,
				     git_repository_path(rs->repo), dir_shown,
				     rs->algo)) < 0 ||
	    (error = index_file_expand(&ix, rs->odb)) < 0)
		goto done;
	if (!(e = index_file_find(&ix, path, strlen(path), stage)))
		error = GA_ENOTFOUND;
	else
		ga_oid_cpy(out, &e->id);
done:
	index_file_release(&ix);
	free(dir_shown);
	free(shown);
	free(file);
	free(path);
	return error;
}

/*
 * git's get_oid(): the object `name` names, with the objects on the way
 * read and checked as git does.  Returns 0, GA_ENOTFOUND for "not a
 * valid object name" (with git's error lines reported), or another
 * error with its message.
 */
static int get_oid(struct ga_oid *out, struct resolver *rs, const char *name)
{
	const char *cp;
	char *path = NULL;
	int depth = 0, error;
	struct ga_oid rev;

	if (name[0] == ':')
		return index_entry(out, rs, name);
	for (cp = name; *cp; cp++) {
		if (*cp == '{')
			depth++;
		else if (depth && *cp == '}')
			depth--;
		else if (!depth && *cp == ':')
			break;
	}
	if (!*cp)
		return get_oid_1(out, rs, name, strlen(name));
	if ((error = get_oid_1(&rev, rs, name, (size_t)(cp - name))) < 0 ||
	    (error = tree_path(&path, rs, cp + 1)) < 0)
		return error;
	error = tree_entry(out, rs, &rev, path);
	free(path);
	return error;
}

/*
 * git's lookup_commit_reference_gently(), quietly: the commit the named
 * object is or whose tags lead to, checked even if git read it without
 * checking on the way (a commit reached by ~ or ^).  Returns 1 with
 * *out, 0 when there is none, or GA_ECORRUPT.
 */
static int find_commit(struct ga_oid *out, struct resolver *rs, const struct ga_oid *id)
{
	struct known *k;
	int error;

	if ((error = read_known(&k, rs, id, CHECKED)) < 0)
		return error == GA_ENOTFOUND ? 0 : error;
	while (k->type == GIT_OBJECT_TAG)
		if ((error = follow(&k, rs, k)) < 0)
			return error == GA_ENOTFOUND ? 0 : error;
	if (k->type != GIT_OBJECT_COMMIT)
		return 0;
	ga_oid_cpy(out, &k->id);
	return 1;
}

/*
 * git's parse_tree_indirect(): the tree the named object is or leads to,
 * checked (also a commit git read unchecked, as in find_commit()).
 * Returns 0, GA_ENOTFOUND ("not a tree object"), or GA_ECORRUPT.
 */
static int find_tree(struct ga_oid *out, struct resolver *rs, const struct ga_oid *id)
{
	struct known *k;
	int error;

	if ((error = read_known(&k, rs, id, CHECKED)) < 0)
		return error;
	while (k->type != GIT_OBJECT_TREE) {
		if (k->type != GIT_OBJECT_TAG && k->type != GIT_OBJECT_COMMIT)
			return GA_ENOTFOUND;
		if ((error = follow(&k, rs, k)) < 0)
			return error;
	}
	ga_oid_cpy(out, &k->id);
	return 0;
}

/* Replace the archived tree by its subtree at `dir` ("sub/" or "sub"). */
static int enter_subdir(struct treeish *t, struct resolver *rs,
			const char *dir)
{
	struct rawtree_entry entry;
	size_t len = strlen(dir);
	char *path;
	int error;

	while (len && dir[len - 1] == '/')
		len--;
	if (!len)
		return 0;
	path = ga_xstrndup(dir, len);
	error = rawtree_lookup(&entry, rs->odb, &t->tree_id, path,
			       t->hexsz / 2);
	free(path);
	if (error == GA_ENOTFOUND || (!error && entry.mode != 0040000)) {
		if (!rs->opts->keep_prefix)
			return ga_error_set("current working directory is "
					    "untracked");
		ga_error_clear();
		t->no_subtree = 1;
		return 0;
	}
	if (error < 0)
		return error;
	ga_oid_cpy(&t->tree_id, &entry.id);
	return 0;
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


/*
 * The ref git's dwim_ref() finds for a name with a branch mark, for
 * treeish.refname (a process filter's "ref"): *out stays NULL when it
 * has none.  Returns 0, or GA_ERROR where git dies (no upstream).
 */
static int mark_refname(char **out, struct resolver *rs, const char *name,
			size_t len)
{
	char *tracking;
	int found, error;

	if ((error = branch_mark_name(&tracking, rs, name, len)) != 0)
		return error < 0 ? error : 0;
	if (tracking)
		*out = dwim_ref(NULL, &found, rs, tracking, strlen(tracking));
	free(tracking);
	return 0;
}

int treeish_resolve(struct treeish *out, git_repository *repo,
		    const struct treeish_options *opts)
{
	struct resolver rs = { 0 };
	const char *name = opts->name;
	char hex[GA_OID_MAX_HEXSZ + 1];
	struct ga_oid named;
	int has_commit, found, error;

	memset(out, 0, sizeof(*out));
	rs.repo = repo;
	rs.served = -1;
	rs.opts = opts;

	if (opts->remote && !opts->allow_unreachable) {
		/* A remote client may only name refs (and paths in them). */
		const char *colon = strchr(name, ':');
		size_t len = colon ? (size_t)(colon - name) : strlen(name);

		out->refname = dwim_ref(NULL, &found, &rs, name, len);
		if (!out->refname &&
		    (error = mark_refname(&out->refname, &rs, name, len)) < 0)
			goto done;
		if (!out->refname) {
			error = ga_error_set("no such ref: %.*s", (int)len,
					     name);
			goto done;
		}
	} else {
		out->refname = dwim_ref(NULL, &found, &rs, name, strlen(name));
		if (!out->refname &&
		    (error = mark_refname(&out->refname, &rs, name,
					  strlen(name))) < 0)
			goto done;
	}

	if (git_repository_odb(&rs.odb, repo) < 0) {
		error = ga_error_from_git(NULL);
		goto done;
	}
	rs.algo = odb_hash_algo(rs.odb);
	out->hexsz = ga_hash_hexsz(rs.algo);
	if ((error = get_oid(&named, &rs, name)) < 0) {
		if (error == GA_ENOTFOUND)
			error = ga_error_set("not a valid object name: %s",
					     name);
		goto done;
	}
	if ((has_commit = find_commit(&out->commit_id, &rs, &named)) < 0) {
		error = has_commit;
		goto done;
	}
	if ((error = find_tree(&out->tree_id, &rs, &named)) < 0) {
		if (error == GA_ENOTFOUND) {
			ga_oid_fmt(hex, &named);
			error = ga_error_set("not a tree object: %s", hex);
		}
		goto done;
	}
	/* Its time and, for export-subst, its fields. */
	if (has_commit &&
	    (error = ga_commit_read(&out->commit, rs.odb, &out->commit_id)) < 0)
		goto done;
	/* A commit gives its committer time; a tree, the current time. */
	out->mtime = out->commit ? out->commit->time
				 : (int64_t)time(NULL);
	if (!out->commit && !opts->mtime && opts->source_date_epoch &&
	    *opts->source_date_epoch &&
	    (error = parse_source_date_epoch(&out->mtime,
					     opts->source_date_epoch)) < 0)
		goto done;

	ga_oid_cpy(&out->root_tree_id, &out->tree_id);
	if (opts->cwd_prefix && *opts->cwd_prefix &&
	    (error = enter_subdir(out, &rs, opts->cwd_prefix)) < 0)
		goto done;

	if (opts->mtime &&
	    (error = treeish_parse_date(&out->mtime, opts->mtime,
					(int64_t)time(NULL))) < 0)
		goto done;
	error = 0;
done:
	resolver_release(&rs);
	if (error < 0)
		treeish_release(out);
	return error;
}

/* A resolver of names in `repo`, for one lookup outside treeish_resolve(). */
static int resolver_open(struct resolver *rs, git_repository *repo,
			 const struct treeish_options *opts)
{
	rs->repo = repo;
	rs->opts = opts;
	if (git_repository_odb(&rs->odb, repo) < 0)
		return ga_error_from_git(NULL);
	rs->algo = odb_hash_algo(rs->odb);
	return 0;
}

int treeish_attr_source(struct ga_oid *out, git_repository *repo,
			const char *name, const char *cwd_prefix)
{
	struct treeish_options opts = { 0 };
	struct resolver rs = { 0 };
	struct ga_oid named;
	int error;

	opts.name = name;
	opts.cwd_prefix = cwd_prefix;
	if ((error = resolver_open(&rs, repo, &opts)) < 0 ||
	    (error = get_oid(&named, &rs, name)) < 0)
		goto done;
	/*
	 * git looks each .gitattributes up below the named object; what
	 * leads to no tree (a blob) just has none.
	 */
	ga_oid_cpy(out, &named);
	error = peel_raw_to_tree(out, &rs);
	if (error == GA_ENOTFOUND) {
		ga_error_clear();
		error = 0;
	} else if (!error) {
		error = 1;
	}
done:
	resolver_release(&rs);
	return error;
}

int treeish_get_oid(struct ga_oid *out, git_repository *repo,
		    const char *name)
{
	struct treeish_options opts = { 0 };
	struct resolver rs = { 0 };
	int error;

	opts.name = name;
	if (!(error = resolver_open(&rs, repo, &opts)))
		error = get_oid(out, &rs, name);
	resolver_release(&rs);
	return error;
}

void treeish_release(struct treeish *t)
{
	if (!t)
		return;
	ga_commit_free(t->commit);
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
		if (!ga_isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/*
 * "+hhmm", "-hh:mm", "Z" or nothing (UTC), into seconds east of UTC.
 * Returns 0, -1 when it is no zone, -2 when it is out of range.
 */
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
	/* git ignores a zone this far out, taking the time as local. */
	return hh >= 24 || mm >= 60 ? -2 : 0;
}

static int days_in_month(int y, int m)
{
	static const int days[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return days[m - 1] + (m == 2 && leap);
}

/* Why a value of a form garchive reads is refused anyway. */
#define WHY_YEAR	"git reads the years 1970 to 2099 only"
#define WHY_DAY		"no such day"
#define WHY_ZONE	"time zone out of range"
#define WHY_EPOCH	"before 1970-01-01 00:00:00 UTC"
#define WHY_LARGE	"too large"

/*
 * "YYYY-MM-DD[ T]HH:MM[:SS][ zone]" or "YYYY-MM-DD" (midnight UTC).
 * Returns 0, or -1 when `s` has another form, or when it is refused
 * with *why set: git's date parser knows the years 1970 to 2099 only
 * and would turn a day past the month's end into the next month.
 */
static int parse_iso(int64_t *out, const char *s, const char **why)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, zone = 0, error;

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
	if ((error = parse_zone(&s, &zone)) == -1 || *s)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60)
		return -1;
	if (y < 1970 || y > 2099)
		*why = WHY_YEAR;
	else if (d > days_in_month(y, mo))
		*why = WHY_DAY;
	else if (error)
		*why = WHY_ZONE;
	if (*why)
		return -1;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	       zone;
	if (*out < 0)
		*why = WHY_EPOCH;
	return *why ? -1 : 0;
}

/* "@<seconds>": any that fits, none clamped.  As parse_iso(). */
static int parse_epoch(int64_t *out, const char *s, const char **why)
{
	unsigned long long v;
	char *end;

	if (s[0] != '@' || !ga_isdigit((unsigned char)s[1]))
		return -1;
	errno = 0;
	v = strtoull(s + 1, &end, 10);
	if (*end)
		return -1;
	if (errno == ERANGE || v > INT64_MAX) {
		*why = WHY_LARGE;
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

/* "N unit(s) ago", "now", "yesterday". */
static int parse_relative(int64_t *out, const char *s, int64_t now,
			  const char **why)
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
	if (!ga_isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (*end != ' ')
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
		if (errno == ERANGE || n > now / units[i].secs) {
			*why = WHY_EPOCH;
			return -1;
		}
		*out = now - n * units[i].secs;
		return 0;
	}
	return -1;
}

/*
 * git 2.40's --mtime goes through approxidate, which never fails: what
 * it cannot read becomes "now", a year outside 1970..2099 or a zone of
 * 24 hours or more is dropped for a guess, a day past the month's end
 * is the next month's, and a time before 1970 wraps around (its
 * timestamps are unsigned).  garchive reads the forms a release script
 * uses (an epoch "@N", ISO 8601 dates and times, "now", "N units ago")
 * and refuses anything else, and anything git would not take at face
 * value, rather than stamp the archive with a time nobody asked for.
 */
int treeish_parse_date(int64_t *out, const char *s, int64_t now)
{
	const char *why = NULL;

	if (parse_epoch(out, s, &why) == 0 ||
	    (!why && parse_iso(out, s, &why) == 0) ||
	    (!why && parse_relative(out, s, now, &why) == 0))
		return 0;
	if (why)
		return ga_error_set("invalid --mtime value: '%s' (%s)", s,
				    why);
	return ga_error_set("invalid --mtime value: '%s'", s);
}

/*
 * odb.c: object databases assembled by garchive (see odb.h for why).
 */
#include "odb.h"
#include "garchive/common.h"
#include "loose.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

/* libgit2's own priorities: packs are asked first. */
#define ODB_LOOSE_PRIORITY	1
#define ODB_PACK_PRIORITY	2
/* git follows alternates of alternates this deep. */
#define ODB_MAX_ALTERNATE_DEPTH	5

/*
 * The backends of one objects directory: the one place a backend is
 * added.  `shown` names the directory in messages (NULL: as it is).
 */
static int add_objects_dir(git_odb *odb, const char *dir, const char *shown,
			   int alternate)
{
	int (*add)(git_odb *, git_odb_backend *, int) =
		alternate ? git_odb_add_alternate : git_odb_add_backend;
	git_odb_backend *loose = NULL, *pack = NULL;
	int error;

	if ((error = loose_backend_new(&loose, dir, shown)) < 0)
		return error;
	if (add(odb, loose, ODB_LOOSE_PRIORITY) < 0) {
		loose->free(loose);
		return ga_error_from_git("cannot open the object database");
	}
	/*
	 * libgit2 refuses a pack directory it cannot list; git reads on
	 * without those packs, and so does garchive.
	 */
	if (git_odb_backend_pack(&pack, dir) < 0) {
		git_error_clear();
		return 0;
	}
	if (add(odb, pack, ODB_PACK_PRIORITY) < 0) {
		pack->free(pack);
		return ga_error_from_git("cannot open the object database");
	}
	return 0;
}

/* Alternates as git's link_alt_odb_entries() follows them. */
struct alternates {
	git_odb *odb;
	char *main_dir;			/* the main objects directory, real */
	char **dirs;			/* directories added, normalized */
	size_t nr, alloc;
	int report;
};

static void alternates_release(struct alternates *alt)
{
	size_t i;

	for (i = 0; i < alt->nr; i++)
		free(alt->dirs[i]);
	free(alt->dirs);
	free(alt->main_dir);
}

static void complain(const struct alternates *alt, const char *fmt,
		     const char *arg)
{
	if (alt->report)
		ga_report(GA_REPORT_ERROR, fmt, arg);
}

static int read_alternates(struct alternates *alt, const char *base,
			   int depth);

/* Whether `dir` is new: neither the main directory nor one added. */
static int is_new_dir(const struct alternates *alt, const char *dir)
{
	size_t i;

	if (!strcmp(dir, alt->main_dir))
		return 0;
	for (i = 0; i < alt->nr; i++)
		if (!strcmp(dir, alt->dirs[i]))
			return 0;
	return 1;
}

/*
 * git's strbuf_realpath(): links resolved, where the last component
 * may be missing.  Returns 0 or -1.
 */
static int resolve_path(char out[PATH_MAX], const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ok;

	if (realpath(path, out))
		return 0;
	if (errno != ENOENT || !slash || !slash[1])
		return -1;
	dir = slash == path ? ga_xstrdup("/")
			    : ga_xstrndup(path, (size_t)(slash - path));
	ok = realpath(dir, out) != NULL &&
	     strlen(out) + strlen(slash) < PATH_MAX;
	free(dir);
	if (!ok)
		return -1;
	if (strcmp(out, "/"))
		strcat(out, slash);
	else
		strcpy(out, slash);
	return 0;
}

/*
 * One entry of `base`/info/alternates: a relative one is taken from
 * `base`, and links are resolved.
 */
static int link_alternate(struct alternates *alt, const char *entry,
			  const char *base, int depth)
{
	struct ga_buf joined = GA_BUF_INIT;
	char real[PATH_MAX], path[PATH_MAX];
	struct stat st;
	int error = 0;

	if (entry[0] != '/' && realpath(base, real)) {
		ga_buf_puts(&joined, real);
		ga_buf_putc(&joined, '/');
	}
	ga_buf_puts(&joined, entry);
	if (resolve_path(path, joined.ptr) < 0) {
		complain(alt, "unable to normalize alternate object path: %s",
			 joined.ptr);
		goto done;
	}
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		complain(alt, "object directory %s does not exist; check "
			 ".git/objects/info/alternates", path);
		goto done;
	}
	if (!is_new_dir(alt, path))
		goto done;
	if ((error = add_objects_dir(alt->odb, path, NULL, 1)) < 0)
		goto done;
	GA_ALLOC_GROW(alt->dirs, alt->nr + 1, alt->alloc);
	alt->dirs[alt->nr++] = ga_xstrdup(path);
	error = read_alternates(alt, path, depth + 1);
done:
	ga_buf_release(&joined);
	return error;
}

/*
 * The entries of `base`/info/alternates, one a line: "#" starts a
 * comment, a line starting with '"' is C-quoted (taken as it is when
 * the quoting is broken), and empty lines are skipped.
 */
static int read_alternates(struct alternates *alt, const char *base,
			   int depth)
{
	struct ga_buf file = GA_BUF_INIT, entry = GA_BUF_INIT;
	char *name = ga_xstrfmt("%s/info/alternates", base);
	const char *p;
	int error = 0;

	if (ga_buf_read_file(&file, name) < 0 || !file.len)
		goto done;
	if (depth > ODB_MAX_ALTERNATE_DEPTH) {
		complain(alt, "%s: ignoring alternate object stores, nesting "
			 "too deep", base);
		goto done;
	}
	for (p = file.ptr; *p && !error; ) {
		const char *end = strchrnul(p, '\n');

		ga_buf_setlen(&entry, 0);
		if (*p == '#' ||
		    !(*p == '"' && ga_unquote_c(&entry, p, &end) == 0))
			ga_buf_put(&entry, p, (size_t)(end - p));
		if (*p != '#' && entry.len)
			error = link_alternate(alt, entry.ptr, base, depth);
		p = *end ? end + 1 : end;
	}
done:
	free(name);
	ga_buf_release(&file);
	ga_buf_release(&entry);
	return error;
}

int odb_open(git_odb **out, const char *objects_dir, const char *shown,
	     int report)
{
	struct alternates alt = { 0 };
	git_odb *odb = NULL;
	char real[PATH_MAX];
	size_t len;
	int error;

	*out = NULL;
	if (git_odb_new(&odb) < 0)
		return ga_error_from_git("cannot open the object database");
	if ((error = add_objects_dir(odb, objects_dir,
				     shown ? shown : objects_dir, 0)) < 0)
		goto done;
	alt.odb = odb;
	alt.report = report;
	alt.main_dir = ga_xstrdup(realpath(objects_dir, real) ? real
							      : objects_dir);
	len = strlen(alt.main_dir);
	while (len > 1 && alt.main_dir[len - 1] == '/')
		alt.main_dir[--len] = '\0';
	if ((error = read_alternates(&alt, objects_dir, 0)) < 0)
		goto done;
	*out = odb;
	odb = NULL;
done:
	alternates_release(&alt);
	git_odb_free(odb);
	return error;
}

/* git's name for `repo`'s directory when it found the repository itself. */
static char *git_dir_name(git_repository *repo)
{
	const char *common = git_repository_commondir(repo);
	const char *workdir = git_repository_workdir(repo);
	char cwd[PATH_MAX], real[PATH_MAX];
	size_t len;

	if (workdir && !strncmp(common, workdir, strlen(workdir)) &&
	    !strcmp(common + strlen(workdir), ".git/"))
		return ga_xstrdup(".git");
	if (getcwd(cwd, sizeof(cwd)) && realpath(common, real) &&
	    !strcmp(cwd, real))
		return ga_xstrdup(".");
	len = strlen(common);
	while (len > 1 && common[len - 1] == '/')
		len--;
	return ga_xstrndup(common, len);
}

int odb_install(git_repository *repo, const char *git_dir_shown, int report)
{
	char *objects = ga_xstrfmt("%sobjects", git_repository_commondir(repo));
	char *name = git_dir_shown ? ga_xstrdup(git_dir_shown)
				   : git_dir_name(repo);
	char *shown;
	size_t len = strlen(name);
	git_odb *odb = NULL;
	int error;

	while (len > 1 && name[len - 1] == '/')
		name[--len] = '\0';
	shown = ga_xstrfmt("%s/objects", name);
	if ((error = odb_open(&odb, objects, shown, report)) == 0 &&
	    git_repository_set_odb(repo, odb) < 0)
		error = ga_error_from_git("cannot open the object database");
	git_odb_free(odb);
	free(shown);
	free(name);
	free(objects);
	return error;
}

const char *odb_shown(git_odb *odb)
{
	size_t i, nr = git_odb_num_backends(odb);

	for (i = 0; i < nr; i++) {
		git_odb_backend *b;
		const char *shown;

		if (git_odb_get_backend(&b, odb, i) == 0 &&
		    (shown = loose_backend_shown(b)))
			return shown;
	}
	return NULL;
}

int odb_corrupt_error(int code)
{
	const git_error *e;

	if (code != GA_ECORRUPT)
		return 0;
	e = git_error_last();
	return ga_error_code(GA_ECORRUPT, "%s",
			     e && e->message ? e->message : "corrupt object");
}

int odb_blob_corrupt_error(int code)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "";
	const char *fatal = strstr(msg, "\nfatal: ");

	if (code != GA_ECORRUPT || !fatal || !loose_damage_in_header(msg))
		return odb_corrupt_error(code);
	return ga_error_code(GA_ECORRUPT, "%.*s\nerror: %s",
			     (int)(fatal - msg), msg, msg);
}

/* The stream is the loose backend's: odb.h hides which backend gives it. */
struct odb_stream;

int odb_stream_open(struct odb_stream **out, size_t *size, git_object_t *type,
		    git_odb *odb, const git_oid *id)
{
	size_t i, nr = git_odb_num_backends(odb);
	uint64_t len;
	int error = GIT_ENOTFOUND;

	*out = NULL;
	for (i = 0; i < nr && error == GIT_ENOTFOUND; i++) {
		git_odb_backend *b;

		if (git_odb_get_backend(&b, odb, i) == 0)
			error = loose_stream_open((struct loose_stream **)out,
						  &len, type, b, id);
	}
	if (error == GIT_ENOTFOUND)
		git_error_clear();
	if (error == GA_ECORRUPT)
		return odb_blob_corrupt_error(error);
	if (error < 0)
		return error;
	*size = (size_t)len;
	return 0;
}

int odb_stream_read(struct odb_stream *s, unsigned char *buf, size_t cap,
		    size_t *nread)
{
	int error = loose_stream_read((struct loose_stream *)s, buf, cap,
				      nread);

	if (error == GA_ECORRUPT)
		return odb_corrupt_error(error);
	return error < 0 ? ga_error_from_git(NULL) : 0;
}

void odb_stream_free(struct odb_stream *s)
{
	loose_stream_free((struct loose_stream *)s);
}

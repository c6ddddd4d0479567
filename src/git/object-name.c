/*
 * object-name.c: abbreviated object names for pretty formats: git's
 * find_unique_abbrev() (object-name.c) with its "auto" length, which git
 * derives from repo_approximate_object_count() (packfile.c): the objects
 * in multi-pack indexes and in the packs they do not cover, over the
 * object directory and its alternates, loose objects not counted.
 * libgit2 has no such estimate, so the pack indexes are read here.
 */
#include "object-name.h"
#include "repo-open.h"

#include "garchive/common.h"
#include "garchive/config.h"
#include "odb/odb.h"
#include "odb/pack.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libgit2.h"

/* git's MINIMUM_ABBREV and FALLBACK_DEFAULT_ABBREV. */
#define MIN_ABBREV 4
#define FALLBACK_ABBREV 7
/* Abbreviations never grow past GIT_MAX_RAWSZ (object-name.c). */
#define MAX_ABBREV 32

int oid_parse_hex(struct ga_oid *oid, enum ga_hash_algo algo,
		  const char *hex, const char **end)
{
	if (ga_oid_from_hex(oid, algo, hex) < 0)
		return -1;
	if (end)
		*end = hex + ga_hash_hexsz(algo);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counting objects (git's packfile.c).                               */

static uint32_t get_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/* Add an object directory (and, recursively, its alternates). */
static void add_object_dir(struct ga_strvec *dirs, const char *path,
			   const char *relative_to, int depth)
{
	char *full, *real;
	struct ga_buf alt = GA_BUF_INIT;
	char *file, *line;

	if (!*path)
		return;
	if (path[0] != '/' && relative_to)
		full = ga_xstrfmt("%s/%s", relative_to, path);
	else
		full = ga_xstrdup(path);
	real = realpath(full, NULL);
	free(full);
	if (!real)
		return;
	if (ga_strvec_has(dirs, real)) {
		free(real);
		return;
	}
	ga_strvec_push(dirs, real);
	if (depth > 5)
		return;
	file = ga_xstrfmt("%s/info/alternates", real);
	if (ga_buf_read_file(&alt, file) == 0 && alt.len) {
		char *text = ga_xstrndup(alt.ptr, alt.len);

		for (line = text; *line;) {
			char *end = strchrnul(line, '\n');

			if (*end)
				*end++ = '\0';
			if (*line && *line != '#')
				add_object_dir(dirs, line, real, depth + 1);
			line = end;
		}
		free(text);
	}
	free(file);
	ga_buf_release(&alt);
}

/* A multi-pack-index: its object count and the packs it covers. */
static int read_midx(const char *path, unsigned long *count,
		     struct ga_strvec *packs)
{
	struct ga_buf data = GA_BUF_INIT;
	const unsigned char *p;
	const unsigned char *oidf = NULL, *pnam = NULL;
	uint64_t pnam_end = 0;
	uint32_t nr_chunks, nr_packs, i;
	int error = -1;

	if (ga_buf_read_file(&data, path) < 0 || data.len < 12 + 20)
		goto done;
	p = (const unsigned char *)data.ptr;
	if (get_be32(p) != 0x4d494458 || p[4] != 1 || p[5] != 1)
		goto done;
	nr_chunks = p[6];
	nr_packs = get_be32(p + 8);
	if (12 + ((uint64_t)nr_chunks + 1) * 12 > data.len)
		goto done;
	for (i = 0; i < nr_chunks; i++) {
		const unsigned char *c = p + 12 + (size_t)i * 12;
		uint64_t off = ((uint64_t)get_be32(c + 4) << 32) |
			       get_be32(c + 8);
		uint64_t next = ((uint64_t)get_be32(c + 16) << 32) |
				get_be32(c + 20);

		if (off > data.len || next > data.len || next < off)
			goto done;
		if (get_be32(c) == 0x4f494446 && next - off >= 1024)
			oidf = p + off;
		else if (get_be32(c) == 0x504e414d) {
			pnam = p + off;
			pnam_end = next;
		}
	}
	if (!oidf || !pnam)
		goto done;
	*count = get_be32(oidf + 255 * 4);
	if (packs) {
		const char *s = (const char *)pnam;
		const char *end = data.ptr + pnam_end;

		for (i = 0; i < nr_packs && s < end; i++) {
			size_t n = strnlen(s, (size_t)(end - s));

			ga_strvec_push(packs, ga_xstrndup(s, n));
			s += n + 1;
		}
	}
	error = 0;
done:
	ga_buf_release(&data);
	return error;
}

/*
 * Objects in a pack .idx of ids of `rawsz` bytes, after git's sanity
 * checks (the object store's parser, pack.h); -1 if unusable.
 */
static long idx_object_count(const char *path, size_t rawsz)
{
	struct ga_pack_idx idx;
	struct stat st;
	uint32_t version;
	void *map;
	long result = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX &&
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
			0)) != MAP_FAILED) {
		if (ga_pack_idx_parse(&idx, map, (size_t)st.st_size, rawsz,
				      &version) == GA_IDX_OK)
			result = (long)idx.nr;
		munmap(map, (size_t)st.st_size);
	}
	close(fd);
	return result;
}

static int same_pack(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > 4 && (!strcmp(a + la - 4, ".idx")))
		la -= 4;
	else if (la > 5 && !strcmp(a + la - 5, ".pack"))
		la -= 5;
	if (lb > 4 && (!strcmp(b + lb - 4, ".idx")))
		lb -= 4;
	else if (lb > 5 && !strcmp(b + lb - 5, ".pack"))
		lb -= 5;
	return la == lb && !strncmp(a, b, la);
}

/*
 * git's repo_approximate_object_count(): objects in multi-pack indexes
 * plus packs they do not cover, over the repository's object directory
 * and its alternates.  Loose objects are not counted.
 */
static unsigned long approximate_object_count(git_repository *repo,
					      int use_midx, size_t rawsz)
{
	struct ga_strvec dirs = GA_STRVEC_INIT, head_packs = GA_STRVEC_INIT;
	const char *env = getenv("GIT_OBJECT_DIRECTORY");
	unsigned long count = 0;
	int have_head = 0;
	size_t d;

	if (env && *env) {
		add_object_dir(&dirs, env, NULL, 0);
	} else {
		char *common = repo_commondir(repo);
		char *objs = ga_xstrfmt("%sobjects", common);

		add_object_dir(&dirs, objs, NULL, 0);
		free(objs);
		free(common);
	}
	env = getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	if (env && dirs.nr) {
		char *copy = ga_xstrdup(env), *tok, *save = NULL;

		for (tok = strtok_r(copy, ":", &save); tok;
		     tok = strtok_r(NULL, ":", &save))
			add_object_dir(&dirs, tok, dirs.v[0], 1);
		free(copy);
	}
	for (d = 0; d < dirs.nr; d++) {
		char *pack_dir = ga_xstrfmt("%s/pack", dirs.v[d]);
		struct ga_strvec names = GA_STRVEC_INIT;
		DIR *dir;
		struct dirent *de;
		size_t i;

		if (use_midx) {
			char *m = ga_xstrfmt("%s/multi-pack-index", pack_dir);
			unsigned long n;

			if (read_midx(m, &n, have_head ? NULL : &head_packs)
			    == 0) {
				count += n;
				have_head = 1;
			}
			free(m);
		}
		if ((dir = opendir(pack_dir))) {
			while ((de = readdir(dir)))
				ga_strvec_push(&names, ga_xstrdup(de->d_name));
			closedir(dir);
		}
		ga_strvec_sort(&names);
		for (i = 0; i < names.nr; i++) {
			const char *nm = names.v[i];
			size_t len = strlen(nm), j;
			char *idx, *pack;
			struct stat st;
			int covered = 0;
			long n;

			if (len <= 4 || strcmp(nm + len - 4, ".idx"))
				continue;
			for (j = 0; j < head_packs.nr; j++)
				if (same_pack(head_packs.v[j], nm))
					covered = 1;
			if (covered)
				continue;
			idx = ga_xstrfmt("%s/%s", pack_dir, nm);
			pack = ga_xstrfmt("%s/%.*s.pack", pack_dir,
					  (int)(len - 4), nm);
			if (!stat(pack, &st) && S_ISREG(st.st_mode) &&
			    (n = idx_object_count(idx, rawsz)) >= 0)
				count += (unsigned long)n;
			free(idx);
			free(pack);
		}
		ga_strvec_clear(&names);
		free(pack_dir);
	}
	ga_strvec_clear(&dirs);
	ga_strvec_clear(&head_packs);
	return count;
}

/* ------------------------------------------------------------------ */
/* Abbreviations (git's object-name.c).                               */

int abbrev_init(struct abbrev *a, git_repository *repo, git_odb *odb,
		const struct ga_config *cfg)
{
	const char *v;
	int64_t n;

	a->repo = repo;
	a->odb = odb;
	a->cfg = cfg;
	a->hexsz = ga_hash_hexsz(odb_hash_algo(odb));
	a->len = -1;
	a->auto_len = 0;
	if (config_get_string(&v, cfg, "core.abbrev") < 0)
		return 0;
	if (!v) {
		ga_report(GA_REPORT_ERROR, "missing value for 'core.abbrev'");
		return ga_error_set("bad config variable 'core.abbrev'%s",
				    config_origin(cfg, "core.abbrev"));
	}
	if (!strcasecmp(v, "auto"))
		return 0;
	if (!*v || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off")) {
		a->len = (int)a->hexsz;
		return 0;
	}
	if (config_parse_int64(&n, "core.abbrev", v) < 0)
		return GA_ERROR;
	if (n > INT_MAX || n < INT_MIN)
		return config_bad_number("core.abbrev", v, 1);
	if (n < MIN_ABBREV || n > (int64_t)a->hexsz) {
		ga_report(GA_REPORT_ERROR, "abbrev length out of range: %d",
			  (int)n);
		return ga_error_set("bad config variable 'core.abbrev'%s",
				    config_origin(cfg, "core.abbrev"));
	}
	a->len = (int)n;
	return 0;
}

static unsigned msb(unsigned long v)
{
	unsigned r = 0;

	while (v >>= 1)
		r++;
	return r;
}

/* Does another object share the first `len` hex digits of oid? */
static int prefix_taken(struct abbrev *a, const struct ga_oid *oid, int len)
{
	struct ga_oid found;
	int error = odb_exists_prefix(&found, a->odb, oid, (size_t)len);

	if (error == GIT_EAMBIGUOUS)
		return 1;
	if (error == 0)
		return !ga_oid_equal(&found, oid);
	return 0;
}

void abbrev_add(struct ga_buf *sb, struct abbrev *a, const struct ga_oid *oid)
{
	char hex[GA_OID_MAX_HEXSZ + 1];
	int len = a->len;

	ga_oid_fmt(hex, oid);
	if (len < 0) {
		if (!a->auto_len) {
			int use_midx = 1;
			unsigned long count;

			if (config_get_bool(&use_midx, a->cfg,
					    "core.multipackindex") < 0)
				use_midx = 1;
			count = approximate_object_count(a->repo, use_midx,
					ga_hash_rawsz(odb_hash_algo(a->odb)));
			/*
			 * About 2^(msb+1) objects expect a collision at
			 * half as many bits; four bits per hex digit.
			 */
			a->auto_len = ((int)msb(count) + 1 + 1) / 2;
			if (a->auto_len < FALLBACK_ABBREV)
				a->auto_len = FALLBACK_ABBREV;
		}
		len = a->auto_len;
	}
	if (len == (int)a->hexsz || !len) {
		ga_buf_puts(sb, hex);
		return;
	}
	while (len < MAX_ABBREV && prefix_taken(a, oid, len))
		len++;
	ga_buf_put(sb, hex, (size_t)len);
}

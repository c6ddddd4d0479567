/*
 * rtstack.c: a stack of reftables (see rtstack.h).
 */
#include "refs/rtstack.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "garchive/common.h"

void rtstack_init(struct rtstack *st, const char *dir,
		  enum ga_hash_algo algo)
{
	memset(st, 0, sizeof(*st));
	st->dir = ga_xstrdup(dir);
	st->algo = algo;
}

static void close_tables(struct rtstack_table *tables, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (tables[i].map)
			munmap(tables[i].map, tables[i].map_len);
		free(tables[i].path);
	}
	free(tables);
}

void rtstack_unload(struct rtstack *st)
{
	close_tables(st->tables, st->nr);
	st->tables = NULL;
	st->nr = 0;
	st->loaded = 0;
}

void rtstack_release(struct rtstack *st)
{
	rtstack_unload(st);
	free(st->dir);
	memset(st, 0, sizeof(*st));
}

static int bad_list(const char *path)
{
	return ga_error_set("%s: corrupt reftable file", path);
}

int rtstack_parse_list(struct ga_strvec *out, const char *buf, size_t len,
		       const char *path)
{
	size_t pos = 0;

	if (len > RTSTACK_LIST_MAX)
		return bad_list(path);
	while (pos < len) {
		const char *lf = memchr(buf + pos, '\n', len - pos);
		size_t n = lf ? (size_t)(lf - (buf + pos)) : len - pos;

		if (n) {
			char *name = ga_xstrndup(buf + pos, n);

			/* Names are git's "<min>-<max>-<random>.ref". */
			if (strlen(name) != n || strchr(name, '/') ||
			    !strcmp(name, ".") || !strcmp(name, "..") ||
			    out->nr >= RTSTACK_MAX_TABLES) {
				free(name);
				return bad_list(path);
			}
			ga_strvec_push(out, name);
		}
		pos += n + 1;
	}
	return 0;
}

/*
 * Read the list; a missing one is an empty stack.  Returns 0 or
 * GA_ERROR.
 */
static int read_list(struct ga_strvec *out, const char *dir)
{
	struct ga_buf buf = GA_BUF_INIT;
	char *path = ga_path_join(dir, "tables.list");
	int fd = open(path, O_RDONLY | O_CLOEXEC), error = 0;
	struct stat st;

	if (fd < 0) {
		if (errno != ENOENT)
			error = ga_error_errno(errno, "could not open '%s'",
					       path);
		goto done;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > RTSTACK_LIST_MAX) {
		error = bad_list(path);
		goto done;
	}
	if (ga_buf_read_fd(&buf, fd) < 0) {
		error = ga_error_errno(errno, "could not read '%s'", path);
		goto done;
	}
	error = rtstack_parse_list(out, ga_buf_str(&buf, 0), buf.len, path);
done:
	if (fd >= 0)
		close(fd);
	ga_buf_release(&buf);
	free(path);
	return error;
}

/*
 * Map the table `name`.  Returns 0, 1 when it does not exist (another
 * process compacted it away), or GA_ERROR.
 */
static int open_table(struct rtstack_table *tab, const char *dir,
		      const char *name, enum ga_hash_algo algo)
{
	struct stat st;
	int fd;

	tab->path = ga_path_join(dir, name);
	fd = open(tab->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return ga_error_errno(errno, "could not open '%s'",
				      tab->path);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !st.st_size ||
	    (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return ga_error_set("%s: corrupt reftable file", tab->path);
	}
	tab->map_len = (size_t)st.st_size;
	tab->map = mmap(NULL, tab->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (tab->map == MAP_FAILED) {
		tab->map = NULL;
		return ga_error_errno(errno, "could not mmap '%s'", tab->path);
	}
	return reftable_table_init(&tab->t, tab->map, tab->map_len, algo,
				   tab->path);
}

/* Open every table of `names`: 0, 1 when one is missing, or GA_ERROR. */
static int open_all(struct rtstack *st, const struct ga_strvec *names)
{
	struct rtstack_table *tables;
	size_t i;
	int ret = 0;

	tables = ga_xcalloc(names->nr ? names->nr : 1, sizeof(*tables));
	for (i = 0; i < names->nr && !ret; i++)
		ret = open_table(&tables[i], st->dir, names->v[i], st->algo);
	if (ret) {
		close_tables(tables, i);
		return ret;
	}
	st->tables = tables;
	st->nr = names->nr;
	return 0;
}

static int same_names(const struct ga_strvec *a, const struct ga_strvec *b)
{
	size_t i;

	if (a->nr != b->nr)
		return 0;
	for (i = 0; i < a->nr; i++)
		if (strcmp(a->v[i], b->v[i]))
			return 0;
	return 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * One try: 0 when loaded, 1 when a table vanished while the list
 * changed (try again), or GA_ERROR.
 */
static int load_once(struct rtstack *st)
{
	struct ga_strvec names = GA_STRVEC_INIT, after = GA_STRVEC_INIT;
	char *missing = NULL;
	int ret;

	if ((ret = read_list(&names, st->dir)) < 0 ||
	    (ret = open_all(st, &names)) <= 0)
		goto done;
	/* A writer may have replaced the list: was it so? */
	if ((ret = read_list(&after, st->dir)) < 0)
		goto done;
	ret = 1;
	if (same_names(&names, &after)) {
		size_t i;

		for (i = 0; i < names.nr; i++) {
			char *path = ga_path_join(st->dir, names.v[i]);

			if (access(path, F_OK) < 0 && !missing)
				missing = path;
			else
				free(path);
		}
		ret = ga_error_set("%s: file does not exist",
				   missing ? missing : st->dir);
	}
done:
	free(missing);
	ga_strvec_clear(&names);
	ga_strvec_clear(&after);
	return ret;
}

int rtstack_load(struct rtstack *st)
{
	uint64_t deadline = now_ms() + RTSTACK_DEADLINE_MS, delay = 0;
	int tries, ret = 1;

	if (st->loaded)
		return 0;
	for (tries = 1; ret == 1; tries++) {
		if (tries > RTSTACK_MAX_TRIES ||
		    (tries > 3 && now_ms() >= deadline))
			return ga_error_set("%s: data concurrently modified",
					    st->dir);
		if (tries > 1) {
			st->retries++;
			delay = delay + delay / 2 + 1;
			sleep_ms(delay);
		}
		ret = load_once(st);
	}
	if (ret < 0)
		return ret;
	st->loaded = 1;
	return 0;
}

static void swap_records(struct reftable_record *a, struct reftable_record *b)
{
	struct reftable_record tmp = *a;

	*a = *b;
	*b = tmp;
}

static int is_deletion(const struct reftable_record *rec)
{
	return rec->value_type == 0;
}

static int key_is(const struct reftable_record *rec, const char *name,
		  size_t len)
{
	return rec->key.len == len && !memcmp(rec->key.ptr, name, len);
}

int rtstack_read_ref(struct reftable_record *rec, struct rtstack *st,
		     const char *name)
{
	struct reftable_cursor c;
	size_t i, len = strlen(name);
	int ret = GA_ENOTFOUND;

	memset(&c, 0, sizeof(c));
	for (i = st->nr; i-- > 0;) {
		ret = reftable_cursor_seek(&c, &st->tables[i].t,
					   REFTABLE_BLOCK_REF,
					   (const unsigned char *)name, len);
		if (!ret)
			ret = reftable_cursor_next(&c);
		if (ret < 0)
			break;
		if (!ret && key_is(&c.rec, name, len)) {
			ret = is_deletion(&c.rec) ? GA_ENOTFOUND : 0;
			if (!ret)
				swap_records(rec, &c.rec);
			break;
		}
		ret = GA_ENOTFOUND;
	}
	reftable_cursor_release(&c);
	return ret;
}

/* Cursors on every table, merged newest first. */
struct merged {
	struct reftable_cursor *cur;
	int *live;
	size_t nr;
	long last;		/* the cursor handed out, to move on */
};

static int merged_advance(struct merged *m, size_t i)
{
	int ret = reftable_cursor_next(&m->cur[i]);

	if (ret < 0)
		return ret;
	m->live[i] = !ret;
	return 0;
}

static int merged_start(struct merged *m, struct rtstack *st,
			unsigned char type, const unsigned char *want,
			size_t len)
{
	size_t i;
	int ret;

	m->nr = st->nr;
	m->cur = ga_xcalloc(m->nr ? m->nr : 1, sizeof(*m->cur));
	m->live = ga_xcalloc(m->nr ? m->nr : 1, sizeof(*m->live));
	m->last = -1;
	for (i = 0; i < m->nr; i++)
		if ((ret = reftable_cursor_seek(&m->cur[i], &st->tables[i].t,
						type, want, len)) < 0 ||
		    (ret = merged_advance(m, i)) < 0)
			return ret;
	return 0;
}

static int same_key(const struct reftable_record *a,
		    const struct reftable_record *b)
{
	return a->key.len == b->key.len &&
	       !memcmp(a->key.ptr, b->key.ptr, a->key.len);
}

/*
 * The next merged record, in m->cur[*out].rec: 0, 1 at the end, or
 * GA_ERROR.  Older records of the same key are passed over, and so is
 * a key whose newest record is a deletion.
 */
static int merged_next(size_t *out, struct merged *m)
{
	int ret;

	if (m->last >= 0 && (ret = merged_advance(m, (size_t)m->last)) < 0)
		return ret;
	m->last = -1;
	for (;;) {
		struct reftable_record *best = NULL;
		size_t i, b = 0;

		for (i = 0; i < m->nr; i++) {
			struct reftable_record *r = &m->cur[i].rec;

			/* On a tie the later (newer) table wins. */
			if (m->live[i] && (!best || reftable_key_cmp(
				(unsigned char *)r->key.ptr, r->key.len,
				(unsigned char *)best->key.ptr,
				best->key.len) <= 0)) {
				best = r;
				b = i;
			}
		}
		if (!best)
			return 1;
		for (i = 0; i < m->nr; i++)
			while (i != b && m->live[i] &&
			       same_key(&m->cur[i].rec, best))
				if ((ret = merged_advance(m, i)) < 0)
					return ret;
		if (!is_deletion(best)) {
			m->last = (long)b;
			*out = b;
			return 0;
		}
		if ((ret = merged_advance(m, b)) < 0)
			return ret;
	}
}

static void merged_release(struct merged *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		reftable_cursor_release(&m->cur[i]);
	free(m->cur);
	free(m->live);
	memset(m, 0, sizeof(*m));
}

struct rt_iter {
	struct refs_iter base;
	struct merged m;
	const struct rtstack *st;
	char *prefix;
};

static void set_raw(struct refs_raw *raw, const struct reftable_record *rec,
		    enum ga_hash_algo algo)
{
	ga_buf_setlen(&raw->name, 0);
	ga_buf_put(&raw->name, rec->key.ptr, rec->key.len);
	raw->flags = 0;
	ga_oid_clear(&raw->oid, algo);
	ga_oid_clear(&raw->peeled, algo);
	ga_buf_setlen(&raw->target, 0);
	switch (rec->value_type) {
	case REFTABLE_REF_VAL2:
		ga_oid_from_raw(&raw->peeled, algo, rec->id2);
		raw->flags |= REFS_PEELED;
		/* fall through */
	case REFTABLE_REF_VAL1:
		ga_oid_from_raw(&raw->oid, algo, rec->id1);
		break;
	case REFTABLE_REF_SYMREF:
		ga_buf_put(&raw->target, rec->target.ptr, rec->target.len);
		raw->flags |= REFS_ISSYMREF;
		break;
	}
}

static int rt_iter_next(struct refs_iter *it)
{
	struct rt_iter *ri = (struct rt_iter *)it;
	const struct reftable_record *rec;
	size_t i, n = strlen(ri->prefix);
	int ret;

	if ((ret = merged_next(&i, &ri->m)) != 0)
		return ret;
	rec = &ri->m.cur[i].rec;
	if (rec->key.len < n || memcmp(rec->key.ptr, ri->prefix, n))
		return 1;
	set_raw(&it->cur, rec, ri->st->algo);
	return 0;
}

static void rt_iter_free(struct refs_iter *it)
{
	struct rt_iter *ri = (struct rt_iter *)it;

	merged_release(&ri->m);
	refs_raw_release(&it->cur);
	free(ri->prefix);
	free(ri);
}

struct refs_iter *rtstack_ref_iter_new(struct rtstack *st,
				       const char *prefix)
{
	struct rt_iter *ri = ga_xcalloc(1, sizeof(*ri));

	ri->base.next = rt_iter_next;
	ri->base.free = rt_iter_free;
	ri->st = st;
	ri->prefix = ga_xstrdup(prefix);
	if (merged_start(&ri->m, st, REFTABLE_BLOCK_REF,
			 (const unsigned char *)prefix, strlen(prefix)) < 0) {
		rt_iter_free(&ri->base);
		return NULL;
	}
	return &ri->base;
}

/* Whether the log record is of ref `name` (`len` bytes). */
static int log_of(const struct reftable_record *rec, const char *name,
		  size_t len)
{
	return rec->key.len == len + 9 && !memcmp(rec->key.ptr, name, len);
}

/* A log record as git's reflog callbacks get it. */
struct log_entry {
	struct refs_reflog_entry e;
	struct ga_buf who;
	struct ga_buf message;
};

static int fill_entry(struct log_entry *le, const struct reftable_record *rec,
		      enum ga_hash_algo algo)
{
	ga_oid_from_raw(&le->e.old_oid, algo, rec->id1);
	ga_oid_from_raw(&le->e.new_oid, algo, rec->id2);
	/* Both null: the marker that a reflog exists, not an entry. */
	if (ga_oid_is_null(&le->e.old_oid) && ga_oid_is_null(&le->e.new_oid))
		return 0;
	ga_buf_setlen(&le->who, 0);
	ga_buf_printf(&le->who, "%s <%s>", ga_buf_str(&rec->who_name, 0),
		      ga_buf_str(&rec->who_email, 0));
	ga_buf_setlen(&le->message, 0);
	ga_buf_put(&le->message, rec->message.ptr, rec->message.len);
	le->e.who = ga_buf_str(&le->who, 0);
	le->e.message = ga_buf_str(&le->message, 0);
	le->e.timestamp = rec->time;
	le->e.tz = rec->tz;
	return 1;
}

static void log_entry_release(struct log_entry *le)
{
	ga_buf_release(&le->who);
	ga_buf_release(&le->message);
}

int rtstack_reflog_each(struct rtstack *st, const char *name,
			int newest_first, refs_reflog_fn fn, void *payload)
{
	struct merged m = { 0 };
	struct log_entry *all = NULL, one = { 0 };
	size_t len = strlen(name), nr = 0, alloc = 0, i;
	int ret, stop = 0;

	/* "<name>\0" sorts before every log key of <name>. */
	ret = merged_start(&m, st, REFTABLE_BLOCK_LOG,
			   (const unsigned char *)name, len + 1);
	while (!ret && !stop && !(ret = merged_next(&i, &m))) {
		const struct reftable_record *rec = &m.cur[i].rec;

		if (!log_of(rec, name, len))
			break;
		if (newest_first) {
			if (fill_entry(&one, rec, st->algo))
				stop = fn(&one.e, payload);
			continue;
		}
		/* Oldest first: gather them all, as git does. */
		GA_ALLOC_GROW(all, nr + 1, alloc);
		memset(&all[nr], 0, sizeof(*all));
		if (fill_entry(&all[nr], rec, st->algo))
			nr++;
		else
			log_entry_release(&all[nr]);
	}
	if (ret == 1)
		ret = 0;
	for (i = nr; !ret && !stop && i-- > 0;)
		stop = fn(&all[i].e, payload);
	for (i = 0; i < nr; i++)
		log_entry_release(&all[i]);
	free(all);
	log_entry_release(&one);
	merged_release(&m);
	return ret < 0 ? ret : stop;
}

int rtstack_reflog_exists(struct rtstack *st, const char *name)
{
	struct merged m = { 0 };
	size_t len = strlen(name), i;
	int ret;

	ret = merged_start(&m, st, REFTABLE_BLOCK_LOG,
			   (const unsigned char *)name, len + 1);
	if (!ret)
		ret = merged_next(&i, &m);
	if (!ret)
		ret = log_of(&m.cur[i].rec, name, len);
	else if (ret == 1)
		ret = 0;
	merged_release(&m);
	return ret;
}

/*
 * Fuzz the files format's small parsers (src/refs/files.c): a loose ref
 * file's content (git's parse_loose_ref_contents(): "ref: <target>", an
 * id and what may follow it), and a reflog file, read forwards and
 * backwards from a scratch file in chunks (lines across chunks, junk,
 * no final LF).  The first byte picks the hash (bit 0: SHA-256); the
 * rest is the file.
 *
 * A ref parses as a symbolic ref, an id, or EINVAL with REFS_ISBROKEN;
 * the reflog read backwards gives the entries read forwards, reversed.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "refs/files.h"

static char *path;

static void setup(void)
{
	char tmpl[] = "/tmp/ga-fuzz-loose-ref-XXXXXX";

	if (path)
		return;
	FUZZ_CHECK(mkdtemp(tmpl));
	path = ga_path_join(tmpl, "log");
}

static int add(const struct refs_reflog_entry *e, void *payload)
{
	struct ga_strvec *out = payload;
	char a[GA_OID_MAX_HEXSZ + 1], b[GA_OID_MAX_HEXSZ + 1];

	ga_strvec_push(out, ga_xstrfmt("%s %s %s %ju %d %s",
				       ga_oid_fmt(a, &e->old_oid),
				       ga_oid_fmt(b, &e->new_oid), e->who,
				       (uintmax_t)e->timestamp, e->tz,
				       e->message));
	return 0;
}

static void reflog(const uint8_t *data, size_t size, enum ga_hash_algo algo)
{
	struct ga_strvec fwd = GA_STRVEC_INIT, back = GA_STRVEC_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t i;

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(ga_write_all(fd, data, size) == 0);
	FUZZ_CHECK(close(fd) == 0);
	FUZZ_CHECK(!files_reflog_each(path, "HEAD", algo, 0, add, &fwd));
	FUZZ_CHECK(!files_reflog_each(path, "HEAD", algo, 1, add, &back));
	FUZZ_CHECK(fwd.nr == back.nr);
	for (i = 0; i < fwd.nr; i++)
		FUZZ_CHECK(!strcmp(fwd.v[i], back.v[back.nr - 1 - i]));
	ga_strvec_clear(&fwd);
	ga_strvec_clear(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum ga_hash_algo algo;
	struct refs_raw raw;
	char *text;
	int err;

	if (size < 1)
		return 0;
	setup();
	algo = data[0] & 1 ? GA_HASH_SHA256 : GA_HASH_SHA1;
	text = fuzz_cstr(data + 1, size - 1);
	memset(&raw, 0, sizeof(raw));
	err = files_parse_ref(&raw, text, strlen(text), algo);
	FUZZ_CHECK(!err || (err == EINVAL && (raw.flags & REFS_ISBROKEN)));
	if (!err && (raw.flags & REFS_ISSYMREF))
		FUZZ_CHECK(ga_starts_with(text, "ref:"));
	refs_raw_release(&raw);
	free(text);
	reflog(data + 1, size - 1, algo);
	return 0;
}

/*
 * Fuzz the tar header encoder with a round trip: entries built from the
 * input (files, executables, symlinks and directories with paths and
 * link targets of any length, up to a few hundred bytes) go through
 * tar_writer_new/add/finish into memory, and a small independent
 * reader (ustar with prefix/name split, pax 'x' and 'g' records) must
 * get every path, type, mode, size, link target and byte back, with
 * valid checksums and git's trailer.
 */
#include "fuzz.h"

#include "garchive/archive.h"
#include "garchive/sink.h"
#include "../unit/memsink.h"

#define HEX40 "0123456789abcdef0123456789abcdef01234567"
#define MAX_ENTRIES 24
#define BLOCK 512

struct input {
	const uint8_t *data;
	size_t size, pos;
};

static unsigned int next_byte(struct input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

/* `len` bytes of input, cycled when it runs out, with no NUL. */
static char *next_bytes(struct input *in, size_t len, char filler)
{
	char *s = ga_xmalloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		char c = in->size ? (char)in->data[(in->pos + i) % in->size]
				  : filler;

		s[i] = c ? c : filler;
	}
	s[len] = '\0';
	in->pos += len < in->size - in->pos ? len : in->size - in->pos;
	return s;
}

static uint64_t octal(const unsigned char *f, size_t width)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < width && f[i] >= '0' && f[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(f[i] - '0');
	FUZZ_CHECK(i < width && (f[i] == '\0' || f[i] == ' '));
	return v;
}

static int all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Parse pax records; keeps "path", "linkpath" and "comment". */
struct pax {
	char *path, *linkpath, *comment;
	size_t path_len, linkpath_len;
};

static void pax_parse(struct pax *pax, const unsigned char *p, size_t len)
{
	while (len) {
		size_t rec = 0, i = 0, eq;
		const char *kw, *val;
		size_t vlen;

		while (i < len && p[i] >= '0' && p[i] <= '9')
			rec = rec * 10 + (size_t)(p[i++] - '0');
		FUZZ_CHECK(i > 0 && i < len && p[i] == ' ');
		FUZZ_CHECK(rec > i + 1 && rec <= len && p[rec - 1] == '\n');
		kw = (const char *)p + i + 1;
		for (eq = i + 1; eq < rec && p[eq] != '='; eq++)
			;
		FUZZ_CHECK(eq < rec);
		val = (const char *)p + eq + 1;
		vlen = rec - 1 - (eq + 1);
		if (!strncmp(kw, "path=", 5)) {
			pax->path = ga_xstrndup(val, vlen);
			pax->path_len = vlen;
		} else if (!strncmp(kw, "linkpath=", 9)) {
			pax->linkpath = ga_xstrndup(val, vlen);
			pax->linkpath_len = vlen;
		} else if (!strncmp(kw, "comment=", 8)) {
			pax->comment = ga_xstrndup(val, vlen);
		}
		p += rec;
		len -= rec;
	}
}

static void pax_clear(struct pax *pax)
{
	free(pax->path);
	free(pax->linkpath);
	free(pax->comment);
	memset(pax, 0, sizeof(*pax));
}

static void check_header_sum(const unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	FUZZ_CHECK(octal(h + 148, 8) == sum);
	FUZZ_CHECK(!memcmp(h + 257, "ustar", 6) && !memcmp(h + 263, "00", 2));
}

static void read_back(const struct ga_buf *tar, struct archive_entry *e,
		      size_t nr, const char *commit_hex)
{
	const unsigned char *p = (const unsigned char *)tar->ptr;
	struct pax pax = { 0 };
	size_t off = 0, i = 0;
	int seen_global = 0;

	FUZZ_CHECK(tar->len % 10240 == 0);
	for (;;) {
		const unsigned char *h = p + off;
		uint64_t size;
		char type;

		FUZZ_CHECK(off + BLOCK <= tar->len);
		if (all_zero(h, BLOCK))
			break;
		check_header_sum(h);
		type = (char)h[156];
		size = octal(h + 124, 12);
		FUZZ_CHECK(off + BLOCK + size <= tar->len);
		if (type == 'g') {
			FUZZ_CHECK(off == 0 && !seen_global);
			seen_global = 1;
			pax_parse(&pax, h + BLOCK, (size_t)size);
			FUZZ_CHECK(commit_hex && pax.comment &&
				   !strcmp(pax.comment, commit_hex));
			pax_clear(&pax);
		} else if (type == 'x') {
			pax_parse(&pax, h + BLOCK, (size_t)size);
		} else {
			char name[300];
			const char *path = name;
			size_t plen, nlen = strnlen((const char *)h, 100);
			size_t pre = strnlen((const char *)h + 345, 155);
			uint64_t mode = octal(h + 100, 8);

			FUZZ_CHECK(i < nr);
			if (pre) {
				memcpy(name, h + 345, pre);
				name[pre] = '/';
				memcpy(name + pre + 1, h, nlen);
				plen = pre + 1 + nlen;
			} else {
				memcpy(name, h, nlen);
				plen = nlen;
			}
			if (pax.path) {
				path = pax.path;
				plen = pax.path_len;
			}
			FUZZ_CHECK(plen == e[i].path_len &&
				   !memcmp(path, e[i].path, plen));
			switch (e[i].mode) {
			case ARCHIVE_MODE_DIR:
				FUZZ_CHECK(type == '5' && mode == 0775 &&
					   size == 0);
				break;
			case ARCHIVE_MODE_SYMLINK: {
				const char *link = (const char *)h + 157;
				size_t llen = strnlen(link, 100);

				if (pax.linkpath) {
					link = pax.linkpath;
					llen = pax.linkpath_len;
				}
				FUZZ_CHECK(type == '2' && mode == 0777 &&
					   size == 0);
				FUZZ_CHECK(llen == e[i].size &&
					   !memcmp(link, e[i].data, llen));
				break;
			}
			default:
				FUZZ_CHECK(type == '0');
				FUZZ_CHECK(mode ==
					   (e[i].mode == ARCHIVE_MODE_EXEC ?
					    0775u : 0664u));
				FUZZ_CHECK(size == e[i].size);
				FUZZ_CHECK(!memcmp(h + BLOCK, e[i].data,
						   (size_t)size));
			}
			FUZZ_CHECK(octal(h + 136, 12) == 1112911993);
			pax_clear(&pax);
			i++;
		}
		off += BLOCK + (size_t)GA_ALIGN_UP(size, BLOCK);
	}
	FUZZ_CHECK(i == nr);
	FUZZ_CHECK(seen_global == (commit_hex != NULL));
	/* git's end: zeros to the end of a 10240-byte block, 1024 at least. */
	FUZZ_CHECK(tar->len - off >= 2 * BLOCK);
	FUZZ_CHECK(all_zero(p + off, tar->len - off));
	pax_clear(&pax);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size, 0 };
	struct archive_entry e[MAX_ENTRIES];
	struct archive_args args;
	struct archive_writer *w = NULL;
	struct ga_buf out = GA_BUF_INIT;
	struct mem_sink sink;
	size_t nr = 0, i;
	unsigned int flags = next_byte(&in);

	memset(&args, 0, sizeof(args));
	args.mtime = 1112911993;
	args.level = -1;
	args.tar_umask = 002;
	args.commit_hex = flags & 1 ? HEX40 : NULL;
	mem_sink_init(&sink, &out);

	while (in.pos < in.size && nr < MAX_ENTRIES) {
		unsigned int kind = next_byte(&in) % 4;
		size_t plen = (next_byte(&in) | next_byte(&in) << 8) % 400 + 1;
		size_t dlen = (next_byte(&in) | next_byte(&in) << 8) % 1200;
		char *path = next_bytes(&in, plen, 'p');
		struct archive_entry *x = &e[nr++];

		memset(x, 0, sizeof(*x));
		x->oid_hex = HEX40;
		if (kind == 3) {
			x->mode = ARCHIVE_MODE_DIR;
			x->path = ga_xstrfmt("%s/", path);
			free(path);
		} else {
			x->mode = kind == 2 ? ARCHIVE_MODE_SYMLINK
					    : kind == 1 ? ARCHIVE_MODE_EXEC
							: ARCHIVE_MODE_FILE;
			/* Only directories end in '/'. */
			x->path = plen && path[plen - 1] == '/'
				  ? ga_xstrfmt("%sf", path) : path;
			if (x->path != path)
				free(path);
			x->data = (unsigned char *)next_bytes(&in, dlen, 'd');
			x->size = dlen;
		}
		x->path_len = strlen(x->path);
	}

	FUZZ_CHECK(tar_writer_new(&w, &sink.base, &args) == 0);
	for (i = 0; i < nr; i++)
		FUZZ_CHECK(w->add(w, &e[i]) == 0);
	FUZZ_CHECK(w->finish(w) == 0);
	w->free(w);
	read_back(&out, e, nr, args.commit_hex);

	for (i = 0; i < nr; i++) {
		free((char *)e[i].path);
		free(e[i].data);
	}
	ga_buf_release(&out);
	return 0;
}

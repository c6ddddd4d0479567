/*
 * Unit tests of the gzip engine (garchive/gzip.h), without GNU gzip:
 * the exact small outputs gzip 1.12 writes (gnu-gzip-deflate.md 1.4),
 * the same bytes whatever the writes, thread counts and chunk sizes,
 * streams zlib inflates back, memory that does not grow with the input,
 * and the parsing of `garchive gzip` command lines.  t5300 compares
 * with GNU gzip itself.
 */
#include "memsink.h"
#include "tap.h"

#include "garchive/common.h"
#include "garchive/sink.h"
#include "garchive/gzip.h"
#include "gzip-options.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

/*
 * Under AddressSanitizer freed memory waits in a quarantine, so the
 * peak grows anyway; under valgrind (make valgrind sets the variable)
 * the sizes are cut, to keep the run short.
 */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static int under_valgrind(void)
{
	return getenv("GARCHIVE_VALGRIND") != NULL;
}

static struct ga_buf compress_buf(const void *data, size_t len, int level,
				  int threads, size_t chunk, size_t step)
{
	struct gzip_options o = { level, threads, chunk, NULL };
	struct ga_buf out = GA_BUF_INIT;
	struct mem_sink m;
	struct sink *gz = NULL;
	size_t i;

	mem_sink_init(&m, &out);
	if (gzip_sink_open(&gz, &o, &m.base) < 0)
		return out;
	for (i = 0; i < len; i += step)
		gz->write(gz, (const char *)data + i,
			  len - i < step ? len - i : step);
	gz->finish(gz);
	gz->free(gz);
	return out;
}

static int inflates_to(const struct ga_buf *gz, const void *data,
		       size_t len)
{
	z_stream zs;
	unsigned char *back = malloc(len + 1);
	int good;

	memset(&zs, 0, sizeof(zs));
	inflateInit2(&zs, 16 + 15);
	zs.next_in = (Bytef *)gz->ptr;
	zs.avail_in = (uInt)gz->len;
	zs.next_out = back;
	zs.avail_out = (uInt)len + 1;
	good = inflate(&zs, Z_FINISH) == Z_STREAM_END &&
	       zs.total_out == len && !zs.avail_in &&
	       (!len || !memcmp(back, data, len));
	inflateEnd(&zs);
	free(back);
	return good;
}

/* gnu-gzip-deflate.md 1.4: what gzip 1.12 writes for tiny inputs. */
static void test_small_outputs(void)
{
	static const struct {
		const char *in;
		size_t len;
		int level;
		const char *deflate;
		size_t dlen;
		unsigned char xfl;
	} cases[] = {
		{ "", 0, 6, "\x03\x00", 2, 0 },
		{ "", 0, 1, "\x03\x00", 2, 4 },
		{ "", 0, 9, "\x03\x00", 2, 2 },
		{ "a", 1, 6, "\x4b\x04\x00", 3, 0 },
		{ "ab", 2, 6, "\x4b\x4c\x02\x00", 4, 0 },
		{ "abc", 3, 6, "\x4b\x4c\x4a\x06\x00", 5, 0 },
		{ "aaaa", 4, 6, "\x4b\x4c\x4c\x4c\x04\x00", 6, 0 },
		{ "\0", 1, 6, "\x63\x00\x00", 3, 0 },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		struct ga_buf got = compress_buf(cases[i].in, cases[i].len,
						 cases[i].level, 1, 0, 1);
		unsigned char want[32];
		uint32_t crc = (uint32_t)crc32(0, (const Bytef *)cases[i].in,
					       (uInt)cases[i].len);

		memcpy(want, "\x1f\x8b\x08\x00\0\0\0\0", 8);
		want[8] = cases[i].xfl;
		want[9] = 3;
		memcpy(want + 10, cases[i].deflate, cases[i].dlen);
		ga_put_le32(want + 10 + cases[i].dlen, crc);
		ga_put_le32(want + 14 + cases[i].dlen, (uint32_t)cases[i].len);
		is_mem(got.ptr, got.len, want, 18 + cases[i].dlen,
		       "gzip 1.12's bytes for a tiny input");
		ga_buf_release(&got);
	}
}

/* Text-like, binary-like and runs, from a fixed generator. */
static unsigned char *make_data(size_t len, unsigned seed)
{
	static const char *words[] = { "garchive ", "gzip ", "deflate ",
		"window ", "chunk ", "token\n", "\t", "match ", "lazy ", "; " };
	unsigned char *d = malloc(len);
	uint32_t x = seed * 2654435761u + 7;
	size_t i = 0;

	while (i < len) {
		unsigned kind, n, k;

		x = x * 1103515245u + 12345u;
		kind = (x >> 16) % 8;
		n = 1 + (x >> 8) % 4000;
		for (k = 0; k < n && i < len; k++) {
			x = x * 1103515245u + 12345u;
			if (kind < 4) {
				const char *w = words[(x >> 16) % 10];

				while (*w && i < len)
					d[i++] = (unsigned char)*w++;
			} else if (kind == 4) {
				d[i++] = (unsigned char)(x >> 24);
			} else if (kind == 5) {
				d[i++] = 0;
			} else {
				d[i++] = (unsigned char)(k % 7 + 'a');
			}
		}
	}
	return d;
}

static void test_same_bytes(void)
{
	static const size_t sizes[] = { 1000, 70001, 300000, 1200000 };
	static const struct {
		int threads;
		size_t chunk, step;
	} ways[] = {
		{ 1, 0, 1 }, { 1, 0, 4093 }, { 2, 0, 65536 },
		{ 3, 32768, 777 }, { 4, 65536, 100000 }, { 2, 98304, 1 << 20 },
	};
	int levels[] = { 1, 3, 4, 6, 9 };
	size_t s, w, l;

	for (s = 0; s < GA_ARRAY_SIZE(sizes); s++) {
		unsigned char *d = make_data(sizes[s], (unsigned)s);

		for (l = 0; l < GA_ARRAY_SIZE(levels); l++) {
			struct ga_buf first = compress_buf(d, sizes[s],
							   levels[l], 1, 0,
							   1 << 16);
			int same = 1;

			for (w = 0; w < GA_ARRAY_SIZE(ways); w++) {
				struct ga_buf other;

				/* Slow, and it adds nothing: */
				if (sizes[s] > 300000 && ways[w].step < 100)
					continue;
				if (under_valgrind() && sizes[s] > 300000)
					continue;
				other = compress_buf(d, sizes[s], levels[l],
						     ways[w].threads,
						     ways[w].chunk,
						     ways[w].step);
				same &= other.len == first.len &&
					!memcmp(other.ptr, first.ptr,
						first.len);
				ga_buf_release(&other);
			}
			ok(same, "%zu bytes at -%d: the same bytes with any "
			   "writes, threads and chunks", sizes[s], levels[l]);
			ok(inflates_to(&first, d, sizes[s]),
			   "%zu bytes at -%d: zlib inflates them back",
			   sizes[s], levels[l]);
			ga_buf_release(&first);
		}
		free(d);
	}
}

/* A sink that counts and forgets. */
struct count_sink {
	struct sink base;
	size_t bytes;
};

static int count_write(struct sink *s, const void *buf, size_t len)
{
	(void)buf;
	((struct count_sink *)s)->bytes += len;
	return 0;
}

static long max_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void test_bounded_memory(void)
{
	struct gzip_options o = { 1, 2, 0, NULL };
	struct count_sink c = { { count_write, mem_sink_finish,
				  mem_sink_free }, 0 };
	struct sink *gz = NULL;
	unsigned char *d = make_data(1 << 20, 42);
	long before;
	int i;

	if (UNDER_ASAN || under_valgrind()) {
		ok(1, "# skip peak memory: not measurable here");
		free(d);
		return;
	}
	/* Warm up: the first megabytes set up what stays allocated. */
	gzip_sink_open(&gz, &o, &c.base);
	for (i = 0; i < 16; i++)
		gz->write(gz, d, 1 << 20);
	before = max_rss_kib();
	for (i = 0; i < 112; i++) {
		d[i] ^= 1;
		gz->write(gz, d, 1 << 20);
	}
	gz->finish(gz);
	gz->free(gz);
	ok(max_rss_kib() - before < 16 * 1024,
	   "128 MiB through two threads: peak memory grew by %ld KiB",
	   max_rss_kib() - before);
	free(d);
}

/* A line's options with `level` appended, as the sink reads them. */
static int line_options(struct gzip_options *o, const char *cmd, int level)
{
	struct gzip_line *line = gzip_line_parse(cmd);
	int r = line ? gzip_line_options(o, line, level) : 0;

	gzip_line_free(line);
	return r;
}

static void test_command_match(void)
{
	static const struct {
		const char *cmd;
		int level_arg;	/* appended as " -N", -1: nothing */
		int result, level, threads;
	} cases[] = {
		{ "garchive gzip -cn", -1, 1, -1, -1 },
		{ "garchive gzip -cn -9", -1, 1, 9, -1 },
		{ "/usr/local/bin/garchive gzip -c -n -1", -1, 1, 1, -1 },
		{ "garchive  gzip\t--threads=3 -cn -6", -1, 1, 6, 3 },
		{ "garchive gzip --fast -cn --best", -1, 1, 9, -1 },
		{ "garchive gzip -cn | cat", -1, 0, 0, 0 },
		{ "garchive gzip -cn file", -1, 0, 0, 0 },
		{ "garchive gzip -cn -- -", -1, 0, 0, 0 },
		{ "garchive gzip --help", -1, 0, 0, 0 },
		{ "VAR=1 garchive gzip -cn", -1, 0, 0, 0 },
		{ "'garchive' gzip -cn", -1, 0, 0, 0 },
		{ "gzip -cn", -1, 0, 0, 0 },
		{ "garchive", -1, 0, 0, 0 },
		{ "garchive gunzip", -1, 0, 0, 0 },
		{ "ggarchive gzip -cn", -1, 0, 0, 0 },
		{ "garchive gzip -cn -0", -1, GA_EUSAGE, 0, 0 },
		{ "garchive gzip --bogus", -1, GA_EUSAGE, 0, 0 },
		/* The level is one more word of the same parse. */
		{ "garchive gzip -cn9", 3, 1, 3, -1 },
		{ "garchive gzip -cn", 0, GA_EUSAGE, 0, 0 },
		{ "garchive gzip --threads", -1, GA_EUSAGE, 0, 0 },
		{ "garchive gzip --threads", 5, GA_EUSAGE, 0, 0 },
		{ "garchive gzip --chunk-size", 5, GA_EUSAGE, 0, 0 },
		{ "garchive gzip --", 5, 0, 0, 0 },
		{ "garchive gzip --bogus", 5, GA_EUSAGE, 0, 0 },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		struct gzip_options o = { 0, 0, 0, NULL };
		int r = line_options(&o, cases[i].cmd, cases[i].level_arg);

		ok(r == cases[i].result &&
		   (r != 1 || (o.level == cases[i].level &&
			       o.threads == cases[i].threads)),
		   "command line '%s' + %d: %d (level %d, threads %d)",
		   cases[i].cmd, cases[i].level_arg, r, o.level, o.threads);
		ga_error_clear();
	}
}

/* The messages a line's parse leaves, as `garchive gzip` prints them. */
static void test_line_messages(void)
{
	static const struct {
		const char *cmd;
		int level_arg;
		const char *message;
	} cases[] = {
		{ "garchive gzip --threads", 5, "invalid number of threads: "
		  "'-5'\nTry 'garchive gzip --help' for more information." },
		{ "garchive gzip --threads", -1, "option '--threads' requires "
		  "an argument\nTry 'garchive gzip --help' for more "
		  "information." },
		{ "garchive gzip -x --threads", 5, "invalid option -- 'x'\n"
		  "Try 'garchive gzip --help' for more information." },
		{ "garchive gzip -c", 0, "invalid option -- '0'\n"
		  "Try 'garchive gzip --help' for more information." },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		struct gzip_options o;
		int r = line_options(&o, cases[i].cmd, cases[i].level_arg);

		ok(r == GA_EUSAGE &&
		   !strcmp(ga_error_message(), cases[i].message),
		   "command line '%s' + %d: %s", cases[i].cmd,
		   cases[i].level_arg, ga_error_message());
		ga_error_clear();
	}
}

static void test_command_parse(void)
{
	static const struct {
		const char *args;
		const char *error;
	} cases[] = {
		{ "-cn9", NULL },
		{ "--std --no-na --best", NULL },
		{ "--st", "option '--st' is ambiguous\n"
			  "Try 'garchive gzip --help' for more information." },
		{ "--threads", "option '--threads' requires an argument\n"
			       "Try 'garchive gzip --help' for more "
			       "information." },
		{ "--fast=1", "option '--fast' doesn't allow an argument\n"
			      "Try 'garchive gzip --help' for more "
			      "information." },
		{ "-d", "invalid option -- 'd'\n"
			"Try 'garchive gzip --help' for more information." },
		{ "--chunk-size=1000", "invalid chunk size: '1000'\n"
				       "Try 'garchive gzip --help' for more "
				       "information." },
	};
	size_t i;

	for (i = 0; i < GA_ARRAY_SIZE(cases); i++) {
		char *copy = strdup(cases[i].args), *save = NULL, *w;
		char *argv[16] = { "gzip" };
		int argc = 1, r;
		struct gzip_command cmd;

		for (w = strtok_r(copy, " ", &save); w;
		     w = strtok_r(NULL, " ", &save))
			argv[argc++] = w;
		r = gzip_command_parse(&cmd, argc, argv);
		if (cases[i].error)
			ok(r == GA_EUSAGE &&
			   !strcmp(ga_error_message(), cases[i].error),
			   "gzip %s: refused with gzip's kind of message",
			   cases[i].args);
		else
			ok(r == 0 && cmd.opts.level == 9 && !cmd.files[0],
			   "gzip %s: level 9", cases[i].args);
		gzip_command_release(&cmd);
		ga_error_clear();
		free(copy);
	}
}

int main(void)
{
	test_small_outputs();
	test_same_bytes();
	test_bounded_memory();
	test_command_match();
	test_line_messages();
	test_command_parse();
	return tap_done();
}

/*
 * Fuzz the long-running filter protocol client (filter.<driver>.process,
 * protocol version 2): the input is everything the filter process says,
 * handshake and answers, played back by `cat` as the configured process.
 * The client sends its handshake and two smudge requests and must fail
 * with a message, or succeed, on whatever comes back.  The first byte
 * picks filter.<driver>.required.
 */
#include "fuzz.h"

#include "attr.h"
#include "convert.h"
#include "garchive/config.h"

#include <git2.h>
#include <signal.h>
#include <unistd.h>

#define HEX40 "0123456789abcdef0123456789abcdef01234567"

static char script[64];
static struct ga_config *cfg[2];

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)kind;
	(void)payload;
	FUZZ_CHECK(msg != NULL);
}

static void setup(void)
{
	char *over[2][2];
	int fd, i;

	git_libgit2_init();
	/* As main: a filter that goes away is EPIPE, not a death. */
	signal(SIGPIPE, SIG_IGN);
	ga_set_report_handler(report, NULL);
	strcpy(script, "/tmp/garchive-fuzz-process-XXXXXX");
	fd = mkstemp(script);
	FUZZ_CHECK(fd >= 0);
	close(fd);
	for (i = 0; i < 2; i++) {
		over[i][0] = ga_xstrfmt("filter.fz.process=cat %s", script);
		over[i][1] = ga_xstrfmt("filter.fz.required=%s",
					i ? "true" : "false");
		FUZZ_CHECK(config_load(&cfg[i], NULL,
				       (const char *const *)over[i], 2) == 0);
		free(over[i][0]);
		free(over[i][1]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct convert_meta meta = { "refs/heads/main", HEX40 };
	struct attr_value attrs[CONVERT_ATTR_NR];
	struct ga_buf out = GA_BUF_INIT;
	struct convert *conv = NULL;
	FILE *f;
	int error, i;

	if (!size)
		return 0;
	if (!cfg[0])
		setup();
	f = fopen(script, "wb");
	FUZZ_CHECK(f && fwrite(data + 1, 1, size - 1, f) == size - 1 &&
		   fclose(f) == 0);

	memset(attrs, 0, sizeof(attrs));
	attrs[CONVERT_ATTR_FILTER].state = ATTR_VALUE;
	attrs[CONVERT_ATTR_FILTER].value = "fz";
	FUZZ_CHECK(convert_new(&conv, cfg[data[0] & 1], "/tmp", &meta) == 0);
	for (i = 0; i < 2; i++) {
		int changed;

		ga_buf_setlen(&out, 0);
		error = convert_maybe(&out, &changed, conv,
				      i ? "dir/b.txt" : "a", HEX40,
				      (const unsigned char *)"blob content\n",
				      13, attrs);
		FUZZ_CHECK(error == 0 || *ga_error_message());
		if (getenv("FUZZ_DEBUG"))
			fprintf(stderr, "blob %d: %d [%.*s] %s\n", i, error,
				(int)out.len, out.ptr ? out.ptr : "",
				ga_error_message());
		ga_error_clear();
	}
	convert_free(conv);
	ga_buf_release(&out);
	ga_error_clear();
	return 0;
}

/*
 * Fuzz the pkt-line reader and the side-band demultiplexer that
 * `garchive --remote` runs on what a server sends: the input is the
 * byte stream from the server.  The first byte picks which reader and
 * its flags.  Output and messages go to /dev/null.
 */
#include "fuzz.h"

#include "pktline.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)kind;
	(void)payload;
	FUZZ_CHECK(msg != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[PKT_MAX + 1];
	struct sideband_style style = { "archive", 0, 0 };
	int in, null, r;
	size_t len;

	if (!size)
		return 0;
	ga_set_report_handler(report, NULL);
	in = memfd_create("pkt", MFD_CLOEXEC);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	FUZZ_CHECK(in >= 0 && null >= 0);
	FUZZ_CHECK(write(in, data + 1, size - 1) == (ssize_t)(size - 1));
	FUZZ_CHECK(lseek(in, 0, SEEK_SET) == 0);

	if (data[0] & 1) {
		style.color = (data[0] >> 1) & 1;
		style.ansi = (data[0] >> 2) & 1;
		r = sideband_recv(in, null, null, &style);
		FUZZ_CHECK(r <= 0);
	} else {
		unsigned flags = (data[0] >> 1) & 7;
		size_t cap = data[0] & 0x10 ? 128 : sizeof(buf);

		do {
			len = (size_t)-1;
			r = pkt_read(in, buf, cap, &len, flags);
			if (r >= 0) {
				FUZZ_CHECK(len < cap);
				FUZZ_CHECK(r != PKT_NORMAL || buf[len] == '\0');
			}
		} while (r == PKT_NORMAL || r == PKT_FLUSH ||
			 r == PKT_DELIM || r == PKT_RESPONSE_END);
	}
	ga_error_clear();
	close(in);
	close(null);
	return 0;
}

/*
 * progress.c: the progress meter (see progress.h).  The format is git's
 * (progress.c and strbuf_humanise_bytes()): a right-aligned percentage,
 * the count, then sizes in KiB, MiB and GiB with two decimals.
 */
#include "progress.h"
#include "garchive/common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Redraw at most this often, and wait this long for the first line. */
#define PROGRESS_INTERVAL_NS	250000000LL
/* Throughput over the last few redraws. */
#define PROGRESS_SAMPLES	8

struct progress {
	const char *title;
	uint64_t total;
	int fd;
	int64_t start, last;		/* ns, monotonic */
	size_t drawn;			/* length of the line on screen */
	int64_t sample_t[PROGRESS_SAMPLES];
	uint64_t sample_b[PROGRESS_SAMPLES];
	size_t nr_samples, next_sample;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct progress *progress_start(const char *title, uint64_t total, int fd)
{
	struct progress *p = ga_xcalloc(1, sizeof(*p));

	p->title = title;
	p->total = total;
	p->fd = fd;
	p->start = p->last = now_ns();
	return p;
}

void progress_set_total(struct progress *p, uint64_t total)
{
	if (p)
		p->total = total;
}

/* git's strbuf_humanise(): "1.21 GiB", "512 bytes", "48.00 MiB/s". */
static void humanise(struct ga_buf *b, uint64_t n, const char *suffix)
{
	if (n >= (uint64_t)1 << 30) {
		uint64_t x = n + 5368709;	/* round to 1/100 */

		ga_buf_printf(b, "%" PRIu64 ".%02" PRIu64 " GiB%s", x >> 30,
			      (x & ((1 << 30) - 1)) / 10737419, suffix);
	} else if (n >= (uint64_t)1 << 20) {
		uint64_t x = n + 5243;

		ga_buf_printf(b, "%" PRIu64 ".%02" PRIu64 " MiB%s", x >> 20,
			      ((x & ((1 << 20) - 1)) * 100) >> 20, suffix);
	} else if (n >= 1024) {
		uint64_t x = n + 5;

		ga_buf_printf(b, "%" PRIu64 ".%02" PRIu64 " KiB%s", x >> 10,
			      ((x & 1023) * 100) >> 10, suffix);
	} else {
		ga_buf_printf(b, "%" PRIu64 " %s%s", n,
			      n == 1 ? "byte" : "bytes", suffix);
	}
}

/* Bytes per second over the samples kept, or over the whole run. */
static uint64_t rate(const struct progress *p, int64_t t, uint64_t bytes,
		     int whole)
{
	int64_t t0 = p->start;
	uint64_t b0 = 0;

	if (!whole && p->nr_samples) {
		size_t oldest = p->nr_samples < PROGRESS_SAMPLES ? 0
							       : p->next_sample;

		/* The first sample is now: count from the start then. */
		if (p->sample_t[oldest] < t) {
			t0 = p->sample_t[oldest];
			b0 = p->sample_b[oldest];
		}
	}
	if (t <= t0)
		return 0;
	return (uint64_t)((double)(bytes - b0) * 1e9 / (double)(t - t0));
}

static void draw(struct progress *p, uint64_t files, uint64_t bytes,
		 int64_t t, int done)
{
	struct ga_buf line = GA_BUF_INIT;
	size_t len;

	ga_buf_printf(&line, "%s: ", p->title);
	if (p->total) {
		uint64_t pct = files >= p->total ? 100 : files * 100 / p->total;

		ga_buf_printf(&line, "%3" PRIu64 "%% (%" PRIu64 "/%" PRIu64
			      " files)", pct, files, p->total);
	} else {
		ga_buf_printf(&line, "%" PRIu64 " files", files);
	}
	ga_buf_puts(&line, ", ");
	humanise(&line, bytes, "");
	if (t > p->start) {
		ga_buf_puts(&line, " | ");
		humanise(&line, rate(p, t, bytes, done), "/s");
	}
	len = line.len;
	if (done)
		ga_buf_puts(&line, ", done.");
	/* Blank what is left of a longer line before. */
	while (line.len < p->drawn)
		ga_buf_putc(&line, ' ');
	ga_buf_putc(&line, done ? '\n' : '\r');
	p->drawn = len;
	/* Best effort: a meter that cannot be drawn is no error. */
	if (ga_write_all(p->fd, line.ptr, line.len) < 0)
		p->drawn = 0;
	ga_buf_release(&line);
}

void progress_update(struct progress *p, uint64_t files, uint64_t bytes)
{
	int64_t t;

	if (!p)
		return;
	t = now_ns();
	if (t - p->last < PROGRESS_INTERVAL_NS)
		return;
	p->last = t;
	p->sample_t[p->next_sample] = t;
	p->sample_b[p->next_sample] = bytes;
	p->next_sample = (p->next_sample + 1) % PROGRESS_SAMPLES;
	if (p->nr_samples < PROGRESS_SAMPLES)
		p->nr_samples++;
	draw(p, files, bytes, t, 0);
}

void progress_done(struct progress *p, uint64_t files, uint64_t bytes)
{
	if (!p)
		return;
	p->total = files;
	draw(p, files, bytes, now_ns(), 1);
	free(p);
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	/* Leave the last line for the error message to follow. */
	if (p->drawn && ga_write_all(p->fd, "\n", 1) < 0)
		p->drawn = 0;
	free(p);
}

int progress_wanted(int setting, int out_fd)
{
	struct stat err_st, out_st;

	if (setting >= 0)
		return setting;
	if (!isatty(2))
		return 0;
	/* The archive on the same terminal: a meter would garble it. */
	if (isatty(out_fd) && fstat(out_fd, &out_st) == 0 &&
	    fstat(2, &err_st) == 0 && out_st.st_rdev == err_st.st_rdev)
		return 0;
	return 1;
}

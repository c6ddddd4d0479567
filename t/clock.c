/*
 * t/clock.c: a wall clock that git and garchive share in the tests.
 *
 * An archive of a tree (not a commit) carries the current time, so a
 * test that compares garchive's with git's must run both in the same
 * second; on a busy machine one second is not enough.  Preloaded
 * (LD_PRELOAD=t/clock.so) with GARCHIVE_TEST_CLOCK=<seconds> set,
 * time(), gettimeofday() and clock_gettime() of CLOCK_REALTIME answer
 * that second; other clocks and an unset variable pass through to the
 * C library, so timeouts and sleeps keep working.  Built by `make test`
 * (or by t/lib.sh when missing), never linked into garchive.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static int frozen(time_t *out)
{
	const char *s = getenv("GARCHIVE_TEST_CLOCK");
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return 0;
	*out = (time_t)v;
	return 1;
}

static int real_clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
	return real(id, ts);
}

time_t time(time_t *t)
{
	struct timespec ts;
	time_t now;

	if (!frozen(&now)) {
		if (real_clock_gettime(CLOCK_REALTIME, &ts) < 0)
			return (time_t)-1;
		now = ts.tv_sec;
	}
	if (t)
		*t = now;
	return now;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;

	(void)tz;
	if (!frozen(&ts.tv_sec)) {
		if (real_clock_gettime(CLOCK_REALTIME, &ts) < 0)
			return -1;
	} else {
		ts.tv_nsec = 0;
	}
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if ((id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) &&
	    frozen(&ts->tv_sec)) {
		ts->tv_nsec = 0;
		return 0;
	}
	return real_clock_gettime(id, ts);
}

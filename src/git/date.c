/*
 * date.c: git's date.c, the half that prints: show_date() in the modes
 * pretty formats ask for, with git's relative ("2 weeks ago") and human
 * wording, and its own time-zone arithmetic (tm_to_time_t instead of
 * mktime, so the C library's normalisation never shows).
 */
#include "date.h"

#include "garchive/common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static const char *const month_names[] = {
	"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"
};

static const char *const weekday_names[] = {
	"Sundays", "Mondays", "Tuesdays", "Wednesdays", "Thursdays",
	"Fridays", "Saturdays"
};

/* "Now", or GIT_TEST_DATE_NOW as git's tests pin it. */
static time_t now_seconds(void)
{
	const char *x = getenv("GIT_TEST_DATE_NOW");
	struct timeval tv;

	if (x)
		return atoi(x);
	gettimeofday(&tv, NULL);
	return tv.tv_sec;
}

int date_overflows(uintmax_t t)
{
	time_t sys;

	if (t >= UINTMAX_MAX)
		return 1;
	sys = (time_t)t;
	return t != (uintmax_t)sys || (t < 1) != (sys < 1);
}

/* git's tm_to_time_t(): mktime without normalisation, 1970..2099. */
static time_t tm_to_time(const struct tm *tm)
{
	static const int mdays[] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334
	};
	int year = tm->tm_year - 70, month = tm->tm_mon, day = tm->tm_mday;

	if (year < 0 || year > 129)
		return -1;
	if (month < 0 || month > 11)
		return -1;
	if (month < 2 || (year + 2) % 4)
		day--;
	if (tm->tm_hour < 0 || tm->tm_min < 0 || tm->tm_sec < 0)
		return -1;
	return (time_t)((year * 365 + (year + 1) / 4 + mdays[month] + day) *
			24 * 60 * 60UL) +
	       tm->tm_hour * 60 * 60 + tm->tm_min * 60 + tm->tm_sec;
}

static int local_tzoffset(time_t t, struct tm *tm)
{
	time_t t_local;
	int offset, sign;

	/* TZ may have changed since the last call: git reads it afresh. */
	tzset();
	localtime_r(&t, tm);
	t_local = tm_to_time(tm);
	if (t_local == -1)
		return 0;
	if (t_local < t) {
		sign = -1;
		offset = (int)(t - t_local);
	} else {
		sign = 1;
		offset = (int)(t_local - t);
	}
	offset /= 60;
	offset = (offset % 60) + ((offset / 60) * 100);
	return offset * sign;
}

static void plural(struct ga_buf *out, uintmax_t n, const char *one,
		   const char *many)
{
	ga_buf_printf(out, n == 1 ? one : many, n);
}

/*
 * git's relative-date ladder, one unit a row.  Each row's count is
 * (diff + round) / div; a row that carries makes that count the diff the
 * next rows see (seconds to minutes to hours to days), while weeks and
 * months are counted from the days.  The first row whose diff is below
 * `below` shows its count: "1 <unit> ago", "<n> <unit>s ago".
 */
static const struct rel_unit {
	unsigned round, div;
	int carry;
	uintmax_t below;
	const char *unit;
} rel_units[] = {
	{ 0, 1, 1, 90, "second" },
	{ 30, 60, 1, 90, "minute" },
	{ 30, 60, 1, 36, "hour" },
	{ 12, 24, 1, 14, "day" },
	{ 3, 7, 0, 70, "week" },
	{ 15, 30, 0, 365, "month" },
};

static void show_date_relative(uintmax_t time, struct ga_buf *out)
{
	time_t now = now_seconds();
	uintmax_t diff;
	size_t i;

	if (now < 0 || (uintmax_t)now < time) {
		ga_buf_puts(out, "in the future");
		return;
	}
	diff = (uintmax_t)now - time;
	for (i = 0; i < GA_ARRAY_SIZE(rel_units); i++) {
		const struct rel_unit *u = &rel_units[i];
		uintmax_t n = (diff + u->round) / u->div;

		if (u->carry)
			diff = n;
		if (diff < u->below) {
			ga_buf_printf(out, "%" PRIuMAX " %s%s ago", n, u->unit,
				      n == 1 ? "" : "s");
			return;
		}
	}
	if (diff < 1825) {
		uintmax_t total = (diff * 12 * 2 + 365) / (365 * 2);
		uintmax_t years = total / 12, months = total % 12;

		if (months) {
			plural(out, years, "%" PRIuMAX " year",
			       "%" PRIuMAX " years");
			plural(out, months, ", %" PRIuMAX " month ago",
			       ", %" PRIuMAX " months ago");
		} else {
			plural(out, years, "%" PRIuMAX " year ago",
			       "%" PRIuMAX " years ago");
		}
		return;
	}
	plural(out, (diff + 183) / 365, "%" PRIuMAX " year ago",
	       "%" PRIuMAX " years ago");
}

/* The "default" and "human" formats (git's show_date_normal()). */
static void show_date_normal(struct ga_buf *buf, uintmax_t time,
			     const struct tm *tm, int tz,
			     const struct tm *human_tm, int human_tz)
{
	int hide_year, hide_date = 0, hide_wday = 0, hide_time = 0;
	int hide_seconds = 0, hide_tz;

	hide_tz = tz == human_tz;
	hide_year = tm->tm_year == human_tm->tm_year;
	if (hide_year && tm->tm_mon == human_tm->tm_mon) {
		if (tm->tm_mday > human_tm->tm_mday) {
			/* a future date: leave it to the time zones */
		} else if (tm->tm_mday == human_tm->tm_mday) {
			hide_date = hide_wday = 1;
		} else if (tm->tm_mday + 5 > human_tm->tm_mday) {
			hide_date = 1;
		}
	}
	if (hide_wday) {
		show_date_relative(time, buf);
		return;
	}
	if (human_tm->tm_year) {
		hide_seconds = 1;
		hide_tz |= !hide_date;
		hide_wday = hide_time = !hide_year;
	}
	if (!hide_wday)
		ga_buf_printf(buf, "%.3s ", weekday_names[tm->tm_wday]);
	if (!hide_date)
		ga_buf_printf(buf, "%.3s %d ", month_names[tm->tm_mon],
			      tm->tm_mday);
	if (!hide_time) {
		ga_buf_printf(buf, "%02d:%02d", tm->tm_hour, tm->tm_min);
		if (!hide_seconds)
			ga_buf_printf(buf, ":%02d", tm->tm_sec);
	} else {
		ga_buf_rtrim(buf, 0);
	}
	if (!hide_year)
		ga_buf_printf(buf, " %d", tm->tm_year + 1900);
	if (!hide_tz)
		ga_buf_printf(buf, " %+05d", tz);
}

/*
 * Broken-down time of `time` in zone `tz` (e.g. -800).  Fails as git
 * dies when the zone moves the time out of range.
 */
static int time_in_zone(uintmax_t time, int tz, struct tm *tm, int *ok)
{
	int minutes = tz < 0 ? -tz : tz;
	time_t t;

	minutes = (minutes / 100) * 60 + (minutes % 100);
	minutes = tz < 0 ? -minutes : minutes;
	if (minutes > 0) {
		if (time > UINTMAX_MAX - (uintmax_t)minutes * 60)
			return ga_error_set("Timestamp+tz too large: %" PRIuMAX
					    " +%04d", time, tz);
	} else if (time < (uintmax_t)(-minutes * 60)) {
		return ga_error_set("Timestamp before Unix epoch: %" PRIuMAX
				    " %04d", time, tz);
	}
	time += (uintmax_t)((intmax_t)minutes * 60);
	if (date_overflows(time))
		return ga_error_set("Timestamp too large for this system: %"
				    PRIuMAX, time);
	t = (time_t)time;
	*ok = gmtime_r(&t, tm) != NULL;
	return 0;
}

int date_show(struct ga_buf *out, uintmax_t time, int tz,
	      enum date_mode mode)
{
	struct tm tm, human_tm;
	struct ga_buf tmp = GA_BUF_INIT;
	int human_tz = -1, ok = 0, error;

	memset(&human_tm, 0, sizeof(human_tm));
	if (mode == DATE_HUMAN)
		human_tz = local_tzoffset(now_seconds(), &human_tm);
	if (mode == DATE_RELATIVE) {
		show_date_relative(time, out);
		return 0;
	}
	if ((error = time_in_zone(time, tz, &tm, &ok)) < 0)
		return error;
	if (!ok) {
		time_in_zone(0, 0, &tm, &ok);
		tz = 0;
	}
	switch (mode) {
	case DATE_SHORT:
		ga_buf_printf(&tmp, "%04d-%02d-%02d", tm.tm_year + 1900,
			      tm.tm_mon + 1, tm.tm_mday);
		break;
	case DATE_ISO8601:
		ga_buf_printf(&tmp, "%04d-%02d-%02d %02d:%02d:%02d %+05d",
			      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
		break;
	case DATE_ISO8601_STRICT: {
		char sign = tz >= 0 ? '+' : '-';

		tz = abs(tz);
		ga_buf_printf(&tmp, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
			      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, sign,
			      tz / 100, tz % 100);
		break;
	}
	case DATE_RFC2822:
		ga_buf_printf(&tmp, "%.3s, %d %.3s %d %02d:%02d:%02d %+05d",
			      weekday_names[tm.tm_wday], tm.tm_mday,
			      month_names[tm.tm_mon], tm.tm_year + 1900,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
		break;
	default:
		show_date_normal(&tmp, time, &tm, tz, &human_tm, human_tz);
		break;
	}
	ga_buf_put(out, ga_buf_str(&tmp, 0), tmp.len);
	ga_buf_release(&tmp);
	return 0;
}

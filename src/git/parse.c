/*
 * parse.c: configuration values as git reads them (git's parse.c):
 * booleans (true/yes/on, false/no/off/"", or any integer), integers
 * with base auto-detected and a k/m/g unit, and booleans from the
 * environment.  The declarations are in garchive/config.h.
 */
#include "garchive/common.h"
#include "garchive/config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* git's get_unit_factor() */
static uintmax_t unit_factor(const char *end)
{
	if (!*end)
		return 1;
	if (!strcasecmp(end, "k"))
		return 1024;
	if (!strcasecmp(end, "m"))
		return 1024 * 1024;
	if (!strcasecmp(end, "g"))
		return 1024 * 1024 * 1024;
	return 0;
}

/* Why a number was refused: git's EINVAL ("invalid unit") or ERANGE. */
enum { NUM_INVALID = -1, NUM_RANGE = -2 };

int config_bad_number(const char *name, const char *value, int out_of_range)
{
	return ga_error_set("bad numeric config value '%s' for '%s': %s",
			    value ? value : "", name,
			    out_of_range ? "out of range" : "invalid unit");
}

/*
 * git_parse_signed(): base auto-detected, k/m/g, |value| <= max.  A
 * value without digits ("k") is invalid, as in git.  Returns 0,
 * NUM_INVALID or NUM_RANGE, and sets no message.
 */
static int parse_signed(intmax_t *out, const char *value, intmax_t max)
{
	uintmax_t factor, uval;
	intmax_t val;
	char *end;

	if (!value || !*value)
		return NUM_INVALID;
	errno = 0;
	val = strtoimax(value, &end, 0);
	if (errno == ERANGE)
		return NUM_RANGE;
	if (end == value || !(factor = unit_factor(end)))
		return NUM_INVALID;
	uval = val < 0 ? -(uintmax_t)val : (uintmax_t)val;
	if ((uval && factor > UINTMAX_MAX / uval) ||
	    factor * uval > (uintmax_t)max)
		return NUM_RANGE;
	*out = val * (intmax_t)factor;
	return 0;
}

int config_maybe_bool(const char *value)
{
	intmax_t v;

	if (!value)
		return 1;
	if (!*value || !strcasecmp(value, "false") ||
	    !strcasecmp(value, "no") || !strcasecmp(value, "off"))
		return 0;
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
	    !strcasecmp(value, "on"))
		return 1;
	/* Then any integer, as git_parse_int() reads it. */
	if (!parse_signed(&v, value, INT_MAX))
		return v != 0;
	return -1;
}

int config_parse_bool(int *out, const char *name, const char *value)
{
	int v = config_maybe_bool(value);

	if (v < 0)
		return ga_error_set("bad boolean config value '%s' for '%s'",
				    value, name);
	*out = v;
	return 0;
}

/* parse_signed() with git's message for a refused value. */
static int parse_signed_or_die(intmax_t *out, const char *name,
			       const char *value, intmax_t max)
{
	int why = parse_signed(out, value, max);

	return why ? config_bad_number(name, value, why == NUM_RANGE) : 0;
}

int config_parse_int(int *out, const char *name, const char *value)
{
	intmax_t v;
	int error = parse_signed_or_die(&v, name, value, INT_MAX);

	if (!error)
		*out = (int)v;
	return error;
}

int config_parse_int64(int64_t *out, const char *name, const char *value)
{
	intmax_t v;
	int error = parse_signed_or_die(&v, name, value, INT64_MAX);

	if (!error)
		*out = (int64_t)v;
	return error;
}

/* git's git_env_bool() */
int config_env_bool(int *out, const char *name, int def)
{
	const char *v = getenv(name);

	if (!v) {
		*out = def;
		return 0;
	}
	return config_parse_bool(out, name, v);
}

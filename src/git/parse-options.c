/*
 * parse-options.c: git's parse-options algorithm (parse_options_step()
 * and friends in git's parse-options.c), run on a table of struct
 * optspec.  Contract in parse-options.h.
 */
#include "parse-options.h"

#include "garchive/common.h"
#include "sane-ctype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How an option was spelled, for its messages (git's opt_parsed). */
#define SPELL_LONG	0
#define SPELL_SHORT	0x1
#define SPELL_UNSET	0x2

/* Internal results besides 0 and the negative GA_* codes. */
#define STEP_UNKNOWN	1	/* not an option of this table */

static void keep(struct parser *p, const char *arg)
{
	/* one more for the NULL that ends pass1_args */
	GA_ALLOC_GROW(p->out, p->nr_out + 2, p->alloc_out);
	p->out[p->nr_out++] = ga_xstrdup(arg);
	p->out[p->nr_out] = NULL;
}

/* git's optname(): how messages name the option that was used. */
static void optname(char *buf, size_t size, const struct optspec *o,
		    int spell)
{
	if (spell & SPELL_SHORT)
		snprintf(buf, size, "switch `%c'", o->short_name);
	else if (spell & SPELL_UNSET)
		snprintf(buf, size, "option `no-%s'", o->long_name);
	else
		snprintf(buf, size, "option `%s'", o->long_name);
}

static int opt_error(const struct optspec *o, int spell, const char *what)
{
	char name[64];

	optname(name, sizeof(name), o, spell);
	return ga_error_usage(GA_USAGE_NONE, "%s %s", name, what);
}

/* The usage text goes where git's parse_options() would print it. */
static int show_usage(const struct parser *p)
{
	/* Pass 1 has no usage strings: git prints nothing and exits 129. */
	if (p->flags & PARSE_PASS1)
		return ga_error_usage(GA_USAGE_NONE, NULL);
	return ga_error_usage(GA_USAGE_STDOUT, NULL);
}

static int get_arg(struct parser *p, const struct optspec *o, int spell,
		   const char **arg)
{
	if (p->opt) {
		*arg = p->opt;
		p->opt = NULL;
	} else if (p->pos + 1 < p->argc) {
		*arg = p->argv[++p->pos];
	} else {
		return opt_error(o, spell, "requires a value");
	}
	return 0;
}

/* git's get_value(): check how the option was used, then apply it. */
static int get_value(struct parser *p, const struct optspec *o, int spell)
{
	int unset = spell & SPELL_UNSET;
	const char *arg = NULL;
	char *end;
	int error;

	if (unset && p->opt)
		return opt_error(o, spell, "takes no value");
	if (unset && (o->flags & OPTF_NONEG))
		return opt_error(o, spell, "isn't available");
	if (!(spell & SPELL_SHORT) && p->opt && (o->flags & OPTF_NOARG))
		return opt_error(o, spell, "takes no value");

	switch (o->kind) {
	case KIND_COUNTUP:
	case KIND_BOOL:
		return p->apply(p->payload, o, NULL, unset);
	case KIND_STRING:
	case KIND_CALLBACK:
		if (!unset && (error = get_arg(p, o, spell, &arg)) < 0)
			return error;
		return p->apply(p->payload, o, arg, unset);
	case KIND_INTEGER:
		if (unset)
			return p->apply(p->payload, o, NULL, 1);
		if ((error = get_arg(p, o, spell, &arg)) < 0)
			return error;
		if (!*arg || (strtol(arg, &end, 10), *end))
			return opt_error(o, spell,
					 "expects a numerical value");
		return p->apply(p->payload, o, arg, 0);
	case KIND_OPTARG:
		arg = unset ? NULL : p->opt;
		p->opt = NULL;
		return p->apply(p->payload, o, arg, unset);
	case KIND_NUMBER:
		break;
	}
	GA_BUG("option kind without a value rule");
}

/* git's parse_short_opt(): one letter of a cluster, or -NUM digits. */
static int parse_short(struct parser *p)
{
	const struct optspec *numopt = NULL;
	size_t i, len;
	char *digits;
	int error;

	for (i = 0; i < p->nr_opts; i++) {
		const struct optspec *o = &p->opts[i];

		if (o->short_name && o->short_name == *p->opt) {
			p->opt = p->opt[1] ? p->opt + 1 : NULL;
			return get_value(p, o, SPELL_SHORT);
		}
		/* Explicit one-digit options would win over -NUM. */
		if (o->kind == KIND_NUMBER)
			numopt = o;
	}
	if (!numopt || !ga_isdigit((unsigned char)*p->opt))
		return STEP_UNKNOWN;
	for (len = 1; ga_isdigit((unsigned char)p->opt[len]); len++)
		;
	digits = ga_xstrndup(p->opt, len);
	p->opt = p->opt[len] ? p->opt + len : NULL;
	error = p->apply(p->payload, numopt, digits, 0);
	free(digits);
	return error;
}

/*
 * git's parse_long_opt().  An exact name wins at once; otherwise every
 * option the word abbreviates is a candidate, and more than one is an
 * error naming the last two.  Pass 1 (KEEP_UNKNOWN_OPT) turns off plain
 * abbreviations but, as in git, not the abbreviated --no- forms, so
 * `--no-out` still resets -o there.
 */
static int parse_long(struct parser *p, const char *arg)
{
	const char *arg_end = strchr(arg, '=');
	const struct optspec *abbrev = NULL, *ambiguous = NULL;
	int abbrev_spell = SPELL_LONG, ambiguous_spell = SPELL_LONG;
	size_t i;

	if (!arg_end)
		arg_end = arg + strlen(arg);
	for (i = 0; i < p->nr_opts; i++) {
		const struct optspec *o = &p->opts[i];
		const char *rest = NULL, *name = o->long_name;
		int spell = SPELL_LONG, abbreviated = 0;

		if (!name)
			continue;
		if ((o->flags & OPTF_LOCAL) && (p->flags & PARSE_REMOTE))
			continue;
		if (!ga_skip_prefix(arg, name, &rest) &&
		    (o->flags & OPTF_EXACT)) {
			if (!ga_skip_prefix(arg, "no-", &rest) ||
			    !ga_skip_prefix(rest, name, &rest) ||
			    (*rest && *rest != '='))
				continue;
			spell = SPELL_UNSET;
		} else if (!rest) {
			if (!(p->flags & PARSE_PASS1) &&
			    !strncmp(name, arg, arg_end - arg)) {
				abbreviated = 1;
			} else if (o->flags & OPTF_NONEG) {
				continue;
			} else if (ga_starts_with("no-", arg)) {
				/* "--n", "--no", "--no-": every negation */
				spell = SPELL_UNSET;
				abbreviated = 1;
			} else if (!ga_starts_with(arg, "no-")) {
				continue;
			} else {
				spell = SPELL_UNSET;
				if (!ga_skip_prefix(arg + 3, name, &rest)) {
					if (!ga_starts_with(name, arg + 3))
						continue;
					abbreviated = 1;
				}
			}
		}
		if (abbreviated) {
			if (abbrev) {
				ambiguous = abbrev;
				ambiguous_spell = abbrev_spell;
			}
			if (!(spell & SPELL_UNSET) && *arg_end)
				p->opt = arg_end + 1;
			abbrev = o;
			abbrev_spell = spell;
			continue;
		}
		if (*rest) {
			if (*rest != '=')
				continue;
			p->opt = rest + 1;
		}
		return get_value(p, o, spell);
	}

	if (ambiguous) {
		int dest = p->flags & PARSE_PASS1 ? GA_USAGE_NONE
						  : GA_USAGE_STDOUT;
		const char *no1 = ambiguous_spell & SPELL_UNSET ? "no-" : "";
		const char *no2 = abbrev_spell & SPELL_UNSET ? "no-" : "";

		return ga_error_usage(dest, "ambiguous option: %s "
				      "(could be --%s%s or --%s%s)", arg,
				      no1, ambiguous->long_name,
				      no2, abbrev->long_name);
	}
	if (abbrev)
		return get_value(p, abbrev, abbrev_spell);
	return STEP_UNKNOWN;
}

/*
 * git's check_typos(): a single-dash word that could be a long option
 * ("-list", "-no-foo") is refused rather than read as a cluster.
 */
static int check_typos(const struct parser *p, const char *arg)
{
	size_t i;

	if (strlen(arg) < 3)
		return 0;
	if (ga_starts_with(arg, "no-"))
		goto typo;
	for (i = 0; i < p->nr_opts; i++) {
		const struct optspec *o = &p->opts[i];

		if (o->long_name && !(o->flags & OPTF_EXT) &&
		    ga_starts_with(o->long_name, arg))
			goto typo;
	}
	return 0;
typo:
	return ga_error_usage(GA_USAGE_NONE,
			      "did you mean `--%s` (with two dashes)?", arg);
}

/*
 * garchive's own options before the subcommand's are unknown to git's
 * parser after them: git's message, and a hint saying where they go.
 */
static int misplaced_global(const char *arg, const char *opt)
{
	if (arg[1] != '-' && opt == arg + 1 && *opt == 'c')
		return ga_error_hint("-c <name>=<value> is garchive's own "
				     "option: give it first, before the "
				     "archive options\n"
				     "  garchive -c <name>=<value> [<options>] "
				     "<tree-ish> [<path>...]");
	if (!strcmp(arg, "--version") || !strcmp(arg, "--build-options"))
		return ga_error_hint("--version is garchive's own option: "
				     "give it alone, as `garchive --version "
				     "[--build-options]`");
	return GA_EUSAGE;
}

static int unknown_option(struct parser *p, const char *arg)
{
	if (p->flags & PARSE_PASS1) {
		keep(p, arg);
		p->opt = NULL;
		return 0;
	}
	if (arg[1] == '-') {
		ga_error_usage(GA_USAGE_STDERR, "unknown option `%s'",
			       arg + 2);
		return misplaced_global(arg, p->opt);
	}
	if ((unsigned char)*p->opt < 0x80) {
		ga_error_usage(GA_USAGE_STDERR, "unknown switch `%c'",
			       *p->opt);
		return misplaced_global(arg, p->opt);
	}
	return ga_error_usage(GA_USAGE_STDERR,
			      "unknown non-ascii option in string: `%s'", arg);
}

/* A single-dash argument: a letter, a cluster ("-vq", "-v9") or -NUM. */
static int parse_cluster(struct parser *p, const char *arg)
{
	int error, help = !(p->flags & PARSE_PASS1);

	p->opt = arg + 1;
	error = parse_short(p);
	if (error < 0)
		return error;
	if (error == STEP_UNKNOWN) {
		if ((error = check_typos(p, arg + 1)) < 0)
			return error;
		if (help && *p->opt == 'h')
			return show_usage(p);
		return unknown_option(p, arg);
	}
	if (p->opt && (error = check_typos(p, arg + 1)) < 0)
		return error;
	while (p->opt) {
		error = parse_short(p);
		if (error < 0)
			return error;
		if (error == STEP_UNKNOWN) {
			if (help && *p->opt == 'h')
				return show_usage(p);
			/*
			 * git reports the rest of the cluster as if it
			 * were the whole argument, so "-v-x" becomes the
			 * long option "x".
			 */
			free(p->faked);
			p->faked = ga_xstrfmt("-%s", p->opt);
			return unknown_option(p, p->faked);
		}
	}
	return 0;
}

/* Asked by git-completion.bash, as the only argument. */
static int is_completion_request(const char *arg)
{
	return !strcmp(arg, "--git-completion-helper") ||
	       !strcmp(arg, "--git-completion-helper-all");
}

/* git's parse_options_step() and parse_options_end(). */
int parse_options_step(struct parser *p)
{
	int help = !(p->flags & PARSE_PASS1);
	int error;

	for (p->pos = 0; p->pos < p->argc; p->pos++) {
		const char *arg = p->argv[p->pos];

		p->opt = NULL;
		if (*arg != '-' || !arg[1]) {
			keep(p, arg);
			continue;
		}
		if (p->argc == 1 && is_completion_request(arg)) {
			p->completion = p->completion_text ?
				p->completion_text : "";
			return 0;
		}
		if (arg[1] != '-') {
			if ((error = parse_cluster(p, arg)) < 0)
				return error;
			continue;
		}
		if (!arg[2] || !strcmp(arg + 2, "end-of-options")) {
			/* Pass 1 keeps the "--" for pass 2. */
			if (!(p->flags & PARSE_PASS1))
				p->pos++;
			break;
		}
		if (help && (!strcmp(arg + 2, "help-all") ||
			     !strcmp(arg + 2, "help")))
			return show_usage(p);
		error = parse_long(p, arg + 2);
		if (error == STEP_UNKNOWN)
			error = unknown_option(p, arg);
		if (error < 0)
			return error;
	}
	for (; p->pos < p->argc; p->pos++)
		keep(p, p->argv[p->pos]);
	return 0;
}

void parse_options_release(struct parser *p)
{
	size_t i;

	for (i = 0; i < p->nr_out; i++)
		free(p->out[i]);
	free(p->out);
	free(p->faked);
	p->out = NULL;
	p->faked = NULL;
}

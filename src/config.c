/*
 * config.c: placeholder configuration over libgit2's default stack, so
 * the other stages can be built and tested.  It is replaced by the full
 * implementation of git's config stack (environment, -c, origins).
 */
#include "garchive/config.h"
#include "garchive/common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

struct override {
	char *name;
	char *value;
};

struct ga_config {
	git_config *snapshot;
	struct override *overrides;
	size_t nr_overrides;
};

int config_load(struct ga_config **out, git_repository *repo,
		const char *const *overrides, size_t nr_overrides)
{
	struct ga_config *cfg = ga_xcalloc(1, sizeof(*cfg));
	git_config *live = NULL;
	size_t i;
	int error;

	if (repo)
		error = git_repository_config_snapshot(&cfg->snapshot, repo);
	else if ((error = git_config_open_default(&live)) == 0)
		error = git_config_snapshot(&cfg->snapshot, live);
	git_config_free(live);
	if (error < 0) {
		config_free(cfg);
		return ga_error_from_git(NULL);
	}
	cfg->overrides = ga_xcalloc(nr_overrides, sizeof(*cfg->overrides));
	for (i = 0; i < nr_overrides; i++) {
		const char *eq = strchr(overrides[i], '=');
		struct override *o = &cfg->overrides[cfg->nr_overrides++];

		o->name = eq ? ga_xstrndup(overrides[i], eq - overrides[i])
			     : ga_xstrdup(overrides[i]);
		o->value = eq ? ga_xstrdup(eq + 1) : NULL;
	}
	*out = cfg;
	return 0;
}

void config_free(struct ga_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nr_overrides; i++) {
		free(cfg->overrides[i].name);
		free(cfg->overrides[i].value);
	}
	free(cfg->overrides);
	git_config_free(cfg->snapshot);
	free(cfg);
}

int config_get_string(const char **out, const struct ga_config *cfg,
		      const char *name)
{
	git_config_entry *entry = NULL;
	size_t i;

	for (i = cfg->nr_overrides; i > 0; i--) {
		if (!strcasecmp(cfg->overrides[i - 1].name, name)) {
			*out = cfg->overrides[i - 1].value;
			return 0;
		}
	}
	if (git_config_get_entry(&entry, cfg->snapshot, name) < 0)
		return GA_ENOTFOUND;
	/* Snapshot entries live as long as the snapshot. */
	*out = entry->value;
	git_config_entry_free(entry);
	return 0;
}

int config_parse_bool(int *out, const char *name, const char *value)
{
	int64_t n;

	if (!value || !strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
	    !strcasecmp(value, "on")) {
		*out = 1;
		return 0;
	}
	if (!*value || !strcasecmp(value, "false") ||
	    !strcasecmp(value, "no") || !strcasecmp(value, "off")) {
		*out = 0;
		return 0;
	}
	if (config_parse_int64(&n, name, value) == 0) {
		*out = n != 0;
		return 0;
	}
	return ga_error_set("bad boolean config value '%s' for '%s'",
			    value, name);
}

int config_parse_int64(int64_t *out, const char *name, const char *value)
{
	const char *v = value ? value : "";
	char *end;
	intmax_t n, factor = 1;

	errno = 0;
	n = strtoimax(v, &end, 0);
	if (errno == ERANGE)
		goto bad;
	if (end == v) {
		errno = EINVAL;
		goto bad;
	}
	if (*end) {
		if (!strcasecmp(end, "k"))
			factor = 1024;
		else if (!strcasecmp(end, "m"))
			factor = 1024 * 1024;
		else if (!strcasecmp(end, "g"))
			factor = 1024 * 1024 * 1024;
		else {
			errno = EINVAL;
			goto bad;
		}
		if (n > INTMAX_MAX / factor || n < INTMAX_MIN / factor) {
			errno = ERANGE;
			goto bad;
		}
	}
	*out = n * factor;
	return 0;
bad:
	return ga_error_set("bad numeric config value '%s' for '%s': %s",
			    v, name,
			    errno == ERANGE ? "out of range" : "invalid unit");
}

int config_get_bool(int *out, const struct ga_config *cfg, const char *name)
{
	const char *v;

	if (config_get_string(&v, cfg, name) < 0)
		return GA_ENOTFOUND;
	return config_parse_bool(out, name, v);
}

int config_get_int64(int64_t *out, const struct ga_config *cfg,
		     const char *name)
{
	const char *v;

	if (config_get_string(&v, cfg, name) < 0)
		return GA_ENOTFOUND;
	return config_parse_int64(out, name, v);
}

const char *config_origin(const struct ga_config *cfg, const char *name)
{
	(void)cfg;
	(void)name;
	return "";
}

int config_foreach(const struct ga_config *cfg, config_foreach_fn fn,
		   void *payload)
{
	git_config_iterator *it = NULL;
	git_config_entry *entry;
	size_t i;
	int error = 0;

	if (git_config_iterator_new(&it, cfg->snapshot) < 0)
		return ga_error_from_git(NULL);
	while (git_config_next(&entry, it) == 0) {
		if ((error = fn(entry->name, entry->value, "", payload)) != 0)
			goto done;
	}
	for (i = 0; i < cfg->nr_overrides; i++) {
		error = fn(cfg->overrides[i].name, cfg->overrides[i].value,
			   "", payload);
		if (error)
			goto done;
	}
done:
	git_config_iterator_free(it);
	return error;
}

git_config *config_libgit2(const struct ga_config *cfg)
{
	return cfg->snapshot;
}

/*
 * Fuzz the configuration reader (src/git/config.c), the largest parser
 * garchive has: the input, split at the first NUL, is a config file
 * (read as the system file) and the value of GIT_CONFIG_PARAMETERS.
 * Every entry is walked and parsed as a boolean and as the integers (int, int64),
 * and a few names are looked up.  Includes are followed as git follows
 * them; relative ones point into the scratch directory.
 */
#include "fuzz.h"

#include "garchive/config.h"

#include <fcntl.h>
#include <unistd.h>

#include <git2.h>

static void report(enum ga_report_kind kind, const char *msg, void *payload)
{
	(void)kind;
	(void)payload;
	FUZZ_CHECK(msg != NULL);
}

static int check_entry(const struct config_entry *e, void *payload)
{
	int64_t i64;
	int b, i;

	(void)payload;
	FUZZ_CHECK(e->name && *e->name);
	FUZZ_CHECK(e->file ? e->line >= 0 : e->line == -1);
	config_parse_bool(&b, e->name, e->value);
	config_parse_int(&i, e->name, e->value);
	config_parse_int64(&i64, e->name, e->value);
	ga_error_clear();
	return 0;
}

static char file[64];

static void setup(void)
{
	char dir[] = "/tmp/garchive-fuzz-config-XXXXXX";

	git_libgit2_init();
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/config", dir);
	FUZZ_CHECK(chdir(dir) == 0);
	setenv("GIT_CONFIG_SYSTEM", file, 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("HOME", dir, 1);
	unsetenv("GIT_CONFIG_NOSYSTEM");
	unsetenv("GIT_CONFIG_COUNT");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("GIT_DIR");
	ga_set_report_handler(report, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"tar.umask", "core.bigfilethreshold", "tar.tgz.command",
		"include.path", "a.b.c",
	};
	struct ga_config *cfg = NULL;
	const uint8_t *nul = memchr(data, '\0', size);
	size_t flen = nul ? (size_t)(nul - data) : size;
	const char *value;
	char *params;
	size_t i;
	int fd, b;

	if (!*file)
		setup();
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, flen) == (ssize_t)flen);
	close(fd);
	if (nul) {
		params = fuzz_cstr(nul + 1, size - flen - 1);
		setenv("GIT_CONFIG_PARAMETERS", params, 1);
		free(params);
	} else {
		unsetenv("GIT_CONFIG_PARAMETERS");
	}
	if (config_load(&cfg, NULL, NULL, 0) == 0) {
		config_foreach_entry(cfg, check_entry, NULL);
		for (i = 0; i < GA_ARRAY_SIZE(names); i++) {
			config_get_string(&value, cfg, names[i]);
			config_get_bool(&b, cfg, names[i]);
			config_origin(cfg, names[i]);
		}
		config_free(cfg);
	}
	ga_error_clear();
	return 0;
}

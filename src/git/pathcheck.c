/*
 * pathcheck.c: git's verify_path() rules, plus HFS+ aliases of ".git".
 */
#include "pathcheck.h"

#include "sane-ctype.h"

#include <string.h>
#include <strings.h>

#define MODE_SYMLINK 0120000

static int is_sep(char c)
{
	return c == '/' || c == '\0';
}

/*
 * NTFS ignores trailing spaces and dots, and stops a name at ':' (an
 * alternate data stream): ".git . " and ".git::$DATA" name ".git".
 */
static int only_spaces_and_dots(const char *s)
{
	for (;; s++) {
		if (is_sep(*s) || *s == '\\')
			return 1;
		if (*s != ' ' && *s != '.')
			return 0;
	}
}

static int is_ntfs_dotgit(const char *c)
{
	if (c[0] == '.' && !strncasecmp(c + 1, "git", 3))
		return only_spaces_and_dots(c + 4);
	if (!strncasecmp(c, "git~1", 5))
		return only_spaces_and_dots(c + 5);
	return 0;
}

/*
 * NTFS aliases of ".gitmodules" (for symlinks): the name itself with
 * trailing spaces/dots or a stream, "gitmod~N", and the 8.3 fallback
 * "gi7eba~N" that Windows derives from it.
 */
static int ntfs_tail(const char *s)
{
	for (;; s++) {
		if (is_sep(*s) || *s == ':')
			return 1;
		if (*s != ' ' && *s != '.')
			return 0;
	}
}

static int is_ntfs_dotgitmodules(const char *c)
{
	static const char fallback[] = "gi7eba";
	size_t i;
	int tilde = 0;

	if (c[0] == '.' && !strncasecmp(c + 1, "gitmodules", 10))
		return ntfs_tail(c + 11);
	if (!strncasecmp(c, "gitmod", 6) && c[6] == '~' &&
	    c[7] >= '1' && c[7] <= '4')
		return ntfs_tail(c + 8);
	for (i = 0; i < 8; i++) {
		if (is_sep(c[i]))
			return 0;
		if (tilde) {
			if (!ga_isdigit((unsigned char)c[i]))
				return 0;
		} else if (c[i] == '~') {
			if (c[i + 1] < '1' || c[i + 1] > '9')
				return 0;
			i++;
			tilde = 1;
		} else if (i >= 6 || (c[i] & 0x80) ||
			   ga_tolower((unsigned char)c[i]) != fallback[i]) {
			return 0;
		}
	}
	return ntfs_tail(c + 8);
}

/*
 * Next code point of a component for HFS+, which ignores some
 * zero-width code points when it compares names.  Returns 0 at the end
 * of the component and -1 for bytes that are not UTF-8.
 */
static long next_hfs_char(const char **in)
{
	for (;;) {
		const unsigned char *s = (const unsigned char *)*in;
		long cp;
		int n, i;

		if (is_sep((char)*s))
			return 0;
		if (*s < 0x80) {
			cp = *s;
			n = 1;
		} else if ((*s & 0xe0) == 0xc0) {
			cp = *s & 0x1f;
			n = 2;
		} else if ((*s & 0xf0) == 0xe0) {
			cp = *s & 0x0f;
			n = 3;
		} else if ((*s & 0xf8) == 0xf0) {
			cp = *s & 0x07;
			n = 4;
		} else {
			return -1;
		}
		for (i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return -1;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		*in += n;
		if ((cp >= 0x200c && cp <= 0x200f) ||
		    (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff)
			continue;
		return cp < 0x80 ? ga_tolower((int)cp) : cp;
	}
}

static int is_hfs_dot(const char *c, const char *needle)
{
	if (next_hfs_char(&c) != '.')
		return 0;
	for (; *needle; needle++)
		if (next_hfs_char(&c) != *needle)
			return 0;
	return next_hfs_char(&c) == 0;
}

/* One component, `c`, up to the next '/' or the end. */
static int component_is_safe(const char *c, uint32_t mode)
{
	int symlink = mode == MODE_SYMLINK;

	if (is_sep(c[0]))
		return 0;	/* empty */
	if (c[0] == '.') {
		if (is_sep(c[1]))
			return 0;	/* "." */
		if (c[1] == '.' && is_sep(c[2]))
			return 0;	/* ".." */
		if (!strncasecmp(c + 1, "git", 3)) {
			if (is_sep(c[4]))
				return 0;
			if (symlink && !strncasecmp(c + 4, "modules", 7) &&
			    is_sep(c[11]))
				return 0;
		}
	}
	if (is_ntfs_dotgit(c) || is_hfs_dot(c, "git"))
		return 0;
	if (symlink && (is_ntfs_dotgitmodules(c) ||
			is_hfs_dot(c, "gitmodules")))
		return 0;
	return 1;
}

int pathcheck_is_safe(const char *path, uint32_t mode)
{
	const char *c = path;

	for (;;) {
		const char *slash;

		if (!component_is_safe(c, mode))
			return 0;
		slash = strchr(c, '/');
		if (!slash)
			return 1;
		c = slash + 1;
	}
}

int pathcheck_name_is_valid(const char *name, size_t len)
{
	return len > 0 && !memchr(name, '/', len);
}

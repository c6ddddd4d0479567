/*
 * help.h: the manual page.
 */
#ifndef GARCHIVE_HELP_H
#define GARCHIVE_HELP_H

/*
 * Replace the process with man(1) showing garchive's page: the one
 * beside the binary in a build tree, else the installed one.  `argv0`
 * (may be NULL) locates the binary when /proc/self/exe cannot.
 * Returns only on failure: a warning "failed to exec 'man': ..." and
 * GA_ERROR "no man viewer handled the request".
 */
int help_show_manual(const char *argv0);

#endif

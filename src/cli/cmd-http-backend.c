/*
 * cmd-http-backend.c: `garchive http-backend`, the CGI program of git's
 * smart HTTP protocol (src/remote/http-backend.c).
 */
#include "run.h"
#include "garchive/common.h"
#include "remote/http-backend.h"

#include <string.h>

/*
 * http-backend: one CGI request of git's smart HTTP protocol, the
 * upload-archive service ours, everything else git's (see
 * remote/http-backend.h).
 */
int cmd_http_backend(struct run *r)
{
	struct http_backend_options o;

	if (r->global.argc != 1)
		return run_usage(r, "usage: garchive http-backend\n");
	memset(&o, 0, sizeof(o));
	o.argv0 = r->self;
	o.config_overrides = (const char *const *)r->global.config;
	o.nr_config_overrides = r->global.nr_config;
	return http_backend_serve(&o, &r->exit_status);
}

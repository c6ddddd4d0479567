/*
 * zip.c: placeholder; replaced by the zip writer.
 */
#include "garchive/archive.h"
#include "garchive/common.h"

int zip_writer_new(struct archive_writer **out, struct sink *sink,
		   const struct archive_args *args)
{
	(void)out, (void)sink, (void)args;
	return ga_error_set("--format=zip is not supported yet");
}

/*
 * get-tar-commit-id.h: the get-tar-commit-id command.
 */
#ifndef GARCHIVE_GET_TAR_COMMIT_ID_H
#define GARCHIVE_GET_TAR_COMMIT_ID_H

/*
 * git get-tar-commit-id: read a 1024-byte tar header and pax global
 * header from `in_fd` and write the commit id comment (with its "\n")
 * to `out_fd`.  *found is 0 when the input is not such an archive
 * (git exits 1 silently).  Errors: "git get-tar-commit-id: EOF before
 * reading tar header: ...", "... read error: ...", "... write error:
 * ..." or GA_EPIPE.
 */
int get_tar_commit_id(int *found, int in_fd, int out_fd);

/* The usage text of get-tar-commit-id, with "\n". */
const char *get_tar_commit_id_usage(void);

#endif

/*
 * submodule.h: --recurse-submodules, the repositories behind gitlinks.
 *
 * For a gitlink at <path> with commit <id>, met while archiving a
 * tree, the submodule's repository is found the way git finds it for a
 * commit that may be old:
 *
 *  1. its name, from the .gitmodules of the archived tree (the entry
 *     whose submodule.<name>.path is <path>; names git would refuse,
 *     such as ones with a ".." component, are ignored);
 *  2. $GIT_DIR/modules/<name> of the repository the gitlink is in;
 *  3. the work tree's <path>/.git.
 *
 * The first that has the commit is used; its tree is then walked in
 * place of the gitlink (see walk.h), with its own configuration,
 * info/attributes, .gitattributes, export-subst (against the
 * submodule's commit) and conversion, recursively.  A commit found
 * nowhere is an error ("submodule '<path>': commit <id> not found"),
 * or with skip-missing a warning, and the gitlink is archived as git
 * does (an empty directory).
 */
#ifndef GARCHIVE_SUBMODULE_H
#define GARCHIVE_SUBMODULE_H

#include <stddef.h>

#include <git2/types.h>
#include "odb/oid.h"

struct walk_options;
struct walk_submodules;

struct submodules_options {
	git_repository *repo;		/* the superproject */
	const struct ga_oid *tree_id;		/* its archived tree */
	/* -c overrides, for the submodules' configuration too. */
	const char *const *config_overrides;
	size_t nr_config_overrides;
	int skip_missing;
};

struct submodules;

/* The hooks for walk_options.submodules, valid until submodules_free(). */
void submodules_new(struct submodules **out,
		    const struct submodules_options *opts);
const struct walk_submodules *submodules_hooks(struct submodules *s);

/*
 * Frees every repository opened; only after the walks and the writer
 * are done with their entries.
 */
void submodules_free(struct submodules *s);

#endif

/* ops_base.h — the op vectors a recipe set is certified with (issue 32;
 * conformance/README.md "Recipe vector sets", spec/iut-protocol.md P10).
 * A recipe set holds one recipe's run and no op vectors; its
 * certification is ops + fresh + the run, like an official one, so the
 * ops it runs are the GPT family's groups of the pinned official set
 * RECIPE_OPS_SET: the set whose groups define the family's ops (spec §14,
 * §16 is §14 with parameters). Which set is fixed, not chosen: a receipt
 * names only the recipe set, and `verify` must find the same op cases. */
#ifndef CONFORM_VECTORSET_OPS_BASE_H
#define CONFORM_VECTORSET_OPS_BASE_H

#include "vectorset/manifest.h"
#include "vectorset/vectors_load.h"

#define RECIPE_OPS_SET "1.2.0"

/* The op set of a recipe run: `dir` as given (--ops-vectors), else where
 * `run` finds a default set (core/version.h). The caller frees it. */
char *recipe_ops_dir(const char *dir);

/* Verifies the set at dir (its manifest, FORMAT.md §4, and its digest:
 * the one official.c pins for RECIPE_OPS_SET), loads it, and moves into vs
 * the groups keep() accepts, in the set's order. Every finding names the
 * file; returns their number (0: merged). *m gets the set's manifest (its
 * digest for the run's header); manifest_free releases it. */
size_t recipe_ops_adopt(const char *dir, vector_set *vs, int (*keep)(const op_group *), manifest_info *m,
                        problems *pr);

#endif

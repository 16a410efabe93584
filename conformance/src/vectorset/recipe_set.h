/* recipe_set.h — a recipe vector set (issue 32, spec §16; conformance/
 * README.md "Recipe vector sets"): the official sets' formats (vectors/
 * FORMAT.md §3, §4, §6) for one member of the GPT family, made on demand
 * by `isotrain-conform vectors`. Its manifest carries "recipe" (the
 * recipe's path in the set and its SHA-256) after "generator"; its one
 * training profile is named RECIPE_SET_PROFILE, whatever the recipe's
 * name, so no recipe can pass for an official profile's row. */
#ifndef CONFORM_VECTORSET_RECIPE_SET_H
#define CONFORM_VECTORSET_RECIPE_SET_H

#include "isotrain.h"

#define RECIPE_SET_PROFILE "recipe"
/* The set's spec version: the one its generator (the linked reference)
 * implements and claims in hello. The family itself is not a version
 * step an IUT climbs: it says it trains recipes with train_recipe=1 (P2,
 * P7), and the runner asks that, not a version, before `--recipe`. */
#define RECIPE_SET_SPEC_VERSION IT_SPEC_VERSION
/* the SSHSIG signature of MANIFEST.json's bytes, beside it (not listed:
 * it signs the listing) */
#define RECIPE_SET_SIGNATURE "MANIFEST.json.sig"

#endif

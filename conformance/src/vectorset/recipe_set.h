/* recipe_set.h — a recipe vector set (issue 32, spec §16; conformance/
 * README.md "Recipe vector sets"): the official sets' formats (vectors/
 * FORMAT.md §3, §4, §6) for one member of the GPT family, made on demand
 * by `isotrain-conform vectors`. Its manifest carries "recipe" (the
 * recipe's path in the set and its SHA-256) after "generator"; its one
 * training profile is named RECIPE_SET_PROFILE, whatever the recipe's
 * name, so no recipe can pass for an official profile's row. */
#ifndef CONFORM_VECTORSET_RECIPE_SET_H
#define CONFORM_VECTORSET_RECIPE_SET_H

#define RECIPE_SET_PROFILE "recipe"
/* the spec version that introduced the family (spec §16) */
#define RECIPE_SET_SPEC_VERSION "1.3.0"
/* the SSHSIG signature of MANIFEST.json's bytes, beside it (not listed:
 * it signs the listing) */
#define RECIPE_SET_SIGNATURE "MANIFEST.json.sig"

#endif

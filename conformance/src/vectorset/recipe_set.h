/* recipe_set.h — a recipe vector set (issue 32, spec §16; conformance/
 * README.md "Recipe vector sets"): the official sets' formats (vectors/
 * FORMAT.md §3, §4, §6) for one member of the GPT family, made on demand
 * by `isotrain-conform vectors`. Its manifest carries "recipe" (the
 * recipe's path in the set and its SHA-256) after "generator"; its one
 * training profile is named RECIPE_SET_PROFILE, whatever the recipe's
 * name, so no recipe can pass for an official profile's row. */
#ifndef CONFORM_VECTORSET_RECIPE_SET_H
#define CONFORM_VECTORSET_RECIPE_SET_H

#include <stddef.h>

#include "isotrain.h"
#include "isotrain_gpt.h"
#include "vectorset/manifest.h"

#define RECIPE_SET_PROFILE "recipe"
/* The set's spec version: the one its generator (the linked reference)
 * implements and claims in hello. The family itself is not a version
 * step an IUT climbs: it says it trains recipes with train_recipe=1 (P2,
 * P7), and the runner asks that, not a version, before `--recipe`. */
#define RECIPE_SET_SPEC_VERSION IT_SPEC_VERSION
/* the SSHSIG signature of MANIFEST.json's bytes, beside it (not listed:
 * it signs the listing) */
#define RECIPE_SET_SIGNATURE "MANIFEST.json.sig"

/* The recipe the verified set in dir pins (m: manifest_verify's, whose
 * bytes of the recipe are the ones hashed), read by the linked reference's
 * strict reader (spec §16.1), its corpus found beside it in the set: what a
 * run trains (levels/recipe_level.c) and what `matrix` plans the run's
 * fresh windows from (report/matrix/receipt_trust.c). 0, or -1 with err
 * naming the file and field; r is freed with it_gpt_recipe_free. */
int recipe_set_recipe(const char *dir, const manifest_info *m, it_gpt_recipe *r, char *err, size_t cap);

#endif

/* Recipe certifications in `matrix` and the page (issue 32 item 3: "verify,
 * matrix and the page show recipe certifications apart from official
 * ones"). A receipt of `run --vectors RECIPESET` is admitted through the
 * same gate as every receipt (verify, with the set's manifest), and shown
 * as `recipe sha256:HEX12` in the set and result columns, counted apart in
 * the summary, never as the official PASS. Its controls: the same receipt
 * posing as an official PASS, and one with another recipe digest, are
 * refused naming vectors.recipe_sha256. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "core/util.h"
#include "isotrain.h"
#include "report/matrix/matrix.h"

TU_DIR_SUITE(recipe_display, 0, .timeout = 240);

/* A set of spec/recipes/tiny.json (3 steps) and the reference's receipt
 * against it (exit 6, a recipe's PASS); hex12: the recipe digest's first 12. */
static void certify_tiny(char **set, char **receipt, char hex[65])
{
    *set = at("tiny");
    tu_conform_says(0, 0, "recipe sha256:", "vectors", "--recipe", "spec/recipes/tiny.json", "--out", *set, "--steps",
                    "3", NULL);
    char *text = tu_read("spec/recipes/tiny.json");
    unsigned char d[32];
    it_sha256(text, strlen(text), d);
    it_hex(d, 32, hex);
    free(text);
    *receipt = at("r.json");
    tu_result r = tu_conform("run", "--vectors", *set, "--receipt", *receipt, "--", tu_env("IT_REF_CLI"), NULL);
    cr_assert_eq(r.code, 6, "exit %d, expected 6 (a recipe's PASS)\n%s%s", r.code, r.out, r.err);
    tu_result_free(&r);
}

/* The word a recipe row must carry: exactly scope.c's for the digest verify
 * checked, so neither the official PASS nor another recipe's word passes. */
Test(recipe_display, only_the_verified_recipes_word_is_its_pass)
{
    static const char hex[] = "45997462578cf82f81101e780332d4b7b4bfdf9dfa95e28672283132a8fdb06a";
    static const struct {
        const char *verdict, *recipe;
        int pass;
        const char *why;
    } rows[] = {
        {"PASS (recipe sha256:45997462578cf82f81101e780332d4b7b4bfdf9dfa95e28672283132a8fdb06a)", hex, 1, "its word"},
        {"PASS", hex, 0, "the official word is not a recipe's"},
        {"PASS (recipe sha256:45997462578cf82f81101e780332d4b7b4bfdf9dfa95e28672283132a8fdb06a)", "", 0,
         "no verified digest, no recipe pass"},
        {"PASS (recipe sha256:00997462578cf82f81101e780332d4b7b4bfdf9dfa95e28672283132a8fdb06a)", hex, 0,
         "another recipe's word"},
        {"PASS (recipe sha256:45997462578cf82f81101e780332d4b7b4bfdf9dfa95e28672283132a8fdb06a) ", hex, 0,
         "trailing text"},
        {NULL, hex, 0, "no verdict"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_assert_eq(mx_is_recipe_pass(rows[i].verdict, rows[i].recipe), rows[i].pass, "row %zu: %s", i, rows[i].why);
}

Test(recipe_display, matrix_and_page_show_a_recipe_apart)
{
    char *set, *receipt, hex[65];
    certify_tiny(&set, &receipt, hex);
    char *label = xasprintf("recipe sha256:%.12s", hex);
    char *md = at("m.md");
    tu_result r = tu_conform("matrix", "--allow-unsigned", "--vectors", set, "--markdown", md, receipt, NULL);
    cr_assert_eq(r.code, 0, "exit %d\n%s%s", r.code, r.out, r.err);
    tu_assert_has(r.out, label);
    tu_assert_has(r.out, "(0 passed, 1 certified against a recipe (not the official vectors)");
    tu_assert_has(r.out, "certified against a recipe, not the official vectors");
    tu_assert_lacks(r.out, "  PASS  "); /* the result column never says the official word */
    tu_result_free(&r);
    char *text = tu_read(md);
    char *cell = xasprintf("| 🔷 %s |", label);
    tu_assert_has(text, cell);
    tu_assert_lacks(text, "✅ pass");
    free(text);
    /* the page: the matrix's words in a badge of its own colour, the recipe named in the header */
    char *page = at("p.html");
    tu_conform_exits(0, "report", "--allow-unsigned", "--vectors", set, "-o", page, receipt, NULL);
    text = tu_read(page);
    char *badge = xasprintf("<span class=\"v other\">%s</span>", label);
    tu_assert_has(text, badge);
    tu_assert_lacks(text, "<span class=\"v pass\">");
    tu_assert_has(text, "recipe certifications</dt>");
    tu_assert_has(text, hex);
    free(text);
    free(badge), free(cell), free(page), free(md), free(label), free(receipt), free(set);
}

/* The controls: the receipt edited to pose as an official PASS (its recipe
 * digest gone), or to name another recipe (the verdict's word with it), is
 * refused by matrix and left out of the page, naming the field. */
Test(recipe_display, a_posing_or_tampered_recipe_receipt_is_refused)
{
    char *set, *receipt, hex[65];
    certify_tiny(&set, &receipt, hex);
    static const char *const fake = "00000000000000000000000000000000000000000000000000000000000000ff";
    for (int k = 0; k < 2; k++) {
        cJSON *rj = tu_receipt_json(receipt);
        cJSON *vec = cJSON_GetObjectItemCaseSensitive(rj, "vectors");
        char *word = k ? xasprintf("PASS (recipe sha256:%s)", fake) : xstrdup("PASS");
        if (k)
            cJSON_ReplaceItemInObjectCaseSensitive(vec, "recipe_sha256", cJSON_CreateString(fake));
        else
            cJSON_DeleteItemFromObjectCaseSensitive(vec, "recipe_sha256");
        cJSON_ReplaceItemInObjectCaseSensitive(rj, "verdict", cJSON_CreateString(word));
        char *forged = at(k ? "tampered.json" : "posing.json"), *page = at("f.html");
        tu_write_receipt(forged, rj);
        tu_result r = tu_conform("matrix", "--allow-unsigned", "--vectors", set, forged, NULL);
        cr_assert_eq(r.code, 2, "case %d: exit %d, expected 2 (refused)\n%s%s", k, r.code, r.out, r.err);
        tu_assert_has(r.err, "vectors.recipe_sha256: ");
        tu_assert_has(r.err, "refused: the receipt does not verify");
        tu_result_free(&r);
        r = tu_conform("report", "--allow-unsigned", "--vectors", set, "-o", page, forged, NULL);
        char *text = tu_read(page);
        tu_assert_has(text, "vectors.recipe_sha256: ");
        tu_assert_lacks(text, "<span class=\"v pass\">");
        tu_assert_lacks(text, "<span class=\"v other\">recipe sha256:");
        tu_result_free(&r);
        free(text), free(page), free(forged), free(word);
        cJSON_Delete(rj);
    }
    /* control of the controls: the receipt as written is admitted */
    tu_conform_exits(0, "matrix", "--allow-unsigned", "--vectors", set, receipt, NULL);
    free(receipt), free(set);
}

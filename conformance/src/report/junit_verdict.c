/* junit_verdict.c — the run's verdict and scope as a JUnit testsuite of its
 * own, so CI shows PARTIAL and UNOFFICIAL as what they are: not a pass. A
 * recipe's certification passes (its verdict property names the recipe, its
 * vectors property says RECIPE, never OFFICIAL). What passes is read from the
 * verdict's exit code, the one the verdict table gave, not from its words. */
#include <string.h>

#include "report/junit.h"

void junit_verdict_suite(sbuf *x, const run_ctx *rc)
{
    const run_verdict *v = &rc->verdict;
    const int pass = v->exit_code == EXIT_PASS || v->exit_code == EXIT_RECIPE_PASS, fail = v->exit_code == EXIT_FAIL;
    sbuf_printf(x, "  <testsuite name=\"isotrain-verdict\" tests=\"1\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
                fail, !pass && !fail);
    sbuf_adds(x, "    <properties>\n      <property name=\"verdict\" value=\"");
    xml_escape(x, v->word);
    sbuf_adds(x, "\"/>\n      <property name=\"vectors\" value=\"");
    xml_escape(x, rc->recipe_name ? "RECIPE" : rc->official ? "OFFICIAL" : "UNOFFICIAL");
    sbuf_adds(x, "\"/>\n      <property name=\"manifest_digest\" value=\"");
    xml_escape(x, rc->man.digest);
    sbuf_printf(x, "\"/>\n      <property name=\"run_seed\" value=\"%llu\"/>\n", (unsigned long long)rc->run_seed);
    for (size_t i = 0; i < v->n_reasons; i++) {
        sbuf_adds(x, "      <property name=\"scope\" value=\"");
        xml_escape(x, v->reasons[i]);
        sbuf_adds(x, "\"/>\n");
    }
    sbuf_adds(x, "    </properties>\n    <testcase classname=\"isotrain-verdict\" name=\"certification\"");
    if (pass) {
        sbuf_adds(x, "/>\n  </testsuite>\n");
        return;
    }
    sbuf mess;
    sbuf_init(&mess);
    sbuf_adds(&mess, v->word);
    for (size_t i = 0; i < v->n_reasons; i++)
        sbuf_printf(&mess, "%s%s", i ? "; " : ": ", v->reasons[i]);
    const char *tag = fail ? "failure" : "skipped";
    sbuf_printf(x, ">\n      <%s message=\"", tag);
    xml_escape(x, mess.p);
    sbuf_adds(x, "\"/>\n    </testcase>\n  </testsuite>\n");
    sbuf_free(&mess);
}

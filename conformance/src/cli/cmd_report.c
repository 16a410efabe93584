/* cmd_report.c — `isotrain-conform report`: receipts as one self-contained
 * HTML page (issue 22; report/html/). Its options are a table
 * (cli/option_table.h), which also writes its --help:
 *
 *   report [--hosts FILE] [--vectors DIR] [--allowed-signers FILE] [--allow-unsigned]
 *          [--divergence CSV]... [--date TEXT] [--readme-href HREF]
 *          -o PAGE.html RECEIPT...
 *
 * Exit 0: the page is written and every receipt was accepted; 1: written,
 * but a receipt was refused (the page lists it with the reason); 2: bad
 * usage, an unusable hosts file or divergence CSV, or the page could not be
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/option_table.h"
#include "report/html/report.h"

enum { MAX_RECEIPTS = 256 };

enum { O_OUTPUT, O_HOSTS, O_VECTORS, O_ALLOWED, O_ALLOW_UNSIGNED, O_DIVERGENCE, O_DATE, O_README, O_N };
static const opt_row REPORT_OPTIONS[O_N] = {
    [O_OUTPUT] = {"--output", "-o", OPT_VALUE, "PAGE.html", 0, "the page to write (required)"},
    [O_HOSTS] = {"--hosts", NULL, OPT_VALUE, "FILE", 0, "the hosts file (e.g. qemu/hosts.json)"},
    [O_VECTORS] = {"--vectors", NULL, OPT_VALUE, "DIR", 0, "the vector set the receipts are judged against"},
    [O_ALLOWED] = {"--allowed-signers", NULL, OPT_VALUE, "FILE", 0, "who may sign receipts (ssh-keygen format)"},
    [O_ALLOW_UNSIGNED] = {"--allow-unsigned", NULL, OPT_FLAG, NULL, 0, "accept unsigned receipts (this machine's own runs)"},
    [O_DIVERGENCE] = {"--divergence", NULL, OPT_VALUE, "CSV", RP_MAX_DIVERGENCE,
                      "a divergence CSV to plot (make pytorch-divergence)"},
    [O_DATE] = {"--date", NULL, OPT_VALUE, "TEXT", 0, "a date to show on the page (it names none by itself)"},
    [O_README] = {"--readme-href", NULL, OPT_VALUE, "HREF", 0, "where the page links README.md"},
};
static const opt_table REPORT_TABLE = {"report", "receipts as one self-contained HTML page", REPORT_OPTIONS, O_N,
                                       "RECEIPT...", MAX_RECEIPTS};

/* README.md of the current directory as seen from the page's directory
 * ("../../README.md" for build/report/x.html), so the link works when the
 * page is opened from disk in a checkout. */
static char *readme_from(const char *out)
{
    if (out[0] == '/' || strstr(out, ".."))
        return xstrdup("README.md");
    sbuf b;
    sbuf_init(&b);
    for (const char *p = out; (p = strchr(p, '/')) != NULL; p++)
        if (p[1] && p[1] != '/')
            sbuf_adds(&b, "../");
    sbuf_adds(&b, "README.md");
    return sbuf_take(&b);
}

/* The table's values into the page's settings; 2 after a message. */
static int settings(rp_page *p, const opt_given *g, const char **out)
{
    *out = opt_value(g, O_OUTPUT);
    if (!*out) {
        fprintf(stderr, "isotrain-conform report: give the page to write: -o PAGE.html\n");
        opt_usage(stderr, &REPORT_TABLE);
        return 2;
    }
    p->hosts_file = opt_value(g, O_HOSTS);
    p->vectors_dir = opt_value(g, O_VECTORS);
    p->vectors_given = p->vectors_dir != NULL;
    p->allowed_signers = opt_value(g, O_ALLOWED);
    p->allow_unsigned = g[O_ALLOW_UNSIGNED].n > 0;
    p->date = opt_value(g, O_DATE);
    p->readme_href = opt_value(g, O_README);
    return 0;
}

int report_command(int argc, char **argv)
{
    rp_page p;
    memset(&p, 0, sizeof p);
    const char *out = NULL, *receipts[MAX_RECEIPTS];
    size_t nrec = 0;
    opt_given g[O_N];
    int parsed = opt_parse(&REPORT_TABLE, argc, argv, 2, g, receipts, &nrec);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (settings(&p, g, &out) != 0)
        return 2;
    const char *const *divs = g[O_DIVERGENCE].val;
    size_t ndiv = g[O_DIVERGENCE].n;
    for (size_t i = 0; i < ndiv; i++) {
        if (rp_divergence_load(divs[i], &p.div[p.n_div]) != 0) {
            rp_divergence_free(&p.div[p.n_div]);
            rp_page_free(&p);
            return 2;
        }
        p.n_div++;
    }
    char *readme = p.readme_href ? NULL : readme_from(out);
    if (readme)
        p.readme_href = readme;
    if (rp_load(&p, receipts, nrec) != 0) {
        rp_page_free(&p);
        free(readme);
        return 2;
    }
    hw w;
    hw_init(&w);
    rp_render(&w, &p);
    char err[512];
    int rc = write_file(out, w.out.p, w.out.len, err, sizeof err) == 0 ? 0 : 2;
    if (rc) {
        fprintf(stderr, "isotrain-conform report: %s\n", err);
    } else {
        for (size_t i = 0; i < p.n_ref; i++) {
            size_t n = strcspn(p.ref[i].reason, "\n");
            char *first = sanitized(p.ref[i].reason, n, 400);
            fprintf(stderr, "isotrain-conform report: refused %s: %s\n", p.ref[i].file, first);
            free(first);
        }
        printf("report: wrote %s (%zu bytes): %zu receipt%s accepted, %zu refused; %s\n", out, w.out.len, p.nr,
               p.nr == 1 ? "" : "s", p.n_ref, p.nr ? p.summary : "no receipts: the page says nothing is certified yet");
        rc = p.n_ref ? 1 : 0;
    }
    hw_free(&w);
    rp_page_free(&p);
    free(readme);
    return rc;
}

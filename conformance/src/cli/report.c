/* report.c — `isotrain-conform report`: receipts as one self-contained
 * HTML page (issue 22; report/html/). Its options are rows of the one
 * option table (cli_args.c), which also writes its --help:
 *
 *   report [--vectors DIR] [--output PAGE.html] [--hosts FILE] [--allowed-signers FILE]
 *          [--allow-unsigned] [--divergence CSV]... [--date TEXT] [--readme-href HREF] RECEIPT...
 *
 * Exit 0: the page is written and every receipt was accepted; 1: written,
 * but a receipt was refused (the page lists it with the reason); 2: bad
 * usage, an unusable hosts file or divergence CSV, or the page could not be
 * written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "report/html/report.h"

_Static_assert((int)CONFORM_MAX_DIVERGENCE <= (int)RP_MAX_DIVERGENCE, "every --divergence has its place in the page");

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

/* The options into the page's settings. */
static void settings(rp_page *p, const conform_args *a)
{
    p->hosts_file = a->hosts;
    p->vectors_dir = a->vectors_given ? a->vectors : NULL;
    p->vectors_given = a->vectors_given;
    p->allowed_signers = a->allowed_signers;
    p->allow_unsigned = a->allow_unsigned;
    p->date = a->date;
    p->readme_href = a->readme_href;
}

int report_command(const conform_args *a)
{
    rp_page p;
    memset(&p, 0, sizeof p);
    const char *out = a->output;
    settings(&p, a);
    for (size_t i = 0; i < a->n_divergence; i++) {
        if (rp_divergence_load(a->divergence[i], &p.div[p.n_div]) != 0) {
            rp_divergence_free(&p.div[p.n_div]);
            rp_page_free(&p);
            return 2;
        }
        p.n_div++;
    }
    char *readme = p.readme_href ? NULL : readme_from(out);
    if (readme)
        p.readme_href = readme;
    if (rp_load(&p, a->operands, a->n_operands) != 0) {
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

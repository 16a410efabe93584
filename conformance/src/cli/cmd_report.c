/* cmd_report.c — `isotrain-conform report`: receipts as one self-contained
 * HTML page (issue 22; report/html/). Its options are its own (parsed here,
 * so the command adds no field to the shared option set):
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
#include "report/html/report.h"

enum { MAX_RECEIPTS = 256 };

static int usage(const char *why)
{
    fprintf(stderr,
            "isotrain-conform report: %s\n"
            "usage: isotrain-conform report [--hosts FILE] [--vectors DIR] [--allowed-signers FILE] [--allow-unsigned]\n"
            "           [--divergence CSV]... [--date TEXT] [--readme-href HREF] -o PAGE.html RECEIPT...\n",
            why);
    return 2;
}

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

int report_command(int argc, char **argv)
{
    rp_page p;
    memset(&p, 0, sizeof p);
    const char *out = NULL, *receipts[MAX_RECEIPTS], *divs[RP_MAX_DIVERGENCE];
    size_t nrec = 0, ndiv = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "-", 1) != 0 || !strcmp(a, "-")) {
            if (nrec == MAX_RECEIPTS)
                return usage("too many receipts (at most 256)");
            receipts[nrec++] = a;
            continue;
        }
        char flag[64];
        const char *val = NULL, *eq = strchr(a, '=');
        if (eq && !strncmp(a, "--", 2)) {
            snprintf(flag, sizeof flag, "%.*s", (int)(eq - a), a);
            val = eq + 1;
        } else
            snprintf(flag, sizeof flag, "%s", a);
        if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            usage("receipts as one self-contained HTML page");
            return 0;
        }
        if (!strcmp(flag, "--allow-unsigned") && !val) {
            p.allow_unsigned = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= argc)
                return usage("an option needs a value");
            val = argv[++i];
        }
        if (!strcmp(flag, "-o") || !strcmp(flag, "--output"))
            out = val;
        else if (!strcmp(flag, "--hosts"))
            p.hosts_file = val;
        else if (!strcmp(flag, "--vectors"))
            p.vectors_dir = val, p.vectors_given = 1;
        else if (!strcmp(flag, "--allowed-signers"))
            p.allowed_signers = val;
        else if (!strcmp(flag, "--date"))
            p.date = val;
        else if (!strcmp(flag, "--readme-href"))
            p.readme_href = val;
        else if (!strcmp(flag, "--divergence")) {
            if (ndiv == RP_MAX_DIVERGENCE)
                return usage("at most 4 --divergence files");
            divs[ndiv++] = val;
        } else {
            char why[128];
            snprintf(why, sizeof why, "unknown option '%.64s'", flag);
            return usage(why);
        }
    }
    if (!out)
        return usage("give the page to write: -o PAGE.html");
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

/* results.c — see results.h. */
#include "core/results.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char *verdict_name(verdict v)
{
    switch (v) {
    case V_PASS: return "PASS";
    case V_FAIL: return "FAIL";
    case V_SKIP: return "SKIP";
    case V_ERROR: return "ERROR";
    }
    return "?";
}

const char *level_verdict_name(level_verdict v)
{
    switch (v) {
    case L_NOT_RUN: return "NOT RUN";
    case L_PASS: return "PASS";
    case L_FAIL: return "FAIL";
    case L_NOT_REACHED: return "NOT REACHED";
    case L_ERROR: return "ERROR";
    }
    return "?";
}

void results_init(results *r)
{
    r->c = NULL;
    r->n = r->cap = 0;
}

void results_free(results *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->c[i].level);
        free(r->c[i].suite);
        free(r->c[i].id);
        free(r->c[i].reason);
    }
    free(r->c);
    results_init(r);
}

void results_add(results *r, const char *level, const char *suite, const char *id, verdict v, const char *reason,
                 int required, double seconds)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->c = xrealloc(r->c, r->cap * sizeof *r->c);
    }
    case_result *c = &r->c[r->n++];
    c->level = xstrdup(level);
    c->suite = xstrdup(suite);
    c->id = xstrdup(id);
    c->v = v;
    c->reason = reason ? xstrdup(reason) : NULL;
    c->required = required;
    c->seconds = seconds;
}

tally results_tally(const results *r, const char *level)
{
    tally t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < r->n; i++) {
        const case_result *c = &r->c[i];
        if (level && strcmp(c->level, level) != 0)
            continue;
        switch (c->v) {
        case V_PASS: t.passed++; break;
        case V_FAIL: t.failed++; break;
        case V_ERROR: t.errors++; break;
        case V_SKIP:
            t.skipped++;
            t.skipped_required += c->required != 0;
            break;
        }
    }
    return t;
}

level_verdict level_from_tally(tally t)
{
    if (t.failed || t.errors)
        return L_FAIL;
    if (t.skipped_required || t.passed == 0)
        return L_NOT_REACHED;
    return L_PASS;
}

level_verdict level_from_cases(const results *r, const char *level, const char *session_id)
{
    level_verdict v = level_from_tally(results_tally(r, level));
    for (size_t i = 0; session_id && v == L_PASS && i < r->n; i++)
        if (r->c[i].v == V_ERROR && !strcmp(r->c[i].id, session_id) && !strcmp(r->c[i].level, "protocol"))
            v = L_ERROR;
    return v;
}

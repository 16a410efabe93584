/* dsse.c — see dsse.h. DSSE: github.com/secure-systems-lab/dsse (envelope,
 * protocol); in-toto Statement v1 and the test-result v0.1 predicate:
 * github.com/in-toto/attestation. */
#include "trust/dsse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_strict.h"
#include "trust/receipt_model.h"
#include "trust/sshsig.h"

void dsse_pae(sbuf *out, const char *type, const void *body, size_t len)
{
    sbuf_printf(out, "DSSEv1 %zu %s %zu ", strlen(type), type, len);
    sbuf_add(out, body, len);
}

static void add_subject(cJSON *arr, const char *name, const char *sha)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", name);
    cJSON *d = cJSON_AddObjectToObject(s, "digest");
    cJSON_AddStringToObject(d, "sha256", sha);
    cJSON_AddItemToArray(arr, s);
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *intoto_statement(const cJSON *receipt)
{
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "_type", INTOTO_STATEMENT);
    cJSON *subj = cJSON_AddArrayToObject(st, "subject");
    const cJSON *iut = rm_in(receipt, RF_IUT);
    const cJSON *bin = iut ? rm_in(iut, RF_IUT_BINARY) : NULL;
    const char *bsha = bin ? rm_str(bin, RF_IUT_BINARY_SHA256) : NULL;
    if (bsha) {
        const char *p = rm_str(bin, RF_IUT_BINARY_PATH);
        char *name = xasprintf("iut:%s", p ? p : "?");
        add_subject(subj, name, bsha);
        free(name);
    }
    /* every file the argv form binds (iut.subject.files): the executable
     * that ran, its interpreter, the script, the emulator's guest */
    const cJSON *sj = iut ? rm_in(iut, RF_IUT_SUBJECT) : NULL;
    const cJSON *files = sj ? rm_in(sj, RF_IUT_SUBJECT_FILES) : NULL;
    const cJSON *f;
    cJSON_ArrayForEach(f, files)
    {
        const char *sha = rm_str(f, RF_IUT_SUBJECT_FILES_SHA256), *role = rm_str(f, RF_IUT_SUBJECT_FILES_ROLE), *fp = rm_str(f, RF_IUT_SUBJECT_FILES_PATH);
        if (!sha || (bsha && !strcmp(sha, bsha)))
            continue;
        char *name = xasprintf("iut:%s:%s", role ? role : "file", fp ? fp : "?");
        add_subject(subj, name, sha);
        free(name);
    }
    const cJSON *vec = rm_in(receipt, RF_VECTORS);
    const char *md = vec ? rm_str(vec, RF_VECTORS_MANIFEST_DIGEST) : NULL;
    const char *vv = vec ? rm_str(vec, RF_VECTORS_VECTOR_VERSION) : NULL;
    if (md) {
        char *name = xasprintf("isotrain-vectors:%s:manifest", vv ? vv : "?");
        add_subject(subj, name, md);
        free(name);
    }
    cJSON_AddStringToObject(st, "predicateType", INTOTO_TEST_RESULT);
    cJSON *pred = cJSON_AddObjectToObject(st, "predicate");
    const char *verdict = rm_str(receipt, RF_VERDICT);
    cJSON_AddStringToObject(pred, "result", verdict && !strcmp(verdict, "PASS") ? "pass" : "fail");
    cJSON *conf = cJSON_AddArrayToObject(pred, "configuration");
    if (md) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "name", "MANIFEST.json (vectors/FORMAT.md §4 manifest_digest)");
        cJSON *d = cJSON_AddObjectToObject(c, "digest");
        cJSON_AddStringToObject(d, "sha256", md);
        cJSON_AddItemToArray(conf, c);
    }
    cJSON *passed = cJSON_AddArrayToObject(pred, "passedTests");
    cJSON *warned = cJSON_AddArrayToObject(pred, "warnedTests");
    cJSON *failed = cJSON_AddArrayToObject(pred, "failedTests");
    const cJSON *cases = rm_in(receipt, RF_CASES);
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
    {
        const char *id = rm_str(c, RF_CASES_ID), *v = rm_str(c, RF_CASES_VERDICT);
        if (!id || !v)
            continue;
        cJSON *to = !strcmp(v, "PASS") ? passed : !strcmp(v, "SKIP") ? warned : failed;
        cJSON_AddItemToArray(to, cJSON_CreateString(id));
    }
    cJSON_AddItemToObject(pred, RECEIPT_EXTENSION, cJSON_Duplicate(receipt, 1));
    return st;
}

char *dsse_envelope(const cJSON *statement, const char *key, char *err, size_t cap)
{
    char *payload = cJSON_PrintUnformatted(statement);
    if (!payload) {
        snprintf(err, cap, "cannot render the statement");
        return NULL;
    }
    char *text = dsse_envelope_bytes(payload, strlen(payload), key, err, cap);
    free(payload);
    return text;
}

char *dsse_envelope_bytes(const void *payload, size_t plen, const char *key, char *err, size_t cap)
{
    cJSON *env = cJSON_CreateObject();
    cJSON_AddStringToObject(env, "payloadType", DSSE_PAYLOAD_TYPE);
    sbuf b;
    sbuf_init(&b);
    b64_encode(&b, payload, plen);
    cJSON_AddStringToObject(env, "payload", b.p ? b.p : "");
    sbuf_free(&b);
    cJSON *sigs = cJSON_AddArrayToObject(env, "signatures");
    int bad = 0;
    if (key) {
        /* DSSE signs the pre-authentication encoding, never the bare payload */
        sbuf pae;
        sbuf_init(&pae);
        dsse_pae(&pae, DSSE_PAYLOAD_TYPE, payload, plen);
        char *armored;
        if (sshsig_sign(key, pae.p, pae.len, &armored, err, cap) != 0)
            bad = 1;
        else {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddStringToObject(s, "keyid", "");
            sbuf sb;
            sbuf_init(&sb);
            b64_encode(&sb, armored, strlen(armored));
            cJSON_AddStringToObject(s, "sig", sb.p);
            sbuf_free(&sb);
            cJSON_AddItemToArray(sigs, s);
            free(armored);
        }
        sbuf_free(&pae);
    }
    char *text = bad ? NULL : cJSON_Print(env);
    cJSON_Delete(env);
    return text;
}

void dsse_opened_free(dsse_opened *o)
{
    free(o->payload);
    cJSON_Delete(o->statement);
    for (size_t i = 0; i < o->n_sigs; i++)
        free(o->sigs[i]), free(o->keyids[i]);
    free(o->sigs);
    free(o->keyids);
    memset(o, 0, sizeof *o);
}

int dsse_open(const char *file, const char *text, size_t len, dsse_opened *o, problems *pr)
{
    memset(o, 0, sizeof *o);
    char why[256] = "";
    cJSON *env = json_parse_strict(text, len, why, sizeof why); /* core/json_strict.h */
    if (!cJSON_IsObject(env)) {
        problems_add(pr, "%s: not a JSON object (a DSSE envelope is expected)%s%s", file, why[0] ? ": " : "", why);
        cJSON_Delete(env);
        return -1;
    }
    int rc = -1;
    const char *pt = jstr(env, "payloadType"), *pl = jstr(env, "payload");
    const cJSON *sigs = cJSON_GetObjectItemCaseSensitive(env, "signatures");
    if (!pt || strcmp(pt, DSSE_PAYLOAD_TYPE) != 0)
        problems_add(pr, "%s: payloadType: expected \"%s\"", file, DSSE_PAYLOAD_TYPE);
    else if (!pl || b64_decode(pl, strlen(pl), &o->payload, &o->payload_len) != 0)
        problems_add(pr, "%s: payload: expected standard base64 (DSSE)", file);
    else if (!cJSON_IsArray(sigs))
        problems_add(pr, "%s: signatures: expected an array", file);
    else {
        o->statement = json_parse_strict((const char *)o->payload, o->payload_len, why, sizeof why);
        const cJSON *pred = o->statement ? cJSON_GetObjectItemCaseSensitive(o->statement, "predicate") : NULL;
        const char *ty = o->statement ? jstr(o->statement, "_type") : NULL;
        const char *pty = o->statement ? jstr(o->statement, "predicateType") : NULL;
        if (!cJSON_IsObject(o->statement))
            problems_add(pr, "%s: payload: not a JSON object (an in-toto Statement)%s%s", file,
                         o->statement ? "" : ": ", o->statement ? "" : why);
        else if (!ty || strcmp(ty, INTOTO_STATEMENT) != 0)
            problems_add(pr, "%s: payload._type: expected \"%s\"", file, INTOTO_STATEMENT);
        else if (!pty || strcmp(pty, INTOTO_TEST_RESULT) != 0)
            problems_add(pr, "%s: payload.predicateType: expected \"%s\"", file, INTOTO_TEST_RESULT);
        else if (!cJSON_IsObject(pred) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(pred, RECEIPT_EXTENSION)))
            problems_add(pr, "%s: payload.predicate.%s: missing (the isotrain receipt)", file, RECEIPT_EXTENSION);
        else {
            o->receipt = cJSON_GetObjectItemCaseSensitive(pred, RECEIPT_EXTENSION);
            size_t n = (size_t)cJSON_GetArraySize(sigs);
            o->sigs = xcalloc(n + 1, sizeof *o->sigs);
            o->keyids = xcalloc(n + 1, sizeof *o->keyids);
            rc = 0;
            const cJSON *s;
            cJSON_ArrayForEach(s, sigs)
            {
                const char *sig = jstr(s, "sig");
                unsigned char *raw;
                size_t rl;
                if (!sig || b64_decode(sig, strlen(sig), &raw, &rl) != 0) {
                    problems_add(pr, "%s: signatures[%zu].sig: expected standard base64", file, o->n_sigs);
                    rc = -1;
                    continue;
                }
                o->sigs[o->n_sigs] = xstrndup((const char *)raw, rl);
                free(raw);
                const char *k = jstr(s, "keyid");
                o->keyids[o->n_sigs++] = xstrdup(k ? k : "");
            }
        }
    }
    cJSON_Delete(env);
    return rc;
}

size_t dsse_check_signers(const char *file, const dsse_opened *o, const char *allowed, dsse_signer *first,
                          problems *pr)
{
    memset(first, 0, sizeof *first);
    size_t good = 0;
    sbuf pae;
    sbuf_init(&pae);
    dsse_pae(&pae, DSSE_PAYLOAD_TYPE, o->payload, o->payload_len);
    for (size_t i = 0; i < o->n_sigs; i++) {
        char err[512], fp[64], *p;
        if (sshsig_fingerprint(o->sigs[i], fp) != 0) {
            problems_add(pr, "%s: signatures[%zu]: not an SSH signature (ssh-keygen -Y sign)", file, i);
            continue;
        }
        if (!allowed) {
            problems_add(pr, "%s: signatures[%zu]: signed by the key %s, but there is no allowed-signers file to check it "
                             "against (give --allowed-signers FILE)", file, i, fp);
            continue;
        }
        if (sshsig_verify(allowed, pae.p, pae.len, o->sigs[i], &p, err, sizeof err) == 0) {
            if (!first->principal) {
                first->principal = p;
                snprintf(first->fingerprint, sizeof first->fingerprint, "%s", fp);
                first->cls = key_class_of(fp);
                first->words = signer_words(p, fp);
            } else
                free(p);
            good++;
        } else
            problems_add(pr, "%s: signatures[%zu]: key %s: %s", file, i, fp, err);
    }
    sbuf_free(&pae);
    return good;
}

void dsse_signer_free(dsse_signer *s)
{
    free(s->principal);
    free(s->words);
    memset(s, 0, sizeof *s);
}

size_t dsse_check_signatures(const char *file, const dsse_opened *o, const char *allowed, char **who, problems *pr)
{
    dsse_signer s;
    size_t good = dsse_check_signers(file, o, allowed, &s, pr);
    *who = s.principal;
    s.principal = NULL;
    dsse_signer_free(&s);
    return good;
}

int dsse_write_file(const char *path, char *text, char *err, size_t cap)
{
    sbuf b;
    sbuf_init(&b);
    sbuf_adds(&b, text);
    sbuf_addc(&b, '\n');
    free(text);
    int r = write_file(path, b.p, b.len, err, cap);
    sbuf_free(&b);
    return r;
}

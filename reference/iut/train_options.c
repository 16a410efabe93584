/* The train verb's options: ONE table (iut-protocol P7), the syntax of each
 * value, and the refusals every front end gives in the same words. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iut.h"
#include "iut_options.h"
#include "wire.h"

#define usage_error(err, cap, ...) it_errf((err), (cap), IUT_EXIT_USAGE, __VA_ARGS__)

/* P7 (1.1.1): N and K are P4 ints */
static int p4_u32(const char *flag, const char *v, uint32_t *out, char *err, size_t cap)
{
    char why[160];
    uint64_t x;
    if (wire_parse_int(v, strlen(v), UINT32_MAX, &x, why, sizeof why) != 0)
        return usage_error(err, cap,
                           "%s expects a decimal integer 0..4294967295 (P4 int: no sign, no leading zeros), got "
                           "'%s': %s", flag, v, why);
    *out = (uint32_t)x;
    return 0;
}

/* P7 (1.1.1): LIST is a P4 int array (at least one element, single commas) */
static int p4_list(const char *flag, const char *v, uint32_t **list, size_t *n, char *err, size_t cap)
{
    char why[200];
    if (wire_parse_ints(v, strlen(v), UINT32_MAX, list, n, why, sizeof why) != 0)
        return usage_error(err, cap, "%s expects %sstep numbers separated by single commas (P4 int[n]), got '%s': %s",
                           flag, strcmp(flag, "--checkpoint-steps") == 0 ? "'all' or " : "", v, why);
    return 0;
}

static int set_steps(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    return p4_u32(flag, v, &r->steps, err, cap);
}

static int set_from_step(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    return p4_u32(flag, v, &r->from_step, err, cap);
}

/* threads split independent outputs only (spec §13.5): a speed knob */
static int set_threads(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    if (p4_u32(flag, v, &r->threads, err, cap) != 0 || r->threads < 1 || r->threads > 64)
        return usage_error(err, cap, "%s expects 1..64, got '%s'", flag, v);
    return 0;
}

static int set_block_bytes(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    if (p4_u32(flag, v, &r->block_bytes, err, cap) != 0 || r->block_bytes < 4)
        return usage_error(err, cap, "%s expects 4 or more, got '%s'", flag, v);
    return 0;
}

/* iut-protocol P7 (1.1.0): spec 6.2's u64 seed in P4's int syntax */
static int set_seed(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    char why[160];
    if (wire_parse_int(v, strlen(v), UINT64_MAX, &r->seed, why, sizeof why) != 0)
        return usage_error(err, cap,
                           "%s expects a decimal integer 0..18446744073709551615 (no sign, no leading zeros), got "
                           "'%s': %s", flag, v, why);
    return 0;
}

static int set_checkpoint_steps(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    r->all_steps = strcmp(v, "all") == 0;
    return r->all_steps ? 0 : p4_list(flag, v, &r->ck, &r->n_ck, err, cap);
}

/* spec 8.3 (1.2.0): the complete state at these steps */
static int set_state_steps(iut_train_request *r, const char *flag, const char *v, char *err, size_t cap)
{
    return p4_list(flag, v, &r->sk, &r->n_sk, err, cap);
}

#define AT(field) offsetof(iut_train_request, field)

/* name, takes a value, data-parallel front ends only, the value's parser
 * (NULL: the text itself, or 1 for a flag, into the field at the offset) */
const iut_option iut_train_options[] = {
    {"--profile", 1, 0, NULL, AT(profile_name)},
    {"--steps", 1, 0, set_steps, 0},
    {"--trace", 1, 0, NULL, AT(trace_path)},
    {"--seed", 1, 0, set_seed, 0},
    {"--checkpoint-dir", 1, 0, NULL, AT(dir)},
    {"--checkpoint-steps", 1, 0, set_checkpoint_steps, 0},
    {"--state-steps", 1, 0, set_state_steps, 0},
    {"--resume", 1, 0, NULL, AT(opt.resume_dir)},
    {"--from-step", 1, 0, set_from_step, 0},
    {"--threads", 1, 0, set_threads, 0},
    {"--force-ftz", 0, 0, NULL, AT(force_ftz)},
    {"--block-bytes", 1, 1, set_block_bytes, 0},
    {"--stats", 0, 1, NULL, AT(stats)},
    {"--recipe", 1, 0, NULL, AT(recipe_path)},
};
const size_t iut_n_train_options = sizeof iut_train_options / sizeof iut_train_options[0];

/* The syntax of the command line (P7): every option known, once, with its
 * value. The first error wins; r holds what was parsed so far. */
int iut_parse_train_options(int argc, char **argv, int data_parallel, iut_train_request *r, char *err, size_t cap)
{
    for (int i = 0; i < argc; i++) {
        size_t k = 0;
        while (k < iut_n_train_options &&
               (strcmp(argv[i], iut_train_options[k].name) != 0 || (iut_train_options[k].data_parallel && !data_parallel)))
            k++;
        if (k == iut_n_train_options)
            return usage_error(err, cap, "unknown option '%s'", argv[i]);
        const iut_option *o = &iut_train_options[k];
        if (r->given & (1ul << k)) /* P7 (1.1.1): each option once */
            return usage_error(err, cap, "option '%s' given twice", o->name);
        r->given |= 1ul << k;
        if (o->takes_value && i + 1 >= argc)
            return usage_error(err, cap, "option '%s' needs a value", o->name);
        char *field = (char *)r + o->field;
        if (o->set) {
            int rc = o->set(r, o->name, o->takes_value ? argv[++i] : NULL, err, cap);
            if (rc != 0)
                return rc;
        } else if (o->takes_value)
            *(const char **)(void *)field = argv[++i];
        else
            *(int *)(void *)field = 1;
    }
    return 0;
}

int iut_given(const iut_train_request *r, const char *name)
{
    for (size_t k = 0; k < iut_n_train_options; k++)
        if (strcmp(iut_train_options[k].name, name) == 0)
            return (r->given >> k) & 1ul;
    return 0;
}

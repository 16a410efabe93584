/* The typed entry points of isotrain.h (it_mlp13k_*, it_gptchar_*) as views
 * of the run loop's it_train_state: a typed state holds some of its fields
 * under the same names, and a layout (one row per typed state, in
 * <profile>_train.c) says where; the view, the call and the copy back are
 * this one code for every profile. */
#include <string.h>

#include "profile_steps.h"

/* it_train_state's fields in the order of it_typed_layout.at: the arrays
 * (params, grads, m, v) are pointers into the typed state, the rest values
 * copied in and back out */
static const struct {
    size_t off, size;
    int array;
} FIELD[IT_TYPED_FIELDS] = {
    {offsetof(it_train_state, params), sizeof(float *), 1},
    {offsetof(it_train_state, grads), sizeof(float *), 1},
    {offsetof(it_train_state, m), sizeof(float *), 1},
    {offsetof(it_train_state, v), sizeof(float *), 1},
    {offsetof(it_train_state, clock), sizeof(it_adamw_clock), 0},
    {offsetof(it_train_state, step), sizeof(uint32_t), 0},
    {offsetof(it_train_state, last_loss), sizeof(float), 0},
    {offsetof(it_train_state, last_lr), sizeof(float), 0},
    {offsetof(it_train_state, last_norm), sizeof(float), 0},
    {offsetof(it_train_state, bad_index), sizeof(size_t), 0},
};

static it_train_state view(const it_typed_layout *L, void *s)
{
    it_train_state v = {0};
    for (size_t i = 0; i < IT_TYPED_FIELDS; i++) {
        if (L->at[i] == IT_NO_FIELD)
            continue;
        char *field = (char *)s + L->at[i];
        if (FIELD[i].array)
            *(float **)(void *)((char *)&v + FIELD[i].off) = (float *)(void *)field;
        else
            memcpy((char *)&v + FIELD[i].off, field, FIELD[i].size);
    }
    return v;
}

static void unview(const it_typed_layout *L, const it_train_state *v, void *s)
{
    for (size_t i = 0; i < IT_TYPED_FIELDS; i++)
        if (L->at[i] != IT_NO_FIELD && !FIELD[i].array)
            memcpy((char *)s + L->at[i], (const char *)v + FIELD[i].off, FIELD[i].size);
}

void it_typed_start(const it_profile *p, const it_typed_layout *L, const it_train_config *c, void *s)
{
    it_train_state v = view(L, s);
    it_train_start(p, c, &v);
    unview(L, &v, s);
}

it_status it_typed_step(const it_profile *p, const it_typed_layout *L, const it_train_config *c, void *s)
{
    it_train_state v = view(L, s);
    it_status st = it_train_step_alone(p, c, &v);
    unview(L, &v, s);
    return st;
}

it_status it_typed_run(const it_profile *p, const it_typed_layout *L, const it_train_config *c,
                       const it_run_options *o, const it_reducer *rd, void *s, char *err, size_t cap)
{
    it_train_state v = view(L, s);
    it_status st = it_train_run_profile(p, c, o, rd, &v, err, cap);
    unview(L, &v, s);
    return st;
}

it_status it_typed_step_run(const it_train_run *run, const it_typed_layout *L, void *s)
{
    it_train_state v = view(L, s);
    it_train_run r = *run;
    r.s = &v;
    it_status st = it_train_step(&r);
    unview(L, &v, s);
    return st;
}

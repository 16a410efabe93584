/* option_table.h — a command's options as data: one row per option (its
 * spellings, the kind and name of its argument, how many times it may be
 * given, its help line), from which one parser reads argv and one printer
 * writes --help. A parse error names the option and what it expected.
 *
 * `report` is read through it (cli/cmd_report.c). `run`, `verify` and
 * `matrix` are still read by cli_args.c; they join by giving their options
 * as rows here (the option set they fill, conform_args, stays as it is). */
#ifndef CONFORM_CLI_OPTION_TABLE_H
#define CONFORM_CLI_OPTION_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    OPT_FLAG, /* no argument: given or not */
    OPT_VALUE /* one argument, "--name VALUE" or "--name=VALUE" */
} opt_kind;

typedef struct {
    const char *name;  /* "--hosts" */
    const char *alias; /* "-o", or NULL */
    opt_kind kind;
    const char *arg;   /* the argument's name in messages and --help: "FILE" */
    size_t max;        /* how many times it may be given (0: once) */
    const char *help;  /* one line */
} opt_row;

/* What was given for row i: how many times, and the values (in order; an
 * OPT_FLAG's are NULL). */
enum { OPT_MAX_VALUES = 16 };
typedef struct {
    size_t n;
    const char *val[OPT_MAX_VALUES];
} opt_given;

/* A command's table and its operands' description. */
typedef struct {
    const char *command;  /* "report" */
    const char *summary;  /* what the command does, one line */
    const opt_row *rows;
    size_t n_rows;
    const char *operands; /* "RECEIPT...", for the usage line */
    size_t max_operands;
} opt_table;

/* Reads argv[first..argc): options into given[row] (the caller's array of
 * t->n_rows), the other words ("-" and any word not starting with '-')
 * into operands. Returns 0; 1 after printing --help (-h) on stdout; 2 after
 * naming the problem and the usage on stderr. */
int opt_parse(const opt_table *t, int argc, char **argv, int first, opt_given *given, const char **operands,
              size_t *n_operands);

/* The usage line and one line per row, generated from the table. */
void opt_usage(FILE *o, const opt_table *t);

/* The last value given for row i, or NULL. */
const char *opt_value(const opt_given *given, size_t i);

#endif

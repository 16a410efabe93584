/* option_table.h — the command line as data: one row per option (its
 * spellings, the kind, range and default of its argument, how many times it
 * may be given, the commands that take it, its help line) and one row per
 * command (its operands, what it does). One parser reads argv through the
 * rows into conform_args; one printer writes --help, global and per command.
 * Every parse error names the option and what it expected.
 *
 * The rows of isotrain-conform are cli_args.c's (cli_spec()); the engine
 * here knows none of them, so a test can drive it with a table of its own. */
#ifndef CONFORM_CLI_OPTION_TABLE_H
#define CONFORM_CLI_OPTION_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "core/options.h"

typedef enum {
    OPT_FLAG,   /* no argument: sets an int to 1 */
    OPT_TEXT,   /* a word: a const char * */
    OPT_CHOICE, /* one of the words of `arg` ("ops|train|all"): a const char * */
    OPT_UINT,   /* a decimal integer in lo..hi, no sign, no leading zero: a long */
    OPT_REAL    /* a decimal number in lo..hi: a double */
} opt_kind;

/* The set of commands that take a row: OPT_IN(CMD_RUN) | OPT_IN(CMD_REPEAT) */
#define OPT_IN(cmd) (1u << (cmd))

/* For an option whose value means more than one field (a list, a flag set
 * beside it, a check across options): stores VAL, or writes what it expected
 * into err (the option's name is added in front) and returns -1. */
typedef int (*opt_store_fn)(conform_args *a, const char *val, char *err, size_t cap);

typedef struct {
    const char *name;  /* "--hosts" */
    const char *alias; /* "-o", or NULL */
    opt_kind kind;
    const char *arg;   /* the argument's name in messages and --help ("FILE"; OPT_CHOICE: the choices) */
    double lo, hi;     /* OPT_UINT, OPT_REAL: the range */
    const char *dflt;  /* the default, parsed like a given value before argv is read; NULL: none */
    unsigned cmds;     /* OPT_IN(...) of each command that takes it */
    size_t max;        /* how many times it may be given (0: once) */
    size_t off;        /* offsetof(conform_args, field) the kind stores into */
    opt_store_fn store; /* instead of off, or NULL */
    const char *help;  /* one line */
    size_t given;      /* OPT_GIVEN(field): an int set to 1 when argv gives the option (never by its
                        * default: a default and the same value given may mean different things); 0: none */
} opt_row;

/* The given column: the offset is kept + 1 so that 0 can say "no mark". */
#define OPT_GIVEN(field) (offsetof(conform_args, field) + 1)

typedef struct {
    conform_cmd cmd;
    const char *name;      /* "compare" */
    const char *operands;  /* "TRACE_A TRACE_B", for the usage line */
    size_t max_operands;   /* into a->operands */
    int iut_after_dashes;  /* takes "-- PROGRAM [ARG]..." (the IUT's argv form) */
    const char *summary;   /* what it does, lines of at most 80 columns, each ending in '\n' */
} opt_command;

typedef struct {
    const char *program; /* "isotrain-conform" */
    const opt_command *cmds;
    size_t n_cmds;
    const opt_row *rows;
    size_t n_rows;
    const char *epilogue; /* the global --help's last words, or NULL */
} opt_spec;

enum { OPT_MAX_ROWS = 64 };

/* The command named by WORD, or NULL. */
const opt_command *opt_find_command(const opt_spec *s, const char *word);

/* Reads argv[first..argc) for command c into a (whose defaults the rows'
 * dflt set first): 0; 1 when --help/-h asked for c's help (not printed);
 * -1 with the problem in err, naming the option and what it expected. */
int opt_parse(const opt_spec *s, const opt_command *c, int argc, char **argv, int first, conform_args *a,
              char *err, size_t cap);

/* c's usage line, generated from the rows it takes. */
void opt_usage_line(FILE *o, const opt_spec *s, const opt_command *c);
/* c's help: the usage line, what it does, one line per row it takes. */
void opt_command_help(FILE *o, const opt_spec *s, const opt_command *c);
/* The global help: every command's usage line and summary, then every row
 * with the commands that take it. */
void opt_help(FILE *o, const opt_spec *s);

/* isotrain-conform's own table (cli_args.c). */
const opt_spec *cli_spec(void);

#endif

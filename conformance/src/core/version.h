/* version.h — the suite's own version, the git revision it was built from
 * (passed with -D at build time: the full commit id, "-dirty" appended when
 * the tracked files differed from it, "unknown" outside a checkout) and its
 * default vector set. */
#ifndef CONFORM_VERSION_H
#define CONFORM_VERSION_H

/* The runner's own version. */
#define CONFORM_VERSION "1.2.0"
/* The spec text the runner judges by: 1.3.0, whose requirements are 1.2.1's
 * plus the GPT family's recipes (§16, P7 `train --recipe`), and every
 * earlier version's. */
#define CONFORM_SPEC_VERSION "1.3.0"
/* The newest official set: a run without --vectors is held to everything
 * the spec specifies (an older IUT is judged by its claim, spec §1.4). */
#define CONFORM_DEFAULT_VECTOR_SET "v1.3.0"

const char *conform_git_revision(void);
/* vectors/v1.2.0 when the current directory has it, else the installed set */
const char *conform_default_vectors(void);
/* The same lookup for any set ("v1.1.0"): vectors/SET when the current
 * directory has it, else the installed copy (the caller frees it). `run`'s
 * default and `verify`'s set of a receipt are found this one way. */
char *conform_vectors_dir(const char *set);

/* Who may sign receipts, by default (verify, matrix): the checkout's
 * vectors/KEYS/allowed_signers when the current directory has it, else the
 * installed PREFIX/share/isotrain/KEYS/allowed_signers; NULL if neither
 * exists (then --allowed-signers FILE is needed to check a signature). */
const char *conform_default_allowed_signers(void);

#endif

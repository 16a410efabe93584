/* version.h — the suite's own version and the git revision it was built from
 * (passed with -D at build time; "unknown" outside a checkout). */
#ifndef CONFORM_VERSION_H
#define CONFORM_VERSION_H

#define CONFORM_VERSION "1.0.0"

const char *conform_git_revision(void);

#endif

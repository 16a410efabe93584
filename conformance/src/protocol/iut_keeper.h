/* iut_keeper.h — the keeper of each IUT process tree (its calls are
 * contain_*): nothing an IUT starts outlives the verb that started it, and
 * the runner can be interrupted without leaving anything behind
 * (spec/iut-protocol.md P8, "containment").
 *
 * On Linux the runner makes itself a child subreaper, so every process the
 * IUT starts — even one that calls setsid() or double-forks out of the IUT's
 * process group — is re-parented to the runner when its parent dies, and
 * can be found and killed. Elsewhere only the IUT's process group is killed. */
#ifndef CONFORM_IUT_KEEPER_H
#define CONFORM_IUT_KEEPER_H

#include <stddef.h>

/* Once at start-up of a command that runs IUTs: subreaper, SIGPIPE ignored
 * (a closed IUT stdin must be an EPIPE), SIGTERM/SIGINT/SIGHUP recorded
 * instead of killing the runner, so it can kill the tree, remove its work
 * directories and write an ERROR receipt. */
void contain_init(void);

/* The signal that interrupted the runner (SIGTERM, SIGINT, SIGHUP), or 0.
 * Every wait on an IUT ends early once it is set. */
int contain_interrupted(void);

/* Kills every descendant of the runner (SIGKILL) and reaps it; repeats
 * until none is left, so a process forking while it is killed is caught on
 * the next round. Returns how many processes it killed. Call it only when no
 * IUT process of the runner's own is still meant to run. */
int contain_kill_descendants(void);

/* The number of live (not zombie) descendants of the runner. */
int contain_count_descendants(void);

/* The keeper of one IUT process tree (P8 "Containment"; conformance/README.md).
 * Forks a keeper process K, which becomes the process group of the tree and
 * makes sure nothing the IUT starts outlives it — even when the runner itself
 * is killed with SIGKILL:
 *   - where the kernel allows (root, or unprivileged user namespaces), K
 *     puts the IUT in a PID namespace of its own, whose init (K's only child,
 *     with PR_SET_PDEATHSIG) the kernel tears down with every process in it
 *     when K or the runner dies or the IUT exits;
 *   - otherwise K is a child subreaper that watches a pipe held by the runner
 *     (its "lifeline"): when the IUT exits, or the runner dies however it
 *     dies (EOF on the lifeline), K kills every descendant it has.
 * exec_child(ctx) runs in the process that becomes the IUT (it execs, or
 * _exits); keep_fds are the descriptors it needs (everything else is closed
 * in K). K exits the way the IUT did (its exit status, or its signal), so
 * the runner waits for K as it would for the IUT. ISOTRAIN_CONFORM_CONTAIN=
 * keeper forces the fallback (its tests), =pidns requires the namespace.
 * Returns K's pid, or -1 with a message; *proc_pid gets K's pid as /proc
 * names it. */
int contain_spawn(void (*exec_child)(void *ctx), void *ctx, const int *keep_fds, size_t n_keep, long *proc_pid,
                  char *err, size_t cap);
/* This process's pid as /proc names it (the runner may itself run in a
 * PID namespace below /proc's; its tests run it so). *proc_pid of
 * contain_spawn is K's, for walking K's tree in /proc. */
long contain_proc_pid(void);
/* Whether IUT trees get a PID namespace of their own (probed once): only
 * then can protocol/iut_room.h keep a signing key out of their reach. */
int contain_namespaced(void);
/* How the last contain_spawn contained its tree: "pid-namespace",
 * "user+pid-namespace" or "keeper (subreaper, lifeline pipe)"; "" before. */
const char *contain_mode(void);

#endif

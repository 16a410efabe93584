/* contain.h — nothing an IUT starts outlives the verb that started it, and
 * the runner can be interrupted without leaving anything behind
 * (spec/iut-protocol.md P8, "containment").
 *
 * On Linux the runner makes itself a child subreaper, so every process the
 * IUT starts — even one that calls setsid() or double-forks out of the IUT's
 * process group — is re-parented to the runner when its parent dies, and
 * can be found and killed. Elsewhere only the IUT's process group is killed. */
#ifndef CONFORM_CONTAIN_H
#define CONFORM_CONTAIN_H

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

#endif

/* beside.h — work run on a thread beside the runner's main thread, or
 * inline when no thread can be made. The runner's two uses: hashing an IUT's
 * checkpoints over the free cores (protocol/train_exec.c) and the linked
 * reference's fresh-seed run while the IUT trains (levels/level_fresh.c).
 *
 * Every such thread blocks every signal: the runner's handlers
 * (protocol/iut_keeper.h) and the SIGCHLD its poll() waits for must reach the
 * main thread, which watches the IUT. A helper thread that took them would
 * leave the main thread asleep past a dead IUT. */
#ifndef CONFORM_BESIDE_H
#define CONFORM_BESIDE_H

#include <pthread.h>

typedef struct {
    void *(*fn)(void *);
    void *arg;
    pthread_t th;
    int started; /* fn runs on th; else beside_finish runs it */
} beside_job;

/* Starts fn(arg) on its own thread, signals blocked there. */
void beside_start(beside_job *b, void *(*fn)(void *), void *arg);
/* Waits for fn(arg) to end; if no thread could be made, runs it here now.
 * After it returns, what fn wrote is the caller's to read. */
void beside_finish(beside_job *b);

#endif

/* beside.c — see beside.h. */
#include "core/beside.h"

#include <signal.h>

void beside_start(beside_job *b, void *(*fn)(void *), void *arg)
{
    sigset_t all, keep;
    sigfillset(&all);
    b->fn = fn;
    b->arg = arg;
    /* a new thread inherits the creator's mask: block, create, restore */
    pthread_sigmask(SIG_BLOCK, &all, &keep);
    b->started = pthread_create(&b->th, NULL, fn, arg) == 0;
    pthread_sigmask(SIG_SETMASK, &keep, NULL);
}

void beside_finish(beside_job *b)
{
    if (b->started)
        pthread_join(b->th, NULL);
    else
        b->fn(b->arg);
    b->started = 0;
}

/* iut_process.h — starting an IUT and talking to it (spec/iut-protocol.md
 * P1, P3, P8): /bin/sh -c 'CMD "$@"' sh VERB ARG..., pipes for stdin, stdout
 * and stderr, poll()-based non-blocking I/O so neither side can deadlock,
 * deadlines, output caps, killing the whole process group, the exit status or
 * signal, and the last 4 KiB of stderr. */
#ifndef CONFORM_IUT_PROCESS_H
#define CONFORM_IUT_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/util.h"

enum { IUT_STDERR_TAIL = 4096 };

/* A runaway writer cannot fill the disk: no file an IUT writes may exceed
 * this (RLIMIT_FSIZE; checkpoints of mlp13k are 52 KiB, traces at most 1 MiB
 * by P8). It is also the read cap for checkpoints of unknown size (repeat). */
#define IUT_FILE_SIZE_LIMIT ((uint64_t)256 << 20)

typedef struct {
    pid_t pid; /* the IUT's keeper (iut_keeper.h), which exits as the IUT did; the process group of the tree */
    int in_fd, out_fd, err_fd;
    sbuf out;          /* stdout received; out.p[out_off..] not yet consumed */
    size_t out_off;    /* start of the unconsumed bytes */
    size_t out_scan;   /* bytes of out already searched for '\n' */
    size_t out_hold;   /* length + 1 of the line handed out last, dropped on the next call */
    unsigned long long out_total;
    char tail[IUT_STDERR_TAIL]; /* stderr ring buffer */
    size_t tail_pos;
    unsigned long long err_total;
    int out_eof, err_eof;
    int reaped, status; /* waitpid status once reaped */
    int killed;         /* the runner killed it */
    double started;
    char verb[16];      /* for the record of what ran (proc_seen.h) */
    long proc_pid;      /* pid as /proc names it (iut_keeper.h contain_spawn) */
    double next_scan, scan_every;
} iut_proc;

/* P1: starts CMD with VERB and args; with_stdin: a pipe to its stdin, else
 * /dev/null. cwd: directory to run in (NULL: the runner's). Returns 0, or -1
 * with a message. */
int iut_spawn(iut_proc *p, const char *cmd, const char *verb, const char *const *args, size_t nargs,
              int with_stdin, const char *cwd, char *err, size_t cap);

enum {
    IUT_EV_OUT = 1,        /* new stdout bytes */
    IUT_EV_OUT_EOF = 2,    /* stdout closed */
    IUT_EV_WROTE = 4,      /* some pending input was written */
    IUT_EV_WRITE_ERR = 8,  /* stdin is closed on the IUT's side (EPIPE) */
    IUT_EV_DEADLINE = 16,  /* the deadline passed */
    IUT_EV_EXITED = 32,    /* the shell exited (not yet reaped) */
    IUT_EV_INTERRUPTED = 64 /* the runner got SIGTERM/SIGINT/SIGHUP (with IUT_EV_DEADLINE) */
};

/* One round of I/O: waits (at most until deadline, and at most slice
 * seconds) for stdout/stderr data or room in stdin, reads what is there,
 * writes from wdata + *wdone up to wlen. Returns a mask of IUT_EV_*. */
int iut_pump(iut_proc *p, const char *wdata, size_t wlen, size_t *wdone, double deadline, double slice);

/* The next complete stdout line (without '\n'), valid until the next pump or
 * next_line call. Returns 1 with the line, 0 when no complete line is
 * buffered, -1 when the current line is longer than max bytes (P3, P8). */
int iut_next_line(iut_proc *p, size_t max, const char **line, size_t *len);
/* Bytes buffered after the last complete line (a final unterminated line). */
size_t iut_pending(const iut_proc *p);

void iut_close_stdin(iut_proc *p);
/* Kills the process group (SIGKILL) and reaps the shell. */
void iut_kill(iut_proc *p);
/* Waits until the shell exits, draining output, killing it at deadline.
 * Then kills leftover processes of its group and reaps it. Returns 0 if it
 * exited by itself, -1 if it had to be killed. */
int iut_wait(iut_proc *p, double deadline);
/* Closes descriptors and frees buffers (kills and reaps first if needed),
 * then kills every process the IUT started (iut_keeper.h). */
void iut_release(iut_proc *p);

/* "exit status 3", "killed by signal 11 (SIGSEGV)", ... */
void iut_status_text(const iut_proc *p, char *buf, size_t cap);
/* 1 if it exited with status 0. */
int iut_exited_ok(const iut_proc *p);
/* Exit status if it exited normally, else -1. */
int iut_exit_code(const iut_proc *p);
/* Signal number if a signal ended it, else 0. */
int iut_term_signal(const iut_proc *p);
/* The last (up to) 4 KiB of stderr, sanitised; free() it. */
char *iut_stderr_tail(const iut_proc *p);

/* A whole run of one verb without stdin (hello, info, train). */
typedef struct {
    int exited_ok, exit_code, signal, timed_out, out_overflow;
    char *killed_reason; /* set when a monitor or cap killed it */
    char *out;           /* stdout: the first out_cap bytes (keep_head) or the last 4 KiB */
    size_t out_len;
    char *err_tail;
    char status_text[320];
    double seconds;
} iut_result;

/* Called about every 100 ms while the verb runs; returns NULL to go on, or a
 * reason (xstrdup'd) to kill the IUT (P8: "the IUT is killed"). */
typedef char *(*iut_monitor)(void *ctx);

/* Runs CMD VERB args with a timeout of timeout seconds. keep_head: keep the
 * first out_cap bytes of stdout and kill the IUT when it prints more;
 * otherwise keep the last 4 KiB. Returns 0, or -1 if it could not start
 * (message in err). */
int iut_run(const char *cmd, const char *verb, const char *const *args, size_t nargs, const char *cwd,
            double timeout, int keep_head, size_t out_cap, iut_monitor mon, void *ctx, iut_result *r, char *err,
            size_t cap);
void iut_result_free(iut_result *r);

#endif

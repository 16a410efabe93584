/* machines.c — receipts from machines that are not in the hosts file. The
 * seed's five hosts were real computers: someone runs `isotrain-conform run`
 * on each, copies the receipts to one place and runs `matrix` on them. Such
 * a receipt is a row of its own: expected to pass (it certifies the
 * reference or a trainer on real hardware), described by what its receipt
 * says (the IUT's self-report, the runner's host section, its emulator if
 * any), and not checked against claims, since the hosts file makes none. */
#include <stdio.h>
#include <string.h>

#include "report/matrix/matrix.h"

void mx_machine_host(const mreceipt *r, mhost *h)
{
    memset(h, 0, sizeof *h);
    h->machine = 1;
    h->name = xstrdup(r->host);
    h->emulator = r->emu_name ? xstrdup(r->emu_name) : NULL;
    h->cpu = r->emu_cpu ? xstrdup(r->emu_cpu) : NULL;
    h->isa = xstrdup(r->info_isa ? r->info_isa : "?");
    h->endianness = xstrdup(r->info_end ? r->info_end : "?");
    h->os = r->info_os ? xstrdup(r->info_os) : NULL;
    h->build = xstrdup("-");
    h->expected = xstrdup("pass");
    h->slowdown = 1;
    /* expected to pass: a prefix alone is not (memset left 0 here, which read
     * as "the hosts file expects a prefix" and let a prefix-only receipt of
     * a machine count as as expected) */
    h->prefix_steps = -1;
    h->stands_for = xasprintf("a machine not in the hosts file, described by its receipt (%s): %s %s, %s; runner on %s, %s",
                              r->path, h->os ? h->os : "os ?", h->isa, r->info_model ? r->info_model : "cpu ?",
                              r->run_os ? r->run_os : "?", r->run_cpu ? r->run_cpu : "?");
}

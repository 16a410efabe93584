/* The command line itself: a request for help is answered on stdout with
 * exit 0 wherever it appears after the command, and a usage error names the
 * flag and exits 2 (README "Standards": bad input names what was expected). */
#include <string.h>

#include "testutil.h"
#include "core/util.h"

TestSuite(cli, .timeout = 30);

Test(cli, help_after_a_command_is_the_usage_not_an_error)
{
    static const char *const cmds[] = {"run", "verify", "matrix", "repeat", "compare", "lint"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        /* through the shell: tu_conform would give `run` a receipt to write */
        char *cmd = xasprintf("'%s' %s --help", tu_env("IT_CONFORM"), cmds[i]);
        tu_result r = tu_sh(cmd);
        free(cmd);
        cr_assert_eq(r.code, 0, "%s --help: exit %d: %s", cmds[i], r.code, r.err);
        char *usage = xasprintf("usage: isotrain-conform %s", cmds[i]);
        tu_assert_has(r.out, usage);
        free(usage);
        tu_assert_lacks(r.err, "got nothing");
        tu_result_free(&r);
    }
}

Test(cli, a_flag_without_its_value_is_named)
{
    tu_result r = tu_conform("run", "--vectors", NULL);
    cr_assert_eq(r.code, 2, "exit %d", r.code);
    tu_assert_has(r.err, "isotrain-conform run: --vectors expects DIR, got nothing");
    tu_result_free(&r);
}

Test(cli, an_unknown_command_is_named)
{
    tu_result r = tu_conform("certify", NULL);
    cr_assert_eq(r.code, 2, "exit %d", r.code);
    tu_assert_has(r.err, "unknown command 'certify'");
    tu_result_free(&r);
}

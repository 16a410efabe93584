/* spec §2.2: the FTZ/DAZ probe passes in a clean process and fires when the
 * FPU is switched to flushing (the negative control: Criterion runs every
 * test in its own process, so the forced mode does not leak). */
#include <fenv.h>
#include <stdio.h>

#include "fpenv_force.h"
#include "testutil.h"

Test(fpenv, probe_passes_with_ieee_subnormals)
{
    it_fpenv_report r;
    cr_assert_eq(it_fpenv_probe(&r), 0);
    cr_assert(!r.ftz && !r.daz && !r.rounding);
}

/* spec §2.1: each directed rounding mode breaks at least one of the probe's
 * three exact cases, and only the rounding flag goes up. */
Test(fpenv, probe_fires_under_every_directed_rounding_mode)
{
    const int modes[3] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    const char *names[3] = {"upward", "downward", "toward zero"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(fesetround(modes[i]), 0);
        it_fpenv_report r;
        int st = it_fpenv_probe(&r);
        fesetround(FE_TONEAREST);
        cr_assert_eq(st, -1, "rounding %s went unnoticed", names[i]);
        cr_assert(r.rounding && !r.ftz && !r.daz, "rounding %s: ftz=%d daz=%d rounding=%d", names[i], r.ftz,
                  r.daz, r.rounding);
    }
}

Test(fpenv, probe_fires_when_flush_to_zero_is_forced)
{
    cr_assert_eq(it_fpenv_force_flush(), 0, "this ISA has no known flush mode to force");
    it_fpenv_report r;
    cr_assert_eq(it_fpenv_probe(&r), -1);
    cr_assert(r.ftz, "a flushed subnormal result went unnoticed");
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    cr_assert(r.daz, "a subnormal operand read as zero went unnoticed");
#endif
}

Test(fpenv, training_refuses_to_start_under_flush_to_zero)
{
    cr_assert_eq(it_fpenv_force_flush(), 0);
    static it_mlp13k_state s;
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_run_options o = {1, NULL, NULL, NULL, 0, NULL, 0, NULL, 0};
    char err[256];
    cr_assert_eq(it_mlp13k_run(&r, &o, &s, err, sizeof err), IT_ERR_FPENV);
    cr_assert(err[0] != '\0');
}

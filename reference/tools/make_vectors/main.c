/* make_vectors: writes the golden vector sets vectors/vX.Y.Z/ exactly as
 * vectors/FORMAT.md describes them, from the reference library's bits.
 *
 *   make_vectors OUTDIR_1_0_0 [OUTDIR_1_1_0 [OUTDIR_1_2_0 [OUTDIR_1_3_0 RECIPE_SET]]]
 *                                 (each OUTDIR must not exist yet; `make vectors` uses them;
 *                                 RECIPE_SET: the example recipe's set, g_recipes.c)
 *   make_vectors --quick ...      development only: leaves out the Chunk and
 *                                 Exhaustive sweeps (seconds instead of
 *                                 minutes); never commit its output
 *
 * Every case exists for a reason its comment states. Claims a case rests on
 * ("another summation order gives other bits", "a fused multiply-add would
 * differ", "this is a tie") are checked here with independent arithmetic,
 * and the generation fails if one does not hold: a vector that no longer
 * separates what it was chosen to separate is worse than none.
 *
 * The output is a pure function of the reference's bits: no time, host,
 * path or thread timing reaches a file. The slow part is the exp/log sweep
 * over all 2^32 inputs: two threads, one per function, each computing its
 * 256 chunk digests and the total digest in one pass.
 *
 * Each set is a new vector version, chosen here on purpose, never inherited
 * from IT_*: a set must regenerate byte-identically (spec §12.2) while the
 * reference moves on. Each file carries the version of the set that
 * introduced it, so a later set holds the earlier set's files byte for
 * byte (their strings unchanged) and adds its own. */
#include <string.h>

#include "mv.h"

/* Vector set 1.0.0: profile mlp13k (spec 1.0.0), in file order. */
static void gen_set_1_0_0(const char *dir)
{
    static const char *const subdirs[] = {"ops", "train", "train/mlp13k", NULL};
    set_begin(dir, NULL, subdirs);
    sweeps_start(); /* the two 2^32 sweeps run while everything else is built */
    train();
    rebuild_states();
    gen_exp();
    gen_log();
    gen_tanh();
    gen_dot();
    gen_linear();
    gen_softmax_xent();
    gen_tanh_backward();
    gen_embedding();
    gen_sgd();
    gen_philox();
    gen_rng();
    gen_init();
    gen_batch();
    gen_loss_grad();
    gen_train();
    sweeps_join();
    gen_sweep();
    gen_manifest();
}

/* A later vector set: every file of the previous one (in prev), then its
 * own (gen_own), under its version's spec, vector and generator names. */
static void gen_later_set(const char *dir, const char *prev, const char *const *subdirs, const char *version,
                          const char *generator, void (*gen_own)(void))
{
    set_begin(dir, prev, subdirs);
    SPEC_VERSION = version;
    VECTOR_VERSION = version;
    GENERATOR = generator;
    gen_own();
    gen_manifest();
}

/* Vector set 1.1.0: every file of 1.0.0, then addmod113's (spec 1.1.0). */
static void gen_set_1_1_0(const char *dir, const char *dir10)
{
    static const char *const subdirs[] = {"ops", "train", "train/mlp13k", "train/addmod113", NULL};
    gen_later_set(dir, dir10, subdirs, "1.1.0", "isotrain make_vectors 1.1.0", gen_addmod113);
}

/* Vector set 1.2.0: every file of 1.1.0, then gptchar's and the windows
 * of both AdamW profiles (spec 1.2.0). */
static void gen_set_1_2_0(const char *dir, const char *dir11)
{
    static const char *const subdirs[] = {"ops", "train", "train/mlp13k", "train/addmod113", "train/gptchar",
                                          "windows", "windows/gptchar", "windows/addmod113", NULL};
    gen_later_set(dir, dir11, subdirs, "1.2.0", "isotrain make_vectors 1.2.0", gen_gptchar);
}

/* Vector set 1.3.0: every file of 1.2.0, then the example recipe's set
 * (spec 1.3.0, §16): the three profiles' files unchanged, so 1.3.0's
 * manifest differs from 1.2.0's by the recipe's files alone. */
static void gen_set_1_3_0(const char *dir, const char *dir12)
{
    static const char *const subdirs[] = {"ops", "train", "train/mlp13k", "train/addmod113", "train/gptchar",
                                          "windows", "windows/gptchar", "windows/addmod113", NULL};
    gen_later_set(dir, dir12, subdirs, "1.3.0", "isotrain make_vectors 1.3.0", gen_recipe_sets);
}

int main(int argc, char **argv)
{
    int quick = argc >= 3 && strcmp(argv[1], "--quick") == 0;
    int ndirs = argc - 1 - quick;
    if (ndirs == 5) { /* 1.3.0's input, the example recipe's set, is not an output */
        recipe_set_dir = argv[argc - 1];
        ndirs = 4;
    } else if (ndirs == 4) {
        ndirs = 0; /* an OUTDIR_1_3_0 without its RECIPE_SET */
    }
    if (ndirs < 1 || ndirs > 4) {
        fprintf(stderr, "usage: make_vectors [--quick] OUTDIR [OUTDIR_1_1_0 [OUTDIR_1_2_0 [OUTDIR_1_3_0 RECIPE_SET]]]"
                        "   (each OUTDIR must not exist; they receive the 1.0.0 to 1.3.0 sets; RECIPE_SET: the "
                        "example recipe's set, made by isotrain-conform vectors --recipe)\n");
        return 2;
    }
    const char *const *dirs = (const char *const *)argv + 1 + quick;
    full_sweeps = !quick;
    double t0 = now();
    it_fpenv_report env;
    if (it_fpenv_probe(&env) != 0)
        die("subnormals are flushed in this process (ftz=%d daz=%d): the vectors would be wrong", env.ftz, env.daz);
    recipe = it_mlp13k_default_recipe();
    if (recipe_set_dir)
        recipe_set_preflight();

    gen_set_1_0_0(dirs[0]);
    if (ndirs >= 2)
        gen_set_1_1_0(dirs[1], dirs[0]);
    if (ndirs >= 3)
        gen_set_1_2_0(dirs[2], dirs[1]);
    if (ndirs >= 4)
        gen_set_1_3_0(dirs[3], dirs[2]);

    print_group_counts();
    sweeps_report();
    fprintf(stderr, "make_vectors: %zu files + MANIFEST.json in %s (total %.0f s)\n", manifest_files(),
            dirs[ndirs - 1], now() - t0);
    return 0;
}

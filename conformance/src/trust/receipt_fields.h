/* receipt_fields.h — THE receipt's fields: every member of
 * isotrain-receipt-v1 once, as report/receipt.c writes it and as the
 * receipts published in vectors/VERSION/receipts have it. One row a field:
 * X(ID, KIND, PATH, FLAGS, MAX) (trust/receipt_schema.h: rs_field). The
 * table (receipt_fields.c), the ids every reader and the writer name a
 * field by (rf_id: RF_ID), the strict reader, the writer's own check and
 * spec/receipt.schema.json all expand this list, so a field's name is
 * written here and nowhere else. A field a newer runner records is one row.
 * Paths: dotted from the root; "x[]" an element of array x, "x.*" a value of
 * map x. */
#ifndef CONFORM_TRUST_RECEIPT_FIELDS_H
#define CONFORM_TRUST_RECEIPT_FIELDS_H

/* FLAGS: Z nullable, OPT may be absent, RS_OPEN an object whose members
 * are not listed; MAX: an INT's bound (U32, W53 = 2^53 - 1); receipt_fields.c
 * gives them their values. For an ARR or a MAP, MAX is its most elements
 * (RF_CAP_*): the reader refuses more, because each element of the typed
 * receipt costs a value (80 B) and, for an object, a slot per field below it
 * (trust/receipt_record.h), so a hostile receipt of small elements could
 * otherwise cost many times its 64 MiB. Each cap is what the writer
 * (report/receipt.c) can produce, which asserts it at compile time where the
 * bound is one of its buffers. */
#define RF_CAP_PROFILES 64   /* profiles of a set (the profile table has 5 rows, a recipe set 1) */
#define RF_CAP_SCRIPTS 4     /* host/hostinfo.h iut_binary.scripts[4] */
#define RF_CAP_ARGS 64       /* protocol/iut_target.h TARGET_MAX_ARGS */
#define RF_CAP_FILES 12      /* protocol/iut_target.h TARGET_MAX_FILES */
#define RF_CAP_PROCS 64      /* protocol/proc_seen.h PROC_SEEN_MAX */
#define RF_CAP_CODE 128      /* protocol/proc_seen.h PROC_SEEN_CODE_MAX */
#define RF_CAP_ENV 32        /* protocol/proc_seen.h PROC_SEEN_ENV_MAX */
#define RF_CAP_INFO 256      /* the info values levels/hello.c keeps */
#define RF_CAP_EMU_WARNINGS 64 /* the emulator warnings levels/hello.c keeps */
#define RF_CAP_FILTERS 32    /* core/options.h conform_args.filters[32] */
#define RF_CAP_REASONS 24    /* verdict/scope.h SCOPE_MAX_REASONS */
#define RF_CAP_WARNINGS 16   /* levels/run_ctx.h run_ctx.warnings[16] */
/* A set's steps go to 2^32 - 2, so the bound of a trace (one element a step)
 * and of the case list is the file: the writer's smallest trace element,
 * {"step":0,"reached":false,"loss":null,"sha256":null}, is 52 bytes and its
 * smallest case over 64, so no receipt within RECEIPT_FILE_MAX (64 MiB,
 * trust/receipt_open.h) holds more than these. */
#define RF_CAP_STEPS ((64u << 20) / 52)
#define RF_CAP_CASES ((64u << 20) / 64)
/* clang-format off */
#define RECEIPT_FIELDS(X) \
    X(SCHEMA, STR, "schema", 0, 0) \
    X(TRUST_RULES, INT, "trust_rules", OPT, 1000) /* absent: the first rules */ \
    X(SUITE, OBJ, "suite", 0, 0) \
    X(SUITE_NAME, STR, "suite.name", 0, 0) \
    X(SUITE_VERSION, STR, "suite.version", 0, 0) \
    X(SUITE_GIT_REVISION, STR, "suite.git_revision", Z, 0) \
    X(SUITE_REFERENCE_KERNELS, STR, "suite.reference_kernels", Z, 0) \
    X(STARTED, STR, "started", 0, 0) \
    X(MATRIX_HOST, STR, "matrix_host", Z, 0) \
    X(VECTORS, OBJ, "vectors", 0, 0) \
    X(VECTORS_DIR, STR, "vectors.dir", Z, 0) \
    X(VECTORS_SPEC_VERSION, STR, "vectors.spec_version", Z, 0) \
    X(VECTORS_VECTOR_VERSION, STR, "vectors.vector_version", Z, 0) \
    X(VECTORS_GENERATOR, STR, "vectors.generator", Z, 0) \
    X(VECTORS_MANIFEST_DIGEST, STR, "vectors.manifest_digest", Z, 0) \
    X(VECTORS_FILES, INT, "vectors.files", 0, U32) \
    X(VECTORS_OFFICIAL, BOOL, "vectors.official", 0, 0) \
    X(VECTORS_RECIPE_SHA256, STR, "vectors.recipe_sha256", OPT, 0) /* a recipe set's recipe (issue 32) */ \
    X(VECTORS_RECIPE_SIGNER, STR, "vectors.recipe_signer", OPT | Z, 0) /* its MANIFEST.json.sig's key (SHA256:...); null: unsigned */ \
    X(VECTORS_OPS_MANIFEST_DIGEST, STR, "vectors.ops_manifest_digest", OPT, 0) /* the op set a recipe certification ran */ \
    X(VECTORS_PROFILES, ARR, "vectors.profiles", 0, RF_CAP_PROFILES) \
    X(VECTORS_PROFILES_E, OBJ, "vectors.profiles[]", 0, 0) \
    X(VECTORS_PROFILES_PROFILE, STR, "vectors.profiles[].profile", Z, 0) \
    X(VECTORS_PROFILES_STEPS, INT, "vectors.profiles[].steps", 0, U32) \
    X(IUT, OBJ, "iut", 0, 0) \
    X(IUT_COMMAND, STR, "iut.command", Z, 0) \
    X(IUT_HELLO, STR, "iut.hello", Z, 0) \
    X(IUT_NAME, STR, "iut.name", Z, 0) \
    X(IUT_VERSION, STR, "iut.version", Z, 0) \
    X(IUT_SPEC, STR, "iut.spec", Z, 0) \
    X(IUT_KERNELS, STR, "iut.kernels", Z | OPT, 0) \
    X(IUT_BINARY, OBJ, "iut.binary", 0, 0) \
    X(IUT_BINARY_WORD, STR, "iut.binary.word", Z, 0) \
    X(IUT_BINARY_PATH, STR, "iut.binary.path", Z, 0) \
    X(IUT_BINARY_SHA256, STR, "iut.binary.sha256", Z, 0) \
    X(IUT_BINARY_SHA256_AFTER, STR, "iut.binary.sha256_after", Z, 0) \
    X(IUT_FILES, ARR, "iut.files", OPT, RF_CAP_SCRIPTS) /* the shell form's scripts */ \
    X(IUT_FILES_E, OBJ, "iut.files[]", 0, 0) \
    X(IUT_FILES_PATH, STR, "iut.files[].path", Z, 0) \
    X(IUT_FILES_SHA256, STR, "iut.files[].sha256", Z, 0) \
    X(IUT_SUBJECT, OBJ, "iut.subject", OPT, 0) \
    X(IUT_SUBJECT_FORM, STR, "iut.subject.form", 0, 0) \
    X(IUT_SUBJECT_BOUND, BOOL, "iut.subject.bound", 0, 0) \
    X(IUT_SUBJECT_REASON, STR, "iut.subject.reason", Z | OPT, 0) \
    X(IUT_SUBJECT_ARGV, ARR, "iut.subject.argv", OPT, RF_CAP_ARGS) \
    X(IUT_SUBJECT_ARGV_E, STR, "iut.subject.argv[]", 0, 0) \
    X(IUT_SUBJECT_FILES, ARR, "iut.subject.files", OPT, RF_CAP_FILES) \
    X(IUT_SUBJECT_FILES_E, OBJ, "iut.subject.files[]", 0, 0) \
    X(IUT_SUBJECT_FILES_ROLE, STR, "iut.subject.files[].role", Z, 0) \
    X(IUT_SUBJECT_FILES_GIVEN, STR, "iut.subject.files[].given", Z, 0) \
    X(IUT_SUBJECT_FILES_PATH, STR, "iut.subject.files[].path", Z, 0) \
    X(IUT_SUBJECT_FILES_SHA256, STR, "iut.subject.files[].sha256", Z, 0) \
    X(IUT_SUBJECT_FILES_SHA256_AFTER, STR, "iut.subject.files[].sha256_after", Z | OPT, 0) \
    X(IUT_SUBJECT_FILES_SIZE, INT, "iut.subject.files[].size", 0, W53) \
    X(IUT_SUBJECT_FILES_FORMAT, STR, "iut.subject.files[].format", Z, 0) \
    X(IUT_SUBJECT_FILES_ISA, STR, "iut.subject.files[].isa", Z, 0) \
    X(IUT_SUBJECT_FILES_EXECUTED, BOOL, "iut.subject.files[].executed", 0, 0) \
    X(IUT_SUBJECT_FILES_EXECUTED_THROUGH, STR, "iut.subject.files[].executed_through", Z | OPT, 0) \
    X(IUT_SUBJECT_EXECUTED, STR, "iut.subject.executed", Z | OPT, 0) \
    X(IUT_SUBJECT_NOT_BOUND, STR, "iut.subject.not_bound", Z | OPT, 0) \
    X(IUT_PROCESSES_SEEN, ARR, "iut.processes_seen", OPT, RF_CAP_PROCS) \
    X(IUT_PROCESSES_SEEN_E, OBJ, "iut.processes_seen[]", 0, 0) \
    X(IUT_PROCESSES_SEEN_PATH, STR, "iut.processes_seen[].path", Z, 0) \
    X(IUT_PROCESSES_SEEN_SHA256, STR, "iut.processes_seen[].sha256", Z, 0) \
    X(IUT_PROCESSES_SEEN_FORMAT, STR, "iut.processes_seen[].format", Z, 0) \
    X(IUT_PROCESSES_SEEN_ISA, STR, "iut.processes_seen[].isa", Z, 0) \
    X(IUT_PROCESSES_SEEN_PROCESSES, INT, "iut.processes_seen[].processes", 0, W53) \
    X(IUT_PROCESSES_SEEN_VERBS, STR, "iut.processes_seen[].verbs", Z, 0) \
    X(IUT_PROCESSES_SEEN_IS_SUBJECT, BOOL, "iut.processes_seen[].is_subject", 0, 0) \
    X(IUT_PROCESSES_SEEN_NOT_LISTED, INT, "iut.processes_seen_not_listed", OPT, W53) \
    X(IUT_CODE_MAPPED, ARR, "iut.code_mapped", OPT, RF_CAP_CODE) /* absent: written before it was recorded */ \
    X(IUT_CODE_MAPPED_E, OBJ, "iut.code_mapped[]", 0, 0) \
    X(IUT_CODE_MAPPED_PATH, STR, "iut.code_mapped[].path", Z, 0) \
    X(IUT_CODE_MAPPED_SHA256, STR, "iut.code_mapped[].sha256", Z, 0) /* null: replaced after it was mapped */ \
    X(IUT_CODE_MAPPED_VERBS, STR, "iut.code_mapped[].verbs", Z, 0) \
    X(IUT_CODE_MAPPED_IS_SUBJECT, BOOL, "iut.code_mapped[].is_subject", 0, 0) \
    X(IUT_CODE_MAPPED_NOT_LISTED, INT, "iut.code_mapped_not_listed", OPT, W53) \
    X(IUT_LOADER_ENVIRONMENT, ARR, "iut.loader_environment", OPT, RF_CAP_ENV) \
    X(IUT_LOADER_ENVIRONMENT_E, STR, "iut.loader_environment[]", 0, 0) \
    X(IUT_CONTAINMENT, STR, "iut.containment", Z | OPT, 0) \
    X(IUT_SELF_REPORT, OBJ, "iut.self_report", 0, 0) \
    X(IUT_SELF_REPORT_COMMAND, STR, "iut.self_report.command", 0, 0) \
    X(IUT_SELF_REPORT_STATUS, STR, "iut.self_report.status", Z, 0) \
    X(IUT_SELF_REPORT_VALUES, MAP, "iut.self_report.values", 0, RF_CAP_INFO) \
    X(IUT_SELF_REPORT_VALUES_ANY, STR, "iut.self_report.values.*", Z, 0) \
    X(HOST, OBJ, "host", 0, 0) \
    X(HOST_ISA, STR, "host.isa", Z, 0) \
    X(HOST_ENDIANNESS, STR, "host.endianness", Z, 0) \
    X(HOST_CPU_MODEL, STR, "host.cpu_model", Z, 0) \
    X(HOST_CPU_FLAGS, STR, "host.cpu_flags", Z, 0) \
    X(HOST_OS, STR, "host.os", Z, 0) \
    X(HOST_LIBC, STR, "host.libc", Z, 0) \
    X(HOST_RUNNER_COMPILER, STR, "host.runner_compiler", Z, 0) \
    X(HOST_RUNNER_CFLAGS, STR, "host.runner_cflags", Z, 0) \
    X(EMULATOR, OBJ, "emulator", Z, 0) \
    X(EMULATOR_NAME, STR, "emulator.name", Z, 0) \
    X(EMULATOR_CPU, STR, "emulator.cpu", Z, 0) \
    X(EMULATOR_SOURCE, STR, "emulator.source", Z, 0) \
    X(EMULATOR_PATH, STR, "emulator.path", Z | OPT, 0) \
    X(EMULATOR_SHA256, STR, "emulator.sha256", Z | OPT, 0) \
    X(EMULATOR_VERSION, STR, "emulator.version", Z | OPT, 0) \
    X(EMULATOR_IS_EXECUTABLE, BOOL, "emulator.is_executable", OPT, 0) \
    X(EMULATOR_CLAIMED_BY_OPTION, OBJ, "emulator.claimed_by_option", OPT, 0) \
    X(EMULATOR_CLAIMED_BY_OPTION_NAME, STR, "emulator.claimed_by_option.name", Z, 0) \
    X(EMULATOR_CLAIMED_BY_OPTION_CPU, STR, "emulator.claimed_by_option.cpu", Z, 0) \
    X(EMULATOR_WARNINGS, ARR, "emulator_warnings", 0, RF_CAP_EMU_WARNINGS) \
    X(EMULATOR_WARNINGS_E, STR, "emulator_warnings[]", 0, 0) \
    X(OPTIONS, OBJ, "options", 0, 0) \
    X(OPTIONS_LEVEL, STR, "options.level", Z, 0) \
    X(OPTIONS_PROFILE, STR, "options.profile", Z, 0) \
    X(OPTIONS_FILTERS, ARR, "options.filters", 0, RF_CAP_FILTERS) \
    X(OPTIONS_FILTERS_E, STR, "options.filters[]", 0, 0) \
    X(OPTIONS_EXHAUSTIVE, BOOL, "options.exhaustive", 0, 0) \
    X(OPTIONS_SEED, STR, "options.seed", 0, 0) \
    X(OPTIONS_SEED_GIVEN, BOOL, "options.seed_given", 0, 0) \
    X(OPTIONS_FRESH_ONLY, BOOL, "options.fresh_only", OPT, 0) \
    X(OPTIONS_TIMEOUT_CASE, NUM, "options.timeout_case", 0, 0) \
    X(OPTIONS_TIMEOUT_RUN, NUM, "options.timeout_run", 0, 0) \
    X(OPTIONS_SLOWDOWN, NUM, "options.slowdown", 0, 0) \
    X(OPTIONS_TIMEOUT_RUN_GIVEN, BOOL, "options.timeout_run_given", OPT, 0) /* absent: runners before the calibrated deadlines */ \
    X(OPTIONS_TIMEOUT_CALIBRATION, OBJ, "options.timeout_calibration", OPT, 0) \
    X(OPTIONS_TIMEOUT_CALIBRATION_FACTOR, NUM, "options.timeout_calibration.factor", 0, 0) \
    X(OPTIONS_TIMEOUT_CALIBRATION_REFERENCE_STEP_SECONDS, MAP, "options.timeout_calibration.reference_step_seconds", 0, RF_CAP_PROFILES) \
    X(OPTIONS_TIMEOUT_CALIBRATION_REFERENCE_STEP_SECONDS_ANY, NUM, "options.timeout_calibration.reference_step_seconds.*", 0, 0) \
    X(OPTIONS_STEPS, INT, "options.steps", OPT, U32) \
    X(LEVELS, OBJ, "levels", 0, 0) \
    X(LEVELS_OPS, OBJ, "levels.ops", 0, 0) \
    X(LEVELS_OPS_VERDICT, STR, "levels.ops.verdict", 0, 0) \
    X(LEVELS_OPS_SECONDS, NUM, "levels.ops.seconds", 0, 0) \
    X(LEVELS_OPS_NOTE, STR, "levels.ops.note", Z, 0) \
    X(LEVELS_OPS_PROCESS, OBJ, "levels.ops.process", OPT, 0) \
    X(LEVELS_OPS_PROCESS_STATUS, STR, "levels.ops.process.status", Z, 0) \
    X(LEVELS_OPS_PROCESS_STDERR_TAIL, STR, "levels.ops.process.stderr_tail", Z, 0) \
    X(LEVELS_TRAIN, OBJ, "levels.train", 0, 0) \
    X(LEVELS_TRAIN_VERDICT, STR, "levels.train.verdict", 0, 0) \
    X(LEVELS_TRAIN_SECONDS, NUM, "levels.train.seconds", 0, 0) \
    X(LEVELS_TRAIN_NOTE, STR, "levels.train.note", Z, 0) \
    X(LEVELS_TRAIN_PROFILES, ARR, "levels.train.profiles", 0, RF_CAP_PROFILES) \
    X(LEVELS_TRAIN_PROFILES_E, OBJ, "levels.train.profiles[]", 0, 0) \
    X(LEVELS_TRAIN_PROFILES_PROFILE, STR, "levels.train.profiles[].profile", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_STEPS, INT, "levels.train.profiles[].steps", 0, U32) \
    X(LEVELS_TRAIN_PROFILES_STEPS_IN_VECTORS, INT, "levels.train.profiles[].steps_in_vectors", 0, U32) \
    X(LEVELS_TRAIN_PROFILES_STATUS, STR, "levels.train.profiles[].status", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_FAILURE, STR, "levels.train.profiles[].failure", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_PROBLEM, STR, "levels.train.profiles[].problem", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_SECONDS, NUM, "levels.train.profiles[].seconds", 0, 0) \
    X(LEVELS_TRAIN_PROFILES_STDERR_TAIL, STR, "levels.train.profiles[].stderr_tail", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_STDOUT_TAIL, STR, "levels.train.profiles[].stdout_tail", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_FIRST_DIFFERING_STEP, INT, "levels.train.profiles[].first_differing_step", OPT, U32) \
    X(LEVELS_TRAIN_PROFILES_LOCALIZATION, OBJ, "levels.train.profiles[].localization", OPT | RS_OPEN, 0) /* levels/localize.c's */ \
    X(LEVELS_TRAIN_PROFILES_LOCALIZATION_TEXT, STR, "levels.train.profiles[].localization_text", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_TRACE, ARR, "levels.train.profiles[].trace", 0, RF_CAP_STEPS) \
    X(LEVELS_TRAIN_PROFILES_TRACE_E, OBJ, "levels.train.profiles[].trace[]", 0, 0) \
    X(LEVELS_TRAIN_PROFILES_TRACE_STEP, INT, "levels.train.profiles[].trace[].step", 0, U32) \
    X(LEVELS_TRAIN_PROFILES_TRACE_REACHED, BOOL, "levels.train.profiles[].trace[].reached", 0, 0) \
    X(LEVELS_TRAIN_PROFILES_TRACE_LOSS, STR, "levels.train.profiles[].trace[].loss", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_TRACE_SHA256, STR, "levels.train.profiles[].trace[].sha256", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS, ARR, "levels.train.profiles[].checkpoints", 0, RF_CAP_STEPS) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS_E, OBJ, "levels.train.profiles[].checkpoints[]", 0, 0) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS_STEP, INT, "levels.train.profiles[].checkpoints[].step", 0, U32) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS_REACHED, BOOL, "levels.train.profiles[].checkpoints[].reached", 0, 0) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS_LOSS, STR, "levels.train.profiles[].checkpoints[].loss", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS_SHA256, STR, "levels.train.profiles[].checkpoints[].sha256", Z, 0) \
    X(LEVELS_TRAIN_PROFILES_CHECKPOINTS_MATCHES_VECTORS, BOOL, "levels.train.profiles[].checkpoints[].matches_vectors", 0, 0) \
    X(LEVELS_FRESH, OBJ, "levels.fresh", 0, 0) \
    X(LEVELS_FRESH_VERDICT, STR, "levels.fresh.verdict", 0, 0) \
    X(LEVELS_FRESH_SECONDS, NUM, "levels.fresh.seconds", 0, 0) \
    X(LEVELS_FRESH_NOTE, STR, "levels.fresh.note", Z, 0) \
    X(LEVELS_FRESH_OP_CASES, INT, "levels.fresh.op_cases", 0, W53) \
    X(LEVELS_FRESH_TRAIN_SEED_ADVERTISED, BOOL, "levels.fresh.train_seed_advertised", 0, 0) \
    X(LEVELS_FRESH_TRAINING, OBJ, "levels.fresh.training", OPT, 0) \
    X(LEVELS_FRESH_TRAINING_PROFILE, STR, "levels.fresh.training.profile", 0, 0) \
    X(LEVELS_FRESH_TRAINING_SEED, STR, "levels.fresh.training.seed", 0, 0) \
    X(LEVELS_FRESH_TRAINING_STEPS, INT, "levels.fresh.training.steps", 0, U32) \
    X(LEVELS_FRESH_TRAINING_TRACE, ARR, "levels.fresh.training.trace", 0, RF_CAP_STEPS) \
    X(LEVELS_FRESH_TRAINING_TRACE_E, OBJ, "levels.fresh.training.trace[]", 0, 0) \
    X(LEVELS_FRESH_TRAINING_TRACE_STEP, INT, "levels.fresh.training.trace[].step", 0, U32) \
    X(LEVELS_FRESH_TRAINING_TRACE_REACHED, BOOL, "levels.fresh.training.trace[].reached", 0, 0) \
    X(LEVELS_FRESH_TRAINING_TRACE_LOSS, STR, "levels.fresh.training.trace[].loss", Z, 0) \
    X(LEVELS_FRESH_TRAINING_TRACE_SHA256, STR, "levels.fresh.training.trace[].sha256", Z, 0) \
    X(INTERRUPTED_BY_SIGNAL, INT, "interrupted_by_signal", Z | OPT, 255) \
    X(VERDICT, STR, "verdict", 0, 0) \
    X(EXIT_CODE, INT, "exit_code", 0, 255) \
    X(SCOPE, OBJ, "scope", 0, 0) \
    X(SCOPE_FULL_CERTIFICATION, BOOL, "scope.full_certification", 0, 0) \
    X(SCOPE_REASONS, ARR, "scope.reasons", 0, RF_CAP_REASONS) \
    X(SCOPE_REASONS_E, STR, "scope.reasons[]", 0, 0) \
    X(LEVEL_REACHED, STR, "level_reached", 0, 0) \
    X(LEVELS_REACHED, MAP, "levels_reached", OPT, RF_CAP_PROFILES) \
    X(LEVELS_REACHED_ANY, STR, "levels_reached.*", Z, 0) \
    X(SPEC, OBJ, "spec", OPT, 0) \
    X(SPEC_CERTIFIED, STR, "spec.certified", Z, 0) \
    X(SPEC_IUT, STR, "spec.iut", Z, 0) \
    X(SPEC_VECTORS, STR, "spec.vectors", Z, 0) \
    X(COUNTS, OBJ, "counts", 0, 0) \
    X(COUNTS_PASSED, INT, "counts.passed", 0, W53) \
    X(COUNTS_FAILED, INT, "counts.failed", 0, W53) \
    X(COUNTS_ERRORS, INT, "counts.errors", 0, W53) \
    X(COUNTS_SKIPPED, INT, "counts.skipped", 0, W53) \
    X(CASES, ARR, "cases", 0, RF_CAP_CASES) \
    X(CASES_E, OBJ, "cases[]", 0, 0) \
    X(CASES_ID, STR, "cases[].id", Z, 0) \
    X(CASES_LEVEL, STR, "cases[].level", Z, 0) \
    X(CASES_SUITE, STR, "cases[].suite", Z, 0) \
    X(CASES_VERDICT, STR, "cases[].verdict", 0, 0) \
    X(CASES_REASON, STR, "cases[].reason", Z | OPT, 0) \
    X(CASES_REQUIRED, BOOL, "cases[].required", 0, 0) \
    X(CASES_SECONDS, NUM, "cases[].seconds", 0, 0) \
    X(WARNINGS, ARR, "warnings", 0, RF_CAP_WARNINGS) \
    X(WARNINGS_E, STR, "warnings[]", 0, 0) \
    X(TIMINGS, OBJ, "timings", 0, 0) \
    X(TIMINGS_MANIFEST, NUM, "timings.manifest", 0, 0) \
    X(TIMINGS_LOAD, NUM, "timings.load", 0, 0) \
    X(TIMINGS_HELLO, NUM, "timings.hello", 0, 0) \
    X(TIMINGS_OPS, NUM, "timings.ops", 0, 0) \
    X(TIMINGS_TRAIN, NUM, "timings.train", 0, 0) \
    X(TIMINGS_FRESH, NUM, "timings.fresh", 0, 0) \
    X(TIMINGS_TOTAL, NUM, "timings.total", 0, 0)
/* clang-format on */

#define RF_ID_(id, kind, path, flags, max) RF_##id,
typedef enum { RECEIPT_FIELDS(RF_ID_) RF_COUNT } rf_id;
#undef RF_ID_

#endif

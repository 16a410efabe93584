#!/usr/bin/python3
"""The table of the windows matrix (ci/matrix-windows.sh; issue 20).

Usage: matrix_windows_table.py OUT_DIR VECTORS MODE OVERRIDE
       matrix_windows_table.py --self-test

OUT_DIR holds plan.tsv (host, build, expected, slowdown, steps, iut; steps
"all" for a whole run) and per host the runner's receipt HOST.json and
HOST.verified (the exit status of `isotrain-conform verify`). MODE is
"windows", "gptchar-windows", "gptchar-full" or "recipe" (a recipe set:
its one profile is "recipe", and a whole run's verdict is the runner's
recipe word, PASS (recipe sha256:...)); OVERRIDE is GPTCHAR_FULL_STEPS ("" if unset).

Per host and profile it prints the full run or the prefix (the steps
certified: the step cases PROFILE/N the receipt has PASS, from 0 on) and each
window of the vector set (vectors/FORMAT.md §6) with its case verdict in the
receipt; then the receipt's verdict. Every verdict is the runner's: this only
compares them with what the hosts file expects, and exits 1 unless every
host is as expected. --self-test judges planted receipts (a missing window, a
failed window, a short prefix, a receipt that does not verify, an
expected-fail host with no failure, a whole run that is not PASS) and fails
unless each is caught and the good ones are accepted.
"""
import json, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from receipt_json import receipt_of  # noqa: E402  (the runner's strict reader: receipt --json)


def load_set(vectors, mode):
    """the set's profiles, their lengths and windows: what a passing host must show"""
    train = os.path.join(vectors, "train")
    profiles = sorted(f[:-5] for f in os.listdir(train) if f.endswith(".json"))
    if mode in ("gptchar-full", "gptchar-windows"):
        profiles = ["gptchar"]
    windows, lengths = {}, {}
    for p in profiles:
        lengths[p] = json.load(open(os.path.join(train, p + ".json")))["steps"]
        path = os.path.join(vectors, "windows", p + ".json")
        if os.path.exists(path):
            windows[p] = ["%d-%d" % (w["from"], w["to"]) for w in json.load(open(path))["windows"]]
    return profiles, lengths, windows


def profile_cell(r, p, steps_arg, expected, lengths, windows, problems):
    cases = {c.get("id"): c.get("verdict") for c in r.get("cases", []) if c.get("level") == "train"}
    n = lengths[p]
    want = n if steps_arg == "all" else min(int(steps_arg), n)
    k = 0
    while k <= n and cases.get("%s/%d" % (p, k)) == "PASS":
        k += 1
    certified = k - 1  # steps 0..certified passed, one after another
    if expected == "expected-fail":
        return "ops only"
    run = ("full, steps 0-%d of %d" if want == n else "prefix, steps 0-%d of %d") % (max(certified, 0), n)
    if certified < want:
        problems.append("%s: steps 0-%d asked, %s passed" % (p, want, "none" if certified < 0 else "0-%d" % certified))
    marks = []
    for w in windows.get(p, []):
        v = cases.get("%s/window/%s" % (p, w))
        marks.append("%s %s" % (w, "✓" if v == "PASS" else "missing" if v is None else "✗ " + v))
        if v != "PASS":
            problems.append("%s window %s: %s" % (p, w, v or "not in the receipt"))
    return run + ("; windows " + ", ".join(marks) if marks else "")


def table(out, vectors, mode, override, read=receipt_of):
    """read: a receipt file to its receipt (the runner's strict reader; the
    self-test's planted receipts are bare and partial, read as JSON)"""
    profiles, lengths, windows = load_set(vectors, mode)
    rows, ok = [], True
    for line in open(os.path.join(out, "plan.tsv")):
        name, build, expected, slowdown, steps, iut = line.rstrip("\n").split("\t")
        blank = [""] * (len(profiles) + 1)
        try:
            r = read(os.path.join(out, name + ".json"))
        except Exception as e:  # no receipt (the run did not finish), or one the reader refuses
            rows.append([name, "NO RECEIPT"] + blank + ["NOT AS EXPECTED: %s" % str(e)[:60]])
            ok = False
            continue
        try:
            verified = open(os.path.join(out, name + ".verified")).read().strip() == "0"
        except OSError:
            verified = False
        if not verified:  # the runner's own receipt must verify (isotrain-conform verify)
            rows.append([name, r["verdict"]] + blank +
                        ["NOT AS EXPECTED: the receipt does not verify (see %s.verify)" % name])
            ok = False
            continue
        c = r["counts"]
        failed = c["failed"] + c["errors"]
        problems = []
        cells = [profile_cell(r, p, steps, expected, lengths, windows, problems) for p in profiles]
        tally = {}
        for case in r.get("cases", []):
            t = tally.setdefault(case.get("level"), [0, 0])
            v = case.get("verdict")
            t[0 if v == "PASS" else 1] += v in ("PASS", "FAIL", "ERROR")
        if expected == "pass":
            if failed:
                problems.insert(0, "%d failed/errored cases" % failed)
            # a whole run of every profile is a certification (PASS); of one
            # profile (--profile gptchar) PARTIAL by that scope reason alone
            reasons = r.get("scope", {}).get("reasons", []) if isinstance(r.get("scope"), dict) else []
            if steps == "all" and mode == "windows" and r["verdict"] != "PASS":
                problems.insert(0, "a whole run's verdict is %s, not PASS" % r["verdict"])
            elif steps == "all" and mode == "recipe" and not str(r["verdict"]).startswith("PASS (recipe sha256:"):
                problems.insert(0, "a whole run's verdict is %s, not PASS (recipe sha256:...)" % r["verdict"])
            elif steps == "all" and mode.startswith("gptchar") and (r["verdict"] not in ("PASS", "PARTIAL") or any(
                    not str(x).startswith("--profile") for x in reasons)):
                problems.insert(0, "a whole run's verdict is %s (%s), not PARTIAL by --profile alone" %
                                (r["verdict"], "; ".join(map(str, reasons))))
            good = not problems
        else:
            good = failed > 0
            problems = [] if good else ["a negative control with no failed case"]
        ok &= good
        rows.append([name, r["verdict"]] + cells +
                    ["ops %d/%d, fresh %d/%d" % tuple(tally.get("ops", [0, 0]) + tally.get("fresh", [0, 0])),
                     "as expected" if good else "NOT AS EXPECTED (%s): %s" % (expected, "; ".join(problems))])
    head = ["host", "verdict"] + [p + ": run; windows" for p in profiles] + ["ops, fresh pass/fail", ""]
    md = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]
    if mode == "gptchar-full":
        title = ("Profile gptchar in full on the emulated hosts (%s, --profile gptchar --windows)" % vectors +
                 ("; GPTCHAR_FULL_STEPS=%s: a plumbing check, NOT the full certification" % override if override else ""))
        fname = "MATRIX-gptchar-full.md"
    elif mode == "gptchar-windows":
        title = ("The gptchar windows matrix (%s, --profile gptchar --windows; make test's share of the windows "
                 "matrix): unemulated hosts run gptchar in full; emulated hosts a prefix (--steps, PARTIAL by design) "
                 "and gptchar's windows; the expected-fail host gptchar's ops; ✓ = the window's case PASS in the "
                 "receipt" % vectors)
        fname = "MATRIX-gptchar-windows.md"
    elif mode == "recipe":
        title = ("A recipe certified across the hosts (%s, --windows; make recipe-matrix): unemulated hosts run the "
                 "recipe in full, PASS (recipe sha256:...), never the official PASS; emulated hosts a prefix (--steps, "
                 "PARTIAL by design) and every window; the expected-fail host the family's op vectors; ✓ = the "
                 "window's case PASS in the receipt" % vectors)
        fname = "MATRIX-recipe.md"
    else:
        title = ("The windows matrix (%s, --windows): unemulated hosts run every profile in full; emulated hosts a "
                 "prefix (--steps, PARTIAL by design) and every window of the set; the expected-fail host the ops "
                 "level; ✓ = the window's case PASS in the receipt" % vectors)
        fname = "MATRIX-windows.md"
    text = title + "\n\n" + "\n".join(md) + "\n"
    open(os.path.join(out, fname), "w").write(text)
    return ok, text


def self_test():
    """planted receipts: each defect must make its host NOT AS EXPECTED"""
    vectors = tempfile.mkdtemp(prefix="mwt-vec.")
    out = tempfile.mkdtemp(prefix="mwt-out.")
    try:
        os.makedirs(os.path.join(vectors, "train"))
        os.makedirs(os.path.join(vectors, "windows"))
        json.dump({"steps": 4}, open(os.path.join(vectors, "train", "p.json"), "w"))
        json.dump({"windows": [{"from": 0, "to": 1}, {"from": 3, "to": 4}]},
                  open(os.path.join(vectors, "windows", "p.json"), "w"))

        def planted(path):  # partial receipts the strict reader would refuse by design
            return json.load(open(path))

        def plant(name, expected, steps, verdict, cases, verified=0):
            failed = sum(v == "FAIL" for _, v in cases)
            r = {"verdict": verdict, "counts": {"passed": 0, "failed": failed, "errors": 0, "skipped": 0},
                 "cases": [{"id": i, "level": "train", "verdict": v} for i, v in cases]}
            json.dump(r, open(os.path.join(out, name + ".json"), "w"))
            open(os.path.join(out, name + ".verified"), "w").write("%d\n" % verified)
            return "%s\tb\t%s\t1\t%s\tiut\n" % (name, expected, steps)

        good_w = [("p/window/0-1", "PASS"), ("p/window/3-4", "PASS")]
        prefix = [("p/0", "PASS"), ("p/1", "SKIP")]
        full = [("p/%d" % k, "PASS") for k in range(5)]
        plan = {
            "good-prefix": (True, plant("good-prefix", "pass", "0", "PARTIAL", prefix + good_w)),
            "good-full": (True, plant("good-full", "pass", "all", "PASS", full + good_w)),
            "good-control": (True, plant("good-control", "expected-fail", "0", "FAIL", [("op/1", "FAIL")])),
            "window-missing": (False, plant("window-missing", "pass", "0", "PARTIAL", prefix + good_w[:1])),
            "window-failed": (False, plant("window-failed", "pass", "0", "FAIL",
                                           prefix + [good_w[0], ("p/window/3-4", "FAIL")])),
            "window-skipped": (False, plant("window-skipped", "pass", "0", "PARTIAL",
                                            prefix + [good_w[0], ("p/window/3-4", "SKIP")])),
            "prefix-short": (False, plant("prefix-short", "pass", "1", "PARTIAL", prefix + good_w)),
            "full-not-pass": (False, plant("full-not-pass", "pass", "all", "PARTIAL", full + good_w)),
            "full-short": (False, plant("full-short", "pass", "all", "PASS", full[:3] + good_w)),
            "unverified": (False, plant("unverified", "pass", "0", "PARTIAL", prefix + good_w, verified=1)),
            "control-passes": (False, plant("control-passes", "expected-fail", "0", "PARTIAL", [("op/1", "PASS")])),
        }
        recipe_plan = {
            "recipe-full": (True, plant("recipe-full", "pass", "all", "PASS (recipe sha256:ab, windows)",
                                        full + good_w)),
            "recipe-official-word": (False, plant("recipe-official-word", "pass", "all", "PASS", full + good_w)),
        }
        bad = []
        for name, (want, line) in recipe_plan.items():
            open(os.path.join(out, "plan.tsv"), "w").write(line)
            got, text = table(out, vectors, "recipe", "", planted)
            if got != want:
                bad.append("%s (recipe): judged %s, expected %s\n%s" % (name, got, want, text))
        for name, (want, line) in plan.items():
            open(os.path.join(out, "plan.tsv"), "w").write(line)
            got, text = table(out, vectors, "windows", "", planted)
            if got != want:
                bad.append("%s: judged %s, expected %s\n%s" % (name, got, want, text))
        open(os.path.join(out, "plan.tsv"), "w").write("".join(l for _, l in plan.values()))
        got, text = table(out, vectors, "windows", "", planted)
        if got:
            bad.append("all hosts together: judged as expected although some are not")
        if "✗ FAIL" not in text or "missing" not in text:
            bad.append("the table does not mark a failed window ✗ and a missing one 'missing':\n" + text)
        if bad:
            print("matrix_windows_table --self-test: FAILED\n" + "\n".join(bad))
            return 1
        print("matrix_windows_table --self-test: %d planted hosts judged as planted (%d defects caught)"
              % (len(plan) + len(recipe_plan), sum(not w for w, _ in list(plan.values()) + list(recipe_plan.values()))))
        return 0
    finally:
        shutil.rmtree(vectors)
        shutil.rmtree(out)


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    ok, text = table(*sys.argv[1:5])
    print(text)
    sys.exit(0 if ok else 1)

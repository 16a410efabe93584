#!/usr/bin/env python3
"""Usage: ci/check-workflow.py [--self-test] WORKFLOW.yml   (make check-workflow)

The GitHub Actions workflow must parse as YAML (PyYAML) and have the shape
the fleet needs; every problem is printed, exit 1 if any:
  - `on` triggers and a `jobs` mapping; every job has runs-on and steps, every
    step exactly one of `uses`/`run`, every `needs` names an existing job;
  - a job that lists the emulated hosts with `isotrain-conform matrix --list`
    and exports them as an output;
  - a job fanned out over those hosts (strategy.matrix from that output with
    fromJSON) that runs `make matrix-run` for its host and uploads a receipt;
  - a job on real runners whose matrix covers x86_64 Linux, arm64 Linux
    (ubuntu-24.04-arm), macOS on Apple silicon (macos-14) and Windows, each
    running `isotrain-conform run` and uploading its receipt;
  - the tiers: triggers on push, pull_request and a schedule (cron); a job
    that runs the per-commit tier (.ci/run); a job that runs the scheduled
    tier (make ci-scheduled) only on the schedule or by hand;
  - a gather job that needs both, runs even when one failed (if: always()),
    downloads the receipts, runs `isotrain-conform matrix` and writes the
    table to the job summary ($GITHUB_STEP_SUMMARY), and writes the
    conformance page (`isotrain-conform report`) and uploads it.
--self-test: the check must reject broken copies of the file (each with one
thing removed) and accept the file itself.
"""
import copy
import sys

import yaml


def text(x):
    return yaml.safe_dump(x) if not isinstance(x, str) else x


def check(doc):
    bad = []
    if not isinstance(doc, dict):
        return ["the file is not a YAML mapping"]
    # PyYAML reads the key `on` as the boolean True (YAML 1.1)
    if "on" not in doc and True not in doc:
        bad.append("no 'on' triggers")
    jobs = doc.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        return bad + ["no jobs"]
    for name, j in jobs.items():
        if not isinstance(j, dict) or "runs-on" not in j or not isinstance(j.get("steps"), list):
            bad.append("job %s: needs runs-on and a list of steps" % name)
            continue
        for i, s in enumerate(j["steps"]):
            if not isinstance(s, dict) or ("uses" in s) == ("run" in s):
                bad.append("job %s step %d: exactly one of uses/run" % (name, i + 1))
        needs = j.get("needs", [])
        for n in [needs] if isinstance(needs, str) else needs:
            if n not in jobs:
                bad.append("job %s: needs unknown job %s" % (name, n))

    def steps(j):
        return j.get("steps", []) if isinstance(j, dict) else []

    def runs(j, word):
        return any(word in text(s.get("run", "")) for s in steps(j) if isinstance(s, dict))

    def uploads(j):
        return any("upload-artifact" in str(s.get("uses", "")) for s in steps(j) if isinstance(s, dict))

    on = doc.get("on", doc.get(True))
    if not isinstance(on, dict) or "push" not in on or "pull_request" not in on:
        bad.append("triggers: the per-commit tier needs push and pull_request")
    sched = on.get("schedule") if isinstance(on, dict) else None
    if not isinstance(sched, list) or not any(isinstance(c, dict) and c.get("cron") for c in sched):
        bad.append("triggers: no schedule (cron) for the scheduled tier")
    if not any(runs(j, ".ci/run") for j in jobs.values()):
        bad.append("no job runs the per-commit tier (.ci/run)")
    heavy = [n for n, j in jobs.items() if runs(j, "make ci-scheduled")]
    if not heavy:
        bad.append("no job runs the scheduled tier (make ci-scheduled)")
    for n in heavy:
        cond = str(jobs[n].get("if", "")) if isinstance(jobs[n], dict) else ""
        if "schedule" not in cond:
            bad.append("job %s: the scheduled tier must run only on the schedule (or by hand): no if on github.event_name"
                       % n)
    lister = [n for n, j in jobs.items() if runs(j, "matrix --hosts qemu/hosts.json --list") and
              isinstance(j, dict) and j.get("outputs")]
    if not lister:
        bad.append("no job lists the emulated hosts (isotrain-conform matrix --list) as an output")
    fan = [n for n, j in jobs.items() if isinstance(j, dict) and
           "fromJSON(needs." in text(j.get("strategy", {}).get("matrix", "")) and runs(j, "make matrix-run")]
    if not fan:
        bad.append("no job fans out over the hosts (strategy.matrix from fromJSON(needs...)) running make matrix-run")
    for n in fan:
        if not uploads(jobs[n]):
            bad.append("job %s: uploads no receipt" % n)
        if lister and lister[0] not in ([jobs[n]["needs"]] if isinstance(jobs[n].get("needs"), str) else jobs[n].get("needs", [])):
            bad.append("job %s: does not need the host-listing job %s" % (n, lister[0]))
    real = []
    for n, j in jobs.items():
        inc = j.get("strategy", {}).get("matrix", {}).get("include") if isinstance(j, dict) else None
        if isinstance(inc, list):
            oses = " ".join(str(e.get("os", "")) for e in inc if isinstance(e, dict))
            want = ["ubuntu", "ubuntu-24.04-arm", "macos-14", "windows"]
            missing = [w for w in want if w not in oses]
            if missing:
                bad.append("job %s: real runners lack %s" % (n, ", ".join(missing)))
            elif not runs(j, "isotrain-conform run") or not uploads(j):
                bad.append("job %s: must run isotrain-conform run and upload the receipt" % n)
            else:
                real.append(n)
    if not real:
        bad.append("no job on real runners (x86_64/arm64 Linux, macos-14, Windows)")
    gather = [n for n, j in jobs.items() if runs(j, "isotrain-conform matrix --hosts") and not runs(j, "--list")]
    if not gather:
        bad.append("no gather job running isotrain-conform matrix")
    for n in gather:
        j = jobs[n]
        needs = [j.get("needs")] if isinstance(j.get("needs"), str) else j.get("needs", [])
        for dep in fan[:1] + real[:1]:
            if dep not in needs:
                bad.append("gather job %s: does not need %s" % (n, dep))
        if "always()" not in str(j.get("if", "")):
            bad.append("gather job %s: must run when a host job failed (if: always())" % n)
        if not any("download-artifact" in str(s.get("uses", "")) for s in steps(j)):
            bad.append("gather job %s: downloads no receipts" % n)
        if not runs(j, "GITHUB_STEP_SUMMARY"):
            bad.append("gather job %s: writes no job summary" % n)
        page = [s for s in steps(j) if isinstance(s, dict) and "isotrain-conform report" in text(s.get("run", ""))]
        if not page or not any("upload-artifact" in str(s.get("uses", "")) and "index.html" in text(s.get("with", {}))
                               for s in steps(j) if isinstance(s, dict)):
            bad.append("gather job %s: writes no conformance page (isotrain-conform report) or does not upload it" % n)
    return bad


def main(argv):
    self_test = argv[:1] == ["--self-test"]
    path = argv[-1]
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print("check-workflow: %s: %s" % (path, e))
        return 1
    if not self_test:
        bad = check(doc)
        for b in bad:
            print("check-workflow: %s: %s" % (path, b))
        if not bad:
            print("check-workflow: %s: valid YAML; fans out over the hosts, runs the real runners, gathers" % path)
        return 1 if bad else 0
    if check(doc):
        print("check-workflow --self-test: the file itself is rejected; run without --self-test to see why")
        return 1
    broken = []

    def mutant(what, f):
        d = copy.deepcopy(doc)
        f(d)
        broken.append((what, d))

    jobs = doc["jobs"]
    gather = next(n for n, j in jobs.items() if "needs" in j and "always()" in str(j.get("if", "")))
    fan = next(n for n, j in jobs.items() if "fromJSON" in text(j.get("strategy", {}).get("matrix", "")))
    real = next(n for n, j in jobs.items() if "include" in j.get("strategy", {}).get("matrix", {}))
    mutant("gather without needs", lambda d: d["jobs"][gather].pop("needs"))
    mutant("gather without if: always()", lambda d: d["jobs"][gather].pop("if"))
    mutant("no fan-out", lambda d: d["jobs"][fan].pop("strategy"))
    mutant("no macOS runner", lambda d: d["jobs"][real]["strategy"]["matrix"]["include"].pop(2))
    mutant("a step with both uses and run", lambda d: d["jobs"][gather]["steps"][0].update(uses="x/y@v1"))
    mutant("needs an unknown job", lambda d: d["jobs"][gather].update(needs=["nope"]))
    mutant("no job summary", lambda d: d["jobs"][gather]["steps"].pop(-2))
    mutant("no conformance page", lambda d: d["jobs"][gather]["steps"].pop(
        next(i for i, st in enumerate(d["jobs"][gather]["steps"]) if "isotrain-conform report" in text(st.get("run", "")))))
    heavy = next(n for n, j in jobs.items() if "make ci-scheduled" in text(j.get("steps", "")))
    mutant("no schedule trigger", lambda d: d.get("on", d.get(True)).pop("schedule"))
    mutant("scheduled tier on every push", lambda d: d["jobs"][heavy].pop("if"))
    mutant("no scheduled tier", lambda d: d["jobs"].pop(heavy))
    fails = 0
    for what, d in broken:
        got = check(d)
        print("check-workflow --self-test: %-32s %s" % (what, ("rejected: " + got[0]) if got else "ACCEPTED (the check is blind to it)"))
        fails += not got
    try:
        yaml.safe_load("jobs: [unclosed\n")
        print("check-workflow --self-test: malformed YAML ACCEPTED")
        fails += 1
    except yaml.YAMLError:
        print("check-workflow --self-test: %-32s rejected by the YAML parser" % "malformed YAML")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

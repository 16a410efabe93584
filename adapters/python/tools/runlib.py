"""What the make-target scripts of adapters/python/tools share: running the
isotrain runner on an IUT with an environment, reading its receipt (the
DSSE envelope's in-toto Statement), and pulling the localization lines out
of its output. Every verdict in a table comes from the runner.
"""

import json
import os
import re
import shlex
import subprocess
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
VECTORS = os.path.join(ROOT, "vectors", "v1.2.0")
# what the golden vectors say at the last step (spec §11.8, §13.8, §14.8)
FINAL = {"mlp13k": (200, "7f987a5d5afb14bc9fb412c18e6ee08ae13ca66720ffdd22e218b3d5c1754687"),
         "addmod113": (300, "8258afc887d07c1aec3196ea265e9ebaa46b3ce91c8363cdf849ad21585af8d2"),
         "gptchar": (500, "c27ef55f4d1e5b1453473747832da2ae69e999ca2702401f93de533c6fa0387a")}


class Run:
    """One `isotrain-conform run`: exit status, output, receipt, times."""

    def __init__(self, name, conform, iut, args, env, out_dir, timeout_run=7200, threads=1):
        self.name = name
        self.threads = threads
        self.dir = os.path.join(out_dir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.receipt_path = os.path.join(self.dir, "receipt.json")
        self.log_path = os.path.join(self.dir, "runner.txt")
        # the argv form (after --, no shell): the receipt binds the program,
        # its script and its emulator (conformance/README.md "What a receipt
        # proves"); iut is a command line of plain words
        self.cmd = [conform, "run", "--vectors", VECTORS, "--timeout-run", str(timeout_run),
                    "--receipt", self.receipt_path] + list(args) + ["--"] + shlex.split(iut)
        self.env = dict(os.environ, **env)
        self.status = None
        self.text = ""
        self.wall = self.cpu = None
        self.proc = None

    def start(self):
        self.t0 = time.time()
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.cmd, env=self.env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        return self

    def finish(self, status, ru):
        """Called with wait4's status and rusage of this run's runner process:
        its CPU time counts the IUT processes the runner waited for."""
        self.status = os.waitstatus_to_exitcode(status)
        self.cpu = ru.ru_utime + ru.ru_stime
        self.wall = time.time() - self.t0
        self.proc.returncode = self.status
        self.log.close()
        with open(self.log_path, errors="replace") as f:
            self.text = f.read()
        return self

    def wait(self):
        _, status, ru = os.wait4(self.proc.pid, 0)
        return self.finish(status, ru)

    def receipt(self):
        """The receipt as the runner's strict reader reads it (`receipt --json`), or None."""
        try:
            p = subprocess.run([self.cmd[0], "receipt", "--json", self.receipt_path], cwd=ROOT, capture_output=True,
                               text=True)
            return json.loads(p.stdout) if p.returncode == 0 else None
        except (OSError, ValueError):
            return None

    def verdict_line(self):
        """The runner's closing line (N passed, N failed, ...; VERDICT ...)."""
        lines = [l for l in self.text.splitlines() if re.match(r"\d+ passed, \d+ failed", l)]
        return lines[-1] if lines else "(no closing line; exit status %s)" % self.status

    def verdict(self):
        r = self.receipt()
        return r["verdict"] if r else "NONE"

    def final_digests(self):
        """{profile: (last step, its sha256)} from the receipt's traces."""
        r = self.receipt()
        out = {}
        for p in (r or {}).get("levels", {}).get("train", {}).get("profiles", []) or []:
            reached = [s for s in p.get("trace") or [] if s.get("reached")]
            if reached:
                out[p["profile"]] = (reached[-1]["step"], reached[-1]["sha256"])
        return out

    def hello(self):
        r = self.receipt()
        return (r or {}).get("iut", {}).get("hello", "")

    def where(self):
        """The runner's localization: first differing step, tensor and op."""
        keep = ("first step whose parameters differ", "first differing tensor", "first differing op",
                "loss bits identical")
        return [l.strip() for l in self.text.splitlines() if any(k in l for k in keep)]


def run_all(runs, slots):
    """Runs every Run, starting the next one whenever the threads of the
    active ones (run.threads each) leave room within `slots`."""
    pending, active = list(runs), {}
    while pending or active:
        while pending and (not active or sum(r.threads for r in active.values()) + pending[0].threads <= slots):
            r = pending.pop(0).start()
            active[r.proc.pid] = r
        pid, status, ru = os.wait4(-1, 0)
        if pid in active:
            active.pop(pid).finish(status, ru)
    return runs

#!/usr/bin/env python3
"""Usage: ci/check-report-browser.py --conform BIN --out DIR [--chromium PATH]   (make test-report)

The conformance page (`isotrain-conform report`, issue 22) opened from disk in
a real browser, Debian's chromium, headless, with every name resolving to
nowhere and a network log:

  1. the published v1.0.0 receipts: the page's host matrix (the DOM chromium
     built, --dump-dom) has exactly the hosts `isotrain-conform matrix` prints
     for the same receipts, each with the same result words, the same digest
     prefix at every checkpoint and the same "all agree" row;
  2. no request leaves the file: the network log has no request made by the
     page other than file: ones; negative controls: a page with an external
     <img> and <link> must be caught, and so must the generated page with its
     Content-Security-Policy removed and an external <img> added (while with
     the policy in place, that <img> must not even be fetched);
  3. a screenshot: DIR/v1.0.0.png (a reader looks at it; it must not be blank);
  4. a hostile receipt (script tags, </table>, U+202E, invalid UTF-8 and
     10 MB strings in the fields an IUT controls, re-wrapped unsigned so it
     still verifies) renders as inert text: its DOM has the same elements and
     attributes in the same order as the DOM of a benign twin (the same
     receipt with every hostile string replaced by as many 'x'), no script,
     no img, no on* attribute, no U+202E; the hostile text is there as text;
     the page stays under 1.5 MB; negative control: one element slipped into
     the hostile text must make the DOMs differ;
  5. with --reference/--mutant: the divergence data adapters/pytorch/divergence.py
     writes (the reference against the FMA and flip-step mutants, every step
     checkpointed) drawn by `report --divergence`: two figures with their text
     alternatives and the table behind them, and no request.

Standard library, plus numpy for divergence.py. Exit 0 when every check passed, 1 otherwise.
"""
import argparse
import base64
import glob
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def check(ok, what):
    print("check-report-browser: %s: %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        failures.append(what)
    return ok


# ---- chromium ------------------------------------------------------------------

def chromium(args, page, out_dir, tag):
    """Runs chromium headless on file://page with the network pointed at
    nowhere; returns (stdout, net-log path)."""
    prof = tempfile.mkdtemp(prefix="chromium-profile.", dir=out_dir)
    netlog = os.path.join(out_dir, "netlog-%s.json" % tag)
    cmd = [args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--disable-default-apps", "--no-pings", "--disable-domain-reliability",
           "--user-data-dir=" + prof, "--host-resolver-rules=MAP * ~NOTFOUND",
           "--log-net-log=" + netlog, "--net-log-capture-mode=Default",
           "--window-size=1400,2400", "--hide-scrollbars"] + tag_flags(tag, out_dir) + \
          ["file://" + os.path.abspath(page)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    print("check-report-browser: chromium %s: %.1f s" % (tag, time.time() - t0))
    if p.returncode != 0:
        print(p.stderr.decode("utf-8", "replace")[-2000:], file=sys.stderr)
    return p.stdout.decode("utf-8", "replace"), netlog


def tag_flags(tag, out_dir):
    if tag.startswith("shot"):
        return ["--screenshot=" + os.path.join(out_dir, tag[5:] + ".png")]
    return ["--dump-dom"]


def page_requests(netlog):
    """The requests the page made (not the browser's own background ones):
    every URL request whose initiator is the page's opaque file origin
    ("null") or whose network isolation key is the file:// site."""
    with open(netlog, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # chromium may be killed before it closes the JSON array
    try:
        d = json.loads(text)
    except ValueError:
        d = json.loads(text.rstrip().rstrip(",") + "]}")
    types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    seen = []
    for e in d["events"]:
        if types.get(e["type"]) != "URL_REQUEST_START_JOB":
            continue
        p = e.get("params", {})
        url = p.get("url")
        if not url:
            continue
        from_page = p.get("initiator") == "null" or "file://" in str(p.get("network_isolation_key", "")) or \
            str(p.get("initiator", "")).startswith("file:")
        if from_page:
            seen.append(url)
    return seen


def non_file(urls):
    return [u for u in urls if not u.startswith(("file:", "data:", "about:"))]


# ---- the DOM -------------------------------------------------------------------

class Dom(html.parser.HTMLParser):
    """Elements in document order, and the matrix tables' rows as text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []     # (tag, sorted attribute names)
        self.attrs = []        # every (tag, name, value)
        self.text = []
        self.tables = []       # matrix tables: list of rows, row = list of (tag, class, text)
        self._stack = []
        self._cell = None
        self._in_matrix = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, tuple(sorted(k for k, _ in attrs))))
        for k, v in attrs:
            self.attrs.append((tag, k, v or ""))
        if tag == "table" and "matrix" in (a.get("class") or "").split():
            self._in_matrix += 1
            self.tables.append([])
        elif tag == "table" and self._in_matrix:
            self._in_matrix += 1
        if self._in_matrix == 1 and tag == "tr":
            self.tables[-1].append([])
        if self._in_matrix == 1 and tag in ("td", "th"):
            self._cell = [tag + ("-row" if a.get("scope") == "row" else ""), a.get("class") or "", ""]

    def handle_endtag(self, tag):
        if self._in_matrix and tag == "table":
            self._in_matrix -= 1
        if self._in_matrix == 1 and tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append((self._cell[0], self._cell[1], " ".join(self._cell[2].split())))
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell[2] += data


def parse(dom_text):
    d = Dom()
    d.feed(dom_text)
    d.close()
    return d


# ---- the matrix's own words ----------------------------------------------------

def matrix_rows(args, receipts):
    """{host: (result, [digest cells], time)} and the agree row, from the text
    table `isotrain-conform matrix` prints (fixed-width columns: sliced at the
    header's column starts)."""
    p = subprocess.run([args.conform, "matrix", "--hosts", "qemu/hosts.json", "--allowed-signers",
                        "vectors/KEYS/allowed_signers"] + receipts,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    if p.returncode not in (0, 1):
        sys.exit("check-report-browser: matrix failed (exit %d):\n%s" % (p.returncode, p.stderr))
    lines = p.stdout.splitlines()
    head = lines[0]
    cols = ["host", "runs as", "kernels", "expected", "result"]
    # trust columns (who signed, whether the subject is bound) sit between
    # the result and the steps; the page shows them elsewhere
    extra = [c for c in ("signed by", "subject") if c in head]
    starts = [head.index(c) for c in cols + extra]
    steps = []
    i = head.index(extra[-1] if extra else "result") + len(extra[-1] if extra else "result")
    while True:
        j = head.find("step ", i)
        if j < 0:
            break
        steps.append(j)
        i = j + 5
    tstart = head.rindex("time") - 4
    bounds = starts + steps + [tstart]
    rows, agree = {}, None
    for ln in lines[1:]:
        if ln.startswith("(cells:"):
            break
        fields = [ln[bounds[k]:bounds[k + 1]].strip() if k + 1 < len(bounds) else ln[bounds[k]:].strip()
                  for k in range(len(bounds))]
        first = len(cols) + len(extra)  # the first step column
        if fields[0] == "all agree":
            agree = fields[first:first + len(steps)]
            continue
        rows[fields[0]] = (fields[4], fields[first:first + len(steps)])
    return rows, agree, [head[s:].split()[1] for s in steps]


def page_rows(dom):
    """The first matrix table of the page: {host: (result, [digest cells])}."""
    if not dom.tables:
        return {}, None
    rows, agree = {}, None
    for r in dom.tables[0]:
        if not r or r[0][0] != "th-row":  # a row header: one host (or "all agree")
            continue
        host = r[0][2]
        res = [c[2] for c in r if "res" in c[1].split()]
        dg = [c[2] for c in r if "dg" in c[1].split()]
        if host == "all agree":
            agree = dg
        else:
            rows[host] = (res[0] if res else None, dg)
    return rows, agree


# ---- a PNG that is not blank ----------------------------------------------------

def png_distinct_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    i, idat = 8, b""
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        kind = data[i + 4:i + 8]
        if kind == b"IDAT":
            idat += data[i + 8:i + 8 + n]
        i += 12 + n
    return len(set(zlib.decompress(idat)))


# ---- hostile receipts ------------------------------------------------------------

HOSTILE_HEAD = "<script>alert(1)</script></table></td><img src=x onerror=alert(2)>\u202etxt.exe"
BAD_UTF8 = "\x00INVALID-UTF8\x00"  # replaced by raw bytes after encoding


def rewrap(env, edit):
    """An unsigned envelope around the receipt of env, edited. Invalid UTF-8
    goes in as raw bytes where the placeholder is."""
    st = json.loads(base64.b64decode(env["payload"]))
    edit(st["predicate"]["isotrainReceipt"])
    body = json.dumps(st, ensure_ascii=False).encode("utf-8")
    body = body.replace(BAD_UTF8.encode("utf-8").replace(b"\x00", b"\\u0000"), b"\xff\xfe\xc0\xaf")
    return {"payloadType": env["payloadType"], "payload": base64.b64encode(body).decode(), "signatures": []}


def hostile_edit(big, benign):
    def s(tag, n):
        text = "%s:%s%s\"onmouseover=\"alert(3)%s</html>" % (tag, HOSTILE_HEAD, BAD_UTF8, "A" * n)
        if benign:  # as many bytes, nothing to escape
            return "x" * len(text.replace(BAD_UTF8, "1234").encode("utf-8"))
        return text

    def edit(r):
        # hello keeps its spec= key (verify checks iut.spec against it)
        r["iut"]["hello"] = s("hello", big) + " spec=" + r["iut"]["hello"].split("spec=", 1)[1].split()[0]
        r["iut"]["name"] = s("name", 1000)
        vals = r["iut"]["self_report"]["values"]
        vals["cpu_model"] = s("cpu_model", big)
        vals["os"] = s("os", 1000)
        r["emulator_warnings"] = [s("warning", 1000)]
        p0 = r["levels"]["train"]["profiles"][0]
        p0["stderr_tail"] = s("stderr", big)
        p0["localization_text"] = s("loc", 1000)
        for c in r["cases"]:
            if c["verdict"] == "FAIL":
                c["reason"] = s("reason", big)
                break
        r["matrix_host"] = s("host", 100)
    return edit


def divergence(args, out):
    """Step 5: divergence.py's CSV, as `make pytorch-divergence` writes it, on
    the page."""
    d = os.path.join(out, "divergence")
    os.makedirs(d)
    runs = [("ref", os.path.abspath(args.reference))] + [(m.split("=", 1)[0], os.path.abspath(m.split("=", 1)[1]))
                                                         for m in args.mutant]
    for name, cli in runs:
        p = subprocess.run([cli, "train", "--profile", "mlp13k", "--steps", "200", "--trace",
                            os.path.join(d, name + ".txt"), "--checkpoint-dir", os.path.join(d, name),
                            "--checkpoint-steps", "all"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not check(p.returncode == 0, "divergence: %s trained 200 steps" % name):
            return
    pairs = []
    for name, _ in runs[1:]:
        pairs += ["reference vs " + name, os.path.join(d, "ref.txt"), os.path.join(d, "ref"),
                  os.path.join(d, name + ".txt"), os.path.join(d, name)]
    csv = os.path.join(d, "divergence.csv")
    p = subprocess.run(["/usr/bin/python3", "adapters/pytorch/divergence.py", "--csv", csv, "--svg",
                        os.path.join(d, "divergence.svg"), "--title", "reference vs mutants"] + pairs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    if not check(p.returncode == 0, "divergence.py wrote %s" % csv):
        print(p.stderr[-2000:], file=sys.stderr)
        return
    for name, _ in runs:
        shutil.rmtree(os.path.join(d, name), ignore_errors=True)
    page = os.path.join(out, "divergence.html")
    p = subprocess.run([args.conform, "report", "--vectors", "vectors/v1.0.0", "--divergence", csv, "-o", page],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, "report --divergence with no receipt exits 0 (%s)" % p.stdout.strip()[:120])
    dom_text, nl = chromium(args, page, out, "divergence")
    dom = parse(dom_text)
    svgs = [v for t, k, v in dom.attrs if t == "svg" and k == "role"]
    titles = "".join(dom.text)
    check(len(svgs) == 2 and all(v == "img" for v in svgs), "two divergence figures, each role=img (%s)" % svgs)
    check(all(("reference vs " + n) in titles for n, _ in runs[1:]), "each pair is named on the page")
    check("first non-zero at step" in titles, "the figures' text alternatives say where the runs part")
    check(not non_file(page_requests(nl)), "the divergence page makes no request")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--reference", help="the reference CLI (step 5)")
    ap.add_argument("--mutant", action="append", default=[], help="LABEL=PATH of a mutant CLI (step 5)")
    args = ap.parse_args()
    args.conform = os.path.abspath(args.conform)
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    os.chdir(ROOT)
    receipts = sorted(glob.glob("vectors/v1.0.0/receipts/*.json"))

    # 1. the published receipts: the page against matrix
    page = os.path.join(out, "v1.0.0.html")
    p = subprocess.run([args.conform, "report", "--hosts", "qemu/hosts.json", "--vectors", "vectors/v1.0.0",
                        "--allowed-signers", "vectors/KEYS/allowed_signers", "-o", page] + receipts,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, "report on the %d published receipts exits 0 (%s)" % (len(receipts), p.stdout.strip()))
    dom_text, netlog = chromium(args, page, out, "published")
    dom = parse(dom_text)
    want, want_agree, steps = matrix_rows(args, receipts)
    got, got_agree = page_rows(dom)
    check(len(want) == len(receipts) and set(got) == set(want),
          "every host row is present: the page has %d hosts, matrix %d" % (len(got), len(want)))
    for h in sorted(want):
        if h in got:
            check(got[h][0] == want[h][0], "%s: the page's result \"%s\" is matrix's \"%s\"" % (h, got[h][0], want[h][0]))
            check(got[h][1] == want[h][1], "%s: digests at steps %s are matrix's (%s)" % (
                h, "/".join(steps), " ".join(want[h][1])))
    check(got_agree == want_agree, "the \"all agree\" row is matrix's: %s" % want_agree)
    reqs = page_requests(netlog)
    check(not non_file(reqs), "no request leaves the file (page requests: %s)" % (reqs or "none"))

    # 2. the negative controls of the network check
    ctl = os.path.join(out, "control-external.html")
    with open(ctl, "w") as f:
        f.write("<!DOCTYPE html><html><head><link rel=\"stylesheet\" href=\"https://style.invalid/x.css\"></head>"
                "<body><p>control</p><img src=\"http://192.0.2.1/pixel.png\" alt=\"\"></body></html>")
    _, nl = chromium(args, ctl, out, "control-external")
    caught = non_file(page_requests(nl))
    check(any("192.0.2.1" in u for u in caught) and any("style.invalid" in u for u in caught),
          "negative control: an external <img> and <link> are caught (%s)" % caught)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    csp_start = text.index("<meta http-equiv=\"Content-Security-Policy\"")
    csp_end = text.index(">", csp_start) + 1
    injected = text.replace("</main>", "<img src=\"http://192.0.2.1/injected.png\" alt=\"\"></main>", 1)
    no_csp = os.path.join(out, "control-no-csp.html")
    with open(no_csp, "w", encoding="utf-8") as f:
        f.write(injected[:csp_start] + injected[csp_end:])
    _, nl = chromium(args, no_csp, out, "control-no-csp")
    caught = non_file(page_requests(nl))
    check(any("injected.png" in u for u in caught),
          "negative control: the page without its CSP and with an external <img> is caught (%s)" % caught)
    with_csp = os.path.join(out, "control-csp.html")
    with open(with_csp, "w", encoding="utf-8") as f:
        f.write(injected)
    _, nl = chromium(args, with_csp, out, "control-csp")
    check(not non_file(page_requests(nl)), "the page's CSP blocks that <img> before any request")

    # 3. the screenshot
    chromium(args, page, out, "shot-v1.0.0")
    shot = os.path.join(out, "v1.0.0.png")
    n = png_distinct_bytes(shot) if os.path.exists(shot) else 0
    check(n > 64, "screenshot %s written and not blank (%d distinct bytes in its pixel data)" % (shot, n))

    # 4. the hostile receipt and its benign twin
    # A FAIL of this runner's rules (failing cases, localization, stderr): the
    # flip mutant certified now. (A published receipt of the first trust
    # rules is read only under the retired key's signature, which an edit
    # removes.)
    src = os.path.join(out, "fail-source.json")
    flip = dict(m.split("=", 1) for m in args.mutant).get("flip-step")
    if not check(flip is not None, "a FAIL to edit: --mutant flip-step=PATH given"):
        return
    p = subprocess.run([args.conform, "run", "--vectors", "vectors/v1.0.0", "--receipt", src, "--", flip],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not check(p.returncode == 1 and os.path.exists(src), "the flip mutant's run is a FAIL with a receipt (exit %d)"
                 % p.returncode):
        return
    with open(src) as f:
        env = json.load(f)
    pages = {}
    for kind, benign in (("hostile", False), ("twin", True)):
        rec = os.path.join(out, "%s.json" % kind)
        with open(rec, "w", encoding="utf-8") as f:
            json.dump(rewrap(env, hostile_edit(10 << 20, benign)), f)
        pg = os.path.join(out, "%s.html" % kind)
        # --allow-unsigned: the edited receipt is unsigned by construction (report
        # refuses it by default; test_report.c shows that), and what is tested
        # here is how its fields render
        p = subprocess.run([args.conform, "report", "--allow-unsigned", "--hosts", "qemu/hosts.json", "--vectors",
                            "vectors/v1.0.0", "-o", pg, rec], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        check(p.returncode == 0, "%s receipt (%.1f MB) accepted and rendered (%s)" % (
            kind, os.path.getsize(rec) / 1e6, p.stdout.strip()[:160]))
        pages[kind] = pg
    size = os.path.getsize(pages["hostile"])
    check(size < 1500000, "the hostile page is bounded: %d bytes" % size)
    hd, nl = chromium(args, pages["hostile"], out, "hostile")
    td, _ = chromium(args, pages["twin"], out, "twin")
    hdom, tdom = parse(hd), parse(td)
    check(len(hdom.elements) > 100 and hdom.elements == tdom.elements,
          "the hostile page's DOM has the twin's %d elements, tag for tag and attribute for attribute (hostile: %d)"
          % (len(tdom.elements), len(hdom.elements)))
    tags = {t for t, _ in hdom.elements}
    check("script" not in tags and "img" not in tags, "no <script> or <img> element in the hostile DOM")
    onattr = [(t, k) for t, k, _ in hdom.attrs if k.lower().startswith("on")]
    check(not onattr, "no on* attribute in the hostile DOM (%s)" % onattr[:3])
    alltext = "".join(hdom.text)
    check("<script>alert(1)</script></table></td><img src=x onerror=alert(2)>" in alltext,
          "the hostile markup is in the page as text")
    check("\u202e" not in alltext and "\u27e8U+202E\u27e9" in alltext, "U+202E is shown by name, never applied")
    check("\ufffd" in alltext, "invalid UTF-8 is shown as U+FFFD")
    check(not non_file(page_requests(nl)), "the hostile page makes no request either")
    # negative control of the DOM comparison: one element slipped into the
    # hostile text (what a missed escape would do) must be seen
    with open(pages["hostile"], encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    at = text.index("hello:&lt;script&gt;")
    slipped = os.path.join(out, "control-slipped.html")
    with open(slipped, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text[:at] + "<b>slipped</b>" + text[at:])
    sd, _ = chromium(args, slipped, out, "control-slipped")
    check(parse(sd).elements != tdom.elements,
          "negative control: one <b> slipped into the hostile text makes its DOM differ from the twin's")

    if args.reference:
        divergence(args, out)
    print("check-report-browser: %s" % ("all checks passed" if not failures else "%d FAILED" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

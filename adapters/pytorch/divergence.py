#!/usr/bin/env python3
"""The divergence curve of two runs of one training job: per step, the loss gap
and the largest absolute difference between their parameters.

    divergence.py --csv OUT.csv --svg OUT.svg --title TEXT \
        LABEL TRACE_A CKDIR_A TRACE_B CKDIR_B [LABEL TRACE_A CKDIR_A TRACE_B CKDIR_B ...]
    divergence.py --replot --csv OUT.csv --svg OUT.svg --title TEXT     (redraw from the CSV)

Each TRACE is an isotrain trace (spec §9.2); each CKDIR holds the raw float32
parameter bytes of every step as step-NNNNNN.bin (isotrain_trace.IsotrainTrace
with checkpoint_steps="all", or the IUT protocol's --checkpoint-steps all).
Several labelled pairs go into one CSV (column `pair`) and one plot.

This script measures sizes of differences; whether two runs are identical is
the runner's verdict (`isotrain-conform compare`), not this script's.
Standard library + numpy; the SVG is written by hand.
"""

import argparse
import csv
import math
import os
import struct
import sys

import numpy as np


def read_trace(path):
    """{step: loss bits or None} from a §9.2 trace (other keys ignored)."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            kv = dict(tok.split("=", 1) for tok in line.split())
            loss = kv.get("loss")
            out[int(kv["step"])] = int(loss, 16) if loss else None
    return out


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def ulp_distance(a, b):
    """Distance in binary32 steps between two bit patterns (finite values):
    map sign-magnitude to a line where consecutive floats are consecutive
    integers (+0 and -0 both at 0)."""
    oa = a if a < 0x80000000 else -(a - 0x80000000)
    ob = b if b < 0x80000000 else -(b - 0x80000000)
    return abs(oa - ob)


def pair_rows(label, trace_a, dir_a, trace_b, dir_b):
    ta, tb = read_trace(trace_a), read_trace(trace_b)
    rows = []
    for step in sorted(set(ta) & set(tb)):
        fa = os.path.join(dir_a, "step-%06d.bin" % step)
        fb = os.path.join(dir_b, "step-%06d.bin" % step)
        if not (os.path.exists(fa) and os.path.exists(fb)):
            continue
        pa = np.fromfile(fa, dtype="<f4")
        pb = np.fromfile(fb, dtype="<f4")
        if pa.size != pb.size:
            sys.exit("divergence.py: %s and %s have different sizes" % (fa, fb))
        diff = np.abs(pa.astype(np.float64) - pb.astype(np.float64))
        differing = int(np.count_nonzero(pa.view(np.uint32) != pb.view(np.uint32)))
        la, lb = ta[step], tb[step]
        row = {"pair": label, "step": step,
               "loss_a": "", "loss_b": "", "loss_gap": "", "loss_ulp": "",
               "param_maxabs_gap": "%.9g" % float(diff.max()) if diff.size else "0",
               "params_differing": differing, "params": int(pa.size)}
        if la is not None and lb is not None:
            row.update(loss_a="%.9g" % f32(la), loss_b="%.9g" % f32(lb),
                       loss_gap="%.9g" % abs(f32(la) - f32(lb)), loss_ulp=ulp_distance(la, lb))
        rows.append(row)
    return rows


# ---- a small SVG line plot with a log10 y axis -------------------------------------

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_panel(x0, y0, w, h, title, series, xmax, floor):
    """One panel: series = [(name, color, [(step, value)])]; values <= 0 are
    drawn at `floor` (marked as "0" on the axis)."""
    vals = [v for _, _, pts in series for _, v in pts if v > 0]
    lo = math.floor(math.log10(min(vals))) if vals else -8
    hi = math.ceil(math.log10(max(vals))) if vals else 0
    lo = min(lo, hi - 1)
    zero_y = lo - 1            # one decade below the smallest value: "exactly 0"
    X = lambda s: x0 + w * s / max(xmax, 1)
    Y = lambda v: y0 + h - h * ((math.log10(v) if v > 0 else zero_y) - zero_y) / (hi - zero_y)
    out = ['<text x="%g" y="%g" font-size="14" font-weight="bold">%s</text>' % (x0, y0 - 10, esc(title)),
           '<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#444"/>' % (x0, y0, w, h)]
    for d in range(zero_y, hi + 1):
        y = Y(10.0 ** d) if d > zero_y else Y(0)
        out.append('<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/>' % (x0, y, x0 + w, y))
        label = "0" if d == zero_y else "1e%d" % d
        out.append('<text x="%g" y="%.1f" font-size="11" text-anchor="end">%s</text>' % (x0 - 4, y + 4, label))
    nt = 6
    for i in range(nt + 1):
        s = round(xmax * i / nt)
        out.append('<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#444"/>' % (X(s), y0 + h, X(s), y0 + h + 4))
        out.append('<text x="%.1f" y="%g" font-size="11" text-anchor="middle">%d</text>' % (X(s), y0 + h + 17, s))
    out.append('<text x="%g" y="%g" font-size="12" text-anchor="middle">step</text>' % (x0 + w / 2, y0 + h + 32))
    for name, color, pts in series:
        if pts:
            d = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", X(s), Y(v)) for i, (s, v) in enumerate(pts))
            out.append('<path d="%s" fill="none" stroke="%s" stroke-width="1.5"/>' % (d, color))
    # legend in the lower right corner, where gaps that grow leave room
    lw = 20 + 7 * max((len(n) for n, _, _ in series), default=0)
    lx, ly = x0 + w - lw - 8, y0 + h - 8 - 16 * len(series)
    out.append('<rect x="%g" y="%g" width="%g" height="%g" fill="white" fill-opacity="0.85" stroke="#bbb"/>'
               % (lx - 6, ly - 4, lw + 8, 16 * len(series) + 6))
    for k, (name, color, _) in enumerate(series):
        y = ly + 16 * k + 6
        out.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>' % (lx, y, lx + 18, y, color))
        out.append('<text x="%g" y="%g" font-size="12">%s</text>' % (lx + 23, y + 4, esc(name)))
    return out


def write_svg(path, title, rows, labels):
    xmax = max(int(r["step"]) for r in rows) if rows else 1
    loss_series, param_series = [], []
    for k, label in enumerate(labels):
        mine = [r for r in rows if r["pair"] == label]
        color = COLORS[k % len(COLORS)]
        loss_series.append((label, color, [(int(r["step"]), float(r["loss_gap"]))
                                           for r in mine if r["loss_gap"] != ""]))
        param_series.append((label, color, [(int(r["step"]), float(r["param_maxabs_gap"])) for r in mine]))
    W, H, pw, ph = 900, 720, 780, 250
    body = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, H),
            '<rect width="100%" height="100%" fill="white"/>',
            '<text x="%d" y="24" font-size="16" font-weight="bold" text-anchor="middle">%s</text>'
            % (W // 2, esc(title))]
    body += svg_panel(90, 70, pw, ph, "|loss A - loss B| per step (log scale)", loss_series, xmax, 0)
    body += svg_panel(90, 410, pw, ph, "max |param A - param B| over all parameters, per step (log scale)",
                      param_series, xmax, 0)
    body.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(body) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--title", default="divergence of two runs")
    ap.add_argument("--replot", action="store_true",
                    help="read --csv (written earlier) and only redraw --svg; no pairs needed")
    ap.add_argument("pairs", nargs="*", help="LABEL TRACE_A CKDIR_A TRACE_B CKDIR_B, repeated")
    a = ap.parse_args()
    if a.replot:
        with open(a.csv) as f:
            rows = list(csv.DictReader(f))
        labels = list(dict.fromkeys(r["pair"] for r in rows))
        write_svg(a.svg, a.title, rows, labels)
        print("wrote %s from %s" % (a.svg, a.csv))
        return
    if not a.pairs:
        ap.error("give LABEL TRACE_A CKDIR_A TRACE_B CKDIR_B (or --replot)")
    if len(a.pairs) % 5:
        ap.error("pairs come in groups of five: LABEL TRACE_A CKDIR_A TRACE_B CKDIR_B")
    rows, labels = [], []
    for i in range(0, len(a.pairs), 5):
        labels.append(a.pairs[i])
        rows += pair_rows(*a.pairs[i:i + 5])
    fields = ["pair", "step", "loss_a", "loss_b", "loss_gap", "loss_ulp",
              "param_maxabs_gap", "params_differing", "params"]
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    write_svg(a.svg, a.title, rows, labels)
    for label in labels:
        mine = [r for r in rows if r["pair"] == label]
        first = next((r for r in mine if r["params_differing"]), None)
        print("%s: %d steps; parameters first differ at step %s" %
              (label, len(mine), first["step"] if first else "- (never)"))
        for r in mine:
            if int(r["step"]) in (0, 1, 10, 50, 100, 200, 300) or r is mine[-1]:
                print("  step %4d  loss gap %-14s param max-abs gap %-14s params differing %d of %d"
                      % (int(r["step"]), r["loss_gap"] or "-", r["param_maxabs_gap"],
                         r["params_differing"], r["params"]))
    print("wrote %s and %s" % (a.csv, a.svg))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""make mpi-scaling's table and plot, from ci/mpi-scaling.sh's CSV.

    mpi_scaling_plot.py SCALING.csv OUT.svg OUT.md CORES LOAD_BEFORE LOAD_AFTER

The SVG (written by hand: no plotting library is needed) has one panel per
profile: steps/s of isotrain-mpi against the number of ranks, the reference
on 1 and 2 threads as horizontal lines, and the ideal line (ranks x the
1-rank speed, as far as there are cores). The Markdown table has every row
of the CSV with the speed-up over the reference on 1 thread. Two series per
panel: the wall time measured (on a shared machine: a fair share of the
cores whatever runs) and the idle-machine estimate from CPU time
(ci/mpi-scaling.sh says how)."""
import csv
import sys


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def num(v):
    return "%.3g" % v if v < 1000 else "{:,.0f}".format(v)


def panel(x0, y0, w, h, title, rows, cores):
    def series(key, prefix):
        return sorted((int(r["ranks"]), float(r[key])) for r in rows if r["config"].startswith(prefix))

    mpi = series("steps_per_s", "mpi-")
    est = series("est_idle_steps_per_s", "mpi-")
    ref = {r["config"]: (float(r["steps_per_s"]), float(r["est_idle_steps_per_s"]))
           for r in rows if r["config"].startswith("reference")}
    if not mpi:
        return []
    xmax = max(n for n, _ in mpi)
    ideal = [(n, est[0][1] * min(n, cores)) for n, _ in est]
    ymax = max([v for _, v in mpi + est + ideal] + [max(v) for v in ref.values()]) * 1.18

    def X(n):
        return x0 + (n - 1) / max(1, xmax - 1) * w

    def Y(v):
        return y0 + h - v / ymax * h

    out = ['<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>' % (x0, y0 - 12, esc(title))]
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (x0, y0, w, h))
    for k in range(6):  # y grid
        v = ymax * k / 5
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (x0, Y(v), x0 + w, Y(v)))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>' % (x0 - 6, Y(v) + 4, num(v)))
    for n, _ in mpi:
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>' % (X(n), y0 + h + 16, n))
    out.append('<text x="%d" y="%d" font-size="12" text-anchor="middle">MPI ranks (mpirun -np N)</text>'
               % (x0 + w / 2, y0 + h + 34))
    out.append('<text x="%d" y="%d" font-size="12" transform="rotate(-90 %d %d)" text-anchor="middle">'
               'steps/s</text>' % (x0 - 48, y0 + h / 2, x0 - 48, y0 + h / 2))
    pts = " ".join("%.1f,%.1f" % (X(n), Y(v)) for n, v in ideal)
    out.append('<polyline points="%s" fill="none" stroke="#999" stroke-dasharray="5,4"/>' % pts)
    ref1 = ref.get("reference-1thread")
    if ref1:
        for v, color in ((ref1[0], "#1f77b4"), (ref1[1], "#2ca02c")):
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-dasharray="2,3"/>'
                       % (x0, Y(v), x0 + w, Y(v), color))
    for pts_, color in ((mpi, "#1f77b4"), (est, "#2ca02c")):
        out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"/>'
                   % (" ".join("%.1f,%.1f" % (X(n), Y(v)) for n, v in pts_), color))
        for n, v in pts_:
            out.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>' % (X(n), Y(v), color))
            out.append('<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="%s">%s</text>'
                       % (X(n), Y(v) - 9, color, num(v)))
    ly = y0 + h + 58
    legend = [("#2ca02c", "", "isotrain-mpi, idle-machine estimate from CPU time (slowest rank's compute; message latency not counted)"),
              ("#1f77b4", "", "isotrain-mpi, measured wall time"),
              ("#2ca02c", "2,3", "reference, 1 thread: estimate (its CPU time)"),
              ("#1f77b4", "2,3", "reference, 1 thread: measured"),
              ("#999", "5,4", "ideal: 1-rank estimate x ranks (up to %d cores)" % cores)]
    for color, dash, label in legend:
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                   % (x0 + 10, ly, x0 + 34, ly, color, ' stroke-dasharray="%s"' % dash if dash else ""))
        out.append('<text x="%d" y="%d" font-size="11">%s</text>' % (x0 + 40, ly + 4, esc(label)))
        ly += 16
    return out


def main():
    path, svg, md, cores, load0, load1 = sys.argv[1:7]
    cores = int(cores)
    rows = list(csv.DictReader(open(path)))
    profiles = []
    for r in rows:
        if r["profile"] not in profiles:
            profiles.append(r["profile"])
    W, ph, pw = 900, 260, 740
    H = 100 + len(profiles) * (ph + 190)
    body = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, H),
            '<rect width="100%" height="100%" fill="white"/>',
            '<text x="20" y="28" font-size="17" font-weight="bold">isotrain-mpi: training steps per second '
            'against MPI ranks</text>',
            '<text x="20" y="48" font-size="12">%d cores; load average %s before, %s after; best of '
            'several runs; every trace bit-identical to the reference\'s</text>' % (cores, esc(load0), esc(load1))]
    y = 90
    for p in profiles:
        pr = [r for r in rows if r["profile"] == p]
        steps = pr[0]["steps"]
        body += panel(110, y, pw, ph, "%s (%s steps, trace with a digest every step)" % (p, steps), pr, cores)
        y += ph + 190
    body.append("</svg>")
    open(svg, "w").write("\n".join(body) + "\n")

    lines = ["| profile | configuration | ranks x threads | steps | measured steps/s (wall) "
             "| idle estimate, steps/s | estimate vs reference, 1 thread | CPU s per step (all processes) "
             "| bytes between ranks per step | trace = reference |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in profiles:
        pr = [r for r in rows if r["profile"] == p]
        base = [float(r["est_idle_steps_per_s"]) for r in pr if r["config"] == "reference-1thread"][0]
        for r in pr:
            lines.append("| %s | %s | %s x %s | %s | %.3f | %.3f | %.2fx | %.3f | %s | %s |" % (
                p, r["config"], r["ranks"], r["threads"], r["steps"], float(r["steps_per_s"]),
                float(r["est_idle_steps_per_s"]), float(r["est_idle_steps_per_s"]) / base,
                float(r["cpu_s_per_step"]), r["bytes_per_step"], r["identical"]))
    lines.append("")
    lines.append("%d cores; load average %s before the runs and %s after. Measured: the best wall time of the runs, "
                 "isotrain-mpi's training run between MPI_Init and MPI_Finalize (no mpirun start-up). Idle "
                 "estimate: steps / max(slowest rank's CPU outside MPI waits, total of them / cores), from the run whose "
                 "slowest rank computed least; the "
                 "reference's CPU time (2 threads: CPU / 2, an upper bound)." % (cores, load0, load1))
    open(md, "w").write("\n".join(lines) + "\n")
    print("wrote %s and %s" % (svg, md))


if __name__ == "__main__":
    main()

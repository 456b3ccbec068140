#!/usr/bin/env python3
"""The timing model against measured GPU times: predicted vs measured TFLOP/s for every step.

    scripts/timing-validate.py GEMMSCOPE BENCH_JSON [BENCH_JSON ...] OUT_DIR

Runs `GEMMSCOPE sim ID --m M --n N --k K --traced-cta-only --json --machine CARD` (with the
run's build parameters and `--break` mistakes; CARD is the card the run was measured on, h100 or
h200, from the result's device name: a prediction is for the card it is compared with) for every result of the BENCH_JSON files (`gemmscope bench
--json` files measured on a GPU), and writes OUT_DIR/predictions.json and OUT_DIR/table.md:
  * per shape, the ladder (every step at its default parameters, no mistake): measured and
    predicted TFLOP/s, the error, what bounds the prediction, and the error split into the
    clock's (the predicted clock over the one bench counted, `sm_clock_counted_mhz`) and the
    cycles', and whether the runs were timed after a sustained load (`bench --sustain`), the
    state the model's clocks describe; the Spearman rank correlation, the median and largest |error|, and the consecutive
    steps whose order the model gets wrong;
  * the variants (other build parameters, mistakes): each next to the same step's default run
    at that shape, the measured and predicted ratio, and for each parameter the ranking.
Nothing measured feeds the model: it only reads the bench files to compare.
"""
import json
import os
import subprocess
import sys


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")


def shape_label(s):
    return f"{s['m']}^3" if s["m"] == s["n"] == s["k"] else f"{s['m']}x{s['n']}x{s['k']}"


def card_of(device_name):
    """The model's key for the card a bench result names ("NVIDIA H200" -> "h200"), or None."""
    for key in ("h100", "h200", "b200"):
        if key.upper() in (device_name or ""):
            return key
    return None


def clock_split(row):
    """A prediction's error as its clock's and its cycles': (predicted / counted clock, predicted / measured
    cycles - 1), the cycles being each time at its clock (the measured time at the clock bench counted in
    the SMs for the median timed launch, `sm_clock_counted_mhz`); None without a counted clock."""
    counted = row.get("counted_clock_mhz")
    predicted_clock = (row.get("prediction") or {}).get("clock_mhz")
    if not counted or not predicted_clock or not row["predicted"]:
        return None
    ratio = predicted_clock / counted
    return ratio, ratio * row["measured"] / row["predicted"] - 1.0


def ranking_lines(rows):
    """#29's "each choice ranked as measured": for a step at a shape run with one build parameter at
    several values, the others alike (a run's parameters over its defaults), each pair of values whose measured
    speeds are >= 5% apart, and whether the model orders it the same way (a model within 1% calls it a
    tie, which is no order)."""
    groups = {}
    for row in rows:
        if row["mistakes"]:
            continue
        # The run's parameters over its defaults (bench records every parameter it was given).
        params = {**{k: str(v) for k, v in (row.get("default_params") or {}).items()},
                  **{k: str(v) for k, v in row["params"].items()}}
        for name, value in params.items():
            others = tuple(sorted((k, v) for k, v in params.items() if k != name))
            groups.setdefault((row["kernel"], row["shape"], name, others), {}).setdefault(row["file"], {}) \
                .setdefault(value, row)
    lines = []
    for key, by_file in list(groups.items()):
        # The values measured in one file, the one that has the most (bench-variants: every value in
        # turn, one after another), over the same value measured in another (the ladder's pass of the
        # default): one pass's values are compared under the same conditions, where two passes of one
        # kernel differ by the runs' spread (step 13 at 8192^3 on an H100, 2026-12-07: 501.6 TFLOP/s
        # in the ladder's pass, 474.5 in the sweep's). A value that file lacks comes from another.
        files = sorted(by_file, key=lambda f: (-len(by_file[f]), f))
        merged = {}
        for f in reversed(files):
            merged.update(by_file[f])
        groups[key] = merged
    for (kernel, shape, name, _), by_value in groups.items():
        if len(by_value) < 3:
            continue
        vals = sorted(by_value, key=lambda v: (0, float(v), "") if v.replace(".", "", 1).isdigit() else (1, 0.0, v))
        order = lambda key: " > ".join(sorted(vals, key=lambda v: -by_value[v][key]))
        right, tie, wrong = [], [], []
        for i, a in enumerate(vals):
            for c in vals[i + 1:]:
                ra, rc = by_value[a], by_value[c]
                if abs(rc["measured"] / ra["measured"] - 1) < 0.05:
                    continue
                pair = f"{a} vs {c}"
                if ra["predicted"] <= 0 or abs(rc["predicted"] / ra["predicted"] - 1) < 0.01:
                    tie.append(pair)
                elif (rc["measured"] > ra["measured"]) == (rc["predicted"] > ra["predicted"]):
                    right.append(pair)
                else:
                    wrong.append(pair)
        lines += [f"## Ranking of {name} for {kernel} at {shape}", "",
                  f"measured: {order('measured')}; predicted: {order('predicted')} (TFLOP/s, {name} = "
                  + ", ".join(f"{v}: {by_value[v]['measured']:.1f} / {by_value[v]['predicted']:.1f}" for v in vals)
                  + ", measured / predicted).",
                  f"Pairs measured >= 5% apart: {len(right)} ordered as measured, {len(tie)} tied in the model "
                  f"(within 1%){': ' + ', '.join(tie) if tie else ''}, {len(wrong)} ordered wrong"
                  f"{': ' + ', '.join(wrong) if wrong else ''}.", ""]
    return lines


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    exe, out_dir = sys.argv[1], sys.argv[-1]
    results, device, date = [], None, None
    for path in sys.argv[2:-1]:
        ladder = json.load(open(path))
        results += [{**r, "file": path} for r in ladder["results"]]
        device = device or ladder.get("device")
        date = date or ladder.get("date")
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for r in results:
        if r.get("status") != "ok":
            continue
        s = r["shape"]
        cmd = [exe, "sim", r["kernel"], "--m", str(s["m"]), "--n", str(s["n"]), "--k", str(s["k"]),
               "--traced-cta-only", "--json"]
        card = card_of(r.get("device"))
        if card:
            cmd += ["--machine", card]
        for name, value in (r.get("params") or {}).items():
            cmd += ["--param", f"{name}={value}"]
        for m in r.get("mistakes") or []:
            cmd += ["--break", m]
        out = subprocess.run(cmd, capture_output=True, text=True)
        try:
            sim = json.loads(out.stdout)
        except json.JSONDecodeError:
            print(f"{r['kernel']} {shape_label(s)}: sim failed: {out.stderr.strip()[:200]}", file=sys.stderr)
            continue
        measured = r["tflops"]["median"]
        predicted = sim.get("predicted_tflops") or 0.0
        pred = sim.get("prediction") or {}
        rows.append({"kernel": r["kernel"], "shape": shape_label(s), "params": r.get("params") or {}, "file": r["file"],
                     "default_params": sim.get("default_params", None), "mistakes": r.get("mistakes") or [],
                     "measured": measured, "predicted": predicted,
                     "error": predicted / measured - 1.0 if measured else None, "bound": pred.get("bound"),
                     "predicted_on": sim.get("predicted_on"), "prediction": pred,
                     "counted_clock_mhz": r.get("sm_clock_counted_mhz"),
                     "sustained_ms": r.get("sustained_ms") or 0.0})
        print(f"{r['kernel']:<26} {shape_label(s):>14} {r.get('params') or ''} {r.get('mistakes') or ''} measured "
              f"{measured:7.1f}  predicted {predicted:7.1f}  {100 * rows[-1]['error']:+6.1f}%  bound: "
              f"{pred.get('bound')}", flush=True)
    json.dump({"device": device, "date": date, "rows": rows},
              open(os.path.join(out_dir, "predictions.json"), "w"), indent=2)
    device = device.get("name") if isinstance(device, dict) else device
    cards = sorted({row["predicted_on"] for row in rows if row.get("predicted_on")})
    lines = [f"Measured on {device} ({date}); predicted by the model on {' and '.join(cards) or 'its default card'}.",
             ""]
    # The model's clocks are the card's under its power limit (2-s probes): a run timed after a
    # sustained load (`bench --sustain MS`) is what it predicts; a run without one is timed at the
    # higher clock a few milliseconds of work leave, and its clock split says so.
    sustained = sorted(row["sustained_ms"] for row in rows)
    if sustained and sustained[0] >= 1000.0:
        lines += [f"Every run timed after at least {sustained[0]:.0f} ms of sustained load (`bench --sustain`): "
                  "the state the model's clocks describe.", ""]
    else:
        short = sum(1 for v in sustained if v < 1000.0)
        lines += [f"{short} of {len(sustained)} runs timed with less than a second of load before them (no "
                  "`bench --sustain`): the card's clock was above the one its power limit leaves, which is the "
                  "model's; read the clock split below.", ""]
    # The ladder at a shape: the first run of each step with no mistake (its default parameters:
    # the bench runs every step at its defaults unless asked otherwise; variants come later).
    for shape in dict.fromkeys(row["shape"] for row in rows):
        seen, sized = set(), []
        for row in rows:
            if row["shape"] == shape and not row["mistakes"] and row["kernel"] not in seen:
                seen.add(row["kernel"])
                sized.append(row)
        if len(sized) < 2:
            continue
        errs = sorted(abs(row["error"]) for row in sized)
        rho = spearman([row["measured"] for row in sized], [row["predicted"] for row in sized])
        wrong = [f"{a['kernel']} -> {b['kernel']}" for a, b in zip(sized, sized[1:])
                 if abs(b["measured"] / a["measured"] - 1) >= 0.05
                 and (b["measured"] > a["measured"]) != (b["predicted"] > a["predicted"])]
        lines += [f"## {shape}", "", "| step | measured TFLOP/s | predicted | error | bound | clock MHz: predicted / "
                  "counted | cycles error |", "|---|---|---|---|---|---|---|"]
        split = []
        for row in sized:
            clock, cycles = "-", "-"
            if clock_split(row):
                ratio, cycle_error = clock_split(row)
                split.append((ratio, cycle_error))
                clock = f"{row['prediction']['clock_mhz']:.0f} / {row['counted_clock_mhz']:.0f} ({ratio:.2f})"
                cycles = f"{100 * cycle_error:+.1f}%"
            lines.append(f"| {row['kernel']} | {row['measured']:.1f} | {row['predicted']:.1f} | "
                         f"{100 * row['error']:+.1f}% | {row['bound']} | {clock} | {cycles} |")
        within = sum(1 for e in errs if e <= 0.15)
        within20 = sum(1 for e in errs if e <= 0.20)
        lines += ["", f"Spearman {rho:.3f}; median |error| {100 * errs[len(errs) // 2]:.1f}%; largest "
                  f"{100 * errs[-1]:.1f}%; {within} of {len(errs)} within ±15% ({within20} within ±20%); "
                  f"consecutive steps ordered wrong (measured ≥5% apart): {', '.join(wrong) if wrong else 'none'}.",
                  ""]
        if split:
            ratios = sorted(r for r, _ in split)
            cyc = sorted(abs(c) for _, c in split)
            lines += [f"The error split into the clock and the cycles (the steps with a counted clock, {len(split)}): "
                      f"predicted / counted clock median {ratios[len(ratios) // 2]:.3f} ({ratios[0]:.3f}-"
                      f"{ratios[-1]:.3f}); median |cycles error| {100 * cyc[len(cyc) // 2]:.1f}%.", ""]
    # Variants: a mistake or other parameters, against the same step's first run at that shape.
    base = {}
    for row in rows:
        if not row["mistakes"]:
            base.setdefault((row["kernel"], row["shape"]), row)
    variants = [row for row in rows if row["mistakes"] or base.get((row["kernel"], row["shape"])) is not row]
    if variants:
        lines += ["## Variants", "", "| step | shape | variant | measured | predicted | error | measured / base | "
                  "predicted / base |", "|---|---|---|---|---|---|---|---|"]
        for row in variants:
            b = base.get((row["kernel"], row["shape"]))
            what = ", ".join([f"{k}={v}" for k, v in row["params"].items()] + [f"--break {m}" for m in row["mistakes"]])
            mr = f"{row['measured'] / b['measured']:.3f}" if b else "-"
            pr = f"{row['predicted'] / b['predicted']:.3f}" if b and b["predicted"] else "-"
            lines.append(f"| {row['kernel']} | {row['shape']} | {what} | {row['measured']:.1f} | "
                         f"{row['predicted']:.1f} | {100 * row['error']:+.1f}% | {mr} | {pr} |")
        lines.append("")
        lines += ranking_lines(rows)
    open(os.path.join(out_dir, "table.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

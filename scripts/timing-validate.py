#!/usr/bin/env python3
"""The timing model against measured GPU times: predicted vs measured TFLOP/s for every step.

    scripts/timing-validate.py GEMMSCOPE LADDER_JSON OUT_DIR [SIZE ...]

Runs `GEMMSCOPE sim ID --m N --n N --k N --traced-cta-only --json` for every kernel and size of
LADDER_JSON (a `gemmscope bench --json` file measured on a GPU; default sizes: every square
size in it), and writes OUT_DIR/predictions.json and OUT_DIR/table.md: per step and size the
measured and predicted TFLOP/s, the error, what bounds the prediction; per size the Spearman
rank correlation, the median and largest |error|, and the consecutive steps whose order the
model gets wrong. Nothing measured feeds the model: it only reads the ladder file to compare.
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


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    exe, ladder_path, out_dir = sys.argv[1:4]
    wanted = {int(s) for s in sys.argv[4:]}
    ladder = json.load(open(ladder_path))
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for r in ladder["results"]:
        s = r["shape"]
        if not (s["m"] == s["n"] == s["k"]) or (wanted and s["m"] not in wanted) or r.get("status") != "ok":
            continue
        n = s["m"]
        cmd = [exe, "sim", r["kernel"], "--m", str(n), "--n", str(n), "--k", str(n), "--traced-cta-only", "--json"]
        for name, value in (r.get("params") or {}).items():
            cmd += ["--param", f"{name}={value}"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        try:
            sim = json.loads(out.stdout)
        except json.JSONDecodeError:
            print(f"{r['kernel']} {n}: sim failed: {out.stderr.strip()[:200]}", file=sys.stderr)
            continue
        measured = r["tflops"]["median"]
        predicted = sim.get("predicted_tflops") or 0.0
        pred = sim.get("prediction") or {}
        rows.append({"kernel": r["kernel"], "n": n, "measured": measured, "predicted": predicted,
                     "error": predicted / measured - 1.0 if measured else None, "bound": pred.get("bound"),
                     "prediction": pred})
        print(f"{r['kernel']:<26} {n:>5}  measured {measured:7.1f}  predicted {predicted:7.1f}  "
              f"{100 * rows[-1]['error']:+6.1f}%  bound: {pred.get('bound')}", flush=True)
    json.dump({"device": ladder.get("device"), "date": ladder.get("date"), "rows": rows},
              open(os.path.join(out_dir, "predictions.json"), "w"), indent=2)
    device = ladder.get("device")
    device = device.get("name") if isinstance(device, dict) else device
    lines = [f"Measured on {device} ({ladder.get('date')}); predicted by the model on an H100.", ""]
    for n in sorted({row["n"] for row in rows}):
        sized = [row for row in rows if row["n"] == n]
        errs = sorted(abs(row["error"]) for row in sized)
        rho = spearman([row["measured"] for row in sized], [row["predicted"] for row in sized])
        wrong = [f"{a['kernel']} -> {b['kernel']}" for a, b in zip(sized, sized[1:])
                 if abs(b["measured"] / a["measured"] - 1) >= 0.05
                 and (b["measured"] > a["measured"]) != (b["predicted"] > a["predicted"])]
        lines += [f"## {n}^3", "", "| step | measured TFLOP/s | predicted | error | bound |", "|---|---|---|---|---|"]
        for row in sized:
            lines.append(f"| {row['kernel']} | {row['measured']:.1f} | {row['predicted']:.1f} | "
                         f"{100 * row['error']:+.1f}% | {row['bound']} |")
        within = sum(1 for e in errs if e <= 0.15)
        lines += ["", f"Spearman {rho:.3f}; median |error| {100 * errs[len(errs) // 2]:.1f}%; largest "
                  f"{100 * errs[-1]:.1f}%; {within} of {len(errs)} within ±15%; consecutive steps ordered "
                  f"wrong (measured ≥5% apart): {', '.join(wrong) if wrong else 'none'}.", ""]
    open(os.path.join(out_dir, "table.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

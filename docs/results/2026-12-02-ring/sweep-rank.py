# A `gemmscope sweep --gpu --json` file: per size, the Spearman of the model's predicted TFLOP/s
# against the measured ones, and each point's predicted and measured TFLOP/s over its size's best.
#   python3 sweep-rank.py call1/sweep-hopper_producer_consumer.json ...
import json, sys
sys.path.insert(0, __import__("os").path.dirname(__file__))
from spearman import spearman  # noqa: E402  (the same rank correlation, ties averaged)

for path in sys.argv[1:]:
    j = json.load(open(path))
    sizes = sorted({p["shape"]["m"] for p in j["points"]})
    for size in sizes:
        pts = [p for p in j["points"] if p["shape"]["m"] == size and p.get("gpu_tflops")]
        pred = [p["predicted_tflops"] for p in pts]
        meas = [p["gpu_tflops"] for p in pts]
        bp, bm = max(pred), max(meas)
        cells = ", ".join(f"{' '.join(f'{k}={v}' for k, v in p['swept'].items())} {p['predicted_tflops'] / bp:.2f}/"
                          f"{p['gpu_tflops'] / bm:.2f}" for p in sorted(pts, key=lambda p: list(p["swept"].values())))
        print(f"{j['kernel']} {size}^3: Spearman {spearman(pred, meas):.2f}; of the best, predicted/measured: {cells}")

# Spearman of step 16's predicted TFLOP/s (a sweep's JSON) against the H200's measured ones
# (docs/results/2026-12-02-sweep/README.md, the table "Step 16 over its ring depth and tile order").
#   python3 spearman.py step16-sweep-model.json
import importlib.util, json, os, sys

MEASURED = {  # (stages, order): TFLOP/s at 4096^3, 8192^3 (H200, 2026-12-02)
    (2, 0): (588.9, 628.7), (2, 1): (587.0, 627.0), (2, 2): (589.6, 656.7),
    (3, 0): (740.6, 759.8), (3, 1): (751.6, 812.5), (3, 2): (732.0, 793.2),
    (4, 0): (751.9, 737.7), (4, 1): (761.2, 810.7), (4, 2): (740.3, 787.0),
}

def _validate():
    # scripts/timing-validate.py's rank correlation (ties averaged), not a copy of it.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "timing-validate.py")
    spec = importlib.util.spec_from_file_location("timing_validate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


spearman = _validate().spearman


def main():
    sweep = json.load(open(sys.argv[1]))
    for col, size in enumerate((4096, 8192)):
        pred, meas = [], []
        for p in sweep["points"]:
            if p["shape"]["m"] != size:
                continue
            key = (p["swept"]["stages"], p["swept"]["order"])
            pred.append(p["predicted_tflops"])
            meas.append(MEASURED[key][col])
        two = [p for p in sweep["points"] if p["shape"]["m"] == size and p["swept"]["stages"] == 2]
        three = [p for p in sweep["points"] if p["shape"]["m"] == size and p["swept"]["stages"] == 3]
        ratio_p = sum(p["predicted_tflops"] for p in two) / sum(p["predicted_tflops"] for p in three)
        ratio_m = sum(MEASURED[(2, o)][col] for o in range(3)) / sum(MEASURED[(3, o)][col] for o in range(3))
        print(f"{size}^3: Spearman {spearman(pred, meas):.2f} over {len(pred)} points; "
              f"2 stages / 3 stages: predicted {ratio_p:.3f}, measured {ratio_m:.3f}")


if __name__ == "__main__":
    main()

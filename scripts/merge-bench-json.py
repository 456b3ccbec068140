#!/usr/bin/env python3
"""Merges `gemmscope bench --json` files into one, the results in the ladder's order.

    scripts/merge-bench-json.py OUT.json "ID ID ..." IN.json [IN.json ...]

The device calls run each step (and size) in its own bench process, so that a cut at the time limit
keeps the steps before it; scripts/timing-validate.py reads one file whose results follow the
ladder (its consecutive pairs are the ladder's). The first file's header (device, date) is kept;
results are sorted by shape (M, N, K), then by the position of their kernel in the ID list (ids not
in it last, in their files' order).
"""
import json
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    out, order, paths = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
    merged = None
    for path in sorted(paths):
        d = json.load(open(path))
        if merged is None:
            merged = d
        else:
            merged["results"] += d["results"]
    if merged is None:
        print("no bench file to merge", file=sys.stderr)
        return 1

    def key(r):
        s = r.get("shape", {})
        at = order.index(r["kernel"]) if r.get("kernel") in order else len(order)
        return (s.get("m", 0), s.get("n", 0), s.get("k", 0), at)

    merged["results"].sort(key=key)
    json.dump(merged, open(out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

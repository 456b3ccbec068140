#!/usr/bin/env python3
"""Summarises what changed between two folders written by scripts/state-json-all.sh.

Every value of every view's `--state-json` is flattened to a path (list indices become []),
and each path that differs is listed once with how it changed (added, removed, changed) and
the runs it changed in, so a change to the views can be audited key by key:

  scripts/state-json-diff.py /tmp/before /tmp/after
  scripts/state-json-diff.py /tmp/before /tmp/after --show /views/schedule/written_twice
"""
import argparse
import json
import os
import re
import sys


def flatten(value, path=""):
    if isinstance(value, dict):
        for key, v in value.items():
            yield from flatten(v, f"{path}/{key}")
    elif isinstance(value, list):
        for i, v in enumerate(value[:200]):
            yield from flatten(v, f"{path}[{i}]")
    else:
        yield path, value


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--show", action="append", default=[], help="print each run's old and new value of this path")
    args = parser.parse_args()
    changes = {}
    shown = []
    names = sorted(f for f in os.listdir(args.before) if f.endswith(".json"))
    if not names:
        print(f"state-json-diff: no .json files in {args.before}", file=sys.stderr)
        return 2
    for name in names:
        other = os.path.join(args.after, name)
        if not os.path.exists(other):
            changes.setdefault(("missing", "(whole file)"), set()).add(name[:-5])
            continue
        try:
            with open(os.path.join(args.before, name)) as f:
                a = dict(flatten(json.load(f)))
            with open(other) as f:
                b = dict(flatten(json.load(f)))
        except (OSError, ValueError) as e:
            print(f"state-json-diff: {name}: {e}", file=sys.stderr)
            return 1
        for key in sorted(set(a) | set(b)):
            old, new = a.get(key, "<none>"), b.get(key, "<none>")
            if old == new:
                continue
            general = re.sub(r"\[\d+\]", "[]", key)
            how = "added" if key not in a else "removed" if key not in b else "changed"
            changes.setdefault((how, general), set()).add(name[:-5])
            if general in args.show:
                shown.append(f"{name[:-5]} {key}: {json.dumps(old)[:80]} -> {json.dumps(new)[:80]}")
    for (how, key), runs in sorted(changes.items(), key=lambda kv: kv[0][1]):
        listed = ", ".join(sorted(runs)) if len(runs) <= 4 else f"{len(runs)} runs"
        print(f"{how:8s} {key}  ({listed})")
    for line in shown:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

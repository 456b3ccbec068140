#!/usr/bin/env python3
"""Hostile-input fuzzing of the gemmscope command line (issue 15).

Runs every subcommand with hostile values for every flag -- empty, negative, huge, non-numeric,
and paths that lead to /dev/full, /dev/null, /dev/stdout, /proc, a symbolic link, a dangling
link, a directory, a FIFO nobody reads, a missing folder, a read-only file and folder, and
bench/settings JSON nested 100000 deep or holding absurd values -- each under a time limit,
and checks:

  * no signal (a crash, an abort, a sanitizer report) and an exit code in 0..3;
  * nothing outside the scratch folder changed: a sentinel tree is hashed before and after,
    /dev/full and /dev/null are still character devices, and every run's scratch entries
    (the link, the directory, the FIFO, the read-only file) are what they were. As root the
    runs get twins of /dev/full and /dev/null made in the scratch folder (mknod), so that even
    a broken build cannot replace the machine's own (nor /dev/stdout, given as a link to
    /proc/self/fd/1 in the scratch folder);
  * no temporary file left behind, and no error message ending in ": Success".

  scripts/fuzz-cli.py BUILD/gemmscope            # the long form: every value, then random mixes
  scripts/fuzz-cli.py BUILD/gemmscope --short    # under a minute: what the test suite runs

Commands that need a GPU exit 3 here without one: that counts as a clean exit. A run past the
time limit counts as a failure (a hang, or valid work too slow for the limit: --timeout). GUI runs use
xvfb-run's Xvfb when it is installed (one server for the whole run), else no display (the app
then exits 1 after checking its options, which still fuzzes them).
"""
import argparse
import hashlib
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

DIMS = ["", "0", "-1", "1", "65", "65536", "65537", "4294967296", "1e3", "abc", "0x10", "010", " 7", "+5",
        "99999999999999999999999"]
SEEDS = ["", "-1", "0", "18446744073709551615", "18446744073709551616", "x", "1.5"]
COUNTS = ["", "-1", "0", "1", "3", "100001", "x", "1e9", "2147483648"]
SECONDS = ["", "0", "-1", "nan", "inf", "0.001", "3601", "x", "1e-300"]
CTAS = ["", "0,0", "1,1", "1,1,1", "-1,0", "99999,0", "1", "a,b", "4294967296,0", "0,0,0,0", "1,"]
IDS = ["", "nope", "simt_naive", "hopper_tma_wgmma_64", "all", "a" * 5000]
MISTAKES = ["", "nope", "wrong-swizzle", "skip-mbarrier-wait", "wrong-expect-tx", ",", "wrong-swizzle,nope"]
SIZES = ["", "0", "4096", "64x64x64", "1x2", "example", "65537", "x", "-64", "64x64x64x64"]
WINDOW = ["", "1600x1000", "0x0", "100000x100000", "320x240", "-1x5", "x", "1600"]
CHOICES = {"--inputs": ["", "int", "random", "floats", "INT"], "--theme": ["", "dark", "light", "blue"],
           "--step-unit": ["", "event", "k-iteration", "nope"],
           "--view": ["", "all", "ptx", "nope", "ptx,warps", "ptx,,warps"],
           "NAME": ["", "all", "tma", "nope"]}
# Output paths, relative to the scratch folder (the runs' working directory).
OUT_PATHS = ["", "/dev/full", "/dev/null", "/dev/stdout", "/proc/x.json", "dir", "fifo", "link.out", "dangling.out",
             "missing/x.out", "readonly.out", "rodir/x.out", "new.out", "x" * 300, "dir/", "."]
IN_PATHS = ["", "/dev/null", "/dev/zero", "/proc/self/status", "dir", "fifo", "missing.json", "deep.json",
            "absurd.json", "huge.json", "empty.json", "good.json", "link.json"]


# As root, the runs write to twins of these in the scratch folder (plant_scratch).
DEVICE_TWINS = {"/dev/full": "full", "/dev/null": "null", "/dev/stdout": "stdout"}


def commands():
    """(base arguments, {option: values}) per subcommand: every flag with its hostile values."""
    shape = {"--m": DIMS, "--n": DIMS, "--k": DIMS}
    return [
        (["list"], {"--json": None}),
        (["ptx", "simt_naive"], dict(shape, **{"-o": OUT_PATHS})),
        (["ptx"], {"ID": IDS}),
        (["sim", "hopper_tma_wgmma_64"], dict(shape, **{
            "--break": MISTAKES, "--inputs": CHOICES["--inputs"], "--seed": SEEDS, "--cta": CTAS,
            "--trace": OUT_PATHS, "--json": None})),
        (["sim", "simt_naive", "--m", "1", "--n", "1"], {"--k": ["50000", "65536"], "--cta": CTAS}),
        (["sim"], {"ID": IDS}),
        (["devices"], {"--json": None}),
        (["bench"], {"ID": IDS, "--sizes": SIZES, "--reps": COUNTS, "--json": OUT_PATHS, "--warmup": COUNTS,
                     "--seed": SEEDS, "--inputs": CHOICES["--inputs"], "--kernel-timeout": SECONDS,
                     "--max-timing-seconds": SECONDS, "--compare-model": None, "--no-cublas": None}),
        (["probe"], {"NAME": CHOICES["NAME"], "--kernel-timeout": SECONDS}),
        # Headless (--frame-stats): without it the app opens a window and waits for its user.
        (["gui", "--frame-stats", "--no-settings", "--frames", "1", "--size", "640x480", "--view", "ladder"], dict(shape, **{
            "--screenshot": OUT_PATHS, "--state-json": OUT_PATHS, "--kernel": IDS, "--break": MISTAKES,
            "--size": WINDOW, "--steps": COUNTS, "--steps-per-frame": COUNTS, "--step-unit": CHOICES["--step-unit"],
            "--select-line": COUNTS, "--theme": CHOICES["--theme"], "--import": IN_PATHS, "--view": CHOICES["--view"],
            "--frames": COUNTS, "--whole-grid": None})),
        # Reading the (hostile) settings file: headless through --frame-stats, which keeps settings on.
        (["gui", "--frame-stats", "--frames", "1", "--size", "640x480", "--view", "ladder"], {"--import": IN_PATHS}),
        (["draw", "wgmma-acc"], {"-o": OUT_PATHS, "--n": DIMS, "--png": None, "--mode": ["", "128B", "nope"]}),
        (["draw", "mma-c", "--png", "-o", "new.png"], {"--scale": SECONDS + ["0.25", "8", "8.01", "1e308", "-0"]}),
        (["draw", "wgmma-acc", "--n", "256", "-o", "new.png"], {"--scale": ["1.87", "1.88", "0.25"], "--svg": None}),
        (["draw", "-o", "new.svg"], {"NAME": ["", "nope", "wgmma-acc", "swizzle", "banks", "ldmatrix", "a" * 5000]}),
        (["draw", "swizzle", "-o", "new.svg"], {"--mode": ["", "none", "32B", "64B", "128B", "128b", "256B"],
                                                "--rows": COUNTS}),
        (["draw", "ldmatrix", "-o", "new.svg"], {"--num": ["", "0", "1", "3", "4", "x"], "--trans": None}),
        (["draw", "banks", "-o", "new.svg"], {"--pattern": ["", "row", "nope", "column-swizzled"]}),
        (["draw", "tcgen05-32x32b", "-o", "new.svg"], {"--x": COUNTS}),
        (["gui", "--frame-stats", "--no-settings", "--frames", "1", "--size", "640x480", "--view", "ladder"],
         {"--save-picture": ["", "ladder=new.png", "window=new.png", "ptx=new.png", "nope=new.png", "ladder=", "=x",
                             "ladder"] + ["ladder=" + p for p in OUT_PATHS]}),
        ([], {"--version": None, "--help": None, "frobnicate": None}),
    ]


def runs_of(base, options):
    for opt, values in options.items():
        if values is None:
            yield base + [opt]
        elif opt in ("ID", "NAME"):
            for v in values:
                yield base + [v]
        else:
            for v in values:
                yield base + [opt, v]


def random_runs(rng, count):
    table = commands()
    for _ in range(count):
        base, options = rng.choice(table)
        args = list(base)
        for opt in rng.sample(sorted(options), min(len(options), rng.randint(1, 4))):
            values = options[opt]
            if values is None:
                args.append(opt)
            elif opt in ("ID", "NAME"):
                args.append(rng.choice(values))
            else:
                args += [opt, rng.choice(values)]
        yield args


def tree_hash(root):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + sorted(dirnames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            h.update(f"{os.path.relpath(path, root)} {stat.S_IFMT(st.st_mode)} {st.st_mode & 0o7777}\n".encode())
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
            elif stat.S_ISLNK(st.st_mode):
                h.update(os.readlink(path).encode())
    return h.hexdigest()


def deep_json(depth):
    return '{"results": ' + "[" * depth + "]" * depth + "}"


def plant_inputs(inputs):
    """Files the runs read, made once inside the sentinel tree (so a run that wrote to one is caught)."""
    os.makedirs(inputs)
    files = {
        "deep.json": deep_json(100000),
        "absurd.json": '{"results": [{"kernel": "simt_naive", "shape": {"m": 1e20, "n": -1, "k": 0}, '
                       '"tflops": {"median": 1e308}, "device": "x"}]}',
        "empty.json": "",
        "good.json": '{"kernel": "simt_naive", "shape": {"m": 64, "n": 64, "k": 64}, "tflops": {"median": 1.5}}',
        "huge.json": "[" + "0," * (9 << 20) + "0]",  # 18 MiB: past the readers' 16 MiB limit
        "settings.json": '{"last_shape": [4294967295, 1e30, -5], "views": ' + "[" * 50000 + "]" * 50000 + "}",
    }
    for name, text in files.items():
        with open(os.path.join(inputs, name), "w") as f:
            f.write(text)


def plant_scratch(scratch, inputs):
    """The scratch folder every run starts from (rebuilt before each run): the working directory."""
    for name in os.listdir(scratch):
        path = os.path.join(scratch, name)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o755)
            shutil.rmtree(path)
        else:
            os.unlink(path)
    os.mkdir(os.path.join(scratch, "dir"))
    os.mkfifo(os.path.join(scratch, "fifo"))
    with open(os.path.join(scratch, "target.out"), "w") as f:
        f.write("the file link.out names\n")
    os.symlink("target.out", os.path.join(scratch, "link.out"))
    os.symlink("not-there-yet.out", os.path.join(scratch, "dangling.out"))
    with open(os.path.join(scratch, "readonly.out"), "w") as f:
        f.write("read-only\n")
    os.chmod(os.path.join(scratch, "readonly.out"), 0o444)
    os.mkdir(os.path.join(scratch, "rodir"), 0o555)  # read-only for anyone but root
    for name in os.listdir(inputs):
        if name != "settings.json":
            os.symlink(os.path.join(inputs, name), os.path.join(scratch, name))
    os.symlink("good.json", os.path.join(scratch, "link.json"))
    if os.geteuid() == 0:
        # Twins of /dev/full, /dev/null and /dev/stdout that the runs get instead of the real
        # ones: a broken build, run as root, must not be able to replace the machine's own.
        os.mknod(os.path.join(scratch, "full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        os.mknod(os.path.join(scratch, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.symlink("/proc/self/fd/1", os.path.join(scratch, "stdout"))
    # A hostile settings file for the runs that read settings (through a link: it must stay one).
    config = os.path.join(scratch, "config", "gemmscope")
    os.makedirs(config)
    os.symlink(os.path.join(inputs, "settings.json"), os.path.join(config, "settings.json"))


def fingerprint(root):
    """Cheap per-run check of a tree: names, kinds, sizes, modification times."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(filenames) + sorted(dirnames):
            st = os.lstat(os.path.join(dirpath, name))
            out.append((os.path.join(dirpath, name), st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino))
    return sorted(out)


def scratch_state(scratch):
    """What must not change in a run: the kinds of the planted entries and the link targets."""
    state = {}
    names = ["dir", "rodir", "fifo", "link.out", "dangling.out", "readonly.out", "link.json",
             "config/gemmscope/settings.json"]
    for name in names + (["full", "null", "stdout"] if os.geteuid() == 0 else []):
        path = os.path.join(scratch, name)
        st = os.lstat(path)
        state[name] = (stat.S_IFMT(st.st_mode), os.readlink(path) if stat.S_ISLNK(st.st_mode) else None)
    return state


def leftovers(scratch):
    found = []
    for dirpath, _, filenames in os.walk(scratch):
        found += [os.path.join(dirpath, n) for n in filenames if ".gemmscope-" in n]
    return found


def device_ok(path, major, minor):
    st = os.stat(path)
    return stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == major and os.minor(st.st_rdev) == minor


def start_xvfb():
    if not shutil.which("Xvfb"):
        return None, None
    for display in range(90, 140):
        if os.path.exists(f"/tmp/.X11-unix/X{display}") or os.path.exists(f"/tmp/.X{display}-lock"):
            continue
        proc = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists(f"/tmp/.X11-unix/X{display}"):
                return proc, f":{display}"
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.kill()
        proc.wait()
    return None, None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--short", action="store_true", help="a subset that runs in under a minute")
    parser.add_argument("--random", type=int, default=300, help="random mixes after the systematic runs (long form)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    rng = random.Random(args.seed)

    top = tempfile.mkdtemp(prefix="gemmscope-fuzz-")
    scratch, sentinel = os.path.join(top, "scratch"), os.path.join(top, "sentinel")
    os.mkdir(scratch)
    os.makedirs(os.path.join(sentinel, "sub"))
    for name, text in (("a.txt", "sentinel a\n"), ("sub/b.json", "{}\n")):
        with open(os.path.join(sentinel, name), "w") as f:
            f.write(text)
    inputs = os.path.join(sentinel, "inputs")
    plant_inputs(inputs)
    before, before_print = tree_hash(sentinel), fingerprint(sentinel)

    runs = [r for base, options in commands() for r in runs_of(base, options)]
    if args.short:
        # Every flag once with its nastiest values; the GUI only where it reads or writes files.
        nasty = {"", "-1", "65537", "4294967296", "/dev/full", "/dev/stdout", "/proc/x.json", "dir", "fifo",
                 "link.out", "dangling.out", "readonly.out", "deep.json", "absurd.json", "1,1,1", "nan", "x"}
        runs = [r for r in runs if (len(r) < 2 or r[-1] in nasty or r[-1].startswith("--"))
                and (r[0] != "gui" or r[-2] in ("--screenshot", "--state-json", "--import") or r[-1] in ("", "x"))]
        runs = [r for r in runs if r[:2] != ["sim", "simt_naive"] or r[-1] == "50000"]
    else:
        runs += list(random_runs(rng, args.random))

    xvfb, display = start_xvfb() if any(r and r[0] == "gui" for r in runs) else (None, None)
    env = dict(os.environ, HOME=os.path.join(scratch, "home"), XDG_CONFIG_HOME=os.path.join(scratch, "config"),
               ASAN_OPTIONS="detect_leaks=0", LC_ALL="C")
    env.pop("WAYLAND_DISPLAY", None)
    if display:
        env["DISPLAY"] = display
    else:
        env.pop("DISPLAY", None)

    failures, codes, timed_out = [], {}, []
    started = time.time()
    try:
        for argv in runs:
            plant_scratch(scratch, inputs)
            state = scratch_state(scratch)
            cmd = [binary] + [DEVICE_TWINS.get(a, a) for a in argv] if os.geteuid() == 0 else [binary] + argv
            try:
                p = subprocess.run(cmd, cwd=scratch, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=args.timeout)
                rc, err = p.returncode, p.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired:
                # A hang (a FIFO waited on for ever, an endless loop), or valid work too slow
                # for the limit: either way a finding to look at.
                timed_out.append(argv)
                failures.append((argv, None, [f"timed out after {args.timeout:g} s"], ""))
                continue
            codes[rc] = codes.get(rc, 0) + 1
            problems = []
            if rc < 0:
                problems.append(f"killed by signal {signal.Signals(-rc).name}")
            elif rc > 3:
                problems.append(f"exit code {rc}")
            if any(s in err for s in ("AddressSanitizer", "runtime error:", "terminate called", "Aborted")):
                problems.append("a crash report on stderr")
            if ": Success" in err:
                problems.append("an error message ending in ': Success'")
            if rc == 2 and not err.strip():
                problems.append("exit 2 without a message")
            if not device_ok("/dev/full", 1, 7) or not device_ok("/dev/null", 1, 3) or not os.path.islink("/dev/stdout"):
                problems.append("/dev/full, /dev/null or /dev/stdout is no longer what it was")
            if scratch_state(scratch) != state:
                problems.append("a planted link, folder or FIFO was replaced")
            if leftovers(scratch):
                problems.append(f"temporary files left: {leftovers(scratch)}")
            if fingerprint(sentinel) != before_print:
                problems.append("the sentinel tree outside the scratch folder changed")
            if problems:
                failures.append((argv, rc, problems, err[-600:]))
        if tree_hash(sentinel) != before:
            failures.append((["(all runs)"], 0, ["the sentinel tree's contents changed"], ""))
    finally:
        if xvfb:
            xvfb.terminate()
            xvfb.wait()
        shutil.rmtree(top, ignore_errors=True)

    total = sum(codes.values()) + len(timed_out)
    print(f"fuzz-cli: {total} runs in {time.time() - started:.1f} s ({'short' if args.short else 'long'} form, "
          f"display {'Xvfb ' + display if display else 'none'}); exit codes "
          + ", ".join(f"{c}: {n}" for c, n in sorted(codes.items()))
          + f"; timed out after {args.timeout:g} s: {len(timed_out)}; failures: {len(failures)}")
    for argv, rc, problems, err in failures:
        print(f"FAIL rc={rc}: gemmscope {' '.join(repr(a) for a in argv)}\n  " + "; ".join(problems))
        print("  stderr: " + err.replace("\n", "\n          "))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

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
  * no temporary file left behind (nor a /tmp/gemmscope-ptxas-* folder: the runs get TMPDIR in
    the scratch folder), no error message ending in ": Success", naming no option (": : ") or
    saying nothing after its colon;
  * the planted files that are no run's target (a picture, junk, notes, the read-only file) keep
    their bytes; a --layout-file that is not a window layout is never written over;
  * the classes of issue 27: toolkit programs named through GEMMSCOPE_PTXAS / GEMMSCOPE_NVDISASM
    whose paths hold shell syntax (nothing runs but the program), that hang (stopped at
    GEMMSCOPE_TOOL_TIMEOUT, naming the tool), print junk or die of a signal (a failure, exit 1);
    hostile settings files (the app always starts: exit 0 with a display); an --import that
    fails or a flag given a value (a non-zero exit, with a message).

The long form also sweeps every kernel (from `gemmscope list --json`) over its example shape,
its tile, twice its tile, shapes off its tile and large ones, each parameter value and each
mistake, through ptx, sim --traced-cta-only, diff and sass.

  scripts/fuzz-cli.py BUILD/gemmscope            # the long form: every value, then random mixes
  scripts/fuzz-cli.py BUILD/gemmscope --short    # under a minute: what the test suite runs
  scripts/fuzz-cli.py BUILD/gemmscope --no-sweep # the long form without the kernel x shape sweep

Commands that need a GPU exit 3 here without one: that counts as a clean exit. A run past the
time limit counts as a failure (a hang, or valid work too slow for the limit: --timeout). GUI runs use
xvfb-run's Xvfb when it is installed (one server for the whole run), else no display (the app
then exits 1 after checking its options, which still fuzzes them); a build without the GUI is fuzzed
the same way.
"""
import argparse
import hashlib
import json
import os
import random
import re
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
GOOD_IMPORTS = {"good.json", "link.json"}
# --layout-file: files that are not a layout (never written over), a layout, and the usual paths.
LAYOUT_PATHS = ["precious.png", "junk.bin", "notes.txt", "layout.ini", "new.ini", "readonly.out", "dir", "fifo",
                "missing/x.ini", "link.out", "/dev/null", "", "deep.json"]
PARAMS = ["", "stages=3", "stages=1", "stages=99", "stages=", "=3", "nope=1", "stages=3=4", "stages=-1", "x" * 5000]
# Planted files no run may change unless a run names one as its output (readonly.out: not even then).
PRECIOUS = {"precious.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)) * 4,
            "junk.bin": bytes((i * 37 + 11) % 256 for i in range(10000)),
            "notes.txt": b"my notes: not a window layout\n[Window][x]\n",
            "readonly.out": b"read-only\n"}
OUTPUT_FLAGS = {"-o", "--output", "--trace", "--screenshot", "--state-json", "--save-picture"}
# Stand-ins for the toolkit's programs (made in the scratch folder's tools/ by plant_scratch).
REAL_PTXAS = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
FAKE_TOOLS = {
    "hang": "sleep 60\n",
    "junk": "echo '/*0ff0*/ JUNK ;'; head -c 3000 /dev/urandom | tr -d '\\000'; echo\n",
    "segv": "kill -SEGV $$\n",
    "silent": "exit 1\n",
    "forker": "sleep 60 &\nexit 0\n",
    "real": (f"exec '{REAL_PTXAS}' \"$@\"\n" if REAL_PTXAS else "exit 1\n"),
}
# Folder names holding shell syntax: each holds a real-ptxas stand-in; none of them may run `touch`.
INJECTING_DIRS = ["a';touch INJECTED;'", 'a";touch INJECTED;"', "$(touch INJECTED)", "`touch INJECTED`",
                  "a b;touch INJECTED", "a'b"]
SETTINGS = ['{"font_scale": 1e-30}', '{"font_scale": -1}', '{"font_scale": 1e308}', '{"font_scale": "x"}',
            '{"font_scale": 0.49}', '{"font_scale": 4.01}',
            '{"last_kernel": "hopper_tma_wgmma_64", "last_shape": [100, 100, 100]}',
            '{"last_kernel": "simt_naive", "last_shape": [64, 64, 4294967295]}',
            '{"last_kernel": "simt_naive", "last_shape": [1, 2]}', '{"last_shape": "64x64x64"}',
            '{"last_kernel": "nope", "last_shape": [64, 64, 64]}', '{"last_kernel": ["x"]}',
            '{"play_speed": 0}', '{"play_speed": 1e-300}', '{"play_speed": -5}', '{"bench_reps": 4294967297}',
            '{"bench_reps": -1}', '{"bench_reps": 1.5}', '{"theme": 5}', '{"views": {"ptx": 1, "nope": true}}',
            '[]', '"x"', 'null', '{}', '{"views": []}', '{"font_scale": 2, "theme": "light"}']


# As root, the runs write to twins of these in the scratch folder (plant_scratch).
DEVICE_TWINS = {"/dev/full": "full", "/dev/null": "null", "/dev/stdout": "stdout"}


def commands():
    """(base arguments, {option: values}) per subcommand: every flag with its hostile values."""
    shape = {"--m": DIMS, "--n": DIMS, "--k": DIMS}
    return [
        (["list"], {"--json": None}),
        (["ptx", "simt_naive"], dict(shape, **{"-o": OUT_PATHS, "--annotate": None, "--break": MISTAKES})),
        (["ptx", "hopper_tma_wgmma_64"], {"--param": PARAMS, "--output": ["new.ptx", "precious.png", "readonly.out"]}),
        (["ptx"], {"ID": IDS}),
        (["diff"], {"ID": IDS}),
        (["diff", "hopper_tma_wgmma_64"], dict(shape, **{"B": IDS, "--mistake": MISTAKES, "--ptx": None,
                                                         "--source": None, "--context": COUNTS + ["-2", "-1"]})),
        (["diff", "simt_naive", "--ptx"], {"--source": None}),
        (["sass"], {"ID": IDS}),
        (["sass", "simt_naive"], dict(shape, **{"--break": MISTAKES, "--param": PARAMS})),
        (["sim", "hopper_tma_wgmma_64", "--traced-cta-only"], {"--param": PARAMS, "--m": ["4096", "8192"]}),
        (["sim", "hopper_tma_wgmma_64"], dict(shape, **{
            "--break": MISTAKES, "--inputs": CHOICES["--inputs"], "--seed": SEEDS, "--cta": CTAS,
            "--trace": OUT_PATHS, "--json": None})),
        (["sim", "simt_naive", "--m", "1", "--n", "1"], {"--k": ["50000", "65536"], "--cta": CTAS}),
        (["sim"], {"ID": IDS}),
        (["devices"], {"--json": None}),
        (["bench"], {"ID": IDS, "--sizes": SIZES, "--reps": COUNTS, "--json": OUT_PATHS, "--warmup": COUNTS,
                     "--seed": SEEDS, "--inputs": CHOICES["--inputs"], "--kernel-timeout": SECONDS,
                     "--max-timing-seconds": SECONDS, "--compare-model": None, "--no-cublas": None,
                     "--param": PARAMS, "--break": MISTAKES, "--in-process": None}),
        (["sweep", "simt_blocktile_1d", "--param", "tm=4,8", "--size", "256"], {
            "--param": PARAMS + ["bm=", "bm=64,,128", "bm=48", "BM=32,64", "tm=8"], "--sizes": SIZES,
            "--json": OUT_PATHS, "--csv": OUT_PATHS, "--machine": ["", "h300", "b200", "h200"], "--gpu": None,
            "--reps": COUNTS}),
        (["sweep"], {"ID": IDS}),
        (["probe"], {"NAME": CHOICES["NAME"], "--kernel-timeout": SECONDS, "--save": ["", "dir", "missing", "fifo"]}),
        # Headless (--frame-stats): without it the app opens a window and waits for its user.
        (["gui", "--frame-stats", "--no-settings", "--frames", "1", "--size", "640x480", "--view", "ladder"], dict(shape, **{
            "--screenshot": OUT_PATHS, "--state-json": OUT_PATHS, "--kernel": IDS, "--break": MISTAKES,
            "--size": WINDOW, "--steps": COUNTS, "--steps-per-frame": COUNTS, "--step-unit": CHOICES["--step-unit"],
            "--select-line": COUNTS, "--theme": CHOICES["--theme"], "--import": IN_PATHS, "--view": CHOICES["--view"],
            "--frames": COUNTS, "--whole-grid": None, "--param": PARAMS, "--resize-to": WINDOW,
            "--no-text-runs": None, "--no-damage": None, "--layout-file": LAYOUT_PATHS})),
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
        (["draw", "wgmma-acc", "-o", "new.svg"], {"--by-warp": None, "--output": ["precious.png", "notes.txt"]}),
        (["gui", "--frame-stats", "--no-settings", "--frames", "1", "--size", "640x480", "--view", "ladder"],
         {"--save-picture": ["", "ladder=new.png", "window=new.png", "ptx=new.png", "nope=new.png", "ladder=", "=x",
                             "ladder"] + ["ladder=" + p for p in OUT_PATHS]}),
        ([], {"--version": None, "--help": None, "frobnicate": None}),
    ]


def runs_of(base, options):
    for opt, values in options.items():
        if values is None:
            yield base + [opt]
        elif opt in ("ID", "NAME", "B"):
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
            elif opt in ("ID", "NAME", "B"):
                args.append(rng.choice(values))
            else:
                args += [opt, rng.choice(values)]
        yield args


class Run:
    """One invocation: its arguments, extra environment (@TOOLS@ stands for the folder of
    stand-in tools), a settings.json to plant instead of the hostile default, and what it must do."""

    def __init__(self, argv, env=None, settings=None, rc=None, err=None):
        self.argv, self.env, self.settings = argv, env or {}, settings
        self.rc, self.err = rc, err  # a set of allowed exit codes (None: any 0..3), a text stderr must hold


def class_runs(short):
    """The classes of issue 27: toolkit programs, settings files, flags given values."""
    runs = []
    limit = {"GEMMSCOPE_TOOL_TIMEOUT": "2"}
    ids = ["simt_naive"] if short else ["simt_naive", "hopper_tma_wgmma_64"]
    for kid in ids:
        # A folder name with shell syntax in the tool's path: nothing runs but the tool.
        for d in INJECTING_DIRS[:1] if short else INJECTING_DIRS:
            runs.append(Run(["sass", kid], {"GEMMSCOPE_PTXAS": f"@TOOLS@/{d}/ptxas"}, rc={0, 1}))
            runs.append(Run(["sass", kid], {"GEMMSCOPE_NVDISASM": f"@TOOLS@/{d}/nvdisasm"}, rc={1}))
        # Tools that hang, print junk, die or fail: a failure (exit 1) that names what happened.
        runs.append(Run(["sass", kid], dict(limit, GEMMSCOPE_PTXAS="@TOOLS@/hang"), rc={1},
                        err="ptxas did not finish in 2 s"))
        runs.append(Run(["sass", kid], dict(limit, GEMMSCOPE_NVDISASM="@TOOLS@/hang"), rc={1},
                        err="hang did not finish in 2 s"))
        for tool, says in (("junk", "not the cubin's code"), ("segv", "killed by SIGSEGV"),
                           ("silent", "printed nothing"), ("forker", "printed no instructions"))[:2 if short else 4]:
            runs.append(Run(["sass", kid], dict(limit, GEMMSCOPE_NVDISASM=f"@TOOLS@/{tool}"), rc={1},
                            err=says))
            if not short:
                runs.append(Run(["sass", kid], dict(limit, GEMMSCOPE_PTXAS=f"@TOOLS@/{tool}"), rc={1}))
    # The app's SASS view runs the same tools: a hanging one must not hang the app.
    runs.append(Run(["gui", "--frame-stats", "--no-settings", "--frames", "1", "--size", "800x600", "--view", "sass"],
                    dict(limit, GEMMSCOPE_PTXAS="@TOOLS@/hang")))
    # A settings file never stops the app (headless through --frame-stats, which reads settings).
    for text in SETTINGS[:1] + SETTINGS[6:7] if short else SETTINGS:
        runs.append(Run(["gui", "--frame-stats", "--frames", "1", "--size", "640x480", "--view", "ladder"],
                        settings=text, rc={0} if os.environ.get("DISPLAY") or shutil.which("Xvfb") else None))
    # A flag takes no value: --flag=VALUE is bad usage, not a silent yes or no.
    for argv in (["list", "--json=1"], ["list", "--json=0"], ["list", "--json="], ["sim", "simt_naive", "--json=true"],
                 ["ptx", "simt_naive", "--annotate=1"], ["gui", "--frame-stats=1", "--no-settings"],
                 ["bench", "--no-cublas=0"], ["--version=1"], ["sass", "simt_naive", "--help=no"]):
        runs.append(Run(argv, rc={2}, err="takes no value"))
    return runs


def sweep_runs(binary):
    """Every kernel of `gemmscope list --json` over shapes, parameters and mistakes."""
    listed = json.loads(subprocess.run([binary, "list", "--json"], capture_output=True, check=True).stdout)
    gui = ["gui", "--frame-stats", "--no-settings", "--frames", "1", "--size", "1280x800", "--view", "all"]
    runs = []
    for k in listed:
        kid, t = k["id"], k["tile"]
        shapes = [None, (t["m"], t["n"], t["k"]), (2 * t["m"], 2 * t["n"], 2 * t["k"]), (t["m"] + 1, t["n"], t["k"]),
                  (t["m"], t["n"], t["k"] + 1), (4096, 4096, 4096), (8192, 8192, 8192), (65536, t["n"], t["k"])]
        for shape in shapes:
            dims = [] if shape is None else ["--m", str(shape[0]), "--n", str(shape[1]), "--k", str(shape[2])]
            runs.append(Run(["ptx", kid] + dims))
            runs.append(Run(["sim", kid, "--traced-cta-only"] + dims))
        runs.append(Run(["sim", kid]))
        runs.append(Run(["sass", kid]))
        runs.append(Run(["diff", kid]))
        runs.append(Run(gui + ["--kernel", kid]))
        for m in k["mistakes"]:
            runs.append(Run(["ptx", kid, "--break", m["name"]]))
            runs.append(Run(["sim", kid, "--traced-cta-only", "--break", m["name"]]))
            runs.append(Run(["diff", kid, "--mistake", m["name"]]))
        for p in k["params"]:
            for v in p["choices"]:
                runs.append(Run(["ptx", kid, "--param", f"{p['name']}={v}"]))
                runs.append(Run(["sim", kid, "--traced-cta-only", "--param", f"{p['name']}={v}"]))
    return runs


def targets_of(argv):
    """The paths a run names as its outputs (what it may replace)."""
    out = set()
    for flag, value in zip(argv, argv[1:]):
        if flag in OUTPUT_FLAGS or (flag == "--json" and argv[:1] == ["bench"]):
            out.add(value.split("=", 1)[1] if flag == "--save-picture" and "=" in value else value)
    return out


def expected(argv):
    """What every run with these arguments must do, whatever else it holds: (exit codes, stderr text)."""
    for a in argv:
        if a.startswith("--") and "=" in a and a.split("=")[0] in ("--json", "--annotate", "--frame-stats",
                                                                   "--no-cublas", "--version", "--help"):
            if not (a.startswith("--json=") and argv[:1] == ["bench"]):
                return {2}, "takes no value"
    if argv[:1] == ["gui"] and "--import" in argv:
        values = [v for f, v in zip(argv, argv[1:]) if f == "--import"]
        if any(v not in GOOD_IMPORTS for v in values):
            return {1, 2, 3}, None
    return None, None


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


def plant_tools(tools):
    """Stand-ins for ptxas and nvdisasm: some misbehave, some sit in folders named with shell syntax."""
    def script(path, body):
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
    os.makedirs(tools)
    for name, body in FAKE_TOOLS.items():
        script(os.path.join(tools, name), body)
    for d in INJECTING_DIRS:
        os.makedirs(os.path.join(tools, d))
        script(os.path.join(tools, d, "ptxas"), FAKE_TOOLS["real"])
        script(os.path.join(tools, d, "nvdisasm"), "echo 'nvdisasm stand-in: nothing to list' >&2\nexit 1\n")


def plant_scratch(scratch, inputs, settings=None):
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
    os.mkdir(os.path.join(scratch, "tmp"))  # TMPDIR: the runs' temporary folders, which must go
    for name, data in PRECIOUS.items():
        if name != "readonly.out":
            with open(os.path.join(scratch, name), "wb") as f:
                f.write(data)
    with open(os.path.join(scratch, "layout.ini"), "w") as f:
        f.write("[Window][Ladder###ladder]\nPos=0,0\nSize=300,300\nCollapsed=0\n")
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
    if settings is None:
        os.symlink(os.path.join(inputs, "settings.json"), os.path.join(config, "settings.json"))
    else:
        with open(os.path.join(config, "settings.json"), "w") as f:
            f.write(settings)


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
             "config/gemmscope/settings.json", "tmp"]
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
    parser.add_argument("--no-sweep", action="store_true", help="the long form without the kernel x shape sweep")
    parser.add_argument("--cache-home", help="the XDG_CACHE_HOME of the runs, where the speed ladder's predictions are "
                        "kept (default: a fresh folder; the test suite passes its own, already made)")
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
    tools = os.path.join(sentinel, "tools")
    plant_tools(tools)
    before, before_print = tree_hash(sentinel), fingerprint(sentinel)

    runs = [r for base, options in commands() for r in runs_of(base, options)]
    if args.short:
        # Every flag once with its nastiest values; the GUI only where it reads or writes files.
        nasty = {"", "-1", "65537", "4294967296", "/dev/full", "/dev/stdout", "/proc/x.json", "dir", "fifo",
                 "link.out", "dangling.out", "readonly.out", "deep.json", "absurd.json", "1,1,1", "nan", "x",
                 "precious.png", "junk.bin", "stages=99", "8192"}
        runs = [r for r in runs if (len(r) < 2 or r[-1] in nasty or r[-1].startswith("--"))
                and (r[0] != "gui" or r[-2] in ("--screenshot", "--state-json", "--import") or r[-1] in ("", "x")
                     or r[-2:] in (["--layout-file", "precious.png"], ["--layout-file", "readonly.out"]))]
        runs = [r for r in runs if r[:2] != ["sim", "simt_naive"] or r[-1] == "50000"]
        runs = [r for r in runs if r[:1] != ["diff"] or r[-1] in ("", "nope", "x")]
    else:
        runs += list(random_runs(rng, args.random))
    runs = [Run(r) for r in runs] + class_runs(args.short)
    if not args.short and not args.no_sweep:
        runs += sweep_runs(binary)

    # A build without the GUI (-DGEMMSCOPE_GUI=OFF) parses `gui`'s options against no views and
    # then says it has none: its GUI runs are fuzzed as without a display (no exit code expected).
    try:
        probe = subprocess.run([binary, "gui", "--frame-stats"], stdin=subprocess.DEVNULL, capture_output=True,
                               env={k: v for k, v in os.environ.items() if k != "DISPLAY"}, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        # Without a display the app must say so and stop at once: a hang here is a finding too.
        print(f"fuzz-cli: `{binary} gui --frame-stats` without a display did not return in {args.timeout:g} s")
        shutil.rmtree(top, ignore_errors=True)
        return 1
    has_gui = b"this build has no GUI" not in probe.stderr
    xvfb, display = (start_xvfb() if has_gui and any(r.argv and r.argv[0] == "gui" for r in runs)
                     else (None, None))
    # The speed ladder's prediction cache lives beside the scratch folder (which is rebuilt before
    # every run): the first run that shows the ladder makes the 22 predictions, the others read
    # them, as a user's second start of the app does.
    env = dict(os.environ, HOME=os.path.join(scratch, "home"), XDG_CONFIG_HOME=os.path.join(scratch, "config"),
               XDG_CACHE_HOME=os.path.abspath(args.cache_home) if args.cache_home else os.path.join(top, "cache"),
               TMPDIR=os.path.join(scratch, "tmp"),
               ASAN_OPTIONS="detect_leaks=0", LC_ALL="C")
    for name in ("WAYLAND_DISPLAY", "GEMMSCOPE_PTXAS", "GEMMSCOPE_NVDISASM", "GEMMSCOPE_CUOBJDUMP",
                 "GEMMSCOPE_TOOL_TIMEOUT"):
        env.pop(name, None)
    if display:
        env["DISPLAY"] = display
    else:
        env.pop("DISPLAY", None)

    failures, codes, timed_out = [], {}, []
    started = time.time()
    try:
        if display:
            # The model's speed ladder made once, before the timed runs (22 predictions at 4096³:
            # several times the per-run limit under the sanitizers), into the shared cache.
            plant_scratch(scratch, inputs)
            warm = subprocess.run([binary, "gui", "--frame-stats", "--no-settings", "--frames", "1", "--size",
                                   "640x480", "--view", "ladder"], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=max(args.timeout, 600))
            if warm.returncode != 0:
                failures.append((["gui (making the speed ladder's cache)"], warm.returncode,
                                 [f"exit code {warm.returncode}"], warm.stderr.decode(errors="replace")[-600:]))
        for run in runs:
            argv = run.argv
            plant_scratch(scratch, inputs, run.settings)
            state = scratch_state(scratch)
            cmd = [binary] + [DEVICE_TWINS.get(a, a) for a in argv] if os.geteuid() == 0 else [binary] + argv
            run_env = dict(env, **{k: v.replace("@TOOLS@", tools) for k, v in run.env.items()})
            try:
                p = subprocess.run(cmd, cwd=scratch, env=run_env, stdin=subprocess.DEVNULL, capture_output=True,
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
            if rc == 1 and not err.strip() and not p.stdout.strip():
                problems.append("exit 1 without a word")
            if "gemmscope: : " in err or re.search(r"\(exit -?\d+\): *$", err, re.M):
                problems.append("a message naming no option, or saying nothing after its colon")
            want_rc, want_err = (run.rc, run.err) if run.rc is not None or run.err else expected(argv)
            if want_rc is not None and rc not in want_rc and (display or argv[:1] != ["gui"]):
                problems.append(f"exit code {rc}, expected {sorted(want_rc)}")
            if want_err and want_err not in err:
                problems.append(f"stderr does not say '{want_err}'")
            if any("INJECTED" in files for _, _, files in os.walk(scratch)):
                problems.append("a tool's path ran shell syntax (INJECTED was created)")
            if os.listdir(os.path.join(scratch, "tmp")):
                problems.append(f"temporary folders left in TMPDIR: {os.listdir(os.path.join(scratch, 'tmp'))}")
            targets = targets_of(argv)
            for name, data in PRECIOUS.items():
                path = os.path.join(scratch, name)
                if name in targets and name != "readonly.out":
                    continue
                try:
                    with open(path, "rb") as f:
                        same = f.read() == data
                except OSError:
                    same = False
                if not same:
                    problems.append(f"{name} was changed, and it is not the run's output")
            if not device_ok("/dev/full", 1, 7) or not device_ok("/dev/null", 1, 3) or not os.path.islink("/dev/stdout"):
                problems.append("/dev/full, /dev/null or /dev/stdout is no longer what it was")
            if scratch_state(scratch) != state:
                problems.append("a planted link, folder or FIFO was replaced")
            if leftovers(scratch):
                problems.append(f"temporary files left: {leftovers(scratch)}")
            if fingerprint(sentinel) != before_print:
                problems.append("the sentinel tree outside the scratch folder changed")
            if problems:
                failures.append((argv if not run.env and run.settings is None else
                                 argv + [f"[env {run.env}]" if run.env else f"[settings {run.settings}]"],
                                 rc, problems, err[-600:]))
        if tree_hash(sentinel) != before:
            failures.append((["(all runs)"], 0, ["the sentinel tree's contents changed"], ""))
    finally:
        if xvfb:
            xvfb.terminate()
            xvfb.wait()
        shutil.rmtree(top, ignore_errors=True)

    total = sum(codes.values()) + len(timed_out)
    print(f"fuzz-cli: {total} runs in {time.time() - started:.1f} s ({'short' if args.short else 'long'} form, "
          f"display {'Xvfb ' + display if display else 'none' if has_gui else 'none: a build without the GUI'}); exit codes "
          + ", ".join(f"{c}: {n}" for c, n in sorted(codes.items()))
          + f"; timed out after {args.timeout:g} s: {len(timed_out)}; failures: {len(failures)}")
    for argv, rc, problems, err in failures:
        print(f"FAIL rc={rc}: gemmscope {' '.join(repr(a) for a in argv)}\n  " + "; ".join(problems))
        print("  stderr: " + err.replace("\n", "\n          "))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

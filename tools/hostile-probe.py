#!/usr/bin/env python3
"""Outside probe of hostile inputs (issue 35): mutated registries, replays, game files (a
demo directory's mission files and archives), mod manifests, mod folders, mod packages,
bindings and settings (windowed `play` under Xvfb), each run through the `iron3d` binary from
outside, counting what a stranger's file must never cause: a signal, a hang (over 15 s),
peak memory over 512 MiB, or something left in the temp folder or the mods folder.

Not part of the suite (it takes minutes and uses the release binary); run it by hand:

    cargo build --release -p iron3d-launcher
    python3 tools/hostile-probe.py [--cases N] [--seed S] [--bin target/release/iron3d]

It prints one line per surface and a total; exit 1 when any count is not 0. Deterministic
for a seed (the mutations are; timings are not). Everything it writes lives in one
temporary folder, removed at the end.
"""

import argparse
import gzip
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

LIMIT_S = 15.0
MEMORY_LIMIT = 512 << 20
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


class Tally:
    """Counts per surface."""

    def __init__(self):
        self.rows = {}

    def add(self, surface, case, r):
        row = self.rows.setdefault(
            surface,
            dict(cases=0, refused=0, signals=0, hangs=0, memory=0, leftovers=0, slowest=0.0, peak=0, bad=[]),
        )
        row["cases"] += 1
        row["refused"] += r["code"] not in (0, None)
        row["slowest"] = max(row["slowest"], r["elapsed"])
        row["peak"] = max(row["peak"], r["peak"])
        for key, hit in (
            ("signals", r["signal"] is not None and not r["hung"]),
            ("hangs", r["hung"]),
            ("memory", r["peak"] >= MEMORY_LIMIT),
            ("leftovers", bool(r["leftovers"])),
        ):
            if hit:
                row[key] += 1
                if len(row["bad"]) < 5:
                    row["bad"].append(f"{key}: {case}: {r['leftovers'] or r['tail']}")

    def report(self):
        total = 0
        print(f"{'surface':<16}{'cases':>7}{'refused':>9}{'signals':>9}{'hangs':>7}{'>512MiB':>9}{'leftover':>10}{'slowest s':>11}{'peak MiB':>10}")
        for name, r in self.rows.items():
            print(
                f"{name:<16}{r['cases']:>7}{r['refused']:>9}{r['signals']:>9}{r['hangs']:>7}{r['memory']:>9}{r['leftovers']:>10}"
                f"{r['slowest']:>11.2f}{r['peak'] >> 20:>10}"
            )
            for b in r["bad"]:
                print(f"    {b[:300]}")
            total += r["signals"] + r["hangs"] + r["memory"] + r["leftovers"]
        print(f"problems: {total}")
        return total


class Prober:
    def __init__(self, binary, work):
        self.bin = binary
        self.work = work
        self.n = 0

    def run(self, args, cwd=ROOT, env=None, watch=()):
        """Runs iron3d ARGS with a fresh private temp folder; `watch` are folders that
        must hold no `.install-*` afterwards."""
        self.n += 1
        tmp = os.path.join(self.work, f"tmp-{self.n}")
        # One HOME for every run: only caches (the demo directory) live there.
        home = os.path.join(self.work, "home")
        os.makedirs(tmp)
        os.makedirs(home, exist_ok=True)
        e = dict(os.environ)
        for k in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "IRON3D_MODS_DIR"):
            e.pop(k, None)
        e.update(TMPDIR=tmp, HOME=home, RUST_LOG="warn", RUST_BACKTRACE="0")
        e.update(env or {})
        out_path = os.path.join(self.work, "out.txt")
        with open(out_path, "wb") as out:
            started = time.monotonic()
            p = subprocess.Popen([self.bin, *args], cwd=cwd, env=e, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
            hung = False
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid == p.pid:
                    break
                if time.monotonic() - started > LIMIT_S:
                    hung = True
                    p.kill()
                    pid, status, usage = os.wait4(p.pid, 0)
                    break
                time.sleep(0.005)
            p.returncode = 0  # reaped by hand
            elapsed = time.monotonic() - started
        with open(out_path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 400))
            tail = f.read().decode("utf-8", "replace").replace("\n", " | ")
        left = [f"tmp/{x}" for x in sorted(os.listdir(tmp))]
        for w in watch:
            if os.path.isdir(w):
                left += [f"{os.path.basename(w)}/{x}" for x in sorted(os.listdir(w)) if x.startswith(".install-")]
        shutil.rmtree(tmp, ignore_errors=True)
        return dict(
            code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            hung=hung,
            elapsed=elapsed,
            peak=usage.ru_maxrss * 1024,
            leftovers=left,
            tail=tail,
            out_bytes=size,
        )


def mutate_bytes(rng, data):
    """One random byte-level mutation."""
    data = bytearray(data)
    kind = rng.randrange(6)
    if not data:
        return bytes(rng.randbytes(rng.randrange(1, 64)))
    i = rng.randrange(len(data))
    if kind == 0:
        data[i] ^= 1 << rng.randrange(8)
    elif kind == 1:
        del data[i : i + rng.randrange(1, 64)]
    elif kind == 2:
        data[i:i] = rng.randbytes(rng.randrange(1, 64))
    elif kind == 3:
        return bytes(data[:i])
    elif kind == 4:
        j = rng.randrange(len(data))
        data[i:i] = data[j : j + rng.randrange(1, 256)]
    else:
        data[i] = rng.choice(b"\x00\xff\x1b\n\r\"'[]=#:;,.-0123456789")
    return bytes(data)


def mutate_lines(rng, text):
    """One random line-level mutation of a text file."""
    lines = text.split("\n")
    kind = rng.randrange(5)
    i = rng.randrange(len(lines))
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif kind == 2:
        return "\n".join(lines[:i]) + "\n"
    elif kind == 3:
        lines[i] = lines[i] + " " + rng.choice(["x" * 5000, "\x1b[31mred", "=", "[", "0" * 40, "-1", "1e999"])
    else:
        lines[i], lines[-1] = lines[-1], lines[i]
    return "\n".join(lines)


def special_files(work):
    """(name, path) of files no reader should block on or read without bound."""
    d = os.path.join(work, "special")
    os.makedirs(d, exist_ok=True)
    fifo = os.path.join(d, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    sparse = os.path.join(d, "sparse-100M")
    with open(sparse, "wb") as f:
        f.truncate(100 << 20)
    folder = os.path.join(d, "folder")
    os.makedirs(folder, exist_ok=True)
    loop = os.path.join(d, "loop")
    if not os.path.lexists(loop):
        os.symlink(loop, loop)
    return [("fifo", fifo), ("dev-zero", "/dev/zero"), ("sparse-100M", sparse), ("folder", folder), ("symlink-loop", loop)]


def truncated_plugins(work, binary):
    """A real plugin library cut at several lengths."""
    deps = os.path.dirname(binary)
    src = next(
        (os.path.join(x, "libiron3d_null.so") for x in (deps, os.path.join(deps, "deps")) if os.path.isfile(os.path.join(x, "libiron3d_null.so"))),
        None,
    )
    if src is None:
        return []
    data = open(src, "rb").read()
    out = []
    for n in (64, 512, 4096, 65536, len(data) // 2, len(data) - 1):
        p = os.path.join(work, f"libcut{n}.so")
        with open(p, "wb") as f:
            f.write(data[:n])
        out.append((f"plugin cut at {n}", p))
    return out


def probe_registries(pr, tally, rng, cases):
    base = open(os.path.join(ROOT, "config/plugins.ini")).read()
    reg = os.path.join(pr.work, "reg.ini")
    names = special_files(pr.work) + truncated_plugins(pr.work, pr.bin) + [("libm", "/lib/x86_64-linux-gnu/libm.so.6")]
    for name, path in names:
        for slot in ("ai", "render", "terrain"):
            text = "\n".join(f"{slot} {path} x" if l.startswith(slot + " ") else l for l in base.split("\n"))
            open(reg, "w").write(text)
            tally.add("registry", f"{slot} = {name}", pr.run(["run", "--headless", "--ticks", "3", "--registry", reg]))
    for _ in range(cases):
        data = mutate_bytes(rng, base.encode()) if rng.random() < 0.5 else mutate_lines(rng, base).encode()
        open(reg, "wb").write(data)
        tally.add("registry", "mutated", pr.run(["run", "--headless", "--ticks", "3", "--registry", reg]))


def probe_replays(pr, tally, rng, cases):
    log = os.path.join(pr.work, "rec.jsonl")
    r = pr.run(["run", "--headless", "--ticks", "60", "--seed", "3", "--record", log])
    if r["code"] != 0:
        print(f"recording failed: {r['tail']}")
        return
    base = open(log).read()
    lines = base.rstrip("\n").split("\n")
    mutated = os.path.join(pr.work, "mut.jsonl")
    shapes = [
        ("cut before end", "\n".join(lines[:-1]) + "\n"),
        ("no checkpoints", "\n".join(l for l in lines if '"checkpoint"' not in l) + "\n"),
        ("end ticks 0", "\n".join(lines[:-1] + [json.dumps({**json.loads(lines[-1]), "ticks": 0})]) + "\n"),
        ("end hash altered", "\n".join(lines[:-1] + [json.dumps({**json.loads(lines[-1]), "hash": "0" * 64})]) + "\n"),
        (
            "200k checkpoints after end",
            "\n".join(lines + [json.dumps({"kind": "checkpoint", "tick": 100 + i, "hash": "0" * 64}) for i in range(200_000)]) + "\n",
        ),
        ("unknown header key", "\n".join([json.dumps({**json.loads(lines[0]), "surprise": 1})] + lines[1:]) + "\n"),
        ("huge line", base + "x" * (3 << 20) + "\n"),
    ]
    for name, text in shapes:
        open(mutated, "w").write(text)
        tally.add("replay", name, pr.run(["run", "--headless", "--replay", mutated]))
    for _ in range(cases):
        data = mutate_bytes(rng, base.encode()) if rng.random() < 0.5 else mutate_lines(rng, base).encode()
        open(mutated, "wb").write(data)
        tally.add("replay", "mutated", pr.run(["run", "--headless", "--replay", mutated]))


def probe_game_files(pr, tally, rng, cases):
    """A demo directory: each case mutates one file the mission load reads (or makes it a
    special file), runs the mission headless, and restores it."""
    game = os.path.join(pr.work, "game")
    r = pr.run(["demo", "build", "--out", game])
    if r["code"] != 0:
        print(f"demo build failed: {r['tail']}")
        return
    read_set = [
        "BuildDat.lst", "MISSIONS/DEMO1/Land.map", "MISSIONS/DEMO1/Land.msh", "MISSIONS/DEMO1/data.tma",
        "Material.lib", "Textures.lib", "UNITS/Tank.dat", "UNITS/Truck.dat", "UNITS/Tower.dat",
        "buildings.rlb", "models.rlb", "objects.rlb", "system.rlb",
    ]
    args = ["run", "--headless", "--game-dir", game, "--mission", "DEMO1", "--ticks", "3"]
    specials = special_files(pr.work)
    for rel in read_set:
        path = os.path.join(game, rel)
        saved = path + ".saved"
        os.rename(path, saved)
        for name, target in specials:
            os.symlink(target, path)
            tally.add("game files", f"{rel} -> {name}", pr.run(args))
            os.remove(path)
        os.rename(saved, path)
    for _ in range(cases):
        rel = rng.choice(read_set)
        path = os.path.join(game, rel)
        original = open(path, "rb").read()
        data = original
        for _ in range(rng.randrange(1, 4)):
            data = mutate_bytes(rng, data)
        open(path, "wb").write(data)
        tally.add("game files", f"mutated {rel}", pr.run(args))
        open(path, "wb").write(original)


def mods_args(mods_dir, work):
    return ["--mods-dir", mods_dir, "--list", os.path.join(work, "modlist.toml")]


def fresh_mods(pr, name):
    d = os.path.join(pr.work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "mods/quick-tanks"), os.path.join(d, "quick-tanks"))
    shutil.copytree(os.path.join(ROOT, "mods/texture-pack"), os.path.join(d, "texture-pack"))
    return d


def mods_commands(pr, tally, surface, case, d):
    for cmd in (["list"], ["check"], ["explain", "Behavior.ini"], ["conflicts"]):
        tally.add(surface, f"{case}: mods {cmd[0]}", pr.run(["mods", *mods_args(d, pr.work), *cmd], watch=[d]))


def probe_manifests(pr, tally, rng, cases):
    base = open(os.path.join(ROOT, "mods/quick-tanks/mod.toml")).read()
    for name, path in special_files(pr.work):
        d = fresh_mods(pr, "mods-m")
        target = os.path.join(d, "quick-tanks", "mod.toml")
        os.remove(target)
        os.symlink(path, target)
        mods_commands(pr, tally, "manifest", f"mod.toml -> {name}", d)
    d = fresh_mods(pr, "mods-m")
    target = os.path.join(d, "quick-tanks", "mod.toml")
    for _ in range(cases):
        data = mutate_bytes(rng, base.encode()) if rng.random() < 0.5 else mutate_lines(rng, base).encode()
        open(target, "wb").write(data)
        tally.add("manifest", "mutated: mods list", pr.run(["mods", *mods_args(d, pr.work), "list"], watch=[d]))


def probe_overlays(pr, tally):
    for name, path in special_files(pr.work) + [("outside folder", "/etc")]:
        d = fresh_mods(pr, "mods-o")
        data = os.path.join(d, "quick-tanks", "data")
        os.symlink(path, os.path.join(data, "odd"))
        mods_commands(pr, tally, "overlay", f"overlay entry -> {name}", d)
    d = fresh_mods(pr, "mods-o")
    os.symlink("/etc", os.path.join(d, "linked-mod"))
    mods_commands(pr, tally, "overlay", "mod folder -> /etc", d)


def tar_bytes(members):
    """A gzip'd tar of (TarInfo, bytes or None) written by Python's tarfile (GNU format)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(buf.getvalue(), mtime=0)


def raw_header(name, size, typeflag):
    """One raw 512-byte ustar header (checksum filled in)."""
    h = bytearray(512)
    h[0 : len(name)] = name
    h[100:108] = b"0000644\0"
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = (b"%011o\0" % size) if size < 8**11 else b"\x80" + size.to_bytes(11, "big")
    h[136:148] = b"00000000000\0"
    h[156:157] = typeflag
    h[257:263] = b"ustar "
    h[263:265] = b" \0"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def huge_extension(typeflag, size=1 << 30):
    """A gzip stream of one extension header claiming `size` bytes, streamed as zeros."""
    z = gzip.GzipFile(fileobj=(buf := io.BytesIO()), mode="wb", mtime=0)
    z.write(raw_header(b"././@LongLink" if typeflag == b"L" else b"pax", size, typeflag))
    chunk = (b"a" if typeflag == b"L" else b"9") * (1 << 20)
    for _ in range(size >> 20):
        z.write(chunk)
    z.close()
    return buf.getvalue()


def probe_packages(pr, tally, rng, cases):
    d = fresh_mods(pr, "mods-p")
    pkg = os.path.join(pr.work, "quick-tanks.tar.gz")
    r = pr.run(["mods", *mods_args(d, pr.work), "pack", "quick-tanks", "--output", pkg])
    if r["code"] != 0:
        print(f"pack failed: {r['tail']}")
        return
    base = open(pkg, "rb").read()
    raw = gzip.decompress(base)
    target = os.path.join(pr.work, "probe.tar.gz")
    empty = os.path.join(pr.work, "mods-empty")

    def install(case, data):
        shutil.rmtree(empty, ignore_errors=True)
        os.makedirs(empty)
        open(target, "wb").write(data)
        tally.add("package", case, pr.run(["mods", *mods_args(empty, pr.work), "install", target], watch=[empty]))

    def info(name, size=0, kind=tarfile.REGTYPE, link=""):
        i = tarfile.TarInfo(name)
        i.size, i.type, i.linkname, i.mode = size, kind, link, 0o644
        return i

    install("GNU long name of 1 GiB", huge_extension(b"L"))
    install("PAX header of 1 GiB", huge_extension(b"x"))
    install("100k empty entries", tar_bytes([(info(f"m/f{i}"), b"") for i in range(100_000)]))
    install("escape codes in a name", tar_bytes([(info("m/\x1b[2J\x1b[31mevil"), b"")]))
    install("case duplicates", tar_bytes([(info("m/Behavior.ini", 1), b"a"), (info("m/behavior.ini", 1), b"b")]))
    install("symlink entry", tar_bytes([(info("m/link", kind=tarfile.SYMTYPE, link="/etc/passwd"), None)]))
    install("hard link entry", tar_bytes([(info("m/link", kind=tarfile.LNKTYPE, link="/etc/passwd"), None)]))
    install("device entry", tar_bytes([(info("m/dev", kind=tarfile.CHRTYPE), None)]))
    install("absolute path", tar_bytes([(info("/tmp/evil", 1), b"x")]))
    install("dot-dot path", tar_bytes([(info("m/../../evil", 1), b"x")]))
    install("gzip bomb (2 GiB of zeros)", gzip.compress(b"\0" * (64 << 20), mtime=0) * 32)
    for _ in range(cases):
        if rng.random() < 0.5:
            install("mutated tar", gzip.compress(mutate_bytes(rng, raw), mtime=0))
        else:
            install("mutated gzip", mutate_bytes(rng, base))


def probe_bindings(pr, tally, rng, cases):
    base = open(os.path.join(ROOT, "config/bindings.ini")).read()
    cfg = os.path.join(pr.work, "xdg")
    user = os.path.join(cfg, "iron3d", "bindings.ini")
    os.makedirs(os.path.dirname(user), exist_ok=True)

    def bindings(case):
        tally.add("bindings", case, pr.run(["bindings", "list"], env={"XDG_CONFIG_HOME": cfg}))

    for name, path in special_files(pr.work):
        if os.path.lexists(user):
            os.remove(user)
        os.symlink(path, user)
        bindings(f"user file -> {name}")
    os.remove(user)
    open(user, "w").write("[bindings]\nunit.select = " + "Key:" + "A" * (1 << 20) + "\n")
    bindings("oversized token")
    for _ in range(cases):
        data = mutate_bytes(rng, base.encode()) if rng.random() < 0.5 else mutate_lines(rng, base).encode()
        open(user, "wb").write(data)
        bindings("mutated")


SETTINGS = """[video] # the window
width = 320          # 320..=7680
height = 240         # 240..=4320
fullscreen = false
renderer = "soft"   # vulkan | soft | capture | LIBRARY[:FACTORY]

[audio]               # bus volumes, 0.0..=1.0
master = 1.0
effects = 1.0
ambient = 1.0
voice = 1.0
music = 0.8

[input]
mouse_sensitivity = 1.0   # 0.1..=5.0
invert_y = false
"""


def probe_settings(pr, tally, rng, cases):
    """The player's settings, read only by a windowed `play`: one Xvfb for all runs."""
    if not shutil.which("Xvfb"):
        print("settings: skipped (no Xvfb)", file=sys.stderr)
        return
    display = ":87"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "800x600x24", "-nolisten", "tcp"], stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        cfg = os.path.join(pr.work, "xdg-settings")
        user = os.path.join(cfg, "iron3d", "settings.toml")
        os.makedirs(os.path.dirname(user), exist_ok=True)
        env = {"XDG_CONFIG_HOME": cfg, "DISPLAY": display}

        def play(case):
            args = ["play", "--frames", "3", "--no-briefing", "--audio", "none"]
            tally.add("settings", case, pr.run(args, env=env))

        for name, path in special_files(pr.work):
            if os.path.lexists(user):
                os.remove(user)
            os.symlink(path, user)
            play(f"settings -> {name}")
        os.remove(user)
        for _ in range(cases):
            data = mutate_bytes(rng, SETTINGS.encode()) if rng.random() < 0.5 else mutate_lines(rng, SETTINGS).encode()
            open(user, "wb").write(data)
            play("mutated")
    finally:
        xvfb.terminate()
        xvfb.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100, help="random mutations per surface")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/iron3d"))
    ap.add_argument("--only", default="", help="comma-separated surfaces")
    a = ap.parse_args()
    if not os.path.isfile(a.bin):
        sys.exit(f"{a.bin} is missing: cargo build --release -p iron3d-launcher (or pass --bin)")
    rng = random.Random(a.seed)
    tally = Tally()
    work = tempfile.mkdtemp(prefix="iron3d-probe-")
    try:
        pr = Prober(os.path.abspath(a.bin), work)
        surfaces = dict(
            registry=lambda: probe_registries(pr, tally, rng, a.cases),
            replay=lambda: probe_replays(pr, tally, rng, a.cases),
            game_files=lambda: probe_game_files(pr, tally, rng, a.cases),
            manifest=lambda: probe_manifests(pr, tally, rng, a.cases),
            overlay=lambda: probe_overlays(pr, tally),
            package=lambda: probe_packages(pr, tally, rng, a.cases),
            bindings=lambda: probe_bindings(pr, tally, rng, a.cases),
            settings=lambda: probe_settings(pr, tally, rng, max(1, a.cases // 4)),
        )
        for name, f in surfaces.items():
            if not a.only or name in a.only.split(","):
                f()
                print(f"{name}: done", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if tally.report() else 0)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main()

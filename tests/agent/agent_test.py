#!/usr/bin/python3
"""Runs the real npuwb-agent binary (under qemu-user in the aarch64 build) and checks what it streams.
  agent_test.py CASE --agent BIN [--emulator "qemu-aarch64-static -L SYSROOT"] --source-dir DIR --work DIR
Each case is one ctest test; assertions compare against what the test itself set up (fake_board.py)."""
import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_board  # noqa: E402

ARGS = None


def agent_cmd(*args):
    return shlex.split(ARGS.emulator) + [ARGS.agent, *args]


def run_agent(*args, env=None, stdin=None, timeout=600, prefix=()):
    e = dict(os.environ)
    e.pop("NPUWB_SYSFS_ROOT", None)
    e.update(env or {})
    p = subprocess.run(list(prefix) + agent_cmd(*args), input=stdin, capture_output=True, text=True, env=e,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def json_lines(out):
    lines = [l for l in out.splitlines() if l.strip()]
    return [json.loads(l) for l in lines]  # every line must be one JSON value


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def fresh_dir(name):
    d = os.path.join(ARGS.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def model_path():
    return os.path.join(ARGS.source_dir, "resources", "samples", "tiny_mobilenet.onnx")


def write_job(path, **fields):
    job = {"model": model_path(), "backend": ARGS.backend, "runs": 3, "warmup": 1, "telemetryIntervalMs": 20}
    job.update(fields)
    with open(path, "w") as f:
        json.dump(job, f)
    return job


# ---------------------------------------------------------------------------------------------------------------
def case_version():
    rc, out, err = run_agent("version")
    check(rc == 0, f"exit {rc}: {err}")
    events = json_lines(out)
    check(len(events) == 1, f"expected one line, got {out!r}")
    v = events[0]
    check(v["agent"] == "npuwb-agent" and v["protocol"] == 4, v)
    check(v["version"].count(".") == 2, v)
    check(v["arch"] == ARGS.expect_arch, f"arch {v['arch']} != {ARGS.expect_arch}")
    print("version:", out.strip())


def case_probe():
    root = fake_board.make_rk3588(fresh_dir("probe-root"))
    rc, out, err = run_agent("probe", env={"NPUWB_SYSFS_ROOT": root})
    check(rc == 0, f"exit {rc}: {err}")
    events = json_lines(out)
    check(len(events) == 1, "probe prints one JSON line")
    p = events[0]
    check(p["arch"] == ARGS.expect_arch and p["kernel"], p["arch"])
    check(p["os"] == fake_board.OS_PRETTY_NAME, p["os"])
    check(p["board"] == fake_board.BOARD_MODEL, p["board"])
    cpu = p["cpu"]
    check(cpu["model"] == fake_board.CPU_MODEL, cpu["model"])
    check(cpu["online"] == 8 and [c["cpu"] for c in cpu["cores"]] == list(range(8)), cpu)
    for name, pol in fake_board.POLICIES.items():
        for c in pol["cpus"]:
            check(cpu["cores"][c]["maxFreqKHz"] == pol["max"], f"cpu{c} max {cpu['cores'][c]}")
            check(cpu["cores"][c]["curFreqKHz"] == pol["cur"], f"cpu{c} cur {cpu['cores'][c]}")
        got = next(x for x in cpu["policies"] if x["name"] == name)
        check(got["governor"] == pol["governor"] and got["cpus"] == pol["cpus"], got)
        check("performance" in got["availableGovernors"], got)
    check(p["memory"]["totalBytes"] == fake_board.MEM_TOTAL_KB * 1024, p["memory"])
    check(p["memory"]["availableBytes"] == fake_board.MEM_AVAILABLE_KB * 1024, p["memory"])
    npu = p["npu"]
    check(npu["driver"]["version"] == fake_board.NPU_DRIVER_VERSION, npu)
    check(npu["driver"]["text"] == fake_board.NPU_DRIVER_TEXT, npu)
    check(npu["driver"]["file"] == "/sys/kernel/debug/rknpu/version", npu)
    check(npu["load"] == fake_board.NPU_LOAD, npu)
    check(npu["freqHz"] == fake_board.DEVFREQ["fdab0000.npu"]["cur"], npu)
    check(npu["governor"] == fake_board.DEVFREQ["fdab0000.npu"]["governor"], npu)
    check(p["ddr"]["freqHz"] == fake_board.DEVFREQ["dmc"]["cur"], p["ddr"])
    devs = {d["name"]: d for d in p["devfreq"]}
    check(sorted(devs) == sorted(fake_board.DEVFREQ), devs.keys())
    for name, d in fake_board.DEVFREQ.items():
        check(devs[name]["kind"] == d["kind"] and devs[name]["availableFreqHz"] == d["freqs"], devs[name])
        check(devs[name]["maxFreqHz"] == d["freqs"][-1], devs[name])
    rt = p["librknnrt"]
    check(rt["present"] and rt["path"] == "/usr/lib/librknnrt.so", rt)
    check(rt["version"] == fake_board.RKNNRT_VERSION, rt)
    print(json.dumps(p, indent=1)[:1500])


def case_probe_absent():
    # An empty root: every board fact is absent, and the probe still succeeds.
    root = fresh_dir("empty-root")
    rc, out, err = run_agent("probe", env={"NPUWB_SYSFS_ROOT": root})
    check(rc == 0, f"exit {rc}: {err}")
    p = json_lines(out)[0]
    check(p["os"] is None and p["board"] is None and p["cpu"]["model"] is None, p)
    check(p["cpu"]["cores"] == [] and p["cpu"]["online"] is None, p["cpu"])
    check(p["memory"] == {"totalBytes": None, "availableBytes": None}, p["memory"])
    check(p["npu"]["driver"] is None and p["npu"]["load"] is None and p["npu"]["freqHz"] is None, p["npu"])
    check(p["ddr"] is None and p["devfreq"] == [], p)
    check(p["librknnrt"] == {"present": False, "path": None, "version": None}, p["librknnrt"])
    # RV1106-style procfs driver files, no debugfs; a garbage load file gives no numbers -> absent.
    fake_board.write(root, "/proc/rknpu/version", "RKNPU driver: v0.9.2\n")
    fake_board.write(root, "/proc/rknpu/load", "NPU load: \n")
    p = json_lines(run_agent("probe", env={"NPUWB_SYSFS_ROOT": root})[1])[0]
    check(p["npu"]["driver"]["version"] == "0.9.2" and p["npu"]["driver"]["file"] == "/proc/rknpu/version", p["npu"])
    check(p["npu"]["load"] is None, p["npu"])


def run_events(job_path, env=None):
    rc, out, err = run_agent("run", job_path, env=env)
    check(rc == 0, f"run exit {rc}: {out[-2000:]} {err[-2000:]}")
    return json_lines(out)


def case_run():
    work = fresh_dir("run")
    root = fake_board.make_rk3588(os.path.join(work, "root"))
    job = write_job(os.path.join(work, "job.json"), runs=4, warmup=2)
    events = run_events(os.path.join(work, "job.json"), env={"NPUWB_SYSFS_ROOT": root})
    kinds = [e["event"] for e in events]
    check(kinds[-1] == "report" and kinds.count("report") == 1, kinds)
    progress = [(e["phase"], e["done"], e["total"]) for e in events if e["event"] == "progress"]
    check(progress[:2] == [("load", 0, 1), ("load", 1, 1)], progress)
    runs = [p for p in progress if p[0] == "run"]
    check([p[1] for p in runs] == list(range(job["runs"] + 1)) and all(p[2] == job["runs"] for p in runs), runs)
    warm = [p for p in progress if p[0] == "warm-up"]
    check(warm and warm[-1][1] == warm[-1][2] >= job["warmup"], warm)
    check([p[1] for p in warm] == list(range(warm[-1][2] + 1)), warm)
    check(progress.index(runs[0]) > progress.index(warm[-1]), "warm-up before runs")
    tele = [e for e in events if e["event"] == "telemetry"]
    check(len(tele) >= 2, f"{len(tele)} telemetry samples")
    check(all(t["tMs"] >= 0 and t["rssBytes"] > 0 for t in tele), tele[0])
    check([t["tMs"] for t in tele] == sorted(t["tMs"] for t in tele), "telemetry in time order")
    t = tele[-1]
    check(t["npuLoad"] == fake_board.NPU_LOAD and t["npuFreqHz"] == fake_board.DEVFREQ["fdab0000.npu"]["cur"], t)
    check(t["ddrFreqHz"] == fake_board.DEVFREQ["dmc"]["cur"], t)
    want_cpu = [next(p["cur"] for p in fake_board.POLICIES.values() if c in p["cpus"]) for c in range(8)]
    check(t["cpuFreqKHz"] == want_cpu, t["cpuFreqKHz"])

    report = events[-1]["report"]
    path = os.path.join(work, "report.json")
    with open(path, "w") as f:
        json.dump(report, f)
    subprocess.run(["/usr/bin/python3", os.path.join(ARGS.source_dir, "tests", "cli", "validate_report.py"),
                    os.path.join(ARGS.source_dir, "resources", "schema", "report.schema.json"), path], check=True)
    check(report["run"]["runs"] == job["runs"] and len(report["run"]["samplesUs"]) == job["runs"], report["run"])
    env = report["environment"]
    check(env["arch"] == ARGS.expect_arch and env["kernel"] and env["host"] and env["device"] == env["host"], env)
    check(env["os"] == fake_board.OS_PRETTY_NAME and env["cpu"] == fake_board.CPU_MODEL and env["cores"] == 8, env)
    check(env["npuDriver"] == fake_board.NPU_DRIVER_VERSION, env)
    clocks = env["clocks"]
    check(clocks["cpuFreqKHz"] == want_cpu and clocks["npuFreqHz"] == fake_board.DEVFREQ["fdab0000.npu"]["cur"], clocks)
    check(clocks["governors"] == {**{k: v["governor"] for k, v in fake_board.POLICIES.items()},
                                  **{k: v["governor"] for k, v in fake_board.DEVFREQ.items()}}, clocks["governors"])
    b = report["run"]["breakdownUs"]
    check(b["inference"] == report["run"]["medianUs"] and b["preProcess"] > 0 and b["inputCopy"] > 0, b)
    check(b["outputCopy"] > 0 and b["postProcess"] is None, b)
    check(report["memory"]["peakRssBytes"] >= max(t["rssBytes"] for t in tele) * 0.5, report["memory"])
    check(report["model"]["path"] == model_path(), report["model"]["path"])
    # The same job read from stdin gives the same kind of stream.
    with open(os.path.join(work, "job.json")) as f:
        rc, out, err = run_agent("run", "-", stdin=f.read())
    check(rc == 0 and json_lines(out)[-1]["event"] == "report", f"stdin job: exit {rc} {err}")
    print(f"run: {len(events)} events, {len(tele)} telemetry, backend {env['backend']}, "
          f"median {report['run']['medianUs']:.0f} us, breakdown {b}")


def case_run_rknn():
    """A compiled model through the rknpu runtime plugin and the stand-in librknnrt.so (--rknnrt), on the fake
    RK3588 tree: the runtime's report, telemetry over exactly that call, the board's environment."""
    work = fresh_dir("run-rknn")
    root = fake_board.make_rk3588(os.path.join(work, "root"))
    rknn = os.path.join(work, "tiny_mobilenet.rknn")
    subprocess.run(["/usr/bin/python3", os.path.join(ARGS.source_dir, "tests", "rknpu", "standin", "make_standin_rknn.py"),
                    model_path(), "--target", "rk3588", "-o", rknn], check=True, capture_output=True)
    job = {"model": rknn, "runtime": "rknpu", "telemetryIntervalMs": 20,
           "modelRun": {"runs": 5, "warmup": 1, "coreMask": "0_1_2", "contexts": 1, "seed": 7}}
    with open(os.path.join(work, "job.json"), "w") as f:
        json.dump(job, f)
    env = {"NPUWB_SYSFS_ROOT": root, "NPUWB_RKNNRT_LIBRARY": ARGS.rknnrt,
           "NPUWB_CHIPS_DIR": os.path.join(ARGS.source_dir, "resources", "chips")}  # the stand-in reads its chip
    events = run_events(os.path.join(work, "job.json"), env=env)
    kinds = [e["event"] for e in events]
    check(kinds[-1] == "report" and kinds.count("report") == 1, kinds)
    progress = [(e["phase"], e["done"], e["total"]) for e in events if e["event"] == "progress"]
    check(progress == [("run", 0, 6), ("run", 6, 6)], progress)
    tele = [e for e in events if e["event"] == "telemetry"]
    check(len(tele) >= 2 and tele[-1]["npuLoad"] == fake_board.NPU_LOAD, tele[-1:])
    report = events[-1]["report"]
    path = os.path.join(work, "report.json")
    with open(path, "w") as f:
        json.dump(report, f)
    subprocess.run(["/usr/bin/python3", os.path.join(ARGS.source_dir, "tests", "cli", "validate_report.py"),
                    os.path.join(ARGS.source_dir, "resources", "schema", "report.schema.json"), path], check=True)
    check(report["environment"]["backend"] == "rknpu" and "stand-in" in report["model"]["producer"], report["model"])
    check(report["run"]["runs"] == 5 and report["run"]["medianUs"] > 0, report["run"])
    check(len(report["layers"]) > 20, len(report["layers"]))
    check(report["memory"]["weightBytes"] > 0, report["memory"])
    check([t["name"] for t in report["model"]["inputs"]] == ["image"], report["model"]["inputs"])
    env_r = report["environment"]
    check(env_r["arch"] == ARGS.expect_arch and env_r["npuDriver"] == fake_board.NPU_DRIVER_VERSION, env_r)
    # Multi-batch over contexts 2 and 3 with a core mask each (rknn_dup_context copies): the weights once, each
    # context's internal memory, every slice in the contexts trace.
    sweep = []
    for contexts, masks in ((2, ["0", "1"]), (3, ["0", "1", "2"])):
        job["modelRun"] = {"runs": 3, "warmup": 1, "contexts": contexts, "batch": 3, "contextCoreMasks": masks, "seed": 7}
        with open(os.path.join(work, f"job{contexts}.json"), "w") as f:
            json.dump(job, f)
        rt_report = run_events(os.path.join(work, f"job{contexts}.json"), env=env)[-1]["report"]
        rt = rt_report["runtime"]
        check([c["coreMask"] for c in rt["contexts"]] == masks, rt["contexts"])
        check(rt["batch"] == 3 and rt["weightBytes"] == report["memory"]["weightBytes"], rt)
        check(rt["totalBytes"] == rt["weightBytes"] + sum(c["internalBytes"] for c in rt["contexts"]), rt)
        trace = [t for t in rt_report["traces"] if t["name"] == "contexts"][0]
        check(len(trace["events"]) == 3 * 3, len(trace["events"]))
        sweep.append(f"contexts {contexts}: {rt['samplesPerSecond']:.0f} samples/s, weights {rt['weightBytes']} B once, "
                     f"total {rt['totalBytes']} B")
    print("run-rknn: " + "; ".join(sweep))
    # A matmul job (protocol 4): an int8 sweep through the plugin's rknn_matmul_* kernels, the chip found by name.
    mm_job = {"runtime": "rknpu", "telemetryIntervalMs": 20,
              "matmul": {"chip": "rk3588", "type": "int8", "M": [1, 4], "K": [64], "N": [32], "runs": 2, "warmup": 1,
                         "coreMask": "0"}}
    with open(os.path.join(work, "matmul.json"), "w") as f:
        json.dump(mm_job, f)
    mm_events = run_events(os.path.join(work, "matmul.json"), env=env)
    check(mm_events[-1]["event"] == "matmulBench", [e["event"] for e in mm_events])
    mm = mm_events[-1]["result"]
    check(mm["chip"] == "RK3588" and mm["coreMask"] == "0" and len(mm["points"]) == 2, mm)
    check(all(p["backend"] == "rknpu" and p["medianUs"] > 0 for p in mm["points"]), mm["points"])
    mm_progress = [(e["done"], e["total"]) for e in mm_events if e["event"] == "progress"]
    check(mm_progress == [(1, 2), (2, 2)], mm_progress)
    print(f"run-rknn: matmul job, {len(mm['points'])} points on rknpu, measured on {mm['measuredOn']}")
    # A runtime that is not there: InvalidInput/Unsupported naming it, exit 1.
    job["runtime"] = "nosuchruntime"
    with open(os.path.join(work, "bad.json"), "w") as f:
        json.dump(job, f)
    rc, out, err = run_agent("run", os.path.join(work, "bad.json"), env=env)
    check(rc == 1 and "nosuchruntime" in json_lines(out)[-1]["message"], f"exit {rc}: {out[-500:]}")
    print(f"run-rknn: {len(events)} events, {len(tele)} telemetry, {len(report['layers'])} layers, "
          f"median {report['run']['medianUs']:.0f} us, weights {report['memory']['weightBytes']} B")


def expect_error(args, kind, needle, env=None, stdin=None):
    rc, out, err = run_agent(*args, env=env, stdin=stdin)
    check(rc == 1, f"{args}: exit {rc}, want 1: {out} {err}")
    last = json_lines(out)[-1]
    check(last["event"] == "error" and last["kind"] == kind, last)
    check(needle in last["message"], f"'{needle}' not in {last['message']!r}")
    return last


def case_bad_job():
    work = fresh_dir("bad-job")
    missing = os.path.join(work, "no such model.onnx")
    write_job(os.path.join(work, "job.json"), model=missing)
    expect_error(["run", os.path.join(work, "job.json")], "InvalidInput", missing)
    expect_error(["run", os.path.join(work, "absent.json")], "Io", os.path.join(work, "absent.json"))
    expect_error(["run", "-"], "InvalidInput", "not valid JSON", stdin="{\"model\": ")
    expect_error(["run", "-"], "InvalidInput", "'runs'", stdin=json.dumps({"model": model_path(), "runs": 0}))
    expect_error(["run", "-"], "InvalidInput", "'speed'", stdin=json.dumps({"model": model_path(), "speed": 1}))
    expect_error(["run", "-"], "InvalidInput", "'nope'",
                 stdin=json.dumps({"model": model_path(), "inputShapes": {"nope": [1, 3, 8, 8]}}))
    garbage = os.path.join(work, "garbage.onnx")
    with open(garbage, "wb") as f:
        f.write(b"\x08\x07garbage" * 10)
    expect_error(["run", "-"], "InvalidInput", garbage, stdin=json.dumps({"model": garbage}))
    expect_error(["run", "-"], "Unsupported", "no-such-backend",
                 stdin=json.dumps({"model": model_path(), "backend": "no-such-backend"}))
    expect_error(["perf-mode", "sideways"], "InvalidInput", "sideways")


def case_time_limit():
    """A job's timeLimitSeconds stops its local work: a million runs end as Cancelled, naming the limit."""
    work = fresh_dir("time-limit")
    write_job(os.path.join(work, "job.json"), runs=1000000, warmup=0, timeLimitSeconds=2)
    start = time.monotonic()
    last = expect_error(["run", os.path.join(work, "job.json")], "Cancelled", "time limit of 2 s")
    took = time.monotonic() - start
    check(took < 60, f"stopped after {took:.1f} s")
    print(f"time limit 2 s: stopped after {took:.2f} s: {last['message']}")


def case_stop(sig):
    work = fresh_dir(f"stop-{sig}")
    write_job(os.path.join(work, "job.json"), runs=1000000, warmup=0, telemetryIntervalMs=50)
    p = subprocess.Popen(agent_cmd("run", os.path.join(work, "job.json")), stdout=subprocess.PIPE, text=True)
    seen_run = False
    for line in p.stdout:  # wait until timed runs are under way
        e = json.loads(line)
        if e["event"] == "progress" and e["phase"] == "run" and e["done"] >= 1:
            seen_run = True
            break
    check(seen_run, "no run progress before the stream ended")
    sent = time.monotonic()
    p.send_signal(sig)
    rest = p.stdout.read()
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError(f"agent still running 60 s after signal {sig}")
    took = time.monotonic() - sent
    check(rc != 0, f"exit {rc} after signal {sig}")
    events = json_lines(rest)
    check(not any(e["event"] == "report" for e in events), "a report after a stop")
    errors = [e for e in events if e["event"] == "error"]
    check(errors and errors[-1]["kind"] == "Cancelled", events[-3:])
    print(f"signal {sig}: exit {rc} after {took:.2f} s")


def case_stop_term():
    case_stop(signal.SIGTERM)


def case_stop_hup():
    case_stop(signal.SIGHUP)


def perf_env(root, home):
    return {"NPUWB_SYSFS_ROOT": root, "HOME": home, "XDG_CACHE_HOME": ""}


def case_perf_mode():
    work = fresh_dir("perf")
    root = fake_board.make_rk3588(os.path.join(work, "root"))
    home = os.path.join(work, "home")
    os.makedirs(home)
    before = fake_board.governor_files(root)
    state = os.path.join(home, ".cache", "npuwb", "perf-mode.json")
    rc, out, err = run_agent("perf-mode", "on", env=perf_env(root, home))
    check(rc == 0, f"on: exit {rc}: {out} {err}")
    result = json_lines(out)[-1]
    after = fake_board.governor_files(root)
    check(all(g == "performance" for g in after.values()), after)
    check({c["file"]: c["from"] for c in result["changed"]} == before, result["changed"])
    check(os.path.exists(state) and json.load(open(state))["governors"] == before, "state file keeps the originals")
    # A second "on" keeps the originals to restore, not "performance".
    check(run_agent("perf-mode", "on", env=perf_env(root, home))[0] == 0, "second on")
    check(json.load(open(state))["governors"] == before, "second on overwrote the saved governors")
    rc, out, err = run_agent("perf-mode", "off", env=perf_env(root, home))
    check(rc == 0, f"off: exit {rc}: {out} {err}")
    check(fake_board.governor_files(root) == before, fake_board.governor_files(root))
    check(not os.path.exists(state), "state file left after off")
    check(len(json_lines(out)[-1]["restored"]) == len(before), out)
    rc, out, err = run_agent("perf-mode", "off", env=perf_env(root, home))
    check(rc == 0 and "not on" in json_lines(out)[-1]["note"], f"off when not on: {out}")


def case_perf_mode_denied():
    work = fresh_dir("perf-denied")
    os.chmod(work, 0o755)
    root = fake_board.make_rk3588(os.path.join(work, "root"))
    home = os.path.join(work, "home")
    os.makedirs(home)
    before = fake_board.governor_files(root)
    denied = os.path.join(root, "sys/class/devfreq/fdab0000.npu/governor")
    prefix = ()
    if os.geteuid() == 0:
        # root may write anything: run the agent as nobody, who owns the home folder and the CPU governors only.
        setpriv = shutil.which("setpriv")
        check(setpriv, "setpriv (util-linux) is needed to drop root")
        prefix = (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")
        for dirpath, dirnames, filenames in os.walk(work):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o644)
        os.chown(home, 65534, 65534)
        for name in fake_board.POLICIES:
            os.chown(os.path.join(root, f"sys/devices/system/cpu/cpufreq/{name}/scaling_governor"), 65534, 65534)
    else:
        os.chmod(denied, 0o444)
    rc, out, err = run_agent("perf-mode", "on", env=perf_env(root, home), prefix=prefix)
    check(rc == 1, f"exit {rc}: {out} {err}")
    last = json_lines(out)[-1]
    check(last["event"] == "error" and last["kind"] == "PermissionDenied", last)
    devfreq_files = [os.path.join(root, f"sys/class/devfreq/{n}/governor") for n in fake_board.DEVFREQ]
    check(any(f in last["message"] for f in devfreq_files if prefix or f == denied), last["message"])
    check("root" in last["message"], last["message"])
    check(fake_board.governor_files(root) == before, "governors changed despite the refusal")
    check(not os.path.exists(os.path.join(home, ".cache", "npuwb", "perf-mode.json")), "state file left behind")
    # An unwritable home: refused naming the state file, nothing changed.
    if prefix:
        os.chown(home, 0, 0)
        for dirpath, dirnames, filenames in os.walk(root):
            for f in filenames:
                if f.endswith("governor"):
                    os.chown(os.path.join(dirpath, f), 65534, 65534)
        rc, out, err = run_agent("perf-mode", "on", env=perf_env(root, home), prefix=prefix)
        last = json_lines(out)[-1]
        check(rc == 1 and last["kind"] == "PermissionDenied" and "perf-mode.json" in last["message"], last)
        check(fake_board.governor_files(root) == before, "governors changed without a state file")
    print("refused:", last["message"])


def case_bundle():
    # The deployed layout: bin/npuwb-agent, lib/libnpuwb-engine.so*, lib/libnpuwb-backend-*.so (no plugins/ folder).
    build = os.path.dirname(os.path.dirname(os.path.abspath(ARGS.agent)))
    bundle = fresh_dir("bundle")
    os.makedirs(os.path.join(bundle, "bin"))
    os.makedirs(os.path.join(bundle, "lib"))
    shutil.copy2(ARGS.agent, os.path.join(bundle, "bin"))
    for f in os.listdir(os.path.join(build, "lib")):
        if f.startswith("libnpuwb-engine.so"):
            shutil.copy2(os.path.join(build, "lib", f), os.path.join(bundle, "lib", f), follow_symlinks=False)
    plugins = sorted(f for f in os.listdir(os.path.join(build, "lib", "plugins"))
                     if f.startswith("libnpuwb-backend-")) if os.path.isdir(os.path.join(build, "lib", "plugins")) else []
    for f in plugins:
        shutil.copy2(os.path.join(build, "lib", "plugins", f), os.path.join(bundle, "lib", f))
    ARGS.agent = os.path.join(bundle, "bin", "npuwb-agent")
    rc, out, err = run_agent("version", env={"LD_LIBRARY_PATH": ""})
    check(rc == 0, f"bundled agent: exit {rc} {err}")
    backend = next((p[len("libnpuwb-backend-"):-3] for p in plugins if "cpu-" in p), None)
    if backend is None:
        print("no CPU backend plugin built: checked the engine lookup only")
        return
    write_job(os.path.join(bundle, "job.json"), backend=backend, runs=2)
    events = run_events(os.path.join(bundle, "job.json"), env={"LD_LIBRARY_PATH": ""})
    report = events[-1]["report"]
    check(report["environment"]["backend"] == backend, report["environment"])
    print(f"bundle: ran with {backend} from {bundle}/lib")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--agent", required=True)
    parser.add_argument("--emulator", default="")
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--rknnrt", default="", help="the stand-in librknnrt.so (run-rknn)")
    parser.add_argument("--expect-arch", default=os.uname().machine)
    ARGS = parser.parse_args()
    os.makedirs(ARGS.work, exist_ok=True)
    globals()["case_" + ARGS.case.replace("-", "_")]()
    print(f"agent_{ARGS.case}: ok")


if __name__ == "__main__":
    main()

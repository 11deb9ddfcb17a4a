"""A fake RK3588 sysfs/procfs tree for npuwb-agent tests (NPUWB_SYSFS_ROOT), with file contents as a Radxa ROCK 5B
running Debian 12 with Rockchip's 5.10 BSP kernel shows them (RKNN SDK user guide V2.5.0, 5.2.1.1)."""
import os

OS_PRETTY_NAME = "Debian GNU/Linux 12 (bookworm)"
BOARD_MODEL = "Radxa ROCK 5B"
MEM_TOTAL_KB = 16337484
MEM_AVAILABLE_KB = 14876540
NPU_DRIVER_TEXT = "RKNPU driver: v0.9.6"
NPU_DRIVER_VERSION = "0.9.6"
NPU_LOAD_TEXT = "NPU load:  Core0: 37%, Core1:  0%, Core2:  5%,"
NPU_LOAD = [37, 0, 5]
RKNNRT_VERSION = "2.3.0 (c949ad889d@2024-11-07T11:35:33)"
# cpufreq policies of the RK3588: 4x Cortex-A55 (policy0), two pairs of Cortex-A76 (policy4, policy6).
POLICIES = {
    "policy0": {"cpus": [0, 1, 2, 3], "governor": "schedutil", "cur": 1800000, "min": 408000, "max": 1800000,
                "freqs": [408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000]},
    "policy4": {"cpus": [4, 5], "governor": "schedutil", "cur": 2400000, "min": 408000, "max": 2400000,
                "freqs": [408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000, 2016000, 2208000, 2400000]},
    "policy6": {"cpus": [6, 7], "governor": "ondemand", "cur": 408000, "min": 408000, "max": 2400000,
                "freqs": [408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000, 2016000, 2208000, 2400000]},
}
CPU_GOVERNORS = "conservative ondemand userspace powersave performance schedutil"
DEVFREQ = {
    "dmc": {"kind": "ddr", "governor": "dmc_ondemand", "cur": 2112000000,
            "freqs": [528000000, 1068000000, 1560000000, 2112000000],
            "governors": "dmc_ondemand userspace powersave performance simple_ondemand"},
    "fb000000.gpu": {"kind": "gpu", "governor": "simple_ondemand", "cur": 300000000,
                     "freqs": [300000000, 400000000, 600000000, 800000000, 1000000000],
                     "governors": "userspace powersave performance simple_ondemand"},
    "fdab0000.npu": {"kind": "npu", "governor": "rknpu_ondemand", "cur": 1000000000,
                     "freqs": [300000000, 400000000, 500000000, 600000000, 700000000, 800000000, 900000000, 1000000000],
                     "governors": "rknpu_ondemand userspace powersave performance simple_ondemand"},
}
CPU_PARTS = ["0xd05"] * 4 + ["0xd0b"] * 4
CPU_MODEL = "4x Cortex-A55 + 4x Cortex-A76"


def write(root, path, text, mode="w"):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, mode) as f:
        f.write(text)
    return full


def cpuinfo():
    blocks = []
    for i, part in enumerate(CPU_PARTS):
        variant = "0x2" if part == "0xd05" else "0x4"
        blocks.append(f"processor\t: {i}\nBogoMIPS\t: 48.00\n"
                      "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm "
                      "lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
                      f"CPU variant\t: {variant}\nCPU part\t: {part}\nCPU revision\t: 0\n")
    return "\n".join(blocks) + "\n"


def meminfo():
    return (f"MemTotal:       {MEM_TOTAL_KB} kB\nMemFree:        13998012 kB\n"
            f"MemAvailable:   {MEM_AVAILABLE_KB} kB\nBuffers:           60568 kB\nCached:           988304 kB\n")


def make_rk3588(root):
    """Writes the tree under root and returns root."""
    write(root, "/etc/os-release", f'PRETTY_NAME="{OS_PRETTY_NAME}"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
                                   'VERSION="12 (bookworm)"\nID=debian\n')
    write(root, "/proc/cpuinfo", cpuinfo())
    write(root, "/proc/meminfo", meminfo())
    write(root, "/proc/device-tree/model", BOARD_MODEL + "\0")
    write(root, "/sys/devices/system/cpu/online", "0-7\n")
    for name, p in POLICIES.items():
        d = f"/sys/devices/system/cpu/cpufreq/{name}/"
        cpus = " ".join(str(c) for c in p["cpus"])
        write(root, d + "related_cpus", cpus + "\n")
        write(root, d + "affected_cpus", cpus + "\n")
        write(root, d + "scaling_governor", p["governor"] + "\n")
        write(root, d + "scaling_cur_freq", f"{p['cur']}\n")
        write(root, d + "scaling_min_freq", f"{p['min']}\n")
        write(root, d + "scaling_max_freq", f"{p['max']}\n")
        write(root, d + "cpuinfo_min_freq", f"{p['min']}\n")
        write(root, d + "cpuinfo_max_freq", f"{p['max']}\n")
        write(root, d + "scaling_available_governors", CPU_GOVERNORS + " \n")
        write(root, d + "scaling_available_frequencies", " ".join(map(str, p["freqs"])) + " \n")
        for c in p["cpus"]:  # as in sysfs: cpuN/cpufreq is a link to its policy
            cpu_dir = os.path.join(root, f"sys/devices/system/cpu/cpu{c}")
            os.makedirs(cpu_dir, exist_ok=True)
            os.symlink(f"../cpufreq/{name}", os.path.join(cpu_dir, "cpufreq"))
    for name, d in DEVFREQ.items():
        base = f"/sys/class/devfreq/{name}/"
        write(root, base + "governor", d["governor"] + "\n")
        write(root, base + "cur_freq", f"{d['cur']}\n")
        write(root, base + "min_freq", f"{d['freqs'][0]}\n")
        write(root, base + "max_freq", f"{d['freqs'][-1]}\n")
        write(root, base + "available_frequencies", " ".join(map(str, d["freqs"])) + "\n")
        write(root, base + "available_governors", d["governors"] + "\n")
    write(root, "/sys/kernel/debug/rknpu/version", NPU_DRIVER_TEXT + "\n")
    write(root, "/sys/kernel/debug/rknpu/load", NPU_LOAD_TEXT + "\n")
    # librknnrt.so: an ELF header, then the version string across the agent's 1 MiB read-chunk border.
    marker = b"librknnrt version: " + RKNNRT_VERSION.encode() + b"\0"
    blob = b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4096
    at = (1 << 20) - 10
    blob = blob[:at] + marker + blob[at:at + 5000]
    write(root, "/usr/lib/librknnrt.so", blob, "wb")
    return root


def governor_files(root):
    """{board path: governor} of every governor file in the tree."""
    out = {}
    for name in POLICIES:
        p = f"/sys/devices/system/cpu/cpufreq/{name}/scaling_governor"
        out[p] = open(os.path.join(root, p.lstrip("/"))).read().strip()
    for name in DEVFREQ:
        p = f"/sys/class/devfreq/{name}/governor"
        out[p] = open(os.path.join(root, p.lstrip("/"))).read().strip()
    return out

#include "Probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include "AgentInfo.h"
#include "BoardState.h"
#include "RuntimeLibrary.h"

namespace npuwb::agent {

using nlohmann::json;

namespace {

template <class T> json orNull(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

// ARM "CPU part" numbers (implementer 0x41) of the cores found on NPU boards.
const std::map<std::string, std::string> kArmCores = {
    {"0xd03", "Cortex-A53"}, {"0xd04", "Cortex-A35"}, {"0xd05", "Cortex-A55"}, {"0xd07", "Cortex-A57"},
    {"0xd08", "Cortex-A72"}, {"0xd09", "Cortex-A73"}, {"0xd0a", "Cortex-A75"}, {"0xd0b", "Cortex-A76"},
    {"0xd0d", "Cortex-A77"}, {"0xd41", "Cortex-A78"}, {"0xd44", "Cortex-X1"},  {"0xd46", "Cortex-A510"},
    {"0xd47", "Cortex-A710"}, {"0xd48", "Cortex-X2"}, {"0xd4d", "Cortex-A715"}, {"0xc07", "Cortex-A7"},
    {"0xc09", "Cortex-A9"}};

std::string valueAfterColon(const std::string& line) {
    auto colon = line.find(':');
    if (colon == std::string::npos) return {};
    auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
}

json memoryJson(const BoardFiles& files) {
    std::optional<int64_t> total, available;
    if (auto text = files.readText("/proc/meminfo")) {
        std::istringstream ss(*text);
        for (std::string line; std::getline(ss, line);) {
            std::istringstream ls(line);
            std::string key;
            int64_t kb = 0;
            if (!(ls >> key >> kb)) continue;
            if (key == "MemTotal:") total = kb * 1024;
            if (key == "MemAvailable:") available = kb * 1024;
        }
    }
    return {{"totalBytes", orNull(total)}, {"availableBytes", orNull(available)}};
}

json cpuJson(const BoardFiles& files) {
    std::vector<int> online = onlineCpus(files);
    std::vector<CpuPolicy> policies = cpuPolicies(files);
    json cores = json::array();
    auto cur = cpuFrequenciesKHz(files, online, policies);
    for (size_t i = 0; i < online.size(); ++i) {
        const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(online[i]) + "/cpufreq/";
        auto maxKHz = files.readInt(dir + "cpuinfo_max_freq");
        for (const auto& p : policies)
            if (!maxKHz && std::find(p.cpus.begin(), p.cpus.end(), online[i]) != p.cpus.end()) maxKHz = p.maxKHz;
        cores.push_back({{"cpu", online[i]}, {"maxFreqKHz", orNull(maxKHz)}, {"curFreqKHz", orNull(cur[i])}});
    }
    json pol = json::array();
    for (const auto& p : policies)
        pol.push_back({{"name", p.name}, {"cpus", p.cpus}, {"governor", orNull(p.governor)},
                       {"curFreqKHz", orNull(p.curKHz)}, {"minFreqKHz", orNull(p.minKHz)},
                       {"maxFreqKHz", orNull(p.maxKHz)}, {"availableGovernors", p.availableGovernors}});
    std::string model = cpuModel(files);
    return {{"model", model.empty() ? json(nullptr) : json(model)},
            {"online", online.empty() ? json(nullptr) : json(online.size())},
            {"cores", cores},
            {"policies", pol}};
}

json devfreqJson(const std::vector<DevfreqDevice>& devices) {
    json out = json::array();
    for (const auto& d : devices)
        out.push_back({{"name", d.name}, {"kind", d.kind}, {"governor", orNull(d.governor)}, {"curFreqHz", orNull(d.curHz)},
                       {"minFreqHz", orNull(d.minHz)}, {"maxFreqHz", orNull(d.maxHz)},
                       {"availableFreqHz", d.availableHz}, {"availableGovernors", d.availableGovernors}});
    return out;
}

json npuJson(const BoardFiles& files, const std::vector<DevfreqDevice>& devices) {
    json j;
    auto driver = npuDriver(files);
    j["driver"] = driver ? json{{"version", driver->version.empty() ? json(nullptr) : json(driver->version)},
                                {"text", driver->text}, {"file", driver->file}}
                         : json(nullptr);
    j["load"] = orNull(npuLoad(files));
    j["loadFile"] = orNull(npuLoadFile(files));
    j["freqHz"] = nullptr;
    j["governor"] = nullptr;
    for (const auto& d : devices)
        if (d.kind == "npu") {
            j["freqHz"] = orNull(d.curHz);
            j["governor"] = orNull(d.governor);
            break;
        }
    return j;
}

}  // namespace

std::string machineArch() {
    struct utsname u {};
    return uname(&u) == 0 ? u.machine : "";
}

std::string kernelRelease() {
    struct utsname u {};
    return uname(&u) == 0 ? u.release : "";
}

std::string hostName() {
    char host[256] = {};
    return gethostname(host, sizeof host - 1) == 0 ? host : "";
}

std::string osPrettyName(const BoardFiles& files) {
    auto text = files.readText("/etc/os-release");
    if (!text) text = files.readText("/usr/lib/os-release");
    if (!text) return {};
    std::istringstream ss(*text);
    for (std::string line; std::getline(ss, line);) {
        if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
        std::string v = line.substr(12);
        if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
        return v;
    }
    return {};
}

std::string cpuModel(const BoardFiles& files) {
    auto text = files.readText("/proc/cpuinfo");
    if (!text) return {};
    std::istringstream ss(*text);
    std::vector<std::string> parts;  // one per processor, in order
    for (std::string line; std::getline(ss, line);) {
        if (line.rfind("model name", 0) == 0) return valueAfterColon(line);
        if (line.rfind("CPU part", 0) == 0) {
            std::string part = valueAfterColon(line);
            auto known = kArmCores.find(part);
            parts.push_back(known != kArmCores.end() ? known->second : "ARM part " + part);
        }
    }
    // Group runs of equal cores: big.LITTLE boards list the little cluster first.
    std::string out;
    for (size_t i = 0; i < parts.size();) {
        size_t j = i;
        while (j < parts.size() && parts[j] == parts[i]) ++j;
        out += (out.empty() ? "" : " + ") + std::to_string(j - i) + "x " + parts[i];
        i = j;
    }
    return out;
}

json probeBoard(const BoardFiles& files) {
    std::vector<DevfreqDevice> devices = devfreqDevices(files);
    std::string os = osPrettyName(files);
    json board = nullptr;
    for (const char* f : {"/proc/device-tree/model", "/sys/firmware/devicetree/base/model"})
        if (auto model = files.readText(f)) {
            board = *model;
            break;
        }
    auto rknnrt = findRknnRuntime(files);
    json ddr = nullptr;
    for (const auto& d : devices)
        if (d.kind == "ddr") {
            ddr = {{"freqHz", orNull(d.curHz)}, {"governor", orNull(d.governor)}};
            break;
        }
    return {{"agent", {{"name", kAgentName}, {"version", kAgentVersion}, {"protocol", kAgentProtocolVersion}}},
            {"hostname", hostName()},
            {"arch", machineArch()},
            {"kernel", kernelRelease()},
            {"os", os.empty() ? json(nullptr) : json(os)},
            {"board", board},
            {"sysfsRoot", files.root()},
            {"cpu", cpuJson(files)},
            {"memory", memoryJson(files)},
            {"npu", npuJson(files, devices)},
            {"ddr", ddr},
            {"devfreq", devfreqJson(devices)},
            {"librknnrt", rknnrt ? json{{"present", true}, {"path", rknnrt->path}, {"version", orNull(rknnrt->version)}}
                                 : json{{"present", false}, {"path", nullptr}, {"version", nullptr}}}};
}

}  // namespace npuwb::agent

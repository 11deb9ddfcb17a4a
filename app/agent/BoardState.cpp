#include "BoardState.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace npuwb::agent {

namespace {

const std::vector<std::string> kDriverVersionFiles = {"/sys/kernel/debug/rknpu/version", "/proc/rknpu/version"};
// RK3566/68/88/62/76 expose debugfs; RV1106/1103/1126B procfs (the SDK names both /proc/rknpu and /proc/debug/rknpu).
const std::vector<std::string> kLoadFiles = {"/sys/kernel/debug/rknpu/load", "/proc/rknpu/load",
                                             "/proc/debug/rknpu/load"};

std::string devfreqKind(const std::string& name) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.find("npu") != std::string::npos) return "npu";
    if (lower.find("dmc") != std::string::npos || lower.find("ddr") != std::string::npos) return "ddr";
    if (lower.find("gpu") != std::string::npos) return "gpu";
    return "other";
}

}  // namespace

std::vector<int> onlineCpus(const BoardFiles& files) {
    if (auto text = files.readText("/sys/devices/system/cpu/online")) return parseCpuList(*text);
    return {};
}

std::vector<CpuPolicy> cpuPolicies(const BoardFiles& files) {
    std::vector<CpuPolicy> out;
    for (const auto& name : files.list(kCpufreqDir)) {
        if (name.rfind("policy", 0) != 0) continue;
        const std::string dir = std::string(kCpufreqDir) + "/" + name + "/";
        CpuPolicy p;
        p.name = name;
        auto cpus = files.readText(dir + "related_cpus");
        if (!cpus) cpus = files.readText(dir + "affected_cpus");
        if (cpus) {
            // related_cpus is a space-separated list ("4 5"); turn it into the cpulist form.
            std::string list = *cpus;
            std::replace(list.begin(), list.end(), ' ', ',');
            p.cpus = parseCpuList(list);
        }
        p.governor = files.readText(dir + "scaling_governor");
        p.curKHz = files.readInt(dir + "scaling_cur_freq");
        p.minKHz = files.readInt(dir + "scaling_min_freq");
        p.maxKHz = files.readInt(dir + "cpuinfo_max_freq");
        if (!p.maxKHz) p.maxKHz = files.readInt(dir + "scaling_max_freq");
        p.availableGovernors = files.readWords(dir + "scaling_available_governors");
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<DevfreqDevice> devfreqDevices(const BoardFiles& files) {
    std::vector<DevfreqDevice> out;
    for (const auto& name : files.list(kDevfreqDir)) {
        const std::string dir = std::string(kDevfreqDir) + "/" + name + "/";
        DevfreqDevice d;
        d.name = name;
        d.kind = devfreqKind(name);
        d.governor = files.readText(dir + "governor");
        d.curHz = files.readInt(dir + "cur_freq");
        d.minHz = files.readInt(dir + "min_freq");
        d.maxHz = files.readInt(dir + "max_freq");
        for (const auto& w : files.readWords(dir + "available_frequencies")) {
            try {
                d.availableHz.push_back(std::stoll(w));
            } catch (...) {
            }
        }
        d.availableGovernors = files.readWords(dir + "available_governors");
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<std::optional<int64_t>> cpuFrequenciesKHz(const BoardFiles& files, const std::vector<int>& cpus,
                                                      const std::vector<CpuPolicy>& policies) {
    std::vector<std::optional<int64_t>> out;
    for (int cpu : cpus) {
        auto khz = files.readInt("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq");
        for (size_t i = 0; !khz && i < policies.size(); ++i)
            if (std::find(policies[i].cpus.begin(), policies[i].cpus.end(), cpu) != policies[i].cpus.end())
                khz = files.readInt(std::string(kCpufreqDir) + "/" + policies[i].name + "/scaling_cur_freq");
        out.push_back(khz);
    }
    return out;
}

std::optional<int64_t> devfreqCurrentHz(const BoardFiles& files, const std::string& kind) {
    for (const auto& name : files.list(kDevfreqDir))
        if (devfreqKind(name) == kind)
            if (auto hz = files.readInt(std::string(kDevfreqDir) + "/" + name + "/cur_freq")) return hz;
    return std::nullopt;
}

std::optional<NpuDriver> npuDriver(const BoardFiles& files) {
    for (const auto& path : kDriverVersionFiles) {
        auto text = files.readText(path);
        if (!text) continue;
        NpuDriver d{path, *text, ""};
        std::smatch m;
        if (std::regex_search(*text, m, std::regex(R"((\d+\.\d+(\.\d+)*))"))) d.version = m[1];
        return d;
    }
    return std::nullopt;
}

std::optional<std::string> npuLoadFile(const BoardFiles& files) { return files.firstExisting(kLoadFiles); }

std::optional<std::vector<int>> npuLoad(const BoardFiles& files) {
    for (const auto& path : kLoadFiles)
        if (auto text = files.readText(path)) {
            std::vector<int> load = parseNpuLoad(*text);
            if (!load.empty()) return load;
        }
    return std::nullopt;
}

std::vector<int> parseNpuLoad(const std::string& text) {
    std::vector<int> out;
    static const std::regex percent(R"((\d+)\s*%)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), percent); it != std::sregex_iterator(); ++it)
        out.push_back(std::stoi((*it)[1]));
    return out;
}

}  // namespace npuwb::agent

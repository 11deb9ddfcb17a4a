#include "npuwb/DeviceProfile.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "chips/ProfileFields.h"
#include "chips/ProfileFolders.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "util/JsonText.h"

namespace npuwb {

namespace fs = std::filesystem;

namespace {

const char* kDocument = "device profile";
const std::set<std::string> kKinds = {"npu", "gpu", "cpu"};
const std::set<std::string> kCostSources = {"roofline", "chip", "calibrated"};
/// A unit that cannot run an op class at all.
const char* kNoAffinity = "none";

/// Element i of the array `key`, as an object whose errors name "key[i].field" in file `label`.
ProfileFields element(const ProfileFields& parent, const std::string& key, size_t i, const std::string& label) {
    const nlohmann::json& j = parent.raw(key)[i];
    std::string path = parent.fieldPath(key) + "[" + std::to_string(i) + "]";
    if (!j.is_object()) parent.fail(key + "[" + std::to_string(i) + "]", "expected an object");
    return ProfileFields(j, label, path, kDocument);
}

Shape parseShape(const ProfileFields& f, const std::string& key) {
    const nlohmann::json& j = f.raw(key);
    if (!j.is_array()) f.fail(key, "expected an array of dimensions");
    Shape s;
    for (const auto& d : j) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) f.fail(key, "expected non-negative integer dimensions");
        s.push_back(d.get<int64_t>());
    }
    return s;
}

UnitExecutor parseExecutor(const ProfileFields& f) {
    UnitExecutor e;
    e.session.backend = f.string("backend");
    if (f.has("threads")) e.session.threads = static_cast<int>(f.positiveInteger("threads"));
    if (f.has("cpus")) {
        const nlohmann::json& cpus = f.raw("cpus");
        if (!cpus.is_array()) f.fail("cpus", "expected an array of CPU numbers");
        for (const auto& c : cpus) {
            if (!c.is_number_integer() || c.get<int64_t>() < 0 || c.get<int64_t>() > 4095)
                f.fail("cpus", "expected CPU numbers 0..4095");
            e.cpus.push_back(c.get<int>());
        }
    }
    return e;
}

DeviceUnit parseUnit(const ProfileFields& f, const DeviceProfile& device) {
    const std::string& label = device.sourcePath;
    DeviceUnit u;
    u.name = f.string("name");
    if (u.name.empty()) f.fail("name", "must not be empty");
    u.kind = f.string("kind");
    if (!kKinds.count(u.kind)) f.fail("kind", "expected npu, gpu or cpu, got '" + u.kind + "'");
    if (f.has("description")) u.description = f.string("description");
    u.costs = f.has("costs") ? f.string("costs") : "roofline";
    if (!kCostSources.count(u.costs)) f.fail("costs", "expected roofline, chip or calibrated, got '" + u.costs + "'");
    if (f.has("executor")) u.executor = parseExecutor(f.object("executor"));
    if (u.costs == "roofline") {
        u.gmacsPerSecond = f.positiveNumber("gmacsPerSecond");
        u.gbytesPerSecond = f.positiveNumber("gbytesPerSecond");
        if (f.has("opOverheadUs")) u.opOverheadUs = f.number("opOverheadUs");
        if (u.opOverheadUs < 0) f.fail("opOverheadUs", "must not be negative");
    }
    if (f.has("stageOverheadUs")) u.stageOverheadUs = f.number("stageOverheadUs");
    if (u.stageOverheadUs < 0) f.fail("stageOverheadUs", "must not be negative");
    if (u.costs == "chip") {
        if (u.kind != "npu") f.fail("costs", "'chip' costs describe an NPU; this unit is a " + u.kind);
        if (device.chip.empty()) f.fail("costs", "'chip' costs need the profile's top-level \"chip\" field");
        if (f.has("chipDtype")) u.chipDtype = f.string("chipDtype");
    }
    if (u.costs == "calibrated" && !u.executor) f.fail("costs", "'calibrated' costs need an \"executor\" to measure on");
    // Affinity: required for roofline units (it scales their rates); optional elsewhere (used in the reasons).
    if (u.costs == "roofline" || f.has("affinity")) {
        ProfileFields aff = f.object("affinity");
        for (const auto& cls : opClassNames()) {
            std::string level = aff.string(cls);
            if (level != kNoAffinity && !device.affinityFactors.count(level))
                aff.fail(cls, "unknown level '" + level + "' (levels: affinityFactors keys or \"none\")");
            u.affinity[cls] = level;
        }
        for (const auto& [key, value] : aff.json().items())
            if (!u.affinity.count(key)) aff.fail(key, "unknown op class");
    }
    if (f.has("measured")) {
        const nlohmann::json& list = f.raw("measured");
        if (!list.is_array()) f.fail("measured", "expected an array");
        for (size_t i = 0; i < list.size(); ++i) {
            ProfileFields m = element(f, "measured", i, label);
            MeasuredOpLatency row;
            row.opType = m.string("op");
            row.inputShape = parseShape(m, "inputShape");
            row.us = m.positiveNumber("us");
            u.measured.push_back(std::move(row));
        }
    }
    return u;
}

fs::path executableDir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

}  // namespace

const DeviceUnit* DeviceProfile::unit(const std::string& unitName) const {
    for (const auto& u : units)
        if (u.name == unitName) return &u;
    return nullptr;
}

bool DeviceProfile::executable() const {
    return !units.empty() && std::all_of(units.begin(), units.end(), [](const DeviceUnit& u) { return u.executor; });
}

DeviceProfile deviceProfileFromJson(const nlohmann::json& j, const std::string& label) {
    ProfileFields root(j, label, {}, kDocument);
    if (!j.is_object()) root.fail("", "the document must be a JSON object");
    if (root.has("schema") && root.string("schema") != "npuwb-device-profile")
        root.fail("schema", "expected \"npuwb-device-profile\"");
    DeviceProfile d;
    d.sourcePath = label;
    d.name = root.string("name");
    if (root.has("description")) d.description = root.string("description");
    if (root.has("chip")) d.chip = root.string("chip");
    ProfileFields factors = root.object("affinityFactors");
    for (const auto& [level, value] : factors.json().items()) d.affinityFactors[level] = factors.positiveNumber(level);
    if (!d.affinityFactors.count("excellent")) factors.fail("excellent", "missing (the reference level, usually 1)");
    if (root.has("opClasses")) {
        ProfileFields classes = root.object("opClasses");
        const auto& names = opClassNames();
        for (const auto& [op, value] : classes.json().items()) {
            std::string cls = classes.string(op);
            if (std::find(names.begin(), names.end(), cls) == names.end()) classes.fail(op, "unknown op class '" + cls + "'");
            d.opClasses[op] = cls;
        }
    }
    const nlohmann::json& units = root.raw("units");
    if (!units.is_array() || units.empty()) root.fail("units", "expected a non-empty array of units");
    for (size_t i = 0; i < units.size(); ++i) {
        ProfileFields uf = element(root, "units", i, label);
        DeviceUnit u = parseUnit(uf, d);
        if (d.unit(u.name)) uf.fail("name", "unit '" + u.name + "' is listed twice");
        d.units.push_back(std::move(u));
    }
    ProfileFields transfer = root.object("transfer");
    if (transfer.has("syncUs") && transfer.raw("syncUs").is_string()) {
        if (transfer.string("syncUs") != "calibrate") transfer.fail("syncUs", "expected a number or \"calibrate\"");
        if (!d.executable()) transfer.fail("syncUs", "\"calibrate\" needs an executor on every unit");
        d.transfer.calibrate = true;
    } else {
        d.transfer.syncUs = transfer.number("syncUs");
        if (d.transfer.syncUs < 0) transfer.fail("syncUs", "must not be negative");
    }
    d.transfer.gbytesPerSecond = transfer.number("gbytesPerSecond");
    if (d.transfer.gbytesPerSecond < 0) transfer.fail("gbytesPerSecond", "must not be negative (0: bytes are free)");
    if (root.has("notes")) d.notes = root.strings("notes");
    return d;
}

DeviceProfile loadDeviceProfile(const std::string& path) {
    std::string text;
    try {
        text = readFile(path);
    } catch (const Error& e) {
        fail(ErrorKind::Io, "device profile '" + path + "': cannot be read: " + e.what());
    }
    nlohmann::json j;
    try {
        j = parseJsonText(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers too large
        failInput("device profile '" + path + "': not valid JSON: " + e.what());
    }
    return deviceProfileFromJson(j, path);
}

std::vector<std::string> deviceProfileDirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("NPUWB_DEVICES_DIR"); env && *env) dirs.emplace_back(env);
    fs::path exeDir = executableDir();
    if (!exeDir.empty()) {
        dirs.push_back((exeDir.parent_path() / "share" / "npuwb" / "devices").string());  // installed layout
        for (fs::path p = exeDir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
            std::error_code ec;
            if (fs::is_directory(p / "resources" / "devices", ec)) {
                dirs.push_back((p / "resources" / "devices").string());
                break;
            }
        }
    }
    return dirs;
}

std::vector<std::string> availableDeviceProfiles() { return profileNamesIn(deviceProfileDirs()); }

DeviceProfile findDeviceProfile(const std::string& nameOrPath) {
    if (nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json")) return loadDeviceProfile(nameOrPath);
    return loadDeviceProfile(findProfileFile(deviceProfileDirs(), nameOrPath, "device profile", "NPUWB_DEVICES_DIR"));
}

}  // namespace npuwb

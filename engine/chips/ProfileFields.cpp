#include "chips/ProfileFields.h"

#include <cmath>

#include "npuwb/Error.h"

namespace npuwb {

namespace {
std::string typeName(const nlohmann::json& j) {
    if (j.is_number_integer()) return "integer";
    return j.type_name();
}
}  // namespace

void ProfileFields::fail(const std::string& key, const std::string& problem) const {
    failInput(document_ + " '" + label_ + "': field '" + fieldPath(key) + "': " + problem);
}

const nlohmann::json& ProfileFields::raw(const std::string& key) const {
    if (!node_.is_object()) failInput(document_ + " '" + label_ + "': field '" + path_ + "': expected an object");
    auto it = node_.find(key);
    if (it == node_.end()) fail(key, "missing");
    return *it;
}

ProfileFields ProfileFields::object(const std::string& key) const {
    const auto& j = raw(key);
    if (!j.is_object()) fail(key, "expected an object, got " + typeName(j));
    return ProfileFields(j, label_, fieldPath(key), document_);
}

double ProfileFields::number(const std::string& key) const {
    const auto& j = raw(key);
    if (!j.is_number()) fail(key, "expected a number, got " + typeName(j));
    double v = j.get<double>();
    if (!std::isfinite(v)) fail(key, "expected a finite number");
    return v;
}

double ProfileFields::positiveNumber(const std::string& key) const {
    double v = number(key);
    if (!(v > 0)) fail(key, "must be greater than 0, got " + std::to_string(v));
    return v;
}

int64_t ProfileFields::integer(const std::string& key) const {
    const auto& j = raw(key);
    if (!j.is_number_integer()) fail(key, "expected an integer, got " + typeName(j));
    return j.get<int64_t>();
}

int64_t ProfileFields::positiveInteger(const std::string& key) const {
    int64_t v = integer(key);
    if (v <= 0) fail(key, "must be greater than 0, got " + std::to_string(v));
    return v;
}

std::string ProfileFields::string(const std::string& key) const {
    const auto& j = raw(key);
    if (!j.is_string()) fail(key, "expected a string, got " + typeName(j));
    return j.get<std::string>();
}

std::vector<std::string> ProfileFields::strings(const std::string& key) const {
    const auto& j = raw(key);
    if (!j.is_array()) fail(key, "expected an array of strings, got " + typeName(j));
    std::vector<std::string> out;
    for (size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_string()) fail(key + "[" + std::to_string(i) + "]", "expected a string, got " + typeName(j[i]));
        out.push_back(j[i].get<std::string>());
    }
    return out;
}

bool ProfileFields::boolean(const std::string& key) const {
    const auto& j = raw(key);
    if (!j.is_boolean()) fail(key, "expected true or false, got " + typeName(j));
    return j.get<bool>();
}

}  // namespace npuwb

#pragma once
// Typed access to the fields of a JSON document that names the file and the dotted field path in every error:
//   "chip profile 'rk3588.json': field 'npu.dtypes.int8.macsPerCycle': expected a number, got string"
// `document` names the kind of file ("chip profile", "device profile").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npuwb {

class ProfileFields {
public:
    ProfileFields(const nlohmann::json& node, std::string label, std::string path = {},
                  std::string document = "chip profile")
        : node_(node), label_(std::move(label)), path_(std::move(path)), document_(std::move(document)) {}

    bool has(const std::string& key) const { return node_.is_object() && node_.contains(key); }
    ProfileFields object(const std::string& key) const;  // required object
    double number(const std::string& key) const;
    double positiveNumber(const std::string& key) const;
    int64_t integer(const std::string& key) const;
    int64_t positiveInteger(const std::string& key) const;
    std::string string(const std::string& key) const;
    std::vector<std::string> strings(const std::string& key) const;
    bool boolean(const std::string& key) const;
    const nlohmann::json& raw(const std::string& key) const;  // required, any type

    const nlohmann::json& json() const { return node_; }
    std::string fieldPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
    [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

private:
    const nlohmann::json& node_;
    std::string label_;
    std::string path_;
    std::string document_;
};

}  // namespace npuwb

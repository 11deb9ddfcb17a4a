// The "matmul" section of a chip profile: native layouts written as the vendor writes them ("[K/16,M,16]",
// "[N/32,K/32,32,32]", "[N/4,M,4]"), alignments, the largest K, B's K segmentation and the supported types.
#include "chips/MatmulProfile.h"

#include <algorithm>
#include <cctype>

#include "npuwb/MatmulTypes.h"

namespace npuwb {

namespace {

/// "[K/16,M,16]" -> {"K/16", "M", "16"}; empty when not a bracketed list.
std::vector<std::string> layoutTokens(const std::string& text) {
    std::string s;
    for (char ch : text)
        if (!std::isspace(static_cast<unsigned char>(ch))) s += ch;
    if (s.size() < 2 || s.front() != '[' || s.back() != ']') return {};
    std::vector<std::string> tokens(1);
    for (size_t i = 1; i + 1 < s.size(); ++i) {
        if (s[i] == ',')
            tokens.emplace_back();
        else
            tokens.back() += s[i];
    }
    return tokens;
}

int64_t positiveNumber(const std::string& s) {
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return 0;
    return std::stoll(s);
}

/// Checks `tokens` against a pattern such as {"K/a", "M", "a"}; fills the blocks named by letters. The same
/// letter must get the same number.
bool matchLayout(const std::vector<std::string>& tokens, const std::vector<std::string>& pattern,
                 std::map<char, int64_t>& blocks) {
    if (tokens.size() != pattern.size()) return false;
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string& p = pattern[i];
        const std::string& t = tokens[i];
        std::string numberPart;
        char letter = 0;
        if (p.size() == 3 && p[1] == '/') {  // "K/a": dimension over block
            if (t.size() < 3 || t[0] != p[0] || t[1] != '/') return false;
            numberPart = t.substr(2);
            letter = p[2];
        } else if (p.size() == 1 && std::isupper(static_cast<unsigned char>(p[0]))) {  // "M"
            if (t != p) return false;
            continue;
        } else {  // "a": the block itself
            numberPart = t;
            letter = p[0];
        }
        const int64_t value = positiveNumber(numberPart);
        if (value <= 0) return false;
        auto [it, inserted] = blocks.emplace(letter, value);
        if (!inserted && it->second != value) return false;
    }
    return true;
}

std::map<char, int64_t> parseLayout(const ProfileFields& f, const std::string& key,
                                    const std::vector<std::string>& pattern, const std::string& shape) {
    std::map<char, int64_t> blocks;
    if (!matchLayout(layoutTokens(f.string(key)), pattern, blocks))
        f.fail(key, "expected a layout like " + shape + ", got '" + f.string(key) + "'");
    return blocks;
}

}  // namespace

MatmulChipProfile parseMatmulProfile(const ProfileFields& f) {
    MatmulChipProfile m;
    ProfileFields a = f.object("A"), b = f.object("B"), kAlign = f.object("kAlign"), nAlign = f.object("nAlign");
    for (const auto& [kind, value] : a.json().items()) {
        MatmulKindLimits limits;
        limits.aKBlock = parseLayout(a, kind, {"K/a", "M", "a"}, "[K/16,M,16]")['a'];
        auto bBlocks = parseLayout(b, kind, {"N/n", "K/k", "n", "k"}, "[N/32,K/32,32,32]");
        limits.bNBlock = bBlocks['n'];
        limits.bKBlock = bBlocks['k'];
        limits.kAlign = kAlign.positiveInteger(kind);
        limits.nAlign = nAlign.positiveInteger(kind);
        m.kinds[kind] = limits;
    }
    if (m.kinds.empty()) a.fail("", "names no operand type");
    for (const ProfileFields* other : {&b, &kAlign, &nAlign})
        for (const auto& [kind, value] : other->json().items())
            if (!m.kinds.count(kind)) other->fail(kind, "has no matching entry in matmul.A");
    // C: one layout for every type, or {"default": ..., "<kind>": ...} where a kind differs (RK3588 int4).
    const nlohmann::json& c = f.raw("C");
    for (auto& [kind, limits] : m.kinds) {
        if (c.is_string()) {
            limits.cNBlock = parseLayout(f, "C", {"N/c", "M", "c"}, "[N/4,M,4]")['c'];
            continue;
        }
        ProfileFields cFields = f.object("C");
        const std::string key = cFields.has(kind) ? kind : "default";
        limits.cNBlock = parseLayout(cFields, key, {"N/c", "M", "c"}, "[N/4,M,4]")['c'];
    }
    m.maxK = f.positiveInteger("maxK");
    if (f.has("kSegment")) m.kSegment = f.positiveInteger("kSegment");
    m.types = f.strings("types");
    for (size_t i = 0; i < m.types.size(); ++i) {
        const bool known = std::any_of(kMatmulTypes.begin(), kMatmulTypes.end(),
                                       [&](const MatmulTypeInfo& t) { return t.name == m.types[i]; });
        if (!known) f.fail("types[" + std::to_string(i) + "]", "unknown matmul type '" + m.types[i] + "'");
    }
    m.bLayouts = f.strings("bLayouts");
    for (size_t i = 0; i < m.bLayouts.size(); ++i)
        if (m.bLayouts[i] != "norm" && m.bLayouts[i] != "native" && m.bLayouts[i] != "tp_norm")
            f.fail("bLayouts[" + std::to_string(i) + "]", "expected norm, native or tp_norm");
    return m;
}

}  // namespace npuwb

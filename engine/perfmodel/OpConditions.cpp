#include "perfmodel/OpConditions.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace npuwb {

namespace {

/// Recursive descent over the op list's expression language (OpConditions.h). Any error makes the result nullopt.
class ConditionParser {
public:
    ConditionParser(const std::string& text, const std::map<std::string, int64_t>& vars) : vars_(vars) {
        tokenize(text);
    }

    std::optional<bool> parse() {
        if (!ok_) return std::nullopt;
        bool v = alternatives();
        if (!ok_ || pos_ != tokens_.size()) return std::nullopt;
        return v;
    }

private:
    void tokenize(const std::string& s) {
        for (size_t i = 0; i < s.size();) {
            unsigned char c = static_cast<unsigned char>(s[i]);
            if (std::isspace(c)) { ++i; continue; }
            size_t start = i;
            if (std::isalnum(c)) {
                while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
            } else if ((c == '<' || c == '>' || c == '=' || c == '!') && i + 1 < s.size() && s[i + 1] == '=') {
                i += 2;
            } else if (std::string("()*%<>,").find(static_cast<char>(c)) != std::string::npos) {
                ++i;
            } else {
                ok_ = false;
                return;
            }
            tokens_.push_back(s.substr(start, i - start));
        }
    }
    bool peek(const std::string& t) const { return pos_ < tokens_.size() && tokens_[pos_] == t; }
    bool accept(const std::string& t) {
        if (!peek(t)) return false;
        ++pos_;
        return true;
    }

    bool alternatives() {
        bool v = conjunction();
        while (ok_ && accept("or")) v = conjunction() || v;  // evaluate both sides: parse errors surface
        return v;
    }
    bool conjunction() {
        bool v = item();
        while (ok_ && (accept(",") || accept("and"))) v = item() && v;
        return v;
    }
    bool item() {
        if (accept("(")) {
            bool v = alternatives();
            if (!accept(")")) ok_ = false;
            return v;
        }
        return comparison();
    }
    bool comparison() {
        int64_t left = arithmetic();
        bool all = true, any = false;
        while (ok_ && pos_ < tokens_.size()) {
            const std::string op = tokens_[pos_];
            if (op != "<" && op != "<=" && op != ">" && op != ">=" && op != "==" && op != "!=") break;
            ++pos_;
            int64_t right = arithmetic();
            bool holds = op == "<"    ? left < right
                         : op == "<=" ? left <= right
                         : op == ">"  ? left > right
                         : op == ">=" ? left >= right
                         : op == "==" ? left == right
                                      : left != right;
            all = all && holds;
            any = true;
            left = right;
        }
        if (!any) ok_ = false;  // a bare value is not a condition
        return all;
    }
    int64_t arithmetic() {
        int64_t v = value();
        while (ok_ && (peek("*") || peek("%"))) {
            bool multiply = tokens_[pos_++] == "*";
            int64_t r = value();
            if (!multiply && r == 0) {
                ok_ = false;
                return 0;
            }
            v = multiply ? v * r : v % r;
        }
        return v;
    }
    int64_t value() {
        if (pos_ >= tokens_.size()) {
            ok_ = false;
            return 0;
        }
        const std::string& t = tokens_[pos_++];
        if (std::isdigit(static_cast<unsigned char>(t[0]))) {
            if (!std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); })) ok_ = false;
            return ok_ ? std::stoll(t) : 0;
        }
        auto it = vars_.find(t);
        if (it == vars_.end()) {
            ok_ = false;
            return 0;
        }
        return it->second;
    }

    const std::map<std::string, int64_t>& vars_;
    std::vector<std::string> tokens_;
    size_t pos_ = 0;
    bool ok_ = true;
};

std::string permText(const std::vector<int64_t>& perm) {
    std::string s = "[";
    for (size_t i = 0; i < perm.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(perm[i]);  // appended, not prepended: GCC 12 warns (-Wrestrict) on "," + temporary
    }
    return s + "]";
}

/// The rank-4 view the NPU takes of a lower-rank tensor: leading dims of 1.
Shape as4d(const Shape& s) {
    Shape out(s.size() < 4 ? 4 - s.size() : 0, 1);
    out.insert(out.end(), s.begin(), s.end());
    return out;
}

std::optional<std::string> transposeCondition(const NpuOpConditions& c, const NodeShapes& ns, const Graph&,
                                              const std::string& dtype) {
    if (ns.inputs.empty() || ns.inputs[0].size() > 4) return std::nullopt;
    const Shape& in = ns.inputs[0];
    std::vector<int64_t> perm = ns.node->attrInts("perm");
    if (perm.empty())
        for (size_t i = in.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    // Moving only dims of size 1 keeps the element order: a reshape, whatever the permutation table says.
    std::vector<int64_t> moved;
    for (int64_t p : perm)
        if (p >= 0 && size_t(p) < in.size() && in[size_t(p)] != 1) moved.push_back(p);
    if (std::is_sorted(moved.begin(), moved.end())) return std::nullopt;
    const size_t lead = 4 - in.size();
    std::vector<int64_t> perm4;
    for (size_t i = 0; i < lead; ++i) perm4.push_back(static_cast<int64_t>(i));
    for (int64_t p : perm) perm4.push_back(p + static_cast<int64_t>(lead));
    const std::string key = permText(perm4);
    auto rule = c.perms.find(key);
    if (rule == c.perms.end()) return "perm " + key + " is not supported";
    auto exprs = rule->second.find(dtype);
    if (exprs == rule->second.end()) return "perm " + key + " is not supported for " + dtype;
    Shape s = as4d(in);
    std::map<std::string, int64_t> vars = c.constants;
    vars["n1"] = vars["n"] = s[0];
    vars["c1"] = s[1];
    vars["h1"] = s[2];
    vars["w1"] = s[3];
    for (const auto& e : exprs->second)
        if (evaluateCondition(e, vars) == false) return "perm " + key + " needs " + e + " (input " + shapeToString(in) + ")";
    return std::nullopt;
}

std::optional<std::string> axisCondition(const NpuOpConditions& c, const NodeShapes& ns) {
    if (ns.inputs.empty() || ns.inputs[0].size() > 4) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(ns.inputs[0].size());
    int64_t axis = ns.node->attrInt("axis", -1);
    if (axis < 0) axis += rank;
    const int64_t axis4 = axis + (4 - rank);
    for (int64_t a : c.axes)
        if (a == axis4 || a == axis4 - 4) return std::nullopt;
    std::ostringstream allowed;
    for (size_t i = 0; i < c.axes.size(); ++i) allowed << (i ? ", " : "") << c.axes[i];
    return "axis " + std::to_string(axis4) + " of the 4-D tensor not in {" + allowed.str() + "}";
}

std::optional<std::string> exponentCondition(const NpuOpConditions& c, const NodeShapes& ns, const Graph& g) {
    if (ns.node->inputs.size() < 2) return std::nullopt;
    auto values = constantValues(g, ns.node->inputs[1]);
    if (!values) return ns.inputIsConstant.size() > 1 && ns.inputIsConstant[1]
                           ? std::nullopt
                           : std::optional<std::string>("exponent is not a constant");
    for (double v : *values)
        if (std::none_of(c.exponents.begin(), c.exponents.end(), [&](double e) { return std::abs(e - v) < 1e-9; }))
            return "exponent " + std::to_string(v) + " is not one of the supported exponents";
    return std::nullopt;
}

std::optional<std::string> scaleCondition(const NpuOpConditions& c, const NodeShapes& ns) {
    if (ns.inputs.empty() || ns.outputs.empty() || ns.inputs[0].size() != 4 || ns.outputs[0].size() != 4)
        return std::nullopt;
    const Shape& in = ns.inputs[0];
    const Shape& out = ns.outputs[0];
    for (size_t axis : {size_t(2), size_t(3)}) {
        if (in[axis] == out[axis]) continue;
        bool integer = in[axis] > 0 && out[axis] % in[axis] == 0;
        int64_t factor = integer ? out[axis] / in[axis] : 0;
        if (!integer || factor < (*c.integerScale)[0] || factor > (*c.integerScale)[1])
            return "scale " + std::to_string(in[axis]) + " -> " + std::to_string(out[axis]) + " is not an integer factor in [" +
                   std::to_string((*c.integerScale)[0]) + ", " + std::to_string((*c.integerScale)[1]) + "]";
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<double>> constantValues(const Graph& graph, const std::string& name) {
    const Tensor* t = nullptr;
    if (auto it = graph.initializers.find(name); it != graph.initializers.end()) t = &it->second;
    if (!t)
        for (const Node& n : graph.nodes)
            if (n.opType == "Constant" && !n.outputs.empty() && n.outputs[0] == name)
                if (const Attribute* a = n.attribute("value"); a && a->kind == Attribute::Kind::Tensor) t = &a->t;
    if (!t) return std::nullopt;
    std::vector<double> out;
    switch (t->dtype()) {
        case DType::F32: for (float v : t->values<float>()) out.push_back(v); break;
        case DType::F64: for (double v : t->values<double>()) out.push_back(v); break;
        case DType::I64: for (int64_t v : t->values<int64_t>()) out.push_back(static_cast<double>(v)); break;
        case DType::I32: for (int32_t v : t->values<int32_t>()) out.push_back(v); break;
        default: return std::nullopt;
    }
    return out;
}

std::optional<std::string> unmetCondition(const NpuOp& op, const NodeShapes& node, const Graph& graph,
                                          const std::string& opListDtype) {
    const NpuOpConditions& c = op.conditions;
    const std::string& type = node.node->opType;
    if (!c.perms.empty() && type == "Transpose") return transposeCondition(c, node, graph, opListDtype);
    if (!c.axes.empty() && (type == "Softmax" || type == "Hardmax")) return axisCondition(c, node);
    if (!c.exponents.empty() && type == "Pow") return exponentCondition(c, node, graph);
    if (c.integerScale && type == "Resize") return scaleCondition(c, node);
    return std::nullopt;
}

std::optional<bool> evaluateCondition(const std::string& expression, const std::map<std::string, int64_t>& vars) {
    return ConditionParser(expression, vars).parse();
}

}  // namespace npuwb

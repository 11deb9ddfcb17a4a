// Einsum with numpy semantics: explicit ("ij,jk->ik") or implicit output (broadcast dims first, then the labels
// that appear once, in ASCII order), ellipsis broadcasting, repeated labels (diagonals) and summation.
// Reference strategy: one odometer over every label; each input and the output hold a stride per label (the
// sum of the strides of the dims carrying that label, 0 for broadcast dims), so any equation is one loop.
#include <algorithm>
#include <string>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

constexpr int kLetterCount = 52;  // a-z then A-Z; ellipsis dims get labels from kLetterCount on

struct Term {
    std::vector<int> labels;  // one per dimension after ellipsis expansion
};

int letterLabel(const KernelContext& ctx, char c) {
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
    ctx.fail(std::string("invalid character '") + c + "' in the equation");
}

char labelLetter(int label) { return static_cast<char>(label < 26 ? 'a' + label : 'A' + (label - 26)); }

/// Parses one term; `ellipsisDims` is how many dims its "..." stands for, `maxEllipsis` the widest among inputs
/// (ellipsis dims are right-aligned like numpy broadcasting).
Term parseTerm(const KernelContext& ctx, const std::string& text, int64_t ellipsisDims, int64_t maxEllipsis) {
    Term t;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '.') {
            if (text.compare(i, 3, "...") != 0) ctx.fail("malformed ellipsis in the equation");
            for (int64_t k = 0; k < ellipsisDims; ++k)
                t.labels.push_back(kLetterCount + static_cast<int>(maxEllipsis - ellipsisDims + k));
            i += 2;
        } else {
            t.labels.push_back(letterLabel(ctx, text[i]));
        }
    }
    return t;
}

int64_t letterCountOf(const std::string& text) {
    return static_cast<int64_t>(std::count_if(text.begin(), text.end(), [](char c) { return c != '.'; }));
}

void einsum(KernelContext& ctx) {
    std::string equation;
    for (char c : ctx.attrString("equation", "")) if (c != ' ') equation += c;
    size_t arrow = equation.find("->");
    std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> inputTexts;
    for (size_t start = 0;;) {
        size_t comma = lhs.find(',', start);
        inputTexts.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (inputTexts.size() != ctx.inputCount()) ctx.fail("the equation names " + std::to_string(inputTexts.size()) +
                                                        " inputs but the node has " + std::to_string(ctx.inputCount()));
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < ctx.inputCount(); ++i) inputs.push_back(ctx.input(i));
    DType dtype = inputs[0].dtype();
    for (const Tensor& t : inputs)
        if (t.dtype() != dtype) ctx.fail("all inputs must have the same element type");

    // Expand ellipses, then collect each label's size (ellipsis dims broadcast; letters must agree or be 1).
    int64_t maxEllipsis = 0;
    std::vector<int64_t> ellipsisDims(inputs.size(), 0);
    for (size_t i = 0; i < inputs.size(); ++i) {
        bool hasEllipsis = inputTexts[i].find("...") != std::string::npos;
        int64_t letters = letterCountOf(inputTexts[i]);
        int64_t rank = static_cast<int64_t>(inputs[i].rank());
        if (hasEllipsis ? rank < letters : rank != letters)
            ctx.fail("term '" + inputTexts[i] + "' does not match input rank " + std::to_string(rank));
        ellipsisDims[i] = hasEllipsis ? rank - letters : 0;
        maxEllipsis = std::max(maxEllipsis, ellipsisDims[i]);
    }
    int labelCount = kLetterCount + static_cast<int>(maxEllipsis);
    std::vector<int64_t> size(static_cast<size_t>(labelCount), -1);
    std::vector<int> occurrences(static_cast<size_t>(labelCount), 0);
    std::vector<Term> terms;
    for (size_t i = 0; i < inputs.size(); ++i) {
        terms.push_back(parseTerm(ctx, inputTexts[i], ellipsisDims[i], maxEllipsis));
        for (size_t d = 0; d < terms[i].labels.size(); ++d) {
            size_t l = static_cast<size_t>(terms[i].labels[d]);
            int64_t dim = inputs[i].shape()[d];
            ++occurrences[l];
            if (size[l] == -1 || size[l] == 1) size[l] = dim;
            else if (dim != 1 && dim != size[l]) ctx.fail("inconsistent sizes for an einsum label");
        }
    }

    Term output;
    if (arrow != std::string::npos) {
        std::string rhs = equation.substr(arrow + 2);
        output = parseTerm(ctx, rhs, maxEllipsis, maxEllipsis);
        for (int l : output.labels)
            if (size[static_cast<size_t>(l)] == -1) ctx.fail("output label not found in the inputs");
    } else {
        for (int64_t k = 0; k < maxEllipsis; ++k) output.labels.push_back(kLetterCount + static_cast<int>(k));
        std::string once;
        for (int l = 0; l < kLetterCount; ++l)
            if (occurrences[static_cast<size_t>(l)] == 1) once += labelLetter(l);
        std::sort(once.begin(), once.end());  // ASCII order: upper case before lower case, like numpy
        for (char c : once) output.labels.push_back(letterLabel(ctx, c));
    }

    // Loop order: output labels first (outer), then every summed label.
    std::vector<int> loopLabels = output.labels;
    for (int l = 0; l < labelCount; ++l)
        if (size[static_cast<size_t>(l)] != -1 &&
            std::find(output.labels.begin(), output.labels.end(), l) == output.labels.end())
            loopLabels.push_back(l);
    Shape outShape;
    for (int l : output.labels) outShape.push_back(size[static_cast<size_t>(l)]);

    // Per-label strides for every input and the output, in loop-label order.
    auto stridesFor = [&](const Term& term, const Shape& shape) {
        std::vector<int64_t> s(loopLabels.size(), 0);
        std::vector<int64_t> dimStrides = stridesOf(shape);
        for (size_t d = 0; d < term.labels.size(); ++d) {
            if (shape[d] == 1 && size[static_cast<size_t>(term.labels[d])] != 1) continue;  // broadcast dim
            size_t pos = static_cast<size_t>(std::find(loopLabels.begin(), loopLabels.end(), term.labels[d]) - loopLabels.begin());
            s[pos] += dimStrides[d];
        }
        return s;
    };
    std::vector<std::vector<int64_t>> inStrides;
    for (size_t i = 0; i < inputs.size(); ++i) inStrides.push_back(stridesFor(terms[i], inputs[i].shape()));
    std::vector<int64_t> outStrides = stridesFor(output, outShape);
    std::vector<int64_t> loopSizes;
    for (int l : loopLabels) loopSizes.push_back(size[static_cast<size_t>(l)]);
    int64_t total = shapeNumel(loopSizes);

    visitNumeric(dtype, [&]<typename T>() {
        using A = Acc<T>;
        std::vector<A> acc(static_cast<size_t>(shapeNumel(outShape)), A(0));
        std::vector<const T*> data;
        for (const Tensor& t : inputs) data.push_back(t.data<T>());
        std::vector<int64_t> coord(loopSizes.size(), 0);
        std::vector<int64_t> offsets(inputs.size(), 0);
        int64_t outOffset = 0;
        for (int64_t step = 0; step < total; ++step) {
            A product = widen(data[0][offsets[0]]);
            for (size_t i = 1; i < data.size(); ++i) product = static_cast<A>(product * widen(data[i][offsets[i]]));
            acc[static_cast<size_t>(outOffset)] = accumulate(acc[static_cast<size_t>(outOffset)], product);
            // Advance the odometer (last loop label fastest), keeping every offset in step.
            for (int64_t d = static_cast<int64_t>(coord.size()) - 1; d >= 0; --d) {
                size_t du = static_cast<size_t>(d);
                int64_t back = ++coord[du] < loopSizes[du] ? 1 : 1 - loopSizes[du];
                if (back != 1) coord[du] = 0;
                for (size_t i = 0; i < offsets.size(); ++i) offsets[i] += back * inStrides[i][du];
                outOffset += back * outStrides[du];
                if (back == 1) break;
            }
        }
        Tensor out(dtype, outShape);
        T* o = out.data<T>();
        for (size_t i = 0; i < acc.size(); ++i) o[i] = static_cast<T>(acc[i]);
        ctx.setOutput(0, std::move(out));
    }, "Einsum");
}

}  // namespace

NPUWB_KERNEL("Einsum", einsum);

}  // namespace npuwb::math

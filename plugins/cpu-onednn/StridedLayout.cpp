#include "StridedLayout.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace npuwb::onednn {

std::optional<Dims> reshapedStrides(const Dims& from, const Dims& strides, const Dims& to) {
    auto count = [](const Dims& d) { return std::accumulate(d.begin(), d.end(), int64_t{1}, std::multiplies<>()); };
    if (from.size() != strides.size() || count(from) != count(to) || count(from) <= 0) return std::nullopt;
    Dims od, os;  // the source without its size-1 dims (their strides mean nothing)
    for (size_t i = 0; i < from.size(); ++i)
        if (from[i] != 1) od.push_back(from[i]), os.push_back(strides[i]);
    Dims ns(to.size(), 1);
    // Match groups of source dims with groups of target dims of equal product (NumPy's no-copy reshape); a source
    // group must be contiguous in storage, and its target dims get row-major strides inside it.
    size_t oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < to.size() && oi < od.size()) {
        int64_t np = to[ni], op = od[oi];
        while (np != op) {
            if (np < op) {
                if (nj >= to.size()) return std::nullopt;
                np *= to[nj++];
            } else {
                if (oj >= od.size()) return std::nullopt;
                op *= od[oj++];
            }
        }
        for (size_t ok = oi; ok + 1 < oj; ++ok)
            if (os[ok] != od[ok + 1] * os[ok + 1]) return std::nullopt;
        ns[nj - 1] = os[oj - 1];
        for (size_t nk = nj - 1; nk > ni; --nk) ns[nk - 1] = ns[nk] * to[nk];
        ni = nj++;
        oi = oj++;
    }
    // Trailing size-1 target dims: any stride addresses them; the last one keeps the strides monotonic.
    for (size_t nk = ni; nk < to.size(); ++nk) ns[nk] = nk > 0 ? ns[nk - 1] : 1;
    return ns;
}

std::vector<size_t> storageOrder(const Dims& dims, const Dims& strides) {
    std::vector<size_t> order(strides.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const bool unitA = dims[a] == 1, unitB = dims[b] == 1;
        if (unitA != unitB) return unitA;
        return !unitA && strides[a] > strides[b];
    });
    return order;
}

Dims denseStrides(const Dims& dims, const std::vector<size_t>& order) {
    Dims strides(dims.size(), 1);
    int64_t next = 1;
    for (size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = next;
        next *= dims[order[k]];
    }
    return strides;
}

std::vector<size_t> transposedOrder(const std::vector<size_t>& inputOrder, const std::vector<size_t>& perm) {
    std::vector<size_t> order(perm.size());
    std::vector<size_t> moved;  // output dims that come from another input dim, in output order
    for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] != i) moved.push_back(i);
    size_t next = 0;
    for (size_t k = 0; k < inputOrder.size(); ++k) {
        const size_t inputDim = inputOrder[k];
        order[k] = perm[inputDim] == inputDim ? inputDim : moved[next++];  // an input dim stays iff its output does
    }
    return order;
}

}  // namespace npuwb::onednn

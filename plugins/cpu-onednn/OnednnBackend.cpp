// The cpu-onednn backend plugin: capability query, partitioning into segments of consecutive supported nodes,
// and the exported C entry points.
#include <omp.h>

#include <set>

#include "OnednnSegment.h"
#include "OnednnSupport.h"

namespace npuwb::onednn {

namespace {

std::string displayName(const Node& n) { return n.layerName(); }

class OnednnBackend : public Backend {
public:
    std::string name() const override { return "cpu-onednn"; }
    // The Debian build uses the OpenMP runtime (DNNL_CPU_RUNTIME == OMP): threads are an OpenMP setting, applied
    // by each segment run on the calling thread.
    void setThreads(int threads) override { threads_ = std::max(1, threads); }
    Capability supports(const NodeQuery& query) const override { return supportsNode(query); }
    int64_t packedWeightBytes() const override { return weights_.bytes(); }
    bool sharesPackedWeights() const override { return true; }

    CompileResult compile(const GraphQuery& query) override {
        omp_set_num_threads(threads_);
        const Graph& g = query.graph;
        std::map<std::string, int> consumers;
        for (size_t idx : query.order)
            for (const auto& in : g.nodes[idx].inputs)
                if (!in.empty()) ++consumers[in];
        for (const auto& o : g.outputs) ++consumers[o.name];

        std::map<size_t, std::string> rejected;  // node index -> reason
        for (size_t idx : query.order) {
            Capability c = supports(makeNodeQuery(query, idx));
            if (!c.supported) rejected[idx] = c.reason;
        }
        // Build runs of consecutive supported nodes; a node oneDNN refuses at build time joins the fallbacks and
        // the partition is rebuilt.
        while (true) {
            CompileResult result;
            try {
                std::vector<size_t> run;
                for (size_t pos = 0; pos <= query.order.size(); ++pos) {
                    bool take = pos < query.order.size() && !rejected.count(query.order[pos]);
                    if (take) { run.push_back(query.order[pos]); continue; }
                    if (!run.empty()) result.segments.push_back(makeSegment(query, run, consumers));
                    run.clear();
                }
            } catch (const NodeBuildError& e) {
                rejected[e.nodeIndex] = e.what();
                continue;
            }
            for (size_t idx : query.order) {
                auto r = rejected.find(idx);
                if (r != rejected.end()) result.fallbacks.push_back({displayName(g.nodes[idx]), g.nodes[idx].opType, r->second});
            }
            return result;
        }
    }

private:
    SegmentPlan makeSegment(const GraphQuery& query, const std::vector<size_t>& nodes,
                            const std::map<std::string, int>& consumers) {
        const Graph& g = query.graph;
        SegmentPlan plan;
        plan.nodes = nodes;
        std::set<std::string> produced, inputs;
        std::map<std::string, int> usesInside;
        for (size_t idx : nodes) {
            for (const auto& in : g.nodes[idx].inputs) {
                if (in.empty()) continue;
                ++usesInside[in];
                const ValueDesc* d = query.value(in);
                if (!produced.count(in) && !(d && d->constant) && inputs.insert(in).second) plan.inputs.push_back(in);
            }
            for (const auto& out : g.nodes[idx].outputs)
                if (!out.empty()) produced.insert(out);
        }
        for (size_t idx : nodes)
            for (const auto& out : g.nodes[idx].outputs) {
                if (out.empty()) continue;
                auto c = consumers.find(out);
                if (c != consumers.end() && c->second > usesInside[out]) plan.outputs.push_back(out);
            }
        plan.prepared = buildSegment(query, nodes, plan.inputs, plan.outputs, consumers, engine_, threads_, weights_);
        return plan;
    }

    dnnl::engine engine_{dnnl::engine::kind::cpu, 0};  // one engine per backend (= per session)
    int threads_ = 1;
    WeightCache weights_;  // shared by every plan compiled here (each execution context's)
};

}  // namespace

}  // namespace npuwb::onednn

extern "C" int npuwb_backend_api_version() { return npuwb::kBackendApiVersion; }
extern "C" npuwb::Backend* npuwb_create_backend() { return new npuwb::onednn::OnednnBackend(); }

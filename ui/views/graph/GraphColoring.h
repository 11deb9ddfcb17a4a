#pragma once
// What the Graph view colours nodes by: a metric of the last run's report or of the last estimate (a fused layer's
// value colours every node it covers) or of the last accuracy analysis, with the legend that explains the colours.
// Nodes without the metric are grey.
#include <QColor>
#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

#include "npuwb/Report.h"
#include "views/graph/GraphData.h"

namespace npuwb::ui {

enum class GraphMetric { OpType, Time, TimeShare, Macs, MacUsage, DataType, Target, Bound, QuantError, Precision };

inline constexpr GraphMetric kGraphMetrics[] = {GraphMetric::OpType,   GraphMetric::Time,     GraphMetric::TimeShare,
                                                GraphMetric::Macs,     GraphMetric::MacUsage, GraphMetric::DataType,
                                                GraphMetric::Target,   GraphMetric::Bound,    GraphMetric::QuantError,
                                                GraphMetric::Precision};

QString metricTitle(GraphMetric metric);

/// Where metrics come from: the last run (local, board or vendor log) and the last estimate, either may be absent.
struct MetricSources {
    const Report* run = nullptr;
    const Report* estimate = nullptr;
    QString estimateTarget;                     // "rk3588 int8", for the legend
    const AccuracySection* accuracy = nullptr;  // quantization error and precision per layer
};

struct NodeColors {
    std::vector<QColor> colors;                      // per GraphData node
    std::vector<std::pair<QColor, QString>> legend;  // swatch, meaning
    QString source;    // "last run", "estimate on rk3588 int8", or why nothing is coloured
    int coloured = 0;  // nodes that have the metric
};

/// The colour of nodes without a value.
QColor missingMetricColor();
/// The numeric metrics' scale, 0 (pale yellow) to 1 (dark red).
QColor heatColor(double t);
/// The report row of each layer name, fused nodes mapping to their layer's row.
QHash<QString, const LayerRow*> rowsByNode(const Report& report);
NodeColors colorNodes(const GraphData& data, GraphMetric metric, const MetricSources& sources);
/// One line of rich text: the metric, its source, and a swatch per legend entry.
QString legendHtml(GraphMetric metric, const NodeColors& colors);
/// The node names of each fused layer: the estimate's (`layerNodes`, when there is one), else the run's
/// (LayerRow::fusedNodes after the anchor); single-node layers left out.
std::vector<QStringList> fusedLayerGroups(const std::vector<QStringList>* estimateLayerNodes, const Report* run);

}  // namespace npuwb::ui

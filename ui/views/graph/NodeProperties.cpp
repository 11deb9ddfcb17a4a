#include "views/graph/NodeProperties.h"

#include <QHeaderView>
#include <QMap>
#include <QPainter>
#include <QSet>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>

#include "models/Format.h"

namespace npuwb::ui {
namespace {

constexpr int64_t kMaxSampled = 1 << 20;  // weight statistics read at most this many elements (evenly spaced)
constexpr int kBins = 40;

QString listOf(const auto& values, int limit = 16) {
    QStringList parts;
    for (size_t i = 0; i < values.size() && i < size_t(limit); ++i) {
        if constexpr (std::is_same_v<std::decay_t<decltype(values[i])>, std::string>)
            parts << QString::fromStdString(values[i]);
        else
            parts << QString::number(values[i]);
    }
    if (values.size() > size_t(limit)) parts << QStringLiteral("… (%1)").arg(values.size());
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString attributeText(const Attribute& a) {
    using K = Attribute::Kind;
    switch (a.kind) {
        case K::Int: return QString::number(a.i);
        case K::Float: return QString::number(double(a.f));
        case K::String: return QString::fromStdString(a.s).left(200);
        case K::Ints: return listOf(a.ints);
        case K::Floats: return listOf(a.floats);
        case K::Strings: return listOf(a.strings);
        case K::Tensor:
            return QStringLiteral("tensor %1 %2")
                .arg(QString::fromStdString(shapeToString(a.t.shape())), QString::fromUtf8(dtypeName(a.t.dtype())));
        case K::Graph: return QObject::tr("subgraph, %1 nodes").arg(a.g ? a.g->nodes.size() : 0);
        case K::Tensors: return QObject::tr("%1 tensors").arg(a.tensors.size());
        case K::Graphs: return QObject::tr("%1 subgraphs").arg(a.graphs.size());
        case K::TypeProto: return QStringLiteral("type");
    }
    return {};
}

struct WeightStats {
    double min = 0, max = 0, mean = 0, stddev = 0;
    int64_t sampled = 0;
    std::vector<double> values;
};

/// Statistics of a numeric weight, from at most kMaxSampled evenly spaced elements.
std::optional<WeightStats> statsOf(const Tensor& t) {
    if (t.isDeferred() || t.numel() == 0 || t.dtype() == DType::String) return std::nullopt;
    WeightStats s;
    const int64_t step = std::max<int64_t>(1, t.numel() / kMaxSampled);
    s.values.reserve(size_t(t.numel() / step + 1));
    try {
        for (int64_t i = 0; i < t.numel(); i += step) s.values.push_back(t.elementAsDouble(i));
    } catch (const std::exception&) {
        return std::nullopt;  // an element type without a numeric reading
    }
    s.sampled = int64_t(s.values.size());
    auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    s.min = *lo;
    s.max = *hi;
    double sum = 0, sq = 0;
    for (double v : s.values) sum += v;
    s.mean = sum / double(s.sampled);
    for (double v : s.values) sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / double(s.sampled));
    return s;
}

}  // namespace

void WeightHistogram::setData(WeightHistogramData data) {
    data_ = std::move(data);
    setVisible(!data_.bins.empty());
    update();
}

void WeightHistogram::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (data_.bins.empty()) return;
    const QFontMetrics fm(font());
    const QRect plot = rect().adjusted(4, fm.height() + 4, -4, -fm.height() - 4);
    p.setPen(palette().text().color());
    p.drawText(rect().adjusted(4, 2, -4, 0), Qt::AlignLeft | Qt::AlignTop,
               fm.elidedText(data_.title, Qt::ElideMiddle, width() - 8));
    const int peak = std::max(1, *std::max_element(data_.bins.begin(), data_.bins.end()));
    const double barWidth = double(plot.width()) / double(data_.bins.size());
    for (size_t i = 0; i < data_.bins.size(); ++i) {
        const double h = plot.height() * double(data_.bins[i]) / peak;
        p.fillRect(QRectF(plot.left() + i * barWidth, plot.bottom() - h, std::max(1.0, barWidth - 1), h),
                   QColor(0x4e, 0x79, 0xa7));
    }
    p.setPen(palette().text().color());
    const QRect labels = rect().adjusted(4, 0, -4, -2);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignBottom, QString::number(data_.min, 'g', 3));
    p.drawText(labels, Qt::AlignRight | Qt::AlignBottom, QString::number(data_.max, 'g', 3));
}

NodeProperties::NodeProperties(QWidget* parent)
    : QWidget(parent),
      model_(new QStandardItemModel(0, 2, this)),
      tree_(new QTreeView(this)),
      histogram_(new WeightHistogram(this)) {
    model_->setHorizontalHeaderLabels({tr("Property"), tr("Value")});
    tree_->setObjectName(QStringLiteral("graphProperties"));
    tree_->setModel(model_);
    tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Long tensor names must not push the values out of sight: the keys take at most 60 % (fitKeyColumn).
    tree_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    tree_->header()->setStretchLastSection(true);
    tree_->header()->resizeSection(0, 150);
    tree_->setTextElideMode(Qt::ElideMiddle);  // a value too long keeps both ends; the tooltip has it all
    tree_->setWordWrap(false);
    tree_->setUniformRowHeights(true);
    histogram_->setObjectName(QStringLiteral("weightHistogram"));
    histogram_->setMinimumHeight(100);
    histogram_->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tree_, 1);
    layout->addWidget(histogram_);
}

QStandardItem* NodeProperties::section(const QString& title) {
    auto* item = new QStandardItem(title);
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
    model_->appendRow({item, new QStandardItem});
    tree_->setFirstColumnSpanned(item->row(), QModelIndex(), true);
    return item;
}

static void addRow(QStandardItem* parent, const QString& key, const QString& value) {
    auto* valueItem = new QStandardItem(value);
    valueItem->setToolTip(value);
    parent->appendRow({new QStandardItem(key), valueItem});
}

void NodeProperties::addMetrics(const Report& report, const QString& title, const QString& name) {
    const LayerRow* row = rowsByNode(report).value(name);
    if (!row) return;
    QStandardItem* s = section(title);
    addRow(s, tr("Layer"), QStringLiteral("#%1 %2").arg(row->id).arg(QString::fromStdString(row->fullName)));
    if (row->timeUs > 0)
        addRow(s, tr("Time"),
               QStringLiteral("%1 (%2 %)").arg(formatMicros(row->timeUs)).arg(row->timePercent, 0, 'f', 1));
    if (row->macs > 0) addRow(s, tr("MACs"), formatCount(row->macs));
    if (row->macUsagePercent)
        addRow(s, tr("MAC utilisation"), QStringLiteral("%1 %").arg(*row->macUsagePercent, 0, 'f', 1));
    addRow(s, tr("Target"), QString::fromStdString(row->target));
    addRow(s, tr("Data type"), QString::fromStdString(row->dataType));
    if (row->cyclesNpu && row->cyclesDdr)
        addRow(s, tr("Cycles NPU / DDR"),
               QStringLiteral("%1 / %2").arg(formatCount(*row->cyclesNpu), formatCount(*row->cyclesDdr)));
    if (!row->fusedNodes.empty()) {
        QStringList fused;
        for (const std::string& f : row->fusedNodes) fused << QString::fromStdString(f);
        addRow(s, tr("Fused with"), fused.join(QStringLiteral(", ")));
    }
}

void NodeProperties::addAccuracy(const AccuracySection& accuracy, const QString& name) {
    const auto layer = std::find_if(accuracy.layers.begin(), accuracy.layers.end(),
                                    [&](const AccuracyLayer& l) { return QString::fromStdString(l.fullName) == name; });
    if (layer == accuracy.layers.end()) return;
    QStandardItem* s = section(tr("Quantization"));
    addRow(s, tr("Precision"), QString::fromStdString(layer->precision));
    auto db = [](const std::optional<double>& v) { return v ? QStringLiteral("%1 dB").arg(*v, 0, 'f', 1) : QString(); };
    if (layer->singleSnrDb) addRow(s, tr("SNR (this layer alone)"), db(layer->singleSnrDb));
    if (layer->entireSnrDb) addRow(s, tr("SNR (model up to here)"), db(layer->entireSnrDb));
    addRow(s, tr("Cosine (model up to here)"), QString::number(layer->entireCosine, 'f', 5));
    if (layer->scale)
        addRow(s, tr("Scale / zero point"),
               QStringLiteral("%1 / %2").arg(*layer->scale, 0, 'g', 4).arg(layer->zeroPoint.value_or(0)));
    if (layer->lowSnr) addRow(s, tr("Flagged"), tr("SNR below %1 dB").arg(accuracy.snrThresholdDb));
}

void NodeProperties::addWeights(const Graph& graph, const Node& node) {
    QStandardItem* weights = nullptr;
    const Tensor* largest = nullptr;
    std::string largestName;
    for (const std::string& in : node.inputs) {
        const auto init = graph.initializers.find(in);
        if (init == graph.initializers.end()) continue;
        if (!weights) weights = section(tr("Weights"));
        const Tensor& t = init->second;
        QString text =
            QStringLiteral("%1 %2, %3 values, %4")
                .arg(QString::fromStdString(shapeToString(t.shape())), QString::fromUtf8(dtypeName(t.dtype())),
                     formatCount(t.numel()), formatBytes(int64_t(t.byteSize())));
        if (const auto s = t.numel() > 1 ? statsOf(t) : std::nullopt)
            text += tr("; min %1, max %2, mean %3, std %4")
                        .arg(s->min, 0, 'g', 4)
                        .arg(s->max, 0, 'g', 4)
                        .arg(s->mean, 0, 'g', 4)
                        .arg(s->stddev, 0, 'g', 4);
        addRow(weights, QString::fromStdString(in), text);
        if (!largest || t.numel() > largest->numel()) {
            largest = &t;
            largestName = in;
        }
    }
    WeightHistogramData histogram;
    if (largest && largest->numel() > 1)
        if (const auto s = statsOf(*largest)) {
            histogram.title =
                tr("%1: %2 values").arg(QString::fromStdString(largestName), formatCount(largest->numel()));
            histogram.min = s->min;
            histogram.max = s->max;
            histogram.bins.assign(kBins, 0);
            const double span = s->max - s->min;
            for (double v : s->values) {
                const int bin = span > 0 ? std::min(kBins - 1, int((v - s->min) / span * kBins)) : kBins / 2;
                ++histogram.bins[size_t(bin)];
            }
        }
    histogram_->setData(std::move(histogram));
}

void NodeProperties::showNode(const GraphData& data, int index, const MetricSources& sources) {
    model_->removeRows(0, model_->rowCount());
    fill(data, index, sources);
    tree_->expandAll();
    fitKeyColumn();
}

void NodeProperties::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitKeyColumn();
}

void NodeProperties::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    fitKeyColumn();  // a hidden tree measures its contents as nothing
}

void NodeProperties::fitKeyColumn() {
    if (!tree_->isVisible()) return;
    // Keys whole ("Cycles NPU / DDR", a tensor's name) while the values keep at least 40 % of the width.
    tree_->resizeColumnToContents(0);
    const int most = tree_->viewport()->width() * 6 / 10;
    if (most > 0 && tree_->columnWidth(0) > most) tree_->setColumnWidth(0, most);
}

void NodeProperties::fill(const GraphData& data, int index, const MetricSources& sources) {
    if (index < 0 || size_t(index) >= data.nodes.size()) {
        if (data.model) section(tr("Click a node, or pick a layer in any tab"));
        histogram_->setData({});
        return;
    }
    const GraphNodeInfo& info = data.nodes[size_t(index)];
    const Graph& graph = data.graph();
    QStandardItem* identity = section(info.kind == GraphNodeInfo::Kind::Op ? tr("Node") : info.opType);
    addRow(identity, tr("Name"), info.name);
    if (info.kind != GraphNodeInfo::Kind::Op) {
        addRow(identity, tr("Type"), describeValue(data, info.value));
        histogram_->setData({});
        return;
    }
    const Node& node = graph.nodes[size_t(info.graphNode)];
    addRow(identity, tr("Op type"),
           QString::fromStdString(node.domain.empty() ? node.opType : node.domain + "::" + node.opType));
    if (sources.run) addMetrics(*sources.run, tr("Last run"), info.name);
    if (sources.estimate) addMetrics(*sources.estimate, tr("Estimate (%1)").arg(sources.estimateTarget), info.name);
    if (sources.accuracy) addAccuracy(*sources.accuracy, info.name);
    if (!node.attributes.empty()) {
        QStandardItem* attrs = section(tr("Attributes"));
        for (const auto& [name, attribute] : node.attributes)
            addRow(attrs, QString::fromStdString(name), attributeText(attribute));
    }
    QStandardItem* inputs = section(tr("Inputs"));
    for (const std::string& in : node.inputs)
        if (!in.empty()) addRow(inputs, QString::fromStdString(in), describeValue(data, in));
    QStandardItem* outputs = section(tr("Outputs"));
    for (const std::string& out : node.outputs)
        if (!out.empty()) addRow(outputs, QString::fromStdString(out), describeValue(data, out));
    addWeights(graph, node);
}

void NodeProperties::showBlock(const GraphData& data, const GraphBlock& block, const MetricSources& sources) {
    model_->removeRows(0, model_->rowCount());
    histogram_->setData({});
    QStandardItem* identity = section(tr("Block"));
    addRow(identity, tr("Scope"), block.prefix);
    addRow(identity, tr("Nodes"), QString::number(block.members.size()));
    addRow(identity, tr("Parameters"), formatCount(block.params));
    if (block.macs > 0)
        addRow(identity, tr("MACs"),
               formatCount(block.macs) + (block.macsComplete ? QString() : tr(" (some shapes unknown)")));
    QMap<QString, int> ops;
    std::set<int> members(block.members.begin(), block.members.end());
    for (int v : block.members) ++ops[data.nodes[size_t(v)].opType];
    QList<std::pair<int, QString>> byCount;
    for (auto it = ops.begin(); it != ops.end(); ++it) byCount.append({-it.value(), it.key()});
    std::sort(byCount.begin(), byCount.end());
    // One row per op type: a joined list would be cut in the narrow panel.
    QStandardItem* opTypes = section(tr("Op types"));
    for (const auto& [count, op] : byCount) addRow(opTypes, op, QString::number(-count));
    // Totals of the layers the block holds, each report row once (a fused layer covers several nodes).
    auto totals = [&](const Report& report, const QString& title) {
        const QHash<QString, const LayerRow*> rows = rowsByNode(report);
        QSet<const LayerRow*> seen;
        double time = 0, share = 0;
        int64_t macs = 0;
        for (int v : block.members)
            if (const LayerRow* row = rows.value(data.nodes[size_t(v)].name); row && !seen.contains(row)) {
                seen.insert(row);
                time += std::max(0.0, row->timeUs);
                share += std::max(0.0, row->timePercent);
                macs += row->macs;
            }
        if (seen.isEmpty()) return;
        QStandardItem* s = section(title);
        addRow(s, tr("Layers"), QString::number(seen.size()));
        if (time > 0) addRow(s, tr("Time"), QStringLiteral("%1 (%2 %)").arg(formatMicros(time)).arg(share, 0, 'f', 1));
        if (macs > 0) addRow(s, tr("MACs"), formatCount(macs));
    };
    if (sources.run) totals(*sources.run, tr("Last run"));
    if (sources.estimate) totals(*sources.estimate, tr("Estimate (%1)").arg(sources.estimateTarget));
    // What crosses the block's border: its inputs and outputs as edges to the rest of the graph.
    QStringList in, out;
    for (const GraphEdgeInfo& edge : data.edges) {
        const bool from = members.count(edge.from) > 0, to = members.count(edge.to) > 0;
        if (from == to) continue;
        for (const QString& value : edge.values) {
            QStringList& list = to ? in : out;
            if (!list.contains(value)) list << value;
        }
    }
    QStandardItem* inputs = section(tr("Inputs"));
    for (const QString& value : in) addRow(inputs, value, describeValue(data, value.toStdString()));
    QStandardItem* outputs = section(tr("Outputs"));
    for (const QString& value : out) addRow(outputs, value, describeValue(data, value.toStdString()));
    tree_->expandAll();
    fitKeyColumn();
}

}  // namespace npuwb::ui

#include "views/graph/GraphColoring.h"

#include <QCoreApplication>
#include <QHash>
#include <QMap>

#include <algorithm>
#include <cmath>
#include <optional>

#include "models/Format.h"
#include "models/OpTypeColors.h"

namespace npuwb::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("GraphColoring", text); }

/// Pale yellow to dark red: hot layers stand out and read in grey-scale prints too.
QColor heat(double t) {
    static const QColor stops[] = {QColor(0xff, 0xf3, 0xc4), QColor(0xfd, 0xc0, 0x6a), QColor(0xf4, 0x6d, 0x43),
                                   QColor(0xd7, 0x30, 0x27), QColor(0x80, 0x00, 0x26)};
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, int(t));
    const double f = t - i;
    auto mix = [f](int a, int b) { return int(std::lround(a + (b - a) * f)); };
    return QColor(mix(stops[i].red(), stops[i + 1].red()), mix(stops[i].green(), stops[i + 1].green()),
                  mix(stops[i].blue(), stops[i + 1].blue()));
}

bool isNumeric(GraphMetric m) {
    return m == GraphMetric::Time || m == GraphMetric::TimeShare || m == GraphMetric::Macs ||
           m == GraphMetric::MacUsage;
}

std::optional<double> numberOf(const LayerRow& row, GraphMetric m) {
    switch (m) {
        case GraphMetric::Time: return row.timeUs > 0 ? std::optional(row.timeUs) : std::nullopt;
        case GraphMetric::TimeShare: return row.timeUs > 0 ? std::optional(row.timePercent) : std::nullopt;
        case GraphMetric::Macs: return row.macs > 0 ? std::optional(double(row.macs)) : std::nullopt;
        case GraphMetric::MacUsage: return row.macUsagePercent;
        default: return std::nullopt;
    }
}

QString categoryOf(const LayerRow& row, GraphMetric m) {
    switch (m) {
        case GraphMetric::DataType: return QString::fromStdString(row.dataType);
        case GraphMetric::Target: return QString::fromStdString(row.target);
        case GraphMetric::Bound:
            if (row.target == "CPU") return tr("CPU (not on the NPU)");
            if (!row.cyclesDdr || !row.cyclesNpu) return {};
            return *row.cyclesDdr > *row.cyclesNpu ? tr("memory-bound (DDR)") : tr("compute-bound (NPU)");
        default: return {};
    }
}

bool hasMetric(const Report& report, GraphMetric m) {
    return std::any_of(report.layers.begin(), report.layers.end(), [m](const LayerRow& row) {
        return isNumeric(m) ? numberOf(row, m).has_value() : !categoryOf(row, m).isEmpty();
    });
}

QString formatValue(GraphMetric m, double v) {
    switch (m) {
        case GraphMetric::Time: return formatMicros(v);
        case GraphMetric::Macs: return formatCount(int64_t(std::llround(v)));
        default: return QStringLiteral("%1 %").arg(v, 0, 'f', v < 10 ? 1 : 0);
    }
}

QColor categoryColor(GraphMetric m, const QString& category, int index) {
    if (m == GraphMetric::Target || m == GraphMetric::Bound) {
        if (category.startsWith(QLatin1String("NPU")) || category.startsWith(QLatin1String("compute")))
            return QColor(0x4e, 0x79, 0xa7);
        if (category.startsWith(QLatin1String("memory"))) return QColor(0xf2, 0x8e, 0x2b);
        if (category.startsWith(QLatin1String("CPU"))) return QColor(0xb0, 0x7a, 0xa1);
    }
    static const QColor palette[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
                                     QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                                     QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7)};
    return palette[index % 8];
}

}  // namespace

QString metricTitle(GraphMetric metric) {
    switch (metric) {
        case GraphMetric::OpType: return tr("Op type");
        case GraphMetric::Time: return tr("Time");
        case GraphMetric::TimeShare: return tr("Share of time");
        case GraphMetric::Macs: return tr("MACs");
        case GraphMetric::MacUsage: return tr("MAC utilisation");
        case GraphMetric::DataType: return tr("Data type");
        case GraphMetric::Target: return tr("Target (NPU/CPU)");
        case GraphMetric::Bound: return tr("Estimated bound");
        case GraphMetric::QuantError: return tr("Quantization error (SNR)");
        case GraphMetric::Precision: return tr("Precision (quantized)");
    }
    return {};
}

QColor missingMetricColor() { return QColor(0xd9, 0xd9, 0xd9); }

QColor heatColor(double t) { return heat(t); }

QHash<QString, const LayerRow*> rowsByNode(const Report& report) {
    QHash<QString, const LayerRow*> rows;
    for (const LayerRow& row : report.layers) {
        if (!row.fusedInto.empty()) continue;  // its layer's row below names it
        rows.insert(QString::fromStdString(row.fullName), &row);
        for (const std::string& fused : row.fusedNodes) rows.insert(QString::fromStdString(fused), &row);
    }
    return rows;
}

/// Quantization error (SNR of the layer alone, else of the model up to it; low is bad) or precision, from the last
/// accuracy analysis.
static NodeColors colorByAccuracy(const GraphData& data, GraphMetric metric, const AccuracySection* accuracy) {
    NodeColors out;
    out.colors.assign(data.nodes.size(), missingMetricColor());
    if (!accuracy || accuracy->layers.empty()) {
        out.source =
            tr("no accuracy analysis yet: quantize the model (Ctrl+Shift+Q) to colour by %1").arg(metricTitle(metric));
        return out;
    }
    out.source = tr("accuracy analysis, %1 samples").arg(accuracy->samples);
    constexpr double kWorstDb = 0.0, kBestDb = 40.0;  // 40 dB and up read as clean, 0 dB as noise
    QStringList categories;
    for (const AccuracyLayer& layer : accuracy->layers) {
        const int v = data.nodeOfName.value(QString::fromStdString(layer.fullName), -1);
        if (v < 0 || data.nodes[size_t(v)].kind != GraphNodeInfo::Kind::Op) continue;
        if (metric == GraphMetric::QuantError) {
            const auto snr = layer.singleSnrDb ? layer.singleSnrDb : layer.entireSnrDb;
            if (!snr) continue;
            out.colors[size_t(v)] = heat(1.0 - (*snr - kWorstDb) / (kBestDb - kWorstDb));
        } else {
            const QString category = QString::fromStdString(layer.precision);
            if (category.isEmpty()) continue;
            if (!categories.contains(category)) categories.append(category);
            out.colors[size_t(v)] = categoryColor(metric, category, int(categories.indexOf(category)));
        }
        ++out.coloured;
    }
    if (metric == GraphMetric::QuantError) {
        for (int i = 4; i >= 0; --i)
            out.legend.push_back({heat(1.0 - i / 4.0), QStringLiteral("%1%2 dB")
                                                           .arg(i == 4   ? QStringLiteral("≥")
                                                                : i == 0 ? QStringLiteral("≤")
                                                                         : QString())
                                                           .arg(kWorstDb + i * (kBestDb - kWorstDb) / 4)});
    } else {
        for (int i = 0; i < categories.size(); ++i)
            out.legend.push_back({categoryColor(metric, categories[i], i), categories[i]});
    }
    out.legend.push_back({missingMetricColor(), tr("no value")});
    return out;
}

NodeColors colorNodes(const GraphData& data, GraphMetric metric, const MetricSources& sources) {
    if (metric == GraphMetric::QuantError || metric == GraphMetric::Precision)
        return colorByAccuracy(data, metric, sources.accuracy);
    NodeColors out;
    out.colors.assign(data.nodes.size(), missingMetricColor());
    if (metric == GraphMetric::OpType) {
        QMap<QString, int> counts;
        for (size_t v = 0; v < data.nodes.size(); ++v) {
            if (data.nodes[v].kind != GraphNodeInfo::Kind::Op) continue;
            out.colors[v] = opTypeColor(data.nodes[v].opType);
            ++counts[data.nodes[v].opType];
            ++out.coloured;
        }
        QList<std::pair<int, QString>> byCount;
        for (auto it = counts.begin(); it != counts.end(); ++it) byCount.append({-it.value(), it.key()});
        std::sort(byCount.begin(), byCount.end());
        for (const auto& [negativeCount, op] : byCount)  // every op type: the legend wraps, it never drops one
            out.legend.push_back({opTypeColor(op), QStringLiteral("%1 ×%2").arg(op).arg(-negativeCount)});
        out.source = tr("the model");
        return out;
    }
    // Where the place and cost on the chip are asked, the estimate answers first; times come from a run first.
    const bool chipFirst =
        metric == GraphMetric::Target || metric == GraphMetric::Bound || metric == GraphMetric::MacUsage;
    std::vector<std::pair<const Report*, QString>> candidates = {
        {sources.run, tr("last run")}, {sources.estimate, tr("estimate on %1").arg(sources.estimateTarget)}};
    if (chipFirst) std::swap(candidates[0], candidates[1]);
    const Report* report = nullptr;
    for (const auto& [candidate, name] : candidates)
        if (candidate && hasMetric(*candidate, metric)) {
            report = candidate;
            out.source = name;
            break;
        }
    if (!report) {
        out.source = metric == GraphMetric::Time || metric == GraphMetric::TimeShare
                         ? tr("no run yet: Run (F5) or Estimate to colour by %1").arg(metricTitle(metric))
                         : tr("no run or estimate has %1").arg(metricTitle(metric));
        return out;
    }
    const QHash<QString, const LayerRow*> rows = rowsByNode(*report);
    if (isNumeric(metric)) {
        double maxValue = 0.0;
        for (const LayerRow& row : report->layers) maxValue = std::max(maxValue, numberOf(row, metric).value_or(0.0));
        // MACs span orders of magnitude: a log scale keeps small layers apart from zero.
        const bool logScale = metric == GraphMetric::Macs;
        auto scaled = [&](double v) {
            if (maxValue <= 0) return 0.0;
            return logScale ? std::log1p(v) / std::log1p(maxValue) : v / maxValue;
        };
        for (size_t v = 0; v < data.nodes.size(); ++v) {
            const LayerRow* row = rows.value(data.nodes[v].name);
            const auto value = row ? numberOf(*row, metric) : std::nullopt;
            if (!value || data.nodes[v].kind != GraphNodeInfo::Kind::Op) continue;
            out.colors[v] = heat(scaled(*value));
            ++out.coloured;
        }
        for (int i = 0; i <= 4; ++i) {
            const double t = i / 4.0;
            const double value = logScale ? std::expm1(t * std::log1p(maxValue)) : t * maxValue;
            out.legend.push_back({heat(t), formatValue(metric, value)});
        }
    } else {
        QStringList categories;
        for (size_t v = 0; v < data.nodes.size(); ++v) {
            const LayerRow* row = rows.value(data.nodes[v].name);
            const QString category = row ? categoryOf(*row, metric) : QString();
            if (category.isEmpty() || data.nodes[v].kind != GraphNodeInfo::Kind::Op) continue;
            if (!categories.contains(category)) categories.append(category);
            out.colors[v] = categoryColor(metric, category, int(categories.indexOf(category)));
            ++out.coloured;
        }
        for (int i = 0; i < categories.size(); ++i)
            out.legend.push_back({categoryColor(metric, categories[i], i), categories[i]});
    }
    out.legend.push_back({missingMetricColor(), tr("no value")});
    return out;
}

QString legendHtml(GraphMetric metric, const NodeColors& colors) {
    QString html = tr("<b>%1</b> (%2):").arg(metricTitle(metric).toHtmlEscaped(), colors.source.toHtmlEscaped());
    std::vector<std::pair<QString, QColor>> entries;  // lines break between entries only, never in "Resize ×6"
    for (const auto& [color, text] : colors.legend) entries.emplace_back(text, color);
    return html + colourLegendHtml(entries);
}

std::vector<QStringList> fusedLayerGroups(const std::vector<QStringList>* estimateLayerNodes, const Report* run) {
    std::vector<QStringList> groups;
    if (estimateLayerNodes) {
        for (const QStringList& nodes : *estimateLayerNodes)
            if (nodes.size() > 1) groups.push_back(nodes);
        return groups;
    }
    if (run)
        for (const LayerRow& row : run->layers) {
            if (row.fusedNodes.empty()) continue;
            QStringList nodes{QString::fromStdString(row.fullName)};
            for (const std::string& f : row.fusedNodes) nodes << QString::fromStdString(f);
            groups.push_back(nodes);
        }
    return groups;
}

}  // namespace npuwb::ui

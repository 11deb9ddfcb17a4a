#include "models/LayerTableModel.h"

#include <QColor>

#include <algorithm>

#include "models/Format.h"
#include "models/OpTypeColors.h"

namespace npuwb::ui {

void LayerTableModel::setLayers(std::vector<LayerRow> layers, bool timed, const std::vector<RemovedLayer>& removed) {
    beginResetModel();
    layers_ = std::move(layers);
    removedBy_.assign(layers_.size(), std::string());
    for (const RemovedLayer& node : removed) {
        LayerRow row;
        row.id = node.id;
        row.fullName = node.fullName;
        row.opType = node.opType;
        row.target = std::string();  // it ran nowhere
        layers_.push_back(std::move(row));
        removedBy_.push_back(node.removedBy);
    }
    timed_ = timed;
    rowOfName_.clear();
    for (size_t i = 0; i < layers_.size(); ++i) rowOfName_.emplace(layers_[i].fullName, i);
    endResetModel();
}

const std::string& LayerTableModel::removedBy(int row) const {
    static const std::string none;
    return row >= 0 && size_t(row) < removedBy_.size() ? removedBy_[size_t(row)] : none;
}

bool LayerTableModel::hasVendorColumns() const {
    return std::any_of(layers_.begin(), layers_.end(),
                       [](const LayerRow& l) { return l.cyclesTotal || l.cyclesNpu || l.macUsagePercent; });
}

int LayerTableModel::rowOfLayer(int id) const {
    for (size_t i = 0; i < layers_.size(); ++i) {
        if (layers_[i].id != id) continue;
        if (auto it = rowOfName_.find(layers_[i].fusedInto); !layers_[i].fusedInto.empty() && it != rowOfName_.end())
            return int(it->second);
        return int(i);
    }
    return -1;
}

int64_t LayerTableModel::layerMacs(const LayerRow& row) const {
    int64_t macs = row.macs;
    for (const std::string& name : row.fusedNodes)
        if (auto it = rowOfName_.find(name); it != rowOfName_.end()) macs += layers_[it->second].macs;
    return macs;
}

const std::vector<std::vector<int64_t>>& LayerTableModel::layerOutputShapes(const LayerRow& row) const {
    if (row.fusedNodes.empty()) return row.outputShapes;
    auto last = rowOfName_.find(row.fusedNodes.back());
    return last == rowOfName_.end() ? row.outputShapes : layers_[last->second].outputShapes;
}

QString LayerTableModel::opTypeText(const LayerRow& row) const {
    QString text = QString::fromStdString(row.opType);
    for (const std::string& name : row.fusedNodes)
        if (auto it = rowOfName_.find(name); it != rowOfName_.end())
            text += QLatin1Char('+') + QString::fromStdString(layers_[it->second].opType);
    return text;
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(layers_.size());
}

int LayerTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayerTableModel::display(const LayerRow& row, int column) const {
    const bool timeColumn = column == TimeColumn || column == TimeMinColumn || column == TimePercentColumn;
    if (timeColumn && !timed_) return {};  // not run yet: an empty cell, not a misleading 0
    switch (column) {
        case IdColumn: return qlonglong(row.id);
        case NameColumn: return QString::fromStdString(row.fullName);
        case OpTypeColumn: return opTypeText(row);
        case DataTypeColumn: return QString::fromStdString(row.dataType);
        case TargetColumn: return QString::fromStdString(row.target);
        case InputShapesColumn: return formatShapes(row.inputShapes);
        case OutputShapesColumn: return formatShapes(layerOutputShapes(row));
        case MacsColumn: return layerMacs(row) > 0 ? formatCount(layerMacs(row)) : QString();
        case ReadWriteColumn: return timed_ ? QString::number(row.rwKB(), 'f', 1) : QString();  // measured by runs
        case TimeColumn: return QString::number(row.timeUs, 'f', 1);
        case TimeMinColumn: return QString::number(row.timeUsMin, 'f', 1);
        case TimePercentColumn: return QString::number(row.timePercent, 'f', 1);
        case CyclesColumn: {
            if (!row.cyclesDdr && !row.cyclesNpu && !row.cyclesTotal) return {};
            const auto text = [](const std::optional<int64_t>& c) { return c ? QString::number(*c) : QStringLiteral("-"); };
            return QStringLiteral("%1 / %2 / %3").arg(text(row.cyclesDdr), text(row.cyclesNpu), text(row.cyclesTotal));
        }
        case MacUsageColumn: return row.macUsagePercent ? QString::number(*row.macUsagePercent, 'f', 2) : QString();
    }
    return {};
}

QVariant LayerTableModel::sortKey(const LayerRow& row, int column) const {
    switch (column) {
        case IdColumn: return qlonglong(row.id);
        case MacsColumn: return qlonglong(layerMacs(row));
        case ReadWriteColumn: return row.rwKB();
        case TimeColumn: return row.timeUs;
        case TimeMinColumn: return row.timeUsMin;
        case TimePercentColumn: return row.timePercent;
        case CyclesColumn: return qlonglong(row.cyclesTotal.value_or(-1));
        case MacUsageColumn: return row.macUsagePercent.value_or(-1.0);
        default: return display(row, column);
    }
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const LayerRow& row = layers_[size_t(index.row())];
    if (const std::string& by = removedBy(index.row()); !by.empty()) {
        // A node that ran as no step of its own: it says so in the time column, and sorts below every timed row.
        const bool timeColumn = index.column() == TimeColumn;
        switch (role) {
            case Qt::DisplayRole:
                if (timeColumn) return tr("removed");
                if (index.column() == TimePercentColumn || index.column() == TimeMinColumn) return {};
                break;
            case SortRole:
                if (timeColumn || index.column() == TimePercentColumn || index.column() == TimeMinColumn) return -1.0;
                break;
            case Qt::ForegroundRole: return QColor(Qt::gray);
            case Qt::ToolTipRole:
                return tr("%1 (%2)\nRemoved before the run by the exact rewrite %3: no step and no time of its own; "
                          "it keeps its ID")
                    .arg(QString::fromStdString(row.fullName), QString::fromStdString(row.opType),
                         QString::fromStdString(by));
            default: break;
        }
    }
    switch (role) {
        case Qt::DisplayRole: return display(row, index.column());
        case SortRole: return sortKey(row, index.column());
        case LayerIdRole: return int(row.id);
        case Qt::ToolTipRole:
            if (index.column() == NameColumn || index.column() == OpTypeColumn) {
                QString tip = QStringLiteral("%1 (%2)").arg(QString::fromStdString(row.fullName), opTypeText(row));
                if (!row.fusedNodes.empty()) {
                    tip += tr("\nOne fused kernel; its time is this row's. Fused into it:");
                    for (const std::string& name : row.fusedNodes)
                        tip += QStringLiteral("\n  ") + QString::fromStdString(name);
                }
                if (!row.fusedInto.empty())
                    tip += tr("\nRan inside the fused layer %1: its time is that row's").arg(
                        QString::fromStdString(row.fusedInto));
                return tip;
            }
            if (index.column() == InputShapesColumn || index.column() == OutputShapesColumn)
                return display(row, index.column());  // the column may be narrower than the shapes
            return {};
        case Qt::DecorationRole:
            if (index.column() == OpTypeColumn) return opTypeColor(QString::fromStdString(row.opType));
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == IdColumn || (index.column() >= TimeColumn && index.column() <= ReadWriteColumn))
                return int(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        static const char* const titles[ColumnCount] = {
            "ID",  "Name",    "Op type", "Time (µs)", "Time (%)",  "Min (µs)", "Cycles (DDR/NPU/Total)",
            "MacUsage (%)", "MACs", "RW (KB)", "Data type", "Target", "Input shape", "Output shape"};
        return tr(titles[section]);
    }
    if (role == Qt::ToolTipRole && section == TimeColumn) return tr("Median over the timed runs");
    if (role == Qt::ToolTipRole && section == CyclesColumn)
        return tr("Cycles per layer as the NPU runtime's perf detail reports them (DDR / NPU / total)");
    if (role == Qt::ToolTipRole && section == MacUsageColumn)
        return tr("Share of the NPU's MAC units the layer kept busy (the runtime's perf detail)");
    return {};
}

}  // namespace npuwb::ui

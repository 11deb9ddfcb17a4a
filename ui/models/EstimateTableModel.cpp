#include "models/EstimateTableModel.h"

#include <QColor>
#include <QStringList>

#include <algorithm>

#include "models/Format.h"

namespace npuwb::ui {

void EstimateTableModel::setLayers(std::vector<LayerRow> layers, std::vector<int> ids, int chipCores, int cores) {
    beginResetModel();
    layers_ = std::move(layers);
    ids_ = std::move(ids);
    ids_.resize(layers_.size(), -1);
    chipCores_ = std::max(0, chipCores);
    cores_ = std::clamp(cores, 0, chipCores_);
    endResetModel();
}

QString EstimateTableModel::idText(int row) const {
    if (row < 0 || row >= int(layers_.size())) return {};
    return ids_[size_t(row)] >= 0 ? QString::number(ids_[size_t(row)]) : QStringLiteral("(%1)").arg(row);
}

QString EstimateTableModel::workLoad(const LayerRow& row) const {
    QStringList shares;
    const bool npu = row.target == "NPU" && cores_ > 0;
    for (int core = 0; core < chipCores_; ++core)
        shares << QString::number(npu && core < cores_ ? 100.0 / cores_ : 0.0, 'f', 1) + QLatin1Char('%');
    return shares.join(QLatin1Char('/'));
}

int EstimateTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(layers_.size());
}

int EstimateTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EstimateTableModel::display(int r, int column) const {
    const LayerRow& row = layers_[size_t(r)];
    switch (column) {
        case IdColumn: return idText(r);
        case OpTypeColumn: return QString::fromStdString(row.opType);
        case TargetColumn: return QString::fromStdString(row.target);
        case DataTypeColumn: return QString::fromStdString(row.dataType);
        case InputShapeColumn: return row.inputShapes.empty() ? QString() : formatShape(row.inputShapes.front());
        case OutputShapeColumn: return formatShapes(row.outputShapes);
        case CyclesColumn: {
            const auto text = [](const std::optional<int64_t>& c) {
                return c ? QString::number(*c) : QStringLiteral("0");
            };
            return QStringLiteral("%1/%2/%3").arg(text(row.cyclesDdr), text(row.cyclesNpu), text(row.cyclesTotal));
        }
        case TimeColumn: return QString::number(row.timeUs, 'f', 1);
        case MacUsageColumn: return row.macUsagePercent ? QString::number(*row.macUsagePercent, 'f', 2) : QString();
        case WorkLoadColumn: return workLoad(row);
        case ReadWriteColumn: return QString::number(row.rwKB(), 'f', 1);
        case FullNameColumn: return QString::fromStdString(row.fullName);
    }
    return {};
}

QVariant EstimateTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const LayerRow& row = layers_[size_t(index.row())];
    switch (role) {
        case Qt::DisplayRole: return display(index.row(), index.column());
        case SortRole:
            switch (index.column()) {
                case IdColumn:  // rows without a Layers ID after those with one
                    return ids_[size_t(index.row())] >= 0 ? ids_[size_t(index.row())] : 1000000 + index.row();
                case CyclesColumn: return qlonglong(row.cyclesTotal.value_or(0));
                case TimeColumn: return row.timeUs;
                case MacUsageColumn: return row.macUsagePercent.value_or(-1.0);
                case ReadWriteColumn: return row.rwKB();
                default: return display(index.row(), index.column());
            }
        case EstimateRowRole: return index.row();
        case Qt::ToolTipRole:
            if (index.column() == FullNameColumn || index.column() == OpTypeColumn) {
                if (row.fusedNodes.empty()) return QString::fromStdString(row.fullName);
                QStringList fused;
                for (const std::string& n : row.fusedNodes) fused << QString::fromStdString(n);
                return tr("%1, fused with %2").arg(QString::fromStdString(row.fullName), fused.join(QStringLiteral(", ")));
            }
            if (index.column() == CyclesColumn && row.cyclesDdr && row.cyclesNpu && row.cyclesTotal) {
                // The total in numbers, so the three figures visibly add up.
                const int64_t bound = std::max(*row.cyclesDdr, *row.cyclesNpu);
                return tr("%1\nTotal %2 = max(DDR %3, NPU %4) + %5 per-layer overhead")
                    .arg(*row.cyclesDdr > *row.cyclesNpu ? tr("Bandwidth-bound: more DDR than NPU cycles")
                                                         : tr("Compute-bound: more NPU than DDR cycles"))
                    .arg(*row.cyclesTotal)
                    .arg(*row.cyclesDdr)
                    .arg(*row.cyclesNpu)
                    .arg(*row.cyclesTotal - bound);
            }
            if (index.column() == IdColumn && ids_[size_t(index.row())] < 0)
                return tr("Not a row of the Layers table: estimate layer %1").arg(index.row());
            return {};
        case Qt::ForegroundRole:
            if (index.column() == TargetColumn && row.target != "NPU") return QColor(0xd0, 0x60, 0x00);
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == IdColumn || index.column() == TimeColumn || index.column() == MacUsageColumn ||
                index.column() == ReadWriteColumn || index.column() == CyclesColumn)
                return int(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant EstimateTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        // RKNN's own column titles (eval_perf / perf_detail), so the table reads like a board's log.
        static const char* const titles[ColumnCount] = {
            "ID", "OpType", "Target", "DataType", "InputShape", "OutputShape", "Cycles(DDR/NPU/Total)", "Time(us)",
            "MacUsage(%)", "WorkLoad", "RW(KB)", "FullName"};
        return QString::fromLatin1(titles[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case IdColumn: return tr("The layer's ID in the Layers table (the anchor node's)");
            case WorkLoadColumn: return tr("Share of the layer's work per NPU core, as the estimate spreads it");
            case CyclesColumn:
                return tr("Estimated DDR, NPU and total cycles at the chip's NPU clock. Memory traffic and compute "
                          "overlap, so total = max(DDR, NPU) + a fixed per-layer overhead (the layer's setup, fitted "
                          "on real boards, paid once per pass over the data); time = total / clock");
            default: return {};
        }
    }
    return {};
}

}  // namespace npuwb::ui

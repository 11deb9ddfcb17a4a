#include "models/PartitionTableModel.h"

#include <QBrush>

#include "models/Format.h"

namespace npuwb::ui {

QColor PartitionTableModel::stageColor(int64_t stage) {
    // Tableau 20: ten hues, then lighter versions of them; all readable under black text.
    static const QColor palette[] = {
        QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59),
        QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48), QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
        QColor(0x9c, 0x75, 0x5f), QColor(0xba, 0xb0, 0xac), QColor(0xa0, 0xcb, 0xe8), QColor(0xff, 0xbe, 0x7d),
        QColor(0x8c, 0xd1, 0x7d), QColor(0xff, 0x9f, 0x9b), QColor(0x86, 0xbc, 0xb6), QColor(0xf1, 0xce, 0x63),
        QColor(0xd4, 0xa6, 0xc8), QColor(0xfa, 0xbf, 0xd2), QColor(0xd7, 0xb5, 0xa6), QColor(0x79, 0x70, 0x6e)};
    constexpr int64_t count = sizeof palette / sizeof palette[0];
    return palette[((stage % count) + count) % count];
}

void PartitionTableModel::setPartition(const PartitionSection& partition) {
    beginResetModel();
    partition_ = partition;
    rowOfNode_.clear();
    stageOfNode_.clear();
    for (size_t i = 0; i < partition_.assignments.size(); ++i)
        rowOfNode_.insert(QString::fromStdString(partition_.assignments[i].node), static_cast<int>(i));
    for (const PartitionStage& stage : partition_.stages)
        for (const std::string& node : stage.nodes) stageOfNode_.insert(QString::fromStdString(node), stage.id);
    endResetModel();
}

int64_t PartitionTableModel::stageOfRow(int row) const {
    if (row < 0 || row >= rowCount()) return -1;
    return stageOfNode_.value(QString::fromStdString(partition_.assignments[static_cast<size_t>(row)].node), -1);
}

int PartitionTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(partition_.assignments.size());
}

int PartitionTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PartitionTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const PartitionAssignment& a = partition_.assignments[static_cast<size_t>(index.row())];
    const int64_t stage = stageOfRow(index.row());
    const auto cost = a.costUs.find(a.unit);
    const double timeUs = cost != a.costUs.end() ? cost->second : 0.0;
    if (role == SortRole) {
        switch (index.column()) {
            case OrderColumn: return index.row();
            case StageColumn: return static_cast<qlonglong>(stage);
            case TimeColumn: return timeUs;
            default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::BackgroundRole && (index.column() == UnitColumn || index.column() == StageColumn) && stage >= 0)
        return QBrush(stageColor(stage).lighter(150));
    if (role == Qt::TextAlignmentRole && (index.column() == OrderColumn || index.column() == TimeColumn))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        QStringList costs;
        for (const auto& [unit, us] : a.costUs) costs << tr("%1: %2").arg(QString::fromStdString(unit), formatMicros(us));
        return tr("%1\n%2\npredicted time per unit: %3")
            .arg(QString::fromStdString(a.node), QString::fromStdString(a.reason), costs.join(QStringLiteral(", ")));
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case OrderColumn: return index.row();
        case NodeColumn: return QString::fromStdString(a.node);
        case OpColumn: return QString::fromStdString(a.opType);
        case ClassColumn: return QString::fromStdString(a.opClass);
        case UnitColumn: return QString::fromStdString(a.unit);
        case StageColumn: return stage >= 0 ? QStringLiteral("s%1").arg(stage) : QStringLiteral("–");
        case StepColumn: return QString::fromStdString(a.step);
        case TimeColumn: return cost != a.costUs.end() ? formatMicros(timeUs) : QStringLiteral("–");
        case ReasonColumn: return QString::fromStdString(a.reason);
        default: return {};
    }
}

QVariant PartitionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
        case OrderColumn: return tr("#");
        case NodeColumn: return tr("Node");
        case OpColumn: return tr("Op");
        case ClassColumn: return tr("Class");
        case UnitColumn: return tr("Unit");
        case StageColumn: return tr("Stage");
        case StepColumn: return tr("Step");
        case TimeColumn: return tr("Time on unit");
        case ReasonColumn: return tr("Reason");
        default: return {};
    }
}

}  // namespace npuwb::ui

#pragma once
// A heterogeneous partition's placement as a sortable Qt table: every node in execution order with its op, op
// class, the unit and stage it runs in, the planning step that put it there (affinity, locality, balance) and why,
// and its predicted time on that unit. The stage colours are the Timeline's bar colours.
#include <QAbstractTableModel>
#include <QColor>
#include <QHash>

#include <cstdint>

#include "npuwb/Report.h"

namespace npuwb::ui {

class PartitionTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { OrderColumn, NodeColumn, OpColumn, ClassColumn, UnitColumn, StageColumn, StepColumn, TimeColumn,
                  ReasonColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    using QAbstractTableModel::QAbstractTableModel;

    /// Replaces the rows (an empty section clears the table).
    void setPartition(const PartitionSection& partition);
    const PartitionSection& partition() const { return partition_; }
    /// Row of a node by name, -1 when absent.
    int rowOfNode(const QString& name) const { return rowOfNode_.value(name, -1); }
    /// Stage (PartitionStage::id) a row's node runs in, -1 when none.
    int64_t stageOfRow(int row) const;

    /// One colour per stage, the same in the table and in every timeline.
    static QColor stageColor(int64_t stage);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    PartitionSection partition_;
    QHash<QString, int> rowOfNode_;
    QHash<QString, int64_t> stageOfNode_;
};

}  // namespace npuwb::ui

#pragma once
// The estimate per layer in the columns of RKNN's eval_perf table (ID OpType Target DataType InputShape OutputShape
// Cycles(DDR/NPU/Total) Time(us) MacUsage(%) WorkLoad RW(KB) FullName), so it reads like a board's perf log. The ID
// is the layer's LayerRow::id in the Layers table (the run report's), not the estimate's own row number, so a layer
// has one ID in every tab.
#include <QAbstractTableModel>

#include <vector>

#include "npuwb/Report.h"

namespace npuwb::ui {

class EstimateTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn, OpTypeColumn, TargetColumn, DataTypeColumn, InputShapeColumn, OutputShapeColumn, CyclesColumn,
        TimeColumn, MacUsageColumn, WorkLoadColumn, ReadWriteColumn, FullNameColumn, ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers as numbers
        EstimateRowRole,              // index into the estimate's layers, stable under sorting
    };

    using QAbstractTableModel::QAbstractTableModel;

    /// `ids[i]` is layers[i]'s ID in the Layers table (-1: none, the estimate's row number is shown in brackets);
    /// `chipCores` NPU cores of which the estimate spreads each NPU layer over `cores` (the WorkLoad column).
    void setLayers(std::vector<LayerRow> layers, std::vector<int> ids, int chipCores, int cores);
    void clear() { setLayers({}, {}, 0, 0); }
    const std::vector<LayerRow>& layers() const { return layers_; }
    /// The source row of estimate layer `row` is that row itself; exposed for symmetry with the charts.
    int layerId(int row) const { return row >= 0 && row < int(ids_.size()) ? ids_[size_t(row)] : -1; }
    /// "16" or "(3)" when the layer has no row in the Layers table: what bars and tooltips call the layer.
    QString idText(int row) const;
    /// The RKNN workload text of a row: "100.0%/0.0%/0.0%".
    QString workLoad(const LayerRow& row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(int row, int column) const;

    std::vector<LayerRow> layers_;
    std::vector<int> ids_;
    int chipCores_ = 0;
    int cores_ = 0;
};

}  // namespace npuwb::ui

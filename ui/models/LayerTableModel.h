#pragma once
// Per-layer rows of a model or a profile report as a Qt table (columns follow RKNN's eval_perf names).
#include <QAbstractTableModel>

#include <string>
#include <unordered_map>
#include <vector>

#include "npuwb/Report.h"

namespace npuwb::ui {

class LayerTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        // Times right after the op type: they are what a reader looks for, and must not need scrolling.
        IdColumn,
        NameColumn,
        OpTypeColumn,
        TimeColumn,
        TimePercentColumn,
        TimeMinColumn,
        CyclesColumn,    // the vendor runtime's perf detail (and estimates): DDR / NPU / total cycles
        MacUsageColumn,  // the vendor runtime's MacUsage (%)
        MacsColumn,
        ReadWriteColumn,
        DataTypeColumn,
        TargetColumn,
        InputShapesColumn,
        OutputShapesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers as numbers, so sorting by time or MACs is numeric
        LayerIdRole,                  // LayerRow::id of the row, for the shared LayerSelection
    };

    using QAbstractTableModel::QAbstractTableModel;

    /// `timed`: the rows come from a run; false for the static rows of a freshly opened model. `removed`: the
    /// model's nodes the run's exact rewrites removed, listed after the rows with their IDs and the rewrite's name.
    void setLayers(std::vector<LayerRow> layers, bool timed, const std::vector<RemovedLayer>& removed = {});
    void clear() { setLayers({}, false); }
    const std::vector<LayerRow>& layers() const { return layers_; }
    bool isTimed() const { return timed_; }
    /// The rewrite that removed this row's node before the run ("remove_identity"), empty for a row that ran.
    const std::string& removedBy(int row) const;
    /// Some row has the vendor's perf columns (cycles or MacUsage): a board runtime's report, a vendor log or an
    /// estimate. Views hide those columns otherwise.
    bool hasVendorColumns() const;
    /// Row of the layer with this id (for a node fused into another layer, that layer's row), -1 when absent.
    int rowOfLayer(int id) const;
    /// The op types of a fused layer joined in graph order ("Conv+Relu", as the vendor names fused layers), else
    /// the row's own.
    QString opTypeText(const LayerRow& row) const;
    /// A fused layer's MACs (its nodes' sum) and outputs (its last node's); else the row's own.
    int64_t layerMacs(const LayerRow& row) const;
    const std::vector<std::vector<int64_t>>& layerOutputShapes(const LayerRow& row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const LayerRow& row, int column) const;
    QVariant sortKey(const LayerRow& row, int column) const;

    std::vector<LayerRow> layers_;
    std::unordered_map<std::string, size_t> rowOfName_;
    std::vector<std::string> removedBy_;  // per row
    bool timed_ = false;
};

}  // namespace npuwb::ui

#pragma once
// The points of a matmul benchmark sweep as a table: sizes, measured time and throughput (on the CPU, or on a
// board's NPU), the layout conversions, the kernel that ran, and the cost model's NPU estimate with its share of the
// chip's peak; for a board's sweep also where it ran, the core mask and the estimate over the measured time.
#include <QAbstractTableModel>

#include <memory>

#include "npuwb/MatmulBench.h"

namespace npuwb::ui {

class MatmulBenchModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        MColumn, KColumn, NColumn, CpuTimeColumn, CpuGopsColumn, BToNativeColumn, AcConversionColumn, BackendColumn,
        NpuTimeColumn, NpuGopsColumn, PeakPercentColumn, MeasuredOnColumn, CoreMaskColumn, PredictedOverMeasuredColumn,
        ColumnCount
    };
    /// Numbers for sorting and tests (Qt::DisplayRole is formatted text).
    static constexpr int ValueRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    void setResult(std::shared_ptr<const MatmulBenchResult> result);
    const MatmulBenchResult* result() const { return result_.get(); }
    /// The result was measured on a board's NPU: the board columns apply (the view hides them otherwise).
    bool measuredOnBoard() const { return result_ && result_->measuredOn != "cpu"; }
    static bool isBoardColumn(int column) { return column >= MeasuredOnColumn && column < ColumnCount; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant value(const MatmulBenchPoint& point, int column) const;

    std::shared_ptr<const MatmulBenchResult> result_;
};

}  // namespace npuwb::ui

#pragma once
// The planned activation tensors of a run (Report::memory.tensors) as a sortable table: name, the layer that makes
// it (LayerRow with id == firstStep), bytes, arena offset, first and last step. Also the figures the Memory view
// draws from them: live bytes per execution step and the step where they peak.
#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

#include "npuwb/Report.h"

namespace npuwb::ui {

class TensorLifetimeModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ProducerColumn, BytesColumn, OffsetColumn, FirstStepColumn, LastStepColumn,
                  ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    using QAbstractTableModel::QAbstractTableModel;

    /// Replaces the rows with the report's tensors; `layers` name their producers.
    void setReport(const MemorySummary& memory, const std::vector<LayerRow>& layers);
    const std::vector<TensorLifetime>& tensors() const { return tensors_; }
    /// Layer id (LayerRow::id) that produced a row's tensor, -1 when no row of the report has that step.
    int producerOfRow(int row) const;
    /// Rows whose tensor the layer `id` produced.
    std::vector<int> rowsOfProducer(int id) const;

    /// Sum of the bytes of the tensors live at each step (index = step, 0..last step).
    const std::vector<int64_t>& liveBytes() const { return live_; }
    /// The first step where liveBytes() is largest, -1 without tensors.
    int64_t peakStep() const { return peakStep_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<TensorLifetime> tensors_;
    std::vector<int> producer_;        // per row
    std::vector<QString> producerName_;
    std::vector<int64_t> live_;
    int64_t peakStep_ = -1;
};

}  // namespace npuwb::ui

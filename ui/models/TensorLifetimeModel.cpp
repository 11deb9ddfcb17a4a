#include "models/TensorLifetimeModel.h"

#include <algorithm>
#include <map>

#include "models/Format.h"

namespace npuwb::ui {

void TensorLifetimeModel::setReport(const MemorySummary& memory, const std::vector<LayerRow>& layers) {
    beginResetModel();
    tensors_ = memory.tensors;
    // A profile's rows are its execution steps in order; their IDs are the model's layer IDs, not steps.
    std::map<int64_t, const LayerRow*> byStep;
    for (size_t step = 0; step < layers.size(); ++step) byStep[int64_t(step)] = &layers[step];
    producer_.clear();
    producerName_.clear();
    int64_t lastStep = -1;
    for (const TensorLifetime& t : tensors_) {
        const auto it = byStep.find(t.firstStep);
        producer_.push_back(it == byStep.end() ? -1 : static_cast<int>(it->second->id));
        producerName_.push_back(it == byStep.end() ? QString() : QString::fromStdString(it->second->fullName));
        lastStep = std::max(lastStep, t.lastStep);
    }
    live_.assign(static_cast<size_t>(lastStep + 1), 0);
    for (const TensorLifetime& t : tensors_)
        for (int64_t s = std::max<int64_t>(0, t.firstStep); s <= t.lastStep; ++s)
            live_[static_cast<size_t>(s)] += t.bytes;
    peakStep_ = live_.empty() ? -1 : std::max_element(live_.begin(), live_.end()) - live_.begin();
    endResetModel();
}

int TensorLifetimeModel::producerOfRow(int row) const {
    return row >= 0 && row < static_cast<int>(producer_.size()) ? producer_[static_cast<size_t>(row)] : -1;
}

std::vector<int> TensorLifetimeModel::rowsOfProducer(int id) const {
    std::vector<int> rows;
    for (size_t i = 0; i < producer_.size(); ++i)
        if (id >= 0 && producer_[i] == id) rows.push_back(static_cast<int>(i));
    return rows;
}

int TensorLifetimeModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(tensors_.size());
}

int TensorLifetimeModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TensorLifetimeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const size_t row = static_cast<size_t>(index.row());
    const TensorLifetime& t = tensors_[row];
    if (role == SortRole) {
        switch (index.column()) {
            case NameColumn: return QString::fromStdString(t.name);
            case ProducerColumn: return producerName_[row];
            case BytesColumn: return qlonglong(t.bytes);
            case OffsetColumn: return qlonglong(t.offset);
            case FirstStepColumn: return qlonglong(t.firstStep);
            case LastStepColumn: return qlonglong(t.lastStep);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn: return QString::fromStdString(t.name);
            case ProducerColumn: return producerName_[row];
            case BytesColumn: return formatBytes(t.bytes);
            case OffsetColumn: return formatBytes(t.offset);
            case FirstStepColumn: return qlonglong(t.firstStep);
            case LastStepColumn: return qlonglong(t.lastStep);
        }
    }
    if (role == Qt::ToolTipRole)
        return tr("%1: %2 at arena offset %3, live from step %4 to %5")
            .arg(QString::fromStdString(t.name), formatBytes(t.bytes), formatBytes(t.offset))
            .arg(t.firstStep)
            .arg(t.lastStep);
    if (role == Qt::TextAlignmentRole && index.column() >= BytesColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant TensorLifetimeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Tensor");
        case ProducerColumn: return tr("Made by");
        case BytesColumn: return tr("Bytes");
        case OffsetColumn: return tr("Arena offset");
        case FirstStepColumn: return tr("First step");
        case LastStepColumn: return tr("Last step");
    }
    return {};
}

}  // namespace npuwb::ui

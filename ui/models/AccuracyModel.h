#pragma once
// Per-layer quantization accuracy as a sortable Qt table: layer, op, precision (editable: the user's per-layer
// override for Re-evaluate), entire / single cosine and euclidean distance, float range, scale, saturation.
#include <QAbstractTableModel>
#include <QStringList>

#include <functional>
#include <map>
#include <string>

#include "npuwb/Report.h"

namespace npuwb::ui {

class AccuracyModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn, LayerColumn, OpColumn, PrecisionColumn, EntireCosineColumn, SingleCosineColumn,
        EntireEuclideanColumn, SingleEuclideanColumn, RangeColumn, ScaleColumn, SaturationColumn, ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, LayerRowRole };

    using QAbstractTableModel::QAbstractTableModel;

    /// Replaces the rows; overrides the user set earlier are kept for layers that still exist.
    void setAccuracy(const AccuracySection& accuracy);
    const AccuracySection& accuracy() const { return accuracy_; }
    /// Shows each layer under `idOf(node name)` (the Layers table's ID; -1 keeps the analysis' own step), so a
    /// layer reads the same in every tab. The rows stay; the ID column changes.
    void setLayerIds(const std::function<int(const QString&)>& idOf);
    /// The precision names the table offers ("int8", "int16", "fp16", "float").
    static QStringList precisionChoices();
    /// Layer name -> precision the user chose that differs from what the layer ran with.
    std::map<std::string, std::string> overrides() const { return overrides_; }
    void clearOverrides();
    /// Row of a layer by node name, -1 when absent.
    int rowOfLayer(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void overridesChanged();

private:
    QString precisionOf(const AccuracyLayer& layer) const;

    AccuracySection accuracy_;
    std::map<std::string, std::string> overrides_;
};

}  // namespace npuwb::ui

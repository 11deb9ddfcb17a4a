#include "models/AccuracyModel.h"

#include <QBrush>
#include <QColor>

namespace npuwb::ui {

namespace {

QString cosineText(double c) { return QString::number(c, 'f', 6); }

// Red below 0.98, amber below 0.995: where precision is lost.
QVariant cosineColour(double c) {
    if (c < 0.98) return QBrush(QColor(255, 205, 205));
    if (c < 0.995) return QBrush(QColor(255, 236, 190));
    return {};
}

}  // namespace

QStringList AccuracyModel::precisionChoices() {
    return {QStringLiteral("int8"), QStringLiteral("int16"), QStringLiteral("fp16"), QStringLiteral("float")};
}

void AccuracyModel::setAccuracy(const AccuracySection& accuracy) {
    beginResetModel();
    accuracy_ = accuracy;
    std::map<std::string, std::string> kept;
    for (const AccuracyLayer& l : accuracy_.layers)
        if (auto it = overrides_.find(l.fullName); it != overrides_.end() && it->second != l.precision) kept.insert(*it);
    overrides_ = std::move(kept);
    endResetModel();
    emit overridesChanged();
}

void AccuracyModel::setLayerIds(const std::function<int(const QString&)>& idOf) {
    for (AccuracyLayer& l : accuracy_.layers)
        if (const int id = idOf(QString::fromStdString(l.fullName)); id >= 0) l.id = id;
    if (rowCount() > 0) emit dataChanged(index(0, IdColumn), index(rowCount() - 1, IdColumn));
}

void AccuracyModel::clearOverrides() {
    if (overrides_.empty()) return;
    overrides_.clear();
    if (rowCount() > 0) emit dataChanged(index(0, PrecisionColumn), index(rowCount() - 1, PrecisionColumn));
    emit overridesChanged();
}

int AccuracyModel::rowOfLayer(const QString& name) const {
    const std::string n = name.toStdString();
    for (size_t i = 0; i < accuracy_.layers.size(); ++i)
        if (accuracy_.layers[i].fullName == n) return static_cast<int>(i);
    return -1;
}

int AccuracyModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(accuracy_.layers.size());
}

int AccuracyModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString AccuracyModel::precisionOf(const AccuracyLayer& layer) const {
    const auto it = overrides_.find(layer.fullName);
    return QString::fromStdString(it != overrides_.end() ? it->second : layer.precision);
}

QVariant AccuracyModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const AccuracyLayer& l = accuracy_.layers[static_cast<size_t>(index.row())];
    const double single = l.singleCosine.value_or(1.0);
    if (role == LayerRowRole) return index.row();
    if (role == SortRole) {
        switch (index.column()) {
            case IdColumn: return static_cast<qlonglong>(l.id);
            case EntireCosineColumn: return l.entireCosine;
            case SingleCosineColumn: return single;
            case EntireEuclideanColumn: return l.entireEuclidean;
            case SingleEuclideanColumn: return l.singleEuclidean.value_or(0.0);
            case RangeColumn: return l.floatMax - l.floatMin;
            case ScaleColumn: return l.scale.value_or(0.0);
            case SaturationColumn: return l.saturationRate;
            default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::BackgroundRole) {
        if (index.column() == EntireCosineColumn) return cosineColour(l.entireCosine);
        if (index.column() == SingleCosineColumn && l.singleCosine) return cosineColour(single);
        if (index.column() == PrecisionColumn && overrides_.count(l.fullName)) return QBrush(QColor(205, 225, 255));
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= EntireCosineColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == PrecisionColumn)
        return tr("Double-click to run this layer in another precision, then Re-evaluate");
    if (role == Qt::ToolTipRole && index.column() == LayerColumn) return QString::fromStdString(l.fullName);
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    switch (index.column()) {
        case IdColumn: return static_cast<qlonglong>(l.id);
        case LayerColumn: return QString::fromStdString(l.fullName);
        case OpColumn: return QString::fromStdString(l.opType);
        case PrecisionColumn: return precisionOf(l);
        case EntireCosineColumn: return cosineText(l.entireCosine);
        case SingleCosineColumn: return l.singleCosine ? cosineText(*l.singleCosine) : QStringLiteral("–");
        case EntireEuclideanColumn: return QString::number(l.entireEuclidean, 'g', 4);
        case SingleEuclideanColumn: return l.singleEuclidean ? QString::number(*l.singleEuclidean, 'g', 4) : QStringLiteral("–");
        case RangeColumn: return QStringLiteral("[%1, %2]").arg(l.floatMin, 0, 'g', 4).arg(l.floatMax, 0, 'g', 4);
        case ScaleColumn:
            return l.scale ? QStringLiteral("%1 (zp %2)").arg(*l.scale, 0, 'g', 4).arg(l.zeroPoint.value_or(0))
                           : QStringLiteral("–");
        case SaturationColumn: return QStringLiteral("%1 %").arg(l.saturationRate * 100.0, 0, 'f', 3);
        default: return {};
    }
}

bool AccuracyModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.column() != PrecisionColumn || role != Qt::EditRole) return false;
    const QString choice = value.toString().trimmed().toLower();
    if (!precisionChoices().contains(choice)) return false;
    const AccuracyLayer& l = accuracy_.layers[static_cast<size_t>(index.row())];
    if (choice.toStdString() == l.precision)
        overrides_.erase(l.fullName);
    else
        overrides_[l.fullName] = choice.toStdString();
    emit dataChanged(index, index);
    emit overridesChanged();
    return true;
}

Qt::ItemFlags AccuracyModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == PrecisionColumn) f |= Qt::ItemIsEditable;
    return f;
}

QVariant AccuracyModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
        case IdColumn: return tr("ID");
        case LayerColumn: return tr("Layer");
        case OpColumn: return tr("Op");
        case PrecisionColumn: return tr("Precision");
        case EntireCosineColumn: return tr("Entire cos");
        case SingleCosineColumn: return tr("Single cos");
        case EntireEuclideanColumn: return tr("Entire euc");
        case SingleEuclideanColumn: return tr("Single euc");
        case RangeColumn: return tr("Float range");
        case ScaleColumn: return tr("Scale");
        case SaturationColumn: return tr("Saturated");
        default: return {};
    }
}

}  // namespace npuwb::ui

#include "models/MatmulBenchModel.h"

#include "models/Format.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::ui {

void MatmulBenchModel::setResult(std::shared_ptr<const MatmulBenchResult> result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

int MatmulBenchModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->points.size());
}

int MatmulBenchModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MatmulBenchModel::value(const MatmulBenchPoint& point, int column) const {
    switch (column) {
        case MColumn: return qint64(point.M);
        case KColumn: return qint64(point.K);
        case NColumn: return qint64(point.N);
        case CpuTimeColumn: return point.medianUs;
        case CpuGopsColumn: return point.gops;
        case BToNativeColumn: return point.bToNativeUs;
        case AcConversionColumn: return point.acToNativeUs;
        case BackendColumn: return QString::fromStdString(point.backend);
        case NpuTimeColumn: return point.estimate.timeUs;
        case NpuGopsColumn: return point.estimate.timeUs > 0 ? 2e-3 * point.M * point.K * point.N / point.estimate.timeUs : 0.0;
        case PeakPercentColumn: {  // the estimate's throughput as a share of the chip's peak for the type
            const double npuGops = value(point, NpuGopsColumn).toDouble();
            return result_->peakGops > 0 ? 100.0 * npuGops / result_->peakGops : 0.0;
        }
        case MeasuredOnColumn: return QString::fromStdString(result_->measuredOn);
        case CoreMaskColumn: return QString::fromLatin1(coreMaskName(result_->coreMask));
        case PredictedOverMeasuredColumn: return point.medianUs > 0 ? point.estimate.timeUs / point.medianUs : 0.0;
        default: return {};
    }
}

QVariant MatmulBenchModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const MatmulBenchPoint& point = result_->points[static_cast<size_t>(index.row())];
    const QVariant number = value(point, index.column());
    if (role == ValueRole) return number;
    if (role == Qt::TextAlignmentRole)
        return index.column() == BackendColumn || index.column() == MeasuredOnColumn || index.column() == CoreMaskColumn
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == BackendColumn && !point.fallbackReason.empty())
        return QString::fromStdString(point.fallbackReason);
    if (role == Qt::ToolTipRole && index.column() == BToNativeColumn)
        return tr("B: %1").arg(QString::fromStdString(point.bLayout));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case CpuTimeColumn:
        case BToNativeColumn:
        case AcConversionColumn:
        case NpuTimeColumn: return formatMicros(number.toDouble());
        case CpuGopsColumn:
        case NpuGopsColumn: return QString::number(number.toDouble(), 'f', 1);
        case PeakPercentColumn: return QStringLiteral("%1 %").arg(number.toDouble(), 0, 'f', 1);
        case PredictedOverMeasuredColumn: return QString::number(number.toDouble(), 'f', 3);
        default: return number;
    }
}

QVariant MatmulBenchModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == PredictedOverMeasuredColumn)
        return tr("Predicted over measured: the cost model's NPU time over the time measured on the board");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    const bool board = measuredOnBoard();
    switch (section) {
        case MColumn: return QStringLiteral("M");
        case KColumn: return QStringLiteral("K");
        case NColumn: return QStringLiteral("N");
        case CpuTimeColumn: return board ? tr("NPU time") : tr("CPU time");
        case CpuGopsColumn: return board ? tr("NPU GOP/s") : tr("CPU GOP/s");
        case BToNativeColumn: return tr("B → native");
        case AcConversionColumn: return tr("A/C conversion");
        case BackendColumn: return tr("Kernel");
        case NpuTimeColumn: return tr("NPU estimate");
        case NpuGopsColumn: return tr("Estimate GOP/s");
        case PeakPercentColumn: return tr("% of peak");
        case MeasuredOnColumn: return tr("Measured on");
        case CoreMaskColumn: return tr("Core mask");
        case PredictedOverMeasuredColumn: return tr("est/meas");  // as npuwb-cli matmul-bench --board prints it
        default: return {};
    }
}

}  // namespace npuwb::ui

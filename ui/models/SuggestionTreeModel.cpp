#include "models/SuggestionTableModel.h"

#include <QColor>

namespace npuwb::ui {

namespace {
int severityRank(const std::string& severity) {
    return severity == "high" ? 3 : severity == "medium" ? 2 : severity == "low" ? 1 : 0;
}
constexpr int kMaxNodesShown = 3;
}  // namespace

void SuggestionTableModel::setFindings(std::vector<advisor::Finding> findings) {
    beginResetModel();
    findings_ = std::move(findings);
    endResetModel();
}

QStringList SuggestionTableModel::nodesOf(const advisor::Finding& finding) {
    QStringList nodes;
    for (const std::string& n : finding.nodes) nodes << QString::fromStdString(n);
    return nodes;
}

int SuggestionTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(findings_.size());
}

int SuggestionTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SuggestionTableModel::display(const advisor::Finding& f, int column) const {
    switch (column) {
        case GainColumn: return f.estimatedGainUs > 0 ? QString::number(f.estimatedGainUs, 'f', 1) : QString();
        case SeverityColumn: return QString::fromStdString(f.severity);
        case RuleColumn: return QString::fromStdString(f.rule);
        case HazardColumn: return QString::fromStdString(f.hazard);
        case NodesColumn: {
            const QStringList nodes = nodesOf(f);
            // Long lists (every Conv of a float model) would swamp the row; the tooltip has them all.
            return nodes.size() <= kMaxNodesShown
                       ? nodes.join(QStringLiteral(", "))
                       : tr("%1, … (%2 nodes)").arg(nodes.mid(0, kMaxNodesShown).join(QStringLiteral(", ")))
                             .arg(nodes.size());
        }
        case PassColumn: return f.pass.empty() ? tr("(manual)") : QString::fromStdString(f.pass);
    }
    return {};
}

QVariant SuggestionTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const advisor::Finding& f = findings_[size_t(index.row())];
    switch (role) {
        case Qt::DisplayRole: return display(f, index.column());
        case SortRole:
            if (index.column() == GainColumn) return f.estimatedGainUs;
            if (index.column() == SeverityColumn) return severityRank(f.severity);
            if (index.column() == NodesColumn) return int(f.nodes.size());
            return display(f, index.column());
        case FindingIndexRole: return index.row();
        case NodesRole: return nodesOf(f);
        case Qt::ToolTipRole:
            if (index.column() == NodesColumn) return nodesOf(f).join(QLatin1Char('\n'));
            if (index.column() == HazardColumn)
                return QString::fromStdString(f.hazard + "\n\n" + f.mitigation);
            return {};
        case Qt::ForegroundRole:
            if (index.column() == SeverityColumn && f.severity == "high") return QColor(0xc0, 0x20, 0x20);
            if (index.column() == PassColumn && f.pass.empty()) return QColor(Qt::gray);
            return {};
        case Qt::TextAlignmentRole:
            if (index.column() == GainColumn) return int(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant SuggestionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        static const char* const titles[ColumnCount] = {"Gain (µs)", "Severity", "Rule", "Fixing pass",
                                                        "Hazard", "Nodes"};
        return tr(titles[section]);
    }
    if (role == Qt::ToolTipRole && section == GainColumn) return tr("Estimated time saved on the chosen chip");
    return {};
}

}  // namespace npuwb::ui

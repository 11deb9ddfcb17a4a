#include "models/SuggestionTreeModel.h"

#include <QColor>

#include <algorithm>
#include <map>

namespace npuwb::ui {

namespace {
int severityRank(const std::string& severity) {
    return severity == "high" ? 3 : severity == "medium" ? 2 : severity == "low" ? 1 : 0;
}
constexpr int kMaxNodesShown = 3;
constexpr quintptr kGroupId = 0;

QString shortList(const QStringList& nodes) {
    // Long lists (every Conv of a float model) would swamp the row; the tooltip has them all.
    return nodes.size() <= kMaxNodesShown
               ? nodes.join(QStringLiteral(", "))
               : SuggestionTreeModel::tr("%1, … (%2 nodes)")
                     .arg(nodes.mid(0, kMaxNodesShown).join(QStringLiteral(", ")))
                     .arg(nodes.size());
}
}  // namespace

void SuggestionTreeModel::setFindings(std::vector<advisor::Finding> findings) {
    beginResetModel();
    findings_ = std::move(findings);
    groups_.clear();
    std::map<std::pair<std::string, std::string>, size_t> byKey;
    for (size_t i = 0; i < findings_.size(); ++i) {
        const advisor::Finding& f = findings_[i];
        auto [it, added] = byKey.try_emplace({f.rule, f.pass}, groups_.size());
        if (added) groups_.push_back(Group{f.rule, f.pass, {}, 0.0, f.severity});
        Group& g = groups_[it->second];
        g.sites.push_back(int(i));
        g.gainUs += f.estimatedGainUs;
        if (severityRank(f.severity) > severityRank(g.severity)) g.severity = f.severity;
    }
    groupOfFinding_.assign(findings_.size(), -1);
    rowOfFinding_.assign(findings_.size(), -1);
    for (size_t g = 0; g < groups_.size(); ++g) {
        auto& sites = groups_[g].sites;
        std::stable_sort(sites.begin(), sites.end(), [this](int a, int b) {
            return findings_[size_t(a)].estimatedGainUs > findings_[size_t(b)].estimatedGainUs;
        });
        for (size_t r = 0; r < sites.size(); ++r) {
            groupOfFinding_[size_t(sites[r])] = int(g);
            rowOfFinding_[size_t(sites[r])] = int(r);
        }
    }
    endResetModel();
}

QStringList SuggestionTreeModel::nodesOf(const advisor::Finding& finding) {
    QStringList nodes;
    for (const std::string& n : finding.nodes) nodes << QString::fromStdString(n);
    return nodes;
}

QStringList SuggestionTreeModel::nodesOf(const QList<int>& sites) const {
    QStringList nodes;
    for (int i : sites)
        if (i >= 0 && i < int(findings_.size()))
            for (const QString& n : nodesOf(findings_[size_t(i)]))
                if (!nodes.contains(n)) nodes << n;
    return nodes;
}

QModelIndex SuggestionTreeModel::siteIndex(int finding) const {
    if (finding < 0 || finding >= int(findings_.size())) return {};
    return index(rowOfFinding_[size_t(finding)], 0, index(groupOfFinding_[size_t(finding)], 0));
}

QModelIndex SuggestionTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (column < 0 || column >= ColumnCount || row < 0) return {};
    if (!parent.isValid()) return row < int(groups_.size()) ? createIndex(row, column, kGroupId) : QModelIndex();
    if (parent.internalId() != kGroupId || parent.row() >= int(groups_.size())) return {};
    const Group& g = groups_[size_t(parent.row())];
    return row < int(g.sites.size()) ? createIndex(row, column, quintptr(parent.row()) + 1) : QModelIndex();
}

QModelIndex SuggestionTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kGroupId) return {};
    return createIndex(int(child.internalId() - 1), 0, kGroupId);
}

int SuggestionTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return int(groups_.size());
    if (parent.column() != 0 || parent.internalId() != kGroupId) return 0;
    return int(groups_[size_t(parent.row())].sites.size());
}

int SuggestionTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

const SuggestionTreeModel::Group* SuggestionTreeModel::groupOf(const QModelIndex& index) const {
    const size_t g = index.internalId() == kGroupId ? size_t(index.row()) : size_t(index.internalId() - 1);
    return g < groups_.size() ? &groups_[g] : nullptr;
}

QList<int> SuggestionTreeModel::sitesOf(const QModelIndex& index) const {
    const Group* g = groupOf(index);
    if (!g) return {};
    if (index.internalId() != kGroupId) return {g->sites[size_t(index.row())]};
    return QList<int>(g->sites.begin(), g->sites.end());
}

QString SuggestionTreeModel::gainText(double gainUs, bool measured) {
    if (gainUs == 0) return {};
    return (measured ? QString() : QStringLiteral("~")) + QString::number(gainUs, 'f', 1);
}

QVariant SuggestionTreeModel::groupDisplay(const Group& g, int column) const {
    const advisor::Finding& top = findings_[size_t(g.sites.front())];
    switch (column) {
        case GainColumn: return gainText(g.gainUs, top.gainMeasured);
        case SitesColumn: return int(g.sites.size());
        case SeverityColumn: return QString::fromStdString(g.severity);
        case RuleColumn: return QString::fromStdString(g.rule);
        case PassColumn: return g.pass.empty() ? tr("(manual)") : QString::fromStdString(g.pass);
        case HazardColumn:
            if (g.sites.size() == 1) return QString::fromStdString(top.hazard);
            if (!g.pass.empty() && g.rule == "graph-rewrite")
                return tr("%1 applies at %2 sites").arg(QString::fromStdString(g.pass)).arg(g.sites.size());
            return tr("%1 sites; largest: %2").arg(g.sites.size()).arg(QString::fromStdString(top.hazard));
        case NodesColumn: return shortList(nodesOf(sitesOf(groupIndex(int(&g - groups_.data())))));
    }
    return {};
}

QVariant SuggestionTreeModel::siteDisplay(const advisor::Finding& f, int column) const {
    switch (column) {
        case GainColumn: return gainText(f.estimatedGainUs, f.gainMeasured);
        case SitesColumn: return QString();
        case SeverityColumn: return QString::fromStdString(f.severity);
        case RuleColumn:
        case PassColumn: return QString();  // the group row above says it once for all its sites
        case HazardColumn: return QString::fromStdString(f.hazard);
        case NodesColumn: return shortList(nodesOf(f));
    }
    return {};
}

QVariant SuggestionTreeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Group* g = groupOf(index);
    if (!g) return {};
    const bool isGroup = index.internalId() == kGroupId;
    const advisor::Finding& f = findings_[size_t(isGroup ? g->sites.front() : g->sites[size_t(index.row())])];
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole: return isGroup ? groupDisplay(*g, column) : siteDisplay(f, column);
        case SortRole:
            if (column == GainColumn) return isGroup ? g->gainUs : f.estimatedGainUs;
            if (column == SitesColumn) return isGroup ? int(g->sites.size()) : 1;
            if (column == SeverityColumn) return severityRank(isGroup ? g->severity : f.severity);
            if (column == NodesColumn) return int(nodesOf(sitesOf(index)).size());
            if (column == RuleColumn) return QString::fromStdString(f.rule);
            if (column == PassColumn) return QString::fromStdString(f.pass);
            return isGroup ? groupDisplay(*g, column) : siteDisplay(f, column);
        case FindingIndexRole: return isGroup ? -1 : g->sites[size_t(index.row())];
        case SiteIndicesRole: return QVariant::fromValue(sitesOf(index));
        case NodesRole: return nodesOf(sitesOf(index));
        case IsGroupRole: return isGroup;
        case Qt::ToolTipRole:
            if (column == NodesColumn) return nodesOf(sitesOf(index)).join(QLatin1Char('\n'));
            if (column == HazardColumn) return QString::fromStdString(f.hazard + "\n\n" + f.mitigation);
            if (column == GainColumn && f.gainMeasured)
                return isGroup ? tr("Measured: what applying %1 to a copy of the model changed in the estimate")
                                     .arg(QString::fromStdString(f.pass))
                               : tr("This site's share of what applying %1 changed in the estimate (by the cost "
                                    "model's site figures)").arg(QString::fromStdString(f.pass));
            if (column == GainColumn)
                return isGroup ? tr("~: the cost model's figure, summed over the %1 site(s); no pass applies it, so "
                                    "it is not measured").arg(g->sites.size())
                               : tr("~: the cost model's figure for this site; no pass applies it, so it is not "
                                    "measured");
            return {};
        case Qt::ForegroundRole:
            if (column == SeverityColumn && (isGroup ? g->severity : f.severity) == "high")
                return QColor(0xc0, 0x20, 0x20);
            if (column == PassColumn && f.pass.empty()) return QColor(Qt::gray);
            return {};
        case Qt::TextAlignmentRole:
            if (column == GainColumn || column == SitesColumn) return int(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant SuggestionTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        static const char* const titles[ColumnCount] = {"Gain (µs)", "Sites", "Severity", "Rule", "Fixing pass",
                                                        "Hazard", "Nodes"};
        return tr(titles[section]);
    }
    if (role == Qt::ToolTipRole && section == GainColumn)
        return tr("Estimated time saved on the chosen chip: measured by applying the fixing pass to a copy, or the "
                  "cost model's figure (~). Gains of different rows overlap: the summary line says what applying "
                  "every pass gives");
    return {};
}

}  // namespace npuwb::ui

#pragma once
// The advisor's findings grouped by (rule, fixing pass): a group row with its site count, summed estimated gain and
// highest severity, one child row per site (finding). PP-OCRv4 det has 24 fuse_hardswish sites: one group, not 24
// rows. Sortable through a QSortFilterProxyModel (SortRole); groups and their sites sort alike.
#include <QAbstractItemModel>
#include <QList>
#include <QStringList>

#include <vector>

#include "npuwb/Advisor.h"

namespace npuwb::ui {

class SuggestionTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    // The fixing pass before the long texts, so it never needs scrolling.
    enum Column { GainColumn, SitesColumn, SeverityColumn, RuleColumn, PassColumn, HazardColumn, NodesColumn,
                  ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,  // gain as a number, severity as its rank
        FindingIndexRole,             // site rows: index into findings(), stable under sorting; group rows: -1
        SiteIndicesRole,              // QList<int>: the findings a row stands for (a group: all its sites)
        NodesRole,                    // QStringList of the row's nodes (a group: every site's)
        IsGroupRole,                  // bool
    };

    struct Group {
        std::string rule;
        std::string pass;  // "" when the fix is manual
        std::vector<int> sites;  // indices into findings(), largest gain first
        double gainUs = 0;
        std::string severity;
    };

    using QAbstractItemModel::QAbstractItemModel;

    void setFindings(std::vector<advisor::Finding> findings);
    void clear() { setFindings({}); }
    const std::vector<advisor::Finding>& findings() const { return findings_; }
    const std::vector<Group>& groups() const { return groups_; }
    /// Column 0 of group row `group`; of the site row showing findings()[finding].
    QModelIndex groupIndex(int group) const { return index(group, 0); }
    QModelIndex siteIndex(int finding) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QStringList nodesOf(const advisor::Finding& finding);
    /// The nodes a set of sites names, in order, without repeats.
    QStringList nodesOf(const QList<int>& sites) const;

private:
    // internalId: 0 for a group row, group index + 1 for a site row.
    const Group* groupOf(const QModelIndex& index) const;
    QList<int> sitesOf(const QModelIndex& index) const;
    /// "2209.1" when measured, "~378.4" for the cost model's figure, "" for none (negative: the pass costs time).
    static QString gainText(double gainUs, bool measured);
    QVariant groupDisplay(const Group& group, int column) const;
    QVariant siteDisplay(const advisor::Finding& finding, int column) const;

    std::vector<advisor::Finding> findings_;
    std::vector<Group> groups_;
    std::vector<int> groupOfFinding_;
    std::vector<int> rowOfFinding_;
};

}  // namespace npuwb::ui

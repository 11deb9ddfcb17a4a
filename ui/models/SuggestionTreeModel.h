#pragma once
// The advisor's findings as a sortable Qt table: rule, severity, hazard, nodes, estimated gain, fixing pass.
#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

#include "npuwb/Advisor.h"

namespace npuwb::ui {

class SuggestionTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The fixing pass before the long texts, so it never needs scrolling.
    enum Column { GainColumn, SeverityColumn, RuleColumn, PassColumn, HazardColumn, NodesColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,  // gain as a number, severity as its rank
        FindingIndexRole,             // index into findings(), stable under sorting
        NodesRole,                    // QStringList of the finding's nodes
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setFindings(std::vector<advisor::Finding> findings);
    void clear() { setFindings({}); }
    const std::vector<advisor::Finding>& findings() const { return findings_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QStringList nodesOf(const advisor::Finding& finding);

private:
    QVariant display(const advisor::Finding& finding, int column) const;

    std::vector<advisor::Finding> findings_;
};

}  // namespace npuwb::ui

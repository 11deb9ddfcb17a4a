#pragma once
// The Suggestions tab: the advisor's findings sorted by estimated gain, the chosen finding's evidence and
// mitigation, and an Apply button (the window's Apply action) for findings a pass can fix. Picking a finding
// emits nodesClicked with its nodes, so the shared selection highlights them in every view.
#include <QStringList>
#include <QWidget>

#include <vector>

#include "npuwb/Advisor.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;
class QToolButton;
class QAction;

namespace npuwb::ui {

class SuggestionTableModel;

class SuggestionsView : public QWidget {
    Q_OBJECT
public:
    explicit SuggestionsView(QWidget* parent = nullptr);

    void setFindings(std::vector<advisor::Finding> findings, const QString& summary);
    void clear(const QString& hint);
    /// The Apply button triggers this action (the window owns it, with its shortcut).
    void setApplyAction(QAction* action);

    SuggestionTableModel* model() const { return model_; }
    QSortFilterProxyModel* proxyModel() const { return proxy_; }
    QTableView* tableView() const { return table_; }
    /// The finding of the current row, nullptr when none.
    const advisor::Finding* currentFinding() const;
    /// Selects the row showing findings()[index] (tests, and the window after a reload).
    void selectFinding(int index);

signals:
    void nodesClicked(const QStringList& names);
    void currentFindingChanged();

private:
    void onCurrentRowChanged();

    SuggestionTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLabel* summary_;
    QTextBrowser* details_;
    QToolButton* apply_;
};

}  // namespace npuwb::ui

#pragma once
// The Suggestions tab: Advise (F7) runs the advisor for the chosen chip on a worker; its findings sorted by
// estimated gain, the chosen finding's evidence and mitigation, and Apply Fix (Ctrl+Return) for findings a pass
// can fix: the pass runs with its numerical proof, on the undo stack. Picking a finding selects its nodes in every
// view through the shared selection.
#include <QStringList>

#include <memory>
#include <vector>

#include "core/WorkbenchView.h"
#include "npuwb/Advisor.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;
class QToolButton;

namespace npuwb::ui {

class AdviseJob;
class SuggestionTableModel;

class SuggestionsView : public WorkbenchView {
    Q_OBJECT
public:
    SuggestionsView(Workbench& workbench, QWidget* parent);

    QAction* adviseAction() const { return adviseAction_; }
    QAction* applyAction() const { return applyAction_; }
    QList<ViewAction> viewActions() const override;
    bool startFromCommandLine() override;

    void setFindings(std::vector<advisor::Finding> findings, const QString& summary);
    void clear(const QString& hint);

    SuggestionTableModel* model() const { return model_; }
    QSortFilterProxyModel* proxyModel() const { return proxy_; }
    QTableView* tableView() const { return table_; }
    /// The finding of the current row, nullptr when none.
    const advisor::Finding* currentFinding() const;
    /// Selects the row showing findings()[index] (tests, and the window after a reload).
    void selectFinding(int index);

public slots:
    /// Advises on the current model for the workbench's target (ignored while busy).
    void startAdvise();
    /// Runs the fixing pass of the selected finding with its proof, on the undo stack.
    void applySelectedFinding();

signals:
    void nodesClicked(const QStringList& names);
    void currentFindingChanged();
    void adviceShown(std::shared_ptr<const std::vector<advisor::Finding>> findings);

private:
    void start();
    void onFinished(std::shared_ptr<const std::vector<advisor::Finding>> findings);
    void onModelChanged();
    void onCurrentRowChanged();
    void updateActions();

    AdviseJob* job_;
    QAction* adviseAction_;
    QAction* applyAction_;
    SuggestionTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QLabel* summary_;
    QTextBrowser* details_;
    QToolButton* apply_;
};

}  // namespace npuwb::ui
